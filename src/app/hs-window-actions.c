/* hs-window-actions.c — the window's actions (win.*), their handlers and
 * file choosers, and the one place that enables them
 */
#include <glib/gi18n.h>

#include "hs-window-private.h"
#include "hs-utils-private.h"
#include "hs-annotation-window.h"
#include "hs-compare-view.h"
#include "hs-figure-export.h"
#include "hs-import-dialog.h"
#include "hs-results-window.h"

void
_hs_window_actions_update (HsWindow *self)
{
  gboolean have_instance = self->instance != NULL;
  const char *names[] = { "swap-sides", "reset-prompt", "next-sentence", "previous-sentence",
                          "next-instance", "previous-instance", "search", "compare" };
  GAction *action;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      action = g_action_map_lookup_action (G_ACTION_MAP (self), names[i]);
      g_simple_action_set_enabled (G_SIMPLE_ACTION (action), have_instance || g_str_equal (names[i], "search"));
    }
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "reload");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->dataset_path != NULL && !self->loading);
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "attend");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), _hs_window_attend_possible (self));
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "attend-cancel");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), _hs_window_attend_running (self));
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "export");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->image != NULL);
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "export-figure");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->image != NULL);
  _hs_window_layers_update_actions (self);
  _hs_window_deck_update_actions (self);
}

/* ---- actions ------------------------------------------------------------ */

static void
on_chooser_response (GtkNativeDialog *dialog,
                     int              response,
                     HsWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      const char *format = g_object_get_data (G_OBJECT (dialog), "hs-export");

      if (file != NULL && format == NULL)
        hs_window_open (self, file);
      else if (file != NULL)
        {
          g_autofree char *path = g_file_get_path (file);
          g_autoptr(GError) error = NULL;
          gboolean figure = g_str_equal (format, "figure");

          /* a figure's size choices are remembered before exporting: the
           * choice was the user's either way */
          if (figure && self->settings != NULL)
            hs_figure_export_remember (GTK_FILE_CHOOSER (dialog), self->settings);
          if (path == NULL)
            hs_error_bar_add (self->error_bar, NULL, _("Only local files can be written"));
          else if (figure ? !hs_window_export_figure (self, path, self->settings, &error)
                          : !hs_window_export_to_file (self, path, &error))
            hs_error_bar_add_error (self->error_bar, path, error);
          else
            {
              g_autofree char *dir = g_path_get_dirname (path);
              g_autofree char *done = g_strdup_printf (_("Exported %s"), path);
              if (self->settings != NULL)
                g_settings_set_string (self->settings, "last-export-folder", dir);
              gtk_label_set_text (self->status_label, done);
            }
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->chooser);
}

static GtkFileFilter *
new_filter (const char         *name,
            const char * const *suffixes,
            const char * const *types)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  for (guint i = 0; suffixes != NULL && suffixes[i] != NULL; i++)
    gtk_file_filter_add_suffix (filter, suffixes[i]);
  for (guint i = 0; types != NULL && types[i] != NULL; i++)
    gtk_file_filter_add_mime_type (filter, types[i]);
  return filter;
}

static void
add_filter (GtkFileChooser *chooser,
            GtkFileFilter  *filter)
{
  gtk_file_chooser_add_filter (chooser, filter);
  g_object_unref (filter);
}

/* win.open: a dataset's heatscope.json or a single PNG, JPEG or DICOM image
 * (a one-instance dataset, see hs-window-dataset.c); win.open-folder: a
 * dataset folder. */
static void
open_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  static const char * const image_suffixes[] = { "png", "jpg", "jpeg", "dcm", "dicom", NULL };
  static const char * const image_types[] = { "image/png", "image/jpeg", "application/dicom", NULL };
  static const char * const manifest[] = { "json", NULL };
  static const char * const all_suffixes[] = { "json", "png", "jpg", "jpeg", "dcm", "dicom", NULL };
  HsWindow *self = user_data;
  gboolean folder = g_str_equal (g_action_get_name (G_ACTION (action)), "open-folder");
  GtkFileChooser *chooser;

  if (self->chooser != NULL)
    return;
  self->chooser = gtk_file_chooser_native_new (folder ? _("Open Dataset Folder") : _("Open Dataset or Image"),
                                               GTK_WINDOW (self),
                                               folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
                                                      : GTK_FILE_CHOOSER_ACTION_OPEN,
                                               _("_Open"), _("_Cancel"));
  chooser = GTK_FILE_CHOOSER (self->chooser);
  if (!folder)
    {
      /* DICOM files often have no suffix: "All files" too. */
      add_filter (chooser, new_filter (_("Datasets and images"), all_suffixes, image_types));
      add_filter (chooser, new_filter (_("Images (PNG, JPEG, DICOM)"), image_suffixes, image_types));
      add_filter (chooser, new_filter (_("Dataset manifests (heatscope.json)"), manifest, NULL));
      {
        GtkFileFilter *all = gtk_file_filter_new ();

        gtk_file_filter_set_name (all, _("All files"));
        gtk_file_filter_add_pattern (all, "*");
        add_filter (chooser, all);
      }
    }
  _hs_file_chooser_show (self->chooser, G_CALLBACK (on_chooser_response), self);
}

