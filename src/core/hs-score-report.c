/* hs-score-report.c — one scored map as one JSON object (see hs-score-report.h)
 *
 * The CLI and the Python binding both print through this function, so a
 * score computed in a notebook is the CLI's text byte for byte. */
#include "hs-score-report.h"

char *
hs_score_report_to_json (const HsScores *scores, const char *threshold_source, double threshold,
                         const HsComparison *comparison, const HsScores *baselines)
{
  GString *out;

  g_return_val_if_fail (scores != NULL || (comparison == NULL && baselines != NULL), NULL);

  out = g_string_new ("{");
  if (scores != NULL)
    hs_scores_append_json (scores, out);
  if (threshold_source != NULL)
    {
      g_autofree char *value = hs_metric_format (threshold);   /* "null" for NAN (Otsu) */

      g_string_append_printf (out, "%s\"threshold_source\": \"%s\", \"threshold\": %s",
                              out->len > 1 ? ", " : "", threshold_source, value);
    }
  if (comparison != NULL)
    {
      guint n;
      const HsMetric *list = hs_protocol_get_metrics (scores->protocol, &n);
      g_autofree char *kl = hs_metric_format (comparison->sym_kl);

      g_string_append_printf (out, ", \"sym_kl\": %s", kl);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *d = hs_metric_format (comparison->delta[list[i]]);
          g_string_append_printf (out, ", \"delta_%s\": %s", hs_metric_get_name (list[i]), d);
        }
    }
  if (baselines != NULL)
    {
      g_string_append (out, out->len > 1 ? ", \"baselines\": {" : "\"baselines\": {");
      for (guint b = 0; b < HS_N_BASELINES; b++)
        {
          g_string_append_printf (out, "%s\"%s\": {", b > 0 ? ", " : "",
                                  hs_baseline_to_string ((HsBaseline) b));
          hs_scores_append_json (&baselines[b], out);
          g_string_append_c (out, '}');
        }
      g_string_append_c (out, '}');
    }
  g_string_append_c (out, '}');
  return g_string_free (out, FALSE);
}
