/* test-import-voc.c — Pascal VOC XML, written from the published format
 * (VOC2012 devkit: 1-based, inclusive xmin/ymin/xmax/ymax) */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

static void
test_voc (void)
{
  g_autofree char *root = hs_test_make_tmpdir ();
  g_autofree char *ann = g_build_filename (root, "Annotations", NULL);
  g_autofree char *jpeg = g_build_filename (root, "JPEGImages", NULL);
  g_autofree char *out = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsImportSummary summary = { 0 };
  const char *sources[] = { ann, NULL };
  HsInstance *a;

  {
    g_autofree char *tmp = hs_test_make_tmpdir ();
    out = g_build_filename (tmp, "voc", NULL);
  }
  g_assert_cmpint (g_mkdir_with_parents (ann, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (jpeg, 0755), ==, 0);
  {
    g_autofree char *png = g_build_filename (jpeg, "cxr_0001.png", NULL);
    g_autoptr(HsImage) image = hs_image_new (640, 480, 1, 8, NULL);
    g_assert_true (hs_image_save_png (image, png, &error));
  }
  hs_test_write_file (ann, "cxr_0001.xml",
    "<?xml version=\"1.0\"?>\n"
    "<annotation>\n"
    "  <folder>VOC2012</folder>\n"
    "  <filename>cxr_0001.png</filename>\n"
    "  <source><database>test</database></source>\n"
    "  <size><width>640</width><height>480</height><depth>1</depth></size>\n"
    "  <segmented>0</segmented>\n"
    "  <object>\n"
    "    <name>nodule</name><pose>Unspecified</pose><truncated>0</truncated><difficult>0</difficult>\n"
    "    <bndbox><xmin>1</xmin><ymin>1</ymin><xmax>50</xmax><ymax>40</ymax></bndbox>\n"
    "  </object>\n"
    "  <object>\n"
    "    <name>effusion</name>\n"
    "    <bndbox><xmin>301</xmin><ymin>201.5</ymin><xmax>640</xmax><ymax>480</ymax></bndbox>\n"
    "    <part><name>ignored</name><bndbox><xmin>5</xmin><ymin>5</ymin><xmax>6</xmax><ymax>6</ymax></bndbox></part>\n"
    "  </object>\n"
    "  <object><name>mass</name><bndbox><xmin>3</xmin><ymin>3</ymin></bndbox></object>\n"
    "</annotation>\n");
  hs_test_write_file (ann, "missing.xml",
    "<annotation><filename>nowhere.jpg</filename><object><name>x</name>"
    "<bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox></object></annotation>");
  hs_test_write_file (ann, "broken.xml", "<annotation><filename>cxr_0001.png</annotation>");

  dataset = hs_import ("voc", sources, out, NULL, &summary, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 1);
  a = hs_dataset_find_instance (dataset, "cxr_0001");
  g_assert_nonnull (a);
  /* 1-based inclusive pixels → edges: [xmin − 1, ymin − 1, xmax, ymax] */
  hs_test_assert_box (hs_instance_find_region (a, "nodule"), 0, 0, 0, 50, 40);
  hs_test_assert_box (hs_instance_find_region (a, "effusion"), 0, 300, 200.5, 640, 480);
  g_assert_cmpuint (hs_instance_find_region (a, "effusion")->boxes->len, ==, 1);   /* the part is not a box */
  g_assert_null (hs_instance_find_region (a, "mass"));
  g_assert_nonnull (hs_instance_find_sentence (a, "class:nodule"));
  g_assert_true (a->abnormal);

  /* broken XML, a missing image, an incomplete box: each reported with its file */
  g_assert_cmpuint (summary.skipped->len, ==, 3);
  for (guint i = 0; i < summary.skipped->len; i++)
    g_test_message ("%s", ((HsImportSkip *) g_ptr_array_index (summary.skipped, i))->reason);
  g_assert_nonnull (strstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->file, "broken.xml"));
  g_assert_nonnull (strstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, 1))->reason, "object[2]"));
  g_assert_nonnull (strstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, 2))->reason, "not found"));
  hs_import_summary_clear (&summary);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-voc/published-format", test_voc);
  return g_test_run ();
}
