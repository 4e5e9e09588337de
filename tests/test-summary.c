/* test-summary.c — means, counts and the seeded bootstrap interval */
#include <heatscope/heatscope.h>
#include <heatscope/hs-summary.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs-test-util.h"

/* Reference outputs of xoshiro256** seeded with splitmix64, from the
 * authors' C code (prng.di.unimi.it): splitmix64(0) gives
 * 0xe220a8397b1dcdaf first. */
static void
test_rng_reference (void)
{
  HsSummaryRng rng;
  guint64 state_check;

  hs_summary_rng_init (&rng, 0);
  g_assert_cmphex (rng.s[0], ==, G_GUINT64_CONSTANT (0xe220a8397b1dcdaf));
  g_assert_cmphex (rng.s[1], ==, G_GUINT64_CONSTANT (0x6e789e6aa1b965f4));
  g_assert_cmphex (rng.s[2], ==, G_GUINT64_CONSTANT (0x06c45d188009454f));
  g_assert_cmphex (rng.s[3], ==, G_GUINT64_CONSTANT (0xf88bb8a8724c81ec));
  state_check = hs_summary_rng_next (&rng);
  /* rotl(s1 * 5, 7) * 9 by hand for s1 = 0x6e789e6aa1b965f4. */
  {
    guint64 x = G_GUINT64_CONSTANT (0x6e789e6aa1b965f4) * 5;
    g_assert_cmphex (state_check, ==, ((x << 7) | (x >> 57)) * 9);
  }
  for (guint i = 0; i < 1000; i++)
    {
      double u = hs_summary_rng_uniform (&rng);
      g_assert_cmpfloat (u, >=, 0.0);
      g_assert_cmpfloat (u, <, 1.0);
    }
}

/* Hand-worked: groups {1, 3} → 2, {NAN} → undefined, {5} → 5: mean 3.5 over
 * 2 instances and 3 rows; column 2 undefined everywhere. */
static void
test_hand_worked (void)
{
  g_autoptr(HsSummary) summary = hs_summary_new (2);
  HsSummaryStat stats[2];
  const double a[] = { 1, NAN }, b[] = { 3, NAN }, c[] = { NAN, NAN }, d[] = { 5, INFINITY };

  hs_summary_begin_group (summary);
  hs_summary_add (summary, a);
  hs_summary_add (summary, b);
  hs_summary_begin_group (summary);
  hs_summary_add (summary, c);
  hs_summary_begin_group (summary);
  hs_summary_begin_group (summary);       /* empty group: dropped */
  hs_summary_add (summary, d);
  g_assert_cmpuint (hs_summary_get_n_groups (summary), ==, 3);
  hs_summary_compute (summary, 200, 7, stats);

  g_assert_cmpuint (stats[0].n_instances, ==, 2);
  g_assert_cmpuint (stats[0].n_rows, ==, 3);
  g_assert_cmpfloat (stats[0].mean, ==, 3.5);
  /* Every resample's mean is one of 2, 3.5, 5. */
  g_assert_cmpfloat (stats[0].ci_low, >=, 2.0);
  g_assert_cmpfloat (stats[0].ci_high, <=, 5.0);
  g_assert_cmpfloat (stats[0].ci_low, <=, 3.5);
  g_assert_cmpfloat (stats[0].ci_high, >=, 3.5);
  g_assert_cmpuint (stats[0].seed, ==, 7);
  g_assert_cmpuint (stats[0].n_resamples, ==, 200);

  g_assert_cmpuint (stats[1].n_instances, ==, 0);
  g_assert_true (isnan (stats[1].mean));
  g_assert_true (isnan (stats[1].ci_low));
  g_assert_true (isnan (stats[1].ci_high));
}

static void
test_single_and_empty (void)
{
  g_autoptr(HsSummary) one = hs_summary_new (1);
  g_autoptr(HsSummary) none = hs_summary_new (1);
  HsSummaryStat stat;
  const double v[] = { 0.25 };

  hs_summary_begin_group (one);
  hs_summary_add (one, v);
  hs_summary_compute (one, 1000, 1, &stat);
  g_assert_cmpfloat (stat.mean, ==, 0.25);
  g_assert_cmpfloat (stat.ci_low, ==, 0.25);
  g_assert_cmpfloat (stat.ci_high, ==, 0.25);

  hs_summary_compute (none, 1000, 1, &stat);
  g_assert_cmpuint (stat.n_instances, ==, 0);
  g_assert_true (isnan (stat.mean));
}

static void
fill_random (HsSummary *summary, guint n_groups, guint32 seed, GString *json)
{
  GRand *rand = g_rand_new_with_seed (seed);

  g_string_append_c (json, '[');
  for (guint g = 0; g < n_groups; g++)
    {
      guint rows = 1 + g_rand_int_range (rand, 0, 3);

      hs_summary_begin_group (summary);
      g_string_append_printf (json, "%s[", g ? "," : "");
      for (guint r = 0; r < rows; r++)
        {
          double values[3];
          char middle[G_ASCII_DTOSTR_BUF_SIZE];

          values[0] = g_rand_double (rand);
          values[1] = g_rand_int_range (rand, 0, 4) == 0 ? NAN : g_rand_double_range (rand, -1, 1);
          values[2] = g_rand_int_range (rand, 0, 2);
          hs_summary_add (summary, values);
          if (isnan (values[1]))
            strcpy (middle, "null");
          else
            g_ascii_formatd (middle, sizeof middle, "%.17g", values[1]);
          g_string_append_printf (json, "%s[%.17g,%s,%.17g]", r ? "," : "", values[0], middle,
                                  values[2]);
        }
      g_string_append_c (json, ']');
    }
  g_string_append_c (json, ']');
  g_rand_free (rand);
}

