/* test-metrics.c — every metric of metrics.md on hand-worked small cases */
#include <heatscope/heatscope.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

#define EPS 1e-12

/* A default-protocol target on a W × H image from a string of '0'/'1'
 * flags (row-major), one 1 × 1 box per flagged pixel. */
static HsTarget *
target_from_flags (guint W, guint H, const char *flags)
{
  HsEvalGrid grid;
  HsTarget *target;
  g_autoptr(GError) error = NULL;

  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, W, H, 0, &error));
  g_assert_cmpuint (strlen (flags), ==, W * H);
  target = hs_target_new (&grid);
  for (guint i = 0; i < W * H; i++)
    if (flags[i] == '1')
      {
        HsBox box = { i % W, i / W, i % W + 1, i / W + 1 };
        g_assert_true (hs_target_add_box (target, &box, &error));
      }
  return target;
}

static void
score (const double *values, guint w, guint h, const char *flags, HsScores *out)
{
  g_autoptr(HsTarget) target = target_from_flags (w, h, flags);
  g_autoptr(GError) error = NULL;

  g_assert_true (hs_score_values (values, w, h, NAN, "test", target, NULL, out, &error));
  g_assert_no_error (error);
}

#define assert_metric(scores, m, expected) \
  g_assert_cmpfloat_with_epsilon ((scores)->value[m], (expected), EPS)
#define assert_undefined(scores, m) \
  G_STMT_START { g_assert_true (isnan ((scores)->value[m])); g_assert_nonnull ((scores)->reason[m]); } G_STMT_END

static void
test_ties (void)
{
  /* s = .5 .5 .2 .5 .9 .2, G = {1, 2, 4}: worked out in the comments. */
  const double s[] = { 0.5, 0.5, 0.2, 0.5, 0.9, 0.2 };
  HsScores sc;
  double mu_in = 1.6 / 3, mu_out = 0.4;
  double var_in = ((0.5 - mu_in) * (0.5 - mu_in) + (0.2 - mu_in) * (0.2 - mu_in)
                   + (0.9 - mu_in) * (0.9 - mu_in)) / 3;
  double var_out = (0.01 + 0.01 + 0.04) / 3;
  double h = 0;

  score (s, 6, 1, "011010", &sc);
  /* U: .5 → ½ + 1 + ½, .2 → ½, .9 → 3; 5.5 / 9 */
  assert_metric (&sc, HS_METRIC_AUROC, 5.5 / 9);
  /* thresholds .9 (P 1, R 1/3), .5 (P 2/4, R 2/3), .2 (P 3/6, R 1) */
  assert_metric (&sc, HS_METRIC_AP, 1.0 / 3 + 0.5 / 3 + 0.5 / 3);
  /* k = 5, 10: ⌈0.3⌉ = ⌈0.6⌉ = 1 → q = .9, T = {4} */
  assert_metric (&sc, HS_METRIC_IOU_5, 1.0 / 3);
  assert_metric (&sc, HS_METRIC_PRECISION_5, 1.0);
  assert_metric (&sc, HS_METRIC_RECALL_5, 1.0 / 3);
  assert_metric (&sc, HS_METRIC_IOU_10, 1.0 / 3);
  /* k = 30: ⌈1.8⌉ = 2 → q = .5, T = {0, 1, 3, 4} (ties enter together) */
  assert_metric (&sc, HS_METRIC_IOU_30, 2.0 / 5);
  assert_metric (&sc, HS_METRIC_PRECISION_30, 0.5);
  assert_metric (&sc, HS_METRIC_RECALL_30, 2.0 / 3);
  g_assert_true (isnan (sc.value[HS_METRIC_IOU_20]));   /* not in the default protocol */
  assert_metric (&sc, HS_METRIC_POINTING_HIT, 1.0);
  assert_metric (&sc, HS_METRIC_MASS_IN_TARGET, 1.6 / 2.8);
  /* u = 109, 109, 0, 109, 255, 0 → Otsu t = 109 → prediction {4} */
  assert_metric (&sc, HS_METRIC_OTSU_IOU, 1.0 / 3);
  g_assert_cmpint (sc.otsu_level, ==, 109);
  g_assert_cmpfloat (sc.otsu_threshold, ==, 0.9);   /* the region u > 109 is s ≥ .9 */
  /* n = 3 largest |s|, stable: 4, 0, 1 → 2 of 3 in G */
  assert_metric (&sc, HS_METRIC_EXPLANATION_PRECISION, 2.0 / 3);
  assert_metric (&sc, HS_METRIC_CNR, fabs (mu_in - mu_out) / sqrt (var_in + var_out));
  for (guint i = 0; i < 6; i++)
    h -= s[i] / 2.8 * log (s[i] / 2.8);
  assert_metric (&sc, HS_METRIC_ENTROPY, h);
  assert_metric (&sc, HS_METRIC_ENTROPY_NORM, h / log (6));
  assert_undefined (&sc, HS_METRIC_NO_ATTN);
  /* image-left (patient's right) 1.2, image-right 1.6 */
  assert_metric (&sc, HS_METRIC_LATERALITY, (1.6 - 1.2) / 2.8);
  g_assert_cmpfloat_with_epsilon (sc.target_laterality, -1.0 / 3, EPS);
  assert_metric (&sc, HS_METRIC_WRONG_SIDE, 0.0);
  g_assert_cmpuint (sc.target_pixels, ==, 3);
}

