/* hs-results-row.h — one row of the results table: an (instance, sentence,
 * model) with its metrics row (hs-score-rows.h) */
#pragma once

#include <glib-object.h>
#include <heatscope/hs-score-rows.h>

G_BEGIN_DECLS

#define HS_TYPE_RESULTS_ROW (hs_results_row_get_type ())
G_DECLARE_FINAL_TYPE (HsResultsRow, hs_results_row, HS, RESULTS_ROW, GObject)

/* Takes `row`; the strings are borrowed from the dataset and the model list,
 * which the results model keeps alive as long as its rows. */
HsResultsRow     *hs_results_row_new            (guint         instance_index,
                                                 const char   *instance_id,
                                                 const char   *sentence_id,
                                                 const char   *sentence_text,
                                                 const char   *model,
                                                 HsScoreRow   *row);
guint             hs_results_row_get_instance_index (HsResultsRow *self);
const char       *hs_results_row_get_instance   (HsResultsRow *self);
const char       *hs_results_row_get_sentence   (HsResultsRow *self);
const char       *hs_results_row_get_model      (HsResultsRow *self);
const HsScoreRow *hs_results_row_get_values     (HsResultsRow *self);
/* TRUE when `folded_needle` (g_utf8_casefold'ed) occurs in the instance id,
 * the sentence id or text, or the model name, ignoring case. */
gboolean          hs_results_row_matches        (HsResultsRow *self,
                                                 const char   *folded_needle);

G_END_DECLS
