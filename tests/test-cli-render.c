/* test-cli-render.c — heatscope-cli render DATASET ... -o OUT.{png,svg,pdf} */
#include <heatscope/heatscope.h>

#include <math.h>
#include <string.h>

#include "hs-test-util.h"

/* A 120 × 80 image (grey 100 of 255), a 2 × 1 map [0, 1] for sentence s0 by
 * model "grounded" with no_attn 0.2, a box region and a 12 × 8 mask region. */
static char *
make_dataset (void)
{
  char *dir = hs_test_make_tmpdir ();
  g_autofree char *image_path = g_build_filename (dir, "img.png", NULL);
  g_autofree char *mask_path = g_build_filename (dir, "mask.png", NULL);
  g_autofree char *map_path = g_build_filename (dir, "map.npy", NULL);
  g_autoptr(HsImage) image = hs_image_new (120, 80, 1, 8, NULL);
  g_autoptr(HsImage) mask = hs_image_new (12, 8, 1, 8, NULL);
  g_autoptr(GError) error = NULL;
  const gsize shape[] = { 1, 2 };
  const double values[] = { 0, 1 };
  guint16 *px;

  px = hs_image_get_data (image);
  for (guint i = 0; i < 120 * 80; i++)
    px[i] = 100;
  px = hs_image_get_data (mask);
  memset (px, 0, 12 * 8 * sizeof (guint16));
  px[4 * 12 + 8] = px[4 * 12 + 9] = 255;
  g_assert_true (hs_image_save_png (image, image_path, &error));
  g_assert_true (hs_image_save_png (mask, mask_path, &error));
  g_assert_true (hs_npy_write (map_path, HS_DTYPE_FLOAT32, 2, shape, values, FALSE, FALSE, &error));
  g_assert_no_error (error);
  hs_test_write_file (dir, "heatscope.json",
              "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
              " {\"id\": \"p0001\", \"image\": \"img.png\","
              "  \"regions\": {\"right lung\": {\"boxes\": [[70, 10, 110, 60]]},"
              "               \"nodule\": {\"mask\": \"mask.png\"}},"
              "  \"sentences\": [{\"id\": \"s0\", \"text\": \"There is a nodule in the left lung.\","
              "                  \"targets\": [\"right lung\", \"nodule\"]},"
              "                {\"id\": \"s1\", \"text\": \"No effusion.\"}],"
              "  \"maps\": [{\"model\": \"grounded\", \"query\": \"s0\", \"file\": \"map.npy\","
              "             \"no_attn\": 0.2}]}]}");
  return dir;
}

