/* bench-soak.c — a long stepping session as a user drives it (issue 26)
 *
 * The main window (1500 × 1000) on a demo dataset; STEPS times
 * win.next-instance (what Alt+Down activates), paced like a user holding
 * the key at PACE ms per step; every 10th step also steps back and forward
 * again (revisits of the neighbour just seen); every EVERY steps the other
 * things a session does: the compare pair and the model grid (each window
 * opened, given time to compute, closed), swap left/right and back, next
 * sentence, an opacity and a colour-map change.
 *
 * Per step (CSV): the latency from the action to the end of the first frame
 * that painted the new instance (the canvas's frame clock "after-paint"
 * after the window set the new image on the canvas: no polling of pixels),
 * the process CPU time (all threads, getrusage) from this step to the next,
 * and RSS.  Summary: p50/p90/p99 latency of first visits, revisit p50, CPU
 * per step, RSS at start, after warm-up and at the end, growth per 1000
 * instances — against the targets, and against the reference of the
 * same run: decoding one instance's image on the calling thread (the floor
 * of a step that is not cached).
 *
 *   GTK_A11Y=none xvfb-run -a -s "-screen 0 1600x1000x24" build/tests/bench-soak DATASET \
 *       [--steps N] [--every K] [--pace MS] [--warmup W] [--csv FILE]
 *
 * tools/bench soak writes a demo dataset once and runs this.  A benchmark:
 * it reports, it never fails on a time.
 */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gtk/gtk.h>
#include <heatscope/heatscope.h>

#include "hs-application.h"
#include "hs-window.h"
#include "hs-window-private.h"   /* the caches' fill, for the summary */
#include "hs-view-state.h"
#include "hs-canvas.h"
#include "hs-bench-util.h"
#include "hs-renderer.h"

typedef enum { STEP_FIRST, STEP_BACK, STEP_AGAIN } StepKind;
static const char *kind_names[] = { "first", "revisit", "again" };

typedef struct {
  guint    step;
  StepKind kind;
  guint    instance;
  double   latency_ms;
  double   main_ms;     /* CPU time of the main thread from the action to the paint */
  double   cpu_s;       /* CPU of the process from this step to the next */
  guint    frames;      /* frames painted from this step to the next */
  double   rss_mb;
  double   heap_mb;     /* malloc's bytes in use, all arenas (mallinfo2) */
} Row;

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

/* The calling (main) thread's CPU time: what a loaded machine does not
 * inflate, unlike the latency. */
static double
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Where the resident memory is, from /proc/self/smaps: the main heap, the
 * heaps of glibc's thread arenas (anonymous mappings starting at a 64 MB
 * boundary, glibc's HEAP_MAX_SIZE), other anonymous memory (blocks mapped
 * by malloc above its threshold, Mesa's buffers and JIT code), shared
 * memory, libraries, other files, stacks. */
static void
print_rss_breakdown (const char *when)
{
  enum { HEAP, ARENAS, ANON, SHM, LIBS, FILES, STACK, N };
  static const char *names[N] = { "main heap", "thread arenas", "other anonymous", "shared memory",
                                  "libraries", "other files", "stacks" };
  double kb[N] = { 0 };
  guint n_arenas = 0;
  char line[1024];
  int kind = ANON;
  FILE *f = fopen ("/proc/self/smaps", "r");

  if (f == NULL)
    return;
  while (fgets (line, sizeof line, f))
    {
      unsigned long start, end;
      char perms[8];
      double value;

      if (sscanf (line, "%lx-%lx %7s", &start, &end, perms) == 3)
        {
          char *path = NULL;
          int field = 0;

          for (char *c = line; *c && field < 5; c++)
            if (*c == ' ' && c[1] != ' ')
              {
                field++;
                if (field == 5)
                  path = g_strstrip (c + 1);
              }
          if (path == NULL || *path == '\0')
            {
              kind = start % (64ul << 20) == 0 && perms[0] == 'r' ? ARENAS : ANON;
              n_arenas += kind == ARENAS;
            }
          else if (g_str_equal (path, "[heap]"))
            kind = HEAP;
          else if (g_str_has_prefix (path, "[stack"))
            kind = STACK;
          else if (g_str_has_prefix (path, "/memfd:") || g_str_has_prefix (path, "/dev/shm") ||
                   g_str_has_prefix (path, "/SYSV"))
            kind = SHM;
          else if (strstr (path, ".so") != NULL)
            kind = LIBS;
          else if (path[0] == '[')
            kind = ANON;
          else
            kind = FILES;
        }
      else if (sscanf (line, "Rss: %lf kB", &value) == 1)
        kb[kind] += value;
    }
  fclose (f);
  g_print ("RSS by kind, %s:", when);
  for (int i = 0; i < N; i++)
    g_print (" %s %.1f MB%s", names[i], kb[i] / 1024.0, i + 1 < N ? " ·" : "");
  g_print (" (%u thread-arena heaps)\n", n_arenas);
}

