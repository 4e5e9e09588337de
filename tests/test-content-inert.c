/* test-content-inert.c — the content of a dataset never makes Heatscope run
 * a command, touch the network or write a file.
 *
 * A hostile dataset (shell syntax, URLs, option-like model names in every
 * string of the manifest) is read by `heatscope-cli validate`, `metrics`
 * and `render` under strace -f.  The trace may hold exactly one execve (the
 * CLI itself), no socket or connect, and no file opened for writing,
 * created, renamed or removed except render's -o file (and its temporary
 * file) in the output folder.  No "PWNED" file appears.
 * Skipped when strace is not installed. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "hs-test-util.h"

static char *work;      /* cwd of the traced commands */
static char *dataset;   /* the hostile dataset */
static char *out_dir;   /* render's output folder */

#define EVIL "$(touch PWNED) `touch PWNED` ; touch PWNED | touch PWNED"

static void
copy_file (const char *from, const char *to)
{
  g_autofree char *data = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (from, &data, &length, NULL));
  g_assert_true (g_file_set_contents (to, data, (gssize) length, NULL));
}

static void
make_dataset (void)
{
  g_autofree char *bad = g_build_filename (hs_test_source_dir (), "tests", "bad-inputs", NULL);
  g_autofree char *png = g_build_filename (bad, "outside", "secret.png", NULL);
  g_autofree char *npy = g_build_filename (bad, "good-map.npy", NULL);
  g_autofree char *image = NULL, *map = NULL, *manifest = NULL;
  g_autoptr(GError) error = NULL;
  const char *json =
    "{\"format\": \"heatscope-dataset\", \"version\": 1,\n"
    " \"name\": \"" EVIL "\", \"description\": \"http://127.0.0.1:9/x file:///etc/passwd\",\n"
    " \"instances\": [{\"id\": \"i0 " EVIL "\", \"image\": \"a.png\",\n"
    "  \"metadata\": {\"url\": \"http://127.0.0.1:9/x.png\", \"cmd\": \"" EVIL "\",\n"
    "                \"backend\": \"--backend-exec=touch PWNED\"},\n"
    "  \"findings\": [{\"condition\": \"" EVIL "\", \"context\": \"positive\", \"locations\": [\"r " EVIL "\"]}],\n"
    "  \"regions\": {\"r " EVIL "\": {\"boxes\": [[0, 0, 2, 2]]}},\n"
    "  \"sentences\": [{\"id\": \"s0\", \"text\": \"" EVIL " http://127.0.0.1:9/\", \"targets\": [\"r " EVIL "\"]}],\n"
    "  \"maps\": [{\"model\": \"--backend-exec=touch PWNED\", \"query\": \"s0\", \"file\": \"m.npy\",\n"
    "            \"no_attn\": 0.1},\n"
    "           {\"model\": \"http://127.0.0.1:9/model\", \"prompt\": \"" EVIL "\", \"file\": \"m.npy\"}]}]}\n";

  work = hs_test_make_tmpdir ();
  dataset = g_build_filename (work, "data", NULL);
  out_dir = g_build_filename (work, "out", NULL);
  g_assert_cmpint (g_mkdir (dataset, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (out_dir, 0755), ==, 0);
  image = g_build_filename (dataset, "a.png", NULL);
  map = g_build_filename (dataset, "m.npy", NULL);
  manifest = g_build_filename (dataset, "heatscope.json", NULL);
  copy_file (png, image);
  copy_file (npy, map);
  g_assert_true (g_file_set_contents (manifest, json, -1, &error));
  g_assert_no_error (error);
}

static gboolean
allowed_path (const char *line)
{
  const char *quote = strchr (line, '"');

  return quote != NULL && g_str_has_prefix (quote + 1, out_dir);
}

/* Runs `args` (after the CLI) under strace and checks the trace. */
static void
trace (const char * const *args, int expected_status, gboolean may_write_output)
{
  g_autofree char *log = g_build_filename (work, "trace.log", NULL);
  g_autofree char *text = NULL;
  g_autofree char *pwned = g_build_filename (work, "PWNED", NULL);
  g_autofree char *pwned_data = g_build_filename (dataset, "PWNED", NULL);
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  const char *asan = g_getenv ("ASAN_OPTIONS");
  g_autofree char *asan_options = NULL;
  guint execs = 0;
  int status = -1;

  /* LeakSanitizer cannot run under ptrace. */
  asan_options = g_strdup_printf ("%s%sdetect_leaks=0", asan ? asan : "", asan ? ":" : "");
  env = g_environ_setenv (env, "ASAN_OPTIONS", asan_options, TRUE);
  g_ptr_array_add (argv, "strace");
  g_ptr_array_add (argv, "-f");
  g_ptr_array_add (argv, "-qq");
  g_ptr_array_add (argv, "-o");
  g_ptr_array_add (argv, log);
  g_ptr_array_add (argv, "-e");
  g_ptr_array_add (argv, "trace=execve,execveat,fork,vfork,socket,connect,sendto,sendmsg,"
                         "open,openat,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,"
                         "mkdirat,link,linkat,symlink,symlinkat,truncate");
  g_ptr_array_add (argv, (char *) hs_test_cli ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);

  g_assert_true (g_spawn_sync (work, (char **) argv->pdata, env, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL) && expected_status == 0)
    g_printerr ("%s", err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, expected_status);
  g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (pwned_data, G_FILE_TEST_EXISTS));

  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i];
      gboolean writes;

      if (*l == '\0' || strstr (l, "= -1 E") != NULL)   /* failed calls change nothing */
        continue;
      if (strstr (l, "execve(") != NULL || strstr (l, "execveat(") != NULL)
        {
          execs++;
          continue;
        }
      if (strstr (l, "socket(") != NULL || strstr (l, "connect(") != NULL ||
          strstr (l, "sendto(") != NULL || strstr (l, "sendmsg(") != NULL)
        g_error ("network access: %s", l);
      if (strstr (l, "fork(") != NULL)
        g_error ("a process was started: %s", l);
      writes = strstr (l, "open") != NULL
                 ? strstr (l, "O_WRONLY") != NULL || strstr (l, "O_RDWR") != NULL ||
                   strstr (l, "O_CREAT") != NULL || strstr (l, "O_TRUNC") != NULL
                 : strstr (l, "rename") != NULL || strstr (l, "unlink") != NULL ||
                   strstr (l, "mkdir") != NULL || strstr (l, "link") != NULL ||
                   strstr (l, "creat(") != NULL || strstr (l, "truncate(") != NULL;
      if (writes && !(may_write_output && allowed_path (l)))
        g_error ("a file was written: %s", l);
    }
  g_assert_cmpuint (execs, ==, 1);
}

