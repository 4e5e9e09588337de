/* test-import-nih.c — NIH ChestX-ray14 BBox_List_2017.csv */
#include <heatscope/heatscope.h>

#include <stdio.h>
#include <string.h>

#include "hs-test-util.h"

/* The real CSV against the two real images (which are not among the boxed
 * ones): every row is reported with its line, nothing is imported, and an
 * import that imports nothing fails naming the CSV. */
static void
test_real_unmatched (void)
{
  g_autofree char *csv = hs_test_shared_path ("nih-boxes/BBox_List_2017.csv");
  g_autofree char *out_dir = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsImportSummary summary = { 0 };
  const char *sources[2] = { NULL, NULL };

  if (csv == NULL)
    return;
  sources[0] = csv;
  {
    g_autofree char *tmp = hs_test_make_tmpdir ();
    out_dir = g_build_filename (tmp, "nih", NULL);
  }
  dataset = hs_import ("nih-bbox", sources, out_dir, NULL, &summary, &error);
  g_assert_null (dataset);
  g_assert_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT);
  {
    g_autofree char *expected = g_strdup_printf ("%s: nothing imported: all 984 rows were skipped", csv);
    g_assert_cmpstr (error->message, ==, expected);
  }
  g_assert_cmpuint (summary.n_instances, ==, 0);
  g_assert_cmpuint (summary.skipped->len, ==, 984);
  for (guint i = 0; i < summary.skipped->len; i++)
    {
      HsImportSkip *skip = g_ptr_array_index (summary.skipped, i);
      g_assert_cmpstr (skip->file, ==, csv);
      g_assert_cmpuint (skip->line, ==, i + 2);
      g_assert_nonnull (strstr (skip->reason, "not found"));
    }
  hs_import_summary_clear (&summary);
}

/* Stand-in images named like two boxed ones (one at the original 1024²,
 * one downscaled to 512²); boxes computed by Python's csv module. */
static const char fixture_script[] =
  "import csv, os, sys, cv2, numpy as np\n"
  "src, d = sys.argv[1], sys.argv[2]\n"
  "os.makedirs(d)\n"
  "sizes = {'00013118_008.png': 1024, '00014716_007.png': 512}\n"
  "for name, s in sizes.items(): cv2.imwrite(os.path.join(d, name), np.zeros((s, s), np.uint8))\n"
  "rows = list(csv.reader(open(src, newline='')))[1:]\n"
  "for r in rows:\n"
  "    if r[0] in sizes:\n"
  "        k = sizes[r[0]] / 1024\n"
  "        x, y, w, h = map(float, r[2:6])\n"
  "        print('%s\\t%s\\t%r %r %r %r' % (r[0][:-4], r[1], x * k, y * k, (x + w) * k, (y + h) * k))\n";

static void
test_stand_in_images (void)
{
  g_autofree char *csv = hs_test_shared_path ("nih-boxes/BBox_List_2017.csv");
  g_autofree char *dir = NULL;
  g_autofree char *images = NULL;
  g_autofree char *out_dir = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  HsImportSummary summary = { 0 };
  const char *sources[3] = { NULL, NULL, NULL };
  const char *args[3] = { NULL, NULL, NULL };
  guint n = 0;

  if (csv == NULL)
    return;
  dir = hs_test_make_tmpdir ();
  images = g_build_filename (dir, "images", NULL);
  args[0] = csv;
  args[1] = images;
  out = hs_test_python (fixture_script, args);
  if (out == NULL)
    return;
  sources[0] = csv;
  sources[1] = images;
  out_dir = g_build_filename (dir, "out", NULL);
  dataset = hs_import ("nih-bbox", sources, out_dir, NULL, &summary, &error);
  g_assert_no_error (error);
  lines = g_strsplit (g_strstrip (out), "\n", -1);
  g_assert_cmpuint (summary.n_instances, ==, 2);
  g_assert_cmpuint (summary.skipped->len, ==, 984 - g_strv_length (lines));

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      HsInstance *instance = hs_dataset_find_instance (dataset, f[0]);
      HsRegion *region;
      HsBox *box;
      double x1, y1, x2, y2;

      g_assert_nonnull (instance);
      region = hs_instance_find_region (instance, f[1]);
      g_assert_nonnull (region);
      g_assert_cmpint (sscanf (f[2], "%lf %lf %lf %lf", &x1, &y1, &x2, &y2), ==, 4);
      box = &g_array_index (region->boxes, HsBox, 0);
      g_assert_cmpfloat_with_epsilon (box->x1, x1, 1e-9);
      g_assert_cmpfloat_with_epsilon (box->y1, y1, 1e-9);
      g_assert_cmpfloat_with_epsilon (box->x2, MIN (x2, instance->width), 1e-9);
      g_assert_cmpfloat_with_epsilon (box->y2, MIN (y2, instance->height), 1e-9);
      g_assert_true (instance->abnormal);
      {
        g_autofree char *query = g_strconcat ("class:", f[1], NULL);
        g_assert_nonnull (hs_instance_find_sentence (instance, query));
      }
      n++;
    }
  g_assert_cmpuint (n, >=, 2);
  /* by hand, CSV line 2: 00013118_008.png Atelectasis 225.0847458,547.0192168,86.77966102,79.18644068 */
  {
    HsInstance *instance = hs_dataset_find_instance (dataset, "00013118_008");
    HsBox *box = &g_array_index (hs_instance_find_region (instance, "Atelectasis")->boxes, HsBox, 0);
    g_assert_cmpfloat_with_epsilon (box->x1, 225.0847458, 1e-9);
    g_assert_cmpfloat_with_epsilon (box->y2, 547.0192168 + 79.18644068, 1e-9);
  }
  g_assert_true (hs_dataset_validate (out_dir, &problems));
  hs_import_summary_clear (&summary);
}

static void
test_bad_csv (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *csv = g_build_filename (dir, "boxes.csv", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  const char *sources[] = { csv, dir, NULL };
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsImportSummary summary = { 0 };

  g_assert_true (g_file_set_contents (csv, "name,label\na.png,x\n", -1, NULL));
  dataset = hs_import ("nih-bbox", sources, out_dir, NULL, NULL, &error);
  g_assert_null (dataset);
  g_assert_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, csv));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (csv, "Image Index,Finding Label,Bbox [x,y,w,h],,,\r\n"
                                      "a.png,Mass,1,2,three,4\r\n"
                                      "a.png,Mass,1,2\r\n", -1, NULL));
  dataset = hs_import ("nih-bbox", sources, out_dir, NULL, &summary, &error);
  /* both rows skipped: nothing imported, which is an error naming the CSV */
  g_assert_null (dataset);
  g_assert_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT);
  g_assert_true (g_str_has_prefix (error->message, csv));
  g_assert_true (g_str_has_suffix (error->message, ": nothing imported: all 2 rows were skipped"));
  g_assert_cmpuint (summary.skipped->len, ==, 2);
  g_assert_cmpuint (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->line, ==, 2);
  g_assert_cmpstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->reason, ==,
                   "box values are not numbers");
  g_assert_cmpuint (((HsImportSkip *) g_ptr_array_index (summary.skipped, 1))->line, ==, 3);
  hs_import_summary_clear (&summary);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-nih/real-unmatched", test_real_unmatched);
  g_test_add_func ("/hs/import-nih/stand-in-images", test_stand_in_images);
  g_test_add_func ("/hs/import-nih/bad-csv", test_bad_csv);
  return g_test_run ();
}
