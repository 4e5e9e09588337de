/* hs-canvas-decor.c — what the canvas draws over the image with Cairo
 *
 * Target boxes and mask contours with their names, the top-k/Otsu outline,
 * the caption (the "decor" node), the colour bar and No-Attn gauge (the
 * "hud" node) and the hover read-out (uncached).  Also the targets
 * themselves: hs_canvas_set_regions and the mask tracing.
 */
#include <math.h>

#include <heatscope/hs-figure.h>

#include "hs-canvas-private.h"
#include "hs-utils-private.h"

/* The palette of hs-figure, in the same order (box i, then mask j after all
 * boxes), so the screen and an export agree. */
static const double region_colors[][3] = {
  { 0.00, 0.90, 1.00 },   /* cyan    */
  { 1.00, 0.85, 0.10 },   /* yellow  */
  { 0.40, 1.00, 0.30 },   /* green   */
  { 1.00, 0.40, 0.85 },   /* magenta */
  { 1.00, 0.60, 0.20 },   /* orange  */
  { 0.70, 0.70, 1.00 },   /* lilac   */
};

static PangoLayout *
create_layout (cairo_t *cr, const char *text, double size)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");

  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_font_description_free (font);
  return layout;
}

static void
label_size (cairo_t *cr, const char *text, double size, int *w, int *h)
{
  PangoLayout *layout = create_layout (cr, text, size);

  pango_layout_get_pixel_size (layout, w, h);
  g_object_unref (layout);
}

static void
draw_label (cairo_t *cr, const char *text, double x, double y, const double rgb[3], double size)
{
  PangoLayout *layout = create_layout (cr, text, size);
  int lw, lh;

  pango_layout_get_pixel_size (layout, &lw, &lh);
  cairo_save (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.65);
  cairo_rectangle (cr, x, y, lw + 6, lh + 2);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_move_to (cr, x + 3, y + 1);
  pango_cairo_show_layout (cr, layout);
  cairo_restore (cr);
  g_object_unref (layout);
}

static void
draw_regions (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t)
{
  gboolean show_boxes = !self->state || hs_view_state_get_show_boxes (self->state);
  gboolean show_masks = !self->state || hs_view_state_get_show_masks (self->state);

  guint n_boxes = 0, box_index = 0, mask_index = 0;

  if (self->regions == NULL)
    return;
  for (guint i = 0; i < self->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (self->regions, i);
      n_boxes += region->boxes ? region->boxes->len : 0;
    }
  for (guint i = 0; i < self->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (self->regions, i);
      const double *rgb = region_colors[0];
      GPtrArray *lines = self->mask_contours ? g_ptr_array_index (self->mask_contours, i) : NULL;
      HsImage *mask = self->masks ? g_ptr_array_index (self->masks, i) : NULL;
      gboolean labelled = FALSE;

      if (mask)
        rgb = region_colors[(n_boxes + mask_index++) % G_N_ELEMENTS (region_colors)];
      if (show_masks && lines && mask && lines->len > 0)
        {
          double rgba[4] = { rgb[0], rgb[1], rgb[2], 1.0 };
          cairo_save (cr);
          cairo_translate (cr, t->offset_x, t->offset_y);
          cairo_scale (cr, t->zoom * _hs_canvas_image_w (self) / hs_image_get_width (mask),
                       t->zoom * _hs_canvas_image_h (self) / hs_image_get_height (mask));
          hs_contour_draw (cr, lines, rgba, 2.0, FALSE);
          cairo_restore (cr);
          if (region->name && (region->boxes == NULL || region->boxes->len == 0 || !show_boxes))
            {
              /* Name above the top-left of the mask's outline. */
              double mx = G_MAXDOUBLE, my = G_MAXDOUBLE, wx, wy;
              for (guint l = 0; l < lines->len; l++)
                {
                  HsPolyline *line = g_ptr_array_index (lines, l);
                  for (guint k = 0; k < line->points->len; k++)
                    {
                      HsPoint *pt = &g_array_index (line->points, HsPoint, k);
                      mx = MIN (mx, pt->x);
                      my = MIN (my, pt->y);
                    }
                }
              hs_canvas_transform_image_to_widget (t, mx * _hs_canvas_image_w (self) / hs_image_get_width (mask),
                                                   my * _hs_canvas_image_h (self) / hs_image_get_height (mask),
                                                   &wx, &wy);
              draw_label (cr, region->name, round (wx), MAX (0, round (wy) - HUD_FONT_SIZE - 6),
                          rgb, HUD_FONT_SIZE);
            }
        }

      if (!show_boxes)
        continue;
      for (guint b = 0; region->boxes && b < region->boxes->len; b++)
        {
          const HsBox *box = &g_array_index (region->boxes, HsBox, b);
          double x1, y1, x2, y2;

          rgb = region_colors[box_index++ % G_N_ELEMENTS (region_colors)];

          hs_canvas_transform_image_to_widget (t, box->x1, box->y1, &x1, &y1);
          hs_canvas_transform_image_to_widget (t, box->x2, box->y2, &x2, &y2);
          cairo_save (cr);
          cairo_set_line_width (cr, 3.5);
          cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
          cairo_rectangle (cr, round (x1) + 0.5, round (y1) + 0.5, round (x2 - x1), round (y2 - y1));
          cairo_stroke_preserve (cr);
          cairo_set_line_width (cr, 1.5);
          cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
          cairo_stroke (cr);
          cairo_restore (cr);
          if (!labelled && region->name)
            {
              draw_label (cr, region->name, round (x1), MAX (0, round (y1) - HUD_FONT_SIZE - 6),
                          rgb, HUD_FONT_SIZE);
              labelled = TRUE;
            }
        }
    }
}

