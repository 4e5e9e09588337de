/* hs-ui-fixture.h — shared by the UI tests (header-only: tests/meson.build
 * compiles one test file plus hs-test-util.c per program).
 *
 * A small hand-made dataset with known content, helpers to run the main loop
 * until a condition holds, and golden-PNG comparison of rendered widgets. */
#pragma once

#include <gtk/gtk.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <heatscope/heatscope.h>

#include "hs-test-util.h"
#include "hs-ui-display.h"
#include "hs-ui-wait.h"
#include "hs-window.h"

/* Before anything reads settings: the schemas of the build tree, in memory,
 * nothing remembered between runs; English messages and C numbers
 * (hs_ui_use_english).  Also for the UI tests that start GTK their own way
 * (the renderer, idle and backend-option tests). */
G_GNUC_UNUSED static void
hs_ui_use_build_settings (void)
{
  const char *build = g_getenv ("HS_BUILD_DIR");

  hs_ui_use_english ();

  if (build != NULL)
    {
      g_autofree char *schemas = g_build_filename (build, "data", NULL);
      g_setenv ("GSETTINGS_SCHEMA_DIR", schemas, TRUE);
    }
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
}

/* Before gtk: the build tree's settings in memory; a fixed theme and font
 * so golden images are reproducible. */
G_GNUC_UNUSED static void
hs_ui_init (int *argc, char ***argv)
{
  hs_ui_use_build_settings ();
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("GDK_BACKEND", "x11", FALSE);
  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_setenv ("GTK_THEME", "Adwaita", TRUE);
  g_test_init (argc, argv, NULL);
  hs_ui_have_display = gtk_init_check ();
  if (hs_ui_have_display)
    g_object_set (gtk_settings_get_default (),
                  "gtk-font-name", "DejaVu Sans 10",
                  "gtk-enable-animations", FALSE,
                  "gtk-cursor-blink", FALSE,
                  NULL);
}

G_GNUC_UNUSED static gboolean
hs_ui_skip_without_display (void)
{
  if (!hs_ui_have_display)
    {
      g_test_skip (HS_UI_NO_DISPLAY);
      return TRUE;
    }
  return FALSE;
}

/* Conditions for hs_ui_wait_until. */
G_GNUC_UNUSED static gboolean
hs_ui_is_mapped (gpointer widget)
{
  return gtk_widget_get_mapped (widget);
}

/* The window's dataset, instance and image are loaded (decoding runs in threads). */
G_GNUC_UNUSED static gboolean
hs_ui_window_not_loading (gpointer window)
{
  return !hs_window_get_loading (window);
}

/* ... and no live map is being computed either. */
G_GNUC_UNUSED static gboolean
hs_ui_window_live_done (gpointer window)
{
  return !hs_window_get_live_busy (window) && !hs_window_get_loading (window);
}

G_GNUC_UNUSED static gboolean
hs_ui_true_after_n (gpointer data)
{
  int *n = data;
  return --(*n) <= 0;
}

/* Lets pending layout, idle and frame work run. */
G_GNUC_UNUSED static void
hs_ui_settle (void)
{
  int n = 0;

  for (int round = 0; round < 2; round++)
    {
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
      n = 20;
      hs_ui_wait_until (hs_ui_true_after_n, &n);
    }
}

/* ---- the main window ---------------------------------------------------- */

/* A presented, mapped 1280 × 800 main window without an application. */
G_GNUC_UNUSED static HsWindow *
hs_ui_new_window (void)
{
  HsWindow *window = hs_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  hs_ui_wait_until (hs_ui_is_mapped, window);
  return window;
}

/* Opens `path` (a dataset folder, manifest or image) and waits until it is
 * loaded and laid out. */
G_GNUC_UNUSED static void
hs_ui_open_path (HsWindow *window, const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_ui_settle ();
}

/* Condition for hs_ui_wait_until: the instance browser has no filtering or
 * scan running. */
G_GNUC_UNUSED static gboolean
hs_ui_browser_idle (gpointer browser)
{
  return !hs_instance_browser_get_busy (browser);
}