static void
test_empty_target (void)
{
  const double s[] = { 0.1, 0.7, 0.3, 0.2 };
  HsScores sc;

  score (s, 4, 1, "0000", &sc);
  assert_undefined (&sc, HS_METRIC_AUROC);
  assert_undefined (&sc, HS_METRIC_AP);
  assert_undefined (&sc, HS_METRIC_RECALL_5);
  assert_undefined (&sc, HS_METRIC_RECALL_30);
  assert_undefined (&sc, HS_METRIC_POINTING_HIT);
  assert_undefined (&sc, HS_METRIC_MASS_IN_TARGET);
  assert_undefined (&sc, HS_METRIC_OTSU_IOU);
  assert_undefined (&sc, HS_METRIC_EXPLANATION_PRECISION);
  assert_undefined (&sc, HS_METRIC_CNR);
  assert_undefined (&sc, HS_METRIC_WRONG_SIDE);
  g_assert_cmpstr (sc.reason[HS_METRIC_AUROC], ==, "target is empty");
  /* iou@k and precision@k are 0, never null */
  assert_metric (&sc, HS_METRIC_IOU_5, 0.0);
  assert_metric (&sc, HS_METRIC_IOU_30, 0.0);
  assert_metric (&sc, HS_METRIC_PRECISION_10, 0.0);
  /* map-only metrics stay defined */
  g_assert_false (isnan (sc.value[HS_METRIC_ENTROPY]));
  assert_metric (&sc, HS_METRIC_LATERALITY, (0.5 - 0.8) / 1.3);
}

static void
test_full_target (void)
{
  const double s[] = { 0.1, 0.7, 0.3, 0.2 };
  HsScores sc;

  score (s, 2, 2, "1111", &sc);
  assert_undefined (&sc, HS_METRIC_AUROC);
  assert_undefined (&sc, HS_METRIC_AP);
  assert_undefined (&sc, HS_METRIC_CNR);
  g_assert_cmpstr (sc.reason[HS_METRIC_AUROC], ==, "target covers every pixel");
  /* k = 30: ⌈1.2⌉ = 2 → T = {.7, .3}: IoU 2/4, precision 1, recall 1/2 */
  assert_metric (&sc, HS_METRIC_IOU_30, 0.5);
  assert_metric (&sc, HS_METRIC_PRECISION_30, 1.0);
  assert_metric (&sc, HS_METRIC_RECALL_30, 0.5);
  assert_metric (&sc, HS_METRIC_POINTING_HIT, 1.0);
  assert_metric (&sc, HS_METRIC_MASS_IN_TARGET, 1.0);
  assert_metric (&sc, HS_METRIC_EXPLANATION_PRECISION, 1.0);
}

