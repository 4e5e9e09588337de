/* hs-canvas-decor.c — what the canvas draws over the image with Cairo
 *
 * Target boxes and mask contours with their names, the top-k/Otsu outline,
 * the caption (the "decor" node), the colour bar and No-Attn gauge (the
 * "hud" node) and the hover read-out (uncached).  Also the targets
 * themselves: hs_canvas_set_regions and the mask tracing.
 */
#include <math.h>
#include <string.h>

#include <heatscope/hs-legend.h>

#include "hs-canvas-private.h"
#include "hs-utils-private.h"

/* The colour of region i: the layer's own, else the palette's
 * box-then-mask order (the first box's, or the mask's). */
static void
region_color (HsCanvas *self, guint i, guint box_index, guint mask_index, gboolean mask,
              double rgba[4])
{
  if (self->region_rgba != NULL)
    memcpy (rgba, self->region_rgba + 4 * i, 4 * sizeof (double));
  else
    hs_region_color (mask ? mask_index : box_index, rgba);
}

typedef struct {
  const char *name;
  double      rgba[4];
} LabelInk;

/* A name to draw at (x, y), the item's top-left in widget pixels. */
static void
add_label (GArray *slots, GArray *inks, const char *name, double x, double y, const double rgba[4])
{
  HsLabelSlot slot = { round (x), round (y), 0, 0, 0, 0 };
  LabelInk ink = { name, { rgba[0], rgba[1], rgba[2], rgba[3] } };

  hs_region_label_size (name, HUD_FONT_SIZE, &slot.w, &slot.h);
  g_array_append_val (slots, slot);
  g_array_append_val (inks, ink);
}

static gboolean key_area (HsCanvas *self, GArray *entries, int vw, int vh, HsLabelSlot *area);

/* Draws the regions and their names; the names' rectangles (lx, ly, w, h)
 * into `placed` when it is not NULL. */
static void
draw_regions (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh, GArray *placed)
{
  static const double dash[] = { 6, 4 };
  gboolean show_boxes = !self->state || hs_view_state_get_show_boxes (self->state);
  gboolean show_masks = !self->state || hs_view_state_get_show_masks (self->state);
  g_autoptr(GArray) slots = g_array_new (FALSE, TRUE, sizeof (HsLabelSlot));
  g_autoptr(GArray) inks = g_array_new (FALSE, TRUE, sizeof (LabelInk));
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
      double rgba[4];
      GPtrArray *lines = self->mask_contours ? g_ptr_array_index (self->mask_contours, i) : NULL;
      HsImage *mask = self->masks ? g_ptr_array_index (self->masks, i) : NULL;
      gboolean labelled = FALSE;
      gboolean target = self->region_target == NULL || self->region_target[i];

      if (mask)
        region_color (self, i, box_index, n_boxes + mask_index++, TRUE, rgba);
      if (show_masks && lines && mask && lines->len > 0)
        {
          cairo_save (cr);
          cairo_translate (cr, t->offset_x, t->offset_y);
          cairo_scale (cr, t->zoom * _hs_canvas_image_w (self) / hs_image_get_width (mask),
                       t->zoom * _hs_canvas_image_h (self) / hs_image_get_height (mask));
          hs_contour_draw (cr, lines, rgba, target ? 2.0 : 1.0, !target);
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
              add_label (slots, inks, region->name, wx, wy, rgba);
            }
        }

      if (!show_boxes)
        {
          box_index += region->boxes ? region->boxes->len : 0;
          continue;
        }
      for (guint b = 0; region->boxes && b < region->boxes->len; b++)
        {
          const HsBox *box = &g_array_index (region->boxes, HsBox, b);
          double x1, y1, x2, y2;

          region_color (self, i, box_index++, 0, FALSE, rgba);
          hs_canvas_transform_image_to_widget (t, box->x1, box->y1, &x1, &y1);
          hs_canvas_transform_image_to_widget (t, box->x2, box->y2, &x2, &y2);
          cairo_save (cr);
          if (!target)
            cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
          cairo_set_line_width (cr, target ? 3.5 : 2.5);
          cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
          cairo_rectangle (cr, round (x1) + 0.5, round (y1) + 0.5, round (x2 - x1), round (y2 - y1));
          cairo_stroke_preserve (cr);
          cairo_set_line_width (cr, target ? 1.5 : 1.0);
          cairo_set_source_rgb (cr, rgba[0], rgba[1], rgba[2]);
          cairo_stroke (cr);
          cairo_restore (cr);
          if (!labelled && region->name)
            {
              add_label (slots, inks, region->name, x1, y1, rgba);
              labelled = TRUE;
            }
        }
    }

  /* All names last, placed together so that none covers another nor a
   * panel drawn over the view (the region key at the bottom-right, the
   * colour bar at the top-right: both opaque, a name under them is hidden),
   * and inside the canvas (a box at its edge keeps its name readable). */
  {
    g_autoptr(GArray) entries = _hs_canvas_region_key (self);
    HsLabelSlot panels[2];
    guint n_panels = 0;
    double hx, hy, hw, hh;

    if (key_area (self, entries, vw, vh, &panels[n_panels]))
      n_panels++;
    if (_hs_canvas_hud_area (self, vw, vh, &hx, &hy, &hw, &hh))
      panels[n_panels++] = (HsLabelSlot) { .lx = hx, .ly = hy, .w = hw, .h = hh };
    hs_region_labels_place_avoiding ((HsLabelSlot *) slots->data, slots->len, panels, n_panels,
                                     1.5, 0, 0, vw, vh);
  }
  if (placed != NULL)
    g_array_append_vals (placed, slots->data, slots->len);
  for (guint i = 0; i < slots->len; i++)
    {
      const HsLabelSlot *slot = &g_array_index (slots, HsLabelSlot, i);
      const LabelInk *ink = &g_array_index (inks, LabelInk, i);

      hs_region_label_draw_at (cr, ink->name, slot->lx, slot->ly, HUD_FONT_SIZE, ink->rgba);
    }
}

