/* hs-layers-panel.c — the heatmap, the outline and every region as rows
 *
 * The region rows are rebuilt only when the instance's region names change;
 * otherwise ticks and styles are updated in place (a tick's own "toggled"
 * handler may be what made the window call set_instance again).
 */
#include <glib/gi18n.h>
#include <heatscope/hs-colormap.h>
#include <heatscope/hs-legend.h>

#include "hs-css-private.h"
#include "hs-layers-panel.h"
#include "hs-utils-private.h"

typedef struct {
  HsLayersPanel *panel;    /* not a reference: the panel owns the rows */
  char          *name;
  guint          index;    /* in the instance: its colour */
  gboolean       has_mask;
  gboolean       target;
  GtkWidget     *row;
  GtkWidget     *label;
  GtkWidget     *visible_check;
  GtkWidget     *target_check;
} Row;

struct _HsLayersPanel
{
  GtkWidget    parent_instance;

  GtkWidget   *box;
  GtkWidget   *view_list;
  GtkWidget   *heatmap_check;
  GtkWidget   *heatmap_swatch;
  GtkWidget   *outline_check;
  GtkWidget   *outline_swatch;
  GtkWidget   *region_list;
  GtkWidget   *hint_label;
  GtkWidget   *regions_title;

  HsViewState *state;
  GBinding    *heatmap_binding;
  GBinding    *outline_binding;
  gulong       state_changed_id;
  GPtrArray   *rows;       /* Row* */
  GHashTable  *hidden;     /* names of hidden regions */
  gboolean     syncing;    /* setting ticks from the model, not the user */
  gboolean     has_sentence;
};

G_DEFINE_FINAL_TYPE (HsLayersPanel, hs_layers_panel, GTK_TYPE_WIDGET)

enum { SIGNAL_VISIBILITY_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
row_free (Row *row)
{
  g_free (row->name);
  g_free (row);
}

/* ---- swatches ----------------------------------------------------------- */

static void
draw_region_swatch (GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
  Row *row = data;
  double rgba[4];

  hs_region_color (row->index, rgba);
  cairo_set_source_rgb (cr, rgba[0], rgba[1], rgba[2]);
  if (row->target)
    {
      cairo_rectangle (cr, 0, 0, w, h);
      cairo_fill (cr);
    }
  else
    {
      /* an outline only: drawn dashed and thin on the canvas */
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, 1, 1, w - 2, h - 2);
      cairo_stroke (cr);
    }
}

static void
draw_heatmap_swatch (GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
  HsLayersPanel *self = data;
  HsColormap map = HS_COLORMAP_JET;

  if (self->state != NULL)
    hs_colormap_from_string (hs_view_state_get_colormap (self->state), &map);
  for (int x = 0; x < w; x++)
    {
      double rgb[3];

      hs_colormap_lookup (map, w > 1 ? (double) x / (w - 1) : 0, rgb);
      cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
      cairo_rectangle (cr, x, 0, 1, h);
      cairo_fill (cr);
    }
}

static void
draw_outline_swatch (GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
  static const double dash[] = { 3, 2 };

  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_rectangle (cr, 0, 0, w, h);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_set_line_width (cr, 1.5);
  cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
  cairo_arc (cr, w / 2.0, h / 2.0, MIN (w, h) / 2.0 - 2, 0, 2 * G_PI);
  cairo_stroke (cr);
}

/* ---- rows --------------------------------------------------------------- */

static void
on_visible_toggled (GtkCheckButton *check, Row *row)
{
  HsLayersPanel *self = row->panel;

  if (self->syncing)
    return;
  hs_layers_panel_set_region_visible (self, row->name, gtk_check_button_get_active (check));
}

static void
on_target_toggled (GtkCheckButton *check, Row *row)
{
  HsLayersPanel *self = row->panel;

  if (self->syncing)
    return;
  /* The window decides, and calls set_instance with the outcome. */
  gtk_widget_activate_action (GTK_WIDGET (self), "win.link-target", "(sb)", row->name,
                              gtk_check_button_get_active (check));
}

