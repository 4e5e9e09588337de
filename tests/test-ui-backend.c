/* test-ui-backend.c — the external backend (--backend-exec / backend-command)
 * as a live model in the main window: a fake backend's constant map reaches
 * the canvas for a typed prompt; a crashing backend reports an error that
 * names the command, and the window keeps working.  The Perturb tab, the
 * pair compare and the model grid drive the backend too: the perturbed and
 * swapped prompts are sent to it, its maps shown, its errors shown in the
 * panel's status and in the compare cells. */
#include "hs-ui-fixture.h"

#include "hs-window.h"
#include "hs-compare-view.h"
#include "hs-perturb-panel.h"

#define EXEC_ENTRY "External backend (live)"
#define PROMPT     "Opacity in the right lower lung."
#define PROMPT2    "Clear lungs."

static char *dataset_root;
static char *tmp_dir;

/* The constant map the fake backend answers with: shape [2, 3], row 0 at
 * the top.  The values sum to 1, so a normalised map would not differ. */
static const double fake_values[6] = { 0.05, 0.10, 0.15, 0.20, 0.25, 0.25 };

/* Speaks docs/backend-protocol.md: one JSON request per line, one response
 * per line with `maps` as base64 little-endian float32; logs each prompt. */
static const char fake_backend[] =
  "import sys, json, base64, struct\n"
  "log = open(sys.argv[1], 'a', encoding='utf-8')\n"
  "for line in sys.stdin:\n"
  "    req = json.loads(line)\n"
  "    log.write(req['prompt'] + '\\n'); log.flush()\n"
  "    vals = [0.05, 0.10, 0.15, 0.20, 0.25, 0.25]\n"
  "    out = {'id': req['id'], 'shape': [2, 3],\n"
  "           'maps': base64.b64encode(struct.pack('<6f', *vals)).decode('ascii'),\n"
  "           'no_attn': None}\n"
  "    sys.stdout.write(json.dumps(out) + '\\n'); sys.stdout.flush()\n";

static void
set_backend_command (const char *command)
{
  g_autoptr(GSettings) settings = hs_settings_new ();

  g_assert_nonnull (settings);
  g_settings_set_string (settings, "backend-command", command);
}

static HsWindow *
open_window (void)
{
  HsWindow *window = hs_window_new (NULL);
  g_autoptr(GFile) file = g_file_new_for_path (dataset_root);

  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 760);
  gtk_window_present (GTK_WINDOW (window));
  hs_ui_wait_until (hs_ui_is_mapped, window);
  /* The Perturb tab shown: it follows the view only while it is. */
  gtk_stack_set_visible_child_name (g_object_get_data (G_OBJECT (window), "hs-side-stack"), "perturb");
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_ui_settle ();
  g_assert_nonnull (hs_window_get_dataset (window));
  /* Built-in models whose weights are missing report themselves: start clean. */
  hs_error_bar_clear (hs_window_get_error_bar (window));
  return window;
}

static void
destroy_window (HsWindow *window)
{
  g_object_ref (window);
  gtk_window_destroy (GTK_WINDOW (window));
  hs_ui_settle ();
  hs_ui_assert_finalized (window);
}

static void
type_prompt (HsWindow   *window,
             const char *text)
{
  HsPromptPanel *panel = hs_window_get_prompt_panel (window);
  GtkTextBuffer *buffer =
    gtk_text_view_get_buffer (GTK_TEXT_VIEW (g_object_get_data (G_OBJECT (panel), "hs-prompt-view")));

  gtk_text_buffer_set_text (buffer, "", -1);
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      char ch[8] = { 0 };
      memcpy (ch, p, g_utf8_next_char (p) - p);
      gtk_text_buffer_insert_at_cursor (buffer, ch, -1);
      g_main_context_iteration (NULL, FALSE);
    }
  g_assert_cmpstr (hs_prompt_panel_get_prompt (panel), ==, text);
}

static void
assert_fake_map (HsAttentionMap *map)
{
  const double *values;

  g_assert_nonnull (map);
  g_assert_cmpuint (hs_attention_map_get_height (map), ==, 2);
  g_assert_cmpuint (hs_attention_map_get_width (map), ==, 3);
  values = hs_attention_map_peek_values (map);
  for (guint c = 0; c < 6; c++)
    g_assert_cmpfloat (fabs (values[c] - fake_values[c]), <=, 1e-6);
}

static gboolean
panel_idle (gpointer panel)
{
  return !hs_perturb_panel_get_busy (panel);
}

static gboolean
view_idle (gpointer view)
{
  return !hs_compare_view_get_busy (view);
}

