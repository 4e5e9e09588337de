/* test-ui-deck.c — the demo deck in the app: add three cases (a single
 * view, a swap comparison, a model grid) from the viewer and the compare
 * windows, reorder them (keyboard actions, and a real pointer drag in
 * /hs/ui/deck/reorder-drag), edit a note, delete with undo; the file saved,
 * read back by a new window (the last deck restored as on start); a case
 * opened restores its view; presentation mode draws the viewer's pixels
 * (the single view, and the comparison's and the grid's cells against the
 * viewer's compare windows) and steps through the deck with real keys (xdotool). */
#include <gdk/x11/gdkx.h>
#include <glib/gstdio.h>

#include "hs-ui-fixture.h"
#include "hs-deck-panel.h"
#include "hs-compare-view.h"
#include "hs-presentation-window.h"
#include "hs-results-window.h"
#include "hs-view-state.h"

/* The compare window the main window just opened (transient for it). */
static GtkWindow *
find_compare_window (HsWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();   /* owned by GTK */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (gtk_window_get_transient_for (w) == GTK_WINDOW (window) && hs_compare_window_get_view (w) != NULL)
        return w;
    }
  return NULL;
}

static GtkWindow *
open_compare (HsWindow *window, const char *kind)
{
  GtkWindow *compare;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compare", "s", kind));
  compare = find_compare_window (window);
  g_assert_nonnull (compare);
  hs_ui_wait_until (hs_ui_is_mapped, compare);
  hs_ui_settle ();
  return compare;
}

static guint
n_cases (HsWindow *window)
{
  HsDeck *deck = hs_window_get_deck (window);
  return deck != NULL ? deck->cases->len : 0;
}

static HsDeckCase *
case_at (HsDeck *deck, guint i)
{
  g_assert_cmpuint (i, <, deck->cases->len);
  return g_ptr_array_index (deck->cases, i);
}

/* Runs xdotool (real X events through XTest) to its end. */
static void
run_xdotool (const char *const *argv)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
}

static char *
window_xid (GtkWindow *window)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  return g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface));
}

/* Presses `key` (xdotool's name) in `window` with real X events. */
static void
press (GtkWindow *window, const char *key)
{
  g_autofree char *wid = window_xid (window);
  const char *argv[] = { "xdotool", "windowfocus", "--sync", wid, "key", "--clearmodifiers", key, NULL };

  run_xdotool (argv);
}

typedef struct {
  HsPresentationWindow *presentation;
  guint                 index;
} Step;

static gboolean
presentation_at (gpointer data)
{
  Step *step = data;
  return hs_presentation_window_get_ready (step->presentation) &&
         hs_presentation_window_get_index (step->presentation) == step->index;
}

static gboolean
heatmap_is (gpointer data)
{
  Step *step = data;   /* index: the wanted state */
  return hs_presentation_window_get_heatmap_shown (step->presentation) == (gboolean) step->index;
}

static gboolean
truth_is (gpointer data)
{
  Step *step = data;
  return hs_presentation_window_get_truth_shown (step->presentation) == (gboolean) step->index;
}

static gboolean
blink_is (gpointer data)
{
  Step *step = data;
  return hs_compare_view_get_blink (hs_presentation_window_get_compare_view (step->presentation)) ==
         (gboolean) step->index;
}

static void
press_and_wait (HsPresentationWindow *presentation, const char *key, gboolean (*cond) (gpointer),
                guint value)
{
  Step step = { presentation, value };

  press (GTK_WINDOW (presentation), key);
  hs_ui_wait_until (cond, &step);
  hs_ui_settle ();
}

static gboolean
window_idle (gpointer window)
{
  return !hs_window_get_loading (window);
}

static gboolean
results_complete (gpointer results)
{
  HsResultsModel *model = hs_results_window_get_model (results);

  return model != NULL && hs_results_model_get_complete (model);
}

/* The results table of `window` (win.results), every row scored. */
static HsResultsWindow *
open_results (HsWindow *window)
{
  HsResultsWindow *results;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.results", NULL));
  results = hs_ui_find_toplevel (HS_TYPE_RESULTS_WINDOW);
  g_assert_nonnull (results);
  hs_ui_wait_until (results_complete, results);
  return results;
}

static gboolean
is_slide_sized (gpointer window)
{
  return gtk_widget_get_width (window) == 1920 && gtk_widget_get_height (window) == 1080;
}

static gboolean
is_gone (gpointer pointer)
{
  return *(gpointer *) pointer == NULL;
}

/* Rows of two w × h renders that differ (0: the same pixels). */
static gsize
differing_rows (cairo_surface_t *a, cairo_surface_t *b, int w, int h)
{
  gsize differing = 0;

  cairo_surface_flush (a);
  cairo_surface_flush (b);
  for (int y = 0; y < h; y++)
    differing += memcmp (cairo_image_surface_get_data (a) + (gsize) y * cairo_image_surface_get_stride (a),
                         cairo_image_surface_get_data (b) + (gsize) y * cairo_image_surface_get_stride (b),
                         (gsize) w * 4) != 0;
  return differing;
}

#define RENDER_W 800
#define RENDER_H 600

static gboolean
compare_idle (gpointer view)
{
  return !hs_compare_view_get_busy (view);
}

/* Every canvas of `view` (pair: A, B, A − B; grid: one per model) drawn at
 * RENDER_W × RENDER_H, a size no cell has, so the viewer's and the
 * presentation's cells draw through the same path.  The cases compared are
 * saved fitted; restoring one fits A, and the other cells follow A's
 * transform through the link, which is in A's on-screen pixels (they leave
 * fit mode), so drawn at another size they would show the cell size of
 * their window, not the case: compare.zoom-fit (what the user presses)
 * puts every cell in fit mode first. */
static GPtrArray *
render_cells (HsCompareView *view)
{
  GPtrArray *surfaces = g_ptr_array_new_with_free_func ((GDestroyNotify) cairo_surface_destroy);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "compare.zoom-fit", NULL));
  for (guint i = 0; i < hs_compare_view_get_n_canvases (view); i++)
    {
      HsCanvas *canvas = hs_compare_view_get_canvas (view, i);

      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (canvas)), !=, RENDER_W);
      g_ptr_array_add (surfaces, hs_canvas_render_surface (canvas, RENDER_W, RENDER_H));
    }
  return surfaces;
}

/* The viewer's compare window for case `index` (opened from the deck, as a
 * user does), its cells rendered; the window closed again. */
static GPtrArray *
render_viewer_case (HsWindow *window, guint index)
{
  GtkWindow *compare;
  HsCompareView *view;
  GPtrArray *surfaces;

  g_assert_true (hs_window_open_case (window, index));
  hs_ui_wait_until (window_idle, window);
  compare = find_compare_window (window);
  g_assert_nonnull (compare);
  hs_ui_wait_until (hs_ui_is_mapped, compare);
  view = hs_compare_window_get_view (compare);
  hs_ui_wait_until (compare_idle, view);
  hs_ui_settle ();
  surfaces = render_cells (view);
  gtk_window_destroy (compare);
  hs_ui_settle ();
  return surfaces;
}