static void
draw_outline (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t)
{
  static const double white[4] = { 1, 1, 1, 1 };

  _hs_canvas_ensure_outline (self);
  if (self->outline == NULL || self->outline->len == 0)
    return;
  cairo_save (cr);
  cairo_translate (cr, t->offset_x, t->offset_y);
  cairo_scale (cr, t->zoom * _hs_canvas_image_w (self) / self->outline_w, t->zoom * _hs_canvas_image_h (self) / self->outline_h);
  hs_contour_draw (cr, self->outline, white, 1.5, TRUE);
  cairo_restore (cr);
}

static void
panel_background (cairo_t *cr, double x, double y, double w, double h)
{
  /* Light panels: the library's colour bar and gauge draw dark text, as on
   * paper, so the HUD matches the exported figure. */
  cairo_save (cr);
  cairo_set_source_rgba (cr, 1, 1, 1, 0.85);
  cairo_rectangle (cr, x, y, w, h);
  cairo_fill (cr);
  cairo_restore (cr);
}

/* Colour bar on the right edge; the No-Attn gauge is a separate panel to
 * its left, never part of the heatmap scale. */
static void
draw_hud (HsCanvas *self, cairo_t *cr, int vw, int vh)
{
  HsOverlayOptions options;
  gboolean overlay = !self->state || hs_view_state_get_show_overlay (self->state);
  double panel_w = 100, panel_h = MIN (320, vh - 16), x = vw - panel_w - 8, y = 8;
  double bar_w = 14, fs = HUD_FONT_SIZE;

  if (_hs_canvas_current_grid (self) == NULL || panel_h < 100 || vw < 3 * panel_w)
    return;
  _hs_canvas_get_overlay_options (self, &options);
  if (overlay && self->show_color_bar && _hs_canvas_ensure_range (self))
    {
      panel_background (cr, x, y, panel_w, panel_h);
      hs_figure_draw_colorbar (cr, x + 8, y + fs, bar_w, panel_h - 2 * fs, &options, &self->range,
                               self->scale_label, fs);
    }
  if ((!self->state || hs_view_state_get_show_no_attn (self->state)) &&
      isfinite (hs_attention_map_get_no_attn (self->map)))
    {
      double gw = 44, gh = MIN (160, panel_h), gx = x - gw - 8;
      panel_background (cr, gx, y, gw, gh);
      hs_figure_draw_no_attn_gauge (cr, gx + 8, y + 2 * fs, bar_w, gh - 3 * fs,
                                    hs_attention_map_get_no_attn (self->map), fs);
    }
}

static void
draw_caption (HsCanvas *self, cairo_t *cr, int vw, int vh)
{
  static const double white[3] = { 1, 1, 1 };

  if (self->caption && *self->caption)
    draw_label (cr, self->caption, 8, vh - HUD_FONT_SIZE - 14, white, HUD_FONT_SIZE + 1);
}

void
_hs_canvas_draw_decor (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh)
{
  if (self->image == NULL)
    return;
  if (_hs_canvas_current_grid (self) && (!self->state || hs_view_state_get_show_overlay (self->state)))
    draw_outline (self, cr, t);
  draw_regions (self, cr, t);
  draw_caption (self, cr, vw, vh);
}

void
_hs_canvas_draw_hud_layer (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh)
{
  if (self->image)
    draw_hud (self, cr, vw, vh);
}

