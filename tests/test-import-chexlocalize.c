/* test-import-chexlocalize.c — CheXlocalize ground truth (polygons and RLE),
 * on fixtures written after the published format */
#include <heatscope/heatscope.h>

#include <stdio.h>
#include <string.h>

#include "hs-test-util.h"

static const char fixture_script[] =
  "import json, os, sys, cv2, numpy as np\n"
  "d = sys.argv[1]\n"
  "os.makedirs(d + '/valid/patient1/study1')\n"
  "# the copy is half the original size (img_size [60, 80])\n"
  "cv2.imwrite(d + '/valid/patient1/study1/view1_frontal.jpg', np.zeros((30, 40), np.uint8))\n"
  HS_TEST_PY_COCO_RLE
  "poly = {'patient1_study1_view1_frontal': {\n"
  "           'Cardiomegaly': [[[20, 20], [60, 20], [60, 40], [20, 40]]],\n"
  "           'Edema': [],\n"
  "           'Lung Lesion': [[[0, 0], [4, 0]]],\n"
  "           'img_size': [60, 80]},\n"
  "        'patient2_study1_view1_frontal': {'Edema': [], 'img_size': [60, 80]}}\n"
  "json.dump(poly, open(d + '/gt_annotations_val.json', 'w'))\n"
  "m = np.zeros((30, 40), np.uint8); m[3:9, 5:12] = 1; m[20:22, 30:33] = 1\n"
  "seg = {'patient1_study1_view1_frontal': {\n"
  "          'Atelectasis': {'size': [30, 40], 'counts': to_string(runs(m))},\n"
  "          'Edema': {'size': [30, 40], 'counts': to_string(runs(np.zeros((30, 40), np.uint8)))},\n"
  "          'Pneumothorax': {'size': [30, 40], 'counts': '30'}}}\n"
  "json.dump(seg, open(d + '/gt_segmentations_val.json', 'w'))\n"
  "print(int(m.sum()))\n";

static void
test_fixtures (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *poly = g_build_filename (dir, "gt_annotations_val.json", NULL);
  g_autofree char *seg = g_build_filename (dir, "gt_segmentations_val.json", NULL);
  g_autofree char *out1 = g_build_filename (dir, "out1", NULL);
  g_autofree char *out2 = g_build_filename (dir, "out2", NULL);
  const char *args[] = { dir, NULL };
  g_autofree char *made = hs_test_python (fixture_script, args);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  HsImportSummary summary = { 0 };
  HsInstance *instance;
  HsSentence *sentence;
  HsRegion *region;
  guint rle_pixels = 0;

  if (made == NULL)
    return;
  g_assert_cmpint (sscanf (made, "%u", &rle_pixels), ==, 1);

  {
    const char *sources[] = { poly, dir, NULL };
    dataset = hs_import ("chexlocalize", sources, out1, NULL, &summary, &error);
  }
  g_assert_no_error (error);
  g_assert_cmpuint (summary.n_instances, ==, 1);
  g_assert_cmpuint (summary.skipped->len, ==, 2);
  {
    g_autofree char *a = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, 0));
    g_autofree char *b = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, 1));
    g_test_message ("%s\n%s", a, b);
    g_assert_nonnull (strstr (a, "patient1_study1_view1_frontal: Lung Lesion: polygon 0 has 2 points"));
    g_assert_nonnull (strstr (b, "patient2_study1_view1_frontal: image not found"));
  }
  instance = hs_dataset_find_instance (dataset, "patient1_study1_view1_frontal");
  g_assert_nonnull (instance);
  g_assert_true (instance->abnormal);
  /* polygon (20,20)-(60,40) in 80 × 60 pixels, halved: (10,10)-(30,20) → 20 × 10 */
  region = hs_instance_find_region (instance, "Cardiomegaly");
  g_assert_nonnull (region);
  g_assert_cmpuint (hs_test_count_mask_pixels (dataset, region), ==, 200);
  sentence = hs_instance_find_sentence (instance, "class:Cardiomegaly");
  g_assert_cmpstr (sentence->kind, ==, "class");
  g_assert_cmpstr (sentence->targets[0], ==, "Cardiomegaly");
  /* a pathology without annotations: a class query with no target */
  sentence = hs_instance_find_sentence (instance, "class:Edema");
  g_assert_nonnull (sentence);
  g_assert_true (sentence->targets == NULL || sentence->targets[0] == NULL);
  g_assert_cmpstr (((HsLabel *) g_ptr_array_index (sentence->labels, 0))->context, ==, "negative");
  g_assert_null (hs_instance_find_region (instance, "Edema"));
  g_assert_true (hs_dataset_validate (out1, &problems));
  hs_import_summary_clear (&summary);
  g_clear_pointer (&dataset, hs_dataset_unref);

  {
    const char *sources[] = { seg, dir, NULL };
    dataset = hs_import ("chexlocalize", sources, out2, NULL, &summary, &error);
  }
  g_assert_no_error (error);
  g_assert_cmpuint (summary.skipped->len, ==, 1);
  g_assert_nonnull (strstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->reason,
                            "Pneumothorax: RLE counts add up"));
  instance = hs_dataset_find_instance (dataset, "patient1_study1_view1_frontal");
  region = hs_instance_find_region (instance, "Atelectasis");
  g_assert_nonnull (region);
  g_assert_cmpuint (hs_test_count_mask_pixels (dataset, region), ==, rle_pixels);
  {
    /* column-major decoding puts the block at rows 3..8, columns 5..11 */
    g_autoptr(HsImage) mask = hs_dataset_load_mask (dataset, region, &error);
    g_assert_cmpuint (hs_image_peek_data (mask)[3 * 40 + 5], ==, 255);
    g_assert_cmpuint (hs_image_peek_data (mask)[8 * 40 + 11], ==, 255);
    g_assert_cmpuint (hs_image_peek_data (mask)[9 * 40 + 5], ==, 0);
  }
  g_assert_null (hs_instance_find_region (instance, "Edema"));
  hs_import_summary_clear (&summary);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-chexlocalize/fixtures", test_fixtures);
  return g_test_run ();
}
