/* hs-window-dataset.c — every way a dataset gets into the window: open
 * (small manifests whole, large ones streamed by the browser) or a single
 * image as a one-instance dataset, reload, restore the last one, drag and
 * drop
 */
#include <errno.h>
#include <stdlib.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "hs-window-private.h"
#include "hs-startup-trace.h"

/* ---- datasets ----------------------------------------------------------- */

static void
set_dataset (HsWindow   *self,
             HsDataset  *dataset,
             const char *path)
{
  g_autofree char *last_dataset = NULL;
  g_autofree char *last_instance = NULL;
  guint selected;

  self->instance = NULL;
  self->shown_ref = NULL;
  self->view_instance = NULL;
  _hs_window_cache_clear (self);   /* keyed by the old dataset's paths */
  g_cancellable_cancel (self->image_cancellable);
  g_clear_object (&self->image_cancellable);
  _hs_window_live_cancel (self);
  hs_live_attend_clear (self->live);
  g_clear_pointer (&self->live_key, g_free);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  g_clear_pointer (&self->image, hs_image_unref);
  g_clear_pointer (&self->side_regions, g_ptr_array_unref);   /* borrowed from the old dataset */
  g_clear_pointer (&self->side_masks, g_ptr_array_unref);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  self->dataset = hs_dataset_ref (dataset);
  _hs_window_results_sync (self);
  g_free (self->dataset_path);
  self->dataset_path = g_strdup (path);

  if (self->settings != NULL)
    {
      last_dataset = g_settings_get_string (self->settings, "last-dataset");
      last_instance = g_settings_get_string (self->settings, "last-instance");
      g_settings_set_string (self->settings, "last-dataset", path);
    }

  gtk_label_set_text (self->title_label, hs_dataset_get_name (dataset) != NULL && *hs_dataset_get_name (dataset)
                                         ? hs_dataset_get_name (dataset) : _("Heatscope"));
  gtk_window_set_title (GTK_WINDOW (self), gtk_label_get_text (self->title_label));
  _hs_window_fill_models (self);
  hs_startup_trace ("models-filled");

  /* Fill the browser without showing its auto-selected first row: the
   * remembered instance is shown instead when it belongs to this dataset. */
  self->restoring = TRUE;
  hs_instance_browser_set_dataset (self->browser, dataset);
  g_clear_pointer (&self->pending_instance, g_free);
  if (g_strcmp0 (last_dataset, path) == 0 && last_instance != NULL && *last_instance != '\0' &&
      !hs_instance_browser_select_id (self->browser, last_instance) &&
      !hs_dataset_is_complete (dataset))
    self->pending_instance = g_steal_pointer (&last_instance);   /* shown once it is read */
  self->restoring = FALSE;
  hs_startup_trace ("browser-filled");

  gtk_stack_set_visible_child_name (self->view_stack, "view");
  selected = hs_instance_browser_get_selected (self->browser);
  if (selected != G_MAXUINT)
    _hs_window_show_instance (self, selected);
  else
    {
      hs_prompt_panel_set_instance (self->prompt_panel, NULL, NULL);
      if (hs_dataset_get_n_instances (dataset) == 0)
        hs_error_bar_add (self->error_bar, path, _("The dataset has no instances"));
    }
  _hs_window_actions_update (self);
}

#define LARGE_MANIFEST_BYTES (4 << 20)

static gboolean
manifest_is_large (const char *path)
{
  g_autofree char *manifest = NULL;
  GStatBuf st;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    manifest = g_build_filename (path, HS_DATASET_MANIFEST, NULL);
  else
    manifest = g_strdup (path);
  return g_stat (manifest, &st) == 0 && st.st_size >= LARGE_MANIFEST_BYTES;
}

/* A regular file that is not a .json manifest: opened as a single image. */
static gboolean
is_image_path (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_REGULAR) && !g_str_has_suffix (path, ".json");
}

/* A single PNG, JPEG or DICOM image opens as a one-instance dataset that
 * lives in memory only: its root is the image's folder (the image is read
 * through the dataset's safe open like any other; a symbolic link is
 * followed to the file first) and nothing is ever written, neither next to
 * the image nor anywhere else.  No sentences, no maps: a free prompt and
 * the live models.  Reload and the next start open the image again. */
