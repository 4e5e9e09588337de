/* hs-metrics-pipeline.c — the scoring pipeline: one pass of statistics
 * and bucket counts over the resampled map, a scatter of its values into
 * the top buckets (hs-metrics-bucketing-private.h), then G's values sorted
 * and the rest counted against them, bucket by bucket; on a team of
 * threads, with every result independent of how many. */
#include "hs-metrics-bucketing-private.h"
#include "hs-resample-private.h"
#include "hs-team-private.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define COUNT_BLOCK      64     /* values a block of the count of the rest */
#define LEVELS_BY_SEARCH 4      /* Otsu levels in a bucket counted by comparison */

#define SUM_EXPONENT_SAFE 256

int
hs_metrics_sum_exponent (double lo, double hi)
{
  double big = MAX (fabs (lo), fabs (hi));

  if (!(big > 0) || !isfinite (big) ||
      (big <= ldexp (1.0, SUM_EXPONENT_SAFE) && big >= ldexp (1.0, -SUM_EXPONENT_SAFE)))
    return 0;
  return -ilogb (big);
}

/* Two doubles side by side (GCC's vector extension: SSE2 on x86-64, two
 * scalar lanes elsewhere).  Each lane does what the scalar code does, op
 * for op, so no result depends on it. */
typedef double HsV2d __attribute__ ((vector_size (16)));
typedef gint64 HsV2l __attribute__ ((vector_size (16)));
typedef gint32 HsV2i __attribute__ ((vector_size (8)));

#ifndef __SSE2__
static inline HsV2d
hs_v2d_select (HsV2l mask, HsV2d a, HsV2d b)
{
  return (HsV2d) (((HsV2l) a & mask) | ((HsV2l) b & ~mask));
}
#endif

/* a < b ? a : b and a > b ? a : b, lane by lane: SSE2's minpd and maxpd
 * are exactly that (the second operand unless the comparison holds). */
static inline HsV2d
hs_v2d_min (HsV2d a, HsV2d b)
{
#ifdef __SSE2__
  return (HsV2d) _mm_min_pd ((__m128d) a, (__m128d) b);
#else
  return hs_v2d_select (a < b, a, b);
#endif
}

static inline HsV2d
hs_v2d_max (HsV2d a, HsV2d b)
{
#ifdef __SSE2__
  return (HsV2d) _mm_max_pd ((__m128d) a, (__m128d) b);
#else
  return hs_v2d_select (a > b, a, b);
#endif
}

/* f > 0 ? f : 0 */
static inline HsV2d
hs_v2d_max0 (HsV2d f)
{
  return hs_v2d_max (f, (HsV2d) { 0, 0 });
}

/* hs_sub_bucket_of of two values, lane by lane (the same index each), from
 * v·pre and the bucketing's lo, scale and last in both lanes. */
static inline HsV2i
hs_v2_bucket_of (HsV2d v_pre, HsV2d lo, HsV2d scale, HsV2d last)
{
  return __builtin_convertvector (hs_v2d_min (hs_v2d_max0 ((v_pre - lo) * scale), last), HsV2i);
}

/* ---- the pipeline: resample + statistics, scatter, sort + ranks; on a team ---- */

/* Row bands of the first pass and the scatter, and stretches of buckets of
 * the sort: fixed by the grid and the data, never by the thread count, and
 * each result is combined in their order — so every number is bit-identical
 * with one thread or two, whichever thread ran a unit. */
#define N_BANDS       16
#define N_SORT_UNITS  256
#define CHUNK_ROWS    8
#define LOCAL_N       16384

typedef struct {
  double  min, max;
  gsize   argmax;
  double  mass_all, mass_in, sum_in, sum_out, mass_left, mass_right;
  guint64 n_in, target_left, target_right;
} BandStats;

/* What one member keeps between units: a band of resampled rows and the
 * sort's cache-resident scratch. */
typedef struct {
  double  *rows;      /* CHUNK_ROWS · width, when resampling */
  HsResampleRows *blended;   /* the source rows the last band left blended */
  double  *local;     /* LOCAL_N */
  guint32 *lists;     /* a row's lists (first pass) */
  guint32 *band_counts;   /* 2 · 2 · B: a band's counts, two copies (first pass) */
  guint16 *idx;       /* IDX_MAX */
  /* the count of the values outside G against a bucket of G: */
  guint32 *first;     /* SUB_BUCKETS_MAX + 1: the sub-buckets of a bucket of G */
  gsize    n_sub;     /* how many (0: not made by its sort) */
  guint32 *cnt;       /* 2 · 2 · (the largest bucket of G + 1) */
  double  *g_values;  /* the largest bucket of G + 1: a bucket's values of G, then NAN */
  guint64  otsu[256]; /* their Otsu levels */
  guint64  otsu_g[256];   /* the Otsu levels of G's values */
} MemberBuffers;

