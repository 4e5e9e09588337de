/* hs-window-deck.c — the window's demo deck: the deck panel, the file
 * (saved with the atomic writer after every change, restored on start like
 * the last dataset), "Add to deck" from every view, opening a case, and
 * presentation mode (F5)
 *
 * Cases are captured and restored in hs-window-deck-case.c.  Restoring
 * needs the instance's image for the viewport and a comparison: what waits
 * for it is the pending case, finished when the window stops loading.
 */
#include <glib/gi18n.h>
#include <heatscope/heatscope.h>

#include "hs-window-private.h"
#include "hs-deck-panel.h"
#include "hs-presentation-window.h"

#define THUMB_W 192
#define THUMB_H 144

/* ---- the file ------------------------------------------------------------------- */

static void
report (HsWindow *self, const char *file, const GError *error)
{
  hs_error_bar_add_error (self->error_bar, file, error);
}

/* The dataset's folder relative to the deck's folder: decks name their
 * dataset beneath themselves (hs_deck_path_is_plain). */
static char *
dataset_relative (HsWindow *self, const char *deck_path, GError **error)
{
  g_autofree char *deck_dir = g_path_get_dirname (deck_path);
  g_autofree char *canonical_deck = g_canonicalize_filename (deck_dir, NULL);
  g_autofree char *root = g_canonicalize_filename (hs_dataset_get_root (self->dataset), NULL);
  gsize n = strlen (canonical_deck);

  if (g_str_equal (root, canonical_deck))
    return g_strdup (".");
  if (g_str_has_prefix (root, canonical_deck) && root[n] == G_DIR_SEPARATOR)
    return g_strdup (root + n + 1);
  g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID,
               _("%s: the dataset %s is not in the deck's folder or beneath it"), deck_path, root);
  return NULL;
}

static gboolean
save_deck (HsWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (self->deck == NULL || self->deck_path == NULL)
    return FALSE;
  if (!hs_deck_save (self->deck, self->deck_path, &error))
    {
      report (self, self->deck_path, error);
      return FALSE;
    }
  return TRUE;
}

static void
fill_row (HsWindow *self, guint index)
{
  HsDeckCase *item = g_ptr_array_index (self->deck->cases, index);
  g_autofree char *title = _hs_window_deck_case_title (item);
  GdkPaintable *thumb = g_hash_table_lookup (self->deck_thumbs, item);

  hs_deck_panel_set_case (HS_DECK_PANEL (self->deck_panel), index, title, item->note, thumb);
}

static void
fill_panel (HsWindow *self)
{
  HsDeckPanel *panel = HS_DECK_PANEL (self->deck_panel);
  guint n = self->deck != NULL ? self->deck->cases->len : 0;
  g_autofree char *name = self->deck_path != NULL ? g_path_get_basename (self->deck_path) : NULL;

  hs_deck_panel_set_title (panel, name);
  hs_deck_panel_set_n_cases (panel, n);
  for (guint i = 0; i < n; i++)
    fill_row (self, i);
  _hs_window_deck_update_actions (self);
}

static void
set_deck (HsWindow *self, HsDeck *deck, const char *path)
{
  g_clear_pointer (&self->deck, hs_deck_free);
  g_clear_pointer (&self->deck_deleted, hs_deck_case_free);
  g_hash_table_remove_all (self->deck_thumbs);
  self->deck = deck;
  g_free (self->deck_path);
  self->deck_path = g_strdup (path);
  g_clear_pointer (&self->deck_verify, _hs_deck_verify_free);
  self->deck_checked = FALSE;
  self->deck_present_waiting = FALSE;
  if (self->settings != NULL)
    g_settings_set_string (self->settings, "last-deck", path != NULL ? path : "");
  hs_deck_panel_show_undo (HS_DECK_PANEL (self->deck_panel), NULL);
  fill_panel (self);
}

