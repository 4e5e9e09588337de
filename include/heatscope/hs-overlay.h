/* hs-overlay.h — attention map → coloured, composited overlay
 *
 * The pipeline is split so a UI stays smooth:
 *
 *   grid ──resample──▶ HsOverlayField            (on map / size / upsample change)
 *        ──colorize──▶ premultiplied ARGB32       (on scale / strength / colour map / threshold)
 *        ──composite─▶ RGB24 over the levelled image  (on opacity / window-level change)
 *
 * Order of operations for one pixel with map value v:
 *   s = clamp((v − lo)/(hi − lo), 0, 1)             value scaling (HsScaleRange)
 *   c = strength(s)                                  gamma s^γ or the log curve
 *   rgb = LUT[round(c·255)]                          colour map
 *   alpha = threshold(s)                             on the SCALED value s
 * with lo → 0 and hi → 1; when hi == lo, s = 0 for v ≤ lo and 1 above.
 *
 * Transparent threshold t (0 = off): alpha = 1 for s ≥ t, 0 for s ≤ t − band,
 * a linear ramp between (band = threshold_band, default 0.05; band 0 = hard
 * cut).  Values at or above the threshold are never faded.
 *
 * Colorizing is table look-ups only: the field keeps values quantised to 16
 * bits over the grid's min..max, s is taken to 4096 levels for the strength
 * curve and threshold, and the result to the 256 colours of the map — far
 * below what a display shows; metrics never use these tables.
 */
#pragma once

#include <glib.h>
#include <cairo.h>

#include "hs-colormap.h"
#include "hs-resample.h"

G_BEGIN_DECLS

#define HS_OVERLAY_ERROR (hs_overlay_error_quark ())
GQuark hs_overlay_error_quark (void);

typedef enum {
  HS_OVERLAY_ERROR_INVALID,     /* bad sizes, empty input, non-finite values, bad option */
  HS_OVERLAY_ERROR_TOO_LARGE,   /* refused by HsLimits before allocating                 */
} HsOverlayError;

/* ---- value scaling ------------------------------------------------------ */

typedef enum {
  HS_SCALE_MINMAX,       /* "minmax": min..max of this map                         */
  HS_SCALE_FIXED,        /* "fixed": [lo, hi] in map units                          */
  HS_SCALE_SHARED,       /* "shared": [lo, hi] from hs_scale_shared_range() over a set */
  HS_SCALE_PERCENTILE,   /* "percentile": [P(p_lo), P(p_hi)] of this map            */
} HsScaleMode;

typedef struct {
  HsScaleMode mode;
  double      lo, hi;        /* FIXED and SHARED: the range in map units          */
  double      p_lo, p_hi;    /* PERCENTILE: percents in [0, 100], p_lo < p_hi     */
  gboolean    symmetric;     /* widen to [−m, m], m = max(|lo|, |hi|) (differences) */
} HsScaleSpec;

/* The resolved range: value lo → 0, hi → 1. */
typedef struct {
  double lo, hi;
} HsScaleRange;

const char *hs_scale_mode_to_string   (HsScaleMode mode);   /* "minmax", "fixed", ... */
gboolean    hs_scale_mode_from_string (const char *name, HsScaleMode *mode);
/* Parses the CLI form "minmax", "fixed:LO:HI", "percentile:P1:P2",
 * "shared:LO:HI". */
gboolean    hs_scale_spec_parse       (const char *text, HsScaleSpec *spec, GError **error);
void        hs_scale_spec_init        (HsScaleSpec *spec);   /* min–max */

/* Resolves `spec` for one map's values (the grid cells, not the upsampled
 * pixels; bilinear and nearest upsampling never leave [min, max]).
 * Percentiles are numpy.percentile's default (linear interpolation between
 * closest ranks).  Non-finite values or n = 0 are an error. */
gboolean    hs_scale_resolve          (const HsScaleSpec *spec, const double *values, gsize n,
                                       HsScaleRange *range, GError **error);
