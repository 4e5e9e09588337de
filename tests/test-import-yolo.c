/* test-import-yolo.c — YOLO txt boxes */
#include <heatscope/heatscope.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs-test-util.h"

static const char real_script[] =
  "import os, sys, cv2\n"
  "top = sys.argv[1]\n"
  "for sub in sorted(os.listdir(top)):\n"
  "    d = os.path.join(top, sub)\n"
  "    if not os.path.isdir(d): continue\n"
  "    for f in sorted(os.listdir(d)):\n"
  "        if not f.endswith('.jpg'): continue\n"
  "        h, w = cv2.imread(os.path.join(d, f), cv2.IMREAD_UNCHANGED).shape[:2]\n"
  "        for line in open(os.path.join(d, f[:-4] + '.txt')).read().split('\\n'):\n"
  "            if not line.strip(): continue\n"
  "            c, xc, yc, bw, bh = line.split()\n"
  "            xc, yc, bw, bh = map(float, (xc, yc, bw, bh))\n"
  "            print('%s/%s\\t%s\\t%r %r %r %r' % (sub, f[:-4], c, (xc - bw / 2) * w, (yc - bh / 2) * h,\n"
  "                                          (xc + bw / 2) * w, (yc + bh / 2) * h))\n";

static void
test_real (void)
{
  g_autofree char *top = hs_test_shared_path ("mri-brain-tumor");
  g_autofree char *dir = NULL;
  g_autofree char *out = NULL;
  g_autofree char *out_dir = NULL;
  g_autofree char *named_dir = NULL;
  g_autofree char *classes = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsDataset) named = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  HsImportSummary summary = { 0 };
  HsImportOptions options = { 0 };
  const char *sources[2] = { NULL, NULL };
  const char *args[2] = { NULL, NULL };
  HsInstance *instance;
  HsBox *box;
  guint n = 0;

  if (top == NULL)
    return;
  sources[0] = args[0] = top;
  out = hs_test_python (real_script, args);
  if (out == NULL)
    return;
  dir = hs_test_make_tmpdir ();
  out_dir = g_build_filename (dir, "yolo", NULL);
  dataset = hs_import ("yolo", sources, out_dir, NULL, &summary, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (summary.n_instances, ==, 28);
  g_assert_cmpuint (summary.n_targets, ==, 28);
  g_assert_cmpuint (summary.n_sentences, ==, 28);
  g_assert_cmpuint (summary.skipped->len, ==, 0);

  lines = g_strsplit (g_strstrip (out), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      g_autofree char *name = g_strdup_printf ("class %s", f[1]);
      HsRegion *region;
      double x1, y1, x2, y2;

      instance = hs_dataset_find_instance (dataset, f[0]);
      g_assert_nonnull (instance);
      region = hs_instance_find_region (instance, name);
      g_assert_nonnull (region);
      g_assert_cmpint (sscanf (f[2], "%lf %lf %lf %lf", &x1, &y1, &x2, &y2), ==, 4);
      box = &g_array_index (region->boxes, HsBox, 0);
      g_assert_cmpfloat_with_epsilon (box->x1, MAX (x1, 0), 1e-9);
      g_assert_cmpfloat_with_epsilon (box->y1, MAX (y1, 0), 1e-9);
      g_assert_cmpfloat_with_epsilon (box->x2, MIN (x2, instance->width), 1e-9);
      g_assert_cmpfloat_with_epsilon (box->y2, MIN (y2, instance->height), 1e-9);
      n++;
    }
  g_assert_cmpuint (n, ==, 28);

  /* by hand: 0/1001.txt "0 0.49 0.44 0.11 0.08" on 512 × 512 */
  instance = hs_dataset_find_instance (dataset, "0/1001");
  g_assert_nonnull (instance);
  g_assert_cmpstr (instance->image, ==, "images/0/1001.jpg");
  box = &g_array_index (hs_instance_find_region (instance, "class 0")->boxes, HsBox, 0);
  g_assert_cmpfloat_with_epsilon (box->x1, 222.72, 1e-9);
  g_assert_cmpfloat_with_epsilon (box->y1, 204.8, 1e-9);
  g_assert_cmpfloat_with_epsilon (box->x2, 279.04, 1e-9);
  g_assert_cmpfloat_with_epsilon (box->y2, 245.76, 1e-9);
  g_assert_true (hs_dataset_validate (out_dir, &problems));
  hs_import_summary_clear (&summary);

  /* class names from a file: 0 pituitary, 1 meningioma, 2 glioma */
  classes = g_build_filename (dir, "classes.txt", NULL);
  g_assert_true (g_file_set_contents (classes, "pituitary\nmeningioma\nglioma\n", -1, NULL));
  named_dir = g_build_filename (dir, "named", NULL);
  options.classes = classes;
  named = hs_import ("yolo", sources, named_dir, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (hs_instance_find_region (hs_dataset_find_instance (named, "0/1001"), "pituitary"));
  for (guint i = 0; i < hs_dataset_get_n_instances (named); i++)
    {
      HsInstance *in = hs_dataset_get_instance (named, i);
      const char *want = g_str_has_prefix (in->id, "0/") ? "pituitary" :
                         g_str_has_prefix (in->id, "1/") ? "meningioma" : "glioma";
      g_assert_nonnull (hs_instance_find_region (in, want));
    }
}

static const char fixture_script[] =
  "import os, sys, cv2, numpy as np\n"
  "d = sys.argv[1]\n"
  "os.makedirs(d + '/train/images'); os.makedirs(d + '/train/labels')\n"
  "cv2.imwrite(d + '/train/images/a.png', np.zeros((50, 100), np.uint8))\n"
  "cv2.imwrite(d + '/train/images/empty.png', np.zeros((50, 100), np.uint8))\n"
  "open(d + '/train/labels/a.txt', 'w').write(\n"
  "    '1 0.5 0.5 0.2 0.4\\n'      # line 1: ok\n"
  "    '0 0.5 0.5\\n'              # line 2: too few values\n"
  "    'x 0.5 0.5 0.1 0.1\\n'      # line 3: class not a number\n"
  "    '0 1.5 0.5 0.1 0.1\\n'      # line 4: out of [0, 1]\n"
  "    '\\n'\n"
  "    '7 0.5 0.5 0.1 0.1\\n'      # line 6: no such class\n"
  "    '1 0.95 0.1 0.2 0.2\\r\\n'   # line 7: clipped at the right edge\n"
  "    '0 0.1 0.1 0.1 0.1 0.2 0.2')  # line 8: a polygon line\n"
  "open(d + '/data.yaml', 'w').write('path: .\\nnames:\\n  0: cat\\n  1: \"dog\"\\nnc: 2\\n')\n";

static void
test_fixture (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *src = g_build_filename (dir, "src", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *label = g_build_filename (src, "train", "labels", "a.txt", NULL);
  const char *args[] = { src, NULL };
  g_autofree char *made = hs_test_python (fixture_script, args);
  const char *sources[] = { src, NULL };
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) skipped = g_string_new (NULL);
  HsImportSummary summary = { 0 };
  HsInstance *instance;
  HsRegion *dog;
  HsBox *box;
  static const guint bad_lines[] = { 2, 3, 4, 6, 8 };

  if (made == NULL)
    return;
  dataset = hs_import ("yolo", sources, out_dir, NULL, &summary, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < summary.skipped->len; i++)
    {
      g_autofree char *line = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, i));
      g_test_message ("%s", line);
      g_string_append_printf (skipped, "%s\n", line);
    }
  g_assert_cmpuint (summary.skipped->len, ==, G_N_ELEMENTS (bad_lines));
  for (guint i = 0; i < G_N_ELEMENTS (bad_lines); i++)
    {
      g_autofree char *prefix = g_strdup_printf ("%s:%u: ", label, bad_lines[i]);
      g_assert_nonnull (strstr (skipped->str, prefix));
    }
  g_assert_cmpuint (summary.n_instances, ==, 2);
  instance = hs_dataset_find_instance (dataset, "train/images/a");
  g_assert_nonnull (instance);
  dog = hs_instance_find_region (instance, "dog");
  g_assert_nonnull (dog);
  g_assert_cmpuint (dog->boxes->len, ==, 2);
  /* 0.5 ± 0.1 of 100, 0.5 ± 0.2 of 50 */
  box = &g_array_index (dog->boxes, HsBox, 0);
  g_assert_cmpfloat_with_epsilon (box->x1, 40, 1e-9);
  g_assert_cmpfloat_with_epsilon (box->x2, 60, 1e-9);
  g_assert_cmpfloat_with_epsilon (box->y1, 15, 1e-9);
  g_assert_cmpfloat_with_epsilon (box->y2, 35, 1e-9);
  /* 0.95 ± 0.1 of 100 → 85..105, clipped to 100 */
  box = &g_array_index (dog->boxes, HsBox, 1);
  g_assert_cmpfloat_with_epsilon (box->x1, 85, 1e-9);
  g_assert_cmpfloat_with_epsilon (box->x2, 100, 1e-9);
  /* an image without labels is an instance without targets */
  instance = hs_dataset_find_instance (dataset, "train/images/empty");
  g_assert_nonnull (instance);
  g_assert_cmpuint (instance->regions->len, ==, 0);
  hs_import_summary_clear (&summary);
}

