/* test-ui-open-image.c — a single PNG/JPEG/DICOM image opened or dropped on
 * the main window: a one-instance dataset in memory (nothing written), the
 * window/level sliders in the image's own grey values, and the honest
 * built-in models (no heatmap until the user picks one; then the caption,
 * the selector and the export say "phantom-trained model on a real image"). */
#include "hs-ui-fixture.h"

#include "hs-window.h"
#include "hs-canvas.h"
#include "hs-overlay-panel.h"

#define NOTE "phantom-trained model on a real image"

/* `source` (a shared-data file) copied alone into a fresh folder. */
static char *
copy_alone (const char *source, const char *name, char **dir_out)
{
  g_autofree char *from = hs_test_shared_path (source);
  g_autofree char *bytes = NULL;
  char *dir, *path;
  gsize len;

  if (from == NULL)
    return NULL;
  dir = hs_test_make_tmpdir ();
  path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_get_contents (from, &bytes, &len, NULL));
  g_assert_true (g_file_set_contents (path, bytes, len, NULL));
  *dir_out = dir;
  return path;
}

/* The folder holds `name` and nothing else. */
static void
assert_alone (const char *dir, const char *name)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *entry;
  guint n = 0;

  g_assert_nonnull (d);
  while ((entry = g_dir_read_name (d)) != NULL)
    {
      g_assert_cmpstr (entry, ==, name);
      n++;
    }
  g_assert_cmpuint (n, ==, 1);
}

static void
wait_loaded (HsWindow *window)
{
  hs_ui_wait_until (hs_ui_window_live_done, window);
  hs_ui_settle ();
}

static HsOverlayPanel *
overlay_panel (HsWindow *window)
{
  return HS_OVERLAY_PANEL (hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_OVERLAY_PANEL));
}

/* Drops `file` on the window as a file manager does (a GdkFileList). */
static gboolean
drop_file (HsWindow *window, GFile *file)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  GSList *files = g_slist_prepend (NULL, file);
  GValue value = G_VALUE_INIT;
  gboolean done = FALSE;

  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (files));
  g_slist_free (files);
  for (guint i = 0; i < g_list_model_get_n_items (controllers) && !done; i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller))
        g_signal_emit_by_name (controller, "drop", &value, 10.0, 10.0, &done);
    }
  g_value_unset (&value);
  return done;
}

static guint8
levelled_mono1 (double value, double center, double width)
{
  /* PS3.3 linear window (without the ±0.5 refinements), then MONOCHROME1 inversion */
  double g = CLAMP ((value - (center - width / 2)) * 255.0 / width, 0, 255);
  return (guint8) (255 - (guint) (g + 0.5));
}

/* The largest difference between the canvas at 1:1 and the image levelled
 * by hand through (center, width) in the file's own values. */
static guint
mono1_difference (HsCanvas *canvas, HsImage *image, double center, double width)
{
  HsCanvasTransform t = { 1.0, 0, 0 };
  cairo_surface_t *s;
  guint worst = 0;
  int ox, oy;

  /* 1:1 with whole-pixel offsets: widget (ox + x, oy + y) shows image pixel (x, y) */
  hs_canvas_set_transform (canvas, &t);
  s = hs_canvas_render_surface (canvas, 0, 0);
  cairo_surface_destroy (s);
  hs_canvas_get_transform (canvas, &t);
  g_assert_cmpfloat (t.zoom, ==, 1.0);
  ox = (int) t.offset_x;
  oy = (int) t.offset_y;
  g_assert_cmpfloat (t.offset_x, ==, ox);
  g_assert_cmpfloat (t.offset_y, ==, oy);
  s = hs_canvas_render_surface (canvas, 0, 0);
  cairo_surface_flush (s);
  for (guint y = 3; y < 300; y += 29)
    for (guint x = 5; x < 300; x += 31)
      {
        double v = hs_image_sample_to_value (image, hs_image_get_grey (image, x, y));
        const guint8 *row = cairo_image_surface_get_data (s) + (y + oy) * cairo_image_surface_get_stride (s);
        int red = (((const guint32 *) (const void *) row)[x + ox] >> 16) & 0xff;

        worst = MAX (worst, (guint) ABS (red - (int) levelled_mono1 (v, center, width)));
      }
  cairo_surface_destroy (s);
  return worst;
}

