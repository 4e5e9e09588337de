/* hs-window-attend.c — "Compute maps for this dataset…" in the window: the
 * dialog (win.attend), the run's progress bar under the view with its
 * Cancel button (win.attend-cancel), the summary, and the reload that brings
 * the new maps into the model list
 */
#include <glib/gi18n.h>

#include "hs-window-private.h"
#include "hs-attend-dialog.h"

/* Failed maps listed under the summary; the rest are counted. */
#define SHOWN_PROBLEMS 5

gboolean
_hs_window_attend_running (HsWindow *self)
{
  return self->attend_job != NULL && hs_attend_job_get_running (self->attend_job);
}

/* Only a dataset folder takes maps (a single image opens in memory). */
gboolean
_hs_window_attend_possible (HsWindow *self)
{
  return self->dataset_path != NULL && !self->loading && !_hs_window_attend_running (self) &&
         g_file_test (self->dataset_path, G_FILE_TEST_IS_DIR);
}

static void
on_job_progress (HsAttendJob *job, HsWindow *self)
{
  g_autofree char *text = NULL;

  if (job != self->attend_job || !hs_attend_job_get_running (job))
    return;
  text = hs_attend_job_dup_progress_text (job);
  gtk_progress_bar_set_fraction (self->attend_progress, hs_attend_job_get_fraction (job));
  gtk_progress_bar_set_text (self->attend_progress, text);
}

static void
on_job_finished (HsAttendJob *job, HsWindow *self)
{
  GPtrArray *problems = hs_attend_job_get_problems (job);
  g_autofree char *summary = hs_attend_job_dup_summary (job);
  g_autoptr(GString) details = g_string_new (NULL);

  if (job != self->attend_job)
    return;
  gtk_label_set_text (self->attend_label, summary);
  for (guint i = 0; i < MIN (problems->len, SHOWN_PROBLEMS); i++)
    g_string_append_printf (details, "%s%s", i > 0 ? "\n" : "", (char *) g_ptr_array_index (problems, i));
  if (problems->len > SHOWN_PROBLEMS)
    {
      g_string_append_c (details, '\n');
      /* Translators: after the first failed maps of a run */
      g_string_append_printf (details, _("… and %u more"), problems->len - SHOWN_PROBLEMS);
    }
  gtk_label_set_text (self->attend_problems, details->str);
  gtk_widget_set_visible (GTK_WIDGET (self->attend_problems), problems->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->attend_progress), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->attend_cancel_button), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->attend_close_button), TRUE);
  _hs_window_actions_update (self);
  /* The new maps appear: the dataset is read again (the model list too). */
  if (hs_attend_job_get_counts (job)->computed > 0 &&
      g_strcmp0 (hs_attend_job_get_dataset_path (job), self->dataset_path) == 0)
    {
      g_autoptr(GFile) file = g_file_new_for_path (self->dataset_path);

      hs_window_open (self, file);
    }
}

gboolean
hs_window_attend_start (HsWindow *self, const HsAttendSpec *spec, GError **error)
{
  g_autofree char *title = NULL;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (spec != NULL, FALSE);

  if (!_hs_window_attend_possible (self))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                           _hs_window_attend_running (self)
                           ? _("Maps are being computed already")
                           : _("Open a dataset folder first (a single image takes no maps)"));
      return FALSE;
    }
  g_clear_object (&self->attend_job);
  self->attend_job = hs_attend_job_new (self->dataset_path, spec);
  g_signal_connect_object (self->attend_job, "progress", G_CALLBACK (on_job_progress), self, 0);
  g_signal_connect_object (self->attend_job, "finished", G_CALLBACK (on_job_finished), self, 0);

  title = g_strdup_printf (_("Computing maps with %s…"),
                           spec->name != NULL ? spec->name
                           : spec->backend_command != NULL ? _("the external backend")
                           : spec->model);
  gtk_label_set_text (self->attend_label, title);
  gtk_widget_set_visible (GTK_WIDGET (self->attend_problems), FALSE);
  gtk_progress_bar_set_fraction (self->attend_progress, 0.0);
  gtk_progress_bar_set_text (self->attend_progress, _("Reading the dataset…"));
  gtk_widget_set_visible (GTK_WIDGET (self->attend_progress), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->attend_cancel_button), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->attend_close_button), FALSE);
  gtk_revealer_set_reveal_child (self->attend_revealer, TRUE);
  hs_attend_job_set_cancel_after (self->attend_job, self->attend_cancel_after);
  hs_attend_job_start (self->attend_job);
  _hs_window_actions_update (self);
  return TRUE;
}

HsAttendJob *
hs_window_get_attend_job (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->attend_job;
}

const char *
hs_window_get_attend_status (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return gtk_revealer_get_reveal_child (self->attend_revealer) ? gtk_label_get_text (self->attend_label)
                                                                : NULL;
}

void
hs_window_set_attend_cancel_after (HsWindow *self, guint n_maps)
{
  g_return_if_fail (HS_IS_WINDOW (self));
  self->attend_cancel_after = n_maps;
}

GtkWindow *
hs_window_get_attend_dialog (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->attend_dialog;
}

/* ---- actions ---------------------------------------------------------------- */

void
_hs_window_attend_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  HsWindow *self = user_data;

  if (!_hs_window_attend_possible (self))
    return;
  if (self->attend_dialog == NULL)
    {
      HsAttendDialog *dialog = hs_attend_dialog_new (self);

      /* The last run's choices again: running it once more resumes it. */
      if (self->attend_job != NULL)
        hs_attend_dialog_set_spec (dialog, hs_attend_job_get_spec (self->attend_job));
      self->attend_dialog = GTK_WINDOW (dialog);
      g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &self->attend_dialog);
    }
  gtk_window_present (self->attend_dialog);
}

void
_hs_window_attend_cancel_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  HsWindow *self = user_data;

  if (_hs_window_attend_running (self))
    {
      hs_attend_job_cancel (self->attend_job);
      gtk_progress_bar_set_text (self->attend_progress, _("Cancelling…"));
    }
}

static void
on_close_clicked (GtkButton *button, HsWindow *self)
{
  gtk_revealer_set_reveal_child (self->attend_revealer, FALSE);
}

void
_hs_window_attend_init (HsWindow *self)
{
  g_signal_connect_object (self->attend_close_button, "clicked", G_CALLBACK (on_close_clicked), self, 0);
}

/* A run outlives its window only until the runner notices the cancel:
 * what it computed is recorded, nothing is reported any more. */
void
_hs_window_attend_dispose (HsWindow *self)
{
  if (self->attend_dialog != NULL)
    {
      GtkWindow *dialog = self->attend_dialog;

      g_object_remove_weak_pointer (G_OBJECT (dialog), (gpointer *) &self->attend_dialog);
      self->attend_dialog = NULL;
      gtk_window_destroy (dialog);
    }
  if (self->attend_job != NULL)
    {
      hs_attend_job_cancel (self->attend_job);
      g_signal_handlers_disconnect_by_data (self->attend_job, self);
      g_clear_object (&self->attend_job);
    }
}
