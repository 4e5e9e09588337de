/* hs-color-bar.c — a horizontal colour bar with printed values */
#include <math.h>

#include <heatscope/hs-legend.h>

#include "hs-color-bar.h"

struct _HsColorBar
{
  GtkDrawingArea   parent_instance;

  HsViewState     *state;
  gulong           state_changed_id;
  double           lo, hi;
  char            *caption;
};

G_DEFINE_FINAL_TYPE (HsColorBar, hs_color_bar, GTK_TYPE_DRAWING_AREA)

/* Pixels: tick values and caption at 0.8 × this, the size of UI text. */
#define BAR_FONT_SIZE 15

/* ---- drawing ------------------------------------------------------------- */

/* The legend's horizontal colour bar in the widget's text colour: the
 * colours exactly as the cells map them (threshold included), both ends
 * and the nice values between that leave room, the caption above. */
static void
draw_bar (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  HsColorBar *self = HS_COLOR_BAR (data);
  HsLegendSpec spec;
  HsLegendLayout layout;
  GdkRGBA fg;
  double ink[4];

  if (self->state == NULL || width - 16 < 40 || !(self->hi > self->lo))
    return;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  ink[0] = fg.red;
  ink[1] = fg.green;
  ink[2] = fg.blue;
  ink[3] = fg.alpha;

  hs_legend_spec_init (&spec);
  hs_view_state_get_overlay_options (self->state, &spec.overlay);
  spec.range.lo = self->lo;
  spec.range.hi = self->hi;
  spec.title = self->caption ? self->caption : "";
  spec.horizontal = TRUE;
  spec.length = width - 16;
  spec.font_size = BAR_FONT_SIZE;
  if (hs_legend_layout (&spec, &layout, NULL))
    hs_legend_draw (&spec, &layout, cr, 8, 0, ink);
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
  HsLegendSpec spec;
  HsLegendLayout layout;

  /* As tall as the legend is at this font size (its height does not
   * depend on the range or the width). */
  hs_legend_spec_init (&spec);
  spec.horizontal = TRUE;
  spec.title = "caption";
  spec.font_size = BAR_FONT_SIZE;
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self),
                                       hs_legend_layout (&spec, &layout, NULL)
                                       ? (int) ceil (layout.height) : 50);
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
