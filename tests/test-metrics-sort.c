/* test-metrics-sort.c — the sort behind auroc, ap, top-k, Otsu and
 * explanation_precision (hs-metrics-sort.c, hs-metrics-threshold.c) against qsort, on inputs
 * chosen to break a bucket sort: one repeated value, signed zeros,
 * subnormals, ±FLT_MAX and ±DBL_MAX (the value span overflows), clusters of
 * values a few ulps apart (crowded buckets, recursion), one far outlier
 * (every value in one bucket down to the depth limit), sorted and reversed
 * input.  Each is sorted alone (hs_metrics_sort_doubles) and through the
 * scoring pipeline (hs_metrics_prepare: the two classes of a target, with one
 * and two threads, bounds known and unknown), with one positive pixel, every
 * pixel positive, no positive pixel and a box.  The sorted order of doubles
 * is unique up to the order of −0 and +0, so every place must hold the
 * value qsort puts there. */
#include <heatscope/heatscope.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"
#include "../src/core/hs-metrics-private.h"

static int
compare_doubles (const void *pa, const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;

  return (a > b) - (a < b);
}

typedef enum {
  INPUT_ALL_TIES, INPUT_TWO_ULPS, INPUT_SIGNED_ZEROS, INPUT_SUBNORMALS, INPUT_HUGE,
  INPUT_ULP_CLUSTER, INPUT_OUTLIER, INPUT_FEW_VALUES, INPUT_ASCENDING, INPUT_DESCENDING,
  INPUT_BLOB, N_INPUTS
} Input;

static const char *input_names[N_INPUTS] = {
  "all-ties", "two-ulps", "signed-zeros", "subnormals", "flt-max-dbl-max", "ulp-cluster",
  "outlier", "few-values", "ascending", "descending", "blob",
};

static void
fill (double *v, gsize n, Input input, GRand *rand)
{
  for (gsize i = 0; i < n; i++)
    {
      double r = g_rand_double (rand);
      guint k = g_rand_int_range (rand, 0, 8);

      switch (input)
        {
        case INPUT_ALL_TIES:
          v[i] = 0.25;
          break;
        case INPUT_TWO_ULPS:
          v[i] = r < 0.5 ? 1.0 : nextafter (1.0, 2.0);
          break;
        case INPUT_SIGNED_ZEROS:
          {
            const double z[8] = { 0.0, -0.0, 0.0, -0.0, DBL_TRUE_MIN, -DBL_TRUE_MIN, DBL_MIN, -DBL_MIN };
            v[i] = z[k];
          }
          break;
        case INPUT_SUBNORMALS:
          /* every subnormal magnitude band, both signs, and zeros */
          v[i] = k == 0 ? 0.0 : k == 1 ? -0.0
                 : (r < 0.5 ? -1 : 1) * ldexp ((double) g_rand_int (rand), -1074 + (gint) g_rand_int_range (rand, 0, 20));
          break;
        case INPUT_HUGE:
          {
            const double e[8] = { -DBL_MAX, DBL_MAX, -FLT_MAX, FLT_MAX, 0.0, -0.0, 1.0, -1e300 };
            v[i] = k < 6 ? e[k] : (r - 0.5) * 2 * DBL_MAX;
          }
          break;
        case INPUT_ULP_CLUSTER:
          {
            /* 0.5 plus up to 40 ulps: thousands of values in one sub-bucket */
            double x = 0.5;
            guint steps = g_rand_int_range (rand, 0, 40);
            for (guint s = 0; s < steps; s++)
              x = nextafter (x, 1.0);
            v[i] = k == 0 ? 3.0 : x;
          }
          break;
        case INPUT_OUTLIER:
          v[i] = i == n / 2 ? 1e300 : r * 1e-9;
          break;
        case INPUT_FEW_VALUES:
          v[i] = floor (r * 7) / 7 - 0.5;
          break;
        case INPUT_ASCENDING:
          v[i] = (double) i / 3;
          break;
        case INPUT_DESCENDING:
          v[i] = -(double) i / 3;
          break;
        case INPUT_BLOB:
          {
            /* bench-score's map: most values crowd a tenth of the range */
            double dx = r - 0.35, dy = g_rand_double (rand) - 0.4;
            v[i] = exp (-(dx * dx + dy * dy) / 0.02) + 0.3 * g_rand_double (rand);
          }
          break;
        default:
          g_assert_not_reached ();
        }
    }
}

/* got is sorted as qsort sorts want: the same value at every place (−0 and
 * +0 compare equal) and the same number of −0s (nothing lost or made up). */
