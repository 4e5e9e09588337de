/* test-cli-demo.c — heatscope-cli demo end to end */
#include <heatscope/heatscope.h>
#include <heatscope/hs-phantom.h>
#include <heatscope/hs-mri-lesions.h>
#include <json-glib/json-glib.h>

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
    g_assert_cmpuint (g_strv_length (models), ==, 3);
    g_assert_cmpstr (models[0], ==, "coattn-sim");
    g_assert_cmpstr (models[1], ==, "sim-blind");
    g_assert_cmpstr (models[2], ==, "sim-grounded");
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

/* --jobs N makes instances on N threads: the same files, byte for byte,
 * manifest included, for any N — with the simulated maps and with the
 * built-in models (their image features are cached per worker). */
static void
test_jobs_deterministic (void)
{
  const char *sim[3][12] = {
    { "--count", "5", "--seed", "9", "--size", "64", "--simulated-maps", "--jobs", "1", NULL },
    { "--count", "5", "--seed", "9", "--size", "64", "--simulated-maps", "--jobs", "2", NULL },
    { "--count", "5", "--seed", "9", "--size", "64", "--simulated-maps", "--jobs", "3", NULL },
  };
  const char *models[3][12] = {
    { "--count", "4", "--seed", "9", "--size", "96", "--maps", "models", "--jobs", "1", NULL },
    { "--count", "4", "--seed", "9", "--size", "96", "--maps", "models", "--jobs", "2", NULL },
    { "--count", "4", "--seed", "9", "--size", "96", "--maps", "models", "--jobs", "3", NULL },
  };
  const char *mri[2][12] = {
    { "--kind", "mri-lesions", "--count", "4", "--seed", "3", "--size", "128", "--jobs", "1", NULL },
    { "--kind", "mri-lesions", "--count", "4", "--seed", "3", "--size", "128", "--jobs", "3", NULL },
  };
  g_autofree char *sim_1 = run_demo (sim[0], 0);
  g_autofree char *mri_1 = run_demo (mri[0], 0);
  g_autofree char *mri_3 = run_demo (mri[1], 0);

  for (guint j = 1; j < 3; j++)
    {
      g_autofree char *other = run_demo (sim[j], 0);
      /* 5 images, the manifest, masks and 2 maps per sentence at least */
      g_assert_cmpuint (compare_trees (sim_1, other), >=, 5 + 1 + 5 * 4);
      g_assert_cmpuint (compare_trees (other, sim_1), >=, 5 + 1 + 5 * 4);
    }
  g_assert_cmpuint (compare_trees (mri_1, mri_3), >=, 4 * 5);
  g_assert_cmpuint (compare_trees (mri_3, mri_1), >=, 4 * 5);
  {
    g_autofree char *weights = g_build_filename (hs_test_source_dir (), "data", "models",
                                                 "grounded.safetensors", NULL);
    if (!g_file_test (weights, G_FILE_TEST_EXISTS))
      {
        g_test_message ("no built-in model weights: --maps models not compared");
        return;
      }
  }
  {
    g_autofree char *models_1 = run_demo (models[0], 0);
    for (guint j = 1; j < 3; j++)
      {
        g_autofree char *other = run_demo (models[j], 0);
        g_assert_cmpuint (compare_trees (models_1, other), >=, 4 + 1 + 4 * 4);
        g_assert_cmpuint (compare_trees (other, models_1), >=, 4 + 1 + 4 * 4);
      }
  }
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

/* ---- coattn-sim: the SIMULATED report generator with tag attention ---- */

static double
tag_weight (const HsMapRef *ref, const char *tag)
{
  for (guint i = 0; i < ref->n_tags; i++)
    if (strcmp (ref->tags[i].tag, tag) == 0)
      return ref->tags[i].weight;
  g_error ("map %s has no tag \"%s\"", ref->file, tag);
  return NAN;
}

/* The side ("left", "right") every location of a label names, or NULL. */
static const char *
label_side (const HsLabel *label)
{
  const char *side = NULL;

  for (guint l = 0; label->locations != NULL && label->locations[l] != NULL; l++)
    {
      const char *this = g_str_has_prefix (label->locations[l], "left ") ? "left"
                         : g_str_has_prefix (label->locations[l], "right ") ? "right" : NULL;
      if (this == NULL || (side != NULL && strcmp (side, this) != 0))
        return NULL;
      side = this;
    }
  return side;
}

/* The demo (here with simulated maps; builtin-models: also by default) has coattn-sim, its
 * description says SIMULATED, every sentence and swapped prompt has a map
 * with tag weights from the labels (the image's findings first, then two
 * other conditions, normal, left, right; multiples of 0.001 summing to 1),
 * a positive sentence weights its condition most, a one-sided sentence its
 * side, its swapped prompt the other side; `metrics` reports their entropy. */
static void
test_coattn_sim (void)
{
  const char *args[] = { "--count", "16", "--seed", "1", "--size", "96", "--simulated-maps", NULL };
  g_autofree char *out = run_demo (args, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (out, &error);
  g_autoptr(GPtrArray) problems = NULL;
  g_autofree char *csv = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  const char *metrics_args[] = { "--model", "coattn-sim", out, NULL };
  guint n_positive = 0, n_sided = 0, n_swapped = 0, n_rows = 0;

  g_assert_no_error (error);
  g_assert_true (hs_dataset_validate (out, &problems));
  g_assert_true (g_str_has_prefix (hs_dataset_get_model_description (dataset, "coattn-sim"),
                                   "SIMULATED report generator with co-attention"));
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      g_autoptr(GPtrArray) conditions = g_ptr_array_new ();
      const HsMapRef *first = NULL;

      for (guint f = 0; f < instance->findings->len; f++)
        {
          HsLabel *label = g_ptr_array_index (instance->findings, f);
          if (!g_ptr_array_find_with_equal_func (conditions, label->condition, g_str_equal, NULL))
            g_ptr_array_add (conditions, label->condition);
        }
      for (guint m = 0; m < instance->maps->len; m++)
        {
          HsMapRef *ref = g_ptr_array_index (instance->maps, m);
          guint sum = 0;

          if (strcmp (ref->model, "coattn-sim") != 0)
            {
              g_assert_cmpuint (ref->n_tags, ==, 0);
              continue;
            }
          /* the image's tags, the same list for every sentence */
          g_assert_cmpuint (ref->n_tags, ==, conditions->len + 2 + 3);
          for (guint t = 0; t < conditions->len; t++)
            g_assert_cmpstr (ref->tags[t].tag, ==, conditions->pdata[t]);
          g_assert_cmpstr (ref->tags[ref->n_tags - 3].tag, ==, "normal");
          g_assert_cmpstr (ref->tags[ref->n_tags - 2].tag, ==, "left");
          g_assert_cmpstr (ref->tags[ref->n_tags - 1].tag, ==, "right");
          if (first == NULL)
            first = ref;
          for (guint t = 0; t < ref->n_tags; t++)
            {
              double thousandths = ref->tags[t].weight * 1000;

              g_assert_cmpstr (ref->tags[t].tag, ==, first->tags[t].tag);
              g_assert_cmpfloat (fabs (thousandths - round (thousandths)), <, 1e-9);
              g_assert_cmpfloat (ref->tags[t].weight, >, 0);
              sum += (guint) round (thousandths);
            }
          g_assert_cmpuint (sum, ==, 1000);
        }
      for (guint s = 0; s < instance->sentences->len; s++)
        {
          HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
          HsMapRef *ref = hs_instance_find_map (instance, "coattn-sim", sentence->id);
          HsLabel *label = g_ptr_array_index (sentence->labels, 0);
          const char *side = label_side (label);
          g_autofree char *swapped = hs_text_swap_sides (sentence->text);
          HsMapRef *swapped_ref = hs_instance_find_map_by_prompt (instance, "coattn-sim", swapped);
          guint top = 0;

          g_assert_nonnull (ref);
          g_assert_cmpuint (ref->n_tags, >, 0);
          g_assert_nonnull (hs_instance_find_map (instance, "sim-grounded", sentence->id));
          for (guint t = 1; t < ref->n_tags; t++)
            if (ref->tags[t].weight > ref->tags[top].weight)
              top = t;
          if (strcmp (label->context, "positive") == 0 && strcmp (label->condition, "abnormality") != 0)
            {
              g_assert_cmpstr (ref->tags[top].tag, ==, label->condition);
              n_positive++;
            }
          else
            g_assert_cmpstr (ref->tags[top].tag, ==, "normal");
          if (side != NULL)
            {
              const char *other = strcmp (side, "left") == 0 ? "right" : "left";

              g_assert_cmpfloat (tag_weight (ref, side), >, tag_weight (ref, other));
              n_sided++;
              if (swapped_ref != NULL && swapped_ref != ref)
                {
                  g_assert_nonnull (swapped_ref->tags);
                  g_assert_cmpfloat (tag_weight (swapped_ref, other), >, tag_weight (swapped_ref, side));
                  n_swapped++;
                }
            }
        }
    }
  g_test_message ("coattn-sim: %u positive, %u one-sided sentences, %u swapped prompts",
                  n_positive, n_sided, n_swapped);
  g_assert_cmpuint (n_positive, >=, 5);
  g_assert_cmpuint (n_sided, >=, 5);
  g_assert_cmpuint (n_swapped, >=, 3);

  /* metrics: the tag columns hold hs_tag_attention_entropy of each map */
  g_assert_cmpint (hs_test_run_cli ("metrics", metrics_args, &csv, &err), ==, 0);
  lines = g_strsplit (csv, "\n", -1);
  g_assert_true (g_str_has_suffix (lines[0], ",tag_entropy,tag_entropy_norm"));
  for (guint l = 1; lines[l] != NULL && lines[l][0] != '\0'; l++)
    {
      g_auto(GStrv) cells = g_strsplit (lines[l], ",", -1);
      guint n = g_strv_length (cells);
      HsInstance *instance = hs_dataset_find_instance (dataset, cells[0]);
      HsMapRef *ref = hs_instance_find_map (instance, "coattn-sim", cells[1]);
      double norm;
      double h = hs_tag_attention_entropy (ref->tags, ref->n_tags, &norm, NULL);
      g_autofree char *h_text = hs_metric_format (h);
      g_autofree char *norm_text = hs_metric_format (norm);

      g_assert_cmpstr (cells[n - 2], ==, h_text);
      g_assert_cmpstr (cells[n - 1], ==, norm_text);
      g_assert_cmpfloat (norm, >, 0.3);
      g_assert_cmpfloat (norm, <, 0.95);
      n_rows++;
    }
  g_assert_cmpuint (n_rows, >, 16);
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
  /* coattn-sim comes with the default --maps auto (and simulated) */
  g_assert_cmpuint (g_strv_length (names), ==, 4);
  g_assert_cmpstr (names[0], ==, "blind");
  g_assert_cmpstr (names[1], ==, "coattn-sim");
  g_assert_cmpstr (names[2], ==, "grounded");
  g_assert_cmpstr (names[3], ==, "noattn");
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

/* ---- --kind mri-lesions ---- */

/* The instance's lesion masks: count, disjoint, their union the class
 * region's mask and exactly the pixels where `image` differs from
 * `background` (both 16-bit, the instance's size). */
static void
check_lesion_masks (HsDataset *dataset, HsInstance *instance, const guint16 *background,
                    const guint16 *image)
{
  const char *klass = hs_instance_get_metadata (instance, "class");
  g_autofree char *query = g_strdup_printf ("class:%s", klass);
  HsSentence *sentence = hs_instance_find_sentence (instance, query);
  gsize n = (gsize) instance->width * instance->height;
  g_autofree guint8 *owners = g_malloc0 (n);
  g_autoptr(HsImage) union_mask = NULL;
  g_autoptr(GError) error = NULL;
  guint n_lesions = 0;

  g_assert_nonnull (sentence);
  g_assert_cmpstr (sentence->text, ==, klass);
  g_assert_cmpstr (sentence->targets[0], ==, klass);
  g_assert_null (sentence->targets[1]);
  for (guint k = 1; k <= 8; k++)
    {
      g_autofree char *name = g_strdup_printf ("lesion %u", k);
      HsRegion *region = hs_instance_find_region (instance, name);
      g_autoptr(HsImage) mask = NULL;
      const guint16 *m;

      if (region == NULL)
        break;
      n_lesions++;
      mask = hs_dataset_load_mask (dataset, region, &error);
      g_assert_no_error (error);
      m = hs_image_peek_data (mask);
      for (gsize p = 0; p < n; p++)
        if (m[p])
          owners[p]++;
    }
  g_assert_cmpuint (n_lesions, >=, 3);
  g_assert_cmpuint (n_lesions, <=, 5);
  union_mask = hs_dataset_load_mask (dataset, hs_instance_find_region (instance, klass), &error);
  g_assert_no_error (error);
  for (gsize p = 0; p < n; p++)
    {
      g_assert_cmpuint (owners[p], <=, 1);
      g_assert_cmpuint (owners[p] == 1, ==, image[p] != background[p]);
      g_assert_cmpuint (owners[p] == 1, ==, hs_image_peek_data (union_mask)[p] != 0);
    }
}

static void
test_mri_phantoms (void)
{
  const char *args[] = { "--kind", "mri-lesions", "--count", "4", "--seed", "5", "--size", "128", NULL };
  g_autofree char *out = run_demo (args, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (out, &error);
  g_autoptr(GPtrArray) problems = NULL;
  g_auto(GStrv) models = NULL;

  g_assert_no_error (error);
  g_assert_true (hs_dataset_validate (out, &problems));
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 4);
  models = hs_dataset_list_models (dataset);
  g_assert_cmpuint (g_strv_length (models), ==, 3);
  g_assert_cmpstr (models[0], ==, "null-laplace");
  g_assert_cmpstr (models[1], ==, "null-random");
  g_assert_cmpstr (models[2], ==, "null-sobel");
  for (guint i = 0; i < 4; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      g_autoptr(HsImage) image = hs_dataset_load_image (dataset, instance, &error);
      g_autofree guint16 *background = hs_mri_phantom_render (5, i, 128, 128, NULL, &error);

      g_assert_no_error (error);
      /* classes alternate with seed + index */
      g_assert_cmpstr (hs_instance_get_metadata (instance, "class"), ==,
                       (5 + i) % 2 ? "irregular" : "regular");
      g_assert_cmpuint (hs_image_get_bit_depth (image), ==, 16);
      check_lesion_masks (dataset, instance, background, hs_image_peek_data (image));
    }
}

typedef struct {
  guint  index;
  double value;
} Ranked;

static int
rank_desc (const void *a, const void *b)
{
  const Ranked *x = a, *y = b;

  if (x->value != y->value)
    return x->value > y->value ? -1 : 1;
  return x->index < y->index ? -1 : 1;
}

/* explanation_precision of metrics.md, written out again: the |G| pixels
 * with the largest |s|, ties in row-major order, and the share inside G. */
static double
explanation_precision (const double *s, const guint16 *g, guint n)
{
  g_autofree Ranked *r = g_new (Ranked, n);
  guint size = 0, hits = 0;

  for (guint i = 0; i < n; i++)
    {
      r[i] = (Ranked) { i, fabs (s[i]) };
      size += g[i] != 0;
    }
  qsort (r, n, sizeof *r, rank_desc);
  for (guint i = 0; i < size; i++)
    hits += g[r[i].index] != 0;
  return (double) hits / size;
}

static void
test_mri_metrics_baselines (void)
{
  const char *args[] = { "--kind", "mri-lesions", "--count", "3", "--seed", "2", "--size", "128", NULL };
  g_autofree char *out = run_demo (args, 0);
  const char *margs[] = { "--format", "jsonl", out, NULL };
  g_autofree char *text = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (out, &error);
  g_auto(GStrv) lines = NULL;
  guint rows = 0;

  g_assert_no_error (error);
  g_assert_cmpint (hs_test_run_cli ("metrics", margs, &text, &err), ==, 0);
  lines = g_strsplit (text, "\n", -1);
  for (guint l = 0; lines[l] != NULL && lines[l][0] != '\0'; l++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *row;
      const char *model;
      HsInstance *instance;
      double got;

      g_assert_true (json_parser_load_from_data (parser, lines[l], -1, NULL));
      row = json_node_get_object (json_parser_get_root (parser));
      model = json_object_get_string_member (row, "model");
      instance = hs_dataset_find_instance (dataset, json_object_get_string_member (row, "instance"));
      g_assert_nonnull (instance);
      got = json_object_get_double_member (row, "explanation_precision");
      g_assert_cmpfloat (got, >=, 0.0);
      g_assert_cmpfloat (got, <=, 1.0);
      rows++;
      /* the edge baselines are on the image's grid: scored here again */
      if (strcmp (model, "null-sobel") == 0 || strcmp (model, "null-laplace") == 0)
        {
          const char *klass = hs_instance_get_metadata (instance, "class");
          g_autofree char *query = g_strdup_printf ("class:%s", klass);
          HsMapRef *ref = hs_instance_find_map (instance, model, query);
          g_autoptr(HsAttentionMap) map = hs_dataset_load_map (dataset, ref, &error);
          g_autoptr(HsImage) mask = hs_dataset_load_mask (dataset, hs_instance_find_region (instance, klass), &error);

          g_assert_no_error (error);
          g_assert_cmpuint (hs_attention_map_get_width (map), ==, 128);
          g_assert_cmpfloat_with_epsilon (got, explanation_precision (hs_attention_map_peek_values (map),
                                                                      hs_image_peek_data (mask), 128 * 128), 1e-12);
        }
    }
  g_assert_cmpuint (rows, ==, 9);
}

static void
test_mri_deterministic (void)
{
  const char *a3[] = { "--kind", "mri-lesions", "--count", "3", "--seed", "3", "--size", "128", NULL };
  const char *a4[] = { "--kind", "mri-lesions", "--count", "3", "--seed", "4", "--size", "128", NULL };
  g_autofree char *first = run_demo (a3, 0);
  g_autofree char *second = run_demo (a3, 0);
  g_autofree char *other = run_demo (a4, 0);
  g_autofree char *img1 = g_build_filename (first, "images", "mri-000000.png", NULL);
  g_autofree char *img2 = g_build_filename (other, "images", "mri-000000.png", NULL);
  g_autofree char *c1 = NULL, *c2 = NULL;
  gsize l1, l2;

  /* images, masks, maps and manifest, byte for byte */
  g_assert_cmpuint (compare_trees (first, second), >, 3 * 5);
  g_assert_true (g_file_get_contents (img1, &c1, &l1, NULL));
  g_assert_true (g_file_get_contents (img2, &c2, &l2, NULL));
  g_assert_true (l1 != l2 || memcmp (c1, c2, l1) != 0);
}

static void
test_mri_background (void)
{
  g_autofree char *slices = hs_test_shared_path ("mri-brain-tumor");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autofree char *out = NULL;
  GHashTable *seen;

  if (slices == NULL)
    return;
  {
    const char *args[] = { "--kind", "mri-lesions", "--count", "4", "--seed", "7",
                           "--background", slices, NULL };
    out = run_demo (args, 0);
  }
  dataset = hs_dataset_load (out, &error);
  g_assert_no_error (error);
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < 4; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      const char *source = hs_instance_get_metadata (instance, "background");
      g_autoptr(HsImage) image = hs_dataset_load_image (dataset, instance, &error);
      g_autoptr(HsImage) slice = hs_image_load (source, &error);
      g_autoptr(HsImage) grey = NULL;
      g_autofree guint16 *background = NULL;
      guint max;
      gsize n;

      g_assert_no_error (error);
      g_assert_true (g_str_has_prefix (source, slices));
      g_assert_false (g_hash_table_contains (seen, source));   /* a shuffle, not a draw */
      g_hash_table_add (seen, (gpointer) source);
      g_assert_false (instance->phantom);
      g_assert_cmpuint (instance->width, ==, hs_image_get_width (slice));
      g_assert_cmpuint (instance->height, ==, hs_image_get_height (slice));
      /* the slice's samples on 16 bits, as documented */
      grey = hs_image_to_grey (slice);
      max = hs_image_get_max_value (grey);
      n = (gsize) instance->width * instance->height;
      background = g_new (guint16, n);
      for (gsize p = 0; p < n; p++)
        background[p] = (guint16) floor (hs_image_peek_data (grey)[p] * 65535.0 / max + 0.5);
      check_lesion_masks (dataset, instance, background, hs_image_peek_data (image));
    }
  g_hash_table_unref (seen);
}

/* A bad --background fails with one line naming the folder or file. */
static void
expect_background_error (const char *background, const char *names)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  const char *argv[] = { hs_test_cli (), "demo", "--kind", "mri-lesions", "--count", "2",
                         "--background", background, out, NULL };
  g_autofree char *o = NULL, *e = NULL;
  int status = -1;

  g_assert_true (hs_test_run (argv, &o, &e, &status));
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (e, names));
  /* exactly one line */
  g_assert_true (strchr (e, '\n') == e + strlen (e) - 1);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

