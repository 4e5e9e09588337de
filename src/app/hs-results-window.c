/* hs-results-window.c — the results table window
 *
 * The column view shows an HsResultsModel directly: the model filters and
 * sorts itself (one qsort of keys), so the view's sorter only carries the
 * header state.  GTK 4.8 cannot tell which column that state sorts by, so
 * each column's sorter records its column when the view's sorter compares
 * a probe pair: the first column asked is the primary one, the sign is its
 * direction. */
#include <glib/gi18n.h>
#include <math.h>

#include <heatscope/hs-atomic-file.h>
#include <heatscope/hs-metric-info.h>

#include "hs-results-slot.h"
#include "hs-results-status.h"
#include "hs-results-window.h"

struct _HsResultsWindow
{
  GtkWindow        parent_instance;

  HsWindow        *main;            /* weak */
  HsDataset       *dataset;
  GHashTable      *cache;           /* perturbation + 1 (0 = none) → HsResultsModel */
  HsResultsModel  *model;           /* the one shown, in cache */

  GtkColumnView   *view;
  guint            opened;          /* the row opened last (Enter, click): Add to deck's fallback */
  GtkNoSelection  *selection;       /* none: GtkSingleSelection searches all rows per sort */
  GHashTable      *bound;           /* GtkListItem* → ColumnInfo*: the cells on screen */
  GtkSearchEntry  *search;
  GtkDropDown     *subset_dropdown;
  GtkDropDown     *model_dropdown;
  GtkStringList   *model_names;
  GtkCheckButton  *wrong_side;
  GtkDropDown     *perturb_dropdown;
  GtkScrolledWindow *scrolled;
  GtkProgressBar  *progress;
  GtkLabel        *status;
  GtkFileChooserNative *chooser;

  const char      *probe_name;      /* column the probe compare reached first */
  int              probe_column;
  char            *sort_name;       /* column sorted by, kept across perturbations */
  gboolean         sort_descending;
  gboolean         rebuilding;
};

G_DEFINE_FINAL_TYPE (HsResultsWindow, hs_results_window, GTK_TYPE_WINDOW)

static const HsSubset subset_flags[] = { 0, HS_SUBSET_ABNORMAL, HS_SUBSET_ONE_LUNG, HS_SUBSET_MDRB };

typedef struct {
  HsResultsWindow *self;
  int              column;
  const char      *name;    /* the CSV column's (owned by the view column) */
} ColumnInfo;

/* ---- cells ------------------------------------------------------------------ */

/* Three decimals (the CSV keeps every digit); the 0/1 metrics as 0 or 1;
 * swap_response with what it means. */
static char *
format_value (double value, const char *name)
{
  if (isnan (value))
    return g_strdup (_("n/a"));
  if (g_str_equal (name, "swap_response"))
    return g_strdup_printf ("%.3f · %s", value, hs_swap_verdict_label (hs_swap_verdict (value)));
  if (g_str_equal (name, "wrong_side") || g_str_equal (name, "pointing_hit"))
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.3f", value);
}

static void
setup_cell (GtkSignalListItemFactory *factory, GtkListItem *item, ColumnInfo *info)
{
  GtkWidget *label = gtk_label_new (NULL);

  if (info->column >= HS_RESULTS_COLUMN_SUBSETS)
    gtk_label_set_xalign (GTK_LABEL (label), info->column == HS_RESULTS_COLUMN_SUBSETS ? 0 : 1);
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    }
  gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
show_cell (GtkListItem *item, ColumnInfo *info)
{
  HsResultsRow *row = hs_results_slot_get_row (gtk_list_item_get_item (item));
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  const HsScoreRow *values = hs_results_row_get_values (row);
  g_autofree char *text = NULL;

  switch (info->column)
    {
    case HS_RESULTS_COLUMN_INSTANCE:
      gtk_label_set_text (label, hs_results_row_get_instance (row));
      return;
    case HS_RESULTS_COLUMN_QUERY:
      gtk_label_set_text (label, hs_results_row_get_sentence (row));
      return;
    case HS_RESULTS_COLUMN_MODEL:
      gtk_label_set_text (label, hs_results_row_get_model (row));
      return;
    case HS_RESULTS_COLUMN_SUBSETS:
      text = hs_score_rows_subsets_text (values->subsets);
      break;
    default:
      text = format_value (values->values[info->column - HS_RESULTS_COLUMN_VALUES], info->name);
    }
  gtk_label_set_text (label, text);
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, ColumnInfo *info)
{
  g_hash_table_insert (info->self->bound, item, info);
  show_cell (item, info);
}

