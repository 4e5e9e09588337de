/* hs-metrics-panel.c — localization metrics of the map on screen, with the
 * null baselines beside them and three small plots */
#include <math.h>

#include <glib/gi18n.h>
#include <heatscope/hs-metrics.h>
#include <heatscope/hs-metric-info.h>
#include <heatscope/hs-baselines.h>

#include "hs-css-private.h"
#include "hs-metrics-panel.h"
#include "hs-plot.h"
#include "hs-utils-private.h"

#define CURVE_POINTS 256

struct _HsMetricsPanel
{
  GtkWidget parent_instance;

  GtkWidget   *box;
  GtkDropDown *protocol_dropdown;
  GtkWidget   *spinner;
  GtkWidget   *status_label;
  GtkGrid     *table;
  GtkWidget   *plots_box;
  GtkWidget   *tag_box;          /* the tag attention's entropy */
  GtkLabel    *tag_entropy_name;
  GtkLabel    *tag_entropy_value;
  GtkLabel    *tag_norm_name;
  GtkLabel    *tag_norm_value;
  HsPlot      *roc_plot;
  HsPlot      *pr_plot;
  HsPlot      *iou_plot;

  HsProtocol   protocol;
  HsImage     *image;
  HsAttentionMap *map;
  GPtrArray   *regions;      /* HsRegion*, owned copies */
  GPtrArray   *masks;        /* HsImage* or NULL */

  GCancellable *cancellable;
  guint         serial;
  gboolean      busy;
  GHashTable   *cells;       /* "metric/column" → GtkLabel* */
};

G_DEFINE_FINAL_TYPE (HsMetricsPanel, hs_metrics_panel, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_PROTOCOL,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char * const column_names[] = {
  "model", "uniform", "center", "sobel", "laplace", "random",
};
#define N_COLUMNS 6

/* ---- the job (runs in a worker thread on copies) ------------------------- */

typedef struct {
  guint           serial;
  HsProtocol      protocol;
  HsImage        *image;
  HsAttentionMap *map;
  GPtrArray      *regions;
  GPtrArray      *masks;

  HsScores        scores[N_COLUMNS];
  char           *column_error[N_COLUMNS];
  HsCurves        curves;
  gboolean        have_curves;
  gint64          elapsed_us;
} Job;

static void
job_free (Job *job)
{
  g_clear_pointer (&job->image, hs_image_unref);
  g_clear_pointer (&job->map, hs_attention_map_unref);
  g_clear_pointer (&job->regions, g_ptr_array_unref);
  g_clear_pointer (&job->masks, g_ptr_array_unref);
  for (guint i = 0; i < N_COLUMNS; i++)
    g_free (job->column_error[i]);
  if (job->have_curves)
    hs_curves_clear (&job->curves);
  g_free (job);
}

static void
job_run (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsTarget) target = NULL;
  HsScoreOptions options;
  gint64 start = g_get_monotonic_time ();

  target = _hs_target_of_regions (job->image, job->protocol, job->regions, job->masks, &error);
  if (target == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  hs_score_options_init (&options);
  options.protocol = job->protocol;
  if (!hs_score_map (job->map, target, &options, &job->scores[0], &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  for (guint b = 0; b < HS_N_BASELINES; b++)
    {
      g_autoptr(GError) berror = NULL;

      if (g_task_return_error_if_cancelled (task))
        return;
      if (!hs_baseline_score ((HsBaseline) b, target, job->image,
                              hs_attention_map_get_width (job->map),
                              hs_attention_map_get_height (job->map),
                              HS_BASELINE_DEFAULT_SEED, &options, &job->scores[b + 1], &berror))
        job->column_error[b + 1] = g_strdup (berror->message);
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  job->have_curves = hs_score_curves (job->map, target, &options, CURVE_POINTS, &job->curves, NULL);
  job->elapsed_us = g_get_monotonic_time () - start;
  g_task_return_boolean (task, TRUE);
}

/* ---- table --------------------------------------------------------------- */

static void
clear_table (HsMetricsPanel *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->table))))
    gtk_grid_remove (self->table, child);
  g_hash_table_remove_all (self->cells);
}

