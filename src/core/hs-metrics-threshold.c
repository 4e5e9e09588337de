/* hs-metrics-threshold.c — metrics that depend on the order of values:
 * auroc and ap (from the pipeline's walk), top-k regions,
 * explanation_precision, Otsu, and the order statistics they read — G's
 * values sorted, the rest by top bucket (hs-metrics-bucketing-private.h). */
#include "hs-metrics-bucketing-private.h"

#include <float.h>
#include <string.h>

#define SCAN_MAX        4096   /* values outside G counted by a scan, not a search */

/* ---- order statistics: G sorted, the rest by bucket ---- */

/* Number of elements of a (ascending, length n) that are < v (strict) or ≤ v. */
static gsize
count_below (const double *a, gsize n, double v, gboolean or_equal)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (or_equal ? a[mid] <= v : a[mid] < v)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The values outside G in top bucket b: *len of them, from the returned
 * pointer; *before: how many are in the buckets below. */
static double *
rest_bucket (const HsEvalState *state, gsize b, gsize *len, gsize *before)
{
  const HsNegIndex *ix = state->neg_index;
  const gsize *start = ix->bucket_start + ix->n_buckets;

  *len = start[b + 1] - start[b];
  *before = start[b] - start[0];
  return state->neg + *before;
}

/* Sorts the values outside G of top bucket b the first time an order
 * statistic needs them in order. */
static void
rest_bucket_sort (const HsEvalState *state, gsize b)
{
  HsNegIndex *ix = state->neg_index;
  gsize len, before;
  double *a = rest_bucket (state, b, &len, &before);

  if (!ix->sorted[b] && len > 1)
    {
      g_autofree double *buf = g_new (double, len);
      g_autofree guint16 *idx = g_new (guint16, IDX_MAX);

      hs_metrics_sort_bucket (&ix->bk, b, a, len, buf, idx, NULL);
    }
  ix->sorted[b] = 1;
}

/* Number of values outside G that are < v (or ≤ v): every value in a bucket
 * below v's is smaller, every one above greater (the mapping is monotone),
 * so only v's own bucket is looked at. */
static gsize
rest_count_below (const HsEvalState *state, double v, gboolean or_equal)
{
  gsize b, len, before, c = 0;
  const double *a;

  if (state->n_neg == 0)
    return 0;
  b = hs_bucket_of (&state->neg_index->bk, v);
  a = rest_bucket (state, b, &len, &before);
  /* a crowded bucket (ties, an outlier stretching the range) is sorted once
   * rather than scanned at every count */
  if (len > SCAN_MAX)
    rest_bucket_sort (state, b);
  if (state->neg_index->sorted[b])
    return before + count_below (a, len, v, or_equal);
  if (or_equal)
    for (gsize i = 0; i < len; i++)
      c += a[i] <= v;
  else
    for (gsize i = 0; i < len; i++)
      c += a[i] < v;
  return before + c;
}

void
hs_metrics_count_at_least (const HsEvalState *state, double v, gboolean strict,
                           guint64 *n_total, guint64 *n_in_target)
{
  /* strict: s > v → n − #(≤ v); else s ≥ v → n − #(< v). */
  guint64 in = state->n_pos - count_below (state->pos, state->n_pos, v, strict);
  guint64 out = state->n_neg - rest_count_below (state, v, strict);

  if (n_total != NULL)
    *n_total = in + out;
  if (n_in_target != NULL)
    *n_in_target = in;
}

/* The r-th smallest (0-based) of the union of two ascending arrays. */
static double
kth_smallest (const double *a, gsize na, const double *b, gsize nb, gsize k)
{
  /* Binary search on how many elements come from a. */
  gsize lo = k > nb ? k - nb : 0;
  gsize hi = MIN (k, na);

  while (lo < hi)
    {
      gsize i = lo + (hi - lo) / 2;  /* take i from a, k − i from b */
      gsize j = k - i;

      /* Too few from a when a[i] < b[j − 1]. */
      if (j > 0 && i < na && a[i] < b[j - 1])
        lo = i + 1;
      else
        hi = i;
    }
  {
    gsize i = lo, j = k - lo;
    /* The k-th smallest is min(a[i], b[j]) among the existing ones. */
    if (i >= na)
      return b[j];
    if (j >= nb)
      return a[i];
    return MIN (a[i], b[j]);
  }
}

double
hs_metrics_kth_largest (const HsEvalState *state, guint64 r)
{
  const gsize *start = state->neg_index->bucket_start;
  gsize B = state->neg_index->n_buckets, k = state->n - r, lo = 0, hi = B - 1, len, before;
  const double *rest;

  g_assert (r >= 1 && r <= state->n);
  /* The top bucket it lies in: the last b with fewer than k + 1 values of
   * either class below it (so a non-empty one). */
#define BELOW(b) (start[b] + (start[B + (b)] - start[B]))
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo + 1) / 2;

      if (BELOW (mid) <= k)
        lo = mid;
      else
        hi = mid - 1;
    }
  k -= BELOW (lo);
