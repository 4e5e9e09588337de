/* hs-model-text.c — the text side of the built-in model: one pre-LN transformer block */
#include "hs-model-private.h"

#include <math.h>
#include <string.h>

void
hs_model_linear (const float *x, guint n, guint in, const float *w, const float *b,
                 guint out, float *y)
{
  for (guint i = 0; i < n; i++)
    for (guint o = 0; o < out; o++)
      {
        const float *xr = x + (gsize) i * in, *wr = w + (gsize) o * in;
        float v = b != NULL ? b[o] : 0.0f;

        for (guint k = 0; k < in; k++)
          v += xr[k] * wr[k];
        y[(gsize) i * out + o] = v;
      }
}

/* torch.nn.functional.normalize: v / max(‖v‖, 1e-12). */
void
hs_model_l2_normalize (float *v, guint n)
{
  double sum = 0;

  for (guint i = 0; i < n; i++)
    sum += (double) v[i] * v[i];
  sum = MAX (sqrt (sum), 1e-12);
  for (guint i = 0; i < n; i++)
    v[i] = (float) (v[i] / sum);
}

static void
layer_norm (const float *x, guint n, guint d, const float *w, const float *b, float *y)
{
  for (guint i = 0; i < n; i++)
    {
      const float *xr = x + (gsize) i * d;
      float *yr = y + (gsize) i * d;
      double mean = 0, var = 0, inv;

      for (guint k = 0; k < d; k++)
        mean += xr[k];
      mean /= d;
      for (guint k = 0; k < d; k++)
        var += (xr[k] - mean) * (xr[k] - mean);
      var /= d;
      inv = 1.0 / sqrt (var + 1e-5);
      for (guint k = 0; k < d; k++)
        yr[k] = (float) ((xr[k] - mean) * inv * w[k] + b[k]);
    }
}

guint
hs_model_token_id (const HsModel *model, const char *token)
{
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (model->vocab, token));

  return index == 0 ? model->unk : index - 1;
}

void
hs_model_text_forward (const HsModel *model, const guint *ids, guint n, float *words)
{
  guint d = model->dim, heads = model->heads, dh = d / heads, f = model->ffn;
  gsize nd = (gsize) n * d;
  g_autofree float *x = g_new (float, nd);
  g_autofree float *y = g_new (float, nd);
  g_autofree float *q = g_new (float, nd);
  g_autofree float *k = g_new (float, nd);
  g_autofree float *v = g_new (float, nd);
  g_autofree float *att = g_new0 (float, nd);
  g_autofree float *hidden = g_new (float, (gsize) n * f);
  g_autofree double *scores = g_new (double, n);
  double scale = 1.0 / sqrt ((double) dh);

  for (guint i = 0; i < n; i++)
    {
      guint p = MIN (i, model->n_positions - 1);

      for (guint c = 0; c < d; c++)
        x[(gsize) i * d + c] = model->emb[(gsize) ids[i] * d + c] + model->tpos[(gsize) p * d + c];
    }

  /* x = x + O(MHA(LN1(x))) */
  layer_norm (x, n, d, model->ln1_w, model->ln1_b, y);
  hs_model_linear (y, n, d, model->q_w, model->q_b, d, q);
  hs_model_linear (y, n, d, model->k_w, model->k_b, d, k);
  hs_model_linear (y, n, d, model->v_w, model->v_b, d, v);
  for (guint h = 0; h < heads; h++)
    for (guint i = 0; i < n; i++)
      {
        double max = -INFINITY, sum = 0;

        for (guint j = 0; j < n; j++)
          {
            double s = 0;

            for (guint c = h * dh; c < (h + 1) * dh; c++)
              s += (double) q[(gsize) i * d + c] * k[(gsize) j * d + c];
            scores[j] = s * scale;
            max = MAX (max, scores[j]);
          }
        for (guint j = 0; j < n; j++)
          {
            scores[j] = exp (scores[j] - max);
            sum += scores[j];
          }
        for (guint c = h * dh; c < (h + 1) * dh; c++)
          {
            double s = 0;

            for (guint j = 0; j < n; j++)
              s += scores[j] * v[(gsize) j * d + c];
            att[(gsize) i * d + c] = (float) (s / sum);
          }
      }
  hs_model_linear (att, n, d, model->o_w, model->o_b, d, y);
  for (gsize i = 0; i < nd; i++)
    x[i] += y[i];

  /* x = x + FF2(ReLU(FF1(LN2(x)))) */
  layer_norm (x, n, d, model->ln2_w, model->ln2_b, y);
  hs_model_linear (y, n, d, model->ff1_w, model->ff1_b, f, hidden);
  for (gsize i = 0; i < (gsize) n * f; i++)
    if (!(hidden[i] > 0.0f))
      hidden[i] = 0.0f;
  hs_model_linear (hidden, n, f, model->ff2_w, model->ff2_b, d, y);
  for (gsize i = 0; i < nd; i++)
    x[i] += y[i];

  layer_norm (x, n, d, model->lnf_w, model->lnf_b, y);
  hs_model_linear (y, n, d, model->tproj_w, model->tproj_b, d, words);
  for (guint i = 0; i < n; i++)
    hs_model_l2_normalize (words + (gsize) i * d, d);
}
