/* hs-results-sort.h — the results table's orders: its visible rows (an
 * array of indices into the rows, in ascending index order) sorted by a
 * number column's keys or by a text column (split out of
 * hs-results-model.c, which keeps the rows and the keys) */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* `view` by `keys` (the column's value of row i at keys[i]): undefined
 * (NaN) last in either direction, ties in index order. */
void hs_results_sort_numbers (GArray       *view,
                              const double *keys,
                              gboolean      descending);
/* `view` by text column `column` (HS_RESULTS_COLUMN_INSTANCE, _QUERY or
 * _MODEL) of `rows` (HsResultsRow*), byte order, ties in index order. */
void hs_results_sort_texts   (GArray       *view,
                              GPtrArray    *rows,
                              int           column,
                              gboolean      descending);

G_END_DECLS
