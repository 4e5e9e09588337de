/* test-ui-compare.c — HsCompareView in a plain window: original vs swapped
 * prompt, shared scale, A − B on a symmetric diverging scale, linked zoom and
 * pan, blink, the grid of models, laterality and wrong_side, golden image */
#include "hs-compare-view.h"
#include "hs-wrong-side.h"
#include "hs-perturb-panel.h"
#include "hs-instance-browser.h"
#include "hs-ui-fixture.h"
#include "hs-color-bar.h"

static char *dataset_root;

typedef struct {
  GtkWindow     *window;
  HsCompareView *view;
  HsDataset     *dataset;
  HsInstance    *instance;
} CompareTest;

static void
setup (CompareTest *t)
{
  g_autoptr(GError) error = NULL;

  t->dataset = hs_dataset_load (dataset_root, &error);
  g_assert_no_error (error);
  t->instance = hs_dataset_find_instance (t->dataset, "hand-00");
  g_assert_nonnull (t->instance);
  t->window = hs_compare_window_new (NULL);
  t->view = g_object_ref (hs_compare_window_get_view (t->window));
  gtk_window_set_default_size (t->window, 1200, 460);
  gtk_window_present (t->window);
  hs_ui_settle ();
}

static void
teardown (CompareTest *t)
{
  gtk_window_destroy (t->window);
  hs_ui_settle ();
  hs_ui_assert_finalized (t->view);
  hs_dataset_unref (t->dataset);
}

/* The fixture's maps, computed here from the same Gaussian parameters
 * (independently of the view): s0 blob at column 5, swapped at 11. */
static void
expected_ranges (double *lo, double *hi, double *m)
{
  double a[HS_UI_GRID * HS_UI_GRID], b[HS_UI_GRID * HS_UI_GRID];

  hs_ui_gauss (a, 5, 8, 2.5);
  hs_ui_gauss (b, 11, 8, 2.5);
  *lo = INFINITY;
  *hi = -INFINITY;
  *m = 0;
  for (guint i = 0; i < HS_UI_GRID * HS_UI_GRID; i++)
    {
      /* The .npy files hold float32. */
      double fa = (float) a[i], fb = (float) b[i];
      *lo = MIN (*lo, MIN (fa, fb));
      *hi = MAX (*hi, MAX (fa, fb));
      *m = MAX (*m, fabs (fa - fb));
    }
}

/* Curly double quotes in `text` never nest: every “ is closed by a ” before
 * the next “ opens (a caption quotes each prompt once). */
static void
assert_quotes_flat (const char *text)
{
  int depth = 0, pairs = 0;

  for (const char *c = text; *c; c = g_utf8_next_char (c))
    {
      gunichar u = g_utf8_get_char (c);

      g_assert_cmpuint (u, !=, '"');
      if (u == 0x201C)
        {
          if (depth != 0)
            g_error ("nested quotes in \"%s\"", text);
          depth = 1;
        }
      else if (u == 0x201D)
        {
          g_assert_cmpint (depth, ==, 1);
          depth = 0;
          pairs++;
        }
    }
  g_assert_cmpint (depth, ==, 0);
  g_assert_cmpint (pairs, >, 0);
}

