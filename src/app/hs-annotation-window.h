/* hs-annotation-window.h — annotation mode: blinded maps, one at a time
 *
 * Opens an annotation project (hs-annotation.h) and walks the annotator
 * through its items: the radiograph with ONE map, labelled only by its alias
 * ("Model B"; the real model name is never shown), the sentence or custom
 * prompt, and the project's three questions as rows of toggle buttons
 * (correct / useful / precise: no, partially, yes; or recall %, precision %
 * in 20 % buckets and intuitiveness 1–5).
 *
 * Keyboard: the digits answer the current question (1–3, or 1–6 for
 * Likert; the hint under the questions names them) and move to the next
 * one (Up/Down change the question); once the three questions of an
 * item are answered the answer is saved at once through
 * hs_annotation_session_answer (atomic rewrite of the JSONL file) and the
 * next item is shown.  Page Up/Page Down (or Alt+Left/Right) move between
 * items; opening a project resumes at the first unanswered item.  A
 * custom-round item without a listed prompt gives the keyboard to the prompt
 * entry first (Enter hands it back to the answer keys); the prompt typed
 * for one alias is shown for the instance's other aliases.  A custom prompt
 * without a precomputed map of the item's model is attended live when the
 * model is a built-in one, or the user's external backend recorded as what
 * computed that model's maps (never a command from the dataset).
 *
 * Actions (widget actions, usable from tests):
 *   annotation.open            file chooser for a project
 *   annotation.export          file chooser for the CSV export
 *   annotation.answer  "(uu)"  question, level (0-based)
 *   annotation.level   "u"     level of the current question
 *   annotation.next, annotation.previous, annotation.next-unanswered
 *   annotation.question-next, annotation.question-previous
 *   annotation.toggle-heatmap  (H, Ctrl+H; the Heatmap check and the
 *                              opacity slider beside it: see the anatomy)
 *   annotation.show-shortcuts  (Ctrl+?: this window's keys)
 *   annotation.viewer          (Esc, the Viewer button: back to the main
 *                              window, a new one if there is none)
 * A problem shows in a bar over the top of the canvas (it does not move).
 * Template: ui/hs-annotation-window.ui. */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-annotation.h>

G_BEGIN_DECLS

#define HS_TYPE_ANNOTATION_WINDOW (hs_annotation_window_get_type ())
G_DECLARE_FINAL_TYPE (HsAnnotationWindow, hs_annotation_window, HS, ANNOTATION_WINDOW, GtkWindow)

/* `parent` may be NULL; the window joins its application when given. */
GtkWidget           *hs_annotation_window_new            (GtkWindow *parent);
/* A new annotation window of `app` (no main window) on `project_path`,
 * presented; a project that cannot be opened is reported in the window.
 * `heatscope --annotate PROJECT` starts here. */
HsAnnotationWindow  *hs_annotation_window_present_project (GtkApplication *app,
                                                           const char *project_path);
/* Loads the project, its dataset and answers, and shows the first
 * unanswered item.  Problems in the answers file (skipped lines) are shown
 * in the window.  On failure the window shows the error too. */
gboolean             hs_annotation_window_open           (HsAnnotationWindow *self,
                                                          const char *project_path,
                                                          GError **error);
HsAnnotationSession *hs_annotation_window_get_session    (HsAnnotationWindow *self);
/* The canvas showing the item's map (tests). */
GtkWidget           *hs_annotation_window_get_canvas     (HsAnnotationWindow *self);
/* The item on screen, −1 without a session. */
int                  hs_annotation_window_get_index      (HsAnnotationWindow *self);
gboolean             hs_annotation_window_go_to          (HsAnnotationWindow *self, guint index);
/* "12 / 80": answered items / items (also in the window title, so the
 * progress shows in the task bar). */
const char          *hs_annotation_window_get_progress   (HsAnnotationWindow *self);
/* What the window shows as the map's name (the alias) and the prompt. */
const char          *hs_annotation_window_get_alias      (HsAnnotationWindow *self);
const char          *hs_annotation_window_get_prompt     (HsAnnotationWindow *self);
/* Every text the window shows (labels, titles, tooltips), joined: tests
 * check that no real model name appears. */
char                *hs_annotation_window_dup_visible_text (HsAnnotationWindow *self);
/* The level (0-based) chosen for question q of the item on screen, −1. */
int                  hs_annotation_window_get_level      (HsAnnotationWindow *self, guint q);
guint                hs_annotation_window_get_question   (HsAnnotationWindow *self);
/* TRUE while the map of a custom prompt without a precomputed one is
 * being attended live (with the item's model, off the main thread). */
gboolean             hs_annotation_window_get_live_busy  (HsAnnotationWindow *self);
/* The newest problem shown in the window, or NULL. */
const char          *hs_annotation_window_get_error_text (HsAnnotationWindow *self);
gboolean             hs_annotation_window_export_csv     (HsAnnotationWindow *self,
                                                          const char *path, GError **error);

G_END_DECLS
