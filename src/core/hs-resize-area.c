/* hs-resize-area.c — OpenCV's INTER_AREA resize of 8-bit one-channel
 * rasters, value for value (the gloria protocol pushes each box through the
 * image pipeline of McInerney et al.'s GLoRIA fork as a 0/255 mask, and
 * that pipeline shrinks with cv2.resize(..., INTER_AREA)).
 *
 * Three regimes, as cv2.resize takes them (python3-opencv 4.6, checked in
 * tests/test-resize-area.c):
 *  - both ratios sw/dw and sh/dh integers: the block mean, int sum times the
 *    float 1/area, rounded half to even (2 × 2 blocks: (sum + 2) >> 2);
 *  - shrinking on both axes otherwise: per output cell, the source
 *    rows/columns it overlaps with float weights (overlap / cell size),
 *    summed in float along each row first, then down the rows, in source
 *    order, rounded half to even;
 *  - an axis growing: the bilinear resize with INTER_AREA's coefficients
 *    (fractional part of (d+1) − (s+1)·dsize/ssize) in 11-bit fixed point,
 *    the vertical pass rounding as OpenCV's 16-bit vector loop does. */
#include "hs-raster-private.h"

#include <float.h>
#include <math.h>
#include <string.h>

typedef struct {
  guint  si, di;
  float  alpha;
} AreaTab;

/* cvRound of a float: round half to even (the default FP rounding). */
static inline guint8
round_u8 (float v)
{
  long r = lrintf (v);

  return (guint8) CLAMP (r, 0, 255);
}

/* The cells of each output index along one axis: (source index, output
 * index, weight) in source order.  Returns the number of entries (at most
 * 2·ssize + dsize). */
static guint
area_tab (guint ssize, guint dsize, double scale, AreaTab *tab)
{
  guint k = 0;

  for (guint d = 0; d < dsize; d++)
    {
      double f1 = d * scale, f2 = f1 + scale;
      double cell = MIN (scale, (double) ssize - f1);
      gint64 s1 = (gint64) ceil (f1), s2 = (gint64) floor (f2);

      s2 = MIN (s2, (gint64) ssize - 1);
      s1 = MIN (s1, s2);
      if (s1 - f1 > 1e-3)
        tab[k++] = (AreaTab) { (guint) (s1 - 1), d, (float) ((s1 - f1) / cell) };
      for (gint64 s = s1; s < s2; s++)
        tab[k++] = (AreaTab) { (guint) s, d, (float) (1.0 / cell) };
      if (f2 - s2 > 1e-3)
        tab[k++] = (AreaTab) { (guint) s2, d, (float) (MIN (MIN (f2 - s2, 1.0), cell) / cell) };
    }
  return k;
}

/* area_tab in a new table (free with g_free); *n its entries. */
static AreaTab *
area_tab_new (guint ssize, guint dsize, double scale, guint *n)
{
  AreaTab *tab = g_new (AreaTab, 2 * (gsize) ssize + dsize + 2);

  *n = area_tab (ssize, dsize, scale, tab);
  return tab;
}

typedef enum { AREA_FAST, AREA_CELLS, AREA_GROW } AreaRegime;

typedef struct {
  AreaRegime regime;
  double     scale_x, scale_y, inv_x, inv_y;
  guint      iscale_x, iscale_y;
} AreaPlan;

static void
area_plan (guint sw, guint sh, guint dw, guint dh, AreaPlan *plan)
{
  double ix, iy;

  plan->inv_x = (double) dw / sw;
  plan->inv_y = (double) dh / sh;
  plan->scale_x = 1.0 / plan->inv_x;
  plan->scale_y = 1.0 / plan->inv_y;
  ix = rint (plan->scale_x);
  iy = rint (plan->scale_y);
  plan->iscale_x = (guint) ix;
  plan->iscale_y = (guint) iy;
  if (plan->scale_x >= 1 && plan->scale_y >= 1)
    plan->regime = fabs (plan->scale_x - ix) < DBL_EPSILON && fabs (plan->scale_y - iy) < DBL_EPSILON
                   ? AREA_FAST : AREA_CELLS;
  else
    plan->regime = AREA_GROW;
}

/* ---- shrinking by whole blocks -------------------------------------- */

static void
fast_from_counts (const guint32 *block_sum, guint dw, guint dh, guint iscale_x, guint iscale_y,
                  guint8 *dst)
{
  float scale = 1.0f / (float) (iscale_x * iscale_y);

  /* 2 × 2 blocks take OpenCV's dedicated path, (sum + 2) >> 2, which
   * rounds halves up; every other block size the float product. */
  for (gsize i = 0; i < (gsize) dw * dh; i++)
    dst[i] = iscale_x == 2 && iscale_y == 2 ? (guint8) ((block_sum[i] + 2) >> 2)
                                            : round_u8 ((float) block_sum[i] * scale);
}

/* ---- shrinking by fractional cells ---------------------------------- */

