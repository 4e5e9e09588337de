/* test-ui-coattn.c — co-attention in the app: a map's tag attention as a
 * bar strip in the prompt panel (and none for a map without tags), both
 * sides' strips in the compare view, golden images of both */
#include "hs-compare-view.h"
#include "hs-metrics-panel.h"
#include "hs-prompt-panel.h"
#include "hs-tag-strip.h"
#include "hs-ui-fixture.h"
#include "hs-view-state.h"

static char *dataset_root;

/* hand-00's sentence map s0 of "grounded" and the map of its swapped
 * prompt, as a report generator would give them: the same tags in the
 * model's order (the largest not first, so the order on screen is
 * visibly the manifest's), the weights summing to 1; the swapped prompt's
 * weights moved a little; and s1's per-token map of "tokens".  Nothing
 * else has tags. */
static const HsTagWeight tags_s0[] = {
  { "cardiomegaly", 0.08 }, { "calcified granuloma", 0.41 }, { "nodule", 0.36 },
  { "opacity in the right upper lung zone", 0.15 },
};
static const HsTagWeight tags_swapped[] = {
  { "cardiomegaly", 0.10 }, { "calcified granuloma", 0.30 }, { "nodule", 0.45 },
  { "opacity in the right upper lung zone", 0.15 },
};
/* the per-token map of s1 ("tokens"): the strip under the token strip */
static const HsTagWeight tags_tokens[] = {
  { "normal", 0.62 }, { "effusion", 0.05 }, { "atelectasis", 0.33 },
};
static const char * const weights_s0[] = { "0.080", "0.410", "0.360", "0.150" };
static const char * const weights_swapped[] = { "0.100", "0.300", "0.450", "0.150" };
static const char * const weights_tokens[] = { "0.620", "0.050", "0.330" };

/* The hand-made dataset with the tags above, written by the library's
 * manifest writer and read back as the app reads it. */
static char *
make_dataset (void)
{
  char *root = hs_ui_make_dataset ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (root, &error);
  HsInstance *instance;
  HsMapRef *ref;

  g_assert_no_error (error);
  instance = hs_dataset_find_instance (dataset, "hand-00");
  ref = hs_instance_find_map (instance, "grounded", "s0");
  g_assert_nonnull (ref);
  hs_map_ref_set_tags (ref, tags_s0, G_N_ELEMENTS (tags_s0));
  ref = hs_instance_find_map_by_prompt (instance, "grounded", HS_UI_S0_SWAPPED);
  g_assert_nonnull (ref);
  hs_map_ref_set_tags (ref, tags_swapped, G_N_ELEMENTS (tags_swapped));
  ref = hs_instance_find_map (instance, "tokens", "s1");
  g_assert_nonnull (ref);
  hs_map_ref_set_tags (ref, tags_tokens, G_N_ELEMENTS (tags_tokens));
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  return root;
}

static HsDataset *
load_dataset (void)
{
  g_autoptr(GError) error = NULL;
  HsDataset *dataset = hs_dataset_load (dataset_root, &error);

  g_assert_no_error (error);
  return dataset;
}

static void
assert_strip (HsTagStrip *strip, const HsTagWeight *tags, const char * const *weights, guint n)
{
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (strip)));
  g_assert_cmpuint (hs_tag_strip_get_n_tags (strip), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpstr (hs_tag_strip_get_tag (strip, i), ==, tags[i].tag);
      g_assert_cmpstr (hs_tag_strip_get_weight_text (strip, i), ==, weights[i]);
    }
}

/* HS_SCREENSHOT_DIR=DIR keeps a copy of the exported file `path` as
 * DIR/NAME (to look at). */
static void
keep_export (const char *path, const char *name)
{
  const char *dir = g_getenv ("HS_SCREENSHOT_DIR");
  g_autofree char *target = NULL;
  g_autofree char *bytes = NULL;
  gsize n = 0;

  if (dir == NULL)
    return;
  target = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_get_contents (path, &bytes, &n, NULL));
  g_assert_true (g_file_set_contents (target, bytes, (gssize) n, NULL));
}

