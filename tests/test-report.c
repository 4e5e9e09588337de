/* test-report.c — sentences from labels (McInerney et al. A.3 and variants) */
#include <heatscope/heatscope.h>
#include <heatscope/hs-report.h>

#include "hs-test-util.h"

static void
assert_strv (char **got, const char *const *expected)
{
  g_assert_nonnull (got);
  g_assert_cmpuint (g_strv_length (got), ==, g_strv_length ((char **) expected));
  for (guint i = 0; expected[i] != NULL; i++)
    g_assert_cmpstr (got[i], ==, expected[i]);
}

static void
test_join (void)
{
  const char *const none[] = { NULL };
  const char *const one[] = { "left lung", NULL };
  const char *const three[] = { "a", "b", "c", NULL };
  g_autofree char *j0 = hs_report_join_locations (none);
  g_autofree char *j1 = hs_report_join_locations (one);
  g_autofree char *j3 = hs_report_join_locations (three);

  g_assert_cmpstr (j0, ==, "");
  g_assert_cmpstr (j1, ==, "left lung");
  g_assert_cmpstr (j3, ==, "a, b and c");
}

static void
test_positive_template (void)
{
  const char *const locs[] = { "right upper lung zone", "right hilar structures", NULL };
  HsReportFinding f = { "nodule", locs, "nodule" };
  g_autoptr(HsReportSentence) s = hs_report_positive (&f, 0);
  const char *const targets[] = { "right upper lung zone", "right hilar structures", "nodule", NULL };

  g_assert_cmpstr (s->text, ==,
                   "There is a nodule in the right upper lung zone and right hilar structures.");
  g_assert_cmpstr (s->condition, ==, "nodule");
  g_assert_cmpstr (s->context, ==, "positive");
  assert_strv (s->locations, locs);
  assert_strv (s->targets, targets);
  g_assert_cmpint (s->style, ==, HS_REPORT_STYLE_TEMPLATE);
}

static void
test_positive_variants (void)
{
  const char *const locs[] = { "left costophrenic angle", NULL };
  HsReportFinding f = { "pleural effusion", locs, "pleural effusion" };
  const char *expected[] = {
    "There is pleural effusion in the left costophrenic angle.",
    "Pleural effusion in the left costophrenic angle.",
    "Left costophrenic angle: effusion.",
    "Small effusion at the left costophrenic angle.",
    "Pleural effusion is seen in the left costophrenic angle.",
    "Left-sided effusion.",
  };
  const char *const targets[] = { "left costophrenic angle", "pleural effusion", NULL };

  for (guint v = 0; v < G_N_ELEMENTS (expected); v++)
    {
      g_autoptr(HsReportSentence) s = hs_report_positive (&f, v);
      g_assert_cmpstr (s->text, ==, expected[v]);
      assert_strv (s->targets, targets);
      g_assert_cmpstr (s->context, ==, "positive");
    }
}

static void
test_cardiomegaly (void)
{
  const char *const locs[] = { "cardiac silhouette", NULL };
  HsReportFinding f = { "cardiomegaly", locs, "cardiomegaly" };
  g_autoptr(HsReportSentence) a = hs_report_positive (&f, 0);
  g_autoptr(HsReportSentence) b = hs_report_positive (&f, 1);
  const char *const targets[] = { "cardiac silhouette", "cardiomegaly", NULL };

  g_assert_cmpstr (a->text, ==, "There is cardiomegaly in the cardiac silhouette.");
  g_assert_cmpstr (b->text, ==, "The cardiac silhouette is enlarged.");
  assert_strv (b->targets, targets);
}

