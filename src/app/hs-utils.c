/* hs-utils.c — text helpers shared by the app's cairo-drawn widgets */
#include "hs-utils-private.h"

#include <math.h>
#include <glib/gi18n.h>
#include <heatscope/hs-dataset.h>

char *
_hs_format_score (int metric, double value)
{
  if (isnan (value))
    return g_strdup (_("n/a"));
  if (metric == HS_METRIC_POINTING_HIT || metric == HS_METRIC_WRONG_SIDE)
    return g_strdup_printf ("%.0f", value);
  /* No "-0.000" for tiny negatives. */
  if (fabs (value) < 0.0005)
    value = 0;
  return g_strdup_printf ("%.3f", value);
}

PangoLayout *
_hs_pango_layout_new (cairo_t *cr, const char *text, double size)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");

  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_font_description_free (font);
  return layout;
}

void
_hs_label_size (cairo_t *cr, const char *text, double size, int *w, int *h)
{
  PangoLayout *layout = _hs_pango_layout_new (cr, text, size);

  pango_layout_get_pixel_size (layout, w, h);
  g_object_unref (layout);
}

void
_hs_label_draw (cairo_t *cr, const char *text, double x, double y, const double rgba[4],
                double size)
{
  PangoLayout *layout = _hs_pango_layout_new (cr, text, size);
  int lw, lh;

  pango_layout_get_pixel_size (layout, &lw, &lh);
  cairo_save (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.65);
  cairo_rectangle (cr, x, y, lw + 6, lh + 2);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, rgba[0], rgba[1], rgba[2], rgba[3]);
  cairo_move_to (cr, x + 3, y + 1);
  pango_cairo_show_layout (cr, layout);
  cairo_restore (cr);
  g_object_unref (layout);
}

void
_hs_figure_targets (GPtrArray *regions, GPtrArray *region_masks, const double *region_rgba,
                    const gboolean *region_target, GArray *boxes, GArray *masks)
{
  for (guint i = 0; regions && i < regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (regions, i);
      HsImage *mask = region_masks && i < region_masks->len ? g_ptr_array_index (region_masks, i)
                                                            : NULL;
      /* the screen's colours; regions the query does not point at thin and dashed */
      const double *rgba = region_rgba ? region_rgba + 4 * i : NULL;
      gboolean other = region_target != NULL && !region_target[i];

      for (guint b = 0; region->boxes && b < region->boxes->len; b++)
        {
          const HsBox *box = &g_array_index (region->boxes, HsBox, b);
          HsFigureBox fb = { b == 0 ? region->name : NULL, box->x1, box->y1, box->x2, box->y2,
                             rgba, other };
          g_array_append_val (boxes, fb);
        }
      if (mask)
        {
          HsFigureMask fm = { region->name, mask, rgba, other };
          g_array_append_val (masks, fm);
        }
    }
}

void
_hs_file_chooser_add_suffix (GtkFileChooser *chooser, const char *name, const char *suffix)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  gtk_file_filter_add_suffix (filter, suffix);
  gtk_file_chooser_add_filter (chooser, filter);
  g_object_unref (filter);
}

void
_hs_file_chooser_show (GtkFileChooserNative *chooser, GCallback response, gpointer data)
{
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", response, data);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

HsTarget *
_hs_target_of_regions (HsImage *image, HsProtocol protocol, GPtrArray *regions,
                       GPtrArray *region_masks, GError **error)
{
  g_autoptr(HsTarget) target = NULL;
  HsEvalGrid grid;

  if (!hs_eval_grid_init (&grid, protocol, hs_image_get_width (image),
                          hs_image_get_height (image), 0, error))
    return NULL;
  target = hs_target_new (&grid);
  for (guint i = 0; regions != NULL && i < regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (regions, i);
      HsImage *mask = region_masks != NULL && i < region_masks->len
                      ? g_ptr_array_index (region_masks, i) : NULL;

      /* Checks the boxes against the image first (hs_box_check). */
      if (!hs_target_add_region_loaded (target, region, mask, error))
        return NULL;
    }
  return g_steal_pointer (&target);
}

/* GTK 4.8's gtk_widget_set_tooltip_text asks the X server where the pointer is
 * (XIQueryPointer, XIGetClientPointer, an XSync: round trips) whenever the
 * widget is visible, which a new widget is, so that a tooltip on screen
 * follows its text.  Rows and buttons built for every instance and sentence
 * paid ~15 round trips a step for that (perf: 11 % of the main thread's time
 * in a soak, and each round trip waits for the X server on a busy machine).
 * A widget in no window cannot be under the pointer: it is hidden while its
 * text is set, so GTK skips the query. */
void
_hs_widget_set_tooltip (GtkWidget  *widget,
                        const char *text)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (gtk_widget_get_root (widget) == NULL && gtk_widget_get_visible (widget))
    {
      gtk_widget_set_visible (widget, FALSE);
      gtk_widget_set_tooltip_text (widget, text);
      gtk_widget_set_visible (widget, TRUE);
    }
  else
    gtk_widget_set_tooltip_text (widget, text);
}
