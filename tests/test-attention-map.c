/* test-attention-map.c — sentence and per-token attention maps */
#include <heatscope/heatscope.h>

#include <math.h>
#include <string.h>

#include "hs-test-util.h"

static void
test_new (void)
{
  /* 3 tokens × 2 × 2; sentence map is the per-cell mean, worked by hand */
  static const double v[] = { 1, 2, 3, 4,   3, 2, 1, 0,   5, 5, 5, 5 };
  static const double mean[] = { 3, 3, 3, 3 };
  static const double flat[] = { 0.5, 0.25, 0.125, 0.125, 0, 0 };
  const char *tokens[] = { "left", "lower", "lobe", NULL };
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(HsAttentionMap) sentence = NULL;
  g_autoptr(GError) error = NULL;

  map = hs_attention_map_new (3, 2, 2, v, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, 3);
  g_assert_cmpuint (hs_attention_map_get_height (map), ==, 2);
  g_assert_cmpuint (hs_attention_map_get_width (map), ==, 2);
  g_assert_cmpmem (hs_attention_map_peek_values (map), sizeof mean, mean, sizeof mean);
  g_assert_cmpmem (hs_attention_map_peek_token (map, 1), 4 * sizeof (double), v + 4, 4 * sizeof (double));
  g_assert_null (hs_attention_map_peek_token (map, 3));
  g_assert_null (hs_attention_map_get_token (map, 0));
  hs_attention_map_set_tokens (map, tokens);
  g_assert_cmpstr (hs_attention_map_get_token (map, 2), ==, "lobe");
  g_assert_true (isnan (hs_attention_map_get_no_attn (map)));
  hs_attention_map_set_no_attn (map, 0.25);
  g_assert_cmpfloat (hs_attention_map_get_no_attn (map), ==, 0.25);
  g_assert_true (hs_attention_map_ref (map) == map);
  hs_attention_map_unref (map);

  sentence = hs_attention_map_new (0, 2, 3, flat, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (sentence), ==, 0);
  g_assert_cmpuint (hs_attention_map_get_width (sentence), ==, 3);
  g_assert_cmpmem (hs_attention_map_peek_values (sentence), sizeof flat, flat, sizeof flat);
  g_assert_null (hs_attention_map_peek_token (sentence, 0));
}

static const char numpy_script[] =
  "import sys, numpy as np\n"
  "d = sys.argv[1]\n"
  "rng = np.random.default_rng(3)\n"
  "a = rng.random((4, 6, 5))\n"
  "np.save(d + '/tokens.npy', np.asfortranarray(a.astype('>f4')))\n"
  "m = a.astype('>f4').astype(np.float64).mean(axis=0)\n"
  "print(' '.join(repr(float(x)) for x in m.ravel()))\n"
  "s = rng.random((7, 3)).astype('<f2')\n"
  "np.save(d + '/sentence.npy', s)\n"
  "print(' '.join(repr(float(x)) for x in s.astype(np.float64).ravel()))\n"
  "b = rng.random((3, 4, 5)); b[1, 2, 3] = np.nan; b[2, 0, 0] = np.inf\n"
  "np.save(d + '/nan.npy', b)\n"
  "c = rng.random((4, 5)); c[3, 1] = -np.inf\n"
  "np.save(d + '/inf.npy', c)\n"
  "np.save(d + '/flat.npy', rng.random(9))\n"
  "np.save(d + '/four.npy', rng.random((1, 2, 3, 4)))\n"
  "np.save(d + '/empty.npy', np.zeros((0, 4, 4)))\n";

static void
assert_error (GError *error, int code, const char *path, const char *needle)
{
  g_assert_error (error, HS_MAP_ERROR, code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, path));
  if (needle != NULL)
    g_assert_nonnull (strstr (error->message, needle));
}

