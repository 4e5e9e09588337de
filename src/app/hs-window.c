/* hs-window.c — the main window: the object and its template, the
 * instance and its view (image, map, targets into the panels), the public
 * getters; the models, datasets and actions are in the files listed in
 * hs-window-private.h
 */
#include <glib/gi18n.h>
#include <heatscope/hs-model.h>

#include "hs-window-private.h"
#include "hs-perturb-panel.h"
#include "hs-startup-trace.h"
#include "hs-overlay-panel.h"
#include "hs-metrics-panel.h"

G_DEFINE_FINAL_TYPE (HsWindow, hs_window, GTK_TYPE_APPLICATION_WINDOW)

static GParamSpec *properties[N_PROPS];

void
_hs_window_notify (HsWindow     *self,
                   HsWindowProp  prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

/* Progress of long work (loading, finding subsets) in the header bar. */
void
_hs_window_update_spinner (HsWindow *self)
{
  gboolean busy = self->loading || self->image_cancellable != NULL || _hs_window_live_busy (self) ||
                  (self->browser != NULL && (hs_instance_browser_get_busy (self->browser) ||
                                             hs_instance_browser_get_loading (self->browser)));

  gtk_widget_set_visible (GTK_WIDGET (self->header_spinner), busy);
  gtk_spinner_set_spinning (self->header_spinner, busy);
}

static void
on_browser_busy (GObject    *object,
                 GParamSpec *pspec,
                 HsWindow   *self)
{
  _hs_window_update_spinner (self);
}

void
_hs_window_set_loading (HsWindow *self,
                        gboolean  loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), loading);
  gtk_spinner_set_spinning (self->spinner, loading);
  _hs_window_update_spinner (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}


/* ---- instance and view -------------------------------------------------- */

typedef struct {
  HsDataset  *dataset;
  HsInstance *instance;   /* borrowed from dataset */
  HsMaskJob  *masks;      /* its masks not cached yet (NULL: none) */
  HsFileStamp stamp_buf;
  const HsFileStamp *stamp;   /* of the image file before the decode (NULL: not there) */
} ImageJob;

static void
image_job_free (ImageJob *job)
{
  hs_dataset_unref (job->dataset);
  _hs_window_mask_job_free (job->masks);
  g_free (job);
}

static void
image_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  ImageJob *job = task_data;
  GError *error = NULL;
  HsImage *image;

  /* before the decode: a file replaced meanwhile is a miss next time */
  job->stamp = hs_dataset_stamp_file (job->dataset, job->instance->image, &job->stamp_buf);
  image = hs_dataset_load_image (job->dataset, job->instance, &error);

  /* the masks too: decoded and traced here, not on the main thread */
  if (image != NULL)
    _hs_window_mask_job_run (job->masks, job->dataset, cancellable);
  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, (GDestroyNotify) hs_image_unref);
}

/* A box outside the image or with no pixel inside is drawn but scores as
 * nothing: say so in the error bar, with the check validate makes
 * (hs_box_check), once the image's size is known. */
static void
report_bad_boxes (HsWindow *self, const HsInstance *instance, const HsImage *image)
{
  for (guint i = 0; instance->regions != NULL && i < instance->regions->len; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!hs_region_check_boxes (g_ptr_array_index (instance->regions, i),
                                  hs_image_get_width (image), hs_image_get_height (image), &error))
        {
          g_autofree char *message = g_strdup_printf (_("instance %s: %s"), instance->id,
                                                      error->message);

          hs_error_bar_add (self->error_bar, hs_dataset_get_manifest_path (self->dataset), message);
        }
    }
}

/* The instance's image is decoded (or failed: image NULL, error set): the
 * canvas and panels take it; with `update` the view follows at once. */
