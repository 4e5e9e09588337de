/* hs-canvas-export.c — the canvas drawn off screen: the surface the tests
 * compare with golden images, and the export through hs_figure_save
 */
#include <math.h>

#include <glib/gi18n.h>
#include <heatscope/hs-figure.h>

#include "hs-canvas-private.h"
#include "hs-utils-private.h"

/* ---- drawing (shared by snapshot, render_surface and tests) ------------- */

/* A device-pixel layer painted 1:1 (exact: no resampling by cairo). */
static void
paint_layer (cairo_t *cr, cairo_surface_t *surface, int x, int y, int scale, double alpha)
{
  cairo_save (cr);
  cairo_scale (cr, 1.0 / scale, 1.0 / scale);
  cairo_rectangle (cr, x, y, cairo_image_surface_get_width (surface), cairo_image_surface_get_height (surface));
  cairo_clip (cr);
  cairo_set_source_surface (cr, surface, x, y);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  if (alpha >= 1.0)
    cairo_paint (cr);
  else
    cairo_paint_with_alpha (cr, alpha);
  cairo_restore (cr);
}

static void
draw_background (cairo_t *cr, int vw, int vh)
{
  cairo_save (cr);
  cairo_set_source_rgb (cr, 0.14, 0.14, 0.15);
  cairo_rectangle (cr, 0, 0, vw, vh);
  cairo_fill (cr);
  cairo_restore (cr);
}

static void
draw_all (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh)
{
  ViewKey k = _hs_canvas_view_key (t, vw, vh, 1);
  cairo_surface_t *layer;
  int x, y;

  draw_background (cr, vw, vh);
  if (self->image == NULL)
    return;
  /* The same layers as on screen, painted 1:1. */
  layer = _hs_canvas_build_image_layer (self, &k, &x, &y);
  if (layer)
    {
      paint_layer (cr, layer, x, y, 1, 1.0);
      cairo_surface_destroy (layer);
    }
  layer = _hs_canvas_build_overlay_layer (self, &k, &x, &y);
  if (layer)
    {
      paint_layer (cr, layer, x, y, 1, _hs_canvas_overlay_opacity (self));
      cairo_surface_destroy (layer);
    }
  _hs_canvas_draw_decor (self, cr, t, vw, vh);
  _hs_canvas_draw_hud_layer (self, cr, t, vw, vh);
  _hs_canvas_draw_hover (self, cr, t, vw, vh);
}

/* ---- public API -------------------------------------------------------------- */

cairo_surface_t *
hs_canvas_render_surface (HsCanvas *self, int width, int height)
{
  cairo_surface_t *surface;
  HsCanvasTransform saved;
  int saved_w, saved_h, saved_top;
  cairo_t *cr;

  g_return_val_if_fail (HS_IS_CANVAS (self), NULL);

  if (width <= 0 || height <= 0)
    {
      width = MAX (1, self->view_w);
      height = MAX (1, self->view_h);
    }
  saved = self->t;
  saved_w = self->view_w;
  saved_h = self->view_h;
  if (width != self->view_w || height != self->view_h)
    {
      self->view_w = width;
      self->view_h = height;
      if (self->fit || saved_w <= 0)
        hs_canvas_transform_fit (&self->t, _hs_canvas_image_w (self), _hs_canvas_image_h (self), width, height);
    }
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  /* an export has no error bar over it: its colour bar at the top */
  saved_top = self->hud_top;
  self->hud_top = 0;
  draw_all (self, cr, &self->t, width, height);
  self->hud_top = saved_top;
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  if (saved_w != self->view_w || saved_h != self->view_h)
    {
      self->t = saved;
      self->view_w = saved_w;
      self->view_h = saved_h;
      /* The field and outline were made for the other size. */
      g_clear_pointer (&self->field, hs_overlay_field_unref);
      g_clear_pointer (&self->vq, g_free);
      _hs_canvas_clear_nodes (self);
    }
  return surface;
}

gboolean
hs_canvas_export (HsCanvas *self, const char *path, GError **error)
{
  HsFigureView view;
  HsFigureFormat format;
  g_autoptr(GArray) boxes = NULL;
  g_autoptr(GArray) masks = NULL;
  g_autoptr(GArray) key = NULL;
  double x0, y0, x1, y1;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (HS_IS_CANVAS (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->image == NULL)
    {
      g_set_error (error, HS_CANVAS_ERROR, HS_CANVAS_ERROR_EMPTY,
                   _("Cannot export %s: no image is shown"), path);
      return FALSE;
    }
  if (!hs_figure_format_from_path (path, &format, &local))
    {
      g_set_error (error, HS_CANVAS_ERROR, HS_CANVAS_ERROR_FORMAT, "%s", local->message);
      return FALSE;
    }

  hs_figure_view_init (&view);
  view.image = self->image;
  _hs_canvas_get_window_level (self, &view.window_center, &view.window_width);
  _hs_canvas_get_overlay_options (self, &view.overlay);
  view.map = _hs_canvas_current_grid (self);
  if (view.map)
    {
      view.map_width = hs_attention_map_get_width (self->map);
      view.map_height = hs_attention_map_get_height (self->map);
      if (_hs_canvas_ensure_range (self))
        view.range = &self->range;
      view.no_attn = (!self->state || hs_view_state_get_show_no_attn (self->state))
                     ? hs_attention_map_get_no_attn (self->map) : NAN;
    }

  boxes = g_array_new (FALSE, TRUE, sizeof (HsFigureBox));
  masks = g_array_new (FALSE, TRUE, sizeof (HsFigureMask));
  _hs_figure_targets (self->regions, self->masks, self->region_rgba, self->region_target, boxes,
                      masks);
  key = _hs_canvas_region_key (self);
  view.key = (const HsRegionKeyEntry *) key->data;
  view.n_key = key->len;
  view.boxes = (const HsFigureBox *) boxes->data;
  view.n_boxes = boxes->len;
  view.masks = (const HsFigureMask *) masks->data;
  view.n_masks = masks->len;
  if (self->state)
    {
      view.outline = hs_view_state_get_outline (self->state);
      view.outline_k = hs_view_state_get_outline_top_k (self->state);
      view.show_overlay = hs_view_state_get_show_overlay (self->state);
      view.show_boxes = hs_view_state_get_show_boxes (self->state);
      view.show_masks = hs_view_state_get_show_masks (self->state);
    }
  view.prompt = self->caption;
  view.model = self->caption_model;
  view.instance = self->caption_instance;
  view.phantom_model_on_real_image = self->caption_phantom;

  /* The part of the image in view, at the zoom on screen. */
  if (self->view_w > 0 && self->view_h > 0)
    {
      hs_canvas_transform_widget_to_image (&self->t, 0, 0, &x0, &y0);
      hs_canvas_transform_widget_to_image (&self->t, self->view_w, self->view_h, &x1, &y1);
      x0 = MAX (0, x0);
      y0 = MAX (0, y0);
      x1 = MIN (_hs_canvas_image_w (self), x1);
      y1 = MIN (_hs_canvas_image_h (self), y1);
      if (x1 > x0 && y1 > y0)
        {
          view.view_x = x0;
          view.view_y = y0;
          view.view_w = x1 - x0;
          view.view_h = y1 - y0;
          view.zoom = self->t.zoom;
        }
    }
  view.font_size = HUD_FONT_SIZE;

  return hs_figure_save (&view, format, path, error);
}

