/* hs-cli-figure.c — heatscope-cli figure DATASET --panel I:Q[:M[:PERTURBATION]] ... -o OUT
 *
 * Composes a publication figure (hs-figure-grid) from precomputed maps:
 * rows × columns of panels with one shared colour scale and bar, A − B
 * difference panels with a diverging bar, panel letters, headers, a region
 * legend and a caption, at a physical width and font size. */
#include "hs-cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CMD "figure"

typedef struct {
  HsImage        *image;
  HsAttentionMap *map;
  double         *diff;        /* difference panels: A − B, owned */
  guint           diff_w, diff_h;
  HsCliTargets    targets;
  char           *title, *note;
  const char     *quantity;    /* the map's, from the manifest (borrowed); NULL: unstated */
  gboolean        phantom_note;  /* a built-in model's map of a real image */
} PanelData;

static void
panel_data_free (gpointer data)
{
  PanelData *d = data;

  g_clear_pointer (&d->image, hs_image_unref);
  g_clear_pointer (&d->map, hs_attention_map_unref);
  g_free (d->diff);
  hs_cli_targets_clear (&d->targets);
  g_free (d->title);
  g_free (d->note);
  g_free (d);
}

/* A prompt without its own quotes, so a caption never nests them. */
static char *
clean_prompt (const char *text)
{
  GString *s = g_string_new (NULL);

  for (const char *c = text; c && *c; c = g_utf8_next_char (c))
    {
      gunichar u = g_utf8_get_char (c);
      if (u == '"' || u == 0x201C || u == 0x201D)
        continue;
      g_string_append_unichar (s, u);
    }
  return g_string_free (s, FALSE);
}

/* AUROC of `map` against the ORIGINAL sentence's target (default protocol). */
static gboolean
score_against (HsDataset *dataset, const HsInstance *instance, const HsSentence *sentence,
               HsImage *image, HsAttentionMap *map, double *auroc, GError **error)
{
  g_autoptr(HsTarget) target = NULL;
  HsScoreOptions options;
  HsScores scores;
  HsEvalGrid grid;

  hs_score_options_init (&options);
  if (!hs_eval_grid_init (&grid, options.protocol, hs_image_get_width (image),
                          hs_image_get_height (image), 0, error))
    return FALSE;
  target = hs_target_new (&grid);
  for (guint i = 0; sentence->targets && sentence->targets[i]; i++)
    {
      HsRegion *region = hs_instance_find_region (instance, sentence->targets[i]);
      if (region && !hs_target_add_region (target, dataset, region, error))
        return FALSE;
    }
  if (!hs_score_map (map, target, &options, &scores, error))
    return FALSE;
  *auroc = scores.value[HS_METRIC_AUROC];
  return TRUE;
}

