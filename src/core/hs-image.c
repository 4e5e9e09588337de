/* hs-image.c — a decoded raster image that keeps the source bit depth */
#include "hs-image-private.h"

#include "hs-limits.h"
#include "hs-safe-open.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-image-error-quark, hs_image_error)

gboolean
hs_image_check_size (const char *name, guint64 width, guint64 height, GError **error)
{
  guint64 max_pixels = hs_limits_get ()->max_image_pixels;

  if (width == 0 || height == 0)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT,
                   _("%s: image has an empty size (%" PRIu64 " × %" PRIu64 ")"),
                   name, width, height);
      return FALSE;
    }
  /* Both factors fit in 32 bits, so the product cannot overflow 64 bits. */
  if (width > G_MAXUINT32 || height > G_MAXUINT32 || width * height > max_pixels)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE,
                   _("%s: image of %" PRIu64 " × %" PRIu64
                   " pixels is too large (limit %" PRIu64 " pixels)"),
                   name, width, height, max_pixels);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_image_check_decode_ratio (const char *name, guint64 decoded, guint64 input, GError **error)
{
  guint64 ratio = hs_limits_get ()->max_decode_ratio;

  /* decoded / input > ratio, without dividing (input may be 0). */
  if (decoded > HS_LIMITS_RATIO_FREE_BYTES && decoded / MAX (input, 1) >= ratio &&
      decoded > ratio * input)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE,
                   _("%s: decodes to %" PRIu64 " bytes from %" PRIu64
                   " bytes, more than %" PRIu64 " bytes per input byte "
                   "(limit HEATSCOPE_MAX_DECODE_RATIO)"), name, decoded, input, ratio);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_image_check_inflated (const char *name, guint64 inflated, GError **error)
{
  guint64 max_bytes = hs_limits_get ()->max_inflated_bytes;

  if (inflated > max_bytes)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE,
                   _("%s: inflates to more than %" PRIu64 " bytes "
                   "(limit HEATSCOPE_MAX_INFLATED_BYTES)"), name, max_bytes);
      return FALSE;
    }
  return TRUE;
}

HsImage *
hs_image_new_named (const char *name, guint width, guint height, guint channels,
                 guint bit_depth, GError **error)
{
  HsImage *image;
  gsize n_samples;
  guint16 *data;

  if (channels < 1 || channels > 4)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_INVALID,
                   _("%s: unsupported channel count %u (1 to 4)"), name, channels);
      return NULL;
    }
  if (bit_depth != 1 && bit_depth != 2 && bit_depth != 4 && bit_depth != 8 && bit_depth != 16)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_INVALID,
                   _("%s: unsupported bit depth %u (1, 2, 4, 8 or 16)"), name, bit_depth);
      return NULL;
    }
  if (width == 0 || height == 0)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_INVALID,
                   _("%s: image has an empty size (%u × %u)"), name, width, height);
      return NULL;
    }
  if (!hs_image_check_size (name, width, height, error))
    return NULL;
  if (!g_size_checked_mul (&n_samples, (gsize) width * height, channels) ||
      n_samples > G_MAXSIZE / sizeof (guint16))
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE,
                   _("%s: image of %u × %u × %u samples is too large"), name, width, height, channels);
      return NULL;
    }
  data = g_try_malloc0 (n_samples * sizeof (guint16));
  if (data == NULL)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE,
                   _("%s: out of memory for an image of %u × %u pixels"), name, width, height);
      return NULL;
    }
  image = g_new0 (HsImage, 1);
  image->ref_count = 1;
  image->width = width;
  image->height = height;
  image->channels = channels;
  image->bit_depth = bit_depth;
  image->data = data;
  image->max_value = (1u << bit_depth) - 1;
  image->value_slope = 1.0;
  return image;
}

