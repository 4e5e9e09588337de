/* test-contour.c — marching squares on small shapes, top-k and Otsu regions */
#include <heatscope/heatscope.h>

#include <math.h>
#include <stdlib.h>

#include "hs-test-util.h"

#define W 8
#define H 8

static void
fill (guint8 *mask, guint stride, guint x0, guint y0, guint w, guint h, guint8 v)
{
  for (guint y = y0; y < y0 + h; y++)
    for (guint x = x0; x < x0 + w; x++)
      mask[y * stride + x] = v;
}

static const HsPoint *
points (GPtrArray *lines, guint i, guint *n)
{
  HsPolyline *line = g_ptr_array_index (lines, i);
  *n = line->points->len;
  return (const HsPoint *) (const void *) line->points->data;
}

static void
test_square (void)
{
  guint8 mask[W * H] = { 0 };
  /* 3 × 3 square of pixels [2, 5) × [2, 5): vertices on pixel-edge midpoints,
   * 45° cuts at the corners, counter-clockwise on screen from the top-left cut */
  static const HsPoint expected[] = {
    { 2.5, 2 }, { 2, 2.5 }, { 2, 3.5 }, { 2, 4.5 }, { 2.5, 5 }, { 3.5, 5 },
    { 4.5, 5 }, { 5, 4.5 }, { 5, 3.5 }, { 5, 2.5 }, { 4.5, 2 }, { 3.5, 2 },
  };
  g_autoptr(GPtrArray) lines = NULL, simple = NULL;
  const HsPoint *p;
  guint n;

  fill (mask, W, 2, 2, 3, 3, 1);
  lines = hs_contour_trace_mask (mask, W, H, W, HS_CONTOUR_DEFAULT);
  g_assert_cmpuint (lines->len, ==, 1);
  g_assert_true (((HsPolyline *) g_ptr_array_index (lines, 0))->closed);
  p = points (lines, 0, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (p[i].x, ==, expected[i].x);
      g_assert_cmpfloat (p[i].y, ==, expected[i].y);
    }
  /* 4 straight runs of length 2 and 4 cuts of √0.5 */
  g_assert_cmpfloat_with_epsilon (hs_polyline_length (g_ptr_array_index (lines, 0)),
                                  8 + 4 * sqrt (0.5), 1e-12);

  simple = hs_contour_trace_mask (mask, W, H, W, HS_CONTOUR_SIMPLIFY);
  p = points (simple, 0, &n);
  g_assert_cmpuint (n, ==, 8);
  g_assert_cmpfloat (p[1].x, ==, 2);
  g_assert_cmpfloat (p[1].y, ==, 2.5);
  g_assert_cmpfloat (p[2].x, ==, 2);
  g_assert_cmpfloat (p[2].y, ==, 4.5);
  g_assert_cmpfloat_with_epsilon (hs_polyline_length (g_ptr_array_index (simple, 0)),
                                  8 + 4 * sqrt (0.5), 1e-12);
}

static void
test_ring_with_hole (void)
{
  guint8 mask[7 * 7] = { 0 };
  g_autoptr(GPtrArray) lines = NULL;
  guint n;

  /* 5 × 5 square at (1, 1) with the centre pixel (3, 3) missing */
  fill (mask, 7, 1, 1, 5, 5, 1);
  mask[3 * 7 + 3] = 0;
  lines = hs_contour_trace_mask (mask, 7, 7, 7, HS_CONTOUR_DEFAULT);
  g_assert_cmpuint (lines->len, ==, 2);
  /* the outer contour starts first (raster order): 4·5 vertices,
   * length 4·4 + 4·√0.5 */
  points (lines, 0, &n);
  g_assert_cmpuint (n, ==, 20);
  g_assert_cmpfloat_with_epsilon (hs_polyline_length (g_ptr_array_index (lines, 0)),
                                  16 + 4 * sqrt (0.5), 1e-12);
  /* the hole: a diamond through the hole pixel's edge midpoints */
  {
    const HsPoint *p = points (lines, 1, &n);
    g_assert_cmpuint (n, ==, 4);
    g_assert_cmpfloat_with_epsilon (hs_polyline_length (g_ptr_array_index (lines, 1)),
                                    4 * sqrt (0.5), 1e-12);
    for (guint i = 0; i < n; i++)
      g_assert_cmpfloat_with_epsilon (fabs (p[i].x - 3.5) + fabs (p[i].y - 3.5), 0.5, 1e-12);
    /* holes run the other way round: signed area (shoelace, y down) > 0 */
    {
      double area = 0;
      for (guint i = 0; i < n; i++)
        area += p[i].x * p[(i + 1) % n].y - p[(i + 1) % n].x * p[i].y;
      g_assert_cmpfloat (area, >, 0);
    }
  }
  {
    const HsPoint *p = points (lines, 0, &n);
    double area = 0;
    for (guint i = 0; i < n; i++)
      area += p[i].x * p[(i + 1) % n].y - p[(i + 1) % n].x * p[i].y;
    /* 5·5 minus four half-pixel corner triangles of area 1/8 */
    g_assert_cmpfloat_with_epsilon (fabs (area) / 2, 25 - 4 * 0.125, 1e-12);
    g_assert_cmpfloat (area, <, 0);
  }
}

