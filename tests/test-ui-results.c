/* test-ui-results.c — the results table (win.results) on a demo dataset:
 * its rows are `heatscope-cli metrics`' rows (the export of the unfiltered
 * table equals the CLI's CSV byte for byte, with and without
 * --perturb swap-left-right), sorting orders by the CLI's values, the
 * filters keep the rows the CLI's CSV says, activating a row opens it in the
 * main window, the cache survives closing (a map replaced meanwhile is
 * scored again on reopening) and a new dataset drops it. */
#include "hs-ui-fixture.h"
#include "hs-results-window.h"
#include "hs-dataset-private.h"  /* hs_dataset_test_before_stamp, _after_open */

#include <heatscope/hs-metric-info.h>

static char *dataset_root;
static char *broken_root;      /* a second demo, for test_problem_message */
static char *many_root;        /* a third, for test_many_replaced */
static char *rescore_root;     /* a fourth, for test_rescore_in_worker */
static char *cli_csv;          /* metrics */
static char *cli_swap_csv;     /* metrics --perturb swap-left-right */

/* ---- the CLI's CSV, parsed (no quoted fields in the demo) ---------------- */

typedef struct {
  char  **header;
  GPtrArray *lines;   /* char* lines without newline */
  GPtrArray *fields;  /* GStrv per line */
} Csv;

static Csv *
csv_parse (const char *text)
{
  Csv *csv = g_new0 (Csv, 1);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  csv->header = g_strsplit (lines[0], ",", -1);
  csv->lines = g_ptr_array_new_with_free_func (g_free);
  csv->fields = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_assert_null (strchr (lines[i], '"'));
      g_ptr_array_add (csv->lines, g_strdup (lines[i]));
      g_ptr_array_add (csv->fields, g_strsplit (lines[i], ",", -1));
    }
  return csv;
}

static void
csv_free (Csv *csv)
{
  g_strfreev (csv->header);
  g_ptr_array_unref (csv->lines);
  g_ptr_array_unref (csv->fields);
  g_free (csv);
}

static guint
csv_column (Csv *csv, const char *name)
{
  for (guint k = 0; csv->header[k] != NULL; k++)
    if (g_str_equal (csv->header[k], name))
      return k;
  g_error ("no column %s", name);
}

static const char *
csv_field (Csv *csv, guint line, guint column)
{
  return ((char **) g_ptr_array_index (csv->fields, line))[column];
}

/* ---- the windows ----------------------------------------------------------- */

static HsWindow *
open_dataset_at (const char *root)
{
  HsWindow *window = hs_ui_new_window ();
  g_autoptr(GFile) file = g_file_new_for_path (root);

  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_nonnull (hs_window_get_dataset (window));
  return window;
}

static HsWindow *
open_dataset (void)
{
  return open_dataset_at (dataset_root);
}

static gboolean
model_complete (gpointer data)
{
  HsResultsModel *model = hs_results_window_get_model (data);

  return model != NULL && hs_results_model_get_complete (model);
}

/* win.results, as the menu entry and Ctrl+T do; waits for every row. */
static HsResultsWindow *
open_results (HsWindow *window)
{
  HsResultsWindow *results;

  g_action_group_activate_action (G_ACTION_GROUP (window), "results", NULL);
  results = hs_ui_find_toplevel (HS_TYPE_RESULTS_WINDOW);
  g_assert_nonnull (results);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (results)));
  hs_ui_wait_until (model_complete, results);
  return results;
}

static char *
export (HsResultsWindow *results)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (tmp, "rows.csv", NULL);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_assert_true (hs_results_window_export_csv (results, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* The expected export: the header and the CLI's lines `keep` (in order). */
static char *
expected_csv (Csv *csv, GArray *keep)
{
  g_autofree char *header = g_strjoinv (",", csv->header);
  GString *out = g_string_new (header);

  g_string_append_c (out, '\n');
  for (guint i = 0; i < keep->len; i++)
    {
      g_string_append (out, g_ptr_array_index (csv->lines, g_array_index (keep, guint, i)));
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/* ---- tests ------------------------------------------------------------------- */

static void
test_rows_equal_cli (void)
{
  HsWindow *window;
  HsResultsWindow *results;
  HsResultsModel *model;
  g_autofree char *text = NULL;
  Csv *csv;

  if (hs_ui_skip_without_display ())
    return;
  csv = csv_parse (cli_csv);
  window = open_dataset ();
  results = open_results (window);
  model = hs_results_window_get_model (results);
  g_assert_cmpuint (csv->lines->len, >, 50);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, csv->lines->len);
  g_assert_cmpuint (hs_results_model_get_n_failed (model), ==, 0);
  /* The column view shows the model: one column per CSV column. */
  g_assert_cmpuint (g_list_model_get_n_items (gtk_column_view_get_columns (hs_results_window_get_view (results))),
                    ==, g_strv_length (csv->header));
  text = export (results);
  g_assert_cmpstr (text, ==, cli_csv);
  csv_free (csv);
  hs_ui_destroy_window (window);
}

static int
compare_values (const char *a, const char *b, gboolean descending)
{
  /* Empty (undefined) last in both directions. */
  if (*a == '\0' || *b == '\0')
    return (*a == '\0') - (*b == '\0');
  double x = g_ascii_strtod (a, NULL), y = g_ascii_strtod (b, NULL);
  return x == y ? 0 : ((x < y) != descending ? -1 : 1);
}

typedef struct {
  Csv     *csv;
  guint    column;
  gboolean descending;
} SortData;

static gint
compare_lines (gconstpointer a, gconstpointer b, gpointer data)
{
  SortData *sort = data;
  guint x = *(const guint *) a, y = *(const guint *) b;
  int order = compare_values (csv_field (sort->csv, x, sort->column),
                              csv_field (sort->csv, y, sort->column), sort->descending);

  return order != 0 ? order : (x < y ? -1 : x > y);
}

/* The CLI's lines passing `keep`, sorted by `column` (NULL: dataset order). */
static GArray *
cli_lines (Csv *csv, gboolean (*keep) (Csv *, guint, gpointer), gpointer data,
           const char *column, gboolean descending)
{
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < csv->lines->len; i++)
    if (keep == NULL || keep (csv, i, data))
      g_array_append_val (lines, i);
  if (column != NULL)
    {
      SortData sort = { csv, csv_column (csv, column), descending };
      g_array_sort_with_data (lines, compare_lines, &sort);
    }
  return lines;
}

static gboolean
keep_field_equal (Csv *csv, guint line, gpointer data)
{
  const char * const *what = data;   /* column, value */
  return g_str_equal (csv_field (csv, line, csv_column (csv, what[0])), what[1]);
}

static gboolean
keep_subset (Csv *csv, guint line, gpointer data)
{
  g_auto(GStrv) subsets = g_strsplit (csv_field (csv, line, csv_column (csv, "subsets")), ";", -1);
  return g_strv_contains ((const char * const *) subsets, data);
}

static gboolean
keep_instance_contains (Csv *csv, guint line, gpointer data)
{
  return strstr (csv_field (csv, line, 0), data) != NULL;
}

static void
assert_visible (HsResultsWindow *results, Csv *csv, GArray *lines)
{
  g_autofree char *expected = expected_csv (csv, lines);
  g_autofree char *text = export (results);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (hs_results_window_get_model (results))),
                    ==, lines->len);
  g_assert_cmpstr (text, ==, expected);
}

