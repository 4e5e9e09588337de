/* test-cli-figure.c — heatscope-cli figure: the figure composer end to end */
#include <heatscope/heatscope.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs-test-util.h"

static char *demo_dir;

/* The phantom demo (deterministic: seed 1) with simulated maps, which
 * include the left/right swapped prompts' maps. */
static char *
make_demo (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();

  return hs_test_make_demo (dir, "demo", 2, 128, "simulated");
}

static const char *
demo (void)
{
  if (demo_dir == NULL)
    demo_dir = make_demo ();
  return demo_dir;
}

/* Occurrences of `needle` in `text`. */
static guint
count (const char *text, const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (text, needle); p; p = strstr (p + 1, needle))
    n++;
  return n;
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

/* heatscope-cli figure DATASET EXTRA... -o OUT; returns its stderr. */
static char *
run_figure_in (const char *dataset, const char * const *extra, const char *out, int expect)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autofree char *o = NULL;
  char *e = NULL;

  g_ptr_array_add (args, (gpointer) dataset);
  for (guint i = 0; extra[i]; i++)
    g_ptr_array_add (args, (gpointer) extra[i]);
  g_ptr_array_add (args, (gpointer) "-o");
  g_ptr_array_add (args, (gpointer) out);
  g_ptr_array_add (args, NULL);
  if (hs_test_run_cli ("figure", (const char * const *) args->pdata, &o, &e) != expect)
    g_error ("figure exited otherwise than %d: %s", expect, e);
  return e;
}

static void
run_figure (const char * const *extra, const char *out, int expect)
{
  g_free (run_figure_in (demo (), extra, out, expect));
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
  /* ONE colour bar for the whole figure */
  g_assert_cmpuint (count (svg_text, ">attention weight</text>"), ==, 1);
  g_assert_nonnull (strstr (svg_text, ">sim-blind</text>"));
  g_assert_nonnull (strstr (svg_text, "<path "));        /* mask contours */
  g_assert_nonnull (strstr (svg_text, "<linearGradient")); /* the bar stays vector */
  g_assert_nonnull (strstr (svg_text, "<image "));
}

/* Four narrow panels whose first boxes name four regions: the region key's
 * cyan entry joins them ("… / … / … / …"), wider than the 89-mm page; it
 * wraps under its swatch, so nothing is drawn in the page's right margin
 * (the pixel columns just inside the page's edge stay white). */
static void
test_region_key_wraps (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "key.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "key.svg", NULL);
  g_autofree char *svg_text = NULL;
  const char *args[] = { P (0, "s1", "sim-grounded"), P (0, "s2", "sim-grounded"),
                         P (1, "s1", "sim-grounded"), P (1, "s2", "sim-grounded"),
                         "--columns", "4", "--dpi", "100", NULL };
  cairo_surface_t *s;
  int w, h, stride, top;
  const guint8 *data;
  const char *joined;
  guint inked = 0;
  double key_y = 0;

  run_figure (args, svg, 0);
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  /* a joined entry, the case at hand: its first line's baseline */
  joined = strstr (svg_text, " / ");
  g_assert_nonnull (joined);
  while (joined > svg_text && strncmp (joined, "<text", 5) != 0)
    joined--;
  g_assert_cmpint (sscanf (joined, "<text x=\"%*f\" y=\"%lf\"", &key_y), ==, 1);
  run_figure (args, png, 0);
  s = cairo_image_surface_create_from_png (png);
  w = cairo_image_surface_get_width (s);
  h = cairo_image_surface_get_height (s);
  stride = cairo_image_surface_get_stride (s);
  data = cairo_image_surface_get_data (s);
  /* the key's rows, from a line above its first baseline (points → pixels at 100 dpi) */
  top = (int) floor ((key_y - 7 * 1.3) * 100 / 72);
  g_assert_cmpint (top, >, 0);
  /* the last column and row are the page's partial edge pixels; the
   * five before them lie in the 5.5-pt margin */
  for (int y = top; y < h - 1; y++)
    for (int x = w - 6; x < w - 1; x++)
      inked += (((const guint32 *) (const void *) (data + y * stride))[x] & 0xffffff) != 0xffffff;
  cairo_surface_destroy (s);
  g_assert_cmpuint (inked, ==, 0);
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
  /* the images are embedded at their native 128 × 128 (no resampling at
   * export), one per panel */
  {
    g_autofree char *list = run_tool ("pdfimages", "-list", pdf);
    g_auto(GStrv) lines = g_strsplit (list, "\n", -1);
    guint images = 0;

    for (guint i = 2; lines[i]; i++)
      {
        g_auto(GStrv) f = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
        g_autoptr(GPtrArray) cols = g_ptr_array_new ();

        for (guint k = 0; f[k]; k++)
          if (*f[k])
            g_ptr_array_add (cols, f[k]);
        if (cols->len < 5)
          continue;
        g_assert_cmpstr (g_ptr_array_index (cols, 2), ==, "image");
        g_assert_cmpstr (g_ptr_array_index (cols, 3), ==, "128");
        g_assert_cmpstr (g_ptr_array_index (cols, 4), ==, "128");
        images++;
      }
    g_assert_cmpuint (images, ==, 3);
  }
  text = run_tool ("pdftotext", pdf, "-");
  flat = g_strdup (text);
  g_strdelimit (flat, "\n", ' ');
  for (const char *const *want = (const char *const[]) { "A mass is seen in the right mid lung",
         "A mass is seen in the left mid lung", "AUROC 0.", "difference of panels a and b", "difference A",
         "Scored against the original target", "right mid lung zone", NULL }; *want; want++)
    if (strstr (flat, *want) == NULL)
      g_error ("pdftotext has no '%s' in:\n%s", *want, text);
}

