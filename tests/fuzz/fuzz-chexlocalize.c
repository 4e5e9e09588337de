/* fuzz-chexlocalize.c — libFuzzer harness: CheXlocalize gt_segmentations JSON importer */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("gt_segmentations_val.json", data, size);
  const char *sources[] = { path, NULL };

  fuzz_import ("chexlocalize", sources, NULL);
  return 0;
}
