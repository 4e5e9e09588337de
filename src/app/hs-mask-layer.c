/* hs-mask-layer.c — a region's decoded mask with its traced contours
 *
 * Made on a worker (the instance's image decode or the neighbours'
 * prefetch, hs-window-cache.c) so that stepping does not decode and trace
 * masks on the main thread; see hs-mask-layer.h.
 */
#include <heatscope/hs-contour.h>

#include "hs-mask-layer.h"

/* in a GLib atomic reference-counted box */
struct _HsMaskLayer {
  HsImage   *mask;
  GPtrArray *contours;
  gsize      bytes;
};

HsMaskLayer *
hs_mask_layer_load (HsDataset *dataset, const HsRegion *region, GError **error)
{
  HsImage *mask = hs_dataset_load_mask (dataset, region, error);
  HsMaskLayer *layer;

  if (mask == NULL)
    return NULL;
  layer = g_atomic_rc_box_new0 (HsMaskLayer);
  layer->mask = mask;
  layer->contours = hs_contour_trace_image (mask);
  layer->bytes = sizeof (HsMaskLayer) + (gsize) hs_image_get_width (mask) * hs_image_get_height (mask) *
                 hs_image_get_channels (mask) * sizeof (guint16);
  for (guint i = 0; layer->contours != NULL && i < layer->contours->len; i++)
    {
      HsPolyline *line = g_ptr_array_index (layer->contours, i);

      layer->bytes += sizeof (HsPolyline) + line->points->len * sizeof (HsPoint);
    }
  return layer;
}

HsMaskLayer *
hs_mask_layer_ref (HsMaskLayer *layer)
{
  return g_atomic_rc_box_acquire (layer);
}

static void
mask_layer_clear (HsMaskLayer *layer)
{
  hs_image_unref (layer->mask);
  g_clear_pointer (&layer->contours, g_ptr_array_unref);
}

void
hs_mask_layer_unref (HsMaskLayer *layer)
{
  if (layer != NULL)
    g_atomic_rc_box_release_full (layer, (GDestroyNotify) mask_layer_clear);
}

HsImage *
hs_mask_layer_get_mask (HsMaskLayer *layer)
{
  return layer->mask;
}

GPtrArray *
hs_mask_layer_get_contours (HsMaskLayer *layer)
{
  return layer->contours;
}

gsize
hs_mask_layer_get_bytes (HsMaskLayer *layer)
{
  return layer->bytes;
}
