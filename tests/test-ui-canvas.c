/* test-ui-canvas.c — HsCanvas in a plain window: zoom actions, pixels,
 * hover read-out, window/level, per-token maps, golden snapshots */
#include "hs-canvas.h"
#include "hs-canvas-fixture.h"

#define VIEW_W 400
#define VIEW_H 300

typedef struct {
  Fixture      f;
  HsViewState *state;
  GtkWidget   *window;
  HsCanvas    *canvas;
} CanvasTest;

static void
setup (CanvasTest *t, gconstpointer data)
{
  fixture_init (&t->f);
  t->state = hs_view_state_new ();
  t->canvas = HS_CANVAS (hs_canvas_new ());
  g_object_ref_sink (t->canvas);
  hs_canvas_set_view_state (t->canvas, t->state);
  hs_canvas_set_image (t->canvas, t->f.image);
  hs_canvas_set_map (t->canvas, t->f.map);
  hs_canvas_set_regions (t->canvas, t->f.regions, t->f.masks);
  t->window = fixture_present (GTK_WIDGET (t->canvas), VIEW_W, VIEW_H);
  fixture_settle (50);
}

static void
teardown (CanvasTest *t, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (t->window));
  fixture_settle (20);
  g_assert_finalize_object (t->canvas);
  g_assert_finalize_object (t->state);
  fixture_clear (&t->f);
}

/* Value of the fixture map at image pixel (x, y), bilinear with half-pixel
 * centres (metrics.md), written out independently of hs_resample. */
static double
bilinear_at (guint x, guint y)
{
  double sx = CLAMP ((x + 0.5) * 4 / FIX_W - 0.5, 0, 3);
  double sy = CLAMP ((y + 0.5) * 4 / FIX_H - 0.5, 0, 3);
  int x0 = (int) floor (sx), y0 = (int) floor (sy);
  int x1 = MIN (x0 + 1, 3), y1 = MIN (y0 + 1, 3);
  double fx = sx - x0, fy = sy - y0;
  const double *m = fixture_map;

  return (m[y0 * 4 + x0] * (1 - fx) + m[y0 * 4 + x1] * fx) * (1 - fy) +
         (m[y1 * 4 + x0] * (1 - fx) + m[y1 * 4 + x1] * fx) * fy;
}

static void
test_fit_and_zoom_actions (CanvasTest *t, gconstpointer data)
{
  GtkWidget *w = GTK_WIDGET (t->canvas);
  HsCanvasTransform tr;
  double ix, iy;

  g_assert_cmpint (gtk_widget_get_width (w), ==, VIEW_W);
  g_assert_cmpint (gtk_widget_get_height (w), ==, VIEW_H);
  /* 128 × 96 in 400 × 300: zoom 3.125 exactly, no offset. */
  g_assert_cmpfloat_with_epsilon (hs_canvas_get_zoom (t->canvas), 3.125, 1e-9);
  hs_canvas_get_transform (t->canvas, &tr);
  g_assert_cmpfloat_with_epsilon (tr.offset_x, 0, 1e-9);
  g_assert_cmpfloat_with_epsilon (tr.offset_y, 0, 1e-9);

  g_assert_true (gtk_widget_activate_action (w, "canvas.zoom-in", NULL));
  g_assert_cmpfloat_with_epsilon (hs_canvas_get_zoom (t->canvas), 3.125 * 1.25, 1e-9);
  /* Zoomed around the view centre: (200, 150) still shows image (64, 48). */
  g_assert_true (hs_canvas_widget_to_image (t->canvas, 200, 150, &ix, &iy));
  g_assert_cmpfloat_with_epsilon (ix, 64, 1e-6);
  g_assert_cmpfloat_with_epsilon (iy, 48, 1e-6);

  g_assert_true (gtk_widget_activate_action (w, "canvas.zoom-out", NULL));
  g_assert_true (gtk_widget_activate_action (w, "canvas.zoom-out", NULL));
  g_assert_cmpfloat_with_epsilon (hs_canvas_get_zoom (t->canvas), 3.125 / 1.25, 1e-9);
  /* Smaller than the view: centred. */
  hs_canvas_get_transform (t->canvas, &tr);
  g_assert_cmpfloat_with_epsilon (tr.offset_x, (VIEW_W - 128 * 2.5) / 2, 1e-9);

  g_assert_true (gtk_widget_activate_action (w, "canvas.zoom-1", NULL));
  g_assert_cmpfloat (hs_canvas_get_zoom (t->canvas), ==, 1);
  hs_canvas_get_transform (t->canvas, &tr);
  g_assert_cmpfloat (tr.offset_x, ==, (VIEW_W - 128) / 2);
  g_assert_cmpfloat (tr.offset_y, ==, (VIEW_H - 96) / 2);

  g_assert_true (gtk_widget_activate_action (w, "canvas.zoom-fit", NULL));
  g_assert_cmpfloat_with_epsilon (hs_canvas_get_zoom (t->canvas), 3.125, 1e-9);

  /* Zoom around a point off-centre keeps that image point under it. */
  hs_canvas_zoom_to (t->canvas, 8, 100, 60);
  g_assert_true (hs_canvas_widget_to_image (t->canvas, 100, 60, &ix, &iy));
  g_assert_cmpfloat_with_epsilon (ix, 32, 1e-6);
  g_assert_cmpfloat_with_epsilon (iy, 19.2, 1e-6);
  {
    gboolean fit = TRUE;
    g_object_get (t->canvas, "fit", &fit, NULL);
    g_assert_false (fit);
  }
}

