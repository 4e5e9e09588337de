/* hs-render-node.c — Cairo drawings and pixel buffers as GSK render nodes
 *
 * App-wide helpers with no widget state: a small pool of view-sized pixel
 * buffers, texture nodes over Cairo image surfaces, and the recording of a
 * Cairo drawing into tile-sparse texture nodes.
 */
#include <string.h>

#include "hs-render-node.h"

/* ---- layer buffers -------------------------------------------------------- */

/* View-sized layers come and go with every slider step.  Fresh 4 MB
 * buffers cost page faults and calloc's zeroing (a fifth of a frame in the
 * profile); a few recycled ones cost nothing.  Used from the main thread
 * only (textures are released there too). */
#define POOL_MAX 6

typedef struct {
  gsize size;
  gsize pad;            /* keeps data 16-byte aligned */
  guint8 data[];
} PoolBuffer;

static GSList *buffer_pool;

/* The newest first; past POOL_MAX the least recently released goes, so
 * buffers of sizes no longer asked for (a closed compare or grid window's
 * cells) do not stay for the rest of the session. */
static void
pool_release (gpointer data)
{
  PoolBuffer *buf = (PoolBuffer *) (void *) ((guint8 *) data - G_STRUCT_OFFSET (PoolBuffer, data));
  GSList *last;

  buffer_pool = g_slist_prepend (buffer_pool, buf);
  if (g_slist_length (buffer_pool) > POOL_MAX)
    {
      last = g_slist_last (buffer_pool);
      g_free (last->data);
      buffer_pool = g_slist_delete_link (buffer_pool, last);
    }
}

static const cairo_user_data_key_t pool_key;

/* An image surface of w × h whose pixels are left uninitialised (the
 * caller writes every one). */
cairo_surface_t *
hs_render_surface_new (cairo_format_t format, int w, int h)
{
  int stride = cairo_format_stride_for_width (format, w);
  gsize size = (gsize) stride * (gsize) h;
  PoolBuffer *buf = NULL;
  cairo_surface_t *surface;

  if (w <= 0 || h <= 0 || stride <= 0)
    return NULL;
  for (GSList *l = buffer_pool; l; l = l->next)
    if (((PoolBuffer *) l->data)->size == size)
      {
        buf = l->data;
        buffer_pool = g_slist_delete_link (buffer_pool, l);
        break;
      }
  if (buf == NULL)
    {
      buf = g_try_malloc (sizeof (PoolBuffer) + size);
      if (buf == NULL)
        return NULL;
      buf->size = size;
    }
  surface = cairo_image_surface_create_for_data (buf->data, format, w, h, stride);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS ||
      cairo_surface_set_user_data (surface, &pool_key, buf->data, pool_release) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      g_free (buf);
      return NULL;
    }
  return surface;
}

/* ---- texture nodes -------------------------------------------------------- */

/* A texture node showing `surface` (kept alive by the texture) over the
 * logical rectangle `bounds`: uploaded once, then only composited by the
 * renderer.  Cairo's ARGB32 is GDK_MEMORY_DEFAULT (B8G8R8A8 premultiplied
 * on little-endian), which GTK 4.8 hands to GL without conversion. */
GskRenderNode *
hs_render_texture_node (cairo_surface_t *surface, const graphene_rect_t *bounds)
{
  int h = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  GBytes *bytes;
  GdkTexture *texture;
  GskRenderNode *node;

  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface), (gsize) stride * h,
                                      (GDestroyNotify) cairo_surface_destroy,
                                      cairo_surface_reference (surface));
  texture = gdk_memory_texture_new (cairo_image_surface_get_width (surface), h,
                                    GDK_MEMORY_DEFAULT, bytes, stride);
  node = gsk_texture_node_new (texture, bounds);
  g_object_unref (texture);
  g_bytes_unref (bytes);
  return node;
}

GskRenderNode *
hs_render_cairo_node (cairo_surface_t *surface, const graphene_rect_t *bounds)
{
  GskRenderNode *node = gsk_cairo_node_new (bounds);
  cairo_t *cr = gsk_cairo_node_get_draw_context (node);
  cairo_pattern_t *pattern = cairo_pattern_create_for_surface (surface);
  cairo_matrix_t matrix;

  /* as GTK 4.8's Cairo renderer draws a texture node: the same pixels */
  cairo_pattern_set_extend (pattern, CAIRO_EXTEND_PAD);
  cairo_matrix_init_scale (&matrix, cairo_image_surface_get_width (surface) / bounds->size.width,
                           cairo_image_surface_get_height (surface) / bounds->size.height);
  cairo_matrix_translate (&matrix, -bounds->origin.x, -bounds->origin.y);
  cairo_pattern_set_matrix (pattern, &matrix);
  cairo_set_source (cr, pattern);
  cairo_rectangle (cr, bounds->origin.x, bounds->origin.y, bounds->size.width, bounds->size.height);
  cairo_fill (cr);
  cairo_pattern_destroy (pattern);
  cairo_destroy (cr);
  return node;
}