static void
sync_row (HsLayersPanel *self, Row *row)
{
  self->syncing = TRUE;
  gtk_check_button_set_active (GTK_CHECK_BUTTON (row->visible_check),
                               !g_hash_table_contains (self->hidden, row->name));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (row->target_check), row->target);
  gtk_widget_set_sensitive (row->target_check, self->has_sentence);
  self->syncing = FALSE;
  if (row->target)
    gtk_widget_add_css_class (row->label, "hs-layer-target");
  else
    gtk_widget_remove_css_class (row->label, "hs-layer-target");
  gtk_widget_queue_draw (gtk_widget_get_prev_sibling (row->label));
}

static Row *
add_row (HsLayersPanel *self, const HsRegion *region, guint index)
{
  Row *row = g_new0 (Row, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *swatch = gtk_drawing_area_new ();
  GtkWidget *kind;
  guint n_boxes = region->boxes ? region->boxes->len : 0;
  g_autofree char *kind_text = NULL;

  row->panel = self;
  row->name = g_strdup (region->name);
  row->index = index;
  row->has_mask = region->mask != NULL;

  row->visible_check = gtk_check_button_new ();
  _hs_widget_set_tooltip (row->visible_check, _("Show this region"));
  g_signal_connect (row->visible_check, "toggled", G_CALLBACK (on_visible_toggled), row);
  gtk_box_append (GTK_BOX (box), row->visible_check);

  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (swatch), 14);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (swatch), 14);
  gtk_widget_set_valign (swatch, GTK_ALIGN_CENTER);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), draw_region_swatch, row, NULL);
  gtk_box_append (GTK_BOX (box), swatch);

  row->label = gtk_label_new (region->name);
  gtk_label_set_xalign (GTK_LABEL (row->label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (row->label), PANGO_ELLIPSIZE_END);
  _hs_widget_set_tooltip (row->label, region->name);
  gtk_widget_set_hexpand (row->label, TRUE);
  gtk_box_append (GTK_BOX (box), row->label);

  /* What the region is drawn as: its boxes and/or its mask's contour. */
  if (n_boxes > 0 && row->has_mask)
    kind_text = g_strdup_printf (ngettext ("%u box + mask", "%u boxes + mask", n_boxes), n_boxes);
  else if (n_boxes > 0)
    kind_text = g_strdup_printf (ngettext ("%u box", "%u boxes", n_boxes), n_boxes);
  else
    kind_text = g_strdup (row->has_mask ? _("mask") : "");
  kind = gtk_label_new (kind_text);
  gtk_widget_add_css_class (kind, "dim-label");
  gtk_widget_add_css_class (kind, "caption");
  gtk_box_append (GTK_BOX (box), kind);

  row->target_check = gtk_check_button_new_with_label (_("Target"));
  _hs_widget_set_tooltip (row->target_check,
                          _("A target of the selected sentence: the metrics score the map "
                            "against the targets"));
  g_signal_connect (row->target_check, "toggled", G_CALLBACK (on_target_toggled), row);
  gtk_box_append (GTK_BOX (box), row->target_check);

  row->row = gtk_list_box_row_new ();
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row->row), FALSE);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row->row), box);
  gtk_list_box_append (GTK_LIST_BOX (self->region_list), row->row);
  g_ptr_array_add (self->rows, row);
  return row;
}

static void
clear_rows (HsLayersPanel *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    gtk_list_box_remove (GTK_LIST_BOX (self->region_list), ((Row *) g_ptr_array_index (self->rows, i))->row);
  g_ptr_array_set_size (self->rows, 0);
}

static gboolean
same_regions (HsLayersPanel *self, const HsInstance *instance)
{
  guint n = instance && instance->regions ? instance->regions->len : 0;

  if (n != self->rows->len)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const HsRegion *region = g_ptr_array_index (instance->regions, i);
      const Row *row = g_ptr_array_index (self->rows, i);

      if (g_strcmp0 (region->name, row->name) != 0 || (region->mask != NULL) != row->has_mask)
        return FALSE;
    }
  return TRUE;
}