static void
image_ready (HsWindow          *self,
             const HsInstance  *instance,
             HsImage           *image,
             const HsFileStamp *stamp,
             const GError      *error,
             gboolean           update)
{
  if (image == NULL)
    hs_error_bar_add_error (self->error_bar, instance->image, error);
  else
    report_bad_boxes (self, instance, image);
  g_clear_pointer (&self->image, hs_image_unref);
  self->image = image != NULL ? hs_image_ref (image) : NULL;
  /* what a live map computed from it is kept with (hs-live-attend) */
  self->image_stamp = NULL;
  if (image != NULL && stamp != NULL)
    {
      self->image_stamp_buf = *stamp;
      self->image_stamp = &self->image_stamp_buf;
    }
  hs_startup_trace ("image-decoded");
  hs_canvas_set_image (HS_CANVAS (self->canvas), self->image);
  hs_overlay_panel_set_image (HS_OVERLAY_PANEL (self->overlay_panel), self->image);
  _hs_window_update_spinner (self);
  if (update)
    _hs_window_update_view_full (self, TRUE);
  _hs_window_live_schedule (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
  if (image != NULL)
    _hs_window_prefetch_neighbours (self);
}

static void
image_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  HsWindow *self = HS_WINDOW (object);
  GTask *task = G_TASK (result);
  ImageJob *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = g_task_propagate_pointer (task, &error);

  /* Superseded by another instance, or the window is going away. */
  if (g_task_get_cancellable (task) != self->image_cancellable)
    return;
  g_clear_object (&self->image_cancellable);
  if (image != NULL && job->dataset == self->dataset)
    _hs_window_cache_put_image (self, job->instance, image, job->stamp);
  _hs_window_mask_job_finish (self, job->masks, job->dataset);
  image_ready (self, job->instance, image, job->stamp, error, TRUE);
}

/* Decodes the radiograph off the main thread (full-resolution 16-bit PNGs
 * take a while); the view keeps the previous instance until it arrives. */
static void
load_image_async (HsWindow   *self,
                  HsInstance *instance)
{
  g_autoptr(GTask) task = NULL;
  ImageJob *job = g_new0 (ImageJob, 1);
  gboolean was_loading = self->image_cancellable != NULL;

  g_cancellable_cancel (self->image_cancellable);
  g_clear_object (&self->image_cancellable);
  self->image_cancellable = g_cancellable_new ();

  job->dataset = hs_dataset_ref (self->dataset);
  job->instance = instance;
  job->masks = _hs_window_mask_job_new (self, instance);
  task = g_task_new (self, self->image_cancellable, image_done, NULL);
  g_task_set_source_tag (task, load_image_async);
  g_task_set_task_data (task, job, (GDestroyNotify) image_job_free);
  g_task_run_in_thread (task, image_thread);
  _hs_window_update_spinner (self);
  if (!was_loading)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

void
_hs_window_show_instance (HsWindow *self,
                          guint     index)
{
  HsInstance *instance;
  const char *matched;
  g_autoptr(HsImage) cached = NULL;
  HsFileStamp stamp;

  instance = self->dataset != NULL ? hs_dataset_get_instance (self->dataset, index) : NULL;
  if (instance == NULL)
    return;

  self->instance = instance;
  self->shown_ref = NULL;
  g_clear_pointer (&self->map, hs_attention_map_unref);
  /* Decoded before (or ahead, as a neighbour): no worker, no wait. */
  cached = _hs_window_cache_get_image (self, instance, &stamp);
  if (cached == NULL)
    load_image_async (self, instance);
  else if (self->image_cancellable != NULL)
    {
      g_cancellable_cancel (self->image_cancellable);
      g_clear_object (&self->image_cancellable);
    }

  gtk_label_set_text (self->subtitle_label, instance->id);
  gtk_widget_set_visible (GTK_WIDGET (self->subtitle_label), TRUE);
  if (self->settings != NULL && !self->restoring)
    g_settings_set_string (self->settings, "last-instance", instance->id);

  /* Emits map-changed, which loads the map; the canvas follows when the
   * image is there.  With a filter or search on, the sentence that passed
   * it is opened rather than the first. */
  if (cached != NULL)
    image_ready (self, instance, cached, &stamp, NULL, FALSE);
  hs_prompt_panel_set_instance (self->prompt_panel, self->dataset, instance);
  matched = hs_instance_browser_get_matched_sentence (self->browser, index);
  if (matched != NULL)
    hs_prompt_panel_select_sentence (self->prompt_panel, matched);
  /* The prompt panel's map-changed updated the view unless the map stayed
   * (none before, none now): the new image needs the canvas's full update. */
  if (cached != NULL && self->view_instance != instance)
    _hs_window_update_view_full (self, TRUE);
  _hs_window_actions_update (self);
}

static void
on_instance_selected (HsInstanceBrowser *browser,
                      guint              index,
                      HsWindow          *self)
{
  if (!self->restoring)
    _hs_window_show_instance (self, index);
}

/* The Perturb tab perturbs a report sentence: once the prompt is no longer
 * the selected sentence's text (typed, swapped), it drops that sentence's
 * deltas instead of showing them beside another prompt's map. */
static void
update_perturb (HsWindow *self)
{
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);

  if (sentence != NULL && g_strcmp0 (sentence->text, hs_prompt_panel_get_prompt (self->prompt_panel)) != 0)
    sentence = NULL;
  /* With a live model both prompts are attended live; else the
   * perturbed map is looked up among the precomputed ones. */
  hs_perturb_panel_set_live (HS_PERTURB_PANEL (self->perturb_panel), self->live,
                             self->live_model, self->image, self->image_stamp);
  hs_perturb_panel_set_input (HS_PERTURB_PANEL (self->perturb_panel), self->dataset,
                              self->instance, sentence,
                              self->live_model != NULL ? self->live_model : self->model);
}

