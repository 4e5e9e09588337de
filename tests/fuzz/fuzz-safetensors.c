/* fuzz-safetensors.c — libFuzzer harness: safetensors reading, every tensor read as floats */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  HsSafetensors *st;

  fuzz_dir ();
  st = hs_safetensors_load_from_memory (data, size, "fuzz.safetensors", &error);
  if (st != NULL)
    {
      fuzz_accepted ();
      const char * const *names = hs_safetensors_list (st);
      g_autofree const char **keys = hs_safetensors_list_metadata (st);

      for (guint i = 0; names != NULL && names[i] != NULL; i++)
        {
          gsize n = 0;
          GError *local_error = NULL;
          float *values = hs_safetensors_get_float (st, names[i], &n, &local_error);

          g_free (values);
          g_clear_error (&local_error);
        }
      for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
        (void) hs_safetensors_get_metadata (st, keys[i]);
      hs_safetensors_free (st);
    }
  g_clear_error (&error);
  return 0;
}
