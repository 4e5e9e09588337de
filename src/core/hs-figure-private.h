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

/* Lays `figure` out with `p`'s metrics, sets the page size and paints it
 * through `p`. */
typedef gboolean (*HsFigurePaintFunc) (gconstpointer figure, HsPainter *p, double *width,
                                       double *height, GError **error);
/* `figure` (a page of `size` points, drawn by `paint`) onto pixels at
 * `scale` pixels per point; `dpi` (0: the page is in pixels) names the
 * scale in the over-limit error. */
cairo_surface_t *hs_figure_export_surface (gconstpointer figure, HsFigureSizeFunc size,
                                           HsFigurePaintFunc paint, double scale, double dpi,
                                           GError **error);
/* Encode `surface` (consumed; NULL: fails with the error already set) as
 * PNG at `path`. */
gboolean hs_figure_export_png (cairo_surface_t *surface, const char *path, GError **error);
/* `figure` as a one-page PDF at `path`, titled `title` (may be NULL). */
gboolean hs_figure_export_pdf (gconstpointer figure, HsFigureSizeFunc size, HsFigurePaintFunc paint,
                               const char *title, const char *path, GError **error);
/* `paint` onto `cr`, whose state is restored after. */
gboolean hs_figure_paint_cairo (gconstpointer figure, HsFigurePaintFunc paint, cairo_t *cr,
                                GError **error);
/* `paint` as an SVG file at `path`: the page size in `unit` ("" or "pt"),
 * titled `title` (may be NULL). */
gboolean hs_figure_export_svg  (gconstpointer figure, HsFigurePaintFunc paint, const char *unit,
                                const char *title, const char *path, GError **error);
gboolean hs_figure_write_file (const char *path, const void *data, gsize len, GError **error);

G_END_DECLS
