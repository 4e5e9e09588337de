/* fuzz-imagenome-tsv.c — libFuzzer harness: Chest ImaGenome gold TSV importer */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("gold.txt", data, size);
  g_autofree char *images = g_build_filename (fuzz_dir (), "images", NULL);
  const char *sources[] = { path, images, NULL };

  fuzz_import ("imagenome", sources, NULL);
  return 0;
}
