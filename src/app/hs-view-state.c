/* hs-view-state.c — how the overlay and the radiograph are shown */
#include <math.h>

#include <glib/gi18n.h>

#include "hs-view-state.h"

struct _HsViewState
{
  GObject parent_instance;

  double   opacity;
  int      colormap;     /* index in colormaps[] */
  int      scale_mode;   /* HsScaleMode */
  double   scale_min, scale_max;
  double   percentile_low, percentile_high;
  double   shared_min, shared_max;
  int      curve;        /* HsStrength */
  double   strength;
  double   threshold;
  HsUpsample upsample;
  int      outline;      /* HsOutline */
  double   outline_top_k;
  double   wl_center, wl_width;
  gboolean show_boxes, show_masks, show_overlay, show_no_attn;
};

G_DEFINE_FINAL_TYPE (HsViewState, hs_view_state, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_OPACITY,
  PROP_COLORMAP,
  PROP_SCALE_MODE,
  PROP_SCALE_MIN,
  PROP_SCALE_MAX,
  PROP_PERCENTILE_LOW,
  PROP_PERCENTILE_HIGH,
  PROP_SHARED_MIN,
  PROP_SHARED_MAX,
  PROP_STRENGTH_CURVE,
  PROP_STRENGTH,
  PROP_THRESHOLD,
  PROP_UPSAMPLE,
  PROP_OUTLINE,
  PROP_OUTLINE_TOP_K,
  PROP_WL_CENTER,
  PROP_WL_WIDTH,
  PROP_SHOW_BOXES,
  PROP_SHOW_MASKS,
  PROP_SHOW_OVERLAY,
  PROP_SHOW_NO_ATTN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

const char * const hs_view_state_settings_keys[] = {
  "opacity", "colormap", "scale-mode", "scale-min", "scale-max", "percentile-low",
  "percentile-high", "strength-curve", "strength", "threshold", "upsample", "outline",
  "outline-top-k", "window-level-center", "window-level-width", "show-boxes", "show-masks",
  "show-overlay", "show-no-attn", NULL
};

static const char * const colormaps[] = { "jet", "turbo", "viridis", "inferno", "grey", "diverging", NULL };
static const char * const scale_modes[] = { "minmax", "fixed", "shared", "percentile", NULL };
static const char * const curves[] = { "gamma", "log", NULL };
static const char * const outlines[] = { "none", "top-k", "otsu", NULL };

static int
index_of (const char * const *names, const char *name)
{
  for (int i = 0; name && names[i]; i++)
    if (g_str_equal (names[i], name))
      return i;
  return -1;
}

/* What the canvas must redo when a property changes. */
static const char *
change_detail (guint prop_id)
{
  switch (prop_id)
    {
    case PROP_OPACITY:
      return "composite";
    case PROP_WL_CENTER:
    case PROP_WL_WIDTH:
      return "image";
    case PROP_SHOW_BOXES:
    case PROP_SHOW_MASKS:
    case PROP_SHOW_NO_ATTN:
    case PROP_OUTLINE:
    case PROP_OUTLINE_TOP_K:
      return "decor";
    default:
      return "overlay";
    }
}

/* Says that property `prop_id` took a new value: its notify, and "changed"
 * with what the canvas must redo. */
static void
changed (HsViewState *self, guint prop_id)
{
  const char *detail = change_detail (prop_id);

  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
  g_signal_emit (self, signals[CHANGED], g_quark_from_static_string (detail), detail);
}

static void
set_double (HsViewState *self, double *field, double value, guint prop_id)
{
  if (!isfinite (value) || *field == value)
    return;
  *field = value;
  changed (self, prop_id);
}

static void
set_boolean (HsViewState *self, gboolean *field, gboolean value, guint prop_id)
{
  value = !!value;
  if (*field == value)
    return;
  *field = value;
  changed (self, prop_id);
}

static void
set_choice (HsViewState *self, int *field, const char * const *names, const char *name,
            guint prop_id)
{
  int i = index_of (names, name);

  if (i < 0)
    {
      g_warning ("HsViewState: unknown value “%s” for “%s”", name ? name : "(null)",
                 g_param_spec_get_name (properties[prop_id]));
      return;
    }
  if (*field == i)
    return;
  *field = i;
  changed (self, prop_id);
}

static void
hs_view_state_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  HsViewState *self = HS_VIEW_STATE (object);

  switch (prop_id)
    {
    case PROP_OPACITY:         g_value_set_double (value, self->opacity); break;
    case PROP_COLORMAP:        g_value_set_string (value, colormaps[self->colormap]); break;
    case PROP_SCALE_MODE:      g_value_set_string (value, scale_modes[self->scale_mode]); break;
    case PROP_SCALE_MIN:       g_value_set_double (value, self->scale_min); break;
    case PROP_SCALE_MAX:       g_value_set_double (value, self->scale_max); break;
    case PROP_PERCENTILE_LOW:  g_value_set_double (value, self->percentile_low); break;
    case PROP_PERCENTILE_HIGH: g_value_set_double (value, self->percentile_high); break;
    case PROP_SHARED_MIN:      g_value_set_double (value, self->shared_min); break;
    case PROP_SHARED_MAX:      g_value_set_double (value, self->shared_max); break;
    case PROP_STRENGTH_CURVE:  g_value_set_string (value, curves[self->curve]); break;
    case PROP_STRENGTH:        g_value_set_double (value, self->strength); break;
    case PROP_THRESHOLD:       g_value_set_double (value, self->threshold); break;
    case PROP_UPSAMPLE:        g_value_set_string (value, hs_upsample_to_string (self->upsample)); break;
    case PROP_OUTLINE:         g_value_set_string (value, outlines[self->outline]); break;
    case PROP_OUTLINE_TOP_K:   g_value_set_double (value, self->outline_top_k); break;
    case PROP_WL_CENTER:       g_value_set_double (value, self->wl_center); break;
    case PROP_WL_WIDTH:        g_value_set_double (value, self->wl_width); break;
    case PROP_SHOW_BOXES:      g_value_set_boolean (value, self->show_boxes); break;
    case PROP_SHOW_MASKS:      g_value_set_boolean (value, self->show_masks); break;
    case PROP_SHOW_OVERLAY:    g_value_set_boolean (value, self->show_overlay); break;
    case PROP_SHOW_NO_ATTN:    g_value_set_boolean (value, self->show_no_attn); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_view_state_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  HsViewState *self = HS_VIEW_STATE (object);

  switch (prop_id)
    {
    case PROP_OPACITY:         set_double (self, &self->opacity, g_value_get_double (value), prop_id); break;
    case PROP_COLORMAP:
      set_choice (self, &self->colormap, colormaps, g_value_get_string (value), prop_id);
      break;
    case PROP_SCALE_MODE:
      set_choice (self, &self->scale_mode, scale_modes, g_value_get_string (value), prop_id);
      break;
    case PROP_SCALE_MIN:       set_double (self, &self->scale_min, g_value_get_double (value), prop_id); break;
    case PROP_SCALE_MAX:       set_double (self, &self->scale_max, g_value_get_double (value), prop_id); break;
    case PROP_PERCENTILE_LOW:  set_double (self, &self->percentile_low, g_value_get_double (value), prop_id); break;
    case PROP_PERCENTILE_HIGH: set_double (self, &self->percentile_high, g_value_get_double (value), prop_id); break;
    case PROP_SHARED_MIN:      set_double (self, &self->shared_min, g_value_get_double (value), prop_id); break;
    case PROP_SHARED_MAX:      set_double (self, &self->shared_max, g_value_get_double (value), prop_id); break;
    case PROP_STRENGTH_CURVE:
      set_choice (self, &self->curve, curves, g_value_get_string (value), prop_id);
      break;
    case PROP_STRENGTH:        set_double (self, &self->strength, g_value_get_double (value), prop_id); break;
    case PROP_THRESHOLD:       set_double (self, &self->threshold, g_value_get_double (value), prop_id); break;
    case PROP_UPSAMPLE:
      {
        HsUpsample mode;
        if (!hs_upsample_from_string (g_value_get_string (value), &mode))
          {
            g_warning ("HsViewState: unknown upsampling “%s”", g_value_get_string (value));
            break;
          }
        if (mode != self->upsample)
          {
            self->upsample = mode;
            changed (self, prop_id);
          }
      }
      break;
    case PROP_OUTLINE:
      set_choice (self, &self->outline, outlines, g_value_get_string (value), prop_id);
      break;
    case PROP_OUTLINE_TOP_K:   set_double (self, &self->outline_top_k, g_value_get_double (value), prop_id); break;
    case PROP_WL_CENTER:       set_double (self, &self->wl_center, g_value_get_double (value), prop_id); break;
    case PROP_WL_WIDTH:        set_double (self, &self->wl_width, g_value_get_double (value), prop_id); break;
    case PROP_SHOW_BOXES:      set_boolean (self, &self->show_boxes, g_value_get_boolean (value), prop_id); break;
    case PROP_SHOW_MASKS:      set_boolean (self, &self->show_masks, g_value_get_boolean (value), prop_id); break;
    case PROP_SHOW_OVERLAY:    set_boolean (self, &self->show_overlay, g_value_get_boolean (value), prop_id); break;
    case PROP_SHOW_NO_ATTN:    set_boolean (self, &self->show_no_attn, g_value_get_boolean (value), prop_id); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_view_state_class_init (HsViewStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = hs_view_state_get_property;
  object_class->set_property = hs_view_state_set_property;

  properties[PROP_OPACITY] = g_param_spec_double ("opacity", NULL, NULL, 0, 1, HS_VIEW_STATE_DEFAULT_OPACITY, rw);
  properties[PROP_COLORMAP] = g_param_spec_string ("colormap", NULL, NULL, HS_VIEW_STATE_DEFAULT_COLORMAP, rw);
  properties[PROP_SCALE_MODE] = g_param_spec_string ("scale-mode", NULL, NULL, "minmax", rw);
  properties[PROP_SCALE_MIN] = g_param_spec_double ("scale-min", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, rw);
  properties[PROP_SCALE_MAX] = g_param_spec_double ("scale-max", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1, rw);
  properties[PROP_PERCENTILE_LOW] = g_param_spec_double ("percentile-low", NULL, NULL, 0, 100, 1, rw);
  properties[PROP_PERCENTILE_HIGH] = g_param_spec_double ("percentile-high", NULL, NULL, 0, 100, 99, rw);
  properties[PROP_SHARED_MIN] = g_param_spec_double ("shared-min", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, rw);
  properties[PROP_SHARED_MAX] = g_param_spec_double ("shared-max", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1, rw);
  properties[PROP_STRENGTH_CURVE] = g_param_spec_string ("strength-curve", NULL, NULL, "gamma", rw);
  properties[PROP_STRENGTH] = g_param_spec_double ("strength", NULL, NULL, 0.01, 100, 1, rw);
  properties[PROP_THRESHOLD] = g_param_spec_double ("threshold", NULL, NULL, 0, 1, HS_VIEW_STATE_DEFAULT_THRESHOLD, rw);
  properties[PROP_UPSAMPLE] = g_param_spec_string ("upsample", NULL, NULL, "bilinear", rw);
  properties[PROP_OUTLINE] = g_param_spec_string ("outline", NULL, NULL, "none", rw);
  properties[PROP_OUTLINE_TOP_K] = g_param_spec_double ("outline-top-k", NULL, NULL, 0.1, 100, 10, rw);
  properties[PROP_WL_CENTER] = g_param_spec_double ("window-level-center", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, -1, rw);
  properties[PROP_WL_WIDTH] = g_param_spec_double ("window-level-width", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, -1, rw);
  properties[PROP_SHOW_BOXES] = g_param_spec_boolean ("show-boxes", NULL, NULL, TRUE, rw);
  properties[PROP_SHOW_MASKS] = g_param_spec_boolean ("show-masks", NULL, NULL, TRUE, rw);
  properties[PROP_SHOW_OVERLAY] = g_param_spec_boolean ("show-overlay", NULL, NULL, TRUE, rw);
  properties[PROP_SHOW_NO_ATTN] = g_param_spec_boolean ("show-no-attn", NULL, NULL, TRUE, rw);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* HsViewState::changed (detail: "composite", "overlay", "image", "decor") */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
hs_view_state_init (HsViewState *self)
{
  self->opacity = HS_VIEW_STATE_DEFAULT_OPACITY;
  self->colormap = index_of (colormaps, HS_VIEW_STATE_DEFAULT_COLORMAP);
  self->scale_mode = HS_SCALE_MINMAX;
  self->scale_min = 0;
  self->scale_max = 1;
  self->percentile_low = 1;
  self->percentile_high = 99;
  self->shared_min = 0;
  self->shared_max = 1;
  self->curve = HS_STRENGTH_GAMMA;
  self->strength = 1;
  self->threshold = HS_VIEW_STATE_DEFAULT_THRESHOLD;
  self->upsample = HS_UPSAMPLE_BILINEAR;
  self->outline = HS_OUTLINE_NONE;
  self->outline_top_k = 10;
  self->wl_center = -1;
  self->wl_width = -1;
  self->show_boxes = self->show_masks = self->show_overlay = self->show_no_attn = TRUE;
}

HsViewState *
hs_view_state_new (void)
{
  return g_object_new (HS_TYPE_VIEW_STATE, NULL);
}

void
hs_view_state_copy_from (HsViewState *self, HsViewState *source)
{
  g_return_if_fail (HS_IS_VIEW_STATE (self));
  g_return_if_fail (HS_IS_VIEW_STATE (source));

  for (guint i = 0; hs_view_state_settings_keys[i] != NULL; i++)
    {
      GValue value = G_VALUE_INIT;
      GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (source),
                                                        hs_view_state_settings_keys[i]);

      g_value_init (&value, pspec->value_type);
      g_object_get_property (G_OBJECT (source), pspec->name, &value);
      g_object_set_property (G_OBJECT (self), pspec->name, &value);
      g_value_unset (&value);
    }
  hs_view_state_set_shared_range (self, source->shared_min, source->shared_max);
}

void
hs_view_state_bind_settings (HsViewState *self, GSettings *settings)
{
  g_autoptr(GSettingsSchema) schema = NULL;

  g_return_if_fail (HS_IS_VIEW_STATE (self));
  g_return_if_fail (G_IS_SETTINGS (settings));

  g_object_get (settings, "settings-schema", &schema, NULL);
  for (guint i = 0; hs_view_state_settings_keys[i]; i++)
    if (schema == NULL || g_settings_schema_has_key (schema, hs_view_state_settings_keys[i]))
      g_settings_bind (settings, hs_view_state_settings_keys[i], self,
                       hs_view_state_settings_keys[i], G_SETTINGS_BIND_DEFAULT);
}

double
hs_view_state_get_opacity (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), 0);
  return self->opacity;
}

void
hs_view_state_set_opacity (HsViewState *self, double opacity)
{
  g_return_if_fail (HS_IS_VIEW_STATE (self));
  set_double (self, &self->opacity, CLAMP (opacity, 0.0, 1.0), PROP_OPACITY);
}

const char *
hs_view_state_get_colormap (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), NULL);
  return colormaps[self->colormap];
}

