/* fuzz-coco.c — libFuzzer harness: COCO instances JSON importer (images/a.png present) */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("coco.json", data, size);
  g_autofree char *images = g_build_filename (fuzz_dir (), "images", NULL);
  const char *sources[] = { path, images, NULL };

  fuzz_import ("coco", sources, NULL);
  return 0;
}