/* Row sums of one source row into buf (dw floats), in tab order. */
static void
cells_row (const guint8 *row, const AreaTab *xtab, guint nx, float *buf, guint dw)
{
  memset (buf, 0, sizeof (float) * dw);
  for (guint k = 0; k < nx; k++)
    buf[xtab[k].di] += (float) row[xtab[k].si] * xtab[k].alpha;
}

/* ---- growing: bilinear with area coefficients ----------------------- */

typedef struct {
  guint  ofs;       /* first source index                     */
  gint16 a0, a1;    /* weights, 11-bit fixed point            */
  gboolean linear;  /* both taps (else the single tap, ×2048) */
} GrowTap;

static void
grow_taps (guint ssize, guint dsize, double scale, double inv, gboolean clamp_high, GrowTap *taps)
{
  for (guint d = 0; d < dsize; d++)
    {
      gint64 s = (gint64) floor (d * scale);
      float f = (float) ((double) (d + 1) - (double) (s + 1) * inv);
      float c0, c1;

      f = f <= 0 ? 0.0f : f - (float) floorf (f);
      taps[d].linear = TRUE;
      if (s < 0)
        {
          f = 0;
          s = 0;
        }
      if (clamp_high && s + 1 >= (gint64) ssize)
        {
          taps[d].linear = FALSE;
          if (s >= (gint64) ssize - 1)
            {
              f = 0;
              s = ssize - 1;
            }
        }
      c0 = 1.0f - f;
      c1 = f;
      taps[d].ofs = (guint) s;
      taps[d].a0 = (gint16) CLAMP (lrintf (c0 * 2048.0f), G_MININT16, G_MAXINT16);
      taps[d].a1 = (gint16) CLAMP (lrintf (c1 * 2048.0f), G_MININT16, G_MAXINT16);
    }
}

/* OpenCV's vertical pass in 16-bit lanes: (s >> 4) as int16, the high half
 * of its product with the weight, the two summed, a rounding shift by 2.
 * It is not the exact (s0·b0 + s1·b1 + 2^21) >> 22 and differs from it by
 * one level now and then; python3-opencv 4.6 takes it for every column. */
static inline guint8
grow_vertical (gint32 s0, gint32 s1, gint16 b0, gint16 b1)
{
  gint32 h0 = ((gint32) (gint16) CLAMP (s0 >> 4, G_MININT16, G_MAXINT16) * b0) >> 16;
  gint32 h1 = ((gint32) (gint16) CLAMP (s1 >> 4, G_MININT16, G_MAXINT16) * b1) >> 16;
  gint32 v = ((gint32) (gint16) (h0 + h1) + 2) >> 2;

  return (guint8) CLAMP (v, 0, 255);
}

static void
grow_resize (const guint8 *src, guint sw, guint sh, guint8 *dst, guint dw, guint dh,
             const AreaPlan *plan)
{
  g_autofree GrowTap *xt = g_new (GrowTap, dw);
  g_autofree GrowTap *yt = g_new (GrowTap, dh);
  g_autofree gint32 *r0 = g_new (gint32, dw);
  g_autofree gint32 *r1 = g_new (gint32, dw);

  grow_taps (sw, dw, plan->scale_x, plan->inv_x, TRUE, xt);
  grow_taps (sh, dh, plan->scale_y, plan->inv_y, FALSE, yt);
  for (guint dy = 0; dy < dh; dy++)
    {
      guint sy0 = MIN (yt[dy].ofs, sh - 1), sy1 = MIN (yt[dy].ofs + 1, sh - 1);
      const guint8 *rows[2] = { src + (gsize) sy0 * sw, src + (gsize) sy1 * sw };
      gint32 *out[2] = { r0, r1 };

      for (guint k = 0; k < 2; k++)
        for (guint dx = 0; dx < dw; dx++)
          {
            const GrowTap *t = &xt[dx];

            out[k][dx] = t->linear
                         ? (gint32) rows[k][t->ofs] * t->a0 + (gint32) rows[k][t->ofs + 1] * t->a1
                         : (gint32) rows[k][t->ofs] * 2048;
          }
      for (guint dx = 0; dx < dw; dx++)
        dst[(gsize) dy * dw + dx] = grow_vertical (r0[dx], r1[dx], yt[dy].a0, yt[dy].a1);
    }
}

