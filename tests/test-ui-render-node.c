/* test-ui-render-node.c — hs-render-node: the recorded drawing as tile
 * textures of their own, the view-sized buffer back in the pool at once */
#include <string.h>

#include <gtk/gtk.h>

#include "hs-render-node.h"

#define W 400
#define H 300

static void
draw_box (cairo_t *cr, gpointer data)
{
  cairo_set_source_rgba (cr, 1, 0, 0, 1);
  cairo_rectangle (cr, 100, 70, 30, 20);   /* device pixels [100, 130) × [70, 90) */
  cairo_fill (cr);
}

/* The texture nodes under `node` and their bounds. */
static void
collect_textures (GskRenderNode *node, GPtrArray *out)
{
  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        collect_textures (gsk_container_node_get_child (node, i), out);
      break;
    case GSK_TRANSFORM_NODE:
      collect_textures (gsk_transform_node_get_child (node), out);
      break;
    case GSK_TEXTURE_NODE:
      g_ptr_array_add (out, node);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
test_record_releases_buffer (void)
{
  cairo_surface_t *first, *again;
  guint8 *buffer;
  GskRenderNode *node;
  g_autoptr(GPtrArray) textures = g_ptr_array_new ();
  guint red = 0, other = 0;

  /* A view-sized buffer in the pool, the one the recording will take. */
  first = hs_render_surface_new (CAIRO_FORMAT_ARGB32, W, H);
  buffer = cairo_image_surface_get_data (first);
  cairo_surface_destroy (first);

  node = hs_render_record_node (0, 0, W, H, 1, draw_box, NULL);
  g_assert_nonnull (node);

  /* The drawing's buffer is free again: the next surface of the view's
   * size is that buffer (a node holding it would make a new one). */
  again = hs_render_surface_new (CAIRO_FORMAT_ARGB32, W, H);
  g_assert_true (cairo_image_surface_get_data (again) == buffer);
  memset (cairo_image_surface_get_data (again), 0x5a, (gsize) cairo_image_surface_get_stride (again) * H);

  /* ... and the node still shows the box, from pixels of its own: one
   * 64 × 64 tile holds it, (64..128) × (64..128), opaque red exactly at
   * the box and transparent elsewhere. */
  collect_textures (node, textures);
  g_assert_cmpuint (textures->len, ==, 1);
  {
    GskRenderNode *tex = g_ptr_array_index (textures, 0);
    GdkTexture *texture = gsk_texture_node_get_texture (tex);
    graphene_rect_t bounds;
    int tw = gdk_texture_get_width (texture), th = gdk_texture_get_height (texture);
    g_autofree guint32 *pixels = g_new (guint32, (gsize) tw * th);

    gsk_render_node_get_bounds (tex, &bounds);
    g_assert_cmpfloat (bounds.origin.x, ==, 64);
    g_assert_cmpfloat (bounds.origin.y, ==, 64);
    g_assert_cmpint (tw, ==, 128);   /* the box crosses from tile 1 into tile 2 horizontally */
    g_assert_cmpint (th, ==, 64);
    gdk_texture_download (texture, (guint8 *) pixels, (gsize) tw * 4);
    for (int y = 0; y < th; y++)
      for (int x = 0; x < tw; x++)
        {
          gboolean in_box = x + 64 >= 100 && x + 64 < 130 && y + 64 >= 70 && y + 64 < 90;
          guint32 p = pixels[(gsize) y * tw + x];

          if (in_box)
            {
              g_assert_cmphex (p, ==, 0xffff0000);
              red++;
            }
          else
            {
              g_assert_cmphex (p, ==, 0);
              other++;
            }
        }
  }
  g_assert_cmpuint (red, ==, 30 * 20);
  g_assert_cmpuint (other, ==, 128 * 64 - 30 * 20);
  cairo_surface_destroy (again);
  gsk_render_node_unref (node);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render-node/record-releases-buffer", test_record_releases_buffer);
  return g_test_run ();
}
