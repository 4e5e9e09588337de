/* hs-contour-draw.c — contours stroked with cairo
 *
 * The drawing half of hs-contour.c, kept apart so that the programs that do
 * not draw link the tracing without cairo (src/cli/hs-cli-draw.c). */
#include "hs-contour.h"

#include <math.h>

void
hs_contour_append_path (cairo_t *cr, GPtrArray *lines)
{
  g_return_if_fail (cr != NULL);
  if (lines == NULL)
    return;
  for (guint i = 0; i < lines->len; i++)
    {
      const HsPolyline *line = g_ptr_array_index (lines, i);
      const HsPoint *p = (const HsPoint *) (const void *) line->points->data;

      if (line->points->len == 0)
        continue;
      cairo_move_to (cr, p[0].x, p[0].y);
      for (guint j = 1; j < line->points->len; j++)
        cairo_line_to (cr, p[j].x, p[j].y);
      if (line->closed)
        cairo_close_path (cr);
    }
}

void
hs_contour_draw (cairo_t *cr, GPtrArray *lines, const double rgba[4],
                 double line_width, gboolean dashed)
{
  double ux = line_width, uy = 0;

  g_return_if_fail (cr != NULL);
  g_return_if_fail (rgba != NULL);

  if (lines == NULL || lines->len == 0)
    return;
  cairo_save (cr);
  cairo_device_to_user_distance (cr, &ux, &uy);
  ux = hypot (ux, uy);
  cairo_new_path (cr);
  hs_contour_append_path (cr, lines);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.6 * rgba[3]);
  cairo_set_line_width (cr, ux * 2.0);
  cairo_stroke_preserve (cr);
  cairo_set_source_rgba (cr, rgba[0], rgba[1], rgba[2], rgba[3]);
  cairo_set_line_width (cr, ux);
  if (dashed)
    {
      double dash[2] = { ux * 4, ux * 3 };
      cairo_set_dash (cr, dash, 2, 0);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}