/* The label texts of one row widget of the column view, joined by '|'. */
static void
collect_labels (GtkWidget *widget, GString *out)
{
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s|", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, out);
}

/* What the screen shows: each row widget of the table (in position order)
 * reads instance, sentence and model of the model's row there. */
static void
assert_screen_rows (HsResultsWindow *results)
{
  HsResultsModel *model = hs_results_window_get_model (results);
  GtkWidget *view = GTK_WIDGET (hs_results_window_get_view (results));
  GtkWidget *list = NULL;
  guint position = 0;

  hs_ui_settle ();
  /* The column view's children: the header, then the rows' list view. */
  for (GtkWidget *child = gtk_widget_get_first_child (view); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child) || g_str_equal (G_OBJECT_TYPE_NAME (child), "GtkColumnListView"))
      list = child;
  g_assert_nonnull (list);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      g_autoptr(GString) shown = g_string_new (NULL);
      HsResultsRow *expected;
      g_autofree char *prefix = NULL;

      if (!gtk_widget_get_visible (row) || !gtk_widget_get_mapped (row))
        continue;
      collect_labels (row, shown);
      expected = hs_results_model_get_row (model, position++);
      g_assert_nonnull (expected);
      prefix = g_strdup_printf ("%s|%s|%s|", hs_results_row_get_instance (expected),
                                hs_results_row_get_sentence (expected),
                                hs_results_row_get_model (expected));
      g_assert_true (g_str_has_prefix (shown->str, prefix));
    }
  g_assert_cmpuint (position, >, 5);
}

static void
test_sort_and_filter (void)
{
  HsWindow *window;
  HsResultsWindow *results;
  Csv *csv;
  const char *blind[] = { "model", "sim-blind" };
  const char *wrong[] = { "wrong_side", "1" };
  g_autoptr(GArray) lines = NULL;

  if (hs_ui_skip_without_display ())
    return;
  csv = csv_parse (cli_csv);
  window = open_dataset ();
  results = open_results (window);

  /* Sort: the order of the CLI's values (undefined last, ties in dataset order). */
  g_assert_true (hs_results_window_sort_by (results, "auroc", FALSE));
  lines = cli_lines (csv, NULL, NULL, "auroc", FALSE);
  assert_visible (results, csv, lines);
  g_clear_pointer (&lines, g_array_unref);
  assert_screen_rows (results);
  g_assert_true (hs_results_window_sort_by (results, "mass_in_target", TRUE));
  lines = cli_lines (csv, NULL, NULL, "mass_in_target", TRUE);
  assert_visible (results, csv, lines);
  assert_screen_rows (results);
  g_clear_pointer (&lines, g_array_unref);
  /* negative and positive values (laterality in [−1, 1]), both directions */
  for (int descending = 0; descending < 2; descending++)
    {
      g_assert_true (hs_results_window_sort_by (results, "laterality", descending));
      lines = cli_lines (csv, NULL, NULL, "laterality", descending);
      assert_visible (results, csv, lines);
      g_clear_pointer (&lines, g_array_unref);
    }
  g_assert_true (hs_results_window_sort_by (results, "mass_in_target", TRUE));
  g_assert_false (hs_results_window_sort_by (results, "no-such-column", TRUE));

  /* Filters, each against the CLI's rows; the sort stays. */
  g_assert_true (hs_results_window_set_model_filter (results, "sim-blind"));
  lines = cli_lines (csv, keep_field_equal, blind, "mass_in_target", TRUE);
  g_assert_cmpuint (lines->len, >, 0);
  g_assert_cmpuint (lines->len, <, csv->lines->len);
  assert_visible (results, csv, lines);
  assert_screen_rows (results);
  g_clear_pointer (&lines, g_array_unref);
  g_assert_true (hs_results_window_set_model_filter (results, NULL));

  hs_results_window_set_wrong_side (results, TRUE);
  lines = cli_lines (csv, keep_field_equal, wrong, "mass_in_target", TRUE);
  g_assert_cmpuint (lines->len, >, 0);
  assert_visible (results, csv, lines);
  g_clear_pointer (&lines, g_array_unref);
  hs_results_window_set_wrong_side (results, FALSE);

  g_assert_true (hs_results_window_set_subset (results, "one_lung"));
  lines = cli_lines (csv, keep_subset, "one_lung", "mass_in_target", TRUE);
  g_assert_cmpuint (lines->len, >, 0);
  g_assert_cmpuint (lines->len, <, csv->lines->len);
  assert_visible (results, csv, lines);
  g_clear_pointer (&lines, g_array_unref);
  g_assert_true (hs_results_window_set_subset (results, "all"));

  /* Text, ignoring case. */
  hs_results_window_set_search (results, "PHANTOM-000003");
  lines = cli_lines (csv, keep_instance_contains, "phantom-000003", "mass_in_target", TRUE);
  g_assert_cmpuint (lines->len, >, 0);
  assert_visible (results, csv, lines);
  g_clear_pointer (&lines, g_array_unref);
  hs_results_window_set_search (results, "");

  /* Back to dataset order: everything, as the CLI writes it. */
  hs_results_window_sort_by (results, "auroc", FALSE);
  gtk_column_view_sort_by_column (hs_results_window_get_view (results), NULL, GTK_SORT_ASCENDING);
  {
    g_autofree char *text = export (results);
    g_assert_cmpstr (text, ==, cli_csv);
  }
  csv_free (csv);
  hs_ui_destroy_window (window);
}

