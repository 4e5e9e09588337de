/* hs-window.c — the main window */
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "hs-window.h"
#include "hs-annotation-window.h"
#include "hs-import-dialog.h"
#include "hs-perturb-panel.h"
#include "hs-live-attend.h"
#include "hs-startup-trace.h"

#include <heatscope/hs-model.h>
#include <heatscope/hs-backend-exec.h>

# include "hs-view-state.h"
# include "hs-canvas.h"
# include "hs-compare-view.h"
# include "hs-overlay-panel.h"
# include "hs-metrics-panel.h"

struct _HsWindow
{
  GtkApplicationWindow  parent_instance;

  /* template */
  HsErrorBar           *error_bar;
  HsInstanceBrowser    *browser;
  HsPromptPanel        *prompt_panel;
  GtkDropDown          *model_dropdown;
  GtkLabel             *title_label;
  GtkLabel             *subtitle_label;
  GtkLabel             *status_label;
  GtkStack             *view_stack;
  GtkBox               *canvas_slot;
  GtkBox               *overlay_slot;
  GtkBox               *metrics_slot;
  GtkBox               *perturb_slot;
  GtkWidget            *perturb_panel;
  GtkSpinner           *spinner;
  GtkSpinner           *header_spinner;
  GtkLabel             *empty_title;
  GtkStack             *side_stack;

  GtkWidget            *canvas;          /* HsCanvas or a placeholder */
  GtkWidget            *overlay_panel;
  GtkWidget            *metrics_panel;
  GObject              *view_state;
  GSettings            *settings;
  GtkStringList        *models;

  HsDataset            *dataset;
  char                 *dataset_path;
  char                 *pending_instance;  /* remembered id not read yet (large datasets) */
  HsInstance           *instance;        /* borrowed from dataset */
  HsImage              *image;
  HsAttentionMap       *map;
  HsMapRef             *shown_ref;       /* borrowed from instance */
  char                 *model;

  GCancellable         *cancellable;       /* dataset loading */
  GCancellable         *image_cancellable; /* non-NULL while the image loads */
  GtkFileChooserNative *chooser;
  gboolean              loading;
  gboolean              restoring;
  gboolean              filling_models;

  /* Live attention (the built-in models): see "live models" below. */
  HsLiveAttend         *live;              /* models, backend, LRU: shared with compare/perturb */
  GPtrArray            *live_names;        /* built-in names offered, after the precomputed ones */
  guint                 n_precomputed;     /* dataset models at the head of `models` */
  gboolean              live_checked;      /* weights tried (errors reported once) */
  char                 *live_model;        /* built-in name while a live model is chosen */
  GCancellable         *live_cancellable;  /* the newest request in flight */
  guint                 live_timeout;      /* debounce */
  guint                 live_delay_ms;
  guint64               live_serial;
  char                 *live_key;          /* (model, instance, prompt) of the map shown */
  gint64                live_changed_us;   /* when the prompt last changed, for latency */
  double                live_latency_ms;
  double                live_compute_ms;
};

enum {
  PROP_0,
  PROP_LOADING,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (HsWindow, hs_window, GTK_TYPE_APPLICATION_WINDOW)

static void update_view (HsWindow *self);
static void update_spinner (HsWindow *self);
static gboolean live_busy (HsWindow *self);

/* Progress of long work (loading, finding subsets) in the header bar. */
static void
update_spinner (HsWindow *self)
{
  gboolean busy = self->loading || self->image_cancellable != NULL || live_busy (self) ||
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
  update_spinner (self);
}

static void
set_loading (HsWindow *self,
             gboolean  loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), loading);
  gtk_spinner_set_spinning (self->spinner, loading);
  update_spinner (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
update_actions (HsWindow *self)
{
  gboolean have_instance = self->instance != NULL;
  const char *names[] = { "swap-sides", "reset-prompt", "next-sentence", "previous-sentence",
                          "next-instance", "previous-instance", "search", "compare" };
  GAction *action;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      action = g_action_map_lookup_action (G_ACTION_MAP (self), names[i]);
      g_simple_action_set_enabled (G_SIMPLE_ACTION (action), have_instance || g_str_equal (names[i], "search"));
    }
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "reload");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->dataset_path != NULL && !self->loading);
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "export");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->image != NULL);
}

/* ---- live models ------------------------------------------------------- */

/* With a live model chosen, every edit of the prompt schedules a request
 * (debounced); a request cancels the one before it, runs encode (cached per
 * image by HsModelCache) and attend off the main thread (HsLiveAttend, shared
 * with the compare view and the Perturb tab), and its result is shown only
 * if no newer request was made since.  Results are kept in HsLiveAttend's
 * small LRU keyed by (model, instance, prompt), so going back to a prompt is
 * immediate. */

#define LIVE_DEFAULT_DELAY_MS 120
/* The external backend's entry in live_names. */
#define LIVE_EXEC_NAME        HS_LIVE_EXEC_NAME

static void update_view_full (HsWindow *self, gboolean force);
static void update_spinner (HsWindow *self);

