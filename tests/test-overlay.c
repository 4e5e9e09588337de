/* test-overlay.c — value scaling, strength curves, threshold, colorize, composite */
#include <heatscope/heatscope.h>

#include <math.h>

#include "hs-test-util.h"

static guint32
pixel (cairo_surface_t *s, int x, int y)
{
  cairo_surface_flush (s);
  return ((guint32 *) (void *) (cairo_image_surface_get_data (s)
                                + y * cairo_image_surface_get_stride (s)))[x];
}

static void
test_scale_minmax_fixed_shared (void)
{
  const double v[] = { 3, 1, 2 };
  const double a[] = { 0, 1 }, b[] = { -2, 0.5 };
  const double *maps[] = { a, b };
  const gsize ns[] = { 2, 2 };
  HsScaleSpec spec;
  HsScaleRange r;
  g_autoptr(GError) error = NULL;
  double lo, hi;

  hs_scale_spec_init (&spec);
  g_assert_true (hs_scale_resolve (&spec, v, 3, &r, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (r.lo, ==, 1);
  g_assert_cmpfloat (r.hi, ==, 3);
  g_assert_cmpfloat (hs_scale_apply (&r, 2), ==, 0.5);
  g_assert_cmpfloat (hs_scale_apply (&r, 10), ==, 1);
  g_assert_cmpfloat (hs_scale_apply (&r, -10), ==, 0);

  g_assert_true (hs_scale_spec_parse ("fixed:0:0.5", &spec, &error));
  g_assert_cmpint (spec.mode, ==, HS_SCALE_FIXED);
  g_assert_true (hs_scale_resolve (&spec, v, 3, &r, &error));
  g_assert_cmpfloat (r.lo, ==, 0);
  g_assert_cmpfloat (r.hi, ==, 0.5);
  g_assert_cmpfloat (hs_scale_apply (&r, 0.125), ==, 0.25);

  g_assert_true (hs_scale_shared_range (maps, ns, 2, &lo, &hi, &error));
  g_assert_cmpfloat (lo, ==, -2);
  g_assert_cmpfloat (hi, ==, 1);

  /* symmetric widening for differences: [−1, 3] → [−3, 3] */
  {
    const double d[] = { -1, 3 };
    hs_scale_spec_init (&spec);
    spec.symmetric = TRUE;
    g_assert_true (hs_scale_resolve (&spec, d, 2, &r, &error));
    g_assert_cmpfloat (r.lo, ==, -3);
    g_assert_cmpfloat (r.hi, ==, 3);
    g_assert_cmpfloat (hs_scale_apply (&r, 0), ==, 0.5);
  }

  /* constant map: everything at the bottom */
  {
    const double c[] = { 2, 2, 2 };
    hs_scale_spec_init (&spec);
    g_assert_true (hs_scale_resolve (&spec, c, 3, &r, &error));
    g_assert_cmpfloat (hs_scale_apply (&r, 2), ==, 0);
  }
}

static void
test_scale_percentile (void)
{
  const double v[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
  const double w[] = { 0, 100, 0, 0 };
  HsScaleSpec spec;
  HsScaleRange r;
  g_autoptr(GError) error = NULL;

  /* numpy.percentile(range(1, 11), [10, 90]) = [1.9, 9.1]: positions 0.9 and 8.1 */
  g_assert_true (hs_scale_spec_parse ("percentile:10:90", &spec, &error));
  g_assert_true (hs_scale_resolve (&spec, v, 10, &r, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (r.lo, 1.9, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.hi, 9.1, 1e-12);

  /* [0, 0, 0, 100], 1–99 %: positions 0.03 → 0 and 2.97 → 0 + 0.97·100 */
  g_assert_true (hs_scale_spec_parse ("percentile:1:99", &spec, &error));
  g_assert_true (hs_scale_resolve (&spec, w, 4, &r, &error));
  g_assert_cmpfloat_with_epsilon (r.lo, 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.hi, 97, 1e-9);

  /* 0 and 100 are min and max */
  spec.p_lo = 0;
  spec.p_hi = 100;
  g_assert_true (hs_scale_resolve (&spec, v, 10, &r, &error));
  g_assert_cmpfloat (r.lo, ==, 1);
  g_assert_cmpfloat (r.hi, ==, 10);
}

static void
test_scale_errors (void)
{
  const double bad[] = { 1, NAN, 2 };
  HsScaleSpec spec;
  HsScaleRange r;
  GError *error = NULL;

  g_assert_false (hs_scale_spec_parse ("fixed:1:0", &spec, &error));
  g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (hs_scale_spec_parse ("bogus", &spec, &error));
  g_clear_error (&error);
  g_assert_false (hs_scale_spec_parse ("percentile:5", &spec, &error));
  g_clear_error (&error);
  g_assert_false (hs_scale_spec_parse ("percentile:-1:50", &spec, &error));
  g_clear_error (&error);
  /* non-finite bounds, spelled or overflowing: an error, never a range the
   * tick code would have to walk (issue 14) */
  {
    const char *non_finite[] = { "fixed:0:nan", "fixed:0:inf", "fixed:-inf:0", "fixed:0:1e400",
                                 "fixed:-1e400:1", "fixed:nan:1" };

    for (guint i = 0; i < G_N_ELEMENTS (non_finite); i++)
      {
        g_assert_false (hs_scale_spec_parse (non_finite[i], &spec, &error));
        g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID);
        g_clear_error (&error);
      }
  }
  /* finite but huge is a range like any other */
  g_assert_true (hs_scale_spec_parse ("fixed:0:1e300", &spec, &error));
  g_assert_no_error (error);
  g_assert_false (hs_scale_spec_parse ("minmax:1:2", &spec, &error));
  g_clear_error (&error);

  hs_scale_spec_init (&spec);
  g_assert_false (hs_scale_resolve (&spec, bad, 3, &r, &error));
  g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (hs_scale_resolve (&spec, bad, 0, &r, &error));
  g_clear_error (&error);
}

static void
test_scale_labels (void)
{
  const double v[] = { 0.0012, 0.05, 0.0831 };
  HsScaleSpec spec;
  HsScaleRange r;
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL;

  hs_scale_spec_init (&spec);
  g_assert_true (hs_scale_resolve (&spec, v, 3, &r, NULL));
  a = hs_scale_describe (&spec, &r);
  g_assert_cmpstr (a, ==, "min–max 0.0012 to 0.0831");

  g_assert_true (hs_scale_spec_parse ("percentile:1:99", &spec, NULL));
  g_assert_true (hs_scale_resolve (&spec, v, 3, &r, NULL));
  b = hs_scale_describe (&spec, &r);
  g_assert_cmpstr (b, ==, "percentile 1 to 99 %");

  g_assert_true (hs_scale_spec_parse ("shared:0:0.12", &spec, NULL));
  g_assert_true (hs_scale_resolve (&spec, v, 3, &r, NULL));
  c = hs_scale_describe (&spec, &r);
  g_assert_cmpstr (c, ==, "shared 0 to 0.12");

  g_assert_true (hs_scale_spec_parse ("fixed:0:1", &spec, NULL));
  g_assert_true (hs_scale_resolve (&spec, v, 3, &r, NULL));
  d = hs_scale_describe (&spec, &r);
  g_assert_cmpstr (d, ==, "fixed 0 to 1");
}

static void
test_strength (void)
{
  HsStrength curve;

  for (int c = HS_STRENGTH_GAMMA; c <= HS_STRENGTH_LOG; c++)
    for (double p = 0.5; p <= 100; p *= 3)
      {
        g_assert_cmpfloat (hs_strength_apply (c, p + (c == HS_STRENGTH_LOG), 0), ==, 0);
        g_assert_cmpfloat_with_epsilon (hs_strength_apply (c, p + (c == HS_STRENGTH_LOG), 1), 1, 1e-12);
      }
  g_assert_cmpfloat_with_epsilon (hs_strength_apply (HS_STRENGTH_GAMMA, 2, 0.5), 0.25, 1e-12);
  g_assert_cmpfloat_with_epsilon (hs_strength_apply (HS_STRENGTH_GAMMA, 0.5, 0.25), 0.5, 1e-12);
  /* −ln(1 − 0.5·0.9)/ln 10 = −ln 0.55/ln 10 = 0.5978370/2.3025851 = 0.2596373 */
  g_assert_cmpfloat_with_epsilon (hs_strength_apply (HS_STRENGTH_LOG, 10, 0.5), 0.2596373, 1e-6);
  /* b = 2 at s = 0.5: −log2(0.75) = 0.4150375 */
  g_assert_cmpfloat_with_epsilon (hs_strength_apply (HS_STRENGTH_LOG, 2, 0.5), 0.4150375, 1e-6);
  /* out of range s is clamped */
  g_assert_cmpfloat (hs_strength_apply (HS_STRENGTH_GAMMA, 2, -1), ==, 0);
  g_assert_cmpfloat (hs_strength_apply (HS_STRENGTH_LOG, 10, 7), ==, 1);

  g_assert_true (hs_strength_from_string ("log", &curve));
  g_assert_cmpint (curve, ==, HS_STRENGTH_LOG);
  g_assert_cmpstr (hs_strength_to_string (HS_STRENGTH_GAMMA), ==, "gamma");
  g_assert_false (hs_strength_from_string ("sqrt", &curve));
}

static void
test_threshold_alpha (void)
{
  g_assert_cmpfloat (hs_threshold_alpha (0, 0.05, 0), ==, 1);             /* off */
  g_assert_cmpfloat (hs_threshold_alpha (0.5, 0.1, 0.5), ==, 1);
  g_assert_cmpfloat (hs_threshold_alpha (0.5, 0.1, 0.9), ==, 1);
  g_assert_cmpfloat_with_epsilon (hs_threshold_alpha (0.5, 0.1, 0.45), 0.5, 1e-12);
  g_assert_cmpfloat (hs_threshold_alpha (0.5, 0.1, 0.4), ==, 0);
  g_assert_cmpfloat (hs_threshold_alpha (0.5, 0.1, 0.1), ==, 0);
  g_assert_cmpfloat (hs_threshold_alpha (0.5, 0, 0.49), ==, 0);            /* hard */
  g_assert_cmpfloat (hs_threshold_alpha (0.5, 0, 0.5), ==, 1);
}

static void
test_lut (void)
{
  HsOverlayOptions o;
  guint32 lut[256];

  hs_overlay_options_init (&o);
  g_assert_cmpint (o.colormap, ==, HS_COLORMAP_JET);
  hs_overlay_build_lut (&o, lut, 256);
  g_assert_cmphex (lut[0], ==, 0xff000080);      /* jet bottom (0, 0, 128), opaque */
  g_assert_cmphex (lut[255], ==, 0xff800000);    /* jet top (128, 0, 0) */

  o.threshold = 0.5;
  o.threshold_band = 0;
  hs_overlay_build_lut (&o, lut, 256);
  g_assert_cmphex (lut[0], ==, 0);               /* transparent, premultiplied */
  g_assert_cmphex (lut[255], ==, 0xff800000);

  /* grey with γ = 2: s = 0.6 → 0.36 → round(91.8) = 92 */
  hs_overlay_options_init (&o);
  o.colormap = HS_COLORMAP_GREY;
  o.strength_param = 2;
  hs_overlay_build_lut (&o, lut, 6);
  g_assert_cmphex (lut[3], ==, 0xff5c5c5c);
}

static void
test_colorize (void)
{
  const double grid[] = { 0, 1 };
  HsOverlayOptions o;
  g_autoptr(GError) error = NULL;
  cairo_surface_t *s;

  hs_overlay_options_init (&o);
  o.upsample = HS_UPSAMPLE_NEAREST;
  s = hs_overlay_colorize (grid, 2, 1, &o, NULL, 2, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cairo_image_surface_get_format (s), ==, CAIRO_FORMAT_ARGB32);
  g_assert_cmphex (pixel (s, 0, 0), ==, 0xff000080);
  g_assert_cmphex (pixel (s, 1, 0), ==, 0xff800000);
  cairo_surface_destroy (s);

  /* bilinear 2 → 4: sx = (x + 0.5)/2 − 0.5 → values 0, 0.25, 0.75, 1; grey:
   * round(0.25·255) = 64, round(0.75·255) = 191 */
  o.colormap = HS_COLORMAP_GREY;
  o.upsample = HS_UPSAMPLE_BILINEAR;
  s = hs_overlay_colorize (grid, 2, 1, &o, NULL, 4, 1, &error);
  g_assert_no_error (error);
  g_assert_cmphex (pixel (s, 0, 0), ==, 0xff000000);
  g_assert_cmphex (pixel (s, 1, 0), ==, 0xff404040);
  g_assert_cmphex (pixel (s, 2, 0), ==, 0xffbfbfbf);
  g_assert_cmphex (pixel (s, 3, 0), ==, 0xffffffff);
  cairo_surface_destroy (s);

  /* soft threshold t = 0.5, band 0.5: s = 0.25 → α = 0.5 → A = 128,
   * premultiplied grey 64·128/255 = 32.1 → 32; s = 0 → fully transparent */
  o.threshold = 0.5;
  o.threshold_band = 0.5;
  s = hs_overlay_colorize (grid, 2, 1, &o, NULL, 4, 1, &error);
  g_assert_no_error (error);
  g_assert_cmphex (pixel (s, 0, 0), ==, 0x00000000);
  g_assert_cmphex (pixel (s, 1, 0), ==, 0x80202020);
  g_assert_cmphex (pixel (s, 2, 0), ==, 0xffbfbfbf);
  cairo_surface_destroy (s);

  /* fixed range [0, 0.5]: 0.25 → s = 0.5 → 128; 0.75 → 1 */
  o.threshold = 0;
  g_assert_true (hs_scale_spec_parse ("fixed:0:0.5", &o.scale, NULL));
  s = hs_overlay_colorize (grid, 2, 1, &o, NULL, 4, 1, &error);
  g_assert_no_error (error);
  g_assert_cmphex (pixel (s, 1, 0), ==, 0xff808080);
  g_assert_cmphex (pixel (s, 2, 0), ==, 0xffffffff);
  cairo_surface_destroy (s);
}

static void
test_field_region (void)
{
  double grid[5 * 4];
  HsOverlayOptions o;
  HsScaleRange r = { 0, 19 };
  g_autoptr(HsOverlayField) full = NULL, part = NULL;
  cairo_surface_t *a, *b;

  for (guint i = 0; i < G_N_ELEMENTS (grid); i++)
    grid[i] = (double) ((i * 7) % 20);
  hs_overlay_options_init (&o);
  o.colormap = HS_COLORMAP_VIRIDIS;
  full = hs_overlay_field_new (grid, 5, 4, 50, 40, HS_UPSAMPLE_BILINEAR, NULL);
  part = hs_overlay_field_new_region (grid, 5, 4, 50, 40, 13, 7, 20, 11, HS_UPSAMPLE_BILINEAR, NULL);
  g_assert_nonnull (full);
  g_assert_nonnull (part);
  g_assert_cmpuint (hs_overlay_field_get_width (part), ==, 20);
  g_assert_cmpuint (hs_overlay_field_get_height (part), ==, 11);
  /* nearest cell of output pixel (0,0) is grid[0] = 0; its value is exact */
  g_assert_cmpfloat_with_epsilon (hs_overlay_field_get_value (full, 0, 0), grid[0], 19 / 65535.0);
  a = hs_overlay_field_colorize (full, &r, &o, NULL);
  b = hs_overlay_field_colorize (part, &r, &o, NULL);
  for (int y = 0; y < 11; y++)
    for (int x = 0; x < 20; x++)
      g_assert_cmphex (pixel (b, x, y), ==, pixel (a, x + 13, y + 7));
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
}

static void
test_bad_input (void)
{
  const double nan_grid[] = { 0, NAN, 1, 2 };
  const double grid[] = { 0, 1, 2, 3 };
  HsOverlayOptions o;
  GError *error = NULL;
  HsOverlayField *f;
  cairo_surface_t *img, *ovl;

  hs_overlay_options_init (&o);
  g_assert_null (hs_overlay_colorize (nan_grid, 2, 2, &o, NULL, 4, 4, &error));
  g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (hs_overlay_field_new (grid, 2, 2, 0, 4, HS_UPSAMPLE_NEAREST, &error));
  g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (hs_overlay_field_new_region (grid, 2, 2, 4, 4, 2, 2, 3, 1,
                                              HS_UPSAMPLE_NEAREST, &error));
  g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID);
  g_clear_error (&error);
  f = hs_overlay_field_new (grid, 2, 2, 100000, 100000, HS_UPSAMPLE_NEAREST, &error);
  g_assert_null (f);
  g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_TOO_LARGE);
  g_clear_error (&error);

  /* composite sizes must match */
  img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 3, 3);
  ovl = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 2, 3);
  g_assert_null (hs_overlay_composite (img, ovl, 0.5, &error));
  g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID);
  g_clear_error (&error);
  cairo_surface_destroy (img);
  cairo_surface_destroy (ovl);
}

