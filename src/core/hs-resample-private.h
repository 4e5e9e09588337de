/* hs-resample-private.h — resampling entry points for the library itself */
#pragma once

#include "hs-resample.h"

G_BEGIN_DECLS

/* The nearest rule of a resize from n_in to n_out samples: output sample i
 * (< n_out) reads input sample ⌊(2i + 1)·n_in / (2·n_out)⌋, the input sample
 * under its centre, in exact integer arithmetic.  Upsampled maps, masks on
 * a target's grid and the baselines' gloria crop all sample this way. */
static inline guint
hs_nearest_index (guint i, guint n_in, guint n_out)
{
  guint64 q = ((2 * (guint64) i + 1) * n_in) / (2 * (guint64) n_out);

  return (guint) MIN (q, (guint64) n_in - 1);
}

/* The same for a crop that holds the n_out resize at `shift` (gloria's
 * padded crop): cell c reads input sample hs_nearest_index (c − shift), or
 * none (−1) when c lies in the padding. */
static inline gint64
hs_nearest_index_shifted (guint c, gint64 shift, guint n_in, guint n_out)
{
  gint64 r = (gint64) c - shift;

  if (r < 0 || r >= n_out)
    return -1;
  return hs_nearest_index ((guint) r, n_in, n_out);
}

/* The sampling tables of one grid → out_w × out_h resampling, built once and
 * used for any band of rows (threads may share one resampler). */
typedef struct _HsResampler HsResampler;

HsResampler *hs_resampler_new  (const double *grid, guint w, guint h,
                                guint out_w, guint out_h, HsUpsample mode);
/* Rows [y0, y1) of the result; row y0 is written at out[0]. */
void         hs_resampler_rows (const HsResampler *resampler, guint y0, guint y1, double *out);
void         hs_resampler_free (HsResampler *resampler);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsResampler, hs_resampler_free)

/* A caller's two horizontally blended source rows, kept between calls of
 * hs_resampler_rows_cached so that a run of bands in order blends each
 * source row once (one per thread: every call writes it). */
typedef struct _HsResampleRows HsResampleRows;

HsResampleRows *hs_resample_rows_new     (const HsResampler *resampler);
void            hs_resample_rows_free    (HsResampleRows *rows);
void            hs_resampler_rows_cached (const HsResampler *resampler, guint y0, guint y1,
                                          double *out, HsResampleRows *rows);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsResampleRows, hs_resample_rows_free)

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
