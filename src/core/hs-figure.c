/* hs-figure.c — a complete view rendered to PNG, SVG or PDF
 *
 * The figure's own layout (image panel, legend beside it, caption under
 * it), its raster and its content (mask contours, the top-k/Otsu outline,
 * boxes with names).  Drawing goes through the HsPainter (cairo or direct
 * SVG); the colour bar, gauge, caption and region palette come from
 * hs-legend, the same code the app's canvas and compare view use. */
#include "hs-figure.h"
#include "hs-figure-private.h"
#include "hs-image-private.h"
#include "hs-legend-private.h"
#include "hs-atomic-file.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>
#include <cairo-pdf.h>

G_DEFINE_QUARK (hs-figure-error-quark, hs_figure_error)

static const double black[4] = { 0, 0, 0, 1 };
static const double dark[4] = { 0.2, 0.2, 0.2, 1 };

/* ---- formats -------------------------------------------------------------- */

gboolean
hs_figure_format_from_path (const char *path, HsFigureFormat *format, GError **error)
{
  const char *dot;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (format != NULL, FALSE);

  dot = strrchr (path, '.');
  if (dot && g_ascii_strcasecmp (dot, ".png") == 0)
    *format = HS_FIGURE_PNG;
  else if (dot && g_ascii_strcasecmp (dot, ".svg") == 0)
    *format = HS_FIGURE_SVG;
  else if (dot && g_ascii_strcasecmp (dot, ".pdf") == 0)
    *format = HS_FIGURE_PDF;
  else
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_FORMAT,
                   _("%s: unknown figure format (use .png, .svg or .pdf)"), path);
      return FALSE;
    }
  return TRUE;
}

/* ---- view and layout ---------------------------------------------------- */

void
hs_figure_view_init (HsFigureView *view)
{
  g_return_if_fail (view != NULL);
  /* every other field zero */
  *view = (HsFigureView) {
    .no_attn = NAN, .outline = HS_OUTLINE_NONE, .outline_k = 10, .max_size = 1024,
    .show_overlay = TRUE, .show_boxes = TRUE, .show_masks = TRUE, .show_colorbar = TRUE,
    .show_caption = TRUE,
  };
  hs_overlay_options_init (&view->overlay);
}
typedef struct {
  double vx, vy, vw, vh, zoom;
  double fs, margin;
  double px, py, pw, ph;              /* image panel */
  HsScaleRange range;
  gboolean has_legend;                /* colour bar and/or No-Attn gauge */
  HsLegendSpec legend;
  HsLegendLayout legend_layout;
  double legend_x, legend_y;
  double key_x, key_y;                /* the region key (v->n_key > 0) */
  double tags_y, tags_w, tags_h;      /* the tag strip under the panel (tags_h 0: none) */
  double cap_y;
  GPtrArray *caption_lines;           /* of HsCaptionLine* */
  double width, height;
} Layout;

static void
layout_clear (Layout *l)
{
  g_clear_pointer (&l->caption_lines, g_ptr_array_unref);
}

static gboolean
has_map (const HsFigureView *v)
{
  return v->map != NULL && v->map_width > 0 && v->map_height > 0;
}

/* The viewport (image pixels) of `v`, checked against its image. */
static gboolean
compute_viewport (const HsFigureView *v, Layout *l, GError **error)
{
  guint W, H;

  if (v->image == NULL)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID, _("the figure has no image"));
      return FALSE;
    }
  W = hs_image_get_width (v->image);
  H = hs_image_get_height (v->image);

  if (v->view_w > 0 && v->view_h > 0)
    {
      l->vx = v->view_x;
      l->vy = v->view_y;
      l->vw = v->view_w;
      l->vh = v->view_h;
    }
  else
    {
      l->vx = 0;
      l->vy = 0;
      l->vw = W;
      l->vh = H;
    }
  if (!isfinite (l->vx) || !isfinite (l->vy) || !isfinite (l->vw) || !isfinite (l->vh)
      || l->vx + l->vw <= 0 || l->vy + l->vh <= 0 || l->vx >= W || l->vy >= H)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                   _("viewport %g,%g %g × %g does not overlap the %u × %u image"),
                   l->vx, l->vy, l->vw, l->vh, W, H);
      return FALSE;
    }
  return TRUE;
}