/* The Metrics tab scores the map with every metric and its null baselines
 * (a worker thread, ~0.1–0.2 s of CPU for a 1024² image), the Perturb tab
 * scores the perturbed prompt's map too (on the main thread): work nobody
 * sees while another tab is shown, and that took a held Alt+Down most of
 * both cores.  So they are given the view only while their tab is shown,
 * and catch up when it is. */
static void
feed_side_panels (HsWindow *self)
{
  const char *page;

  if (self->metrics_panel == NULL || self->perturb_panel == NULL)   /* disposed */
    return;
  page = gtk_stack_get_visible_child_name (self->side_stack);
  if (self->metrics_stale && g_strcmp0 (page, "metrics") == 0)
    {
      self->metrics_stale = FALSE;
      hs_metrics_panel_set_input (HS_METRICS_PANEL (self->metrics_panel), self->image, self->map,
                                  self->side_regions, self->side_masks);
      /* a live map (shown_ref NULL) has no tags */
      hs_metrics_panel_set_tags (HS_METRICS_PANEL (self->metrics_panel),
                                 self->map != NULL && self->shown_ref != NULL ? self->shown_ref->tags : NULL,
                                 self->map != NULL && self->shown_ref != NULL ? self->shown_ref->n_tags : 0);
    }
  if (self->perturb_stale && g_strcmp0 (page, "perturb") == 0)
    {
      self->perturb_stale = FALSE;
      update_perturb (self);
    }
}

static void
on_side_page (GObject    *stack,
              GParamSpec *pspec,
              HsWindow   *self)
{
  feed_side_panels (self);
}

