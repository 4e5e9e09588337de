/* hs-instance-browser.c — the searchable, filterable list of instances */
#include <glib/gi18n.h>

#include "hs-instance-browser-private.h"

enum {
  PROP_0,
  PROP_FILTER_ABNORMAL,
  PROP_FILTER_ONE_LUNG,
  PROP_FILTER_MDRB,
  PROP_FILTER_ANNOTATED,
  PROP_FILTER_WRONG_SIDE,
  PROP_BUSY,
  PROP_LOADING,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_INSTANCE_SELECTED,
  SIGNAL_LOAD_FAILED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HsInstanceBrowser, hs_instance_browser, GTK_TYPE_WIDGET)


static void refilter (HsInstanceBrowser *self);
static void ensure_wrong_side (HsInstanceBrowser *self);
static void on_selection_changed (GObject *object, GParamSpec *pspec, HsInstanceBrowser *self);
static guint find_position (HsInstanceBrowser *self, guint index);

static void
cancel_wrong_side (HsInstanceBrowser *self)
{
  g_cancellable_cancel (self->wrong_side_cancellable);
  g_clear_object (&self->wrong_side_cancellable);
  g_clear_pointer (&self->wrong_side, hs_wrong_side_result_free);
}

static void
wrong_side_done (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  HsWrongSideResult *scan = hs_wrong_side_scan_finish (result, NULL);
  HsInstanceBrowser **slot = user_data;   /* weak: the browser may be gone */
  HsInstanceBrowser *self = *slot;

  if (self != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self), (gpointer *) slot);
  g_free (slot);
  if (scan == NULL || self == NULL)
    {
      hs_wrong_side_result_free (scan);
      return;
    }
  g_clear_object (&self->wrong_side_cancellable);
  hs_wrong_side_result_free (self->wrong_side);
  self->wrong_side = scan;
  refilter (self);
}

/* Starts the scan when the filter is on and nothing is known yet. */
static void
ensure_wrong_side (HsInstanceBrowser *self)
{
  HsInstanceBrowser **slot;

  if (!self->filter_wrong_side || self->dataset == NULL || self->model == NULL ||
      self->wrong_side != NULL || self->wrong_side_cancellable != NULL ||
      self->load_cancellable != NULL)
    return;
  self->wrong_side_cancellable = g_cancellable_new ();
  slot = g_new (HsInstanceBrowser *, 1);
  *slot = self;
  g_object_add_weak_pointer (G_OBJECT (self), (gpointer *) slot);
  hs_wrong_side_scan_async (self->dataset, self->model, self->wrong_side_cancellable,
                            wrong_side_done, slot);
}

/* The filters that apply now: subset filters once the worker computed the
 * subsets, "Wrong side" once its scan is done (until then they show
 * everything). */
static void
get_filter (HsInstanceBrowser *self, HsInstanceFilter *filter)
{
  filter->subsets = self->subsets_ready ? hs_instance_browser_get_subsets (self) : 0;
  filter->annotated = self->filter_annotated;
  filter->wrong_side = self->filter_wrong_side ? self->wrong_side : NULL;
  filter->folded_search = self->folded_search;
}

static gboolean
filter_func (gpointer item, gpointer user_data)
{
  HsInstanceFilter filter;

  get_filter (user_data, &filter);
  return hs_instance_item_match (item, &filter) != HS_INSTANCE_ITEM_NO_MATCH;
}

static void
set_busy (HsInstanceBrowser *self,
          gboolean           busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
subsets_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  GPtrArray *items = task_data;

  for (guint i = 0; i < items->len; i++)
    {
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_task_return_boolean (task, FALSE);
          return;
        }
      hs_instance_item_get_subsets (g_ptr_array_index (items, i));
    }
  g_task_return_boolean (task, TRUE);
}

static void
subsets_done (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  HsInstanceBrowser *self = HS_INSTANCE_BROWSER (object);
  GTask *task = G_TASK (result);

  if (g_task_get_cancellable (task) != self->subsets_cancellable ||
      !g_task_propagate_boolean (task, NULL))
    return;
  g_clear_object (&self->subsets_cancellable);
  self->subsets_ready = TRUE;
  set_busy (self, FALSE);
  refilter (self);
}