static cairo_surface_t *
tiny_image (void)
{
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 2, 1);
  guint32 *p;

  cairo_surface_flush (img);
  p = (guint32 *) (void *) cairo_image_surface_get_data (img);
  p[0] = 0xff6496c8;  /* (100, 150, 200) */
  p[1] = 0xff0a141e;  /* (10, 20, 30) */
  cairo_surface_mark_dirty (img);
  return img;
}

static cairo_surface_t *
tiny_overlay (void)
{
  cairo_surface_t *ovl = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 2, 1);
  guint32 *p;

  cairo_surface_flush (ovl);
  p = (guint32 *) (void *) cairo_image_surface_get_data (ovl);
  p[0] = 0xffff0000;  /* opaque red */
  p[1] = 0x80400080;  /* α = 128, premultiplied (64, 0, 128) */
  cairo_surface_mark_dirty (ovl);
  return ovl;
}

static void
test_composite_tiny (void)
{
  cairo_surface_t *img = tiny_image (), *ovl = tiny_overlay (), *out;
  g_autoptr(GError) error = NULL;

  /* out = base·(1 − op·α) + op·c:
   * op 0.5, px0: R 100·0.5 + 127.5 = 177.5 → 178; G 75; B 100
   * px1: k = 1 − 0.5·128/255 = 0.749020; R 7.490 + 32 = 39.49 → 39;
   *      G 14.98 → 15; B 22.47 + 64 = 86.47 → 86 */
  out = hs_overlay_composite (img, ovl, 0.5, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cairo_image_surface_get_format (out), ==, CAIRO_FORMAT_RGB24);
  g_assert_cmphex (pixel (out, 0, 0) & 0xffffff, ==, 0xb24b64);
  g_assert_cmphex (pixel (out, 1, 0) & 0xffffff, ==, 0x270f56);
  cairo_surface_destroy (out);

  /* op 1, px1: k = 1 − 128/255 = 0.498039; R 4.98 + 64 = 68.98 → 69;
   * G 9.96 → 10; B 14.94 + 128 = 142.94 → 143 */
  out = hs_overlay_composite (img, ovl, 1.0, &error);
  g_assert_cmphex (pixel (out, 0, 0) & 0xffffff, ==, 0xff0000);
  g_assert_cmphex (pixel (out, 1, 0) & 0xffffff, ==, 0x450a8f);
  cairo_surface_destroy (out);

  /* op 0 and no overlay: the image */
  out = hs_overlay_composite (img, ovl, 0.0, &error);
  g_assert_cmphex (pixel (out, 0, 0) & 0xffffff, ==, 0x6496c8);
  cairo_surface_destroy (out);
  out = hs_overlay_composite (img, NULL, 0.7, &error);
  g_assert_cmphex (pixel (out, 1, 0) & 0xffffff, ==, 0x0a141e);
  cairo_surface_destroy (out);

  cairo_surface_destroy (img);
  cairo_surface_destroy (ovl);
}

