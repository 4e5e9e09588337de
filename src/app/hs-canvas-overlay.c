/* hs-canvas-overlay.c — the canvas's overlay layer and the composite
 *
 * The visible part of the quantised map field at device resolution
 * (uint16); strength, gamma, scale and colour-map changes are a 64 K-entry
 * table rebuild plus one look-up pass, and the image and overlay are
 * blended on the CPU into one texture.  Also the value range (with the
 * scale label) and the top-k/Otsu outline, both computed from the map.
 */
#include <math.h>

#include "hs-canvas-private.h"
#include "hs-gl-texture.h"
#include "hs-render-node.h"

gboolean
_hs_canvas_show_overlay (HsCanvas *self)
{
  return !self->state || hs_view_state_get_show_overlay (self->state);
}

double
_hs_canvas_overlay_opacity (HsCanvas *self)
{
  return self->state ? CLAMP (hs_view_state_get_opacity (self->state), 0.0, 1.0) : HS_VIEW_STATE_DEFAULT_OPACITY;
}

gboolean
_hs_canvas_ensure_range (HsCanvas *self)
{
  HsOverlayOptions options;
  g_autoptr(GError) error = NULL;
  const double *grid = _hs_canvas_current_grid (self);

  if (grid == NULL)
    return FALSE;
  if (self->range_valid)
    return TRUE;

  _hs_canvas_get_overlay_options (self, &options);
  if (!hs_scale_resolve (&options.scale, grid,
                         (gsize) hs_attention_map_get_width (self->map) * hs_attention_map_get_height (self->map),
                         &self->range, &error))
    {
      g_free (self->map_error);
      self->map_error = g_strdup (error->message);
      return FALSE;
    }
  self->range_valid = TRUE;
  return TRUE;
}

/* Scale of the overlay grid relative to the image: display resolution when
 * zoomed out, image resolution when zoomed in. */
static void
overlay_grid_size (HsCanvas *self, const HsCanvasTransform *t, guint *sw, guint *sh)
{
  double s = MIN (t->zoom, 1.0);

  *sw = MAX (1, (guint) lround (_hs_canvas_image_w (self) * s));
  *sh = MAX (1, (guint) lround (_hs_canvas_image_h (self) * s));
}

static gboolean
ensure_field (HsCanvas *self, const HsCanvasTransform *t, int vw, int vh)
{
  HsOverlayOptions options;
  g_autoptr(GError) error = NULL;
  guint sw, sh;
  int x, y, w, h, x0, y0, x1, y1, mx, my;
  double sx, sy;

  if (_hs_canvas_current_grid (self) == NULL || self->image == NULL)
    return FALSE;
  _hs_canvas_get_overlay_options (self, &options);
  overlay_grid_size (self, t, &sw, &sh);
  if (!hs_canvas_transform_visible_rect (t, _hs_canvas_image_w (self), _hs_canvas_image_h (self), vw, vh, &x, &y, &w, &h))
    return FALSE;

  sx = sw / _hs_canvas_image_w (self);
  sy = sh / _hs_canvas_image_h (self);
  x0 = CLAMP ((int) floor (x * sx), 0, (int) sw - 1);
  y0 = CLAMP ((int) floor (y * sy), 0, (int) sh - 1);
  x1 = CLAMP ((int) ceil ((x + w) * sx), x0 + 1, (int) sw);
  y1 = CLAMP ((int) ceil ((y + h) * sy), y0 + 1, (int) sh);

  if (self->field && self->field_sw == sw && self->field_sh == sh &&
      self->field_upsample == options.upsample &&
      x0 >= self->field_x && y0 >= self->field_y &&
      x1 <= self->field_x + (int) hs_overlay_field_get_width (self->field) &&
      y1 <= self->field_y + (int) hs_overlay_field_get_height (self->field))
    return TRUE;

  /* A margin of half the visible size on every side lets small pans reuse
   * the field. */
  mx = (x1 - x0) / 2;
  my = (y1 - y0) / 2;
  x0 = MAX (0, x0 - mx);
  y0 = MAX (0, y0 - my);
  x1 = MIN ((int) sw, x1 + mx);
  y1 = MIN ((int) sh, y1 + my);

  g_clear_pointer (&self->field, hs_overlay_field_unref);
  self->field = hs_overlay_field_new_region (_hs_canvas_current_grid (self),
                                             hs_attention_map_get_width (self->map),
                                             hs_attention_map_get_height (self->map),
                                             sw, sh, x0, y0, x1 - x0, y1 - y0,
                                             options.upsample, &error);
  if (self->field == NULL)
    {
      g_free (self->map_error);
      self->map_error = g_strdup (error->message);
      return FALSE;
    }
  self->field_gen++;
  self->field_sw = sw;
  self->field_sh = sh;
  self->field_x = x0;
  self->field_y = y0;
  self->field_upsample = options.upsample;
  return TRUE;
}

