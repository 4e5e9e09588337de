/* hs-legend.c — colour bar, No-Attn gauge, caption and region palette
 *
 * The one place that decides which ticks a colour bar gets, how their
 * values read, what the scale label says, how a caption wraps and which
 * colour a box or mask has.  The layout is pure geometry; painting goes
 * through the HsPainter so that SVG exports keep real text, and the public
 * cairo entry points wrap the same painting code. */
#include "hs-legend.h"
#include "hs-legend-private.h"
#include "hs-i18n-private.h"
#include "hs-order-private.h"

#include <float.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-legend-error-quark, hs_legend_error)

/* ---- ticks and formats -------------------------------------------------- */

guint
hs_legend_nice_ticks (double lo, double hi, guint max_ticks, double *ticks)
{
  static const double mult[] = { 5, 2, 1 };
  double half_span, log_span, best_step = 0, best_first = 0, best_count = 0;
  int e0;
  guint n = 0;

  g_return_val_if_fail (ticks != NULL || max_ticks == 0, 0);

  max_ticks = MIN (max_ticks, 64);
  if (max_ticks == 0 || !isfinite (lo) || !isfinite (hi))
    return 0;
  /* Halves, so that a span such as [−1.7e308, 1.7e308] does not overflow. */
  half_span = hi / 2 - lo / 2;
  if (!(hi > lo) || max_ticks == 1 || !(half_span > 0))
    {
      ticks[0] = lo;
      if (hi > lo && max_ticks > 1)
        ticks[n = 1] = hi;
      return n + 1;
    }
  /* The best step lies within a decade or two of span / max_ticks: try the
   * 1/2/5 × 10^e steps of four decades around it, coarsest first, and keep
   * the finest one that still gives at most max_ticks ticks (and ≥ 2).
   * A fixed number of candidates, so any finite range terminates. */
  log_span = log10 (half_span) + log10 (2);
  e0 = (int) floor (log_span - log10 (max_ticks)) - 1;
  for (int e = e0 + 3; e >= e0; e--)
    for (guint m = 0; m < G_N_ELEMENTS (mult); m++)
      {
        double step = mult[m] * pow (10, e);
        double first, last, count;

        if (!(step > 0) || !isfinite (step))
          continue;
        first = ceil (lo / step);
        last = floor (hi / step);
        count = last - first + 1;
        if (!isfinite (count) || count > max_ticks)
          goto done;
        if (count >= 2)
          {
            best_step = step;
            best_first = first;
            best_count = count;
          }
      }
done:
  /* An integer counter (k·step may round to the same double far from 0, as
   * in [x, nextafter (x)]): keep only increasing values inside [lo, hi]. */
  for (guint i = 0; i < (guint) best_count; i++)
    {
      double v = (best_first + i) * best_step;

      if (v == 0)
        v = 0;
      if (v >= lo && v <= hi && (n == 0 || v > ticks[n - 1]))
        ticks[n++] = v;
    }
  if (n >= 2)
    return n;
  ticks[0] = lo;
  ticks[1] = hi;
  return 2;
}

void
hs_legend_format_tick (double value, double lo, double hi, char buf[G_ASCII_DTOSTR_BUF_SIZE])
{
  double span = hi / 2 - lo / 2, step, maxabs = MAX (fabs (lo), fabs (hi));
  int d;

  if (value == 0)
    value = 0;   /* no "-0" */
  if (!isfinite (value))
    {
      g_strlcpy (buf, isnan (value) ? "nan" : value > 0 ? "inf" : "-inf", G_ASCII_DTOSTR_BUF_SIZE);
      return;
    }
  step = span / 5;   /* a tenth of the span */
  if (!(step > 0) || !isfinite (step))
    step = fabs (value) > 0 ? fabs (value) : 1;
  if (!isfinite (maxabs) || maxabs == 0)
    maxabs = fabs (value);
  d = (int) ceil (-log10 (step) - 1e-9);
  if (d <= 4 && maxabs < 1e5)
    {
      char fmt[8];

      g_snprintf (fmt, sizeof fmt, "%%.%df", MAX (d, 0));
      g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, fmt, value);
      if (strcmp (buf, "-0") == 0 || (buf[0] == '-' && strspn (buf + 1, "0.") == strlen (buf + 1)))
        memmove (buf, buf + 1, strlen (buf));   /* "-0.000" → "0.000" */
    }
  else if (value == 0)
    g_strlcpy (buf, "0", G_ASCII_DTOSTR_BUF_SIZE);
  else
    {
      /* enough mantissa digits to tell ticks a tenth of the span apart
       * (the slack absorbs the rounding of subnormal steps) */
      int p = (int) floor (log10 (maxabs)) - (int) floor (log10 (step) + 0.01);
      char fmt[8];

      g_snprintf (fmt, sizeof fmt, "%%.%de", CLAMP (p, 0, 15));
      g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, fmt, value);
    }
}

/* Three significant digits, C locale, no "-0": strength parameters. */
static void
format_param (char buf[G_ASCII_DTOSTR_BUF_SIZE], double v)
{
  if (v == 0)
    v = 0;
  g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.3g", v);
}

/* "log b=10", "γ 0.5", or NULL for a linear strength. */
static char *
strength_label (const HsOverlayOptions *overlay)
{
  char p[G_ASCII_DTOSTR_BUF_SIZE];

  format_param (p, overlay->strength_param);
  if (overlay->strength == HS_STRENGTH_LOG && overlay->strength_param > 1)
    return g_strdup_printf ("log b=%s", p);
  if (overlay->strength == HS_STRENGTH_GAMMA && overlay->strength_param > 0
      && overlay->strength_param != 1)
    return g_strdup_printf ("γ %s", p);
  return NULL;
}

