/* test-figure-spec.c — the figure spec file: what it reads, and hostile input
 * (bad types, limits, nesting, bytes, FIFOs) refused with the file and the
 * JSON path named, never a crash or a hang. */
#include <heatscope/heatscope.h>

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "hs-test-util.h"

static const char good[] =
  "{\"format\": \"heatscope-figure\", \"version\": 1, \"columns\": 2, \"width\": \"183mm\","
  " \"dpi\": 150, \"font_size\": 8, \"opacity\": 0.25, \"threshold\": 0.2, \"colormap\": \"viridis\","
  " \"scale\": \"percentile:1:99\", \"scale_group\": \"column\", \"quantity\": \"relevance\","
  " \"caption\": \"Figure 1.\", \"row_headers\": [\"r1\"], \"column_headers\": [\"c1\", \"c2\"],"
  " \"letters\": false, \"region_legend\": true,"
  " \"panels\": ["
  "  {\"instance\": \"p0\", \"query\": \"s1\", \"model\": \"sim\"},"
  "  {\"diff\": [1, 3]},"
  "  {\"instance\": \"p0\", \"query\": \"s1\", \"live\": \"grounded\", \"perturbation\": \"swap-left-right\","
  "   \"title\": \"swapped\"},"
  "  {\"instance\": \"p1\", \"prompt\": \"Cardiomegaly.\", \"live\": \"backend-exec\"}]}";

static void
test_reads (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsFigureSpec) spec = hs_figure_spec_parse (good, strlen (good), "fig.json", &error);
  HsFigureSpecPanel *p;

  g_assert_no_error (error);
  g_assert_cmpuint (spec->columns, ==, 2);
  g_assert_cmpstr (spec->width, ==, "183mm");
  g_assert_cmpfloat (spec->dpi, ==, 150);
  g_assert_cmpfloat (spec->font_size, ==, 8);
  g_assert_cmpfloat (spec->opacity, ==, 0.25);
  g_assert_cmpfloat (spec->threshold, ==, 0.2);
  g_assert_cmpstr (spec->colormap, ==, "viridis");
  g_assert_cmpstr (spec->scale, ==, "percentile:1:99");
  g_assert_cmpstr (spec->scale_group, ==, "column");
  g_assert_cmpstr (spec->quantity, ==, "relevance");
  g_assert_cmpstr (spec->caption, ==, "Figure 1.");
  g_assert_cmpstr (spec->row_headers[0], ==, "r1");
  g_assert_null (spec->row_headers[1]);
  g_assert_cmpstr (spec->column_headers[1], ==, "c2");
  g_assert_cmpint (spec->letters, ==, 0);
  g_assert_cmpint (spec->region_legend, ==, 1);
  g_assert_cmpuint (spec->panels->len, ==, 4);
  p = g_ptr_array_index (spec->panels, 0);
  g_assert_cmpstr (p->instance, ==, "p0");
  g_assert_cmpstr (p->query, ==, "s1");
  g_assert_cmpstr (p->model, ==, "sim");
  g_assert_cmpint (p->source, ==, HS_FIGURE_SOURCE_PRECOMPUTED);
  g_assert_false (p->swap);
  p = g_ptr_array_index (spec->panels, 1);
  g_assert_cmpuint (p->diff_a, ==, 1);
  g_assert_cmpuint (p->diff_b, ==, 3);
  p = g_ptr_array_index (spec->panels, 2);
  g_assert_cmpint (p->source, ==, HS_FIGURE_SOURCE_LIVE);
  g_assert_cmpstr (p->model, ==, "grounded");
  g_assert_true (p->swap);
  g_assert_cmpstr (p->title, ==, "swapped");
  p = g_ptr_array_index (spec->panels, 3);
  g_assert_cmpint (p->source, ==, HS_FIGURE_SOURCE_EXEC);
  g_assert_null (p->model);
  g_assert_cmpstr (p->prompt, ==, "Cardiomegaly.");

  /* unset members stay unset (the command line's defaults apply) */
  {
    const char *min = "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}";
    g_autoptr(HsFigureSpec) m = hs_figure_spec_parse (min, strlen (min), "m.json", &error);

    g_assert_no_error (error);
    g_assert_cmpuint (m->columns, ==, 0);
    g_assert_true (isnan (m->dpi) && isnan (m->font_size) && isnan (m->opacity) && isnan (m->threshold));
    g_assert_null (m->width);
    g_assert_cmpint (m->letters, ==, -1);
    g_assert_cmpint (m->region_legend, ==, -1);
  }
}

