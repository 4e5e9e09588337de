/* hs-cli-metrics.c — heatscope-cli metrics DATASET: score every (instance, query, model)
 *
 * Rows come in instance order, then sentence order, then model name, whatever
 * --jobs says: workers score whole instances and the main thread writes the
 * results in order.  --shard K/N keeps the K-th of N contiguous blocks of
 * instances (instances [⌊(K−1)·n/N⌋, ⌊K·n/N⌋)), so concatenating the shards'
 * outputs in K order gives the unsharded output byte for byte (the CSV
 * header is written by shard 1 only). */
#include "hs-cli.h"
#include <heatscope/hs-stop-point.h>
#include <heatscope/hs-summary.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N_SUMMARY_SUBSETS 4   /* all, abnormal, one_lung, mdrb */

static const char * const summary_subset_names[N_SUMMARY_SUBSETS] = {
  "all", "abnormal", "one_lung", "mdrb"
};
static const guint summary_subset_flags[N_SUMMARY_SUBSETS] = {
  0, HS_SUBSET_ABNORMAL, HS_SUBSET_ONE_LUNG, HS_SUBSET_MDRB
};

typedef struct {
  HsDataset      *dataset;
  char          **models;       /* sorted */
  guint           n_models;
  HsScoreOptions  options;
  const HsMetric *metrics;
  guint           n_metrics;
  gboolean        jsonl;
  guint           subset_filter;   /* 0 = every row */
  /* --perturb: rows gain delta_<metric> and sym_kl (n_columns = 2·n_metrics + 1);
   * swap-left-right also swap_response (n_columns = 2·n_metrics + 2). */
  HsPerturbContext *perturb;
  HsPerturbation    perturbation;
  guint64           perturb_seed;
  guint             n_columns;
  /* --thresholds: CheXlocalize's per-class table; rows gain a `threshold` column (the table's
   * value, or `otsu` for a query whose class has no row). */
  HsThresholdTable *thresholds;
} Job;

typedef struct {
  guint  model;
  guint  subsets;
  double values[];  /* n_metrics */
} RowValues;

typedef struct {
  GString   *text;
  GString   *errors;
  GPtrArray *rows;       /* of RowValues* */
  guint      n_failed;
  guint      n_table, n_otsu;       /* --thresholds: rows by where their threshold came from */
  GPtrArray *otsu_classes;          /* class labels (or "(none)") the table has no row for */
  gboolean   done;
} InstanceResult;

typedef struct {
  Job            *job;
  InstanceResult *results;   /* indexed by instance − first */
  guint           first;
  GMutex          lock;
  GCond           cond;
} Runner;

/* --- formatting ---------------------------------------------------------- */

static void
append_json_string (GString *out, const char *text)
{
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) text; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) *p);
        }
      else if (*p == '\n')
        g_string_append (out, "\\n");
      else if (*p == '\t')
        g_string_append (out, "\\t");
      else if (*p == '\r')
        g_string_append (out, "\\r");
      else if (*p < 0x20 || *p == 0x7f)
        g_string_append_printf (out, "\\u%04x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  g_string_append_c (out, '"');
}

static void
append_number (GString *out, double value, gboolean jsonl)
{
  g_autofree char *text = NULL;

  if (!isfinite (value))
    {
      if (jsonl)
        g_string_append (out, "null");
      return;
    }
  text = hs_metric_format (value);
  g_string_append (out, text);
}

/* Name of column k of a row's values: a metric, delta_<metric>, sym_kl or
 * swap_response. */
static char *
column_name (const Job *job, guint k)
{
  if (k < job->n_metrics)
    return g_strdup (hs_metric_get_name (job->metrics[k]));
  if (k < 2 * job->n_metrics)
    return g_strdup_printf ("delta_%s", hs_metric_get_name (job->metrics[k - job->n_metrics]));
  if (k == 2 * job->n_metrics)
    return g_strdup ("sym_kl");
  return g_strdup ("swap_response");
}

/* The values of a row: the metrics, then with --perturb the deltas,
 * sym_kl and for swap-left-right swap_response (NAN when the perturbed map
 * is missing: `cmp` NULL). */
static void
row_values (const Job *job, const HsScores *scores, const HsComparison *cmp, double *values)
{
  for (guint m = 0; m < job->n_metrics; m++)
    values[m] = scores->value[job->metrics[m]];
  if (job->perturb == NULL)
    return;
  for (guint m = 0; m < job->n_metrics; m++)
    values[job->n_metrics + m] = cmp != NULL ? cmp->delta[job->metrics[m]] : NAN;
  values[2 * job->n_metrics] = cmp != NULL ? cmp->sym_kl : NAN;
  if (job->n_columns > 2 * job->n_metrics + 1)
    values[2 * job->n_metrics + 1] = cmp != NULL ? cmp->swap_response : NAN;
}