/* --per-column-scale: each column its own scale and (horizontal) bar,
 * whose top value is the column's own maximum. */
static void
test_per_column (void)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *svg = g_build_filename (dir, "col.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "col.pdf", NULL);
  g_autofree char *svg_text = NULL, *text = NULL;

  for (guint i = 0; grid_args[i]; i++)
    g_ptr_array_add (args, (gpointer) grid_args[i]);
  g_ptr_array_add (args, (gpointer) "--per-column-scale");
  g_ptr_array_add (args, NULL);
  run_figure ((const char * const *) args->pdata, svg, 0);
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_cmpuint (count (svg_text, ">attention weight</text>"), ==, 3);
  g_assert_cmpuint (count (svg_text, "<linearGradient"), ==, 3);

  run_figure ((const char * const *) args->pdata, pdf, 0);
  g_assert_cmpfloat (fabs (pdf_page_width (pdf) - 183 * 72 / 25.4), <, 0.01);
  text = run_tool ("pdftotext", pdf, "-");
  g_assert_cmpuint (count (text, "attention weight"), ==, 3);

  {
    const char *both[] = { P (0, "s1", "sim-grounded"), "--per-row-scale", "--per-column-scale", NULL };
    g_autofree char *err = run_figure_in (demo (), both, pdf, 2);
    g_assert_nonnull (strstr (err, "exclude each other"));
  }
  {
    const char *late[] = { P (0, "s1", "sim-grounded"), "--backend-exec", "true", "--timeout", "86401", NULL };
    g_autofree char *err = run_figure_in (demo (), late, pdf, 2);
    g_assert_nonnull (strstr (err, "figure: --timeout must be between 1 and 86400 seconds, not 86401"));
  }
}

/* The colour bar is titled with the maps' "quantity" from the manifest; a
 * bar cannot stand for two quantities. */
