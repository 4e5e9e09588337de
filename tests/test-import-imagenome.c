/* test-import-imagenome.c — Chest ImaGenome gold TSV and scene graphs, on
 * fixtures written after the published format */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

static const char fixture_script[] =
  "import json, os, sys, cv2, numpy as np\n"
  "d = sys.argv[1]\n"
  "cv2.imwrite(d + '/img1.jpg', np.zeros((100, 120), np.uint8))\n"
  "cols = ['study_id', 'image_id', 'row_id', 'sentence', 'bbox', 'relation', 'label_name', 'categoryID',\n"
  "        'context', 'coord224', 'coord_original']\n"
  "rows = [\n"
  "  ['s1', 'img1', 'img1|5', 'Left lower lobe opacity.', 'left lower lung zone', '', 'lung opacity',\n"
  "   'anatomicalfinding', 'yes', '[1, 2, 3, 4]', '[60, 50, 110, 90]'],\n"
  "  ['s1', 'img1', 'img1|5', 'Left lower lobe opacity.', 'left lung', '', 'lung opacity',\n"
  "   'anatomicalfinding', 'yes', '[1, 2, 3, 4]', '[60, 10, 115, 95]'],\n"
  "  ['s1', 'img1', 'img1|6', 'No pneumothorax.', 'right lung', '', 'pneumothorax',\n"
  "   'anatomicalfinding', 'no', '[1, 2, 3, 4]', '[5.5, 10, 58, 95]'],\n"
  "  ['s1', 'img1', 'img1|7', 'Broken.', 'right lung', '', 'x', 'y', 'yes', '', 'not coords'],\n"
  "  ['s1', 'img9', 'img9|1', 'Elsewhere.', 'right lung', '', 'x', 'y', 'yes', '', '[1, 1, 2, 2]'],\n"
  "]\n"
  "with open(d + '/gold_object_attribute_with_coordinates.txt', 'w') as f:\n"
  "    f.write('\\t'.join(cols) + '\\n')\n"
  "    for r in rows: f.write('\\t'.join(r) + '\\n')\n"
  "sg = {'image_id': 'img1', 'objects': [\n"
  "        {'object_id': 'img1_left lung', 'bbox_name': 'left lung', 'original_x1': 60, 'original_y1': 10,\n"
  "         'original_x2': 115, 'original_y2': 95},\n"
  "        {'object_id': 'img1_right lung', 'bbox_name': 'right lung', 'original_x1': 5, 'original_y1': 10,\n"
  "         'original_x2': 58, 'original_y2': 95},\n"
  "        {'object_id': 'img1_trachea', 'bbox_name': 'trachea'}],\n"
  "      'attributes': [\n"
  "        {'bbox_name': 'left lung', 'phrases': ['Left basilar opacity.', 'Heart size normal.'],\n"
  "         'attributes': [['anatomicalfinding|yes|lung opacity'], ['anatomicalfinding|no|enlarged cardiac silhouette']]},\n"
  "        {'bbox_name': 'right lung', 'phrases': ['Left basilar opacity.'],\n"
  "         'attributes': [['anatomicalfinding|maybe|lung opacity']]}]}\n"
  "os.makedirs(d + '/sg')\n"
  "json.dump(sg, open(d + '/sg/img1_SceneGraph.json', 'w'))\n";