void
hs_image_copy_info (HsImage *dst, const HsImage *src)
{
  dst->max_value = src->max_value;
  dst->format = src->format;
  dst->value_slope = src->value_slope;
  dst->value_intercept = src->value_intercept;
  g_free (dst->value_unit);
  dst->value_unit = g_strdup (src->value_unit);
  dst->has_file_window = src->has_file_window;
  dst->has_window = src->has_window;
  dst->window_center = src->window_center;
  dst->window_width = src->window_width;
  dst->has_spacing = src->has_spacing;
  dst->spacing_at_detector = src->spacing_at_detector;
  dst->spacing_row = src->spacing_row;
  dst->spacing_column = src->spacing_column;
  g_free (dst->note);
  dst->note = g_strdup (src->note);
}

HsImage *
hs_image_new (guint width, guint height, guint channels, guint bit_depth, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return hs_image_new_named ("new image", width, height, channels, bit_depth, error);
}

gboolean
hs_image_is_png (const guint8 *data, gsize len)
{
  static const guint8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

  return len >= 8 && memcmp (data, signature, 8) == 0;
}

gboolean
hs_image_is_jpeg (const guint8 *data, gsize len)
{
  return len >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff;
}

gboolean
hs_image_is_dicom (const guint8 *data, gsize len)
{
  if (len >= 132 && memcmp (data + 128, "DICM", 4) == 0)
    return TRUE;
  /* No preamble (old ACR-NEMA style files, some archives): the data set
   * starts with a group 0x0002 or 0x0008 element, little endian. */
  return len >= 8 && (data[0] == 0x02 || data[0] == 0x08) && data[1] == 0x00 &&
         data[3] == 0x00 && data[2] < 0x80;
}

HsImage *
hs_image_load_from_memory (const guint8 *data, gsize len, const char *name_for_errors,
                           GError **error)
{
  const char *name = name_for_errors != NULL ? name_for_errors : "image";

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (len > hs_limits_get ()->max_file_bytes)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE,
                   _("%s: file of %zu bytes is too large (limit %" PRIu64 " bytes)"),
                   name, len, hs_limits_get ()->max_file_bytes);
      return NULL;
    }
  if (len == 0)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_FORMAT, _("%s: file is empty"), name);
      return NULL;
    }
  if (hs_image_is_png (data, len))
    return hs_image_load_png_memory (data, len, name, error);
  if (hs_image_is_jpeg (data, len))
    return hs_image_load_jpeg_memory (data, len, name, error);
  if (hs_image_is_dicom (data, len))
    return hs_image_load_dicom_memory (data, len, name, error);
  g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_FORMAT,
               _("%s: not a PNG, JPEG or DICOM image (unknown signature)"), name);
  return NULL;
}

/* Reads the whole open file after checking its size against HsLimits on
 * the descriptor itself: the file checked is the file read. */
static gboolean
read_limited_fd (int fd, const char *path, guint8 **contents, gsize *len, GError **error)
{
  g_autoptr(GError) local_error = NULL;

  if (hs_safe_read_fd (fd, path, hs_limits_get ()->max_file_bytes, contents, len, &local_error))
    return TRUE;
  g_set_error_literal (error, HS_IMAGE_ERROR,
                       local_error->code == HS_SAFE_OPEN_ERROR_TOO_LARGE ? HS_IMAGE_ERROR_TOO_LARGE
                                                                         : HS_IMAGE_ERROR_IO,
                       local_error->message);
  return FALSE;
}

/* Opens a user-named file (symlinks followed: the user named it) without
 * blocking on a FIFO; the callers check the descriptor, not the name. */
static int
open_named (const char *path, GError **error)
{
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);

  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO,
                   _("%s: cannot read: %s"), path, g_strerror (saved));
    }
  return fd;
}

HsImage *
hs_image_load_fd (int fd, const char *path, GError **error)
{
  g_autofree guint8 *contents = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!read_limited_fd (fd, path, &contents, &len, error))
    return NULL;
  return hs_image_load_from_memory (contents, len, path, error);
}

HsImage *
hs_image_load (const char *path, GError **error)
{
  HsImage *image;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  fd = open_named (path, error);
  if (fd < 0)
    return NULL;
  image = hs_image_load_fd (fd, path, error);
  close (fd);
  return image;
}

/* A DICOM header ends well within this in practice; larger ones are read whole. */
#define DICOM_PROBE_BYTES (1u << 20)

