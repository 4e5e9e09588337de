/* hs-ui-wait.h — waits that UI tests end on a condition, never a time.
 *
 * A widget's pixels as of now: a
 * GtkWidgetPaintable shows the render node the widget produced in the
 * last frame the frame clock painted, not its state now: read right after
 * a change (or before the first frame, when it is empty) it is stale, and
 * whether it is depends on how fast the machine painted.  So every render a
 * test compares is taken after a frame that was painted after the call:
 * queue a redraw, wait for that frame's "after-paint", then snapshot.
 */
#pragma once

#include <gtk/gtk.h>

static inline void
hs_ui_paint_set_flag (GdkFrameClock *clock, gpointer flag)
{
  *(gboolean *) flag = TRUE;
}

/* Waits until `widget`'s frame clock has painted a frame begun after this
 * call (the 120 s bound is a hang guard, not a speed requirement). */
static inline void
hs_ui_paint_now (GtkWidget *widget)
{
  GdkFrameClock *clock;
  gboolean painted = FALSE;
  gulong handler;
  gint64 end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  if (!gtk_widget_get_mapped (widget))
    g_error ("UI test: rendering a %s that is not mapped", G_OBJECT_TYPE_NAME (widget));
  clock = gtk_widget_get_frame_clock (widget);
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (hs_ui_paint_set_flag), &painted);
  gtk_widget_queue_draw (widget);
  while (!painted)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
      if (g_get_monotonic_time () > end)
        g_error ("UI test: no frame painted within 120 s (hung?)");
    }
  g_signal_handler_disconnect (clock, handler);
}

/* The render node of `widget` at its size, from a frame painted after this
 * call; a widget that drew nothing in it (a child just shown and not yet
 * allocated) gets further frames. */
static inline GskRenderNode *
hs_ui_paint_node (GtkWidget *widget, int width, int height)
{
  GskRenderNode *node = NULL;
  gint64 end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  while (node == NULL)
    {
      GdkPaintable *paintable;
      GtkSnapshot *snapshot;

      if (g_get_monotonic_time () > end)
        g_error ("UI test: a %s drew nothing within 120 s", G_OBJECT_TYPE_NAME (widget));
      hs_ui_paint_now (widget);
      paintable = gtk_widget_paintable_new (widget);
      snapshot = gtk_snapshot_new ();
      gdk_paintable_snapshot (paintable, snapshot, width, height);
      node = gtk_snapshot_free_to_node (snapshot);
      g_object_unref (paintable);
    }
  return node;
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
 * 120 s is leaked, and the test fails saying so. */
static inline void
hs_ui_assert_finalized (gpointer object)
{
  gpointer weak = object;
  const char *type = G_OBJECT_TYPE_NAME (object);
  gint64 end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  g_object_add_weak_pointer (G_OBJECT (object), &weak);
  g_object_unref (object);
  while (!hs_ui_wait_is_null (&weak))
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
      if (g_get_monotonic_time () > end)
        g_error ("UI test: a %s is still referenced 120 s after its last known owner let go (leaked?)",
                 type);
    }
}