/* The panel under the region key and under the colour bar: light, as on
 * paper, so they read as the exported figure's keys; and opaque, so that no
 * outline, box edge or bright pixel of the image runs through a key (at 85 %
 * white, a layer's outline showed through as a thin line).  The grey is what
 * the 85 % white gave over the view's dark background. */
static void
fill_panel (cairo_t *cr, double x, double y, double w, double h)
{
  cairo_save (cr);
  cairo_set_source_rgb (cr, 0.871, 0.871, 0.872);
  cairo_rectangle (cr, x, y, w, h);
  cairo_fill (cr);
  cairo_restore (cr);
}

/* The layers' key (which colour is which region) on a light panel at the
 * bottom-right, as the exported figure has it beside the image. */
#define KEY_PAD 6

GArray *
_hs_canvas_region_key (HsCanvas *self)
{
  GArray *entries = g_array_new (FALSE, TRUE, sizeof (HsRegionKeyEntry));

  for (guint i = 0; self->region_rgba != NULL && self->regions && i < self->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (self->regions, i);
      HsRegionKeyEntry e = { region->name, { 0 },
                             self->region_target == NULL || self->region_target[i],
                             g_ptr_array_index (self->masks, i) != NULL };

      memcpy (e.rgba, self->region_rgba + 4 * i, sizeof e.rgba);
      g_array_append_val (entries, e);
    }
  return entries;
}

/* The key's panel (lx, ly, w, h of `area`) for `entries` in a vw × vh
 * view; FALSE when it is not drawn (no entries, or no room: the layers list
 * says it). */
static gboolean
key_area (HsCanvas *self, GArray *entries, int vw, int vh, HsLabelSlot *area)
{
  double w, h, x, y;

  if (entries->len == 0)
    return FALSE;
  hs_region_key_size ((HsRegionKeyEntry *) entries->data, entries->len, HUD_FONT_SIZE, &w, &h);
  x = vw - w - 2 * KEY_PAD - 8;
  y = vh - h - 2 * KEY_PAD - 8;
  if (x < vw / 2.0 || y < 0)
    return FALSE;
  *area = (HsLabelSlot) { .lx = x, .ly = y, .w = w + 2 * KEY_PAD, .h = h + 2 * KEY_PAD };
  return TRUE;
}

