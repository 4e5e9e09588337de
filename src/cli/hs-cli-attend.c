/* hs-cli-attend.c — heatscope-cli attend: live attention from a built-in model or an exec backend */
#include "hs-cli.h"

#include <heatscope/hs-backend-exec.h>
#include <heatscope/hs-model.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int
hs_cli_attend (int argc, char **argv)
{
  g_autofree char *model_name = NULL;
  g_autofree char *image_path = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *output = NULL;
  g_autofree char *backend_command = NULL;
  gboolean per_token = FALSE;
  int timeout_s = HS_BACKEND_EXEC_DEFAULT_TIMEOUT_MS / 1000;
  GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_name,
      "grounded, blind, noattn or a .safetensors file (default: grounded)", "MODEL" },
    { "backend-exec", 0, 0, G_OPTION_ARG_STRING, &backend_command,
      "instead of --model: run COMMAND as an external model (docs/backend-protocol.md)", "COMMAND" },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_s,
      "seconds to wait for the --backend-exec answer (default 30)", "SECONDS" },
    { "image", 'i', 0, G_OPTION_ARG_FILENAME, &image_path, "the image (PNG or JPEG)", "FILE" },
    { "prompt", 'p', 0, G_OPTION_ARG_STRING, &prompt, "the text to attend to", "TEXT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write the map here (.npy, float32)", "FILE" },
    { "tokens", 't', 0, G_OPTION_ARG_NONE, &per_token,
      "write per-token maps [tokens, h, w] instead of the sentence map [h, w]", NULL },
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

  context = g_option_context_new ("— compute live attention with a built-in model");
  g_option_context_set_summary (context,
    "Runs the built-in GLoRIA-style model (or with --backend-exec an external model speaking\n"
    "the protocol of docs/backend-protocol.md) on one image and prompt.  Writes the sentence map\n"
    "[h, w] (or with --tokens the per-token maps [tokens, h, w]) as a .npy file and prints\n"
    "{\"model\", \"tokens\", \"no_attn\", \"shape\", \"output\"} as JSON on stdout.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!hs_cli_parse (context, &argc, &argv, "attend"))
    return HS_CLI_EXIT_USAGE;
  if (argc != 1)
    {
      hs_cli_error ("attend", "unexpected argument '%s'", argv[1]);
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
      if (timeout_s <= 0 || timeout_s > 24 * 3600)
        {
          hs_cli_error ("attend", "--timeout must be between 1 and 86400 seconds, not %d", timeout_s);
          return HS_CLI_EXIT_USAGE;
        }
      backend = hs_backend_exec_new (backend_command, &error);
      if (backend == NULL)
        {
          hs_cli_error ("attend", "%s", error->message);
          return HS_CLI_EXIT_USAGE;
        }
      hs_backend_exec_set_timeout (backend, (guint) timeout_s * 1000);
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
  if (output != NULL)
    {
      gsize shape[3];
      guint ndim;
      g_autofree double *values = NULL;

      if (per_token)
        {
          shape[0] = n_tokens;
          shape[1] = h;
          shape[2] = w;
          ndim = 3;
          values = g_new (double, (gsize) n_tokens * h * w);
          for (guint t = 0; t < n_tokens; t++)
            memcpy (values + (gsize) t * h * w, hs_attention_map_peek_token (map, t),
                    sizeof (double) * h * w);
        }
      else
        {
          shape[0] = h;
          shape[1] = w;
          ndim = 2;
          values = g_memdup2 (hs_attention_map_peek_values (map), sizeof (double) * h * w);
        }
      if (!hs_npy_write (output, HS_DTYPE_FLOAT32, ndim, shape, values, FALSE, FALSE, &error))
        {
          hs_cli_error ("attend", "%s", error->message);
          return HS_CLI_EXIT_INPUT;
        }
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
