/* hs-overlay-panel.c — the overlay controls, bound to an HsViewState */
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include <heatscope/hs-legend.h>

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
  GtkScale      *level_scale;
  GtkScale      *window_scale;
  GtkScale      *threshold_scale;
  HsImage       *image;      /* whose grey values the window/level read in */
  gboolean       have_range; /* the colour bar's range, in map units */
  double         range_lo, range_hi;
  gboolean       syncing;    /* the adjustments are being set from the state */
  gulong         level_handlers[3];
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

/* ---- window/level in the image's own grey values ------------------------ */

/* The state keeps window/level as fractions of the image's largest sample
 * (what GSettings remembers; < 0 = automatic, the image's own window); the
 * sliders read in the image's grey values: Hounsfield units for a CT-like
 * DICOM, the raw stored values of other DICOM files, 0–255 or 0–65535 for
 * PNG/JPEG.  Without an image they show the fractions. */

static double
value_slope (HsImage *image)
{
  double slope = 1, intercept = 0;

  hs_image_get_value_mapping (image, &slope, &intercept);
  return fabs (slope) > 0 ? fabs (slope) : 1;
}

static void
sync_levels (HsOverlayPanel *self)
{
  double c = 0.5, w = 1, lo = 0, hi = 1, range, max;
  int digits = 2;

  if (self->state == NULL)
    return;
  if (self->image != NULL)
    {
      double dc, dw;

      max = MAX (hs_image_get_max_value (self->image), 1);
      hs_image_get_value_range (self->image, &lo, &hi);
      /* The level slider spans the image's own window widened to twice
       * its width (centre ± width), within the possible values: a 16-bit
       * CT's range of ±32768 HU would leave every useful window a few
       * pixels of slider. */
      hs_image_get_default_window (self->image, &dc, &dw);
      if (MIN (hi, dc + dw) > MAX (lo, dc - dw))
        {
          lo = MAX (lo, dc - dw);
          hi = MIN (hi, dc + dw);
        }
      if (hs_view_state_get_window_level_auto (self->state))
        hs_image_get_default_window (self->image, &c, &w);
      else
        {
          hs_view_state_get_window_level (self->state, &c, &w);
          c = hs_image_sample_to_value (self->image, c * max);
          w = w * max * value_slope (self->image);
        }
      range = MAX (hi - lo, 1e-9);
      digits = range >= 50 ? 0 : range >= 5 ? 1 : 2;
    }
  else
    hs_view_state_get_window_level (self->state, &c, &w);
  range = MAX (hi - lo, 1e-9);
  self->syncing = TRUE;
  gtk_adjustment_configure (self->level_adjustment, c, MIN (lo, c), MAX (hi, c), range / 100,
                            range / 10, 0);
  gtk_adjustment_configure (self->window_adjustment, w, MIN (range / 500, w), MAX (2 * range, w),
                            range / 100, range / 10, 0);
  gtk_scale_set_digits (self->level_scale, digits);
  gtk_scale_set_digits (self->window_scale, digits);
  self->syncing = FALSE;
}

/* A slider moved: both values go to the state (leaving "automatic"). */
static void
on_level_changed (HsOverlayPanel *self)
{
  double c = gtk_adjustment_get_value (self->level_adjustment);
  double w = gtk_adjustment_get_value (self->window_adjustment);

  if (self->syncing || self->state == NULL)
    return;
  if (self->image != NULL)
    {
      double max = MAX (hs_image_get_max_value (self->image), 1), sc, sw;

      hs_image_window_to_samples (self->image, c, w, &sc, &sw);
      c = sc / max;
      w = sw / max;
    }
  hs_view_state_set_window_level (self->state, c, w);
}

static char *
format_level (GtkScale *scale, double value, gpointer user_data)
{
  HsOverlayPanel *self = user_data;
  const char *unit = self->image != NULL ? hs_image_get_value_unit (self->image) : NULL;
  g_autofree char *number = g_strdup_printf ("%.*f", gtk_scale_get_digits (scale), value);

  return unit != NULL ? g_strdup_printf ("%s %s", number, unit) : g_steal_pointer (&number);
}

/* ---- the threshold in map units ----------------------------------------- */

/* The state keeps the threshold as a scaled value in [0, 1] (0 = off); the
 * slider reads in the map's units on the colour bar: lo + t (hi − lo) of the
 * bar's range, its read-out formatted as the bar's ticks. */

static int
digits_for (double span)
{
  return CLAMP ((int) ceil (-log10 (span / 1000)), 0, 12);
}

static void
sync_threshold (HsOverlayPanel *self)
{
  double t, lo = 0, hi = 1;

  if (self->state == NULL)
    return;
  t = CLAMP (hs_view_state_get_threshold (self->state), 0, 1);
  if (self->have_range)
    {
      lo = self->range_lo;
      hi = self->range_hi;
    }
  self->syncing = TRUE;
  gtk_adjustment_configure (self->threshold_adjustment, lo + t * (hi - lo), lo, hi, (hi - lo) / 100,
                            (hi - lo) / 10, 0);
  gtk_scale_set_digits (self->threshold_scale, digits_for (hi - lo));
  self->syncing = FALSE;
}

