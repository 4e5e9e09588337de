/* hs-cli-figure.c — heatscope-cli figure DATASET [--spec FIG.json] --panel I:Q[:M[:P]] ... -o OUT
 *
 * Composes a publication figure (hs-figure-grid) from precomputed maps,
 * live built-in models or the command line's external backend: rows ×
 * columns of panels with one shared colour scale and bar, A − B difference
 * panels with a diverging bar, panel letters, headers, a region legend and
 * a caption, at a physical width and font size.  Panels come from a spec
 * file (hs-figure-spec.h) and/or --panel; both are HsFigureSpecPanel. */
#include "hs-cli.h"

#include <heatscope/hs-backend-exec.h>
#include <heatscope/hs-model.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CMD "figure"

typedef struct {
  HsImage        *image;
  HsAttentionMap *map;         /* a difference panel's: A − B */
  gboolean        difference;
  HsCliTargets    targets;
  char           *title, *note;
  HsPanelReadout  readout;     /* its read-out and badge, as the compare view's cells show them */
  const char     *quantity;    /* the map's, from the manifest (borrowed); NULL: unstated */
  const HsTagWeight *tags;     /* the map's tag attention (borrowed from the dataset); NULL: none */
  guint           n_tags;
  gboolean        phantom_note;  /* a built-in model's map of a real image */
  HsScores        scores;      /* against the sentence's target (a swap's: the original's) */
  gboolean        scored;
} PanelData;

static void
panel_data_free (gpointer data)
{
  PanelData *d = data;

  if (d == NULL)   /* a panel not loaded when an earlier one failed */
    return;
  g_clear_pointer (&d->image, hs_image_unref);
  g_clear_pointer (&d->map, hs_attention_map_unref);
  hs_panel_readout_clear (&d->readout);
  hs_cli_targets_clear (&d->targets);
  g_free (d->title);
  g_free (d->note);
  g_free (d);
}

/* The scores of `map` against the sentence's target (default protocol), as
 * the compare view scores its cells. */
static gboolean
score_against (HsDataset *dataset, const HsInstance *instance, const HsSentence *sentence,
               HsImage *image, HsAttentionMap *map, HsScores *scores, GError **error)
{
  g_autoptr(HsTarget) target = NULL;
  HsScoreOptions options;
  HsEvalGrid grid;

  hs_score_options_init (&options);
  options.n_threads = 1;
  if (!hs_eval_grid_init (&grid, options.protocol, hs_image_get_width (image),
                          hs_image_get_height (image), 0, error))
    return FALSE;
  target = hs_target_new_for_sentence (&grid, dataset, instance, sentence, error);
  if (target == NULL)
    return FALSE;
  return hs_score_map (map, target, &options, scores, error);
}

/* What a panel needs beyond the dataset: the live models and the command
 * line's backend (a spec file never names a command). */
typedef struct {
  HsDataset     *dataset;
  const char    *dataset_path;
  HsModelCache  *models;
  HsBackendExec *backend;
} Sources;

/* --panel INSTANCE:QUERY[:MODEL[:swap-left-right]]; MODEL "live=NAME" runs a
 * built-in model, "live=backend-exec" the --backend-exec command.  For a
 * live panel a QUERY that is no sentence id of the instance is a free prompt. */