static void
ensure_subsets (HsInstanceBrowser *self)
{
  g_autoptr(GTask) task = NULL;
  GPtrArray *items;
  guint n;

  if (self->subsets_ready || self->subsets_cancellable != NULL || self->dataset == NULL)
    return;
  /* Computed once over the whole dataset: "Finding the subsets…" until
   * it is read. */
  if (self->load_cancellable != NULL)
    {
      set_busy (self, TRUE);
      return;
    }

  n = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  items = g_ptr_array_new_full (n, g_object_unref);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, g_list_model_get_item (G_LIST_MODEL (self->store), i));

  self->subsets_cancellable = g_cancellable_new ();
  set_busy (self, TRUE);
  task = g_task_new (self, self->subsets_cancellable, subsets_done, NULL);
  g_task_set_source_tag (task, ensure_subsets);
  g_task_set_task_data (task, items, (GDestroyNotify) g_ptr_array_unref);
  g_task_run_in_thread (task, subsets_thread);
}

static void
cancel_subsets (HsInstanceBrowser *self)
{
  g_cancellable_cancel (self->subsets_cancellable);
  g_clear_object (&self->subsets_cancellable);
  self->subsets_ready = FALSE;
  set_busy (self, FALSE);
}

static void
update_count (HsInstanceBrowser *self)
{
  guint total = self->store != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->store)) : 0;
  guint shown = hs_instance_browser_get_n_shown (self);
  g_autofree char *text = NULL;

  if (self->busy && hs_instance_browser_get_subsets (self) != 0)
    text = g_strdup (_("Finding the subsets…"));
  else if (shown == total && self->load_cancellable != NULL)
    text = g_strdup_printf (ngettext ("%u instance read so far…", "%u instances read so far…", total),
                            total);
  else if (shown == total)
    text = g_strdup_printf (ngettext ("%u instance", "%u instances", total), total);
  else
    /* Translators: shown / total instances in the browser */
    text = g_strdup_printf (_("%u of %u instances"), shown, total);
  gtk_label_set_text (self->count_label, text);
}

static void
set_notice (HsInstanceBrowser *self, const char *text)
{
  /* Not wrapped (a wrapping label here upsets the window's paned in GTK
   * 4.8): the texts carry their line break; the tooltip has it whole. */
  gtk_label_set_text (self->notice_label, text != NULL ? text : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->notice_label), text);
  gtk_widget_set_visible (GTK_WIDGET (self->notice_label), text != NULL);
}

/* A change of the search or the filters keeps the instance on screen while
 * it is listed: after a search that matched nothing the list's selection
 * would otherwise come back as its first row, and the window would jump to
 * instance 0 and lose its custom prompt.  Only when the instance is
 * filtered out does the selection move on to what is listed. */
static void
keep_current (HsInstanceBrowser *self)
{
  if (self->last_emitted != G_MAXUINT && hs_instance_browser_get_selected (self) != self->last_emitted)
    {
      guint pos = find_position (self, self->last_emitted);

      if (pos != GTK_INVALID_LIST_POSITION)
        {
          gtk_single_selection_set_selected (self->selection, pos);
          gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", pos);
          return;
        }
    }
  on_selection_changed (NULL, NULL, self);
}

static gboolean
any_filter_on (HsInstanceBrowser *self)
{
  return hs_instance_browser_get_subsets (self) != 0 || self->filter_annotated || self->filter_wrong_side ||
         (self->folded_search != NULL && *self->folded_search != '\0');
}

/* The search and filters of the dataset before never leave a new one's list
 * empty: once they apply to all of it (read whole, subsets computed, the
 * wrong-side scan done), they are cleared when they match nothing, and the
 * browser says which it did. */
static void
check_carried_filters (HsInstanceBrowser *self)
{
  guint total;

  if (!self->check_carried || self->dataset == NULL)
    return;
  if (!any_filter_on (self))
    {
      self->check_carried = FALSE;
      return;
    }
  if (self->load_cancellable != NULL ||
      (hs_instance_browser_get_subsets (self) != 0 && !self->subsets_ready) ||
      (self->filter_wrong_side && self->model != NULL && self->wrong_side == NULL))
    return;
  self->check_carried = FALSE;
  total = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  if (total > 0 && hs_instance_browser_get_n_shown (self) == 0)
    {
      self->resetting = TRUE;
      g_object_freeze_notify (G_OBJECT (self));
      hs_instance_browser_set_subsets (self, 0);
      g_object_set (self, "filter-annotated", FALSE, "filter-wrong-side", FALSE, NULL);
      hs_instance_browser_set_search_text (self, "");
      g_object_thaw_notify (G_OBJECT (self));
      self->resetting = FALSE;
      set_notice (self, _("Search and filters cleared:\nthey matched nothing in this dataset"));
    }
  else if (self->carried_from_other)
    set_notice (self, _("Search and filters kept\nfrom the dataset before"));
}

