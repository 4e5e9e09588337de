/* test-atomic-file.c — crash-safe writes */
#include <heatscope/heatscope.h>

#include "hs-atomic-file-private.h"
#include "hs-test-util.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static char *self_exe;   /* this test program, re-run as a writer */

static void
test_replaces_content (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "f.txt", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;
  g_autoptr(GDir) listing = NULL;
  guint n_entries = 0;

  g_assert_true (hs_atomic_write (path, "old", 3, &error));
  g_assert_no_error (error);
  g_assert_true (hs_atomic_write (path, "new content", 11, &error));
  g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, "new content");

  /* No temporary file is left behind. */
  listing = g_dir_open (dir, 0, NULL);
  while (g_dir_read_name (listing) != NULL)
    n_entries++;
  g_assert_cmpuint (n_entries, ==, 1);
}

static void
test_missing_folder_fails (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (hs_atomic_write ("/nonexistent-dir-hs/f.txt", "x", 1, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir-hs"));
}

/* The writer: `test-atomic-file --write PATH TEXT` (HS_TEST_STOP_AT set by
 * the test). */
static int
write_child (const char *path, const char *text)
{
  g_autoptr(GError) error = NULL;

  if (!hs_atomic_write (path, text, strlen (text), &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  return 0;
}

/* `test-atomic-file --write-staged ROOT PATH TEXT`: the same inside the
 * staged scope of ROOT (what the demo writer sets around an instance). */
static int
write_staged_child (const char *root, const char *path, const char *text)
{
  int status;

  hs_atomic_write_staged_begin (root);
  status = write_child (path, text);
  hs_atomic_write_staged_end ();
  return status;
}

static char *
read_text (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* The temporary files beside `name` in `dir` (NAME.XXXXXX). */
static GPtrArray *
temporaries (const char *dir, const char *name)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  const char *entry;

  while ((entry = g_dir_read_name (listing)) != NULL)
    if (g_str_has_prefix (entry, name) && entry[strlen (name)] == '.')
      g_ptr_array_add (found, g_build_filename (dir, entry, NULL));
  return found;
}

/* The writer stopped at each phase of hs_atomic_write: what is on disk
 * there, then after a SIGKILL, then (another run) after it continues. */
static void
test_stop_points (void)
{
  static const struct {
    const char *stop_at;
    const char *temp;     /* the temporary file's content there; NULL: none */
    const char *target;   /* the target's content there */
  } phases[] = {
    { "atomic-partial@f.txt:1", "new-", "old" },
    { "atomic-before-rename@f.txt:1", "new-text", "old" },
    { "atomic-after-rename@f.txt:1", NULL, "new-text" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    for (guint killed = 0; killed < 2; killed++)
      {
        g_autofree char *dir = hs_test_make_tmpdir ();
        g_autofree char *path = g_build_filename (dir, "f.txt", NULL);
        /* outside the folder, whose listing is checked */
        g_autofree char *log = g_strdup_printf ("%s.log", dir);
        g_autofree char *text = NULL;
        g_autoptr(GPtrArray) temps = NULL;
        const char *argv[] = { self_exe, "--write", path, "new-text", NULL };
        GPid pid;

        g_assert_true (g_file_set_contents (path, "old", -1, NULL));
        pid = hs_test_spawn_logged (argv, NULL, NULL, phases[i].stop_at, log);
        hs_test_wait_stopped (pid, phases[i].stop_at, log);

        text = read_text (path);
        g_assert_cmpstr (text, ==, phases[i].target);
        temps = temporaries (dir, "f.txt");
        g_assert_cmpuint (temps->len, ==, phases[i].temp != NULL ? 1 : 0);
        if (phases[i].temp != NULL)
          {
            g_autofree char *temp = read_text (g_ptr_array_index (temps, 0));
            g_assert_cmpstr (temp, ==, phases[i].temp);
          }

        if (killed)
          {
            hs_test_kill_stopped (pid);
            g_free (text);
            text = read_text (path);
            g_assert_cmpstr (text, ==, phases[i].target);
          }
        else
          {
            hs_test_continue_stopped (pid, log);
            g_free (text);
            text = read_text (path);
            g_assert_cmpstr (text, ==, "new-text");
            g_ptr_array_unref (temps);
            temps = temporaries (dir, "f.txt");
            g_assert_cmpuint (temps->len, ==, 0);
          }
        g_unlink (log);
      }
}

/* Hits of other files do not count, the count picks the hit, and a
 * malformed value is said and ignored (the writer then finishes). */
static void
test_stop_point_selection (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "g.txt", NULL);
  g_autofree char *log = g_build_filename (dir, "log", NULL);
  g_autofree char *output = NULL;
  const char *argv[] = { self_exe, "--write", path, "abc", NULL };
  GPid pid;

  /* Another file's name: not stopped. */
  pid = hs_test_spawn_logged (argv, NULL, NULL, "atomic-partial@f.txt:1", log);
  hs_test_wait_exit (pid, log);
  /* The second hit of a point reached once: not stopped. */
  pid = hs_test_spawn_logged (argv, NULL, NULL, "atomic-partial:2", log);
  hs_test_wait_exit (pid, log);
  /* Malformed: said once, ignored. */
  pid = hs_test_spawn_logged (argv, NULL, NULL, "atomic-partial:x", log);
  hs_test_wait_exit (pid, log);
  g_assert_true (g_file_get_contents (log, &output, NULL, NULL));
  g_assert_cmpstr (output, ==, "HS_TEST_STOP_AT: \"atomic-partial:x\" is not POINT[@FILE][:N]; ignored\n");
  /* Without @FILE any file counts; without :N the first hit. */
  pid = hs_test_spawn_logged (argv, NULL, NULL, "atomic-before-rename", log);
  hs_test_wait_stopped (pid, "atomic-before-rename:1", log);
  hs_test_kill_stopped (pid);
}

/* Inside a staging folder's scope a file is written in place (the
 * staged-* points, no temporary file), truncating what was there and never
 * through a symlink; a path outside the folder, or leaving it with "..",
 * still gets the whole atomic write (its atomic-* points). */
static void
test_staged (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *root = g_build_filename (dir, ".out.staging-x", NULL);
  g_autofree char *sub = g_build_filename (root, "maps", NULL);
  g_autofree char *in = g_build_filename (sub, "m.npy", NULL);
  g_autofree char *victim = g_build_filename (dir, "victim.txt", NULL);
  g_autofree char *link = g_build_filename (sub, "link.npy", NULL);
  g_autofree char *outside = g_build_filename (dir, "outside.txt", NULL);
  g_autofree char *dotdot = g_build_filename (sub, "..", "..", "escaped.txt", NULL);
  g_autofree char *log = g_build_filename (dir, "log", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  struct {
    const char *path, *stop_at;
  } runs[] = {
    { in, "staged-partial@m.npy:1" },
    { in, "staged-written@m.npy:1" },
    { outside, "atomic-before-rename@outside.txt:1" },
    { dotdot, "atomic-before-rename@escaped.txt:1" },
  };

  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      const char *argv[] = { self_exe, "--write-staged", root, runs[i].path, "staged-text", NULL };
      GPid pid = hs_test_spawn_logged (argv, NULL, NULL, runs[i].stop_at, log);

      hs_test_wait_stopped (pid, runs[i].stop_at, log);
      hs_test_kill_stopped (pid);
    }

  /* in the scope: in place, replacing, one entry in the folder */
  hs_atomic_write_staged_begin (root);
  g_assert_true (hs_atomic_write (in, "longer content", 14, &error));
  g_assert_true (hs_atomic_write (in, "short", 5, &error));
  g_assert_no_error (error);
  text = read_text (in);
  g_assert_cmpstr (text, ==, "short");
  {
    g_autoptr(GPtrArray) temps = temporaries (sub, "m.npy");
    g_assert_cmpuint (temps->len, ==, 0);
  }
  /* a symlink planted in the folder is not written through */
  g_assert_true (g_file_set_contents (victim, "victim", -1, NULL));
  g_assert_cmpint (symlink (victim, link), ==, 0);
  g_assert_false (hs_atomic_write (link, "x", 1, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  hs_atomic_write_staged_end ();
  g_free (text);
  text = read_text (victim);
  g_assert_cmpstr (text, ==, "victim");
}

int
main (int argc, char **argv)
{
  if (argc == 4 && strcmp (argv[1], "--write") == 0)
    return write_child (argv[2], argv[3]);
  if (argc == 5 && strcmp (argv[1], "--write-staged") == 0)
    return write_staged_child (argv[2], argv[3], argv[4]);
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_nonnull (self_exe);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/atomic-file/stop-points", test_stop_points);
  g_test_add_func ("/hs/atomic-file/stop-point-selection", test_stop_point_selection);
  g_test_add_func ("/hs/atomic-file/replaces-content", test_replaces_content);
  g_test_add_func ("/hs/atomic-file/missing-folder-fails", test_missing_folder_fails);
  g_test_add_func ("/hs/atomic-file/staged", test_staged);
  return g_test_run ();
}
