/* test-ui-live.c — live models in the main window: the map of the prompt
 * as typed, computed in a worker thread, equals hs_model_attend run directly */
#include "hs-ui-fixture.h"

#include "hs-compare-view.h"
#include "hs-dataset-private.h"  /* hs_dataset_test_after_open */
#include "hs-perturb-panel.h"
#include "hs-window.h"

static char *dataset_root;

#define PROMPT         "Opacity in the right lower lung."
#define PROMPT_SWAPPED "Opacity in the left lower lung."

static HsWindow *
new_window (void)
{
  HsWindow *window = hs_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  hs_ui_wait_until (hs_ui_is_mapped, window);
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

static gboolean
have_models (void)
{
  const char * const *names = hs_model_list_builtin ();

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *path = hs_model_find_builtin (names[i]);
      if (path == NULL)
        {
          g_test_skip ("the built-in model weights (data/models) are missing");
          return FALSE;
        }
    }
  return TRUE;
}

static HsWindow *
open_demo (void)
{
  HsWindow *window;
  g_autoptr(GFile) file = g_file_new_for_path (dataset_root);

  window = new_window ();
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_ui_settle ();
  g_assert_nonnull (hs_window_get_dataset (window));
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);
  return window;
}

/* Replaces the prompt keystroke by keystroke, like a user typing. */
static void
type_prompt (HsWindow   *window,
             const char *text,
             gboolean    iterate)
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
      if (iterate)
        g_main_context_iteration (NULL, FALSE);
    }
  g_assert_cmpstr (hs_prompt_panel_get_prompt (panel), ==, text);
}

/* The map computed without the window. */
static HsAttentionMap *
attend_directly (HsWindow   *window,
                 const char *model_name,
                 const char *prompt)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsModel) model = hs_model_load_builtin (model_name, &error);
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImageFeatures) features = NULL;
  HsAttentionMap *map;

  g_assert_no_error (error);
  image = hs_dataset_load_image (hs_window_get_dataset (window), hs_window_get_instance (window), &error);
  g_assert_no_error (error);
  features = hs_model_encode_image (model, image, NULL, &error);
  g_assert_no_error (error);
  map = hs_model_attend (model, features, prompt, &error);
  g_assert_no_error (error);
  return map;
}

/* Waits, without running the main loop (so the result cannot reach the
 * window), until the worker of the live request for `prompt` has finished:
 * its map is in the LRU.  Polled every millisecond: the worker is another
 * thread; the bound only catches a hang. */
static void
wait_computed (HsWindow   *window,
               const char *prompt)
{
  g_autofree char *key = hs_live_attend_make_key (hs_window_get_dataset (window),
                                                  hs_window_get_instance (window),
                                                  hs_window_get_live_model (window), prompt);
  HsLiveAttend *live = hs_window_get_live_attend (window);
  gint64 end = g_get_monotonic_time () + HS_UI_HANG_SECONDS * G_USEC_PER_SEC;
  HsAttentionMap *map;

  while ((map = hs_live_attend_lookup (live, key)) == NULL)
    {
      if (g_get_monotonic_time () > end)
        g_error ("the live request for \"%s\" did not finish within %d s (hung?)", prompt,
                 HS_UI_HANG_SECONDS);
      g_usleep (1000);
    }
  hs_attention_map_unref (map);
}

static double
max_abs_diff (HsAttentionMap *a,
              HsAttentionMap *b)
{
  guint cells;
  const double *va, *vb;
  double d = 0.0;

  g_assert_cmpuint (hs_attention_map_get_width (a), ==, hs_attention_map_get_width (b));
  g_assert_cmpuint (hs_attention_map_get_height (a), ==, hs_attention_map_get_height (b));
  cells = hs_attention_map_get_width (a) * hs_attention_map_get_height (a);
  va = hs_attention_map_peek_values (a);
  vb = hs_attention_map_peek_values (b);
  for (guint c = 0; c < cells; c++)
    d = MAX (d, fabs (va[c] - vb[c]));
  return d;
}

