/* test-perturb.c — the five perturbations, seeding, map lookup, deltas */
#include <heatscope/heatscope.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

static char *tmpdir;

static HsLabel *
positive (const char *condition, const char *location)
{
  const char *locations[] = { location, NULL };
  return hs_label_new (condition, "positive", locations);
}

static HsSentence *
sentence_new (const char *id, const char *text, const char *target1, const char *target2,
              HsLabel *label)
{
  HsSentence *sentence = hs_sentence_new (id, text);

  if (target1 != NULL)
    hs_sentence_add_target (sentence, target1);
  if (target2 != NULL)
    hs_sentence_add_target (sentence, target2);
  if (label != NULL)
    hs_sentence_add_label (sentence, label);
  return sentence;
}

static void
write_map (const char *name, guint h, guint w, const double *values)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  gsize shape[2] = { h, w };

  g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT64, 2, shape, values, FALSE, FALSE, NULL));
}

/* i1: a 100 × 80 image with a report of three sentences and a class query;
 * i2: two positive sentences; i3: a finding only; i4: a one-sentence report;
 * i5: a 4 × 2 image for hand-computed deltas. */
static HsDataset *
make_dataset (void)
{
  HsDataset *dataset = hs_dataset_new (tmpdir, "perturb-test");
  HsInstance *i1 = hs_instance_new ("i1", "i1.png");
  HsInstance *i2 = hs_instance_new ("i2", "i2.png");
  HsInstance *i3 = hs_instance_new ("i3", "i3.png");
  HsInstance *i4 = hs_instance_new ("i4", "i4.png");
  HsInstance *i5 = hs_instance_new ("i5", "i5.png");
  HsRegion *region;
  HsSentence *cls;
  HsMapRef *ref;

  i1->width = 100;
  i1->height = 80;
  region = hs_region_new ("left lung");
  hs_region_add_box (region, 50, 10, 90, 70);
  hs_instance_add_region (i1, region);
  region = hs_region_new ("right lung");
  hs_region_add_box (region, 10, 10, 45, 70);
  hs_instance_add_region (i1, region);
  region = hs_region_new ("nodule");
  hs_region_add_box (region, 60, 20, 70.5, 30);
  hs_instance_add_region (i1, region);
  hs_instance_add_sentence (i1, sentence_new ("s1", "There is a nodule in the left lung.",
                                              "left lung", "nodule", positive ("nodule", "left lung")));
  hs_instance_add_sentence (i1, sentence_new ("s2", "The right lung is clear.", "right lung", NULL, NULL));
  hs_instance_add_sentence (i1, sentence_new ("s3", "No pneumothorax.", NULL, NULL, NULL));
  hs_instance_add_sentence (i1, sentence_new ("s4", "No pneumothorax.", NULL, NULL, NULL));
  region = hs_region_new ("lesion");
  hs_region_set_mask (region, "lesion.png");
  hs_instance_add_region (i1, region);
  hs_instance_add_sentence (i1, sentence_new ("s5", "A lesion.", "lesion", NULL, NULL));
  cls = sentence_new ("c1", "nodule", "nodule", NULL, NULL);
  hs_sentence_set_kind (cls, "class");
  hs_instance_add_sentence (i1, cls);
  hs_instance_add_map (i1, hs_map_ref_new ("m", "s1", "m-s1.npy"));
  hs_instance_add_map (i1, hs_map_ref_new ("m", "s2", "m-s2.npy"));
  ref = hs_map_ref_new ("m", NULL, "m-swapped.npy");
  hs_map_ref_set_prompt (ref, "There is a nodule in the right lung.");
  hs_instance_add_map (i1, ref);

  hs_instance_add_sentence (i2, sentence_new ("s1", "There is a mass in the left lung.", NULL, NULL,
                                              positive ("mass", "left lung")));
  hs_instance_add_sentence (i2, sentence_new ("s2", "There is pleural effusion in the right costophrenic angle.",
                                              NULL, NULL, positive ("pleural effusion", "right costophrenic angle")));
  hs_instance_add_finding (i3, positive ("consolidation", "Left Lung"));
  hs_instance_add_finding (i3, hs_label_new ("atelectasis", "negative",
                                             (const char *[]) { "left lung", NULL }));
  hs_instance_add_sentence (i4, sentence_new ("s1", "Heart size is normal.", NULL, NULL, NULL));

  i5->width = 4;
  i5->height = 2;
  region = hs_region_new ("image left");
  hs_region_add_box (region, 2, 0, 4, 2);
  hs_instance_add_region (i5, region);
  hs_instance_add_sentence (i5, sentence_new ("s1", "Opacity on the left.", "image left", NULL, NULL));

  hs_dataset_add_instance (dataset, i1);
  hs_dataset_add_instance (dataset, i2);
  hs_dataset_add_instance (dataset, i3);
  hs_dataset_add_instance (dataset, i4);
  hs_dataset_add_instance (dataset, i5);
  return dataset;
}

