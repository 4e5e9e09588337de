/* hs-annotation-window.c — annotation mode: blinded maps, one at a time */

#include <math.h>
#include <glib/gi18n.h>

#include "hs-annotation-window-private.h"
#include "hs-css-private.h"


G_DEFINE_FINAL_TYPE (HsAnnotationWindow, hs_annotation_window, GTK_TYPE_WINDOW)

/* ---- questions ------------------------------------------------------------ */

static const char *
question_title (HsAnnotationForm form, guint q)
{
  static const char *three[] = { N_("Is the highlighted region correct?"),
                                 N_("Is the map useful?"),
                                 N_("Is the map precise?") };
  static const char *likert[] = { N_("Recall: how much of the finding is highlighted?"),
                                  N_("Precision: how much of the highlight is the finding?"),
                                  N_("How intuitive is the map? (1–5)") };
  return _(form == HS_ANNOTATION_FORM_THREE ? three[q] : likert[q]);
}

/* The value stored for level `level` of question q (inverse of
 * hs_annotation_value_to_level). */
static int
level_to_value (HsAnnotationForm form, guint q, int level)
{
  if (form == HS_ANNOTATION_FORM_THREE)
    return level;
  return q < 2 ? level * 20 : level + 1;
}

static char *
level_label (HsAnnotationForm form, guint q, guint level)
{
  static const char *three[] = { N_("No"), N_("Partially"), N_("Yes") };

  if (form == HS_ANNOTATION_FORM_THREE)
    return g_strdup_printf ("%u  %s", level + 1, _(three[level]));
  if (q < 2)
    return g_strdup_printf ("%u  %u %%", level + 1, level * 20);
  return g_strdup_printf ("%u", level + 1);
}

void
_hs_annotation_window_update_question_highlight (HsAnnotationWindow *self)
{
  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    if (self->rows[q] != NULL)
      {
        if (q == self->question)
          gtk_widget_add_css_class (self->rows[q], "hs-current-question");
        else
          gtk_widget_remove_css_class (self->rows[q], "hs-current-question");
      }
}

static void
sync_buttons (HsAnnotationWindow *self)
{
  self->updating = TRUE;
  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    for (guint l = 0; self->buttons[q] != NULL && l < self->buttons[q]->len; l++)
      gtk_toggle_button_set_active (g_ptr_array_index (self->buttons[q], l), self->levels[q] == (int) l);
  self->updating = FALSE;
  _hs_annotation_window_update_question_highlight (self);
}


static void
on_level_toggled (GtkToggleButton *button, HsAnnotationWindow *self)
{
  guint q = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "question"));
  guint l = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "level"));

  if (self->updating || !gtk_toggle_button_get_active (button))
    return;
  self->question = q;
  _hs_annotation_window_set_level (self, q, (int) l);
}

/* The key hint names the digits of this form: 1–3, or 1–6 for Likert
 * (whose last question has five). */
static void
update_hint (HsAnnotationWindow *self, HsAnnotationForm form)
{
  guint most = 0, fewest = G_MAXUINT;
  g_autofree char *digits = NULL;
  g_autofree char *hint = NULL;

  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    {
      most = MAX (most, hs_annotation_question_n_levels (form, q));
      fewest = MIN (fewest, hs_annotation_question_n_levels (form, q));
    }
  if (most == fewest)
    /* Translators: %u is the number of answer options of every question */
    digits = g_strdup_printf (_("1–%u answer the highlighted question"), most);
  else
    /* Translators: the Likert form, e.g. "1–6 answer … (1–5 where it has 5 options)" */
    digits = g_strdup_printf (_("1–%u answer the highlighted question (1–%u where it has %u options)"),
                              most, fewest, fewest);
  /* Translators: %s is the digits part, e.g. "1–3 answer the highlighted question" */
  hint = g_strdup_printf (_("Keys: %s, Up/Down change it, Page Up/Page Down move between items, "
                            "H shows or hides the heatmap, Esc goes back to the viewer, Ctrl+? lists "
                            "every key. A prompt to type comes first (Enter when done). Every answer "
                            "is saved at once."), digits);
  gtk_label_set_text (self->hint_label, hint);
}