/* Runs win.compare(kind) and returns the compare window it opened. */
static GtkWindow *
open_compare (HsWindow   *window,
              const char *kind)
{
  g_autoptr(GListModel) toplevels = NULL;

  g_action_group_activate_action (G_ACTION_GROUP (window), "compare", g_variant_new_string (kind));
  hs_ui_settle ();
  toplevels = g_object_ref (gtk_window_get_toplevels ());
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) item = g_list_model_get_item (toplevels, i);
      if (hs_compare_window_get_view (item) != NULL)
        return item;
    }
  g_assert_not_reached ();
  return NULL;
}

/* The grid cell titled `title`. */
static guint
find_cell (HsCompareView *view,
           const char    *title)
{
  for (guint i = 0; i < hs_compare_view_get_n_canvases (view); i++)
    if (g_strcmp0 (hs_compare_view_get_title (view, i), title) == 0)
      return i;
  g_assert_not_reached ();
  return 0;
}

static gboolean
log_has_line (const char *log,
              const char *line)
{
  g_autofree char *logged = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (log, &logged, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (logged, "\n", -1);
  return g_strv_contains ((const char * const *) lines, line);
}

static void
test_no_command (void)
{
  HsWindow *window;

  if (hs_ui_skip_without_display ())
    return;
  set_backend_command ("");
  window = open_window ();
  /* Without a command there is no entry, and nothing runs. */
  g_assert_false (hs_window_select_model (window, EXEC_ENTRY));
  destroy_window (window);
}

static void
test_fake_backend (void)
{
  g_autofree char *script = g_build_filename (tmp_dir, "fake backend.py", NULL);
  g_autofree char *log = g_build_filename (tmp_dir, "prompts.log", NULL);
  g_autofree char *q_script = g_shell_quote (script);
  g_autofree char *q_log = g_shell_quote (log);
  g_autofree char *command = g_strdup_printf ("/usr/bin/python3 %s %s", q_script, q_log);
  g_autofree char *logged = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  HsWindow *window;
  guint started;

  if (hs_ui_skip_without_display ())
    return;
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("/usr/bin/python3 is missing");
      return;
    }
  g_file_set_contents (script, fake_backend, -1, &error);
  g_assert_no_error (error);
  g_unlink (log);
  set_backend_command (command);

  window = open_window ();
  g_assert_true (hs_window_select_model (window, EXEC_ENTRY));
  g_assert_cmpstr (hs_window_get_model (window), ==, EXEC_ENTRY);
  g_assert_nonnull (hs_window_get_live_model (window));
  hs_ui_wait_until (hs_ui_window_live_done, window);

  type_prompt (window, PROMPT);
  g_assert_true (hs_window_get_live_busy (window));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  assert_fake_map (hs_window_get_map (window));
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);

  /* The backend saw the whole prompt as typed (the last request it got). */
  g_file_get_contents (log, &logged, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (g_strchomp (logged), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), >=, 1);
  g_assert_cmpstr (lines[g_strv_length (lines) - 1], ==, PROMPT);

  /* A second prompt, then the first again: served from the cache, no request. */
  type_prompt (window, PROMPT2);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  assert_fake_map (hs_window_get_map (window));
  started = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), "hs-live-started"));
  type_prompt (window, PROMPT);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  assert_fake_map (hs_window_get_map (window));
  g_assert_cmpuint (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), "hs-live-started")), ==, started);

  destroy_window (window);
  set_backend_command ("");
}

/* The Perturb tab, the pair compare and the grid with the external backend:
 * the swapped prompt reaches the backend and its maps come back.  The fake
 * backend answers every prompt with the same map, so every Δ is exactly 0,
 * A − B is 0 everywhere and the symmetric KL is 0. */
