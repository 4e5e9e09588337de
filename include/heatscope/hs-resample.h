/* hs-resample.h — map grid → evaluation/display grid, exactly as metrics.md says */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  HS_UPSAMPLE_BILINEAR,   /* half-pixel centres, edge clamp (= torch align_corners=False) */
  HS_UPSAMPLE_NEAREST,    /* A[floor((y+0.5)·h/H)][floor((x+0.5)·w/W)]                   */
} HsUpsample;

const char *hs_upsample_to_string   (HsUpsample mode);            /* "bilinear", "nearest" */
gboolean    hs_upsample_from_string (const char *name, HsUpsample *mode);

/* Resamples the h × w grid (row-major) to out_w × out_h; `out` holds
 * out_w·out_h values.  Double precision so metrics are reproducible. */
void hs_resample        (const double *grid, guint w, guint h,
                         double *out, guint out_w, guint out_h, HsUpsample mode);

/* Same values as hs_resample, for the sub-rectangle [x0, x0+rw) × [y0, y0+rh)
 * of the out_w × out_h result, written to `out` (rw·rh floats, row-major).
 * Lets the canvas resample only what is visible. */
void hs_resample_region (const double *grid, guint w, guint h,
                         guint out_w, guint out_h,
                         guint x0, guint y0, guint rw, guint rh,
                         float *out, HsUpsample mode);

G_END_DECLS
