/* fuzz-rle.c — libFuzzer harness: COCO RLE strings: parse, decode at the size given by the first two bytes, re-encode */
#include "fuzz-util.h"

#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;
  GError *error = NULL;
  GArray *counts;
  guint height, width;

  fuzz_dir ();
  if (size < 2)
    return 0;
  height = 1 + data[0] % 64;
  width = 1 + data[1] % 64;
  text = g_strndup ((const char *) data + 2, size - 2);
  counts = hs_rle_counts_from_string (text, &error);
  if (counts != NULL)
    {
      guint8 *mask = hs_rle_decode ((const guint32 *) counts->data, counts->len, height, width, NULL);

      if (mask != NULL)
        {
          fuzz_accepted ();
          GArray *again = hs_rle_encode (mask, height, width);
          char *back = hs_rle_counts_to_string ((const guint32 *) again->data, again->len);
          GArray *parsed = hs_rle_counts_from_string (back, NULL);
          guint8 *twice;

          /* encode ∘ decode is the identity on masks */
          g_assert_nonnull (parsed);
          twice = hs_rle_decode ((const guint32 *) parsed->data, parsed->len, height, width, NULL);
          g_assert_nonnull (twice);
          g_assert_true (memcmp (mask, twice, (gsize) height * width) == 0);
          g_free (twice);
          g_array_unref (parsed);
          g_free (back);
          g_array_unref (again);
          g_free (mask);
        }
      g_array_unref (counts);
    }
  g_clear_error (&error);
  return 0;
}
