/* hs-results-slot.c — the item at one position of the results table */
#include "hs-results-slot.h"

struct _HsResultsSlot
{
  GObject       parent_instance;

  HsResultsRow *row;   /* borrowed */
};

G_DEFINE_FINAL_TYPE (HsResultsSlot, hs_results_slot, G_TYPE_OBJECT)

static void
hs_results_slot_class_init (HsResultsSlotClass *klass)
{
}

static void
hs_results_slot_init (HsResultsSlot *self)
{
}

HsResultsSlot *
hs_results_slot_new (void)
{
  return g_object_new (HS_TYPE_RESULTS_SLOT, NULL);
}

HsResultsRow *
hs_results_slot_get_row (HsResultsSlot *self)
{
  return self->row;
}

void
hs_results_slot_set_row (HsResultsSlot *self,
                         HsResultsRow  *row)
{
  self->row = row;
}
