/* test-cli-import.c — heatscope-cli import */
#include <heatscope/heatscope.h>

#include <glib/gstdio.h>
#include <string.h>

#include "hs-test-util.h"

static int
run (const char * const *argv, char **out, char **err)
{
  int status = -1;

  hs_test_run (argv, out, err, &status);
  return status;
}

static void
test_real_yolo (void)
{
  g_autofree char *top = hs_test_shared_path ("mri-brain-tumor");
  g_autofree char *dir = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *vout = NULL, *verr = NULL;
  g_autofree char *expected = NULL;

  if (top == NULL)
    return;
  {
    g_autofree char *tmp = hs_test_make_tmpdir ();
    dir = g_build_filename (tmp, "ds", NULL);
  }
  {
    const char *argv[] = { hs_test_cli (), "import", "yolo", top, "-o", dir, NULL };
    g_assert_cmpint (run (argv, &out, &err), ==, 0);
  }
  expected = g_strdup_printf ("imported 28 instances, 28 sentences, 28 targets; 0 rows skipped -> %s/heatscope.json\n", dir);
  g_assert_cmpstr (out, ==, expected);
  g_assert_cmpstr (err, ==, "");
  {
    const char *argv[] = { hs_test_cli (), "validate", dir, NULL };
    g_assert_cmpint (run (argv, &vout, &verr), ==, 0);
    g_assert_true (g_str_has_prefix (vout, "ok: 28 instances"));
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  /* the folder now holds a dataset */
  {
    const char *argv[] = { hs_test_cli (), "import", "yolo", top, "-o", dir, NULL };
    g_assert_cmpint (run (argv, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "--force"));
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    const char *argv[] = { hs_test_cli (), "import", "yolo", top, "-o", dir, "--force", NULL };
    g_assert_cmpint (run (argv, &out, &err), ==, 0);
  }
}

static void
test_skipped_rows (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *src = g_build_filename (dir, "src", NULL);
  g_autofree char *labels = g_build_filename (src, "a.txt", NULL);
  g_autofree char *png = g_build_filename (src, "a.png", NULL);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *line2 = g_strdup_printf ("%s:2: expected \"class x_center y_center width height\"\n", labels);
  g_autofree char *line3 = g_strdup_printf ("%s:3: coordinates must be numbers in [0, 1]\n", labels);
  g_autoptr(HsImage) image = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (src, 0755), ==, 0);
  image = hs_image_new (8, 8, 1, 8, &error);
  g_assert_no_error (error);
  g_assert_true (hs_image_save_png (image, png, &error));
  g_assert_true (g_file_set_contents (labels, "0 0.5 0.5 0.5 0.5\n0 0.5\n0 2 0.5 0.5 0.5\n", -1, NULL));
  {
    const char *argv[] = { hs_test_cli (), "import", "yolo", src, "-o", ds, NULL };
    g_assert_cmpint (run (argv, &out, &err), ==, 0);
  }
  g_assert_true (g_str_has_prefix (out, "imported 1 instances, 1 sentences, 1 targets; 2 rows skipped"));
  g_assert_nonnull (strstr (err, line2));
  g_assert_nonnull (strstr (err, line3));
}

static void
test_usage (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  struct { const char *args[6]; int status; const char *needle; } cases[] = {
    { { "import", NULL }, 2, "missing FORMAT" },
    { { "import", "yolo", dir, NULL }, 2, "missing -o" },
    { { "import", "pascal-voc", dir, "-o", ds, NULL }, 2, "unknown import format 'pascal-voc'" },
    { { "import", "coco", dir, dir, dir, NULL }, 2, "missing -o" },
    { { "import", "yolo", missing, "-o", ds, NULL }, 1, "no such file" },
    { { "import", "--bogus", NULL }, 2, "bogus" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *argv[8] = { hs_test_cli () };
      g_autofree char *out = NULL, *err = NULL;

      for (guint k = 0; cases[i].args[k] != NULL; k++)
        argv[k + 1] = cases[i].args[k];
      g_assert_cmpint (run (argv, &out, &err), ==, cases[i].status);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, cases[i].needle));
    }
}

/* The "modality" metadata of every instance of the dataset at `dir`, or
 * NULL where it has none ("(none)" in the list), in instance order. */
static char *
modalities (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (dir, &error);
  GString *list = g_string_new (NULL);

  g_assert_no_error (error);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      const char *modality = hs_instance_get_metadata (hs_dataset_get_instance (dataset, i), "modality");

      g_string_append_printf (list, "%s%s", i > 0 ? "," : "", modality != NULL ? modality : "(none)");
    }
  return g_string_free (list, FALSE);
}

/* The lines of `csv` whose subset column (the second) is `subset`. */
static guint
count_subset_lines (const char *csv, const char *subset, GString *lines)
{
  g_auto(GStrv) rows = g_strsplit (csv, "\n", -1);
  g_autofree char *needle = g_strdup_printf (",%s,", subset);
  guint n = 0;

  for (guint i = 1; rows[i] != NULL; i++)
    {
      const char *comma = strchr (rows[i], ',');

      if (comma != NULL && g_str_has_prefix (comma, needle))
        {
          n++;
          if (lines != NULL)
            g_string_append_printf (lines, "%s\n", rows[i]);
        }
    }
  return n;
}

