/* hs-attend-dialog.c — "Compute maps for this dataset…": what to attend */

#include <glib/gi18n.h>
#include <heatscope/hs-model.h>
#include <heatscope/hs-perturb.h>

#include "hs-attend-dialog.h"
#include "hs-live-attend.h"
#include "hs-utils-private.h"

/* The text perturbations (random-boxes moves the target: no map of its own). */
static const HsPerturbation text_perturbations[] = {
  HS_PERTURB_SWAP_LEFT_RIGHT, HS_PERTURB_SHUFFLE_IN_REPORT, HS_PERTURB_RANDOM_SENTENCE,
  HS_PERTURB_SYNTHETIC_SWAPPED_CONDITION,
};

struct _HsAttendDialog
{
  GtkWindow       parent_instance;

  GtkButton      *cancel_button;
  GtkButton      *compute_button;
  GtkDropDown    *model_dropdown;
  GtkWidget      *file_box;
  GtkEntry       *file_entry;
  GtkButton      *file_button;
  GtkLabel       *backend_label;
  GtkEntry       *name_entry;
  GtkDropDown    *queries_dropdown;
  GtkBox         *perturb_box;
  GtkCheckButton *force_check;
  GtkLabel       *status_label;

  HsWindow       *window;                /* weak */
  GtkCheckButton *perturb_checks[G_N_ELEMENTS (text_perturbations)];
  guint           n_builtin;             /* entries before "Model file…" */
  char           *backend_command;       /* the user's, or NULL: no backend entry */
  GtkFileChooserNative *chooser;
};

G_DEFINE_FINAL_TYPE (HsAttendDialog, hs_attend_dialog, GTK_TYPE_WINDOW)

static guint
file_position (HsAttendDialog *self)
{
  return self->n_builtin;
}

static guint
backend_position (HsAttendDialog *self)
{
  return self->backend_command != NULL ? self->n_builtin + 1 : GTK_INVALID_LIST_POSITION;
}

static void
update_model_rows (HsAttendDialog *self)
{
  guint selected = gtk_drop_down_get_selected (self->model_dropdown);
  const char * const *builtin = hs_model_list_builtin ();

  gtk_widget_set_visible (self->file_box, selected == file_position (self));
  gtk_widget_set_visible (GTK_WIDGET (self->backend_label), selected == backend_position (self));
  if (selected < self->n_builtin)
    gtk_entry_set_placeholder_text (self->name_entry, builtin[selected]);
  else if (selected == file_position (self))
    gtk_entry_set_placeholder_text (self->name_entry, _("The model file's own name"));
  else
    gtk_entry_set_placeholder_text (self->name_entry, _("Required: the name the maps get"));
}

static void
on_model_selected (GObject *object, GParamSpec *pspec, HsAttendDialog *self)
{
  update_model_rows (self);
}

static void
show_status (HsAttendDialog *self, const char *message)
{
  gtk_label_set_text (self->status_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->status_label), message != NULL);
}

/* ---- the choices ------------------------------------------------------------ */

void
hs_attend_dialog_set_spec (HsAttendDialog *self, const HsAttendSpec *spec)
{
  const char * const *builtin = hs_model_list_builtin ();
  guint position = 0;

  g_return_if_fail (HS_IS_ATTEND_DIALOG (self));
  g_return_if_fail (spec != NULL);

  gtk_editable_set_text (GTK_EDITABLE (self->file_entry), "");
  if (spec->backend_command != NULL && g_strcmp0 (spec->backend_command, self->backend_command) == 0)
    position = backend_position (self);
  else if (spec->model != NULL && g_strv_contains (builtin, spec->model))
    {
      while (g_strcmp0 (builtin[position], spec->model) != 0)
        position++;
    }
  else if (spec->model != NULL)
    {
      position = file_position (self);
      gtk_editable_set_text (GTK_EDITABLE (self->file_entry), spec->model);
    }
  gtk_drop_down_set_selected (self->model_dropdown, position);
  gtk_editable_set_text (GTK_EDITABLE (self->name_entry), spec->name != NULL ? spec->name : "");
  gtk_drop_down_set_selected (self->queries_dropdown, spec->queries);
  for (guint i = 0; i < G_N_ELEMENTS (text_perturbations); i++)
    gtk_check_button_set_active (self->perturb_checks[i],
                                 spec->perturbations != NULL &&
                                 g_strv_contains ((const char * const *) spec->perturbations,
                                                  hs_perturbation_to_string (text_perturbations[i])));
  gtk_check_button_set_active (self->force_check, spec->force);
  update_model_rows (self);
}

