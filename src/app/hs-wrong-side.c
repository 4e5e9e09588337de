/* hs-wrong-side.c — which instances a model maps to the wrong side */

#include <math.h>
#include <heatscope/hs-metrics.h>
#include <heatscope/hs-target.h>

#include "hs-wrong-side.h"

void
hs_wrong_side_result_free (HsWrongSideResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->ids, g_hash_table_unref);
  g_clear_pointer (&result->sentences, g_hash_table_unref);
  g_free (result);
}

gboolean
hs_wrong_side_result_contains (const HsWrongSideResult *result, const char *instance_id,
                               const char *sentence_id)
{
  g_autofree char *key = NULL;

  g_return_val_if_fail (result != NULL, FALSE);
  if (instance_id == NULL || sentence_id == NULL || !g_hash_table_contains (result->ids, instance_id))
    return FALSE;
  key = g_strconcat (instance_id, "\n", sentence_id, NULL);
  return g_hash_table_contains (result->sentences, key);
}

/* wrong_side of one sentence's map: 1, 0, or −1 when it cannot be told. */
static int
sentence_wrong_side (HsDataset *dataset, HsInstance *instance, HsSentence *sentence,
                     HsMapRef *ref, GError **error)
{
  g_autoptr(HsTarget) target = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  HsScoreOptions options;
  HsScores scores;
  HsEvalGrid grid;
  guint width, height;

  if (!hs_dataset_get_image_size (dataset, instance, &width, &height, error) ||
      !hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, width, height, 0, error))
    return -1;
  target = hs_target_new_for_sentence (&grid, dataset, instance, sentence, error);
  if (target == NULL)
    return -1;
  map = hs_dataset_load_map (dataset, ref, error);
  if (map == NULL)
    return -1;
  hs_score_options_init (&options);
  options.n_threads = 1;
  if (!hs_score_map (map, target, &options, &scores, error))
    return -1;
  if (isnan (scores.value[HS_METRIC_WRONG_SIDE]))
    return -1;
  return scores.value[HS_METRIC_WRONG_SIDE] >= 0.5 ? 1 : 0;
}

HsWrongSideResult *
hs_wrong_side_scan (HsDataset *dataset, const char *model, GCancellable *cancellable)
{
  HsWrongSideResult *result;
  guint n;

  g_return_val_if_fail (dataset != NULL, NULL);
  g_return_val_if_fail (model != NULL, NULL);

  result = g_new0 (HsWrongSideResult, 1);
  result->ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  result->sentences = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  n = hs_dataset_get_n_instances (dataset);
  for (guint i = 0; i < n; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      if (g_cancellable_is_cancelled (cancellable))
        break;
      for (guint s = 0; instance->sentences != NULL && s < instance->sentences->len; s++)
        {
          HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
          g_autoptr(GError) error = NULL;
          HsMapRef *ref;
          int wrong;

          if (sentence->targets == NULL || sentence->targets[0] == NULL)
            continue;
          ref = hs_instance_find_map (instance, model, sentence->id);
          if (ref == NULL)
            continue;
          wrong = sentence_wrong_side (dataset, instance, sentence, ref, &error);
          if (error != NULL)
            {
              result->n_skipped++;
              continue;
            }
          result->n_scored++;
          /* Every sentence is scored: the browser opens the one that is on
           * the wrong side and passes its other filters. */
          if (wrong == 1)
            {
              g_hash_table_add (result->ids, g_strdup (instance->id));
              g_hash_table_add (result->sentences, g_strconcat (instance->id, "\n", sentence->id, NULL));
            }
        }
    }
  hs_score_release_memory ();
  return result;
}

typedef struct {
  HsDataset *dataset;
  char      *model;
} ScanJob;

static void
scan_job_free (ScanJob *job)
{
  hs_dataset_unref (job->dataset);
  g_free (job->model);
  g_free (job);
}

static void
scan_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  ScanJob *job = data;
  HsWrongSideResult *result = hs_wrong_side_scan (job->dataset, job->model, cancellable);

  if (g_task_return_error_if_cancelled (task))
    {
      hs_wrong_side_result_free (result);
      return;
    }
  g_task_return_pointer (task, result, (GDestroyNotify) hs_wrong_side_result_free);
}

void
hs_wrong_side_scan_async (HsDataset *dataset, const char *model, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  ScanJob *job;

  g_return_if_fail (dataset != NULL);
  g_return_if_fail (model != NULL);

  job = g_new0 (ScanJob, 1);
  job->dataset = hs_dataset_ref (dataset);
  job->model = g_strdup (model);
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hs_wrong_side_scan_async);
  g_task_set_task_data (task, job, (GDestroyNotify) scan_job_free);
  g_task_run_in_thread (task, scan_thread);
}

HsWrongSideResult *
hs_wrong_side_scan_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
