/* hs-summary.c — means, counts and seeded bootstrap percentile intervals */
#include "hs-summary.h"
#include "hs-order-private.h"
#include "hs-random-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct _HsSummary {
  guint   n_columns;
  /* Finished groups: n_columns instance means each (NAN = undefined). */
  GArray *means;          /* of double */
  GArray *row_counts;     /* of guint, n_columns per finished group */
  guint   n_groups;
  /* The open group. */
  double *sum;
  guint  *count;
  gboolean open_has_rows;
};

/* --- generator: xoshiro256** (hs-random-private.h) --------------------- */

void
hs_summary_rng_init (HsSummaryRng *rng, guint64 seed)
{
  g_return_if_fail (rng != NULL);
  hs_xoshiro256_init (rng->s, seed);
}

guint64
hs_summary_rng_next (HsSummaryRng *rng)
{
  return hs_xoshiro256_next (rng->s);
}

double
hs_summary_rng_uniform (HsSummaryRng *rng)
{
  return hs_random_bits_to_double (hs_xoshiro256_next (rng->s));
}

/* --- table --------------------------------------------------------------- */

HsSummary *
hs_summary_new (guint n_columns)
{
  HsSummary *summary;

  g_return_val_if_fail (n_columns > 0, NULL);

  summary = g_new0 (HsSummary, 1);
  summary->n_columns = n_columns;
  summary->means = g_array_new (FALSE, FALSE, sizeof (double));
  summary->row_counts = g_array_new (FALSE, FALSE, sizeof (guint));
  summary->sum = g_new0 (double, n_columns);
  summary->count = g_new0 (guint, n_columns);
  return summary;
}

void
hs_summary_free (HsSummary *summary)
{
  if (summary == NULL)
    return;
  g_array_unref (summary->means);
  g_array_unref (summary->row_counts);
  g_free (summary->sum);
  g_free (summary->count);
  g_free (summary);
}

guint
hs_summary_get_n_columns (const HsSummary *summary)
{
  g_return_val_if_fail (summary != NULL, 0);
  return summary->n_columns;
}

static void
close_group (HsSummary *summary)
{
  if (!summary->open_has_rows)
    return;
  for (guint c = 0; c < summary->n_columns; c++)
    {
      double mean = summary->count[c] > 0 ? summary->sum[c] / summary->count[c] : NAN;

      g_array_append_val (summary->means, mean);
      g_array_append_val (summary->row_counts, summary->count[c]);
    }
  summary->n_groups++;
  memset (summary->sum, 0, summary->n_columns * sizeof (double));
  memset (summary->count, 0, summary->n_columns * sizeof (guint));
  summary->open_has_rows = FALSE;
}

guint
hs_summary_get_n_groups (const HsSummary *summary)
{
  g_return_val_if_fail (summary != NULL, 0);
  return summary->n_groups + (summary->open_has_rows ? 1 : 0);
}

void
hs_summary_begin_group (HsSummary *summary)
{
  g_return_if_fail (summary != NULL);
  close_group (summary);
}

void
hs_summary_add (HsSummary *summary, const double *values)
{
  g_return_if_fail (summary != NULL);
  g_return_if_fail (values != NULL);

  summary->open_has_rows = TRUE;
  for (guint c = 0; c < summary->n_columns; c++)
    if (isfinite (values[c]))
      {
        summary->sum[c] += values[c];
        summary->count[c]++;
      }
}

void
hs_summary_compute (HsSummary *summary, guint n_resamples, guint64 seed, HsSummaryStat *out)
{
  guint n_columns, n_groups;
  const double *means;
  g_autofree double *sums = NULL;
  g_autofree guint *counts = NULL;
  g_autofree double *stats = NULL;     /* n_columns × n_resamples */
  g_autofree guint *n_stats = NULL;
  g_autofree guint *draws = NULL;
  HsSummaryRng rng;

  g_return_if_fail (summary != NULL);
  g_return_if_fail (out != NULL);

  close_group (summary);
  n_columns = summary->n_columns;
  n_groups = summary->n_groups;
  means = (const double *) (void *) summary->means->data;

  for (guint c = 0; c < n_columns; c++)
    {
      double sum = 0.0;
      guint n = 0, rows = 0;

      for (guint g = 0; g < n_groups; g++)
        {
          double v = means[(gsize) g * n_columns + c];

          rows += g_array_index (summary->row_counts, guint, (gsize) g * n_columns + c);
          if (!isnan (v))
            {
              sum += v;
              n++;
            }
        }
      out[c].n_instances = n;
      out[c].n_rows = rows;
      out[c].mean = n > 0 ? sum / n : NAN;
      out[c].ci_low = out[c].ci_high = NAN;
      out[c].n_resamples = n_resamples;
      out[c].seed = seed;
    }
  if (n_groups == 0 || n_resamples == 0)
    return;

  sums = g_new (double, n_columns);
  counts = g_new (guint, n_columns);
  stats = g_new (double, (gsize) n_columns * n_resamples);
  n_stats = g_new0 (guint, n_columns);
  draws = g_new (guint, n_groups);
  hs_summary_rng_init (&rng, seed);

  for (guint b = 0; b < n_resamples; b++)
    {
      for (guint i = 0; i < n_groups; i++)
        {
          guint index = (guint) (hs_summary_rng_uniform (&rng) * n_groups);
          draws[i] = MIN (index, n_groups - 1);
        }
      memset (sums, 0, n_columns * sizeof (double));
      memset (counts, 0, n_columns * sizeof (guint));
      for (guint i = 0; i < n_groups; i++)
        {
          const double *row = means + (gsize) draws[i] * n_columns;

          for (guint c = 0; c < n_columns; c++)
            if (!isnan (row[c]))
              {
                sums[c] += row[c];
                counts[c]++;
              }
        }
      for (guint c = 0; c < n_columns; c++)
        if (counts[c] > 0)
          stats[(gsize) c * n_resamples + n_stats[c]++] = sums[c] / counts[c];
    }

  for (guint c = 0; c < n_columns; c++)
    {
      double *column = stats + (gsize) c * n_resamples;

      if (n_stats[c] == 0)
        continue;
      qsort (column, n_stats[c], sizeof (double), hs_compare_doubles);
      out[c].ci_low = hs_percentile_sorted (column, n_stats[c], 2.5);
      out[c].ci_high = hs_percentile_sorted (column, n_stats[c], 97.5);
    }
}
