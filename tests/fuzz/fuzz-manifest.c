/* fuzz-manifest.c — libFuzzer harness: dataset manifest (heatscope.json) loading and validation */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("ds/heatscope.json", data, size);
  GPtrArray *problems = NULL;
  GError *error = NULL;
  HsDataset *dataset;

  dataset = hs_dataset_load (path, &error);
  if (dataset != NULL)
    hs_dataset_unref (dataset);
  g_clear_error (&error);
  (void) hs_dataset_validate (path, &problems);
  if (problems != NULL)
    g_ptr_array_unref (problems);
  return 0;
}
