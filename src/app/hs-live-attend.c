/* hs-live-attend.c — live attention shared by the window, the compare view
 * and the Perturb tab */

#include <glib/gi18n.h>
#include <heatscope/hs-backend-exec.h>
#include <heatscope/hs-file-stamp.h>

#include "hs-application.h"
#include "hs-live-attend.h"

/* Finished maps kept (a few prompts × models × instances). */
#define LRU_SIZE 64

struct _HsLiveAttend
{
  GObject        parent_instance;

  HsModelCache  *model_cache;
  char          *exec_command;
  HsBackendExec *exec_backend;   /* created on its first request */

  /* Workers insert finished maps: the LRU is locked. */
  GMutex         lock;
  GHashTable    *maps;           /* key → Entry */
  GQueue         lru;            /* keys, most recent first (owned by maps) */
  guint          n_stale;        /* maps dropped because their image changed */
};

G_DEFINE_FINAL_TYPE (HsLiveAttend, hs_live_attend, G_TYPE_OBJECT)

/* A finished map and the image file it was computed from: the resolved
 * path and its stamp taken before the image was read for the model (a map
 * is only valid for that file: hs_live_attend_lookup compares it with the
 * file now). */
typedef struct {
  HsAttentionMap *map;
  HsFileStamp     stamp;
  char            path[];   /* allocated with the entry */
} Entry;

static void
entry_free (Entry *entry)
{
  hs_attention_map_unref (entry->map);
  g_free (entry);
}

typedef struct {
  HsDataset     *dataset;
  HsInstance    *instance;       /* borrowed from dataset */
  HsImage       *image;          /* NULL: decoded in the worker */
  char          *model;
  char          *prompt;
  char          *key;
  char          *image_path;     /* the external backend's request */
  char          *stamp_path;     /* the image file, resolved (NULL: not there) */
  HsFileStamp    stamp;          /* of stamp_path before the image was read */
  gboolean       stamped;        /* FALSE: no stamp, the map is not kept */
  HsBackendExec *backend;
  double         compute_ms;     /* the model's work in the worker (wall) */
} Request;

static void
request_free (Request *request)
{
  g_clear_pointer (&request->dataset, hs_dataset_unref);
  g_clear_pointer (&request->image, hs_image_unref);
  g_free (request->model);
  g_free (request->prompt);
  g_free (request->key);
  g_free (request->image_path);
  g_free (request->stamp_path);
  g_clear_pointer (&request->backend, hs_backend_exec_unref);
  g_free (request);
}

/* ---- the LRU ------------------------------------------------------------- */

/* A map computed from the image file `request` stamped; without a stamp
 * (the file was not there) nothing is kept: no map enters unstamped. */
static void
lru_insert (HsLiveAttend   *self,
            const Request  *request,
            HsAttentionMap *map)
{
  const char *key = request->key;
  Entry *entry;
  char *owned;

  if (!request->stamped)
    return;
  g_mutex_lock (&self->lock);
  if (!g_hash_table_contains (self->maps, key))
    {
      while (g_queue_get_length (&self->lru) >= LRU_SIZE)
        g_hash_table_remove (self->maps, g_queue_pop_tail (&self->lru));
      owned = g_strdup (key);
      entry = g_malloc0 (sizeof (Entry) + strlen (request->stamp_path) + 1);
      entry->map = hs_attention_map_ref (map);
      strcpy (entry->path, request->stamp_path);
      entry->stamp = request->stamp;
      g_hash_table_insert (self->maps, owned, entry);
      g_queue_push_head (&self->lru, owned);
    }
  g_mutex_unlock (&self->lock);
}

/* Takes the stamp of the instance's image file, before it is read. */
static void
request_stamp (Request *request)
{
  if (request->stamp_path == NULL)
    request->stamp_path = hs_dataset_resolve_path (request->dataset, request->instance->image, NULL);
  request->stamped = request->stamp_path != NULL &&
                     hs_file_stamp_get (request->stamp_path, &request->stamp, NULL);
}

HsAttentionMap *
hs_live_attend_lookup (HsLiveAttend *self,
                       const char   *key)
{
  HsAttentionMap *map = NULL;
  Entry *entry;
  GList *link;
  HsFileStamp now;

  g_return_val_if_fail (HS_IS_LIVE_ATTEND (self), NULL);

  if (key == NULL)
    return NULL;
  g_mutex_lock (&self->lock);
  entry = g_hash_table_lookup (self->maps, key);
  link = entry != NULL ? g_queue_find_custom (&self->lru, key, (GCompareFunc) g_strcmp0) : NULL;
  if (entry != NULL && (!hs_file_stamp_get (entry->path, &now, NULL) ||
                        !hs_file_stamp_equal (&entry->stamp, &now)))
    {
      /* The image was replaced (or is gone) since: computed again. */
      if (link != NULL)
        g_queue_delete_link (&self->lru, link);
      g_hash_table_remove (self->maps, key);
      self->n_stale++;
      entry = NULL;
    }
  if (entry != NULL)
    {
      map = hs_attention_map_ref (entry->map);
      if (link != NULL)
        {
          g_queue_unlink (&self->lru, link);
          g_queue_push_head_link (&self->lru, link);
        }
    }
  g_mutex_unlock (&self->lock);
  return map;
}

