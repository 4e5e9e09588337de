/* test-swap-response.c — swap_response (metrics.md "Comparing two maps") on
 * hand-worked laterality cases, through the real scorer, and its verdicts */
#include <heatscope/heatscope.h>
#include <math.h>
#include <string.h>

#define EPS 1e-12

/* Scores a W × H map on a W × H image against a target given as '0'/'1'
 * flags (row-major, one 1 × 1 box per flag): the map needs no resampling,
 * so the masses below are sums of the listed values. */
static void
score (const double *values, guint W, guint H, const char *flags, HsScores *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsTarget) target = NULL;
  HsEvalGrid grid;

  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, W, H, 0, &error));
  target = hs_target_new (&grid);
  for (guint i = 0; i < W * H; i++)
    if (flags[i] == '1')
      {
        HsBox box = { i % W, i / W, i % W + 1, i / W + 1 };
        g_assert_true (hs_target_add_box (target, &box, &error));
      }
  g_assert_true (hs_score_values (values, W, H, NAN, "test", target, NULL, out, &error));
  g_assert_no_error (error);
}

/* swap_response of maps a and b (4 × 2) against `flags`, as the scorer's
 * lateralities give it. */
static double
response (const double *a, const double *b, const char *flags, const char **reason)
{
  HsScores sa, sb;

  score (a, 4, 2, flags, &sa);
  score (b, 4, 2, flags, &sb);
  return hs_swap_response (sa.target_laterality, sa.value[HS_METRIC_LATERALITY],
                           sb.value[HS_METRIC_LATERALITY], reason);
}

/* The target is the image's two left columns of row 0: the patient's right,
 * t = (0 − 2)/2 = −1.  The map A = [3 1 0 0] in both rows has all its mass
 * (8) on the image's left: l_A = (0 − 8)/8 = −1. */
static const char target_right[] = "11000000";
static const double left_map[8]   = { 3, 1, 0, 0, 3, 1, 0, 0 };
static const double right_map[8]  = { 0, 0, 1, 3, 0, 0, 1, 3 };
static const double flat_map[8]   = { 1, 1, 1, 1, 1, 1, 1, 1 };

static void
test_followed (void)
{
  const char *reason = "unset";
  HsScores sa, sb;

  /* B = the mirror image: l_B = +1, swap_response = sign(−1)·(−1 − 1)/2 = 1. */
  g_assert_cmpfloat_with_epsilon (response (left_map, right_map, target_right, &reason), 1.0, EPS);
  g_assert_null (reason);
  g_assert_cmpint (hs_swap_verdict (1.0), ==, HS_SWAP_FOLLOWED);
  /* What the old badge said about the same pair: B is "wrong side" against
   * the original target although it did what the swapped words asked. */
  score (left_map, 4, 2, target_right, &sa);
  score (right_map, 4, 2, target_right, &sb);
  g_assert_cmpfloat (sa.value[HS_METRIC_WRONG_SIDE], ==, 0);
  g_assert_cmpfloat (sb.value[HS_METRIC_WRONG_SIDE], ==, 1);

  /* B flat: l_B = 0, swap_response = −(−1 − 0)/2 = 0.5: moved half way. */
  g_assert_cmpfloat_with_epsilon (response (left_map, flat_map, target_right, NULL), 0.5, EPS);
  g_assert_cmpint (hs_swap_verdict (0.5), ==, HS_SWAP_FOLLOWED);
}

static void
test_ignored_and_wrong_way (void)
{
  /* B = 1.1 on the image's left, 0.9 on its right: m_R = 4.4, m_L = 3.6,
   * l_B = (3.6 − 4.4)/8 = −0.1; A flat, l_A = 0: −(0 − (−0.1))/2 = −0.05. */
  const double leaning[8] = { 1.1, 1.1, 0.9, 0.9, 1.1, 1.1, 0.9, 0.9 };
  double v;

  v = response (left_map, left_map, target_right, NULL);
  g_assert_cmpfloat_with_epsilon (v, 0.0, EPS);
  g_assert_cmpint (hs_swap_verdict (v), ==, HS_SWAP_IGNORED);

  v = response (flat_map, leaning, target_right, NULL);
  g_assert_cmpfloat_with_epsilon (v, -0.05, EPS);
  g_assert_cmpint (hs_swap_verdict (v), ==, HS_SWAP_IGNORED);

  /* A flat, B all on the target's side (the side the ORIGINAL words name):
   * −(0 − (−1))/2 = −0.5. */
  v = response (flat_map, left_map, target_right, NULL);
  g_assert_cmpfloat_with_epsilon (v, -0.5, EPS);
  g_assert_cmpint (hs_swap_verdict (v), ==, HS_SWAP_WRONG_WAY);

  /* The same pair with the target on the patient's left (t = +1) flips the
   * sign: (0 − (−1))/2 = +0.5. */
  v = response (flat_map, left_map, "00110000", NULL);
  g_assert_cmpfloat_with_epsilon (v, 0.5, EPS);
}

static void
test_undefined (void)
{
  const char *reason = NULL;
  const double zero[8] = { 0 };

  /* Empty target: no side. */
  g_assert_true (isnan (response (left_map, right_map, "00000000", &reason)));
  g_assert_nonnull (reason);
  /* Target as much on the left as on the right: t = 0. */
  reason = NULL;
  g_assert_true (isnan (response (left_map, right_map, "10010000", &reason)));
  g_assert_nonnull (strstr (reason, "both sides"));
  /* A map without positive mass has no laterality. */
  reason = NULL;
  g_assert_true (isnan (response (left_map, zero, target_right, &reason)));
  g_assert_nonnull (reason);
  g_assert_cmpint (hs_swap_verdict (NAN), ==, HS_SWAP_UNDEFINED);
}

