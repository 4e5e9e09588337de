/* hs-figure-export.c — the page size of the app's figure exports, and the
 * save dialog that chooses and remembers it (see hs-figure-export.h) */
#include <glib/gi18n.h>

#include "hs-figure-export.h"

gboolean
hs_figure_export_size (GSettings *settings, HsFigureGrid *grid, GError **error)
{
  g_autofree char *width = settings ? g_settings_get_string (settings, "figure-width")
                                    : g_strdup ("183mm");

  if (!hs_figure_parse_length (width, &grid->width, error))
    return FALSE;
  grid->dpi = settings ? g_settings_get_double (settings, "figure-dpi") : 300;
  grid->font_size = settings ? g_settings_get_double (settings, "figure-font-size") : 7;
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
hs_figure_export_chooser_new (GtkWindow *parent, const char *title, const char *current_name,
                              GSettings *settings)
{
  GtkFileChooserNative *chooser;
  g_autofree char *width = g_settings_get_string (settings, "figure-width");
  g_autofree char *dpi = format_number (g_settings_get_double (settings, "figure-dpi"));
  g_autofree char *font = format_number (g_settings_get_double (settings, "figure-font-size"));

  chooser = gtk_file_chooser_native_new (title, parent, GTK_FILE_CHOOSER_ACTION_SAVE,
                                         _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), current_name);
  add_choice (GTK_FILE_CHOOSER (chooser), "width", _("Width"), width_choices, width);
  add_choice (GTK_FILE_CHOOSER (chooser), "dpi", _("PNG dpi"), dpi_choices, dpi);
  add_choice (GTK_FILE_CHOOSER (chooser), "font-size", _("Text (pt)"), font_choices, font);
  return chooser;
}

void
hs_figure_export_remember (GtkFileChooser *chooser, GSettings *settings)
{
  const char *width = gtk_file_chooser_get_choice (chooser, "width");
  const char *dpi = gtk_file_chooser_get_choice (chooser, "dpi");
  const char *font = gtk_file_chooser_get_choice (chooser, "font-size");
  double points;

  if (width && hs_figure_parse_length (width, &points, NULL))
    g_settings_set_string (settings, "figure-width", width);
  if (dpi)
    g_settings_set_double (settings, "figure-dpi", CLAMP (g_ascii_strtod (dpi, NULL), 36, 2400));
  if (font)
    g_settings_set_double (settings, "figure-font-size", CLAMP (g_ascii_strtod (font, NULL), 2, 72));
}

void
hs_figure_export_panel_view (HsFigureView *view, HsImage *image, HsAttentionMap *map,
                             HsViewState *state, GArray *boxes, GArray *masks)
{
  hs_figure_view_init (view);
  view->image = image;
  view->map = hs_attention_map_peek_values (map);
  view->map_width = hs_attention_map_get_width (map);
  view->map_height = hs_attention_map_get_height (map);
  view->overlay.opacity = hs_view_state_get_opacity (state);
  view->boxes = (const HsFigureBox *) (const void *) boxes->data;
  view->n_boxes = boxes->len;
  view->masks = (const HsFigureMask *) (const void *) masks->data;
  view->n_masks = masks->len;
  view->show_overlay = hs_view_state_get_show_overlay (state);
  view->show_boxes = hs_view_state_get_show_boxes (state);
  view->show_masks = hs_view_state_get_show_masks (state);
}
