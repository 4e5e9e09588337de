/* bench-ui-opacity.c — frames per second while a slider is dragged
 *
 * A 1200 × 900 canvas shows a 3000 × 2500 16-bit radiograph with a 16 × 16
 * map.  Every frame of the widget's GdkFrameClock moves the opacity (then
 * the strength) as a drag would; the clock's paints per second are the
 * frame rate (GTK paints synchronously, so a slow paint lowers the rate).
 * The process CPU time per frame is printed too: on a loaded machine the
 * frame rate drops with the load, the work per frame does not.
 *
 * Then a 6000 × 6000 16-bit image: time to its first frame (its reduced
 * levels are built by a worker meanwhile), and frames per second with the
 * worst frame while panning at 1:1, zooming between fit and 2×, and dragging
 * window/level — against the "redraw only" cap of the same run.
 * Needs a display (run under xvfb-run); without one it says so and exits 0.
 *
 * The renderer is the one the app picks (hs_renderer_choose with the
 * "renderer" preference's default, "auto": GTK's cairo renderer under
 * software GL such as Xvfb's llvmpipe; GSK_RENDERER wins).  When that is
 * not GL, the fit drags and the floor are measured again with GSK's GL
 * renderer in a child process (GTK reads GSK_RENDERER once per process),
 * for reference.
 *
 *   GTK_A11Y=none xvfb-run -a -s "-screen 0 1600x1000x24" build/tests/bench-ui-opacity
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include <gtk/gtk.h>
#include <gsk/gl/gskglrenderer.h>
#include <heatscope/heatscope.h>

#include "hs-canvas.h"
#include "hs-bench-util.h"
#include "hs-gl-texture.h"
#include "hs-renderer.h"

#define IMAGE_W 3000
#define IMAGE_H 2500
#define WARMUP_FRAMES 20
#define FRAMES 240

typedef struct Drag Drag;
struct Drag {
  HsViewState *state;
  HsCanvas    *canvas;
  void       (*step) (Drag *d);
  const char  *property;
  double       base, amplitude;
  guint        frame;
  gint64       start_us, last_us;
  double       start_cpu, last_cpu;
  gint64       worst_us;
  GArray      *intervals;
  gboolean     done;
};

static gboolean
on_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  Drag *d = data;
  gint64 now = g_get_monotonic_time ();

  if (d->frame == WARMUP_FRAMES)
    {
      d->start_us = now;
      d->start_cpu = hs_bench_cpu_seconds ();
    }
  else if (d->frame > WARMUP_FRAMES)
    {
      gint64 dt = now - d->last_us;
      g_array_append_val (d->intervals, dt);
      d->worst_us = MAX (d->worst_us, dt);
    }
  d->last_us = now;
  d->last_cpu = hs_bench_cpu_seconds ();
  if (d->frame >= WARMUP_FRAMES + FRAMES)
    {
      d->done = TRUE;
      return G_SOURCE_REMOVE;
    }
  /* A drag moves the value a little every frame; without a property, only
   * a redraw is asked for (the renderer's own cost per frame). */
  if (d->step)
    d->step (d);
  else if (d->property)
    g_object_set (d->state, d->property, d->base + d->amplitude * sin (d->frame * 0.15), NULL);
  else
    gtk_widget_queue_draw (widget);
  d->frame++;
  return G_SOURCE_CONTINUE;
}

static const char *
load_average (void)
{
  static char buf[128];
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return "unknown\n";
  g_strlcpy (buf, text, sizeof buf);
  return buf;
}

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

static const char *only;   /* HS_BENCH_ONLY: run the drags whose label starts with one of its
                              comma-separated prefixes */

static gboolean
wanted (const char *label)
{
  g_auto(GStrv) prefixes = NULL;

  if (only == NULL)
    return TRUE;
  prefixes = g_strsplit (only, ",", -1);
  for (guint i = 0; prefixes[i] != NULL; i++)
    if (prefixes[i][0] != '\0' && g_str_has_prefix (label, prefixes[i]))
      return TRUE;
  return FALSE;
}

