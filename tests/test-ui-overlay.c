/* test-ui-overlay.c — HsOverlayPanel ↔ HsViewState ↔ GSettings ↔ HsCanvas */
#include "hs-canvas.h"
#include "hs-overlay-panel.h"
#include "hs-canvas-fixture.h"

typedef struct {
  HsViewState    *state;
  HsOverlayPanel *panel;
  GtkWidget      *window;
} PanelTest;

static void
setup (PanelTest *t, gconstpointer data)
{
  t->state = hs_view_state_new ();
  t->panel = HS_OVERLAY_PANEL (hs_overlay_panel_new ());
  g_object_ref_sink (t->panel);
  hs_overlay_panel_set_view_state (t->panel, t->state);
  t->window = fixture_present (GTK_WIDGET (t->panel), 480, 640);
}

static void
teardown (PanelTest *t, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (t->window));
  fixture_settle (20);
  hs_ui_assert_finalized (t->panel);
  hs_ui_assert_finalized (t->state);
}

static gpointer
child (PanelTest *t, const char *name)
{
  GObject *object = gtk_widget_get_template_child (GTK_WIDGET (t->panel), HS_TYPE_OVERLAY_PANEL, name);

  g_assert_nonnull (object);
  return object;
}

static void
test_state_to_widgets (PanelTest *t, gconstpointer data)
{
  g_object_set (t->state, "opacity", 0.25, "colormap", "inferno", "scale-mode", "percentile",
                "percentile-low", 5.0, "percentile-high", 95.0, "strength-curve", "log",
                "strength", 10.0, "threshold", 0.3, "outline", "otsu", "upsample", "nearest",
                "show-boxes", FALSE, NULL);

  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "opacity_adjustment")), ==, 0.25);
  g_assert_cmpuint (gtk_drop_down_get_selected (child (t, "colormap_dropdown")), ==, 3);
  g_assert_cmpuint (gtk_drop_down_get_selected (child (t, "scale_dropdown")), ==, 3);
  g_assert_cmpuint (gtk_drop_down_get_selected (child (t, "curve_dropdown")), ==, 1);
  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "strength_adjustment")), ==, 10);
  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "percentile_low_adjustment")), ==, 5);
  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "percentile_high_adjustment")), ==, 95);
  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "threshold_adjustment")), ==, 0.3);
  g_assert_cmpuint (gtk_drop_down_get_selected (child (t, "outline_dropdown")), ==, 2);
  g_assert_cmpuint (gtk_drop_down_get_selected (child (t, "upsample_dropdown")), ==, 1);
  g_assert_false (gtk_check_button_get_active (child (t, "show_boxes_check")));

  /* Only the controls of the chosen scale mode are shown. */
  g_assert_true (gtk_widget_get_visible (child (t, "percentile_box")));
  g_assert_false (gtk_widget_get_visible (child (t, "fixed_box")));
  /* k is only editable for the top-k outline. */
  g_assert_false (gtk_widget_get_sensitive (child (t, "top_k_spin")));
  g_object_set (t->state, "outline", "top-k", NULL);
  g_assert_true (gtk_widget_get_sensitive (child (t, "top_k_spin")));

  /* Window/level: "automatic" (−1) shows as centre ½, full width. */
  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "level_adjustment")), ==, 0.5);
  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "window_adjustment")), ==, 1.0);
  hs_view_state_set_window_level (t->state, 0.3, 0.4);
  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "level_adjustment")), ==, 0.3);
  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "window_adjustment")), ==, 0.4);
}

static void
test_widgets_to_state (PanelTest *t, gconstpointer data)
{
  g_autofree char *colormap = NULL;
  g_autofree char *scale = NULL;
  g_autofree char *upsample = NULL;
  double c, w;

  gtk_adjustment_set_value (child (t, "opacity_adjustment"), 0.8);
  g_assert_cmpfloat (hs_view_state_get_opacity (t->state), ==, 0.8);
  gtk_drop_down_set_selected (child (t, "colormap_dropdown"), 5);
  gtk_drop_down_set_selected (child (t, "scale_dropdown"), 1);
  gtk_drop_down_set_selected (child (t, "upsample_dropdown"), 1);
  g_object_get (t->state, "colormap", &colormap, "scale-mode", &scale, "upsample", &upsample, NULL);
  g_assert_cmpstr (colormap, ==, "diverging");
  g_assert_cmpstr (scale, ==, "fixed");
  g_assert_cmpstr (upsample, ==, "nearest");
  g_assert_true (gtk_widget_get_visible (child (t, "fixed_box")));
  gtk_adjustment_set_value (child (t, "scale_max_adjustment"), 0.05);
  {
    double max = 0;
    g_object_get (t->state, "scale-max", &max, NULL);
    g_assert_cmpfloat (max, ==, 0.05);
  }

  gtk_adjustment_set_value (child (t, "level_adjustment"), 0.7);
  hs_view_state_get_window_level (t->state, &c, &w);
  g_assert_cmpfloat (c, ==, 0.7);

  /* The reset button goes back to automatic levels. */
  g_signal_emit_by_name (child (t, "reset_levels_button"), "clicked");
  g_object_get (t->state, "window-level-center", &c, "window-level-width", &w, NULL);
  g_assert_cmpfloat (c, ==, -1);
  g_assert_cmpfloat (w, ==, -1);
}

