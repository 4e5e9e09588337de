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
#include "hs-order-private.h"
#include "hs-resample-private.h"
#include "hs-parallel.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#define INSERTION_MAX   32
#define TOP_BUCKETS_MAX 4096
#define SUB_BUCKETS_MAX 4096
#define MAX_DEPTH       24
#define MAX_PARTS       2
#define CHUNK_ROWS      16

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

/* Linear bucket mapping over [lo, hi]; values outside are clamped (still
 * monotone).  When hi − lo overflows, everything is halved first. */
typedef struct {
  double lo, scale, pre;
  gint64 last;
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
  b->last = (gint64) n_buckets - 1;
  b->scale = span > 0 ? (double) n_buckets / span : 0.0;
}

static inline gsize
bucket_of (const Bucketing *b, double v)
{
  double f = (v * b->pre - b->lo) * b->scale;
  gint64 i;

  if (!(f > 0))
    return 0;
  if (f >= (double) b->last)
    return (gsize) b->last;
  i = (gint64) f;
  return (gsize) i;
}

/* Sorts a[0..n) using scratch[0..n) (and idx[0..n) when n ≤ IDX_MAX): one
 * linear bucketing pass into about 2n buckets, recursion for the rare
 * crowded bucket, then one insertion pass over the whole array (buckets are
 * already in order, so it only fixes the few shared buckets). */
#define IDX_MAX 16384

/* Turns counts[1..n_buckets] into starts; TRUE when a bucket holds more
 * values than the insertion pass should take (so it needs its own sort). */
static inline gboolean
prefix_sums (guint32 *counts, gsize n_buckets)
{
  guint32 crowded = 0;

  for (gsize b = 0; b < n_buckets; b++)
    {
      crowded |= counts[b + 1] > INSERTION_MAX;
      counts[b + 1] += counts[b];
    }
  return crowded != 0;
}

static void
sort_small_bounded (double *a, gsize n, double *scratch, guint16 *idx, int depth, double lo, double hi);