static void
test_gold_tsv (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *tsv = g_build_filename (dir, "gold_object_attribute_with_coordinates.txt", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  const char *args[] = { dir, NULL };
  g_autofree char *made = hs_test_python (fixture_script, args);
  const char *sources[] = { tsv, NULL };
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  HsImportSummary summary = { 0 };
  HsInstance *instance;
  HsSentence *s1, *s2;
  HsRegion *region;
  HsLabel *label;
  HsBox *box;

  if (made == NULL)
    return;
  dataset = hs_import ("imagenome", sources, out_dir, NULL, &summary, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (summary.n_instances, ==, 1);
  g_assert_cmpuint (summary.n_sentences, ==, 2);
  g_assert_cmpuint (summary.n_targets, ==, 3);
  g_assert_cmpuint (summary.skipped->len, ==, 2);
  g_assert_cmpuint (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->line, ==, 5);
  g_assert_nonnull (strstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->reason, "coord_original"));
  g_assert_cmpuint (((HsImportSkip *) g_ptr_array_index (summary.skipped, 1))->line, ==, 6);
  g_assert_nonnull (strstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, 1))->reason, "img9"));

  instance = hs_dataset_find_instance (dataset, "img1");
  g_assert_nonnull (instance);
  g_assert_true (instance->abnormal);
  s1 = hs_instance_find_sentence (instance, "s1");
  s2 = hs_instance_find_sentence (instance, "s2");
  g_assert_cmpstr (s1->text, ==, "Left lower lobe opacity.");
  g_assert_cmpuint (g_strv_length (s1->targets), ==, 2);
  g_assert_cmpstr (s1->targets[0], ==, "left lower lung zone");
  g_assert_cmpstr (s1->targets[1], ==, "left lung");
  g_assert_cmpuint (s1->labels->len, ==, 1);
  label = g_ptr_array_index (s1->labels, 0);
  g_assert_cmpstr (label->condition, ==, "lung opacity");
  g_assert_cmpstr (label->context, ==, "positive");
  g_assert_cmpuint (g_strv_length (label->locations), ==, 2);
  label = g_ptr_array_index (s2->labels, 0);
  g_assert_cmpstr (label->context, ==, "negative");
  region = hs_instance_find_region (instance, "right lung");
  box = &g_array_index (region->boxes, HsBox, 0);
  g_assert_cmpfloat (box->x1, ==, 5.5);
  g_assert_cmpfloat (box->y1, ==, 10);
  g_assert_cmpfloat (box->x2, ==, 58);
  g_assert_cmpfloat (box->y2, ==, 95);
  /* 115 × 95 in a 120 × 100 image stays as it is */
  box = &g_array_index (hs_instance_find_region (instance, "left lung")->boxes, HsBox, 0);
  g_assert_cmpfloat (box->x2, ==, 115);
  g_assert_true (hs_dataset_validate (out_dir, &problems));
  hs_import_summary_clear (&summary);
}

static void
test_scene_graph (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *sg = g_build_filename (dir, "sg", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  const char *args[] = { dir, NULL };
  g_autofree char *made = hs_test_python (fixture_script, args);
  const char *sources[] = { sg, dir, NULL };
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) skipped = g_string_new (NULL);
  HsImportSummary summary = { 0 };
  HsInstance *instance;
  HsSentence *s1, *s2;

  if (made == NULL)
    return;
  dataset = hs_import ("imagenome", sources, out_dir, NULL, &summary, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < summary.skipped->len; i++)
    {
      g_autofree char *line = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, i));
      g_test_message ("%s", line);
      g_string_append_printf (skipped, "%s\n", line);
    }
  g_assert_cmpuint (summary.skipped->len, ==, 2);
  g_assert_nonnull (strstr (skipped->str, "objects[2]: needs bbox_name and original_x1"));
  g_assert_nonnull (strstr (skipped->str, "attributes[1].attributes[0][0]: 'anatomicalfinding|maybe|lung opacity'"));
  instance = hs_dataset_find_instance (dataset, "img1");
  g_assert_nonnull (instance);
  g_assert_cmpuint (instance->regions->len, ==, 2);
  g_assert_cmpuint (instance->sentences->len, ==, 2);
  s1 = hs_instance_find_sentence (instance, "s1");
  s2 = hs_instance_find_sentence (instance, "s2");
  g_assert_cmpstr (s1->text, ==, "Left basilar opacity.");
  /* the phrase is listed under both lungs */
  g_assert_cmpuint (g_strv_length (s1->targets), ==, 2);
  g_assert_cmpstr (((HsLabel *) g_ptr_array_index (s1->labels, 0))->condition, ==, "lung opacity");
  g_assert_cmpstr (((HsLabel *) g_ptr_array_index (s2->labels, 0))->context, ==, "negative");
  g_assert_cmpstr (((HsLabel *) g_ptr_array_index (s2->labels, 0))->condition, ==, "enlarged cardiac silhouette");
  hs_import_summary_clear (&summary);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-imagenome/gold-tsv", test_gold_tsv);
  g_test_add_func ("/hs/import-imagenome/scene-graph", test_scene_graph);
  return g_test_run ();
}
