/* hs-attend-runner.c — attend a whole dataset with one model, resumable and sharded
 *
 * The plan is made once from the manifest as loaded: one task per map to
 * compute (a query, or a perturbed prompt), grouped by instance.  Workers
 * take whole instances (the image side of a built-in model runs once per
 * image), write each map atomically and hand its manifest entry to the
 * calling thread, which records the entries in batches: under the dataset's
 * writer lock it reads the manifest again, adds them and writes it
 * atomically.  A kill therefore loses at most the maps of the batch not yet
 * recorded (their files stay, unreferenced, and are written again), and the
 * next run's plan skips everything recorded. */
#include <heatscope/hs-attend-runner.h>
#include <heatscope/hs-backend-exec.h>
#include <heatscope/hs-dataset-writer.h>
#include <heatscope/hs-model.h>
#include <heatscope/hs-npy.h>
#include <heatscope/hs-stop-point.h>

#include "hs-i18n-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK (hs-attend-error-quark, hs_attend_error)

/* A batch is recorded this long after the last one (or, with
 * options.batch_maps, as soon as it holds that many maps): each batch reads
 * and writes the whole manifest, which for a large dataset costs far more
 * than a map, so the default bounds the manifest's share of the run and
 * what a kill loses (the maps of the last seconds, computed again). */
#define BATCH_SECONDS 2

/* The tasks of one instance are a GPtrArray of Task*, handed to one worker. */
typedef struct {
  guint       instance;  /* index */
  const char *query;     /* sentence id (the dataset's), or NULL for a perturbed (free) prompt */
  const char *sentence;  /* the query whose prompt this is (perturbed: the original's) */
  int         perturbation;  /* HsPerturbation, or -1 */
  const char *prompt;    /* the text attended (in Runner.strings) */
  const char *file;      /* relative path of the .npy (in Runner.strings) */
} Task;


/* What a worker hands back about a task: its map entry, or why it failed;
 * or (task NULL) the end of an instance. */
typedef struct {
  const Task *task;
  HsMapRef   *ref;
  char       *reason;
} Result;

typedef struct {
  const HsAttendOptions *options;
  HsDataset      *dataset;      /* as loaded at the start: the plan's source, read-only */
  const char     *name;
  HsModel        *model;        /* or NULL with backends */
  GAsyncQueue    *backends;     /* of HsBackendExec*: one per worker */
  GAsyncQueue    *results;      /* of Result* */
  GStringChunk   *strings;      /* the plan's texts */
  GCancellable   *cancellable;  /* the caller's, or NULL */
  gint            stop;         /* set when recording failed: the workers run out */
} Runner;

static gboolean
stopping (Runner *runner)
{
  return g_atomic_int_get (&runner->stop) || g_cancellable_is_cancelled (runner->cancellable);
}

static void
result_free (Result *result)
{
  hs_map_ref_free (result->ref);
  g_free (result->reason);
  g_free (result);
}

static void
push_result (Runner *runner, const Task *task, HsMapRef *ref, const char *reason)
{
  Result *result = g_new0 (Result, 1);

  result->task = task;
  result->ref = ref;
  result->reason = g_strdup (reason);
  g_async_queue_push (runner->results, result);
}

void
hs_attend_options_init (HsAttendOptions *options)
{
  static const HsAttendOptions defaults = {
    .queries = HS_ATTEND_QUERIES_ALL, .protocol = HS_PROTOCOL_DEFAULT, .jobs = 1,
  };

  g_return_if_fail (options != NULL);
  *options = defaults;
}

/* --- what computed the maps ----------------------------------------------- */

/* "model-sha256:HEX" or "backend-exec:COMMAND" (hs-dataset.h). */
static char *
computed_by (const HsAttendOptions *options, HsModel *model, GError **error)
{
  const char *path;
  HsFileRecord record;
  char hex[65];
  int fd;

  if (model == NULL)
    return g_strconcat ("backend-exec:", options->backend_command, NULL);
  path = hs_model_get_path (model);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   _("%s: cannot read the model file: %s"), path, g_strerror (saved));
      return NULL;
    }
  if (!hs_file_record_read_fd (fd, path, &record, error))
    {
      close (fd);
      return NULL;
    }
  close (fd);
  hs_file_record_sha256_to_hex (&record, hex);
  return g_strconcat ("model-sha256:", hex, NULL);
}

