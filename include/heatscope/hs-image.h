/* hs-image.h — a decoded raster image that keeps the source bit depth */
#pragma once

#include <glib.h>
#include <cairo.h>

G_BEGIN_DECLS

#define HS_IMAGE_ERROR (hs_image_error_quark ())
GQuark hs_image_error_quark (void);

typedef enum {
  HS_IMAGE_ERROR_IO,           /* cannot read or write the file                 */
  HS_IMAGE_ERROR_FORMAT,       /* not a PNG/JPEG/DICOM, or an unsupported variant
                                * (DICOM: transfer syntax or pixel format)     */
  HS_IMAGE_ERROR_CORRUPT,      /* truncated or damaged data                     */
  HS_IMAGE_ERROR_TOO_LARGE,    /* refused by HsLimits before allocating         */
  HS_IMAGE_ERROR_INVALID,      /* bad arguments (zero size, bad channel count)  */
} HsImageError;

/* Samples are stored as guint16, interleaved, row-major, top row first,
 * whatever the source depth: an 8-bit PNG keeps values 0..255 with
 * max_value 255; a 16-bit PNG keeps 0..65535.  Palette images are expanded to
 * RGB(A); JPEG CMYK is converted to RGB.  Channels: 1 grey, 2 grey+alpha,
 * 3 RGB, 4 RGBA.  Reference counted; immutable once loaded.
 *
 * DICOM (hs-image-dicom.cc, GDCM) keeps its stored values too: samples are
 * the stored values shifted to start at 0 (signed data) and, for MONOCHROME1,
 * inverted (max_value − v), so that a low sample is always displayed dark;
 * max_value is 2^BitsStored − 1.  The file's own grey values (Rescale
 * Slope/Intercept applied: Hounsfield units for CT) are
 * hs_image_sample_to_value(); the file's window, pixel spacing and a note
 * (multi-frame: frame 1 shown) travel with the image.  PNG/JPEG: value =
 * sample, no window, no spacing, no note. */
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
/* Reads only the header of a PNG, JPEG or DICOM file: cheap size checks for loaders. */
gboolean       hs_image_probe            (const char *path, guint *width, guint *height,
                                          GError **error);
gboolean       hs_image_probe_fd         (int fd, const char *path, guint *width, guint *height,
                                          GError **error);

HsImage       *hs_image_ref              (HsImage *image);
void           hs_image_unref            (HsImage *image);

guint          hs_image_get_width        (const HsImage *image);
guint          hs_image_get_height       (const HsImage *image);
guint          hs_image_get_channels     (const HsImage *image);
/* Bit depth of the samples (1, 2, 4, 8 or 16).  max_value is the largest
 * sample: (1 << depth) − 1, or 2^BitsStored − 1 for DICOM (a 12-bit CT has
 * depth 16 and max_value 4095). */
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

/* "PNG", "JPEG" or "DICOM" (NULL for images made with hs_image_new). */
const char    *hs_image_get_format       (const HsImage *image);

/* The file's own grey values: value = slope × sample + intercept (DICOM:
 * Rescale Slope/Intercept, with the shift of signed data and the MONOCHROME1
 * inversion folded in, so slope may be negative).  PNG/JPEG: 1 and 0. */
void           hs_image_get_value_mapping (const HsImage *image, double *slope, double *intercept);
double         hs_image_sample_to_value  (const HsImage *image, double sample);
double         hs_image_value_to_sample  (const HsImage *image, double value);
/* The values' lowest and highest possible (for the sliders of a window). */
void           hs_image_get_value_range  (const HsImage *image, double *lowest, double *highest);
/* Unit of the values ("HU" for CT, a DICOM Rescale Type) or NULL (raw units). */
const char    *hs_image_get_value_unit   (const HsImage *image);

/* The initial window in values: the file's Window Center/Width (or its VOI
 * LUT's range); without one, the range of the pixel values (DICOM) or the
 * full range (PNG/JPEG).  Returns TRUE when the window came from the file. */
gboolean       hs_image_get_default_window (const HsImage *image, double *center, double *width);
/* A window in values as the centre and width in samples that
 * hs_image_levels takes (the same interval when slope < 0). */
void           hs_image_window_to_samples (const HsImage *image, double center, double width,
                                           double *sample_center, double *sample_width);
/* As hs_image_levels, with centre and width in values (slope ≠ 1 handled). */
cairo_surface_t *hs_image_levels_values  (const HsImage *image, double center, double width);
/* An 8-bit grey image of what hs_image_levels_values shows (luma of colour):
 * the form sent to external models that read PNG. */
HsImage       *hs_image_render_grey8     (const HsImage *image, double center, double width);

/* Pixel spacing in mm (DICOM Pixel Spacing, else Imager Pixel Spacing, whose
 * values are at the detector: *at_detector is then TRUE).  FALSE when
 * unknown.  Any out pointer may be NULL. */
gboolean       hs_image_get_pixel_spacing (const HsImage *image, double *row_mm, double *column_mm,
                                           gboolean *at_detector);
/* A note for the user about how the file was shown, e.g. "multi-frame DICOM:
 * frame 1 of 3 shown"; NULL when there is nothing to say. */
const char    *hs_image_get_note         (const HsImage *image);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsImage, hs_image_unref)

G_END_DECLS