static void
test_load_npy (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  const char *args[] = { dir, NULL };
  g_autofree char *out = hs_test_python (numpy_script, args);
  g_autofree char *tokens_path = g_build_filename (dir, "tokens.npy", NULL);
  g_autofree char *sentence_path = g_build_filename (dir, "sentence.npy", NULL);
  g_autofree char *nan_path = g_build_filename (dir, "nan.npy", NULL);
  g_autofree char *inf_path = g_build_filename (dir, "inf.npy", NULL);
  g_autofree char *flat_path = g_build_filename (dir, "flat.npy", NULL);
  g_autofree char *four_path = g_build_filename (dir, "four.npy", NULL);
  g_autofree char *empty_path = g_build_filename (dir, "empty.npy", NULL);
  const char *four_tokens[] = { "a", "b", "c", "d", NULL };
  const char *three_tokens[] = { "a", "b", "c", NULL };
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) mean = NULL;
  g_auto(GStrv) sent = NULL;
  g_autoptr(GError) error = NULL;
  HsAttentionMap *map;

  if (out == NULL)
    return;
  lines = g_strsplit (out, "\n", -1);
  mean = g_strsplit (lines[0], " ", -1);
  sent = g_strsplit (lines[1], " ", -1);

  map = hs_attention_map_load_npy (tokens_path, four_tokens, 0.125, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, 4);
  g_assert_cmpuint (hs_attention_map_get_height (map), ==, 6);
  g_assert_cmpuint (hs_attention_map_get_width (map), ==, 5);
  g_assert_cmpstr (hs_attention_map_get_token (map, 3), ==, "d");
  g_assert_cmpfloat (hs_attention_map_get_no_attn (map), ==, 0.125);
  g_assert_cmpuint (g_strv_length (mean), ==, 30);
  for (guint i = 0; i < 30; i++)
    g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_values (map)[i],
                                    g_ascii_strtod (mean[i], NULL), 1e-12);
  hs_attention_map_unref (map);

  map = hs_attention_map_load_npy (sentence_path, NULL, NAN, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, 0);
  g_assert_cmpuint (hs_attention_map_get_height (map), ==, 7);
  g_assert_cmpuint (hs_attention_map_get_width (map), ==, 3);
  for (guint i = 0; i < 21; i++)
    g_assert_cmpfloat (hs_attention_map_peek_values (map)[i], ==, g_ascii_strtod (sent[i], NULL));
  hs_attention_map_unref (map);

  /* tokens that do not match the map */
  map = hs_attention_map_load_npy (tokens_path, three_tokens, NAN, &error);
  g_assert_null (map);
  assert_error (error, HS_MAP_ERROR_SHAPE, tokens_path, "4 token maps but 3 tokens");
  g_clear_error (&error);
  map = hs_attention_map_load_npy (sentence_path, three_tokens, NAN, &error);
  g_assert_null (map);
  assert_error (error, HS_MAP_ERROR_SHAPE, sentence_path, NULL);
  g_clear_error (&error);

  /* non-finite cells: the first one is named */
  map = hs_attention_map_load_npy (nan_path, NULL, NAN, &error);
  g_assert_null (map);
  assert_error (error, HS_MAP_ERROR_NON_FINITE, nan_path, "(token 1, row 2, col 3) is NaN");
  g_clear_error (&error);
  map = hs_attention_map_load_npy (inf_path, NULL, NAN, &error);
  g_assert_null (map);
  assert_error (error, HS_MAP_ERROR_NON_FINITE, inf_path, "(row 3, col 1) is -Inf");
  g_clear_error (&error);

  /* wrong number of dimensions, no tokens */
  map = hs_attention_map_load_npy (flat_path, NULL, NAN, &error);
  g_assert_null (map);
  assert_error (error, HS_MAP_ERROR_SHAPE, flat_path, NULL);
  g_clear_error (&error);
  map = hs_attention_map_load_npy (four_path, NULL, NAN, &error);
  g_assert_null (map);
  assert_error (error, HS_MAP_ERROR_SHAPE, four_path, NULL);
  g_clear_error (&error);
  map = hs_attention_map_load_npy (empty_path, NULL, NAN, &error);
  g_assert_null (map);
  assert_error (error, HS_MAP_ERROR_SHAPE, empty_path, NULL);
  g_clear_error (&error);
}

static void
test_limits (void)
{
  double v[2 * 3 * 4] = { 0 };
  HsLimits limits = *hs_limits_get ();
  g_autoptr(GError) error = NULL;
  HsAttentionMap *map;

  limits.max_grid_cells = 11;
  hs_limits_set (&limits);
  map = hs_attention_map_new (0, 3, 4, v, &error);
  g_assert_null (map);
  g_assert_error (error, HS_MAP_ERROR, HS_MAP_ERROR_TOO_LARGE);
  g_clear_error (&error);
  limits.max_grid_cells = 12;
  limits.max_tokens = 1;
  hs_limits_set (&limits);
  map = hs_attention_map_new (2, 3, 4, v, &error);
  g_assert_null (map);
  g_assert_error (error, HS_MAP_ERROR, HS_MAP_ERROR_TOO_LARGE);
  g_clear_error (&error);
  hs_limits_reset ();
  map = hs_attention_map_new (2, 3, 4, v, &error);
  g_assert_no_error (error);
  hs_attention_map_unref (map);
  map = hs_attention_map_new (0, 0, 4, v, &error);
  g_assert_null (map);
  g_assert_error (error, HS_MAP_ERROR, HS_MAP_ERROR_SHAPE);
}

