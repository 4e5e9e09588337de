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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/cli-import/real-yolo", test_real_yolo);
  g_test_add_func ("/hs/cli-import/skipped-rows", test_skipped_rows);
  g_test_add_func ("/hs/cli-import/usage", test_usage);
  return g_test_run ();
}