/* min..max over several maps (for HS_SCALE_SHARED). */
gboolean    hs_scale_shared_range     (const double * const *maps, const gsize *n_values,
                                       guint n_maps, double *lo, double *hi, GError **error);
/* Label for the colour bar: "min–max 0.0012 to 0.0831", "percentile 1 to 99 %",
 * "shared 0 to 0.12", "fixed 0 to 1" (numbers with 3 significant digits, C
 * locale; the range with " to ", as a dash between numbers reads as a minus
 * sign).  Free with g_free. */
char       *hs_scale_describe         (const HsScaleSpec *spec, const HsScaleRange *range);
/* s = clamp((v − lo)/(hi − lo), 0, 1) as described above. */
double      hs_scale_apply            (const HsScaleRange *range, double v);

/* ---- strength curves ---------------------------------------------------- */

typedef enum {
  HS_STRENGTH_GAMMA,     /* "gamma": s^γ (γ = 1 is linear)                      */
  HS_STRENGTH_LOG,       /* "log": −log(1 − s(1 − 1/b))/log(b), b > 1 (Oliveira) */
} HsStrength;

const char *hs_strength_to_string     (HsStrength curve);
gboolean    hs_strength_from_string   (const char *name, HsStrength *curve);
/* Curve at s ∈ [0, 1] (clamped); 0 → 0 and 1 → 1 for every parameter.
 * `param` is γ (> 0) or b (> 1; b ≤ 1 falls back to linear). */
double      hs_strength_apply         (HsStrength curve, double param, double s);
/* Alpha of the transparent threshold at scaled value s (see above). */
double      hs_threshold_alpha        (double threshold, double band, double s);

/* ---- options ------------------------------------------------------------ */

typedef struct {
  HsColormap  colormap;         /* default HS_COLORMAP_JET              */
  HsScaleSpec scale;            /* default min–max                       */
  HsStrength  strength;         /* default gamma                         */
  double      strength_param;   /* γ or b; default 1 (linear)            */
  double      threshold;        /* scaled value in [0, 1]; 0 = off       */
  double      threshold_band;   /* default 0.05; 0 = hard                */
  HsUpsample  upsample;         /* default bilinear                      */
  double      opacity;          /* [0, 1]; default 0.5 (composite only)  */
} HsOverlayOptions;

void        hs_overlay_options_init   (HsOverlayOptions *options);

/* n ≥ 2 premultiplied ARGB32 pixels (cairo's native-endian uint32 layout),
 * entry i for the scaled value s = i/(n − 1): strength, colour map and
 * threshold included (scale excluded).  Useful for a colour bar. */
void        hs_overlay_build_lut      (const HsOverlayOptions *options, guint32 *lut, guint n);

/* ---- step 1: resample and colorize ------------------------------------- */

/* The map resampled (hs_resample_region) to out_w × out_h, or to the
 * sub-rectangle [x0, x0+rw) × [y0, y0+rh) of it, kept quantised to 16 bits
 * between the grid's min and max (display precision; metrics never use it).
 * Reference counted and immutable, so it can be shared with a worker thread. */
typedef struct _HsOverlayField HsOverlayField;

HsOverlayField *hs_overlay_field_new        (const double *grid, guint w, guint h,
                                             guint out_w, guint out_h, HsUpsample upsample,
                                             GError **error);
HsOverlayField *hs_overlay_field_new_region (const double *grid, guint w, guint h,
                                             guint out_w, guint out_h,
                                             guint x0, guint y0, guint rw, guint rh,
                                             HsUpsample upsample, GError **error);
HsOverlayField *hs_overlay_field_ref        (HsOverlayField *field);
void            hs_overlay_field_unref      (HsOverlayField *field);
guint           hs_overlay_field_get_width  (const HsOverlayField *field);   /* rw */
guint           hs_overlay_field_get_height (const HsOverlayField *field);   /* rh */
/* Approximate value at field pixel (x, y) (within (max−min)/65535). */
double          hs_overlay_field_get_value  (const HsOverlayField *field, guint x, guint y);

