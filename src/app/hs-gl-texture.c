/* hs-gl-texture.c — one GL texture updated in place for a widget's layer
 *
 * Why: a slider drag changes the canvas's composite every frame.  Handed
 * to GSK's GL renderer as a GdkMemoryTexture, each frame's pixels became a
 * new GL texture (GTK 4.8 caches memory textures per GdkTexture, and each
 * frame's is new): llvmpipe allocated, zeroed and page-faulted its storage,
 * copied the pixels in, and sampled it with linear filtering.  Here one
 * texture lives in a context of our own, shared with the renderer's (GDK
 * makes every context of a display share with its own), its pixels are
 * rewritten with glTexSubImage2D, and each frame gets a cheap GdkGLTexture
 * over the same id, which the renderer draws as it is (a GL texture of a
 * shared context is used directly, with the texture's own sampling).
 *
 * Main thread only, like the rest of GTK.
 */
#include <epoxy/gl.h>

#include "hs-gl-texture.h"

struct _HsGlTexture
{
  GdkGLContext *context;     /* ours, shared with the renderer's */
  GdkSurface   *surface;     /* the surface it was made for (not a reference) */
  guint         id;          /* 0: none yet */
  int           width, height;
  GLenum        internal_format;
  gboolean      failed;      /* GL unusable here: never try again */
};

static gboolean enabled = TRUE;

void
hs_gl_texture_set_enabled (gboolean on)
{
  enabled = on;
}

HsGlTexture *
hs_gl_texture_new (void)
{
  return g_new0 (HsGlTexture, 1);
}

void
hs_gl_texture_reset (HsGlTexture *self)
{
  if (self->context && self->id)
    {
      gdk_gl_context_make_current (self->context);
      glDeleteTextures (1, &self->id);
      gdk_gl_context_clear_current ();
    }
  self->id = 0;
  self->surface = NULL;
  g_clear_object (&self->context);
}

void
hs_gl_texture_free (HsGlTexture *self)
{
  if (self == NULL)
    return;
  hs_gl_texture_reset (self);
  g_free (self);
}

/* Our context for `surface`, current; FALSE when GL cannot be used. */
static gboolean
ensure_context (HsGlTexture *self, GdkSurface *surface)
{
  g_autoptr(GError) error = NULL;
  GdkGLContext *context;

  if (self->context && self->surface == surface)
    {
      gdk_gl_context_make_current (self->context);
      return TRUE;
    }
  hs_gl_texture_reset (self);
  context = gdk_surface_create_gl_context (surface, &error);
  if (context == NULL || !gdk_gl_context_realize (context, &error))
    {
      g_debug ("canvas: no GL context of its own (%s); memory textures instead",
               error ? error->message : "unknown");
      g_clear_object (&context);
      self->failed = TRUE;
      return FALSE;
    }
  gdk_gl_context_make_current (context);
  if (!gdk_gl_context_get_use_es (context))
    self->internal_format = GL_RGBA8;
  else if (epoxy_gl_version () >= 30 && epoxy_has_gl_extension ("GL_EXT_texture_format_BGRA8888"))
    self->internal_format = GL_BGRA_EXT;       /* GLES wants the upload's format */
  else
    {
      g_debug ("canvas: GLES without BGRA textures; memory textures instead");
      gdk_gl_context_clear_current ();
      g_object_unref (context);
      self->failed = TRUE;
      return FALSE;
    }
  self->context = context;
  self->surface = surface;
  return TRUE;
}

/* GSK's GL renderer (its header is not public in GTK 4.8; the type is). */
static gboolean
is_gl_renderer (GskRenderer *renderer)
{
  GType gl = g_type_from_name ("GskGLRenderer");

  return renderer != NULL && gl != 0 && g_type_is_a (G_OBJECT_TYPE (renderer), gl);
}

GdkTexture *
hs_gl_texture_update (HsGlTexture *self, GtkWidget *widget, cairo_surface_t *surface)
{
  GtkNative *native = gtk_widget_get_native (widget);
  int w = cairo_image_surface_get_width (surface);
  int h = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  const guint8 *data;

  if (!enabled || self->failed || native == NULL || w <= 0 || h <= 0 || stride % 4 != 0 ||
      !is_gl_renderer (gtk_native_get_renderer (native)) ||
      !ensure_context (self, gtk_native_get_surface (native)))
    return NULL;

  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei (GL_UNPACK_ROW_LENGTH, stride / 4);
  if (self->id == 0 || self->width != w || self->height != h)
    {
      if (self->id == 0)
        glGenTextures (1, &self->id);
      glBindTexture (GL_TEXTURE_2D, self->id);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
      glTexImage2D (GL_TEXTURE_2D, 0, (GLint) self->internal_format, w, h, 0, GL_BGRA, GL_UNSIGNED_BYTE, data);
      self->width = w;
      self->height = h;
    }
  else
    {
      glBindTexture (GL_TEXTURE_2D, self->id);
      glTexSubImage2D (GL_TEXTURE_2D, 0, 0, 0, w, h, GL_BGRA, GL_UNSIGNED_BYTE, data);
    }
  glPixelStorei (GL_UNPACK_ROW_LENGTH, 0);
  glBindTexture (GL_TEXTURE_2D, 0);
  /* The renderer's context reads it next: the write must have reached the
   * shared texture first. */
  glFlush ();
  if (glGetError () != GL_NO_ERROR)
    {
      g_debug ("canvas: GL texture update failed; memory textures instead");
      hs_gl_texture_reset (self);
      self->failed = TRUE;
      return NULL;
    }
  return gdk_gl_texture_new (self->context, self->id, w, h, NULL, NULL);
}