static gboolean
compute_layout (const HsFigureView *v, HsPainter *p, Layout *l, GError **error)
{
  double right, bottom;
  gboolean has_bar, has_gauge;

  memset (l, 0, sizeof *l);
  if (!compute_viewport (v, l, error))
    return FALSE;
  if (v->zoom > 0 && isfinite (v->zoom))
    l->zoom = v->zoom;
  else
    l->zoom = (v->max_size > 0 ? v->max_size : 1024) / MAX (l->vw, l->vh);
  l->pw = l->vw * l->zoom;
  l->ph = l->vh * l->zoom;
  if (!(l->pw >= 1 && l->ph >= 1) || l->pw > 32767 || l->ph > 32767)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                   _("image panel of %.0f × %.0f units is out of range (zoom %g)"),
                   l->pw, l->ph, l->zoom);
      return FALSE;
    }

  if (has_map (v) && (guint64) v->map_width * v->map_height > hs_limits_get ()->max_grid_cells)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                   _("map of %u × %u cells is over the limits"), v->map_width, v->map_height);
      return FALSE;
    }

  l->fs = v->font_size > 0 ? v->font_size : CLAMP (MAX (l->pw, l->ph) / 64.0, 9.0, 28.0);
  /* whole units so the raster lands on pixel boundaries in PNG output */
  l->margin = round (l->fs * 0.8);
  l->px = l->margin;
  l->py = l->margin + (isfinite (v->no_attn) ? round (l->fs) : 0);
  right = l->px + l->pw;
  bottom = l->py + l->ph;

  has_bar = v->show_colorbar && v->show_overlay && has_map (v);
  if (has_map (v) && (v->range || v->show_overlay))
    {
      g_autoptr(GError) local = NULL;

      if (v->range)
        l->range = *v->range;
      else if (!hs_scale_resolve (&v->overlay.scale, v->map,
                                  (gsize) v->map_width * v->map_height, &l->range, &local))
        {
          g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                       _("cannot scale the map: %s"), local->message);
          return FALSE;
        }
    }

  has_gauge = isfinite (v->no_attn) && v->show_overlay;
  l->has_legend = has_bar || has_gauge;
  if (l->has_legend)
    {
      g_autoptr(GError) local = NULL;

      /* Beside the panel, the bar's top half a line below the panel's. */
      hs_legend_spec_init (&l->legend);
      l->legend.overlay = v->overlay;
      l->legend.range = l->range;
      l->legend.show_bar = has_bar;
      l->legend.no_attn = has_gauge ? v->no_attn : NAN;
      l->legend.length = MAX (l->ph - l->fs, l->fs * 4);
      l->legend.font_size = l->fs;
      if (!hs_legend_layout_with (p, &l->legend, &l->legend_layout, &local))
        {
          g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                       _("cannot draw the colour bar: %s"), local->message);
          return FALSE;
        }
      l->legend_x = right + l->margin * 1.5;
      l->legend_y = l->py + l->fs * 0.5 - (has_bar ? l->legend_layout.bar_y
                                                   : l->legend_layout.gauge_y);
      right = l->legend_x + l->legend_layout.width;
      bottom = MAX (bottom, l->legend_y + l->legend_layout.height);
    }

  if (v->show_tags && v->n_tags > 0 && v->tags != NULL)
    {
      /* under the panel, at least wide enough for a readable bar */
      l->tags_y = bottom + l->margin * 0.75;
      l->tags_w = MAX (l->pw, l->fs * 16);
      hs_tag_bars_measure (p, v->tags, v->n_tags, l->tags_w, l->fs, &l->tags_h);
      right = MAX (right, l->px + l->tags_w);
      bottom = l->tags_y + l->tags_h;
    }

  if (v->n_key > 0 && v->key != NULL)
    {
      double kw, kh;

      hs_region_key_measure (p, v->key, v->n_key, l->fs * 0.85, &kw, &kh);
      l->key_x = right + l->margin * 1.5;
      l->key_y = l->py;
      right = l->key_x + kw;
      bottom = MAX (bottom, l->key_y + kh);
    }

  l->width = ceil (right + l->margin);
  l->cap_y = bottom + l->margin;
  /* Without a caption the phantom note still stands under the figure. */
  if (v->show_caption || v->phantom_model_on_real_image)
    {
      HsCaption caption = { v->prompt, v->model, v->instance, v->phantom_model_on_real_image };
      double height = 0;

      if (!v->show_caption)
        caption.prompt = caption.model = caption.instance = NULL;

      l->caption_lines = hs_caption_layout_with (p, &caption, l->width - 2 * l->margin, l->fs, 0,
                                                 &height);
      l->height = ceil (l->cap_y + height + (l->caption_lines->len ? l->margin * 0.5 : 0));
    }
  else
    l->height = ceil (l->cap_y);
  return TRUE;
}

