/* test-ui-render-node.c — hs-render-node: the recorded drawing as tile
 * textures of their own, the view-sized buffer back in the pool at once;
 * Cairo nodes with the texture nodes' pixels */
#include <string.h>

#include <gtk/gtk.h>

#include "hs-render-node.h"
#include "hs-ui-display.h"

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

  node = hs_render_record_node (0, 0, W, H, 1, FALSE, draw_box, NULL);
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

/* `node` drawn (gsk_render_node_draw, as GSK's Cairo renderer draws it)
 * onto a cleared W × H ARGB32 surface. */
static cairo_surface_t *
draw_node (GskRenderNode *node)
{
  cairo_surface_t *out = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  cairo_t *cr = cairo_create (out);

  gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  cairo_surface_flush (out);
  return out;
}

static void
assert_same_pixels (cairo_surface_t *a, cairo_surface_t *b)
{
  for (int y = 0; y < H; y++)
    g_assert_cmpmem (cairo_image_surface_get_data (a) + (gsize) y * cairo_image_surface_get_stride (a), W * 4,
                     cairo_image_surface_get_data (b) + (gsize) y * cairo_image_surface_get_stride (b), W * 4);
}

/* Issue 26: with GSK's Cairo renderer (the app's choice on software GL)
 * the canvas's layers are Cairo nodes — GTK 4.8 converts a texture node's
 * every pixel through floats each time it is drawn — with the very pixels
 * of the texture nodes: a layer at 1:1 and one of twice the resolution
 * (a scale-2 screen), premultiplied pixels of every alpha; and the
 * recorded decor's nodes own their pixels as the texture tiles do. */
static void
test_cairo_nodes (void)
{
  const int sizes[][3] = { { 160, 120, 1 }, { 320, 240, 2 } };   /* device w, h, scale */

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      int w = sizes[i][0], h = sizes[i][1], scale = sizes[i][2];
      cairo_surface_t *layer = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
      guint8 *data = cairo_image_surface_get_data (layer);
      int stride = cairo_image_surface_get_stride (layer);
      graphene_rect_t bounds = GRAPHENE_RECT_INIT (37, 21, (float) w / scale, (float) h / scale);
      GskRenderNode *texture_node, *cairo_node;
      cairo_surface_t *by_texture, *by_cairo;

      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          {
            guint32 a = (x * 7 + y * 3) % 256, c = a * ((x + y) % 17) / 16;
            ((guint32 *) (void *) (data + (gsize) y * stride))[x] = a << 24 | c << 16 | (a - c) << 8 | (c / 2);
          }
      cairo_surface_mark_dirty (layer);
      texture_node = hs_render_surface_node (layer, &bounds, FALSE);
      cairo_node = hs_render_surface_node (layer, &bounds, TRUE);
      g_assert_cmpint (gsk_render_node_get_node_type (texture_node), ==, GSK_TEXTURE_NODE);
      g_assert_cmpint (gsk_render_node_get_node_type (cairo_node), ==, GSK_CAIRO_NODE);
      /* the Cairo node keeps its pixels when the layer's change */
      cairo_surface_destroy (layer);
      by_texture = draw_node (texture_node);
      by_cairo = draw_node (cairo_node);
      assert_same_pixels (by_texture, by_cairo);
      cairo_surface_destroy (by_texture);
      cairo_surface_destroy (by_cairo);
      gsk_render_node_unref (texture_node);
      gsk_render_node_unref (cairo_node);
    }

  {
    cairo_surface_t *first, *again, *by_texture, *by_cairo;
    GskRenderNode *texture_node, *cairo_node;
    guint8 *buffer;

    first = hs_render_surface_new (CAIRO_FORMAT_ARGB32, W, H);
    buffer = cairo_image_surface_get_data (first);
    cairo_surface_destroy (first);
    cairo_node = hs_render_record_node (0, 0, W, H, 1, TRUE, draw_box, NULL);
    g_assert_nonnull (cairo_node);
    again = hs_render_surface_new (CAIRO_FORMAT_ARGB32, W, H);
    g_assert_true (cairo_image_surface_get_data (again) == buffer);   /* released at once */
    memset (buffer, 0x5a, (gsize) cairo_image_surface_get_stride (again) * H);
    texture_node = hs_render_record_node (0, 0, W, H, 1, FALSE, draw_box, NULL);
    by_texture = draw_node (texture_node);
    by_cairo = draw_node (cairo_node);
    assert_same_pixels (by_texture, by_cairo);
    /* and that is the box: red inside, nothing outside */
    g_assert_cmphex (((guint32 *) (void *) cairo_image_surface_get_data (by_cairo))[80 * W + 110], ==, 0xffff0000);
    g_assert_cmphex (((guint32 *) (void *) cairo_image_surface_get_data (by_cairo))[80 * W + 140], ==, 0);
    cairo_surface_destroy (by_texture);
    cairo_surface_destroy (by_cairo);
    cairo_surface_destroy (again);
    gsk_render_node_unref (texture_node);
    gsk_render_node_unref (cairo_node);
  }
}

int
main (int argc, char **argv)
{
  hs_ui_test_init (&argc, &argv);
  hs_ui_test_add_func ("/render-node/record-releases-buffer", test_record_releases_buffer);
  hs_ui_test_add_func ("/render-node/cairo-nodes", test_cairo_nodes);
  return g_test_run ();
}
