/* test-colormap.c — colour map LUTs against matplotlib's published tables */
#include <heatscope/heatscope.h>

#include <math.h>

#include "hs-test-util.h"

static void
assert_entry (HsColormap map, guint i, guint r, guint g, guint b)
{
  const guint8 *lut = hs_colormap_get_lut (map);

  g_assert_nonnull (lut);
  if (lut[3 * i] != r || lut[3 * i + 1] != g || lut[3 * i + 2] != b)
    g_error ("%s[%u] = (%u, %u, %u), expected (%u, %u, %u)", hs_colormap_to_string (map), i,
             lut[3 * i], lut[3 * i + 1], lut[3 * i + 2], r, g, b);
}

/* Expected bytes are round(255·v) of the float values published in
 * matplotlib's _cm_listed.py / _cm.py (written here by hand). */
static void
test_viridis (void)
{
  assert_entry (HS_COLORMAP_VIRIDIS, 0, 68, 1, 84);       /* 0.267004, 0.004874, 0.329415 */
  assert_entry (HS_COLORMAP_VIRIDIS, 128, 33, 145, 140);  /* 0.127568, 0.566949, 0.550556 */
  assert_entry (HS_COLORMAP_VIRIDIS, 255, 253, 231, 37);  /* 0.993248, 0.906157, 0.143936 */
}

static void
test_inferno (void)
{
  assert_entry (HS_COLORMAP_INFERNO, 0, 0, 0, 4);         /* 0.001462, 0.000466, 0.013866 */
  assert_entry (HS_COLORMAP_INFERNO, 255, 252, 255, 164); /* 0.988362, 0.998364, 0.644924 */
}

static void
test_turbo (void)
{
  assert_entry (HS_COLORMAP_TURBO, 0, 48, 18, 59);        /* 0.18995, 0.07176, 0.23217 */
  assert_entry (HS_COLORMAP_TURBO, 255, 122, 4, 3);       /* 0.47960, 0.01583, 0.01055 */
}

static void
test_jet (void)
{
  /* Segment data: x = 128/255; red ramps 0.35→0.66, blue falls 0.34→0.65:
   * r = (x − 0.35)/0.31 = 0.4902, g = 1, b = 1 − (x − 0.34)/0.31 = 0.4775. */
  assert_entry (HS_COLORMAP_JET, 0, 0, 0, 128);
  assert_entry (HS_COLORMAP_JET, 128, 125, 255, 122);
  assert_entry (HS_COLORMAP_JET, 255, 128, 0, 0);
  /* x = 32/255 = 0.1255: blue saturated (≥ 0.11), green just starting
   * (0.125→0.375: 255·4·(x − 0.125) = 0.5, a rounding tie) */
  {
    const guint8 *lut = hs_colormap_get_lut (HS_COLORMAP_JET);
    g_assert_cmpuint (lut[3 * 32], ==, 0);
    g_assert_cmpuint (lut[3 * 32 + 1], <=, 1);
    g_assert_cmpuint (lut[3 * 32 + 2], ==, 255);
  }
}

static void
test_grey_and_diverging (void)
{
  assert_entry (HS_COLORMAP_GREY, 0, 0, 0, 0);
  assert_entry (HS_COLORMAP_GREY, 77, 77, 77, 77);
  assert_entry (HS_COLORMAP_GREY, 255, 255, 255, 255);
  /* coolwarm ends: (0.2298057, 0.298717966, 0.753683153), (0.705673158, 0.01555616, 0.150232812) */
  assert_entry (HS_COLORMAP_DIVERGING, 0, 59, 76, 192);
  assert_entry (HS_COLORMAP_DIVERGING, 255, 180, 4, 38);
  g_assert_true (hs_colormap_is_diverging (HS_COLORMAP_DIVERGING));
  g_assert_false (hs_colormap_is_diverging (HS_COLORMAP_JET));
  /* the centre is near white-grey (0.865, 0.865, 0.865 at 0.5) */
  {
    const guint8 *lut = hs_colormap_get_lut (HS_COLORMAP_DIVERGING);
    for (guint c = 0; c < 3; c++)
      g_assert_cmpint (ABS ((int) lut[3 * 128 + c] - 221), <=, 4);
  }
}

static void
test_names (void)
{
  static const char *names[] = { "jet", "turbo", "viridis", "inferno", "grey", "diverging" };
  HsColormap map;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_assert_true (hs_colormap_from_string (names[i], &map));
      g_assert_cmpstr (hs_colormap_to_string (map), ==, names[i]);
      g_assert_nonnull (hs_colormap_get_title (map));
    }
  g_assert_true (hs_colormap_from_string ("GRAY", &map));
  g_assert_cmpint (map, ==, HS_COLORMAP_GREY);
  g_assert_true (hs_colormap_from_string ("coolwarm", &map));
  g_assert_cmpint (map, ==, HS_COLORMAP_DIVERGING);
  g_assert_false (hs_colormap_from_string ("rainbow", &map));
  g_assert_false (hs_colormap_from_string ("", &map));
  g_assert_false (hs_colormap_from_string (NULL, &map));
}

static void
test_lookup (void)
{
  double rgb[3];

  hs_colormap_lookup (HS_COLORMAP_GREY, 0.5, rgb);      /* round(127.5) = 128 */
  g_assert_cmpfloat_with_epsilon (rgb[0], 128 / 255.0, 1e-12);
  hs_colormap_lookup (HS_COLORMAP_JET, 2.0, rgb);       /* clamped to the top */
  g_assert_cmpfloat_with_epsilon (rgb[0], 128 / 255.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (rgb[2], 0.0, 1e-12);
  hs_colormap_lookup (HS_COLORMAP_JET, NAN, rgb);       /* NaN → bottom */
  g_assert_cmpfloat_with_epsilon (rgb[2], 128 / 255.0, 1e-12);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/colormap/viridis", test_viridis);
  g_test_add_func ("/hs/colormap/inferno", test_inferno);
  g_test_add_func ("/hs/colormap/turbo", test_turbo);
  g_test_add_func ("/hs/colormap/jet", test_jet);
  g_test_add_func ("/hs/colormap/grey-and-diverging", test_grey_and_diverging);
  g_test_add_func ("/hs/colormap/names", test_names);
  g_test_add_func ("/hs/colormap/lookup", test_lookup);
  return g_test_run ();
}