char *
hs_legend_scale_label (const HsOverlayOptions *overlay, const HsScaleRange *range)
{
  g_autofree char *scale = NULL, *strength = NULL;

  g_return_val_if_fail (overlay != NULL, NULL);

  scale = hs_scale_describe (&overlay->scale, range);
  strength = strength_label (overlay);
  if (strength != NULL)
    return g_strdup_printf ("%s · %s", scale, strength);
  return g_steal_pointer (&scale);
}

const char *
hs_legend_default_quantity (void)
{
  /* TRANSLATORS: what an attention map's values are, titling its colour bar */
  return _("attention weight");
}

/* ---- colour bar and gauge layout ---------------------------------------- */

void
hs_legend_spec_init (HsLegendSpec *spec)
{
  g_return_if_fail (spec != NULL);
  memset (spec, 0, sizeof *spec);
  hs_overlay_options_init (&spec->overlay);
  spec->range.lo = 0;
  spec->range.hi = 1;
  spec->show_bar = TRUE;
  spec->no_attn = NAN;
  spec->length = 200;
  spec->font_size = 12;
}

/* Position of v along the bar as a fraction of it, without overflowing for
 * spans beyond DBL_MAX. */
static double
bar_fraction (double v, double lo, double hi)
{
  double t;

  if (!(hi > lo))
    return 0;
  if (isfinite (hi - lo))
    t = (v - lo) / (hi - lo);
  else
    t = (v / 2 - lo / 2) / (hi / 2 - lo / 2);
  return CLAMP (t, 0.0, 1.0);
}

/* Copies a title, cut at a character boundary if it is too long. */
static void
set_title (char dest[HS_LEGEND_TITLE_SIZE], const char *text)
{
  const char *end;

  g_strlcpy (dest, text ? text : "", HS_LEGEND_TITLE_SIZE);
  if (!g_utf8_validate (dest, -1, &end))
    dest[end - dest] = '\0';
}

typedef struct {
  double value, lo_edge, hi_edge;   /* the label's extent along the bar */
} Placed;

static gboolean
clashes (const Placed *placed, guint n, double lo_edge, double hi_edge, double gap)
{
  for (guint k = 0; k < n; k++)
    if (lo_edge < placed[k].hi_edge + gap && hi_edge + gap > placed[k].lo_edge)
      return TRUE;
  return FALSE;
}

/* Chooses the ticks: both ends always, then the nice values whose labels
 * leave room (`gap`) to every label already placed.  Positions are along
 * the bar from its start (bottom for vertical, growing upwards). */
static guint
choose_ticks (HsPainter *p, const HsLegendSpec *spec, double length, double tfs, double *values)
{
  double lo = spec->range.lo, hi = spec->range.hi;
  double nice[HS_LEGEND_MAX_TICKS];
  Placed placed[HS_LEGEND_MAX_TICKS];
  guint n_nice, n = 0;
  double gap = spec->horizontal ? tfs * 0.8 : tfs * 0.25;

  n_nice = hs_legend_nice_ticks (lo, hi, HS_LEGEND_MAX_TICKS - 2, nice);
  for (guint i = 0; i < n_nice + 2; i++)
    {
      double v = i == 0 ? lo : i == 1 ? hi : nice[i - 2];
      double at = bar_fraction (v, lo, hi) * length, extent;
      char text[G_ASCII_DTOSTR_BUF_SIZE];

      if (i == 1 && !(hi > lo))
        continue;
      hs_legend_format_tick (v, lo, hi, text);
      extent = spec->horizontal ? hs_painter_text_width (p, text, tfs, FALSE) : tfs;
      /* The ends' labels are pushed inside the legend; the same here. */
      {
        double e0 = at - extent / 2, e1 = at + extent / 2;
        if (spec->horizontal)
          {
            e0 = CLAMP (e0, 0, MAX (0, length - extent));
            e1 = e0 + extent;
          }
        if (i >= 2 && (v <= lo || v >= hi || clashes (placed, n, e0, e1, gap)))
          continue;
        placed[n] = (Placed) { v, e0, e1 };
      }
      values[n++] = v;
    }
  qsort (values, n, sizeof *values, hs_compare_doubles);
  return n;
}

/* The smallest length at which the two end labels do not touch. */
static double
min_length (HsPainter *p, const HsLegendSpec *spec, double tfs)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];

  if (!spec->horizontal)
    return tfs * 2.5;
  hs_legend_format_tick (spec->range.lo, spec->range.lo, spec->range.hi, a);
  hs_legend_format_tick (spec->range.hi, spec->range.lo, spec->range.hi, b);
  return hs_painter_text_width (p, a, tfs, FALSE) + hs_painter_text_width (p, b, tfs, FALSE)
         + tfs * 1.6;
}

static void caption_line_free (gpointer data);
static void wrap_text (HsPainter *p, GPtrArray *out, const char *text, double size, gboolean bold,
                       double width, guint max_lines);

/* The title_above lines: the quantity (bold), then the scale and the
 * strength curve (or the spec's own title), each wrapped to `width`; at
 * most HS_LEGEND_TITLE_LINES, a cut one ending in "…".  Returns the width
 * of the widest line. */
static double
title_lines (HsPainter *p, const HsLegendSpec *spec, double tfs, double width, HsLegendLayout *l)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (caption_line_free);
  g_autofree char *scale = NULL, *strength = NULL;
  g_autoptr(GString) joined = g_string_new (NULL);
  const char *quantity = spec->quantity && *spec->quantity ? spec->quantity
                                                           : hs_legend_default_quantity ();
  const char *parts[3];
  double widest = 0;

  if (spec->title != NULL)
    parts[1] = spec->title;
  else
    {
      parts[1] = scale = hs_scale_describe (&spec->overlay.scale, &spec->range);
      strength = strength_label (&spec->overlay);
    }
  parts[0] = quantity;
  parts[2] = strength;
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      g_autofree char *valid = NULL;

      if (parts[i] == NULL || *parts[i] == '\0' || lines->len >= HS_LEGEND_TITLE_LINES)
        continue;
      valid = g_utf8_make_valid (parts[i], -1);
      wrap_text (p, lines, valid, tfs, i == 0, width, HS_LEGEND_TITLE_LINES - lines->len);
      g_string_append_printf (joined, "%s%s", joined->len ? " · " : "", valid);
    }
  l->n_title_lines = lines->len;
  for (guint i = 0; i < lines->len; i++)
    {
      HsCaptionLine *line = g_ptr_array_index (lines, i);

      set_title (l->title_line[i], line->text);
      l->title_line_bold[i] = line->bold;
      l->title_line_y[i] = tfs * (1.0 + 1.3 * i);
      widest = MAX (widest, line->width);
    }
  set_title (l->title, joined->str);
  return widest;
}

