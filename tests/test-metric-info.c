/* test-metric-info.c — the table of metric definitions covers every number
 * the library computes, and its tooltip and --help texts hold each entry */
#include <heatscope/heatscope.h>
#include <string.h>

/* Every key hs_scores_append_json writes for `protocol` has an entry. */
static void
check_json_keys (HsProtocol protocol)
{
  g_autoptr(GString) json = g_string_new (NULL);
  g_autoptr(GRegex) key = g_regex_new ("\"([^\"]+)\":", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  HsScores scores = { 0 };
  guint n_keys = 0, n_metrics;

  scores.protocol = protocol;
  for (guint m = 0; m < HS_N_METRICS; m++)
    scores.value[m] = 0.5;
  hs_scores_append_json (&scores, json);
  g_regex_match (key, json->str, 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL), n_keys++)
    {
      g_autofree char *name = g_match_info_fetch (match, 1);

      if (hs_metric_info_lookup (name) == NULL)
        g_error ("no definition for '%s' (protocol %s)", name, hs_protocol_to_string (protocol));
    }
  hs_protocol_get_metrics (protocol, &n_metrics);
  g_assert_cmpuint (n_keys, ==, n_metrics);
}

static void
test_every_metric (void)
{
  guint n;
  const HsMetricInfo *table = hs_metric_info_table (&n);

  /* Every HsMetric, in enum order, then the two comparisons of two maps,
   * then the two numbers of a map's tag attention. */
  g_assert_cmpuint (n, ==, HS_N_METRICS + 4);
  for (guint m = 0; m < HS_N_METRICS; m++)
    {
      const HsMetricInfo *info = hs_metric_info_get ((HsMetric) m);

      g_assert_true (info == &table[m]);
      g_assert_cmpstr (info->name, ==, hs_metric_get_name ((HsMetric) m));
      g_assert_true (hs_metric_info_lookup (info->name) == info);
      /* "delta_<metric>" of --perturb reads the metric's entry. */
      {
        g_autofree char *delta = g_strdup_printf ("delta_%s", info->name);
        g_assert_true (hs_metric_info_lookup (delta) == info);
      }
    }
  g_assert_cmpstr (table[HS_N_METRICS].name, ==, "sym_kl");
  g_assert_cmpstr (table[HS_N_METRICS + 1].name, ==, "swap_response");
  g_assert_cmpstr (table[HS_N_METRICS + 2].name, ==, "tag_entropy");
  g_assert_cmpstr (table[HS_N_METRICS + 3].name, ==, "tag_entropy_norm");
  g_assert_true (hs_metric_info_lookup ("tag_entropy_norm") == &table[HS_N_METRICS + 3]);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpuint (strlen (table[i].definition), >, 20);
      g_assert_null (strchr (table[i].definition, '\n'));
      g_assert_true (table[i].range[0] == '[' || table[i].range[0] == '{');
      g_assert_cmpint (table[i].direction, <=, HS_METRIC_DESCRIPTIVE);
    }
  for (HsProtocol p = HS_PROTOCOL_DEFAULT; p <= HS_PROTOCOL_CHEXLOCALIZE; p++)
    check_json_keys (p);
  g_assert_null (hs_metric_info_lookup ("no-such-metric"));
  g_assert_null (hs_metric_info_lookup (NULL));
}

/* The readings that matter most to a first-time reader, by hand. */
static void
test_directions (void)
{
  g_assert_cmpint (hs_metric_info_lookup ("auroc")->direction, ==, HS_METRIC_HIGHER_BETTER);
  g_assert_cmpint (hs_metric_info_lookup ("wrong_side")->direction, ==, HS_METRIC_LOWER_BETTER);
  g_assert_cmpint (hs_metric_info_lookup ("laterality")->direction, ==, HS_METRIC_DESCRIPTIVE);
  g_assert_cmpint (hs_metric_info_lookup ("sym_kl")->direction, ==, HS_METRIC_DESCRIPTIVE);
  g_assert_cmpint (hs_metric_info_lookup ("swap_response")->direction, ==, HS_METRIC_HIGHER_BETTER);
  g_assert_cmpstr (hs_metric_info_lookup ("laterality")->range, ==, "[−1, 1]");
  g_assert_cmpstr (hs_metric_info_lookup ("cnr")->range, ==, "[0, ∞)");
  g_assert_cmpint (hs_metric_info_lookup ("tag_entropy")->direction, ==, HS_METRIC_DESCRIPTIVE);
  g_assert_cmpstr (hs_metric_info_lookup ("tag_entropy_norm")->range, ==, "[0, 1]");
}

static void
test_texts (void)
{
  guint n;
  const HsMetricInfo *table = hs_metric_info_table (&n);
  g_autofree char *help = hs_metric_info_format_help (80);
  g_autofree char *tooltip = hs_metric_info_tooltip (hs_metric_info_lookup ("auroc"));
  g_auto(GStrv) lines = g_strsplit (help, "\n", -1);
  g_autoptr(GString) flat = g_string_new (NULL);

  g_assert_true (g_str_has_prefix (tooltip, table[HS_METRIC_AUROC].definition));
  g_assert_true (g_str_has_suffix (tooltip, "\nRange: [0, 1] · higher is better"));
  /* --help: no line wider than 80 columns, and every entry's name, range,
   * direction and (re-joined) definition. */
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_assert_cmpuint (g_utf8_strlen (lines[i], -1), <=, 80);
      g_string_append_printf (flat, "%s ", g_strstrip (lines[i]));
    }
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *head = g_strdup_printf ("%s  %s, %s ", table[i].name, table[i].range,
                                               hs_metric_info_get_direction (&table[i]));
      g_assert_nonnull (strstr (flat->str, head));
      g_assert_nonnull (strstr (flat->str, table[i].definition));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/metric-info/every-metric", test_every_metric);
  g_test_add_func ("/hs/metric-info/directions", test_directions);
  g_test_add_func ("/hs/metric-info/texts", test_texts);
  return g_test_run ();
}
