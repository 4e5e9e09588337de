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
#include "hs-resample-private.h"

#include <float.h>
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

/* Precomputed sampling of the columns x0 … x0+rw−1 and rows y0 … y0+rh−1. */
struct _HsResampler {
  const double *grid;
  guint         w, h;
  HsUpsample    mode;
  guint         rw, rh;
  Tap          *tx, *ty;     /* bilinear */
  guint        *nx, *ny;     /* nearest  */
};

static HsResampler *
resampler_new (const double *grid, guint w, guint h, guint out_w, guint out_h,
               guint x0, guint y0, guint rw, guint rh, HsUpsample mode)
{
  HsResampler *r = g_new0 (HsResampler, 1);

  r->grid = grid;
  r->w = w;
  r->h = h;
  r->mode = mode;
  r->rw = rw;
  r->rh = rh;
  if (mode == HS_UPSAMPLE_NEAREST)
    {
      r->nx = g_new (guint, MAX (rw, 1));
      r->ny = g_new (guint, MAX (rh, 1));
      for (guint k = 0; k < rw; k++)
        r->nx[k] = hs_nearest_index (x0 + k, w, out_w);
      for (guint k = 0; k < rh; k++)
        r->ny[k] = hs_nearest_index (y0 + k, h, out_h);
    }
  else
    {
      r->tx = g_new (Tap, MAX (rw, 1));
      r->ty = g_new (Tap, MAX (rh, 1));
      compute_taps (r->tx, x0, rw, w, out_w);
      compute_taps (r->ty, y0, rh, h, out_h);
    }
  return r;
}

HsResampler *
hs_resampler_new (const double *grid, guint w, guint h, guint out_w, guint out_h, HsUpsample mode)
{
  g_return_val_if_fail (grid != NULL && w > 0 && h > 0, NULL);
  return resampler_new (grid, w, h, out_w, out_h, 0, 0, out_w, out_h, mode);
}

void
hs_resampler_free (HsResampler *r)
{
  if (r == NULL)
    return;
  g_free (r->tx);
  g_free (r->ty);
  g_free (r->nx);
  g_free (r->ny);
  g_free (r);
}

static inline void
blend_row (const HsResampler *r, const double *src, double *dst)
{
  const Tap *tx = r->tx;

  for (guint k = 0; k < r->rw; k++)
    dst[k] = (1.0 - tx[k].f) * src[tx[k].i0] + tx[k].f * src[tx[k].i1];
}

struct _HsResampleRows {
  double *row_a, *row_b;   /* rw each */
  guint   key_a, key_b;    /* their source rows (G_MAXUINT: none) */
};

HsResampleRows *
hs_resample_rows_new (const HsResampler *r)
{
  HsResampleRows *c = g_new0 (HsResampleRows, 1);

  c->row_a = g_new (double, MAX (r->rw, 1));
  c->row_b = g_new (double, MAX (r->rw, 1));
  c->key_a = c->key_b = G_MAXUINT;
  return c;
}

void
hs_resample_rows_free (HsResampleRows *c)
{
  if (c == NULL)
    return;
  g_free (c->row_a);
  g_free (c->row_b);
  g_free (c);
}

/* Rows j0 … j1−1 (relative to the resampler's first row); row j0 goes to
 * out_d/out_f[0].  The blended source rows are `cache` (the caller's, one
 * per thread) or this call's own, so threads may share the resampler. */
static void
resampler_rows (const HsResampler *r, guint j0, guint j1, double *out_d, float *out_f,
                HsResampleRows *cache)
{
  guint rw = r->rw;

  if (j0 >= j1 || rw == 0)
    return;

  if (r->mode == HS_UPSAMPLE_NEAREST)
    {
      for (guint j = j0; j < j1; j++)
        {
          const double *row = r->grid + (gsize) r->ny[j] * r->w;

          if (out_d != NULL)
            {
              double *dst = out_d + (gsize) (j - j0) * rw;
              for (guint k = 0; k < rw; k++)
                dst[k] = row[r->nx[k]];
            }
          else
            {
              float *dst = out_f + (gsize) (j - j0) * rw;
              for (guint k = 0; k < rw; k++)
                dst[k] = (float) row[r->nx[k]];
            }
        }
      return;
    }

  {
    /* Each source row blended horizontally once, reused by every output row
     * that samples it: two cached rows keyed by source row index (the
     * caller's, kept from one call to the next, or this call's own). */
    g_autoptr(HsResampleRows) own = cache == NULL ? hs_resample_rows_new (r) : NULL;
    HsResampleRows *c = cache != NULL ? cache : own;
    double *row_a = c->row_a, *row_b = c->row_b;
    guint key_a = c->key_a, key_b = c->key_b;

    for (guint j = j0; j < j1; j++)
      {
        const Tap *t = &r->ty[j];
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
                blend_row (r, r->grid + (gsize) t->i0 * r->w, row_a);
                key_a = t->i0;
              }
          }
        if (key_b != t->i1)
          {
            blend_row (r, r->grid + (gsize) t->i1 * r->w, row_b);
            key_b = t->i1;
          }

        if (out_d != NULL)
          {
            double *dst = out_d + (gsize) (j - j0) * rw;
            for (guint k = 0; k < rw; k++)
              dst[k] = gy * row_a[k] + fy * row_b[k];
          }
        else
          {
            float *dst = out_f + (gsize) (j - j0) * rw;
            for (guint k = 0; k < rw; k++)
              dst[k] = (float) (gy * row_a[k] + fy * row_b[k]);
          }
      }
    c->row_a = row_a;
    c->row_b = row_b;
    c->key_a = key_a;
    c->key_b = key_b;
  }
}