void
_hs_canvas_ensure_outline (HsCanvas *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *mask = NULL;
  HsOutline outline;
  double scale;

  if (self->outline_valid)
    return;
  self->outline_valid = TRUE;
  g_clear_pointer (&self->outline, g_ptr_array_unref);
  self->outline_upsample = self->state ? hs_view_state_get_upsample (self->state) : HS_UPSAMPLE_BILINEAR;
  if (self->state == NULL || _hs_canvas_current_grid (self) == NULL || self->image == NULL)
    return;
  outline = hs_view_state_get_outline (self->state);
  if (outline == HS_OUTLINE_NONE)
    return;

  scale = MIN (1.0, OUTLINE_GRID_MAX / MAX (_hs_canvas_image_w (self), _hs_canvas_image_h (self)));
  self->outline_w = MAX (1, (guint) lround (_hs_canvas_image_w (self) * scale));
  self->outline_h = MAX (1, (guint) lround (_hs_canvas_image_h (self) * scale));
  mask = hs_contour_region_mask (_hs_canvas_current_grid (self),
                                 hs_attention_map_get_width (self->map),
                                 hs_attention_map_get_height (self->map),
                                 self->outline_w, self->outline_h,
                                 hs_view_state_get_upsample (self->state), outline,
                                 hs_view_state_get_outline_top_k (self->state), &error);
  if (mask == NULL)
    {
      g_warning ("Outline: %s", error->message);
      return;
    }
  self->outline = hs_contour_trace_mask (mask, self->outline_w, self->outline_h,
                                         self->outline_w, HS_CONTOUR_SIMPLIFY);
}

/* ---- overlay layer ------------------------------------------------------ */

/* The field's quantised values of the visible device pixels, nearest (the
 * field is at display resolution when zoomed out and at image resolution
 * when zoomed in, where every image pixel shows as a block). */
static gboolean
ensure_view_field (HsCanvas *self, const ViewKey *k)
{
  int x0, y0, x1, y1;
  guint fw, fh, w, h;
  double z = k->zoom * k->scale;
  double sx, sy;
  const guint16 *q;
  g_autofree guint *cols = NULL;

  if (self->vq && self->vq_field_gen == self->field_gen && _hs_canvas_view_key_equal (&self->vq_key, k))
    return TRUE;
  g_clear_pointer (&self->vq, g_free);
  if (!_hs_canvas_visible_device_rect (self, k, &x0, &y0, &x1, &y1))
    return FALSE;
  w = (guint) (x1 - x0);
  h = (guint) (y1 - y0);
  fw = hs_overlay_field_get_width (self->field);
  fh = hs_overlay_field_get_height (self->field);
  q = hs_overlay_field_peek_quantised (self->field);
  /* field pixel = (device − offset) · sw / (_hs_canvas_image_w · zoom) − field origin */
  sx = self->field_sw / (_hs_canvas_image_w (self) * z);
  sy = self->field_sh / (_hs_canvas_image_h (self) * z);
  self->vq = g_try_new (guint16, (gsize) w * h);
  if (self->vq == NULL)
    return FALSE;
  cols = g_new (guint, w);
  for (guint i = 0; i < w; i++)
    {
      double f = floor ((x0 + i + 0.5 - k->offset_x * k->scale) * sx) - self->field_x;
      cols[i] = (guint) CLAMP (f, 0, (double) fw - 1);
    }
  for (guint j = 0; j < h; j++)
    {
      double f = floor ((y0 + j + 0.5 - k->offset_y * k->scale) * sy) - self->field_y;
      const guint16 *row = q + (gsize) CLAMP (f, 0, (double) fh - 1) * fw;
      guint16 *out = self->vq + (gsize) j * w;

      for (guint i = 0; i < w; i++)
        out[i] = row[cols[i]];
    }
  self->vq_x = x0;
  self->vq_y = y0;
  self->vq_w = (int) w;
  self->vq_h = (int) h;
  self->vq_key = *k;
  self->vq_field_gen = self->field_gen;
  self->vq_gen++;
  return TRUE;
}

/* The overlay's quantised values of the view and its colour table are
 * current for `k`; FALSE when no overlay is shown. */
static gboolean
ensure_overlay_colours (HsCanvas *self, const ViewKey *k)
{
  HsOverlayOptions options;
  g_autoptr(GError) error = NULL;
  HsCanvasTransform t = { k->zoom, k->offset_x, k->offset_y };

  if (_hs_canvas_current_grid (self) == NULL || self->image == NULL ||
      (self->state && !hs_view_state_get_show_overlay (self->state)))
    return FALSE;
  if (!ensure_field (self, &t, k->vw, k->vh) || !_hs_canvas_ensure_range (self) || !ensure_view_field (self, k))
    return FALSE;
  if (self->lut_valid)
    return TRUE;
  _hs_canvas_get_overlay_options (self, &options);
  if (self->lut == NULL)
    self->lut = g_new (guint32, HS_OVERLAY_Q_LEVELS);
  if (!hs_overlay_field_build_lut (self->field, &self->range, &options, self->lut, &error))
    {
      g_free (self->map_error);
      self->map_error = g_strdup (error->message);
      return FALSE;
    }
  self->lut_valid = TRUE;
  self->lut_gen++;
  return TRUE;
}