static void
reload_action (GSimpleAction *action,
               GVariant      *parameter,
               gpointer       user_data)
{
  HsWindow *self = user_data;
  g_autoptr(GFile) file = NULL;

  if (self->dataset_path == NULL)
    return;
  file = g_file_new_for_path (self->dataset_path);
  hs_window_open (self, file);
}

static void
export_action (GSimpleAction *action,
               GVariant      *parameter,
               gpointer       user_data)
{
  HsWindow *self = user_data;
  const char *format = g_variant_get_string (parameter, NULL);
  g_autofree char *name = NULL;
  g_autofree char *folder = NULL;

  if (!g_str_equal (format, "png") && !g_str_equal (format, "svg") && !g_str_equal (format, "pdf"))
    return;
  if (self->chooser != NULL || self->instance == NULL)
    return;

  self->chooser = gtk_file_chooser_native_new (_("Export View"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_SAVE,
                                               _("_Export"), _("_Cancel"));
  g_object_set_data_full (G_OBJECT (self->chooser), "hs-export", g_strdup (format), g_free);
  name = g_strdup_printf ("%s.%s", self->instance->id, format);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), name);
  if (self->settings != NULL)
    folder = g_settings_get_string (self->settings, "last-export-folder");
  if (folder != NULL && *folder != '\0' && g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GFile) dir = g_file_new_for_path (folder);
      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (self->chooser), dir, NULL);
    }
  _hs_file_chooser_add_suffix (GTK_FILE_CHOOSER (self->chooser),
                               g_str_equal (format, "png") ? _("PNG images")
                               : g_str_equal (format, "svg") ? _("SVG images")
                               : _("PDF documents"), format);
  _hs_file_chooser_show (self->chooser, G_CALLBACK (on_chooser_response), self);
}

/* win.export-figure: the current view as a publication figure, its size
 * chosen in the dialog and remembered (hs-figure-export.c). */
static void
export_figure_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  HsWindow *self = user_data;
  g_autofree char *name = NULL;

  if (self->chooser != NULL || self->instance == NULL || self->settings == NULL)
    return;
  name = g_strdup_printf ("%s-figure.pdf", self->instance->id);
  self->chooser = hs_figure_export_chooser_new (GTK_WINDOW (self), _("Export Figure"), name,
                                                self->settings);
  g_object_set_data_full (G_OBJECT (self->chooser), "hs-export", g_strdup ("figure"), g_free);
  _hs_file_chooser_show (self->chooser, G_CALLBACK (on_chooser_response), self);
}

static void
search_action (GSimpleAction *action,
               GVariant      *parameter,
               gpointer       user_data)
{
  hs_instance_browser_focus_search (HS_WINDOW (user_data)->browser);
}

/* next-/previous- instance and sentence. */
static void
step_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  HsWindow *self = user_data;
  const char *name = g_action_get_name (G_ACTION (action));
  int step = g_str_has_prefix (name, "next-") ? 1 : -1;

  if (g_str_has_suffix (name, "-instance"))
    hs_instance_browser_select_relative (self->browser, step);
  else
    hs_prompt_panel_select_relative (self->prompt_panel, step);
}

static void
swap_sides_action (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  hs_prompt_panel_swap_sides (HS_WINDOW (user_data)->prompt_panel);
}

static void
reset_prompt_action (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  gtk_widget_activate_action (GTK_WIDGET (HS_WINDOW (user_data)->prompt_panel), "prompt.reset", NULL);
}

