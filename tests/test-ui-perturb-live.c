/* test-ui-perturb-live.c — with a live model the Perturb tab and the compare
 * view attend the original and the swapped prompt on the image, on a demo
 * dataset that has no precomputed maps at all; the model grid holds a cell
 * per live model, each computed off the main thread and equal to
 * hs_model_attend, and a failing model is an error in its cell */
#include <math.h>
#include <heatscope/hs-text.h>

#include "hs-compare-view.h"
#include "hs-perturb-panel.h"
#include "hs-window.h"
#include "hs-error-bar.h"
#include "hs-ui-fixture.h"

static char *dataset_root;

/* The first instance and sentence with a target and a side to swap. */
static gboolean
find_query (HsDataset *dataset, HsInstance **instance, HsSentence **sentence)
{
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *inst = hs_dataset_get_instance (dataset, i);

      for (guint s = 0; s < inst->sentences->len; s++)
        {
          HsSentence *sent = g_ptr_array_index (inst->sentences, s);
          g_autofree char *swapped = hs_text_swap_sides (sent->text);

          if (sent->targets != NULL && sent->targets[0] != NULL &&
              g_strcmp0 (swapped, sent->text) != 0)
            {
              *instance = inst;
              *sentence = sent;
              return TRUE;
            }
        }
    }
  return FALSE;
}

static double
max_abs_diff (HsAttentionMap *a, HsAttentionMap *b)
{
  const double *va, *vb;
  double d = 0.0;

  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_cmpuint (hs_attention_map_get_width (a), ==, hs_attention_map_get_width (b));
  g_assert_cmpuint (hs_attention_map_get_height (a), ==, hs_attention_map_get_height (b));
  va = hs_attention_map_peek_values (a);
  vb = hs_attention_map_peek_values (b);
  for (guint c = 0; c < hs_attention_map_get_width (a) * hs_attention_map_get_height (a); c++)
    d = MAX (d, fabs (va[c] - vb[c]));
  return d;
}

/* The scores of `prompt` attended directly by the built-in model, against
 * the sentence's own regions: independent of the panel. */
static void
score_direct (HsDataset *dataset, HsInstance *instance, HsSentence *sentence, const char *prompt,
              HsScores *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsModel) model = hs_model_load_builtin ("grounded", &error);
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(HsTarget) target = NULL;
  HsScoreOptions options;
  HsEvalGrid grid;
  guint width, height;

  g_assert_no_error (error);
  image = hs_dataset_load_image (dataset, instance, &error);
  g_assert_no_error (error);
  map = hs_model_attend_image (model, image, prompt, &error);
  g_assert_no_error (error);
  g_assert_true (hs_dataset_get_image_size (dataset, instance, &width, &height, &error));
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, width, height, 0, &error));
  target = hs_target_new (&grid);
  for (guint t = 0; sentence->targets[t] != NULL; t++)
    {
      HsRegion *region = hs_instance_find_region (instance, sentence->targets[t]);
      g_assert_nonnull (region);
      g_assert_true (hs_target_add_region (target, dataset, region, &error));
    }
  hs_score_options_init (&options);
  g_assert_true (hs_score_map (map, target, &options, out, &error));
  g_assert_no_error (error);
}