static void
test_pair_swapped (void)
{
  CompareTest t;
  g_autoptr(GError) error = NULL;
  HsSentence *s0;
  double lo, hi, m, vlo, vhi;
  HsOverlayOptions options;
  HsCanvasTransform ta, tb, tc;

  if (hs_ui_skip_without_display ())
    return;
  setup (&t);
  s0 = hs_instance_find_sentence (t.instance, "s0");
  g_assert_true (hs_compare_view_load (t.view, t.dataset, t.instance, s0, "grounded", &error));
  g_assert_no_error (error);
  hs_ui_settle ();

  g_assert_cmpint (hs_compare_view_get_mode (t.view), ==, HS_COMPARE_MODE_PAIR);
  g_assert_cmpuint (hs_compare_view_get_n_canvases (t.view), ==, 3);
  g_assert_nonnull (strstr (hs_compare_view_get_title (t.view, 0), "original"));
  g_assert_nonnull (strstr (hs_compare_view_get_title (t.view, 1), "swapped"));
  g_assert_cmpstr (hs_compare_view_get_title (t.view, 2), ==, "A − B");
  /* The caption: the instance and both prompts, each quoted once. */
  g_assert_cmpstr (hs_compare_view_get_caption (t.view), ==,
                   "hand-00 · A “" HS_UI_S0 "” · B “" HS_UI_S0_SWAPPED "”");
  assert_quotes_flat (hs_compare_view_get_caption (t.view));
  {
    /* a sentence with its own quotes (straight, as report text has them):
     * they turn single inside the caption's pair */
    g_autofree char *swapped = hs_text_swap_sides ("There is a \"nodule\" in the right lung.");
    HsSentence *quoted = hs_sentence_new ("sq", "There is a \"nodule\" in the right lung.");
    HsMapRef *ref_a = hs_map_ref_new ("grounded", "sq", "maps/hand-00-s0.npy");
    HsMapRef *ref_b = hs_map_ref_new ("grounded", NULL, "maps/hand-00-s0-swap.npy");

    hs_sentence_add_target (quoted, "right lung");
    hs_instance_add_sentence (t.instance, quoted);
    hs_map_ref_set_prompt (ref_b, swapped);
    hs_instance_add_map (t.instance, ref_a);
    hs_instance_add_map (t.instance, ref_b);
    g_assert_true (hs_compare_view_load (t.view, t.dataset, t.instance, quoted, "grounded", &error));
    g_assert_no_error (error);
    hs_ui_settle ();
    g_assert_cmpstr (hs_compare_view_get_caption (t.view), ==,
                     "hand-00 · A “There is a ‘nodule’ in the right lung.” · "
                     "B “There is a ‘nodule’ in the left lung.”");
    assert_quotes_flat (hs_compare_view_get_caption (t.view));
    g_assert_true (hs_compare_view_load (t.view, t.dataset, t.instance, s0, "grounded", &error));
    g_assert_no_error (error);
    hs_ui_settle ();
  }

  /* One shared scale for A and B: min..max over both maps. */
  expected_ranges (&lo, &hi, &m);
  hs_compare_view_get_shared_range (t.view, &vlo, &vhi);
  g_assert_cmpfloat_with_epsilon (vlo, lo, 1e-9);
  g_assert_cmpfloat_with_epsilon (vhi, hi, 1e-9);
  for (guint i = 0; i < 2; i++)
    {
      hs_view_state_get_overlay_options (hs_canvas_get_view_state (hs_compare_view_get_canvas (t.view, i)), &options);
      g_assert_cmpint (options.scale.mode, ==, HS_SCALE_SHARED);
      g_assert_cmpfloat_with_epsilon (options.scale.lo, lo, 1e-9);
      g_assert_cmpfloat_with_epsilon (options.scale.hi, hi, 1e-9);
    }
  /* A − B: diverging, symmetric [−m, m]. */
  hs_compare_view_get_diff_range (t.view, &vlo, &vhi);
  g_assert_cmpfloat_with_epsilon (vhi, m, 1e-9);
  g_assert_cmpfloat_with_epsilon (vlo, -m, 1e-9);
  hs_view_state_get_overlay_options (hs_canvas_get_view_state (hs_compare_view_get_canvas (t.view, 2)), &options);
  g_assert_true (hs_colormap_is_diverging (options.colormap));
  g_assert_true (options.scale.symmetric);
  g_assert_cmpfloat_with_epsilon (options.scale.hi, m, 1e-9);

  /* Laterality: the target (right lung) is on the image's left; the
   * original map too (same side), the swapped map on the other side: the
   * model followed the swapped words, so B's badge says so and no WRONG
   * SIDE (wrong_side is not scored for a swapped prompt). */
  g_assert_cmpint (hs_compare_view_get_wrong_side (t.view, 0), ==, 0);
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 0), ==, "same side");
  g_assert_cmpint (hs_compare_view_get_wrong_side (t.view, 1), ==, -1);
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 1), ==, "followed the words");
  g_assert_nonnull (strstr (hs_compare_view_get_readout (t.view, 0), "patient’s right"));
  g_assert_null (strstr (hs_compare_view_get_readout (t.view, 1), "WRONG SIDE"));
  g_assert_nonnull (strstr (hs_compare_view_get_readout (t.view, 1), "swap response +"));
  /* The read-outs' tooltips define the metrics they name. */
  g_assert_nonnull (strstr (hs_compare_view_get_readout (t.view, 0),
                            hs_metric_info_lookup ("laterality")->definition));
  g_assert_nonnull (strstr (hs_compare_view_get_readout (t.view, 1),
                            hs_metric_info_lookup ("swap_response")->definition));
  g_assert_nonnull (strstr (hs_compare_view_get_readout (t.view, 2),
                            hs_metric_info_lookup ("sym_kl")->definition));
  g_assert_nonnull (strstr (hs_compare_view_get_readout (t.view, 2), "symmetric KL"));

  {
    /* The canvases are drawn by HsCanvas (tested by ui-canvas); here the
     * layout, titles and read-outs. */
    GtkWidget *masked[] = { GTK_WIDGET (hs_compare_view_get_canvas (t.view, 0)),
                            GTK_WIDGET (hs_compare_view_get_canvas (t.view, 1)),
                            GTK_WIDGET (hs_compare_view_get_canvas (t.view, 2)), NULL };
    g_autoptr(GdkTexture) full = hs_ui_render (GTK_WIDGET (t.view));
    g_autoptr(GdkTexture) texture = hs_ui_mask_widgets (full, GTK_WIDGET (t.view), masked);
    hs_ui_save_screenshot (GTK_WIDGET (t.window), "compare-pair");
    hs_ui_assert_golden (texture, "ui-compare-pair", 0.02);
  }

  /* Linked zoom: zooming A moves B and A − B the same way. */
  hs_canvas_zoom_to (hs_compare_view_get_canvas (t.view, 0), 3.0, 60, 80);
  hs_ui_settle ();
  hs_canvas_get_transform (hs_compare_view_get_canvas (t.view, 0), &ta);
  hs_canvas_get_transform (hs_compare_view_get_canvas (t.view, 1), &tb);
  hs_canvas_get_transform (hs_compare_view_get_canvas (t.view, 2), &tc);
  g_assert_cmpfloat (ta.zoom, ==, 3.0);
  g_assert_cmpfloat (tb.zoom, ==, 3.0);
  g_assert_cmpfloat (tc.zoom, ==, 3.0);
  g_assert_cmpfloat (tb.offset_x, ==, ta.offset_x);
  g_assert_cmpfloat (tc.offset_y, ==, ta.offset_y);
  /* Linked pan from the difference canvas. */
  tc.offset_x -= 40;
  tc.offset_y -= 25;
  hs_canvas_set_transform (hs_compare_view_get_canvas (t.view, 2), &tc);
  hs_canvas_get_transform (hs_compare_view_get_canvas (t.view, 0), &ta);
  hs_canvas_get_transform (hs_compare_view_get_canvas (t.view, 1), &tb);
  g_assert_cmpfloat (ta.offset_x, ==, tc.offset_x);
  g_assert_cmpfloat (tb.offset_y, ==, tc.offset_y);
  /* Fit for all. */
  gtk_widget_activate_action (GTK_WIDGET (t.view), "compare.zoom-fit", NULL);
  hs_canvas_get_transform (hs_compare_view_get_canvas (t.view, 0), &ta);
  hs_canvas_get_transform (hs_compare_view_get_canvas (t.view, 2), &tc);
  g_assert_cmpfloat (ta.zoom, <, 3.0);
  g_assert_cmpfloat (tc.zoom, ==, ta.zoom);

  /* Blink: A's canvas shows B's map, and back. */
  g_assert_false (hs_compare_view_get_blink (t.view));
  gtk_widget_activate_action (GTK_WIDGET (t.view), "compare.blink", NULL);
  g_assert_true (hs_compare_view_get_blink (t.view));
  g_assert_true (hs_canvas_get_map (hs_compare_view_get_canvas (t.view, 0)) ==
                 hs_canvas_get_map (hs_compare_view_get_canvas (t.view, 1)));
  g_assert_nonnull (strstr (hs_compare_view_get_title (t.view, 0), "blink"));
  /* ... and A's caption describes what A's canvas shows: B's read-out and
   * badge while blinking, A's own again after. */
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 0), ==, "followed the words");
  g_assert_cmpstr (hs_compare_view_get_readout (t.view, 0), ==, hs_compare_view_get_readout (t.view, 1));
  gtk_widget_activate_action (GTK_WIDGET (t.view), "compare.blink", NULL);
  g_assert_false (hs_compare_view_get_blink (t.view));
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 0), ==, "same side");
  g_assert_nonnull (strstr (hs_compare_view_get_readout (t.view, 0), "patient’s right"));
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 1), ==, "followed the words");
  g_assert_true (hs_canvas_get_map (hs_compare_view_get_canvas (t.view, 0)) !=
                 hs_canvas_get_map (hs_compare_view_get_canvas (t.view, 1)));

  teardown (&t);
}