static void
test_quantity (void)
{
  g_autofree char *data = make_demo ();
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *svg = g_build_filename (dir, "q.svg", NULL);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  const char *blind[] = { P (0, "s1", "sim-blind"), P (1, "s1", "sim-blind"), NULL };
  const char *mixed[] = { P (0, "s1", "sim-blind"), P (0, "s1", "sim-grounded"), NULL };
  const char *mixed_cols[] = { P (0, "s1", "sim-blind"), P (0, "s1", "sim-grounded"),
                               "--per-column-scale", NULL };
  const char *named[] = { P (0, "s1", "sim-blind"), P (0, "s1", "sim-grounded"),
                          "--quantity", "relevance", NULL };
  char *svg_text = NULL, *err;

  dataset = hs_dataset_load (data, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      for (guint m = 0; m < instance->maps->len; m++)
        {
          HsMapRef *ref = g_ptr_array_index (instance->maps, m);
          if (g_str_equal (ref->model, "sim-blind"))
            hs_map_ref_set_quantity (ref, "Grad-CAM relevance");
        }
    }
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);

  g_free (run_figure_in (data, blind, svg, 0));
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_cmpuint (count (svg_text, ">Grad-CAM relevance</text>"), ==, 1);
  g_assert_cmpuint (count (svg_text, ">attention weight</text>"), ==, 0);
  g_clear_pointer (&svg_text, g_free);

  err = run_figure_in (data, mixed, svg, 1);
  g_assert_nonnull (strstr (err, "different quantities"));
  g_assert_nonnull (strstr (err, "Grad-CAM relevance"));
  g_clear_pointer (&err, g_free);

  g_free (run_figure_in (data, mixed_cols, svg, 0));
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_cmpuint (count (svg_text, ">Grad-CAM relevance</text>"), ==, 1);
  g_assert_cmpuint (count (svg_text, ">attention weight</text>"), ==, 1);
  g_clear_pointer (&svg_text, g_free);

  g_free (run_figure_in (data, named, svg, 0));
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_cmpuint (count (svg_text, ">relevance</text>"), ==, 1);
  g_free (svg_text);
}

/* --spec: panels from a JSON file (live built-in models, a free prompt, a
 * difference, a swapped live panel scored against the original target);
 * the command line's options override the spec's. */
static void
test_spec_live (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *spec = g_build_filename (dir, "fig.json", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.json", NULL);
  g_autofree char *pdf = g_build_filename (dir, "spec.pdf", NULL);
  g_autofree char *png = g_build_filename (dir, "spec.png", NULL);
  g_autofree char *text = NULL, *flat = NULL, *err = NULL;
  const char *with_spec[] = { "--spec", spec, NULL };
  const char *override[] = { "--spec", spec, "--width", "89mm", "--caption", "Overridden.", NULL };
  const char *with_bad[] = { "--spec", bad, NULL };
  cairo_surface_t *s;

  g_assert_true (g_file_set_contents (spec,
    "{\"format\": \"heatscope-figure\", \"version\": 1, \"columns\": 3, \"width\": \"183mm\","
    " \"dpi\": 72, \"caption\": \"Figure 3. Live built-in models.\","
    " \"row_headers\": [\"grounded\", \"blind\"],"
    " \"panels\": ["
    "  {\"instance\": \"phantom-000000\", \"query\": \"s1\", \"live\": \"grounded\"},"
    "  {\"instance\": \"phantom-000000\", \"query\": \"s1\", \"live\": \"grounded\","
    "   \"perturbation\": \"swap-left-right\"},"
    "  {\"diff\": [1, 2]},"
    "  {\"instance\": \"phantom-000000\", \"query\": \"s1\", \"live\": \"blind\"},"
    "  {\"instance\": \"phantom-000000\", \"prompt\": \"Cardiomegaly.\", \"live\": \"blind\","
    "   \"title\": \"free prompt: Cardiomegaly\"},"
    "  {\"instance\": \"phantom-000000\", \"query\": \"s1\", \"model\": \"sim-blind\"}]}", -1, NULL));
  g_free (run_figure_in (demo (), with_spec, pdf, 0));
  g_assert_cmpfloat (fabs (pdf_page_width (pdf) - 183 * 72 / 25.4), <, 0.01);
  text = run_tool ("pdftotext", pdf, "-");
  flat = g_strdup (text);
  g_strdelimit (flat, "\n", ' ');
  for (const char *const *want = (const char *const[]) { "grounded (live) · phantom-000000",
         "blind (live) · phantom-000000", "sim-blind · phantom-000000", "free prompt: Cardiomegaly",
         "A mass is seen in the left mid lung zone", "Scored against the original target",
         "difference of panels a and b", "Figure 3. Live built-in models.", "f ", NULL }; *want; want++)
    if (strstr (flat, *want) == NULL)
      g_error ("pdftotext has no '%s' in:\n%s", *want, text);

  /* the spec's dpi (72): one pixel per point */
  g_free (run_figure_in (demo (), with_spec, png, 0));
  s = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (s), ==, (int) ceil (183 * 72 / 25.4));
  cairo_surface_destroy (s);

  g_free (run_figure_in (demo (), override, pdf, 0));
  g_assert_cmpfloat (fabs (pdf_page_width (pdf) - 89 * 72 / 25.4), <, 0.01);
  g_free (text);
  text = run_tool ("pdftotext", pdf, "-");
  g_assert_nonnull (strstr (text, "Overridden."));
  g_assert_null (strstr (text, "Figure 3."));

  /* errors name the spec file and the panel */
  g_assert_true (g_file_set_contents (bad,
    "{\"panels\": [{\"instance\": \"phantom-000000\", \"query\": \"s1\"},"
    " {\"instance\": \"nobody\", \"query\": \"s1\", \"live\": \"grounded\"}]}", -1, NULL));
  err = run_figure_in (demo (), with_bad, pdf, 1);
  g_assert_nonnull (strstr (err, "bad.json: $.panels[1]: no instance 'nobody'"));
  g_clear_pointer (&err, g_free);
  g_assert_true (g_file_set_contents (bad, "{\"panels\": [{\"instance\": \"x\", \"query\": 1}]}",
                                      -1, NULL));
  err = run_figure_in (demo (), with_bad, pdf, 1);
  g_assert_nonnull (strstr (err, "bad.json: $.panels[0].query: expected a string"));
  g_clear_pointer (&err, g_free);
}

