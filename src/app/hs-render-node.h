/* hs-render-node.h — Cairo drawings and pixel buffers as GSK render nodes
 *
 * Used by the canvas for its layers; nothing here keeps a widget.
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
/* The same picture as a Cairo node, for a widget drawn by GSK's Cairo
 * renderer: GTK 4.8's Cairo renderer converts a texture node's every pixel
 * through floats each time it draws it (gdk_memory_convert has no
 * same-format path), a Cairo node is one pixman blit.  The node keeps the
 * pixels (a copy once `surface` changes or goes). */
GskRenderNode   *hs_render_cairo_node   (cairo_surface_t *surface, const graphene_rect_t *bounds);
/* hs_render_cairo_node for `cairo` (the widget's renderer is Cairo: see
 * hs_render_draws_with_cairo), else hs_render_texture_node. */
GskRenderNode   *hs_render_surface_node (cairo_surface_t *surface, const graphene_rect_t *bounds,
                                         gboolean cairo);
/* Whether `widget`'s window is drawn by GSK's Cairo renderer (the app's
 * choice under software GL, hs-renderer.h). */
gboolean         hs_render_draws_with_cairo (GtkWidget *widget);

typedef void (*HsRenderDrawFunc) (cairo_t *cr, gpointer user_data);

/* `draw` of the logical rectangle (x, y, width, height), recorded at
 * `scale` device pixels per unit into nodes (hs_render_surface_node with
 * `cairo`) of only the 64-pixel tiles it drew on; NULL when it drew
 * nothing. */
GskRenderNode   *hs_render_record_node  (int x, int y, int width, int height, int scale, gboolean cairo,
                                         HsRenderDrawFunc draw, gpointer user_data);

G_END_DECLS
