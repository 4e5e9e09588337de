/* test-import-ms-cxr.c — MS-CXR phrase grounding CSV, on a written fixture
 * following the published column layout */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

static const char fixture_script[] =
  "import csv, os, sys, cv2, numpy as np\n"
  "d = sys.argv[1]\n"
  "os.makedirs(d + '/files/p10/s1')\n"
  "cv2.imwrite(d + '/files/p10/s1/a.jpg', np.zeros((100, 200), np.uint8))  # half the DICOM size\n"
  "cols = ['dicom_id', 'category_name', 'label_text', 'path', 'x', 'y', 'w', 'h', 'image_width', 'image_height']\n"
  "rows = [\n"
  "  ['a', 'Pneumonia', 'Left lower lobe opacity, likely pneumonia', 'files/p10/s1/a.jpg', 220, 100, 80, 60, 400, 200],\n"
  "  ['a', 'Pneumonia', 'Left lower lobe opacity, likely pneumonia', 'files/p10/s1/a.jpg', 250, 20, 40, 40, 400, 200],\n"
  "  ['a', 'Pleural effusion', 'Small right effusion', 'files/p10/s1/a.jpg', 10, 150, 90, 50, 400, 200],\n"
  "  ['a', 'Pneumonia', 'Patchy right basal opacity', 'files/p10/s1/a.jpg', 20, 120, 60, 40, 400, 200],\n"
  "  ['b', 'Edema', 'Mild edema', 'files/p10/s1/b.jpg', 10, 10, 10, 10, 400, 200],\n"
  "  ['a', 'Edema', 'Mild edema', 'files/p10/s1/a.jpg', 'ten', 10, 10, 10, 400, 200],\n"
  "]\n"
  "with open(d + '/MS_CXR_Local_Alignment_v1.0.0.csv', 'w', newline='') as f:\n"
  "    w = csv.writer(f); w.writerow(cols); w.writerows(rows)\n";

static void
test_fixture (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *csv = g_build_filename (dir, "MS_CXR_Local_Alignment_v1.0.0.csv", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  const char *args[] = { dir, NULL };
  g_autofree char *made = hs_test_python (fixture_script, args);
  const char *sources[] = { csv, NULL };
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  HsImportSummary summary = { 0 };
  HsInstance *instance;
  HsSentence *p1, *p2, *p3;
  HsRegion *region;

  if (made == NULL)
    return;
  dataset = hs_import ("ms-cxr", sources, out_dir, NULL, &summary, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (summary.n_instances, ==, 1);
  g_assert_cmpuint (summary.n_sentences, ==, 3);
  g_assert_cmpuint (summary.n_targets, ==, 3);
  g_assert_cmpuint (summary.skipped->len, ==, 2);
  g_assert_cmpuint (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->line, ==, 6);
  g_assert_nonnull (strstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->reason, "not found"));
  g_assert_cmpuint (((HsImportSkip *) g_ptr_array_index (summary.skipped, 1))->line, ==, 7);

  instance = hs_dataset_find_instance (dataset, "a");
  g_assert_nonnull (instance);
  g_assert_true (instance->abnormal);
  p1 = hs_instance_find_sentence (instance, "p1");
  p2 = hs_instance_find_sentence (instance, "p2");
  p3 = hs_instance_find_sentence (instance, "p3");
  g_assert_cmpstr (p1->text, ==, "Left lower lobe opacity, likely pneumonia");
  g_assert_cmpstr (p1->targets[0], ==, "Pneumonia");
  g_assert_cmpstr (p2->targets[0], ==, "Pleural effusion");
  /* a second Pneumonia phrase gets its own region */
  g_assert_cmpstr (p3->targets[0], ==, "Pneumonia 2");
  g_assert_cmpstr (((HsLabel *) g_ptr_array_index (p1->labels, 0))->condition, ==, "Pneumonia");
  g_assert_cmpstr (((HsLabel *) g_ptr_array_index (p1->labels, 0))->context, ==, "positive");

  /* boxes in the 400 × 200 DICOM pixels, halved for the 200 × 100 JPEG */
  region = hs_instance_find_region (instance, "Pneumonia");
  g_assert_cmpuint (region->boxes->len, ==, 2);
  hs_test_assert_box (region, 0, 110, 50, 150, 80);
  hs_test_assert_box (region, 1, 125, 10, 145, 30);
  region = hs_instance_find_region (instance, "Pleural effusion");
  hs_test_assert_box (region, 0, 5, 75, 50, 100);
  g_assert_true (hs_dataset_validate (out_dir, &problems));
  hs_import_summary_clear (&summary);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-ms-cxr/fixture", test_fixture);
  return g_test_run ();
}