/* ---- view state --------------------------------------------------------- */

static gboolean
outline_to_active (GBinding *binding, const GValue *from, GValue *to, gpointer data)
{
  g_value_set_boolean (to, g_strcmp0 (g_value_get_string (from), "none") != 0);
  return TRUE;
}

static gboolean
active_to_outline (GBinding *binding, const GValue *from, GValue *to, gpointer data)
{
  HsLayersPanel *self = data;

  /* Turning it on keeps an Otsu outline chosen elsewhere; else top-k. */
  if (!g_value_get_boolean (from))
    g_value_set_string (to, "none");
  else if (self->state != NULL && hs_view_state_get_outline (self->state) != HS_OUTLINE_NONE)
    return FALSE;
  else
    g_value_set_string (to, "topk");
  return TRUE;
}

static void
on_state_changed (HsViewState *state, const char *what, HsLayersPanel *self)
{
  gtk_widget_queue_draw (self->heatmap_swatch);
}

static void
unbind_state (HsLayersPanel *self)
{
  g_clear_pointer (&self->heatmap_binding, g_binding_unbind);
  g_clear_pointer (&self->outline_binding, g_binding_unbind);
  if (self->state != NULL)
    g_clear_signal_handler (&self->state_changed_id, self->state);
  g_clear_object (&self->state);
}

/* ---- GObject ------------------------------------------------------------ */

static void
hs_layers_panel_dispose (GObject *object)
{
  HsLayersPanel *self = HS_LAYERS_PANEL (object);

  unbind_state (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), HS_TYPE_LAYERS_PANEL);
  G_OBJECT_CLASS (hs_layers_panel_parent_class)->dispose (object);
}

static void
hs_layers_panel_finalize (GObject *object)
{
  HsLayersPanel *self = HS_LAYERS_PANEL (object);

  g_ptr_array_unref (self->rows);
  g_hash_table_unref (self->hidden);
  G_OBJECT_CLASS (hs_layers_panel_parent_class)->finalize (object);
}

static void
hs_layers_panel_class_init (HsLayersPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_layers_panel_dispose;
  object_class->finalize = hs_layers_panel_finalize;

  signals[SIGNAL_VISIBILITY_CHANGED] =
    g_signal_new ("visibility-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-layers-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, HsLayersPanel, box);
  gtk_widget_class_bind_template_child (widget_class, HsLayersPanel, view_list);
  gtk_widget_class_bind_template_child (widget_class, HsLayersPanel, heatmap_check);
  gtk_widget_class_bind_template_child (widget_class, HsLayersPanel, heatmap_swatch);
  gtk_widget_class_bind_template_child (widget_class, HsLayersPanel, outline_check);
  gtk_widget_class_bind_template_child (widget_class, HsLayersPanel, outline_swatch);
  gtk_widget_class_bind_template_child (widget_class, HsLayersPanel, region_list);
  gtk_widget_class_bind_template_child (widget_class, HsLayersPanel, hint_label);
  gtk_widget_class_bind_template_child (widget_class, HsLayersPanel, regions_title);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "hs-layers-panel");
}

static void
hs_layers_panel_init (HsLayersPanel *self)
{
  _hs_css_init ();
  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  self->hidden = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->heatmap_swatch), draw_heatmap_swatch,
                                  self, NULL);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->outline_swatch), draw_outline_swatch,
                                  self, NULL);
  gtk_widget_set_sensitive (self->view_list, FALSE);
  hs_layers_panel_set_instance (self, NULL, NULL);
}

/* ---- public ------------------------------------------------------------- */

GtkWidget *
hs_layers_panel_new (void)
{
  return g_object_new (HS_TYPE_LAYERS_PANEL, NULL);
}

