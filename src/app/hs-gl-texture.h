/* hs-gl-texture.h — one GL texture updated in place for a widget's layer
 *
 * With GTK's GL renderer every GdkMemoryTexture becomes a new GL texture
 * whose storage the driver allocates, zeroes and fills; on software GL
 * (Mesa llvmpipe) that is a large part of a frame that changes one layer
 * (a slider drag).  HsGlTexture keeps one texture in a GL context shared
 * with the renderer's and rewrites its pixels, so the renderer draws it
 * with no upload of its own.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct _HsGlTexture HsGlTexture;

HsGlTexture *hs_gl_texture_new     (void);

/* Off: every update returns NULL (memory textures; benchmarks measure
 * both in one run).  On by default. */
void         hs_gl_texture_set_enabled (gboolean enabled);

/* Deletes the GL texture (textures handed out before keep their size but
 * no longer their pixels). */
void         hs_gl_texture_free    (HsGlTexture *self);

/* Drops the GL texture and context (the widget is unrealized or moves to
 * another window); the next update makes new ones. */
void         hs_gl_texture_reset   (HsGlTexture *self);

/* A texture of the pixels of `surface` (CAIRO_FORMAT_RGB24 or ARGB32,
 * whose memory layout GDK_MEMORY_DEFAULT is), drawn by `widget`'s renderer
 * without a copy of its own; NULL where that renderer is not GSK's GL
 * renderer or GL fails (the caller uses a memory texture then).  The
 * returned texture shows these pixels until the next update: the previous
 * one is the same GL texture, so only the newest may be drawn.  Sampled
 * nearest: drawn at one texel per device pixel, as the canvas does, that
 * is what linear filtering gives too, at less cost to a software
 * rasteriser. */
GdkTexture  *hs_gl_texture_update  (HsGlTexture *self, GtkWidget *widget, cairo_surface_t *surface);

G_END_DECLS
