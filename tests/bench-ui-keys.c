/* bench-ui-keys.c — key echo in the prompt editor with a live model selected
 *
 * The main window (1500 × 1000) on a demo dataset with the built-in
 * "grounded" model live.  Real key events are sent to the X server (XTest,
 * as a keyboard would: press and release), typed at about 12 keys a second
 * (the debounce adapts to the model's cost: a built-in model's map follows
 * each key between two keys), and for every key the benchmark measures,
 * from the key's send until the frame that shows it has been painted:
 *   - the main thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the work a key
 *     costs the UI thread, what a loaded machine does not inflate;
 *   - the wall time (the echo's latency, frame clock included).
 * The reference, measured in the same run: the same keys typed into the
 * instance browser's search entry.  Median and 90th percentile of each.
 * Target: < 8 ms main-thread time per key in the prompt editor.
 * Then prompt → map: from the last key's send until the frame that paints
 * its map (target < 50 ms), with the adaptive debounce and, as the
 * reference in the same run, the former fixed 120 ms on another text.
 *
 *   GTK_A11Y=none xvfb-run -a -s "-screen 0 1600x1000x24" build/tests/bench-ui-keys [DATASET]
 *
 * Without DATASET a demo is written by heatscope-cli ($HS_CLI, else
 * ../src/cli/heatscope-cli beside this program).  Without a display it
 * says so and exits 0. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gtk/gtk.h>
#include <gdk/x11/gdkx.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <heatscope/heatscope.h>

#include "hs-ui-fixture.h"
#include "hs-window.h"

#define TEXT "opacity in the left lower lung with a small effusion "
#define TEXT_REF "opacity in the right upper lung with a large effusion"
#define PACE_US 80000   /* between key presses: 12.5 keys a second */

static guint paints;

static void
on_after_paint (GdkFrameClock *clock, gpointer data)
{
  paints++;
}

static double
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
percentile (GArray *values, double p)
{
  g_array_sort (values, compare_double);
  return g_array_index (values, double, (guint) (p * (values->len - 1) + 0.5));
}

typedef glong (*TextLength) (GtkWidget *widget);

static glong
prompt_length (GtkWidget *view)
{
  return gtk_text_buffer_get_char_count (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)));
}

static glong
entry_length (GtkWidget *entry)
{
  return g_utf8_strlen (gtk_editable_get_text (GTK_EDITABLE (entry)), -1);
}

/* Runs the main loop until `until_us` (timers that fall due run, as while
 * a user types). */
static void
run_until (gint64 until_us)
{
  while (g_get_monotonic_time () < until_us)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (500);
    }
}

/* Types TEXT into `widget` (focused) key by key; per key the main thread's
 * CPU time and the wall time until the frame showing it is painted. */
static void
type_keys (HsWindow *window, GtkWidget *widget, TextLength length, const char *text, const char *label,
           double *map_ms)
{
  Display *dpy = gdk_x11_display_get_xdisplay (gtk_widget_get_display (widget));
  g_autoptr(GArray) cpu = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) wall = g_array_new (FALSE, FALSE, sizeof (double));

  gtk_widget_grab_focus (widget);
  hs_ui_settle ();
  for (const char *p = text; *p != '\0'; p++)
    {
      KeySym sym = *p == ' ' ? XK_space : (KeySym) *p;
      KeyCode code = XKeysymToKeycode (dpy, sym);
      glong before = length (widget);
      gint64 start_us = g_get_monotonic_time (), end = start_us + HS_UI_HANG_SECONDS * G_USEC_PER_SEC;
      double start_cpu = thread_cpu_ms (), c, w;
      guint echoed_paints = 0;
      gboolean echoed = FALSE;

      XTestFakeKeyEvent (dpy, code, True, 0);
      XTestFakeKeyEvent (dpy, code, False, 0);
      XFlush (dpy);
      /* until the key is in the text and a frame after it is painted */
      for (;;)
        {
          if (!echoed && length (widget) > before)
            {
              echoed = TRUE;
              echoed_paints = paints;
            }
          if (echoed && paints > echoed_paints)
            break;
          if (!g_main_context_iteration (NULL, FALSE))
            g_usleep (100);
          if (g_get_monotonic_time () > end)
            g_error ("%s: key '%c' not echoed within %d s", label, *p, HS_UI_HANG_SECONDS);
        }
      c = thread_cpu_ms () - start_cpu;
      w = (g_get_monotonic_time () - start_us) / 1e3;
      g_array_append_val (cpu, c);
      g_array_append_val (wall, w);
      if (map_ms != NULL && p[1] == '\0')
        {
          /* the last key: until its map is shown, then until the frame
           * that paints it */
          guint shown_paints;

          while (hs_window_get_live_busy (window))
            if (!g_main_context_iteration (NULL, FALSE))
              g_usleep (100);
          shown_paints = paints;
          while (paints == shown_paints)
            if (!g_main_context_iteration (NULL, FALSE))
              g_usleep (100);
          *map_ms = (g_get_monotonic_time () - start_us) / 1e3;
        }
      run_until (start_us + PACE_US);
    }
  printf ("%-22s %u keys: main thread %.2f ms per key (median), %.2f ms (90th percentile); "
          "echo painted after %.1f ms (median), %.1f ms (90th percentile)\n",
          label, cpu->len, percentile (cpu, 0.5), percentile (cpu, 0.9), percentile (wall, 0.5),
          percentile (wall, 0.9));
}

