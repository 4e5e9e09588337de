/* hs-tag-strip.h — a map's tag attention (co-attention) as a bar strip
 *
 * A report generator of Jing et al. attends, for each sentence, to image
 * regions (the map) and to its predicted tags (a weight per tag, summing to
 * 1: the manifest's "tag_attention").  The strip shows the tags one row
 * each: the name, a bar whose length is the weight on a fixed 0–1 scale
 * (the whole distribution is the full width, so two strips side by side —
 * the compare view's A | B — read on one scale) and the weight printed in
 * the C locale ("0.410", as the manifest writes it).  The rows keep the
 * order the model gave (the manifest's): a tag stays on its row from one
 * sentence to the next and between A and B, so a weight that moves is seen
 * moving instead of the rows re-sorting under the eye; the largest weight
 * is marked bold.  Rows are keyboard-focusable list rows whose accessible
 * label says "TAG: WEIGHT"; the bars are meters (0–1).
 * Template: ui/hs-tag-strip.ui. */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>

G_BEGIN_DECLS

#define HS_TYPE_TAG_STRIP (hs_tag_strip_get_type ())
G_DECLARE_FINAL_TYPE (HsTagStrip, hs_tag_strip, HS, TAG_STRIP, GtkWidget)

GtkWidget  *hs_tag_strip_new           (void);
/* Copies `n` tags (NULL/0: none; the strip then hides itself). */
void        hs_tag_strip_set_tags      (HsTagStrip *self, const HsTagWeight *tags, guint n);
guint       hs_tag_strip_get_n_tags    (HsTagStrip *self);
/* Row `index`'s tag name and its printed weight, as shown (NULL when out of
 * range). */
const char *hs_tag_strip_get_tag       (HsTagStrip *self, guint index);
const char *hs_tag_strip_get_weight_text (HsTagStrip *self, guint index);
/* Compact: no key line under the rows (the compare view's cells). */
void        hs_tag_strip_set_compact   (HsTagStrip *self, gboolean compact);
/* The weight as the strip prints it: "%.3f" in the C locale. */
char       *hs_tag_strip_format_weight (double weight);

G_END_DECLS
