/* hs-annotation-window-private.h — what the files of HsAnnotationWindow share
 *
 *   hs-annotation-window.c          the object and template, the questions,
 *                                   the item on screen, the public calls
 *   hs-annotation-window-actions.c  the annotation.* actions and their keys,
 *                                   the choosers, the shortcuts window, the
 *                                   way back to the viewer
 */
#pragma once

#include "hs-annotation-window.h"
#include "hs-canvas.h"
#include "hs-error-bar.h"
#include "hs-live-attend.h"
#include "hs-view-state.h"

G_BEGIN_DECLS

struct _HsAnnotationWindow
{
  GtkWindow            parent_instance;

  GtkLabel            *title_label;
  GtkLabel            *progress_label;
  HsErrorBar          *error_bar;
  GtkStack            *stack;
  GtkLabel            *empty_label;
  HsCanvas            *canvas;
  /* The stamp of the canvas's image's file from before its decode, which
   * live maps of it are kept under (NULL: the file was not there). */
  HsFileStamp          image_stamp_buf;
  const HsFileStamp   *image_stamp;
  GtkLabel            *position_label;
  GtkLabel            *alias_label;
  GtkLabel            *prompt_label;
  GtkEntry            *prompt_entry;
  GtkBox              *questions_box;
  GtkLabel            *hint_label;
  GtkCheckButton      *heatmap_check;
  GtkScale            *opacity_scale;

  HsAnnotationSession *session;
  HsViewState         *state;
  int                  index;
  guint                question;
  int                  levels[HS_ANNOTATION_N_QUESTIONS];
  GtkWidget           *rows[HS_ANNOTATION_N_QUESTIONS];      /* one box per question */
  GPtrArray           *buttons[HS_ANNOTATION_N_QUESTIONS];   /* GtkToggleButton* per level */
  gboolean             updating;
  char                *progress;
  char                *typed_prompt;   /* a custom prompt the annotator typed */
  double               no_attn;
  GtkFileChooserNative *chooser;
  GtkWindow           *shortcuts;      /* weak: the shortcuts window while open */
  /* A custom prompt without a precomputed map is attended live with the
   * item's model (created on first use); a newer item or prompt cancels
   * the request and bumps the serial, so a late map is never shown. */
  HsLiveAttend        *live;
  GCancellable        *live_cancellable;
  guint                live_serial;
  gboolean             save_pending;   /* answered before the live map came */
};

/* hs-annotation-window.c */
void _hs_annotation_window_show_item         (HsAnnotationWindow *self);
void _hs_annotation_window_set_level         (HsAnnotationWindow *self, guint q, int level);
void _hs_annotation_window_update_question_highlight (HsAnnotationWindow *self);

/* hs-annotation-window-actions.c: the actions and their key bindings */
void _hs_annotation_window_class_add_actions (GtkWidgetClass *widget_class);

G_END_DECLS