static void
test_backend_perturb_compare (void)
{
  g_autofree char *script = g_build_filename (tmp_dir, "fake backend.py", NULL);
  g_autofree char *log = g_build_filename (tmp_dir, "prompts-perturb.log", NULL);
  g_autofree char *q_script = g_shell_quote (script);
  g_autofree char *q_log = g_shell_quote (log);
  g_autofree char *command = g_strdup_printf ("/usr/bin/python3 %s %s", q_script, q_log);
  g_autoptr(GError) error = NULL;
  HsWindow *window;
  HsPerturbPanel *panel;
  HsComparison cmp;
  GtkWindow *compare;
  HsCompareView *view;
  guint cell;

  if (hs_ui_skip_without_display ())
    return;
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("/usr/bin/python3 is missing");
      return;
    }
  g_file_set_contents (script, fake_backend, -1, &error);
  g_assert_no_error (error);
  g_unlink (log);
  set_backend_command (command);
  window = open_window ();
  g_assert_true (hs_window_select_instance (window, "hand-00"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_true (hs_window_select_model (window, EXEC_ENTRY));
  hs_ui_wait_until (hs_ui_window_live_done, window);

  /* Perturb tab: swap-left-right of s0, both prompts sent to the backend. */
  panel = HS_PERTURB_PANEL (hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_PERTURB_PANEL));
  g_assert_nonnull (panel);
  hs_perturb_panel_set_perturbation (panel, HS_PERTURB_SWAP_LEFT_RIGHT);
  hs_ui_wait_until (panel_idle, panel);
  g_test_message ("perturb status: %s", hs_perturb_panel_get_status (panel));
  g_assert_cmpstr (hs_perturb_panel_get_status (panel), ==, "");
  g_assert_nonnull (strstr (hs_perturb_panel_get_prompt (panel), HS_UI_S0_SWAPPED));
  g_assert_true (hs_perturb_panel_get_comparison (panel, &cmp));
  g_assert_cmpfloat (cmp.delta[HS_METRIC_AUROC], ==, 0.0);
  g_assert_cmpfloat (cmp.delta[HS_METRIC_MASS_IN_TARGET], ==, 0.0);
  g_assert_false (isnan (cmp.original.value[HS_METRIC_MASS_IN_TARGET]));
  g_assert_cmpfloat (fabs (cmp.sym_kl), <=, 1e-9);
  g_assert_true (log_has_line (log, HS_UI_S0));
  g_assert_true (log_has_line (log, HS_UI_S0_SWAPPED));

  /* Pair compare: A and B are the backend's maps, A − B is zero. */
  compare = open_compare (window, "pair");
  view = hs_compare_window_get_view (compare);
  g_assert_cmpint (hs_compare_view_get_mode (view), ==, HS_COMPARE_MODE_PAIR);
  hs_ui_wait_until (view_idle, view);
  g_assert_nonnull (strstr (hs_compare_view_get_title (view, 0), EXEC_ENTRY));
  assert_fake_map (hs_compare_view_get_map (view, 0));
  assert_fake_map (hs_compare_view_get_map (view, 1));
  g_assert_nonnull (hs_compare_view_get_map (view, 2));
  for (guint c = 0; c < 6; c++)
    g_assert_cmpfloat (hs_attention_map_peek_values (hs_compare_view_get_map (view, 2))[c], ==, 0.0);
  gtk_window_destroy (compare);
  hs_ui_settle ();

  /* Grid: the precomputed models, the built-in live ones and the backend. */
  compare = open_compare (window, "grid");
  view = hs_compare_window_get_view (compare);
  g_assert_cmpint (hs_compare_view_get_mode (view), ==, HS_COMPARE_MODE_GRID);
  hs_ui_wait_until (view_idle, view);
  cell = find_cell (view, EXEC_ENTRY);
  g_assert_null (hs_compare_view_get_error (view, cell));
  assert_fake_map (hs_compare_view_get_map (view, cell));
  g_assert_nonnull (hs_compare_view_get_map (view, find_cell (view, "grounded")));
  gtk_window_destroy (compare);
  hs_ui_settle ();

  destroy_window (window);
  set_backend_command ("");
}