static void
test_constant_map (void)
{
  const double s[] = { 1, 1, 1, 1 };
  HsScores sc;

  score (s, 4, 1, "1100", &sc);
  assert_metric (&sc, HS_METRIC_AUROC, 0.5);
  assert_metric (&sc, HS_METRIC_AP, 0.5);
  /* every k: T = all pixels (ties) */
  assert_metric (&sc, HS_METRIC_IOU_5, 0.5);
  assert_metric (&sc, HS_METRIC_PRECISION_5, 0.5);
  assert_metric (&sc, HS_METRIC_RECALL_5, 1.0);
  /* u all 0 → t = 0 → empty prediction → IoU 0 (default protocol) */
  assert_metric (&sc, HS_METRIC_OTSU_IOU, 0.0);
  g_assert_true (isnan (sc.otsu_threshold));
  assert_undefined (&sc, HS_METRIC_CNR);
  g_assert_cmpstr (sc.reason[HS_METRIC_CNR], ==, "both variances are 0");
  /* ties in row-major order: pixels 0 and 1, both in G */
  assert_metric (&sc, HS_METRIC_EXPLANATION_PRECISION, 1.0);
  assert_metric (&sc, HS_METRIC_POINTING_HIT, 1.0);
  assert_metric (&sc, HS_METRIC_ENTROPY, log (4));
  assert_metric (&sc, HS_METRIC_ENTROPY_NORM, 1.0);
  assert_metric (&sc, HS_METRIC_LATERALITY, 0.0);
  g_assert_cmpfloat_with_epsilon (sc.target_laterality, -1.0, EPS);
  assert_metric (&sc, HS_METRIC_WRONG_SIDE, 0.0);

  /* The same ties, G at the end: the first n in row-major order miss it. */
  score (s, 4, 1, "0011", &sc);
  assert_metric (&sc, HS_METRIC_EXPLANATION_PRECISION, 0.0);
  assert_metric (&sc, HS_METRIC_POINTING_HIT, 0.0);
}

static void
test_zero_map (void)
{
  const double s[] = { 0, 0, 0, 0 };
  HsScores sc;

  score (s, 2, 2, "1000", &sc);
  assert_undefined (&sc, HS_METRIC_MASS_IN_TARGET);
  assert_undefined (&sc, HS_METRIC_ENTROPY);
  assert_undefined (&sc, HS_METRIC_ENTROPY_NORM);
  assert_undefined (&sc, HS_METRIC_LATERALITY);
  assert_undefined (&sc, HS_METRIC_WRONG_SIDE);
}

static void
test_non_finite (void)
{
  double s[] = { 0.1, 0.2, NAN, 0.3, 0.4, INFINITY };
  g_autoptr(HsTarget) target = target_from_flags (3, 2, "010000");
  g_autoptr(GError) error = NULL;
  HsScores sc;

  g_assert_false (hs_score_values (s, 3, 2, NAN, "bad.npy", target, NULL, &sc, &error));
  g_assert_error (error, HS_METRICS_ERROR, HS_METRICS_ERROR_NON_FINITE);
  g_assert_nonnull (strstr (error->message, "bad.npy"));
  g_assert_nonnull (strstr (error->message, "row 0, column 2"));
  g_assert_nonnull (strstr (error->message, "NaN"));
  g_clear_error (&error);
  s[2] = 0;
  g_assert_false (hs_score_values (s, 3, 2, NAN, "bad.npy", target, NULL, &sc, &error));
  g_assert_nonnull (strstr (error->message, "row 1, column 2"));
  g_assert_nonnull (strstr (error->message, "+Inf"));
}

static void
test_odd_width (void)
{
  /* W = 5: columns 0, 1 are image-left, 3, 4 image-right, 2 neither. */
  const double s[] = { 1, 0, 5, 0, 3 };
  HsScores sc;

  score (s, 5, 1, "00100", &sc);
  assert_metric (&sc, HS_METRIC_LATERALITY, (3.0 - 1.0) / 4.0);
  g_assert_true (isnan (sc.target_laterality));
  assert_undefined (&sc, HS_METRIC_WRONG_SIDE);

  /* target on the image-left, mass on the image-right: wrong side */
  score (s, 5, 1, "11000", &sc);
  g_assert_cmpfloat_with_epsilon (sc.target_laterality, -1.0, EPS);
  assert_metric (&sc, HS_METRIC_WRONG_SIDE, 1.0);
}