static void
test_png (void)
{
  g_autofree char *dir = make_dataset ();
  g_autofree char *out_path = g_build_filename (dir, "fig.png", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { dir, "--instance", "p0001", "--query", "s0", "--model", "grounded",
                         "--colormap", "jet", "--opacity", "1", "--upsample", "nearest",
                         "--size", "240", "-o", out_path, NULL };
  cairo_surface_t *png;
  guint32 *row;
  int w, h, status;
  gboolean found_low = FALSE, found_high = FALSE;

  status = hs_test_run_cli ("render", args, &out, &err);
  /* (sanitizer builds may add their own report to stderr) */
  g_assert_null (strstr (err, "heatscope-cli"));
  g_assert_cmpint (status, ==, 0);
  png = cairo_image_surface_create_from_png (out_path);
  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  w = cairo_image_surface_get_width (png);
  h = cairo_image_surface_get_height (png);
  /* panel 240 × 160 (size 240 on the 120 × 80 image) plus bar, gauge, caption */
  g_assert_cmpint (w, >, 240 + 40);
  g_assert_cmpint (h, >, 160 + 20);
  /* at opacity 1 the overlay covers the image: jet(0) = (0, 0, 128) on the
   * left half, jet(1) = (128, 0, 0) on the right half somewhere */
  cairo_surface_flush (png);
  for (int y = 0; y < h; y++)
    {
      row = (guint32 *) (void *) (cairo_image_surface_get_data (png) + y * cairo_image_surface_get_stride (png));
      for (int x = 0; x < w; x++)
        {
          found_low |= (row[x] & 0xffffff) == 0x000080;
          found_high |= (row[x] & 0xffffff) == 0x800000;
        }
    }
  g_assert_true (found_low);
  g_assert_true (found_high);
  cairo_surface_destroy (png);
}

static void
test_svg_and_pdf (void)
{
  g_autofree char *dir = make_dataset ();
  g_autofree char *svg_path = g_build_filename (dir, "fig.svg", NULL);
  g_autofree char *pdf_path = g_build_filename (dir, "fig.pdf", NULL);
  g_autofree char *svg = NULL, *pdf = NULL;
  gsize len;

  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "p0001", "--query", "s0", "--scale", "fixed:0:2",
                           "--log-strength", "10", "--threshold", "0.3", "--outline", "otsu",
                           "--window", "100:50", "-o", svg_path, NULL };
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 0);
  }
  g_assert_true (g_file_get_contents (svg_path, &svg, NULL, NULL));
  g_assert_nonnull (strstr (svg, ">right lung</text>"));
  g_assert_nonnull (strstr (svg, ">fixed 0 to 2 · log b=10</text>"));   /* scale mode on the bar */
  g_assert_nonnull (strstr (svg, ">0.2</text>"));              /* No-Attn value */
  g_assert_nonnull (strstr (svg, "There is a nodule in the left lung."));
  g_assert_nonnull (strstr (svg, "<path d=\"M"));              /* mask contour, Otsu outline */
  g_assert_nonnull (strstr (svg, "stroke-dasharray"));

  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "p0001", "--query", "s0", "--scale",
                           "percentile:1:99", "--gamma", "0.5", "--outline", "topk:10",
                           "-o", pdf_path, NULL };
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 0);
  }
  g_assert_true (g_file_get_contents (pdf_path, &pdf, &len, NULL));
  g_assert_true (len > 4 && memcmp (pdf, "%PDF", 4) == 0);
  if (g_file_test ("/usr/bin/pdftotext", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *argv[] = { "/usr/bin/pdftotext", pdf_path, "-", NULL };
      int status = -1;

      hs_test_run (argv, &out, &err, &status);
      g_assert_cmpint (status, ==, 0);
      g_assert_nonnull (strstr (out, "nodule in the left lung"));
      g_assert_nonnull (strstr (out, "percentile 1 to 99 % · γ 0.5"));
      g_assert_nonnull (strstr (out, "p0001"));
    }
  else
    g_test_message ("pdftotext (poppler-utils) absent: PDF text not checked");
}

/* A per-token map [2, 1, 2]: token 0 "left" = [1, 0], token 1 "lung" = [0, 1]. */
static void
test_token (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *image_path = g_build_filename (dir, "img.png", NULL);
  g_autofree char *map_path = g_build_filename (dir, "tok.npy", NULL);
  g_autofree char *svg_path = g_build_filename (dir, "fig.svg", NULL);
  g_autofree char *png_path = g_build_filename (dir, "fig.png", NULL);
  g_autoptr(HsImage) image = hs_image_new (40, 20, 1, 8, NULL);
  const gsize shape[] = { 2, 1, 2 };
  const double values[] = { 1, 0, 0, 1 };
  g_autofree char *svg = NULL;
  cairo_surface_t *png;

  g_assert_true (hs_image_save_png (image, image_path, NULL));
  g_assert_true (hs_npy_write (map_path, HS_DTYPE_FLOAT64, 3, shape, values, FALSE, FALSE, NULL));
  hs_test_write_file (dir, "heatscope.json",
              "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
              " {\"id\": \"t\", \"image\": \"img.png\","
              "  \"sentences\": [{\"id\": \"s0\", \"text\": \"left lung\"}],"
              "  \"maps\": [{\"model\": \"tok\", \"query\": \"s0\", \"file\": \"tok.npy\","
              "             \"tokens\": [\"left\", \"lung\"]}]}]}");
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "t", "--query", "s0", "--token", "1", "-o", svg_path, NULL };
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 0);
  }
  g_assert_true (g_file_get_contents (svg_path, &svg, NULL, NULL));
  g_assert_nonnull (strstr (svg, "token 1 “lung”"));
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "t", "--query", "s0", "--token", "1", "--opacity", "1",
                           "--upsample", "nearest", "--size", "40", "--no-caption", "-o", png_path, NULL };
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 0);
  }
  /* token 1 is high on the right: the image panel's right half is jet(1) */
  png = cairo_image_surface_create_from_png (png_path);
  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  {
    HsFigureView v;
    double px, py;

    hs_figure_view_init (&v);
    v.image = image;
    v.max_size = 40;
    g_assert_true (hs_figure_get_panel (&v, &px, &py, NULL, NULL, NULL, NULL));
    cairo_surface_flush (png);
    {
      guint32 *row = (guint32 *) (void *) (cairo_image_surface_get_data (png)
                                           + (int) (py + 10) * cairo_image_surface_get_stride (png));
      g_assert_cmphex (row[(int) px + 30] & 0xffffff, ==, 0x800000);
      g_assert_cmphex (row[(int) px + 10] & 0xffffff, ==, 0x000080);
    }
  }
  cairo_surface_destroy (png);
}