static void
refilter (HsInstanceBrowser *self)
{
  gboolean filtering;

  if (hs_instance_browser_get_subsets (self) != 0)
    ensure_subsets (self);
  /* With no filter on, the filter matches everything without looking at
   * the rows (GTK_FILTER_MATCH_ALL), so no row object is made. */
  filtering = hs_instance_browser_get_subsets (self) != 0 || self->filter_annotated ||
              (self->filter_wrong_side && self->wrong_side != NULL) ||
              (self->folded_search != NULL && *self->folded_search != '\0');
  self->refiltering = TRUE;
  if (filtering != self->filtering)
    {
      self->filtering = filtering;
      gtk_custom_filter_set_filter_func (self->filter, filtering ? filter_func : NULL,
                                         filtering ? self : NULL, NULL);
    }
  else if (filtering)
    gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  self->refiltering = FALSE;
  keep_current (self);
  update_count (self);
  check_carried_filters (self);
}

/* ---- reading the rest of the dataset ------------------------------------ */

#define LOAD_BATCH        256
#define GROW_INTERVAL_MS  400

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  HsDataset *dataset = task_data;
  GError *error = NULL;

  while (!hs_dataset_is_complete (dataset))
    {
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_task_return_boolean (task, FALSE);
          return;
        }
      if (!hs_dataset_load_more (dataset, LOAD_BATCH, &error))
        {
          g_task_return_error (task, error);
          return;
        }
    }
  g_task_return_boolean (task, TRUE);
}