static void
test_pixels (CanvasTest *t, gconstpointer data)
{
  const guint8 *jet = hs_colormap_get_lut (HS_COLORMAP_JET);
  cairo_surface_t *s;
  int p[3];

  /* Opacity 0: the image alone.  Widget (150, 250) → image (48, 80): grey 96. */
  hs_view_state_set_opacity (t->state, 0);
  s = hs_canvas_render_surface (t->canvas, 0, 0);
  fixture_pixel (s, 150, 250, p);
  g_assert_cmpint (ABS (p[0] - 96), <=, 1);
  g_assert_cmpint (ABS (p[1] - 96), <=, 1);
  /* The disc centre (32, 48) → widget (100, 150): 250. */
  fixture_pixel (s, 100, 150, p);
  g_assert_cmpint (ABS (p[0] - 250), <=, 1);
  /* Left edge of the box [8, 40) → widget x 25: drawn in the first region
   * colour (0.2, 0.9, 0.3). */
  fixture_pixel (s, 25, 75, p);
  g_assert_cmpint (p[1], >, 200);
  g_assert_cmpint (p[0], <, 100);
  cairo_surface_destroy (s);

  /* Opacity 1, nearest: inside the max cell (row 1, col 2) → jet's top colour. */
  g_object_set (t->state, "upsample", "nearest", "opacity", 1.0, NULL);
  s = hs_canvas_render_surface (t->canvas, 0, 0);
  fixture_pixel (s, 210, 140, p);
  for (int c = 0; c < 3; c++)
    g_assert_cmpint (ABS (p[c] - jet[255 * 3 + c]), <=, 1);
  cairo_surface_destroy (s);

  /* Opacity 0.5 over grey 96 at widget (150, 250): image (48, 80) lies in
   * cell (3, 1) = 0.4/6 → LUT index round(255·0.4/6) = 17. */
  hs_view_state_set_opacity (t->state, 0.5);
  s = hs_canvas_render_surface (t->canvas, 0, 0);
  fixture_pixel (s, 150, 250, p);
  for (int c = 0; c < 3; c++)
    g_assert_cmpint (ABS (p[c] - (int) round (0.5 * 96 + 0.5 * jet[17 * 3 + c])), <=, 2);
  cairo_surface_destroy (s);

  /* Threshold 0.2: that cell (scaled 0.067, below 0.2 − band 0.05) fades out fully. */
  g_object_set (t->state, "threshold", 0.2, NULL);
  s = hs_canvas_render_surface (t->canvas, 0, 0);
  fixture_pixel (s, 150, 250, p);
  g_assert_cmpint (ABS (p[0] - 96), <=, 1);
  g_assert_cmpint (ABS (p[2] - 96), <=, 1);
  cairo_surface_destroy (s);

  /* Overlay hidden → image alone even at opacity 1. */
  g_object_set (t->state, "threshold", 0.0, "opacity", 1.0, "show-overlay", FALSE, NULL);
  s = hs_canvas_render_surface (t->canvas, 0, 0);
  fixture_pixel (s, 210, 140, p);
  g_assert_cmpint (ABS (p[0] - (int) fixture_grey (67, 44)), <=, 1);
  cairo_surface_destroy (s);
}