static void
run_drag_step (GtkWidget *canvas, HsViewState *state, const char *label, const char *property,
               double base, double amplitude, void (*step) (Drag *))
{
  Drag d = { 0 };
  double seconds;
  gint64 p95;

  if (!wanted (label))
    return;

  d.state = state;
  d.canvas = HS_IS_CANVAS (canvas) ? HS_CANVAS (canvas) : NULL;
  d.step = step;
  d.property = property;
  d.base = base;
  d.amplitude = amplitude;
  d.intervals = g_array_new (FALSE, FALSE, sizeof (gint64));

  gtk_widget_add_tick_callback (canvas, on_tick, &d, NULL);
  while (!d.done)
    g_main_context_iteration (NULL, TRUE);
  seconds = (d.last_us - d.start_us) / 1e6;
  g_array_sort (d.intervals, compare_gint64);
  p95 = g_array_index (d.intervals, gint64, (guint) (0.95 * (d.intervals->len - 1)));
  printf ("%-31s %u frames in %.2f s = %.1f frames/s (95th percentile interval %.1f ms, worst %.1f ms); "
          "CPU %.1f ms/frame\n",
          label, FRAMES, seconds, FRAMES / seconds, p95 / 1000.0, d.worst_us / 1000.0,
          (d.last_cpu - d.start_cpu) * 1000 / FRAMES);
  g_array_unref (d.intervals);
}

static void
run_drag (GtkWidget *canvas, HsViewState *state, const char *label, const char *property,
          double base, double amplitude)
{
  run_drag_step (canvas, state, label, property, base, amplitude, NULL);
}

/* A pan at 1:1 sweeping ±1500 pixels horizontally and ±1000 vertically. */
static void
step_pan (Drag *d)
{
  HsCanvasTransform t = { 1.0, -2400 + 1500 * sin (d->frame * 0.05), -2550 + 1000 * cos (d->frame * 0.04) };
  hs_canvas_set_transform (d->canvas, &t);
}

/* Zoom around the view centre between 0.15 (about fit) and 2. */
static void
step_zoom (Drag *d)
{
  hs_canvas_zoom_to (d->canvas, exp (log (0.55) + 1.3 * sin (d->frame * 0.05)), -1, -1);
}

static void
step_window_level (Drag *d)
{
  hs_view_state_set_window_level (d->state, 0.4 + 0.2 * sin (d->frame * 0.15),
                                  0.5 + 0.3 * cos (d->frame * 0.11));
}

/* The floor of a frame that shows a new full-view picture: a picture
 * flipping between two textures the renderer already holds (no pixels
 * computed, none uploaded; GTK's frame and the renderer's quad alone). */
static GdkTexture *flip_textures[2];
static GtkWidget *flip_picture;

static void
step_flip (Drag *d)
{
  gtk_picture_set_paintable (GTK_PICTURE (flip_picture), GDK_PAINTABLE (flip_textures[d->frame % 2]));
}

static GdkTexture *
flat_texture (int w, int h, guint32 pixel)
{
  g_autoptr(GBytes) bytes = NULL;
  guint32 *data = g_new (guint32, (gsize) w * h);

  for (gsize i = 0; i < (gsize) w * h; i++)
    data[i] = pixel ^ (guint32) (i * 2654435761u & 0x3f3f3f);
  bytes = g_bytes_new_take (data, (gsize) w * h * 4);
  return gdk_memory_texture_new (w, h, GDK_MEMORY_DEFAULT, bytes, (gsize) w * 4);
}

static void
run_flip (GtkWidget *window, GtkWidget *canvas, HsViewState *state)
{
  int vw = gtk_widget_get_width (canvas), vh = gtk_widget_get_height (canvas);
  double z = MIN ((double) vw / IMAGE_W, (double) vh / IMAGE_H);
  int w = (int) lround (IMAGE_W * z), h = (int) lround (IMAGE_H * z);

  if (!wanted ("floor"))
    return;
  flip_textures[0] = flat_texture (w, h, 0xff406080);
  flip_textures[1] = flat_texture (w, h, 0xff806040);
  flip_picture = gtk_picture_new ();
  g_object_ref (canvas);
  gtk_window_set_child (GTK_WINDOW (window), flip_picture);
  /* both textures uploaded once before the measurement */
  for (int i = 0; i < 4; i++)
    {
      gtk_picture_set_paintable (GTK_PICTURE (flip_picture), GDK_PAINTABLE (flip_textures[i % 2]));
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
    }
  run_drag_step (flip_picture, state, "floor: 2 textures", NULL, 0, 0, step_flip);
  gtk_window_set_child (GTK_WINDOW (window), canvas);
  g_object_unref (canvas);
  g_clear_object (&flip_textures[0]);
  g_clear_object (&flip_textures[1]);
  while (!gtk_widget_get_mapped (canvas) || gtk_widget_get_width (canvas) <= 1)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_CONTINUE;
}