static void
on_map_changed (HsPromptPanel *panel,
                HsWindow      *self)
{
  /* A key typed with a live model: the map on screen stays until the live
   * map of the new text arrives (computed off the main thread after the
   * debounce, newest request wins; live_show then updates every panel), so
   * the key costs its echo and this — not the metrics, caption and layers
   * of a map that has not changed. */
  if (self->live_model != NULL && self->dataset != NULL && self->instance != NULL &&
      hs_prompt_panel_get_map_ref (panel) == NULL && self->shown_ref == NULL &&
      self->image != NULL && self->image_cancellable == NULL)
    {
      self->perturb_stale = TRUE;
      feed_side_panels (self);
      _hs_window_live_schedule (self);
      _hs_window_actions_update (self);
      return;
    }
  _hs_window_update_view_full (self, FALSE);
  _hs_window_live_schedule (self);
}

static void
on_token_selected (HsPromptPanel *panel,
                   int            token,
                   HsWindow      *self)
{
  hs_canvas_set_token (HS_CANVAS (self->canvas), token);
}

static void
update_status (HsWindow *self)
{
  g_autoptr(GString) text = g_string_new (NULL);

  const char *hover = hs_canvas_get_hover_text (HS_CANVAS (self->canvas));
  if (hover != NULL && *hover != '\0')
    {
      gtk_label_set_text (self->status_label, hover);
      return;
    }
  if (self->image != NULL)
    g_string_append_printf (text, _("%u × %u px"), hs_image_get_width (self->image),
                            hs_image_get_height (self->image));
  if (self->map != NULL)
    {
      if (text->len > 0)
        g_string_append (text, " · ");
      g_string_append_printf (text, _("map %u × %u"), hs_attention_map_get_width (self->map),
                              hs_attention_map_get_height (self->map));
      if (hs_attention_map_get_n_tokens (self->map) > 0)
        g_string_append_printf (text, ngettext (", %u token", ", %u tokens",
                                                hs_attention_map_get_n_tokens (self->map)),
                                hs_attention_map_get_n_tokens (self->map));
      if (self->shown_ref != NULL)
        g_string_append_printf (text, " · %s", self->shown_ref->file);
    }
  gtk_label_set_text (self->status_label, text->str);
}

void
_hs_window_get_caption (HsWindow  *self,
                        HsCaption *caption)
{
  *caption = (HsCaption) { 0 };
  caption->prompt = hs_prompt_panel_get_prompt (self->prompt_panel);
  caption->model = self->model;
  caption->instance = self->instance != NULL ? self->instance->id : NULL;
  caption->phantom_model_on_real_image =
    self->instance != NULL &&
    hs_model_is_phantom_trained_on_real (self->live_model != NULL ? self->live_model : self->model,
                                         self->instance);
}

