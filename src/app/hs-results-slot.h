/* hs-results-slot.h — the item at one position of the results table
 *
 * The table's list model hands out one slot per position, not the rows:
 * after a sort or filter the position keeps its item, so GTK 4.8's list
 * view keeps that row's widgets and the window only re-reads their text
 * (the rows' own objects as items made GTK destroy and rebuild every
 * visible row's 25 cells on each sort: most of a sort's time). */
#pragma once

#include <glib-object.h>

#include "hs-results-row.h"

G_BEGIN_DECLS

#define HS_TYPE_RESULTS_SLOT (hs_results_slot_get_type ())
G_DECLARE_FINAL_TYPE (HsResultsSlot, hs_results_slot, HS, RESULTS_SLOT, GObject)

HsResultsSlot *hs_results_slot_new     (void);
/* The row shown at the slot's position (borrowed from the model), set by
 * the model whenever the slot is handed out. */
HsResultsRow  *hs_results_slot_get_row (HsResultsSlot *self);
void           hs_results_slot_set_row (HsResultsSlot *self,
                                        HsResultsRow  *row);

G_END_DECLS
