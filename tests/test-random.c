/* test-random.c — splitmix64 and xoshiro256** against their published
 * reference outputs, and the draws built on them */
#include <heatscope/heatscope.h>

#include <math.h>

#include "hs-test-util.h"
/* Private to libheatscope; the test links the static library. */
#include "../src/core/hs-random-private.h"

/* The reference test of splitmix64 in rust-random/rngs (rand_xoshiro,
 * splitmix64.rs), "produced with the reference implementation" splitmix64.c
 * of prng.di.unimi.it: the first ten of its fifty outputs for this seed. */
static const guint64 splitmix_seed = G_GUINT64_CONSTANT (1477776061723855037);
static const guint64 splitmix_expected[] = {
  G_GUINT64_CONSTANT (1985237415132408290), G_GUINT64_CONSTANT (2979275885539914483),
  G_GUINT64_CONSTANT (13511426838097143398), G_GUINT64_CONSTANT (8488337342461049707),
  G_GUINT64_CONSTANT (15141737807933549159), G_GUINT64_CONSTANT (17093170987380407015),
  G_GUINT64_CONSTANT (16389528042912955399), G_GUINT64_CONSTANT (13177319091862933652),
  G_GUINT64_CONSTANT (10841969400225389492), G_GUINT64_CONSTANT (17094824097954834098),
};

static void
test_splitmix64_reference (void)
{
  HsRandom rng;

  hs_random_init (&rng, splitmix_seed);
  for (guint i = 0; i < G_N_ELEMENTS (splitmix_expected); i++)
    g_assert_cmpuint (hs_random_next (&rng), ==, splitmix_expected[i]);

  /* Seed 0: the first output the xoshiro authors' seeding gives (also in
   * test-summary.c). */
  hs_random_init (&rng, 0);
  g_assert_cmphex (hs_random_next (&rng), ==, G_GUINT64_CONSTANT (0xe220a8397b1dcdaf));
}

/* rand_xoshiro's xoshiro256starstar.rs reference test: state {1, 2, 3, 4},
 * values from the authors' C code. */
static void
test_xoshiro256_reference (void)
{
  static const guint64 expected[] = {
    11520, 0, 1509978240, G_GUINT64_CONSTANT (1215971899390074240),
    G_GUINT64_CONSTANT (1216172134540287360), G_GUINT64_CONSTANT (607988272756665600),
    G_GUINT64_CONSTANT (16172922978634559625), G_GUINT64_CONSTANT (8476171486693032832),
    G_GUINT64_CONSTANT (10595114339597558777), G_GUINT64_CONSTANT (2904607092377533576),
  };
  guint64 s[4] = { 1, 2, 3, 4 };

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpuint (hs_xoshiro256_next (s), ==, expected[i]);
}

/* Seeding = four successive splitmix64 outputs of the seed. */
static void
test_xoshiro256_seeding (void)
{
  guint64 s[4];

  hs_xoshiro256_init (s, splitmix_seed);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpuint (s[i], ==, splitmix_expected[i]);
}

static void
test_double (void)
{
  HsRandom rng;

  g_assert_cmpfloat (hs_random_bits_to_double (0), ==, 0.0);
  g_assert_cmpfloat (hs_random_bits_to_double (G_GUINT64_CONSTANT (1) << 63), ==, 0.5);
  g_assert_cmpfloat (hs_random_bits_to_double (G_MAXUINT64), ==, 1.0 - 0x1.0p-53);
  g_assert_cmpfloat (hs_random_bits_to_double (0x7ff), ==, 0.0);   /* low 11 bits unused */

  /* The draws of the reference stream, by hand: (x >> 11) / 2⁵³. */
  hs_random_init (&rng, splitmix_seed);
  g_assert_cmpfloat (hs_random_double (&rng), ==, (double) (splitmix_expected[0] >> 11) / 9007199254740992.0);
  g_assert_cmpfloat (hs_random_double_range (&rng, -2.0, 6.0), ==,
                     -2.0 + 8.0 * ((double) (splitmix_expected[1] >> 11) / 9007199254740992.0));
  /* 13511426838097143398 / 2⁶⁴ = 0.7324… → floor(0.7324 · 10) = 7 */
  g_assert_cmpuint (hs_random_scaled (&rng, 10), ==, 7);
  /* 8488337342461049707 / 2⁶⁴ = 0.4601… → floor(0.4601 · 1000) = 460 */
  g_assert_cmpuint (hs_random_scaled (&rng, 1000), ==, 460);
}

