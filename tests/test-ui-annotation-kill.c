/* test-ui-annotation-kill.c — the real `heatscope --annotate PROJECT` driven
 * from outside with xdotool key presses and killed with SIGKILL at several
 * moments: at start, idle, half way through an item, after the key that
 * completes an answer but before its save, with half the new answers file
 * written, with it whole but not renamed, right after the rename, and after
 * the second save of a burst of answers.  The moments inside a save are
 * chosen by construction: the app runs with HS_TEST_STOP_AT (hs-stop-point.h)
 * and stops itself there; the test then kills it.  After every kill the answers file must be valid JSONL holding
 * every answer the app had acknowledged (the "n / N" of its window title
 * is updated only after an answer is on disk), with the answers of before
 * the kill unchanged, no partial line, and no temporary file counted.  A
 * restart must then resume at the first unanswered item: the next answer is
 * for that item, not a repeat.
 *
 * Nothing here is timed: every wait is for a condition (the window title,
 * the app stopped at its point), polled every 20 ms because the app is
 * another process driven through the X server; GUARD_SECONDS only bounds a
 * hang and never decides a pass. */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "hs-ui-fixture.h"

/* An upper bound on a hang, not a speed requirement: the app starts in
 * seconds even under the sanitizers on a loaded machine. */
#define GUARD_SECONDS 120
#define N_ITEMS 12

/* The project: instances hand-00..hand-02 × report sentences s0, s1 ×
 * aliases Model A, Model B, in this order (hs-annotation.h). */
static const char *const item_instance[N_ITEMS] = {
  "hand-00", "hand-00", "hand-00", "hand-00", "hand-01", "hand-01",
  "hand-01", "hand-01", "hand-02", "hand-02", "hand-02", "hand-02",
};
static const char *const item_query[N_ITEMS] = {
  "s0", "s0", "s1", "s1", "s0", "s0", "s1", "s1", "s0", "s0", "s1", "s1",
};
static const char *const item_alias[N_ITEMS] = {
  "Model A", "Model B", "Model A", "Model B", "Model A", "Model B",
  "Model A", "Model B", "Model A", "Model B", "Model A", "Model B",
};
/* The keys pressed for item i: one digit per question (1 = no,
 * 2 = partially, 3 = yes). */
static const char *const item_keys[N_ITEMS] = {
  "321", "111", "223", "132", "313", "222", "123", "331", "212", "333", "121", "232",
};
static const char *const level_name[] = { "no", "partially", "yes" };

typedef struct {
  char *dir;
  char *project;
  char *answers;      /* the answers file */
  char *log;          /* the app's stdout and stderr */
  char *last_text;    /* the answers file as last seen (for the prefix check) */
  guint n_runs;       /* times the app was started */
} Fixture;

typedef struct {
  GPid  pid;
  char *window;       /* X window id, as xdotool prints it */
} App;

/* ---- helpers ---------------------------------------------------------------- */

static gint64 guard_end;

static void
guard_start (void)
{
  guard_end = g_get_monotonic_time () + GUARD_SECONDS * G_USEC_PER_SEC;
}

/* Runs xdotool; its stdout (stripped) or NULL when it failed. */
static char *
xdotool (const char *first, ...)
{
  const char *argv[16] = { "xdotool", first };
  guint n = 2;
  g_autofree char *out = NULL;
  int status = -1;
  va_list ap;

  va_start (ap, first);
  while (n < G_N_ELEMENTS (argv) - 1 && (argv[n] = va_arg (ap, const char *)) != NULL)
    n++;
  va_end (ap);
  argv[n] = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, &out, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    return NULL;
  return g_strdup (g_strstrip (out));
}

/* Fails when the guard ran out, with what is needed to see why. */
static void
guard_check (const Fixture *fx, const App *app, const char *waiting_for)
{
  g_autofree char *title = NULL;
  g_autofree char *log = NULL;
  g_autofree char *answers = NULL;

  if (g_get_monotonic_time () <= guard_end)
    return;
  title = app->window != NULL ? xdotool ("getwindowname", app->window, NULL) : NULL;
  g_file_get_contents (fx->log, &log, NULL, NULL);
  g_file_get_contents (fx->answers, &answers, NULL, NULL);
  g_error ("annotation-kill: still waiting for %s after %d s (hung?)\nwindow title: %s\n"
           "answers file:\n%s\napp output:\n%s", waiting_for, GUARD_SECONDS,
           title ? title : "(none)", answers ? answers : "(none)", log ? log : "");
}