gboolean
hs_window_open_deck (HsWindow *self, const char *path, GError **error)
{
  g_autofree char *absolute = NULL;
  HsDeck *deck;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  absolute = g_canonicalize_filename (path, NULL);
  deck = hs_deck_load (absolute, error);
  if (deck == NULL)
    return FALSE;
  set_deck (self, deck, absolute);
  gtk_revealer_set_reveal_child (self->deck_revealer, TRUE);
  /* Its dataset's problems said at once when one is open (else when a
   * case is opened). */
  if (self->dataset != NULL && !hs_window_get_loading (self))
    _hs_window_deck_dataset_usable (self);
  return TRUE;
}

/* A new deck at `path` for the open dataset (written at once). */
gboolean
hs_window_new_deck (HsWindow *self, const char *path, GError **error)
{
  g_autofree char *absolute = NULL;
  g_autofree char *relative = NULL;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  if (self->dataset == NULL)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID, _("Open a dataset before making a deck"));
      return FALSE;
    }
  absolute = g_canonicalize_filename (path, NULL);
  relative = dataset_relative (self, absolute, error);
  if (relative == NULL)
    return FALSE;
  set_deck (self, hs_deck_new (relative), absolute);
  gtk_revealer_set_reveal_child (self->deck_revealer, TRUE);
  /* Records the manifest's hash (a deck is saved with it). */
  _hs_window_deck_dataset_usable (self);
  return save_deck (self);
}

HsDeck *
hs_window_get_deck (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->deck;
}

const char *
hs_window_get_deck_path (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->deck_path;
}

GtkWidget *
hs_window_get_deck_panel (HsWindow *self)
{
  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  return self->deck_panel;
}

gboolean
hs_window_restore_last_deck (HsWindow *self)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  if (self->settings == NULL)
    return FALSE;
  path = g_settings_get_string (self->settings, "last-deck");
  if (*path == '\0' || !g_file_test (path, G_FILE_TEST_EXISTS))
    return FALSE;
  if (!hs_window_open_deck (self, path, &error))
    {
      report (self, path, error);
      return FALSE;
    }
  return TRUE;
}

/* ---- adding cases ------------------------------------------------------------------ */

static GdkPaintable *
thumbnail (HsCanvas *canvas)
{
  cairo_surface_t *surface;
  g_autoptr(GBytes) bytes = NULL;
  GdkTexture *texture;
  int stride;

  if (canvas == NULL || hs_canvas_get_image (canvas) == NULL)
    return NULL;
  surface = hs_canvas_render_surface (canvas, THUMB_W, THUMB_H);
  stride = cairo_image_surface_get_stride (surface);
  bytes = g_bytes_new (cairo_image_surface_get_data (surface), (gsize) stride * THUMB_H);
  texture = gdk_memory_texture_new (THUMB_W, THUMB_H, GDK_MEMORY_DEFAULT, bytes, stride);
  cairo_surface_destroy (surface);
  return GDK_PAINTABLE (texture);
}

/* The deck the case goes to: the open one, else a new "demo.hsdeck" in
 * the dataset's folder (where the deck may name it). */
static gboolean
ensure_deck (HsWindow *self, GError **error)
{
  g_autofree char *path = NULL;

  if (self->deck != NULL)
    return TRUE;
  if (self->dataset == NULL)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID, _("Open a dataset before making a deck"));
      return FALSE;
    }
  path = g_build_filename (hs_dataset_get_root (self->dataset), "demo.hsdeck", NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return hs_window_open_deck (self, path, error);
  return hs_window_new_deck (self, path, error);
}

static void
insert_case (HsWindow *self, guint index, HsDeckCase *item, GdkPaintable *thumb)
{
  g_ptr_array_insert (self->deck->cases, (int) index, item);
  if (thumb != NULL)
    g_hash_table_insert (self->deck_thumbs, item, g_object_ref (thumb));
  save_deck (self);
  fill_panel (self);
  hs_deck_panel_select (HS_DECK_PANEL (self->deck_panel), index);
}

/* Adds `item` (taken) at the end of the deck; FALSE with the problem in
 * the error bar. */
