/* hs-metrics-threshold.c — metrics that depend on the order of values:
 * auroc, ap, top-k regions, explanation_precision, Otsu, curves.
 *
 * One bucketing serves them all.  The values inside and outside G are
 * scattered separately (no labels travel with the values) into top buckets
 * whose index floor((v − lo)·B/(hi − lo)) is monotone in v in floating
 * point, so buckets are ordered and equal values always share a bucket:
 * ties stay exact.  The values of G (a fraction of the grid) are then
 * sorted; the rest are only counted against them, bucket by bucket — which
 * is all auroc, ap, the Otsu histogram and the sums of squares need — and a
 * bucket of them is sorted only when an order statistic (top-k, a curve's
 * threshold) falls in it. */
#include "hs-metrics-private.h"
#include "hs-order-private.h"
#include "hs-resample-private.h"
#include "hs-team-private.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#define INSERTION_MAX   32
#define TOP_BUCKETS_MAX 2048
#define SUB_BUCKETS_MAX 16384
#define MAX_DEPTH       24
#define SUB_SPREAD      4      /* sub-buckets per value of G in the table */
#define COUNT_BLOCK     64     /* values a block of the count of the rest */
#define LEVELS_BY_SEARCH 4     /* Otsu levels in a bucket counted by comparison */
#define SCAN_MAX        4096   /* values outside G counted by a scan, not a search */

static void
insertion_sort (double *a, gsize n)
{
  for (gsize i = 1; i < n; i++)
    {
      double x = a[i];
      gsize j = i;

      while (j > 0 && a[j - 1] > x)
        {
          a[j] = a[j - 1];
          j--;
        }
      a[j] = x;
    }
}

/* Linear bucket mapping over [lo, hi]; values outside are clamped (still
 * monotone).  When hi − lo overflows, everything is halved first. */
typedef struct {
  double lo, scale, pre;
  gint64 last;
  double last_f;   /* last as a double: no conversion per value */
} Bucketing;

static void
bucketing_init (Bucketing *b, double lo, double hi, gsize n_buckets)
{
  double span = hi - lo;

  b->pre = 1.0;
  if (!isfinite (span))
    {
      b->pre = 0.5;
      span = hi * 0.5 - lo * 0.5;
    }
  b->lo = lo * b->pre;
  b->last = (gint64) n_buckets - 1;
  b->last_f = (double) b->last;
  b->scale = span > 0 ? (double) n_buckets / span : 0.0;
}

static inline gsize
bucket_of (const Bucketing *b, double v)
{
  double f = (v * b->pre - b->lo) * b->scale;
  gint64 i;

  if (!(f > 0))
    return 0;
  if (f >= b->last_f)
    return (gsize) b->last;
  i = (gint64) f;
  return (gsize) i;
}

/* bucket_of without branches (the same index for every finite v), for
 * loops the compiler vectorises; only for fewer than 2^31 buckets. */
static inline guint32
sub_bucket_of (const Bucketing *b, double v)
{
  double f = (v * b->pre - b->lo) * b->scale;

  f = f > 0 ? f : 0;
  f = f < b->last_f ? f : b->last_f;
  return (guint32) (gint32) f;
}

/* Sorts a[0..n) using scratch[0..n) (and idx[0..n) when n ≤ IDX_MAX): one
 * linear bucketing pass into about 2n buckets, recursion for the rare
 * crowded bucket, then one insertion pass over the whole array (buckets are
 * already in order, so it only fixes the few shared buckets). */
#define IDX_MAX 16384

/* Turns counts[1..n_buckets] into starts; TRUE when a bucket holds more
 * values than the insertion pass should take (so it needs its own sort). */
static inline gboolean
prefix_sums (guint32 *counts, gsize n_buckets)
{
  guint32 crowded = 0;

  for (gsize b = 0; b < n_buckets; b++)
    {
      crowded |= counts[b + 1] > INSERTION_MAX;
      counts[b + 1] += counts[b];
    }
  return crowded != 0;
}

/* When `first` is given and the sort bucketed [lo, hi] into n sub-buckets,
 * first[j] is left as the start of sub-bucket j in the sorted a (j ≤ n) and
 * n is returned; else 0. */