static void
test_pair_models_and_nothing (void)
{
  CompareTest t;
  g_autoptr(GError) error = NULL;
  HsSentence *s0, *s1;

  if (hs_ui_skip_without_display ())
    return;
  setup (&t);
  s0 = hs_instance_find_sentence (t.instance, "s0");
  s1 = hs_instance_find_sentence (t.instance, "s1");

  /* s1 has no swapped map: grounded against the next model with s1 (tokens). */
  g_assert_true (hs_compare_view_load (t.view, t.dataset, t.instance, s1, "grounded", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (hs_compare_view_get_title (t.view, 0), ==, "A: grounded");
  g_assert_cmpstr (hs_compare_view_get_title (t.view, 1), ==, "B: tokens");
  /* s1 has no target: wrong_side is undefined. */
  g_assert_cmpint (hs_compare_view_get_wrong_side (t.view, 0), ==, -1);

  /* "tokens" has no map for s0: an error naming instance, model and sentence. */
  g_assert_false (hs_compare_view_load (t.view, t.dataset, t.instance, s0, "tokens", &error));
  g_assert_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING);
  g_assert_nonnull (strstr (error->message, "hand-00"));
  g_assert_nonnull (strstr (error->message, "tokens"));
  g_assert_nonnull (strstr (error->message, "s0"));

  /* Blink does nothing outside pair mode. */
  g_assert_true (hs_compare_view_load_grid (t.view, t.dataset, t.instance, s0, NULL));
  hs_compare_view_set_blink (t.view, TRUE);
  g_assert_false (hs_compare_view_get_blink (t.view));
  teardown (&t);
}

static void
test_grid (void)
{
  CompareTest t;
  g_autoptr(GError) error = NULL;
  HsSentence *s0;
  double lo, hi, expected_lo = INFINITY, expected_hi = -INFINITY;
  double a[HS_UI_GRID * HS_UI_GRID], b[HS_UI_GRID * HS_UI_GRID];
  HsCanvasTransform t0, t1;

  if (hs_ui_skip_without_display ())
    return;
  setup (&t);
  s0 = hs_instance_find_sentence (t.instance, "s0");
  g_assert_true (hs_compare_view_load_grid (t.view, t.dataset, t.instance, s0, &error));
  g_assert_no_error (error);
  hs_ui_settle ();
  g_assert_cmpint (hs_compare_view_get_mode (t.view), ==, HS_COMPARE_MODE_GRID);
  /* Models with an s0 map, sorted: blind, grounded. */
  g_assert_cmpuint (hs_compare_view_get_n_canvases (t.view), ==, 2);
  g_assert_cmpstr (hs_compare_view_get_title (t.view, 0), ==, "blind");
  g_assert_cmpstr (hs_compare_view_get_title (t.view, 1), ==, "grounded");
  {
    GtkWidget *masked[] = { GTK_WIDGET (hs_compare_view_get_canvas (t.view, 0)),
                            GTK_WIDGET (hs_compare_view_get_canvas (t.view, 1)), NULL };
    g_autoptr(GdkTexture) full = hs_ui_render (GTK_WIDGET (t.view));
    g_autoptr(GdkTexture) texture = hs_ui_mask_widgets (full, GTK_WIDGET (t.view), masked);

    hs_ui_save_screenshot (GTK_WIDGET (t.window), "compare-grid");
    hs_ui_assert_golden (texture, "ui-compare-grid", 0.02);
  }

  /* Shared scale over both: blind is a wide blob (σ 5), grounded narrow. */
  hs_ui_gauss (a, 8, 8, 5);
  hs_ui_gauss (b, 5, 8, 2.5);
  for (guint i = 0; i < HS_UI_GRID * HS_UI_GRID; i++)
    {
      expected_lo = MIN (expected_lo, MIN ((float) a[i], (float) b[i]));
      expected_hi = MAX (expected_hi, MAX ((float) a[i], (float) b[i]));
    }
  hs_compare_view_get_shared_range (t.view, &lo, &hi);
  g_assert_cmpfloat_with_epsilon (lo, expected_lo, 1e-9);
  g_assert_cmpfloat_with_epsilon (hi, expected_hi, 1e-9);

  /* The centred blind blob is on neither side: not wrong, and not on the
   * target's side either (|laterality| < 0.2): no "same side" badge. */
  g_assert_cmpint (hs_compare_view_get_wrong_side (t.view, 0), ==, 0);
  g_assert_nonnull (strstr (hs_compare_view_get_readout (t.view, 0), "central"));
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 0), ==, "no clear side");
  g_assert_cmpint (hs_compare_view_get_wrong_side (t.view, 1), ==, 0);
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 1), ==, "same side");

  /* Linked zoom in the grid too. */
  hs_canvas_zoom_to (hs_compare_view_get_canvas (t.view, 1), 2.0, -1, -1);
  hs_canvas_get_transform (hs_compare_view_get_canvas (t.view, 0), &t0);
  hs_canvas_get_transform (hs_compare_view_get_canvas (t.view, 1), &t1);
  g_assert_cmpfloat (t0.zoom, ==, 2.0);
  g_assert_cmpfloat (t0.offset_x, ==, t1.offset_x);
  g_assert_cmpfloat (t0.offset_y, ==, t1.offset_y);
  teardown (&t);
}

