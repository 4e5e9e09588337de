/* hs-baselines.h — null baselines of metrics.md, scored like a model's map */
#pragma once

#include <glib.h>
#include "hs-image.h"
#include "hs-attention-map.h"
#include "hs-target.h"
#include "hs-metrics.h"

G_BEGIN_DECLS

#define HS_BASELINE_ERROR (hs_baseline_error_quark ())
GQuark hs_baseline_error_quark (void);

typedef enum {
  HS_BASELINE_ERROR_NEEDS_IMAGE,  /* sobel/laplace without an image        */
  HS_BASELINE_ERROR_INVALID,      /* zero-size grid, image size mismatch    */
  HS_BASELINE_ERROR_TOO_LARGE,
} HsBaselineError;

typedef enum {
  HS_BASELINE_UNIFORM,   /* constant map                                       */
  HS_BASELINE_CENTER,    /* Gaussian at the image centre, σ = 0.25·max(W, H)   */
  HS_BASELINE_SOBEL,     /* Sobel gradient magnitude of the grey image          */
  HS_BASELINE_LAPLACE,   /* |Laplacian| of the grey image                       */
  HS_BASELINE_RANDOM,    /* uniform noise [0, 1) on the model's grid, seeded    */
} HsBaseline;

#define HS_N_BASELINES 5
#define HS_BASELINE_DEFAULT_SEED 20240229u
/* Grid side of the baselines scored alone, without a model's map (metrics.md). */
#define HS_BASELINE_GRID_WITHOUT_MAP 16

const char *hs_baseline_to_string   (HsBaseline baseline);  /* "uniform", "center", ... */
gboolean    hs_baseline_from_string (const char *name, HsBaseline *baseline);
/* TRUE for sobel and laplace. */
gboolean    hs_baseline_needs_image (HsBaseline baseline);

/* Builds the baseline map in the map frame of grid->protocol (see
 * hs-target.h):
 * - uniform: a 1 × 1 grid of 1.
 * - center: exp(−d²/2σ²) at each evaluation-grid pixel centre, d measured in
 *   image pixels from the image centre (W/2, H/2); one value per grid pixel
 *   (gloria: the crop frame, outside-image pixels included).
 * - sobel / laplace: on hs_image_get_grey at image resolution, 3 × 3 kernels
 *   with reflect-101 borders (= cv2.Sobel ksize 3 / cv2.Laplacian ksize 1 in
 *   float64): sqrt(gx² + gy²) and |∇²|; under gloria sampled onto the 224
 *   crop with the nearest rule (padding = 0).  `image` must have the grid's
 *   image size.
 * - random: model_w × model_h uniform [0, 1) values in row-major order,
 *   (x >> 11) · 2⁻⁵³ for x the successive outputs of xoshiro256** seeded by
 *   four splitmix64 outputs of `seed` (as hs-summary.h; identical on every
 *   machine); model_w/h of 0 → 16 × 16.
 * The map never holds a non-finite value. */
HsAttentionMap *hs_baseline_make   (HsBaseline baseline, const HsEvalGrid *grid,
                                    const HsImage *image, guint model_w, guint model_h,
                                    guint32 seed, GError **error);

/* Builds and scores one baseline against `target`. */
gboolean        hs_baseline_score  (HsBaseline baseline, const HsTarget *target,
                                    const HsImage *image, guint model_w, guint model_h,
                                    guint32 seed, const HsScoreOptions *options,
                                    HsScores *out, GError **error);

G_END_DECLS
