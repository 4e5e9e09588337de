/* hs-perturb-panel.c — a perturbation and the Δ of every metric */

#include <math.h>
#include <glib/gi18n.h>
#include <heatscope/hs-metrics.h>
#include <heatscope/hs-metric-info.h>
#include <heatscope/hs-target.h>

#include "hs-perturb-panel.h"
#include "hs-utils-private.h"
#include "hs-latest-request.h"
#include "hs-live-attend.h"

struct _HsPerturbPanel
{
  GtkWidget         parent_instance;

  GtkWidget        *box;
  GtkDropDown      *dropdown;
  GtkLabel         *prompt_label;
  GtkLabel         *status_label;
  GtkWidget        *progress_box;
  GtkSpinner       *spinner;
  GtkLabel         *progress_label;
  GtkGrid          *table;

  HsDataset        *dataset;
  HsInstance       *instance;   /* borrowed from dataset */
  HsSentence       *sentence;   /* borrowed from dataset */
  char             *model;
  HsLiveAttend     *live;        /* NULL unless live */
  char             *live_model;
  HsImage          *live_image;  /* NULL: loaded from the dataset */
  HsFileStamp       live_stamp_buf;
  const HsFileStamp *live_stamp;  /* of live_image's file before its decode (NULL: none) */
  /* The live requests of the newest recompute; older ones are dropped. */
  HsLatestRequest  *requests;
  HsPerturbed      *pending;
  HsAttentionMap   *pending_maps[2];   /* original, perturbed */
  char             *pending_inputs;    /* what the requests in flight are for */
  HsPerturbContext *context;
  HsPerturbation    perturbation;
  char             *prompt;
  char             *status;
  char             *swap_text;   /* the swap_response row as shown, NULL: none */
  gboolean          have_comparison;
  HsComparison      comparison;
};

G_DEFINE_FINAL_TYPE (HsPerturbPanel, hs_perturb_panel, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
set_status (HsPerturbPanel *self, const char *status)
{
  g_free (self->status);
  self->status = g_strdup (status ? status : "");
  gtk_label_set_text (self->status_label, self->status);
  gtk_widget_set_visible (GTK_WIDGET (self->status_label), *self->status != '\0');
}

static void
set_prompt (HsPerturbPanel *self, const char *prompt)
{
  g_free (self->prompt);
  self->prompt = g_strdup (prompt ? prompt : "");
  gtk_label_set_text (self->prompt_label, self->prompt);
}

static void
clear_table (HsPerturbPanel *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->table))) != NULL)
    gtk_grid_remove (self->table, child);
  self->have_comparison = FALSE;
  g_clear_pointer (&self->swap_text, g_free);
}

static void
add_cell (HsPerturbPanel *self, int column, int row, const char *text, const char *tooltip,
          gboolean heading)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), column == 0 ? 0 : 1);
  gtk_widget_set_tooltip_text (label, tooltip);
  if (heading)
    gtk_widget_add_css_class (label, "heading");
  else if (column > 0)
    gtk_widget_add_css_class (label, "numeric");
  gtk_grid_attach (self->table, label, column, row, 1, 1);
}

