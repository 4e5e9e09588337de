/* test-ui-first-hour.c — issue #15 "A new user's first hour", driven through
 * the main window at its default size:
 *   point 1: a long report sentence does not push the side panel sideways
 *            (no horizontal scrolling, headings and tabs inside it);
 *   point 6: the colour bar panel sits beside the fitted image, not on it,
 *            and its title is horizontal lines: the quantity's name, then
 *            the scale with its range written "lo to hi";
 *   point 7: the first look leaves the anatomy visible: a perceptual map,
 *            low attention transparent (threshold 0.2 of the bar, shown in
 *            map units), opacity 0.6 — most of the radiograph untinted;
 *   point 8: the metrics table fits the side panel (every baseline column
 *            visible, none cut on the right). */
#include "hs-ui-fixture.h"

#include "hs-canvas.h"
#include "hs-metrics-panel.h"
#include "hs-overlay-panel.h"
#include "hs-window.h"

#define LONG_SENTENCE \
  "There is a small rounded opacity projecting over the lateral aspect of the right lower lung " \
  "zone which may represent a nodule or overlapping vascular structures, and a follow-up " \
  "radiograph with oblique views (posteroanterior-lateral-oblique-apical-lordotic) is " \
  "recommended to exclude a pulmonary nodule."

/* The hand-made dataset plus instance "long": hand-00's image and map with
 * a report sentence far wider than the side panel. */
static char *
make_dataset (void)
{
  char *root = hs_ui_make_dataset ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (root, &error);
  HsInstance *instance;
  HsSentence *sentence;
  HsRegion *region;

  g_assert_no_error (error);
  instance = hs_instance_new ("long", "images/hand-00.png");
  region = hs_region_new ("right lung");
  hs_region_add_box (region, 50, 55, 160, 275);
  hs_instance_add_region (instance, region);
  sentence = hs_sentence_new ("s0", LONG_SENTENCE);
  hs_sentence_add_target (sentence, "right lung");
  hs_instance_add_sentence (instance, sentence);
  hs_instance_add_map (instance, hs_map_ref_new ("grounded", "s0", "maps/hand-00-s0.npy"));
  hs_dataset_add_instance (dataset, instance);
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  return root;
}

static HsWindow *
open_long (const char *root)
{
  HsWindow *window;
  g_autoptr(GFile) file = g_file_new_for_path (root);

  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_true (hs_window_select_instance (window, "long"));
  hs_ui_settle ();
  return window;
}

static GtkScrolledWindow *
side_scroller (HsWindow *window)
{
  GtkWidget *stack = g_object_get_data (G_OBJECT (window), "hs-side-stack");

  return GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (stack, GTK_TYPE_SCROLLED_WINDOW));
}

/* `widget` lies within `frame` horizontally (in frame's coordinates). */
static void
assert_inside (GtkWidget *widget, GtkWidget *frame, const char *what)
{
  graphene_rect_t r;

  g_assert_true (gtk_widget_compute_bounds (widget, frame, &r));
  if (r.origin.x < -0.5 || r.origin.x + r.size.width > gtk_widget_get_width (frame) + 0.5)
    g_error ("%s spans x %.1f … %.1f, outside its frame 0 … %d", what, r.origin.x,
             r.origin.x + r.size.width, gtk_widget_get_width (frame));
}

/* The deepest descendant of `root` whose minimum width exceeds `limit`:
 * what a failure names, so it says which widget pushes the panel. */
