/* hs-deck-panel.h — the cases of the open demo deck as a list
 *
 * One row per case: a thumbnail of its view, a title (instance and
 * sentence or prompt, the view kind) and the presenter's note, editable in
 * place.  The panel owns no deck: the window fills it (hs_deck_panel_set_case
 * per row) and acts on its signals, so the deck file stays the one truth.
 *
 * Signals (case indices are 0-based rows):
 *   "open-case"   (guint index)              a row activated (Enter, click)
 *   "move-case"   (guint from, guint to)     drag and drop, or Ctrl+Up/Down
 *   "note-changed"(guint index, char *note)  an edited note committed
 *   "duplicate-case", "delete-case" (guint index)
 *   "undo-delete" ()                         the Undo of the bar after a delete
 *   "toggle-reveal" (guint index)            present the case in steps, or not
 * Actions: deck.duplicate, deck.toggle-reveal, deck.delete (Delete), deck.move-up (Ctrl+Up),
 * deck.move-down (Ctrl+Down), deck.undo-delete; win.deck-present (F5) is the
 * window's.  Template: ui/hs-deck-panel.ui. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HS_TYPE_DECK_PANEL (hs_deck_panel_get_type ())
G_DECLARE_FINAL_TYPE (HsDeckPanel, hs_deck_panel, HS, DECK_PANEL, GtkWidget)

GtkWidget  *hs_deck_panel_new          (void);
/* The deck's file name above the list (NULL: no deck open). */
void        hs_deck_panel_set_title    (HsDeckPanel *self, const char *title);
/* Exactly `n` rows (new ones empty, extra ones removed). */
void        hs_deck_panel_set_n_cases  (HsDeckPanel *self, guint n);
guint       hs_deck_panel_get_n_cases  (HsDeckPanel *self);
/* Row `index`: its title, its note and its thumbnail (NULL: none). */
void        hs_deck_panel_set_case     (HsDeckPanel *self, guint index, const char *title,
                                        const char *note, GdkPaintable *thumbnail);
const char *hs_deck_panel_get_title_of (HsDeckPanel *self, guint index);
const char *hs_deck_panel_get_note     (HsDeckPanel *self, guint index);
/* The selected row (G_MAXUINT: none); selecting scrolls to it. */
guint       hs_deck_panel_get_selected (HsDeckPanel *self);
void        hs_deck_panel_select       (HsDeckPanel *self, guint index);
/* Edits row `index`'s note as if typed and committed. */
void        hs_deck_panel_edit_note    (HsDeckPanel *self, guint index, const char *note);
/* The bar saying what was deleted, with Undo (NULL hides it). */
void        hs_deck_panel_show_undo    (HsDeckPanel *self, const char *message);
gboolean    hs_deck_panel_get_undo_visible (HsDeckPanel *self);

G_END_DECLS
