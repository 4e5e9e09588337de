/* hs-parallel.h — split row-wise pixel work over the calling thread and one more.
 *
 * The machines Heatscope targets have two cores and the caller (often the UI
 * thread, waiting for its frame) would otherwise idle: large jobs run their
 * second half on a short-lived thread, small ones stay on the caller.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Processes rows [row_begin, row_end); must be safe to run on two disjoint
 * ranges at once. */
typedef void (*HsRowFunc) (gpointer data, guint row_begin, guint row_end);

/* Runs func over [0, n_rows).  Uses a second thread when n_pixels is at least
 * min_pixels, there are two rows or more and two processors, and
 * HEATSCOPE_THREADS is not "1" (benchmarks compare one and two threads).
 * Returns after both halves are done; the result never depends on the split. */
void hs_parallel_rows (guint n_rows, guint64 n_pixels, guint64 min_pixels,
                       HsRowFunc func, gpointer data);

/* Processes part `part` of `n_parts`; must be safe to run beside the
 * other parts. */
typedef void (*HsPartFunc) (gpointer data, guint part, guint n_parts);

/* Runs func on parts 1 … n_parts − 1 on their own threads (a part whose
 * thread cannot be had runs on the caller) and part 0 on the caller;
 * n_parts is clamped to [1, 8].  Returns when all are done. */
void hs_parallel_parts (HsPartFunc func, gpointer data, guint n_parts);

G_END_DECLS
