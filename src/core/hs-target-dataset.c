/* hs-target-dataset.c — a target built from a dataset's regions
 *
 * The part of hs-target.c that reads a dataset (its masks, the regions a
 * sentence names): kept apart so that heatscope-cli's score, which builds
 * its target from boxes and mask files, links the target without the
 * dataset code and GIO (src/cli/hs-cli-module.c). */
#include "hs-target.h"
#include "hs-dataset.h"

gboolean
hs_target_add_region (HsTarget *target, HsDataset *dataset,
                      const HsRegion *region, GError **error)
{
  g_autoptr(HsImage) mask = NULL;

  g_return_val_if_fail (target != NULL && region != NULL, FALSE);

  if (region->mask != NULL)
    {
      g_return_val_if_fail (dataset != NULL, FALSE);
      mask = hs_dataset_load_mask (dataset, region, error);
      if (mask == NULL)
        return FALSE;
    }
  return hs_target_add_region_loaded (target, region, mask, error);
}

HsTarget *
hs_target_new_for_sentence (const HsEvalGrid *grid, HsDataset *dataset,
                            const HsInstance *instance, const HsSentence *sentence,
                            GError **error)
{
  g_autoptr(HsTarget) target = NULL;

  g_return_val_if_fail (grid != NULL && instance != NULL && sentence != NULL, NULL);

  target = hs_target_new (grid);
  for (guint t = 0; sentence->targets != NULL && sentence->targets[t] != NULL; t++)
    {
      HsRegion *region = hs_instance_get_target_region (dataset, instance,
                                                        sentence->targets[t], error);

      if (region == NULL || !hs_target_add_region (target, dataset, region, error))
        return NULL;
    }
  return g_steal_pointer (&target);
}