/* The presentation's cells are the viewer's, cell by cell, pixel for pixel. */
static void
assert_cells_equal (HsPresentationWindow *presentation, GPtrArray *viewer)
{
  HsCompareView *view = hs_presentation_window_get_compare_view (presentation);
  g_autoptr(GPtrArray) shown = NULL;

  hs_ui_wait_until (compare_idle, view);
  hs_ui_settle ();
  shown = render_cells (view);
  g_assert_cmpuint (shown->len, ==, viewer->len);
  for (guint i = 0; i < shown->len; i++)
    {
      gsize rows = differing_rows (g_ptr_array_index (shown, i), g_ptr_array_index (viewer, i),
                                   RENDER_W, RENDER_H);

      if (rows != 0)
        {
          /* both renders next to the failure, to look at */
          const char *dir = g_getenv ("HS_BUILD_DIR") ? g_getenv ("HS_BUILD_DIR") : ".";
          g_autofree char *name_a = g_strdup_printf ("ui-deck-cell%u-presentation.png", i);
          g_autofree char *name_b = g_strdup_printf ("ui-deck-cell%u-viewer.png", i);
          g_autofree char *a = g_build_filename (dir, name_a, NULL);
          g_autofree char *b = g_build_filename (dir, name_b, NULL);

          cairo_surface_write_to_png (g_ptr_array_index (shown, i), a);
          cairo_surface_write_to_png (g_ptr_array_index (viewer, i), b);
          g_test_message ("cell %u: %zu rows differ (snapshots %s, %s)", i, rows, a, b);
        }
      g_assert_cmpuint (rows, ==, 0);
    }
}