/* The window's last reference is ours, so finalizing proves nothing leaks it
 * (hs_ui_assert_finalized runs the main loop for as long as that takes). */
G_GNUC_UNUSED static void
hs_ui_destroy_window (HsWindow *window)
{
  g_object_ref (window);
  gtk_window_destroy (GTK_WINDOW (window));
  hs_ui_assert_finalized (window);
}

/* Every key of the application's settings back to its default. */
G_GNUC_UNUSED static void
hs_ui_reset_settings (void)
{
  g_autoptr(GSettings) settings = hs_settings_new ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_auto(GStrv) keys = NULL;

  g_assert_nonnull (settings);
  g_object_get (settings, "settings-schema", &schema, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    g_settings_reset (settings, keys[i]);
}

/* The first descendant of `root` (itself included) of `type`, or NULL. */
G_GNUC_UNUSED static GtkWidget *
hs_ui_find_widget (GtkWidget *root, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = hs_ui_find_widget (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* ---- the hand-made dataset --------------------------------------------- */

#define HS_UI_IMAGE_SIZE 320
#define HS_UI_GRID 16

G_GNUC_UNUSED static void
hs_ui_write_image (const char *path, guint seed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_new (HS_UI_IMAGE_SIZE, HS_UI_IMAGE_SIZE, 1, 8, &error);
  guint16 *data;

  g_assert_no_error (error);
  data = hs_image_get_data (image);
  for (guint y = 0; y < HS_UI_IMAGE_SIZE; y++)
    for (guint x = 0; x < HS_UI_IMAGE_SIZE; x++)
      {
        double v = 30;
        double rl = pow ((x - 105.0) / 55.0, 2) + pow ((y - 165.0) / 110.0, 2);
        double ll = pow ((x - 215.0) / 55.0, 2) + pow ((y - 165.0) / 110.0, 2);
        guint hash = (x * 73856093u) ^ (y * 19349663u) ^ (seed * 83492791u);
        if (rl < 1 || ll < 1)
          v += 120;
        v += (double) (hash % 13) - 6.0;
        data[y * HS_UI_IMAGE_SIZE + x] = (guint16) CLAMP (v, 0, 255);
      }
  g_assert_true (hs_image_save_png (image, path, &error));
  g_assert_no_error (error);
}

/* A Gaussian blob on the 16 × 16 grid, normalised to sum 1. */
G_GNUC_UNUSED static void
hs_ui_gauss (double *out, double cx, double cy, double sigma)
{
  double sum = 0;

  for (guint r = 0; r < HS_UI_GRID; r++)
    for (guint c = 0; c < HS_UI_GRID; c++)
      {
        double dx = c + 0.5 - cx, dy = r + 0.5 - cy;
        out[r * HS_UI_GRID + c] = exp (-(dx * dx + dy * dy) / (2 * sigma * sigma));
        sum += out[r * HS_UI_GRID + c];
      }
  for (guint i = 0; i < HS_UI_GRID * HS_UI_GRID; i++)
    out[i] /= sum;
}

G_GNUC_UNUSED static void
hs_ui_write_map (const char *root, const char *name, guint n_tokens, const double *blobs)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (root, "maps", name, NULL);
  guint n = MAX (n_tokens, 1);
  g_autofree double *values = g_new (double, n * HS_UI_GRID * HS_UI_GRID);
  gsize shape3[3] = { n, HS_UI_GRID, HS_UI_GRID };
  gsize shape2[2] = { HS_UI_GRID, HS_UI_GRID };

  for (guint t = 0; t < n; t++)
    hs_ui_gauss (values + t * HS_UI_GRID * HS_UI_GRID, blobs[3 * t], blobs[3 * t + 1], blobs[3 * t + 2]);
  if (n_tokens > 0)
    g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT32, 3, shape3, values, FALSE, FALSE, &error));
  else
    g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT32, 2, shape2, values, FALSE, FALSE, &error));
  g_assert_no_error (error);
}

