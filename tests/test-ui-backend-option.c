/* test-ui-backend-option.c — heatscope --backend-exec and the backend-command preference
 *
 * Runs the application's own option handling (handle-local-options) and
 * stops before a window opens, so no display is needed. */
#include <gtk/gtk.h>
#include <string.h>

#include "hs-test-util.h"
#include "hs-ui-fixture.h"
#include "hs-application.h"

static char *seen;

/* Runs after the application's handler: records what it stored and ends
 * the run (exit status 0) instead of opening a window. */
static int
stop_after_options (GApplication *app, GVariantDict *options, gpointer user_data)
{
  const char *command = hs_application_get_backend_command (HS_APPLICATION (app));

  g_free (seen);
  seen = g_strdup (command != NULL ? command : "(none)");
  return 0;
}

static int
run (const char * const *args)
{
  g_autoptr(HsApplication) app = hs_application_new ();
  int argc = g_strv_length ((char **) args);
  g_auto(GStrv) argv = g_strdupv ((char **) args);

  g_signal_connect_after (app, "handle-local-options", G_CALLBACK (stop_after_options), NULL);
  return g_application_run (G_APPLICATION (app), argc, argv);
}

static void
test_option (void)
{
  const char *good[] = { "heatscope", "--backend-exec", "python3 'my backend.py' --x", NULL };
  const char *bad[] = { "heatscope", "--backend-exec", "sh -c 'unterminated", NULL };
  const char *none[] = { "heatscope", NULL };
  g_autoptr(GSettings) settings = hs_settings_new ();

  g_clear_pointer (&seen, g_free);
  g_assert_cmpint (run (good), ==, 0);
  g_assert_cmpstr (seen, ==, "python3 'my backend.py' --x");

  /* Refused before anything starts: exit status 2, our handler never runs. */
  g_clear_pointer (&seen, g_free);
  g_assert_cmpint (run (bad), ==, 2);
  g_assert_null (seen);

  if (settings == NULL)
    {
      g_test_skip ("the GSettings schema is not available");
      return;
    }
  g_assert_cmpint (run (none), ==, 0);
  g_assert_cmpstr (seen, ==, "(none)");
  /* The preference serves when the option is absent; the option wins. */
  g_settings_set_string (settings, "backend-command", "tools/heatscope-backend-torch");
  g_assert_cmpint (run (none), ==, 0);
  g_assert_cmpstr (seen, ==, "tools/heatscope-backend-torch");
  g_assert_cmpint (run (good), ==, 0);
  g_assert_cmpstr (seen, ==, "python3 'my backend.py' --x");
  g_settings_reset (settings, "backend-command");
  g_clear_pointer (&seen, g_free);
}

int
main (int argc, char **argv)
{
  hs_ui_use_build_settings ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/ui/backend-option", test_option);
  return g_test_run ();
}
