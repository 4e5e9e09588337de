/* hs-contour.c — outlines of binary regions (marching squares) */
#include "hs-contour.h"
#include "hs-limits.h"
#include "hs-overlay.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* Lattice of pixel centres padded by one outside point on each side:
 * lattice point (ii, jj) is pixel (ii − 1, jj − 1).  An edge point is named
 * by the lattice point where its edge starts and its direction. */
#define EDGE_ID(ii, jj, vertical, lw) ((((guint64) (jj) * (lw) + (ii)) << 1) | (vertical))

typedef struct {
  guint64 from, to;
} Segment;

typedef struct {
  const guint8 *mask;
  guint width, height;
  gsize stride;
} Raster;

static inline gboolean
inside (const Raster *r, gint64 ii, gint64 jj)
{
  gint64 x = ii - 1, y = jj - 1;

  if (x < 0 || y < 0 || x >= r->width || y >= r->height)
    return FALSE;
  return r->mask[(gsize) y * r->stride + (gsize) x] != 0;
}

static void
edge_point (guint64 id, guint lw, HsPoint *p)
{
  guint64 lattice = id >> 1;
  double ii = (double) (lattice % lw), jj = (double) (lattice / lw);

  /* lattice point (ii, jj) sits at image (ii − 0.5, jj − 0.5); the point is
   * half-way along its edge. */
  if (id & 1)
    {
      p->x = ii - 0.5;
      p->y = jj;
    }
  else
    {
      p->x = ii;
      p->y = jj - 0.5;
    }
}

/* Open-addressing map edge id → index of the segment starting there. */
typedef struct {
  guint64 *keys;
  guint   *values;
  gsize    mask;
} EdgeMap;

#define EMPTY_KEY G_MAXUINT64

static inline gsize
hash64 (guint64 k)
{
  k ^= k >> 33;
  k *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  k ^= k >> 33;
  return (gsize) k;
}

static void
edge_map_init (EdgeMap *map, gsize n)
{
  gsize cap = 16;

  while (cap < 2 * n)
    cap <<= 1;
  map->keys = g_new (guint64, cap);
  memset (map->keys, 0xff, cap * sizeof (guint64));
  map->values = g_new (guint, cap);
  map->mask = cap - 1;
}

static void
edge_map_insert (EdgeMap *map, guint64 key, guint value)
{
  gsize i = hash64 (key) & map->mask;

  while (map->keys[i] != EMPTY_KEY && map->keys[i] != key)
    i = (i + 1) & map->mask;
  map->keys[i] = key;
  map->values[i] = value;
}

static gboolean
edge_map_lookup (const EdgeMap *map, guint64 key, guint *value)
{
  gsize i = hash64 (key) & map->mask;

  while (map->keys[i] != EMPTY_KEY)
    {
      if (map->keys[i] == key)
        {
          *value = map->values[i];
          return TRUE;
        }
      i = (i + 1) & map->mask;
    }
  return FALSE;
}

static void
edge_map_clear (EdgeMap *map)
{
  g_free (map->keys);
  g_free (map->values);
}

static void
simplify (HsPolyline *line)
{
  HsPoint *p = (HsPoint *) (void *) line->points->data;
  guint n = line->points->len;
  g_autofree gboolean *keep = NULL;
  GArray *out;

  if (n < 3)
    return;
  keep = g_new (gboolean, n);
  for (guint i = 0; i < n; i++)
    {
      const HsPoint *a, *b = &p[i], *c;

      if (!line->closed && (i == 0 || i == n - 1))
        {
          keep[i] = TRUE;
          continue;
        }
      a = &p[(i + n - 1) % n];
      c = &p[(i + 1) % n];
      /* Coordinates are multiples of 0.5: the cross product is exact. */
      keep[i] = (b->x - a->x) * (c->y - b->y) - (b->y - a->y) * (c->x - b->x) != 0;
    }
  out = g_array_sized_new (FALSE, FALSE, sizeof (HsPoint), n);
  for (guint i = 0; i < n; i++)
    if (keep[i])
      g_array_append_val (out, p[i]);
  g_array_unref (line->points);
  line->points = out;
}