typedef struct {
  HsDataset        *dataset;
  HsPerturbContext *context;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->dataset = make_dataset ();
  f->context = hs_perturb_context_new (f->dataset);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  hs_perturb_context_free (f->context);
  hs_dataset_unref (f->dataset);
}

static HsPerturbed *
perturb (Fixture *f, const char *instance_id, const char *sentence_id, HsPerturbation p,
         HsProtocol protocol, guint64 seed, GError **error)
{
  HsInstance *instance = hs_dataset_find_instance (f->dataset, instance_id);
  HsSentence *sentence = hs_instance_find_sentence (instance, sentence_id);

  return hs_perturb (f->context, instance, sentence, p, protocol, seed, error);
}

static void
test_names (void)
{
  const char *names[] = { "swap-left-right", "shuffle-in-report", "random-sentence",
                          "random-boxes", "synthetic-swapped-condition" };
  HsPerturbation p;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_assert_true (hs_perturbation_from_string (names[i], &p));
      g_assert_cmpint (p, ==, i);
      g_assert_cmpstr (hs_perturbation_to_string (p), ==, names[i]);
    }
  g_assert_false (hs_perturbation_from_string ("swap", &p));
  g_assert_false (hs_perturbation_from_string (NULL, &p));
  g_assert_true (hs_perturbation_is_target (HS_PERTURB_RANDOM_BOXES));
  g_assert_false (hs_perturbation_is_target (HS_PERTURB_SWAP_LEFT_RIGHT));
}

static void
test_swap (Fixture *f, gconstpointer data)
{
  HsInstance *i1 = hs_dataset_find_instance (f->dataset, "i1");
  HsSentence *s = hs_sentence_new ("x", "Bright spot, Left > RIGHT; lt base.");
  g_autoptr(HsPerturbed) a = hs_perturb (f->context, i1, s, HS_PERTURB_SWAP_LEFT_RIGHT,
                                         HS_PROTOCOL_DEFAULT, 1, NULL);
  g_autoptr(HsPerturbed) b = hs_perturb (f->context, i1, s, HS_PERTURB_SWAP_LEFT_RIGHT,
                                         HS_PROTOCOL_GLORIA, 1, NULL);
  g_autoptr(HsPerturbed) c = perturb (f, "i1", "s3", HS_PERTURB_SWAP_LEFT_RIGHT,
                                      HS_PROTOCOL_DEFAULT, 1, NULL);

  g_assert_cmpstr (a->prompt, ==, "Bright spot, Right > LEFT; rt base.");
  g_assert_false (a->unchanged);
  g_assert_null (a->regions);
  g_assert_cmpstr (b->prompt, ==, "bleft spot, right > left; lt base.");
  g_assert_cmpstr (c->prompt, ==, "No pneumothorax.");
  g_assert_true (c->unchanged);
  hs_sentence_free (s);
}