static GtkWidget *
widest_culprit (GtkWidget *root, int limit)
{
  int min = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (!gtk_widget_get_visible (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
      if (min > limit && (found = widest_culprit (child, limit)) != NULL)
        return found;
    }
  gtk_widget_measure (root, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  return min > limit ? root : NULL;
}

static void
assert_no_sideways_scroll (GtkScrolledWindow *scroller, const char *what)
{
  GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (scroller);

  if (gtk_adjustment_get_upper (h) > gtk_adjustment_get_page_size (h) + 0.5 ||
      gtk_adjustment_get_value (h) != 0)
    {
      GtkWidget *culprit = widest_culprit (GTK_WIDGET (scroller), (int) gtk_adjustment_get_page_size (h));

      g_error ("%s scrolls sideways: content %.0f px in a view of %.0f px, scrolled by %.0f (widest: %s %s)",
               what, gtk_adjustment_get_upper (h), gtk_adjustment_get_page_size (h),
               gtk_adjustment_get_value (h), culprit ? G_OBJECT_TYPE_NAME (culprit) : "none",
               culprit && GTK_IS_LABEL (culprit) ? gtk_label_get_text (GTK_LABEL (culprit)) : "");
    }
}

static void
test_long_sentence (void)
{
  g_autofree char *root = NULL;
  HsWindow *window;
  GtkScrolledWindow *side;

  if (hs_ui_skip_without_display ())
    return;
  root = make_dataset ();
  window = open_long (root);
  side = side_scroller (window);
  assert_no_sideways_scroll (side, "the side panel");
  assert_inside (hs_ui_find_widget (GTK_WIDGET (side), GTK_TYPE_STACK_SWITCHER), GTK_WIDGET (side),
                 "the tab switcher");
  assert_inside (GTK_WIDGET (hs_window_get_prompt_panel (window)), GTK_WIDGET (side), "the prompt panel");
  /* ... and the side stays its own width: inside the window, the canvas beside it. */
  assert_inside (GTK_WIDGET (side), GTK_WIDGET (window), "the side panel");
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (side)), <=, 480);
  g_assert_cmpint (gtk_widget_get_width (hs_window_get_canvas (window)), >=, 300);
  /* every page of the side stack, the Perturb page with the long prompt too */
  for (guint p = 0; p < 4; p++)
    {
      const char *pages[] = { "overlay", "layers", "metrics", "perturb" };

      gtk_stack_set_visible_child_name (g_object_get_data (G_OBJECT (window), "hs-side-stack"), pages[p]);
      hs_ui_settle ();
      assert_no_sideways_scroll (side, pages[p]);
      assert_inside (GTK_WIDGET (side), GTK_WIDGET (window), pages[p]);
    }
  hs_ui_destroy_window (window);
}

static gboolean
metrics_idle (gpointer panel)
{
  return !hs_metrics_panel_get_busy (panel);
}

static void
test_metrics_table_fits (void)
{
  g_autofree char *root = NULL;
  HsWindow *window;
  GtkWidget *panel, *table, *scroller;
  const char *columns[] = { "model", "uniform", "center", "sobel", "laplace", "random" };
  guint n;
  const HsMetric *metrics = hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n);

  if (hs_ui_skip_without_display ())
    return;
  root = make_dataset ();
  window = open_long (root);
  gtk_stack_set_visible_child_name (g_object_get_data (G_OBJECT (window), "hs-side-stack"), "metrics");
  panel = hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_METRICS_PANEL);
  hs_ui_settle ();
  hs_ui_wait_until (metrics_idle, panel);
  hs_ui_settle ();
  table = hs_ui_find_widget (panel, GTK_TYPE_GRID);
  scroller = gtk_widget_get_ancestor (table, GTK_TYPE_SCROLLED_WINDOW);
  assert_no_sideways_scroll (GTK_SCROLLED_WINDOW (scroller), "the metrics table");
  assert_no_sideways_scroll (side_scroller (window), "the side panel");
  /* Every cell, the rightmost baseline's included, is where it can be seen. */
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    for (guint m = 0; m < n; m++)
      {
        const char *text = NULL;
        g_autofree char *what = g_strdup_printf ("cell %s/%s", hs_metric_get_name (metrics[m]), columns[c]);
        GtkWidget *table_child;

        g_assert_true (hs_metrics_panel_get_cell (HS_METRICS_PANEL (panel), hs_metric_get_name (metrics[m]),
                                                  columns[c], &text, NULL));
        table_child = gtk_grid_get_child_at (GTK_GRID (table), (int) c + 1, (int) m + 1);
        g_assert_nonnull (table_child);
        assert_inside (table_child, scroller, what);
      }
  hs_ui_save_screenshot (GTK_WIDGET (window), "first-hour-metrics");
  hs_ui_destroy_window (window);
}

/* Point 6: the colour bar panel does not cover the heatmap: the fitted
 * image lies left of it, in the main window and after the map changes. */