static gboolean
grow_tick (gpointer user_data)
{
  HsInstanceBrowser *self = user_data;

  /* Added rows go through the filter model by themselves. */
  if (hs_instance_list_grow (self->store))
    update_count (self);
  return G_SOURCE_CONTINUE;
}

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  HsInstanceBrowser *self = HS_INSTANCE_BROWSER (object);
  GTask *task = G_TASK (result);
  g_autoptr(GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (task, &error);

  /* Superseded by another dataset, or the browser is going away. */
  if (g_task_get_cancellable (task) != self->load_cancellable)
    return;
  g_clear_object (&self->load_cancellable);
  g_clear_handle_id (&self->grow_timeout, g_source_remove);
  hs_instance_list_grow (self->store);
  if (!ok && error != NULL)
    g_signal_emit (self, signals[SIGNAL_LOAD_FAILED], 0, error);
  /* Scans that wait for the whole dataset start now (on what was read,
   * after an error). */
  ensure_wrong_side (self);
  refilter (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
disarm_launch (HsInstanceBrowser *self)
{
  g_clear_handle_id (&self->launch_timeout, g_source_remove);
  if (self->launch_clock != NULL)
    {
      g_clear_signal_handler (&self->launch_handler, self->launch_clock);
      g_clear_object (&self->launch_clock);
    }
}

static void
launch_loader (HsInstanceBrowser *self)
{
  g_autoptr(GTask) task = NULL;

  disarm_launch (self);
  task = g_task_new (self, self->load_cancellable, load_done, NULL);
  g_task_set_source_tag (task, launch_loader);
  g_task_set_task_data (task, hs_dataset_ref (self->dataset), (GDestroyNotify) hs_dataset_unref);
  g_task_run_in_thread (task, load_thread);
  self->grow_timeout = g_timeout_add (GROW_INTERVAL_MS, grow_tick, self);
}

static void
on_launch_paint (GdkFrameClock     *clock,
                 HsInstanceBrowser *self)
{
  launch_loader (self);
}

static gboolean
on_launch_timeout (gpointer user_data)
{
  HsInstanceBrowser *self = user_data;

  self->launch_timeout = 0;
  launch_loader (self);
  return G_SOURCE_REMOVE;
}

/* The worker should not compete with the frame that shows the first
 * instance: it starts after the frame following
 * hs_instance_browser_load_after_next_frame (the window calls it once the
 * instance's image and map are on the canvas), or after a second. */
#define LAUNCH_TIMEOUT_MS 1000

static void
start_loading (HsInstanceBrowser *self)
{
  self->load_cancellable = g_cancellable_new ();
  self->launch_timeout = g_timeout_add (LAUNCH_TIMEOUT_MS, on_launch_timeout, self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
cancel_loading (HsInstanceBrowser *self)
{
  if (self->load_cancellable == NULL)
    return;
  disarm_launch (self);
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  g_clear_handle_id (&self->grow_timeout, g_source_remove);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
on_search_changed (GtkSearchEntry    *entry,
                   HsInstanceBrowser *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  g_free (self->folded_search);
  self->folded_search = g_utf8_casefold (text, -1);
  if (!self->resetting)
    set_notice (self, NULL);
  refilter (self);
}

static void
on_stop_search (GtkSearchEntry    *entry,
                HsInstanceBrowser *self)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
}

static void
on_selection_changed (GObject           *object,
                      GParamSpec        *pspec,
                      HsInstanceBrowser *self)
{
  guint index = hs_instance_browser_get_selected (self);

  if (self->refiltering || index == G_MAXUINT || index == self->last_emitted)
    return;
  self->last_emitted = index;
  g_signal_emit (self, signals[SIGNAL_INSTANCE_SELECTED], 0, index);
}

static void
setup_row (GtkSignalListItemFactory *factory,
           GtkListItem              *list_item,
           gpointer                  user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *id = gtk_label_new (NULL);
  GtkWidget *summary = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (id), 0);
  gtk_label_set_ellipsize (GTK_LABEL (id), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (id, "heading");
  gtk_label_set_xalign (GTK_LABEL (summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (summary), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (summary), TRUE);
  gtk_widget_add_css_class (summary, "dim-label");
  gtk_widget_add_css_class (summary, "caption");
  gtk_box_append (GTK_BOX (box), id);
  gtk_box_append (GTK_BOX (box), summary);
  gtk_widget_set_margin_top (box, 3);
  gtk_widget_set_margin_bottom (box, 3);
  gtk_list_item_set_child (list_item, box);
}

static void
bind_row (GtkSignalListItemFactory *factory,
          GtkListItem              *list_item,
          gpointer                  user_data)
{
  HsInstanceItem *item = gtk_list_item_get_item (list_item);
  GtkWidget *box = gtk_list_item_get_child (list_item);
  GtkWidget *id = gtk_widget_get_first_child (box);
  GtkWidget *summary = gtk_widget_get_next_sibling (id);
  const char *text = hs_instance_item_get_summary (item);

  gtk_label_set_text (GTK_LABEL (id), hs_instance_item_get_id (item));
  gtk_label_set_text (GTK_LABEL (summary), text);
  gtk_widget_set_tooltip_text (summary, *text != '\0' ? text : NULL);
}

static const struct {
  guint       prop_id;
  const char *name;
} filter_names[] = {
  { PROP_FILTER_ABNORMAL,   "filter-abnormal" },
  { PROP_FILTER_ONE_LUNG,   "filter-one-lung" },
  { PROP_FILTER_ANNOTATED,  "filter-annotated" },
  { PROP_FILTER_MDRB,       "filter-mdrb" },
  { PROP_FILTER_WRONG_SIDE, "filter-wrong-side" },
};

/* The flag behind a filter-* property, or NULL for the others. */
static gboolean *
filter_field (HsInstanceBrowser *self, guint prop_id)
{
  switch (prop_id)
    {
    case PROP_FILTER_ABNORMAL:   return &self->filter_abnormal;
    case PROP_FILTER_ONE_LUNG:   return &self->filter_one_lung;
    case PROP_FILTER_MDRB:       return &self->filter_mdrb;
    case PROP_FILTER_ANNOTATED:  return &self->filter_annotated;
    case PROP_FILTER_WRONG_SIDE: return &self->filter_wrong_side;
    default:                     return NULL;
    }
}

static void
hs_instance_browser_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  HsInstanceBrowser *self = HS_INSTANCE_BROWSER (object);
  gboolean *filter = filter_field (self, prop_id);

  if (filter != NULL)
    {
      g_value_set_boolean (value, *filter);
      return;
    }
  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->load_cancellable != NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_instance_browser_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  HsInstanceBrowser *self = HS_INSTANCE_BROWSER (object);
  gboolean *field = filter_field (self, prop_id);

  if (field == NULL)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  if (*field == g_value_get_boolean (value))
    return;
  *field = g_value_get_boolean (value);
  if (!self->resetting)
    set_notice (self, NULL);
  if (prop_id == PROP_FILTER_WRONG_SIDE)
    ensure_wrong_side (self);
  refilter (self);
  g_object_notify_by_pspec (object, pspec);
}

static void
hs_instance_browser_dispose (GObject *object)
{
  HsInstanceBrowser *self = HS_INSTANCE_BROWSER (object);

  GtkWidget *child;

  cancel_subsets (self);
  cancel_wrong_side (self);
  cancel_loading (self);
  g_clear_pointer (&self->model, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), HS_TYPE_INSTANCE_BROWSER);
  /* Unbound template children (boxes, labels) are ours to unparent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->selection);
  g_clear_object (&self->filter_model);
  g_clear_object (&self->filter);
  g_clear_object (&self->store);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (hs_instance_browser_parent_class)->dispose (object);
}

static void
hs_instance_browser_finalize (GObject *object)
{
  HsInstanceBrowser *self = HS_INSTANCE_BROWSER (object);

  g_free (self->folded_search);
  g_free (self->manifest_path);
  G_OBJECT_CLASS (hs_instance_browser_parent_class)->finalize (object);
}

static void
hs_instance_browser_class_init (HsInstanceBrowserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_instance_browser_dispose;
  object_class->finalize = hs_instance_browser_finalize;
  object_class->get_property = hs_instance_browser_get_property;
  object_class->set_property = hs_instance_browser_set_property;

  for (guint i = 0; i < G_N_ELEMENTS (filter_names); i++)
    properties[filter_names[i].prop_id] =
      g_param_spec_boolean (filter_names[i].name, NULL, NULL, FALSE,
                            G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_INSTANCE_SELECTED] =
    g_signal_new ("instance-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[SIGNAL_LOAD_FAILED] =
    g_signal_new ("load-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-instance-browser.ui");
  gtk_widget_class_bind_template_child (widget_class, HsInstanceBrowser, search_entry);
  gtk_widget_class_bind_template_child (widget_class, HsInstanceBrowser, list_view);
  gtk_widget_class_bind_template_child (widget_class, HsInstanceBrowser, count_label);
  gtk_widget_class_bind_template_child (widget_class, HsInstanceBrowser, notice_label);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_stop_search);

  gtk_widget_class_install_property_action (widget_class, "browser.filter-abnormal", "filter-abnormal");
  gtk_widget_class_install_property_action (widget_class, "browser.filter-one-lung", "filter-one-lung");
  gtk_widget_class_install_property_action (widget_class, "browser.filter-mdrb", "filter-mdrb");
  gtk_widget_class_install_property_action (widget_class, "browser.filter-annotated", "filter-annotated");
  gtk_widget_class_install_property_action (widget_class, "browser.filter-wrong-side", "filter-wrong-side");
}

static void
hs_instance_browser_init (HsInstanceBrowser *self)
{
  GtkListItemFactory *factory;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->last_emitted = G_MAXUINT;
  self->store = hs_instance_list_new ();
  self->filter = gtk_custom_filter_new (NULL, NULL, NULL);
  self->filter_model = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->store)),
                                                  g_object_ref (GTK_FILTER (self->filter)));
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->filter_model)));
  gtk_single_selection_set_autoselect (self->selection, TRUE);
  g_signal_connect (self->selection, "notify::selected-item",
                    G_CALLBACK (on_selection_changed), self);

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), NULL);
  gtk_list_view_set_factory (self->list_view, factory);
  g_object_unref (factory);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (self->selection));
  update_count (self);
}

GtkWidget *
hs_instance_browser_new (void)
{
  return g_object_new (HS_TYPE_INSTANCE_BROWSER, NULL);
}

void
hs_instance_browser_set_dataset (HsInstanceBrowser *self,
                                 HsDataset         *dataset)
{
  g_return_if_fail (HS_IS_INSTANCE_BROWSER (self));

  if (dataset != NULL)
    hs_dataset_ref (dataset);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  self->dataset = dataset;
  self->last_emitted = G_MAXUINT;
  cancel_subsets (self);
  cancel_wrong_side (self);
  cancel_loading (self);

  set_notice (self, NULL);
  self->check_carried = dataset != NULL;
  self->carried_from_other = dataset != NULL &&
                             g_strcmp0 (self->manifest_path, hs_dataset_get_manifest_path (dataset)) != 0;
  g_free (self->manifest_path);
  self->manifest_path = dataset != NULL ? g_strdup (hs_dataset_get_manifest_path (dataset)) : NULL;

  hs_instance_list_set_dataset (self->store, dataset);
  if (dataset != NULL && !hs_dataset_is_complete (dataset))
    start_loading (self);
  ensure_wrong_side (self);
  refilter (self);
}

void
hs_instance_browser_set_model (HsInstanceBrowser *self,
                               const char        *model)
{
  g_return_if_fail (HS_IS_INSTANCE_BROWSER (self));

  if (g_strcmp0 (model, self->model) == 0)
    return;
  g_free (self->model);
  self->model = g_strdup (model);
  cancel_wrong_side (self);
  ensure_wrong_side (self);
  refilter (self);
}

gboolean
hs_instance_browser_get_wrong_side_ready (HsInstanceBrowser *self)
{
  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), FALSE);
  return self->wrong_side != NULL;
}

void
hs_instance_browser_set_subsets (HsInstanceBrowser *self,
                                 guint              subsets)
{
  g_return_if_fail (HS_IS_INSTANCE_BROWSER (self));

  g_object_freeze_notify (G_OBJECT (self));
  g_object_set (self,
                "filter-abnormal", (subsets & HS_SUBSET_ABNORMAL) != 0,
                "filter-one-lung", (subsets & HS_SUBSET_ONE_LUNG) != 0,
                "filter-mdrb", (subsets & HS_SUBSET_MDRB) != 0,
                NULL);
  g_object_thaw_notify (G_OBJECT (self));
}

guint
hs_instance_browser_get_subsets (HsInstanceBrowser *self)
{
  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), 0);

  return (self->filter_abnormal ? HS_SUBSET_ABNORMAL : 0) |
         (self->filter_one_lung ? HS_SUBSET_ONE_LUNG : 0) |
         (self->filter_mdrb ? HS_SUBSET_MDRB : 0);
}

void
hs_instance_browser_set_search_text (HsInstanceBrowser *self,
                                     const char        *text)
{
  g_return_if_fail (HS_IS_INSTANCE_BROWSER (self));

  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text != NULL ? text : "");
  /* search-changed is delayed; filter now so callers see the result. */
  on_search_changed (self->search_entry, self);
}

static guint
find_position (HsInstanceBrowser *self,
               guint              index)
{
  GListModel *model = G_LIST_MODEL (self->filter_model);
  guint n = g_list_model_get_n_items (model);

  /* Unfiltered, rows are the dataset's order (no row object needed). */
  if (!self->filtering)
    return index < n ? index : GTK_INVALID_LIST_POSITION;

  for (guint pos = 0; pos < n; pos++)
    {
      g_autoptr(HsInstanceItem) item = g_list_model_get_item (model, pos);
      if (hs_instance_item_get_index (item) == index)
        return pos;
    }
  return GTK_INVALID_LIST_POSITION;
}

gboolean
hs_instance_browser_select_id (HsInstanceBrowser *self,
                               const char        *id)
{
  guint n, index = G_MAXUINT, pos;

  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);

  if (self->dataset == NULL)
    return FALSE;
  n = hs_dataset_get_n_instances (self->dataset);
  for (guint i = 0; i < n && index == G_MAXUINT; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (self->dataset, i);
      if (instance != NULL && g_strcmp0 (instance->id, id) == 0)
        index = i;
    }
  if (index == G_MAXUINT)
    return FALSE;

  pos = find_position (self, index);
  if (pos == GTK_INVALID_LIST_POSITION)
    {
      hs_instance_browser_set_subsets (self, 0);
      g_object_set (self, "filter-annotated", FALSE, NULL);
      hs_instance_browser_set_search_text (self, "");
      pos = find_position (self, index);
    }
  if (pos == GTK_INVALID_LIST_POSITION)
    return FALSE;

  gtk_single_selection_set_selected (self->selection, pos);
  gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", pos);
  return TRUE;
}

void
hs_instance_browser_select_relative (HsInstanceBrowser *self,
                                     int                delta)
{
  guint n, pos;
  gint64 next;

  g_return_if_fail (HS_IS_INSTANCE_BROWSER (self));

  n = g_list_model_get_n_items (G_LIST_MODEL (self->filter_model));
  if (n == 0)
    return;
  pos = gtk_single_selection_get_selected (self->selection);
  next = pos == GTK_INVALID_LIST_POSITION ? 0 : (gint64) pos + delta;
  next = CLAMP (next, 0, (gint64) n - 1);
  gtk_single_selection_set_selected (self->selection, (guint) next);
  gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", (guint) next);
}

/* The instance `delta` rows from the selected one in the list as shown
 * (what Alt+Down/Up would open), G_MAXUINT past either end. */
guint
hs_instance_browser_get_neighbour (HsInstanceBrowser *self,
                                   int                delta)
{
  guint pos, n;
  gint64 next;
  g_autoptr(HsInstanceItem) item = NULL;

  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), G_MAXUINT);

  pos = gtk_single_selection_get_selected (self->selection);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->filter_model));
  if (pos == GTK_INVALID_LIST_POSITION)
    return G_MAXUINT;
  next = (gint64) pos + delta;
  if (next < 0 || next >= n)
    return G_MAXUINT;
  item = g_list_model_get_item (G_LIST_MODEL (self->filter_model), (guint) next);
  return item != NULL ? hs_instance_item_get_index (item) : G_MAXUINT;
}

