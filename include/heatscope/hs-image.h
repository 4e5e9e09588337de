/* hs-image.h — a decoded raster image that keeps the source bit depth */
#pragma once

#include <glib.h>
#include <cairo.h>

G_BEGIN_DECLS

#define HS_IMAGE_ERROR (hs_image_error_quark ())
GQuark hs_image_error_quark (void);

typedef enum {
  HS_IMAGE_ERROR_IO,           /* cannot read or write the file                 */
  HS_IMAGE_ERROR_FORMAT,       /* not a PNG/JPEG, or an unsupported variant     */
  HS_IMAGE_ERROR_CORRUPT,      /* truncated or damaged data                     */
  HS_IMAGE_ERROR_TOO_LARGE,    /* refused by HsLimits before allocating         */
  HS_IMAGE_ERROR_INVALID,      /* bad arguments (zero size, bad channel count)  */
} HsImageError;

/* Samples are stored as guint16, interleaved, row-major, top row first,
 * whatever the source depth: an 8-bit PNG keeps values 0..255 with
 * max_value 255; a 16-bit PNG keeps 0..65535.  Palette images are expanded to
 * RGB(A); JPEG CMYK is converted to RGB.  Channels: 1 grey, 2 grey+alpha,
 * 3 RGB, 4 RGBA.  Reference counted; immutable once loaded. */
typedef struct _HsImage HsImage;

HsImage       *hs_image_new              (guint width, guint height, guint channels,
                                          guint bit_depth, GError **error);
HsImage       *hs_image_load             (const char *path, GError **error);
/* Loads the open regular file `fd` (the caller keeps it); `path` names it
 * in errors.  The dataset and the importers open with hs-safe-open.h. */
HsImage       *hs_image_load_fd          (int fd, const char *path, GError **error);
HsImage       *hs_image_load_from_memory (const guint8 *data, gsize len,
                                          const char *name_for_errors, GError **error);
gboolean       hs_image_save_png         (HsImage *image, const char *path, GError **error);
/* Reads only the header of a PNG or JPEG: cheap size checks for loaders. */
gboolean       hs_image_probe            (const char *path, guint *width, guint *height,
                                          GError **error);
gboolean       hs_image_probe_fd         (int fd, const char *path, guint *width, guint *height,
                                          GError **error);

HsImage       *hs_image_ref              (HsImage *image);
void           hs_image_unref            (HsImage *image);

guint          hs_image_get_width        (const HsImage *image);
guint          hs_image_get_height       (const HsImage *image);
guint          hs_image_get_channels     (const HsImage *image);
/* Source bit depth (1, 2, 4, 8 or 16); max_value is (1 << depth) − 1. */
guint          hs_image_get_bit_depth    (const HsImage *image);
guint          hs_image_get_max_value    (const HsImage *image);
guint16       *hs_image_get_data         (HsImage *image);
const guint16 *hs_image_peek_data        (const HsImage *image);

/* Grey value of pixel (x, y) in [0, max_value] (Rec. 601 luma for colour,
 * alpha ignored). */
double         hs_image_get_grey         (const HsImage *image, guint x, guint y);
/* A new one-channel image with the same depth (luma for colour inputs). */
HsImage       *hs_image_to_grey          (const HsImage *image);

/* Window/level onto an opaque CAIRO_FORMAT_RGB24 surface: grey values
 * `center ± width/2` (in source units) map to black..white.  width <= 0 means
 * the full range [0, max_value]. */
cairo_surface_t *hs_image_levels         (const HsImage *image, double center, double width);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsImage, hs_image_unref)

G_END_DECLS