static gsize
sort_small_bounded (double *a, gsize n, double *scratch, guint16 *idx, int depth, double lo, double hi,
                    guint32 *first);

static void
sort_small (double *a, gsize n, double *scratch, guint16 *idx, int depth)
{
  double lo, hi;

  if (n <= INSERTION_MAX)
    {
      insertion_sort (a, n);
      return;
    }
  lo = hi = a[0];
  for (gsize i = 1; i < n; i++)
    {
      double v = a[i];
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  if (lo == hi)
    return;
  sort_small_bounded (a, n, scratch, idx, depth, lo, hi, NULL);
}

/* [lo, hi] need only approximately bound the values (outliers are clamped
 * into the end buckets, which stays monotone). */
static gsize
sort_small_bounded (double *a, gsize n, double *scratch, guint16 *idx, int depth, double lo, double hi,
                    guint32 *first)
{
  guint32 counts[SUB_BUCKETS_MAX + 1];
  Bucketing bk;
  gsize n_buckets;
  gboolean crowded;

  if (n <= INSERTION_MAX)
    {
      insertion_sort (a, n);
      return 0;
    }
  if (depth > MAX_DEPTH || n > G_MAXUINT32)
    {
      qsort (a, n, sizeof (double), hs_compare_doubles);
      return 0;
    }
  /* A bucket of one repeated value (a quantised map: every pixel of a level
   * in one bucket) is sorted already; random values leave this scan at the
   * second element. */
  {
    gsize i = 1;

    while (i < n && a[i] == a[0])
      i++;
    if (i == n)
      return 0;
  }

  /* about two sub-buckets a value; more when the table is wanted (fewer
   * shared ones, see count_against) */
  n_buckets = CLAMP ((first != NULL ? SUB_SPREAD : 2) * n, 2, SUB_BUCKETS_MAX);
  bucketing_init (&bk, lo, hi, n_buckets);
  memset (counts, 0, (n_buckets + 1) * sizeof (guint32));
  if (idx != NULL && n <= IDX_MAX)
    {
      for (gsize i = 0; i < n; i++)
        {
          gsize b = bucket_of (&bk, a[i]);
          idx[i] = (guint16) b;
          counts[b + 1]++;
        }
      crowded = prefix_sums (counts, n_buckets);
      for (gsize i = 0; i < n; i++)
        scratch[counts[idx[i]]++] = a[i];
    }
  else
    {
      for (gsize i = 0; i < n; i++)
        counts[bucket_of (&bk, a[i]) + 1]++;
      crowded = prefix_sums (counts, n_buckets);
      for (gsize i = 0; i < n; i++)
        scratch[counts[bucket_of (&bk, a[i])]++] = a[i];
    }
  /* counts[b] is now the end of bucket b. */
  if (first != NULL)
    {
      first[0] = 0;
      memcpy (first + 1, counts, n_buckets * sizeof (guint32));
    }
  if (crowded)
    {
      gsize off = 0;

      for (gsize b = 0; b < n_buckets; b++)
        {
          gsize end = counts[b];

          if (end - off > INSERTION_MAX)
            sort_small (scratch + off, end - off, a + off, idx, depth + 1);
          off = end;
        }
    }
  /* Buckets are in order and each holds a few values: copy back, then an
   * insertion pass that only reads until it meets a value smaller than its
   * neighbour (the rare shared bucket out of order). */
  memcpy (a, scratch, n * sizeof (double));
  for (gsize i = 1; i < n; i++)
    if (G_UNLIKELY (a[i] < a[i - 1]))
      {
        double x = a[i];
        gsize j = i;

        do
          {
            a[j] = a[j - 1];
            j--;
          }
        while (j > 0 && a[j - 1] > x);
        a[j] = x;
      }
  return first != NULL ? n_buckets : 0;
}

void
hs_metrics_sort_doubles (double *values, gsize n, double *scratch)
{
  gsize n_buckets, off;
  g_autofree gsize *counts = NULL;
  Bucketing bk;
  double lo, hi;

  if (n <= SUB_BUCKETS_MAX * 4 || n > G_MAXUINT32)
    {
      sort_small (values, n, scratch, NULL, 0);
      return;
    }
  /* Large arrays: a coarse top level first so each bucket fits the cache. */
  lo = hi = values[0];
  for (gsize i = 1; i < n; i++)
    {
      lo = MIN (lo, values[i]);
      hi = MAX (hi, values[i]);
    }
  if (lo == hi)
    return;
  n_buckets = CLAMP (n / 1024, 2, TOP_BUCKETS_MAX);
  bucketing_init (&bk, lo, hi, n_buckets);
  counts = g_new0 (gsize, n_buckets + 1);
  for (gsize i = 0; i < n; i++)
    counts[bucket_of (&bk, values[i]) + 1]++;
  for (gsize b = 0; b < n_buckets; b++)
    counts[b + 1] += counts[b];
  for (gsize i = 0; i < n; i++)
    scratch[counts[bucket_of (&bk, values[i])]++] = values[i];
  off = 0;
  for (gsize b = 0; b < n_buckets; b++)
    {
      gsize end = counts[b];

      if (end - off > 1)
        sort_small (scratch + off, end - off, values + off, NULL, 1);
      off = end;
    }
  memcpy (values, scratch, n * sizeof (double));
}

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

static inline HsV2d
hs_v2d_select (HsV2l mask, HsV2d a, HsV2d b)
{
  return (HsV2d) (((HsV2l) a & mask) | ((HsV2l) b & ~mask));
}

/* a < b ? a : b and a > b ? a : b, lane by lane */
static inline HsV2d
hs_v2d_min (HsV2d a, HsV2d b)
{
  return hs_v2d_select (a < b, a, b);
}

static inline HsV2d
hs_v2d_max (HsV2d a, HsV2d b)
{
  return hs_v2d_select (a > b, a, b);
}

/* f > 0 ? f : 0 */
static inline HsV2d
hs_v2d_max0 (HsV2d f)
{
  return (HsV2d) ((HsV2l) f & (f > 0));
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
  guint64  otsu[256]; /* their Otsu levels */
  guint64  otsu_g[256];   /* the Otsu levels of G's values */
} MemberBuffers;

/* The values outside G as the pipeline leaves them: grouped by top bucket,
 * and the state's order statistics find their way through them. */
struct _HsNegIndex {
  Bucketing  bk;
  gsize      n_buckets;
  gsize     *bucket_start;    /* 2·B + 1: G's buckets, then the rest's */
  double    *lo, *hi;         /* per bucket: the least and greatest value outside G (±∞ when none) */
  guint8    *sorted;          /* per bucket: its values outside G are in order */
};

typedef struct {
  HsEvalState       *state;
  double             sum_scale;    /* 2^hs_metrics_sum_exponent        */
  const double      *s;            /* NULL when resampling             */
  const HsResampler *resampler;
  Bucketing          bk;
  gsize              n_buckets;
  guint              left_end, right_begin, n_bands;
  gint               next;         /* the unit counter of a pass       */
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
static inline void
stretch_stats (const double *s, const guint8 *g, guint n, const Bucketing *bk, guint32 n_buckets,
               double sc, guint32 *lists, StretchStats *out)
{
  HsV2d vsc = { sc, sc }, vpre = { bk->pre, bk->pre }, vlo = { bk->lo, bk->lo };
  HsV2d vscale = { bk->scale, bk->scale }, vlast = { bk->last_f, bk->last_f };
  HsV2d pos = { 0, 0 }, in = { 0, 0 }, sin = { 0, 0 }, sout = { 0, 0 };
  HsV2d mn = { INFINITY, INFINITY }, mx = { -INFINITY, -INFINITY };
  guint64 n_in = 0;
  guint x = 0;

  for (; x + 2 <= n; x += 2)
    {
      HsV2d v, vs, pv, f;
      guint32 g0 = g[x], g1 = g[x + 1];
      HsV2l inside = { -(gint64) g0, -(gint64) g1 };
      HsV2i b;

      memcpy (&v, s + x, sizeof v);
      vs = v * vsc;
      pv = hs_v2d_max0 (vs);
      pos += pv;
      in += (HsV2d) ((HsV2l) pv & inside);
      sin += (HsV2d) ((HsV2l) vs & inside);
      sout += (HsV2d) ((HsV2l) vs & ~inside);
      mn = hs_v2d_min (mn, v);
      mx = hs_v2d_max (mx, v);
      f = hs_v2d_min (hs_v2d_max0 ((v * vpre - vlo) * vscale), vlast);
      b = __builtin_convertvector (f, HsV2i);
      lists[x] = (guint32) b[0] + n_buckets * (1u - g0);
      lists[x + 1] = (guint32) b[1] + n_buckets * (1u - g1);
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
      lists[x] = sub_bucket_of (bk, v) + n_buckets * (1u - g[x]);
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
  const Bucketing bk = pl->bk;
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

static void
first_pass (gpointer data, guint member)
{
  Pipeline *pl = data;
  guint band;

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
      const Bucketing bk = pl->bk;   /* in registers, as in first_pass_band */
      double *out = pl->storage;
      guint row_begin, row_end;

      band_row_range (pl, band, &row_begin, &row_end);
      for (guint y0 = row_begin; y0 < row_end; y0 += CHUNK_ROWS)
        {
          guint y1 = MIN (y0 + CHUNK_ROWS, row_end);
          const double *s = band_rows (pl, member, y0, y1);
          const guint8 *g = st->g + (gsize) y0 * W;
          gsize n = (gsize) (y1 - y0) * W;

          for (gsize i = 0; i < n; i++)
            {
              double v = s[i];
              gsize b = bucket_of (&bk, v);

              if (g[i])
                out[opos[b]++] = v;
              else
                out[oneg[b]++] = v;
            }
        }
    }
}

/* The value range of top bucket k from the top-level mapping; FALSE when it
 * is not a finite, non-empty interval (one bucket, a span that overflows). */
static gboolean
bucket_range (const Bucketing *bk, gsize k, double *lo, double *hi)
{
  double width = 1.0 / bk->scale;

  *lo = (bk->lo + (double) k * width) / bk->pre;
  *hi = (bk->lo + (double) (k + 1) * width) / bk->pre;
  return bk->scale > 0 && isfinite (*lo) && isfinite (*hi) && *lo < *hi;
}

/* Sorts a[0..len), the values of top bucket k, using buf (len values);
 * returns the number of sub-buckets of the table left in `first` (0: none,
 * see sort_small_bounded). */
static gsize
sort_bucket (const Bucketing *bk, gsize k, double *a, gsize len, double *buf, guint16 *idx,
             guint32 *first)
{
  double lo, hi;

  if (len <= 1)
    return 0;
  if (bucket_range (bk, k, &lo, &hi))
    return sort_small_bounded (a, len, buf, idx, 1, lo, hi, first);
  sort_small (a, len, buf, idx, 1);
  return 0;
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

  mb->n_sub = sort_bucket (&pl->bk, b, a, len, len <= LOCAL_N ? mb->local : pl->scratch + off, mb->idx,
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

/* Number of elements of a (ascending) whose Otsu level is < k. */
static gsize
count_level_below (const double *a, gsize n, guint k, double lo, double hi)
{
  gsize l = 0, h = n;

  while (l < h)
    {
      gsize mid = l + (h - l) / 2;

      if (hs_metrics_otsu_u (a[mid], lo, hi) < k)
        l = mid + 1;
      else
        h = mid;
    }
  return l;
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
      gsize below = count_level_below (a, n, k, min, max);

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

/* Counts v (outside G) against p[0..m), the sorted values of G in its top
 * bucket, through first[] over sub-buckets `sub` of it: c[2t] counts values
 * strictly between p[t − 1] and p[t] (t the start of a run of equal values;
 * t = m: above them all), c[2t + 1] values equal to p[t]. */
static inline void
count_against (guint32 *c, double v, guint32 j, const guint32 *first, const double *p, gsize m)
{
  guint32 a = first[j], e = first[j + 1];

  if (G_LIKELY (e - a <= 1))
    {
      /* none or one value of G in v's sub-bucket: no branch (p[a] exists
       * when a = e < m: the first value outside G at most) */
      guint32 one = a < e, below = one & (p[a] < v), equal = one & (p[a] == v);

      c[2 * (a + below) + equal]++;
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
      Bucketing sub;
      double blo, bhi;
      gsize n_sub = mb->n_sub;
      guint64 tp = st->n_pos - pl->bucket_start[b + 1], two_u = 0, acc;
      gsize neg_below = off - pl->bucket_start[B];
      double ap = 0;

      /* The sub-buckets of G's sort (SUB_SPREAD per value of G, so most
       * hold none or one): first[j] is how many values of G lie in those
       * below j.  Made here when the sort left none (too few values to
       * bucket); not needed when G holds one value here (below). */
      if (!bucket_range (&pl->bk, b, &blo, &bhi))
        {
          blo = bhi = 0;
          n_sub = 1;
        }
      else if (n_sub == 0)
        n_sub = CLAMP (SUB_SPREAD * m, 2, SUB_BUCKETS_MAX);
      bucketing_init (&sub, blo, bhi, n_sub);
      if (mb->n_sub != n_sub && p[0] != p[m - 1])
        {
          memset (first, 0, (n_sub + 1) * sizeof (guint32));
          for (gsize t = 0; t < m; t++)
            first[bucket_of (&sub, p[t]) + 1]++;
          for (gsize j = 0; j < n_sub; j++)
            first[j + 1] += first[j];
        }
      memset (c0, 0, 4 * (m + 1) * sizeof (guint32));

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
              double v0 = xb[k], v1 = xb[k + 1], d0 = v0 * sc - mean, d1 = v1 * sc - mean;

              s0 += d0 * d0;
              s1 += d1 * d1;
              lo = MIN (lo, MIN (v0, v1));
              hi = MAX (hi, MAX (v0, v1));
              jb[k] = sub_bucket_of (&sub, v0);
              jb[k + 1] = sub_bucket_of (&sub, v1);
            }
          for (; k < nb; k++)
            {
              double d = xb[k] * sc - mean;

              s0 += d * d;
              lo = MIN (lo, xb[k]);
              hi = MAX (hi, xb[k]);
              jb[k] = sub_bucket_of (&sub, xb[k]);
            }
          for (k = 0; k + 2 <= nb; k += 2)
            {
              count_against (c0, xb[k], jb[k], first, p, m);
              count_against (c1, xb[k + 1], jb[k + 1], first, p, m);
            }
          if (k < nb)
            count_against (c0, xb[k], jb[k], first, p, m);
          i += nb;
        }

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
  bucketing_init (&pl.bk, bound_lo, bound_hi, pl.n_buckets);
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

/* ---- order statistics: G sorted, the rest by bucket ---- */

/* Number of elements of a (ascending, length n) that are < v (strict) or ≤ v. */
static gsize
count_below (const double *a, gsize n, double v, gboolean or_equal)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (or_equal ? a[mid] <= v : a[mid] < v)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The values outside G in top bucket b: *len of them, from the returned
 * pointer; *before: how many are in the buckets below. */
static double *
rest_bucket (const HsEvalState *state, gsize b, gsize *len, gsize *before)
{
  const HsNegIndex *ix = state->neg_index;
  const gsize *start = ix->bucket_start + ix->n_buckets;

  *len = start[b + 1] - start[b];
  *before = start[b] - start[0];
  return state->neg + *before;
}

/* Sorts the values outside G of top bucket b the first time an order
 * statistic needs them in order. */
static void
rest_bucket_sort (const HsEvalState *state, gsize b)
{
  HsNegIndex *ix = state->neg_index;
  gsize len, before;
  double *a = rest_bucket (state, b, &len, &before);

  if (!ix->sorted[b] && len > 1)
    {
      g_autofree double *buf = g_new (double, len);
      g_autofree guint16 *idx = g_new (guint16, IDX_MAX);

      sort_bucket (&ix->bk, b, a, len, buf, idx, NULL);
    }
  ix->sorted[b] = 1;
}

/* Number of values outside G that are < v (or ≤ v): every value in a bucket
 * below v's is smaller, every one above greater (the mapping is monotone),
 * so only v's own bucket is looked at. */
static gsize
rest_count_below (const HsEvalState *state, double v, gboolean or_equal)
{
  gsize b, len, before, c = 0;
  const double *a;

  if (state->n_neg == 0)
    return 0;
  b = bucket_of (&state->neg_index->bk, v);
  a = rest_bucket (state, b, &len, &before);
  /* a crowded bucket (ties, an outlier stretching the range) is sorted once
   * rather than scanned at every count */
  if (len > SCAN_MAX)
    rest_bucket_sort (state, b);
  if (state->neg_index->sorted[b])
    return before + count_below (a, len, v, or_equal);
  if (or_equal)
    for (gsize i = 0; i < len; i++)
      c += a[i] <= v;
  else
    for (gsize i = 0; i < len; i++)
      c += a[i] < v;
  return before + c;
}

void
hs_metrics_count_at_least (const HsEvalState *state, double v, gboolean strict,
                           guint64 *n_total, guint64 *n_in_target)
{
  /* strict: s > v → n − #(≤ v); else s ≥ v → n − #(< v). */
  guint64 in = state->n_pos - count_below (state->pos, state->n_pos, v, strict);
  guint64 out = state->n_neg - rest_count_below (state, v, strict);

  if (n_total != NULL)
    *n_total = in + out;
  if (n_in_target != NULL)
    *n_in_target = in;
}

/* The r-th smallest (0-based) of the union of two ascending arrays. */
static double
kth_smallest (const double *a, gsize na, const double *b, gsize nb, gsize k)
{
  /* Binary search on how many elements come from a. */
  gsize lo = k > nb ? k - nb : 0;
  gsize hi = MIN (k, na);

  while (lo < hi)
    {
      gsize i = lo + (hi - lo) / 2;  /* take i from a, k − i from b */
      gsize j = k - i;

      /* Too few from a when a[i] < b[j − 1]. */
      if (j > 0 && i < na && a[i] < b[j - 1])
        lo = i + 1;
      else
        hi = i;
    }
  {
    gsize i = lo, j = k - lo;
    /* The k-th smallest is min(a[i], b[j]) among the existing ones. */
    if (i >= na)
      return b[j];
    if (j >= nb)
      return a[i];
    return MIN (a[i], b[j]);
  }
}

double
hs_metrics_kth_largest (const HsEvalState *state, guint64 r)
{
  const gsize *start = state->neg_index->bucket_start;
  gsize B = state->neg_index->n_buckets, k = state->n - r, lo = 0, hi = B - 1, len, before;
  const double *rest;

  g_assert (r >= 1 && r <= state->n);
  /* The top bucket it lies in: the last b with fewer than k + 1 values of
   * either class below it (so a non-empty one). */
#define BELOW(b) (start[b] + (start[B + (b)] - start[B]))
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo + 1) / 2;

      if (BELOW (mid) <= k)
        lo = mid;
      else
        hi = mid - 1;
    }
  k -= BELOW (lo);
#undef BELOW
  rest_bucket_sort (state, lo);
  rest = rest_bucket (state, lo, &len, &before);
  return kth_smallest (state->pos + start[lo], start[lo + 1] - start[lo], rest, len, k);
}

/* auroc and ap from the walk the sort pass took bucket by bucket. */
void
hs_metrics_rank_metrics (const HsEvalState *state, HsScores *out)
{
  if (state->n_pos == 0)
    {
      hs_scores_undefined (out, HS_METRIC_AUROC, HS_REASON_EMPTY_TARGET);
      hs_scores_undefined (out, HS_METRIC_AP, HS_REASON_EMPTY_TARGET);
      return;
    }
  if (state->n_neg == 0)
    {
      hs_scores_undefined (out, HS_METRIC_AUROC, HS_REASON_FULL_TARGET);
      hs_scores_undefined (out, HS_METRIC_AP, HS_REASON_FULL_TARGET);
      return;
    }
  hs_scores_set (out, HS_METRIC_AUROC,
                 (double) state->two_u / (2.0 * (double) state->n_pos * (double) state->n_neg));
  hs_scores_set (out, HS_METRIC_AP, state->ap);
}

static const HsMetric iou_metrics[4] = { HS_METRIC_IOU_5, HS_METRIC_IOU_10, HS_METRIC_IOU_20, HS_METRIC_IOU_30 };
static const HsMetric prec_metrics[4] = { HS_METRIC_PRECISION_5, HS_METRIC_PRECISION_10,
                                          HS_METRIC_PRECISION_20, HS_METRIC_PRECISION_30 };
static const HsMetric rec_metrics[4] = { HS_METRIC_RECALL_5, HS_METRIC_RECALL_10,
                                         HS_METRIC_RECALL_20, HS_METRIC_RECALL_30 };
static const guint k_percent[4] = { 5, 10, 20, 30 };

HsMetric
hs_metrics_iou_metric (guint slot)
{
  return iou_metrics[slot];
}

HsMetric
hs_metrics_precision_metric (guint slot)
{
  return prec_metrics[slot];
}

void
hs_metrics_set_region (const HsEvalState *state, HsScores *out, guint slot,
                    guint64 iou_size, guint64 iou_hit, guint64 pr_size, guint64 pr_hit)
{
  guint64 uni = iou_size + state->n_pos - iou_hit;

  hs_scores_set (out, iou_metrics[slot], uni > 0 ? (double) iou_hit / (double) uni : 0.0);
  hs_scores_set (out, prec_metrics[slot], pr_size > 0 ? (double) pr_hit / (double) pr_size : 0.0);
  if (state->n_pos == 0)
    hs_scores_undefined (out, rec_metrics[slot], HS_REASON_EMPTY_TARGET);
  else
    hs_scores_set (out, rec_metrics[slot], (double) pr_hit / (double) state->n_pos);
}

void
hs_metrics_topk_default (const HsEvalState *state, HsScores *out)
{
  for (guint slot = 0; slot < 4; slot++)
    {
      guint64 r, size, hit;
      double q;

      if (k_percent[slot] == 20)
        continue;
      /* ⌈k·P/100⌉-th largest (1-based). */
      r = ((guint64) k_percent[slot] * state->n + 99) / 100;
      r = CLAMP (r, 1, state->n);
      q = hs_metrics_kth_largest (state, r);
      out->topk_threshold[slot] = q;
      hs_metrics_count_at_least (state, q, FALSE, &size, &hit);
      hs_metrics_set_region (state, out, slot, size, hit, size, hit);
    }
}

void
hs_metrics_explanation_precision (HsEvalState *state, double *abs_buffer,
                                  double *scratch, HsScores *out)
{
  guint64 n = state->n_pos, greater_in = 0, greater = 0, tie_in = 0, take;
  const double *s;
  double v;

  if (n == 0)
    {
      hs_scores_undefined (out, HS_METRIC_EXPLANATION_PRECISION, HS_REASON_EMPTY_TARGET);
      return;
    }

  if (state->min >= 0)
    {
      /* |s| = s: the n-th largest from the sorted classes. */
      guint64 ge, ge_in;

      v = hs_metrics_kth_largest (state, n);
      hs_metrics_count_at_least (state, v, TRUE, &greater, &greater_in);
      hs_metrics_count_at_least (state, v, FALSE, &ge, &ge_in);
      if (ge == n)
        {
          hs_scores_set (out, HS_METRIC_EXPLANATION_PRECISION, (double) ge_in / (double) n);
          return;
        }
      /* Ties at v straddle the cut: the first ones in row-major order enter. */
      take = n - greater;
      s = hs_metrics_values (state, hs_metrics_workspace (0, state->n));
      for (gsize i = 0; i < state->n && take > 0; i++)
        if (s[i] == v)
          {
            tie_in += state->g[i];
            take--;
          }
      hs_scores_set (out, HS_METRIC_EXPLANATION_PRECISION,
                     (double) (greater_in + tie_in) / (double) n);
      return;
    }

  /* Negative values: order by |s| with a separate sort. */
  s = hs_metrics_values (state, hs_metrics_workspace (0, state->n));
  for (gsize i = 0; i < state->n; i++)
    abs_buffer[i] = fabs (s[i]);
  hs_metrics_sort_doubles (abs_buffer, state->n, scratch);
  v = abs_buffer[state->n - n];
  for (gsize i = 0; i < state->n; i++)
    {
      double a = fabs (s[i]);
      if (a > v)
        {
          greater++;
          greater_in += state->g[i];
        }
    }
  take = n - greater;
  for (gsize i = 0; i < state->n && take > 0; i++)
    if (fabs (s[i]) == v)
      {
        tie_in += state->g[i];
        take--;
      }
  hs_scores_set (out, HS_METRIC_EXPLANATION_PRECISION,
                 (double) (greater_in + tie_in) / (double) n);
}

/* OpenCV's getThreshVal_Otsu_8u, operation for operation, so the chosen
 * level is the one cv2.threshold(..., THRESH_OTSU) picks (first maximum of
 * ω0·ω1·(μ0 − μ1)²; levels where a class weight is within FLT_EPSILON of
 * 0 or 1 are skipped). */
int
hs_metrics_otsu_level (const guint64 hist[256], guint64 total)
{
  double mu = 0, scale = 1.0 / (double) total;
  double mu1 = 0, q1 = 0, max_sigma = 0;
  int max_val = 0;

  for (int i = 0; i < 256; i++)
    mu += i * (double) hist[i];
  mu *= scale;
  for (int i = 0; i < 256; i++)
    {
      double p_i = (double) hist[i] * scale, q2, mu2, sigma;

      mu1 *= q1;
      q1 += p_i;
      q2 = 1.0 - q1;
      if (MIN (q1, q2) < FLT_EPSILON || MAX (q1, q2) > 1.0 - FLT_EPSILON)
        continue;
      mu1 = (mu1 + i * p_i) / q1;
      mu2 = (mu - q1 * mu1) / q2;
      sigma = q1 * q2 * (mu1 - mu2) * (mu1 - mu2);
      if (sigma > max_sigma)
        {
          max_sigma = sigma;
          max_val = i;
        }
    }
  return max_val;
}

/* The least value outside G whose Otsu level is ≥ k (NAN when none): in the
 * first bucket whose greatest value reaches k (u is monotone in s). */
static double
rest_least_from_level (const HsEvalState *state, guint k)
{
  const HsNegIndex *ix = state->neg_index;

  for (gsize b = 0; b < ix->n_buckets && state->n_neg > 0; b++)
    if (ix->hi[b] > -INFINITY && hs_metrics_otsu_u (ix->hi[b], state->min, state->max) >= k)
      {
        gsize len, before;
        const double *a = rest_bucket (state, b, &len, &before);
        double least = ix->hi[b];

        for (gsize i = 0; i < len; i++)
          if (a[i] < least && hs_metrics_otsu_u (a[i], state->min, state->max) >= k)
            least = a[i];
        return least;
      }
  return NAN;
}

void
hs_metrics_otsu_iou (const HsEvalState *state, HsScores *out)
{
  int t = hs_metrics_otsu_level (state->otsu_hist, state->n);
  guint64 pred = 0, hit = 0, uni;

  out->otsu_level = t;
  /* The smallest value in the region u > t: the region is exactly s ≥ it. */
  out->otsu_threshold = NAN;
  if (t < 255)
    {
      gsize ip = count_level_below (state->pos, state->n_pos, (guint) t + 1, state->min, state->max);
      double least = rest_least_from_level (state, (guint) t + 1);

      if (ip < state->n_pos)
        out->otsu_threshold = state->pos[ip];
      if (!isnan (least) && !(least >= out->otsu_threshold))
        out->otsu_threshold = least;
    }
  if (state->n_pos == 0)
    {
      hs_scores_undefined (out, HS_METRIC_OTSU_IOU, HS_REASON_EMPTY_TARGET);
      return;
    }
  for (int u = t + 1; u < 256; u++)
    {
      pred += state->otsu_hist[u];
      hit += state->otsu_hist_g[u];
    }
  uni = pred + state->n_pos - hit;
  hs_scores_set (out, HS_METRIC_OTSU_IOU, (double) hit / (double) uni);
}