static gboolean
live_busy (HsWindow *self)
{
  return self->live_timeout != 0 || self->live_cancellable != NULL;
}

static char *
live_make_key (HsWindow   *self,
               const char *prompt)
{
  return hs_live_attend_make_key (self->dataset, self->instance, self->live_model, prompt);
}

static void
live_cancel (HsWindow *self)
{
  g_clear_handle_id (&self->live_timeout, g_source_remove);
  g_cancellable_cancel (self->live_cancellable);
  g_clear_object (&self->live_cancellable);
  self->live_serial++;
}

static void
live_show (HsWindow       *self,
           const char     *key,
           HsAttentionMap *map)
{
  if (self->live_changed_us != 0)
    {
      self->live_latency_ms = (g_get_monotonic_time () - self->live_changed_us) / 1000.0;
      self->live_changed_us = 0;
      g_debug ("live: prompt change → map shown in %.1f ms (compute %.1f ms)",
               self->live_latency_ms, self->live_compute_ms);
    }
  g_free (self->live_key);
  self->live_key = g_strdup (key);
  if (map != NULL)
    hs_attention_map_ref (map);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  self->map = map;
  self->shown_ref = NULL;
  hs_prompt_panel_set_map (self->prompt_panel, self->map);
  update_view_full (self, TRUE);
}

typedef struct {
  HsWindow     *window;  /* kept alive until the request ends */
  char         *model;   /* what errors are reported under */
  char         *key;
  guint64       serial;
  gint64        started_us;
} LiveJob;

static void
live_job_free (LiveJob *job)
{
  g_object_unref (job->window);
  g_free (job->model);
  g_free (job->key);
  g_free (job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LiveJob, live_job_free)

static void
live_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(LiveJob) job = user_data;
  HsWindow *self = job->window;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = hs_live_attend_finish (HS_LIVE_ATTEND (object), result, &error);

  /* A finished older request fed the cache (HsLiveAttend), but never the view. */
  if (job->serial != self->live_serial || self->live_model == NULL)
    {
      /* Counted for tests: results that arrived after a newer request. */
      if (map != NULL)
        g_object_set_data (G_OBJECT (self), "hs-live-dropped",
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (self),
                                                                                  "hs-live-dropped")) + 1));
      return;
    }
  g_clear_object (&self->live_cancellable);
  self->live_compute_ms = (g_get_monotonic_time () - job->started_us) / 1000.0;

  if (map == NULL)
    {
      if (g_error_matches (error, HS_MODEL_ERROR, HS_MODEL_ERROR_EMPTY_PROMPT))
        hs_prompt_panel_set_live_status (self->prompt_panel,
                                         _("The prompt has no words the model can read"));
      else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          hs_prompt_panel_set_live_status (self->prompt_panel, error->message);
          hs_error_bar_add_error (self->error_bar, job->model, error);
        }
      live_show (self, job->key, NULL);
    }
  else
    live_show (self, job->key, map);
  update_spinner (self);
}

static void
live_start (HsWindow *self)
{
  LiveJob *job;
  const char *prompt = hs_prompt_panel_get_prompt (self->prompt_panel);

  if (self->live_model == NULL || self->image == NULL || self->instance == NULL)
    return;
  live_cancel (self);
  if (prompt == NULL || *prompt == '\0')
    {
      g_autofree char *key = live_make_key (self, prompt);
      live_show (self, key, NULL);
      update_spinner (self);
      return;
    }
  self->live_cancellable = g_cancellable_new ();

  job = g_new0 (LiveJob, 1);
  job->window = g_object_ref (self);
  job->model = g_strdup (hs_live_attend_get_source_name (self->live, self->live_model));
  job->key = live_make_key (self, prompt);
  job->serial = self->live_serial;
  job->started_us = g_get_monotonic_time ();
  g_object_set_data (G_OBJECT (self), "hs-live-started",
                     GUINT_TO_POINTER (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (self),
                                                                            "hs-live-started")) + 1));
  hs_live_attend_async (self->live, self->dataset, self->instance, self->image, self->live_model,
                        prompt, self->live_cancellable, live_done, job);
  update_spinner (self);
}

static gboolean
live_timeout_cb (gpointer data)
{
  HsWindow *self = data;

  self->live_timeout = 0;
  live_start (self);
  return G_SOURCE_REMOVE;
}

/* The prompt, sentence, instance or image changed: bring the live map up to
 * date (immediately from the cache, else after the debounce delay). */
static void
live_schedule (HsWindow *self)
{
  const char *prompt = hs_prompt_panel_get_prompt (self->prompt_panel);
  g_autofree char *key = NULL;
  g_autoptr(HsAttentionMap) cached = NULL;

  if (self->live_model == NULL || self->instance == NULL)
    return;
  key = live_make_key (self, prompt);
  if (g_strcmp0 (key, self->live_key) == 0 && self->map != NULL && !live_busy (self) &&
      self->image_cancellable == NULL)
    return;
  live_cancel (self);
  self->live_changed_us = g_get_monotonic_time ();

  cached = hs_live_attend_lookup (self->live, key);
  if (cached != NULL && self->image_cancellable == NULL)
    {
      self->live_compute_ms = 0.0;
      live_show (self, key, cached);
      update_spinner (self);
      return;
    }
  /* image_done calls again once the radiograph is decoded. */
  if (self->image_cancellable != NULL || self->image == NULL)
    {
      update_spinner (self);
      return;
    }
  /* Even without a delay: replacing the text deletes it first, and the
   * empty prompt in between must not blank the view. */
  self->live_timeout = g_timeout_add (self->live_delay_ms, live_timeout_cb, self);
  update_spinner (self);
}

