/* hs-perturb-panel.h — a perturbation of McInerney et al. §3.1 and the Δ of
 * every metric
 *
 * A dropdown of the perturbations (swap-left-right, shuffle-in-report,
 * random-sentence, random-boxes, synthetic-swapped-condition), the perturbed
 * prompt (or what changed), and a table: metric | original | perturbed | Δ
 * (perturbed − original, both against the ORIGINAL target for text
 * perturbations; hs_perturb_compare), plus the symmetric KL between the
 * maps and, for swap left/right, swap_response with what it means
 * ("followed the words"; the swapped map's wrong_side is n/a).  With a live model (built-in or the external backend) both prompts
 * are attended live, off the main thread.  With precomputed maps a missing
 * perturbed map is reported in the status line, naming the prompt and
 * model. */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>
#include <heatscope/hs-model.h>
#include <heatscope/hs-perturb.h>

#include "hs-live-attend.h"

G_BEGIN_DECLS

#define HS_TYPE_PERTURB_PANEL (hs_perturb_panel_get_type ())
G_DECLARE_FINAL_TYPE (HsPerturbPanel, hs_perturb_panel, HS, PERTURB_PANEL, GtkWidget)

GtkWidget  *hs_perturb_panel_new              (void);
/* What is on screen; NULL dataset clears.  Recomputes at once. */
void        hs_perturb_panel_set_input        (HsPerturbPanel *self, HsDataset *dataset,
                                               HsInstance *instance, HsSentence *sentence,
                                               const char *model);
/* With a live model (a built-in name or path, or HS_LIVE_EXEC_NAME for the
 * external backend, served by `live`), the original and perturbed prompts
 * are attended on the instance's image instead of looked up: from `live`'s
 * cache when there, else off the main thread ("busy" meanwhile, a spinner
 * in the panel); a failure (naming the model or the backend's command) goes
 * to the status line.  NULL model = precomputed maps.  `image` is the
 * instance's radiograph when the caller has it loaded (features are cached
 * per image, so sharing it avoids re-encoding), NULL to load it;
 * `image_stamp` its file's stamp before its decode (NULL: taken when
 * attended).  Takes effect at the next recompute (set_input or
 * set_perturbation). */
void        hs_perturb_panel_set_live         (HsPerturbPanel *self, HsLiveAttend *live,
                                               const char *model, HsImage *image,
                                               const HsFileStamp *image_stamp);
/* TRUE while live requests are in flight (property "busy"). */
gboolean    hs_perturb_panel_get_busy         (HsPerturbPanel *self);
void        hs_perturb_panel_set_perturbation (HsPerturbPanel *self, HsPerturbation perturbation);
HsPerturbation hs_perturb_panel_get_perturbation (HsPerturbPanel *self);
/* The perturbed prompt (or the description of a target perturbation). */
const char *hs_perturb_panel_get_prompt       (HsPerturbPanel *self);
/* The status line: empty when the table is filled, else the problem. */
const char *hs_perturb_panel_get_status       (HsPerturbPanel *self);
/* Values of the table; FALSE when nothing is computed. */
gboolean    hs_perturb_panel_get_comparison   (HsPerturbPanel *self, HsComparison *out);
/* Swap left/right: the swap_response row as shown ("+0.750 · followed the
 * words"); NULL for other perturbations or with no table. */
const char *hs_perturb_panel_get_swap_response_text (HsPerturbPanel *self);

G_END_DECLS