static void
assert_alive (const Fixture *fx, const App *app)
{
  int status;

  if (waitpid (app->pid, &status, WNOHANG) == app->pid)
    {
      g_autofree char *log = NULL;

      g_file_get_contents (fx->log, &log, NULL, NULL);
      g_error ("heatscope ended by itself (status %d); its output:\n%s", status, log ? log : "");
    }
}

/* The answered count of the window title "Annotation — tester — n / N";
 * −1 when the title does not show it (yet). */
static int
title_count (const App *app)
{
  g_autofree char *title = xdotool ("getwindowname", app->window, NULL);
  g_autoptr(GRegex) regex = g_regex_new ("(\\d+) / (\\d+)$", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  g_autofree char *count = NULL;
  g_autofree char *total = NULL;

  if (title == NULL || !g_regex_match (regex, title, 0, &match))
    return -1;
  count = g_match_info_fetch (match, 1);
  total = g_match_info_fetch (match, 2);
  g_assert_cmpint (atoi (total), ==, N_ITEMS);
  /* The real model names never reach the title. */
  g_assert_null (strstr (title, "grounded"));
  g_assert_null (strstr (title, "blind"));
  return atoi (count);
}

static void
wait_title_count (const Fixture *fx, const App *app, int count)
{
  int shown;

  guard_start ();
  while ((shown = title_count (app)) < count)
    {
      assert_alive (fx, app);
      guard_check (fx, app, "the window title to show the answered count");
      g_usleep (20000);
    }
  g_assert_cmpint (shown, ==, count);
}

static App *
app_start (Fixture *fx, const char *stop_at)
{
  g_autofree char *binary = g_build_filename (g_getenv ("HS_BUILD_DIR"), "src", "app", "heatscope", NULL);
  const char *argv[] = { binary, "--annotate", fx->project, NULL };
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *pid_text = NULL;
  App *app = g_new0 (App, 1);
  int log_fd;

  fx->n_runs++;
  env = g_environ_setenv (env, "GSETTINGS_BACKEND", "memory", TRUE);
  env = g_environ_setenv (env, "GTK_A11Y", "none", TRUE);
  env = g_environ_setenv (env, "NO_AT_BRIDGE", "1", TRUE);
  env = g_environ_setenv (env, "GDK_BACKEND", "x11", TRUE);
  env = g_environ_setenv (env, "GSK_RENDERER", "cairo", TRUE);
  env = stop_at != NULL ? g_environ_setenv (env, "HS_TEST_STOP_AT", stop_at, TRUE)
                        : g_environ_unsetenv (env, "HS_TEST_STOP_AT");
  log_fd = open (fx->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  g_assert_cmpint (log_fd, >=, 0);
  g_spawn_async_with_pipes_and_fds (fx->dir, argv, (const char * const *) env, G_SPAWN_DO_NOT_REAP_CHILD,
                                    NULL, NULL, -1, log_fd, log_fd, NULL, NULL, 0,
                                    &app->pid, NULL, NULL, NULL, &error);
  close (log_fd);
  g_assert_no_error (error);

  /* Its visible window showing the project (GTK sets _NET_WM_PID; a
   * tooltip or popover window of the app has no such title). */
  pid_text = g_strdup_printf ("%d", (int) app->pid);
  guard_start ();
  while (app->window == NULL)
    {
      g_autofree char *found = xdotool ("search", "--onlyvisible", "--pid", pid_text, NULL);
      g_auto(GStrv) windows = g_strsplit (found != NULL ? found : "", "\n", -1);

      for (guint i = 0; windows[i] != NULL && app->window == NULL; i++)
        {
          app->window = g_strdup (windows[i]);
          if (windows[i][0] == '\0' || title_count (app) < 0)
            g_clear_pointer (&app->window, g_free);
        }
      if (app->window != NULL)
        break;
      assert_alive (fx, app);
      guard_check (fx, app, "the annotation window");
      g_usleep (20000);
    }
  /* No window manager under xvfb-run: give it the keyboard ourselves. */
  g_free (xdotool ("windowfocus", app->window, NULL));
  /* The pointer out of the way: no hover read-out or tooltip. */
  g_free (xdotool ("mousemove", "--window", app->window, "-10", "-10", NULL));
  return app;
}

static void
app_kill (App *app)
{
  int status = 0;

  g_assert_cmpint (kill (app->pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (app->pid, &status, 0), ==, app->pid);
  /* Killed by us, not ended by itself. */
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGKILL);
  g_spawn_close_pid (app->pid);
  g_free (app->window);
  g_free (app);
}

/* XTEST key presses of the digits to the focused window (not --window,
 * which sends synthetic events that toolkits may ignore). */
static void
press (const char *digits)
{
  const char *argv[16] = { "xdotool", "key", NULL };
  guint n = 2;
  int status = -1;
  char buffers[12][2];

  for (guint i = 0; digits[i] != '\0'; i++)
    {
      g_assert_cmpuint (i, <, G_N_ELEMENTS (buffers));
      buffers[i][0] = digits[i];
      buffers[i][1] = '\0';
      argv[n++] = buffers[i];
    }
  argv[n] = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* Checks the answers file after a kill and returns its number of answers:
 * text ends with a newline (no partial line), every line a JSON object for
 * the item of its position (the app only moves forward here) with the
 * values of the keys pressed for it, the text seen before is its prefix
 * (earlier answers untouched), at least `acknowledged` answers, and the
 * library's reader finds no problem.  Temporary files a kill left beside
 * it are not read. */
static guint
check_answers (Fixture *fx, int acknowledged)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) loaded = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  guint n = 0;

  if (!g_file_get_contents (fx->answers, &text, NULL, &error))
    {
      g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
      g_clear_error (&error);
      text = g_strdup ("");
    }
  g_assert_true (text[0] == '\0' || g_str_has_suffix (text, "\n"));
  g_assert_true (g_str_has_prefix (text, fx->last_text));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++, n++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *object;
      const char *model;

      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
      object = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpuint (i, <, N_ITEMS);
      g_assert_cmpstr (json_object_get_string_member (object, "annotator"), ==, "tester");
      g_assert_cmpstr (json_object_get_string_member (object, "instance"), ==, item_instance[i]);
      g_assert_cmpstr (json_object_get_string_member (object, "round"), ==, "report");
      g_assert_cmpstr (json_object_get_string_member (object, "query"), ==, item_query[i]);
      g_assert_cmpstr (json_object_get_string_member (object, "alias"), ==, item_alias[i]);
      g_assert_cmpstr (json_object_get_string_member (object, "prompt"), ==,
                       g_str_equal (item_query[i], "s0") ? HS_UI_S0 : HS_UI_S1);
      model = json_object_get_string_member (object, "model");
      g_assert_true (g_str_equal (model, "grounded") || g_str_equal (model, "blind"));
      g_assert_cmpstr (json_object_get_string_member (object, "correct"), ==, level_name[item_keys[i][0] - '1']);
      g_assert_cmpstr (json_object_get_string_member (object, "useful"), ==, level_name[item_keys[i][1] - '1']);
      g_assert_cmpstr (json_object_get_string_member (object, "precise"), ==, level_name[item_keys[i][2] - '1']);
    }
  /* Only the last element after the final newline may be empty. */
  g_assert_cmpuint (g_strv_length (lines), ==, (text[0] == '\0' ? 0 : n + 1));
  g_assert_cmpint ((int) n, >=, acknowledged);

  g_assert_true (hs_annotation_load_answers (fx->answers, &loaded, &problems, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (loaded->len, ==, n);
  g_assert_cmpuint (problems != NULL ? problems->len : 0, ==, 0);

  g_free (fx->last_text);
  fx->last_text = g_steal_pointer (&text);
  return n;
}

/* Reads the acknowledged count, then kills at once: the title only ever
 * lags the file, so whatever it showed must be on disk. */
static guint
kill_and_check (Fixture *fx, App *app)
{
  int acknowledged = title_count (app);

  app_kill (app);
  return check_answers (fx, MAX (acknowledged, 0));
}

/* Waits until the app, started with HS_TEST_STOP_AT=STOP_AT, stopped itself
 * there (asserting the line it printed names that point), checks the
 * answers file while it is stopped, kills it and checks again: exactly
 * `expected` answers, the acknowledged ones among them. */
static guint
kill_at_stop (Fixture *fx, App *app, const char *stop_at, guint expected)
{
  g_autofree char *log = NULL;
  g_autofree char *line = NULL;
  int acknowledged, status = 0;
  pid_t done;

  guard_start ();
  while ((done = waitpid (app->pid, &status, WNOHANG | WUNTRACED)) == 0)
    {
      guard_check (fx, app, stop_at);
      g_usleep (20000);
    }
  g_assert_cmpint (done, ==, app->pid);
  if (!WIFSTOPPED (status))
    {
      g_file_get_contents (fx->log, &log, NULL, NULL);
      g_error ("heatscope did not stop at %s (wait status %d); its output:\n%s", stop_at, status,
               log ? log : "");
    }
  g_assert_true (g_file_get_contents (fx->log, &log, NULL, NULL));
  line = g_strdup_printf ("HS_TEST_STOP_AT: stopped at %s (pid %d)\n", stop_at, (int) app->pid);
  if (strstr (log, line) == NULL)
    g_error ("heatscope stopped, but not at %s; its output:\n%s", stop_at, log);

  acknowledged = title_count (app);
  g_assert_cmpuint (check_answers (fx, MAX (acknowledged, 0)), ==, expected);
  app_kill (app);
  g_assert_cmpuint (check_answers (fx, MAX (acknowledged, 0)), ==, expected);
  return expected;
}

/* ---- the test ----------------------------------------------------------------- */

static void
test_kill_and_resume (void)
{
  g_autofree char *dataset = NULL;
  g_autofree char *binary = NULL;
  g_autofree char *xdotool_path = g_find_program_in_path ("xdotool");
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  Fixture fx = { 0 };
  App *app;
  guint n;
  int status = 0;

  if (g_getenv ("DISPLAY") == NULL)
    {
      g_test_skip ("no display: run the UI suite under xvfb-run");
      return;
    }
  if (xdotool_path == NULL)
    {
      g_test_skip ("xdotool not found (tools/deps.sh installs it)");
      return;
    }
  binary = g_build_filename (g_getenv ("HS_BUILD_DIR"), "src", "app", "heatscope", NULL);
  if (!g_file_test (binary, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("the heatscope binary is not built");
      return;
    }

  dataset = hs_ui_make_dataset ();
  fx.dir = hs_test_make_tmpdir ();
  fx.project = g_build_filename (fx.dir, "project.json", NULL);
  fx.answers = g_build_filename (fx.dir, "tester.jsonl", NULL);
  fx.log = g_build_filename (fx.dir, "heatscope.log", NULL);
  fx.last_text = g_strdup ("");
  json = g_strdup_printf ("{\"annotator\": \"tester\", \"dataset\": \"%s\",\n"
                          " \"models\": [\"grounded\", \"blind\"],\n"
                          " \"instances\": [\"hand-00\", \"hand-01\", \"hand-02\"],\n"
                          " \"questions\": \"three\", \"seed\": 11, \"answers\": \"tester.jsonl\"}\n",
                          dataset);
  g_assert_true (g_file_set_contents (fx.project, json, -1, &error));
  g_assert_no_error (error);

  /* 1. Killed as soon as it shows the project: nothing answered. */
  app = app_start (&fx, NULL);
  wait_title_count (&fx, app, 0);
  n = kill_and_check (&fx, app);
  g_assert_cmpuint (n, ==, 0);

  /* 2. Two answers, each waited for in the title, then killed idle. */
  app = app_start (&fx, NULL);
  wait_title_count (&fx, app, 0);
  for (guint i = 0; i < 2; i++)
    {
      press (item_keys[i]);
      wait_title_count (&fx, app, (int) i + 1);
    }
  n = kill_and_check (&fx, app);
  g_assert_cmpuint (n, ==, 2);

  /* 3. Half an item (two of three questions) is not an answer: the app
   * processes keys in order, and the first answer it gives is the one the
   * third key completes; killed there, before its save: nothing new. */
  app = app_start (&fx, "annotation-answer@tester.jsonl:1");
  wait_title_count (&fx, app, (int) n);
  press ((const char[]) { item_keys[n][0], item_keys[n][1], '\0' });
  press ((const char[]) { item_keys[n][2], '\0' });
  n = kill_at_stop (&fx, app, "annotation-answer@tester.jsonl:1", n);
  g_assert_cmpuint (n, ==, 2);

  /* 4. Killed in the save of the next answer: with half the new answers
   * file written, then with it whole but not yet renamed.  The old file
   * stands. */
  {
    const char *stops[] = { "atomic-partial@tester.jsonl:1", "atomic-before-rename@tester.jsonl:1" };

    for (guint i = 0; i < G_N_ELEMENTS (stops); i++)
      {
        guint before = n;

        app = app_start (&fx, stops[i]);
        wait_title_count (&fx, app, (int) n);
        press (item_keys[n]);
        n = kill_at_stop (&fx, app, stops[i], before);
      }
  }

  /* 5. Killed right after the save's rename: the answer is there even
   * though the title had no time to show it. */
  {
    guint before = n;

    app = app_start (&fx, "atomic-after-rename@tester.jsonl:1");
    wait_title_count (&fx, app, (int) n);
    press (item_keys[n]);
    n = kill_at_stop (&fx, app, "atomic-after-rename@tester.jsonl:1", before + 1);
  }

  /* 6. A burst of three answers, killed after the second rename. */
  {
    guint before = n;
    g_autofree char *burst = NULL;

    g_assert_cmpuint (n + 3, <, N_ITEMS);
    burst = g_strconcat (item_keys[n], item_keys[n + 1], item_keys[n + 2], NULL);
    app = app_start (&fx, "atomic-after-rename@tester.jsonl:2");
    wait_title_count (&fx, app, (int) n);
    press (burst);
    n = kill_at_stop (&fx, app, "atomic-after-rename@tester.jsonl:2", before + 2);
  }

  /* 7. Resume: the restarted app counts the answers in the file (temporary
   * files left by the kills are not answers) and the next answer is for
   * the first unanswered item — check_answers wants line k to be item k. */
  g_assert_cmpuint (n, <, N_ITEMS);
  app = app_start (&fx, NULL);
  wait_title_count (&fx, app, (int) n);
  press (item_keys[n]);
  wait_title_count (&fx, app, (int) n + 1);
  g_assert_cmpuint (check_answers (&fx, (int) n + 1), ==, n + 1);
  n++;

  /* Closing the window (Ctrl+W) ends the app normally (polled: the app is
   * another process; the guard only bounds a hang). */
  g_free (xdotool ("key", "ctrl+w", NULL));
  guard_start ();
  while (waitpid (app->pid, &status, WNOHANG) != app->pid)
    {
      guard_check (&fx, app, "the app to quit after Ctrl+W");
      g_usleep (10000);
    }
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_spawn_close_pid (app->pid);
  g_free (app->window);
  g_free (app);
  g_assert_cmpuint (check_answers (&fx, (int) n), ==, n);
  {
    g_autofree char *log = NULL;

    /* Nothing went wrong inside the app along the way. */
    g_assert_true (g_file_get_contents (fx.log, &log, NULL, NULL));
    if (strstr (log, "-CRITICAL") != NULL || strstr (log, "-WARNING") != NULL)
      g_error ("heatscope printed problems:\n%s", log);
  }

  {
    /* The two kills inside a save (step 4) left their temporary files
     * (unique names, never read as answers); no other kill was mid-save. */
    g_autoptr(GDir) dir = g_dir_open (fx.dir, 0, &error);
    const char *name;
    guint n_temp = 0;

    g_assert_no_error (error);
    while ((name = g_dir_read_name (dir)) != NULL)
      n_temp += g_str_has_prefix (name, "tester.jsonl.");
    g_assert_cmpuint (n_temp, ==, 2);
    g_test_message ("%u answers saved over %u runs of the app", n, fx.n_runs);
  }
  g_free (fx.dir);
  g_free (fx.project);
  g_free (fx.answers);
  g_free (fx.log);
  g_free (fx.last_text);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/ui/annotation-kill/kill-and-resume", test_kill_and_resume);
  return g_test_run ();
}
