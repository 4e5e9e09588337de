/* test-ui-canvas.c — HsCanvas in a plain window: zoom actions, pixels,
 * hover read-out, window/level, per-token maps, golden snapshots */
#include "hs-canvas.h"
#include "hs-canvas-private.h"   /* decor_builds: what rebuilds the names' layer */
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
  /* Most tests check the image ↔ widget mapping at the plain fit (128 × 96
   * in 400 × 300: zoom 3.125), without the colour bar and the No-Attn gauge
 * beside it; the bar's own room is tested in
   * fit-and-zoom-actions and the golden tests, which show it. */
  if (data == NULL)
    {
      hs_canvas_set_show_color_bar (t->canvas, FALSE);
      g_object_set (t->state, "show-no-attn", FALSE, NULL);
    }
  t->window = fixture_present (GTK_WIDGET (t->canvas), VIEW_W, VIEW_H);
  fixture_settle (50);
}

static void
teardown (CanvasTest *t, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (t->window));
  fixture_settle (20);
  hs_ui_assert_finalized (t->canvas);
  hs_ui_assert_finalized (t->state);
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

  /* With the colour bar shown, the fit is to the room left of its panel
   * (4 px apart), so the bar hides no part of the map; hidden again, the
   * whole width. */
  {
    double hx, hy, hw, hh, room;

    g_assert_false (hs_canvas_get_color_bar_area (t->canvas, &hx, &hy, &hw, &hh));
    hs_canvas_set_show_color_bar (t->canvas, TRUE);
    g_assert_true (hs_canvas_get_color_bar_area (t->canvas, &hx, &hy, &hw, &hh));
    g_assert_cmpfloat (hx + hw, <=, VIEW_W);
    room = hx - 4;
    g_assert_cmpfloat (room, <, 400);
    g_assert_cmpfloat_with_epsilon (hs_canvas_get_zoom (t->canvas), MIN (room / 128, 300.0 / 96), 1e-9);
    hs_canvas_get_transform (t->canvas, &tr);
    g_assert_cmpfloat (tr.offset_x + 128 * tr.zoom, <=, hx + 1e-9);
    g_assert_cmpfloat_with_epsilon (tr.offset_x, (room - 128 * tr.zoom) / 2, 1e-9);
    hs_canvas_set_show_color_bar (t->canvas, FALSE);
    g_assert_cmpfloat_with_epsilon (hs_canvas_get_zoom (t->canvas), 3.125, 1e-9);
  }

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

  /* The hand-worked colours below are jet's, with no threshold (not the
   * app's first look, which test-ui-first-hour asserts). */
  g_object_set (t->state, "colormap", "jet", "threshold", 0.0, NULL);

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
  /* The cell says which number is the row and which the column. */
  g_assert_nonnull (strstr (text, "row 1, column 2"));

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

/* Issue 14: a map whose values span more than DBL_MAX used to hang the
 * colour-bar ticks and with them the window's first frame.  The canvas
 * draws its HUD (bar, ticks) for such maps. */
static void
test_huge_values (CanvasTest *t, gconstpointer data)
{
  const double spans[][2] = { { -1.7e308, 1.7e308 }, { 0, 1.7976931348623157e308 } };

  for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
    {
      double values[16];
      g_autoptr(GError) error = NULL;
      g_autoptr(HsAttentionMap) map = NULL;
      cairo_surface_t *s;

      for (guint k = 0; k < 16; k++)
        values[k] = spans[i][k % 2];
      map = hs_attention_map_new (0, 4, 4, values, &error);
      g_assert_no_error (error);
      hs_canvas_set_map (t->canvas, map);
      /* the whole view, HUD included, is drawn */
      s = hs_canvas_render_surface (t->canvas, 0, 0);
      g_assert_nonnull (s);
      g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
      cairo_surface_destroy (s);
    }
}

typedef struct {
  guint    ranges;            /* map-range-changed so far */
  guint    ranges_at_paint;   /* … when the first frame after the change was painted */
  gboolean painted;
} RangeWait;

