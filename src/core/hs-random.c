/* hs-random.c — splitmix64 and xoshiro256** (see hs-random-private.h) */
#include "hs-random-private.h"

#include <math.h>

guint
hs_random_below (HsRandom *rng, guint n)
{
  guint64 limit, r;

  g_return_val_if_fail (n > 0, 0);

  limit = G_MAXUINT64 - G_MAXUINT64 % n;
  do
    r = hs_random_next (rng);
  while (r >= limit);
  return (guint) (r % n);
}

double
hs_random_gauss (HsRandom *rng)
{
  double u1 = hs_random_double (rng), u2 = hs_random_double (rng);

  /* u1 = 0 would give log(0) */
  if (u1 < 1e-300)
    u1 = 1e-300;
  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

void
hs_xoshiro256_init (guint64 s[4], guint64 seed)
{
  HsRandom seeder;

  hs_random_init (&seeder, seed);
  for (guint i = 0; i < 4; i++)
    s[i] = hs_random_next (&seeder);
}

guint64
hs_random_hash_string (const char *text)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);

  for (const guchar *p = (const guchar *) text; p != NULL && *p != '\0'; p++)
    h = (h ^ *p) * G_GUINT64_CONSTANT (0x100000001b3);
  return h;
}
