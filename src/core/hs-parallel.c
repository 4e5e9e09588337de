/* hs-parallel.c — two-thread row split shared by the overlay and the canvas. */
#include "hs-parallel.h"

typedef struct {
  HsRowFunc func;
  gpointer  data;
  guint     begin, end;
} RowJob;

static gpointer
row_job_run (gpointer p)
{
  RowJob *job = p;

  job->func (job->data, job->begin, job->end);
  return NULL;
}

static gboolean
use_threads (void)
{
  static gsize once = 0;
  static gboolean threads;

  if (g_once_init_enter (&once))
    {
      /* HEATSCOPE_OVERLAY_THREADS is the name of session 1's benchmarks. */
      threads = g_get_num_processors () >= 2
                && g_strcmp0 (g_getenv ("HEATSCOPE_THREADS"), "1") != 0
                && g_strcmp0 (g_getenv ("HEATSCOPE_OVERLAY_THREADS"), "1") != 0;
      g_once_init_leave (&once, 1);
    }
  return threads;
}

void
hs_parallel_rows (guint n_rows, guint64 n_pixels, guint64 min_pixels,
                  HsRowFunc func, gpointer data)
{
  RowJob second;
  GThread *thread;
  guint half;

  g_return_if_fail (func != NULL);

  if (n_pixels < min_pixels || n_rows < 2 || !use_threads ())
    {
      func (data, 0, n_rows);
      return;
    }
  half = n_rows / 2;
  second = (RowJob) { func, data, half, n_rows };
  thread = g_thread_try_new ("hs-rows", row_job_run, &second, NULL);
  if (thread == NULL)
    {
      func (data, 0, n_rows);       /* no thread to spare: same result, one core */
      return;
    }
  func (data, 0, half);
  g_thread_join (thread);
}
