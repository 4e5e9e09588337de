/* hs-window-models.c — the window's model drop-down: the dataset's
 * precomputed models first, then the live ones (built-in models and the
 * external backend), and the live requests behind them
 */
#include <glib/gi18n.h>
#include <math.h>

#include <heatscope/hs-legend.h>
#include <heatscope/hs-model.h>

#include "hs-window-private.h"

/* ---- live models ------------------------------------------------------- */

/* With a live model chosen, every edit of the prompt schedules a request
 * (debounced); a request cancels the one before it, runs encode (cached per
 * image by HsModelCache) and attend off the main thread (HsLiveAttend, shared
 * with the compare view and the Perturb tab), and its result is shown only
 * if no newer request was made since.  Results are kept in HsLiveAttend's
 * small LRU keyed by (model, instance, prompt), so going back to a prompt is
 * immediate. */

/* A request starts after the frame that paints the edit (a key's echo never
 * waits for map work) and a debounce that follows what maps have cost: at
 * least twice the live model's time in its worker (an average per model),
 * so that while keys come just slower than that at most half of the model's
 * time goes to prompts typed over, and at least what showing a map has cost
 * the main thread until its frame was painted (an average), so that maps
 * shown between keys leave the main thread at least half of its time for
 * the keys — on a loaded machine, where a frame takes 100 ms and more, that
 * is the former fixed 120 ms, the most it waits, and the delay before a
 * model's first map is measured.  A built-in model (~1 ms) on a quiet
 * machine shows its map about two frames after the last key. */
#define LIVE_MIN_DELAY_MS     0
#define LIVE_MAX_DELAY_MS     120
#define LIVE_COST_FACTOR      2.0
#define LIVE_ADAPTIVE_DELAY   G_MAXUINT
/* The external backend's entry in live_names. */
#define LIVE_EXEC_NAME        HS_LIVE_EXEC_NAME

static void on_model_selected (GObject    *object,
                               GParamSpec *pspec,
                               HsWindow   *self);


gboolean
_hs_window_live_busy (HsWindow *self)
{
  return self->live_timeout != 0 || self->live_paint_handler != 0 ||
         hs_latest_request_get_n_pending (self->live_request) > 0;
}

static char *
live_make_key (HsWindow   *self,
               const char *prompt)
{
  return hs_live_attend_make_key (self->dataset, self->instance, self->live_model, prompt);
}

void
_hs_window_live_cancel (HsWindow *self)
{
  g_clear_handle_id (&self->live_timeout, g_source_remove);
  if (self->live_paint_handler != 0)
    g_clear_signal_handler (&self->live_paint_handler, self->live_clock);
  g_clear_object (&self->live_clock);
  hs_latest_request_cancel (self->live_request);
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
  _hs_window_update_view_full (self, TRUE);
  /* A deck case waiting for its live map (presentation, hash check). */
  _hs_window_deck_live_shown (self, key);
}

typedef struct {
  HsWindow     *window;  /* kept alive until the request ends */
  char         *model;   /* what errors are reported under */
  char         *live_model;  /* whose cost the request measures */
  char         *key;
  guint64       ticket;    /* of the window's live_request */
  gint64        started_us;
} LiveJob;

static void
live_job_free (LiveJob *job)
{
  g_object_unref (job->window);
  g_free (job->model);
  g_free (job->live_model);
  g_free (job->key);
  g_free (job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LiveJob, live_job_free)

static void
live_record_cost (HsWindow   *self,
                  const char *live_model,
                  double      ms)
{
  double *cost = g_hash_table_lookup (self->live_costs, live_model);

  if (cost == NULL)
    {
      cost = g_new (double, 1);
      *cost = ms;
      g_hash_table_insert (self->live_costs, g_strdup (live_model), cost);
    }
  else
    *cost = 0.75 * *cost + 0.25 * ms;
}

double
hs_window_get_live_cost (HsWindow *self)
{
  const double *cost;

  g_return_val_if_fail (HS_IS_WINDOW (self), -1.0);
  cost = self->live_model != NULL ? g_hash_table_lookup (self->live_costs, self->live_model) : NULL;
  return cost != NULL ? *cost : -1.0;
}

double
hs_window_get_live_show_cost (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), -1.0);
  return self->live_show_ms;
}

/* The debounce before a request of the current live model (see above). */
guint
hs_window_get_live_debounce (HsWindow *self)
{
  double cost;

  g_return_val_if_fail (HS_IS_WINDOW (self), LIVE_MAX_DELAY_MS);
  if (self->live_delay_ms != LIVE_ADAPTIVE_DELAY)
    return self->live_delay_ms;
  cost = hs_window_get_live_cost (self);
  if (cost < 0.0)
    return LIVE_MAX_DELAY_MS;
  return (guint) CLAMP (ceil (MAX (LIVE_COST_FACTOR * cost, self->live_show_ms)), LIVE_MIN_DELAY_MS,
                        LIVE_MAX_DELAY_MS);
}

