/* hs-render-node.h — Cairo drawings and pixel buffers as GSK render nodes
 *
 * Used by the canvas for its layers; nothing here knows a widget.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* An image surface of width × height whose pixels are left uninitialised
 * (the caller writes every one), its memory taken from a small pool of
 * recycled buffers; NULL when the size is empty or memory runs out.  Main
 * thread only. */
cairo_surface_t *hs_render_surface_new  (cairo_format_t format, int width, int height);

/* A texture node showing `surface` (kept alive by the texture) over the
 * logical rectangle `bounds`. */
GskRenderNode   *hs_render_texture_node (cairo_surface_t *surface, const graphene_rect_t *bounds);

typedef void (*HsRenderDrawFunc) (cairo_t *cr, gpointer user_data);

/* `draw` of the logical rectangle (x, y, width, height), recorded at
 * `scale` device pixels per unit into texture nodes of only the 64-pixel
 * tiles it drew on; NULL when it drew nothing. */
GskRenderNode   *hs_render_record_node  (int x, int y, int width, int height, int scale,
                                         HsRenderDrawFunc draw, gpointer user_data);

G_END_DECLS
