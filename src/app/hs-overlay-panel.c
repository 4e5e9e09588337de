/* hs-overlay-panel.c — the overlay controls, bound to an HsViewState */
#include <glib/gi18n.h>

#include "hs-overlay-panel.h"

struct _HsOverlayPanel
{
  GtkWidget parent_instance;

  HsViewState *state;
  GPtrArray   *bindings;   /* GBinding*, dropped when the state changes */

  GtkWidget     *grid;
  GtkAdjustment *opacity_adjustment;
  GtkDropDown   *colormap_dropdown;
  GtkDropDown   *curve_dropdown;
  GtkAdjustment *strength_adjustment;
  GtkDropDown   *scale_dropdown;
  GtkWidget     *fixed_box;
  GtkAdjustment *scale_min_adjustment;
  GtkAdjustment *scale_max_adjustment;
  GtkWidget     *percentile_box;
  GtkAdjustment *percentile_low_adjustment;
  GtkAdjustment *percentile_high_adjustment;
  GtkAdjustment *threshold_adjustment;
  GtkDropDown   *outline_dropdown;
  GtkWidget     *top_k_spin;
  GtkAdjustment *top_k_adjustment;
  GtkDropDown   *upsample_dropdown;
  GtkAdjustment *level_adjustment;
  GtkAdjustment *window_adjustment;
  GtkWidget     *reset_levels_button;
  GtkWidget     *show_overlay_check;
  GtkWidget     *show_boxes_check;
  GtkWidget     *show_masks_check;
  GtkWidget     *show_no_attn_check;
};

G_DEFINE_FINAL_TYPE (HsOverlayPanel, hs_overlay_panel, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_VIEW_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Dropdown positions ↔ the schema's choices (same order as the .ui). */
static const char * const colormap_nicks[] = { "jet", "turbo", "viridis", "inferno", "grey", "diverging", NULL };
static const char * const curve_nicks[] = { "gamma", "log", NULL };
static const char * const scale_nicks[] = { "minmax", "fixed", "shared", "percentile", NULL };
static const char * const outline_nicks[] = { "none", "top-k", "otsu", NULL };
static const char * const upsample_nicks[] = { "bilinear", "nearest", NULL };

static gboolean
nick_to_position (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  const char * const *nicks = user_data;
  const char *nick = g_value_get_string (from);

  for (guint i = 0; nick && nicks[i]; i++)
    if (g_str_equal (nicks[i], nick))
      {
        g_value_set_uint (to, i);
        return TRUE;
      }
  return FALSE;
}

static gboolean
position_to_nick (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  const char * const *nicks = user_data;
  guint position = g_value_get_uint (from);

  if (position >= g_strv_length ((char **) nicks))
    return FALSE;
  g_value_set_string (to, nicks[position]);
  return TRUE;
}

/* window-level-center < 0 and width <= 0 mean "automatic/full range". */
static gboolean
center_to_adjustment (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  double v = g_value_get_double (from);
  g_value_set_double (to, v < 0 ? 0.5 : v);
  return TRUE;
}

static gboolean
width_to_adjustment (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  double v = g_value_get_double (from);
  g_value_set_double (to, v <= 0 ? 1.0 : v);
  return TRUE;
}

static gboolean
nick_is (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_boolean (to, g_strcmp0 (g_value_get_string (from), user_data) == 0);
  return TRUE;
}

static void
bind (HsOverlayPanel *self, const char *property, gpointer target, const char *target_property)
{
  g_ptr_array_add (self->bindings,
                   g_object_bind_property (self->state, property, target, target_property,
                                           G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE));
}

static void
bind_choice (HsOverlayPanel *self, const char *property, GtkDropDown *dropdown,
             const char * const *nicks)
{
  g_ptr_array_add (self->bindings,
                   g_object_bind_property_full (self->state, property, dropdown, "selected",
                                                G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE,
                                                nick_to_position, position_to_nick,
                                                (gpointer) nicks, NULL));
}

static void
bind_visible (HsOverlayPanel *self, const char *property, const char *nick, GtkWidget *widget,
              const char *widget_property)
{
  g_ptr_array_add (self->bindings,
                   g_object_bind_property_full (self->state, property, widget, widget_property,
                                                G_BINDING_SYNC_CREATE, nick_is, NULL,
                                                (gpointer) nick, NULL));
}

static void
unbind_all (HsOverlayPanel *self)
{
  for (guint i = 0; i < self->bindings->len; i++)
    g_binding_unbind (g_ptr_array_index (self->bindings, i));
  g_ptr_array_set_size (self->bindings, 0);
}

static void
on_reset_levels (HsOverlayPanel *self)
{
  if (self->state)
    hs_view_state_set_window_level (self->state, -1, -1);
}

static void
hs_overlay_panel_dispose (GObject *object)
{
  HsOverlayPanel *self = HS_OVERLAY_PANEL (object);

  if (self->bindings)
    unbind_all (self);
  g_clear_pointer (&self->bindings, g_ptr_array_unref);
  g_clear_object (&self->state);
  gtk_widget_dispose_template (GTK_WIDGET (object), HS_TYPE_OVERLAY_PANEL);
  G_OBJECT_CLASS (hs_overlay_panel_parent_class)->dispose (object);
}

static void
hs_overlay_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  HsOverlayPanel *self = HS_OVERLAY_PANEL (object);

  switch (prop_id)
    {
    case PROP_VIEW_STATE: g_value_set_object (value, self->state); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_overlay_panel_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  HsOverlayPanel *self = HS_OVERLAY_PANEL (object);

  switch (prop_id)
    {
    case PROP_VIEW_STATE: hs_overlay_panel_set_view_state (self, g_value_get_object (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_overlay_panel_class_init (HsOverlayPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_overlay_panel_dispose;
  object_class->get_property = hs_overlay_panel_get_property;
  object_class->set_property = hs_overlay_panel_set_property;

  properties[PROP_VIEW_STATE] =
    g_param_spec_object ("view-state", NULL, NULL, HS_TYPE_VIEW_STATE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-overlay-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, grid);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, opacity_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, colormap_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, curve_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, strength_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, scale_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, fixed_box);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, scale_min_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, scale_max_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, percentile_box);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, percentile_low_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, percentile_high_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, threshold_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, outline_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, top_k_spin);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, top_k_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, upsample_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, level_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, window_adjustment);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, reset_levels_button);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, show_overlay_check);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, show_boxes_check);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, show_masks_check);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, show_no_attn_check);
  gtk_widget_class_bind_template_callback (widget_class, on_reset_levels);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "hs-overlay-panel");
}