static char *
make_demo (const char *argv0)
{
  g_autofree char *dir = g_path_get_dirname (argv0);
  g_autofree char *cli = g_getenv ("HS_CLI") ? g_strdup (g_getenv ("HS_CLI"))
                                             : g_build_filename (dir, "..", "src", "cli", "heatscope-cli", NULL);
  g_autofree char *tmp = g_dir_make_tmp ("hs-bench-keys-XXXXXX", NULL);
  char *root = g_build_filename (tmp, "demo", NULL);
  const char *argv[] = { cli, "demo", "--count", "3", "--seed", "1", "--maps", "none", root, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                     &status, &error) || !g_spawn_check_wait_status (status, &error))
    g_error ("%s demo: %s", cli, error->message);
  return root;
}

int
main (int argc, char **argv)
{
  g_autofree char *root = NULL;
  g_autoptr(GFile) file = NULL;
  HsWindow *window;
  GtkWidget *prompt, *search;
  int event, error, major, minor;

  hs_ui_init (&argc, &argv);
  if (!hs_ui_have_display || !GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      printf ("no X display: run under xvfb-run\n");
      return 0;
    }
  if (!XTestQueryExtension (gdk_x11_display_get_xdisplay (gdk_display_get_default ()), &event, &error,
                            &major, &minor))
    {
      printf ("the X server has no XTest extension\n");
      return 0;
    }
  root = argc > 1 ? g_strdup (argv[1]) : make_demo (argv[0]);
  file = g_file_new_for_path (root);

  window = hs_ui_new_window ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1500, 1000);
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  if (!hs_window_select_model (window, "grounded (live)"))
    g_error ("no live model \"grounded\" (data/models missing?)");
  hs_ui_wait_until (hs_ui_window_live_done, window);
  hs_ui_settle ();
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), "after-paint",
                    G_CALLBACK (on_after_paint), NULL);

  prompt = g_object_get_data (G_OBJECT (hs_window_get_prompt_panel (window)), "hs-prompt-view");
  search = hs_ui_find_widget (GTK_WIDGET (hs_window_get_browser (window)), GTK_TYPE_SEARCH_ENTRY);
  printf ("load average %s", g_file_test ("/proc/loadavg", G_FILE_TEST_EXISTS) ? "" : "unknown\n");
  {
    g_autofree char *load = NULL;
    if (g_file_get_contents ("/proc/loadavg", &load, NULL, NULL))
      printf ("%s", load);
  }
  /* the reference first, then the prompt; the prompt's live map is computed
   * after the burst */
  type_keys (window, search, (TextLength) entry_length, TEXT, "search entry (ref.)", NULL);
  gtk_editable_set_text (GTK_EDITABLE (search), "");
  hs_ui_wait_until (hs_ui_window_live_done, window);
  hs_ui_settle ();
  for (int fixed = 0; fixed < 2; fixed++)
    {
      double map_ms = 0.0;

      /* the reference: the former fixed debounce of 120 ms, on another text
       * (the maps of the first are in the live model's cache) */
      hs_window_set_live_delay (window, fixed ? 120 : G_MAXUINT);
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (prompt)), "", -1);
      hs_ui_wait_until (hs_ui_window_live_done, window);
      hs_ui_settle ();
      type_keys (window, prompt, (TextLength) prompt_length, fixed ? TEXT_REF : TEXT,
                 fixed ? "prompt, fixed 120 ms" : "prompt, live model", &map_ms);
      hs_ui_wait_until (hs_ui_window_live_done, window);
      printf ("%s: the last key's map shown %.1f ms after the key, on screen (painted) after %.1f ms\n",
              fixed ? "fixed 120 ms debounce (ref.)" : "adaptive debounce", hs_window_get_live_latency (window),
              map_ms);
    }
  hs_ui_destroy_window (window);
  return 0;
}
