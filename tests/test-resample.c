/* test-resample.c — hs_resample against hand-worked cases, a NumPy float64
 * transcription of metrics.md and OpenCV */
#include <heatscope/heatscope.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

static void
test_bilinear_1d (void)
{
  /* w = 2 → W = 4: sx = (x + .5)·2/4 − .5 = −.25, .25, .75, 1.25 → clamp. */
  const double grid[] = { 0.0, 1.0 };
  double out[4];
  const double expected[] = { 0.0, 0.25, 0.75, 1.0 };

  hs_resample (grid, 2, 1, out, 4, 1, HS_UPSAMPLE_BILINEAR);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat (out[i], ==, expected[i]);
}

static void
test_bilinear_2d (void)
{
  /* 2 × 2 → 4 × 4: the inner 2 × 2 blends with weights .25/.75 both ways. */
  const double grid[] = { 0.0, 4.0,
                          8.0, 16.0 };
  double out[16];

  hs_resample (grid, 2, 2, out, 4, 4, HS_UPSAMPLE_BILINEAR);
  g_assert_cmpfloat (out[0], ==, 0.0);
  g_assert_cmpfloat (out[3], ==, 4.0);
  g_assert_cmpfloat (out[12], ==, 8.0);
  g_assert_cmpfloat (out[15], ==, 16.0);
  /* (x=1, y=1): fx = fy = .25: .75·(.75·0 + .25·4) + .25·(.75·8 + .25·16) = .75 + 2.5 */
  g_assert_cmpfloat (out[5], ==, 3.25);
  /* (x=2, y=1): fx = .75, fy = .25: .75·3 + .25·(2 + 12) = 2.25 + 3.5 */
  g_assert_cmpfloat (out[6], ==, 5.75);
  /* (x=0, y=2): fx = 0 (clamped), fy = .75: .25·0 + .75·8 */
  g_assert_cmpfloat (out[8], ==, 6.0);
}

static void
test_identity (void)
{
  double grid[12], out[12];

  for (guint i = 0; i < 12; i++)
    grid[i] = g_test_rand_double_range (-5, 5);
  hs_resample (grid, 4, 3, out, 4, 3, HS_UPSAMPLE_BILINEAR);
  for (guint i = 0; i < 12; i++)
    g_assert_cmpfloat (out[i], ==, grid[i]);
  hs_resample (grid, 4, 3, out, 4, 3, HS_UPSAMPLE_NEAREST);
  for (guint i = 0; i < 12; i++)
    g_assert_cmpfloat (out[i], ==, grid[i]);
}

static void
test_nearest (void)
{
  const double grid[] = { 1, 2, 3 };
  double up[4], down[2];

  /* 3 → 4: floor((x + .5)·3/4) = 0, 1, 1, 2 */
  hs_resample (grid, 3, 1, up, 4, 1, HS_UPSAMPLE_NEAREST);
  g_assert_cmpfloat (up[0], ==, 1);
  g_assert_cmpfloat (up[1], ==, 2);
  g_assert_cmpfloat (up[2], ==, 2);
  g_assert_cmpfloat (up[3], ==, 3);
  /* 3 → 2: floor(.75) = 0, floor(2.25) = 2 */
  hs_resample (grid, 3, 1, down, 2, 1, HS_UPSAMPLE_NEAREST);
  g_assert_cmpfloat (down[0], ==, 1);
  g_assert_cmpfloat (down[1], ==, 3);
}

static void
test_region (void)
{
  const guint w = 7, h = 5, W = 61, H = 43;
  double grid[7 * 5];
  g_autofree double *full = g_new (double, W * H);
  g_autofree float *part = NULL;
  const guint x0 = 13, y0 = 9, rw = 30, rh = 20;

  for (guint i = 0; i < w * h; i++)
    grid[i] = g_test_rand_double_range (0, 1);
  for (int m = 0; m < 2; m++)
    {
      HsUpsample mode = m == 0 ? HS_UPSAMPLE_BILINEAR : HS_UPSAMPLE_NEAREST;

      hs_resample (grid, w, h, full, W, H, mode);
      g_free (part);
      part = g_new (float, rw * rh);
      hs_resample_region (grid, w, h, W, H, x0, y0, rw, rh, part, mode);
      for (guint y = 0; y < rh; y++)
        for (guint x = 0; x < rw; x++)
          g_assert_cmpfloat (part[y * rw + x], ==, (float) full[(y0 + y) * W + x0 + x]);
    }
}