static void
on_progress (double fraction, const char *what, gpointer user_data)
{
  g_array_append_val ((GArray *) user_data, fraction);
}

/* The progress callback starts at 0, never goes back, ends at exactly 1;
 * cancelling stops the import with G_IO_ERROR_CANCELLED and no manifest. */
static void
test_progress_cancel (void)
{
  g_autofree char *top = hs_test_shared_path ("mri-brain-tumor");
  g_autofree char *dir = NULL;
  g_autofree char *out_dir = NULL;
  g_autofree char *cancelled_dir = NULL;
  g_autofree char *manifest = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GArray) fractions = g_array_new (FALSE, FALSE, sizeof (double));
  HsImportOptions options = { 0 };
  const char *sources[2] = { NULL, NULL };

  if (top == NULL)
    return;
  sources[0] = top;
  dir = hs_test_make_tmpdir ();
  out_dir = g_build_filename (dir, "yolo", NULL);
  options.progress = on_progress;
  options.progress_data = fractions;
  dataset = hs_import ("yolo", sources, out_dir, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fractions->len, >=, 2);
  g_assert_cmpfloat (g_array_index (fractions, double, 0), ==, 0.0);
  g_assert_cmpfloat (g_array_index (fractions, double, fractions->len - 1), ==, 1.0);
  for (guint i = 1; i < fractions->len; i++)
    g_assert_cmpfloat (g_array_index (fractions, double, i), >=, g_array_index (fractions, double, i - 1));

  /* a cancellable already cancelled: nothing happens */
  g_cancellable_cancel (cancellable);
  options.cancellable = cancellable;
  cancelled_dir = g_build_filename (dir, "cancelled", NULL);
  g_clear_pointer (&dataset, hs_dataset_unref);
  dataset = hs_import ("yolo", sources, cancelled_dir, &options, NULL, &error);
  g_assert_null (dataset);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  manifest = g_build_filename (cancelled_dir, HS_DATASET_MANIFEST, NULL);
  g_assert_false (g_file_test (manifest, G_FILE_TEST_EXISTS));
}

