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

/* torch.nn.functional.interpolate(map, (out_h, out_w), mode='bilinear',
 * align_corners=False) of the map in float32, value for value as
 * python3-torch 1.13 computes it on the CPU (the chexlocalize protocol):
 * cells rounded to float (saturating at ±FLT_MAX); per axis the scale
 * (float) n/out, the source position scale·(d + 0.5) − 0.5 in double
 * (clamped at 0), λ1 = (float) (pos − ⌊pos⌋), λ0 = 1 − λ1 in float, the
 * identity when the size is unchanged; the four weights λy·λx as float
 * products; the four terms summed in double, top-left, top-right,
 * bottom-left, bottom-right, and rounded to float.  Ties in exact
 * arithmetic (repeated cells) can come out one float ulp apart, as in
 * torch.  out holds out_w·out_h doubles (each a float value). */
void         hs_resample_torch_bilinear (const double *grid, guint w, guint h,
                                         guint out_w, guint out_h, double *out);

G_END_DECLS
