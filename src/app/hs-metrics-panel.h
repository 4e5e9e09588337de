/* hs-metrics-panel.h — localization metrics of the map on screen
 *
 * A table of every metric of metrics.md (rows) for the model's map and the
 * null baselines (columns: metric, model, uniform, center, sobel, laplace,
 * random) under the protocol chosen in its dropdown (property "protocol":
 * "default", "gloria" or "chexlocalize"; bind to the "metrics-protocol"
 * key), undefined values as "n/a" with the reason as tooltip, and three small
 * plots (ROC, precision–recall, IoU vs. threshold).  Computed off the main
 * thread; a new input cancels the running computation.  Above the table,
 * for a map with a tag attention (co-attention), its tag_entropy and
 * tag_entropy_norm (hs_tag_attention_entropy).
 * Template: ui/hs-metrics-panel.ui. */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>

G_BEGIN_DECLS

#define HS_TYPE_METRICS_PANEL (hs_metrics_panel_get_type ())
G_DECLARE_FINAL_TYPE (HsMetricsPanel, hs_metrics_panel, HS, METRICS_PANEL, GtkWidget)

GtkWidget  *hs_metrics_panel_new          (void);
/* image: the radiograph (its size is the evaluation grid; sobel/laplace use
 * it); map: NULL clears the table; regions/masks as in
 * hs_canvas_set_regions (copied/referenced). */
void        hs_metrics_panel_set_input    (HsMetricsPanel *self, HsImage *image,
                                           HsAttentionMap *map,
                                           GPtrArray *regions, GPtrArray *masks);
/* The tag attention of the map given to set_input (NULL/0: none, the
 * section hides): its entropy is shown as get_cell's "tag_entropy" and
 * "tag_entropy_norm" of column "model" ("n/a" with the reason). */
void        hs_metrics_panel_set_tags     (HsMetricsPanel *self, const HsTagWeight *tags,
                                           guint n);
const char *hs_metrics_panel_get_protocol (HsMetricsPanel *self);
void        hs_metrics_panel_set_protocol (HsMetricsPanel *self, const char *protocol);
/* TRUE while a computation runs (property "busy"). */
gboolean    hs_metrics_panel_get_busy     (HsMetricsPanel *self);
/* What the table shows for `metric` (JSON key, e.g. "iou@10") in `column`
 * ("model", "uniform", "center", "sobel", "laplace", "random"): the text
 * ("0.812", "n/a") and the tooltip (the reason when n/a).  Column "name" is
 * the metric's name, its tooltip the definition (hs_metric_info_tooltip).  FALSE when the
 * cell does not exist (metric not in the protocol, nothing computed yet). */
gboolean    hs_metrics_panel_get_cell     (HsMetricsPanel *self, const char *metric,
                                           const char *column, const char **text,
                                           const char **tooltip);
/* The line under the protocol selector: target size and time, or the error. */
const char *hs_metrics_panel_get_status   (HsMetricsPanel *self);

G_END_DECLS
