/* test-ui-canvas-dicom.c — a DICOM radiograph in HsCanvas: the file's own
 * window is the automatic one (MONOCHROME1 shown inverted), and the hover
 * read-out gives the pixel's grey value in the file's units and, with a
 * pixel spacing, its position in millimetres. */
#include "hs-canvas.h"
#include "hs-canvas-fixture.h"

#include <heatscope/hs-image.h>

#define VIEW_W 440
#define VIEW_H 440

static guint8
levelled_mono1 (double value, double center, double width)
{
  /* PS3.3 window (linear, here without the ±0.5 refinements) then MONOCHROME1 inversion */
  double g = CLAMP ((value - (center - width / 2)) * 255.0 / width, 0, 255);
  return (guint8) (255 - (guint) (g + 0.5));
}

static void
test_mono1_window_and_readout (void)
{
  g_autofree char *path = hs_test_shared_path ("dicom/CR-MONO1-10-chest.dcm");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  HsViewState *state;
  HsCanvas *canvas;
  GtkWidget *window;
  HsCanvasTransform t = { 1.0, 0, 0 };
  cairo_surface_t *s;
  int p[3];
  guint worst = 0;

  if (path == NULL)
    return;
  image = hs_image_load (path, &error);
  g_assert_no_error (error);
  state = hs_view_state_new ();
  canvas = HS_CANVAS (hs_canvas_new ());
  g_object_ref_sink (canvas);
  hs_canvas_set_view_state (canvas, state);
  hs_canvas_set_image (canvas, image);
  window = fixture_present (GTK_WIDGET (canvas), VIEW_W, VIEW_H);
  fixture_settle (50);
  while (hs_canvas_get_busy (canvas))
    g_main_context_iteration (NULL, TRUE);

  /* 1:1: widget pixel (x, y) shows image pixel (x, y) through the file's window 550/1024. */
  hs_canvas_set_transform (canvas, &t);
  s = hs_canvas_render_surface (canvas, 0, 0);
  for (guint y = 3; y < 440; y += 29)
    for (guint x = 5; x < 440; x += 31)
      {
        double v = hs_image_sample_to_value (image, hs_image_get_grey (image, x, y));
        guint8 expected = levelled_mono1 (v, 550, 1024);

        fixture_pixel (s, (int) x, (int) y, p);
        worst = MAX (worst, (guint) ABS (p[0] - (int) expected));
      }
  g_test_message ("largest difference from the file's window: %u", worst);
  g_assert_cmpuint (worst, <=, 1);
  cairo_surface_destroy (s);

  /* The read-out: raw value (no Rescale Type), no pixel spacing in this file. */
  hs_canvas_hover_at (canvas, 220.5, 100.5, NULL);
  {
    double v = hs_image_sample_to_value (image, hs_image_get_grey (image, 220, 100));
    g_autofree char *expected = g_strdup_printf ("x 220, y 100 · %.6g raw · no pixel spacing", v);
    g_assert_cmpstr (hs_canvas_get_hover_text (canvas), ==, expected);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  fixture_settle (20);
  hs_ui_assert_finalized (canvas);
  hs_ui_assert_finalized (state);
}

/* A CT slice: Hounsfield units and millimetres in the read-out. */
static void
test_ct_readout (void)
{
  g_autofree char *path = hs_test_shared_path ("dicom/pydicom-CT_small.dcm");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  HsCanvas *canvas;
  GtkWidget *window;
  HsCanvasTransform t = { 2.0, 0, 0 };

  if (path == NULL)
    return;
  image = hs_image_load (path, &error);
  g_assert_no_error (error);
  canvas = HS_CANVAS (hs_canvas_new ());
  g_object_ref_sink (canvas);
  hs_canvas_set_image (canvas, image);
  window = fixture_present (GTK_WIDGET (canvas), 256, 256);
  fixture_settle (50);
  hs_canvas_set_transform (canvas, &t);
  /* widget (1, 1) at zoom 2 → image pixel (0, 0): −849 HU (pydicom: 175 − 1024), spacing 0.661468 mm */
  hs_canvas_hover_at (canvas, 1, 1, NULL);
  g_assert_cmpstr (hs_canvas_get_hover_text (canvas), ==, "x 0, y 0 · -849 HU · 0.3, 0.3 mm");
  gtk_window_destroy (GTK_WINDOW (window));
  fixture_settle (20);
  hs_ui_assert_finalized (canvas);
}

int
main (int argc, char **argv)
{
  hs_ui_test_init (&argc, &argv);
  hs_ui_test_add_func ("/hs/ui-canvas-dicom/mono1-window-and-readout", test_mono1_window_and_readout);
  hs_ui_test_add_func ("/hs/ui-canvas-dicom/ct-readout", test_ct_readout);
  return g_test_run ();
}
