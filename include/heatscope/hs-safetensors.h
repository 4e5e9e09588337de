/* hs-safetensors.h — read-only access to .safetensors weight files */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_SAFETENSORS_ERROR (hs_safetensors_error_quark ())
GQuark hs_safetensors_error_quark (void);

typedef enum {
  HS_SAFETENSORS_ERROR_IO,          /* the file cannot be read                          */
  HS_SAFETENSORS_ERROR_FORMAT,      /* bad header length, JSON, entry, dtype or offsets */
  HS_SAFETENSORS_ERROR_TOO_LARGE,   /* refused by HsLimits before allocating            */
  HS_SAFETENSORS_ERROR_NOT_FOUND,   /* no tensor of that name                           */
  HS_SAFETENSORS_ERROR_UNSUPPORTED, /* a dtype that cannot be converted to float        */
} HsSafetensorsError;

typedef enum {
  HS_SAFETENSORS_F32,
  HS_SAFETENSORS_F16,
  HS_SAFETENSORS_BF16,
  HS_SAFETENSORS_F64,
  HS_SAFETENSORS_I64,
  HS_SAFETENSORS_I32,
  HS_SAFETENSORS_I16,
  HS_SAFETENSORS_I8,
  HS_SAFETENSORS_U8,
  HS_SAFETENSORS_BOOL,
} HsSafetensorsDType;

#define HS_SAFETENSORS_MAX_DIMS 8

/* The file format (https://github.com/huggingface/safetensors): an 8-byte
 * little-endian header length N, N bytes of JSON mapping tensor names to
 * {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
 * byte buffer after the header) plus an optional "__metadata__" object of
 * string values, then the little-endian data.  Loading checks every entry:
 * known dtype, shape products that do not overflow, offsets inside the
 * buffer that match the shape, and no two tensors overlapping. */
typedef struct _HsSafetensors HsSafetensors;

typedef struct {
  const char         *name;
  HsSafetensorsDType  dtype;
  guint               ndim;
  gsize               shape[HS_SAFETENSORS_MAX_DIMS];
  gsize               n_values;   /* product of shape (1 for a scalar) */
} HsTensorInfo;

HsSafetensors *hs_safetensors_load             (const char *path, GError **error);
/* `data` is copied; `name_for_errors` names the source in messages. */
HsSafetensors *hs_safetensors_load_from_memory (const guint8 *data, gsize len,
                                                const char *name_for_errors, GError **error);
void           hs_safetensors_free             (HsSafetensors *st);

const char    *hs_safetensors_get_name         (const HsSafetensors *st); /* path for errors */
/* Tensor names in file order (header order), NULL-terminated, owned by `st`. */
const char * const *hs_safetensors_list        (const HsSafetensors *st);
const HsTensorInfo *hs_safetensors_get_info    (const HsSafetensors *st, const char *name);
/* A "__metadata__" value, or NULL. */
const char    *hs_safetensors_get_metadata     (const HsSafetensors *st, const char *key);
/* Metadata keys, sorted, NULL-terminated; free with g_free (not the strings). */
const char   **hs_safetensors_list_metadata    (const HsSafetensors *st);

/* The tensor's values converted to float (F32, F16, BF16 and F64 only),
 * C order; n_values is stored in `n_values` when not NULL.  Free with g_free. */
float         *hs_safetensors_get_float        (const HsSafetensors *st, const char *name,
                                                gsize *n_values, GError **error);

const char    *hs_safetensors_dtype_to_string  (HsSafetensorsDType dtype); /* "F32" */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsSafetensors, hs_safetensors_free)

G_END_DECLS