void
hs_live_attend_clear (HsLiveAttend *self)
{
  g_return_if_fail (HS_IS_LIVE_ATTEND (self));

  g_mutex_lock (&self->lock);
  g_queue_clear (&self->lru);
  g_hash_table_remove_all (self->maps);
  g_mutex_unlock (&self->lock);
}

char *
hs_live_attend_make_key (HsDataset  *dataset,
                         HsInstance *instance,
                         const char *model,
                         const char *prompt)
{
  if (dataset == NULL || instance == NULL || model == NULL || prompt == NULL)
    return NULL;
  /* The dataset's folder too: instance ids repeat across datasets. */
  return g_strdup_printf ("%s\x1f%s\x1f%s\x1f%s", model, hs_dataset_get_root (dataset),
                          instance->id, prompt);
}

guint
hs_live_attend_get_n_stale (HsLiveAttend *self)
{
  guint n;

  g_return_val_if_fail (HS_IS_LIVE_ATTEND (self), 0);
  g_mutex_lock (&self->lock);
  n = self->n_stale;
  g_mutex_unlock (&self->lock);
  return n;
}

/* ---- names ---------------------------------------------------------------- */

char *
hs_live_attend_dup_user_command (GtkWindow *window)
{
  GtkApplication *app = window != NULL ? gtk_window_get_application (window) : NULL;
  char *command = NULL;

  if (app != NULL && HS_IS_APPLICATION (app))
    command = g_strdup (hs_application_get_backend_command (HS_APPLICATION (app)));
  else
    {
      g_autoptr(GSettings) settings = hs_settings_new ();

      if (settings != NULL)
        command = g_settings_get_string (settings, "backend-command");
    }
  if (command != NULL && *g_strstrip (command) == '\0')
    g_clear_pointer (&command, g_free);
  return command;
}

gboolean
hs_live_attend_is_exec (const char *model)
{
  return g_strcmp0 (model, HS_LIVE_EXEC_NAME) == 0;
}

char *
hs_live_attend_display_name (const char *model)
{
  if (hs_live_attend_is_exec (model))
    /* Translators: the user's own model program, in the header bar */
    return g_strdup (_("External backend (live)"));
  /* Translators: a model in the header bar that computes maps as you type */
  return g_strdup_printf (_("%s (live)"), model);
}

const char *
hs_live_attend_get_source_name (HsLiveAttend *self,
                                const char   *model)
{
  g_return_val_if_fail (HS_IS_LIVE_ATTEND (self), NULL);

  if (hs_live_attend_is_exec (model) && self->exec_command != NULL)
    return self->exec_command;
  return model;
}

HsModelCache *
hs_live_attend_get_model_cache (HsLiveAttend *self)
{
  g_return_val_if_fail (HS_IS_LIVE_ATTEND (self), NULL);
  return self->model_cache;
}

void
hs_live_attend_set_exec_command (HsLiveAttend *self,
                                 const char   *command)
{
  g_return_if_fail (HS_IS_LIVE_ATTEND (self));

  if (command != NULL && *command == '\0')
    command = NULL;
  if (g_strcmp0 (command, self->exec_command) == 0)
    return;
  g_free (self->exec_command);
  self->exec_command = g_strdup (command);
  /* A request in flight keeps its own reference to the old process. */
  g_clear_pointer (&self->exec_backend, hs_backend_exec_unref);
  hs_live_attend_clear (self);
}

const char *
hs_live_attend_get_exec_command (HsLiveAttend *self)
{
  g_return_val_if_fail (HS_IS_LIVE_ATTEND (self), NULL);
  return self->exec_command;
}

/* ---- requests --------------------------------------------------------------- */