static HsFigureSpecPanel *
parse_panel_option (HsDataset *dataset, const char *text, GError **error)
{
  g_auto(GStrv) parts = g_strsplit (text, ":", 4);
  guint n = g_strv_length (parts);
  HsFigureSpecPanel *panel;
  HsInstance *instance;

  if (n < 2 || *parts[0] == '\0' || *parts[1] == '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "bad --panel '%s' (INSTANCE:QUERY[:MODEL[:swap-left-right]])", text);
      return NULL;
    }
  if (n == 4 && !g_str_equal (parts[3], "swap-left-right"))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--panel '%s': the only perturbation a figure draws is swap-left-right", text);
      return NULL;
    }
  panel = g_new0 (HsFigureSpecPanel, 1);
  panel->instance = g_strdup (parts[0]);
  panel->swap = n == 4;
  if (n >= 3 && g_str_has_prefix (parts[2], "live="))
    {
      const char *name = parts[2] + strlen ("live=");

      if (g_str_equal (name, "backend-exec"))
        panel->source = HS_FIGURE_SOURCE_EXEC;
      else if (hs_model_is_builtin (name))
        {
          panel->source = HS_FIGURE_SOURCE_LIVE;
          panel->model = g_strdup (name);
        }
      else
        {
          g_autofree char *names = hs_model_describe_builtin ();
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--panel '%s': '%s' is not a built-in model (%s) or backend-exec", text,
                       name, names);
          hs_figure_spec_panel_free (panel);
          return NULL;
        }
    }
  else if (n >= 3 && *parts[2])
    panel->model = g_strdup (parts[2]);
  instance = hs_dataset_find_instance (dataset, parts[0]);
  if (panel->source != HS_FIGURE_SOURCE_PRECOMPUTED && instance
      && hs_instance_find_sentence (instance, parts[1]) == NULL && !panel->swap)
    panel->prompt = g_strdup (parts[1]);
  else
    panel->query = g_strdup (parts[1]);
  return panel;
}

/* A precomputed panel's map reference (the swapped prompt's own map for a
 * swapped panel). */
static HsMapRef *
find_precomputed (const Sources *src, const HsFigureSpecPanel *spec, const char *where,
                  HsInstance *instance, const char *swapped, GError **error)
{
  HsMapRef *ref = swapped ? hs_instance_find_map_by_prompt (instance, spec->model, swapped)
                          : hs_cli_find_map (instance, spec->model, spec->query);

  if (ref == NULL && swapped)
    g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                 "%s: %s: instance '%s' has no map%s%s for the swapped prompt '%s'",
                 src->dataset_path, where, instance->id, spec->model ? " of model " : "",
                 spec->model ? spec->model : "", swapped);
  else if (ref == NULL)
    {
      g_auto(GStrv) models = hs_dataset_list_models (src->dataset);
      g_autofree char *known = spec->model && !g_strv_contains ((const char * const *) models,
                                                                spec->model)
                               ? g_strjoinv (", ", models) : NULL;
      g_autofree char *live = known ? hs_model_describe_builtin () : NULL;

      /* a model the dataset has no map of at all: every name that would do */
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                   "%s: %s: instance '%s' has no map for query '%s'%s%s%s%s%s%s%s",
                   src->dataset_path, where, instance->id, spec->query,
                   spec->model ? " and model " : "", spec->model ? spec->model : "",
                   known ? " (the dataset's models: " : "", known ? known : "",
                   known ? "; live=NAME for a built-in model: " : "", live ? live : "",
                   known ? ")" : "");
    }
  return ref;
}

/* A live panel's map: the built-in model or the external backend on the
 * dataset's image and `text`. */
static HsAttentionMap *
attend_live (const Sources *src, const HsFigureSpecPanel *spec, HsInstance *instance, HsImage *image, const char *text, GError **error)
{
  if (spec->source == HS_FIGURE_SOURCE_EXEC)
    {
      g_autofree char *image_path = NULL;

      if (src->backend == NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "a backend-exec panel needs --backend-exec COMMAND on the command "
                       "line (a spec file never names a command)");
          return NULL;
        }
      image_path = hs_dataset_resolve_path (src->dataset, instance->image, error);
      return image_path ? hs_backend_exec_attend (src->backend, image_path, text, FALSE, NULL,
                                                  error)
                        : NULL;
    }
  else
    {
      g_autoptr(HsModel) model = hs_model_cache_get_model (src->models, spec->model, error);
      return model ? hs_model_attend_image (model, image, text, error) : NULL;
    }
}

/* One panel (not a difference) from its description; `where` names it in
 * errors ("--panel 'p0:s1'" or "fig.json: $.panels[2]"). */