/* The prompt panel alone, as test-ui-prompt shows it: the strip under the
 * tokens with the manifest's tags and weights, then a map without tags
 * (the same instance's s1) and no map at all hide it. */
static void
test_prompt_strip (void)
{
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance;
  GtkWidget *window;
  HsPromptPanel *panel;
  HsTagStrip *strip;

  if (hs_ui_skip_without_display ())
    return;
  dataset = load_dataset ();
  instance = hs_dataset_find_instance (dataset, "hand-00");
  window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 380, 600);
  panel = HS_PROMPT_PANEL (hs_prompt_panel_new ());
  gtk_widget_set_margin_start (GTK_WIDGET (panel), 10);
  gtk_widget_set_margin_end (GTK_WIDGET (panel), 10);
  gtk_widget_set_margin_top (GTK_WIDGET (panel), 10);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (panel));
  gtk_window_present (GTK_WINDOW (window));
  strip = HS_TAG_STRIP (hs_ui_find_widget (GTK_WIDGET (panel), HS_TYPE_TAG_STRIP));
  g_assert_nonnull (strip);

  hs_prompt_panel_set_model (panel, "grounded");
  hs_prompt_panel_set_instance (panel, dataset, instance);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (strip)));   /* no map loaded yet */
  map = hs_dataset_load_map (dataset, hs_prompt_panel_get_map_ref (panel), &error);
  g_assert_no_error (error);
  hs_prompt_panel_set_map (panel, map);
  assert_strip (strip, tags_s0, weights_s0, G_N_ELEMENTS (tags_s0));

  /* The per-token map: the tag strip right under the token strip. */
  hs_prompt_panel_set_model (panel, "tokens");
  g_assert_true (hs_prompt_panel_select_sentence (panel, "s1"));
  g_clear_pointer (&map, hs_attention_map_unref);
  map = hs_dataset_load_map (dataset, hs_prompt_panel_get_map_ref (panel), &error);
  g_assert_no_error (error);
  hs_prompt_panel_set_map (panel, map);
  g_assert_cmpuint (hs_prompt_panel_get_n_tokens (panel), ==, 5);
  assert_strip (strip, tags_tokens, weights_tokens, G_N_ELEMENTS (tags_tokens));
  hs_ui_settle ();
  hs_ui_save_screenshot (window, "coattn-prompt-strip");
  {
    g_autoptr(GdkTexture) texture = hs_ui_render (window);
    hs_ui_assert_golden (texture, "ui-coattn-prompt-strip", 0.02);
  }

  hs_prompt_panel_set_model (panel, "grounded");
  g_assert_true (hs_prompt_panel_select_sentence (panel, "s0"));
  /* The swapped prompt: its own map and tags. */
  hs_prompt_panel_swap_sides (panel);
  g_clear_pointer (&map, hs_attention_map_unref);
  map = hs_dataset_load_map (dataset, hs_prompt_panel_get_map_ref (panel), &error);
  g_assert_no_error (error);
  hs_prompt_panel_set_map (panel, map);
  assert_strip (strip, tags_swapped, weights_swapped, G_N_ELEMENTS (tags_swapped));

  hs_prompt_panel_set_map (panel, NULL);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (strip)));
  g_assert_cmpuint (hs_tag_strip_get_n_tags (strip), ==, 0);

  g_object_ref (panel);
  gtk_window_destroy (GTK_WINDOW (window));
  hs_ui_settle ();
  hs_ui_assert_finalized (panel);
}

/* The main window: opening the dataset shows s0's tags in its prompt
 * panel; the sentence s1, whose map has no tag attention, shows no strip
 * and no row of the last map's tags; back to s0 shows them again. */