gboolean
hs_resize_area_u8 (const guint8 *src, guint sw, guint sh, guint8 *dst, guint dw, guint dh)
{
  AreaPlan plan;

  g_return_val_if_fail (src != NULL && dst != NULL, FALSE);
  if (sw == 0 || sh == 0 || dw == 0 || dh == 0)
    return FALSE;

  area_plan (sw, sh, dw, dh, &plan);
  switch (plan.regime)
    {
    case AREA_FAST:
      {
        g_autofree guint32 *sums = g_new0 (guint32, (gsize) dw * dh);

        for (guint dy = 0; dy < dh; dy++)
          for (guint y = dy * plan.iscale_y; y < (dy + 1) * plan.iscale_y; y++)
            for (guint dx = 0; dx < dw; dx++)
              for (guint x = dx * plan.iscale_x; x < (dx + 1) * plan.iscale_x; x++)
                sums[(gsize) dy * dw + dx] += src[(gsize) y * sw + x];
        fast_from_counts (sums, dw, dh, plan.iscale_x, plan.iscale_y, dst);
      }
      break;

    case AREA_CELLS:
      {
        guint nx, ny;
        g_autofree AreaTab *xtab = area_tab_new (sw, dw, plan.scale_x, &nx);
        g_autofree AreaTab *ytab = area_tab_new (sh, dh, plan.scale_y, &ny);
        g_autofree float *buf = g_new (float, dw);
        g_autofree float *sum = g_new0 (float, dw);

        for (guint j = 0; j < ny; j++)
          {
            float beta = ytab[j].alpha;
            gboolean first = j == 0 || ytab[j].di != ytab[j - 1].di;

            cells_row (src + (gsize) ytab[j].si * sw, xtab, nx, buf, dw);
            for (guint dx = 0; dx < dw; dx++)
              sum[dx] = first ? beta * buf[dx] : sum[dx] + beta * buf[dx];
            if (j + 1 == ny || ytab[j + 1].di != ytab[j].di)
              for (guint dx = 0; dx < dw; dx++)
                dst[(gsize) ytab[j].di * dw + dx] = round_u8 (sum[dx]);
          }
      }
      break;

    case AREA_GROW:
      grow_resize (src, sw, sh, dst, dw, dh, &plan);
      break;
    }
  return TRUE;
}

void
hs_resize_area_rect_u8 (guint sw, guint sh, guint c0, guint c1, guint r0, guint r1,
                        guint8 *dst, guint dw, guint dh)
{
  AreaPlan plan;

  g_return_if_fail (dst != NULL && sw > 0 && sh > 0 && dw > 0 && dh > 0);

  c1 = MIN (c1, sw);
  r1 = MIN (r1, sh);
  memset (dst, 0, (gsize) dw * dh);
  if (c0 >= c1 || r0 >= r1)
    return;

  area_plan (sw, sh, dw, dh, &plan);
  switch (plan.regime)
    {
    case AREA_FAST:
      {
        /* 255 × (pixels of the block inside the rectangle) */
        g_autofree guint32 *sums = g_new0 (guint32, (gsize) dw * dh);

        for (guint dy = r0 / plan.iscale_y; dy < dh && dy * plan.iscale_y < r1; dy++)
          {
            guint y0 = MAX (dy * plan.iscale_y, r0), y1 = MIN ((dy + 1) * plan.iscale_y, r1);

            for (guint dx = c0 / plan.iscale_x; dx < dw && dx * plan.iscale_x < c1; dx++)
              {
                guint x0 = MAX (dx * plan.iscale_x, c0), x1 = MIN ((dx + 1) * plan.iscale_x, c1);

                sums[(gsize) dy * dw + dx] = 255u * (y1 - y0) * (x1 - x0);
              }
          }
        fast_from_counts (sums, dw, dh, plan.iscale_x, plan.iscale_y, dst);
      }
      break;

    case AREA_CELLS:
      {
        /* A row inside the rectangle sums to X[dx] for every dx (the same
         * float accumulation, zero terms left out); a row outside to 0. */
        guint nx, ny;
        g_autofree AreaTab *xtab = area_tab_new (sw, dw, plan.scale_x, &nx);
        g_autofree AreaTab *ytab = area_tab_new (sh, dh, plan.scale_y, &ny);
        g_autofree float *X = g_new0 (float, dw);
        g_autofree float *sum = g_new0 (float, dw);
        g_autofree gboolean *started = g_new0 (gboolean, dw);

        for (guint k = 0; k < nx; k++)
          if (xtab[k].si >= c0 && xtab[k].si < c1)
            X[xtab[k].di] += 255.0f * xtab[k].alpha;
        for (guint j = 0; j < ny; j++)
          {
            float beta = ytab[j].alpha;

            if (j == 0 || ytab[j].di != ytab[j - 1].di)
              for (guint dx = 0; dx < dw; dx++)
                sum[dx] = 0.0f;
            if (ytab[j].si >= r0 && ytab[j].si < r1)
              for (guint dx = 0; dx < dw; dx++)
                sum[dx] = sum[dx] + beta * X[dx];
            if (j + 1 == ny || ytab[j + 1].di != ytab[j].di)
              for (guint dx = 0; dx < dw; dx++)
                dst[(gsize) ytab[j].di * dw + dx] = round_u8 (sum[dx]);
          }
      }
      break;

    case AREA_GROW:
      {
        /* An axis grows only for small images (under 256 pixels in the
         * gloria pipeline): build the source. */
        g_autofree guint8 *src = g_malloc0 ((gsize) sw * sh);

        for (guint y = r0; y < r1; y++)
          memset (src + (gsize) y * sw + c0, 255, c1 - c0);
        grow_resize (src, sw, sh, dst, dw, dh, &plan);
      }
      break;
    }
}
