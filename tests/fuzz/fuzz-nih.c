/* fuzz-nih.c — libFuzzer harness: NIH ChestX-ray14 BBox_List CSV importer */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("BBox_List_2017.csv", data, size);
  g_autofree char *images = g_build_filename (fuzz_dir (), "images", NULL);
  const char *sources[] = { path, images, NULL };

  fuzz_import ("nih-bbox", sources, NULL);
  return 0;
}
