/* hs-metrics-private.h — shared state of the metric passes */
#pragma once

#include <math.h>

#include "hs-metrics.h"

G_BEGIN_DECLS

typedef struct _HsNegIndex HsNegIndex;

/* Everything the metric families need about one resampled map s on a grid. */
typedef struct {
  const double *s;          /* P values                      */
  const guint8 *g;          /* P target flags                */
  guint         width, height;
  gsize         n;          /* P                             */
  guint64       n_pos;      /* |G|                           */
  guint64       n_neg;      /* P − |G|                       */
  double        min, max;
  gsize         argmax;     /* first maximum, row-major      */
  /* Values of s in G, sorted ascending; values outside G grouped by the
   * pipeline's top buckets (ascending from bucket to bucket, each bucket
   * sorted only when an order statistic first needs it: neg_index). */
  double       *pos;
  double       *neg;
  HsNegIndex   *neg_index;
  /* 256-bin histogram of u = floor(255·(s − min)/(max − min)), overall and
   * inside G (filled by the statistics pass). */
  guint64       otsu_hist[256];
  guint64       otsu_hist_g[256];
  /* cnr: class means (input of the second pass) and sums of squared
   * deviations (its output). */
  double        mean_in, mean_out;
  double        ss_in, ss_out;
  /* Σ max(s, 0) overall, in G, over the image-left and image-right halves;
   * |G| in the image-left (patient's right) and image-right halves. */
  double        mass_all, mass_in, mass_left, mass_right;
  guint64       target_left, target_right;
  /* auroc's 2·U (ties count half, so twice the Mann–Whitney U is an
   * integer) and ap, from the walk the sort pass takes */
  guint64       two_u;
  double        ap;
  /* When s was resampled band by band (s is NULL until
   * hs_metrics_values makes it). */
  const struct _HsResampler *resampler;
} HsEvalState;

typedef struct _HsResampler HsResampler;

/* Workspace buffers reused across calls on one thread (page faults on fresh
 * 32 MB buffers cost more than the metrics). */
double  *hs_metrics_workspace       (guint slot, gsize n_values);


/* Sorts values[0..n) ascending using scratch (n values) (hs-metrics-sort.c). */
void     hs_metrics_sort_doubles    (double *values, gsize n, double *scratch);

/* The scoring pipeline (hs-metrics-pipeline.c); the order statistics and
 * the metrics made of them are in hs-metrics-threshold.c. */
/* Fills `state` for s on the target's grid — s itself, or (when `resampler`
 * is given) the map resampled band by band as each pass needs it, never
 * kept whole: the single-pass statistics, the values of G sorted ascending
 * and the rest grouped by bucket into `storage` (n doubles, using
 * `scratch`), cnr sums of squares, auroc and ap, and the Otsu histograms.
 * hs_metrics_state_clear frees what it allocates.  bound_lo/hi bound every value of s
 * (NAN: unknown, a pass over s finds them; s is given then). */
/* Every metric is invariant to scaling the map by a positive factor, but a
 * sum of values near 1e308 overflows (entropy 0, cnr 0, null mass).  Sums
 * and sums of squares are therefore taken of v·2^k, where 2^k brings
 * max(|lo|, |hi|) into [1, 2) when it lies outside [2^-256, 2^256] (k = 0
 * otherwise): a power of two scales exactly, and the ratios the metrics are
 * made of come out as exact arithmetic on the map would give them.  The
 * order of the values (ranks, top-k, pointing) is never scaled.  Returns k. */
int      hs_metrics_sum_exponent    (double lo, double hi);

void     hs_metrics_prepare         (HsEvalState *state, const double *s, const HsResampler *resampler,
                                     double bound_lo, double bound_hi, const HsTarget *target,
                                     guint n_threads, double *storage, double *scratch);
/* Frees what hs_metrics_prepare allocated for `state` (not its buffers). */
void     hs_metrics_state_clear     (HsEvalState *state);
/* s in pixel order: state->s, or (resampled) made into `buffer` (n values)
 * the first time it is asked for. */
