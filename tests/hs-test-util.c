/* hs-test-util.c — helpers shared by the test programs */
#include "hs-test-util.h"

#include <heatscope/hs-image.h>

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

const char *
hs_test_shared_data (void)
{
  const char *dir = g_getenv ("HS_SHARED_DATA");

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    return NULL;
  return dir;
}

char *
hs_test_shared_path (const char *relative)
{
  const char *dir = hs_test_shared_data ();

  if (dir == NULL)
    {
      g_test_skip ("../shared/data is absent: the real-data test cannot run");
      return NULL;
    }
  return g_build_filename (dir, relative, NULL);
}

static GPtrArray *tmpdirs;

static void
remove_tmpdirs (void)
{
  for (guint i = 0; tmpdirs != NULL && i < tmpdirs->len; i++)
    {
      const char *argv[] = { "rm", "-rf", g_ptr_array_index (tmpdirs, i), NULL };
      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
    }
}

char *
hs_test_make_tmpdir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("heatscope-test-XXXXXX", &error);

  g_assert_no_error (error);
  if (tmpdirs == NULL)
    {
      tmpdirs = g_ptr_array_new_with_free_func (g_free);
      atexit (remove_tmpdirs);
    }
  g_ptr_array_add (tmpdirs, g_strdup (dir));
  return dir;
}

const char *
hs_test_cli (void)
{
  const char *cli = g_getenv ("HS_CLI");

  g_assert_nonnull (cli);
  return cli;
}

const char *
hs_test_source_dir (void)
{
  const char *dir = g_getenv ("HS_SOURCE_DIR");

  g_assert_nonnull (dir);
  return dir;
}

gboolean
hs_test_run (const char * const *argv, char **out, char **err, int *status)
{
  g_autoptr(GError) error = NULL;
  int wait_status = 0;
  gboolean ok;

  ok = g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                     out, err, &wait_status, &error);
  g_assert_no_error (error);
  if (status != NULL)
    *status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : 128 + WTERMSIG (wait_status);
  return ok;
}

char *
hs_test_python (const char *script, const char * const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = 0;

  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("/usr/bin/python3 is absent");
      return NULL;
    }
  g_ptr_array_add (argv, (char *) "/usr/bin/python3");
  g_ptr_array_add (argv, (char *) "-c");
  g_ptr_array_add (argv, (char *) script);
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  hs_test_run ((const char * const *) argv->pdata, &out, &err, &status);
  if (status != 0)
    {
      if (err != NULL && strstr (err, "ModuleNotFoundError") != NULL)
        {
          g_autofree char *msg = g_strdup_printf ("python module missing: %s", err);
          g_test_skip (msg);
          g_free (out);
          return NULL;
        }
      g_test_message ("python failed (%d): %s", status, err);
      g_test_fail ();
      g_free (out);
      return NULL;
    }
  return out;
}

int
hs_test_run_cli (const char *command, const char * const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  int status = -1;

  g_ptr_array_add (argv, (char *) hs_test_cli ());
  g_ptr_array_add (argv, (char *) command);
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (hs_test_run ((const char * const *) argv->pdata, out, err, &status));
  return status;
}

void
hs_test_write_file (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

guint64
hs_test_count_mask_pixels (HsDataset *dataset, const HsRegion *region)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) mask = hs_dataset_load_mask (dataset, region, &error);
  const guint16 *data;
  gsize n_pixels;
  guint64 n = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (hs_image_get_channels (mask), ==, 1);
  g_assert_cmpuint (hs_image_get_bit_depth (mask), ==, 8);
  data = hs_image_peek_data (mask);
  n_pixels = (gsize) hs_image_get_width (mask) * hs_image_get_height (mask);
  for (gsize i = 0; i < n_pixels; i++)
    n += data[i] != 0;
  return n;
}

char *
hs_test_bad_inputs_dir (void)
{
  g_autofree char *dir = g_build_filename (hs_test_source_dir (), "tests", "bad-inputs", NULL);
  char *real = realpath (dir, NULL);
  char *copy;

  g_assert_nonnull (real);
  copy = g_strdup (real);
  free (real);
  return copy;
}

static void
bad_input_free (gpointer data)
{
  HsBadInput *row = data;

  g_free (row->file);
  g_free (row->loader);
  g_free (row->status);
  g_free (row->message);
  g_free (row);
}

GPtrArray *
hs_test_read_bad_inputs (const char *bad_dir)
{
  g_autofree char *tsv = g_build_filename (bad_dir, "expected.tsv", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *rows = g_ptr_array_new_with_free_func (bad_input_free);

  if (!g_file_get_contents (tsv, &text, NULL, &error))
    g_error ("%s", error->message);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      HsBadInput *row;

      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;
      fields = g_strsplit (lines[i], "\t", 4);
      if (g_strv_length (fields) != 4)
        g_error ("%s:%u: expected FILE, LOADER, CLI-STATUS and MESSAGE", tsv, i + 1);
      row = g_new0 (HsBadInput, 1);
      row->file = g_strdup (fields[0]);
      row->loader = g_strdup (fields[1]);
      row->status = g_strdup (fields[2]);
      row->message = g_strdup (fields[3]);
      g_ptr_array_add (rows, row);
    }
  return rows;
}

char *
hs_test_replace (const char *text, const char *what, const char *with)
{
  g_auto(GStrv) parts = g_strsplit (text, what, -1);

  return g_strjoinv (with, parts);
}