static gboolean
check_computed_by (HsDataset *dataset, const char *name, const char *ours, gboolean force,
                   GError **error)
{
  const char *recorded = hs_dataset_get_model_computed_by (dataset, name);

  if (recorded == NULL || strcmp (recorded, ours) == 0 || force)
    return TRUE;
  g_set_error (error, HS_ATTEND_ERROR, HS_ATTEND_ERROR_MODEL_CHANGED,
               _("%s: the maps of \"%s\" were computed by %s, not %s; choose another name, "
                 "or recompute them with --force"),
               hs_dataset_get_manifest_path (dataset), name, recorded, ours);
  return FALSE;
}

/* --- the plan --------------------------------------------------------------- */

static void
append_slug (GString *out, const char *text, guint max)
{
  guint n = 0;

  for (const char *p = text; *p != '\0' && n < max; p++, n++)
    g_string_append_c (out, g_ascii_isalnum (*p) || *p == '-' || *p == '_' ? *p : '_');
}

/* maps/INSTANCE-QUERY-NAME-HASH.npy: readable, and unique through a hash of
 * everything that identifies the map (ids may collide once slugged), of
 * what computed it and of the file it replaces (so a forced run never
 * rewrites a file the manifest records). */
static char *
map_file_name (const HsInstance *instance, const char *query, const char *prompt,
               const char *name, const char *source, const char *replaced)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  GString *file = g_string_new ("maps/");
  const char *parts[] = { instance->id, query ? query : "", prompt, name, source,
                          replaced ? replaced : "" };

  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    g_checksum_update (checksum, (const guchar *) parts[i], strlen (parts[i]) + 1);
  append_slug (file, instance->id, 40);
  g_string_append_c (file, '-');
  if (query != NULL)
    append_slug (file, query, 24);
  else
    g_string_append (file, "prompt");
  g_string_append_c (file, '-');
  append_slug (file, name, 24);
  g_string_append_printf (file, "-%.10s.npy", g_checksum_get_string (checksum));
  return g_string_free (file, FALSE);
}

static gboolean
query_selected (const HsSentence *sentence, HsAttendQueries queries)
{
  gboolean is_class = g_strcmp0 (sentence->kind, "class") == 0;

  switch (queries)
    {
    case HS_ATTEND_QUERIES_SENTENCES:
      return !is_class;
    case HS_ATTEND_QUERIES_LABELS:
      return is_class;
    default:
      return TRUE;
    }
}

static void
add_task (Runner *runner, GPtrArray *job, guint index, const HsSentence *sentence,
          int perturbation, const char *prompt, const char *name, const char *source,
          const HsMapRef *replaced)
{
  Task *task = g_new0 (Task, 1);
  const char *query = perturbation < 0 ? sentence->id : NULL;
  const HsInstance *instance = hs_dataset_get_instance (runner->dataset, index);
  g_autofree char *file = map_file_name (instance, query, prompt, name, source,
                                         replaced != NULL ? replaced->file : NULL);

  task->instance = index;
  task->query = query;
  task->sentence = sentence->id;
  task->perturbation = perturbation;
  task->prompt = g_string_chunk_insert (runner->strings, prompt);
  task->file = g_string_chunk_insert (runner->strings, file);
  g_ptr_array_add (job, task);
}

/* The tasks of one instance; counts what is skipped or not applicable. */
static GPtrArray *
plan_instance (Runner *runner, HsPerturbContext *perturb, guint index, const char *source,
               HsAttendCounts *counts)
{
  const HsAttendOptions *options = runner->options;
  HsInstance *instance = hs_dataset_get_instance (runner->dataset, index);
  GPtrArray *job = g_ptr_array_new_with_free_func (g_free);
  /* Texts whose map exists or is planned: a perturbed prompt equal to one
   * of them is found by hs_perturbed_find_map through that map. */
  g_autoptr(GHashTable) covered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);


  for (guint s = 0; s < instance->sentences->len; s++)
    {
      HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
      HsMapRef *existing;

      if (!query_selected (sentence, options->queries))
        continue;
      counts->total++;
      existing = hs_instance_find_map (instance, runner->name, sentence->id);
      if (existing != NULL && !options->force)
        counts->skipped++;
      else
        add_task (runner, job, index, sentence, -1, sentence->text, runner->name, source, existing);
      g_hash_table_add (covered, g_strdup (sentence->text));
    }

  for (guint p = 0; p < options->n_perturbations; p++)
    {
      HsPerturbation perturbation = options->perturbations[p];

      if (hs_perturbation_is_target (perturbation))
        continue;
      for (guint s = 0; s < instance->sentences->len; s++)
        {
          HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
          g_autoptr(HsPerturbed) perturbed = NULL;
          HsMapRef *existing;

          if (!query_selected (sentence, options->queries))
            continue;
          perturbed = hs_perturb (perturb, instance, sentence, perturbation, options->protocol,
                                  options->perturb_seed, NULL);
          if (perturbed == NULL)
            {
              counts->not_applicable++;
              continue;
            }
          if (g_hash_table_contains (covered, perturbed->prompt))
            continue;
          counts->total++;
          existing = hs_instance_find_map_by_prompt (instance, runner->name, perturbed->prompt);
          if (existing == NULL)
            existing = hs_perturbed_find_map (perturb, instance, sentence, perturbed,
                                              runner->name, NULL);
          if (existing != NULL && !options->force)
            counts->skipped++;
          else
            add_task (runner, job, index, sentence, (int) perturbation, perturbed->prompt, runner->name,
                      source, existing != NULL && existing->query == NULL ? existing : NULL);
          g_hash_table_add (covered, g_strdup (perturbed->prompt));
        }
    }
  return job;
}