/* Issue 14: maps that validate but whose value span overflows a double
 * (±1.7e308, [0, DBL_MAX]) and a fixed scale with a huge upper bound used
 * to hang render in the colour-bar ticks; they render now.  (The test
 * harness's timeout only guards against a regression hanging the suite.) */
static void
test_huge_values (void)
{
  const double spans[][2] = { { -1.7e308, 1.7e308 }, { 0, 1.7976931348623157e308 } };

  for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
    {
      g_autofree char *dir = make_dataset ();
      g_autofree char *map_path = g_build_filename (dir, "map.npy", NULL);
      g_autofree char *out_path = g_build_filename (dir, "fig.svg", NULL);
      g_autofree char *out = NULL, *err = NULL, *svg = NULL;
      g_autoptr(GError) error = NULL;
      const gsize shape[] = { 1, 2 };
      const char *validate[] = { dir, NULL };
      const char *args[] = { dir, "--instance", "p0001", "--query", "s0", "--model", "grounded",
                             "-o", out_path, NULL };

      g_assert_true (hs_npy_write (map_path, HS_DTYPE_FLOAT64, 2, shape, spans[i], FALSE, FALSE,
                                   &error));
      g_assert_no_error (error);
      g_assert_cmpint (hs_test_run_cli ("validate", validate, &out, &err), ==, 0);
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 0);
      g_assert_true (g_file_get_contents (out_path, &svg, NULL, NULL));
      /* the upper end labelled in scientific notation */
      g_assert_nonnull (strstr (svg, i == 0 ? ">1.7e+308</text>" : ">1.8e+308</text>"));
    }
  {
    g_autofree char *dir = make_dataset ();
    g_autofree char *out_path = g_build_filename (dir, "fig.png", NULL);
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "p0001", "--query", "s0", "--model", "grounded",
                           "--scale", "fixed:0:1.7e308", "-o", out_path, NULL };

    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 0);
    g_assert_true (g_file_test (out_path, G_FILE_TEST_IS_REGULAR));
  }
}

static void
test_usage_errors (void)
{
  g_autofree char *dir = make_dataset ();
  g_autofree char *png = g_build_filename (dir, "x.png", NULL);
  static const char *bad[][16] = {
    { NULL },                                                             /* no DATASET */
    { "D", "--query", "s0", "-o", "P", NULL },                            /* no --instance */
    { "D", "--instance", "p0001", "--query", "s0", "-o", "x.gif", NULL },
    { "D", "--instance", "p0001", "--query", "s0", "--colormap", "rainbow", "-o", "P", NULL },
    { "D", "--instance", "p0001", "--query", "s0", "--opacity", "2", "-o", "P", NULL },
    { "D", "--instance", "p0001", "--query", "s0", "--scale", "fixed:1:0", "-o", "P", NULL },
    { "D", "--instance", "p0001", "--query", "s0", "--gamma", "2", "--log-strength", "10", "-o", "P", NULL },
    { "D", "--instance", "p0001", "--query", "s0", "--log-strength", "1", "-o", "P", NULL },
    { "D", "--instance", "p0001", "--query", "s0", "--outline", "topk:0", "-o", "P", NULL },
    { "D", "--instance", "p0001", "--query", "s0", "--window", "100", "-o", "P", NULL },
    { "D", "--instance", "p0001", "--query", "s0", "--upsample", "cubic", "-o", "P", NULL },
    { "D", "--instance", "p0001", "--query", "s0", "--bogus", "-o", "P", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *args[16];
      g_autofree char *out = NULL, *err = NULL;
      guint n = 0;

      for (; bad[i][n]; n++)
        args[n] = g_str_equal (bad[i][n], "D") ? dir : g_str_equal (bad[i][n], "P") ? png : bad[i][n];
      args[n] = NULL;
      g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 2);
      g_assert_true (g_str_has_prefix (err, "heatscope-cli render: "));
    }
  g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
}

