/* hs-metric-info.c — the one table of metric definitions (metrics.md in a
 * line each) behind the app's tooltips and the CLI's --help */
#include <string.h>

#include "heatscope/hs-metric-info.h"
#include "hs-i18n-private.h"

#define HIGHER HS_METRIC_HIGHER_BETTER
#define LOWER  HS_METRIC_LOWER_BETTER
#define DESCR  HS_METRIC_DESCRIPTIVE

/* Indexed by HsMetric, then sym_kl and swap_response, then the two of a
 * map's tag attention (co-attention).  N_() marks the definitions for
 * translation; they are looked up when shown. */
static const HsMetricInfo table[HS_N_METRICS + 4] = {
  [HS_METRIC_AUROC] = { "auroc", N_("Probability that a random target pixel scores higher than a random pixel outside the target (ties count ½); 0.5 = chance"), "[0, 1]", HIGHER },
  [HS_METRIC_AP] = { "ap", N_("Average precision: the precision of the map's pixels, taken in decreasing order, averaged over the target pixels they recover"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_IOU_5] = { "iou@5", N_("Overlap (intersection over union) of the map's top 5 % pixels with the target"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_IOU_10] = { "iou@10", N_("Overlap (intersection over union) of the map's top 10 % pixels with the target"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_IOU_20] = { "iou@20", N_("Overlap (intersection over union) of the map's top 20 % pixels with the target"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_IOU_30] = { "iou@30", N_("Overlap (intersection over union) of the map's top 30 % pixels with the target"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_PRECISION_5] = { "precision@5", N_("Share of the map's top 5 % pixels that lie in the target"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_PRECISION_10] = { "precision@10", N_("Share of the map's top 10 % pixels that lie in the target"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_PRECISION_20] = { "precision@20", N_("Share of the map's top 20 % pixels that lie in the target"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_PRECISION_30] = { "precision@30", N_("Share of the map's top 30 % pixels that lie in the target"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_RECALL_5] = { "recall@5", N_("Share of the target covered by the map's top 5 % pixels"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_RECALL_10] = { "recall@10", N_("Share of the target covered by the map's top 10 % pixels"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_RECALL_20] = { "recall@20", N_("Share of the target covered by the map's top 20 % pixels"), "[0, 1]", HIGHER },
  /* xgettext:no-c-format */
  [HS_METRIC_RECALL_30] = { "recall@30", N_("Share of the target covered by the map's top 30 % pixels"), "[0, 1]", HIGHER },
  [HS_METRIC_POINTING_HIT] = { "pointing_hit", N_("1 when the map's highest pixel lies in the target, else 0"), "{0, 1}", HIGHER },
  [HS_METRIC_MASS_IN_TARGET] = { "mass_in_target", N_("Share of the map's positive mass that lies in the target"), "[0, 1]", HIGHER },
  [HS_METRIC_OTSU_IOU] = { "otsu_iou", N_("Overlap (intersection over union) of the target with the map thresholded by Otsu's method"), "[0, 1]", HIGHER },
  [HS_METRIC_EXPLANATION_PRECISION] = { "explanation_precision", N_("Share of the map's n highest pixels (n = the target's size) that lie in the target"), "[0, 1]", HIGHER },
  [HS_METRIC_CNR] = { "cnr", N_("Contrast-to-noise ratio: |mean inside − mean outside the target| / √(variance inside + variance outside)"), "[0, ∞)", HIGHER },
  [HS_METRIC_ENTROPY] = { "entropy", N_("Entropy (nats) of the map's positive mass over its grid cells: low = focused, ln(cells) = spread evenly"), "[0, ln(h·w)]", DESCR },
  [HS_METRIC_ENTROPY_NORM] = { "entropy_norm", N_("Entropy divided by ln(h·w): 0 = all on one cell, 1 = spread evenly over the grid"), "[0, 1]", DESCR },
  [HS_METRIC_NO_ATTN] = { "no_attn", N_("Attention the model put on its “No Attn” slot instead of the image"), "[0, 1]", DESCR },
  [HS_METRIC_LATERALITY] = { "laterality", N_("(mass on the patient's left − mass on the right) / both: +1 all on the patient's left (image right), −1 all on the patient's right"), "[−1, 1]", DESCR },
  [HS_METRIC_WRONG_SIDE] = { "wrong_side", N_("1 when the map and its own target lie on opposite sides (both |laterality| ≥ 0.2), else 0; not scored for a swapped prompt"), "{0, 1}", LOWER },
  [HS_N_METRICS] = { "sym_kl", N_("Symmetric Kullback–Leibler divergence between two maps of the same image (as distributions over the grid); 0 = the same map"), "[0, ∞)", DESCR },
  [HS_N_METRICS + 1] = { "swap_response", N_("How far the map of the left/right-swapped prompt moved toward the side the swapped words name, sign(t)·(l_A − l_B)/2; ≥ 0.1 followed the words, ≤ −0.1 moved the wrong way"), "[−1, 1]", HIGHER },
  [HS_N_METRICS + 2] = { "tag_entropy", N_("Entropy (nats) of the map's tag attention (co-attention: a report generator's weights over its tags): 0 = all on one tag, ln(n) = spread evenly over the n tags"), "[0, ln(n)]", DESCR },
  [HS_N_METRICS + 3] = { "tag_entropy_norm", N_("Tag entropy divided by ln(n), n = the number of tags listed: 0 = all on one tag, 1 = spread evenly; comparable across tag counts"), "[0, 1]", DESCR },
};

const HsMetricInfo *
hs_metric_info_table (guint *n_entries)
{
  g_return_val_if_fail (n_entries != NULL, NULL);
  *n_entries = G_N_ELEMENTS (table);
  return table;
}

const HsMetricInfo *
hs_metric_info_get (HsMetric metric)
{
  g_return_val_if_fail ((guint) metric < HS_N_METRICS, NULL);
  return &table[metric];
}

const HsMetricInfo *
hs_metric_info_lookup (const char *name)
{
  if (name == NULL)
    return NULL;
  if (g_str_has_prefix (name, "delta_"))
    name += strlen ("delta_");
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (strcmp (table[i].name, name) == 0)
      return &table[i];
  return NULL;
}

const char *
hs_metric_info_get_definition (const HsMetricInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);
  return _(info->definition);
}

const char *
hs_metric_info_get_direction (const HsMetricInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);
  switch (info->direction)
    {
    case HS_METRIC_HIGHER_BETTER: return _("higher is better");
    case HS_METRIC_LOWER_BETTER:  return _("lower is better");
    case HS_METRIC_DESCRIPTIVE:
    default:                      return _("neither better nor worse: it describes the map");
    }
}

char *
hs_metric_info_tooltip (const HsMetricInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);
  return g_strdup_printf (_("%s\nRange: %s · %s"), hs_metric_info_get_definition (info),
                          info->range, hs_metric_info_get_direction (info));
}

/* Appends `text` word-wrapped to `width` columns (counted in characters),
 * each line indented by `indent` spaces. */
static void
append_wrapped (GString *out, const char *text, guint indent, guint width)
{
  g_auto(GStrv) words = g_strsplit (text, " ", -1);
  guint column = 0;

  for (guint i = 0; words[i] != NULL; i++)
    {
      guint len = (guint) g_utf8_strlen (words[i], -1);

      if (column > 0 && column + 1 + len > width)
        {
          g_string_append_c (out, '\n');
          column = 0;
        }
      if (column == 0)
        {
          for (guint k = 0; k < indent; k++)
            g_string_append_c (out, ' ');
          column = indent;
        }
      else
        {
          g_string_append_c (out, ' ');
          column++;
        }
      g_string_append (out, words[i]);
      column += len;
    }
  g_string_append_c (out, '\n');
}

char *
hs_metric_info_format_help (guint width)
{
  GString *out = g_string_new (NULL);

  width = MAX (width, 40);
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    {
      g_string_append_printf (out, "  %s  %s, %s\n", table[i].name, table[i].range,
                              hs_metric_info_get_direction (&table[i]));
      append_wrapped (out, hs_metric_info_get_definition (&table[i]), 6, width);
    }
  return g_string_free (out, FALSE);
}