void
hs_polyline_free (HsPolyline *line)
{
  if (line == NULL)
    return;
  g_array_unref (line->points);
  g_free (line);
}

GPtrArray *
hs_contour_trace_mask (const guint8 *mask, guint width, guint height, gsize stride,
                       HsContourFlags flags)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_polyline_free);
  g_autoptr(GArray) segments = NULL;
  g_autofree guint8 *used = NULL;
  Raster r = { mask, width, height, stride };
  guint lw = width + 2;
  EdgeMap map;

  g_return_val_if_fail (mask != NULL || width == 0 || height == 0, lines);
  g_return_val_if_fail (stride >= width, lines);

  if (width == 0 || height == 0)
    return lines;

  segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  /* Cells (ii, jj) with corners TL (ii, jj), TR (ii+1, jj), BR (ii+1, jj+1),
   * BL (ii, jj+1); walking the corners clockwise, edge k joins corner k and
   * k+1.  An "exit" edge goes inside → outside, an "entry" edge the other way;
   * each segment runs entry → exit, so neighbouring cells chain up. */
  for (guint jj = 0; jj <= height; jj++)
    {
      for (guint ii = 0; ii <= width; ii++)
        {
          gboolean c[4];
          guint64 e[4];
          int n_in;

          c[0] = inside (&r, ii, jj);
          c[1] = inside (&r, ii + 1, jj);
          c[2] = inside (&r, ii + 1, jj + 1);
          c[3] = inside (&r, ii, jj + 1);
          n_in = c[0] + c[1] + c[2] + c[3];
          if (n_in == 0 || n_in == 4)
            continue;

          e[0] = EDGE_ID (ii, jj, 0, lw);
          e[1] = EDGE_ID (ii + 1, jj, 1, lw);
          e[2] = EDGE_ID (ii, jj + 1, 0, lw);
          e[3] = EDGE_ID (ii, jj, 1, lw);

          if (n_in == 2 && c[0] == c[2])
            {
              /* Saddle: inside corners joined (8-connectivity), so each entry
               * pairs with the exit just before it. */
              for (int k = 0; k < 4; k++)
                if (!c[k] && c[(k + 1) % 4])
                  {
                    Segment s = { e[k], e[(k + 3) % 4] };
                    g_array_append_val (segments, s);
                  }
            }
          else
            {
              Segment s = { 0, 0 };

              for (int k = 0; k < 4; k++)
                {
                  if (!c[k] && c[(k + 1) % 4])
                    s.from = e[k];
                  else if (c[k] && !c[(k + 1) % 4])
                    s.to = e[k];
                }
              g_array_append_val (segments, s);
            }
        }
    }

  if (segments->len == 0)
    return lines;

  edge_map_init (&map, segments->len);
  for (guint i = 0; i < segments->len; i++)
    edge_map_insert (&map, g_array_index (segments, Segment, i).from, i);

  used = g_new0 (guint8, segments->len);
  for (guint i = 0; i < segments->len; i++)
    {
      HsPolyline *line;
      guint cur = i;

      if (used[i])
        continue;
      line = g_new0 (HsPolyline, 1);
      line->points = g_array_new (FALSE, FALSE, sizeof (HsPoint));
      line->closed = TRUE;
      while (!used[cur])
        {
          const Segment *s = &g_array_index (segments, Segment, cur);
          HsPoint p;
          guint next;

          used[cur] = 1;
          edge_point (s->from, lw, &p);
          g_array_append_val (line->points, p);
          if (!edge_map_lookup (&map, s->to, &next))
            {
              /* Cannot happen on a padded lattice; kept for safety. */
              edge_point (s->to, lw, &p);
              g_array_append_val (line->points, p);
              line->closed = FALSE;
              break;
            }
          cur = next;
        }
      if (flags & HS_CONTOUR_SIMPLIFY)
        simplify (line);
      g_ptr_array_add (lines, line);
    }
  edge_map_clear (&map);
  return lines;
}

