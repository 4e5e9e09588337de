/* hs-view-state.h — how the overlay and the radiograph are shown
 *
 * One HsViewState is shared by the canvas, the overlay panel and the metrics
 * panel.  Every property is named exactly like its GSettings key in
 * data/org.heatscope.Heatscope.gschema.xml, so the window binds them with
 *
 *   for (guint i = 0; hs_view_state_settings_keys[i]; i++)
 *     g_settings_bind (settings, hs_view_state_settings_keys[i], state,
 *                      hs_view_state_settings_keys[i], G_SETTINGS_BIND_DEFAULT);
 *
 * or simply hs_view_state_bind_settings (state, settings).
 * Mode properties are strings holding the schema's choices.  The shared
 * range ("shared-min"/"shared-max", used by the "shared" scale mode when
 * several maps are compared) is not persisted: the window sets it.
 */
#pragma once

#include <gio/gio.h>
#include <heatscope/hs-resample.h>

G_BEGIN_DECLS

#define HS_TYPE_VIEW_STATE (hs_view_state_get_type ())
G_DECLARE_FINAL_TYPE (HsViewState, hs_view_state, HS, VIEW_STATE, GObject)

typedef enum {
  HS_VIEW_SCALE_MINMAX,      /* "minmax": per-map min–max                         */
  HS_VIEW_SCALE_FIXED,       /* "fixed": [scale-min, scale-max]                    */
  HS_VIEW_SCALE_SHARED,      /* "shared": [shared-min, shared-max] set by window   */
  HS_VIEW_SCALE_PERCENTILE,  /* "percentile": clip at percentile-low/-high         */
} HsViewScaleMode;

typedef enum {
  HS_VIEW_CURVE_GAMMA,       /* "gamma": v^strength                               */
  HS_VIEW_CURVE_LOG,         /* "log": −log(1 − v(1 − 1/b))/log(b), b = strength  */
} HsViewCurve;

typedef enum {
  HS_VIEW_OUTLINE_NONE,      /* "none"  */
  HS_VIEW_OUTLINE_TOP_K,     /* "top-k": outline-top-k percent of pixels */
  HS_VIEW_OUTLINE_OTSU,      /* "otsu"  */
} HsViewOutline;

/* Properties (type, default):
 *   opacity            double 0.5   [0, 1]
 *   colormap           string "jet" jet|turbo|viridis|inferno|grey|diverging
 *   scale-mode         string "minmax"  minmax|fixed|shared|percentile
 *   scale-min          double 0.0   scale-max double 1.0
 *   percentile-low     double 1.0   percentile-high double 99.0
 *   shared-min         double 0.0   shared-max double 1.0   (not persisted)
 *   strength-curve     string "gamma"  gamma|log
 *   strength           double 1.0   gamma exponent, or log base b (> 1)
 *   threshold          double 0.0   normalised values below fade out
 *   upsample           string "bilinear"  bilinear|nearest
 *   outline            string "none"  none|top-k|otsu
 *   outline-top-k      double 10.0  percent
 *   window-level-center double −1  fraction of the full grey range; < 0 = auto
 *   window-level-width  double −1  fraction; <= 0 = full range
 *   show-boxes, show-masks, show-overlay, show-no-attn  boolean TRUE
 *
 * "changed" is emitted once per property change with a detail telling the
 * canvas what to redo: "composite" (opacity only), "overlay" (the colour-
 * mapped overlay must be rebuilt), "image" (window/level), "decor" (boxes,
 * masks, outline, gauge visibility). */
extern const char * const hs_view_state_settings_keys[];

HsViewState    *hs_view_state_new                (void);
void            hs_view_state_bind_settings      (HsViewState *self, GSettings *settings);

double          hs_view_state_get_opacity        (HsViewState *self);
void            hs_view_state_set_opacity        (HsViewState *self, double opacity);
const char     *hs_view_state_get_colormap       (HsViewState *self);
void            hs_view_state_set_colormap       (HsViewState *self, const char *name);
HsViewScaleMode hs_view_state_get_scale_mode     (HsViewState *self);
void            hs_view_state_set_scale_mode     (HsViewState *self, HsViewScaleMode mode);
HsViewCurve     hs_view_state_get_curve          (HsViewState *self);
double          hs_view_state_get_strength       (HsViewState *self);
double          hs_view_state_get_threshold      (HsViewState *self);
HsUpsample      hs_view_state_get_upsample       (HsViewState *self);
HsViewOutline   hs_view_state_get_outline        (HsViewState *self);
double          hs_view_state_get_outline_top_k  (HsViewState *self);
void            hs_view_state_set_shared_range   (HsViewState *self, double min, double max);
/* Window/level as fractions of the full range (center < 0: auto → 0.5;
 * width <= 0: full range → 1). */
void            hs_view_state_get_window_level   (HsViewState *self, double *center, double *width);
void            hs_view_state_set_window_level   (HsViewState *self, double center, double width);
gboolean        hs_view_state_get_show_boxes     (HsViewState *self);
gboolean        hs_view_state_get_show_masks     (HsViewState *self);
gboolean        hs_view_state_get_show_overlay   (HsViewState *self);
gboolean        hs_view_state_get_show_no_attn   (HsViewState *self);

/* Applies scale + strength to one value: returns the normalised, curved
 * value in [0, 1] given the display range [lo, hi]. */
double          hs_view_state_apply_curve        (HsViewState *self, double v, double lo, double hi);
/* Label printed on the colour bar, e.g. "min–max", "fixed [0, 1]",
 * "percentile 1–99 %", plus ", γ 0.5" or ", log b=10" when not linear. */
char           *hs_view_state_describe_scale     (HsViewState *self);

G_END_DECLS
