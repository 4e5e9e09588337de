/* hs-panel-readout.h — what stands under a map: its read-out line and badge
 *
 * One wording for the compare view's cells and every exported figure (the
 * app's and `heatscope-cli figure`'s), so a figure says exactly what the
 * screen says:
 *
 *   a map scored against its prompt's target
 *       "Laterality −0.96 (patient’s right) · target −0.90 (patient’s right)"
 *       badge "WRONG SIDE" (wrong_side = 1), "same side" only when map and
 *       target both have a side (|laterality| ≥ 0.2) and agree, "no clear
 *       side" when either is central; none when n/a
 *   the swapped prompt's map, scored against the ORIGINAL target
 *       "Scored against the original target: AUROC 0.512 · laterality … ·
 *        swap response +1.00"  badge: hs_swap_verdict_label (never wrong_side:
 *       against the original target it flags exactly the maps that
 *       followed the words)
 *   a difference A − B
 *       "Diverging scale ±0.8 · symmetric KL 10.5" (no badge) */
#pragma once

#include <glib.h>

#include "hs-metrics.h"
#include "hs-legend.h"

G_BEGIN_DECLS

typedef struct {
  char        *line;        /* the read-out line                                  */
  char        *badge;       /* the verdict (hs_badge_draw'n); NULL: none           */
  HsBadgeTone  tone;
  int          wrong_side;  /* the metric: 1 WRONG SIDE, 0 not wrong (same side or no clear side), -1 none (n/a, swap, A − B) */
} HsPanelReadout;

void  hs_panel_readout_clear      (HsPanelReadout *readout);
/* Whether a laterality names a side: |laterality| ≥ 0.2, the wrong_side
 * rule's threshold (metrics.md); FALSE for central and NaN. */
gboolean hs_laterality_has_side   (double laterality);
/* "+0.52 (patient’s left)", "−0.96 (patient’s right)", "+0.05 (central)", "n/a". */
char *hs_describe_laterality      (double laterality);
/* A map's scores against its own prompt's target. */
void  hs_panel_readout_of_scores  (const HsScores *scores, HsPanelReadout *readout);
/* The swapped prompt's map: `swapped` scored against the ORIGINAL target,
 * `original` the original prompt's map against the same target (NULL:
 * none, swap response n/a). */
void  hs_panel_readout_of_swap    (const HsScores *original, const HsScores *swapped,
                                   HsPanelReadout *readout);
/* A − B of two maps of n values on one grid, drawn on the scale ±m. */
void  hs_panel_readout_of_difference (const double *a, const double *b, gsize n, double m,
                                      HsPanelReadout *readout);

/* A figure panel's title by default: its prompt without the prompt's own
 * quotes (a title is not quoted, so nothing nests). */
char *hs_panel_title_of_prompt    (const char *prompt);
/* The note under a figure panel named by its prompt: "MODEL[ (live)] ·
 * INSTANCE[ · left/right swapped]", then " · " and the read-out line when
 * there is one.  The app's current-view figure and `heatscope-cli figure`
 * write the same words. */
char *hs_panel_readout_note       (const HsPanelReadout *readout, const char *model,
                                   gboolean live, const char *instance, gboolean swapped);

G_END_DECLS