void
hs_view_state_set_colormap (HsViewState *self, const char *name)
{
  g_return_if_fail (HS_IS_VIEW_STATE (self));
  g_object_set (self, "colormap", name, NULL);
}

HsScaleMode
hs_view_state_get_scale_mode (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), HS_SCALE_MINMAX);
  return self->scale_mode;
}

void
hs_view_state_set_scale_mode (HsViewState *self, HsScaleMode mode)
{
  g_return_if_fail (HS_IS_VIEW_STATE (self));
  g_return_if_fail (mode <= HS_SCALE_PERCENTILE);
  set_choice (self, &self->scale_mode, scale_modes, scale_modes[mode], PROP_SCALE_MODE);
}

HsStrength
hs_view_state_get_curve (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), HS_STRENGTH_GAMMA);
  return self->curve;
}

double
hs_view_state_get_strength (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), 1);
  return self->strength;
}

double
hs_view_state_get_threshold (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), 0);
  return self->threshold;
}

HsUpsample
hs_view_state_get_upsample (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), HS_UPSAMPLE_BILINEAR);
  return self->upsample;
}

HsOutline
hs_view_state_get_outline (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), HS_OUTLINE_NONE);
  return self->outline;
}

double
hs_view_state_get_outline_top_k (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), 10);
  return self->outline_top_k;
}