/* --- the workers ------------------------------------------------------------ */

static void
attend_instance (Runner *runner, GPtrArray *job)
{
  guint index = ((Task *) g_ptr_array_index (job, 0))->instance;
  HsInstance *instance = hs_dataset_get_instance (runner->dataset, index);
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImageFeatures) features = NULL;
  g_autofree char *image_path = NULL;
  g_autoptr(GError) image_error = NULL;
  HsBackendExec *backend = NULL;

  if (stopping (runner))
    return;
  if (runner->model != NULL)
    {
      image = hs_dataset_load_image (runner->dataset, instance, &image_error);
      if (image != NULL)
        features = hs_model_encode_image (runner->model, image, runner->cancellable,
                                          &image_error);
    }
  else
    {
      image_path = hs_dataset_resolve_path (runner->dataset, instance->image, &image_error);
      backend = g_async_queue_pop (runner->backends);
    }

  for (guint t = 0; t < job->len; t++)
    {
      Task *task = g_ptr_array_index (job, t);
      g_autoptr(HsAttentionMap) map = NULL;
      g_autoptr(GError) error = NULL;

      if (stopping (runner))
        break;
      if (image_error != NULL)
        {
          push_result (runner, task, NULL, image_error->message);
          continue;
        }
      if (runner->model != NULL)
        map = hs_model_attend (runner->model, features, task->prompt, &error);
      else
        map = hs_backend_exec_attend (backend, image_path, task->prompt, runner->options->tokens,
                                      runner->cancellable, &error);
      if (map != NULL)
        {
          g_autofree char *path = g_build_filename (hs_dataset_get_root (runner->dataset),
                                                    task->file, NULL);

          if (!hs_attention_map_save_npy (map, path, runner->options->tokens, &error))
            g_clear_pointer (&map, hs_attention_map_unref);
        }
      if (map == NULL)
        {
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            push_result (runner, task, NULL, error->message);
          continue;
        }
      /* A kill test stops here: the map's file is whole, the manifest does
       * not name it yet. */
      hs_stop_point_file ("attend-map-written", task->file);
      push_result (runner, task,
                   hs_map_ref_new_for_map (map, runner->name, task->query, task->file,
                                           task->query == NULL ? task->prompt : NULL,
                                           runner->options->tokens),
                   NULL);
    }
  if (backend != NULL)
    g_async_queue_push (runner->backends, backend);
}

static void
worker (gpointer data, gpointer user_data)
{
  Runner *runner = user_data;

  attend_instance (runner, data);
  push_result (runner, NULL, NULL, NULL);
}

/* --- recording -------------------------------------------------------------- */

/* Adds `ref` (taken) to the instance, replacing NAME's map of the same query
 * or prompt (a forced run) — or dropping `ref` when a map is there and the
 * run is not forced (another run recorded it meanwhile). */
static void
merge_ref (HsInstance *instance, HsMapRef *ref, gboolean force)
{
  for (guint i = 0; i < instance->maps->len; i++)
    {
      HsMapRef *old = g_ptr_array_index (instance->maps, i);

      if (g_strcmp0 (old->model, ref->model) != 0)
        continue;
      if (ref->query != NULL ? g_strcmp0 (old->query, ref->query) == 0
                             : old->query == NULL && g_strcmp0 (old->prompt, ref->prompt) == 0)
        {
          if (!force)
            {
              hs_map_ref_free (ref);
              return;
            }
          g_ptr_array_remove_index (instance->maps, i);
          break;
        }
    }
  hs_instance_add_map (instance, ref);
}