static void
count_range (HsCanvas *canvas, RangeWait *w)
{
  w->ranges++;
}

static void
note_paint (GdkFrameClock *clock, RangeWait *w)
{
  if (!w->painted)
    w->ranges_at_paint = w->ranges;
  w->painted = TRUE;
}

static gboolean
always_busy (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Issue 26: the listeners of map-range-changed (the overlay panel's
 * threshold slider, the compare view's shared bar) hear of a new map
 * before the frame that shows it, so what they change lands in that frame
 * instead of a frame of its own — also while the main loop is busy with
 * work of lower priority than a redraw (a step's, a worker's result),
 * which a source always ready at priority 150 stands for: an idle at the
 * default priority (200) ran only after that frame, or not at all. */
static void
test_range_before_frame (CanvasTest *t, gconstpointer data)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (t->canvas));
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(GError) error = NULL;
  RangeWait w = { 0 };
  double values[16];
  gulong range_id, paint_id;
  guint busy;

  for (guint k = 0; k < 16; k++)
    values[k] = 2.0 * k;
  map = hs_attention_map_new (0, 4, 4, values, &error);
  g_assert_no_error (error);
  range_id = g_signal_connect (t->canvas, "map-range-changed", G_CALLBACK (count_range), &w);
  paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (note_paint), &w);
  busy = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE - 50, always_busy, NULL, NULL);
  hs_canvas_set_map (t->canvas, map);
  hs_ui_wait_until (hs_ui_wait_is_set, &w.painted);
  g_source_remove (busy);
  g_signal_handler_disconnect (clock, paint_id);
  g_signal_handler_disconnect (t->canvas, range_id);
  g_assert_cmpuint (w.ranges_at_paint, ==, 1);
  g_assert_cmpuint (w.ranges, ==, 1);
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


/* ---- a 6000 × 6000 16-bit image ----------------------------------------- */

#define BIG 6000

/* A ramp in both directions plus a one-pixel checkerboard of 20000: a
 * single sample and a block average differ by ~39 grey levels, so a view
 * that skips the averaging cannot pass. */
static guint16
big_value (guint x, guint y)
{
  return (guint16) (((x * 9 + y * 5 + (x * y) / 4096) & 0x7fff) + (((x ^ y) & 1) ? 20000 : 0));
}

static void
load_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;
  HsImage *image = hs_image_load (data, &error);

  if (image)
    g_task_return_pointer (task, image, (GDestroyNotify) hs_image_unref);
  else
    g_task_return_error (task, error);
}

static gboolean
count_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  (*(guint *) data)++;
  gtk_widget_queue_draw (widget);
  return G_SOURCE_CONTINUE;
}

/* Grey the canvas must show for raw value v with window [lo, hi]. */
static int
levelled (double v, double lo, double hi)
{
  double out = (v - lo) * 255.0 / (hi - lo);
  return out <= 0 ? 0 : out >= 255 ? 255 : (int) floor (out + 0.5);
}

