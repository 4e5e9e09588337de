/* hs-raster-contours.c — the contours cv2.findContours(mask, RETR_TREE,
 * CHAIN_APPROX_SIMPLE) returns, as CheXlocalize's cam_to_segmentation uses
 * them (it redraws every contour of more than one point as a filled
 * polygon).
 *
 * Suzuki & Abe's border following (1985) as OpenCV runs it: the raster is
 * framed by one background pixel; a raster scan meets an outer border at a
 * foreground pixel with background on its left (unvisited, value 1) and a
 * hole border at a background pixel whose left neighbour is foreground and
 * not marked as a right edge; each border is followed from there, the first
 * neighbour searched clockwise from the left (outer) or right (hole) for the
 * start, then counter-clockwise from the previous pixel, marking pixels whose
 * right neighbour is background ("right edge", negative) or visited
 * (positive).  CHAIN_APPROX_SIMPLE keeps a pixel when the direction of the
 * step leaving it differs from the one before (the start pixel counts as
 * coming from the opposite of its first step).  Which contour is whose
 * parent does not change the points and is not computed. */
#include "hs-raster-private.h"

#include <string.h>

/* Chain code directions: 0 = +x, then counter-clockwise on screen (y down). */
static const gint code_dx[8] = { 1, 1, 0, -1, -1, -1, 0, 1 };
static const gint code_dy[8] = { 0, -1, -1, -1, 0, 1, 1, 1 };

#define MARK_VISITED     2
#define MARK_RIGHT_EDGE  (-2)

static void
follow_border (gint8 *img, gssize stride, gsize start, gboolean is_hole,
               gint x, gint y, GArray *points)
{
  gssize delta[16];
  gsize i1 = 0, i3, i4 = 0;
  gint s, s_end, prev_s;

  for (guint k = 0; k < 16; k++)
    delta[k] = code_dx[k & 7] + code_dy[k & 7] * stride;

  /* the first non-zero neighbour, clockwise from the left (outer border) or
   * the right (hole border) */
  s_end = s = is_hole ? 0 : 4;
  do
    {
      s = (s - 1) & 7;
      i1 = start + delta[s];
    }
  while (img[i1] == 0 && s != s_end);

  if (s == s_end)   /* a lone pixel: one point */
    {
      gint pt[2] = { x, y };

      img[start] = MARK_RIGHT_EDGE;
      g_array_append_vals (points, pt, 2);
      return;
    }

  i3 = start;
  prev_s = s ^ 4;
  for (;;)
    {
      s_end = s;
      while (s < 15)
        {
          i4 = i3 + delta[++s];
          if (img[i4] != 0)
            break;
        }
      s &= 7;

      /* the right neighbour was passed over as background */
      if ((guint) (s - 1) < (guint) s_end)
        img[i3] = MARK_RIGHT_EDGE;
      else if (img[i3] == 1)
        img[i3] = MARK_VISITED;

      if (s != prev_s)
        {
          gint pt[2] = { x, y };

          g_array_append_vals (points, pt, 2);
        }
      prev_s = s;
      x += code_dx[s];
      y += code_dy[s];

      if (i4 == start && i3 == i1)
        break;
      i3 = i4;
      s = (s + 4) & 7;
    }
}

static void
contour_clear (gpointer data)
{
  HsRasterContour *c = data;

  g_free (c->xy);
}

GArray *
hs_raster_find_contours (const guint8 *mask, guint width, guint height)
{
  GArray *contours = g_array_new (FALSE, FALSE, sizeof (HsRasterContour));
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (gint));
  gsize pw = (gsize) width + 2, ph = (gsize) height + 2;
  g_autofree gint8 *img = NULL;

  g_array_set_clear_func (contours, contour_clear);
  if (mask == NULL || width == 0 || height == 0)
    return contours;

  img = g_malloc0 (pw * ph);
  for (gsize y = 0; y < height; y++)
    for (gsize x = 0; x < width; x++)
      img[(y + 1) * pw + x + 1] = mask[y * width + x] != 0;

  for (gsize y = 1; y + 1 < ph; y++)
    {
      gint prev = 0;

      for (gsize x = 1; x + 1 < pw; x++)
        {
          gint p = img[y * pw + x];
          gboolean is_hole;

          if (p == prev)
            continue;
          if (prev == 0 && p == 1)
            is_hole = FALSE;
          else if (p == 0 && prev >= 1)
            is_hole = TRUE;
          else
            {
              prev = p;
              continue;
            }

          g_array_set_size (points, 0);
          /* the frame shifts coordinates by one */
          follow_border (img, (gssize) pw, y * pw + x - is_hole, is_hole,
                         (gint) (x - is_hole) - 1, (gint) y - 1, points);
          {
            HsRasterContour c = { g_memdup2 (points->data, sizeof (gint) * points->len), points->len / 2 };

            g_array_append_val (contours, c);
          }
          /* the scan goes on from the next pixel, comparing with this one as
           * it is now (the border following may have marked it) */
          prev = img[y * pw + x];
        }
    }
  return contours;
}

void
hs_raster_contours_free (GArray *contours)
{
  if (contours != NULL)
    g_array_unref (contours);
}
