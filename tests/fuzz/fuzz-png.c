/* fuzz-png.c — libFuzzer harness: PNG decoding (hs_image_load_from_memory) */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  HsImage *image;

  fuzz_dir ();
  image = hs_image_load_from_memory (data, size, "fuzz.png", &error);
  if (image != NULL)
    {
      fuzz_accepted ();
      hs_image_unref (image);
    }
  g_clear_error (&error);
  return 0;
}