/* ---- content ------------------------------------------------------------ */

/* The composited raster of the image pixels covering the viewport. */
static cairo_surface_t *
render_raster (const HsFigureView *v, const Layout *l, int *ix0, int *iy0, GError **error)
{
  guint W = hs_image_get_width (v->image), H = hs_image_get_height (v->image);
  int x0 = (int) CLAMP (floor (l->vx), 0, W - 1), y0 = (int) CLAMP (floor (l->vy), 0, H - 1);
  int x1 = (int) CLAMP (ceil (l->vx + l->vw), x0 + 1, (double) W);
  int y1 = (int) CLAMP (ceil (l->vy + l->vh), y0 + 1, (double) H);
  int iw = x1 - x0, ih = y1 - y0;
  cairo_surface_t *levelled, *crop, *out;
  g_autoptr(GError) local = NULL;

  levelled = hs_image_levels (v->image, v->window_center, v->window_width);
  if (levelled == NULL || cairo_surface_status (levelled) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                   _("cannot level the %u × %u image"), W, H);
      if (levelled)
        cairo_surface_destroy (levelled);
      return NULL;
    }
  cairo_surface_flush (levelled);
  crop = cairo_image_surface_create_for_data (cairo_image_surface_get_data (levelled)
                                              + (gsize) y0 * cairo_image_surface_get_stride (levelled)
                                              + (gsize) x0 * 4,
                                              cairo_image_surface_get_format (levelled), iw, ih,
                                              cairo_image_surface_get_stride (levelled));
  out = NULL;
  if (v->show_overlay && has_map (v))
    {
      g_autoptr(HsOverlayField) field = NULL;
      cairo_surface_t *overlay = NULL;

      field = hs_overlay_field_new_region (v->map, v->map_width, v->map_height, W, H,
                                           (guint) x0, (guint) y0, (guint) iw, (guint) ih,
                                           v->overlay.upsample, &local);
      if (field)
        overlay = hs_overlay_field_colorize (field, &l->range, &v->overlay, &local);
      if (overlay)
        out = hs_overlay_composite (crop, overlay, v->overlay.opacity, &local);
      if (overlay)
        cairo_surface_destroy (overlay);
    }
  else
    out = hs_overlay_composite (crop, NULL, 0, &local);
  cairo_surface_destroy (crop);
  cairo_surface_destroy (levelled);
  if (out == NULL)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID, _("cannot draw the overlay: %s"),
                   local ? local->message : _("unknown error"));
      return NULL;
    }
  *ix0 = x0;
  *iy0 = y0;
  return out;
}