static void
test_two_blobs (void)
{
  guint8 mask[W * H] = { 0 };
  g_autoptr(GPtrArray) lines = NULL;
  const HsPoint *p;
  guint n;

  /* a 2 × 2 blob touching the raster corner and a single pixel */
  fill (mask, W, 0, 0, 2, 2, 255);
  mask[5 * W + 6] = 1;
  lines = hs_contour_trace_mask (mask, W, H, W, HS_CONTOUR_DEFAULT);
  g_assert_cmpuint (lines->len, ==, 2);
  p = points (lines, 0, &n);
  g_assert_cmpuint (n, ==, 8);
  g_assert_true (((HsPolyline *) g_ptr_array_index (lines, 0))->closed);
  /* closed along the raster border: the topmost vertices lie on y = 0 */
  g_assert_cmpfloat (p[0].x, ==, 0.5);
  g_assert_cmpfloat (p[0].y, ==, 0);
  g_assert_cmpfloat_with_epsilon (hs_polyline_length (g_ptr_array_index (lines, 0)),
                                  4 + 4 * sqrt (0.5), 1e-12);
  p = points (lines, 1, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpfloat (p[0].x, ==, 6.5);
  g_assert_cmpfloat (p[0].y, ==, 5);
}

static void
test_diagonal_and_empty (void)
{
  guint8 mask[W * H] = { 0 };
  g_autoptr(GPtrArray) none = NULL, lines = NULL, full = NULL;

  none = hs_contour_trace_mask (mask, W, H, W, HS_CONTOUR_DEFAULT);
  g_assert_cmpuint (none->len, ==, 0);

  /* diagonal neighbours are one region (8-connectivity): 8 cuts of √0.5 */
  mask[1 * W + 1] = 1;
  mask[2 * W + 2] = 1;
  lines = hs_contour_trace_mask (mask, W, H, W, HS_CONTOUR_DEFAULT);
  g_assert_cmpuint (lines->len, ==, 1);
  g_assert_cmpfloat_with_epsilon (hs_polyline_length (g_ptr_array_index (lines, 0)),
                                  8 * sqrt (0.5), 1e-12);

  /* everything inside: one contour around the raster */
  fill (mask, W, 0, 0, W, H, 1);
  full = hs_contour_trace_mask (mask, W, H, W, HS_CONTOUR_SIMPLIFY);
  g_assert_cmpuint (full->len, ==, 1);
  g_assert_cmpfloat_with_epsilon (hs_polyline_length (g_ptr_array_index (full, 0)),
                                  4 * 7 + 4 * sqrt (0.5), 1e-12);
}

static void
test_stride (void)
{
  guint8 mask[4 * 10] = { 0 };
  g_autoptr(GPtrArray) lines = NULL;

  /* 3 × 4 raster in rows of 10 bytes; bytes past the width are ignored */
  for (guint y = 0; y < 4; y++)
    mask[y * 10 + 5] = 1;
  mask[1 * 10 + 1] = 1;
  lines = hs_contour_trace_mask (mask, 3, 4, 10, HS_CONTOUR_DEFAULT);
  g_assert_cmpuint (lines->len, ==, 1);
  g_assert_cmpfloat_with_epsilon (hs_polyline_length (g_ptr_array_index (lines, 0)),
                                  4 * sqrt (0.5), 1e-12);
}

static void
test_topk_threshold (void)
{
  const double v[] = { 5, 1, 4, 2, 3 };
  const double ties[] = { 1, 1, 1, 1 };

  g_assert_cmpfloat (hs_contour_topk_threshold (v, 5, 40), ==, 4);   /* ⌈2⌉-th largest */
  g_assert_cmpfloat (hs_contour_topk_threshold (v, 5, 10), ==, 5);   /* ⌈0.5⌉ = 1 */
  g_assert_cmpfloat (hs_contour_topk_threshold (v, 5, 100), ==, 1);
  g_assert_cmpfloat (hs_contour_topk_threshold (ties, 4, 50), ==, 1);
}

static int
cmp_desc (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x < y) - (x > y);
}