void
_hs_window_update_view_full (HsWindow *self,
                             gboolean  force)
{
  HsMapRef *ref = hs_prompt_panel_get_map_ref (self->prompt_panel);
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);
  gboolean map_changed = FALSE;

  if (self->dataset == NULL || self->instance == NULL)
    return;

  if (ref != self->shown_ref || (ref != NULL && self->map == NULL))
    {
      g_autoptr(GError) error = NULL;

      g_clear_pointer (&self->map, hs_attention_map_unref);
      self->shown_ref = ref;
      if (ref != NULL)
        {
          self->map = _hs_window_load_map (self, ref, &error);
          if (self->map == NULL)
            hs_error_bar_add_error (self->error_bar, ref->file, error);
        }
      map_changed = TRUE;
      hs_prompt_panel_set_map (self->prompt_panel, self->map);
    }

  /* While the image loads the canvas keeps the previous instance whole;
   * image_done finishes the update. */
  if (self->image_cancellable != NULL)
    {
      update_status (self);
      _hs_window_actions_update (self);
      return;
    }
  map_changed |= force || self->view_instance != self->instance;
  self->view_instance = self->instance;

  {
    g_autoptr(GPtrArray) regions = NULL;
    g_autoptr(GPtrArray) masks = NULL;
    g_autoptr(GError) error = NULL;
    HsCaption caption = { 0 };

    if (sentence != NULL &&
        !_hs_window_collect_targets (self, sentence, &regions, &masks, &error))
      hs_error_bar_add_error (self->error_bar, self->instance->id, error);

    /* Box-only targets: no mask array at all. */
    if (masks != NULL)
      {
        gboolean any = FALSE;
        for (guint i = 0; i < masks->len && !any; i++)
          any = g_ptr_array_index (masks, i) != NULL;
        if (!any)
          g_clear_pointer (&masks, g_ptr_array_unref);
      }

    if (map_changed)
      hs_canvas_set_map (HS_CANVAS (self->canvas), self->map);
    /* the bar names what the values are; a live model's are attention weights */
    hs_canvas_set_quantity (HS_CANVAS (self->canvas),
                            self->shown_ref != NULL && self->map != NULL ? self->shown_ref->quantity : NULL);
    hs_startup_trace_instance_ready (self->canvas, self->image != NULL,
                                     self->map != NULL || self->shown_ref == NULL);
    hs_instance_browser_load_after_next_frame (self->browser);
    _hs_window_layers_show (self);
    /* Fields, not a formatted string: drawn and exported as
     * heatscope-cli render draws the same view. */
    _hs_window_get_caption (self, &caption);
    hs_canvas_set_caption_fields (HS_CANVAS (self->canvas), &caption);
    g_clear_pointer (&self->side_regions, g_ptr_array_unref);
    g_clear_pointer (&self->side_masks, g_ptr_array_unref);
    self->side_regions = g_steal_pointer (&regions);
    self->side_masks = g_steal_pointer (&masks);
    self->metrics_stale = self->perturb_stale = TRUE;
    feed_side_panels (self);
  }
  /* counted for tests: a typed key with a live model must not come here */
  _hs_window_count (self, "hs-view-updates", 1);

  update_status (self);
  _hs_window_actions_update (self);
}

/* ---- object ------------------------------------------------------------- */

static void
on_hover_changed (GObject    *object,
                  GParamSpec *pspec,
                  HsWindow   *self)
{
  update_status (self);
}

/* The threshold slider reads in the colour bar's units. */
static void
on_map_range_changed (HsCanvas *canvas,
                      HsWindow *self)
{
  double lo = 0, hi = 1;
  gboolean valid = hs_canvas_get_map_range (canvas, &lo, &hi);

  if (self->overlay_panel != NULL)
    hs_overlay_panel_set_map_range (HS_OVERLAY_PANEL (self->overlay_panel), valid, lo, hi);
}

static void
build_panels (HsWindow *self)
{
  self->view_state = G_OBJECT (hs_view_state_new ());
  if (self->settings != NULL)
    hs_view_state_bind_settings (HS_VIEW_STATE (self->view_state), self->settings);

  self->canvas = hs_canvas_new ();
  hs_canvas_set_view_state (HS_CANVAS (self->canvas), HS_VIEW_STATE (self->view_state));
  g_signal_connect_object (self->canvas, "notify::hover-text", G_CALLBACK (on_hover_changed), self, 0);
  g_signal_connect_object (self->canvas, "map-range-changed", G_CALLBACK (on_map_range_changed), self, 0);
  gtk_widget_set_hexpand (self->canvas, TRUE);
  gtk_widget_set_vexpand (self->canvas, TRUE);
  gtk_box_append (self->canvas_slot, self->canvas);
  /* the error bar lies over the top of the view (the canvas does not
   * move): the colour bar and its title go below it */
  g_object_bind_property (self->error_bar, "shown-height", self->canvas, "hud-top",
                          G_BINDING_SYNC_CREATE);

  self->overlay_panel = hs_overlay_panel_new ();
  hs_overlay_panel_set_view_state (HS_OVERLAY_PANEL (self->overlay_panel), HS_VIEW_STATE (self->view_state));
  gtk_box_append (self->overlay_slot, self->overlay_panel);

  self->metrics_panel = hs_metrics_panel_new ();
  if (self->settings != NULL)
    g_settings_bind (self->settings, "metrics-protocol", self->metrics_panel, "protocol",
                     G_SETTINGS_BIND_DEFAULT);
  gtk_box_append (self->metrics_slot, self->metrics_panel);

  self->perturb_panel = hs_perturb_panel_new ();
  gtk_widget_set_vexpand (self->perturb_panel, TRUE);
  gtk_box_append (self->perturb_slot, self->perturb_panel);

  _hs_window_layers_init (self);
}

