/* hs-test-util.c — helpers shared by the test programs */
#include "hs-test-util.h"

#include <heatscope/hs-image.h>

#include <fcntl.h>
#include <math.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

void
hs_test_run_ok (const char * const *argv)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;

  g_assert_true (hs_test_run (argv, &out, &err, &status));
  if (status != 0)
    g_printerr ("%s", err);
  g_assert_cmpint (status, ==, 0);
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

void
hs_test_write_png (const char *dir, const char *name, guint w, guint h)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(HsImage) image = hs_image_new (w, h, 1, 8, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (hs_image_save_png (image, path, &error));
  g_assert_no_error (error);
}

void
hs_test_assert_box (const HsRegion *region, guint i, double x1, double y1, double x2, double y2)
{
  const HsBox *b;

  g_assert_nonnull (region);
  g_assert_cmpuint (region->boxes->len, >, i);
  b = &g_array_index (region->boxes, HsBox, i);
  g_assert_cmpfloat_with_epsilon (b->x1, x1, 1e-9);
  g_assert_cmpfloat_with_epsilon (b->y1, y1, 1e-9);
  g_assert_cmpfloat_with_epsilon (b->x2, x2, 1e-9);
  g_assert_cmpfloat_with_epsilon (b->y2, y2, 1e-9);
}

char *
hs_test_make_demo (const char *dir, const char *name, guint n, guint size, const char *maps)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *count = g_strdup_printf ("%u", n);
  g_autofree char *side = g_strdup_printf ("%u", size);
  g_autofree char *maps_arg = g_strdup_printf ("--maps=%s", maps);
  char *path = g_build_filename (dir, name, NULL);
  const char *args[] = { "-n", count, "--size", side, maps_arg, path, NULL };

  g_assert_cmpint (hs_test_run_cli ("demo", args, &out, &err), ==, 0);
  return path;
}

guint
hs_test_count_maps (const char *dataset_path, const char *model)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (dataset_path, &error);
  guint n = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      for (guint m = 0; m < instance->maps->len; m++)
        n += g_strcmp0 (((HsMapRef *) g_ptr_array_index (instance->maps, m))->model, model) == 0;
    }
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

/* ---- kill tests ------------------------------------------------------------ */

GPid
hs_test_spawn_logged (const char * const *argv, const char * const *env, const char *cwd,
                      const char *stop_at, const char *log)
{
  g_auto(GStrv) envp = env != NULL ? g_strdupv ((char **) env) : g_get_environ ();
  g_autoptr(GError) error = NULL;
  GPid pid = 0;
  int fd;

  envp = stop_at != NULL ? g_environ_setenv (envp, "HS_TEST_STOP_AT", stop_at, TRUE)
                         : g_environ_unsetenv (envp, "HS_TEST_STOP_AT");
  fd = open (log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_spawn_async_with_pipes_and_fds (cwd, argv, (const char * const *) envp,
                                    G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH,
                                    NULL, NULL, -1, fd, fd, NULL, NULL, 0, &pid, NULL, NULL, NULL,
                                    &error);
  close (fd);
  g_assert_no_error (error);
  return pid;
}

void
hs_test_wait_stopped (GPid pid, const char *stop_at, const char *log)
{
  g_autofree char *output = NULL;
  g_autofree char *line = NULL;
  int status = 0;

  /* Blocks: the process either reaches the point or ends. */
  g_assert_cmpint (waitpid (pid, &status, WUNTRACED), ==, pid);
  g_file_get_contents (log, &output, NULL, NULL);
  if (!WIFSTOPPED (status))
    g_error ("process %d did not stop at %s: %s %d; its output:\n%s", (int) pid, stop_at,
             WIFEXITED (status) ? "exited with status" : "killed by signal",
             WIFEXITED (status) ? WEXITSTATUS (status) : WTERMSIG (status), output ? output : "");
  g_assert_cmpint (WSTOPSIG (status), ==, SIGSTOP);
  /* It stopped itself at that point, not somewhere else. */
  line = g_strdup_printf ("HS_TEST_STOP_AT: stopped at %s (pid %d)\n", stop_at, (int) pid);
  if (output == NULL || strstr (output, line) == NULL)
    g_error ("process %d stopped, but not saying \"%s\"; its output:\n%s", (int) pid,
             g_strchomp (line), output ? output : "");
}

void
hs_test_kill_stopped (GPid pid)
{
  int status = 0;

  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGKILL);
  g_spawn_close_pid (pid);
}

void
hs_test_continue_stopped (GPid pid, const char *log)
{
  g_autofree char *output = NULL;
  int status = 0;

  g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return;
  g_file_get_contents (log, &output, NULL, NULL);
  g_error ("process %d, continued, did not finish well (wait status %d); its output:\n%s",
           (int) pid, status, output ? output : "");
}

void
hs_test_wait_exit (GPid pid, const char *log)
{
  g_autofree char *output = NULL;
  int status = 0;

  g_assert_cmpint (waitpid (pid, &status, WUNTRACED), ==, pid);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    {
      g_spawn_close_pid (pid);
      return;
    }
  g_file_get_contents (log, &output, NULL, NULL);
  if (WIFSTOPPED (status))
    kill (pid, SIGKILL);
  g_error ("process %d did not finish well (%s); its output:\n%s", (int) pid,
           WIFSTOPPED (status) ? "it stopped" : "wait status not 0", output ? output : "");
}

GPid
hs_test_run_to_stop (const char * const *argv, const char *stop_at)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *log = g_build_filename (dir, "log", NULL);
  GPid pid = hs_test_spawn_logged (argv, NULL, NULL, stop_at, log);

  hs_test_wait_stopped (pid, stop_at, log);
  return pid;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

double
hs_test_median (double *values, guint n)
{
  g_return_val_if_fail (n > 0, NAN);

  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}