static void
test_shuffle (Fixture *f, gconstpointer data)
{
  gboolean seen_s2 = FALSE, seen_s3 = FALSE;
  GError *error = NULL;

  for (guint64 seed = 0; seed < 64; seed++)
    {
      g_autoptr(HsPerturbed) p = perturb (f, "i1", "s1", HS_PERTURB_SHUFFLE_IN_REPORT,
                                          HS_PROTOCOL_DEFAULT, seed, NULL);
      g_autoptr(HsPerturbed) again = perturb (f, "i1", "s1", HS_PERTURB_SHUFFLE_IN_REPORT,
                                              HS_PROTOCOL_DEFAULT, seed, NULL);
      g_autoptr(HsPerturbed) from_s3 = perturb (f, "i1", "s3", HS_PERTURB_SHUFFLE_IN_REPORT,
                                                HS_PROTOCOL_DEFAULT, seed, NULL);

      g_assert_nonnull (p);
      g_assert_cmpstr (p->source_query, ==, again->source_query);
      /* Never itself, never the class query. */
      g_assert_true (g_strcmp0 (p->source_query, "s2") == 0 || g_strcmp0 (p->source_query, "s3") == 0 ||
                     g_strcmp0 (p->source_query, "s4") == 0 || g_strcmp0 (p->source_query, "s5") == 0);
      seen_s2 |= g_strcmp0 (p->source_query, "s2") == 0;
      seen_s3 |= g_strcmp0 (p->source_query, "s3") == 0;
      g_assert_cmpstr (p->prompt, ==,
                       hs_instance_find_sentence (hs_dataset_find_instance (f->dataset, "i1"),
                                                  p->source_query)->text);
      /* s3 and s4 have the same text: s3 never gets s4's. */
      g_assert_true (g_strcmp0 (from_s3->source_query, "s1") == 0 ||
                     g_strcmp0 (from_s3->source_query, "s2") == 0 ||
                     g_strcmp0 (from_s3->source_query, "s5") == 0);
    }
  g_assert_true (seen_s2 && seen_s3);

  g_assert_null (perturb (f, "i4", "s1", HS_PERTURB_SHUFFLE_IN_REPORT, HS_PROTOCOL_DEFAULT, 1, &error));
  g_assert_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_NOT_APPLICABLE);
  g_assert_nonnull (strstr (error->message, "i4"));
  g_clear_error (&error);
}

static void
test_random_sentence (Fixture *f, gconstpointer data)
{
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint64 seed = 0; seed < 200; seed++)
    {
      g_autoptr(HsPerturbed) p = perturb (f, "i1", "s1", HS_PERTURB_RANDOM_SENTENCE,
                                          HS_PROTOCOL_DEFAULT, seed, NULL);
      g_autoptr(HsPerturbed) again = perturb (f, "i1", "s1", HS_PERTURB_RANDOM_SENTENCE,
                                              HS_PROTOCOL_DEFAULT, seed, NULL);
      HsInstance *source;

      g_assert_nonnull (p);
      g_assert_cmpstr (p->prompt, ==, again->prompt);
      g_assert_cmpstr (p->source_instance, !=, "i1");
      source = hs_dataset_find_instance (f->dataset, p->source_instance);
      g_assert_cmpstr (hs_instance_find_sentence (source, p->source_query)->text, ==, p->prompt);
      g_hash_table_add (seen, g_strdup_printf ("%s/%s", p->source_instance, p->source_query));
    }
  /* The report sentences of the other instances: i2/s1, i2/s2, i4/s1, i5/s1. */
  g_assert_cmpuint (g_hash_table_size (seen), ==, 4);
  g_assert_true (g_hash_table_contains (seen, "i2/s2"));
  g_assert_true (g_hash_table_contains (seen, "i5/s1"));
  g_hash_table_unref (seen);
}