/* One --panel INSTANCE:QUERY[:MODEL[:PERTURBATION]]. */
static PanelData *
load_panel (HsDataset *dataset, const char *dataset_path, const char *spec, GError **error)
{
  g_auto(GStrv) parts = g_strsplit (spec, ":", 4);
  guint n = g_strv_length (parts);
  const char *model;
  g_autofree char *swapped = NULL, *prompt = NULL;
  HsPerturbation perturbation = HS_N_PERTURBATIONS;
  HsInstance *instance;
  HsSentence *sentence;
  HsMapRef *ref;
  PanelData *d;

  if (n < 2 || *parts[0] == '\0' || *parts[1] == '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "bad --panel '%s' (INSTANCE:QUERY[:MODEL[:swap-left-right]])", spec);
      return NULL;
    }
  model = n >= 3 && *parts[2] ? parts[2] : NULL;
  if (n == 4 && (!hs_perturbation_from_string (parts[3], &perturbation)
                 || perturbation != HS_PERTURB_SWAP_LEFT_RIGHT))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--panel '%s': the only perturbation a figure draws is swap-left-right", spec);
      return NULL;
    }
  instance = hs_dataset_find_instance (dataset, parts[0]);
  if (instance == NULL)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND, "%s: no instance '%s'",
                   dataset_path, parts[0]);
      return NULL;
    }
  sentence = hs_instance_find_sentence (instance, parts[1]);
  if (perturbation == HS_PERTURB_SWAP_LEFT_RIGHT)
    {
      /* the swapped prompt's own precomputed map, boxed and scored against
       * the ORIGINAL sentence's target */
      if (sentence == NULL)
        {
          g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                       "%s: --panel '%s': a swapped panel needs a sentence id, instance '%s' has no sentence '%s'",
                       dataset_path, spec, parts[0], parts[1]);
          return NULL;
        }
      swapped = hs_text_swap_sides (sentence->text);
      ref = hs_instance_find_map_by_prompt (instance, model, swapped);
      if (ref == NULL)
        {
          g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                       "%s: instance '%s' has no map%s%s for the swapped prompt '%s'",
                       dataset_path, parts[0], model ? " of model " : "", model ? model : "",
                       swapped);
          return NULL;
        }
    }
  else
    {
      ref = hs_cli_find_map (instance, model, parts[1]);
      if (ref == NULL)
        {
          g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                       "%s: instance '%s' has no map for query '%s'%s%s", dataset_path, parts[0],
                       parts[1], model ? " and model " : "", model ? model : "");
          return NULL;
        }
      if (sentence == NULL && ref->query)
        sentence = hs_instance_find_sentence (instance, ref->query);
    }

  d = g_new0 (PanelData, 1);
  d->image = hs_dataset_load_image (dataset, instance, error);
  if (d->image)
    d->map = hs_dataset_load_map (dataset, ref, error);
  if (d->map == NULL || !hs_cli_collect_targets (dataset, instance, sentence, &d->targets, error))
    {
      panel_data_free (d);
      return NULL;
    }
  d->phantom_note = hs_model_is_phantom_trained_on_real (ref->model, instance);
  prompt = clean_prompt (swapped ? swapped : ref->prompt ? ref->prompt
                         : sentence ? sentence->text : parts[1]);
  d->title = g_strdup (prompt);
  if (swapped)
    {
      double auroc = NAN;
      g_autofree char *score = NULL;

      if (!score_against (dataset, instance, sentence, d->image, d->map, &auroc, error))
        {
          panel_data_free (d);
          return NULL;
        }
      score = isfinite (auroc) ? g_strdup_printf ("%.3f", auroc) : g_strdup ("n/a");
      d->note = g_strdup_printf ("left/right swapped; boxed and scored against the original "
                                 "target: AUROC %s · %s · %s", score, ref->model, instance->id);
    }
  else
    d->note = g_strdup_printf ("%s · %s", ref->model, instance->id);
  d->quantity = ref->quantity;
  return d;
}

