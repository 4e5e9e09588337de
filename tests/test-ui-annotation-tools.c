/* test-ui-annotation-tools.c — what an annotator needs around the questions
 * (issue 15, point 10): a heatmap toggle and its opacity, a key hint that
 * names the form's digits, Ctrl+? for the keys, a way back to the viewer
 * (action, button, Esc), and problems shown over the content so the canvas
 * never moves (here and in the main window).
 *
 * Keys are checked through the window's own shortcut controller (the
 * trigger a key press matches and the action it names), then that action is
 * activated: no synthetic events, nothing timed. */
#include "hs-annotation-window.h"
#include "hs-application.h"
#include "hs-canvas.h"
#include "hs-error-bar.h"
#include "hs-ui-fixture.h"

static char *dataset_root;

static char *
write_project (const char *dir, const char *form)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, "project.json", NULL);
  g_autofree char *json = g_strdup_printf (
    "{\"annotator\": \"tester\", \"dataset\": \"%s\", \"models\": [\"grounded\"],\n"
    " \"instances\": [\"hand-00\", \"hand-01\"], \"questions\": \"%s\", \"seed\": 7,\n"
    " \"answers\": \"tester.jsonl\"}\n", dataset_root, form);

  g_file_set_contents (path, json, -1, &error);
  g_assert_no_error (error);
  return path;
}

static HsAnnotationWindow *
open_window (GtkWindow *parent, const char *form)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *project = write_project (dir, form);
  g_autoptr(GError) error = NULL;
  HsAnnotationWindow *window = HS_ANNOTATION_WINDOW (hs_annotation_window_new (parent));

  g_object_ref (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 700);
  gtk_window_present (GTK_WINDOW (window));
  hs_ui_wait_until (hs_ui_is_mapped, window);
  g_assert_true (hs_annotation_window_open (window, project, &error));
  g_assert_no_error (error);
  hs_ui_settle ();
  return window;
}

static void
close_window (HsAnnotationWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  hs_ui_settle ();
  hs_ui_assert_finalized (window);
}

/* The action a key press `trigger` ("<Control>question") runs on `widget`
 * through its shortcut controllers, or NULL. */
static char *
bound_action (GtkWidget *widget, const char *trigger)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  g_autoptr(GtkShortcutTrigger) wanted = gtk_shortcut_trigger_parse_string (trigger);

  g_assert_nonnull (wanted);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutAction *action = gtk_shortcut_get_action (shortcut);

          if (gtk_shortcut_trigger_equal (gtk_shortcut_get_trigger (shortcut), wanted) &&
              GTK_IS_NAMED_ACTION (action))
            return g_strdup (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action)));
        }
    }
  return NULL;
}

/* Pixels of the canvas's rendering that are not grey: the heatmap's colour. */
static guint
coloured_pixels (GtkWidget *canvas)
{
  cairo_surface_t *surface = hs_canvas_render_surface (HS_CANVAS (canvas), 200, 200);
  const guint8 *data;
  int stride;
  guint n = 0;

  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int y = 0; y < 200; y++)
    for (int x = 0; x < 200; x++)
      {
        const guint8 *p = data + y * stride + 4 * x;
        if (MAX (MAX (p[0], p[1]), p[2]) - MIN (MIN (p[0], p[1]), p[2]) > 16)
          n++;
      }
  cairo_surface_destroy (surface);
  return n;
}