void
hs_view_state_set_shared_range (HsViewState *self, double min, double max)
{
  g_return_if_fail (HS_IS_VIEW_STATE (self));
  g_object_freeze_notify (G_OBJECT (self));
  set_double (self, &self->shared_min, min, PROP_SHARED_MIN);
  set_double (self, &self->shared_max, max, PROP_SHARED_MAX);
  g_object_thaw_notify (G_OBJECT (self));
}

void
hs_view_state_get_window_level (HsViewState *self, double *center, double *width)
{
  g_return_if_fail (HS_IS_VIEW_STATE (self));
  if (center)
    *center = self->wl_center < 0 ? 0.5 : self->wl_center;
  if (width)
    *width = self->wl_width <= 0 ? 1.0 : self->wl_width;
}

gboolean
hs_view_state_get_window_level_auto (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), TRUE);
  return self->wl_center < 0 || self->wl_width <= 0;
}

void
hs_view_state_set_window_level (HsViewState *self, double center, double width)
{
  g_return_if_fail (HS_IS_VIEW_STATE (self));
  g_object_freeze_notify (G_OBJECT (self));
  set_double (self, &self->wl_center, center, PROP_WL_CENTER);
  set_double (self, &self->wl_width, width, PROP_WL_WIDTH);
  g_object_thaw_notify (G_OBJECT (self));
}