static void
unbind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, ColumnInfo *info)
{
  if (info->self->bound != NULL)   /* NULL once the window is disposed */
    g_hash_table_remove (info->self->bound, item);
}

static void update_status (HsResultsWindow *self);
static void on_model_notify (HsResultsModel *model, GParamSpec *pspec, HsResultsWindow *self);

/* After a sort or filter the list view keeps the widgets of each position
 * (its item, the slot, stays): their text is the new row's. */
static void
on_items_changed (HsResultsWindow *self)
{
  GHashTableIter iter;
  gpointer item, info;

  g_hash_table_iter_init (&iter, self->bound);
  while (g_hash_table_iter_next (&iter, &item, &info))
    if (gtk_list_item_get_item (item) != NULL)
      show_cell (item, info);
  update_status (self);
}

/* After a new sort or filter the first rows are the ones asked for. */
static void
scroll_to_top (HsResultsWindow *self)
{
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (self->scrolled), 0);
}

/* ---- sorting ---------------------------------------------------------------- */

static int
probe_compare (gconstpointer a, gconstpointer b, gpointer data)
{
  ColumnInfo *info = data;

  if (info->self->probe_column == HS_RESULTS_COLUMN_NONE)
    {
      info->self->probe_column = info->column;
      info->self->probe_name = info->name;
    }
  return GTK_ORDERING_SMALLER;
}

static void
on_sorter_changed (GtkSorter *sorter, GtkSorterChange change, HsResultsWindow *self)
{
  GtkOrdering order;

  if (self->model == NULL || self->rebuilding)
    return;
  self->probe_column = HS_RESULTS_COLUMN_NONE;
  order = gtk_sorter_compare (sorter, self, self->view);
  if (order == GTK_ORDERING_EQUAL)
    self->probe_column = HS_RESULTS_COLUMN_NONE;
  self->sort_descending = order == GTK_ORDERING_LARGER;
  g_clear_pointer (&self->sort_name, g_free);
  if (self->probe_column != HS_RESULTS_COLUMN_NONE)
    self->sort_name = g_strdup (self->probe_name);
  hs_results_model_set_sort (self->model, self->probe_column, self->sort_descending);
  scroll_to_top (self);
}

/* ---- columns ---------------------------------------------------------------- */

static void
add_column (HsResultsWindow *self, int index, const char *name, const char *title)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  ColumnInfo *info = g_new (ColumnInfo, 1);
  ColumnInfo *sorter_info = g_new (ColumnInfo, 1);
  GtkColumnViewColumn *column;
  GtkSorter *sorter;

  column = gtk_column_view_column_new (title, factory);
  g_object_set_data_full (G_OBJECT (column), "hs-name", g_strdup (name), g_free);
  *info = (ColumnInfo) { self, index, g_object_get_data (G_OBJECT (column), "hs-name") };
  *sorter_info = *info;
  g_object_set_data_full (G_OBJECT (factory), "hs-column", info, g_free);
  g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), info);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), info);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_cell), info);
  sorter = GTK_SORTER (gtk_custom_sorter_new (probe_compare, sorter_info, g_free));
  gtk_column_view_column_set_sorter (column, sorter);
  g_object_unref (sorter);
  gtk_column_view_column_set_resizable (column, TRUE);
  if (index == HS_RESULTS_COLUMN_INSTANCE)
    gtk_column_view_column_set_fixed_width (column, 150);
  else if (index == HS_RESULTS_COLUMN_QUERY)
    gtk_column_view_column_set_fixed_width (column, 70);
  else if (index >= HS_RESULTS_COLUMN_VALUES)
    gtk_column_view_column_set_fixed_width (column, g_str_equal (name, "swap_response") ? 240 : 96);
  gtk_column_view_append_column (self->view, column);
  g_object_unref (column);
}

static GtkColumnViewColumn *
find_column (HsResultsWindow *self, const char *name)
{
  GListModel *columns = gtk_column_view_get_columns (self->view);

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (g_object_get_data (G_OBJECT (column), "hs-name"), name) == 0)
        return column;   /* the view keeps it alive */
    }
  return NULL;
}

/* ---- header tooltips --------------------------------------------------------- */