static void
test_open_row (void)
{
  HsWindow *window;
  HsResultsWindow *results;
  HsResultsModel *model;
  HsResultsRow *row;

  if (hs_ui_skip_without_display ())
    return;
  window = open_dataset ();
  results = open_results (window);
  model = hs_results_window_get_model (results);
  /* The worst pointing: lowest mass in target, of the blind model. */
  g_assert_true (hs_results_window_set_model_filter (results, "sim-blind"));
  g_assert_true (hs_results_window_sort_by (results, "mass_in_target", FALSE));
  row = hs_results_model_get_row (model, 2);
  g_assert_nonnull (row);
  g_assert_cmpstr (hs_results_row_get_model (row), ==, "sim-blind");
  g_assert_cmpstr (hs_results_row_get_instance (row), !=, hs_window_get_instance (window)->id);

  g_signal_emit_by_name (hs_results_window_get_view (results), "activate", 2);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, hs_results_row_get_instance (row));
  g_assert_cmpstr (hs_prompt_panel_get_sentence (hs_window_get_prompt_panel (window))->id, ==,
                   hs_results_row_get_sentence (row));
  g_assert_cmpstr (hs_window_get_model (window), ==, "sim-blind");
  g_assert_nonnull (hs_window_get_map (window));
  g_assert_false (hs_results_window_open_row (results, 100000));
  hs_ui_destroy_window (window);
}

/* The header widgets of the column view (GTK 4.8: GtkColumnViewTitle in
 * the header row, each with its column's title as a label), in order. */
static void
collect_titles (GtkWidget *widget, GPtrArray *titles)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (g_str_equal (G_OBJECT_TYPE_NAME (child), "GtkColumnViewTitle"))
      g_ptr_array_add (titles, child);
    else if (!GTK_IS_LIST_VIEW (child))
      collect_titles (child, titles);
}

static const char *
title_text (GtkWidget *title)
{
  for (GtkWidget *w = title; w != NULL; w = gtk_widget_get_first_child (w))
    if (GTK_IS_LABEL (w))
      return gtk_label_get_text (GTK_LABEL (w));
  return NULL;
}

/* Every metric column's header tells what the metric is: its tooltip is
 * the library's definition, range and direction (hs_metric_info_tooltip),
 * a delta_ column's says it is the change of that metric; the tooltip is
 * what GTK finds under the pointer (the deepest widget with a tooltip at
 * the header's centre is the header).  Checked for the CSV's columns with
 * and without a perturbation (the columns are rebuilt). */
