/* hs-window-deck-case.c — a case of a demo deck and the window's view:
 * capture what is on screen into an HsDeckCase, and restore it exactly
 *
 * What a case holds is hs-deck.h's; this file maps the window onto it: the
 * instance, the sentence (1-based) or free prompt and its swap, the
 * model(s), every overlay setting of the view state, the view kind, zoom
 * and pan (relative to the fitted image, so a case looks the same on a
 * larger screen), and which ground-truth layers are shown.
 */
#include <math.h>
#include <glib/gi18n.h>
#include <heatscope/heatscope.h>

#include "hs-window-private.h"

/* ---- the viewport ----------------------------------------------------------- */

/* The zoom at which the image just fits a view of the canvas's size. */
static double
plain_fit_zoom (HsCanvas *canvas, HsImage *image)
{
  HsCanvasTransform t = { 1, 0, 0 };
  int w = gtk_widget_get_width (GTK_WIDGET (canvas)), h = gtk_widget_get_height (GTK_WIDGET (canvas));

  if (image == NULL || w <= 0 || h <= 0)
    return 0;
  hs_canvas_transform_fit (&t, hs_image_get_width (image), hs_image_get_height (image), w, h);
  return t.zoom;
}

void
_hs_window_deck_capture_viewport (HsCanvas *canvas, HsDeckCase *item)
{
  HsImage *image = hs_canvas_get_image (canvas);
  HsCanvasTransform t;
  gboolean fit = TRUE;
  double fit_zoom = plain_fit_zoom (canvas, image);
  double ix, iy;

  item->zoom = 1;
  item->center_x = item->center_y = 0.5;
  g_object_get (canvas, "fit", &fit, NULL);
  if (fit || fit_zoom <= 0)
    return;
  hs_canvas_get_transform (canvas, &t);
  hs_canvas_transform_widget_to_image (&t, gtk_widget_get_width (GTK_WIDGET (canvas)) / 2.0,
                                       gtk_widget_get_height (GTK_WIDGET (canvas)) / 2.0, &ix, &iy);
  item->zoom = CLAMP (t.zoom / fit_zoom, 1.0, 64.0);
  item->center_x = CLAMP (ix / hs_image_get_width (image), 0.0, 1.0);
  item->center_y = CLAMP (iy / hs_image_get_height (image), 0.0, 1.0);
}

static void apply_viewport (HsCanvas *canvas, const HsDeckCase *item);

/* A canvas not laid out yet (a new compare window, the presentation's
 * first case) gets the viewport on its first frame with a size. */
static gboolean
viewport_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  if (gtk_widget_get_width (widget) <= 0)
    return G_SOURCE_CONTINUE;
  apply_viewport (HS_CANVAS (widget), data);
  return G_SOURCE_REMOVE;
}

void
_hs_window_deck_restore_viewport (HsCanvas *canvas, const HsDeckCase *item)
{
  if (gtk_widget_get_width (GTK_WIDGET (canvas)) > 0 || hs_canvas_get_image (canvas) == NULL)
    apply_viewport (canvas, item);
  else
    gtk_widget_add_tick_callback (GTK_WIDGET (canvas), viewport_tick, hs_deck_case_copy (item),
                                  (GDestroyNotify) hs_deck_case_free);
}

static void
apply_viewport (HsCanvas *canvas, const HsDeckCase *item)
{
  HsImage *image = hs_canvas_get_image (canvas);
  double fit_zoom = plain_fit_zoom (canvas, image);
  HsCanvasTransform t;

  /* Zoom 1 centred is the fitted view (beside the colour bar, as a new
   * image opens). */
  if (fit_zoom <= 0 || (item->zoom <= 1.0 && item->center_x == 0.5 && item->center_y == 0.5))
    {
      hs_canvas_zoom_fit (canvas);
      return;
    }
  t.zoom = fit_zoom * item->zoom;
  t.offset_x = gtk_widget_get_width (GTK_WIDGET (canvas)) / 2.0 -
               item->center_x * hs_image_get_width (image) * t.zoom;
  t.offset_y = gtk_widget_get_height (GTK_WIDGET (canvas)) / 2.0 -
               item->center_y * hs_image_get_height (image) * t.zoom;
  hs_canvas_set_transform (canvas, &t);
}

/* ---- the overlay settings ---------------------------------------------------- */