/* The tooltip of a column named `name`: the metric's definition, range and
 * direction from the library's table (a delta_ column says it is the
 * change); NULL for the columns that are not numbers of the table. */
static char *
column_tooltip (const char *name)
{
  const HsMetricInfo *info = hs_metric_info_lookup (name);
  g_autofree char *definition = NULL;

  if (info == NULL)
    return NULL;
  definition = hs_metric_info_tooltip (info);
  if (g_str_has_prefix (name, "delta_"))
    /* TRANSLATORS: the first line of a results column's tooltip, e.g. for delta_auroc */
    return g_strdup_printf (_("Δ %s: perturbed − original, against the original target\n%s"),
                            info->name, definition);
  return g_steal_pointer (&definition);
}

/* The first label under `widget` (a header's title). */
static GtkLabel *
first_label (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget))
    return GTK_LABEL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *label = first_label (child);
      if (label)
        return label;
    }
  return NULL;
}

/* GTK 4.8 has no API for a column header's widget or tooltip (no header
 * factory per column): each header is a GtkColumnViewTitle in the view's
 * header row, created when its column is added, with the column's title as
 * its label.  Each gets its column's definition as its own tooltip, found
 * by that title (unique: the column names), so hovering the header of
 * "auroc" tells what AUROC is. */
static void
set_header_tooltips (GtkWidget *widget, GHashTable *tooltips)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      if (g_str_equal (G_OBJECT_TYPE_NAME (child), "GtkColumnViewTitle"))
        {
          GtkLabel *label = first_label (child);
          const char *tip = label ? g_hash_table_lookup (tooltips, gtk_label_get_text (label)) : NULL;

          gtk_widget_set_tooltip_text (child, tip);
        }
      else if (!GTK_IS_LIST_VIEW (child) && !g_str_equal (G_OBJECT_TYPE_NAME (child), "GtkColumnListView"))
        set_header_tooltips (child, tooltips);
    }
}

static void
update_header_tooltips (HsResultsWindow *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->view);
  g_autoptr(GHashTable) tooltips = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
      char *tip = column_tooltip (g_object_get_data (G_OBJECT (column), "hs-name"));

      if (tip)
        g_hash_table_insert (tooltips, g_strdup (gtk_column_view_column_get_title (column)), tip);
    }
  set_header_tooltips (GTK_WIDGET (self->view), tooltips);
}

/* One column per CSV column of the shown model; the sort carries over by name. */
static void
rebuild_columns (HsResultsWindow *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->view);
  const HsScoreRowsJob *job = hs_results_model_get_job (self->model);
  static const char * const fixed[] = { "instance", "query", "model", "subsets" };
  GtkColumnViewColumn *sorted;

  self->rebuilding = TRUE;
  while (g_list_model_get_n_items (columns) > 0)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, 0);
      gtk_column_view_remove_column (self->view, column);
    }
  add_column (self, HS_RESULTS_COLUMN_INSTANCE, fixed[0], _("Instance"));
  add_column (self, HS_RESULTS_COLUMN_QUERY, fixed[1], _("Sentence"));
  add_column (self, HS_RESULTS_COLUMN_MODEL, fixed[2], _("Model"));
  add_column (self, HS_RESULTS_COLUMN_SUBSETS, fixed[3], _("Subsets"));
  /* A perturbation's summary (swap_response, sym_kl: the last columns of
   * the CSV before any tag columns) first, where it is seen without
   * scrolling; then the metrics and their deltas in the CSV's order; the
   * tag columns last, as in the CSV.  Computed apart so that no count can
   * wrap below zero: without a perturbation the metrics alone come before
   * the tag columns. */
  guint n_base = job->n_columns - job->n_tag_columns;
  guint n_summary = n_base > 2 * job->n_metrics ? n_base - 2 * job->n_metrics : 0;
  for (guint i = 0; i < job->n_columns; i++)
    {
      guint k = i < n_summary ? n_base - 1 - i : i < n_base ? i - n_summary : i;
      g_autofree char *name = hs_score_rows_column_name (job, k);

      add_column (self, HS_RESULTS_COLUMN_VALUES + (int) k, name, name);
    }
  update_header_tooltips (self);
  self->rebuilding = FALSE;
  sorted = self->sort_name != NULL ? find_column (self, self->sort_name) : NULL;
  gtk_column_view_sort_by_column (self->view, sorted,
                                  self->sort_descending ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING);
  if (sorted == NULL)
    hs_results_model_set_sort (self->model, HS_RESULTS_COLUMN_NONE, FALSE);
}