static void
test_pointing_first_max (void)
{
  const double s[] = { 0, 3, 1,
                       3, 2, 0 };
  HsScores sc;

  score (s, 3, 2, "000100", &sc);   /* the second maximum (row 1) is in G */
  assert_metric (&sc, HS_METRIC_POINTING_HIT, 0.0);
  score (s, 3, 2, "010000", &sc);
  assert_metric (&sc, HS_METRIC_POINTING_HIT, 1.0);
}

static void
test_negative_values (void)
{
  const double s[] = { -5, 1, 2, -0.5 };
  HsScores sc;

  score (s, 4, 1, "1000", &sc);
  /* |s| largest is −5 at pixel 0 */
  assert_metric (&sc, HS_METRIC_EXPLANATION_PRECISION, 1.0);
  assert_metric (&sc, HS_METRIC_MASS_IN_TARGET, 0.0);
  assert_metric (&sc, HS_METRIC_AUROC, 0.0);
  /* −5 is the smallest: every other pixel ranks above it */
  assert_metric (&sc, HS_METRIC_AP, 1.0 / 4);

  /* ties on |s|: −2 and 2; stable order takes pixel 0 first */
  {
    const double t[] = { -2, 2, 1, 0 };
    score (t, 4, 1, "0100", &sc);
    assert_metric (&sc, HS_METRIC_EXPLANATION_PRECISION, 0.0);
    score (t, 4, 1, "1000", &sc);
    assert_metric (&sc, HS_METRIC_EXPLANATION_PRECISION, 1.0);
  }
}

static void
test_no_attn (void)
{
  const double s[] = { 1, 2, 3, 4 };
  g_autoptr(HsTarget) target = target_from_flags (2, 2, "1000");
  g_autoptr(GError) error = NULL;
  HsScores sc;
  HsScoreOptions options;
  double h = 0;

  hs_score_options_init (&options);
  g_assert_true (hs_score_values (s, 2, 2, 0.25, "m", target, &options, &sc, &error));
  assert_metric (&sc, HS_METRIC_NO_ATTN, 0.25);
  /* default protocol: entropy over the grid only */
  for (guint i = 0; i < 4; i++)
    h -= s[i] / 10 * log (s[i] / 10);
  assert_metric (&sc, HS_METRIC_ENTROPY, h);
}

static void
test_upsampled (void)
{
  /* 2 × 1 grid [0, 1] on a 4 × 1 image: s = 0, .25, .75, 1 (bilinear) or
   * 0, 0, 1, 1 (nearest). */
  const double grid_values[] = { 0, 1 };
  g_autoptr(HsTarget) target = target_from_flags (4, 1, "0011");
  g_autoptr(GError) error = NULL;
  HsScoreOptions options;
  HsScores sc;

  hs_score_options_init (&options);
  g_assert_true (hs_score_values (grid_values, 2, 1, NAN, "m", target, &options, &sc, &error));
  assert_metric (&sc, HS_METRIC_AUROC, 1.0);
  assert_metric (&sc, HS_METRIC_MASS_IN_TARGET, 1.75 / 2.0);
  /* entropy on the grid: one positive cell */
  assert_metric (&sc, HS_METRIC_ENTROPY, 0.0);
  options.upsample = HS_UPSAMPLE_NEAREST;
  g_assert_true (hs_score_values (grid_values, 2, 1, NAN, "m", target, &options, &sc, &error));
  assert_metric (&sc, HS_METRIC_MASS_IN_TARGET, 1.0);
}

static void
test_protocol_mismatch (void)
{
  const double s[] = { 1, 2, 3, 4 };
  g_autoptr(HsTarget) target = target_from_flags (2, 2, "1000");
  g_autoptr(GError) error = NULL;
  HsScoreOptions options;
  HsScores sc;

  hs_score_options_init (&options);
  options.protocol = HS_PROTOCOL_GLORIA;
  g_assert_false (hs_score_values (s, 2, 2, NAN, "m", target, &options, &sc, &error));
  g_assert_error (error, HS_METRICS_ERROR, HS_METRICS_ERROR_PROTOCOL);
}