int
hs_cli_figure (int argc, char **argv)
{
  g_auto(GStrv) panel_specs = NULL, diff_specs = NULL, row_headers = NULL, column_headers = NULL;
  g_autofree char *output = NULL, *colormap = NULL, *scale = NULL, *width_text = NULL;
  g_autofree char *caption = NULL, *quantity = NULL;
  double dpi = 300, font_size = 7, opacity = 0.5;
  int columns = 0;
  gboolean per_row = FALSE, per_column = FALSE, no_letters = FALSE, no_regions = FALSE;
  GOptionEntry entries[] = {
    { "panel", 0, 0, G_OPTION_ARG_STRING_ARRAY, &panel_specs, "A panel (repeat; row-major): instance, sentence id or map prompt, model, optional swap-left-right", "I:Q[:M[:P]]" },
    { "diff", 0, 0, G_OPTION_ARG_STRING_ARRAY, &diff_specs, "A difference panel A − B of panels A and B (1-based, repeat)", "A,B" },
    { "columns", 0, 0, G_OPTION_ARG_INT, &columns, "Panels per row (default: all in one row, at most 3)", "N" },
    { "row-header", 0, 0, G_OPTION_ARG_STRING_ARRAY, &row_headers, "Header of the next row (repeat)", "TEXT" },
    { "column-header", 0, 0, G_OPTION_ARG_STRING_ARRAY, &column_headers, "Header of the next column (repeat)", "TEXT" },
    { "caption", 0, 0, G_OPTION_ARG_STRING, &caption, "Caption under the figure", "TEXT" },
    { "quantity", 0, 0, G_OPTION_ARG_STRING, &quantity, "Title of the colour bar (default: the maps' \"quantity\" in the manifest, else \"attention weight\")", "TEXT" },
    { "width", 0, 0, G_OPTION_ARG_STRING, &width_text, "Page width: 89mm (default), 183mm, 3.5in, 252pt", "LEN" },
    { "dpi", 0, 0, G_OPTION_ARG_DOUBLE, &dpi, "PNG resolution (default 300)", "N" },
    { "font-size", 0, 0, G_OPTION_ARG_DOUBLE, &font_size, "Text size in points (default 7)", "PT" },
    { "colormap", 0, 0, G_OPTION_ARG_STRING, &colormap, "jet (default), turbo, viridis, inferno, grey", "NAME" },
    { "scale", 0, 0, G_OPTION_ARG_STRING, &scale, "minmax (default), fixed:LO:HI, percentile:P1:P2 — over all panels together", "MODE" },
    { "opacity", 0, 0, G_OPTION_ARG_DOUBLE, &opacity, "Overlay opacity in [0, 1] (default 0.5)", "A" },
    { "per-row-scale", 0, 0, G_OPTION_ARG_NONE, &per_row, "One scale and colour bar per row instead of one for the figure", NULL },
    { "per-column-scale", 0, 0, G_OPTION_ARG_NONE, &per_column, "One scale and colour bar per column (under it) instead of one for the figure", NULL },
    { "no-letters", 0, 0, G_OPTION_ARG_NONE, &no_letters, "Leave out the panel letters", NULL },
    { "no-region-legend", 0, 0, G_OPTION_ARG_NONE, &no_regions, "Leave out the legend of region colours", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Output file: .png, .svg or .pdf (required)", "OUT" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GPtrArray) data = g_ptr_array_new_with_free_func (panel_data_free);
  g_autoptr(GArray) panels = g_array_new (FALSE, TRUE, sizeof (HsFigurePanel));
  g_autoptr(GPtrArray) diff_titles = g_ptr_array_new_with_free_func (g_free);
  HsFigureGrid grid;
  HsFigureFormat format;
  guint n_base;

  context = g_option_context_new ("DATASET — compose a publication figure of several panels");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Rows × columns of panels (image, attention overlay, target boxes and contours) on one\n"
    "page of a physical width, with ONE colour bar for the shared scale titled with the\n"
    "quantity, a diverging bar for A − B difference panels, panel letters, row and column\n"
    "headers, a legend of region colours and a caption.  Sizes are in points: PDF and SVG\n"
    "pages are the requested width, PNG is rendered at --dpi.  A swap-left-right panel\n"
    "draws the swapped prompt's map boxed and scored against the ORIGINAL target.");
  if (!hs_cli_parse_dataset (context, &argc, &argv, CMD))
    return HS_CLI_EXIT_USAGE;

  if (panel_specs == NULL || output == NULL)
    {
      hs_cli_error (CMD, "--panel (at least one) and -o are required");
      return HS_CLI_EXIT_USAGE;
    }
  if (!hs_figure_format_from_path (output, &format, &error))
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_USAGE;
    }
  hs_figure_grid_init (&grid);
  if (width_text && !hs_figure_parse_length (width_text, &grid.width, &error))
    {
      hs_cli_error (CMD, "--width: %s", error->message);
      return HS_CLI_EXIT_USAGE;
    }
  if (!(dpi >= 36 && dpi <= 2400) || !(font_size >= 2 && font_size <= 72))
    {
      hs_cli_error (CMD, "--dpi must lie in [36, 2400] and --font-size in [2, 72] points");
      return HS_CLI_EXIT_USAGE;
    }
  grid.dpi = dpi;
  grid.font_size = font_size;
  if (!hs_cli_overlay_options (CMD, colormap, scale, opacity, &grid.overlay))
    return HS_CLI_EXIT_USAGE;
  if (per_row && per_column)
    {
      hs_cli_error (CMD, "--per-row-scale and --per-column-scale exclude each other");
      return HS_CLI_EXIT_USAGE;
    }
  if (columns < 0 || columns > 64)
    {
      hs_cli_error (CMD, "--columns must lie in [1, 64]");
      return HS_CLI_EXIT_USAGE;
    }

  dataset = hs_dataset_load (argv[1], &error);
  if (dataset == NULL)
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  for (guint i = 0; panel_specs[i]; i++)
    {
      PanelData *d = load_panel (dataset, argv[1], panel_specs[i], &error);

      if (d == NULL)
        {
          hs_cli_error (CMD, "%s", error->message);
          return error->domain == G_OPTION_ERROR ? HS_CLI_EXIT_USAGE : HS_CLI_EXIT_INPUT;
        }
      g_ptr_array_add (data, d);
    }
  n_base = data->len;
  for (guint i = 0; diff_specs && diff_specs[i]; i++)
    {
      int a = 0, b = 0;
      char tail;
      PanelData *da, *db, *d;
      guint wa, ha;

      if (sscanf (diff_specs[i], "%d,%d%c", &a, &b, &tail) != 2 || a < 1 || b < 1
          || (guint) a > n_base || (guint) b > n_base || a == b)
        {
          hs_cli_error (CMD, "bad --diff '%s' (A,B: two different panel numbers in 1..%u)",
                        diff_specs[i], n_base);
          return HS_CLI_EXIT_USAGE;
        }
      da = g_ptr_array_index (data, a - 1);
      db = g_ptr_array_index (data, b - 1);
      wa = hs_attention_map_get_width (da->map);
      ha = hs_attention_map_get_height (da->map);
      if (wa != hs_attention_map_get_width (db->map) || ha != hs_attention_map_get_height (db->map))
        {
          hs_cli_error (CMD, "--diff %s: the maps are %u×%u and %u×%u; a difference needs one grid",
                        diff_specs[i], wa, ha, hs_attention_map_get_width (db->map),
                        hs_attention_map_get_height (db->map));
          return HS_CLI_EXIT_INPUT;
        }
      d = g_new0 (PanelData, 1);
      d->image = hs_image_ref (da->image);
      d->phantom_note = da->phantom_note || db->phantom_note;
      d->diff = g_new (double, (gsize) wa * ha);
      d->diff_w = wa;
      d->diff_h = ha;
      for (gsize k = 0; k < (gsize) wa * ha; k++)
        d->diff[k] = hs_attention_map_peek_values (da->map)[k]
                     - hs_attention_map_peek_values (db->map)[k];
      d->targets.boxes = g_array_ref (da->targets.boxes);
      d->targets.masks = g_array_new (FALSE, FALSE, sizeof (HsFigureMask));
      for (guint m = 0; m < da->targets.masks->len; m++)
        {
          HsFigureMask fm = g_array_index (da->targets.masks, HsFigureMask, m);
          fm.mask = hs_image_ref (fm.mask);
          g_array_append_val (d->targets.masks, fm);
        }
      d->title = g_strdup_printf ("%c − %c", 'a' + a - 1, 'a' + b - 1);
      d->note = g_strdup_printf ("difference of panels %c and %c", 'a' + a - 1, 'a' + b - 1);
      g_ptr_array_add (data, d);
    }

  for (guint i = 0; i < data->len; i++)
    {
      PanelData *d = g_ptr_array_index (data, i);
      HsFigurePanel panel = { 0 };

      hs_figure_view_init (&panel.view);
      panel.view.image = d->image;
      panel.view.map = d->diff ? d->diff : hs_attention_map_peek_values (d->map);
      panel.view.map_width = d->diff ? d->diff_w : hs_attention_map_get_width (d->map);
      panel.view.map_height = d->diff ? d->diff_h : hs_attention_map_get_height (d->map);
      panel.view.overlay.opacity = opacity;
      panel.view.boxes = (const HsFigureBox *) (const void *) d->targets.boxes->data;
      panel.view.n_boxes = d->targets.boxes->len;
      panel.view.masks = (const HsFigureMask *) (const void *) d->targets.masks->data;
      panel.view.n_masks = d->targets.masks->len;
      panel.view.phantom_model_on_real_image = d->phantom_note;
      panel.title = d->title;
      panel.note = d->note;
      panel.difference = d->diff != NULL;
      panel.quantity = d->quantity;
      g_array_append_val (panels, panel);
    }
  grid.panels = (const HsFigurePanel *) (const void *) panels->data;
  grid.n_panels = panels->len;
  grid.columns = columns > 0 ? (guint) columns : MIN (panels->len, 3);
  grid.row_headers = (const char * const *) row_headers;
  grid.column_headers = (const char * const *) column_headers;
  grid.caption = caption;
  grid.quantity = quantity;
  grid.scale_group = per_row ? HS_FIGURE_SCALE_ROW
                     : per_column ? HS_FIGURE_SCALE_COLUMN : HS_FIGURE_SCALE_SHARED;
  grid.letters = !no_letters;
  grid.region_legend = !no_regions;
  if (!hs_figure_grid_save (&grid, format, output, &error))
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  return HS_CLI_EXIT_OK;
}