static void
test_deck (void)
{
  g_autofree char *root = NULL;
  g_autofree char *deck_path = NULL;
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  g_autoptr(HsDeck) saved = NULL;
  g_autoptr(GError) error = NULL;
  HsWindow *window;
  HsDeckPanel *panel;
  HsViewState *state;
  GtkWindow *compare;
  HsPresentationWindow *presentation;
  g_autoptr(GPtrArray) viewer_pair = NULL;
  g_autoptr(GPtrArray) viewer_grid = NULL;
  Step step;

  if (hs_ui_skip_without_display ())
    return;
  g_assert_nonnull (xdotool);   /* tools/deps.sh installs it */
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  deck_path = g_build_filename (root, "demo.hsdeck", NULL);
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);

  /* 1. A single view: hand-01's sentence 1, viridis at 70 %, zoomed in. */
  g_assert_true (hs_window_select_instance (window, "hand-01"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_select_model (window, "grounded"));
  state = hs_canvas_get_view_state (HS_CANVAS (hs_window_get_canvas (window)));
  hs_view_state_set_colormap (state, "viridis");
  hs_view_state_set_opacity (state, 0.7);
  hs_ui_settle ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.deck-add", NULL));
  g_assert_cmpstr (hs_window_get_deck_path (window), ==, deck_path);
  g_assert_cmpuint (n_cases (window), ==, 1);
  {
    HsDeckCase *item = case_at (hs_window_get_deck (window), 0);

    g_assert_cmpstr (item->instance, ==, "hand-01");
    g_assert_cmpuint (item->sentence, ==, 1);
    g_assert_cmpstr (item->sentence_text, ==, HS_UI_S0);
    g_assert_null (item->prompt);
    g_assert_false (item->swap);
    g_assert_cmpint (item->view, ==, HS_DECK_VIEW_SINGLE);
    g_assert_cmpstr (((HsDeckModel *) g_ptr_array_index (item->models, 0))->name, ==, "grounded");
    g_assert_cmpint (item->overlay.colormap, ==, HS_COLORMAP_VIRIDIS);
    g_assert_cmpfloat (item->overlay.opacity, ==, 0.7);
    g_assert_nonnull (item->map_sha256);
  }

  /* 2. The swap comparison A | B | A − B of hand-02 (Ctrl+Shift+A in the compare window). */
  g_assert_true (hs_window_select_instance (window, "hand-02"));
  hs_ui_wait_until (window_idle, window);
  compare = open_compare (window, "pair");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (compare), "compare-window.deck-add", NULL));
  gtk_window_destroy (compare);
  /* 3. The model grid of hand-03. */
  g_assert_true (hs_window_select_instance (window, "hand-03"));
  hs_ui_wait_until (window_idle, window);
  compare = open_compare (window, "grid");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (compare), "compare-window.deck-add", NULL));
  gtk_window_destroy (compare);
  hs_ui_settle ();
  g_assert_cmpuint (n_cases (window), ==, 3);
  g_assert_cmpint (case_at (hs_window_get_deck (window), 1)->view, ==, HS_DECK_VIEW_COMPARE);
  g_assert_true (case_at (hs_window_get_deck (window), 1)->swap);
  g_assert_cmpint (case_at (hs_window_get_deck (window), 2)->view, ==, HS_DECK_VIEW_GRID);

  /* A results-table row (Ctrl+Shift+A takes the row the keyboard is on:
   * /hs/ui/deck/results-focused-row). */
  panel = HS_DECK_PANEL (hs_window_get_deck_panel (window));
  {
    HsResultsWindow *results = open_results (window);
    HsResultsRow *row = hs_results_model_get_row (hs_results_window_get_model (results), 0);
    HsDeckCase *item;

    g_assert_true (hs_results_window_add_row_to_deck (results, 0));
    g_assert_cmpuint (n_cases (window), ==, 4);
    item = case_at (hs_window_get_deck (window), 3);
    g_assert_cmpstr (item->instance, ==, hs_results_row_get_instance (row));
    g_assert_cmpstr (((HsDeckModel *) g_ptr_array_index (item->models, 0))->name, ==,
                     hs_results_row_get_model (row));
    g_assert_nonnull (item->map_sha256);   /* the row's map, checked when opened */
    g_assert_cmpstr (hs_instance_find_sentence (hs_dataset_find_instance (hs_window_get_dataset (window),
                                                                          item->instance),
                                                hs_results_row_get_sentence (row))->text,
                     ==, item->sentence_text);
    gtk_window_close (GTK_WINDOW (results));
    /* Not a case this deck wants: deleted (the undo bar comes up). */
    g_assert_cmpuint (hs_deck_panel_get_selected (panel), ==, 3);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "deck.delete", NULL));
    g_assert_cmpuint (n_cases (window), ==, 3);
  }

  /* Reorder with the keyboard's actions: the comparison first. */
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (panel)));
  hs_deck_panel_select (panel, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "deck.move-up", NULL));
  g_assert_cmpuint (hs_deck_panel_get_selected (panel), ==, 0);
  g_assert_cmpstr (case_at (hs_window_get_deck (window), 0)->instance, ==, "hand-02");
  g_assert_cmpstr (case_at (hs_window_get_deck (window), 1)->instance, ==, "hand-01");
  /* A note, a duplicate deleted again, and a delete undone. */
  hs_deck_panel_edit_note (panel, 0, "Ignores the word left.");
  hs_deck_panel_select (panel, 2);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "deck.duplicate", NULL));
  g_assert_cmpuint (n_cases (window), ==, 4);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "deck.delete", NULL));
  g_assert_cmpuint (n_cases (window), ==, 3);
  hs_deck_panel_select (panel, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "deck.delete", NULL));
  g_assert_cmpuint (n_cases (window), ==, 2);
  g_assert_true (hs_deck_panel_get_undo_visible (panel));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "deck.undo-delete", NULL));
  g_assert_false (hs_deck_panel_get_undo_visible (panel));
  g_assert_cmpuint (n_cases (window), ==, 3);
  g_assert_cmpstr (case_at (hs_window_get_deck (window), 1)->instance, ==, "hand-01");
  g_assert_cmpuint (hs_deck_panel_get_n_cases (panel), ==, 3);

  /* Saved on every change: the file says the same, read independently. */
  saved = hs_deck_load (deck_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (saved->cases->len, ==, 3);
  g_assert_cmpstr (saved->dataset, ==, ".");
  g_assert_cmpint (case_at (saved, 0)->view, ==, HS_DECK_VIEW_COMPARE);
  g_assert_cmpstr (case_at (saved, 0)->note, ==, "Ignores the word left.");
  g_assert_cmpint (case_at (saved, 1)->view, ==, HS_DECK_VIEW_SINGLE);
  g_assert_cmpint (case_at (saved, 2)->view, ==, HS_DECK_VIEW_GRID);

  /* "Restart": a new window restores the last dataset and the last deck. */
  hs_ui_destroy_window (window);
  window = hs_ui_new_window ();
  g_assert_true (hs_window_restore_last_dataset (window));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_restore_last_deck (window));
  hs_ui_settle ();
  panel = HS_DECK_PANEL (hs_window_get_deck_panel (window));
  g_assert_cmpuint (hs_deck_panel_get_n_cases (panel), ==, 3);
  g_assert_cmpstr (hs_deck_panel_get_note (panel, 0), ==, "Ignores the word left.");
  g_assert_nonnull (strstr (hs_deck_panel_get_title_of (panel, 1), "hand-01"));

  /* Opening case 2 restores its view exactly. */
  state = hs_canvas_get_view_state (HS_CANVAS (hs_window_get_canvas (window)));
  hs_view_state_set_colormap (state, "jet");
  hs_view_state_set_opacity (state, 0.2);
  g_assert_true (hs_window_select_instance (window, "hand-03"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_open_case (window, 1));
  hs_ui_wait_until (window_idle, window);
  hs_ui_settle ();
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, "hand-01");
  g_assert_cmpstr (hs_prompt_panel_get_prompt (hs_window_get_prompt_panel (window)), ==, HS_UI_S0);
  g_assert_cmpstr (hs_window_get_model (window), ==, "grounded");
  g_assert_cmpstr (hs_view_state_get_colormap (state), ==, "viridis");
  g_assert_cmpfloat (hs_view_state_get_opacity (state), ==, 0.7);

  /* Zoom and pan come back: a zoomed view added, the view fitted, the case
   * opened again (the same canvas size: the same transform). */
  {
    HsCanvas *canvas = HS_CANVAS (hs_window_get_canvas (window));
    HsCanvasTransform before, after;
    HsDeckCase *item;

    /* about a point up and left of the middle, whatever the panels leave
     * the canvas, and far enough in that the image overflows it both ways
     * (a canvas keeps an image it holds whole centred) */
    hs_canvas_zoom_to (canvas, hs_canvas_get_zoom (canvas) * 6, gtk_widget_get_width (GTK_WIDGET (canvas)) * 0.4,
                       gtk_widget_get_height (GTK_WIDGET (canvas)) * 0.4);
    hs_ui_settle ();
    hs_canvas_get_transform (canvas, &before);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.deck-add", NULL));
    g_assert_cmpuint (n_cases (window), ==, 4);
    item = case_at (hs_window_get_deck (window), 3);
    g_assert_cmpfloat (item->zoom, >, 2.0);
    g_assert_true (item->center_x < 0.5 && item->center_y < 0.5);
    hs_canvas_zoom_fit (canvas);
    g_assert_true (hs_window_open_case (window, 3));
    hs_ui_wait_until (window_idle, window);
    hs_ui_settle ();
    hs_canvas_get_transform (canvas, &after);
    g_assert_cmpfloat_with_epsilon (after.zoom, before.zoom, 1e-9 * before.zoom);
    g_assert_cmpfloat_with_epsilon (after.offset_x, before.offset_x, 1e-6);
    g_assert_cmpfloat_with_epsilon (after.offset_y, before.offset_y, 1e-6);
    hs_deck_panel_select (panel, 3);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "deck.delete", NULL));
    g_assert_cmpuint (n_cases (window), ==, 3);
    g_assert_true (hs_window_open_case (window, 1));
    hs_ui_wait_until (window_idle, window);
    hs_ui_settle ();
  }

  /* The viewer's renders of the comparison (case 1) and the grid (case 3),
   * to hold the presentation's against; then case 2 in the viewer again. */
  for (guint i = 0; i < 3; i += 2)
    {
      HsDeckCase *item = case_at (hs_window_get_deck (window), i);

      g_assert_cmpfloat (item->zoom, ==, 1.0);   /* fitted: see render_cells */
      g_assert_cmpfloat (item->center_x, ==, 0.5);
      g_assert_cmpfloat (item->center_y, ==, 0.5);
    }
  viewer_pair = render_viewer_case (window, 0);
  g_assert_cmpuint (viewer_pair->len, ==, 3);   /* A | B | A − B */
  viewer_grid = render_viewer_case (window, 2);
  g_assert_cmpuint (viewer_grid->len, >=, 2);
  g_assert_true (hs_window_open_case (window, 1));
  hs_ui_wait_until (window_idle, window);
  hs_ui_settle ();

  /* Present from the first case. */
  presentation = hs_window_present_deck (window, 0);
  g_assert_nonnull (presentation);
  /* A slide of 1920 × 1080 whatever the test screen (no window manager
   * makes it full-screen here). */
  gtk_window_unfullscreen (GTK_WINDOW (presentation));
  gtk_widget_set_visible (GTK_WIDGET (presentation), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (presentation), 1920, 1080);
  gtk_window_present (GTK_WINDOW (presentation));
  hs_ui_wait_until (hs_ui_is_mapped, presentation);
  hs_ui_wait_until (is_slide_sized, presentation);
  step.presentation = presentation;
  step.index = 0;
  hs_ui_wait_until (presentation_at, &step);
  hs_ui_settle ();
  g_assert_cmpstr (hs_presentation_window_get_counter (presentation), ==, "1 / 3");
  g_assert_cmpstr (hs_presentation_window_get_sentence (presentation), ==, HS_UI_S0);
  g_assert_cmpint (hs_compare_view_get_mode (hs_presentation_window_get_compare_view (presentation)), ==,
                   HS_COMPARE_MODE_PAIR);

  /* The slide as the audience sees it (tests/README: looked at). */
  {
    g_autoptr(GdkTexture) texture = hs_ui_render (GTK_WIDGET (presentation));
    g_autofree char *shot = g_build_filename (g_getenv ("HS_BUILD_DIR") ? g_getenv ("HS_BUILD_DIR") : ".",
                                              "ui-deck-presentation.png", NULL);

    g_assert_cmpint (gdk_texture_get_width (texture), ==, 1920);
    g_assert_cmpint (gdk_texture_get_height (texture), ==, 1080);
    g_assert_true (gdk_texture_save_to_png (texture, shot));
    g_test_message ("presentation snapshot: %s", shot);
  }
  /* The comparison's pixels are the viewer's, cell by cell (before B blinks it). */
  assert_cells_equal (presentation, viewer_pair);
  /* B blinks A/B; Right goes to case 2. */
  press_and_wait (presentation, "b", blink_is, TRUE);
  press_and_wait (presentation, "Right", presentation_at, 1);
  g_assert_cmpstr (hs_presentation_window_get_counter (presentation), ==, "2 / 3");
  {
    /* The single view's pixels are the viewer's at the same size (one
     * neither widget has, so both draw through the same path). */
    HsCanvas *shown = hs_presentation_window_get_canvas (presentation);
    HsCanvas *viewer = HS_CANVAS (hs_window_get_canvas (window));
    int w = RENDER_W, h = RENDER_H;
    cairo_surface_t *a, *b;

    g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (shown)), !=, w);
    g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (viewer)), !=, w);
    a = hs_canvas_render_surface (shown, w, h);
    b = hs_canvas_render_surface (viewer, w, h);
    g_assert_cmpuint (differing_rows (a, b, w, h), ==, 0);
    cairo_surface_destroy (a);
    cairo_surface_destroy (b);
  }
  /* H hides the heatmap, G the ground truth, and back. */
  press_and_wait (presentation, "h", heatmap_is, FALSE);
  g_assert_false (hs_view_state_get_show_overlay (hs_canvas_get_view_state (hs_presentation_window_get_canvas (presentation))));
  press_and_wait (presentation, "h", heatmap_is, TRUE);
  press_and_wait (presentation, "g", truth_is, FALSE);
  g_assert_false (hs_view_state_get_show_boxes (hs_canvas_get_view_state (hs_presentation_window_get_canvas (presentation))));
  press_and_wait (presentation, "g", truth_is, TRUE);
  /* Page Down to the grid, Left and Page Up back. */
  press_and_wait (presentation, "Next", presentation_at, 2);
  g_assert_cmpint (hs_compare_view_get_mode (hs_presentation_window_get_compare_view (presentation)), ==,
                   HS_COMPARE_MODE_GRID);
  /* The grid's pixels are the viewer's, cell by cell. */
  assert_cells_equal (presentation, viewer_grid);
  press_and_wait (presentation, "Left", presentation_at, 1);
  press_and_wait (presentation, "Prior", presentation_at, 0);
  /* Escape leaves. */
  g_object_add_weak_pointer (G_OBJECT (presentation), (gpointer *) &presentation);
  press (GTK_WINDOW (presentation), "Escape");
  hs_ui_wait_until (is_gone, &presentation);

  hs_ui_destroy_window (window);
}