/* HS_SCREENSHOT_DIR=DIR saves the window as DIR/NAME.png (to look at). */
static void
save_screenshot (GtkWindow *window, const char *name)
{
  if (g_getenv ("HS_SCREENSHOT_DIR") != NULL)
    hs_ui_settle ();
  hs_ui_save_screenshot (GTK_WIDGET (window), name);
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

static void
test_panel_live (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (dataset_root, &error);
  g_autoptr(HsLiveAttend) live = hs_live_attend_new ();
  g_autofree char *swapped = NULL;
  g_autofree char *shown = NULL;
  HsInstance *instance = NULL;
  HsSentence *sentence = NULL;
  HsScores original, perturbed;
  HsComparison comparison;
  GtkWidget *panel;
  GtkWindow *window;

  g_assert_no_error (error);
  g_assert_true (find_query (dataset, &instance, &sentence));
  window = GTK_WINDOW (gtk_window_new ());
  panel = hs_perturb_panel_new ();
  gtk_window_set_child (window, panel);
  gtk_window_present (window);

  /* Precomputed lookup: the demo has no maps, so nothing is compared. */
  hs_perturb_panel_set_input (HS_PERTURB_PANEL (panel), dataset, instance, sentence, "grounded");
  g_assert_false (hs_perturb_panel_get_comparison (HS_PERTURB_PANEL (panel), NULL));
  g_assert_cmpstr (hs_perturb_panel_get_status (HS_PERTURB_PANEL (panel)), !=, "");

  /* Live: both prompts attended off the main thread. */
  hs_perturb_panel_set_live (HS_PERTURB_PANEL (panel), live, "grounded", NULL, NULL);
  hs_perturb_panel_set_input (HS_PERTURB_PANEL (panel), dataset, instance, sentence,
                              "grounded (live)");
  g_assert_true (hs_perturb_panel_get_busy (HS_PERTURB_PANEL (panel)));
  g_assert_false (hs_perturb_panel_get_comparison (HS_PERTURB_PANEL (panel), NULL));
  hs_ui_wait_until (panel_idle, panel);
  g_assert_cmpstr (hs_perturb_panel_get_status (HS_PERTURB_PANEL (panel)), ==, "");
  g_assert_true (hs_perturb_panel_get_comparison (HS_PERTURB_PANEL (panel), &comparison));
  swapped = hs_text_swap_sides (sentence->text);
  shown = g_strdup_printf ("“%s”", swapped);
  g_assert_cmpstr (hs_perturb_panel_get_prompt (HS_PERTURB_PANEL (panel)), ==, shown);

  score_direct (dataset, instance, sentence, sentence->text, &original);
  score_direct (dataset, instance, sentence, swapped, &perturbed);
  g_assert_false (isnan (perturbed.value[HS_METRIC_AUROC]));
  g_assert_cmpfloat_with_epsilon (comparison.original.value[HS_METRIC_AUROC],
                                  original.value[HS_METRIC_AUROC], 1e-12);
  g_assert_cmpfloat_with_epsilon (comparison.perturbed.value[HS_METRIC_AUROC],
                                  perturbed.value[HS_METRIC_AUROC], 1e-12);
  g_assert_cmpfloat_with_epsilon (comparison.delta[HS_METRIC_AUROC],
                                  perturbed.value[HS_METRIC_AUROC] - original.value[HS_METRIC_AUROC],
                                  1e-12);

  /* The same with the image handed in (the window's loaded radiograph). */
  {
    g_autoptr(HsImage) image = hs_dataset_load_image (dataset, instance, &error);
    HsComparison shared;

    g_assert_no_error (error);
    hs_perturb_panel_set_live (HS_PERTURB_PANEL (panel), live, "grounded", image, NULL);
    hs_perturb_panel_set_perturbation (HS_PERTURB_PANEL (panel), HS_PERTURB_SHUFFLE_IN_REPORT);
    hs_perturb_panel_set_perturbation (HS_PERTURB_PANEL (panel), HS_PERTURB_SWAP_LEFT_RIGHT);
    /* Both prompts are in the cache now: no request, the table at once. */
    g_assert_false (hs_perturb_panel_get_busy (HS_PERTURB_PANEL (panel)));
    g_assert_true (hs_perturb_panel_get_comparison (HS_PERTURB_PANEL (panel), &shared));
    g_assert_cmpfloat_with_epsilon (shared.perturbed.value[HS_METRIC_AUROC],
                                    perturbed.value[HS_METRIC_AUROC], 1e-12);
  }

  /* Back to precomputed: the lookup fails again. */
  hs_perturb_panel_set_live (HS_PERTURB_PANEL (panel), NULL, NULL, NULL, NULL);
  hs_perturb_panel_set_input (HS_PERTURB_PANEL (panel), dataset, instance, sentence, "grounded");
  g_assert_false (hs_perturb_panel_get_comparison (HS_PERTURB_PANEL (panel), NULL));

  gtk_window_destroy (window);
  hs_ui_settle ();
}

static void
test_compare_live (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (dataset_root, &error);
  g_autoptr(HsLiveAttend) live = hs_live_attend_new ();
  g_autoptr(HsModel) model = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsAttentionMap) a = NULL;
  g_autoptr(HsAttentionMap) b = NULL;
  g_autofree char *swapped = NULL;
  HsInstance *instance = NULL;
  HsSentence *sentence = NULL;
  GtkWindow *window;
  HsCompareView *view;
  double lo, hi, expect_lo = INFINITY, expect_hi = -INFINITY;

  g_assert_no_error (error);
  g_assert_true (find_query (dataset, &instance, &sentence));
  window = hs_compare_window_new (NULL);
  view = hs_compare_window_get_view (window);
  gtk_window_present (window);

  /* Without the live model the demo has nothing to compare. */
  g_assert_false (hs_compare_view_load (view, dataset, instance, sentence, "grounded (live)", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_assert_true (hs_compare_view_load_live (view, dataset, instance, sentence, NULL, NULL, live,
                                            "grounded", &error));
  g_assert_no_error (error);
  g_assert_cmpint (hs_compare_view_get_mode (view), ==, HS_COMPARE_MODE_PAIR);
  hs_ui_wait_until (view_idle, view);

  /* The shared range is that of the two maps attended directly. */
  model = hs_model_load_builtin ("grounded", &error);
  g_assert_no_error (error);
  image = hs_dataset_load_image (dataset, instance, &error);
  g_assert_no_error (error);
  swapped = hs_text_swap_sides (sentence->text);
  a = hs_model_attend_image (model, image, sentence->text, &error);
  g_assert_no_error (error);
  b = hs_model_attend_image (model, image, swapped, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_width (a), ==, hs_attention_map_get_width (b));
  g_assert_cmpuint (hs_attention_map_get_height (a), ==, hs_attention_map_get_height (b));
  for (guint i = 0; i < hs_attention_map_get_width (a) * hs_attention_map_get_height (a); i++)
    {
      double va = hs_attention_map_peek_values (a)[i], vb = hs_attention_map_peek_values (b)[i];

      expect_lo = MIN (expect_lo, MIN (va, vb));
      expect_hi = MAX (expect_hi, MAX (va, vb));
    }
  hs_compare_view_get_shared_range (view, &lo, &hi);
  g_assert_cmpfloat_with_epsilon (lo, expect_lo, 1e-6);
  g_assert_cmpfloat_with_epsilon (hi, expect_hi, 1e-6);
  g_assert_cmpfloat (max_abs_diff (hs_compare_view_get_map (view, 0), a), <=, 1e-6);
  g_assert_cmpfloat (max_abs_diff (hs_compare_view_get_map (view, 1), b), <=, 1e-6);

  gtk_window_destroy (window);
  hs_ui_settle ();
}

/* The map of `prompt` by `name`, encoded and attended here, not by the view. */
static HsAttentionMap *
attend_directly (HsDataset *dataset, HsInstance *instance, const char *name, const char *prompt)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsModel) model = hs_model_load_builtin (name, &error);
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImageFeatures) features = NULL;
  HsAttentionMap *map;

  g_assert_no_error (error);
  image = hs_dataset_load_image (dataset, instance, &error);
  g_assert_no_error (error);
  features = hs_model_encode_image (model, image, NULL, &error);
  g_assert_no_error (error);
  map = hs_model_attend (model, features, prompt, &error);
  g_assert_no_error (error);
  return map;
}