static void
test_window_no_tags (void)
{
  HsWindow *window;
  HsPromptPanel *panel;
  HsTagStrip *strip;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, dataset_root);
  panel = hs_window_get_prompt_panel (window);
  strip = HS_TAG_STRIP (hs_ui_find_widget (GTK_WIDGET (panel), HS_TYPE_TAG_STRIP));
  g_assert_true (hs_window_select_instance (window, "hand-00"));
  g_assert_true (hs_window_select_model (window, "grounded"));
  g_assert_true (hs_prompt_panel_select_sentence (panel, "s0"));
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  assert_strip (strip, tags_s0, weights_s0, G_N_ELEMENTS (tags_s0));

  g_assert_true (hs_prompt_panel_select_sentence (panel, "s1"));
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_nonnull (hs_prompt_panel_get_map_ref (panel));     /* a map, without tags */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (strip)));
  g_assert_cmpuint (hs_tag_strip_get_n_tags (strip), ==, 0);

  g_assert_true (hs_prompt_panel_select_sentence (panel, "s0"));
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  assert_strip (strip, tags_s0, weights_s0, G_N_ELEMENTS (tags_s0));
  hs_ui_destroy_window (window);
}

/* The compare view of s0 and its swapped prompt: A's and B's strips side
 * by side with their own tags (B's nodule up, granuloma down), none under
 * A − B; blink shows B's tags under A with B's map; the Tags toggle hides
 * and shows them; a pair without tags (s1 against the next model) leaves
 * the toggle without effect. */
static void
test_compare (void)
{
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance;
  GtkWindow *window;
  HsCompareView *view;

  if (hs_ui_skip_without_display ())
    return;
  dataset = load_dataset ();
  instance = hs_dataset_find_instance (dataset, "hand-00");
  window = hs_compare_window_new (NULL);
  view = g_object_ref (hs_compare_window_get_view (window));
  gtk_window_set_default_size (window, 1200, 620);
  gtk_window_present (window);
  hs_ui_settle ();

  g_assert_true (hs_compare_view_load (view, dataset, instance, hs_instance_find_sentence (instance, "s0"),
                                       "grounded", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (hs_compare_view_get_badge (view, 1), ==, "followed the words");
  assert_strip (hs_compare_view_get_tag_strip (view, 0), tags_s0, weights_s0, G_N_ELEMENTS (tags_s0));
  assert_strip (hs_compare_view_get_tag_strip (view, 1), tags_swapped, weights_swapped,
                G_N_ELEMENTS (tags_swapped));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (hs_compare_view_get_tag_strip (view, 2))));
  /* The toggle (as its button and T do) hides the strips, keeping the tags. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "compare.show-tags", NULL));
  {
    gboolean shown = TRUE;

    g_object_get (view, "show-tags", &shown, NULL);
    g_assert_false (shown);
  }
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (hs_compare_view_get_tag_strip (view, 0))));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (hs_compare_view_get_tag_strip (view, 1))));
  hs_compare_view_set_show_tags (view, TRUE);
  assert_strip (hs_compare_view_get_tag_strip (view, 1), tags_swapped, weights_swapped,
                G_N_ELEMENTS (tags_swapped));
  hs_ui_settle ();
  hs_ui_save_screenshot (GTK_WIDGET (window), "coattn-compare");
  {
    /* The canvases are ui-canvas's; here the cells, read-outs and strips. */
    GtkWidget *masked[] = { GTK_WIDGET (hs_compare_view_get_canvas (view, 0)),
                            GTK_WIDGET (hs_compare_view_get_canvas (view, 1)),
                            GTK_WIDGET (hs_compare_view_get_canvas (view, 2)), NULL };
    g_autoptr(GdkTexture) full = hs_ui_render (GTK_WIDGET (view));
    g_autoptr(GdkTexture) texture = hs_ui_mask_widgets (full, GTK_WIDGET (view), masked);

    hs_ui_assert_golden (texture, "ui-coattn-compare", 0.02);
  }

  /* Blink: B's map in A's canvas, B's tags under it; back again. */
  hs_compare_view_set_blink (view, TRUE);
  assert_strip (hs_compare_view_get_tag_strip (view, 0), tags_swapped, weights_swapped,
                G_N_ELEMENTS (tags_swapped));
  hs_compare_view_set_blink (view, FALSE);
  assert_strip (hs_compare_view_get_tag_strip (view, 0), tags_s0, weights_s0, G_N_ELEMENTS (tags_s0));

  /* s1 has no swap: "grounded" against "tokens", whose s1 map has tags
   * and whose A (grounded) has none. */
  g_assert_true (hs_compare_view_load (view, dataset, instance, hs_instance_find_sentence (instance, "s1"),
                                       "grounded", &error));
  g_assert_no_error (error);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (hs_compare_view_get_tag_strip (view, 0))));
  assert_strip (hs_compare_view_get_tag_strip (view, 1), tags_tokens, weights_tokens,
                G_N_ELEMENTS (tags_tokens));

  /* The grid: each model's own tags ("blind" has none). */
  g_assert_true (hs_compare_view_load_grid (view, dataset, instance, hs_instance_find_sentence (instance, "s0"),
                                            &error));
  g_assert_no_error (error);
  for (guint i = 0; i < hs_compare_view_get_n_canvases (view); i++)
    {
      HsTagStrip *strip = hs_compare_view_get_tag_strip (view, i);

      if (g_str_equal (hs_compare_view_get_title (view, i), "grounded"))
        assert_strip (strip, tags_s0, weights_s0, G_N_ELEMENTS (tags_s0));
      else
        g_assert_false (gtk_widget_get_visible (GTK_WIDGET (strip)));
    }

  gtk_window_destroy (window);
  hs_ui_settle ();
  hs_ui_assert_finalized (view);
}