static void
test_color_bar_beside_image (void)
{
  g_autofree char *root = NULL;
  HsWindow *window;
  HsCanvas *canvas;
  HsCanvasTransform t;
  HsImage *image;
  double hx, hy, hw, hh;

  if (hs_ui_skip_without_display ())
    return;
  root = make_dataset ();
  window = open_long (root);
  canvas = HS_CANVAS (hs_window_get_canvas (window));
  for (guint step = 0; step < 2; step++)
    {
      g_assert_nonnull (hs_canvas_get_map (canvas));
      g_assert_true (hs_canvas_get_color_bar_area (canvas, &hx, &hy, &hw, &hh));
      image = hs_canvas_get_image (canvas);
      hs_canvas_get_transform (canvas, &t);
      if (t.offset_x + t.zoom * hs_image_get_width (image) > hx + 0.5 &&
          t.offset_y < hy + hh && t.offset_y + t.zoom * hs_image_get_height (image) > hy)
        g_error ("the colour bar (x ≥ %.0f) covers the image (x %.0f … %.0f)", hx, t.offset_x,
                 t.offset_x + t.zoom * hs_image_get_width (image));
      /* and it still fills the height (it was only moved aside) */
      g_assert_cmpfloat (t.zoom * hs_image_get_height (image), >, 0.5 * gtk_widget_get_height (GTK_WIDGET (canvas)));
      /* another instance: a new map with the image already shown */
      g_assert_true (hs_window_select_instance (window, "hand-01"));
      hs_ui_settle ();
    }
  hs_ui_destroy_window (window);
}

/* Point 6: the bar's title names the quantity (the manifest's, else
 * "attention weight") and writes the range with " to ", the ends being the
 * map's own minimum and maximum (three significant digits). */
static void
test_color_bar_title (void)
{
  g_autofree char *root = NULL;
  HsWindow *window;
  HsCanvas *canvas;
  g_autoptr(GError) error = NULL;

  if (hs_ui_skip_without_display ())
    return;
  root = make_dataset ();
  {
    /* hand-01's map measures something else, and says so */
    g_autoptr(HsDataset) dataset = hs_dataset_load (root, &error);
    HsInstance *instance;

    g_assert_no_error (error);
    instance = hs_dataset_find_instance (dataset, "hand-01");
    g_assert_nonnull (instance);
    g_assert_cmpuint (instance->maps->len, >, 0);
    for (guint i = 0; i < instance->maps->len; i++)
      hs_map_ref_set_quantity (g_ptr_array_index (instance->maps, i), "gradient × input");
    g_assert_true (hs_dataset_save (dataset, &error));
    g_assert_no_error (error);
  }
  window = open_long (root);
  canvas = HS_CANVAS (hs_window_get_canvas (window));
  for (guint step = 0; step < 2; step++)
    {
      g_autofree char *title = hs_canvas_dup_color_bar_title (canvas);
      g_auto(GStrv) lines = NULL;
      char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *range_line = NULL;
      double map_lo, map_hi;
      const double *v;
      gsize n;

      g_assert_nonnull (title);
      lines = g_strsplit (title, "\n", -1);
      g_assert_cmpuint (g_strv_length (lines), >=, 2);
      g_assert_cmpstr (lines[0], ==, step == 0 ? "attention weight" : "gradient × input");
      /* the map's own minimum and maximum, computed here */
      v = hs_attention_map_peek_values (hs_canvas_get_map (canvas));
      n = (gsize) hs_attention_map_get_width (hs_canvas_get_map (canvas))
          * hs_attention_map_get_height (hs_canvas_get_map (canvas));
      map_lo = map_hi = v[0];
      for (gsize i = 1; i < n; i++)
        {
          map_lo = MIN (map_lo, v[i]);
          map_hi = MAX (map_hi, v[i]);
        }
      g_ascii_formatd (lo, sizeof lo, "%.3g", map_lo);
      g_ascii_formatd (hi, sizeof hi, "%.3g", map_hi);
      range_line = g_strdup_printf ("min–max %s to %s", lo, hi);
      g_assert_cmpstr (lines[1], ==, range_line);
      /* no dash anywhere next to a number, where it would read as a minus */
      for (const char *c = title; *c; c = g_utf8_next_char (c))
        if ((g_str_has_prefix (c, "–") || *c == '-') && c > title && g_ascii_isdigit (c[-1]))
          g_error ("a dash after a number in the bar's title: %s", title);
      g_assert_true (hs_window_select_instance (window, "hand-01"));
      hs_ui_settle ();
    }
  hs_ui_destroy_window (window);
}

/* Point 7: the defaults (jet at 0.5, threshold 0 tinted every pixel of the
 * radiograph).  The state, the settings schema and the overlay panel agree
 * on inferno, 0.6 and 0.2; the threshold slider reads in map units; and on
 * screen the image is left as it is wherever attention is low. */
