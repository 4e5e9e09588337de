/* test-convert-chexlocalize.c — tools/convert-chexlocalize-maps: CheXlocalize
 * saliency pickles (pickle.dump, torch.save zip and legacy) → npy-folder maps
 * attached to a chexlocalize import, then heatscope-cli metrics on the result */
#include <heatscope/heatscope.h>

#include <math.h>
#include <string.h>

#include "hs-test-util.h"

/* Writes the ground truth, two images and four pickles (one hostile). */
static const char fixture_script[] =
  "import json, os, pickle, sys, cv2, numpy as np, torch\n"
  "d = sys.argv[1]\n"
  "for p in ('patient1', 'patient2'):\n"
  "    os.makedirs(d + '/valid/%s/study1' % p)\n"
  "    cv2.imwrite(d + '/valid/%s/study1/view1_frontal.jpg' % p, np.full((40, 50), 90, np.uint8))\n"
  "gt = {'patient1_study1_view1_frontal': {'img_size': [40, 50],\n"
  "          'Cardiomegaly': [[[10, 10], [30, 10], [30, 30], [10, 30]]],\n"
  "          'Lung Lesion': [[[0, 0], [20, 0], [20, 20], [0, 20]]]},\n"
  "      'patient2_study1_view1_frontal': {'img_size': [40, 50],\n"
  "          'Edema': [[[5, 5], [45, 5], [45, 35], [5, 35]]]}}\n"
  "json.dump(gt, open(d + '/gt_annotations_val.json', 'w'))\n"
  "m = d + '/maps_in'\n"
  "os.makedirs(m)\n"
  "def info(task, t):\n"
  "    return {'map': t, 'prob': 0.75, 'task': task, 'gt': 1,\n"
  "            'cxr_img': torch.zeros(3, 8, 10), 'cxr_dims': (4, 4)}\n"
  "a = torch.arange(12, dtype=torch.float32).reshape(1, 1, 3, 4) + 0.5\n"
  "pickle.dump(info('Cardiomegaly', a), open(m + '/patient1_study1_view1_frontal_Cardiomegaly_map.pkl', 'wb'))\n"
  "b = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])\n"
  "# 'prob' may hold all 14 CheXpert probabilities; Lung Lesion is the 5th\n"
  "torch.save(dict(info('Lung Lesion', b), prob=torch.arange(14, dtype=torch.float64) / 100),\n"
  "           m + '/patient1_study1_view1_frontal_Lung Lesion_map.pkl')\n"
  "torch.save(info('Edema', b * 10), m + '/patient2_study1_view1_frontal_Edema_map.pkl',\n"
  "           _use_new_zipfile_serialization=False)\n"
  "class Hostile:\n"
  "    def __reduce__(self):\n"
  "        return (os.system, ('touch ' + d + '/EXECUTED',))\n"
  "pickle.dump({'map': Hostile(), 'task': 'Edema'},\n"
  "            open(m + '/patient9_study1_view1_frontal_Edema_map.pkl', 'wb'))\n"
  "print('ok')\n";

/* The fixture folder, written once for all cases (importing torch is slow);
 * NULL when python3, torch or cv2 is missing (the case is then skipped). */
static const char *
fixture_dir (void)
{
  static char *dir = NULL;
  static gboolean tried = FALSE;

  if (!tried)
    {
      const char *args[2] = { NULL, NULL };
      g_autofree char *made = NULL;

      tried = TRUE;
      dir = hs_test_make_tmpdir ();
      args[0] = dir;
      made = hs_test_python (fixture_script, args);
      if (made == NULL)
        g_clear_pointer (&dir, g_free);
      else
        g_assert_cmpstr (made, ==, "ok\n");
    }
  else if (dir == NULL)
    g_test_skip ("python3 with torch and cv2 is needed for the fixtures");
  return dir;
}

static char *
tool_path (void)
{
  return g_build_filename (hs_test_source_dir (), "tools", "convert-chexlocalize-maps", NULL);
}

