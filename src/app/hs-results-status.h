/* hs-results-status.h — the results window's status line: what its table
 * holds and what is being done to it (split out of hs-results-window.c) */
#pragma once

#include "hs-results-model.h"

G_BEGIN_DECLS

/* "N of M rows" and what the model does now: scoring (with its percentage),
 * checking the rows' files, scoring instances again whose files changed;
 * then the rows that could not be scored and the first problem. */
char *hs_results_status_text (HsResultsModel *model);

G_END_DECLS