/* Records `pending` (HsMapRef* by instance id) in the manifest under the lock. */
static gboolean
record_batch (Runner *runner, GPtrArray *pending, const char *source, GError **error)
{
  const char *root = hs_dataset_get_root (runner->dataset);
  g_autoptr(HsDatasetLock) lock = NULL;
  g_autoptr(HsDataset) fresh = NULL;

  if (pending->len == 0)
    return TRUE;
  lock = hs_dataset_lock_acquire_wait (root, error);
  if (lock == NULL)
    return FALSE;
  /* A kill test may stop here, holding the lock. */
  hs_stop_point_file ("dataset-locked", root);
  /* Read again under the lock: another shard may have recorded maps since. */
  fresh = hs_dataset_load (root, error);
  if (fresh == NULL)
    return FALSE;
  if (!check_computed_by (fresh, runner->name, source, runner->options->force, error))
    return FALSE;
  hs_dataset_set_model_computed_by (fresh, runner->name, source);
  for (guint i = 0; i < pending->len; i++)
    {
      Result *result = g_ptr_array_index (pending, i);
      const char *id = hs_dataset_get_instance (runner->dataset, result->task->instance)->id;
      HsInstance *instance = hs_dataset_find_instance (fresh, id);

      if (instance == NULL)
        {
          g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                       _("%s: instance \"%s\" is gone from the manifest (another writer "
                         "replaced the dataset)"),
                       hs_dataset_get_manifest_path (fresh), id);
          return FALSE;
        }
      merge_ref (instance, g_steal_pointer (&result->ref), runner->options->force);
    }
  if (!hs_dataset_save_locked (fresh, lock, error))
    return FALSE;
  g_ptr_array_set_size (pending, 0);
  return TRUE;
}

/* --- the run ---------------------------------------------------------------- */

static void
report_problem (Runner *runner, const Result *result)
{
  const HsInstance *instance = hs_dataset_get_instance (runner->dataset, result->task->instance);
  const Task *task = result->task;
  g_autofree char *label = NULL;

  if (runner->options->problem == NULL)
    return;
  label = task->perturbation < 0
          ? g_strdup (task->sentence)
          : g_strdup_printf ("%s (%s)", task->sentence,
                             hs_perturbation_to_string ((HsPerturbation) task->perturbation));
  runner->options->problem (instance->id, instance->image, label, result->reason,
                            runner->options->user_data);
}

static gboolean
check_options (const HsAttendOptions *options, GError **error)
{
  if ((options->model == NULL) == (options->backend_command == NULL))
    {
      g_set_error (error, HS_ATTEND_ERROR, HS_ATTEND_ERROR_INVALID,
                   _("give either a model or a backend command"));
      return FALSE;
    }
  if (options->backend_command != NULL && (options->name == NULL || options->name[0] == '\0'))
    {
      g_set_error (error, HS_ATTEND_ERROR, HS_ATTEND_ERROR_INVALID,
                   _("a backend needs a model name for its maps"));
      return FALSE;
    }
  if (options->shard_n > 0 && (options->shard_k < 1 || options->shard_k > options->shard_n))
    {
      g_set_error (error, HS_ATTEND_ERROR, HS_ATTEND_ERROR_INVALID,
                   _("shard %u of %u does not exist"), options->shard_k, options->shard_n);
      return FALSE;
    }
  return TRUE;
}

/* Refuses a maps/ that is not a folder of its own (a symlink planted there
 * would have the maps written elsewhere); creates it when missing. */
