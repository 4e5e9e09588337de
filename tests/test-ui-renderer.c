/* test-ui-renderer.c — the "renderer" preference: cairo when GL is
 * software-rendered ("auto"), the user's GSK_RENDERER always wins
 *
 * GTK reads GSK_RENDERER once per process, when it makes the first window's
 * renderer, so each case that realizes a window or changes the environment
 * runs in a subprocess of its own.
 *
 * The app's start-up must not change the environment: GTK and GIO have
 * started threads that read it by then, and a setenv() beside a getenv()
 * crashed a start-up (SIGSEGV, about once in a few thousand).  Each child
 * asserts the environment after start-up is the one before, which fails
 * every time such a call comes back; /hs/ui/renderer/repeated starts the
 * application many times for any other race of the start-up. */
#include <gtk/gtk.h>

#include "hs-test-util.h"
#include "hs-ui-fixture.h"
#include "hs-application.h"
#include "hs-renderer.h"

#if defined(__SANITIZE_ADDRESS__)
#define HS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HS_ASAN 1
#endif
#endif

static void
test_is_software (void)
{
  /* GL_RENDERER strings as drivers report them. */
  g_assert_true (hs_renderer_is_software_gl ("llvmpipe (LLVM 15.0.6, 256 bits)", NULL));
  g_assert_true (hs_renderer_is_software_gl ("softpipe", NULL));
  g_assert_true (hs_renderer_is_software_gl ("Software Rasterizer", NULL));
  g_assert_true (hs_renderer_is_software_gl ("Mesa DRI swrast", NULL));
  g_assert_true (hs_renderer_is_software_gl ("SWR (LLVM 12.0.0, 256 bits)", NULL));
  g_assert_true (hs_renderer_is_software_gl ("D3D12 (Microsoft Basic Render Driver)", NULL));
  g_assert_true (hs_renderer_is_software_gl ("zink (llvmpipe (LLVM 15.0.6, 256 bits))", NULL));
  g_assert_false (hs_renderer_is_software_gl ("AMD Radeon RX 6600 (navi23, LLVM 15.0.6, DRM 3.49)", NULL));
  g_assert_false (hs_renderer_is_software_gl ("Mesa Intel(R) UHD Graphics 620 (KBL GT2)", NULL));
  g_assert_false (hs_renderer_is_software_gl ("NVIDIA GeForce RTX 3060/PCIe/SSE2", NULL));
  g_assert_false (hs_renderer_is_software_gl ("virgl (AMD Radeon RX 6600)", NULL));
  g_assert_false (hs_renderer_is_software_gl (NULL, NULL));
  /* Mesa's LIBGL_ALWAYS_SOFTWARE, as Mesa reads a boolean. */
  g_assert_true (hs_renderer_is_software_gl (NULL, "1"));
  g_assert_true (hs_renderer_is_software_gl ("AMD Radeon RX 6600", "true"));
  g_assert_false (hs_renderer_is_software_gl (NULL, "0"));
  g_assert_false (hs_renderer_is_software_gl (NULL, "false"));
  g_assert_false (hs_renderer_is_software_gl (NULL, ""));
}

static void
test_pick (void)
{
  g_assert_cmpstr (hs_renderer_pick ("auto", NULL, TRUE), ==, "cairo");
  g_assert_null (hs_renderer_pick ("auto", NULL, FALSE));
  g_assert_null (hs_renderer_pick ("auto", "", FALSE));
  g_assert_cmpstr (hs_renderer_pick ("auto", "", TRUE), ==, "cairo");
  g_assert_cmpstr (hs_renderer_pick ("cairo", NULL, FALSE), ==, "cairo");
  g_assert_null (hs_renderer_pick ("gl", NULL, TRUE));
  g_assert_null (hs_renderer_pick ("vulkan", NULL, TRUE));
  /* The user's variable wins over any preference. */
  g_assert_null (hs_renderer_pick ("auto", "ngl", TRUE));
  g_assert_null (hs_renderer_pick ("cairo", "gl", FALSE));
}

/* ---- the application's start-up, each in a subprocess ------------------- */

static const char *
renderer_of_new_window (void)
{
  GtkWidget *window = gtk_window_new ();
  const char *name;

  gtk_widget_realize (window);
  name = G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (window)));
  gtk_window_destroy (GTK_WINDOW (window));
  return name;
}

/* What the start-up asked GTK for: the default display's "gsk-renderer". */
static const char *
renderer_asked (void)
{
  return g_object_get_data (G_OBJECT (gdk_display_get_default ()), "gsk-renderer");
}

/* Registers the application (its start-up chooses the renderer) with the
 * preference `preference`; the environment must come out as it went in. */
static void
start_app (const char *preference)
{
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(HsApplication) app = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) before = g_get_environ ();
  g_auto(GStrv) after = NULL;

  g_assert_true (gtk_init_check ());
  settings = hs_settings_new ();
  g_assert_nonnull (settings);
  {
    g_autofree char *renderer = g_settings_get_string (settings, "renderer");

    g_assert_cmpstr (renderer, ==, "auto");   /* the default */
  }
  g_settings_set_string (settings, "renderer", preference);
  app = hs_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  after = g_get_environ ();
  g_assert_cmpstrv (after, before);
}

static void
child_auto_software (void)
{
  g_unsetenv ("GSK_RENDERER");
  g_setenv ("LIBGL_ALWAYS_SOFTWARE", "1", TRUE);
  start_app ("auto");
  g_assert_cmpstr (renderer_asked (), ==, "cairo");
  g_assert_null (g_getenv ("GSK_RENDERER"));
  g_assert_cmpstr (renderer_of_new_window (), ==, "GskCairoRenderer");
}

