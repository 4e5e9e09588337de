/* test-cli-demo.c — heatscope-cli demo end to end */
#include <heatscope/heatscope.h>
#include <heatscope/hs-phantom.h>

#include "hs-test-util.h"

#include <math.h>
#include <string.h>

static char *
run_demo (const char *const *extra, int expected_status)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  char *out = g_build_filename (dir, "demo", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *stdout_text = NULL, *stderr_text = NULL;
  int status = -1;

  g_ptr_array_add (argv, (gpointer) hs_test_cli ());
  g_ptr_array_add (argv, "demo");
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, out);
  g_ptr_array_add (argv, NULL);
  g_assert_true (hs_test_run ((const char *const *) argv->pdata, &stdout_text, &stderr_text, &status));
  if (status != expected_status)
    g_printerr ("demo exited %d: %s\n", status, stderr_text);
  g_assert_cmpint (status, ==, expected_status);
  return out;
}

/* Every file below `a` exists below `b` with the same bytes (and the
 * same number of files). */
static guint
compare_trees (const char *a, const char *b)
{
  g_autoptr(GDir) dir = g_dir_open (a, 0, NULL);
  const char *name;
  guint n = 0, n_b = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *pa = g_build_filename (a, name, NULL);
      g_autofree char *pb = g_build_filename (b, name, NULL);

      if (g_file_test (pa, G_FILE_TEST_IS_DIR))
        n += compare_trees (pa, pb);
      else
        {
          g_autofree char *ca = NULL, *cb = NULL;
          gsize la = 0, lb = 0;

          g_assert_true (g_file_get_contents (pa, &ca, &la, NULL));
          if (!g_file_get_contents (pb, &cb, &lb, NULL))
            g_error ("%s is missing from the second run", pb);
          if (la != lb || memcmp (ca, cb, la) != 0)
            g_error ("%s differs between two runs with the same seed", name);
          n++;
        }
    }
  {
    g_autoptr(GDir) other = g_dir_open (b, 0, NULL);
    while ((name = g_dir_read_name (other)) != NULL)
      {
        g_autofree char *pb = g_build_filename (b, name, NULL);
        if (!g_file_test (pb, G_FILE_TEST_IS_DIR))
          n_b++;
      }
  }
  {
    g_autoptr(GDir) again = g_dir_open (a, 0, NULL);
    guint n_a = 0;
    while ((name = g_dir_read_name (again)) != NULL)
      {
        g_autofree char *pa = g_build_filename (a, name, NULL);
        if (!g_file_test (pa, G_FILE_TEST_IS_DIR))
          n_a++;
      }
    g_assert_cmpuint (n_a, ==, n_b);
  }
  return n;
}

static void
test_subsets_and_swaps (void)
{
  const char *args[] = { "--count", "60", "--seed", "1", "--size", "96", "--simulated-maps", NULL };
  g_autofree char *out = run_demo (args, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (out, &error);
  g_autoptr(GPtrArray) problems = NULL;
  guint n_abnormal = 0, n_one_lung = 0, n_mdrb = 0, n_sentences = 0, n_normal = 0, n_swapped = 0;

  g_assert_no_error (error);
  g_assert_nonnull (dataset);
  g_assert_true (hs_dataset_validate (out, &problems));
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 60);
  {
    g_auto(GStrv) models = hs_dataset_list_models (dataset);
    g_assert_cmpuint (g_strv_length (models), ==, 2);
    g_assert_cmpstr (models[0], ==, "sim-blind");
    g_assert_cmpstr (models[1], ==, "sim-grounded");
  }
  for (guint i = 0; i < 60; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      if (!instance->abnormal)
        n_normal++;
      g_assert_nonnull (hs_instance_find_region (instance, "left costophrenic angle"));
      g_assert_nonnull (hs_instance_find_region (instance, "cardiac silhouette"));
      for (guint s = 0; s < instance->sentences->len; s++)
        {
          HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
          guint subsets = hs_dataset_get_subsets (dataset, instance, sentence);

          n_sentences++;
          n_abnormal += (subsets & HS_SUBSET_ABNORMAL) != 0;
          n_mdrb += (subsets & HS_SUBSET_MDRB) != 0;
          g_assert_nonnull (hs_instance_find_map (instance, "sim-grounded", sentence->id));
          g_assert_nonnull (hs_instance_find_map (instance, "sim-blind", sentence->id));
          if (subsets & HS_SUBSET_ONE_LUNG)
            {
              g_autofree char *swapped = hs_text_swap_sides (sentence->text);
              n_one_lung++;
              if (strcmp (swapped, sentence->text) != 0
                  && hs_instance_find_map_by_prompt (instance, "sim-grounded", swapped) != NULL)
                {
                  HsMapRef *ref = hs_instance_find_map_by_prompt (instance, "sim-grounded", swapped);
                  g_autoptr(HsAttentionMap) map = hs_dataset_load_map (dataset, ref, &error);
                  g_assert_no_error (error);
                  g_assert_cmpuint (hs_attention_map_get_width (map), ==, 16);
                  n_swapped++;
                }
            }
        }
    }
  g_test_message ("%u sentences: %u abnormal, %u one-lung (%u with swapped maps), %u mdrb; %u normal images",
                  n_sentences, n_abnormal, n_one_lung, n_swapped, n_mdrb, n_normal);
  g_assert_cmpuint (n_abnormal, >, 0);
  g_assert_cmpuint (n_one_lung, >=, 30);
  g_assert_cmpuint (n_mdrb, >, 0);
  g_assert_cmpuint (n_swapped, >=, n_one_lung / 2);
  /* about 35 % normal images */
  g_assert_cmpuint (n_normal, >=, 8);
  g_assert_cmpuint (n_normal, <=, 35);
}