/* A case whose map is not the one it was saved with is named when it is
 * opened, not shown as if it were the same picture (the saved hash is
 * altered here; a replaced map file in the dataset gives the same), and the
 * unchanged case opens without a message. */
static void
test_changed_map (void)
{
  g_autofree char *root = NULL;
  g_autofree char *deck_path = NULL;
  g_autoptr(HsDeck) deck = NULL;
  g_autoptr(GError) error = NULL;
  HsErrorBar *bar;
  HsWindow *window;
  const char *text;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  deck_path = g_build_filename (root, "demo.hsdeck", NULL);
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  g_assert_true (hs_window_select_instance (window, "hand-01"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_select_model (window, "grounded"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.deck-add", NULL));
  g_assert_cmpstr (hs_window_get_deck_path (window), ==, deck_path);
  g_assert_nonnull (case_at (hs_window_get_deck (window), 0)->map_sha256);
  bar = hs_window_get_error_bar (window);
  hs_error_bar_clear (bar);

  /* Away and back: the same map, no message. */
  g_assert_true (hs_window_select_instance (window, "hand-02"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_open_case (window, 0));
  hs_ui_wait_until (window_idle, window);
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, "hand-01");
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 0);

  /* The deck as saved with another map. */
  deck = hs_deck_load (deck_path, &error);
  g_assert_no_error (error);
  g_free (case_at (deck, 0)->map_sha256);
  case_at (deck, 0)->map_sha256 = g_strnfill (64, 'a');
  g_assert_true (hs_deck_save (deck, deck_path, &error));
  g_assert_no_error (error);
  g_assert_true (hs_window_open_deck (window, deck_path, &error));
  g_assert_no_error (error);
  g_assert_true (hs_window_select_instance (window, "hand-02"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_open_case (window, 0));
  hs_ui_wait_until (window_idle, window);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  text = hs_error_bar_get_text (bar);
  g_assert_nonnull (strstr (text, "demo.hsdeck"));
  g_assert_nonnull (strstr (text, "case 1: The map of model “grounded” changed since the case was saved"));

  hs_ui_destroy_window (window);
}


static gboolean
view_idle (gpointer view)
{
  return !hs_compare_view_get_busy (view);
}

/* The compare window `kind` of the window's case, its maps in, added to the deck. */
static void
add_compare (HsWindow *window, const char *kind)
{
  GtkWindow *compare = open_compare (window, kind);

  hs_ui_wait_until (view_idle, hs_compare_window_get_view (compare));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (compare), "compare-window.deck-add", NULL));
  gtk_window_destroy (compare);
  hs_ui_settle ();
}

/* Opens case `index` from another instance, waits until its view (and any
 * compare window) is in, and closes the compare windows again. */
static void
open_case_from_elsewhere (HsWindow *window, guint index)
{
  GtkWindow *compare;

  g_assert_true (hs_window_select_instance (window, "hand-00"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_open_case (window, index));
  hs_ui_wait_until (window_idle, window);
  compare = find_compare_window (window);
  if (compare != NULL)
    {
      hs_ui_wait_until (view_idle, hs_compare_window_get_view (compare));
      hs_ui_settle ();
      gtk_window_destroy (compare);
    }
  hs_ui_settle ();
}

static gboolean
live_idle (gpointer window)
{
  return !hs_window_get_loading (window) && !hs_window_get_live_busy (window);
}

/* The compare and grid cases check every map they saved a hash for, in the
 * window and in presentation mode: a replaced map is named by its side or
 * model, a missing one by its cell; the unchanged cases open silently. */
static void
test_changed_compare (void)
{
  g_autofree char *root = NULL;
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  HsPresentationWindow *presentation;
  HsErrorBar *bar;
  HsWindow *window;
  HsDeckCase *item;
  Step step;
  const double moved[] = { 7, 3, 2 };

  if (hs_ui_skip_without_display ())
    return;
  g_assert_nonnull (xdotool);
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  g_assert_true (hs_window_select_instance (window, "hand-02"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_select_model (window, "grounded"));
  hs_ui_wait_until (window_idle, window);
  add_compare (window, "pair");
  g_assert_true (hs_window_select_instance (window, "hand-03"));
  hs_ui_wait_until (window_idle, window);
  add_compare (window, "grid");
  g_assert_cmpuint (n_cases (window), ==, 2);

  /* What was saved: the swap pair of one model, and the grid's models in
   * the view's order, each map hashed alone as well. */
  item = case_at (hs_window_get_deck (window), 0);
  g_assert_true (item->swap);
  g_assert_cmpuint (item->models->len, ==, 1);
  g_assert_cmpstr (((HsDeckModel *) g_ptr_array_index (item->models, 0))->name, ==, "grounded");
  g_assert_nonnull (item->map_sha256);
  g_assert_cmpuint (g_strv_length (item->maps_sha256), ==, 2);
  item = case_at (hs_window_get_deck (window), 1);
  g_assert_false (item->swap);
  g_assert_cmpuint (item->models->len, >=, 2);
  g_assert_cmpstr (((HsDeckModel *) g_ptr_array_index (item->models, 0))->name, ==, "blind");
  g_assert_cmpstr (((HsDeckModel *) g_ptr_array_index (item->models, 1))->name, ==, "grounded");
  g_assert_nonnull (item->map_sha256);
  g_assert_cmpuint (g_strv_length (item->maps_sha256), ==, item->models->len);

  /* Unchanged: both open without a message. */
  bar = hs_window_get_error_bar (window);
  hs_error_bar_clear (bar);
  open_case_from_elsewhere (window, 0);
  open_case_from_elsewhere (window, 1);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 0);

  /* B of the pair and the grid's "blind" replaced on disk: each named. */
  hs_ui_write_map (root, "hand-02-s0-swap.npy", 0, moved);
  hs_ui_write_map (root, "hand-03-s0-blind.npy", 0, moved);
  open_case_from_elsewhere (window, 0);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "demo.hsdeck"));
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar),
                            "case 1: The map “B: grounded · swapped left/right” changed since the case was saved"));
  open_case_from_elsewhere (window, 1);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 2);
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "case 2: The map “blind” changed since the case was saved"));
  g_assert_null (strstr (hs_error_bar_get_text (bar), "grounded"));

  /* The same in presentation mode, case by case. */
  hs_error_bar_clear (bar);
  presentation = hs_window_present_deck (window, 0);
  g_assert_nonnull (presentation);
  hs_ui_wait_until (hs_ui_is_mapped, presentation);
  step.presentation = presentation;
  step.index = 0;
  hs_ui_wait_until (presentation_at, &step);
  hs_ui_wait_until (view_idle, hs_presentation_window_get_compare_view (presentation));
  hs_ui_settle ();
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "case 1: The map “B: grounded · swapped left/right” changed"));
  press_and_wait (presentation, "Right", presentation_at, 1);
  hs_ui_wait_until (view_idle, hs_presentation_window_get_compare_view (presentation));
  hs_ui_settle ();
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 2);
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "case 2: The map “blind” changed"));
  gtk_window_destroy (GTK_WINDOW (presentation));
  hs_ui_settle ();

  /* A map file gone: the grid's cell says why, and the case names it. */
  {
    g_autofree char *path = g_build_filename (root, "maps", "hand-03-s0-blind.npy", NULL);

    g_assert_cmpint (g_unlink (path), ==, 0);
  }
  hs_error_bar_clear (bar);
  open_case_from_elsewhere (window, 1);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "case 2: The map “blind” is missing: "));
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "hand-03-s0-blind.npy"));

  hs_ui_destroy_window (window);
}