#define HS_UI_S0 "There is a nodule in the right lung."
#define HS_UI_S0_SWAPPED "There is a nodule in the left lung."
#define HS_UI_S1 "The left lung is clear."

/* Four instances hand-00..hand-03, each with
 *   s0 = HS_UI_S0 (targets "right lung", positive nodule), s1 = HS_UI_S1
 *   (no targets, negative);
 *   maps: grounded/s0 (blob on the image's left = patient's right),
 *   grounded/prompt HS_UI_S0_SWAPPED (blob on the right), grounded/s1,
 *   tokens/s1 (5 per-token maps, no_attn 0.2), blind/s0;
 * and "broken-image" whose image and map files are missing.  The instances are
 * marked "phantom": stand-ins for demo data, whose built-in models' maps
 * carry no "phantom-trained model on a real image" note. */
G_GNUC_UNUSED static char *
hs_ui_make_dataset (void)
{
  char *root = hs_test_make_tmpdir ();
  g_autofree char *images = g_build_filename (root, "images", NULL);
  g_autofree char *maps = g_build_filename (root, "maps", NULL);
  g_autofree char *manifest = g_build_filename (root, "heatscope.json", NULL);
  g_autoptr(GString) json = g_string_new ("{\"format\": \"heatscope-dataset\", \"version\": 1, "
                                          "\"name\": \"Hand-made demo\", \"instances\": [\n");
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (images, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (maps, 0755), ==, 0);

  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *id = g_strdup_printf ("hand-%02u", i);
      g_autofree char *image = g_strdup_printf ("%s/%s.png", images, id);
      char *name;
      const double s0[] = { 5, 8, 2.5 }, swapped[] = { 11, 8, 2.5 }, s1[] = { 11, 6, 4 },
                   blind[] = { 8, 8, 5 },
                   tokens[] = { 8, 8, 6,  11, 7, 2,  10, 8, 3,  8, 8, 6,  9, 9, 4 };

      hs_ui_write_image (image, i);
      name = g_strdup_printf ("%s-s0.npy", id);        hs_ui_write_map (root, name, 0, s0);        g_free (name);
      name = g_strdup_printf ("%s-s0-swap.npy", id);   hs_ui_write_map (root, name, 0, swapped);   g_free (name);
      name = g_strdup_printf ("%s-s1.npy", id);        hs_ui_write_map (root, name, 0, s1);        g_free (name);
      name = g_strdup_printf ("%s-s1-tok.npy", id);    hs_ui_write_map (root, name, 5, tokens);    g_free (name);
      name = g_strdup_printf ("%s-s0-blind.npy", id);  hs_ui_write_map (root, name, 0, blind);     g_free (name);

      g_string_append_printf (json,
        "{\"id\": \"%s\", \"image\": \"images/%s.png\", \"phantom\": true, \"metadata\": {\"view\": \"PA\"},\n"
        " \"findings\": [{\"condition\": \"nodule\", \"context\": \"positive\", \"locations\": [\"right lung\"]}],\n"
        " \"regions\": {\"right lung\": {\"boxes\": [[50, 55, 160, 275]]}, \"left lung\": {\"boxes\": [[160, 55, 270, 275]]}},\n"
        " \"sentences\": [\n"
        "  {\"id\": \"s0\", \"text\": \"" HS_UI_S0 "\", \"targets\": [\"right lung\"],\n"
        "   \"labels\": [{\"condition\": \"nodule\", \"context\": \"positive\", \"locations\": [\"right lung\"]}]},\n"
        "  {\"id\": \"s1\", \"text\": \"" HS_UI_S1 "\", \"targets\": [],\n"
        "   \"labels\": [{\"condition\": \"nodule\", \"context\": \"negative\", \"locations\": [\"left lung\"]}]}],\n"
        " \"maps\": [\n"
        "  {\"model\": \"grounded\", \"query\": \"s0\", \"file\": \"maps/%s-s0.npy\"},\n"
        "  {\"model\": \"grounded\", \"prompt\": \"" HS_UI_S0_SWAPPED "\", \"file\": \"maps/%s-s0-swap.npy\"},\n"
        "  {\"model\": \"grounded\", \"query\": \"s1\", \"file\": \"maps/%s-s1.npy\"},\n"
        "  {\"model\": \"tokens\", \"query\": \"s1\", \"file\": \"maps/%s-s1-tok.npy\",\n"
        "   \"tokens\": [\"the\", \"left\", \"lung\", \"is\", \"clear\"], \"no_attn\": 0.2},\n"
        "  {\"model\": \"blind\", \"query\": \"s0\", \"file\": \"maps/%s-s0-blind.npy\"}]},\n",
        id, id, id, id, id, id, id);
    }
  g_string_append (json,
    "{\"id\": \"broken-image\", \"image\": \"images/missing.png\", \"phantom\": true,\n"
    " \"sentences\": [{\"id\": \"s0\", \"text\": \"Missing image.\"}],\n"
    " \"maps\": [{\"model\": \"grounded\", \"query\": \"s0\", \"file\": \"maps/missing.npy\"}]}\n"
    "]}\n");
  g_file_set_contents (manifest, json->str, -1, &error);
  g_assert_no_error (error);
  return root;
}