/* Colours the field with `range` and `options` into a new premultiplied
 * CAIRO_FORMAT_ARGB32 surface of the field's size (uses 2 threads for large
 * fields).  NULL on error. */
cairo_surface_t *hs_overlay_field_colorize  (const HsOverlayField *field, const HsScaleRange *range,
                                             const HsOverlayOptions *options, GError **error);
/* Same, into an existing ARGB32 surface of the field's size (no allocation). */
gboolean         hs_overlay_field_colorize_into (const HsOverlayField *field,
                                                 const HsScaleRange *range,
                                                 const HsOverlayOptions *options,
                                                 cairo_surface_t *target, GError **error);

/* The table behind hs_overlay_field_colorize: entry q is the premultiplied
 * ARGB32 pixel of quantised field value q (HS_OVERLAY_Q_LEVELS entries).  A
 * strength, scale or colour-map change then costs this table plus one look-up
 * per pixel of whatever quantised view the caller keeps (the canvas keeps the
 * visible part at screen resolution). */
#define HS_OVERLAY_Q_LEVELS 65536
gboolean         hs_overlay_field_build_lut (const HsOverlayField *field, const HsScaleRange *range,
                                             const HsOverlayOptions *options, guint32 *lut,
                                             GError **error);
/* The quantised values, rw × rh row-major (q = 0 is the grid's min, 65535 its max). */
const guint16   *hs_overlay_field_peek_quantised (const HsOverlayField *field);
/* dst pixel (x, y) = lut[q[y·q_stride + x]] for w × h pixels; dst_stride in
 * bytes (2 threads when large). */
void             hs_overlay_apply_lut       (const guint32 *lut, const guint16 *q, gsize q_stride,
                                             guint w, guint h, guint8 *dst, gsize dst_stride);

/* One-shot: grid → resample → scale → strength → LUT → ARGB32 out_w × out_h.
 * `range` may be NULL: resolved from the grid with options->scale (SHARED
 * and FIXED use options->scale.lo/hi). */
cairo_surface_t *hs_overlay_colorize        (const double *grid, guint w, guint h,
                                             const HsOverlayOptions *options,
                                             const HsScaleRange *range,
                                             guint out_w, guint out_h, GError **error);

/* ---- step 2: composite -------------------------------------------------- */

/* out = image · (1 − opacity·α) + opacity·overlay (premultiplied), per
 * channel in 8 bits: with m = round(255·opacity), c' = c·m/255,
 * α' = α·m/255, out = c' + image·(255 − α')/255, each division rounded
 * (pixman's OVER with a constant mask; SSE2, 2 threads).  `image` is the levelled RGB24 (or ARGB32,
 * alpha ignored) surface from hs_image_levels(); `overlay` an ARGB32 surface
 * of the same size (NULL = the image alone).  Returns a new RGB24 surface. */
cairo_surface_t *hs_overlay_composite       (cairo_surface_t *image, cairo_surface_t *overlay,
                                             double opacity, GError **error);
/* Same into an existing RGB24/ARGB32 surface `target` of the same size
 * (may be `image` itself). */
gboolean         hs_overlay_composite_into  (cairo_surface_t *image, cairo_surface_t *overlay,
                                             double opacity, cairo_surface_t *target,
                                             GError **error);

/* Same blend with the overlay given as quantised values and their table
 * (hs_overlay_field_build_lut): overlay pixel (x, y) = lut[q[y·q_stride + x]],
 * looked up on the fly — identical to colouring into a surface first. */
gboolean         hs_overlay_composite_lut_into (cairo_surface_t *image, const guint32 *lut,
                                                const guint16 *q, gsize q_stride, double opacity,
                                                cairo_surface_t *target, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsOverlayField, hs_overlay_field_unref)

G_END_DECLS