/* The grid of models with the three built-in live models and one that
 * cannot load: each live cell waits (spinner), then holds exactly the map
 * hs_model_attend gives; the broken one shows its error in its cell. */
static void
test_grid_live (void)
{
  static const char * const live_models[] = { "grounded", "blind", "noattn", "no-such-model", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (dataset_root, &error);
  g_autoptr(HsLiveAttend) live = hs_live_attend_new ();
  HsInstance *instance = NULL;
  HsSentence *sentence = NULL, *other = NULL;
  GtkWindow *window;
  HsCompareView *view;
  double lo, hi, expect_lo = INFINITY, expect_hi = -INFINITY;

  g_assert_no_error (error);
  g_assert_true (find_query (dataset, &instance, &sentence));
  for (guint s = 0; s < instance->sentences->len && other == NULL; s++)
    if (g_ptr_array_index (instance->sentences, s) != sentence &&
        g_strcmp0 (((HsSentence *) g_ptr_array_index (instance->sentences, s))->text, sentence->text) != 0)
      other = g_ptr_array_index (instance->sentences, s);
  g_assert_nonnull (other);

  window = hs_compare_window_new (NULL);
  view = hs_compare_window_get_view (window);
  gtk_window_set_default_size (window, 1200, 760);
  gtk_window_present (window);

  /* First a grid for another sentence, superseded at once: its late maps
   * must not land in the new grid's cells. */
  g_assert_true (hs_compare_view_load_grid_live (view, dataset, instance, other, NULL, NULL, live,
                                                 live_models, &error));
  g_assert_no_error (error);
  g_assert_true (hs_compare_view_load_grid_live (view, dataset, instance, sentence, NULL, NULL, live,
                                                 live_models, &error));
  g_assert_no_error (error);
  g_assert_cmpint (hs_compare_view_get_mode (view), ==, HS_COMPARE_MODE_GRID);
  g_assert_cmpuint (hs_compare_view_get_n_canvases (view), ==, 4);
  g_assert_true (hs_compare_view_get_busy (view));
  for (guint i = 0; i < 4; i++)
    {
      g_assert_null (hs_compare_view_get_map (view, i));   /* pending */
      g_assert_null (hs_compare_view_get_error (view, i));
    }
  save_screenshot (window, "compare-grid-live-pending");
  hs_ui_wait_until (view_idle, view);
  hs_ui_settle ();
  save_screenshot (window, "compare-grid-live");

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(HsAttentionMap) expected = attend_directly (dataset, instance, live_models[i], sentence->text);
      g_autofree char *title = g_strdup_printf ("%s (live)", live_models[i]);
      HsAttentionMap *shown = hs_compare_view_get_map (view, i);
      const double *v = hs_attention_map_peek_values (expected);

      g_assert_cmpstr (hs_compare_view_get_title (view, i), ==, title);
      g_assert_null (hs_compare_view_get_error (view, i));
      g_assert_nonnull (shown);
      g_assert_cmpuint (hs_attention_map_get_n_tokens (shown), ==, hs_attention_map_get_n_tokens (expected));
      g_assert_cmpfloat (max_abs_diff (shown, expected), <=, 1e-6);
      for (guint c = 0; c < hs_attention_map_get_width (expected) * hs_attention_map_get_height (expected); c++)
        {
          expect_lo = MIN (expect_lo, v[c]);
          expect_hi = MAX (expect_hi, v[c]);
        }
      g_assert_nonnull (hs_compare_view_get_readout (view, i));
    }
  g_assert_null (hs_compare_view_get_map (view, 3));
  g_assert_nonnull (hs_compare_view_get_error (view, 3));
  g_test_message ("failing cell: %s", hs_compare_view_get_error (view, 3));
  g_assert_nonnull (strstr (hs_compare_view_get_error (view, 3), "no-such-model"));

  /* One shared scale over the three live maps. */
  hs_compare_view_get_shared_range (view, &lo, &hi);
  g_assert_cmpfloat_with_epsilon (lo, expect_lo, 1e-6);
  g_assert_cmpfloat_with_epsilon (hi, expect_hi, 1e-6);

  /* Loaded again: every map comes from the cache, nothing waits. */
  g_assert_true (hs_compare_view_load_grid_live (view, dataset, instance, sentence, NULL, NULL, live,
                                                 live_models, &error));
  g_assert_no_error (error);
  g_assert_nonnull (hs_compare_view_get_map (view, 0));
  g_assert_nonnull (hs_compare_view_get_map (view, 2));

  g_object_ref (view);
  gtk_window_destroy (window);
  hs_ui_settle ();
  hs_ui_assert_finalized (view);
}

