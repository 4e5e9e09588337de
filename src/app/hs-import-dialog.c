/* hs-import-dialog.c — File → Import: a public format into a new dataset */
#include <glib/gi18n.h>
#include <string.h>

#include "hs-import-dialog.h"
#include "hs-window.h"

/* Skipped rows listed; the status line says how many there are in all. */
#define MAX_SHOWN 1000

struct _HsImportDialog
{
  GtkWindow        parent_instance;

  GtkButton       *cancel_button;
  GtkButton       *import_button;
  GtkButton       *open_button;
  GtkDropDown     *format_dropdown;
  GtkLabel        *format_help;
  GtkListBox      *source_list;
  GtkButton       *add_files_button;
  GtkButton       *add_folder_button;
  GtkButton       *clear_sources_button;
  GtkLabel        *output_label;
  GtkEntry        *output_entry;
  GtkButton       *output_button;
  GtkLabel        *extra_label;
  GtkWidget       *extra_box;
  GtkEntry        *extra_entry;
  GtkButton       *extra_button;
  GtkLabel        *modality_label;
  GtkEntry        *modality_entry;
  GtkCheckButton  *force_check;
  GtkProgressBar  *progress_bar;
  GtkLabel        *status_label;
  GtkLabel        *skipped_label;
  GtkWidget       *skipped_scroller;
  GtkListBox      *skipped_view;
  GtkWidget       *form;

  GPtrArray       *sources;        /* of char* */
  GtkStringList   *skipped;
  char            *current_dataset;
  char            *result_folder;  /* output of the last successful import */
  HsImportSummary  summary;
  gboolean         have_summary;
  GError          *error;
  GCancellable    *cancellable;    /* of the running import, NULL when idle */
  GtkNativeDialog *chooser;        /* the file chooser shown, if any */
  guint            pulse_id;
  gboolean         disposed;       /* widgets gone; a running import still reports */

  /* written by the worker's progress callback, read on the main thread */
  GMutex           lock;
  double           fraction;
  char            *what;
  gboolean         update_queued;
};

G_DEFINE_FINAL_TYPE (HsImportDialog, hs_import_dialog, GTK_TYPE_WINDOW)

enum { PROP_0, PROP_RUNNING, N_PROPS };
enum { SIGNAL_FINISHED, SIGNAL_OPEN_DATASET, N_SIGNALS };
static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* What each format takes, in the order of hs_import_list_formats(). */
static const struct
{
  const char *format;
  const char *help;
  const char *extra;        /* label of the optional file, NULL when none */
  gboolean    attach;       /* output is an existing dataset */
} format_info[] = {
  { "covid-seg", N_("The COVID-19 segmentation folder (structure.csv, metadata.csv, images, masks). "
                    "Classes become targets, notes become sentences."),
    N_("Sentence _links (CSV)"), FALSE },
  { "coco", N_("annotations.json, then optionally the image folder (default: images/ beside it). "
               "Boxes, polygons and RLE masks."), NULL, FALSE },
  { "yolo", N_("The folder of images and YOLO .txt labels (labels/ beside images/ works too)."),
    N_("C_lass names (optional)"), FALSE },
  { "nih-bbox", N_("BBox_List_2017.csv, then optionally the image folder."), NULL, FALSE },
  { "ms-cxr", N_("The MS-CXR CSV, then optionally the root its 'path' column is relative to."),
    NULL, FALSE },
  { "chexlocalize", N_("gt_annotations_*.json or gt_segmentations_*.json, then optionally the "
                       "CheXpert root (valid/, test/). Saliency pickles: convert them with "
                       "tools/convert-chexlocalize-maps, then import them with npy-folder."),
    NULL, FALSE },
  { "imagenome", N_("The gold TSV, a scene-graph JSON or a folder of them, then optionally the "
                    "image folder (<image_id>.jpg)."), NULL, FALSE },
  { "npy-folder", N_("A folder of <instance>__<model>__<query-id>.npy maps, attached to the "
                     "dataset in the output folder."), NULL, TRUE },
  { "vindr-cxr", N_("VinDr-CXR annotations CSV, then optionally the image folder (DICOM or PNG). "
                    "Each radiologist's boxes stay a region of their own."), NULL, FALSE },
  { "rsna-pneumonia", N_("RSNA Pneumonia stage_2_train_labels.csv, then optionally the image folder."),
    NULL, FALSE },
  { "siim-acr", N_("SIIM-ACR Pneumothorax train-rle.csv, then optionally the image folder "
                   "(searched recursively)."), NULL, FALSE },
  { "chestx-det", N_("ChestX-Det or ChestX-Det10 JSON, then optionally the image folder."), NULL, FALSE },
  { "voc", N_("A folder of Pascal VOC .xml files (or one), then optionally the image folder "
              "(default: JPEGImages/ beside it)."), NULL, FALSE },
};