static void
test_large_image (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) written = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(GTask) task = NULL;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "big.png", NULL);
  HsViewState *state = hs_view_state_new ();
  HsCanvas *canvas = HS_CANVAS (hs_canvas_new ());
  GtkWidget *window;
  HsCanvasTransform t;
  cairo_surface_t *s, *shot;
  guint16 *data;
  guint ticks = 0, ticks_decoding, ticks_busy = 0;
  gboolean busy;
  double mean;
  guint64 bad;
  guint tick_id;
  int p[3];

  /* Written with the library's PNG writer, never committed. */
  written = hs_image_new (BIG, BIG, 1, 16, &error);
  g_assert_no_error (error);
  data = hs_image_get_data (written);
  for (guint y = 0; y < BIG; y++)
    for (guint x = 0; x < BIG; x++)
      data[(gsize) y * BIG + x] = big_value (x, y);
  g_assert_true (hs_image_save_png (written, path, &error));
  g_assert_no_error (error);

  g_object_ref_sink (canvas);
  hs_canvas_set_view_state (canvas, state);
  window = fixture_present (GTK_WIDGET (canvas), VIEW_W, VIEW_H);
  tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (canvas), count_tick, &ticks, NULL);

  /* Decoding on a worker (as the window does): the canvas keeps painting
   * frames meanwhile. */
  task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, load_thread);
  while (!g_task_get_completed (task))
    g_main_context_iteration (NULL, TRUE);
  ticks_decoding = ticks;
  image = g_task_propagate_pointer (task, &error);
  g_assert_no_error (error);
  g_test_message ("frames painted while decoding: %u", ticks_decoding);
  g_assert_cmpuint (ticks_decoding, >=, 2);
  g_assert_cmpuint (hs_image_get_width (image), ==, BIG);
  g_assert_cmpuint (hs_image_get_max_value (image), ==, 65535);

  /* Shown at once, sampled from full resolution, while a worker builds the
   * reduced levels: frames keep coming. */
  hs_canvas_set_image (canvas, image);
  g_object_get (canvas, "busy", &busy, NULL);
  g_assert_true (busy);
  ticks = 0;
  while (hs_canvas_get_busy (canvas))
    g_main_context_iteration (NULL, TRUE);
  ticks_busy = ticks;
  g_test_message ("frames painted while the pyramid was built: %u", ticks_busy);
  g_assert_cmpuint (ticks_busy, >=, 1);
  gtk_widget_remove_tick_callback (GTK_WIDGET (canvas), tick_id);
  fixture_settle (30);

  /* 1:1 somewhere inside: widget (x, y) shows image (x + 1234, y + 2345),
   * the full 16-bit range mapped to 0..255. */
  t = (HsCanvasTransform) { 1.0, -1234, -2345 };
  hs_canvas_set_transform (canvas, &t);
  s = hs_canvas_render_surface (canvas, 0, 0);
  for (int y = 0; y < VIEW_H; y += 37)
    for (int x = 0; x < VIEW_W; x += 41)
      {
        fixture_pixel (s, x, y, p);
        g_assert_cmpint (p[0], ==, levelled (big_value (x + 1234, y + 2345), 0, 65535));
        g_assert_cmpint (p[1], ==, p[0]);
      }
  /* The screen (texture nodes) shows the same. */
  fixture_settle (30);
  shot = fixture_snapshot_widget (GTK_WIDGET (canvas));
  fixture_compare (shot, s, &mean, &bad);
  g_assert_cmpfloat (mean, <, 0.5);
  cairo_surface_destroy (shot);
  cairo_surface_destroy (s);

  /* Window/level re-levels what is visible: centre ¼, width 1/16 of the
   * range → [4096·3.5, 4096·4.5]. */
  hs_view_state_set_window_level (state, 0.25, 1.0 / 16);
  s = hs_canvas_render_surface (canvas, 0, 0);
  for (int y = 0; y < VIEW_H; y += 23)
    for (int x = 0; x < VIEW_W; x += 29)
      {
        double c = 0.25 * 65535, w = 65535.0 / 16;
        fixture_pixel (s, x, y, p);
        g_assert_cmpint (p[0], ==, levelled (big_value (x + 1234, y + 2345), c - w / 2, c + w / 2));
      }
  cairo_surface_destroy (s);
  hs_view_state_set_window_level (state, -1, -1);

  /* Zoom ¼: every widget pixel is the mean of its 4 × 4 image block (the
   * pyramid's level 2), within the rounding of two halvings. */
  t = (HsCanvasTransform) { 0.25, -300, -200 };
  hs_canvas_set_transform (canvas, &t);
  s = hs_canvas_render_surface (canvas, 0, 0);
  for (int y = 0; y < VIEW_H; y += 31)
    for (int x = 0; x < VIEW_W; x += 43)
      {
        guint ix = 4 * (x + 300), iy = 4 * (y + 200);
        double sum = 0;

        for (guint j = 0; j < 4; j++)
          for (guint i = 0; i < 4; i++)
            sum += big_value (ix + i, iy + j);
        fixture_pixel (s, x, y, p);
        g_assert_cmpint (ABS (p[0] - levelled (sum / 16, 0, 65535)), <=, 1);
      }
  cairo_surface_destroy (s);

  /* Fit (zoom 0.05): still the right place — the top-left widget pixel of
   * the image is near the mean of the image's top-left 20 × 20 block. */
  hs_canvas_zoom_fit (canvas);
  g_assert_cmpfloat_with_epsilon (hs_canvas_get_zoom (canvas), 300.0 / BIG, 1e-9);
  s = hs_canvas_render_surface (canvas, 0, 0);
  {
    double sum = 0;
    int x0 = (VIEW_W - 300) / 2;

    for (guint j = 0; j < 20; j++)
      for (guint i = 0; i < 20; i++)
        sum += big_value (i, j);
    fixture_pixel (s, x0, 0, p);
    g_assert_cmpint (ABS (p[0] - levelled (sum / 400, 0, 65535)), <=, 2);
    /* Left of the image: the background. */
    fixture_pixel (s, x0 - 2, 150, p);
    g_assert_cmpint (ABS (p[0] - 36), <=, 1);
  }
  cairo_surface_destroy (s);

  gtk_window_destroy (GTK_WINDOW (window));
  fixture_settle (20);
  hs_ui_assert_finalized (canvas);
  hs_ui_assert_finalized (state);
}

