/* hs-results-model.c — the results table's rows: scored off the main
 * thread, filtered and sorted through an index array */
#include <math.h>
#include <string.h>

#include <heatscope/hs-file-stamp.h>

#include "hs-results-model.h"
#include "hs-results-slot.h"
#include "hs-results-sort.h"

/* Batches: the first after the first instance (rows on screen at once),
 * then at most every BATCH_US so that re-sorting 10⁵ rows per batch leaves
 * the main thread free most of the time. */
#define FIRST_BATCHES_US (G_USEC_PER_SEC / 10)
#define BATCH_US         (G_USEC_PER_SEC / 2)
/* More instances changed on disk than this: the table is scored again from
 * the start (with progress), not instance by instance in place. */
#define MAX_RESCORED_IN_PLACE 16

struct _HsResultsModel
{
  GObject           parent_instance;

  HsDataset        *dataset;
  GStrv             models;
  gboolean          perturbed;
  HsPerturbation    perturbation;
  HsPerturbContext *perturb;
  HsScoreRowsJob    job;
  int               wrong_side_column;   /* value column of wrong_side, −1 when none */

  GPtrArray        *rows;        /* HsResultsRow*, dataset order */
  double           *keys;        /* column-major: the subsets, then every value column,
                                  * key_capacity each, the first n_key_rows filled: the
                                  * number sorts' keys in rows order */
  guint             n_key_rows, key_capacity;
  GArray           *view;        /* guint indices into rows: the visible rows, in order */
  GPtrArray        *slots;       /* HsResultsSlot* by position, made when first asked for */
  /* By instance, written by the worker before it scores it (read on the
   * main thread for the first n_done): the stamps of the files its rows
   * were scored from (GArray of HsFileStamp), its rows that failed and
   * the first of its problems (NULL when none): the status line names the
   * first instance's that has one, so an instance scored again replaces or
   * clears what it said. */
  GPtrArray        *stamps;
  guint            *failed;
  char            **problems;
  guint             n_rescored;  /* instances scored again because a file changed */
  GCancellable     *check;       /* of the files' check in a worker, while it runs */
  guint             n_rescoring; /* instances that check's worker scores again now */
  gint              n_rescoring_posted;   /* the same, written by that worker (atomic) */
  gboolean          stale;       /* the check found too many changed: score from the start */
  guint             n_instances, n_done, n_failed;
  gboolean          started, complete;
  GCancellable     *cancellable;
  GMutex            lock;
  GCond             cond;
  gboolean          running;       /* a worker (scoring or check) has not returned yet (under lock) */

  int               sort_column;
  gboolean          descending;
  guint             filter_subsets;
  int               filter_model;    /* index in models, −1 = any, −2 = a model without rows */
  gboolean          filter_wrong_side;
  char             *filter_text;     /* casefolded, NULL = any */
};

enum {
  PROP_0,
  PROP_PROGRESS,
  PROP_COMPLETE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GType
list_get_item_type (GListModel *list)
{
  return HS_TYPE_RESULTS_SLOT;
}

static guint
list_get_n_items (GListModel *list)
{
  return HS_RESULTS_MODEL (list)->view->len;
}

static void
slot_free (gpointer slot)
{
  if (slot != NULL)
    g_object_unref (slot);
}

/* The slot of `position`, showing the row there now. */
static gpointer
list_get_item (GListModel *list, guint position)
{
  HsResultsModel *self = HS_RESULTS_MODEL (list);
  HsResultsRow *row = hs_results_model_get_row (self, position);
  HsResultsSlot *slot;

  if (row == NULL)
    return NULL;
  while (self->slots->len <= position)
    g_ptr_array_add (self->slots, NULL);
  slot = g_ptr_array_index (self->slots, position);
  if (slot == NULL)
    self->slots->pdata[position] = slot = hs_results_slot_new ();
  hs_results_slot_set_row (slot, row);
  return g_object_ref (slot);
}

static void
list_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = list_get_item_type;
  iface->get_n_items = list_get_n_items;
  iface->get_item = list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (HsResultsModel, hs_results_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_iface_init))

/* ---- filter and sort ----------------------------------------------------- */