static guint
format_index (const char *format)
{
  for (guint i = 0; i < G_N_ELEMENTS (format_info); i++)
    if (g_strcmp0 (format_info[i].format, format) == 0)
      return i;
  return G_MAXUINT;
}

const char *
hs_import_dialog_get_format (HsImportDialog *self)
{
  GtkStringObject *item;

  g_return_val_if_fail (HS_IS_IMPORT_DIALOG (self), NULL);
  item = gtk_drop_down_get_selected_item (self->format_dropdown);
  return item != NULL ? gtk_string_object_get_string (item) : NULL;
}

static gboolean
is_running (HsImportDialog *self)
{
  return self->cancellable != NULL;
}

static void
update_sensitivity (HsImportDialog *self)
{
  const char *output = gtk_editable_get_text (GTK_EDITABLE (self->output_entry));
  gboolean running = is_running (self);

  gtk_widget_set_sensitive (self->form, !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->import_button),
                            !running && self->sources->len > 0 && *output != '\0');
  gtk_button_set_label (self->cancel_button, running ? _("_Stop") : _("_Close"));
}

static void
update_format (HsImportDialog *self)
{
  guint i = format_index (hs_import_dialog_get_format (self));

  if (i == G_MAXUINT)
    return;
  gtk_label_set_text (self->format_help, _(format_info[i].help));
  gtk_widget_set_visible (GTK_WIDGET (self->extra_label), format_info[i].extra != NULL);
  gtk_widget_set_visible (self->extra_box, format_info[i].extra != NULL);
  if (format_info[i].extra != NULL)
    gtk_label_set_text_with_mnemonic (self->extra_label, _(format_info[i].extra));
  gtk_label_set_text_with_mnemonic (self->output_label,
                                    format_info[i].attach ? _("Add to _dataset") : _("O_utput folder"));
  gtk_widget_set_visible (GTK_WIDGET (self->force_check), !format_info[i].attach);
  /* npy-folder writes no instances: no modality to record */
  gtk_widget_set_visible (GTK_WIDGET (self->modality_label), !format_info[i].attach);
  gtk_widget_set_visible (GTK_WIDGET (self->modality_entry), !format_info[i].attach);
  if (format_info[i].attach && self->current_dataset != NULL &&
      *gtk_editable_get_text (GTK_EDITABLE (self->output_entry)) == '\0')
    gtk_editable_set_text (GTK_EDITABLE (self->output_entry), self->current_dataset);
}

static void
on_format_changed (HsImportDialog *self)
{
  update_format (self);
}

/* ---- sources ------------------------------------------------------------ */

static void on_remove_source (GtkButton *button, HsImportDialog *self);

static void
rebuild_sources (HsImportDialog *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->source_list))) != NULL)
    gtk_list_box_remove (self->source_list, child);
  for (guint i = 0; i < self->sources->len; i++)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *label = gtk_label_new (g_ptr_array_index (self->sources, i));
      GtkWidget *remove = gtk_button_new_from_icon_name ("list-remove-symbolic");

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_START);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_set_tooltip_text (label, g_ptr_array_index (self->sources, i));
      gtk_widget_set_tooltip_text (remove, _("Remove this source"));
      gtk_widget_add_css_class (remove, "flat");
      g_object_set_data (G_OBJECT (remove), "index", GUINT_TO_POINTER (i));
      g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_source), self);
      gtk_widget_set_margin_start (box, 6);
      gtk_box_append (GTK_BOX (box), label);
      gtk_box_append (GTK_BOX (box), remove);
      gtk_list_box_append (self->source_list, box);
    }
  update_sensitivity (self);
}

