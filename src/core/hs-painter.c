/* hs-painter.c — one drawing API over two back ends
 *
 * cairo (PNG, PDF, a caller's cairo_t) and a direct SVG writer, so that SVG
 * keeps real <text> elements (cairo's SVG surface turns text into glyph
 * outlines).  The figure and the legend draw through it; both back ends get
 * the same geometry.  Text is measured with cairo's toy API for both. */
#include "hs-painter-private.h"
#include "hs-contour.h"

#include <math.h>
#include <string.h>

#define FONT_FAMILY "sans-serif"

void
hs_painter_init (HsPainter *p, cairo_t *cr, GString *svg)
{
  cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_A8, 1, 1);

  memset (p, 0, sizeof *p);
  p->cr = cr;
  p->svg = svg;
  p->measure = cairo_create (scratch);
  cairo_surface_destroy (scratch);
}

void
hs_painter_clear (HsPainter *p)
{
  g_clear_pointer (&p->measure, cairo_destroy);
}

void
hs_svg_num (GString *s, double v)
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

void
hs_svg_attr (GString *s, const char *name, double v)
{
  g_string_append_printf (s, " %s=\"", name);
  hs_svg_num (s, v);
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
      hs_svg_num (s, CLAMP (rgba[3], 0, 1));
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

double
hs_painter_text_width (HsPainter *p, const char *text, double size, gboolean bold)
{
  cairo_text_extents_t ext;

  set_font (p->measure, size, bold);
  cairo_text_extents (p->measure, text, &ext);
  return ext.x_advance;
}

/* "<element x=… y=… width=… height=…", the element left open. */
static void
svg_box (GString *s, const char *element, double x, double y, double w, double h)
{
  g_string_append_printf (s, "<%s", element);
  hs_svg_attr (s, "x", x);
  hs_svg_attr (s, "y", y);
  hs_svg_attr (s, "width", w);
  hs_svg_attr (s, "height", h);
}

void
hs_painter_fill_rect (HsPainter *p, double x, double y, double w, double h,
                      const double rgba[4])
{
  if (p->cr)
    {
      cairo_set_source_rgba (p->cr, rgba[0], rgba[1], rgba[2], rgba[3]);
      cairo_rectangle (p->cr, x, y, w, h);
      cairo_fill (p->cr);
    }
  else
    {
      svg_box (p->svg, "rect", x, y, w, h);
      svg_color (p->svg, "fill", rgba);
      g_string_append (p->svg, "/>\n");
    }
}

void
hs_painter_stroke_rect (HsPainter *p, double x, double y, double w, double h,
                        const double rgba[4], double lw)
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
      svg_box (p->svg, "rect", x, y, w, h);
      g_string_append (p->svg, " fill=\"none\"");
      svg_color (p->svg, "stroke", rgba);
      hs_svg_attr (p->svg, "stroke-width", lw);
      g_string_append (p->svg, "/>\n");
    }
}

void
hs_painter_line (HsPainter *p, double x0, double y0, double x1, double y1, const double rgba[4],
                 double lw)
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
      hs_svg_attr (p->svg, "x1", x0);
      hs_svg_attr (p->svg, "y1", y0);
      hs_svg_attr (p->svg, "x2", x1);
      hs_svg_attr (p->svg, "y2", y1);
      svg_color (p->svg, "stroke", rgba);
      hs_svg_attr (p->svg, "stroke-width", lw);
      g_string_append (p->svg, "/>\n");
    }
}


void
hs_painter_polylines (HsPainter *p, GPtrArray *lines, const HsPainterMapping *m,
                      const double rgba[4], double lw, gboolean dashed)
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
              double x = (pt[j].x * m->sx - m->ox) * m->zoom + m->px;
              double y = (pt[j].y * m->sy - m->oy) * m->zoom + m->py;
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
              hs_svg_num (d, (pt[j].x * m->sx - m->ox) * m->zoom + m->px);
              g_string_append_c (d, ' ');
              hs_svg_num (d, (pt[j].y * m->sy - m->oy) * m->zoom + m->py);
            }
          if (line->closed && line->points->len > 0)
            g_string_append_c (d, 'Z');
        }
      g_string_append_printf (p->svg, "<path d=\"%s\" fill=\"none\" stroke-linejoin=\"round\"", d->str);
      svg_color (p->svg, "stroke", halo);
      hs_svg_attr (p->svg, "stroke-width", lw * 2.2);
      g_string_append (p->svg, "/>\n");
      g_string_append_printf (p->svg, "<path d=\"%s\" fill=\"none\" stroke-linejoin=\"round\"", d->str);
      svg_color (p->svg, "stroke", rgba);
      hs_svg_attr (p->svg, "stroke-width", lw);
      if (dashed)
        {
          g_string_append (p->svg, " stroke-dasharray=\"");
          hs_svg_num (p->svg, lw * 4);
          g_string_append_c (p->svg, ' ');
          hs_svg_num (p->svg, lw * 3);
          g_string_append_c (p->svg, '"');
        }
      g_string_append (p->svg, "/>\n");
    }
}