static gboolean
row_visible (HsResultsModel *self, HsResultsRow *row)
{
  const HsScoreRow *values = hs_results_row_get_values (row);

  if (self->filter_subsets != 0 && (values->subsets & self->filter_subsets) != self->filter_subsets)
    return FALSE;
  if (self->filter_model != -1 && (int) values->model != self->filter_model)
    return FALSE;
  if (self->filter_wrong_side &&
      (self->wrong_side_column < 0 || values->values[self->wrong_side_column] != 1))
    return FALSE;
  return self->filter_text == NULL || hs_results_row_matches (row, self->filter_text);
}

/* The number columns' keys of the rows that arrived since the last call,
 * copied into `keys` (its capacity doubles as rows arrive, so a batch
 * costs its own rows). */
static void
append_keys (HsResultsModel *self)
{
  guint n_cols = 1 + self->job.n_columns, n_old = self->n_key_rows, n_new = self->rows->len;

  if (n_new > self->key_capacity)
    {
      guint grown = MAX (n_new, MAX (1024, self->key_capacity * 2));
      double *keys = g_new (double, (gsize) grown * n_cols);

      for (guint c = 0; c < n_cols && n_old > 0; c++)
        memcpy (keys + (gsize) c * grown, self->keys + (gsize) c * self->key_capacity,
                sizeof (double) * n_old);
      g_free (self->keys);
      self->keys = keys;
      self->key_capacity = grown;
    }
  for (guint i = n_old; i < n_new; i++)
    {
      const HsScoreRow *values = hs_results_row_get_values (g_ptr_array_index (self->rows, i));

      self->keys[i] = values->subsets;
      for (guint c = 0; c < self->job.n_columns; c++)
        self->keys[(gsize) (c + 1) * self->key_capacity + i] = values->values[c];
    }
  self->n_key_rows = n_new;
}

/* `view` (distinct indices into rows) back in ascending index order, in
 * one pass over a bitmap of the rows. */
static void
index_order (HsResultsModel *self, GArray *view)
{
  g_autofree guint8 *shown = g_malloc0 (MAX (1, self->rows->len));
  guint j = 0;

  for (guint i = 0; i < view->len; i++)
    shown[g_array_index (view, guint, i)] = 1;
  for (guint i = 0; i < self->rows->len; i++)
    if (shown[i])
      g_array_index (view, guint, j++) = i;
}

/* The visible rows anew: `refilter` runs the filter over every row (a new
 * filter or new rows), else only the order of the visible rows changes (a
 * new sort: no pass over the hidden rows).  Then tells the list's users. */
static void
refresh_view (HsResultsModel *self, gboolean refilter)
{
  guint old_len = self->view->len;

  if (refilter)
    {
      g_array_set_size (self->view, 0);
      for (guint i = 0; i < self->rows->len; i++)
        if (row_visible (self, g_ptr_array_index (self->rows, i)))
          g_array_append_val (self->view, i);
    }
  else
    index_order (self, self->view);
  if (self->sort_column >= HS_RESULTS_COLUMN_SUBSETS)
    hs_results_sort_numbers (self->view, self->keys + (gsize) (self->sort_column - HS_RESULTS_COLUMN_SUBSETS)
                                                      * self->key_capacity,
                             self->descending);
  else if (self->sort_column != HS_RESULTS_COLUMN_NONE)
    hs_results_sort_texts (self->view, self->rows, self->sort_column, self->descending);
  if (old_len > 0 || self->view->len > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, old_len, self->view->len);
}

void
hs_results_model_set_sort (HsResultsModel *self,
                           int             column,
                           gboolean        descending)
{
  g_return_if_fail (HS_IS_RESULTS_MODEL (self));
  g_return_if_fail (column >= HS_RESULTS_COLUMN_NONE &&
                    column < HS_RESULTS_COLUMN_VALUES + (int) self->job.n_columns);

  if (column == self->sort_column && descending == self->descending)
    return;
  self->sort_column = column;
  self->descending = descending;
  refresh_view (self, FALSE);
}

