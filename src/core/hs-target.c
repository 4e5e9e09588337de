/* hs-target.c — evaluation grids and ground-truth targets (metrics.md) */
#include "hs-target.h"
#include "hs-limits.h"
#include "hs-raster-private.h"
#include "hs-resample-private.h"
#include "hs-i18n-private.h"
#include "hs-big-buffer-private.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-target-error-quark, hs_target_error)

struct _HsTarget {
  HsEvalGrid grid;
  guint8    *mask;
  guint64    count;
};

static const char * const protocol_names[HS_N_PROTOCOLS] = { "default", "gloria", "chexlocalize" };

const char *
hs_protocol_to_string (HsProtocol protocol)
{
  if ((guint) protocol >= HS_N_PROTOCOLS)
    return NULL;
  return protocol_names[protocol];
}

gboolean
hs_protocol_from_string (const char *name, HsProtocol *protocol)
{
  g_return_val_if_fail (protocol != NULL, FALSE);

  for (guint i = 0; name != NULL && i < HS_N_PROTOCOLS; i++)
    if (g_ascii_strcasecmp (name, protocol_names[i]) == 0)
      {
        *protocol = (HsProtocol) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
hs_eval_grid_init (HsEvalGrid *grid, HsProtocol protocol,
                   guint image_width, guint image_height,
                   guint eval_size, GError **error)
{
  const HsLimits *limits = hs_limits_get ();

  g_return_val_if_fail (grid != NULL, FALSE);

  memset (grid, 0, sizeof *grid);
  if ((guint) protocol >= HS_N_PROTOCOLS)
    {
      g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID, _("unknown protocol %d"), protocol);
      return FALSE;
    }
  if (image_width == 0 || image_height == 0)
    {
      g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID,
                   _("image size %u × %u is empty"), image_width, image_height);
      return FALSE;
    }
  if ((guint64) image_width * image_height > limits->max_image_pixels)
    {
      g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_TOO_LARGE,
                   _("image size %u × %u is over the limit of %" PRIu64 " pixels"),
                   image_width, image_height, limits->max_image_pixels);
      return FALSE;
    }

  grid->protocol = protocol;
  grid->image_width = image_width;
  grid->image_height = image_height;

  switch (protocol)
    {
    case HS_PROTOCOL_DEFAULT:
    case HS_PROTOCOL_CHEXLOCALIZE:
      grid->width = image_width;
      grid->height = image_height;
      if (protocol == HS_PROTOCOL_DEFAULT && eval_size > 0)
        {
          double longest = MAX (image_width, image_height);
          double w = round ((double) image_width * eval_size / longest);
          double h = round ((double) image_height * eval_size / longest);

          if ((guint64) eval_size * eval_size > limits->max_image_pixels)
            {
              g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_TOO_LARGE,
                           _("evaluation size %u is over the limit of %" PRIu64 " pixels"),
                           eval_size, limits->max_image_pixels);
              return FALSE;
            }
          grid->width = (guint) MAX (w, 1.0);
          grid->height = (guint) MAX (h, 1.0);
        }
      grid->scale_x = (double) grid->width / image_width;
      grid->scale_y = (double) grid->height / image_height;
      grid->resized_width = grid->width;
      grid->resized_height = grid->height;
      break;

    case HS_PROTOCOL_GLORIA:
      /* GLoRIA's resize_img: the longest side becomes 256, the other
       * int(side · (256 / longest)); a square image takes the first branch
       * (height is the "max" dimension), which gives 256 × 256 too. */
      if (image_height >= image_width)
        {
          grid->resized_height = HS_GLORIA_RESIZE;
          grid->resized_width = (guint) ((double) image_width * ((double) HS_GLORIA_RESIZE / image_height));
        }
      else
        {
          grid->resized_width = HS_GLORIA_RESIZE;
          grid->resized_height = (guint) ((double) image_height * ((double) HS_GLORIA_RESIZE / image_width));
        }
      grid->resized_width = MAX (grid->resized_width, 1);
      grid->resized_height = MAX (grid->resized_height, 1);
      grid->pad_x = (HS_GLORIA_RESIZE - grid->resized_width) / 2;
      grid->pad_y = (HS_GLORIA_RESIZE - grid->resized_height) / 2;
      grid->width = HS_GLORIA_CROP;
      grid->height = HS_GLORIA_CROP;
      grid->scale_x = (double) grid->resized_width / image_width;
      grid->scale_y = (double) grid->resized_height / image_height;
      grid->offset_x = (double) grid->pad_x - (HS_GLORIA_RESIZE - HS_GLORIA_CROP) / 2;
      grid->offset_y = (double) grid->pad_y - (HS_GLORIA_RESIZE - HS_GLORIA_CROP) / 2;
      break;
    }
  return TRUE;
}

