/* test-limits.c — configurable resource limits */
#include <heatscope/heatscope.h>

#include "hs-test-util.h"

static void
test_defaults_and_set (void)
{
  HsLimits limits = *hs_limits_get ();

  g_assert_cmpuint (limits.max_image_pixels, >=, 6000 * 6000);
  g_assert_cmpuint (limits.max_tokens, >, 0);
  limits.max_image_pixels = 42;
  hs_limits_set (&limits);
  g_assert_cmpuint (hs_limits_get ()->max_image_pixels, ==, 42);
  hs_limits_reset ();
  g_assert_cmpuint (hs_limits_get ()->max_image_pixels, !=, 42);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/limits/defaults-and-set", test_defaults_and_set);
  return g_test_run ();
}