static void
assert_header_tooltips (HsResultsWindow *results, Csv *csv)
{
  GtkWidget *view = GTK_WIDGET (hs_results_window_get_view (results));
  g_autoptr(GPtrArray) titles = g_ptr_array_new ();
  guint n_metrics = 0, n_picked = 0;

  hs_ui_settle ();
  collect_titles (view, titles);
  g_assert_cmpuint (titles->len, ==, g_strv_length (csv->header));
  for (guint i = 0; i < titles->len; i++)
    {
      GtkWidget *title = g_ptr_array_index (titles, i);
      const char *name = title_text (title);
      const char *tip = gtk_widget_get_tooltip_text (title);
      const HsMetricInfo *info;
      g_autofree char *definition = NULL;
      graphene_point_t centre;
      GtkWidget *picked;

      g_assert_nonnull (name);
      if (i < 4)
        {
          /* Instance, Sentence, Model, Subsets: not metrics, no tooltip */
          g_assert_null (tip);
          continue;
        }
      /* the CSV's value columns (after instance, query, model, subsets) */
      g_assert_true (g_strv_contains ((const char * const *) csv->header + 4, name));
      info = hs_metric_info_lookup (name);
      g_assert_nonnull (info);
      n_metrics++;
      definition = hs_metric_info_tooltip (info);
      g_assert_nonnull (tip);
      if (g_str_has_prefix (name, "delta_"))
        {
          g_autofree char *first = g_strdup_printf ("Δ %s: ", name + strlen ("delta_"));

          g_assert_true (g_str_has_prefix (tip, first));
          g_assert_true (g_str_has_suffix (tip, definition));
        }
      else
        g_assert_cmpstr (tip, ==, definition);
      /* the one-line definition itself, from the library's table */
      g_assert_nonnull (strstr (tip, hs_metric_info_get_definition (info)));
      /* under the pointer: the widget GTK asks for a tooltip */
      g_assert_true (gtk_widget_compute_point (title, view,
                                               &GRAPHENE_POINT_INIT (gtk_widget_get_width (title) / 2.f,
                                                                     gtk_widget_get_height (title) / 2.f),
                                               &centre));
      if (centre.x < 0 || centre.x >= gtk_widget_get_width (view))
        continue;   /* scrolled out of the window: not under any pointer */
      picked = gtk_widget_pick (view, centre.x, centre.y, GTK_PICK_DEFAULT);
      while (picked != NULL && !gtk_widget_get_has_tooltip (picked))
        picked = gtk_widget_get_parent (picked);
      if (picked != title)
        g_error ("%s at (%.0f, %.0f): the pointer finds %s", name, centre.x, centre.y,
                 picked ? G_OBJECT_TYPE_NAME (picked) : "nothing");
      n_picked++;
    }
  g_assert_cmpuint (n_metrics, >, 4);
  g_assert_cmpuint (n_picked, >, 2);

  /* The order: a perturbation's summary columns first (the CSV's last two
   * before any tag columns, last first), then every other value column in
   * the CSV's order — the tag columns too (with them and no perturbation
   * the order was once reversed whole). */
  {
    g_autoptr(GPtrArray) expected = g_ptr_array_new ();
    guint n_values = g_strv_length (csv->header) - 4;

    for (guint i = n_values; i-- > 0;)
      if (g_str_equal (csv->header[4 + i], "swap_response") || g_str_equal (csv->header[4 + i], "sym_kl"))
        g_ptr_array_add (expected, csv->header[4 + i]);
    for (guint i = 0; i < n_values; i++)
      if (!g_str_equal (csv->header[4 + i], "swap_response") && !g_str_equal (csv->header[4 + i], "sym_kl"))
        g_ptr_array_add (expected, csv->header[4 + i]);
    for (guint i = 0; i < n_values; i++)
      g_assert_cmpstr (title_text (g_ptr_array_index (titles, 4 + i)), ==, g_ptr_array_index (expected, i));
  }
}

static void
test_perturbation_and_cache (void)
{
  HsWindow *window;
  HsResultsWindow *results;
  HsResultsModel *plain, *swap;
  g_autofree char *text = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (dataset_root);
  Csv *csv;

  if (hs_ui_skip_without_display ())
    return;
  csv = csv_parse (cli_swap_csv);
  window = open_dataset ();
  results = open_results (window);
  plain = hs_results_window_get_model (results);
  {
    Csv *plain_csv = csv_parse (cli_csv);

    assert_header_tooltips (results, plain_csv);
    csv_free (plain_csv);
  }

  g_assert_true (hs_results_window_set_perturbation (results, "swap-left-right"));
  hs_ui_wait_until (model_complete, results);
  swap = hs_results_window_get_model (results);
  g_assert_true (swap != plain);
  /* Deltas, sym_kl and swap_response (then the demo's coattn-sim's
   * tag columns): the CLI's values exactly. */
  g_assert_cmpstr (csv->header[g_strv_length (csv->header) - 3], ==, "swap_response");
  g_assert_cmpstr (csv->header[g_strv_length (csv->header) - 1], ==, "tag_entropy_norm");
  assert_header_tooltips (results, csv);
  text = export (results);
  g_assert_cmpstr (text, ==, cli_swap_csv);
  {
    g_autoptr(GArray) lines = cli_lines (csv, NULL, NULL, "swap_response", TRUE);
    g_autofree char *expected = expected_csv (csv, lines);
    g_autofree char *sorted = NULL;

    g_assert_true (hs_results_window_sort_by (results, "swap_response", TRUE));
    sorted = export (results);
    g_assert_cmpstr (sorted, ==, expected);
  }

  /* Cached: back to no perturbation shows the same rows, already complete;
   * closing and reopening keeps them. */
  g_assert_true (hs_results_window_set_perturbation (results, NULL));
  g_assert_true (hs_results_window_get_model (results) == plain);
  gtk_window_close (GTK_WINDOW (results));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (results)));
  g_assert_true (open_results (window) == results);
  g_assert_true (hs_results_window_get_model (results) == plain);

  /* A (re)opened dataset drops the cache. */
  g_object_ref (plain);
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_ui_wait_until (model_complete, results);
  g_assert_true (hs_results_window_get_model (results) != plain);
  g_assert_true (hs_results_model_get_dataset (hs_results_window_get_model (results)) ==
                 hs_window_get_dataset (window));
  g_object_unref (plain);
  csv_free (csv);
  hs_ui_destroy_window (window);
}

/* Closed, then one instance's map replaced on disk by a rename (new values, as a re-run of
 * `attend --force` replaces it) and reopened: the table's rows are `heatscope-cli metrics` run
 * on the dataset as it is now — the replaced map's row has its new scores, every other row is
 * as it was — and only that instance was scored again. */