/* Two instances whose s0 targets the right lung (image left): model "m"
 * maps "fine" there and "flip" to the image's right (wrong side); "solo"
 * has no target (not scored); "broken" has a missing map (skipped). */
static void
test_wrong_side_scan (void)
{
  g_autofree char *root = hs_test_make_tmpdir ();
  g_autofree char *images = g_build_filename (root, "images", NULL);
  g_autofree char *maps = g_build_filename (root, "maps", NULL);
  g_autofree char *manifest = g_build_filename (root, "heatscope.json", NULL);
  g_autofree char *image = g_build_filename (images, "x.png", NULL);
  g_autoptr(GString) json = g_string_new ("{\"format\": \"heatscope-dataset\", \"version\": 1, "
                                          "\"name\": \"wrong side\", \"instances\": [\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsWrongSideResult) result = NULL;
  const char *ids[] = { "fine", "flip", "solo", "broken" };
  const double left[] = { 5, 8, 2.5 }, right[] = { 11, 8, 2.5 };

  g_assert_cmpint (g_mkdir_with_parents (images, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (maps, 0755), ==, 0);
  hs_ui_write_image (image, 0);
  hs_ui_write_map (root, "left.npy", 0, left);
  hs_ui_write_map (root, "right.npy", 0, right);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    g_string_append_printf (json,
      "%s{\"id\": \"%s\", \"image\": \"images/x.png\",\n"
      " \"regions\": {\"right lung\": {\"boxes\": [[50, 55, 160, 275]]}},\n"
      " \"sentences\": [{\"id\": \"s0\", \"text\": \"Nodule in the right lung.\", \"targets\": [%s]}],\n"
      " \"maps\": [{\"model\": \"m\", \"query\": \"s0\", \"file\": \"maps/%s\"}]}\n",
      i > 0 ? "," : "", ids[i], i == 2 ? "" : "\"right lung\"",
      i == 0 ? "left.npy" : i == 3 ? "missing.npy" : "right.npy");
  g_string_append (json, "]}\n");
  g_file_set_contents (manifest, json->str, -1, &error);
  g_assert_no_error (error);
  dataset = hs_dataset_load (root, &error);
  g_assert_no_error (error);

  result = hs_wrong_side_scan (dataset, "m", NULL);
  g_assert_cmpuint (g_hash_table_size (result->ids), ==, 1);
  g_assert_true (g_hash_table_contains (result->ids, "flip"));
  /* The sentence too: the browser opens it. */
  g_assert_true (hs_wrong_side_result_contains (result, "flip", "s0"));
  g_assert_false (hs_wrong_side_result_contains (result, "fine", "s0"));
  g_assert_false (hs_wrong_side_result_contains (result, "flip", "s1"));
  g_assert_cmpuint (result->n_scored, ==, 2);
  g_assert_cmpuint (result->n_skipped, ==, 1);
  g_clear_pointer (&result, hs_wrong_side_result_free);
  /* A model without maps flags nothing. */
  result = hs_wrong_side_scan (dataset, "other", NULL);
  g_assert_cmpuint (g_hash_table_size (result->ids), ==, 0);
  g_assert_cmpuint (result->n_scored, ==, 0);

  /* The instance browser's "Wrong side" filter shows "flip" alone. */
  if (!hs_ui_skip_without_display ())
    {
      HsInstanceBrowser *browser = HS_INSTANCE_BROWSER (g_object_ref_sink (hs_instance_browser_new ()));
      GtkWidget *window = gtk_window_new ();

      gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (browser));
      gtk_window_present (GTK_WINDOW (window));
      hs_instance_browser_set_dataset (browser, dataset);
      hs_instance_browser_set_model (browser, "m");
      hs_ui_settle ();
      g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 4);
      gtk_widget_activate_action (GTK_WIDGET (browser), "browser.filter-wrong-side", NULL);
      hs_ui_wait_until ((gboolean (*) (gpointer)) hs_instance_browser_get_wrong_side_ready, browser);
      g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 1);
      hs_instance_browser_select_relative (browser, 0);
      g_assert_cmpuint (hs_instance_browser_get_selected (browser), ==, 1);   /* "flip" */
      /* Another model: rescanned, nothing is on the wrong side. */
      hs_instance_browser_set_model (browser, "other");
      hs_ui_wait_until ((gboolean (*) (gpointer)) hs_instance_browser_get_wrong_side_ready, browser);
      g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 0);
      gtk_widget_activate_action (GTK_WIDGET (browser), "browser.filter-wrong-side", NULL);
      g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 4);
      gtk_window_destroy (GTK_WINDOW (window));
      hs_ui_settle ();
      hs_ui_assert_finalized (browser);
    }
}