/* Against a full sort, with many ties, for every k from 1 to 100. */
static void
test_topk_random (void)
{
  GRand *rand = g_rand_new_with_seed (5);
  double v[997], sorted[997];

  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    v[i] = sorted[i] = g_rand_int_range (rand, 0, 50) / 7.0;
  qsort (sorted, G_N_ELEMENTS (v), sizeof (double), cmp_desc);
  for (int k = 1; k <= 100; k++)
    {
      gsize rank = (gsize) ceil (k * 997.0 / 100.0);
      g_assert_cmpfloat (hs_contour_topk_threshold (v, G_N_ELEMENTS (v), k), ==, sorted[rank - 1]);
    }
  g_rand_free (rand);
}

static void
test_otsu (void)
{
  const guint8 two[] = { 0, 0, 0, 0, 200, 200, 200, 200 };
  const guint8 four[] = { 0, 85, 170, 255 };

  /* every t in [0, 199] separates equally; the first is taken */
  g_assert_cmpuint (hs_contour_otsu_threshold (two, 8), ==, 0);
  /* t = 85: ω 1/2, μ 42.5 vs 212.5 → 0.25·170² beats t = 0 or 170 (0.1875·170²) */
  g_assert_cmpuint (hs_contour_otsu_threshold (four, 4), ==, 85);
}

static void
test_otsu_vs_opencv (void)
{
  const char *script =
    "import sys, numpy as np, cv2\n"
    "for row in sys.argv[1].split(';'):\n"
    "    u = np.array([int(x) for x in row.split(',')], dtype=np.uint8)\n"
    "    t, _ = cv2.threshold(u.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)\n"
    "    print(int(t))\n";
  enum { TRIALS = 6, N = 600 };
  guint8 u[TRIALS][N];
  g_autoptr(GString) csv = g_string_new (NULL);
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  const char *args[2] = { NULL, NULL };
  GRand *rand = g_rand_new_with_seed (11);

  for (int trial = 0; trial < TRIALS; trial++)
    {
      if (trial)
        g_string_append_c (csv, ';');
      for (guint i = 0; i < N; i++)
        {
          /* two noisy modes, shifting per trial */
          int v = (i % 3 ? 60 : 170) + g_rand_int_range (rand, -50, 50) + trial * 7;
          u[trial][i] = (guint8) CLAMP (v, 0, 255);
          g_string_append_printf (csv, "%s%u", i ? "," : "", u[trial][i]);
        }
    }
  g_rand_free (rand);
  args[0] = csv->str;
  out = hs_test_python (script, args);
  if (out == NULL)
    return;   /* skipped (python3-opencv absent) with a message by hs_test_python */
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), >=, TRIALS);
  for (int trial = 0; trial < TRIALS; trial++)
    g_assert_cmpuint (hs_contour_otsu_threshold (u[trial], N), ==,
                      (guint) g_ascii_strtoull (lines[trial], NULL, 10));
}

