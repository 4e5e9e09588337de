/* hs-lru-cache.c — byte-bounded LRU cache of reference-counted values
 *
 * A hash table finds the entry, a doubly linked queue keeps the order (head
 * = most recently used): lookup, insert and each eviction are O(1).  An
 * optional cap on the number of values bounds a cache of many small values
 * whose byte budget would take a whole session to fill.  One
 * mutex: the app's workers insert what they decode ahead while the main
 * thread looks up.  An entry may carry the stamp of the file its value was
 * decoded from: a stamped lookup compares it with the file's stamp now
 * (the caller's stat, outside the lock) and drops a value whose file
 * changed, so the check is made in one place for every cache of decoded
 * files.
 */
#include "hs-lru-cache.h"

typedef struct {
  char     *key;
  gpointer  value;
  gsize     bytes;
  gboolean  stamped;
  HsFileStamp stamp;   /* when stamped: the file the value was decoded from */
  GList     link;      /* in HsLruCache.order; data = this entry */
} Entry;

struct _HsLruCache {
  GMutex          lock;
  GHashTable     *entries;   /* key (owned by the entry) → Entry */
  GQueue          order;     /* head: most recently used */
  gsize           capacity, bytes;
  guint           max_items;  /* 0: bounded by bytes alone */
  guint64         hits, misses, evictions, stale;
  HsLruRefFunc  ref;
  GDestroyNotify  unref;
};

HsLruCache *
hs_lru_cache_new (gsize capacity_bytes, HsLruRefFunc ref, GDestroyNotify unref)
{
  HsLruCache *cache;

  g_return_val_if_fail (ref != NULL && unref != NULL, NULL);
  cache = g_new0 (HsLruCache, 1);
  g_mutex_init (&cache->lock);
  cache->entries = g_hash_table_new (g_str_hash, g_str_equal);
  g_queue_init (&cache->order);
  cache->capacity = capacity_bytes;
  cache->ref = ref;
  cache->unref = unref;
  return cache;
}

/* Unlinks and frees `entry`; its value is handed to *values for unref
 * outside the lock (a value's destructor may be slow or re-enter). */
static void
drop_entry (HsLruCache *cache, Entry *entry, GPtrArray *values)
{
  g_hash_table_remove (cache->entries, entry->key);
  g_queue_unlink (&cache->order, &entry->link);
  cache->bytes -= entry->bytes;
  g_ptr_array_add (values, entry->value);
  g_free (entry->key);
  g_free (entry);
}

/* Evicts from the least recently used end until the bytes fit `limit` and
 * the count fits max_items. */
static void
evict_to (HsLruCache *cache, gsize limit, GPtrArray *values)
{
  while ((cache->bytes > limit || (cache->max_items > 0 && cache->order.length > cache->max_items)) &&
         cache->order.tail != NULL)
    {
      drop_entry (cache, cache->order.tail->data, values);
      cache->evictions++;
    }
}

static void
release (HsLruCache *cache, GPtrArray *values)
{
  for (guint i = 0; i < values->len; i++)
    cache->unref (g_ptr_array_index (values, i));
  g_ptr_array_unref (values);
}

void
hs_lru_cache_free (HsLruCache *cache)
{
  if (cache == NULL)
    return;
  hs_lru_cache_clear (cache);
  g_hash_table_unref (cache->entries);
  g_mutex_clear (&cache->lock);
  g_free (cache);
}

/* The entry of `key`, or NULL; with `check`, an entry stamped other than
 * `now` (NULL: the file is gone) is dropped (its value to *dropped) and
 * counted stale.  Under the lock. */
static Entry *
find_entry (HsLruCache *cache, const char *key, gboolean check, const HsFileStamp *now,
            GPtrArray *dropped)
{
  Entry *entry = g_hash_table_lookup (cache->entries, key);

  if (entry != NULL && check && entry->stamped &&
      (now == NULL || !hs_file_stamp_equal (&entry->stamp, now)))
    {
      drop_entry (cache, entry, dropped);
      cache->stale++;
      entry = NULL;
    }
  return entry;
}

static gpointer
lookup (HsLruCache *cache, const char *key, gboolean check, const HsFileStamp *now)
{
  GPtrArray *dropped = g_ptr_array_new ();
  Entry *entry;
  gpointer value = NULL;

  g_mutex_lock (&cache->lock);
  entry = find_entry (cache, key, check, now, dropped);
  if (entry != NULL)
    {
      g_queue_unlink (&cache->order, &entry->link);
      g_queue_push_head_link (&cache->order, &entry->link);
      value = cache->ref (entry->value);
      cache->hits++;
    }
  else
    cache->misses++;
  g_mutex_unlock (&cache->lock);
  release (cache, dropped);
  return value;
}

gpointer
hs_lru_cache_lookup (HsLruCache *cache, const char *key)
{
  g_return_val_if_fail (cache != NULL && key != NULL, NULL);
  return lookup (cache, key, FALSE, NULL);
}

gpointer
hs_lru_cache_lookup_stamped (HsLruCache *cache, const char *key, const HsFileStamp *now)
{
  g_return_val_if_fail (cache != NULL && key != NULL, NULL);
  return lookup (cache, key, TRUE, now);
}

