/* test-lru-cache.c — HsLruCache: capacity in bytes, eviction order, hits and
 * misses, references (display-free; hand-worked sequences). */
#include "hs-test-util.h"

#include <heatscope/hs-lru-cache.h>

/* A counted value: refs tells how many references are alive. */
typedef struct {
  int  refs;
  int *alive;     /* values alive in the test */
} Value;

static gpointer
value_ref (gpointer data)
{
  g_atomic_int_inc (&((Value *) data)->refs);
  return data;
}

static void
value_unref (gpointer data)
{
  Value *v = data;

  g_assert_cmpint (g_atomic_int_get (&v->refs), >, 0);
  if (g_atomic_int_dec_and_test (&v->refs))
    {
      g_atomic_int_add (v->alive, -1);
      g_free (v);
    }
}

static Value *
value_new (int *alive)
{
  Value *v = g_new0 (Value, 1);

  v->refs = 1;
  v->alive = alive;
  g_atomic_int_inc (alive);
  return v;
}

/* Inserts a fresh value under key and drops the caller's reference. */
static gboolean
put (HsLruCache *cache, const char *key, gsize bytes, int *alive)
{
  Value *v = value_new (alive);
  gboolean kept = hs_lru_cache_insert (cache, key, v, bytes);

  value_unref (v);
  return kept;
}

static void
assert_order (HsLruCache *cache, const char *expected)
{
  g_auto(GStrv) keys = hs_lru_cache_dup_keys (cache);
  g_autofree char *joined = g_strjoinv (" ", keys);

  g_assert_cmpstr (joined, ==, expected);
}

static void
test_capacity_by_bytes (void)
{
  int alive = 0;
  HsLruCache *cache = hs_lru_cache_new (100, value_ref, value_unref);

  g_assert_true (put (cache, "a", 40, &alive));
  g_assert_true (put (cache, "b", 40, &alive));
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), ==, 80);
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), ==, 2);
  /* 80 + 30 > 100: the least recently used (a) goes; 40 + 30 = 70 stay. */
  g_assert_true (put (cache, "c", 30, &alive));
  assert_order (cache, "c b");
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), ==, 70);
  g_assert_cmpuint (hs_lru_cache_get_evictions (cache), ==, 1);
  g_assert_cmpint (alive, ==, 2);                 /* a's value was released */
  /* Exactly the capacity fits: 70 + 30 = 100. */
  g_assert_true (put (cache, "d", 30, &alive));
  assert_order (cache, "d c b");
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), ==, 100);
  /* One value of 90 pushes out b, c and d in that order (40, 30, 30). */
  g_assert_true (put (cache, "e", 90, &alive));
  assert_order (cache, "e");
  g_assert_cmpuint (hs_lru_cache_get_evictions (cache), ==, 4);
  /* Larger than the whole capacity: not kept, nothing else evicted. */
  g_assert_false (put (cache, "huge", 101, &alive));
  assert_order (cache, "e");
  g_assert_cmpint (alive, ==, 1);
  /* Zero-byte values count as items, never as bytes. */
  g_assert_true (put (cache, "z", 0, &alive));
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), ==, 90);
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), ==, 2);
  hs_lru_cache_free (cache);
  g_assert_cmpint (alive, ==, 0);
}

/* Many small values: the count cap binds long before the bytes do, and
 * the cache plateaus at max_items whatever is inserted after. */
static void
test_max_items (void)
{
  int alive = 0;
  HsLruCache *cache = hs_lru_cache_new (1000, value_ref, value_unref);

  g_assert_cmpuint (hs_lru_cache_get_max_items (cache), ==, 0);   /* no count limit by default */
  for (guint i = 0; i < 5; i++)
    {
      char key[8];

      g_snprintf (key, sizeof key, "k%u", i);
      g_assert_true (put (cache, key, 10, &alive));
    }
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), ==, 5);
  /* Lowering the cap evicts at once, the least recently used first. */
  hs_lru_cache_set_max_items (cache, 3);
  g_assert_cmpuint (hs_lru_cache_get_max_items (cache), ==, 3);
  assert_order (cache, "k4 k3 k2");
  g_assert_cmpuint (hs_lru_cache_get_evictions (cache), ==, 2);
  g_assert_cmpint (alive, ==, 3);
  /* 100 more values of 10 bytes (1000 in all: the byte capacity alone would
   * keep every one): 3 stay, the newest. */
  for (guint i = 5; i < 105; i++)
    {
      char key[8];

      g_snprintf (key, sizeof key, "k%u", i);
      g_assert_true (put (cache, key, 10, &alive));
      g_assert_cmpuint (hs_lru_cache_get_n_items (cache), <=, 3);
    }
  assert_order (cache, "k104 k103 k102");
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), ==, 30);
  g_assert_cmpuint (hs_lru_cache_get_evictions (cache), ==, 102);
  g_assert_cmpint (alive, ==, 3);
  /* Replacing a key does not count twice. */
  g_assert_true (put (cache, "k102", 10, &alive));
  assert_order (cache, "k102 k104 k103");
  /* The bytes still bind when they are reached first: 3 × 400 > 1000. */
  g_assert_true (put (cache, "big1", 400, &alive));
  g_assert_true (put (cache, "big2", 400, &alive));
  assert_order (cache, "big2 big1 k102");
  g_assert_true (put (cache, "big3", 400, &alive));
  assert_order (cache, "big3 big2");
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), ==, 800);
  /* 0 lifts the count limit again. */
  hs_lru_cache_set_max_items (cache, 0);
  g_assert_true (put (cache, "s1", 10, &alive));
  g_assert_true (put (cache, "s2", 10, &alive));
  assert_order (cache, "s2 s1 big3 big2");
  hs_lru_cache_free (cache);
  g_assert_cmpint (alive, ==, 0);
}

