/* hs-attend-job.c — the attend runner on a worker thread for the app */

#include <glib/gi18n.h>
#include <heatscope/hs-backend-exec.h>

#include "hs-application.h"
#include "hs-attend-job.h"

struct _HsAttendJob
{
  GObject         parent_instance;

  char           *dataset_path;
  HsAttendSpec    spec;
  GCancellable   *cancellable;
  gboolean        started;
  gboolean        running;
  gboolean        cancelled;
  GError         *error;
  guint           backend_timeout_ms;  /* the "backend-timeout" preference */

  /* Main loop only. */
  HsAttendCounts  counts;
  GPtrArray      *problems;       /* char* */
  gint64          clock_start;    /* first progress, for the rate */
  guint           clock_done;     /* maps done then (skipped ones) */
  gint64          clock_now;

  /* Shared with the worker. */
  GMutex          lock;
  HsAttendCounts  worker_counts;
  GPtrArray      *worker_problems; /* char*, moved to `problems` by the idle */
  gboolean        idle_pending;
  guint           cancel_after;
};

enum { SIGNAL_PROGRESS, SIGNAL_FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HsAttendJob, hs_attend_job, G_TYPE_OBJECT)

void
hs_attend_spec_clear (HsAttendSpec *spec)
{
  g_clear_pointer (&spec->model, g_free);
  g_clear_pointer (&spec->backend_command, g_free);
  g_clear_pointer (&spec->name, g_free);
  g_clear_pointer (&spec->perturbations, g_strfreev);
  spec->queries = HS_ATTEND_QUERIES_ALL;
  spec->force = FALSE;
}

void
hs_attend_spec_copy (const HsAttendSpec *from, HsAttendSpec *to)
{
  to->model = g_strdup (from->model);
  to->backend_command = g_strdup (from->backend_command);
  to->name = g_strdup (from->name);
  to->queries = from->queries;
  to->perturbations = g_strdupv (from->perturbations);
  to->force = from->force;
}

/* ---- from the worker to the main loop ---------------------------------- */

static gboolean
progress_idle (gpointer data)
{
  HsAttendJob *self = data;
  guint done;

  g_mutex_lock (&self->lock);
  self->counts = self->worker_counts;
  for (guint i = 0; i < self->worker_problems->len; i++)
    g_ptr_array_add (self->problems, g_steal_pointer (&g_ptr_array_index (self->worker_problems, i)));
  g_ptr_array_set_size (self->worker_problems, 0);
  self->idle_pending = FALSE;
  g_mutex_unlock (&self->lock);

  /* The rate counts from the first update: skipped maps cost nothing. */
  done = self->counts.skipped + self->counts.computed + self->counts.failed;
  self->clock_now = g_get_monotonic_time ();
  if (self->clock_start == 0)
    {
      self->clock_start = self->clock_now;
      self->clock_done = done;
    }
  g_signal_emit (self, signals[SIGNAL_PROGRESS], 0);
  return G_SOURCE_REMOVE;
}

/* Under the lock: one update on its way is enough. */
static void
schedule_idle (HsAttendJob *self)
{
  if (self->idle_pending)
    return;
  self->idle_pending = TRUE;
  g_idle_add_full (G_PRIORITY_DEFAULT, progress_idle, g_object_ref (self), g_object_unref);
}

static void
on_progress (const HsAttendCounts *counts, gpointer data)
{
  HsAttendJob *self = data;

  g_mutex_lock (&self->lock);
  self->worker_counts = *counts;
  if (self->cancel_after > 0 && counts->computed >= self->cancel_after)
    g_cancellable_cancel (self->cancellable);
  schedule_idle (self);
  g_mutex_unlock (&self->lock);
}

static void
on_problem (const char *instance, const char *image, const char *query, const char *reason,
            gpointer data)
{
  HsAttendJob *self = data;

  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->worker_problems,
                   g_strdup_printf ("%s (%s), %s: %s", instance, image, query, reason));
  schedule_idle (self);
  g_mutex_unlock (&self->lock);
}

