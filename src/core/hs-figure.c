/* hs-figure.c — a complete view rendered to PNG, SVG or PDF
 *
 * Everything is drawn through a tiny painter with two back ends: cairo (PNG,
 * PDF, the app's own cairo_t) and a direct SVG writer, so that SVG keeps
 * real <text> elements (cairo's SVG surface turns text into glyph outlines).
 * Both back ends get the same geometry, computed once by the layout. */
#include "hs-figure.h"
#include "hs-atomic-file.h"
#include "hs-limits.h"

#include <math.h>
#include <string.h>
#include <cairo-pdf.h>

G_DEFINE_QUARK (hs-figure-error-quark, hs_figure_error)

#define FONT_FAMILY "sans-serif"

/* ---- painter ------------------------------------------------------------ */

typedef struct {
  cairo_t *cr;          /* cairo back end, or NULL */
  GString *svg;         /* SVG back end, or NULL   */
  cairo_t *measure;     /* text metrics for both   */
  guint    next_id;
} Painter;

typedef enum { ANCHOR_START, ANCHOR_MIDDLE, ANCHOR_END } Anchor;

static void
painter_init (Painter *p, cairo_t *cr, GString *svg)
{
  cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_A8, 1, 1);

  memset (p, 0, sizeof *p);
  p->cr = cr;
  p->svg = svg;
  p->measure = cairo_create (scratch);
  cairo_surface_destroy (scratch);
}

static void
painter_clear (Painter *p)
{
  g_clear_pointer (&p->measure, cairo_destroy);
}

static void
svg_num (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (fabs (v) < 0.005)
    v = 0;
  g_ascii_formatd (buf, sizeof buf, "%.2f", v);
  /* trim "12.50" → "12.5", "12.00" → "12" */
  if (strchr (buf, '.'))
    {
      char *end = buf + strlen (buf) - 1;
      while (*end == '0')
        *end-- = '\0';
      if (*end == '.')
        *end = '\0';
    }
  g_string_append (s, buf);
}

static void
svg_attr (GString *s, const char *name, double v)
{
  g_string_append_printf (s, " %s=\"", name);
  svg_num (s, v);
  g_string_append_c (s, '"');
}

static void
svg_color (GString *s, const char *attr, const double rgba[4])
{
  g_string_append_printf (s, " %s=\"#%02x%02x%02x\"", attr,
                          (guint) lround (CLAMP (rgba[0], 0, 1) * 255),
                          (guint) lround (CLAMP (rgba[1], 0, 1) * 255),
                          (guint) lround (CLAMP (rgba[2], 0, 1) * 255));
  if (rgba[3] < 1)
    {
      g_string_append_printf (s, " %s-opacity=\"", attr);
      svg_num (s, CLAMP (rgba[3], 0, 1));
      g_string_append_c (s, '"');
    }
}