gboolean
hs_attend_dialog_get_spec (HsAttendDialog *self, HsAttendSpec *spec, GError **error)
{
  guint selected;
  g_autofree char *name = NULL;
  g_autofree char *file = NULL;
  g_autoptr(GStrvBuilder) perturbations = g_strv_builder_new ();

  g_return_val_if_fail (HS_IS_ATTEND_DIALOG (self), FALSE);
  g_return_val_if_fail (spec != NULL, FALSE);

  memset (spec, 0, sizeof *spec);
  selected = gtk_drop_down_get_selected (self->model_dropdown);
  name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->name_entry))));
  file = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->file_entry))));
  if (selected == file_position (self) && *file == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Choose the model file (.safetensors)"));
      return FALSE;
    }
  if (selected == backend_position (self) && *name == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Give the external backend's maps a name"));
      return FALSE;
    }
  if (selected < self->n_builtin)
    spec->model = g_strdup (hs_model_list_builtin ()[selected]);
  else if (selected == file_position (self))
    spec->model = g_steal_pointer (&file);
  else
    spec->backend_command = g_strdup (self->backend_command);
  spec->name = *name != '\0' ? g_steal_pointer (&name) : NULL;
  spec->queries = (HsAttendQueries) gtk_drop_down_get_selected (self->queries_dropdown);
  for (guint i = 0; i < G_N_ELEMENTS (text_perturbations); i++)
    if (gtk_check_button_get_active (self->perturb_checks[i]))
      g_strv_builder_add (perturbations, hs_perturbation_to_string (text_perturbations[i]));
  spec->perturbations = g_strv_builder_end (perturbations);
  if (spec->perturbations[0] == NULL)
    g_clear_pointer (&spec->perturbations, g_strfreev);
  spec->force = gtk_check_button_get_active (self->force_check);
  return TRUE;
}

gboolean
hs_attend_dialog_compute (HsAttendDialog *self)
{
  HsAttendSpec spec;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (HS_IS_ATTEND_DIALOG (self), FALSE);

  if (self->window == NULL)
    return FALSE;
  if (!hs_attend_dialog_get_spec (self, &spec, &error) ||
      !hs_window_attend_start (self->window, &spec, &error))
    {
      show_status (self, error->message);
      hs_attend_spec_clear (&spec);
      return FALSE;
    }
  hs_attend_spec_clear (&spec);
  gtk_window_destroy (GTK_WINDOW (self));
  return TRUE;
}

/* ---- buttons ------------------------------------------------------------------- */

static void
on_compute_clicked (GtkButton *button, HsAttendDialog *self)
{
  hs_attend_dialog_compute (self);
}

static void
on_cancel_clicked (GtkButton *button, HsAttendDialog *self)
{
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
on_chooser_response (GtkNativeDialog *dialog, int response, HsAttendDialog *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        gtk_editable_set_text (GTK_EDITABLE (self->file_entry), path);
    }
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->chooser);
}

