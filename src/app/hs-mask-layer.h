/* hs-mask-layer.h — a region's decoded mask with its traced contours
 *
 * What the canvas draws for a region with a mask file: the mask (for the
 * metrics, the exports and the key's colours) and its outline, traced once
 * with hs_contour_trace_image — the one tracing the canvas and the figure
 * exports use.  Reference-counted and read-only once made, so a worker can
 * decode and trace it off the main thread and the window's mask cache, the
 * canvas and the side panels can all hold the same one.
 */
#pragma once

#include <heatscope/hs-dataset.h>

G_BEGIN_DECLS

typedef struct _HsMaskLayer HsMaskLayer;

/* Decodes region->mask of `dataset` (hs_dataset_load_mask) and traces it;
 * NULL with `error` set when the mask cannot be read.  Any thread. */
HsMaskLayer *hs_mask_layer_load         (HsDataset      *dataset,
                                         const HsRegion *region,
                                         GError        **error);
HsMaskLayer *hs_mask_layer_ref          (HsMaskLayer    *layer);
void         hs_mask_layer_unref        (HsMaskLayer    *layer);
/* (transfer none) the one-channel mask image */
HsImage     *hs_mask_layer_get_mask     (HsMaskLayer    *layer);
/* (transfer none) GPtrArray of HsPolyline* in mask pixels; NULL when
 * tracing ran out of memory (then nothing is drawn, as before) */
GPtrArray   *hs_mask_layer_get_contours (HsMaskLayer    *layer);
/* Bytes held (the mask's samples and the contours' points), for caches. */
gsize        hs_mask_layer_get_bytes    (HsMaskLayer    *layer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsMaskLayer, hs_mask_layer_unref)

G_END_DECLS
