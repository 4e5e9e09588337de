/* hs-startup-trace.h — start-up milestones for tools/bench-scale
 *
 * With HS_STARTUP_TRACE=1 in the environment the window writes one line per
 * milestone to standard error:
 *
 *   heatscope-trace EVENT MONOTONIC_S CPU_S RSS_MB
 *
 * (CLOCK_MONOTONIC seconds, the process's user+system CPU seconds, VmRSS).
 * Without the variable every call returns at once. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

gboolean hs_startup_trace_enabled (void);
void     hs_startup_trace         (const char *event);
/* Traces `event` after the next frame of `widget`'s frame clock has been
 * painted (waiting for the widget to be realized first), once. */
void     hs_startup_trace_after_paint (GtkWidget *widget, const char *event);
/* The first time the canvas shows an instance's image together with its map
 * (or an instance without a map), traces "instance-painted" after that frame
 * is painted.  Later calls do nothing. */
void     hs_startup_trace_instance_ready (GtkWidget *canvas, gboolean have_image,
                                          gboolean have_map_or_none);

G_END_DECLS
