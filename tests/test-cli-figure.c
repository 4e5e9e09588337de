/* test-cli-figure.c — heatscope-cli figure: the figure composer end to end */
#include <heatscope/heatscope.h>

#include <math.h>
#include <string.h>

#include "hs-test-util.h"

static char *demo_dir;

/* The phantom demo (deterministic: seed 1) with simulated maps, which
 * include the left/right swapped prompts' maps. */
static const char *
demo (void)
{
  if (demo_dir == NULL)
    {
      g_autofree char *dir = hs_test_make_tmpdir ();
      const char *args[] = { "-n", "2", "--size", "128", "--maps", "simulated", NULL, NULL };
      g_autofree char *out = NULL, *err = NULL;

      demo_dir = g_build_filename (dir, "demo", NULL);
      args[6] = demo_dir;
      g_assert_cmpint (hs_test_run_cli ("demo", args, &out, &err), ==, 0);
    }
  return demo_dir;
}

#define P(i, q, m) "--panel", "phantom-00000" #i ":" q ":" m

/* Golden comparison as the UI tests do it: the mean absolute channel
 * difference ≤ 2 and at most 1 % of the pixels off by more than 48 (font
 * hinting); HS_UPDATE_GOLDEN=1 rewrites the golden file (look at it). */
static void
check_golden (const char *png_path, const char *name)
{
  g_autofree char *file = g_strconcat (name, ".png", NULL);
  g_autofree char *golden = g_build_filename (hs_test_source_dir (), "tests", "golden", file, NULL);
  cairo_surface_t *got = cairo_image_surface_create_from_png (png_path), *ref;
  guint64 bad = 0, sum = 0;
  int w, h;

  g_assert_cmpint (cairo_surface_status (got), ==, CAIRO_STATUS_SUCCESS);
  if (g_strcmp0 (g_getenv ("HS_UPDATE_GOLDEN"), "1") == 0)
    {
      g_assert_cmpint (cairo_surface_write_to_png (got, golden), ==, CAIRO_STATUS_SUCCESS);
      cairo_surface_destroy (got);
      return;
    }
  ref = cairo_image_surface_create_from_png (golden);
  g_assert_cmpint (cairo_surface_status (ref), ==, CAIRO_STATUS_SUCCESS);
  w = cairo_image_surface_get_width (got);
  h = cairo_image_surface_get_height (got);
  g_assert_cmpint (w, ==, cairo_image_surface_get_width (ref));
  g_assert_cmpint (h, ==, cairo_image_surface_get_height (ref));
  for (int y = 0; y < h; y++)
    {
      const guint8 *a = cairo_image_surface_get_data (got) + y * cairo_image_surface_get_stride (got);
      const guint8 *b = cairo_image_surface_get_data (ref) + y * cairo_image_surface_get_stride (ref);
      for (int x = 0; x < w; x++)
        {
          int worst = 0;
          for (int c = 0; c < 4; c++)
            {
              int d = abs ((int) a[4 * x + c] - (int) b[4 * x + c]);
              sum += d;
              worst = MAX (worst, d);
            }
          bad += worst > 48;
        }
    }
  cairo_surface_destroy (got);
  cairo_surface_destroy (ref);
  g_test_message ("%s: mean %.3f, %" G_GUINT64_FORMAT " pixels off", name,
                  (double) sum / (4.0 * w * h), bad);
  g_assert_cmpfloat ((double) sum / (4.0 * w * h), <=, 2.0);
  g_assert_cmpuint (bad, <=, (guint64) (0.01 * w * h));
}

static char *
run_tool (const char *tool, const char *arg1, const char *arg2)
{
  g_autofree char *path = g_find_program_in_path (tool);
  gboolean text = g_str_equal (tool, "pdftotext");
  const char *argv[] = { path, text ? "-enc" : arg1, text ? "UTF-8" : arg2,
                         text ? arg1 : NULL, text ? arg2 : NULL, NULL };
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = -1;

  if (path == NULL)
    g_error ("%s is not installed (poppler-utils, in tools/deps.sh)", tool);
  g_assert_true (hs_test_run (argv, &out, &err, &status));
  g_assert_cmpint (status, ==, 0);
  return out;
}

/* PDF page width in points from pdfinfo ("Page size: 518.74 x 400 pts"). */
static double
pdf_page_width (const char *pdf)
{
  g_autofree char *info = run_tool ("pdfinfo", pdf, NULL);
  const char *line = strstr (info, "Page size:");

  g_assert_nonnull (line);
  return g_ascii_strtod (line + strlen ("Page size:"), NULL);
}

static void
run_figure (const char * const *extra, const char *out, int expect)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autofree char *o = NULL, *e = NULL;

  g_ptr_array_add (args, (gpointer) demo ());
  for (guint i = 0; extra[i]; i++)
    g_ptr_array_add (args, (gpointer) extra[i]);
  g_ptr_array_add (args, (gpointer) "-o");
  g_ptr_array_add (args, (gpointer) out);
  g_ptr_array_add (args, NULL);
  if (hs_test_run_cli ("figure", (const char * const *) args->pdata, &o, &e) != expect)
    g_error ("figure exited otherwise than %d: %s", expect, e);
}