gboolean
hs_legend_layout_with (HsPainter *p, const HsLegendSpec *spec, HsLegendLayout *l, GError **error)
{
  double fs = spec->font_size, tfs, length, tick_len, x_end = 0;
  gboolean gauge = isfinite (spec->no_attn);
  g_autofree char *title = NULL;

  memset (l, 0, sizeof *l);
  if (!(isfinite (fs) && fs > 0 && fs < 1e4) || !(isfinite (spec->length) && spec->length > 0))
    {
      g_set_error (error, HS_LEGEND_ERROR, HS_LEGEND_ERROR_INVALID,
                   _("legend length %g or font size %g is not a positive number"),
                   spec->length, fs);
      return FALSE;
    }
  if (spec->show_bar && (!isfinite (spec->range.lo) || !isfinite (spec->range.hi)
                         || spec->range.hi < spec->range.lo))
    {
      g_set_error (error, HS_LEGEND_ERROR, HS_LEGEND_ERROR_RANGE,
                   _("the colour-bar range %g–%g is not a finite interval"),
                   spec->range.lo, spec->range.hi);
      return FALSE;
    }

  tfs = fs * 0.8;
  tick_len = fs * 0.35;
  l->font_size = tfs;
  l->has_bar = spec->show_bar;
  length = spec->length;
  if (l->has_bar)
    {
      length = MAX (length, min_length (p, spec, tfs));
      title = spec->title ? g_strdup (spec->title)
                          : hs_legend_scale_label (&spec->overlay, &spec->range);
      set_title (l->title, title);
    }

  if (!spec->horizontal)
    {
      double top = gauge ? tfs * 1.5 : tfs * 0.6, title_w = 0;
      gboolean above = l->has_bar && spec->title_above;

      if (above)
        {
          /* lines no wider than a bar with its ticks and gauge would be
           * without them, about 14 em: long quantities wrap */
          title_w = title_lines (p, spec, tfs, fs * 14, l);
          top += l->n_title_lines * tfs * 1.3;
        }
      if (l->has_bar)
        {
          double values[HS_LEGEND_MAX_TICKS], label_w = 0;

          l->bar_x = 0;
          l->bar_y = top;
          l->bar_w = fs * 1.2;
          l->bar_h = length;
          l->n_ticks = choose_ticks (p, spec, length, tfs, values);
          for (guint i = 0; i < l->n_ticks; i++)
            {
              double pos = l->bar_y + (1 - bar_fraction (values[i], spec->range.lo,
                                                         spec->range.hi)) * l->bar_h;

              l->tick_value[i] = values[i];
              l->tick_pos[i] = pos;
              hs_legend_format_tick (values[i], spec->range.lo, spec->range.hi, l->tick_text[i]);
              l->tick_text_w[i] = hs_painter_text_width (p, l->tick_text[i], tfs, FALSE);
              l->tick_text_x[i] = l->bar_w + tick_len + fs * 0.2;
              l->tick_text_y[i] = pos + tfs * 0.35;
              label_w = MAX (label_w, l->tick_text_w[i]);
            }
          x_end = l->bar_w + tick_len + fs * 0.4 + label_w;
          if (*l->title && !above)
            {
              l->title_x = x_end + fs * 0.9;
              l->title_y = l->bar_y + l->bar_h / 2;
              l->title_angle = -90;
              x_end += fs * 1.3;
            }
        }
      if (gauge)
        {
          format_param (l->gauge_text, spec->no_attn);
          l->gauge_x = l->has_bar ? x_end + fs * 1.2 : 0;
          l->gauge_y = top;
          l->gauge_w = fs * 1.2;
          l->gauge_h = length;
          l->gauge_text_x = l->gauge_x + l->gauge_w / 2;
          l->gauge_text_y = top - tfs * 0.5;
          l->gauge_label_x = l->gauge_x + l->gauge_w + tfs * 1.1;
          l->gauge_label_y = top + length / 2;
          l->gauge_label_angle = -90;
          x_end = l->gauge_x + MAX (l->gauge_w + tfs * 1.5,
                                    hs_painter_text_width (p, l->gauge_text, tfs, FALSE));
        }
      l->width = ceil (MAX (x_end, title_w));
      l->height = ceil (top + length + tfs * 0.6);
    }
  else
    {
      double top = tfs * 1.4, bottom = top;

      if (l->has_bar)
        {
          double values[HS_LEGEND_MAX_TICKS];

          l->bar_x = 0;
          l->bar_y = *l->title ? top : tfs * 0.2;
          l->bar_w = length;
          l->bar_h = fs;
          l->title_x = 0;
          l->title_y = tfs;
          l->n_ticks = choose_ticks (p, spec, length, tfs, values);
          for (guint i = 0; i < l->n_ticks; i++)
            {
              double pos = bar_fraction (values[i], spec->range.lo, spec->range.hi) * length;
              double w;

              l->tick_value[i] = values[i];
              l->tick_pos[i] = pos;
              hs_legend_format_tick (values[i], spec->range.lo, spec->range.hi, l->tick_text[i]);
              w = l->tick_text_w[i] = hs_painter_text_width (p, l->tick_text[i], tfs, FALSE);
              l->tick_text_x[i] = CLAMP (pos - w / 2, 0, MAX (0, length - w));
              l->tick_text_y[i] = l->bar_y + l->bar_h + tick_len + tfs * 1.05;
            }
          x_end = length;
          bottom = l->bar_y + l->bar_h + tick_len + tfs * 1.35;
        }
      if (gauge)
        {
          double label_w = hs_painter_text_width (p, _("No-Attn mass"), tfs, FALSE);

          format_param (l->gauge_text, spec->no_attn);
          l->gauge_x = l->has_bar ? x_end + fs * 1.5 : 0;
          l->gauge_y = top;
          l->gauge_w = MAX (fs * 4, label_w);
          l->gauge_h = fs;
          l->gauge_label_x = l->gauge_x + l->gauge_w / 2;
          l->gauge_label_y = tfs;
          l->gauge_label_angle = 0;
          l->gauge_text_x = l->gauge_x + l->gauge_w / 2;
          l->gauge_text_y = top + l->gauge_h + tick_len + tfs * 1.05;
          x_end = l->gauge_x + l->gauge_w;
          bottom = MAX (bottom, top + l->gauge_h + tick_len + tfs * 1.35);
        }
      l->width = ceil (x_end);
      l->height = ceil (bottom);
    }
  return TRUE;
}