/* An independent NumPy implementation of the documented procedure gives
 * the same numbers. */
static void
test_against_numpy (void)
{
  g_autoptr(HsSummary) summary = hs_summary_new (3);
  g_autoptr(GString) json = g_string_new (NULL);
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "groups.json", NULL);
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  HsSummaryStat stats[3];
  const char *args[] = { path, NULL };
  const char *script =
    "import json, sys\n"
    "import numpy as np\n"
    "M = (1 << 64) - 1\n"
    "def splitmix(state):\n"
    "    state = (state + 0x9e3779b97f4a7c15) & M\n"
    "    z = state\n"
    "    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M\n"
    "    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M\n"
    "    return state, z ^ (z >> 31)\n"
    "def rotl(x, k):\n"
    "    return ((x << k) | (x >> (64 - k))) & M\n"
    "class Rng:\n"
    "    def __init__(self, seed):\n"
    "        st = seed; self.s = []\n"
    "        for _ in range(4):\n"
    "            st, v = splitmix(st); self.s.append(v)\n"
    "    def next(self):\n"
    "        s = self.s\n"
    "        r = (rotl((s[1] * 5) & M, 7) * 9) & M\n"
    "        t = (s[1] << 17) & M\n"
    "        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t\n"
    "        s[3] = rotl(s[3], 45)\n"
    "        return r\n"
    "groups = json.load(open(sys.argv[1]))\n"
    "G = len(groups)\n"
    "means = np.full((G, 3), np.nan)\n"
    "for g, rows in enumerate(groups):\n"
    "    a = np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=float)\n"
    "    for c in range(3):\n"
    "        col = a[:, c][~np.isnan(a[:, c])]\n"
    "        if len(col): means[g, c] = col.mean()\n"
    "rng = Rng(12345)\n"
    "stats = [[] for _ in range(3)]\n"
    "for b in range(1000):\n"
    "    idx = [min(int((rng.next() >> 11) * 2.0**-53 * G), G - 1) for _ in range(G)]\n"
    "    d = means[idx]\n"
    "    for c in range(3):\n"
    "        col = d[:, c][~np.isnan(d[:, c])]\n"
    "        if len(col): stats[c].append(col.mean())\n"
    "for c in range(3):\n"
    "    col = means[:, c][~np.isnan(means[:, c])]\n"
    "    lo, hi = np.percentile(stats[c], [2.5, 97.5])\n"
    "    print('%d %.17g %.17g %.17g' % (len(col), col.mean(), lo, hi))\n";

  fill_random (summary, 300, 99, json);
  g_file_set_contents (path, json->str, -1, &error);
  g_assert_no_error (error);
  hs_summary_compute (summary, 1000, 12345, stats);

  out = hs_test_python (script, args);
  if (out == NULL)
    return;
  lines = g_strsplit (out, "\n", -1);
  for (guint c = 0; c < 3; c++)
    {
      guint n;
      double mean, lo, hi;

      g_assert_cmpint (sscanf (lines[c], "%u %lf %lf %lf", &n, &mean, &lo, &hi), ==, 4);
      g_assert_cmpuint (stats[c].n_instances, ==, n);
      g_assert_cmpfloat_with_epsilon (stats[c].mean, mean, 1e-12);
      g_assert_cmpfloat_with_epsilon (stats[c].ci_low, lo, 1e-12);
      g_assert_cmpfloat_with_epsilon (stats[c].ci_high, hi, 1e-12);
      g_assert_cmpfloat (stats[c].ci_low, <=, stats[c].mean);
      g_assert_cmpfloat (stats[c].ci_high, >=, stats[c].mean);
    }
}

/* Same input and seed: bit-identical; another seed: a different interval. */
static void
test_reproducible (void)
{
  HsSummaryStat first[3], second[3], other[3];

  for (guint k = 0; k < 3; k++)
    {
      g_autoptr(HsSummary) summary = hs_summary_new (3);
      g_autoptr(GString) json = g_string_new (NULL);

      fill_random (summary, 200, 5, json);
      hs_summary_compute (summary, 1000, k == 2 ? 2 : 1, k == 0 ? first : k == 1 ? second : other);
    }
  for (guint c = 0; c < 3; c++)
    {
      g_assert_cmpuint (first[c].n_instances, ==, second[c].n_instances);
      g_assert_cmpmem (&first[c].mean, sizeof (double), &second[c].mean, sizeof (double));
      g_assert_cmpmem (&first[c].ci_low, sizeof (double), &second[c].ci_low, sizeof (double));
      g_assert_cmpmem (&first[c].ci_high, sizeof (double), &second[c].ci_high, sizeof (double));
    }
  g_assert_cmpfloat (first[0].mean, ==, other[0].mean);
  g_assert_true (first[0].ci_low != other[0].ci_low || first[0].ci_high != other[0].ci_high);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/summary/rng-reference", test_rng_reference);
  g_test_add_func ("/hs/summary/hand-worked", test_hand_worked);
  g_test_add_func ("/hs/summary/single-and-empty", test_single_and_empty);
  g_test_add_func ("/hs/summary/against-numpy", test_against_numpy);
  g_test_add_func ("/hs/summary/reproducible", test_reproducible);
  return g_test_run ();
}