static const char *grid_args[] = {
  P (0, "s1", "sim-grounded"), P (0, "s2", "sim-grounded"), P (1, "s1", "sim-grounded"),
  P (0, "s1", "sim-blind"), P (0, "s2", "sim-blind"), P (1, "s1", "sim-blind"),
  "--columns", "3", "--row-header", "sim-grounded", "--row-header", "sim-blind",
  "--column-header", "mass", "--column-header", "clear lung", "--column-header", "effusion",
  "--caption", "Figure 2. Two simulated models on three phantom findings.",
  "--width", "183mm", "--font-size", "7", "--dpi", "100", NULL
};

static void
test_grid (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "grid.png", NULL);
  g_autofree char *pdf = g_build_filename (dir, "grid.pdf", NULL);
  g_autofree char *svg = g_build_filename (dir, "grid.svg", NULL);
  g_autofree char *text = NULL, *svg_text = NULL;
  double w_pt = 183 * 72 / 25.4;
  cairo_surface_t *s;

  run_figure (grid_args, png, 0);
  /* PNG pixels = points × dpi / 72 */
  s = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (s), ==, (int) ceil (w_pt * 100 / 72));
  cairo_surface_destroy (s);
  check_golden (png, "figure-grid-2x3");

  run_figure (grid_args, pdf, 0);
  g_assert_cmpfloat (fabs (pdf_page_width (pdf) - w_pt), <, 0.01);
  text = run_tool ("pdftotext", pdf, "-");
  for (const char *const *want = (const char *const[]) { "a", "b", "c", "d", "e", "f",
         "attention weight", "sim-grounded", "sim-blind", "clear lung", "effusion",
         "0.000", "Figure 2.", "right mid lung zone", NULL }; *want; want++)
    if (strstr (text, *want) == NULL)
      g_error ("pdftotext has no '%s' in:\n%s", *want, text);

  run_figure (grid_args, svg, 0);
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_nonnull (strstr (svg_text, "width=\"518.74pt\""));
  g_assert_nonnull (strstr (svg_text, ">attention weight</text>"));
  g_assert_nonnull (strstr (svg_text, ">sim-blind</text>"));
  g_assert_nonnull (strstr (svg_text, "<path "));        /* mask contours */
  g_assert_nonnull (strstr (svg_text, "<linearGradient")); /* the bar stays vector */
  g_assert_nonnull (strstr (svg_text, "<image "));
}

/* A | B | A − B: the prompt, its left/right swap (the swapped prompt's own
 * map, boxed and scored against the ORIGINAL target) and their difference. */
static void
test_swap_diff (void)
{
  const char *args[] = {
    P (0, "s1", "sim-grounded"), P (0, "s1", "sim-grounded:swap-left-right"), "--diff", "1,2",
    "--caption", "Figure 1. A prompt and its left/right swap.", "--width", "183mm",
    "--dpi", "100", NULL
  };
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "abd.png", NULL);
  g_autofree char *pdf = g_build_filename (dir, "abd.pdf", NULL);
  g_autofree char *text = NULL, *flat = NULL;

  run_figure (args, png, 0);
  check_golden (png, "figure-a-b-diff");
  run_figure (args, pdf, 0);
  text = run_tool ("pdftotext", pdf, "-");
  flat = g_strdup (text);
  g_strdelimit (flat, "\n", ' ');
  for (const char *const *want = (const char *const[]) { "A mass is seen in the right mid lung",
         "A mass is seen in the left mid lung", "AUROC 0.", "difference of panels a and b", "difference A",
         "scored against the original", "right mid lung zone", NULL }; *want; want++)
    if (strstr (flat, *want) == NULL)
      g_error ("pdftotext has no '%s' in:\n%s", *want, text);
}

static void
test_errors (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *out = g_build_filename (dir, "x.pdf", NULL);
  const char *bad_width[] = { P (0, "s1", "sim-grounded"), "--width", "89furlongs", NULL };
  const char *bad_panel[] = { P (0, "nope", "sim-grounded"), NULL };
  const char *bad_diff[] = { P (0, "s1", "sim-grounded"), "--diff", "1,3", NULL };
  const char *narrow[] = { P (0, "s1", "sim-grounded"), P (0, "s2", "sim-grounded"),
                           "--width", "1in", "--font-size", "12", NULL };
  double pt = 0;

  run_figure (bad_width, out, 2);
  run_figure (bad_panel, out, 1);
  run_figure (bad_diff, out, 2);
  run_figure (narrow, out, 1);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));

  g_assert_true (hs_figure_parse_length ("89mm", &pt, NULL));
  g_assert_cmpfloat (fabs (pt - 252.2834645669), <, 1e-9);
  g_assert_true (hs_figure_parse_length ("3.5in", &pt, NULL));
  g_assert_cmpfloat (pt, ==, 252);
  g_assert_true (hs_figure_parse_length ("8.9cm", &pt, NULL));
  g_assert_cmpfloat (fabs (pt - 252.2834645669), <, 1e-9);
  g_assert_false (hs_figure_parse_length ("-3in", &pt, NULL));
  g_assert_false (hs_figure_parse_length ("mm", &pt, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-figure/grid-2x3", test_grid);
  g_test_add_func ("/cli-figure/swap-diff", test_swap_diff);
  g_test_add_func ("/cli-figure/errors", test_errors);
  return g_test_run ();
}