static HsDataset *
image_dataset (const char *path,
               GError    **error)
{
  g_autofree char *real = realpath (path, NULL);
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  HsDataset *dataset;
  guint width, height;

  if (real == NULL)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path,
                   g_strerror (saved));
      return NULL;
    }
  if (!hs_image_probe (real, &width, &height, error))
    return NULL;
  dir = g_path_get_dirname (real);
  base = g_path_get_basename (real);
  dataset = hs_dataset_new (dir, base);
  hs_dataset_add_instance (dataset, hs_instance_new (base, base));
  return dataset;
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  const char *path = task_data;
  GError *error = NULL;
  HsDataset *dataset;

  /* A large manifest shows its first instance at once and the browser
   * reads the rest in a worker; a small one is read whole (a problem
   * anywhere in it is reported before anything is shown). */
  hs_startup_trace ("load-start");
  if (is_image_path (path))
    dataset = image_dataset (path, &error);
  else if (manifest_is_large (path))
    dataset = hs_dataset_open (path, 1, &error);
  else
    dataset = hs_dataset_load (path, &error);
  hs_startup_trace ("load-end");
  if (dataset == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, dataset, (GDestroyNotify) hs_dataset_unref);
}

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  HsWindow *self = HS_WINDOW (object);
  GTask *task = G_TASK (result);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  const char *path = g_task_get_task_data (task);

  dataset = g_task_propagate_pointer (task, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  _hs_window_set_loading (self, FALSE);
  if (dataset == NULL)
    {
      g_autofree char *message =
        is_image_path (path) ? g_strdup_printf (_("Could not open the image: %s"), error->message)
                             : g_strdup_printf (_("Could not open the dataset: %s"), error->message);
      hs_error_bar_add (self->error_bar, path, message);
      if (self->dataset == NULL)
        gtk_label_set_text (self->empty_title, _("Could Not Open the Dataset"));
      _hs_window_actions_update (self);
      return;
    }
  hs_error_bar_clear (self->error_bar);
  hs_startup_trace ("set-dataset");
  /* Opened by the user (not restored): each image starts in its own
   * window — a DICOM file's Window Center/Width, else the full range. */
  if (self->reset_levels)
    hs_view_state_set_window_level (HS_VIEW_STATE (self->view_state), -1, -1);
  set_dataset (self, dataset, path);
  hs_startup_trace ("set-dataset-end");
}

/* The browser has read the rest of the dataset (or stopped at a problem):
 * models named only by later instances join the model list. */
static void
on_browser_loading (GObject    *object,
                    GParamSpec *pspec,
                    HsWindow   *self)
{
  if (!hs_instance_browser_get_loading (self->browser) && self->dataset != NULL)
    {
      g_auto(GStrv) precomputed = hs_dataset_list_models (self->dataset);
      guint n = g_strv_length (precomputed);
      gboolean same = n == self->n_precomputed;

      hs_startup_trace ("dataset-complete");
      for (guint i = 0; same && i < n; i++)
        same = g_strcmp0 (precomputed[i], gtk_string_list_get_string (self->models, i)) == 0;
      if (!same)
        _hs_window_fill_models (self);
      /* The instance remembered from last time, unless the user has moved on
       * from the first one meanwhile. */
      if (self->pending_instance != NULL && self->instance == hs_dataset_get_instance (self->dataset, 0))
        hs_instance_browser_select_id (self->browser, self->pending_instance);
      g_clear_pointer (&self->pending_instance, g_free);
      _hs_window_results_sync (self);
    }
  _hs_window_update_spinner (self);
  _hs_window_notify (self, PROP_LOADING);
}

static void
on_browser_load_failed (HsInstanceBrowser *browser,
                        GError            *error,
                        HsWindow          *self)
{
  g_autofree char *message =
    g_strdup_printf (_("Only the first %u instances could be read: %s"),
                     hs_dataset_get_n_instances (self->dataset), error->message);

  hs_error_bar_add (self->error_bar, self->dataset_path, message);
}

void
hs_window_open (HsWindow *self,
                GFile    *file)
{
  g_autoptr(GTask) task = NULL;
  char *path;

  g_return_if_fail (HS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);
      hs_error_bar_add (self->error_bar, uri, _("Only local folders can be opened"));
      return;
    }

  /* A dataset is remembered by its folder, however it was opened. */
  {
    g_autofree char *base = g_path_get_basename (path);
    if (g_str_equal (base, HS_DATASET_MANIFEST))
      {
        char *dir = g_path_get_dirname (path);
        g_free (path);
        path = dir;
      }
  }

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->reset_levels = g_strcmp0 (path, self->dataset_path) != 0;   /* not on reload */

  _hs_window_set_loading (self, TRUE);
  _hs_window_actions_update (self);
  task = g_task_new (self, self->cancellable, load_done, NULL);
  g_task_set_source_tag (task, hs_window_open);
  g_task_set_task_data (task, path, g_free);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, load_thread);
}

gboolean
hs_window_restore_last_dataset (HsWindow *self)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);

  if (self->settings == NULL || self->dataset != NULL || self->loading)
    return FALSE;
  path = g_settings_get_string (self->settings, "last-dataset");
  if (*path == '\0' || !g_file_test (path, G_FILE_TEST_EXISTS))
    return FALSE;
  file = g_file_new_for_path (path);
  hs_window_open (self, file);
  self->reset_levels = FALSE;   /* the last session's window/level stays */
  return TRUE;
}


/* ---- drag and drop ------------------------------------------------------ */

/* A dataset folder, its heatscope.json or a single PNG, JPEG or DICOM image;
 * of several files the first. */

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         HsWindow      *self)
{
  GFile *file = NULL;

  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    {
      GSList *files = gdk_file_list_get_files (g_value_get_boxed (value));
      if (files != NULL)
        file = files->data;
      g_slist_free (files);
    }
  else if (G_VALUE_HOLDS (value, G_TYPE_FILE))
    file = g_value_get_object (value);

  if (file == NULL)
    return FALSE;
  hs_window_open (self, file);
  return TRUE;
}


void
_hs_window_dataset_init (HsWindow *self)
{
  GType drop_types[] = { GDK_TYPE_FILE_LIST, G_TYPE_FILE };
  GtkDropTarget *drop;

  g_signal_connect_object (self->browser, "notify::loading", G_CALLBACK (on_browser_loading), self, 0);
  g_signal_connect_object (self->browser, "load-failed", G_CALLBACK (on_browser_load_failed), self, 0);

  drop = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (drop, drop_types, G_N_ELEMENTS (drop_types));
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}