gsize
hs_eval_grid_n_pixels (const HsEvalGrid *grid)
{
  g_return_val_if_fail (grid != NULL, 0);
  return (gsize) grid->width * grid->height;
}

/* torch's CPU nearest index (UpSample.h nearest_neighbor_compute_source_index):
 * the identity for equal sizes, otherwise floor of dst · (float) (n / out) in
 * float, clipped to n − 1. */
static void
nearest_float_index (guint n, guint out, guint *index)
{
  float scale = (float) n / (float) out;

  for (guint d = 0; d < out; d++)
    {
      float f = (float) d * scale;

      index[d] = n == out ? d : MIN ((guint) floorf (f), n - 1);
    }
}

void
hs_eval_grid_resample (const HsEvalGrid *grid, const double *values,
                       guint w, guint h, HsUpsample mode, double *out)
{
  g_return_if_fail (grid != NULL && values != NULL && out != NULL && w > 0 && h > 0);

  switch (grid->protocol)
    {
    case HS_PROTOCOL_DEFAULT:
      hs_resample (values, w, h, out, grid->width, grid->height, mode);
      break;
    case HS_PROTOCOL_CHEXLOCALIZE:
      hs_resample_torch_bilinear (values, w, h, grid->width, grid->height, out);
      break;
    case HS_PROTOCOL_GLORIA:
      {
        guint xs[HS_GLORIA_CROP], ys[HS_GLORIA_CROP];

        /* McInerney et al.: torch.nn.Upsample(mode='nearest') on the CPU,
         * src = min(floor(dst · s), n − 1) with s = n/224 and the product
         * in single precision — one row/column off the exact floor(dst·n/224)
         * for n = 62, 76, 124, 152. */
        nearest_float_index (w, grid->width, xs);
        nearest_float_index (h, grid->height, ys);
        for (guint y = 0; y < grid->height; y++)
          {
            const double *row = values + (gsize) ys[y] * w;
            double *dst = out + (gsize) y * grid->width;

            for (guint x = 0; x < grid->width; x++)
              dst[x] = row[xs[x]];
          }
      }
      break;
    }
}

/* A 2048² mask is 4 MB: on huge pages it is two page faults instead of
 * ~1 400 (the boxes' rows read and written, the rest first read by the
 * scoring pass), 1.5 ms of a `score` process's CPU (docs/performance.md).
 * Aborts when the memory is not there, as the g_malloc0 it replaces. */
static guint8 *
new_mask (gsize n_pixels)
{
  guint8 *mask = hs_big_buffer_try_alloc (n_pixels);

  if (mask == NULL)
    g_error ("hs_target_new: out of memory for a %" G_GSIZE_FORMAT "-byte mask", n_pixels);
  return mask;
}

HsTarget *
hs_target_new (const HsEvalGrid *grid)
{
  HsTarget *target;

  g_return_val_if_fail (grid != NULL && grid->width > 0 && grid->height > 0, NULL);

  target = g_new0 (HsTarget, 1);
  target->grid = *grid;
  target->mask = new_mask (hs_eval_grid_n_pixels (grid));
  memset (target->mask, 0, hs_eval_grid_n_pixels (grid));
  return target;
}

HsTarget *
hs_target_copy (const HsTarget *target)
{
  HsTarget *copy;

  g_return_val_if_fail (target != NULL, NULL);

  copy = g_new0 (HsTarget, 1);
  copy->grid = target->grid;
  copy->mask = new_mask (hs_eval_grid_n_pixels (&target->grid));
  memcpy (copy->mask, target->mask, hs_eval_grid_n_pixels (&target->grid));
  copy->count = target->count;
  return copy;
}