static void
test_strings (void)
{
  HsUpsample mode;

  g_assert_cmpstr (hs_upsample_to_string (HS_UPSAMPLE_BILINEAR), ==, "bilinear");
  g_assert_cmpstr (hs_upsample_to_string (HS_UPSAMPLE_NEAREST), ==, "nearest");
  g_assert_true (hs_upsample_from_string ("nearest", &mode));
  g_assert_cmpint (mode, ==, HS_UPSAMPLE_NEAREST);
  g_assert_true (hs_upsample_from_string ("bilinear", &mode));
  g_assert_cmpint (mode, ==, HS_UPSAMPLE_BILINEAR);
  g_assert_false (hs_upsample_from_string ("bicubic", &mode));
  g_assert_false (hs_upsample_from_string (NULL, &mode));
}

static char *
write_raw (const char *dir, const char *name, const double *values, gsize n)
{
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, (const char *) values, n * sizeof (double), &error);
  g_assert_no_error (error);
  return path;
}

static double *
read_raw (const char *path, gsize n)
{
  g_autoptr(GError) error = NULL;
  char *data = NULL;
  gsize len = 0;

  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, n * sizeof (double));
  return (double *) data;
}

/* Each reference reads groups of 7 arguments (grid, w, h, W, H, out, mode)
 * and writes the resampled float64 raw file of each group: one Python
 * start-up for all sizes. */
static const char *numpy_script =
  "import sys, numpy as np\n"
  "a = sys.argv[1:]\n"
  "for i in range(0, len(a), 7):\n"
  "    w, h, W, H = map(int, a[i + 1:i + 5]); mode = a[i + 6]\n"
  "    A = np.fromfile(a[i], dtype=np.float64).reshape(h, w)\n"
  "    x = np.arange(W, dtype=np.float64); y = np.arange(H, dtype=np.float64)\n"
  "    if mode == 'nearest':\n"
  "        xi = np.floor((x + 0.5) * w / W).astype(int); yi = np.floor((y + 0.5) * h / H).astype(int)\n"
  "        out = A[yi][:, xi]\n"
  "    else:\n"
  "        sx = np.clip((x + 0.5) * w / W - 0.5, 0, w - 1); sy = np.clip((y + 0.5) * h / H - 0.5, 0, h - 1)\n"
  "        x0 = np.floor(sx).astype(int); y0 = np.floor(sy).astype(int)\n"
  "        x1 = np.minimum(x0 + 1, w - 1); y1 = np.minimum(y0 + 1, h - 1)\n"
  "        fx = sx - x0; fy = (sy - y0)[:, None]\n"
  "        top = (1 - fx) * A[y0][:, x0] + fx * A[y0][:, x1]\n"
  "        bot = (1 - fx) * A[y1][:, x0] + fx * A[y1][:, x1]\n"
  "        out = (1 - fy) * top + fy * bot\n"
  "    np.ascontiguousarray(out, dtype=np.float64).tofile(a[i + 5])\n";

static const char *cv2_script =
  "import sys, numpy as np, cv2\n"
  "a = sys.argv[1:]\n"
  "for i in range(0, len(a), 7):\n"
  "    w, h, W, H = map(int, a[i + 1:i + 5])\n"
  "    A = np.fromfile(a[i], dtype=np.float64).reshape(h, w)\n"
  "    out = cv2.resize(A.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)\n"
  "    out.astype(np.float64).tofile(a[i + 5])\n";

