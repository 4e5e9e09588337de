/* hs-score-rows.c — score every (sentence, model) of one instance: the rows
 * of `heatscope-cli metrics` and of the app's results table
 *
 * Both front ends call this, so a number in the table is the number the CLI
 * writes.  A problem with one row (a broken map, an unknown region) is a
 * message and a count, never a stop: the other rows are still scored. */
#include <math.h>
#include <stdarg.h>

#include "heatscope/hs-score-rows.h"
#include "heatscope/hs-csv.h"
#include "heatscope/hs-text.h"
#include "hs-i18n-private.h"

void
hs_score_rows_job_init (HsScoreRowsJob       *job,
                        HsDataset            *dataset,
                        const char * const   *models,
                        guint                 n_models,
                        const HsScoreOptions *options,
                        HsPerturbContext     *perturb,
                        HsPerturbation        perturbation,
                        guint64               perturb_seed)
{
  *job = (HsScoreRowsJob) { 0 };
  job->dataset = dataset;
  job->models = models;
  job->n_models = n_models;
  job->options = *options;
  /* One scoring thread per row, whatever the caller runs in parallel: the
   * scorer's split reductions (cnr) depend in the last bits on its thread
   * count, and rows must not depend on it. */
  job->options.n_threads = 1;
  job->metrics = hs_protocol_get_metrics (options->protocol, &job->n_metrics);
  job->n_columns = job->n_metrics;
  job->perturb = perturb;
  job->perturbation = perturbation;
  job->perturb_seed = perturb_seed;
  if (perturb != NULL)
    job->n_columns = 2 * job->n_metrics + (perturbation == HS_PERTURB_SWAP_LEFT_RIGHT ? 2 : 1);
}

gboolean
hs_score_rows_job_use_tag_columns (HsScoreRowsJob *job)
{
  guint n = hs_dataset_get_n_instances (job->dataset);

  g_return_val_if_fail (job->n_tag_columns == 0, TRUE);
  for (guint i = 0; i < n; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (job->dataset, i);

      for (guint r = 0; r < instance->maps->len; r++)
        {
          HsMapRef *ref = g_ptr_array_index (instance->maps, r);

          if (ref->n_tags == 0)
            continue;
          /* job->models is not NULL-terminated (the CLI passes pdata). */
          for (guint m = 0; m < job->n_models; m++)
            if (g_strcmp0 (job->models[m], ref->model) == 0)
              {
                job->n_tag_columns = 2;
                job->n_columns += 2;
                return TRUE;
              }
        }
    }
  return FALSE;
}

char *
hs_score_rows_column_name (const HsScoreRowsJob *job,
                           guint                 k)
{
  if (k + job->n_tag_columns >= job->n_columns)
    return g_strdup (k + 1 == job->n_columns ? "tag_entropy_norm" : "tag_entropy");
  if (k < job->n_metrics)
    return g_strdup (hs_metric_get_name (job->metrics[k]));
  if (k < 2 * job->n_metrics)
    return g_strdup_printf ("delta_%s", hs_metric_get_name (job->metrics[k - job->n_metrics]));
  if (k == 2 * job->n_metrics)
    return g_strdup ("sym_kl");
  return g_strdup ("swap_response");
}

/* A message about this instance, on one line whatever the ids and paths it
 * quotes hold; `failed` rows could not be scored. */
