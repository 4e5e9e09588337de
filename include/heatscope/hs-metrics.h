/* hs-metrics.h — every localization metric of metrics.md, three protocols */
#pragma once

#include <glib.h>
#include "hs-attention-map.h"
#include "hs-target.h"

G_BEGIN_DECLS

#define HS_METRICS_ERROR (hs_metrics_error_quark ())
GQuark hs_metrics_error_quark (void);

typedef enum {
  HS_METRICS_ERROR_NON_FINITE,  /* a NaN/±Inf cell (message names the cell)   */
  HS_METRICS_ERROR_SHAPE,       /* empty map, maps of different shapes        */
  HS_METRICS_ERROR_PROTOCOL,    /* target built for another protocol          */
  HS_METRICS_ERROR_TOO_LARGE,   /* grid over HsLimits                         */
} HsMetricsError;

/* Every metric; the JSON key of each is hs_metric_get_name().  A protocol
 * reports a subset (hs_protocol_get_metrics): the k = 20 % metrics exist only
 * under gloria (k ∈ {5, 10, 20, 30} there, {5, 10, 30} otherwise). */
typedef enum {
  HS_METRIC_AUROC,
  HS_METRIC_AP,
  HS_METRIC_IOU_5,
  HS_METRIC_IOU_10,
  HS_METRIC_IOU_20,
  HS_METRIC_IOU_30,
  HS_METRIC_PRECISION_5,
  HS_METRIC_PRECISION_10,
  HS_METRIC_PRECISION_20,
  HS_METRIC_PRECISION_30,
  HS_METRIC_RECALL_5,
  HS_METRIC_RECALL_10,
  HS_METRIC_RECALL_20,
  HS_METRIC_RECALL_30,
  HS_METRIC_POINTING_HIT,
  HS_METRIC_MASS_IN_TARGET,
  HS_METRIC_OTSU_IOU,           /* chexlocalize: hole-filled Otsu (or fixed threshold) IoU */
  HS_METRIC_EXPLANATION_PRECISION,
  HS_METRIC_CNR,
  HS_METRIC_ENTROPY,
  HS_METRIC_ENTROPY_NORM,
  HS_METRIC_NO_ATTN,
  HS_METRIC_LATERALITY,
  HS_METRIC_WRONG_SIDE,
  HS_N_METRICS
} HsMetric;

/* JSON keys, indexed by HsMetric: "auroc", "ap", "iou@5", ..., "wrong_side". */
extern const char * const hs_metric_names[HS_N_METRICS];

const char     *hs_metric_get_name      (HsMetric metric);
gboolean        hs_metric_from_name     (const char *name, HsMetric *metric);
/* The metrics a protocol reports, in output (JSON/CSV column) order. */
const HsMetric *hs_protocol_get_metrics (HsProtocol protocol, guint *n_metrics);
gboolean        hs_protocol_has_metric  (HsProtocol protocol, HsMetric metric);

typedef struct {
  HsProtocol protocol;
  HsUpsample upsample;          /* default protocol only (gloria: nearest, chexlocalize: bilinear) */
  guint      eval_size;         /* default protocol only: longest side of the grid, 0 = image grid;
                                 * for callers building the target (the target fixes the grid) */
  double     threshold;         /* chexlocalize: NAN = Otsu, else binarise normalised map at ≥ threshold */
  guint      n_threads;         /* 0 = automatic (2 on grids ≥ 256 K pixels), 1 = this thread only;
                                 * callers that run scorings in parallel should pass 1 */
} HsScoreOptions;

void hs_score_options_init (HsScoreOptions *options);   /* default, bilinear, 0, NAN, 0 */

/* Scores of one map.  value[m] is NAN when the metric is undefined (JSON
 * null, "n/a" in the app) or not part of the protocol; reason[m] then says
 * why in a few words ("target is empty", ...), NULL when defined.  Reasons
 * are static strings. */