static GtkWidget *
add_label (HsMetricsPanel *self, const char *text, int column, int row, float xalign)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  gtk_grid_attach (self->table, label, column, row, 1, 1);
  return label;
}

static void
fill_table (HsMetricsPanel *self, Job *job)
{
  const HsMetric *metrics;
  guint n_metrics;
  GtkWidget *label;

  clear_table (self);
  label = add_label (self, _("Metric"), 0, 0, 0);
  gtk_widget_add_css_class (label, "heading");
  for (guint c = 0; c < N_COLUMNS; c++)
    {
      label = add_label (self, c == 0 ? _("model") : column_names[c], c + 1, 0, 1);
      gtk_widget_add_css_class (label, "heading");
      gtk_widget_add_css_class (label, "hs-column-heading");
      if (job->column_error[c])
        gtk_widget_set_tooltip_text (label, job->column_error[c]);
    }

  metrics = hs_protocol_get_metrics (job->protocol, &n_metrics);
  for (guint r = 0; r < n_metrics; r++)
    {
      HsMetric metric = metrics[r];
      const char *name = hs_metric_get_name (metric);

      {
        /* What the number means, from the library's one table. */
        g_autofree char *definition = hs_metric_info_tooltip (hs_metric_info_get (metric));

        label = add_label (self, name, 0, r + 1, 0);
        /* "explanation_precision" breaks after its underscore rather than
         * pushing the baselines out of the side panel. */
        gtk_label_set_wrap (GTK_LABEL (label), TRUE);
        gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
        gtk_label_set_max_width_chars (GTK_LABEL (label), 13);
        gtk_widget_set_tooltip_text (label, definition);
        g_hash_table_insert (self->cells, g_strdup_printf ("%s/name", name), label);
      }
      for (guint c = 0; c < N_COLUMNS; c++)
        {
          const HsScores *scores = &job->scores[c];
          g_autofree char *text = NULL;
          const char *tooltip = NULL;

          if (job->column_error[c])
            {
              text = g_strdup ("—");
              tooltip = job->column_error[c];
            }
          else if (isnan (scores->value[metric]))
            {
              text = g_strdup (_("n/a"));
              tooltip = scores->reason[metric] ? scores->reason[metric] : _("undefined");
            }
          else
            text = _hs_format_score (metric, scores->value[metric]);

          label = add_label (self, text, c + 1, r + 1, 1);
          gtk_widget_add_css_class (label, "numeric");
          if (c == 0)
            gtk_widget_add_css_class (label, "heading");
          if (tooltip)
            {
              gtk_widget_set_tooltip_text (label, tooltip);
              gtk_widget_add_css_class (label, "dim-label");
            }
          g_hash_table_insert (self->cells, g_strdup_printf ("%s/%s", name, column_names[c]), label);
        }
    }
}

static void
set_plot (HsPlot *plot, GArray *points, gboolean normalise_x, double lo, double hi, const char *note)
{
  g_autofree double *xs = NULL;
  g_autofree double *ys = NULL;
  guint n = points ? points->len : 0;

  if (n == 0)
    {
      hs_plot_set_curve (plot, NULL, NULL, 0, note ? note : _("n/a"));
      return;
    }
  xs = g_new (double, n);
  ys = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      const HsCurvePoint *p = &g_array_index (points, HsCurvePoint, i);
      xs[i] = normalise_x ? (hi > lo ? (p->x - lo) / (hi - lo) : 0) : p->x;
      ys[i] = p->y;
    }
  hs_plot_set_curve (plot, xs, ys, n, NULL);
}

