/* hs-canvas-fixture.h — tiny data and golden-image helpers for the canvas,
 * overlay, metrics-panel and export UI tests (header-only: every UI test is
 * built from its own .c plus hs-test-util.c). */
#pragma once

#include <math.h>
#include <string.h>

#include <gtk/gtk.h>
#include <heatscope/heatscope.h>
#include <heatscope/hs-npy.h>

#include "hs-test-util.h"
#include "hs-ui-display.h"
#include "hs-ui-wait.h"

/* Image W × H (8-bit grey): a horizontal ramp 0..254 plus a bright disc
 * centred at (W/4, H/2) of radius H/6 — distinct pixels at known places. */
#define FIX_W 128
#define FIX_H 96

static inline guint
fixture_grey (guint x, guint y)
{
  double dx = x + 0.5 - FIX_W / 4.0, dy = y + 0.5 - FIX_H / 2.0;

  if (dx * dx + dy * dy <= (FIX_H / 6.0) * (FIX_H / 6.0))
    return 250;
  return (x * 2) & 0xff;
}

/* The 4 × 4 map: cell (row 1, col 2) = 1, cell (row 3, col 0) = 0.5, the rest
 * 0.1·(row + col)/6 — max 1, min 0. */
static const double fixture_map[16] = {
  0.0,       0.1 / 6,   0.2 / 6,   0.3 / 6,
  0.1 / 6,   0.2 / 6,   1.0,       0.4 / 6,
  0.2 / 6,   0.3 / 6,   0.4 / 6,   0.5 / 6,
  0.5,       0.4 / 6,   0.5 / 6,   0.6 / 6,
};

typedef struct {
  char           *dir;
  HsImage        *image;
  HsImage        *mask;
  HsAttentionMap *map;
  GPtrArray      *regions;   /* HsRegion* owned */
  GPtrArray      *masks;     /* HsImage* or NULL, parallel to regions */
} Fixture;

static inline void
fixture_init (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImage) mask = NULL;
  g_autofree char *image_path = NULL;
  g_autofree char *mask_path = NULL;
  g_autofree char *map_path = NULL;
  gsize shape[2] = { 4, 4 };
  HsRegion *region;
  guint16 *data;

  memset (f, 0, sizeof *f);
  f->dir = hs_test_make_tmpdir ();

  image = hs_image_new (FIX_W, FIX_H, 1, 8, &error);
  g_assert_no_error (error);
  data = hs_image_get_data (image);
  for (guint y = 0; y < FIX_H; y++)
    for (guint x = 0; x < FIX_W; x++)
      data[y * FIX_W + x] = fixture_grey (x, y);
  image_path = g_build_filename (f->dir, "image.png", NULL);
  g_assert_true (hs_image_save_png (image, image_path, &error));
  g_assert_no_error (error);
  f->image = hs_image_load (image_path, &error);
  g_assert_no_error (error);

  /* Mask at half resolution: a rectangle [70, 60)–[110, 86) in image pixels. */
  mask = hs_image_new (FIX_W / 2, FIX_H / 2, 1, 8, &error);
  g_assert_no_error (error);
  data = hs_image_get_data (mask);
  for (guint y = 30; y < 43; y++)
    for (guint x = 35; x < 55; x++)
      data[y * (FIX_W / 2) + x] = 255;
  mask_path = g_build_filename (f->dir, "mask.png", NULL);
  g_assert_true (hs_image_save_png (mask, mask_path, &error));
  f->mask = hs_image_load (mask_path, &error);
  g_assert_no_error (error);

  map_path = g_build_filename (f->dir, "map.npy", NULL);
  g_assert_true (hs_npy_write (map_path, HS_DTYPE_FLOAT64, 2, shape, fixture_map, FALSE, FALSE, &error));
  g_assert_no_error (error);
  f->map = hs_attention_map_load_npy (map_path, NULL, 0.3, &error);
  g_assert_no_error (error);

  f->regions = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_region_free);
  f->masks = g_ptr_array_new ();
  region = hs_region_new ("right upper lung zone");
  hs_region_add_box (region, 8, 8, 40, 40);
  g_ptr_array_add (f->regions, region);
  g_ptr_array_add (f->masks, NULL);
  region = hs_region_new ("nodule");
  region->mask = g_strdup ("mask.png");
  g_ptr_array_add (f->regions, region);
  g_ptr_array_add (f->masks, f->mask);
}

static inline void
fixture_clear (Fixture *f)
{
  g_clear_pointer (&f->image, hs_image_unref);
  g_clear_pointer (&f->mask, hs_image_unref);
  g_clear_pointer (&f->map, hs_attention_map_unref);
  g_clear_pointer (&f->regions, g_ptr_array_unref);
  g_clear_pointer (&f->masks, g_ptr_array_unref);
  g_clear_pointer (&f->dir, g_free);
}

static inline gboolean
fixture_is_laid_out (gpointer child)
{
  return gtk_widget_get_mapped (child) && gtk_widget_get_width (child) > 1;
}

/* Presents `child` in a plain window of w × h and waits until it is drawn. */
static inline GtkWidget *
fixture_present (GtkWidget *child, int w, int h)
{
  GtkWidget *window = gtk_window_new ();

  /* Undecorated, so the child gets exactly w × h (no client-side titlebar). */
  gtk_window_set_decorated (GTK_WINDOW (window), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (window), w, h);
  gtk_window_set_child (GTK_WINDOW (window), child);
  gtk_window_present (GTK_WINDOW (window));
  hs_ui_wait_until (fixture_is_laid_out, child);
  return window;
}