void
hs_target_free (HsTarget *target)
{
  if (target == NULL)
    return;
  g_free (target->mask);
  g_free (target);
}

/* Image x → continuous grid x (default and chexlocalize; gloria boxes go
 * through hs_eval_grid_gloria_box). */
static double
to_grid (double v, guint image_size, guint grid_size)
{
  if (grid_size == image_size)
    return v;
  return v * grid_size / image_size;
}

/* First integer i ≥ 0 with i + 0.5 ≥ edge, clamped to [0, n]. */
static guint
first_at_or_after (double edge, guint n)
{
  double c;

  if (edge <= 0.5)
    return 0;
  if (edge > (double) n + 0.5)
    return n;
  c = ceil (edge - 0.5);
  while (c > 0 && (c - 1.0) + 0.5 >= edge)
    c -= 1.0;
  while (c + 0.5 < edge)
    c += 1.0;
  return (guint) MIN (c, (double) n);
}

static void
fill_rect (HsTarget *target, guint x0, guint x1, guint y0, guint y1)
{
  guint W = target->grid.width;

  for (guint y = y0; y < y1; y++)
    {
      guint8 *row = target->mask + (gsize) y * W;

      for (guint x = x0; x < x1; x++)
        {
          target->count += row[x] == 0;
          row[x] = 1;
        }
    }
}

/* Whether some pixel centre i + 0.5 lies in [lo, hi) with 0 ≤ i < n. */
static gboolean
centre_inside (double lo, double hi, guint n)
{
  return first_at_or_after (lo, n) < first_at_or_after (hi, n);
}

gboolean
hs_box_check (const HsBox *box, guint image_width, guint image_height, GError **error)
{
  g_return_val_if_fail (box != NULL, FALSE);

  if (!isfinite (box->x1) || !isfinite (box->y1) || !isfinite (box->x2) || !isfinite (box->y2) ||
      box->x2 <= box->x1 || box->y2 <= box->y1)
    {
      g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID,
                   _("empty box [%g, %g, %g, %g]: needs x1 < x2 and y1 < y2"),
                   box->x1, box->y1, box->x2, box->y2);
      return FALSE;
    }
  if (image_width == 0 || image_height == 0)
    return TRUE;
  if (box->x1 < 0 || box->y1 < 0 || box->x2 > image_width || box->y2 > image_height)
    {
      g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID,
                   _("box [%g, %g, %g, %g] reaches outside the %u × %u image"),
                   box->x1, box->y1, box->x2, box->y2, image_width, image_height);
      return FALSE;
    }
  if (!centre_inside (box->x1, box->x2, image_width) || !centre_inside (box->y1, box->y2, image_height))
    {
      g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID,
                   _("box [%g, %g, %g, %g] has no pixel of the %u × %u image inside (no pixel "
                     "centre lies in it)"),
                   box->x1, box->y1, box->x2, box->y2, image_width, image_height);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_region_check_boxes (const HsRegion *region, guint image_width, guint image_height,
                       GError **error)
{
  g_return_val_if_fail (region != NULL, FALSE);

  for (guint i = 0; region->boxes != NULL && i < region->boxes->len; i++)
    {
      g_autoptr(GError) local_error = NULL;

      if (!hs_box_check (&g_array_index (region->boxes, HsBox, i), image_width, image_height,
                         &local_error))
        {
          g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID, _("region \"%s\": %s"),
                       region->name, local_error->message);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
hs_target_add_box (HsTarget *target, const HsBox *box, GError **error)
{
  const HsEvalGrid *g;
  double x1, y1, x2, y2;

  g_return_val_if_fail (target != NULL && box != NULL, FALSE);

  g = &target->grid;
  if (!isfinite (box->x1) || !isfinite (box->y1) || !isfinite (box->x2) || !isfinite (box->y2))
    {
      g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID,
                   _("box [%g, %g, %g, %g] has a non-finite corner"), box->x1, box->y1, box->x2, box->y2);
      return FALSE;
    }
  if (box->x2 < box->x1 || box->y2 < box->y1)
    {
      g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID,
                   _("box [%g, %g, %g, %g] has x2 < x1 or y2 < y1"), box->x1, box->y1, box->x2, box->y2);
      return FALSE;
    }

  if (g->protocol == HS_PROTOCOL_GLORIA)
    {
      guint crop[4];

      if (hs_eval_grid_gloria_box (g, box, crop))
        fill_rect (target, crop[0], crop[2] + 1, crop[1], crop[3] + 1);
      return TRUE;
    }

  x1 = to_grid (box->x1, g->image_width, g->width);
  x2 = to_grid (box->x2, g->image_width, g->width);
  y1 = to_grid (box->y1, g->image_height, g->height);
  y2 = to_grid (box->y2, g->image_height, g->height);

  fill_rect (target,
             first_at_or_after (x1, g->width), first_at_or_after (x2, g->width),
             first_at_or_after (y1, g->height), first_at_or_after (y2, g->height));
  return TRUE;
}