/* file_size: from fstat; the prefix's lengths are checked against it (up to
 * the file size limit), so GDCM reading the prefix allocates no more. */
static gboolean
probe_dicom (FILE *file, int fd, gsize file_size, const char *path, guint *width, guint *height,
             char *modality, GError **error)
{
  g_autofree guint8 *head = g_malloc (DICOM_PROBE_BYTES);
  g_autofree guint8 *contents = NULL;
  gsize n = fread (head, 1, DICOM_PROBE_BYTES, file);
  gboolean need_more = FALSE;
  gsize len = 0;

  gsize whole = n < DICOM_PROBE_BYTES ? n : MAX (n, MIN (file_size, hs_limits_get ()->max_file_bytes));

  if (hs_image_probe_dicom (head, n, whole, path, width, height, modality, &need_more, error))
    return TRUE;
  if (!need_more)
    return FALSE;
  g_clear_error (error);
  if (lseek (fd, 0, SEEK_SET) != 0 || !read_limited_fd (fd, path, &contents, &len, error))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO, _("%s: cannot read: %s"), path, g_strerror (errno));
      return FALSE;
    }
  return hs_image_probe_dicom (contents, len, len, path, width, height, modality, &need_more, error);
}

gboolean
hs_image_probe_fd (int fd, const char *path, guint *width, guint *height, GError **error)
{
  return hs_image_probe_fd_modality (fd, path, width, height, NULL, error);
}

gboolean
hs_image_probe_fd_modality (int fd, const char *path, guint *width, guint *height, char *modality,
                            GError **error)
{
  guint8 magic[132] = { 0 };
  struct stat st;
  gsize n;
  gboolean ok;
  FILE *file;
  int own;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO, _("%s: not a regular file"), path);
      return FALSE;
    }
  /* The caller keeps its descriptor; the stream gets its own. */
  own = dup (fd);
  if (own < 0 || lseek (own, 0, SEEK_SET) != 0 || (file = fdopen (own, "rb")) == NULL)
    {
      int saved = errno;
      if (own >= 0)
        close (own);
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO,
                   _("%s: cannot read: %s"), path, g_strerror (saved));
      return FALSE;
    }
  n = fread (magic, 1, sizeof magic, file);
  rewind (file);
  if (modality != NULL)
    modality[0] = '\0';
  if (hs_image_is_png (magic, n))
    ok = hs_image_probe_png (file, path, width, height, error);
  else if (hs_image_is_jpeg (magic, n))
    ok = hs_image_probe_jpeg (file, path, width, height, error);
  else if (hs_image_is_dicom (magic, n))
    ok = probe_dicom (file, fd, (gsize) st.st_size, path, width, height, modality, error);
  else
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_FORMAT,
                   n == 0 ? _("%s: file is empty")
                   : _("%s: not a PNG, JPEG or DICOM image (unknown signature)"),
                   path);
      ok = FALSE;
    }
  fclose (file);
  return ok;
}

gboolean
hs_image_probe (const char *path, guint *width, guint *height, GError **error)
{
  gboolean ok;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  fd = open_named (path, error);
  if (fd < 0)
    return FALSE;
  ok = hs_image_probe_fd (fd, path, width, height, error);
  close (fd);
  return ok;
}

HsImage *
hs_image_ref (HsImage *image)
{
  g_return_val_if_fail (image != NULL, NULL);

  g_atomic_int_inc (&image->ref_count);
  return image;
}

void
hs_image_unref (HsImage *image)
{
  g_return_if_fail (image != NULL);

  if (g_atomic_int_dec_and_test (&image->ref_count))
    {
      g_free (image->data);
      g_free (image->value_unit);
      g_free (image->note);
      g_free (image);
    }
}

guint
hs_image_get_width (const HsImage *image)
{
  g_return_val_if_fail (image != NULL, 0);
  return image->width;
}

guint
hs_image_get_height (const HsImage *image)
{
  g_return_val_if_fail (image != NULL, 0);
  return image->height;
}

