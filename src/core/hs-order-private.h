/* hs-order-private.h — sorting doubles and numpy's percentile
 *
 * The overlay's percentile scale, the summary's bootstrap intervals and the
 * legend's ticks each sort doubles with qsort and (the first two) read a
 * percentile off the sorted values; both are here once, so a percentile
 * range in the viewer and a bootstrap interval in `metrics --summary` are the
 * same numpy computation. */
#pragma once

#include <glib.h>
#include <math.h>

G_BEGIN_DECLS

/* qsort's comparator for ascending doubles (NaN-free input). */
static inline int
hs_compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* numpy.percentile's default ("linear") of n ≥ 1 ascending values: position
 * p/100·(n − 1), interpolated between its two neighbours (p in [0, 100]). */
static inline double
hs_percentile_sorted (const double *sorted, gsize n, double p)
{
  double position = p / 100.0 * (double) (n - 1);
  gsize below = (gsize) floor (position);
  double fraction = position - (double) below;

  if (below >= n - 1)
    return sorted[n - 1];
  return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

G_END_DECLS
