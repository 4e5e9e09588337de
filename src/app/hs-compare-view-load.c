/* hs-compare-view-load.c — the compare view loaded from a dataset: its
 * precomputed maps, and live maps computed off the main thread where the
 * newest load wins
 */
#include <glib/gi18n.h>
#include <heatscope/hs-legend.h>
#include <heatscope/hs-model.h>
#include <heatscope/hs-text.h>

#include "hs-compare-view-private.h"

/* Forgets the live requests in flight (their maps still feed the cache). */
void
_hs_compare_view_cancel_live (HsCompareView *self)
{
  gboolean was_busy = hs_latest_request_get_n_pending (self->requests) > 0;

  hs_latest_request_cancel (self->requests);
  if (was_busy)
    _hs_compare_view_notify (self, PROP_BUSY);
}

/* ---- live maps ---------------------------------------------------------------- */

typedef struct {
  HsCompareView *view;     /* weak: the view may go first */
  guint64        ticket;   /* of the view's requests */
  guint          index;
  char          *source;   /* what errors are reported under */
} LiveRequest;

static void
live_request_free (LiveRequest *request)
{
  if (request->view != NULL)
    g_object_remove_weak_pointer (G_OBJECT (request->view), (gpointer *) &request->view);
  g_free (request->source);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LiveRequest, live_request_free)

static void
live_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(LiveRequest) request = user_data;
  HsCompareView *self = request->view;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = hs_live_attend_finish (HS_LIVE_ATTEND (object), result, &error);
  HsCompareCell *cell;

  /* Superseded by a newer load, or the view is gone: the map is cached. */
  if (self == NULL || !hs_latest_request_is_current (self->requests, request->ticket))
    return;
  cell = _hs_compare_view_get_cell (self, request->index);
  if (cell == NULL)
    return;
  if (map != NULL)
    hs_compare_cell_set_map (cell, map);
  else
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, HS_MODEL_ERROR, HS_MODEL_ERROR_EMPTY_PROMPT))
        message = g_strdup (_("The prompt has no words the model can read"));
      else if (hs_live_attend_is_exec (request->source))
        message = g_strdup (error->message);   /* names the backend's command */
      else
        message = g_strdup_printf (_("Live model %s: %s"), request->source, error->message);
      hs_compare_cell_set_error (cell, message);
    }
  if (hs_latest_request_finish (self->requests, request->ticket) &&
      hs_latest_request_get_n_pending (self->requests) == 0)
    _hs_compare_view_notify (self, PROP_BUSY);
  if (self->mode == HS_COMPARE_MODE_PAIR)
    _hs_compare_view_finish_pair (self);
  else
    _hs_compare_view_refresh_grid (self);
}

/* Cell `index` gets the live map of `prompt`: at once from the cache, else
 * a spinner until the request ends.  FALSE when it had to wait. */
static gboolean
request_live (HsCompareView *self, HsDataset *dataset, HsInstance *instance, guint index,
              const char *model, const char *prompt)
{
  g_autofree char *key = hs_live_attend_make_key (dataset, instance, model, prompt);
  g_autoptr(HsAttentionMap) cached = hs_live_attend_lookup (self->live, key);
  HsCompareCell *cell = _hs_compare_view_get_cell (self, index);
  LiveRequest *request;
  GCancellable *cancellable = NULL;

  if (cached != NULL)
    {
      hs_compare_cell_set_map (cell, cached);
      return TRUE;
    }
  hs_compare_cell_set_pending (cell);
  request = g_new0 (LiveRequest, 1);
  request->view = self;
  g_object_add_weak_pointer (G_OBJECT (self), (gpointer *) &request->view);
  request->ticket = hs_latest_request_issue (self->requests, &cancellable);
  request->index = index;
  request->source = g_strdup (model);
  if (hs_latest_request_get_n_pending (self->requests) == 1)
    _hs_compare_view_notify (self, PROP_BUSY);
  hs_live_attend_async (self->live, dataset, instance, self->image, self->image_stamp, model, prompt,
                        cancellable, live_done, request);
  return FALSE;
}