double
hs_polyline_length (const HsPolyline *line)
{
  const HsPoint *p;
  double len = 0;
  guint n;

  g_return_val_if_fail (line != NULL, 0);
  p = (const HsPoint *) (const void *) line->points->data;
  n = line->points->len;
  for (guint i = 1; i < n; i++)
    len += hypot (p[i].x - p[i - 1].x, p[i].y - p[i - 1].y);
  if (line->closed && n > 1)
    len += hypot (p[0].x - p[n - 1].x, p[0].y - p[n - 1].y);
  return len;
}

/* ---- regions ------------------------------------------------------------ */

const char *
hs_outline_to_string (HsOutline outline)
{
  switch (outline)
    {
    case HS_OUTLINE_NONE:  return "none";
    case HS_OUTLINE_TOP_K: return "top-k";
    case HS_OUTLINE_OTSU:  return "otsu";
    default:               return NULL;
    }
}

gboolean
hs_outline_from_string (const char *name, HsOutline *outline)
{
  g_return_val_if_fail (outline != NULL, FALSE);
  if (name == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (name, "none") == 0)
    *outline = HS_OUTLINE_NONE;
  else if (g_ascii_strcasecmp (name, "top-k") == 0 || g_ascii_strcasecmp (name, "topk") == 0)
    *outline = HS_OUTLINE_TOP_K;
  else if (g_ascii_strcasecmp (name, "otsu") == 0)
    *outline = HS_OUTLINE_OTSU;
  else
    return FALSE;
  return TRUE;
}