/* The region key (drawn over the view's bottom-right when the regions are
 * layers with colours) keeps the region names off it: a box just below the
 * key, whose name goes above its corner — into the key's panel — has it
 * moved above the panel.  The key's pixels are the same with the boxes and
 * their names shown and hidden (the box itself is outside the panel); with
 * the name under the panel they differed. */
static void
test_key_clear_of_labels (CanvasTest *t, gconstpointer data)
{
  g_autoptr(GPtrArray) regions = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_region_free);
  g_autoptr(GPtrArray) masks = g_ptr_array_new ();
  const double colors[8] = { 0.2, 0.9, 0.3, 1, 1.0, 0.4, 0.85, 1 };
  HsRegionKeyEntry entries[2] = { { "right upper lung zone", { 0.2, 0.9, 0.3, 1 }, TRUE, FALSE },
                                  { "corner finding", { 1.0, 0.4, 0.85, 1 }, TRUE, FALSE } };
  double kw, kh, kx, ky, x1;
  HsRegion *region;
  cairo_surface_t *shown, *hidden;
  guint n_label = 0;

  /* the key's panel as the canvas lays it out: 6 px padding, 8 px from the
   * view's right and bottom edges (hs-canvas-decor.c, HUD font 11) */
  hs_region_key_size (entries, 2, 11.0, &kw, &kh);
  kx = VIEW_W - kw - 2 * 6 - 8;
  ky = VIEW_H - kh - 2 * 6 - 8;
  g_assert_cmpfloat (kx, >, VIEW_W / 2.0);
  region = hs_region_new (entries[0].name);
  hs_region_add_box (region, 8, 8, 40, 40);
  g_ptr_array_add (regions, region);
  /* 2 px below the panel (zoom 3.125, no offset), 10 px in from its left */
  x1 = (kx + 10) / 3.125;
  region = hs_region_new (entries[1].name);
  hs_region_add_box (region, x1, (VIEW_H - 6) / 3.125, x1 + 6, 95.5);
  g_ptr_array_add (regions, region);
  g_ptr_array_add (masks, NULL);
  g_ptr_array_add (masks, NULL);
  hs_canvas_set_region_layers (t->canvas, regions, masks, colors, NULL);
  hs_view_state_set_opacity (t->state, 0);

  shown = hs_canvas_render_surface (t->canvas, 0, 0);
  g_object_set (t->state, "show-boxes", FALSE, NULL);
  hidden = hs_canvas_render_surface (t->canvas, 0, 0);
  if (g_getenv ("HS_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("HS_SCREENSHOT_DIR"), "ui-canvas-key-labels.png", NULL);

      g_assert_cmpint (cairo_surface_write_to_png (shown, path), ==, CAIRO_STATUS_SUCCESS);
    }
  for (int y = (int) floor (ky); y < (int) ceil (ky + kh + 12); y++)
    for (int x = (int) floor (kx); x < (int) ceil (kx + kw + 12); x++)
      {
        int a[3], b[3];

        fixture_pixel (shown, x, y, a);
        fixture_pixel (hidden, x, y, b);
        if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2])
          g_error ("a region name is drawn under the key at (%d, %d)", x, y);
      }
  /* the name is there, right above the panel */
  for (int y = (int) floor (ky) - 20; y < (int) floor (ky); y++)
    for (int x = (int) floor (kx); x < VIEW_W; x++)
      {
        int a[3], b[3];

        fixture_pixel (shown, x, y, a);
        fixture_pixel (hidden, x, y, b);
        n_label += a[0] != b[0] || a[1] != b[1] || a[2] != b[2];
      }
  g_assert_cmpuint (n_label, >, 50);
  cairo_surface_destroy (shown);
  cairo_surface_destroy (hidden);
}

