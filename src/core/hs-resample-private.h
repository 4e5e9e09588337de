/* hs-resample-private.h — resampling entry points for the library itself */
#pragma once

#include "hs-resample.h"

G_BEGIN_DECLS

/* The sampling tables of one grid → out_w × out_h resampling, built once and
 * used for any band of rows (threads may share one resampler). */
typedef struct _HsResampler HsResampler;

HsResampler *hs_resampler_new  (const double *grid, guint w, guint h,
                                guint out_w, guint out_h, HsUpsample mode);
/* Rows [y0, y1) of the result; row y0 is written at out[0]. */
void         hs_resampler_rows (const HsResampler *resampler, guint y0, guint y1, double *out);
void         hs_resampler_free (HsResampler *resampler);

G_END_DECLS