static void
run_large (GtkWidget *canvas, HsViewState *state)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  gint64 start, first = 0;
  guint frames = 0, id;
  guint16 *data;

  if (!wanted ("large"))
    return;
  image = hs_image_new (6000, 6000, 1, 16, &error);
  g_assert_no_error (error);
  data = hs_image_get_data (image);
  for (guint y = 0; y < 6000; y++)
    for (guint x = 0; x < 6000; x++)
      data[(gsize) y * 6000 + x] = (guint16) ((x * 7 + y * 11 + ((x ^ y) & 1) * 9000) & 0xffff);

  id = gtk_widget_add_tick_callback (canvas, count_frame, &frames, NULL);
  start = g_get_monotonic_time ();
  hs_canvas_set_image (HS_CANVAS (canvas), image);
  while (hs_canvas_get_busy (HS_CANVAS (canvas)) || frames < 2)
    {
      guint before = frames;
      g_main_context_iteration (NULL, TRUE);
      if (first == 0 && frames > before)
        first = g_get_monotonic_time ();
    }
  printf ("large 6000 × 6000 16-bit: first frame after %.1f ms, reduced levels ready after %.1f ms, "
          "%u frames painted meanwhile\n",
          (first - start) / 1000.0, (g_get_monotonic_time () - start) / 1000.0, frames);
  gtk_widget_remove_tick_callback (canvas, id);

  hs_view_state_set_opacity (state, 0.5);
  run_drag_step (canvas, state, "large: pan 1:1", NULL, 0, 0, step_pan);
  run_drag_step (canvas, state, "large: zoom", NULL, 0, 0, step_zoom);
  hs_canvas_zoom_fit (HS_CANVAS (canvas));
  run_drag_step (canvas, state, "large: w/l (fit)", NULL, 0, 0, step_window_level);
  hs_canvas_zoom_to (HS_CANVAS (canvas), 1.0, -1, -1);
  run_drag_step (canvas, state, "large: w/l (1:1)", NULL, 0, 0, step_window_level);
}

/* The fit drags and the floor again with GSK's GL renderer, in a child
 * process (this one's renderer is fixed), printing to the same stdout. */