static void
test_heatmap_toggle (void)
{
  HsAnnotationWindow *window;
  GtkWidget *canvas, *check, *scale;
  g_autofree char *key = NULL;
  guint on, faint;

  if (hs_ui_skip_without_display ())
    return;
  window = open_window (NULL, "three");
  canvas = hs_annotation_window_get_canvas (window);
  check = hs_ui_find_widget (GTK_WIDGET (window), GTK_TYPE_CHECK_BUTTON);
  scale = hs_ui_find_widget (GTK_WIDGET (window), GTK_TYPE_SCALE);
  g_assert_nonnull (check);
  g_assert_nonnull (scale);
  g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));

  on = coloured_pixels (canvas);
  g_assert_cmpuint (on, >, 2000);

  /* H hides the map (the check follows); the radiograph alone is grey. */
  key = bound_action (GTK_WIDGET (window), "h");
  g_assert_cmpstr (key, ==, "annotation.heatmap-key");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), key, NULL));
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
  g_assert_cmpuint (coloured_pixels (canvas), ==, 0);
  /* The check brings it back. */
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
  g_assert_cmpuint (coloured_pixels (canvas), ==, on);

  /* The opacity slider: 0 shows the anatomy only, a low value less colour. */
  gtk_range_set_value (GTK_RANGE (scale), 0.0);
  g_assert_cmpuint (coloured_pixels (canvas), ==, 0);
  gtk_range_set_value (GTK_RANGE (scale), 0.15);
  faint = coloured_pixels (canvas);
  gtk_range_set_value (GTK_RANGE (scale), 1.0);
  g_assert_cmpuint (faint, <, coloured_pixels (canvas));
  close_window (window);
}

/* The hint names the digits of the form on screen; the digits beyond a
 * question's options answer nothing. */
static void
test_key_hint (void)
{
  const struct { const char *form, *says, *never; } cases[] = {
    { "three",  "Keys: 1–3 answer the highlighted question,", "1–6" },
    { "likert", "Keys: 1–6 answer the highlighted question (1–5 where it has 5 options),", "1–3" },
  };

  if (hs_ui_skip_without_display ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      HsAnnotationWindow *window = open_window (NULL, cases[i].form);
      g_autofree char *text = hs_annotation_window_dup_visible_text (window);

      g_assert_nonnull (strstr (text, cases[i].says));
      g_assert_null (strstr (text, cases[i].never));
      if (g_str_equal (cases[i].form, "three"))
        {
          gtk_widget_activate_action (GTK_WIDGET (window), "annotation.level", "u", 3);   /* key 4 */
          g_assert_cmpint (hs_annotation_window_get_level (window, 0), ==, -1);
          gtk_widget_activate_action (GTK_WIDGET (window), "annotation.level", "u", 2);   /* key 3 */
          g_assert_cmpint (hs_annotation_window_get_level (window, 0), ==, 2);
        }
      close_window (window);
    }
}

static GtkWindow *
find_transient (GtkWindow *parent, GType type)
{
  g_autoptr(GListModel) toplevels = g_object_ref (gtk_window_get_toplevels ());

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) item = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (item, type) && gtk_window_get_transient_for (item) == parent)
        return item;
    }
  return NULL;
}

static GtkWidget *
find_shortcut (GtkWidget *root, const char *title)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (root))
    {
      g_autofree char *text = NULL;

      g_object_get (root, "title", &text, NULL);
      if (g_strcmp0 (text, title) == 0)
        return root;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_shortcut (child, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_shortcuts_window (void)
{
  const struct { const char *form, *digits; } cases[] = { { "three", "1...3" }, { "likert", "1...6" } };

  if (hs_ui_skip_without_display ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      HsAnnotationWindow *window = open_window (NULL, cases[i].form);
      g_autofree char *action = bound_action (GTK_WIDGET (window), "<Control>question");
      GtkWindow *shortcuts;
      GtkWidget *answer_keys;
      g_autofree char *accel = NULL;

      g_assert_null (find_transient (GTK_WINDOW (window), GTK_TYPE_SHORTCUTS_WINDOW));
      g_assert_cmpstr (action, ==, "annotation.show-shortcuts");
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
      shortcuts = find_transient (GTK_WINDOW (window), GTK_TYPE_SHORTCUTS_WINDOW);
      g_assert_nonnull (shortcuts);
      hs_ui_wait_until (hs_ui_is_mapped, shortcuts);
      /* The answer key is the form's digits. */
      answer_keys = find_shortcut (GTK_WIDGET (shortcuts), "Answer the highlighted question");
      g_assert_nonnull (answer_keys);
      g_object_get (answer_keys, "accelerator", &accel, NULL);
      g_assert_cmpstr (accel, ==, cases[i].digits);
      if (g_getenv ("HS_SNAPSHOT_DIR") != NULL && i == 0)
        {
          g_autoptr(GdkTexture) texture = NULL;
          g_autofree char *png = g_build_filename (g_getenv ("HS_SNAPSHOT_DIR"), "annotation-shortcuts.png", NULL);

          hs_ui_settle ();
          texture = hs_ui_render (GTK_WIDGET (shortcuts));
          gdk_texture_save_to_png (texture, png);
        }
      /* It goes with the window. */
      close_window (window);
      g_assert_null (find_transient (NULL, GTK_TYPE_SHORTCUTS_WINDOW));
    }
}

static HsWindow *
find_main_window (void)
{
  g_autoptr(GListModel) toplevels = g_object_ref (gtk_window_get_toplevels ());

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) item = g_list_model_get_item (toplevels, i);

      if (HS_IS_WINDOW (item))
        return HS_WINDOW (item);
    }
  return NULL;
}