guint
hs_image_get_channels (const HsImage *image)
{
  g_return_val_if_fail (image != NULL, 0);
  return image->channels;
}

guint
hs_image_get_bit_depth (const HsImage *image)
{
  g_return_val_if_fail (image != NULL, 0);
  return image->bit_depth;
}

guint
hs_image_get_max_value (const HsImage *image)
{
  g_return_val_if_fail (image != NULL, 0);
  return image->max_value;
}

guint16 *
hs_image_get_data (HsImage *image)
{
  g_return_val_if_fail (image != NULL, NULL);
  return image->data;
}

const guint16 *
hs_image_peek_data (const HsImage *image)
{
  g_return_val_if_fail (image != NULL, NULL);
  return image->data;
}

static inline double
luma (const guint16 *p, guint channels)
{
  if (channels >= 3)
    return 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
  return p[0];
}

double
hs_image_get_grey (const HsImage *image, guint x, guint y)
{
  g_return_val_if_fail (image != NULL, 0.0);
  g_return_val_if_fail (x < image->width && y < image->height, 0.0);

  return luma (image->data + ((gsize) y * image->width + x) * image->channels, image->channels);
}

HsImage *
hs_image_to_grey (const HsImage *image)
{
  HsImage *grey;
  gsize n_pixels;

  g_return_val_if_fail (image != NULL, NULL);

  grey = hs_image_new_named ("grey image", image->width, image->height, 1, image->bit_depth, NULL);
  if (grey == NULL)
    return NULL;
  hs_image_copy_info (grey, image);
  n_pixels = (gsize) image->width * image->height;
  for (gsize i = 0; i < n_pixels; i++)
    {
      const guint16 *p = image->data + i * image->channels;
      grey->data[i] = image->channels >= 3 ? (guint16) lround (luma (p, image->channels)) : p[0];
    }
  return grey;
}

void
hs_image_levels_into (const HsImage *image, double center, double width, guint8 *pixels,
                      gsize stride)
{
  guint max_value;
  g_autofree guint32 *lut = NULL;
  double lo, hi, scale;

  g_return_if_fail (image != NULL && pixels != NULL);

  max_value = hs_image_get_max_value (image);
  if (width > 0 && isfinite (width) && isfinite (center))
    {
      lo = center - width / 2.0;
      hi = center + width / 2.0;
    }
  else
    {
      lo = 0.0;
      hi = max_value;
    }
  /* One table entry per possible sample, holding the finished pixel: a 16-bit
   * image costs one lookup per sample instead of a division.  The table
   * covers all of 0..65535 so a sample written above max_value through
   * hs_image_get_data() stays safe. */
  lut = g_malloc (65536 * sizeof (guint32));
  scale = 255.0 / (hi - lo);
  for (guint v = 0; v < 65536; v++)
    {
      double out = (v - lo) * scale;
      guint32 g = out <= 0.0 ? 0 : out >= 255.0 ? 255 : (guint32) (out + 0.5);
      lut[v] = 0xff000000u | (g << 16) | (g << 8) | g;
    }

  for (guint y = 0; y < image->height; y++)
    {
      const guint16 *src = image->data + (gsize) y * image->width * image->channels;
      guint32 *dst = (guint32 *) (gpointer) (pixels + (gsize) y * stride);
      guint w = image->width;

      switch (image->channels)
        {
        case 1:
          for (guint x = 0; x < w; x++)
            dst[x] = lut[src[x]];
          break;
        case 2:
          for (guint x = 0; x < w; x++)
            dst[x] = lut[src[2 * x]];
          break;
        default:
          for (guint x = 0; x < w; x++)
            {
              const guint16 *p = src + (gsize) x * image->channels;
              dst[x] = (lut[p[0]] & 0xffff0000u) | (lut[p[1]] & 0x0000ff00u) | (lut[p[2]] & 0xffu);
            }
          break;
        }
    }
}

const char *
hs_image_get_format (const HsImage *image)
{
  g_return_val_if_fail (image != NULL, NULL);
  return image->format;
}

