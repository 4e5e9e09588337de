/* hs-annotation-window-actions.c — the annotation.* actions and their keys,
 * the project and CSV choosers, the shortcuts window and the way back to the
 * viewer */

#include <glib/gi18n.h>

#include "hs-annotation-window-private.h"
#include "hs-application.h"
#include "hs-window.h"

/* Keys typed into the prompt entry are text, not commands. */
static gboolean
typing_prompt (HsAnnotationWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  return focus != NULL && (focus == GTK_WIDGET (self->prompt_entry) ||
                           gtk_widget_is_ancestor (focus, GTK_WIDGET (self->prompt_entry)));
}

static void
answer_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (widget);
  guint32 q, level;

  g_variant_get (parameter, "(uu)", &q, &level);
  _hs_annotation_window_set_level (self, q, (int) level);
}

static void
level_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (widget);

  /* Digits typed into the prompt entry are text, not answers. */
  if (typing_prompt (self))
    return;
  _hs_annotation_window_set_level (self, self->question, (int) g_variant_get_uint32 (parameter));
}

static void
move_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (widget);
  guint n;

  if (self->session == NULL)
    return;
  n = hs_annotation_session_get_n_items (self->session);
  if (g_str_equal (action_name, "annotation.next-unanswered"))
    {
      int next = hs_annotation_session_next_unanswered (self->session);
      if (next >= 0)
        self->index = next;
    }
  else if (g_str_equal (action_name, "annotation.next"))
    {
      if (self->index >= 0 && (guint) self->index + 1 < n)
        self->index++;
    }
  else if (self->index > 0)
    self->index--;
  else if (self->index < 0 && n > 0)
    self->index = (int) n - 1;   /* from "all done" back to the last item */
  _hs_annotation_window_show_item (self);
}

static void
question_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (widget);
  int step = g_str_equal (action_name, "annotation.question-next") ? 1 : -1;

  self->question = (self->question + HS_ANNOTATION_N_QUESTIONS + step) % HS_ANNOTATION_N_QUESTIONS;
  _hs_annotation_window_update_question_highlight (self);
}

/* The local file chosen in `dialog`, or NULL. */
static char *
chosen_path (GtkNativeDialog *dialog, int response)
{
  g_autoptr(GFile) file = NULL;

  if (response != GTK_RESPONSE_ACCEPT)
    return NULL;
  file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  return file != NULL ? g_file_get_path (file) : NULL;
}

static void
on_open_response (GtkNativeDialog *dialog, int response, HsAnnotationWindow *self)
{
  g_autofree char *path = chosen_path (dialog, response);

  if (path != NULL)
    hs_annotation_window_open (self, path, NULL);
  g_clear_object (&self->chooser);
}

static void
on_export_response (GtkNativeDialog *dialog, int response, HsAnnotationWindow *self)
{
  g_autofree char *path = chosen_path (dialog, response);

  if (path != NULL && self->session != NULL)
    hs_annotation_window_export_csv (self, path, NULL);
  g_clear_object (&self->chooser);
}

/* The window's one chooser at a time (NULL when one is open already). */
static GtkFileChooser *
new_chooser (HsAnnotationWindow *self, const char *title, GtkFileChooserAction action,
             const char *accept, GCallback on_response)
{
  if (self->chooser != NULL)
    return NULL;
  self->chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), action, accept, _("_Cancel"));
  g_signal_connect (self->chooser, "response", on_response, self);
  return GTK_FILE_CHOOSER (self->chooser);
}

