/* hs-metrics-gloria.c — the gloria protocol's own rules (McInerney et al.,
 * "That's the Wrong Lung!"): k = int(50176·p) for p ∈ {5, 10, 20, 30} %,
 * thr = the (50176 − k)-th smallest value, IoU on s > thr and
 * precision/recall on s ≥ thr; an empty mapped target leaves every box metric
 * undefined, a full one has ap = 1.  Grid, nearest upsampling and the box
 * mapping live in hs-target.c; entropy with the No-Attn slot and sym_kl without a
 * floor in hs-metrics.c. */
#include "hs-metrics-private.h"

void
hs_metrics_topk_gloria (const HsEvalState *state, HsScores *out)
{
  static const double p[4] = { 0.05, 0.1, 0.2, 0.3 };

  for (guint slot = 0; slot < 4; slot++)
    {
      /* k = int(P·p); thr = the (P − k)-th smallest (1-based), i.e. the
       * (k + 1)-th largest; IoU uses s > thr, precision/recall s ≥ thr. */
      guint64 k = (guint64) ((double) state->n * p[slot]);
      guint64 gt_size, gt_hit, ge_size, ge_hit;
      double thr;

      if (k >= state->n)
        k = state->n - 1;
      thr = hs_metrics_kth_largest (state, k + 1);
      out->topk_threshold[slot] = thr;
      hs_metrics_count_at_least (state, thr, TRUE, &gt_size, &gt_hit);
      hs_metrics_count_at_least (state, thr, FALSE, &ge_size, &ge_hit);
      hs_metrics_set_region (state, out, slot, gt_size, gt_hit, ge_size, ge_hit);
      /* callbacks.Metrics skips an instance whose mapped boxes are all
       * gone: every box metric is undefined, IoU and precision included. */
      if (state->n_pos == 0)
        {
          hs_scores_undefined (out, hs_metrics_iou_metric (slot), HS_REASON_EMPTY_TARGET);
          hs_scores_undefined (out, hs_metrics_precision_metric (slot), HS_REASON_EMPTY_TARGET);
        }
    }
  /* torchmetrics 0.5 computes average precision for a target covering
   * every pixel: 1 (recall reaches 1 at the first threshold with precision 1),
   * whatever the map; AUROC it cannot compute (undefined, as set). */
  if (state->n_pos > 0 && state->n_neg == 0)
    hs_scores_set (out, HS_METRIC_AP, 1.0);
}

