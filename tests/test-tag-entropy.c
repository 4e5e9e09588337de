/* test-tag-entropy.c — tag_entropy and tag_entropy_norm of a map's tag
 * attention: hand-worked cases, undefined cases, and scipy.stats.entropy */
#include <heatscope/heatscope.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs-test-util.h"

static double
entropy_of (const double *weights, guint n, double *norm, const char **reason)
{
  g_autofree HsTagWeight *tags = g_new0 (HsTagWeight, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      tags[i].tag = (char *) "tag";
      tags[i].weight = weights[i];
    }
  return hs_tag_attention_entropy (tags, n, norm, reason);
}

static void
test_hand_worked (void)
{
  const double half[] = { 0.5, 0.5 };
  const double three[] = { 0.5, 0.25, 0.25 };
  const double focused[] = { 0, 1, 0, 0 };
  const double even4[] = { 0.25, 0.25, 0.25, 0.25 };
  const double one[] = { 1 };
  /* As written in a manifest: sums to 1.0008 (within the 0.001 the manifest
   * allows); renormalised it is { 0.6, 0.4 } up to rounding. */
  const double loose[] = { 0.6 * 1.0008, 0.4 * 1.0008 };
  const char *reason = "unset";
  double norm = 0, h;

  h = entropy_of (half, 2, &norm, &reason);
  g_assert_cmpfloat_with_epsilon (h, log (2), 1e-15);
  g_assert_cmpfloat (norm, ==, 1.0);
  g_assert_null (reason);

  /* −(½ ln ½ + 2·¼ ln ¼) = ½ ln 2 + ln 2 = 1.5 ln 2 = 1.0397…; / ln 3 = 0.946394… */
  h = entropy_of (three, 3, &norm, &reason);
  g_assert_cmpfloat_with_epsilon (h, 1.5 * log (2), 1e-15);
  g_assert_cmpfloat_with_epsilon (h, 1.0397207708399179, 1e-15);
  g_assert_cmpfloat_with_epsilon (norm, 0.946394630357186, 1e-15);
  g_assert_null (reason);

  /* Zero weights: 0·ln 0 = 0, but they count in n. */
  h = entropy_of (focused, 4, &norm, &reason);
  g_assert_cmpfloat (h, ==, 0.0);
  g_assert_cmpfloat (norm, ==, 0.0);
  g_assert_null (reason);

  h = entropy_of (even4, 4, &norm, &reason);
  g_assert_cmpfloat_with_epsilon (h, log (4), 1e-15);
  g_assert_cmpfloat (norm, <=, 1.0);
  g_assert_cmpfloat_with_epsilon (norm, 1.0, 1e-15);

  /* One tag: the entropy is 0, its normalised value undefined (ln 1 = 0). */
  h = entropy_of (one, 1, &norm, &reason);
  g_assert_cmpfloat (h, ==, 0.0);
  g_assert_true (isnan (norm));
  g_assert_cmpstr (reason, ==, "one tag");

  /* −(0.6 ln 0.6 + 0.4 ln 0.4) = 0.673011…: the weights are renormalised. */
  h = entropy_of (loose, 2, &norm, &reason);
  g_assert_cmpfloat_with_epsilon (h, 0.6730116670092565, 1e-14);
  g_assert_cmpfloat_with_epsilon (norm, 0.6730116670092565 / log (2), 1e-14);

  /* NULL out-parameters are allowed. */
  g_assert_cmpfloat_with_epsilon (entropy_of (half, 2, NULL, NULL), log (2), 1e-15);
}

