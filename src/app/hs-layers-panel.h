/* hs-layers-panel.h — everything drawn over the radiograph, as a list
 *
 * One row for the heatmap and one for the top-k/Otsu outline (bound to an
 * HsViewState), then one row per region of the instance in its colour
 * (hs_region_color of its index in the instance, as the canvas and the
 * exported key draw it) with a visibility toggle and a "Target" tick.  The
 * selected sentence's targets are ticked and bold.  Ticking or unticking
 * activates "win.link-target" with ("region name", linked), so the window
 * decides (it updates the manifest and keeps the undo); the panel follows
 * when the window calls hs_layers_panel_set_instance again.
 * Template: ui/hs-layers-panel.ui. */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>

#include "hs-view-state.h"

G_BEGIN_DECLS

#define HS_TYPE_LAYERS_PANEL (hs_layers_panel_get_type ())
G_DECLARE_FINAL_TYPE (HsLayersPanel, hs_layers_panel, HS, LAYERS_PANEL, GtkWidget)

GtkWidget *hs_layers_panel_new                (void);
void       hs_layers_panel_set_view_state     (HsLayersPanel *self, HsViewState *state);
/* Rows for the regions of `instance` (NULL: none; names copied), the
 * targets of `sentence` (NULL: no sentence, ticks insensitive) marked. */
void       hs_layers_panel_set_instance       (HsLayersPanel *self, const HsInstance *instance,
                                               const HsSentence *sentence);
/* Hidden regions are remembered by name across instances; signal
 * "visibility-changed" follows every change. */
gboolean   hs_layers_panel_get_region_visible (HsLayersPanel *self, const char *name);
void       hs_layers_panel_set_region_visible (HsLayersPanel *self, const char *name,
                                               gboolean visible);
guint      hs_layers_panel_get_n_regions      (HsLayersPanel *self);
/* The "Target" tick of the region's row (tests click it), or NULL. */
GtkWidget *hs_layers_panel_get_target_button  (HsLayersPanel *self, const char *name);

G_END_DECLS
