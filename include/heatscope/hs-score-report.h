/* hs-score-report.h — one scored map as one JSON object */
#pragma once

#include <glib.h>
#include "hs-metrics.h"
#include "hs-baselines.h"

G_BEGIN_DECLS

/* The object `heatscope-cli score --json` prints (without the newline) and
 * the Python binding's heatscope.score() returns: the protocol's metrics in
 * order, then with `threshold_source` ("table" or "otsu", chexlocalize's
 * per-class threshold table) "threshold_source" and "threshold" (null when
 * NAN), then with `comparison` "sym_kl" and "delta_<metric>", then with
 * `baselines` (HS_N_BASELINES scores, in HsBaseline order) a "baselines"
 * object of one such object per baseline.  `scores` may be NULL with
 * baselines and no comparison (the baselines alone, `score --baselines`
 * without a map).  Numbers are hs_metric_format's
 * shortest round-trip text, undefined values null.  Free with g_free. */
char *hs_score_report_to_json (const HsScores *scores, const char *threshold_source,
                               double threshold, const HsComparison *comparison,
                               const HsScores *baselines);

G_END_DECLS