gboolean
_hs_window_deck_add (HsWindow *self, HsDeckCase *item, HsCanvas *canvas)
{
  g_autoptr(HsDeckCase) owned = item;
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkPaintable) thumb = NULL;
  g_autofree char *done = NULL;

  if (!ensure_deck (self, &error))
    {
      report (self, self->deck_path, error);
      return FALSE;
    }
  if (self->deck->cases->len >= HS_DECK_MAX_CASES)
    {
      hs_error_bar_add (self->error_bar, self->deck_path, _("The deck is full"));
      return FALSE;
    }
  thumb = thumbnail (canvas);
  insert_case (self, self->deck->cases->len, g_steal_pointer (&owned), thumb);
  gtk_revealer_set_reveal_child (self->deck_revealer, TRUE);
  done = g_strdup_printf (_("Added case %u to %s"), self->deck->cases->len, self->deck_path);
  gtk_label_set_text (self->status_label, done);
  return TRUE;
}

/* win.deck-add (Ctrl+Shift+A): the view on screen. */
static void
deck_add_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  HsWindow *self = user_data;
  g_autoptr(GError) error = NULL;
  HsDeckCase *item = _hs_window_deck_capture (self, &error);

  if (item == NULL)
    report (self, NULL, error);
  else
    _hs_window_deck_add (self, item, HS_CANVAS (self->canvas));
}

/* The compare window's "Add to deck" (same shortcut): its kind and blink. */
static void
compare_add_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkWindow *window = user_data;
  HsWindow *self = HS_WINDOW (gtk_window_get_transient_for (window));
  HsCompareView *view = hs_compare_window_get_view (window);
  gboolean grid = hs_compare_view_get_mode (view) == HS_COMPARE_MODE_GRID;
  g_autoptr(GError) error = NULL;
  HsDeckCase *item = _hs_window_deck_capture_compare (self, view, grid, &error);

  if (item == NULL)
    report (self, NULL, error);
  else
    _hs_window_deck_add (self, item, hs_compare_view_get_canvas (view, 0));
}

void
_hs_window_deck_watch_compare (HsWindow *self, GtkWindow *window, gboolean grid)
{
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GSimpleAction) add = g_simple_action_new ("deck-add", NULL);
  GtkEventController *controller = gtk_shortcut_controller_new ();

  g_signal_connect (add, "activate", G_CALLBACK (compare_add_activated), window);
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (add));
  gtk_widget_insert_action_group (GTK_WIDGET (window), "compare-window", G_ACTION_GROUP (group));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("<Control><Shift>a"),
                                                          gtk_named_action_new ("compare-window.deck-add")));
  gtk_widget_add_controller (GTK_WIDGET (window), controller);
}

/* A results-table row (its Ctrl+Shift+A). */
gboolean
hs_window_deck_add_row (HsWindow *self, const char *instance, const char *sentence, const char *model)
{
  g_autoptr(GError) error = NULL;
  HsDeckCase *item;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  item = _hs_window_deck_capture_row (self, instance, sentence, model, &error);
  if (item == NULL)
    {
      report (self, NULL, error);
      return FALSE;
    }
  return _hs_window_deck_add (self, item, NULL);
}

/* ---- opening a case ------------------------------------------------------------------- */

