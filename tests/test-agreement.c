/* test-agreement.c — agreement coefficients against hand-worked textbook
 * examples and scikit-learn's cohen_kappa_score */
#include <heatscope/heatscope.h>
#include <heatscope/hs-agreement.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

#define M HS_RATING_MISSING

/* Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section
 * C: 4 observers × 12 units, values 1..5 (stored as 0..4), with missing values.
 * By hand: the pairable values give n = 40, marginals n_1..n_5 = 9, 13, 10,
 * 5, 3; coincidences on the diagonal 7 + 10 + 8 + 4 + 3 = 32, off the
 * diagonal 8 (unit 2: 2, unit 6: 4, unit 8: 2).  Nominal:
 * α = 1 − (n − 1)·8 / (n² − Σ n_c²) = 1 − 39·8/(1600 − 384) = 1 − 312/1216
 * = 0.743421…  The paper gives ordinal α = 0.815. */
static const int kripp[12 * 4] = {
  /* A  B  C  D */
  0, 0, M, 0,
  1, 1, 2, 1,
  2, 2, 2, 2,
  2, 2, 2, 2,
  1, 1, 1, 1,
  0, 1, 2, 3,
  3, 3, 3, 3,
  0, 0, 1, 0,
  1, 1, 1, 1,
  M, 4, 4, 4,
  M, M, 0, 0,
  M, 2, M, M,
};

