/* test-ui-export.c — "what is on screen" to PNG, SVG and PDF through hs-figure */
#include <math.h>

#include "hs-canvas.h"
#include "hs-canvas-fixture.h"

typedef struct {
  Fixture      f;
  HsViewState *state;
  GtkWidget   *window;
  HsCanvas    *canvas;
  char        *out;
} ExportTest;

static void
setup (ExportTest *t, gconstpointer data)
{
  fixture_init (&t->f);
  t->out = hs_test_make_tmpdir ();
  t->state = hs_view_state_new ();
  t->canvas = HS_CANVAS (hs_canvas_new ());
  g_object_ref_sink (t->canvas);
  hs_canvas_set_view_state (t->canvas, t->state);
  t->window = fixture_present (GTK_WIDGET (t->canvas), 400, 300);
}

static void
teardown (ExportTest *t, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (t->window));
  fixture_settle (20);
  hs_ui_assert_finalized (t->canvas);
  hs_ui_assert_finalized (t->state);
  fixture_clear (&t->f);
  g_free (t->out);
}

static void
show_fixture (ExportTest *t)
{
  hs_canvas_set_image (t->canvas, t->f.image);
  hs_canvas_set_map (t->canvas, t->f.map);
  hs_canvas_set_regions (t->canvas, t->f.regions, t->f.masks);
  hs_canvas_set_caption (t->canvas, "There is a nodule in the right upper lung zone.");
  fixture_settle (20);
}

static void
test_png (ExportTest *t, gconstpointer data)
{
  g_autofree char *path = g_build_filename (t->out, "view.png", NULL);
  g_autoptr(GError) error = NULL;
  cairo_surface_t *png;

  show_fixture (t);
  g_assert_true (hs_canvas_export (t->canvas, path, &error));
  g_assert_no_error (error);
  png = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  /* The image panel alone is 128·z × 96·z at the zoom z on screen (the
   * image fitted left of the colour bar); colour bar, gauge and caption
   * come on top of that. */
  {
    double z = hs_canvas_get_zoom (t->canvas);

    g_assert_cmpfloat (z, >, 2);
    g_assert_cmpint (cairo_image_surface_get_width (png), >, (int) floor (128 * z));
    g_assert_cmpint (cairo_image_surface_get_height (png), >, (int) floor (96 * z));
  }
  fixture_check_golden (png, "ui-export-fit");
  cairo_surface_destroy (png);

  /* Zoomed in: only the part in view is exported, at the same zoom. */
  g_object_set (t->state, "outline", "top-k", "colormap", "viridis", NULL);
  hs_canvas_zoom_to (t->canvas, 6, 210, 140);
  g_assert_true (hs_canvas_export (t->canvas, path, &error));
  g_assert_no_error (error);
  png = cairo_image_surface_create_from_png (path);
  fixture_check_golden (png, "ui-export-zoomed");
  cairo_surface_destroy (png);
}

static void
test_svg_pdf (ExportTest *t, gconstpointer data)
{
  g_autofree char *svg_path = g_build_filename (t->out, "view.svg", NULL);
  g_autofree char *pdf_path = g_build_filename (t->out, "VIEW.PDF", NULL);
  g_autofree char *svg = NULL;
  g_autofree char *pdf = NULL;
  g_autofree char *text = NULL;
  g_autofree char *pdftotext = g_find_program_in_path ("pdftotext");
  g_autoptr(GError) error = NULL;
  gsize len = 0;

  show_fixture (t);
  g_assert_true (hs_canvas_export (t->canvas, svg_path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg_path, &svg, &len, NULL));
  g_assert_nonnull (strstr (svg, "<svg"));
  /* Names and caption stay text (vector), not pixels. */
  g_assert_nonnull (strstr (svg, "right upper lung zone"));
  g_assert_nonnull (strstr (svg, "nodule"));
  g_assert_nonnull (strstr (svg, "No-Attn"));

  g_assert_true (hs_canvas_export (t->canvas, pdf_path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (pdf_path, &pdf, &len, NULL));
  g_assert_true (len > 5 && memcmp (pdf, "%PDF-", 5) == 0);
  if (pdftotext)
    {
      const char *argv[] = { pdftotext, pdf_path, "-", NULL };
      int status = 1;
      g_assert_true (hs_test_run (argv, &text, NULL, &status));
      g_assert_cmpint (status, ==, 0);
      g_assert_nonnull (strstr (text, "right upper lung zone"));
    }
}

static void
test_errors (ExportTest *t, gconstpointer data)
{
  g_autofree char *png = g_build_filename (t->out, "empty.png", NULL);
  g_autofree char *bmp = g_build_filename (t->out, "view.bmp", NULL);
  g_autofree char *missing = g_build_filename (t->out, "no", "such", "dir", "view.png", NULL);
  g_autoptr(GError) error = NULL;

  /* Nothing shown. */
  g_assert_false (hs_canvas_export (t->canvas, png, &error));
  g_assert_error (error, HS_CANVAS_ERROR, HS_CANVAS_ERROR_EMPTY);
  g_assert_nonnull (strstr (error->message, "empty.png"));
  g_clear_error (&error);
  g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));

  show_fixture (t);
  g_assert_false (hs_canvas_export (t->canvas, bmp, &error));
  g_assert_error (error, HS_CANVAS_ERROR, HS_CANVAS_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "view.bmp"));
  g_clear_error (&error);

  g_assert_false (hs_canvas_export (t->canvas, missing, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "view.png"));
  g_clear_error (&error);

  /* An image without a map exports the image alone. */
  hs_canvas_set_map (t->canvas, NULL);
  g_assert_true (hs_canvas_export (t->canvas, png, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  hs_ui_test_init (&argc, &argv);
#define ADD(path, func) hs_ui_test_add ("/hs/ui-export/" path, ExportTest, NULL, setup, func, teardown)
  ADD ("png", test_png);
  ADD ("svg-pdf", test_svg_pdf);
  ADD ("errors", test_errors);
  return g_test_run ();
}
