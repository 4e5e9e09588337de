/* hs-metric-info.h — what each metric means: one table for the app's
 * tooltips and the CLI's --help
 *
 * Every number the library computes has one entry: the metrics of every
 * protocol (HsMetric), sym_kl, swap_response, and tag_entropy and
 * tag_entropy_norm of a map's tag attention (hs_tag_attention_entropy).
 * An entry gives the JSON key, a one-line definition, the range and which
 * direction is better, so a reader of "laterality −0.957" or "sym_kl 10.5"
 * learns what it says without opening metrics.md.  Definitions and directions are translated
 * (libheatscope's domain); names and ranges are not. */
#pragma once

#include <glib.h>
#include "hs-metrics.h"

G_BEGIN_DECLS

typedef enum {
  HS_METRIC_HIGHER_BETTER,
  HS_METRIC_LOWER_BETTER,
  HS_METRIC_DESCRIPTIVE,      /* neither: it describes the map (spread, side, change) */
} HsMetricDirection;

typedef struct {
  const char        *name;        /* JSON key: "auroc", "sym_kl", "swap_response"      */
  const char        *definition;  /* one line, English (hs_metric_info_get_definition) */
  const char        *range;       /* "[0, 1]", "{0, 1}", "[−1, 1]", "[0, ∞)"            */
  HsMetricDirection  direction;
} HsMetricInfo;

/* The whole table: every HsMetric in enum order, then sym_kl,
 * swap_response, tag_entropy and tag_entropy_norm. */
const HsMetricInfo *hs_metric_info_table  (guint *n_entries);
/* The entry of a metric / of a name (a delta_<metric> name gives the
 * metric's entry); NULL for an unknown name. */
const HsMetricInfo *hs_metric_info_get    (HsMetric metric);
const HsMetricInfo *hs_metric_info_lookup (const char *name);
/* Translated: the definition, and "higher is better", "lower is better" or
 * "neither better nor worse: it describes the map". */
const char *hs_metric_info_get_definition (const HsMetricInfo *info);
const char *hs_metric_info_get_direction  (const HsMetricInfo *info);
/* The tooltip of a metric's name: "definition\nRange: [0, 1] · higher is
 * better" (translated).  Free with g_free. */
char       *hs_metric_info_tooltip        (const HsMetricInfo *info);
/* The table as plain text for --help: one block per entry, "  name  range,
 * direction" then the definition indented, wrapped at `width` columns. */
char       *hs_metric_info_format_help    (guint width);

G_END_DECLS
