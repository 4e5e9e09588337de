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
#include <heatscope/hs-overlay.h>
#include <heatscope/hs-contour.h>

G_BEGIN_DECLS

/* The first look (also the GSettings schema's defaults): a perceptual map
 * whose lightness rises with attention, the lowest fifth of the colour bar
 * transparent and the rest at 0.6, so the radiograph stays readable around
 * the attended region (jet at 0.5 with no threshold tinted all of it). */
#define HS_VIEW_STATE_DEFAULT_COLORMAP  "inferno"
#define HS_VIEW_STATE_DEFAULT_OPACITY   0.6
#define HS_VIEW_STATE_DEFAULT_THRESHOLD 0.2

#define HS_TYPE_VIEW_STATE (hs_view_state_get_type ())
G_DECLARE_FINAL_TYPE (HsViewState, hs_view_state, HS, VIEW_STATE, GObject)

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
/* Every property of `source` (the settings keys and the shared range) into
 * `self`, each emitting "changed" only when it differs. */
void            hs_view_state_copy_from          (HsViewState *self, HsViewState *source);

double          hs_view_state_get_opacity        (HsViewState *self);
void            hs_view_state_set_opacity        (HsViewState *self, double opacity);
const char     *hs_view_state_get_colormap       (HsViewState *self);
void            hs_view_state_set_colormap       (HsViewState *self, const char *name);
HsScaleMode     hs_view_state_get_scale_mode     (HsViewState *self);
void            hs_view_state_set_scale_mode     (HsViewState *self, HsScaleMode mode);
HsStrength      hs_view_state_get_curve          (HsViewState *self);
double          hs_view_state_get_strength       (HsViewState *self);
double          hs_view_state_get_threshold      (HsViewState *self);
HsUpsample      hs_view_state_get_upsample       (HsViewState *self);
HsOutline       hs_view_state_get_outline        (HsViewState *self);
double          hs_view_state_get_outline_top_k  (HsViewState *self);
void            hs_view_state_set_shared_range   (HsViewState *self, double min, double max);
/* Window/level as fractions of the full range (center < 0: auto → 0.5;
 * width <= 0: full range → 1). */
void            hs_view_state_get_window_level   (HsViewState *self, double *center, double *width);
/* TRUE while window/level is automatic (never set, or reset): the canvas
 * then shows the image's own initial window (a DICOM file's). */
gboolean        hs_view_state_get_window_level_auto (HsViewState *self);
void            hs_view_state_set_window_level   (HsViewState *self, double center, double width);
gboolean        hs_view_state_get_show_boxes     (HsViewState *self);
gboolean        hs_view_state_get_show_masks     (HsViewState *self);
gboolean        hs_view_state_get_show_overlay   (HsViewState *self);
gboolean        hs_view_state_get_show_no_attn   (HsViewState *self);

/* The overlay options of the library renderer (hs-overlay.h) for this
 * state: colour map, scale spec (shared range included; symmetric for the
 * diverging map), strength, threshold, upsampling, opacity. */
void            hs_view_state_get_overlay_options (HsViewState *self, HsOverlayOptions *options);

G_END_DECLS
