/* test-ui-window-controls.c — the One Lung and Most Diverse Report BBoxes filters and
 * window/level (overlay sliders, Ctrl+drag and right-button drag on the canvas), driven through
 * the main window as a user drives them.
 *
 * The drags are real X11 pointer events from xdotool on the Xvfb display, so the canvas's own
 * gesture code (modifier and button checks included) is what moves the levels. */
#include "hs-ui-fixture.h"

#include <gdk/x11/gdkx.h>

#include "hs-canvas.h"
#include "hs-overlay-panel.h"
#include "hs-view-state.h"
#include "hs-window.h"

/* ---- One Lung and MDRB ------------------------------------------------------ */

static void
add_sentence (HsInstance *instance, const char *id, const char *region_name, const HsBox *box)
{
  HsRegion *region = hs_region_new (region_name);
  HsSentence *sentence = hs_sentence_new (id, "A nodule.");

  hs_region_add_box (region, box->x1, box->y1, box->x2, box->y2);
  hs_instance_add_region (instance, region);
  hs_sentence_add_target (sentence, region_name);
  hs_sentence_add_label (sentence, hs_label_new ("nodule", "positive", NULL));
  hs_instance_add_sentence (instance, sentence);
}

/* Four 320 × 320 instances, worked by hand against the definitions (README "Subsets"):
 * midline x = 160, a box may cross it by at most 5 % of the width (16 px).
 *   one-left   one box on the image's left half                 → One Lung
 *   straddle   one box over the midline by 60 px                → neither
 *   two-sides  boxes on opposite halves, IoU 0                  → One Lung and MDRB
 *   overlap    two nearly equal boxes over the midline, IoU ≈ 0.94 → neither */
static char *
make_subset_dataset (void)
{
  char *root = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (root, "subsets");
  g_autoptr(GError) error = NULL;
  const char *ids[] = { "one-left", "straddle", "two-sides", "overlap" };
  g_autofree char *images = g_build_filename (root, "images", NULL);

  g_assert_cmpint (g_mkdir_with_parents (images, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *file = g_strdup_printf ("images/%s.png", ids[i]);
      g_autofree char *path = g_build_filename (root, file, NULL);
      HsInstance *instance = hs_instance_new (ids[i], file);

      hs_ui_write_image (path, i);
      instance->width = instance->height = HS_UI_IMAGE_SIZE;
      instance->abnormal = TRUE;
      switch (i)
        {
        case 0:
          add_sentence (instance, "s1", "left box", &(HsBox) { 20, 20, 100, 100 });
          break;
        case 1:
          add_sentence (instance, "s1", "wide box", &(HsBox) { 100, 20, 220, 100 });
          break;
        case 2:
          add_sentence (instance, "s1", "left box", &(HsBox) { 20, 20, 100, 100 });
          add_sentence (instance, "s2", "right box", &(HsBox) { 220, 200, 300, 300 });
          break;
        default:
          add_sentence (instance, "s1", "wide box", &(HsBox) { 100, 20, 220, 100 });
          add_sentence (instance, "s2", "wide box 2", &(HsBox) { 102, 22, 222, 102 });
          break;
        }
      hs_dataset_add_instance (dataset, instance);
    }
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  return root;
}

/* The ids the browser shows, in order, read by stepping through them as a user would. */
static char *
shown_ids (HsWindow *window)
{
  HsInstanceBrowser *browser = hs_window_get_browser (window);
  GString *ids = g_string_new (NULL);
  guint n = hs_instance_browser_get_n_shown (browser);

  hs_instance_browser_select_relative (browser, -1000);
  for (guint i = 0; i < n; i++)
    {
      hs_ui_wait_until (hs_ui_window_not_loading, window);
      g_string_append_printf (ids, "%s%s", i ? " " : "", hs_window_get_instance (window)->id);
      hs_instance_browser_select_relative (browser, 1);
    }
  return g_string_free (ids, FALSE);
}

static void
test_subset_filters (void)
{
  g_autofree char *root = NULL;
  HsWindow *window;
  HsInstanceBrowser *browser;
  g_autofree char *one_lung = NULL, *mdrb = NULL, *both = NULL;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  root = make_subset_dataset ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  browser = hs_window_get_browser (window);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 4);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (browser), "browser.filter-one-lung", NULL));
  g_assert_cmpuint (hs_instance_browser_get_subsets (browser), ==, HS_SUBSET_ONE_LUNG);
  hs_ui_wait_until (hs_ui_browser_idle, browser);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 2);
  one_lung = shown_ids (window);
  g_assert_cmpstr (one_lung, ==, "one-left two-sides");

  /* Both filters: the rows in both subsets. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (browser), "browser.filter-mdrb", NULL));
  hs_ui_wait_until (hs_ui_browser_idle, browser);
  both = shown_ids (window);
  g_assert_cmpstr (both, ==, "two-sides");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (browser), "browser.filter-one-lung", NULL));
  g_assert_cmpuint (hs_instance_browser_get_subsets (browser), ==, HS_SUBSET_MDRB);
  hs_ui_wait_until (hs_ui_browser_idle, browser);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 1);
  mdrb = shown_ids (window);
  g_assert_cmpstr (mdrb, ==, "two-sides");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (browser), "browser.filter-mdrb", NULL));
  hs_ui_wait_until (hs_ui_browser_idle, browser);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 4);
  hs_ui_destroy_window (window);
}

/* ---- window/level ----------------------------------------------------------- */