static void
test_random_boxes (Fixture *f, gconstpointer data)
{
  g_autoptr(HsPerturbed) p = perturb (f, "i1", "s1", HS_PERTURB_RANDOM_BOXES, HS_PROTOCOL_DEFAULT, 5, NULL);
  g_autoptr(HsPerturbed) again = perturb (f, "i1", "s1", HS_PERTURB_RANDOM_BOXES, HS_PROTOCOL_DEFAULT, 5, NULL);
  g_autoptr(HsPerturbed) other = perturb (f, "i1", "s1", HS_PERTURB_RANDOM_BOXES, HS_PROTOCOL_DEFAULT, 6, NULL);
  const double sizes[2][2] = { { 40, 60 }, { 10.5, 10 } };
  GError *error = NULL;

  g_assert_nonnull (p);
  g_assert_null (p->prompt);
  g_assert_cmpuint (p->regions->len, ==, 2);
  for (guint r = 0; r < 2; r++)
    {
      HsRegion *region = g_ptr_array_index (p->regions, r);
      HsBox box = g_array_index (region->boxes, HsBox, 0);
      HsBox same = g_array_index (((HsRegion *) g_ptr_array_index (again->regions, r))->boxes, HsBox, 0);
      HsBox diff = g_array_index (((HsRegion *) g_ptr_array_index (other->regions, r))->boxes, HsBox, 0);

      g_assert_cmpuint (region->boxes->len, ==, 1);
      g_assert_cmpfloat_with_epsilon (box.x2 - box.x1, sizes[r][0], 1e-9);
      g_assert_cmpfloat_with_epsilon (box.y2 - box.y1, sizes[r][1], 1e-9);
      g_assert_cmpfloat (box.x1, >=, 0);
      g_assert_cmpfloat (box.y1, >=, 0);
      g_assert_cmpfloat (box.x2, <=, 100);
      g_assert_cmpfloat (box.y2, <=, 80);
      g_assert_cmpfloat (box.x1, ==, same.x1);
      g_assert_cmpfloat (box.y1, ==, same.y1);
      g_assert_true (box.x1 != diff.x1 || box.y1 != diff.y1);
    }
  /* A mask region counts as its bounding box: mask pixels x 2..3, y 1..2 of
   * a 10 × 8 mask on the 100 × 80 image = [20, 10, 40, 30], 20 × 20. */
  {
    g_autoptr(HsPerturbed) m = perturb (f, "i1", "s5", HS_PERTURB_RANDOM_BOXES, HS_PROTOCOL_DEFAULT, 2, &error);
    HsBox box;

    g_assert_no_error (error);
    box = g_array_index (((HsRegion *) g_ptr_array_index (m->regions, 0))->boxes, HsBox, 0);
    g_assert_cmpfloat_with_epsilon (box.x2 - box.x1, 20, 1e-9);
    g_assert_cmpfloat_with_epsilon (box.y2 - box.y1, 20, 1e-9);
    g_assert_cmpfloat (box.x2, <=, 100);
    g_assert_cmpfloat (box.y2, <=, 80);
  }
  g_assert_null (perturb (f, "i1", "s3", HS_PERTURB_RANDOM_BOXES, HS_PROTOCOL_DEFAULT, 1, &error));
  g_assert_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_NOT_APPLICABLE);
  g_clear_error (&error);

  /* Positions spread over the whole range of x1 ∈ [0, 60] for the 40-wide box. */
  {
    double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;

    for (guint64 seed = 0; seed < 300; seed++)
      {
        g_autoptr(HsPerturbed) q = perturb (f, "i1", "s1", HS_PERTURB_RANDOM_BOXES,
                                            HS_PROTOCOL_DEFAULT, seed, NULL);
        HsBox box = g_array_index (((HsRegion *) g_ptr_array_index (q->regions, 0))->boxes, HsBox, 0);

        lo = MIN (lo, box.x1);
        hi = MAX (hi, box.x1);
      }
    g_assert_cmpfloat (lo, <, 3);
    g_assert_cmpfloat (hi, >, 57);
  }
}