static void
finish_pending (HsWindow *self)
{
  g_autoptr(HsDeckCase) item = g_steal_pointer (&self->deck_pending);
  HsCanvas *canvas = HS_CANVAS (self->canvas);
  HsCompareView *view = NULL;

  if (item->view != HS_DECK_VIEW_SINGLE)
    {
      GtkWindow *window = _hs_window_open_compare (self, item->view == HS_DECK_VIEW_GRID);

      view = window != NULL ? hs_compare_window_get_view (window) : NULL;
      if (view == NULL)
        return;
      hs_compare_view_set_blink (view, item->view == HS_DECK_VIEW_BLINK);
      canvas = hs_compare_view_get_canvas (view, 0);
    }
  if (canvas != NULL)
    _hs_window_deck_restore_viewport (canvas, item);
  /* The window's own view (the presentation checks its own). */
  if (self->presentation == NULL)
    _hs_window_deck_verify (self, self->deck_open_index, view);
  /* The thumbnail of a case read from a file, once it is on screen. */
  if (self->deck != NULL && self->deck_open_index < self->deck->cases->len &&
      item->view == HS_DECK_VIEW_SINGLE)
    {
      HsDeckCase *shown = g_ptr_array_index (self->deck->cases, self->deck_open_index);
      g_autoptr(GdkPaintable) thumb = thumbnail (canvas);

      if (thumb != NULL && !g_hash_table_contains (self->deck_thumbs, shown))
        {
          g_hash_table_insert (self->deck_thumbs, shown, g_object_ref (thumb));
          fill_row (self, self->deck_open_index);
        }
    }
  if (self->presentation != NULL)
    {
      /* A live single view shows the case's map only once it is in. */
      HsDeckCase *shown = self->deck_present_index < self->deck->cases->len
                          ? g_ptr_array_index (self->deck->cases, self->deck_present_index) : NULL;

      self->deck_present_waiting = shown != NULL && shown->view == HS_DECK_VIEW_SINGLE &&
                                   self->live_model != NULL &&
                                   (self->map == NULL || _hs_window_live_busy (self));
      if (!self->deck_present_waiting)
        _hs_window_deck_present_ready (self);
    }
}

void
_hs_window_deck_live_shown (HsWindow *self, const char *key)
{
  if (self->presentation != NULL && self->deck_present_waiting && !_hs_window_live_busy (self))
    {
      self->deck_present_waiting = FALSE;
      _hs_window_deck_present_ready (self);
    }
  else
    _hs_window_deck_verify_live (self, key);
}

static void
on_loading_changed (HsWindow *self, GParamSpec *pspec, gpointer user_data)
{
  if (self->deck_pending != NULL && !hs_window_get_loading (self))
    finish_pending (self);
}

/* Opens case `index`: FALSE with the problem (naming the deck and the
 * case) in the error bar when it no longer resolves. */
gboolean
hs_window_open_case (HsWindow *self, guint index)
{
  HsDeckCase *item;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (HS_IS_WINDOW (self), FALSE);
  if (self->deck == NULL || index >= self->deck->cases->len)
    return FALSE;
  item = g_ptr_array_index (self->deck->cases, index);
  self->deck_open_index = index;
  /* Not the deck's dataset (or it is gone): nothing shown rather than
   * another dataset's instance of the same name. */
  if (!_hs_window_deck_dataset_usable (self))
    return FALSE;
  if (self->dataset == NULL || !_hs_window_deck_restore (self, item, &error))
    {
      g_autofree char *message = NULL;

      if (error == NULL)
        g_set_error (&error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED, _("no dataset is open"));
      message = g_strdup_printf (_("case %u: %s"), index + 1, error->message);
      hs_error_bar_add (self->error_bar, self->deck_path, message);
      return FALSE;
    }
  g_clear_pointer (&self->deck_pending, hs_deck_case_free);
  self->deck_pending = hs_deck_case_copy (item);
  if (!hs_window_get_loading (self))
    finish_pending (self);
  return TRUE;
}

/* ---- panel signals --------------------------------------------------------------------- */

static void
on_open_case (HsDeckPanel *panel, guint index, HsWindow *self)
{
  hs_window_open_case (self, index);
}

static void
on_move_case (HsDeckPanel *panel, guint from, guint to, HsWindow *self)
{
  HsDeckCase *item;

  if (self->deck == NULL || from >= self->deck->cases->len || to >= self->deck->cases->len)
    return;
  item = g_ptr_array_steal_index (self->deck->cases, from);
  g_ptr_array_insert (self->deck->cases, (int) to, item);
  save_deck (self);
  fill_panel (self);
  hs_deck_panel_select (panel, to);
}

static void
on_note_changed (HsDeckPanel *panel, guint index, const char *note, HsWindow *self)
{
  HsDeckCase *item;

  if (self->deck == NULL || index >= self->deck->cases->len)
    return;
  item = g_ptr_array_index (self->deck->cases, index);
  if (g_strcmp0 (item->note != NULL ? item->note : "", note) == 0)
    return;
  g_free (item->note);
  item->note = *note != '\0' ? g_strdup (note) : NULL;
  save_deck (self);
}