/* A built-in model (precomputed or live) on an instance that is not a
 * Heatscope phantom says "phantom-trained model on a real image" under its
 * panel, and so does a difference of it; the user's own backend does not. */
static void
test_phantom_note (void)
{
  g_autofree char *data = make_demo ();
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *script = g_build_filename (dir, "fake.sh", NULL);
  g_autofree char *svg = g_build_filename (dir, "real.svg", NULL);
  g_autofree char *command = NULL, *text = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;

  dataset = hs_dataset_load (data, &error);
  g_assert_no_error (error);
  hs_dataset_find_instance (dataset, "phantom-000000")->phantom = FALSE;
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (script,
    "while read -r line; do\n"
    "  id=$(printf '%s' \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')\n"
    "  printf '{\"id\":%s,\"tokens\":[\"a\"],\"shape\":[1,2],\"maps\":\"AACAPgAAQD8=\",\"no_attn\":null}\\n' \"$id\"\n"
    "done\n", -1, NULL));
  command = g_strdup_printf ("sh '%s'", script);
  {
    const char *args[] = { "--panel", "phantom-000000:s1:live=grounded",
                           "--panel", "phantom-000000:s1:live=backend-exec",
                           "--panel", "phantom-000001:s1:live=grounded", "--diff", "1,3",
                           "--backend-exec", command, "--columns", "2", "--width", "183mm", NULL };
    g_free (run_figure_in (data, args, svg, 0));
  }
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  /* panel a (grounded on the now real image) and d (a − c); not b (the
   * backend) nor c (a phantom) */
  g_assert_cmpuint (count (text, ">phantom-trained model on a real image"), ==, 2);
}

/* live=backend-exec panels: the command comes from --backend-exec only; a
 * fake backend answers a 1 × 2 map [0.25, 0.75] for every request. */