const double *hs_metrics_values     (HsEvalState *state, double *buffer);
/* The r-th largest value (1-based, 1 ≤ r ≤ n_pos + n_neg) of pos ∪ neg
 * (sorts the one bucket of neg it falls in, if not yet sorted). */
double   hs_metrics_kth_largest     (const HsEvalState *state, guint64 r);
/* Pixels with s ≥ v (and inside G), or s > v when `strict`. */
void     hs_metrics_count_at_least  (const HsEvalState *state, double v, gboolean strict,
                                     guint64 *n_total, guint64 *n_in_target);
/* Sets iou/precision/recall for k slot 0..3 (5, 10, 20, 30 %) from the
 * region used by IoU and the region used by precision/recall. */
void     hs_metrics_set_region      (const HsEvalState *state, HsScores *out, guint slot,
                                     guint64 iou_size, guint64 iou_hit,
                                     guint64 pr_size, guint64 pr_hit);
/* The iou@k / precision@k metric of k slot 0..3. */
HsMetric hs_metrics_iou_metric      (guint slot);
HsMetric hs_metrics_precision_metric (guint slot);
void     hs_metrics_rank_metrics    (const HsEvalState *state, HsScores *out);
void     hs_metrics_topk_default    (const HsEvalState *state, HsScores *out);
void     hs_metrics_topk_gloria     (const HsEvalState *state, HsScores *out);
void     hs_metrics_explanation_precision (HsEvalState *state, double *abs_buffer,
                                           double *scratch, HsScores *out);
int      hs_metrics_otsu_level      (const guint64 hist[256], guint64 total);
void     hs_metrics_otsu_iou        (const HsEvalState *state, HsScores *out);

/* chexlocalize (hs-metrics-chexlocalize.c): CheXlocalize's Otsu + contour
 * polygons, or threshold-table, IoU; s must be the torch float32 upsampling.
 * pred_buffer: n bytes. */
void     hs_metrics_chexlocalize_iou (const HsEvalState *state, double threshold,
                                      guint8 *pred_buffer, HsScores *out);

/* Grid entropy (gloria adds the No-Attn slot). */
void     hs_metrics_entropy         (const double *grid, gsize n_cells, double no_attn,
                                     HsProtocol protocol, HsScores *out);

/* n = (s − min)/(max − min) exactly as metrics.md writes it; 0 for a
 * constant map; when max − min overflows, the same ratio on halved values. */
static inline double
hs_metrics_normalise (double v, double lo, double hi)
{
  double span = hi - lo;

  if (!(span > 0))
    return 0.0;
  if (!isfinite (span))
    return (v * 0.5 - lo * 0.5) / (hi * 0.5 - lo * 0.5);
  return (v - lo) / span;
}

/* u = floor(255·n) as an 8-bit level. */
static inline guint
hs_metrics_otsu_u (double v, double lo, double hi)
{
  double u = floor (255.0 * hs_metrics_normalise (v, lo, hi));

  if (!(u > 0.0))
    return 0;
  return u >= 255.0 ? 255 : (guint) u;
}

/* Marks a metric undefined with a reason. */
static inline void
hs_scores_undefined (HsScores *out, HsMetric metric, const char *reason)
{
  out->value[metric] = NAN;
  out->reason[metric] = reason;
}

static inline void
hs_scores_set (HsScores *out, HsMetric metric, double value)
{
  out->value[metric] = value;
  out->reason[metric] = NULL;
}

#define HS_REASON_EMPTY_TARGET   "target is empty"
#define HS_REASON_FULL_TARGET    "target covers every pixel"
#define HS_REASON_NO_MASS        "map has no positive mass"
#define HS_REASON_ZERO_VARIANCE  "both variances are 0"
#define HS_REASON_NO_POSITIVE    "no cell is positive"
#define HS_REASON_NO_SLOT        "model has no No-Attn slot"
#define HS_REASON_NOT_IN_PROTO   "not part of this protocol"
#define HS_REASON_EMPTY_PRED     "prediction is empty"
#define HS_REASON_NO_SIDE        "no mass off the middle column"
#define HS_REASON_NO_GRID        "no grid"
#define HS_REASON_INFINITE       "infinite (a cell is zero in one map only)"

G_END_DECLS