typedef struct {
  char   *name;
  double  rgba[4];
} LabelInk;

static void
label_ink_clear (gpointer data)
{
  g_free (((LabelInk *) data)->name);
}

/* A region's name for the item whose top-left is (x, y); a name wider than
 * the panel (`room`) is cut with "…" so that its label fits in it (the
 * figure's region key has it whole). */
static void
add_label (HsPainter *p, GArray *slots, GArray *inks, const char *name, double x, double y,
           double fs, double room, const double rgba[4])
{
  HsLabelSlot slot = { x, y, 0, 0, 0, 0 };
  LabelInk ink = { NULL, { rgba[0], rgba[1], rgba[2], rgba[3] } };
  g_autofree char *valid = NULL;

  if (name == NULL || *name == '\0' || !isfinite (x) || !isfinite (y))
    return;
  valid = g_utf8_make_valid (name, -1);
  hs_region_label_measure (p, valid, fs, &slot.w, &slot.h);
  /* the label's box is its bold text plus 0.4 fs of padding */
  ink.name = slot.w > room ? hs_painter_fit_text (p, valid, fs, TRUE, room - fs * 0.4)
                           : g_steal_pointer (&valid);
  hs_region_label_measure (p, ink.name, fs, &slot.w, &slot.h);
  g_array_append_val (slots, slot);
  g_array_append_val (inks, ink);
}