static void
append_row (const Job *job, GString *out, const char *instance, const char *query,
            const char *model, guint subsets, double threshold, const double *values)
{
  g_autofree char *threshold_text = isnan (threshold) ? g_strdup ("otsu") : hs_metric_format (threshold);
  const char *keys[] = { "instance", "query", "model" };
  const char *fields[] = { instance, query, model };

  if (job->jsonl)
    {
      for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
        {
          g_string_append_printf (out, "%s\"%s\": ", i == 0 ? "{" : ", ", keys[i]);
          append_json_string (out, fields[i]);
        }
      g_string_append (out, ", \"subsets\": [");
      for (guint s = 1, n = 0; s < N_SUMMARY_SUBSETS; s++)
        if (subsets & summary_subset_flags[s])
          g_string_append_printf (out, "%s\"%s\"", n++ ? ", " : "", summary_subset_names[s]);
      g_string_append (out, "]");
      if (job->thresholds != NULL)
        g_string_append_printf (out, isnan (threshold) ? ", \"threshold\": \"%s\"" : ", \"threshold\": %s",
                                threshold_text);
      for (guint k = 0; k < job->n_columns; k++)
        {
          g_autofree char *name = column_name (job, k);

          g_string_append_printf (out, ", \"%s\": ", name);
          append_number (out, values[k], TRUE);
        }
      g_string_append (out, "}\n");
    }
  else
    {
      for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
        {
          hs_csv_append_field (out, fields[i]);
          g_string_append_c (out, ',');
        }
      for (guint s = 1, n = 0; s < N_SUMMARY_SUBSETS; s++)
        if (subsets & summary_subset_flags[s])
          g_string_append_printf (out, "%s%s", n++ ? ";" : "", summary_subset_names[s]);
      if (job->thresholds != NULL)
        g_string_append_printf (out, ",%s", threshold_text);
      for (guint k = 0; k < job->n_columns; k++)
        {
          g_string_append_c (out, ',');
          append_number (out, values[k], FALSE);
        }
      g_string_append_c (out, '\n');
    }
}

static void
append_csv_header (const Job *job, GString *out)
{
  g_string_append (out, "instance,query,model,subsets");
  if (job->thresholds != NULL)
    g_string_append (out, ",threshold");
  for (guint k = 0; k < job->n_columns; k++)
    {
      g_autofree char *name = column_name (job, k);
      g_string_append_printf (out, ",%s", name);
    }
  g_string_append_c (out, '\n');
}

/* --- scoring one instance ------------------------------------------------ */

/* A message on stderr about this instance; `fails`: a problem that makes
 * the run fail, else a note (a perturbed map that is missing: the row is
 * written with null deltas). */
