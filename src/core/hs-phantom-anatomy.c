/* hs-phantom-anatomy.c — rasterizing a phantom's anatomy and findings
 *
 * Every structure is a closed-form shape in the patient frame (see
 * hs-phantom-private.h), evaluated per pixel through the instance's rotation
 * and scale, so region boxes and lesion masks are exact for the pixels
 * generated.  Densities go to three layers blurred by separable box blurs
 * (three passes ≈ Gaussian) of different widths: soft tissue, bone and
 * vessels (sharp), and airspace haze (broad). */
#include "hs-phantom-private.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

void
hs_phantom_rng_init (HsRandom *rng, guint64 seed, guint64 stream, guint64 index)
{
  rng->state = seed;
  rng->state = hs_random_next (rng) ^ (stream * G_GUINT64_CONSTANT (0xd1b54a32d192ed03));
  rng->state = hs_random_next (rng) ^ (index * G_GUINT64_CONSTANT (0x8cb92ba72f3d8dd7));
  (void) hs_random_next (rng);
}

void
hs_phantom_frame_to_pixel (const HsPhantomGeom *g, double u, double v, double *x, double *y)
{
  double du = (u - 0.5) * g->scale, dv = (v - 0.5) * g->scale;

  *x = g->cx + g->cos_t * du - g->sin_t * dv;
  *y = g->cy + g->sin_t * du + g->cos_t * dv;
}

/* inline in the rasterizer's loop */
static inline void
pixel_to_frame (const HsPhantomGeom *g, double x, double y, double *u, double *v)
{
  double dx = x - g->cx, dy = y - g->cy;

  *u = 0.5 + (g->cos_t * dx + g->sin_t * dy) / g->scale;
  *v = 0.5 + (-g->sin_t * dx + g->cos_t * dy) / g->scale;
}

void
hs_phantom_pixel_to_frame (const HsPhantomGeom *g, double x, double y, double *u, double *v)
{
  pixel_to_frame (g, x, y, u, v);
}