static void
on_remove_source (GtkButton *button, HsImportDialog *self)
{
  guint i = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "index"));

  if (i < self->sources->len)
    g_ptr_array_remove_index (self->sources, i);
  rebuild_sources (self);
}

void
hs_import_dialog_add_source (HsImportDialog *self, const char *path)
{
  g_return_if_fail (HS_IS_IMPORT_DIALOG (self));
  g_return_if_fail (path != NULL);

  for (guint i = 0; i < self->sources->len; i++)
    if (strcmp (g_ptr_array_index (self->sources, i), path) == 0)
      return;
  g_ptr_array_add (self->sources, g_strdup (path));
  rebuild_sources (self);
}

void
hs_import_dialog_set_sources (HsImportDialog *self, const char * const *paths)
{
  g_return_if_fail (HS_IS_IMPORT_DIALOG (self));

  g_ptr_array_set_size (self->sources, 0);
  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    g_ptr_array_add (self->sources, g_strdup (paths[i]));
  rebuild_sources (self);
}

/* ---- file choosers (GTK 4.8: GtkFileChooserNative) ---------------------- */

typedef enum { CHOOSE_FILES, CHOOSE_FOLDER, CHOOSE_OUTPUT, CHOOSE_EXTRA } ChooseWhat;

static void
on_chooser_response (GtkNativeDialog *dialog, int response, HsImportDialog *self)
{
  ChooseWhat what = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "what"));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (chooser);

      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);
          g_autofree char *path = g_file_get_path (file);

          if (path == NULL)
            continue;
          if (what == CHOOSE_OUTPUT)
            gtk_editable_set_text (GTK_EDITABLE (self->output_entry), path);
          else if (what == CHOOSE_EXTRA)
            gtk_editable_set_text (GTK_EDITABLE (self->extra_entry), path);
          else
            hs_import_dialog_add_source (self, path);
        }
    }
  g_clear_object (&self->chooser);
}

static void
choose (HsImportDialog *self, ChooseWhat what)
{
  static const char *titles[] = {
    N_("Add Source Files"), N_("Add Source Folder"), N_("Output Folder"), N_("Choose File"),
  };
  GtkFileChooserAction action = what == CHOOSE_FILES || what == CHOOSE_EXTRA
                                ? GTK_FILE_CHOOSER_ACTION_OPEN : GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER;
  GtkFileChooserNative *native;

  if (self->chooser != NULL)
    gtk_native_dialog_destroy (self->chooser);
  g_clear_object (&self->chooser);
  native = gtk_file_chooser_native_new (_(titles[what]), GTK_WINDOW (self), action,
                                        what == CHOOSE_OUTPUT ? _("_Select") : _("_Add"),
                                        _("_Cancel"));
  if (what == CHOOSE_EXTRA)
    gtk_native_dialog_set_title (GTK_NATIVE_DIALOG (native), _(titles[what]));
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (native), what == CHOOSE_FILES);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_object_set_data (G_OBJECT (native), "what", GINT_TO_POINTER (what));
  g_signal_connect (native, "response", G_CALLBACK (on_chooser_response), self);
  self->chooser = GTK_NATIVE_DIALOG (native);
  gtk_native_dialog_show (self->chooser);
}

static void on_add_files (HsImportDialog *self) { choose (self, CHOOSE_FILES); }
static void on_add_folder (HsImportDialog *self) { choose (self, CHOOSE_FOLDER); }
static void on_choose_output (HsImportDialog *self) { choose (self, CHOOSE_OUTPUT); }
static void on_choose_extra (HsImportDialog *self) { choose (self, CHOOSE_EXTRA); }