static void
capture_state (HsViewState *state, HsDeckCase *item)
{
  hs_view_state_get_overlay_options (state, &item->overlay);
  item->outline = hs_view_state_get_outline (state);
  item->outline_top_k = hs_view_state_get_outline_top_k (state);
  g_object_get (state, "window-level-center", &item->window_center,
                "window-level-width", &item->window_width, NULL);
  item->show_overlay = hs_view_state_get_show_overlay (state);
  item->show_boxes = hs_view_state_get_show_boxes (state);
  item->show_masks = hs_view_state_get_show_masks (state);
}

void
_hs_window_deck_restore_state (HsViewState *state, const HsDeckCase *item)
{
  const HsOverlayOptions *o = &item->overlay;
  const char *outline = item->outline == HS_OUTLINE_TOP_K ? "top-k"
                        : item->outline == HS_OUTLINE_OTSU ? "otsu" : "none";

  g_object_freeze_notify (G_OBJECT (state));
  hs_view_state_set_colormap (state, hs_colormap_to_string (o->colormap));
  hs_view_state_set_scale_mode (state, o->scale.mode);
  if (o->scale.mode == HS_SCALE_FIXED)
    g_object_set (state, "scale-min", o->scale.lo, "scale-max", o->scale.hi, NULL);
  else if (o->scale.mode == HS_SCALE_PERCENTILE)
    g_object_set (state, "percentile-low", o->scale.p_lo, "percentile-high", o->scale.p_hi, NULL);
  g_object_set (state,
                "strength-curve", hs_strength_to_string (o->strength),
                "strength", o->strength_param,
                "threshold", o->threshold,
                "upsample", hs_upsample_to_string (o->upsample),
                "opacity", o->opacity,
                "outline", outline,
                "outline-top-k", item->outline_top_k,
                "show-overlay", item->show_overlay,
                "show-boxes", item->show_boxes,
                "show-masks", item->show_masks,
                NULL);
  hs_view_state_set_window_level (state, item->window_center, item->window_width);
  g_object_thaw_notify (G_OBJECT (state));
}

/* ---- capture --------------------------------------------------------------------- */

static guint
sentence_number (HsInstance *instance, HsSentence *sentence)
{
  for (guint i = 0; sentence != NULL && instance->sentences != NULL && i < instance->sentences->len; i++)
    if (g_ptr_array_index (instance->sentences, i) == sentence)
      return i + 1;
  return 0;
}

/* The SHA-256 of the maps shown (hs_deck_hash_maps), NULL without one. */
static char *
hash_maps (HsAttentionMap **maps, guint n)
{
  for (guint i = 0; i < n; i++)
    if (maps[i] == NULL)
      return NULL;
  return n > 0 ? hs_deck_hash_maps (maps, n) : NULL;
}

HsDeckCase *
_hs_window_deck_capture (HsWindow *self, GError **error)
{
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);
  const char *prompt = hs_prompt_panel_get_prompt (self->prompt_panel);
  g_autoptr(HsDeckCase) item = NULL;
  HsAttentionMap *maps[1] = { self->map };

  if (self->dataset == NULL || self->instance == NULL)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID,
                   _("Open an instance before adding it to the deck"));
      return NULL;
    }
  item = hs_deck_case_new (self->instance->id);
  item->sentence = sentence_number (self->instance, sentence);
  if (sentence != NULL)
    item->sentence_text = g_strdup (sentence->text);
  if (sentence == NULL || g_strcmp0 (prompt, sentence->text) != 0)
    {
      g_autofree char *swapped = sentence != NULL ? hs_text_swap_sides (sentence->text) : NULL;

      /* The sentence with left and right swapped is the sentence's swap,
       * anything else a free prompt (scored against the sentence's targets). */
      if (swapped != NULL && g_strcmp0 (prompt, swapped) == 0)
        item->swap = TRUE;
      else if (prompt != NULL && *prompt != '\0')
        item->prompt = g_strdup (prompt);
    }
  if (self->live_model != NULL)
    hs_deck_case_add_model (item, self->live_model, TRUE);
  else if (self->model != NULL)
    hs_deck_case_add_model (item, self->model, FALSE);
  item->view = HS_DECK_VIEW_SINGLE;
  capture_state (HS_VIEW_STATE (self->view_state), item);
  _hs_window_deck_capture_viewport (HS_CANVAS (self->canvas), item);
  item->map_sha256 = hash_maps (maps, self->map != NULL ? 1 : 0);
  if (item->map_sha256 != NULL)
    item->maps_sha256 = hs_deck_hash_each (maps, 1);
  return g_steal_pointer (&item);
}

/* A compare window's view: the window's case (instance, sentence, model)
 * with the compare view's kind, blink, maps and viewport. */