/* The external backend command: --backend-exec or the preference (never a
 * dataset file).  Nothing runs until the entry is chosen. */
static void
live_check_exec (HsWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autofree char *command = NULL;

  if (app != NULL && HS_IS_APPLICATION (app))
    command = g_strdup (hs_application_get_backend_command (HS_APPLICATION (app)));
  else if (self->settings != NULL)
    command = g_settings_get_string (self->settings, "backend-command");
  if (command == NULL || *g_strstrip (command) == '\0')
    return;
  hs_live_attend_set_exec_command (self->live, command);
  g_ptr_array_add (self->live_names, g_strdup (LIVE_EXEC_NAME));
}

/* The built-in models whose weights load, once per window. */
static void
live_check_models (HsWindow *self)
{
  const char * const *names = hs_model_list_builtin ();
  gint64 start = g_get_monotonic_time ();

  if (self->live_checked)
    return;
  self->live_checked = TRUE;
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HsModel) model = hs_model_cache_get_model (hs_live_attend_get_model_cache (self->live),
                                                                  names[i], &error);

      if (model != NULL)
        g_ptr_array_add (self->live_names, g_strdup (names[i]));
      else
        {
          g_autofree char *message =
            g_strdup_printf (_("The live model “%s” is not available: %s"), names[i], error->message);
          hs_error_bar_add (self->error_bar, names[i], message);
        }
    }
  live_check_exec (self);
  g_debug ("live: %u built-in models loaded in %.1f ms", self->live_names->len,
           (g_get_monotonic_time () - start) / 1000.0);
}

static char *
live_display_name (const char *name)
{
  return hs_live_attend_display_name (name);
}

/* ---- models ------------------------------------------------------------ */

/* `live`: a built-in model name, or NULL for the precomputed maps. */
static void
live_select (HsWindow   *self,
             const char *live)
{
  if (g_strcmp0 (live, self->live_model) == 0)
    return;
  live_cancel (self);
  g_free (self->live_model);
  self->live_model = g_strdup (live);
  g_clear_pointer (&self->live_key, g_free);
  /* Neither kind of map stands for the other. */
  g_clear_pointer (&self->map, hs_attention_map_unref);
  self->shown_ref = NULL;
  hs_prompt_panel_set_map (self->prompt_panel, NULL);
  hs_prompt_panel_set_live (self->prompt_panel, live != NULL);
  /* The canvas and metrics drop the old map even when no new one follows. */
  update_view_full (self, TRUE);
  live_schedule (self);
  update_spinner (self);
}

static void
on_model_selected (GObject    *object,
                   GParamSpec *pspec,
                   HsWindow   *self)
{
  GtkStringObject *item = gtk_drop_down_get_selected_item (self->model_dropdown);
  const char *model = item != NULL ? gtk_string_object_get_string (item) : NULL;

  guint position = gtk_drop_down_get_selected (self->model_dropdown);
  const char *live = NULL;

  if (self->filling_models || g_strcmp0 (model, self->model) == 0)
    return;
  if (position != GTK_INVALID_LIST_POSITION && position >= self->n_precomputed &&
      position - self->n_precomputed < self->live_names->len)
    live = g_ptr_array_index (self->live_names, position - self->n_precomputed);
  g_free (self->model);
  self->model = g_strdup (model);
  if (self->settings != NULL && model != NULL)
    g_settings_set_string (self->settings, "last-model", model);
  live_select (self, live);
  hs_prompt_panel_set_model (self->prompt_panel, live != NULL ? NULL : model);
  hs_instance_browser_set_model (self->browser, live != NULL ? live : model);
}