/* ---- status and filters ----------------------------------------------------- */

static void
update_status (HsResultsWindow *self)
{
  g_autofree char *text = NULL;

  if (self->model == NULL)
    {
      gtk_label_set_text (self->status, _("No dataset"));
      gtk_widget_set_visible (GTK_WIDGET (self->progress), FALSE);
      return;
    }
  text = hs_results_status_text (self->model);
  gtk_label_set_text (self->status, text);
  gtk_progress_bar_set_fraction (self->progress, hs_results_model_get_progress (self->model));
  gtk_widget_set_visible (GTK_WIDGET (self->progress), !hs_results_model_get_complete (self->model) &&
                                                       !hs_results_model_get_checking (self->model));
}

static void
apply_filter (HsResultsWindow *self)
{
  guint subset = gtk_drop_down_get_selected (self->subset_dropdown);
  guint model = gtk_drop_down_get_selected (self->model_dropdown);

  if (self->model == NULL)
    return;
  hs_results_model_set_filter (self->model,
                               subset < G_N_ELEMENTS (subset_flags) ? subset_flags[subset] : 0,
                               model > 0 && model != GTK_INVALID_LIST_POSITION
                                 ? gtk_string_list_get_string (self->model_names, model) : NULL,
                               gtk_check_button_get_active (self->wrong_side),
                               gtk_editable_get_text (GTK_EDITABLE (self->search)));
  scroll_to_top (self);
  update_status (self);
}

static void
on_filter_changed (HsResultsWindow *self)
{
  apply_filter (self);
}

/* `model` (cached), checked in a worker so that the rows of files changed
 * on disk since they were scored (attend --force) are scored again, or NULL
 * when dropped (`drop`, or it must be scored from the start).  The check
 * stats every file of the dataset: 57 ms for 12,239 (docs/reliability.md). */
static HsResultsModel *
drop_or_refresh (HsResultsWindow *self, HsResultsModel *model, gboolean drop)
{
  GHashTableIter iter;
  gpointer cached;

  if (model == NULL || (!drop && hs_results_model_refresh (model)))
    return model;
  hs_results_model_cancel (model, FALSE);
  if (self->model == model)
    self->model = NULL;
  g_hash_table_iter_init (&iter, self->cache);
  while (g_hash_table_iter_next (&iter, NULL, &cached))
    if (cached == model)
      g_hash_table_iter_remove (&iter);
  return NULL;
}

/* Shows the cached model of the chosen perturbation, scoring it the first time. */
static void
show_model (HsResultsWindow *self)
{
  guint choice = gtk_drop_down_get_selected (self->perturb_dropdown);
  gboolean perturbed = choice > 0 && choice != GTK_INVALID_LIST_POSITION;
  gpointer key = GUINT_TO_POINTER (perturbed ? choice : 0);
  HsResultsModel *model;

  if (self->dataset == NULL)
    {
      self->model = NULL;
      gtk_no_selection_set_model (self->selection, NULL);
      update_status (self);
      return;
    }
  /* One scoring thread at a time: a table left unfinished is dropped (and
   * scored again when chosen again); a finished one stays cached. */
  if (self->model != NULL && !hs_results_model_get_complete (self->model) &&
      !hs_results_model_get_checking (self->model))
    drop_or_refresh (self, self->model, TRUE);
  model = drop_or_refresh (self, g_hash_table_lookup (self->cache, key), FALSE);
  if (model == NULL)
    {
      model = hs_results_model_new (self->dataset, perturbed,
                                    perturbed ? (HsPerturbation) (choice - 1) : 0);
      g_signal_connect_object (model, "notify::progress", G_CALLBACK (on_model_notify), self, 0);
      g_signal_connect_object (model, "notify::complete", G_CALLBACK (on_model_notify), self, 0);
      /* After the list view's own handler (through the selection model). */
      g_signal_connect_object (model, "items-changed", G_CALLBACK (on_items_changed), self,
                               G_CONNECT_SWAPPED | G_CONNECT_AFTER);
      g_hash_table_insert (self->cache, key, model);
    }
  /* No rows while the columns change: old rows may have fewer values. */
  gtk_no_selection_set_model (self->selection, NULL);
  self->model = model;
  rebuild_columns (self);
  apply_filter (self);
  gtk_no_selection_set_model (self->selection, G_LIST_MODEL (model));
  if (gtk_widget_get_visible (GTK_WIDGET (self)))
    hs_results_model_start (model);
  update_status (self);
}