static void
set_busy (HsMetricsPanel *self, gboolean busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
job_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  HsMetricsPanel *self = HS_METRICS_PANEL (source);
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autofree char *status = NULL;
  g_autofree char *target_text = NULL;
  g_autofree char *grid_text = NULL;
  const char *empty_note;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || job->serial != self->serial)
        return;
      clear_table (self);
      hs_plot_set_curve (self->roc_plot, NULL, NULL, 0, NULL);
      hs_plot_set_curve (self->pr_plot, NULL, NULL, 0, NULL);
      hs_plot_set_curve (self->iou_plot, NULL, NULL, 0, NULL);
      gtk_label_set_text (GTK_LABEL (self->status_label), error->message);
      set_busy (self, FALSE);
      return;
    }
  if (job->serial != self->serial)
    return;

  fill_table (self, job);
  empty_note = job->scores[0].target_pixels == 0 ? _("n/a: target is empty")
             : job->scores[0].target_pixels == job->scores[0].grid_pixels ? _("n/a: target covers the image")
             : NULL;
  set_plot (self->roc_plot, job->have_curves ? job->curves.roc : NULL, FALSE, 0, 1, empty_note);
  set_plot (self->pr_plot, job->have_curves ? job->curves.pr : NULL, FALSE, 0, 1, empty_note);
  set_plot (self->iou_plot, job->have_curves ? job->curves.iou : NULL, TRUE,
            job->scores[0].map_min, job->scores[0].map_max, NULL);
  /* The counts are formatted first: gettext cannot extract a msgid built
   * with G_GUINT64_FORMAT. */
  target_text = g_strdup_printf ("%" G_GUINT64_FORMAT, job->scores[0].target_pixels);
  grid_text = g_strdup_printf ("%" G_GUINT64_FORMAT, job->scores[0].grid_pixels);
  /* TRANSLATORS: |G| target pixels of P grid pixels (W × H), time */
  status = g_strdup_printf (_("Target %s of %s px (%u × %u grid) · %.0f ms"),
                            target_text, grid_text,
                            job->scores[0].grid_width, job->scores[0].grid_height,
                            job->elapsed_us / 1000.0);
  gtk_label_set_text (GTK_LABEL (self->status_label), status);
  set_busy (self, FALSE);
}

static void
recompute (HsMetricsPanel *self)
{
  g_autoptr(GTask) task = NULL;
  Job *job;

  self->serial++;
  if (self->cancellable)
    {
      g_cancellable_cancel (self->cancellable);
      g_clear_object (&self->cancellable);
    }
  if (self->map == NULL || self->image == NULL)
    {
      clear_table (self);
      hs_plot_set_curve (self->roc_plot, NULL, NULL, 0, NULL);
      hs_plot_set_curve (self->pr_plot, NULL, NULL, 0, NULL);
      hs_plot_set_curve (self->iou_plot, NULL, NULL, 0, NULL);
      gtk_label_set_text (GTK_LABEL (self->status_label),
                          self->image ? _("No attention map for this query") : "");
      set_busy (self, FALSE);
      return;
    }

  job = g_new0 (Job, 1);
  job->serial = self->serial;
  job->protocol = self->protocol;
  job->image = hs_image_ref (self->image);
  job->map = hs_attention_map_ref (self->map);
  job->regions = self->regions ? g_ptr_array_ref (self->regions) : NULL;
  job->masks = self->masks ? g_ptr_array_ref (self->masks) : NULL;

  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, job_done, NULL);
  g_task_set_source_tag (task, recompute);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  /* The checks above keep a result from an older input off the table. */
  g_task_set_check_cancellable (task, FALSE);
  set_busy (self, TRUE);
  gtk_label_set_text (GTK_LABEL (self->status_label), _("Computing…"));
  g_task_run_in_thread (task, job_run);
}

/* ---- GObject ----------------------------------------------------------------- */

static void
on_protocol_selected (HsMetricsPanel *self)
{
  guint selected = gtk_drop_down_get_selected (self->protocol_dropdown);

  if (selected < HS_N_PROTOCOLS)
    hs_metrics_panel_set_protocol (self, hs_protocol_to_string ((HsProtocol) selected));
}

