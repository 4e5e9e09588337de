/* test-metrics-scale.c — every metric is the same for a map and the map scaled
 *
 * Promise (docs/reliability.md): metrics on a map multiplied by 1e300 (or
 * 1e-300, or a power of two up to 2^±900) equal the metrics on the map
 * itself within 1e-9, in every protocol, for comparisons (sym_kl, deltas)
 * and curves; finite maps are never scored as overflow.  chexlocalize
 * computes in float32 as CheXlocalize does: exact for powers of two, within
 * float32 rounding (1e-6) for other factors. */
#include <heatscope/heatscope.h>
#include "hs-test-util.h"

#include <math.h>

#define W 96
#define H 80
#define MW 12
#define MH 10
#define TOL 1e-9

static HsTarget *
make_target (HsProtocol protocol)
{
  g_autoptr(GError) error = NULL;
  const HsBox boxes[] = { { 8, 10, 40, 50 }, { 60.5, 20.25, 90, 70 } };
  HsEvalGrid grid;
  HsTarget *target;

  g_assert_true (hs_eval_grid_init (&grid, protocol, W, H, 0, &error));
  g_assert_no_error (error);
  target = hs_target_new (&grid);
  g_assert_true (hs_target_add_boxes (target, boxes, G_N_ELEMENTS (boxes), &error));
  g_assert_no_error (error);
  return target;
}

static void
fill_map (double *values, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);

  /* Mixed signs (max(s, 0) matters), repeated values (ties matter). */
  for (guint i = 0; i < MW * MH; i++)
    values[i] = i % 7 == 0 ? 0.25 : g_rand_double_range (rand, -0.2, 1.0);
  g_rand_free (rand);
}

static void
scaled (const double *in, double *out, double factor)
{
  for (guint i = 0; i < MW * MH; i++)
    out[i] = in[i] * factor;
}

static double tolerance = TOL;

static void
assert_same (double a, double b, const char *what, double factor)
{
  if (isnan (a) && isnan (b))
    return;
  if (isnan (a) || isnan (b) || fabs (a - b) > tolerance)
    g_error ("%s: %.17g for the map, %.17g for the map × %g", what, a, b, factor);
}

static void
check_protocol (gconstpointer data)
{
  HsProtocol protocol = GPOINTER_TO_INT (data);
  const double factors[] = { 0x1p900, 0x1p-900, 1e300, 1e-300, 1.7976931348623157e308 / 2, 3e-310 };
  g_autoptr(HsTarget) target = make_target (protocol);
  g_autoptr(GError) error = NULL;
  double base[MW * MH], other[MW * MH], big[MW * MH];
  HsScoreOptions options;
  HsScores reference, scores;
  guint n_metrics;
  const HsMetric *metrics = hs_protocol_get_metrics (protocol, &n_metrics);
  guint n_defined = 0;

  hs_score_options_init (&options);
  options.protocol = protocol;
  fill_map (base, 7);
  fill_map (other, 11);
  g_assert_true (hs_score_values (base, MW, MH, NAN, "map", target, &options, &reference, &error));
  g_assert_no_error (error);

  for (guint f = 0; f < G_N_ELEMENTS (factors); f++)
    {
      double factor = factors[f];

      /* chexlocalize computes in float32 as CheXlocalize does: a power of
       * two scales its floats exactly, another factor rounds them anew. */
      tolerance = protocol == HS_PROTOCOL_CHEXLOCALIZE && f >= 2 ? 1e-6 : TOL;

      /* 3e-310 is subnormal: the map's smallest values lose bits, so only
       * the ordering metrics are compared for it below. */
      gboolean exact = factor > 1e-308;

      scaled (base, big, factor);
      g_assert_true (hs_score_values (big, MW, MH, NAN, "map", target, &options, &scores, &error));
      g_assert_no_error (error);
      for (guint m = 0; m < n_metrics; m++)
        {
          HsMetric metric = metrics[m];

          if (!exact && metric != HS_METRIC_AUROC && metric != HS_METRIC_POINTING_HIT)
            continue;
          if (!isnan (reference.value[metric]))
            n_defined++;
          assert_same (reference.value[metric], scores.value[metric],
                       hs_metric_get_name (metric), factor);
          g_assert_cmpstr (reference.reason[metric], ==, scores.reason[metric]);
        }
      if (exact)
        {
          assert_same (reference.map_max * factor / scores.map_max, 1.0, "map_max", factor);
          assert_same (reference.map_min * factor / scores.map_min, 1.0, "map_min", factor);
        }
    }
  /* The test compares numbers, not two "undefined". */
  g_assert_cmpuint (n_defined, >=, n_metrics);

  /* Comparisons: sym_kl and the deltas, with either map scaled.  Positive
   * maps: gloria's sym_kl (no floor) is infinite where one map is 0. */
  for (guint i = 0; i < MW * MH; i++)
    {
      base[i] = fabs (base[i]) + 0.01;
      other[i] = fabs (other[i]) + 0.01;
    }
  {
    g_autoptr(HsAttentionMap) a = hs_attention_map_new (0, MH, MW, base, &error);
    g_autoptr(HsAttentionMap) b = hs_attention_map_new (0, MH, MW, other, &error);
    g_autoptr(HsAttentionMap) a_big = NULL;
    HsComparison c1, c2;

    tolerance = protocol == HS_PROTOCOL_CHEXLOCALIZE ? 1e-6 : TOL;
    scaled (base, big, 1e300);
    a_big = hs_attention_map_new (0, MH, MW, big, &error);
    g_assert_no_error (error);
    g_assert_true (hs_compare_maps (a, b, target, &options, &c1, &error));
    g_assert_true (hs_compare_maps (a_big, b, target, &options, &c2, &error));
    g_assert_no_error (error);
    if (isnan (c1.sym_kl))
      g_error ("sym_kl undefined: %s", c1.sym_kl_reason);
    assert_same (c1.sym_kl, c2.sym_kl, "sym_kl", 1e300);
    for (guint m = 0; m < n_metrics; m++)
      assert_same (c1.delta[metrics[m]], c2.delta[metrics[m]], hs_metric_get_name (metrics[m]), 1e300);

    /* Curves: the same points, thresholds in the map's own units. */
    {
      HsCurves k1 = { 0 }, k2 = { 0 };

      g_assert_true (hs_score_curves (a, target, &options, 64, &k1, &error));
      g_assert_true (hs_score_curves (a_big, target, &options, 64, &k2, &error));
      g_assert_cmpuint (k1.roc->len, ==, k2.roc->len);
      g_assert_cmpuint (k1.iou->len, ==, k2.iou->len);
      for (guint i = 0; i < k1.roc->len; i++)
        {
          HsCurvePoint *p = &g_array_index (k1.roc, HsCurvePoint, i);
          HsCurvePoint *q = &g_array_index (k2.roc, HsCurvePoint, i);

          assert_same (p->x, q->x, "roc x", 1e300);
          assert_same (p->y, q->y, "roc y", 1e300);
          if (isfinite (p->threshold))
            assert_same (p->threshold * 1e300 / q->threshold, 1.0, "roc threshold", 1e300);
        }
      hs_curves_clear (&k1);
      hs_curves_clear (&k2);
    }
  }
}