static PanelData *
load_panel (const Sources *src, const HsFigureSpecPanel *spec, const char *where, GError **error)
{
  g_autofree char *swapped = NULL, *prompt = NULL;
  gboolean live = spec->source != HS_FIGURE_SOURCE_PRECOMPUTED;
  const char *model_name;
  HsInstance *instance;
  HsSentence *sentence = NULL;
  HsMapRef *ref = NULL;
  PanelData *d;

  instance = hs_dataset_find_instance (src->dataset, spec->instance);
  if (instance == NULL)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND, "%s: %s: no instance '%s'",
                   src->dataset_path, where, spec->instance);
      return NULL;
    }
  if (spec->query)
    sentence = hs_instance_find_sentence (instance, spec->query);
  if ((spec->swap || (live && spec->query)) && sentence == NULL)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                   "%s: %s: instance '%s' has no sentence '%s'%s", src->dataset_path, where,
                   instance->id, spec->query ? spec->query : "",
                   spec->swap ? " (a swapped panel is scored against a sentence's target)" : "");
      return NULL;
    }
  if (spec->swap && sentence)
    swapped = hs_text_swap_sides (sentence->text);
  if (!live)
    {
      ref = find_precomputed (src, spec, where, instance, swapped, error);
      if (ref == NULL)
        return NULL;
      if (sentence == NULL && ref->query)
        sentence = hs_instance_find_sentence (instance, ref->query);
    }

  d = g_new0 (PanelData, 1);
  d->image = hs_dataset_load_image (src->dataset, instance, error);
  if (d->image)
    {
      const char *text = swapped ? swapped : sentence ? sentence->text : spec->prompt;

      d->map = live ? attend_live (src, spec, instance, d->image, text, error)
                    : hs_dataset_load_map (src->dataset, ref, error);
      if (d->map == NULL && live)
        g_prefix_error (error, "%s: ", where);
    }
  if (d->map == NULL
      || !hs_cli_collect_targets (src->dataset, instance, sentence, &d->targets, error))
    {
      panel_data_free (d);
      return NULL;
    }
  prompt = hs_panel_title_of_prompt (swapped ? swapped : ref && ref->prompt ? ref->prompt
                         : sentence ? sentence->text : spec->prompt ? spec->prompt : spec->query);
  d->title = g_strdup (spec->title ? spec->title : prompt);
  model_name = spec->source == HS_FIGURE_SOURCE_EXEC ? "external backend (live)"
               : live ? spec->model : ref->model;
  /* a built-in model (live or precomputed) on a real image says so; the
   * external backend's model is the user's own */
  d->phantom_note = spec->source != HS_FIGURE_SOURCE_EXEC
                    && hs_model_is_phantom_trained_on_real (model_name, instance);
  /* under the panel what the compare view says under its cell: the map
   * scored against the sentence's target (a swapped prompt's map against
   * the ORIGINAL target, with the original prompt's map for swap_response) */
  if (sentence && swapped)
    {
      g_autoptr(HsAttentionMap) original = NULL;
      HsScores scores, original_scores;

      if (!live)
        {
          HsMapRef *original_ref = hs_cli_find_map (instance, spec->model, sentence->id);
          original = original_ref ? hs_dataset_load_map (src->dataset, original_ref, error) : NULL;
          if (original_ref && original == NULL)
            {
              panel_data_free (d);
              return NULL;
            }
        }
      else
        {
          original = attend_live (src, spec, instance, d->image, sentence->text, error);
          if (original == NULL)
            {
              g_prefix_error (error, "%s: ", where);
              panel_data_free (d);
              return NULL;
            }
        }
      if (!score_against (src->dataset, instance, sentence, d->image, d->map, &scores, error)
          || (original && !score_against (src->dataset, instance, sentence, d->image, original,
                                          &original_scores, error)))
        {
          panel_data_free (d);
          return NULL;
        }
      hs_panel_readout_of_swap (original ? &original_scores : NULL, &scores, &d->readout);
      d->scores = scores;
      d->scored = TRUE;
    }
  else if (sentence)
    {
      HsScores scores;

      if (!score_against (src->dataset, instance, sentence, d->image, d->map, &scores, error))
        {
          panel_data_free (d);
          return NULL;
        }
      hs_panel_readout_of_scores (&scores, &d->readout);
      d->scores = scores;
      d->scored = TRUE;
    }
  /* a title of the spec names the panel; else the note does */
  if (spec->title)
    d->note = g_strdup (d->readout.line);
  else
    d->note = hs_panel_readout_note (&d->readout, model_name,
                                     spec->source == HS_FIGURE_SOURCE_LIVE, instance->id,
                                     swapped != NULL);
  d->quantity = ref ? ref->quantity : NULL;
  d->tags = ref ? ref->tags : NULL;
  d->n_tags = ref ? ref->n_tags : 0;
  return d;
}

