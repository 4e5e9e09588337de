/* hs-color-bar.h — a horizontal colour bar with printed values
 *
 * The shared scale of the compare view's cells: the colours exactly as a
 * view state maps them (colour map and strength), ticks at both ends and at
 * the nice values between that leave room for their labels, and a caption
 * above ("A and B · one shared scale").
 *
 * Usage:
 *   bar = hs_color_bar_new ();
 *   hs_color_bar_set_state (HS_COLOR_BAR (bar), cell_state);
 *   hs_color_bar_set_range (HS_COLOR_BAR (bar), lo, hi);
 *   hs_color_bar_set_caption (HS_COLOR_BAR (bar), _("A and B · one shared scale"));
 */
#pragma once

#include <gtk/gtk.h>

#include "hs-view-state.h"

G_BEGIN_DECLS

#define HS_TYPE_COLOR_BAR (hs_color_bar_get_type ())
G_DECLARE_FINAL_TYPE (HsColorBar, hs_color_bar, HS, COLOR_BAR, GtkDrawingArea)

GtkWidget  *hs_color_bar_new          (void);
/* The colours are read from `state` at each draw (NULL: nothing drawn). */
void        hs_color_bar_set_state    (HsColorBar *self, HsViewState *state);
/* Nothing is drawn unless hi > lo. */
void        hs_color_bar_set_range    (HsColorBar *self, double lo, double hi);
void        hs_color_bar_get_range    (HsColorBar *self, double *lo, double *hi);
void        hs_color_bar_set_caption  (HsColorBar *self, const char *caption);
const char *hs_color_bar_get_caption  (HsColorBar *self);
/* How many nice ticks to aim for between the ends (2 to 6, default 6). */
void        hs_color_bar_set_n_ticks  (HsColorBar *self, guint n_ticks);

/* A value of a scale spanning `span` as the bar prints it: fixed decimals
 * when they read well, else scientific. */
char       *hs_color_bar_format_value (double value, double span);

G_END_DECLS