static void
on_clear_sources (HsImportDialog *self)
{
  hs_import_dialog_set_sources (self, NULL);
}

/* ---- the worker --------------------------------------------------------- */

typedef struct
{
  char            *format;
  GStrv            sources;
  char            *output;
  char            *extra;
  char            *modality;       /* NULL: what the source says */
  gboolean         force;
  HsImportDialog  *dialog;    /* a reference, for the progress callback */
  HsImportSummary  summary;
} ImportJob;

static void
import_job_free (ImportJob *job)
{
  g_free (job->format);
  g_strfreev (job->sources);
  g_free (job->output);
  g_free (job->extra);
  g_free (job->modality);
  hs_import_summary_clear (&job->summary);
  g_clear_object (&job->dialog);
  g_free (job);
}

static gboolean
apply_progress (gpointer data)
{
  HsImportDialog *self = data;
  g_autofree char *what = NULL;
  double fraction;

  g_mutex_lock (&self->lock);
  fraction = self->fraction;
  what = g_steal_pointer (&self->what);
  self->update_queued = FALSE;
  g_mutex_unlock (&self->lock);

  if (is_running (self) && !self->disposed)
    {
      if (fraction >= 0)
        {
          g_autofree char *text = g_strdup_printf ("%.0f %%", 100 * fraction);
          g_clear_handle_id (&self->pulse_id, g_source_remove);
          gtk_progress_bar_set_fraction (self->progress_bar, fraction);
          gtk_progress_bar_set_text (self->progress_bar, text);
        }
      else
        {
          gtk_progress_bar_pulse (self->progress_bar);
          gtk_progress_bar_set_text (self->progress_bar, _("Reading rows…"));
        }
      if (what != NULL)
        gtk_label_set_text (self->status_label, what);
    }
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

/* Worker thread: keeps the latest report, the main loop shows it. */
static void
on_progress (double fraction, const char *what, gpointer user_data)
{
  HsImportDialog *self = user_data;
  gboolean queue;

  g_mutex_lock (&self->lock);
  self->fraction = fraction;
  if (what != NULL)
    {
      g_free (self->what);
      self->what = g_strdup (what);
    }
  queue = !self->update_queued;
  self->update_queued = TRUE;
  g_mutex_unlock (&self->lock);
  if (queue)
    g_main_context_invoke (NULL, apply_progress, g_object_ref (self));
}

static void
import_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  ImportJob *job = task_data;
  HsImportOptions options = { 0 };
  GError *error = NULL;
  HsDataset *dataset;

  options.force = job->force;
  options.modality = job->modality;
  if (job->extra != NULL && strcmp (job->format, "covid-seg") == 0)
    options.links = job->extra;
  else if (job->extra != NULL && strcmp (job->format, "yolo") == 0)
    options.classes = job->extra;
  options.progress = on_progress;
  options.progress_data = job->dialog;
  options.cancellable = cancellable;
  dataset = hs_import (job->format, (const char * const *) job->sources, job->output, &options,
                       &job->summary, &error);
  if (dataset == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  hs_dataset_unref (dataset);
  g_task_return_boolean (task, TRUE);
}

static void
show_status (HsImportDialog *self, const char *text)
{
  gtk_label_set_text (self->status_label, text);
}

static void
on_import_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  HsImportDialog *self = HS_IMPORT_DIALOG (object);
  ImportJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->pulse_id, g_source_remove);
  hs_import_summary_clear (&self->summary);
  self->have_summary = FALSE;
  g_clear_error (&self->error);
  if (self->disposed)
    {
      /* closed while importing: nobody to show the result to */
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
      return;
    }

  /* skipped rows are shown even when the import failed later on */
  if (job->summary.skipped != NULL)
    for (guint i = 0; i < job->summary.skipped->len; i++)
      {
        g_autofree char *line = hs_import_skip_to_string (g_ptr_array_index (job->summary.skipped, i));
        gtk_string_list_append (self->skipped, line);
      }
  gtk_widget_set_visible (GTK_WIDGET (self->skipped_label), g_list_model_get_n_items (G_LIST_MODEL (self->skipped)) > 0);
  gtk_widget_set_visible (self->skipped_scroller, g_list_model_get_n_items (G_LIST_MODEL (self->skipped)) > 0);

  if (ok)
    {
      g_autofree char *text = NULL;
      g_autofree char *counts = NULL;

      self->summary = job->summary;
      memset (&job->summary, 0, sizeof job->summary);
      self->have_summary = TRUE;
      g_free (self->result_folder);
      self->result_folder = g_strdup (job->output);
      gtk_progress_bar_set_fraction (self->progress_bar, 1.0);
      gtk_progress_bar_set_text (self->progress_bar, "100 %");
      if (strcmp (job->format, "npy-folder") == 0)
        counts = g_strdup_printf (g_dngettext (NULL, "%u map attached", "%u maps attached",
                                               self->summary.n_maps), self->summary.n_maps);
      else
        counts = g_strdup_printf (_("%u instances, %u sentences, %u targets"),
                                  self->summary.n_instances, self->summary.n_sentences,
                                  self->summary.n_targets);
      text = g_strdup_printf (g_dngettext (NULL, "Imported %s; %u row skipped → %s",
                                           "Imported %s; %u rows skipped → %s",
                                           self->summary.skipped->len),
                              counts, self->summary.skipped->len, job->output);
      if (self->summary.skipped->len > MAX_SHOWN)
        {
          g_autofree char *more = g_strdup_printf (_("%s (the first %u are listed)"), text, MAX_SHOWN);
          g_free (text);
          text = g_steal_pointer (&more);
        }
      show_status (self, text);
      gtk_widget_set_visible (GTK_WIDGET (self->open_button), TRUE);
      gtk_widget_set_visible (GTK_WIDGET (self->import_button), FALSE);
    }
  else
    {
      g_autofree char *text = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        text = g_strdup_printf (_("Import stopped; files already copied stay in %s"), job->output);
      else
        text = g_strdup_printf (_("Import failed: %s"), error->message);
      show_status (self, text);
      gtk_progress_bar_set_text (self->progress_bar, _("Not imported"));
      self->error = g_steal_pointer (&error);
    }
  update_sensitivity (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  g_signal_emit (self, signals[SIGNAL_FINISHED], 0, ok);
}