/* The map and its No Attn slot scaled together (the slot is mass like the
 * cells) give the same gloria entropy. */
static void
check_no_attn_slot (void)
{
  g_autoptr(HsTarget) target = make_target (HS_PROTOCOL_GLORIA);
  g_autoptr(GError) error = NULL;
  double base[MW * MH], big[MW * MH];
  HsScoreOptions options;
  HsScores a, b;

  hs_score_options_init (&options);
  options.protocol = HS_PROTOCOL_GLORIA;
  fill_map (base, 5);
  scaled (base, big, 0x1p900);
  g_assert_true (hs_score_values (base, MW, MH, 0.3, "map", target, &options, &a, &error));
  g_assert_true (hs_score_values (big, MW, MH, 0.3 * 0x1p900, "map", target, &options, &b, &error));
  g_assert_no_error (error);
  g_assert_false (isnan (a.value[HS_METRIC_ENTROPY]));
  assert_same (a.value[HS_METRIC_ENTROPY], b.value[HS_METRIC_ENTROPY], "entropy", 0x1p900);
}

/* The overlay's colour scale of a range near ±DBL_MAX: hi − lo overflows. */
static void
check_overlay_range (void)
{
  HsScaleRange range = { -1.5e308, 1.5e308 };

  g_assert_cmpfloat (hs_scale_apply (&range, 0), ==, 0.5);
  g_assert_cmpfloat (hs_scale_apply (&range, 1.5e308), ==, 1.0);
  g_assert_cmpfloat (hs_scale_apply (&range, -1.5e308), ==, 0.0);
  g_assert_cmpfloat_with_epsilon (hs_scale_apply (&range, 0.75e308), 0.75, 1e-15);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/metrics-scale/default", GINT_TO_POINTER (HS_PROTOCOL_DEFAULT), check_protocol);
  g_test_add_data_func ("/metrics-scale/gloria", GINT_TO_POINTER (HS_PROTOCOL_GLORIA), check_protocol);
  g_test_add_data_func ("/metrics-scale/chexlocalize", GINT_TO_POINTER (HS_PROTOCOL_CHEXLOCALIZE),
                        check_protocol);
  g_test_add_func ("/metrics-scale/no-attn-slot", check_no_attn_slot);
  g_test_add_func ("/metrics-scale/overlay-range", check_overlay_range);
  return g_test_run ();
}