static void
message (InstanceResult *result, gboolean fails, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
message (InstanceResult *result, gboolean fails, const char *format, ...)
{
  va_list args;
  g_autofree char *line = NULL;

  va_start (args, format);
  line = hs_cli_message_valist ("metrics", format, args);
  va_end (args);
  g_string_append (result->errors, line);
  g_string_append_c (result->errors, '\n');
  if (fails)
    result->n_failed++;
}

/* Compares the row's map with its perturbed counterpart; FALSE (and a note)
 * when the perturbed map is missing or cannot be scored. */
static gboolean
compare_perturbed (const Job *job, InstanceResult *result, const HsInstance *instance,
                   const HsSentence *sentence, const HsPerturbed *perturbed,
                   const GError *perturb_error, const char *model, const HsAttentionMap *map,
                   const HsTarget *target, const HsScoreOptions *options, HsComparison *cmp)
{
  g_autoptr(HsAttentionMap) other = NULL;
  g_autoptr(GError) error = NULL;
  HsMapRef *ref;

  if (perturbed == NULL)
    {
      message (result, FALSE, "instance \"%s\", query \"%s\", model \"%s\": %s (deltas null)",
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
      message (result, FALSE, "instance \"%s\", query \"%s\", model \"%s\": %s: %s (deltas null)",
            instance->id, sentence->id, model, hs_perturbation_to_string (job->perturbation),
            error->message);
      return FALSE;
    }
  return TRUE;
}

static guint
count_maps (const Job *job, const HsInstance *instance, const HsSentence *sentence)
{
  guint n = 0;

  for (guint m = 0; m < job->n_models; m++)
    if (hs_instance_find_map (instance, job->models[m], sentence->id) != NULL)
      n++;
  return n;
}

static void
score_instance (const Job *job, guint index, InstanceResult *result)
{
  HsInstance *instance = hs_dataset_get_instance (job->dataset, index);
  const char *manifest = hs_dataset_get_manifest_path (job->dataset);
  gboolean have_grid = FALSE;
  HsEvalGrid grid;

  result->text = g_string_new (NULL);
  result->errors = g_string_new (NULL);
  result->rows = g_ptr_array_new_with_free_func (g_free);
  result->otsu_classes = g_ptr_array_new_with_free_func (g_free);

  for (guint s = 0; s < instance->sentences->len; s++)
    {
      HsSentence *sentence = g_ptr_array_index (instance->sentences, s);
      g_autoptr(HsTarget) target = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(HsPerturbed) perturbed = NULL;
      g_autoptr(GError) perturb_error = NULL;
      HsScoreOptions row_options;
      guint n_maps = count_maps (job, instance, sentence);
      guint subsets;

      if (n_maps == 0)
        continue;
      subsets = hs_dataset_get_subsets (job->dataset, instance, sentence);
      if (job->subset_filter != 0 && !(subsets & job->subset_filter))
        continue;

      if (!have_grid)
        {
          guint width = 0, height = 0;

          if (!hs_dataset_get_image_size (job->dataset, instance, &width, &height, &error) ||
              !hs_eval_grid_init (&grid, job->options.protocol, width, height,
                                  job->options.eval_size, &error))
            {
              message (result, TRUE, "%s: instance \"%s\": %s (%u rows skipped)", manifest,
                      instance->id, error->message, n_maps);
              result->n_failed += n_maps - 1;
              continue;
            }
          have_grid = TRUE;
        }

      target = hs_target_new (&grid);
      for (guint t = 0; sentence->targets != NULL && sentence->targets[t] != NULL; t++)
        {
          HsRegion *region = hs_instance_find_region (instance, sentence->targets[t]);

          if (region == NULL)
            g_set_error (&error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                         "%s: instance \"%s\" has no region \"%s\"", manifest, instance->id,
                         sentence->targets[t]);
          else
            hs_target_add_region (target, job->dataset, region, &error);
          if (error != NULL)
            break;
        }
      if (error != NULL)
        {
          message (result, TRUE, "instance \"%s\", query \"%s\": %s (%u rows skipped)", instance->id,
                  sentence->id, error->message, n_maps);
          result->n_failed += n_maps - 1;
          continue;
        }

      if (job->perturb != NULL)
        perturbed = hs_perturb (job->perturb, instance, sentence, job->perturbation,
                                job->options.protocol, job->perturb_seed, &perturb_error);

      /* The query's own threshold from the table, else Otsu (options.threshold = NAN). */
      row_options = job->options;
      if (job->thresholds != NULL)
        {
          const char *label = hs_sentence_get_class_label (sentence);

          if (!hs_threshold_table_lookup (job->thresholds, label, &row_options.threshold))
            {
              const char *name = label != NULL ? label : "(no class label)";

              if (!g_ptr_array_find_with_equal_func (result->otsu_classes, name, g_str_equal, NULL))
                g_ptr_array_add (result->otsu_classes, g_strdup (name));
            }
        }

      for (guint m = 0; m < job->n_models; m++)
        {
          HsMapRef *ref = hs_instance_find_map (instance, job->models[m], sentence->id);
          g_autoptr(HsAttentionMap) map = NULL;
          g_autoptr(GError) map_error = NULL;
          HsScores scores;
          HsComparison cmp;
          gboolean have_cmp = FALSE;
          RowValues *row;

          if (ref == NULL)
            continue;
          map = hs_dataset_load_map (job->dataset, ref, &map_error);
          if (map == NULL ||
              !hs_score_map (map, target, &row_options, &scores, &map_error))
            {
              message (result, TRUE, "instance \"%s\", query \"%s\", model \"%s\": %s", instance->id,
                      sentence->id, job->models[m], map_error->message);
              continue;
            }
          if (job->perturb != NULL)
            have_cmp = compare_perturbed (job, result, instance, sentence, perturbed, perturb_error,
                                          job->models[m], map, target, &row_options, &cmp);
          if (job->thresholds != NULL)
            {
              if (isnan (row_options.threshold))
                result->n_otsu++;
              else
                result->n_table++;
            }
          row = g_malloc (sizeof (RowValues) + job->n_columns * sizeof (double));
          row->model = m;
          row->subsets = subsets;
          row_values (job, &scores, have_cmp ? &cmp : NULL, row->values);
          append_row (job, result->text, instance->id, sentence->id, job->models[m], subsets,
                      row_options.threshold, row->values);
          g_ptr_array_add (result->rows, row);
        }
    }
}

static void
instance_result_clear (InstanceResult *result)
{
  if (result->text != NULL)
    g_string_free (result->text, TRUE);
  if (result->errors != NULL)
    g_string_free (result->errors, TRUE);
  g_clear_pointer (&result->rows, g_ptr_array_unref);
  g_clear_pointer (&result->otsu_classes, g_ptr_array_unref);
  result->text = result->errors = NULL;
}

static void
worker (gpointer data, gpointer user_data)
{
  Runner *runner = user_data;
  guint index = GPOINTER_TO_UINT (data) - 1;
  InstanceResult *result = &runner->results[index - runner->first];

  score_instance (runner->job, index, result);
  g_mutex_lock (&runner->lock);
  result->done = TRUE;
  g_cond_broadcast (&runner->cond);
  g_mutex_unlock (&runner->lock);
}

/* --- output -------------------------------------------------------------- */

typedef struct {
  FILE *file;
  char *path;       /* final path, NULL for stdout */
  char *tmp_path;
} Output;

static gboolean
output_open (Output *out, const char *path, GError **error)
{
  int fd;

  if (path == NULL || strcmp (path, "-") == 0)
    {
      out->file = stdout;
      return TRUE;
    }
  out->path = g_strdup (path);
  out->tmp_path = g_strdup_printf ("%s.tmp-XXXXXX", path);
  fd = g_mkstemp (out->tmp_path);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "%s: cannot create the output file: %s", path, g_strerror (saved));
      return FALSE;
    }
  out->file = fdopen (fd, "w");
  return out->file != NULL;
}