/* ---- loading from a dataset ----------------------------------------------------- */

/* The caption above the cells (and of the export): the instance and the
 * prompt, or both prompts of a swapped pair, from these fields by the
 * legend module (each quoted once, quotes inside turned single). */
static void
set_prompt_label (HsCompareView *self, HsInstance *instance, const char *prompt,
                  const char *prompt_b)
{
  g_autofree char *text = NULL;

  if (instance == NULL)
    {
      gtk_label_set_text (self->prompt_label, "");
      return;
    }
  text = hs_caption_compare_string (instance->id, prompt, prompt_b);
  gtk_label_set_text (self->prompt_label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->prompt_label), text);
}

/* The radiograph (`image` when the caller has it decoded, with its file's
 * stamp from before that decode) and the sentence's target. */
static gboolean
load_common (HsCompareView *self, HsDataset *dataset, HsInstance *instance, HsSentence *sentence,
             const char *swapped, HsImage *image, const HsFileStamp *image_stamp, GError **error)
{
  g_autoptr(HsImage) decoded = NULL;
  g_autoptr(GPtrArray) regions = NULL;
  g_autoptr(GPtrArray) masks = NULL;
  HsFileStamp stamp;

  if (image == NULL)
    {
      /* before the decode: a file replaced during it is not the one read */
      image_stamp = hs_dataset_stamp_file (dataset, instance->image, &stamp);
      decoded = hs_dataset_load_image (dataset, instance, error);
      if (decoded == NULL)
        return FALSE;
      image = decoded;
    }
  if (!hs_dataset_collect_targets (dataset, instance, sentence, &regions, &masks, error))
    return FALSE;
  if (self->dataset != dataset)
    {
      g_clear_pointer (&self->dataset, hs_dataset_unref);
      self->dataset = hs_dataset_ref (dataset);
    }
  hs_compare_view_set_image (self, image, regions, masks);
  if (image_stamp != NULL)
    {
      self->image_stamp_buf = *image_stamp;
      self->image_stamp = &self->image_stamp_buf;
    }
  set_prompt_label (self, instance, sentence->text, swapped);
  return TRUE;
}

/* A cell showing a built-in model's map of a real image says so on its
 * canvas, in the words and place of the main canvas's caption. */
static void
mark_phantom (HsCompareView *self, guint index, gboolean phantom)
{
  HsCaption caption = { NULL, NULL, NULL, phantom };
  HsCompareCell *cell = _hs_compare_view_get_cell (self, index);

  if (cell != NULL)
    hs_canvas_set_caption_fields (hs_compare_cell_get_canvas (cell), &caption);
}

/* The pair's cells A, B and A − B. */
static void
mark_phantom_pair (HsCompareView *self, gboolean a, gboolean b)
{
  mark_phantom (self, 0, a);
  mark_phantom (self, 1, b);
  mark_phantom (self, 2, a || b);
}