/* Imports the real MRI slices (yolo) into DIR/NAME with `modality` (NULL:
 * no option), attends them with the built-in model and returns metrics
 * --summary. */
static char *
import_attend_summary (const char *top, const char *dir, const char *name, const char *modality)
{
  g_autofree char *ds = g_build_filename (dir, name, NULL);
  g_autofree char *out = NULL, *err = NULL, *summary = NULL;
  const char *import[] = { hs_test_cli (), "import", "yolo", top, "-o", ds, "-q",
                           modality != NULL ? "--modality" : NULL, modality, NULL };
  const char *attend[] = { hs_test_cli (), "attend", ds, NULL };
  const char *metrics[] = { hs_test_cli (), "metrics", "--summary", ds, NULL };

  hs_test_run_ok (import);
  hs_test_run_ok (attend);
  g_assert_cmpint (run (metrics, &summary, &err), ==, 0);
  return g_steal_pointer (&summary);
}

/* The real MRI slices (brain tumours, one box each, on one side of the
 * head) imported with --modality MR: every instance is MR, and metrics
 * --summary lists no chest subset (one_lung, mdrb); imported without the
 * option they have no modality and the same sentences are one_lung, as
 * before; the "all" lines are the same either way. */
static void
test_modality_mri (void)
{
  g_autofree char *top = hs_test_shared_path ("mri-brain-tumor");
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *mr_dir = g_build_filename (dir, "mr", NULL);
  g_autofree char *plain_dir = g_build_filename (dir, "plain", NULL);
  g_autofree char *mr = NULL, *plain = NULL, *mr_list = NULL, *plain_list = NULL;
  g_autoptr(GString) mr_all = g_string_new (NULL), plain_all = g_string_new (NULL);
  g_autoptr(GString) all_mr = g_string_new (NULL), all_none = g_string_new (NULL);

  if (top == NULL)
    return;
  mr = import_attend_summary (top, dir, "mr", "MR");
  plain = import_attend_summary (top, dir, "plain", NULL);
  g_test_message ("with --modality MR:\n%s\nwithout:\n%s", mr, plain);

  /* 28 slices */
  for (guint i = 0; i < 28; i++)
    {
      g_string_append (all_mr, i > 0 ? ",MR" : "MR");
      g_string_append (all_none, i > 0 ? ",(none)" : "(none)");
    }
  mr_list = modalities (mr_dir);
  plain_list = modalities (plain_dir);
  g_assert_cmpstr (mr_list, ==, all_mr->str);
  g_assert_cmpstr (plain_list, ==, all_none->str);

  g_assert_cmpuint (count_subset_lines (mr, "all", mr_all), >, 0);
  g_assert_cmpuint (count_subset_lines (mr, "one_lung", NULL), ==, 0);
  g_assert_cmpuint (count_subset_lines (mr, "mdrb", NULL), ==, 0);
  /* the old behaviour without the option: the one-sided tumours are one_lung */
  g_assert_cmpuint (count_subset_lines (plain, "all", plain_all), >, 0);
  g_assert_cmpuint (count_subset_lines (plain, "one_lung", NULL), >, 0);
  g_assert_cmpstr (mr_all->str, ==, plain_all->str);
}

/* Bad --modality values: a one-line usage error naming the option, and no
 * dataset written. */
static void
test_modality_bad (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *src = g_build_filename (dir, "src", NULL);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *long_text = g_strnfill (65, 'x');
  struct { const char *format; const char *value; const char *needle; } cases[] = {
    { "yolo", "", "--modality \"\": no letter" },
    { "yolo", "   ", "--modality \"   \": no letter" },
    { "yolo", "42", "--modality \"42\": no letter" },
    { "yolo", "M\nR", "--modality \"M\\nR\": a control character" },
    { "yolo", "\xff" "MR", "not UTF-8" },
    { "yolo", long_text, "longer than 64 characters" },
    { "npy-folder", "MR", "npy-folder attaches maps and writes no instances" },
  };

  g_assert_cmpint (g_mkdir_with_parents (src, 0755), ==, 0);
  hs_test_write_png (src, "a.png", 8, 8);
  hs_test_write_file (src, "a.txt", "0 0.5 0.5 0.5 0.5\n");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *argv[] = { hs_test_cli (), "import", cases[i].format, src, "-o", ds,
                             "--modality", cases[i].value, NULL };
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (run (argv, &out, &err), ==, 2);
      g_test_message ("%s", err);
      g_assert_true (g_str_has_prefix (err, "heatscope-cli import: --modality "));
      g_assert_nonnull (strstr (err, cases[i].needle));
      g_assert_cmpstr (strchr (err, '\n'), ==, "\n");
      g_assert_cmpstr (out, ==, "");
      g_assert_false (g_file_test (ds, G_FILE_TEST_EXISTS));
    }
  /* blanks around a good value are dropped */
  {
    const char *argv[] = { hs_test_cli (), "import", "yolo", src, "-o", ds, "--modality",
                           "  magnetic resonance ", NULL };
    g_autofree char *list = NULL;

    hs_test_run_ok (argv);
    list = modalities (ds);
    g_assert_cmpstr (list, ==, "magnetic resonance");
  }
}