static void
test_replaced_map (void)
{
  HsWindow *window;
  HsResultsWindow *results;
  HsResultsModel *model;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) ds = NULL;
  g_autoptr(HsNdArray) array = NULL;
  g_autofree char *path = NULL, *dir = NULL, *fresh = NULL, *text = NULL, *now_csv = NULL;
  g_autofree char *err = NULL;
  const char *metrics[] = { hs_test_cli (), "metrics", dataset_root, NULL };
  int status = 0;
  HsInstance *instance;
  HsMapRef *ref;
  Csv *before, *now;
  guint n_changed = 0;

  if (hs_ui_skip_without_display ())
    return;
  before = csv_parse (cli_csv);
  window = open_dataset ();
  results = open_results (window);
  model = hs_results_window_get_model (results);
  text = export (results);
  g_assert_cmpstr (text, ==, cli_csv);
  g_clear_pointer (&text, g_free);
  gtk_window_close (GTK_WINDOW (results));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (results)));

  /* the first map of the second instance: its values 1 + i mod 7 */
  ds = hs_dataset_load (dataset_root, &error);
  g_assert_no_error (error);
  instance = hs_dataset_get_instance (ds, 1);
  ref = g_ptr_array_index (instance->maps, 0);
  path = hs_dataset_resolve_path (ds, ref->file, &error);
  g_assert_no_error (error);
  array = hs_npy_read (path, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < array->n_values; i++)
    array->values[i] = 1 + i % 7;
  dir = g_path_get_dirname (path);
  fresh = g_build_filename (dir, "replacement.npy", NULL);
  g_assert_true (hs_npy_write (fresh, HS_DTYPE_FLOAT32, array->ndim, array->shape, array->values,
                               FALSE, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (fresh, path), ==, 0);

  /* the reference: the CLI's scores of the files as they are now */
  g_assert_true (hs_test_run (metrics, &now_csv, &err, &status));
  g_assert_cmpint (status, ==, 0);
  now = csv_parse (now_csv);
  g_assert_cmpuint (now->lines->len, ==, before->lines->len);
  for (guint i = 0; i < now->lines->len; i++)
    if (!g_str_equal (g_ptr_array_index (now->lines, i), g_ptr_array_index (before->lines, i)))
      {
        /* only the replaced map's row changes */
        g_assert_cmpstr (csv_field (now, i, csv_column (now, "instance")), ==, instance->id);
        g_assert_cmpstr (csv_field (now, i, csv_column (now, "model")), ==, ref->model);
        n_changed++;
      }
  g_assert_cmpuint (n_changed, ==, 1);

  g_assert_true (open_results (window) == results);
  g_assert_true (hs_results_window_get_model (results) == model);
  text = export (results);
  g_assert_cmpstr (text, ==, now_csv);
  /* the one instance whose file changed, no other */
  g_assert_cmpuint (hs_results_model_get_n_rescored (model), ==, 1);
  csv_free (before);
  csv_free (now);
  hs_ui_destroy_window (window);
}