static void
live_shown_painted (GdkFrameClock *clock,
                    HsWindow      *self)
{
  double ms = (g_get_monotonic_time () - self->live_show_us) / 1000.0;

  g_signal_handler_disconnect (clock, self->live_show_handler);
  self->live_show_handler = 0;
  self->live_show_ms = self->live_show_ms < 0.0 ? ms : 0.75 * self->live_show_ms + 0.25 * ms;
}

/* Times a map's showing: from now until its frame is painted (one at a time;
 * the handler goes with the window). */
static void
live_time_show (HsWindow *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  if (clock == NULL || self->live_show_handler != 0)
    return;
  self->live_show_us = g_get_monotonic_time ();
  self->live_show_handler = g_signal_connect_object (clock, "after-paint", G_CALLBACK (live_shown_painted),
                                                     self, 0);
}

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
  if (!hs_latest_request_is_current (self->live_request, job->ticket) || self->live_model == NULL)
    {
      /* Counted for tests: results that arrived after a newer request. */
      if (map != NULL)
        g_object_set_data (G_OBJECT (self), "hs-live-dropped",
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (self),
                                                                                  "hs-live-dropped")) + 1));
      return;
    }
  hs_latest_request_finish (self->live_request, job->ticket);
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
    {
      live_record_cost (self, job->live_model, hs_live_attend_result_get_compute_ms (result));
      live_show (self, job->key, map);
      live_time_show (self);
    }
  _hs_window_update_spinner (self);
}

static void
live_start (HsWindow *self)
{
  LiveJob *job;
  GCancellable *cancellable = NULL;
  const char *prompt = hs_prompt_panel_get_prompt (self->prompt_panel);

  if (self->live_model == NULL || self->image == NULL || self->instance == NULL)
    return;
  _hs_window_live_cancel (self);
  if (prompt == NULL || *prompt == '\0')
    {
      g_autofree char *key = live_make_key (self, prompt);
      live_show (self, key, NULL);
      _hs_window_update_spinner (self);
      return;
    }
  job = g_new0 (LiveJob, 1);
  job->window = g_object_ref (self);
  job->model = g_strdup (hs_live_attend_get_source_name (self->live, self->live_model));
  job->live_model = g_strdup (self->live_model);
  job->key = live_make_key (self, prompt);
  job->ticket = hs_latest_request_issue (self->live_request, &cancellable);
  job->started_us = g_get_monotonic_time ();
  g_object_set_data (G_OBJECT (self), "hs-live-started",
                     GUINT_TO_POINTER (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (self),
                                                                            "hs-live-started")) + 1));
  hs_live_attend_async (self->live, self->dataset, self->instance, self->image, self->image_stamp,
                        self->live_model,
                        prompt, cancellable, live_done, job);
  _hs_window_update_spinner (self);
}

static gboolean
live_timeout_cb (gpointer data)
{
  HsWindow *self = data;

  self->live_timeout = 0;
  live_start (self);
  return G_SOURCE_REMOVE;
}

/* The frame with the edit is painted: now the debounce. */
static void
live_after_paint (GdkFrameClock *clock,
                  HsWindow      *self)
{
  g_clear_signal_handler (&self->live_paint_handler, self->live_clock);
  g_clear_object (&self->live_clock);
  self->live_timeout = g_timeout_add (hs_window_get_live_debounce (self), live_timeout_cb, self);
}

/* The prompt, sentence, instance or image changed: bring the live map up to
 * date (immediately from the cache, else after the debounce delay). */
void
_hs_window_live_schedule (HsWindow *self)
{
  const char *prompt = hs_prompt_panel_get_prompt (self->prompt_panel);
  g_autofree char *key = NULL;
  g_autoptr(HsAttentionMap) cached = NULL;
  GdkFrameClock *clock;

  if (self->live_model == NULL || self->instance == NULL)
    return;
  key = live_make_key (self, prompt);
  if (g_strcmp0 (key, self->live_key) == 0 && self->map != NULL && !_hs_window_live_busy (self) &&
      self->image_cancellable == NULL)
    return;
  _hs_window_live_cancel (self);
  self->live_changed_us = g_get_monotonic_time ();

  cached = hs_live_attend_lookup (self->live, key);
  if (cached != NULL && self->image_cancellable == NULL)
    {
      self->live_compute_ms = 0.0;
      live_show (self, key, cached);
      _hs_window_update_spinner (self);
      return;
    }
  /* image_done calls again once the radiograph is decoded. */
  if (self->image_cancellable != NULL || self->image == NULL)
    {
      _hs_window_update_spinner (self);
      return;
    }
  /* Even without a delay: replacing the text deletes it first, and the
   * empty prompt in between must not blank the view. */
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  if (clock != NULL)
    {
      self->live_clock = g_object_ref (clock);
      self->live_paint_handler = g_signal_connect (clock, "after-paint", G_CALLBACK (live_after_paint), self);
      gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_AFTER_PAINT);
    }
  else
    self->live_timeout = g_timeout_add (hs_window_get_live_debounce (self), live_timeout_cb, self);
  _hs_window_update_spinner (self);
}