static void
test_below (void)
{
  HsRandom rng;
  guint counts[6] = { 0 };

  /* Without rejection: output mod n.  8488337342461049707 mod 1000 = 707. */
  hs_random_init (&rng, splitmix_seed);
  g_assert_cmpuint (hs_random_below (&rng, 7), ==, 1985237415132408290 % 7);
  g_assert_cmpuint (hs_random_below (&rng, 1), ==, 0);
  g_assert_cmpuint (hs_random_below (&rng, 2), ==, 0);    /* 13511426838097143398 is even */
  g_assert_cmpuint (hs_random_below (&rng, 1000), ==, 707);

  /* Rejection: from this state (python3: the inverse of splitmix64's mixer)
   * the first output is 2⁶⁴ − 1, a multiple of 3, so it lies at the limit
   * and is rejected; the draw is the second output 0xc0986a9c933f53d1 mod 3
   * = 1 (without rejection it would be 0). */
  hs_random_init (&rng, G_GUINT64_CONSTANT (0x31628af67b2131ab));
  g_assert_cmphex (hs_random_next (&rng), ==, G_MAXUINT64);
  hs_random_init (&rng, G_GUINT64_CONSTANT (0x31628af67b2131ab));
  g_assert_cmpuint (hs_random_below (&rng, 3), ==, 1);
  g_assert_cmphex (rng.state, ==, G_GUINT64_CONSTANT (0x31628af67b2131ab)
                                  + 2 * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  /* Every value of a small range comes up, none outside it. */
  hs_random_init (&rng, 42);
  for (guint i = 0; i < 6000; i++)
    {
      guint v = hs_random_below (&rng, 6);

      g_assert_cmpuint (v, <, 6);
      counts[v]++;
    }
  for (guint v = 0; v < 6; v++)
    {
      g_assert_cmpuint (counts[v], >, 800);
      g_assert_cmpuint (counts[v], <, 1200);
    }
}

static void
test_gauss (void)
{
  HsRandom rng;
  double u1 = (double) (splitmix_expected[0] >> 11) / 9007199254740992.0;
  double u2 = (double) (splitmix_expected[1] >> 11) / 9007199254740992.0;
  double sum = 0, sum2 = 0;
  const guint n = 20000;

  /* Box–Muller, cosine branch, of the first two draws. */
  hs_random_init (&rng, splitmix_seed);
  g_assert_cmpfloat_with_epsilon (hs_random_gauss (&rng),
                                  sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2), 1e-15);
  g_assert_cmpuint (rng.state, ==, splitmix_seed + 2 * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  hs_random_init (&rng, 7);
  for (guint i = 0; i < n; i++)
    {
      double z = hs_random_gauss (&rng);

      g_assert_true (isfinite (z));
      sum += z;
      sum2 += z * z;
    }
  /* mean 0 ± 4σ/√n, variance 1 ± 0.05 */
  g_assert_cmpfloat (fabs (sum / n), <, 4.0 / sqrt (n));
  g_assert_cmpfloat (fabs (sum2 / n - 1.0), <, 0.05);
}

/* FNV-1a 64 test vectors of its authors (isthe.com/chongo/tech/comp/fnv). */
static void
test_hash (void)
{
  g_assert_cmphex (hs_random_hash_string (""), ==, G_GUINT64_CONSTANT (0xcbf29ce484222325));
  g_assert_cmphex (hs_random_hash_string (NULL), ==, G_GUINT64_CONSTANT (0xcbf29ce484222325));
  g_assert_cmphex (hs_random_hash_string ("a"), ==, G_GUINT64_CONSTANT (0xaf63dc4c8601ec8c));
  g_assert_cmphex (hs_random_hash_string ("foobar"), ==, G_GUINT64_CONSTANT (0x85944171f73967e8));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/random/splitmix64-reference", test_splitmix64_reference);
  g_test_add_func ("/hs/random/xoshiro256-reference", test_xoshiro256_reference);
  g_test_add_func ("/hs/random/xoshiro256-seeding", test_xoshiro256_seeding);
  g_test_add_func ("/hs/random/double", test_double);
  g_test_add_func ("/hs/random/below", test_below);
  g_test_add_func ("/hs/random/gauss", test_gauss);
  g_test_add_func ("/hs/random/hash", test_hash);
  return g_test_run ();
}