static void
hs_metrics_panel_dispose (GObject *object)
{
  HsMetricsPanel *self = HS_METRICS_PANEL (object);

  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->image, hs_image_unref);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  g_clear_pointer (&self->cells, g_hash_table_unref);
  gtk_widget_dispose_template (GTK_WIDGET (object), HS_TYPE_METRICS_PANEL);
  G_OBJECT_CLASS (hs_metrics_panel_parent_class)->dispose (object);
}

static void
hs_metrics_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  HsMetricsPanel *self = HS_METRICS_PANEL (object);

  switch (prop_id)
    {
    case PROP_PROTOCOL: g_value_set_string (value, hs_protocol_to_string (self->protocol)); break;
    case PROP_BUSY:     g_value_set_boolean (value, self->busy); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_metrics_panel_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  HsMetricsPanel *self = HS_METRICS_PANEL (object);

  switch (prop_id)
    {
    case PROP_PROTOCOL: hs_metrics_panel_set_protocol (self, g_value_get_string (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_metrics_panel_class_init (HsMetricsPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_metrics_panel_dispose;
  object_class->get_property = hs_metrics_panel_get_property;
  object_class->set_property = hs_metrics_panel_set_property;

  /* "protocol": "default", "gloria" or "chexlocalize"; "" reads as default
   * so the "metrics-protocol" key binds directly. */
  properties[PROP_PROTOCOL] =
    g_param_spec_string ("protocol", NULL, NULL, "default",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-metrics-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, box);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, protocol_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, spinner);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, status_label);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, table);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, plots_box);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, tag_box);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, tag_entropy_name);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, tag_entropy_value);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, tag_norm_name);
  gtk_widget_class_bind_template_child (widget_class, HsMetricsPanel, tag_norm_value);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "hs-metrics-panel");
}

static void
hs_metrics_panel_init (HsMetricsPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  _hs_css_init ();
  self->cells = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->protocol = HS_PROTOCOL_DEFAULT;

  self->roc_plot = HS_PLOT (hs_plot_new (_("ROC"), _("false positive rate"), _("true positive rate")));
  hs_plot_set_diagonal (self->roc_plot, TRUE);
  self->pr_plot = HS_PLOT (hs_plot_new (_("Precision–recall"), _("recall"), _("precision")));
  self->iou_plot = HS_PLOT (hs_plot_new (_("IoU vs. threshold"), _("threshold (scaled)"), _("IoU")));
  gtk_box_append (GTK_BOX (self->plots_box), GTK_WIDGET (self->roc_plot));
  gtk_box_append (GTK_BOX (self->plots_box), GTK_WIDGET (self->pr_plot));
  gtk_box_append (GTK_BOX (self->plots_box), GTK_WIDGET (self->iou_plot));

  g_signal_connect_swapped (self->protocol_dropdown, "notify::selected",
                            G_CALLBACK (on_protocol_selected), self);
  {
    /* What the two numbers mean, from the library's one table. */
    g_autofree char *entropy = hs_metric_info_tooltip (hs_metric_info_lookup ("tag_entropy"));
    g_autofree char *norm = hs_metric_info_tooltip (hs_metric_info_lookup ("tag_entropy_norm"));

    gtk_widget_set_tooltip_text (GTK_WIDGET (self->tag_entropy_name), entropy);
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->tag_norm_name), norm);
  }
}

/* ---- public API ---------------------------------------------------------------- */

GtkWidget *
hs_metrics_panel_new (void)
{
  return g_object_new (HS_TYPE_METRICS_PANEL, NULL);
}