static void
fill_models (HsWindow *self)
{
  g_auto(GStrv) precomputed = self->dataset != NULL ? hs_dataset_list_models (self->dataset) : NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) models = NULL;
  g_autofree char *wanted = NULL;
  const char *live = NULL;
  guint n;
  guint selected = 0;

  live_check_models (self);
  self->n_precomputed = precomputed != NULL ? g_strv_length (precomputed) : 0;
  if (precomputed != NULL)
    g_strv_builder_addv (builder, (const char **) precomputed);
  for (guint i = 0; i < self->live_names->len; i++)
    {
      g_autofree char *label = live_display_name (g_ptr_array_index (self->live_names, i));
      g_strv_builder_add (builder, label);
    }
  models = g_strv_builder_end (builder);
  n = g_strv_length (models);

  if (self->settings != NULL)
    wanted = g_settings_get_string (self->settings, "last-model");
  if (wanted == NULL || *wanted == '\0' || models == NULL || !g_strv_contains ((const char * const *) models, wanted))
    {
      g_free (wanted);
      /* "grounded" is the map people want to see first; else the first listed */
      if (models != NULL && g_strv_contains ((const char * const *) models, "grounded"))
        wanted = g_strdup ("grounded");
      else
        wanted = n > 0 ? g_strdup (models[0]) : NULL;
    }
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (models[i], wanted) == 0)
      selected = i;

  self->filling_models = TRUE;
  gtk_string_list_splice (self->models, 0, g_list_model_get_n_items (G_LIST_MODEL (self->models)),
                          (const char * const *) models);
  gtk_drop_down_set_selected (self->model_dropdown, n > 0 ? selected : GTK_INVALID_LIST_POSITION);
  self->filling_models = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->model_dropdown), n > 1);

  g_free (self->model);
  self->model = g_steal_pointer (&wanted);
  if (n > 0 && selected >= self->n_precomputed)
    live = g_ptr_array_index (self->live_names, selected - self->n_precomputed);
  live_select (self, live);
  hs_prompt_panel_set_model (self->prompt_panel, live != NULL ? NULL : self->model);
  hs_instance_browser_set_model (self->browser, live != NULL ? live : self->model);
}

/* ---- instance and view -------------------------------------------------- */

typedef struct {
  HsDataset  *dataset;
  HsInstance *instance;   /* borrowed from dataset */
} ImageJob;

