/* hs-prompt-panel.h — the query of the view: a report sentence or a prompt
 *
 * Lists the instance's sentences to pick from, edits a free-text prompt,
 * swaps left/right (action prompt.swap-sides, word-based and case-preserving
 * through hs_text_swap_sides) and resolves the precomputed map of the
 * selected model for the prompt on screen: the sentence's map, or the map
 * whose "prompt" is the edited text (e.g. the swapped sentence).  Without
 * one, a custom prompt states that no live model is selected.  A token strip
 * colours each word of a per-token map by its share (printed under it, with
 * a key); clicking a word emits "token-selected" and the strip says which
 * token's map is shown.  Template: ui/hs-prompt-panel.ui. */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>

G_BEGIN_DECLS

#define HS_TYPE_PROMPT_PANEL (hs_prompt_panel_get_type ())
G_DECLARE_FINAL_TYPE (HsPromptPanel, hs_prompt_panel, HS, PROMPT_PANEL, GtkWidget)

GtkWidget      *hs_prompt_panel_new             (void);
/* Shows `instance` (borrowed from `dataset`, which is referenced) and picks
 * its first sentence.  NULL dataset clears. */
void            hs_prompt_panel_set_instance    (HsPromptPanel *self, HsDataset *dataset,
                                                 HsInstance *instance);
/* Model whose precomputed maps are looked up (NULL = none). */
void            hs_prompt_panel_set_model       (HsPromptPanel *self, const char *model);
/* With a live model the window computes the map of the prompt on screen:
 * no precomputed lookup (map-ref stays NULL), map-changed on every edit. */
void            hs_prompt_panel_set_live        (HsPromptPanel *self, gboolean live);
gboolean        hs_prompt_panel_get_live        (HsPromptPanel *self);
/* Why the live model shows no map ("" clears); ignored when not live. */
void            hs_prompt_panel_set_live_status (HsPromptPanel *self, const char *status);
gboolean        hs_prompt_panel_select_sentence (HsPromptPanel *self, const char *sentence_id);
/* Picks the sentence `delta` rows away from the selected one (clamped). */
void            hs_prompt_panel_select_relative (HsPromptPanel *self, int delta);
void            hs_prompt_panel_set_prompt      (HsPromptPanel *self, const char *text);
/* The prompt on screen (owned by the panel). */
const char     *hs_prompt_panel_get_prompt      (HsPromptPanel *self);
/* The picked sentence: its targets are what the map is scored against. */
HsSentence     *hs_prompt_panel_get_sentence    (HsPromptPanel *self);
/* The precomputed map for the prompt on screen, or NULL. */
HsMapRef       *hs_prompt_panel_get_map_ref     (HsPromptPanel *self);
/* Why there is no map, or "" (property "status"). */
const char     *hs_prompt_panel_get_status      (HsPromptPanel *self);
void            hs_prompt_panel_swap_sides      (HsPromptPanel *self);
/* The loaded map, for the token strip (NULL or a sentence map hides it). */
void            hs_prompt_panel_set_map         (HsPromptPanel *self, HsAttentionMap *map);
/* Per-token map shown (−1 = sentence map). */
int             hs_prompt_panel_get_token       (HsPromptPanel *self);
void            hs_prompt_panel_set_token       (HsPromptPanel *self, int token);
guint           hs_prompt_panel_get_n_tokens    (HsPromptPanel *self);
/* Under the strip: which map the canvas shows ("Showing the map of token
 * “lung” (12.3 % of the sentence map)" or the sentence map) and the key of
 * the colours ("… pale = 3 % (least) to strong red = 18 % (most)").  The
 * shown token's button also has the CSS class hs-token-selected. */
void            hs_prompt_panel_get_token_texts (HsPromptPanel *self, const char **caption,
                                                 const char **key);

/* Share of each token in the sentence map, Σ_c t_i(c)·s(c) / Σ_j Σ_c t_j(c)·s(c)
 * with s the sentence map (the mean of the t_j): how much a word's attention
 * agrees with where the sentence looks.  Fills n_tokens values summing to 1
 * (uniform when the denominator is 0).  Returns FALSE without tokens. */
gboolean        hs_prompt_token_shares          (HsAttentionMap *map, double *shares);

G_END_DECLS