static void
set_font (cairo_t *cr, double size, gboolean bold)
{
  cairo_select_font_face (cr, FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
                          bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
}

static double
text_width (Painter *p, const char *text, double size, gboolean bold)
{
  cairo_text_extents_t ext;

  set_font (p->measure, size, bold);
  cairo_text_extents (p->measure, text, &ext);
  return ext.x_advance;
}

static void
p_fill_rect (Painter *p, double x, double y, double w, double h, const double rgba[4])
{
  if (p->cr)
    {
      cairo_set_source_rgba (p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
      cairo_rectangle (p->cr, x, y, w, h);
      cairo_fill (p->cr);
    }
  else
    {
      g_string_append (p->svg, "<rect");
      svg_attr (p->svg, "x", x);
      svg_attr (p->svg, "y", y);
      svg_attr (p->svg, "width", w);
      svg_attr (p->svg, "height", h);
      svg_color (p->svg, "fill", rgba);
      g_string_append (p->svg, "/>\n");
    }
}

static void
p_stroke_rect (Painter *p, double x, double y, double w, double h, const double rgba[4],
               double lw)
{
  if (p->cr)
    {
      cairo_set_source_rgba (p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
      cairo_set_line_width (p->cr, lw);
      cairo_set_line_join (p->cr, CAIRO_LINE_JOIN_MITER);
      cairo_rectangle (p->cr, x, y, w, h);
      cairo_stroke (p->cr);
    }
  else
    {
      g_string_append (p->svg, "<rect");
      svg_attr (p->svg, "x", x);
      svg_attr (p->svg, "y", y);
      svg_attr (p->svg, "width", w);
      svg_attr (p->svg, "height", h);
      g_string_append (p->svg, " fill=\"none\"");
      svg_color (p->svg, "stroke", rgba);
      svg_attr (p->svg, "stroke-width", lw);
      g_string_append (p->svg, "/>\n");
    }
}

static void
p_line (Painter *p, double x0, double y0, double x1, double y1, const double rgba[4], double lw)
{
  if (p->cr)
    {
      cairo_set_source_rgba (p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
      cairo_set_line_width (p->cr, lw);
      cairo_move_to (p->cr, x0, y0);
      cairo_line_to (p->cr, x1, y1);
      cairo_stroke (p->cr);
    }
  else
    {
      g_string_append (p->svg, "<line");
      svg_attr (p->svg, "x1", x0);
      svg_attr (p->svg, "y1", y0);
      svg_attr (p->svg, "x2", x1);
      svg_attr (p->svg, "y2", y1);
      svg_color (p->svg, "stroke", rgba);
      svg_attr (p->svg, "stroke-width", lw);
      g_string_append (p->svg, "/>\n");
    }
}

/* Polylines in image coordinates mapped by out = (pt − origin)·zoom + offset. */
typedef struct {
  double ox, oy;       /* image origin (viewport corner) */
  double zoom;
  double px, py;       /* panel corner in output units   */
} Mapping;

static void
p_polylines (Painter *p, GPtrArray *lines, const Mapping *m, const double rgba[4],
             double lw, gboolean dashed)
{
  static const double halo[4] = { 0, 0, 0, 0.55 };

  if (lines == NULL || lines->len == 0)
    return;
  if (p->cr)
    {
      cairo_save (p->cr);
      cairo_new_path (p->cr);
      for (guint i = 0; i < lines->len; i++)
        {
          const HsPolyline *line = g_ptr_array_index (lines, i);
          const HsPoint *pt = (const HsPoint *) (const void *) line->points->data;

          for (guint j = 0; j < line->points->len; j++)
            {
              double x = (pt[j].x - m->ox) * m->zoom + m->px;
              double y = (pt[j].y - m->oy) * m->zoom + m->py;
              if (j == 0)
                cairo_move_to (p->cr, x, y);
              else
                cairo_line_to (p->cr, x, y);
            }
          if (line->closed)
            cairo_close_path (p->cr);
        }
      cairo_set_line_join (p->cr, CAIRO_LINE_JOIN_ROUND);
      cairo_set_source_rgba (p->cr, halo[0], halo[1], halo[2], halo[3]);
      cairo_set_line_width (p->cr, lw * 2.2);
      cairo_stroke_preserve (p->cr);
      cairo_set_source_rgba (p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
      cairo_set_line_width (p->cr, lw);
      if (dashed)
        {
          double dash[2] = { lw * 4, lw * 3 };
          cairo_set_dash (p->cr, dash, 2, 0);
        }
      cairo_stroke (p->cr);
      cairo_restore (p->cr);
    }
  else
    {
      g_autoptr(GString) d = g_string_new (NULL);

      for (guint i = 0; i < lines->len; i++)
        {
          const HsPolyline *line = g_ptr_array_index (lines, i);
          const HsPoint *pt = (const HsPoint *) (const void *) line->points->data;

          for (guint j = 0; j < line->points->len; j++)
            {
              g_string_append_c (d, j == 0 ? 'M' : 'L');
              svg_num (d, (pt[j].x - m->ox) * m->zoom + m->px);
              g_string_append_c (d, ' ');
              svg_num (d, (pt[j].y - m->oy) * m->zoom + m->py);
            }
          if (line->closed && line->points->len > 0)
            g_string_append_c (d, 'Z');
        }
      g_string_append_printf (p->svg, "<path d=\"%s\" fill=\"none\" stroke-linejoin=\"round\"", d->str);
      svg_color (p->svg, "stroke", halo);
      svg_attr (p->svg, "stroke-width", lw * 2.2);
      g_string_append (p->svg, "/>\n");
      g_string_append_printf (p->svg, "<path d=\"%s\" fill=\"none\" stroke-linejoin=\"round\"", d->str);
      svg_color (p->svg, "stroke", rgba);
      svg_attr (p->svg, "stroke-width", lw);
      if (dashed)
        {
          g_string_append (p->svg, " stroke-dasharray=\"");
          svg_num (p->svg, lw * 4);
          g_string_append_c (p->svg, ' ');
          svg_num (p->svg, lw * 3);
          g_string_append_c (p->svg, '"');
        }
      g_string_append (p->svg, "/>\n");
    }
}

/* Text with its baseline at y; angle −90 for text running upwards. */
static void
p_text (Painter *p, double x, double y, const char *text, double size, const double rgba[4],
        gboolean bold, Anchor anchor, double angle_deg)
{
  if (text == NULL || *text == '\0')
    return;
  if (p->cr)
    {
      double w = text_width (p, text, size, bold);
      double dx = anchor == ANCHOR_START ? 0 : anchor == ANCHOR_MIDDLE ? -w / 2 : -w;

      cairo_save (p->cr);
      set_font (p->cr, size, bold);
      cairo_set_source_rgba (p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
      cairo_translate (p->cr, x, y);
      cairo_rotate (p->cr, angle_deg * G_PI / 180.0);
      cairo_move_to (p->cr, dx, 0);
      cairo_show_text (p->cr, text);
      cairo_new_path (p->cr);
      cairo_restore (p->cr);
    }
  else
    {
      g_autofree char *escaped = g_markup_escape_text (text, -1);

      g_string_append (p->svg, "<text");
      svg_attr (p->svg, "x", x);
      svg_attr (p->svg, "y", y);
      g_string_append_printf (p->svg, " font-family=\"%s\"", FONT_FAMILY);
      svg_attr (p->svg, "font-size", size);
      if (bold)
        g_string_append (p->svg, " font-weight=\"bold\"");
      if (anchor != ANCHOR_START)
        g_string_append_printf (p->svg, " text-anchor=\"%s\"",
                                anchor == ANCHOR_MIDDLE ? "middle" : "end");
      if (angle_deg != 0)
        {
          g_string_append (p->svg, " transform=\"rotate(");
          svg_num (p->svg, angle_deg);
          g_string_append_c (p->svg, ' ');
          svg_num (p->svg, x);
          g_string_append_c (p->svg, ' ');
          svg_num (p->svg, y);
          g_string_append (p->svg, ")\"");
        }
      svg_color (p->svg, "fill", rgba);
      g_string_append_printf (p->svg, ">%s</text>\n", escaped);
    }
}

/* Vertical gradient: stops[0] at the bottom, stops[n−1] at the top
 * (premultiplied ARGB32 as from hs_overlay_build_lut). */
static void
p_gradient_rect (Painter *p, double x, double y, double w, double h, const guint32 *stops, guint n)
{
  if (p->cr)
    {
      cairo_pattern_t *pat = cairo_pattern_create_linear (0, y + h, 0, y);

      for (guint i = 0; i < n; i++)
        {
          guint a = stops[i] >> 24;
          double r = 0, g = 0, b = 0;
          if (a > 0)
            {
              r = MIN (1.0, (stops[i] >> 16 & 0xff) / (double) a);
              g = MIN (1.0, (stops[i] >> 8 & 0xff) / (double) a);
              b = MIN (1.0, (stops[i] & 0xff) / (double) a);
            }
          cairo_pattern_add_color_stop_rgba (pat, (double) i / (n - 1), r, g, b, a / 255.0);
        }
      cairo_set_source (p->cr, pat);
      cairo_rectangle (p->cr, x, y, w, h);
      cairo_fill (p->cr);
      cairo_pattern_destroy (pat);
    }
  else
    {
      guint id = ++p->next_id;

      g_string_append_printf (p->svg, "<defs><linearGradient id=\"g%u\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n", id);
      for (guint i = 0; i < n; i++)
        {
          guint a = stops[i] >> 24;
          double rgba[4] = { 0, 0, 0, a / 255.0 };
          if (a > 0)
            {
              rgba[0] = (stops[i] >> 16 & 0xff) / (double) a;
              rgba[1] = (stops[i] >> 8 & 0xff) / (double) a;
              rgba[2] = (stops[i] & 0xff) / (double) a;
            }
          g_string_append (p->svg, "<stop");
          svg_attr (p->svg, "offset", (double) i / (n - 1));
          rgba[3] = 1;
          svg_color (p->svg, "stop-color", rgba);
          if (a < 255)
            svg_attr (p->svg, "stop-opacity", a / 255.0);
          g_string_append (p->svg, "/>\n");
        }
      g_string_append (p->svg, "</linearGradient></defs>\n<rect");
      svg_attr (p->svg, "x", x);
      svg_attr (p->svg, "y", y);
      svg_attr (p->svg, "width", w);
      svg_attr (p->svg, "height", h);
      g_string_append_printf (p->svg, " fill=\"url(#g%u)\"/>\n", id);
    }
}

static void
p_clip_push (Painter *p, double x, double y, double w, double h)
{
  if (p->cr)
    {
      cairo_save (p->cr);
      cairo_rectangle (p->cr, x, y, w, h);
      cairo_clip (p->cr);
    }
  else
    {
      guint id = ++p->next_id;

      g_string_append_printf (p->svg, "<clipPath id=\"c%u\"><rect", id);
      svg_attr (p->svg, "x", x);
      svg_attr (p->svg, "y", y);
      svg_attr (p->svg, "width", w);
      svg_attr (p->svg, "height", h);
      g_string_append_printf (p->svg, "/></clipPath>\n<g clip-path=\"url(#c%u)\">\n", id);
    }
}

static void
p_clip_pop (Painter *p)
{
  if (p->cr)
    cairo_restore (p->cr);
  else
    g_string_append (p->svg, "</g>\n");
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

/* The raster: `surface` (iw × ih image pixels) placed at (x, y) with size
 * w × h, nearest filtering when magnified. */
static void
p_image (Painter *p, cairo_surface_t *surface, double x, double y, double w, double h)
{
  int iw = cairo_image_surface_get_width (surface);
  int ih = cairo_image_surface_get_height (surface);
  gboolean magnified = w / iw >= 1.0;

  if (p->cr)
    {
      cairo_pattern_t *pat;

      cairo_save (p->cr);
      cairo_rectangle (p->cr, x, y, w, h);
      cairo_clip (p->cr);
      cairo_translate (p->cr, x, y);
      cairo_scale (p->cr, w / iw, h / ih);
      cairo_set_source_surface (p->cr, surface, 0, 0);
      pat = cairo_get_source (p->cr);
      cairo_pattern_set_filter (pat, magnified ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD);
      cairo_pattern_set_extend (pat, CAIRO_EXTEND_PAD);
      cairo_paint (p->cr);
      cairo_restore (p->cr);
    }
  else
    {
      g_autoptr(GByteArray) png = g_byte_array_new ();
      g_autofree char *b64 = NULL;

      cairo_surface_write_to_png_stream (surface, append_bytes, png);
      b64 = g_base64_encode (png->data, png->len);
      g_string_append (p->svg, "<image");
      svg_attr (p->svg, "x", x);
      svg_attr (p->svg, "y", y);
      svg_attr (p->svg, "width", w);
      svg_attr (p->svg, "height", h);
      g_string_append_printf (p->svg, " preserveAspectRatio=\"none\"%s xlink:href=\"data:image/png;base64,%s\"/>\n",
                              magnified ? " style=\"image-rendering:pixelated\"" : "", b64);
    }
}

/* ---- ticks and formats -------------------------------------------------- */

static void
format_value (char buf[G_ASCII_DTOSTR_BUF_SIZE], double v)
{
  if (v == 0)
    v = 0;
  g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.3g", v);
}

guint
hs_figure_nice_ticks (double lo, double hi, guint max_ticks, double *ticks)
{
  static const double mult[] = { 10, 5, 2, 1 };
  double span = hi - lo;

  g_return_val_if_fail (ticks != NULL || max_ticks == 0, 0);

  if (max_ticks == 0 || !isfinite (lo) || !isfinite (hi))
    return 0;
  if (!(span > 0) || max_ticks == 1)
    {
      ticks[0] = lo;
      return 1;
    }
  /* the smallest 1/2/5·10^k step giving at most max_ticks ticks in [lo, hi]
   * (and at least 2) */
  {
    double best_step = 0, best_first = 0, best_last = 0;

    for (double mag = pow (10, ceil (log10 (span))); mag > span * 1e-6; mag /= 10)
      for (guint m = 0; m < G_N_ELEMENTS (mult); m++)
        {
          double step = mult[m] * mag / 10;
          double first = ceil (lo / step - 1e-9);
          double last = floor (hi / step + 1e-9);
          double count = last - first + 1;

          if (count > max_ticks)
            goto done;
          if (count >= 2)
            {
              best_step = step;
              best_first = first;
              best_last = last;
            }
        }
done:
    if (best_step > 0)
      {
        guint n = 0;
        for (double k = best_first; k <= best_last; k++)
          ticks[n++] = k * best_step;
        return n;
      }
  }
  ticks[0] = lo;
  ticks[1] = hi;
  return 2;
}

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
                   "%s: unknown figure format (use .png, .svg or .pdf)", path);
      return FALSE;
    }
  return TRUE;
}

/* ---- colour bar and gauge ----------------------------------------------- */

static const double black[4] = { 0, 0, 0, 1 };
static const double dark[4] = { 0.2, 0.2, 0.2, 1 };

/* Bar at (x, y, w, h); tick labels to the right; returns the width used
 * (bar + ticks + labels + the rotated scale label). */
static double
draw_colorbar (Painter *p, double x, double y, double w, double h,
               const HsOverlayOptions *options, const HsScaleRange *range,
               const char *label, double fs, gboolean draw)
{
  guint32 stops[256];
  double ticks[8];
  guint n;
  double tick_len = fs * 0.35, label_w = 0, tfs = fs * 0.8;

  n = hs_figure_nice_ticks (range->lo, range->hi, 6, ticks);
  for (guint i = 0; i < n; i++)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      format_value (buf, ticks[i]);
      label_w = MAX (label_w, text_width (p, buf, tfs, FALSE));
    }
  if (draw)
    {
      hs_overlay_build_lut (options, stops, 256);
      p_gradient_rect (p, x, y, w, h, stops, 256);
      p_stroke_rect (p, x, y, w, h, dark, MAX (0.5, fs / 16));
      for (guint i = 0; i < n; i++)
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          double t = range->hi > range->lo ? (ticks[i] - range->lo) / (range->hi - range->lo) : 0;
          double ty = y + h - t * h;

          format_value (buf, ticks[i]);
          p_line (p, x + w, ty, x + w + tick_len, ty, dark, MAX (0.5, fs / 16));
          p_text (p, x + w + tick_len + fs * 0.2, ty + tfs * 0.35, buf, tfs, black, FALSE,
                  ANCHOR_START, 0);
        }
      if (label)
        p_text (p, x + w + tick_len + fs * 0.4 + label_w + fs * 0.9, y + h / 2, label, tfs, black,
                FALSE, ANCHOR_MIDDLE, -90);
    }
  return w + tick_len + fs * 0.4 + label_w + (label ? fs * 1.3 : 0);
}

static double
draw_gauge (Painter *p, double x, double y, double w, double h, double value, double fs,
            gboolean draw)
{
  static const double fill[4] = { 0.35, 0.35, 0.4, 1 };
  static const double back[4] = { 0.92, 0.92, 0.92, 1 };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double tfs = fs * 0.8;
  double v = isfinite (value) ? CLAMP (value, 0.0, 1.0) : 0;

  format_value (buf, value);
  if (draw)
    {
      p_fill_rect (p, x, y, w, h, back);
      p_fill_rect (p, x, y + h * (1 - v), w, h * v, fill);
      p_stroke_rect (p, x, y, w, h, dark, MAX (0.5, fs / 16));
      p_text (p, x + w / 2, y - tfs * 0.5, buf, tfs, black, FALSE, ANCHOR_MIDDLE, 0);
      p_text (p, x + w + tfs * 1.1, y + h / 2, "No-Attn mass", tfs, black, FALSE, ANCHOR_MIDDLE, -90);
    }
  return MAX (w + tfs * 1.5, text_width (p, buf, tfs, FALSE));
}

void
hs_figure_draw_colorbar (cairo_t *cr, double x, double y, double w, double h,
                         const HsOverlayOptions *options, const HsScaleRange *range,
                         const char *label, double font_size)
{
  Painter p;

  g_return_if_fail (cr != NULL && options != NULL && range != NULL);
  painter_init (&p, cr, NULL);
  cairo_save (cr);
  draw_colorbar (&p, x, y, w, h, options, range, label, font_size > 0 ? font_size : 12, TRUE);
  cairo_restore (cr);
  painter_clear (&p);
}

void
hs_figure_draw_no_attn_gauge (cairo_t *cr, double x, double y, double w, double h,
                              double no_attn, double font_size)
{
  Painter p;

  g_return_if_fail (cr != NULL);
  painter_init (&p, cr, NULL);
  cairo_save (cr);
  draw_gauge (&p, x, y, w, h, no_attn, font_size > 0 ? font_size : 12, TRUE);
  cairo_restore (cr);
  painter_clear (&p);
}

/* ---- view and layout ---------------------------------------------------- */

void
hs_figure_view_init (HsFigureView *view)
{
  g_return_if_fail (view != NULL);
  memset (view, 0, sizeof *view);
  hs_overlay_options_init (&view->overlay);
  view->no_attn = NAN;
  view->outline = HS_OUTLINE_NONE;
  view->outline_k = 10;
  view->max_size = 1024;
  view->show_overlay = TRUE;
  view->show_boxes = TRUE;
  view->show_masks = TRUE;
  view->show_colorbar = TRUE;
  view->show_caption = TRUE;
}

typedef struct {
  double vx, vy, vw, vh, zoom;
  double fs, margin;
  double px, py, pw, ph;              /* image panel */
  gboolean has_bar, has_gauge;
  double bar_x, bar_y, bar_w, bar_h;
  double gauge_x;
  double cap_y;
  GPtrArray *caption_lines;           /* of char*, with a flag: first char 'B' bold / 'N' */
  double width, height;
  HsScaleRange range;
  char *scale_label;
} Layout;

static void
layout_clear (Layout *l)
{
  g_clear_pointer (&l->caption_lines, g_ptr_array_unref);
  g_clear_pointer (&l->scale_label, g_free);
}

static gboolean
has_map (const HsFigureView *v)
{
  return v->map != NULL && v->map_width > 0 && v->map_height > 0;
}

/* Greedy word wrap of `text` to `width`. */
static void
wrap_text (Painter *p, GPtrArray *out, char tag, const char *text, double size, double width)
{
  g_auto(GStrv) words = g_strsplit_set (text, " \t\n", -1);
  g_autoptr(GString) line = g_string_new (NULL);

  for (guint i = 0; words[i]; i++)
    {
      g_autoptr(GString) trial = NULL;

      if (*words[i] == '\0')
        continue;
      trial = g_string_new (line->str);
      if (trial->len)
        g_string_append_c (trial, ' ');
      g_string_append (trial, words[i]);
      if (line->len > 0 && text_width (p, trial->str, size, FALSE) > width)
        {
          g_ptr_array_add (out, g_strdup_printf ("%c%s", tag, line->str));
          g_string_assign (line, words[i]);
        }
      else
        g_string_assign (line, trial->str);
    }
  if (line->len)
    g_ptr_array_add (out, g_strdup_printf ("%c%s", tag, line->str));
}

static gboolean
compute_layout (const HsFigureView *v, Painter *p, Layout *l, GError **error)
{
  guint W, H;
  double right;

  memset (l, 0, sizeof *l);
  if (v->image == NULL)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID, "the figure has no image");
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
                   "viewport %g,%g %g × %g does not overlap the %u × %u image",
                   l->vx, l->vy, l->vw, l->vh, W, H);
      return FALSE;
    }
  if (v->zoom > 0 && isfinite (v->zoom))
    l->zoom = v->zoom;
  else
    l->zoom = (v->max_size > 0 ? v->max_size : 1024) / MAX (l->vw, l->vh);
  l->pw = l->vw * l->zoom;
  l->ph = l->vh * l->zoom;
  if (!(l->pw >= 1 && l->ph >= 1) || l->pw > 32767 || l->ph > 32767)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                   "image panel of %.0f × %.0f units is out of range (zoom %g)",
                   l->pw, l->ph, l->zoom);
      return FALSE;
    }

  if (has_map (v) && (guint64) v->map_width * v->map_height > hs_limits_get ()->max_grid_cells)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                   "map of %u × %u cells is over the limits", v->map_width, v->map_height);
      return FALSE;
    }

  l->fs = v->font_size > 0 ? v->font_size : CLAMP (MAX (l->pw, l->ph) / 64.0, 9.0, 28.0);
  /* whole units so the raster lands on pixel boundaries in PNG output */
  l->margin = round (l->fs * 0.8);
  l->px = l->margin;
  l->py = l->margin + (isfinite (v->no_attn) ? round (l->fs) : 0);
  right = l->px + l->pw;

  l->has_bar = v->show_colorbar && v->show_overlay && has_map (v);
  if (l->has_bar)
    {
      g_autoptr(GError) local = NULL;

      if (v->range)
        l->range = *v->range;
      else if (!hs_scale_resolve (&v->overlay.scale, v->map,
                                  (gsize) v->map_width * v->map_height, &l->range, &local))
        {
          g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                       "cannot scale the map: %s", local->message);
          return FALSE;
        }
      l->scale_label = hs_scale_describe (&v->overlay.scale, &l->range);
      if (v->overlay.strength == HS_STRENGTH_LOG && v->overlay.strength_param > 1)
        {
          char b[G_ASCII_DTOSTR_BUF_SIZE];
          char *with;

          format_value (b, v->overlay.strength_param);
          with = g_strdup_printf ("%s · log b=%s", l->scale_label, b);
          g_free (l->scale_label);
          l->scale_label = with;
        }
      else if (v->overlay.strength == HS_STRENGTH_GAMMA && v->overlay.strength_param > 0
               && v->overlay.strength_param != 1)
        {
          char g[G_ASCII_DTOSTR_BUF_SIZE];
          char *with;

          format_value (g, v->overlay.strength_param);
          with = g_strdup_printf ("%s · γ %s", l->scale_label, g);
          g_free (l->scale_label);
          l->scale_label = with;
        }
      l->bar_w = l->fs * 1.2;
      l->bar_x = right + l->margin * 1.5;
      l->bar_y = l->py + l->fs * 0.5;
      l->bar_h = MAX (l->ph - l->fs, l->fs * 4);
      right = l->bar_x + draw_colorbar (p, 0, 0, l->bar_w, l->bar_h, &v->overlay, &l->range,
                                        l->scale_label, l->fs, FALSE);
    }
  else if (has_map (v) && v->range)
    l->range = *v->range;

  l->has_gauge = isfinite (v->no_attn) && v->show_overlay;
  if (l->has_gauge)
    {
      l->gauge_x = right + l->margin * 1.5;
      if (!l->has_bar)
        {
          l->bar_w = l->fs * 1.2;
          l->bar_y = l->py + l->fs * 0.5;
          l->bar_h = MAX (l->ph - l->fs, l->fs * 4);
        }
      right = l->gauge_x + draw_gauge (p, 0, 0, l->bar_w, l->bar_h, v->no_attn, l->fs, FALSE);
    }

  l->width = ceil (right + l->margin);
  l->caption_lines = g_ptr_array_new_with_free_func (g_free);
  if (v->show_caption)
    {
      double wrap = l->width - 2 * l->margin;

      if (v->prompt && *v->prompt)
        {
          g_autofree char *valid = g_utf8_make_valid (v->prompt, -1);
          g_autofree char *quoted = g_strdup_printf ("“%s”", valid);
          wrap_text (p, l->caption_lines, 'B', quoted, l->fs, wrap);
        }
      if ((v->model && *v->model) || (v->instance && *v->instance))
        {
          g_autofree char *m = v->model ? g_utf8_make_valid (v->model, -1) : NULL;
          g_autofree char *i = v->instance ? g_utf8_make_valid (v->instance, -1) : NULL;
          g_autofree char *line = g_strdup_printf ("%s%s%s%s%s",
                                                   m ? "model " : "", m ? m : "",
                                                   m && i ? " · " : "",
                                                   i ? "instance " : "", i ? i : "");
          wrap_text (p, l->caption_lines, 'N', line, l->fs * 0.85, wrap);
        }
    }
  l->cap_y = l->py + l->ph + l->margin;
  l->height = ceil (l->cap_y + l->caption_lines->len * l->fs * 1.35 + (l->caption_lines->len ? l->margin * 0.5 : 0));
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
                   "cannot level the %u × %u image", W, H);
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
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID, "cannot draw the overlay: %s",
                   local ? local->message : "unknown error");
      return NULL;
    }
  *ix0 = x0;
  *iy0 = y0;
  return out;
}