static void
open_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (widget);
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  GtkFileChooser *chooser = new_chooser (self, _("Open Annotation Project"), GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Open"), G_CALLBACK (on_open_response));

  if (chooser == NULL)
    return;
  gtk_file_filter_set_name (filter, _("Annotation projects (JSON)"));
  gtk_file_filter_add_pattern (filter, "*.json");
  gtk_file_chooser_add_filter (chooser, filter);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
export_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (widget);
  g_autofree char *name = NULL;
  GtkFileChooser *chooser;

  if (self->session == NULL)
    return;
  chooser = new_chooser (self, _("Export Answers as CSV"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                         G_CALLBACK (on_export_response));
  if (chooser == NULL)
    return;
  name = g_strdup_printf ("%s.csv", hs_annotation_session_get_project (self->session)->annotator);
  gtk_file_chooser_set_current_name (chooser, name);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

/* H (or Ctrl+H): the heatmap off shows the anatomy under it; the check
 * button beside the opacity slider follows the same view state. */
static void
toggle_heatmap_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (widget);
  gboolean shown;

  if (g_str_equal (action_name, "annotation.heatmap-key") && typing_prompt (self))
    return;
  g_object_get (self->state, "show-overlay", &shown, NULL);
  g_object_set (self->state, "show-overlay", !shown, NULL);
}

/* Ctrl+?: the annotation window is not an application window, so GTK's own
 * shortcuts window does not come with it; this one lists its keys. */
static void
shortcuts_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (widget);
  g_autoptr(GtkBuilder) builder = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GString) ui = NULL;
  g_autoptr(GError) error = NULL;
  guint n = 3;

  if (self->shortcuts != NULL)
    {
      gtk_window_present (self->shortcuts);
      return;
    }
  /* The digits the project's form answers with: 1–3, or 1–6 for Likert.
   * Set in the text: the window copies its shortcuts (for its search) as
   * they are built. */
  if (self->session != NULL)
    {
      HsAnnotationForm form = hs_annotation_session_get_project (self->session)->form;

      for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
        n = MAX (n, hs_annotation_question_n_levels (form, q));
    }
  bytes = g_resources_lookup_data ("/org/heatscope/Heatscope/ui/hs-annotation-shortcuts.ui", 0, NULL);
  g_assert (bytes != NULL);   /* compiled in */
  ui = g_string_new_len (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  {
    g_autofree char *digits = g_strdup_printf (">1...%u<", n);
    g_string_replace (ui, ">1...3<", digits, 1);
  }
  builder = gtk_builder_new ();
  if (!gtk_builder_add_from_string (builder, ui->str, (gssize) ui->len, &error))
    g_error ("hs-annotation-shortcuts.ui: %s", error->message);   /* compiled in */
  self->shortcuts = GTK_WINDOW (gtk_builder_get_object (builder, "shortcuts"));
  gtk_window_set_transient_for (self->shortcuts, GTK_WINDOW (self));
  gtk_window_set_destroy_with_parent (self->shortcuts, TRUE);
  g_object_add_weak_pointer (G_OBJECT (self->shortcuts), (gpointer *) &self->shortcuts);
  gtk_window_present (self->shortcuts);
}

/* The main window this one belongs to: the one it was opened from, else any
 * main window of the application. */
static HsWindow *
find_viewer (HsAnnotationWindow *self)
{
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (self));
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (parent != NULL && HS_IS_WINDOW (parent))
    return HS_WINDOW (parent);
  for (GList *l = app != NULL ? gtk_application_get_windows (app) : NULL; l != NULL; l = l->next)
    if (HS_IS_WINDOW (l->data))
      return l->data;
  return NULL;
}

static gboolean
destroy_window (gpointer window)
{
  gtk_window_destroy (window);
  return G_SOURCE_REMOVE;
}

/* Esc, or the Viewer button: back to the main window without quitting
 * (started with --annotate there is none yet: one opens, on the dataset of
 * last time as at a normal start).  Every answer is saved already. */
static void
viewer_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (widget);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  HsWindow *viewer = find_viewer (self);

  if (viewer == NULL)
    {
      viewer = hs_window_new (app != NULL && HS_IS_APPLICATION (app) ? HS_APPLICATION (app) : NULL);
      hs_window_restore_last_dataset (viewer);
    }
  gtk_window_present (GTK_WINDOW (viewer));
  /* Destroyed once this action has returned (it runs inside the window). */
  gtk_widget_set_visible (widget, FALSE);
  g_idle_add_full (G_PRIORITY_DEFAULT, destroy_window, g_object_ref (widget), g_object_unref);
}

void
_hs_annotation_window_class_add_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "annotation.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "annotation.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "annotation.answer", "(uu)", answer_action);
  gtk_widget_class_install_action (widget_class, "annotation.level", "u", level_action);
  gtk_widget_class_install_action (widget_class, "annotation.next", NULL, move_action);
  gtk_widget_class_install_action (widget_class, "annotation.previous", NULL, move_action);
  gtk_widget_class_install_action (widget_class, "annotation.next-unanswered", NULL, move_action);
  gtk_widget_class_install_action (widget_class, "annotation.question-next", NULL, question_action);
  gtk_widget_class_install_action (widget_class, "annotation.question-previous", NULL, question_action);
  gtk_widget_class_install_action (widget_class, "annotation.toggle-heatmap", NULL, toggle_heatmap_action);
  gtk_widget_class_install_action (widget_class, "annotation.heatmap-key", NULL, toggle_heatmap_action);
  gtk_widget_class_install_action (widget_class, "annotation.show-shortcuts", NULL, shortcuts_action);
  gtk_widget_class_install_action (widget_class, "annotation.viewer", NULL, viewer_action);

  /* Every digit a form can use (Likert has six levels); set_level ignores
   * a digit beyond the current question's levels. */
  for (guint k = 0; k < 6; k++)
    {
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + k, 0, "annotation.level", "u", k);
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_1 + k, 0, "annotation.level", "u", k);
    }
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, 0, "annotation.next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, 0, "annotation.previous", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK, "annotation.next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "annotation.previous", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Down, 0, "annotation.question-next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Up, 0, "annotation.question-previous", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_h, 0, "annotation.heatmap-key", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_h, GDK_CONTROL_MASK, "annotation.toggle-heatmap", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_question, GDK_CONTROL_MASK,
                                       "annotation.show-shortcuts", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "annotation.viewer", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "annotation.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "annotation.export", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}