void
hs_layers_panel_set_view_state (HsLayersPanel *self, HsViewState *state)
{
  g_return_if_fail (HS_IS_LAYERS_PANEL (self));
  g_return_if_fail (state == NULL || HS_IS_VIEW_STATE (state));

  if (self->state == state)
    return;
  unbind_state (self);
  gtk_widget_set_sensitive (self->view_list, state != NULL);
  if (state == NULL)
    return;
  self->state = g_object_ref (state);
  self->heatmap_binding = g_object_bind_property (state, "show-overlay", self->heatmap_check,
                                                  "active",
                                                  G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  self->outline_binding = g_object_bind_property_full (state, "outline", self->outline_check,
                                                       "active",
                                                       G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE,
                                                       outline_to_active, active_to_outline,
                                                       self, NULL);
  self->state_changed_id = g_signal_connect (state, "changed", G_CALLBACK (on_state_changed), self);
}

void
hs_layers_panel_set_instance (HsLayersPanel *self, const HsInstance *instance,
                              const HsSentence *sentence)
{
  guint n;

  g_return_if_fail (HS_IS_LAYERS_PANEL (self));

  n = instance && instance->regions ? instance->regions->len : 0;
  if (!same_regions (self, instance))
    {
      clear_rows (self);
      for (guint i = 0; i < n; i++)
        add_row (self, g_ptr_array_index (instance->regions, i), i);
    }
  self->has_sentence = sentence != NULL;
  for (guint i = 0; i < self->rows->len; i++)
    {
      Row *row = g_ptr_array_index (self->rows, i);

      row->target = sentence != NULL && sentence->targets != NULL
                    && g_strv_contains ((const char * const *) sentence->targets, row->name);
      sync_row (self, row);
    }
  gtk_widget_set_visible (self->region_list, n > 0);
  if (instance == NULL)
    gtk_label_set_text (GTK_LABEL (self->hint_label), _("No instance is shown."));
  else if (n == 0)
    gtk_label_set_text (GTK_LABEL (self->hint_label), _("This instance has no regions."));
  else if (sentence == NULL)
    gtk_label_set_text (GTK_LABEL (self->hint_label),
                        _("Select a sentence to tick the regions it refers to."));
  else
    gtk_label_set_text (GTK_LABEL (self->hint_label),
                        _("Tick the regions the selected sentence refers to; the dataset is "
                          "saved at once (Ctrl+Z undoes)."));
}

gboolean
hs_layers_panel_get_region_visible (HsLayersPanel *self, const char *name)
{
  g_return_val_if_fail (HS_IS_LAYERS_PANEL (self), TRUE);
  return name == NULL || !g_hash_table_contains (self->hidden, name);
}

void
hs_layers_panel_set_region_visible (HsLayersPanel *self, const char *name, gboolean visible)
{
  g_return_if_fail (HS_IS_LAYERS_PANEL (self));
  g_return_if_fail (name != NULL);

  if (visible == hs_layers_panel_get_region_visible (self, name))
    return;
  if (visible)
    g_hash_table_remove (self->hidden, name);
  else
    g_hash_table_add (self->hidden, g_strdup (name));
  for (guint i = 0; i < self->rows->len; i++)
    {
      Row *row = g_ptr_array_index (self->rows, i);

      if (g_strcmp0 (row->name, name) == 0)
        sync_row (self, row);
    }
  g_signal_emit (self, signals[SIGNAL_VISIBILITY_CHANGED], 0);
}

guint
hs_layers_panel_get_n_regions (HsLayersPanel *self)
{
  g_return_val_if_fail (HS_IS_LAYERS_PANEL (self), 0);
  return self->rows->len;
}

GtkWidget *
hs_layers_panel_get_target_button (HsLayersPanel *self, const char *name)
{
  g_return_val_if_fail (HS_IS_LAYERS_PANEL (self), NULL);

  for (guint i = 0; i < self->rows->len; i++)
    {
      Row *row = g_ptr_array_index (self->rows, i);

      if (g_strcmp0 (row->name, name) == 0)
        return row->target_check;
    }
  return NULL;
}