static void
test_exec (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *script = g_build_filename (dir, "fake.sh", NULL);
  g_autofree char *spec = g_build_filename (dir, "exec.json", NULL);
  g_autofree char *pdf = g_build_filename (dir, "exec.pdf", NULL);
  g_autofree char *command = NULL, *text = NULL, *err = NULL;

  g_assert_true (g_file_set_contents (script,
    "while read -r line; do\n"
    "  id=$(printf '%s' \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')\n"
    "  printf '{\"id\":%s,\"tokens\":[\"a\"],\"shape\":[1,2],\"maps\":\"AACAPgAAQD8=\",\"no_attn\":null}\\n' \"$id\"\n"
    "done\n", -1, NULL));
  g_assert_true (g_file_set_contents (spec,
    "{\"panels\": [{\"instance\": \"phantom-000000\", \"query\": \"s1\", \"live\": \"backend-exec\"}]}",
    -1, NULL));
  command = g_strdup_printf ("sh '%s'", script);
  {
    const char *args[] = { "--spec", spec, "--panel", "phantom-000000:s2:live=backend-exec",
                           "--backend-exec", command, NULL };
    g_free (run_figure_in (demo (), args, pdf, 0));
    text = run_tool ("pdftotext", pdf, "-");
    /* one shared scale over both maps: exactly the backend's 0.25 … 0.75 */
    for (const char *const *want = (const char *const[]) { "external backend (live)", "0.25", "0.75",
           "The left lung is clear.", NULL }; *want; want++)
      if (strstr (text, *want) == NULL)
        g_error ("pdftotext has no '%s' in:\n%s", *want, text);
  }
  {
    const char *no_command[] = { "--spec", spec, NULL };
    err = run_figure_in (demo (), no_command, pdf, 2);
    g_assert_nonnull (strstr (err, "exec.json: $.panels[0]: a backend-exec panel needs --backend-exec"));
    g_clear_pointer (&err, g_free);
  }
  {
    const char *crash[] = { "--spec", spec, "--backend-exec", "sh -c 'exit 3'", NULL };
    err = run_figure_in (demo (), crash, pdf, 1);
    g_assert_nonnull (strstr (err, "exec.json: $.panels[0]: "));
    g_assert_nonnull (strstr (err, "status 3"));
    g_clear_pointer (&err, g_free);
  }
}

/* Past z the letters go on a1, b1 …, in the panels and in a difference's
 * title alike. */
static void
test_many_letters (void)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *svg = g_build_filename (dir, "many.svg", NULL);
  g_autofree char *text = NULL;

  for (guint i = 0; i < 27; i++)
    {
      g_ptr_array_add (args, (gpointer) "--panel");
      g_ptr_array_add (args, (gpointer) "phantom-000000:s1:sim-grounded");
    }
  for (const char *const *a = (const char *const[]) { "--diff", "1,27", "--columns", "7", "--width",
         "183mm", NULL }; *a; a++)
    g_ptr_array_add (args, (gpointer) *a);
  g_ptr_array_add (args, NULL);
  run_figure ((const char * const *) args->pdata, svg, 0);
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_cmpuint (count (text, ">z</text>"), ==, 1);
  g_assert_cmpuint (count (text, ">a1</text>"), ==, 1);
  g_assert_cmpuint (count (text, ">b1</text>"), ==, 1);
  g_assert_cmpuint (count (text, ">a − a1</text>"), ==, 1);
}

/* The page is the requested width in points in PDF and SVG alike:
 * 89 mm (a column), 183 mm (the page), 3.5 in. */
static void
test_page_widths (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *pdf = g_build_filename (dir, "w.pdf", NULL);
  g_autofree char *svg = g_build_filename (dir, "w.svg", NULL);
  const struct { const char *width; double points; const char *svg_width; } cases[] = {
    { "89mm", 89 * 72 / 25.4, "width=\"252.28pt\"" },
    { "183mm", 183 * 72 / 25.4, "width=\"518.74pt\"" },
    { "3.5in", 252, "width=\"252pt\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *args[] = { P (0, "s1", "sim-grounded"), P (0, "s2", "sim-grounded"),
                             "--width", cases[i].width, NULL };
      g_autofree char *text = NULL;

      run_figure (args, pdf, 0);
      g_assert_cmpfloat (fabs (pdf_page_width (pdf) - cases[i].points), <, 0.01);
      run_figure (args, svg, 0);
      g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
      if (strstr (text, cases[i].svg_width) == NULL)
        g_error ("%s: the SVG has no %s", cases[i].width, cases[i].svg_width);
    }
}