typedef struct {
  HsViewState *state;
  double       center, width;
} LevelsWatch;

static gboolean
levels_changed (gpointer data)
{
  LevelsWatch *watch = data;
  double center, width;

  hs_view_state_get_window_level (watch->state, &center, &width);
  return center != watch->center || width != watch->width;
}

/* Mean grey of the canvas's rendering (image only: opacity 0). */
static double
canvas_mean (HsCanvas *canvas)
{
  cairo_surface_t *surface = hs_canvas_render_surface (canvas, 200, 200);
  const guint8 *data;
  int stride;
  double sum = 0;

  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int y = 0; y < 200; y++)
    for (int x = 0; x < 200; x++)
      sum += data[y * stride + 4 * x + 1];
  cairo_surface_destroy (surface);
  return sum / (200 * 200);
}

static void
test_level_sliders (void)
{
  g_autofree char *root = NULL;
  HsWindow *window;
  HsCanvas *canvas;
  HsOverlayPanel *panel;
  HsViewState *state;
  GtkAdjustment *level, *width;
  double c, w, before;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  canvas = HS_CANVAS (hs_window_get_canvas (window));
  state = hs_canvas_get_view_state (canvas);
  panel = HS_OVERLAY_PANEL (hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_OVERLAY_PANEL));
  g_assert_nonnull (panel);
  g_object_set (state, "opacity", 0.0, NULL);
  hs_ui_settle ();
  before = canvas_mean (canvas);

  level = GTK_ADJUSTMENT (gtk_widget_get_template_child (GTK_WIDGET (panel), HS_TYPE_OVERLAY_PANEL,
                                                         "level_adjustment"));
  width = GTK_ADJUSTMENT (gtk_widget_get_template_child (GTK_WIDGET (panel), HS_TYPE_OVERLAY_PANEL,
                                                         "window_adjustment"));
  g_assert_nonnull (level);
  g_assert_nonnull (width);
  /* A narrow window low in the range: most of the lungs (grey ≈ 150/255) saturate to white. */
  gtk_adjustment_set_value (width, gtk_adjustment_get_lower (width)
                                   + 0.1 * (gtk_adjustment_get_upper (width) - gtk_adjustment_get_lower (width)));
  gtk_adjustment_set_value (level, gtk_adjustment_get_lower (level)
                                   + 0.2 * (gtk_adjustment_get_upper (level) - gtk_adjustment_get_lower (level)));
  hs_ui_settle ();
  hs_view_state_get_window_level (state, &c, &w);
  g_assert_cmpfloat (c, >, 0);
  g_assert_cmpfloat (w, >, 0);
  g_assert_cmpfloat (canvas_mean (canvas), >, before + 20);

  /* Reset (the panel's button): automatic again, the same picture as before. */
  g_signal_emit_by_name (gtk_widget_get_template_child (GTK_WIDGET (panel), HS_TYPE_OVERLAY_PANEL,
                                                        "reset_levels_button"), "clicked");
  hs_ui_settle ();
  g_assert_cmpfloat (fabs (canvas_mean (canvas) - before), <, 0.5);
  hs_ui_destroy_window (window);
}