static void
fill_table (HsPerturbPanel *self)
{
  const HsMetric *metrics;
  guint n;
  int row = 1;

  clear_table (self);
  add_cell (self, 0, 0, _("Metric"), NULL, TRUE);
  add_cell (self, 1, 0, _("Original"), NULL, TRUE);
  add_cell (self, 2, 0, _("Perturbed"), NULL, TRUE);
  add_cell (self, 3, 0, _("Δ"), _("Perturbed − original, against the original target"), TRUE);
  metrics = hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n);
  for (guint i = 0; i < n; i++, row++)
    {
      HsMetric m = metrics[i];
      g_autofree char *o = _hs_format_score (m, self->comparison.original.value[m]);
      g_autofree char *p = _hs_format_score (m, self->comparison.perturbed.value[m]);
      g_autofree char *d = NULL;

      if (isnan (self->comparison.delta[m]))
        d = g_strdup (_("n/a"));
      else
        d = g_strdup_printf ("%+.3f", self->comparison.delta[m]);
      g_autofree char *definition = hs_metric_info_tooltip (hs_metric_info_get (m));

      add_cell (self, 0, row, hs_metric_get_name (m), definition, FALSE);
      add_cell (self, 1, row, o, self->comparison.original.reason[m], FALSE);
      add_cell (self, 2, row, p, self->comparison.perturbed.reason[m], FALSE);
      add_cell (self, 3, row, d, NULL, FALSE);
    }
  {
    g_autofree char *kl = _hs_format_score (-1, self->comparison.sym_kl);
    g_autofree char *definition = hs_metric_info_tooltip (hs_metric_info_lookup ("sym_kl"));

    add_cell (self, 0, row, "sym_kl", definition, FALSE);
    add_cell (self, 3, row, kl, self->comparison.sym_kl_reason, FALSE);
    row++;
  }
  g_clear_pointer (&self->swap_text, g_free);
  if (self->perturbation == HS_PERTURB_SWAP_LEFT_RIGHT)
    {
      /* What the swap did, in words (metrics.md swap_response); the
       * perturbed map's wrong_side is n/a: against the original target it
       * would flag exactly a map that followed the words. */
      double v = self->comparison.swap_response;
      const char *verdict = hs_swap_verdict_label (hs_swap_verdict (v));
      GtkWidget *label;
      g_autofree char *definition = hs_metric_info_tooltip (hs_metric_info_lookup ("swap_response"));

      if (isnan (v))
        self->swap_text = g_strdup_printf ("%s (%s)", verdict,
                                           self->comparison.swap_response_reason
                                           ? self->comparison.swap_response_reason : "");
      else
        self->swap_text = g_strdup_printf ("%+.3f · %s", v, verdict);
      add_cell (self, 0, row, "swap_response", definition, FALSE);
      label = gtk_label_new (self->swap_text);
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "heading");
      gtk_grid_attach (self->table, label, 1, row, 3, 1);
    }
  self->have_comparison = TRUE;
}

static HsTarget *
original_target (HsPerturbPanel *self, GError **error)
{
  HsEvalGrid grid;
  guint width, height;

  if (!hs_dataset_get_image_size (self->dataset, self->instance, &width, &height, error) ||
      !hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, width, height, 0, error))
    return NULL;
  return hs_target_new_for_sentence (&grid, self->dataset, self->instance, self->sentence, error);
}

/* Scores both maps against the original target and fills the table. */
static void
score (HsPerturbPanel *self, HsPerturbed *perturbed, HsAttentionMap *original,
       HsAttentionMap *changed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsTarget) target = NULL;
  HsScoreOptions options;

  target = original_target (self, &error);
  if (target == NULL)
    {
      set_status (self, error->message);
      return;
    }
  hs_score_options_init (&options);
  if (!hs_perturb_compare (self->context, self->instance, self->sentence, perturbed, original,
                           changed != NULL ? changed : original, target, &options,
                           &self->comparison, &error))
    {
      set_status (self, error->message);
      return;
    }
  hs_score_release_memory ();
  set_status (self, NULL);
  fill_table (self);
}

static void
set_busy (HsPerturbPanel *self, gboolean busy, const char *text)
{
  gboolean was = gtk_widget_get_visible (self->progress_box);

  gtk_label_set_text (self->progress_label, text != NULL ? text : "");
  gtk_widget_set_visible (self->progress_box, busy);
  gtk_spinner_set_spinning (self->spinner, busy);
  if (was != busy)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* Forgets the live requests in flight (their results still feed the cache). */
static void
cancel_live (HsPerturbPanel *self)
{
  hs_latest_request_cancel (self->requests);
  g_clear_pointer (&self->pending, hs_perturbed_free);
  g_clear_pointer (&self->pending_maps[0], hs_attention_map_unref);
  g_clear_pointer (&self->pending_maps[1], hs_attention_map_unref);
  g_clear_pointer (&self->pending_inputs, g_free);
  set_busy (self, FALSE, NULL);
}

typedef struct {
  HsPerturbPanel *panel;   /* weak: the panel may go first */
  guint64         ticket;   /* of the panel's requests */
  guint           slot;
} LiveRequest;

static void
live_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  LiveRequest *request = user_data;
  HsPerturbPanel *self = request->panel;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = hs_live_attend_finish (HS_LIVE_ATTEND (object), result, &error);

  if (self != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self), (gpointer *) &request->panel);
  if (self == NULL || !hs_latest_request_is_current (self->requests, request->ticket))
    {
      g_free (request);
      return;
    }
  if (map == NULL)
    {
      g_autofree char *message = NULL;

      g_free (request);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      /* The backend's messages name its command; a built-in model's do not. */
      if (hs_live_attend_is_exec (self->live_model))
        message = g_strdup (error->message);
      else
        message = g_strdup_printf (_("Live model %s: %s"), self->live_model, error->message);
      cancel_live (self);
      set_status (self, message);
      return;
    }
  self->pending_maps[request->slot] = g_steal_pointer (&map);
  hs_latest_request_finish (self->requests, request->ticket);
  g_free (request);
  if (hs_latest_request_get_n_pending (self->requests) > 0)
    return;
  {
    g_autoptr(HsPerturbed) perturbed = g_steal_pointer (&self->pending);
    g_autoptr(HsAttentionMap) original = g_steal_pointer (&self->pending_maps[0]);
    g_autoptr(HsAttentionMap) changed = g_steal_pointer (&self->pending_maps[1]);

    cancel_live (self);
    score (self, perturbed, original, changed);
  }
}

