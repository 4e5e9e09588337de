/* hs-plot.c — small Cairo line plots (ROC, precision–recall, IoU vs. threshold) */
#include <math.h>

#include <glib/gi18n.h>

#include "hs-plot.h"
#include "hs-utils-private.h"

struct _HsPlot
{
  GtkWidget parent_instance;

  char    *title;
  char    *x_label;
  char    *y_label;
  char    *note;
  GArray  *xs;
  GArray  *ys;
  gboolean diagonal;
};

G_DEFINE_FINAL_TYPE (HsPlot, hs_plot, GTK_TYPE_WIDGET)

/* Text centred on (x, y), rotated by `angle` radians. */
static void
show_text (cairo_t *cr, const char *text, double x, double y, double size, double angle)
{
  PangoLayout *layout = _hs_pango_layout_new (cr, text, size);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_save (cr);
  cairo_translate (cr, x, y);
  cairo_rotate (cr, angle);
  cairo_move_to (cr, -w / 2.0, -h / 2.0);
  pango_cairo_show_layout (cr, layout);
  cairo_restore (cr);
  g_object_unref (layout);
}

void
hs_plot_draw (HsPlot *self, cairo_t *cr, int width, int height)
{
  const double fs = 9;
  double left = 2.4 * fs, bottom = 2.4 * fs, top = 1.8 * fs, right = 0.8 * fs;
  double pw = width - left - right, ph = height - top - bottom;
  double x0 = left, y0 = top;

  g_return_if_fail (HS_IS_PLOT (self));

  cairo_save (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  if (self->title)
    show_text (cr, self->title, width / 2.0, top / 2.0, fs + 1, 0);
  if (pw < 10 || ph < 10)
    {
      cairo_restore (cr);
      return;
    }
  if (self->x_label)
    show_text (cr, self->x_label, x0 + pw / 2, height - fs * 0.7, fs, 0);
  if (self->y_label)
    show_text (cr, self->y_label, fs * 0.7, y0 + ph / 2, fs, -G_PI / 2);
  show_text (cr, "0", x0 - fs * 0.5, y0 + ph + fs * 0.7, fs * 0.85, 0);
  show_text (cr, "1", x0 + pw, y0 + ph + fs * 0.7, fs * 0.85, 0);
  show_text (cr, "1", x0 - fs * 0.6, y0, fs * 0.85, 0);

  /* frame and grid */
  cairo_set_line_width (cr, 1);
  cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
  for (int i = 1; i < 4; i++)
    {
      cairo_move_to (cr, x0 + pw * i / 4, y0);
      cairo_line_to (cr, x0 + pw * i / 4, y0 + ph);
      cairo_move_to (cr, x0, y0 + ph * i / 4);
      cairo_line_to (cr, x0 + pw, y0 + ph * i / 4);
    }
  cairo_stroke (cr);
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  cairo_rectangle (cr, x0 + 0.5, y0 + 0.5, pw, ph);
  cairo_stroke (cr);

  if (self->diagonal)
    {
      static const double dash[] = { 3, 3 };
      cairo_set_source_rgb (cr, 0.6, 0.6, 0.6);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_move_to (cr, x0, y0 + ph);
      cairo_line_to (cr, x0 + pw, y0);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }

  if (self->note)
    {
      cairo_set_source_rgb (cr, 0.45, 0.45, 0.45);
      show_text (cr, self->note, x0 + pw / 2, y0 + ph / 2, fs, 0);
    }
  else if (self->xs->len > 0)
    {
      cairo_set_source_rgb (cr, 0.12, 0.35, 0.75);
      cairo_set_line_width (cr, 1.6);
      cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
      for (guint i = 0; i < self->xs->len; i++)
        {
          double x = CLAMP (g_array_index (self->xs, double, i), 0, 1);
          double y = CLAMP (g_array_index (self->ys, double, i), 0, 1);
          if (i == 0)
            cairo_move_to (cr, x0 + x * pw, y0 + (1 - y) * ph);
          else
            cairo_line_to (cr, x0 + x * pw, y0 + (1 - y) * ph);
        }
      if (self->xs->len == 1)
        cairo_rel_line_to (cr, 0.01, 0);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

static void
hs_plot_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (w <= 0 || h <= 0)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  hs_plot_draw (HS_PLOT (widget), cr, w, h);
  cairo_destroy (cr);
}

static void
hs_plot_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                 int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  *minimum = 120;
  *natural = 160;
}

static void
hs_plot_finalize (GObject *object)
{
  HsPlot *self = HS_PLOT (object);

  g_free (self->title);
  g_free (self->x_label);
  g_free (self->y_label);
  g_free (self->note);
  g_array_unref (self->xs);
  g_array_unref (self->ys);
  G_OBJECT_CLASS (hs_plot_parent_class)->finalize (object);
}

static void
hs_plot_class_init (HsPlotClass *klass)
{
  GTK_WIDGET_CLASS (klass)->snapshot = hs_plot_snapshot;
  GTK_WIDGET_CLASS (klass)->measure = hs_plot_measure;
  G_OBJECT_CLASS (klass)->finalize = hs_plot_finalize;
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "hs-plot");
  gtk_widget_class_set_accessible_role (GTK_WIDGET_CLASS (klass), GTK_ACCESSIBLE_ROLE_IMG);
}

static void
hs_plot_init (HsPlot *self)
{
  self->xs = g_array_new (FALSE, FALSE, sizeof (double));
  self->ys = g_array_new (FALSE, FALSE, sizeof (double));
}

GtkWidget *
hs_plot_new (const char *title, const char *x_label, const char *y_label)
{
  HsPlot *self = g_object_new (HS_TYPE_PLOT, NULL);

  self->title = g_strdup (title);
  self->x_label = g_strdup (x_label);
  self->y_label = g_strdup (y_label);
  if (title)
    gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  return GTK_WIDGET (self);
}

void
hs_plot_set_curve (HsPlot *self, const double *xs, const double *ys, guint n, const char *note)
{
  g_return_if_fail (HS_IS_PLOT (self));
  g_return_if_fail (n == 0 || (xs != NULL && ys != NULL));

  g_array_set_size (self->xs, 0);
  g_array_set_size (self->ys, 0);
  for (guint i = 0; i < n; i++)
    if (isfinite (xs[i]) && isfinite (ys[i]))
      {
        g_array_append_val (self->xs, xs[i]);
        g_array_append_val (self->ys, ys[i]);
      }
  g_free (self->note);
  self->note = g_strdup (note);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hs_plot_set_diagonal (HsPlot *self, gboolean diagonal)
{
  g_return_if_fail (HS_IS_PLOT (self));
  self->diagonal = !!diagonal;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
