/* fuzz-chexlocalize.c — libFuzzer harness: CheXlocalize gt_segmentations JSON importer (ROOT: images/ with a.png and valid/patient1/study1/view1_frontal.png) */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("gt_segmentations_val.json", data, size);
  g_autofree char *images = g_build_filename (fuzz_dir (), "images", NULL);
  const char *sources[] = { path, images, NULL };

  /* Images for the keys "a" (images/a.png) and patient1_study1_view1_frontal. */
  fuzz_copy_image ("images/valid/patient1/study1/view1_frontal.png");

  fuzz_import ("chexlocalize", sources, NULL);
  return 0;
}