static void
image_job_free (ImageJob *job)
{
  hs_dataset_unref (job->dataset);
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
  HsImage *image = hs_dataset_load_image (job->dataset, job->instance, &error);

  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, (GDestroyNotify) hs_image_unref);
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

  if (image == NULL)
    hs_error_bar_add_error (self->error_bar, job->instance->image, error);
  g_clear_pointer (&self->image, hs_image_unref);
  self->image = g_steal_pointer (&image);
  hs_startup_trace ("image-decoded");
  hs_canvas_set_image (HS_CANVAS (self->canvas), self->image);
  update_spinner (self);
  update_view_full (self, TRUE);
  live_schedule (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
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
  task = g_task_new (self, self->image_cancellable, image_done, NULL);
  g_task_set_source_tag (task, load_image_async);
  g_task_set_task_data (task, job, (GDestroyNotify) image_job_free);
  g_task_run_in_thread (task, image_thread);
  update_spinner (self);
  if (!was_loading)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
show_instance (HsWindow *self,
               guint     index)
{
  HsInstance *instance;

  instance = self->dataset != NULL ? hs_dataset_get_instance (self->dataset, index) : NULL;
  if (instance == NULL)
    return;

  self->instance = instance;
  self->shown_ref = NULL;
  g_clear_pointer (&self->map, hs_attention_map_unref);
  load_image_async (self, instance);

  gtk_label_set_text (self->subtitle_label, instance->id);
  gtk_widget_set_visible (GTK_WIDGET (self->subtitle_label), TRUE);
  if (self->settings != NULL && !self->restoring)
    g_settings_set_string (self->settings, "last-instance", instance->id);

  /* Emits map-changed, which loads the map; the canvas follows when the
   * image is there. */
  hs_prompt_panel_set_instance (self->prompt_panel, self->dataset, instance);
  update_actions (self);
}

static void
on_instance_selected (HsInstanceBrowser *browser,
                      guint              index,
                      HsWindow          *self)
{
  if (!self->restoring)
    show_instance (self, index);
}

static void
on_map_changed (HsPromptPanel *panel,
                HsWindow      *self)
{
  update_view (self);
  live_schedule (self);
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

/* The masks array holds NULL for box-only regions; release it without
 * handing NULL to hs_image_unref. */
static void
release_masks (GPtrArray *masks)
{
  if (masks == NULL)
    return;
  g_ptr_array_set_free_func (masks, NULL);
  for (guint i = 0; i < masks->len; i++)
    if (g_ptr_array_index (masks, i) != NULL)
      hs_image_unref (g_ptr_array_index (masks, i));
  g_ptr_array_unref (masks);
}

static void
update_view_full (HsWindow *self,
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
          self->map = hs_dataset_load_map (self->dataset, ref, &error);
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
      update_actions (self);
      return;
    }
  map_changed |= force;

  {
    g_autoptr(GPtrArray) regions = NULL;
    GPtrArray *masks = NULL;
    g_autoptr(GError) error = NULL;
    g_autofree char *caption = NULL;

    if (sentence != NULL &&
        !hs_dataset_collect_targets (self->dataset, self->instance, sentence, &regions, &masks, &error))
      hs_error_bar_add_error (self->error_bar, self->instance->id, error);

    /* Box-only targets: no mask array at all. */
    if (masks != NULL)
      {
        gboolean any = FALSE;
        for (guint i = 0; i < masks->len && !any; i++)
          any = g_ptr_array_index (masks, i) != NULL;
        if (!any)
          g_clear_pointer (&masks, release_masks);
      }

    if (map_changed)
      hs_canvas_set_map (HS_CANVAS (self->canvas), self->map);
    hs_startup_trace_instance_ready (self->canvas, self->image != NULL,
                                     self->map != NULL || self->shown_ref == NULL);
    hs_instance_browser_load_after_next_frame (self->browser);
    hs_canvas_set_regions (HS_CANVAS (self->canvas), regions, masks);
    caption = g_strdup_printf ("%s · %s · “%s”", self->instance->id,
                               self->model != NULL ? self->model : _("no model"),
                               hs_prompt_panel_get_prompt (self->prompt_panel));
    hs_canvas_set_caption (HS_CANVAS (self->canvas), caption);
    hs_metrics_panel_set_input (HS_METRICS_PANEL (self->metrics_panel), self->image, self->map,
                                regions, masks);
    /* With a live model both prompts are attended live; else the
     * perturbed map is looked up among the precomputed ones. */
    hs_perturb_panel_set_live (HS_PERTURB_PANEL (self->perturb_panel), self->live,
                               self->live_model, self->image);
    hs_perturb_panel_set_input (HS_PERTURB_PANEL (self->perturb_panel), self->dataset,
                                self->instance, sentence,
                                self->live_model != NULL ? self->live_model : self->model);
    release_masks (masks);
  }

  update_status (self);
  update_actions (self);
}

static void
update_view (HsWindow *self)
{
  update_view_full (self, FALSE);
}

/* ---- datasets ----------------------------------------------------------- */

static void
set_dataset (HsWindow   *self,
             HsDataset  *dataset,
             const char *path)
{
  g_autofree char *last_dataset = NULL;
  g_autofree char *last_instance = NULL;
  guint selected;

  self->instance = NULL;
  self->shown_ref = NULL;
  g_cancellable_cancel (self->image_cancellable);
  g_clear_object (&self->image_cancellable);
  live_cancel (self);
  hs_live_attend_clear (self->live);
  g_clear_pointer (&self->live_key, g_free);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  g_clear_pointer (&self->image, hs_image_unref);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  self->dataset = hs_dataset_ref (dataset);
  g_free (self->dataset_path);
  self->dataset_path = g_strdup (path);

  if (self->settings != NULL)
    {
      last_dataset = g_settings_get_string (self->settings, "last-dataset");
      last_instance = g_settings_get_string (self->settings, "last-instance");
      g_settings_set_string (self->settings, "last-dataset", path);
    }

  gtk_label_set_text (self->title_label, hs_dataset_get_name (dataset) != NULL && *hs_dataset_get_name (dataset)
                                         ? hs_dataset_get_name (dataset) : _("Heatscope"));
  gtk_window_set_title (GTK_WINDOW (self), gtk_label_get_text (self->title_label));
  fill_models (self);
  hs_startup_trace ("models-filled");

  /* Fill the browser without showing its auto-selected first row: the
   * remembered instance is shown instead when it belongs to this dataset. */
  self->restoring = TRUE;
  hs_instance_browser_set_dataset (self->browser, dataset);
  g_clear_pointer (&self->pending_instance, g_free);
  if (g_strcmp0 (last_dataset, path) == 0 && last_instance != NULL && *last_instance != '\0' &&
      !hs_instance_browser_select_id (self->browser, last_instance) &&
      !hs_dataset_is_complete (dataset))
    self->pending_instance = g_steal_pointer (&last_instance);   /* shown once it is read */
  self->restoring = FALSE;
  hs_startup_trace ("browser-filled");

  gtk_stack_set_visible_child_name (self->view_stack, "view");
  selected = hs_instance_browser_get_selected (self->browser);
  if (selected != G_MAXUINT)
    show_instance (self, selected);
  else
    {
      hs_prompt_panel_set_instance (self->prompt_panel, NULL, NULL);
      if (hs_dataset_get_n_instances (dataset) == 0)
        hs_error_bar_add (self->error_bar, path, _("The dataset has no instances"));
    }
  update_actions (self);
}

#define LARGE_MANIFEST_BYTES (4 << 20)

static gboolean
manifest_is_large (const char *path)
{
  g_autofree char *manifest = NULL;
  GStatBuf st;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    manifest = g_build_filename (path, HS_DATASET_MANIFEST, NULL);
  else
    manifest = g_strdup (path);
  return g_stat (manifest, &st) == 0 && st.st_size >= LARGE_MANIFEST_BYTES;
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  const char *path = task_data;
  GError *error = NULL;
  HsDataset *dataset;

  /* A large manifest shows its first instance at once and the browser
   * reads the rest in a worker; a small one is read whole (a problem
   * anywhere in it is reported before anything is shown). */
  hs_startup_trace ("load-start");
  if (manifest_is_large (path))
    dataset = hs_dataset_open (path, 1, &error);
  else
    dataset = hs_dataset_load (path, &error);
  hs_startup_trace ("load-end");
  if (dataset == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, dataset, (GDestroyNotify) hs_dataset_unref);
}

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  HsWindow *self = HS_WINDOW (object);
  GTask *task = G_TASK (result);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  const char *path = g_task_get_task_data (task);

  dataset = g_task_propagate_pointer (task, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  set_loading (self, FALSE);
  if (dataset == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not open the dataset: %s"), error->message);
      hs_error_bar_add (self->error_bar, path, message);
      if (self->dataset == NULL)
        gtk_label_set_text (self->empty_title, _("Could Not Open the Dataset"));
      update_actions (self);
      return;
    }
  hs_error_bar_clear (self->error_bar);
  hs_startup_trace ("set-dataset");
  set_dataset (self, dataset, path);
  hs_startup_trace ("set-dataset-end");
}

/* The browser has read the rest of the dataset (or stopped at a problem):
 * models named only by later instances join the model list. */
static void
on_browser_loading (GObject    *object,
                    GParamSpec *pspec,
                    HsWindow   *self)
{
  if (!hs_instance_browser_get_loading (self->browser) && self->dataset != NULL)
    {
      g_auto(GStrv) precomputed = hs_dataset_list_models (self->dataset);
      guint n = g_strv_length (precomputed);
      gboolean same = n == self->n_precomputed;

      hs_startup_trace ("dataset-complete");
      for (guint i = 0; same && i < n; i++)
        same = g_strcmp0 (precomputed[i], gtk_string_list_get_string (self->models, i)) == 0;
      if (!same)
        fill_models (self);
      /* The instance remembered from last time, unless the user has moved on
       * from the first one meanwhile. */
      if (self->pending_instance != NULL && self->instance == hs_dataset_get_instance (self->dataset, 0))
        hs_instance_browser_select_id (self->browser, self->pending_instance);
      g_clear_pointer (&self->pending_instance, g_free);
    }
  update_spinner (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
on_browser_load_failed (HsInstanceBrowser *browser,
                        GError            *error,
                        HsWindow          *self)
{
  g_autofree char *message =
    g_strdup_printf (_("Only the first %u instances could be read: %s"),
                     hs_dataset_get_n_instances (self->dataset), error->message);

  hs_error_bar_add (self->error_bar, self->dataset_path, message);
}

void
hs_window_open (HsWindow *self,
                GFile    *file)
{
  g_autoptr(GTask) task = NULL;
  char *path;

  g_return_if_fail (HS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);
      hs_error_bar_add (self->error_bar, uri, _("Only local folders can be opened"));
      return;
    }

  /* A dataset is remembered by its folder, however it was opened. */
  {
    g_autofree char *base = g_path_get_basename (path);
    if (g_str_equal (base, HS_DATASET_MANIFEST))
      {
        char *dir = g_path_get_dirname (path);
        g_free (path);
        path = dir;
      }
  }

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();

  set_loading (self, TRUE);
  update_actions (self);
  task = g_task_new (self, self->cancellable, load_done, NULL);
  g_task_set_source_tag (task, hs_window_open);
  g_task_set_task_data (task, path, g_free);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, load_thread);
}

gboolean
hs_window_restore_last_dataset (HsWindow *self)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);

  if (self->settings == NULL || self->dataset != NULL || self->loading)
    return FALSE;
  path = g_settings_get_string (self->settings, "last-dataset");
  if (*path == '\0' || !g_file_test (path, G_FILE_TEST_EXISTS))
    return FALSE;
  file = g_file_new_for_path (path);
  hs_window_open (self, file);
  return TRUE;
}