/* Case `index` of the open deck, NULL when there is none. */
static HsDeckCase *
case_at (HsWindow *self, guint index)
{
  if (self->deck == NULL || index >= self->deck->cases->len)
    return NULL;
  return g_ptr_array_index (self->deck->cases, index);
}

static void
on_duplicate_case (HsDeckPanel *panel, guint index, HsWindow *self)
{
  HsDeckCase *item = case_at (self, index);

  if (item != NULL)
    insert_case (self, index + 1, hs_deck_case_copy (item), g_hash_table_lookup (self->deck_thumbs, item));
}

static void
on_delete_case (HsDeckPanel *panel, guint index, HsWindow *self)
{
  g_autofree char *message = NULL;
  HsDeckCase *item;

  if (self->deck == NULL || index >= self->deck->cases->len)
    return;
  item = g_ptr_array_steal_index (self->deck->cases, index);
  /* One level of undo: the last deleted case and where it was (its
   * thumbnail stays in the table until the case is gone for good). */
  if (self->deck_deleted != NULL)
    g_hash_table_remove (self->deck_thumbs, self->deck_deleted);
  g_clear_pointer (&self->deck_deleted, hs_deck_case_free);
  self->deck_deleted = item;
  self->deck_deleted_index = index;
  save_deck (self);
  fill_panel (self);
  if (self->deck->cases->len > 0)
    hs_deck_panel_select (panel, MIN (index, self->deck->cases->len - 1));
  message = g_strdup_printf (_("Deleted case %u"), index + 1);
  hs_deck_panel_show_undo (panel, message);
}

/* The case's reveal (presentation in steps) on or off. */
static void
on_toggle_reveal (HsDeckPanel *panel, guint index, HsWindow *self)
{
  HsDeckCase *item = case_at (self, index);

  if (item == NULL)
    return;
  item->reveal = !item->reveal;
  save_deck (self);
  fill_row (self, index);
}

static void
on_undo_delete (HsDeckPanel *panel, HsWindow *self)
{
  HsDeckCase *item = g_steal_pointer (&self->deck_deleted);

  if (self->deck == NULL || item == NULL)
    return;
  g_ptr_array_insert (self->deck->cases, (int) MIN (self->deck_deleted_index, self->deck->cases->len), item);
  save_deck (self);
  fill_panel (self);
  hs_deck_panel_select (panel, MIN (self->deck_deleted_index, self->deck->cases->len - 1));
}

/* ---- presentation ---------------------------------------------------------------------- */

void
_hs_window_deck_present_ready (HsWindow *self)
{
  HsPresentationWindow *presentation = HS_PRESENTATION_WINDOW (self->presentation);
  guint index = self->deck_present_index;
  HsDeckCase *item;
  gboolean compare;

  if (self->deck == NULL || index >= self->deck->cases->len)
    return;
  item = g_ptr_array_index (self->deck->cases, index);
  compare = item->view != HS_DECK_VIEW_SINGLE;
  if (compare)
    {
      HsCompareView *view = hs_presentation_window_get_compare_view (presentation);
      g_autoptr(GError) error = NULL;

      if (!_hs_window_load_compare (self, view, item->view == HS_DECK_VIEW_GRID, &error))
        report (self, self->deck_path, error);
      hs_compare_view_set_blink (view, item->view == HS_DECK_VIEW_BLINK);
    }
  else
    _hs_window_deck_fill_canvas (self, hs_presentation_window_get_canvas (presentation));
  _hs_window_deck_verify (self, index, compare ? hs_presentation_window_get_compare_view (presentation) : NULL);
  hs_presentation_window_show_case (presentation, index, compare,
                                    hs_prompt_panel_get_prompt (self->prompt_panel), item->note,
                                    item->reveal);
  /* Once laid out at its new size: the viewport is relative to it. */
  _hs_window_deck_restore_viewport (compare ? hs_compare_view_get_canvas (hs_presentation_window_get_compare_view (presentation), 0)
                                            : hs_presentation_window_get_canvas (presentation), item);
}