/* Mask → binary at image resolution with metrics.md's nearest rule. */
static guint8 *
mask_to_binary (HsImage *mask, guint W, guint H)
{
  guint mw = hs_image_get_width (mask), mh = hs_image_get_height (mask);
  guint ch = hs_image_get_channels (mask);
  guint colour = (ch == 2 || ch == 4) ? ch - 1 : ch;
  const guint16 *data = hs_image_peek_data (mask);
  guint8 *out = g_try_malloc ((gsize) W * H);
  g_autofree guint *xs = g_new (guint, W);

  if (out == NULL)
    return NULL;
  for (guint x = 0; x < W; x++)
    xs[x] = MIN ((guint) floor ((x + 0.5) * mw / W), mw - 1);
  for (guint y = 0; y < H; y++)
    {
      guint my = MIN ((guint) floor ((y + 0.5) * mh / H), mh - 1);
      const guint16 *row = data + (gsize) my * mw * ch;

      for (guint x = 0; x < W; x++)
        {
          const guint16 *px = row + (gsize) xs[x] * ch;
          guint8 on = 0;
          for (guint c = 0; c < colour; c++)
            on |= px[c] != 0;
          out[(gsize) y * W + x] = on;
        }
    }
  return out;
}

static const double box_palette[][4] = {
  { 0.00, 0.90, 1.00, 1 },   /* cyan    */
  { 1.00, 0.85, 0.10, 1 },   /* yellow  */
  { 0.40, 1.00, 0.30, 1 },   /* green   */
  { 1.00, 0.40, 0.85, 1 },   /* magenta */
  { 1.00, 0.60, 0.20, 1 },   /* orange  */
  { 0.70, 0.70, 1.00, 1 },   /* lilac   */
};