static void
attend_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  HsLiveAttend *self = source_object;
  Request *request = task_data;
  GError *error = NULL;
  g_autoptr(HsModel) model = NULL;
  g_autoptr(HsImageFeatures) features = NULL;
  HsAttentionMap *map;
  gint64 start_us = g_get_monotonic_time ();

  if (request->backend != NULL)
    map = hs_backend_exec_attend (request->backend, request->image_path, request->prompt, TRUE,
                                  cancellable, &error);
  else
    {
      if (request->image == NULL)
        {
          /* before the decode: a file replaced meanwhile is a miss next time */
          request_stamp (request);
          request->image = hs_dataset_load_image (request->dataset, request->instance, &error);
        }
      start_us = g_get_monotonic_time ();   /* the model's cost, not the decoder's */
      if (request->image != NULL)
        model = hs_model_cache_get_model (self->model_cache, request->model, &error);
      if (model != NULL)
        features = hs_model_cache_get_features (self->model_cache, model, request->image,
                                                cancellable, &error);
      if (features == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      /* Attending is a few milliseconds: not worth starting once superseded. */
      if (g_task_return_error_if_cancelled (task))
        return;
      map = hs_model_attend (model, features, request->prompt, &error);
    }
  if (map == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  request->compute_ms = (g_get_monotonic_time () - start_us) / 1000.0;
  lru_insert (self, request, map);
  g_task_return_pointer (task, map, (GDestroyNotify) hs_attention_map_unref);
}

void
hs_live_attend_async (HsLiveAttend        *self,
                      HsDataset           *dataset,
                      HsInstance          *instance,
                      HsImage             *image,
                      const HsFileStamp   *image_stamp,
                      const char          *model,
                      const char          *prompt,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  Request *request;

  g_return_if_fail (HS_IS_LIVE_ATTEND (self));
  g_return_if_fail (dataset != NULL && instance != NULL);
  g_return_if_fail (model != NULL && prompt != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, hs_live_attend_async);
  /* A map finished just before being superseded still goes to the LRU. */
  g_task_set_check_cancellable (task, FALSE);
  request = g_new0 (Request, 1);
  request->dataset = hs_dataset_ref (dataset);
  request->instance = instance;
  request->image = image != NULL ? hs_image_ref (image) : NULL;
  request->model = g_strdup (model);
  request->prompt = g_strdup (prompt);
  request->key = hs_live_attend_make_key (dataset, instance, model, prompt);
  if (image != NULL)
    {
      /* The caller's image: its stamp from before its decode, else now. */
      request->stamp_path = hs_dataset_resolve_path (dataset, instance->image, NULL);
      if (image_stamp != NULL)
        {
          request->stamp = *image_stamp;
          request->stamped = request->stamp_path != NULL;
        }
      else
        request_stamp (request);
    }
  g_task_set_task_data (task, request, (GDestroyNotify) request_free);

  if (hs_live_attend_is_exec (model))
    {
      if (self->exec_command == NULL)
        {
          g_task_return_new_error (task, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND,
                                   _("No external backend command is set"));
          return;
        }
      if (self->exec_backend == NULL)
        {
          g_autoptr(GSettings) settings = hs_settings_new ();

          self->exec_backend = hs_backend_exec_new (self->exec_command, &error);
          /* A backend that hangs costs at most this, then shows as an error. */
          if (self->exec_backend != NULL && settings != NULL)
            hs_backend_exec_set_timeout (self->exec_backend,
                                         g_settings_get_uint (settings, "backend-timeout") * 1000);
        }
      if (self->exec_backend != NULL)
        request->image_path = hs_dataset_resolve_path (dataset, instance->image, &error);
      /* the backend reads the file itself, after this stamp */
      if (request->image_path != NULL)
        request_stamp (request);
      if (request->image_path == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      request->backend = hs_backend_exec_ref (self->exec_backend);
    }
  g_task_run_in_thread (task, attend_thread);
}

HsAttentionMap *
hs_live_attend_finish (HsLiveAttend  *self,
                       GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (HS_IS_LIVE_ATTEND (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hs_live_attend_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

const char *
hs_live_attend_result_get_key (GAsyncResult *result)
{
  Request *request;

  g_return_val_if_fail (G_IS_TASK (result), NULL);
  request = g_task_get_task_data (G_TASK (result));
  return request != NULL ? request->key : NULL;
}

double
hs_live_attend_result_get_compute_ms (GAsyncResult *result)
{
  Request *request;

  g_return_val_if_fail (G_IS_TASK (result), 0.0);
  request = g_task_get_task_data (G_TASK (result));
  return request != NULL ? request->compute_ms : 0.0;
}

/* ---- object ------------------------------------------------------------------ */

static void
hs_live_attend_finalize (GObject *object)
{
  HsLiveAttend *self = HS_LIVE_ATTEND (object);

  /* Workers hold a reference to `self`: none is running now. */
  g_clear_pointer (&self->exec_backend, hs_backend_exec_unref);
  g_free (self->exec_command);
  g_queue_clear (&self->lru);
  g_clear_pointer (&self->maps, g_hash_table_unref);
  g_mutex_clear (&self->lock);
  g_clear_pointer (&self->model_cache, hs_model_cache_free);
  G_OBJECT_CLASS (hs_live_attend_parent_class)->finalize (object);
}

static void
hs_live_attend_class_init (HsLiveAttendClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hs_live_attend_finalize;
}

static void
hs_live_attend_init (HsLiveAttend *self)
{
  self->model_cache = hs_model_cache_new ();
  g_mutex_init (&self->lock);
  self->maps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) entry_free);
  g_queue_init (&self->lru);
}

HsLiveAttend *
hs_live_attend_new (void)
{
  return g_object_new (HS_TYPE_LIVE_ATTEND, NULL);
}
