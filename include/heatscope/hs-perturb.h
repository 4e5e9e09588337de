/* hs-perturb.h — perturbations of McInerney et al. §3.1 ("That's the Wrong
 * Lung!"), seeded and reproducible */
#pragma once

#include <glib.h>
#include "hs-dataset.h"
#include "hs-metrics.h"
#include "hs-target.h"

G_BEGIN_DECLS

#define HS_PERTURB_ERROR (hs_perturb_error_quark ())
GQuark hs_perturb_error_quark (void);

typedef enum {
  HS_PERTURB_ERROR_NOT_APPLICABLE,  /* e.g. a report of one sentence, no positive label */
  HS_PERTURB_ERROR_MISSING_MAP,     /* no precomputed map for the perturbed prompt      */
  HS_PERTURB_ERROR_INVALID,         /* unknown perturbation name, bad input             */
} HsPerturbError;

/* What each perturbation does to a query (sentence S of instance I).  A
 * TEXT perturbation changes the prompt: the perturbed map is the model's map
 * of the new prompt on I's image, scored against S's ORIGINAL target.  A
 * TARGET perturbation keeps S's map and replaces the target.
 *
 * swap-left-right (text) — `default`/`chexlocalize` protocols: the word-based,
 *   case-preserving hs_text_swap_sides(); `gloria`: the paper's lower-casing
 *   substring swap hs_text_swap_sides_gloria().  A sentence without a side
 *   word gives an unchanged prompt (HsPerturbed.unchanged), not an error.
 * shuffle-in-report (text) — "shuffle boxes in report": S's boxes are paired
 *   with the attention of another sentence T of the same report.  T is drawn
 *   uniformly (seeded) from I's other report sentences whose text differs
 *   from S's; the prompt is T's text (and source_query = T's id, so T's own
 *   precomputed map serves).  Not applicable with no such T.
 * random-sentence (text) — the prompt is a report sentence drawn uniformly
 *   (seeded) from the report sentences of the OTHER instances (source_instance,
 *   source_query name it).  Not applicable when no other instance has one.
 * random-boxes (target) — every box of S's target regions is replaced by a
 *   box of the same width and height at a uniformly random position inside
 *   the image (x1 ∈ [0, W − w], y1 ∈ [0, H − h]); a mask region counts as its
 *   bounding box.  Not applicable when S has no target.
 * synthetic-swapped-condition (text) — S's first positive label (condition c,
 *   locations L) gives the A.3 sentence "There is {c'} in the {L}." where c'
 *   is drawn uniformly (seeded) from the conditions ≠ c that some positive
 *   label anywhere in the dataset (sentences and findings) states at one of
 *   the locations L (compared case-insensitively).  original_prompt holds the
 *   A.3 sentence with c itself (for callers that attend both live).  Not
 *   applicable without a positive label with locations or without another
 *   condition seen at that anatomy.
 *
 * Seeding: the draws of one query depend only on (seed, perturbation,
 * instance id, sentence id) — a splitmix64 stream — so results do not depend
 * on the order or the threads that compute them. */
typedef enum {
  HS_PERTURB_SWAP_LEFT_RIGHT,
  HS_PERTURB_SHUFFLE_IN_REPORT,
  HS_PERTURB_RANDOM_SENTENCE,
  HS_PERTURB_RANDOM_BOXES,
  HS_PERTURB_SYNTHETIC_SWAPPED_CONDITION,
  HS_N_PERTURBATIONS
} HsPerturbation;

/* "swap-left-right", "shuffle-in-report", "random-sentence", "random-boxes",
 * "synthetic-swapped-condition". */
const char *hs_perturbation_to_string   (HsPerturbation perturbation);
gboolean    hs_perturbation_from_string (const char *name, HsPerturbation *perturbation);
/* TRUE for random-boxes (the map stays, the target changes). */
gboolean    hs_perturbation_is_target   (HsPerturbation perturbation);

typedef struct {
  HsPerturbation perturbation;
  char      *prompt;            /* text perturbations: the perturbed prompt; else NULL   */
  gboolean   unchanged;         /* the prompt equals the sentence's text                 */
  char      *original_prompt;   /* synthetic: the A.3 sentence with the true condition   */
  char      *source_instance;   /* random-sentence: where the sentence came from         */
  char      *source_query;      /* shuffle / random-sentence: the sentence id used       */
  char      *condition;         /* synthetic: the substituted condition                  */
  GPtrArray *regions;           /* random-boxes: HsRegion* of the replacement target     */
  char      *description;       /* one line for people: "left/right swapped", ...        */
} HsPerturbed;

void hs_perturbed_free (HsPerturbed *perturbed);

/* Dataset-wide tables (sentences of every instance, conditions by anatomy),
 * built once; read-only afterwards, so one context may serve many threads.
 * Keeps a reference to the dataset. */
typedef struct _HsPerturbContext HsPerturbContext;

HsPerturbContext *hs_perturb_context_new  (HsDataset *dataset);
void              hs_perturb_context_free (HsPerturbContext *context);

/* Perturbs query `sentence` of `instance`.  `protocol` only selects the
 * swap variant.  NULL with HS_PERTURB_ERROR_NOT_APPLICABLE (message says why)
 * when the perturbation cannot apply to this query. */
HsPerturbed *hs_perturb (HsPerturbContext *context, const HsInstance *instance,
                         const HsSentence *sentence, HsPerturbation perturbation,
                         HsProtocol protocol, guint64 seed, GError **error);

/* The precomputed map of the perturbed query for `model`: TARGET
 * perturbations use the sentence's own map; text perturbations look for a
 * map of `model` in `instance` whose prompt is exactly the perturbed prompt
 * (hs_instance_find_map_by_prompt), then for the map of a sentence of
 * `instance` whose text is the prompt (source_query for shuffle-in-report).
 * Missing: HS_PERTURB_ERROR_MISSING_MAP with "no precomputed map for prompt
 * '…' of model M in instance I".  With a live model, attend `prompt` on the
 * instance's image instead. */
HsMapRef    *hs_perturbed_find_map (HsPerturbContext *context, const HsInstance *instance,
                                    const HsSentence *sentence, const HsPerturbed *perturbed,
                                    const char *model, GError **error);

/* The target the perturbed map is scored against: the sentence's regions,
 * or the replacement regions of a target perturbation. */
HsTarget    *hs_perturbed_build_target (HsPerturbContext *context, const HsInstance *instance,
                                        const HsSentence *sentence, const HsPerturbed *perturbed,
                                        const HsEvalGrid *grid, GError **error);

/* Deltas of metrics.md "Comparing two maps": text perturbations score both
 * maps against the ORIGINAL target (hs_compare_maps: delta = perturbed −
 * original, sym_kl between the maps); target perturbations score the one
 * map against the replacement and the original target (delta = replacement
 * − original; sym_kl = 0, the map is the same).  `target` is the original
 * target; `perturbed_map` is ignored for target perturbations.
 * swap-left-right also sets out->swap_response (NAN when the prompt names no
 * side) and, since wrong_side keeps its single-map meaning, leaves the
 * perturbed map's wrong_side and its delta NAN ("not scored for a swapped
 * prompt"). */
gboolean     hs_perturb_compare (HsPerturbContext *context, const HsInstance *instance,
                                 const HsSentence *sentence, const HsPerturbed *perturbed,
                                 const HsAttentionMap *original_map,
                                 const HsAttentionMap *perturbed_map,
                                 const HsTarget *target, const HsScoreOptions *options,
                                 HsComparison *out, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsPerturbed, hs_perturbed_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsPerturbContext, hs_perturb_context_free)

G_END_DECLS