void
hs_results_model_set_filter (HsResultsModel *self,
                             guint           subsets,
                             const char     *model,
                             gboolean        wrong_side,
                             const char     *text)
{
  g_return_if_fail (HS_IS_RESULTS_MODEL (self));

  self->filter_subsets = subsets;
  self->filter_model = -1;
  if (model != NULL)
    {
      self->filter_model = -2;
      for (guint m = 0; self->models[m] != NULL; m++)
        if (g_str_equal (self->models[m], model))
          self->filter_model = (int) m;
    }
  self->filter_wrong_side = wrong_side;
  g_clear_pointer (&self->filter_text, g_free);
  if (text != NULL && *text != '\0')
    self->filter_text = g_utf8_casefold (text, -1);
  refresh_view (self, TRUE);
}

HsResultsRow *
hs_results_model_get_row (HsResultsModel *self,
                          guint           position)
{
  g_return_val_if_fail (HS_IS_RESULTS_MODEL (self), NULL);

  if (position >= self->view->len)
    return NULL;
  return g_ptr_array_index (self->rows, g_array_index (self->view, guint, position));
}

char *
hs_results_model_to_csv (HsResultsModel *self)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (HS_IS_RESULTS_MODEL (self), NULL);

  hs_score_rows_append_csv_header (&self->job, out);
  for (guint i = 0; i < self->view->len; i++)
    {
      HsResultsRow *row = hs_results_model_get_row (self, i);

      hs_score_rows_append_csv_row (&self->job, out, hs_results_row_get_instance (row),
                                    hs_results_row_get_sentence (row),
                                    hs_results_row_get_values (row));
    }
  return g_string_free (out, FALSE);
}

/* ---- scoring on a worker thread ------------------------------------------ */

typedef struct {
  HsResultsModel *model;
  GPtrArray      *rows;       /* HsResultsRow* */
  guint           n_done;     /* instances scored, this batch included */
  guint           n_failed;
} Batch;

static void
batch_free (gpointer data)
{
  Batch *batch = data;

  g_object_unref (batch->model);
  g_ptr_array_unref (batch->rows);
  g_free (batch);
}

static Batch *
batch_new (HsResultsModel *model)
{
  Batch *batch = g_new0 (Batch, 1);

  batch->model = g_object_ref (model);
  batch->rows = g_ptr_array_new_with_free_func (g_object_unref);
  return batch;
}

/* From a worker: `func` (data) runs on the main thread (`context`).  Not
 * g_main_context_invoke: it would run `func` on the worker whenever the
 * main thread is not iterating. */
static void
post_to_main (GMainContext *context, int priority, GSourceFunc func, gpointer data, GDestroyNotify destroy)
{
  GSource *idle = g_idle_source_new ();

  g_source_set_priority (idle, priority);
  g_source_set_callback (idle, func, data, destroy);
  g_source_attach (idle, context);
  g_source_unref (idle);
}

/* Main thread: the batch's rows join the model. */
static gboolean
batch_arrived (gpointer data)
{
  Batch *batch = data;
  HsResultsModel *self = batch->model;
  guint first = self->rows->len;

  if (g_cancellable_is_cancelled (self->cancellable))
    return G_SOURCE_REMOVE;
  for (guint i = 0; i < batch->rows->len; i++)
    g_ptr_array_add (self->rows, g_object_ref (g_ptr_array_index (batch->rows, i)));
  append_keys (self);
  self->n_done = batch->n_done;
  self->n_failed += batch->n_failed;
  if (self->sort_column == HS_RESULTS_COLUMN_NONE)
    {
      /* Dataset order: the new rows go at the end, nothing else moves. */
      guint old_len = self->view->len;

      for (guint i = first; i < self->rows->len; i++)
        if (row_visible (self, g_ptr_array_index (self->rows, i)))
          g_array_append_val (self->view, i);
      if (self->view->len > old_len)
        g_list_model_items_changed (G_LIST_MODEL (self), old_len, 0, self->view->len - old_len);
    }
  else
    refresh_view (self, TRUE);
  self->complete = self->n_done == self->n_instances;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
  if (self->complete)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPLETE]);
  return G_SOURCE_REMOVE;
}

/* The stamps of every file instance `index`'s rows can be scored from: its
 * image, its maps (the perturbed ones too) and its regions' masks, in the
 * manifest's order; a file not there has a zero stamp.  One stat a file. */
