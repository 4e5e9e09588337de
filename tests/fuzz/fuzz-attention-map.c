/* fuzz-attention-map.c — libFuzzer harness: attention map .npy loading (per-token and sentence maps) */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("map.npy", data, size);
  const char *tokens[] = { "left", "lung", NULL };
  GError *error = NULL;
  HsAttentionMap *map;

  map = hs_attention_map_load_npy (path, size % 2 ? tokens : NULL, 0.0, &error);
  if (map != NULL)
    {
      fuzz_accepted ();
      hs_attention_map_unref (map);
    }
  g_clear_error (&error);
  return 0;
}
