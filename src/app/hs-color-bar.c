/* hs-color-bar.c — a horizontal colour bar with printed values */
#include <math.h>

#include <heatscope/hs-figure.h>

#include "hs-color-bar.h"

struct _HsColorBar
{
  GtkDrawingArea   parent_instance;

  HsViewState     *state;
  gulong           state_changed_id;
  double           lo, hi;
  char            *caption;
  guint            n_ticks;
};

G_DEFINE_FINAL_TYPE (HsColorBar, hs_color_bar, GTK_TYPE_DRAWING_AREA)

/* ---- numbers ------------------------------------------------------------- */

/* Decimals that show steps of `step` (0.005 → 3), within reason. */
static int
decimals_for (double step)
{
  if (!(step > 0) || !isfinite (step))
    return 3;
  return CLAMP ((int) ceil (-log10 (step) - 1e-9), 0, 8);
}

/* A value of a scale spanning `span`: fixed decimals when they read well,
 * else scientific. */
char *
hs_color_bar_format_value (double v, double span)
{
  int d = decimals_for (span / 10);

  if (v == 0)
    v = 0;   /* no "-0.000" */
  if (d > 5)
    return g_strdup_printf ("%.2e", v);
  return g_strdup_printf ("%.*f", d, v);
}

/* ---- drawing ------------------------------------------------------------- */

/* A horizontal colour bar drawn for a set of cells: the colours of the cell
 * state's colour map and strength, ticks with values, a caption. */
static void
draw_bar (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  HsColorBar *self = HS_COLOR_BAR (data);
  double lo = self->lo;
  double hi = self->hi;
  const char *caption = self->caption;
  HsOverlayOptions options;
  guint32 lut[256];
  double ticks[10];
  double placed[10][2];
  guint n_placed = 0;
  double bar_x = 8, bar_y = 18, bar_h = 12, bar_w = width - 16;
  guint n_ticks;
  GdkRGBA fg;
  PangoLayout *layout;
  cairo_surface_t *strip;
  guint32 *pixels;

  if (self->state == NULL || bar_w < 40 || !(hi > lo))
    return;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS

  /* The colours as the canvases map them (strength and colour map), opaque. */
  hs_view_state_get_overlay_options (self->state, &options);
  options.threshold = 0;
  options.opacity = 1;
  hs_overlay_build_lut (&options, lut, G_N_ELEMENTS (lut));
  /* One row of 256 pixels: the stride does not matter. */
  strip = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, G_N_ELEMENTS (lut), 1);
  if (cairo_surface_status (strip) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (strip);
      return;
    }
  cairo_surface_flush (strip);
  pixels = (guint32 *) cairo_image_surface_get_data (strip);
  for (guint i = 0; i < G_N_ELEMENTS (lut); i++)
    pixels[i] = lut[i] | 0xff000000u;
  cairo_surface_mark_dirty (strip);

  cairo_save (cr);
  cairo_rectangle (cr, bar_x, bar_y, bar_w, bar_h);
  cairo_clip (cr);
  cairo_translate (cr, bar_x, bar_y);
  cairo_scale (cr, bar_w / G_N_ELEMENTS (lut), bar_h);
  cairo_set_source_surface (cr, strip, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_BILINEAR);
  cairo_pattern_set_extend (cairo_get_source (cr), CAIRO_EXTEND_PAD);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_surface_destroy (strip);

  gdk_cairo_set_source_rgba (cr, &fg);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, bar_x + 0.5, bar_y + 0.5, bar_w - 1, bar_h - 1);
  cairo_stroke (cr);

  layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), caption);
  cairo_move_to (cr, bar_x, 0);
  pango_cairo_show_layout (cr, layout);

  /* The ends of the scale always, and the nice ticks between them that
   * leave room for their values. */
  n_ticks = hs_figure_nice_ticks (lo, hi, self->n_ticks, ticks + 2);
  ticks[0] = lo;
  ticks[1] = hi;
  n_ticks += 2;
  for (guint i = 0; i < n_ticks; i++)
    {
      double x = bar_x + (ticks[i] - lo) / (hi - lo) * bar_w;
      g_autofree char *text = hs_color_bar_format_value (ticks[i], hi - lo);
      double left;
      int tw, th;
      gboolean clash = FALSE;

      pango_layout_set_text (layout, text, -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      left = CLAMP (x - tw / 2.0, 0, width - tw);
      for (guint k = 0; k < n_placed && !clash; k++)
        clash = left < placed[k][1] + 8 && left + tw + 8 > placed[k][0];
      if (clash)
        continue;
      placed[n_placed][0] = left;
      placed[n_placed][1] = left + tw;
      n_placed++;
      cairo_move_to (cr, round (x) + 0.5, bar_y + bar_h);
      cairo_line_to (cr, round (x) + 0.5, bar_y + bar_h + 4);
      cairo_stroke (cr);
      cairo_move_to (cr, left, bar_y + bar_h + 5);
      pango_cairo_show_layout (cr, layout);
    }
  g_object_unref (layout);
}