gboolean
hs_lru_cache_contains (HsLruCache *cache, const char *key)
{
  gboolean found;

  g_return_val_if_fail (cache != NULL && key != NULL, FALSE);
  g_mutex_lock (&cache->lock);
  found = g_hash_table_contains (cache->entries, key);
  g_mutex_unlock (&cache->lock);
  return found;
}

gboolean
hs_lru_cache_contains_stamped (HsLruCache *cache, const char *key, const HsFileStamp *now)
{
  GPtrArray *dropped;
  gboolean found;

  g_return_val_if_fail (cache != NULL && key != NULL, FALSE);
  dropped = g_ptr_array_new ();
  g_mutex_lock (&cache->lock);
  found = find_entry (cache, key, TRUE, now, dropped) != NULL;
  g_mutex_unlock (&cache->lock);
  release (cache, dropped);
  return found;
}

gboolean
hs_lru_cache_insert (HsLruCache *cache, const char *key, gpointer value, gsize bytes)
{
  return hs_lru_cache_insert_stamped (cache, key, value, bytes, NULL);
}

gboolean
hs_lru_cache_insert_stamped (HsLruCache *cache, const char *key, gpointer value, gsize bytes,
                             const HsFileStamp *stamp)
{
  GPtrArray *dropped = g_ptr_array_new ();
  Entry *entry;
  gboolean kept = FALSE;

  g_return_val_if_fail (cache != NULL && key != NULL && value != NULL, FALSE);
  g_mutex_lock (&cache->lock);
  entry = g_hash_table_lookup (cache->entries, key);
  if (entry != NULL)
    drop_entry (cache, entry, dropped);
  if (bytes <= cache->capacity)
    {
      entry = g_new0 (Entry, 1);
      entry->key = g_strdup (key);
      entry->value = cache->ref (value);
      entry->bytes = bytes;
      entry->stamped = stamp != NULL;
      if (stamp != NULL)
        entry->stamp = *stamp;
      entry->link.data = entry;
      g_hash_table_insert (cache->entries, entry->key, entry);
      g_queue_push_head_link (&cache->order, &entry->link);
      cache->bytes += bytes;
      evict_to (cache, cache->capacity, dropped);
      kept = TRUE;
    }
  g_mutex_unlock (&cache->lock);
  release (cache, dropped);
  return kept;
}

void
hs_lru_cache_remove (HsLruCache *cache, const char *key)
{
  GPtrArray *dropped = g_ptr_array_new ();
  Entry *entry;

  g_return_if_fail (cache != NULL && key != NULL);
  g_mutex_lock (&cache->lock);
  entry = g_hash_table_lookup (cache->entries, key);
  if (entry != NULL)
    drop_entry (cache, entry, dropped);
  g_mutex_unlock (&cache->lock);
  release (cache, dropped);
}

void
hs_lru_cache_clear (HsLruCache *cache)
{
  GPtrArray *dropped = g_ptr_array_new ();

  g_return_if_fail (cache != NULL);
  g_mutex_lock (&cache->lock);
  while (cache->order.head != NULL)
    drop_entry (cache, cache->order.head->data, dropped);
  g_mutex_unlock (&cache->lock);
  release (cache, dropped);
}

/* Sets the byte capacity and/or the count cap (NULL: unchanged) and evicts
 * what no longer fits. */
static void
set_limits (HsLruCache *cache, const gsize *capacity_bytes, const guint *max_items)
{
  GPtrArray *dropped = g_ptr_array_new ();

  g_mutex_lock (&cache->lock);
  if (capacity_bytes != NULL)
    cache->capacity = *capacity_bytes;
  if (max_items != NULL)
    cache->max_items = *max_items;
  evict_to (cache, cache->capacity, dropped);
  g_mutex_unlock (&cache->lock);
  release (cache, dropped);
}

void
hs_lru_cache_set_capacity (HsLruCache *cache, gsize capacity_bytes)
{
  g_return_if_fail (cache != NULL);
  set_limits (cache, &capacity_bytes, NULL);
}

void
hs_lru_cache_set_max_items (HsLruCache *cache, guint max_items)
{
  g_return_if_fail (cache != NULL);
  set_limits (cache, NULL, &max_items);
}

#define GETTER(type, name, field)                 \
  type                                            \
  hs_lru_cache_get_##name (HsLruCache *cache)     \
  {                                               \
    type value;                                   \
    g_return_val_if_fail (cache != NULL, 0);      \
    g_mutex_lock (&cache->lock);                  \
    value = cache->field;                         \
    g_mutex_unlock (&cache->lock);                \
    return value;                                 \
  }

GETTER (gsize, capacity, capacity)
GETTER (gsize, bytes, bytes)
GETTER (guint64, hits, hits)
GETTER (guint64, misses, misses)
GETTER (guint64, evictions, evictions)
GETTER (guint64, stale, stale)
GETTER (guint, n_items, order.length)
GETTER (guint, max_items, max_items)

char **
hs_lru_cache_dup_keys (HsLruCache *cache)
{
  GPtrArray *keys = g_ptr_array_new ();

  g_return_val_if_fail (cache != NULL, NULL);
  g_mutex_lock (&cache->lock);
  for (GList *l = cache->order.head; l != NULL; l = l->next)
    g_ptr_array_add (keys, g_strdup (((Entry *) l->data)->key));
  g_mutex_unlock (&cache->lock);
  g_ptr_array_add (keys, NULL);
  return (char **) g_ptr_array_free (keys, FALSE);
}
