/* hs-model-private.h — shared by hs-model.c, hs-model-image.c, hs-model-text.c */
#pragma once

#include <heatscope/hs-model.h>
#include <heatscope/hs-safetensors.h>

G_BEGIN_DECLS

#define HS_MODEL_FORMAT "heatscope-gloria-1"
#define HS_MODEL_MAX_CONV 16

typedef struct {
  guint  c_in, c_out, stride;
  float *weight;   /* [c_out][c_in][3][3] */
  float *bias;     /* [c_out] */
} HsModelConv;

struct _HsModel {
  gint          ref_count;
  char         *path;
  char         *name;
  HsSafetensors *st;           /* keeps the metadata */

  /* config */
  guint   image_size, grid, dim;
  guint   n_conv;
  HsModelConv conv[HS_MODEL_MAX_CONV];
  guint   heads, ffn, n_positions;
  double  tau, norm_mean, norm_std;
  gboolean no_attn;

  /* image side */
  float  *proj_w;     /* [dim][c_last] */
  float  *proj_b;     /* [dim] */
  float  *pos;        /* [grid*grid][dim] */

  /* text side */
  GHashTable *vocab;  /* word → index + 1 */
  guint   vocab_size, unk;
  float  *emb;        /* [vocab][dim] */
  float  *tpos;       /* [n_positions][dim] */
  float  *ln1_w, *ln1_b, *ln2_w, *ln2_b, *lnf_w, *lnf_b;
  float  *q_w, *q_b, *k_w, *k_b, *v_w, *v_b, *o_w, *o_b;  /* [dim][dim], [dim] */
  float  *ff1_w, *ff1_b;   /* [ffn][dim], [ffn] */
  float  *ff2_w, *ff2_b;   /* [dim][ffn], [dim] */
  float  *tproj_w, *tproj_b;

  float  *no_attn_vec;     /* [dim], normalised; NULL without the slot */

  GPtrArray *owned;        /* every float array above */
};

struct _HsImageFeatures {
  gint     ref_count;
  HsModel *model;
  float   *regions;   /* [grid*grid][dim], L2-normalised */
};

/* hs-model-image.c: the normalised network input [size][size] and the
 * local features [grid*grid][dim] (L2-normalised). */
gboolean hs_model_image_input   (const HsModel *model, const HsImage *image, float *input,
                                 GError **error);
gboolean hs_model_image_forward (const HsModel *model, const float *input, float *regions,
                                 GCancellable *cancellable, GError **error);

/* hs-model-text.c: word features [n_tokens][dim], L2-normalised. */
void     hs_model_text_forward  (const HsModel *model, const guint *ids, guint n_tokens,
                                 float *words);
guint    hs_model_token_id      (const HsModel *model, const char *token);

/* y[n][out] = x[n][in] · wᵀ + b, w is [out][in] (torch's Linear layout). */
void     hs_model_linear        (const float *x, guint n, guint in, const float *w,
                                 const float *b, guint out, float *y);
void     hs_model_l2_normalize  (float *v, guint n);

G_END_DECLS