/* A − B of two loaded panels on one map grid (hs_attention_map_difference,
 * as the compare view's third cell). */
static PanelData *
diff_panel (GPtrArray *data, const HsFigureSpecPanel *spec, const char *where, GError **error)
{
  PanelData *da = g_ptr_array_index (data, spec->diff_a - 1);
  PanelData *db = g_ptr_array_index (data, spec->diff_b - 1), *d;
  char la[HS_FIGURE_LETTER_SIZE], lb[HS_FIGURE_LETTER_SIZE];
  guint wa = hs_attention_map_get_width (da->map), ha = hs_attention_map_get_height (da->map);
  double m = 0;

  if (wa != hs_attention_map_get_width (db->map) || ha != hs_attention_map_get_height (db->map))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_INVALID,
                   "%s: the maps are %u×%u and %u×%u; a difference needs one grid", where, wa, ha,
                   hs_attention_map_get_width (db->map), hs_attention_map_get_height (db->map));
      return NULL;
    }
  d = g_new0 (PanelData, 1);
  d->map = hs_attention_map_difference (da->map, db->map, &m, error);
  if (d->map == NULL)
    {
      g_prefix_error (error, "%s: ", where);
      panel_data_free (d);
      return NULL;
    }
  d->difference = TRUE;
  d->image = hs_image_ref (da->image);
  d->phantom_note = da->phantom_note || db->phantom_note;
  d->targets.boxes = g_array_ref (da->targets.boxes);
  d->targets.masks = g_array_new (FALSE, FALSE, sizeof (HsFigureMask));
  for (guint k = 0; k < da->targets.masks->len; k++)
    {
      HsFigureMask fm = g_array_index (da->targets.masks, HsFigureMask, k);
      fm.mask = hs_image_ref (fm.mask);
      g_array_append_val (d->targets.masks, fm);
    }
  hs_panel_readout_of_difference (hs_attention_map_peek_values (da->map),
                                  hs_attention_map_peek_values (db->map), (gsize) wa * ha,
                                  m > 0 ? m : 1e-12, &d->readout);
  hs_figure_panel_letter (spec->diff_a - 1, la);
  hs_figure_panel_letter (spec->diff_b - 1, lb);
  d->title = spec->title ? g_strdup (spec->title) : g_strdup_printf ("%s − %s", la, lb);
  d->note = spec->title ? g_strdup (d->readout.line)
                        : g_strdup_printf ("difference of panels %s and %s · %s", la, lb,
                                           d->readout.line);
  return d;
}

/* --diff A,B options appended to `specs` (and their names to `wheres`). */
static gboolean
add_diff_options (GPtrArray *specs, GPtrArray *wheres, char **diff_texts, GError **error)
{
  guint n_base = specs->len;

  for (guint i = 0; diff_texts && diff_texts[i]; i++)
    {
      HsFigureSpecPanel *d;
      int a = 0, b = 0;
      char tail;

      if (sscanf (diff_texts[i], "%d,%d%c", &a, &b, &tail) != 2 || a < 1 || b < 1
          || (guint) a > n_base || (guint) b > n_base || a == b)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "bad --diff '%s' (A,B: two different panel numbers in 1..%u)",
                       diff_texts[i], n_base);
          return FALSE;
        }
      d = g_new0 (HsFigureSpecPanel, 1);
      d->diff_a = (guint) a;
      d->diff_b = (guint) b;
      g_ptr_array_add (specs, d);
      g_ptr_array_add (wheres, g_strdup_printf ("--diff %s", diff_texts[i]));
    }
  return TRUE;
}

/* The panels of `specs` loaded in order, `wheres` naming each in errors;
 * a difference refers to earlier or later panels by number (from 1). */
