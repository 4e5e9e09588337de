/* hs-score-rows.h — the rows of `heatscope-cli metrics`: every (sentence,
 * model) of one instance scored, with a perturbation's deltas
 *
 * One implementation for the CLI's metrics command and the app's results
 * table, so the two show exactly the same numbers.  Scoring an instance only
 * reads the dataset and the job: callers score instances on several threads
 * at once (one HsScoreRowsJob, one HsInstanceRows per instance). */
#pragma once

#include <glib.h>
#include "hs-dataset.h"
#include "hs-metrics.h"
#include "hs-perturb.h"
#include "hs-threshold-table.h"

G_BEGIN_DECLS

typedef struct {
  HsDataset          *dataset;
  const char * const *models;        /* the models scored, in output order (sorted) */
  guint               n_models;
  HsScoreOptions      options;       /* options.n_threads is 1: rows never depend on threads */
  const HsMetric     *metrics;       /* hs_protocol_get_metrics (options.protocol) */
  guint               n_metrics;
  guint               subset_filter; /* HsSubset flags; 0 = every row */
  /* A perturbation: rows gain delta_<metric> and sym_kl (n_columns =
   * 2·n_metrics + 1), swap-left-right also swap_response (2·n_metrics + 2).
   * NULL = metrics only (n_columns = n_metrics). */
  HsPerturbContext   *perturb;
  HsPerturbation      perturbation;
  guint64             perturb_seed;
  guint               n_columns;
  /* CheXlocalize's per-class thresholds (chexlocalize protocol), or NULL. */
  HsThresholdTable   *thresholds;
  /* Co-attention: 2 when the rows end in tag_entropy and tag_entropy_norm
   * of the row's map (NAN when it has no tag attention), after every other
   * column (hs_score_rows_job_use_tag_columns); 0 otherwise. */
  guint               n_tag_columns;
} HsScoreRowsJob;

/* Fills `job` for `models` (borrowed, like dataset and perturb: they must
 * outlive the job) under `options` (copied; n_threads set to 1), with the
 * perturbation's columns when `perturb` is not NULL. */
void  hs_score_rows_job_init        (HsScoreRowsJob     *job,
                                     HsDataset          *dataset,
                                     const char * const *models,
                                     guint               n_models,
                                     const HsScoreOptions *options,
                                     HsPerturbContext   *perturb,
                                     HsPerturbation      perturbation,
                                     guint64             perturb_seed);
/* Adds the columns tag_entropy and tag_entropy_norm (n_tag_columns = 2,
 * n_columns + 2) when a map of one of the job's models, in the instances
 * read so far, has a tag attention; returns whether it did.  So a dataset
 * without co-attention keeps its columns, and one with it has them for
 * every row (empty for a map without tags).  Call once, after init. */
gboolean hs_score_rows_job_use_tag_columns (HsScoreRowsJob *job);
/* Name of value column k, as in the metrics CSV header: a metric,
 * delta_<metric>, sym_kl, swap_response, tag_entropy or tag_entropy_norm.  Free with g_free. */
char *hs_score_rows_column_name     (const HsScoreRowsJob *job,
                                     guint                 k);

typedef struct {
  guint  sentence;    /* index in instance->sentences */
  guint  model;       /* index in job->models */
  guint  subsets;     /* HsSubset flags */
  double threshold;   /* the chexlocalize threshold used (NAN = Otsu / none) */
  double values[];    /* job->n_columns; NAN = undefined (empty CSV cell) */
} HsScoreRow;

typedef struct {
  GPtrArray *rows;          /* HsScoreRow*, sentence order then model order */
  /* One line each, without newline, control characters escaped: problems
   * (each counted in n_failed) and notes (a missing perturbed map). */
  GPtrArray *messages;
  guint      n_failed;      /* rows that could not be scored */
  guint      n_table, n_otsu;          /* thresholds: rows by where theirs came from */
  GPtrArray *otsu_classes;  /* class labels (or "(none)") the table has no row for */
} HsInstanceRows;

/* Scores instance `index` of job->dataset into `out` (initialised here). */
void  hs_score_rows_instance        (const HsScoreRowsJob *job,
                                     guint                 index,
                                     HsInstanceRows       *out);
void  hs_instance_rows_clear        (HsInstanceRows       *rows);

/* The metrics CSV: header "instance,query,model,subsets[,threshold],<columns>"
 * and one row (subsets joined with ';', threshold "otsu" when NAN, numbers
 * in hs_metric_format's shortest round-trip text, empty cell = undefined). */
void  hs_score_rows_append_csv_header (const HsScoreRowsJob *job,
                                       GString              *out);
void  hs_score_rows_append_csv_row    (const HsScoreRowsJob *job,
                                       GString              *out,
                                       const char           *instance,
                                       const char           *query,
                                       const HsScoreRow     *row);
/* The subsets of `subsets` as in the CSV: "abnormal;one_lung" ("" = none). */
char *hs_score_rows_subsets_text      (guint                 subsets);

G_END_DECLS