typedef struct {
  HsEvalState       *state;
  double             sum_scale;    /* 2^hs_metrics_sum_exponent        */
  const double      *s;            /* NULL when resampling             */
  const HsResampler *resampler;
  HsBucketing          bk;
  gsize              n_buckets;
  guint              left_end, right_begin, n_bands;
  gint               next;         /* the unit counter of a pass       */
  gint               touch;        /* the first pass's one touch_storage */
  BandStats          band[N_BANDS];
  guint64           *counts[N_BANDS];  /* 2·B per band: counts, then write offsets */
  gsize             *bucket_start;     /* 2·B + 1 offsets into storage */
  guint              n_units;
  gsize              unit_start[N_SORT_UNITS + 1];   /* bucket ranges of the sort */
  double            *storage, *scratch;
  HsNegIndex        *index;
  MemberBuffers      member[2];
  /* per top bucket b: sums of squares (G buckets then the rest), and its
   * stretch of the auroc/ap walk */
  double            *ss;
  guint64           *two_u;
  double            *ap;
} Pipeline;

static void
band_row_range (const Pipeline *pl, guint band, guint *begin, guint *end)
{
  guint h = pl->state->height;

  *begin = (guint) ((guint64) h * band / pl->n_bands);
  *end = (guint) ((guint64) h * (band + 1) / pl->n_bands);
}

/* Rows y0..y1 of s: the given map, or resampled into the member's band. */
static const double *
band_rows (Pipeline *pl, guint member, guint y0, guint y1)
{
  if (pl->resampler == NULL)
    return pl->s + (gsize) y0 * pl->state->width;
  hs_resampler_rows_cached (pl->resampler, y0, y1, pl->member[member].rows,
                            pl->member[member].blended);
  return pl->member[member].rows;
}

/* The sums, range and count of G of a stretch of one row. */
typedef struct {
  double  pos, in, sin, sout, mn, mx;
  guint64 n_in;
} StretchStats;

/* One stretch of a row: its statistics, and each value's list (its top
 * bucket, + B outside G) into lists[].  Two lanes side by side for the
 * sums (even and odd columns), with no branch: a value outside G adds an
 * exact zero to G's sums and the reverse, so each lane's sum is what a
 * scalar loop over its columns would make. */
static inline __attribute__ ((always_inline)) void
stretch_stats_as (const double *s, const guint8 *g, guint n, const HsBucketing *bk, guint32 n_buckets,
                  double sc, guint32 *lists, StretchStats *out, gboolean unit_scales)
{
  HsV2d vsc = { sc, sc }, vpre = { bk->pre, bk->pre }, vlo = { bk->lo, bk->lo };
  HsV2d vscale = { bk->scale, bk->scale }, vlast = { bk->last_f, bk->last_f };
  HsV2d pos = { 0, 0 }, in = { 0, 0 }, sin = { 0, 0 }, sout = { 0, 0 };
  HsV2d mn = { INFINITY, INFINITY }, mx = { -INFINITY, -INFINITY };
  HsV2i vn = { (gint32) n_buckets, (gint32) n_buckets };
  guint64 n_in = 0;
  guint x = 0;

  for (; x + 2 <= n; x += 2)
    {
      HsV2d v, vs, pv;
      guint32 g0 = g[x], g1 = g[x + 1];
      HsV2l inside = { -(gint64) g0, -(gint64) g1 };
      HsV2i b, gi = { (gint32) g0, (gint32) g1 };

      memcpy (&v, s + x, sizeof v);
      /* × 1 is exact: skipped when both scales are 1 (nearly always) */
      vs = unit_scales ? v : v * vsc;
      pv = hs_v2d_max0 (vs);
      pos += pv;
      in += (HsV2d) ((HsV2l) pv & inside);
      sin += (HsV2d) ((HsV2l) vs & inside);
      sout += (HsV2d) ((HsV2l) vs & ~inside);
      mn = hs_v2d_min (mn, v);
      mx = hs_v2d_max (mx, v);
      /* the list: the bucket, + B outside G (g − 1 is all ones there) */
      b = hs_v2_bucket_of (unit_scales ? v : v * vpre, vlo, vscale, vlast) + (vn & (gi - 1));
      memcpy (lists + x, &b, sizeof b);
      n_in += g0 + g1;
    }
  if (x < n)
    {
      /* an odd stretch: its last value in lane 0 */
      double v = s[x], vs = v * sc, pv = vs > 0 ? vs : 0;

      pos[0] += pv;
      if (g[x])
        {
          in[0] += pv;
          sin[0] += vs;
        }
      else
        sout[0] += vs;
      mn[0] = v < mn[0] ? v : mn[0];
      mx[0] = v > mx[0] ? v : mx[0];
      lists[x] = hs_sub_bucket_of (bk, v) + n_buckets * (1u - g[x]);
      n_in += g[x];
    }
  out->pos = pos[0] + pos[1];
  out->in = in[0] + in[1];
  out->sin = sin[0] + sin[1];
  out->sout = sout[0] + sout[1];
  out->mn = mn[0] < mn[1] ? mn[0] : mn[1];
  out->mx = mx[0] > mx[1] ? mx[0] : mx[1];
  out->n_in = n_in;
}

static inline void
stretch_stats (const double *s, const guint8 *g, guint n, const HsBucketing *bk, guint32 n_buckets,
               double sc, guint32 *lists, StretchStats *out)
{
  if (sc == 1.0 && bk->pre == 1.0)
    stretch_stats_as (s, g, n, bk, n_buckets, sc, lists, out, TRUE);
  else
    stretch_stats_as (s, g, n, bk, n_buckets, sc, lists, out, FALSE);
}