static void
test_synthetic (Fixture *f, gconstpointer data)
{
  gboolean seen_mass = FALSE, seen_consolidation = FALSE;
  GError *error = NULL;

  for (guint64 seed = 0; seed < 64; seed++)
    {
      g_autoptr(HsPerturbed) p = perturb (f, "i1", "s1", HS_PERTURB_SYNTHETIC_SWAPPED_CONDITION,
                                          HS_PROTOCOL_DEFAULT, seed, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (p->original_prompt, ==, "There is a nodule in the left lung.");
      /* Seen at the left lung: mass (i2 sentence) and consolidation (i3
       * finding, "Left Lung"); not pleural effusion (elsewhere), not
       * atelectasis (negative). */
      if (g_strcmp0 (p->condition, "mass") == 0)
        {
          g_assert_cmpstr (p->prompt, ==, "There is a mass in the left lung.");
          seen_mass = TRUE;
        }
      else
        {
          g_assert_cmpstr (p->condition, ==, "consolidation");
          g_assert_cmpstr (p->prompt, ==, "There is consolidation in the left lung.");
          seen_consolidation = TRUE;
        }
    }
  g_assert_true (seen_mass && seen_consolidation);

  /* i2/s2: pleural effusion at the right costophrenic angle, nothing else there. */
  g_assert_null (perturb (f, "i2", "s2", HS_PERTURB_SYNTHETIC_SWAPPED_CONDITION,
                          HS_PROTOCOL_DEFAULT, 1, &error));
  g_assert_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_NOT_APPLICABLE);
  g_clear_error (&error);
  g_assert_null (perturb (f, "i1", "s2", HS_PERTURB_SYNTHETIC_SWAPPED_CONDITION,
                          HS_PROTOCOL_DEFAULT, 1, &error));
  g_assert_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_NOT_APPLICABLE);
  g_clear_error (&error);
}

static void
test_find_map (Fixture *f, gconstpointer data)
{
  HsInstance *i1 = hs_dataset_find_instance (f->dataset, "i1");
  HsSentence *s1 = hs_instance_find_sentence (i1, "s1");
  g_autoptr(HsPerturbed) swap = hs_perturb (f->context, i1, s1, HS_PERTURB_SWAP_LEFT_RIGHT,
                                            HS_PROTOCOL_DEFAULT, 0, NULL);
  g_autoptr(HsPerturbed) gloria = hs_perturb (f->context, i1, s1, HS_PERTURB_SWAP_LEFT_RIGHT,
                                              HS_PROTOCOL_GLORIA, 0, NULL);
  g_autoptr(HsPerturbed) boxes = hs_perturb (f->context, i1, s1, HS_PERTURB_RANDOM_BOXES,
                                             HS_PROTOCOL_DEFAULT, 0, NULL);
  g_autoptr(HsPerturbed) shuffle = NULL;
  GError *error = NULL;
  HsMapRef *ref;

  ref = hs_perturbed_find_map (f->context, i1, s1, swap, "m", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ref->file, ==, "m-swapped.npy");
  ref = hs_perturbed_find_map (f->context, i1, s1, boxes, "m", &error);
  g_assert_cmpstr (ref->file, ==, "m-s1.npy");

  /* Lower-cased gloria prompt: not precomputed. */
  g_assert_null (hs_perturbed_find_map (f->context, i1, s1, gloria, "m", &error));
  g_assert_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_MISSING_MAP);
  g_assert_cmpstr (error->message, ==, "no precomputed map for prompt 'there is a nodule in the "
                   "right lung.' of model m in instance i1");
  g_clear_error (&error);
  g_assert_null (hs_perturbed_find_map (f->context, i1, s1, swap, "other", &error));
  g_assert_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_MISSING_MAP);
  g_clear_error (&error);

  /* Shuffle to s2: s2's own map. */
  for (guint64 seed = 0; shuffle == NULL || g_strcmp0 (shuffle->source_query, "s2") != 0; seed++)
    {
      g_clear_pointer (&shuffle, hs_perturbed_free);
      shuffle = hs_perturb (f->context, i1, s1, HS_PERTURB_SHUFFLE_IN_REPORT, HS_PROTOCOL_DEFAULT,
                            seed, NULL);
      g_assert_cmpuint (seed, <, 1000);
    }
  ref = hs_perturbed_find_map (f->context, i1, s1, shuffle, "m", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ref->file, ==, "m-s2.npy");
}

