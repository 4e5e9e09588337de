/* hs-deck-panel.c — the cases of the open demo deck as a list */
#include <glib/gi18n.h>

#include "hs-css-private.h"
#include "hs-deck-panel.h"

#define THUMB_W 96
#define THUMB_H 72

struct _HsDeckPanel
{
  GtkWidget    parent_instance;

  GtkWidget   *box;
  GtkLabel    *title_label;
  GtkListBox  *list;
  GtkLabel    *empty_label;
  GtkRevealer *undo_revealer;
  GtkLabel    *undo_label;

  gboolean     filling;   /* set_case writes a note: not an edit */
};

G_DEFINE_FINAL_TYPE (HsDeckPanel, hs_deck_panel, GTK_TYPE_WIDGET)

enum { OPEN_CASE, MOVE_CASE, NOTE_CHANGED, DUPLICATE_CASE, DELETE_CASE, UNDO_DELETE, TOGGLE_REVEAL, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- rows ------------------------------------------------------------------ */

static GtkListBoxRow *
row_at (HsDeckPanel *self, guint index)
{
  return index <= G_MAXINT ? gtk_list_box_get_row_at_index (self->list, (int) index) : NULL;
}

static GtkEditableLabel *
row_note (GtkListBoxRow *row)
{
  return g_object_get_data (G_OBJECT (row), "hs-note");
}

static void
update_actions (HsDeckPanel *self)
{
  guint n = hs_deck_panel_get_n_cases (self);
  guint selected = hs_deck_panel_get_selected (self);
  gboolean have = selected != G_MAXUINT;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "deck.duplicate", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "deck.toggle-reveal", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "deck.delete", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "deck.move-up", have && selected > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "deck.move-down", have && selected + 1 < n);
  gtk_widget_set_visible (GTK_WIDGET (self->empty_label), n == 0);
}

/* An edited note is committed when editing stops (Enter or focus out);
 * Escape gives back the text it had. */
static void
on_note_editing (GtkEditableLabel *label, GParamSpec *pspec, HsDeckPanel *self)
{
  GtkListBoxRow *row;

  if (self->filling || gtk_editable_label_get_editing (label))
    return;
  row = g_object_get_data (G_OBJECT (label), "hs-row");
  g_signal_emit (self, signals[NOTE_CHANGED], 0, (guint) gtk_list_box_row_get_index (row),
                 gtk_editable_get_text (GTK_EDITABLE (label)));
}

static GdkContentProvider *
on_drag_prepare (GtkDragSource *source, double x, double y, GtkListBoxRow *row)
{
  return gdk_content_provider_new_typed (G_TYPE_UINT, (guint) gtk_list_box_row_get_index (row));
}

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, GtkListBoxRow *row)
{
  HsDeckPanel *self = g_object_get_data (G_OBJECT (row), "hs-panel");
  guint from = g_value_get_uint (value);
  guint to = (guint) gtk_list_box_row_get_index (row);

  if (from == to || from >= hs_deck_panel_get_n_cases (self))
    return FALSE;
  g_signal_emit (self, signals[MOVE_CASE], 0, from, to);
  return TRUE;
}

static GtkWidget *
new_row (HsDeckPanel *self)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *hbox = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *picture = gtk_picture_new ();
  GtkWidget *title = gtk_label_new (NULL);
  GtkWidget *note = gtk_editable_label_new ("");
  GtkDragSource *source = gtk_drag_source_new ();
  GtkDropTarget *target = gtk_drop_target_new (G_TYPE_UINT, GDK_ACTION_MOVE);

  gtk_widget_set_size_request (picture, THUMB_W, THUMB_H);
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
  gtk_widget_set_valign (picture, GTK_ALIGN_START);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_wrap (GTK_LABEL (title), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (title), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_lines (GTK_LABEL (title), 3);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (title, "hs-deck-title");
  gtk_widget_set_tooltip_text (note, _("The presenter's note: click to edit"));
  gtk_widget_add_css_class (note, "dim-label");
  gtk_widget_set_hexpand (vbox, TRUE);
  gtk_box_append (GTK_BOX (vbox), title);
  gtk_box_append (GTK_BOX (vbox), note);
  gtk_box_append (GTK_BOX (hbox), picture);
  gtk_box_append (GTK_BOX (hbox), vbox);
  gtk_widget_add_css_class (hbox, "hs-deck-row");
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), hbox);

  g_object_set_data (G_OBJECT (row), "hs-panel", self);
  g_object_set_data (G_OBJECT (row), "hs-title", title);
  g_object_set_data (G_OBJECT (row), "hs-note", note);
  g_object_set_data (G_OBJECT (row), "hs-picture", picture);
  g_object_set_data (G_OBJECT (note), "hs-row", row);
  g_signal_connect (note, "notify::editing", G_CALLBACK (on_note_editing), self);

  gtk_drag_source_set_actions (source, GDK_ACTION_MOVE);
  g_signal_connect (source, "prepare", G_CALLBACK (on_drag_prepare), row);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (source));
  g_signal_connect (target, "drop", G_CALLBACK (on_drop), row);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (target));
  return row;
}

