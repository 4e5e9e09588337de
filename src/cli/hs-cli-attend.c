/* hs-cli-attend.c — heatscope-cli attend: live attention from a built-in model or an exec backend,
 * for one image and prompt, or for every query of a dataset (hs-attend-runner.h) */
#include "hs-cli.h"

#include <heatscope/hs-attend-runner.h>
#include <heatscope/hs-backend-exec.h>
#include <heatscope/hs-model.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  gboolean tty;
  gint64   start;
  gint64   last;
  guint    first_done;   /* maps done when the clock started (skipped ones) */
} Progress;

/* done/total, rate and ETA on one rewritten line, on a terminal only. */
static void
print_progress (const HsAttendCounts *counts, gpointer data)
{
  Progress *progress = data;
  gint64 now = g_get_monotonic_time ();
  guint done = counts->skipped + counts->computed + counts->failed;
  double seconds, rate;

  if (!progress->tty)
    return;
  if (progress->start == 0)
    {
      progress->start = now;
      progress->first_done = done;
    }
  if (now - progress->last < G_USEC_PER_SEC / 5 && done < counts->total)
    return;
  progress->last = now;
  seconds = (double) (now - progress->start) / G_USEC_PER_SEC;
  rate = seconds > 0 ? (done - progress->first_done) / seconds : 0;
  fprintf (stderr, "\r%u / %u maps, %.1f maps/s", done, counts->total, rate);
  if (rate > 0 && done < counts->total)
    {
      guint eta = (guint) ((counts->total - done) / rate);
      fprintf (stderr, ", ETA %u:%02u:%02u", eta / 3600, eta / 60 % 60, eta % 60);
    }
  fputs ("\033[K", stderr);
}

static void
print_problem (const char *instance, const char *image, const char *query, const char *reason,
               gpointer data)
{
  Progress *progress = data;

  if (progress->tty)
    fputs ("\r\033[K", stderr);
  hs_cli_error ("attend", "instance \"%s\" (%s), query \"%s\": %s", instance, image, query,
                reason);
}