/* The colour-mapped overlay of the visible part at full alpha (the
 * offscreen path; on screen the colours are looked up inside the blend).
 * NULL when there is nothing to show. */
cairo_surface_t *
_hs_canvas_build_overlay_layer (HsCanvas *self, const ViewKey *k, int *ox, int *oy)
{
  cairo_surface_t *surface;

  if (!ensure_overlay_colours (self, k))
    return NULL;
  surface = hs_render_surface_new (CAIRO_FORMAT_ARGB32, self->vq_w, self->vq_h);
  if (surface == NULL)
    return NULL;
  cairo_surface_flush (surface);
  hs_overlay_apply_lut (self->lut, self->vq, (gsize) self->vq_w, (guint) self->vq_w, (guint) self->vq_h,
                        cairo_image_surface_get_data (surface),
                        (gsize) cairo_image_surface_get_stride (surface));
  cairo_surface_mark_dirty (surface);
  *ox = self->vq_x;
  *oy = self->vq_y;
  return surface;
}

/* ---- composite ------------------------------------------------------------ */

static GskRenderNode *
layer_node (HsCanvas *self, cairo_surface_t *surface, int x, int y, int scale)
{
  return hs_render_surface_node (surface, &GRAPHENE_RECT_INIT ((float) x / scale, (float) y / scale,
                                                     (float) cairo_image_surface_get_width (surface) / scale,
                                                     (float) cairo_image_surface_get_height (surface) / scale),
                                 hs_render_draws_with_cairo (GTK_WIDGET (self)));
}

/* Image and overlay blended on the CPU into one texture, the overlay's
 * colours looked up from its quantised values inside the blend (SSE2,
 * 2 threads): an opacity step is this pass alone, a strength or colour step
 * adds the 64 K-entry table.  With Mesa's software GL (llvmpipe, what Xvfb
 * offers) every full-view textured quad costs ~8 ms of CPU, more than this
 * pass plus the upload, so an opacity node over a second full-view
 * texture was the slower of the two (docs/performance.md). */
GskRenderNode *
_hs_canvas_ensure_composite (HsCanvas *self, const ViewKey *k)
{
  double opacity = _hs_canvas_overlay_opacity (self);
  gboolean with_overlay;
  cairo_surface_t *out;
  g_autoptr(GError) error = NULL;

  if (self->img.surface == NULL)
    return NULL;
  with_overlay = opacity > 0 && ensure_overlay_colours (self, k) &&
                 self->vq_x == self->img.x && self->vq_y == self->img.y &&
                 self->vq_w == cairo_image_surface_get_width (self->img.surface) &&
                 self->vq_h == cairo_image_surface_get_height (self->img.surface);
  if (self->composite_node && self->composite_img == self->img.gen &&
      self->composite_vq == (with_overlay ? self->vq_gen : 0) &&
      self->composite_lut == (with_overlay ? self->lut_gen : 0) &&
      (!with_overlay || self->composite_opacity == opacity))
    return self->composite_node;
  g_clear_pointer (&self->composite_node, gsk_render_node_unref);
  self->composite_img = self->img.gen;
  self->composite_vq = with_overlay ? self->vq_gen : 0;
  self->composite_lut = with_overlay ? self->lut_gen : 0;
  self->composite_opacity = opacity;
  if (!with_overlay)
    {
      self->composite_node = layer_node (self, self->img.surface, self->img.x, self->img.y, self->img.key.scale);
      return self->composite_node;
    }
  out = hs_render_surface_new (CAIRO_FORMAT_RGB24, self->vq_w, self->vq_h);
  if (out && hs_overlay_composite_lut_into (self->img.surface, self->lut, self->vq, (gsize) self->vq_w,
                                            opacity, out, &error))
    {
      /* With GL, the one texture of the view is rewritten in place. */
      g_autoptr(GdkTexture) texture = NULL;
      int scale = self->img.key.scale;

      if (self->gl_texture == NULL)
        self->gl_texture = hs_gl_texture_new ();
      texture = hs_gl_texture_update (self->gl_texture, GTK_WIDGET (self), out);
      if (texture)
        self->composite_node = gsk_texture_node_new (texture, &GRAPHENE_RECT_INIT ((float) self->img.x / scale,
                                                                                   (float) self->img.y / scale,
                                                                                   (float) self->vq_w / scale,
                                                                                   (float) self->vq_h / scale));
      else
        self->composite_node = layer_node (self, out, self->img.x, self->img.y, self->img.key.scale);
    }
  else
    {
      if (error)
        g_warning ("Canvas composite: %s", error->message);
      self->composite_node = layer_node (self, self->img.surface, self->img.x, self->img.y, self->img.key.scale);
    }
  if (out)
    cairo_surface_destroy (out);
  return self->composite_node;
}

