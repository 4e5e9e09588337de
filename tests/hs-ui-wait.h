/* hs-ui-wait.h — waits that UI tests end on a condition, never a time.
 *
 * A widget's pixels as of now: a
 * GtkWidgetPaintable shows the render node the widget produced in the
 * last frame the frame clock painted, not its state now: read right after
 * a change (or before the first frame, when it is empty) it is stale, and
 * whether it is depends on how fast the machine painted.  So every render a
 * test compares is taken after a frame that was painted after the call:
 * queue a redraw, wait for that frame's "after-paint", then snapshot.
 *
 * Header-only and free of the test library, so benchmarks and
 * tools/screenshots' driver use it too.
 */
#pragma once

#include <gtk/gtk.h>

/* An upper bound on a hang, never a speed requirement: what the UI tests
 * wait for takes well under a second on a quiet machine and a few seconds
 * under the sanitizers with both cores busy. */
#define HS_UI_HANG_SECONDS 120

/* Runs the main loop until cond(data) holds (checked between iterations;
 * the 1 ms sleep only spares the CPU while a worker thread computes); after
 * HS_UI_HANG_SECONDS fails with "UI test: <hang>" so a broken build cannot
 * hang the suite (a guard, not a timing assertion). */
static inline void
hs_ui_wait_for (gboolean (*cond) (gpointer), gpointer data, const char *hang)
{
  gint64 end = g_get_monotonic_time () + HS_UI_HANG_SECONDS * G_USEC_PER_SEC;

  while (!cond (data))
    {
      g_main_context_iteration (NULL, FALSE);
      if (g_get_monotonic_time () > end)
        g_error ("UI test: %s", hang);
      g_usleep (1000);
    }
}

/* hs_ui_wait_for with the message most waits need. */
static inline void
hs_ui_wait_until (gboolean (*cond) (gpointer), gpointer data)
{
  hs_ui_wait_for (cond, data, "condition not reached within " G_STRINGIFY (HS_UI_HANG_SECONDS) " s (hung?)");
}

static inline gboolean
hs_ui_wait_is_set (gpointer flag)
{
  return *(gboolean *) flag;
}

static inline void
hs_ui_paint_set_flag (GdkFrameClock *clock, gpointer flag)
{
  *(gboolean *) flag = TRUE;
}

/* Waits until `widget`'s frame clock has painted a frame begun after this
 * call. */
static inline void
hs_ui_paint_now (GtkWidget *widget)
{
  GdkFrameClock *clock;
  gboolean painted = FALSE;
  gulong handler;

  if (!gtk_widget_get_mapped (widget))
    g_error ("UI test: rendering a %s that is not mapped", G_OBJECT_TYPE_NAME (widget));
  clock = gtk_widget_get_frame_clock (widget);
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (hs_ui_paint_set_flag), &painted);
  gtk_widget_queue_draw (widget);
  hs_ui_wait_for (hs_ui_wait_is_set, &painted,
                  "no frame painted within " G_STRINGIFY (HS_UI_HANG_SECONDS) " s (hung?)");
  g_signal_handler_disconnect (clock, handler);
}

typedef struct {
  GtkWidget     *widget;
  GskRenderNode *node;
} HsUiPaint;

/* Condition for hs_ui_wait_for: a frame painted now drew something.  The
 * node is the widget's at one pixel per pixel, in its own coordinates: a
 * widget paintable is drawn into its bounds, and a window's are larger than
 * its size (the frame around a client-side decorated window), so drawing the
 * paintable at the window's size shrank the whole window by a few per mille
 * — blurred text, and seams between the canvas's tiles as thin lines across
 * the keys' panels in the README's screenshots. */
static inline gboolean
hs_ui_paint_drew (gpointer data)
{
  HsUiPaint *paint = data;
  GdkPaintable *paintable;
  GtkSnapshot *snapshot;
  graphene_rect_t bounds;

  hs_ui_paint_now (paint->widget);
  if (!gtk_widget_compute_bounds (paint->widget, paint->widget, &bounds))
    return FALSE;
  paintable = gtk_widget_paintable_new (paint->widget);
  snapshot = gtk_snapshot_new ();
  gtk_snapshot_translate (snapshot, &bounds.origin);
  gdk_paintable_snapshot (paintable, snapshot, bounds.size.width, bounds.size.height);
  paint->node = gtk_snapshot_free_to_node (snapshot);
  g_object_unref (paintable);
  return paint->node != NULL;
}

/* The render node of `widget` in its own coordinates (render its
 * (0, 0, width, height) for what is on screen), from a frame painted after
 * this call; a widget that drew nothing in it (a child just shown and not
 * yet allocated) gets further frames. */
static inline GskRenderNode *
hs_ui_paint_node (GtkWidget *widget)
{
  HsUiPaint paint = { widget, NULL };
  g_autofree char *hang = g_strdup_printf ("a %s drew nothing within %d s", G_OBJECT_TYPE_NAME (widget),
                                           HS_UI_HANG_SECONDS);

  hs_ui_wait_for (hs_ui_paint_drew, &paint, hang);
  return paint.node;
}

static inline gboolean
hs_ui_wait_is_null (gpointer pointer)
{
  return *(gpointer *) pointer == NULL;
}

/* Drops the caller's reference to `object` and waits until it is finalized.
 * Workers and idle callbacks may still hold a reference for a while after a
 * window is destroyed (a decode, a live map); they let go as the main loop
 * runs, however slowly the machine gets there.  An object still alive after
 * HS_UI_HANG_SECONDS is leaked, and the test fails saying so. */
static inline void
hs_ui_assert_finalized (gpointer object)
{
  gpointer weak = object;
  g_autofree char *hang = g_strdup_printf ("a %s is still referenced %d s after its last known owner "
                                           "let go (leaked?)", G_OBJECT_TYPE_NAME (object),
                                           HS_UI_HANG_SECONDS);

  g_object_add_weak_pointer (G_OBJECT (object), &weak);
  g_object_unref (object);
  hs_ui_wait_for (hs_ui_wait_is_null, &weak, hang);
}

/* The first toplevel window of `type` (e.g. the results table an action just
 * opened), or NULL. */
static inline gpointer
hs_ui_find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();   /* owned by GTK */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type))
        return window;
    }
  return NULL;
}
