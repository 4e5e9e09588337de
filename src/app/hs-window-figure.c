/* hs-window-figure.c — the main window's current view as a publication
 * figure: one panel through the composer (hs-figure-grid), as `heatscope-cli
 * figure --panel INSTANCE:QUERY:MODEL` draws it with the same colour map,
 * opacity, threshold and scale: the map of the shown prompt over the
 * image, the sentence's target boxes and contours, the prompt as the
 * panel's title, under it the model, instance, read-out and badge (scored
 * against the sentence's target, hs-panel-readout) and "phantom-trained
 * model on a real image" where the canvas says so; the map's tag attention
 * as the composer's tag strip when the prompt panel shows it (co-attention);
 * one titled colour bar; the page size of the remembered figure settings. */
#include <glib/gi18n.h>
#include <heatscope/hs-panel-readout.h>
#include <heatscope/hs-text.h>

#include "hs-figure-export.h"
#include "hs-prompt-panel.h"
#include "hs-utils-private.h"
#include "hs-window-private.h"

/* The read-out of `map` against `sentence`'s target, when the map is the
 * sentence's own (a swapped or typed prompt gets none). */
static gboolean
panel_readout (HsWindow *self, HsSentence *sentence, const char *prompt, GPtrArray *regions,
               GPtrArray *masks, HsPanelReadout *readout, GError **error)
{
  g_autoptr(HsTarget) target = NULL;
  HsScoreOptions options;
  HsScores scores;

  if (sentence == NULL || g_strcmp0 (prompt, sentence->text) != 0)
    return TRUE;
  target = _hs_target_of_regions (self->image, HS_PROTOCOL_DEFAULT, regions, masks, error);
  if (target == NULL)
    return FALSE;
  hs_score_options_init (&options);
  options.n_threads = 1;
  if (!hs_score_map (self->map, target, &options, &scores, error))
    return FALSE;
  hs_panel_readout_of_scores (&scores, readout);
  return TRUE;
}

gboolean
hs_window_export_figure (HsWindow *self, const char *path, GSettings *settings, GError **error)
{
  HsPromptPanel *prompt_panel;
  HsSentence *sentence;
  const char *prompt, *model;
  g_autofree char *swapped_text = NULL, *title = NULL, *note = NULL;
  g_autoptr(GPtrArray) regions = NULL;
  g_autoptr(GPtrArray) region_masks = NULL;
  g_autoptr(GArray) boxes = g_array_new (FALSE, TRUE, sizeof (HsFigureBox));
  g_autoptr(GArray) masks = g_array_new (FALSE, TRUE, sizeof (HsFigureMask));
  HsPanelReadout readout = { NULL, NULL, HS_BADGE_NEUTRAL, -1 };
  HsViewState *state;
  HsFigurePanel panel = { 0 };
  HsFigureFormat format;
  HsFigureGrid grid;
  gboolean swapped, ok;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (!HS_IS_CANVAS (self->canvas) || self->instance == NULL || self->image == NULL
      || self->map == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Cannot export %s: no map is shown"), path);
      return FALSE;
    }
  hs_figure_grid_init (&grid);
  if (!hs_figure_format_from_path (path, &format, error)
      || !hs_figure_export_size (settings, &grid, error))
    return FALSE;

  prompt_panel = hs_window_get_prompt_panel (self);
  sentence = hs_prompt_panel_get_sentence (prompt_panel);
  prompt = hs_prompt_panel_get_prompt (prompt_panel);
  swapped_text = sentence ? hs_text_swap_sides (sentence->text) : NULL;
  swapped = sentence != NULL && g_strcmp0 (prompt, sentence->text) != 0
            && g_strcmp0 (prompt, swapped_text) == 0;
  /* the sentence's targets, as the CLI draws and scores them */
  if (sentence != NULL
      && !hs_dataset_collect_targets (self->dataset, self->instance, sentence, &regions,
                                      &region_masks, error))
    return FALSE;
  _hs_figure_targets (regions, region_masks, NULL, NULL, boxes, masks);
  if (!panel_readout (self, sentence, prompt, regions, region_masks, &readout, error))
    {
      g_prefix_error (error, _("Cannot export %s: "), path);
      return FALSE;
    }

  state = hs_canvas_get_view_state (HS_CANVAS (self->canvas));
  hs_view_state_get_overlay_options (state, &grid.overlay);
  hs_figure_export_panel_view (&panel.view, self->image, self->map, state, boxes, masks);
  panel.view.phantom_model_on_real_image = hs_canvas_get_caption_phantom (HS_CANVAS (self->canvas));
  /* the composer's tag strip when the prompt panel shows one: the tags of
   * the precomputed map on screen (a live map has none) */
  if (self->live_model == NULL && self->shown_ref != NULL && self->shown_ref->n_tags > 0)
    {
      panel.view.tags = self->shown_ref->tags;
      panel.view.n_tags = self->shown_ref->n_tags;
      panel.view.show_tags = TRUE;
    }
  model = self->live_model != NULL ? self->live_model : self->model;
  title = hs_panel_title_of_prompt (prompt);
  note = hs_panel_readout_note (&readout, model, self->live_model != NULL, self->instance->id,
                                swapped);
  panel.title = title;
  panel.note = note;
  panel.badge = readout.badge;
  panel.badge_tone = readout.tone;
  panel.quantity = self->live_model == NULL && self->shown_ref != NULL ? self->shown_ref->quantity
                                                                       : NULL;
  grid.panels = &panel;
  grid.n_panels = 1;
  grid.columns = 1;
  ok = hs_figure_grid_save (&grid, format, path, error);
  hs_panel_readout_clear (&readout);
  return ok;
}
