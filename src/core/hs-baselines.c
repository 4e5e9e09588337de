/* hs-baselines.c — null baselines of metrics.md, scored like a model's map */
#include "hs-baselines.h"
#include "hs-limits.h"
#include "hs-metrics-private.h"
#include "hs-random-private.h"
#include "hs-resample-private.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-baseline-error-quark, hs_baseline_error)

static const char * const baseline_names[HS_N_BASELINES] = {
  "uniform", "center", "sobel", "laplace", "random",
};

/* Longest side of a center map when the evaluation grid is over the map
 * limits (the Gaussian is smooth: bilinear upsampling changes it by far less
 * than any metric resolves). */
#define CENTER_FALLBACK_SIDE 2048

const char *
hs_baseline_to_string (HsBaseline baseline)
{
  if ((guint) baseline >= HS_N_BASELINES)
    return NULL;
  return baseline_names[baseline];
}

gboolean
hs_baseline_from_string (const char *name, HsBaseline *baseline)
{
  g_return_val_if_fail (baseline != NULL, FALSE);

  for (guint i = 0; name != NULL && i < HS_N_BASELINES; i++)
    if (g_ascii_strcasecmp (name, baseline_names[i]) == 0)
      {
        *baseline = (HsBaseline) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
hs_baseline_needs_image (HsBaseline baseline)
{
  return baseline == HS_BASELINE_SOBEL || baseline == HS_BASELINE_LAPLACE;
}

static gboolean
check_cells (guint64 w, guint64 h, const char *what, GError **error)
{
  if (w * h > hs_limits_get ()->max_grid_cells)
    {
      g_set_error (error, HS_BASELINE_ERROR, HS_BASELINE_ERROR_TOO_LARGE,
                   _("the %s baseline needs %" PRIu64 " × %" PRIu64 " cells, over the map limit of %" PRIu64),
                   what, w, h, hs_limits_get ()->max_grid_cells);
      return FALSE;
    }
  return TRUE;
}

/* Grid pixel centre → image coordinates. */
static inline double
grid_to_image (double g, double scale, double offset)
{
  return (g + 0.5 - offset) / scale;
}

static HsAttentionMap *
make_center (const HsEvalGrid *grid, GError **error)
{
  guint mw = grid->width, mh = grid->height;
  double sigma = 0.25 * MAX (grid->image_width, grid->image_height);
  double cx = grid->image_width / 2.0, cy = grid->image_height / 2.0;
  double scale_x = grid->scale_x, scale_y = grid->scale_y;
  double offset_x = grid->offset_x, offset_y = grid->offset_y;
  g_autofree double *values = NULL;
  g_autofree double *ex = NULL, *ey = NULL;

  if ((guint64) mw * mh > hs_limits_get ()->max_grid_cells)
    {
      /* Coarser grid over the same frame (default/chexlocalize only: the
       * gloria grid is 224²). */
      double f = (double) CENTER_FALLBACK_SIDE / MAX (mw, mh);

      mw = MAX ((guint) round (mw * f), 1);
      mh = MAX ((guint) round (mh * f), 1);
      scale_x = (double) mw / grid->image_width;
      scale_y = (double) mh / grid->image_height;
      offset_x = offset_y = 0;
    }
  if (!check_cells (mw, mh, "center", error))
    return NULL;

  ex = g_new (double, mw);
  ey = g_new (double, mh);
  for (guint x = 0; x < mw; x++)
    {
      double d = grid_to_image (x, scale_x, offset_x) - cx;
      ex[x] = d * d;
    }
  for (guint y = 0; y < mh; y++)
    {
      double d = grid_to_image (y, scale_y, offset_y) - cy;
      ey[y] = d * d;
    }
  values = g_new (double, (gsize) mw * mh);
  for (guint y = 0; y < mh; y++)
    for (guint x = 0; x < mw; x++)
      values[(gsize) y * mw + x] = exp (-(ex[x] + ey[y]) / (2 * sigma * sigma));
  return hs_attention_map_new (0, mh, mw, values, error);
}

static inline guint
reflect101 (gint64 i, guint n)
{
  if (n == 1)
    return 0;
  while (i < 0 || i >= n)
    i = i < 0 ? -i : 2 * (gint64) n - 2 - i;
  return (guint) i;
}

/* Sobel magnitude or |Laplacian| of the grey image at image resolution. */
static double *
filter_image (const HsImage *image, gboolean sobel)
{
  guint W = hs_image_get_width (image), H = hs_image_get_height (image);
  g_autofree double *grey = g_new (double, (gsize) W * H);
  double *out = g_new (double, (gsize) W * H);

  for (guint y = 0; y < H; y++)
    for (guint x = 0; x < W; x++)
      grey[(gsize) y * W + x] = hs_image_get_grey (image, x, y);

  for (guint y = 0; y < H; y++)
    {
      const double *r0 = grey + (gsize) reflect101 ((gint64) y - 1, H) * W;
      const double *r1 = grey + (gsize) y * W;
      const double *r2 = grey + (gsize) reflect101 ((gint64) y + 1, H) * W;

      for (guint x = 0; x < W; x++)
        {
          guint xl = reflect101 ((gint64) x - 1, W), xr = reflect101 ((gint64) x + 1, W);

          if (sobel)
            {
              /* cv2.Sobel(dx=1) and (dy=1), ksize 3 */
              double gx = (r0[xr] - r0[xl]) + 2 * (r1[xr] - r1[xl]) + (r2[xr] - r2[xl]);
              double gy = (r2[xl] + 2 * r2[x] + r2[xr]) - (r0[xl] + 2 * r0[x] + r0[xr]);
              out[(gsize) y * W + x] = sqrt (gx * gx + gy * gy);
            }
          else
            {
              /* cv2.Laplacian ksize 1: [0 1 0; 1 −4 1; 0 1 0] */
              double l = r0[x] + r1[xl] + r1[xr] + r2[x] - 4 * r1[x];
              out[(gsize) y * W + x] = fabs (l);
            }
        }
    }
  return out;
}

static HsAttentionMap *
make_filtered (const HsEvalGrid *grid, const HsImage *image, HsBaseline baseline, GError **error)
{
  guint W = hs_image_get_width (image), H = hs_image_get_height (image);
  g_autofree double *response = NULL;

  if (W != grid->image_width || H != grid->image_height)
    {
      g_set_error (error, HS_BASELINE_ERROR, HS_BASELINE_ERROR_INVALID,
                   _("the image is %u × %u but the target was built for %u × %u"),
                   W, H, grid->image_width, grid->image_height);
      return NULL;
    }
  if (grid->protocol != HS_PROTOCOL_GLORIA
      && !check_cells (W, H, hs_baseline_to_string (baseline), error))
    return NULL;

  response = filter_image (image, baseline == HS_BASELINE_SOBEL);
  if (grid->protocol != HS_PROTOCOL_GLORIA)
    return hs_attention_map_new (0, H, W, response, error);

  /* gloria: the map frame is the 224 crop; sample the response with the
   * nearest rule through the resize, padding = 0. */
  {
    g_autofree double *crop = g_new0 (double, (gsize) grid->width * grid->height);
    gint64 shift_x = lround (grid->offset_x), shift_y = lround (grid->offset_y);

    for (guint gy = 0; gy < grid->height; gy++)
      {
        gint64 iy = hs_nearest_index_shifted (gy, shift_y, H, grid->resized_height);

        if (iy < 0)
          continue;
        for (guint gx = 0; gx < grid->width; gx++)
          {
            gint64 ix = hs_nearest_index_shifted (gx, shift_x, W, grid->resized_width);

            if (ix >= 0)
              crop[(gsize) gy * grid->width + gx] = response[(gsize) iy * W + ix];
          }
      }
    return hs_attention_map_new (0, grid->height, grid->width, crop, error);
  }
}

HsAttentionMap *
hs_baseline_make (HsBaseline baseline, const HsEvalGrid *grid,
                  const HsImage *image, guint model_w, guint model_h,
                  guint32 seed, GError **error)
{
  g_return_val_if_fail (grid != NULL, NULL);

  switch (baseline)
    {
    case HS_BASELINE_UNIFORM:
      {
        /* Constant on the model's grid, so that its entropy is ln(h·w) (metrics.md); every
         * pixel metric is the same as for any constant map. */
        g_autofree double *ones = NULL;

        if (model_w == 0 || model_h == 0)
          model_w = model_h = 16;
        if (!check_cells (model_w, model_h, "uniform", error))
          return NULL;
        ones = g_new (double, (gsize) model_w * model_h);
        for (gsize i = 0; i < (gsize) model_w * model_h; i++)
          ones[i] = 1.0;
        return hs_attention_map_new (0, model_h, model_w, ones, error);
      }

    case HS_BASELINE_CENTER:
      return make_center (grid, error);

    case HS_BASELINE_SOBEL:
    case HS_BASELINE_LAPLACE:
      if (image == NULL)
        {
          g_set_error (error, HS_BASELINE_ERROR, HS_BASELINE_ERROR_NEEDS_IMAGE,
                       _("the %s baseline needs the image"), hs_baseline_to_string (baseline));
          return NULL;
        }
      return make_filtered (grid, image, baseline, error);

    case HS_BASELINE_RANDOM:
      {
        g_autofree double *values = NULL;
        guint64 state[4];

        if (model_w == 0 || model_h == 0)
          model_w = model_h = 16;
        if (!check_cells (model_w, model_h, "random", error))
          return NULL;
        values = g_new (double, (gsize) model_w * model_h);
        /* not GRand: its stream for a seed depends on G_RANDOM_VERSION */
        hs_xoshiro256_init (state, seed);
        for (gsize i = 0; i < (gsize) model_w * model_h; i++)
          values[i] = hs_random_bits_to_double (hs_xoshiro256_next (state));
        return hs_attention_map_new (0, model_h, model_w, values, error);
      }

    default:
      g_set_error (error, HS_BASELINE_ERROR, HS_BASELINE_ERROR_INVALID,
                   _("unknown baseline %d"), baseline);
      return NULL;
    }
}

/* The exact area average of an n_in-cell axis onto n_out cells: output cell o covers input
 * [o·n_in/n_out, (o+1)·n_in/n_out), and each input cell counts with the length of its overlap.
 * Written as weights per (output, input) pair along one axis; the 2-D average is separable. */
typedef struct { guint first, count; double *weight; } AreaAxis;

static void
area_axis_init (AreaAxis *axis, guint n_in, guint n_out)
{
  for (guint o = 0; o < n_out; o++)
    {
      /* In units of 1/n_out of an input cell, so that the bounds are integers. */
      guint64 lo = (guint64) o * n_in, hi = (guint64) (o + 1) * n_in;
      guint first = (guint) (lo / n_out), last = (guint) ((hi - 1) / n_out);

      axis[o].first = first;
      axis[o].count = last - first + 1;
      axis[o].weight = g_new (double, axis[o].count);
      for (guint i = first; i <= last; i++)
        {
          guint64 a = MAX (lo, (guint64) i * n_out), b = MIN (hi, (guint64) (i + 1) * n_out);

          axis[o].weight[i - first] = (double) (b - a) / (double) n_in;
        }
    }
}

static void
area_axis_clear (AreaAxis *axis, guint n_out)
{
  for (guint o = 0; o < n_out; o++)
    g_free (axis[o].weight);
}

/* The baseline map area-averaged onto the model's h × w grid (metrics.md: center, sobel and
 * laplace are computed on the image grid and area-averaged onto the model grid for the metrics
 * defined on the grid). */
static double *
area_average (const HsAttentionMap *map, guint out_w, guint out_h)
{
  guint in_w = hs_attention_map_get_width (map), in_h = hs_attention_map_get_height (map);
  const double *in = hs_attention_map_peek_values (map);
  g_autofree AreaAxis *ax = g_new (AreaAxis, out_w);
  g_autofree AreaAxis *ay = g_new (AreaAxis, out_h);
  double *out = g_new0 (double, (gsize) out_w * out_h);

  area_axis_init (ax, in_w, out_w);
  area_axis_init (ay, in_h, out_h);
  for (guint oy = 0; oy < out_h; oy++)
    for (guint ox = 0; ox < out_w; ox++)
      {
        double sum = 0;

        for (guint j = 0; j < ay[oy].count; j++)
          {
            const double *row = in + (gsize) (ay[oy].first + j) * in_w + ax[ox].first;
            double row_sum = 0;

            for (guint i = 0; i < ax[ox].count; i++)
              row_sum += ax[ox].weight[i] * row[i];
            sum += ay[oy].weight[j] * row_sum;
          }
        out[(gsize) oy * out_w + ox] = sum;
      }
  area_axis_clear (ax, out_w);
  area_axis_clear (ay, out_h);
  return out;
}

gboolean
hs_baseline_score (HsBaseline baseline, const HsTarget *target,
                   const HsImage *image, guint model_w, guint model_h,
                   guint32 seed, const HsScoreOptions *options,
                   HsScores *out, GError **error)
{
  g_autoptr(HsAttentionMap) map = NULL;

  g_return_val_if_fail (target != NULL && out != NULL, FALSE);

  map = hs_baseline_make (baseline, hs_target_get_grid (target), image, model_w, model_h, seed, error);
  if (map == NULL || !hs_score_map (map, target, options, out, error))
    return FALSE;

  /* uniform and random are already on the model's grid; the others are image-sized, and their
   * grid metrics (entropy, entropy_norm) are taken on the model's grid, so that every column of
   * a baselines table is comparable with the model's. */
  if (baseline == HS_BASELINE_CENTER || baseline == HS_BASELINE_SOBEL
      || baseline == HS_BASELINE_LAPLACE)
    {
      g_autofree double *cells = NULL;

      if (model_w == 0 || model_h == 0)
        model_w = model_h = 16;
      if (!check_cells (model_w, model_h, hs_baseline_to_string (baseline), error))
        return FALSE;
      cells = area_average (map, model_w, model_h);
      hs_metrics_entropy (cells, (gsize) model_w * model_h, NAN,
                          hs_target_get_grid (target)->protocol, out);
    }
  return TRUE;
}