static void
test_names (void)
{
  guint n;
  const HsMetric *list = hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n);
  const char *expected[] = {
    "auroc", "ap", "iou@5", "iou@10", "iou@30", "precision@5", "precision@10", "precision@30",
    "recall@5", "recall@10", "recall@30", "pointing_hit", "mass_in_target", "otsu_iou",
    "explanation_precision", "cnr", "entropy", "entropy_norm", "no_attn", "laterality", "wrong_side",
  };
  HsMetric m;
  HsProtocol p;

  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (hs_metric_get_name (list[i]), ==, expected[i]);
  list = hs_protocol_get_metrics (HS_PROTOCOL_GLORIA, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected) + 3);
  g_assert_true (hs_protocol_has_metric (HS_PROTOCOL_GLORIA, HS_METRIC_IOU_20));
  g_assert_false (hs_protocol_has_metric (HS_PROTOCOL_CHEXLOCALIZE, HS_METRIC_RECALL_20));
  g_assert_true (hs_metric_from_name ("precision@10", &m));
  g_assert_cmpint (m, ==, HS_METRIC_PRECISION_10);
  g_assert_false (hs_metric_from_name ("precision@11", &m));
  g_assert_true (hs_protocol_from_string ("chexlocalize", &p));
  g_assert_cmpint (p, ==, HS_PROTOCOL_CHEXLOCALIZE);
  g_assert_false (hs_protocol_from_string ("gradcam", &p));
}