static gboolean
prepare_maps_folder (HsDataset *dataset, GError **error)
{
  g_autofree char *maps = g_build_filename (hs_dataset_get_root (dataset), "maps", NULL);
  struct stat st;

  if (mkdir (maps, 0755) != 0 && errno != EEXIST)
    {
      int saved = errno;
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   _("%s: cannot create the folder: %s"), maps, g_strerror (saved));
      return FALSE;
    }
  if (lstat (maps, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH,
                   _("%s: is not a folder (a symbolic link or a file); maps are written only "
                     "into the dataset's own maps folder"), maps);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_attend_dataset (const char *dataset_path, const HsAttendOptions *options,
                   GCancellable *cancellable, HsAttendCounts *counts_out, GError **error)
{
  g_autoptr(GStringChunk) strings = g_string_chunk_new (4096);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsModel) model = NULL;
  g_autoptr(GAsyncQueue) results = g_async_queue_new_full ((GDestroyNotify) result_free);
  g_autoptr(GAsyncQueue) backends = g_async_queue_new_full ((GDestroyNotify) hs_backend_exec_unref);
  g_autoptr(HsPerturbContext) perturb = NULL;
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GPtrArray) pending = g_ptr_array_new_with_free_func ((GDestroyNotify) result_free);
  g_autofree char *source = NULL;
  g_autoptr(GError) record_error = NULL;
  HsAttendCounts counts = { 0 };
  Runner runner = { 0 };
  GThreadPool *pool = NULL;
  guint n_workers, first, last, ends = 0;
  gint64 batch_start;

  g_return_val_if_fail (dataset_path != NULL && options != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_options (options, error))
    return FALSE;
  dataset = hs_dataset_load (dataset_path, error);
  if (dataset == NULL)
    return FALSE;
  if (options->model != NULL)
    {
      model = hs_model_load_builtin (options->model, error);
      if (model == NULL)
        return FALSE;
    }
  source = computed_by (options, model, error);
  if (source == NULL)
    return FALSE;
  runner.options = options;
  runner.dataset = dataset;
  runner.name = options->name != NULL ? options->name : hs_model_get_name (model);
  runner.model = model;
  runner.cancellable = cancellable;
  runner.strings = strings;
  runner.results = results;
  runner.backends = backends;
  if (!check_computed_by (dataset, runner.name, source, options->force, error) ||
      !prepare_maps_folder (dataset, error))
    return FALSE;

  {
    guint64 n = hs_dataset_get_n_instances (dataset);
    guint k = options->shard_n > 0 ? options->shard_k : 1, of = MAX (1u, options->shard_n);

    /* The same blocks as `metrics --shard`. */
    first = (guint) ((k - 1) * n / of);
    last = (guint) (k * n / of);
  }
  if (options->n_perturbations > 0)
    perturb = hs_perturb_context_new (dataset);
  for (guint i = first; i < last; i++)
    {
      GPtrArray *job = plan_instance (&runner, perturb, i, source, &counts);

      if (job->len > 0)
        g_ptr_array_add (jobs, job);
      else
        g_ptr_array_unref (job);
    }

  n_workers = CLAMP (options->jobs, 1, MAX (1u, jobs->len));
  if (model == NULL)
    {
      for (guint w = 0; w < n_workers; w++)
        {
          HsBackendExec *backend = hs_backend_exec_new (options->backend_command, error);

          if (backend == NULL)
            return FALSE;
          if (options->backend_timeout_ms > 0)
            hs_backend_exec_set_timeout (backend, options->backend_timeout_ms);
          g_async_queue_push (runner.backends, backend);
        }
    }

  if (options->progress != NULL)
    options->progress (&counts, options->user_data);
  if (jobs->len > 0)
    {
      pool = g_thread_pool_new (worker, &runner, (gint) n_workers, TRUE, NULL);
      for (guint j = 0; j < jobs->len; j++)
        g_thread_pool_push (pool, g_ptr_array_index (jobs, j), NULL);
    }

  batch_start = g_get_monotonic_time ();
  while (ends < jobs->len)
    {
      Result *result = g_async_queue_timeout_pop (runner.results, G_USEC_PER_SEC / 2);

      if (result != NULL && result->task == NULL)
        {
          ends++;
          g_clear_pointer (&result, result_free);
        }
      else if (result != NULL && result->ref == NULL)
        {
          counts.failed++;
          report_problem (&runner, result);
          result_free (result);
        }
      else if (result != NULL)
        {
          counts.computed++;
          g_ptr_array_add (pending, result);
        }
      if (result != NULL && options->progress != NULL)
        options->progress (&counts, options->user_data);
      /* Record in batches; after a failure to record, only finish the
       * workers (their maps are written again by the next run). */
      if (record_error == NULL &&
          ((options->batch_maps > 0 && pending->len >= options->batch_maps) ||
           (pending->len > 0 && g_get_monotonic_time () - batch_start >= BATCH_SECONDS * G_USEC_PER_SEC)))
        {
          if (!record_batch (&runner, pending, source, &record_error))
            g_atomic_int_set (&runner.stop, 1);
          batch_start = g_get_monotonic_time ();
        }
    }
  if (pool != NULL)
    g_thread_pool_free (pool, FALSE, TRUE);
  if (record_error == NULL)
    record_batch (&runner, pending, source, &record_error);

  if (counts_out != NULL)
    *counts_out = counts;
  if (record_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&record_error));
      return FALSE;
    }
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}