static gboolean
metrics_idle (gpointer panel)
{
  return !hs_metrics_panel_get_busy (panel);
}

/* −Σ p·ln p of the listed weights, here by hand (independently of the
 * library), and / ln n. */
static double
entropy_by_hand (const HsTagWeight *tags, guint n, double *norm)
{
  double sum = 0, h = 0;

  for (guint i = 0; i < n; i++)
    sum += tags[i].weight;
  for (guint i = 0; i < n; i++)
    if (tags[i].weight > 0)
      h -= tags[i].weight / sum * log (tags[i].weight / sum);
  *norm = h / log (n);
  return h;
}

/* The main window's Metrics tab: the tag_entropy of the map on screen is
 * the core's hs_tag_attention_entropy of the manifest's tags (which equals
 * the hand computation), as the table prints numbers; the swapped prompt's
 * map shows its own; a map without tags shows no tag section. */
static void
test_metrics (void)
{
  HsWindow *window;
  HsPromptPanel *panel;
  HsMetricsPanel *metrics;
  const struct { const char *sentence; gboolean swap; const HsTagWeight *tags; guint n; } cases[] = {
    { "s0", FALSE, tags_s0, G_N_ELEMENTS (tags_s0) },
    { "s0", TRUE, tags_swapped, G_N_ELEMENTS (tags_swapped) },
  };

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, dataset_root);
  panel = hs_window_get_prompt_panel (window);
  g_assert_true (hs_window_select_instance (window, "hand-00"));
  g_assert_true (hs_window_select_model (window, "grounded"));
  gtk_stack_set_visible_child_name (g_object_get_data (G_OBJECT (window), "hs-side-stack"), "metrics");
  metrics = HS_METRICS_PANEL (hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_METRICS_PANEL));

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      double norm = NAN, hand_norm, entropy, hand;
      const char *text = NULL;
      g_autofree char *expected = NULL, *expected_norm = NULL;

      g_assert_true (hs_prompt_panel_select_sentence (panel, cases[c].sentence));
      if (cases[c].swap)
        hs_prompt_panel_swap_sides (panel);
      hs_ui_wait_until (hs_ui_window_not_loading, window);
      hs_ui_settle ();
      hs_ui_wait_until (metrics_idle, metrics);
      entropy = hs_tag_attention_entropy (cases[c].tags, cases[c].n, &norm, NULL);
      hand = entropy_by_hand (cases[c].tags, cases[c].n, &hand_norm);
      g_assert_cmpfloat_with_epsilon (entropy, hand, 1e-12);
      g_assert_cmpfloat_with_epsilon (norm, hand_norm, 1e-12);
      expected = g_strdup_printf ("%.3f", entropy);
      expected_norm = g_strdup_printf ("%.3f", norm);
      g_assert_true (hs_metrics_panel_get_cell (metrics, "tag_entropy", "model", &text, NULL));
      g_assert_cmpstr (text, ==, expected);
      g_assert_true (hs_metrics_panel_get_cell (metrics, "tag_entropy_norm", "model", &text, NULL));
      g_assert_cmpstr (text, ==, expected_norm);
    }
  hs_ui_save_screenshot (GTK_WIDGET (metrics), "coattn-metrics");

  g_assert_true (hs_prompt_panel_select_sentence (panel, "s1"));
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_ui_settle ();
  g_assert_false (hs_metrics_panel_get_cell (metrics, "tag_entropy", "model", NULL, NULL));
  g_assert_false (hs_metrics_panel_get_cell (metrics, "tag_entropy_norm", "model", NULL, NULL));
  hs_ui_destroy_window (window);
}

