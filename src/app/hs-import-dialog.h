/* hs-import-dialog.h — File → Import: a public format into a new dataset
 *
 * Choose a format (hs_import_list_formats()), its sources and an output
 * folder; the import runs in a worker thread (cancellable) with a progress
 * bar, then the dialog lists the skipped rows (FILE:LINE: reason) and the
 * counts, and offers to open the new dataset ("open-dataset" signal with the
 * output folder as a GFile). */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-import.h>

G_BEGIN_DECLS

#define HS_TYPE_IMPORT_DIALOG (hs_import_dialog_get_type ())
G_DECLARE_FINAL_TYPE (HsImportDialog, hs_import_dialog, HS, IMPORT_DIALOG, GtkWindow)

/* `parent` may be NULL. */
HsImportDialog        *hs_import_dialog_new          (GtkWindow *parent);
/* The dataset open in the window: the default output of npy-folder. */
void                   hs_import_dialog_set_current_dataset (HsImportDialog *self, const char *root);

/* Programmatic use (tests): the same as choosing in the dialog. */
gboolean               hs_import_dialog_set_format   (HsImportDialog *self, const char *format);
const char            *hs_import_dialog_get_format   (HsImportDialog *self);
void                   hs_import_dialog_set_sources  (HsImportDialog *self, const char * const *paths);
void                   hs_import_dialog_add_source   (HsImportDialog *self, const char *path);
void                   hs_import_dialog_set_output   (HsImportDialog *self, const char *path);
/* The covid-seg links CSV or the yolo classes file ("" or NULL: none). */
void                   hs_import_dialog_set_extra    (HsImportDialog *self, const char *path);
/* The modality recorded on every instance ("" or NULL: what the source says). */
void                   hs_import_dialog_set_modality (HsImportDialog *self, const char *modality);
void                   hs_import_dialog_set_force    (HsImportDialog *self, gboolean force);
/* Clicks Import; FALSE (and the reason in the status line) when the form
 * is incomplete. */
gboolean               hs_import_dialog_start        (HsImportDialog *self);
void                   hs_import_dialog_cancel       (HsImportDialog *self);
/* Property "running". */
gboolean               hs_import_dialog_get_running  (HsImportDialog *self);
/* After "finished": the counts (NULL when the import failed) and the error
 * (NULL when it succeeded). */
const HsImportSummary *hs_import_dialog_get_summary  (HsImportDialog *self);
const GError          *hs_import_dialog_get_error    (HsImportDialog *self);
/* The skipped rows as shown, "FILE:LINE: reason". */
GListModel            *hs_import_dialog_get_skipped  (HsImportDialog *self);
const char            *hs_import_dialog_get_status   (HsImportDialog *self);
/* Clicks Open Dataset (only after a successful import). */
void                   hs_import_dialog_open_result  (HsImportDialog *self);

/* Adds the "import" action to `window` (a GtkApplicationWindow): it shows
 * the dialog and, on Open Dataset, calls `open (window, folder)`. */
typedef void (*HsImportOpenFunc) (GtkWindow *window, GFile *folder);
void                   hs_import_dialog_add_action   (GtkApplicationWindow *window, HsImportOpenFunc open);

G_END_DECLS
