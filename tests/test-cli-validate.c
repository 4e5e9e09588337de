/* test-cli-validate.c — heatscope-cli validate DATASET */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

static void
make_valid (const char *dir)
{
  g_autofree char *image_path = g_build_filename (dir, "images", "a.png", NULL);
  g_autofree char *map_path = g_build_filename (dir, "maps", "a.npy", NULL);
  g_autofree char *images = g_build_filename (dir, "images", NULL);
  g_autofree char *maps = g_build_filename (dir, "maps", NULL);
  g_autoptr(HsImage) image = NULL;
  g_autoptr(GError) error = NULL;
  const gsize shape[] = { 2, 3 };
  const double values[] = { 0, 1, 2, 3, 4, 5 };

  g_assert_cmpint (g_mkdir_with_parents (images, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (maps, 0755), ==, 0);
  image = hs_image_new (30, 20, 1, 16, &error);
  g_assert_no_error (error);
  g_assert_true (hs_image_save_png (image, image_path, &error));
  g_assert_no_error (error);
  g_assert_true (hs_npy_write (map_path, HS_DTYPE_FLOAT64, 2, shape, values, FALSE, FALSE, &error));
  g_assert_no_error (error);
  hs_test_write_file (dir, "heatscope.json",
              "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
              " {\"id\": \"a\", \"image\": \"images/a.png\","
              "  \"regions\": {\"r\": {\"boxes\": [[1, 1, 10, 10]]}},"
              "  \"sentences\": [{\"id\": \"s0\", \"text\": \"x\", \"targets\": [\"r\"]},"
              "                {\"id\": \"s1\", \"text\": \"y\"}],"
              "  \"maps\": [{\"model\": \"m\", \"query\": \"s0\", \"file\": \"maps/a.npy\"}]},"
              " {\"id\": \"b\", \"image\": \"images/a.png\"}]}");
}

static void
test_valid (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *manifest = g_build_filename (dir, "heatscope.json", NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;

  make_valid (dir);
  {
    const char *argv[] = { hs_test_cli (), "validate", dir, NULL };
    hs_test_run (argv, &out, &err, &status);
  }
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==, "ok: 2 instances, 2 sentences, 1 maps\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* The manifest path works too. */
  {
    const char *argv[] = { hs_test_cli (), "validate", manifest, NULL };
    hs_test_run (argv, &out, &err, &status);
  }
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==, "ok: 2 instances, 2 sentences, 1 maps\n");
}

static void
test_problems (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *manifest = NULL;
  g_autofree char *map_file = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *line0 = NULL, *line1 = NULL, *line2 = NULL;
  int status = -1;

  make_valid (dir);
  manifest = g_build_filename (dir, "heatscope.json", NULL);
  map_file = g_build_filename (dir, "maps", "a.npy", NULL);
  /* Three problems: a box outside the 30 × 20 image, an unknown region and a
   * map file that is not a .npy. */
  hs_test_write_file (dir, "maps/a.npy", "not numpy");
  hs_test_write_file (dir, "heatscope.json",
              "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
              " {\"id\": \"a\", \"image\": \"images/a.png\","
              "  \"regions\": {\"r\": {\"boxes\": [[1, 1, 40, 10]]}},"
              "  \"sentences\": [{\"id\": \"s0\", \"text\": \"x\", \"targets\": [\"q\"]}],"
              "  \"maps\": [{\"model\": \"m\", \"query\": \"s0\", \"file\": \"maps/a.npy\"}]}]}");
  {
    const char *argv[] = { hs_test_cli (), "validate", dir, NULL };
    hs_test_run (argv, &out, &err, &status);
  }
  g_assert_cmpint (status, ==, 1);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);    /* three lines and the empty tail */
  g_assert_cmpstr (lines[3], ==, "");
  line0 = g_strdup_printf ("%s: $.instances[0].regions.r.boxes[0]: box [1, 1, 40, 10] reaches outside the 30 × 20 image", manifest);
  line1 = g_strdup_printf ("%s: $.instances[0].sentences[0].targets[0]: unknown region \"q\"", manifest);
  line2 = g_strdup_printf ("%s: $.instances[0].maps[0].file: ", map_file);
  g_assert_cmpstr (lines[0], ==, line0);
  g_assert_true (g_str_has_prefix (lines[1], line1));
  g_assert_true (g_str_has_prefix (lines[2], line2));
  g_assert_nonnull (strstr (err, "3 problems"));
}

/* Co-attention: a valid tag list passes; each bad one is a line naming the
 * manifest and the JSON path of the list or the tag, and validate goes on. */
