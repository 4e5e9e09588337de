/* hs-lru-cache.h — a thread-safe cache of reference-counted values, bounded
 * by bytes, least recently used first out.
 *
 * The app keeps decoded images and attention maps in two of these, so that
 * revisiting an instance (or stepping onto a neighbour decoded ahead by a
 * worker) costs a lookup instead of a decode.  Each value is entered with
 * its size in bytes; inserting evicts the least recently used values until
 * the sum fits the capacity (and, when set, the count fits max_items).  A
 * value larger than the whole capacity is not kept.  A lookup that finds
 * the key counts a hit and makes the value the most recently used; one that
 * does not counts a miss.
 *
 *   HsLruCache *images = hs_lru_cache_new (64 << 20, (HsLruRefFunc) hs_image_ref,
 *                                          (GDestroyNotify) hs_image_unref);
 *   hs_lru_cache_insert (images, path, image, hs_image_get_n_bytes (image));
 *   HsImage *again = hs_lru_cache_lookup (images, path);   // a new reference or NULL
 *
 * A value decoded from a file can carry the file's stamp (hs-file-stamp.h,
 * taken before the decode): a stamped lookup with the file's stamp now
 * returns it only when the two are equal, and otherwise (or with no stamp
 * now: the file is gone) drops it and counts a miss — a cache never shows
 * a file's old content after the file was replaced.
 */
#pragma once

#include <glib.h>

#include "hs-file-stamp.h"

G_BEGIN_DECLS

typedef struct _HsLruCache HsLruCache;

/* Takes a new reference to a value and returns it. */
typedef gpointer (*HsLruRefFunc) (gpointer value);

/* ref takes a new reference to a value (the cache's own, or one for a
 * lookup's caller), unref drops one. */
HsLruCache *hs_lru_cache_new          (gsize           capacity_bytes,
                                       HsLruRefFunc    ref,
                                       GDestroyNotify  unref);
void        hs_lru_cache_free         (HsLruCache     *cache);

/* A new reference to the value of `key` (now the most recently used), or
 * NULL; counts a hit or a miss. */
gpointer    hs_lru_cache_lookup       (HsLruCache     *cache,
                                       const char     *key);
/* Whether `key` is cached, without counting or reordering. */
gboolean    hs_lru_cache_contains     (HsLruCache     *cache,
                                       const char     *key);
/* Keeps a reference to `value` under `key` (replacing a value there) as the
 * most recently used, then evicts from the least recently used end until
 * the bytes fit.  FALSE when the value alone exceeds the capacity (then it
 * is not kept, and an older value under `key` is dropped). */
gboolean    hs_lru_cache_insert       (HsLruCache     *cache,
                                       const char     *key,
                                       gpointer        value,
                                       gsize           bytes);
 /* As hs_lru_cache_insert, the value decoded from a file whose identity was
 * `stamp` (NULL: none — then valid whatever the file's stamp). */
gboolean    hs_lru_cache_insert_stamped (HsLruCache        *cache,
                                         const char        *key,
                                         gpointer           value,
                                         gsize              bytes,
                                         const HsFileStamp *stamp);
/* As hs_lru_cache_lookup and hs_lru_cache_contains, for a file whose stamp
 * is `now` (NULL: gone or unreadable): a value inserted with a different
 * stamp, or with one when `now` is NULL, is dropped and not returned
 * (lookup counts a miss). */
gpointer    hs_lru_cache_lookup_stamped   (HsLruCache        *cache,
                                           const char        *key,
                                           const HsFileStamp *now);
gboolean    hs_lru_cache_contains_stamped (HsLruCache        *cache,
                                           const char        *key,
                                           const HsFileStamp *now);
void        hs_lru_cache_remove       (HsLruCache     *cache,
                                       const char     *key);
void        hs_lru_cache_clear        (HsLruCache     *cache);
/* Evicts at once when the new capacity is smaller. */
void        hs_lru_cache_set_capacity (HsLruCache     *cache,
                                       gsize           capacity_bytes);
gsize       hs_lru_cache_get_capacity (HsLruCache     *cache);
/* At most `max_items` values besides the byte capacity (0, the default: no
 * limit on the count); evicts at once, least recently used first, when the
 * cache holds more. */
void        hs_lru_cache_set_max_items (HsLruCache    *cache,
                                        guint          max_items);
guint       hs_lru_cache_get_max_items (HsLruCache    *cache);
gsize       hs_lru_cache_get_bytes    (HsLruCache     *cache);
guint       hs_lru_cache_get_n_items  (HsLruCache     *cache);
guint64     hs_lru_cache_get_hits     (HsLruCache     *cache);
guint64     hs_lru_cache_get_misses   (HsLruCache     *cache);
guint64     hs_lru_cache_get_evictions (HsLruCache    *cache);
/* Values dropped by a stamped lookup or contains because their file changed. */
guint64     hs_lru_cache_get_stale    (HsLruCache     *cache);
/* The keys from the most to the least recently used (a new NULL-terminated
 * array; for tests and diagnostics). */
char      **hs_lru_cache_dup_keys     (HsLruCache     *cache);

G_END_DECLS
