/* hs-metrics-chexlocalize.c — the chexlocalize protocol's IoU (Saporta et
 * al., CheXlocalize), as heatmap_to_segmentation.cam_to_segmentation and
 * eval.calculate_iou(true_pos_only=True) compute it:
 *  - the map s is already torch's float32 bilinear upsampling
 *    (hs_resample_torch_bilinear);
 *  - mask = (s − min s) / max(s − min s), each step in float32 (a constant
 *    map gives 0/0: nothing);
 *  - Otsu (no threshold table): u = uint8(255·mask) truncated, t = Otsu's
 *    level of u's histogram as cv2.threshold(u, 0, max u, THRESH_OTSU)
 *    finds it, binary u > t; then every contour of that binary image
 *    (cv2.findContours RETR_TREE, CHAIN_APPROX_SIMPLE) with more than one
 *    point is drawn as a filled PIL polygon on an empty image, which is the
 *    prediction: holes fill, lone pixels vanish, the polygon through the
 *    contour's corner pixels rasterises as Pillow does;
 *  - a threshold from the table: mask > t (strict, t rounded to float32 as
 *    NumPy compares a float32 array with a scalar), no contours;
 *  - IoU undefined when the prediction or the target is empty. */
#include "hs-metrics-private.h"
#include "hs-raster-private.h"

#include <string.h>

/* mask = (s − min)/(max − min) in float32, as torch does it on the float
 * map: NaN (left out of every region) when max = min. */
static inline float
mask_value (double s, float lo, float span)
{
  float d = (float) s - lo;

  return d / span;
}

void
hs_metrics_chexlocalize_iou (const HsEvalState *state, double threshold,
                             guint8 *pred, HsScores *out)
{
  float lo = (float) state->min, span = (float) state->max - lo;
  guint64 n_pred = 0, hit = 0;

  if (isnan (threshold))
    {
      guint64 hist[256] = { 0 };
      guint8 *u = pred;
      guint8 u_max = 0;
      int t;

      /* np.uint8(255 * mask): float32 product, truncated; NaN becomes 0 */
      for (gsize i = 0; i < state->n; i++)
        {
          float v = 255.0f * mask_value (state->s[i], lo, span);

          u[i] = v >= 1.0f ? (guint8) MIN (v, 255.0f) : 0;
          hist[u[i]]++;
          u_max = MAX (u_max, u[i]);
        }
      t = hs_metrics_otsu_level (hist, state->n);
      out->otsu_level = t;
      out->otsu_threshold = NAN;
      for (gsize i = 0; i < state->n; i++)
        {
          /* cv2.threshold with maxval = max u: nothing when max u is 0 */
          u[i] = u_max > 0 && u[i] > t;
          if (u[i] && !(state->s[i] >= out->otsu_threshold))
            out->otsu_threshold = state->s[i];
        }
      {
        GArray *contours = hs_raster_find_contours (u, state->width, state->height);

        memset (pred, 0, state->n);
        for (guint c = 0; c < contours->len; c++)
          {
            const HsRasterContour *contour = &g_array_index (contours, HsRasterContour, c);

            if (contour->n > 1)
              hs_raster_fill_polygon (pred, state->width, state->height, contour->xy, contour->n);
          }
        hs_raster_contours_free (contours);
      }
    }
  else
    {
      float t = (float) threshold;

      for (gsize i = 0; i < state->n; i++)
        pred[i] = mask_value (state->s[i], lo, span) > t;
    }

  for (gsize i = 0; i < state->n; i++)
    {
      n_pred += pred[i];
      hit += pred[i] & state->g[i];
    }
  if (state->n_pos == 0)
    hs_scores_undefined (out, HS_METRIC_OTSU_IOU, HS_REASON_EMPTY_TARGET);
  else if (n_pred == 0)
    hs_scores_undefined (out, HS_METRIC_OTSU_IOU, HS_REASON_EMPTY_PRED);
  else
    hs_scores_set (out, HS_METRIC_OTSU_IOU, (double) hit / (double) (n_pred + state->n_pos - hit));
}