static GArray *
instance_stamps (HsDataset *dataset, guint index)
{
  const HsInstance *instance = hs_dataset_get_instance (dataset, index);
  GArray *stamps = g_array_new (FALSE, TRUE, sizeof (HsFileStamp));
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  g_ptr_array_add (files, instance->image);
  for (guint i = 0; instance->maps != NULL && i < instance->maps->len; i++)
    g_ptr_array_add (files, ((HsMapRef *) g_ptr_array_index (instance->maps, i))->file);
  for (guint i = 0; instance->regions != NULL && i < instance->regions->len; i++)
    g_ptr_array_add (files, ((HsRegion *) g_ptr_array_index (instance->regions, i))->mask);
  g_array_set_size (stamps, files->len);
  for (guint i = 0; i < files->len; i++)
    if (files->pdata[i] != NULL)
      hs_dataset_stamp_file (dataset, files->pdata[i], &g_array_index (stamps, HsFileStamp, i));
  return stamps;
}

static void
stamps_free (gpointer stamps)
{
  if (stamps != NULL)   /* (an instance not scored yet) */
    g_array_unref (stamps);
}

static gboolean
same_stamps (GArray *a, GArray *b)
{
  if (a == NULL || b == NULL || a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    if (!hs_file_stamp_equal (&g_array_index (a, HsFileStamp, i), &g_array_index (b, HsFileStamp, i)))
      return FALSE;
  return TRUE;
}

/* Scores instance `index` into `rows` (HsResultsRow*); returns its rows
 * that failed and sets `problem` to the first of its problems (NULL when
 * none).  Any thread: it reads the model's job, writes nothing of it. */
static guint
score_instance (HsResultsModel *self, guint index, GPtrArray *rows, char **problem)
{
  HsInstance *instance = hs_dataset_get_instance (self->dataset, index);
  HsInstanceRows scored;
  guint n_failed;

  hs_score_rows_instance (&self->job, index, &scored);
  for (guint r = 0; r < scored.rows->len; r++)
    {
      HsScoreRow *row = g_ptr_array_index (scored.rows, r);
      HsSentence *sentence = g_ptr_array_index (instance->sentences, row->sentence);

      g_ptr_array_add (rows, hs_results_row_new (index, instance->id, sentence->id, sentence->text,
                                                 self->models[row->model], row));
    }
  g_ptr_array_set_free_func (scored.rows, NULL);   /* the results rows own them now */
  n_failed = scored.n_failed;
  *problem = scored.messages->len > 0 ? g_strdup (g_ptr_array_index (scored.messages, 0)) : NULL;
  hs_instance_rows_clear (&scored);
  return n_failed;
}

/* Instance `index`'s failed rows and problem, kept for the status line. */
static void
keep_problem (HsResultsModel *self, guint index, guint n_failed, char *problem)
{
  self->failed[index] = n_failed;
  g_free (self->problems[index]);
  self->problems[index] = problem;
}

/* An instance whose files changed since it was scored, as the check's
 * worker found it and scored it again. */
typedef struct {
  GArray    *stamps;     /* its files' stamps, taken before the scoring */
  GPtrArray *rows;       /* HsResultsRow*, NULL when not scored (too many changed) */
  guint      n_failed;
  char      *problem;
} Changed;

static void
changed_free (gpointer data)
{
  Changed *changed = data;

  if (changed == NULL)
    return;
  stamps_free (changed->stamps);
  if (changed->rows != NULL)
    g_ptr_array_unref (changed->rows);
  g_free (changed->problem);
  g_free (changed);
}

/* Main thread: instance `index`'s rows scored again (`changed`) in place of
 * its old ones. */
static void
replace_instance (HsResultsModel *self, guint index, Changed *changed)
{
  guint first = 0, end;

  self->n_failed -= self->failed[index];
  self->n_failed += changed->n_failed;
  keep_problem (self, index, changed->n_failed, g_steal_pointer (&changed->problem));
  stamps_free (g_ptr_array_index (self->stamps, index));   /* the stamps from before */
  g_ptr_array_index (self->stamps, index) = g_steal_pointer (&changed->stamps);
  /* the rows are in dataset order: the instance's are one run */
  while (first < self->rows->len &&
         hs_results_row_get_instance_index (g_ptr_array_index (self->rows, first)) < index)
    first++;
  for (end = first; end < self->rows->len &&
                    hs_results_row_get_instance_index (g_ptr_array_index (self->rows, end)) == index; end++)
    ;
  g_ptr_array_remove_range (self->rows, first, end - first);
  for (guint i = 0; i < changed->rows->len; i++)
    g_ptr_array_insert (self->rows, (gint) (first + i), g_object_ref (g_ptr_array_index (changed->rows, i)));
  self->n_rescored++;
}

/* Main thread: the check's worker scores instances again now (the status
 * line says how many); too late, once that check is done, nothing (a new
 * check starts with none posted). */
static gboolean
rescoring_started (gpointer data)
{
  HsResultsModel *self = data;

  if (self->check == NULL)
    return G_SOURCE_REMOVE;
  self->n_rescoring = (guint) g_atomic_int_get (&self->n_rescoring_posted);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
  return G_SOURCE_REMOVE;
}

/* A worker: one path resolution and one stat per file of every instance
 * (about 0.5 s per 10⁵ files, docs/reliability.md); then, when no more than
 * MAX_RESCORED_IN_PLACE instances have a changed file, scores those again
 * (the main thread told first).  Returns by instance a Changed when one of
 * its files changed, else NULL.  The model's rows, stamps and problems are
 * only read: the main thread puts the new rows in (check_done). */
static void
check_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  HsResultsModel *self = source;
  GPtrArray *now = g_ptr_array_new_full (self->n_done, changed_free);
  guint n_changed = 0;

  for (guint i = 0; i < self->n_done && !g_cancellable_is_cancelled (cancellable); i++)
    {
      GArray *stamps = instance_stamps (self->dataset, i);
      Changed *changed = NULL;

      if (same_stamps (stamps, g_ptr_array_index (self->stamps, i)))
        g_clear_pointer (&stamps, g_array_unref);
      else
        {
          changed = g_new0 (Changed, 1);
          changed->stamps = stamps;
          n_changed++;
        }
      g_ptr_array_add (now, changed);
    }
  if (n_changed > 0 && n_changed <= MAX_RESCORED_IN_PLACE && !g_cancellable_is_cancelled (cancellable))
    {
      g_atomic_int_set (&self->n_rescoring_posted, (gint) n_changed);
      /* before check_done, whose source has this priority (and comes later) */
      post_to_main (task_data, G_PRIORITY_DEFAULT, rescoring_started, g_object_ref (self), g_object_unref);
      for (guint i = 0; i < now->len && !g_cancellable_is_cancelled (cancellable); i++)
        {
          Changed *changed = g_ptr_array_index (now, i);

          if (changed == NULL)
            continue;
          changed->rows = g_ptr_array_new_with_free_func (g_object_unref);
          changed->n_failed = score_instance (self, i, changed->rows, &changed->problem);
        }
    }
  g_mutex_lock (&self->lock);
  self->running = FALSE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_task_return_pointer (task, now, (GDestroyNotify) g_ptr_array_unref);
}

