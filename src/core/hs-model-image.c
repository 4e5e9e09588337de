/* hs-model-image.c — the image side of the built-in model: resize + CNN */
#include "hs-model-private.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

/* Area-average weights of output sample i over the input interval
 * [i·n_in/n_out, (i+1)·n_in/n_out), exactly as area_weights() in
 * tools/model_lib.py.  Returns the first input index and fills `w` with
 * at most `max_taps` weights. */
static guint
area_taps (guint i, guint n_in, guint n_out, double *w, guint max_taps, guint *first)
{
  double scale = (double) n_in / n_out;
  double lo = (double) i * n_in / n_out;
  double hi = (double) (i + 1) * n_in / n_out;
  guint k0 = (guint) floor (lo);
  guint k1 = MIN ((guint) ceil (hi), n_in);
  guint n = 0;

  *first = k0;
  for (guint k = k0; k < k1 && n < max_taps; k++)
    {
      double overlap = MIN (hi, k + 1.0) - MAX (lo, (double) k);

      w[n++] = overlap > 0 ? overlap / scale : 0.0;
    }
  return n;
}

gboolean
hs_model_image_input (const HsModel *model, const HsImage *image, float *input, GError **error)
{
  guint width = hs_image_get_width (image), height = hs_image_get_height (image);
  guint channels = hs_image_get_channels (image);
  guint size = model->image_size;
  const guint16 *data = hs_image_peek_data (image);
  double max_value = hs_image_get_max_value (image);
  double center, span, lo;
  guint max_taps_x = width / size + 2, max_taps_y = height / size + 2;
  g_autofree double *rows = NULL;   /* [size][width]: vertical pass */
  g_autofree double *wy = g_new (double, max_taps_y);
  g_autofree double *wx = g_new (double, max_taps_x);
  g_autofree double *grey_row = g_new (double, width);

  if (width == 0 || height == 0 || max_value <= 0)
    {
      g_set_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_INVALID, _("the image is empty"));
      return FALSE;
    }
  rows = g_new0 (double, (gsize) size * width);
  /* The model sees the image as displayed at first: a DICOM through its own
   * window (MONOCHROME1 already inverted), a PNG/JPEG over its full range. */
  hs_image_get_default_window (image, &center, &span);
  hs_image_window_to_samples (image, center, span, &center, &span);
  if (!(span > 0))
    span = max_value;
  lo = center - span / 2.0;

  /* Vertical pass first, as numpy evaluates (R_y · grey) · R_xᵀ. */
  for (guint i = 0; i < size; i++)
    {
      guint k0, n = area_taps (i, height, size, wy, max_taps_y, &k0);
      double *out = rows + (gsize) i * width;

      for (guint t = 0; t < n; t++)
        {
          const guint16 *p = data + (gsize) (k0 + t) * width * channels;

          for (guint x = 0; x < width; x++, p += channels)
            {
              double g = channels >= 3 ? 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2] : p[0];

              grey_row[x] = CLAMP ((g - lo) / span, 0.0, 1.0);
            }
          for (guint x = 0; x < width; x++)
            out[x] += wy[t] * grey_row[x];
        }
    }

  for (guint j = 0; j < size; j++)
    {
      guint k0, n = area_taps (j, width, size, wx, max_taps_x, &k0);

      for (guint i = 0; i < size; i++)
        {
          const double *row = rows + (gsize) i * width + k0;
          double v = 0;

          for (guint t = 0; t < n; t++)
            v += wx[t] * row[t];
          input[(gsize) i * size + j] = (float) ((v - model->norm_mean) / model->norm_std);
        }
    }
  return TRUE;
}

/* One 3×3 convolution (padding 1) + bias + ReLU via im2col: cols holds
 * [c_in·9][ho·wo]; four output channels share each pass over a cols row. */