static void
test_first_look (void)
{
  g_autofree char *root = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *colormap = NULL, *settings_colormap = NULL;
  HsWindow *window;
  HsCanvas *canvas;
  HsViewState *state;
  HsOverlayPanel *panel;
  double opacity, threshold, lo, hi;
  cairo_surface_t *on, *off;
  HsCanvasTransform t;
  HsImage *image;
  guint inside = 0, tinted = 0;

  if (hs_ui_skip_without_display ())
    return;
  root = make_dataset ();
  window = open_long (root);
  g_assert_true (hs_window_select_instance (window, "hand-00"));
  hs_ui_settle ();
  canvas = HS_CANVAS (hs_window_get_canvas (window));
  state = hs_canvas_get_view_state (canvas);
  g_object_get (state, "colormap", &colormap, "opacity", &opacity, "threshold", &threshold, NULL);
  g_assert_cmpstr (colormap, ==, "inferno");
  g_assert_cmpfloat (opacity, ==, 0.6);
  g_assert_cmpfloat (threshold, ==, 0.2);
  settings = hs_settings_new ();
  settings_colormap = g_settings_get_string (settings, "colormap");
  g_assert_cmpstr (settings_colormap, ==, "inferno");
  g_assert_cmpfloat (g_settings_get_double (settings, "opacity"), ==, 0.6);
  g_assert_cmpfloat (g_settings_get_double (settings, "threshold"), ==, 0.2);

  /* the slider shows the threshold where it sits on the colour bar */
  panel = HS_OVERLAY_PANEL (hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_OVERLAY_PANEL));
  g_assert_nonnull (panel);
  g_assert_true (hs_canvas_get_map_range (canvas, &lo, &hi));
  g_assert_cmpfloat (hi, >, lo);
  g_assert_cmpfloat_with_epsilon (hs_overlay_panel_get_threshold_value (panel),
                                  lo + 0.2 * (hi - lo), 1e-9 * (hi - lo));

  /* the image's pixels with and without the heatmap (opacity 0: the same
   * layout, colour bar included): most stay untouched */
  on = hs_canvas_render_surface (canvas, 0, 0);
  g_object_set (state, "opacity", 0.0, NULL);
  hs_ui_settle ();
  off = hs_canvas_render_surface (canvas, 0, 0);
  hs_canvas_get_transform (canvas, &t);
  image = hs_canvas_get_image (canvas);
  {
    int w = cairo_image_surface_get_width (on), h = cairo_image_surface_get_height (on);
    int stride = cairo_image_surface_get_stride (on);
    const guint8 *a = cairo_image_surface_get_data (on), *b = cairo_image_surface_get_data (off);
    /* 2 pixels in from the image's edges, away from the boxes' labels'
     * anti-aliasing at the border */
    int x0 = (int) ceil (t.offset_x) + 2, y0 = (int) ceil (t.offset_y) + 2;
    int x1 = (int) floor (t.offset_x + t.zoom * hs_image_get_width (image)) - 2;
    int y1 = (int) floor (t.offset_y + t.zoom * hs_image_get_height (image)) - 2;

    g_assert_cmpint (cairo_image_surface_get_stride (off), ==, stride);
    for (int y = MAX (y0, 0); y < MIN (y1, h); y++)
      for (int x = MAX (x0, 0); x < MIN (x1, w); x++)
        {
          const guint8 *pa = a + (gsize) y * stride + 4 * x, *pb = b + (gsize) y * stride + 4 * x;

          inside++;
          if (ABS (pa[0] - pb[0]) > 2 || ABS (pa[1] - pb[1]) > 2 || ABS (pa[2] - pb[2]) > 2)
            tinted++;
        }
  }
  g_test_message ("%u of %u image pixels tinted by the heatmap", tinted, inside);
  g_assert_cmpuint (inside, >, 10000);
  /* drawn where attention is high, and the rest of the radiograph as it is
   * (with threshold 0 every pixel was tinted) */
  g_assert_cmpuint (tinted, >, inside / 50);
  g_assert_cmpuint (tinted, <, inside / 2);
  cairo_surface_destroy (on);
  cairo_surface_destroy (off);
  hs_ui_destroy_window (window);
}

int
main (int argc, char **argv)
{
  hs_ui_init (&argc, &argv);
  g_test_add_func ("/hs/ui-first-hour/long-sentence", test_long_sentence);
  g_test_add_func ("/hs/ui-first-hour/first-look", test_first_look);
  g_test_add_func ("/hs/ui-first-hour/metrics-table-fits", test_metrics_table_fits);
  g_test_add_func ("/hs/ui-first-hour/color-bar-beside-image", test_color_bar_beside_image);
  g_test_add_func ("/hs/ui-first-hour/color-bar-title", test_color_bar_title);
  return g_test_run ();
}