gboolean
hs_view_state_get_show_boxes (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), TRUE);
  return self->show_boxes;
}

gboolean
hs_view_state_get_show_masks (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), TRUE);
  return self->show_masks;
}

gboolean
hs_view_state_get_show_overlay (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), TRUE);
  return self->show_overlay;
}

gboolean
hs_view_state_get_show_no_attn (HsViewState *self)
{
  g_return_val_if_fail (HS_IS_VIEW_STATE (self), TRUE);
  return self->show_no_attn;
}

void
hs_view_state_get_overlay_options (HsViewState *self, HsOverlayOptions *options)
{
  g_return_if_fail (HS_IS_VIEW_STATE (self));
  g_return_if_fail (options != NULL);

  hs_overlay_options_init (options);
  if (!hs_colormap_from_string (colormaps[self->colormap], &options->colormap))
    options->colormap = HS_COLORMAP_JET;
  hs_scale_spec_init (&options->scale);
  options->scale.mode = self->scale_mode;
  switch (self->scale_mode)
    {
    case HS_SCALE_FIXED:
      options->scale.lo = MIN (self->scale_min, self->scale_max);
      options->scale.hi = MAX (self->scale_min, self->scale_max);
      break;
    case HS_SCALE_SHARED:
      options->scale.lo = MIN (self->shared_min, self->shared_max);
      options->scale.hi = MAX (self->shared_min, self->shared_max);
      break;
    case HS_SCALE_PERCENTILE:
      options->scale.p_lo = MIN (self->percentile_low, self->percentile_high);
      options->scale.p_hi = MAX (self->percentile_low, self->percentile_high);
      if (options->scale.p_hi <= options->scale.p_lo)
        {
          /* Equal percentiles would make an empty range: widen minimally. */
          options->scale.p_lo = MAX (0.0, options->scale.p_hi - 0.5);
          options->scale.p_hi = MIN (100.0, options->scale.p_lo + 1.0);
        }
      break;
    default:
      break;
    }
  options->scale.symmetric = hs_colormap_is_diverging (options->colormap);
  options->strength = self->curve;
  options->strength_param = self->strength;
  options->threshold = self->threshold;
  options->upsample = self->upsample;
  options->opacity = self->opacity;
}
