/* test-ui-attend.c — "Compute maps for this dataset…": the window runs the
 * CLI's attend runner (same maps, same metrics), shows progress, cancels at a
 * chosen point leaving a valid dataset, resumes saying what it skipped, and
 * reports an external backend's failed instance in its summary */
#include "hs-attend-dialog.h"
#include "hs-ui-fixture.h"

static char *
run_cli (const char *command, const char * const *args)
{
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = hs_test_run_cli (command, args, &out, &err);

  if (status != 0)
    g_printerr ("%s: %s%s", command, out, err);
  g_assert_cmpint (status, ==, 0);
  return out;
}

static char *
metrics_csv (const char *dataset, const char *model)
{
  const char *args[] = { dataset, "--model", model, NULL };
  return run_cli ("metrics", args);
}

static gboolean
attend_settled (gpointer window)
{
  HsAttendJob *job = hs_window_get_attend_job (window);

  return job != NULL && !hs_attend_job_get_running (job) && !hs_window_get_loading (window);
}

static gboolean
window_has_model (HsWindow *window, const char *model)
{
  g_auto(GStrv) models = hs_dataset_list_models (hs_window_get_dataset (window));

  return g_strv_contains ((const char * const *) models, model);
}

static void
save_snapshot (gpointer widget, const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *file = g_strdup_printf ("%s.png", name);
  g_autofree char *path = g_build_filename (g_getenv ("HS_BUILD_DIR") ? g_getenv ("HS_BUILD_DIR") : ".",
                                            file, NULL);

  hs_ui_settle ();
  texture = hs_ui_render (GTK_WIDGET (widget));
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

/* The menu's action through its dialog: the maps appear in the window's
 * model list, and `metrics` scores them exactly as the CLI's own run. */
static void
test_compute_equals_cli (void)
{
  g_autofree char *tmp = NULL, *app_ds = NULL, *cli_ds = NULL;
  g_autofree char *app_rows = NULL, *cli_rows = NULL;
  HsAttendSpec spec = { .model = (char *) "grounded", .queries = HS_ATTEND_QUERIES_ALL };
  HsAttendSpec read = { 0 };
  g_autoptr(GError) error = NULL;
  HsAttendDialog *dialog;
  HsAttendJob *job;
  HsWindow *window;
  const HsAttendCounts *counts;

  if (hs_ui_skip_without_display ())
    return;
  tmp = hs_test_make_tmpdir ();
  app_ds = hs_test_make_demo (tmp, "app", 5, 256, "none");
  cli_ds = hs_test_make_demo (tmp, "cli", 5, 256, "none");
  {
    const char *args[] = { cli_ds, "--model", "grounded", NULL };
    g_free (run_cli ("attend", args));
  }

  window = hs_ui_new_window ();
  hs_ui_open_path (window, app_ds);
  g_assert_false (window_has_model (window, "grounded"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "attend"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "attend", NULL);
  dialog = HS_ATTEND_DIALOG (hs_window_get_attend_dialog (window));
  g_assert_nonnull (dialog);
  hs_ui_wait_until (hs_ui_is_mapped, dialog);

  /* The dialog's controls say what runs. */
  hs_attend_dialog_set_spec (dialog, &spec);
  g_assert_true (hs_attend_dialog_get_spec (dialog, &read, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (read.model, ==, "grounded");
  g_assert_null (read.backend_command);
  g_assert_null (read.name);
  g_assert_null (read.perturbations);
  g_assert_false (read.force);
  hs_attend_spec_clear (&read);
  save_snapshot (dialog, "ui-attend-dialog");
  g_assert_true (hs_attend_dialog_compute (dialog));
  g_assert_null (hs_window_get_attend_dialog (window));
  job = hs_window_get_attend_job (window);
  g_assert_nonnull (job);
  g_assert_true (hs_attend_job_get_running (job));
  g_assert_cmpstr (hs_window_get_attend_status (window), ==, "Computing maps with grounded…");
  /* No second run while one is going on. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "attend"));
  g_assert_false (hs_window_attend_start (window, &spec, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_clear_error (&error);

  hs_ui_wait_until (attend_settled, window);
  counts = hs_attend_job_get_counts (job);
  g_assert_false (hs_attend_job_get_cancelled (job));
  g_assert_null (hs_attend_job_get_error (job));
  g_assert_cmpuint (counts->total, >, 5);
  g_assert_cmpuint (counts->computed, ==, counts->total);
  g_assert_cmpuint (counts->skipped, ==, 0);
  g_assert_cmpuint (counts->failed, ==, 0);
  g_assert_cmpuint (hs_test_count_maps (app_ds, "grounded"), ==, counts->total);
  g_assert_cmpuint (hs_test_count_maps (cli_ds, "grounded"), ==, counts->total);
  {
    g_autofree char *progress = hs_attend_job_dup_progress_text (job);
    g_autofree char *expected = g_strdup_printf ("%u / %u maps", counts->total, counts->total);
    g_assert_true (g_str_has_prefix (progress, expected));
    g_assert_cmpfloat (hs_attend_job_get_fraction (job), ==, 1.0);
  }
  {
    g_autofree char *expected = g_strdup_printf ("%u maps computed, 0 skipped", counts->total);
    g_assert_nonnull (strstr (hs_window_get_attend_status (window), expected));
  }
  /* Read again: the new model is in the window. */
  g_assert_true (window_has_model (window, "grounded"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "attend"));
  save_snapshot (window, "ui-attend-done");

  app_rows = metrics_csv (app_ds, "grounded");
  cli_rows = metrics_csv (cli_ds, "grounded");
  g_assert_cmpuint (strlen (app_rows), >, 0);
  g_assert_cmpstr (app_rows, ==, cli_rows);
  hs_ui_destroy_window (window);
}

/* Answers every request with the same 2×3 map; while the file argv[1]
 * exists, its fifth request is never answered (the file is removed first). */
static const char hang_once_py[] =
  "import sys, json, base64, struct, os, time\n"
  "n = 0\n"
  "for line in sys.stdin:\n"
  "    req = json.loads(line); n += 1\n"
  "    if n == 5 and os.path.exists(sys.argv[1]):\n"
  "        os.unlink(sys.argv[1]); time.sleep(3600)\n"
  "    vals = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.03125]\n"
  "    data = base64.b64encode(struct.pack('<6f', *vals)).decode()\n"
  "    print(json.dumps({'id': req['id'], 'shape': [2, 3], 'maps': data, 'no_attn': 0.25}), flush=True)\n";

/* A run cancelled once 4 maps are computed — a chosen point: the backend
 * does not answer the fifth request, so no fifth map can slip in before the
 * cancel lands — leaves a valid dataset with exactly those 4 maps; the next
 * run skips them and computes the rest, and the result scores as one
 * uninterrupted CLI run. */
static void
test_cancel_resume (void)
{
  g_autofree char *tmp = NULL, *app_ds = NULL, *cli_ds = NULL, *script = NULL, *marker = NULL;
  g_autofree char *command = NULL, *app_rows = NULL, *cli_rows = NULL;
  g_autoptr(GError) error = NULL;
  HsAttendSpec spec = { .name = (char *) "ext", .queries = HS_ATTEND_QUERIES_ALL };
  HsAttendJob *job;
  HsWindow *window;
  guint total;

  if (hs_ui_skip_without_display ())
    return;
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return;
    }
  tmp = hs_test_make_tmpdir ();
  app_ds = hs_test_make_demo (tmp, "app", 4, 256, "none");
  cli_ds = hs_test_make_demo (tmp, "cli", 4, 256, "none");
  hs_test_write_file (tmp, "backend.py", hang_once_py);
  script = g_build_filename (tmp, "backend.py", NULL);
  marker = g_build_filename (tmp, "hang-once", NULL);
  command = g_strdup_printf ("/usr/bin/python3 %s %s", script, marker);
  spec.backend_command = command;
  {
    const char *args[] = { cli_ds, "--backend-exec", command, "--name", "ext", NULL };
    g_free (run_cli ("attend", args));
  }
  window = hs_ui_new_window ();
  hs_ui_open_path (window, app_ds);

  hs_test_write_file (tmp, "hang-once", "");
  hs_window_set_attend_cancel_after (window, 4);
  g_assert_true (hs_window_attend_start (window, &spec, &error));
  g_assert_no_error (error);
  job = hs_window_get_attend_job (window);
  hs_ui_wait_until (attend_settled, window);
  g_assert_true (hs_attend_job_get_cancelled (job));
  g_assert_null (hs_attend_job_get_error (job));
  total = hs_attend_job_get_counts (job)->total;
  g_assert_cmpuint (hs_attend_job_get_counts (job)->computed, ==, 4);
  g_assert_cmpuint (hs_attend_job_get_counts (job)->failed, ==, 0);
  g_assert_cmpuint (total, >, 4);
  g_assert_nonnull (strstr (hs_window_get_attend_status (window), "Cancelled: 4 maps computed"));
  save_snapshot (window, "ui-attend-cancelled");
  /* Valid, and holding exactly the maps the run counted. */
  {
    const char *args[] = { app_ds, NULL };
    g_free (run_cli ("validate", args));
  }
  g_assert_cmpuint (hs_test_count_maps (app_ds, "ext"), ==, 4);

  g_remove (marker);   /* the backend answers everything now */
  hs_window_set_attend_cancel_after (window, 0);
  g_assert_true (hs_window_attend_start (window, &spec, &error));
  g_assert_no_error (error);
  job = hs_window_get_attend_job (window);
  hs_ui_wait_until (attend_settled, window);
  g_assert_false (hs_attend_job_get_cancelled (job));
  g_assert_cmpuint (hs_attend_job_get_counts (job)->total, ==, total);
  g_assert_cmpuint (hs_attend_job_get_counts (job)->skipped, ==, 4);
  g_assert_cmpuint (hs_attend_job_get_counts (job)->computed, ==, total - 4);
  g_assert_cmpuint (hs_attend_job_get_counts (job)->failed, ==, 0);
  {
    g_autofree char *expected = g_strdup_printf ("%u maps computed, 4 skipped (already in the dataset)",
                                                 total - 4);
    g_assert_nonnull (strstr (hs_window_get_attend_status (window), expected));
  }
  g_assert_cmpuint (hs_test_count_maps (app_ds, "ext"), ==, total);
  app_rows = metrics_csv (app_ds, "ext");
  cli_rows = metrics_csv (cli_ds, "ext");
  g_assert_cmpstr (app_rows, ==, cli_rows);
  hs_ui_destroy_window (window);
}

/* Answers every request with a fixed 2×3 map, and an error for one image. */
static const char backend_py[] =
  "import sys, json, base64, struct, os\n"
  "for line in sys.stdin:\n"
  "    req = json.loads(line)\n"
  "    if os.path.basename(req['image']) == sys.argv[1]:\n"
  "        print(json.dumps({'id': req['id'], 'error': 'no such finding'}), flush=True); continue\n"
  "    vals = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.03125]\n"
  "    data = base64.b64encode(struct.pack('<6f', *vals)).decode()\n"
  "    print(json.dumps({'id': req['id'], 'shape': [2, 3], 'maps': data, 'no_attn': 0.25}), flush=True)\n";

/* The user's external backend (the preference, never the dataset) fails
 * on one image: the run goes on, the summary counts the failures and lists
 * them by instance, image and query. */
static void
test_backend_failure (void)
{
  g_autofree char *tmp = NULL, *ds = NULL, *script = NULL, *command = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GError) error = NULL;
  HsAttendSpec read = { 0 };
  HsAttendDialog *dialog;
  HsAttendJob *job;
  HsWindow *window;
  const HsAttendCounts *counts;

  if (hs_ui_skip_without_display ())
    return;
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return;
    }
  tmp = hs_test_make_tmpdir ();
  ds = hs_test_make_demo (tmp, "ext", 3, 256, "none");
  hs_test_write_file (tmp, "backend.py", backend_py);
  script = g_build_filename (tmp, "backend.py", NULL);
  command = g_strdup_printf ("/usr/bin/python3 %s phantom-000002.png", script);
  settings = hs_settings_new ();
  g_settings_set_string (settings, "backend-command", command);

  window = hs_ui_new_window ();
  hs_ui_open_path (window, ds);
  g_action_group_activate_action (G_ACTION_GROUP (window), "attend", NULL);
  dialog = HS_ATTEND_DIALOG (hs_window_get_attend_dialog (window));
  g_assert_nonnull (dialog);
  {
    HsAttendSpec spec = { .backend_command = command, .queries = HS_ATTEND_QUERIES_SENTENCES };

    hs_attend_dialog_set_spec (dialog, &spec);
  }
  /* A backend's maps need a name: the dialog says so and stays. */
  g_assert_false (hs_attend_dialog_get_spec (dialog, &read, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (hs_attend_dialog_compute (dialog));
  g_assert_true (hs_window_get_attend_dialog (window) == GTK_WINDOW (dialog));
  {
    HsAttendSpec spec = { .backend_command = command, .name = (char *) "mine",
                          .queries = HS_ATTEND_QUERIES_SENTENCES };

    hs_attend_dialog_set_spec (dialog, &spec);
  }
  g_assert_true (hs_attend_dialog_get_spec (dialog, &read, &error));
  g_assert_cmpstr (read.backend_command, ==, command);
  g_assert_null (read.model);
  g_assert_cmpint (read.queries, ==, HS_ATTEND_QUERIES_SENTENCES);
  hs_attend_spec_clear (&read);
  g_assert_true (hs_attend_dialog_compute (dialog));
  job = hs_window_get_attend_job (window);
  hs_ui_wait_until (attend_settled, window);

  counts = hs_attend_job_get_counts (job);
  g_assert_null (hs_attend_job_get_error (job));
  g_assert_cmpuint (counts->failed, >, 0);
  g_assert_cmpuint (counts->computed, >, 0);
  g_assert_cmpuint (counts->computed + counts->failed, ==, counts->total);
  g_assert_cmpuint (hs_attend_job_get_problems (job)->len, ==, counts->failed);
  for (guint i = 0; i < counts->failed; i++)
    {
      const char *line = g_ptr_array_index (hs_attend_job_get_problems (job), i);

      g_assert_nonnull (strstr (line, "phantom-000002.png"));
      g_assert_nonnull (strstr (line, "no such finding"));
    }
  g_assert_cmpuint (hs_test_count_maps (ds, "mine"), ==, counts->computed);
  g_assert_true (window_has_model (window, "mine"));
  {
    g_autofree char *expected = g_strdup_printf ("%u failed", counts->failed);
    g_assert_nonnull (strstr (hs_window_get_attend_status (window), expected));
  }
  save_snapshot (window, "ui-attend-backend");
  g_settings_reset (settings, "backend-command");
  hs_ui_destroy_window (window);
}

int
main (int argc, char **argv)
{
  hs_ui_init (&argc, &argv);
  g_test_add_func ("/hs/ui/attend/compute-equals-cli", test_compute_equals_cli);
  g_test_add_func ("/hs/ui/attend/cancel-resume", test_cancel_resume);
  g_test_add_func ("/hs/ui/attend/backend-failure", test_backend_failure);
  return g_test_run ();
}