/* The original and the perturbed prompt attended live: from the cache when
 * they are there, else off the main thread (the Perturb tab stays usable
 * while the external backend thinks). */
static void
recompute_live (HsPerturbPanel *self, HsPerturbed *perturbed)
{
  const char *prompts[2] = { self->sentence->text, perturbed->prompt };
  guint n = hs_perturbation_is_target (self->perturbation) ? 1 : 2;
  g_autofree char *progress = NULL;

  self->pending = perturbed;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *key = hs_live_attend_make_key (self->dataset, self->instance,
                                                      self->live_model, prompts[i]);
      self->pending_maps[i] = hs_live_attend_lookup (self->live, key);
    }
  if (self->pending_maps[0] != NULL && (n == 1 || self->pending_maps[1] != NULL))
    {
      g_autoptr(HsPerturbed) done = g_steal_pointer (&self->pending);
      g_autoptr(HsAttentionMap) original = g_steal_pointer (&self->pending_maps[0]);
      g_autoptr(HsAttentionMap) changed = g_steal_pointer (&self->pending_maps[1]);

      score (self, done, original, changed);
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      LiveRequest *request;
      GCancellable *cancellable = NULL;

      if (self->pending_maps[i] != NULL)
        continue;
      request = g_new0 (LiveRequest, 1);
      request->panel = self;
      request->ticket = hs_latest_request_issue (self->requests, &cancellable);
      request->slot = i;
      g_object_add_weak_pointer (G_OBJECT (self), (gpointer *) &request->panel);
      hs_live_attend_async (self->live, self->dataset, self->instance, self->live_image, self->live_stamp,
                            self->live_model, prompts[i], cancellable, live_done, request);
    }
  progress = g_strdup_printf (_("Attending with %s…"),
                              hs_live_attend_get_source_name (self->live, self->live_model));
  set_busy (self, TRUE, progress);
}

static void
recompute (HsPerturbPanel *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsPerturbed) perturbed = NULL;
  g_autoptr(HsAttentionMap) original = NULL;
  g_autoptr(HsAttentionMap) changed = NULL;
  g_autofree char *inputs = NULL;
  HsMapRef *ref;

  /* The window updates its panels often; requests already in flight for
   * the same inputs are not restarted. */
  if (self->live_model != NULL && self->dataset != NULL && self->instance != NULL &&
      self->sentence != NULL)
    inputs = g_strdup_printf ("%s\x1f%s\x1f%s\x1f%s\x1f%d\x1f%p", self->live_model,
                              hs_dataset_get_root (self->dataset), self->instance->id,
                              self->sentence->id, (int) self->perturbation, (gpointer) self->live_image);
  if (inputs != NULL && hs_latest_request_get_n_pending (self->requests) > 0 &&
      g_strcmp0 (inputs, self->pending_inputs) == 0)
    return;
  cancel_live (self);
  clear_table (self);
  set_prompt (self, NULL);
  if (self->dataset != NULL && self->instance != NULL && self->sentence == NULL && self->model != NULL)
    {
      set_status (self, _("The prompt is not a report sentence: pick a sentence to see how its perturbations move the map"));
      return;
    }
  if (self->dataset == NULL || self->instance == NULL || self->sentence == NULL || self->model == NULL)
    {
      set_status (self, _("Pick an instance, a sentence and a model"));
      return;
    }
  perturbed = hs_perturb (self->context, self->instance, self->sentence, self->perturbation,
                          HS_PROTOCOL_DEFAULT, 0, &error);
  if (perturbed == NULL)
    {
      set_status (self, error->message);
      return;
    }
  if (perturbed->prompt != NULL)
    {
      g_autofree char *text = g_strdup_printf ("“%s”%s", perturbed->prompt,
                                               perturbed->unchanged ? _(" (unchanged)") : "");
      set_prompt (self, text);
    }
  else
    set_prompt (self, perturbed->description);

  if (self->live_model != NULL)
    {
      set_status (self, NULL);
      recompute_live (self, g_steal_pointer (&perturbed));
      if (hs_latest_request_get_n_pending (self->requests) > 0)
        self->pending_inputs = g_steal_pointer (&inputs);
      return;
    }
  ref = hs_instance_find_map (self->instance, self->model, self->sentence->id);
  if (ref == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Model %s has no map for sentence %s"),
                                                  self->model, self->sentence->id);
      set_status (self, message);
      return;
    }
  original = hs_dataset_load_map (self->dataset, ref, &error);
  if (original == NULL)
    {
      set_status (self, error->message);
      return;
    }
  if (!hs_perturbation_is_target (self->perturbation))
    {
      HsMapRef *changed_ref = hs_perturbed_find_map (self->context, self->instance, self->sentence,
                                                     perturbed, self->model, &error);
      if (changed_ref == NULL)
        {
          set_status (self, error != NULL ? error->message : _("No map of the perturbed prompt"));
          return;
        }
      changed = hs_dataset_load_map (self->dataset, changed_ref, &error);
      if (changed == NULL)
        {
          set_status (self, error->message);
          return;
        }
    }
  score (self, perturbed, original, changed);
}

