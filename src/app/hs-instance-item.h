/* hs-instance-item.h — one row of the instance browser */
#pragma once

#include <glib-object.h>
#include <heatscope/hs-dataset.h>

#include "hs-wrong-side.h"

G_BEGIN_DECLS

#define HS_TYPE_INSTANCE_ITEM (hs_instance_item_get_type ())
G_DECLARE_FINAL_TYPE (HsInstanceItem, hs_instance_item, HS, INSTANCE_ITEM, GObject)

/* Keeps a reference on `dataset`; the instance is borrowed from it. */
HsInstanceItem *hs_instance_item_new          (HsDataset *dataset, guint index);
guint           hs_instance_item_get_index    (HsInstanceItem *self);
const char     *hs_instance_item_get_id       (HsInstanceItem *self);
/* First report sentence, or "" (for the row's second line). */
const char     *hs_instance_item_get_summary  (HsInstanceItem *self);
/* Union of the HsSubset flags of the instance's sentences (computed once). */
guint           hs_instance_item_get_subsets  (HsInstanceItem *self);
/* TRUE when a sentence of the instance has targets (ground truth to score). */
gboolean        hs_instance_item_get_annotated (HsInstanceItem *self);
/* TRUE when `folded_needle` (g_utf8_casefold'ed) occurs in the id or in a
 * sentence's text, ignoring case. */
gboolean        hs_instance_item_matches      (HsInstanceItem *self, const char *folded_needle);

/* The browser's filters.  Each is a property of a sentence, and an instance
 * is listed when ONE of its sentences passes all of them (that sentence is
 * "the sentence that matched", which the window opens):
 *   subsets      the sentence's own HsSubset flags contain all of these
 *                (hs_dataset_get_subsets: One Lung = its target boxes lie
 *                in one image half; Abnormal = it states a positive
 *                finding; MDRB = a report sentence with targets of an MDRB
 *                instance); ignored until hs_instance_item_get_subsets ran;
 *   annotated    the sentence has targets;
 *   wrong_side   its map of the browser's model has wrong_side = 1;
 *   folded_search  its text contains the (casefolded) search, or the
 *                instance's id does (then the search holds for every
 *                sentence). */
typedef struct {
  guint                     subsets;
  gboolean                  annotated;
  const HsWrongSideResult   *wrong_side;   /* NULL: no such filter */
  const char               *folded_search;       /* NULL or "": none */
} HsInstanceFilter;

#define HS_INSTANCE_ITEM_NO_MATCH      (-1)
#define HS_INSTANCE_ITEM_ANY_SENTENCE  (-2)   /* listed, no filter picks a sentence */
/* The index of the first sentence that passes every filter,
 * HS_INSTANCE_ITEM_ANY_SENTENCE when no filter looks at sentences (none is
 * on, or only a search found in the id), else HS_INSTANCE_ITEM_NO_MATCH. */
int             hs_instance_item_match        (HsInstanceItem *self, const HsInstanceFilter *filter);

G_END_DECLS