/* Drags over the canvas with real pointer events: from its centre by (dx, dy), holding Ctrl
 * with button 1, or with button 3 alone. */
static void
drag_on_canvas (HsWindow *window, HsCanvas *canvas, gboolean ctrl_button1, int dx, int dy)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *wid = NULL;
  const char *button = ctrl_button1 ? "1" : "3";
  double sx = 0, sy = 0, x = 0, y = 0;
  int x0, y0, status = 0;

  g_assert_true (GDK_IS_X11_SURFACE (surface));
  gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
  g_assert_true (gtk_widget_translate_coordinates (GTK_WIDGET (canvas), GTK_WIDGET (window),
                                                   gtk_widget_get_width (GTK_WIDGET (canvas)) / 2.0,
                                                   gtk_widget_get_height (GTK_WIDGET (canvas)) / 2.0,
                                                   &x, &y));
  x0 = (int) (x + sx);
  y0 = (int) (y + sy);
  wid = g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface));
#define ARG(...) g_ptr_array_add (argv, g_strdup_printf (__VA_ARGS__))
  ARG ("%s", "xdotool");
  ARG ("windowraise"); ARG ("%s", wid);
  ARG ("mousemove"); ARG ("--window"); ARG ("%s", wid); ARG ("%d", x0); ARG ("%d", y0);
  if (ctrl_button1)
    {
      ARG ("keydown"); ARG ("ctrl");
    }
  ARG ("mousedown"); ARG ("%s", button);
  ARG ("mousemove"); ARG ("--window"); ARG ("%s", wid); ARG ("%d", x0 + dx / 2); ARG ("%d", y0 + dy / 2);
  ARG ("mousemove"); ARG ("--window"); ARG ("%s", wid); ARG ("%d", x0 + dx); ARG ("%d", y0 + dy);
  ARG ("mouseup"); ARG ("%s", button);
  if (ctrl_button1)
    {
      ARG ("keyup"); ARG ("ctrl");
    }
#undef ARG
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
}

static void
test_level_drags (void)
{
  g_autofree char *root = NULL;
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  HsWindow *window;
  HsCanvas *canvas;
  LevelsWatch watch;
  double c1, w1, c2, w2;

  if (hs_ui_skip_without_display ())
    return;
  g_assert_nonnull (xdotool);   /* tools/deps.sh installs it */
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  canvas = HS_CANVAS (hs_window_get_canvas (window));
  watch.state = hs_canvas_get_view_state (canvas);
  hs_view_state_get_window_level (watch.state, &watch.center, &watch.width);

  /* Ctrl + left drag: right widens the window, down moves the centre (hs-canvas.h). */
  drag_on_canvas (window, canvas, TRUE, 120, 60);
  hs_ui_wait_until (levels_changed, &watch);
  hs_ui_settle ();
  hs_view_state_get_window_level (watch.state, &c1, &w1);
  g_test_message ("after Ctrl+drag: centre %g, width %g", c1, w1);
  g_assert_cmpfloat (c1, >=, 0);
  g_assert_cmpfloat (w1, >, 0);
  /* A plain drag would have panned instead: the zoom and levels say it did not. */

  /* Right-button drag the other way: the window narrows. */
  watch.center = c1;
  watch.width = w1;
  drag_on_canvas (window, canvas, FALSE, -120, -60);
  hs_ui_wait_until (levels_changed, &watch);
  hs_ui_settle ();
  hs_view_state_get_window_level (watch.state, &c2, &w2);
  g_test_message ("after right-drag: centre %g, width %g", c2, w2);
  g_assert_cmpfloat (w2, <, w1);
  g_assert_cmpfloat (c2, !=, c1);
  hs_ui_destroy_window (window);
}

int
main (int argc, char **argv)
{
  hs_ui_init (&argc, &argv);
  g_test_add_func ("/hs/ui-window-controls/subset-filters", test_subset_filters);
  g_test_add_func ("/hs/ui-window-controls/level-sliders", test_level_sliders);
  g_test_add_func ("/hs/ui-window-controls/level-drags", test_level_drags);
  return g_test_run ();
}
