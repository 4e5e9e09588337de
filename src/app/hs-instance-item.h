/* hs-instance-item.h — one row of the instance browser */
#pragma once

#include <glib-object.h>
#include <heatscope/hs-dataset.h>

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

G_END_DECLS
