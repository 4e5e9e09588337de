/* test-ui-canvas-gl.c — the canvas's composite as one GL texture rewritten
 * in place (src/app/hs-gl-texture.c), with GTK's GL renderer (Mesa's
 * software GL under Xvfb): the pixels on screen are those of the memory
 * texture it replaces, after every opacity and strength step, and the
 * texture drawn is the GL one.
 *
 * The rest of the suite renders with Cairo (GDK_DEBUG=gl-disable in
 * tests/meson.build); this test turns GL back on.  It is skipped where the
 * display has no GL renderer, and under AddressSanitizer (LeakSanitizer
 * reports Mesa's unloaded driver module as a leak). */
#include "hs-canvas.h"
#include "hs-canvas-fixture.h"
#include "hs-gl-texture.h"

#define VIEW_W 420
#define VIEW_H 300

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Counts the texture nodes under `node` whose texture is a GL texture
 * (gl) and those that are not (memory). */
static void
count_textures (GskRenderNode *node, guint *gl, guint *memory)
{
  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        count_textures (gsk_container_node_get_child (node, i), gl, memory);
      break;
    case GSK_TRANSFORM_NODE:
      count_textures (gsk_transform_node_get_child (node), gl, memory);
      break;
    case GSK_CLIP_NODE:
      count_textures (gsk_clip_node_get_child (node), gl, memory);
      break;
    case GSK_OPACITY_NODE:
      count_textures (gsk_opacity_node_get_child (node), gl, memory);
      break;
    case GSK_DEBUG_NODE:
      count_textures (gsk_debug_node_get_child (node), gl, memory);
      break;
    case GSK_TEXTURE_NODE:
      if (GDK_IS_GL_TEXTURE (gsk_texture_node_get_texture (node)))
        (*gl)++;
      else
        (*memory)++;
      break;
    default:
      break;
    }
}

/* The canvas as the window's renderer draws it, and which textures its
 * node holds. */
static cairo_surface_t *
render (GtkWidget *canvas, guint *gl, guint *memory)
{
  int w = gtk_widget_get_width (canvas), h = gtk_widget_get_height (canvas);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (canvas));
  GskRenderNode *node = hs_ui_paint_node (canvas);
  GdkTexture *texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);

  *gl = *memory = 0;
  count_textures (node, gl, memory);
  gdk_texture_download (texture, cairo_image_surface_get_data (surface), cairo_image_surface_get_stride (surface));
  cairo_surface_mark_dirty (surface);
  g_object_unref (texture);
  gsk_render_node_unref (node);
  return surface;
}

/* Largest difference of any channel of any pixel. */
static int
max_difference (cairo_surface_t *a, cairo_surface_t *b)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a), worst = 0;

  g_assert_cmpint (cairo_image_surface_get_width (b), ==, w);
  g_assert_cmpint (cairo_image_surface_get_height (b), ==, h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        int pa[3], pb[3];

        fixture_pixel (a, x, y, pa);
        fixture_pixel (b, x, y, pb);
        for (int c = 0; c < 3; c++)
          worst = MAX (worst, ABS (pa[c] - pb[c]));
      }
  return worst;
}

static void
test_gl_texture_in_place (void)
{
  Fixture f;
  g_autoptr(HsViewState) state = hs_view_state_new ();
  GtkWidget *canvas, *window;
  GskRenderer *renderer;
  /* opacity, strength: each step changes the composite */
  static const double steps[][2] = { { 0.6, 1.0 }, { 0.3, 1.0 }, { 0.9, 1.0 }, { 0.9, 1.8 }, { 0.45, 0.6 } };
  cairo_surface_t *memory[G_N_ELEMENTS (steps)];
  guint gl_nodes, memory_nodes;

#ifdef UNDER_ASAN
  g_test_skip ("LeakSanitizer reports Mesa's GL driver module; GL is tested by the normal build");
  return;
#endif
  /* The reference first: every step as a new memory texture. */
  hs_gl_texture_set_enabled (FALSE);
  fixture_init (&f);
  canvas = hs_canvas_new ();
  hs_canvas_set_view_state (HS_CANVAS (canvas), state);
  hs_canvas_set_image (HS_CANVAS (canvas), f.image);
  hs_canvas_set_map (HS_CANVAS (canvas), f.map);
  hs_canvas_set_regions (HS_CANVAS (canvas), f.regions, f.masks);
  window = fixture_present (canvas, VIEW_W, VIEW_H);
  renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  if (!g_type_is_a (G_OBJECT_TYPE (renderer), g_type_from_name ("GskGLRenderer")))
    {
      g_autofree char *why = g_strdup_printf ("the display's renderer is %s, not GL", G_OBJECT_TYPE_NAME (renderer));

      g_test_skip (why);
      gtk_window_destroy (GTK_WINDOW (window));
      fixture_clear (&f);
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_object_set (state, "opacity", steps[i][0], "strength", steps[i][1], NULL);
      memory[i] = render (canvas, &gl_nodes, &memory_nodes);
      g_assert_cmpuint (gl_nodes, ==, 0);
      g_assert_cmpuint (memory_nodes, >=, 1);
    }
  /* The steps differ from each other, so a texture left stale would show. */
  for (guint i = 1; i < G_N_ELEMENTS (steps); i++)
    g_assert_cmpint (max_difference (memory[i - 1], memory[i]), >, 8);

  /* The same steps through the one GL texture, rewritten each time: the
   * same pixels (drawn at one texel per pixel, nearest sampling is exact). */
  hs_gl_texture_set_enabled (TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      cairo_surface_t *shown;

      g_object_set (state, "opacity", steps[i][0], "strength", steps[i][1], NULL);
      shown = render (canvas, &gl_nodes, &memory_nodes);
      g_assert_cmpuint (gl_nodes, ==, 1);
      g_assert_cmpint (max_difference (shown, memory[i]), ==, 0);
      if (i + 1 == G_N_ELEMENTS (steps))
        {
          /* for inspection, like the goldens' renders */
          g_autofree char *out = g_build_filename (g_getenv ("HS_BUILD_DIR") ? g_getenv ("HS_BUILD_DIR") : ".",
                                                   "tests", "canvas-gl.png", NULL);
          cairo_surface_write_to_png (shown, out);
        }
      cairo_surface_destroy (shown);
    }

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    cairo_surface_destroy (memory[i]);
  gtk_window_destroy (GTK_WINDOW (window));
  fixture_clear (&f);
}

int
main (int argc, char **argv)
{
  /* The suite turns GL off for the Cairo goldens; this test is about GL.
   * Not under AddressSanitizer: the test skips there, and GL on at display
   * open loads Mesa's driver, whose module LeakSanitizer reports as a leak. */
#ifndef UNDER_ASAN
  if (g_strcmp0 (g_getenv ("GDK_DEBUG"), "gl-disable") == 0)
    g_unsetenv ("GDK_DEBUG");
#endif
  hs_ui_test_init (&argc, &argv);
  hs_ui_test_add_func ("/canvas-gl/texture-in-place", test_gl_texture_in_place);
  return g_test_run ();
}
