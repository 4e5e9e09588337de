/* hs-image-png.c — PNG decoding and encoding with libpng */
#include "hs-image-private.h"

#include "hs-atomic-file.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <png.h>
#include <zlib.h>
#include <setjmp.h>
#include <string.h>

/* Both contexts hold libpng's error text; the error callback is given the
 * buffer itself, so one callback serves the reader and the writer. */
#define PNG_MESSAGE_SIZE 256

typedef struct
{
  const guint8 *data;
  gsize         len;
  gsize         pos;
  char          message[PNG_MESSAGE_SIZE];
  png_uint_32   height;        /* rows of the image, once known              */
  gboolean      interlaced;
  gsize         finish_read;   /* bytes read after the last row              */
  gboolean      over_budget;   /* the message is a budget's, not corruption  */
} PngReadContext;

/* After the last row libpng inflates whatever compressed data follows
 * ("extra compressed data", only a warning) — hundreds of megabytes from a
 * small file.  The image needs nothing more than the stream's last few
 * bytes, so reading more than this after the last row is refused before it
 * is inflated. */
#define AFTER_LAST_ROW_BUDGET 1024

static void
png_error_cb (png_structp png, png_const_charp message)
{
  char *buffer = png_get_error_ptr (png);

  g_strlcpy (buffer, message, PNG_MESSAGE_SIZE);
  png_longjmp (png, 1);
}

static void
png_warning_cb (png_structp png, png_const_charp message)
{
  /* Warnings (bad ancillary chunks, sRGB profile quirks) do not change the
   * pixels; the decoder carries on. */
}

static void
png_read_cb (png_structp png, png_bytep out, png_size_t count)
{
  PngReadContext *ctx = png_get_io_ptr (png);

  if (count > ctx->len - ctx->pos)
    png_error (png, "file is truncated (unexpected end of data)");
  if (ctx->height > 0 &&
      (ctx->interlaced ? png_get_current_pass_number (png) >= 7
                       : png_get_current_row_number (png) >= ctx->height))
    {
      ctx->finish_read += count;
      if (ctx->finish_read > AFTER_LAST_ROW_BUDGET)
        {
          g_snprintf (ctx->message, sizeof ctx->message,
                      _("more than %d bytes of compressed data after the last row, "
                        "which the image does not need"), AFTER_LAST_ROW_BUDGET);
          ctx->over_budget = TRUE;
          png_longjmp (png, 1);
        }
    }
  memcpy (out, ctx->data + ctx->pos, count);
  ctx->pos += count;
}

static void
set_png_error (GError **error, const char *name, const char *message, gboolean in_header)
{
  g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT,
               in_header ? _("%s: corrupt PNG header: %s") : _("%s: corrupt PNG: %s"), name, message);
}