/* Each bad spec: refused with "fig.json: PATH: MESSAGE". */
static void
test_refuses (void)
{
  static const struct { const char *json, *where, *message; } cases[] = {
    { "[]", "fig.json: $: ", "expected a figure object" },
    { "{}", "fig.json: $: ", "missing required member \"panels\"" },
    { "{\"panels\": []}", "$.panels: ", "non-empty array" },
    { "{\"panels\": [1]}", "$.panels[0]: ", "expected a panel object" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\", \"colour\": 1}]}", "$.panels[0]: ",
      "unknown member \"colour\"" },
    { "{\"panels\": [{\"query\": \"q\"}]}", "$.panels[0]: ", "missing required member \"instance\"" },
    { "{\"panels\": [{\"instance\": 7, \"query\": \"q\"}]}", "$.panels[0].instance: ", "expected a string" },
    { "{\"panels\": [{\"instance\": \"a\"}]}", "$.panels[0]: ", "one non-empty \"query\"" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\", \"prompt\": \"p\"}]}", "$.panels[0]: ",
      "one non-empty \"query\"" },
    { "{\"panels\": [{\"instance\": \"a\", \"prompt\": \"p\"}]}", "$.panels[0]: ", "needs a live model" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\", \"live\": \"/tmp/evil.safetensors\"}]}",
      "$.panels[0].live: ", "is not a built-in model" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\", \"live\": \"sh -c 'rm -rf ~'\"}]}",
      "$.panels[0].live: ", "is not a built-in model" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\", \"live\": \"grounded\", \"model\": \"m\"}]}",
      "$.panels[0]: ", "exclude each other" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\", \"perturbation\": \"negate\"}]}",
      "$.panels[0].perturbation: ", "swap-left-right" },
    { "{\"panels\": [{\"instance\": \"a\", \"prompt\": \"p\", \"live\": \"blind\", \"perturbation\": "
      "\"swap-left-right\"}]}", "$.panels[0]: ", "needs a \"query\"" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\"}, {\"diff\": [1, 3]}]}",
      "$.panels[1].diff[1]: ", "panel number in 1..2" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\"}, {\"diff\": [1, 1]}]}",
      "$.panels[1].diff: ", "two different panels" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\"}, {\"diff\": [1, 1.5]}]}",
      "$.panels[1].diff[1]: ", "panel number" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\"}, {\"diff\": [1, 3]}, {\"diff\": [1, 2]}]}",
      "$.panels[1]: ", "panel 3 is itself a difference" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\"}, {\"diff\": [1, 2], \"model\": \"x\"}]}",
      "$.panels[1]: ", "\"diff\" and at most a \"title\"" },
    { "{\"columns\": 0, \"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}", "$.columns: ",
      "is not in [1, 64]" },
    { "{\"columns\": 2.5, \"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}", "$.columns: ",
      "whole number" },
    { "{\"dpi\": 1e308, \"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}", "$.dpi: ",
      "is not in [36, 2400]" },
    { "{\"threshold\": 1.5, \"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}", "$.threshold: ",
      "is not in [0, 1]" },
    { "{\"opacity\": \"half\", \"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}", "$.opacity: ",
      "expected a number" },
    { "{\"letters\": 1, \"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}", "$.letters: ",
      "true or false" },
    { "{\"scale_group\": \"diagonal\", \"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}",
      "$.scale_group: ", "\"shared\", \"row\" or \"column\"" },
    { "{\"row_headers\": [\"a\", 2], \"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}",
      "$.row_headers[1]: ", "expected a string" },
    { "{\"format\": \"heatscope-dataset\", \"panels\": []}", "$.format: ", "heatscope-figure" },
    { "{\"version\": 2, \"panels\": []}", "$.version: ", "only version 1" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\"}], \"panels\": []}", "fig.json: ", "not JSON" },
    { "{\"panels\": [{\"instance\": \"a\", \"query\": \"q\"},]}", "fig.json: ", "not JSON" },
    { "", "fig.json: ", "not JSON" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HsFigureSpec) spec = hs_figure_spec_parse (cases[i].json, strlen (cases[i].json),
                                                           "fig.json", &error);

      g_assert_null (spec);
      g_assert_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID);
      if (!g_str_has_prefix (error->message, "fig.json: ")
          || strstr (error->message, cases[i].where) == NULL
          || strstr (error->message, cases[i].message) == NULL)
        g_error ("case %u (%s): got '%s', wanted '%s' … '%s'", i, cases[i].json, error->message,
                 cases[i].where, cases[i].message);
    }
}

