/* hs-attend-dialog.h — "Compute maps for this dataset…": what to attend
 *
 * The model (a built-in one, a .safetensors file, or the external backend
 * the user set with --backend-exec or the preference — never a command from
 * a dataset), the name the maps get, which queries, which text
 * perturbations, and whether existing maps are recomputed.  Compute hands
 * the choices to hs_window_attend_start, which runs them in the window
 * (progress, Cancel), and closes the dialog.  Template:
 * ui/hs-attend-dialog.ui. */
#pragma once

#include <gtk/gtk.h>

#include "hs-attend-job.h"
#include "hs-window.h"

G_BEGIN_DECLS

#define HS_TYPE_ATTEND_DIALOG (hs_attend_dialog_get_type ())
G_DECLARE_FINAL_TYPE (HsAttendDialog, hs_attend_dialog, HS, ATTEND_DIALOG, GtkWindow)

HsAttendDialog *hs_attend_dialog_new      (HsWindow *window);
/* Puts `spec` into the dialog's controls (a model that is not built in is
 * a model file; a backend command other than the user's is not offered). */
void            hs_attend_dialog_set_spec (HsAttendDialog *self, const HsAttendSpec *spec);
/* The choices as the controls show them; FALSE with a message saying what
 * is missing (no model file, no name for a backend). */
gboolean        hs_attend_dialog_get_spec (HsAttendDialog *self, HsAttendSpec *spec,
                                           GError **error);
/* Compute: starts the run in the window and closes the dialog, or says in
 * the dialog why not and returns FALSE. */
gboolean        hs_attend_dialog_compute  (HsAttendDialog *self);

G_END_DECLS