gboolean
hs_import_dialog_start (HsImportDialog *self)
{
  g_autoptr(GTask) task = NULL;
  const char *format, *output, *extra, *modality;
  ImportJob *job;

  g_return_val_if_fail (HS_IS_IMPORT_DIALOG (self), FALSE);

  if (is_running (self) || self->disposed)
    return FALSE;
  format = hs_import_dialog_get_format (self);
  output = gtk_editable_get_text (GTK_EDITABLE (self->output_entry));
  extra = gtk_editable_get_text (GTK_EDITABLE (self->extra_entry));
  modality = gtk_widget_get_visible (GTK_WIDGET (self->modality_entry))
             ? gtk_editable_get_text (GTK_EDITABLE (self->modality_entry)) : "";
  if (format == NULL || self->sources->len == 0)
    {
      show_status (self, _("Add the source files or folders to import"));
      return FALSE;
    }
  if (*output == '\0')
    {
      show_status (self, _("Choose the output folder"));
      return FALSE;
    }
  if (*modality != '\0')
    {
      g_autoptr(GError) error = NULL;

      if (!hs_import_check_modality (format, modality, &error))
        {
          g_autofree char *text = g_strdup_printf (_("Modality %s"), error->message);

          show_status (self, text);
          return FALSE;
        }
    }

  job = g_new0 (ImportJob, 1);
  job->format = g_strdup (format);
  job->sources = g_new0 (char *, self->sources->len + 1);
  for (guint i = 0; i < self->sources->len; i++)
    job->sources[i] = g_strdup (g_ptr_array_index (self->sources, i));
  job->output = g_strdup (output);
  job->extra = *extra != '\0' && gtk_widget_get_visible (self->extra_box) ? g_strdup (extra) : NULL;
  job->modality = *modality != '\0' ? g_strdup (modality) : NULL;
  job->force = gtk_check_button_get_active (self->force_check);
  job->dialog = g_object_ref (self);

  gtk_string_list_splice (self->skipped, 0, g_list_model_get_n_items (G_LIST_MODEL (self->skipped)), NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->skipped_label), FALSE);
  gtk_widget_set_visible (self->skipped_scroller, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->open_button), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->import_button), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), TRUE);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_progress_bar_set_text (self->progress_bar, _("Starting…"));
  show_status (self, _("Importing…"));

  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, on_import_done, NULL);
  g_task_set_source_tag (task, hs_import_dialog_start);
  g_task_set_task_data (task, job, (GDestroyNotify) import_job_free);
  g_task_set_return_on_cancel (task, FALSE);
  /* report what happened: an import that finished before the Stop is done */
  g_task_set_check_cancellable (task, FALSE);
  g_task_run_in_thread (task, import_thread);
  update_sensitivity (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  return TRUE;
}

