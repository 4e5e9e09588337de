/* hs-metrics-threshold.c — metrics that depend on the order of values:
 * auroc, ap, top-k regions, explanation_precision, Otsu, curves.
 *
 * One sort serves them all.  The values inside and outside G are sorted
 * separately (no labels travel with the values), by a bucket sort whose
 * bucket index floor((v − lo)·B/(hi − lo)) is monotone in v in floating
 * point, so buckets are ordered and equal values always share a bucket:
 * ties stay exact.  Order statistics of the union are then O(log P)
 * searches on the two arrays. */
#include "hs-metrics-private.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#define INSERTION_MAX   24
#define TOP_BUCKETS_MAX 4096
#define SUB_BUCKETS_MAX 1024
#define MAX_DEPTH       10

static void
insertion_sort (double *a, gsize n)
{
  for (gsize i = 1; i < n; i++)
    {
      double x = a[i];
      gsize j = i;

      while (j > 0 && a[j - 1] > x)
        {
          a[j] = a[j - 1];
          j--;
        }
      a[j] = x;
    }
}

static int
compare_doubles (const void *pa, const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;

  return (a > b) - (a < b);
}

/* Linear bucket mapping over [lo, hi]; when hi − lo overflows, everything
 * is halved first (still monotone). */
typedef struct {
  double lo, scale, pre;
  gsize  n_buckets;
} Bucketing;

static void
bucketing_init (Bucketing *b, double lo, double hi, gsize n_buckets)
{
  double span = hi - lo;

  b->pre = 1.0;
  if (!isfinite (span))
    {
      b->pre = 0.5;
      span = hi * 0.5 - lo * 0.5;
    }
  b->lo = lo * b->pre;
  b->n_buckets = n_buckets;
  b->scale = span > 0 ? (double) n_buckets / span : 0.0;
}

static inline gsize
bucket_of (const Bucketing *b, double v)
{
  double f = (v * b->pre - b->lo) * b->scale;
  gsize i = f > 0 ? (gsize) f : 0;

  return i < b->n_buckets ? i : b->n_buckets - 1;
}

static void
bucket_sort_rec (double *a, gsize n, double *scratch, int depth)
{
  guint32 counts[SUB_BUCKETS_MAX + 1];
  Bucketing bk;
  double lo, hi;
  gsize n_buckets, off;

  if (n <= INSERTION_MAX)
    {
      insertion_sort (a, n);
      return;
    }
  lo = hi = a[0];
  for (gsize i = 1; i < n; i++)
    {
      lo = MIN (lo, a[i]);
      hi = MAX (hi, a[i]);
    }
  if (lo == hi)
    return;
  if (depth > MAX_DEPTH)
    {
      qsort (a, n, sizeof (double), compare_doubles);
      return;
    }

  n_buckets = CLAMP (n / 4, 2, SUB_BUCKETS_MAX);
  bucketing_init (&bk, lo, hi, n_buckets);
  memset (counts, 0, sizeof counts);
  for (gsize i = 0; i < n; i++)
    counts[bucket_of (&bk, a[i]) + 1]++;
  for (gsize b = 0; b < n_buckets; b++)
    counts[b + 1] += counts[b];
  for (gsize i = 0; i < n; i++)
    scratch[counts[bucket_of (&bk, a[i])]++] = a[i];
  /* counts[b] is now the end of bucket b. */
  off = 0;
  for (gsize b = 0; b < n_buckets; b++)
    {
      gsize end = counts[b], len = end - off;

      if (len > 1)
        bucket_sort_rec (scratch + off, len, a + off, depth + 1);
      off = end;
    }
  memcpy (a, scratch, n * sizeof (double));
}

void
hs_metrics_sort_doubles (double *values, gsize n, double *scratch)
{
  if (n < 2)
    return;
  if (n > G_MAXUINT32)
    {
      qsort (values, n, sizeof (double), compare_doubles);
      return;
    }
  bucket_sort_rec (values, n, scratch, 0);
}

/* ---- the second pass and the class sort, split over threads ---- */

#define MAX_PARTS 2

typedef struct {
  HsEvalState *state;
  Bucketing    bk;
  double       otsu_lo, otsu_span;
  gboolean     otsu_constant;
  /* per part: bucket counts (pos then neg) and, after the prefix sums,
   * write offsets; otsu histograms; sums of squares. */
  guint64     *counts[MAX_PARTS];
  guint64      hist[MAX_PARTS][256];
  guint64      hist_g[MAX_PARTS][256];
  double       ss_in[MAX_PARTS], ss_out[MAX_PARTS];
  double      *storage;
  double      *scratch;
  /* bucket ranges sorted by each part (indices into the 2·B bucket list) */
  gsize        sort_from[MAX_PARTS], sort_to[MAX_PARTS];
  gsize       *bucket_start;   /* 2·B + 1 offsets into storage */
} ClassSort;