static void
assert_same_map (HsAttentionMap *shown,
                 HsAttentionMap *expected)
{
  guint n = hs_attention_map_get_n_tokens (expected);
  guint cells = hs_attention_map_get_width (expected) * hs_attention_map_get_height (expected);

  g_assert_nonnull (shown);
  g_assert_cmpfloat (max_abs_diff (shown, expected), <=, 1e-6);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (shown), ==, n);
  for (guint i = 0; i < n; i++)
    {
      const double *a = hs_attention_map_peek_token (shown, i);
      const double *b = hs_attention_map_peek_token (expected, i);
      g_assert_cmpstr (hs_attention_map_get_token (shown, i), ==, hs_attention_map_get_token (expected, i));
      for (guint c = 0; c < cells; c++)
        g_assert_cmpfloat (fabs (a[c] - b[c]), <=, 1e-6);
    }
  if (isfinite (hs_attention_map_get_no_attn (expected)))
    g_assert_cmpfloat (fabs (hs_attention_map_get_no_attn (shown) - hs_attention_map_get_no_attn (expected)),
                       <=, 1e-6);
  else
    g_assert_false (isfinite (hs_attention_map_get_no_attn (shown)));
}

static void
test_typing (void)
{
  HsWindow *window;
  HsPromptPanel *panel;
  g_autoptr(HsAttentionMap) expected = NULL;
  g_autoptr(HsAttentionMap) expected_swapped = NULL;
  g_autoptr(HsAttentionMap) first = NULL;

  if (hs_ui_skip_without_display () || !have_models ())
    return;
  window = open_demo ();
  panel = hs_window_get_prompt_panel (window);

  g_assert_true (hs_window_select_model (window, "grounded (live)"));
  g_assert_cmpstr (hs_window_get_live_model (window), ==, "grounded");
  hs_ui_wait_until (hs_ui_window_live_done, window);

  /* Typing: one map at the end (the debounce drops the intermediate ones). */
  type_prompt (window, PROMPT, TRUE);
  g_assert_true (hs_window_get_live_busy (window));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  expected = attend_directly (window, "grounded", PROMPT);
  assert_same_map (hs_window_get_map (window), expected);
  g_assert_cmpstr (hs_prompt_panel_get_status (panel), ==, "");
  g_assert_null (hs_prompt_panel_get_map_ref (panel));
  /* The token strip lists the live per-token maps. */
  g_assert_cmpuint (hs_prompt_panel_get_n_tokens (panel), ==, hs_attention_map_get_n_tokens (expected));
  g_assert_cmpuint (hs_prompt_panel_get_n_tokens (panel), >, 0);
  g_test_message ("prompt change → map shown: %.1f ms (120 ms debounce included)",
                  hs_window_get_live_latency (window));
  first = hs_attention_map_ref (hs_window_get_map (window));

  /* Swap left/right: a different map, again the model's own. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "swap-sides", NULL);
  g_assert_cmpstr (hs_prompt_panel_get_prompt (panel), ==, PROMPT_SWAPPED);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  expected_swapped = attend_directly (window, "grounded", PROMPT_SWAPPED);
  assert_same_map (hs_window_get_map (window), expected_swapped);
  g_assert_cmpfloat (max_abs_diff (hs_window_get_map (window), first), >, 1e-4);

  /* Back to the first prompt: served from the cache at once. */
  hs_prompt_panel_set_prompt (panel, PROMPT);
  g_assert_false (hs_window_get_live_busy (window));
  g_assert_true (hs_window_get_map (window) == first);

  /* A prompt without words: no map, and the panel says why. */
  hs_prompt_panel_set_prompt (panel, "...");
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_null (hs_window_get_map (window));
  g_assert_cmpstr (hs_prompt_panel_get_status (panel), !=, "");

  destroy_window (window);
}

static guint
counter (HsWindow *window, const char *name)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), name));
}

static gboolean
perturb_idle (gpointer panel)
{
  return !hs_perturb_panel_get_busy (panel);
}