/* ---- actions ------------------------------------------------------------ */

static void
on_chooser_response (GtkNativeDialog *dialog,
                     int              response,
                     HsWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      const char *format = g_object_get_data (G_OBJECT (dialog), "hs-export");

      if (file != NULL && format == NULL)
        hs_window_open (self, file);
      else if (file != NULL)
        {
          g_autofree char *path = g_file_get_path (file);
          g_autoptr(GError) error = NULL;

          if (path == NULL)
            hs_error_bar_add (self->error_bar, NULL, _("Only local files can be written"));
          else if (!hs_window_export_to_file (self, path, &error))
            hs_error_bar_add_error (self->error_bar, path, error);
          else
            {
              g_autofree char *dir = g_path_get_dirname (path);
              g_autofree char *done = g_strdup_printf (_("Exported %s"), path);
              if (self->settings != NULL)
                g_settings_set_string (self->settings, "last-export-folder", dir);
              gtk_label_set_text (self->status_label, done);
            }
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->chooser);
}

static void
open_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  HsWindow *self = user_data;

  if (self->chooser != NULL)
    return;
  self->chooser = gtk_file_chooser_native_new (_("Open Dataset"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                               _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (on_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
reload_action (GSimpleAction *action,
               GVariant      *parameter,
               gpointer       user_data)
{
  HsWindow *self = user_data;
  g_autoptr(GFile) file = NULL;

  if (self->dataset_path == NULL)
    return;
  file = g_file_new_for_path (self->dataset_path);
  hs_window_open (self, file);
}

static void
export_action (GSimpleAction *action,
               GVariant      *parameter,
               gpointer       user_data)
{
  HsWindow *self = user_data;
  const char *format = g_variant_get_string (parameter, NULL);
  g_autofree char *name = NULL;
  g_autofree char *folder = NULL;
  GtkFileFilter *filter;

  if (!g_str_equal (format, "png") && !g_str_equal (format, "svg") && !g_str_equal (format, "pdf"))
    return;
  if (self->chooser != NULL || self->instance == NULL)
    return;

  self->chooser = gtk_file_chooser_native_new (_("Export View"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_SAVE,
                                               _("_Export"), _("_Cancel"));
  g_object_set_data_full (G_OBJECT (self->chooser), "hs-export", g_strdup (format), g_free);
  name = g_strdup_printf ("%s.%s", self->instance->id, format);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), name);
  if (self->settings != NULL)
    folder = g_settings_get_string (self->settings, "last-export-folder");
  if (folder != NULL && *folder != '\0' && g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GFile) dir = g_file_new_for_path (folder);
      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (self->chooser), dir, NULL);
    }
  filter = gtk_file_filter_new ();
  gtk_file_filter_add_suffix (filter, format);
  gtk_file_filter_set_name (filter, g_str_equal (format, "png") ? _("PNG images")
                                    : g_str_equal (format, "svg") ? _("SVG images")
                                    : _("PDF documents"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), filter);
  g_object_unref (filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (on_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
search_action (GSimpleAction *action,
               GVariant      *parameter,
               gpointer       user_data)
{
  hs_instance_browser_focus_search (HS_WINDOW (user_data)->browser);
}

static void
next_instance_action (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  HsWindow *self = user_data;
  hs_instance_browser_select_relative (self->browser,
                                       g_str_equal (g_action_get_name (G_ACTION (action)), "next-instance") ? 1 : -1);
}

static void
next_sentence_action (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  HsWindow *self = user_data;
  hs_prompt_panel_select_relative (self->prompt_panel,
                                   g_str_equal (g_action_get_name (G_ACTION (action)), "next-sentence") ? 1 : -1);
}

static void
swap_sides_action (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  hs_prompt_panel_swap_sides (HS_WINDOW (user_data)->prompt_panel);
}

static void
reset_prompt_action (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  gtk_widget_activate_action (GTK_WIDGET (HS_WINDOW (user_data)->prompt_panel), "prompt.reset", NULL);
}

static void
compare_action (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  HsWindow *self = user_data;
  gboolean grid = g_str_equal (g_variant_get_string (parameter, NULL), "grid");
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);
  /* The decoded radiograph, unless the next instance's is still loading. */
  HsImage *image = self->image_cancellable == NULL ? self->image : NULL;
  g_autoptr(GError) error = NULL;
  GtkWindow *window;
  HsCompareView *view;
  gboolean ok;

  if (self->dataset == NULL || self->instance == NULL || sentence == NULL)
    return;
  window = hs_compare_window_new (GTK_WINDOW (self));
  view = hs_compare_window_get_view (window);
  hs_compare_view_set_base_state (view, HS_VIEW_STATE (self->view_state));
  if (grid)
    {
      /* The precomputed models and every live one. */
      g_autoptr(GPtrArray) live_models = g_ptr_array_new ();   /* borrowed names */

      for (guint i = 0; i < self->live_names->len; i++)
        g_ptr_array_add (live_models, g_ptr_array_index (self->live_names, i));
      g_ptr_array_add (live_models, NULL);
      ok = hs_compare_view_load_grid_live (view, self->dataset, self->instance, sentence, image,
                                           self->live, (const char * const *) live_models->pdata,
                                           &error);
    }
  else if (self->live_model != NULL)
    ok = hs_compare_view_load_live (view, self->dataset, self->instance, sentence, image,
                                    self->live, self->live_model, &error);
  else
    ok = hs_compare_view_load (view, self->dataset, self->instance, sentence, self->model, &error);
  if (!ok)
    {
      hs_error_bar_add_error (self->error_bar, NULL, error);
      gtk_window_destroy (window);
      return;
    }
  gtk_window_present (window);
}

static void
annotate_action (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  GtkWidget *window = hs_annotation_window_new (GTK_WINDOW (user_data));

  gtk_window_present (GTK_WINDOW (window));
}

static void
import_open (GtkWindow *window,
             GFile     *folder)
{
  hs_window_open (HS_WINDOW (window), folder);
}

static const GActionEntry win_actions[] = {
  { .name = "compare", .activate = compare_action, .parameter_type = "s" },
  { .name = "annotate", .activate = annotate_action },
  { .name = "open", .activate = open_action },
  { .name = "reload", .activate = reload_action },
  { .name = "export", .activate = export_action, .parameter_type = "s" },
  { .name = "search", .activate = search_action },
  { .name = "next-instance", .activate = next_instance_action },
  { .name = "previous-instance", .activate = next_instance_action },
  { .name = "next-sentence", .activate = next_sentence_action },
  { .name = "previous-sentence", .activate = next_sentence_action },
  { .name = "swap-sides", .activate = swap_sides_action },
  { .name = "reset-prompt", .activate = reset_prompt_action },
};

/* ---- drag and drop ------------------------------------------------------ */

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         HsWindow      *self)
{
  GFile *file = NULL;

  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    {
      GSList *files = gdk_file_list_get_files (g_value_get_boxed (value));
      if (files != NULL)
        file = files->data;
      g_slist_free (files);
    }
  else if (G_VALUE_HOLDS (value, G_TYPE_FILE))
    file = g_value_get_object (value);

  if (file == NULL)
    return FALSE;
  hs_window_open (self, file);
  return TRUE;
}

/* ---- object ------------------------------------------------------------- */

static void
on_hover_changed (GObject    *object,
                  GParamSpec *pspec,
                  HsWindow   *self)
{
  update_status (self);
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
  gtk_widget_set_hexpand (self->canvas, TRUE);
  gtk_widget_set_vexpand (self->canvas, TRUE);
  gtk_box_append (self->canvas_slot, self->canvas);

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
      if (self->browser != NULL)
        {
          guint subsets = hs_instance_browser_get_subsets (self->browser);
          const char *names[5];
          gboolean annotated = FALSE;
          guint n = 0;
          if (subsets & HS_SUBSET_ABNORMAL) names[n++] = "abnormal";
          if (subsets & HS_SUBSET_ONE_LUNG) names[n++] = "one_lung";
          if (subsets & HS_SUBSET_MDRB) names[n++] = "mdrb";
          g_object_get (self->browser, "filter-annotated", &annotated, NULL);
          if (annotated) names[n++] = "annotated";
          names[n] = NULL;
          g_settings_set_strv (self->settings, "subset-filter", names);
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
  live_cancel (self);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);

  gtk_widget_dispose_template (GTK_WIDGET (self), HS_TYPE_WINDOW);
  self->canvas = NULL;
  self->overlay_panel = NULL;
  self->metrics_panel = NULL;
  self->perturb_panel = NULL;
  self->instance = NULL;
  self->shown_ref = NULL;
  g_clear_object (&self->view_state);
  g_clear_object (&self->settings);
  g_clear_object (&self->models);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  g_clear_pointer (&self->image, hs_image_unref);
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
  gtk_widget_class_bind_template_child (widget_class, HsWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, canvas_slot);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, overlay_slot);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, metrics_slot);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, perturb_slot);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, header_spinner);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, empty_title);
  gtk_widget_class_bind_template_child (widget_class, HsWindow, side_stack);
  gtk_widget_class_bind_template_callback (widget_class, on_instance_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_map_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_token_selected);
}