static void
on_notify (GObject *object, GParamSpec *pspec, int *count)
{
  (*count)++;
}

static void
test_hover (CanvasTest *t, gconstpointer data)
{
  HsCanvasHover hover;
  int notified = 0;
  g_autofree char *text = NULL;

  g_signal_connect (t->canvas, "notify::hover-text", G_CALLBACK (on_notify), &notified);

  /* Widget (210, 140) → image (67.2, 44.8): pixel (67, 44); nearest cell
   * col floor(67.5·4/128) = 2, row floor(44.5·4/96) = 1. */
  hs_canvas_hover_at (t->canvas, 210, 140, &hover);
  g_assert_true (hover.valid);
  g_assert_cmpfloat_with_epsilon (hover.x, 67.2, 1e-9);
  g_assert_cmpfloat_with_epsilon (hover.y, 44.8, 1e-9);
  g_assert_cmpint (hover.col, ==, 2);
  g_assert_cmpint (hover.row, ==, 1);
  g_assert_cmpfloat_with_epsilon (hover.value, bilinear_at (67, 44), 1e-6);
  g_assert_cmpint (notified, ==, 1);
  g_object_get (t->canvas, "hover-text", &text, NULL);
  g_assert_nonnull (strstr (text, "x 67, y 44"));
  g_assert_nonnull (strstr (text, "1, 2"));

  g_object_set (t->state, "upsample", "nearest", NULL);
  hs_canvas_hover_at (t->canvas, 210, 140, &hover);
  g_assert_cmpfloat_with_epsilon (hover.value, 1.0, 1e-6);

  /* Outside the image after zooming out. */
  hs_canvas_zoom_to (t->canvas, 1, 200, 150);
  hs_canvas_hover_at (t->canvas, 5, 5, &hover);
  g_assert_false (hover.valid);
  g_assert_null (hs_canvas_get_hover_text (t->canvas));

  /* Without a map: coordinates only. */
  hs_canvas_set_map (t->canvas, NULL);
  hs_canvas_hover_at (t->canvas, 200, 150, &hover);
  g_assert_true (hover.valid);
  g_assert_cmpint (hover.row, ==, -1);
  g_assert_true (isnan (hover.value));
  g_assert_cmpstr (hs_canvas_get_hover_text (t->canvas), ==, "x 64, y 48");
}

static void
test_window_level (CanvasTest *t, gconstpointer data)
{
  cairo_surface_t *s;
  int p[3];

  hs_view_state_set_opacity (t->state, 0);
  /* Window [0, 127.5] (centre ¼, width ½ of 255): grey 96 → 96/127.5·255 = 192. */
  hs_view_state_set_window_level (t->state, 0.25, 0.5);
  s = hs_canvas_render_surface (t->canvas, 0, 0);
  fixture_pixel (s, 150, 250, p);
  g_assert_cmpint (ABS (p[0] - 192), <=, 2);
  /* The disc (250) saturates. */
  fixture_pixel (s, 100, 150, p);
  g_assert_cmpint (p[0], ==, 255);
  cairo_surface_destroy (s);

  /* Reset: automatic full range again. */
  hs_view_state_set_window_level (t->state, -1, -1);
  s = hs_canvas_render_surface (t->canvas, 0, 0);
  fixture_pixel (s, 150, 250, p);
  g_assert_cmpint (ABS (p[0] - 96), <=, 1);
  cairo_surface_destroy (s);
}