/* File → Open of a MONOCHROME1 DICOM film: a one-instance dataset; the
 * sliders start at the file's own window 550/1024 (raw values), moving them
 * levels the canvas in those values, the reset returns to the file's
 * window; nothing is written beside the image. */
static void
test_dicom_levels (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = copy_alone ("dicom/CR-MONO1-10-chest.dcm", "chest.dcm", &dir);
  g_autoptr(GFile) file = NULL;
  g_autoptr(HsImage) image = NULL;
  HsOverlayPanel *panel;
  HsWindow *window;
  HsDataset *dataset;
  double c, w, sc, sw;
  HsViewState *state;

  if (path == NULL || hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  image = hs_image_load (path, NULL);
  g_assert_nonnull (image);
  window = hs_ui_new_window ();
  file = g_file_new_for_path (path);
  hs_window_open (window, file);
  wait_loaded (window);

  dataset = hs_window_get_dataset (window);
  g_assert_nonnull (dataset);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 1);
  g_assert_cmpstr (hs_dataset_get_instance (dataset, 0)->id, ==, "chest.dcm");
  g_assert_false (hs_dataset_get_instance (dataset, 0)->phantom);
  panel = overlay_panel (window);
  state = hs_overlay_panel_get_view_state (panel);
  g_assert_true (hs_view_state_get_window_level_auto (state));
  hs_overlay_panel_get_levels (panel, &c, &w);
  g_assert_cmpfloat (c, ==, 550);   /* the file's Window Center/Width */
  g_assert_cmpfloat (w, ==, 1024);
  g_assert_cmpuint (mono1_difference (HS_CANVAS (hs_window_get_canvas (window)), image, 550, 1024), <=, 1);

  /* The sliders in the file's values: 600/800 is what the canvas shows. */
  hs_overlay_panel_set_levels (panel, 600, 800);
  hs_ui_settle ();
  g_assert_false (hs_view_state_get_window_level_auto (state));
  hs_overlay_panel_get_levels (panel, &c, &w);
  g_assert_cmpfloat_with_epsilon (c, 600, 1e-9);
  g_assert_cmpfloat_with_epsilon (w, 800, 1e-9);
  g_assert_cmpuint (mono1_difference (HS_CANVAS (hs_window_get_canvas (window)), image, 600, 800), <=, 1);
  /* The state stays in fractions of the largest sample (what GSettings keeps). */
  hs_view_state_get_window_level (state, &c, &w);
  hs_image_window_to_samples (image, 600, 800, &sc, &sw);
  g_assert_cmpfloat_with_epsilon (c, sc / hs_image_get_max_value (image), 1e-12);
  g_assert_cmpfloat_with_epsilon (w, sw / hs_image_get_max_value (image), 1e-12);

  /* Ctrl+drag writes the state: the sliders follow in values. */
  hs_view_state_set_window_level (state, 0.25, 0.5);
  hs_overlay_panel_get_levels (panel, &c, &w);
  g_assert_cmpfloat_with_epsilon (c, hs_image_sample_to_value (image, 0.25 * hs_image_get_max_value (image)), 1e-9);
  g_assert_cmpfloat_with_epsilon (w, 0.5 * hs_image_get_max_value (image), 1e-9);   /* slope 1 */

  /* Reset: the file's own window again. */
  hs_view_state_set_window_level (state, -1, -1);
  hs_overlay_panel_get_levels (panel, &c, &w);
  g_assert_cmpfloat (c, ==, 550);
  g_assert_cmpfloat (w, ==, 1024);

  assert_alone (dir, "chest.dcm");
  hs_ui_destroy_window (window);
}