/* i5: a 4 × 2 image, target = image columns 2..3.  Original map [0, 1]
 * (1 × 2), upsampled bilinear to 0, 0.25, 0.75, 1 per row; perturbed [1, 0]
 * to 1, 0.75, 0.25, 0.  By hand: mass_in_target 1.75/2 = 0.875 → 0.25/2 =
 * 0.125 (Δ −0.75); auroc 1 → 0 (Δ −1); pointing_hit 1 → 0 (Δ −1); sym_kl of
 * p = (0, 1), q = (1, 0) floored at ε = 1e−12 and renormalised:
 * 2·(1 − 2ε')·ln(1/ε) with ε' = ε/(1 + ε). */
static void
test_compare (Fixture *f, gconstpointer data)
{
  HsInstance *i5 = hs_dataset_find_instance (f->dataset, "i5");
  HsSentence *s1 = hs_instance_find_sentence (i5, "s1");
  g_autoptr(HsPerturbed) swap = hs_perturb (f->context, i5, s1, HS_PERTURB_SWAP_LEFT_RIGHT,
                                            HS_PROTOCOL_DEFAULT, 0, NULL);
  const double v_original[2] = { 0, 1 }, v_perturbed[2] = { 1, 0 };
  g_autoptr(HsAttentionMap) original = hs_attention_map_new (0, 1, 2, v_original, NULL);
  g_autoptr(HsAttentionMap) perturbed = hs_attention_map_new (0, 1, 2, v_perturbed, NULL);
  g_autoptr(HsTarget) target = NULL;
  g_autoptr(GError) error = NULL;
  HsScoreOptions options;
  HsEvalGrid grid;
  HsComparison cmp;
  double eps = 1e-12 / (1 + 1e-12);

  g_assert_cmpstr (swap->prompt, ==, "Opacity on the right.");
  hs_score_options_init (&options);
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, 4, 2, 0, &error));
  target = hs_perturbed_build_target (f->context, i5, s1, swap, &grid, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_target_get_count (target), ==, 4);
  g_assert_true (hs_perturb_compare (f->context, i5, s1, swap, original, perturbed, target,
                                     &options, &cmp, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (cmp.delta[HS_METRIC_MASS_IN_TARGET], -0.75, 1e-12);
  g_assert_cmpfloat_with_epsilon (cmp.delta[HS_METRIC_AUROC], -1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (cmp.delta[HS_METRIC_POINTING_HIT], -1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (cmp.sym_kl, 2 * (1 - 2 * eps) * log (1e12), 1e-9);
  /* The target (4 pixels, the image's right half) is the patient's left,
   * t = +1; per row the original puts 0 + 0.25 on the image's left half and
   * 0.75 + 1 on its right: laterality (1.75 − 0.25)/2 = 0.75, the swapped map
   * −0.75: swap_response = (0.75 + 0.75)/2 = 0.75.  wrong_side is not
   * scored for the swapped map. */
  g_assert_cmpfloat_with_epsilon (cmp.original.value[HS_METRIC_LATERALITY], 0.75, 1e-12);
  g_assert_cmpfloat_with_epsilon (cmp.swap_response, 0.75, 1e-12);
  g_assert_null (cmp.swap_response_reason);
  g_assert_cmpfloat (cmp.original.value[HS_METRIC_WRONG_SIDE], ==, 0);
  g_assert_true (isnan (cmp.perturbed.value[HS_METRIC_WRONG_SIDE]));
  g_assert_nonnull (cmp.perturbed.reason[HS_METRIC_WRONG_SIDE]);
  g_assert_true (isnan (cmp.delta[HS_METRIC_WRONG_SIDE]));

  /* random-boxes: one map, two targets; Δ = replacement − original, sym_kl 0. */
  {
    HsInstance *i1 = hs_dataset_find_instance (f->dataset, "i1");
    HsSentence *s = hs_instance_find_sentence (i1, "s1");
    g_autoptr(HsPerturbed) boxes = hs_perturb (f->context, i1, s, HS_PERTURB_RANDOM_BOXES,
                                               HS_PROTOCOL_DEFAULT, 3, NULL);
    g_autoptr(HsAttentionMap) map = NULL;
    double v[80];
    g_autoptr(HsTarget) orig_target = NULL;
    g_autoptr(HsTarget) new_target = NULL;
    HsEvalGrid g1;
    HsScores a, b;

    for (guint k = 0; k < 80; k++)
      v[k] = (k * 37 % 80) / 80.0;
    map = hs_attention_map_new (0, 8, 10, v, NULL);
    g_assert_true (hs_eval_grid_init (&g1, HS_PROTOCOL_DEFAULT, 100, 80, 0, &error));
    orig_target = hs_perturbed_build_target (f->context, i1, s, NULL, &g1, &error);
    new_target = hs_target_new (&g1);
    for (guint r = 0; r < boxes->regions->len; r++)
      {
        HsRegion *region = g_ptr_array_index (boxes->regions, r);
        g_assert_true (hs_target_add_boxes (new_target, (HsBox *) region->boxes->data,
                                            region->boxes->len, &error));
      }
    g_assert_true (hs_score_map (map, orig_target, &options, &a, &error));
    g_assert_true (hs_score_map (map, new_target, &options, &b, &error));
    g_assert_true (hs_perturb_compare (f->context, i1, s, boxes, map, NULL, orig_target,
                                       &options, &cmp, &error));
    g_assert_no_error (error);
    g_assert_cmpfloat (cmp.sym_kl, ==, 0.0);
    g_assert_cmpfloat (cmp.delta[HS_METRIC_AUROC], ==, b.value[HS_METRIC_AUROC] - a.value[HS_METRIC_AUROC]);
    g_assert_cmpfloat (cmp.delta[HS_METRIC_MASS_IN_TARGET], ==,
                       b.value[HS_METRIC_MASS_IN_TARGET] - a.value[HS_METRIC_MASS_IN_TARGET]);
    g_assert_true (isnan (cmp.delta[HS_METRIC_NO_ATTN]));
    g_assert_true (isnan (cmp.swap_response));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmpdir = hs_test_make_tmpdir ();
  {
    const double one[2] = { 0, 1 };
    write_map ("m-s1.npy", 1, 2, one);
    write_map ("m-s2.npy", 1, 2, one);
    write_map ("m-swapped.npy", 1, 2, one);
  }
  {
    g_autofree char *path = g_build_filename (tmpdir, "lesion.png", NULL);
    g_autoptr(HsImage) mask = hs_image_new (10, 8, 1, 8, NULL);
    guint16 *data = hs_image_get_data (mask);

    memset (data, 0, 10 * 8 * sizeof (guint16));
    data[1 * 10 + 2] = data[1 * 10 + 3] = data[2 * 10 + 2] = data[2 * 10 + 3] = 255;
    g_assert_true (hs_image_save_png (mask, path, NULL));
  }
  g_test_add_func ("/hs/perturb/names", test_names);
#define ADD(path, fn) g_test_add ("/hs/perturb/" path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("swap", test_swap);
  ADD ("shuffle-in-report", test_shuffle);
  ADD ("random-sentence", test_random_sentence);
  ADD ("random-boxes", test_random_boxes);
  ADD ("synthetic-swapped-condition", test_synthetic);
  ADD ("find-map", test_find_map);
  ADD ("compare", test_compare);
  return g_test_run ();
}