/* The perturbation panel on hand-00 s0 ("right lung", map on the image's
 * left): swapping left/right finds the precomputed map of the swapped
 * prompt (blob on the image's right), so against the ORIGINAL target the
 * map moves to the wrong side (Δ wrong_side = 1 − 0), laterality grows
 * (toward the patient's left) and less mass lies in the target. */
static void
test_perturb_panel (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  HsInstance *instance;
  GtkWidget *window;
  HsPerturbPanel *panel;
  HsComparison cmp;

  if (hs_ui_skip_without_display ())
    return;
  dataset = hs_dataset_load (dataset_root, &error);
  g_assert_no_error (error);
  instance = hs_dataset_find_instance (dataset, "hand-00");
  panel = HS_PERTURB_PANEL (g_object_ref_sink (hs_perturb_panel_new ()));
  window = gtk_window_new ();
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (panel));
  gtk_window_set_default_size (GTK_WINDOW (window), 420, 700);
  gtk_window_present (GTK_WINDOW (window));

  hs_perturb_panel_set_input (panel, dataset, instance, hs_instance_find_sentence (instance, "s0"), "grounded");
  hs_ui_settle ();
  g_assert_cmpstr (hs_perturb_panel_get_status (panel), ==, "");
  g_assert_nonnull (strstr (hs_perturb_panel_get_prompt (panel), HS_UI_S0_SWAPPED));
  g_assert_true (hs_perturb_panel_get_comparison (panel, &cmp));
  g_assert_cmpfloat (cmp.original.value[HS_METRIC_WRONG_SIDE], ==, 0);
  /* Not WRONG SIDE for the swapped map (it followed the words): wrong_side
   * is not scored for a swapped prompt; swap_response says what happened. */
  g_assert_true (isnan (cmp.perturbed.value[HS_METRIC_WRONG_SIDE]));
  g_assert_true (isnan (cmp.delta[HS_METRIC_WRONG_SIDE]));
  g_assert_cmpfloat (cmp.swap_response, >=, HS_SWAP_RESPONSE_MARGIN);
  g_assert_cmpfloat_with_epsilon (cmp.swap_response,
                                  (cmp.original.value[HS_METRIC_LATERALITY]
                                   - cmp.perturbed.value[HS_METRIC_LATERALITY]) / 2
                                  * (cmp.original.target_laterality > 0 ? 1 : -1), 1e-12);
  g_assert_nonnull (strstr (hs_perturb_panel_get_swap_response_text (panel), "followed the words"));
  /* Every metric name in the table (first column) has its definition as tooltip. */
  {
    GtkWidget *grid = hs_ui_find_widget (GTK_WIDGET (panel), GTK_TYPE_GRID);
    guint n_names = 0;

    g_assert_nonnull (grid);
    for (int row = 1; gtk_grid_get_child_at (GTK_GRID (grid), 0, row) != NULL; row++)
      {
        GtkWidget *label = gtk_grid_get_child_at (GTK_GRID (grid), 0, row);
        const HsMetricInfo *info = hs_metric_info_lookup (gtk_label_get_text (GTK_LABEL (label)));
        g_autofree char *expected = NULL;

        g_assert_nonnull (info);
        expected = hs_metric_info_tooltip (info);
        g_assert_cmpstr (gtk_widget_get_tooltip_text (label), ==, expected);
        n_names++;
      }
    /* the default protocol's metrics, sym_kl and swap_response */
    g_assert_cmpuint (n_names, ==, 21 + 2);
  }
  g_assert_cmpfloat (cmp.delta[HS_METRIC_LATERALITY], >, 0.5);
  g_assert_cmpfloat (cmp.delta[HS_METRIC_MASS_IN_TARGET], <, 0);
  g_assert_cmpfloat (cmp.sym_kl, >, 0);

  /* "blind" has no map of the swapped prompt: reported, no table. */
  hs_perturb_panel_set_input (panel, dataset, instance, hs_instance_find_sentence (instance, "s0"), "blind");
  g_assert_false (hs_perturb_panel_get_comparison (panel, NULL));
  g_assert_cmpstr (hs_perturb_panel_get_status (panel), !=, "");
  g_test_message ("missing map: %s", hs_perturb_panel_get_status (panel));

  gtk_window_destroy (GTK_WINDOW (window));
  hs_ui_settle ();
  hs_ui_assert_finalized (panel);
}