static inline double
clamp01 (double x)
{
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* (e0 < e1 at every call.)  Outside the edges the formula gives exactly 0
 * and 1 — x ≤ e0 makes the quotient ≤ 0, x ≥ e1 makes it ≥ 1 (rounding is
 * monotonic) — so those are returned without its division. */
static inline double
smoothstep (double e0, double e1, double x)
{
  double t;

  if (x <= e0)
    return 0.0;
  if (x >= e1)
    return 1.0;
  t = clamp01 ((x - e0) / (e1 - e0));
  return t * t * (3 - 2 * t);
}

static double
heart_right_border (const HsPhantomGeom *g, double v)
{
  double t = clamp01 ((v - g->heart_top_r) / (g->heart_base - g->heart_top_r));
  double bump = pow (sin (G_PI / 2 * MIN (1.0, t / 0.6)), 0.8);
  double tail = t > 0.6 ? (t - 0.6) / 0.4 : 0.0;

  return 0.5 - g->med_w - g->heart_bulge_r * bump * (1 - 0.25 * tail * tail);
}

static double
heart_left_border (const HsPhantomGeom *g, double v)
{
  double t = clamp01 ((v - g->heart_top_l) / (g->heart_base - g->heart_top_l));
  double bump = sin (G_PI / 2 * MIN (1.0, t / 0.88));
  double tail = t > 0.88 ? (t - 0.88) / 0.12 : 0.0;

  return 0.5 + g->med_w + g->heart_bulge_l * bump * (1 - 0.25 * tail * tail);
}

void
hs_phantom_geom_update (HsPhantomGeom *g)
{
  g->heart_umin = G_MAXDOUBLE;
  g->heart_umax = -G_MAXDOUBLE;
  for (int i = 0; i <= HS_HEART_SAMPLES; i++)
    {
      double v = g->heart_top_l + (g->heart_base - g->heart_top_l) * i / HS_HEART_SAMPLES;
      g->heart_left[i] = (float) heart_left_border (g, v);
      g->heart_right[i] = (float) (v < g->heart_top_r ? 0.5 : heart_right_border (g, v));
      g->heart_umin = MIN (g->heart_umin, MIN (g->heart_left[i], g->heart_right[i]));
      g->heart_umax = MAX (g->heart_umax, MAX (g->heart_left[i], g->heart_right[i]));
    }
}

static gboolean
heart_contains (const HsPhantomGeom *g, double u, double v)
{
  double s, f;
  int i;

  if (v < g->heart_top_l || v >= g->heart_base)
    return FALSE;
  /* a + f (b − a) with f ∈ [0, 1) lies between a and b, so the borders
   * below lie within the tables' range: outside it, no division needed */
  if (u > g->heart_umax || u <= g->heart_umin)
    return FALSE;
  s = (v - g->heart_top_l) / (g->heart_base - g->heart_top_l) * HS_HEART_SAMPLES;
  i = MIN ((int) s, HS_HEART_SAMPLES - 1);
  f = s - i;
  if (u > g->heart_left[i] + f * (g->heart_left[i + 1] - g->heart_left[i]))
    return FALSE;
  return u > g->heart_right[i] + f * (g->heart_right[i + 1] - g->heart_right[i]);
}

static double
dome_v (const HsLungGeom *L, double us)
{
  if (us <= L->udp)
    {
      double d = (L->udp - us) / (L->udp - L->uw);
      return L->vdome + (L->vcp - L->vdome) * d * d;
    }
  else
    {
      double d = (us - L->udp) / (L->um - L->udp);
      return L->vdome + 0.035 * d * d;
    }
}

/* hs_phantom_lung_contains, also handing back t (its height in the lung,
 * (v − va) / (vcp − va)) when it says TRUE: the rasterizer's lung layer
 * uses the same quotient. */
static inline gboolean
lung_contains_t (const HsPhantomGeom *g, int side, double us, double v, double inset,
                 double *t_out)
{
  const HsLungGeom *L = &g->lung[side];
  double t, f, ul, gm, umed, u;

  if (v < L->va + inset || v > L->vcp)
    return FALSE;
  /* With inset ≥ 0, t ∈ [0, 1] and f, gm ∈ [0, 1] below, so the lung lies
   * within uw ≤ ul and umed ≤ um (to rounding): outside that band the
   * answer is FALSE without the divisions and square roots. */
  if (inset >= 0 && (us < L->uw - 1e-9 || us > L->um + 1e-9))
    return FALSE;
  t = (v - L->va) / (L->vcp - L->va);
  *t_out = t;
  f = t >= 0.45 ? 1.0 : sqrt (1.0 - (1.0 - t / 0.45) * (1.0 - t / 0.45));
  ul = L->ua - (L->ua - L->uw) * f + 0.02 * (1.0 - t) * f;
  if (inset > 0)
    ul += inset * clamp01 ((0.8 - t) / 0.35);
  if (us < ul)
    return FALSE;
  gm = t >= 0.18 ? 1.0 : sqrt (1.0 - (1.0 - t / 0.18) * (1.0 - t / 0.18));
  umed = L->ua + (L->um - L->ua) * gm;
  if (us > umed)
    return FALSE;
  /* the dome lies at or below vdome */
  if (v > L->vdome && v > dome_v (L, us))
    return FALSE;
  u = side == 0 ? us : 1.0 - us;
  if (heart_contains (g, u, v))
    return FALSE;
  if (side == 1)
    {
      double du = u - g->knob_u, dv = v - g->knob_v;
      if (du * du + dv * dv < g->knob_r * g->knob_r)
        return FALSE;
    }
  return TRUE;
}

gboolean
hs_phantom_lung_contains (const HsPhantomGeom *g, int side, double us, double v, double inset)
{
  double t;

  return lung_contains_t (g, side, us, v, inset, &t);
}

/* 0 upper, 1 mid, 2 lower (thirds of the lung's height in the frame) */
int
hs_phantom_lung_zone (const HsPhantomGeom *g, int side, double v)
{
  const HsLungGeom *L = &g->lung[side];
  int z = (int) floor (3.0 * (v - L->va) / (L->vcp - L->va));
  return CLAMP (z, 0, 2);
}

/* ---- blurs ---- */

static int
box_radius_for_sigma (double sigma)
{
  int r = (int) floor (sqrt (sigma * sigma + 0.25) - 0.5 + 0.5);
  return MAX (r, 0);
}

/* One horizontal box pass over N_ROWS (1 … 4) rows at once, in place,
 * `tmp` holding 4 × w floats (the scratch image: h ≥ 4).  Each row's
 * running sum sees exactly the operations of a pass over that row alone;
 * the rows' sums are independent, so their additions overlap instead of
 * waiting on one another. */
static inline void
box_rows (float *const *rows, guint n_rows, float *tmp, int w, int r, float inv)
{
  float *t[4];
  double sum[4] = { 0, 0, 0, 0 };

  for (guint k = 0; k < 4; k++)
    {
      t[k] = tmp + (gsize) k * w;
      if (k < n_rows)
        memcpy (t[k], rows[k], (gsize) w * sizeof (float));
    }
  for (int i = -r - 1; i < r; i++)
    {
      int c = CLAMP (i, 0, w - 1);
      for (guint k = 0; k < n_rows; k++)
        sum[k] += t[k][c];
    }
  for (int x = 0; x < w; x++)
    {
      int a = MIN (x + r, w - 1), b = MAX (x - r - 1, 0);
      for (guint k = 0; k < n_rows; k++)
        {
          sum[k] += t[k][a] - t[k][b];
          rows[k][x] = (float) sum[k] * inv;
        }
    }
}

/* Three horizontal box passes over every row: rows are independent, so
 * each group of four gets its three passes while it is in cache.  A row of
 * zeros stays zeros (its sums never leave 0) and is skipped.  The columns
 * holding anything afterwards are [*x0, *x1); FALSE when there are none. */
static gboolean
box_blur_h3 (float *buf, float *tmp, guint w, guint h, int r, guint *x0, guint *x1)
{
  float inv = 1.0f / (float) (2 * r + 1);
  float *rows[4];
  guint n = 0;

  *x0 = w;
  *x1 = 0;
  for (guint y = 0; y <= h; y++)
    {
      if (y < h)
        {
          float *row = buf + (gsize) y * w;
          guint x = 0;

          while (x < w && row[x] == 0)
            x++;
          if (x == w)
            continue;
          rows[n++] = row;
        }
      if (n == 4 || (y == h && n > 0))
        {
          for (guint k = n; k < 4; k++)
            rows[k] = rows[n - 1];
          for (int pass = 0; pass < 3; pass++)
            if (n == 4)
              box_rows (rows, 4, tmp, (int) w, r, inv);
            else
              box_rows (rows, n, tmp, (int) w, r, inv);
          for (guint k = 0; k < n; k++)
            {
              guint a = 0, b = w;

              while (a < w && rows[k][a] == 0)
                a++;
              while (b > a && rows[k][b - 1] == 0)
                b--;
              if (a < b)
                {
                  *x0 = MIN (*x0, a);
                  *x1 = MAX (*x1, b);
                }
            }
          n = 0;
        }
    }
  return *x0 < *x1;
}

/* One vertical box pass over columns [x0, x1) (outside them, `out` is
 * not written). */
static void
box_blur_v (float *buf, float *out, double *sum, guint w, guint h, int r, guint x0, guint x1)
{
  float inv = 1.0f / (float) (2 * r + 1);

  memset (sum, 0, w * sizeof (double));
  for (int i = -r - 1; i < r; i++)
    {
      const float *row = buf + (gsize) CLAMP (i, 0, (int) h - 1) * w;
      for (guint x = x0; x < x1; x++)
        sum[x] += row[x];
    }
  for (int y = 0; y < (int) h; y++)
    {
      const float *add = buf + (gsize) MIN (y + r, (int) h - 1) * w;
      const float *sub = buf + (gsize) MAX (y - r - 1, 0) * w;
      float *o = out + (gsize) y * w;
      for (guint x = x0; x < x1; x++)
        {
          sum[x] += (double) add[x] - (double) sub[x];
          o[x] = (float) sum[x] * inv;
        }
    }
}

/* Three box passes each way ≈ a Gaussian of the given sigma (pixels). */
static void
gauss_blur (float *buf, float *scratch, double *sums, guint w, guint h, double sigma)
{
  int r = box_radius_for_sigma (sigma);
  guint x0, x1;

  /* A layer of zeros (no airspace disease: the haze) stays zeros, and so
   * do columns of zeros: their sums never leave 0. */
  if (r < 1 || !box_blur_h3 (buf, scratch, w, h, r, &x0, &x1))
    return;
  /* buf → scratch → buf → scratch, then back once */
  box_blur_v (buf, scratch, sums, w, h, r, x0, x1);
  box_blur_v (scratch, buf, sums, w, h, r, x0, x1);
  box_blur_v (buf, scratch, sums, w, h, r, x0, x1);
  if (x0 == 0 && x1 == w)
    memcpy (buf, scratch, (gsize) w * h * sizeof (float));
  else
    for (guint y = 0; y < h; y++)
      memcpy (buf + (gsize) y * w + x0, scratch + (gsize) y * w + x0, (x1 - x0) * sizeof (float));
}

/* ---- vessels ---- */

static void
stamp_segment (float *buf, guint w, guint h, double x0, double y0, double x1, double y1,
               double r0, double r1, double gain)
{
  double rmax = MAX (r0, r1);
  int bx0 = (int) floor (MIN (x0, x1) - rmax - 1), bx1 = (int) ceil (MAX (x0, x1) + rmax + 1);
  int by0 = (int) floor (MIN (y0, y1) - rmax - 1), by1 = (int) ceil (MAX (y0, y1) + rmax + 1);
  double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;

  bx0 = MAX (bx0, 0);
  by0 = MAX (by0, 0);
  bx1 = MIN (bx1, (int) w - 1);
  by1 = MIN (by1, (int) h - 1);
  for (int y = by0; y <= by1; y++)
    for (int x = bx0; x <= bx1; x++)
      {
        double px = x + 0.5 - x0, py = y + 0.5 - y0;
        double t = len2 > 0 ? CLAMP ((px * dx + py * dy) / len2, 0.0, 1.0) : 0.0;
        double ex = px - t * dx, ey = py - t * dy;
        double d2 = ex * ex + ey * ey;
        double r = r0 + (r1 - r0) * t;
        if (d2 < r * r)
          {
            float *p = buf + (gsize) y * w + x;
            float v = (float) (gain * r * sqrt (1.0 - d2 / (r * r)));
            /* max, not sum: consecutive segments overlap at their joints */
            if (v > *p)
              *p = v;
          }
      }
}

typedef struct {
  double us, v, angle, len, r;
  int    depth;
} VesselSeed;

static void
grow_vessels (const HsPhantomGeom *g, int side, HsRandom *rng, float *buf)
{
  static const double trunks[] = { -105, -145, 172, 135, 102 };
  const HsLungGeom *L = &g->lung[side];
  double min_r = 0.9 / g->scale;
  GArray *stack = g_array_new (FALSE, FALSE, sizeof (VesselSeed));

  for (gsize i = 0; i < G_N_ELEMENTS (trunks); i++)
    {
      /* separate statements: the evaluation order inside an initializer is unspecified */
      double angle = (trunks[i] + hs_random_double_range (rng, -8, 8)) * G_PI / 180.0;
      double len = hs_random_double_range (rng, 0.045, 0.065);
      double dv = (i + 0.5) / G_N_ELEMENTS (trunks) - 0.5;
      /* lower-zone vessels are larger (more perfusion at the bases) */
      double r0 = 0.0042 + 0.0022 * (dv + 0.5);
      VesselSeed s = { L->hu - 0.012 * fabs (dv), L->hv + 0.08 * dv, angle, len * 0.6, r0, 0 };
      g_array_append_val (stack, s);
    }
  while (stack->len > 0)
    {
      VesselSeed s = g_array_index (stack, VesselSeed, stack->len - 1);
      double a = s.angle + 0.18 * hs_random_gauss (rng);
      double us1 = s.us + cos (a) * s.len, v1 = s.v + sin (a) * s.len;
      double r1 = s.r * 0.9;
      double x0, y0, x1, y1;

      g_array_set_size (stack, stack->len - 1);
      if (!hs_phantom_lung_contains (g, side, us1, v1, 0.0) && s.depth > 1)
        {
          /* try a shorter step before giving up at the lung's edge */
          us1 = s.us + cos (a) * s.len * 0.5;
          v1 = s.v + sin (a) * s.len * 0.5;
          if (!hs_phantom_lung_contains (g, side, us1, v1, 0.0))
            continue;
        }
      hs_phantom_frame_to_pixel (g, side == 0 ? s.us : 1 - s.us, s.v, &x0, &y0);
      hs_phantom_frame_to_pixel (g, side == 0 ? us1 : 1 - us1, v1, &x1, &y1);
      stamp_segment (buf, g->width, g->height, x0, y0, x1, y1, s.r * g->scale, r1 * g->scale,
                     30.0 / g->scale);
      if (r1 * 0.8 < min_r || s.depth >= 13)
        continue;
      {
        double spread = hs_random_double_range (rng, 0.5, 0.9);
        double bias = hs_random_double_range (rng, -0.15, 0.15);
        VesselSeed c1 = { us1, v1, a + spread * (0.4 + bias), s.len * 0.92, r1 * 0.95, s.depth + 1 };
        VesselSeed c2 = { us1, v1, a - spread * (0.6 - bias), s.len * 0.85, r1 * 0.8, s.depth + 1 };
        g_array_append_val (stack, c1);
        g_array_append_val (stack, c2);
      }
    }
  g_array_unref (stack);
}

/* ---- coarse texture noise, bilinearly upsampled ---- */

static void
add_texture (float *dst, const guint8 *where, guint w, guint h, guint64 seed, guint cell,
             double amp)
{
  guint gw = w / cell + 2, gh = h / cell + 2;
  g_autofree float *grid = g_new (float, (gsize) gw * gh);
  /* each column's cell and fraction, the same for every row: divided once */
  g_autofree guint *col_ix = g_new (guint, w);
  g_autofree double *col_fx = g_new (double, w);
  HsRandom rng;

  hs_phantom_rng_init (&rng, seed, 7, cell);
  for (gsize i = 0; i < (gsize) gw * gh; i++)
    grid[i] = (float) (hs_random_double (&rng) * 2.0 - 1.0);
  for (guint x = 0; x < w; x++)
    {
      double gx = (double) x / cell;

      col_ix[x] = (guint) gx;
      col_fx[x] = gx - col_ix[x];
    }
  for (guint y = 0; y < h; y++)
    {
      double gy = (double) y / cell;
      guint iy = (guint) gy;
      double fy = gy - iy;
      for (guint x = 0; x < w; x++)
        {
          gsize idx = (gsize) y * w + x;
          double fx;
          guint ix;
          float a, b;

          if (where != NULL && where[idx] == 0)
            continue;
          ix = col_ix[x];
          fx = col_fx[x];
          a = grid[iy * gw + ix] * (1 - fx) + grid[iy * gw + ix + 1] * fx;
          b = grid[(iy + 1) * gw + ix] * (1 - fx) + grid[(iy + 1) * gw + ix + 1] * fx;
          dst[idx] += (float) (amp * (a * (1 - fy) + b * fy));
        }
    }
}

/* ---- the rasterizer ---- */

static inline void
grow_box (int *box, gboolean *found, int x, int y)
{
  if (!*found)
    {
      box[0] = x;
      box[1] = y;
      box[2] = x + 1;
      box[3] = y + 1;
      *found = TRUE;
      return;
    }
  box[0] = MIN (box[0], x);
  box[1] = MIN (box[1], y);
  box[2] = MAX (box[2], x + 1);
  box[3] = MAX (box[3], y + 1);
}

static double
rib_center (double vr, double d)
{
  return vr - 0.035 * d + 0.16 * d * d;
}

/* The ribs near v: index i0 of the rib at or above, estimated by a
 * multiplication instead of floor (·/ rib_step) — off by one at most, so
 * callers look at i0 − 1 … i0 + 2.  A rib at most hw < rib_step / 4 away
 * from v can only be the floor's i0 or i0 + 1: the wider range has no other
 * rib within hw, and the ribs that count are the same, in the same order. */
static inline int
rib_index_estimate (double x, double inv_step)
{
  double q = x * inv_step;

  return (int) q - (q < 0);
}

/* Reciprocals for ribs_density, per instance: of rib_step, and per side of
 * the posterior and anterior ribs' spans (us0 − us1, 0.30 − us1). */
typedef struct {
  double inv_step;
  double inv_post[2], inv_ant[2];
} RibConsts;

static void
rib_consts_init (RibConsts *c, const HsPhantomGeom *g)
{
  double us0 = 0.5 - g->spine_w * 1.05;

  c->inv_step = 1.0 / g->rib_step;
  for (int k = 0; k < 2; k++)
    {
      double us1 = g->lung[k].uw - 0.035;

      c->inv_post[k] = 1.0 / (us0 - us1);
      c->inv_ant[k] = 1.0 / (0.30 - us1);
    }
}

/* Whether one of ribs 0 … n − 1 on the line `shape` may lie within hw of
 * v: the test that decides, done with a rib line estimated by
 * multiplications (a few ulps off) and hw widened by 1e-9. */
static gboolean
rib_near (const HsPhantomGeom *g, double v, double shape, double hw, int n, double inv_step)
{
  int i0 = rib_index_estimate (v - shape - g->rib_v0, inv_step);

  for (int i = MAX (i0 - 1, 0); i <= i0 + 2 && i < n; i++)
    if (fabs (v - (g->rib_v0 + g->rib_step * i + shape)) < hw)
      return TRUE;
  return FALSE;
}

/* `total` plus the profile of each of ribs 0 … n − 1 on the line `shape`
 * whose band of half-width hw covers v: weight · (0.6 + 0.4 q^4) (quartic)
 * or weight · (0.6 + 0.4 q²), q = |v − vc| / hw, added rib by rib in the
 * order of i (the sum is kept bit for bit).  The posterior and anterior
 * ribs differ only in their line, width, count and profile. */
static inline double
rib_band_sum (const HsPhantomGeom *g, double v, double shape, double hw, int n,
              double inv_step, double weight, gboolean quartic, double total)
{
  int i0 = rib_index_estimate (v - shape - g->rib_v0, inv_step);

  for (int i = MAX (i0 - 1, 0); i <= i0 + 2 && i < n; i++)
    {
      double vc = g->rib_v0 + g->rib_step * i + shape;
      double a = fabs (v - vc), q;

      if (!(a < hw))
        continue;
      q = a / hw;
      if (q < 1)
        total += weight * (0.6 + (quartic ? 0.4 * q * q * q * q : 0.4 * q * q));
    }
  return total;
}

/* density of posterior and anterior ribs at side coordinates (us, v);
 * inv_step is 1 / g->rib_step.  Each rib adds its term only when
 * |v − vc| < hw: the quotient q = |v − vc| / hw is below 1 only then, so
 * the division is skipped where it could not count (same sum, bit for
 * bit). */
static double
ribs_density (const HsPhantomGeom *g, int side, double us, double v, const RibConsts *rc)
{
  const HsLungGeom *L = &g->lung[side];
  double us0 = 0.5 - g->spine_w * 1.05, us1 = L->uw - 0.035;
  double inv_step = rc->inv_step;
  double total = 0;

  if (us > us0 || us < us1 - 0.01)
    return 0;
  /* Most of the chest is between ribs: estimated without the divisions
   * first, each part is computed exactly only when a rib may be near. */
  {
    double d_est = (us0 - us) * rc->inv_post[side];

    if (rib_near (g, v, rib_center (0, d_est), 0.0095 + 0.0035 * d_est + 1e-9, 12, inv_step))
  {
    double d = (us0 - us) / (us0 - us1);

    total = rib_band_sum (g, v, rib_center (0, d), 0.0095 + 0.0035 * d, 12, inv_step,
                          0.075, TRUE, total);
  }
  }
  {
    /* anterior ribs: from the lateral end of each posterior rib, down and
     * medially, fading toward the (invisible) costal cartilage */
    double ua_end = 0.30;
    double d2_est = (us - us1) * rc->inv_ant[side], d2;

    if (d2_est < -1e-9 || d2_est > 1 + 1e-9
        || !rib_near (g, v, rib_center (0, 1) + 0.11 * d2_est - 0.03 * d2_est * (1 - d2_est),
                      0.0085 + 1e-9, 9, inv_step))
      return total;
    d2 = (us - us1) / (ua_end - us1);
    if (d2 >= 0 && d2 <= 1)
      total = rib_band_sum (g, v, rib_center (0, 1) + 0.11 * d2 - 0.03 * d2 * (1 - d2), 0.0085,
                            9, inv_step, 0.04 * (1.0 - 0.7 * d2), FALSE, total);
  }
  return total;
}

static double
clavicle_density (int side, double us, double v)
{
  double us0 = 0.455, us1 = 0.13;
  double d, vc, hw, q;

  if (v < 0.07 || v > 0.2)
    return 0;
  d = (us0 - us) / (us0 - us1);
  if (d < 0 || d > 1)
    return 0;
  vc = 0.165 - 0.06 * d + 0.012 * sin (2 * G_PI * d);
  hw = 0.0125 - 0.003 * d + (d < 0.08 ? 0.004 * (1 - d / 0.08) : 0);
  q = fabs (v - vc) / hw;
  (void) side;
  return q < 1 ? 0.15 * (0.6 + 0.4 * q * q * q * q) : 0;
}

static double
spine_density (const HsPhantomGeom *g, double u, double v)
{
  double ax = fabs (u - 0.5), sw = g->spine_w;
  double phase, val;

  if (ax > sw * 1.15)
    return 0;
  phase = fmod (v + 10.0, 0.042) / 0.042;
  val = 0;
  if (ax < sw)
    {
      double q = ax / sw;
      val = 0.045 + 0.025 * q * q * q * q;
      if (phase > 0.84)
        val *= 0.6;  /* disc space */
    }
  {
    /* pedicles */
    double pu = (ax - sw * 0.72) / (sw * 0.22), pv = (phase - 0.3) / 0.14;
    if (pu * pu + pv * pv < 1)
      val += 0.035 * (1 - 0.5 * (pu * pu + pv * pv));
  }
  if (ax < sw * 0.12 && phase > 0.35 && phase < 0.8)
    val += 0.04;  /* spinous process */
  return val;
}

static double
segment_distance (double px, double py, double x0, double y0, double x1, double y1)
{
  double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? CLAMP (((px - x0) * dx + (py - y0) * dy) / len2, 0.0, 1.0) : 0.0;
  double ex = px - x0 - t * dx, ey = py - y0 - t * dy;
  return sqrt (ex * ex + ey * ey);
}

static gboolean
lesion_side_has (const HsLesionGeom *l, int side)
{
  return l->side == 2 || l->side == side;
}

static double
effusion_meniscus (const HsPhantomGeom *g, const HsLesionGeom *l, int side, double us)
{
  const HsLungGeom *L = &g->lung[side];
  double d = clamp01 ((L->udp + 0.04 - us) / (L->udp + 0.04 - L->uw));
  return L->vdome + l->level - l->r * pow (d, 1.6);
}

gboolean
hs_phantom_render (const HsPhantomGeom *g, HsPhantomRaster *raster, GError **error)
{
  guint w = g->width, h = g->height;
  gsize n = (gsize) w * h;
  g_autofree float *soft = NULL, *bone = NULL, *haze = NULL, *vessels = NULL, *scratch = NULL;
  g_autofree double *sums = NULL;
  g_autofree guint8 *aer = NULL;
  HsRandom rng;
  double px_frame = 1.0 / g->scale;
  RibConsts ribs;
  double lesion_cos[HS_MAX_LESIONS], lesion_sin[HS_MAX_LESIONS], lesion_reach2[HS_MAX_LESIONS];

  memset (raster, 0, sizeof *raster);
  soft = g_try_new0 (float, n);
  bone = g_try_new0 (float, n);
  haze = g_try_new0 (float, n);
  vessels = g_try_new0 (float, n);
  scratch = g_try_new (float, n);
  sums = g_try_new (double, MAX (w, h));
  aer = g_try_new0 (guint8, n);
  raster->pixels = g_try_new (guint16, n);
  if (soft == NULL || bone == NULL || haze == NULL || vessels == NULL || scratch == NULL
      || sums == NULL || aer == NULL || raster->pixels == NULL)
    {
      g_set_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_TOO_LARGE,
                   _("phantom %u×%u: out of memory"), w, h);
      g_clear_pointer (&raster->pixels, g_free);
      return FALSE;
    }
  for (guint i = 0; i < g->n_lesions; i++)
    {
      raster->lesion_mask[i] = g_new0 (guint8, n);
      /* the atelectasis plate's direction, once instead of per pixel */
      lesion_cos[i] = cos (g->lesions[i].level);
      lesion_sin[i] = sin (g->lesions[i].level);
      /* (1.4 r)², widened far beyond rounding: a nodule's or mass's reach */
      lesion_reach2[i] = (g->lesions[i].r * 1.4) * (g->lesions[i].r * 1.4) * (1 + 1e-6);
    }
  rib_consts_init (&ribs, g);

  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        gsize idx = (gsize) y * w + x;
        double u, v, ax, dsoft = 0, dbone = 0, dhaze = 0;
        gboolean in_body, heart;
        gboolean lung[2], ptx[2] = { FALSE, FALSE };
        double lung_t[2];
        double fluid[2] = { 0, 0 };

        pixel_to_frame (g, x + 0.5, y + 0.5, &u, &v);
        ax = fabs (u - 0.5);

        /* body: neck, sloping shoulders, chest wall */
        {
          /* neck, sloping trapezius, then the shoulders and arms rising
           * out of the field at the upper corners */
          double bw = g->body_w + 0.06 * (1 - smoothstep (0.02, 0.3, v))
                      - 0.05 * smoothstep (0.7, 1.1, v);
          in_body = ax < bw;
          /* top ≤ shoulder_v (a product of it with factors in [0, 1]) */
          if (in_body && !(v > g->shoulder_v))
            {
              double q = clamp01 ((ax - g->neck_w) / (g->body_w - g->neck_w));
              double top = ax < g->neck_w - 0.02 ? -1.0
                         : g->shoulder_v * smoothstep (g->neck_w - 0.02, g->neck_w + 0.06, ax)
                           * (1.0 - 0.9 * smoothstep (0.45, 1.1, q));
              in_body = v > top;
            }
          if (in_body)
            {
              double t = sqrt (1.0 - (ax / bw) * (ax / bw));
              dsoft += 0.22 + 0.68 * t;
            }
        }
        heart = heart_contains (g, u, v);
        if (heart)
          dsoft += 0.03;

        for (int k = 0; k < 2; k++)
          {
            double us = k == 0 ? u : 1.0 - u;
            lung[k] = in_body && lung_contains_t (g, k, us, v, 0.0, &lung_t[k]);
          }

        /* findings: masks and densities */
        for (guint i = 0; i < g->n_lesions; i++)
          {
            const HsLesionGeom *l = &g->lesions[i];
            gboolean inside = FALSE;

            switch (l->kind)
              {
              case HS_LESION_NODULE:
              case HS_LESION_MASS:
                {
                  double du = u - l->cu, dv = v - l->cv, d2 = du * du + dv * dv, d;
                  /* d² well over (1.4 r)²: d ≥ 1.4 r without the root */
                  if (d2 > lesion_reach2[i])
                    break;
                  d = sqrt (d2);
                  if (d < l->r * 1.4)
                    {
                      double phi = atan2 (dv, du);
                      double rr = l->r * (1 + l->a1 * sin (3 * phi + l->p1) + l->a2 * sin (5 * phi + l->p2));
                      if (d < rr)
                        {
                          inside = TRUE;
                          dsoft += l->density * sqrt (1 - (d / rr) * (d / rr));
                        }
                    }
                }
                break;
              case HS_LESION_CONSOLIDATION:
              case HS_LESION_OPACITY:
                if (lung[l->side])
                  for (guint b = 0; b < l->n_blobs && !inside; b++)
                    {
                      double du = (u - l->bu[b]) / l->brx[b], dv = (v - l->bv[b]) / l->bry[b];
                      if (du * du + dv * dv < 1)
                        {
                          inside = TRUE;
                          dhaze += l->density;
                        }
                    }
                break;
              case HS_LESION_ATELECTASIS:
                if (lung[l->side])
                  {
                    double ca = lesion_cos[i], sa = lesion_sin[i];
                    double du = u - l->cu, dv = v - l->cv;
                    double along = du * ca + dv * sa, across = -du * sa + dv * ca;
                    if (fabs (along) < l->r
                        && fabs (across) < l->a1 * (1 - pow (fabs (along) / l->r, 4)))
                      {
                        inside = TRUE;
                        dsoft += l->density;
                      }
                  }
                break;
              case HS_LESION_EFFUSION:
                for (int k = 0; k < 2; k++)
                  if (lesion_side_has (l, k) && lung[k]
                      /* the meniscus is at or below vdome + level − r: above
                       * it by 0.025, no fluid, no mask, no pow */
                      && !(v < g->lung[k].vdome + l->level - l->r - 0.025 - 1e-9))
                    {
                      double us = k == 0 ? u : 1.0 - u;
                      double vm = effusion_meniscus (g, l, k, us);
                      /* fluid thins toward the meniscus, which fades upward on a film */
                      fluid[k] = MAX (fluid[k], smoothstep (vm - 0.025, vm + 0.035, v));
                      if (v > vm)
                        inside = TRUE;
                    }
                break;
              case HS_LESION_PNEUMOTHORAX:
                {
                  int k = l->side;
                  double us = k == 0 ? u : 1.0 - u;
                  if (lung[k] && !hs_phantom_lung_contains (g, k, us, v, l->level))
                    {
                      inside = TRUE;
                      ptx[k] = TRUE;
                      dsoft -= 0.05;
                      /* the visceral pleural line: a thin bright edge of the collapsed lung */
                      if (hs_phantom_lung_contains (g, k, us, v, l->level - 1.6 * px_frame))
                        dbone += 0.07;
                    }
                }
                break;
              case HS_LESION_CARDIOMEGALY:
                inside = heart;
                break;
              default:
                break;
              }
            if (inside)
              {
                raster->lesion_mask[i][idx] = 255;
                grow_box (raster->lesion_box[i], &raster->lesion_found[i], (int) x, (int) y);
              }
          }

        /* breast and pectoral soft tissue over the lower and upper lungs */
        if (in_body && g->breast > 0)
          for (int k = 0; k < 2; k++)
            {
              double us = k == 0 ? u : 1.0 - u;
              double au = us - g->breast_u, av = v - g->breast_v, bu, bv, r2;
              if (!(fabs (au) < g->breast * 1.25 && fabs (av) < g->breast))
                continue;   /* |bu| or |bv| ≥ 1: r2 ≥ 1 */
              bu = au / (g->breast * 1.25);
              bv = av / g->breast;
              r2 = bu * bu + bv * bv;
              if (r2 < 1)
                dsoft += 0.14 * sqrt (1 - r2) * smoothstep (0.0, 0.35, 1 - r2)
                         * (v < dome_v (&g->lung[k], us) ? 1.0 : 0.35);
            }
        if (in_body)
          for (int k = 0; k < 2; k++)
            {
              double us = k == 0 ? u : 1.0 - u;
              double f = (v - 0.12) / 0.25, e;
              if (!(f > 0 && f < 1))
                continue;
              e = (us - g->lung[k].uw) / 0.12;
              if (e > -0.2 && e < 1)
                dsoft += 0.2 * (1 - e * e) * f * (1 - f);
            }

        /* lungs: air, zones, boxes */
        for (int k = 0; k < 2; k++)
          {
            const HsLungGeom *L = &g->lung[k];
            double us = k == 0 ? u : 1.0 - u;
            int base = k == 0 ? 0 : 1;

            if (lung[k])
              {
                double t = lung_t[k];
                double e = clamp01 ((us - L->uw) / (L->um - L->uw));
                double profile = 0.82 + 0.72 * e * (1 - e);
                /* the zone's floor from 3t, a few ulps from the quotient
                 * it takes, unless that is within 1e-9 of a boundary */
                double z3 = 3.0 * t, zf = floor (z3);
                int zone = z3 - zf > 1e-9 && z3 - zf < 1 - 1e-9 ? CLAMP ((int) zf, 0, 2)
                                                                : hs_phantom_lung_zone (g, k, v);

                profile *= 1.0 - 0.22 * smoothstep (0.55, 1.05, t) - 0.1 * (1 - smoothstep (0.0, 0.15, t));
                dsoft -= g->lung_dark * profile * (ptx[k] ? 1.12 : 1.0) * (1 - fluid[k]);
                dsoft += 0.08 * fluid[k];
                if (fluid[k] < 0.5 && !ptx[k])
                  aer[idx] = 1;
                grow_box (raster->region_box[HS_REGION_RIGHT_LUNG + base],
                          &raster->region_found[HS_REGION_RIGHT_LUNG + base], (int) x, (int) y);
                grow_box (raster->region_box[(k == 0 ? HS_REGION_RIGHT_UPPER : HS_REGION_LEFT_UPPER) + zone],
                          &raster->region_found[(k == 0 ? HS_REGION_RIGHT_UPPER : HS_REGION_LEFT_UPPER) + zone],
                          (int) x, (int) y);
                if (t < 0.17)
                  grow_box (raster->region_box[HS_REGION_RIGHT_APEX + base],
                            &raster->region_found[HS_REGION_RIGHT_APEX + base], (int) x, (int) y);
              }
            if (us > L->uw - 0.025 && us < L->uw + 0.075 && v > L->vcp - 0.085 && v < L->vcp + 0.012)
              grow_box (raster->region_box[HS_REGION_RIGHT_CP + base],
                        &raster->region_found[HS_REGION_RIGHT_CP + base], (int) x, (int) y);
            if (us > L->hu - 0.055 && us < L->hu + 0.04 && v > L->hv - 0.065 && v < L->hv + 0.065)
              grow_box (raster->region_box[HS_REGION_RIGHT_HILUM + base],
                        &raster->region_found[HS_REGION_RIGHT_HILUM + base], (int) x, (int) y);
            {
              /* hilar vessels and lymph nodes (|hu| or |hv| ≥ 1 puts r2 ≥ 1:
               * no division needed there) */
              double au = us - L->hu - 0.012, av = v - L->hv;
              if (fabs (au) < 0.04 && fabs (av) < 0.065)
                {
                  double hu = au / 0.04, hv = av / 0.065;
                  double r2 = hu * hu + hv * hv;
                  if (r2 < 1)
                    dsoft += 0.16 * (1 - r2) * (1 - r2);
                }
            }
          }
        if (heart)
          grow_box (raster->region_box[HS_REGION_CARDIAC], &raster->region_found[HS_REGION_CARDIAC],
                    (int) x, (int) y);
        {
          double du = u - g->knob_u, dv = v - g->knob_v;
          gboolean knob = du * du + dv * dv < g->knob_r * g->knob_r;
          if ((ax < g->med_w || knob) && v > g->med_top && v < g->heart_base)
            grow_box (raster->region_box[HS_REGION_MEDIASTINUM],
                      &raster->region_found[HS_REGION_MEDIASTINUM], (int) x, (int) y);
          if (knob)
            dsoft += 0.04;
        }

        if (in_body)
          {
            /* trachea and main bronchi: air columns in the mediastinum */
            if (ax < 0.017 && v < g->carina_v)
              dsoft -= 0.2 * sqrt (1 - (ax / 0.017) * (ax / 0.017)) * smoothstep (-0.05, 0.05, v);
            else if (v >= g->carina_v - 0.01 && v < g->carina_v + 0.09)
              for (int k = 0; k < 2; k++)
                {
                  double hx = k == 0 ? g->lung[0].hu + 0.03 : 1.0 - g->lung[1].hu - 0.03;
                  double d = segment_distance (u, v, 0.5, g->carina_v, hx, g->lung[k].hv - 0.01);
                  if (d < 0.009)
                    dsoft -= 0.1 * (1 - d / 0.009);
                }
            /* gastric bubble under the left dome */
            {
              const HsLungGeom *L = &g->lung[1];
              double au = u - (1.0 - L->udp + 0.01), av = v - (L->vdome + 0.07);
              if (fabs (au) < 0.05 && fabs (av) < 0.03)
                {
                  double bu = au / 0.05, bv = av / 0.03;
                  if (bu * bu + bv * bv < 1 && bv < 0.3)
                    dsoft -= 0.16;
                }
            }
            dbone += spine_density (g, u, v);
            for (int k = 0; k < 2; k++)
              {
                double us = k == 0 ? u : 1.0 - u;
                double rd = ribs_density (g, k, us, v, &ribs);
                /* ribs stand out against aerated lung; behind the abdomen
                 * and the chest wall's soft tissue they fade */
                if (rd > 0 && !lung[k])
                  rd *= v > dome_v (&g->lung[k], us) ? 0.3 : 0.6;
                dbone += rd;
                dbone += clavicle_density (k, us, v);
              }
          }
        soft[idx] = (float) dsoft;
        bone[idx] = (float) dbone;
        haze[idx] = (float) dhaze;
      }

  /* vessels branch from the hila, only visible in aerated lung */
  hs_phantom_rng_init (&rng, g->texture_seed, 3, 0);
  grow_vessels (g, 0, &rng, vessels);
  grow_vessels (g, 1, &rng, vessels);
  gauss_blur (vessels, scratch, sums, w, h, 0.0028 * g->scale);
  for (gsize i = 0; i < n; i++)
    if (aer[i])
      bone[i] += vessels[i];
  add_texture (soft, aer, w, h, g->texture_seed, MAX (2u, (guint) (g->scale / 110)), 0.05);
  add_texture (soft, aer, w, h, g->texture_seed + 2, MAX (2u, (guint) (g->scale / 300)), 0.03);
  add_texture (soft, NULL, w, h, g->texture_seed + 1, MAX (4u, (guint) (g->scale / 12)), 0.02);

  gauss_blur (soft, scratch, sums, w, h, 0.0032 * g->scale);
  gauss_blur (bone, scratch, sums, w, h, 0.0009 * g->scale);
  gauss_blur (haze, scratch, sums, w, h, 0.011 * g->scale);

  /* film response (tabulated), then quantum noise */
  {
    enum { N_LUT = 8192 };
    const double d_lo = -0.5, d_hi = 3.5, step = (d_hi - d_lo) / N_LUT;
    g_autofree double *lut = g_new (double, N_LUT + 2);

    for (int i = 0; i <= N_LUT + 1; i++)
      {
        double d = d_lo + i * step;
        lut[i] = pow (1.0 - exp (-g->exposure * MAX (d, 0.0)), g->gamma);
      }
    hs_phantom_rng_init (&rng, g->texture_seed, 11, 0);
    for (gsize i = 0; i < n; i++)
      {
        double d = soft[i] + g->bone_gain * bone[i] + haze[i];
        double s = (CLAMP (d, d_lo, d_hi - step) - d_lo) / step;
        int j = (int) s;
        double I = lut[j] + (s - j) * (lut[j + 1] - lut[j]);
        guint64 r = hs_random_next (&rng);
        /* Irwin–Hall of four 16-bit uniforms: a cheap, nearly Gaussian deviate */
        double z = ((double) ((r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48))
                    / 65536.0 - 2.0) * 1.7320508075688772;

        I = clamp01 (0.015 + 0.97 * I + z * g->noise * (0.35 + 0.65 * I));
        raster->pixels[i] = (guint16) (I * 65535.0 + 0.5);
      }
  }
  return TRUE;
}