/* win.export-figure with a map that has tags: byte for byte what
 * `heatscope-cli figure` writes for the same panel with "tags": true (the
 * composer's tag strip), in SVG and PNG; the SVG names the tags and their
 * weights.  A map without tags exports as the CLI without the option. */
static void
test_export_figure (void)
{
  HsWindow *window;
  HsPromptPanel *panel;
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GError) error = NULL;
  char opacity[G_ASCII_DTOSTR_BUF_SIZE], threshold[G_ASCII_DTOSTR_BUF_SIZE];
  const struct { const char *sentence; const char *tags; } cases[] = {
    { "s0", ", \"tags\": true" }, { "s1", "" },
  };

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  settings = hs_settings_new ();
  g_settings_set_string (settings, "figure-width", "89mm");
  g_settings_set_double (settings, "figure-dpi", 100);
  g_settings_set_double (settings, "figure-font-size", 6);
  window = hs_ui_new_window ();
  hs_ui_open_path (window, dataset_root);
  panel = hs_window_get_prompt_panel (window);
  g_assert_true (hs_window_select_instance (window, "hand-00"));
  g_assert_true (hs_window_select_model (window, "grounded"));
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *spec_name = g_strdup_printf ("fig-%s.json", cases[c].sentence);
      g_autofree char *spec = g_build_filename (tmp, spec_name, NULL);
      g_autofree char *json = NULL;

      g_assert_true (hs_prompt_panel_select_sentence (panel, cases[c].sentence));
      hs_ui_wait_until (hs_ui_window_not_loading, window);
      hs_ui_settle ();
      json = g_strdup_printf ("{\"width\": \"89mm\", \"dpi\": 100, \"font_size\": 6, "
                              "\"colormap\": \"%s\", \"opacity\": %s, \"threshold\": %s%s, "
                              "\"panels\": [{\"instance\": \"hand-00\", \"query\": \"%s\", "
                              "\"model\": \"grounded\"}]}",
                              HS_VIEW_STATE_DEFAULT_COLORMAP,
                              g_ascii_dtostr (opacity, sizeof opacity, HS_VIEW_STATE_DEFAULT_OPACITY),
                              g_ascii_dtostr (threshold, sizeof threshold, HS_VIEW_STATE_DEFAULT_THRESHOLD),
                              cases[c].tags, cases[c].sentence);
      g_assert_true (g_file_set_contents (spec, json, -1, NULL));
      for (const char *const *ext = (const char *const[]) { "svg", "png", NULL }; *ext; ext++)
        {
          g_autofree char *app_name = g_strdup_printf ("app-%s.%s", cases[c].sentence, *ext);
          g_autofree char *cli_name = g_strdup_printf ("cli-%s.%s", cases[c].sentence, *ext);
          g_autofree char *app = g_build_filename (tmp, app_name, NULL);
          g_autofree char *cli = g_build_filename (tmp, cli_name, NULL);
          g_autofree char *a = NULL;

          g_assert_true (hs_window_export_figure (window, app, settings, &error));
          g_assert_no_error (error);
          a = hs_ui_assert_same_as_cli_figure (dataset_root, spec, app, cli, cases[c].sentence);
          keep_export (app, app_name);
          if (g_str_equal (*ext, "svg"))
            {
              gboolean tagged = *cases[c].tags != '\0';

              g_assert_true ((strstr (a, "calcified granuloma") != NULL) == tagged);
              g_assert_true ((strstr (a, "0.410") != NULL) == tagged);
            }
        }
    }
  hs_ui_destroy_window (window);
  hs_ui_reset_settings ();
}