/* Limits: nesting, size, panel count, text length, bytes. */
static void
test_limits (void)
{
  g_autoptr(GString) deep = g_string_new ("{\"panels\": [{\"instance\": \"a\", \"query\": \"q\"}], \"x\": ");
  g_autoptr(GString) many = g_string_new ("{\"panels\": [");
  g_autoptr(GString) long_text = g_string_new ("{\"caption\": \"");
  g_autofree char *big = g_malloc (HS_FIGURE_SPEC_MAX_BYTES + 2);
  const char nul[] = "{\"panels\": [{\"instance\": \"a\0\", \"query\": \"q\"}]}";
  const char latin1[] = "{\"caption\": \"caf\xe9\", \"panels\": []}";
  struct { const char *text; gsize len; const char *message; } cases[6];

  /* 200 000 levels: the parser's depth limit, not the stack, refuses it */
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < HS_FIGURE_SPEC_MAX_PANELS + 1; i++)
    g_string_append_printf (many, "%s{\"instance\": \"a\", \"query\": \"q\"}", i ? "," : "");
  g_string_append (many, "]}");
  for (guint i = 0; i < HS_FIGURE_SPEC_MAX_TEXT + 1; i++)
    g_string_append_c (long_text, 'x');
  g_string_append (long_text, "\", \"panels\": [{\"instance\": \"a\", \"query\": \"q\"}]}");
  memset (big, ' ', HS_FIGURE_SPEC_MAX_BYTES + 1);
  big[HS_FIGURE_SPEC_MAX_BYTES + 1] = '\0';

  cases[0] = (typeof (cases[0])) { deep->str, deep->len, "not JSON" };
  cases[1] = (typeof (cases[0])) { many->str, many->len, "257 panels, more than 256" };
  cases[2] = (typeof (cases[0])) { long_text->str, long_text->len, "longer than 4096 characters" };
  cases[3] = (typeof (cases[0])) { big, HS_FIGURE_SPEC_MAX_BYTES + 1, "over the limit" };
  cases[4] = (typeof (cases[0])) { nul, sizeof nul - 1, "invalid UTF-8 (or a NUL byte) at byte 27" };
  cases[5] = (typeof (cases[0])) { latin1, sizeof latin1 - 1, "invalid UTF-8" };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HsFigureSpec) spec = hs_figure_spec_parse (cases[i].text, cases[i].len,
                                                           "fig.json", &error);

      g_assert_null (spec);
      g_assert_nonnull (error);
      if (!g_str_has_prefix (error->message, "fig.json: ")
          || strstr (error->message, cases[i].message) == NULL)
        g_error ("limit case %u: got '%s', wanted '%s'", i, error->message, cases[i].message);
    }
}

/* Files: missing, a folder, a FIFO (refused without blocking), too large. */
static void
test_files (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *fifo = g_build_filename (dir, "fifo.json", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.json", NULL);
  g_autofree char *large = g_build_filename (dir, "large.json", NULL);
  g_autofree char *ok = g_build_filename (dir, "ok.json", NULL);
  g_autofree char *pad = g_malloc0 (HS_FIGURE_SPEC_MAX_BYTES + 1);
  const char *paths[] = { missing, dir, fifo, large };
  const char *needles[] = { "cannot read", "not a regular file", "not a regular file", "too large" };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  memset (pad, ' ', HS_FIGURE_SPEC_MAX_BYTES);
  g_assert_true (g_file_set_contents (large, pad, HS_FIGURE_SPEC_MAX_BYTES + 1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HsFigureSpec) spec = hs_figure_spec_load (paths[i], &error);

      g_assert_null (spec);
      g_assert_nonnull (error);
      if (strstr (error->message, paths[i]) == NULL || strstr (error->message, needles[i]) == NULL)
        g_error ("file %s: got '%s', wanted '%s'", paths[i], error->message, needles[i]);
    }
  g_assert_true (g_file_set_contents (ok, good, -1, NULL));
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(HsFigureSpec) spec = hs_figure_spec_load (ok, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (spec->panels->len, ==, 4);
  }
}

/* Every prefix and every one-byte change of a good spec: a spec or an
 * error, never a crash (ASan/UBSan builds check the memory). */
static void
test_mutations (void)
{
  gsize n = strlen (good);
  g_autofree char *copy = g_malloc (n + 1);
  const char bytes[] = "{}[]\",:0-1e.tfn\\ \xff";

  for (gsize len = 0; len <= n; len++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HsFigureSpec) spec = hs_figure_spec_parse (good, len, "fig.json", &error);
      g_assert_true ((spec == NULL) != (error == NULL));
    }
  for (gsize at = 0; at < n; at++)
    for (guint b = 0; b < sizeof bytes - 1; b++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(HsFigureSpec) spec = NULL;

        memcpy (copy, good, n + 1);
        copy[at] = bytes[b];
        spec = hs_figure_spec_parse (copy, n, "fig.json", &error);
        g_assert_true ((spec == NULL) != (error == NULL));
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/figure-spec/reads", test_reads);
  g_test_add_func ("/figure-spec/refuses", test_refuses);
  g_test_add_func ("/figure-spec/limits", test_limits);
  g_test_add_func ("/figure-spec/files", test_files);
  g_test_add_func ("/figure-spec/mutations", test_mutations);
  return g_test_run ();
}
