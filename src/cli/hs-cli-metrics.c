/* hs-cli-metrics.c — heatscope-cli metrics DATASET: score every (instance, query, model)
 *
 * Rows come in instance order, then sentence order, then model name, whatever
 * --jobs says: workers score whole instances and the main thread writes the
 * results in order.  --shard K/N keeps the K-th of N contiguous blocks of
 * instances (instances [⌊(K−1)·n/N⌋, ⌊K·n/N⌋)), so concatenating the shards'
 * outputs in K order gives the unsharded output byte for byte (the CSV
 * header is written by shard 1 only). */
#include "hs-cli.h"
#include <heatscope/hs-score-rows.h>
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
  HsScoreRowsJob  rows;          /* what each row holds (hs-score-rows.h) */
  gboolean        jsonl;
} Job;

typedef struct {
  GString        *text;
  HsInstanceRows  rows;
  gboolean        done;
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

/* A jsonl row: the CSV's keys (hs_score_rows_append_csv_row), null for undefined. */
static void
append_jsonl_row (const Job *job, GString *out, const char *instance, const char *query,
                  const HsScoreRow *row)
{
  const double *values = row->values;

  g_string_append (out, "{\"instance\": ");
  append_json_string (out, instance);
  g_string_append (out, ", \"query\": ");
  append_json_string (out, query);
  g_string_append (out, ", \"model\": ");
  append_json_string (out, job->rows.models[row->model]);
  g_string_append (out, ", \"subsets\": [");
  for (guint s = 1, n = 0; s < N_SUMMARY_SUBSETS; s++)
    if (row->subsets & summary_subset_flags[s])
      g_string_append_printf (out, "%s\"%s\"", n++ ? ", " : "", summary_subset_names[s]);
  g_string_append (out, "]");
  if (job->rows.thresholds != NULL)
    {
      g_autofree char *threshold = isnan (row->threshold) ? g_strdup ("otsu")
                                                          : hs_metric_format (row->threshold);
      g_string_append_printf (out, isnan (row->threshold) ? ", \"threshold\": \"%s\""
                                                          : ", \"threshold\": %s", threshold);
    }
  for (guint k = 0; k < job->rows.n_columns; k++)
    {
      g_autofree char *name = hs_score_rows_column_name (&job->rows, k);

      g_string_append_printf (out, ", \"%s\": ", name);
      append_number (out, values[k], TRUE);
    }
  g_string_append (out, "}\n");
}

/* --- scoring one instance ------------------------------------------------ */

static void
score_instance (const Job *job, guint index, InstanceResult *result)
{
  HsInstance *instance = hs_dataset_get_instance (job->rows.dataset, index);

  hs_score_rows_instance (&job->rows, index, &result->rows);
  result->text = g_string_new (NULL);
  for (guint r = 0; r < result->rows.rows->len; r++)
    {
      HsScoreRow *row = g_ptr_array_index (result->rows.rows, r);
      HsSentence *sentence = g_ptr_array_index (instance->sentences, row->sentence);

      if (job->jsonl)
        append_jsonl_row (job, result->text, instance->id, sentence->id, row);
      else
        hs_score_rows_append_csv_row (&job->rows, result->text, instance->id, sentence->id, row);
    }
}

static void
instance_result_clear (InstanceResult *result)
{
  if (result->text != NULL)
    g_string_free (result->text, TRUE);
  result->text = NULL;
  hs_instance_rows_clear (&result->rows);
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

/* The subsets some sentence of the dataset is in: those apply to it (an
 * MRI dataset has no one_lung or mdrb sentence); the others get no lines. */
static guint
dataset_subsets (HsDataset *dataset)
{
  guint subsets = 0;

  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      for (guint k = 0; instance->sentences != NULL && k < instance->sentences->len; k++)
        subsets |= hs_dataset_get_subsets (dataset, instance,
                                           g_ptr_array_index (instance->sentences, k));
    }
  return subsets;
}

static void
append_summary (const Job *job, GString *out, HsSummary **summaries, guint n_resamples,
                guint64 seed)
{
  guint applies = dataset_subsets (job->rows.dataset);

  g_autofree HsSummaryStat *stats = g_new0 (HsSummaryStat, job->rows.n_columns);
  /* With --perturb a perturbation column: the summaries of several runs,
   * one per perturbation, concatenate into the model × perturbation × metric
   * table of McInerney et al. */
  const char *perturbation = job->rows.perturb != NULL
                             ? hs_perturbation_to_string (job->rows.perturbation) : NULL;

  if (!job->jsonl)
    g_string_append (out, perturbation != NULL
                     ? "model,perturbation,subset,metric,n_instances,n_rows,mean,ci_low,ci_high,resamples,seed\n"
                     : "model,subset,metric,n_instances,n_rows,mean,ci_low,ci_high,resamples,seed\n");
  for (guint m = 0; m < job->rows.n_models; m++)
    for (guint s = 0; s < N_SUMMARY_SUBSETS; s++)
      {
        HsSummary *summary = summaries[m * N_SUMMARY_SUBSETS + s];

        if (s > 0 && !(applies & summary_subset_flags[s]))
          continue;
        hs_summary_compute (summary, n_resamples, seed, stats);
        for (guint k = 0; k < job->rows.n_columns; k++)
          {
            g_autofree char *metric = hs_score_rows_column_name (&job->rows, k);

            if (job->jsonl)
              {
                g_string_append (out, "{\"model\": ");
                append_json_string (out, job->rows.models[m]);
                if (perturbation != NULL)
                  g_string_append_printf (out, ", \"perturbation\": \"%s\"", perturbation);
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
                hs_csv_append_field (out, job->rows.models[m]);
                if (perturbation != NULL)
                  g_string_append_printf (out, ",%s", perturbation);
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
  HsScoreOptions options;
  HsPerturbation perturbation = HS_PERTURB_SWAP_LEFT_RIGHT;
  guint64 perturb_seed = 0;
  guint subset_filter = 0;
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
    "--summary: per model, per subset (all, abnormal, one_lung, mdrb; a subset no sentence\n"
    "of the dataset is in, such as one_lung on an MRI dataset, is left out) and per metric, the\n"
    "mean over instances (an instance's value is the mean of its rows that define the\n"
    "metric), the counts, and a 95 % bootstrap percentile interval over instances\n"
    "(--resamples, --seed; xoshiro256**, identical on every machine).  It summarises the\n"
    "rows of this run: of one shard when sharded.  With --perturb it has a perturbation\n"
    "column after the model: the summaries of one run per perturbation concatenate into\n"
    "the model x perturbation x metric table (McInerney et al.).\n\n"
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
    "swapped prompt against the original target.\n\n"
    "Co-attention: when a scored map has a tag_attention, every row ends in tag_entropy\n"
    "and tag_entropy_norm of its map's tag weights (-sum p ln p in nats over the weights\n"
    "renormalised to sum 1, and that divided by ln n for n tags; empty/null for a map\n"
    "without tags), summarised like the metrics; a dataset without tags has no such column.",
    argc, argv);
  if (!hs_cli_parse_dataset (context, &argc, &argv, "metrics"))
    return HS_CLI_EXIT_USAGE;

  hs_score_options_init (&options);
  if (!hs_cli_parse_protocol ("metrics", protocol_name, &options.protocol))
    return HS_CLI_EXIT_USAGE;
  if (format_name != NULL && strcmp (format_name, "csv") != 0 && strcmp (format_name, "jsonl") != 0)
    {
      hs_cli_error ("metrics", "unknown format \"%s\" (csv, jsonl)", format_name);
      return HS_CLI_EXIT_USAGE;
    }
  job.jsonl = format_name != NULL && strcmp (format_name, "jsonl") == 0;
  if (!hs_cli_parse_upsample ("metrics", upsample_name, &options.upsample))
    return HS_CLI_EXIT_USAGE;
  if (eval_size < 0 || jobs < 0 || jobs > 256 || resamples < 0 || resamples > 1000000)
    {
      hs_cli_error ("metrics", "--eval-size, --jobs (≤ 256) and --resamples (≤ 10⁶) must be non-negative");
      return HS_CLI_EXIT_USAGE;
    }
  options.eval_size = (guint) eval_size;
  if (!hs_cli_parse_shard ("metrics", shard_text, &shard_k, &shard_n))
    return HS_CLI_EXIT_USAGE;
  if (subset_name != NULL && strcmp (subset_name, "all") != 0)
    {
      subset_filter = hs_subset_from_string (subset_name);
      if (subset_filter == 0)
        {
          hs_cli_error ("metrics", "unknown subset \"%s\" (all, abnormal, one_lung, mdrb)", subset_name);
          return HS_CLI_EXIT_USAGE;
        }
    }
  if (!hs_cli_parse_seed ("metrics", "seed", seed_text, &seed))
    return HS_CLI_EXIT_USAGE;
  if (!hs_cli_parse_perturbation ("metrics", perturb_name, &perturbation))
    return HS_CLI_EXIT_USAGE;
  if (!hs_cli_parse_seed ("metrics", "perturb-seed", perturb_seed_text, &perturb_seed))
    return HS_CLI_EXIT_USAGE;
  if (thresholds_path != NULL)
    {
      if (options.protocol != HS_PROTOCOL_CHEXLOCALIZE)
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

  if (perturb_name != NULL)
    perturb_context = hs_perturb_context_new (dataset);
  hs_score_rows_job_init (&job.rows, dataset, (const char * const *) models->pdata, models->len,
                          &options, perturb_context, perturbation, perturb_seed);
  job.rows.subset_filter = subset_filter;
  job.rows.thresholds = thresholds;
  hs_score_rows_job_use_tag_columns (&job.rows);

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
      summaries = g_new0 (HsSummary *, MAX (1, job.rows.n_models) * N_SUMMARY_SUBSETS);
      for (guint i = 0; i < job.rows.n_models * N_SUMMARY_SUBSETS; i++)
        summaries[i] = hs_summary_new (job.rows.n_columns);
    }
  else if (!job.jsonl && shard_k == 1)
    {
      g_autoptr(GString) header = g_string_new (NULL);

      hs_score_rows_append_csv_header (&job.rows, header);
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

      for (guint e = 0; e < result->rows.messages->len; e++)
        g_printerr ("heatscope-cli metrics: %s\n", (char *) result->rows.messages->pdata[e]);
      n_failed += result->rows.n_failed;
      n_table += result->rows.n_table;
      n_otsu += result->rows.n_otsu;
      for (guint c = 0; c < result->rows.otsu_classes->len; c++)
        if (!g_ptr_array_find_with_equal_func (otsu_classes, result->rows.otsu_classes->pdata[c],
                                               g_str_equal, NULL))
          g_ptr_array_add (otsu_classes, g_strdup (result->rows.otsu_classes->pdata[c]));
      if (summaries != NULL)
        {
          for (guint k = 0; k < job.rows.n_models * N_SUMMARY_SUBSETS; k++)
            hs_summary_begin_group (summaries[k]);
          for (guint r = 0; r < result->rows.rows->len; r++)
            {
              HsScoreRow *row = g_ptr_array_index (result->rows.rows, r);

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
      for (guint i = 0; i < job.rows.n_models * N_SUMMARY_SUBSETS; i++)
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