static void
on_perturbation_selected (GObject *object, GParamSpec *pspec, HsPerturbPanel *self)
{
  guint selected = gtk_drop_down_get_selected (self->dropdown);

  if (selected == GTK_INVALID_LIST_POSITION || selected == (guint) self->perturbation)
    return;
  self->perturbation = (HsPerturbation) selected;
  recompute (self);
}

GtkWidget *
hs_perturb_panel_new (void)
{
  return g_object_new (HS_TYPE_PERTURB_PANEL, NULL);
}

void
hs_perturb_panel_set_input (HsPerturbPanel *self, HsDataset *dataset, HsInstance *instance,
                            HsSentence *sentence, const char *model)
{
  g_return_if_fail (HS_IS_PERTURB_PANEL (self));

  if (dataset != self->dataset)
    {
      g_clear_pointer (&self->context, hs_perturb_context_free);
      g_clear_pointer (&self->dataset, hs_dataset_unref);
      if (dataset != NULL)
        {
          self->dataset = hs_dataset_ref (dataset);
          self->context = hs_perturb_context_new (dataset);
        }
    }
  self->instance = dataset != NULL ? instance : NULL;
  self->sentence = dataset != NULL ? sentence : NULL;
  g_free (self->model);
  self->model = g_strdup (model);
  recompute (self);
}

void
hs_perturb_panel_set_live (HsPerturbPanel *self, HsLiveAttend *live, const char *model,
                           HsImage *image, const HsFileStamp *image_stamp)
{
  g_return_if_fail (HS_IS_PERTURB_PANEL (self));
  g_return_if_fail (model == NULL || HS_IS_LIVE_ATTEND (live));

  if (model == NULL)
    live = NULL;
  g_set_object (&self->live, live);
  if (self->live_model != model)
    {
      g_free (self->live_model);
      self->live_model = g_strdup (model);
    }
  g_clear_pointer (&self->live_image, hs_image_unref);
  self->live_stamp = NULL;
  if (model != NULL && image != NULL)
    self->live_image = hs_image_ref (image);
  if (self->live_image != NULL && image_stamp != NULL)
    {
      self->live_stamp_buf = *image_stamp;
      self->live_stamp = &self->live_stamp_buf;
    }
}

gboolean
hs_perturb_panel_get_busy (HsPerturbPanel *self)
{
  g_return_val_if_fail (HS_IS_PERTURB_PANEL (self), FALSE);
  return hs_latest_request_get_n_pending (self->requests) > 0;
}

void
hs_perturb_panel_set_perturbation (HsPerturbPanel *self, HsPerturbation perturbation)
{
  g_return_if_fail (HS_IS_PERTURB_PANEL (self));
  g_return_if_fail (perturbation < HS_N_PERTURBATIONS);
  gtk_drop_down_set_selected (self->dropdown, perturbation);
}

HsPerturbation
hs_perturb_panel_get_perturbation (HsPerturbPanel *self)
{
  g_return_val_if_fail (HS_IS_PERTURB_PANEL (self), HS_PERTURB_SWAP_LEFT_RIGHT);
  return self->perturbation;
}