void
hs_metrics_panel_set_input (HsMetricsPanel *self, HsImage *image, HsAttentionMap *map,
                            GPtrArray *regions, GPtrArray *masks)
{
  g_return_if_fail (HS_IS_METRICS_PANEL (self));
  g_return_if_fail (masks == NULL || regions == NULL || masks->len == regions->len);

  g_clear_pointer (&self->image, hs_image_unref);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  if (image)
    self->image = hs_image_ref (image);
  if (map)
    self->map = hs_attention_map_ref (map);
  if (regions)
    {
      /* Copies: the job thread reads them while the window moves on. */
      self->regions = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_region_free);
      self->masks = g_ptr_array_new_with_free_func (_hs_image_unref0);
      for (guint i = 0; i < regions->len; i++)
        {
          HsImage *mask = masks ? g_ptr_array_index (masks, i) : NULL;
          g_ptr_array_add (self->regions, hs_region_copy (g_ptr_array_index (regions, i)));
          g_ptr_array_add (self->masks, mask ? hs_image_ref (mask) : NULL);
        }
    }
  recompute (self);
}

/* One value of the tag section: the number, or "n/a" with the reason. */
static void
set_tag_value (GtkLabel *label, double value, const char *reason)
{
  g_autofree char *text = _hs_format_score (-1, value);

  gtk_label_set_text (label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (label), isnan (value) ? reason : NULL);
}

void
hs_metrics_panel_set_tags (HsMetricsPanel *self, const HsTagWeight *tags, guint n)
{
  const char *reason = NULL;
  double entropy, norm = NAN;

  g_return_if_fail (HS_IS_METRICS_PANEL (self));
  g_return_if_fail (n == 0 || tags != NULL);

  gtk_widget_set_visible (self->tag_box, n > 0);
  if (n == 0)
    return;
  /* A few additions: computed here, not in the job. */
  entropy = hs_tag_attention_entropy (tags, n, &norm, &reason);
  set_tag_value (self->tag_entropy_value, entropy, reason);
  set_tag_value (self->tag_norm_value, norm, reason);
}

const char *
hs_metrics_panel_get_protocol (HsMetricsPanel *self)
{
  g_return_val_if_fail (HS_IS_METRICS_PANEL (self), NULL);
  return hs_protocol_to_string (self->protocol);
}

void
hs_metrics_panel_set_protocol (HsMetricsPanel *self, const char *protocol)
{
  HsProtocol p = HS_PROTOCOL_DEFAULT;

  g_return_if_fail (HS_IS_METRICS_PANEL (self));

  if (protocol && *protocol && !hs_protocol_from_string (protocol, &p))
    {
      g_warning ("Unknown metrics protocol “%s”", protocol);
      return;
    }
  if (p == self->protocol)
    return;
  self->protocol = p;
  if (gtk_drop_down_get_selected (self->protocol_dropdown) != (guint) p)
    gtk_drop_down_set_selected (self->protocol_dropdown, p);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROTOCOL]);
  recompute (self);
}

gboolean
hs_metrics_panel_get_busy (HsMetricsPanel *self)
{
  g_return_val_if_fail (HS_IS_METRICS_PANEL (self), FALSE);
  return self->busy;
}

gboolean
hs_metrics_panel_get_cell (HsMetricsPanel *self, const char *metric, const char *column,
                           const char **text, const char **tooltip)
{
  g_autofree char *key = NULL;
  GtkWidget *label;

  g_return_val_if_fail (HS_IS_METRICS_PANEL (self), FALSE);
  g_return_val_if_fail (metric != NULL && column != NULL, FALSE);

  key = g_strdup_printf ("%s/%s", metric, column);
  label = g_hash_table_lookup (self->cells, key);
  if (label == NULL && gtk_widget_get_visible (self->tag_box) && g_str_equal (column, "model"))
    label = g_str_equal (metric, "tag_entropy") ? GTK_WIDGET (self->tag_entropy_value)
          : g_str_equal (metric, "tag_entropy_norm") ? GTK_WIDGET (self->tag_norm_value) : NULL;
  if (label == NULL)
    return FALSE;
  if (text)
    *text = gtk_label_get_text (GTK_LABEL (label));
  if (tooltip)
    *tooltip = gtk_widget_get_tooltip_text (label);
  return TRUE;
}

const char *
hs_metrics_panel_get_status (HsMetricsPanel *self)
{
  g_return_val_if_fail (HS_IS_METRICS_PANEL (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->status_label));
}