HsImage *
hs_image_load_png_memory (const guint8 *data, gsize len, const char *name, GError **error)
{
  PngReadContext ctx = { data, len, 0, "", 0, FALSE, 0, FALSE };
  png_structp png;
  png_infop info;
  HsImage * volatile image = NULL;
  guint8 * volatile buffer = NULL;
  volatile gboolean in_header = TRUE;
  png_uint_32 width, height;
  int src_depth, color_type, interlace, depth, channels;
  gboolean keep_low_depth;
  gsize rowbytes;

  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, ctx.message, png_error_cb, png_warning_cb);
  if (png == NULL)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO, _("%s: cannot start the PNG decoder"), name);
      return NULL;
    }
  info = png_create_info_struct (png);
  if (info == NULL)
    {
      png_destroy_read_struct (&png, NULL, NULL);
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO, _("%s: cannot start the PNG decoder"), name);
      return NULL;
    }

  if (setjmp (png_jmpbuf (png)))
    {
      if (ctx.over_budget)
        g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE, "%s: %s", name, ctx.message);
      else
        set_png_error (error, name, ctx.message, in_header);
      g_free (buffer);
      if (image != NULL)
        hs_image_unref (image);
      png_destroy_read_struct (&png, &info, NULL);
      return NULL;
    }

  /* Our own pixel limit applies; libpng's fixed 1 M × 1 M cap would only
   * give a less helpful message. */
  png_set_user_limits (png, 0x7fffffff, 0x7fffffff);
  /* Text and ICC profiles are never used: not inflating them at all bounds
   * the work a file full of compressed ancillary chunks can ask for. */
  png_set_keep_unknown_chunks (png, PNG_HANDLE_CHUNK_NEVER,
                               (png_const_bytep) "zTXt\0iTXt\0tEXt\0iCCP\0sPLT\0", 5);
  png_set_read_fn (png, &ctx, png_read_cb);
  png_read_info (png, info);
  png_get_IHDR (png, info, &width, &height, &src_depth, &color_type, &interlace, NULL, NULL);

  if (!hs_image_check_size (name, width, height, error))
    {
      png_destroy_read_struct (&png, &info, NULL);
      return NULL;
    }
  {
    /* The image data inflates to a filter byte and the packed samples per
     * row (Adam7 adds at most a filter byte per pass row). */
    guint64 need = ((guint64) png_get_rowbytes (png, info) + (interlace != PNG_INTERLACE_NONE ? 7 : 1)) *
                   height;

    if (!hs_image_check_inflated (name, need, error) ||
        !hs_image_check_decode_ratio (name, need, len, error))
      {
        png_destroy_read_struct (&png, &info, NULL);
        return NULL;
      }
  }

  keep_low_depth = FALSE;
  if (color_type == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb (png);
  if (png_get_valid (png, info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha (png);
  else if (color_type == PNG_COLOR_TYPE_GRAY && src_depth < 8)
    {
      /* 1/2/4-bit grey keeps its values (0..2^d−1), one byte per sample. */
      png_set_packing (png);
      keep_low_depth = TRUE;
    }
  (void) png_set_interlace_handling (png);
  png_read_update_info (png, info);

  depth = png_get_bit_depth (png, info);
  channels = png_get_channels (png, info);
  rowbytes = png_get_rowbytes (png, info);
  if (channels < 1 || channels > 4 || (depth != 8 && depth != 16) ||
      rowbytes != (gsize) width * channels * (depth / 8))
    png_error (png, "unsupported pixel layout");

  in_header = FALSE;
  ctx.interlaced = interlace != PNG_INTERLACE_NONE;
  ctx.height = height;
  {
    GError *local_error = NULL;
    image = hs_image_new_named (name, width, height, channels,
                                keep_low_depth ? src_depth : depth, &local_error);
    if (image == NULL)
      {
        g_propagate_error (error, local_error);
        png_destroy_read_struct (&png, &info, NULL);
        return NULL;
      }
  }

  if (interlace != PNG_INTERLACE_NONE)
    {
      g_autofree png_bytep *rows = NULL;

      /* Adam7 needs the whole image in memory across its passes. */
      buffer = g_try_malloc (rowbytes * height);
      if (buffer == NULL)
        png_error (png, "out of memory for the interlaced image");
      rows = g_new (png_bytep, height);
      for (png_uint_32 y = 0; y < height; y++)
        rows[y] = buffer + (gsize) y * rowbytes;
      png_read_image (png, rows);
    }
  else
    buffer = g_malloc (rowbytes);

  for (png_uint_32 y = 0; y < height; y++)
    {
      guint8 *row;
      guint16 *out = image->data + (gsize) y * width * channels;
      gsize n = (gsize) width * channels;

      if (interlace != PNG_INTERLACE_NONE)
        row = buffer + (gsize) y * rowbytes;
      else
        {
          row = buffer;
          png_read_row (png, row, NULL);
        }
      if (depth == 16)
        for (gsize i = 0; i < n; i++)
          out[i] = (guint16) ((row[2 * i] << 8) | row[2 * i + 1]);
      else
        for (gsize i = 0; i < n; i++)
          out[i] = row[i];
    }
  png_read_end (png, NULL);

  g_free (buffer);
  png_destroy_read_struct (&png, &info, NULL);
  if (image != NULL)
    image->format = "PNG";
  return image;
}

gboolean
hs_image_probe_png (FILE *file, const char *name, guint *width, guint *height, GError **error)
{
  PngReadContext ctx = { NULL, 0, 0, "", 0, FALSE, 0, FALSE };
  png_structp png;
  png_infop info;
  png_uint_32 w, h;

  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, ctx.message, png_error_cb, png_warning_cb);
  info = png != NULL ? png_create_info_struct (png) : NULL;
  if (info == NULL)
    {
      png_destroy_read_struct (&png, NULL, NULL);
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO, _("%s: cannot start the PNG decoder"), name);
      return FALSE;
    }
  if (setjmp (png_jmpbuf (png)))
    {
      set_png_error (error, name, ctx.message, TRUE);
      png_destroy_read_struct (&png, &info, NULL);
      return FALSE;
    }
  png_set_user_limits (png, 0x7fffffff, 0x7fffffff);
  png_init_io (png, file);
  png_read_info (png, info);
  png_get_IHDR (png, info, &w, &h, NULL, NULL, NULL, NULL, NULL);
  png_destroy_read_struct (&png, &info, NULL);
  if (width != NULL)
    *width = w;
  if (height != NULL)
    *height = h;
  return TRUE;
}