/* Python's slice start:stop on a sequence of n (negative counts from the
 * end, both clipped to [0, n]) as the half-open [lo, hi). */
static void
python_slice (double start, double stop, guint n, guint *lo, guint *hi)
{
  double a = CLAMP (start, -1e15, 1e15), b = CLAMP (stop, -1e15, 1e15);

  if (a < 0)
    a += n;
  if (b < 0)
    b += n;
  a = CLAMP (a, 0.0, (double) n);
  b = CLAMP (b, 0.0, (double) n);
  *lo = (guint) a;
  *hi = (guint) MAX (a, b);
}

gboolean
hs_eval_grid_gloria_box (const HsEvalGrid *grid, const HsBox *box, guint out[4])
{
  guint c0, c1, r0, r1, rw, rh;
  gint64 shift_x, shift_y, x_lo = G_MAXINT64, x_hi = -1, y_lo = G_MAXINT64, y_hi = -1;
  g_autofree guint8 *resized = NULL;

  g_return_val_if_fail (grid != NULL && box != NULL && out != NULL, FALSE);
  g_return_val_if_fail (grid->protocol == HS_PROTOCOL_GLORIA, FALSE);

  if (!isfinite (box->x1) || !isfinite (box->y1) || !isfinite (box->x2) || !isfinite (box->y2))
    return FALSE;
  /* bbox_to_mask: box_mask[y1:y2 + 1, x1:x2 + 1] = 1 */
  python_slice (floor (box->x1), floor (box->x2) + 1, grid->image_width, &c0, &c1);
  python_slice (floor (box->y1), floor (box->y2) + 1, grid->image_height, &r0, &r1);
  /* normalize(): (m − min)/(max − min) is 0/0 for an empty or a full mask,
   * and NaN cast to uint8 is 0 */
  if (c0 >= c1 || r0 >= r1
      || (c0 == 0 && c1 == grid->image_width && r0 == 0 && r1 == grid->image_height))
    return FALSE;

  rw = grid->resized_width;
  rh = grid->resized_height;
  resized = g_malloc ((gsize) rw * rh);
  hs_resize_area_rect_u8 (grid->image_width, grid->image_height, c0, c1, r0, r1, resized, rw, rh);
  /* padded position minus the crop offset (256 − 224)/2 */
  shift_x = (gint64) grid->pad_x - (HS_GLORIA_RESIZE - HS_GLORIA_CROP) / 2;
  shift_y = (gint64) grid->pad_y - (HS_GLORIA_RESIZE - HS_GLORIA_CROP) / 2;
  for (guint y = 0; y < rh; y++)
    {
      gint64 cy = (gint64) y + shift_y;

      if (cy < 0 || cy >= HS_GLORIA_CROP)
        continue;
      for (guint x = 0; x < rw; x++)
        {
          gint64 cx = (gint64) x + shift_x;

          /* Normalize((0.5,), (0.5,)) of v/255 is > 0 exactly for v ≥ 128 */
          if (cx < 0 || cx >= HS_GLORIA_CROP || resized[(gsize) y * rw + x] < 128)
            continue;
          x_lo = MIN (x_lo, cx);
          x_hi = MAX (x_hi, cx);
          y_lo = MIN (y_lo, cy);
          y_hi = MAX (y_hi, cy);
        }
    }
  if (x_hi < 0)
    return FALSE;
  out[0] = (guint) x_lo;
  out[1] = (guint) y_lo;
  out[2] = (guint) x_hi;
  out[3] = (guint) y_hi;
  return TRUE;
}