/* Issue #15 point 4: typing with a live model selected.  Each key is in the
 * prompt at once and costs no view update (the map on screen stays whole
 * until the live map of the new text arrives); a burst starts no request
 * per key (the debounce — held open here by a long delay, so nothing
 * depends on timing — lets the newest text win); the Perturb tab drops the
 * sentence's deltas as soon as the prompt is no longer that sentence, and
 * shows them again when it is. */
static void
test_key_echo (void)
{
  HsWindow *window;
  HsPromptPanel *panel;
  GtkWidget *perturb;
  GtkTextBuffer *buffer;
  HsSentence *sentence;
  HsAttentionMap *before;
  HsComparison cmp;
  g_autoptr(HsAttentionMap) expected = NULL;
  g_autoptr(GString) typed = g_string_new (NULL);
  const char *burst = "Small left effusion";
  guint updates, started;

  if (hs_ui_skip_without_display () || !have_models ())
    return;
  window = open_demo ();
  panel = hs_window_get_prompt_panel (window);
  perturb = hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_PERTURB_PANEL);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (g_object_get_data (G_OBJECT (panel), "hs-prompt-view")));
  /* The Perturb tab shown: it follows the prompt only while it is. */
  gtk_stack_set_visible_child_name (g_object_get_data (G_OBJECT (window), "hs-side-stack"), "perturb");
  g_assert_true (hs_window_select_model (window, "grounded (live)"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  sentence = hs_prompt_panel_get_sentence (panel);
  g_assert_nonnull (sentence);
  g_assert_cmpstr (hs_prompt_panel_get_prompt (panel), ==, sentence->text);
  hs_ui_wait_until (perturb_idle, perturb);
  g_assert_true (hs_perturb_panel_get_comparison (HS_PERTURB_PANEL (perturb), &cmp));
  before = hs_window_get_map (window);
  g_assert_nonnull (before);

  hs_window_set_live_delay (window, G_MAXINT / 2);
  updates = counter (window, "hs-view-updates");
  started = counter (window, "hs-live-started");
  gtk_text_buffer_set_text (buffer, "", -1);
  for (const char *p = burst; *p != '\0'; p++)
    {
      gtk_text_buffer_insert_at_cursor (buffer, p, 1);
      g_string_append_c (typed, *p);
      /* the key is there at once */
      g_assert_cmpstr (hs_prompt_panel_get_prompt (panel), ==, typed->str);
      /* and it cost no view update, no request; the old map stays shown */
      g_assert_cmpuint (counter (window, "hs-view-updates"), ==, updates);
      g_assert_cmpuint (counter (window, "hs-live-started"), ==, started);
      g_assert_true (hs_window_get_map (window) == before);
      g_assert_true (hs_window_get_live_busy (window));
      /* no deltas of the sentence beside another prompt */
      g_assert_false (hs_perturb_panel_get_comparison (HS_PERTURB_PANEL (perturb), &cmp));
      g_assert_cmpstr (hs_perturb_panel_get_status (HS_PERTURB_PANEL (perturb)), ==,
                       "The prompt is not a report sentence: pick a sentence to see how its "
                       "perturbations move the map");
      g_main_context_iteration (NULL, FALSE);
    }

  /* The newest text wins: one request, for the whole burst. */
  hs_window_set_live_delay (window, 0);
  gtk_text_buffer_insert_at_cursor (buffer, ".", -1);
  g_string_append_c (typed, '.');
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_cmpuint (counter (window, "hs-live-started"), ==, started + 1);
  expected = attend_directly (window, "grounded", typed->str);
  assert_same_map (hs_window_get_map (window), expected);
  g_assert_cmpuint (counter (window, "hs-view-updates"), >, updates);

  /* The sentence again: its deltas come back. */
  hs_prompt_panel_set_prompt (panel, sentence->text);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  hs_ui_wait_until (perturb_idle, perturb);
  g_assert_true (hs_perturb_panel_get_comparison (HS_PERTURB_PANEL (perturb), &cmp));
  destroy_window (window);
}

/* The debounce follows the live model's measured cost (twice its average)
 * and what showing a map costs until it is painted (the larger, at most
 * 120 ms), and a request starts only after the frame that paints the edit. */
static void
test_adaptive_debounce (void)
{
  HsWindow *window;
  GtkTextBuffer *buffer;
  GdkFrameClock *clock;
  gint64 frame_at_edit;
  double cost;
  guint started;

  if (hs_ui_skip_without_display () || !have_models ())
    return;
  window = open_demo ();
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (g_object_get_data (G_OBJECT (hs_window_get_prompt_panel (window)),
                                                                       "hs-prompt-view")));
  g_assert_true (hs_window_select_model (window, "grounded (live)"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  cost = hs_window_get_live_cost (window);
  g_assert_cmpfloat (cost, >, 0.0);
  g_assert_cmpuint (hs_window_get_live_debounce (window), ==,
                    (guint) MIN (120.0, ceil (MAX (2.0 * cost, hs_window_get_live_show_cost (window)))));

  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  started = counter (window, "hs-live-started");
  gtk_text_buffer_insert_at_cursor (buffer, " x", -1);
  frame_at_edit = gdk_frame_clock_get_frame_counter (clock);
  g_assert_true (hs_window_get_live_busy (window));
  while (counter (window, "hs-live-started") == started)
    {
      /* no request before a frame has painted the edit */
      g_assert_cmpint (gdk_frame_clock_get_frame_counter (clock), >=, frame_at_edit);
      g_main_context_iteration (NULL, TRUE);
    }
  g_assert_cmpint (gdk_frame_clock_get_frame_counter (clock), >, frame_at_edit);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  /* a second measurement moves the average, and the debounce with it */
  hs_ui_settle ();
  g_assert_cmpfloat (hs_window_get_live_show_cost (window), >, 0.0);
  g_assert_cmpuint (hs_window_get_live_debounce (window), ==,
                    (guint) MIN (120.0, ceil (MAX (2.0 * hs_window_get_live_cost (window),
                                                   hs_window_get_live_show_cost (window)))));
  destroy_window (window);
}

static guint started_before;

/* One main-loop iteration at a time, so the result of the request that just
 * started cannot have been delivered yet. */
static gboolean
request_started (gpointer data)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (data), "hs-live-started")) != started_before;
}