typedef struct
{
  GByteArray *bytes;
  char        message[PNG_MESSAGE_SIZE];
} PngWriteContext;

static void
png_write_cb (png_structp png, png_bytep data, png_size_t len)
{
  PngWriteContext *ctx = png_get_io_ptr (png);

  g_byte_array_append (ctx->bytes, data, (guint) len);
}

static void
png_flush_cb (png_structp png)
{
}

gboolean
hs_image_save_png (HsImage *image, const char *path, GError **error)
{
  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return hs_image_save_png_full (image, path, HS_PNG_ENCODE_SMALL, error);
}

gboolean
hs_image_save_png_full (HsImage *image, const char *path, HsPngEncode encode, GError **error)
{
  static const int color_types[] = { PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                     PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA };
  PngWriteContext ctx = { NULL, "" };
  png_structp png;
  png_infop info;
  guint8 * volatile row = NULL;
  int out_depth;
  guint max_value;
  gsize n;
  gboolean ok;

  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* PNG allows 1/2/4-bit samples only for grey; other low depths are
   * rescaled to 8 bits. */
  max_value = hs_image_get_max_value (image);
  if (image->bit_depth == 16)
    out_depth = 16;
  else if (image->bit_depth < 8 && image->channels == 1)
    out_depth = image->bit_depth;
  else
    out_depth = 8;
  n = (gsize) image->width * image->channels;

  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, ctx.message, png_error_cb, png_warning_cb);
  info = png != NULL ? png_create_info_struct (png) : NULL;
  if (info == NULL)
    {
      png_destroy_write_struct (&png, NULL);
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO, _("%s: cannot start the PNG encoder"), path);
      return FALSE;
    }
  ctx.bytes = g_byte_array_new ();
  if (setjmp (png_jmpbuf (png)))
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO, _("%s: cannot encode PNG: %s"),
                   path, ctx.message);
      g_free (row);
      g_byte_array_unref (ctx.bytes);
      png_destroy_write_struct (&png, &info);
      return FALSE;
    }
  png_set_write_fn (png, &ctx, png_write_cb, png_flush_cb);
  png_set_IHDR (png, info, image->width, image->height, out_depth,
                color_types[image->channels - 1], PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (encode == HS_PNG_ENCODE_SMALL)
    png_set_compression_level (png, 6);
  else
    {
      /* masks are long runs of one value without filters; a generated
       * image's Up residuals are mostly runs too.  Z_RLE finds only those
       * (distance-1 matches), so it skips deflate's match search, most of
       * the encoding's CPU at level 6. */
      png_set_filter (png, PNG_FILTER_TYPE_BASE,
                      encode == HS_PNG_ENCODE_MASK ? PNG_FILTER_NONE : PNG_FILTER_UP);
      png_set_compression_level (png, 1);
      png_set_compression_strategy (png, Z_RLE);
    }
  png_write_info (png, info);
  if (out_depth < 8)
    png_set_packing (png);

  row = g_malloc (n * 2);
  for (guint y = 0; y < image->height; y++)
    {
      const guint16 *src = image->data + (gsize) y * n;

      if (out_depth == 16)
        for (gsize i = 0; i < n; i++)
          {
            row[2 * i] = src[i] >> 8;
            row[2 * i + 1] = src[i] & 0xff;
          }
      else if (out_depth == (int) image->bit_depth)
        for (gsize i = 0; i < n; i++)
          row[i] = (guint8) MIN (src[i], max_value);
      else
        for (gsize i = 0; i < n; i++)
          row[i] = (guint8) ((MIN (src[i], max_value) * 255u + max_value / 2) / max_value);
      png_write_row (png, row);
    }
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  g_free (row);

  ok = hs_atomic_write (path, ctx.bytes->data, ctx.bytes->len, error);
  g_byte_array_unref (ctx.bytes);
  return ok;
}