static void
on_threshold_changed (HsOverlayPanel *self)
{
  double v = gtk_adjustment_get_value (self->threshold_adjustment);

  if (self->syncing || self->state == NULL)
    return;
  if (self->have_range)
    v = (v - self->range_lo) / (self->range_hi - self->range_lo);
  g_object_set (self->state, "threshold", CLAMP (v, 0.0, 1.0), NULL);
}

static char *
format_threshold (GtkScale *scale, double value, gpointer user_data)
{
  HsOverlayPanel *self = user_data;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!self->have_range)
    return g_strdup_printf ("%.2f", value);
  hs_legend_format_tick (value, self->range_lo, self->range_hi, buf);
  return g_strdup (buf);
}

void
hs_overlay_panel_set_map_range (HsOverlayPanel *self, gboolean valid, double lo, double hi)
{
  g_return_if_fail (HS_IS_OVERLAY_PANEL (self));

  self->have_range = valid && isfinite (lo) && isfinite (hi) && hi > lo && isfinite (hi - lo);
  self->range_lo = self->have_range ? lo : 0;
  self->range_hi = self->have_range ? hi : 1;
  sync_threshold (self);
}

double
hs_overlay_panel_get_threshold_value (HsOverlayPanel *self)
{
  g_return_val_if_fail (HS_IS_OVERLAY_PANEL (self), NAN);
  return gtk_adjustment_get_value (self->threshold_adjustment);
}

void
hs_overlay_panel_set_threshold_value (HsOverlayPanel *self, double value)
{
  g_return_if_fail (HS_IS_OVERLAY_PANEL (self));
  gtk_adjustment_set_value (self->threshold_adjustment, value);
}

/* ---- image -------------------------------------------------------------- */

void
hs_overlay_panel_set_image (HsOverlayPanel *self, HsImage *image)
{
  HsImage *old;

  g_return_if_fail (HS_IS_OVERLAY_PANEL (self));

  old = self->image;
  self->image = image != NULL ? hs_image_ref (image) : NULL;
  if (old != NULL)
    hs_image_unref (old);
  sync_levels (self);
}

void
hs_overlay_panel_get_levels (HsOverlayPanel *self, double *center, double *width)
{
  double c, w;

  g_return_if_fail (HS_IS_OVERLAY_PANEL (self));
  c = gtk_adjustment_get_value (self->level_adjustment);
  w = gtk_adjustment_get_value (self->window_adjustment);
  if (center != NULL)
    *center = c;
  if (width != NULL)
    *width = w;
}

void
hs_overlay_panel_set_levels (HsOverlayPanel *self, double center, double width)
{
  g_return_if_fail (HS_IS_OVERLAY_PANEL (self));
  /* As a user does: one slider after the other. */
  gtk_adjustment_set_value (self->level_adjustment, center);
  gtk_adjustment_set_value (self->window_adjustment, width);
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
  for (guint i = 0; i < G_N_ELEMENTS (self->level_handlers); i++)
    if (self->level_handlers[i] != 0 && self->state != NULL)
      g_signal_handler_disconnect (self->state, self->level_handlers[i]);
  memset (self->level_handlers, 0, sizeof self->level_handlers);
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
  g_clear_pointer (&self->image, hs_image_unref);
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
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, level_scale);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, window_scale);
  gtk_widget_class_bind_template_child (widget_class, HsOverlayPanel, threshold_scale);
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
  g_signal_connect_swapped (self->level_adjustment, "value-changed", G_CALLBACK (on_level_changed), self);
  g_signal_connect_swapped (self->window_adjustment, "value-changed", G_CALLBACK (on_level_changed), self);
  gtk_scale_set_format_value_func (self->level_scale, format_level, self, NULL);
  gtk_scale_set_format_value_func (self->window_scale, format_level, self, NULL);
  g_signal_connect_swapped (self->threshold_adjustment, "value-changed", G_CALLBACK (on_threshold_changed), self);
  gtk_scale_set_format_value_func (self->threshold_scale, format_threshold, self, NULL);
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
      bind_choice (self, "outline", self->outline_dropdown, outline_nicks);
      bind (self, "outline-top-k", self->top_k_adjustment, "value");
      bind_choice (self, "upsample", self->upsample_dropdown, upsample_nicks);
      self->level_handlers[0] = g_signal_connect_swapped (state, "notify::window-level-center",
                                                          G_CALLBACK (sync_levels), self);
      self->level_handlers[1] = g_signal_connect_swapped (state, "notify::window-level-width",
                                                          G_CALLBACK (sync_levels), self);
      self->level_handlers[2] = g_signal_connect_swapped (state, "notify::threshold",
                                                          G_CALLBACK (sync_threshold), self);
      sync_levels (self);
      sync_threshold (self);
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
