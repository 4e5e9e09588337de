/* hs-random-private.h — the library's seeded generators
 *
 * Everything the library draws from a seed (demo phantoms, perturbations,
 * annotation aliases, bootstrap resamples, the random baseline) comes from
 * the two generators below, so one seed gives the same numbers on every
 * machine, compiler and thread layout.  Seeds are part of output contracts
 * (`heatscope-cli demo --seed`, `metrics --summary --seed`, `--perturb-seed`,
 * an annotation project's "seed"): never change an algorithm here.
 *
 * splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; the constants of Vigna's splitmix64.c): a 64-bit
 * state advanced by the golden-ratio increment, each output a mix of the new
 * state.  Used directly for short streams and to seed xoshiro256**.
 *
 * xoshiro256** 1.0 (Blackman & Vigna, "Scrambled linear pseudorandom number
 * generators", ACM TOMS 2021; xoshiro256starstar.c): 256-bit state, period
 * 2²⁵⁶ − 1, seeded with four successive splitmix64 outputs of the seed as
 * its authors recommend.  Used for long streams. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* --- splitmix64 ------------------------------------------------------------ */

typedef struct {
  guint64 state;
} HsRandom;

/* The generator whose first output is splitmix64(seed). */
static inline void
hs_random_init (HsRandom *rng, guint64 seed)
{
  rng->state = seed;
}

static inline guint64
hs_random_next (HsRandom *rng)
{
  guint64 z = (rng->state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* The top 53 bits of a 64-bit output as a double, uniform in [0, 1). */
static inline double
hs_random_bits_to_double (guint64 bits)
{
  return (double) (bits >> 11) * 0x1.0p-53;
}

/* Uniform in [0, 1). */
static inline double
hs_random_double (HsRandom *rng)
{
  return hs_random_bits_to_double (hs_random_next (rng));
}

/* Uniform in [lo, hi). */
static inline double
hs_random_double_range (HsRandom *rng, double lo, double hi)
{
  return lo + (hi - lo) * hs_random_double (rng);
}

/* floor(u · n) for u = hs_random_double(): one output per draw, a bias
 * below n / 2⁵³.  The demo phantoms are defined by it; new code wants
 * hs_random_below(). */
static inline guint
hs_random_scaled (HsRandom *rng, guint n)
{
  return (guint) (hs_random_double (rng) * n);
}

/* Uniform in [0, n), n ≥ 1, without modulo bias: outputs at or above the
 * largest multiple of n are rejected, then output mod n. */
guint    hs_random_below  (HsRandom *rng, guint n);

/* Standard normal deviate by Box–Muller (cosine branch) from two draws. */
double   hs_random_gauss  (HsRandom *rng);

/* --- xoshiro256** ---------------------------------------------------------- */

/* s[0..3] = four successive splitmix64 outputs of `seed`. */
void     hs_xoshiro256_init (guint64 s[4], guint64 seed);

static inline guint64
hs_xoshiro256_rotl (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static inline guint64
hs_xoshiro256_next (guint64 s[4])
{
  guint64 result = hs_xoshiro256_rotl (s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = hs_xoshiro256_rotl (s[3], 45);
  return result;
}

/* --- deriving seeds from names ---------------------------------------------- */

/* 64-bit FNV-1a of the bytes of `text` (NULL hashes like ""), to fold an
 * instance or sentence id into a seed. */
guint64  hs_random_hash_string (const char *text);

G_END_DECLS