static void
part_rows (const HsEvalState *state, guint part, guint n_parts, gsize *begin, gsize *end)
{
  gsize rows_begin = (gsize) state->height * part / n_parts;
  gsize rows_end = (gsize) state->height * (part + 1) / n_parts;

  *begin = rows_begin * state->width;
  *end = rows_end * state->width;
}

static inline guint
otsu_bin (const ClassSort *cs, double v)
{
  return hs_metrics_otsu_u (v, cs->otsu_lo, cs->otsu_span, cs->otsu_constant);
}

static void
count_part (gpointer data, guint part, guint n_parts)
{
  ClassSort *cs = data;
  const HsEvalState *st = cs->state;
  gsize begin, end, B = cs->bk.n_buckets;
  guint64 *cpos = cs->counts[part], *cneg = cpos + B;
  guint64 *hist = cs->hist[part], *hist_g = cs->hist_g[part];
  double ss_in = 0, ss_out = 0;

  part_rows (st, part, n_parts, &begin, &end);
  memset (cpos, 0, 2 * B * sizeof (guint64));
  memset (hist, 0, 256 * sizeof (guint64));
  memset (hist_g, 0, 256 * sizeof (guint64));

  for (gsize row = begin; row < end; row += st->width)
    {
      double row_in = 0, row_out = 0;

      for (gsize i = row; i < row + st->width; i++)
        {
          double v = st->s[i];
          gsize b = bucket_of (&cs->bk, v);
          guint u = otsu_bin (cs, v);

          hist[u]++;
          if (st->g[i])
            {
              double d = v - st->mean_in;
              cpos[b]++;
              hist_g[u]++;
              row_in += d * d;
            }
          else
            {
              double d = v - st->mean_out;
              cneg[b]++;
              row_out += d * d;
            }
        }
      ss_in += row_in;
      ss_out += row_out;
    }
  cs->ss_in[part] = ss_in;
  cs->ss_out[part] = ss_out;
}

static void
scatter_part (gpointer data, guint part, guint n_parts)
{
  ClassSort *cs = data;
  const HsEvalState *st = cs->state;
  gsize begin, end, B = cs->bk.n_buckets;
  guint64 *opos = cs->counts[part], *oneg = opos + B;
  double *out = cs->storage;

  part_rows (st, part, n_parts, &begin, &end);
  for (gsize i = begin; i < end; i++)
    {
      double v = st->s[i];
      gsize b = bucket_of (&cs->bk, v);

      if (st->g[i])
        out[opos[b]++] = v;
      else
        out[oneg[b]++] = v;
    }
}

static void
sort_part (gpointer data, guint part, guint n_parts)
{
  ClassSort *cs = data;

  for (gsize b = cs->sort_from[part]; b < cs->sort_to[part]; b++)
    {
      gsize off = cs->bucket_start[b], len = cs->bucket_start[b + 1] - off;

      if (len > 1)
        {
          if (len > G_MAXUINT32)
            qsort (cs->storage + off, len, sizeof (double), compare_doubles);
          else
            bucket_sort_rec (cs->storage + off, len, cs->scratch + off, 1);
        }
    }
}

void
hs_metrics_sort_classes (HsEvalState *state, double *storage, double *scratch)
{
  ClassSort cs = { 0 };
  guint n_parts = CLAMP (state->n_threads, 1, MAX_PARTS);
  gsize B, n_lists, total = 0, half;
  g_autofree guint64 *count_block = NULL;
  g_autofree gsize *bucket_start = NULL;

  if (state->height < 2 * n_parts)
    n_parts = 1;
  B = state->min == state->max ? 1 : CLAMP (state->n / 1024, 1, TOP_BUCKETS_MAX);
  n_lists = 2 * B;
  cs.state = state;
  bucketing_init (&cs.bk, state->min, state->max, B);
  cs.otsu_lo = state->min;
  cs.otsu_span = state->max - state->min;
  cs.otsu_constant = state->max == state->min;
  cs.storage = storage;
  cs.scratch = scratch;
  count_block = g_new (guint64, n_lists * n_parts);
  for (guint p = 0; p < n_parts; p++)
    cs.counts[p] = count_block + p * n_lists;

  hs_metrics_run_parts (count_part, &cs, n_parts);

  memset (state->otsu_hist, 0, sizeof state->otsu_hist);
  memset (state->otsu_hist_g, 0, sizeof state->otsu_hist_g);
  state->ss_in = state->ss_out = 0;
  for (guint p = 0; p < n_parts; p++)
    {
      for (guint u = 0; u < 256; u++)
        {
          state->otsu_hist[u] += cs.hist[p][u];
          state->otsu_hist_g[u] += cs.hist_g[p][u];
        }
      state->ss_in += cs.ss_in[p];
      state->ss_out += cs.ss_out[p];
    }

  /* Layout: pos buckets 0..B−1 then neg buckets 0..B−1; within a bucket,
   * part 0's values then part 1's (deterministic). */
  bucket_start = g_new (gsize, n_lists + 1);
  for (gsize l = 0; l < n_lists; l++)
    {
      bucket_start[l] = total;
      for (guint p = 0; p < n_parts; p++)
        {
          guint64 c = cs.counts[p][l];
          cs.counts[p][l] = total;
          total += c;
        }
    }
  bucket_start[n_lists] = total;
  g_assert (total == state->n);

  hs_metrics_run_parts (scatter_part, &cs, n_parts);

  cs.bucket_start = bucket_start;
  /* Split the buckets between the parts by element count. */
  half = total / 2;
  if (n_parts == 1)
    {
      cs.sort_from[0] = 0;
      cs.sort_to[0] = n_lists;
    }
  else
    {
      gsize split = 0;

      while (split < n_lists && bucket_start[split + 1] <= half)
        split++;
      cs.sort_from[0] = 0;
      cs.sort_to[0] = split;
      cs.sort_from[1] = split;
      cs.sort_to[1] = n_lists;
    }
  if (state->min != state->max)
    hs_metrics_run_parts (sort_part, &cs, n_parts);

  state->pos = storage;
  state->neg = storage + state->n_pos;
}