gboolean
hs_legend_layout (const HsLegendSpec *spec, HsLegendLayout *out, GError **error)
{
  HsPainter p;
  gboolean ok;

  g_return_val_if_fail (spec != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  hs_painter_init (&p, NULL, NULL);
  ok = hs_legend_layout_with (&p, spec, out, error);
  hs_painter_clear (&p);
  return ok;
}

/* ---- painting ----------------------------------------------------------- */

void
hs_legend_paint (HsPainter *p, const HsLegendSpec *spec, const HsLegendLayout *l,
                 double x, double y, const double ink[4])
{
  double fs = spec->font_size, tfs = l->font_size, tick_len = fs * 0.35;
  double lw = MAX (0.5, fs / 16);

  if (l->has_bar)
    {
      HsOverlayOptions opaque = spec->overlay;
      guint32 stops[256];

      /* Colours as the map gets them, threshold included; opacity is how
       * they blend with the image, not part of the scale. */
      opaque.opacity = 1;
      hs_overlay_build_lut (&opaque, stops, G_N_ELEMENTS (stops));
      hs_painter_gradient_rect (p, x + l->bar_x, y + l->bar_y, l->bar_w, l->bar_h,
                                spec->horizontal, stops, G_N_ELEMENTS (stops));
      hs_painter_stroke_rect (p, x + l->bar_x, y + l->bar_y, l->bar_w, l->bar_h, ink, lw);
      for (guint i = 0; i < l->n_ticks; i++)
        {
          double pos = l->tick_pos[i];

          if (spec->horizontal)
            hs_painter_line (p, x + l->bar_x + pos, y + l->bar_y + l->bar_h,
                             x + l->bar_x + pos, y + l->bar_y + l->bar_h + tick_len, ink, lw);
          else
            hs_painter_line (p, x + l->bar_x + l->bar_w, y + pos,
                             x + l->bar_x + l->bar_w + tick_len, y + pos, ink, lw);
          hs_painter_text (p, x + l->tick_text_x[i], y + l->tick_text_y[i], l->tick_text[i], tfs,
                           ink, FALSE, HS_ANCHOR_START, 0);
        }
      if (l->n_title_lines > 0)
        for (guint i = 0; i < l->n_title_lines; i++)
          hs_painter_text (p, x + l->title_x, y + l->title_line_y[i], l->title_line[i], tfs, ink,
                           l->title_line_bold[i], HS_ANCHOR_START, 0);
      else if (*l->title)
        hs_painter_text (p, x + l->title_x, y + l->title_y, l->title, tfs, ink, FALSE,
                         spec->horizontal ? HS_ANCHOR_START : HS_ANCHOR_MIDDLE, l->title_angle);
    }
  if (l->gauge_w > 0)
    {
      static const double fill[4] = { 0.35, 0.35, 0.4, 1 };
      static const double back[4] = { 0.92, 0.92, 0.92, 1 };
      double v = isfinite (spec->no_attn) ? CLAMP (spec->no_attn, 0.0, 1.0) : 0;
      double gx = x + l->gauge_x, gy = y + l->gauge_y;

      hs_painter_fill_rect (p, gx, gy, l->gauge_w, l->gauge_h, back);
      if (spec->horizontal)
        hs_painter_fill_rect (p, gx, gy, l->gauge_w * v, l->gauge_h, fill);
      else
        hs_painter_fill_rect (p, gx, gy + l->gauge_h * (1 - v), l->gauge_w, l->gauge_h * v, fill);
      hs_painter_stroke_rect (p, gx, gy, l->gauge_w, l->gauge_h, ink, lw);
      hs_painter_text (p, x + l->gauge_text_x, y + l->gauge_text_y, l->gauge_text, tfs, ink,
                       FALSE, HS_ANCHOR_MIDDLE, 0);
      hs_painter_text (p, x + l->gauge_label_x, y + l->gauge_label_y, _("No-Attn mass"), tfs, ink,
                       FALSE, HS_ANCHOR_MIDDLE, l->gauge_label_angle);
    }
}

void
hs_legend_draw (const HsLegendSpec *spec, const HsLegendLayout *layout, cairo_t *cr,
                double x, double y, const double ink[4])
{
  HsPainter p;

  g_return_if_fail (spec != NULL && layout != NULL && cr != NULL && ink != NULL);
  hs_painter_init (&p, cr, NULL);
  cairo_save (cr);
  hs_legend_paint (&p, spec, layout, x, y, ink);
  cairo_restore (cr);
  hs_painter_clear (&p);
}

/* ---- caption ------------------------------------------------------------ */

static void
caption_line_free (gpointer data)
{
  HsCaptionLine *line = data;

  g_free (line->text);
  g_free (line);
}

/* Cuts `text` to fit `width` with "…" appended. */
static char *
ellipsise (HsPainter *p, const char *text, double size, gboolean bold, double width)
{
  g_autoptr(GString) s = g_string_new (text);

  while (s->len > 0)
    {
      g_autofree char *trial = g_strconcat (s->str, "…", NULL);
      const char *last;

      if (hs_painter_text_width (p, trial, size, bold) <= width)
        return g_steal_pointer (&trial);
      last = g_utf8_find_prev_char (s->str, s->str + s->len);
      g_string_truncate (s, last ? (gsize) (last - s->str) : 0);
      while (s->len > 0 && s->str[s->len - 1] == ' ')
        g_string_truncate (s, s->len - 1);
    }
  return g_strdup ("…");
}

/* Greedy word wrap of `text` to `width`, at most max_lines (0 = any); a cut
 * part's last line ends in "…". */
static void
wrap_text (HsPainter *p, GPtrArray *out, const char *text, double size, gboolean bold,
           double width, guint max_lines)
{
  g_auto(GStrv) words = g_strsplit_set (text, " \t\n", -1);
  g_autoptr(GString) line = g_string_new (NULL);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  guint i;

  for (i = 0; words[i]; i++)
    {
      g_autofree char *trial = NULL;

      if (*words[i] == '\0')
        continue;
      trial = line->len ? g_strconcat (line->str, " ", words[i], NULL) : g_strdup (words[i]);
      if (line->len > 0 && hs_painter_text_width (p, trial, size, bold) > width)
        {
          g_ptr_array_add (lines, g_strdup (line->str));
          g_string_assign (line, words[i]);
        }
      else
        g_string_assign (line, trial);
    }
  if (line->len)
    g_ptr_array_add (lines, g_strdup (line->str));

  for (i = 0; i < lines->len; i++)
    {
      HsCaptionLine *l = g_new0 (HsCaptionLine, 1);
      const char *t = g_ptr_array_index (lines, i);
      gboolean last = max_lines > 0 && i + 1 == max_lines;

      if (last && i + 1 < lines->len)
        {
          g_autofree char *rest = g_strconcat (t, " ", (char *) g_ptr_array_index (lines, i + 1),
                                               NULL);
          l->text = ellipsise (p, rest, size, bold, width);
        }
      else if (hs_painter_text_width (p, t, size, bold) > width)
        l->text = ellipsise (p, t, size, bold, width);   /* one word longer than a line */
      else
        l->text = g_strdup (t);
      l->bold = bold;
      l->size = size;
      l->width = hs_painter_text_width (p, l->text, size, bold);
      g_ptr_array_add (out, l);
      if (last)
        break;
    }
}

static char *
meta_line (const HsCaption *c)
{
  g_autofree char *m = c->model && *c->model ? g_utf8_make_valid (c->model, -1) : NULL;
  g_autofree char *i = c->instance && *c->instance ? g_utf8_make_valid (c->instance, -1) : NULL;

  if (m == NULL && i == NULL)
    return NULL;
  /* TRANSLATORS: the caption line under a figure naming the model and the instance */
  if (m != NULL && i != NULL)
    return g_strdup_printf (_("model %s · instance %s"), m, i);
  return m != NULL ? g_strdup_printf (_("model %s"), m) : g_strdup_printf (_("instance %s"), i);
}

char *
hs_caption_quote (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);
  GString *out = g_string_new ("“");
  gboolean open = FALSE;   /* a straight " opens, the next closes */

  for (const char *c = valid; *c; c = g_utf8_next_char (c))
    {
      gunichar u = g_utf8_get_char (c);

      if (u == '"')
        {
          open = !open;
          g_string_append (out, open ? "‘" : "’");
        }
      else if (u == 0x201C)   /* “ */
        g_string_append (out, "‘");
      else if (u == 0x201D)   /* ” */
        g_string_append (out, "’");
      else
        g_string_append_unichar (out, u);
    }
  g_string_append (out, "”");
  return g_string_free (out, FALSE);
}