static gboolean
hs_window_close_request (GtkWindow *window)
{
  HsWindow *self = HS_WINDOW (window);

  if (self->settings != NULL)
    {
      int width, height;

      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_boolean (self->settings, "main-window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window) && width >= 320 && height >= 240)
        {
          g_settings_set_int (self->settings, "main-window-width", width);
          g_settings_set_int (self->settings, "main-window-height", height);
        }
    }
  return GTK_WINDOW_CLASS (hs_window_parent_class)->close_request (window);
}

static void
hs_window_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_LOADING:
      g_value_set_boolean (value, hs_window_get_loading (HS_WINDOW (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_window_dispose (GObject *object)
{
  HsWindow *self = HS_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_cancellable_cancel (self->image_cancellable);
  g_clear_object (&self->image_cancellable);
  _hs_window_cache_dispose (self);
  _hs_window_live_cancel (self);
  _hs_window_attend_dispose (self);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);

  _hs_window_deck_clear (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), HS_TYPE_WINDOW);
  self->canvas = NULL;
  self->overlay_panel = NULL;
  self->metrics_panel = NULL;
  self->perturb_panel = NULL;
  _hs_window_layers_clear (self);
  self->instance = NULL;
  self->shown_ref = NULL;
  g_clear_object (&self->view_state);
  g_clear_object (&self->settings);
  g_clear_object (&self->models);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  g_clear_pointer (&self->image, hs_image_unref);
  g_clear_pointer (&self->side_regions, g_ptr_array_unref);
  g_clear_pointer (&self->side_masks, g_ptr_array_unref);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  G_OBJECT_CLASS (hs_window_parent_class)->dispose (object);
}

static void
hs_window_finalize (GObject *object)
{
  HsWindow *self = HS_WINDOW (object);

  g_free (self->dataset_path);
  g_free (self->pending_instance);
  g_free (self->model);
  g_free (self->live_model);
  g_free (self->live_key);
  g_clear_pointer (&self->live_names, g_ptr_array_unref);
  g_clear_pointer (&self->live_saliency, g_ptr_array_unref);
  g_clear_object (&self->live_request);
  g_clear_pointer (&self->live_costs, g_hash_table_unref);
  /* Requests in flight hold their own reference to it. */
  g_clear_object (&self->live);
  G_OBJECT_CLASS (hs_window_parent_class)->finalize (object);
}

static void
hs_window_class_init (HsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = hs_window_dispose;
  object_class->finalize = hs_window_finalize;
  object_class->get_property = hs_window_get_property;
  window_class->close_request = hs_window_close_request;

  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (HS_TYPE_ERROR_BAR);
  g_type_ensure (HS_TYPE_INSTANCE_BROWSER);
  g_type_ensure (HS_TYPE_PROMPT_PANEL);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heatscope/Heatscope/ui/hs-window.ui");
  gtk_widget_class_bind_template_child (widget_class, HsWindow, error_bar);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, browser);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, prompt_panel);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, model_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, attend_revealer);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, attend_label);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, attend_problems);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, attend_progress);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, attend_cancel_button);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, attend_close_button);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, canvas_slot);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, overlay_slot);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, metrics_slot);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, perturb_slot);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, layers_slot);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, header_spinner);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, empty_title);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, side_stack);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, deck_revealer);
  gtk_widget_class_bind_template_callback (widget_class, on_instance_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_map_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_token_selected);
}