static void
test_deterministic (void)
{
  const char *args[] = { "--count", "4", "--seed", "7", "--width", "96", "--height", "120",
                         "--start", "3", "--simulated-maps", NULL };
  const char *other_seed[] = { "--count", "4", "--seed", "8", "--width", "96", "--height", "120",
                               "--start", "3", "--simulated-maps", NULL };
  g_autofree char *a = run_demo (args, 0);
  g_autofree char *b = run_demo (args, 0);
  g_autofree char *c = run_demo (other_seed, 0);
  g_autofree char *img_a = g_build_filename (a, "images", "phantom-000003.png", NULL);
  g_autofree char *img_c = g_build_filename (c, "images", "phantom-000003.png", NULL);
  g_autofree char *ca = NULL, *cc = NULL;
  gsize la, lc;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (compare_trees (a, b), >=, 4 + 1 + 4 * 4);
  /* a different seed gives a different image */
  g_assert_true (g_file_get_contents (img_a, &ca, &la, NULL));
  g_assert_true (g_file_get_contents (img_c, &cc, &lc, NULL));
  g_assert_true (la != lc || memcmp (ca, cc, la) != 0);
  /* 16-bit grey of the requested (non-square) size */
  image = hs_image_load (img_a, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_image_get_width (image), ==, 96);
  g_assert_cmpuint (hs_image_get_height (image), ==, 120);
  g_assert_cmpuint (hs_image_get_channels (image), ==, 1);
  g_assert_cmpuint (hs_image_get_bit_depth (image), ==, 16);
}

static void
test_no_maps (void)
{
  const char *args[] = { "--count", "2", "--size", "64", "--maps", "none", NULL };
  g_autofree char *out = run_demo (args, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (out, &error);
  g_auto(GStrv) models = NULL;

  g_assert_no_error (error);
  models = hs_dataset_list_models (dataset);
  g_assert_cmpuint (g_strv_length (models), ==, 0);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 2);
}

static void
test_usage_errors (void)
{
  const char *small[] = { "--size", "10", NULL };
  const char *grid[] = { "--grid", "0", NULL };
  const char *maps[] = { "--maps", "magic", NULL };
  const char *negative[] = { "--count", "-3", NULL };
  const char *conflict[] = { "--simulated-maps", "--maps", "none", NULL };
  const char *argv_none[] = { hs_test_cli (), "demo", NULL };
  const char *argv_two[] = { hs_test_cli (), "demo", "a", "b", NULL };
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *file = g_build_filename (tmp, "file", NULL);
  g_autofree char *below_file = g_build_filename (file, "out", NULL);
  const char *argv_bad_out[] = { hs_test_cli (), "demo", "--count", "1", "--size", "64",
                                 below_file, NULL };
  g_autofree char *o = NULL, *e = NULL;
  int status;

  g_free (run_demo (small, 2));
  g_free (run_demo (grid, 2));
  g_free (run_demo (maps, 2));
  g_free (run_demo (negative, 2));
  g_free (run_demo (conflict, 2));
  g_assert_true (hs_test_run (argv_none, NULL, NULL, &status));
  g_assert_cmpint (status, ==, 2);
  g_assert_true (hs_test_run (argv_two, NULL, NULL, &status));
  g_assert_cmpint (status, ==, 2);
  /* an output folder that cannot be created: exit 1, message names it */
  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  g_assert_true (hs_test_run (argv_bad_out, &o, &e, &status));
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (e, file));
}