/* The compare view's export draws the strips it shows: A's and B's tags,
 * none with Tags off. */
static void
test_compare_export (void)
{
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = hs_test_make_tmpdir ();
  HsInstance *instance;
  GtkWindow *window;
  HsCompareView *view;

  if (hs_ui_skip_without_display ())
    return;
  dataset = load_dataset ();
  instance = hs_dataset_find_instance (dataset, "hand-00");
  window = hs_compare_window_new (NULL);
  view = g_object_ref (hs_compare_window_get_view (window));
  gtk_window_present (window);
  g_assert_true (hs_compare_view_load (view, dataset, instance, hs_instance_find_sentence (instance, "s0"),
                                       "grounded", &error));
  g_assert_no_error (error);
  hs_ui_settle ();
  for (guint shown = 0; shown < 2; shown++)
    {
      g_autofree char *name = g_strdup_printf ("compare-%u.svg", shown);
      g_autofree char *path = g_build_filename (tmp, name, NULL);
      g_autofree char *svg = NULL;

      hs_compare_view_set_show_tags (view, !shown);
      g_assert_true (hs_compare_view_export (view, path, NULL, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
      /* A's 0.410 and B's 0.450, each only in its own strip */
      g_assert_true ((strstr (svg, "0.410") != NULL) == !shown);
      g_assert_true ((strstr (svg, "0.450") != NULL) == !shown);
      g_assert_true ((strstr (svg, "calcified granuloma") != NULL) == !shown);
      if (!shown)
        {
          g_autofree char *png = g_build_filename (tmp, "compare.png", NULL);

          g_assert_true (hs_compare_view_export (view, png, NULL, &error));
          g_assert_no_error (error);
          keep_export (png, "coattn-compare-export.png");
        }
    }
  gtk_window_destroy (window);
  hs_ui_settle ();
  hs_ui_assert_finalized (view);
}

int
main (int argc, char **argv)
{
  int status;

  hs_ui_init (&argc, &argv);
  dataset_root = make_dataset ();
  g_test_add_func ("/hs/ui/coattn/prompt-strip", test_prompt_strip);
  g_test_add_func ("/hs/ui/coattn/window-no-tags", test_window_no_tags);
  g_test_add_func ("/hs/ui/coattn/compare", test_compare);
  g_test_add_func ("/hs/ui/coattn/metrics", test_metrics);
  g_test_add_func ("/hs/ui/coattn/export-figure", test_export_figure);
  g_test_add_func ("/hs/ui/coattn/compare-export", test_compare_export);
  status = g_test_run ();
  g_free (dataset_root);
  return status;
}
