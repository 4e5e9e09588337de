/* hs-target.h — evaluation grids and ground-truth targets (metrics.md) */
#pragma once

#include <glib.h>
#include "hs-image.h"
#include "hs-dataset.h"
#include "hs-resample.h"

G_BEGIN_DECLS

#define HS_TARGET_ERROR (hs_target_error_quark ())
GQuark hs_target_error_quark (void);

typedef enum {
  HS_TARGET_ERROR_INVALID,    /* zero size, bad box (non-finite), bad option  */
  HS_TARGET_ERROR_TOO_LARGE,  /* evaluation grid over HsLimits                */
  HS_TARGET_ERROR_SHAPE,      /* grids of two maps/targets that do not match  */
} HsTargetError;

/* The three protocols of metrics.md. */
typedef enum {
  HS_PROTOCOL_DEFAULT,
  HS_PROTOCOL_GLORIA,        /* McInerney et al.: 224 × 224 crop grid            */
  HS_PROTOCOL_CHEXLOCALIZE,  /* Saporta et al.: image grid, hole-filled Otsu IoU */
} HsProtocol;

#define HS_N_PROTOCOLS 3

const char *hs_protocol_to_string   (HsProtocol protocol);   /* "default", "gloria", "chexlocalize" */
gboolean    hs_protocol_from_string (const char *name, HsProtocol *protocol);

/* Side of the gloria grid and of its intermediate square. */
#define HS_GLORIA_RESIZE 256
#define HS_GLORIA_CROP   224

/* Where metrics are computed and how image pixel coordinates map onto it.
 *
 * default:      W' × H' = W × H, or with eval_size N > 0,
 *               W' = round(W·N/max(W,H)), H' likewise (at least 1);
 *               grid x = image x · scale_x (scale_x = W'/W), same for y.
 * chexlocalize: always the image grid (eval_size ignored).
 * gloria:       the image's longest side is resized to 256 (the other side
 *               to trunc(side·256/max(W,H)), at least 1, as GLoRIA's
 *               resize_img), zero-padded to 256 × 256 with
 *               pad = floor((256 − side)/2) before the image, then the centre
 *               224 × 224 is cropped (offset 16): grid x = image x · scale_x
 *               + offset_x with scale_x = resized_w/W and
 *               offset_x = pad_x − 16.  The map covers the 224 × 224 crop.
 *
 * The map frame (what an attention map's grid covers) is the image for
 * default and chexlocalize and the 224 × 224 crop for gloria. */
typedef struct {
  HsProtocol protocol;
  guint      image_width, image_height;
  guint      width, height;          /* evaluation grid */
  double     scale_x, scale_y;
  double     offset_x, offset_y;
  /* gloria: the resized (unpadded) image size and its padding offset in the
   * 256 square; for the others resized = grid size and pad = 0. */
  guint      resized_width, resized_height;
  guint      pad_x, pad_y;
} HsEvalGrid;

gboolean hs_eval_grid_init      (HsEvalGrid *grid, HsProtocol protocol,
                                 guint image_width, guint image_height,
                                 guint eval_size, GError **error);
gsize    hs_eval_grid_n_pixels  (const HsEvalGrid *grid);

/* Resamples an h × w map (its frame, see above) onto the evaluation grid:
 * default: `mode`; gloria: nearest as torch.nn.Upsample on the CPU (src =
 * min(floor(dst · (float) (h/224)), h − 1), the product in float); chexlocalize:
 * bilinear in float32 as torch computes it.  `out` holds width·height doubles. */
void     hs_eval_grid_resample  (const HsEvalGrid *grid, const double *values,
                                 guint w, guint h, HsUpsample mode, double *out);

/* gloria: the box as McInerney et al.'s fork maps it into the 224 × 224
 * crop (process_bboxes): the box is rasterised in the W × H image as a mask,
 * inclusive of both corners (rows y1 … y2, columns x1 … x2 as Python slices
 * [y1:y2+1, x1:x2+1], so a negative corner counts from the far edge;
 * fractional corners are floored first), min–max scaled to 0/255 (a mask
 * that is all 0 or all 1 becomes all 0), resized like the image
 * (cv2.resize INTER_AREA to resized_width × resized_height), zero-padded,
 * cropped to rows/columns 16 … 239 of the 256 square, kept where ≥ 128, and
 * replaced by the tight box of what remains.  Writes that box (inclusive
 * corners x1, y1, x2, y2 in crop pixels) and returns TRUE; returns FALSE
 * when nothing remains (the fork's [-1, -1, -1, -1]: no target). */