static gboolean
output_write (Output *out, const char *text, gsize len)
{
  gboolean ok = len == 0 || fwrite (text, 1, len, out->file) == len;

  /* A kill test may stop here, mid-file (after the header, after each
   * instance's rows): the same phase as hs_atomic_write's. */
  if (out->path != NULL)
    hs_stop_point_file ("atomic-partial", out->path);
  return ok;
}

/* Moves the finished file into place (a reader never sees half a file). */
static gboolean
output_close (Output *out, gboolean keep, GError **error)
{
  gboolean ok = TRUE;

  if (out->file == stdout)
    return fflush (stdout) == 0;
  if (out->file != NULL)
    {
      ok = fflush (out->file) == 0 && fsync (fileno (out->file)) == 0;
      ok = (fclose (out->file) == 0) && ok;
      out->file = NULL;
    }
  if (ok && keep)
    hs_stop_point_file ("atomic-before-rename", out->path);
  if (ok && keep && g_rename (out->tmp_path, out->path) != 0)
    ok = FALSE;
  if (ok && keep)
    hs_stop_point_file ("atomic-after-rename", out->path);
  if (!ok)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "%s: cannot write the output file: %s", out->path, g_strerror (saved));
    }
  if (!ok || !keep)
    g_unlink (out->tmp_path);
  g_clear_pointer (&out->path, g_free);
  g_clear_pointer (&out->tmp_path, g_free);
  return ok;
}

static void
append_summary (const Job *job, GString *out, HsSummary **summaries, guint n_resamples,
                guint64 seed)
{
  g_autofree HsSummaryStat *stats = g_new0 (HsSummaryStat, job->n_columns);

  if (!job->jsonl)
    g_string_append (out, "model,subset,metric,n_instances,n_rows,mean,ci_low,ci_high,resamples,seed\n");
  for (guint m = 0; m < job->n_models; m++)
    for (guint s = 0; s < N_SUMMARY_SUBSETS; s++)
      {
        HsSummary *summary = summaries[m * N_SUMMARY_SUBSETS + s];

        hs_summary_compute (summary, n_resamples, seed, stats);
        for (guint k = 0; k < job->n_columns; k++)
          {
            g_autofree char *metric = column_name (job, k);

            if (job->jsonl)
              {
                g_string_append (out, "{\"model\": ");
                append_json_string (out, job->models[m]);
                g_string_append_printf (out, ", \"subset\": \"%s\", \"metric\": \"%s\", "
                                        "\"n_instances\": %u, \"n_rows\": %u, \"mean\": ",
                                        summary_subset_names[s], metric, stats[k].n_instances,
                                        stats[k].n_rows);
                append_number (out, stats[k].mean, TRUE);
                g_string_append (out, ", \"ci_low\": ");
                append_number (out, stats[k].ci_low, TRUE);
                g_string_append (out, ", \"ci_high\": ");
                append_number (out, stats[k].ci_high, TRUE);
                g_string_append_printf (out, ", \"resamples\": %u, \"seed\": %" G_GUINT64_FORMAT "}\n",
                                        stats[k].n_resamples, stats[k].seed);
              }
            else
              {
                hs_csv_append_field (out, job->models[m]);
                g_string_append_printf (out, ",%s,%s,%u,%u,", summary_subset_names[s], metric,
                                        stats[k].n_instances, stats[k].n_rows);
                append_number (out, stats[k].mean, FALSE);
                g_string_append_c (out, ',');
                append_number (out, stats[k].ci_low, FALSE);
                g_string_append_c (out, ',');
                append_number (out, stats[k].ci_high, FALSE);
                g_string_append_printf (out, ",%u,%" G_GUINT64_FORMAT "\n", stats[k].n_resamples,
                                        stats[k].seed);
              }
          }
      }
}