gboolean
_hs_window_load_compare (HsWindow       *self,
                         HsCompareView  *view,
                         gboolean        grid,
                         GError        **error)
{
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);
  /* The decoded radiograph, unless the next instance's is still loading,
   * with its file's stamp from before its decode. */
  HsImage *image = self->image_cancellable == NULL ? self->image : NULL;
  const HsFileStamp *image_stamp = image != NULL ? self->image_stamp : NULL;

  if (self->dataset == NULL || self->instance == NULL || sentence == NULL)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Select a report sentence to compare"));
      return FALSE;
    }
  hs_compare_view_set_base_state (view, HS_VIEW_STATE (self->view_state));
  if (grid)
    {
      /* The precomputed models and every live one. */
      g_autoptr(GPtrArray) live_models = g_ptr_array_new ();   /* borrowed names */

      for (guint i = 0; i < self->live_names->len; i++)
        g_ptr_array_add (live_models, g_ptr_array_index (self->live_names, i));
      g_ptr_array_add (live_models, NULL);
      return hs_compare_view_load_grid_live (view, self->dataset, self->instance, sentence, image,
                                             image_stamp, self->live, (const char * const *) live_models->pdata,
                                             error);
    }
  if (self->live_model != NULL)
    return hs_compare_view_load_live (view, self->dataset, self->instance, sentence, image,
                                      image_stamp, self->live, self->live_model, error);
  return hs_compare_view_load (view, self->dataset, self->instance, sentence, self->model, error);
}

GtkWindow *
_hs_window_open_compare (HsWindow *self,
                         gboolean  grid)
{
  g_autoptr(GError) error = NULL;
  GtkWindow *window;

  if (self->dataset == NULL || self->instance == NULL ||
      hs_prompt_panel_get_sentence (self->prompt_panel) == NULL)
    return NULL;
  window = hs_compare_window_new (GTK_WINDOW (self));
  if (!_hs_window_load_compare (self, hs_compare_window_get_view (window), grid, &error))
    {
      hs_error_bar_add_error (self->error_bar, NULL, error);
      gtk_window_destroy (window);
      return NULL;
    }
  _hs_window_deck_watch_compare (self, window, grid);
  gtk_window_present (window);
  return window;
}

static void
compare_action (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  _hs_window_open_compare (HS_WINDOW (user_data),
                           g_str_equal (g_variant_get_string (parameter, NULL), "grid"));
}

static void
annotate_action (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  GtkWidget *window = hs_annotation_window_new (GTK_WINDOW (user_data));

  gtk_window_present (GTK_WINDOW (window));
}

void
_hs_window_results_sync (HsWindow *self)
{
  if (self->results_window == NULL)
    return;
  /* A dataset still being read would give a table of its first instances. */
  hs_results_window_set_dataset (HS_RESULTS_WINDOW (self->results_window),
                                 self->dataset != NULL && hs_dataset_is_complete (self->dataset)
                                   ? self->dataset : NULL);
}

void
_hs_window_results_invalidate (HsWindow *self)
{
  if (self->results_window == NULL)
    return;
  hs_results_window_set_dataset (HS_RESULTS_WINDOW (self->results_window), NULL);
  _hs_window_results_sync (self);
}

/* win.results: the table of every (instance, sentence, model), kept (and
 * its rows cached) when closed. */
static void
results_action (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  HsWindow *self = user_data;

  if (self->results_window == NULL)
    {
      self->results_window = GTK_WIDGET (hs_results_window_new (self));
      g_object_add_weak_pointer (G_OBJECT (self->results_window), (gpointer *) &self->results_window);
    }
  _hs_window_results_sync (self);
  gtk_window_present (GTK_WINDOW (self->results_window));
}

static void
import_open (GtkWindow *window,
             GFile     *folder)
{
  hs_window_open (HS_WINDOW (window), folder);
}

static const GActionEntry win_actions[] = {
  { .name = "compare", .activate = compare_action, .parameter_type = "s" },
  { .name = "annotate", .activate = annotate_action },
  { .name = "results", .activate = results_action },
  { .name = "attend", .activate = _hs_window_attend_action },
  { .name = "attend-cancel", .activate = _hs_window_attend_cancel_action },
  { .name = "open", .activate = open_action },
  { .name = "open-folder", .activate = open_action },
  { .name = "reload", .activate = reload_action },
  { .name = "export", .activate = export_action, .parameter_type = "s" },
  { .name = "export-figure", .activate = export_figure_action },
  { .name = "search", .activate = search_action },
  { .name = "next-instance", .activate = step_action },
  { .name = "previous-instance", .activate = step_action },
  { .name = "next-sentence", .activate = step_action },
  { .name = "previous-sentence", .activate = step_action },
  { .name = "swap-sides", .activate = swap_sides_action },
  { .name = "reset-prompt", .activate = reset_prompt_action },
};

void
_hs_window_actions_init (HsWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_actions, G_N_ELEMENTS (win_actions), self);
  hs_import_dialog_add_action (GTK_APPLICATION_WINDOW (self), import_open);
}

/* Ctrl+H: the heatmap off shows the anatomy under it (the overlay and
 * layers panels' checks follow the same property). */
void
_hs_window_actions_init_view (HsWindow *self)
{
  g_autoptr(GPropertyAction) heatmap = g_property_action_new ("toggle-heatmap", self->view_state,
                                                              "show-overlay");

  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (heatmap));
}