static void
assert_sorted_as (const double *got, double *want, gsize n, const char *what)
{
  gsize neg_zero_got = 0, neg_zero_want = 0;

  qsort (want, n, sizeof (double), compare_doubles);
  for (gsize i = 0; i < n; i++)
    {
      if (!(got[i] == want[i]))
        g_error ("%s: place %zu of %zu holds %.17g, qsort puts %.17g there", what, i, n, got[i], want[i]);
      neg_zero_got += got[i] == 0 && signbit (got[i]);
      neg_zero_want += want[i] == 0 && signbit (want[i]);
    }
  g_assert_cmpuint (neg_zero_got, ==, neg_zero_want);
}

static void
test_sort_doubles (void)
{
  /* sizes around every switch of the sort: insertion only (≤ 32), one
   * bucketing level, sub-buckets capped (> 2048), no bucket-index buffer
   * (> 16384), the coarse top level (> 16384) */
  const gsize sizes[] = { 1, 2, 31, 33, 1000, 5000, 20000, 200000 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (26);

  for (guint in = 0; in < N_INPUTS; in++)
    for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
      {
        gsize n = sizes[si];
        g_autofree double *v = g_new (double, n);
        g_autofree double *want = g_new (double, n);
        g_autofree double *scratch = g_new (double, n);
        g_autofree char *what = g_strdup_printf ("sort %s, n = %zu", input_names[in], n);

        fill (v, n, (Input) in, rand);
        memcpy (want, v, n * sizeof (double));
        hs_metrics_sort_doubles (v, n, scratch);
        assert_sorted_as (v, want, n, what);
      }
}

typedef enum { TARGET_ONE_PIXEL, TARGET_ALL, TARGET_NONE, TARGET_BOX, N_TARGETS } TargetKind;

static HsTarget *
make_target (guint W, guint H, TargetKind kind)
{
  HsEvalGrid grid;
  HsTarget *target;
  g_autoptr(GError) error = NULL;
  HsBox box;

  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, W, H, 0, &error));
  target = hs_target_new (&grid);
  switch (kind)
    {
    case TARGET_ONE_PIXEL:
      box = (HsBox) { W / 3, H / 2, W / 3 + 1, H / 2 + 1 };
      break;
    case TARGET_ALL:
      box = (HsBox) { 0, 0, W, H };
      break;
    case TARGET_BOX:
      box = (HsBox) { W * 0.2, H * 0.25, W * 0.7, H * 0.8 };
      break;
    case TARGET_NONE:
    default:
      return target;
    }
  g_assert_true (hs_target_add_box (target, &box, &error));
  return target;
}

/* How many of a (ascending) are < v, or ≤ v. */
static gsize
ref_count_below (const double *a, gsize n, double v, gboolean or_equal)
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

/* What the pipeline leaves for the metrics, against the classes sorted by
 * qsort (pos, neg): auroc's 2·U and ap by a walk over both, the Otsu
 * histograms level by level, the r-th largest of the union and the counts
 * at a value (before any bucket of the rest is sorted and after some are),
 * and the Otsu threshold. */
