/* hs-model.h — the built-in GLoRIA-style dual encoder (live attention) */
#pragma once

#include <gio/gio.h>
#include "hs-image.h"
#include "hs-attention-map.h"
#include "hs-dataset.h"

G_BEGIN_DECLS

#define HS_MODEL_ERROR (hs_model_error_quark ())
GQuark hs_model_error_quark (void);

typedef enum {
  HS_MODEL_ERROR_IO,            /* the weights file cannot be read                    */
  HS_MODEL_ERROR_FORMAT,        /* not a heatscope model: metadata, tensors, shapes   */
  HS_MODEL_ERROR_NOT_FOUND,     /* no built-in model of that name                     */
  HS_MODEL_ERROR_EMPTY_PROMPT,  /* the prompt has no word tokens                      */
  HS_MODEL_ERROR_TOO_LARGE,     /* image or prompt over HsLimits                      */
  HS_MODEL_ERROR_INVALID,       /* features computed by another model, empty image    */
} HsModelError;

/* A model loaded from a .safetensors file written by tools/train-model
 * (format "heatscope-gloria-1"; see tools/model_lib.py for the exact
 * computation, which this forward pass reproduces to 1e-4).
 * Reference counted and immutable: one model may serve several threads. */
typedef struct _HsModel HsModel;

/* The cached image side: the grid of local features of one image.
 * Reference counted, immutable, tied to the model that computed it. */
typedef struct _HsImageFeatures HsImageFeatures;

HsModel          *hs_model_load              (const char *path, GError **error);
/* "grounded", "blind", "noattn", a saliency name (or a path ending in .safetensors).  Built-in
 * models are searched in $HEATSCOPE_MODELS_DIR, the source tree's data/models
 * and the installed data directory. */
HsModel          *hs_model_load_builtin      (const char *name_or_path, GError **error);
/* The file of a built-in model, or NULL; free with g_free. */
char             *hs_model_find_builtin      (const char *name);
/* {"grounded", "blind", "noattn", NULL}: the attention models. */
const char * const *hs_model_list_builtin    (void);
/* The saliency maps of the built-in lesion classifier (data/models/lesion-cnn
 * and its untrained twin lesion-cnn-random, format "heatscope-cnn-1"; see
 * tools/lesion_cnn_lib.py): {"cnn-grad", "cnn-ixg", "cnn-gradcam",
 * "cnn-random-grad", "cnn-random-ixg", "cnn-random-gradcam", NULL}.  Such a
 * model's map explains the logit of the class its prompt names ("regular",
 * "irregular"; the predicted class when it names none) and has one token,
 * the class explained.  A classifier file loaded by path gives its gradient
 * map, named "<metadata name>-grad". */
const char * const *hs_model_list_saliency   (void);
/* TRUE for a name of either list. */
gboolean          hs_model_is_builtin        (const char *name);
/* Every name of both lists, comma-separated ("grounded, blind, noattn,
 * cnn-grad, …"): what an error about an unknown model lists; free with
 * g_free. */
char             *hs_model_describe_builtin  (void);
/* TRUE when `model` is a built-in model (its names are reserved for the
 * built-in models, whether computed live or precomputed by `demo`) and
 * `instance` is not a Heatscope phantom (HsInstance.phantom): the map is a
 * phantom-trained model's on a real image, and every view and export says so
 * (HsCaption.phantom_model_on_real_image). */
gboolean          hs_model_is_phantom_trained_on_real (const char       *model,
                                                       const HsInstance *instance);

HsModel          *hs_model_ref               (HsModel *model);
void              hs_model_unref             (HsModel *model);

const char       *hs_model_get_name          (const HsModel *model); /* metadata "name" */
const char       *hs_model_get_path          (const HsModel *model);
guint             hs_model_get_grid_width    (const HsModel *model);
guint             hs_model_get_grid_height   (const HsModel *model);
gboolean          hs_model_has_no_attn       (const HsModel *model);
/* A classifier's class names (NULL-terminated, owned by the model); NULL
 * for an attention model. */
const char * const *hs_model_get_classes     (const HsModel *model);
/* A raw "__metadata__" value ("config", "vocabulary", "training"), or NULL. */
const char       *hs_model_get_metadata      (const HsModel *model, const char *key);

/* The image side (the expensive part: a few tens of milliseconds).
 * Cancelling gives G_IO_ERROR_CANCELLED. */
HsImageFeatures  *hs_model_encode_image      (HsModel *model, const HsImage *image,
                                              GCancellable *cancellable, GError **error);
HsImageFeatures  *hs_image_features_ref      (HsImageFeatures *features);
void              hs_image_features_unref    (HsImageFeatures *features);

/* Per-token maps (tokens = hs_text_tokenize(prompt)), their mean as the
 * sentence map, and no_attn (NAN unless the model has a No-Attn slot; the
 * grid excludes that slot, so the cells sum to 1 − no_attn). */
HsAttentionMap   *hs_model_attend            (HsModel *model, HsImageFeatures *features,
                                              const char *prompt, GError **error);
/* Convenience: encode + attend. */
HsAttentionMap   *hs_model_attend_image      (HsModel *model, const HsImage *image,
                                              const char *prompt, GError **error);

/* A thread-safe cache for callers that attend many prompts: models loaded
 * once by name (hs_model_load_builtin names or paths) and, per model, the
 * features of the most recent image (identified by the HsImage pointer,
 * which the cache keeps a reference to). */
typedef struct _HsModelCache HsModelCache;

HsModelCache     *hs_model_cache_new         (void);
void              hs_model_cache_free        (HsModelCache *cache);
/* Transfer full. */
HsModel          *hs_model_cache_get_model   (HsModelCache *cache, const char *name, GError **error);
HsImageFeatures  *hs_model_cache_get_features (HsModelCache *cache, HsModel *model, HsImage *image,
                                              GCancellable *cancellable, GError **error);

/* An HsPhantomAttendFunc (hs-phantom.h) serving the built-in models: `data`
 * is an HsModelCache; `model` a built-in name ("grounded", "blind",
 * "noattn") or a .safetensors path.  Returns per-token maps. */
HsAttentionMap   *hs_model_phantom_attend    (HsImage *image, const char *prompt, const char *model,
                                              gpointer data, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsModel, hs_model_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsModelCache, hs_model_cache_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsImageFeatures, hs_image_features_unref)

G_END_DECLS