/* The status line: the label under the table that counts its rows. */
static GtkLabel *
find_status (GtkWidget *root)
{
  if (GTK_IS_LABEL (root) && strstr (gtk_label_get_text (GTK_LABEL (root)), " rows") != NULL)
    return GTK_LABEL (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_status (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Renames over the first map of instance `index` of `root`'s dataset: the
 * saved copy (`broken` FALSE) or bytes no .npy reader takes; returns the
 * map's file name. */
static char *
replace_map (const char *root, guint index, gboolean broken)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) ds = hs_dataset_load (root, &error);
  g_autofree char *path = NULL, *saved = NULL, *fresh = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  HsMapRef *ref;

  g_assert_no_error (error);
  ref = g_ptr_array_index (hs_dataset_get_instance (ds, index)->maps, 0);
  path = hs_dataset_resolve_path (ds, ref->file, &error);
  g_assert_no_error (error);
  saved = g_strconcat (path, ".saved", NULL);
  fresh = g_strconcat (path, ".fresh", NULL);
  if (broken)
    {
      /* the good file kept aside for later */
      if (!g_file_test (saved, G_FILE_TEST_EXISTS))
        {
          g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
          g_assert_true (g_file_set_contents (saved, contents, (gssize) length, NULL));
        }
      g_assert_true (g_file_set_contents (fresh, "not a map", -1, NULL));
    }
  else
    {
      g_assert_true (g_file_get_contents (saved, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (fresh, contents, (gssize) length, NULL));
    }
  g_assert_cmpint (g_rename (fresh, path), ==, 0);
  return g_path_get_basename (path);
}

/* The status line says the rows' problem as they are now after a reopen that
 * scored instances again: a map made unreadable while the table was closed
 * is named, one fixed meanwhile no longer is (once the model kept the first
 * problem it ever saw: the fixed map was still named, or named beside the
 * other one's failed row). */
static void
test_problem_message (void)
{
  HsWindow *window;
  HsResultsWindow *results;
  HsResultsModel *model;
  GtkLabel *status;
  g_autofree char *first = NULL, *second = NULL;

  if (hs_ui_skip_without_display ())
    return;
  first = replace_map (broken_root, 1, TRUE);
  window = open_dataset_at (broken_root);
  results = open_results (window);
  model = hs_results_window_get_model (results);
  status = find_status (GTK_WIDGET (results));
  g_assert_nonnull (status);
  g_assert_cmpuint (hs_results_model_get_n_failed (model), ==, 1);
  g_assert_nonnull (hs_results_model_get_first_problem (model));
  g_assert_nonnull (strstr (hs_results_model_get_first_problem (model), first));
  g_assert_nonnull (strstr (gtk_label_get_text (status), hs_results_model_get_first_problem (model)));

  /* closed; the first map fixed, another instance's broken: that one is named */
  gtk_window_close (GTK_WINDOW (results));
  g_free (replace_map (broken_root, 1, FALSE));
  second = replace_map (broken_root, 3, TRUE);
  g_assert_cmpstr (first, !=, second);
  g_assert_true (open_results (window) == results);
  g_assert_true (hs_results_window_get_model (results) == model);
  g_assert_cmpuint (hs_results_model_get_n_rescored (model), ==, 2);
  g_assert_cmpuint (hs_results_model_get_n_failed (model), ==, 1);
  g_assert_nonnull (hs_results_model_get_first_problem (model));
  g_assert_nonnull (strstr (hs_results_model_get_first_problem (model), second));
  g_assert_null (strstr (gtk_label_get_text (status), first));
  g_assert_nonnull (strstr (gtk_label_get_text (status), hs_results_model_get_first_problem (model)));

  /* closed; that one fixed too: no problem said */
  gtk_window_close (GTK_WINDOW (results));
  g_free (replace_map (broken_root, 3, FALSE));
  g_assert_true (open_results (window) == results);
  g_assert_true (hs_results_window_get_model (results) == model);
  g_assert_cmpuint (hs_results_model_get_n_rescored (model), ==, 3);
  g_assert_cmpuint (hs_results_model_get_n_failed (model), ==, 0);
  g_assert_null (hs_results_model_get_first_problem (model));
  g_assert_null (strstr (gtk_label_get_text (status), " · "));
  hs_ui_destroy_window (window);
}

/* The reopen's files check, held in the worker by hs_dataset_test_before_stamp. */
static GMutex hold_lock;
static GCond hold_cond;
static gboolean hold_reached, hold_released;
static GThread *main_thread;
static gint n_main_stamps, n_worker_stamps;

static void
hold_before_stamp (const char *relative)
{
  if (g_thread_self () == main_thread)
    {
      g_atomic_int_inc (&n_main_stamps);
      return;
    }
  g_atomic_int_inc (&n_worker_stamps);
  g_mutex_lock (&hold_lock);
  hold_reached = TRUE;
  while (!hold_released)
    g_cond_wait (&hold_cond, &hold_lock);
  g_mutex_unlock (&hold_lock);
}

static gboolean
check_reached (gpointer data)
{
  gboolean reached;

  g_mutex_lock (&hold_lock);
  reached = hold_reached;
  g_mutex_unlock (&hold_lock);
  return reached || g_atomic_int_get (&n_main_stamps) > 0;
}

/* Reopened, the table's files are checked in a worker: with the check held at its first file,
 * the window is up with its rows and says it checks them, no file was stat'ed on the main thread
 * (the check once ran there: 0.5 s per 10⁵ files with the window frozen), and once released
 * every file of the dataset was stat'ed once and the table is complete, equal to the CLI's. */
static void
test_check_in_worker (void)
{
  HsWindow *window;
  HsResultsWindow *results;
  HsResultsModel *model;
  HsDataset *dataset;
  GtkLabel *status;
  g_autofree char *text = NULL;
  gint n_files = 0;

  if (hs_ui_skip_without_display ())
    return;
  window = open_dataset ();
  results = open_results (window);
  model = hs_results_window_get_model (results);
  dataset = hs_window_get_dataset (window);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      n_files += 1 + (instance->maps != NULL ? (gint) instance->maps->len : 0);
      for (guint r = 0; instance->regions != NULL && r < instance->regions->len; r++)
        n_files += ((HsRegion *) g_ptr_array_index (instance->regions, r))->mask != NULL;
    }
  gtk_window_close (GTK_WINDOW (results));
  hs_ui_settle ();

  main_thread = g_thread_self ();
  hold_reached = hold_released = FALSE;
  n_main_stamps = n_worker_stamps = 0;
  hs_dataset_test_before_stamp = hold_before_stamp;
  g_action_group_activate_action (G_ACTION_GROUP (window), "results", NULL);
  hs_ui_wait_until (check_reached, NULL);
  g_assert_cmpint (g_atomic_int_get (&n_main_stamps), ==, 0);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (results)));
  g_assert_true (hs_results_window_get_model (results) == model);
  g_assert_true (hs_results_model_get_checking (model));
  g_assert_false (hs_results_model_get_complete (model));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), >, 0);
  status = find_status (GTK_WIDGET (results));
  g_assert_nonnull (status);
  g_assert_nonnull (strstr (gtk_label_get_text (status), "checking their files"));
  /* the window paints meanwhile */
  hs_ui_wait_until (hs_ui_is_mapped, results);
  hs_ui_paint_now (GTK_WIDGET (results));
  hs_ui_save_screenshot (GTK_WIDGET (results), "ui-results-checking");

  g_mutex_lock (&hold_lock);
  hold_released = TRUE;
  g_cond_broadcast (&hold_cond);
  g_mutex_unlock (&hold_lock);
  hs_ui_wait_until (model_complete, results);
  hs_dataset_test_before_stamp = NULL;
  g_assert_cmpint (g_atomic_int_get (&n_main_stamps), ==, 0);
  g_assert_cmpint (g_atomic_int_get (&n_worker_stamps), ==, n_files);
  g_assert_false (hs_results_model_get_checking (model));
  g_assert_cmpuint (hs_results_model_get_n_rescored (model), ==, 0);
  g_assert_null (strstr (gtk_label_get_text (status), "checking"));
  text = export (results);
  g_assert_cmpstr (text, ==, cli_csv);
  hs_ui_destroy_window (window);
}