/* The single-pass statistics and the bucket counts of one band: a row's
 * statistics and lists first (stretch_stats), then its counts, into two
 * copies (even and odd columns: neighbours mostly share a bucket, and one
 * copy would make each increment wait for the last). */
static void
first_pass_band (Pipeline *pl, guint member, guint band)
{
  const HsEvalState *st = pl->state;
  MemberBuffers *mb = &pl->member[member];
  BandStats *ps = &pl->band[band];
  guint64 *counts = pl->counts[band];
  guint32 n_lists = 2 * (guint32) pl->n_buckets;
  guint32 *c0 = mb->band_counts, *c1 = c0 + n_lists, *lists = mb->lists;
  /* a copy the compiler keeps in registers: the counts' stores could
   * otherwise alias it (the build has -fno-strict-aliasing) */
  const HsBucketing bk = pl->bk;
  guint row_begin, row_end, W = st->width;
  double mn = INFINITY, mx = -INFINITY, sc = pl->sum_scale;
  gsize argmax;

  band_row_range (pl, band, &row_begin, &row_end);
  memset (ps, 0, sizeof *ps);
  memset (c0, 0, 2 * n_lists * sizeof (guint32));
  argmax = (gsize) row_begin * W;

  for (guint y0 = row_begin; y0 < row_end; y0 += CHUNK_ROWS)
    {
      guint y1 = MIN (y0 + CHUNK_ROWS, row_end);
      const double *rows = band_rows (pl, member, y0, y1);

      for (guint y = y0; y < y1; y++)
        {
          const double *s = rows + (gsize) (y - y0) * W;
          const guint8 *g = st->g + (gsize) y * W;
          double r_all = 0, r_in = 0, r_sin = 0, r_sout = 0, r_left = 0, r_right = 0;
          guint64 n_in = 0;
          guint x;

          /* three column ranges: image-left, middle column (odd W), image-right */
          for (guint range = 0; range < 3; range++)
            {
              guint x0 = range == 0 ? 0 : range == 1 ? pl->left_end : pl->right_begin;
              guint x1 = range == 0 ? pl->left_end : range == 1 ? pl->right_begin : W;
              StretchStats r;

              if (x1 <= x0)
                continue;
              stretch_stats (s + x0, g + x0, x1 - x0, &bk, (guint32) pl->n_buckets, sc, lists + x0, &r);
              if (r.mx > mx)
                {
                  /* the first maximum wins: where this stretch reaches it */
                  mx = r.mx;
                  for (x = x0; s[x] != mx; x++)
                    ;
                  argmax = (gsize) y * W + x;
                }
              mn = r.mn < mn ? r.mn : mn;
              r_all += r.pos;
              r_in += r.in;
              r_sin += r.sin;
              r_sout += r.sout;
              n_in += r.n_in;
              if (range == 0)
                {
                  r_left += r.pos;
                  ps->target_right += r.n_in;   /* image-left = patient's right */
                }
              else if (range == 2)
                {
                  r_right += r.pos;
                  ps->target_left += r.n_in;
                }
            }
          for (x = 0; x + 2 <= W; x += 2)
            {
              c0[lists[x]]++;
              c1[lists[x + 1]]++;
            }
          if (x < W)
            c0[lists[x]]++;
          ps->mass_all += r_all;
          ps->mass_in += r_in;
          ps->sum_in += r_sin;
          ps->sum_out += r_sout;
          ps->mass_left += r_left;
          ps->mass_right += r_right;
          ps->n_in += n_in;
        }
    }
  for (guint32 l = 0; l < n_lists; l++)
    counts[l] = (guint64) c0[l] + c1[l];
  ps->min = mn;
  ps->max = mx;
  ps->argmax = argmax;
}

/* The storage the scatter will write, touched once a page.  In a fresh
 * process its pages are not there yet, and the scatter's first band writes
 * into every bucket: both threads then fault on the same pages at once and
 * wait for each other (measured: the second thread's first band 5.5 ms
 * instead of 0.4, the scatter 6.4 ms instead of 3.2).  Faulting from both
 * threads in the first pass was slower still (first pass 3.9 → 10.5 ms):
 * one member faults them all, in order, while the other starts on the
 * bands (first pass 3.9 → 5.0 ms, scatter 4.5–6.9 → 3.2 ms).  Pages
 * already there (a buffer kept from an earlier call) cost a store each. */
static void
touch_storage (Pipeline *pl)
{
  volatile double *storage = pl->storage;

  for (gsize i = 0; i < pl->state->n; i += 4096 / sizeof (double))
    storage[i] = 0;
}

static void
first_pass (gpointer data, guint member)
{
  Pipeline *pl = data;
  guint band;

  if (hs_team_claim (&pl->touch, 1) == 0)
    touch_storage (pl);
  while ((band = hs_team_claim (&pl->next, pl->n_bands)) < pl->n_bands)
    first_pass_band (pl, member, band);
}

