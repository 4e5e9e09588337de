/* hs-utils-private.h — small helpers shared by the app's widgets */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-image.h>
#include <heatscope/hs-metrics.h>
#include <heatscope/hs-figure.h>
#include <heatscope/hs-target.h>

G_BEGIN_DECLS

/* Free functions for arrays whose elements may be NULL. */
static inline void
_hs_image_unref0 (gpointer image)
{
  if (image)
    hs_image_unref (image);
}

static inline void
_hs_ptr_array_unref0 (gpointer array)
{
  if (array)
    g_ptr_array_unref (array);
}

/* Replaces *field by a copy of value; FALSE when they were equal (g_set_str
 * is GLib 2.76). */
static inline gboolean
_hs_set_str (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

/* A score as the metric tables print it (locale decimals, as the rest of
 * the UI): "n/a" for NaN, counts (pointing hit, wrong side) whole, else
 * three decimals, never "-0.000".  `metric` −1: not a metric (e.g. a KL). */
char        *_hs_format_score     (int metric, double value);
/* A Pango layout of `text` in Sans at `size` pixels (absolute). */
PangoLayout *_hs_pango_layout_new (cairo_t *cr, const char *text, double size);
/* A read-out label: `text` in `rgba` on a dark box whose top-left is (x, y). */
void         _hs_label_size       (cairo_t *cr, const char *text, double size, int *w, int *h);
void         _hs_label_draw       (cairo_t *cr, const char *text, double x, double y,
                                   const double rgba[4], double size);

/* The regions' boxes (each named once, at its first box) and masks as a
 * figure draws them, appended to `boxes` (HsFigureBox) and `masks`
 * (HsFigureMask; images borrowed) — the canvas export and the compare
 * export draw the same target. */
void         _hs_figure_targets   (GPtrArray *regions, GPtrArray *region_masks,
                                   const double *region_rgba, const gboolean *region_target,
                                   GArray *boxes, GArray *masks);

/* Adds to `chooser` a filter `name` for the files ending in `suffix`. */
void _hs_file_chooser_add_suffix (GtkFileChooser *chooser, const char *name, const char *suffix);
/* Shows `chooser` modal over its window, `response` connected with `data`. */
void _hs_file_chooser_show       (GtkFileChooserNative *chooser, GCallback response, gpointer data);

/* The target of `regions` (HsRegion*, with their loaded masks or NULL) on
 * `protocol`'s grid of `image`: what the compare cells and the current-view
 * figure (default protocol, as heatscope-cli figure) and the metrics panel
 * score their maps against. */
HsTarget    *_hs_target_of_regions (HsImage *image, HsProtocol protocol, GPtrArray *regions,
                                    GPtrArray *region_masks, GError **error);
/* gtk_widget_set_tooltip_text without GTK 4.8's pointer query when nothing
 * can be under the pointer: for a widget not yet in a window (see hs-utils.c). */
void         _hs_widget_set_tooltip (GtkWidget *widget, const char *text);

G_END_DECLS