/* ---- the run ---------------------------------------------------------------- */

static void
attend_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  HsAttendJob *self = source_object;
  g_autoptr(GArray) perturbations = g_array_new (FALSE, FALSE, sizeof (HsPerturbation));
  HsAttendCounts *counts = g_new0 (HsAttendCounts, 1);
  HsAttendOptions options;
  GError *error = NULL;

  hs_attend_options_init (&options);
  options.model = self->spec.backend_command == NULL ? self->spec.model : NULL;
  options.backend_command = self->spec.backend_command;
  options.backend_timeout_ms = self->backend_timeout_ms;
  options.name = self->spec.name;
  options.queries = self->spec.queries;
  for (guint i = 0; self->spec.perturbations != NULL && self->spec.perturbations[i] != NULL; i++)
    {
      HsPerturbation perturbation;

      if (hs_perturbation_from_string (self->spec.perturbations[i], &perturbation))
        g_array_append_val (perturbations, perturbation);
    }
  options.perturbations = (const HsPerturbation *) perturbations->data;
  options.n_perturbations = perturbations->len;
  options.force = self->spec.force;
  /* One worker: the window stays responsive on a shared machine, and a
   * backend is one process. */
  options.jobs = 1;
  options.progress = on_progress;
  options.problem = on_problem;
  options.user_data = self;
  if (!hs_attend_dataset (self->dataset_path, &options, cancellable, counts, &error))
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, NULL, NULL);
  /* The counts of a failed or cancelled run too. */
  g_mutex_lock (&self->lock);
  self->worker_counts = *counts;
  g_mutex_unlock (&self->lock);
  g_free (counts);
}

static void
attend_done (GObject *object, GAsyncResult *result, gpointer data)
{
  HsAttendJob *self = HS_ATTEND_JOB (object);
  g_autoptr(GError) error = NULL;

  g_task_propagate_pointer (G_TASK (result), &error);
  /* The last counts and problems, whatever idle is still queued. */
  progress_idle (self);
  self->running = FALSE;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    self->cancelled = TRUE;
  else if (error != NULL)
    self->error = g_steal_pointer (&error);
  g_signal_emit (self, signals[SIGNAL_FINISHED], 0);
}

void
hs_attend_job_start (HsAttendJob *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (HS_IS_ATTEND_JOB (self));
  g_return_if_fail (!self->started);

  self->started = TRUE;
  self->running = TRUE;
  {
    g_autoptr(GSettings) settings = hs_settings_new ();

    /* A backend that hangs on one image costs this, as in the live view. */
    if (settings != NULL)
      self->backend_timeout_ms = g_settings_get_uint (settings, "backend-timeout") * 1000;
  }
  task = g_task_new (self, self->cancellable, attend_done, NULL);
  g_task_set_source_tag (task, hs_attend_job_start);
  /* The runner records what it computed before it reports the cancel. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_run_in_thread (task, attend_thread);
}

void
hs_attend_job_cancel (HsAttendJob *self)
{
  g_return_if_fail (HS_IS_ATTEND_JOB (self));
  g_cancellable_cancel (self->cancellable);
}

void
hs_attend_job_set_cancel_after (HsAttendJob *self, guint n_maps)
{
  g_return_if_fail (HS_IS_ATTEND_JOB (self));
  g_mutex_lock (&self->lock);
  self->cancel_after = n_maps;
  g_mutex_unlock (&self->lock);
}

/* ---- state and text ------------------------------------------------------------ */

const char *
hs_attend_job_get_dataset_path (HsAttendJob *self)
{
  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), NULL);
  return self->dataset_path;
}

const HsAttendSpec *
hs_attend_job_get_spec (HsAttendJob *self)
{
  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), NULL);
  return &self->spec;
}

gboolean
hs_attend_job_get_running (HsAttendJob *self)
{
  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), FALSE);
  return self->running;
}