static void
add_message (HsInstanceRows *out, guint failed, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
add_message (HsInstanceRows *out, guint failed, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (out->messages, hs_text_escape_controls (message));
  out->n_failed += failed;
}

/* The values of a row: the metrics, then with a perturbation the deltas,
 * sym_kl and for swap-left-right swap_response (NAN when the perturbed map
 * is missing: `cmp` NULL), then the tag columns of `ref`'s tag attention. */
static void
row_values (const HsScoreRowsJob *job, const HsScores *scores, const HsComparison *cmp,
            const HsMapRef *ref, double *values)
{
  for (guint m = 0; m < job->n_metrics; m++)
    values[m] = scores->value[job->metrics[m]];
  if (job->n_tag_columns > 0)
    values[job->n_columns - 2] = hs_tag_attention_entropy (ref->tags, ref->n_tags,
                                                           &values[job->n_columns - 1], NULL);
  if (job->perturb == NULL)
    return;
  for (guint m = 0; m < job->n_metrics; m++)
    values[job->n_metrics + m] = cmp != NULL ? cmp->delta[job->metrics[m]] : NAN;
  values[2 * job->n_metrics] = cmp != NULL ? cmp->sym_kl : NAN;
  if (job->n_columns - job->n_tag_columns > 2 * job->n_metrics + 1)
    values[2 * job->n_metrics + 1] = cmp != NULL ? cmp->swap_response : NAN;
}

/* Compares the row's map with its perturbed counterpart; FALSE (and a note)
 * when the perturbed map is missing or cannot be scored. */
static gboolean
compare_perturbed (const HsScoreRowsJob *job, HsInstanceRows *out, const HsInstance *instance,
                   const HsSentence *sentence, const HsPerturbed *perturbed,
                   const GError *perturb_error, const char *model, const HsAttentionMap *map,
                   const HsTarget *target, const HsScoreOptions *options, HsComparison *cmp)
{
  g_autoptr(HsAttentionMap) other = NULL;
  g_autoptr(GError) error = NULL;
  HsMapRef *ref;

  if (perturbed == NULL)
    {
      add_message (out, 0, _("instance \"%s\", query \"%s\", model \"%s\": %s (deltas null)"),
                   instance->id, sentence->id, model, perturb_error->message);
      return FALSE;
    }
  ref = hs_perturbed_find_map (job->perturb, instance, sentence, perturbed, model, &error);
  if (ref != NULL && !hs_perturbation_is_target (perturbed->perturbation))
    other = hs_dataset_load_map (job->dataset, ref, &error);
  if (ref == NULL || (other == NULL && !hs_perturbation_is_target (perturbed->perturbation)) ||
      !hs_perturb_compare (job->perturb, instance, sentence, perturbed, map, other, target,
                           options, cmp, &error))
    {
      add_message (out, 0, _("instance \"%s\", query \"%s\", model \"%s\": %s: %s (deltas null)"),
                   instance->id, sentence->id, model, hs_perturbation_to_string (job->perturbation),
                   error->message);
      return FALSE;
    }
  return TRUE;
}

static guint
count_maps (const HsScoreRowsJob *job, const HsInstance *instance, const HsSentence *sentence)
{
  guint n = 0;

  for (guint m = 0; m < job->n_models; m++)
    if (hs_instance_find_map (instance, job->models[m], sentence->id) != NULL)
      n++;
  return n;
}

/* The query's own threshold from the table, else Otsu (threshold NAN). */
static void
lookup_threshold (const HsScoreRowsJob *job, const HsSentence *sentence, HsInstanceRows *out,
                  HsScoreOptions *options)
{
  const char *label = hs_sentence_get_class_label (sentence);

  if (!hs_threshold_table_lookup (job->thresholds, label, &options->threshold))
    {
      const char *name = label != NULL ? label : "(no class label)";

      if (!g_ptr_array_find_with_equal_func (out->otsu_classes, name, g_str_equal, NULL))
        g_ptr_array_add (out->otsu_classes, g_strdup (name));
    }
}

static void
score_sentence (const HsScoreRowsJob *job, const HsInstance *instance, guint s,
                const HsEvalGrid *grid, guint subsets, HsInstanceRows *out)
{
  HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
  g_autoptr(HsTarget) target = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsPerturbed) perturbed = NULL;
  g_autoptr(GError) perturb_error = NULL;
  HsScoreOptions row_options = job->options;

  target = hs_target_new_for_sentence (grid, job->dataset, instance, sentence, &error);
  if (target == NULL)
    {
      guint n_maps = count_maps (job, instance, sentence);

      add_message (out, n_maps, _("instance \"%s\", query \"%s\": %s (%u rows skipped)"),
                   instance->id, sentence->id, error->message, n_maps);
      return;
    }
  if (job->perturb != NULL)
    perturbed = hs_perturb (job->perturb, instance, sentence, job->perturbation,
                            job->options.protocol, job->perturb_seed, &perturb_error);
  if (job->thresholds != NULL)
    lookup_threshold (job, sentence, out, &row_options);

  for (guint m = 0; m < job->n_models; m++)
    {
      HsMapRef *ref = hs_instance_find_map (instance, job->models[m], sentence->id);
      g_autoptr(HsAttentionMap) map = NULL;
      g_autoptr(GError) map_error = NULL;
      HsScores scores;
      HsComparison cmp;
      gboolean have_cmp = FALSE;
      HsScoreRow *row;

      if (ref == NULL)
        continue;
      map = hs_dataset_load_map (job->dataset, ref, &map_error);
      if (map == NULL || !hs_score_map (map, target, &row_options, &scores, &map_error))
        {
          add_message (out, 1, _("instance \"%s\", query \"%s\", model \"%s\": %s"), instance->id,
                       sentence->id, job->models[m], map_error->message);
          continue;
        }
      if (job->perturb != NULL)
        have_cmp = compare_perturbed (job, out, instance, sentence, perturbed, perturb_error,
                                      job->models[m], map, target, &row_options, &cmp);
      if (job->thresholds != NULL)
        {
          if (isnan (row_options.threshold))
            out->n_otsu++;
          else
            out->n_table++;
        }
      row = g_malloc (sizeof (HsScoreRow) + job->n_columns * sizeof (double));
      row->sentence = s;
      row->model = m;
      row->subsets = subsets;
      row->threshold = row_options.threshold;
      row_values (job, &scores, have_cmp ? &cmp : NULL, ref, row->values);
      g_ptr_array_add (out->rows, row);
    }
}