static void
test_undefined (void)
{
  const double zeros[] = { 0, 0, 0 };
  const double negative[] = { 1.2, -0.2 };
  const double nan_weight[] = { 0.5, NAN };
  const double inf_weight[] = { 0.5, INFINITY };
  const double huge[] = { 1e308, 1e308 };
  const char *reason = NULL;
  double norm = 0;

  g_assert_true (isnan (entropy_of (NULL, 0, &norm, &reason)));
  g_assert_true (isnan (norm));
  g_assert_cmpstr (reason, ==, "the map has no tag attention");
  g_assert_true (isnan (entropy_of (zeros, 3, &norm, &reason)));
  g_assert_true (isnan (norm));
  g_assert_cmpstr (reason, ==, "no tag has a positive weight");
  g_assert_true (isnan (entropy_of (negative, 2, &norm, &reason)));
  g_assert_cmpstr (reason, ==, "a tag weight is negative or not finite");
  g_assert_true (isnan (entropy_of (nan_weight, 2, &norm, &reason)));
  g_assert_true (isnan (norm));
  g_assert_true (isnan (entropy_of (inf_weight, 2, &norm, &reason)));
  /* A sum that overflows is refused rather than giving 0·ln 0 = 0. */
  g_assert_true (isnan (entropy_of (huge, 2, &norm, &reason)));
  g_assert_cmpstr (reason, ==, "no tag has a positive weight");
}

/* 200 lists of 1 … 256 weights (zeros, ties, one dominant tag, sums off 1
 * by up to 0.001) against scipy.stats.entropy (natural log, which
 * renormalises the same way) and entropy / ln n. */
static void
test_scipy (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "weights.txt", NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GPtrArray) lists = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  GRand *rand = g_rand_new_with_seed (18);
  const char *args[] = { path, NULL };
  const char *script =
    "import sys, math\n"
    "from scipy.stats import entropy\n"
    "for line in open(sys.argv[1]):\n"
    "    w = [float(x) for x in line.split()]\n"
    "    h = entropy(w)\n"
    "    norm = h / math.log(len(w)) if len(w) > 1 else float('nan')\n"
    "    print(repr(float(h)), repr(float(norm)))\n";
  guint checked = 0;

  for (guint l = 0; l < 200; l++)
    {
      guint n = l < 8 ? l + 1 : (guint) g_rand_int_range (rand, 1, 257);
      GArray *w = g_array_sized_new (FALSE, FALSE, sizeof (double), n);
      double sum = 0;
      guint kind = l % 4;

      for (guint i = 0; i < n; i++)
        {
          double v = g_rand_double (rand);

          if (kind == 1 && g_rand_int_range (rand, 0, 3) == 0)
            v = 0;                        /* zeros */
          if (kind == 2)
            v = (double) g_rand_int_range (rand, 1, 4);   /* ties */
          if (kind == 3)
            v = i == 0 ? 1000 : v * 1e-3; /* one dominant tag */
          g_array_append_val (w, v);
          sum += v;
        }
      if (!(sum > 0))
        g_array_index (w, double, 0) = sum = 1;
      for (guint i = 0; i < n; i++)
        {
          /* As a manifest writes them: summing to 1 within 0.001. */
          g_array_index (w, double, i) *= (1 + g_rand_double_range (rand, -9e-4, 9e-4)) / sum;
          g_string_append_printf (text, "%s%.17g", i ? " " : "", g_array_index (w, double, i));
        }
      g_string_append_c (text, '\n');
      g_ptr_array_add (lists, w);
    }
  g_rand_free (rand);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);

  out = hs_test_python (script, args);
  if (out == NULL)
    return;
  lines = g_strsplit (out, "\n", -1);
  for (guint l = 0; l < lists->len; l++)
    {
      GArray *w = g_ptr_array_index (lists, l);
      double ref_h, ref_norm, h, norm;
      char norm_text[64];

      g_assert_nonnull (lines[l]);
      g_assert_cmpint (sscanf (lines[l], "%lf %63s", &ref_h, norm_text), ==, 2);
      ref_norm = strcmp (norm_text, "nan") == 0 ? NAN : g_ascii_strtod (norm_text, NULL);
      h = entropy_of ((const double *) w->data, w->len, &norm, NULL);
      g_assert_cmpfloat (fabs (h - ref_h), <=, 1e-12 * MAX (1.0, ref_h));
      if (isnan (ref_norm))
        g_assert_true (isnan (norm));
      else
        g_assert_cmpfloat (fabs (norm - ref_norm), <=, 1e-12);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 200);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/tag-entropy/hand-worked", test_hand_worked);
  g_test_add_func ("/hs/tag-entropy/undefined", test_undefined);
  g_test_add_func ("/hs/tag-entropy/scipy", test_scipy);
  return g_test_run ();
}
