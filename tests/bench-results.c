/* bench-results.c — the results table on a large dataset: time to the first
 * rows on screen, to every row, and to sort and filter them, each next to a
 * reference measured in the same run:
 *
 *   first rows   vs scoring instance 0 in-process (hs_score_rows_instance,
 *                the least work before a first row can exist)
 *   every row    throughput over the first REFERENCE_INSTANCES instances vs
 *                the same instances scored in-process (the CLI's loop)
 *   sort         the table's sort (header state → model → view) vs a plain
 *                g_qsort_with_data of the same column's (value, index) keys,
 *                and vs the GTK design it replaces: GtkSortListModel with a
 *                GtkCustomSorter over the same rows
 *
 * Needs a display (xvfb-run) and a dataset (tools/bench-results writes a
 * 10 000-instance demo once and reuses it):
 *
 *   GTK_A11Y=none xvfb-run -a -s "-screen 0 1600x1000x24" build/tests/bench-results DATASET
 *
 * (or DATASET in $HS_RESULTS_DATASET, as `meson test --benchmark results` runs it).
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include <gtk/gtk.h>
#include <heatscope/heatscope.h>

#include "hs-results-window.h"
#include "hs-window.h"
#include "hs-bench-util.h"
#include "hs-ui-wait.h"

#define REFERENCE_INSTANCES 300
#define SORT_RUNS 5

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static void
iterate_until (gboolean (*cond) (gpointer), gpointer data)
{
  while (!cond (data))
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
not_loading (gpointer window)
{
  return !hs_window_get_loading (window);
}

static gboolean
have_rows (gpointer results)
{
  HsResultsModel *model = hs_results_window_get_model (results);

  return gtk_widget_get_mapped (results) && model != NULL &&
         g_list_model_get_n_items (G_LIST_MODEL (model)) > 0;
}

typedef struct {
  HsResultsModel *model;
  double          at_reference_ms;   /* when REFERENCE_INSTANCES were scored */
  double          start_ms;
} Progress;

static void
on_progress (HsResultsModel *model, GParamSpec *pspec, Progress *progress)
{
  guint n = hs_dataset_get_n_instances (hs_results_model_get_dataset (model));

  if (progress->at_reference_ms == 0 &&
      hs_results_model_get_progress (model) * n >= MIN (n, REFERENCE_INSTANCES))
    progress->at_reference_ms = now_ms () - progress->start_ms;
}

static gboolean
complete (gpointer results)
{
  return hs_results_model_get_complete (hs_results_window_get_model (results));
}

typedef struct {
  double number;
  guint  index;
} Key;

static gint
compare_keys (gconstpointer a, gconstpointer b, gpointer data)
{
  const Key *x = a, *y = b;
  gboolean xn = isnan (x->number), yn = isnan (y->number);

  if (xn || yn)
    return xn && yn ? 0 : xn ? 1 : -1;
  return x->number < y->number ? -1 : x->number > y->number ? 1 : (int) x->index - (int) y->index;
}

static int column_index;

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer data)
{
  double x = hs_results_row_get_values ((HsResultsRow *) a)->values[column_index];
  double y = hs_results_row_get_values ((HsResultsRow *) b)->values[column_index];

  if (isnan (x) || isnan (y))
    return isnan (x) && isnan (y) ? GTK_ORDERING_EQUAL : isnan (x) ? GTK_ORDERING_LARGER : GTK_ORDERING_SMALLER;
  return x < y ? GTK_ORDERING_SMALLER : x > y ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *values, guint n)
{
  qsort (values, n, sizeof (double), compare_doubles);
  return values[n / 2];
}

/* The table's sort by `column`, alternating the direction, median of runs. */
static double
time_table_sort (HsResultsWindow *results, const char *column)
{
  double runs[SORT_RUNS];

  for (guint r = 0; r < SORT_RUNS; r++)
    {
      double start;

      gtk_column_view_sort_by_column (hs_results_window_get_view (results), NULL, GTK_SORT_ASCENDING);
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
      start = now_ms ();
      hs_results_window_sort_by (results, column, r % 2 == 1);
      runs[r] = now_ms () - start;
    }
  return median (runs, SORT_RUNS);
}

