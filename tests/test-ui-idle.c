/* test-ui-idle.c — an idle window stays idle: the text cursor's blinking
 * ends after the cursor-blink-timeout key (1 s), not GTK's 10 s
 *
 * GTK 4.8 redraws a blinking cursor on about 30 frames a second, and with
 * software GL each of those frames is the whole window (tools/bench-idle
 * measures the CPU).  The application binds the key to GtkSettings'
 * gtk-cursor-blink-timeout at start-up; this runs the real start-up
 * (g_application_register) and follows the key. */
#include <gtk/gtk.h>

#include "hs-test-util.h"
#include "hs-ui-fixture.h"
#include "hs-application.h"
#include "hs-utils-private.h"

/* GTK opened once, by the first test: a second gtk_init_check() after a
 * failed one returns TRUE without a display, and the next widget crashes. */
static gboolean
have_display (void)
{
  static int have = -1;

  if (have < 0)
    have = gtk_init_check ();
  return have;
}

static int
blink_timeout (void)
{
  int seconds = 0;

  g_object_get (gtk_settings_get_default (), "gtk-cursor-blink-timeout", &seconds, NULL);
  return seconds;
}

static void
test_blink_timeout (void)
{
  g_autoptr(HsApplication) app = NULL;
  g_autoptr(GSettings) settings = hs_settings_new ();
  g_autoptr(GError) error = NULL;
  GParamSpec *pspec;

  if (!have_display ())
    {
      g_test_skip (HS_UI_NO_DISPLAY);
      return;
    }
  if (settings == NULL)
    {
      g_test_skip ("the GSettings schema is not available");
      return;
    }
  /* GTK's own default, which the application must not keep. */
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (gtk_settings_get_default ()),
                                        "gtk-cursor-blink-timeout");
  g_assert_cmpint (G_PARAM_SPEC_INT (pspec)->default_value, ==, 10);
  g_assert_cmpint (blink_timeout (), ==, 10);

  app = hs_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_settings_get_int (settings, "cursor-blink-timeout"), ==, 1);
  g_assert_cmpint (blink_timeout (), ==, 1);

  /* The key is followed while the application runs. */
  g_settings_set_int (settings, "cursor-blink-timeout", 7);
  g_assert_cmpint (blink_timeout (), ==, 7);
  g_settings_reset (settings, "cursor-blink-timeout");
  g_assert_cmpint (blink_timeout (), ==, 1);
}

/* _hs_widget_set_tooltip: a widget in no window gets its tooltip (without
 * GTK's pointer query) and stays visible; one in a window gets it as GTK
 * sets it; NULL and "" clear it. */
static void
test_tooltip (void)
{
  GtkWidget *window, *in_window, *loose;

  if (!have_display ())
    {
      g_test_skip (HS_UI_NO_DISPLAY);
      return;
    }
  window = gtk_window_new ();
  in_window = gtk_label_new ("in a window");
  gtk_window_set_child (GTK_WINDOW (window), in_window);
  gtk_window_present (GTK_WINDOW (window));
  loose = g_object_ref_sink (gtk_check_button_new ());

  _hs_widget_set_tooltip (loose, "Show this region");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (loose), ==, "Show this region");
  g_assert_true (gtk_widget_get_has_tooltip (loose));
  g_assert_true (gtk_widget_get_visible (loose));
  _hs_widget_set_tooltip (loose, NULL);
  g_assert_null (gtk_widget_get_tooltip_text (loose));
  g_assert_false (gtk_widget_get_has_tooltip (loose));
  g_assert_true (gtk_widget_get_visible (loose));

  /* A hidden widget stays hidden. */
  gtk_widget_set_visible (loose, FALSE);
  _hs_widget_set_tooltip (loose, "hidden");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (loose), ==, "hidden");
  g_assert_false (gtk_widget_get_visible (loose));

  _hs_widget_set_tooltip (in_window, "Targets: lung");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (in_window), ==, "Targets: lung");
  g_assert_true (gtk_widget_get_visible (in_window));
  _hs_widget_set_tooltip (in_window, "");
  g_assert_null (gtk_widget_get_tooltip_text (in_window));

  g_object_unref (loose);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  hs_ui_use_build_settings ();
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/ui/idle/cursor-blink-timeout", test_blink_timeout);
  g_test_add_func ("/hs/ui/idle/tooltip", test_tooltip);
  return g_test_run ();
}