void
hs_import_dialog_cancel (HsImportDialog *self)
{
  g_return_if_fail (HS_IS_IMPORT_DIALOG (self));

  if (self->cancellable != NULL)
    {
      g_cancellable_cancel (self->cancellable);
      if (!self->disposed)
        show_status (self, _("Stopping…"));
    }
}

static void
on_import_clicked (HsImportDialog *self)
{
  hs_import_dialog_start (self);
}

static void
on_cancel_clicked (HsImportDialog *self)
{
  if (is_running (self))
    hs_import_dialog_cancel (self);
  else
    gtk_window_close (GTK_WINDOW (self));
}

void
hs_import_dialog_open_result (HsImportDialog *self)
{
  g_autoptr(GFile) folder = NULL;

  g_return_if_fail (HS_IS_IMPORT_DIALOG (self));

  if (self->result_folder == NULL || is_running (self))
    return;
  folder = g_file_new_for_path (self->result_folder);
  g_signal_emit (self, signals[SIGNAL_OPEN_DATASET], 0, folder);
  gtk_window_close (GTK_WINDOW (self));
}

static void
on_open_clicked (HsImportDialog *self)
{
  hs_import_dialog_open_result (self);
}

static gboolean
on_close_request (GtkWindow *window)
{
  HsImportDialog *self = HS_IMPORT_DIALOG (window);

  /* closing stops the import; the task keeps the dialog alive until then */
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  return FALSE;
}

/* ---- accessors ---------------------------------------------------------- */

gboolean
hs_import_dialog_set_format (HsImportDialog *self, const char *format)
{
  guint i;

  g_return_val_if_fail (HS_IS_IMPORT_DIALOG (self), FALSE);

  i = format_index (format);
  if (i == G_MAXUINT)
    return FALSE;
  gtk_drop_down_set_selected (self->format_dropdown, i);
  return TRUE;
}

void
hs_import_dialog_set_output (HsImportDialog *self, const char *path)
{
  g_return_if_fail (HS_IS_IMPORT_DIALOG (self));
  gtk_editable_set_text (GTK_EDITABLE (self->output_entry), path != NULL ? path : "");
}

void
hs_import_dialog_set_extra (HsImportDialog *self, const char *path)
{
  g_return_if_fail (HS_IS_IMPORT_DIALOG (self));
  gtk_editable_set_text (GTK_EDITABLE (self->extra_entry), path != NULL ? path : "");
}

void
hs_import_dialog_set_modality (HsImportDialog *self, const char *modality)
{
  g_return_if_fail (HS_IS_IMPORT_DIALOG (self));
  gtk_editable_set_text (GTK_EDITABLE (self->modality_entry), modality != NULL ? modality : "");
}

void
hs_import_dialog_set_force (HsImportDialog *self, gboolean force)
{
  g_return_if_fail (HS_IS_IMPORT_DIALOG (self));
  gtk_check_button_set_active (self->force_check, force);
}