/* The reopen's scoring again, held in the worker by hs_dataset_test_after_open: every file
 * scoring opens goes through hs_dataset_open_file. */
static gint n_main_opens, n_worker_opens;

static void
hold_after_open (const char *resolved)
{
  if (g_thread_self () == main_thread)
    {
      g_atomic_int_inc (&n_main_opens);
      return;
    }
  if (g_atomic_int_add (&n_worker_opens, 1) > 0)
    return;
  g_mutex_lock (&hold_lock);
  hold_reached = TRUE;
  while (!hold_released)
    g_cond_wait (&hold_cond, &hold_lock);
  g_mutex_unlock (&hold_lock);
}

static gboolean
rescoring_reached (gpointer data)
{
  gboolean reached;

  g_mutex_lock (&hold_lock);
  reached = hold_reached;
  g_mutex_unlock (&hold_lock);
  return (reached && hs_results_model_get_n_rescoring (data) > 0) || g_atomic_int_get (&n_main_opens) > 0;
}

/* Reopened after two instances' maps were replaced (new values): those two are scored again in
 * the worker — held at the first file it opens, the window is up with the old rows and says it
 * scores 2 instances again, and no file was opened on the main thread (they were scored there
 * before, with the window frozen for as long as that took) — then the rows are the CLI's on the
 * dataset as it is now, and only those two were scored again. */
static void
test_rescore_in_worker (void)
{
  HsWindow *window;
  HsResultsWindow *results;
  HsResultsModel *model;
  GtkLabel *status;
  g_autofree char *before_csv = NULL, *now_csv = NULL, *err = NULL, *text = NULL;
  const char *metrics[] = { hs_test_cli (), "metrics", rescore_root, NULL };
  const guint changed[] = { 1, 3 };
  int code = 0;

  if (hs_ui_skip_without_display ())
    return;
  g_assert_true (hs_test_run (metrics, &before_csv, &err, &code));
  g_assert_cmpint (code, ==, 0);
  window = open_dataset_at (rescore_root);
  results = open_results (window);
  model = hs_results_window_get_model (results);
  text = export (results);
  g_assert_cmpstr (text, ==, before_csv);
  g_clear_pointer (&text, g_free);
  gtk_window_close (GTK_WINDOW (results));
  hs_ui_settle ();

  /* the first map of instances 1 and 3: values 1 + (i · 3 + k) mod 11 */
  for (guint k = 0; k < G_N_ELEMENTS (changed); k++)
    {
      HsDataset *dataset = hs_window_get_dataset (window);
      HsMapRef *ref = g_ptr_array_index (hs_dataset_get_instance (dataset, changed[k])->maps, 0);
      g_autofree char *path = hs_dataset_resolve_path (dataset, ref->file, NULL);
      g_autofree char *fresh = g_strconcat (path, ".fresh", NULL);
      g_autoptr(HsNdArray) array = NULL;
      g_autoptr(GError) error = NULL;

      array = hs_npy_read (path, &error);
      g_assert_no_error (error);
      for (gsize i = 0; i < array->n_values; i++)
        array->values[i] = 1 + (i * 3 + k) % 11;
      g_assert_true (hs_npy_write (fresh, HS_DTYPE_FLOAT32, array->ndim, array->shape, array->values,
                                   FALSE, FALSE, &error));
      g_assert_no_error (error);
      g_assert_cmpint (g_rename (fresh, path), ==, 0);
    }
  g_clear_pointer (&err, g_free);
  g_assert_true (hs_test_run (metrics, &now_csv, &err, &code));
  g_assert_cmpint (code, ==, 0);
  g_assert_cmpstr (now_csv, !=, before_csv);

  main_thread = g_thread_self ();
  hold_reached = hold_released = FALSE;
  n_main_opens = n_worker_opens = 0;
  hs_dataset_test_after_open = hold_after_open;
  g_action_group_activate_action (G_ACTION_GROUP (window), "results", NULL);
  hs_ui_wait_until (rescoring_reached, model);
  g_assert_cmpint (g_atomic_int_get (&n_main_opens), ==, 0);
  g_assert_true (hs_results_window_get_model (results) == model);
  g_assert_cmpuint (hs_results_model_get_n_rescoring (model), ==, 2);
  g_assert_false (hs_results_model_get_complete (model));
  g_assert_cmpuint (hs_results_model_get_n_rescored (model), ==, 0);
  /* the old rows meanwhile */
  text = hs_results_model_to_csv (model);
  g_assert_cmpstr (text, ==, before_csv);
  g_clear_pointer (&text, g_free);
  status = find_status (GTK_WIDGET (results));
  g_assert_nonnull (status);
  g_assert_nonnull (strstr (gtk_label_get_text (status), "scoring 2 instances again: their files changed"));
  hs_ui_wait_until (hs_ui_is_mapped, results);
  hs_ui_paint_now (GTK_WIDGET (results));
  hs_ui_save_screenshot (GTK_WIDGET (results), "ui-results-rescoring");

  g_mutex_lock (&hold_lock);
  hold_released = TRUE;
  g_cond_broadcast (&hold_cond);
  g_mutex_unlock (&hold_lock);
  hs_ui_wait_until (model_complete, results);
  hs_dataset_test_after_open = NULL;
  g_assert_cmpint (g_atomic_int_get (&n_main_opens), ==, 0);
  g_assert_cmpint (g_atomic_int_get (&n_worker_opens), >=, 2);
  g_assert_cmpuint (hs_results_model_get_n_rescored (model), ==, 2);
  g_assert_cmpuint (hs_results_model_get_n_rescoring (model), ==, 0);
  g_assert_null (strstr (gtk_label_get_text (status), " · "));
  text = export (results);
  g_assert_cmpstr (text, ==, now_csv);
  hs_ui_destroy_window (window);
}