void
hs_painter_text (HsPainter *p, double x, double y, const char *text, double size,
                 const double rgba[4], gboolean bold, HsAnchor anchor, double angle_deg)
{
  if (text == NULL || *text == '\0')
    return;
  if (p->cr)
    {
      double w = hs_painter_text_width (p, text, size, bold);
      double dx = anchor == HS_ANCHOR_START ? 0 : anchor == HS_ANCHOR_MIDDLE ? -w / 2 : -w;

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
      hs_svg_attr (p->svg, "x", x);
      hs_svg_attr (p->svg, "y", y);
      g_string_append_printf (p->svg, " font-family=\"%s\"", FONT_FAMILY);
      hs_svg_attr (p->svg, "font-size", size);
      if (bold)
        g_string_append (p->svg, " font-weight=\"bold\"");
      if (anchor != HS_ANCHOR_START)
        g_string_append_printf (p->svg, " text-anchor=\"%s\"",
                                anchor == HS_ANCHOR_MIDDLE ? "middle" : "end");
      if (angle_deg != 0)
        {
          g_string_append (p->svg, " transform=\"rotate(");
          hs_svg_num (p->svg, angle_deg);
          g_string_append_c (p->svg, ' ');
          hs_svg_num (p->svg, x);
          g_string_append_c (p->svg, ' ');
          hs_svg_num (p->svg, y);
          g_string_append (p->svg, ")\"");
        }
      svg_color (p->svg, "fill", rgba);
      g_string_append_printf (p->svg, ">%s</text>\n", escaped);
    }
}

void
hs_painter_gradient_rect (HsPainter *p, double x, double y, double w, double h,
                          gboolean horizontal, const guint32 *stops, guint n)
{
  if (p->cr)
    {
      cairo_pattern_t *pat = horizontal ? cairo_pattern_create_linear (x, 0, x + w, 0)
                                        : cairo_pattern_create_linear (0, y + h, 0, y);

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

      g_string_append_printf (p->svg, "<defs><linearGradient id=\"g%u\" x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"0\">\n",
                              id, horizontal ? 0 : 1, horizontal ? 1 : 0);
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
          hs_svg_attr (p->svg, "offset", (double) i / (n - 1));
          rgba[3] = 1;
          svg_color (p->svg, "stop-color", rgba);
          if (a < 255)
            hs_svg_attr (p->svg, "stop-opacity", a / 255.0);
          g_string_append (p->svg, "/>\n");
        }
      g_string_append (p->svg, "</linearGradient></defs>\n");
      svg_box (p->svg, "rect", x, y, w, h);
      g_string_append_printf (p->svg, " fill=\"url(#g%u)\"/>\n", id);
    }
}

void
hs_painter_clip_push (HsPainter *p, double x, double y, double w, double h)
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

      g_string_append_printf (p->svg, "<clipPath id=\"c%u\">", id);
      svg_box (p->svg, "rect", x, y, w, h);
      g_string_append_printf (p->svg, "/></clipPath>\n<g clip-path=\"url(#c%u)\">\n", id);
    }
}

void
hs_painter_clip_pop (HsPainter *p)
{
  if (p->cr)
    cairo_restore (p->cr);
  else
    g_string_append (p->svg, "</g>\n");
}

cairo_status_t
hs_painter_append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

void
hs_painter_image (HsPainter *p, cairo_surface_t *surface, double x, double y, double w, double h)
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

      cairo_surface_write_to_png_stream (surface, hs_painter_append_bytes, png);
      b64 = g_base64_encode (png->data, png->len);
      svg_box (p->svg, "image", x, y, w, h);
      g_string_append_printf (p->svg, " preserveAspectRatio=\"none\"%s xlink:href=\"data:image/png;base64,%s\"/>\n",
                              magnified ? " style=\"image-rendering:pixelated\"" : "", b64);
    }
}