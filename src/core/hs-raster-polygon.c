/* hs-raster-polygon.c — the pixels PIL's ImageDraw.polygon(xy, fill=1,
 * outline=1) sets on a mode "1" image (Pillow 9.4, as CheXlocalize's
 * cam_to_segmentation draws each contour).  With outline equal to fill,
 * Pillow draws only the filled polygon, and its filled polygon is not the
 * even-odd set of pixel centres: it is a scan-line fill over the integer
 * rows ymin … ymax inclusive where
 *  - consecutive horizontal edges running the same way merge into one, and
 *    every horizontal edge is drawn as a run of its own;
 *  - each other edge meets a row at x = (y − y0)·dx + x0 in single
 *    precision; an edge ending on the row (not the last row) counts twice;
 *  - where an edge meets the row at a whole number and an earlier edge of
 *    the same slope sign starts (or ends) there too, a corner fix-up
 *    overwrites the k-th crossing of the row (k = that earlier edge's
 *    index, exactly as Pillow does) with a value taken from the next (or,
 *    on the last row, the previous) row;
 *  - the sorted crossings pair up into runs [round-half-up(a),
 *    round-half-down(b)], clipped to the image.
 * Every rounding and the float arithmetic follow that order, so thin
 * diagonal contours come out pixel for pixel as Pillow's. */
#include "hs-raster-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  gint  x0, y0;
  gint  xmin, ymin, xmax, ymax;
  float dx;
} Edge;

static void
edge_init (Edge *e, gint x0, gint y0, gint x1, gint y1)
{
  e->xmin = MIN (x0, x1);
  e->xmax = MAX (x0, x1);
  e->ymin = MIN (y0, y1);
  e->ymax = MAX (y0, y1);
  e->dx = y0 == y1 ? 0.0f : (float) (x1 - x0) / (float) (y1 - y0);
  e->x0 = x0;
  e->y0 = y0;
}

static inline float
edge_x (const Edge *e, gint y)
{
  float t = (float) (y - e->y0) * e->dx;

  return t + (float) e->x0;
}

static void
hline (guint8 *image, guint width, guint height, gint x0, gint y, gint x1)
{
  if (y < 0 || y >= (gint) height)
    return;
  if (x0 > x1)
    {
      gint t = x0;
      x0 = x1;
      x1 = t;
    }
  if (x0 < 0)
    x0 = 0;
  else if (x0 >= (gint) width)
    return;
  if (x1 < 0)
    return;
  if (x1 >= (gint) width)
    x1 = (gint) width - 1;
  if (x0 <= x1)
    memset (image + (gsize) y * width + x0, 1, (gsize) (x1 - x0 + 1));
}

/* Rounding away from / towards zero at halves, symmetric around 0. */
static inline gint
round_up (float f)
{
  return (gint) (f >= 0.0 ? floor (f + 0.5f) : -floor (fabs (f) + 0.5f));
}

static inline gint
round_down (float f)
{
  return (gint) (f >= 0.0 ? ceil (f - 0.5f) : -ceil (fabs (f) - 0.5f));
}

static int
float_cmp (const void *a, const void *b)
{
  float d = *(const float *) a - *(const float *) b;

  return d < 0 ? -1 : d > 0 ? 1 : 0;
}

static gint
by_ymin (gconstpointer a, gconstpointer b, gpointer data)
{
  Edge * const *table = data;
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  gint ya = table[ia]->ymin, yb = table[ib]->ymin;

  return ya != yb ? (ya < yb ? -1 : 1) : (ia < ib ? -1 : ia > ib);
}

