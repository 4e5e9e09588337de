/* hs-parallel.c — two-thread row split shared by the overlay and the canvas. */
#include "hs-parallel.h"

typedef struct {
  HsPartFunc func;
  gpointer   data;
  guint      part, n_parts;
} PartJob;

static gpointer
part_thread (gpointer data)
{
  PartJob *job = data;

  job->func (job->data, job->part, job->n_parts);
  return NULL;
}

void
hs_parallel_parts (HsPartFunc func, gpointer data, guint n_parts)
{
  GThread *threads[8] = { NULL };
  PartJob jobs[8];

  g_return_if_fail (func != NULL);

  n_parts = CLAMP (n_parts, 1, G_N_ELEMENTS (threads));
  for (guint p = 1; p < n_parts; p++)
    {
      jobs[p] = (PartJob) { func, data, p, n_parts };
      threads[p] = g_thread_try_new ("hs-part", part_thread, &jobs[p], NULL);
      if (threads[p] == NULL)
        func (data, p, n_parts);   /* no thread to spare: same result, here */
    }
  func (data, 0, n_parts);
  for (guint p = 1; p < n_parts; p++)
    if (threads[p] != NULL)
      g_thread_join (threads[p]);
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

typedef struct {
  HsRowFunc func;
  gpointer  data;
  guint     n_rows;
} Rows;

/* Part k of n: rows [k·n_rows/n, (k+1)·n_rows/n). */
static void
rows_part (gpointer data, guint part, guint n_parts)
{
  Rows *rows = data;

  rows->func (rows->data, (guint) ((guint64) rows->n_rows * part / n_parts),
              (guint) ((guint64) rows->n_rows * (part + 1) / n_parts));
}

void
hs_parallel_rows (guint n_rows, guint64 n_pixels, guint64 min_pixels,
                  HsRowFunc func, gpointer data)
{
  Rows rows = { func, data, n_rows };

  g_return_if_fail (func != NULL);

  if (n_pixels < min_pixels || n_rows < 2 || !use_threads ())
    func (data, 0, n_rows);
  else
    hs_parallel_parts (rows_part, &rows, 2);
}