/* Requests made in quick succession: whatever order the threads finish in,
 * only the newest prompt's map is shown. */
static void
test_superseded (void)
{
  HsWindow *window;
  HsPromptPanel *panel;
  const char *prompts[] = { "Opacity in the left upper lung.", "The right lung is clear.",
                            "Opacity in the right lung.", PROMPT_SWAPPED };
  g_autoptr(HsAttentionMap) expected = NULL;

  if (hs_ui_skip_without_display () || !have_models ())
    return;
  window = open_demo ();
  panel = hs_window_get_prompt_panel (window);
  g_assert_true (hs_window_select_model (window, "blind (live)"));
  hs_window_set_live_delay (window, 0);   /* every edit starts a worker */
  hs_ui_wait_until (hs_ui_window_live_done, window);

  for (int round = 0; round < 3; round++)
    {
      /* Different instances: the image features are computed anew while
       * later prompts arrive. */
      g_action_group_activate_action (G_ACTION_GROUP (window), "next-instance", NULL);
      hs_ui_wait_until (hs_ui_window_not_loading, window);
      for (guint i = 0; i < G_N_ELEMENTS (prompts); i++)
        {
          hs_prompt_panel_set_prompt (panel, prompts[(i + round) % G_N_ELEMENTS (prompts)]);
          g_main_context_iteration (NULL, FALSE);
        }
      hs_ui_wait_until (hs_ui_window_live_done, window);
      hs_ui_settle ();     /* late results of older requests arrive */
      g_clear_pointer (&expected, hs_attention_map_unref);
      expected = attend_directly (window, "blind", hs_prompt_panel_get_prompt (panel));
      assert_same_map (hs_window_get_map (window), expected);
    }

  g_test_message ("%u results of superseded requests arrived late and were not shown",
                  GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), "hs-live-dropped")));

  /* Deliberately late: request A starts, its worker finishes (waited for
   * without running the main loop), and request B is made before A's
   * result reaches the main loop. */
  for (guint attempt = 0; attempt < 5; attempt++)
    {
      const char *words[] = { "one", "two", "three", "four", "five" };
      g_autofree char *a = g_strdup_printf ("Opacity %s in the left upper lung.", words[attempt]);

      guint dropped_before = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), "hs-live-dropped"));

      started_before = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), "hs-live-started"));
      hs_prompt_panel_set_prompt (panel, a);
      hs_ui_wait_until (request_started, window);
      wait_computed (window, a);
      hs_prompt_panel_set_prompt (panel, prompts[attempt % G_N_ELEMENTS (prompts)]);
      hs_ui_wait_until (hs_ui_window_live_done, window);
      hs_ui_settle ();
      /* A's finished result arrived after B was asked for: dropped, every time. */
      g_assert_cmpuint (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), "hs-live-dropped")), >,
                        dropped_before);
      g_clear_pointer (&expected, hs_attention_map_unref);
      expected = attend_directly (window, "blind", prompts[attempt % G_N_ELEMENTS (prompts)]);
      assert_same_map (hs_window_get_map (window), expected);
    }
  g_test_message ("after the deliberate cases: %u late results dropped",
                  GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), "hs-live-dropped")));
  g_assert_cmpuint (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), "hs-live-dropped")), >, 0);

  /* The No-Attn model reports its share. */
  g_assert_true (hs_window_select_model (window, "noattn (live)"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_clear_pointer (&expected, hs_attention_map_unref);
  expected = attend_directly (window, "noattn", hs_prompt_panel_get_prompt (panel));
  g_assert_true (isfinite (hs_attention_map_get_no_attn (expected)));
  assert_same_map (hs_window_get_map (window), expected);

  g_test_message ("noattn, first prompt (encodes the image): prompt change → map shown %.1f ms "
                  "(no debounce)", hs_window_get_live_latency (window));
  hs_prompt_panel_set_prompt (panel, PROMPT);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_test_message ("noattn, image features cached: prompt change → map shown %.1f ms (no debounce)",
                  hs_window_get_live_latency (window));
  g_clear_pointer (&expected, hs_attention_map_unref);
  expected = attend_directly (window, "noattn", PROMPT);
  assert_same_map (hs_window_get_map (window), expected);
  destroy_window (window);
}

/* A dataset with precomputed maps of the same models: the live map of a
 * report sentence equals the stored one (float32 on disk), and going back to
 * the precomputed maps with a custom prompt shows none. */
static void
test_precomputed_and_live (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *root = g_build_filename (tmp, "demo", NULL);
  const char *cli_argv[] = { hs_test_cli (), "demo", "--count", "2", "--seed", "3", "--size", "128",
                             "--maps", "models", root, NULL };
  g_autofree char *err = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(HsAttentionMap) stored = NULL;
  HsWindow *window;
  HsPromptPanel *panel;
  int status = 0;

  if (hs_ui_skip_without_display () || !have_models ())
    return;
  g_assert_true (hs_test_run (cli_argv, NULL, &err, &status));
  if (status != 0)
    g_error ("heatscope-cli demo --maps models failed (%d): %s", status, err);

  window = new_window ();
  file = g_file_new_for_path (root);
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_ui_settle ();
  panel = hs_window_get_prompt_panel (window);

  g_assert_true (hs_window_select_model (window, "grounded"));
  g_assert_null (hs_window_get_live_model (window));
  g_assert_nonnull (hs_prompt_panel_get_map_ref (panel));
  g_assert_nonnull (hs_window_get_map (window));
  stored = hs_attention_map_ref (hs_window_get_map (window));

  g_assert_true (hs_window_select_model (window, "grounded (live)"));
  g_assert_null (hs_prompt_panel_get_map_ref (panel));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_nonnull (hs_window_get_map (window));
  g_assert_true (hs_window_get_map (window) != stored);
  g_assert_cmpfloat (max_abs_diff (hs_window_get_map (window), stored), <=, 1e-5);

  /* A custom prompt, then back to the precomputed maps: nothing to show. */
  type_prompt (window, PROMPT, FALSE);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_nonnull (hs_window_get_map (window));
  g_assert_true (hs_window_select_model (window, "grounded"));
  g_assert_null (hs_window_get_map (window));
  g_assert_cmpstr (hs_prompt_panel_get_status (panel), !=, "");

  destroy_window (window);
}

/* The lesion classifier's saliency maps are offered live on a lesion
 * dataset (its queries name the classes) and not on the chest phantoms; the
 * map shown equals hs_model_attend's, its token the class explained. */
static void
test_saliency (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *root = g_build_filename (tmp, "mri", NULL);
  const char *cli_argv[] = { hs_test_cli (), "demo", "--kind", "mri-lesions", "--count", "2",
                             "--seed", "3", "--maps", "none", root, NULL };
  g_autofree char *path = hs_model_find_builtin ("cnn-random-gradcam");
  g_autofree char *err = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(HsAttentionMap) expected = NULL;
  HsWindow *window;
  int status = 0;

  if (hs_ui_skip_without_display ())
    return;
  if (path == NULL)
    {
      g_test_skip ("data/models/lesion-cnn-random.safetensors is missing");
      return;
    }
  window = open_demo ();
  g_assert_false (hs_window_select_model (window, "cnn-random-gradcam (live)"));
  destroy_window (window);

  g_assert_true (hs_test_run (cli_argv, NULL, &err, &status));
  if (status != 0)
    g_error ("heatscope-cli demo --kind mri-lesions failed (%d): %s", status, err);
  window = new_window ();
  file = g_file_new_for_path (root);
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_ui_settle ();
  g_assert_true (hs_window_select_model (window, "cnn-random-gradcam (live)"));
  g_assert_cmpstr (hs_window_get_live_model (window), ==, "cnn-random-gradcam");
  type_prompt (window, "irregular", FALSE);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  expected = attend_directly (window, "cnn-random-gradcam", "irregular");
  g_assert_cmpstr (hs_attention_map_get_token (expected, 0), ==, "irregular");
  assert_same_map (hs_window_get_map (window), expected);
  g_assert_true (hs_window_select_model (window, "cnn-random-grad (live)"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_clear_pointer (&expected, hs_attention_map_unref);
  expected = attend_directly (window, "cnn-random-grad", "irregular");
  assert_same_map (hs_window_get_map (window), expected);
  destroy_window (window);
}

/* The negative of the image at `path` (different pixels), written beside it
 * as a PNG whose path is returned, to be renamed over it; the old image in
 * *old. */
static char *
write_negative (const char *path, HsImage **old)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) negative = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  char *fresh = g_build_filename (dir, "replacement.png", NULL);
  HsImage *image = hs_image_load (path, &error);

  g_assert_no_error (error);
  negative = hs_image_new (hs_image_get_width (image), hs_image_get_height (image),
                           hs_image_get_channels (image), hs_image_get_bit_depth (image), &error);
  g_assert_no_error (error);
  {
    gsize n = (gsize) hs_image_get_width (image) * hs_image_get_height (image) *
              hs_image_get_channels (image);
    guint16 top = (guint16) ((1u << hs_image_get_bit_depth (image)) - 1);

    for (gsize i = 0; i < n; i++)
      hs_image_get_data (negative)[i] = top - hs_image_peek_data (image)[i];
  }
  g_assert_true (hs_image_save_png (negative, fresh, &error));
  g_assert_no_error (error);
  *old = image;
  return fresh;
}

/* The instance's image replaced on disk by a rename (its negative: different pixels, a new
 * inode) while the window has stepped away: the live map of the old image is still in the live
 * LRU under the same key, but back on the instance the window shows the map of the new image —
 * equal to the grounded model run directly on the new file, not the old map. */
static void
test_replaced_image (void)
{
  HsWindow *window;
  HsPromptPanel *panel;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) old_map = NULL;
  g_autoptr(HsAttentionMap) expected = NULL;
  g_autoptr(HsImage) old_image = NULL;
  g_autofree char *prompt = NULL, *id = NULL, *path = NULL, *fresh = NULL;
  guint stale;

  if (hs_ui_skip_without_display () || !have_models ())
    return;
  window = open_demo ();
  panel = hs_window_get_prompt_panel (window);
  g_assert_true (hs_window_select_model (window, "grounded (live)"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  prompt = g_strdup (hs_prompt_panel_get_prompt (panel));
  g_assert_nonnull (prompt);
  g_assert_cmpstr (prompt, !=, "");
  id = g_strdup (hs_window_get_instance (window)->id);
  old_map = hs_attention_map_ref (hs_window_get_map (window));
  stale = hs_live_attend_get_n_stale (hs_window_get_live_attend (window));

  g_action_group_activate_action (G_ACTION_GROUP (window), "next-instance", NULL);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_cmpstr (hs_window_get_instance (window)->id, !=, id);

  /* the negative, written beside the old file and renamed over it */
  path = hs_dataset_resolve_path (hs_window_get_dataset (window),
                                  hs_dataset_find_instance (hs_window_get_dataset (window), id)->image, &error);
  g_assert_no_error (error);
  fresh = write_negative (path, &old_image);
  g_assert_cmpint (g_rename (fresh, path), ==, 0);

  g_action_group_activate_action (G_ACTION_GROUP (window), "previous-instance", NULL);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, id);
  g_assert_cmpstr (hs_prompt_panel_get_prompt (panel), ==, prompt);

  expected = attend_directly (window, "grounded", prompt);
  /* the replacement changes the map: the old one cannot pass for the new */
  g_assert_cmpfloat (max_abs_diff (old_map, expected), >, 1e-3);
  g_test_message ("shown map vs the new image's: %g, vs the old: %g",
                  max_abs_diff (hs_window_get_map (window), expected),
                  max_abs_diff (hs_window_get_map (window), old_map));
  assert_same_map (hs_window_get_map (window), expected);
  /* found stale in the live LRU and computed again */
  g_assert_cmpuint (hs_live_attend_get_n_stale (hs_window_get_live_attend (window)), >, stale);
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);
  destroy_window (window);
}

