/* hs-image-jpeg.c — JPEG decoding with libjpeg-turbo */
#include "hs-image-private.h"

#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <string.h>

typedef struct
{
  struct jpeg_error_mgr pub;
  jmp_buf               jump;
  char                  message[JMSG_LENGTH_MAX];
  struct jpeg_progress_mgr progress;
  guint64               max_scans;
  gboolean              over_budget;   /* the message is a budget's, not corruption */
} JpegErrorContext;

static void
jpeg_error_exit_cb (j_common_ptr cinfo)
{
  JpegErrorContext *ctx = (JpegErrorContext *) cinfo->err;

  ctx->pub.format_message (cinfo, ctx->message);
  longjmp (ctx->jump, 1);
}

static void
jpeg_emit_message_cb (j_common_ptr cinfo, int msg_level)
{
  JpegErrorContext *ctx = (JpegErrorContext *) cinfo->err;

  if (msg_level >= 0)
    return;  /* trace messages */
  /* libjpeg pads a truncated file with grey and only warns; a half-grey
   * radiograph must not pass for the real image, so these are errors. */
  if (ctx->pub.msg_code == JWRN_JPEG_EOF || ctx->pub.msg_code == JWRN_HIT_MARKER ||
      ctx->pub.msg_code == JWRN_MUST_RESYNC)
    {
      ctx->pub.format_message (cinfo, ctx->message);
      longjmp (ctx->jump, 1);
    }
  ctx->pub.num_warnings++;
}

static void
jpeg_output_message_cb (j_common_ptr cinfo)
{
}

/* A progressive JPEG may repeat scans without end (libjpeg only warns),
 * each one a pass over every coefficient: the scan count is a budget. */
static void
jpeg_progress_cb (j_common_ptr cinfo)
{
  JpegErrorContext *ctx = (JpegErrorContext *) cinfo->err;
  j_decompress_ptr dinfo = (j_decompress_ptr) cinfo;

  if (cinfo->is_decompressor && (guint64) dinfo->input_scan_number > ctx->max_scans)
    {
      g_snprintf (ctx->message, sizeof ctx->message,
                  _("more scans than the limit of %" PRIu64 " (HEATSCOPE_MAX_JPEG_SCANS)"),
                  ctx->max_scans);
      ctx->over_budget = TRUE;
      longjmp (ctx->jump, 1);
    }
}

static void
init_error_context (JpegErrorContext *ctx)
{
  jpeg_std_error (&ctx->pub);
  ctx->pub.error_exit = jpeg_error_exit_cb;
  ctx->pub.emit_message = jpeg_emit_message_cb;
  ctx->pub.output_message = jpeg_output_message_cb;
  ctx->message[0] = '\0';
  ctx->progress.progress_monitor = jpeg_progress_cb;
  ctx->max_scans = hs_limits_get ()->max_jpeg_scans;
  ctx->over_budget = FALSE;
}

static inline guint8
mul255 (guint a, guint b)
{
  guint t = a * b + 128;
  return (guint8) ((t + (t >> 8)) >> 8);
}