char *
hs_caption_compare_string (const char *instance, const char *prompt_a, const char *prompt_b)
{
  g_autofree char *id = instance && *instance ? g_utf8_make_valid (instance, -1) : NULL;
  g_autofree char *a = prompt_a && *prompt_a ? hs_caption_quote (prompt_a) : NULL;
  g_autofree char *b = prompt_b && *prompt_b ? hs_caption_quote (prompt_b) : NULL;
  g_autofree char *prompts = NULL;

  if (a && b)
    /* TRANSLATORS: the caption of a comparison of two prompts (already
     * quoted), the maps' panels being A and B */
    prompts = g_strdup_printf (_("A %s · B %s"), a, b);
  else
    prompts = g_strdup (a ? a : b);
  if (id && prompts)
    return g_strdup_printf ("%s · %s", id, prompts);
  return g_strdup (id ? id : prompts ? prompts : "");
}

const char *
hs_caption_phantom_note (void)
{
  /* TRANSLATORS: under a map of a real radiograph computed by a built-in
   * model, which was trained on the generated phantoms only */
  return _("phantom-trained model on a real image");
}

GPtrArray *
hs_caption_layout_with (HsPainter *p, const HsCaption *caption, double width, double font_size,
                        guint max_lines, double *height)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (caption_line_free);
  g_autoptr(GPtrArray) note = g_ptr_array_new_with_free_func (caption_line_free);
  g_autofree char *meta = meta_line (caption);
  gboolean room = TRUE;
  double y = 0;

  /* The note is laid out first, so that a line budget never drops it. */
  if (caption->phantom_model_on_real_image)
    {
      wrap_text (p, note, hs_caption_phantom_note (), font_size * 0.85, TRUE, width, max_lines);
      if (max_lines > 0 && note->len >= max_lines)
        room = FALSE;
      else if (max_lines > 0)
        max_lines -= note->len;
    }
  if (room && caption->prompt && *caption->prompt)
    {
      g_autofree char *quoted = hs_caption_quote (caption->prompt);
      guint budget = max_lines == 0 ? 0 : meta && max_lines > 1 ? max_lines - 1 : max_lines;

      wrap_text (p, lines, quoted, font_size, TRUE, width, budget);
    }
  if (room && meta && (max_lines == 0 || lines->len < max_lines))
    wrap_text (p, lines, meta, font_size * 0.85, FALSE, width,
               max_lines == 0 ? 0 : max_lines - lines->len);
  g_ptr_array_extend_and_steal (lines, g_steal_pointer (&note));
  for (guint i = 0; i < lines->len; i++)
    {
      HsCaptionLine *l = g_ptr_array_index (lines, i);

      y += font_size * 1.35;
      l->y = y - font_size * 0.35;
    }
  if (height)
    *height = y;
  return lines;
}