static void
run_gl_reference (void)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = g_get_environ ();
  char *argv[] = { (char *) "/proc/self/exe", NULL };
  int status = 0;

  printf ("\nthe same with GSK's GL renderer, for reference (GSK_RENDERER=gl, a child process):\n");
  fflush (stdout);
  env = g_environ_setenv (env, "GSK_RENDERER", "gl", TRUE);
  /* the fit drags and the floor, or what HS_BENCH_ONLY asked for */
  env = g_environ_setenv (env, "HS_BENCH_ONLY", only != NULL ? only : "redraw only,opacity (fit),strength (fit),floor",
                          TRUE);
  if (!g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    printf ("bench-ui-opacity: the GL child: %s\n", error->message);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(GPtrArray) regions = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_region_free);
  g_autoptr(HsViewState) state = NULL;
  GtkWidget *window, *canvas;
  double cells[16 * 16];
  guint16 *data;
  HsRegion *region;
  GRand *rand = g_rand_new_with_seed (7);
  g_autofree char *user_renderer = NULL;
  const char *choice;
  gboolean gl;

  setvbuf (stdout, NULL, _IOLBF, 0);
  only = g_getenv ("HS_BENCH_ONLY");
  /* The suite's environment disables GL (tests/meson.build); this measures the default renderer. */
  if (g_strcmp0 (g_getenv ("GDK_DEBUG"), "gl-disable") == 0)
    g_unsetenv ("GDK_DEBUG");
  if (!gtk_init_check ())
    {
      printf ("bench-ui-opacity: no display (run under xvfb-run); skipped\n");
      return 0;
    }
  /* As the app's start-up with the preference's default: the renderer its
   * windows get (the child below is told GSK_RENDERER=gl, which wins). */
  user_renderer = g_strdup (g_getenv ("GSK_RENDERER"));
  choice = hs_renderer_choose (NULL);

  image = hs_image_new (IMAGE_W, IMAGE_H, 1, 16, &error);
  g_assert_no_error (error);
  data = hs_image_get_data (image);
  for (guint y = 0; y < IMAGE_H; y++)
    for (guint x = 0; x < IMAGE_W; x++)
      data[(gsize) y * IMAGE_W + x] = (guint16) ((x * 13 + y * 7) % 65536);
  for (guint i = 0; i < G_N_ELEMENTS (cells); i++)
    cells[i] = g_rand_double (rand);
  g_rand_free (rand);
  map = hs_attention_map_new (0, 16, 16, cells, &error);
  g_assert_no_error (error);
  hs_attention_map_set_no_attn (map, 0.2);
  region = hs_region_new ("left lung");
  hs_region_add_box (region, 1700, 400, 2700, 2100);
  g_ptr_array_add (regions, region);

  state = hs_view_state_new ();
  canvas = hs_canvas_new ();
  hs_canvas_set_view_state (HS_CANVAS (canvas), state);
  hs_canvas_set_image (HS_CANVAS (canvas), image);
  hs_canvas_set_map (HS_CANVAS (canvas), map);
  hs_canvas_set_regions (HS_CANVAS (canvas), regions, NULL);

  window = gtk_window_new ();
  gtk_window_set_decorated (GTK_WINDOW (window), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 900);
  gtk_window_set_child (GTK_WINDOW (window), canvas);
  gtk_window_present (GTK_WINDOW (window));
  while (!gtk_widget_get_mapped (canvas) || gtk_widget_get_width (canvas) <= 1)
    g_main_context_iteration (NULL, TRUE);

  gl = GSK_IS_GL_RENDERER (gtk_native_get_renderer (GTK_NATIVE (window)));
  printf ("load average %s", load_average ());
  printf ("canvas %d × %d, image %d × %d, map 16 × 16, renderer %s (%s)\n",
          gtk_widget_get_width (canvas), gtk_widget_get_height (canvas), IMAGE_W, IMAGE_H,
          G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (window))),
          user_renderer != NULL && user_renderer[0] != '\0' ? "GSK_RENDERER"
          : choice != NULL ? "the app's choice: \"auto\" under software GL" : "the app's choice: GTK's default");
  run_drag (canvas, state, "redraw only", NULL, 0, 0);
  run_drag (canvas, state, "opacity (fit)", "opacity", 0.5, 0.45);
  run_drag (canvas, state, "strength (fit)", "strength", 1.2, 0.7);
  /* The reference of the same run: each frame's composite handed to GTK as
   * a new memory texture (what the canvas did before its GL texture; with
   * the cairo renderer the composite is a memory texture anyway). */
  if (gl)
    {
      hs_gl_texture_set_enabled (FALSE);
      run_drag (canvas, state, "opacity (fit), memory texture", "opacity", 0.5, 0.45);
      run_drag (canvas, state, "strength (fit), memory texture", "strength", 1.2, 0.7);
      hs_gl_texture_set_enabled (TRUE);
    }
  run_flip (window, canvas, state);
  hs_canvas_zoom_to (HS_CANVAS (canvas), 2.0, 600, 450);
  run_drag (canvas, state, "opacity (2×)", "opacity", 0.5, 0.45);
  run_drag (canvas, state, "strength (2×)", "strength", 1.2, 0.7);
  g_object_set (state, "strength", 1.0, NULL);
  run_large (canvas, state);

  gtk_window_destroy (GTK_WINDOW (window));
  if (!gl && (user_renderer == NULL || user_renderer[0] == '\0'))
    run_gl_reference ();
  return 0;
}
