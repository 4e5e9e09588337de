/* hs-figure-private.h — one view's image panel drawn into a larger figure
 *
 * The figure composer (hs-figure-grid.c) places many views' image panels
 * on one page with shared legends; these draw exactly what a single figure
 * draws inside its panel (raster, masks, outline, boxes and their names). */
#pragma once

#include "hs-figure.h"
#include "hs-painter-private.h"

G_BEGIN_DECLS

/* The view's viewport size in image pixels (whole image when unset). */
gboolean hs_figure_view_extent (const HsFigureView *view, double *width, double *height,
                                GError **error);
/* The panel with its top-left at (x, y), `zoom` output units per image
 * pixel, labels at `font_size`; colours over `range` (NULL: the view's
 * own scale of its map). */
gboolean hs_figure_paint_panel (const HsFigureView *view, HsPainter *p, double x, double y,
                                double zoom, double font_size, const HsScaleRange *range,
                                GError **error);

G_END_DECLS