static void
test_input_errors (void)
{
  g_autofree char *dir = make_dataset ();
  g_autofree char *png = g_build_filename (dir, "x.png", NULL);
  g_autofree char *missing = g_build_filename (dir, "nope", NULL);
  g_autofree char *map_path = g_build_filename (dir, "map.npy", NULL);

  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "p9", "--query", "s0", "-o", png, NULL };
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "p9"));
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "p0001", "--query", "s1", "-o", png, NULL };
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "no map"));
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "p0001", "--query", "s0", "--model", "blind", "-o", png, NULL };
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "blind"));
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { missing, "--instance", "p0001", "--query", "s0", "-o", png, NULL };
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "nope"));
  }
  /* the map has no per-token maps */
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "p0001", "--query", "s0", "--token", "0", "-o", png, NULL };
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "map.npy"));
    g_assert_nonnull (strstr (err, "token 0"));
  }
  /* a target box reaching outside the 120 × 80 image, and one with no pixel
   * centre inside: errors here as in validate, score and metrics
   * (hs_box_check), not boxes drawn off the image or scored as nothing */
  {
    static const char *const boxes[][2] = {
      { "[[70, 10, 130, 60]]", "region \"right lung\": box [70, 10, 130, 60] reaches outside the 120 × 80 image" },
      { "[[70.6, 10, 70.9, 60]]", "region \"right lung\": box [70.6, 10, 70.9, 60] has no pixel of the 120 × 80 image inside" },
    };
    g_autofree char *manifest = g_build_filename (dir, "heatscope.json", NULL);
    g_autofree char *good = NULL;

    g_assert_true (g_file_get_contents (manifest, &good, NULL, NULL));
    for (guint i = 0; i < G_N_ELEMENTS (boxes); i++)
      {
        g_autofree char *out = NULL, *err = NULL;
        g_autofree char *bad = hs_test_replace (good, "[[70, 10, 110, 60]]", boxes[i][0]);
        g_autofree char *want = g_strdup_printf ("%s: instance 'p0001': %s", manifest, boxes[i][1]);
        const char *args[] = { dir, "--instance", "p0001", "--query", "s0", "-o", png, NULL };

        g_assert_true (g_file_set_contents (manifest, bad, -1, NULL));
        g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 1);
        if (strstr (err, want) == NULL)
          g_error ("stderr: %s\nwanted: %s", err, want);
        g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
      }
    g_assert_true (g_file_set_contents (manifest, good, -1, NULL));
  }
  /* a map holding NaN is refused, naming the file */
  {
    const gsize shape[] = { 1, 2 };
    const double values[] = { 0, NAN };
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { dir, "--instance", "p0001", "--query", "s0", "-o", png, NULL };

    g_assert_true (hs_npy_write (map_path, HS_DTYPE_FLOAT64, 2, shape, values, FALSE, FALSE, NULL));
    g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "map.npy"));
  }
  g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
}

/* A real radiograph (a DICOM or the COVID-19 X-ray set, copied into a
 * temporary dataset) with the built-in grounded model's map as computed by
 * `heatscope-cli attend`: render labels it "phantom-trained model on a real
 * image" in SVG and PDF, with and without the caption; the same image marked
 * as a phantom ("phantom": true) carries no such label; figure panels too. */
static void
write_real_dataset (const char *dir, gboolean phantom)
{
  g_autofree char *manifest = g_strdup_printf (
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
    " {\"id\": \"real-1\", \"image\": \"xray.dcm\",%s"
    "  \"sentences\": [{\"id\": \"s0\", \"text\": \"Opacity in the left lower lung.\"}],"
    "  \"maps\": [{\"model\": \"grounded\", \"query\": \"s0\", \"file\": \"grounded.npy\"},"
    "           {\"model\": \"my-model\", \"query\": \"s0\", \"file\": \"grounded.npy\"}]}]}",
    phantom ? " \"phantom\": true," : "");

  hs_test_write_file (dir, "heatscope.json", manifest);
}

static char *
pdf_text (const char *pdf_path)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *argv[] = { "/usr/bin/pdftotext", pdf_path, "-", NULL };
  int status = -1;

  if (!g_file_test (argv[0], G_FILE_TEST_IS_EXECUTABLE))
    return NULL;
  hs_test_run (argv, &out, &err, &status);
  g_assert_cmpint (status, ==, 0);
  return g_steal_pointer (&out);
}