/* A case of a live model attends again when opened and says so when the map
 * differs from the one saved (the saved hashes are altered here, as a
 * changed model's weights would make them): the single view and B of a
 * live swap pair, in the window and in presentation mode. */
static void
test_live_reattended (void)
{
  g_autofree char *root = NULL;
  g_autofree char *deck_path = NULL;
  g_autofree char *weights = hs_model_find_builtin ("grounded");
  g_autoptr(HsDeck) deck = NULL;
  g_autoptr(GError) error = NULL;
  HsPresentationWindow *presentation;
  HsErrorBar *bar;
  HsWindow *window;
  HsDeckCase *item;
  Step step;

  if (hs_ui_skip_without_display ())
    return;
  if (weights == NULL)
    {
      g_test_skip ("the built-in model weights (data/models) are missing");
      return;
    }
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  deck_path = g_build_filename (root, "demo.hsdeck", NULL);
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  g_assert_true (hs_window_select_instance (window, "hand-01"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_select_model (window, "grounded (live)"));
  hs_ui_wait_until (live_idle, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.deck-add", NULL));
  add_compare (window, "pair");
  g_assert_cmpuint (n_cases (window), ==, 2);
  item = case_at (hs_window_get_deck (window), 0);
  g_assert_true (((HsDeckModel *) g_ptr_array_index (item->models, 0))->live);
  g_assert_nonnull (item->map_sha256);
  item = case_at (hs_window_get_deck (window), 1);
  g_assert_true (item->swap);
  g_assert_true (((HsDeckModel *) g_ptr_array_index (item->models, 0))->live);
  g_assert_cmpuint (g_strv_length (item->maps_sha256), ==, 2);

  /* Unchanged: silent. */
  bar = hs_window_get_error_bar (window);
  hs_error_bar_clear (bar);
  open_case_from_elsewhere (window, 0);
  hs_ui_wait_until (live_idle, window);
  hs_ui_settle ();
  open_case_from_elsewhere (window, 1);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 0);

  /* As if the model had changed since: the single map, and B of the pair. */
  deck = hs_deck_load (deck_path, &error);
  g_assert_no_error (error);
  g_free (case_at (deck, 0)->map_sha256);
  case_at (deck, 0)->map_sha256 = g_strnfill (64, 'a');
  g_free (case_at (deck, 1)->map_sha256);
  case_at (deck, 1)->map_sha256 = g_strnfill (64, 'b');
  g_free (case_at (deck, 1)->maps_sha256[1]);
  case_at (deck, 1)->maps_sha256[1] = g_strnfill (64, 'b');
  g_assert_true (hs_deck_save (deck, deck_path, &error));
  g_assert_no_error (error);
  g_assert_true (hs_window_open_deck (window, deck_path, &error));
  g_assert_no_error (error);
  open_case_from_elsewhere (window, 0);
  hs_ui_wait_until (live_idle, window);
  hs_ui_settle ();
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "case 1: Attended again by the live model: the map “grounded” differs from the one saved"));
  open_case_from_elsewhere (window, 1);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 2);
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "case 2: Attended again by the live model: the map “B: "));
  g_assert_null (strstr (hs_error_bar_get_text (bar), "“A: "));

  /* Presentation mode says the same. */
  hs_error_bar_clear (bar);
  g_assert_true (hs_window_select_instance (window, "hand-00"));
  hs_ui_wait_until (live_idle, window);
  presentation = hs_window_present_deck (window, 0);
  g_assert_nonnull (presentation);
  hs_ui_wait_until (hs_ui_is_mapped, presentation);
  step.presentation = presentation;
  step.index = 0;
  hs_ui_wait_until (presentation_at, &step);
  hs_ui_wait_until (live_idle, window);
  hs_ui_settle ();
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "case 1: Attended again by the live model"));
  press_and_wait (presentation, "Right", presentation_at, 1);
  hs_ui_wait_until (view_idle, hs_presentation_window_get_compare_view (presentation));
  hs_ui_settle ();
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 2);
  g_assert_nonnull (strstr (hs_error_bar_get_text (bar), "case 2: Attended again by the live model: the map “B: "));
  gtk_window_destroy (GTK_WINDOW (presentation));
  hs_ui_settle ();

  hs_ui_destroy_window (window);
}