/* Each band's values to its own place in every bucket (bands in order). */
static void
scatter_pass (gpointer data, guint member)
{
  Pipeline *pl = data;
  const HsEvalState *st = pl->state;
  guint band, W = st->width;

  while ((band = hs_team_claim (&pl->next, pl->n_bands)) < pl->n_bands)
    {
      guint64 *opos = pl->counts[band], *oneg = opos + pl->n_buckets;
      const HsBucketing bk = pl->bk;   /* in registers, as in first_pass_band */
      double *out = pl->storage;
      guint row_begin, row_end;

      band_row_range (pl, band, &row_begin, &row_end);
      for (guint y0 = row_begin; y0 < row_end; y0 += CHUNK_ROWS)
        {
          guint y1 = MIN (y0 + CHUNK_ROWS, row_end);
          const double *s = band_rows (pl, member, y0, y1);
          const guint8 *g = st->g + (gsize) y0 * W;
          gsize n = (gsize) (y1 - y0) * W;

          /* A value goes to one of 2·B places, each a stream of its own,
           * so most stores would wait for a line from memory: the next
           * line of the same stream is asked for (for writing) with each
           * store, by then it is there.  −2.7 ms CPU of 31 in process on
           * one thread (grid32), and −1 ms for choosing the offset without
           * a branch. */
          for (gsize i = 0; i < n; i++)
            {
              double v = s[i];
              gsize b = hs_bucket_of (&bk, v);
              guint64 *o = g[i] ? opos + b : oneg + b;
              gsize at = (*o)++;

              out[at] = v;
              /* as an integer: past the end of `out` it only names an
               * address, and a prefetch never faults */
              __builtin_prefetch ((const void *) ((guintptr) (out + at) + 64), 1, 3);
            }
        }
    }
}

/* Sorts the values of G in top bucket b and returns their sum of squared
 * deviations from G's mean. */
static double
sort_list (Pipeline *pl, MemberBuffers *mb, gsize b)
{
  const HsEvalState *st = pl->state;
  gsize off = pl->bucket_start[b], len = pl->bucket_start[b + 1] - off;
  double mean = st->mean_in, sc = pl->sum_scale;
  double *a = pl->storage + off;
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  gsize i = 0;

  mb->n_sub = hs_metrics_sort_bucket (&pl->bk, b, a, len, len <= LOCAL_N ? mb->local : pl->scratch + off, mb->idx,
                           mb->first);
  /* four chains: the adds do not wait on each other */
  for (; i + 4 <= len; i += 4)
    {
      double d0 = a[i] * sc - mean, d1 = a[i + 1] * sc - mean;
      double d2 = a[i + 2] * sc - mean, d3 = a[i + 3] * sc - mean;
      s0 += d0 * d0;
      s1 += d1 * d1;
      s2 += d2 * d2;
      s3 += d3 * d3;
    }
  for (; i < len; i++)
    {
      double d = a[i] * sc - mean;
      s0 += d * d;
    }
  return (s0 + s1) + (s2 + s3);
}

/* The Otsu levels of a[0..n), ascending (the values of G in one top
 * bucket): one binary search a level boundary inside it. */
static void
otsu_count_sorted (guint64 *hist, const double *a, gsize n, double min, double max)
{
  guint ulo, uhi;
  gsize below_prev = 0;

  if (n == 0)
    return;
  ulo = hs_metrics_otsu_u (a[0], min, max);
  uhi = hs_metrics_otsu_u (a[n - 1], min, max);
  for (guint k = ulo + 1; k <= uhi; k++)
    {
      gsize below = hs_metrics_count_level_below (a, n, k, min, max);

      hist[k - 1] += below - below_prev;
      below_prev = below;
    }
  hist[uhi] += n - below_prev;
}

/* The order of doubles as unsigned integers (−0 just below +0). */
static inline guint64
double_key (double v)
{
  guint64 bits;

  memcpy (&bits, &v, sizeof bits);
  return (bits >> 63) ? ~bits : bits | (G_GUINT64_CONSTANT (1) << 63);
}

static inline double
key_double (guint64 key)
{
  guint64 bits = (key >> 63) ? key & ~(G_GUINT64_CONSTANT (1) << 63) : ~key;
  double v;

  memcpy (&v, &bits, sizeof v);
  return v;
}

/* The least double in (lo, hi] whose Otsu level is ≥ k, given
 * u(lo) < k ≤ u(hi): bisection over the doubles between them. */
static double
otsu_level_start (double lo, double hi, guint k, double min, double max)
{
  guint64 a = double_key (lo), b = double_key (hi);

  while (b - a > 1)
    {
      guint64 mid = a + (b - a) / 2;

      if (hs_metrics_otsu_u (key_double (mid), min, max) >= k)
        b = mid;
      else
        a = mid;
    }
  return key_double (b);
}

/* Counts v (outside G) against p[0..m], the sorted values of G in its top
 * bucket followed by a NAN, through first[] over sub-buckets `sub` of it:
 * c[2t] counts values strictly between p[t − 1] and p[t] (t the start of
 * a run of equal values; t = m: above them all), c[2t + 1] values equal to
 * p[t]. */