static void
child_gl_preference (void)
{
  g_unsetenv ("GSK_RENDERER");
  g_setenv ("LIBGL_ALWAYS_SOFTWARE", "1", TRUE);
  start_app ("gl");
  g_assert_null (renderer_asked ());
}

static void
child_cairo_preference (void)
{
  g_unsetenv ("GSK_RENDERER");
  g_unsetenv ("LIBGL_ALWAYS_SOFTWARE");
  start_app ("cairo");
  g_assert_cmpstr (renderer_asked (), ==, "cairo");
  g_assert_cmpstr (renderer_of_new_window (), ==, "GskCairoRenderer");
}

static void
child_user_env_wins (void)
{
  g_setenv ("GSK_RENDERER", "ngl", TRUE);
  g_setenv ("LIBGL_ALWAYS_SOFTWARE", "1", TRUE);
  start_app ("cairo");
  g_assert_null (renderer_asked ());
  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "ngl");
}

/* The real probe: a GL context on the display (Xvfb: Mesa's llvmpipe).
 * Needs GL, which the test environment turns off (GDK_DEBUG=gl-disable):
 * turned on here, in the child before GTK starts (no thread exists yet).
 * With GL on, GTK's own choice would be its GL renderer, so a cairo window
 * here shows GTK took the display's "gsk-renderer". */
static void
child_probe (void)
{
  g_autofree char *gl_renderer = NULL;
  gboolean software;

  g_unsetenv ("GDK_DEBUG");
  g_unsetenv ("GSK_RENDERER");
  g_unsetenv ("LIBGL_ALWAYS_SOFTWARE");
  start_app ("auto");
  gl_renderer = hs_renderer_probe_gl (gdk_display_get_default ());
  g_assert_nonnull (gl_renderer);
  software = hs_renderer_is_software_gl (gl_renderer, NULL);
  g_test_message ("GL_RENDERER: %s (%s)", gl_renderer, software ? "software" : "hardware");
  g_assert_cmpstr (renderer_asked (), ==, software ? "cairo" : NULL);
  g_assert_cmpstr (renderer_of_new_window (), ==, software ? "GskCairoRenderer" : "GskGLRenderer");
}

static gboolean
have_display (void)
{
  if (g_getenv ("DISPLAY") != NULL)
    return TRUE;
  g_test_skip ("no display: run the UI suite under xvfb-run");
  return FALSE;
}

static void
run_child (const char *name)
{
  g_autofree char *path = g_strdup_printf ("/hs/ui/renderer/%s/subprocess", name);

  if (!have_display ())
    return;
  g_test_trap_subprocess (path, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_auto_software (void)
{
  run_child ("auto-software");
}

static void
test_gl_preference (void)
{
  run_child ("gl-preference");
}

static void
test_cairo_preference (void)
{
  run_child ("cairo-preference");
}

static void
test_user_env_wins (void)
{
  run_child ("user-env-wins");
}

static void
test_probe (void)
{
#ifdef HS_ASAN
  /* Mesa's EGL driver, once loaded, is reported by LeakSanitizer as an
   * unknown module's leak (why the suite sets GDK_DEBUG=gl-disable). */
  g_test_skip ("loads Mesa's GL driver, which LeakSanitizer cannot follow");
#else
  run_child ("probe");
#endif
}

/* The four start-ups of the preference, 15 times each: a race between the
 * start-up and a thread GTK or GIO started shows as a crash of a few runs
 * (the setenv() one was rare: the children's environment check is what
 * catches that one every time).  Passes when every run passes; any failed
 * run fails it, with the runs named. */
static void
test_repeated (void)
{
  static const char *const children[] = { "auto-software", "gl-preference", "cairo-preference",
                                           "user-env-wins" };
  g_autoptr(GString) failed = g_string_new (NULL);

  if (!have_display ())
    return;
  for (guint i = 0; i < 15 * G_N_ELEMENTS (children); i++)
    {
      const char *name = children[i % G_N_ELEMENTS (children)];
      g_autofree char *path = g_strdup_printf ("/hs/ui/renderer/%s/subprocess", name);

      g_test_trap_subprocess (path, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      if (!g_test_trap_has_passed ())
        g_string_append_printf (failed, " %u (%s)", i, name);
    }
  if (failed->len > 0)
    g_test_fail_printf ("runs failed:%s", failed->str);
}

int
main (int argc, char **argv)
{
  hs_ui_use_build_settings ();
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("GDK_BACKEND", "x11", FALSE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/ui/renderer/is-software", test_is_software);
  g_test_add_func ("/hs/ui/renderer/pick", test_pick);
  g_test_add_func ("/hs/ui/renderer/auto-software", test_auto_software);
  g_test_add_func ("/hs/ui/renderer/auto-software/subprocess", child_auto_software);
  g_test_add_func ("/hs/ui/renderer/gl-preference", test_gl_preference);
  g_test_add_func ("/hs/ui/renderer/gl-preference/subprocess", child_gl_preference);
  g_test_add_func ("/hs/ui/renderer/cairo-preference", test_cairo_preference);
  g_test_add_func ("/hs/ui/renderer/cairo-preference/subprocess", child_cairo_preference);
  g_test_add_func ("/hs/ui/renderer/user-env-wins", test_user_env_wins);
  g_test_add_func ("/hs/ui/renderer/user-env-wins/subprocess", child_user_env_wins);
  g_test_add_func ("/hs/ui/renderer/probe", test_probe);
  g_test_add_func ("/hs/ui/renderer/probe/subprocess", child_probe);
  g_test_add_func ("/hs/ui/renderer/repeated", test_repeated);
  return g_test_run ();
}
