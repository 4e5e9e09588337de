/* fuzz-npy.c — libFuzzer harness: npy reading (hs_npy_read_from_memory) */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  HsNdArray *array;

  fuzz_dir ();
  array = hs_npy_read_from_memory (data, size, "fuzz.npy", &error);
  if (array != NULL)
    {
      fuzz_accepted ();
      hs_nd_array_free (array);
    }
  g_clear_error (&error);
  return 0;
}
