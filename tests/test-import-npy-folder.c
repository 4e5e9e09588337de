/* test-import-npy-folder.c — maps named <instance>__<model>__<query>.npy */
#include <heatscope/heatscope.h>

#include <math.h>
#include <string.h>

#include "hs-test-util.h"

static const char maps_script[] =
  "import os, sys, numpy as np\n"
  "d = sys.argv[1]; os.makedirs(d)\n"
  "np.save(d + '/a__gloria__p1.npy', np.arange(12, dtype='<f4').reshape(3, 4))\n"
  "np.save(d + '/a__biovil__p9.npy', np.zeros((3, 4)))\n"
  "np.save(d + '/b__gloria__p1.npy', np.zeros((3, 4)))\n"
  "np.save(d + '/bad_name.npy', np.zeros((3, 4)))\n"
  "m = np.zeros((2, 3, 4)); m[0, 1, 2] = np.nan\n"
  "np.save(d + '/a__broken__p1.npy', m)\n"
  "np.save(d + '/0_1001__gloria__class_tumour.npy', np.ones((2, 5, 5), '>f8'))\n"
  "open(d + '/notes.txt', 'w').write('not a map')\n";

static void
test_attach (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *ds_dir = g_build_filename (dir, "ds", NULL);
  g_autofree char *maps = g_build_filename (dir, "maps", NULL);
  g_autofree char *made = NULL;
  const char *args[] = { maps, NULL };
  const char *sources[] = { maps, NULL };
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsDataset) attached = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) skipped = g_string_new (NULL);
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  HsImportSummary summary = { 0 };
  HsInstance *instance;
  HsSentence *sentence;
  HsMapRef *ref;

  /* a dataset with instances "a" (query p1) and "0/1001" (query class:tumour) */
  dataset = hs_dataset_new (ds_dir, "maps test");
  image = hs_image_new (4, 3, 1, 8, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (ds_dir, 0755), ==, 0);
  {
    g_autofree char *png = g_build_filename (ds_dir, "a.png", NULL);
    g_assert_true (hs_image_save_png (image, png, &error));
  }
  instance = hs_instance_new ("a", "a.png");
  hs_instance_add_sentence (instance, hs_sentence_new ("p1", "Opacity."));
  hs_dataset_add_instance (dataset, instance);
  instance = hs_instance_new ("0/1001", "a.png");
  sentence = hs_sentence_new ("class:tumour", "tumour");
  hs_sentence_set_kind (sentence, "class");
  hs_instance_add_sentence (instance, sentence);
  hs_dataset_add_instance (dataset, instance);
  g_assert_true (hs_dataset_save (dataset, &error));

  made = hs_test_python (maps_script, args);
  if (made == NULL)
    return;
  attached = hs_import ("npy-folder", sources, ds_dir, NULL, &summary, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < summary.skipped->len; i++)
    {
      g_autofree char *line = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, i));
      g_test_message ("%s", line);
      g_string_append_printf (skipped, "%s\n", line);
    }
  g_assert_cmpuint (summary.n_maps, ==, 2);
  g_assert_cmpuint (summary.skipped->len, ==, 4);
  g_assert_nonnull (strstr (skipped->str, "a__biovil__p9.npy: instance 'a' has no query 'p9'"));
  g_assert_nonnull (strstr (skipped->str, "b__gloria__p1.npy: the dataset has no instance 'b'"));
  g_assert_nonnull (strstr (skipped->str, "bad_name.npy: name is not"));
  g_assert_nonnull (strstr (skipped->str, "a__broken__p1.npy: "));
  g_assert_nonnull (strstr (skipped->str, "(token 0, row 1, col 2) is NaN"));
  hs_import_summary_clear (&summary);

  /* reload from disk: the maps are in the manifest and inside the folder */
  g_clear_pointer (&dataset, hs_dataset_unref);
  dataset = hs_dataset_load (ds_dir, &error);
  g_assert_no_error (error);
  ref = hs_instance_find_map (hs_dataset_find_instance (dataset, "a"), "gloria", "p1");
  g_assert_nonnull (ref);
  g_assert_cmpstr (ref->file, ==, "maps/gloria/a__p1.npy");
  map = hs_dataset_load_map (dataset, ref, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (hs_attention_map_peek_values (map)[7], ==, 7.0);
  ref = hs_instance_find_map (hs_dataset_find_instance (dataset, "0/1001"), "gloria", "class:tumour");
  g_assert_nonnull (ref);
  g_assert_true (hs_dataset_validate (ds_dir, &problems));

  /* attaching again replaces, not duplicates */
  g_clear_pointer (&attached, hs_dataset_unref);
  attached = hs_import ("npy-folder", sources, ds_dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_find_instance (attached, "a")->maps->len, ==, 1);
  /* under a new name: the file the manifest on disk recorded is not touched
   * before the new manifest is in place */
  ref = hs_instance_find_map (hs_dataset_find_instance (attached, "a"), "gloria", "p1");
  g_assert_cmpstr (ref->file, ==, "maps/gloria/a__p1~2.npy");
  g_clear_pointer (&problems, g_ptr_array_unref);
  g_assert_true (hs_dataset_validate (ds_dir, &problems));

  /* a folder without a dataset */
  g_clear_pointer (&attached, hs_dataset_unref);
  attached = hs_import ("npy-folder", sources, maps, NULL, NULL, &error);
  g_assert_null (attached);
  g_assert_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-npy-folder/attach", test_attach);
  return g_test_run ();
}