static inline void
count_against (guint32 *c, double v, guint32 j, const guint32 *first, const double *p, gsize m)
{
  guint32 a = first[j], e = first[j + 1];

  if (G_LIKELY (e - a <= 1))
    {
      /* none or one value of G in v's sub-bucket, without a branch: with
       * one, v is below, equal to or above p[a] (2a, 2a + 1, 2a + 2);
       * with none, p[a] lies in a later sub-bucket, so above v (the
       * sub-buckets are monotone in the value), or is the NAN after the
       * last (a = m) — both give 2a, and (p ≤ v) + (p < v) is one
       * comparison's two flags */
      double pa = p[a];

      c[2 * a + (pa <= v) + (pa < v)]++;
    }
  else if (v <= p[a])
    c[2 * a + (v == p[a])]++;
  else if (v > p[e - 1])
    c[2 * e]++;
  else
    {
      while (a < e)
        {
          guint32 mid = a + (e - a) / 2;

          if (p[mid] < v)
            a = mid + 1;
          else
            e = mid;
        }
      c[2 * a + (a < m && p[a] == v)]++;
    }
}

/* Counts the values outside G of top bucket b against the bucket's sorted
 * values of G, in one pass that does not move them: for each, how many
 * values of G lie below it (and whether it equals one), found through a
 * table over sub-buckets of the bucket — a sub-bucket without a value of G
 * answers at once, one with some is searched.  That is all the auroc/ap
 * walk needs of them (the integer 2·U and the same sums as a walk over both
 * classes sorted); the same pass takes their sum of squares, their least
 * and greatest value and their Otsu levels. */