gboolean
_hs_canvas_hover_geometry (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh,
                HoverGeometry *g)
{
  double px, py;

  if (!self->hover.valid || self->hover_text == NULL)
    return FALSE;
  hs_canvas_transform_image_to_widget (t, self->hover.x, self->hover.y, &px, &py);
  g->cell = self->hover.row >= 0 && self->map;
  if (g->cell)
    {
      double cw = _hs_canvas_image_w (self) / hs_attention_map_get_width (self->map);
      double ch = _hs_canvas_image_h (self) / hs_attention_map_get_height (self->map);

      hs_canvas_transform_image_to_widget (t, self->hover.col * cw, self->hover.row * ch, &g->cx1, &g->cy1);
      hs_canvas_transform_image_to_widget (t, (self->hover.col + 1) * cw, (self->hover.row + 1) * ch,
                                           &g->cx2, &g->cy2);
    }
  label_size (cr, self->hover_text, HUD_FONT_SIZE, &g->lw, &g->lh);
  /* Below-right of the pointer, flipped to stay inside the view. */
  px += 14;
  py += 14;
  if (px + g->lw + 6 > vw)
    px -= g->lw + 6 + 28;
  if (py + g->lh + 2 > vh)
    py -= g->lh + 2 + 28;
  g->lx = MAX (0, px);
  g->ly = MAX (0, py);
  return TRUE;
}

void
_hs_canvas_draw_hover (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh)
{
  static const double white[3] = { 1, 1, 1 };
  HoverGeometry g;

  if (!_hs_canvas_hover_geometry (self, cr, t, vw, vh, &g))
    return;
  /* The grid cell under the pointer. */
  if (g.cell)
    {
      cairo_save (cr);
      cairo_set_line_width (cr, 1);
      cairo_set_source_rgba (cr, 1, 1, 1, 0.8);
      cairo_rectangle (cr, round (g.cx1) + 0.5, round (g.cy1) + 0.5, round (g.cx2 - g.cx1),
                       round (g.cy2 - g.cy1));
      cairo_stroke (cr);
      cairo_restore (cr);
    }
  draw_label (cr, self->hover_text, g.lx, g.ly, white, HUD_FONT_SIZE);
}

/* ---- targets ---------------------------------------------------------------- */

static HsRegion *
region_copy (const HsRegion *src)
{
  HsRegion *region = hs_region_new (src->name);

  for (guint i = 0; src->boxes && i < src->boxes->len; i++)
    {
      const HsBox *b = &g_array_index (src->boxes, HsBox, i);
      hs_region_add_box (region, b->x1, b->y1, b->x2, b->y2);
    }
  region->mask = g_strdup (src->mask);
  return region;
}

static GPtrArray *
trace_mask (HsImage *mask)
{
  guint w = hs_image_get_width (mask), h = hs_image_get_height (mask);
  guint channels = hs_image_get_channels (mask);
  guint colour = channels == 2 || channels == 4 ? channels - 1 : channels;
  const guint16 *data = hs_image_peek_data (mask);
  g_autofree guint8 *bits = g_try_malloc ((gsize) w * h);

  if (bits == NULL)
    return NULL;
  /* Any colour channel non-zero counts, alpha ignored (as HsTarget). */
  for (gsize p = 0; p < (gsize) w * h; p++)
    {
      guint8 on = 0;
      for (guint c = 0; c < colour; c++)
        on |= data[p * channels + c] != 0;
      bits[p] = on;
    }
  return hs_contour_trace_mask (bits, w, h, w, HS_CONTOUR_SIMPLIFY);
}

void
hs_canvas_set_regions (HsCanvas *self, GPtrArray *regions, GPtrArray *masks)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  g_return_if_fail (masks == NULL || regions == NULL || masks->len == regions->len);

  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  g_clear_pointer (&self->mask_contours, g_ptr_array_unref);
  if (regions)
    {
      self->regions = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_region_free);
      self->masks = g_ptr_array_new_with_free_func (_hs_image_unref0);
      self->mask_contours = g_ptr_array_new_with_free_func (_hs_ptr_array_unref0);
      for (guint i = 0; i < regions->len; i++)
        {
          HsImage *mask = masks ? g_ptr_array_index (masks, i) : NULL;
          g_ptr_array_add (self->regions, region_copy (g_ptr_array_index (regions, i)));
          g_ptr_array_add (self->masks, mask ? hs_image_ref (mask) : NULL);
          g_ptr_array_add (self->mask_contours, mask ? trace_mask (mask) : NULL);
        }
    }
  g_clear_pointer (&self->decor_node, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