static void
on_file_clicked (GtkButton *button, HsAttendDialog *self)
{
  if (self->chooser != NULL)
    return;
  self->chooser = gtk_file_chooser_native_new (_("Choose a Model File"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  _hs_file_chooser_add_suffix (GTK_FILE_CHOOSER (self->chooser), _("Model weights (.safetensors)"),
                               "safetensors");
  _hs_file_chooser_show (self->chooser, G_CALLBACK (on_chooser_response), self);
}

/* ---- object ---------------------------------------------------------------------- */

static void
hs_attend_dialog_dispose (GObject *object)
{
  HsAttendDialog *self = HS_ATTEND_DIALOG (object);

  if (self->chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  if (self->window != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->window), (gpointer *) &self->window);
  self->window = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (object), HS_TYPE_ATTEND_DIALOG);
  G_OBJECT_CLASS (hs_attend_dialog_parent_class)->dispose (object);
}

static void
hs_attend_dialog_finalize (GObject *object)
{
  g_free (HS_ATTEND_DIALOG (object)->backend_command);
  G_OBJECT_CLASS (hs_attend_dialog_parent_class)->finalize (object);
}

static void
hs_attend_dialog_class_init (HsAttendDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = hs_attend_dialog_dispose;
  G_OBJECT_CLASS (klass)->finalize = hs_attend_dialog_finalize;
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-attend-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, compute_button);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, model_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, file_box);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, file_entry);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, file_button);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, backend_label);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, name_entry);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, queries_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, perturb_box);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, force_check);
  gtk_widget_class_bind_template_child (widget_class, HsAttendDialog, status_label);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
hs_attend_dialog_init (HsAttendDialog *self)
{
  const char *perturb_labels[] = {
    C_("perturbation", "Swap left/right"), C_("perturbation", "Shuffle in report"),
    C_("perturbation", "Random sentence"), C_("perturbation", "Synthetic swapped condition"),
  };
  const char *queries[] = { _("All queries"), _("Report sentences and prompts"), _("Class labels"), NULL };

  G_STATIC_ASSERT (G_N_ELEMENTS (perturb_labels) == G_N_ELEMENTS (text_perturbations));
  /* The dropdown's positions are HsAttendQueries. */
  G_STATIC_ASSERT (HS_ATTEND_QUERIES_ALL == 0 && HS_ATTEND_QUERIES_SENTENCES == 1 &&
                   HS_ATTEND_QUERIES_LABELS == 2);
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_drop_down_set_model (self->queries_dropdown, G_LIST_MODEL (gtk_string_list_new (queries)));
  g_object_unref (gtk_drop_down_get_model (self->queries_dropdown));
  for (guint i = 0; i < G_N_ELEMENTS (text_perturbations); i++)
    {
      self->perturb_checks[i] = GTK_CHECK_BUTTON (gtk_check_button_new_with_label (perturb_labels[i]));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->perturb_checks[i]),
                                   hs_perturbation_to_string (text_perturbations[i]));
      gtk_box_append (self->perturb_box, GTK_WIDGET (self->perturb_checks[i]));
    }
  g_signal_connect (self->compute_button, "clicked", G_CALLBACK (on_compute_clicked), self);
  g_signal_connect (self->cancel_button, "clicked", G_CALLBACK (on_cancel_clicked), self);
  g_signal_connect (self->file_button, "clicked", G_CALLBACK (on_file_clicked), self);
  g_signal_connect (self->file_entry, "activate", G_CALLBACK (on_compute_clicked), self);
  g_signal_connect (self->name_entry, "activate", G_CALLBACK (on_compute_clicked), self);
}

HsAttendDialog *
hs_attend_dialog_new (HsWindow *window)
{
  HsAttendDialog *self = g_object_new (HS_TYPE_ATTEND_DIALOG, NULL);
  const char * const *builtin = hs_model_list_builtin ();
  g_autoptr(GtkStringList) models = gtk_string_list_new (builtin);

  g_return_val_if_fail (HS_IS_WINDOW (window), NULL);

  self->window = window;
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &self->window);
  gtk_window_set_transient_for (GTK_WINDOW (self), GTK_WINDOW (window));
  self->n_builtin = g_strv_length ((char **) builtin);
  gtk_string_list_append (models, _("Model file (.safetensors)…"));
  /* The backend the user set; a dataset never names one. */
  self->backend_command = hs_live_attend_dup_user_command (GTK_WINDOW (window));
  if (self->backend_command != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Command: %s"), self->backend_command);

      gtk_string_list_append (models, _("External backend"));
      gtk_label_set_text (self->backend_label, text);
    }
  gtk_drop_down_set_model (self->model_dropdown, G_LIST_MODEL (models));
  g_signal_connect (self->model_dropdown, "notify::selected", G_CALLBACK (on_model_selected), self);
  update_model_rows (self);
  return self;
}
