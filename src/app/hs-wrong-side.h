/* hs-wrong-side.h — which instances a model maps to the wrong side
 *
 * For the instance browser's "Wrong side" filter: every report sentence
 * with a target and a map of `model` is scored (default protocol, image
 * grid) and the instance is listed when any of its maps has wrong_side = 1
 * (metrics.md: map and target laterality both |·| ≥ 0.2, opposite signs).
 * Runs in a worker thread; maps or masks that cannot be read are skipped
 * and counted. */
#pragma once

#include <gio/gio.h>
#include <heatscope/hs-dataset.h>

G_BEGIN_DECLS

typedef struct {
  GHashTable *ids;        /* instance id (char*) → itself: wrong side */
  GHashTable *sentences;  /* "instance id\nsentence id" → itself: each wrong-side map */
  guint       n_scored;   /* maps scored */
  guint       n_skipped;  /* maps that could not be read or scored */
} HsWrongSideResult;

void               hs_wrong_side_result_free (HsWrongSideResult *result);
/* TRUE when the map of `sentence_id` of the instance has wrong_side = 1
 * (the browser opens that sentence). */
gboolean           hs_wrong_side_result_contains (const HsWrongSideResult *result,
                                                  const char *instance_id,
                                                  const char *sentence_id);

/* Synchronous (tests, the CLI); cancellable may be NULL. */
HsWrongSideResult *hs_wrong_side_scan        (HsDataset *dataset, const char *model,
                                              GCancellable *cancellable);
void               hs_wrong_side_scan_async  (HsDataset *dataset, const char *model,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback, gpointer user_data);
HsWrongSideResult *hs_wrong_side_scan_finish (GAsyncResult *result, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsWrongSideResult, hs_wrong_side_result_free)

G_END_DECLS