typedef enum { REF_NUMPY, REF_CV2 } RefKind;

static void
compare_with_reference (RefKind kind, HsUpsample mode, double tolerance)
{
  const guint sizes[][4] = {
    { 7, 5, 61, 43 },     /* upsampling, non-integer factors   */
    { 16, 16, 224, 224 }, /* integer factor                     */
    { 19, 11, 512, 301 },
    { 40, 30, 17, 13 },   /* downsampling                       */
    { 1, 9, 5, 20 },      /* one column                         */
  };
  const guint n_sizes = G_N_ELEMENTS (sizes);
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) grids = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *py_out = NULL;

  for (guint k = 0; k < n_sizes; k++)
    {
      guint w = sizes[k][0], h = sizes[k][1];
      double *grid = g_new (double, w * h);
      g_autofree char *name = g_strdup_printf ("grid%u.f64", k);

      for (guint i = 0; i < w * h; i++)
        grid[i] = g_test_rand_double_range (-3, 7);
      g_ptr_array_add (grids, grid);
      g_ptr_array_add (args, write_raw (dir, name, grid, w * h));
      g_ptr_array_add (args, g_strdup_printf ("%u", w));
      g_ptr_array_add (args, g_strdup_printf ("%u", h));
      g_ptr_array_add (args, g_strdup_printf ("%u", sizes[k][2]));
      g_ptr_array_add (args, g_strdup_printf ("%u", sizes[k][3]));
      g_ptr_array_add (args, g_strdup_printf ("%s/ref%u.f64", dir, k));
      g_ptr_array_add (args, g_strdup (hs_upsample_to_string (mode)));
    }
  g_ptr_array_add (args, NULL);
  py_out = hs_test_python (kind == REF_NUMPY ? numpy_script : cv2_script, (const char * const *) args->pdata);
  if (py_out == NULL)
    return;

  for (guint k = 0; k < n_sizes; k++)
    {
      guint w = sizes[k][0], h = sizes[k][1], W = sizes[k][2], H = sizes[k][3];
      g_autofree double *out = g_new (double, W * H);
      g_autofree double *ref = read_raw (g_ptr_array_index (args, k * 7 + 5), (gsize) W * H);

      hs_resample (g_ptr_array_index (grids, k), w, h, out, W, H, mode);
      for (guint i = 0; i < W * H; i++)
        {
          if (tolerance == 0.0)
            {
              if (out[i] != ref[i])
                g_error ("%ux%u → %ux%u: pixel (%u, %u) is %.17g, reference %.17g",
                         w, h, W, H, i % W, i / W, out[i], ref[i]);
            }
          else
            g_assert_cmpfloat_with_epsilon (out[i], ref[i], tolerance);
        }
    }
}

static void
test_numpy_bilinear (void)
{
  compare_with_reference (REF_NUMPY, HS_UPSAMPLE_BILINEAR, 0.0);
}

static void
test_numpy_nearest (void)
{
  compare_with_reference (REF_NUMPY, HS_UPSAMPLE_NEAREST, 0.0);
}

static void
test_cv2_bilinear (void)
{
  /* OpenCV computes in float32 with float32 weights. */
  compare_with_reference (REF_CV2, HS_UPSAMPLE_BILINEAR, 5e-5 * 10);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/resample/bilinear-1d", test_bilinear_1d);
  g_test_add_func ("/hs/resample/bilinear-2d", test_bilinear_2d);
  g_test_add_func ("/hs/resample/identity", test_identity);
  g_test_add_func ("/hs/resample/nearest", test_nearest);
  g_test_add_func ("/hs/resample/region", test_region);
  g_test_add_func ("/hs/resample/strings", test_strings);
  g_test_add_func ("/hs/resample/numpy-bilinear", test_numpy_bilinear);
  g_test_add_func ("/hs/resample/numpy-nearest", test_numpy_nearest);
  g_test_add_func ("/hs/resample/cv2-bilinear", test_cv2_bilinear);
  return g_test_run ();
}