static gboolean
draw_figure (const HsFigureView *v, Painter *p, const Layout *l, GError **error)
{
  static const double white[4] = { 1, 1, 1, 1 };
  static const double label_bg[4] = { 0, 0, 0, 0.6 };
  static const double outline_rgba[4] = { 1, 1, 1, 1 };
  guint W = hs_image_get_width (v->image), H = hs_image_get_height (v->image);
  Mapping m = { l->vx, l->vy, l->zoom, l->px, l->py };
  cairo_surface_t *raster;
  double lw = MAX (1.0, l->fs / 8);
  int ix0 = 0, iy0 = 0;

  p_fill_rect (p, 0, 0, l->width, l->height, white);

  raster = render_raster (v, l, &ix0, &iy0, error);
  if (raster == NULL)
    return FALSE;

  p_clip_push (p, l->px, l->py, l->pw, l->ph);
  p_image (p, raster,
           l->px + (ix0 - l->vx) * l->zoom, l->py + (iy0 - l->vy) * l->zoom,
           cairo_image_surface_get_width (raster) * l->zoom,
           cairo_image_surface_get_height (raster) * l->zoom);
  cairo_surface_destroy (raster);

  if (v->show_masks)
    for (guint i = 0; i < v->n_masks; i++)
      {
        g_autofree guint8 *bin = NULL;
        g_autoptr(GPtrArray) lines = NULL;

        if (v->masks[i].mask == NULL)
          continue;
        bin = mask_to_binary (v->masks[i].mask, W, H);
        if (bin == NULL)
          continue;
        lines = hs_contour_trace_mask (bin, W, H, W, HS_CONTOUR_SIMPLIFY);
        p_polylines (p, lines, &m, box_palette[(v->n_boxes + i) % G_N_ELEMENTS (box_palette)],
                     lw, FALSE);
      }

  if (v->outline != HS_OUTLINE_NONE && has_map (v))
    {
      g_autoptr(GError) local = NULL;
      g_autofree guint8 *bin = hs_contour_region_mask (v->map, v->map_width, v->map_height, W, H,
                                                       v->overlay.upsample, v->outline,
                                                       v->outline_k, &local);
      if (bin == NULL)
        {
          p_clip_pop (p);
          g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                       "cannot outline the map: %s", local->message);
          return FALSE;
        }
      {
        g_autoptr(GPtrArray) lines = hs_contour_trace_mask (bin, W, H, W, HS_CONTOUR_SIMPLIFY);
        p_polylines (p, lines, &m, outline_rgba, lw, TRUE);
      }
    }

  if (v->show_boxes)
    {
      double lfs = l->fs * 0.85;

      for (guint i = 0; i < v->n_boxes; i++)
        {
          const HsFigureBox *b = &v->boxes[i];
          const double *c = box_palette[i % G_N_ELEMENTS (box_palette)];
          double x1 = l->px + (b->x1 - l->vx) * l->zoom, y1 = l->py + (b->y1 - l->vy) * l->zoom;
          double x2 = l->px + (b->x2 - l->vx) * l->zoom, y2 = l->py + (b->y2 - l->vy) * l->zoom;
          static const double halo[4] = { 0, 0, 0, 0.55 };

          if (!isfinite (x1) || !isfinite (y1) || !isfinite (x2) || !isfinite (y2))
            continue;
          p_stroke_rect (p, x1, y1, x2 - x1, y2 - y1, halo, lw * 2.2);
          p_stroke_rect (p, x1, y1, x2 - x1, y2 - y1, c, lw);
          if (b->name && *b->name)
            {
              g_autofree char *name = g_utf8_make_valid (b->name, -1);
              double tw = text_width (p, name, lfs, TRUE);
              double ty = y1 - lw - lfs * 0.3;
              double tx = MAX (x1, l->px + 2);

              if (ty - lfs < l->py)           /* no room above: put it inside */
                ty = y1 + lw + lfs * 1.05;
              p_fill_rect (p, tx - lfs * 0.2, ty - lfs * 0.95, tw + lfs * 0.4, lfs * 1.25, label_bg);
              p_text (p, tx, ty, name, lfs, c, TRUE, ANCHOR_START, 0);
            }
        }
    }
  p_clip_pop (p);
  p_stroke_rect (p, l->px, l->py, l->pw, l->ph, dark, MAX (0.5, l->fs / 16));

  if (l->has_bar)
    draw_colorbar (p, l->bar_x, l->bar_y, l->bar_w, l->bar_h, &v->overlay, &l->range,
                   l->scale_label, l->fs, TRUE);
  if (l->has_gauge)
    draw_gauge (p, l->gauge_x, l->bar_y, l->bar_w, l->bar_h, v->no_attn, l->fs, TRUE);

  for (guint i = 0; i < l->caption_lines->len; i++)
    {
      const char *line = g_ptr_array_index (l->caption_lines, i);
      gboolean bold = line[0] == 'B';
      double size = bold ? l->fs : l->fs * 0.85;

      p_text (p, l->margin, l->cap_y + (i + 1) * l->fs * 1.35 - l->fs * 0.35, line + 1, size,
              black, FALSE, ANCHOR_START, 0);
    }
  return TRUE;
}