static void
on_row_activated (GtkListBox *list, GtkListBoxRow *row, HsDeckPanel *self)
{
  g_signal_emit (self, signals[OPEN_CASE], 0, (guint) gtk_list_box_row_get_index (row));
}

static void
on_selected_rows_changed (GtkListBox *list, HsDeckPanel *self)
{
  update_actions (self);
}

/* ---- actions --------------------------------------------------------------- */

static void
row_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsDeckPanel *self = HS_DECK_PANEL (widget);
  guint selected = hs_deck_panel_get_selected (self);

  if (g_str_equal (action_name, "deck.undo-delete"))
    {
      hs_deck_panel_show_undo (self, NULL);
      g_signal_emit (self, signals[UNDO_DELETE], 0);
      return;
    }
  if (selected == G_MAXUINT)
    return;
  if (g_str_equal (action_name, "deck.duplicate"))
    g_signal_emit (self, signals[DUPLICATE_CASE], 0, selected);
  else if (g_str_equal (action_name, "deck.delete"))
    g_signal_emit (self, signals[DELETE_CASE], 0, selected);
  else if (g_str_equal (action_name, "deck.toggle-reveal"))
    g_signal_emit (self, signals[TOGGLE_REVEAL], 0, selected);
  else if (g_str_equal (action_name, "deck.move-up") && selected > 0)
    g_signal_emit (self, signals[MOVE_CASE], 0, selected, selected - 1);
  else if (g_str_equal (action_name, "deck.move-down") && selected + 1 < hs_deck_panel_get_n_cases (self))
    g_signal_emit (self, signals[MOVE_CASE], 0, selected, selected + 1);
}

/* ---- object ---------------------------------------------------------------- */

static void
hs_deck_panel_dispose (GObject *object)
{
  HsDeckPanel *self = HS_DECK_PANEL (object);

  /* The list emits selected-rows-changed while its rows go. */
  if (self->list != NULL)
    g_signal_handlers_disconnect_by_data (self->list, self);
  gtk_widget_dispose_template (GTK_WIDGET (object), HS_TYPE_DECK_PANEL);
  G_OBJECT_CLASS (hs_deck_panel_parent_class)->dispose (object);
}