HsImage *
hs_image_load_jpeg_memory (const guint8 *data, gsize len, const char *name, GError **error)
{
  struct jpeg_decompress_struct cinfo;
  JpegErrorContext jerr;
  HsImage * volatile image = NULL;
  guint8 * volatile row = NULL;
  volatile gboolean in_header = TRUE;
  gboolean cmyk, inverted;
  guint channels;

  init_error_context (&jerr);
  cinfo.err = &jerr.pub;
  if (setjmp (jerr.jump))
    {
      if (jerr.over_budget)
        g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE, _("%s: JPEG has %s"),
                     name, jerr.message);
      else
        g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, in_header ? _("%s: corrupt JPEG header: %s")
                     : _("%s: corrupt JPEG: %s"), name, jerr.message);
      g_free (row);
      if (image != NULL)
        hs_image_unref (image);
      jpeg_destroy_decompress (&cinfo);
      return NULL;
    }
  jpeg_create_decompress (&cinfo);
  cinfo.progress = &jerr.progress;
  jpeg_mem_src (&cinfo, data, (unsigned long) len);
  jpeg_read_header (&cinfo, TRUE);

  if (!hs_image_check_size (name, cinfo.image_width, cinfo.image_height, error) ||
      !hs_image_check_decode_ratio (name, (guint64) cinfo.image_width * cinfo.image_height *
                                          MAX (cinfo.num_components, 1), len, error))
    {
      jpeg_destroy_decompress (&cinfo);
      return NULL;
    }

  cmyk = FALSE;
  inverted = FALSE;
  switch (cinfo.jpeg_color_space)
    {
    case JCS_GRAYSCALE:
      cinfo.out_color_space = JCS_GRAYSCALE;
      channels = 1;
      break;
    case JCS_CMYK:
    case JCS_YCCK:
      cinfo.out_color_space = JCS_CMYK;
      cmyk = TRUE;
      /* Photoshop (Adobe APP14) stores CMYK inverted: 255 means no ink. */
      inverted = cinfo.saw_Adobe_marker;
      channels = 3;
      break;
    default:
      cinfo.out_color_space = JCS_RGB;
      channels = 3;
      break;
    }

  jpeg_start_decompress (&cinfo);
  in_header = FALSE;
  if ((guint) cinfo.output_components != (cmyk ? 4u : channels))
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_FORMAT,
                   _("%s: unsupported JPEG colour layout (%d components)"), name,
                   cinfo.output_components);
      jpeg_destroy_decompress (&cinfo);
      return NULL;
    }
  image = hs_image_new_named (name, cinfo.output_width, cinfo.output_height, channels, 8, error);
  if (image == NULL)
    {
      jpeg_destroy_decompress (&cinfo);
      return NULL;
    }
  row = g_malloc ((gsize) cinfo.output_width * cinfo.output_components);

  while (cinfo.output_scanline < cinfo.output_height)
    {
      JSAMPROW rows[1] = { row };
      guint y = cinfo.output_scanline;
      guint16 *out = image->data + (gsize) y * image->width * channels;

      if (jpeg_read_scanlines (&cinfo, rows, 1) != 1)
        {
          g_strlcpy (jerr.message, "no more scanlines", sizeof jerr.message);
          longjmp (jerr.jump, 1);
        }
      if (!cmyk)
        {
          gsize n = (gsize) image->width * channels;
          for (gsize i = 0; i < n; i++)
            out[i] = row[i];
        }
      else
        {
          for (guint x = 0; x < image->width; x++)
            {
              const guint8 *p = row + 4 * (gsize) x;
              guint c = p[0], m = p[1], yy = p[2], k = p[3];

              if (!inverted)
                {
                  c = 255 - c; m = 255 - m; yy = 255 - yy; k = 255 - k;
                }
              /* Now c..k are "no ink" amounts: R = (1 − C)(1 − K). */
              out[3 * x] = mul255 (c, k);
              out[3 * x + 1] = mul255 (m, k);
              out[3 * x + 2] = mul255 (yy, k);
            }
        }
    }
  jpeg_finish_decompress (&cinfo);
  jpeg_destroy_decompress (&cinfo);
  g_free (row);
  if (image != NULL)
    image->format = "JPEG";
  return image;
}

gboolean
hs_image_probe_jpeg (FILE *file, const char *name, guint *width, guint *height, GError **error)
{
  struct jpeg_decompress_struct cinfo;
  JpegErrorContext jerr;

  init_error_context (&jerr);
  cinfo.err = &jerr.pub;
  if (setjmp (jerr.jump))
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, _("%s: corrupt JPEG header: %s"),
                   name, jerr.message);
      jpeg_destroy_decompress (&cinfo);
      return FALSE;
    }
  jpeg_create_decompress (&cinfo);
  jpeg_stdio_src (&cinfo, file);
  jpeg_read_header (&cinfo, TRUE);
  if (width != NULL)
    *width = cinfo.image_width;
  if (height != NULL)
    *height = cinfo.image_height;
  jpeg_destroy_decompress (&cinfo);
  return TRUE;
}