void
hs_model_conv3x3_relu (const HsModelConv *conv, const float *in, guint h, guint w,
              float *out, guint ho, guint wo, float *cols)
{
  guint np = ho * wo, kk = conv->c_in * 9;

  for (guint c = 0; c < conv->c_in; c++)
    for (guint ky = 0; ky < 3; ky++)
      for (guint kx = 0; kx < 3; kx++)
        {
          float *col = cols + (gsize) ((c * 3 + ky) * 3 + kx) * np;
          const float *plane = in + (gsize) c * h * w;

          for (guint oy = 0; oy < ho; oy++)
            {
              int iy = (int) (oy * conv->stride + ky) - 1;

              for (guint ox = 0; ox < wo; ox++)
                {
                  int ix = (int) (ox * conv->stride + kx) - 1;

                  col[oy * wo + ox] = (iy >= 0 && iy < (int) h && ix >= 0 && ix < (int) w)
                                      ? plane[iy * (int) w + ix] : 0.0f;
                }
            }
        }

  for (guint co = 0; co < conv->c_out; co += 4)
    {
      guint nb = MIN (4, conv->c_out - co);
      float *o[4];

      for (guint b = 0; b < 4; b++)
        {
          o[b] = out + (gsize) (co + MIN (b, nb - 1)) * np;
        }
      for (guint b = 0; b < nb; b++)
        for (guint p = 0; p < np; p++)
          o[b][p] = conv->bias[co + b];

      if (nb == 4)
        {
          const float *w0 = conv->weight + (gsize) co * kk, *w1 = w0 + kk, *w2 = w1 + kk, *w3 = w2 + kk;
          float *restrict o0 = o[0], *restrict o1 = o[1], *restrict o2 = o[2], *restrict o3 = o[3];

          for (guint k = 0; k < kk; k++)
            {
              const float *restrict col = cols + (gsize) k * np;
              float a0 = w0[k], a1 = w1[k], a2 = w2[k], a3 = w3[k];

              for (guint p = 0; p < np; p++)
                {
                  float v = col[p];

                  o0[p] += a0 * v;
                  o1[p] += a1 * v;
                  o2[p] += a2 * v;
                  o3[p] += a3 * v;
                }
            }
        }
      else
        {
          for (guint b = 0; b < nb; b++)
            {
              const float *wr = conv->weight + (gsize) (co + b) * kk;

              for (guint k = 0; k < kk; k++)
                {
                  const float *col = cols + (gsize) k * np;

                  for (guint p = 0; p < np; p++)
                    o[b][p] += wr[k] * col[p];
                }
            }
        }
      for (guint b = 0; b < nb; b++)
        for (guint p = 0; p < np; p++)
          if (!(o[b][p] > 0.0f))
            o[b][p] = 0.0f;
    }
}

gboolean
hs_model_image_forward (const HsModel *model, const float *input, float *regions,
                        GCancellable *cancellable, GError **error)
{
  guint h = model->image_size, w = model->image_size;
  gsize max_plane = 0, max_cols = 0;
  g_autofree float *a = NULL, *b = NULL, *cols = NULL;
  const float *cur = input;
  guint c_last, n_cells = model->grid * model->grid;

  /* Buffer sizes: the largest activation and im2col matrix of any layer. */
  {
    guint hh = h, ww = w;

    for (guint l = 0; l < model->n_conv; l++)
      {
        guint ho = (hh - 1) / model->conv[l].stride + 1, wo = (ww - 1) / model->conv[l].stride + 1;

        max_plane = MAX (max_plane, (gsize) model->conv[l].c_out * ho * wo);
        max_cols = MAX (max_cols, (gsize) model->conv[l].c_in * 9 * ho * wo);
        hh = ho;
        ww = wo;
      }
  }
  a = g_new (float, max_plane);
  b = g_new (float, max_plane);
  cols = g_new (float, max_cols);

  for (guint l = 0; l < model->n_conv; l++)
    {
      guint ho = (h - 1) / model->conv[l].stride + 1, wo = (w - 1) / model->conv[l].stride + 1;
      float *out = (l % 2 == 0) ? a : b;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      hs_model_conv3x3_relu (&model->conv[l], cur, h, w, out, ho, wo, cols);
      cur = out;
      h = ho;
      w = wo;
    }
  g_assert (h == model->grid && w == model->grid);

  /* 1×1 projection + position embedding, transposed to [cell][dim]. */
  c_last = model->conv[model->n_conv - 1].c_out;
  for (guint j = 0; j < n_cells; j++)
    {
      float *r = regions + (gsize) j * model->dim;

      for (guint d = 0; d < model->dim; d++)
        {
          const float *wr = model->proj_w + (gsize) d * c_last;
          float v = model->proj_b[d];

          for (guint c = 0; c < c_last; c++)
            v += wr[c] * cur[(gsize) c * n_cells + j];
          r[d] = v + model->pos[(gsize) j * model->dim + d];
        }
      hs_model_l2_normalize (r, model->dim);
    }
  return TRUE;
}
