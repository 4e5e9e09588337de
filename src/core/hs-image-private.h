/* hs-image-private.h — decoders shared by hs-image*.c */
#pragma once

#include "hs-image.h"
#include <cairo.h>

#include <stdio.h>

G_BEGIN_DECLS

struct _HsImage
{
  gint     ref_count;
  guint    width;
  guint    height;
  guint    channels;
  guint    bit_depth;
  guint16 *data;
  /* How the file wants to be read (see hs-image.h); set by the decoders. */
  guint       max_value;
  const char *format;          /* static string                       */
  double      value_slope;
  double      value_intercept;
  char       *value_unit;
  gboolean    has_file_window;
  double      window_center;   /* values; used when has_window        */
  double      window_width;
  gboolean    has_window;      /* file window or pixel min–max known   */
  gboolean    has_spacing;
  gboolean    spacing_at_detector;
  double      spacing_row;
  double      spacing_column;
  char       *note;
};

/* Checks width × height against HsLimits; `name` goes into the message. */
gboolean  hs_image_check_size       (const char *name, guint64 width, guint64 height,
                                     GError **error);

/* The decoders' work budgets (HsLimits): `decoded` bytes out of `input`
 * bytes in, against max_decode_ratio; the PNG's inflated bytes against
 * max_inflated_bytes. */
gboolean  hs_image_check_decode_ratio (const char *name, guint64 decoded, guint64 input,
                                       GError **error);
gboolean  hs_image_check_inflated   (const char *name, guint64 inflated, GError **error);

/* hs_image_new() with the file name in error messages. */
HsImage  *hs_image_new_named        (const char *name, guint width, guint height,
                                     guint channels, guint bit_depth, GError **error);

/* Copies max_value, format, value mapping, window, spacing and note. */
void      hs_image_copy_info        (HsImage *dst, const HsImage *src);

/* How hs_image_save_png_full spends effort on the deflate stream (the
 * pixels are the same in every case). */
typedef enum {
  HS_PNG_ENCODE_SMALL,  /* libpng's adaptive row filters, zlib level 6 */
  HS_PNG_ENCODE_MASK,   /* no row filters, run-length deflate: 0/255 masks */
  HS_PNG_ENCODE_FAST,   /* the Up filter, run-length deflate: generated images
                         * (the demo's 16-bit phantoms: 1.7× less encoding
                         * CPU than SMALL for a file within 1 % of its size) */
} HsPngEncode;

gboolean  hs_image_save_png_full    (HsImage *image, const char *path, HsPngEncode encode,
                                     GError **error);

/* The pixels of a cairo image surface (native-endian premultiplied ARGB32,
 * or RGB24 when `has_alpha` is FALSE) as PNG bytes appended to `out`: the pixels
 * cairo's own writer gives, encoded with cheaper filter and zlib settings;
 * FALSE when they cannot be encoded. */
gboolean  hs_png_encode_argb32      (const guint8 *data, int width, int height, int stride,
                                     gboolean has_alpha, GByteArray *out);

/* hs_image_levels' pixels written into `pixels` (image width × height
 * native-endian RGB24 words, rows `stride` bytes apart): the part that needs
 * no cairo, which hs_image_render_grey8 uses too. */
void      hs_image_levels_into      (const HsImage *image, double center, double width,
                                     guint8 *pixels, gsize stride);

gboolean  hs_image_is_png           (const guint8 *data, gsize len);
gboolean  hs_image_is_jpeg          (const guint8 *data, gsize len);
gboolean  hs_image_is_dicom         (const guint8 *data, gsize len);

HsImage  *hs_image_load_png_memory  (const guint8 *data, gsize len, const char *name,
                                     GError **error);
HsImage  *hs_image_load_jpeg_memory (const guint8 *data, gsize len, const char *name,
                                     GError **error);
/* A DICOM file's Modality (0008,0060), a code string of at most 16
 * characters ("MR", "CR", "DX", "CT"...), and its NUL. */
#define HS_IMAGE_MODALITY_BYTES 17

/* hs_image_probe_fd, and for a DICOM file its Modality into `modality` (may
 * be NULL; HS_IMAGE_MODALITY_BYTES): "" for PNG and JPEG, for a header
 * without one and for a value that is no code string (the importers record
 * it as the instance's "modality"). */
gboolean  hs_image_probe_fd_modality (int fd, const char *path, guint *width, guint *height,
                                      char *modality, GError **error);

/* DICOM: decoded (and probed) by GDCM in heatscope-dicom-helper, a separate
 * process (hs-dicom-client.c): GDCM aborting on a file is an error for
 * that file. */
HsImage  *hs_image_load_dicom_memory (const guint8 *data, gsize len, const char *name,
                                     GError **error);
/* `head` holds the first len bytes of a file of file_len bytes (or all of
 * it); returns FALSE with *need_more set when the header does not end within
 * them. */
gboolean  hs_image_probe_dicom      (const guint8 *head, gsize len, gsize file_len,
                                     const char *name, guint *width, guint *height,
                                     char *modality, gboolean *need_more, GError **error);
gboolean  hs_image_probe_png        (FILE *file, const char *name, guint *width,
                                     guint *height, GError **error);
gboolean  hs_image_probe_jpeg       (FILE *file, const char *name, guint *width,
                                     guint *height, GError **error);

G_END_DECLS