static void
assert_order_statistics (HsEvalState *state, const double *pos, gsize n_pos,
                         const double *neg, gsize n_neg, const double *all, const double *s,
                         GRand *rand, const char *what)
{
  gsize n = n_pos + n_neg, n_r = n <= 2000 ? n : 300;
  g_autofree double *probe = g_new (double, 3 * n_r);
  guint64 hist[256] = { 0 }, hist_g[256] = { 0 };
  HsScores scores;

  /* auroc and ap: the walk over G's distinct values, top down */
  if (n_pos > 0 && n_neg > 0)
    {
      guint64 two_u = 0, tp = 0;
      double ap = 0;

      for (gsize i = n_pos; i > 0;)
        {
          double v = pos[i - 1];
          gsize end = i, below = ref_count_below (neg, n_neg, v, FALSE);
          gsize equal = ref_count_below (neg, n_neg, v, TRUE) - below;

          while (i > 0 && pos[i - 1] == v)
            i--;
          tp += end - i;
          two_u += (end - i) * (2 * below + equal);
          ap += ((double) (end - i) / n_pos) * ((double) tp / (double) (tp + n_neg - below));
        }
      if (state->two_u != two_u)
        g_error ("%s: 2·U %" G_GUINT64_FORMAT ", by the walk %" G_GUINT64_FORMAT, what, state->two_u, two_u);
      if (!(fabs (state->ap - ap) <= 1e-12 * ap))
        g_error ("%s: ap %.17g, by the walk %.17g", what, state->ap, ap);
    }

  /* Otsu histograms */
  for (gsize i = 0; i < n; i++)
    {
      guint u = hs_metrics_otsu_u (s[i], state->min, state->max);

      hist[u]++;
      hist_g[u] += state->g[i];
    }
  for (guint u = 0; u < 256; u++)
    if (state->otsu_hist[u] != hist[u] || state->otsu_hist_g[u] != hist_g[u])
      g_error ("%s: Otsu level %u holds %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " in G), counted %"
               G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT ")", what, u, state->otsu_hist[u],
               state->otsu_hist_g[u], hist[u], hist_g[u]);

  /* values to count at: taken values and their neighbours */
  for (gsize i = 0; i < n_r; i++)
    {
      double v = s[n <= 2000 ? i : (gsize) g_rand_int_range (rand, 0, (gint32) n)];

      probe[3 * i] = v;
      probe[3 * i + 1] = nextafter (v, -INFINITY);
      probe[3 * i + 2] = nextafter (v, INFINITY);
    }
  for (guint pass = 0; pass < 2; pass++)
    {
      /* pass 0: every bucket of the rest as the pipeline left it; pass 1:
       * after the r-th largest sorted the buckets it fell in */
      for (gsize i = 0; i < 3 * n_r; i++)
        for (guint strict = 0; strict < 2; strict++)
          {
            guint64 total, in;
            gsize want_in = n_pos - ref_count_below (pos, n_pos, probe[i], strict);
            gsize want = want_in + n_neg - ref_count_below (neg, n_neg, probe[i], strict);

            hs_metrics_count_at_least (state, probe[i], strict, &total, &in);
            if (total != want || in != want_in)
              g_error ("%s (pass %u): %s %.17g: %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " in G), counted %zu (%zu)",
                       what, pass, strict ? ">" : "≥", probe[i], total, in, want, want_in);
          }
      if (pass == 1)
        break;
      for (gsize i = 0; i < n_r; i++)
        {
          guint64 r = n <= 2000 ? i + 1 : i == 0 ? 1 : i == 1 ? n : (guint64) g_rand_int_range (rand, 1, (gint32) n + 1);
          double got = hs_metrics_kth_largest (state, r);

          if (!(got == all[n - r]))
            g_error ("%s: the %" G_GUINT64_FORMAT "-th largest is %.17g, qsort says %.17g", what, r, got, all[n - r]);
        }
    }

  /* the Otsu threshold: the least value whose level is above the cut */
  memset (&scores, 0, sizeof scores);
  hs_metrics_otsu_iou (state, &scores);
  {
    double want = NAN;

    for (gsize i = 0; i < n && scores.otsu_level < 255; i++)
      if (hs_metrics_otsu_u (all[i], state->min, state->max) > (guint) scores.otsu_level)
        {
          want = all[i];
          break;
        }
    if (!(scores.otsu_threshold == want || (isnan (want) && isnan (scores.otsu_threshold))))
      g_error ("%s: Otsu threshold %.17g, the least value above level %d is %.17g", what,
               scores.otsu_threshold, scores.otsu_level, want);
  }
}

static void
test_prepare (void)
{
  /* 600 × 500 splits into two parts of rows and a coarse top level; 7 × 5
   * takes the one-part path */
  const guint shapes[][2] = { { 600, 500 }, { 7, 5 } };
  g_autoptr(GRand) rand = g_rand_new_with_seed (2026);

  for (guint sh = 0; sh < G_N_ELEMENTS (shapes); sh++)
    {
      guint W = shapes[sh][0], H = shapes[sh][1];
      gsize n = (gsize) W * H;
      g_autofree double *s = g_new (double, n);
      g_autofree double *storage = g_new (double, n);
      g_autofree double *scratch = g_new (double, n);
      g_autofree double *want_pos = g_new (double, n);
      g_autofree double *want_neg = g_new (double, n);
      g_autofree double *all = g_new (double, n);

      for (guint in = 0; in < N_INPUTS; in++)
        {
          double lo = INFINITY, hi = -INFINITY;

          fill (s, n, (Input) in, rand);
          for (gsize i = 0; i < n; i++)
            {
              lo = MIN (lo, s[i]);
              hi = MAX (hi, s[i]);
            }
          for (guint tk = 0; tk < N_TARGETS; tk++)
            {
              g_autoptr(HsTarget) target = make_target (W, H, (TargetKind) tk);
              const guint8 *g = hs_target_peek_mask (target);
              gsize n_pos = 0, n_neg = 0;

              for (gsize i = 0; i < n; i++)
                {
                  if (g[i])
                    want_pos[n_pos++] = s[i];
                  else
                    want_neg[n_neg++] = s[i];
                }
              /* the classes and their union in order, for every run below */
              qsort (want_neg, n_neg, sizeof (double), compare_doubles);
              memcpy (all, s, n * sizeof (double));
              qsort (all, n, sizeof (double), compare_doubles);
              for (guint threads = 1; threads <= 2; threads++)
                for (guint bounds = 0; bounds < 2; bounds++)
                  {
                    HsEvalState state;
                    g_autofree char *what = g_strdup_printf ("prepare %s, %u × %u, target %u, %u threads, bounds %s",
                                                             input_names[in], W, H, tk, threads,
                                                             bounds ? "known" : "unknown");
                    g_autofree double *pos = g_memdup2 (want_pos, MAX (n_pos, 1) * sizeof (double));

                    hs_metrics_prepare (&state, s, NULL, bounds ? lo : NAN, bounds ? hi : NAN,
                                        target, threads, storage, scratch);
                    g_assert_cmpuint (state.n_pos, ==, n_pos);
                    g_assert_cmpuint (state.n_neg, ==, n_neg);
                    assert_sorted_as (state.pos, pos, n_pos, what);
                    g_assert_cmpfloat (state.min, ==, lo);
                    g_assert_cmpfloat (state.max, ==, hi);
                    assert_order_statistics (&state, pos, n_pos, want_neg, n_neg, all, s, rand, what);
                    hs_metrics_state_clear (&state);
                  }
            }
        }
    }
}