static int
attend_dataset (const char *dataset_path, const char *model_name, const char *backend_command,
                int timeout_s, const char *name, const char *queries, char **perturb_names,
                const char *perturb_seed_text, const char *protocol_name, gboolean per_token,
                int jobs, const char *shard_text, gboolean force, int batch)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) perturbations = g_array_new (FALSE, FALSE, sizeof (HsPerturbation));
  HsAttendOptions options;
  HsAttendCounts counts = { 0 };
  Progress progress = { 0 };
  gboolean ok;

  hs_attend_options_init (&options);
  options.model = backend_command == NULL ? (model_name != NULL ? model_name : "grounded") : NULL;
  options.backend_command = backend_command;
  options.backend_timeout_ms = (guint) timeout_s * 1000;
  options.name = name;
  options.tokens = per_token;
  options.force = force;
  if (batch < 0)
    {
      hs_cli_error ("attend", "--batch %d: must be positive", batch);
      return HS_CLI_EXIT_USAGE;
    }
  options.batch_maps = (guint) batch;
  if (backend_command != NULL && name == NULL)
    {
      hs_cli_error ("attend", "--backend-exec needs --name: the model name its maps get");
      return HS_CLI_EXIT_USAGE;
    }
  if (queries == NULL || strcmp (queries, "all") == 0)
    options.queries = HS_ATTEND_QUERIES_ALL;
  else if (strcmp (queries, "sentences") == 0)
    options.queries = HS_ATTEND_QUERIES_SENTENCES;
  else if (strcmp (queries, "labels") == 0)
    options.queries = HS_ATTEND_QUERIES_LABELS;
  else
    {
      hs_cli_error ("attend", "--queries %s: expected sentences, labels or all", queries);
      return HS_CLI_EXIT_USAGE;
    }
  for (guint i = 0; perturb_names != NULL && perturb_names[i] != NULL; i++)
    {
      HsPerturbation perturbation;

      if (!hs_cli_parse_perturbation ("attend", perturb_names[i], &perturbation))
        return HS_CLI_EXIT_USAGE;
      g_array_append_val (perturbations, perturbation);
    }
  options.perturbations = (const HsPerturbation *) perturbations->data;
  options.n_perturbations = perturbations->len;
  if (!hs_cli_parse_seed ("attend", "perturb-seed", perturb_seed_text, &options.perturb_seed))
    return HS_CLI_EXIT_USAGE;
  if (!hs_cli_parse_protocol ("attend", protocol_name, &options.protocol))
    return HS_CLI_EXIT_USAGE;
  if (jobs < 0 || jobs > 256)
    {
      hs_cli_error ("attend", "--jobs %d: must be between 1 and 256", jobs);
      return HS_CLI_EXIT_USAGE;
    }
  options.jobs = jobs > 0 ? (guint) jobs : 1;
  if (!hs_cli_parse_shard ("attend", shard_text, &options.shard_k, &options.shard_n))
    return HS_CLI_EXIT_USAGE;

  progress.tty = isatty (STDERR_FILENO);
  options.progress = print_progress;
  options.problem = print_problem;
  options.user_data = &progress;
  ok = hs_attend_dataset (dataset_path, &options, NULL, &counts, &error);
  if (progress.tty && progress.start != 0)
    fputc ('\n', stderr);
  if (!ok)
    {
      hs_cli_error ("attend", "%s", error->message);
      return g_error_matches (error, HS_MODEL_ERROR, HS_MODEL_ERROR_NOT_FOUND) ||
             g_error_matches (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND) ||
             g_error_matches (error, HS_ATTEND_ERROR, HS_ATTEND_ERROR_INVALID)
             ? HS_CLI_EXIT_USAGE : HS_CLI_EXIT_INPUT;
    }
  {
    g_autofree char *line = g_strdup_printf (
      "%s: %u maps computed, %u skipped (already in the dataset), %u failed; "
      "%u perturbed queries not applicable",
      name != NULL ? name : (backend_command == NULL && model_name != NULL ? model_name : "grounded"),
      counts.computed, counts.skipped, counts.failed, counts.not_applicable);
    hs_cli_print_line (stdout, line);
  }
  if (counts.failed > 0)
    {
      hs_cli_error ("attend", "%u map%s could not be computed (see above); run again to retry them",
                    counts.failed, counts.failed == 1 ? "" : "s");
      return HS_CLI_EXIT_INPUT;
    }
  return HS_CLI_EXIT_OK;
}

