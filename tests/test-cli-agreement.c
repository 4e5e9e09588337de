/* test-cli-agreement.c — heatscope-cli agreement: JSON keys, hand-worked
 * values, bad files */
#include <heatscope/heatscope.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "hs-test-util.h"

static char *tmpdir;

/* One answers file; `correct` holds one answer per unit (NULL = unanswered);
 * useful is always "yes", precise copies correct. */
static char *
write_answers (const char *name, const char *annotator, const char * const *correct, guint n,
               const char *extra)
{
  g_autoptr(GString) text = g_string_new (NULL);
  char *path = g_build_filename (tmpdir, name, NULL);

  for (guint u = 0; u < n; u++)
    {
      if (correct[u] == NULL)
        continue;
      g_string_append_printf (text,
        "{\"annotator\": \"%s\", \"instance\": \"i%u\", \"round\": \"report\", \"query\": \"s1\", "
        "\"prompt\": \"p\", \"model\": \"grounded\", \"alias\": \"Model A\", \"form\": \"three\", "
        "\"correct\": \"%s\", \"useful\": \"yes\", \"precise\": \"%s\", \"no_attn\": null, "
        "\"time\": \"2026-11-22T07:00:00Z\"}\n", annotator, u, correct[u], correct[u]);
    }
  if (extra != NULL)
    g_string_append (text, extra);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
  return path;
}

static double
member (JsonObject *root, const char *question, const char *key)
{
  JsonObject *q = json_object_get_object_member (root, question);
  JsonNode *node;

  g_assert_nonnull (q);
  node = json_object_get_member (q, key);
  g_assert_nonnull (node);
  return JSON_NODE_HOLDS_NULL (node) ? NAN : json_node_get_double (node);
}

/* Two annotators, four units of "correct": A = yes, yes, no, partially;
 * B = yes, no, no, partially.  By hand: percent agreement 3/4; Cohen:
 * p_e = .5·.25 + .25·.5 + .25·.25 = .3125, κ = .4375/.6875 = 7/11; Fleiss:
 * p = (yes 3/8, no 3/8, partially 2/8), P̄_e = 22/64, κ = (.75 − 22/64)/(42/64)
 * = 13/21; Krippendorff nominal 1 − 7·2/(64 − 22) = 2/3; ordinal (no <
 * partially < yes; n = 3, 2, 3): δ²(no, yes) = (8 − 3)² = 25, δ²(no, part) =
 * δ²(part, yes) = 2.5² = 6.25; D_o ∝ 2·25 = 50, D_e ∝ 2·(9·25 + 6·6.25 +
 * 6·6.25) = 600, α = 1 − 7·50/600 = 5/12. */