static void
on_model_notify (HsResultsModel *model, GParamSpec *pspec, HsResultsWindow *self)
{
  gboolean shown = model == self->model;

  if (hs_results_model_get_stale (model))   /* its check found too many files changed */
    drop_or_refresh (self, model, TRUE);
  if (shown && self->model == NULL)
    show_model (self);   /* scored again from the start */
  else if (shown)
    update_status (self);
}

static void
drop_cache (HsResultsWindow *self, gboolean wait)
{
  GHashTableIter iter;
  gpointer model;

  g_hash_table_iter_init (&iter, self->cache);
  while (g_hash_table_iter_next (&iter, NULL, &model))
    hs_results_model_cancel (model, wait);
  gtk_no_selection_set_model (self->selection, NULL);
  self->model = NULL;
  g_hash_table_remove_all (self->cache);
}

void
hs_results_window_set_dataset (HsResultsWindow *self,
                               HsDataset       *dataset)
{
  g_auto(GStrv) models = NULL;

  g_return_if_fail (HS_IS_RESULTS_WINDOW (self));

  if (dataset == self->dataset)
    return;
  drop_cache (self, FALSE);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  if (dataset != NULL)
    self->dataset = hs_dataset_ref (dataset);

  /* The model filter lists the dataset's models after "All models". */
  models = dataset != NULL ? hs_dataset_list_models (dataset) : NULL;
  gtk_string_list_splice (self->model_names, 1,
                          g_list_model_get_n_items (G_LIST_MODEL (self->model_names)) - 1,
                          (const char * const *) models);
  gtk_drop_down_set_selected (self->model_dropdown, 0);
  show_model (self);
}

static void
on_perturbation_changed (HsResultsWindow *self)
{
  show_model (self);
}

/* ---- actions ---------------------------------------------------------------- */

gboolean
hs_results_window_open_row (HsResultsWindow *self,
                            guint            position)
{
  HsResultsRow *row;
  HsPromptPanel *prompt;

  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), FALSE);

  row = self->model != NULL ? hs_results_model_get_row (self->model, position) : NULL;
  if (row == NULL || self->main == NULL || hs_window_get_dataset (self->main) != self->dataset)
    return FALSE;
  if (!hs_window_select_instance (self->main, hs_results_row_get_instance (row)))
    return FALSE;
  prompt = hs_window_get_prompt_panel (self->main);
  if (!hs_prompt_panel_select_sentence (prompt, hs_results_row_get_sentence (row)) ||
      !hs_window_select_model (self->main, hs_results_row_get_model (row)))
    return FALSE;
  gtk_window_present (GTK_WINDOW (self->main));
  return TRUE;
}

static void
on_activate (GtkColumnView *view, guint position, HsResultsWindow *self)
{
  self->opened = position;
  hs_results_window_open_row (self, position);
}

gboolean
hs_results_window_add_row_to_deck (HsResultsWindow *self,
                                   guint            position)
{
  HsResultsRow *row;

  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), FALSE);

  row = self->model != NULL ? hs_results_model_get_row (self->model, position) : NULL;
  if (row == NULL || self->main == NULL || hs_window_get_dataset (self->main) != self->dataset)
    return FALSE;
  return hs_window_deck_add_row (self->main, hs_results_row_get_instance (row),
                                 hs_results_row_get_sentence (row), hs_results_row_get_model (row));
}

guint
hs_results_window_get_focused_row (HsResultsWindow *self)
{
  GtkWidget *focus;
  GHashTableIter iter;
  gpointer key;
  guint found = G_MAXUINT;

  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), G_MAXUINT);

  /* The table has no selection (GtkNoSelection: a selection model would
   * search every row per sort): the row the keyboard is on is the one whose
   * cells sit inside the focus widget. */
  focus = gtk_root_get_focus (GTK_ROOT (self));
  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->view)))
    return G_MAXUINT;
  g_hash_table_iter_init (&iter, self->bound);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      GtkWidget *child = gtk_list_item_get_child (key);
      guint position;

      if (child == NULL || (child != focus && !gtk_widget_is_ancestor (child, focus)))
        continue;
      position = gtk_list_item_get_position (key);
      /* Cells of several rows inside it: the focus is on the list, not a row. */
      if (found != G_MAXUINT && found != position)
        return G_MAXUINT;
      found = position;
    }
  return found;
}

