/* hs-limits.h — resource limits applied before allocating for untrusted input */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Every decoder and loader checks these *before* allocating, so a crafted
 * header ("width = 2^31") is refused with a clear error rather than an
 * out-of-memory abort.  Defaults suit chest radiographs; all are configurable
 * through hs_limits_set() or the environment (HEATSCOPE_MAX_PIXELS, ...). */
typedef struct {
  guint64 max_image_pixels;   /* width × height of one image (default 100 M)        */
  guint64 max_file_bytes;     /* size of any single input file (default 1 GiB)      */
  guint64 max_grid_cells;     /* h × w of one attention map (default 16 M)           */
  guint64 max_tokens;         /* tokens of one per-token map (default 4096)          */
  guint64 max_manifest_bytes; /* size of heatscope.json (default 512 MiB)            */
  /* Work budgets of the image decoders: a small file must not buy unbounded
   * work.  Exceeding one is an error naming the file and the limit. */
  guint64 max_inflated_bytes; /* bytes a PNG may inflate, image data and anything
                               * compressed after it (default 1 GiB)             */
  guint64 max_decode_ratio;   /* decoded bytes per input byte, for images decoding
                               * to more than HS_LIMITS_RATIO_FREE_BYTES (default 256) */
  guint64 max_jpeg_scans;     /* scans of one (progressive) JPEG (default 64)        */
} HsLimits;

/* Images that decode to at most this many bytes are never refused for their
 * ratio: an empty 8000 × 8000 mask compresses to almost nothing. */
#define HS_LIMITS_RATIO_FREE_BYTES (G_GUINT64_CONSTANT (64) << 20)

#define HS_LIMITS_ERROR (hs_limits_error_quark ())
GQuark hs_limits_error_quark (void);

typedef enum {
  HS_LIMITS_ERROR_BAD_VALUE,   /* a HEATSCOPE_MAX_* variable that is not a whole number ≥ 1 */
} HsLimitsError;

const HsLimits *hs_limits_get      (void);
void            hs_limits_set      (const HsLimits *limits);
void            hs_limits_reset    (void);
/* The environment variable of limit `index` in HsLimits order (HEATSCOPE_MAX_PIXELS, …), NULL
 * past the last. */
const char     *hs_limits_env_name (guint index);
/* Checks every HEATSCOPE_MAX_* variable that is set: FALSE and an error naming the variable
 * and its value when one is not a whole number from 1 to 2^64 − 1.  (hs_limits_get ignores such
 * a value; the CLI and the app call this first and refuse to start.) */
gboolean        hs_limits_check_environment (GError **error);

G_END_DECLS