/* Copies the shared file `relative` to DIR/NAME. */
static gboolean
copy_shared (const char *relative, const char *dir, const char *name)
{
  g_autofree char *path = hs_test_shared_path (relative);
  g_autofree char *dest = NULL;
  g_autofree char *contents = NULL;
  gsize len;

  if (path == NULL)
    return FALSE;
  dest = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (dest, contents, (gssize) len, NULL));
  return TRUE;
}

/* An importer whose source says the modality records it: DICOM images'
 * Modality (0008,0060) (MR_small: MR, the CR chest: CR — as dcmdump reads
 * them), none for a PNG; the MR slice's one-sided box is no one_lung
 * target, the CR one's is.  --modality replaces them all, as it replaces
 * covid-seg's metadata.csv column ("X-ray" on the real set). */
static void
test_modality_from_source (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *src = g_build_filename (dir, "src", NULL);
  g_autofree char *csv = g_build_filename (src, "annotations.csv", NULL);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *over = g_build_filename (dir, "over", NULL);
  g_autofree char *covid = hs_test_shared_path ("cxr-covid-seg");
  g_autofree char *covid_ds = g_build_filename (dir, "covid", NULL);
  g_autofree char *covid_over = g_build_filename (dir, "covid-over", NULL);
  g_autofree char *list = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (src, 0755), ==, 0);
  if (!copy_shared ("dicom/pydicom-MR_small.dcm", src, "mr.dcm") ||
      !copy_shared ("dicom/CR-MONO1-10-chest.dcm", src, "cr.dcm") || covid == NULL)
    return;
  hs_test_write_png (src, "png.png", 64, 64);
  /* a box on the image's left half of each (MR_small is 64², the CR 440²) */
  hs_test_write_file (src, "annotations.csv",
                      "image_id,class_name,class_id,rad_id,x_min,y_min,x_max,y_max\n"
                      "mr,Nodule/Mass,8,R1,4,20,20,40\n"
                      "cr,Nodule/Mass,8,R1,40,100,150,200\n"
                      "png,Nodule/Mass,8,R1,4,20,20,40\n");
  {
    const char *argv[] = { hs_test_cli (), "import", "vindr-cxr", csv, "-o", ds, NULL };
    hs_test_run_ok (argv);
  }
  list = modalities (ds);
  g_assert_cmpstr (list, ==, "MR,CR,(none)");
  dataset = hs_dataset_load (ds, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      HsSentence *sentence = g_ptr_array_index (instance->sentences, 0);
      guint subsets = hs_dataset_get_subsets (dataset, instance, sentence);

      g_assert_cmpuint (subsets & HS_SUBSET_ONE_LUNG, ==,
                        strcmp (instance->id, "mr") == 0 ? 0 : HS_SUBSET_ONE_LUNG);
    }
  g_clear_pointer (&list, g_free);
  {
    const char *argv[] = { hs_test_cli (), "import", "vindr-cxr", csv, "-o", over,
                           "--modality", "CT", NULL };
    hs_test_run_ok (argv);
  }
  list = modalities (over);
  g_assert_cmpstr (list, ==, "CT,CT,CT");

  /* covid-seg's metadata.csv says "X-ray"; --modality replaces it */
  g_clear_pointer (&list, g_free);
  {
    const char *argv[] = { hs_test_cli (), "import", "covid-seg", covid, "-o", covid_ds, "-q", NULL };
    hs_test_run_ok (argv);
  }
  list = modalities (covid_ds);
  g_assert_true (g_str_has_prefix (list, "X-ray,X-ray"));
  g_assert_null (strstr (list, "(none)"));
  g_clear_pointer (&list, g_free);
  {
    const char *argv[] = { hs_test_cli (), "import", "covid-seg", covid, "-o", covid_over, "-q",
                           "--modality", "DX", NULL };
    hs_test_run_ok (argv);
  }
  list = modalities (covid_over);
  g_assert_true (g_str_has_prefix (list, "DX,DX"));
  g_assert_null (strstr (list, "X-ray"));
  g_assert_null (strstr (list, "(none)"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/cli-import/real-yolo", test_real_yolo);
  g_test_add_func ("/hs/cli-import/skipped-rows", test_skipped_rows);
  g_test_add_func ("/hs/cli-import/usage", test_usage);
  g_test_add_func ("/hs/cli-import/modality-mri", test_modality_mri);
  g_test_add_func ("/hs/cli-import/modality-bad", test_modality_bad);
  g_test_add_func ("/hs/cli-import/modality-from-source", test_modality_from_source);
  return g_test_run ();
}