/* The image panel: raster, masks, the outline and boxes, clipped to it. */
static gboolean
draw_panel (const HsFigureView *v, HsPainter *p, const Layout *l, GError **error)
{
  g_autoptr(GArray) slots = g_array_new (FALSE, TRUE, sizeof (HsLabelSlot));
  g_autoptr(GArray) inks = g_array_new (FALSE, TRUE, sizeof (LabelInk));
  static const double outline_rgba[4] = { 1, 1, 1, 1 };
  guint W = hs_image_get_width (v->image), H = hs_image_get_height (v->image);
  HsPainterMapping m = { 1, 1, l->vx, l->vy, l->zoom, l->px, l->py };
  cairo_surface_t *raster;
  double lw = MAX (1.0, l->fs / 8), lfs = l->fs * 0.85;
  int ix0 = 0, iy0 = 0;

  g_array_set_clear_func (inks, label_ink_clear);
  raster = render_raster (v, l, &ix0, &iy0, error);
  if (raster == NULL)
    return FALSE;

  hs_painter_clip_push (p, l->px, l->py, l->pw, l->ph);
  hs_painter_image (p, raster,
                    l->px + (ix0 - l->vx) * l->zoom, l->py + (iy0 - l->vy) * l->zoom,
                    cairo_image_surface_get_width (raster) * l->zoom,
                    cairo_image_surface_get_height (raster) * l->zoom);
  cairo_surface_destroy (raster);

  /* Masks and boxes, each named at its top-left in its palette colour
   * (boxes first, then masks: hs_region_color's order).  A mask whose name
   * a shown box already carries is not named twice (as on the canvas). */
  if (v->show_masks)
    for (guint i = 0; i < v->n_masks; i++)
      {
        const HsFigureMask *mask = &v->masks[i];
        HsPainterMapping mm = m;
        g_autoptr(GPtrArray) lines = NULL;
        double rgba[4], mx = G_MAXDOUBLE, my = G_MAXDOUBLE;
        gboolean named = FALSE;

        if (mask->mask == NULL || (lines = hs_contour_trace_image (mask->mask)) == NULL)
          continue;
        if (mask->rgba)
          memcpy (rgba, mask->rgba, sizeof rgba);
        else
          hs_region_color (v->n_boxes + i, rgba);
        mm.sx = (double) W / hs_image_get_width (mask->mask);
        mm.sy = (double) H / hs_image_get_height (mask->mask);
        hs_painter_polylines (p, lines, &mm, rgba, mask->other ? lw * 0.5 : lw, mask->other);
        for (guint b = 0; v->show_boxes && mask->name && b < v->n_boxes && !named; b++)
          named = v->boxes[b].name && strcmp (v->boxes[b].name, mask->name) == 0;
        if (named || mask->name == NULL)
          continue;
        for (guint k = 0; k < lines->len; k++)
          {
            const HsPolyline *line = g_ptr_array_index (lines, k);
            for (guint j = 0; j < line->points->len; j++)
              {
                const HsPoint *pt = &g_array_index (line->points, HsPoint, j);
                mx = MIN (mx, pt->x);
                my = MIN (my, pt->y);
              }
          }
        if (lines->len > 0)
          add_label (p, slots, inks, mask->name, (mx * mm.sx - l->vx) * l->zoom + l->px,
                     (my * mm.sy - l->vy) * l->zoom + l->py, lfs, l->pw - 4, rgba);
      }

  if (v->outline != HS_OUTLINE_NONE && has_map (v))
    {
      g_autoptr(GError) local = NULL;
      g_autofree guint8 *bin = hs_contour_region_mask (v->map, v->map_width, v->map_height, W, H,
                                                       v->overlay.upsample, v->outline,
                                                       v->outline_k, &local);
      g_autoptr(GPtrArray) lines = NULL;

      if (bin == NULL)
        {
          hs_painter_clip_pop (p);
          g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                       _("cannot outline the map: %s"), local->message);
          return FALSE;
        }
      lines = hs_contour_trace_mask (bin, W, H, W, HS_CONTOUR_SIMPLIFY);
      hs_painter_polylines (p, lines, &m, outline_rgba, lw, TRUE);
    }

  if (v->show_boxes)
    for (guint i = 0; i < v->n_boxes; i++)
      {
        static const double halo[4] = { 0, 0, 0, 0.55 };
        const HsFigureBox *b = &v->boxes[i];
        double x1 = l->px + (b->x1 - l->vx) * l->zoom, y1 = l->py + (b->y1 - l->vy) * l->zoom;
        double x2 = l->px + (b->x2 - l->vx) * l->zoom, y2 = l->py + (b->y2 - l->vy) * l->zoom;
        double rgba[4];

        if (!isfinite (x1) || !isfinite (y1) || !isfinite (x2) || !isfinite (y2))
          continue;
        if (b->rgba)
          memcpy (rgba, b->rgba, sizeof rgba);
        else
          hs_region_color (i, rgba);
        hs_painter_stroke_rect (p, x1, y1, x2 - x1, y2 - y1, halo, (b->other ? 0.5 : 1) * lw * 2.2);
        hs_painter_stroke_rect (p, x1, y1, x2 - x1, y2 - y1, rgba, b->other ? lw * 0.5 : lw);
        add_label (p, slots, inks, b->name, x1, y1, lfs, l->pw - 4, rgba);
      }
  /* The names last, placed together so that none covers another. */
  hs_region_labels_place ((HsLabelSlot *) slots->data, slots->len, lw, l->px + 2, l->py,
                          l->pw - 4, l->ph);
  for (guint i = 0; i < slots->len; i++)
    {
      const HsLabelSlot *slot = &g_array_index (slots, HsLabelSlot, i);
      const LabelInk *ink = &g_array_index (inks, LabelInk, i);

      hs_region_label_paint_at (p, ink->name, slot->lx, slot->ly, lfs, ink->rgba);
    }
  hs_painter_clip_pop (p);
  hs_painter_stroke_rect (p, l->px, l->py, l->pw, l->ph, dark, MAX (0.5, l->fs / 16));
  return TRUE;
}