HsDeckCase *
_hs_window_deck_capture_compare (HsWindow *self, HsCompareView *view, gboolean grid, GError **error)
{
  g_autoptr(HsDeckCase) item = _hs_window_deck_capture (self, error);
  g_autoptr(GPtrArray) maps = g_ptr_array_new ();
  guint n = hs_compare_view_get_n_canvases (view);
  HsCanvas *first = n > 0 ? hs_compare_view_get_canvas (view, 0) : NULL;

  if (item == NULL)
    return NULL;
  if (first == NULL)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID, _("The comparison shows no map yet"));
      return NULL;
    }
  if (grid)
    item->view = HS_DECK_VIEW_GRID;
  else
    item->view = hs_compare_view_get_blink (view) ? HS_DECK_VIEW_BLINK : HS_DECK_VIEW_COMPARE;
  /* The cells' settings are the window's (their scale is always shared:
   * the case keeps the window's, for when it is opened as a single view).
   * The models are the view's: A and B (one model twice for a swap pair),
   * or every model of the grid, precomputed or live, in the view's order
   * (hs_deck_case_load_maps' order, which the hashes follow). */
  g_clear_pointer (&item->prompt, g_free);
  item->swap = !grid && hs_compare_view_get_swapped (view);
  g_ptr_array_set_size (item->models, 0);
  for (guint i = 0; i < (grid ? n : MIN (n, 2)); i++)
    {
      gboolean live = FALSE;
      const char *model = hs_compare_view_get_model (view, i, &live);

      if (model != NULL && (i == 0 || !item->swap))
        hs_deck_case_add_model (item, model, live);
      g_ptr_array_add (maps, hs_compare_view_get_map (view, i));
    }
  _hs_window_deck_capture_viewport (first, item);
  g_clear_pointer (&item->map_sha256, g_free);
  g_clear_pointer (&item->maps_sha256, g_strfreev);
  item->map_sha256 = hash_maps ((HsAttentionMap **) maps->pdata, maps->len);
  if (item->map_sha256 != NULL)
    item->maps_sha256 = hs_deck_hash_each ((HsAttentionMap **) maps->pdata, maps->len);
  return g_steal_pointer (&item);
}

/* A results-table row: its instance, sentence and model with the window's
 * overlay settings, fitted. */
HsDeckCase *
_hs_window_deck_capture_row (HsWindow *self, const char *instance_id, const char *sentence_id,
                             const char *model, GError **error)
{
  HsInstance *instance = self->dataset != NULL ? hs_dataset_find_instance (self->dataset, instance_id) : NULL;
  g_autoptr(HsDeckCase) item = NULL;

  if (instance == NULL)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID, _("Unknown instance “%s”"), instance_id);
      return NULL;
    }
  item = hs_deck_case_new (instance_id);
  for (guint i = 0; instance->sentences != NULL && i < instance->sentences->len; i++)
    {
      HsSentence *sentence = g_ptr_array_index (instance->sentences, i);

      if (g_strcmp0 (sentence->id, sentence_id) == 0)
        {
          item->sentence = i + 1;
          item->sentence_text = g_strdup (sentence->text);
        }
    }
  if (item->sentence == 0)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID, _("Instance %s has no sentence “%s”"),
                   instance_id, sentence_id);
      return NULL;
    }
  hs_deck_case_add_model (item, model, FALSE);
  capture_state (HS_VIEW_STATE (self->view_state), item);
  /* The row's map as it is now, so that opening the case can tell. */
  {
    const HsMapRef *ref = hs_instance_find_map (instance, model, sentence_id);
    g_autoptr(HsAttentionMap) map = ref != NULL ? _hs_window_load_map (self, ref, NULL) : NULL;

    if (map != NULL)
      {
        item->map_sha256 = hs_deck_hash_maps (&map, 1);
        item->maps_sha256 = hs_deck_hash_each (&map, 1);
      }
  }
  return g_steal_pointer (&item);
}

/* ---- restore ----------------------------------------------------------------------- */

static gboolean
select_model (HsWindow *self, const HsDeckModel *model)
{
  guint first = self->n_precomputed + (self->no_model_entry ? 1 : 0);

  if (!model->live)
    return hs_window_select_model (self, model->name);
  for (guint i = 0; i < self->live_names->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->live_names, i), model->name) == 0)
      {
        gtk_drop_down_set_selected (self->model_dropdown, first + i);
        return TRUE;
      }
  return FALSE;
}