/* ---- rendering and golden images --------------------------------------- */

/* Renders `widget` as it is on screen (it must be realized and laid out). */
G_GNUC_UNUSED static GdkTexture *
hs_ui_render (GtkWidget *widget)
{
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  GskRenderNode *node;
  GdkTexture *texture;

  g_assert_nonnull (renderer);
  g_assert_cmpint (width, >, 0);
  g_assert_cmpint (height, >, 0);
  node = hs_ui_paint_node (widget);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gsk_render_node_unref (node);
  return texture;
}

G_GNUC_UNUSED static guchar *
hs_ui_download (GdkTexture *texture)
{
  int w = gdk_texture_get_width (texture), h = gdk_texture_get_height (texture);
  guchar *data = g_malloc ((gsize) w * h * 4);

  gdk_texture_download (texture, data, (gsize) w * 4);
  return data;
}

/* Fraction of pixels whose channels differ by more than 32 (of 255). */
G_GNUC_UNUSED static double
hs_ui_texture_difference (GdkTexture *a, GdkTexture *b)
{
  int w = gdk_texture_get_width (a), h = gdk_texture_get_height (a);
  g_autofree guchar *pa = NULL;
  g_autofree guchar *pb = NULL;
  gsize differing = 0;

  if (w != gdk_texture_get_width (b) || h != gdk_texture_get_height (b))
    return 1.0;
  pa = hs_ui_download (a);
  pb = hs_ui_download (b);
  for (gsize i = 0; i < (gsize) w * h; i++)
    {
      int d = 0;
      for (int c = 0; c < 4; c++)
        d = MAX (d, abs ((int) pa[4 * i + c] - (int) pb[4 * i + c]));
      if (d > 32)
        differing++;
    }
  return (double) differing / ((double) w * h);
}

/* A copy of `texture` (a rendering of `root`) with the areas of `masked`
 * (NULL-terminated) painted mid-grey: parts drawn by other units (the
 * canvas, the overlay controls) are compared by their own tests, so the
 * golden image of a container does not change when they do. */
G_GNUC_UNUSED static GdkTexture *
hs_ui_mask_widgets (GdkTexture *texture, GtkWidget *root, GtkWidget **masked)
{
  int w = gdk_texture_get_width (texture), h = gdk_texture_get_height (texture);
  guchar *data = hs_ui_download (texture);
  g_autoptr(GBytes) bytes = NULL;

  for (guint i = 0; masked != NULL && masked[i] != NULL; i++)
    {
      graphene_rect_t r;

      if (!gtk_widget_compute_bounds (masked[i], root, &r))
        continue;
      for (int y = MAX (0, (int) r.origin.y); y < MIN (h, (int) ceil (r.origin.y + r.size.height)); y++)
        for (int x = MAX (0, (int) r.origin.x); x < MIN (w, (int) ceil (r.origin.x + r.size.width)); x++)
          {
            guchar *p = data + ((gsize) y * w + x) * 4;
            p[0] = p[1] = p[2] = 128;
            p[3] = 255;
          }
    }
  bytes = g_bytes_new_take (data, (gsize) w * h * 4);
  return gdk_memory_texture_new (w, h, GDK_MEMORY_DEFAULT, bytes, (gsize) w * 4);
}