void
hs_image_get_value_mapping (const HsImage *image, double *slope, double *intercept)
{
  g_return_if_fail (image != NULL);
  if (slope != NULL)
    *slope = image->value_slope;
  if (intercept != NULL)
    *intercept = image->value_intercept;
}

double
hs_image_sample_to_value (const HsImage *image, double sample)
{
  g_return_val_if_fail (image != NULL, sample);
  return image->value_slope * sample + image->value_intercept;
}

double
hs_image_value_to_sample (const HsImage *image, double value)
{
  g_return_val_if_fail (image != NULL, value);
  return (value - image->value_intercept) / image->value_slope;
}

void
hs_image_get_value_range (const HsImage *image, double *lowest, double *highest)
{
  double a, b;

  g_return_if_fail (image != NULL);
  a = hs_image_sample_to_value (image, 0);
  b = hs_image_sample_to_value (image, image->max_value);
  if (lowest != NULL)
    *lowest = MIN (a, b);
  if (highest != NULL)
    *highest = MAX (a, b);
}

const char *
hs_image_get_value_unit (const HsImage *image)
{
  g_return_val_if_fail (image != NULL, NULL);
  return image->value_unit;
}

gboolean
hs_image_get_default_window (const HsImage *image, double *center, double *width)
{
  double c, w;

  g_return_val_if_fail (image != NULL, FALSE);
  if (image->has_window)
    {
      c = image->window_center;
      w = image->window_width;
    }
  else
    {
      double lo, hi;

      hs_image_get_value_range (image, &lo, &hi);
      c = (lo + hi) / 2.0;
      w = hi - lo;
    }
  if (center != NULL)
    *center = c;
  if (width != NULL)
    *width = w;
  return image->has_file_window;
}

void
hs_image_window_to_samples (const HsImage *image, double center, double width,
                            double *sample_center, double *sample_width)
{
  g_return_if_fail (image != NULL);

  /* A negative slope (MONOCHROME1) maps the same interval: samples were
   * already inverted, so low samples stay dark. */
  *sample_center = hs_image_value_to_sample (image, center);
  *sample_width = width / fabs (image->value_slope);
}

HsImage *
hs_image_render_grey8 (const HsImage *image, double center, double width)
{
  g_autofree guint32 *pixels = NULL;
  HsImage *grey;
  double c = 0, w = 0;

  g_return_val_if_fail (image != NULL, NULL);

  /* hs_image_levels_values' pixels, without a cairo surface */
  if (width > 0 && isfinite (width) && isfinite (center))
    hs_image_window_to_samples (image, center, width, &c, &w);
  grey = hs_image_new_named ("grey image", image->width, image->height, 1, 8, NULL);
  if (grey == NULL)
    return NULL;
  pixels = g_try_malloc ((gsize) image->width * image->height * sizeof (guint32));
  if (pixels == NULL)
    {
      hs_image_unref (grey);
      return NULL;
    }
  hs_image_levels_into (image, c, w, (guint8 *) pixels, (gsize) image->width * sizeof (guint32));
  for (guint y = 0; y < image->height; y++)
    {
      const guint32 *row = pixels + (gsize) y * image->width;
      guint16 *out = grey->data + (gsize) y * image->width;

      for (guint x = 0; x < image->width; x++)
        {
          guint32 p = row[x];
          double l = 0.299 * ((p >> 16) & 0xff) + 0.587 * ((p >> 8) & 0xff) + 0.114 * (p & 0xff);
          out[x] = (guint16) lround (l);
        }
    }
  return grey;
}

gboolean
hs_image_get_pixel_spacing (const HsImage *image, double *row_mm, double *column_mm,
                            gboolean *at_detector)
{
  g_return_val_if_fail (image != NULL, FALSE);
  if (!image->has_spacing)
    return FALSE;
  if (row_mm != NULL)
    *row_mm = image->spacing_row;
  if (column_mm != NULL)
    *column_mm = image->spacing_column;
  if (at_detector != NULL)
    *at_detector = image->spacing_at_detector;
  return TRUE;
}

const char *
hs_image_get_note (const HsImage *image)
{
  g_return_val_if_fail (image != NULL, NULL);
  return image->note;
}
