/* hs-results-model.h — the rows of the results table: every (instance,
 * sentence, model) of a dataset scored exactly as `heatscope-cli metrics`
 * scores it (hs_score_rows_instance), filtered and sorted
 *
 * Scoring runs on a worker thread; rows arrive on the main thread in
 * batches (the first after the first instance), with "progress" and
 * "complete" notified.  The model is the visible rows: a filter and a sort
 * order over every row scored so far, kept as an index array so that
 * sorting 10⁵ rows is one qsort of keys, not 10⁵·log 10⁵ GObject compares.
 * Its items are HsResultsSlot, one per position (hs-results-slot.h says
 * why); hs_results_model_get_row gives the row at a position. */
#pragma once

#include <gio/gio.h>
#include <heatscope/hs-score-rows.h>

#include "hs-results-row.h"

G_BEGIN_DECLS

#define HS_TYPE_RESULTS_MODEL (hs_results_model_get_type ())
G_DECLARE_FINAL_TYPE (HsResultsModel, hs_results_model, HS, RESULTS_MODEL, GObject)

/* Sort columns: the four text columns, then value column k at
 * HS_RESULTS_COLUMN_VALUES + k (hs_score_rows_column_name). */
enum {
  HS_RESULTS_COLUMN_NONE = -1,        /* dataset order (instance, sentence, model) */
  HS_RESULTS_COLUMN_INSTANCE,
  HS_RESULTS_COLUMN_QUERY,
  HS_RESULTS_COLUMN_MODEL,
  HS_RESULTS_COLUMN_SUBSETS,
  HS_RESULTS_COLUMN_VALUES,
};

/* The default protocol's rows of every model with maps in `dataset`, with
 * the deltas of `perturbation` when `perturbed` (seed 0, as the CLI's
 * default).  Scoring starts at hs_results_model_start. */
HsResultsModel       *hs_results_model_new            (HsDataset      *dataset,
                                                       gboolean        perturbed,
                                                       HsPerturbation  perturbation);
void                  hs_results_model_start          (HsResultsModel *self);
/* Stops scoring (the worker ends after its current instance; `wait`: this
 * returns only then, for owners that go away, e.g. before the program
 * exits); the rows scored so far stay, no more arrive. */
void                  hs_results_model_cancel         (HsResultsModel *self,
                                                       gboolean        wait);
HsDataset            *hs_results_model_get_dataset    (HsResultsModel *self);
gboolean              hs_results_model_get_perturbed  (HsResultsModel *self,
                                                       HsPerturbation *perturbation);
const HsScoreRowsJob *hs_results_model_get_job        (HsResultsModel *self);
/* Instances scored / all, in [0, 1]; TRUE once every instance is scored. */
double                hs_results_model_get_progress   (HsResultsModel *self);
gboolean              hs_results_model_get_complete   (HsResultsModel *self);
/* Rows scored so far (visible or not); rows that could not be scored and
 * the first message about one, of the first instance in dataset order with
 * one as it was last scored (NULL when none: hs_results_model_refresh
 * replaces or clears it with the instance's rows). */
guint                 hs_results_model_get_n_scored   (HsResultsModel *self);
guint                 hs_results_model_get_n_failed   (HsResultsModel *self);
const char           *hs_results_model_get_first_problem (HsResultsModel *self);
/* Checks the files every scored instance's rows were scored from (its
 * image, maps and masks: one stat each, stamped before it was scored) in a
 * worker thread — the model is not complete while it runs (checking) — and
 * then the same worker scores the instances whose files changed on disk
 * again (get_n_rescoring says how many, notify::progress when it starts);
 * their new rows take the old ones' place on the main thread when all are
 * scored; complete again then.  More than a few instances changed: the
 * model is stale instead (notify::complete, still not complete): its owner
 * scores the table again from the start.  FALSE when that must happen now:
 * still being scored, or stale. */
gboolean              hs_results_model_refresh        (HsResultsModel *self);
gboolean              hs_results_model_get_checking   (HsResultsModel *self);
/* Instances the check's worker scores again now, 0 when none. */
guint                 hs_results_model_get_n_rescoring (HsResultsModel *self);
gboolean              hs_results_model_get_stale      (HsResultsModel *self);
/* Instances scored again by hs_results_model_refresh. */
guint                 hs_results_model_get_n_rescored (HsResultsModel *self);

/* Undefined values sort last in either direction; ties keep dataset order. */
void                  hs_results_model_set_sort       (HsResultsModel *self,
                                                       int             column,
                                                       gboolean        descending);
/* Visible rows: in every subset of `subsets` (HsSubset flags, 0 = any), of
 * `model` (NULL = any), with wrong_side = 1 when `wrong_side`, and whose
 * ids, model or sentence text contain `text` ignoring case (NULL/"" = any). */
void                  hs_results_model_set_filter     (HsResultsModel *self,
                                                       guint           subsets,
                                                       const char     *model,
                                                       gboolean        wrong_side,
                                                       const char     *text);
/* The visible row at `position` (borrowed), NULL past the end. */
HsResultsRow         *hs_results_model_get_row        (HsResultsModel *self,
                                                       guint           position);
/* The visible rows, in their order, as the metrics CSV (same header). */
char                 *hs_results_model_to_csv         (HsResultsModel *self);

G_END_DECLS