static void
test_format (void)
{
  const struct { double v; const char *text; } cases[] = {
    { 0.1, "0.1" }, { 1.0, "1" }, { 0, "0" }, { 1.0 / 3, "0.3333333333333333" },
    { 0.1 + 0.2, "0.30000000000000004" }, { NAN, "null" }, { INFINITY, "null" }, { -2.5, "-2.5" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = hs_metric_format (cases[i].v);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

static void
test_json (void)
{
  const double s[] = { 1, 1, 1, 1 };
  HsScores sc;
  g_autoptr(GString) json = g_string_new (NULL);

  score (s, 4, 1, "0000", &sc);
  hs_scores_append_json (&sc, json);
  g_assert_true (g_str_has_prefix (json->str, "\"auroc\": null, \"ap\": null, \"iou@5\": 0, "));
  g_assert_nonnull (strstr (json->str, "\"precision@30\": 0, \"recall@5\": null"));
  g_assert_true (g_str_has_suffix (json->str, "\"wrong_side\": null"));
}

static void
test_sym_kl (void)
{
  const double p[] = { 1, 1, 2, 0 };
  const double q[] = { 2, 1, 1, 0 };
  const char *reason = NULL;
  double expected, a[4], b[4], sa = 0, sb = 0;

  /* default: floor at 1e-12, renormalise */
  for (guint i = 0; i < 4; i++)
    {
      a[i] = MAX (p[i] / 4, 1e-12);
      b[i] = MAX (q[i] / 4, 1e-12);
      sa += a[i];
      sb += b[i];
    }
  expected = 0;
  for (guint i = 0; i < 4; i++)
    expected += (a[i] / sa - b[i] / sb) * log ((a[i] / sa) / (b[i] / sb));
  g_assert_cmpfloat_with_epsilon (hs_sym_kl (p, q, 4, NAN, NAN, HS_PROTOCOL_DEFAULT, &reason), expected, EPS);
  g_assert_null (reason);
  /* hand value: cells 0 and 2 swap .25/.5: 2 · (.25 ln 2) = ln 2 / 2 */
  g_assert_cmpfloat_with_epsilon (hs_sym_kl (p, q, 4, NAN, NAN, HS_PROTOCOL_GLORIA, &reason), log (2) / 2, EPS);
  /* gloria, no floor: a zero in one map only is infinite → undefined */
  {
    const double r[] = { 1, 1, 2, 1 };
    g_assert_true (isnan (hs_sym_kl (p, r, 4, NAN, NAN, HS_PROTOCOL_GLORIA, &reason)));
    g_assert_nonnull (reason);
    g_assert_false (isnan (hs_sym_kl (p, r, 4, NAN, NAN, HS_PROTOCOL_DEFAULT, &reason)));
  }
  /* identical maps: 0 */
  g_assert_cmpfloat (hs_sym_kl (p, p, 4, NAN, NAN, HS_PROTOCOL_DEFAULT, NULL), ==, 0);
}

static void
test_curves (void)
{
  const double s[] = { 0.5, 0.5, 0.2, 0.5, 0.9, 0.2 };
  g_autoptr(HsTarget) target = target_from_flags (6, 1, "011010");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = hs_attention_map_new (0, 1, 6, s, &error);
  HsCurves curves = { 0 };
  HsCurvePoint *pt;

  g_assert_no_error (error);
  g_assert_true (hs_score_curves (map, target, NULL, 512, &curves, &error));
  /* distinct thresholds .9, .5, .2: ROC (0,0) (0,1/3) (2/3,2/3) (1,1) */
  g_assert_cmpuint (curves.roc->len, ==, 4);
  pt = &g_array_index (curves.roc, HsCurvePoint, 2);
  g_assert_cmpfloat_with_epsilon (pt->x, 2.0 / 3, EPS);
  g_assert_cmpfloat_with_epsilon (pt->y, 2.0 / 3, EPS);
  g_assert_cmpfloat (pt->threshold, ==, 0.5);
  g_assert_cmpuint (curves.pr->len, ==, 3);
  pt = &g_array_index (curves.pr, HsCurvePoint, 1);
  g_assert_cmpfloat_with_epsilon (pt->x, 2.0 / 3, EPS);
  g_assert_cmpfloat_with_epsilon (pt->y, 0.5, EPS);
  g_assert_cmpuint (curves.iou->len, ==, 3);
  pt = &g_array_index (curves.iou, HsCurvePoint, 1);
  g_assert_cmpfloat_with_epsilon (pt->y, 2.0 / 5, EPS);
  hs_curves_clear (&curves);

  /* downsampling keeps at most max_points (+ the ROC origin) */
  {
    g_autofree double *big = g_new (double, 100 * 100);
    g_autoptr(HsTarget) t2 = NULL;
    g_autoptr(HsAttentionMap) m2 = NULL;
    HsEvalGrid grid;
    HsBox box = { 10, 10, 40, 40 };

    for (guint i = 0; i < 100 * 100; i++)
      big[i] = g_test_rand_double ();
    m2 = hs_attention_map_new (0, 100, 100, big, &error);
    g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, 100, 100, 0, &error));
    t2 = hs_target_new (&grid);
    g_assert_true (hs_target_add_box (t2, &box, &error));
    g_assert_true (hs_score_curves (m2, t2, NULL, 64, &curves, &error));
    g_assert_cmpuint (curves.roc->len, <=, 65);
    g_assert_cmpuint (curves.pr->len, <=, 64);
    pt = &g_array_index (curves.roc, HsCurvePoint, curves.roc->len - 1);
    g_assert_cmpfloat (pt->x, ==, 1.0);
    g_assert_cmpfloat (pt->y, ==, 1.0);
    hs_curves_clear (&curves);
  }
}

static void
test_compare (void)
{
  const double a[] = { 1, 0, 0, 0 };
  const double b[] = { 0, 0, 0, 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) ma = hs_attention_map_new (0, 2, 2, a, &error);
  g_autoptr(HsAttentionMap) mb = hs_attention_map_new (0, 2, 2, b, &error);
  g_autoptr(HsTarget) target = target_from_flags (2, 2, "1000");
  HsComparison cmp;

  g_assert_true (hs_compare_maps (ma, mb, target, NULL, &cmp, &error));
  /* original points into G, perturbed does not: Δ pointing = −1, Δ mass = −1 */
  g_assert_cmpfloat_with_epsilon (cmp.delta[HS_METRIC_POINTING_HIT], -1.0, EPS);
  g_assert_cmpfloat_with_epsilon (cmp.delta[HS_METRIC_MASS_IN_TARGET], -1.0, EPS);
  g_assert_true (cmp.sym_kl > 0);
  g_assert_true (isnan (cmp.delta[HS_METRIC_NO_ATTN]));
}

static void
test_threads_agree (void)
{
  /* The two-thread path gives exactly the one-thread numbers. */
  const guint W = 700, H = 600;
  g_autofree double *s = g_new (double, W * H);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsTarget) target = NULL;
  HsEvalGrid grid;
  HsBox box = { 100.5, 50, 400, 333.3 };
  HsScoreOptions o1, o2;
  HsScores s1, s2;

  for (guint i = 0; i < W * H; i++)
    s[i] = floor (g_test_rand_double () * 1000) / 7;   /* many ties */
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, W, H, 0, &error));
  target = hs_target_new (&grid);
  g_assert_true (hs_target_add_box (target, &box, &error));
  hs_score_options_init (&o1);
  hs_score_options_init (&o2);
  o1.n_threads = 1;
  o2.n_threads = 2;
  g_assert_true (hs_score_values (s, W, H, NAN, "m", target, &o1, &s1, &error));
  g_assert_true (hs_score_values (s, W, H, NAN, "m", target, &o2, &s2, &error));
  for (guint m = 0; m < HS_N_METRICS; m++)
    {
      if (isnan (s1.value[m]))
        g_assert_true (isnan (s2.value[m]));
      else
        g_assert_cmpfloat (s1.value[m], ==, s2.value[m]);   /* bit-identical: the split is fixed */
    }

  /* the resampling path (a small model grid upsampled in row chunks) too */
  {
    const guint w = 23, h = 17;
    double small[23 * 17];

    for (guint i = 0; i < w * h; i++)
      small[i] = g_test_rand_double () * 3 - 1;
    g_assert_true (hs_score_values (small, w, h, NAN, "m", target, &o1, &s1, &error));
    g_assert_true (hs_score_values (small, w, h, NAN, "m", target, &o2, &s2, &error));
    for (guint m = 0; m < HS_N_METRICS; m++)
      {
        if (isnan (s1.value[m]))
          g_assert_true (isnan (s2.value[m]));
        else
          g_assert_cmpfloat (s1.value[m], ==, s2.value[m]);
      }
  }
}