void
hs_raster_fill_polygon (guint8 *image, guint width, guint height, const gint *xy, guint n)
{
  g_autofree Edge *e = NULL;
  g_autofree Edge **table = NULL;
  g_autofree float *xx = NULL;
  g_autofree guint *order = NULL;
  g_autofree guint *active = NULL;
  guint n_edges = 0, n_table = 0, n_active = 0, next = 0;
  gint ymin = (gint) height - 1, ymax = 0;

  g_return_if_fail (image != NULL && xy != NULL);
  if (n == 0)
    return;

  e = g_new0 (Edge, n);
  for (guint i = 0; i + 1 < n; i++)
    {
      gint x0 = xy[2 * i], y0 = xy[2 * i + 1], x1 = xy[2 * i + 2], y1 = xy[2 * i + 3];

      if (y0 == y1 && i != 0 && y0 == xy[2 * i - 1] && n_edges > 0)
        {
          /* a horizontal edge right after another: same direction merges */
          Edge *last = &e[n_edges - 1];
          gint xp = xy[2 * i - 2];

          if (x1 > x0 && x0 > xp)
            {
              last->xmax = x1;
              continue;
            }
          if (x1 < x0 && x0 < xp)
            {
              last->xmin = x1;
              continue;
            }
        }
      edge_init (&e[n_edges++], x0, y0, x1, y1);
    }
  if (xy[2 * (n - 1)] != xy[0] || xy[2 * (n - 1) + 1] != xy[1])
    edge_init (&e[n_edges++], xy[2 * (n - 1)], xy[2 * (n - 1) + 1], xy[0], xy[1]);

  table = g_new (Edge *, n_edges);
  for (guint i = 0; i < n_edges; i++)
    {
      ymin = MIN (ymin, e[i].ymin);
      ymax = MAX (ymax, e[i].ymax);
      if (e[i].ymin == e[i].ymax)
        {
          hline (image, width, height, e[i].xmin, e[i].ymin, e[i].xmax);
          continue;
        }
      table[n_table++] = &e[i];
    }
  ymin = MAX (ymin, 0);
  ymax = MIN (ymax, (gint) height);

  xx = g_new0 (float, 2 * (gsize) n_table + 1);
  /* Pillow visits every edge on every row; only the edges spanning the row
   * add crossings, so they are kept in an active list in table order (the
   * order of the crossings and the index k of the corner fix-up stay
   * Pillow's): added when the row reaches their ymin, dropped after ymax. */
  order = g_new (guint, n_table);
  active = g_new (guint, n_table);
  for (guint i = 0; i < n_table; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n_table, sizeof (guint), by_ymin, table);
  for (gint y = ymin; y <= ymax; y++)
    {
      guint j = 0, n_kept = 0;

      for (guint a = 0; a < n_active; a++)
        if (table[active[a]]->ymax >= y)
          active[n_kept++] = active[a];
      n_active = n_kept;
      for (; next < n_table && table[order[next]]->ymin <= y; next++)
        {
          guint idx = order[next], pos = n_active;

          if (table[idx]->ymax < y)
            continue;
          while (pos > 0 && active[pos - 1] > idx)
            {
              active[pos] = active[pos - 1];
              pos--;
            }
          active[pos] = idx;
          n_active++;
        }

      for (guint a = 0; a < n_active; a++)
        {
          guint i = active[a];
          const Edge *cur = table[i];

          xx[j++] = edge_x (cur, y);
          if (y == cur->ymax && y < ymax)
            {
              xx[j] = xx[j - 1];
              j++;
            }
          else if (cur->dx != 0 && roundf (xx[j - 1]) == xx[j - 1])
            {
              /* earlier edges meeting this one at a corner on this row
               * span the row, so they are among the active ones */
              for (guint b = 0; b < a; b++)
                {
                  guint k = active[b];
                  const Edge *other = table[k];

                  if ((cur->dx > 0 && other->dx <= 0) || (cur->dx < 0 && other->dx >= 0))
                    continue;
                  if (((y == cur->ymin && y == other->ymin) || (y == cur->ymax && y == other->ymax))
                      && xx[j - 1] == edge_x (other, y))
                    {
                      gint offset = y == ymax ? -1 : 1;
                      float fa = edge_x (cur, y + offset), fb = edge_x (other, y + offset);

                      if (y == cur->ymax)
                        xx[k] = cur->dx > 0 ? (float) (fmax (fa, fb) + 1) : (float) (fmin (fa, fb) - 1);
                      else
                        xx[k] = cur->dx > 0 ? (float) fmin (fa, fb) : (float) (fmax (fa, fb) + 1);
                      break;
                    }
                }
            }
        }
      qsort (xx, j, sizeof (float), float_cmp);
      for (guint i = 1; i < j; i += 2)
        hline (image, width, height, round_up (xx[i - 1]), y, round_down (xx[i]));
    }
}