/* results.deck-add (Ctrl+Shift+A): the row the keyboard is on, else the
 * row opened last. */
static void
deck_add_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsResultsWindow *self = HS_RESULTS_WINDOW (widget);
  guint position = hs_results_window_get_focused_row (self);

  if (position == G_MAXUINT)
    position = self->opened;
  if (position != G_MAXUINT)
    hs_results_window_add_row_to_deck (self, position);
}

gboolean
hs_results_window_export_csv (HsResultsWindow *self,
                              const char      *path,
                              GError         **error)
{
  g_autofree char *csv = NULL;

  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), FALSE);

  if (self->model == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("%s: no rows to export"), path);
      return FALSE;
    }
  csv = hs_results_model_to_csv (self->model);
  return hs_atomic_write (path, csv, strlen (csv), error);
}

static void
on_export_response (GtkNativeDialog *dialog, int response, HsResultsWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      g_autoptr(GError) error = NULL;

      if (path == NULL)
        gtk_label_set_text (self->status, _("Only local files can be written"));
      else if (!hs_results_window_export_csv (self, path, &error))
        gtk_label_set_text (self->status, error->message);
      else
        {
          g_autofree char *done = g_strdup_printf (_("Exported %s"), path);
          gtk_label_set_text (self->status, done);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->chooser);
}

static void
export_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsResultsWindow *self = HS_RESULTS_WINDOW (widget);

  if (self->chooser != NULL || self->model == NULL)
    return;
  self->chooser = gtk_file_chooser_native_new (_("Export Visible Rows"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                                               _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), "results.csv");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
search_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  gtk_widget_grab_focus (GTK_WIDGET (HS_RESULTS_WINDOW (widget)->search));
}

/* ---- setters for tests and callers ------------------------------------------ */

void
hs_results_window_set_search (HsResultsWindow *self, const char *text)
{
  g_return_if_fail (HS_IS_RESULTS_WINDOW (self));
  gtk_editable_set_text (GTK_EDITABLE (self->search), text != NULL ? text : "");
  /* The entry reports after its delay; the table follows at once. */
  apply_filter (self);
}

static gboolean
select_string (GtkDropDown *dropdown, GListModel *strings, guint first, const char *wanted,
               const char * (*name) (GListModel *, guint))
{
  if (wanted == NULL || *wanted == '\0')
    {
      gtk_drop_down_set_selected (dropdown, 0);
      return TRUE;
    }
  for (guint i = first; i < g_list_model_get_n_items (strings); i++)
    if (g_strcmp0 (name (strings, i), wanted) == 0)
      {
        gtk_drop_down_set_selected (dropdown, i);
        return TRUE;
      }
  return FALSE;
}

static const char *
subset_name (GListModel *strings, guint i)
{
  return i < G_N_ELEMENTS (subset_flags) ? hs_subset_to_string (subset_flags[i]) : NULL;
}

static const char *
model_name (GListModel *strings, guint i)
{
  return gtk_string_list_get_string (GTK_STRING_LIST (strings), i);
}

static const char *
perturbation_name (GListModel *strings, guint i)
{
  return i > 0 ? hs_perturbation_to_string ((HsPerturbation) (i - 1)) : NULL;
}

gboolean
hs_results_window_set_subset (HsResultsWindow *self, const char *subset)
{
  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), FALSE);
  return select_string (self->subset_dropdown, gtk_drop_down_get_model (self->subset_dropdown), 1,
                        g_strcmp0 (subset, "all") == 0 ? NULL : subset, subset_name);
}

gboolean
hs_results_window_set_model_filter (HsResultsWindow *self, const char *model)
{
  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), FALSE);
  return select_string (self->model_dropdown, G_LIST_MODEL (self->model_names), 1, model,
                        model_name);
}

void
hs_results_window_set_wrong_side (HsResultsWindow *self, gboolean wrong_side)
{
  g_return_if_fail (HS_IS_RESULTS_WINDOW (self));
  gtk_check_button_set_active (self->wrong_side, wrong_side);
}

