/* hs-cli-score.c — heatscope-cli score: one map against boxes and masks */
#include "hs-cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "score"
/* The null baselines take the model map's grid; with no map at hand they are scored on 16 × 16. */

static gboolean
parse_size (const char *text, guint *w, guint *h)
{
  char *end = NULL;
  guint64 a, b;

  if (text == NULL || !g_ascii_isdigit (text[0]))
    return FALSE;
  errno = 0;
  a = g_ascii_strtoull (text, &end, 10);
  if (errno != 0 || end == NULL || (*end != 'x' && *end != 'X') || !g_ascii_isdigit (end[1]))
    return FALSE;
  b = g_ascii_strtoull (end + 1, &end, 10);
  if (errno != 0 || *end != '\0' || a == 0 || b == 0 || a > G_MAXUINT || b > G_MAXUINT)
    return FALSE;
  *w = (guint) a;
  *h = (guint) b;
  return TRUE;
}

static gboolean
parse_box (const char *text, HsBox *box)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  double v[4];

  if (g_strv_length (parts) != 4)
    return FALSE;
  for (guint i = 0; i < 4; i++)
    if (!hs_text_parse_number (g_strstrip (parts[i]), &v[i]))
      return FALSE;
  *box = (HsBox) { v[0], v[1], v[2], v[3] };
  return TRUE;
}

/* Error messages from the library name the file most of the time; make sure. */
static void
file_error (const char *path, const GError *error)
{
  if (strstr (error->message, path) != NULL)
    hs_cli_error (CMD, "%s", error->message);
  else
    hs_cli_error (CMD, "%s: %s", path, error->message);
}

static void
print_text (const HsScores *scores, const char *title)
{
  guint n;
  const HsMetric *list = hs_protocol_get_metrics (scores->protocol, &n);

  if (title != NULL)
    printf ("\n%s\n", title);
  for (guint i = 0; i < n; i++)
    {
      HsMetric m = list[i];

      if (isnan (scores->value[m]))
        printf ("%-22s n/a — %s\n", hs_metric_get_name (m), scores->reason[m]);
      else
        {
          g_autofree char *text = hs_metric_format (scores->value[m]);
          printf ("%-22s %s\n", hs_metric_get_name (m), text);
        }
    }
}

