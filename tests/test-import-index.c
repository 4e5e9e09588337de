/* test-import-index.c — the importers' look-ups by name (hs-import-index.c):
 * the hash indexes give the same answers as a search of the arrays, also
 * when items are appended or removed behind their back */
#include <heatscope/heatscope.h>

#include <math.h>
#include <string.h>

#include "hs-test-util.h"
/* Private to libheatscope; the test links the static library. */
#include "../src/core/hs-import-private.h"

static void
context_clear (HsImportContext *ctx)
{
  g_clear_pointer (&ctx->indexes, g_hash_table_unref);
}

static void
test_regions (void)
{
  HsImportContext ctx = { 0 };
  HsInstance *instance = hs_instance_new ("a", "a.png");
  HsRegion *lung, *other;
  g_autofree char *name2 = NULL, *name3 = NULL, *name_b = NULL;

  g_assert_null (hs_import_find_region (&ctx, instance, "lung"));
  lung = hs_import_get_region (&ctx, instance, "lung");
  g_assert_cmpstr (lung->name, ==, "lung");
  g_assert_true (hs_import_get_region (&ctx, instance, "lung") == lung);
  g_assert_cmpuint (instance->regions->len, ==, 1);

  /* Appended directly: the index catches up. */
  other = hs_region_new ("heart");
  hs_instance_add_region (instance, other);
  g_assert_true (hs_import_find_region (&ctx, instance, "heart") == other);
  g_assert_true (hs_import_get_region (&ctx, instance, "heart") == other);
  g_assert_cmpuint (instance->regions->len, ==, 2);

  /* Removed directly: positions moved, the index starts over. */
  g_ptr_array_remove_index (instance->regions, 0);
  g_assert_null (hs_import_find_region (&ctx, instance, "lung"));
  g_assert_true (hs_import_find_region (&ctx, instance, "heart") == other);
  hs_instance_add_region (instance, hs_region_new ("spine"));
  g_assert_nonnull (hs_import_find_region (&ctx, instance, "spine"));
  g_assert_cmpstr (hs_import_find_region (&ctx, instance, "spine")->name, ==, "spine");

  /* Unique names: "base", then "base 2", "base 3"; taken names are skipped. */
  hs_instance_add_region (instance, hs_region_new ("nodule 2"));
  name2 = hs_import_unique_region_name (&ctx, instance, "nodule");
  g_assert_cmpstr (name2, ==, "nodule");
  hs_import_get_region (&ctx, instance, name2);
  name3 = hs_import_unique_region_name (&ctx, instance, "nodule");
  g_assert_cmpstr (name3, ==, "nodule 3");
  hs_import_get_region (&ctx, instance, name3);
  name_b = hs_import_unique_region_name (&ctx, instance, "nodule");
  g_assert_cmpstr (name_b, ==, "nodule 4");

  context_clear (&ctx);
  hs_instance_free (instance);
}

static void
test_sentences_and_findings (void)
{
  HsImportContext ctx = { 0 };
  HsInstance *instance = hs_instance_new ("a", "a.png");
  HsSentence *s1 = hs_sentence_new ("q/1", "a nodule");
  HsSentence *s2 = hs_sentence_new ("q2", "a nodule");

  hs_instance_add_sentence (instance, s1);
  hs_instance_add_sentence (instance, s2);
  g_assert_true (hs_import_find_sentence (&ctx, instance, "q2") == s2);
  g_assert_null (hs_import_find_sentence (&ctx, instance, "q_1"));
  g_assert_true (hs_import_find_sentence_by_safe_id (&ctx, instance, "q_1") == s1);
  /* The first sentence of a text. */
  g_assert_true (hs_import_find_sentence_by_text (&ctx, instance, "a nodule") == s1);
  g_assert_null (hs_import_find_sentence_by_text (&ctx, instance, "no nodule"));

  hs_import_add_class_sentence (&ctx, instance, "lung");
  hs_import_add_class_sentence (&ctx, instance, "lung");
  g_assert_cmpuint (instance->sentences->len, ==, 3);
  g_assert_cmpstr (((HsSentence *) g_ptr_array_index (instance->sentences, 2))->id, ==, "class:lung");
  g_assert_cmpstr (((HsSentence *) g_ptr_array_index (instance->sentences, 2))->targets[0], ==, "lung");

  hs_import_add_finding (&ctx, instance, hs_label_new ("Nodule", "positive", NULL));
  hs_import_add_finding (&ctx, instance, hs_label_new ("Nodule", "negative", NULL));
  hs_import_add_finding (&ctx, instance, hs_label_new ("Mass", "positive", NULL));
  g_assert_cmpuint (instance->findings->len, ==, 2);
  g_assert_cmpstr (((HsLabel *) g_ptr_array_index (instance->findings, 0))->context, ==, "positive");

  context_clear (&ctx);
  hs_instance_free (instance);
}

