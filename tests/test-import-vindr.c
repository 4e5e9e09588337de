/* test-import-vindr.c — VinDr-CXR annotations CSV, written from the published format
 * (image_id,class_name,class_id,rad_id,x_min,y_min,x_max,y_max; "No finding" without boxes) */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

static void
test_vindr (void)
{
  g_autofree char *src = hs_test_make_tmpdir ();
  g_autofree char *out = NULL;
  g_autofree char *csv = g_build_filename (src, "annotations_train.csv", NULL);
  g_autofree char *dcm_source = hs_test_shared_path ("dicom/siim-acr-ptx-cxr-1024.dcm");
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsImportSummary summary = { 0 };
  const char *sources[] = { csv, NULL };
  HsInstance *a, *normal, *d;
  HsSentence *cardio;

  if (dcm_source == NULL)
    return;
  {
    g_autofree char *tmp = hs_test_make_tmpdir ();
    out = g_build_filename (tmp, "vindr", NULL);
  }
  hs_test_write_png (src, "9a5094b2563a1ef3ff50dc5c7ff71345.png", 2000, 2400);
  hs_test_write_png (src, "50a418190bc3fb1ef1633bf9678929b3.png", 1800, 1800);
  {
    /* VinDr-CXR ships DICOM as <image_id>.dicom */
    g_autofree char *contents = NULL;
    g_autofree char *dst = g_build_filename (src, "051132a778e61a86eb147c7c6f564dfe.dicom", NULL);
    gsize len;
    g_assert_true (g_file_get_contents (dcm_source, &contents, &len, NULL));
    g_assert_true (g_file_set_contents (dst, contents, (gssize) len, NULL));
  }
  hs_test_write_file (src, "annotations_train.csv",
    "image_id,class_name,class_id,rad_id,x_min,y_min,x_max,y_max\n"
    "50a418190bc3fb1ef1633bf9678929b3,No finding,14,R11,,,,\n"
    "50a418190bc3fb1ef1633bf9678929b3,No finding,14,R7,,,,\n"
    "9a5094b2563a1ef3ff50dc5c7ff71345,Cardiomegaly,3,R10,691.0,1375.0,1653.0,1831.0\n"
    "9a5094b2563a1ef3ff50dc5c7ff71345,Aortic enlargement,0,R10,1264.0,743.0,1611.0,1019.0\n"
    "9a5094b2563a1ef3ff50dc5c7ff71345,Cardiomegaly,3,R9,700.5,1380.0,1650.0,1840.0\n"
    "9a5094b2563a1ef3ff50dc5c7ff71345,Pleural thickening,11,R9,1789.0,1729.0,1875.0,1992.0\n"
    "9a5094b2563a1ef3ff50dc5c7ff71345,Pleural thickening,11,R9,200.0,300.0,260.0,400.0\n"
    "051132a778e61a86eb147c7c6f564dfe,Aortic enlargement,0,R10,520.0,230.0,640.0,360.0\n"
    "ffffffffffffffffffffffffffffffff,Nodule/Mass,8,R8,10,10,20,20\n"
    "9a5094b2563a1ef3ff50dc5c7ff71345,Lung Opacity,7,R9,abc,1,2,3\n");
  dataset = hs_import ("vindr-cxr", sources, out, NULL, &summary, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 3);

  /* Each radiologist's boxes stay apart, named "CLASS (RAD)", at the CSV's pixels. */
  a = hs_dataset_find_instance (dataset, "9a5094b2563a1ef3ff50dc5c7ff71345");
  g_assert_nonnull (a);
  g_assert_true (a->abnormal);
  hs_test_assert_box (hs_instance_find_region (a, "Cardiomegaly (R10)"), 0, 691, 1375, 1653, 1831);
  hs_test_assert_box (hs_instance_find_region (a, "Cardiomegaly (R9)"), 0, 700.5, 1380, 1650, 1840);
  hs_test_assert_box (hs_instance_find_region (a, "Aortic enlargement (R10)"), 0, 1264, 743, 1611, 1019);
  hs_test_assert_box (hs_instance_find_region (a, "Pleural thickening (R9)"), 1, 200, 300, 260, 400);
  g_assert_cmpuint (hs_instance_find_region (a, "Pleural thickening (R9)")->boxes->len, ==, 2);
  g_assert_null (hs_instance_find_region (a, "Cardiomegaly"));
  /* The class query targets every radiologist's region of the class. */
  cardio = hs_instance_find_sentence (a, "class:Cardiomegaly");
  g_assert_nonnull (cardio);
  g_assert_cmpuint (g_strv_length (cardio->targets), ==, 2);
  g_assert_true (g_strv_contains ((const char * const *) cardio->targets, "Cardiomegaly (R10)"));
  g_assert_true (g_strv_contains ((const char * const *) cardio->targets, "Cardiomegaly (R9)"));
  g_assert_cmpstr (g_hash_table_lookup (a->metadata, "radiologists"), ==, "R10,R9");

  /* "No finding": a normal instance without regions. */
  normal = hs_dataset_find_instance (dataset, "50a418190bc3fb1ef1633bf9678929b3");
  g_assert_nonnull (normal);
  g_assert_false (normal->abnormal);
  g_assert_cmpuint (normal->regions->len, ==, 0);
  g_assert_cmpstr (g_hash_table_lookup (normal->metadata, "radiologists"), ==, "R11,R7");

  /* The DICOM image (.dicom) is copied and sized from its header. */
  d = hs_dataset_find_instance (dataset, "051132a778e61a86eb147c7c6f564dfe");
  g_assert_nonnull (d);
  g_assert_true (g_str_has_suffix (d->image, ".dicom"));
  g_assert_cmpuint (d->width, ==, 1024);
  hs_test_assert_box (hs_instance_find_region (d, "Aortic enlargement (R10)"), 0, 520, 230, 640, 360);
  {
    g_autoptr(HsImage) image = hs_dataset_load_image (dataset, d, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (hs_image_get_format (image), ==, "DICOM");
  }

  /* Skipped rows, with their lines. */
  g_assert_cmpuint (summary.skipped->len, ==, 2);
  {
    HsImportSkip *s0 = g_ptr_array_index (summary.skipped, 0);
    HsImportSkip *s1 = g_ptr_array_index (summary.skipped, 1);
    g_assert_cmpuint (s0->line, ==, 10);
    g_assert_nonnull (strstr (s0->reason, "not found"));
    g_assert_cmpuint (s1->line, ==, 11);
    g_assert_nonnull (strstr (s1->reason, "not numbers"));
  }
  hs_import_summary_clear (&summary);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-vindr/published-format", test_vindr);
  return g_test_run ();
}
