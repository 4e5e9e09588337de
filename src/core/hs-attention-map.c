/* hs-attention-map.c — one model's attention for one query on one image */
#include "hs-attention-map.h"

#include "hs-limits.h"
#include "hs-npy.h"
#include "hs-resample.h"
#include "hs-i18n-private.h"
#include "hs-big-buffer-private.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-map-error-quark, hs_map_error)

struct _HsAttentionMap
{
  gint     ref_count;
  guint    n_tokens;
  guint    height;
  guint    width;
  double  *values;        /* sentence map, h × w                     */
  double  *token_values;  /* n_tokens × h × w, NULL when n_tokens = 0 */
  char   **tokens;        /* n_tokens strings or NULL                */
  double   no_attn;
};

static const char *
non_finite_name (double v)
{
  return isnan (v) ? "NaN" : v > 0 ? "+Inf" : "-Inf";
}

/* `take`: the caller's buffer of values (freed with g_free), which a map
 * without tokens keeps instead of copying it (*take is then NULL). */
static HsAttentionMap *
map_new_named (const char *name, guint n_tokens, guint height, guint width,
               const double *values, double **take, GError **error)
{
  const HsLimits *limits = hs_limits_get ();
  g_autoptr(HsAttentionMap) map = NULL;
  guint64 cells = (guint64) height * width;
  gsize n_all;

  if (height == 0 || width == 0)
    {
      g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_SHAPE,
                   _("%s: attention map has an empty grid (%u × %u)"), name, height, width);
      return NULL;
    }
  if (cells > limits->max_grid_cells)
    {
      g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_TOO_LARGE,
                   _("%s: attention map of %u × %u cells is too large (limit %" PRIu64 " cells)"),
                   name, height, width, limits->max_grid_cells);
      return NULL;
    }
  if (n_tokens > limits->max_tokens)
    {
      g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_TOO_LARGE,
                   _("%s: attention map has %u tokens (limit %" PRIu64 ")"),
                   name, n_tokens, limits->max_tokens);
      return NULL;
    }
  if (!g_size_checked_mul (&n_all, (gsize) cells, MAX (n_tokens, 1)) ||
      n_all > G_MAXSIZE / sizeof (double))
    {
      g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_TOO_LARGE,
                   _("%s: attention map of %u tokens × %u × %u cells is too large"),
                   name, n_tokens, height, width);
      return NULL;
    }

  for (gsize i = 0; i < n_all; i++)
    if (!isfinite (values[i]))
      {
        gsize token = i / cells, rest = i % cells;
        if (n_tokens > 0)
          g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_NON_FINITE,
                       _("%s: cell (token %zu, row %zu"
                       ", col %zu) is %s; attention maps must be finite"),
                       name, token, rest / width, rest % width, non_finite_name (values[i]));
        else
          g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_NON_FINITE,
                       _("%s: cell (row %zu, col %zu"
                       ") is %s; attention maps must be finite"),
                       name, rest / width, rest % width, non_finite_name (values[i]));
        return NULL;
      }

  map = g_new0 (HsAttentionMap, 1);
  map->ref_count = 1;
  map->n_tokens = n_tokens;
  map->height = height;
  map->width = width;
  map->no_attn = NAN;
  if (n_tokens == 0 && take != NULL && *take == values)
    {
      map->values = g_steal_pointer (take);
      return g_steal_pointer (&map);
    }
  map->values = hs_big_buffer_try_alloc (cells * sizeof (double));
  if (map->values == NULL)
    goto oom;
  if (n_tokens == 0)
    memcpy (map->values, values, cells * sizeof (double));
  else
    {
      map->token_values = hs_big_buffer_try_alloc (n_all * sizeof (double));
      if (map->token_values == NULL)
        goto oom;
      memcpy (map->token_values, values, n_all * sizeof (double));
      for (gsize c = 0; c < cells; c++)
        {
          double sum = 0.0;
          for (guint t = 0; t < n_tokens; t++)
            sum += values[(gsize) t * cells + c];
          map->values[c] = sum / n_tokens;
        }
    }
  return g_steal_pointer (&map);

oom:
  g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_TOO_LARGE,
               _("%s: out of memory for an attention map of %u × %u cells"), name, height, width);
  return NULL;
}

