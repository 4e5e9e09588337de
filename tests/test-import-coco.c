/* test-import-coco.c — COCO boxes, polygons and RLE */
#include <heatscope/heatscope.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs-test-util.h"

static const char real_script[] =
  "import json, os, sys\n"
  "p = sys.argv[1]; d = json.load(open(p))\n"
  "img_dir = os.path.join(os.path.dirname(p), 'images')\n"
  "have = set(os.listdir(img_dir))\n"
  "cat = {c['id']: c['name'] for c in d['categories']}\n"
  "imgs = [i for i in d['images'] if i['file_name'] in have]\n"
  "print(len(d['images']), len(imgs))\n"
  "for i in imgs:\n"
  "    for a in d['annotations']:\n"
  "        if a['image_id'] != i['id']: continue\n"
  "        x, y, w, h = a['bbox']\n"
  "        print('%s\\t%s\\t%r %r %r %r' % (i['file_name'], cat[a['category_id']], x, y, x + w, y + h))\n";

static void
test_real (void)
{
  g_autofree char *json = hs_test_shared_path ("cxr-lung-boxes/annotations.json");
  g_autofree char *out_dir = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  HsImportSummary summary = { 0 };
  const char *sources[2] = { NULL, NULL };
  const char *args[2] = { NULL, NULL };
  guint n_listed, n_present, n_boxes = 0;
  HsInstance *instance;
  HsBox *box;

  if (json == NULL)
    return;
  sources[0] = args[0] = json;
  out = hs_test_python (real_script, args);
  if (out == NULL)
    return;
  {
    g_autofree char *tmp = hs_test_make_tmpdir ();
    out_dir = g_build_filename (tmp, "coco", NULL);
  }
  dataset = hs_import ("coco", sources, out_dir, NULL, &summary, &error);
  g_assert_no_error (error);

  lines = g_strsplit (g_strstrip (out), "\n", -1);
  g_assert_cmpint (sscanf (lines[0], "%u %u", &n_listed, &n_present), ==, 2);
  g_assert_cmpuint (n_present, ==, 13);
  g_assert_cmpuint (summary.n_instances, ==, n_present);
  g_assert_cmpuint (summary.n_targets, ==, 2 * n_present);
  /* every listed image without a file is reported, with its index */
  g_assert_cmpuint (summary.skipped->len, ==, n_listed - n_present);
  {
    g_autofree char *first = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, 0));
    g_assert_true (g_str_has_prefix (first, json));
    g_assert_nonnull (strstr (first, ": images[0]: "));
    g_assert_nonnull (strstr (first, "not found"));
  }

  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      g_autofree char *image = g_strconcat ("images/", f[0], NULL);
      HsRegion *region = NULL;
      double x1, y1, x2, y2;

      instance = NULL;
      for (guint k = 0; k < hs_dataset_get_n_instances (dataset) && instance == NULL; k++)
        if (strcmp (hs_dataset_get_instance (dataset, k)->image, image) == 0)
          instance = hs_dataset_get_instance (dataset, k);
      g_assert_nonnull (instance);
      region = hs_instance_find_region (instance, f[1]);
      g_assert_nonnull (region);
      g_assert_cmpuint (region->boxes->len, ==, 1);
      g_assert_null (region->mask);
      g_assert_cmpint (sscanf (f[2], "%lf %lf %lf %lf", &x1, &y1, &x2, &y2), ==, 4);
      box = &g_array_index (region->boxes, HsBox, 0);
      g_assert_cmpfloat (box->x1, ==, x1);
      g_assert_cmpfloat (box->y1, ==, y1);
      g_assert_cmpfloat (box->x2, ==, MIN (x2, instance->width));
      g_assert_cmpfloat (box->y2, ==, MIN (y2, instance->height));
      n_boxes++;
    }
  g_assert_cmpuint (n_boxes, ==, 26);

  /* by hand: ARDSSevere.png, Right Lung bbox [36, 2, 356, 546] — on the
   * image's left, as radiographs are read */
  instance = hs_dataset_find_instance (dataset, "ARDSSevere");
  g_assert_nonnull (instance);
  box = &g_array_index (hs_instance_find_region (instance, "Right Lung")->boxes, HsBox, 0);
  g_assert_cmpfloat (box->x1, ==, 36);
  g_assert_cmpfloat (box->y1, ==, 2);
  g_assert_cmpfloat (box->x2, ==, 392);
  g_assert_cmpfloat (box->y2, ==, 548);
  g_assert_cmpfloat (box->x2, <, instance->width / 2.0);
  g_assert_nonnull (hs_instance_find_sentence (instance, "class:Right Lung"));

  g_assert_true (hs_dataset_validate (out_dir, &problems));
  hs_import_summary_clear (&summary);
}