/* A CT slice: the sliders read in Hounsfield units (golden of the panel). */
static void
test_ct_units_golden (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = copy_alone ("dicom/pydicom-CT_small.dcm", "ct.dcm", &dir);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  HsOverlayPanel *panel;
  HsWindow *window;
  double c, w;

  if (path == NULL || hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  file = g_file_new_for_path (path);
  hs_window_open (window, file);
  wait_loaded (window);
  panel = overlay_panel (window);
  /* −849 HU is pixel (0, 0) (pydicom: stored 175, intercept −1024), 400 HU wide */
  hs_overlay_panel_set_levels (panel, -849, 400);
  hs_ui_settle ();
  hs_overlay_panel_get_levels (panel, &c, &w);
  g_assert_cmpfloat_with_epsilon (c, -849, 1e-9);
  g_assert_cmpfloat_with_epsilon (w, 400, 1e-9);
  texture = hs_ui_render (GTK_WIDGET (panel));
  hs_ui_assert_golden (texture, "ui-overlay-levels-hu", 0.02);
  hs_ui_destroy_window (window);
}

static gboolean
selector_settled (gpointer data)
{
  return hs_ui_window_live_done (data);
}

/* A real X-ray dropped on the window: no heatmap until a model is picked;
 * then the built-in model's map is labelled in the caption, the selector and
 * the export.  A dataset folder dropped afterwards opens too. */
static void
test_drop_real_image (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = copy_alone ("cxr-covid-seg/images/acute-respiratory-distress-syndrome-ards-1.jpg",
                                      "ards.jpg", &dir);
  g_autofree char *out_dir = hs_test_make_tmpdir ();
  g_autofree char *svg_path = g_build_filename (out_dir, "view.svg", NULL);
  g_autofree char *svg = NULL;
  g_autofree char *fixture = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  GtkDropDown *selector;
  HsCanvas *canvas;
  HsWindow *window;
  double c, w;

  if (path == NULL || hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  hs_window_set_live_delay (window, 0);
  file = g_file_new_for_path (path);
  g_assert_true (drop_file (window, file));
  wait_loaded (window);

  g_assert_cmpuint (hs_dataset_get_n_instances (hs_window_get_dataset (window)), ==, 1);
  canvas = HS_CANVAS (hs_window_get_canvas (window));
  selector = GTK_DROP_DOWN (hs_window_get_model_selector (window));
  /* 8-bit JPEG: the full range 0–255 */
  hs_overlay_panel_get_levels (overlay_panel (window), &c, &w);
  g_assert_cmpfloat (c, ==, 127.5);
  g_assert_cmpfloat (w, ==, 255);

  /* No precomputed maps on a real image: "No model", no heatmap. */
  g_assert_cmpstr (gtk_string_object_get_string (gtk_drop_down_get_selected_item (selector)), ==,
                   "No model");
  g_assert_null (hs_window_get_model (window));
  g_assert_null (hs_window_get_live_model (window));
  g_assert_null (hs_window_get_map (window));
  g_assert_false (hs_canvas_get_caption_phantom (canvas));

  /* The user picks the built-in model. */
  {
    g_autofree char *label = NULL;

    g_assert_true (hs_window_select_model (window, "grounded (live)"));
    hs_prompt_panel_set_prompt (hs_window_get_prompt_panel (window), "Opacity in the left lower lung.");
    hs_ui_wait_until (selector_settled, window);
    hs_ui_settle ();
    g_assert_cmpstr (hs_window_get_live_model (window), ==, "grounded");
    g_assert_nonnull (hs_window_get_map (window));
    g_assert_true (hs_canvas_get_caption_phantom (canvas));
    label = hs_window_dup_model_label (window, gtk_drop_down_get_selected (selector));
    g_assert_cmpstr (label, ==, "grounded (live) — " NOTE);
  }
  g_assert_true (hs_window_export_to_file (window, svg_path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg_path, &svg, NULL, NULL));
  g_assert_nonnull (strstr (svg, NOTE));
  texture = hs_ui_render (GTK_WIDGET (window));
  hs_ui_assert_golden (texture, "window-real-image-live", 0.02);
  assert_alone (dir, "ards.jpg");

  /* A dataset folder dropped next: it opens, its maps precomputed for
   * phantoms carry no note. */
  fixture = hs_ui_make_dataset ();
  folder = g_file_new_for_path (fixture);
  g_assert_true (drop_file (window, folder));
  wait_loaded (window);
  g_assert_cmpuint (hs_dataset_get_n_instances (hs_window_get_dataset (window)), ==, 5);
  /* the model picked last (grounded, live) stays: on phantoms, no note */
  g_assert_cmpstr (hs_window_get_live_model (window), ==, "grounded");
  g_assert_false (hs_canvas_get_caption_phantom (canvas));
  g_assert_true (hs_window_select_model (window, "grounded"));
  hs_ui_wait_until (selector_settled, window);
  hs_ui_settle ();
  g_assert_nonnull (hs_window_get_map (window));
  g_assert_false (hs_canvas_get_caption_phantom (canvas));
  hs_ui_destroy_window (window);
}

/* A file that is no image: one line naming it, nothing opened. */
static void
test_not_an_image (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "notes.txt", NULL);
  g_autoptr(GFile) file = NULL;
  HsWindow *window;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  g_assert_true (g_file_set_contents (path, "not an image\n", -1, NULL));
  window = hs_ui_new_window ();
  file = g_file_new_for_path (path);
  hs_window_open (window, file);
  wait_loaded (window);
  g_assert_null (hs_window_get_dataset (window));
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 1);
  {
    const char *text = hs_error_bar_get_text (hs_window_get_error_bar (window));
    g_assert_nonnull (strstr (text, "notes.txt"));
    g_assert_nonnull (strstr (text, "Could not open the image"));
  }
  assert_alone (dir, "notes.txt");
  hs_ui_destroy_window (window);
}