static void
test_eviction_order (void)
{
  int alive = 0;
  HsLruCache *cache = hs_lru_cache_new (30, value_ref, value_unref);
  Value *v;

  put (cache, "a", 10, &alive);
  put (cache, "b", 10, &alive);
  put (cache, "c", 10, &alive);
  assert_order (cache, "c b a");
  /* A lookup makes a the most recently used: b is now the oldest. */
  v = hs_lru_cache_lookup (cache, "a");
  g_assert_nonnull (v);
  value_unref (v);
  assert_order (cache, "a c b");
  put (cache, "d", 10, &alive);
  assert_order (cache, "d a c");
  g_assert_false (hs_lru_cache_contains (cache, "b"));
  /* contains neither counts nor reorders. */
  g_assert_true (hs_lru_cache_contains (cache, "c"));
  assert_order (cache, "d a c");
  /* Replacing a key's value moves it to the front with its new size. */
  put (cache, "c", 20, &alive);
  assert_order (cache, "c d");
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), ==, 30);
  /* Shrinking the capacity evicts from the old end at once. */
  hs_lru_cache_set_capacity (cache, 20);
  assert_order (cache, "c");
  g_assert_cmpuint (hs_lru_cache_get_capacity (cache), ==, 20);
  hs_lru_cache_remove (cache, "c");
  hs_lru_cache_remove (cache, "never there");
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), ==, 0);
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), ==, 0);
  g_assert_cmpint (alive, ==, 0);
  hs_lru_cache_free (cache);
}

static void
test_hits_and_misses (void)
{
  int alive = 0;
  HsLruCache *cache = hs_lru_cache_new (1000, value_ref, value_unref);
  Value *v;

  g_assert_null (hs_lru_cache_lookup (cache, "x"));
  put (cache, "x", 1, &alive);
  for (int i = 0; i < 3; i++)
    {
      v = hs_lru_cache_lookup (cache, "x");
      g_assert_nonnull (v);
      value_unref (v);
    }
  g_assert_null (hs_lru_cache_lookup (cache, "y"));
  g_assert_cmpuint (hs_lru_cache_get_hits (cache), ==, 3);
  g_assert_cmpuint (hs_lru_cache_get_misses (cache), ==, 2);
  hs_lru_cache_free (cache);
}

/* A value kept with its file's stamp is returned only for that stamp: a
 * stamped lookup or contains with another stamp (the file replaced) or
 * none (the file gone) drops it, releases it and counts a miss and a stale
 * value; an unstamped value is returned whatever the stamp; plain lookups
 * do not check. */
