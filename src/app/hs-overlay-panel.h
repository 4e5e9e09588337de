/* hs-overlay-panel.h — the overlay controls
 *
 * Opacity, strength curve and its parameter, colour map, scale mode (with
 * fixed-range and percentile spin buttons), transparent threshold, outline
 * (none / top-k % / Otsu), upsampling and window/level, all bound to an
 * HsViewState (property "view-state").  Template: ui/hs-overlay-panel.ui. */
#pragma once

#include <gtk/gtk.h>

#include <heatscope/hs-image.h>

#include "hs-view-state.h"

G_BEGIN_DECLS

#define HS_TYPE_OVERLAY_PANEL (hs_overlay_panel_get_type ())
G_DECLARE_FINAL_TYPE (HsOverlayPanel, hs_overlay_panel, HS, OVERLAY_PANEL, GtkWidget)

GtkWidget   *hs_overlay_panel_new            (void);
void         hs_overlay_panel_set_view_state (HsOverlayPanel *self, HsViewState *state);
HsViewState *hs_overlay_panel_get_view_state (HsOverlayPanel *self);
/* The image whose grey values the window/level sliders read in (NULL:
 * fractions of the full range); the state stays in fractions. */
void         hs_overlay_panel_set_image      (HsOverlayPanel *self, HsImage *image);
/* The sliders' values (image grey values), and setting them as a user does. */
void         hs_overlay_panel_get_levels     (HsOverlayPanel *self, double *center, double *width);
void         hs_overlay_panel_set_levels     (HsOverlayPanel *self, double center, double width);
/* The colour bar's range in map units (valid FALSE: no map): the threshold
 * slider reads in those units (the state keeps the scaled value in [0, 1]). */
void         hs_overlay_panel_set_map_range  (HsOverlayPanel *self, gboolean valid, double lo, double hi);
double       hs_overlay_panel_get_threshold_value (HsOverlayPanel *self);
void         hs_overlay_panel_set_threshold_value (HsOverlayPanel *self, double value);

G_END_DECLS