int
hs_cli_attend (int argc, char **argv)
{
  g_autofree char *model_name = NULL;
  g_autofree char *image_path = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *output = NULL;
  g_autofree char *backend_command = NULL;
  gboolean per_token = FALSE, force = FALSE;
  int timeout_s = HS_BACKEND_EXEC_DEFAULT_TIMEOUT_MS / 1000, jobs = 0, batch = 0;
  g_autofree char *name = NULL;
  g_autofree char *queries = NULL;
  g_auto(GStrv) perturb_names = NULL;
  g_autofree char *perturb_seed_text = NULL;
  g_autofree char *protocol_name = NULL;
  g_autofree char *shard_text = NULL;
  GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_name, "grounded, blind, noattn, a lesion classifier's saliency (cnn-grad, cnn-ixg, cnn-gradcam, cnn-random-*) or a .safetensors file (default: grounded)", "MODEL" },
    { "backend-exec", 0, 0, G_OPTION_ARG_STRING, &backend_command, "instead of --model: run COMMAND as an external model (docs/backend-protocol.md)", "COMMAND" },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_s, "seconds to wait for the --backend-exec answer (default 30)", "SECONDS" },
    { "image", 'i', 0, G_OPTION_ARG_FILENAME, &image_path, "the image (PNG or JPEG)", "FILE" },
    { "prompt", 'p', 0, G_OPTION_ARG_STRING, &prompt, "the text to attend to", "TEXT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write the map here (.npy, float32)", "FILE" },
    { "tokens", 't', 0, G_OPTION_ARG_NONE, &per_token, "write per-token maps [tokens, h, w] instead of the sentence map [h, w]", NULL },
    { "name", 'n', 0, G_OPTION_ARG_STRING, &name, "DATASET: the model name the maps get (default: the model's own; required with --backend-exec)", "NAME" },
    { "queries", 0, 0, G_OPTION_ARG_STRING, &queries, "DATASET: sentences (report sentences, prompts), labels (class queries) or all (default)", "WHICH" },
    { "perturb", 0, 0, G_OPTION_ARG_STRING_ARRAY, &perturb_names, "DATASET: also attend the perturbed prompts of this perturbation, as metrics --perturb draws them (repeatable)", "NAME" },
    { "perturb-seed", 0, 0, G_OPTION_ARG_STRING, &perturb_seed_text, "DATASET: seed of the perturbations' draws (default 0, as metrics)", "S" },
    { "protocol", 0, 0, G_OPTION_ARG_STRING, &protocol_name, "DATASET: protocol whose swap-left-right variant to attend (default, gloria, chexlocalize)", "P" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "DATASET: workers (with --backend-exec: backend processes; default 1)", "N" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &shard_text, "DATASET: only the K-th of N contiguous blocks of instances (as metrics --shard)", "K/N" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "DATASET: recompute NAME's maps that exist, and accept another model under NAME", NULL },
    { "batch", 0, 0, G_OPTION_ARG_INT, &batch, "DATASET: record the maps in the manifest as soon as N are waiting (default: every 2 s)", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsModel) model = NULL;
  g_autoptr(HsBackendExec) backend = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  guint n_tokens, h, w;
  double no_attn;

  context = g_option_context_new ("[DATASET] — compute live attention with a built-in model");
  g_option_context_set_summary (context,
    "Runs the built-in GLoRIA-style model (or with --backend-exec an external model speaking\n"
    "the protocol of docs/backend-protocol.md) on one image and prompt.  Writes the sentence map\n"
    "[h, w] (or with --tokens the per-token maps [tokens, h, w]) as a .npy file and prints\n"
    "{\"model\", \"tokens\", \"no_attn\", \"shape\", \"output\"} as JSON on stdout.\n\n"
    "With DATASET instead of --image/--prompt: attends every query of the dataset (and with\n"
    "--perturb every perturbed prompt, drawn as metrics --perturb draws it) and writes the maps\n"
    "into it under NAME (maps/*.npy, the manifest updated under the dataset's lock, in\n"
    "batches).  Maps already there are skipped, so a killed run resumes where it stopped;\n"
    "shards (--shard K/N) may run at the same time into one dataset.  A map that cannot be\n"
    "computed (bad image, a backend that crashes, hangs or answers garbage) is reported with\n"
    "its instance, image and query, and the run goes on (exit status 1 at the end).  The\n"
    "model's SHA-256 (or the backend command) is recorded for NAME: another one is refused\n"
    "unless --force.  A progress line is shown on a terminal.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!hs_cli_parse (context, &argc, &argv, "attend"))
    return HS_CLI_EXIT_USAGE;
  if (argc > 2)
    {
      hs_cli_error ("attend", "unexpected argument '%s'", argv[2]);
      return HS_CLI_EXIT_USAGE;
    }
  if (argc == 2)
    {
      if (image_path != NULL || prompt != NULL || output != NULL)
        {
          hs_cli_error ("attend", "--image, --prompt and --output are for one image, not a DATASET");
          return HS_CLI_EXIT_USAGE;
        }
      if (model_name != NULL && backend_command != NULL)
        {
          hs_cli_error ("attend", "--model and --backend-exec exclude each other");
          return HS_CLI_EXIT_USAGE;
        }
      if (!hs_cli_check_timeout ("attend", timeout_s))
        return HS_CLI_EXIT_USAGE;
      return attend_dataset (argv[1], model_name, backend_command, timeout_s, name, queries,
                             perturb_names, perturb_seed_text, protocol_name, per_token, jobs,
                             shard_text, force, batch);
    }
  if (name != NULL || queries != NULL || perturb_names != NULL || perturb_seed_text != NULL ||
      protocol_name != NULL || jobs != 0 || shard_text != NULL || force || batch != 0)
    {
      hs_cli_error ("attend", "--name, --queries, --perturb, --perturb-seed, --protocol, --jobs, "
                    "--shard, --force and --batch need a DATASET");
      return HS_CLI_EXIT_USAGE;
    }
  if (image_path == NULL || prompt == NULL)
    {
      hs_cli_error ("attend", "--image and --prompt are required");
      return HS_CLI_EXIT_USAGE;
    }
  if (!g_utf8_validate (prompt, -1, NULL))
    {
      hs_cli_error ("attend", "the prompt is not valid UTF-8");
      return HS_CLI_EXIT_USAGE;
    }

  if (backend_command != NULL)
    {
      if (model_name != NULL)
        {
          hs_cli_error ("attend", "--model and --backend-exec exclude each other");
          return HS_CLI_EXIT_USAGE;
        }
      backend = hs_cli_backend_exec_new ("attend", backend_command, timeout_s);
      if (backend == NULL)
        return HS_CLI_EXIT_USAGE;
      if (!g_file_test (image_path, G_FILE_TEST_IS_REGULAR))
        {
          hs_cli_error ("attend", "%s: no such image file", image_path);
          return HS_CLI_EXIT_INPUT;
        }
      /* Per-token maps always: they bring the tokens for the JSON summary, and
       * their mean is the sentence map (the protocol's definition). */
      map = hs_backend_exec_attend (backend, image_path, prompt, TRUE, NULL, &error);
      if (map == NULL)
        {
          hs_cli_error ("attend", "%s", error->message);
          return g_error_matches (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND)
                 ? HS_CLI_EXIT_USAGE : HS_CLI_EXIT_INPUT;
        }
      /* A backend may answer with a sentence map only. */
      if (per_token && hs_attention_map_get_n_tokens (map) == 0)
        {
          hs_cli_error ("attend", "backend '%s' returned a sentence map, not per-token maps",
                        backend_command);
          return HS_CLI_EXIT_INPUT;
        }
    }
  else
    {
      model = hs_model_load_builtin (model_name != NULL ? model_name : "grounded", &error);
      if (model == NULL)
        {
          hs_cli_error ("attend", "%s", error->message);
          return g_error_matches (error, HS_MODEL_ERROR, HS_MODEL_ERROR_NOT_FOUND)
                 ? HS_CLI_EXIT_USAGE : HS_CLI_EXIT_INPUT;
        }
      image = hs_image_load (image_path, &error);
      if (image == NULL)
        {
          hs_cli_error ("attend", "%s", error->message);
          return HS_CLI_EXIT_INPUT;
        }
      map = hs_model_attend_image (model, image, prompt, &error);
      if (map == NULL)
        {
          hs_cli_error ("attend", "%s", error->message);
          return HS_CLI_EXIT_INPUT;
        }
    }

  n_tokens = hs_attention_map_get_n_tokens (map);
  h = hs_attention_map_get_height (map);
  w = hs_attention_map_get_width (map);
  no_attn = hs_attention_map_get_no_attn (map);
  if (output != NULL && !hs_attention_map_save_npy (map, output, per_token, &error))
    {
      hs_cli_error ("attend", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, model != NULL ? hs_model_get_name (model) : backend_command);
  json_builder_set_member_name (builder, "tokens");
  json_builder_begin_array (builder);
  for (guint t = 0; t < n_tokens; t++)
    json_builder_add_string_value (builder, hs_attention_map_get_token (map, t));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "no_attn");
  if (isnan (no_attn))
    json_builder_add_null_value (builder);
  else
    json_builder_add_double_value (builder, no_attn);
  json_builder_set_member_name (builder, "shape");
  json_builder_begin_array (builder);
  if (per_token)
    json_builder_add_int_value (builder, n_tokens);
  json_builder_add_int_value (builder, h);
  json_builder_add_int_value (builder, w);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "output");
  if (output != NULL)
    json_builder_add_string_value (builder, output);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  generator = json_generator_new ();
  json_generator_set_root (generator, root);
  json = json_generator_to_data (generator, NULL);
  printf ("%s\n", json);
  return HS_CLI_EXIT_OK;
}