/* What the window's caches hold (their own accounting of the values). */
static void
print_caches (HsWindow *window, const char *when)
{
  g_print ("caches, %s: images %u (%.1f of %.0f MB) · maps %u (%.1f of %.0f MB, at most %u) · masks %u (%.1f of %.0f MB)\n",
           when,
           hs_lru_cache_get_n_items (window->image_cache), hs_lru_cache_get_bytes (window->image_cache) / 1048576.0,
           hs_lru_cache_get_capacity (window->image_cache) / 1048576.0,
           hs_lru_cache_get_n_items (window->map_cache), hs_lru_cache_get_bytes (window->map_cache) / 1048576.0,
           hs_lru_cache_get_capacity (window->map_cache) / 1048576.0, hs_lru_cache_get_max_items (window->map_cache),
           hs_lru_cache_get_n_items (window->mask_cache), hs_lru_cache_get_bytes (window->mask_cache) / 1048576.0,
           hs_lru_cache_get_capacity (window->mask_cache) / 1048576.0);
}

/* Heap bytes in use (all arenas), MB. */
static double
heap_in_use_mb (void)
{
  return mallinfo2 ().uordblks / 1048576.0;
}

static void
iterate_until (gboolean (*cond) (gpointer), gpointer data)
{
  while (!cond (data))
    g_main_context_iteration (NULL, TRUE);
}

static guint frames_painted;

static void
count_frame (GdkFrameClock *clock, gpointer data)
{
  frames_painted++;
}

static gboolean
timed_out (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

/* Runs the main loop until `ms` from now (events, workers' results and
 * frames go on meanwhile). */
static void
run_for (double ms)
{
  gboolean done = FALSE;

  if (ms <= 0)
    return;
  g_timeout_add ((guint) ceil (ms), timed_out, &done);
  iterate_until (flag_set, &done);
}

static gboolean
not_loading (gpointer window)
{
  return !hs_window_get_loading (window);
}

/* ---- the first frame that painted the new instance --------------------- */

typedef struct {
  HsWindow *window;
  HsImage  *before;       /* the canvas's image before the step (not referenced) */
  gboolean  painted;
  double    painted_ms;
} PaintWait;

static void
on_after_paint (GdkFrameClock *clock, PaintWait *wait)
{
  HsCanvas *canvas = HS_CANVAS (hs_window_get_canvas (wait->window));

  /* The frame after the window handed the canvas the new image (and its
   * map: both are set before the draw is queued). */
  if (!wait->painted && !hs_window_get_loading (wait->window) &&
      hs_canvas_get_image (canvas) != wait->before)
    {
      wait->painted = TRUE;
      wait->painted_ms = now_ms ();
    }
}

static gboolean
painted (gpointer data)
{
  return ((PaintWait *) data)->painted;
}

/* Activates `action` on the window and returns the ms until the new
 * instance's first frame was painted. */
static double
timed_step (HsWindow *window, const char *action, double *main_ms)
{
  GtkWidget *canvas = hs_window_get_canvas (window);
  GdkFrameClock *clock = gtk_widget_get_frame_clock (canvas);
  PaintWait wait = { window, hs_canvas_get_image (HS_CANVAS (canvas)), FALSE, 0 };
  gulong handler = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &wait);
  double start = now_ms (), start_cpu = thread_cpu_ms ();

  g_action_group_activate_action (G_ACTION_GROUP (window), action, NULL);
  iterate_until (painted, &wait);
  *main_ms = thread_cpu_ms () - start_cpu;
  g_signal_handler_disconnect (clock, handler);
  return wait.painted_ms - start;
}

/* ---- the other things a session does ----------------------------------- */

static void
close_other_windows (HsWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = g_list_model_get_n_items (toplevels); i-- > 0;)
    {
      g_autoptr(GtkWindow) other = g_list_model_get_item (toplevels, i);

      if (other != GTK_WINDOW (window))
        gtk_window_destroy (other);
    }
}

