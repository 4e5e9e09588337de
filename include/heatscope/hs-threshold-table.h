/* hs-threshold-table.h — CheXlocalize's per-class segmentation thresholds
 *
 * CheXlocalize's tune_heatmap_threshold.py writes tuning_results.csv: columns
 * `threshold,task`, one row per pathology, the threshold that maximised mIoU on
 * the validation set.  The chexlocalize protocol binarises the normalised map
 * at that threshold for the queries whose class label the table names, and at
 * Otsu's threshold for the others (metrics.md, protocol chexlocalize). */
#pragma once

#include <glib.h>

#include "hs-dataset.h"

G_BEGIN_DECLS

#define HS_THRESHOLD_TABLE_ERROR (hs_threshold_table_error_quark ())
GQuark hs_threshold_table_error_quark (void);

typedef enum {
  HS_THRESHOLD_TABLE_ERROR_IO,        /* cannot read the file                          */
  HS_THRESHOLD_TABLE_ERROR_FORMAT,    /* no threshold/task header, a bad or repeated row */
} HsThresholdTableError;

typedef struct _HsThresholdTable HsThresholdTable;

/* Reads the table; errors are "FILE:LINE: problem".  Thresholds must be
 * finite and in [0, 1] (they apply to the min–max normalised map); a task may
 * appear once; other columns are ignored; an empty table is an error. */
HsThresholdTable *hs_threshold_table_load     (const char *path, GError **error);
HsThresholdTable *hs_threshold_table_new_from_data (const char *data, gsize len,
                                                    const char *name, GError **error);
void              hs_threshold_table_free     (HsThresholdTable *table);
guint             hs_threshold_table_get_size (const HsThresholdTable *table);
/* The threshold of `class_label` (tasks are matched ignoring ASCII case and
 * surrounding spaces); FALSE when the table has no row for it. */
gboolean          hs_threshold_table_lookup   (const HsThresholdTable *table,
                                               const char *class_label, double *threshold);

/* The class label a query stands for: the text of a `class` query (what the
 * chexlocalize importer writes), else the condition of the query's only label;
 * NULL when it has none or several. */
const char       *hs_sentence_get_class_label (const HsSentence *sentence);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsThresholdTable, hs_threshold_table_free)

G_END_DECLS
