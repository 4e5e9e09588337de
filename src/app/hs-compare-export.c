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
#include "hs-application.h"
#include "hs-utils-private.h"

/* The export size: GSettings figure-width/-dpi/-font-size, or defaults. */
static gboolean
export_size (GSettings *settings, HsFigureGrid *grid, GError **error)
{
  g_autofree char *width = settings ? g_settings_get_string (settings, "figure-width")
                                    : g_strdup ("183mm");

  if (!hs_figure_parse_length (width, &grid->width, error))
    return FALSE;
  if (settings)
    {
      grid->dpi = g_settings_get_double (settings, "figure-dpi");
      grid->font_size = g_settings_get_double (settings, "figure-font-size");
    }
  else
    {
      grid->dpi = 300;
      grid->font_size = 7;
    }
  return TRUE;
}

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
  if (!hs_figure_format_from_path (path, &format, &local) || !export_size (settings, &grid, &local))
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
      hs_figure_view_init (&panel.view);
      panel.view.image = self->image;
      panel.view.map = hs_attention_map_peek_values (map);
      panel.view.map_width = hs_attention_map_get_width (map);
      panel.view.map_height = hs_attention_map_get_height (map);
      panel.view.overlay.opacity = hs_view_state_get_opacity (state);
      panel.view.boxes = (const HsFigureBox *) (const void *) boxes->data;
      panel.view.n_boxes = boxes->len;
      panel.view.masks = (const HsFigureMask *) (const void *) masks->data;
      panel.view.n_masks = masks->len;
      panel.view.show_overlay = hs_view_state_get_show_overlay (state);
      panel.view.show_boxes = hs_view_state_get_show_boxes (state);
      panel.view.show_masks = hs_view_state_get_show_masks (state);
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

/* The size choices of the export dialog, preset from the settings; what
 * is chosen is written back, so the next export starts from it. */
static const char * const width_choices[] = { "89mm", "120mm", "136mm", "183mm", "3.5in", "7in", NULL };
static const char * const dpi_choices[] = { "150", "300", "600", "1200", NULL };
static const char * const font_choices[] = { "5", "6", "7", "8", "9", "10", "12", NULL };

/* `current` first (the chooser selects the first option: GTK 4.8's
 * set_choice does not move its drop-down), then the other `values`. */
static void
add_choice (GtkFileChooser *chooser, const char *id, const char *label, const char * const *values,
            const char *current)
{
  g_autoptr(GStrvBuilder) options = g_strv_builder_new ();
  g_auto(GStrv) list = NULL;

  g_strv_builder_add (options, current);
  for (guint i = 0; values[i]; i++)
    if (!g_str_equal (values[i], current))
      g_strv_builder_add (options, values[i]);
  list = g_strv_builder_end (options);
  gtk_file_chooser_add_choice (chooser, id, label, (const char **) list, (const char **) list);
  gtk_file_chooser_set_choice (chooser, id, current);
}

static char *
format_number (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%g", value));
}

GtkFileChooserNative *
hs_compare_view_new_export_chooser (HsCompareView *self, GSettings *settings)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *chooser;
  g_autofree char *width = g_settings_get_string (settings, "figure-width");
  g_autofree char *dpi = format_number (g_settings_get_double (settings, "figure-dpi"));
  g_autofree char *font = format_number (g_settings_get_double (settings, "figure-font-size"));

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  chooser = gtk_file_chooser_native_new (_("Export Figure"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "comparison.pdf");
  add_choice (GTK_FILE_CHOOSER (chooser), "width", _("Width"), width_choices, width);
  add_choice (GTK_FILE_CHOOSER (chooser), "dpi", _("PNG dpi"), dpi_choices, dpi);
  add_choice (GTK_FILE_CHOOSER (chooser), "font-size", _("Text (pt)"), font_choices, font);
  return chooser;
}

gboolean
hs_compare_view_export_chosen (HsCompareView *self, GtkFileChooser *chooser, const char *path,
                               GSettings *settings, GError **error)
{
  const char *width = gtk_file_chooser_get_choice (chooser, "width");
  const char *dpi = gtk_file_chooser_get_choice (chooser, "dpi");
  const char *font = gtk_file_chooser_get_choice (chooser, "font-size");
  double points;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  if (path == NULL)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Only local files can be written"));
      return FALSE;
    }
  /* remembered before exporting: the choice was the user's either way */
  if (width && hs_figure_parse_length (width, &points, NULL))
    g_settings_set_string (settings, "figure-width", width);
  if (dpi)
    g_settings_set_double (settings, "figure-dpi", CLAMP (g_ascii_strtod (dpi, NULL), 36, 2400));
  if (font)
    g_settings_set_double (settings, "figure-font-size", CLAMP (g_ascii_strtod (font, NULL), 2, 72));
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