static void
build_questions (HsAnnotationWindow *self, HsAnnotationForm form)
{
  GtkWidget *child;

  update_hint (self, form);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->questions_box))) != NULL)
    gtk_box_remove (self->questions_box, child);
  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    {
      guint n = hs_annotation_question_n_levels (form, q);
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
      GtkWidget *title = gtk_label_new (question_title (form, q));
      GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
      GtkToggleButton *first = NULL;

      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_label_set_wrap (GTK_LABEL (title), TRUE);
      gtk_widget_add_css_class (title, "heading");
      gtk_widget_add_css_class (buttons, "linked");
      gtk_widget_set_margin_start (row, 6);
      gtk_widget_set_margin_end (row, 6);
      gtk_widget_set_margin_top (row, 6);
      gtk_widget_set_margin_bottom (row, 6);
      g_clear_pointer (&self->buttons[q], g_ptr_array_unref);
      self->buttons[q] = g_ptr_array_new ();
      for (guint l = 0; l < n; l++)
        {
          g_autofree char *label = level_label (form, q, l);
          GtkWidget *button = gtk_toggle_button_new_with_label (label);

          gtk_widget_set_hexpand (button, TRUE);
          gtk_widget_set_focus_on_click (button, FALSE);
          if (first == NULL)
            first = GTK_TOGGLE_BUTTON (button);
          else
            gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (button), first);
          g_object_set_data (G_OBJECT (button), "question", GUINT_TO_POINTER (q));
          g_object_set_data (G_OBJECT (button), "level", GUINT_TO_POINTER (l));
          g_signal_connect (button, "toggled", G_CALLBACK (on_level_toggled), self);
          gtk_box_append (GTK_BOX (buttons), button);
          g_ptr_array_add (self->buttons[q], button);
        }
      gtk_box_append (GTK_BOX (row), title);
      gtk_box_append (GTK_BOX (row), buttons);
      gtk_box_append (self->questions_box, row);
      self->rows[q] = row;
    }
}

/* ---- items ------------------------------------------------------------------ */

/* The count is updated only after hs_annotation_session_answer returned, so
 * what it shows is on disk. */
static void
update_progress (HsAnnotationWindow *self)
{
  const char *annotator = hs_annotation_session_get_project (self->session)->annotator;
  g_autofree char *heading = NULL;
  g_autofree char *answered = NULL;
  g_autofree char *title = NULL;

  g_free (self->progress);
  self->progress = g_strdup_printf ("%u / %u", hs_annotation_session_get_n_answered (self->session),
                                    hs_annotation_session_get_n_items (self->session));
  /* Translators: annotation window heading; %s is the annotator's name */
  heading = g_strdup_printf (_("Annotation — %s"), annotator);
  /* Translators: under the annotation window heading; %s is "12 / 80" */
  answered = g_strdup_printf (_("%s answered"), self->progress);
  gtk_label_set_text (self->title_label, heading);
  gtk_label_set_text (self->progress_label, answered);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_label), TRUE);
  /* The window title (task bar) carries the progress too. */
  title = g_strdup_printf ("%s — %s", heading, self->progress);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