/* Independent reference: cairo's own OVER with paint_with_alpha, within 1. */
static void
test_composite_vs_cairo (void)
{
  const int w = 64, h = 48;
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_surface_t *ovl = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cairo_surface_t *ref = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_surface_t *out;
  GRand *rand = g_rand_new_with_seed (7);
  guint32 *pi, *po;
  cairo_t *cr;
  int worst = 0;

  cairo_surface_flush (img);
  cairo_surface_flush (ovl);
  for (int y = 0; y < h; y++)
    {
      pi = (guint32 *) (void *) (cairo_image_surface_get_data (img) + y * cairo_image_surface_get_stride (img));
      po = (guint32 *) (void *) (cairo_image_surface_get_data (ovl) + y * cairo_image_surface_get_stride (ovl));
      for (int x = 0; x < w; x++)
        {
          guint a = g_rand_int_range (rand, 0, 256);
          pi[x] = 0xff000000 | (g_rand_int (rand) & 0xffffff);
          po[x] = (a << 24) | ((guint) g_rand_int_range (rand, 0, a + 1) << 16)
                  | ((guint) g_rand_int_range (rand, 0, a + 1) << 8)
                  | (guint) g_rand_int_range (rand, 0, a + 1);
          if (y < 4 || (y < 8 && x % 8 < 5))
            po[x] = 0;   /* transparent runs (a thresholded overlay) */
        }
    }
  cairo_surface_mark_dirty (img);
  cairo_surface_mark_dirty (ovl);

  cr = cairo_create (ref);
  cairo_set_source_surface (cr, img, 0, 0);
  cairo_paint (cr);
  cairo_set_source_surface (cr, ovl, 0, 0);
  cairo_paint_with_alpha (cr, 0.6);
  cairo_destroy (cr);

  out = hs_overlay_composite (img, ovl, 0.6, NULL);
  cairo_surface_flush (ref);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 24; c += 8)
        {
          int a = (pixel (out, x, y) >> c) & 0xff, b = (pixel (ref, x, y) >> c) & 0xff;
          worst = MAX (worst, ABS (a - b));
        }
  g_assert_cmpint (worst, <=, 1);
  cairo_surface_destroy (out);
  cairo_surface_destroy (ref);
  cairo_surface_destroy (img);
  cairo_surface_destroy (ovl);
  g_rand_free (rand);
}

