/* hs-renderer.c — which GSK renderer the app's windows use
 *
 * Without a GPU (a laptop on battery, a virtual desktop, a remote session:
 * Mesa's llvmpipe, like Xvfb here) GSK's GL renderer costs more than it
 * saves: llvmpipe offers no buffer age, so every frame re-rasterises the
 * whole window, and the GL renderer's textures and llvmpipe's JIT take
 * ~85 MB more at start-up.  Measured in the soak (docs/performance.md,
 * "Choosing the renderer"): a step costs about half the CPU with GTK's cairo
 * renderer, which redraws only what changed.  So the "renderer" preference
 * defaults to "auto": cairo when GL is software-rendered, GL otherwise.
 *
 * The choice is told to GTK as the display's "gsk-renderer" data, which GSK
 * reads (before GSK_RENDERER) each time it makes a window's renderer — the
 * key GTK's inspector uses, in every GTK 4 so far — never by setting
 * GSK_RENDERER: the choice needs the display (the GL probe) and the
 * settings, and by the time they exist GTK and GIO have started threads
 * (Pango's fontconfig set-up, GDBus, the icon theme's loader) that read the
 * environment, while setenv() may move glibc's environment array under
 * them: a start-up crashed that way (ui-renderer, SIGSEGV in a getenv()). */
#include <epoxy/gl.h>
#include <string.h>

#include "hs-renderer.h"

gboolean
hs_renderer_is_software_gl (const char *gl_renderer,
                            const char *libgl_always_software)
{
  /* The names Mesa's and Windows' software rasterisers report; zink on
   * lavapipe reports "zink (llvmpipe …)". */
  static const char *const software[] = {
    "llvmpipe", "softpipe", "software rasterizer", "swrast", "swr (", "basic render driver",
  };
  g_autofree char *lower = NULL;

  if (libgl_always_software != NULL && libgl_always_software[0] != '\0' &&
      g_ascii_strcasecmp (libgl_always_software, "0") != 0 &&
      g_ascii_strcasecmp (libgl_always_software, "false") != 0 &&
      g_ascii_strcasecmp (libgl_always_software, "no") != 0)
    return TRUE;
  if (gl_renderer == NULL)
    return FALSE;
  lower = g_ascii_strdown (gl_renderer, -1);
  for (guint i = 0; i < G_N_ELEMENTS (software); i++)
    if (strstr (lower, software[i]) != NULL)
      return TRUE;
  return FALSE;
}

const char *
hs_renderer_pick (const char *preference,
                  const char *gsk_env,
                  gboolean    software_gl)
{
  if (gsk_env != NULL && gsk_env[0] != '\0')
    return NULL;
  if (g_strcmp0 (preference, "cairo") == 0)
    return "cairo";
  if (g_strcmp0 (preference, "auto") == 0 && software_gl)
    return "cairo";
  return NULL;
}

char *
hs_renderer_probe_gl (GdkDisplay *display)
{
  g_autoptr(GdkGLContext) context = NULL;
  const char *name;
  char *result;

  g_return_val_if_fail (GDK_IS_DISPLAY (display), NULL);

  context = gdk_display_create_gl_context (display, NULL);
  if (context == NULL || !gdk_gl_context_realize (context, NULL))
    return NULL;
  gdk_gl_context_make_current (context);
  name = (const char *) glGetString (GL_RENDERER);
  result = g_strdup (name);
  gdk_gl_context_clear_current ();
  return result;
}

const char *
hs_renderer_choose (GSettings *settings)
{
  g_autofree char *preference = settings != NULL ? g_settings_get_string (settings, "renderer")
                                                 : g_strdup ("auto");
  const char *gsk_env = g_getenv ("GSK_RENDERER");
  const char *libgl = g_getenv ("LIBGL_ALWAYS_SOFTWARE");
  GdkDisplay *display = gdk_display_get_default ();
  gboolean software = FALSE;
  const char *choice;

  /* Probe only when the answer matters: a GL context costs a few ms. */
  if ((gsk_env == NULL || gsk_env[0] == '\0') && g_strcmp0 (preference, "auto") == 0)
    {
      software = hs_renderer_is_software_gl (NULL, libgl);
      if (!software && display != NULL)
        {
          g_autofree char *gl_renderer = hs_renderer_probe_gl (display);

          software = hs_renderer_is_software_gl (gl_renderer, NULL);
        }
    }
  choice = hs_renderer_pick (preference, gsk_env, software);
  if (choice != NULL && display != NULL)
    g_object_set_data (G_OBJECT (display), "gsk-renderer", (gpointer) choice);
  return choice;
}