/* Main thread: the rows of the instances whose files changed, scored again
 * by the worker, put in place of the old ones, or the model marked stale;
 * complete again either way. */
static void
check_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  HsResultsModel *self = HS_RESULTS_MODEL (source);
  g_autoptr(GPtrArray) now = g_task_propagate_pointer (G_TASK (result), NULL);
  guint n_changed = 0;

  g_clear_object (&self->check);
  self->n_rescoring = 0;
  /* cancelled (the model is being dropped): left as it was */
  for (guint i = 0; now != NULL && i < now->len; i++)
    n_changed += g_ptr_array_index (now, i) != NULL;
  self->stale = n_changed > MAX_RESCORED_IN_PLACE;
  for (guint i = 0; now != NULL && !self->stale && i < now->len; i++)
    if (g_ptr_array_index (now, i) != NULL)
      replace_instance (self, i, g_ptr_array_index (now, i));
  if (n_changed > 0 && !self->stale)
    {
      /* every row's keys again: rows moved */
      self->n_key_rows = 0;
      append_keys (self);
      refresh_view (self, TRUE);
    }
  self->complete = !self->stale;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPLETE]);
}

gboolean
hs_results_model_refresh (HsResultsModel *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_val_if_fail (HS_IS_RESULTS_MODEL (self), FALSE);

  if (self->check != NULL)
    return TRUE;
  if (!self->complete || self->stale)
    return FALSE;
  /* not complete until checked: the rows on screen may be replaced */
  self->complete = FALSE;
  self->check = g_cancellable_new ();
  g_atomic_int_set (&self->n_rescoring_posted, 0);
  self->running = TRUE;
  task = g_task_new (self, self->check, check_done, NULL);
  g_task_set_task_data (task, g_main_context_ref_thread_default (),
                        (GDestroyNotify) g_main_context_unref);
  g_task_run_in_thread (task, check_thread);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPLETE]);
  return TRUE;
}

