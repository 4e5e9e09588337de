/* hs-resample.c — map grid → evaluation/display grid, exactly as metrics.md says
 *
 * Bilinear: sx = (x + 0.5)·w/W − 0.5 evaluated left to right in double,
 * clamped to [0, w − 1]; x0 = floor(sx), x1 = min(x0 + 1, w − 1),
 * fx = sx − x0; value = (1 − fy)·((1 − fx)·a + fx·b) + fy·((1 − fx)·c + fx·d)
 * with a = A[y0][x0], b = A[y0][x1], c = A[y1][x0], d = A[y1][x1].  The
 * tests compare against a NumPy float64 transcription of exactly this formula.
 *
 * Nearest: floor((y + 0.5)·h/H) computed in exact integer arithmetic,
 * floor((2y + 1)·h / 2H), which equals the double formula for every size the
 * limits allow (the quotient is never within 2^-53 of an integer unless it is
 * one). */
#include "hs-resample.h"

#include <math.h>
#include <string.h>

const char *
hs_upsample_to_string (HsUpsample mode)
{
  switch (mode)
    {
    case HS_UPSAMPLE_BILINEAR: return "bilinear";
    case HS_UPSAMPLE_NEAREST:  return "nearest";
    default:                   return NULL;
    }
}

gboolean
hs_upsample_from_string (const char *name, HsUpsample *mode)
{
  g_return_val_if_fail (mode != NULL, FALSE);

  if (name == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (name, "bilinear") == 0)
    *mode = HS_UPSAMPLE_BILINEAR;
  else if (g_ascii_strcasecmp (name, "nearest") == 0)
    *mode = HS_UPSAMPLE_NEAREST;
  else
    return FALSE;
  return TRUE;
}

/* One axis of the bilinear sampling: for output index i of n_out, the two
 * source indices and the weight of the second. */
typedef struct {
  guint  i0, i1;
  double f;
} Tap;

static void
compute_taps (Tap *taps, guint start, guint count, guint n_in, guint n_out)
{
  for (guint k = 0; k < count; k++)
    {
      double s = ((double) (start + k) + 0.5) * (double) n_in / (double) n_out - 0.5;
      double fl;

      if (s < 0.0)
        s = 0.0;
      if (s > (double) (n_in - 1))
        s = (double) (n_in - 1);
      fl = floor (s);
      taps[k].i0 = (guint) fl;
      taps[k].i1 = MIN (taps[k].i0 + 1, n_in - 1);
      taps[k].f = s - fl;
    }
}

static inline guint
nearest_index (guint i, guint n_in, guint n_out)
{
  guint64 q = ((2 * (guint64) i + 1) * n_in) / (2 * (guint64) n_out);

  return (guint) MIN (q, (guint64) n_in - 1);
}

/* Shared core: writes either doubles (out_d) or floats (out_f). */
static void
resample_region (const double *grid, guint w, guint h,
                 guint out_w, guint out_h,
                 guint x0, guint y0, guint rw, guint rh,
                 double *out_d, float *out_f, HsUpsample mode)
{
  if (rw == 0 || rh == 0)
    return;

  if (mode == HS_UPSAMPLE_NEAREST)
    {
      g_autofree guint *xs = g_new (guint, rw);

      for (guint k = 0; k < rw; k++)
        xs[k] = nearest_index (x0 + k, w, out_w);
      for (guint j = 0; j < rh; j++)
        {
          const double *row = grid + (gsize) nearest_index (y0 + j, h, out_h) * w;

          if (out_d != NULL)
            {
              double *dst = out_d + (gsize) j * rw;
              for (guint k = 0; k < rw; k++)
                dst[k] = row[xs[k]];
            }
          else
            {
              float *dst = out_f + (gsize) j * rw;
              for (guint k = 0; k < rw; k++)
                dst[k] = (float) row[xs[k]];
            }
        }
      return;
    }

  {
    g_autofree Tap *tx = g_new (Tap, rw);
    g_autofree Tap *ty = g_new (Tap, rh);
    /* Each source row blended horizontally once, reused by every output row
     * that samples it: two cached rows keyed by source row index. */
    g_autofree double *row_a = g_new (double, rw);
    g_autofree double *row_b = g_new (double, rw);
    guint key_a = G_MAXUINT, key_b = G_MAXUINT;

    compute_taps (tx, x0, rw, w, out_w);
    compute_taps (ty, y0, rh, h, out_h);

    for (guint j = 0; j < rh; j++)
      {
        const Tap *t = &ty[j];
        double fy = t->f, gy = 1.0 - t->f;

        /* Make row_a hold source row t->i0 and row_b hold t->i1. */
        if (key_a != t->i0)
          {
            if (key_b == t->i0)
              {
                double *tmp = row_a; row_a = row_b; row_b = tmp;
                key_a = key_b; key_b = G_MAXUINT;
              }
            else
              {
                const double *src = grid + (gsize) t->i0 * w;
                for (guint k = 0; k < rw; k++)
                  row_a[k] = (1.0 - tx[k].f) * src[tx[k].i0] + tx[k].f * src[tx[k].i1];
                key_a = t->i0;
              }
          }
        if (key_b != t->i1)
          {
            const double *src = grid + (gsize) t->i1 * w;
            for (guint k = 0; k < rw; k++)
              row_b[k] = (1.0 - tx[k].f) * src[tx[k].i0] + tx[k].f * src[tx[k].i1];
            key_b = t->i1;
          }

        if (out_d != NULL)
          {
            double *dst = out_d + (gsize) j * rw;
            for (guint k = 0; k < rw; k++)
              dst[k] = gy * row_a[k] + fy * row_b[k];
          }
        else
          {
            float *dst = out_f + (gsize) j * rw;
            for (guint k = 0; k < rw; k++)
              dst[k] = (float) (gy * row_a[k] + fy * row_b[k]);
          }
      }
  }
}

void
hs_resample (const double *grid, guint w, guint h,
             double *out, guint out_w, guint out_h, HsUpsample mode)
{
  g_return_if_fail (grid != NULL && w > 0 && h > 0);
  g_return_if_fail (out != NULL || out_w == 0 || out_h == 0);

  resample_region (grid, w, h, out_w, out_h, 0, 0, out_w, out_h, out, NULL, mode);
}

void
hs_resample_region (const double *grid, guint w, guint h,
                    guint out_w, guint out_h,
                    guint x0, guint y0, guint rw, guint rh,
                    float *out, HsUpsample mode)
{
  g_return_if_fail (grid != NULL && w > 0 && h > 0);
  g_return_if_fail (out != NULL || rw == 0 || rh == 0);
  g_return_if_fail ((guint64) x0 + rw <= out_w && (guint64) y0 + rh <= out_h);

  resample_region (grid, w, h, out_w, out_h, x0, y0, rw, rh, NULL, out, mode);
}