static void
test_crashing_backend (void)
{
  const char *command = "sh -c 'exit 3'";
  HsWindow *window;
  HsErrorBar *bar;

  if (hs_ui_skip_without_display ())
    return;
  set_backend_command (command);
  window = open_window ();
  bar = hs_window_get_error_bar (window);
  g_assert_true (hs_window_select_model (window, EXEC_ENTRY));
  hs_ui_wait_until (hs_ui_window_live_done, window);

  type_prompt (window, PROMPT);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_null (hs_window_get_map (window));
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), >=, 1);
  g_test_message ("error bar: %s", hs_error_bar_get_text (bar));
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), command));

  /* The Perturb tab and the compare cells show the failure, naming the command. */
  {
    HsPerturbPanel *panel = HS_PERTURB_PANEL (hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_PERTURB_PANEL));
    GtkWindow *compare;
    HsCompareView *view;
    guint cell;

    HsPromptPanel *prompt = hs_window_get_prompt_panel (window);

    /* the Perturb tab perturbs the selected report sentence, not a typed prompt */
    g_assert_nonnull (hs_prompt_panel_get_sentence (prompt));
    hs_prompt_panel_set_prompt (prompt, hs_prompt_panel_get_sentence (prompt)->text);
    hs_ui_wait_until (hs_ui_window_live_done, window);
    hs_perturb_panel_set_perturbation (panel, HS_PERTURB_SHUFFLE_IN_REPORT);
    hs_perturb_panel_set_perturbation (panel, HS_PERTURB_SWAP_LEFT_RIGHT);
    hs_ui_wait_until (panel_idle, panel);
    g_test_message ("perturb status: %s", hs_perturb_panel_get_status (panel));
    g_assert_false (hs_perturb_panel_get_comparison (panel, NULL));
    g_assert_nonnull (strstr (hs_perturb_panel_get_status (panel), command));

    compare = open_compare (window, "pair");
    view = hs_compare_window_get_view (compare);
    hs_ui_wait_until (view_idle, view);
    g_assert_null (hs_compare_view_get_map (view, 0));
    g_assert_nonnull (strstr (hs_compare_view_get_error (view, 0), command));
    g_assert_nonnull (hs_compare_view_get_error (view, 2));   /* A − B needs both */
    gtk_window_destroy (compare);
    hs_ui_settle ();

    compare = open_compare (window, "grid");
    view = hs_compare_window_get_view (compare);
    hs_ui_wait_until (view_idle, view);
    cell = find_cell (view, EXEC_ENTRY);
    g_assert_null (hs_compare_view_get_map (view, cell));
    g_test_message ("grid cell: %s", hs_compare_view_get_error (view, cell));
    g_assert_nonnull (strstr (hs_compare_view_get_error (view, cell), command));
    /* The other cells are unaffected. */
    g_assert_nonnull (hs_compare_view_get_map (view, find_cell (view, "grounded")));
    gtk_window_destroy (compare);
    hs_ui_settle ();
  }

  /* Still responsive: another prompt tries again (a new process, a new error)… */
  hs_error_bar_clear (bar);
  type_prompt (window, PROMPT2);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), >=, 1);

  /* …and the precomputed maps still show. */
  g_assert_true (hs_window_select_model (window, "grounded"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_null (hs_window_get_live_model (window));
  g_assert_true (hs_window_select_instance (window, "hand-01"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  hs_ui_settle ();
  g_assert_nonnull (hs_window_get_map (window));

  destroy_window (window);
  set_backend_command ("");
}

/* A backend that never answers, and one that answers garbage: each request shows as an error
 * in the window that names the command and what went wrong, and the window stays usable.  The
 * hanging backend never reads or replies, so the only way the error appears is the
 * window's timeout (the "backend-timeout" key, 1 s for it): no machine is fast enough to pass
 * by luck, and the hs_ui_wait_until guard (HS_UI_HANG_SECONDS) is far above it.  The
 * malformed backend answers at once: its timeout (60 s) only bounds a hang, so a slow start
 * of `sh` on a loaded machine cannot turn its error into a timeout. */
static void
check_failing_backend (const char *command, guint timeout_s, const char *reason)
{
  g_autoptr(GSettings) settings = hs_settings_new ();
  HsWindow *window;
  HsErrorBar *bar;
  const char *next;

  if (hs_ui_skip_without_display ())
    return;
  set_backend_command (command);
  g_settings_set_uint (settings, "backend-timeout", timeout_s);
  window = open_window ();
  bar = hs_window_get_error_bar (window);
  g_assert_true (hs_window_select_model (window, EXEC_ENTRY));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  hs_error_bar_clear (bar);

  type_prompt (window, PROMPT);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_null (hs_window_get_map (window));
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), >=, 1);
  g_test_message ("error bar: %s", hs_error_bar_get_text (bar));
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), command));
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), reason));

  /* Still usable: browsing (to an instance other than the one on screen, which the window may
   * have restored from the previous test), another model, its map on screen. */
  next = g_strcmp0 (hs_window_get_instance (window)->id, "hand-02") == 0 ? "hand-01" : "hand-02";
  g_assert_true (hs_window_select_model (window, "grounded"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_true (hs_window_select_instance (window, next));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  hs_ui_settle ();
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, next);
  g_assert_nonnull (hs_window_get_map (window));

  destroy_window (window);
  set_backend_command ("");
  g_settings_reset (settings, "backend-timeout");
}

static void
test_hanging_backend (void)
{
  check_failing_backend ("sh -c 'exec sleep 600'", 1, "did not answer within 1.0 s");
}

static void
test_malformed_backend (void)
{
  check_failing_backend ("sh -c 'while read line; do echo \"not json {\"; done'", 60,
                         "malformed response");
}

int
main (int argc, char **argv)
{
  int ret;

  hs_ui_init (&argc, &argv);
  tmp_dir = hs_test_make_tmpdir ();
  dataset_root = hs_ui_make_dataset ();

  g_test_add_func ("/hs/ui-backend/no-command", test_no_command);
  g_test_add_func ("/hs/ui-backend/fake-backend", test_fake_backend);
  g_test_add_func ("/hs/ui-backend/perturb-compare", test_backend_perturb_compare);
  g_test_add_func ("/hs/ui-backend/crashing-backend", test_crashing_backend);
  g_test_add_func ("/hs/ui-backend/hanging-backend", test_hanging_backend);
  g_test_add_func ("/hs/ui-backend/malformed-backend", test_malformed_backend);
  ret = g_test_run ();
  g_free (dataset_root);
  g_free (tmp_dir);
  return ret;
}