gboolean
hs_results_model_get_checking (HsResultsModel *self)
{
  g_return_val_if_fail (HS_IS_RESULTS_MODEL (self), FALSE);
  return self->check != NULL;
}

gboolean
hs_results_model_get_stale (HsResultsModel *self)
{
  g_return_val_if_fail (HS_IS_RESULTS_MODEL (self), FALSE);
  return self->stale;
}

guint
hs_results_model_get_n_rescoring (HsResultsModel *self)
{
  g_return_val_if_fail (HS_IS_RESULTS_MODEL (self), 0);
  return self->n_rescoring;
}

guint
hs_results_model_get_n_rescored (HsResultsModel *self)
{
  g_return_val_if_fail (HS_IS_RESULTS_MODEL (self), 0);
  return self->n_rescored;
}

static void
score_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  HsResultsModel *self = source;
  GMainContext *context = task_data;
  Batch *batch = batch_new (self);
  gint64 started = g_get_monotonic_time (), last = 0;

  for (guint i = 0; i < self->n_instances && !g_cancellable_is_cancelled (cancellable); i++)
    {
      gint64 now;
      guint n_failed;
      char *problem = NULL;

      g_ptr_array_index (self->stamps, i) = instance_stamps (self->dataset, i);
      n_failed = score_instance (self, i, batch->rows, &problem);
      keep_problem (self, i, n_failed, problem);
      batch->n_failed += n_failed;

      now = g_get_monotonic_time ();
      if (i == 0 || i + 1 == self->n_instances ||
          now - last >= (now - started < G_USEC_PER_SEC ? FIRST_BATCHES_US : BATCH_US))
        {
          batch->n_done = i + 1;
          post_to_main (context, G_PRIORITY_DEFAULT_IDLE, batch_arrived, batch, batch_free);
          batch = batch_new (self);
          last = now;
        }
    }
  batch_free (batch);
  g_mutex_lock (&self->lock);
  self->running = FALSE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_task_return_boolean (task, TRUE);
}

void
hs_results_model_start (HsResultsModel *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (HS_IS_RESULTS_MODEL (self));

  if (self->started)
    return;
  self->started = TRUE;
  if (self->n_instances == 0)
    {
      self->complete = TRUE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPLETE]);
      return;
    }
  self->running = TRUE;
  task = g_task_new (self, self->cancellable, NULL, NULL);
  g_task_set_task_data (task, g_main_context_ref_thread_default (),
                        (GDestroyNotify) g_main_context_unref);
  g_task_run_in_thread (task, score_thread);
}

void
hs_results_model_cancel (HsResultsModel *self,
                         gboolean        wait)
{
  g_return_if_fail (HS_IS_RESULTS_MODEL (self));
  g_cancellable_cancel (self->cancellable);
  if (self->check != NULL)
    g_cancellable_cancel (self->check);
  g_mutex_lock (&self->lock);
  while (wait && self->running)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
}

/* ---- object -------------------------------------------------------------- */

HsResultsModel *
hs_results_model_new (HsDataset      *dataset,
                      gboolean        perturbed,
                      HsPerturbation  perturbation)
{
  HsResultsModel *self;
  HsScoreOptions options;

  g_return_val_if_fail (dataset != NULL, NULL);

  self = g_object_new (HS_TYPE_RESULTS_MODEL, NULL);
  self->dataset = hs_dataset_ref (dataset);
  self->models = hs_dataset_list_models (dataset);
  self->perturbed = perturbed;
  self->perturbation = perturbation;
  if (perturbed)
    self->perturb = hs_perturb_context_new (dataset);
  hs_score_options_init (&options);
  hs_score_rows_job_init (&self->job, dataset, (const char * const *) self->models,
                          g_strv_length (self->models), &options, self->perturb, perturbation, 0);
  /* the CLI's columns: tag_entropy, tag_entropy_norm when a map has tags */
  hs_score_rows_job_use_tag_columns (&self->job);
  self->wrong_side_column = -1;
  for (guint k = 0; k < self->job.n_metrics; k++)
    if (self->job.metrics[k] == HS_METRIC_WRONG_SIDE)
      self->wrong_side_column = (int) k;
  self->n_instances = hs_dataset_get_n_instances (dataset);
  self->stamps = g_ptr_array_new_full (self->n_instances, stamps_free);
  g_ptr_array_set_size (self->stamps, self->n_instances);
  self->failed = g_new0 (guint, MAX (1, self->n_instances));
  self->problems = g_new0 (char *, MAX (1, self->n_instances));
  return self;
}