/* ---- entry points ------------------------------------------------------- */

gboolean
hs_figure_get_size (const HsFigureView *view, double *width, double *height, GError **error)
{
  Painter p;
  Layout l;
  gboolean ok;

  g_return_val_if_fail (view != NULL, FALSE);
  painter_init (&p, NULL, NULL);
  ok = compute_layout (view, &p, &l, error);
  if (ok)
    {
      if (width)
        *width = l.width;
      if (height)
        *height = l.height;
    }
  layout_clear (&l);
  painter_clear (&p);
  return ok;
}

gboolean
hs_figure_get_panel (const HsFigureView *view, double *x, double *y,
                     double *width, double *height, double *zoom, GError **error)
{
  Painter p;
  Layout l;
  gboolean ok;

  g_return_val_if_fail (view != NULL, FALSE);
  painter_init (&p, NULL, NULL);
  ok = compute_layout (view, &p, &l, error);
  if (ok)
    {
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
    }
  layout_clear (&l);
  painter_clear (&p);
  return ok;
}

gboolean
hs_figure_draw (const HsFigureView *view, cairo_t *cr, GError **error)
{
  Painter p;
  Layout l;
  gboolean ok;

  g_return_val_if_fail (view != NULL, FALSE);
  g_return_val_if_fail (cr != NULL, FALSE);

  painter_init (&p, cr, NULL);
  ok = compute_layout (view, &p, &l, error);
  if (ok)
    {
      cairo_save (cr);
      ok = draw_figure (view, &p, &l, error);
      cairo_restore (cr);
    }
  layout_clear (&l);
  painter_clear (&p);
  return ok;
}

