/* test-cli-perturb.c — heatscope-cli metrics --perturb: delta columns,
 * hand-computed deltas, missing perturbed maps */
#include <heatscope/heatscope.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

#define W 40
#define H 30

static char *dataset_dir;

static void
write_png (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_new (W, H, 1, 8, &error);
  guint16 *data = hs_image_get_data (image);

  for (guint i = 0; i < W * H; i++)
    data[i] = i % 200;
  g_assert_true (hs_image_save_png (image, path, &error));
  g_assert_no_error (error);
}

static void
write_map (const char *dir, const char *name, double a, double b)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  const double values[2] = { a, b };
  gsize shape[2] = { 1, 2 };

  g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT64, 2, shape, values, FALSE, FALSE, NULL));
}

/* p0: a 40 × 30 image; "left lung" = the image's right half (x ≥ 20),
 * "right lung" the left half.  s1 "Opacity in the left lung." has map [0, 1]
 * (1 × 2 grid); s2 "The right lung is clear." has map [1, 0]; the swap of s1
 * has a precomputed map [1, 0]; the swap of s2 has none. */
static char *
make_dataset (void)
{
  char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "cli perturb");
  g_autoptr(GError) error = NULL;
  HsInstance *p0 = hs_instance_new ("p0", "p0.png");
  HsRegion *region;
  HsSentence *sentence;
  HsMapRef *ref;
  const char *left[] = { "left lung", NULL };

  write_png (dir, "p0.png");
  region = hs_region_new ("left lung");
  hs_region_add_box (region, 20, 0, 40, 30);
  hs_instance_add_region (p0, region);
  region = hs_region_new ("right lung");
  hs_region_add_box (region, 0, 0, 20, 30);
  hs_instance_add_region (p0, region);
  sentence = hs_sentence_new ("s1", "Opacity in the left lung.");
  hs_sentence_add_target (sentence, "left lung");
  hs_sentence_add_label (sentence, hs_label_new ("lung opacity", "positive", left));
  hs_instance_add_sentence (p0, sentence);
  sentence = hs_sentence_new ("s2", "The right lung is clear.");
  hs_sentence_add_target (sentence, "right lung");
  hs_instance_add_sentence (p0, sentence);
  write_map (dir, "m-s1.npy", 0, 1);
  write_map (dir, "m-s2.npy", 1, 0);
  write_map (dir, "m-s1-swapped.npy", 1, 0);
  hs_instance_add_map (p0, hs_map_ref_new ("m", "s1", "m-s1.npy"));
  hs_instance_add_map (p0, hs_map_ref_new ("m", "s2", "m-s2.npy"));
  ref = hs_map_ref_new ("m", NULL, "m-s1-swapped.npy");
  hs_map_ref_set_prompt (ref, "Opacity in the right lung.");
  hs_instance_add_map (p0, ref);
  hs_dataset_add_instance (dataset, p0);
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  return dir;
}

static int
run (const char * const *args, char **out, char **err)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;

  g_strv_builder_add (builder, dataset_dir);
  g_strv_builder_addv (builder, (const char **) args);
  argv = g_strv_builder_end (builder);
  return hs_test_run_cli ("metrics", (const char * const *) argv, out, err);
}

/* Parses the jsonl rows; returns the row of `query`. */
static JsonObject *
row_of (GPtrArray *parsers, const char *out, const char *query)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      JsonParser *parser;
      JsonObject *row;

      if (lines[i][0] == '\0')
        continue;
      parser = json_parser_new ();
      g_ptr_array_add (parsers, parser);
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      row = json_node_get_object (json_parser_get_root (parser));
      if (g_strcmp0 (json_object_get_string_member (row, "query"), query) == 0)
        return row;
    }
  g_assert_not_reached ();
  return NULL;
}

static double
value (JsonObject *row, const char *key)
{
  JsonNode *node = json_object_get_member (row, key);

  g_assert_nonnull (node);
  return JSON_NODE_HOLDS_NULL (node) ? NAN : json_node_get_double (node);
}

/* By hand, bilinear upsampling of [0, 1] over 40 columns gives column x the
 * value clamp((x − 9.5)/20, 0, 1): columns 20..39 (the target) hold
 * 10·0.75 + 10·1 = 17.5 of a total 20 per row → mass_in_target 0.875; the
 * mirrored map [1, 0] gives 2.5/20 = 0.125: Δ = −0.75.  Every target value is
 * ≥ 0.525 > 0.475 ≥ every other value: auroc 1 → 0 (Δ −1); the first maximum
 * moves from column 30 (in G) to column 0: pointing_hit Δ −1.  sym_kl of the
 * grids (0, 1) and (1, 0), floored at ε = 1e−12 and renormalised:
 * 2·(1 − 2ε')·ln(1/ε), ε' = ε/(1 + ε). */
static void
check_swap_like_deltas (JsonObject *row)
{
  double eps = 1e-12 / (1 + 1e-12);

  g_assert_cmpfloat_with_epsilon (value (row, "auroc"), 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (row, "mass_in_target"), 0.875, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (row, "delta_mass_in_target"), -0.75, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (row, "delta_auroc"), -1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (row, "delta_pointing_hit"), -1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (row, "sym_kl"), 2 * (1 - 2 * eps) * log (1e12), 1e-9);
}