static void
test_errors (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *out = g_build_filename (dir, "x.pdf", NULL);
  const char *bad_width[] = { P (0, "s1", "sim-grounded"), "--width", "89furlongs", NULL };
  const char *bad_panel[] = { P (0, "nope", "sim-grounded"), NULL };
  const char *bad_diff[] = { P (0, "s1", "sim-grounded"), "--diff", "1,3", NULL };
  const char *bad_threshold[] = { P (0, "s1", "sim-grounded"), "--threshold", "1.5", NULL };
  const char *narrow[] = { P (0, "s1", "sim-grounded"), P (0, "s2", "sim-grounded"),
                           "--width", "1in", "--font-size", "12", NULL };
  double pt = 0;

  run_figure (bad_width, out, 2);
  run_figure (bad_panel, out, 1);
  run_figure (bad_diff, out, 2);
  run_figure (bad_threshold, out, 2);
  run_figure (narrow, out, 1);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  {
    /* an unknown model name lists every name that would do: all built-in
     * models for live=, the dataset's models for a precomputed one */
    const char *bad_live[] = { "--panel", "phantom-000000:s1:live=nosuch", NULL };
    const char *bad_model[] = { P (0, "s1", "nosuch"), NULL };
    g_autofree char *err = run_figure_in (demo (), bad_live, out, 2);

    g_assert_nonnull (strstr (err, "'nosuch' is not a built-in model (grounded, blind, noattn, "
                                   "cnn-grad, cnn-ixg, cnn-gradcam, cnn-random-grad, "
                                   "cnn-random-ixg, cnn-random-gradcam) or backend-exec"));
    g_free (err);
    err = run_figure_in (demo (), bad_model, out, 1);
    g_assert_nonnull (strstr (err, "has no map for query 's1' and model nosuch (the dataset's models: "));
    g_assert_nonnull (strstr (err, "sim-blind, sim-grounded"));
    g_assert_nonnull (strstr (err, "; live=NAME for a built-in model: grounded, blind, noattn, cnn-grad"));
    g_free (err);
    /* a known model without this map: no list */
    err = run_figure_in (demo (), bad_panel, out, 1);
    g_assert_null (strstr (err, "the dataset's models"));
  }

  g_assert_true (hs_figure_parse_length ("89mm", &pt, NULL));
  g_assert_cmpfloat (fabs (pt - 252.2834645669), <, 1e-9);
  g_assert_true (hs_figure_parse_length ("3.5in", &pt, NULL));
  g_assert_cmpfloat (pt, ==, 252);
  g_assert_true (hs_figure_parse_length ("8.9cm", &pt, NULL));
  g_assert_cmpfloat (fabs (pt - 252.2834645669), <, 1e-9);
  g_assert_false (hs_figure_parse_length ("-3in", &pt, NULL));
  g_assert_false (hs_figure_parse_length ("mm", &pt, NULL));
}

/* The weights of every bar of a tag strip in an SVG: the filled bar's
 * width over its track's (the track is drawn first, the fill after it at
 * the same x and y), in drawing order. */
