/* hs-renderer.h — which GSK renderer the app's windows use */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* TRUE when `gl_renderer` (the GL_RENDERER string) names a software
 * rasteriser (Mesa's llvmpipe, softpipe, swrast, OpenSWR; Windows' basic
 * render driver), or when `libgl_always_software` (the
 * LIBGL_ALWAYS_SOFTWARE variable) asks Mesa for one. */
gboolean    hs_renderer_is_software_gl (const char *gl_renderer,
                                        const char *libgl_always_software);
/* The renderer (a GSK_RENDERER name) the app asks for with the preference
 * `preference` ("auto", "gl" or "cairo"), or NULL to leave GTK's own
 * choice: the user's GSK_RENDERER (`gsk_env`) always wins; "cairo" is
 * cairo; "gl" and an unknown value are GTK's default; "auto" is cairo when
 * `software_gl`. */
const char *hs_renderer_pick (const char *preference,
                              const char *gsk_env,
                              gboolean    software_gl);
/* The GL_RENDERER string of a GL context made on `display`, or NULL when
 * the display has no GL. */
char       *hs_renderer_probe_gl (GdkDisplay *display);
/* Applies the "renderer" preference of `settings` (NULL: "auto") to the
 * windows realized from now on on the default display, as that display's
 * "gsk-renderer" data; never changes the environment (threads exist by
 * now).  Returns the renderer asked for, or NULL (GTK's own choice). */
const char *hs_renderer_choose (GSettings *settings);

G_END_DECLS