static gboolean
has_viewer_button (GtkWidget *widget)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)),
                                           "annotation.viewer") == 0)
    return gtk_widget_get_mapped (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (has_viewer_button (child))
      return TRUE;
  return FALSE;
}

/* Esc or the Viewer button: back to the main window the annotation was
 * opened from, or (started with --annotate) to a new one; never a quit. */
static void
test_back_to_viewer (void)
{
  HsWindow *main_window, *opened;
  HsAnnotationWindow *window;
  g_autofree char *action = NULL;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();

  /* Opened from the viewer. */
  main_window = hs_ui_new_window ();
  window = open_window (GTK_WINDOW (main_window), "three");
  g_assert_true (has_viewer_button (gtk_window_get_titlebar (GTK_WINDOW (window))));
  action = bound_action (GTK_WIDGET (window), "Escape");
  g_assert_cmpstr (action, ==, "annotation.viewer");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
  hs_ui_settle ();
  hs_ui_assert_finalized (window);   /* closed: the reference taken was the last */
  g_assert_true (find_main_window () == main_window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (main_window)));
  hs_ui_destroy_window (main_window);
  g_assert_null (find_main_window ());

  /* No viewer yet: one opens. */
  window = open_window (NULL, "three");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "annotation.viewer", NULL));
  hs_ui_settle ();
  hs_ui_assert_finalized (window);
  opened = find_main_window ();
  g_assert_nonnull (opened);
  hs_ui_wait_until (hs_ui_is_mapped, opened);
  hs_ui_destroy_window (opened);
}

/* ---- problems shown over the content ----------------------------------------- */

static graphene_rect_t
bounds_in (GtkWidget *widget, GtkWidget *root)
{
  graphene_rect_t r;

  g_assert_true (gtk_widget_compute_bounds (widget, root, &r));
  return r;
}

static void
assert_does_not_move (GtkWidget *root, GtkWidget *canvas, HsErrorBar *bar, const char *snapshot)
{
  graphene_rect_t before, after;

  hs_ui_settle ();
  before = bounds_in (canvas, root);
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (bar)));
  hs_error_bar_add (bar, "/data/some-file.npy", "a problem to read");
  hs_ui_settle ();
  /* The bar is on screen, as tall as a line of text or more... */
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (bar)));
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (bar)), >=, 20);
  /* ...and the canvas has not moved nor changed size. */
  after = bounds_in (canvas, root);
  g_assert_cmpfloat (after.origin.x, ==, before.origin.x);
  g_assert_cmpfloat (after.origin.y, ==, before.origin.y);
  g_assert_cmpfloat (after.size.width, ==, before.size.width);
  g_assert_cmpfloat (after.size.height, ==, before.size.height);
  if (g_getenv ("HS_SNAPSHOT_DIR") != NULL)
    {
      g_autoptr(GdkTexture) texture = hs_ui_render (root);
      g_autofree char *png = g_build_filename (g_getenv ("HS_SNAPSHOT_DIR"), snapshot, NULL);
      gdk_texture_save_to_png (texture, png);
    }
  hs_error_bar_clear (bar);
  hs_ui_settle ();
  after = bounds_in (canvas, root);
  g_assert_cmpfloat (after.origin.y, ==, before.origin.y);
}

