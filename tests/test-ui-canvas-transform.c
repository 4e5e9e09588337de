/* test-ui-canvas-transform.c — the canvas's view transform, without a display */
#include <math.h>

#include "hs-canvas.h"
#include "hs-test-util.h"

#define EPS 1e-9

static void
test_widget_image_roundtrip (void)
{
  HsCanvasTransform t = { 2.0, 10.0, 20.0 };
  double ix, iy, wx, wy;

  /* widget = image · zoom + offset, worked by hand */
  hs_canvas_transform_widget_to_image (&t, 30, 40, &ix, &iy);
  g_assert_cmpfloat_with_epsilon (ix, 10, EPS);
  g_assert_cmpfloat_with_epsilon (iy, 10, EPS);
  hs_canvas_transform_image_to_widget (&t, 0, 0, &wx, &wy);
  g_assert_cmpfloat_with_epsilon (wx, 10, EPS);
  g_assert_cmpfloat_with_epsilon (wy, 20, EPS);
  hs_canvas_transform_image_to_widget (&t, 100.5, 7.25, &wx, &wy);
  g_assert_cmpfloat_with_epsilon (wx, 211, EPS);
  g_assert_cmpfloat_with_epsilon (wy, 34.5, EPS);

  for (int i = 0; i < 100; i++)
    {
      HsCanvasTransform r = { g_test_rand_double_range (0.05, 20), g_test_rand_double_range (-500, 500),
                              g_test_rand_double_range (-500, 500) };
      double x = g_test_rand_double_range (-1000, 1000), y = g_test_rand_double_range (-1000, 1000);
      hs_canvas_transform_widget_to_image (&r, x, y, &ix, &iy);
      hs_canvas_transform_image_to_widget (&r, ix, iy, &wx, &wy);
      g_assert_cmpfloat_with_epsilon (wx, x, 1e-6);
      g_assert_cmpfloat_with_epsilon (wy, y, 1e-6);
    }
}

static void
test_zoom_around_pointer (void)
{
  HsCanvasTransform t = { 1.0, 0.0, 0.0 };
  double ix, iy;

  /* The image point (100, 50) under the pointer stays there: offset
   * becomes 100 − 100·2 = −100 and 50 − 50·2 = −50. */
  hs_canvas_transform_zoom_around (&t, 2.0, 100, 50);
  g_assert_cmpfloat_with_epsilon (t.zoom, 2, EPS);
  g_assert_cmpfloat_with_epsilon (t.offset_x, -100, EPS);
  g_assert_cmpfloat_with_epsilon (t.offset_y, -50, EPS);

  /* Zoom out again around another point (300, 10): image point
   * ((300+100)/2, (10+50)/2) = (200, 30); new offset 300 − 200·0.5 = 200,
   * 10 − 30·0.5 = −5. */
  hs_canvas_transform_zoom_around (&t, 0.5, 300, 10);
  g_assert_cmpfloat_with_epsilon (t.offset_x, 200, EPS);
  g_assert_cmpfloat_with_epsilon (t.offset_y, -5, EPS);
  hs_canvas_transform_widget_to_image (&t, 300, 10, &ix, &iy);
  g_assert_cmpfloat_with_epsilon (ix, 200, EPS);
  g_assert_cmpfloat_with_epsilon (iy, 30, EPS);

  for (int i = 0; i < 100; i++)
    {
      HsCanvasTransform r = { g_test_rand_double_range (0.05, 20), g_test_rand_double_range (-500, 500),
                              g_test_rand_double_range (-500, 500) };
      double px = g_test_rand_double_range (0, 1600), py = g_test_rand_double_range (0, 1000);
      double bx, by, ax, ay;
      hs_canvas_transform_widget_to_image (&r, px, py, &bx, &by);
      hs_canvas_transform_zoom_around (&r, r.zoom * g_test_rand_double_range (0.5, 2), px, py);
      hs_canvas_transform_widget_to_image (&r, px, py, &ax, &ay);
      g_assert_cmpfloat_with_epsilon (ax, bx, 1e-6);
      g_assert_cmpfloat_with_epsilon (ay, by, 1e-6);
    }
}