/* Numbers straight into the formula, and the verdict's edges. */
static void
test_formula_and_verdicts (void)
{
  g_assert_cmpfloat_with_epsilon (hs_swap_response (0.6, 0.4, -0.2, NULL), 0.3, EPS);
  g_assert_cmpfloat_with_epsilon (hs_swap_response (-0.6, 0.4, -0.2, NULL), -0.3, EPS);
  g_assert_cmpfloat_with_epsilon (hs_swap_response (1, 1, -1, NULL), 1.0, EPS);
  g_assert_cmpfloat_with_epsilon (hs_swap_response (1, -1, 1, NULL), -1.0, EPS);
  g_assert_true (isnan (hs_swap_response (0, 1, -1, NULL)));
  g_assert_true (isnan (hs_swap_response (NAN, 1, -1, NULL)));
  g_assert_true (isnan (hs_swap_response (1, NAN, -1, NULL)));

  g_assert_cmpint (hs_swap_verdict (0.1), ==, HS_SWAP_FOLLOWED);
  g_assert_cmpint (hs_swap_verdict (0.0999), ==, HS_SWAP_IGNORED);
  g_assert_cmpint (hs_swap_verdict (-0.0999), ==, HS_SWAP_IGNORED);
  g_assert_cmpint (hs_swap_verdict (-0.1), ==, HS_SWAP_WRONG_WAY);
  g_assert_cmpstr (hs_swap_verdict_label (HS_SWAP_FOLLOWED), ==, "followed the words");
  g_assert_cmpstr (hs_swap_verdict_label (HS_SWAP_IGNORED), ==, "ignored the words");
  g_assert_cmpstr (hs_swap_verdict_label (HS_SWAP_WRONG_WAY), ==, "moved the wrong way");
  g_assert_cmpstr (hs_swap_verdict_key (HS_SWAP_WRONG_WAY), ==, "wrong-way");
}

/* The badge under a map scored against its own target (hs-panel-readout):
 * "same side" only when map and target both have a side (|laterality| ≥ 0.2,
 * the wrong_side rule of metrics.md) and it is the same one; a central map
 * or target agrees with no side. */
static const char *
badge_of (const double *map, const char *flags, HsBadgeTone *tone, int *wrong_side)
{
  static char badge[64];
  HsPanelReadout readout = { NULL, NULL, HS_BADGE_NEUTRAL, -1 };
  HsScores scores;

  score (map, 4, 2, flags, &scores);
  hs_panel_readout_of_scores (&scores, &readout);
  g_strlcpy (badge, readout.badge ? readout.badge : "(none)", sizeof badge);
  *tone = readout.tone;
  *wrong_side = readout.wrong_side;
  hs_panel_readout_clear (&readout);
  return badge;
}

static void
test_side_badge (void)
{
  /* m_R = 2·(12.625 + 12.625) = 50.5 on the image's left, m_L = 49.5:
   * laterality (49.5 − 50.5)/100 = −0.01, toward the target's side but
   * central. */
  const double near_zero[8] = { 12.625, 12.625, 12.375, 12.375, 12.625, 12.625, 12.375, 12.375 };
  const double near_zero_right[8] = { 12.375, 12.375, 12.625, 12.625, 12.375, 12.375, 12.625, 12.625 };
  /* m_R = 60, m_L = 40: laterality −0.2, just a side. */
  const double edge[8] = { 15, 15, 10, 10, 15, 15, 10, 10 };
  HsBadgeTone tone;
  HsScores scores;
  int wrong;

  score (near_zero, 4, 2, target_right, &scores);
  g_assert_cmpfloat_with_epsilon (scores.value[HS_METRIC_LATERALITY], -0.01, EPS);
  g_assert_cmpfloat (scores.value[HS_METRIC_WRONG_SIDE], ==, 0);
  g_assert_cmpstr (badge_of (near_zero, target_right, &tone, &wrong), ==, "no clear side");
  g_assert_cmpint (tone, ==, HS_BADGE_NEUTRAL);
  g_assert_cmpint (wrong, ==, 0);
  /* +0.01, away from the target: not wrong either (metrics.md), no verdict. */
  g_assert_cmpstr (badge_of (near_zero_right, target_right, &tone, &wrong), ==, "no clear side");
  g_assert_cmpint (wrong, ==, 0);
  g_assert_cmpstr (badge_of (edge, target_right, &tone, &wrong), ==, "same side");
  g_assert_cmpint (tone, ==, HS_BADGE_GOOD);
  g_assert_cmpstr (badge_of (left_map, target_right, &tone, &wrong), ==, "same side");
  g_assert_cmpstr (badge_of (right_map, target_right, &tone, &wrong), ==, "WRONG SIDE");
  g_assert_cmpint (tone, ==, HS_BADGE_ALERT);
  g_assert_cmpint (wrong, ==, 1);
  /* A target as much on the left as on the right (t = 0) has no side. */
  g_assert_cmpstr (badge_of (left_map, "10010000", &tone, &wrong), ==, "no clear side");
  g_assert_cmpint (wrong, ==, 0);
  /* Empty target: wrong_side n/a, no badge. */
  g_assert_cmpstr (badge_of (left_map, "00000000", &tone, &wrong), ==, "(none)");
  g_assert_cmpint (wrong, ==, -1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/swap-response/followed", test_followed);
  g_test_add_func ("/hs/swap-response/ignored-and-wrong-way", test_ignored_and_wrong_way);
  g_test_add_func ("/hs/swap-response/undefined", test_undefined);
  g_test_add_func ("/hs/swap-response/formula-and-verdicts", test_formula_and_verdicts);
  g_test_add_func ("/hs/swap-response/side-badge", test_side_badge);
  return g_test_run ();
}