static void
test_error_bar_overlay (void)
{
  HsAnnotationWindow *window;
  HsWindow *main_window;
  g_autoptr(GFile) file = NULL;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();

  window = open_window (NULL, "three");
  assert_does_not_move (GTK_WIDGET (window), hs_annotation_window_get_canvas (window),
                        HS_ERROR_BAR (hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_ERROR_BAR)),
                        "annotation-error.png");
  close_window (window);

  main_window = hs_ui_new_window ();
  file = g_file_new_for_path (dataset_root);
  hs_window_open (main_window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, main_window);
  assert_does_not_move (GTK_WIDGET (main_window), hs_window_get_canvas (main_window),
                        hs_window_get_error_bar (main_window), "window-error.png");
  hs_ui_destroy_window (main_window);
}

/* Ctrl+H in the main window too: the heatmap off and on again. */
static void
test_window_heatmap_key (void)
{
  g_autoptr(HsApplication) app = NULL;
  g_auto(GStrv) accels = NULL;
  HsWindow *window;
  gboolean shown = FALSE;
  GtkWidget *canvas;
  guint on;
  g_autoptr(GFile) file = NULL;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  app = hs_application_new ();
  hs_application_set_accels (GTK_APPLICATION (app));
  accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.toggle-heatmap");
  g_assert_cmpuint (g_strv_length (accels), ==, 1);
  g_assert_cmpstr (accels[0], ==, "<Control>h");

  window = hs_ui_new_window ();
  file = g_file_new_for_path (dataset_root);
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  canvas = hs_window_get_canvas (window);
  on = coloured_pixels (canvas);
  g_assert_cmpuint (on, >, 10000);
  g_action_group_activate_action (G_ACTION_GROUP (window), "toggle-heatmap", NULL);
  g_object_get (hs_canvas_get_view_state (HS_CANVAS (canvas)), "show-overlay", &shown, NULL);
  g_assert_false (shown);
  /* What stays coloured is the target boxes, their names and the legend. */
  g_assert_cmpuint (coloured_pixels (canvas), <, on / 4);
  g_action_group_activate_action (G_ACTION_GROUP (window), "toggle-heatmap", NULL);
  g_assert_cmpuint (coloured_pixels (canvas), ==, on);
  hs_ui_destroy_window (window);

  /* A look at the main window's shortcuts (HS_SNAPSHOT_DIR). */
  if (g_getenv ("HS_SNAPSHOT_DIR") != NULL)
    {
      g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/org/heatscope/Heatscope/gtk/help-overlay.ui");
      GtkWindow *help = GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay"));
      g_autofree char *png = g_build_filename (g_getenv ("HS_SNAPSHOT_DIR"), "help-overlay.png", NULL);
      g_autoptr(GdkTexture) texture = NULL;
      GLogLevelFlags fatal;

      /* GTK 4.8's shortcuts window warns about a label of its own while
       * laying out ("min width -4"); only this look, not the test, sees it. */
      fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
      gtk_window_present (help);
      hs_ui_wait_until (hs_ui_is_mapped, help);
      hs_ui_settle ();
      texture = hs_ui_render (GTK_WIDGET (help));
      gdk_texture_save_to_png (texture, png);
      gtk_window_destroy (help);
      hs_ui_settle ();
      g_log_set_always_fatal (fatal);
    }
}

int
main (int argc, char **argv)
{
  int status;

  hs_ui_init (&argc, &argv);
  dataset_root = hs_ui_make_dataset ();
  g_test_add_func ("/hs/ui/annotation-tools/heatmap-toggle", test_heatmap_toggle);
  g_test_add_func ("/hs/ui/annotation-tools/key-hint", test_key_hint);
  g_test_add_func ("/hs/ui/annotation-tools/shortcuts-window", test_shortcuts_window);
  g_test_add_func ("/hs/ui/annotation-tools/back-to-viewer", test_back_to_viewer);
  g_test_add_func ("/hs/ui/annotation-tools/error-bar-overlay", test_error_bar_overlay);
  g_test_add_func ("/hs/ui/annotation-tools/window-heatmap-key", test_window_heatmap_key);
  status = g_test_run ();
  g_free (dataset_root);
  return status;
}