static void
session_actions (HsWindow *window, HsViewState *state, guint round)
{
  static const char *colormaps[] = { "turbo", "viridis", "inferno", "jet" };

  g_action_group_activate_action (G_ACTION_GROUP (window), "compare", g_variant_new_string ("pair"));
  run_for (600);
  close_other_windows (window);
  g_action_group_activate_action (G_ACTION_GROUP (window), "compare", g_variant_new_string ("grid"));
  run_for (800);
  close_other_windows (window);
  g_action_group_activate_action (G_ACTION_GROUP (window), "swap-sides", NULL);
  run_for (200);
  g_action_group_activate_action (G_ACTION_GROUP (window), "swap-sides", NULL);
  run_for (200);
  g_action_group_activate_action (G_ACTION_GROUP (window), "next-sentence", NULL);
  run_for (200);
  hs_view_state_set_opacity (state, round % 2 ? 0.5 : 0.65);
  run_for (100);
  hs_view_state_set_colormap (state, colormaps[round % G_N_ELEMENTS (colormaps)]);
  run_for (100);
  iterate_until (not_loading, window);
}

/* ---- summary ------------------------------------------------------------ */

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static double
percentile (const double *sorted, guint n, double p)
{
  guint rank;

  if (n == 0)
    return NAN;
  rank = (guint) ceil (p / 100.0 * n);
  return sorted[CLAMP (rank, 1, n) - 1];
}

static GArray *
values_of (const Row *rows, guint n, StepKind kind, gsize offset)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (double));

  for (guint i = 0; i < n; i++)
    if (rows[i].kind == kind)
      g_array_append_val (out, G_STRUCT_MEMBER (double, &rows[i], offset));
  g_array_sort (out, compare_doubles);
  return out;
}

static void
verdict (const char *what, double value, double target, const char *unit)
{
  g_print ("  %-34s %9.2f %-3s target < %g %s: %s\n", what, value, unit, target, unit,
           value < target ? "met" : "NOT met");
}

/* The reference: one image decoded on the calling thread, median of n. */
static double
decode_reference (const char *path, guint n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (path, &error);
  g_autofree double *times = NULL;
  guint count;

  if (dataset == NULL)
    return NAN;
  count = MIN (n, hs_dataset_get_n_instances (dataset));
  times = g_new (double, MAX (count, 1));
  for (guint i = 0; i < count; i++)
    {
      double start = now_ms ();
      g_autoptr(HsImage) image =
        hs_dataset_load_image (dataset, hs_dataset_get_instance (dataset, i), NULL);
      times[i] = now_ms () - start;
    }
  qsort (times, count, sizeof (double), compare_doubles);
  return count > 0 ? times[count / 2] : NAN;
}