static gboolean
draw_figure (const HsFigureView *v, HsPainter *p, const Layout *l, GError **error)
{
  static const double white[4] = { 1, 1, 1, 1 };

  hs_painter_fill_rect (p, 0, 0, l->width, l->height, white);
  if (!draw_panel (v, p, l, error))
    return FALSE;
  if (l->has_legend)
    hs_legend_paint (p, &l->legend, &l->legend_layout, l->legend_x, l->legend_y, black);
  if (v->n_key > 0 && v->key != NULL)
    hs_region_key_paint (p, v->key, v->n_key, l->key_x, l->key_y, l->fs * 0.85, black);
  if (l->tags_h > 0)
    hs_tag_bars_paint (p, v->tags, v->n_tags, l->px, l->tags_y, l->tags_w, l->fs, black);
  hs_caption_paint (p, l->caption_lines, l->margin, l->cap_y, black);
  return TRUE;
}

/* ---- panels for the figure composer (hs-figure-grid.c) -------------------- */

gboolean
hs_figure_view_extent (const HsFigureView *view, double *width, double *height, GError **error)
{
  Layout l;

  memset (&l, 0, sizeof l);
  if (!compute_viewport (view, &l, error))
    return FALSE;
  *width = l.vw;
  *height = l.vh;
  return TRUE;
}

gboolean
hs_figure_paint_panel (const HsFigureView *view, HsPainter *p, double x, double y, double zoom,
                       double font_size, const HsScaleRange *range, GError **error)
{
  Layout l;

  memset (&l, 0, sizeof l);
  if (!compute_viewport (view, &l, error))
    return FALSE;
  if (has_map (view) && (guint64) view->map_width * view->map_height > hs_limits_get ()->max_grid_cells)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                   _("map of %u × %u cells is over the limits"), view->map_width, view->map_height);
      return FALSE;
    }
  l.zoom = zoom;
  l.fs = font_size;
  l.px = x;
  l.py = y;
  l.pw = l.vw * zoom;
  l.ph = l.vh * zoom;
  if (range)
    l.range = *range;
  else if (has_map (view))
    {
      g_autoptr(GError) local = NULL;

      if (!hs_scale_resolve (&view->overlay.scale, view->map,
                             (gsize) view->map_width * view->map_height, &l.range, &local))
        {
          g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                       _("cannot scale the map: %s"), local->message);
          return FALSE;
        }
    }
  return draw_panel (view, p, &l, error);
}

/* ---- entry points ------------------------------------------------------- */

/* The layout alone (measuring painter), for the size queries. */
static gboolean
measure (const HsFigureView *view, Layout *l, GError **error)
{
  HsPainter p;
  gboolean ok;

  hs_painter_init (&p, NULL, NULL);
  ok = compute_layout (view, &p, l, error);
  layout_clear (l);
  hs_painter_clear (&p);
  return ok;
}

gboolean
hs_figure_get_size (const HsFigureView *view, double *width, double *height, GError **error)
{
  Layout l;

  g_return_val_if_fail (view != NULL, FALSE);
  if (!measure (view, &l, error))
    return FALSE;
  if (width)
    *width = l.width;
  if (height)
    *height = l.height;
  return TRUE;
}

static gboolean
size_view (gconstpointer view, double *width, double *height, GError **error)
{
  return hs_figure_get_size (view, width, height, error);
}

gboolean
hs_figure_get_panel (const HsFigureView *view, double *x, double *y,
                     double *width, double *height, double *zoom, GError **error)
{
  Layout l;

  g_return_val_if_fail (view != NULL, FALSE);
  if (!measure (view, &l, error))
    return FALSE;
  if (x)
    *x = l.px;
  if (y)
    *y = l.py;
  if (width)
    *width = l.pw;
  if (height)
    *height = l.ph;
  if (zoom)
    *zoom = l.zoom;
  return TRUE;
}

static gboolean
paint_view (gconstpointer figure, HsPainter *p, double *width, double *height, GError **error)
{
  const HsFigureView *view = figure;
  Layout l;
  gboolean ok = compute_layout (view, p, &l, error);

  if (ok)
    {
      *width = l.width;
      *height = l.height;
      ok = draw_figure (view, p, &l, error);
    }
  layout_clear (&l);
  return ok;
}