static void
test_swap (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GPtrArray) parsers = g_ptr_array_new_with_free_func (g_object_unref);
  JsonObject *row;
  guint n_metrics;
  const HsMetric *metrics = hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n_metrics);

  g_assert_cmpint (run ((const char *[]) { "--format", "jsonl", "--perturb", "swap-left-right",
                                           "--jobs", "1", NULL }, &out, &err), ==, 0);
  row = row_of (parsers, out, "s1");
  check_swap_like_deltas (row);
  /* swap_response by hand: the target (x ≥ 20) is the patient's left, t = +1.
   * Per row the map [0, 1] puts 2.5 on the image's left half (columns 10..19
   * hold 0.5/20 … 9.5/20) and 17.5 on its right half: l_A = (17.5 − 2.5)/20
   * = 0.75; the swapped map [1, 0] mirrors it: l_B = −0.75.  swap_response =
   * (0.75 − (−0.75))/2 = 0.75: the map followed the swapped words.  The
   * original map keeps its wrong_side (0); the swapped one has none, so no
   * delta_wrong_side. */
  g_assert_cmpfloat_with_epsilon (value (row, "swap_response"), 0.75, 1e-12);
  g_assert_cmpfloat (value (row, "wrong_side"), ==, 0.0);
  g_assert_true (isnan (value (row, "delta_wrong_side")));
  /* Every metric has its delta. */
  for (guint m = 0; m < n_metrics; m++)
    {
      g_autofree char *key = g_strdup_printf ("delta_%s", hs_metric_get_name (metrics[m]));
      g_assert_true (json_object_has_member (row, key));
    }

  /* s2's swap ("The left lung is clear.") has no precomputed map: the row
   * keeps its metrics, the deltas are null, stderr names prompt, model and
   * instance. */
  row = row_of (parsers, out, "s2");
  g_assert_false (isnan (value (row, "auroc")));
  g_assert_true (isnan (value (row, "delta_auroc")));
  g_assert_true (isnan (value (row, "sym_kl")));
  g_assert_true (isnan (value (row, "swap_response")));
  g_assert_nonnull (strstr (err, "no precomputed map for prompt 'The left lung is clear.' of model m "
                                 "in instance p0"));
}

static void
test_shuffle_and_boxes (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *out2 = NULL, *err2 = NULL;
  g_autofree char *out3 = NULL, *err3 = NULL;
  g_autoptr(GPtrArray) parsers = g_ptr_array_new_with_free_func (g_object_unref);
  JsonObject *row;

  /* s1's only other sentence is s2, whose map is [1, 0]: the same deltas as the swap. */
  g_assert_cmpint (run ((const char *[]) { "--format", "jsonl", "--perturb", "shuffle-in-report",
                                           NULL }, &out, &err), ==, 0);
  check_swap_like_deltas (row_of (parsers, out, "s1"));

  /* random-boxes keeps the map: sym_kl 0; reproducible with a seed. */
  g_assert_cmpint (run ((const char *[]) { "--format", "jsonl", "--perturb", "random-boxes",
                                           "--perturb-seed", "7", NULL }, &out2, &err2), ==, 0);
  row = row_of (parsers, out2, "s1");
  g_assert_cmpfloat (value (row, "sym_kl"), ==, 0.0);
  g_assert_false (isnan (value (row, "delta_auroc")));
  g_assert_cmpint (run ((const char *[]) { "--format", "jsonl", "--perturb", "random-boxes",
                                           "--perturb-seed", "7", "--jobs", "2", NULL }, &out3, &err3), ==, 0);
  g_assert_cmpstr (out2, ==, out3);
}

static void
test_csv_and_usage (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_cmpint (run ((const char *[]) { "--perturb", "synthetic-swapped-condition", NULL },
                        &out, &err), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "instance,query,model,subsets,auroc,"));
  g_assert_true (g_str_has_suffix (lines[0], ",sym_kl"));
  g_assert_nonnull (strstr (lines[0], ",delta_auroc,"));
  /* Only one condition in the dataset: synthetic does not apply, said on stderr. */
  g_assert_nonnull (strstr (err, "synthetic-swapped-condition does not apply"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_nonnull (strstr (lines[0], ",delta_wrong_side,"));
  g_clear_pointer (&lines, g_strfreev);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  /* swap-left-right: swap_response is the last column; s1's row ends with it. */
  g_assert_cmpint (run ((const char *[]) { "--perturb", "swap-left-right", NULL }, &out, &err), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  g_assert_true (g_str_has_suffix (lines[0], ",sym_kl,swap_response"));
  g_assert_true (g_str_has_prefix (lines[1], "p0,s1,m,"));
  g_assert_true (g_str_has_suffix (lines[1], ",0.75"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run ((const char *[]) { "--perturb", "swap", NULL }, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "swap-left-right"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  dataset_dir = make_dataset ();
  g_test_add_func ("/hs/cli-perturb/swap", test_swap);
  g_test_add_func ("/hs/cli-perturb/shuffle-and-boxes", test_shuffle_and_boxes);
  g_test_add_func ("/hs/cli-perturb/csv-and-usage", test_csv_and_usage);
  return g_test_run ();
}
