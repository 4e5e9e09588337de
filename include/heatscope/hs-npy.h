/* hs-npy.h — NumPy .npy files (format versions 1.0, 2.0, 3.0) */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_NPY_ERROR (hs_npy_error_quark ())
GQuark hs_npy_error_quark (void);

typedef enum {
  HS_NPY_ERROR_IO,
  HS_NPY_ERROR_FORMAT,      /* bad magic, header, dtype or shape           */
  HS_NPY_ERROR_TRUNCATED,   /* fewer data bytes than the header promises   */
  HS_NPY_ERROR_TOO_LARGE,   /* refused by HsLimits before allocating       */
  HS_NPY_ERROR_UNSUPPORTED, /* object arrays, structured dtypes, > 8 dims  */
} HsNpyError;

typedef enum {
  HS_DTYPE_BOOL,
  HS_DTYPE_INT8, HS_DTYPE_INT16, HS_DTYPE_INT32, HS_DTYPE_INT64,
  HS_DTYPE_UINT8, HS_DTYPE_UINT16, HS_DTYPE_UINT32, HS_DTYPE_UINT64,
  HS_DTYPE_FLOAT16, HS_DTYPE_FLOAT32, HS_DTYPE_FLOAT64,
} HsDType;

#define HS_NPY_MAX_DIMS 8

/* A dense array whose values are converted to double, always in C (row-major)
 * order, whatever the file's byte order and memory order.  64-bit integers
 * beyond 2^53 lose precision (maps are scores, not identifiers). */
typedef struct {
  HsDType  dtype;                 /* dtype found in the file               */
  guint    ndim;
  gsize    shape[HS_NPY_MAX_DIMS];
  gsize    n_values;              /* product of shape (1 for 0-d)          */
  double  *values;                /* n_values doubles, C order             */
} HsNdArray;

HsNdArray  *hs_npy_read             (const char *path, GError **error);
/* Reads the open regular file `fd` (the caller keeps it); `path` names it. */
HsNdArray  *hs_npy_read_fd          (int fd, const char *path, GError **error);
HsNdArray  *hs_npy_read_from_memory (const guint8 *data, gsize len,
                                     const char *name_for_errors, GError **error);
/* Writes `values` (C order) as `dtype`, little-endian unless big_endian,
 * in Fortran order when fortran_order (the file is what NumPy would write
 * for np.asfortranarray).  Written atomically. */
gboolean    hs_npy_write            (const char *path, HsDType dtype, guint ndim,
                                     const gsize *shape, const double *values,
                                     gboolean fortran_order, gboolean big_endian,
                                     GError **error);
void        hs_nd_array_free        (HsNdArray *array);
const char *hs_dtype_to_descr       (HsDType dtype, gboolean big_endian); /* "<f4" */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsNdArray, hs_nd_array_free)

G_END_DECLS