int
hs_cli_score (int argc, char **argv)
{
  g_autofree char *map_path = NULL, *size_text = NULL, *protocol_text = NULL;
  g_autofree char *upsample_text = NULL, *image_path = NULL, *perturbed_path = NULL;
  g_autofree char *thresholds_path = NULL, *query_class = NULL;
  g_autoptr(HsThresholdTable) thresholds = NULL;
  const char *threshold_source = NULL;   /* with --thresholds: "table" or "otsu" */
  g_auto(GStrv) box_texts = NULL, mask_paths = NULL;
  gint eval_size = 0;
  gint64 seed = HS_BASELINE_DEFAULT_SEED;
  double no_attn = NAN, threshold = NAN;
  g_autofree char *no_attn_text = NULL;
  gboolean json = FALSE, baselines = FALSE;
  const GOptionEntry entries[] = {
    { "map", 0, 0, G_OPTION_ARG_FILENAME, &map_path, "Attention map (.npy, [h,w] or [tokens,h,w])", "F.npy" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size_text, "Image size (optional with --image)", "WxH" },
    { "box", 0, 0, G_OPTION_ARG_STRING_ARRAY, &box_texts, "Target box in image pixels (repeatable)", "x1,y1,x2,y2" },
    { "mask", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &mask_paths, "Target mask, non-zero = inside (repeatable)", "F.png" },
    { "protocol", 0, 0, G_OPTION_ARG_STRING, &protocol_text, "default, gloria or chexlocalize", "P" },
    { "upsample", 0, 0, G_OPTION_ARG_STRING, &upsample_text, "bilinear (default) or nearest; default protocol only", "MODE" },
    { "eval-size", 0, 0, G_OPTION_ARG_INT, &eval_size, "Longest side of the evaluation grid (default protocol)", "N" },
    { "no-attn", 0, 0, G_OPTION_ARG_STRING, &no_attn_text, "Mass on the No-Attn slot, in [0, 1]", "V" },
    { "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &threshold, "chexlocalize: fixed threshold on the normalised map instead of Otsu", "T" },
    { "thresholds", 0, 0, G_OPTION_ARG_FILENAME, &thresholds_path, "chexlocalize: CheXlocalize's per-class threshold table (tuning_results.csv: threshold,task); the row of --query's class is used instead of Otsu", "FILE.csv" },
    { "query", 0, 0, G_OPTION_ARG_STRING, &query_class, "The class label that picks the --thresholds row (e.g. \"Atelectasis\")", "CLASS" },
    { "image", 0, 0, G_OPTION_ARG_FILENAME, &image_path, "The image (needed by the sobel and laplace baselines)", "F.png" },
    { "perturbed", 0, 0, G_OPTION_ARG_FILENAME, &perturbed_path, "A perturbed map of the same image: adds sym_kl and delta_<metric>", "F.npy" },
    { "baselines", 0, 0, G_OPTION_ARG_NONE, &baselines, "Add the null baselines (uniform, center, sobel, laplace, random); without --map, score them alone on a 16×16 grid", NULL },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Seed of the random baseline", "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(HsAttentionMap) perturbed = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsTarget) target = NULL;
  HsScoreOptions options;
  HsEvalGrid grid;
  HsScores scores;
  guint W = 0, H = 0;

  context = g_option_context_new ("— score one attention map against boxes or masks");
  g_option_context_set_summary (context,
    "Scores the map with every metric of metrics.md under the chosen protocol.\n"
    "With --json, prints one JSON object whose keys are the metric names (null = undefined).");
  g_option_context_add_main_entries (context, entries, NULL);
  hs_cli_describe_metrics (context, NULL, argc, argv);
  if (!hs_cli_parse (context, &argc, &argv, CMD))
    return HS_CLI_EXIT_USAGE;
  if (argc > 1)
    {
      hs_cli_error (CMD, "unexpected argument '%s'", argv[1]);
      return HS_CLI_EXIT_USAGE;
    }
  if (map_path == NULL && !baselines)
    {
      hs_cli_error (CMD, "missing --map F.npy (or --baselines alone to score the null baselines)");
      return HS_CLI_EXIT_USAGE;
    }
  if (no_attn_text != NULL)
    {
      char *end = NULL;

      /* A share of the attention: "nan", "inf" or 1.5 is a mistake, and NaN
       * would silently read as "not given". */
      no_attn = g_ascii_strtod (no_attn_text, &end);
      if (end == no_attn_text || *end != '\0' || !(no_attn >= 0 && no_attn <= 1))
        {
          hs_cli_error (CMD, "--no-attn must be a share in [0, 1], not '%s'", no_attn_text);
          return HS_CLI_EXIT_USAGE;
        }
    }
  if (map_path == NULL && (perturbed_path != NULL || !isnan (no_attn)))
    {
      hs_cli_error (CMD, "%s needs --map F.npy", perturbed_path != NULL ? "--perturbed" : "--no-attn");
      return HS_CLI_EXIT_USAGE;
    }
  if (size_text != NULL && !parse_size (size_text, &W, &H))
    {
      hs_cli_error (CMD, "--size '%s' is not WxH with positive integers (e.g. 1024x768)", size_text);
      return HS_CLI_EXIT_USAGE;
    }
  if (size_text == NULL && image_path == NULL)
    {
      hs_cli_error (CMD, "missing --size WxH (or --image F.png to take the size from)");
      return HS_CLI_EXIT_USAGE;
    }

  hs_score_options_init (&options);
  if (!hs_cli_parse_protocol (CMD, protocol_text, &options.protocol))
    return HS_CLI_EXIT_USAGE;
  if (!hs_cli_parse_upsample (CMD, upsample_text, &options.upsample))
    return HS_CLI_EXIT_USAGE;
  if (upsample_text != NULL && options.protocol != HS_PROTOCOL_DEFAULT)
    {
      hs_cli_error (CMD, "--upsample applies to the default protocol only (gloria is nearest, "
                         "chexlocalize bilinear)");
      return HS_CLI_EXIT_USAGE;
    }
  if (eval_size < 0 || (eval_size > 0 && options.protocol != HS_PROTOCOL_DEFAULT))
    {
      hs_cli_error (CMD, eval_size < 0 ? "--eval-size must be positive"
                                       : "--eval-size applies to the default protocol only");
      return HS_CLI_EXIT_USAGE;
    }
  options.eval_size = (guint) eval_size;
  if (!isnan (threshold))
    {
      if (options.protocol != HS_PROTOCOL_CHEXLOCALIZE || !isfinite (threshold))
        {
          hs_cli_error (CMD, "--threshold applies to the chexlocalize protocol only and must be finite");
          return HS_CLI_EXIT_USAGE;
        }
      options.threshold = threshold;
    }
  if (thresholds_path != NULL || query_class != NULL)
    {
      if (thresholds_path == NULL || query_class == NULL)
        {
          hs_cli_error (CMD, "--thresholds FILE.csv and --query CLASS go together");
          return HS_CLI_EXIT_USAGE;
        }
      if (options.protocol != HS_PROTOCOL_CHEXLOCALIZE || !isnan (threshold))
        {
          hs_cli_error (CMD, "--thresholds applies to the chexlocalize protocol only, without --threshold");
          return HS_CLI_EXIT_USAGE;
        }
      thresholds = hs_threshold_table_load (thresholds_path, &error);
      if (thresholds == NULL)
        {
          hs_cli_error (CMD, "%s", error->message);
          return HS_CLI_EXIT_INPUT;
        }
      if (hs_threshold_table_lookup (thresholds, query_class, &options.threshold))
        threshold_source = "table";
      else
        {
          threshold_source = "otsu";
          if (!json)
            g_printerr ("heatscope-cli score: %s has no row for class \"%s\": Otsu's threshold is used\n",
                        thresholds_path, query_class);
        }
    }
  if (baselines && image_path == NULL)
    {
      hs_cli_error (CMD, "--baselines needs --image F.png: the sobel and laplace baselines are "
                         "computed on the image");
      return HS_CLI_EXIT_USAGE;
    }
  if (seed < 0 || seed > G_MAXUINT32)
    {
      hs_cli_error (CMD, "--seed must be in 0 … %u", G_MAXUINT32);
      return HS_CLI_EXIT_USAGE;
    }
  for (guint i = 0; box_texts != NULL && box_texts[i] != NULL; i++)
    {
      HsBox box;
      if (!parse_box (box_texts[i], &box))
        {
          hs_cli_error (CMD, "--box '%s' is not four finite numbers x1,y1,x2,y2", box_texts[i]);
          return HS_CLI_EXIT_USAGE;
        }
    }

  /* One map to score: the scoring threads' cores are kept awake while the
   * inputs are read (docs/performance.md). */
  if (map_path != NULL)
    hs_score_warm_up ();

  /* Inputs. */
  if (map_path != NULL)
    {
      map = hs_attention_map_load_npy (map_path, NULL, NAN, &error);
      if (map == NULL)
        {
          file_error (map_path, error);
          return HS_CLI_EXIT_INPUT;
        }
    }
  if (!isnan (no_attn))
    {
      if (!isfinite (no_attn))
        {
          hs_cli_error (CMD, "--no-attn must be finite");
          return HS_CLI_EXIT_USAGE;
        }
      hs_attention_map_set_no_attn (map, no_attn);
    }
  if (perturbed_path != NULL)
    {
      perturbed = hs_attention_map_load_npy (perturbed_path, NULL, NAN, &error);
      if (perturbed == NULL)
        {
          file_error (perturbed_path, error);
          return HS_CLI_EXIT_INPUT;
        }
      if (hs_attention_map_get_width (perturbed) != hs_attention_map_get_width (map)
          || hs_attention_map_get_height (perturbed) != hs_attention_map_get_height (map))
        {
          hs_cli_error (CMD, "%s: shape %u × %u differs from the map's %u × %u", perturbed_path,
                        hs_attention_map_get_height (perturbed), hs_attention_map_get_width (perturbed),
                        hs_attention_map_get_height (map), hs_attention_map_get_width (map));
          return HS_CLI_EXIT_INPUT;
        }
      if (!isnan (no_attn))
        hs_attention_map_set_no_attn (perturbed, no_attn);
    }
  if (image_path != NULL)
    {
      image = hs_image_load (image_path, &error);
      if (image == NULL)
        {
          file_error (image_path, error);
          return HS_CLI_EXIT_INPUT;
        }
      if (size_text == NULL)
        {
          W = hs_image_get_width (image);
          H = hs_image_get_height (image);
        }
      else if (hs_image_get_width (image) != W || hs_image_get_height (image) != H)
        {
          hs_cli_error (CMD, "%s: the image is %u×%u but --size is %u×%u", image_path,
                        hs_image_get_width (image), hs_image_get_height (image), W, H);
          return HS_CLI_EXIT_INPUT;
        }
    }

  if (!hs_eval_grid_init (&grid, options.protocol, W, H, options.eval_size, &error))
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  target = hs_target_new (&grid);
  for (guint i = 0; box_texts != NULL && box_texts[i] != NULL; i++)
    {
      HsBox box;

      parse_box (box_texts[i], &box);
      /* The one box check (hs-target.h), as validate and metrics make it. */
      if (!hs_box_check (&box, W, H, &error) || !hs_target_add_box (target, &box, &error))
        {
          hs_cli_error (CMD, "--box %s: %s", box_texts[i], error->message);
          return HS_CLI_EXIT_INPUT;
        }
    }
  for (guint i = 0; mask_paths != NULL && mask_paths[i] != NULL; i++)
    {
      g_autoptr(HsImage) mask = hs_image_load (mask_paths[i], &error);

      if (mask == NULL || !hs_target_add_mask (target, mask, &error))
        {
          file_error (mask_paths[i], error);
          return HS_CLI_EXIT_INPUT;
        }
    }

  if (map != NULL && !hs_score_map (map, target, &options, &scores, &error))
    {
      file_error (map_path, error);
      return HS_CLI_EXIT_INPUT;
    }

  {
    HsComparison cmp;
    HsScores base[HS_N_BASELINES];

    if (perturbed != NULL && !hs_compare_maps (map, perturbed, target, &options, &cmp, &error))
      {
        file_error (perturbed_path, error);
        return HS_CLI_EXIT_INPUT;
      }
    /* The baselines take the model's grid shape; with no map at hand, 16 × 16 (metrics.md). */
    guint grid_w = map != NULL ? hs_attention_map_get_width (map) : HS_BASELINE_GRID_WITHOUT_MAP;
    guint grid_h = map != NULL ? hs_attention_map_get_height (map) : HS_BASELINE_GRID_WITHOUT_MAP;

    for (guint b = 0; baselines && b < HS_N_BASELINES; b++)
      if (!hs_baseline_score ((HsBaseline) b, target, image, grid_w, grid_h,
                              (guint32) seed, &options, &base[b], &error))
        {
          hs_cli_error (CMD, "%s baseline: %s", hs_baseline_to_string ((HsBaseline) b), error->message);
          return HS_CLI_EXIT_INPUT;
        }

    if (json)
      {
        g_autofree char *text = hs_score_report_to_json (map != NULL ? &scores : NULL,
                                                         threshold_source, options.threshold,
                                                         perturbed != NULL ? &cmp : NULL,
                                                         baselines ? base : NULL);
        printf ("%s\n", text);
      }
    else
      {
        if (map != NULL)
          {
            printf ("protocol %s, evaluation grid %u×%u, target %" G_GUINT64_FORMAT " pixels\n",
                    hs_protocol_to_string (options.protocol), scores.grid_width, scores.grid_height,
                    scores.target_pixels);
            if (threshold_source != NULL)
              {
                if (isnan (options.threshold))
                  printf ("threshold: Otsu (%s has no row for \"%s\")\n", thresholds_path, query_class);
                else
                  printf ("threshold: %g (%s, class \"%s\")\n", options.threshold, thresholds_path,
                          query_class);
              }
            print_text (&scores, NULL);
          }
        else
          printf ("protocol %s, no map: null baselines on a %u×%u grid, evaluation grid %u×%u, "
                  "target %" G_GUINT64_FORMAT " pixels\n",
                  hs_protocol_to_string (options.protocol), grid_w, grid_h,
                  base[0].grid_width, base[0].grid_height, base[0].target_pixels);
        if (perturbed != NULL)
          {
            guint n;
            const HsMetric *list = hs_protocol_get_metrics (options.protocol, &n);
            g_autofree char *kl = hs_metric_format (cmp.sym_kl);

            printf ("\nperturbed: %s\n%-22s %s\n", perturbed_path, "sym_kl",
                    isnan (cmp.sym_kl) ? cmp.sym_kl_reason : kl);
            for (guint i = 0; i < n; i++)
              {
                g_autofree char *d = hs_metric_format (cmp.delta[list[i]]);
                g_autofree char *key = g_strdup_printf ("delta_%s", hs_metric_get_name (list[i]));
                printf ("%-22s %s\n", key, isnan (cmp.delta[list[i]]) ? "n/a" : d);
              }
          }
        for (guint b = 0; baselines && b < HS_N_BASELINES; b++)
          {
            g_autofree char *title = g_strdup_printf ("baseline %s", hs_baseline_to_string ((HsBaseline) b));
            print_text (&base[b], title);
          }
      }
  }
  return HS_CLI_EXIT_OK;
}
