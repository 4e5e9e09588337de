/* hs-metrics-bucketing-private.h — the top buckets that the scoring
 * pipeline (hs-metrics-pipeline.c), its sorts (hs-metrics-sort.c) and the
 * order statistics (hs-metrics-threshold.c) share.
 *
 * The values inside and outside G are scattered separately (no labels
 * travel with the values) into top buckets whose index
 * floor((v − lo)·B/(hi − lo)) is monotone in v in floating point, so
 * buckets are ordered and equal values always share a bucket: ties stay
 * exact.  The values of G (a fraction of the grid) are then sorted; the
 * rest are only counted against them, bucket by bucket — which is all
 * auroc, ap, the Otsu histogram and the sums of squares need — and a
 * bucket of them is sorted only when an order statistic (top-k, a curve's
 * threshold) falls in it. */
#pragma once

#include "hs-metrics-private.h"

#include <math.h>

G_BEGIN_DECLS

#define TOP_BUCKETS_MAX 2048
#define SUB_BUCKETS_MAX 16384
#define SUB_SPREAD      4       /* sub-buckets per value of G in its bucket's table */
#define IDX_MAX         16384   /* values a sort indexes with 16 bits */

/* Linear bucket mapping over [lo, hi]; values outside are clamped (still
 * monotone).  When hi − lo overflows, everything is halved first. */
typedef struct {
  double lo, scale, pre;
  gint64 last;
  double last_f;   /* last as a double: no conversion per value */
} HsBucketing;

static inline void
hs_bucketing_init (HsBucketing *b, double lo, double hi, gsize n_buckets)
{
  double span = hi - lo;

  b->pre = 1.0;
  if (!isfinite (span))
    {
      b->pre = 0.5;
      span = hi * 0.5 - lo * 0.5;
    }
  b->lo = lo * b->pre;
  b->last = (gint64) n_buckets - 1;
  b->last_f = (double) b->last;
  b->scale = span > 0 ? (double) n_buckets / span : 0.0;
}

static inline gsize
hs_bucket_of (const HsBucketing *b, double v)
{
  double f = (v * b->pre - b->lo) * b->scale;
  gint64 i;

  if (!(f > 0))
    return 0;
  if (f >= b->last_f)
    return (gsize) b->last;
  i = (gint64) f;
  return (gsize) i;
}

/* hs_bucket_of without branches (the same index for every finite v), for
 * loops the compiler vectorises; only for fewer than 2^31 buckets. */
static inline guint32
hs_sub_bucket_of (const HsBucketing *b, double v)
{
  double f = (v * b->pre - b->lo) * b->scale;

  f = f > 0 ? f : 0;
  f = f < b->last_f ? f : b->last_f;
  return (guint32) (gint32) f;
}

/* The value range of top bucket k from the top-level mapping; FALSE when it
 * is not a finite, non-empty interval (one bucket, a span that overflows). */
static inline gboolean
hs_bucket_range (const HsBucketing *bk, gsize k, double *lo, double *hi)
{
  double width = 1.0 / bk->scale;

  *lo = (bk->lo + (double) k * width) / bk->pre;
  *hi = (bk->lo + (double) (k + 1) * width) / bk->pre;
  return bk->scale > 0 && isfinite (*lo) && isfinite (*hi) && *lo < *hi;
}

/* The values outside G as the pipeline leaves them: grouped by top bucket,
 * and the state's order statistics find their way through them. */
struct _HsNegIndex {
  HsBucketing  bk;
  gsize      n_buckets;
  gsize     *bucket_start;    /* 2·B + 1: G's buckets, then the rest's */
  double    *lo, *hi;         /* per bucket: the least and greatest value outside G (±∞ when none) */
  guint8    *sorted;          /* per bucket: its values outside G are in order */
};

/* Sorts a[0..len), the values of top bucket k, using buf (len values) and
 * idx (IDX_MAX); returns the number of sub-buckets of the table left in
 * `first` (0: none; see hs-metrics-sort.c). */
gsize hs_metrics_sort_bucket (const HsBucketing *bk, gsize k, double *a, gsize len, double *buf,
                              guint16 *idx, guint32 *first);

/* Number of elements of a (ascending) whose Otsu level is < k. */
static inline gsize
hs_metrics_count_level_below (const double *a, gsize n, guint k, double lo, double hi)
{
  gsize l = 0, h = n;

  while (l < h)
    {
      gsize mid = l + (h - l) / 2;

      if (hs_metrics_otsu_u (a[mid], lo, hi) < k)
        l = mid + 1;
      else
        h = mid;
    }
  return l;
}

G_END_DECLS