gboolean
hs_compare_view_load (HsCompareView *self, HsDataset *dataset, HsInstance *instance,
                      HsSentence *sentence, const char *model, GError **error)
{
  g_autofree char *swapped = NULL;
  g_autoptr(HsAttentionMap) a = NULL;
  g_autoptr(HsAttentionMap) b = NULL;
  g_auto(GStrv) models = NULL;
  g_autofree char *label_a = NULL;
  g_autofree char *label_b = NULL;
  HsMapRef *ref_a, *ref_b = NULL;
  gboolean swapped_pair = FALSE;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (dataset != NULL && instance != NULL && sentence != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  models = hs_dataset_list_models (dataset);
  if (model == NULL && models != NULL)
    model = models[0];
  ref_a = model != NULL ? hs_instance_find_map (instance, model, sentence->id) : NULL;
  if (ref_a == NULL)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s: model %s has no map for sentence %s"),
                   instance->id, model ? model : _("(none)"), sentence->id);
      return FALSE;
    }

  swapped = hs_text_swap_sides (sentence->text);
  if (g_strcmp0 (swapped, sentence->text) != 0)
    ref_b = hs_instance_find_map_by_prompt (instance, model, swapped);
  if (ref_b != NULL)
    {
      swapped_pair = TRUE;
      label_a = g_strdup_printf (_("%s · original"), model);
      label_b = g_strdup_printf (_("%s · swapped left/right"), model);
    }
  else
    {
      /* Two models: the next one (in sorted order) with a map for the sentence. */
      guint n = g_strv_length (models), start = 0;

      for (guint i = 0; i < n; i++)
        if (g_str_equal (models[i], model))
          start = i;
      for (guint k = 1; k < n && ref_b == NULL; k++)
        {
          const char *other = models[(start + k) % n];
          ref_b = hs_instance_find_map (instance, other, sentence->id);
          if (ref_b != NULL)
            {
              label_a = g_strdup (model);
              label_b = g_strdup (other);
            }
        }
    }
  if (ref_b == NULL)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s, sentence %s: no map of the swapped prompt and no second model to compare with"),
                   instance->id, sentence->id);
      return FALSE;
    }

  if (!load_common (self, dataset, instance, sentence, swapped_pair ? swapped : NULL, NULL, NULL, error))
    return FALSE;
  a = hs_dataset_load_map (dataset, ref_a, error);
  if (a == NULL)
    return FALSE;
  b = hs_dataset_load_map (dataset, ref_b, error);
  if (b == NULL)
    return FALSE;
  if (swapped_pair)
    hs_compare_view_set_swapped_pair (self, a, label_a, b, label_b);
  else
    hs_compare_view_set_pair (self, a, label_a, b, label_b);
  hs_compare_view_set_tags (self, 0, ref_a->tags, ref_a->n_tags);
  hs_compare_view_set_tags (self, 1, ref_b->tags, ref_b->n_tags);
  {
    const char *names[] = { ref_a->model, ref_b->model, NULL };
    _hs_compare_view_set_models (self, names, 2);
  }
  mark_phantom_pair (self, hs_model_is_phantom_trained_on_real (ref_a->model, instance),
                     hs_model_is_phantom_trained_on_real (ref_b->model, instance));
  return TRUE;
}

gboolean
hs_compare_view_load_live (HsCompareView *self, HsDataset *dataset, HsInstance *instance,
                           HsSentence *sentence, HsImage *image, const HsFileStamp *image_stamp,
                           HsLiveAttend *live, const char *model, GError **error)
{
  g_autofree char *swapped = NULL;
  g_autofree char *name = NULL;
  g_autofree char *label_a = NULL;
  g_autofree char *label_b = NULL;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (dataset != NULL && instance != NULL && sentence != NULL, FALSE);
  g_return_val_if_fail (HS_IS_LIVE_ATTEND (live) && model != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  swapped = hs_text_swap_sides (sentence->text);
  if (g_strcmp0 (swapped, sentence->text) == 0)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s, sentence %s: the prompt has no left or right to swap"),
                   instance->id, sentence->id);
      return FALSE;
    }
  if (!load_common (self, dataset, instance, sentence, swapped, image, image_stamp, error))
    return FALSE;
  g_set_object (&self->live, live);
  name = hs_live_attend_display_name (model);
  label_a = g_strdup_printf (_("%s · original"), name);
  label_b = g_strdup_printf (_("%s · swapped left/right"), name);
  _hs_compare_view_build_pair (self, label_a, label_b, TRUE);
  {
    const char *names[] = { model, model, NULL };
    _hs_compare_view_set_models (self, names, 0);
  }
  request_live (self, dataset, instance, 0, model, sentence->text);
  request_live (self, dataset, instance, 1, model, swapped);
  _hs_compare_view_finish_pair (self);
  mark_phantom_pair (self, hs_model_is_phantom_trained_on_real (model, instance),
                     hs_model_is_phantom_trained_on_real (model, instance));
  return TRUE;
}

