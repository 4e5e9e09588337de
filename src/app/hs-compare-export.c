/* hs-compare-export.c — the compare view as a publication figure
 *
 * Through the same composer as `heatscope-cli figure` (hs-figure-grid):
 * A | B | A − B (or the model grid) with one shared colour bar and the
 * diverging bar of the difference.  What is written under each panel is
 * read back from the cell (its badge and read-out line), so an export shows
 * whatever the screen shows, badges drawn by the screen's hs_badge_draw. */
#include <math.h>

#include <glib/gi18n.h>
#include <heatscope/hs-figure-grid.h>

#include "hs-compare-view-private.h"
#include "hs-figure-export.h"
#include "hs-application.h"
#include "hs-utils-private.h"

const char *
hs_compare_view_get_caption (HsCompareView *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  return gtk_label_get_text (self->prompt_label);
}

gboolean
hs_compare_view_export (HsCompareView *self, const char *path, GSettings *settings,
                        GError **error)
{
  g_autoptr(GArray) panels = g_array_new (FALSE, TRUE, sizeof (HsFigurePanel));
  g_autoptr(GArray) boxes = g_array_new (FALSE, TRUE, sizeof (HsFigureBox));
  g_autoptr(GArray) masks = g_array_new (FALSE, TRUE, sizeof (HsFigureMask));
  g_autoptr(GError) local = NULL;
  HsCompareCell *first;
  HsFigureFormat format;
  HsFigureGrid grid;
  guint n;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  n = self->cells->len;
  if (n == 0 || self->image == NULL)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Cannot export %s: the comparison shows no maps"), path);
      return FALSE;
    }
  hs_figure_grid_init (&grid);
  if (!hs_figure_format_from_path (path, &format, &local) || !hs_figure_export_size (settings, &grid, &local))
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING, "%s: %s", path,
                   local->message);
      return FALSE;
    }

  _hs_figure_targets (self->regions, self->masks, NULL, NULL, boxes, masks);
  first = g_ptr_array_index (self->cells, 0);
  hs_view_state_get_overlay_options (hs_compare_cell_get_state (first), &grid.overlay);
  for (guint i = 0; i < n; i++)
    {
      HsCompareCell *cell = g_ptr_array_index (self->cells, i);
      HsAttentionMap *map = hs_compare_cell_get_map (cell);
      HsViewState *state = hs_compare_cell_get_state (cell);
      HsFigurePanel panel = { 0 };

      if (map == NULL)
        {
          g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                       _("Cannot export %s: %s has no map yet"), path,
                       hs_compare_cell_get_title (cell));
          return FALSE;
        }
      hs_figure_export_panel_view (&panel.view, self->image, map, state, boxes, masks);
      /* the canvas's "phantom-trained model on a real image", as on screen */
      panel.view.phantom_model_on_real_image =
        hs_canvas_get_caption_phantom (hs_compare_cell_get_canvas (cell));
      panel.title = hs_compare_cell_get_title (cell);
      /* under the map what the cell shows there: the badge (drawn by the
       * same hs_badge_draw as on screen) and the read-out line */
      panel.badge = hs_compare_cell_get_badge (cell);
      panel.badge_tone = hs_compare_cell_get_badge_tone (cell);
      panel.note = hs_compare_cell_get_shown_readout (cell);
      panel.difference = self->mode == HS_COMPARE_MODE_PAIR && i == 2;
      /* the tag strip the cell shows (none while Tags is off) */
      panel.view.tags = hs_compare_cell_get_shown_tags (cell, &panel.view.n_tags);
      panel.view.show_tags = panel.view.n_tags > 0;
      g_array_append_val (panels, panel);
    }
  grid.panels = (const HsFigurePanel *) (const void *) panels->data;
  grid.n_panels = n;
  /* the columns of the screen */
  grid.columns = self->mode == HS_COMPARE_MODE_PAIR || n <= 3 ? MIN (n, 3)
                 : (guint) ceil (sqrt ((double) n));
  grid.caption = hs_compare_view_get_caption (self);
  if (grid.caption && *grid.caption == '\0')
    grid.caption = NULL;
  if (!hs_figure_grid_save (&grid, format, path, &local))
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING, "%s",
                   local->message);
      return FALSE;
    }
  return TRUE;
}

GtkFileChooserNative *
hs_compare_view_new_export_chooser (HsCompareView *self, GSettings *settings)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  return hs_figure_export_chooser_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                       _("Export Figure"), "comparison.pdf", settings);
}

gboolean
hs_compare_view_export_chosen (HsCompareView *self, GtkFileChooser *chooser, const char *path,
                               GSettings *settings, GError **error)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  if (path == NULL)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Only local files can be written"));
      return FALSE;
    }
  /* remembered before exporting: the choice was the user's either way */
  hs_figure_export_remember (chooser, settings);
  return hs_compare_view_export (self, path, settings, error);
}

static void
on_export_response (GtkNativeDialog *dialog, int response, HsCompareView *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GSettings) settings = hs_settings_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      g_autofree char *done = NULL;

      /* the outcome where the view says what it shows */
      if (!hs_compare_view_export_chosen (self, GTK_FILE_CHOOSER (dialog), path, settings, &error))
        gtk_label_set_text (self->info_label, error->message);
      else
        {
          done = g_strdup_printf (_("Exported %s"), path);
          gtk_label_set_text (self->info_label, done);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

void
_hs_compare_view_export_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsCompareView *self = HS_COMPARE_VIEW (widget);
  g_autoptr(GSettings) settings = hs_settings_new ();
  GtkFileChooserNative *chooser = hs_compare_view_new_export_chooser (self, settings);

  g_signal_connect (chooser, "response", G_CALLBACK (on_export_response), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}