#undef BELOW
  rest_bucket_sort (state, lo);
  rest = rest_bucket (state, lo, &len, &before);
  return kth_smallest (state->pos + start[lo], start[lo + 1] - start[lo], rest, len, k);
}

/* auroc and ap from the walk the sort pass took bucket by bucket. */
void
hs_metrics_rank_metrics (const HsEvalState *state, HsScores *out)
{
  if (state->n_pos == 0)
    {
      hs_scores_undefined (out, HS_METRIC_AUROC, HS_REASON_EMPTY_TARGET);
      hs_scores_undefined (out, HS_METRIC_AP, HS_REASON_EMPTY_TARGET);
      return;
    }
  if (state->n_neg == 0)
    {
      hs_scores_undefined (out, HS_METRIC_AUROC, HS_REASON_FULL_TARGET);
      hs_scores_undefined (out, HS_METRIC_AP, HS_REASON_FULL_TARGET);
      return;
    }
  hs_scores_set (out, HS_METRIC_AUROC,
                 (double) state->two_u / (2.0 * (double) state->n_pos * (double) state->n_neg));
  hs_scores_set (out, HS_METRIC_AP, state->ap);
}

static const HsMetric iou_metrics[4] = { HS_METRIC_IOU_5, HS_METRIC_IOU_10, HS_METRIC_IOU_20, HS_METRIC_IOU_30 };
static const HsMetric prec_metrics[4] = { HS_METRIC_PRECISION_5, HS_METRIC_PRECISION_10,
                                          HS_METRIC_PRECISION_20, HS_METRIC_PRECISION_30 };
static const HsMetric rec_metrics[4] = { HS_METRIC_RECALL_5, HS_METRIC_RECALL_10,
                                         HS_METRIC_RECALL_20, HS_METRIC_RECALL_30 };
static const guint k_percent[4] = { 5, 10, 20, 30 };

HsMetric
hs_metrics_iou_metric (guint slot)
{
  return iou_metrics[slot];
}

HsMetric
hs_metrics_precision_metric (guint slot)
{
  return prec_metrics[slot];
}

void
hs_metrics_set_region (const HsEvalState *state, HsScores *out, guint slot,
                    guint64 iou_size, guint64 iou_hit, guint64 pr_size, guint64 pr_hit)
{
  guint64 uni = iou_size + state->n_pos - iou_hit;

  hs_scores_set (out, iou_metrics[slot], uni > 0 ? (double) iou_hit / (double) uni : 0.0);
  hs_scores_set (out, prec_metrics[slot], pr_size > 0 ? (double) pr_hit / (double) pr_size : 0.0);
  if (state->n_pos == 0)
    hs_scores_undefined (out, rec_metrics[slot], HS_REASON_EMPTY_TARGET);
  else
    hs_scores_set (out, rec_metrics[slot], (double) pr_hit / (double) state->n_pos);
}

void
hs_metrics_topk_default (const HsEvalState *state, HsScores *out)
{
  for (guint slot = 0; slot < 4; slot++)
    {
      guint64 r, size, hit;
      double q;

      if (k_percent[slot] == 20)
        continue;
      /* ⌈k·P/100⌉-th largest (1-based). */
      r = ((guint64) k_percent[slot] * state->n + 99) / 100;
      r = CLAMP (r, 1, state->n);
      q = hs_metrics_kth_largest (state, r);
      out->topk_threshold[slot] = q;
      hs_metrics_count_at_least (state, q, FALSE, &size, &hit);
      hs_metrics_set_region (state, out, slot, size, hit, size, hit);
    }
}