static gboolean
window_idle (gpointer data)
{
  return !hs_window_get_loading (data) && !hs_window_get_live_busy (data);
}

/* win.compare with "grounded (live)" chosen opens a pair of live maps
 * instead of reporting that the label has no precomputed map. */
static void
test_window_compare_live (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (dataset_root);
  g_autoptr(GListModel) toplevels = NULL;
  HsWindow *window = hs_window_new (NULL);
  GtkWindow *compare = NULL;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  hs_window_open (window, file);
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_select_model (window, "grounded (live)"));
  hs_ui_wait_until (window_idle, window);
  g_assert_cmpstr (hs_window_get_live_model (window), ==, "grounded");
  {
    /* The window's Perturb tab attends live too. */
    GtkWidget *panel = hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_PERTURB_PANEL);

    g_assert_nonnull (panel);
    gtk_stack_set_visible_child_name (g_object_get_data (G_OBJECT (window), "hs-side-stack"), "perturb");
    hs_ui_wait_until (panel_idle, panel);
    g_assert_cmpstr (hs_perturb_panel_get_status (HS_PERTURB_PANEL (panel)), ==, "");
    g_assert_true (hs_perturb_panel_get_comparison (HS_PERTURB_PANEL (panel), NULL));
    save_screenshot (GTK_WINDOW (window), "window-perturb-live");
  }
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (window), "compare"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "compare", g_variant_new_string ("pair"));
  hs_ui_settle ();
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);
  toplevels = g_object_ref (gtk_window_get_toplevels ());
  for (guint i = 0; i < g_list_model_get_n_items (toplevels) && compare == NULL; i++)
    {
      g_autoptr(GtkWindow) item = g_list_model_get_item (toplevels, i);
      if (hs_compare_window_get_view (item) != NULL)
        compare = item;
    }
  g_assert_nonnull (compare);
  g_assert_cmpint (hs_compare_view_get_mode (hs_compare_window_get_view (compare)), ==,
                   HS_COMPARE_MODE_PAIR);
  g_assert_nonnull (strstr (hs_compare_view_get_title (hs_compare_window_get_view (compare), 0),
                            "grounded"));
  hs_ui_wait_until (view_idle, hs_compare_window_get_view (compare));
  g_assert_nonnull (hs_compare_view_get_map (hs_compare_window_get_view (compare), 2));   /* A − B */
  gtk_window_destroy (compare);
  hs_ui_settle ();

  /* The grid from the window: the demo has no precomputed maps, so one
   * cell per live model, all computed. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "compare", g_variant_new_string ("grid"));
  hs_ui_settle ();
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);
  compare = NULL;
  g_clear_object (&toplevels);
  toplevels = g_object_ref (gtk_window_get_toplevels ());
  for (guint i = 0; i < g_list_model_get_n_items (toplevels) && compare == NULL; i++)
    {
      g_autoptr(GtkWindow) item = g_list_model_get_item (toplevels, i);
      if (hs_compare_window_get_view (item) != NULL)
        compare = item;
    }
  g_assert_nonnull (compare);
  {
    HsCompareView *view = hs_compare_window_get_view (compare);
    const char * const *names = hs_model_list_builtin ();

    g_assert_cmpint (hs_compare_view_get_mode (view), ==, HS_COMPARE_MODE_GRID);
    g_assert_cmpuint (hs_compare_view_get_n_canvases (view), ==, g_strv_length ((char **) names));
    hs_ui_wait_until (view_idle, view);
    for (guint i = 0; names[i] != NULL; i++)
      {
        g_autofree char *title = g_strdup_printf ("%s (live)", names[i]);
        g_assert_cmpstr (hs_compare_view_get_title (view, i), ==, title);
        g_assert_nonnull (hs_compare_view_get_map (view, i));
      }
  }
  gtk_window_destroy (compare);
  gtk_window_destroy (GTK_WINDOW (window));
  hs_ui_settle ();
}

int
main (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *tmp = NULL;
  int status = 0;
  int result;

  hs_ui_test_init (&argc, &argv);
  tmp = hs_test_make_tmpdir ();
  dataset_root = g_build_filename (tmp, "demo", NULL);
  if (hs_ui_have_display)
  {
    const char *args[] = { hs_test_cli (), "demo", "--count", "3", "--seed", "1", "--size", "256",
                           "--maps", "none", dataset_root, NULL };
    hs_test_run (args, &out, &err, &status);
    if (status != 0)
      g_error ("heatscope-cli demo failed: %s", err);
  }
  hs_ui_test_add_func ("/hs/ui-perturb-live/panel", test_panel_live);
  hs_ui_test_add_func ("/hs/ui-perturb-live/compare", test_compare_live);
  hs_ui_test_add_func ("/hs/ui-perturb-live/grid-live", test_grid_live);
  hs_ui_test_add_func ("/hs/ui-perturb-live/window-compare", test_window_compare_live);
  result = g_test_run ();
  g_free (dataset_root);
  return result;
}