/* ---- object -------------------------------------------------------------- */

static void
hs_color_bar_dispose (GObject *object)
{
  HsColorBar *self = HS_COLOR_BAR (object);

  if (self->state != NULL)
    g_clear_signal_handler (&self->state_changed_id, self->state);
  g_clear_object (&self->state);
  G_OBJECT_CLASS (hs_color_bar_parent_class)->dispose (object);
}

static void
hs_color_bar_finalize (GObject *object)
{
  HsColorBar *self = HS_COLOR_BAR (object);

  g_free (self->caption);
  G_OBJECT_CLASS (hs_color_bar_parent_class)->finalize (object);
}

static void
hs_color_bar_class_init (HsColorBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = hs_color_bar_dispose;
  object_class->finalize = hs_color_bar_finalize;
}

static void
hs_color_bar_init (HsColorBar *self)
{
  self->n_ticks = 6;
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self), 50);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw_bar, self, NULL);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self), "hs-colour-bar");
}

/* ---- public -------------------------------------------------------------- */

GtkWidget *
hs_color_bar_new (void)
{
  return g_object_new (HS_TYPE_COLOR_BAR, NULL);
}

void
hs_color_bar_set_state (HsColorBar *self, HsViewState *state)
{
  g_return_if_fail (HS_IS_COLOR_BAR (self));
  g_return_if_fail (state == NULL || HS_IS_VIEW_STATE (state));

  if (self->state == state)
    return;
  if (self->state != NULL)
    g_clear_signal_handler (&self->state_changed_id, self->state);
  g_set_object (&self->state, state);
  if (state != NULL)
    self->state_changed_id = g_signal_connect_swapped (state, "changed",
                                                       G_CALLBACK (gtk_widget_queue_draw), self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hs_color_bar_set_range (HsColorBar *self, double lo, double hi)
{
  g_return_if_fail (HS_IS_COLOR_BAR (self));

  self->lo = lo;
  self->hi = hi;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hs_color_bar_get_range (HsColorBar *self, double *lo, double *hi)
{
  g_return_if_fail (HS_IS_COLOR_BAR (self));

  if (lo != NULL)
    *lo = self->lo;
  if (hi != NULL)
    *hi = self->hi;
}

void
hs_color_bar_set_caption (HsColorBar *self, const char *caption)
{
  g_return_if_fail (HS_IS_COLOR_BAR (self));

  g_free (self->caption);
  self->caption = g_strdup (caption);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
hs_color_bar_get_caption (HsColorBar *self)
{
  g_return_val_if_fail (HS_IS_COLOR_BAR (self), NULL);
  return self->caption;
}

void
hs_color_bar_set_n_ticks (HsColorBar *self, guint n_ticks)
{
  g_return_if_fail (HS_IS_COLOR_BAR (self));

  /* ticks[] in draw_bar holds the two ends and what the figure's nice
   * ticks give for at most 6. */
  self->n_ticks = CLAMP (n_ticks, 2, 6);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
