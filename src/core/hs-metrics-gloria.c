/* hs-metrics-gloria.c — the gloria protocol's own rules (McInerney et al.,
 * "That's the Wrong Lung!"): k = int(50176·p) for p ∈ {5, 10, 20, 30} %,
 * thr = the (50176 − k)-th smallest value, IoU on s > thr and
 * precision/recall on s ≥ thr.  Grid, nearest upsampling and inclusive boxes
 * live in hs-target.c; entropy with the No-Attn slot and sym_kl without a
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
    }
}