GPtrArray *
hs_caption_layout (const HsCaption *caption, double width, double font_size, guint max_lines,
                   double *height)
{
  HsPainter p;
  GPtrArray *lines;

  g_return_val_if_fail (caption != NULL, NULL);
  hs_painter_init (&p, NULL, NULL);
  lines = hs_caption_layout_with (&p, caption, width, font_size > 0 ? font_size : 12,
                                  max_lines, height);
  hs_painter_clear (&p);
  return lines;
}

void
hs_caption_paint (HsPainter *p, GPtrArray *lines, double x, double y, const double ink[4])
{
  for (guint i = 0; lines && i < lines->len; i++)
    {
      const HsCaptionLine *l = g_ptr_array_index (lines, i);

      hs_painter_text (p, x, y + l->y, l->text, l->size, ink, l->bold, HS_ANCHOR_START, 0);
    }
}

void
hs_caption_draw (GPtrArray *lines, cairo_t *cr, double x, double y, const double ink[4])
{
  HsPainter p;

  g_return_if_fail (cr != NULL && ink != NULL);
  hs_painter_init (&p, cr, NULL);
  hs_caption_paint (&p, lines, x, y, ink);
  hs_painter_clear (&p);
}

char *
hs_caption_to_string (const HsCaption *caption)
{
  g_autofree char *meta = NULL;
  g_autofree char *prompt = NULL;

  g_return_val_if_fail (caption != NULL, NULL);
  meta = meta_line (caption);
  if (caption->prompt && *caption->prompt)
    prompt = hs_caption_quote (caption->prompt);
  if (caption->phantom_model_on_real_image)
    {
      g_autofree char *note = g_strdup (hs_caption_phantom_note ());

      if (meta != NULL)
        {
          char *both = g_strdup_printf ("%s · %s", meta, note);
          g_free (meta);
          meta = both;
        }
      else
        meta = g_steal_pointer (&note);
    }
  if (prompt && meta)
    return g_strdup_printf ("%s · %s", prompt, meta);
  return g_strdup (prompt ? prompt : meta ? meta : "");
}

/* ---- regions ------------------------------------------------------------ */

static const double region_palette[][3] = {
  { 0.00, 0.90, 1.00 },   /* cyan    */
  { 1.00, 0.85, 0.10 },   /* yellow  */
  { 0.40, 1.00, 0.30 },   /* green   */
  { 1.00, 0.40, 0.85 },   /* magenta */
  { 1.00, 0.60, 0.20 },   /* orange  */
  { 0.70, 0.70, 1.00 },   /* lilac   */
};

void
hs_region_color (guint index, double rgba[4])
{
  const double *c = region_palette[index % G_N_ELEMENTS (region_palette)];

  g_return_if_fail (rgba != NULL);
  rgba[0] = c[0];
  rgba[1] = c[1];
  rgba[2] = c[2];
  rgba[3] = 1;
}

void
hs_region_label_place (double x1, double y1, double label_w, double label_h, double gap,
                       double clip_x, double clip_y, double clip_w, double clip_h,
                       double *lx, double *ly)
{
  double above = y1 - gap - label_h;
  double x = x1, y = above < clip_y ? y1 + gap : above;

  /* An item whose corner is in the clip but near its right or bottom edge
   * would push its name out of it (a figure panel clips it): slide the
   * name back in, at worst to the clip's left or top when it is wider or
   * taller than the clip.  An item whose corner is outside (scrolled off)
   * keeps its name where it was. */
  if (x1 < clip_x + clip_w && x + label_w > clip_x + clip_w)
    x = clip_x + clip_w - label_w;
  if (y1 < clip_y + clip_h && y + label_h > clip_y + clip_h)
    y = MAX (clip_y + clip_h - label_h, clip_y);
  if (lx)
    *lx = MAX (x, clip_x);
  if (ly)
    *ly = y;
}

/* Whether slot `s` overlaps one of the n slots at `others`; that one in *other. */
static gboolean
label_overlaps_any (const HsLabelSlot *s, const HsLabelSlot *others, guint n, const HsLabelSlot **other)
{
  for (guint j = 0; j < n; j++)
    {
      const HsLabelSlot *o = &others[j];

      if (s->lx < o->lx + o->w && o->lx < s->lx + s->w && s->ly < o->ly + o->h
          && o->ly < s->ly + s->h)
        {
          *other = o;
          return TRUE;
        }
    }
  return FALSE;
}

/* Whether slot `i` overlaps a kept-out area or a slot before it; that one
 * in *other. */
static gboolean
label_overlaps_earlier (const HsLabelSlot *slots, guint i, const HsLabelSlot *keep_out, guint n_keep_out,
                        const HsLabelSlot **other)
{
  return label_overlaps_any (&slots[i], keep_out, n_keep_out, other) ||
         label_overlaps_any (&slots[i], slots, i, other);
}