static void
count_rest (Pipeline *pl, MemberBuffers *mb, gsize b, gboolean ranks)
{
  const HsEvalState *st = pl->state;
  gsize B = pl->n_buckets;
  gsize off = pl->bucket_start[B + b], q = pl->bucket_start[B + b + 1] - off;
  gsize m = pl->bucket_start[b + 1] - pl->bucket_start[b];
  const double *x = pl->storage + off, *p = pl->storage + pl->bucket_start[b];
  double *pn = mb->g_values;
  double mean = st->mean_out, sc = pl->sum_scale;
  double s0 = 0, s1 = 0, lo = INFINITY, hi = -INFINITY;
  guint ulo, uhi;
  gsize i = 0;

  if (!ranks || m == 0)
    {
      if (ranks)
        {
          pl->two_u[b] = 0;
          pl->ap[b] = 0;
        }
      for (; i + 2 <= q; i += 2)
        {
          double v0 = x[i], v1 = x[i + 1], d0 = v0 * sc - mean, d1 = v1 * sc - mean;

          s0 += d0 * d0;
          s1 += d1 * d1;
          lo = MIN (lo, MIN (v0, v1));
          hi = MAX (hi, MAX (v0, v1));
        }
      for (; i < q; i++)
        {
          double d = x[i] * sc - mean;

          s0 += d * d;
          lo = MIN (lo, x[i]);
          hi = MAX (hi, x[i]);
        }
    }
  else
    {
      guint32 *first = mb->first, *c0 = mb->cnt, *c1 = c0 + 2 * (m + 1);
      HsV2d vsc = { sc, sc }, vmean = { mean, mean }, vss = { 0, 0 };
      HsV2d vlo = { INFINITY, INFINITY }, vhi = { -INFINITY, -INFINITY };
      HsV2d vpre, vblo, vscale, vlast;
      HsBucketing sub;
      double blo, bhi;
      gsize n_sub = mb->n_sub;
      guint64 tp = st->n_pos - pl->bucket_start[b + 1], two_u = 0, acc;
      gsize neg_below = off - pl->bucket_start[B];
      double ap = 0;

      /* The sub-buckets of G's sort (SUB_SPREAD per value of G, so most
       * hold none or one): first[j] is how many values of G lie in those
       * below j.  Made here when the sort left none (too few values to
       * bucket); not needed when G holds one value here (below). */
      if (!hs_bucket_range (&pl->bk, b, &blo, &bhi))
        {
          blo = bhi = 0;
          n_sub = 1;
        }
      else if (n_sub == 0)
        n_sub = CLAMP (SUB_SPREAD * m, 2, SUB_BUCKETS_MAX);
      hs_bucketing_init (&sub, blo, bhi, n_sub);
      if (mb->n_sub != n_sub && p[0] != p[m - 1])
        {
          memset (first, 0, (n_sub + 1) * sizeof (guint32));
          for (gsize t = 0; t < m; t++)
            first[hs_bucket_of (&sub, p[t]) + 1]++;
          for (gsize j = 0; j < n_sub; j++)
            first[j + 1] += first[j];
        }
      memset (c0, 0, 4 * (m + 1) * sizeof (guint32));
      vpre = (HsV2d) { sub.pre, sub.pre };
      vblo = (HsV2d) { sub.lo, sub.lo };
      vscale = (HsV2d) { sub.scale, sub.scale };
      vlast = (HsV2d) { sub.last_f, sub.last_f };
      /* G's values here and a NAN after them (count_against; not read when
       * G holds one value here, below) */
      if (p[0] != p[m - 1])
        {
          memcpy (pn, p, m * sizeof (double));
          pn[m] = NAN;
        }

      if (p[0] == p[m - 1])
        {
          /* G holds one value here (a quantised map): below, equal, above */
          double v = p[0];
          gsize n_lt = 0, n_eq = 0;

          for (; i < q; i++)
            {
              double d = x[i] * sc - mean;

              s0 += d * d;
              lo = MIN (lo, x[i]);
              hi = MAX (hi, x[i]);
              n_lt += x[i] < v;
              n_eq += x[i] == v;
            }
          c0[0] = (guint32) n_lt;
          c0[1] = (guint32) n_eq;
          c0[2 * m] = (guint32) (q - n_lt - n_eq);
        }
      /* In blocks: first the sub-bucket of each value, its square and the
       * range, in a loop without branches or stores to shared counts (the
       * compiler vectorises it), then the counts.  Two copies of the counts
       * (count_against), c0 and c1, for even and odd values: consecutive
       * values (neighbouring pixels) mostly land on the same count, and one
       * copy would make each increment wait for the last; two sums of
       * squares for the same reason. */
      while (i < q)
        {
          guint32 jb[COUNT_BLOCK];
          gsize nb = MIN (q - i, COUNT_BLOCK), k;
          const double *xb = x + i;

          for (k = 0; k + 2 <= nb; k += 2)
            {
              HsV2d v, d;
              HsV2i j;

              memcpy (&v, xb + k, sizeof v);
              d = v * vsc - vmean;
              vss += d * d;
              vlo = hs_v2d_min (vlo, v);
              vhi = hs_v2d_max (vhi, v);
              j = hs_v2_bucket_of (v * vpre, vblo, vscale, vlast);
              memcpy (jb + k, &j, sizeof j);
            }
          for (; k < nb; k++)
            {
              double d = xb[k] * sc - mean;

              s0 += d * d;
              lo = MIN (lo, xb[k]);
              hi = MAX (hi, xb[k]);
              jb[k] = hs_sub_bucket_of (&sub, xb[k]);
            }
          for (k = 0; k + 2 <= nb; k += 2)
            {
              count_against (c0, xb[k], jb[k], first, pn, m);
              count_against (c1, xb[k + 1], jb[k + 1], first, pn, m);
            }
          if (k < nb)
            count_against (c0, xb[k], jb[k], first, pn, m);
          i += nb;
        }

      s0 += vss[0];
      s1 += vss[1];
      lo = MIN (lo, MIN (vlo[0], vlo[1]));
      hi = MAX (hi, MAX (vhi[0], vhi[1]));

      /* The walk over the distinct values of G, top down; acc: values
       * outside G in the bucket above the current one. */
      acc = c0[2 * m] + c1[2 * m];
      for (gsize t = m; t > 0;)
        {
          double v = p[t - 1];
          gsize end = t;
          guint64 cp, cn, jg;

          while (t > 0 && p[t - 1] == v)
            t--;
          cp = end - t;
          cn = c0[2 * t + 1] + c1[2 * t + 1];
          jg = neg_below + (q - (acc + cn));   /* values outside G below v */
          tp += cp;
          two_u += cp * (2 * jg + cn);
          /* ap's Δrecall · precision with the 1/|G| taken out: one
           * division a value (they dominated the walk) */
          ap += (double) cp * ((double) tp / (double) (tp + (st->n_neg - jg)));
          acc += cn + c0[2 * t] + c1[2 * t];
        }
      pl->two_u[b] = two_u;
      pl->ap[b] = ap / (double) st->n_pos;
    }
  pl->ss[B + b] = s0 + s1;
  pl->index->lo[b] = lo;
  pl->index->hi[b] = hi;
  if (q == 0)
    return;
  /* Otsu levels: one for the whole bucket unless it straddles a boundary */
  ulo = hs_metrics_otsu_u (lo, st->min, st->max);
  uhi = hs_metrics_otsu_u (hi, st->min, st->max);
  if (ulo == uhi)
    mb->otsu[ulo] += q;
  else if (uhi - ulo <= LEVELS_BY_SEARCH)
    {
      /* u is monotone in s: a level starts at one value, found by
       * bisection, and the values below it are counted by comparison
       * (no division a value) */
      gsize below_prev = 0;

      for (guint k = ulo + 1; k <= uhi; k++)
        {
          double start = otsu_level_start (lo, hi, k, st->min, st->max);
          gsize below = 0;

          for (i = 0; i < q; i++)
            below += x[i] < start;
          mb->otsu[k - 1] += below - below_prev;
          below_prev = below;
        }
      mb->otsu[uhi] += q - below_prev;
    }
  else
    for (i = 0; i < q; i++)
      mb->otsu[hs_metrics_otsu_u (x[i], st->min, st->max)]++;
}

static void
sort_pass (gpointer data, guint member)
{
  Pipeline *pl = data;
  MemberBuffers *mb = &pl->member[member];
  gboolean ranks = pl->state->n_pos > 0 && pl->state->n_neg > 0;
  guint unit;

  while ((unit = hs_team_claim (&pl->next, pl->n_units)) < pl->n_units)
    for (gsize b = pl->unit_start[unit]; b < pl->unit_start[unit + 1]; b++)
      {
        pl->ss[b] = sort_list (pl, mb, b);
        otsu_count_sorted (mb->otsu_g, pl->storage + pl->bucket_start[b],
                           pl->bucket_start[b + 1] - pl->bucket_start[b], pl->state->min, pl->state->max);
        count_rest (pl, mb, b, ranks);
      }
}