/* Python's reference maskApi encoder for the compressed RLE string. */
static const char fixture_script[] =
  "import json, sys, os, cv2, numpy as np\n"
  "d = sys.argv[1]\n"
  "os.makedirs(d + '/images')\n"
  "cv2.imwrite(d + '/images/one.png', np.zeros((10, 20), np.uint8))\n"
  HS_TEST_PY_COCO_RLE
  "m1 = np.zeros((10, 20), np.uint8); m1[0:2, 10:15] = 1\n"
  "m2 = np.zeros((10, 20), np.uint8); m2[5:7, 15:17] = 1\n"
  "coco = {'categories': [{'id': 1, 'name': 'lesion'}, {'id': 2, 'name': 'nodule'}],\n"
  " 'images': [{'id': 1, 'file_name': 'one.png', 'width': 20, 'height': 10},\n"
  "            {'id': 2, 'file_name': 'gone.png', 'width': 20, 'height': 10}],\n"
  " 'annotations': [\n"
  "  {'id': 1, 'image_id': 1, 'category_id': 1, 'bbox': [2, 3, 5, 5],\n"
  "   'segmentation': [[2, 3, 7, 3, 7, 8, 2, 8]]},\n"
  "  {'id': 2, 'image_id': 1, 'category_id': 1,\n"
  "   'segmentation': {'size': [10, 20], 'counts': to_string(runs(m1))}},\n"
  "  {'id': 3, 'image_id': 1, 'category_id': 2, 'bbox': [15, 5, 2, 2], 'iscrowd': 1,\n"
  "   'segmentation': {'size': [10, 20], 'counts': runs(m2)}},\n"
  "  {'id': 4, 'image_id': 1, 'category_id': 9, 'bbox': [1, 1, 2, 2]},\n"
  "  {'id': 5, 'image_id': 1, 'category_id': 2, 'segmentation': {'size': [11, 20], 'counts': [220]}},\n"
  "  {'id': 6, 'image_id': 1, 'category_id': 2, 'bbox': [30, 30, 5, 5]},\n"
  "  {'id': 7, 'image_id': 1, 'category_id': 2, 'segmentation': [[1, 1, 2, 2]]},\n"
  "  {'id': 8, 'image_id': 2, 'category_id': 2, 'bbox': [1, 1, 2, 2]},\n"
  /* positive area, no pixel centre inside (hs_box_check): skipped, not imported */
  "  {'id': 9, 'image_id': 1, 'category_id': 2, 'bbox': [5.6, 5, 0.3, 2]}]}\n"
  "json.dump(coco, open(d + '/coco.json', 'w'))\n"
  "print(int(m1.sum()), int(m2.sum()), to_string(runs(m1)))\n";

static void
test_fixture (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *json = g_build_filename (dir, "coco.json", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  const char *args[] = { dir, NULL };
  g_autofree char *out = hs_test_python (fixture_script, args);
  const char *sources[] = { json, NULL };
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) skipped = g_string_new (NULL);
  HsImportSummary summary = { 0 };
  HsInstance *instance;
  HsRegion *lesion, *nodule;
  guint n1 = 0, n2 = 0;

  if (out == NULL)
    return;
  g_assert_cmpint (sscanf (out, "%u %u", &n1, &n2), ==, 2);
  g_assert_cmpuint (n1, ==, 10);
  g_assert_cmpuint (n2, ==, 4);
  dataset = hs_import ("coco", sources, out_dir, NULL, &summary, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < summary.skipped->len; i++)
    {
      g_autofree char *line = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, i));
      g_test_message ("%s", line);
      g_string_append_printf (skipped, "%s\n", line);
    }
  g_assert_cmpuint (summary.skipped->len, ==, 6);
  g_assert_nonnull (strstr (skipped->str, "annotations[8]: bbox [5.6, 5, 0.3, 2] is empty or outside"));
  g_assert_nonnull (strstr (skipped->str, "images[1]: "));
  g_assert_nonnull (strstr (skipped->str, "annotations[3]: unknown category_id 9"));
  g_assert_nonnull (strstr (skipped->str, "annotations[4]: RLE size [11, 20] differs"));
  g_assert_nonnull (strstr (skipped->str, "annotations[5]: bbox"));
  g_assert_nonnull (strstr (skipped->str, "annotations[6]: segmentation[0] has 4 coordinates"));

  instance = hs_dataset_find_instance (dataset, "one");
  g_assert_nonnull (instance);
  lesion = hs_instance_find_region (instance, "lesion");
  nodule = hs_instance_find_region (instance, "nodule");
  g_assert_nonnull (lesion);
  g_assert_nonnull (nodule);
  /* polygon (2,3)-(7,8): pixel centres 2.5..6.5 × 3.5..7.5 → 5 × 5 = 25,
   * plus the 2 × 5 compressed-RLE block */
  g_assert_cmpuint (hs_test_count_mask_pixels (dataset, lesion), ==, 25 + n1);
  g_assert_cmpuint (hs_test_count_mask_pixels (dataset, nodule), ==, n2);
  g_assert_cmpuint (lesion->boxes->len, ==, 1);
  g_assert_cmpuint (nodule->boxes->len, ==, 1);
  {
    g_autoptr(HsImage) mask = hs_dataset_load_mask (dataset, nodule, &error);
    g_assert_no_error (error);
    /* row 5, column 15 is inside; row 4 is not (column-major decoding) */
    g_assert_cmpuint (hs_image_peek_data (mask)[5 * 20 + 15], ==, 255);
    g_assert_cmpuint (hs_image_peek_data (mask)[6 * 20 + 16], ==, 255);
    g_assert_cmpuint (hs_image_peek_data (mask)[4 * 20 + 15], ==, 0);
  }
  hs_import_summary_clear (&summary);

  /* not COCO at all */
  g_assert_true (g_file_set_contents (json, "{\"images\": 3}", -1, NULL));
  g_clear_pointer (&dataset, hs_dataset_unref);
  dataset = hs_import ("coco", sources, out_dir, &(HsImportOptions) { .force = TRUE }, NULL, &error);
  g_assert_null (dataset);
  g_assert_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, json));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-coco/real", test_real);
  g_test_add_func ("/hs/import-coco/fixture", test_fixture);
  return g_test_run ();
}