static guint
count_in_bar (HsErrorBar *bar, const char *what)
{
  /* the bar shows its last message; the test adds one at a time */
  const char *text = hs_error_bar_get_text (bar);
  return text != NULL && strstr (text, what) != NULL;
}

/* The deck's dataset: the manifest's hash is recorded when the app makes a
 * deck and a changed manifest is said once per deck opened, naming the
 * file; a moved dataset, another dataset open, an instance or a model gone
 * are named and no case of them is shown. */
static void
test_dataset_changed (void)
{
  g_autofree char *top = hs_test_make_tmpdir ();
  g_autofree char *made = hs_ui_make_dataset ();
  g_autofree char *root = g_build_filename (top, "data", NULL);
  g_autofree char *moved = g_build_filename (top, "data-moved", NULL);
  g_autofree char *deck_path = g_build_filename (top, "talk.hsdeck", NULL);
  g_autofree char *manifest = NULL;
  g_autofree char *other = NULL;
  g_autofree char *text = NULL;
  g_autoptr(HsDeck) deck = NULL;
  g_autoptr(GError) error = NULL;
  HsErrorBar *bar;
  HsWindow *window;
  guint before;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  g_assert_cmpint (g_rename (made, root), ==, 0);
  manifest = g_build_filename (root, "heatscope.json", NULL);
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  bar = hs_window_get_error_bar (window);
  g_assert_true (hs_window_new_deck (window, deck_path, &error));
  g_assert_no_error (error);
  g_assert_true (hs_window_select_instance (window, "hand-01"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_select_model (window, "grounded"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.deck-add", NULL));
  deck = hs_deck_load (deck_path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (deck->dataset, ==, "data");
  {
    /* the hash of the manifest's bytes, computed here independently */
    g_autofree char *bytes = NULL;
    gsize len = 0;
    g_autofree char *expected = NULL;

    g_assert_true (g_file_get_contents (manifest, &bytes, &len, NULL));
    expected = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) bytes, len);
    g_assert_cmpstr (deck->manifest_sha256, ==, expected);
  }
  hs_error_bar_clear (bar);

  /* The manifest changed (one more line): said once, when the deck opens,
   * not again for each case. */
  g_assert_true (g_file_get_contents (manifest, &text, NULL, NULL));
  {
    g_autofree char *more = g_strconcat (text, "\n", NULL);
    g_assert_true (g_file_set_contents (manifest, more, -1, NULL));
  }
  g_assert_true (hs_window_open_deck (window, deck_path, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  g_assert_true (count_in_bar (bar, "talk.hsdeck"));
  g_assert_true (count_in_bar (bar, "the dataset's manifest"));
  g_assert_true (count_in_bar (bar, manifest));
  g_assert_true (count_in_bar (bar, "changed since the deck was saved"));
  open_case_from_elsewhere (window, 0);
  open_case_from_elsewhere (window, 0);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, "hand-01");
  g_assert_true (g_file_set_contents (manifest, text, -1, NULL));

  /* The dataset moved: the deck says where it looked; no case opens. */
  hs_error_bar_clear (bar);
  g_assert_cmpint (g_rename (root, moved), ==, 0);
  g_assert_true (hs_window_open_deck (window, deck_path, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  g_assert_true (count_in_bar (bar, "talk.hsdeck: the deck's dataset"));
  g_assert_true (count_in_bar (bar, "is missing or moved"));
  g_assert_true (count_in_bar (bar, root));
  g_assert_false (hs_window_open_case (window, 0));
  g_assert_cmpint (g_rename (moved, root), ==, 0);

  /* Another dataset open: named, and its hand-01 is not shown. */
  other = hs_ui_make_dataset ();
  hs_ui_open_path (window, other);
  hs_error_bar_clear (bar);
  g_assert_true (hs_window_open_deck (window, deck_path, &error));
  g_assert_no_error (error);
  g_assert_true (hs_window_select_instance (window, "hand-00"));
  hs_ui_wait_until (window_idle, window);
  g_assert_false (hs_window_open_case (window, 0));
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, "hand-00");
  g_assert_true (count_in_bar (bar, "the deck shows the dataset"));
  g_assert_true (count_in_bar (bar, other));

  /* The deck's own dataset again: an instance and a model gone are named. */
  hs_ui_open_path (window, root);
  g_free (case_at (deck, 0)->instance);
  case_at (deck, 0)->instance = g_strdup ("hand-09");
  {
    HsDeckCase *ghost = hs_deck_case_copy (case_at (deck, 0));

    g_free (ghost->instance);
    ghost->instance = g_strdup ("hand-02");
    g_ptr_array_set_size (ghost->models, 0);
    hs_deck_case_add_model (ghost, "ghost", FALSE);
    g_ptr_array_add (deck->cases, ghost);
  }
  g_assert_true (hs_deck_save (deck, deck_path, &error));
  g_assert_no_error (error);
  hs_error_bar_clear (bar);
  g_assert_true (hs_window_open_deck (window, deck_path, &error));
  g_assert_no_error (error);
  before = hs_error_bar_get_n_errors (bar);
  g_assert_false (hs_window_open_case (window, 0));
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, before + 1);
  g_assert_true (count_in_bar (bar, "case 1: The dataset has no instance “hand-09” any more"));
  g_assert_false (hs_window_open_case (window, 1));
  g_assert_true (count_in_bar (bar, "case 2: The dataset has no model “ghost” any more"));

  hs_ui_destroy_window (window);
}


typedef struct {
  HsResultsWindow *results;
  guint            row;
} FocusWait;

static gboolean
focused_row_is (gpointer data)
{
  FocusWait *wait = data;
  return hs_results_window_get_focused_row (wait->results) == wait->row;
}

static gboolean
has_n_cases (gpointer data)
{
  FocusWait *wait = data;   /* row: the number of cases wanted */
  HsWindow *window = HS_WINDOW (gtk_window_get_transient_for (GTK_WINDOW (wait->results)));
  return n_cases (window) == wait->row;
}

/* Ctrl+Shift+A in the results table adds the row the keyboard is on, not
 * the row opened last (real key presses: the focus moves with Down). */
static void
test_results_focused_row (void)
{
  g_autofree char *root = NULL;
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  HsResultsWindow *results;
  HsResultsModel *model;
  HsResultsRow *row;
  HsWindow *window;
  HsDeckCase *item;
  GtkWidget *view;
  FocusWait wait;
  guint first;

  if (hs_ui_skip_without_display ())
    return;
  g_assert_nonnull (xdotool);
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  hs_ui_wait_until (window_idle, window);
  results = open_results (window);
  model = hs_results_window_get_model (results);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), >=, 3);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (results)) == GTK_WINDOW (window));
  view = hs_ui_find_widget (GTK_WIDGET (results), GTK_TYPE_COLUMN_VIEW);
  g_assert_nonnull (view);

  /* Row 0 opened (as a click does), then the keyboard on another row. */
  g_signal_emit_by_name (view, "activate", 0);
  hs_ui_wait_until (window_idle, window);
  gtk_window_present (GTK_WINDOW (results));
  hs_ui_settle ();
  g_assert_true (gtk_widget_grab_focus (view));
  hs_ui_settle ();
  first = hs_results_window_get_focused_row (results);
  g_assert_cmpuint (first, !=, G_MAXUINT);
  wait.results = results;
  wait.row = first + 1;
  press (GTK_WINDOW (results), "Down");
  hs_ui_wait_until (focused_row_is, &wait);
  g_assert_cmpuint (wait.row, !=, 0);
  press (GTK_WINDOW (results), "ctrl+shift+a");
  wait.row = 1;
  hs_ui_wait_until (has_n_cases, &wait);

  row = hs_results_model_get_row (model, first + 1);
  item = case_at (hs_window_get_deck (window), 0);
  g_assert_cmpstr (item->instance, ==, hs_results_row_get_instance (row));
  g_assert_cmpstr (((HsDeckModel *) g_ptr_array_index (item->models, 0))->name, ==,
                   hs_results_row_get_model (row));
  g_assert_cmpstr (hs_instance_find_sentence (hs_dataset_find_instance (hs_window_get_dataset (window),
                                                                        item->instance),
                                              hs_results_row_get_sentence (row))->text,
                   ==, item->sentence_text);
  /* not row 0's case (instance, sentence and model differ somewhere) */
  {
    HsResultsRow *opened = hs_results_model_get_row (model, 0);

    g_assert_false (g_str_equal (hs_results_row_get_instance (opened), hs_results_row_get_instance (row)) &&
                    g_str_equal (hs_results_row_get_sentence (opened), hs_results_row_get_sentence (row)) &&
                    g_str_equal (hs_results_row_get_model (opened), hs_results_row_get_model (row)));
  }
  gtk_window_destroy (GTK_WINDOW (results));
  hs_ui_destroy_window (window);
}