static void
test_negative (void)
{
  const char *const none[] = { NULL };
  const char *const left[] = { "left lung", NULL };
  g_autoptr(HsReportSentence) g0 = hs_report_negative ("pneumothorax", NULL, 0);
  g_autoptr(HsReportSentence) g1 = hs_report_negative ("pleural effusion", NULL, 1);
  g_autoptr(HsReportSentence) g2 = hs_report_negative ("lung opacity", NULL, 2);
  g_autoptr(HsReportSentence) l0 = hs_report_negative ("pleural effusion", "left lung", 0);
  g_autoptr(HsReportSentence) l1 = hs_report_negative ("pleural effusion", "left lung", 1);
  g_autoptr(HsReportSentence) l2 = hs_report_negative ("pneumothorax", "left lung", 2);
  g_autoptr(HsReportSentence) h1 = hs_report_negative ("pneumothorax", "cardiac silhouette", 1);

  g_assert_cmpstr (g0->text, ==, "There is no pneumothorax.");
  g_assert_cmpstr (g0->context, ==, "negative");
  assert_strv (g0->targets, none);
  assert_strv (g0->locations, none);
  g_assert_cmpstr (g1->text, ==, "No effusion.");
  g_assert_cmpstr (g2->text, ==, "No evidence of opacity.");
  assert_strv (g2->targets, none);

  g_assert_cmpstr (l0->text, ==, "There is no pleural effusion in the left lung.");
  g_assert_cmpstr (l1->text, ==, "No effusion on the left.");
  g_assert_cmpstr (l2->text, ==, "The left lung shows no pneumothorax.");
  g_assert_cmpstr (h1->text, ==, "There is no pneumothorax in the cardiac silhouette.");
  assert_strv (l1->targets, left);
  assert_strv (l1->locations, left);
  g_assert_cmpstr (l1->condition, ==, "pleural effusion");
}

static void
test_clear (void)
{
  const char *const right[] = { "right lung", NULL };
  g_autoptr(HsReportSentence) a = hs_report_clear ("right lung", 0);
  g_autoptr(HsReportSentence) b = hs_report_clear ("left upper lung zone", 1);
  g_autoptr(HsReportSentence) c = hs_report_clear ("right costophrenic angle", 0);
  g_autoptr(HsReportSentence) d = hs_report_clear ("cardiac silhouette", 1);
  g_autoptr(HsReportSentence) e = hs_report_clear ("left hilar structures", 0);
  g_autoptr(HsReportSentence) f = hs_report_clear ("right lung", 2);
  g_autoptr(HsReportSentence) copy = hs_report_sentence_copy (a);

  g_assert_cmpstr (a->text, ==, "The right lung is clear.");
  assert_strv (a->targets, right);
  g_assert_cmpstr (a->context, ==, "negative");
  g_assert_cmpint (a->style, ==, HS_REPORT_STYLE_CLEAR);
  g_assert_cmpstr (b->text, ==, "Left upper lung zone: clear.");
  g_assert_cmpstr (c->text, ==, "The right costophrenic angle is sharp.");
  g_assert_cmpstr (d->text, ==, "Heart size is normal.");
  g_assert_cmpstr (d->condition, ==, "cardiomegaly");
  g_assert_cmpstr (e->text, ==, "The left hilar structures are normal.");
  g_assert_cmpstr (f->text, ==, "No abnormality in the right lung.");
  g_assert_cmpstr (copy->text, ==, a->text);
  assert_strv (copy->targets, right);
}

static void
test_phrases (void)
{
  const char *const *c = hs_report_conditions ();

  g_assert_cmpuint (g_strv_length ((char **) c), ==, 8);
  g_assert_cmpstr (hs_report_condition_phrase ("mass"), ==, "a mass");
  g_assert_cmpstr (hs_report_condition_phrase ("edema"), ==, "edema");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/report/join", test_join);
  g_test_add_func ("/hs/report/positive-template", test_positive_template);
  g_test_add_func ("/hs/report/positive-variants", test_positive_variants);
  g_test_add_func ("/hs/report/cardiomegaly", test_cardiomegaly);
  g_test_add_func ("/hs/report/negative", test_negative);
  g_test_add_func ("/hs/report/clear", test_clear);
  g_test_add_func ("/hs/report/phrases", test_phrases);
  return g_test_run ();
}