static gboolean
load_panels (const Sources *src, GPtrArray *specs, GPtrArray *wheres, GPtrArray *data,
             GError **error)
{
  /* differences last: their panels may come after them in the spec */
  g_ptr_array_set_size (data, specs->len);
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < specs->len; i++)
      {
        const HsFigureSpecPanel *spec = g_ptr_array_index (specs, i);
        const char *where = g_ptr_array_index (wheres, i);

        if ((spec->diff_a != 0) != (pass == 1))
          continue;
        if (spec->diff_a)
          {
            const HsFigureSpecPanel *a = g_ptr_array_index (specs, spec->diff_a - 1);
            const HsFigureSpecPanel *b = g_ptr_array_index (specs, spec->diff_b - 1);

            if (a->diff_a || b->diff_a)
              {
                g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                             "%s: panel %u is itself a difference", where,
                             a->diff_a ? spec->diff_a : spec->diff_b);
                return FALSE;
              }
            data->pdata[i] = diff_panel (data, spec, where, error);
          }
        else
          data->pdata[i] = load_panel (src, spec, where, error);
        if (data->pdata[i] == NULL)
          return FALSE;
      }
  return TRUE;
}

/* The loaded panels as the grid's HsFigurePanel (borrowing from `data`). */
static void
append_figure_panels (GPtrArray *data, double opacity, gboolean show_tags, GArray *panels)
{
  for (guint i = 0; i < data->len; i++)
    {
      PanelData *d = g_ptr_array_index (data, i);
      HsFigurePanel panel = { 0 };

      hs_figure_view_init (&panel.view);
      panel.view.image = d->image;
      panel.view.map = hs_attention_map_peek_values (d->map);
      panel.view.map_width = hs_attention_map_get_width (d->map);
      panel.view.map_height = hs_attention_map_get_height (d->map);
      panel.view.overlay.opacity = opacity;
      panel.view.boxes = (const HsFigureBox *) (const void *) d->targets.boxes->data;
      panel.view.n_boxes = d->targets.boxes->len;
      panel.view.masks = (const HsFigureMask *) (const void *) d->targets.masks->data;
      panel.view.n_masks = d->targets.masks->len;
      panel.view.phantom_model_on_real_image = d->phantom_note;
      panel.view.tags = d->tags;
      panel.view.n_tags = d->n_tags;
      panel.view.show_tags = show_tags;
      panel.title = d->title;
      panel.note = d->note;
      panel.badge = d->readout.badge;
      panel.badge_tone = d->readout.tone;
      panel.difference = d->difference;
      panel.quantity = d->quantity;
      g_array_append_val (panels, panel);
    }
}