cairo_surface_t *
hs_figure_render_surface (const HsFigureView *view, GError **error)
{
  cairo_surface_t *surface;
  double w, h;
  cairo_t *cr;

  g_return_val_if_fail (view != NULL, NULL);

  if (!hs_figure_get_size (view, &w, &h, error))
    return NULL;
  if ((guint64) w * (guint64) h > hs_limits_get ()->max_image_pixels)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                   "a %.0f × %.0f figure is over the pixel limit", w, h);
      return NULL;
    }
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) w, (int) h);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE,
                   "cannot allocate a %.0f × %.0f figure", w, h);
      cairo_surface_destroy (surface);
      return NULL;
    }
  cr = cairo_create (surface);
  if (!hs_figure_draw (view, cr, error))
    g_clear_pointer (&surface, cairo_surface_destroy);
  cairo_destroy (cr);
  return surface;
}

static gboolean
write_file (const char *path, const void *data, gsize len, GError **error)
{
  g_autoptr(GError) local = NULL;

  if (!hs_atomic_write (path, data, len, &local))
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_WRITE, "%s", local->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_figure_save (const HsFigureView *view, HsFigureFormat format, const char *path,
                GError **error)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new ();

  g_return_val_if_fail (view != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  switch (format)
    {
    case HS_FIGURE_PNG:
      {
        cairo_surface_t *s = hs_figure_render_surface (view, error);
        cairo_status_t status;

        if (s == NULL)
          return FALSE;
        status = cairo_surface_write_to_png_stream (s, append_bytes, bytes);
        cairo_surface_destroy (s);
        if (status != CAIRO_STATUS_SUCCESS)
          {
            g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_WRITE, "%s: cannot encode PNG: %s",
                         path, cairo_status_to_string (status));
            return FALSE;
          }
        return write_file (path, bytes->data, bytes->len, error);
      }

    case HS_FIGURE_PDF:
      {
        cairo_surface_t *s;
        cairo_status_t status;
        cairo_t *cr;
        double w, h;
        gboolean ok;

        if (!hs_figure_get_size (view, &w, &h, error))
          return FALSE;
        s = cairo_pdf_surface_create_for_stream (append_bytes, bytes, w, h);
        cairo_pdf_surface_set_metadata (s, CAIRO_PDF_METADATA_CREATOR, "Heatscope");
        if (view->prompt)
          {
            g_autofree char *valid = g_utf8_make_valid (view->prompt, -1);
            cairo_pdf_surface_set_metadata (s, CAIRO_PDF_METADATA_TITLE, valid);
          }
        cr = cairo_create (s);
        ok = hs_figure_draw (view, cr, error);
        cairo_destroy (cr);
        cairo_surface_finish (s);
        status = cairo_surface_status (s);
        cairo_surface_destroy (s);
        if (!ok)
          return FALSE;
        if (status != CAIRO_STATUS_SUCCESS)
          {
            g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_WRITE, "%s: cannot write PDF: %s",
                         path, cairo_status_to_string (status));
            return FALSE;
          }
        return write_file (path, bytes->data, bytes->len, error);
      }

    case HS_FIGURE_SVG:
      {
        g_autoptr(GString) svg = g_string_new (NULL);
        Painter p;
        Layout l;
        gboolean ok;

        painter_init (&p, NULL, svg);
        ok = compute_layout (view, &p, &l, error);
        if (ok)
          {
            g_string_append (svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                  "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                                  "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\"");
            svg_attr (svg, "width", l.width);
            svg_attr (svg, "height", l.height);
            g_string_append (svg, " viewBox=\"0 0 ");
            svg_num (svg, l.width);
            g_string_append_c (svg, ' ');
            svg_num (svg, l.height);
            g_string_append (svg, "\">\n");
            if (view->prompt)
              {
                g_autofree char *valid = g_utf8_make_valid (view->prompt, -1);
                g_autofree char *esc = g_markup_escape_text (valid, -1);
                g_string_append_printf (svg, "<title>%s</title>\n", esc);
              }
            ok = draw_figure (view, &p, &l, error);
            g_string_append (svg, "</svg>\n");
          }
        layout_clear (&l);
        painter_clear (&p);
        if (!ok)
          return FALSE;
        return write_file (path, svg->str, svg->len, error);
      }

    default:
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_FORMAT, "%s: unknown figure format", path);
      return FALSE;
    }
}
