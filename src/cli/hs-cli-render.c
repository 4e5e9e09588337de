/* hs-cli-render.c — heatscope-cli render DATASET --instance ID --query Q -o OUT */
#include "hs-cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CMD "render"

/* "C:W" in the image's own grey units. */
static gboolean
parse_window (const char *text, double *center, double *width)
{
  g_auto(GStrv) parts = g_strsplit (text, ":", -1);

  return g_strv_length (parts) == 2 && hs_text_parse_number (parts[0], center)
         && hs_text_parse_number (parts[1], width) && *width > 0;
}

/* "topk:K", "top-k:K", "otsu" or "none". */
static gboolean
parse_outline (const char *text, HsOutline *outline, double *k)
{
  g_auto(GStrv) parts = g_strsplit (text, ":", -1);
  guint n = g_strv_length (parts);

  if (n == 0 || !hs_outline_from_string (parts[0], outline))
    return FALSE;
  if (*outline == HS_OUTLINE_TOP_K)
    return n == 2 && hs_text_parse_number (parts[1], k) && *k > 0 && *k <= 100;
  return n == 1;
}

int
hs_cli_render (int argc, char **argv)
{
  g_autofree char *instance_id = NULL, *query = NULL, *model = NULL, *colormap = NULL;
  g_autofree char *scale = NULL, *upsample = NULL, *outline = NULL, *window = NULL;
  g_autofree char *output = NULL;
  double opacity = 0.5, gamma = NAN, log_base = NAN, threshold = 0, size = 1024;
  gboolean no_caption = FALSE;
  gboolean layers = FALSE, tags = FALSE;
  int token = -1;
  g_autofree char *model_label = NULL;
  GOptionEntry entries[] = {
    { "instance", 0, 0, G_OPTION_ARG_STRING, &instance_id, "Instance to draw (required)", "ID" },
    { "query", 0, 0, G_OPTION_ARG_STRING, &query, "Sentence id, or the exact prompt of a map (required)", "Q" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, "Model whose map is drawn (default: the first with a map for Q)", "M" },
    { "colormap", 0, 0, G_OPTION_ARG_STRING, &colormap, "jet (default), turbo, viridis, inferno, grey, diverging", "NAME" },
    { "opacity", 0, 0, G_OPTION_ARG_DOUBLE, &opacity, "Overlay opacity in [0, 1] (default 0.5)", "A" },
    { "scale", 0, 0, G_OPTION_ARG_STRING, &scale, "minmax (default), fixed:LO:HI, percentile:P1:P2", "MODE" },
    { "gamma", 0, 0, G_OPTION_ARG_DOUBLE, &gamma, "Strength curve s^G (G > 0)", "G" },
    { "log-strength", 0, 0, G_OPTION_ARG_DOUBLE, &log_base, "Strength curve −log(1 − s(1 − 1/B))/log(B) (B > 1)", "B" },
    { "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &threshold, "Scaled values below T fade to transparent (0 = off)", "T" },
    { "upsample", 0, 0, G_OPTION_ARG_STRING, &upsample, "bilinear (default) or nearest", "MODE" },
    { "outline", 0, 0, G_OPTION_ARG_STRING, &outline, "Outline the top-k % region (topk:K) or the Otsu region (otsu)", "SPEC" },
    { "window", 0, 0, G_OPTION_ARG_STRING, &window, "Window/level as centre:width in the image's own grey values (DICOM: after Rescale Slope/Intercept, e.g. Hounsfield units; default: the DICOM file's window, else the full range)", "C:W" },
    { "token", 0, 0, G_OPTION_ARG_INT, &token, "Draw the per-token map I (0-based) instead of the sentence map", "I" },
    { "size", 0, 0, G_OPTION_ARG_DOUBLE, &size, "Longest side of the image panel (default 1024)", "N" },
    { "no-caption", 0, 0, G_OPTION_ARG_NONE, &no_caption, "Leave out the caption", NULL },
    { "layers", 0, 0, G_OPTION_ARG_NONE, &layers, "Draw every region of the instance as the app's Layers tab does (the query's targets bold, the others thin) with a key naming their colours", NULL },
    { "tags", 0, 0, G_OPTION_ARG_NONE, &tags, "Under the image, the map's tag attention (co-attention) as a bar strip", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Output file: .png, .svg or .pdf (required)", "OUT" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  HsInstance *instance;
  HsSentence *sentence;
  HsMapRef *ref;
  HsFigureView view;
  HsFigureFormat format;
  HsCliTargets targets = { NULL, NULL };
  const char *prompt;
  int status = HS_CLI_EXIT_INPUT;

  context = g_option_context_new ("DATASET — draw an instance, its attention map and targets as a figure");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Draws the image (window/level), the attention overlay, the query's target boxes with\n"
    "their names and mask contours, a colour bar in map units with the scale mode, the\n"
    "No-Attn mass as its own gauge and a caption (prompt, model, instance).  In SVG and PDF\n"
    "the boxes, contours and text stay vector; only the image and overlay are a raster.");
  if (!hs_cli_parse_dataset (context, &argc, &argv, CMD))
    return HS_CLI_EXIT_USAGE;

  /* ---- usage ---- */
  if (instance_id == NULL || query == NULL || output == NULL)
    {
      hs_cli_error (CMD, "--instance, --query and -o are required");
      return HS_CLI_EXIT_USAGE;
    }
  hs_figure_view_init (&view);
  if (!hs_figure_format_from_path (output, &format, &error))
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_USAGE;
    }
  if (!hs_cli_overlay_options (CMD, colormap, scale, opacity, &view.overlay))
    return HS_CLI_EXIT_USAGE;
  if (!isnan (gamma) && !isnan (log_base))
    {
      hs_cli_error (CMD, "--gamma and --log-strength exclude each other");
      return HS_CLI_EXIT_USAGE;
    }
  if (!isnan (gamma))
    {
      if (!(gamma > 0 && isfinite (gamma)))
        {
          hs_cli_error (CMD, "--gamma must be positive");
          return HS_CLI_EXIT_USAGE;
        }
      view.overlay.strength = HS_STRENGTH_GAMMA;
      view.overlay.strength_param = gamma;
    }
  if (!isnan (log_base))
    {
      if (!(log_base > 1 && isfinite (log_base)))
        {
          hs_cli_error (CMD, "--log-strength needs a base B > 1");
          return HS_CLI_EXIT_USAGE;
        }
      view.overlay.strength = HS_STRENGTH_LOG;
      view.overlay.strength_param = log_base;
    }
  if (!(threshold >= 0 && threshold <= 1))
    {
      hs_cli_error (CMD, "--threshold must lie in [0, 1]");
      return HS_CLI_EXIT_USAGE;
    }
  view.overlay.threshold = threshold;
  if (!hs_cli_parse_upsample (CMD, upsample, &view.overlay.upsample))
    return HS_CLI_EXIT_USAGE;
  if (outline && !parse_outline (outline, &view.outline, &view.outline_k))
    {
      hs_cli_error (CMD, "bad --outline '%s' (topk:K with 0 < K ≤ 100, or otsu)", outline);
      return HS_CLI_EXIT_USAGE;
    }
  if (window && !parse_window (window, &view.window_center, &view.window_width))
    {
      hs_cli_error (CMD, "bad --window '%s' (centre:width, width > 0)", window);
      return HS_CLI_EXIT_USAGE;
    }
  if (token < -1)
    {
      hs_cli_error (CMD, "--token must be 0 or more");
      return HS_CLI_EXIT_USAGE;
    }
  if (!(size >= 16 && size <= 16384))
    {
      hs_cli_error (CMD, "--size must lie in [16, 16384]");
      return HS_CLI_EXIT_USAGE;
    }
  view.max_size = size;
  view.show_caption = !no_caption;

  /* ---- data ---- */
  dataset = hs_dataset_load (argv[1], &error);
  if (dataset == NULL)
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  instance = hs_dataset_find_instance (dataset, instance_id);
  if (instance == NULL)
    {
      hs_cli_error (CMD, "%s: no instance '%s'", argv[1], instance_id);
      return HS_CLI_EXIT_INPUT;
    }
  ref = hs_cli_find_map (instance, model, query);
  sentence = hs_instance_find_sentence (instance, ref && ref->query ? ref->query : query);
  if (ref == NULL)
    {
      if (sentence == NULL)
        hs_cli_error (CMD, "%s: instance '%s' has no sentence or map prompt '%s'",
                      argv[1], instance_id, query);
      else
        hs_cli_error (CMD, "%s: instance '%s' has no map for query '%s'%s%s",
                      argv[1], instance_id, query, model ? " and model " : "", model ? model : "");
      return HS_CLI_EXIT_INPUT;
    }

  image = hs_dataset_load_image (dataset, instance, &error);
  if (image == NULL)
    goto fail;
  map = hs_dataset_load_map (dataset, ref, &error);
  if (map == NULL)
    goto fail;
  if (layers ? !hs_cli_collect_layers (dataset, instance, sentence, &targets, &error)
             : !hs_cli_collect_targets (dataset, instance, sentence, &targets, &error))
    goto fail;

  prompt = ref->prompt ? ref->prompt : sentence ? sentence->text : query;
  view.image = image;
  {
    /* --window and the default are the image's own values; the figure levels samples. */
    double center, width;

    if (window)
      {
        center = view.window_center;
        width = view.window_width;
      }
    else
      hs_image_get_default_window (image, &center, &width);
    hs_image_window_to_samples (image, center, width, &view.window_center, &view.window_width);
  }
  view.map = hs_attention_map_peek_values (map);
  view.model = ref->model;
  if (token >= 0)
    {
      const char *name;

      if ((guint) token >= hs_attention_map_get_n_tokens (map))
        {
          g_set_error (&error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                       "%s: the map has %u per-token maps, no token %d", ref->file,
                       hs_attention_map_get_n_tokens (map), token);
          goto fail;
        }
      view.map = hs_attention_map_peek_token (map, (guint) token);
      name = hs_attention_map_get_token (map, (guint) token);
      model_label = name ? g_strdup_printf ("%s, token %d “%s”", ref->model, token, name)
                         : g_strdup_printf ("%s, token %d", ref->model, token);
      view.model = model_label;
    }
  view.map_width = hs_attention_map_get_width (map);
  view.map_height = hs_attention_map_get_height (map);
  view.no_attn = isfinite (ref->no_attn) ? ref->no_attn : hs_attention_map_get_no_attn (map);
  view.boxes = (const HsFigureBox *) (const void *) targets.boxes->data;
  view.n_boxes = targets.boxes->len;
  view.masks = (const HsFigureMask *) (const void *) targets.masks->data;
  view.n_masks = targets.masks->len;
  if (targets.key != NULL)
    {
      view.key = (const HsRegionKeyEntry *) (const void *) targets.key->data;
      view.n_key = targets.key->len;
    }
  view.prompt = prompt;
  view.instance = instance->id;
  view.phantom_model_on_real_image = hs_model_is_phantom_trained_on_real (ref->model, instance);
  view.tags = ref->tags;
  view.n_tags = ref->n_tags;
  view.show_tags = tags;
  if (tags && ref->n_tags == 0)
    g_printerr ("heatscope-cli %s: note: the map of model \"%s\" has no tag attention: no tag strip\n",
                CMD, ref->model);

  if (!hs_figure_save (&view, format, output, &error))
    goto fail;
  status = HS_CLI_EXIT_OK;
  hs_cli_targets_clear (&targets);
  return status;

fail:
  hs_cli_error (CMD, "%s", error->message);
  hs_cli_targets_clear (&targets);
  return status;
}