/* HS_SCREENSHOT_DIR=DIR saves `widget` (a whole window, canvases included)
 * as DIR/NAME.png: for looking at the view, not for comparing. */
G_GNUC_UNUSED static void
hs_ui_save_screenshot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("HS_SCREENSHOT_DIR");
  g_autofree char *file = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  if (dir == NULL)
    return;
  texture = hs_ui_render (widget);
  file = g_strdup_printf ("%s.png", name);
  path = g_build_filename (dir, file, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot %s", path);
}

/* Compares with tests/golden/<name>.png: at most `tolerance` (a fraction)
 * of the pixels may differ (fonts and antialiasing vary slightly between
 * machines).  HS_UPDATE_GOLDEN=1 rewrites the golden file; a missing golden
 * file is written and the test is skipped (review and commit it).  On a
 * mismatch the actual image is saved beside the test for inspection. */
G_GNUC_UNUSED static void
hs_ui_assert_golden (GdkTexture *texture, const char *name, double tolerance)
{
  g_autofree char *file = g_strdup_printf ("%s.png", name);
  g_autofree char *golden = g_build_filename (hs_test_source_dir (), "tests", "golden", file, NULL);
  g_autoptr(GdkTexture) expected = NULL;
  g_autoptr(GError) error = NULL;
  double diff;

  if (g_getenv ("HS_UPDATE_GOLDEN") != NULL || !g_file_test (golden, G_FILE_TEST_EXISTS))
    {
      g_assert_true (gdk_texture_save_to_png (texture, golden));
      g_test_message ("wrote golden image %s", golden);
      if (g_getenv ("HS_UPDATE_GOLDEN") == NULL)
        g_test_skip ("golden image was missing; written now");
      return;
    }

  expected = gdk_texture_new_from_filename (golden, &error);
  g_assert_no_error (error);
  diff = hs_ui_texture_difference (texture, expected);
  if (diff > tolerance)
    {
      g_autofree char *actual = g_strdup_printf ("%s/%s-actual.png",
                                                 g_getenv ("HS_BUILD_DIR") ? g_getenv ("HS_BUILD_DIR") : ".",
                                                 name);
      gdk_texture_save_to_png (texture, actual);
      g_test_message ("%s differs from %s in %.2f %% of pixels (actual saved as %s)",
                      name, golden, diff * 100, actual);
    }
  g_assert_cmpfloat (diff, <=, tolerance);
}

/* The app's export `app` against `heatscope-cli figure DATASET --spec SPEC
 * -o CLI`: fails unless the two files are byte for byte the same (`what`
 * names the case in the message).  Returns the app's bytes, NUL-terminated. */
G_GNUC_UNUSED static char *
hs_ui_assert_same_as_cli_figure (const char *dataset_root, const char *spec,
                                 const char *app, const char *cli, const char *what)
{
  const char *args[] = { dataset_root, "--spec", spec, "-o", cli, NULL };
  g_autofree char *out = NULL, *err = NULL, *b = NULL;
  char *a = NULL;
  gsize na = 0, nb = 0;

  if (hs_test_run_cli ("figure", args, &out, &err) != 0)
    g_error ("heatscope-cli figure failed: %s", err);
  g_assert_true (g_file_get_contents (app, &a, &na, NULL));
  g_assert_true (g_file_get_contents (cli, &b, &nb, NULL));
  if (na != nb || memcmp (a, b, na) != 0)
    g_error ("%s: the app's export (%" G_GSIZE_FORMAT " bytes) and heatscope-cli figure's "
             "(%" G_GSIZE_FORMAT ") differ: %s, %s", what, na, nb, app, cli);
  return a;
}