/* Condition for hs_ui_wait_for: `*end` (monotonic µs) has passed and
 * nothing is pending. */
static inline gboolean
fixture_is_quiet_after (gpointer end)
{
  return g_get_monotonic_time () >= *(gint64 *) end && !g_main_context_pending (NULL);
}

/* Runs the main loop until nothing is pending, and at least `ms` so that
 * GTK's own short timers (layout, frame clock) due within that time fire:
 * the minimum is not a guess at how long work takes (what a test waits for
 * that runs in a worker, it waits for by condition, e.g. hs_canvas_get_busy).
 * A main loop still busy after HS_UI_HANG_SECONDS is a hang: the test fails
 * (it used to stop waiting silently after 2 s and carry on). */
static inline void
fixture_settle (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  hs_ui_wait_for (fixture_is_quiet_after, &end,
                  "the main loop is still busy after " G_STRINGIFY (HS_UI_HANG_SECONDS) " s (hung?)");
}

/* Pixel (x, y) of an ARGB32/RGB24 surface as 0..255 r, g, b. */
static inline void
fixture_pixel (cairo_surface_t *surface, int x, int y, int rgb[3])
{
  const guint8 *data = cairo_image_surface_get_data (surface);
  guint32 p = *(const guint32 *) (data + y * cairo_image_surface_get_stride (surface) + x * 4);

  rgb[0] = (p >> 16) & 0xff;
  rgb[1] = (p >> 8) & 0xff;
  rgb[2] = p & 0xff;
}

/* Mean absolute channel difference and the number of pixels differing by
 * more than 48 in some channel. */
static inline void
fixture_compare (cairo_surface_t *a, cairo_surface_t *b, double *mean, guint64 *bad)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  double sum = 0;

  g_assert_cmpint (cairo_image_surface_get_width (b), ==, w);
  g_assert_cmpint (cairo_image_surface_get_height (b), ==, h);
  cairo_surface_flush (a);
  cairo_surface_flush (b);
  *bad = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        int pa[3], pb[3], worst = 0;
        fixture_pixel (a, x, y, pa);
        fixture_pixel (b, x, y, pb);
        for (int c = 0; c < 3; c++)
          {
            int d = ABS (pa[c] - pb[c]);
            sum += d;
            worst = MAX (worst, d);
          }
        *bad += worst > 48;
      }
  *mean = sum / (3.0 * w * h);
}

/* What the widget's own snapshot renders (the on-screen path), as an
 * ARGB32 surface. */
static inline cairo_surface_t *
fixture_snapshot_widget (GtkWidget *widget)
{
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  GskRenderNode *node;
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  GdkTexture *texture;
  cairo_surface_t *surface;

  node = hs_ui_paint_node (widget);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  gdk_texture_download (texture, cairo_image_surface_get_data (surface),
                        cairo_image_surface_get_stride (surface));
  cairo_surface_mark_dirty (surface);
  g_object_unref (texture);
  gsk_render_node_unref (node);
  return surface;
}

/* Compares `surface` with tests/golden/<name>.png: fails when sizes differ,
 * when the mean absolute channel difference exceeds 2, or when more than
 * 1 % of the pixels differ by more than 48 in some channel (font hinting and
 * renderer rounding stay below that).  HS_UPDATE_GOLDEN=1 rewrites the
 * golden file instead (look at it before committing). The rendered image is
 * always written to $HS_BUILD_DIR/tests/<name>.png for inspection. */
static inline void
fixture_check_golden (cairo_surface_t *surface, const char *name)
{
  g_autofree char *file = g_strconcat (name, ".png", NULL);
  g_autofree char *golden = g_build_filename (hs_test_source_dir (), "tests", "golden", file, NULL);
  g_autofree char *out = g_build_filename (g_getenv ("HS_BUILD_DIR") ? g_getenv ("HS_BUILD_DIR") : ".",
                                           "tests", file, NULL);
  cairo_surface_t *ref;
  int w = cairo_image_surface_get_width (surface), h = cairo_image_surface_get_height (surface);
  double mean;
  guint64 bad;

  cairo_surface_flush (surface);
  cairo_surface_write_to_png (surface, out);
  if (g_strcmp0 (g_getenv ("HS_UPDATE_GOLDEN"), "1") == 0)
    {
      g_assert_cmpint (cairo_surface_write_to_png (surface, golden), ==, CAIRO_STATUS_SUCCESS);
      g_test_message ("golden %s rewritten", golden);
      return;
    }
  ref = cairo_image_surface_create_from_png (golden);
  if (cairo_surface_status (ref) != CAIRO_STATUS_SUCCESS)
    g_error ("cannot read golden image %s (run with HS_UPDATE_GOLDEN=1 to create it)", golden);
  fixture_compare (surface, ref, &mean, &bad);
  cairo_surface_destroy (ref);
  g_test_message ("%s: mean diff %.3f, %" G_GUINT64_FORMAT " pixels off", name, mean, bad);
  if (mean > 2.0 || bad > (guint64) (0.01 * w * h))
    g_error ("%s differs from its golden image (mean %.3f, %" G_GUINT64_FORMAT " pixels off); see %s",
             name, mean, bad, out);
}