/* Cuts the top buckets into stretches of about equal numbers of values. */
static void
plan_sort_units (Pipeline *pl)
{
  gsize B = pl->n_buckets, total = pl->state->n, b = 0;
  guint u = 0;

  pl->unit_start[0] = 0;
  while (b < B && u < N_SORT_UNITS)
    {
      gsize goal = total * (u + 1) / N_SORT_UNITS, done;

      do
        {
          b++;
          done = pl->bucket_start[b] + (pl->bucket_start[B + b] - pl->bucket_start[B]);
        }
      while (b < B && done < goal);
      pl->unit_start[++u] = b;
    }
  if (pl->unit_start[u] < B)
    pl->unit_start[u] = B;
  pl->n_units = u;
}

/* Runs a pass on the team (its unit counter reset first). */
static void
run_pass (Pipeline *pl, HsTeam *team, HsTeamFunc func)
{
  pl->next = 0;
  hs_team_run (team, func, pl);
}

/* The 256-bin histograms of u, overall and in G, from the members' counts
 * in the sort pass (bucket by bucket, while the values were in cache). */
static void
otsu_histograms (HsEvalState *state, const MemberBuffers *members, guint n_members)
{
  for (guint u = 0; u < 256; u++)
    {
      guint64 in = 0, all = 0;

      for (guint m = 0; m < n_members; m++)
        {
          in += members[m].otsu_g[u];
          all += members[m].otsu_g[u] + members[m].otsu[u];
        }
      state->otsu_hist_g[u] = in;
      state->otsu_hist[u] = all;
    }
}

