/* hs-image-levels.c — an image levelled into a cairo surface
 *
 * The drawing half of hs-image.c: the only part of the image code that calls
 * cairo, so that the programs that do not draw (heatscope-cli's commands but
 * render, figure and deck) link the rest without it (src/cli/hs-cli-draw.c). */
#include "hs-image-private.h"

#include <math.h>

cairo_surface_t *
hs_image_levels (const HsImage *image, double center, double width)
{
  cairo_surface_t *surface;

  g_return_val_if_fail (image != NULL, NULL);

  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) image->width, (int) image->height);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    return surface;
  cairo_surface_flush (surface);
  hs_image_levels_into (image, center, width, cairo_image_surface_get_data (surface),
                        (gsize) cairo_image_surface_get_stride (surface));
  cairo_surface_mark_dirty (surface);
  return surface;
}

cairo_surface_t *
hs_image_levels_values (const HsImage *image, double center, double width)
{
  double c, w;

  g_return_val_if_fail (image != NULL, NULL);

  if (!(width > 0) || !isfinite (width) || !isfinite (center))
    return hs_image_levels (image, 0, 0);
  hs_image_window_to_samples (image, center, width, &c, &w);
  return hs_image_levels (image, c, w);
}