int
hs_cli_figure (int argc, char **argv)
{
  g_auto(GStrv) panel_specs = NULL, diff_specs = NULL, row_headers = NULL, column_headers = NULL;
  g_autofree char *output = NULL, *colormap = NULL, *scale = NULL, *width_text = NULL;
  g_autofree char *caption = NULL, *quantity = NULL, *spec_path = NULL, *backend_command = NULL;
  double dpi = NAN, font_size = NAN, opacity = NAN, threshold = NAN;
  int columns = 0, timeout_s = HS_BACKEND_EXEC_DEFAULT_TIMEOUT_MS / 1000;
  gboolean per_row = FALSE, per_column = FALSE, no_letters = FALSE, no_regions = FALSE;
  gboolean tags = FALSE;
  GOptionEntry entries[] = {
    { "spec", 0, 0, G_OPTION_ARG_FILENAME, &spec_path, "A figure spec (JSON; see README): its panels come first, options given here override its settings", "FIG.json" },
    { "panel", 0, 0, G_OPTION_ARG_STRING_ARRAY, &panel_specs, "A panel (repeat; row-major): instance, sentence id or map prompt, model (precomputed, live=grounded|blind|noattn or live=backend-exec), optional swap-left-right", "I:Q[:M[:P]]" },
    { "diff", 0, 0, G_OPTION_ARG_STRING_ARRAY, &diff_specs, "A difference panel A − B of panels A and B (1-based, repeat)", "A,B" },
    { "backend-exec", 0, 0, G_OPTION_ARG_STRING, &backend_command, "The external model of live=backend-exec panels (docs/backend-protocol.md); only ever from the command line", "COMMAND" },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_s, "Seconds to wait for each --backend-exec answer (default 30)", "SECONDS" },
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
    { "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &threshold, "Transparent below this fraction of the colour bar, in [0, 1] (default 0: none; the app's overlay threshold)", "T" },
    { "per-row-scale", 0, 0, G_OPTION_ARG_NONE, &per_row, "One scale and colour bar per row instead of one for the figure", NULL },
    { "per-column-scale", 0, 0, G_OPTION_ARG_NONE, &per_column, "One scale and colour bar per column (under it) instead of one for the figure", NULL },
    { "no-letters", 0, 0, G_OPTION_ARG_NONE, &no_letters, "Leave out the panel letters", NULL },
    { "no-region-legend", 0, 0, G_OPTION_ARG_NONE, &no_regions, "Leave out the legend of region colours", NULL },
    { "tags", 0, 0, G_OPTION_ARG_NONE, &tags, "Under each panel whose map has a tag attention (co-attention), its tag weights as a bar strip", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Output file: .png, .svg or .pdf (required)", "OUT" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsFigureSpec) spec = NULL;
  g_autoptr(HsModelCache) models = NULL;
  g_autoptr(HsBackendExec) backend = NULL;
  g_autoptr(GPtrArray) specs = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_figure_spec_panel_free);
  g_autoptr(GPtrArray) data = g_ptr_array_new_with_free_func (panel_data_free);
  g_autoptr(GPtrArray) wheres = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) panels = g_array_new (FALSE, TRUE, sizeof (HsFigurePanel));
  const char *scale_group = NULL;
  Sources src = { 0 };
  HsFigureGrid grid;
  HsFigureFormat format;
  guint n_spec = 0;

  context = g_option_context_new ("DATASET — compose a publication figure of several panels");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Rows × columns of panels (image, attention overlay, target boxes and contours) on one\n"
    "page of a physical width, with ONE colour bar for the shared scale titled with the\n"
    "quantity, a diverging bar for A − B difference panels, panel letters, row and column\n"
    "headers, a legend of region colours and a caption.  Sizes are in points: PDF and SVG\n"
    "pages are the requested width, PNG is rendered at --dpi.  A swap-left-right panel\n"
    "draws the swapped prompt's map boxed and scored against the ORIGINAL target.  Panels\n"
    "are precomputed maps, live built-in models or the --backend-exec command.");
  if (!hs_cli_parse_dataset (context, &argc, &argv, CMD))
    return HS_CLI_EXIT_USAGE;

  if ((panel_specs == NULL && spec_path == NULL) || output == NULL)
    {
      hs_cli_error (CMD, "--panel (at least one) or --spec, and -o are required");
      return HS_CLI_EXIT_USAGE;
    }
  if (!hs_figure_format_from_path (output, &format, &error))
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_USAGE;
    }
  if (spec_path)
    {
      spec = hs_figure_spec_load (spec_path, &error);
      if (spec == NULL)
        {
          hs_cli_error (CMD, "%s", error->message);
          return HS_CLI_EXIT_INPUT;
        }
      /* the command line wins over the spec */
      if (width_text == NULL) width_text = g_strdup (spec->width);
      if (isnan (dpi)) dpi = spec->dpi;
      if (isnan (font_size)) font_size = spec->font_size;
      if (isnan (opacity)) opacity = spec->opacity;
      if (isnan (threshold)) threshold = spec->threshold;
      if (colormap == NULL) colormap = g_strdup (spec->colormap);
      if (scale == NULL) scale = g_strdup (spec->scale);
      if (caption == NULL) caption = g_strdup (spec->caption);
      if (quantity == NULL) quantity = g_strdup (spec->quantity);
      if (row_headers == NULL) row_headers = g_strdupv (spec->row_headers);
      if (column_headers == NULL) column_headers = g_strdupv (spec->column_headers);
      if (columns == 0) columns = (int) spec->columns;
      if (!per_row && !per_column) scale_group = spec->scale_group;
      if (!no_letters) no_letters = spec->letters == 0;
      if (!no_regions) no_regions = spec->region_legend == 0;
      if (!tags) tags = spec->tags == 1;
      n_spec = spec->panels->len;
      for (guint i = 0; i < n_spec; i++)
        g_ptr_array_add (specs, g_steal_pointer (&spec->panels->pdata[i]));
    }
  if (isnan (dpi)) dpi = 300;
  if (isnan (font_size)) font_size = 7;
  if (isnan (opacity)) opacity = 0.5;
  if (isnan (threshold)) threshold = 0;
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
  if (!(threshold >= 0 && threshold <= 1))
    {
      hs_cli_error (CMD, "--threshold must lie in [0, 1]");
      return HS_CLI_EXIT_USAGE;
    }
  grid.overlay.threshold = threshold;
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
  if (backend_command != NULL)
    {
      backend = hs_cli_backend_exec_new (CMD, backend_command, timeout_s);
      if (backend == NULL)
        return HS_CLI_EXIT_USAGE;
    }

  dataset = hs_dataset_load (argv[1], &error);
  if (dataset == NULL)
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  for (guint i = 0; panel_specs && panel_specs[i]; i++)
    {
      HsFigureSpecPanel *p = parse_panel_option (dataset, panel_specs[i], &error);

      if (p == NULL)
        {
          hs_cli_error (CMD, "%s", error->message);
          return HS_CLI_EXIT_USAGE;
        }
      g_ptr_array_add (specs, p);
    }
  models = hs_model_cache_new ();
  src.dataset = dataset;
  src.dataset_path = argv[1];
  src.models = models;
  src.backend = backend;
  for (guint i = 0; i < specs->len; i++)
    g_ptr_array_add (wheres, i < n_spec ? g_strdup_printf ("%s: $.panels[%u]", spec_path, i)
                                        : g_strdup_printf ("--panel '%s'", panel_specs[i - n_spec]));
  if (!add_diff_options (specs, wheres, diff_specs, &error)
      || !load_panels (&src, specs, wheres, data, &error))
    {
      hs_cli_error (CMD, "%s", error->message);
      return error->domain == G_OPTION_ERROR ? HS_CLI_EXIT_USAGE : HS_CLI_EXIT_INPUT;
    }

  append_figure_panels (data, opacity, tags, panels);
  grid.panels = (const HsFigurePanel *) (const void *) panels->data;
  grid.n_panels = panels->len;
  grid.columns = columns > 0 ? (guint) columns : MIN (panels->len, 3);
  grid.row_headers = (const char * const *) row_headers;
  grid.column_headers = (const char * const *) column_headers;
  grid.caption = caption;
  grid.quantity = quantity;
  grid.scale_group = per_row || g_strcmp0 (scale_group, "row") == 0 ? HS_FIGURE_SCALE_ROW
                     : per_column || g_strcmp0 (scale_group, "column") == 0 ? HS_FIGURE_SCALE_COLUMN
                     : HS_FIGURE_SCALE_SHARED;
  grid.letters = !no_letters;
  grid.region_legend = !no_regions;
  if (!hs_figure_grid_save (&grid, format, output, &error))
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  return HS_CLI_EXIT_OK;
}