gboolean
hs_figure_paint_cairo (gconstpointer figure, HsFigurePaintFunc paint, cairo_t *cr,
                       GError **error)
{
  HsPainter p;
  double w, h;
  gboolean ok;

  hs_painter_init (&p, cr, NULL);
  cairo_save (cr);
  ok = paint (figure, &p, &w, &h, error);
  cairo_restore (cr);
  hs_painter_clear (&p);
  return ok;
}

gboolean
hs_figure_draw (const HsFigureView *view, cairo_t *cr, GError **error)
{
  g_return_val_if_fail (view != NULL, FALSE);
  g_return_val_if_fail (cr != NULL, FALSE);
  return hs_figure_paint_cairo (view, paint_view, cr, error);
}

cairo_surface_t *
hs_figure_export_surface (gconstpointer figure, HsFigureSizeFunc size, HsFigurePaintFunc paint,
                          double scale, double dpi, GError **error)
{
  cairo_surface_t *surface;
  double w, h;
  cairo_t *cr;

  if (!size (figure, &w, &h, error))
    return NULL;
  w = ceil (w * scale);
  h = ceil (h * scale);
  /* 32767: cairo's largest image side */
  if (w > 32767 || h > 32767 || (guint64) w * (guint64) h > hs_limits_get ()->max_image_pixels)
    {
      if (dpi > 0)
        g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                     _("a %.0f × %.0f pixel figure (%g dpi) is over the pixel limit"), w, h, dpi);
      else
        g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                     _("a %.0f × %.0f figure is over the pixel limit"), w, h);
      return NULL;
    }
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) w, (int) h);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                   _("cannot allocate a %.0f × %.0f figure"), w, h);
      cairo_surface_destroy (surface);
      return NULL;
    }
  cr = cairo_create (surface);
  if (scale != 1)
    cairo_scale (cr, scale, scale);
  if (!hs_figure_paint_cairo (figure, paint, cr, error))
    g_clear_pointer (&surface, cairo_surface_destroy);
  cairo_destroy (cr);
  return surface;
}

cairo_surface_t *
hs_figure_render_surface (const HsFigureView *view, GError **error)
{
  g_return_val_if_fail (view != NULL, NULL);
  return hs_figure_export_surface (view, size_view, paint_view, 1, 0, error);
}

gboolean
hs_figure_write_file (const char *path, const void *data, gsize len, GError **error)
{
  g_autoptr(GError) local = NULL;

  if (!hs_atomic_write (path, data, len, &local))
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_WRITE, "%s", local->message);
      return FALSE;
    }
  return TRUE;
}

/* The encoded bytes to `path`, or the PDF or PNG encoder's failure. */
static gboolean
write_encoded (cairo_status_t status, gboolean pdf, const char *path, const GByteArray *bytes,
               GError **error)
{
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_WRITE,
                   pdf ? _("%s: cannot write PDF: %s") : _("%s: cannot encode PNG: %s"), path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  return hs_figure_write_file (path, bytes->data, bytes->len, error);
}

/* Image surfaces of 32-bit pixels go through hs_png_encode_argb32 (cheaper
 * settings than cairo's writer), any other through cairo's. */
static cairo_status_t
encode_png (cairo_surface_t *surface, GByteArray *bytes)
{
  cairo_format_t format = cairo_image_surface_get_format (surface);

  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS ||
      (format != CAIRO_FORMAT_ARGB32 && format != CAIRO_FORMAT_RGB24))
    return cairo_surface_write_to_png_stream (surface, hs_painter_append_bytes, bytes);
  cairo_surface_flush (surface);
  return hs_png_encode_argb32 (cairo_image_surface_get_data (surface),
                               cairo_image_surface_get_width (surface),
                               cairo_image_surface_get_height (surface),
                               cairo_image_surface_get_stride (surface),
                               format == CAIRO_FORMAT_ARGB32, bytes)
         ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