void
hs_region_labels_place (HsLabelSlot *slots, guint n, double gap, double clip_x, double clip_y,
                        double clip_w, double clip_h)
{
  hs_region_labels_place_avoiding (slots, n, NULL, 0, gap, clip_x, clip_y, clip_w, clip_h);
}

/* Whether slot `s`, meeting `o`, is better moved left of it than `down`
 * pixels (down, or up when negative): `o` is a kept-out area (a panel, not
 * another label), s fits in the clip left of it, and that is the shorter
 * move.  A name under the tall colour bar at the view's right stays beside
 * its item instead of dropping below the bar. */
static gboolean
label_goes_left (const HsLabelSlot *s, const HsLabelSlot *o, const HsLabelSlot *keep_out,
                 guint n_keep_out, double down, double clip_x)
{
  return o >= keep_out && o < keep_out + n_keep_out && o->lx - s->w >= clip_x
         && s->lx + s->w - o->lx < fabs (down);
}

void
hs_region_labels_place_avoiding (HsLabelSlot *slots, guint n, const HsLabelSlot *keep_out,
                                 guint n_keep_out, double gap, double clip_x, double clip_y,
                                 double clip_w, double clip_h)
{
  g_return_if_fail (slots != NULL || n == 0);
  g_return_if_fail (keep_out != NULL || n_keep_out == 0);

  for (guint i = 0; i < n; i++)
    {
      HsLabelSlot *s = &slots[i];
      const HsLabelSlot *o;

      hs_region_label_place (s->x1, s->y1, s->w, s->h, gap, clip_x, clip_y, clip_w, clip_h,
                             &s->lx, &s->ly);
      /* Each move puts the label below the bottom of an earlier one (or of
       * a kept-out area), so ly only grows, or left of a kept-out area, so
       * lx only falls: at most i + 2 n_keep_out moves happen. */
      while (label_overlaps_earlier (slots, i, keep_out, n_keep_out, &o))
        {
          if (label_goes_left (s, o, keep_out, n_keep_out, o->ly + o->h - s->ly, clip_x))
            s->lx = o->lx - s->w;
          else
            s->ly = o->ly + o->h;
        }
      if (s->ly + s->h <= clip_y + clip_h)
        continue;
      /* Stacked out of the bottom: up from the bottom instead, above each
       * label it meets (ly only falls, at most i moves, and left of a
       * kept-out area as above); a crowd taller than the clip ends at its
       * top, the one case where labels may overlap. */
      s->ly = MAX (clip_y + clip_h - s->h, clip_y);
      while (s->ly > clip_y && label_overlaps_earlier (slots, i, keep_out, n_keep_out, &o))
        {
          /* o->ly − h rounded may still reach into o: one step further */
          double y = o->ly - s->h;

          while (y + s->h > o->ly)
            y = nextafter (y, -INFINITY);
          if (label_goes_left (s, o, keep_out, n_keep_out, y - s->ly, clip_x))
            s->lx = o->lx - s->w;
          else
            s->ly = MAX (y, clip_y);
        }
    }
}

void
hs_region_label_measure (HsPainter *p, const char *name, double fs, double *width, double *height)
{
  g_autofree char *valid = name ? g_utf8_make_valid (name, -1) : g_strdup ("");

  if (width)
    *width = hs_painter_text_width (p, valid, fs, TRUE) + fs * 0.4;
  if (height)
    *height = fs * 1.25;
}

void
hs_region_label_paint_at (HsPainter *p, const char *name, double lx, double ly, double fs,
                          const double rgba[4])
{
  static const double label_bg[4] = { 0, 0, 0, 0.6 };
  g_autofree char *valid = NULL;
  double w, h;

  if (name == NULL || *name == '\0' || !isfinite (lx) || !isfinite (ly))
    return;
  valid = g_utf8_make_valid (name, -1);
  hs_region_label_measure (p, valid, fs, &w, &h);
  hs_painter_fill_rect (p, lx, ly, w, h, label_bg);
  hs_painter_text (p, lx + fs * 0.2, ly + fs * 0.95, valid, fs, rgba, TRUE, HS_ANCHOR_START, 0);
}

void
hs_region_label_paint (HsPainter *p, const char *name, double x1, double y1, double clip_x,
                       double clip_y, double clip_w, double clip_h, double fs, double lw,
                       const double rgba[4])
{
  double w, h, lx, ly;

  if (name == NULL || *name == '\0' || !isfinite (x1) || !isfinite (y1))
    return;
  hs_region_label_measure (p, name, fs, &w, &h);
  hs_region_label_place (x1, y1, w, h, lw, clip_x, clip_y, clip_w, clip_h, &lx, &ly);
  hs_region_label_paint_at (p, name, lx, ly, fs, rgba);
}

void
hs_region_label_draw (cairo_t *cr, const char *name, double x1, double y1, double clip_x,
                      double clip_y, double clip_w, double clip_h, double font_size,
                      double line_width, const double rgba[4])
{
  HsPainter p;

  g_return_if_fail (cr != NULL && rgba != NULL);
  hs_painter_init (&p, cr, NULL);
  hs_region_label_paint (&p, name, x1, y1, clip_x, clip_y, clip_w, clip_h, font_size, line_width,
                         rgba);
  hs_painter_clear (&p);
}

void
hs_region_label_size (const char *name, double font_size, double *width, double *height)
{
  HsPainter p;

  hs_painter_init (&p, NULL, NULL);
  hs_region_label_measure (&p, name, font_size, width, height);
  hs_painter_clear (&p);
}

void
hs_region_label_draw_at (cairo_t *cr, const char *name, double lx, double ly, double font_size,
                         const double rgba[4])
{
  HsPainter p;

  g_return_if_fail (cr != NULL && rgba != NULL);
  hs_painter_init (&p, cr, NULL);
  hs_region_label_paint_at (&p, name, lx, ly, font_size, rgba);
  hs_painter_clear (&p);
}