/* The image file replaced by hs_dataset_test_after_open just after its
 * first open: the decode reads the old file under the new one's name. */
static char *swap_path, *swap_fresh;
static gint n_swapped;

static void
swap_after_open (const char *resolved)
{
  if (g_str_equal (resolved, swap_path) && g_atomic_int_compare_and_exchange (&n_swapped, 0, 1))
    g_assert_cmpint (g_rename (swap_fresh, swap_path), ==, 0);
}

static gboolean
view_idle (gpointer view)
{
  return !hs_compare_view_get_busy (view);
}

static HsAttentionMap *
attend_image (HsImage *image, const char *prompt)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsModel) model = hs_model_load_builtin ("grounded", &error);
  HsAttentionMap *map;

  g_assert_no_error (error);
  map = hs_model_attend_image (model, image, prompt, &error);
  g_assert_no_error (error);
  return map;
}

/* The compare view hands the image it decoded to the live request with the stamp taken before
 * that decode: the image file is replaced by a rename just after the decode's open, so the view
 * attends the old pixels while the path names the new file.  Kept under the old file's stamp,
 * that map is stale when the grid is loaded again and the new image's map is computed (with
 * the stamp taken when the request started — the new file's — the old map came back from the
 * live LRU as the new file's). */
static void
test_compare_replaced_while_decoding (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsLiveAttend) live = NULL;
  g_autoptr(HsImage) old_image = NULL;
  g_autoptr(HsImage) new_image = NULL;
  g_autoptr(HsAttentionMap) old_map = NULL;
  g_autoptr(HsAttentionMap) new_map = NULL;
  const char *live_models[] = { "grounded", NULL };
  HsInstance *instance;
  HsSentence *sentence;
  GtkWindow *window;
  HsCompareView *view;
  guint stale;

  if (hs_ui_skip_without_display () || !have_models ())
    return;
  dataset = hs_dataset_load (dataset_root, &error);
  g_assert_no_error (error);
  /* the last instance: test_replaced_image replaced the first one's image */
  instance = hs_dataset_get_instance (dataset, hs_dataset_get_n_instances (dataset) - 1);
  sentence = g_ptr_array_index (instance->sentences, 0);
  swap_path = hs_dataset_resolve_path (dataset, instance->image, &error);
  g_assert_no_error (error);
  swap_fresh = write_negative (swap_path, &old_image);
  live = hs_live_attend_new ();
  window = hs_compare_window_new (NULL);
  view = hs_compare_window_get_view (window);
  gtk_window_present (window);

  n_swapped = 0;
  hs_dataset_test_after_open = swap_after_open;
  g_assert_true (hs_compare_view_load_grid_live (view, dataset, instance, sentence, NULL, NULL, live,
                                                 live_models, &error));
  g_assert_no_error (error);
  hs_ui_wait_until (view_idle, view);
  hs_dataset_test_after_open = NULL;
  g_assert_cmpint (g_atomic_int_get (&n_swapped), ==, 1);
  /* what the view decoded and attended: the old pixels */
  old_map = attend_image (old_image, sentence->text);
  assert_same_map (hs_compare_view_get_map (view, 0), old_map);

  stale = hs_live_attend_get_n_stale (live);
  g_assert_true (hs_compare_view_load_grid_live (view, dataset, instance, sentence, NULL, NULL, live,
                                                 live_models, &error));
  g_assert_no_error (error);
  hs_ui_wait_until (view_idle, view);
  new_image = hs_dataset_load_image (dataset, instance, &error);
  g_assert_no_error (error);
  new_map = attend_image (new_image, sentence->text);
  g_assert_cmpfloat (max_abs_diff (old_map, new_map), >, 1e-3);
  g_test_message ("shown map vs the new image's: %g, vs the old: %g",
                  max_abs_diff (hs_compare_view_get_map (view, 0), new_map),
                  max_abs_diff (hs_compare_view_get_map (view, 0), old_map));
  assert_same_map (hs_compare_view_get_map (view, 0), new_map);
  g_assert_cmpuint (hs_live_attend_get_n_stale (live), >, stale);

  g_object_ref (window);
  gtk_window_destroy (window);
  hs_ui_settle ();
  hs_ui_assert_finalized (window);
  g_clear_pointer (&swap_path, g_free);
  g_clear_pointer (&swap_fresh, g_free);
}