static void
update_actions (HsAnnotationWindow *self)
{
  gboolean have = self->session != NULL && self->index >= 0;
  guint n = self->session ? hs_annotation_session_get_n_items (self->session) : 0;

  /* From "every item answered" (index −1) Previous goes back to the last item. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "annotation.previous",
                                 self->session != NULL && n > 0 && self->index != 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "annotation.next", have && (guint) self->index + 1 < n);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "annotation.next-unanswered",
                                 have && hs_annotation_session_next_unanswered (self->session) >= 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "annotation.export", self->session != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "annotation.answer", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "annotation.level", have);
}

/* ---- live maps of custom prompts -------------------------------------------- */

static void save_if_complete (HsAnnotationWindow *self);

/* What attends `model`'s custom prompts live: the built-in model of that
 * name, unless the dataset records an external backend for it; that
 * backend when it is the user's own command; else NULL. */
static const char *
live_model_for (HsAnnotationWindow *self, const char *model)
{
  HsDataset *dataset = hs_annotation_session_get_dataset (self->session);
  const char *recorded = hs_dataset_get_model_computed_by (dataset, model);
  g_autofree char *command = NULL;
  g_autofree char *expected = NULL;

  if (recorded == NULL || !g_str_has_prefix (recorded, "backend-exec:"))
    return g_strv_contains (hs_model_list_builtin (), model) ? model : NULL;
  command = hs_live_attend_dup_user_command (GTK_WINDOW (self));
  expected = command != NULL ? g_strconcat ("backend-exec:", command, NULL) : NULL;
  if (g_strcmp0 (expected, recorded) != 0)
    return NULL;
  if (self->live == NULL)
    self->live = hs_live_attend_new ();
  hs_live_attend_set_exec_command (self->live, command);
  return HS_LIVE_EXEC_NAME;
}

typedef struct {
  GWeakRef  window;
  guint     serial;
  char     *alias;
} LiveJob;

static void
live_job_free (LiveJob *job)
{
  g_weak_ref_clear (&job->window);
  g_free (job->alias);
  g_free (job);
}

/* The live map of the item on screen, computed or found in the live maps
 * kept. */
static void
show_live_map (HsAnnotationWindow *self, HsAttentionMap *map)
{
  self->no_attn = hs_attention_map_get_no_attn (map);
  hs_canvas_set_map (self->canvas, map);
  /* Answered while the map was computed: saved now, with its No-Attn. */
  if (self->save_pending)
    save_if_complete (self);
}

static void
live_done (GObject *object, GAsyncResult *result, gpointer data)
{
  LiveJob *job = data;
  HsAnnotationWindow *self = g_weak_ref_get (&job->window);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = hs_live_attend_finish (HS_LIVE_ATTEND (object), result, &error);

  if (self != NULL && job->serial == self->live_serial && self->session != NULL)
    {
      g_clear_object (&self->live_cancellable);
      if (map != NULL)
        show_live_map (self, map);
      else if (g_error_matches (error, HS_MODEL_ERROR, HS_MODEL_ERROR_EMPTY_PROMPT))
        hs_error_bar_add (self->error_bar, NULL, _("The prompt has no words the model can read"));
      else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* A backend's message names its command, which may name the model. */
          g_autofree char *message =
            g_strdup_printf (_("The map of %s could not be computed (details hidden while annotating)"),
                             job->alias);
          g_debug ("annotation: %s", error->message);
          hs_error_bar_add (self->error_bar, NULL, message);
        }
    }
  g_clear_object (&self);
  live_job_free (job);
}

/* Attends `prompt` for the item on screen — or shows the map attended
 * before, on a revisit, unless the image file changed since (the live maps
 * are kept with its stamp, hs-live-attend.h); FALSE when its model cannot
 * be attended live. */
static gboolean
live_start (HsAnnotationWindow *self, const HsAnnotationItem *item, const char *prompt)
{
  const char *model = hs_annotation_session_backend_model (self->session, (guint) self->index);
  HsDataset *dataset = hs_annotation_session_get_dataset (self->session);
  HsInstance *instance = hs_dataset_find_instance (dataset, item->instance);
  HsImage *image = hs_canvas_get_image (self->canvas);
  const char *live_model;
  g_autofree char *key = NULL;
  g_autoptr(HsAttentionMap) kept = NULL;
  LiveJob *job;

  if (instance == NULL || image == NULL || (live_model = live_model_for (self, model)) == NULL)
    return FALSE;
  if (self->live == NULL)
    self->live = hs_live_attend_new ();
  key = hs_live_attend_make_key (dataset, instance, live_model, prompt);
  kept = key != NULL ? hs_live_attend_lookup (self->live, key) : NULL;
  if (kept != NULL)
    {
      show_live_map (self, kept);
      return TRUE;
    }
  job = g_new0 (LiveJob, 1);
  g_weak_ref_init (&job->window, self);
  job->serial = self->live_serial;
  job->alias = g_strdup (item->alias);
  self->live_cancellable = g_cancellable_new ();
  hs_live_attend_async (self->live, dataset, instance, image, self->image_stamp, live_model, prompt,
                        self->live_cancellable, live_done, job);
  return TRUE;
}

static void
live_cancel (HsAnnotationWindow *self)
{
  self->save_pending = FALSE;
  self->live_serial++;
  g_cancellable_cancel (self->live_cancellable);
  g_clear_object (&self->live_cancellable);
}

/* Shows the map of the item on screen (for a typed prompt once typed): the
 * precomputed one, else for a custom prompt a live one. */