static void
hs_deck_panel_class_init (HsDeckPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  const char *moves[] = { "deck.move-up", "deck.move-down", "deck.duplicate", "deck.delete",
                          "deck.undo-delete", "deck.toggle-reveal" };

  object_class->dispose = hs_deck_panel_dispose;

  signals[OPEN_CASE] = g_signal_new ("open-case", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                     0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[MOVE_CASE] = g_signal_new ("move-case", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                     0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  signals[NOTE_CHANGED] = g_signal_new ("note-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_STRING);
  signals[DUPLICATE_CASE] = g_signal_new ("duplicate-case", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[DELETE_CASE] = g_signal_new ("delete-case", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[UNDO_DELETE] = g_signal_new ("undo-delete", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[TOGGLE_REVEAL] = g_signal_new ("toggle-reveal", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heatscope/Heatscope/ui/hs-deck-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, HsDeckPanel, box);
  gtk_widget_class_bind_template_child (widget_class, HsDeckPanel, title_label);
  gtk_widget_class_bind_template_child (widget_class, HsDeckPanel, list);
  gtk_widget_class_bind_template_child (widget_class, HsDeckPanel, empty_label);
  gtk_widget_class_bind_template_child (widget_class, HsDeckPanel, undo_revealer);
  gtk_widget_class_bind_template_child (widget_class, HsDeckPanel, undo_label);
  gtk_widget_class_bind_template_callback (widget_class, on_row_activated);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "hs-deck-panel");

  for (guint i = 0; i < G_N_ELEMENTS (moves); i++)
    gtk_widget_class_install_action (widget_class, moves[i], NULL, row_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Up, GDK_CONTROL_MASK, "deck.move-up", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Down, GDK_CONTROL_MASK, "deck.move-down", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, 0, "deck.delete", NULL);
}

static void
hs_deck_panel_init (HsDeckPanel *self)
{
  GtkEventController *keys;
  GtkShortcutTrigger *up, *down;

  gtk_widget_init_template (GTK_WIDGET (self));
  _hs_css_init ();
  g_signal_connect (self->list, "selected-rows-changed", G_CALLBACK (on_selected_rows_changed), self);

  /* The list box moves its cursor on Ctrl+Up/Down itself: the panel's
   * moves come first (capture phase). */
  keys = gtk_shortcut_controller_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  up = gtk_keyval_trigger_new (GDK_KEY_Up, GDK_CONTROL_MASK);
  down = gtk_keyval_trigger_new (GDK_KEY_Down, GDK_CONTROL_MASK);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (up, gtk_named_action_new ("deck.move-up")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (down, gtk_named_action_new ("deck.move-down")));
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
  update_actions (self);
}

GtkWidget *
hs_deck_panel_new (void)
{
  return g_object_new (HS_TYPE_DECK_PANEL, NULL);
}

void
hs_deck_panel_set_title (HsDeckPanel *self, const char *title)
{
  g_return_if_fail (HS_IS_DECK_PANEL (self));
  gtk_label_set_text (self->title_label, title != NULL ? title : _("No deck open"));
}

guint
hs_deck_panel_get_n_cases (HsDeckPanel *self)
{
  guint n = 0;

  g_return_val_if_fail (HS_IS_DECK_PANEL (self), 0);
  while (row_at (self, n) != NULL)
    n++;
  return n;
}

void
hs_deck_panel_set_n_cases (HsDeckPanel *self, guint n)
{
  guint have;

  g_return_if_fail (HS_IS_DECK_PANEL (self));
  have = hs_deck_panel_get_n_cases (self);
  for (; have < n; have++)
    gtk_list_box_append (self->list, new_row (self));
  for (; have > n; have--)
    gtk_list_box_remove (self->list, GTK_WIDGET (row_at (self, have - 1)));
  update_actions (self);
}

void
hs_deck_panel_set_case (HsDeckPanel *self, guint index, const char *title, const char *note,
                        GdkPaintable *thumbnail)
{
  GtkListBoxRow *row;

  g_return_if_fail (HS_IS_DECK_PANEL (self));
  row = row_at (self, index);
  g_return_if_fail (row != NULL);
  self->filling = TRUE;
  gtk_label_set_text (g_object_get_data (G_OBJECT (row), "hs-title"), title != NULL ? title : "");
  gtk_editable_set_text (GTK_EDITABLE (row_note (row)), note != NULL ? note : "");
  gtk_picture_set_paintable (g_object_get_data (G_OBJECT (row), "hs-picture"), thumbnail);
  self->filling = FALSE;
}

const char *
hs_deck_panel_get_title_of (HsDeckPanel *self, guint index)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (HS_IS_DECK_PANEL (self), NULL);
  row = row_at (self, index);
  return row != NULL ? gtk_label_get_text (g_object_get_data (G_OBJECT (row), "hs-title")) : NULL;
}

const char *
hs_deck_panel_get_note (HsDeckPanel *self, guint index)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (HS_IS_DECK_PANEL (self), NULL);
  row = row_at (self, index);
  return row != NULL ? gtk_editable_get_text (GTK_EDITABLE (row_note (row))) : NULL;
}

guint
hs_deck_panel_get_selected (HsDeckPanel *self)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (HS_IS_DECK_PANEL (self), G_MAXUINT);
  row = gtk_list_box_get_selected_row (self->list);
  return row != NULL ? (guint) gtk_list_box_row_get_index (row) : G_MAXUINT;
}

void
hs_deck_panel_select (HsDeckPanel *self, guint index)
{
  GtkListBoxRow *row;

  g_return_if_fail (HS_IS_DECK_PANEL (self));
  row = row_at (self, index);
  gtk_list_box_select_row (self->list, row);
  if (row != NULL && gtk_widget_get_mapped (GTK_WIDGET (self)))
    gtk_widget_grab_focus (GTK_WIDGET (row));
  update_actions (self);
}

void
hs_deck_panel_edit_note (HsDeckPanel *self, guint index, const char *note)
{
  GtkListBoxRow *row;

  g_return_if_fail (HS_IS_DECK_PANEL (self));
  row = row_at (self, index);
  g_return_if_fail (row != NULL);
  gtk_editable_set_text (GTK_EDITABLE (row_note (row)), note);
  g_signal_emit (self, signals[NOTE_CHANGED], 0, index, note);
}

void
hs_deck_panel_show_undo (HsDeckPanel *self, const char *message)
{
  g_return_if_fail (HS_IS_DECK_PANEL (self));
  gtk_label_set_text (self->undo_label, message != NULL ? message : "");
  gtk_revealer_set_reveal_child (self->undo_revealer, message != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "deck.undo-delete", message != NULL);
}

gboolean
hs_deck_panel_get_undo_visible (HsDeckPanel *self)
{
  g_return_val_if_fail (HS_IS_DECK_PANEL (self), FALSE);
  return gtk_revealer_get_reveal_child (self->undo_revealer);
}