gboolean
hs_attend_job_get_cancelled (HsAttendJob *self)
{
  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), FALSE);
  return self->cancelled;
}

const HsAttendCounts *
hs_attend_job_get_counts (HsAttendJob *self)
{
  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), NULL);
  return &self->counts;
}

GPtrArray *
hs_attend_job_get_problems (HsAttendJob *self)
{
  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), NULL);
  return self->problems;
}

const GError *
hs_attend_job_get_error (HsAttendJob *self)
{
  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), NULL);
  return self->error;
}

static guint
n_done (const HsAttendCounts *counts)
{
  return counts->skipped + counts->computed + counts->failed;
}

double
hs_attend_job_get_fraction (HsAttendJob *self)
{
  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), 0.0);
  return self->counts.total > 0 ? (double) n_done (&self->counts) / self->counts.total : 0.0;
}

char *
hs_attend_job_dup_progress_text (HsAttendJob *self)
{
  GString *text = g_string_new (NULL);
  guint done;
  double seconds, rate;

  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), NULL);

  done = n_done (&self->counts);
  /* Translators: maps done of maps to do in the attend progress bar */
  g_string_printf (text, _("%u / %u maps"), done, self->counts.total);
  seconds = (double) (self->clock_now - self->clock_start) / G_USEC_PER_SEC;
  rate = seconds > 0 && done > self->clock_done ? (done - self->clock_done) / seconds : 0;
  if (rate > 0)
    {
      /* Translators: the attend progress bar's rate */
      g_string_append_printf (text, _(" · %.1f maps/s"), rate);
      if (done < self->counts.total)
        /* Translators: time left in the attend progress bar */
        g_string_append_printf (text, _(" · about %.0f s left"), (self->counts.total - done) / rate);
    }
  return g_string_free (text, FALSE);
}

char *
hs_attend_job_dup_summary (HsAttendJob *self)
{
  g_autofree char *counts = NULL;

  g_return_val_if_fail (HS_IS_ATTEND_JOB (self), NULL);

  counts = g_strdup_printf (_("%u maps computed, %u skipped (already in the dataset), %u failed"),
                            self->counts.computed, self->counts.skipped, self->counts.failed);
  if (self->error != NULL)
    /* Translators: %s is why the run stopped, then what it did before */
    return g_strdup_printf (_("Stopped: %s (%s)"), self->error->message, counts);
  if (self->cancelled)
    return g_strdup_printf (_("Cancelled: %s. Run it again to compute the rest."), counts);
  return g_steal_pointer (&counts);
}

/* ---- object ---------------------------------------------------------------------- */

static void
hs_attend_job_finalize (GObject *object)
{
  HsAttendJob *self = HS_ATTEND_JOB (object);

  /* A running worker holds a reference: none is running now. */
  g_free (self->dataset_path);
  hs_attend_spec_clear (&self->spec);
  g_clear_object (&self->cancellable);
  g_clear_error (&self->error);
  g_ptr_array_unref (self->problems);
  g_ptr_array_unref (self->worker_problems);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (hs_attend_job_parent_class)->finalize (object);
}

static void
hs_attend_job_class_init (HsAttendJobClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hs_attend_job_finalize;
  signals[SIGNAL_PROGRESS] = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
hs_attend_job_init (HsAttendJob *self)
{
  g_mutex_init (&self->lock);
  self->cancellable = g_cancellable_new ();
  self->problems = g_ptr_array_new_with_free_func (g_free);
  self->worker_problems = g_ptr_array_new_with_free_func (g_free);
}

HsAttendJob *
hs_attend_job_new (const char *dataset_path, const HsAttendSpec *spec)
{
  HsAttendJob *self;

  g_return_val_if_fail (dataset_path != NULL && spec != NULL, NULL);

  self = g_object_new (HS_TYPE_ATTEND_JOB, NULL);
  self->dataset_path = g_strdup (dataset_path);
  hs_attend_spec_copy (spec, &self->spec);
  return self;
}