/* NaN and ±Inf are still rejected, naming the first bad cell, wherever the
 * cell falls in the range check's four interleaved chains or its tail. */
static void
test_non_finite_rejected (void)
{
  const guint W = 41, H = 25;   /* 1025 cells: one past a multiple of 4 */
  const double bad[] = { NAN, INFINITY, -INFINITY };
  const gsize cells[] = { 0, 1, 2, 3, 513, 1022, 1023, 1024 };
  g_autofree double *values = g_new (double, W * H);
  g_autoptr(HsTarget) target = make_target (W, H, TARGET_BOX);

  for (guint b = 0; b < G_N_ELEMENTS (bad); b++)
    for (guint c = 0; c < G_N_ELEMENTS (cells); c++)
      {
        g_autoptr(GError) error = NULL;
        g_autofree char *where = g_strdup_printf ("(row %zu, column %zu) is %s", cells[c] / W, cells[c] % W,
                                                  isnan (bad[b]) ? "NaN" : bad[b] > 0 ? "+Inf" : "-Inf");
        HsScores scores;

        for (gsize i = 0; i < W * H; i++)
          values[i] = (double) (i % 17) - 3;
        values[cells[c]] = bad[b];
        if (cells[c] + 7 < W * H)
          values[cells[c] + 7] = NAN;   /* a later bad cell is not the one named */
        g_assert_false (hs_score_values (values, W, H, NAN, "m.npy", target, NULL, &scores, &error));
        g_assert_error (error, HS_METRICS_ERROR, HS_METRICS_ERROR_NON_FINITE);
        if (strstr (error->message, where) == NULL || strstr (error->message, "m.npy") == NULL)
          g_error ("expected \"%s\" in: %s", where, error->message);
      }
}

/* Entropy remembers recent values' terms: a quantised grid whose levels
 * collide in the memo (the memo stays on), and a grid of distinct values
 * (the memo turns itself off), give the entropy computed here term by term. */
static void
entropy_case (gboolean distinct)
{
  const guint W = 600, H = 500;
  g_autofree double *grid = g_new (double, W * H);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autoptr(HsTarget) target = make_target (W, H, TARGET_BOX);
  g_autoptr(GError) error = NULL;
  HsScores scores;
  double total = 0, h = 0;

  for (gsize i = 0; i < (gsize) W * H; i++)
    {
      /* 3000 levels (more than the memo holds), zeros and negatives */
      gint level = g_rand_int_range (rand, -300, 3000);

      grid[i] = level <= 0 ? (level < -200 ? -1.5 : 0.0) : level / 3000.0;
      if (distinct)
        grid[i] = g_rand_double (rand) + 1e-3;
    }
  for (gsize i = 0; i < (gsize) W * H; i++)
    total += grid[i] > 0 ? grid[i] : 0;
  for (gsize i = 0; i < (gsize) W * H; i++)
    if (grid[i] > 0)
      h -= grid[i] / total * log (grid[i] / total);
  g_assert_true (hs_score_values (grid, W, H, NAN, "m", target, NULL, &scores, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (scores.value[HS_METRIC_ENTROPY], h, 1e-9 * h);
  g_assert_cmpfloat_with_epsilon (scores.value[HS_METRIC_ENTROPY_NORM], h / log ((double) W * H), 1e-9);
}

static void
test_entropy_memo (void)
{
  entropy_case (FALSE);
  entropy_case (TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/metrics-sort/sort-doubles", test_sort_doubles);
  g_test_add_func ("/hs/metrics-sort/prepare", test_prepare);
  g_test_add_func ("/hs/metrics-sort/non-finite-rejected", test_non_finite_rejected);
  g_test_add_func ("/hs/metrics-sort/entropy-memo", test_entropy_memo);
  return g_test_run ();
}