int
main (int argc, char **argv)
{
  g_autofree char *tmp = NULL;
  int status = 0;
  int ret;

  hs_ui_init (&argc, &argv);
  tmp = hs_test_make_tmpdir ();
  dataset_root = g_build_filename (tmp, "demo", NULL);
  {
    const char *cli_argv[] = { hs_test_cli (), "demo", "--count", "3", "--seed", "1", "--size", "256",
                               "--maps", "none", dataset_root, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_true (hs_test_run (cli_argv, &out, &err, &status));
    if (status != 0)
      g_error ("heatscope-cli demo failed (%d): %s", status, err);
  }

  g_test_add_func ("/hs/ui-live/typing", test_typing);
  g_test_add_func ("/hs/ui-live/superseded", test_superseded);
  g_test_add_func ("/hs/ui-live/key-echo", test_key_echo);
  g_test_add_func ("/hs/ui-live/adaptive-debounce", test_adaptive_debounce);
  g_test_add_func ("/hs/ui-live/precomputed-and-live", test_precomputed_and_live);
  g_test_add_func ("/hs/ui-live/saliency", test_saliency);
  /* last: it replaces an image of the demo dataset */
  g_test_add_func ("/hs/ui-live/replaced-image", test_replaced_image);
  g_test_add_func ("/hs/ui-live/compare-replaced-while-decoding", test_compare_replaced_while_decoding);
  ret = g_test_run ();
  g_free (dataset_root);
  return ret;
}