/* Brute force straight from metrics.md (O(P²) pairs, full sorts) on small
 * random grids with extreme magnitudes, subnormals, signed zeros and heavy
 * ties: exercises the bucket sort's overflow and crowding paths. */
static int
compare_desc (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x < y) - (x > y);
}

static void
test_brute_force (void)
{
  const double specials[] = { -1.7e308, 1.7e308, 0.0, -0.0, 4.9e-324, -4.9e-324, 1e-300, 1.0, 1.0 + 2.2e-16, 3.0 };

  for (guint round = 0; round < 60; round++)
    {
      guint W = g_test_rand_int_range (1, 40), H = g_test_rand_int_range (1, 30), P = W * H;
      g_autofree double *s = g_new (double, P);
      g_autofree double *sorted = g_new (double, P);
      g_autofree char *flags = g_new0 (char, P + 1);
      g_autoptr(HsTarget) target = NULL;
      g_autoptr(GError) error = NULL;
      HsScores sc;
      guint64 n_pos = 0;
      int kind = round % 4;

      for (guint i = 0; i < P; i++)
        {
          switch (kind)
            {
            case 0: s[i] = specials[g_test_rand_int_range (0, G_N_ELEMENTS (specials))]; break;
            case 1: s[i] = g_test_rand_int_range (0, 4); break;
            case 2: s[i] = g_test_rand_double_range (-1, 1) * pow (10, g_test_rand_int_range (-300, 300)); break;
            default: s[i] = g_test_rand_double (); break;
            }
          flags[i] = g_test_rand_bit () && g_test_rand_bit () ? '1' : '0';
          n_pos += flags[i] == '1';
        }
      target = target_from_flags (W, H, flags);
      g_assert_true (hs_score_values (s, W, H, NAN, "brute", target, NULL, &sc, &error));
      g_assert_no_error (error);
      /* a value is a finite number or undefined with a reason, never a bare NaN */
      for (guint m = 0; m < HS_N_METRICS; m++)
        g_assert_true (isfinite (sc.value[m]) || sc.reason[m] != NULL);

      /* auroc: pairs; ap: every distinct threshold */
      if (n_pos > 0 && n_pos < P)
        {
          double u = 0, ap = 0, prev_recall = 0;

          for (guint i = 0; i < P; i++)
            if (flags[i] == '1')
              for (guint j = 0; j < P; j++)
                if (flags[j] == '0')
                  u += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
          g_assert_cmpfloat_with_epsilon (sc.value[HS_METRIC_AUROC], u / ((double) n_pos * (P - n_pos)), 1e-12);
          memcpy (sorted, s, P * sizeof (double));
          qsort (sorted, P, sizeof (double), compare_desc);
          for (guint k = 0; k < P; k++)
            {
              guint64 tp = 0, total = 0;

              if (k > 0 && sorted[k] == sorted[k - 1])
                continue;
              for (guint i = 0; i < P; i++)
                if (s[i] >= sorted[k])
                  {
                    total++;
                    tp += flags[i] == '1';
                  }
              ap += ((double) tp / n_pos - prev_recall) * ((double) tp / total);
              prev_recall = (double) tp / n_pos;
            }
          g_assert_cmpfloat_with_epsilon (sc.value[HS_METRIC_AP], ap, 1e-12);
        }
      else
        g_assert_true (isnan (sc.value[HS_METRIC_AUROC]));

      /* top-k regions */
      memcpy (sorted, s, P * sizeof (double));
      qsort (sorted, P, sizeof (double), compare_desc);
      {
        const guint ks[] = { 5, 10, 30 };
        const HsMetric ious[] = { HS_METRIC_IOU_5, HS_METRIC_IOU_10, HS_METRIC_IOU_30 };
        const HsMetric precs[] = { HS_METRIC_PRECISION_5, HS_METRIC_PRECISION_10, HS_METRIC_PRECISION_30 };

        for (guint k = 0; k < 3; k++)
          {
            guint r = (ks[k] * P + 99) / 100;
            double q = sorted[r - 1];
            guint64 t = 0, hit = 0;

            for (guint i = 0; i < P; i++)
              if (s[i] >= q)
                {
                  t++;
                  hit += flags[i] == '1';
                }
            g_assert_cmpfloat (sc.value[ious[k]], ==, (double) hit / (double) (t + n_pos - hit));
            g_assert_cmpfloat (sc.value[precs[k]], ==, (double) hit / (double) t);
          }
      }

      /* explanation precision: stable selection on |s| */
      if (n_pos > 0)
        {
          g_autofree guint8 *taken = g_new0 (guint8, P);
          guint64 in = 0;

          for (guint64 n = 0; n < n_pos; n++)
            {
              gint best = -1;
              for (guint i = 0; i < P; i++)
                if (!taken[i] && (best < 0 || fabs (s[i]) > fabs (s[best])))
                  best = (gint) i;
              taken[best] = 1;
              in += flags[best] == '1';
            }
          g_assert_cmpfloat (sc.value[HS_METRIC_EXPLANATION_PRECISION], ==, (double) in / (double) n_pos);
        }

      /* pointing: first maximum */
      if (n_pos > 0)
        {
          guint best = 0;
          for (guint i = 1; i < P; i++)
            if (s[i] > s[best])
              best = i;
          g_assert_cmpfloat (sc.value[HS_METRIC_POINTING_HIT], ==, flags[best] == '1' ? 1.0 : 0.0);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/metrics/ties", test_ties);
  g_test_add_func ("/hs/metrics/empty-target", test_empty_target);
  g_test_add_func ("/hs/metrics/full-target", test_full_target);
  g_test_add_func ("/hs/metrics/constant-map", test_constant_map);
  g_test_add_func ("/hs/metrics/zero-map", test_zero_map);
  g_test_add_func ("/hs/metrics/non-finite", test_non_finite);
  g_test_add_func ("/hs/metrics/odd-width", test_odd_width);
  g_test_add_func ("/hs/metrics/pointing-first-max", test_pointing_first_max);
  g_test_add_func ("/hs/metrics/negative-values", test_negative_values);
  g_test_add_func ("/hs/metrics/no-attn", test_no_attn);
  g_test_add_func ("/hs/metrics/upsampled", test_upsampled);
  g_test_add_func ("/hs/metrics/protocol-mismatch", test_protocol_mismatch);
  g_test_add_func ("/hs/metrics/names", test_names);
  g_test_add_func ("/hs/metrics/format", test_format);
  g_test_add_func ("/hs/metrics/json", test_json);
  g_test_add_func ("/hs/metrics/sym-kl", test_sym_kl);
  g_test_add_func ("/hs/metrics/curves", test_curves);
  g_test_add_func ("/hs/metrics/compare", test_compare);
  g_test_add_func ("/hs/metrics/threads-agree", test_threads_agree);
  g_test_add_func ("/hs/metrics/brute-force", test_brute_force);
  return g_test_run ();
}