/* More instances than are scored again in place (16) had a file replaced while the table was
 * closed (each first map renamed over by a copy of itself: a new file, the same values): the
 * check marks the table stale, the window drops it and scores a new one from the start, whose
 * rows are the CLI's. */
static void
test_many_replaced (void)
{
  HsWindow *window;
  HsResultsWindow *results;
  HsResultsModel *model;
  HsDataset *dataset;
  g_autofree char *text = NULL, *csv = NULL, *err = NULL;
  const char *metrics[] = { hs_test_cli (), "metrics", many_root, NULL };
  int status = 0;

  if (hs_ui_skip_without_display ())
    return;
  g_assert_true (hs_test_run (metrics, &csv, &err, &status));
  g_assert_cmpint (status, ==, 0);
  window = open_dataset_at (many_root);
  results = open_results (window);
  model = g_object_ref (hs_results_window_get_model (results));
  gtk_window_close (GTK_WINDOW (results));
  dataset = hs_window_get_dataset (window);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), >, 16);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsMapRef *ref = g_ptr_array_index (hs_dataset_get_instance (dataset, i)->maps, 0);
      g_autofree char *path = hs_dataset_resolve_path (dataset, ref->file, NULL);
      g_autofree char *fresh = g_strconcat (path, ".fresh", NULL);
      g_autofree char *contents = NULL;
      gsize length = 0;

      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (fresh, contents, (gssize) length, NULL));
      g_assert_cmpint (g_rename (fresh, path), ==, 0);
    }

  g_assert_true (open_results (window) == results);
  g_assert_true (hs_results_model_get_stale (model));
  g_assert_true (hs_results_window_get_model (results) != model);
  g_assert_cmpuint (hs_results_model_get_n_rescored (model), ==, 0);
  text = export (results);
  g_assert_cmpstr (text, ==, csv);
  g_object_unref (model);
  hs_ui_destroy_window (window);
}

int
main (int argc, char **argv)
{
  g_autofree char *tmp = NULL;
  int ret;

  hs_ui_init (&argc, &argv);
  tmp = hs_test_make_tmpdir ();
  dataset_root = g_build_filename (tmp, "demo", NULL);
  broken_root = g_build_filename (tmp, "broken", NULL);
  many_root = g_build_filename (tmp, "many", NULL);
  rescore_root = g_build_filename (tmp, "rescore", NULL);
  {
    const char *broken[] = { hs_test_cli (), "demo", "--count", "6", "--seed", "2", "--size", "64",
                             "--maps", "simulated", broken_root, NULL };
    const char *demo[] = { hs_test_cli (), "demo", "--count", "12", "--seed", "1", "--size", "128",
                           "--maps", "simulated", dataset_root, NULL };
    const char *metrics[] = { hs_test_cli (), "metrics", dataset_root, NULL };
    const char *swap[] = { hs_test_cli (), "metrics", "--perturb", "swap-left-right", dataset_root, NULL };
    g_autofree char *err = NULL;
    int status = 0;

    hs_test_run_ok (demo);
    hs_test_run_ok (broken);
    {
      const char *many[] = { hs_test_cli (), "demo", "--count", "18", "--seed", "3", "--size", "64",
                             "--maps", "simulated", many_root, NULL };

      hs_test_run_ok (many);
    }
    {
      const char *rescore[] = { hs_test_cli (), "demo", "--count", "6", "--seed", "4", "--size", "64",
                                "--maps", "simulated", rescore_root, NULL };

      hs_test_run_ok (rescore);
    }
    g_assert_true (hs_test_run (metrics, &cli_csv, &err, &status));
    g_assert_cmpint (status, ==, 0);
    g_clear_pointer (&err, g_free);
    /* Some swapped prompts have no map: their deltas are empty, still exit 0. */
    g_assert_true (hs_test_run (swap, &cli_swap_csv, &err, &status));
    g_assert_cmpint (status, ==, 0);
  }

  g_test_add_func ("/hs/ui-results/rows-equal-cli", test_rows_equal_cli);
  g_test_add_func ("/hs/ui-results/sort-and-filter", test_sort_and_filter);
  g_test_add_func ("/hs/ui-results/open-row", test_open_row);
  g_test_add_func ("/hs/ui-results/perturbation-and-cache", test_perturbation_and_cache);
  g_test_add_func ("/hs/ui-results/problem-message", test_problem_message);
  g_test_add_func ("/hs/ui-results/check-in-worker", test_check_in_worker);
  g_test_add_func ("/hs/ui-results/many-replaced", test_many_replaced);
  g_test_add_func ("/hs/ui-results/rescore-in-worker", test_rescore_in_worker);
  /* last: it replaces a map of the demo dataset */
  g_test_add_func ("/hs/ui-results/replaced-map", test_replaced_map);
  ret = g_test_run ();
  g_free (dataset_root);
  g_free (broken_root);
  g_free (many_root);
  g_free (rescore_root);
  g_free (cli_csv);
  g_free (cli_swap_csv);
  return ret;
}
