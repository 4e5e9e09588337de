/* hs-metrics-sort.c — sorting doubles for the metrics: a bucket of the
 * scoring pipeline (and the table of sub-buckets its count of the rest
 * reads), or a whole array (hs_metrics_sort_doubles). */
#include "hs-metrics-bucketing-private.h"
#include "hs-order-private.h"

#include <stdlib.h>
#include <string.h>

#define INSERTION_MAX   32
#define MAX_DEPTH       24

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

typedef guint32 HsV4u __attribute__ ((vector_size (16)));

/* Turns counts[1..n_buckets] into starts; TRUE when a bucket holds more
 * values than the insertion pass should take (so it needs its own sort). */
static inline gboolean
prefix_sums (guint32 *counts, gsize n_buckets)
{
  /* four counts at a time: an in-register prefix of four (two shifted adds)
   * plus the carry — the sort's table has four sub-buckets a value, so
   * this loop, not the values, was its longest */
  const HsV4u zero = { 0, 0, 0, 0 }, limit = { INSERTION_MAX, INSERTION_MAX, INSERTION_MAX, INSERTION_MAX };
  HsV4u carry = { counts[0], counts[0], counts[0], counts[0] }, over = zero;
  guint32 crowded = 0, *c = counts + 1;
  gsize b = 0;

  for (; b + 4 <= n_buckets; b += 4)
    {
      HsV4u v;

      memcpy (&v, c + b, sizeof v);
      over |= (HsV4u) (v > limit);
      /* (GCC 12 and clang both have __builtin_shufflevector) */
      v += __builtin_shufflevector (zero, v, 0, 4, 5, 6);
      v += __builtin_shufflevector (zero, v, 0, 1, 4, 5);
      v += carry;
      memcpy (c + b, &v, sizeof v);
      carry = __builtin_shufflevector (v, v, 3, 3, 3, 3);
    }
  crowded = (over[0] | over[1]) | (over[2] | over[3]);
  for (; b < n_buckets; b++)
    {
      crowded |= counts[b + 1] > INSERTION_MAX;
      counts[b + 1] += counts[b];
    }
  return crowded != 0;
}

/* When `first` is given and the sort bucketed [lo, hi] into n sub-buckets,
 * first[j] is left as the start of sub-bucket j in the sorted a (j ≤ n) and
 * n is returned; else 0. */
static gsize
sort_small_bounded (double *a, gsize n, double *scratch, guint16 *idx, int depth, double lo, double hi,
                    guint32 *first);

/* Sorts a[0..n) using scratch[0..n) (and idx[0..n) when n ≤ IDX_MAX): one
 * linear bucketing pass into about 2n buckets, recursion for the rare
 * crowded bucket, then one insertion pass over the whole array (buckets are
 * already in order, so it only fixes the few shared buckets). */
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
  sort_small_bounded (a, n, scratch, idx, depth, lo, hi, NULL);
}

/* [lo, hi] need only approximately bound the values (outliers are clamped
 * into the end buckets, which stays monotone). */
static gsize
sort_small_bounded (double *a, gsize n, double *scratch, guint16 *idx, int depth, double lo, double hi,
                    guint32 *first)
{
  guint32 counts[SUB_BUCKETS_MAX + 1];
  HsBucketing bk;
  gsize n_buckets;
  gboolean crowded;

  if (n <= INSERTION_MAX)
    {
      insertion_sort (a, n);
      return 0;
    }
  if (depth > MAX_DEPTH || n > G_MAXUINT32)
    {
      qsort (a, n, sizeof (double), hs_compare_doubles);
      return 0;
    }
  /* A bucket of one repeated value (a quantised map: every pixel of a level
   * in one bucket) is sorted already; random values leave this scan at the
   * second element. */
  {
    gsize i = 1;

    while (i < n && a[i] == a[0])
      i++;
    if (i == n)
      return 0;
  }

  /* about two sub-buckets a value; more when the table is wanted (fewer
   * shared ones, see count_against) */
  n_buckets = CLAMP ((first != NULL ? SUB_SPREAD : 2) * n, 2, SUB_BUCKETS_MAX);
  hs_bucketing_init (&bk, lo, hi, n_buckets);
  memset (counts, 0, (n_buckets + 1) * sizeof (guint32));
  if (idx != NULL && n <= IDX_MAX)
    {
      for (gsize i = 0; i < n; i++)
        {
          gsize b = hs_bucket_of (&bk, a[i]);
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
        counts[hs_bucket_of (&bk, a[i]) + 1]++;
      crowded = prefix_sums (counts, n_buckets);
      for (gsize i = 0; i < n; i++)
        scratch[counts[hs_bucket_of (&bk, a[i])]++] = a[i];
    }
  /* counts[b] is now the end of bucket b. */
  if (first != NULL)
    {
      first[0] = 0;
      memcpy (first + 1, counts, n_buckets * sizeof (guint32));
    }
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
  return first != NULL ? n_buckets : 0;
}

void
hs_metrics_sort_doubles (double *values, gsize n, double *scratch)
{
  gsize n_buckets, off;
  g_autofree gsize *counts = NULL;
  HsBucketing bk;
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
  hs_bucketing_init (&bk, lo, hi, n_buckets);
  counts = g_new0 (gsize, n_buckets + 1);
  for (gsize i = 0; i < n; i++)
    counts[hs_bucket_of (&bk, values[i]) + 1]++;
  for (gsize b = 0; b < n_buckets; b++)
    counts[b + 1] += counts[b];
  for (gsize i = 0; i < n; i++)
    scratch[counts[hs_bucket_of (&bk, values[i])]++] = values[i];
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

gsize
hs_metrics_sort_bucket (const HsBucketing *bk, gsize k, double *a, gsize len, double *buf, guint16 *idx,
                        guint32 *first)
{
  double lo, hi;

  if (len <= 1)
    return 0;
  if (hs_bucket_range (bk, k, &lo, &hi))
    return sort_small_bounded (a, len, buf, idx, 1, lo, hi, first);
  sort_small (a, len, buf, idx, 1);
  return 0;
}