/* Everything but the viewport and the compare window, which need the
 * image: _hs_window_deck_finish_restore does them once it is in. */
gboolean
_hs_window_deck_restore (HsWindow *self, const HsDeckCase *item, GError **error)
{
  HsInstance *instance;
  HsSentence *sentence = NULL;

  g_return_val_if_fail (self->dataset != NULL, FALSE);

  instance = hs_dataset_find_instance (self->dataset, item->instance);
  if (instance == NULL)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED,
                   _("The dataset has no instance “%s” any more"), item->instance);
      return FALSE;
    }
  if (item->sentence > 0)
    {
      if (instance->sentences == NULL || item->sentence > instance->sentences->len)
        {
          g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED,
                       _("Instance %s has no sentence %u any more"), item->instance, item->sentence);
          return FALSE;
        }
      sentence = g_ptr_array_index (instance->sentences, item->sentence - 1);
      if (item->sentence_text != NULL && g_strcmp0 (item->sentence_text, sentence->text) != 0)
        {
          g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED,
                       _("Sentence %u of instance %s changed: it was “%s”, it is “%s”"),
                       item->sentence, item->instance, item->sentence_text, sentence->text);
          return FALSE;
        }
    }
  if (item->models != NULL && item->models->len > 0 && item->view != HS_DECK_VIEW_GRID &&
      !select_model (self, g_ptr_array_index (item->models, 0)))
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED, _("The dataset has no model “%s” any more"),
                   ((HsDeckModel *) g_ptr_array_index (item->models, 0))->name);
      return FALSE;
    }
  if (self->instance != instance && !hs_window_select_instance (self, item->instance))
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED,
                   _("Instance “%s” is hidden by the browser's filter or search"), item->instance);
      return FALSE;
    }
  if (sentence != NULL)
    hs_prompt_panel_select_sentence (self->prompt_panel, sentence->id);
  if (item->prompt != NULL)
    hs_prompt_panel_set_prompt (self->prompt_panel, item->prompt);
  else if (item->swap && item->view == HS_DECK_VIEW_SINGLE && sentence != NULL)
    {
      g_autofree char *swapped = hs_text_swap_sides (sentence->text);
      hs_prompt_panel_set_prompt (self->prompt_panel, swapped);
    }
  else if (sentence != NULL)
    hs_prompt_panel_set_prompt (self->prompt_panel, sentence->text);
  _hs_window_deck_restore_state (HS_VIEW_STATE (self->view_state), item);
  return TRUE;
}

/* `canvas` (the presentation's) shows what the window's canvas shows:
 * the same image, map, regions and caption, through the same code. */
void
_hs_window_deck_fill_canvas (HsWindow *self, HsCanvas *canvas)
{
  HsCaption caption;

  hs_view_state_copy_from (hs_canvas_get_view_state (canvas), HS_VIEW_STATE (self->view_state));
  hs_canvas_set_image (canvas, self->image);
  hs_canvas_set_map (canvas, self->map);
  hs_canvas_set_token (canvas, hs_prompt_panel_get_token (self->prompt_panel));
  hs_canvas_set_quantity (canvas, self->shown_ref != NULL && self->map != NULL ? self->shown_ref->quantity : NULL);
  _hs_window_layers_apply (self, canvas);
  _hs_window_get_caption (self, &caption);
  hs_canvas_set_caption_fields (canvas, &caption);
}

/* The title of a case in the deck panel: instance, sentence or prompt, view. */
char *
_hs_window_deck_case_title (const HsDeckCase *item)
{
  const char *text = hs_deck_case_get_text (item);
  const char *kind = item->view == HS_DECK_VIEW_COMPARE ? _("A | B | A − B")
                     : item->view == HS_DECK_VIEW_BLINK ? _("blink A/B")
                     : item->view == HS_DECK_VIEW_GRID ? _("model grid") : NULL;
  GString *title = g_string_new (item->instance);

  if (item->models != NULL && item->models->len > 0 && item->view != HS_DECK_VIEW_GRID)
    g_string_append_printf (title, " · %s", ((HsDeckModel *) g_ptr_array_index (item->models, 0))->name);
  if (kind != NULL)
    g_string_append_printf (title, " · %s", kind);
  if (item->swap && item->view == HS_DECK_VIEW_SINGLE)
    g_string_append_printf (title, " · %s", _("swapped"));
  if (item->reveal)
    g_string_append_printf (title, " · %s", _("in steps"));
  if (text != NULL)
    g_string_append_printf (title, "\n%s", text);
  return g_string_free (title, FALSE);
}