/* A template child by its id in the .ui file. */
static GtkWidget *
find_by_id (GtkWidget *root, const char *id)
{
  if (g_strcmp0 (gtk_buildable_get_buildable_id (GTK_BUILDABLE (root)), id) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_by_id (child, id);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The threshold slider reads in the map's units, those of the colour bar
 * (issue 15, point 7): with min–max scaling its ends are the map's minimum
 * and maximum, a scaled threshold t shows as min + t (max − min), and a
 * fixed 0–2 scale moves the same t to 2t. */
static void
test_threshold_map_units (void)
{
  g_autofree char *root = NULL;
  g_autoptr(GFile) file = NULL;
  HsOverlayPanel *panel;
  HsViewState *state;
  HsAttentionMap *map;
  HsWindow *window;
  const double *v;
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE, lower, upper;
  gsize n;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  root = hs_ui_make_dataset ();
  window = hs_ui_new_window ();
  file = g_file_new_for_path (root);
  hs_window_open (window, file);
  wait_loaded (window);
  g_assert_true (hs_window_select_model (window, "grounded"));
  wait_loaded (window);
  map = hs_window_get_map (window);
  g_assert_nonnull (map);
  v = hs_attention_map_peek_values (map);
  n = (gsize) hs_attention_map_get_width (map) * hs_attention_map_get_height (map);
  for (gsize i = 0; i < n; i++)
    {
      lo = MIN (lo, v[i]);
      hi = MAX (hi, v[i]);
    }
  g_assert_cmpfloat (hi, >, lo);

  panel = overlay_panel (window);
  state = hs_overlay_panel_get_view_state (panel);
  g_object_set (state, "scale-mode", "minmax", "threshold", 0.25, NULL);
  hs_ui_settle ();
  g_object_get (gtk_range_get_adjustment (GTK_RANGE (find_by_id (GTK_WIDGET (panel), "threshold_scale"))),
                "lower", &lower, "upper", &upper, NULL);
  g_assert_cmpfloat_with_epsilon (lower, lo, 1e-12);
  g_assert_cmpfloat_with_epsilon (upper, hi, 1e-12);
  g_assert_cmpfloat_with_epsilon (hs_overlay_panel_get_threshold_value (panel), lo + 0.25 * (hi - lo), 1e-12);

  /* The user drags it to 60 % of the way: the state keeps the scaled value. */
  hs_overlay_panel_set_threshold_value (panel, lo + 0.6 * (hi - lo));
  g_assert_cmpfloat_with_epsilon (hs_view_state_get_threshold (state), 0.6, 1e-9);

  /* Fixed 0–2: the same scaled threshold reads 1.2. */
  g_object_set (state, "scale-min", 0.0, "scale-max", 2.0, "scale-mode", "fixed", NULL);
  hs_ui_settle ();
  g_assert_cmpfloat_with_epsilon (hs_view_state_get_threshold (state), 0.6, 1e-9);
  g_assert_cmpfloat_with_epsilon (hs_overlay_panel_get_threshold_value (panel), 1.2, 1e-9);
  hs_ui_destroy_window (window);
}

int
main (int argc, char **argv)
{
  hs_ui_init (&argc, &argv);
  g_test_add_func ("/hs/ui-open-image/dicom-levels", test_dicom_levels);
  g_test_add_func ("/hs/ui-open-image/ct-units-golden", test_ct_units_golden);
  g_test_add_func ("/hs/ui-open-image/drop-real-image", test_drop_real_image);
  g_test_add_func ("/hs/ui-open-image/not-an-image", test_not_an_image);
  g_test_add_func ("/hs/ui-open-image/threshold-map-units", test_threshold_map_units);
  return g_test_run ();
}