/* --- for other commands (deck export): hs-cli.h --------------------------- */

struct _HsCliPanels {
  GPtrArray *data;     /* of PanelData* */
  GArray    *panels;   /* of HsFigurePanel, borrowing from data */
};

HsCliPanels *
hs_cli_panels_load (HsDataset *dataset, const char *dataset_path, HsModelCache *models,
                    GPtrArray *specs, GPtrArray *wheres, double opacity, GError **error)
{
  Sources src = { dataset, dataset_path, models, NULL };
  HsCliPanels *p = g_new0 (HsCliPanels, 1);

  p->data = g_ptr_array_new_with_free_func (panel_data_free);
  p->panels = g_array_new (FALSE, TRUE, sizeof (HsFigurePanel));
  if (!load_panels (&src, specs, wheres, p->data, error))
    {
      hs_cli_panels_free (p);
      return NULL;
    }
  append_figure_panels (p->data, opacity, FALSE, p->panels);
  return p;
}

const HsFigurePanel *
hs_cli_panels_get (HsCliPanels *p, guint *n_panels)
{
  *n_panels = p->panels->len;
  return (const HsFigurePanel *) (const void *) p->panels->data;
}

const HsScores *
hs_cli_panels_get_scores (HsCliPanels *p, guint index)
{
  PanelData *d = g_ptr_array_index (p->data, index);
  return d->scored ? &d->scores : NULL;
}

void
hs_cli_panels_free (HsCliPanels *p)
{
  if (p == NULL)
    return;
  g_clear_pointer (&p->panels, g_array_unref);
  g_clear_pointer (&p->data, g_ptr_array_unref);
  g_free (p);
}