static void
load_item_map (HsAnnotationWindow *self, const HsAnnotationItem *item)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  const char *prompt = item->prompt != NULL ? item->prompt : self->typed_prompt;

  live_cancel (self);
  self->no_attn = NAN;
  hs_canvas_set_map (self->canvas, NULL);
  if (prompt == NULL)
    return;
  map = hs_annotation_session_load_map (self->session, (guint) self->index,
                                        item->prompt != NULL ? NULL : prompt, &error);
  if (map == NULL)
    {
      if (g_error_matches (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_NOT_FOUND) &&
          item->round == HS_ANNOTATION_ROUND_CUSTOM && live_start (self, item, prompt))
        return;
      /* A loading error names the map file, and file names often carry
       * the model's name: only the alias may be shown while annotating. */
      if (g_error_matches (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_NOT_FOUND))
        hs_error_bar_add_error (self->error_bar, NULL, error);
      else
        {
          g_autofree char *message = g_strdup_printf (_("The map of %s cannot be read (details hidden while annotating)"),
                                                      item->alias);
          g_debug ("annotation: %s", error->message);
          hs_error_bar_add (self->error_bar, NULL, message);
        }
      return;
    }
  self->no_attn = hs_attention_map_get_no_attn (map);
  hs_canvas_set_map (self->canvas, map);
}

/* The prompt typed for the same instance and custom query under another
 * alias: one typed prompt is shown for every model of the instance. */
static char *
dup_sibling_prompt (HsAnnotationWindow *self, const HsAnnotationItem *item)
{
  guint n = hs_annotation_session_get_n_items (self->session);

  for (guint i = 0; i < n; i++)
    {
      HsAnnotationItem other;
      const HsAnnotationAnswer *answer;

      if (i == (guint) self->index || !hs_annotation_session_get_item (self->session, i, &other) ||
          other.round != item->round || !g_str_equal (other.instance, item->instance) ||
          !g_str_equal (other.query, item->query))
        continue;
      answer = hs_annotation_session_get_answer (self->session, i);
      if (answer != NULL)
        return g_strdup (answer->prompt);
    }
  return NULL;
}

void
_hs_annotation_window_show_item (HsAnnotationWindow *self)
{
  HsAnnotationItem item;
  HsDataset *dataset = hs_annotation_session_get_dataset (self->session);
  const HsAnnotationAnswer *answer;
  HsAnnotationForm form = hs_annotation_session_get_project (self->session)->form;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autofree char *position = NULL;
  HsInstance *instance;

  update_progress (self);
  update_actions (self);
  if (self->index < 0 || !hs_annotation_session_get_item (self->session, (guint) self->index, &item))
    {
      gtk_stack_set_visible_child_name (self->stack, "empty");
      gtk_label_set_text (self->empty_label, _("Every item of this project is answered. Export the CSV or go back with Page Up."));
      gtk_label_set_text (self->alias_label, "");
      gtk_label_set_text (self->prompt_label, "");
      gtk_label_set_text (self->position_label, "");
      return;
    }

  position = g_strdup_printf (_("Item %d of %u · %s · %s round"), self->index + 1,
                              hs_annotation_session_get_n_items (self->session), item.instance,
                              item.round == HS_ANNOTATION_ROUND_REPORT ? _("report") : _("custom"));
  gtk_label_set_text (self->position_label, position);
  gtk_label_set_text (self->alias_label, item.alias);

  g_clear_pointer (&self->typed_prompt, g_free);
  answer = hs_annotation_session_get_answer (self->session, (guint) self->index);
  if (item.prompt == NULL)
    self->typed_prompt = answer != NULL ? g_strdup (answer->prompt) : dup_sibling_prompt (self, &item);
  gtk_widget_set_visible (GTK_WIDGET (self->prompt_entry), item.prompt == NULL);
  gtk_label_set_text (self->prompt_label, item.prompt != NULL ? item.prompt
                                          : self->typed_prompt != NULL ? self->typed_prompt
                                          : _("Type the prompt to show its map."));
  gtk_editable_set_text (GTK_EDITABLE (self->prompt_entry), self->typed_prompt ? self->typed_prompt : "");
  /* A prompt to type comes first: the keyboard goes to the entry (Enter
   * gives it back to the answer keys). */
  if (item.prompt == NULL && self->typed_prompt == NULL)
    gtk_widget_grab_focus (GTK_WIDGET (self->prompt_entry));

  instance = hs_dataset_find_instance (dataset, item.instance);
  /* before the decode: a file replaced during it is not the one read */
  self->image_stamp = instance != NULL ? hs_dataset_stamp_file (dataset, instance->image, &self->image_stamp_buf)
                                       : NULL;
  image = instance != NULL ? hs_dataset_load_image (dataset, instance, &error) : NULL;
  if (image == NULL && error != NULL)
    hs_error_bar_add_error (self->error_bar, NULL, error);
  hs_canvas_set_image (self->canvas, image);
  hs_canvas_set_caption (self->canvas, item.alias);
  gtk_stack_set_visible_child_name (self->stack, "canvas");
  load_item_map (self, &item);

  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    self->levels[q] = answer != NULL ? hs_annotation_value_to_level (form, q, answer->values[q]) : -1;
  self->question = 0;
  sync_buttons (self);
}