static gboolean
have_strace (void)
{
  g_autofree char *path = g_find_program_in_path ("strace");

  if (path == NULL)
    {
      g_test_skip ("strace is not installed: cannot watch the system calls");
      return FALSE;
    }
  return TRUE;
}

static void
test_validate (void)
{
  const char *args[] = { "validate", dataset, NULL };

  if (have_strace ())
    trace (args, 0, FALSE);
}

static void
test_metrics (void)
{
  const char *args[] = { "metrics", dataset, "--format", "jsonl", NULL };

  if (have_strace ())
    trace (args, 0, FALSE);
}

static void
test_render (void)
{
  g_autofree char *output = g_build_filename (out_dir, "figure.svg", NULL);
  const char *args[] = { "render", dataset, "--instance", "i0 " EVIL, "--query", "s0",
                         "--model=--backend-exec=touch PWNED", "-o", output, NULL };

  if (have_strace ())
    {
      trace (args, 0, TRUE);
      g_assert_true (g_file_test (output, G_FILE_TEST_EXISTS));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  make_dataset ();
  g_test_add_func ("/hs/content-inert/validate", test_validate);
  g_test_add_func ("/hs/content-inert/metrics", test_metrics);
  g_test_add_func ("/hs/content-inert/render", test_render);
  return g_test_run ();
}