static void
hs_overlay_panel_init (HsOverlayPanel *self)
{
  self->bindings = g_ptr_array_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_set_sensitive (self->grid, FALSE);
}

GtkWidget *
hs_overlay_panel_new (void)
{
  return g_object_new (HS_TYPE_OVERLAY_PANEL, NULL);
}

void
hs_overlay_panel_set_view_state (HsOverlayPanel *self, HsViewState *state)
{
  g_return_if_fail (HS_IS_OVERLAY_PANEL (self));
  g_return_if_fail (state == NULL || HS_IS_VIEW_STATE (state));

  if (self->state == state)
    return;
  unbind_all (self);
  g_set_object (&self->state, state);
  gtk_widget_set_sensitive (self->grid, state != NULL);
  if (state)
    {
      bind (self, "opacity", self->opacity_adjustment, "value");
      bind_choice (self, "colormap", self->colormap_dropdown, colormap_nicks);
      bind_choice (self, "strength-curve", self->curve_dropdown, curve_nicks);
      bind (self, "strength", self->strength_adjustment, "value");
      bind_choice (self, "scale-mode", self->scale_dropdown, scale_nicks);
      bind (self, "scale-min", self->scale_min_adjustment, "value");
      bind (self, "scale-max", self->scale_max_adjustment, "value");
      bind (self, "percentile-low", self->percentile_low_adjustment, "value");
      bind (self, "percentile-high", self->percentile_high_adjustment, "value");
      bind (self, "threshold", self->threshold_adjustment, "value");
      bind_choice (self, "outline", self->outline_dropdown, outline_nicks);
      bind (self, "outline-top-k", self->top_k_adjustment, "value");
      bind_choice (self, "upsample", self->upsample_dropdown, upsample_nicks);
      g_ptr_array_add (self->bindings,
                       g_object_bind_property_full (state, "window-level-center",
                                                    self->level_adjustment, "value",
                                                    G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE,
                                                    center_to_adjustment, NULL, NULL, NULL));
      g_ptr_array_add (self->bindings,
                       g_object_bind_property_full (state, "window-level-width",
                                                    self->window_adjustment, "value",
                                                    G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE,
                                                    width_to_adjustment, NULL, NULL, NULL));
      bind (self, "show-overlay", self->show_overlay_check, "active");
      bind (self, "show-boxes", self->show_boxes_check, "active");
      bind (self, "show-masks", self->show_masks_check, "active");
      bind (self, "show-no-attn", self->show_no_attn_check, "active");
      bind_visible (self, "scale-mode", "fixed", self->fixed_box, "visible");
      bind_visible (self, "scale-mode", "percentile", self->percentile_box, "visible");
      bind_visible (self, "outline", "top-k", self->top_k_spin, "sensitive");
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW_STATE]);
}

HsViewState *
hs_overlay_panel_get_view_state (HsOverlayPanel *self)
{
  g_return_val_if_fail (HS_IS_OVERLAY_PANEL (self), NULL);
  return self->state;
}
