/* hs-results-window.h — the results table: every (instance, sentence,
 * model) of the dataset with its metrics, and a perturbation's deltas
 *
 * Opened from the main window (win.results, Ctrl+T).  Columns sort by a
 * click on their header; the bar above filters by text, subset, model and
 * wrong side and picks a perturbation; activating a row opens its
 * instance, sentence and model in the main window; Export writes the
 * visible rows as the metrics CSV.  Rows are scored off the main thread
 * (hs-results-model.h) and kept per (dataset, perturbation) until the
 * dataset changes, so closing and reopening the table costs nothing. */
#pragma once

#include <gtk/gtk.h>

#include "hs-results-model.h"
#include "hs-window.h"

G_BEGIN_DECLS

#define HS_TYPE_RESULTS_WINDOW (hs_results_window_get_type ())
G_DECLARE_FINAL_TYPE (HsResultsWindow, hs_results_window, HS, RESULTS_WINDOW, GtkWindow)

/* A window for `main`'s dataset; closing hides it (the rows stay cached). */
HsResultsWindow *hs_results_window_new           (HsWindow        *main);
/* The dataset whose rows are shown: a different one drops every cached row
 * and, while the window is shown, starts scoring again. */
void             hs_results_window_set_dataset   (HsResultsWindow *self,
                                                  HsDataset       *dataset);
/* The rows on screen (NULL without a dataset) and the table widget. */
HsResultsModel  *hs_results_window_get_model     (HsResultsWindow *self);
GtkColumnView   *hs_results_window_get_view      (HsResultsWindow *self);

/* What the bar's widgets do, for tests and the main window: they set the
 * widgets, whose handlers filter.  NULL / "" = any. */
void             hs_results_window_set_search    (HsResultsWindow *self,
                                                  const char      *text);
gboolean         hs_results_window_set_subset    (HsResultsWindow *self,
                                                  const char      *subset);
gboolean         hs_results_window_set_model_filter (HsResultsWindow *self,
                                                  const char      *model);
void             hs_results_window_set_wrong_side (HsResultsWindow *self,
                                                  gboolean         wrong_side);
/* "swap-left-right" etc. (hs_perturbation_to_string), NULL = none. */
gboolean         hs_results_window_set_perturbation (HsResultsWindow *self,
                                                  const char      *perturbation);
/* Sorts by the column named as in the CSV header ("instance", "auroc",
 * "delta_iou@10", ...), as a click on its header does. */
gboolean         hs_results_window_sort_by       (HsResultsWindow *self,
                                                  const char      *column,
                                                  gboolean         descending);
/* Opens visible row `position` in the main window (what activating it does). */
gboolean         hs_results_window_open_row      (HsResultsWindow *self,
                                                  guint            position);
/* Adds visible row `position` to the main window's deck (Ctrl+Shift+A
 * adds the row the keyboard focus is on, else the row opened last). */
gboolean         hs_results_window_add_row_to_deck (HsResultsWindow *self,
                                                  guint            position);
/* The visible row the keyboard focus is on, G_MAXUINT when none is. */
guint            hs_results_window_get_focused_row (HsResultsWindow *self);
/* Writes the visible rows, in order, as the metrics CSV (atomically). */
gboolean         hs_results_window_export_csv    (HsResultsWindow *self,
                                                  const char      *path,
                                                  GError         **error);

G_END_DECLS
