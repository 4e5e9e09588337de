/* fuzz-backend-response.c — libFuzzer harness: the `exec` backend's response-line parser */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  HsAttentionMap *map;

  fuzz_dir ();   /* sets the fuzzing limits */
  /* The id comes from the first byte so that matching and mismatching ids
   * are both reached. */
  map = hs_backend_exec_parse_response ((const char *) data, size, size > 0 ? data[0] % 4 : 0, &error);
  if (map != NULL)
    {
      fuzz_accepted ();
      hs_attention_map_unref (map);
    }
  g_clear_error (&error);
  return 0;
}