static gboolean
step_is (gpointer data)
{
  Step *step = data;   /* index: the wanted HsRevealStep */
  return hs_presentation_window_get_reveal_step (step->presentation) == (HsRevealStep) step->index;
}

/* A case set to present in steps (the panel's deck.toggle-reveal, saved
 * in the file) shows image and sentence first; space reveals the heatmap,
 * then the ground truth, then goes to the next case. */
static void
test_reveal (void)
{
  g_autofree char *root = NULL;
  g_autofree char *deck_path = NULL;
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  g_autoptr(HsDeck) saved = NULL;
  g_autoptr(GError) error = NULL;
  HsPresentationWindow *presentation;
  HsDeckPanel *panel;
  HsWindow *window;
  Step step;

  if (hs_ui_skip_without_display ())
    return;
  g_assert_nonnull (xdotool);
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  deck_path = g_build_filename (root, "demo.hsdeck", NULL);
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  g_assert_true (hs_window_select_instance (window, "hand-01"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (hs_window_select_model (window, "grounded"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.deck-add", NULL));
  g_assert_true (hs_window_select_instance (window, "hand-02"));
  hs_ui_wait_until (window_idle, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.deck-add", NULL));
  g_assert_cmpuint (n_cases (window), ==, 2);

  panel = HS_DECK_PANEL (hs_window_get_deck_panel (window));
  hs_deck_panel_select (panel, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (panel), "deck.toggle-reveal", NULL));
  g_assert_true (case_at (hs_window_get_deck (window), 0)->reveal);
  g_assert_false (case_at (hs_window_get_deck (window), 1)->reveal);
  g_assert_nonnull (strstr (hs_deck_panel_get_title_of (panel, 0), "in steps"));
  saved = hs_deck_load (deck_path, &error);
  g_assert_no_error (error);
  g_assert_true (case_at (saved, 0)->reveal);

  presentation = hs_window_present_deck (window, 0);
  g_assert_nonnull (presentation);
  hs_ui_wait_until (hs_ui_is_mapped, presentation);
  step.presentation = presentation;
  step.index = 0;
  hs_ui_wait_until (presentation_at, &step);
  hs_ui_settle ();
  g_assert_cmpint (hs_presentation_window_get_reveal_step (presentation), ==, HS_REVEAL_IMAGE);
  g_assert_false (hs_presentation_window_get_heatmap_shown (presentation));
  g_assert_false (hs_presentation_window_get_truth_shown (presentation));
  g_assert_false (hs_view_state_get_show_overlay (hs_canvas_get_view_state (hs_presentation_window_get_canvas (presentation))));
  press_and_wait (presentation, "space", step_is, HS_REVEAL_HEATMAP);
  g_assert_true (hs_presentation_window_get_heatmap_shown (presentation));
  g_assert_false (hs_presentation_window_get_truth_shown (presentation));
  press_and_wait (presentation, "space", step_is, HS_REVEAL_TRUTH);
  g_assert_true (hs_presentation_window_get_truth_shown (presentation));
  g_assert_true (hs_view_state_get_show_boxes (hs_canvas_get_view_state (hs_presentation_window_get_canvas (presentation))));
  g_assert_cmpuint (hs_presentation_window_get_index (presentation), ==, 0);
  /* the next space: the next case, all shown at once (no reveal) */
  press_and_wait (presentation, "space", presentation_at, 1);
  g_assert_true (hs_presentation_window_get_heatmap_shown (presentation));
  gtk_window_destroy (GTK_WINDOW (presentation));
  hs_ui_settle ();
  hs_ui_destroy_window (window);
}

/* ---- reorder by drag ------------------------------------------------------- */

typedef struct {
  gboolean began;
  gboolean ended;
} DragSeen;

static void
on_test_drag_begin (GtkDragSource *source, GdkDrag *drag, DragSeen *seen)
{
  seen->began = TRUE;
}

static void
on_test_drag_end (GtkDragSource *source, GdkDrag *drag, gboolean delete_data, DragSeen *seen)
{
  seen->ended = TRUE;
}

static GtkDragSource *
row_drag_source (GtkWidget *row)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (row);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DRAG_SOURCE (controller))
        return GTK_DRAG_SOURCE (controller);
    }
  return NULL;
}

/* Where the middle of `widget` (dy pixels down) is in its X window. */
static void
point_in_window (GtkWidget *widget, double dy, int *x, int *y)
{
  GtkNative *native = gtk_widget_get_native (widget);
  graphene_point_t in = GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0,
                                             gtk_widget_get_height (widget) / 2.0 + dy);
  graphene_point_t out;
  double sx, sy;

  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &in, &out));
  gtk_native_get_surface_transform (native, &sx, &sy);
  *x = (int) (out.x + sx);
  *y = (int) (out.y + sy);
}