/* The two-thread path (≥ 256 k pixels) gives the same pixels as the formula. */

/* The table behind colorize, its look-up pass, and the blend that looks the
 * colours up on the fly: the same pixels as colouring first. */
static void
test_lut_paths (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsOverlayField) field = NULL;
  const double grid[6] = { 0, 1, 4, 9, 16, 25 };
  HsOverlayOptions options;
  HsScaleRange range = { 0, 25 };
  const guint8 *jet = hs_colormap_get_lut (HS_COLORMAP_JET);
  g_autofree guint32 *lut = g_new (guint32, HS_OVERLAY_Q_LEVELS);
  cairo_surface_t *colored, *looked_up, *image, *a, *b;
  const guint16 *q;
  guint w = 37, h = 23;

  hs_overlay_options_init (&options);
  field = hs_overlay_field_new (grid, 3, 2, w, h, HS_UPSAMPLE_BILINEAR, &error);
  g_assert_no_error (error);
  g_assert_true (hs_overlay_field_build_lut (field, &range, &options, lut, &error));
  g_assert_no_error (error);
  /* q = 65535 is the grid's max, 25 → scaled 1 → jet's last colour, opaque;
   * q = 0 is 0 → jet's first. */
  g_assert_cmphex (lut[65535], ==, 0xff000000u | (guint32) jet[765] << 16 | (guint32) jet[766] << 8 | jet[767]);
  g_assert_cmphex (lut[0], ==, 0xff000000u | (guint32) jet[0] << 16 | (guint32) jet[1] << 8 | jet[2]);

  q = hs_overlay_field_peek_quantised (field);
  g_assert_nonnull (q);
  colored = hs_overlay_field_colorize (field, &range, &options, &error);
  g_assert_no_error (error);
  looked_up = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) w, (int) h);
  hs_overlay_apply_lut (lut, q, w, w, h, cairo_image_surface_get_data (looked_up),
                        (gsize) cairo_image_surface_get_stride (looked_up));
  cairo_surface_mark_dirty (looked_up);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      g_assert_cmphex (pixel (looked_up, x, y), ==, pixel (colored, x, y));

  image = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) w, (int) h);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      ((guint32 *) (void *) (cairo_image_surface_get_data (image) + y * cairo_image_surface_get_stride (image)))[x] =
        0xff000000u | ((x * 7) & 0xff) << 16 | ((y * 11) & 0xff) << 8 | ((x + y) & 0xff);
  cairo_surface_mark_dirty (image);
  for (double opacity = 0; opacity <= 1.0; opacity += 0.3)
    {
      a = hs_overlay_composite (image, colored, opacity, &error);
      g_assert_no_error (error);
      b = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) w, (int) h);
      g_assert_true (hs_overlay_composite_lut_into (image, lut, q, w, opacity, b, &error));
      g_assert_no_error (error);
      for (guint y = 0; y < h; y++)
        for (guint x = 0; x < w; x++)
          g_assert_cmphex (pixel (b, x, y) | 0xff000000u, ==, pixel (a, x, y) | 0xff000000u);
      cairo_surface_destroy (a);
      cairo_surface_destroy (b);
    }
  /* Rows shorter than the image are refused. */
  b = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) w, (int) h);
  g_assert_false (hs_overlay_composite_lut_into (image, lut, q, w - 1, 0.5, b, &error));
  g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID);
  cairo_surface_destroy (b);
  cairo_surface_destroy (image);
  cairo_surface_destroy (looked_up);
  cairo_surface_destroy (colored);
}