static gboolean
rects_meet (const graphene_rect_t *a, double x, double y, double w, double h)
{
  return a->origin.x < x + w && x < a->origin.x + a->size.width && a->origin.y < y + h
         && y < a->origin.y + a->size.height;
}

/* The colour bar's panel (opaque, over the view's top-right) keeps the
 * region names off it as the key does: a box at the fitted image's right
 * edge, its corner level with the bar, has its name (which would reach into
 * the bar) moved just left of the bar — clear of the key too.  The names'
 * layer is recorded again when the bar's rectangle changes (hidden, shown),
 * not when only its contents do (strength steps that leave it in place). */
static void
test_bar_clear_of_labels (CanvasTest *t, gconstpointer data)
{
  g_autoptr(GPtrArray) regions = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_region_free);
  g_autoptr(GPtrArray) masks = g_ptr_array_new ();
  g_autoptr(GArray) areas = NULL;
  const double colors[8] = { 0.2, 0.9, 0.3, 1, 1.0, 0.4, 0.85, 1 };
  const char *name = "right upper lung zone";
  double hx, hy, hw, hh, kx, ky, kw, kh, right, lw, lh, x1, y1, nx, ny;
  const double strengths[] = { 1.0, 1.25, 1.5, 2.0, 2.5 };
  guint builds, unmoved = 0;
  HsCanvasTransform tr;
  HsRegion *region;

  g_assert_true (hs_canvas_get_color_bar_area (t->canvas, &hx, &hy, &hw, &hh));
  hs_canvas_get_transform (t->canvas, &tr);
  right = tr.offset_x + 128 * tr.zoom;
  g_assert_cmpfloat (right, <=, hx);
  /* the corner 40 px in from the image's right edge, 60 px below the bar's top */
  x1 = right - 40;
  y1 = hy + 60;
  region = hs_region_new ("corner finding");
  hs_region_add_box (region, 8, 8, 30, 30);
  g_ptr_array_add (regions, region);
  region = hs_region_new (name);
  hs_region_add_box (region, (x1 - tr.offset_x) / tr.zoom, (y1 - tr.offset_y) / tr.zoom, 126, 95);
  g_ptr_array_add (regions, region);
  g_ptr_array_add (masks, NULL);
  g_ptr_array_add (masks, NULL);
  hs_canvas_set_region_layers (t->canvas, regions, masks, colors, NULL);
  g_assert_true (hs_canvas_get_region_key_area (t->canvas, &kx, &ky, &kw, &kh));

  /* where the name would go by itself: above the corner, into the bar */
  hs_region_label_size (name, 11.0, &lw, &lh);
  hs_region_label_place (round (x1), round (y1), lw, lh, 1.5, 0, 0, VIEW_W, VIEW_H, &nx, &ny);
  {
    graphene_rect_t natural = GRAPHENE_RECT_INIT (nx, ny, lw, lh);

    g_assert_true (rects_meet (&natural, hx, hy, hw, hh));
  }

  areas = hs_canvas_dup_region_label_areas (t->canvas);
  g_assert_cmpuint (areas->len, ==, 2);
  for (guint i = 0; i < areas->len; i++)
    {
      const graphene_rect_t *r = &g_array_index (areas, graphene_rect_t, i);

      g_assert_false (rects_meet (r, hx, hy, hw, hh));
      g_assert_false (rects_meet (r, kx, ky, kw, kh));
    }
  {
    const graphene_rect_t *r = &g_array_index (areas, graphene_rect_t, 1);

    /* beside its box: just left of the bar, at the height it had */
    g_assert_cmpfloat (r->origin.x + r->size.width, ==, hx);
    g_assert_cmpfloat (r->origin.y, ==, ny);
  }
  if (g_getenv ("HS_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("HS_SCREENSHOT_DIR"), "ui-canvas-bar-labels.png", NULL);
      cairo_surface_t *shown = fixture_snapshot_widget (GTK_WIDGET (t->canvas));

      g_assert_cmpint (cairo_surface_write_to_png (shown, path), ==, CAIRO_STATUS_SUCCESS);
      cairo_surface_destroy (shown);
    }

  /* strength steps: the layer is recorded again only when the bar moved */
  cairo_surface_destroy (fixture_snapshot_widget (GTK_WIDGET (t->canvas)));
  builds = t->canvas->decor_builds;
  for (guint i = 0; i < G_N_ELEMENTS (strengths); i++)
    {
      double x, y, w, h;
      gboolean moved;

      g_object_set (t->state, "strength", strengths[i], NULL);
      g_assert_true (hs_canvas_get_color_bar_area (t->canvas, &x, &y, &w, &h));
      moved = x != hx || y != hy || w != hw || h != hh;
      unmoved += !moved;
      cairo_surface_destroy (fixture_snapshot_widget (GTK_WIDGET (t->canvas)));
      g_assert_cmpuint (t->canvas->decor_builds, ==, builds + moved);
      builds = t->canvas->decor_builds;
      hx = x, hy = y, hw = w, hh = h;
    }
  g_assert_cmpuint (unmoved, >, 0);
  /* the bar hidden: drawn again, the name back above its corner */
  hs_canvas_set_show_color_bar (t->canvas, FALSE);
  cairo_surface_destroy (fixture_snapshot_widget (GTK_WIDGET (t->canvas)));
  g_assert_cmpuint (t->canvas->decor_builds, >, builds);
}

int
main (int argc, char **argv)
{
  hs_ui_test_init (&argc, &argv);
#define ADD(path, func) hs_ui_test_add ("/hs/ui-canvas/" path, CanvasTest, NULL, setup, func, teardown)
  ADD ("fit-and-zoom-actions", test_fit_and_zoom_actions);
  ADD ("pixels", test_pixels);
  ADD ("hover", test_hover);
  ADD ("window-level", test_window_level);
  ADD ("tokens", test_tokens);
  ADD ("huge-values", test_huge_values);
  ADD ("range-before-frame", test_range_before_frame);
  ADD ("key-clear-of-labels", test_key_clear_of_labels);
  hs_ui_test_add ("/hs/ui-canvas/golden", CanvasTest, "bar", setup, test_golden, teardown);
  hs_ui_test_add ("/hs/ui-canvas/bar-clear-of-labels", CanvasTest, "bar", setup, test_bar_clear_of_labels, teardown);
  hs_ui_test_add_func ("/hs/ui-canvas/large-image", test_large_image);
  return g_test_run ();
}