/* The external backend command: --backend-exec or the preference (never a
 * dataset file).  Nothing runs until the entry is chosen. */
static void
live_check_exec (HsWindow *self)
{
  g_autofree char *command = hs_live_attend_dup_user_command (GTK_WINDOW (self));

  if (command == NULL)
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
  /* Missing classifier weights say nothing on most datasets: not reported. */
  names = hs_model_list_saliency ();
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(HsModel) model = hs_model_cache_get_model (hs_live_attend_get_model_cache (self->live),
                                                           names[i], NULL);

      if (model != NULL)
        g_ptr_array_add (self->live_saliency, g_strdup (names[i]));
    }
  live_check_exec (self);
  g_debug ("live: %u built-in models loaded in %.1f ms", self->live_names->len,
           (g_get_monotonic_time () - start) / 1000.0);
}

/* TRUE when a query of the dataset is a class of the lesion classifier
 * (its text, case aside, one of the class names). */
static gboolean
dataset_names_classes (HsWindow *self)
{
  g_autoptr(HsModel) model = NULL;
  const char * const *classes;

  if (self->dataset == NULL || self->live_saliency->len == 0)
    return FALSE;
  model = hs_model_cache_get_model (hs_live_attend_get_model_cache (self->live),
                                    g_ptr_array_index (self->live_saliency, 0), NULL);
  classes = model != NULL ? hs_model_get_classes (model) : NULL;
  for (guint i = 0; classes != NULL && i < hs_dataset_get_n_instances (self->dataset); i++)
    {
      const HsInstance *instance = hs_dataset_get_instance (self->dataset, i);

      for (guint s = 0; instance->sentences != NULL && s < instance->sentences->len; s++)
        {
          const HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
          g_autofree char *text = sentence->text != NULL ? g_strstrip (g_strdup (sentence->text)) : NULL;

          for (guint c = 0; text != NULL && classes[c] != NULL; c++)
            if (g_ascii_strcasecmp (text, classes[c]) == 0)
              return TRUE;
        }
    }
  return FALSE;
}

/* The classifier's names in live_names (after the attention models, before
 * the backend) exactly when the dataset asks for its classes. */
static void
live_offer_saliency (HsWindow *self)
{
  guint first = 0;

  while (first < self->live_names->len
         && g_strv_contains (hs_model_list_builtin (), g_ptr_array_index (self->live_names, first)))
    first++;
  g_ptr_array_remove_range (self->live_names, first, self->n_live_saliency);
  self->n_live_saliency = 0;
  if (!dataset_names_classes (self))
    return;
  for (guint i = 0; i < self->live_saliency->len; i++)
    g_ptr_array_insert (self->live_names, first + i, g_strdup (g_ptr_array_index (self->live_saliency, i)));
  self->n_live_saliency = self->live_saliency->len;
}

/* ---- models ------------------------------------------------------------ */

/* `live`: a built-in model name, or NULL for the precomputed maps. */
static void
live_select (HsWindow   *self,
             const char *live)
{
  if (g_strcmp0 (live, self->live_model) == 0)
    return;
  _hs_window_live_cancel (self);
  g_free (self->live_model);
  self->live_model = g_strdup (live);
  g_clear_pointer (&self->live_key, g_free);
  /* Neither kind of map stands for the other. */
  g_clear_pointer (&self->map, hs_attention_map_unref);
  self->shown_ref = NULL;
  hs_prompt_panel_set_map (self->prompt_panel, NULL);
  hs_prompt_panel_set_live (self->prompt_panel, live != NULL);
  /* The canvas and metrics drop the old map even when no new one follows. */
  _hs_window_update_view_full (self, TRUE);
  _hs_window_live_schedule (self);
  _hs_window_update_spinner (self);
}

static gboolean
is_no_model (HsWindow *self,
             guint     position)
{
  return self->no_model_entry && position == self->n_precomputed;
}

/* The live model's name at `position` of the selector, or NULL. */
static const char *
live_at (HsWindow *self,
         guint     position)
{
  guint first = self->n_precomputed + (self->no_model_entry ? 1 : 0);

  if (position == GTK_INVALID_LIST_POSITION || position < first ||
      position - first >= self->live_names->len)
    return NULL;
  return g_ptr_array_index (self->live_names, position - first);
}