/* The k-th smallest (0-based) of a[0..n), reordering a (Hoare's selection). */
static double
select_kth (double *a, gsize n, gsize k)
{
  gsize lo = 0, hi = n - 1;

  while (hi > lo)
    {
      gsize mid = lo + (hi - lo) / 2;
      double x, y, z, pivot;
      gsize i = lo, j = hi;

      x = a[lo], y = a[mid], z = a[hi];
      pivot = (x < y) ? ((y < z) ? y : (x < z ? z : x)) : ((x < z) ? x : (y < z ? z : y));
      while (i <= j)
        {
          while (a[i] < pivot)
            i++;
          while (a[j] > pivot)
            j--;
          if (i <= j)
            {
              double t = a[i];
              a[i] = a[j];
              a[j] = t;
              i++;
              if (j == 0)
                break;
              j--;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        return a[k];
    }
  return a[k];
}

double
hs_contour_topk_threshold (const double *values, gsize n, double k)
{
  g_autofree double *copy = NULL;
  gsize rank;

  g_return_val_if_fail (values != NULL && n > 0, NAN);

  if (!(k > 0))
    k = 1e-9;
  if (k > 100)
    k = 100;
  /* ⌈k·n/100⌉ with a guard against 10·n/100 landing just above an integer */
  rank = (gsize) ceil (k * (double) n / 100.0 - 1e-9);
  rank = CLAMP (rank, 1, n);
  copy = g_memdup2 (values, n * sizeof (double));
  /* rank-th largest = (n − rank)-th smallest, 0-based */
  return select_kth (copy, n, n - rank);
}

guint
hs_contour_otsu_threshold (const guint8 *u, gsize n)
{
  guint64 hist[256] = { 0 };
  double total = 0, sum_all = 0, w0 = 0, sum0 = 0, best = -1;
  guint best_t = 0;

  g_return_val_if_fail (u != NULL || n == 0, 0);

  for (gsize i = 0; i < n; i++)
    hist[u[i]]++;
  for (guint v = 0; v < 256; v++)
    {
      total += (double) hist[v];
      sum_all += (double) v * (double) hist[v];
    }
  if (total == 0)
    return 0;
  for (guint t = 0; t < 256; t++)
    {
      double p0, p1, mu0, mu1, var;

      w0 += (double) hist[t];
      sum0 += (double) t * (double) hist[t];
      if (w0 == 0 || w0 == total)
        continue;
      p0 = w0 / total;
      p1 = 1.0 - p0;
      mu0 = sum0 / w0;
      mu1 = (sum_all - sum0) / (total - w0);
      var = p0 * p1 * (mu0 - mu1) * (mu0 - mu1);
      if (var > best)
        {
          best = var;
          best_t = t;
        }
    }
  return best_t;
}

guint8 *
hs_contour_region_mask (const double *grid, guint w, guint h,
                        guint out_w, guint out_h, HsUpsample upsample,
                        HsOutline outline, double k, GError **error)
{
  const HsLimits *limits = hs_limits_get ();
  g_autofree double *s = NULL;
  guint8 *mask;
  guint64 n = (guint64) out_w * out_h;

  g_return_val_if_fail (grid != NULL, NULL);

  if (w == 0 || h == 0 || out_w == 0 || out_h == 0)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("empty grid or output (%u × %u → %u × %u)"), w, h, out_w, out_h);
      return NULL;
    }
  if (n > limits->max_image_pixels || (guint64) w * h > limits->max_grid_cells)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_TOO_LARGE,
                   _("outline of %u × %u pixels is over the limits"), out_w, out_h);
      return NULL;
    }
  for (guint64 i = 0; i < (guint64) w * h; i++)
    if (!isfinite (grid[i]))
      {
        g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                     _("map cell (row %" PRIu64 ", column %" PRIu64 ") is not finite"), i / w, i % w);
        return NULL;
      }

  s = g_try_new (double, n);
  mask = g_try_new0 (guint8, n);
  if (s == NULL || mask == NULL)
    {
      g_free (mask);
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_TOO_LARGE,
                   _("out of memory for a %u × %u outline"), out_w, out_h);
      return NULL;
    }
  hs_resample (grid, w, h, s, out_w, out_h, upsample);

  if (outline == HS_OUTLINE_TOP_K)
    {
      double q = hs_contour_topk_threshold (s, n, k);
      for (guint64 i = 0; i < n; i++)
        mask[i] = s[i] >= q;
    }
  else if (outline == HS_OUTLINE_OTSU)
    {
      double lo = s[0], hi = s[0];
      guint t;

      for (guint64 i = 1; i < n; i++)
        {
          lo = MIN (lo, s[i]);
          hi = MAX (hi, s[i]);
        }
      /* u = floor(255·n), n = (s − min)/(max − min), kept in the mask buffer */
      for (guint64 i = 0; i < n; i++)
        {
          double nv = hi > lo ? (s[i] - lo) / (hi - lo) : 0.0;
          mask[i] = (guint8) CLAMP (floor (255.0 * nv), 0, 255);
        }
      t = hs_contour_otsu_threshold (mask, n);
      for (guint64 i = 0; i < n; i++)
        mask[i] = mask[i] > t;
    }
  return mask;
}

GPtrArray *
hs_contour_trace_image (HsImage *mask)
{
  guint w, h, channels, colour;
  const guint16 *data;
  g_autofree guint8 *bits = NULL;

  g_return_val_if_fail (mask != NULL, NULL);
  w = hs_image_get_width (mask);
  h = hs_image_get_height (mask);
  channels = hs_image_get_channels (mask);
  colour = channels == 2 || channels == 4 ? channels - 1 : channels;
  data = hs_image_peek_data (mask);
  bits = g_try_malloc ((gsize) w * h);
  if (bits == NULL)
    return NULL;
  for (gsize p = 0; p < (gsize) w * h; p++)
    {
      guint8 on = 0;
      for (guint c = 0; c < colour; c++)
        on |= data[p * channels + c] != 0;
      bits[p] = on;
    }
  return hs_contour_trace_mask (bits, w, h, w, HS_CONTOUR_SIMPLIFY);
}
