/* hs-color-bar.h — a horizontal colour bar with printed values
 *
 * The shared scale of the compare view's cells, drawn by the core legend
 * (hs-legend.h) as the canvas HUD and exported figures draw theirs: the
 * colours exactly as a view state maps them (colour map, strength and
 * transparent threshold), ticks at both ends and at the nice values between
 * that leave room for their labels, and a caption above ("A and B · one
 * shared scale").
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

G_END_DECLS