static void
test_zoom_limits (void)
{
  HsCanvasTransform t = { 1.0, 0.0, 0.0 };

  hs_canvas_transform_zoom_around (&t, 1e6, 0, 0);
  g_assert_cmpfloat (t.zoom, ==, HS_CANVAS_ZOOM_MAX);
  hs_canvas_transform_zoom_around (&t, 1e-9, 0, 0);
  g_assert_cmpfloat (t.zoom, ==, HS_CANVAS_ZOOM_MIN);
  hs_canvas_transform_zoom_around (&t, NAN, 0, 0);
  g_assert_cmpfloat (t.zoom, ==, HS_CANVAS_ZOOM_MIN);
  hs_canvas_transform_zoom_around (&t, INFINITY, 0, 0);
  g_assert_cmpfloat (t.zoom, ==, HS_CANVAS_ZOOM_MIN);
}

static void
test_fit (void)
{
  HsCanvasTransform t = { 1.0, 0.0, 0.0 };

  /* 400 × 200 in 800 × 800: zoom min(2, 4) = 2, centred vertically
   * (800 − 400)/2 = 200. */
  hs_canvas_transform_fit (&t, 400, 200, 800, 800);
  g_assert_cmpfloat_with_epsilon (t.zoom, 2, EPS);
  g_assert_cmpfloat_with_epsilon (t.offset_x, 0, EPS);
  g_assert_cmpfloat_with_epsilon (t.offset_y, 200, EPS);

  /* 1000 × 500 in 500 × 500: zoom 0.5, offset (0, 125). */
  hs_canvas_transform_fit (&t, 1000, 500, 500, 500);
  g_assert_cmpfloat_with_epsilon (t.zoom, 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (t.offset_x, 0, EPS);
  g_assert_cmpfloat_with_epsilon (t.offset_y, 125, EPS);

  /* Degenerate sizes do not divide by zero. */
  hs_canvas_transform_fit (&t, 0, 500, 500, 500);
  g_assert_cmpfloat (t.zoom, ==, 1);
  hs_canvas_transform_fit (&t, 10, 10, 0, 0);
  g_assert_cmpfloat (t.zoom, ==, 1);
}

static void
test_one_to_one (void)
{
  HsCanvasTransform t = { 3.0, 7.0, 7.0 };

  /* 300 × 200 in 801 × 601: offsets floor(250.5) = 250, floor(200.5) = 200. */
  hs_canvas_transform_one_to_one (&t, 300, 200, 801, 601);
  g_assert_cmpfloat (t.zoom, ==, 1);
  g_assert_cmpfloat (t.offset_x, ==, 250);
  g_assert_cmpfloat (t.offset_y, ==, 200);
}

static void
test_visible_rect (void)
{
  HsCanvasTransform t = { 2.0, -100.0, -50.0 };
  int x, y, w, h;

  /* View 200 × 100 shows image x ∈ [50, 150), y ∈ [25, 75). */
  g_assert_true (hs_canvas_transform_visible_rect (&t, 400, 300, 200, 100, &x, &y, &w, &h));
  g_assert_cmpint (x, ==, 50);
  g_assert_cmpint (y, ==, 25);
  g_assert_cmpint (w, ==, 100);
  g_assert_cmpint (h, ==, 50);

  /* Fractional edges round outwards: offset −101 → x from 50.5 → 50 to
   * (200+101)/2 = 150.5 → 151. */
  t.offset_x = -101;
  g_assert_true (hs_canvas_transform_visible_rect (&t, 400, 300, 200, 100, &x, &y, &w, &h));
  g_assert_cmpint (x, ==, 50);
  g_assert_cmpint (w, ==, 101);

  /* A small image inside the view is clipped to itself. */
  t = (HsCanvasTransform) { 1.0, 100.0, 0.0 };
  g_assert_true (hs_canvas_transform_visible_rect (&t, 50, 50, 200, 100, &x, &y, &w, &h));
  g_assert_cmpint (x, ==, 0);
  g_assert_cmpint (y, ==, 0);
  g_assert_cmpint (w, ==, 50);
  g_assert_cmpint (h, ==, 50);

  /* Entirely off screen. */
  t.offset_x = 300;
  g_assert_false (hs_canvas_transform_visible_rect (&t, 50, 50, 200, 100, &x, &y, &w, &h));
  g_assert_cmpint (w, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/ui-canvas-transform/roundtrip", test_widget_image_roundtrip);
  g_test_add_func ("/hs/ui-canvas-transform/zoom-around-pointer", test_zoom_around_pointer);
  g_test_add_func ("/hs/ui-canvas-transform/zoom-limits", test_zoom_limits);
  g_test_add_func ("/hs/ui-canvas-transform/fit", test_fit);
  g_test_add_func ("/hs/ui-canvas-transform/one-to-one", test_one_to_one);
  g_test_add_func ("/hs/ui-canvas-transform/visible-rect", test_visible_rect);
  return g_test_run ();
}