/* HsImportOptions.modality: recorded, without the blanks around it, on
 * every instance; a value without a letter is a usage error naming the
 * modality, and nothing is written. */
static void
test_modality (void)
{
  g_autofree char *top = hs_test_shared_path ("mri-brain-tumor");
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *out_dir = g_build_filename (dir, "mr", NULL);
  g_autofree char *bad_dir = g_build_filename (dir, "bad", NULL);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsImportOptions options = { .modality = " MR\t" };
  const char *sources[2] = { NULL, NULL };

  if (top == NULL)
    return;
  sources[0] = top;
  dataset = hs_import ("yolo", sources, out_dir, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 28);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    g_assert_cmpstr (hs_instance_get_metadata (hs_dataset_get_instance (dataset, i), "modality"), ==, "MR");

  options.modality = "-";
  g_assert_null (hs_import ("yolo", sources, bad_dir, &options, NULL, &error));
  g_assert_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_USAGE);
  g_assert_true (g_str_has_prefix (error->message, "modality \"-\": no letter"));
  g_assert_false (g_file_test (bad_dir, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-yolo/real", test_real);
  g_test_add_func ("/hs/import-yolo/fixture", test_fixture);
  g_test_add_func ("/hs/import-yolo/progress-cancel", test_progress_cancel);
  g_test_add_func ("/hs/import-yolo/modality", test_modality);
  return g_test_run ();
}