static void
test_krippendorff (void)
{
  HsAgreement a;
  g_autoptr(GError) error = NULL;

  g_assert_true (hs_agreement_compute (kripp, 12, 4, 5, &a, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (a.alpha_nominal, 1.0 - 312.0 / 1216.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (a.alpha_ordinal, 0.815, 0.0005);
  g_assert_cmpuint (a.n_units_pairable, ==, 11);
  g_assert_true (isnan (a.cohen_kappa));
  g_assert_nonnull (a.cohen_kappa_reason);
  /* Units 2..10 minus unit 10 (A missing) and unit 1 (C missing): 3..9 and 2 = 8 complete. */
  g_assert_cmpuint (a.n_units_complete, ==, 8);
}

/* Fleiss' κ example of the Wikipedia article (10 subjects, 14 raters, 5
 * categories): counts per category; P̄ = 0.378, P̄_e = 0.213, κ = 0.210. */
static const int fleiss_counts[10][5] = {
  { 0, 0, 0, 0, 14 }, { 0, 2, 6, 4, 2 }, { 0, 0, 3, 5, 6 }, { 0, 3, 9, 2, 0 },
  { 2, 2, 8, 1, 1 }, { 7, 7, 0, 0, 0 }, { 3, 2, 6, 3, 0 }, { 2, 5, 3, 2, 2 },
  { 6, 5, 2, 1, 0 }, { 0, 2, 2, 3, 7 },
};

static void
test_fleiss (void)
{
  int ratings[10 * 14];
  HsAgreement a;
  g_autoptr(GError) error = NULL;

  for (guint u = 0; u < 10; u++)
    {
      guint c = 0;

      for (int k = 0; k < 5; k++)
        for (int i = 0; i < fleiss_counts[u][k]; i++)
          ratings[u * 14 + c++] = k;
      g_assert_cmpuint (c, ==, 14);
    }
  g_assert_true (hs_agreement_compute (ratings, 10, 14, 5, &a, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (a.fleiss_kappa, 0.210, 0.0005);
  g_assert_cmpfloat_with_epsilon (a.percent_agreement, 0.378, 0.0005);
  g_assert_cmpuint (a.n_units_complete, ==, 10);
}

/* Cohen's classic 2 × 2 example: 50 items, yes/yes 20, yes/no 5, no/yes 10,
 * no/no 15: p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4. */
static void
test_cohen_hand (void)
{
  int ratings[50 * 2];
  guint u = 0;
  HsAgreement a;
  g_autoptr(GError) error = NULL;

  for (int i = 0; i < 20; i++, u++) { ratings[2 * u] = 1; ratings[2 * u + 1] = 1; }
  for (int i = 0; i < 5; i++, u++)  { ratings[2 * u] = 1; ratings[2 * u + 1] = 0; }
  for (int i = 0; i < 10; i++, u++) { ratings[2 * u] = 0; ratings[2 * u + 1] = 1; }
  for (int i = 0; i < 15; i++, u++) { ratings[2 * u] = 0; ratings[2 * u + 1] = 0; }
  g_assert_true (hs_agreement_compute (ratings, 50, 2, 2, &a, &error));
  g_assert_cmpfloat_with_epsilon (a.cohen_kappa, 0.4, 1e-12);
  g_assert_cmpfloat_with_epsilon (a.percent_agreement, 0.7, 1e-12);
}

static const char sklearn_script[] =
  "import sys, json\n"
  "from sklearn.metrics import cohen_kappa_score\n"
  "out = []\n"
  "for case in json.loads(sys.argv[1]):\n"
  "    a = [p[0] for p in case if p[0] >= 0 and p[1] >= 0]\n"
  "    b = [p[1] for p in case if p[0] >= 0 and p[1] >= 0]\n"
  "    out.append(float(cohen_kappa_score(a, b)))\n"
  "print(json.dumps(out))\n";

/* Random two-annotator data (with missing ratings) vs scikit-learn. */
static void
test_cohen_sklearn (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261122);
  g_autoptr(GString) json = g_string_new ("[");
  g_autofree char *out = NULL;
  g_auto(GStrv) values = NULL;
  enum { N_CASES = 12, N_UNITS = 60 };
  int ratings[N_CASES][N_UNITS * 2];

  for (guint t = 0; t < N_CASES; t++)
    {
      guint n_cat = 2 + t % 5;

      g_string_append (json, t ? ", [" : "[");
      for (guint u = 0; u < N_UNITS; u++)
        {
          int a = g_rand_int_range (rand, 0, n_cat);
          /* Correlated second annotator, sometimes missing. */
          int b = g_rand_int_range (rand, 0, 3) ? a : g_rand_int_range (rand, 0, n_cat);

          if (g_rand_int_range (rand, 0, 10) == 0)
            b = M;
          ratings[t][2 * u] = a;
          ratings[t][2 * u + 1] = b;
          g_string_append_printf (json, "%s[%d, %d]", u ? ", " : "", a, b);
        }
      g_string_append (json, "]");
    }
  g_string_append (json, "]");

  out = hs_test_python (sklearn_script, (const char * const []) { json->str, NULL });
  if (out == NULL)
    return;
  g_strstrip (out);
  g_assert_true (out[0] == '[');
  out[strlen (out) - 1] = '\0';
  values = g_strsplit (out + 1, ",", -1);
  g_assert_cmpuint (g_strv_length (values), ==, N_CASES);
  for (guint t = 0; t < N_CASES; t++)
    {
      HsAgreement a;
      g_autoptr(GError) error = NULL;

      g_assert_true (hs_agreement_compute (ratings[t], N_UNITS, 2, 2 + t % 5, &a, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat_with_epsilon (a.cohen_kappa, g_ascii_strtod (values[t], NULL), 1e-12);
    }
}

static void
test_degenerate (void)
{
  const int same[3 * 2] = { 1, 1, 1, 1, 1, 1 };
  const int bad[2] = { 0, 3 };
  const int lonely[2 * 2] = { 0, M, M, 1 };
  HsAgreement a;
  GError *error = NULL;
  g_autoptr(GString) json = g_string_new (NULL);

  /* One category only: perfect percent agreement, every κ/α undefined (never 0 or 1). */
  g_assert_true (hs_agreement_compute (same, 3, 2, 3, &a, NULL));
  g_assert_cmpfloat (a.percent_agreement, ==, 1.0);
  g_assert_true (isnan (a.cohen_kappa) && isnan (a.fleiss_kappa));
  g_assert_true (isnan (a.alpha_nominal) && isnan (a.alpha_ordinal));
  hs_agreement_append_json (&a, json);
  g_assert_cmpstr (json->str, ==, "\"percent_agreement\": 1, \"cohen_kappa\": null, "
                   "\"fleiss_kappa\": null, \"krippendorff_alpha_ordinal\": null, "
                   "\"krippendorff_alpha_nominal\": null");

  /* No pairable unit. */
  g_assert_true (hs_agreement_compute (lonely, 2, 2, 2, &a, NULL));
  g_assert_true (isnan (a.percent_agreement) && isnan (a.cohen_kappa));
  g_assert_true (isnan (a.alpha_nominal));

  g_assert_false (hs_agreement_compute (bad, 1, 2, 3, &a, &error));
  g_assert_error (error, HS_AGREEMENT_ERROR, HS_AGREEMENT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (hs_agreement_compute (bad, 1, 0, 3, &a, &error));
  g_assert_error (error, HS_AGREEMENT_ERROR, HS_AGREEMENT_ERROR_INVALID);
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/agreement/krippendorff", test_krippendorff);
  g_test_add_func ("/hs/agreement/fleiss", test_fleiss);
  g_test_add_func ("/hs/agreement/cohen-hand", test_cohen_hand);
  g_test_add_func ("/hs/agreement/cohen-sklearn", test_cohen_sklearn);
  g_test_add_func ("/hs/agreement/degenerate", test_degenerate);
  return g_test_run ();
}
