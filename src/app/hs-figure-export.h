/* hs-figure-export.h — what every figure export of the app shares
 *
 * The page size (GSettings figure-width, figure-dpi, figure-font-size), the
 * save dialog that offers and remembers them, and the targets of a view as
 * the composer's boxes and masks.  The compare view's export and the main
 * window's current-view figure go through these and hs-figure-grid, as
 * `heatscope-cli figure` does. */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-attention-map.h>
#include <heatscope/hs-figure-grid.h>

#include "hs-view-state.h"

G_BEGIN_DECLS

/* grid's width, dpi and font size from `settings` (NULL: 183mm, 300, 7). */
gboolean              hs_figure_export_size         (GSettings *settings, HsFigureGrid *grid,
                                                     GError **error);
/* A save dialog named `title` for `current_name`, with the size choices
 * preset from the settings. */
GtkFileChooserNative *hs_figure_export_chooser_new  (GtkWindow *parent, const char *title,
                                                     const char *current_name,
                                                     GSettings *settings);
/* A panel's view: `image` under `map` with the targets (`boxes` of
 * HsFigureBox, `masks` of HsFigureMask) as `state` shows them — its opacity
 * and which of overlay, boxes and masks are on (the grid's overlay options
 * give the colours). */
void                  hs_figure_export_panel_view   (HsFigureView *view, HsImage *image,
                                                     HsAttentionMap *map, HsViewState *state,
                                                     GArray *boxes, GArray *masks);
/* Writes the dialog's size choices back to the settings (the next export
 * starts from them). */
void                  hs_figure_export_remember     (GtkFileChooser *chooser, GSettings *settings);

G_END_DECLS