/* ---- order statistics on the two sorted arrays ---- */

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

void
hs_metrics_count_at_least (const HsEvalState *state, double v, gboolean strict,
                           guint64 *n_total, guint64 *n_in_target)
{
  /* strict: s > v → n − #(≤ v); else s ≥ v → n − #(< v). */
  guint64 in = state->n_pos - count_below (state->pos, state->n_pos, v, strict);
  guint64 out = state->n_neg - count_below (state->neg, state->n_neg, v, strict);

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
  g_assert (r >= 1 && r <= state->n);
  return kth_smallest (state->pos, state->n_pos, state->neg, state->n_neg, state->n - r);
}

/* auroc and ap in one walk over the distinct values of G, top down, with a
 * tight scan of the values outside G.  Integer counts throughout. */
void
hs_metrics_rank_metrics (const HsEvalState *state, HsScores *out)
{
  const double *pos = state->pos, *neg = state->neg;
  gsize i = state->n_pos, j = state->n_neg;
  guint64 tp = 0, two_u = 0;
  double ap = 0;

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

  while (i > 0)
    {
      double v = pos[i - 1];
      guint64 cp = 0, cn;
      gsize jj;

      while (i > 0 && pos[i - 1] == v)
        {
          i--;
          cp++;
        }
      while (j > 0 && neg[j - 1] > v)
        j--;
      jj = j;
      while (jj > 0 && neg[jj - 1] == v)
        jj--;
      cn = j - jj;
      j = jj;
      /* j values outside G are now below v. */
      tp += cp;
      two_u += cp * (2 * (guint64) j + cn);
      ap += ((double) cp / (double) state->n_pos)
            * ((double) tp / (double) (tp + (state->n_neg - j)));
    }
  hs_scores_set (out, HS_METRIC_AUROC,
                 (double) two_u / (2.0 * (double) state->n_pos * (double) state->n_neg));
  hs_scores_set (out, HS_METRIC_AP, ap);
}

static const HsMetric iou_metrics[4] = { HS_METRIC_IOU_5, HS_METRIC_IOU_10, HS_METRIC_IOU_20, HS_METRIC_IOU_30 };
static const HsMetric prec_metrics[4] = { HS_METRIC_PRECISION_5, HS_METRIC_PRECISION_10,
                                          HS_METRIC_PRECISION_20, HS_METRIC_PRECISION_30 };
static const HsMetric rec_metrics[4] = { HS_METRIC_RECALL_5, HS_METRIC_RECALL_10,
                                         HS_METRIC_RECALL_20, HS_METRIC_RECALL_30 };
static const guint k_percent[4] = { 5, 10, 20, 30 };

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
hs_metrics_explanation_precision (const HsEvalState *state, double *abs_buffer,
                                  double *scratch, HsScores *out)
{
  guint64 n = state->n_pos, greater_in = 0, greater = 0, tie_in = 0, take;
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
      for (gsize i = 0; i < state->n && take > 0; i++)
        if (state->s[i] == v)
          {
            tie_in += state->g[i];
            take--;
          }
      hs_scores_set (out, HS_METRIC_EXPLANATION_PRECISION,
                     (double) (greater_in + tie_in) / (double) n);
      return;
    }

  /* Negative values: order by |s| with a separate sort. */
  for (gsize i = 0; i < state->n; i++)
    abs_buffer[i] = fabs (state->s[i]);
  hs_metrics_sort_doubles (abs_buffer, state->n, scratch);
  v = abs_buffer[state->n - n];
  for (gsize i = 0; i < state->n; i++)
    {
      double a = fabs (state->s[i]);
      if (a > v)
        {
          greater++;
          greater_in += state->g[i];
        }
    }
  take = n - greater;
  for (gsize i = 0; i < state->n && take > 0; i++)
    if (fabs (state->s[i]) == v)
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

void
hs_metrics_otsu_iou (const HsEvalState *state, HsScores *out)
{
  int t = hs_metrics_otsu_level (state->otsu_hist, state->n);
  guint64 pred = 0, hit = 0, uni;

  out->otsu_level = t;
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