gboolean
hs_target_add_boxes (HsTarget *target, const HsBox *boxes, guint n_boxes, GError **error)
{
  g_return_val_if_fail (target != NULL && (boxes != NULL || n_boxes == 0), FALSE);

  for (guint i = 0; i < n_boxes; i++)
    if (!hs_target_add_box (target, &boxes[i], error))
      return FALSE;
  return TRUE;
}

static inline gboolean
mask_pixel_on (const guint16 *data, guint channels, gsize index)
{
  const guint16 *p = data + index * channels;

  switch (channels)
    {
    case 1:
    case 2:
      return p[0] != 0;
    default:
      return p[0] != 0 || p[1] != 0 || p[2] != 0;
    }
}

gboolean
hs_target_add_mask (HsTarget *target, const HsImage *mask, GError **error)
{
  const HsEvalGrid *g;
  guint mw, mh, channels;
  const guint16 *data;
  g_autofree guint *xs = NULL;
  guint span_w, span_h;   /* the part of the grid the mask is resampled onto */
  gint shift_x, shift_y;  /* grid position of that part's origin             */

  g_return_val_if_fail (target != NULL && mask != NULL, FALSE);

  g = &target->grid;
  mw = hs_image_get_width (mask);
  mh = hs_image_get_height (mask);
  channels = hs_image_get_channels (mask);
  data = hs_image_peek_data (mask);
  if (mw == 0 || mh == 0 || data == NULL)
    {
      g_set_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID, _("mask is empty"));
      return FALSE;
    }

  if (g->protocol == HS_PROTOCOL_GLORIA)
    {
      /* The mask covers the resized image, which sits at offset − pad in the crop. */
      span_w = g->resized_width;
      span_h = g->resized_height;
      shift_x = (gint) lround (g->offset_x);
      shift_y = (gint) lround (g->offset_y);
    }
  else
    {
      span_w = g->width;
      span_h = g->height;
      shift_x = shift_y = 0;
    }

  xs = g_new (guint, g->width);
  for (guint x = 0; x < g->width; x++)
    {
      gint64 mx = hs_nearest_index_shifted (x, shift_x, mw, span_w);

      xs[x] = mx < 0 ? G_MAXUINT : (guint) mx;
    }
  for (guint y = 0; y < g->height; y++)
    {
      gint64 my = hs_nearest_index_shifted (y, shift_y, mh, span_h);
      guint8 *row;

      if (my < 0)
        continue;
      row = target->mask + (gsize) y * g->width;
      for (guint x = 0; x < g->width; x++)
        if (xs[x] != G_MAXUINT && row[x] == 0
            && mask_pixel_on (data, channels, (gsize) my * mw + xs[x]))
          {
            row[x] = 1;
            target->count++;
          }
    }
  return TRUE;
}

gboolean
hs_target_add_region_loaded (HsTarget *target, const HsRegion *region, const HsImage *mask,
                             GError **error)
{
  g_return_val_if_fail (target != NULL && region != NULL, FALSE);

  if (!hs_region_check_boxes (region, target->grid.image_width, target->grid.image_height, error))
    return FALSE;
  if (region->boxes != NULL
      && !hs_target_add_boxes (target, (const HsBox *) (void *) region->boxes->data,
                               region->boxes->len, error))
    return FALSE;
  return mask == NULL || hs_target_add_mask (target, mask, error);
}

const HsEvalGrid *
hs_target_get_grid (const HsTarget *target)
{
  g_return_val_if_fail (target != NULL, NULL);
  return &target->grid;
}

guint
hs_target_get_width (const HsTarget *target)
{
  g_return_val_if_fail (target != NULL, 0);
  return target->grid.width;
}

guint
hs_target_get_height (const HsTarget *target)
{
  g_return_val_if_fail (target != NULL, 0);
  return target->grid.height;
}

const guint8 *
hs_target_peek_mask (const HsTarget *target)
{
  g_return_val_if_fail (target != NULL, NULL);
  return target->mask;
}

guint64
hs_target_get_count (const HsTarget *target)
{
  g_return_val_if_fail (target != NULL, 0);
  return target->count;
}
