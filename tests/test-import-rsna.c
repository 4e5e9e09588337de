/* test-import-rsna.c — RSNA Pneumonia stage_2_train_labels.csv, written from the
 * published format (patientId,x,y,width,height,Target; Target 0 rows without boxes) */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

static void
test_rsna (void)
{
  g_autofree char *src = hs_test_make_tmpdir ();
  g_autofree char *out = NULL;
  g_autofree char *csv = g_build_filename (src, "stage_2_train_labels.csv", NULL);
  g_autofree char *dcm_source = hs_test_shared_path ("dicom/siim-acr-ptx-cxr-1024.dcm");
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsImportSummary summary = { 0 };
  const char *sources[] = { csv, NULL };
  HsInstance *two, *small, *normal;

  if (dcm_source == NULL)
    return;
  {
    g_autofree char *tmp = hs_test_make_tmpdir ();
    out = g_build_filename (tmp, "rsna", NULL);
  }
  {
    /* the challenge's images are <patientId>.dcm, 1024 × 1024 */
    g_autofree char *contents = NULL;
    g_autofree char *dst = g_build_filename (src, "00436515-870c-4b36-a041-de91049b9ab4.dcm", NULL);
    gsize len;
    g_assert_true (g_file_get_contents (dcm_source, &contents, &len, NULL));
    g_assert_true (g_file_set_contents (dst, contents, (gssize) len, NULL));
  }
  hs_test_write_png (src, "0004cfab-14fd-4e49-80ba-63a80b6bddd6.png", 1024, 1024);
  hs_test_write_png (src, "00704310-78a8-4b38-8475-49f4573b2dbb.png", 512, 512);   /* a downscaled copy */
  hs_test_write_file (src, "stage_2_train_labels.csv",
    "patientId,x,y,width,height,Target\n"
    "0004cfab-14fd-4e49-80ba-63a80b6bddd6,,,,,0\n"
    "00436515-870c-4b36-a041-de91049b9ab4,264.0,152.0,213.0,379.0,1\n"
    "00436515-870c-4b36-a041-de91049b9ab4,562.0,152.0,256.0,453.0,1\n"
    "00704310-78a8-4b38-8475-49f4573b2dbb,323.0,577.0,160.0,104.0,1\n"
    "00704310-78a8-4b38-8475-49f4573b2dbb,,,,,2\n"
    "00704310-78a8-4b38-8475-49f4573b2dbb,,,,,1\n");
  dataset = hs_import ("rsna-pneumonia", sources, out, NULL, &summary, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 3);

  two = hs_dataset_find_instance (dataset, "00436515-870c-4b36-a041-de91049b9ab4");
  g_assert_nonnull (two);
  g_assert_true (two->abnormal);
  g_assert_true (g_str_has_suffix (two->image, ".dcm"));
  /* x, y, width, height → [x, y, x + width, y + height] */
  hs_test_assert_box (hs_instance_find_region (two, "Lung Opacity"), 0, 264, 152, 477, 531);
  hs_test_assert_box (hs_instance_find_region (two, "Lung Opacity"), 1, 562, 152, 818, 605);
  g_assert_nonnull (hs_instance_find_sentence (two, "class:Lung Opacity"));

  /* a 512² copy: boxes halved */
  small = hs_dataset_find_instance (dataset, "00704310-78a8-4b38-8475-49f4573b2dbb");
  hs_test_assert_box (hs_instance_find_region (small, "Lung Opacity"), 0, 161.5, 288.5, 241.5, 340.5);

  normal = hs_dataset_find_instance (dataset, "0004cfab-14fd-4e49-80ba-63a80b6bddd6");
  g_assert_false (normal->abnormal);
  g_assert_cmpuint (normal->regions->len, ==, 0);

  g_assert_cmpuint (summary.skipped->len, ==, 2);
  g_assert_cmpuint (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->line, ==, 6);
  g_assert_nonnull (strstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->reason, "not 0 or 1"));
  g_assert_cmpuint (((HsImportSkip *) g_ptr_array_index (summary.skipped, 1))->line, ==, 7);
  hs_import_summary_clear (&summary);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-rsna/published-format", test_rsna);
  return g_test_run ();
}