/* The shared bar shows the colours its maps get, the transparent threshold
 * included: below it the widget's background shows through. */
static void
test_color_bar_threshold (void)
{
  g_autoptr(HsViewState) state = NULL;
  GtkWidget *window, *bar;
  guint32 low[2], high[2];

  if (hs_ui_skip_without_display ())
    return;
  state = hs_view_state_new ();
  window = gtk_window_new ();
  bar = hs_color_bar_new ();
  /* jet's colours are asserted below, whatever the first look's map */
  hs_view_state_set_colormap (state, "jet");
  hs_color_bar_set_state (HS_COLOR_BAR (bar), state);
  hs_color_bar_set_range (HS_COLOR_BAR (bar), 0, 1);
  hs_color_bar_set_caption (HS_COLOR_BAR (bar), "A and B · one shared scale");
  gtk_window_set_child (GTK_WINDOW (window), bar);
  gtk_window_set_default_size (GTK_WINDOW (window), 416, -1);
  gtk_window_present (GTK_WINDOW (window));
  hs_ui_wait_until (hs_ui_is_mapped, window);
  hs_ui_settle ();
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(GdkTexture) texture = NULL;
      g_autofree guchar *px = NULL;
      int w, y;

      g_object_set (state, "threshold", pass == 0 ? 0.0 : 0.5, NULL);
      hs_ui_settle ();
      texture = hs_ui_render (bar);
      px = hs_ui_download (texture);
      w = gdk_texture_get_width (texture);
      /* the bar: 8 pixels in from each side, rows 0.8 × 15 × 1.4 = 16.8 to
       * 31.8 (hs-legend's horizontal layout at the bar's font size 15) */
      y = 24;
      low[pass] = *(guint32 *) (void *) (px + ((gsize) y * w + 8 + (w - 16) / 5) * 4);
      high[pass] = *(guint32 *) (void *) (px + ((gsize) y * w + 8 + (w - 16) * 19 / 20) * 4);
    }
  /* (premultiplied 0xAARRGGBB) the top of jet, opaque dark red, either way;
   * at 0.2 jet's opaque blue without the threshold, and nothing drawn (the
   * widget's own, transparent background) with it */
  g_assert_cmphex (high[0], ==, high[1]);
  g_assert_cmpuint (high[1] >> 24, ==, 0xff);
  g_assert_cmpuint (high[1] >> 16 & 0xff, >, 120);
  g_assert_cmpuint (low[0] >> 24, ==, 0xff);
  g_assert_cmpuint (low[0] & 0xff, >, 200);
  g_assert_cmpuint (low[0] >> 16 & 0xff, <, 40);
  g_assert_cmpuint (low[1] >> 24, ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));
  hs_ui_settle ();
}

/* The comparison exported as a publication figure (hs-figure-grid):
 * page size and PNG pixels from the remembered settings, every title, the
 * badges and read-outs as on screen, one shared bar and the diverging one. */