static GArray *
svg_bar_fractions (const char *svg)
{
  g_autoptr(GRegex) rect = g_regex_new ("<rect x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\""
                                        "[^>]*fill=\"#(e0e6ed|296bad)\"", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  GArray *fractions = g_array_new (FALSE, FALSE, sizeof (double));
  double track_x = NAN, track_y = NAN, track_w = NAN;

  g_regex_match (rect, svg, 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    {
      g_autofree char *x = g_match_info_fetch (match, 1), *y = g_match_info_fetch (match, 2);
      g_autofree char *w = g_match_info_fetch (match, 3), *fill = g_match_info_fetch (match, 4);

      if (strcmp (fill, "e0e6ed") == 0)
        {
          if (!isnan (track_w))   /* the previous track had no fill: weight 0 */
            g_array_append_val (fractions, (double) { 0 });
          track_x = g_ascii_strtod (x, NULL);
          track_y = g_ascii_strtod (y, NULL);
          track_w = g_ascii_strtod (w, NULL);
        }
      else
        {
          double f = g_ascii_strtod (w, NULL) / track_w;

          g_assert_cmpfloat (fabs (g_ascii_strtod (x, NULL) - track_x), <, 0.01);
          g_assert_cmpfloat (fabs (g_ascii_strtod (y, NULL) - track_y), <, 0.01);
          g_array_append_val (fractions, f);
          track_w = NAN;
        }
    }
  if (!isnan (track_w))
    g_array_append_val (fractions, (double) { 0 });
  return fractions;
}

/* --tags: under a coattn-sim panel (SIMULATED co-attention model of the
 * demo) and its left/right swap, the map's tag weights as bars: every tag
 * of the manifest in its order, its weight with three decimals, the bar
 * as long as the weight (on 0–1, from the SVG's rectangles), the title
 * with the normalised entropy of hs_tag_attention_entropy; a panel whose
 * map has no tags gets no strip (the same SVG as without --tags); the
 * spec's "tags": true does what --tags does; render --tags the same under
 * a single figure.  The PNG is a golden image. */
static void
test_coattn_tags (void)
{
  const char *args[] = {
    P (0, "s1", "coattn-sim"), P (0, "s1", "coattn-sim:swap-left-right"), "--tags",
    "--width", "183mm", "--dpi", "100", NULL
  };
  const char *args_plain[] = {
    P (0, "s1", "sim-grounded"), P (0, "s1", "sim-grounded:swap-left-right"),
    "--width", "183mm", "--dpi", "100", NULL
  };
  const char *args_plain_tags[] = {
    P (0, "s1", "sim-grounded"), P (0, "s1", "sim-grounded:swap-left-right"), "--tags",
    "--width", "183mm", "--dpi", "100", NULL
  };
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "tags.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "tags.svg", NULL);
  g_autofree char *svg_spec = g_build_filename (dir, "tags-spec.svg", NULL);
  g_autofree char *plain = g_build_filename (dir, "plain.svg", NULL);
  g_autofree char *plain_tags = g_build_filename (dir, "plain-tags.svg", NULL);
  g_autofree char *spec = g_build_filename (dir, "fig.json", NULL);
  g_autofree char *text = NULL, *spec_text = NULL, *a = NULL, *b = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (demo (), &error);
  HsInstance *instance;
  const HsMapRef *refs[2];
  g_autoptr(GArray) fractions = NULL;
  guint k = 0;

  g_assert_no_error (error);
  instance = hs_dataset_find_instance (dataset, "phantom-000000");
  refs[0] = hs_instance_find_map (instance, "coattn-sim", "s1");
  {
    g_autofree char *swapped = hs_text_swap_sides (hs_instance_find_sentence (instance, "s1")->text);
    refs[1] = hs_instance_find_map_by_prompt (instance, "coattn-sim", swapped);
  }
  g_assert_nonnull (refs[0]);
  g_assert_nonnull (refs[1]);
  g_assert_cmpuint (refs[0]->n_tags, >=, 5);

  run_figure (args, png, 0);
  check_golden (png, "figure-coattn-tags");
  run_figure (args, svg, 0);
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_cmpuint (count (text, "tag attention · normalised entropy "), ==, 2);
  fractions = svg_bar_fractions (text);
  g_assert_cmpuint (fractions->len, ==, refs[0]->n_tags + refs[1]->n_tags);
  for (guint p = 0; p < 2; p++)
    {
      double norm;
      char number[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *title = NULL;

      hs_tag_attention_entropy (refs[p]->tags, refs[p]->n_tags, &norm, NULL);
      title = g_strdup_printf ("tag attention · normalised entropy %s",
                               g_ascii_formatd (number, sizeof number, "%.2f", norm));
      g_assert_nonnull (strstr (text, title));
      for (guint t = 0; t < refs[p]->n_tags; t++, k++)
        {
          g_autofree char *name = g_markup_escape_text (refs[p]->tags[t].tag, -1);
          g_autofree char *weight = g_strdup_printf (">%s</text>",
                                                     g_ascii_formatd (number, sizeof number, "%.3f",
                                                                      refs[p]->tags[t].weight));
          g_autofree char *tag_text = g_strdup_printf (">%s</text>", name);

          g_assert_nonnull (strstr (text, tag_text));
          g_assert_nonnull (strstr (text, weight));
          g_assert_cmpfloat (fabs (g_array_index (fractions, double, k) - refs[p]->tags[t].weight),
                             <, 0.01);
        }
    }
  /* the spec's "tags": true */
  g_assert_true (g_file_set_contents (spec,
    "{\"tags\": true, \"width\": \"183mm\", \"panels\": ["
    "{\"instance\": \"phantom-000000\", \"query\": \"s1\", \"model\": \"coattn-sim\"},"
    "{\"instance\": \"phantom-000000\", \"query\": \"s1\", \"model\": \"coattn-sim\","
    " \"perturbation\": \"swap-left-right\"}]}", -1, NULL));
  {
    const char *spec_args[] = { "--spec", spec, "--dpi", "100", NULL };
    run_figure (spec_args, svg_spec, 0);
  }
  g_assert_true (g_file_get_contents (svg_spec, &spec_text, NULL, NULL));
  g_assert_cmpstr (spec_text, ==, text);

  /* maps without tags: --tags changes nothing */
  run_figure (args_plain, plain, 0);
  run_figure (args_plain_tags, plain_tags, 0);
  g_assert_true (g_file_get_contents (plain, &a, NULL, NULL));
  g_assert_true (g_file_get_contents (plain_tags, &b, NULL, NULL));
  g_assert_cmpstr (a, ==, b);
  g_assert_null (strstr (a, "tag attention"));

  /* render --tags: one strip under the single figure; a map without tags
   * gets a note and no strip */
  {
    g_autofree char *one = g_build_filename (dir, "one.svg", NULL);
    g_autofree char *none = g_build_filename (dir, "none.svg", NULL);
    const char *render_args[] = { demo (), "--instance", "phantom-000000", "--query", "s1",
                                  "--model", "coattn-sim", "--tags", "-o", one, NULL };
    const char *render_none[] = { demo (), "--instance", "phantom-000000", "--query", "s1",
                                  "--model", "sim-grounded", "--tags", "-o", none, NULL };
    g_autofree char *o = NULL, *e = NULL, *one_text = NULL, *none_text = NULL;
    g_autoptr(GArray) one_fractions = NULL;

    g_assert_cmpint (hs_test_run_cli ("render", render_args, &o, &e), ==, 0);
    g_assert_true (g_file_get_contents (one, &one_text, NULL, NULL));
    g_assert_cmpuint (count (one_text, "tag attention · normalised entropy "), ==, 1);
    one_fractions = svg_bar_fractions (one_text);
    g_assert_cmpuint (one_fractions->len, ==, refs[0]->n_tags);
    for (guint t = 0; t < refs[0]->n_tags; t++)
      g_assert_cmpfloat (fabs (g_array_index (one_fractions, double, t) - refs[0]->tags[t].weight),
                         <, 0.005);
    g_clear_pointer (&o, g_free);
    g_clear_pointer (&e, g_free);
    g_assert_cmpint (hs_test_run_cli ("render", render_none, &o, &e), ==, 0);
    g_assert_nonnull (strstr (e, "has no tag attention"));
    g_assert_true (g_file_get_contents (none, &none_text, NULL, NULL));
    g_assert_null (strstr (none_text, "tag attention"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-figure/grid-2x3", test_grid);
  g_test_add_func ("/cli-figure/swap-diff", test_swap_diff);
  g_test_add_func ("/cli-figure/per-column", test_per_column);
  g_test_add_func ("/cli-figure/quantity", test_quantity);
  g_test_add_func ("/cli-figure/spec-live", test_spec_live);
  g_test_add_func ("/cli-figure/exec", test_exec);
  g_test_add_func ("/cli-figure/phantom-note", test_phantom_note);
  g_test_add_func ("/cli-figure/many-letters", test_many_letters);
  g_test_add_func ("/cli-figure/page-widths", test_page_widths);
  g_test_add_func ("/cli-figure/errors", test_errors);
  g_test_add_func ("/cli-figure/region-key-wraps", test_region_key_wraps);
  g_test_add_func ("/cli-figure/coattn-tags", test_coattn_tags);
  return g_test_run ();
}