int
main (int argc, char **argv)
{
  int steps = 1000, every = 100, pace = 250, warmup = -1, image_cache_mb = -1, map_cache_mb = -1;
  g_autofree char *csv_path = NULL;
  GOptionEntry entries[] = {
    { "steps", 0, 0, G_OPTION_ARG_INT, &steps, "Steps to the next instance (1000)", "N" },
    { "every", 0, 0, G_OPTION_ARG_INT, &every, "Compare, grid, swap, sentence, opacity, colour map every K steps (100)", "K" },
    { "pace", 0, 0, G_OPTION_ARG_INT, &pace, "Milliseconds from one step to the next (250)", "MS" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &warmup, "Steps counted as warm-up (STEPS / 5, at most 200)", "W" },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_path, "Per-step CSV (soak.csv)", "FILE" },
    { "image-cache-mb", 0, 0, G_OPTION_ARG_INT, &image_cache_mb, "The image cache's size (default: the setting's)", "MB" },
    { "map-cache-mb", 0, 0, G_OPTION_ARG_INT, &map_cache_mb, "The map cache's size (default: the setting's)", "MB" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("DATASET");
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GArray) rows = g_array_new (FALSE, TRUE, sizeof (Row));
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  HsWindow *window;
  HsViewState *state;
  HsDataset *dataset;
  FILE *csv;
  double decode_ms, rss_start, rss_warm = 0, heap_start, heap_warm = 0, rss_end, rss_max = 0, cpu_total = 0;
  guint n_instances, n_after_warmup = 0, round = 0, instances_after_warmup = 0;
  int direction = 1;

  hs_application_tune_memory ();   /* as the app's main() */
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || steps < 1 || every < 1)
    {
      g_printerr ("bench-soak: %s\n", error != NULL ? error->message : "usage: bench-soak DATASET [OPTION…]");
      return 2;
    }
  if (warmup < 0)
    warmup = MIN (200, steps / 5);
  if (csv_path == NULL)
    csv_path = g_strdup ("soak.csv");

  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("GTK_THEME", "Adwaita", TRUE);
  if (!gtk_init_check ())
    {
      g_print ("bench-soak: no display (run under xvfb-run); skipped\n");
      return 0;
    }
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  decode_ms = decode_reference (argv[1], 9);
  {
    g_autoptr(GSettings) settings = hs_settings_new ();

    if (settings != NULL && image_cache_mb >= 0)
      g_settings_set_int (settings, "image-cache-mb", image_cache_mb);
    if (settings != NULL && map_cache_mb >= 0)
      g_settings_set_int (settings, "map-cache-mb", map_cache_mb);
    /* As the app's start-up: the "renderer" preference (GSK_RENDERER wins). */
    hs_renderer_choose (settings);
  }

  window = hs_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1500, 1000);
  gtk_window_present (GTK_WINDOW (window));
  file = g_file_new_for_commandline_arg (argv[1]);
  hs_window_open (window, file);
  iterate_until (not_loading, window);
  run_for (1000);   /* the first instance painted, the browser filled */
  dataset = hs_window_get_dataset (window);
  if (dataset == NULL || hs_window_get_instance (window) == NULL)
    {
      g_printerr ("bench-soak: %s: no instance opened\n", argv[1]);
      return 1;
    }
  n_instances = hs_dataset_get_n_instances (dataset);
  state = hs_canvas_get_view_state (HS_CANVAS (hs_window_get_canvas (window)));
  g_hash_table_add (seen, GUINT_TO_POINTER (hs_instance_browser_get_selected (hs_window_get_browser (window))));
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), "after-paint",
                    G_CALLBACK (count_frame), NULL);
  rss_start = hs_bench_status_mb ("VmRSS:");
  heap_start = heap_in_use_mb ();
  print_rss_breakdown ("start");

  csv = fopen (csv_path, "w");
  if (csv == NULL)
    {
      g_printerr ("bench-soak: %s: %s\n", csv_path, g_strerror (errno));
      return 1;
    }
  fprintf (csv, "step,kind,instance,latency_ms,main_thread_ms,cpu_s,frames,rss_mb,heap_mb\n");

  for (int s = 0; s < steps; s++)
    {
      gboolean back = s % 10 == 9;   /* back and forth: two revisits */
      guint passes = back ? 3 : 1;

      for (guint p = 0; p < passes; p++)
        {
          const char *action;
          guint before = hs_instance_browser_get_selected (hs_window_get_browser (window)), index;
          Row row = { 0 };
          double start_ms = now_ms (), cpu0 = hs_bench_cpu_seconds ();
          guint frames0 = frames_painted;

          /* at either end of the dataset, turn round */
          if (p == 0 && ((direction > 0 && before + 1 >= n_instances) || (direction < 0 && before == 0)))
            direction = -direction;
          if (p == 1)
            action = direction > 0 ? "previous-instance" : "next-instance";
          else
            action = direction > 0 ? "next-instance" : "previous-instance";
          row.latency_ms = timed_step (window, action, &row.main_ms);
          index = hs_instance_browser_get_selected (hs_window_get_browser (window));
          row.step = rows->len;
          row.instance = index;
          row.kind = p > 0 ? STEP_BACK : g_hash_table_contains (seen, GUINT_TO_POINTER (index)) ? STEP_AGAIN : STEP_FIRST;
          g_hash_table_add (seen, GUINT_TO_POINTER (index));
          run_for (start_ms + pace - now_ms ());
          row.cpu_s = hs_bench_cpu_seconds () - cpu0;
          row.frames = frames_painted - frames0;
          row.rss_mb = hs_bench_status_mb ("VmRSS:");
          row.heap_mb = heap_in_use_mb ();
          rss_max = MAX (rss_max, row.rss_mb);
          if (s >= warmup)
            {
              cpu_total += row.cpu_s;
              n_after_warmup++;
              instances_after_warmup += p == 0;
            }
          fprintf (csv, "%u,%s,%u,%.2f,%.2f,%.4f,%u,%.1f,%.2f\n", row.step, kind_names[row.kind], row.instance,
                   row.latency_ms, row.main_ms, row.cpu_s, row.frames, row.rss_mb, row.heap_mb);
          g_array_append_val (rows, row);
        }
      if (s + 1 == warmup)
        {
          rss_warm = hs_bench_status_mb ("VmRSS:");
          heap_warm = heap_in_use_mb ();
          print_rss_breakdown ("after warm-up");
          print_caches (window, "after warm-up");
        }
      if ((s + 1) % every == 0)
        session_actions (window, state, round++);
    }
  fclose (csv);
  rss_end = hs_bench_status_mb ("VmRSS:");
  rss_max = MAX (rss_max, rss_end);
  print_rss_breakdown ("end");
  print_caches (window, "end");
  if (warmup == 0)
    {
      rss_warm = rss_start;
      heap_warm = heap_start;
    }

  {
    g_autoptr(GArray) first = values_of ((Row *) rows->data, rows->len, STEP_FIRST, G_STRUCT_OFFSET (Row, latency_ms));
    g_autoptr(GArray) back = values_of ((Row *) rows->data, rows->len, STEP_BACK, G_STRUCT_OFFSET (Row, latency_ms));
    g_autoptr(GArray) first_main = values_of ((Row *) rows->data, rows->len, STEP_FIRST, G_STRUCT_OFFSET (Row, main_ms));
    g_autoptr(GArray) back_main = values_of ((Row *) rows->data, rows->len, STEP_BACK, G_STRUCT_OFFSET (Row, main_ms));
    double *f = (double *) first->data;
    double cpu_step = n_after_warmup > 0 ? cpu_total / n_after_warmup : NAN;
    double growth = instances_after_warmup > 0 ? (rss_end - rss_warm) / instances_after_warmup * 1000 : NAN;

    g_print ("dataset: %s, %u instances; %d steps (%u steps in all with the revisits), pace %d ms, "
             "session actions every %d steps, warm-up %d steps; renderer %s\n",
             argv[1], n_instances, steps, rows->len, pace, every, warmup,
             G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (window))));
    g_print ("reference (same run): one image decoded on the calling thread, median %.1f ms\n", decode_ms);
    g_print ("first visits (%u): latency p50 %.1f · p90 %.1f · p99 %.1f · max %.1f ms (p50 %.2f× the decode)\n",
             first->len, percentile (f, first->len, 50), percentile (f, first->len, 90),
             percentile (f, first->len, 99), first->len ? f[first->len - 1] : NAN,
             percentile (f, first->len, 50) / decode_ms);
    g_print ("revisits (%u): latency p50 %.1f · p90 %.1f ms\n", back->len,
             percentile ((double *) back->data, back->len, 50),
             percentile ((double *) back->data, back->len, 90));
    g_print ("main thread's CPU from the action to the paint, p50: first visits %.1f ms · revisits %.1f ms\n",
             percentile ((double *) first_main->data, first_main->len, 50),
             percentile ((double *) back_main->data, back_main->len, 50));
    g_print ("CPU per step after warm-up (all threads, step to step): %.3f s\n", cpu_step);
    g_print ("RSS: start %.1f MB · after warm-up %.1f MB · end %.1f MB · max %.1f MB; "
             "growth after warm-up %.1f MB per 1000 instances\n",
             rss_start, rss_warm, rss_end, rss_max, growth);
    g_print ("targets (issue 26):\n");
    verdict ("latency p50", percentile (f, first->len, 50), 100, "ms");
    verdict ("latency p99", percentile (f, first->len, 99), 200, "ms");
    verdict ("revisit p50", percentile ((double *) back->data, back->len, 50), 30, "ms");
    verdict ("CPU per step", cpu_step, 0.15, "s");
    verdict ("RSS growth per 1000 instances", growth, 10, "MB");
    verdict ("RSS max − start", rss_max - rss_start, 150, "MB");
    {
      /* What of the end figure is the allocator holding freed memory. */
      struct mallinfo2 info = mallinfo2 ();
      double before = hs_bench_status_mb ("VmRSS:");

      malloc_trim (0);
      g_print ("heap in use (malloc, all arenas): start %.1f MB · after warm-up %.1f MB\n", heap_start, heap_warm);
      g_print ("allocator at the end: %.1f MB in use, %.1f MB free but held (main arena), %.1f MB mmapped; "
               "RSS %.1f MB → %.1f MB after malloc_trim\n",
               info.uordblks / 1048576.0, info.fordblks / 1048576.0, info.hblkhd / 1048576.0, before, hs_bench_status_mb ("VmRSS:"));
    }
    g_print ("per-step CSV: %s\n", csv_path);
  }
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