/* --- main ---------------------------------------------------------------- */

static gboolean
parse_shard (const char *text, guint *k, guint *n)
{
  g_auto(GStrv) parts = NULL;
  guint64 a, b;

  if (text == NULL)
    return FALSE;
  parts = g_strsplit (text, "/", -1);
  if (g_strv_length (parts) != 2 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 1, G_MAXUINT, &a, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT, &b, NULL) || a > b)
    return FALSE;
  *k = (guint) a;
  *n = (guint) b;
  return TRUE;
}

int
hs_cli_metrics (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_auto(GStrv) model_args = NULL;
  g_auto(GStrv) all_models = NULL;
  g_autofree char *protocol_name = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *shard_text = NULL;
  g_autofree char *subset_name = NULL;
  g_autofree char *upsample_name = NULL;
  g_autofree char *output_path = NULL;
  g_autofree char *seed_text = NULL;
  g_autofree char *perturb_name = NULL;
  g_autofree char *thresholds_path = NULL;
  g_autoptr(HsThresholdTable) thresholds = NULL;
  g_autoptr(GPtrArray) otsu_classes = g_ptr_array_new_with_free_func (g_free);
  guint n_table = 0, n_otsu = 0;
  g_autofree char *perturb_seed_text = NULL;
  g_autoptr(HsPerturbContext) perturb_context = NULL;
  g_autoptr(GPtrArray) models = g_ptr_array_new_with_free_func (g_free);
  g_autofree InstanceResult *results = NULL;
  g_autofree HsSummary **summaries = NULL;
  gint jobs = 0, eval_size = 0, resamples = HS_SUMMARY_DEFAULT_RESAMPLES;
  gboolean summary = FALSE;
  guint shard_k = 1, shard_n = 1, first, last, n_failed = 0;
  guint64 seed = HS_SUMMARY_DEFAULT_SEED;
  Job job = { 0 };
  Runner runner = { 0 };
  Output output = { 0 };
  GThreadPool *pool = NULL;
  gboolean write_ok = TRUE;
  GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &model_args, "Score only this model (repeatable; default: every model with maps)", "M" },
    { "protocol", 'p', 0, G_OPTION_ARG_STRING, &protocol_name, "default (default), gloria or chexlocalize", "P" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "csv (default) or jsonl", "FORMAT" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Worker threads (default: the number of processors)", "N" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &shard_text, "Only the K-th of N contiguous blocks of instances (1-based)", "K/N" },
    { "subset", 0, 0, G_OPTION_ARG_STRING, &subset_name, "Only rows in this subset: abnormal, one_lung or mdrb (all = every row)", "NAME" },
    { "summary", 's', 0, G_OPTION_ARG_NONE, &summary, "Print per-model, per-subset, per-metric means with 95 % bootstrap intervals instead of rows", NULL },
    { "resamples", 0, 0, G_OPTION_ARG_INT, &resamples, "Bootstrap resamples of --summary (default 1000)", "B" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_text, "Bootstrap seed of --summary (default 20240229; printed)", "S" },
    { "eval-size", 0, 0, G_OPTION_ARG_INT, &eval_size, "default protocol: longest side of the evaluation grid (0 = image grid)", "N" },
    { "upsample", 0, 0, G_OPTION_ARG_STRING, &upsample_name, "default protocol: bilinear (default) or nearest", "MODE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output_path, "Write to FILE (atomically) instead of standard output", "FILE" },
    { "thresholds", 0, 0, G_OPTION_ARG_FILENAME, &thresholds_path, "chexlocalize: CheXlocalize's per-class threshold table (tuning_results.csv: threshold,task), used instead of Otsu for the queries whose class it names; adds a threshold column (otsu for the others)", "FILE.csv" },
    { "perturb", 0, 0, G_OPTION_ARG_STRING, &perturb_name, "Add delta_<metric> and sym_kl of a perturbation (swap-left-right also swap_response): swap-left-right, shuffle-in-report, random-sentence, random-boxes or synthetic-swapped-condition", "NAME" },
    { "perturb-seed", 0, 0, G_OPTION_ARG_STRING, &perturb_seed_text, "Seed of the perturbations' draws (default 0)", "S" },
    { NULL }
  };

  context = g_option_context_new ("DATASET — score every instance, query and model");
  g_option_context_add_main_entries (context, entries, NULL);
  hs_cli_describe_metrics (context,
    "One row per (instance, sentence, model) with a precomputed map, in instance order,\n"
    "sentence order and model name order whatever --jobs is.  jsonl rows hold the keys\n"
    "instance, query, model, subsets and the protocol's metrics (null = undefined); csv\n"
    "has the same columns (subsets joined with ';', empty cell = undefined).\n\n"
    "Sharding: --shard K/N takes instances [floor((K-1)n/N), floor(Kn/N)); the csv header\n"
    "is written by shard 1 only, so 'cat shard-1 ... shard-N' equals the unsharded output.\n\n"
    "--summary: per model, per subset (all, abnormal, one_lung, mdrb) and per metric, the\n"
    "mean over instances (an instance's value is the mean of its rows that define the\n"
    "metric), the counts, and a 95 % bootstrap percentile interval over instances\n"
    "(--resamples, --seed; xoshiro256**, identical on every machine).  It summarises the\n"
    "rows of this run: of one shard when sharded.\n\n"
    "A row that cannot be scored (missing or broken map, mask or image) is reported on\n"
    "standard error with the file and the reason and left out; the exit status is then 1.\n\n"
    "--perturb NAME (McInerney et al. 3.1; see hs-perturb.h) adds delta_<metric> (perturbed\n"
    "minus original, both against the ORIGINAL target) for every metric, and sym_kl.  The\n"
    "perturbed map is the precomputed map of the perturbed prompt in the same instance;\n"
    "when it is missing (or the perturbation does not apply) the row keeps its metrics,\n"
    "its deltas are null and standard error says which prompt of which model is missing.\n"
    "swap-left-right also adds swap_response = sign(t)(l_A - l_B)/2 (t: laterality of the\n"
    "target, l_A, l_B: of the original and the swapped map; positive = the map followed\n"
    "the swapped words) and leaves delta_wrong_side null: wrong_side is not scored for a\n"
    "swapped prompt against the original target.");
  if (!hs_cli_parse_dataset (context, &argc, &argv, "metrics"))
    return HS_CLI_EXIT_USAGE;

  hs_score_options_init (&job.options);
  if (protocol_name != NULL && !hs_protocol_from_string (protocol_name, &job.options.protocol))
    {
      hs_cli_error ("metrics", "unknown protocol \"%s\" (default, gloria, chexlocalize)", protocol_name);
      return HS_CLI_EXIT_USAGE;
    }
  if (format_name != NULL && strcmp (format_name, "csv") != 0 && strcmp (format_name, "jsonl") != 0)
    {
      hs_cli_error ("metrics", "unknown format \"%s\" (csv, jsonl)", format_name);
      return HS_CLI_EXIT_USAGE;
    }
  job.jsonl = format_name != NULL && strcmp (format_name, "jsonl") == 0;
  if (upsample_name != NULL && !hs_upsample_from_string (upsample_name, &job.options.upsample))
    {
      hs_cli_error ("metrics", "unknown upsampling \"%s\" (bilinear, nearest)", upsample_name);
      return HS_CLI_EXIT_USAGE;
    }
  if (eval_size < 0 || jobs < 0 || jobs > 256 || resamples < 0 || resamples > 1000000)
    {
      hs_cli_error ("metrics", "--eval-size, --jobs (≤ 256) and --resamples (≤ 10⁶) must be non-negative");
      return HS_CLI_EXIT_USAGE;
    }
  job.options.eval_size = (guint) eval_size;
  if (shard_text != NULL && !parse_shard (shard_text, &shard_k, &shard_n))
    {
      hs_cli_error ("metrics", "--shard wants K/N with 1 ≤ K ≤ N, not \"%s\"", shard_text);
      return HS_CLI_EXIT_USAGE;
    }
  if (subset_name != NULL && strcmp (subset_name, "all") != 0)
    {
      job.subset_filter = hs_subset_from_string (subset_name);
      if (job.subset_filter == 0)
        {
          hs_cli_error ("metrics", "unknown subset \"%s\" (all, abnormal, one_lung, mdrb)", subset_name);
          return HS_CLI_EXIT_USAGE;
        }
    }
  if (seed_text != NULL && !g_ascii_string_to_unsigned (seed_text, 10, 0, G_MAXUINT64, &seed, NULL))
    {
      hs_cli_error ("metrics", "--seed wants a non-negative integer, not \"%s\"", seed_text);
      return HS_CLI_EXIT_USAGE;
    }
  if (perturb_name != NULL && !hs_perturbation_from_string (perturb_name, &job.perturbation))
    {
      hs_cli_error ("metrics", "unknown perturbation \"%s\" (swap-left-right, shuffle-in-report, "
                    "random-sentence, random-boxes, synthetic-swapped-condition)", perturb_name);
      return HS_CLI_EXIT_USAGE;
    }
  if (perturb_seed_text != NULL &&
      !g_ascii_string_to_unsigned (perturb_seed_text, 10, 0, G_MAXUINT64, &job.perturb_seed, NULL))
    {
      hs_cli_error ("metrics", "--perturb-seed wants a non-negative integer, not \"%s\"",
                    perturb_seed_text);
      return HS_CLI_EXIT_USAGE;
    }
  if (thresholds_path != NULL)
    {
      if (job.options.protocol != HS_PROTOCOL_CHEXLOCALIZE)
        {
          hs_cli_error ("metrics", "--thresholds applies to --protocol chexlocalize only");
          return HS_CLI_EXIT_USAGE;
        }
      thresholds = hs_threshold_table_load (thresholds_path, &error);
      if (thresholds == NULL)
        {
          hs_cli_error ("metrics", "%s", error->message);
          return HS_CLI_EXIT_INPUT;
        }
      job.thresholds = thresholds;
    }
  if (jobs == 0)
    jobs = (gint) CLAMP (g_get_num_processors (), 1, 8);

  dataset = hs_dataset_load (argv[1], &error);
  if (dataset == NULL)
    {
      hs_cli_error ("metrics", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }

  all_models = hs_dataset_list_models (dataset);
  if (model_args != NULL)
    {
      for (guint i = 0; model_args[i] != NULL; i++)
        {
          if (!g_strv_contains ((const char * const *) all_models, model_args[i]))
            {
              g_autofree char *known = g_strjoinv (", ", all_models);

              hs_cli_error ("metrics", "%s: no map of model \"%s\" (models: %s)",
                            hs_dataset_get_manifest_path (dataset), model_args[i],
                            known[0] ? known : "none");
              return HS_CLI_EXIT_INPUT;
            }
        }
      for (guint i = 0; all_models[i] != NULL; i++)
        if (g_strv_contains ((const char * const *) model_args, all_models[i]))
          g_ptr_array_add (models, g_strdup (all_models[i]));
    }
  else
    for (guint i = 0; all_models[i] != NULL; i++)
      g_ptr_array_add (models, g_strdup (all_models[i]));

  job.dataset = dataset;
  job.models = (char **) models->pdata;
  job.n_models = models->len;
  job.metrics = hs_protocol_get_metrics (job.options.protocol, &job.n_metrics);
  job.n_columns = job.n_metrics;
  if (perturb_name != NULL)
    {
      perturb_context = hs_perturb_context_new (dataset);
      job.perturb = perturb_context;
      job.n_columns = 2 * job.n_metrics + (job.perturbation == HS_PERTURB_SWAP_LEFT_RIGHT ? 2 : 1);
    }
  /* One scoring thread per worker, whatever --jobs: the scorer's split
   * reductions (cnr) depend in the last bits on its thread count, and rows
   * must not depend on --jobs. */
  job.options.n_threads = 1;

  {
    guint64 n = hs_dataset_get_n_instances (dataset);
    first = (guint) ((shard_k - 1) * n / shard_n);
    last = (guint) (shard_k * n / shard_n);
  }

  if (!output_open (&output, output_path, &error))
    {
      hs_cli_error ("metrics", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }

  if (summary)
    {
      summaries = g_new0 (HsSummary *, MAX (1, job.n_models) * N_SUMMARY_SUBSETS);
      for (guint i = 0; i < job.n_models * N_SUMMARY_SUBSETS; i++)
        summaries[i] = hs_summary_new (job.n_columns);
    }
  else if (!job.jsonl && shard_k == 1)
    {
      g_autoptr(GString) header = g_string_new (NULL);

      append_csv_header (&job, header);
      write_ok = output_write (&output, header->str, header->len);
    }

  results = g_new0 (InstanceResult, MAX (1, last - first));
  runner.job = &job;
  runner.results = results;
  runner.first = first;
  g_mutex_init (&runner.lock);
  g_cond_init (&runner.cond);

  if (jobs > 1 && last - first > 1)
    {
      pool = g_thread_pool_new (worker, &runner, jobs, TRUE, &error);
      if (pool == NULL)
        {
          hs_cli_error ("metrics", "cannot start worker threads: %s", error->message);
          output_close (&output, FALSE, NULL);
          return HS_CLI_EXIT_INPUT;
        }
      for (guint i = first; i < last; i++)
        g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL);
    }

  for (guint i = first; i < last; i++)
    {
      InstanceResult *result = &results[i - first];

      if (pool != NULL)
        {
          g_mutex_lock (&runner.lock);
          while (!result->done)
            g_cond_wait (&runner.cond, &runner.lock);
          g_mutex_unlock (&runner.lock);
        }
      else
        score_instance (&job, i, result);

      if (result->errors->len > 0)
        fputs (result->errors->str, stderr);
      n_failed += result->n_failed;
      n_table += result->n_table;
      n_otsu += result->n_otsu;
      for (guint c = 0; c < result->otsu_classes->len; c++)
        if (!g_ptr_array_find_with_equal_func (otsu_classes, result->otsu_classes->pdata[c],
                                               g_str_equal, NULL))
          g_ptr_array_add (otsu_classes, g_strdup (result->otsu_classes->pdata[c]));
      if (summaries != NULL)
        {
          for (guint k = 0; k < job.n_models * N_SUMMARY_SUBSETS; k++)
            hs_summary_begin_group (summaries[k]);
          for (guint r = 0; r < result->rows->len; r++)
            {
              RowValues *row = g_ptr_array_index (result->rows, r);

              for (guint s = 0; s < N_SUMMARY_SUBSETS; s++)
                if (s == 0 || (row->subsets & summary_subset_flags[s]))
                  hs_summary_add (summaries[row->model * N_SUMMARY_SUBSETS + s], row->values);
            }
        }
      else if (write_ok)
        write_ok = output_write (&output, result->text->str, result->text->len);
      instance_result_clear (result);
    }

  if (pool != NULL)
    g_thread_pool_free (pool, FALSE, TRUE);
  g_mutex_clear (&runner.lock);
  g_cond_clear (&runner.cond);

  if (summaries != NULL)
    {
      g_autoptr(GString) text = g_string_new (NULL);

      append_summary (&job, text, summaries, (guint) resamples, seed);
      write_ok = write_ok && output_write (&output, text->str, text->len);
      for (guint i = 0; i < job.n_models * N_SUMMARY_SUBSETS; i++)
        hs_summary_free (summaries[i]);
    }

  if (thresholds != NULL)
    {
      g_ptr_array_add (otsu_classes, NULL);
      if (n_otsu > 0)
        {
          g_autofree char *classes = g_strjoinv ("\", \"", (char **) otsu_classes->pdata);

          g_printerr ("heatscope-cli metrics: %s: %u row%s used its threshold, %u used Otsu's "
                      "(no row for \"%s\")\n", thresholds_path, n_table, n_table == 1 ? "" : "s",
                      n_otsu, classes);
        }
      else
        g_printerr ("heatscope-cli metrics: %s: all %u rows used its threshold\n", thresholds_path,
                    n_table);
    }

  if (!write_ok)
    {
      int saved = errno;

      output_close (&output, FALSE, NULL);
      hs_cli_error ("metrics", "%s: cannot write: %s", output_path ? output_path : "standard output",
                    g_strerror (saved));
      return HS_CLI_EXIT_INPUT;
    }
  if (!output_close (&output, TRUE, &error))
    {
      hs_cli_error ("metrics", "%s", error ? error->message : "cannot write the output");
      return HS_CLI_EXIT_INPUT;
    }
  if (n_failed > 0)
    {
      hs_cli_error ("metrics", "%u row%s could not be scored (see above)", n_failed,
                    n_failed == 1 ? "" : "s");
      return HS_CLI_EXIT_INPUT;
    }
  return HS_CLI_EXIT_OK;
}
