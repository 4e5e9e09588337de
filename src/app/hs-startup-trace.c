/* hs-startup-trace.c — start-up milestones for tools/bench-scale */
#include "hs-startup-trace.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

gboolean
hs_startup_trace_enabled (void)
{
  static int enabled = -1;

  if (enabled < 0)
    {
      const char *value = g_getenv ("HS_STARTUP_TRACE");
      enabled = value != NULL && *value != '\0' && strcmp (value, "0") != 0;
    }
  return enabled;
}

static double
rss_mb (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, "VmRSS:");
  return line != NULL ? g_ascii_strtod (line + 6, NULL) / 1024.0 : 0;
}

void
hs_startup_trace (const char *event)
{
  struct rusage usage;

  if (!hs_startup_trace_enabled ())
    return;
  getrusage (RUSAGE_SELF, &usage);
  fprintf (stderr, "heatscope-trace %s %.4f %.3f %.1f\n", event,
           g_get_monotonic_time () / 1e6,
           usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
           (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6,
           rss_mb ());
  fflush (stderr);
}

typedef struct {
  char      *event;
  gulong     handler;
  GdkFrameClock *clock;
} PaintWatch;

static void
on_after_paint (GdkFrameClock *clock, gpointer user_data)
{
  PaintWatch *watch = user_data;

  hs_startup_trace (watch->event);
  g_signal_handler_disconnect (clock, watch->handler);
}

static void
paint_watch_free (gpointer data, GClosure *closure)
{
  PaintWatch *watch = data;

  g_free (watch->event);
  g_free (watch);
}

static void
watch_clock (GtkWidget *widget, const char *event)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);
  PaintWatch *watch;

  if (clock == NULL)
    return;
  watch = g_new0 (PaintWatch, 1);
  watch->event = g_strdup (event);
  watch->handler = g_signal_connect_data (clock, "after-paint", G_CALLBACK (on_after_paint),
                                          watch, paint_watch_free, 0);
  /* The widget queued its draw already; make sure a frame comes. */
  gtk_widget_queue_draw (widget);
}

static void
on_realize (GtkWidget *widget, gpointer user_data)
{
  const char *event = user_data;

  g_signal_handlers_disconnect_by_func (widget, on_realize, user_data);
  watch_clock (widget, event);
}

void
hs_startup_trace_after_paint (GtkWidget *widget, const char *event)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (!hs_startup_trace_enabled ())
    return;
  if (gtk_widget_get_realized (widget))
    watch_clock (widget, event);
  else
    g_signal_connect (widget, "realize", G_CALLBACK (on_realize), (gpointer) g_intern_string (event));
}

void
hs_startup_trace_instance_ready (GtkWidget *canvas, gboolean have_image, gboolean have_map_or_none)
{
  static gboolean done;

  if (done || !hs_startup_trace_enabled () || canvas == NULL || !have_image || !have_map_or_none)
    return;
  done = TRUE;
  hs_startup_trace ("instance-ready");
  hs_startup_trace_after_paint (canvas, "instance-painted");
}