/* Real pointer events (xdotool, XTest): with `command` NULL the pointer
 * moves to (x, y) in the X window of `window`, else button 1 goes down
 * ("mousedown") or up ("mouseup") where it is. */
static void
pointer (GtkWindow *window, const char *command, int x, int y)
{
  g_autofree char *wid = window_xid (window);
  g_autofree char *sx = g_strdup_printf ("%d", x);
  g_autofree char *sy = g_strdup_printf ("%d", y);
  const char *move[] = { "xdotool", "mousemove", "--sync", "--window", wid, sx, sy, NULL };
  const char *button[] = { "xdotool", command, "1", NULL };

  run_xdotool (command == NULL ? move : button);
  hs_ui_settle ();
}

/* The first row dragged onto the third with the real pointer (press, move
 * past the drag threshold, over the target row, release) puts the first
 * case last, in the panel and in the saved file. */
static void
test_reorder_drag (void)
{
  g_autofree char *root = NULL;
  g_autofree char *deck_path = NULL;
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  const char *ids[] = { "hand-01", "hand-02", "hand-03" };
  g_autoptr(HsDeck) saved = NULL;
  g_autoptr(GError) error = NULL;
  DragSeen seen = { FALSE, FALSE };
  GtkDragSource *source;
  GtkWidget *first, *third;
  HsDeckPanel *panel;
  HsWindow *window;
  int x0, y0, x1, y1;

  if (hs_ui_skip_without_display ())
    return;
  g_assert_nonnull (xdotool);
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  deck_path = g_build_filename (root, "demo.hsdeck", NULL);
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_assert_true (hs_window_select_instance (window, ids[i]));
      hs_ui_wait_until (window_idle, window);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.deck-add", NULL));
    }
  g_assert_cmpuint (n_cases (window), ==, 3);
  panel = HS_DECK_PANEL (hs_window_get_deck_panel (window));
  hs_ui_settle ();
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (panel)));
  first = hs_ui_find_widget (GTK_WIDGET (panel), GTK_TYPE_LIST_BOX_ROW);
  g_assert_nonnull (first);
  third = gtk_widget_get_next_sibling (gtk_widget_get_next_sibling (first));
  g_assert_true (GTK_IS_LIST_BOX_ROW (third));
  g_assert_cmpint (gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (third)), ==, 2);
  source = row_drag_source (first);
  g_assert_nonnull (source);
  g_signal_connect (source, "drag-begin", G_CALLBACK (on_test_drag_begin), &seen);
  g_signal_connect (source, "drag-end", G_CALLBACK (on_test_drag_end), &seen);

  point_in_window (first, 0, &x0, &y0);
  point_in_window (third, 0, &x1, &y1);
  pointer (GTK_WINDOW (window), NULL, x0, y0);
  pointer (GTK_WINDOW (window), "mousedown", 0, 0);
  /* past the drag threshold: the drag begins */
  pointer (GTK_WINDOW (window), NULL, x0, y0 + 12);
  pointer (GTK_WINDOW (window), NULL, x0, y0 + 24);
  hs_ui_wait_until (hs_ui_wait_is_set, &seen.began);
  /* over the third row, then released there */
  pointer (GTK_WINDOW (window), NULL, x1, (y0 + y1) / 2);
  pointer (GTK_WINDOW (window), NULL, x1, y1 - 2);
  pointer (GTK_WINDOW (window), NULL, x1, y1);
  pointer (GTK_WINDOW (window), "mouseup", 0, 0);
  hs_ui_wait_until (hs_ui_wait_is_set, &seen.ended);
  hs_ui_settle ();
  g_signal_handlers_disconnect_by_data (source, &seen);

  g_assert_cmpstr (case_at (hs_window_get_deck (window), 0)->instance, ==, "hand-02");
  g_assert_cmpstr (case_at (hs_window_get_deck (window), 1)->instance, ==, "hand-03");
  g_assert_cmpstr (case_at (hs_window_get_deck (window), 2)->instance, ==, "hand-01");
  g_assert_nonnull (strstr (hs_deck_panel_get_title_of (panel, 2), "hand-01"));
  saved = hs_deck_load (deck_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (saved->cases->len, ==, 3);
  g_assert_cmpstr (case_at (saved, 0)->instance, ==, "hand-02");
  g_assert_cmpstr (case_at (saved, 1)->instance, ==, "hand-03");
  g_assert_cmpstr (case_at (saved, 2)->instance, ==, "hand-01");
  if (g_getenv ("HS_DECK_DRAG_SHOT") != NULL)
    {
      g_autoptr(GdkTexture) texture = hs_ui_render (GTK_WIDGET (window));
      g_assert_true (gdk_texture_save_to_png (texture, g_getenv ("HS_DECK_DRAG_SHOT")));
    }
  hs_ui_destroy_window (window);
}

int
main (int argc, char **argv)
{
  hs_ui_init (&argc, &argv);
  g_test_add_func ("/hs/ui/deck/build-save-restart-present", test_deck);
  g_test_add_func ("/hs/ui/deck/changed-map", test_changed_map);
  g_test_add_func ("/hs/ui/deck/changed-compare", test_changed_compare);
  g_test_add_func ("/hs/ui/deck/live-reattended", test_live_reattended);
  g_test_add_func ("/hs/ui/deck/dataset-changed", test_dataset_changed);
  g_test_add_func ("/hs/ui/deck/results-focused-row", test_results_focused_row);
  g_test_add_func ("/hs/ui/deck/reveal", test_reveal);
  g_test_add_func ("/hs/ui/deck/reorder-drag", test_reorder_drag);
  return g_test_run ();
}