static void
test_large_threaded (void)
{
  const guint W = 700, H = 500;
  const double grid[] = { 0, 1, 2, 3, 4, 5 };
  HsOverlayOptions o;
  HsScaleRange r = { 0, 5 };
  g_autoptr(HsOverlayField) f = NULL;
  cairo_surface_t *s;
  guint32 lut[256];

  hs_overlay_options_init (&o);
  o.colormap = HS_COLORMAP_INFERNO;
  o.upsample = HS_UPSAMPLE_NEAREST;
  f = hs_overlay_field_new (grid, 3, 2, W, H, o.upsample, NULL);
  s = hs_overlay_field_colorize (f, &r, &o, NULL);
  hs_overlay_build_lut (&o, lut, 256);
  /* nearest: cell (floor((y+0.5)·2/H), floor((x+0.5)·3/W)); value/5 is a
   * multiple of 0.2 → LUT index 0, 51, 102, 153, 204, 255 */
  for (guint y = 0; y < H; y += 37)
    for (guint x = 0; x < W; x += 41)
      {
        guint cy = (guint) floor ((y + 0.5) * 2 / H), cx = (guint) floor ((x + 0.5) * 3 / W);
        g_assert_cmphex (pixel (s, x, y), ==, lut[51 * (cy * 3 + cx)]);
      }
  cairo_surface_destroy (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/overlay/scale-minmax-fixed-shared", test_scale_minmax_fixed_shared);
  g_test_add_func ("/hs/overlay/lut-paths", test_lut_paths);
  g_test_add_func ("/hs/overlay/scale-percentile", test_scale_percentile);
  g_test_add_func ("/hs/overlay/scale-errors", test_scale_errors);
  g_test_add_func ("/hs/overlay/scale-labels", test_scale_labels);
  g_test_add_func ("/hs/overlay/strength", test_strength);
  g_test_add_func ("/hs/overlay/threshold-alpha", test_threshold_alpha);
  g_test_add_func ("/hs/overlay/lut", test_lut);
  g_test_add_func ("/hs/overlay/colorize", test_colorize);
  g_test_add_func ("/hs/overlay/field-region", test_field_region);
  g_test_add_func ("/hs/overlay/bad-input", test_bad_input);
  g_test_add_func ("/hs/overlay/composite-tiny", test_composite_tiny);
  g_test_add_func ("/hs/overlay/composite-vs-cairo", test_composite_vs_cairo);
  g_test_add_func ("/hs/overlay/large-threaded", test_large_threaded);
  return g_test_run ();
}