static void
test_two_annotators (void)
{
  const char *a[] = { "yes", "yes", "no", "partially" };
  const char *b[] = { "yes", "no", "no", "partially" };
  g_autofree char *fa = write_answers ("a.jsonl", "alice", a, 4, NULL);
  g_autofree char *fb = write_answers ("b.jsonl", "bob", b, 4, NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  const char *keys[] = { "percent_agreement", "cohen_kappa", "fleiss_kappa",
                         "krippendorff_alpha_ordinal", "krippendorff_alpha_nominal" };

  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { "--json", fa, fb, NULL }, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_has_member (root, "correct"));
  g_assert_true (json_object_has_member (root, "useful"));
  g_assert_true (json_object_has_member (root, "precise"));
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    g_assert_true (json_object_has_member (json_object_get_object_member (root, "correct"), keys[k]));
  g_assert_cmpfloat_with_epsilon (member (root, "correct", "percent_agreement"), 0.75, 1e-12);
  g_assert_cmpfloat_with_epsilon (member (root, "correct", "cohen_kappa"), 7.0 / 11.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (member (root, "correct", "fleiss_kappa"), 13.0 / 21.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (member (root, "correct", "krippendorff_alpha_nominal"), 2.0 / 3.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (member (root, "correct", "krippendorff_alpha_ordinal"), 5.0 / 12.0, 1e-12);
  /* precise copies correct; useful is always "yes": agreement 1, κ undefined. */
  g_assert_cmpfloat_with_epsilon (member (root, "precise", "cohen_kappa"), 7.0 / 11.0, 1e-12);
  g_assert_cmpfloat (member (root, "useful", "percent_agreement"), ==, 1.0);
  g_assert_true (isnan (member (root, "useful", "cohen_kappa")));
  g_assert_true (isnan (member (root, "useful", "krippendorff_alpha_nominal")));

  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { fa, fb, NULL }, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "correct"));
  g_assert_nonnull (strstr (out, "0.6364"));
}

static void
test_three_annotators_and_bad_lines (void)
{
  const char *a[] = { "yes", "yes", "no", "partially" };
  const char *b[] = { "yes", "no", "no", NULL };
  const char *c[] = { "yes", "no", "no", "partially" };
  g_autofree char *fa = write_answers ("a3.jsonl", "alice", a, 4, NULL);
  g_autofree char *fb = write_answers ("b3.jsonl", "bob", b, 4, "{\"annotator\": \"bob\", \"inst");
  g_autofree char *fc = write_answers ("c3.jsonl", "carol", c, 4, NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *where = g_strdup_printf ("%s:4: ", fb);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;

  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { "--json", fa, fb, fc, NULL }, &out, &err), ==, 0);
  /* The cut line is reported with file:line and skipped. */
  g_assert_nonnull (strstr (err, where));
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (isnan (member (root, "correct", "cohen_kappa")));
  /* Fleiss over the 3 complete units (yes,yes,yes), (yes,no,no), (no,no,no):
   * P_i = 1, 1/3, 1 → P̄ = 7/9; p = (yes 4/9, no 5/9), P̄_e = 41/81;
   * κ = (63/81 − 41/81)/(40/81) = 22/40. */
  g_assert_cmpfloat_with_epsilon (member (root, "correct", "fleiss_kappa"), 22.0 / 40.0, 1e-12);
  /* Percent agreement also counts unit 4 (two raters, agreeing): (1 + 1/3 + 1 + 1)/4. */
  g_assert_cmpfloat_with_epsilon (member (root, "correct", "percent_agreement"), (10.0 / 3.0) / 4.0, 1e-12);
}

static void
test_errors (void)
{
  const char *a[] = { "yes" };
  g_autofree char *fa = write_answers ("e.jsonl", "alice", a, 1, NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.jsonl", NULL);
  g_autofree char *likert = g_build_filename (tmpdir, "likert.jsonl", NULL);
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { NULL }, &out, &err), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { fa, missing, NULL }, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, missing));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_true (g_file_set_contents (likert,
    "{\"annotator\": \"x\", \"instance\": \"i0\", \"round\": \"report\", \"query\": \"s1\", "
    "\"model\": \"grounded\", \"alias\": \"Model A\", \"form\": \"likert\", \"recall\": 40, "
    "\"precision\": 60, \"intuitive\": 3}\n", -1, NULL));
  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { fa, likert, NULL }, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, likert));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { "--bogus", fa, NULL }, &out, &err), ==, 2);
}

/* One file counted as two annotators (twice by name, or through a hard
 * link), or one annotator in two files, is refused: it would be agreement
 * with oneself. */
static void
test_same_annotator_twice (void)
{
  const char *a[] = { "yes", "no", "yes" };
  const char *b[] = { "yes", "yes", "no" };
  g_autofree char *fa = write_answers ("same-a.jsonl", "alice", a, 3, NULL);
  g_autofree char *fb = write_answers ("same-b.jsonl", "alice", b, 3, NULL);
  g_autofree char *link_a = g_build_filename (tmpdir, "same-link.jsonl", NULL);
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { fa, fa, NULL }, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "are the same file"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (link (fa, link_a), ==, 0);
  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { fa, link_a, NULL }, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "are the same file"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (hs_test_run_cli ("agreement", (const char *[]) { fa, fb, NULL }, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "annotator \"alice\" also answers in"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmpdir = hs_test_make_tmpdir ();
  g_test_add_func ("/hs/cli-agreement/two-annotators", test_two_annotators);
  g_test_add_func ("/hs/cli-agreement/three-annotators", test_three_annotators_and_bad_lines);
  g_test_add_func ("/hs/cli-agreement/same-annotator-twice", test_same_annotator_twice);
  g_test_add_func ("/hs/cli-agreement/errors", test_errors);
  return g_test_run ();
}
