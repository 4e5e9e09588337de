/* hs-summary.h — dataset summaries: means with bootstrap percentile intervals */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_SUMMARY_DEFAULT_RESAMPLES 1000
#define HS_SUMMARY_DEFAULT_SEED      G_GUINT64_CONSTANT (20240229)

/* A table of rows grouped by instance (metrics.md "Dataset summaries").
 *
 * Rows are added group by group (hs_summary_begin_group starts the next
 * instance).  Per column, an instance's value is the mean of its rows that
 * define the column (NAN = undefined); the summary is the mean over the
 * instances that define it, their count, and a 95 % bootstrap percentile
 * interval:
 *
 *   - resample b = 1 … B draws G instance indices with replacement from all
 *     G groups of the table, index = floor(u · G) with u = (x >> 11) · 2⁻⁵³
 *     and x the next output of xoshiro256** seeded by four successive
 *     splitmix64 outputs of `seed` (the same draws for every column);
 *   - its statistic is the mean of the drawn instances that define the
 *     column (an instance drawn twice counts twice); a resample drawing none
 *     is left out;
 *   - the interval is numpy.percentile(statistics, [2.5, 97.5]) (linear
 *     interpolation between order statistics).
 *
 * Identical input, B and seed give bit-identical output on every machine. */
typedef struct _HsSummary HsSummary;

typedef struct {
  guint   n_instances;   /* instances defining the column              */
  guint   n_rows;        /* rows defining the column                   */
  double  mean;          /* NAN when n_instances = 0                   */
  double  ci_low;        /* NAN when no resample defines the column    */
  double  ci_high;
  guint   n_resamples;   /* B as used                                  */
  guint64 seed;
} HsSummaryStat;

HsSummary *hs_summary_new          (guint n_columns);
void       hs_summary_free         (HsSummary *summary);
guint      hs_summary_get_n_columns (const HsSummary *summary);
/* Number of groups with at least one row. */
guint      hs_summary_get_n_groups (const HsSummary *summary);
/* Starts a new instance; rows added before the next call belong to it.  A
 * group without rows is dropped. */
void       hs_summary_begin_group  (HsSummary *summary);
/* n_columns values; NAN (or ±Inf) = undefined. */
void       hs_summary_add          (HsSummary *summary, const double *values);
/* Fills out[n_columns]. */
void       hs_summary_compute      (HsSummary *summary, guint n_resamples, guint64 seed,
                                    HsSummaryStat *out);

/* The generator, exposed for tests and other seeded uses. */
typedef struct {
  guint64 s[4];
} HsSummaryRng;

void       hs_summary_rng_init             (HsSummaryRng *rng, guint64 seed);
guint64    hs_summary_rng_next             (HsSummaryRng *rng);
/* Uniform in [0, 1) with 53 random bits. */
double     hs_summary_rng_uniform          (HsSummaryRng *rng);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsSummary, hs_summary_free)

G_END_DECLS