static void
test_phantom_note (void)
{
  g_autofree char *source = hs_test_shared_path ("dicom/siim-acr-ptx-cxr-1024.dcm");
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *image = g_build_filename (dir, "xray.dcm", NULL);
  g_autofree char *map = g_build_filename (dir, "grounded.npy", NULL);
  g_autofree char *svg_path = g_build_filename (dir, "fig.svg", NULL);
  g_autofree char *pdf_path = g_build_filename (dir, "fig.pdf", NULL);
  g_autofree char *bytes = NULL;
  const char *note = "phantom-trained model on a real image";
  gsize len;

  if (source == NULL)
    return;
  g_assert_true (g_file_get_contents (source, &bytes, &len, NULL));
  g_assert_true (g_file_set_contents (image, bytes, len, NULL));
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "--model", "grounded", "--image", image, "--prompt",
                           "Opacity in the left lower lung.", "-o", map, NULL };
    g_assert_cmpint (hs_test_run_cli ("attend", args, &out, &err), ==, 0);
  }

  for (int phantom = 0; phantom <= 1; phantom++)
    {
      write_real_dataset (dir, phantom);
      for (int caption = 0; caption <= 1; caption++)
        {
          g_autofree char *svg = NULL, *text = NULL;
          g_autofree char *out = NULL, *err = NULL;
          const char *svg_args[] = { dir, "--instance", "real-1", "--query", "s0", "--model",
                                     "grounded", "--size", "256", "-o", svg_path,
                                     caption ? NULL : "--no-caption", NULL };
          const char *pdf_args[] = { dir, "--instance", "real-1", "--query", "s0", "--model",
                                     "grounded", "--size", "256", "-o", pdf_path,
                                     caption ? NULL : "--no-caption", NULL };

          g_assert_cmpint (hs_test_run_cli ("render", svg_args, &out, &err), ==, 0);
          g_assert_true (g_file_get_contents (svg_path, &svg, NULL, NULL));
          g_assert_cmpint (strstr (svg, note) != NULL, ==, !phantom);
          /* the caption, or none */
          g_assert_cmpint (strstr (svg, "model grounded · instance real-1") != NULL, ==, caption);
          g_clear_pointer (&out, g_free);   /* the SVG run's output, before the PDF run's */
          g_clear_pointer (&err, g_free);
          g_assert_cmpint (hs_test_run_cli ("render", pdf_args, &out, &err), ==, 0);
          text = pdf_text (pdf_path);
          if (text != NULL)
            g_assert_cmpint (strstr (text, note) != NULL, ==, !phantom);
        }
      /* Another model's map of the same image is not labelled. */
      {
        g_autofree char *svg = NULL, *out = NULL, *err = NULL;
        const char *args[] = { dir, "--instance", "real-1", "--query", "s0", "--model",
                               "my-model", "--size", "256", "-o", svg_path, NULL };

        g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 0);
        g_assert_true (g_file_get_contents (svg_path, &svg, NULL, NULL));
        g_assert_null (strstr (svg, note));
      }
      /* figure: the built-in model's panel and the difference with it, not my-model's */
      {
        g_autofree char *svg = NULL, *out = NULL, *err = NULL;
        const char *args[] = { dir, "--panel", "real-1:s0:grounded", "--panel", "real-1:s0:my-model",
                               "--diff", "1,2", "-o", svg_path, NULL };
        const char *at;
        guint n = 0;

        g_assert_cmpint (hs_test_run_cli ("figure", args, &out, &err), ==, 0);
        g_assert_true (g_file_get_contents (svg_path, &svg, NULL, NULL));
        for (at = strstr (svg, "phantom-trained"); at != NULL; at = strstr (at + 1, "phantom-trained"))
          n++;
        g_assert_cmpuint (n, ==, phantom ? 0 : 2);
      }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/cli-render/png", test_png);
  g_test_add_func ("/hs/cli-render/svg-and-pdf", test_svg_and_pdf);
  g_test_add_func ("/hs/cli-render/token", test_token);
  g_test_add_func ("/hs/cli-render/huge-values", test_huge_values);
  g_test_add_func ("/hs/cli-render/usage-errors", test_usage_errors);
  g_test_add_func ("/hs/cli-render/input-errors", test_input_errors);
  g_test_add_func ("/hs/cli-render/phantom-note", test_phantom_note);
  return g_test_run ();
}