gboolean
hs_results_window_set_perturbation (HsResultsWindow *self, const char *perturbation)
{
  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), FALSE);
  return select_string (self->perturb_dropdown, gtk_drop_down_get_model (self->perturb_dropdown),
                        1, perturbation, perturbation_name);
}

gboolean
hs_results_window_sort_by (HsResultsWindow *self, const char *name, gboolean descending)
{
  GtkColumnViewColumn *column;

  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), FALSE);

  column = find_column (self, name);
  if (column == NULL)
    return FALSE;
  gtk_column_view_sort_by_column (self->view, column,
                                  descending ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING);
  return TRUE;
}

HsResultsModel *
hs_results_window_get_model (HsResultsWindow *self)
{
  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), NULL);
  return self->model;
}

GtkColumnView *
hs_results_window_get_view (HsResultsWindow *self)
{
  g_return_val_if_fail (HS_IS_RESULTS_WINDOW (self), NULL);
  return self->view;
}

/* ---- object ----------------------------------------------------------------- */

static void
on_show (HsResultsWindow *self)
{
  /* Shown again: rows of files changed meanwhile are scored again. */
  if (self->model != NULL && drop_or_refresh (self, self->model, FALSE) == NULL)
    show_model (self);
  if (self->model != NULL)
    hs_results_model_start (self->model);
}

static GtkWidget *
labelled_dropdown (const char * const *strings, const char *tooltip)
{
  GtkWidget *dropdown = gtk_drop_down_new_from_strings (strings);

  gtk_widget_set_tooltip_text (dropdown, tooltip);
  return dropdown;
}

static void
build_bar (HsResultsWindow *self, GtkBox *box)
{
  const char *subsets[] = { _("All subsets"), _("Abnormal"), _("One Lung"), _("MDRB"), NULL };
  const char *perturbations[] = {
    _("No perturbation"),
    g_dpgettext2 (NULL, "perturbation", "Swap left/right"),
    g_dpgettext2 (NULL, "perturbation", "Shuffle in report"),
    g_dpgettext2 (NULL, "perturbation", "Random sentence"),
    g_dpgettext2 (NULL, "perturbation", "Random boxes"),
    g_dpgettext2 (NULL, "perturbation", "Synthetic swapped condition"),
    NULL
  };
  const char *all_models[] = { _("All models"), NULL };
  GtkWidget *button;

  G_STATIC_ASSERT (G_N_ELEMENTS (perturbations) == HS_N_PERTURBATIONS + 2);
  self->search = GTK_SEARCH_ENTRY (gtk_search_entry_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (self->search), TRUE);
  g_object_set (self->search, "placeholder-text", _("Instance, sentence or model"), NULL);
  g_signal_connect_swapped (self->search, "search-changed", G_CALLBACK (on_filter_changed), self);
  gtk_box_append (box, GTK_WIDGET (self->search));

  self->subset_dropdown = GTK_DROP_DOWN (labelled_dropdown (subsets, _("Only rows of this subset")));
  g_signal_connect_swapped (self->subset_dropdown, "notify::selected", G_CALLBACK (on_filter_changed), self);
  gtk_box_append (box, GTK_WIDGET (self->subset_dropdown));

  self->model_names = gtk_string_list_new (all_models);
  self->model_dropdown = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (g_object_ref (self->model_names)), NULL));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->model_dropdown), _("Only rows of this model"));
  g_signal_connect_swapped (self->model_dropdown, "notify::selected", G_CALLBACK (on_filter_changed), self);
  gtk_box_append (box, GTK_WIDGET (self->model_dropdown));

  self->wrong_side = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_("_Wrong side")));
  {
    /* the filter, then what wrong_side is (the library's table) */
    g_autofree char *definition = hs_metric_info_tooltip (hs_metric_info_lookup ("wrong_side"));
    g_autofree char *tip = g_strdup_printf ("%s\n\nwrong_side: %s",
                                            _("Only maps whose mass lies on the other side than their target (wrong_side = 1)"),
                                            definition);

    gtk_widget_set_tooltip_text (GTK_WIDGET (self->wrong_side), tip);
  }
  g_signal_connect_swapped (self->wrong_side, "toggled", G_CALLBACK (on_filter_changed), self);
  gtk_box_append (box, GTK_WIDGET (self->wrong_side));

  self->perturb_dropdown = GTK_DROP_DOWN (labelled_dropdown (perturbations,
                                          _("Add the deltas of a perturbation (McInerney et al. §3.1)")));
  g_signal_connect_swapped (self->perturb_dropdown, "notify::selected", G_CALLBACK (on_perturbation_changed), self);
  gtk_box_append (box, GTK_WIDGET (self->perturb_dropdown));

  button = gtk_button_new_with_mnemonic (_("_Export CSV…"));
  gtk_widget_set_tooltip_text (button, _("Write the visible rows, in this order, as the metrics CSV"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "results.export");
  gtk_box_append (box, button);
}