static void
test_export (void)
{
  CompareTest t;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *svg = g_build_filename (dir, "compare.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "compare.png", NULL);
  g_autofree char *pdf = g_build_filename (dir, "compare.pdf", NULL);
  g_autofree char *bad = g_build_filename (dir, "compare.tiff", NULL);
  g_autofree char *text = NULL, *badge = NULL, *pdftotext = NULL, *flat = NULL;
  cairo_surface_t *surface;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  settings = hs_settings_new ();
  g_settings_set_string (settings, "figure-width", "7in");
  g_settings_set_double (settings, "figure-dpi", 100);
  g_settings_set_double (settings, "figure-font-size", 8);
  setup (&t);
  g_assert_true (hs_compare_view_load (t.view, t.dataset, t.instance,
                                       hs_instance_find_sentence (t.instance, "s0"), "grounded", &error));
  g_assert_no_error (error);
  hs_ui_settle ();

  g_assert_true (hs_compare_view_export (t.view, svg, settings, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "width=\"504pt\""));   /* 7 in */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *title = g_markup_escape_text (hs_compare_view_get_title (t.view, i), -1);
      /* up to its first space: a long title wraps */
      g_autofree char *needle = g_strdup_printf (">%.*s", (int) strcspn (title, " "), title);

      if (strstr (text, needle) == NULL)
        g_error ("the SVG has no title '%s'", needle);
    }
  /* the badges as on screen (A: same side; B: what the map did with the
   * swapped words), each followed by its cell's read-out line */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *needle = g_strdup_printf (">%s</text>", hs_compare_view_get_badge (t.view, i));
      g_assert_nonnull (strstr (text, needle));
    }
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 0), ==, "same side");
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 1), ==, "followed the words");
  g_assert_nonnull (strstr (text, ">Laterality "));
  /* ONE bar for A and B */
  g_assert_nonnull (strstr (text, ">attention weight</text>"));
  g_assert_null (strstr (strstr (text, ">attention weight</text>") + 1, ">attention weight</text>"));
  g_assert_nonnull (strstr (text, ">difference A − B</text>"));
  g_assert_nonnull (strstr (text, "Diverging scale"));

  g_assert_true (hs_compare_view_export (t.view, png, settings, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 700);   /* 504 pt at 100 dpi */
  if (g_getenv ("HS_SCREENSHOT_DIR"))
    {
      g_autofree char *look = g_build_filename (g_getenv ("HS_SCREENSHOT_DIR"), "compare-export.png", NULL);
      g_assert_cmpint (cairo_surface_write_to_png (surface, look), ==, CAIRO_STATUS_SUCCESS);
    }
  cairo_surface_destroy (surface);

  /* PDF page width in points and its text */
  g_assert_true (hs_compare_view_export (t.view, pdf, settings, &error));
  g_assert_no_error (error);
  {
    g_autofree char *tool = g_find_program_in_path ("pdftotext");
    const char *argv[] = { tool, "-enc", "UTF-8", pdf, "-", NULL };
    g_autofree char *err = NULL;
    int status = -1;

    g_assert_nonnull (tool);
    g_assert_true (hs_test_run (argv, &pdftotext, &err, &status));
    g_assert_cmpint (status, ==, 0);
    flat = g_strdup (pdftotext);
    g_strdelimit (flat, "\n", ' ');
    g_assert_nonnull (strstr (flat, "followed the words"));
    g_assert_nonnull (strstr (flat, "attention weight"));
    g_assert_nonnull (strstr (flat, "hand-00"));
  }

  /* the export dialog: preset from the settings, the choice remembered */
  {
    GtkFileChooserNative *chooser = hs_compare_view_new_export_chooser (t.view, settings);
    g_autofree char *again = NULL, *remembered = NULL;

    g_assert_cmpstr (gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (chooser), "width"), ==, "7in");
    g_assert_cmpstr (gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (chooser), "dpi"), ==, "100");
    g_assert_cmpstr (gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (chooser), "font-size"), ==, "8");
    /* what the dialog had chosen is written back (the keys were reset
     * meanwhile), then the figure at that size */
    g_settings_reset (settings, "figure-width");
    g_settings_reset (settings, "figure-dpi");
    g_assert_true (hs_compare_view_export_chosen (t.view, GTK_FILE_CHOOSER (chooser), svg, settings,
                                                  &error));
    g_assert_no_error (error);
    remembered = g_settings_get_string (settings, "figure-width");
    g_assert_cmpstr (remembered, ==, "7in");
    g_assert_cmpfloat (g_settings_get_double (settings, "figure-dpi"), ==, 100);
    g_assert_true (g_file_get_contents (svg, &again, NULL, NULL));
    g_assert_nonnull (strstr (again, "width=\"504pt\""));
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (chooser));
    g_object_unref (chooser);
  }

  /* unknown format: refused, naming the file, nothing written */
  g_assert_false (hs_compare_view_export (t.view, bad, settings, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, bad));
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  hs_ui_reset_settings ();
  teardown (&t);
}


/* `text` as a JSON string (quotes and backslashes escaped; the texts here
 * have no control characters). */
static void
append_json_string (GString *out, const char *text)
{
  g_string_append_c (out, '"');
  for (const char *c = text; *c; c++)
    {
      if (*c == '"' || *c == '\\')
        g_string_append_c (out, '\\');
      g_string_append_c (out, *c);
    }
  g_string_append_c (out, '"');
}

/* The view exported by the app and the same panels composed by
 * `heatscope-cli figure --spec` (titles and caption as the view shows them,
 * the colour map, opacity and threshold the app's first look, the rest the
 * maps'): the same file, byte for byte, in SVG and PNG. */
