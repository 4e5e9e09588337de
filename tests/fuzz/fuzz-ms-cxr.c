/* fuzz-ms-cxr.c — libFuzzer harness: MS-CXR CSV importer */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("ms-cxr.csv", data, size);
  const char *sources[] = { path, NULL };

  fuzz_import ("ms-cxr", sources, NULL);
  return 0;
}