const char *
hs_perturb_panel_get_prompt (HsPerturbPanel *self)
{
  g_return_val_if_fail (HS_IS_PERTURB_PANEL (self), NULL);
  return self->prompt;
}

const char *
hs_perturb_panel_get_status (HsPerturbPanel *self)
{
  g_return_val_if_fail (HS_IS_PERTURB_PANEL (self), NULL);
  return self->status;
}

const char *
hs_perturb_panel_get_swap_response_text (HsPerturbPanel *self)
{
  g_return_val_if_fail (HS_IS_PERTURB_PANEL (self), NULL);
  return self->swap_text;
}

gboolean
hs_perturb_panel_get_comparison (HsPerturbPanel *self, HsComparison *out)
{
  g_return_val_if_fail (HS_IS_PERTURB_PANEL (self), FALSE);
  if (!self->have_comparison)
    return FALSE;
  if (out != NULL)
    *out = self->comparison;
  return TRUE;
}

static void
hs_perturb_panel_dispose (GObject *object)
{
  HsPerturbPanel *self = HS_PERTURB_PANEL (object);

  cancel_live (self);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->context, hs_perturb_context_free);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  g_clear_pointer (&self->live_image, hs_image_unref);
  g_clear_object (&self->live);
  G_OBJECT_CLASS (hs_perturb_panel_parent_class)->dispose (object);
}

static void
hs_perturb_panel_finalize (GObject *object)
{
  HsPerturbPanel *self = HS_PERTURB_PANEL (object);

  g_free (self->model);
  g_free (self->live_model);
  g_free (self->prompt);
  g_free (self->status);
  g_free (self->swap_text);
  g_clear_object (&self->requests);
  G_OBJECT_CLASS (hs_perturb_panel_parent_class)->finalize (object);
}

static void
hs_perturb_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, hs_perturb_panel_get_busy (HS_PERTURB_PANEL (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_perturb_panel_class_init (HsPerturbPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_perturb_panel_dispose;
  object_class->finalize = hs_perturb_panel_finalize;
  object_class->get_property = hs_perturb_panel_get_property;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

/* What the dropdown shows, in HsPerturbation order; the core's ids
 * (hs_perturbation_to_string) stay those of the CLI and the files. */
static const char * const perturbation_labels[] = {
  NC_("perturbation", "Swap left/right"),
  NC_("perturbation", "Shuffle in report"),
  NC_("perturbation", "Random sentence"),
  NC_("perturbation", "Random boxes"),
  NC_("perturbation", "Synthetic swapped condition"),
};
G_STATIC_ASSERT (G_N_ELEMENTS (perturbation_labels) == HS_N_PERTURBATIONS);

static void
hs_perturb_panel_init (HsPerturbPanel *self)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  GtkWidget *scrolled;

  self->requests = hs_latest_request_new ();
  for (guint p = 0; p < HS_N_PERTURBATIONS; p++)
    gtk_string_list_append (names, g_dpgettext2 (NULL, "perturbation", perturbation_labels[p]));
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  self->dropdown = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (g_object_ref (names)), NULL));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->dropdown), _("Perturbation (McInerney et al. §3.1)"));
  self->prompt_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->prompt_label, TRUE);
  gtk_label_set_xalign (self->prompt_label, 0);
  self->status_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->status_label, TRUE);
  gtk_label_set_xalign (self->status_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
  self->progress_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  self->spinner = GTK_SPINNER (gtk_spinner_new ());
  self->progress_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->progress_label, 0);
  gtk_label_set_ellipsize (self->progress_label, PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (GTK_WIDGET (self->progress_label), "dim-label");
  gtk_box_append (GTK_BOX (self->progress_box), GTK_WIDGET (self->spinner));
  gtk_box_append (GTK_BOX (self->progress_box), GTK_WIDGET (self->progress_label));
  gtk_widget_set_visible (self->progress_box, FALSE);
  self->table = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->table, 12);
  gtk_grid_set_row_spacing (self->table, 2);
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->table));
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->dropdown));
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->prompt_label));
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->status_label));
  gtk_box_append (GTK_BOX (self->box), self->progress_box);
  gtk_box_append (GTK_BOX (self->box), scrolled);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_drop_down_set_selected (self->dropdown, 0);
  self->perturbation = HS_PERTURB_SWAP_LEFT_RIGHT;
  g_signal_connect (self->dropdown, "notify::selected", G_CALLBACK (on_perturbation_selected), self);
  set_status (self, NULL);
}