void
hs_import_dialog_set_current_dataset (HsImportDialog *self, const char *root)
{
  g_return_if_fail (HS_IS_IMPORT_DIALOG (self));
  g_free (self->current_dataset);
  self->current_dataset = g_strdup (root);
  update_format (self);
}

gboolean
hs_import_dialog_get_running (HsImportDialog *self)
{
  g_return_val_if_fail (HS_IS_IMPORT_DIALOG (self), FALSE);
  return is_running (self);
}

const HsImportSummary *
hs_import_dialog_get_summary (HsImportDialog *self)
{
  g_return_val_if_fail (HS_IS_IMPORT_DIALOG (self), NULL);
  return self->have_summary ? &self->summary : NULL;
}

const GError *
hs_import_dialog_get_error (HsImportDialog *self)
{
  g_return_val_if_fail (HS_IS_IMPORT_DIALOG (self), NULL);
  return self->error;
}

GListModel *
hs_import_dialog_get_skipped (HsImportDialog *self)
{
  g_return_val_if_fail (HS_IS_IMPORT_DIALOG (self), NULL);
  return G_LIST_MODEL (self->skipped);
}

const char *
hs_import_dialog_get_status (HsImportDialog *self)
{
  g_return_val_if_fail (HS_IS_IMPORT_DIALOG (self), NULL);
  return gtk_label_get_text (self->status_label);
}

/* ---- object ------------------------------------------------------------- */

/* A list box (not a list view) so long reasons wrap. */
static GtkWidget *
create_skipped_row (gpointer item, gpointer user_data)
{
  GtkWidget *label = gtk_label_new (gtk_string_object_get_string (item));

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_widget_set_margin_start (label, 6);
  gtk_widget_set_margin_end (label, 6);
  return label;
}

static void
hs_import_dialog_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  HsImportDialog *self = HS_IMPORT_DIALOG (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, is_running (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_import_dialog_dispose (GObject *object)
{
  HsImportDialog *self = HS_IMPORT_DIALOG (object);

  self->disposed = TRUE;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (self->chooser);
  g_clear_object (&self->chooser);
  g_clear_handle_id (&self->pulse_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), HS_TYPE_IMPORT_DIALOG);
  G_OBJECT_CLASS (hs_import_dialog_parent_class)->dispose (object);
}

static void
hs_import_dialog_finalize (GObject *object)
{
  HsImportDialog *self = HS_IMPORT_DIALOG (object);

  g_ptr_array_unref (self->sources);
  g_clear_object (&self->skipped);
  g_clear_object (&self->cancellable);
  g_free (self->current_dataset);
  g_free (self->result_folder);
  g_free (self->what);
  hs_import_summary_clear (&self->summary);
  g_clear_error (&self->error);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (hs_import_dialog_parent_class)->finalize (object);
}

static void
hs_import_dialog_class_init (HsImportDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->get_property = hs_import_dialog_get_property;
  object_class->dispose = hs_import_dialog_dispose;
  object_class->finalize = hs_import_dialog_finalize;
  window_class->close_request = on_close_request;

  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* finished (gboolean ok): the import ended (done, failed or stopped). */
  signals[SIGNAL_FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
  /* open-dataset (GFile *folder): the user asked to open the new dataset. */
  signals[SIGNAL_OPEN_DATASET] =
    g_signal_new ("open-dataset", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_FILE);

  /* Escape closes (and so stops a running import) */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heatscope/Heatscope/ui/hs-import-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, import_button);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, open_button);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, format_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, format_help);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, source_list);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, add_files_button);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, add_folder_button);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, clear_sources_button);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, output_label);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, output_entry);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, output_button);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, extra_label);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, extra_box);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, extra_entry);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, extra_button);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, modality_label);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, modality_entry);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, force_check);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, status_label);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, skipped_label);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, skipped_scroller);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, skipped_view);
  gtk_widget_class_bind_template_child (widget_class, HsImportDialog, form);
}