static void
test_mri_bad_background (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autofree char *empty = g_build_filename (dir, "empty", NULL);
  g_autofree char *text = g_build_filename (dir, "text", NULL);
  g_autofree char *tiny = g_build_filename (dir, "tiny", NULL);
  g_autofree char *tiny_png = g_build_filename (tiny, "a.png", NULL);
  g_autoptr(HsImage) small = hs_image_new (20, 20, 1, 8, NULL);

  expect_background_error (missing, missing);
  hs_test_write_file (empty, "notes.txt", "not a slice\n");
  expect_background_error (empty, empty);
  hs_test_write_file (text, "slice.png", "this is text, not a PNG\n");
  expect_background_error (text, "slice.png");
  g_assert_true (g_mkdir_with_parents (tiny, 0755) == 0);
  g_assert_true (hs_image_save_png (small, tiny_png, NULL));
  expect_background_error (tiny, "a.png");
  {
    /* usage errors: exit 2 with the reason */
    const char *cases[][9] = {
      { "--kind", "mri-lesions", "--lesion-intensity", "1", dir, NULL },
      { "--kind", "mri-lesions", "--min-lesions", "4", "--max-lesions", "2", dir, NULL },
      { "--kind", "mri-lesions", "--background", tiny, "--size", "128", dir, NULL },
      { "--kind", "mri-lesions", "--maps", "simulated", dir, NULL },
      { "--kind", "ct", dir, NULL },
      { "--background", tiny, dir, NULL },
    };
    const char *reasons[] = { "w = 1", "min ≤ max", "own size", "--maps=simulated", "--kind ct",
                              "mri-lesions only" };

    for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        g_autofree char *o = NULL, *e = NULL;
        g_assert_cmpint (hs_test_run_cli ("demo", cases[c], &o, &e), ==, 2);
        g_assert_nonnull (strstr (e, reasons[c]));
      }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/cli-demo/subsets-and-swaps", test_subsets_and_swaps);
  g_test_add_func ("/hs/cli-demo/deterministic", test_deterministic);
  g_test_add_func ("/hs/cli-demo/jobs-deterministic", test_jobs_deterministic);
  g_test_add_func ("/hs/cli-demo/no-maps", test_no_maps);
  g_test_add_func ("/hs/cli-demo/usage-errors", test_usage_errors);
  g_test_add_func ("/hs/cli-demo/builtin-models", test_builtin_models);
  g_test_add_func ("/hs/cli-demo/coattn-sim", test_coattn_sim);
  g_test_add_func ("/hs/cli-demo/mri-phantoms", test_mri_phantoms);
  g_test_add_func ("/hs/cli-demo/mri-metrics-baselines", test_mri_metrics_baselines);
  g_test_add_func ("/hs/cli-demo/mri-deterministic", test_mri_deterministic);
  g_test_add_func ("/hs/cli-demo/mri-background", test_mri_background);
  g_test_add_func ("/hs/cli-demo/mri-bad-background", test_mri_bad_background);
  return g_test_run ();
}