/* Saves the item on screen once every question has a level. */
static void
save_if_complete (HsAnnotationWindow *self)
{
  HsAnnotationForm form = hs_annotation_session_get_project (self->session)->form;
  HsAnnotationItem item;
  g_autoptr(GError) error = NULL;
  int values[HS_ANNOTATION_N_QUESTIONS];

  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    {
      if (self->levels[q] < 0)
        return;
      values[q] = level_to_value (form, q, self->levels[q]);
    }
  if (!hs_annotation_session_get_item (self->session, (guint) self->index, &item))
    return;
  /* The answer is about the map, and carries its No-Attn score: it is
   * saved once the live map is there. */
  self->save_pending = hs_annotation_window_get_live_busy (self);
  if (self->save_pending)
    {
      hs_error_bar_add (self->error_bar, NULL, _("The map is still being computed: the answer is saved when it is shown"));
      return;
    }
  if (item.prompt == NULL && self->typed_prompt == NULL)
    {
      hs_error_bar_add (self->error_bar, NULL, _("Type the prompt before answering"));
      gtk_widget_grab_focus (GTK_WIDGET (self->prompt_entry));
      return;
    }
  if (!hs_annotation_session_answer (self->session, (guint) self->index, values,
                                     item.prompt == NULL ? self->typed_prompt : NULL,
                                     self->no_attn, &error))
    {
      hs_error_bar_add_error (self->error_bar, hs_annotation_session_get_answers_path (self->session), error);
      return;
    }
  /* Saved: on to the next item. */
  if ((guint) self->index + 1 < hs_annotation_session_get_n_items (self->session))
    {
      self->index++;
      _hs_annotation_window_show_item (self);
    }
  else
    {
      int next = hs_annotation_session_next_unanswered (self->session);
      self->index = next;
      _hs_annotation_window_show_item (self);
    }
}

void
_hs_annotation_window_set_level (HsAnnotationWindow *self, guint q, int level)
{
  HsAnnotationForm form;

  if (self->session == NULL || self->index < 0 || q >= HS_ANNOTATION_N_QUESTIONS)
    return;
  form = hs_annotation_session_get_project (self->session)->form;
  if (level < 0 || (guint) level >= hs_annotation_question_n_levels (form, q))
    return;
  self->levels[q] = level;
  /* The next unanswered question becomes current. */
  for (guint k = 1; k <= HS_ANNOTATION_N_QUESTIONS; k++)
    {
      guint next = (q + k) % HS_ANNOTATION_N_QUESTIONS;
      if (self->levels[next] < 0)
        {
          self->question = next;
          break;
        }
    }
  sync_buttons (self);
  save_if_complete (self);
}

static void
on_prompt_activate (GtkEntry *entry, HsAnnotationWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
  g_autofree char *stripped = g_strstrip (g_strdup (text));
  HsAnnotationItem item;

  if (self->session == NULL || self->index < 0 || *stripped == '\0' ||
      !hs_annotation_session_get_item (self->session, (guint) self->index, &item))
    return;
  g_free (self->typed_prompt);
  self->typed_prompt = g_steal_pointer (&stripped);
  gtk_label_set_text (self->prompt_label, self->typed_prompt);
  load_item_map (self, &item);
  /* Back to answering with the keys. */
  gtk_window_set_focus (GTK_WINDOW (self), NULL);
}

/* ---- public ------------------------------------------------------------------- */

GtkWidget *
hs_annotation_window_new (GtkWindow *parent)
{
  GtkWidget *window = g_object_new (HS_TYPE_ANNOTATION_WINDOW, NULL);

  if (parent != NULL)
    {
      gtk_window_set_transient_for (GTK_WINDOW (window), parent);
      gtk_window_set_application (GTK_WINDOW (window), gtk_window_get_application (parent));
    }
  return window;
}