static void
test_stamped (void)
{
  int alive = 0;
  HsLruCache *cache = hs_lru_cache_new (1000, value_ref, value_unref);
  const HsFileStamp old = { .device = 1, .inode = 10, .size = 100, .mtime_sec = 7, .mtime_nsec = 1 };
  HsFileStamp renamed = old, rewritten = old;
  Value *v = value_new (&alive), *got;

  renamed.inode = 11;
  rewritten.mtime_nsec = 2;
  g_assert_true (hs_lru_cache_insert_stamped (cache, "map", v, 10, &old));
  got = hs_lru_cache_lookup_stamped (cache, "map", &old);
  g_assert_true (got == v);
  value_unref (got);
  g_assert_true (hs_lru_cache_contains_stamped (cache, "map", &old));
  /* plain lookups do not compare */
  got = hs_lru_cache_lookup (cache, "map");
  g_assert_true (got == v);
  value_unref (got);
  g_assert_cmpuint (hs_lru_cache_get_hits (cache), ==, 2);
  /* replaced: dropped, and the cache's reference released */
  g_assert_null (hs_lru_cache_lookup_stamped (cache, "map", &renamed));
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), ==, 0);
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), ==, 0);
  g_assert_cmpuint (hs_lru_cache_get_misses (cache), ==, 1);
  g_assert_cmpuint (hs_lru_cache_get_stale (cache), ==, 1);
  g_assert_cmpint (v->refs, ==, 1);   /* ours alone */
  /* rewritten in place: contains says no and drops it */
  g_assert_true (hs_lru_cache_insert_stamped (cache, "map", v, 10, &old));
  g_assert_false (hs_lru_cache_contains_stamped (cache, "map", &rewritten));
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), ==, 0);
  g_assert_cmpuint (hs_lru_cache_get_stale (cache), ==, 2);
  /* gone: no stamp now */
  g_assert_true (hs_lru_cache_insert_stamped (cache, "map", v, 10, &old));
  g_assert_null (hs_lru_cache_lookup_stamped (cache, "map", NULL));
  g_assert_cmpuint (hs_lru_cache_get_stale (cache), ==, 3);
  /* unstamped: valid whatever the file's stamp */
  g_assert_true (hs_lru_cache_insert (cache, "map", v, 10));
  got = hs_lru_cache_lookup_stamped (cache, "map", &renamed);
  g_assert_true (got == v);
  value_unref (got);
  g_assert_true (hs_lru_cache_contains_stamped (cache, "map", NULL));
  g_assert_cmpuint (hs_lru_cache_get_stale (cache), ==, 3);
  value_unref (v);
  hs_lru_cache_free (cache);
  g_assert_cmpint (alive, ==, 0);
}

/* A value handed out by a lookup outlives its eviction and the cache. */
static void
test_references (void)
{
  int alive = 0;
  HsLruCache *cache = hs_lru_cache_new (10, value_ref, value_unref);
  Value *held;

  put (cache, "a", 10, &alive);
  held = hs_lru_cache_lookup (cache, "a");
  g_assert_cmpint (held->refs, ==, 2);            /* the cache's and ours */
  put (cache, "b", 10, &alive);                   /* evicts a */
  g_assert_cmpint (held->refs, ==, 1);
  g_assert_cmpint (alive, ==, 2);
  hs_lru_cache_clear (cache);
  g_assert_cmpint (alive, ==, 1);
  hs_lru_cache_free (cache);
  value_unref (held);
  g_assert_cmpint (alive, ==, 0);
}

typedef struct {
  HsLruCache *cache;
  int        *alive;
  guint       seed;
} Worker;

static gpointer
worker_run (gpointer data)
{
  Worker *w = data;
  GRand *rand = g_rand_new_with_seed (w->seed);

  for (int i = 0; i < 20000; i++)
    {
      char key[16];
      Value *v;

      g_snprintf (key, sizeof key, "k%d", g_rand_int_range (rand, 0, 64));
      if (g_rand_boolean (rand))
        {
          v = value_new (w->alive);
          hs_lru_cache_insert (w->cache, key, v, g_rand_int_range (rand, 1, 8));
          value_unref (v);
        }
      else if ((v = hs_lru_cache_lookup (w->cache, key)) != NULL)
        value_unref (v);
    }
  g_rand_free (rand);
  return NULL;
}

/* Two threads inserting and looking up at once: the byte sum stays within
 * the capacity and every value is released in the end. */
static void
test_threads (void)
{
  int alive = 0;
  HsLruCache *cache = hs_lru_cache_new (100, value_ref, value_unref);
  Worker w[2] = { { cache, &alive, 1 }, { cache, &alive, 2 } };
  GThread *t0 = g_thread_new ("lru-0", worker_run, &w[0]);
  GThread *t1 = g_thread_new ("lru-1", worker_run, &w[1]);

  g_thread_join (t0);
  g_thread_join (t1);
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), <=, 100);
  g_assert_cmpuint (hs_lru_cache_get_hits (cache) + hs_lru_cache_get_misses (cache), >, 0);
  hs_lru_cache_free (cache);
  g_assert_cmpint (alive, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lru-cache/capacity-by-bytes", test_capacity_by_bytes);
  g_test_add_func ("/lru-cache/max-items", test_max_items);
  g_test_add_func ("/lru-cache/eviction-order", test_eviction_order);
  g_test_add_func ("/lru-cache/hits-and-misses", test_hits_and_misses);
  g_test_add_func ("/lru-cache/references", test_references);
  g_test_add_func ("/lru-cache/stamped", test_stamped);
  g_test_add_func ("/lru-cache/threads", test_threads);
  return g_test_run ();
}