static void
test_targets_and_labels (void)
{
  HsImportContext ctx = { 0 };
  HsSentence *sentence = hs_sentence_new ("s", "text");
  HsLabel *label;
  const char *expected[] = { "r0", "r1", "direct", "r2", NULL };

  /* Many targets, each once, mixed with appends the index did not make. */
  hs_import_add_target (&ctx, sentence, "r0");
  hs_import_add_target (&ctx, sentence, "r1");
  hs_import_add_target (&ctx, sentence, "r0");
  hs_sentence_add_target (sentence, "direct");
  hs_import_add_target (&ctx, sentence, "direct");
  hs_import_add_target (&ctx, sentence, "r2");
  hs_import_add_target (&ctx, sentence, "r1");
  g_assert_cmpstrv (sentence->targets, expected);
  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *name = g_strdup_printf ("t%u", i % 500);
      hs_import_add_target (&ctx, sentence, name);
    }
  g_assert_cmpuint (g_strv_length (sentence->targets), ==, 504);
  g_assert_cmpstr (sentence->targets[503], ==, "t499");
  g_assert_null (sentence->targets[504]);

  /* Labels by condition and context; locations once each. */
  g_assert_null (hs_import_find_label (&ctx, sentence, "Nodule", "positive"));
  hs_sentence_add_label (sentence, hs_label_new ("Nodule", "positive", NULL));
  hs_sentence_add_label (sentence, hs_label_new ("Nodule", "negative", NULL));
  label = hs_import_find_label (&ctx, sentence, "Nodule", "negative");
  g_assert_true (label == g_ptr_array_index (sentence->labels, 1));
  hs_import_add_location (&ctx, label, "left lung");
  hs_import_add_location (&ctx, label, "right lung");
  hs_import_add_location (&ctx, label, "left lung");
  g_assert_cmpuint (g_strv_length (label->locations), ==, 2);
  g_assert_cmpstr (label->locations[1], ==, "right lung");

  context_clear (&ctx);
  hs_sentence_free (sentence);
}