HsAttentionMap *
hs_attention_map_new (guint n_tokens, guint height, guint width, const double *values,
                      GError **error)
{
  g_return_val_if_fail (values != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return map_new_named ("attention map", n_tokens, height, width, values, NULL, error);
}

static HsAttentionMap *map_from_array (HsNdArray *array, const char *path,
                                       const char * const *tokens, double no_attn,
                                       GError **error);

HsAttentionMap *
hs_attention_map_load_npy (const char *path, const char * const *tokens, double no_attn,
                           GError **error)
{
  g_autoptr(HsNdArray) array = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  array = hs_npy_read (path, error);
  if (array == NULL)
    return NULL;
  return map_from_array (array, path, tokens, no_attn, error);
}

HsAttentionMap *
hs_attention_map_load_npy_fd (int fd, const char *path, const char * const *tokens,
                              double no_attn, GError **error)
{
  g_autoptr(HsNdArray) array = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  array = hs_npy_read_fd (fd, path, error);
  if (array == NULL)
    return NULL;
  return map_from_array (array, path, tokens, no_attn, error);
}

static HsAttentionMap *
map_from_array (HsNdArray *array, const char *path, const char * const *tokens,
                double no_attn, GError **error)
{
  HsAttentionMap *map;
  guint n_tokens, height, width;
  guint n_given = tokens != NULL ? g_strv_length ((char **) tokens) : 0;

  if (array->ndim != 2 && array->ndim != 3)
    {
      g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_SHAPE,
                   _("%s: attention map must have shape [h, w] or [tokens, h, w], not %u dimensions"),
                   path, array->ndim);
      return NULL;
    }
  if (array->ndim == 2)
    {
      n_tokens = 0;
      height = array->shape[0] <= G_MAXUINT ? (guint) array->shape[0] : G_MAXUINT;
      width = array->shape[1] <= G_MAXUINT ? (guint) array->shape[1] : G_MAXUINT;
    }
  else
    {
      if (array->shape[0] == 0)
        {
          g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_SHAPE,
                       _("%s: per-token attention map has no tokens (shape [0, %zu"
                       ", %zu])"), path, array->shape[1], array->shape[2]);
          return NULL;
        }
      n_tokens = array->shape[0] <= G_MAXUINT ? (guint) array->shape[0] : G_MAXUINT;
      height = array->shape[1] <= G_MAXUINT ? (guint) array->shape[1] : G_MAXUINT;
      width = array->shape[2] <= G_MAXUINT ? (guint) array->shape[2] : G_MAXUINT;
    }
  if (tokens != NULL && n_given != n_tokens)
    {
      g_set_error (error, HS_MAP_ERROR, HS_MAP_ERROR_SHAPE,
                   _("%s: attention map has %u token maps but %u tokens were given"),
                   path, n_tokens, n_given);
      return NULL;
    }
  map = map_new_named (path, n_tokens, height, width, array->values, &array->values, error);
  if (map == NULL)
    return NULL;
  if (tokens != NULL && n_tokens > 0)
    hs_attention_map_set_tokens (map, tokens);
  map->no_attn = no_attn;
  return map;
}

gboolean
hs_attention_map_save_npy (const HsAttentionMap *map, const char *path, gboolean tokens,
                           GError **error)
{
  gsize shape[3] = { map->n_tokens, map->height, map->width };

  g_return_val_if_fail (map != NULL && path != NULL, FALSE);
  if (tokens && map->n_tokens > 0)
    return hs_npy_write (path, HS_DTYPE_FLOAT32, 3, shape, map->token_values, FALSE, FALSE, error);
  return hs_npy_write (path, HS_DTYPE_FLOAT32, 2, shape + 1, map->values, FALSE, FALSE, error);
}

HsAttentionMap *
hs_attention_map_ref (HsAttentionMap *map)
{
  g_return_val_if_fail (map != NULL, NULL);

  g_atomic_int_inc (&map->ref_count);
  return map;
}

void
hs_attention_map_unref (HsAttentionMap *map)
{
  g_return_if_fail (map != NULL);

  if (g_atomic_int_dec_and_test (&map->ref_count))
    {
      g_free (map->values);
      g_free (map->token_values);
      g_strfreev (map->tokens);
      g_free (map);
    }
}

guint
hs_attention_map_get_width (const HsAttentionMap *map)
{
  g_return_val_if_fail (map != NULL, 0);
  return map->width;
}

guint
hs_attention_map_get_height (const HsAttentionMap *map)
{
  g_return_val_if_fail (map != NULL, 0);
  return map->height;
}

guint
hs_attention_map_get_n_tokens (const HsAttentionMap *map)
{
  g_return_val_if_fail (map != NULL, 0);
  return map->n_tokens;
}

const double *
hs_attention_map_peek_values (const HsAttentionMap *map)
{
  g_return_val_if_fail (map != NULL, NULL);
  return map->values;
}

const double *
hs_attention_map_peek_token (const HsAttentionMap *map, guint token)
{
  g_return_val_if_fail (map != NULL, NULL);

  if (map->token_values == NULL || token >= map->n_tokens)
    return NULL;
  return map->token_values + (gsize) token * map->height * map->width;
}

const char *
hs_attention_map_get_token (const HsAttentionMap *map, guint token)
{
  g_return_val_if_fail (map != NULL, NULL);

  if (map->tokens == NULL || token >= map->n_tokens)
    return NULL;
  return map->tokens[token];
}

void
hs_attention_map_set_tokens (HsAttentionMap *map, const char * const *tokens)
{
  g_return_if_fail (map != NULL);
  g_return_if_fail (tokens == NULL || g_strv_length ((char **) tokens) == map->n_tokens);

  g_strfreev (map->tokens);
  map->tokens = g_strdupv ((char **) tokens);
}

double
hs_attention_map_get_no_attn (const HsAttentionMap *map)
{
  g_return_val_if_fail (map != NULL, NAN);
  return map->no_attn;
}

void
hs_attention_map_set_no_attn (HsAttentionMap *map, double no_attn)
{
  g_return_if_fail (map != NULL);
  map->no_attn = no_attn;
}

HsAttentionMap *
hs_attention_map_difference (const HsAttentionMap *a, const HsAttentionMap *b,
                             double *max_abs, GError **error)
{
  g_autofree double *resampled = NULL;
  g_autofree double *d = NULL;
  const double *vb;
  HsAttentionMap *diff;
  gsize n;
  double m = 0;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  n = (gsize) a->width * a->height;
  vb = b->values;
  if (b->width != a->width || b->height != a->height)
    {
      resampled = g_new (double, n);
      hs_resample (b->values, b->width, b->height, resampled, a->width, a->height, HS_UPSAMPLE_BILINEAR);
      vb = resampled;
    }
  d = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      d[i] = a->values[i] - vb[i];
      m = MAX (m, fabs (d[i]));
    }
  diff = hs_attention_map_new (0, a->height, a->width, d, error);
  if (diff != NULL && max_abs != NULL)
    *max_abs = m;
  return diff;
}