HsDataset *
hs_results_model_get_dataset (HsResultsModel *self)
{
  return self->dataset;
}

gboolean
hs_results_model_get_perturbed (HsResultsModel *self,
                                HsPerturbation *perturbation)
{
  if (perturbation != NULL)
    *perturbation = self->perturbation;
  return self->perturbed;
}

const HsScoreRowsJob *
hs_results_model_get_job (HsResultsModel *self)
{
  return &self->job;
}

double
hs_results_model_get_progress (HsResultsModel *self)
{
  return self->n_instances > 0 ? (double) self->n_done / self->n_instances : 1.0;
}

gboolean
hs_results_model_get_complete (HsResultsModel *self)
{
  return self->complete;
}

guint
hs_results_model_get_n_scored (HsResultsModel *self)
{
  return self->rows->len;
}

guint
hs_results_model_get_n_failed (HsResultsModel *self)
{
  return self->n_failed;
}

const char *
hs_results_model_get_first_problem (HsResultsModel *self)
{
  /* a walk over the instances scored (pointers only: 0.1 ms for 10⁵) */
  for (guint i = 0; i < self->n_done; i++)
    if (self->problems[i] != NULL)
      return self->problems[i];
  return NULL;
}

static void
hs_results_model_dispose (GObject *object)
{
  HsResultsModel *self = HS_RESULTS_MODEL (object);

  /* The worker holds a reference while it runs (owners that drop a model
   * early call hs_results_model_cancel); this is for batches still queued. */
  g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (hs_results_model_parent_class)->dispose (object);
}

static void
hs_results_model_finalize (GObject *object)
{
  HsResultsModel *self = HS_RESULTS_MODEL (object);

  g_clear_object (&self->cancellable);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_ptr_array_unref (self->slots);
  g_clear_pointer (&self->stamps, g_ptr_array_unref);
  g_free (self->failed);
  for (guint i = 0; self->problems != NULL && i < self->n_instances; i++)
    g_free (self->problems[i]);
  g_free (self->problems);
  g_ptr_array_unref (self->rows);
  g_free (self->keys);
  g_array_unref (self->view);
  g_free (self->filter_text);
  g_clear_pointer (&self->perturb, hs_perturb_context_free);
  g_strfreev (self->models);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  G_OBJECT_CLASS (hs_results_model_parent_class)->finalize (object);
}

static void
hs_results_model_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  HsResultsModel *self = HS_RESULTS_MODEL (object);

  switch (prop_id)
    {
    case PROP_PROGRESS:
      g_value_set_double (value, hs_results_model_get_progress (self));
      break;
    case PROP_COMPLETE:
      g_value_set_boolean (value, self->complete);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_results_model_class_init (HsResultsModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = hs_results_model_dispose;
  object_class->finalize = hs_results_model_finalize;
  object_class->get_property = hs_results_model_get_property;

  properties[PROP_PROGRESS] =
    g_param_spec_double ("progress", NULL, NULL, 0, 1, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_COMPLETE] =
    g_param_spec_boolean ("complete", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
hs_results_model_init (HsResultsModel *self)
{
  self->rows = g_ptr_array_new_with_free_func (g_object_unref);
  self->view = g_array_new (FALSE, FALSE, sizeof (guint));
  self->slots = g_ptr_array_new_with_free_func (slot_free);
  self->cancellable = g_cancellable_new ();
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->sort_column = HS_RESULTS_COLUMN_NONE;
  self->filter_model = -1;
}