void
hs_metrics_explanation_precision (HsEvalState *state, double *abs_buffer,
                                  double *scratch, HsScores *out)
{
  guint64 n = state->n_pos, greater_in = 0, greater = 0, tie_in = 0, take;
  const double *s;
  double v;

  if (n == 0)
    {
      hs_scores_undefined (out, HS_METRIC_EXPLANATION_PRECISION, HS_REASON_EMPTY_TARGET);
      return;
    }

  if (state->min >= 0)
    {
      /* |s| = s: the n-th largest from the sorted classes. */
      guint64 ge, ge_in;

      v = hs_metrics_kth_largest (state, n);
      hs_metrics_count_at_least (state, v, TRUE, &greater, &greater_in);
      hs_metrics_count_at_least (state, v, FALSE, &ge, &ge_in);
      if (ge == n)
        {
          hs_scores_set (out, HS_METRIC_EXPLANATION_PRECISION, (double) ge_in / (double) n);
          return;
        }
      /* Ties at v straddle the cut: the first ones in row-major order enter. */
      take = n - greater;
      s = hs_metrics_values (state, hs_metrics_workspace (0, state->n));
      for (gsize i = 0; i < state->n && take > 0; i++)
        if (s[i] == v)
          {
            tie_in += state->g[i];
            take--;
          }
      hs_scores_set (out, HS_METRIC_EXPLANATION_PRECISION,
                     (double) (greater_in + tie_in) / (double) n);
      return;
    }

  /* Negative values: order by |s| with a separate sort. */
  s = hs_metrics_values (state, hs_metrics_workspace (0, state->n));
  for (gsize i = 0; i < state->n; i++)
    abs_buffer[i] = fabs (s[i]);
  hs_metrics_sort_doubles (abs_buffer, state->n, scratch);
  v = abs_buffer[state->n - n];
  for (gsize i = 0; i < state->n; i++)
    {
      double a = fabs (s[i]);
      if (a > v)
        {
          greater++;
          greater_in += state->g[i];
        }
    }
  take = n - greater;
  for (gsize i = 0; i < state->n && take > 0; i++)
    if (fabs (s[i]) == v)
      {
        tie_in += state->g[i];
        take--;
      }
  hs_scores_set (out, HS_METRIC_EXPLANATION_PRECISION,
                 (double) (greater_in + tie_in) / (double) n);
}

/* OpenCV's getThreshVal_Otsu_8u, operation for operation, so the chosen
 * level is the one cv2.threshold(..., THRESH_OTSU) picks (first maximum of
 * ω0·ω1·(μ0 − μ1)²; levels where a class weight is within FLT_EPSILON of
 * 0 or 1 are skipped). */
int
hs_metrics_otsu_level (const guint64 hist[256], guint64 total)
{
  double mu = 0, scale = 1.0 / (double) total;
  double mu1 = 0, q1 = 0, max_sigma = 0;
  int max_val = 0;

  for (int i = 0; i < 256; i++)
    mu += i * (double) hist[i];
  mu *= scale;
  for (int i = 0; i < 256; i++)
    {
      double p_i = (double) hist[i] * scale, q2, mu2, sigma;

      mu1 *= q1;
      q1 += p_i;
      q2 = 1.0 - q1;
      if (MIN (q1, q2) < FLT_EPSILON || MAX (q1, q2) > 1.0 - FLT_EPSILON)
        continue;
      mu1 = (mu1 + i * p_i) / q1;
      mu2 = (mu - q1 * mu1) / q2;
      sigma = q1 * q2 * (mu1 - mu2) * (mu1 - mu2);
      if (sigma > max_sigma)
        {
          max_sigma = sigma;
          max_val = i;
        }
    }
  return max_val;
}

/* The least value outside G whose Otsu level is ≥ k (NAN when none): in the
 * first bucket whose greatest value reaches k (u is monotone in s). */
static double
rest_least_from_level (const HsEvalState *state, guint k)
{
  const HsNegIndex *ix = state->neg_index;

  for (gsize b = 0; b < ix->n_buckets && state->n_neg > 0; b++)
    if (ix->hi[b] > -INFINITY && hs_metrics_otsu_u (ix->hi[b], state->min, state->max) >= k)
      {
        gsize len, before;
        const double *a = rest_bucket (state, b, &len, &before);
        double least = ix->hi[b];

        for (gsize i = 0; i < len; i++)
          if (a[i] < least && hs_metrics_otsu_u (a[i], state->min, state->max) >= k)
            least = a[i];
        return least;
      }
  return NAN;
}

void
hs_metrics_otsu_iou (const HsEvalState *state, HsScores *out)
{
  int t = hs_metrics_otsu_level (state->otsu_hist, state->n);
  guint64 pred = 0, hit = 0, uni;

  out->otsu_level = t;
  /* The smallest value in the region u > t: the region is exactly s ≥ it. */
  out->otsu_threshold = NAN;
  if (t < 255)
    {
      gsize ip = hs_metrics_count_level_below (state->pos, state->n_pos, (guint) t + 1, state->min, state->max);
      double least = rest_least_from_level (state, (guint) t + 1);

      if (ip < state->n_pos)
        out->otsu_threshold = state->pos[ip];
      if (!isnan (least) && !(least >= out->otsu_threshold))
        out->otsu_threshold = least;
    }
  if (state->n_pos == 0)
    {
      hs_scores_undefined (out, HS_METRIC_OTSU_IOU, HS_REASON_EMPTY_TARGET);
      return;
    }
  for (int u = t + 1; u < 256; u++)
    {
      pred += state->otsu_hist[u];
      hit += state->otsu_hist_g[u];
    }
  uni = pred + state->n_pos - hit;
  hs_scores_set (out, HS_METRIC_OTSU_IOU, (double) hit / (double) uni);
}