static void
hs_window_init (HsWindow *self)
{
  GtkDropTarget *drop;
  GType drop_types[] = { GDK_TYPE_FILE_LIST, G_TYPE_FILE };

  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (GTK_WIDGET (self)));

  /* GtkApplication adds the app's icons; a window without one (tests) too. */
  if (!gtk_icon_theme_has_icon (theme, HS_APPLICATION_ID))
    gtk_icon_theme_add_resource_path (theme, "/org/heatscope/Heatscope/icons");

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = hs_settings_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_actions, G_N_ELEMENTS (win_actions), self);
  hs_import_dialog_add_action (GTK_APPLICATION_WINDOW (self), import_open);

  self->live = hs_live_attend_new ();
  self->live_names = g_ptr_array_new_with_free_func (g_free);
  self->live_delay_ms = LIVE_DEFAULT_DELAY_MS;

  self->models = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->model_dropdown, G_LIST_MODEL (self->models));
  g_signal_connect_object (self->model_dropdown, "notify::selected", G_CALLBACK (on_model_selected), self, 0);

  build_panels (self);
  g_signal_connect_object (self->browser, "notify::busy", G_CALLBACK (on_browser_busy), self, 0);
  g_signal_connect_object (self->browser, "notify::loading", G_CALLBACK (on_browser_loading), self, 0);
  g_signal_connect_object (self->browser, "load-failed", G_CALLBACK (on_browser_load_failed), self, 0);
  /* Tests blank this area in golden images (it belongs to other units). */
  g_object_set_data (G_OBJECT (self), "hs-side-stack", self->side_stack);

  drop = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (drop, drop_types, G_N_ELEMENTS (drop_types));
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  if (self->settings != NULL)
    {
      g_auto(GStrv) subsets = g_settings_get_strv (self->settings, "subset-filter");
      guint flags = 0;

      gtk_window_set_default_size (GTK_WINDOW (self),
                                   g_settings_get_int (self->settings, "main-window-width"),
                                   g_settings_get_int (self->settings, "main-window-height"));
      if (g_settings_get_boolean (self->settings, "main-window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
      for (guint i = 0; subsets[i] != NULL; i++)
        {
          if (g_str_equal (subsets[i], "abnormal")) flags |= HS_SUBSET_ABNORMAL;
          else if (g_str_equal (subsets[i], "one_lung")) flags |= HS_SUBSET_ONE_LUNG;
          else if (g_str_equal (subsets[i], "mdrb")) flags |= HS_SUBSET_MDRB;
        }
      hs_instance_browser_set_subsets (self->browser, flags);
      g_object_set (self->browser, "filter-annotated", g_strv_contains ((const char * const *) subsets, "annotated"), NULL);
    }

  update_actions (self);
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
  return live_busy (self);
}

const char *
hs_window_get_live_model (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->live_model;
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