typedef struct {
  HsProtocol  protocol;
  double      value[HS_N_METRICS];
  const char *reason[HS_N_METRICS];
  /* Extras for display (not JSON keys of metrics.md). */
  double      target_laterality;   /* NAN when G has no pixel off the middle column */
  guint64     target_pixels;       /* |G|                                     */
  guint64     grid_pixels;         /* P                                       */
  guint       grid_width, grid_height;
  double      topk_threshold[4];   /* q_k for k = 5, 10, 20, 30: region s ≥ q_k
                                    * (gloria: thr, IoU region s > thr) */
  int         otsu_level;          /* t in 0..255 on u; −1 when not computed  */
  double      otsu_threshold;      /* the Otsu region is exactly s ≥ this; NAN when empty */
  double      map_min, map_max;    /* of s on the grid                        */
} HsScores;

/* For a process that scores once, called before it reads its inputs: keeps
 * the other cores awake for the scoring threads (a virtual machine's idle
 * CPU can take milliseconds to wake for a new thread), spinning politely
 * for 10 ms at most if no scoring follows.  The results do not change. */
void     hs_score_warm_up (void);

/* Scores `map` (its sentence map; its no_attn) against `target` under
 * options->protocol; the target's grid must have been built for the same
 * protocol (and eval_size).  Fails only for a non-finite cell, a shape/
 * protocol mismatch or a size over HsLimits — never returns a wrong number. */
gboolean hs_score_map    (const HsAttentionMap *map, const HsTarget *target,
                          const HsScoreOptions *options, HsScores *out, GError **error);
/* Same from raw values (h × w, row-major, in the protocol's map frame);
 * `name_for_errors` names the map in messages. */
gboolean hs_score_values (const double *values, guint w, guint h, double no_attn,
                          const char *name_for_errors, const HsTarget *target,
                          const HsScoreOptions *options, HsScores *out, GError **error);
/* Scores an already resampled map s (target width·height values).  The
 * grid-level metrics (entropy, entropy_norm) use `grid` (h × w) when given,
 * else they are left NAN with reason "no grid". */
gboolean hs_score_resampled (const double *s, const double *grid, guint w, guint h,
                             double no_attn, const char *name_for_errors,
                             const HsTarget *target, const HsScoreOptions *options,
                             HsScores *out, GError **error);

/* Scoring keeps its buffers (3 doubles per grid pixel, up to ~112 MB) per
 * thread between calls; this returns the calling thread's buffers. */
void     hs_score_release_memory (void);

/* Comparing two maps of the same image (metrics.md "Comparing two maps"):
 * sym_kl and delta[m] = perturbed − original, both against the ORIGINAL
 * target (NAN when either side is undefined). */
typedef struct {
  double      sym_kl;
  const char *sym_kl_reason;
  double      delta[HS_N_METRICS];
  HsScores    original, perturbed;
  /* swap_response of the pair (hs_swap_response): set by hs_perturb_compare
   * for swap-left-right only; hs_compare_maps leaves it NAN with reason
   * "not a left/right swap", as it cannot know what B's prompt is. */
  double      swap_response;
  const char *swap_response_reason;
} HsComparison;

gboolean hs_compare_maps (const HsAttentionMap *original, const HsAttentionMap *perturbed,
                          const HsTarget *target, const HsScoreOptions *options,
                          HsComparison *out, GError **error);
/* sym_kl alone: default floors each cell at 1e-12 and renormalises; gloria
 * uses no floor and adds the No-Attn slot when both maps carry one.  Returns
 * NAN (and sets *reason) when undefined (no positive cell, or infinite). */
double   hs_sym_kl       (const double *p, const double *q, gsize n,
                          double p_no_attn, double q_no_attn,
                          HsProtocol protocol, const char **reason);