static void
test_tag_attention (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *manifest = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *line0 = NULL, *line1 = NULL;
  g_auto(GStrv) lines = NULL;
  int status = -1;

  make_valid (dir);
  manifest = g_build_filename (dir, "heatscope.json", NULL);
  hs_test_write_file (dir, "heatscope.json",
              "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
              " {\"id\": \"a\", \"image\": \"images/a.png\","
              "  \"sentences\": [{\"id\": \"s0\", \"text\": \"x\"}, {\"id\": \"s1\", \"text\": \"y\"}],"
              "  \"maps\": [{\"model\": \"m\", \"query\": \"s0\", \"file\": \"maps/a.npy\","
              "             \"tag_attention\": [{\"tag\": \"effusion\", \"weight\": 0.6},"
              "                               {\"tag\": \"normal\", \"weight\": 0.4004}]}]}]}");
  {
    const char *argv[] = { hs_test_cli (), "validate", dir, NULL };
    hs_test_run (argv, &out, &err, &status);
  }
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==, "ok: 1 instances, 2 sentences, 1 maps\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  hs_test_write_file (dir, "heatscope.json",
              "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
              " {\"id\": \"a\", \"image\": \"images/a.png\","
              "  \"sentences\": [{\"id\": \"s0\", \"text\": \"x\"}, {\"id\": \"s1\", \"text\": \"y\"}],"
              "  \"maps\": [{\"model\": \"m\", \"query\": \"s0\", \"file\": \"maps/a.npy\","
              "             \"tag_attention\": [{\"tag\": \"effusion\", \"weight\": 0.6},"
              "                               {\"tag\": \"normal\", \"weight\": 0.3}]},"
              "            {\"model\": \"m\", \"query\": \"s1\", \"file\": \"maps/a.npy\","
              "             \"tag_attention\": [{\"tag\": \"a\", \"weight\": 0.5},"
              "                               {\"tag\": \"a\", \"weight\": 0.5}]}]}]}");
  {
    const char *argv[] = { hs_test_cli (), "validate", dir, NULL };
    hs_test_run (argv, &out, &err, &status);
  }
  g_assert_cmpint (status, ==, 1);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  line0 = g_strdup_printf ("%s: $.instances[0].maps[0].tag_attention: the tag weights sum to 0.9, not 1 (within 0.001)", manifest);
  line1 = g_strdup_printf ("%s: $.instances[0].maps[1].tag_attention[1].tag: tag \"a\" is listed twice", manifest);
  g_assert_cmpstr (lines[0], ==, line0);
  g_assert_cmpstr (lines[1], ==, line1);
  g_assert_nonnull (strstr (err, "2 problems"));
}

/* A dataset written by the library records its files; validate reports an
 * image whose bytes were swapped for another's (FILE: JSONPATH: message),
 * and nothing before. */
static void
test_changed_file (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *a_path = g_build_filename (dir, "images", "a.png", NULL);
  g_autofree char *b_path = g_build_filename (dir, "images", "b.png", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *b_bytes = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "changed");
  g_autoptr(GError) error = NULL;
  gsize a_len = 0, b_len = 0;
  int status = -1;

  make_valid (dir);
  {
    g_autoptr(HsImage) image = hs_image_new (30, 20, 1, 8, &error);
    guint16 *data = hs_image_get_data (image);

    for (guint i = 0; i < 30 * 20; i++)
      data[i] = (i * 37) % 256;
    g_assert_true (hs_image_save_png (image, b_path, &error));
    g_assert_no_error (error);
  }
  hs_dataset_add_instance (dataset, hs_instance_new ("a", "images/a.png"));
  hs_dataset_add_instance (dataset, hs_instance_new ("b", "images/b.png"));
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  {
    const char *argv[] = { hs_test_cli (), "validate", dir, NULL };
    hs_test_run (argv, &out, &err, &status);
  }
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a.png gets b.png's bytes. */
  {
    g_autofree char *a_bytes = NULL;

    g_assert_true (g_file_get_contents (a_path, &a_bytes, &a_len, NULL));
  }
  g_assert_true (g_file_get_contents (b_path, &b_bytes, &b_len, NULL));
  g_assert_cmpuint (a_len, !=, b_len);
  g_assert_true (g_file_set_contents (a_path, b_bytes, b_len, NULL));
  {
    const char *argv[] = { hs_test_cli (), "validate", dir, NULL };
    hs_test_run (argv, &out, &err, &status);
  }
  g_assert_cmpint (status, ==, 1);
  expected = g_strdup_printf ("%s: $.instances[0].image_bytes: the file has %" G_GSIZE_FORMAT
                              " bytes, the manifest recorded %" G_GSIZE_FORMAT ": it changed after the "
                              "manifest was written\n", a_path, b_len, a_len);
  g_assert_cmpstr (out, ==, expected);
  g_assert_nonnull (strstr (err, "1 problem"));
}

static void
test_usage (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  int status = -1;

  {
    const char *argv[] = { hs_test_cli (), "validate", NULL };
    g_autofree char *out = NULL, *err = NULL;

    hs_test_run (argv, &out, &err, &status);
    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "DATASET"));
  }
  {
    const char *argv[] = { hs_test_cli (), "validate", dir, dir, NULL };
    g_autofree char *out = NULL, *err = NULL;

    hs_test_run (argv, &out, &err, &status);
    g_assert_cmpint (status, ==, 2);
  }
  {
    const char *argv[] = { hs_test_cli (), "validate", "--no-such-option", dir, NULL };
    g_autofree char *out = NULL, *err = NULL;

    hs_test_run (argv, &out, &err, &status);
    g_assert_cmpint (status, ==, 2);
  }
  /* A missing dataset is bad input, not a usage error. */
  {
    const char *argv[] = { hs_test_cli (), "validate", missing, NULL };
    g_autofree char *out = NULL, *err = NULL;

    hs_test_run (argv, &out, &err, &status);
    g_assert_cmpint (status, ==, 1);
    g_assert_nonnull (strstr (out, "missing"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/cli-validate/valid", test_valid);
  g_test_add_func ("/hs/cli-validate/problems", test_problems);
  g_test_add_func ("/hs/cli-validate/changed-file", test_changed_file);
  g_test_add_func ("/hs/cli-validate/tag-attention", test_tag_attention);
  g_test_add_func ("/hs/cli-validate/usage", test_usage);
  return g_test_run ();
}