static void
test_boxes_and_maps (void)
{
  HsImportContext ctx = { 0 };
  HsInstance *instance = hs_instance_new ("a", "a.png");
  HsRegion *region = hs_region_new ("r");
  HsMapRef *ref;

  g_assert_true (hs_import_add_box (&ctx, region, 0, 0, 1, 1));
  g_assert_false (hs_import_add_box (&ctx, region, 0, 0, 1, 1));
  /* Equal only when every number is: 0.1 + 0.2 is not 0.3. */
  g_assert_true (hs_import_add_box (&ctx, region, 0, 0, 1, 0.1 + 0.2));
  g_assert_true (hs_import_add_box (&ctx, region, 0, 0, 1, 0.3));
  g_assert_cmpuint (region->boxes->len, ==, 3);
  hs_region_free (region);

  hs_import_set_map (&ctx, instance, hs_map_ref_new ("m", "q1", "a.npy"));
  hs_import_set_map (&ctx, instance, hs_map_ref_new ("m", "q2", "b.npy"));
  hs_import_set_map (&ctx, instance, hs_map_ref_new ("n", "q1", "c.npy"));
  /* A newer map of (m, q1) replaces the old one and comes last. */
  hs_import_set_map (&ctx, instance, hs_map_ref_new ("m", "q1", "d.npy"));
  g_assert_cmpuint (instance->maps->len, ==, 3);
  ref = g_ptr_array_index (instance->maps, 2);
  g_assert_cmpstr (ref->file, ==, "d.npy");
  /* ... and after the removal the index still finds every map. */
  hs_import_set_map (&ctx, instance, hs_map_ref_new ("n", "q1", "e.npy"));
  hs_import_set_map (&ctx, instance, hs_map_ref_new ("m", "q2", "f.npy"));
  g_assert_cmpuint (instance->maps->len, ==, 3);
  g_assert_cmpstr (((HsMapRef *) g_ptr_array_index (instance->maps, 0))->file, ==, "d.npy");
  g_assert_cmpstr (((HsMapRef *) g_ptr_array_index (instance->maps, 1))->file, ==, "e.npy");
  g_assert_cmpstr (((HsMapRef *) g_ptr_array_index (instance->maps, 2))->file, ==, "f.npy");

  context_clear (&ctx);
  hs_instance_free (instance);
}

/* hs_import_add_class_box: scaled from the source's frame, clipped to the
 * instance, one class query per region; nothing added for a box that
 * leaves nothing. */
static void
test_class_box (void)
{
  HsImportContext ctx = { 0 };
  HsInstance *instance = hs_instance_new ("a", "a.png");
  HsRegion *region;
  HsSentence *sentence;

  instance->width = 512;
  instance->height = 256;
  /* A 1024 × 1024 frame on a 512 × 256 copy: x halved, y quartered; the
   * right edge 1100 → 550 is clipped to 512. */
  g_assert_true (hs_import_add_class_box (&ctx, instance, "opacity", 100, 200, 1100, 600,
                                          1024, 1024));
  /* Normalised coordinates (YOLO): a 1 × 1 frame. */
  g_assert_true (hs_import_add_class_box (&ctx, instance, "opacity", 0.25, 0.5, 0.5, 0.75, 1, 1));
  /* Outside the image, empty, or not a number: nothing is added. */
  g_assert_false (hs_import_add_class_box (&ctx, instance, "opacity", 1100, 0, 1200, 10, 1024, 1024));
  g_assert_false (hs_import_add_class_box (&ctx, instance, "nodule", 10, 10, 10, 20, 512, 256));
  g_assert_false (hs_import_add_class_box (&ctx, instance, "nodule", NAN, 10, 20, 20, 512, 256));

  g_assert_cmpuint (instance->regions->len, ==, 1);
  region = hs_import_find_region (&ctx, instance, "opacity");
  g_assert_cmpuint (region->boxes->len, ==, 2);
  hs_test_assert_box (region, 0, 50, 50, 512, 150);
  hs_test_assert_box (region, 1, 128, 128, 256, 192);
  g_assert_null (hs_import_find_region (&ctx, instance, "nodule"));

  g_assert_cmpuint (instance->sentences->len, ==, 1);
  sentence = hs_import_find_sentence (&ctx, instance, "class:opacity");
  g_assert_nonnull (sentence);
  g_assert_cmpstr (sentence->text, ==, "opacity");
  g_assert_cmpstr (sentence->targets[0], ==, "opacity");
  g_assert_null (hs_import_find_sentence (&ctx, instance, "class:nodule"));

  context_clear (&ctx);
  hs_instance_free (instance);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-index/regions", test_regions);
  g_test_add_func ("/hs/import-index/sentences-and-findings", test_sentences_and_findings);
  g_test_add_func ("/hs/import-index/targets-and-labels", test_targets_and_labels);
  g_test_add_func ("/hs/import-index/boxes-and-maps", test_boxes_and_maps);
  g_test_add_func ("/hs/import-index/class-box", test_class_box);
  return g_test_run ();
}