static void
hs_window_init (HsWindow *self)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (GTK_WIDGET (self)));

  /* GtkApplication adds the app's icons; a window without one (tests) too. */
  if (!gtk_icon_theme_has_icon (theme, HS_APPLICATION_ID))
    gtk_icon_theme_add_resource_path (theme, "/org/heatscope/Heatscope/icons");

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = hs_settings_new ();
  _hs_window_cache_init (self);
  _hs_window_actions_init (self);
  _hs_window_models_init (self);

  build_panels (self);
  _hs_window_actions_init_view (self);
  g_signal_connect_object (self->browser, "notify::busy", G_CALLBACK (on_browser_busy), self, 0);
  _hs_window_dataset_init (self);
  _hs_window_attend_init (self);
  _hs_window_deck_init (self);
  /* Tests blank this area in golden images (it belongs to other units). */
  g_object_set_data (G_OBJECT (self), "hs-side-stack", self->side_stack);
  g_signal_connect_object (self->side_stack, "notify::visible-child", G_CALLBACK (on_side_page), self, 0);

  if (self->settings != NULL)
    {
      gtk_window_set_default_size (GTK_WINDOW (self),
                                   g_settings_get_int (self->settings, "main-window-width"),
                                   g_settings_get_int (self->settings, "main-window-height"));
      if (g_settings_get_boolean (self->settings, "main-window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
      hs_instance_browser_bind_settings (self->browser, self->settings);
    }

  _hs_window_actions_update (self);
  hs_startup_trace ("window-created");
  hs_startup_trace_after_paint (GTK_WIDGET (self), "window-painted");
}

HsWindow *
hs_window_new (HsApplication *app)
{
  return g_object_new (HS_TYPE_WINDOW, "application", app, NULL);
}

gboolean
hs_window_get_loading (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  return self->loading || self->image_cancellable != NULL ||
         (self->browser != NULL && hs_instance_browser_get_loading (self->browser));
}

HsDataset *
hs_window_get_dataset (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->dataset;
}

HsInstance *
hs_window_get_instance (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->instance;
}

gboolean
hs_window_select_instance (HsWindow   *self,
                           const char *id)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  return hs_instance_browser_select_id (self->browser, id);
}

gboolean
hs_window_select_model (HsWindow   *self,
                        const char *model)
{
  guint n;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->models));
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (gtk_string_list_get_string (self->models, i), model) == 0)
      {
        gtk_drop_down_set_selected (self->model_dropdown, i);
        return TRUE;
      }
  return FALSE;
}

const char *
hs_window_get_model (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->model;
}

GtkWidget *
hs_window_get_model_selector (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return GTK_WIDGET (self->model_dropdown);
}

char *
hs_window_dup_model_label (HsWindow *self, guint position)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return _hs_window_model_label (self, position);
}

HsAttentionMap *
hs_window_get_map (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->map;
}

gboolean
hs_window_export_to_file (HsWindow    *self,
                          const char  *path,
                          GError     **error)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  return hs_canvas_export (HS_CANVAS (self->canvas), path, error);
}

HsErrorBar *
hs_window_get_error_bar (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->error_bar;
}

HsInstanceBrowser *
hs_window_get_browser (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->browser;
}

HsPromptPanel *
hs_window_get_prompt_panel (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->prompt_panel;
}

GtkWidget *
hs_window_get_canvas (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->canvas;
}

gboolean
hs_window_get_live_busy (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  return _hs_window_live_busy (self);
}

const char *
hs_window_get_live_model (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->live_model;
}

HsLiveAttend *
hs_window_get_live_attend (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->live;
}

void
hs_window_set_live_delay (HsWindow *self,
                          guint     delay_ms)
{
  g_return_if_fail (HS_IS_WINDOW (self));
  self->live_delay_ms = delay_ms;
}

double
hs_window_get_live_latency (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), 0.0);
  return self->live_latency_ms;
}