gboolean hs_eval_grid_gloria_box (const HsEvalGrid *grid, const HsBox *box, guint out[4]);

/* The one check of a ground-truth box against its image, made by validate,
 * score, metrics (hs_target_add_region), figure, the importers and the app
 * (docs/reliability.md).  FALSE with HS_TARGET_ERROR_INVALID and one of:
 *   "empty box [x1, y1, x2, y2]: needs x1 < x2 and y1 < y2" (also for a
 *     non-finite corner),
 *   "box [...] reaches outside the W × H image",
 *   "box [...] has no pixel of the W × H image inside (no pixel centre
 *     lies in it)" — a box of positive area can still miss every centre.
 * A pixel (x, y) is inside when x1 ≤ x + 0.5 < x2 and y1 ≤ y + 0.5 < y2 (as
 * hs_target_add_box counts it on the image grid).  With an unknown image
 * size (0), only the first check is made. */
gboolean hs_box_check            (const HsBox *box, guint image_width, guint image_height,
                                  GError **error);
/* hs_box_check for every box of `region`; the message of the first bad one
 * starts with the region's name: "region \"NAME\": ...". */
gboolean hs_region_check_boxes   (const HsRegion *region, guint image_width, guint image_height,
                                  GError **error);

/* A boolean raster G on an evaluation grid. */
typedef struct _HsTarget HsTarget;

HsTarget      *hs_target_new        (const HsEvalGrid *grid);
HsTarget      *hs_target_copy       (const HsTarget *target);
void           hs_target_free       (HsTarget *target);

/* Adds a box given in image pixels.
 * default/chexlocalize: half-open, pixel (x, y) is inside iff
 *   x1' ≤ x + 0.5 < x2' and y1' ≤ y + 0.5 < y2' (corners scaled onto the grid).
 * gloria: the crop box of hs_eval_grid_gloria_box, inclusive of both
 *   corners (nothing when the box maps to nothing). */
gboolean       hs_target_add_box    (HsTarget *target, const HsBox *box, GError **error);
gboolean       hs_target_add_boxes  (HsTarget *target, const HsBox *boxes, guint n_boxes, GError **error);
/* Adds a mask covering the whole image (any size: resampled with the
 * nearest rule; a pixel counts when any colour channel is non-zero, alpha is
 * ignored).  Under gloria the mask is pushed through the same transform
 * (padding is outside). */
gboolean       hs_target_add_mask   (HsTarget *target, const HsImage *mask, GError **error);
/* Adds every box and mask of `region` (masks loaded through `dataset`),
 * after hs_region_check_boxes against the grid's image size: a box outside
 * the image or with no pixel inside is an error, not an empty target. */
gboolean       hs_target_add_region (HsTarget *target, HsDataset *dataset,
                                     const HsRegion *region, GError **error);
/* The same with the region's mask already loaded (`mask` NULL: boxes only). */
gboolean       hs_target_add_region_loaded (HsTarget *target, const HsRegion *region,
                                            const HsImage *mask, GError **error);
/* The target of `sentence`: a new target on `grid` with every region the
 * sentence names added (hs_target_add_region); NULL and `error` when a region
 * is unknown (hs_instance_get_target_region) or cannot be added.  Scoring,
 * perturbations, the app's panels and the CLI build a sentence's target here. */
HsTarget      *hs_target_new_for_sentence (const HsEvalGrid *grid, HsDataset *dataset,
                                           const HsInstance *instance,
                                           const HsSentence *sentence, GError **error);

const HsEvalGrid *hs_target_get_grid   (const HsTarget *target);
guint          hs_target_get_width  (const HsTarget *target);
guint          hs_target_get_height (const HsTarget *target);
/* width·height bytes, row-major, 1 = in G, 0 = outside. */
const guint8  *hs_target_peek_mask  (const HsTarget *target);
guint64        hs_target_get_count  (const HsTarget *target);   /* |G| */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsTarget, hs_target_free)

G_END_DECLS
