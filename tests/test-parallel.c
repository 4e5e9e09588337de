/* test-parallel.c — hs_parallel_rows covers every row exactly once. */
#include "hs-test-util.h"

#include <heatscope/hs-parallel.h>

typedef struct {
  guint  n_rows;
  gint  *visits;       /* per row, atomically incremented */
  GThread *threads[2];
  gint   n_threads;
} Count;

static void
count_rows (gpointer data, guint begin, guint end)
{
  Count *c = data;

  g_assert_cmpuint (begin, <=, end);
  g_assert_cmpuint (end, <=, c->n_rows);
  for (guint r = begin; r < end; r++)
    g_atomic_int_inc (&c->visits[r]);
}

static void
check_split (guint n_rows, guint64 n_pixels, guint64 min_pixels)
{
  Count c = { n_rows, g_new0 (gint, MAX (n_rows, 1)), { NULL }, 0 };

  hs_parallel_rows (n_rows, n_pixels, min_pixels, count_rows, &c);
  for (guint r = 0; r < n_rows; r++)
    g_assert_cmpint (c.visits[r], ==, 1);
  g_free (c.visits);
}

static void
test_every_row_once (void)
{
  check_split (0, 0, 1);               /* nothing to do */
  check_split (1, 1000000, 1);         /* one row: one call */
  check_split (2, 1000000, 1);
  check_split (7, 1000000, 1);         /* odd: halves of 3 and 4 rows */
  check_split (1001, 1000000, 1);
  check_split (1001, 10, 1000);        /* small job stays on the caller */
}

static void
record_thread (gpointer data, guint begin, guint end)
{
  Count *c = data;
  gint i = g_atomic_int_add (&c->n_threads, 1);

  g_assert_cmpint (i, <, 2);
  c->threads[i] = g_thread_self ();
}

static void
test_small_jobs_stay_on_the_caller (void)
{
  Count c = { 0 };

  hs_parallel_rows (100, 99, 100, record_thread, &c);
  g_assert_cmpint (c.n_threads, ==, 1);
  g_assert_true (c.threads[0] == g_thread_self ());
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/parallel/every-row-once", test_every_row_once);
  g_test_add_func ("/hs/parallel/small-jobs-stay", test_small_jobs_stay_on_the_caller);
  return g_test_run ();
}