/* A − B, worked by hand: on the same grid cell by cell (the sentence map
 * of a per-token map), on another grid after B is resampled bilinearly
 * with half-pixel centres and edge clamp, and an overflow refused. */
static void
test_difference (void)
{
  static const double a[] = { 1, 2, 3, 4, 5, 6 };
  static const double b[] = { 6, 5, 4, 3, 2, 1 };
  static const double expected[] = { -5, -3, -1, 1, 3, 5 };
  /* two tokens whose mean is a */
  static const double a_tokens[] = { 0, 2, 2, 4, 4, 6,   2, 2, 4, 4, 6, 6 };
  static const double row[] = { 1, 1, 1, 1 };
  static const double ramp[] = { 0, 1 };
  /* 1 − ramp at x = (i + 0.5)·2/4 − 0.5 = −0.25, 0.25, 0.75, 1.25 (clamped to 0 … 1) */
  static const double row_minus_ramp[] = { 1, 0.75, 0.25, 0 };
  static const double huge[] = { 1e308 };
  static const double minus_huge[] = { -1e308 };
  g_autoptr(HsAttentionMap) ma = NULL;
  g_autoptr(HsAttentionMap) mb = NULL;
  g_autoptr(HsAttentionMap) mt = NULL;
  g_autoptr(HsAttentionMap) d = NULL;
  g_autoptr(GError) error = NULL;
  double m = -1;

  ma = hs_attention_map_new (0, 2, 3, a, &error);
  mb = hs_attention_map_new (0, 2, 3, b, &error);
  mt = hs_attention_map_new (2, 2, 3, a_tokens, &error);
  g_assert_no_error (error);
  d = hs_attention_map_difference (ma, mb, &m, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_width (d), ==, 3);
  g_assert_cmpuint (hs_attention_map_get_height (d), ==, 2);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (d), ==, 0);
  g_assert_cmpmem (hs_attention_map_peek_values (d), sizeof expected, expected, sizeof expected);
  g_assert_cmpfloat (m, ==, 5);
  g_clear_pointer (&d, hs_attention_map_unref);
  d = hs_attention_map_difference (mt, mb, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (hs_attention_map_peek_values (d), sizeof expected, expected, sizeof expected);
  g_clear_pointer (&d, hs_attention_map_unref);
  g_clear_pointer (&ma, hs_attention_map_unref);
  g_clear_pointer (&mb, hs_attention_map_unref);

  /* A is 1 × 4, B 1 × 2: B is read on A's grid. */
  ma = hs_attention_map_new (0, 1, 4, row, &error);
  mb = hs_attention_map_new (0, 1, 2, ramp, &error);
  g_assert_no_error (error);
  d = hs_attention_map_difference (ma, mb, &m, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_width (d), ==, 4);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_values (d)[i], row_minus_ramp[i], 1e-12);
  g_assert_cmpfloat_with_epsilon (m, 1, 1e-12);
  g_clear_pointer (&d, hs_attention_map_unref);
  g_clear_pointer (&ma, hs_attention_map_unref);
  g_clear_pointer (&mb, hs_attention_map_unref);

  /* 1e308 − (−1e308) is not a double: an error, `max_abs` untouched. */
  ma = hs_attention_map_new (0, 1, 1, huge, &error);
  mb = hs_attention_map_new (0, 1, 1, minus_huge, &error);
  g_assert_no_error (error);
  m = -1;
  d = hs_attention_map_difference (ma, mb, &m, &error);
  g_assert_null (d);
  g_assert_error (error, HS_MAP_ERROR, HS_MAP_ERROR_NON_FINITE);
  g_assert_cmpfloat (m, ==, -1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/attention-map/new", test_new);
  g_test_add_func ("/hs/attention-map/load-npy", test_load_npy);
  g_test_add_func ("/hs/attention-map/limits", test_limits);
  g_test_add_func ("/hs/attention-map/difference", test_difference);
  return g_test_run ();
}