static void
hs_results_window_init (HsResultsWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->cache = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  self->probe_column = HS_RESULTS_COLUMN_NONE;
  /* Ctrl+Shift+A before the table sees it: a focused row's list would
   * take it as its own "unselect all" (GtkListBase) and nothing be added. */
  {
    GtkEventController *controller = gtk_shortcut_controller_new ();

    gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_a, GDK_CONTROL_MASK | GDK_SHIFT_MASK),
                                                            gtk_named_action_new ("results.deck-add")));
    gtk_widget_add_controller (GTK_WIDGET (self), controller);
  }
  gtk_window_set_title (GTK_WINDOW (self), _("Results"));
  gtk_window_set_default_size (GTK_WINDOW (self), 1280, 720);
  gtk_window_set_hide_on_close (GTK_WINDOW (self), TRUE);

  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  build_bar (self, GTK_BOX (bar));
  gtk_box_append (GTK_BOX (box), bar);

  self->opened = G_MAXUINT;
  self->selection = gtk_no_selection_new (NULL);
  self->bound = g_hash_table_new (NULL, NULL);
  self->view = GTK_COLUMN_VIEW (gtk_column_view_new (GTK_SELECTION_MODEL (g_object_ref (self->selection))));
  gtk_column_view_set_show_column_separators (self->view, TRUE);
  gtk_column_view_set_single_click_activate (self->view, TRUE);
  gtk_column_view_set_reorderable (self->view, FALSE);
  g_signal_connect (self->view, "activate", G_CALLBACK (on_activate), self);
  g_signal_connect (gtk_column_view_get_sorter (self->view), "changed",
                    G_CALLBACK (on_sorter_changed), self);
  self->scrolled = GTK_SCROLLED_WINDOW (scrolled);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->view));
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), scrolled);

  self->progress = GTK_PROGRESS_BAR (gtk_progress_bar_new ());
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->progress));
  self->status = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->status, 0);
  gtk_label_set_ellipsize (self->status, PANGO_ELLIPSIZE_END);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->status));
  gtk_window_set_child (GTK_WINDOW (self), box);
  g_signal_connect (self, "show", G_CALLBACK (on_show), NULL);
  update_status (self);
}

static void
hs_results_window_dispose (GObject *object)
{
  HsResultsWindow *self = HS_RESULTS_WINDOW (object);

  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
  /* Scoring threads read the dataset: none may outlive the window (the
   * program may exit right after). */
  if (self->cache != NULL)
    drop_cache (self, TRUE);
  g_clear_pointer (&self->cache, g_hash_table_unref);
  g_clear_object (&self->selection);
  g_clear_pointer (&self->bound, g_hash_table_unref);
  g_clear_object (&self->model_names);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  g_clear_pointer (&self->sort_name, g_free);
  if (self->main != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->main), (gpointer *) &self->main);
  self->main = NULL;
  G_OBJECT_CLASS (hs_results_window_parent_class)->dispose (object);
}

static void
hs_results_window_class_init (HsResultsWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = hs_results_window_dispose;
  gtk_widget_class_install_action (widget_class, "results.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "results.search", NULL, search_action);
  gtk_widget_class_install_action (widget_class, "results.deck-add", NULL, deck_add_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "results.export", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "results.search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

HsResultsWindow *
hs_results_window_new (HsWindow *main)
{
  HsResultsWindow *self = g_object_new (HS_TYPE_RESULTS_WINDOW, NULL);

  if (main != NULL)
    {
      self->main = main;
      g_object_add_weak_pointer (G_OBJECT (main), (gpointer *) &self->main);
      gtk_window_set_transient_for (GTK_WINDOW (self), GTK_WINDOW (main));
      gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);
      gtk_window_set_application (GTK_WINDOW (self), gtk_window_get_application (GTK_WINDOW (main)));
      hs_results_window_set_dataset (self, hs_window_get_dataset (main));
    }
  return self;
}
