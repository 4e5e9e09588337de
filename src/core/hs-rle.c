/* hs-rle.c — COCO run-length encoded masks */
#include "hs-rle.h"

#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <string.h>

G_DEFINE_QUARK (hs-rle-error-quark, hs_rle_error)

GArray *
hs_rle_counts_from_string (const char *text, GError **error)
{
  g_autoptr(GArray) counts = NULL;
  const char *p;

  g_return_val_if_fail (text != NULL, NULL);

  counts = g_array_new (FALSE, FALSE, sizeof (guint32));
  p = text;
  while (*p != '\0')
    {
      gint64 x = 0;
      guint k = 0;
      gboolean more = TRUE;

      while (more)
        {
          int c;

          if (*p == '\0')
            {
              g_set_error (error, HS_RLE_ERROR, HS_RLE_ERROR_INVALID,
                           _("RLE string ends in the middle of a count"));
              return NULL;
            }
          c = (guchar) *p - 48;
          if (c < 0 || c > 63)
            {
              g_set_error (error, HS_RLE_ERROR, HS_RLE_ERROR_INVALID,
                           _("RLE string has an invalid character '%c' at offset %d"),
                           *p, (int) (p - text));
              return NULL;
            }
          if (k >= 7)  /* 35 bits: more than any mask needs */
            {
              g_set_error (error, HS_RLE_ERROR, HS_RLE_ERROR_INVALID,
                           _("RLE count too long at offset %d"), (int) (p - text));
              return NULL;
            }
          x |= (gint64) (c & 0x1f) << (5 * k);
          more = (c & 0x20) != 0;
          p++;
          k++;
          if (!more && (c & 0x10))
            x |= (gint64) -1 * ((gint64) 1 << (5 * k));  /* sign-extend */
        }
      if (counts->len > 2)
        x += g_array_index (counts, guint32, counts->len - 2);
      if (x < 0 || x > G_MAXUINT32)
        {
          g_set_error (error, HS_RLE_ERROR, HS_RLE_ERROR_INVALID,
                       _("RLE count %u is out of range (%" PRId64 ")"), counts->len + 1, x);
          return NULL;
        }
      {
        guint32 v = (guint32) x;
        g_array_append_val (counts, v);
      }
    }
  return g_steal_pointer (&counts);
}

char *
hs_rle_counts_to_string (const guint32 *counts, gsize n_counts)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (counts != NULL || n_counts == 0, NULL);

  for (gsize i = 0; i < n_counts; i++)
    {
      gint64 x = counts[i];
      gboolean more = TRUE;

      if (i > 2)
        x -= counts[i - 2];
      while (more)
        {
          int c = (int) (x & 0x1f);

          x >>= 5;  /* arithmetic shift: gint64 is signed */
          more = (c & 0x10) ? x != -1 : x != 0;
          if (more)
            c |= 0x20;
          g_string_append_c (s, (char) (c + 48));
        }
    }
  return g_string_free (s, FALSE);
}

guint8 *
hs_rle_decode (const guint32 *counts, gsize n_counts, guint height, guint width, GError **error)
{
  guint64 total = 0, n = (guint64) height * width;
  guint8 *mask;
  guint64 pos = 0;

  g_return_val_if_fail (counts != NULL || n_counts == 0, NULL);

  for (gsize i = 0; i < n_counts; i++)
    total += counts[i];
  if (total != n)
    {
      g_set_error (error, HS_RLE_ERROR, HS_RLE_ERROR_SIZE,
                   _("RLE counts add up to %" PRIu64 " pixels, the mask has %u × %u = %" PRIu64), total, height, width, n);
      return NULL;
    }
  if (n == 0 || n > hs_limits_get ()->max_image_pixels)
    {
      g_set_error (error, HS_RLE_ERROR, HS_RLE_ERROR_SIZE,
                   _("RLE mask of %u × %u pixels is empty or too large"), height, width);
      return NULL;
    }
  mask = g_malloc0 (n);
  for (gsize i = 0; i < n_counts; i++)
    {
      if (i % 2 == 1)
        for (guint64 j = pos; j < pos + counts[i]; j++)
          {
            /* column-major index j → row j % height, column j / height */
            guint64 row = j % height, col = j / height;
            mask[row * width + col] = 1;
          }
      pos += counts[i];
    }
  return mask;
}

GArray *
hs_rle_encode (const guint8 *mask, guint height, guint width)
{
  GArray *counts = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint8 current = 0;
  guint32 run = 0;

  g_return_val_if_fail (mask != NULL || (guint64) height * width == 0, counts);

  for (guint col = 0; col < width; col++)
    for (guint row = 0; row < height; row++)
      {
        guint8 v = mask[(gsize) row * width + col] != 0;
        if (v != current)
          {
            g_array_append_val (counts, run);
            run = 0;
            current = v;
          }
        run++;
      }
  g_array_append_val (counts, run);
  return counts;
}