static void
check_export_equals_cli (CompareTest *t, GSettings *settings, const char *const *panels,
                         const char *name)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *spec = g_build_filename (dir, "fig.json", NULL);
  g_autoptr(GString) json = g_string_new ("{\"width\": \"183mm\", \"dpi\": 100, \"font_size\": 7, ");
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  guint n = hs_compare_view_get_n_canvases (t->view);
  g_autoptr(GError) error = NULL;

  g_string_append_printf (json, "\"colormap\": \"%s\", ", HS_VIEW_STATE_DEFAULT_COLORMAP);
  g_string_append_printf (json, "\"opacity\": %s, ",
                          g_ascii_dtostr (number, sizeof number, HS_VIEW_STATE_DEFAULT_OPACITY));
  g_string_append_printf (json, "\"threshold\": %s, ",
                          g_ascii_dtostr (number, sizeof number, HS_VIEW_STATE_DEFAULT_THRESHOLD));
  g_string_append_printf (json, "\"columns\": %u, \"caption\": ", n <= 3 ? n : (guint) ceil (sqrt (n)));
  append_json_string (json, hs_compare_view_get_caption (t->view));
  g_string_append (json, ", \"panels\": [");
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (json, "%s{%s, \"title\": ", i ? ", " : "", panels[i]);
      append_json_string (json, hs_compare_view_get_title (t->view, i));
      g_string_append (json, "}");
    }
  g_string_append (json, "]}");
  g_assert_true (g_file_set_contents (spec, json->str, -1, NULL));
  g_test_message ("%s: %s", name, json->str);

  for (const char *const *ext = (const char *const[]) { "svg", "png", NULL }; *ext; ext++)
    {
      g_autofree char *app_name = g_strdup_printf ("%s-app.%s", name, *ext);
      g_autofree char *cli_name = g_strdup_printf ("%s-cli.%s", name, *ext);
      g_autofree char *app = g_build_filename (dir, app_name, NULL);
      g_autofree char *cli = g_build_filename (dir, cli_name, NULL);

      g_assert_true (hs_compare_view_export (t->view, app, settings, &error));
      g_assert_no_error (error);
      g_free (hs_ui_assert_same_as_cli_figure (dataset_root, spec, app, cli, name));
    }
}

/* The same figure from the app and the CLI: A | B | A − B of a swapped
 * prompt (badges, read-outs, the diverging bar) and the grid of models. */
static void
test_export_same_as_cli (void)
{
  CompareTest t;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSettings) settings = NULL;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  settings = hs_settings_new ();
  g_settings_set_string (settings, "figure-width", "183mm");
  g_settings_set_double (settings, "figure-dpi", 100);
  g_settings_set_double (settings, "figure-font-size", 7);
  setup (&t);

  g_assert_true (hs_compare_view_load (t.view, t.dataset, t.instance,
                                       hs_instance_find_sentence (t.instance, "s0"), "grounded", &error));
  g_assert_no_error (error);
  hs_ui_settle ();
  g_assert_cmpstr (hs_compare_view_get_badge (t.view, 1), ==, "followed the words");
  check_export_equals_cli (&t, settings, (const char *const[]) {
      "\"instance\": \"hand-00\", \"query\": \"s0\", \"model\": \"grounded\"",
      "\"instance\": \"hand-00\", \"query\": \"s0\", \"model\": \"grounded\", \"perturbation\": \"swap-left-right\"",
      "\"diff\": [1, 2]" }, "pair");

  g_assert_true (hs_compare_view_load_grid (t.view, t.dataset, t.instance,
                                            hs_instance_find_sentence (t.instance, "s0"), &error));
  g_assert_no_error (error);
  hs_ui_settle ();
  g_assert_cmpuint (hs_compare_view_get_n_canvases (t.view), ==, 2);
  check_export_equals_cli (&t, settings, (const char *const[]) {
      "\"instance\": \"hand-00\", \"query\": \"s0\", \"model\": \"blind\"",
      "\"instance\": \"hand-00\", \"query\": \"s0\", \"model\": \"grounded\"" }, "grid");
  hs_ui_reset_settings ();
  teardown (&t);
}

int
main (int argc, char **argv)
{
  int status;

  hs_ui_init (&argc, &argv);
  dataset_root = hs_ui_make_dataset ();

  g_test_add_func ("/hs/ui/compare/pair-swapped", test_pair_swapped);
  g_test_add_func ("/hs/ui/compare/pair-models-and-nothing", test_pair_models_and_nothing);
  g_test_add_func ("/hs/ui/compare/grid", test_grid);
  g_test_add_func ("/hs/ui/compare/color-bar-threshold", test_color_bar_threshold);
  g_test_add_func ("/hs/ui/compare/wrong-side-scan", test_wrong_side_scan);
  g_test_add_func ("/hs/ui/compare/perturb-panel", test_perturb_panel);
  g_test_add_func ("/hs/ui/compare/export", test_export);
  g_test_add_func ("/hs/ui/compare/export-same-as-cli", test_export_same_as_cli);
  status = g_test_run ();
  g_free (dataset_root);
  return status;
}