guint
hs_instance_browser_get_selected (HsInstanceBrowser *self)
{
  HsInstanceItem *item;

  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), G_MAXUINT);

  item = gtk_single_selection_get_selected_item (self->selection);
  return item != NULL ? hs_instance_item_get_index (item) : G_MAXUINT;
}

void
hs_instance_browser_load_after_next_frame (HsInstanceBrowser *self)
{
  GdkFrameClock *clock;

  g_return_if_fail (HS_IS_INSTANCE_BROWSER (self));

  /* Nothing waiting, or already armed. */
  if (self->load_cancellable == NULL || self->launch_timeout == 0 || self->launch_clock != NULL)
    return;
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  if (clock == NULL)
    return;
  self->launch_clock = g_object_ref (clock);
  self->launch_handler = g_signal_connect (clock, "after-paint", G_CALLBACK (on_launch_paint), self);
}

gboolean
hs_instance_browser_get_loading (HsInstanceBrowser *self)
{
  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), FALSE);
  return self->load_cancellable != NULL;
}

const char *
hs_instance_browser_get_matched_sentence (HsInstanceBrowser *self,
                                          guint              index)
{
  g_autoptr(HsInstanceItem) item = NULL;
  HsInstanceFilter filter;
  HsInstance *instance;
  int match;

  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), NULL);

  if (!self->filtering || self->dataset == NULL ||
      index >= g_list_model_get_n_items (G_LIST_MODEL (self->store)))
    return NULL;
  item = g_list_model_get_item (G_LIST_MODEL (self->store), index);
  get_filter (self, &filter);
  match = hs_instance_item_match (item, &filter);
  instance = hs_dataset_get_instance (self->dataset, index);
  if (match < 0 || instance == NULL || instance->sentences == NULL || (guint) match >= instance->sentences->len)
    return NULL;
  return ((HsSentence *) g_ptr_array_index (instance->sentences, match))->id;
}

const char *
hs_instance_browser_get_notice (HsInstanceBrowser *self)
{
  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->notice_label)) ? gtk_label_get_text (self->notice_label)
                                                                  : NULL;
}

gboolean
hs_instance_browser_get_busy (HsInstanceBrowser *self)
{
  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), FALSE);
  return self->busy;
}

guint
hs_instance_browser_get_n_shown (HsInstanceBrowser *self)
{
  g_return_val_if_fail (HS_IS_INSTANCE_BROWSER (self), 0);
  return self->filter_model != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->filter_model)) : 0;
}

void
hs_instance_browser_focus_search (HsInstanceBrowser *self)
{
  g_return_if_fail (HS_IS_INSTANCE_BROWSER (self));
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}