int
main (int argc, char **argv)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsWindow *window;
  HsResultsWindow *results;
  HsResultsModel *model;
  const HsScoreRowsJob *job;
  Progress progress = { 0 };
  double start, first_ms, total_ms, reference_first_ms, reference_ms, cpu0;
  guint n_rows, n_reference;
  const char *path = argc == 2 ? argv[1] : g_getenv ("HS_RESULTS_DATASET");

  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_setenv ("GTK_THEME", "Adwaita", TRUE);
  if (path == NULL || *path == '\0')
    {
      g_print ("bench-results: no DATASET (argument or HS_RESULTS_DATASET; tools/bench-results "
               "writes one); skipped\n");
      return 0;   /* a benchmark without its data is skipped, not failed */
    }
  if (!gtk_init_check ())
    {
      g_print ("bench-results: no display (run under xvfb-run); skipped\n");
      return 0;
    }
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  /* References, in-process: the CLI's per-instance loop. */
  dataset = hs_dataset_load (path, &error);
  if (dataset == NULL)
    {
      g_printerr ("bench-results: %s\n", error->message);
      return 1;
    }
  {
    g_auto(GStrv) models = hs_dataset_list_models (dataset);
    HsScoreRowsJob ref_job;
    HsScoreOptions options;
    HsInstanceRows rows;

    hs_score_options_init (&options);
    hs_score_rows_job_init (&ref_job, dataset, (const char * const *) models,
                            g_strv_length (models), &options, NULL, 0, 0);
    start = now_ms ();
    hs_score_rows_instance (&ref_job, 0, &rows);
    reference_first_ms = now_ms () - start;
    hs_instance_rows_clear (&rows);
    n_reference = MIN (REFERENCE_INSTANCES, hs_dataset_get_n_instances (dataset));
    start = now_ms ();
    for (guint i = 0; i < n_reference; i++)
      {
        hs_score_rows_instance (&ref_job, i, &rows);
        hs_instance_rows_clear (&rows);
      }
    reference_ms = now_ms () - start;
  }

  window = hs_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  file = g_file_new_for_commandline_arg (path);
  hs_window_open (window, file);
  iterate_until (not_loading, window);

  /* First rows: win.results until a row is in the mapped table. */
  cpu0 = hs_bench_cpu_seconds ();
  start = now_ms ();
  progress.start_ms = start;
  g_action_group_activate_action (G_ACTION_GROUP (window), "results", NULL);
  results = hs_ui_find_toplevel (HS_TYPE_RESULTS_WINDOW);
  model = hs_results_window_get_model (results);
  g_signal_connect (model, "notify::progress", G_CALLBACK (on_progress), &progress);
  iterate_until (have_rows, results);
  first_ms = now_ms () - start;
  iterate_until (complete, results);
  total_ms = now_ms () - start;
  n_rows = g_list_model_get_n_items (G_LIST_MODEL (model));
  job = hs_results_model_get_job (model);

  g_print ("dataset: %s, %u instances, %u rows × %u value columns, %u rows failed\n", path,
           hs_dataset_get_n_instances (dataset), n_rows, job->n_columns,
           hs_results_model_get_n_failed (model));
  g_print ("| measurement | table | reference in the same run |\n| --- | --- | --- |\n");
  g_print ("| first rows on screen (win.results → a row in the mapped table) | %.0f ms | scoring instance 0 in-process: %.0f ms |\n",
           first_ms, reference_first_ms);
  g_print ("| first %u instances scored | %.0f ms | in-process loop: %.0f ms (%.2f×) |\n",
           n_reference, progress.at_reference_ms, reference_ms,
           progress.at_reference_ms / reference_ms);
  g_print ("| every row (%u) | %.1f s, process CPU %.1f s | — |\n", n_rows, total_ms / 1000,
           hs_bench_cpu_seconds () - cpu0);

  /* Sorts: numeric columns, a text column, and the references. */
  for (guint c = 0; c < 3; c++)
    {
      const char *name = c == 0 ? "auroc" : c == 1 ? "mass_in_target" : "instance";
      double table_ms = time_table_sort (results, name);

      if (c < 2)
        {
          HsMetric metric;
          g_autofree Key *keys = g_new (Key, n_rows);
          g_autoptr(GtkSortListModel) sorted = NULL;
          g_autoptr(GListStore) store = g_list_store_new (HS_TYPE_RESULTS_ROW);
          GtkCustomSorter *sorter;
          double qsort_ms, gtk_ms;

          g_assert (hs_metric_from_name (name, &metric));
          column_index = -1;
          for (guint k = 0; k < job->n_metrics; k++)
            if (job->metrics[k] == metric)
              column_index = (int) k;
          gtk_column_view_sort_by_column (hs_results_window_get_view (results), NULL, GTK_SORT_ASCENDING);
          for (guint i = 0; i < n_rows; i++)
            {
              HsResultsRow *row = hs_results_model_get_row (model, i);

              keys[i].number = hs_results_row_get_values (row)->values[column_index];
              keys[i].index = i;
              g_list_store_append (store, row);
            }
          start = now_ms ();
          g_qsort_with_data (keys, (gint) n_rows, sizeof (Key), compare_keys, NULL);
          qsort_ms = now_ms () - start;
          sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (store)), NULL);
          sorter = gtk_custom_sorter_new (compare_rows, NULL, NULL);
          start = now_ms ();
          gtk_sort_list_model_set_sorter (sorted, GTK_SORTER (sorter));
          gtk_ms = now_ms () - start;
          g_object_unref (sorter);
          {
            /* The model's own share: the same sort with the view detached. */
            GtkColumnView *view = hs_results_window_get_view (results);
            g_autoptr(GtkSelectionModel) selection = g_object_ref (gtk_column_view_get_model (view));
            double runs[SORT_RUNS];

            gtk_column_view_set_model (view, NULL);
            for (guint r = 0; r < SORT_RUNS; r++)
              {
                hs_results_model_set_sort (model, HS_RESULTS_COLUMN_NONE, FALSE);
                start = now_ms ();
                hs_results_model_set_sort (model, HS_RESULTS_COLUMN_VALUES + column_index, r % 2 == 1);
                runs[r] = now_ms () - start;
              }
            gtk_column_view_set_model (view, selection);
            g_print ("| sort by %s (median of %d) | **%.1f ms** (the model alone, view detached: %.1f ms) | g_qsort_with_data of the keys: %.1f ms; GtkSortListModel + GtkCustomSorter: %.1f ms |\n",
                     name, SORT_RUNS, table_ms, median (runs, SORT_RUNS), qsort_ms, gtk_ms);
          }
        }
      else
        g_print ("| sort by %s (text, median of %d) | **%.1f ms** | |\n", name, SORT_RUNS, table_ms);
    }
  {
    double filter_ms;

    start = now_ms ();
    hs_results_window_set_search (results, "phantom-00042");
    filter_ms = now_ms () - start;
    g_print ("| filter by text (\"phantom-00042\": %u rows) | %.1f ms | |\n",
             g_list_model_get_n_items (G_LIST_MODEL (model)), filter_ms);
    hs_results_window_set_search (results, "");
    start = now_ms ();
    hs_results_window_set_wrong_side (results, TRUE);
    filter_ms = now_ms () - start;
    g_print ("| filter by wrong side (%u rows) | %.1f ms | |\n",
             g_list_model_get_n_items (G_LIST_MODEL (model)), filter_ms);
  }
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