/* With built-in model weights present, the default (--maps=auto) stores the
 * models' per-token maps instead of simulated ones.  Random-init weights
 * from tools/train-model keep this fast. */
static void
test_builtin_models (void)
{
  g_autofree char *models = hs_test_make_tmpdir ();
  g_autofree char *script = g_build_filename (hs_test_source_dir (), "tools", "train-model", NULL);
  g_autofree char *out_dir = hs_test_make_tmpdir ();
  g_autofree char *out = g_build_filename (out_dir, "demo", NULL);
  const char *variants[] = { "grounded", "blind", "noattn" };
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_auto(GStrv) names = NULL;
  g_autofree char *o = NULL, *e = NULL;
  int status = -1;

  /* two random-init files (torch is slow to import); grounded and blind
   * may share weights: the model's name comes from its file name */
  for (guint i = 1; i < G_N_ELEMENTS (variants); i++)
    {
      g_autofree char *file = g_strdup_printf ("%s/%s.safetensors", models, variants[i]);
      g_autofree char *o_py = NULL, *e_py = NULL;
      const char *argv[] = { "/usr/bin/python3", script, "--random-init", file, "--tiny",
                             i == 2 ? "--no-attn" : NULL, NULL };
      if (!hs_test_run (argv, &o_py, &e_py, &status) || status != 0)
        {
          g_test_skip ("tools/train-model --random-init is not usable here (python3-torch?)");
          return;
        }
    }
  {
    g_autofree char *blind = g_strdup_printf ("%s/blind.safetensors", models);
    g_autofree char *grounded = g_strdup_printf ("%s/grounded.safetensors", models);
    g_autofree char *bytes = NULL;
    gsize len;
    g_assert_true (g_file_get_contents (blind, &bytes, &len, NULL));
    g_assert_true (g_file_set_contents (grounded, bytes, len, NULL));
  }
  {
    const char *argv[] = { hs_test_cli (), "demo", "--count", "2", "--size", "96", out, NULL };
    g_setenv ("HEATSCOPE_MODELS_DIR", models, TRUE);
    g_assert_true (hs_test_run (argv, &o, &e, &status));
    g_unsetenv ("HEATSCOPE_MODELS_DIR");
    if (status != 0)
      g_printerr ("%s\n", e);
    g_assert_cmpint (status, ==, 0);
  }
  dataset = hs_dataset_load (out, &error);
  g_assert_no_error (error);
  names = hs_dataset_list_models (dataset);
  g_assert_cmpuint (g_strv_length (names), ==, 3);
  g_assert_cmpstr (names[0], ==, "blind");
  g_assert_cmpstr (names[1], ==, "grounded");
  g_assert_cmpstr (names[2], ==, "noattn");
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      for (guint s = 0; s < instance->sentences->len; s++)
        {
          HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
          HsMapRef *ref = hs_instance_find_map (instance, "noattn", sentence->id);
          g_autoptr(HsAttentionMap) map = NULL;

          g_assert_nonnull (ref);
          g_assert_nonnull (ref->tokens);
          g_assert_false (isnan (ref->no_attn));
          map = hs_dataset_load_map (dataset, ref, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, g_strv_length (ref->tokens));
          g_assert_nonnull (hs_instance_find_map (instance, "grounded", sentence->id));
          g_assert_null (hs_instance_find_map (instance, "sim-grounded", sentence->id));
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/cli-demo/subsets-and-swaps", test_subsets_and_swaps);
  g_test_add_func ("/hs/cli-demo/deterministic", test_deterministic);
  g_test_add_func ("/hs/cli-demo/no-maps", test_no_maps);
  g_test_add_func ("/hs/cli-demo/usage-errors", test_usage_errors);
  g_test_add_func ("/hs/cli-demo/builtin-models", test_builtin_models);
  return g_test_run ();
}
