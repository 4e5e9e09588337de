/* hs-metrics-chexlocalize.c — the chexlocalize protocol's IoU (Saporta et
 * al., CheXlocalize): min–max normalise, binarise with Otsu exactly as
 * otsu_iou (u > t), fill the holes of the binary mask (what CheXlocalize gets
 * by filling the external contours), IoU with G; undefined when the
 * prediction or the target is empty.  With a fixed threshold the normalised
 * map is binarised at n ≥ threshold and, as in CheXlocalize's threshold
 * branch, not hole-filled. */
#include "hs-metrics-private.h"

#include <string.h>

typedef struct {
  guint x, y;
} Seed;

/* 0 = unvisited background, 1 = foreground, 2 = background reached from the
 * border.  Scanline flood fill, 4-connected: memory grows with the number
 * of runs, not pixels. */
void
hs_metrics_fill_holes (guint8 *mask, guint width, guint height)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Seed));
  gsize n = (gsize) width * height;

  if (width == 0 || height == 0)
    return;
  for (gsize i = 0; i < n; i++)
    mask[i] = mask[i] ? 1 : 0;

  for (guint x = 0; x < width; x++)
    {
      Seed top = { x, 0 }, bottom = { x, height - 1 };
      g_array_append_val (stack, top);
      g_array_append_val (stack, bottom);
    }
  for (guint y = 0; y < height; y++)
    {
      Seed left = { 0, y }, right = { width - 1, y };
      g_array_append_val (stack, left);
      g_array_append_val (stack, right);
    }

  while (stack->len > 0)
    {
      Seed seed = g_array_index (stack, Seed, stack->len - 1);
      guint8 *row = mask + (gsize) seed.y * width;
      guint l, r;

      g_array_set_size (stack, stack->len - 1);
      if (row[seed.x] != 0)
        continue;
      l = r = seed.x;
      while (l > 0 && row[l - 1] == 0)
        l--;
      while (r + 1 < width && row[r + 1] == 0)
        r++;
      memset (row + l, 2, r - l + 1);
      for (int dy = -1; dy <= 1; dy += 2)
        {
          gint64 ny = (gint64) seed.y + dy;
          const guint8 *nrow;
          gboolean in_run = FALSE;

          if (ny < 0 || ny >= height)
            continue;
          nrow = mask + (gsize) ny * width;
          for (guint x = l; x <= r; x++)
            {
              if (nrow[x] == 0)
                {
                  if (!in_run)
                    {
                      Seed s = { x, (guint) ny };
                      g_array_append_val (stack, s);
                      in_run = TRUE;
                    }
                }
              else
                in_run = FALSE;
            }
        }
    }

  for (gsize i = 0; i < n; i++)
    mask[i] = mask[i] != 2;
}

void
hs_metrics_chexlocalize_iou (const HsEvalState *state, double threshold,
                             guint8 *pred, HsScores *out)
{
  guint64 n_pred = 0, hit = 0;

  if (isnan (threshold))
    {
      guint t = (guint) MAX (out->otsu_level, 0);

      for (gsize i = 0; i < state->n; i++)
        pred[i] = hs_metrics_otsu_u (state->s[i], state->min, state->max) > t;
      hs_metrics_fill_holes (pred, state->width, state->height);
    }
  else
    {
      for (gsize i = 0; i < state->n; i++)
        {
          pred[i] = hs_metrics_normalise (state->s[i], state->min, state->max) >= threshold;
        }
    }

  for (gsize i = 0; i < state->n; i++)
    {
      n_pred += pred[i];
      hit += pred[i] & state->g[i];
    }
  if (state->n_pos == 0)
    hs_scores_undefined (out, HS_METRIC_OTSU_IOU, HS_REASON_EMPTY_TARGET);
  else if (n_pred == 0)
    hs_scores_undefined (out, HS_METRIC_OTSU_IOU, HS_REASON_EMPTY_PRED);
  else
    hs_scores_set (out, HS_METRIC_OTSU_IOU, (double) hit / (double) (n_pred + state->n_pos - hit));
}