static void
hs_import_dialog_init (HsImportDialog *self)
{
  g_autoptr(GtkStringList) formats = gtk_string_list_new (NULL);
  const char * const *names = hs_import_list_formats ();

  gtk_widget_init_template (GTK_WIDGET (self));
  g_mutex_init (&self->lock);
  self->sources = g_ptr_array_new_with_free_func (g_free);
  self->skipped = gtk_string_list_new (NULL);

  /* the importers' list, described in the order of format_info */
  for (guint i = 0; i < G_N_ELEMENTS (format_info); i++)
    gtk_string_list_append (formats, format_info[i].format);
  for (guint i = 0; names[i] != NULL; i++)
    if (format_index (names[i]) == G_MAXUINT)
      gtk_string_list_append (formats, names[i]);
  gtk_drop_down_set_model (self->format_dropdown, G_LIST_MODEL (formats));

  {
    g_autoptr(GtkSliceListModel) shown =
      gtk_slice_list_model_new (G_LIST_MODEL (g_object_ref (self->skipped)), 0, MAX_SHOWN);
    gtk_list_box_bind_model (self->skipped_view, G_LIST_MODEL (shown), create_skipped_row, NULL, NULL);
  }

  g_signal_connect_swapped (self->format_dropdown, "notify::selected", G_CALLBACK (on_format_changed), self);
  g_signal_connect_swapped (self->add_files_button, "clicked", G_CALLBACK (on_add_files), self);
  g_signal_connect_swapped (self->add_folder_button, "clicked", G_CALLBACK (on_add_folder), self);
  g_signal_connect_swapped (self->clear_sources_button, "clicked", G_CALLBACK (on_clear_sources), self);
  g_signal_connect_swapped (self->output_button, "clicked", G_CALLBACK (on_choose_output), self);
  g_signal_connect_swapped (self->extra_button, "clicked", G_CALLBACK (on_choose_extra), self);
  g_signal_connect_swapped (self->output_entry, "changed", G_CALLBACK (update_sensitivity), self);
  g_signal_connect_swapped (self->import_button, "clicked", G_CALLBACK (on_import_clicked), self);
  g_signal_connect_swapped (self->cancel_button, "clicked", G_CALLBACK (on_cancel_clicked), self);
  g_signal_connect_swapped (self->open_button, "clicked", G_CALLBACK (on_open_clicked), self);

  gtk_window_set_default_widget (GTK_WINDOW (self), GTK_WIDGET (self->import_button));
  gtk_entry_set_activates_default (self->output_entry, TRUE);
  gtk_entry_set_activates_default (self->extra_entry, TRUE);
  gtk_entry_set_activates_default (self->modality_entry, TRUE);
  update_format (self);
  update_sensitivity (self);
}

HsImportDialog *
hs_import_dialog_new (GtkWindow *parent)
{
  return g_object_new (HS_TYPE_IMPORT_DIALOG, "transient-for", parent, NULL);
}

/* ---- win.import --------------------------------------------------------- */

static void
on_open_dataset (HsImportDialog *dialog, GFile *folder, GtkWindow *window)
{
  HsImportOpenFunc open = g_object_get_data (G_OBJECT (window), "hs-import-open");

  if (open != NULL)
    open (window, folder);
}

static void
import_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkWindow *window = GTK_WINDOW (user_data);
  HsImportDialog *dialog = hs_import_dialog_new (window);

  if (HS_IS_WINDOW (window) && hs_window_get_dataset (HS_WINDOW (window)) != NULL)
    hs_import_dialog_set_current_dataset (dialog, hs_dataset_get_root (hs_window_get_dataset (HS_WINDOW (window))));
  g_signal_connect_object (dialog, "open-dataset", G_CALLBACK (on_open_dataset), window, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
hs_import_dialog_add_action (GtkApplicationWindow *window, HsImportOpenFunc open)
{
  static const GActionEntry entries[] = {
    { .name = "import", .activate = import_action },
  };

  g_return_if_fail (GTK_IS_APPLICATION_WINDOW (window));

  g_object_set_data (G_OBJECT (window), "hs-import-open", open);
  g_action_map_add_action_entries (G_ACTION_MAP (window), entries, G_N_ELEMENTS (entries), window);
}