/* swap_response (metrics.md "Comparing two maps") of a prompt A and its
 * left/right swap B, same model and image:
 *   sign(t) · (l_A − l_B) / 2   in [−1, 1]
 * with t the laterality of A's target and l_A, l_B the maps' laterality.
 * Positive = B's map moved toward the side B's words name (the model
 * followed the words).  NAN (and *reason, a static English phrase, when
 * `reason` is not NULL) when t is NAN or 0 (empty target, or no side) or a
 * map has no laterality; *reason = NULL when defined. */
double hs_swap_response (double target_laterality, double laterality_original,
                         double laterality_swapped, const char **reason);

/* Co-attention (Jing et al. 2018; a map's "tag_attention"): the entropy of
 * a report generator's attention over its tags, in nats (as `entropy` of a
 * map, so the two read side by side):
 *   p_i = w_i / Σ w   (the weights as listed, renormalised: the manifest
 *                      keeps them as written, summing to 1 within 0.001)
 *   tag_entropy      = −Σ p_i·ln p_i   (0·ln 0 = 0), in [0, ln n]
 *   tag_entropy_norm = tag_entropy / ln n, in [0, 1], n = the number of
 *                      tags listed (zero weights included): 0 = all on one
 *                      tag, 1 = spread evenly; comparable across models
 *                      that list different numbers of tags.
 * Returns tag_entropy, or NAN when undefined: no tags, a negative or
 * non-finite weight, or no positive weight.  *entropy_norm (when not NULL)
 * is NAN then and also for a single tag (ln 1 = 0).  *reason (when not NULL)
 * names, as a static English phrase, why the first undefined value of the
 * two is undefined; NULL when both are defined. */
double hs_tag_attention_entropy (const HsTagWeight *tags, guint n_tags,
                                 double *entropy_norm, const char **reason);

/* What the app says about a swap_response: followed the words (≥ 0.1),
 * ignored the words (|·| < 0.1), moved the wrong way (≤ −0.1). */
#define HS_SWAP_RESPONSE_MARGIN 0.1

typedef enum {
  HS_SWAP_UNDEFINED,     /* swap_response is NAN */
  HS_SWAP_FOLLOWED,
  HS_SWAP_IGNORED,
  HS_SWAP_WRONG_WAY,
} HsSwapVerdict;

HsSwapVerdict hs_swap_verdict       (double swap_response);
/* "followed the words", "ignored the words", "moved the wrong way", "n/a":
 * translated (libheatscope's domain), for screens and figures alike. */
const char   *hs_swap_verdict_label (HsSwapVerdict verdict);
/* "followed", "ignored", "wrong-way", "undefined": untranslated, for CSS
 * classes and file formats. */
const char   *hs_swap_verdict_key   (HsSwapVerdict verdict);

/* Curves for plots, sharing one sort: points ordered by decreasing threshold
 * (each distinct value of s once, ties entering together), downsampled to at
 * most max_points (first and last kept).  roc: x = FPR, y = TPR, starting at
 * (0, 0); pr: x = recall, y = precision; iou: x = threshold (s ≥ x), y = IoU.
 * Arrays of HsCurvePoint; a curve needing both classes is empty when G is
 * empty or full. */
typedef struct {
  double x, y, threshold;
} HsCurvePoint;

typedef struct {
  GArray *roc;
  GArray *pr;
  GArray *iou;
} HsCurves;

gboolean hs_score_curves (const HsAttentionMap *map, const HsTarget *target,
                          const HsScoreOptions *options, guint max_points,
                          HsCurves *out, GError **error);
void     hs_curves_clear (HsCurves *curves);

/* Appends the protocol's metric members to `out`, in order, without braces:
 * "auroc": 0.75, "ap": null, ... (null for NAN); numbers in the shortest
 * text that reads back to the same double. */
void     hs_scores_append_json (const HsScores *scores, GString *out);
/* Shortest round-trip text of a finite double ("0.1", "1", "3.0000000000000004");
 * "null" for NAN/±Inf.  Free with g_free. */
char    *hs_metric_format      (double value);

G_END_DECLS