HsAnnotationWindow *
hs_annotation_window_present_project (GtkApplication *app, const char *project_path)
{
  HsAnnotationWindow *window;

  g_return_val_if_fail (GTK_IS_APPLICATION (app), NULL);
  g_return_val_if_fail (project_path != NULL, NULL);

  window = HS_ANNOTATION_WINDOW (hs_annotation_window_new (NULL));
  gtk_window_set_application (GTK_WINDOW (window), app);
  /* Shown first, so the error of a project that cannot be opened is seen. */
  gtk_window_present (GTK_WINDOW (window));
  hs_annotation_window_open (window, project_path, NULL);
  return window;
}

gboolean
hs_annotation_window_open (HsAnnotationWindow *self, const char *project_path, GError **error)
{
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) local = NULL;
  HsAnnotationSession *session;
  const HsAnnotationProject *project;

  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), FALSE);
  g_return_val_if_fail (project_path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  hs_error_bar_clear (self->error_bar);
  session = hs_annotation_session_open (project_path, &problems, &local);
  if (session == NULL)
    {
      hs_error_bar_add_error (self->error_bar, project_path, local);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  for (guint i = 0; problems != NULL && i < problems->len; i++)
    hs_error_bar_add (self->error_bar, NULL, g_ptr_array_index (problems, i));

  g_clear_pointer (&self->session, hs_annotation_session_free);
  self->session = session;
  project = hs_annotation_session_get_project (session);
  build_questions (self, project->form);
  self->index = hs_annotation_session_next_unanswered (session);
  _hs_annotation_window_show_item (self);
  return TRUE;
}

HsAnnotationSession *
hs_annotation_window_get_session (HsAnnotationWindow *self)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), NULL);
  return self->session;
}

GtkWidget *
hs_annotation_window_get_canvas (HsAnnotationWindow *self)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), NULL);
  return GTK_WIDGET (self->canvas);
}

int
hs_annotation_window_get_index (HsAnnotationWindow *self)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), -1);
  return self->session != NULL ? self->index : -1;
}

gboolean
hs_annotation_window_go_to (HsAnnotationWindow *self, guint index)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), FALSE);

  if (self->session == NULL || index >= hs_annotation_session_get_n_items (self->session))
    return FALSE;
  self->index = (int) index;
  _hs_annotation_window_show_item (self);
  return TRUE;
}

const char *
hs_annotation_window_get_progress (HsAnnotationWindow *self)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), NULL);
  return self->progress;
}

const char *
hs_annotation_window_get_alias (HsAnnotationWindow *self)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), NULL);
  return gtk_label_get_text (self->alias_label);
}

const char *
hs_annotation_window_get_prompt (HsAnnotationWindow *self)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), NULL);
  return gtk_label_get_text (self->prompt_label);
}

static void
collect_text (GtkWidget *widget, GString *out)
{
  const char *tooltip = gtk_widget_get_tooltip_text (widget);

  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  if (GTK_IS_BUTTON (widget) && gtk_button_get_label (GTK_BUTTON (widget)) != NULL)
    g_string_append_printf (out, "%s\n", gtk_button_get_label (GTK_BUTTON (widget)));
  if (GTK_IS_EDITABLE (widget))
    g_string_append_printf (out, "%s\n", gtk_editable_get_text (GTK_EDITABLE (widget)));
  if (tooltip != NULL)
    g_string_append_printf (out, "%s\n", tooltip);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_text (child, out);
}

char *
hs_annotation_window_dup_visible_text (HsAnnotationWindow *self)
{
  GString *out = g_string_new (NULL);
  GtkWidget *titlebar;
  char *caption = NULL;

  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), NULL);
  g_string_append_printf (out, "%s\n", gtk_window_get_title (GTK_WINDOW (self)));
  titlebar = gtk_window_get_titlebar (GTK_WINDOW (self));
  if (titlebar != NULL)
    collect_text (titlebar, out);
  collect_text (gtk_window_get_child (GTK_WINDOW (self)), out);
  g_object_get (self->canvas, "caption", &caption, NULL);
  if (caption != NULL)
    g_string_append_printf (out, "%s\n", caption);
  g_free (caption);
  return g_string_free (out, FALSE);
}