void
hs_metrics_prepare (HsEvalState *state, const double *s, const HsResampler *resampler,
                    double bound_lo, double bound_hi, const HsTarget *target,
                    guint n_threads, double *storage, double *scratch)
{
  Pipeline pl = { 0 };
  g_autoptr(HsTeam) team = NULL;
  gsize n_lists, total = 0;
  g_autofree guint64 *count_block = NULL;
  gsize *bucket_start, max_pos = 0;
  guint n_members;
  HsNegIndex *index;
  g_autofree double *per_bucket = NULL;
  g_autofree guint64 *two_u = NULL;
  double sum_in = 0, sum_out = 0;
  guint W;

  /* Started first: a new thread can take a few ms to run, and the caller
   * takes its units meanwhile. */
  team = hs_team_new (MIN (n_threads, G_N_ELEMENTS (pl.member)));

  memset (state, 0, sizeof *state);
  state->s = resampler != NULL ? NULL : s;
  state->resampler = resampler;
  state->g = hs_target_peek_mask (target);
  state->width = W = hs_target_get_width (target);
  state->height = hs_target_get_height (target);
  state->n = (gsize) state->width * state->height;

  if (!(bound_lo <= bound_hi))
    {
      /* No bounds known (s is given then): one pass over it. */
      bound_lo = INFINITY;
      bound_hi = -INFINITY;
      for (gsize i = 0; i < state->n; i++)
        {
          bound_lo = MIN (bound_lo, s[i]);
          bound_hi = MAX (bound_hi, s[i]);
        }
    }
  pl.state = state;
  pl.sum_scale = ldexp (1.0, hs_metrics_sum_exponent (bound_lo, bound_hi));
  pl.s = s;
  pl.resampler = resampler;
  pl.n_bands = state->height >= 4 * N_BANDS ? N_BANDS : 1;
  pl.n_buckets = bound_lo == bound_hi ? 1 : CLAMP (state->n / 2048, 1, TOP_BUCKETS_MAX);
  hs_bucketing_init (&pl.bk, bound_lo, bound_hi, pl.n_buckets);
  pl.left_end = W / 2;
  pl.right_begin = (W + 1) / 2;
  pl.storage = storage;
  pl.scratch = scratch;
  n_lists = 2 * pl.n_buckets;
  count_block = g_new (guint64, n_lists * pl.n_bands);
  for (guint p = 0; p < pl.n_bands; p++)
    pl.counts[p] = count_block + p * n_lists;
  for (guint m = 0; m < hs_team_size (team); m++)
    {
      pl.member[m].rows = resampler != NULL ? g_new (double, (gsize) CHUNK_ROWS * W) : NULL;
      pl.member[m].blended = resampler != NULL ? hs_resample_rows_new (resampler) : NULL;
      pl.member[m].local = g_new (double, LOCAL_N);
      pl.member[m].idx = g_new (guint16, IDX_MAX);
      pl.member[m].lists = g_new (guint32, W);
      pl.member[m].band_counts = g_new (guint32, 2 * n_lists);
    }

  run_pass (&pl, team, first_pass);

  state->min = pl.band[0].min;
  state->max = pl.band[0].max;
  state->argmax = pl.band[0].argmax;
  for (guint p = 0; p < pl.n_bands; p++)
    {
      const BandStats *ps = &pl.band[p];

      if (p > 0)
        {
          state->min = MIN (state->min, ps->min);
          if (ps->max > state->max)   /* strictly: the first maximum wins */
            {
              state->max = ps->max;
              state->argmax = ps->argmax;
            }
        }
      state->n_pos += ps->n_in;
      state->mass_all += ps->mass_all;
      state->mass_in += ps->mass_in;
      state->mass_left += ps->mass_left;
      state->mass_right += ps->mass_right;
      state->target_left += ps->target_left;
      state->target_right += ps->target_right;
      sum_in += ps->sum_in;
      sum_out += ps->sum_out;
    }
  state->n_neg = state->n - state->n_pos;
  state->mean_in = state->n_pos > 0 ? sum_in / (double) state->n_pos : 0;
  state->mean_out = state->n_neg > 0 ? sum_out / (double) state->n_neg : 0;

  /* Layout: G buckets 0..B−1 then outside buckets 0..B−1; within a bucket,
   * band 0's values, then band 1's, ... (deterministic). */
  bucket_start = g_new (gsize, n_lists + 1);
  for (gsize l = 0; l < n_lists; l++)
    {
      bucket_start[l] = total;
      for (guint p = 0; p < pl.n_bands; p++)
        {
          guint64 c = pl.counts[p][l];
          pl.counts[p][l] = total;
          total += c;
        }
    }
  bucket_start[n_lists] = total;
  g_assert (total == state->n);

  run_pass (&pl, team, scatter_pass);

  pl.bucket_start = bucket_start;
  state->neg_index = pl.index = index = g_new0 (HsNegIndex, 1);
  index->bk = pl.bk;
  index->n_buckets = pl.n_buckets;
  index->bucket_start = bucket_start;
  index->lo = g_new (double, 2 * pl.n_buckets);
  index->hi = index->lo + pl.n_buckets;
  index->sorted = g_new0 (guint8, pl.n_buckets);
  for (gsize b = 0; b < pl.n_buckets; b++)
    max_pos = MAX (max_pos, bucket_start[b + 1] - bucket_start[b]);
  for (guint m = 0; m < hs_team_size (team); m++)
    {
      pl.member[m].first = g_new (guint32, SUB_BUCKETS_MAX + 1);
      pl.member[m].cnt = g_new (guint32, 4 * (max_pos + 1));
      pl.member[m].g_values = g_new (double, max_pos + 1);
    }
  plan_sort_units (&pl);
  per_bucket = g_new (double, n_lists + pl.n_buckets);
  pl.ss = per_bucket;
  pl.ap = per_bucket + n_lists;
  pl.two_u = two_u = g_new (guint64, pl.n_buckets);
  run_pass (&pl, team, sort_pass);
  n_members = hs_team_size (team);
  g_clear_pointer (&team, hs_team_free);

  state->pos = storage;
  state->neg = storage + state->n_pos;
  for (gsize b = 0; b < pl.n_buckets; b++)
    {
      state->ss_in += pl.ss[b];
      state->ss_out += pl.ss[pl.n_buckets + b];
    }
  /* the walk's stretches top down, as one walk over all of G would add them */
  if (state->n_pos > 0 && state->n_neg > 0)
    for (gsize b = pl.n_buckets; b-- > 0;)
      {
        state->two_u += pl.two_u[b];
        state->ap += pl.ap[b];
      }
  /* A constant class has variance exactly 0 (its mean may be off by an ulp). */
  if (state->n_pos > 0 && state->pos[0] == state->pos[state->n_pos - 1])
    state->ss_in = 0;
  if (state->n_neg > 0)
    {
      double lo = INFINITY, hi = -INFINITY;

      for (gsize b = 0; b < pl.n_buckets; b++)
        {
          lo = MIN (lo, index->lo[b]);
          hi = MAX (hi, index->hi[b]);
        }
      if (lo == hi)
        state->ss_out = 0;
    }

  otsu_histograms (state, pl.member, n_members);
  for (guint m = 0; m < G_N_ELEMENTS (pl.member); m++)
    {
      g_free (pl.member[m].rows);
      g_clear_pointer (&pl.member[m].blended, hs_resample_rows_free);
      g_free (pl.member[m].local);
      g_free (pl.member[m].idx);
      g_free (pl.member[m].lists);
      g_free (pl.member[m].band_counts);
      g_free (pl.member[m].first);
      g_free (pl.member[m].cnt);
      g_free (pl.member[m].g_values);
    }
}

void
hs_metrics_state_clear (HsEvalState *state)
{
  HsNegIndex *index = state->neg_index;

  if (index == NULL)
    return;
  g_free (index->bucket_start);
  g_free (index->lo);
  g_free (index->sorted);
  g_free (index);
  state->neg_index = NULL;
}

const double *
hs_metrics_values (HsEvalState *state, double *buffer)
{
  if (state->s == NULL)
    {
      /* s was resampled band by band and never kept: the few metrics that
       * read it in pixel order (ties at a cut, |s| of a signed map) have it
       * made once, with the same resampler, so the same values. */
      hs_resampler_rows (state->resampler, 0, state->height, buffer);
      state->s = buffer;
    }
  return state->s;
}