gboolean
hs_figure_export_png (cairo_surface_t *surface, const char *path, GError **error)
{
  g_autoptr(GByteArray) bytes = NULL;
  cairo_status_t status;

  if (surface == NULL)
    return FALSE;
  bytes = g_byte_array_new ();
  status = encode_png (surface, bytes);
  cairo_surface_destroy (surface);
  return write_encoded (status, FALSE, path, bytes, error);
}

gboolean
hs_figure_export_pdf (gconstpointer figure, HsFigureSizeFunc size, HsFigurePaintFunc paint,
                      const char *title, const char *path, GError **error)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  cairo_surface_t *s;
  cairo_status_t status;
  double width, height;
  cairo_t *cr;
  gboolean ok;

  if (!size (figure, &width, &height, error))
    return FALSE;
  s = cairo_pdf_surface_create_for_stream (hs_painter_append_bytes, bytes, width, height);
  cairo_pdf_surface_set_metadata (s, CAIRO_PDF_METADATA_CREATOR, "Heatscope");
  if (title)
    {
      g_autofree char *valid = g_utf8_make_valid (title, -1);
      cairo_pdf_surface_set_metadata (s, CAIRO_PDF_METADATA_TITLE, valid);
    }
  cr = cairo_create (s);
  ok = hs_figure_paint_cairo (figure, paint, cr, error);
  cairo_destroy (cr);
  cairo_surface_finish (s);
  status = cairo_surface_status (s);
  cairo_surface_destroy (s);
  if (!ok)
    return FALSE;
  return write_encoded (status, TRUE, path, bytes, error);
}

static void
svg_begin (GString *svg, double width, double height, const char *unit,
                     const char *title)
{
  g_string_append (svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                        "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" width=\"");
  hs_svg_num (svg, width);
  g_string_append_printf (svg, "%s\" height=\"", unit);
  hs_svg_num (svg, height);
  g_string_append_printf (svg, "%s\" viewBox=\"0 0 ", unit);
  hs_svg_num (svg, width);
  g_string_append_c (svg, ' ');
  hs_svg_num (svg, height);
  g_string_append (svg, "\">\n");
  if (title)
    {
      g_autofree char *valid = g_utf8_make_valid (title, -1);
      g_autofree char *esc = g_markup_escape_text (valid, -1);
      g_string_append_printf (svg, "<title>%s</title>\n", esc);
    }
}

gboolean
hs_figure_export_svg (gconstpointer figure, HsFigurePaintFunc paint, const char *unit,
                      const char *title, const char *path, GError **error)
{
  g_autoptr(GString) svg = g_string_new (NULL);
  g_autoptr(GString) head = g_string_new (NULL);
  HsPainter p;
  double w = 0, h = 0;
  gboolean ok;

  hs_painter_init (&p, NULL, svg);
  ok = paint (figure, &p, &w, &h, error);
  hs_painter_clear (&p);
  if (!ok)
    return FALSE;
  /* the prologue names the size, known once laid out */
  svg_begin (head, w, h, unit, title);
  g_string_prepend (svg, head->str);
  g_string_append (svg, "</svg>\n");
  return hs_figure_write_file (path, svg->str, svg->len, error);
}

gboolean
hs_figure_save (const HsFigureView *view, HsFigureFormat format, const char *path,
                GError **error)
{
  g_return_val_if_fail (view != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  switch (format)
    {
    case HS_FIGURE_PNG:
      return hs_figure_export_png (hs_figure_render_surface (view, error), path, error);

    case HS_FIGURE_PDF:
      return hs_figure_export_pdf (view, size_view, paint_view, view->prompt, path, error);

    case HS_FIGURE_SVG:
      return hs_figure_export_svg (view, paint_view, "", view->prompt, path, error);

    default:
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_FORMAT, _("%s: unknown figure format"), path);
      return FALSE;
    }
}
