/* hs-import-siim.c — SIIM-ACR Pneumothorax train-rle.csv
 * ("ImageId,EncodedPixels"; "-1" = no pneumothorax; an image with several
 * components has one row per component).
 *
 * EncodedPixels is the challenge's *relative* run-length encoding
 * (mask_functions.py): pairs "gap length", where each gap counts the pixels
 * after the end of the previous run, over the 1024 × 1024 mask in
 * column-major order (down the first column first).  That is exactly COCO's
 * alternating zero/one run lengths without the final run of zeros, so
 * hs_rle_decode() does the work; tests/test-import-siim.c checks the
 * convention against a round trip through the published encoder. */
#include "hs-import-private.h"

#include "hs-rle.h"
#include "hs-i18n-private.h"

#include <stdlib.h>
#include <string.h>

#define SIIM_SIZE 1024u
#define SIIM_REGION "Pneumothorax"

/* Relative "gap length ..." pairs → a SIIM_SIZE² row-major 0/1 mask ORed into `mask`. */
static gboolean
decode_relative (const char *text, guint8 *mask, GError **error)
{
  g_auto(GStrv) parts = g_strsplit_set (text, " \t", -1);
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree guint8 *one = NULL;
  guint64 total = 0, all = (guint64) SIIM_SIZE * SIIM_SIZE;
  guint32 rest;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *end = NULL;
      guint64 v;

      if (*parts[i] == '\0')
        continue;
      v = g_ascii_strtoull (parts[i], &end, 10);
      if (end == parts[i] || *end != '\0' || parts[i][0] == '-' || v > all)
        {
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                       _("EncodedPixels value '%s' is not a count"), parts[i]);
          return FALSE;
        }
      total += v;
      if (total > all)
        {
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                       _("EncodedPixels runs past the %u × %u mask"), SIIM_SIZE, SIIM_SIZE);
          return FALSE;
        }
      {
        guint32 c = (guint32) v;
        g_array_append_val (counts, c);
      }
    }
  if (counts->len == 0 || counts->len % 2 != 0)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                   _("EncodedPixels holds %u numbers, not gap/length pairs"), counts->len);
      return FALSE;
    }
  rest = (guint32) (all - total);
  g_array_append_val (counts, rest);
  one = hs_rle_decode ((const guint32 *) (gpointer) counts->data, counts->len, SIIM_SIZE, SIIM_SIZE, error);
  if (one == NULL)
    return FALSE;
  for (gsize i = 0; i < all; i++)
    mask[i] |= one[i];
  return TRUE;
}

typedef struct
{
  HsImportImage *image;
  guint8        *mask;   /* SIIM_SIZE², NULL while the image has no component */
} SiimImage;

gboolean
hs_import_siim (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *csv_path = sources[0];
  g_autofree char *base = g_path_get_dirname (csv_path);
  g_autofree char *image_dir = n >= 2 ? g_strdup (sources[1]) : g_strdup (base);
  g_autoptr(HsCsvReader) reader = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GHashTable) masks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  HsImportImages *images;
  int c_id, c_rle;
  /* the published header is "ImageId, EncodedPixels" (with a space): the
   * names are found trimmed */
  const HsImportColumn columns[] = { { "ImageId", &c_id }, { "EncodedPixels", &c_rle } };
  guint line = 0;
  gboolean ok = TRUE;

  reader = hs_import_open_csv_with_header (
    csv_path, &line, columns, G_N_ELEMENTS (columns), error,
    _("%s:1: not a SIIM-ACR header (ImageId, EncodedPixels)"),
    csv_path);
  if (reader == NULL)
    return FALSE;

  images = hs_import_images_new (image_dir, "SIIM-ACR Pneumothorax");
  while (TRUE)
    {
      g_auto(GStrv) row = NULL;
      HsImportImage *image;
      const char *id, *rle;
      guint8 *mask;

      g_clear_error (&local_error);
      if (!hs_import_next_row (ctx, reader, csv_path, &line, &row, error))
        {
          ok = FALSE;
          break;
        }
      if (row == NULL)
        break;
      if ((int) g_strv_length (row) <= MAX (c_id, c_rle))
        {
          hs_import_skip (ctx, csv_path, line, _("expected ImageId and EncodedPixels"));
          continue;
        }
      id = g_strstrip (row[c_id]);
      rle = g_strstrip (row[c_rle]);
      image = hs_import_images_get (ctx, images, id, csv_path, line);
      if (image == NULL)
        continue;
      if (strcmp (rle, "-1") == 0)
        continue;   /* no pneumothorax */
      mask = g_hash_table_lookup (masks, image);
      if (mask == NULL)
        {
          mask = g_malloc0 ((gsize) SIIM_SIZE * SIIM_SIZE);
          g_hash_table_insert (masks, image, mask);
          g_ptr_array_add (order, image);
        }
      if (!decode_relative (rle, mask, &local_error))
        hs_import_skip (ctx, csv_path, line, "%s", local_error->message);
    }

  /* One mask per image: the union of its components, at the image's size. */
  for (guint i = 0; ok && i < order->len; i++)
    {
      HsImportImage *image = g_ptr_array_index (order, i);
      const guint8 *mask = g_hash_table_lookup (masks, image);
      g_autofree guint8 *scaled = g_malloc0 ((gsize) image->width * image->height);
      gboolean any = FALSE;

      for (guint y = 0; y < image->height; y++)
        for (guint x = 0; x < image->width; x++)
          {
            guint sx = (guint) (((guint64) x * SIIM_SIZE) / image->width);
            guint sy = (guint) (((guint64) y * SIIM_SIZE) / image->height);
            guint8 v = mask[(gsize) sy * SIIM_SIZE + sx];
            scaled[(gsize) y * image->width + x] = v;
            any |= v;
          }
      if (!any)
        continue;
      if (!hs_import_set_region_mask (ctx, image->instance, SIIM_REGION, image->instance->id,
                                      scaled, image->width, image->height, error))
        {
          ok = FALSE;
          break;
        }
      hs_import_add_class_sentence (ctx, image->instance, SIIM_REGION);
      hs_import_add_positive (ctx, image->instance, SIIM_REGION);
    }
  hs_import_images_finish (ctx, images);
  return ok;
}