static void
test_region_mask (void)
{
  const double grid[] = { 0, 1, 2, 3 };
  const double bad[] = { 0, INFINITY, 2, 3 };
  g_autofree guint8 *top = NULL, *otsu = NULL, *up = NULL;
  GError *error = NULL;

  top = hs_contour_region_mask (grid, 2, 2, 2, 2, HS_UPSAMPLE_NEAREST, HS_OUTLINE_TOP_K, 25, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (top[0] + top[1] + top[2], ==, 0);
  g_assert_cmpuint (top[3], ==, 1);

  /* u = floor(255·[0, 1/3, 2/3, 1]) = [0, 85, 170, 255], t = 85 → u > 85 */
  otsu = hs_contour_region_mask (grid, 2, 2, 2, 2, HS_UPSAMPLE_NEAREST, HS_OUTLINE_OTSU, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (otsu[0], ==, 0);
  g_assert_cmpuint (otsu[1], ==, 0);
  g_assert_cmpuint (otsu[2], ==, 1);
  g_assert_cmpuint (otsu[3], ==, 1);

  /* nearest ×2: top 25 % of 16 pixels = the 4 pixels of cell 3 */
  up = hs_contour_region_mask (grid, 2, 2, 4, 4, HS_UPSAMPLE_NEAREST, HS_OUTLINE_TOP_K, 25, &error);
  g_assert_cmpuint (up[2 * 4 + 2] + up[2 * 4 + 3] + up[3 * 4 + 2] + up[3 * 4 + 3], ==, 4);
  g_assert_cmpuint (up[0] + up[1 * 4 + 3] + up[3 * 4 + 1], ==, 0);

  g_assert_null (hs_contour_region_mask (bad, 2, 2, 2, 2, HS_UPSAMPLE_NEAREST,
                                         HS_OUTLINE_OTSU, 0, &error));
  g_assert_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID);
  g_clear_error (&error);
}

static void
test_names (void)
{
  HsOutline o;

  g_assert_true (hs_outline_from_string ("topk", &o));
  g_assert_cmpint (o, ==, HS_OUTLINE_TOP_K);
  g_assert_cmpstr (hs_outline_to_string (o), ==, "top-k");
  g_assert_true (hs_outline_from_string ("otsu", &o));
  g_assert_false (hs_outline_from_string ("ostu", &o));
}

static void
test_draw (void)
{
  guint8 mask[W * H] = { 0 };
  g_autoptr(GPtrArray) lines = NULL;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 80, 80);
  cairo_t *cr = cairo_create (s);
  const double red[4] = { 1, 0, 0, 1 };
  guint32 *px;

  fill (mask, W, 2, 2, 4, 4, 1);
  lines = hs_contour_trace_mask (mask, W, H, W, HS_CONTOUR_SIMPLIFY);
  cairo_scale (cr, 10, 10);
  hs_contour_draw (cr, lines, red, 2, FALSE);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  px = (guint32 *) (void *) cairo_image_surface_get_data (s);
  /* the left edge x = 2 (→ 20 px) at y = 4 (→ 40 px) is red; the centre is empty */
  g_assert_cmphex (px[40 * 80 + 20], ==, 0xffff0000);
  g_assert_cmphex (px[40 * 80 + 40], ==, 0);
  cairo_surface_destroy (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/contour/square", test_square);
  g_test_add_func ("/hs/contour/ring-with-hole", test_ring_with_hole);
  g_test_add_func ("/hs/contour/two-blobs", test_two_blobs);
  g_test_add_func ("/hs/contour/diagonal-and-empty", test_diagonal_and_empty);
  g_test_add_func ("/hs/contour/stride", test_stride);
  g_test_add_func ("/hs/contour/topk-threshold", test_topk_threshold);
  g_test_add_func ("/hs/contour/topk-random", test_topk_random);
  g_test_add_func ("/hs/contour/otsu", test_otsu);
  g_test_add_func ("/hs/contour/otsu-vs-opencv", test_otsu_vs_opencv);
  g_test_add_func ("/hs/contour/region-mask", test_region_mask);
  g_test_add_func ("/hs/contour/names", test_names);
  g_test_add_func ("/hs/contour/draw", test_draw);
  return g_test_run ();
}