static int
run_tool (const char *in, const char *out, gboolean resize, char **stdout_text, char **stderr_text)
{
  g_autofree char *tool = tool_path ();
  const char *argv[] = { "/usr/bin/python3", tool, in, "-o", out, "--model", "gradcam",
                         resize ? "--resize" : NULL, NULL };
  int status = -1;

  hs_test_run (argv, stdout_text, stderr_text, &status);
  return status;
}

static void
check_map (HsDataset *dataset, const char *instance_id, const char *query,
           guint height, guint width, const double *expected)
{
  HsInstance *instance = hs_dataset_find_instance (dataset, instance_id);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  HsMapRef *ref;
  const double *values;

  g_assert_nonnull (instance);
  ref = hs_instance_find_map (instance, "gradcam", query);
  g_assert_nonnull (ref);
  map = hs_dataset_load_map (dataset, ref, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_height (map), ==, height);
  g_assert_cmpuint (hs_attention_map_get_width (map), ==, width);
  values = hs_attention_map_peek_values (map);
  for (guint i = 0; i < height * width; i++)
    g_assert_cmpfloat_with_epsilon (values[i], expected[i], 1e-6);
}

static void
test_convert_import_metrics (void)
{
  const char *dir = fixture_dir ();
  g_autofree char *maps_in = g_build_filename (dir, "maps_in", NULL);
  g_autofree char *maps_out = g_build_filename (dir, "maps_out", NULL);
  g_autofree char *gt = g_build_filename (dir, "gt_annotations_val.json", NULL);
  g_autofree char *ds_dir = g_build_filename (dir, "ds", NULL);
  g_autofree char *executed = g_build_filename (dir, "EXECUTED", NULL);
  g_autofree char *csv_path = g_build_filename (maps_out, "probabilities.csv", NULL);
  g_autofree char *csv = NULL;
  g_autofree char *out = NULL, *err = NULL, *mout = NULL, *merr = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsDataset) with_maps = NULL;
  g_autoptr(GError) error = NULL;
  HsImportSummary summary = { 0 };
  int status;

  if (dir == NULL)
    return;

  /* the hostile pickle is refused (and not run); the other three convert */
  status = run_tool (maps_in, maps_out, FALSE, &out, &err);
  g_assert_cmpint (status, ==, 1);
  g_assert_cmpstr (out, ==, "converted 3 map(s), 1 failed\n");
  g_assert_nonnull (strstr (err, "patient9_study1_view1_frontal_Edema_map.pkl: "));
  g_assert_nonnull (strstr (err, "refusing to load posix.system"));
  g_assert_false (g_file_test (executed, G_FILE_TEST_EXISTS));
  for (guint i = 0; i < 3; i++)
    {
      static const char *names[] = {
        "patient1_study1_view1_frontal__gradcam__class_Cardiomegaly.npy",
        "patient1_study1_view1_frontal__gradcam__class_Lung_Lesion.npy",
        "patient2_study1_view1_frontal__gradcam__class_Edema.npy",
      };
      g_autofree char *path = g_build_filename (maps_out, names[i], NULL);
      g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }
  g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  g_assert_nonnull (strstr (csv, "patient1_study1_view1_frontal,gradcam,class:Cardiomegaly,0.75,1,"));
  g_assert_nonnull (strstr (csv, "patient1_study1_view1_frontal,gradcam,class:Lung Lesion,0.04,1,"));

  /* ground truth, then the maps attached by npy-folder */
  {
    const char *sources[] = { gt, dir, NULL };
    dataset = hs_import ("chexlocalize", sources, ds_dir, NULL, &summary, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (summary.n_instances, ==, 2);
    g_assert_cmpuint (summary.skipped->len, ==, 0);
    hs_import_summary_clear (&summary);
  }
  {
    const char *sources[] = { maps_out, NULL };
    with_maps = hs_import ("npy-folder", sources, ds_dir, NULL, &summary, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (summary.n_maps, ==, 3);
    g_assert_cmpuint (summary.skipped->len, ==, 0);
    hs_import_summary_clear (&summary);
  }
  g_clear_pointer (&with_maps, hs_dataset_unref);
  with_maps = hs_dataset_load (ds_dir, &error);
  g_assert_no_error (error);
  {
    double expected[12];
    for (guint i = 0; i < 12; i++)
      expected[i] = i + 0.5;
    check_map (with_maps, "patient1_study1_view1_frontal", "class:Cardiomegaly", 3, 4, expected);
  }
  {
    const double expected[] = { 1, 2, 3, 4 };
    check_map (with_maps, "patient1_study1_view1_frontal", "class:Lung Lesion", 2, 2, expected);
  }
  {
    const double expected[] = { 10, 20, 30, 40 };
    check_map (with_maps, "patient2_study1_view1_frontal", "class:Edema", 2, 2, expected);
  }

  /* heatscope-cli metrics scores the three maps */
  {
    const char *argv[] = { hs_test_cli (), "metrics", ds_dir, "--format", "csv", NULL };
    g_autofree char *header_end = NULL;
    g_auto(GStrv) lines = NULL;

    hs_test_run (argv, &mout, &merr, &status);
    g_assert_cmpint (status, ==, 0);
    lines = g_strsplit (mout, "\n", -1);
    /* header, three rows, the empty string after the last newline */
    g_assert_cmpuint (g_strv_length (lines), ==, 5);
    g_assert_nonnull (strstr (mout, "patient1_study1_view1_frontal,class:Cardiomegaly,gradcam"));
    g_assert_nonnull (strstr (mout, "patient2_study1_view1_frontal,class:Edema,gradcam"));
  }
}

/* --resize: bilinear, align_corners=False, to cxr_dims (w, h) = (4, 4).
 * From [[1, 2], [3, 4]] each output pixel centre maps to source coordinate
 * (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 (clamped to 0 and 1), so each
 * axis weights 0, 0.25, 0.75, 1: row 0 is 1, 1.25, 1.75, 2 and each row below
 * adds 2 × the same weights (0, 0.5, 1.5, 2). */
static void
test_resize (void)
{
  const char *dir = fixture_dir ();
  g_autofree char *maps_in = g_build_filename (dir, "maps_in", NULL);
  g_autofree char *one = g_build_filename (maps_in, "patient1_study1_view1_frontal_Lung Lesion_map.pkl", NULL);
  g_autofree char *maps_out = g_build_filename (dir, "maps_resized", NULL);
  g_autofree char *npy = g_build_filename (maps_out, "patient1_study1_view1_frontal__gradcam__class_Lung_Lesion.npy", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(GError) error = NULL;
  const double axis[] = { 0, 0.25, 0.75, 1 };
  const double *values;

  if (dir == NULL)
    return;
  g_assert_cmpint (run_tool (one, maps_out, TRUE, &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");
  map = hs_attention_map_load_npy (npy, NULL, NAN, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_height (map), ==, 4);
  g_assert_cmpuint (hs_attention_map_get_width (map), ==, 4);
  values = hs_attention_map_peek_values (map);
  for (guint y = 0; y < 4; y++)
    for (guint x = 0; x < 4; x++)
      g_assert_cmpfloat_with_epsilon (values[y * 4 + x], 1 + axis[x] + 2 * axis[y], 1e-6);
}

static void
test_bad_inputs (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *bad = g_build_filename (dir, "x_Edema_map.pkl", NULL);
  g_autofree char *missing = g_build_filename (dir, "nothing.pkl", NULL);
  g_autofree char *maps_out = g_build_filename (dir, "out", NULL);
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

  g_assert_true (g_file_set_contents (bad, "not a pickle", -1, NULL));
  g_assert_cmpint (run_tool (bad, maps_out, FALSE, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "x_Edema_map.pkl: "));
  g_assert_cmpint (run_tool (missing, maps_out, FALSE, &out2, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "nothing.pkl: no such file or folder"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/convert-chexlocalize/convert-import-metrics", test_convert_import_metrics);
  g_test_add_func ("/hs/convert-chexlocalize/resize", test_resize);
  g_test_add_func ("/hs/convert-chexlocalize/bad-inputs", test_bad_inputs);
  return g_test_run ();
}
