/* hs-plot.h — small Cairo line plots (ROC, precision–recall, IoU vs. threshold)
 *
 * A GtkWidget drawing one curve in the unit square with axis labels and a
 * title; also usable headless with hs_plot_draw. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HS_TYPE_PLOT (hs_plot_get_type ())
G_DECLARE_FINAL_TYPE (HsPlot, hs_plot, HS, PLOT, GtkWidget)

GtkWidget *hs_plot_new       (const char *title, const char *x_label, const char *y_label);
/* n points (xs[i], ys[i]) in [0, 1]²; copied.  n = 0 clears; `note`, when
 * non-NULL, is drawn instead of a curve (e.g. "n/a: empty target"). */
void       hs_plot_set_curve (HsPlot *self, const double *xs, const double *ys, guint n,
                              const char *note);
/* Optional diagonal reference line (ROC chance line). */
void       hs_plot_set_diagonal (HsPlot *self, gboolean diagonal);
void       hs_plot_draw      (HsPlot *self, cairo_t *cr, int width, int height);

G_END_DECLS
