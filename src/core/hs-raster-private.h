/* hs-raster-private.h — 8-bit raster operations that reproduce, value for
 * value, what the papers' Python code gets from OpenCV and Pillow (the
 * gloria and chexlocalize protocols).  Written from the algorithms'
 * descriptions and checked against python3-opencv / python3-pil in the
 * tests; no code of those libraries is included. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* cv2.resize(src, (dw, dh), interpolation=cv2.INTER_AREA) of a one-channel
 * 8-bit image: the area average for shrinking on both axes (the integer
 * block path when both ratios are integers, otherwise the fractional cell
 * weights accumulated in float), and OpenCV's INTER_AREA enlargement (the
 * bilinear path with area coefficients in 11-bit fixed point) when an axis
 * grows.  Returns FALSE (dst untouched) only for an empty size. */
gboolean hs_resize_area_u8      (const guint8 *src, guint sw, guint sh,
                                 guint8 *dst, guint dw, guint dh);

/* The same resize of the sw × sh mask that is 255 on columns [c0, c1) and
 * rows [r0, r1) and 0 elsewhere, without building the source raster: the
 * zero terms the full resize adds do not change a float sum, so the values
 * are identical.  dst holds dw·dh bytes. */
void     hs_resize_area_rect_u8 (guint sw, guint sh, guint c0, guint c1, guint r0, guint r1,
                                 guint8 *dst, guint dw, guint dh);

/* One contour of cv2.findContours(mask, RETR_TREE, CHAIN_APPROX_SIMPLE):
 * `n` vertices (x, y interleaved) in image pixels. */
typedef struct {
  gint *xy;
  guint n;
} HsRasterContour;

/* Every contour (outer borders and hole borders, in OpenCV's order) of the
 * non-zero pixels of a width × height raster, with CHAIN_APPROX_SIMPLE's
 * vertices (the pixels where the border-following direction changes).
 * Free with hs_raster_contours_free. */
GArray  *hs_raster_find_contours (const guint8 *mask, guint width, guint height);
void     hs_raster_contours_free (GArray *contours);

/* PIL's ImageDraw.polygon(xy, fill=1, outline=1) on a mode "1" image of
 * width × height (Pillow 9.4: the outline equals the fill, so only the
 * filled scan-line polygon is drawn): sets the covered pixels of `image` to
 * 1.  n ≥ 2 vertices, (x, y) interleaved. */
void     hs_raster_fill_polygon  (guint8 *image, guint width, guint height,
                                  const gint *xy, guint n);

G_END_DECLS