int
hs_annotation_window_get_level (HsAnnotationWindow *self, guint q)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), -1);
  return q < HS_ANNOTATION_N_QUESTIONS && self->session != NULL ? self->levels[q] : -1;
}

guint
hs_annotation_window_get_question (HsAnnotationWindow *self)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), 0);
  return self->question;
}

gboolean
hs_annotation_window_get_live_busy (HsAnnotationWindow *self)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), FALSE);
  return self->live_cancellable != NULL;
}

const char *
hs_annotation_window_get_error_text (HsAnnotationWindow *self)
{
  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), NULL);
  return hs_error_bar_get_text (self->error_bar);
}

gboolean
hs_annotation_window_export_csv (HsAnnotationWindow *self, const char *path, GError **error)
{
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (HS_IS_ANNOTATION_WINDOW (self), FALSE);
  g_return_val_if_fail (self->session != NULL, FALSE);

  if (!hs_annotation_session_export_csv (self->session, path, &local))
    {
      hs_error_bar_add_error (self->error_bar, path, local);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

/* ---- class ------------------------------------------------------------------------ */

static void
hs_annotation_window_dispose (GObject *object)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (object);

  if (self->chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  if (self->shortcuts != NULL)
    {
      GtkWindow *shortcuts = self->shortcuts;

      /* This object goes before that window may: no weak pointer into it. */
      g_object_remove_weak_pointer (G_OBJECT (shortcuts), (gpointer *) &self->shortcuts);
      self->shortcuts = NULL;
      gtk_window_destroy (shortcuts);
    }
  gtk_widget_dispose_template (GTK_WIDGET (object), HS_TYPE_ANNOTATION_WINDOW);
  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    {
      g_clear_pointer (&self->buttons[q], g_ptr_array_unref);
      self->rows[q] = NULL;
    }
  live_cancel (self);
  g_clear_object (&self->live);
  g_clear_pointer (&self->session, hs_annotation_session_free);
  g_clear_object (&self->state);
  G_OBJECT_CLASS (hs_annotation_window_parent_class)->dispose (object);
}

static void
hs_annotation_window_finalize (GObject *object)
{
  HsAnnotationWindow *self = HS_ANNOTATION_WINDOW (object);

  g_free (self->progress);
  g_free (self->typed_prompt);
  G_OBJECT_CLASS (hs_annotation_window_parent_class)->finalize (object);
}

static void
hs_annotation_window_class_init (HsAnnotationWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_annotation_window_dispose;
  object_class->finalize = hs_annotation_window_finalize;

  g_type_ensure (HS_TYPE_CANVAS);
  g_type_ensure (HS_TYPE_ERROR_BAR);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-annotation-window.ui");
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, error_bar);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, empty_label);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, canvas);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, position_label);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, alias_label);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, prompt_label);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, prompt_entry);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, questions_box);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, hint_label);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, heatmap_check);
  gtk_widget_class_bind_template_child (widget_class, HsAnnotationWindow, opacity_scale);

  _hs_annotation_window_class_add_actions (widget_class);
}

static void
hs_annotation_window_init (HsAnnotationWindow *self)
{
  self->index = -1;
  self->no_attn = NAN;
  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    self->levels[q] = -1;
  gtk_widget_init_template (GTK_WIDGET (self));
  _hs_css_init ();
  self->state = hs_view_state_new ();
  hs_canvas_set_view_state (self->canvas, self->state);
  /* the error bar lies over the canvas's top: its colour bar goes below it */
  g_object_bind_property (self->error_bar, "shown-height", self->canvas, "hud-top",
                          G_BINDING_SYNC_CREATE);
  /* The heatmap toggle and its opacity, so the anatomy under it can be
   * seen; for this window only (not saved). */
  g_object_bind_property (self->state, "show-overlay", self->heatmap_check, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->state, "opacity", gtk_range_get_adjustment (GTK_RANGE (self->opacity_scale)),
                          "value", G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->state, "show-overlay", self->opacity_scale, "sensitive", G_BINDING_SYNC_CREATE);
  /* The canvas binds digits to zoom; here they answer questions. */
  gtk_widget_set_focusable (GTK_WIDGET (self->canvas), FALSE);
  update_hint (self, HS_ANNOTATION_FORM_THREE);
  g_signal_connect (self->prompt_entry, "activate", G_CALLBACK (on_prompt_activate), self);
  update_actions (self);
}