static void
on_present_step (HsPresentationWindow *presentation, guint index, HsWindow *self)
{
  HsDeckCase *item;
  g_autoptr(GError) error = NULL;

  if (self->deck == NULL || index >= self->deck->cases->len)
    return;
  item = g_ptr_array_index (self->deck->cases, index);
  self->deck_present_index = index;
  self->deck_present_waiting = FALSE;
  if (!_hs_window_deck_dataset_usable (self))
    {
      hs_presentation_window_show_case (presentation, index, FALSE, self->deck_problem, NULL, FALSE);
      return;
    }
  if (!_hs_window_deck_restore (self, item, &error))
    {
      g_autofree char *message = g_strdup_printf (_("case %u: %s"), index + 1, error->message);
      hs_error_bar_add (self->error_bar, self->deck_path, message);
      hs_presentation_window_show_case (presentation, index, FALSE, message, NULL, FALSE);
      return;
    }
  /* Only the view of the presentation: no compare window behind it. */
  g_clear_pointer (&self->deck_pending, hs_deck_case_free);
  self->deck_pending = hs_deck_case_copy (item);
  self->deck_pending->view = HS_DECK_VIEW_SINGLE;
  if (!hs_window_get_loading (self))
    finish_pending (self);
}

static void
on_presentation_destroyed (HsWindow *self, GObject *where_the_object_was)
{
  self->presentation = NULL;
}

HsPresentationWindow *
hs_window_present_deck (HsWindow *self, guint first)
{
  HsPresentationWindow *presentation;

  g_return_val_if_fail (HS_IS_WINDOW (self), NULL);
  if (self->deck == NULL || self->deck->cases->len == 0 || self->dataset == NULL)
    return NULL;
  if (self->presentation != NULL)
    gtk_window_destroy (GTK_WINDOW (self->presentation));
  presentation = hs_presentation_window_new (GTK_WINDOW (self), self->deck->cases->len);
  self->presentation = GTK_WIDGET (presentation);
  g_object_weak_ref (G_OBJECT (presentation), (GWeakNotify) on_presentation_destroyed, self);
  g_signal_connect_object (presentation, "step", G_CALLBACK (on_present_step), self, 0);
  /* The monitor's size also where no window manager makes it full-screen. */
  {
    GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (self));
    GdkMonitor *monitor = surface != NULL ? gdk_display_get_monitor_at_surface (gtk_widget_get_display (GTK_WIDGET (self)), surface) : NULL;
    GdkRectangle area;

    if (monitor != NULL)
      {
        gdk_monitor_get_geometry (monitor, &area);
        gtk_window_set_default_size (GTK_WINDOW (presentation), area.width, area.height);
      }
  }
  gtk_window_fullscreen (GTK_WINDOW (presentation));
  gtk_window_present (GTK_WINDOW (presentation));
  hs_presentation_window_start (presentation, MIN (first, self->deck->cases->len - 1));
  return presentation;
}

static void
deck_present_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  HsWindow *self = user_data;
  guint selected = hs_deck_panel_get_selected (HS_DECK_PANEL (self->deck_panel));

  hs_window_present_deck (self, selected != G_MAXUINT ? selected : 0);
}

/* ---- the rest of the actions ----------------------------------------------------------- */