static void
test_tokens (CanvasTest *t, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  double values[2 * 2 * 2] = { 0, 1, 2, 3,   10, 20, 30, 40 };
  HsCanvasHover hover;

  map = hs_attention_map_new (2, 2, 2, values, &error);
  g_assert_no_error (error);
  hs_canvas_set_map (t->canvas, map);
  g_object_set (t->state, "upsample", "nearest", NULL);

  /* Sentence map = mean over tokens: cell (0, 0) = (0 + 10)/2 = 5. */
  hs_canvas_hover_at (t->canvas, 10, 10, &hover);
  g_assert_cmpfloat_with_epsilon (hover.value, 5, 1e-6);
  hs_canvas_set_token (t->canvas, 1);
  hs_canvas_hover_at (t->canvas, 10, 10, &hover);
  g_assert_cmpfloat_with_epsilon (hover.value, 10, 1e-6);
  /* Bottom-right cell of token 0 = 3. */
  hs_canvas_set_token (t->canvas, 0);
  hs_canvas_hover_at (t->canvas, 390, 290, &hover);
  g_assert_cmpfloat_with_epsilon (hover.value, 3, 1e-6);
  /* Out of range → the sentence map. */
  hs_canvas_set_token (t->canvas, 7);
  hs_canvas_hover_at (t->canvas, 390, 290, &hover);
  g_assert_cmpfloat_with_epsilon (hover.value, 21.5, 1e-6);
}

static void
test_golden (CanvasTest *t, gconstpointer data)
{
  cairo_surface_t *s, *shot;
  double mean;
  guint64 bad;

  hs_canvas_set_caption (t->canvas, "There is a nodule in the right upper lung zone.");
  s = hs_canvas_render_surface (t->canvas, 0, 0);
  fixture_check_golden (s, "ui-canvas-basic");

  /* The on-screen snapshot (cached render nodes, opacity node) matches the
   * offscreen rendering used by tests. */
  fixture_settle (30);
  shot = fixture_snapshot_widget (GTK_WIDGET (t->canvas));
  fixture_compare (shot, s, &mean, &bad);
  g_test_message ("snapshot vs render: mean %.3f, %" G_GUINT64_FORMAT " off", mean, bad);
  g_assert_cmpfloat (mean, <, 2.0);
  g_assert_cmpuint (bad, <, VIEW_W * VIEW_H / 100);
  cairo_surface_destroy (shot);
  cairo_surface_destroy (s);

  /* Zoomed in around the max cell, Otsu outline, turbo, γ 0.5, hover shown. */
  g_object_set (t->state, "colormap", "turbo", "strength", 0.5, "outline", "otsu",
                "opacity", 0.6, NULL);
  hs_canvas_zoom_to (t->canvas, 6, 210, 140);
  hs_canvas_hover_at (t->canvas, 220, 150, NULL);
  s = hs_canvas_render_surface (t->canvas, 0, 0);
  fixture_check_golden (s, "ui-canvas-zoomed");
  fixture_settle (30);
  shot = fixture_snapshot_widget (GTK_WIDGET (t->canvas));
  fixture_compare (shot, s, &mean, &bad);
  g_assert_cmpfloat (mean, <, 2.0);
  cairo_surface_destroy (shot);
  cairo_surface_destroy (s);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
#define ADD(path, func) g_test_add ("/hs/ui-canvas/" path, CanvasTest, NULL, setup, func, teardown)
  ADD ("fit-and-zoom-actions", test_fit_and_zoom_actions);
  ADD ("pixels", test_pixels);
  ADD ("hover", test_hover);
  ADD ("window-level", test_window_level);
  ADD ("tokens", test_tokens);
  ADD ("golden", test_golden);
  return g_test_run ();
}
