/* hs-model-private.h — shared by hs-model.c, hs-model-image.c, hs-model-text.c */
#pragma once

#include <heatscope/hs-model.h>
#include <heatscope/hs-safetensors.h>

G_BEGIN_DECLS

#include <json-glib/json-glib.h>

#define HS_MODEL_FORMAT "heatscope-gloria-1"
#define HS_MODEL_CNN_FORMAT "heatscope-cnn-1"
#define HS_MODEL_MAX_CONV 16

typedef struct {
  guint  c_in, c_out, stride;
  float *weight;   /* [c_out][c_in][3][3] */
  float *bias;     /* [c_out] */
} HsModelConv;

typedef enum {
  HS_MODEL_KIND_GLORIA,   /* dual encoder: attention = softmax over regions      */
  HS_MODEL_KIND_CNN,      /* image classifier: a saliency map of one class logit */
} HsModelKind;

/* The saliency methods of a classifier (hs-model-cnn.c). */
typedef enum {
  HS_SALIENCY_GRAD,       /* |∂y_c/∂x|                                  */
  HS_SALIENCY_IXG,        /* |x · ∂y_c/∂x|                              */
  HS_SALIENCY_GRADCAM,    /* ReLU(Σ_k α_k A_k), α_k = mean ∂y_c/∂A_k    */
} HsSaliency;

struct _HsModel {
  gint          ref_count;
  HsModelKind   kind;
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

  /* classifier (HS_MODEL_KIND_CNN): conv[] as above, then global average
   * pooling and a linear head; grid = the map's side for `saliency` */
  HsSaliency saliency;
  GStrv   classes;         /* [n_classes] */
  guint   n_classes;
  float  *head_w;          /* [n_classes][c_last] */
  float  *head_b;          /* [n_classes] */

  GPtrArray *owned;        /* every float array above */
};

struct _HsImageFeatures {
  gint     ref_count;
  HsModel *model;
  float   *regions;   /* [grid*grid][dim], L2-normalised (dual encoder) */
  float   *acts;      /* classifier: the input, then every conv layer's output */
  double  *logits;    /* classifier: [n_classes] */
};

/* hs-model.c: shared by the loaders of both kinds. */
gboolean    hs_model_format_error       (GError **error, const HsModel *model, const char *format,
                                         ...) G_GNUC_PRINTF (3, 4);
float      *hs_model_take_tensor        (HsModel *model, const char *name, GError **error,
                                         gsize d0, gsize d1, gsize d2, gsize d3);
gboolean    hs_model_config_uint        (JsonObject *config, const char *key, guint min, guint max,
                                         guint *out);
gboolean    hs_model_config_double      (JsonObject *config, const char *key, double *out);
JsonObject *hs_model_config_object      (HsModel *model, JsonParser *parser, GError **error);
/* image_size, normalize_mean/std and "conv"; `size` = the last layer's side. */
gboolean    hs_model_parse_image_config (HsModel *model, JsonObject *config, guint *size,
                                         GError **error);
gboolean    hs_model_take_convs         (HsModel *model, GError **error);

/* hs-model-cnn.c: the classifier. */
gboolean        hs_model_cnn_load       (HsModel *model, GError **error);
void            hs_model_cnn_set_saliency (HsModel *model, HsSaliency saliency);
gboolean        hs_model_cnn_encode     (const HsModel *model, const float *input,
                                         HsImageFeatures *features, GCancellable *cancellable,
                                         GError **error);
HsAttentionMap *hs_model_cnn_attend     (const HsModel *model, const HsImageFeatures *features,
                                         const char *prompt, GError **error);

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

/* One 3×3 convolution (padding 1) + bias + ReLU; cols: scratch of
 * [c_in·9][ho·wo] floats. */
void     hs_model_conv3x3_relu  (const HsModelConv *conv, const float *in, guint h, guint w,
                                 float *out, guint ho, guint wo, float *cols);

/* y[n][out] = x[n][in] · wᵀ + b, w is [out][in] (torch's Linear layout). */
void     hs_model_linear        (const float *x, guint n, guint in, const float *w,
                                 const float *b, guint out, float *y);
void     hs_model_l2_normalize  (float *v, guint n);

G_END_DECLS
