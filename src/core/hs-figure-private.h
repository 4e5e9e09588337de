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

/* One export path for single figures and grids (the drawing is theirs):
 * the pixel budget, the encoders, the SVG header and the atomic write. */
typedef gboolean (*HsFigureSizeFunc) (gconstpointer figure, double *width, double *height,
                                      GError **error);
typedef gboolean (*HsFigureDrawFunc) (gconstpointer figure, cairo_t *cr, GError **error);

/* `figure` (a page of `size` points, drawn by `draw`) onto pixels at
 * `scale` pixels per point; `dpi` (0: the page is in pixels) names the
 * scale in the over-limit error. */
cairo_surface_t *hs_figure_export_surface (gconstpointer figure, HsFigureSizeFunc size,
                                           HsFigureDrawFunc draw, double scale, double dpi,
                                           GError **error);
/* Encode `surface` (consumed; NULL: fails with the error already set) as
 * PNG at `path`. */
gboolean hs_figure_export_png (cairo_surface_t *surface, const char *path, GError **error);
/* `figure` as a one-page PDF at `path`, titled `title` (may be NULL). */
gboolean hs_figure_export_pdf (gconstpointer figure, HsFigureSizeFunc size, HsFigureDrawFunc draw,
                               const char *title, const char *path, GError **error);
/* The SVG prologue: size in `unit` ("" or "pt") and <title>. */
void     hs_figure_svg_begin  (GString *svg, double width, double height, const char *unit,
                               const char *title);
gboolean hs_figure_write_file (const char *path, const void *data, gsize len, GError **error);

G_END_DECLS
