/* hs-presentation-window.c — a demo deck full-screen, one case per screen */
#include <glib/gi18n.h>

#include "hs-css-private.h"
#include "hs-presentation-window.h"

struct _HsPresentationWindow
{
  GtkWindow      parent_instance;

  GtkStack      *view_stack;
  GtkSpinner    *spinner;
  HsCanvas      *canvas;
  HsCompareView *compare_view;
  GtkLabel      *sentence_label;
  GtkLabel      *note_label;
  GtkLabel      *counter_label;

  HsViewState   *state;       /* the canvas's: H and G change it, not the viewer's */
  guint          n_cases;
  guint          index;
  gboolean       ready;
  gboolean       compare;
  gboolean       reveal;
  HsRevealStep   step;
  gboolean       heatmap_shown;
  gboolean       truth_shown;
  gboolean       case_heatmap;  /* what the case itself shows once revealed */
  gboolean       case_truth;
  gboolean       case_boxes, case_masks;
};

G_DEFINE_FINAL_TYPE (HsPresentationWindow, hs_presentation_window, GTK_TYPE_WINDOW)

enum { STEP, N_SIGNALS };
static guint signals[N_SIGNALS];

/* The heatmap and ground truth shown into every canvas on screen: the
 * single view's, or each cell's of the compare view (whose states are
 * copies made when it loaded). */
static void
apply_layers (HsPresentationWindow *self)
{
  guint n = self->compare ? hs_compare_view_get_n_canvases (self->compare_view) : 1;

  for (guint i = 0; i < n; i++)
    {
      HsCanvas *canvas = self->compare ? hs_compare_view_get_canvas (self->compare_view, i) : self->canvas;
      HsViewState *state = canvas != NULL ? hs_canvas_get_view_state (canvas) : NULL;

      if (state == NULL)
        continue;
      g_object_set (state, "show-overlay", self->heatmap_shown,
                    "show-boxes", self->truth_shown && self->case_boxes,
                    "show-masks", self->truth_shown && self->case_masks, NULL);
    }
}

static void
set_step (HsPresentationWindow *self, HsRevealStep step)
{
  self->step = step;
  self->heatmap_shown = self->case_heatmap && step >= HS_REVEAL_HEATMAP;
  self->truth_shown = self->case_truth && step >= HS_REVEAL_TRUTH;
  apply_layers (self);
}

static void
go_to (HsPresentationWindow *self, guint index)
{
  if (index >= self->n_cases || index == self->index)
    return;
  self->index = index;
  self->ready = FALSE;
  gtk_stack_set_visible_child_name (self->view_stack, "loading");
  gtk_spinner_start (self->spinner);
  g_signal_emit (self, signals[STEP], 0, index);
}

static void
next_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsPresentationWindow *self = HS_PRESENTATION_WINDOW (widget);

  if (!self->ready)
    return;
  /* A case with reveal shows its heatmap, then its ground truth first. */
  if (self->reveal && self->step < HS_REVEAL_TRUTH)
    set_step (self, self->step + 1);
  else
    go_to (self, self->index + 1);
}

static void
previous_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsPresentationWindow *self = HS_PRESENTATION_WINDOW (widget);

  if (self->ready && self->index > 0)
    go_to (self, self->index - 1);
}

static void
toggle_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsPresentationWindow *self = HS_PRESENTATION_WINDOW (widget);

  if (!self->ready)
    return;
  if (g_str_equal (action_name, "presentation.blink"))
    {
      if (self->compare && hs_compare_view_get_mode (self->compare_view) == HS_COMPARE_MODE_PAIR)
        hs_compare_view_set_blink (self->compare_view, !hs_compare_view_get_blink (self->compare_view));
      return;
    }
  if (g_str_equal (action_name, "presentation.heatmap"))
    self->heatmap_shown = !self->heatmap_shown;
  else
    self->truth_shown = !self->truth_shown;
  apply_layers (self);
}

static void
leave_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  gtk_window_destroy (GTK_WINDOW (widget));
}

static void
hs_presentation_window_dispose (GObject *object)
{
  HsPresentationWindow *self = HS_PRESENTATION_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), HS_TYPE_PRESENTATION_WINDOW);
  g_clear_object (&self->state);
  G_OBJECT_CLASS (hs_presentation_window_parent_class)->dispose (object);
}

static const struct { guint key; const char *action; } keys[] = {
    { GDK_KEY_Right, "presentation.next" },
    { GDK_KEY_Page_Down, "presentation.next" },
    { GDK_KEY_space, "presentation.next" },
    { GDK_KEY_Left, "presentation.previous" },
    { GDK_KEY_Page_Up, "presentation.previous" },
    { GDK_KEY_b, "presentation.blink" },
    { GDK_KEY_h, "presentation.heatmap" },
    { GDK_KEY_g, "presentation.truth" },
    { GDK_KEY_Escape, "presentation.leave" },
};

static const struct { const char *name; GtkWidgetActionActivateFunc activate; } actions[] = {
  { "presentation.next", next_action },
  { "presentation.previous", previous_action },
  { "presentation.blink", toggle_action },
  { "presentation.heatmap", toggle_action },
  { "presentation.truth", toggle_action },
  { "presentation.leave", leave_action },
};