static void
draw_key (HsCanvas *self, cairo_t *cr, int vw, int vh)
{
  static const double ink[4] = { 0, 0, 0, 1 };
  g_autoptr(GArray) entries = _hs_canvas_region_key (self);
  HsLabelSlot area;

  if (!key_area (self, entries, vw, vh, &area))
    return;
  fill_panel (cr, area.lx, area.ly, area.w, area.h);
  hs_region_key_draw (cr, (HsRegionKeyEntry *) entries->data, entries->len, area.lx + KEY_PAD,
                      area.ly + KEY_PAD, HUD_FONT_SIZE, ink);
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

/* The HUD's colour bar and No-Attn gauge: the legend of an exported
 * figure on a light panel at the top-right corner.  FALSE when there is
 * nothing to show or no room for it. */
#define HUD_PAD 8

static gboolean
hud_layout (HsCanvas *self, int vw, int vh, HsLegendSpec *spec, HsLegendLayout *layout,
            double *x, double *y, double *w, double *h)
{
  gboolean overlay = _hs_canvas_show_overlay (self);
  double no_attn = self->map ? hs_attention_map_get_no_attn (self->map) : NAN;

  /* below what lies over the canvas's top (hs_canvas_set_hud_top) */
  vh -= self->hud_top;
  if (_hs_canvas_current_grid (self) == NULL || vh < 100 + 2 * HUD_PAD)
    return FALSE;
  hs_legend_spec_init (spec);
  _hs_canvas_get_overlay_options (self, &spec->overlay);
  spec->show_bar = overlay && self->show_color_bar && _hs_canvas_ensure_range (self);
  spec->range = self->range;
  spec->no_attn = (!self->state || hs_view_state_get_show_no_attn (self->state)) ? no_attn : NAN;
  /* room for the title's lines above the bar */
  spec->length = MIN (300, vh - 16 - 2 * HUD_PAD - 6 * HUD_FONT_SIZE);
  spec->font_size = HUD_FONT_SIZE;
  /* readable: horizontal lines naming what the values are, the range in words */
  spec->title_above = TRUE;
  spec->quantity = self->quantity;
  if (!spec->show_bar && !isfinite (spec->no_attn))
    return FALSE;
  if (!hs_legend_layout (spec, layout, NULL))
    return FALSE;
  *w = layout->width + 2 * HUD_PAD;
  *h = layout->height + 2 * HUD_PAD;
  *x = vw - *w - 8;
  *y = 8 + self->hud_top;
  return vw >= 3 * *w;
}

gboolean
_hs_canvas_hud_area (HsCanvas *self, int vw, int vh, double *x, double *y, double *w, double *h)
{
  HsLegendSpec spec;
  HsLegendLayout layout;

  if (self->image == NULL || !hud_layout (self, vw, vh, &spec, &layout, x, y, w, h))
    return FALSE;
  /* whole pixels, the panel's edge included */
  *w = ceil (*x + *w) - floor (*x);
  *h = ceil (*y + *h) - floor (*y);
  *x = floor (*x);
  *y = floor (*y);
  return TRUE;
}

/* (ax, ay, aw, ah) into whichever of x, y, w, h the caller asked for. */
static gboolean
put_area (double ax, double ay, double aw, double ah, double *x, double *y, double *w, double *h)
{
  if (x) *x = ax;
  if (y) *y = ay;
  if (w) *w = aw;
  if (h) *h = ah;
  return TRUE;
}

gboolean
hs_canvas_get_color_bar_area (HsCanvas *self, double *x, double *y, double *w, double *h)
{
  double ax, ay, aw, ah;

  g_return_val_if_fail (HS_IS_CANVAS (self), FALSE);
  if (!_hs_canvas_hud_area (self, self->view_w, self->view_h, &ax, &ay, &aw, &ah))
    return FALSE;
  return put_area (ax, ay, aw, ah, x, y, w, h);
}

gboolean
hs_canvas_get_region_key_area (HsCanvas *self, double *x, double *y, double *w, double *h)
{
  g_autoptr(GArray) entries = NULL;
  HsLabelSlot area;

  g_return_val_if_fail (HS_IS_CANVAS (self), FALSE);
  entries = _hs_canvas_region_key (self);
  if (self->image == NULL || !key_area (self, entries, self->view_w, self->view_h, &area))
    return FALSE;
  return put_area (area.lx, area.ly, area.w, area.h, x, y, w, h);
}

GArray *
hs_canvas_dup_region_label_areas (HsCanvas *self)
{
  GArray *areas;

  g_return_val_if_fail (HS_IS_CANVAS (self), NULL);
  areas = g_array_new (FALSE, TRUE, sizeof (graphene_rect_t));
  if (self->image != NULL && self->view_w > 0 && self->view_h > 0)
    {
      /* laid out as the next frame draws them, onto a pixel nobody sees */
      cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
      cairo_t *cr = cairo_create (scratch);
      g_autoptr(GArray) slots = g_array_new (FALSE, TRUE, sizeof (HsLabelSlot));

      draw_regions (self, cr, &self->t, self->view_w, self->view_h, slots);
      cairo_destroy (cr);
      cairo_surface_destroy (scratch);
      for (guint i = 0; i < slots->len; i++)
        {
          const HsLabelSlot *s = &g_array_index (slots, HsLabelSlot, i);
          graphene_rect_t r = GRAPHENE_RECT_INIT (s->lx, s->ly, s->w, s->h);

          g_array_append_val (areas, r);
        }
    }
  return areas;
}

char *
hs_canvas_dup_color_bar_title (HsCanvas *self)
{
  HsLegendSpec spec;
  HsLegendLayout layout;
  GString *text;
  double x, y, w, h;

  g_return_val_if_fail (HS_IS_CANVAS (self), NULL);
  if (self->image == NULL || !hud_layout (self, self->view_w, self->view_h, &spec, &layout, &x, &y, &w, &h)
      || !layout.has_bar)
    return NULL;
  text = g_string_new (NULL);
  for (guint i = 0; i < layout.n_title_lines; i++)
    g_string_append_printf (text, "%s%s", i ? "\n" : "", layout.title_line[i]);
  return g_string_free (text, FALSE);
}

static void
draw_hud (HsCanvas *self, cairo_t *cr, int vw, int vh)
{
  static const double ink[4] = { 0, 0, 0, 1 };
  HsLegendSpec spec;
  HsLegendLayout layout;
  double x, y, w, h;

  if (!hud_layout (self, vw, vh, &spec, &layout, &x, &y, &w, &h))
    return;
  fill_panel (cr, x, y, w, h);
  hs_legend_draw (&spec, &layout, cr, x + HUD_PAD, y + HUD_PAD, ink);
}

/* The caption of an export, at most two lines (and the phantom note's),
 * white on a dark box at the bottom-left. */
static void
draw_caption (HsCanvas *self, cairo_t *cr, int vw, int vh)
{
  static const double white[4] = { 1, 1, 1, 1 };
  HsCaption caption = { self->caption, self->caption_model, self->caption_instance,
                        self->caption_phantom };
  g_autoptr(GPtrArray) lines = NULL;
  double fs = HUD_FONT_SIZE + 1, height, width = 0, y;

  lines = hs_caption_layout (&caption, MAX (40, vw - 32), fs, self->caption_phantom ? 3 : 2,
                             &height);
  if (lines->len == 0)
    return;
  for (guint i = 0; i < lines->len; i++)
    width = MAX (width, ((HsCaptionLine *) g_ptr_array_index (lines, i))->width);
  y = vh - height - 14;
  cairo_save (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.65);
  cairo_rectangle (cr, 8, y - 2, width + 8, height + 6);
  cairo_fill (cr);
  cairo_restore (cr);
  hs_caption_draw (lines, cr, 12, y, white);
}

void
_hs_canvas_draw_decor (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh)
{
  if (self->image == NULL)
    return;
  if (_hs_canvas_current_grid (self) && (!self->state || hs_view_state_get_show_overlay (self->state)))
    draw_outline (self, cr, t);
  draw_regions (self, cr, t, vw, vh, NULL);
  draw_key (self, cr, vw, vh);
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
  _hs_label_size (cr, self->hover_text, HUD_FONT_SIZE, &g->lw, &g->lh);
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
  static const double white[4] = { 1, 1, 1, 1 };
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
  _hs_label_draw (cr, self->hover_text, g.lx, g.ly, white, HUD_FONT_SIZE);
}

/* ---- targets ---------------------------------------------------------------- */

void
hs_canvas_set_traced_layers (HsCanvas *self, GPtrArray *regions, GPtrArray *masks, GPtrArray *contours,
                             const double *colors, const gboolean *is_target)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  g_return_if_fail (masks == NULL || regions == NULL || masks->len == regions->len);
  g_return_if_fail (contours == NULL || masks == NULL || contours->len == masks->len);

  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  g_clear_pointer (&self->mask_contours, g_ptr_array_unref);
  g_clear_pointer (&self->region_rgba, g_free);
  g_clear_pointer (&self->region_target, g_free);
  if (regions)
    {
      self->regions = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_region_free);
      self->masks = g_ptr_array_new_with_free_func (_hs_image_unref0);
      self->mask_contours = g_ptr_array_new_with_free_func (_hs_ptr_array_unref0);
      for (guint i = 0; i < regions->len; i++)
        {
          HsImage *mask = masks ? g_ptr_array_index (masks, i) : NULL;
          GPtrArray *lines = mask && contours ? g_ptr_array_index (contours, i) : NULL;

          g_ptr_array_add (self->regions, hs_region_copy (g_ptr_array_index (regions, i)));
          g_ptr_array_add (self->masks, mask ? hs_image_ref (mask) : NULL);
          g_ptr_array_add (self->mask_contours, lines ? g_ptr_array_ref (lines)
                                                : mask ? hs_contour_trace_image (mask) : NULL);
        }
      if (colors)
        self->region_rgba = g_memdup2 (colors, regions->len * 4 * sizeof (double));
      if (is_target)
        self->region_target = g_memdup2 (is_target, regions->len * sizeof (gboolean));
    }
  g_clear_pointer (&self->decor_node, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hs_canvas_set_region_layers (HsCanvas *self, GPtrArray *regions, GPtrArray *masks,
                             const double *colors, const gboolean *is_target)
{
  hs_canvas_set_traced_layers (self, regions, masks, NULL, colors, is_target);
}

void
hs_canvas_set_regions (HsCanvas *self, GPtrArray *regions, GPtrArray *masks)
{
  hs_canvas_set_region_layers (self, regions, masks, NULL, NULL);
}