void
hs_score_rows_instance (const HsScoreRowsJob *job,
                        guint                 index,
                        HsInstanceRows       *out)
{
  HsInstance *instance = hs_dataset_get_instance (job->dataset, index);
  const char *manifest = hs_dataset_get_manifest_path (job->dataset);
  gboolean have_grid = FALSE;
  HsEvalGrid grid;

  *out = (HsInstanceRows) { 0 };
  out->rows = g_ptr_array_new_with_free_func (g_free);
  out->messages = g_ptr_array_new_with_free_func (g_free);
  out->otsu_classes = g_ptr_array_new_with_free_func (g_free);

  for (guint s = 0; s < instance->sentences->len; s++)
    {
      HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
      guint n_maps = count_maps (job, instance, sentence);
      guint subsets;

      if (n_maps == 0)
        continue;
      subsets = hs_dataset_get_subsets (job->dataset, instance, sentence);
      if (job->subset_filter != 0 && !(subsets & job->subset_filter))
        continue;

      if (!have_grid)
        {
          g_autoptr(GError) error = NULL;
          guint width = 0, height = 0;

          if (!hs_dataset_get_image_size (job->dataset, instance, &width, &height, &error) ||
              !hs_eval_grid_init (&grid, job->options.protocol, width, height,
                                  job->options.eval_size, &error))
            {
              add_message (out, n_maps, _("%s: instance \"%s\": %s (%u rows skipped)"), manifest,
                           instance->id, error->message, n_maps);
              continue;
            }
          have_grid = TRUE;
        }
      score_sentence (job, instance, s, &grid, subsets, out);
    }
}

void
hs_instance_rows_clear (HsInstanceRows *rows)
{
  g_clear_pointer (&rows->rows, g_ptr_array_unref);
  g_clear_pointer (&rows->messages, g_ptr_array_unref);
  g_clear_pointer (&rows->otsu_classes, g_ptr_array_unref);
}

char *
hs_score_rows_subsets_text (guint subsets)
{
  static const HsSubset order[] = { HS_SUBSET_ABNORMAL, HS_SUBSET_ONE_LUNG, HS_SUBSET_MDRB };
  GString *text = g_string_new (NULL);

  for (guint s = 0; s < G_N_ELEMENTS (order); s++)
    if (subsets & order[s])
      g_string_append_printf (text, "%s%s", text->len > 0 ? ";" : "", hs_subset_to_string (order[s]));
  return g_string_free (text, FALSE);
}

void
hs_score_rows_append_csv_header (const HsScoreRowsJob *job,
                                 GString              *out)
{
  g_string_append (out, "instance,query,model,subsets");
  if (job->thresholds != NULL)
    g_string_append (out, ",threshold");
  for (guint k = 0; k < job->n_columns; k++)
    {
      g_autofree char *name = hs_score_rows_column_name (job, k);

      g_string_append_printf (out, ",%s", name);
    }
  g_string_append_c (out, '\n');
}

void
hs_score_rows_append_csv_row (const HsScoreRowsJob *job,
                              GString              *out,
                              const char           *instance,
                              const char           *query,
                              const HsScoreRow     *row)
{
  g_autofree char *subsets = hs_score_rows_subsets_text (row->subsets);

  hs_csv_append_field (out, instance);
  g_string_append_c (out, ',');
  hs_csv_append_field (out, query);
  g_string_append_c (out, ',');
  hs_csv_append_field (out, job->models[row->model]);
  g_string_append_c (out, ',');
  g_string_append (out, subsets);
  if (job->thresholds != NULL)
    {
      g_autofree char *threshold = isnan (row->threshold) ? g_strdup ("otsu")
                                                          : hs_metric_format (row->threshold);
      g_string_append_printf (out, ",%s", threshold);
    }
  for (guint k = 0; k < job->n_columns; k++)
    {
      g_string_append_c (out, ',');
      if (isfinite (row->values[k]))
        {
          g_autofree char *text = hs_metric_format (row->values[k]);
          g_string_append (out, text);
        }
    }
  g_string_append_c (out, '\n');
}
