/* hs-attention-map.h — one model's attention for one query on one image */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_MAP_ERROR (hs_map_error_quark ())
GQuark hs_map_error_quark (void);

typedef enum {
  HS_MAP_ERROR_SHAPE,       /* not [h,w] or [tokens,h,w]; tokens mismatch  */
  HS_MAP_ERROR_NON_FINITE,  /* a NaN or ±Inf cell (message names the cell) */
  HS_MAP_ERROR_TOO_LARGE,   /* grid cells or tokens over HsLimits          */
} HsMapError;

/* A grid of h × w cells (row-major, row 0 at the top), either one sentence
 * map or n_tokens per-token maps.  The sentence map of a per-token map is the
 * mean over tokens (McInerney et al.: sentence attention = mean over words).
 * no_attn is the mass on the "No Attn" slot, NAN when the model has none.
 * Reference counted; values are finite (checked on construction). */
typedef struct _HsAttentionMap HsAttentionMap;

HsAttentionMap *hs_attention_map_new           (guint n_tokens, guint height, guint width,
                                                const double *values, GError **error);
/* Reads a .npy of shape [h,w] or [tokens,h,w]; `tokens` (may be NULL) must
 * have n_tokens entries when given.  Non-finite cells are rejected. */
HsAttentionMap *hs_attention_map_load_npy      (const char *path, const char * const *tokens,
                                                double no_attn, GError **error);
/* The same from the open regular file `fd` (the caller keeps it). */
HsAttentionMap *hs_attention_map_load_npy_fd   (int fd, const char *path,
                                                const char * const *tokens, double no_attn,
                                                GError **error);
HsAttentionMap *hs_attention_map_ref           (HsAttentionMap *map);
void            hs_attention_map_unref         (HsAttentionMap *map);

guint           hs_attention_map_get_width     (const HsAttentionMap *map);
guint           hs_attention_map_get_height    (const HsAttentionMap *map);
guint           hs_attention_map_get_n_tokens  (const HsAttentionMap *map); /* 0 = sentence map only */
/* The sentence map: h × w values. */
const double   *hs_attention_map_peek_values   (const HsAttentionMap *map);
/* Per-token map `token` (0-based): h × w values; NULL when no tokens. */
/* Writes the map as a float32 .npy (hs_npy_write: atomically): the
 * per-token maps [tokens, h, w] when `tokens` and the map has them, else the
 * sentence map [h, w]. */
gboolean        hs_attention_map_save_npy      (const HsAttentionMap *map, const char *path,
                                                gboolean tokens, GError **error);
const double   *hs_attention_map_peek_token    (const HsAttentionMap *map, guint token);
const char     *hs_attention_map_get_token     (const HsAttentionMap *map, guint token);
void            hs_attention_map_set_tokens    (HsAttentionMap *map, const char * const *tokens);
double          hs_attention_map_get_no_attn   (const HsAttentionMap *map);
void            hs_attention_map_set_no_attn   (HsAttentionMap *map, double no_attn);
/* A − B (sentence maps) on A's grid, B resampled bilinearly when its grid
 * differs; `max_abs` (may be NULL) receives max |A − B|.  A difference too
 * large for a double is an HS_MAP_ERROR_NON_FINITE error. */
HsAttentionMap *hs_attention_map_difference    (const HsAttentionMap *a, const HsAttentionMap *b,
                                                double *max_abs, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsAttentionMap, hs_attention_map_unref)

G_END_DECLS
