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
} HsLimits;

const HsLimits *hs_limits_get      (void);
void            hs_limits_set      (const HsLimits *limits);
void            hs_limits_reset    (void);

G_END_DECLS