GskRenderNode *
hs_render_surface_node (cairo_surface_t *surface, const graphene_rect_t *bounds, gboolean cairo)
{
  return cairo ? hs_render_cairo_node (surface, bounds) : hs_render_texture_node (surface, bounds);
}

gboolean
hs_render_draws_with_cairo (GtkWidget *widget)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GskRenderer *renderer = native != NULL ? gtk_native_get_renderer (native) : NULL;

  return renderer != NULL && GSK_IS_CAIRO_RENDERER (renderer);
}

#define DECOR_TILE 64

/* A texture node of the device-pixel rectangle (x, y, w, h) of `surface`,
 * its pixels copied out: the view-sized drawing goes back to the pool at
 * once instead of staying alive, mostly transparent, as long as the node
 * (a decor node held a whole view's buffer for a few boxes; with the
 * compare and grid windows' cells, 99 MB at the soak's peak). */
static GskRenderNode *
sub_texture_node (cairo_surface_t *surface, int x, int y, int w, int h, int scale, gboolean cairo)
{
  int stride = cairo_image_surface_get_stride (surface);
  const guint8 *src = cairo_image_surface_get_data (surface) + (gsize) y * stride + (gsize) x * 4;
  cairo_surface_t *part = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  int row = cairo_image_surface_get_stride (part);
  guint8 *pixels = cairo_image_surface_get_data (part);
  GskRenderNode *node;

  for (int j = 0; j < h; j++)
    memcpy (pixels + (gsize) j * row, src + (gsize) j * stride, (gsize) w * 4);
  cairo_surface_mark_dirty (part);
  node = hs_render_surface_node (part, &GRAPHENE_RECT_INIT ((float) x / scale, (float) y / scale,
                                                            (float) w / scale, (float) h / scale), cairo);
  cairo_surface_destroy (part);
  return node;
}

/* Cairo drawing of the logical rectangle (x, y, w, h) of the view as
 * texture nodes at device resolution, one per horizontal run of 64-pixel
 * tiles holding something: a box outline or a label costs the renderer its
 * own area, not a full-view quad of transparent pixels. */
GskRenderNode *
hs_render_record_node (int x, int y, int w, int h, int scale, gboolean cairo, HsRenderDrawFunc draw,
                       gpointer user_data)
{
  cairo_surface_t *surface;
  g_autoptr(GPtrArray) nodes = NULL;
  GskRenderNode *node;
  int sw, sh, stride, tx, ty;
  const guint8 *data;
  cairo_t *cr;

  if (w <= 0 || h <= 0)
    return NULL;
  surface = hs_render_surface_new (CAIRO_FORMAT_ARGB32, w * scale, h * scale);
  if (surface == NULL)
    return NULL;
  cr = cairo_create (surface);
  cairo_set_operator (cr, CAIRO_OPERATOR_CLEAR);   /* a recycled buffer */
  cairo_paint (cr);
  cairo_set_operator (cr, CAIRO_OPERATOR_OVER);
  cairo_scale (cr, scale, scale);
  cairo_translate (cr, -x, -y);
  draw (cr, user_data);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  sw = w * scale;
  sh = h * scale;
  stride = cairo_image_surface_get_stride (surface);
  data = cairo_image_surface_get_data (surface);
  nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) gsk_render_node_unref);
  for (ty = 0; ty < sh; ty += DECOR_TILE)
    {
      int th = MIN (DECOR_TILE, sh - ty), run = -1;

      for (tx = 0; tx < sw + DECOR_TILE; tx += DECOR_TILE)
        {
          gboolean used = FALSE;

          for (int yy = ty; tx < sw && yy < ty + th && !used; yy++)
            {
              const guint32 *row = (const guint32 *) (const void *) (data + (gsize) yy * stride);
              for (int xx = tx; xx < MIN (tx + DECOR_TILE, sw); xx++)
                if (row[xx] != 0)
                  {
                    used = TRUE;
                    break;
                  }
            }
          if (used && run < 0)
            run = tx;
          else if (!used && run >= 0)
            {
              g_ptr_array_add (nodes, sub_texture_node (surface, run, ty, MIN (tx, sw) - run, th, scale, cairo));
              run = -1;
            }
        }
    }
  cairo_surface_destroy (surface);   /* back to the pool */
  if (nodes->len == 0)
    return NULL;
  node = gsk_container_node_new ((GskRenderNode **) nodes->pdata, nodes->len);
  if (x != 0 || y != 0)
    {
      GskTransform *shift = gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (x, y));
      GskRenderNode *moved = gsk_transform_node_new (node, shift);
      gsk_transform_unref (shift);
      gsk_render_node_unref (node);
      node = moved;
    }
  return node;
}