static void
test_settings (PanelTest *t, gconstpointer data)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.heatscope.Heatscope");
  g_autofree char *colormap = NULL;

  hs_view_state_bind_settings (t->state, settings);
  /* Key → state → panel */
  g_settings_set_double (settings, "opacity", 0.9);
  g_assert_cmpfloat (hs_view_state_get_opacity (t->state), ==, 0.9);
  g_assert_cmpfloat (gtk_adjustment_get_value (child (t, "opacity_adjustment")), ==, 0.9);
  g_settings_set_string (settings, "outline", "otsu");
  g_assert_cmpint (hs_view_state_get_outline (t->state), ==, HS_OUTLINE_OTSU);
  /* Panel → state → key, for every kind of key */
  gtk_drop_down_set_selected (child (t, "colormap_dropdown"), 1);
  colormap = g_settings_get_string (settings, "colormap");
  g_assert_cmpstr (colormap, ==, "turbo");
  gtk_check_button_set_active (child (t, "show_masks_check"), FALSE);
  g_assert_false (g_settings_get_boolean (settings, "show-masks"));
  gtk_adjustment_set_value (child (t, "top_k_adjustment"), 30);
  g_assert_cmpfloat (g_settings_get_double (settings, "outline-top-k"), ==, 30);
  g_settings_unbind (t->state, "opacity");
}

static void
test_drives_canvas (PanelTest *t, gconstpointer data)
{
  Fixture f;
  HsCanvas *canvas = HS_CANVAS (hs_canvas_new ());
  cairo_surface_t *s;
  int p[3];

  fixture_init (&f);
  g_object_ref_sink (canvas);
  hs_canvas_set_view_state (canvas, t->state);
  hs_canvas_set_image (canvas, f.image);
  hs_canvas_set_map (canvas, f.map);

  /* Opacity 0 from the slider: the image alone (grey 96 at image (48, 80)). */
  gtk_adjustment_set_value (child (t, "opacity_adjustment"), 0);
  s = hs_canvas_render_surface (canvas, 400, 300);
  fixture_pixel (s, 150, 250, p);
  g_assert_cmpint (ABS (p[0] - 96), <=, 1);
  cairo_surface_destroy (s);
  gtk_adjustment_set_value (child (t, "opacity_adjustment"), 1);
  gtk_drop_down_set_selected (child (t, "colormap_dropdown"), 4);   /* grey */
  gtk_drop_down_set_selected (child (t, "upsample_dropdown"), 1);   /* nearest */
  s = hs_canvas_render_surface (canvas, 400, 300);
  /* The max cell in the grey map is white. */
  fixture_pixel (s, 210, 140, p);
  g_assert_cmpint (p[0], >=, 254);
  g_assert_cmpint (p[1], >=, 254);
  cairo_surface_destroy (s);

  hs_ui_assert_finalized (canvas);
  fixture_clear (&f);
}

static void
test_golden (PanelTest *t, gconstpointer data)
{
  cairo_surface_t *shot;

  g_object_set (t->state, "scale-mode", "fixed", "outline", "top-k", NULL);
  fixture_settle (50);
  shot = fixture_snapshot_widget (GTK_WIDGET (t->panel));
  fixture_check_golden (shot, "ui-overlay-panel");
  cairo_surface_destroy (shot);
}

int
main (int argc, char **argv)
{
  g_autofree char *schemas = hs_test_make_tmpdir ();
  g_autofree char *data = g_build_filename (hs_test_source_dir (), "data", NULL);
  g_autofree char *compiler = g_find_program_in_path ("glib-compile-schemas");
  const char *argv_c[] = { compiler, "--targetdir", schemas, data, NULL };
  int status = 1;

  g_assert_nonnull (compiler);
  /* The schema from data/, compiled for this run (memory backend). */
  g_assert_true (hs_test_run (argv_c, NULL, NULL, &status));
  g_assert_cmpint (status, ==, 0);
  g_setenv ("GSETTINGS_SCHEMA_DIR", schemas, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);

  hs_ui_test_init (&argc, &argv);
#define ADD(path, func) hs_ui_test_add ("/hs/ui-overlay/" path, PanelTest, NULL, setup, func, teardown)
  ADD ("state-to-widgets", test_state_to_widgets);
  ADD ("widgets-to-state", test_widgets_to_state);
  ADD ("settings", test_settings);
  ADD ("drives-canvas", test_drives_canvas);
  ADD ("golden", test_golden);
  return g_test_run ();
}