/* ---- region key --------------------------------------------------------- */

void
hs_region_key_measure (HsPainter *p, const HsRegionKeyEntry *entries, guint n, double fs,
                       double *width, double *height)
{
  double w = 0;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *valid = g_utf8_make_valid (entries[i].name ? entries[i].name : "", -1);

      w = MAX (w, hs_painter_text_width (p, valid, fs, entries[i].target));
    }
  if (width)
    *width = n > 0 ? ceil (fs * 1.7 + w) : 0;
  if (height)
    *height = ceil (n * fs * 1.5);
}

void
hs_region_key_paint (HsPainter *p, const HsRegionKeyEntry *entries, guint n, double x, double y,
                     double fs, const double ink[4])
{
  for (guint i = 0; i < n; i++)
    {
      const HsRegionKeyEntry *e = &entries[i];
      g_autofree char *valid = g_utf8_make_valid (e->name ? e->name : "", -1);
      double top = y + i * fs * 1.5, s = fs * 1.0, sy = top + fs * 0.25;
      double lw = e->target ? MAX (1.0, fs / 6) : MAX (0.5, fs / 14);

      if (e->mask)
        {
          /* a contour: the square's corners cut */
          double c = s * 0.3;

          hs_painter_line (p, x + c, sy, x + s - c, sy, e->rgba, lw);
          hs_painter_line (p, x + s, sy + c, x + s, sy + s - c, e->rgba, lw);
          hs_painter_line (p, x + s - c, sy + s, x + c, sy + s, e->rgba, lw);
          hs_painter_line (p, x, sy + s - c, x, sy + c, e->rgba, lw);
          hs_painter_line (p, x + c, sy, x + s, sy + c, e->rgba, lw);
          hs_painter_line (p, x + s, sy + s - c, x + s - c, sy + s, e->rgba, lw);
          hs_painter_line (p, x + c, sy + s, x, sy + s - c, e->rgba, lw);
          hs_painter_line (p, x, sy + c, x + c, sy, e->rgba, lw);
        }
      else
        hs_painter_stroke_rect (p, x, sy, s, s, e->rgba, lw);
      hs_painter_text (p, x + fs * 1.6, top + fs * 1.05, valid, fs, ink, e->target,
                       HS_ANCHOR_START, 0);
    }
}

void
hs_region_key_size (const HsRegionKeyEntry *entries, guint n, double font_size, double *width,
                    double *height)
{
  HsPainter p;

  g_return_if_fail (entries != NULL || n == 0);
  hs_painter_init (&p, NULL, NULL);
  hs_region_key_measure (&p, entries, n, font_size, width, height);
  hs_painter_clear (&p);
}

void
hs_region_key_draw (cairo_t *cr, const HsRegionKeyEntry *entries, guint n, double x, double y,
                    double font_size, const double ink[4])
{
  HsPainter p;

  g_return_if_fail (cr != NULL && ink != NULL && (entries != NULL || n == 0));
  hs_painter_init (&p, cr, NULL);
  cairo_save (cr);
  hs_region_key_paint (&p, entries, n, x, y, font_size, ink);
  cairo_restore (cr);
  hs_painter_clear (&p);
}

/* ---- badges ---- */

HsBadgeTone
hs_badge_tone_for_swap (HsSwapVerdict verdict)
{
  switch (verdict)
    {
    case HS_SWAP_FOLLOWED:  return HS_BADGE_GOOD;
    case HS_SWAP_WRONG_WAY: return HS_BADGE_BAD;
    case HS_SWAP_IGNORED:
    case HS_SWAP_UNDEFINED:
    default:                return HS_BADGE_NEUTRAL;
    }
}

static void
badge_geometry (HsPainter *p, const char *text, double fs, double *tw, double *w, double *h)
{
  *tw = hs_painter_text_width (p, text, fs, TRUE);
  *w = *tw + fs;
  *h = fs * 1.5;
}

void
hs_badge_size (const char *text, double font_size, double *width, double *height)
{
  HsPainter p;
  double tw, w, h;

  hs_painter_init (&p, NULL, NULL);
  badge_geometry (&p, text != NULL ? text : "", font_size, &tw, &w, &h);
  hs_painter_clear (&p);
  if (width)
    *width = w;
  if (height)
    *height = h;
}

void
hs_badge_paint (HsPainter *p, const char *text, HsBadgeTone tone, double x, double y, double fs)
{
  /* White text on every tone: readable on screen and in print alike. */
  static const double fills[][4] = {
    [HS_BADGE_GOOD]    = { 0.149, 0.635, 0.412, 1 },   /* #26a269 */
    [HS_BADGE_NEUTRAL] = { 0.467, 0.463, 0.482, 1 },   /* #77767b */
    [HS_BADGE_BAD]     = { 0.776, 0.275, 0.000, 1 },   /* #c64600 */
    [HS_BADGE_ALERT]   = { 0.753, 0.110, 0.157, 1 },   /* #c01c28 */
  };
  static const double white[4] = { 1, 1, 1, 1 };
  g_autofree char *valid = NULL;
  double tw, w, h;

  if (text == NULL || *text == '\0' || (guint) tone >= G_N_ELEMENTS (fills))
    return;
  valid = g_utf8_make_valid (text, -1);
  badge_geometry (p, valid, fs, &tw, &w, &h);
  hs_painter_fill_rect (p, x, y, w, h, fills[tone]);
  hs_painter_text (p, x + fs * 0.5, y + fs * 1.1, valid, fs, white, TRUE, HS_ANCHOR_START, 0);
}

void
hs_badge_draw (cairo_t *cr, const char *text, HsBadgeTone tone, double x, double y,
               double font_size)
{
  HsPainter p;

  g_return_if_fail (cr != NULL);
  hs_painter_init (&p, cr, NULL);
  hs_badge_paint (&p, text, tone, x, y, font_size);
  hs_painter_clear (&p);
}