gboolean
hs_compare_view_load_grid_live (HsCompareView *self, HsDataset *dataset, HsInstance *instance,
                                HsSentence *sentence, HsImage *image,
                                const HsFileStamp *image_stamp, HsLiveAttend *live,
                                const char * const *live_models, GError **error)
{
  g_auto(GStrv) models = NULL;
  g_autoptr(GPtrArray) refs = g_ptr_array_new ();
  g_autoptr(GStrvBuilder) labels = g_strv_builder_new ();
  g_auto(GStrv) label_v = NULL;
  guint n_live = 0;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (dataset != NULL && instance != NULL && sentence != NULL, FALSE);
  g_return_val_if_fail (live_models == NULL || live_models[0] == NULL || HS_IS_LIVE_ATTEND (live), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  models = hs_dataset_list_models (dataset);
  for (guint i = 0; models != NULL && models[i] != NULL; i++)
    {
      HsMapRef *ref = hs_instance_find_map (instance, models[i], sentence->id);

      if (ref == NULL)
        continue;
      g_ptr_array_add (refs, ref);
      g_strv_builder_add (labels, models[i]);
    }
  for (guint i = 0; live_models != NULL && live_models[i] != NULL; i++, n_live++)
    {
      g_autofree char *name = hs_live_attend_display_name (live_models[i]);
      g_strv_builder_add (labels, name);
    }
  if (refs->len + n_live == 0)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s: no model has a map for sentence %s"), instance->id, sentence->id);
      return FALSE;
    }
  if (!load_common (self, dataset, instance, sentence, NULL, image, image_stamp, error))
    return FALSE;
  if (n_live > 0)
    g_set_object (&self->live, live);
  label_v = g_strv_builder_end (labels);
  _hs_compare_view_build_grid (self, refs->len + n_live, (const char * const *) label_v);
  {
    g_autoptr(GPtrArray) names = g_ptr_array_new ();

    for (guint i = 0; i < refs->len; i++)
      g_ptr_array_add (names, ((HsMapRef *) g_ptr_array_index (refs, i))->model);
    for (guint i = 0; i < n_live; i++)
      g_ptr_array_add (names, (gpointer) live_models[i]);
    g_ptr_array_add (names, NULL);
    _hs_compare_view_set_models (self, (const char * const *) names->pdata, refs->len);
  }

  /* A precomputed map that does not load is that cell's error, not the grid's. */
  for (guint i = 0; i < refs->len; i++)
    {
      g_autoptr(GError) map_error = NULL;
      g_autoptr(HsAttentionMap) map = hs_dataset_load_map (dataset, g_ptr_array_index (refs, i), &map_error);

      if (map != NULL)
        {
          HsMapRef *ref = g_ptr_array_index (refs, i);

          hs_compare_cell_set_map (_hs_compare_view_get_cell (self, i), map);
          hs_compare_view_set_tags (self, i, ref->tags, ref->n_tags);
        }
      else
        hs_compare_cell_set_error (_hs_compare_view_get_cell (self, i), map_error->message);
    }
  for (guint i = 0; i < n_live; i++)
    request_live (self, dataset, instance, refs->len + i, live_models[i], sentence->text);
  for (guint i = 0; i < refs->len + n_live; i++)
    mark_phantom (self, i, hs_model_is_phantom_trained_on_real (
                    i < refs->len ? ((HsMapRef *) g_ptr_array_index (refs, i))->model
                                  : live_models[i - refs->len], instance));
  _hs_compare_view_refresh_grid (self);
  return TRUE;
}

gboolean
hs_compare_view_load_grid (HsCompareView *self, HsDataset *dataset, HsInstance *instance,
                           HsSentence *sentence, GError **error)
{
  return hs_compare_view_load_grid_live (self, dataset, instance, sentence, NULL, NULL, NULL, NULL, error);
}