static void
hs_presentation_window_class_init (HsPresentationWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_presentation_window_dispose;

  signals[STEP] = g_signal_new ("step", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  g_type_ensure (HS_TYPE_CANVAS);
  g_type_ensure (HS_TYPE_COMPARE_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-presentation-window.ui");
  gtk_widget_class_bind_template_child (widget_class, HsPresentationWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, HsPresentationWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, HsPresentationWindow, canvas);
  gtk_widget_class_bind_template_child (widget_class, HsPresentationWindow, compare_view);
  gtk_widget_class_bind_template_child (widget_class, HsPresentationWindow, sentence_label);
  gtk_widget_class_bind_template_child (widget_class, HsPresentationWindow, note_label);
  gtk_widget_class_bind_template_child (widget_class, HsPresentationWindow, counter_label);

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    gtk_widget_class_install_action (widget_class, actions[i].name, NULL, actions[i].activate);
}

/* The compare view's buttons (Blink, Fit, Export) are for the desk, not
 * the room: the keys do their work here. */
static void
hide_buttons (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child))
      gtk_widget_set_visible (child, FALSE);
    else
      hide_buttons (child);
}

static void
hs_presentation_window_init (HsPresentationWindow *self)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();

  gtk_widget_init_template (GTK_WIDGET (self));
  _hs_css_init ();
  /* Before anything focused (the window's own arrow keys move the focus,
   * a canvas zooms): every key of the presenter's is the presentation's. */
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (keys[i].key, 0),
                                                            gtk_named_action_new (keys[i].action)));
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
  hide_buttons (GTK_WIDGET (self->compare_view));
  self->state = hs_view_state_new ();
  hs_canvas_set_view_state (self->canvas, self->state);
  self->index = G_MAXUINT;
  self->heatmap_shown = self->truth_shown = TRUE;
}

HsPresentationWindow *
hs_presentation_window_new (GtkWindow *parent, guint n_cases)
{
  HsPresentationWindow *self = g_object_new (HS_TYPE_PRESENTATION_WINDOW, NULL);

  if (parent != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (self), parent);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);
  self->n_cases = n_cases;
  return self;
}

/* The first case is asked for once the window is shown (the caller
 * connected to "step" by then). */
void
hs_presentation_window_start (HsPresentationWindow *self, guint index)
{
  g_return_if_fail (HS_IS_PRESENTATION_WINDOW (self));
  go_to (self, MIN (index, self->n_cases - 1));
}

guint
hs_presentation_window_get_index (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), 0);
  return self->index;
}

guint
hs_presentation_window_get_n_cases (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), 0);
  return self->n_cases;
}

HsCanvas *
hs_presentation_window_get_canvas (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), NULL);
  return self->canvas;
}

HsCompareView *
hs_presentation_window_get_compare_view (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), NULL);
  return self->compare_view;
}

void
hs_presentation_window_show_case (HsPresentationWindow *self, guint index, gboolean compare,
                                  const char *sentence, const char *note, gboolean reveal)
{
  g_autofree char *counter = NULL;
  HsCanvas *first;
  HsViewState *state;

  g_return_if_fail (HS_IS_PRESENTATION_WINDOW (self));
  self->index = index;
  self->compare = compare;
  first = compare ? hs_compare_view_get_canvas (self->compare_view, 0) : self->canvas;
  state = first != NULL ? hs_canvas_get_view_state (first) : NULL;
  self->case_heatmap = state == NULL || hs_view_state_get_show_overlay (state);
  self->case_boxes = state == NULL || hs_view_state_get_show_boxes (state);
  self->case_masks = state == NULL || hs_view_state_get_show_masks (state);
  self->case_truth = self->case_boxes || self->case_masks;
  self->reveal = reveal;
  self->ready = TRUE;
  gtk_spinner_stop (self->spinner);
  gtk_stack_set_visible_child_name (self->view_stack, compare ? "compare" : "single");
  gtk_label_set_text (self->sentence_label, sentence != NULL ? sentence : "");
  gtk_label_set_text (self->note_label, note != NULL ? note : "");
  gtk_widget_set_visible (GTK_WIDGET (self->note_label), note != NULL && *note != '\0');
  /* Translators: the case counter of presentation mode, "3 / 10" */
  counter = g_strdup_printf (_("%u / %u"), index + 1, self->n_cases);
  gtk_label_set_text (self->counter_label, counter);
  set_step (self, reveal ? HS_REVEAL_IMAGE : HS_REVEAL_TRUTH);
}

gboolean
hs_presentation_window_get_heatmap_shown (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), FALSE);
  return self->heatmap_shown;
}

gboolean
hs_presentation_window_get_truth_shown (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), FALSE);
  return self->truth_shown;
}

HsRevealStep
hs_presentation_window_get_reveal_step (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), HS_REVEAL_TRUTH);
  return self->step;
}

gboolean
hs_presentation_window_get_ready (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), FALSE);
  return self->ready;
}

const char *
hs_presentation_window_get_counter (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), NULL);
  return gtk_label_get_text (self->counter_label);
}

const char *
hs_presentation_window_get_sentence (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), NULL);
  return gtk_label_get_text (self->sentence_label);
}

GtkWidget *
hs_presentation_window_get_view_area (HsPresentationWindow *self)
{
  g_return_val_if_fail (HS_IS_PRESENTATION_WINDOW (self), NULL);
  return GTK_WIDGET (self->view_stack);
}