/* What the selector shows for `position`: the model's entry and, for a
 * built-in model on a dataset of real images, the same words as the
 * caption's note. */
char *
_hs_window_model_label (HsWindow *self,
                        guint     position)
{
  const char *text = gtk_string_list_get_string (self->models, position);
  const char *model = position < self->n_precomputed ? text : live_at (self, position);

  if (text == NULL)
    return NULL;
  if (self->real_images && model != NULL && hs_model_is_builtin (model))
    /* Translators: a model in the selector, then why its maps mean little here */
    return g_strdup_printf (_("%s — %s"), text, hs_caption_phantom_note ());
  return g_strdup (text);
}

static void
on_label_setup (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                HsWindow                 *self)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_list_item_set_child (item, label);
}

static void
on_label_bind (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               HsWindow                 *self)
{
  g_autofree char *text = _hs_window_model_label (self, gtk_list_item_get_position (item));

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text != NULL ? text : "");
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

  if (self->filling_models)
    return;
  if (is_no_model (self, position))
    model = NULL;
  else if (g_strcmp0 (model, self->model) == 0)
    return;
  live = live_at (self, position);
  g_free (self->model);
  self->model = g_strdup (model);
  if (self->settings != NULL && model != NULL)
    g_settings_set_string (self->settings, "last-model", model);
  live_select (self, live);
  hs_prompt_panel_set_model (self->prompt_panel, live != NULL ? NULL : model);
  hs_instance_browser_set_model (self->browser, live != NULL ? live : model);
}

void
_hs_window_fill_models (HsWindow *self)
{
  g_auto(GStrv) precomputed = self->dataset != NULL ? hs_dataset_list_models (self->dataset) : NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) models = NULL;
  g_autofree char *wanted = NULL;
  const char *live = NULL;
  guint n;
  guint selected = 0;

  live_check_models (self);
  live_offer_saliency (self);
  self->n_precomputed = precomputed != NULL ? g_strv_length (precomputed) : 0;
  self->real_images = FALSE;
  for (guint i = 0; self->dataset != NULL && i < hs_dataset_get_n_instances (self->dataset) &&
                    !self->real_images; i++)
    self->real_images = !hs_dataset_get_instance (self->dataset, i)->phantom;
  self->no_model_entry = self->real_images && self->n_precomputed == 0;
  if (precomputed != NULL)
    g_strv_builder_addv (builder, (const char **) precomputed);
  if (self->no_model_entry)
    /* Translators: the model selector's entry that shows the image without a heatmap */
    g_strv_builder_add (builder, _("No model"));
  for (guint i = 0; i < self->live_names->len; i++)
    {
      g_autofree char *label = hs_live_attend_display_name (g_ptr_array_index (self->live_names, i));
      g_strv_builder_add (builder, label);
    }
  models = g_strv_builder_end (builder);
  n = g_strv_length (models);

  /* Real images without maps: nothing is applied until the user picks. */
  if (self->settings != NULL && !self->no_model_entry)
    wanted = g_settings_get_string (self->settings, "last-model");
  if (self->no_model_entry)
    wanted = g_strdup (models[self->n_precomputed]);
  else if (wanted == NULL || *wanted == '\0' || models == NULL || !g_strv_contains ((const char * const *) models, wanted))
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
  self->model = is_no_model (self, selected) ? NULL : g_steal_pointer (&wanted);
  if (n > 0)
    live = live_at (self, selected);
  live_select (self, live);
  hs_prompt_panel_set_model (self->prompt_panel, live != NULL ? NULL : self->model);
  hs_instance_browser_set_model (self->browser, live != NULL ? live : self->model);
}

void
_hs_window_models_init (HsWindow *self)
{
  self->live = hs_live_attend_new ();
  self->live_request = hs_latest_request_new ();
  self->live_names = g_ptr_array_new_with_free_func (g_free);
  self->live_saliency = g_ptr_array_new_with_free_func (g_free);
  self->live_delay_ms = LIVE_ADAPTIVE_DELAY;
  self->live_costs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->live_show_ms = -1.0;

  self->models = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->model_dropdown, G_LIST_MODEL (self->models));
  {
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

    g_signal_connect_object (factory, "setup", G_CALLBACK (on_label_setup), self, 0);
    g_signal_connect_object (factory, "bind", G_CALLBACK (on_label_bind), self, 0);
    gtk_drop_down_set_factory (self->model_dropdown, factory);
    g_object_unref (factory);
  }
  g_signal_connect_object (self->model_dropdown, "notify::selected", G_CALLBACK (on_model_selected), self, 0);
}