static void
sort_small (double *a, gsize n, double *scratch, guint16 *idx, int depth)
{
  double lo, hi;

  if (n <= INSERTION_MAX)
    {
      insertion_sort (a, n);
      return;
    }
  lo = hi = a[0];
  for (gsize i = 1; i < n; i++)
    {
      double v = a[i];
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  if (lo == hi)
    return;
  sort_small_bounded (a, n, scratch, idx, depth, lo, hi);
}

/* [lo, hi] need only approximately bound the values (outliers are clamped
 * into the end buckets, which stays monotone). */
static void
sort_small_bounded (double *a, gsize n, double *scratch, guint16 *idx, int depth, double lo, double hi)
{
  guint32 counts[SUB_BUCKETS_MAX + 1];
  Bucketing bk;
  gsize n_buckets;
  gboolean crowded;

  if (n <= INSERTION_MAX)
    {
      insertion_sort (a, n);
      return;
    }
  if (depth > MAX_DEPTH || n > G_MAXUINT32)
    {
      qsort (a, n, sizeof (double), hs_compare_doubles);
      return;
    }
  /* A bucket of one repeated value (a quantised map: every pixel of a level
   * in one bucket) is sorted already; random values leave this scan at the
   * second element. */
  {
    gsize i = 1;

    while (i < n && a[i] == a[0])
      i++;
    if (i == n)
      return;
  }

  n_buckets = CLAMP (2 * n, 2, SUB_BUCKETS_MAX);
  bucketing_init (&bk, lo, hi, n_buckets);
  memset (counts, 0, (n_buckets + 1) * sizeof (guint32));
  if (idx != NULL && n <= IDX_MAX)
    {
      for (gsize i = 0; i < n; i++)
        {
          gsize b = bucket_of (&bk, a[i]);
          idx[i] = (guint16) b;
          counts[b + 1]++;
        }
      crowded = prefix_sums (counts, n_buckets);
      for (gsize i = 0; i < n; i++)
        scratch[counts[idx[i]]++] = a[i];
    }
  else
    {
      for (gsize i = 0; i < n; i++)
        counts[bucket_of (&bk, a[i]) + 1]++;
      crowded = prefix_sums (counts, n_buckets);
      for (gsize i = 0; i < n; i++)
        scratch[counts[bucket_of (&bk, a[i])]++] = a[i];
    }
  /* counts[b] is now the end of bucket b. */
  if (crowded)
    {
      gsize off = 0;

      for (gsize b = 0; b < n_buckets; b++)
        {
          gsize end = counts[b];

          if (end - off > INSERTION_MAX)
            sort_small (scratch + off, end - off, a + off, idx, depth + 1);
          off = end;
        }
    }
  /* Buckets are in order and each holds a few values: copy back, then an
   * insertion pass that only reads until it meets a value smaller than its
   * neighbour (the rare shared bucket out of order). */
  memcpy (a, scratch, n * sizeof (double));
  for (gsize i = 1; i < n; i++)
    if (G_UNLIKELY (a[i] < a[i - 1]))
      {
        double x = a[i];
        gsize j = i;

        do
          {
            a[j] = a[j - 1];
            j--;
          }
        while (j > 0 && a[j - 1] > x);
        a[j] = x;
      }
}

void
hs_metrics_sort_doubles (double *values, gsize n, double *scratch)
{
  gsize n_buckets, off;
  g_autofree gsize *counts = NULL;
  Bucketing bk;
  double lo, hi;

  if (n <= SUB_BUCKETS_MAX * 4 || n > G_MAXUINT32)
    {
      sort_small (values, n, scratch, NULL, 0);
      return;
    }
  /* Large arrays: a coarse top level first so each bucket fits the cache. */
  lo = hi = values[0];
  for (gsize i = 1; i < n; i++)
    {
      lo = MIN (lo, values[i]);
      hi = MAX (hi, values[i]);
    }
  if (lo == hi)
    return;
  n_buckets = CLAMP (n / 1024, 2, TOP_BUCKETS_MAX);
  bucketing_init (&bk, lo, hi, n_buckets);
  counts = g_new0 (gsize, n_buckets + 1);
  for (gsize i = 0; i < n; i++)
    counts[bucket_of (&bk, values[i]) + 1]++;
  for (gsize b = 0; b < n_buckets; b++)
    counts[b + 1] += counts[b];
  for (gsize i = 0; i < n; i++)
    scratch[counts[bucket_of (&bk, values[i])]++] = values[i];
  off = 0;
  for (gsize b = 0; b < n_buckets; b++)
    {
      gsize end = counts[b];

      if (end - off > 1)
        sort_small (scratch + off, end - off, values + off, NULL, 1);
      off = end;
    }
  memcpy (values, scratch, n * sizeof (double));
}

#define SUM_EXPONENT_SAFE 256

int
hs_metrics_sum_exponent (double lo, double hi)
{
  double big = MAX (fabs (lo), fabs (hi));

  if (!(big > 0) || !isfinite (big) ||
      (big <= ldexp (1.0, SUM_EXPONENT_SAFE) && big >= ldexp (1.0, -SUM_EXPONENT_SAFE)))
    return 0;
  return -ilogb (big);
}

/* ---- the pipeline: resample + statistics, scatter, sort; split over threads ---- */

typedef struct {
  double  min, max;
  gsize   argmax;
  double  mass_all, mass_in, sum_in, sum_out, mass_left, mass_right;
  guint64 n_in, target_left, target_right;
  double  ss_in, ss_out;
} PartStats;

typedef struct {
  HsEvalState       *state;
  double             sum_scale;    /* 2^hs_metrics_sum_exponent        */
  double            *s;            /* writable s (= state->s)          */
  const HsResampler *resampler;    /* NULL when s is already filled    */
  Bucketing          bk;
  gsize              n_buckets;
  guint              left_end, right_begin;
  PartStats          part[MAX_PARTS];
  guint64           *counts[MAX_PARTS];
  gsize             *bucket_start;  /* 2·B + 1 offsets into storage    */
  gsize              sort_from[MAX_PARTS], sort_to[MAX_PARTS];
  double            *storage, *scratch;
  guint16           *bucket_index;   /* top-level bucket of each pixel */
} Pipeline;

static void
part_row_range (const HsEvalState *state, guint part, guint n_parts, guint *begin, guint *end)
{
  *begin = (guint) ((guint64) state->height * part / n_parts);
  *end = (guint) ((guint64) state->height * (part + 1) / n_parts);
}

/* Resample (optional) and the single-pass statistics and bucket counts. */
static void
first_pass (gpointer data, guint part, guint n_parts)
{
  Pipeline *pl = data;
  const HsEvalState *st = pl->state;
  PartStats *ps = &pl->part[part];
  guint64 *cpos = pl->counts[part], *cneg = cpos + pl->n_buckets;
  guint row_begin, row_end, W = st->width;
  double mn = INFINITY, mx = -INFINITY, sc = pl->sum_scale;
  gsize argmax;

  part_row_range (st, part, n_parts, &row_begin, &row_end);
  memset (ps, 0, sizeof *ps);
  memset (cpos, 0, 2 * pl->n_buckets * sizeof (guint64));
  argmax = (gsize) row_begin * W;

  for (guint y0 = row_begin; y0 < row_end; y0 += CHUNK_ROWS)
    {
      guint y1 = MIN (y0 + CHUNK_ROWS, row_end);

      if (pl->resampler != NULL)
        hs_resampler_rows (pl->resampler, y0, y1, pl->s + (gsize) y0 * W);

      for (guint y = y0; y < y1; y++)
        {
          const double *s = st->s + (gsize) y * W;
          const guint8 *g = st->g + (gsize) y * W;
          double r_all = 0, r_in = 0, r_sin = 0, r_sout = 0, r_left = 0, r_right = 0;
          guint64 n_in = 0;

          /* three column ranges: image-left, middle column (odd W), image-right */
          for (guint range = 0; range < 3; range++)
            {
              guint x0 = range == 0 ? 0 : range == 1 ? pl->left_end : pl->right_begin;
              guint x1 = range == 0 ? pl->left_end : range == 1 ? pl->right_begin : W;
              double r_pos = 0;
              guint64 g_count = 0;

              for (guint x = x0; x < x1; x++)
                {
                  double v = s[x], vs = v * sc, pv = vs > 0 ? vs : 0;
                  gsize b = bucket_of (&pl->bk, v);

                  pl->bucket_index[(gsize) y * W + x] = (guint16) b;
                  if (v > mx)
                    {
                      mx = v;
                      argmax = (gsize) y * W + x;
                    }
                  mn = v < mn ? v : mn;
                  r_pos += pv;
                  if (g[x])
                    {
                      r_in += pv;
                      r_sin += vs;
                      g_count++;
                      cpos[b]++;
                    }
                  else
                    {
                      r_sout += vs;
                      cneg[b]++;
                    }
                }
              r_all += r_pos;
              n_in += g_count;
              if (range == 0)
                {
                  r_left += r_pos;
                  ps->target_right += g_count;   /* image-left = patient's right */
                }
              else if (range == 2)
                {
                  r_right += r_pos;
                  ps->target_left += g_count;
                }
            }
          ps->mass_all += r_all;
          ps->mass_in += r_in;
          ps->sum_in += r_sin;
          ps->sum_out += r_sout;
          ps->mass_left += r_left;
          ps->mass_right += r_right;
          ps->n_in += n_in;
        }
    }
  ps->min = mn;
  ps->max = mx;
  ps->argmax = argmax;
}

static void
scatter_pass (gpointer data, guint part, guint n_parts)
{
  Pipeline *pl = data;
  const HsEvalState *st = pl->state;
  guint64 *opos = pl->counts[part], *oneg = opos + pl->n_buckets;
  double *out = pl->storage;
  guint row_begin, row_end;
  gsize end;

  part_row_range (st, part, n_parts, &row_begin, &row_end);
  end = (gsize) row_end * st->width;
  for (gsize i = (gsize) row_begin * st->width; i < end; i++)
    {
      double v = st->s[i];
      gsize b = pl->bucket_index[i];

      if (st->g[i])
        out[opos[b]++] = v;
      else
        out[oneg[b]++] = v;
    }
}

static void
sort_pass (gpointer data, guint part, guint n_parts)
{
  Pipeline *pl = data;
  const HsEvalState *st = pl->state;
  PartStats *ps = &pl->part[part];
  double ss_in = 0, ss_out = 0;
  /* A cache-resident scratch for the usual bucket: the big scratch array
   * would cost a memory read for ownership per element. */
  const gsize local_n = 16384;
  g_autofree double *local = g_new (double, local_n);
  g_autofree guint16 *idx = g_new (guint16, IDX_MAX);

  for (gsize b = pl->sort_from[part]; b < pl->sort_to[part]; b++)
    {
      gsize off = pl->bucket_start[b], len = pl->bucket_start[b + 1] - off;
      gboolean inside = b < pl->n_buckets;
      double mean = inside ? st->mean_in : st->mean_out, ss = 0, sc = pl->sum_scale;
      double *a = pl->storage + off;

      if (len > 1)
        {
          /* The bucket's value range from the top-level mapping. */
          gsize k = inside ? b : b - pl->n_buckets;
          double width = 1.0 / pl->bk.scale;
          double lo = (pl->bk.lo + (double) k * width) / pl->bk.pre;
          double hi = (pl->bk.lo + (double) (k + 1) * width) / pl->bk.pre;
          double *buf = len <= local_n ? local : pl->scratch + off;

          if (pl->bk.scale > 0 && isfinite (lo) && isfinite (hi) && lo < hi)
            sort_small_bounded (a, len, buf, idx, 1, lo, hi);
          else
            sort_small (a, len, buf, idx, 1);
        }
      {
        /* four chains: the adds do not wait on each other */
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        gsize i = 0;

        for (; i + 4 <= len; i += 4)
          {
            double d0 = a[i] * sc - mean, d1 = a[i + 1] * sc - mean;
            double d2 = a[i + 2] * sc - mean, d3 = a[i + 3] * sc - mean;
            s0 += d0 * d0;
            s1 += d1 * d1;
            s2 += d2 * d2;
            s3 += d3 * d3;
          }
        for (; i < len; i++)
          {
            double d = a[i] * sc - mean;
            s0 += d * d;
          }
        ss = (s0 + s1) + (s2 + s3);
      }
      if (inside)
        ss_in += ss;
      else
        ss_out += ss;
    }
  ps->ss_in = ss_in;
  ps->ss_out = ss_out;
}

/* Runs the n_parts parts over up to n_threads threads (in order, here, with one). */
static void
run_parts (void (*func) (gpointer data, guint part, guint n_parts), gpointer data,
           guint n_parts, guint n_threads)
{
  if (n_threads >= 2 && n_parts >= 2)
    hs_parallel_parts (func, data, n_parts);
  else
    for (guint p = 0; p < n_parts; p++)
      func (data, p, n_parts);
}

/* Number of elements of a (ascending) whose Otsu level is < k. */
static gsize
count_level_below (const double *a, gsize n, guint k, double lo, double hi)
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

/* The 256-bin histograms of u, from the sorted classes: u is monotone in s,
 * so each level boundary is one binary search evaluating the exact formula. */
static void
otsu_histograms (HsEvalState *state)
{
  gsize prev_pos = 0, prev_neg = 0;

  for (guint k = 1; k <= 256; k++)
    {
      gsize cp = k == 256 ? state->n_pos
               : count_level_below (state->pos, state->n_pos, k, state->min, state->max);
      gsize cn = k == 256 ? state->n_neg
               : count_level_below (state->neg, state->n_neg, k, state->min, state->max);

      state->otsu_hist_g[k - 1] = cp - prev_pos;
      state->otsu_hist[k - 1] = (cp - prev_pos) + (cn - prev_neg);
      prev_pos = cp;
      prev_neg = cn;
    }
}

void
hs_metrics_prepare (HsEvalState *state, double *s, const HsResampler *resampler,
                    double bound_lo, double bound_hi, const HsTarget *target,
                    guint n_threads, double *storage, double *scratch, guint16 *bucket_index)
{
  Pipeline pl = { 0 };
  guint n_parts;
  gsize n_lists, total = 0, half;
  g_autofree guint64 *count_block = NULL;
  g_autofree gsize *bucket_start = NULL;
  double sum_in = 0, sum_out = 0;

  memset (state, 0, sizeof *state);
  state->s = s;
  state->g = hs_target_peek_mask (target);
  state->width = hs_target_get_width (target);
  state->height = hs_target_get_height (target);
  state->n = (gsize) state->width * state->height;
  state->n_threads = n_threads;

  /* The split into parts depends on the grid only, never on the thread
   * count: each part sums its own rows, so the totals are bit-identical
   * with one thread or two. */
  n_parts = state->height >= 4 * MAX_PARTS ? MAX_PARTS : 1;

  if (!(bound_lo <= bound_hi))
    {
      /* No bounds known: one pass over the given s. */
      bound_lo = INFINITY;
      bound_hi = -INFINITY;
      for (gsize i = 0; i < state->n; i++)
        {
          bound_lo = MIN (bound_lo, s[i]);
          bound_hi = MAX (bound_hi, s[i]);
        }
    }
  pl.state = state;
  pl.sum_scale = ldexp (1.0, hs_metrics_sum_exponent (bound_lo, bound_hi));
  pl.s = s;
  pl.resampler = resampler;
  pl.n_buckets = bound_lo == bound_hi ? 1 : CLAMP (state->n / 1024, 1, TOP_BUCKETS_MAX);
  bucketing_init (&pl.bk, bound_lo, bound_hi, pl.n_buckets);
  pl.left_end = state->width / 2;
  pl.right_begin = (state->width + 1) / 2;
  pl.storage = storage;
  pl.scratch = scratch;
  pl.bucket_index = bucket_index;
  n_lists = 2 * pl.n_buckets;
  count_block = g_new (guint64, n_lists * n_parts);
  for (guint p = 0; p < n_parts; p++)
    pl.counts[p] = count_block + p * n_lists;

  run_parts (first_pass, &pl, n_parts, n_threads);

  state->min = pl.part[0].min;
  state->max = pl.part[0].max;
  state->argmax = pl.part[0].argmax;
  for (guint p = 0; p < n_parts; p++)
    {
      const PartStats *ps = &pl.part[p];

      if (p > 0)
        {
          state->min = MIN (state->min, ps->min);
          if (ps->max > state->max)   /* strictly: the first maximum wins */
            {
              state->max = ps->max;
              state->argmax = ps->argmax;
            }
        }
      state->n_pos += ps->n_in;
      state->mass_all += ps->mass_all;
      state->mass_in += ps->mass_in;
      state->mass_left += ps->mass_left;
      state->mass_right += ps->mass_right;
      state->target_left += ps->target_left;
      state->target_right += ps->target_right;
      sum_in += ps->sum_in;
      sum_out += ps->sum_out;
    }
  state->n_neg = state->n - state->n_pos;
  state->mean_in = state->n_pos > 0 ? sum_in / (double) state->n_pos : 0;
  state->mean_out = state->n_neg > 0 ? sum_out / (double) state->n_neg : 0;

  /* Layout: G buckets 0..B−1 then outside buckets 0..B−1; within a bucket,
   * part 0's values then part 1's (deterministic). */
  bucket_start = g_new (gsize, n_lists + 1);
  for (gsize l = 0; l < n_lists; l++)
    {
      bucket_start[l] = total;
      for (guint p = 0; p < n_parts; p++)
        {
          guint64 c = pl.counts[p][l];
          pl.counts[p][l] = total;
          total += c;
        }
    }
  bucket_start[n_lists] = total;
  g_assert (total == state->n);

  run_parts (scatter_pass, &pl, n_parts, n_threads);

  pl.bucket_start = bucket_start;
  half = total / 2;
  if (n_parts == 1)
    {
      pl.sort_from[0] = 0;
      pl.sort_to[0] = n_lists;
    }
  else
    {
      gsize split = 0;

      while (split < n_lists && bucket_start[split + 1] <= half)
        split++;
      pl.sort_from[0] = 0;
      pl.sort_to[0] = split;
      pl.sort_from[1] = split;
      pl.sort_to[1] = n_lists;
    }
  run_parts (sort_pass, &pl, n_parts, n_threads);

  state->pos = storage;
  state->neg = storage + state->n_pos;
  for (guint p = 0; p < n_parts; p++)
    {
      state->ss_in += pl.part[p].ss_in;
      state->ss_out += pl.part[p].ss_out;
    }
  /* A constant class has variance exactly 0 (its mean may be off by an ulp). */
  if (state->n_pos > 0 && state->pos[0] == state->pos[state->n_pos - 1])
    state->ss_in = 0;
  if (state->n_neg > 0 && state->neg[0] == state->neg[state->n_neg - 1])
    state->ss_out = 0;

  otsu_histograms (state);
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
/* One stretch of the walk: the groups of G values in pos[end..begin),
 * top down, starting with tp values of G above them. */
typedef struct {
  const HsEvalState *state;
  gsize   begin[2], end[2];
  guint64 two_u[2];
  double  ap[2];
} RankJob;

static void
rank_part (gpointer data, guint part, guint n_parts)
{
  RankJob *job = data;
  const HsEvalState *st = job->state;
  const double *pos = st->pos, *neg = st->neg;
  gsize i = job->begin[part], stop = job->end[part], j;
  guint64 tp = st->n_pos - i, two_u = 0;
  double ap = 0;

  /* values outside G at or below the stretch's top value */
  j = i > 0 ? count_below (neg, st->n_neg, pos[i - 1], TRUE) : 0;
  while (i > stop)
    {
      double v = pos[i - 1];
      guint64 cp = 0, cn;
      gsize jj;

      while (i > stop && pos[i - 1] == v)
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
      ap += ((double) cp / (double) st->n_pos)
            * ((double) tp / (double) (tp + (st->n_neg - j)));
    }
  job->two_u[part] = two_u;
  job->ap[part] = ap;
}

/* auroc and ap in one walk over the distinct values of G, top down, with a
 * tight scan of the values outside G.  Integer counts throughout.  The walk
 * is always cut in the same two stretches (at a change of value), whatever
 * the thread count, so the sum is the same with one thread or two. */
void
hs_metrics_rank_metrics (const HsEvalState *state, HsScores *out)
{
  RankJob job = { state };
  gsize cut;

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

  /* the upper stretch is pos[cut..n_pos), the lower pos[0..cut); a group of
   * equal values never straddles the cut */
  /* Cut where the merged walk (values of G plus values outside G scanned)
   * is halved: the lower stretch also scans every value outside G below it,
   * usually most of them.  The cut depends on the data only. */
  {
    gsize lo = 1, hi = state->n_pos, half_n = state->n / 2;

    while (lo < hi)
      {
        gsize mid = lo + (hi - lo) / 2;

        if (mid + count_below (state->neg, state->n_neg, state->pos[mid - 1], TRUE) < half_n)
          lo = mid + 1;
        else
          hi = mid;
      }
    cut = lo < state->n_pos ? lo : state->n_pos / 2;
  }
  while (cut > 0 && state->pos[cut - 1] == state->pos[cut])
    cut--;
  job.begin[0] = state->n_pos;
  job.end[0] = cut;
  job.begin[1] = cut;
  job.end[1] = 0;
  hs_parallel_parts (rank_part, &job, state->n_threads >= 2 && state->n_pos >= 65536 ? 2 : 1);
  if (state->n_threads < 2 || state->n_pos < 65536)
    rank_part (&job, 1, 2);
  hs_scores_set (out, HS_METRIC_AUROC,
                 (double) (job.two_u[0] + job.two_u[1])
                 / (2.0 * (double) state->n_pos * (double) state->n_neg));
  hs_scores_set (out, HS_METRIC_AP, job.ap[0] + job.ap[1]);
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
  /* The smallest value in the region u > t: the region is exactly s ≥ it. */
  out->otsu_threshold = NAN;
  if (t < 255)
    {
      gsize ip = count_level_below (state->pos, state->n_pos, (guint) t + 1, state->min, state->max);
      gsize in = count_level_below (state->neg, state->n_neg, (guint) t + 1, state->min, state->max);

      if (ip < state->n_pos)
        out->otsu_threshold = state->pos[ip];
      if (in < state->n_neg && !(state->neg[in] >= out->otsu_threshold))
        out->otsu_threshold = state->neg[in];
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