void
hs_resampler_rows (const HsResampler *r, guint y0, guint y1, double *out)
{
  g_return_if_fail (r != NULL && y0 <= y1 && y1 <= r->rh);
  resampler_rows (r, y0, y1, out, NULL, NULL);
}

void
hs_resampler_rows_cached (const HsResampler *r, guint y0, guint y1, double *out,
                          HsResampleRows *cache)
{
  g_return_if_fail (r != NULL && y0 <= y1 && y1 <= r->rh && cache != NULL);
  resampler_rows (r, y0, y1, out, NULL, cache);
}

static void
resample_region (const double *grid, guint w, guint h,
                 guint out_w, guint out_h,
                 guint x0, guint y0, guint rw, guint rh,
                 double *out_d, float *out_f, HsUpsample mode)
{
  HsResampler *r;

  if (rw == 0 || rh == 0)
    return;
  r = resampler_new (grid, w, h, out_w, out_h, x0, y0, rw, rh, mode);
  resampler_rows (r, 0, rh, out_d, out_f, NULL);
  hs_resampler_free (r);
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


typedef struct {
  guint i0, i1;
  float l0, l1;
} TorchTap;

static void
torch_taps (guint n_in, guint n_out, TorchTap *taps)
{
  float scale = (float) n_in / (float) n_out;

  for (guint d = 0; d < n_out; d++)
    {
      double pos;
      guint i0;

      if (n_in == n_out)
        {
          taps[d] = (TorchTap) { d, d, 1.0f, 0.0f };
          continue;
        }
      pos = (double) scale * ((double) d + 0.5) - 0.5;
      if (pos < 0)
        pos = 0;
      i0 = (guint) pos;
      taps[d].i0 = i0;
      taps[d].i1 = i0 + (i0 + 1 < n_in ? 1 : 0);
      taps[d].l1 = (float) (pos - (double) i0);
      taps[d].l0 = 1.0f - taps[d].l1;
    }
}

void
hs_resample_torch_bilinear (const double *grid, guint w, guint h,
                            guint out_w, guint out_h, double *out)
{
  g_autofree float *a = NULL;
  g_autofree TorchTap *xt = NULL;
  g_autofree TorchTap *yt = NULL;

  g_return_if_fail (grid != NULL && out != NULL && w > 0 && h > 0);

  a = g_new (float, (gsize) w * h);
  for (gsize i = 0; i < (gsize) w * h; i++)
    a[i] = (float) CLAMP (grid[i], -FLT_MAX, FLT_MAX);
  xt = g_new (TorchTap, out_w);
  yt = g_new (TorchTap, out_h);
  torch_taps (w, out_w, xt);
  torch_taps (h, out_h, yt);

  for (guint y = 0; y < out_h; y++)
    {
      const float *r0 = a + (gsize) yt[y].i0 * w, *r1 = a + (gsize) yt[y].i1 * w;
      double *dst = out + (gsize) y * out_w;

      for (guint x = 0; x < out_w; x++)
        {
          const TorchTap *tx = &xt[x];
          float w00 = yt[y].l0 * tx->l0, w01 = yt[y].l0 * tx->l1;
          float w10 = yt[y].l1 * tx->l0, w11 = yt[y].l1 * tx->l1;
          double sum = (double) r0[tx->i0] * w00;

          sum += (double) r0[tx->i1] * w01;
          sum += (double) r1[tx->i0] * w10;
          sum += (double) r1[tx->i1] * w11;
          dst[x] = (double) (float) sum;
        }
    }
}