/* Cheap settings for figures (radiograph, overlay, flat panels and text):
 * the Up filter and zlib level 3 encode a 1024² figure several times faster
 * than cairo's writer (libpng's adaptive filters at level 6), for a few
 * per cent more bytes.  The pixels are cairo's: RGB when every pixel is
 * opaque, else RGBA un-premultiplied with cairo's rounding.  No cairo call
 * here: the CLI's commands that do not draw link this file without cairo
 * (src/cli/hs-cli-draw.c). */
#define FIGURE_PNG_LEVEL 3

gboolean
hs_png_encode_argb32 (const guint8 *data, int width, int height, int stride, gboolean has_alpha,
                      GByteArray *out)
{
  PngWriteContext ctx = { out, "" };
  png_structp png;
  png_infop info;
  guint8 * volatile row = NULL;
  volatile gboolean opaque = TRUE;

  g_return_val_if_fail (out != NULL, FALSE);
  if (data == NULL || width <= 0 || height <= 0)
    return FALSE;
  if (has_alpha)
    for (int y = 0; y < height && opaque; y++)
      {
        const guint32 *p = (const guint32 *) (data + (gsize) y * stride);

        for (int x = 0; x < width; x++)
          if ((p[x] >> 24) != 0xff)
            {
              opaque = FALSE;
              break;
            }
      }

  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, ctx.message, png_error_cb, png_warning_cb);
  info = png != NULL ? png_create_info_struct (png) : NULL;
  if (info == NULL)
    {
      png_destroy_write_struct (&png, NULL);
      return FALSE;
    }
  if (setjmp (png_jmpbuf (png)))
    {
      g_free (row);
      png_destroy_write_struct (&png, &info);
      return FALSE;
    }
  png_set_write_fn (png, &ctx, png_write_cb, png_flush_cb);
  png_set_IHDR (png, info, width, height, 8, opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA,
                PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_filter (png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
  png_set_compression_level (png, FIGURE_PNG_LEVEL);
  png_write_info (png, info);
  row = g_malloc ((gsize) width * 4);
  for (int y = 0; y < height; y++)
    {
      const guint32 *p = (const guint32 *) (data + (gsize) y * stride);
      guint8 *o = row;

      for (int x = 0; x < width; x++)
        {
          guint32 pixel = p[x], alpha = pixel >> 24;
          guint32 r = (pixel >> 16) & 0xff, g = (pixel >> 8) & 0xff, b = pixel & 0xff;

          if (opaque)
            {
              *o++ = r;
              *o++ = g;
              *o++ = b;
            }
          else if (alpha == 0)
            {
              memset (o, 0, 4);
              o += 4;
            }
          else
            {
              *o++ = (r * 255 + alpha / 2) / alpha;
              *o++ = (g * 255 + alpha / 2) / alpha;
              *o++ = (b * 255 + alpha / 2) / alpha;
              *o++ = alpha;
            }
        }
      png_write_row (png, row);
    }
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  g_free (row);
  return TRUE;
}
