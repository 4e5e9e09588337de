/* hs-canvas-transform.c — the canvas's view transform as pure functions
 *
 * widget = image · zoom + offset; no widget involved, so
 * tests/test-ui-canvas-transform.c checks it without a display.
 */
#include <math.h>

#include "hs-canvas.h"


void
hs_canvas_transform_widget_to_image (const HsCanvasTransform *t, double wx, double wy,
                                     double *ix, double *iy)
{
  g_return_if_fail (t != NULL && t->zoom > 0);
  if (ix)
    *ix = (wx - t->offset_x) / t->zoom;
  if (iy)
    *iy = (wy - t->offset_y) / t->zoom;
}

void
hs_canvas_transform_image_to_widget (const HsCanvasTransform *t, double ix, double iy,
                                     double *wx, double *wy)
{
  g_return_if_fail (t != NULL);
  if (wx)
    *wx = ix * t->zoom + t->offset_x;
  if (wy)
    *wy = iy * t->zoom + t->offset_y;
}

void
hs_canvas_transform_zoom_around (HsCanvasTransform *t, double new_zoom, double wx, double wy)
{
  double ix, iy;

  g_return_if_fail (t != NULL && t->zoom > 0);
  if (!isfinite (new_zoom))
    return;
  new_zoom = CLAMP (new_zoom, HS_CANVAS_ZOOM_MIN, HS_CANVAS_ZOOM_MAX);
  hs_canvas_transform_widget_to_image (t, wx, wy, &ix, &iy);
  t->zoom = new_zoom;
  t->offset_x = wx - ix * new_zoom;
  t->offset_y = wy - iy * new_zoom;
}

void
hs_canvas_transform_fit (HsCanvasTransform *t, double image_w, double image_h,
                         double view_w, double view_h)
{
  g_return_if_fail (t != NULL);
  if (image_w <= 0 || image_h <= 0 || view_w <= 0 || view_h <= 0)
    {
      t->zoom = 1;
      t->offset_x = t->offset_y = 0;
      return;
    }
  t->zoom = CLAMP (MIN (view_w / image_w, view_h / image_h), HS_CANVAS_ZOOM_MIN, HS_CANVAS_ZOOM_MAX);
  t->offset_x = (view_w - image_w * t->zoom) / 2;
  t->offset_y = (view_h - image_h * t->zoom) / 2;
}

void
hs_canvas_transform_one_to_one (HsCanvasTransform *t, double image_w, double image_h,
                                double view_w, double view_h)
{
  g_return_if_fail (t != NULL);
  t->zoom = 1;
  /* Whole pixels keep nearest-neighbour drawing crisp. */
  t->offset_x = floor ((view_w - image_w) / 2);
  t->offset_y = floor ((view_h - image_h) / 2);
}

gboolean
hs_canvas_transform_visible_rect (const HsCanvasTransform *t, double image_w, double image_h,
                                  double view_w, double view_h,
                                  int *x, int *y, int *w, int *h)
{
  double x0, y0, x1, y1;

  g_return_val_if_fail (t != NULL && t->zoom > 0, FALSE);
  hs_canvas_transform_widget_to_image (t, 0, 0, &x0, &y0);
  hs_canvas_transform_widget_to_image (t, view_w, view_h, &x1, &y1);
  x0 = MAX (floor (x0), 0);
  y0 = MAX (floor (y0), 0);
  x1 = MIN (ceil (x1), image_w);
  y1 = MIN (ceil (y1), image_h);
  if (x1 <= x0 || y1 <= y0)
    {
      *x = *y = *w = *h = 0;
      return FALSE;
    }
  *x = (int) x0;
  *y = (int) y0;
  *w = (int) (x1 - x0);
  *h = (int) (y1 - y0);
  return TRUE;
}