static void
on_deck_chooser_response (GtkNativeDialog *dialog, int response, HsWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      gboolean saving = gtk_file_chooser_get_action (GTK_FILE_CHOOSER (dialog)) == GTK_FILE_CHOOSER_ACTION_SAVE;
      g_autoptr(GError) error = NULL;

      if (path == NULL)
        hs_error_bar_add (self->error_bar, NULL, _("Only local files can be read or written"));
      else if (!(saving ? hs_window_new_deck (self, path, &error) : hs_window_open_deck (self, path, &error)))
        report (self, path, error);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

/* win.deck-open and win.deck-new: a .hsdeck file. */
static void
deck_file_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  HsWindow *self = user_data;
  gboolean saving = g_str_equal (g_action_get_name (G_ACTION (action)), "deck-new");
  GtkFileChooserNative *chooser;
  GtkFileFilter *filter = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (saving ? _("New Deck") : _("Open Deck"), GTK_WINDOW (self),
                                         saving ? GTK_FILE_CHOOSER_ACTION_SAVE : GTK_FILE_CHOOSER_ACTION_OPEN,
                                         saving ? _("_Create") : _("_Open"), _("_Cancel"));
  gtk_file_filter_set_name (filter, _("Demo decks (.hsdeck)"));
  gtk_file_filter_add_suffix (filter, "hsdeck");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  g_object_unref (filter);
  if (saving && self->dataset != NULL)
    {
      g_autoptr(GFile) folder = g_file_new_for_path (hs_dataset_get_root (self->dataset));

      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
      gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "demo.hsdeck");
    }
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (on_deck_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
_hs_window_deck_update_actions (HsWindow *self)
{
  GAction *action;

  if (self->deck_thumbs == NULL)
    return;   /* before _hs_window_deck_init, or disposed */
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "deck-add");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->instance != NULL);
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "deck-present");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action),
                               self->deck != NULL && self->deck->cases->len > 0 && self->dataset != NULL);
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "deck-new");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->dataset != NULL);
}

static const GActionEntry deck_actions[] = {
  { .name = "deck-add", .activate = deck_add_action },
  { .name = "deck-present", .activate = deck_present_action },
  { .name = "deck-open", .activate = deck_file_action },
  { .name = "deck-new", .activate = deck_file_action },
};

void
_hs_window_deck_init (HsWindow *self)
{
  g_autoptr(GPropertyAction) show = NULL;

  self->deck_thumbs = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  self->deck_panel = hs_deck_panel_new ();
  gtk_widget_set_size_request (self->deck_panel, 300, -1);
  gtk_revealer_set_child (self->deck_revealer, self->deck_panel);
  g_signal_connect_object (self->deck_panel, "open-case", G_CALLBACK (on_open_case), self, 0);
  g_signal_connect_object (self->deck_panel, "move-case", G_CALLBACK (on_move_case), self, 0);
  g_signal_connect_object (self->deck_panel, "note-changed", G_CALLBACK (on_note_changed), self, 0);
  g_signal_connect_object (self->deck_panel, "duplicate-case", G_CALLBACK (on_duplicate_case), self, 0);
  g_signal_connect_object (self->deck_panel, "delete-case", G_CALLBACK (on_delete_case), self, 0);
  g_signal_connect_object (self->deck_panel, "undo-delete", G_CALLBACK (on_undo_delete), self, 0);
  g_signal_connect_object (self->deck_panel, "toggle-reveal", G_CALLBACK (on_toggle_reveal), self, 0);
  g_signal_connect (self, "notify::loading", G_CALLBACK (on_loading_changed), NULL);

  g_action_map_add_action_entries (G_ACTION_MAP (self), deck_actions, G_N_ELEMENTS (deck_actions), self);
  /* win.show-deck (F9): the panel in or out. */
  show = g_property_action_new ("show-deck", self->deck_revealer, "reveal-child");
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (show));
  _hs_window_deck_update_actions (self);
}

void
_hs_window_deck_clear (HsWindow *self)
{
  if (self->presentation != NULL)
    {
      g_object_weak_unref (G_OBJECT (self->presentation), (GWeakNotify) on_presentation_destroyed, self);
      gtk_window_destroy (GTK_WINDOW (self->presentation));
      self->presentation = NULL;
    }
  g_clear_pointer (&self->deck_pending, hs_deck_case_free);
  g_clear_pointer (&self->deck_verify, _hs_deck_verify_free);
  g_clear_pointer (&self->deck_checked_root, g_free);
  g_clear_pointer (&self->deck_problem, g_free);
  g_clear_pointer (&self->deck_deleted, hs_deck_case_free);
  g_clear_pointer (&self->deck_thumbs, g_hash_table_unref);
  g_clear_pointer (&self->deck, hs_deck_free);
  g_clear_pointer (&self->deck_path, g_free);
  self->deck_panel = NULL;
}
