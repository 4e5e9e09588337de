/* test-baselines.c — null baselines: uniform, center, sobel, laplace, random */
#include <heatscope/heatscope.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

static HsTarget *
new_target (HsProtocol protocol, guint W, guint H, const HsBox *box)
{
  HsEvalGrid grid;
  g_autoptr(GError) error = NULL;
  HsTarget *target;

  g_assert_true (hs_eval_grid_init (&grid, protocol, W, H, 0, &error));
  target = hs_target_new (&grid);
  if (box != NULL)
    g_assert_true (hs_target_add_box (target, box, &error));
  return target;
}

static HsImage *
random_image (guint W, guint H, guint channels, guint32 seed)
{
  g_autoptr(GError) error = NULL;
  HsImage *image = hs_image_new (W, H, channels, 8, &error);
  guint16 *data = hs_image_get_data (image);
  GRand *rand = g_rand_new_with_seed (seed);

  g_assert_no_error (error);
  for (gsize i = 0; i < (gsize) W * H * channels; i++)
    data[i] = (guint16) g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);
  return image;
}

static void
test_names (void)
{
  HsBaseline b;

  g_assert_cmpstr (hs_baseline_to_string (HS_BASELINE_UNIFORM), ==, "uniform");
  g_assert_cmpstr (hs_baseline_to_string (HS_BASELINE_CENTER), ==, "center");
  g_assert_cmpstr (hs_baseline_to_string (HS_BASELINE_SOBEL), ==, "sobel");
  g_assert_cmpstr (hs_baseline_to_string (HS_BASELINE_LAPLACE), ==, "laplace");
  g_assert_cmpstr (hs_baseline_to_string (HS_BASELINE_RANDOM), ==, "random");
  g_assert_true (hs_baseline_from_string ("laplace", &b));
  g_assert_cmpint (b, ==, HS_BASELINE_LAPLACE);
  g_assert_false (hs_baseline_from_string ("gradcam", &b));
  g_assert_true (hs_baseline_needs_image (HS_BASELINE_SOBEL));
  g_assert_false (hs_baseline_needs_image (HS_BASELINE_CENTER));
}

static void
test_uniform (void)
{
  /* A constant map: every threshold metric follows the tie rules. */
  HsBox box = { 0, 0, 10, 20 };
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, 40, 20, &box);
  g_autoptr(GError) error = NULL;
  HsScores sc;

  g_assert_true (hs_baseline_score (HS_BASELINE_UNIFORM, t, NULL, 7, 7, 1, NULL, &sc, &error));
  g_assert_cmpfloat (sc.value[HS_METRIC_AUROC], ==, 0.5);
  g_assert_cmpfloat (sc.value[HS_METRIC_AP], ==, 0.25);
  g_assert_cmpfloat (sc.value[HS_METRIC_IOU_5], ==, 0.25);        /* T = every pixel */
  g_assert_cmpfloat (sc.value[HS_METRIC_RECALL_30], ==, 1.0);
  g_assert_cmpfloat (sc.value[HS_METRIC_POINTING_HIT], ==, 1.0);  /* pixel 0 is in G */
  g_assert_cmpfloat (sc.value[HS_METRIC_MASS_IN_TARGET], ==, 0.25);
  g_assert_true (isnan (sc.value[HS_METRIC_CNR]));
  /* constant on the model's 7 × 7 grid (metrics.md), not one cell */
  g_assert_cmpfloat_with_epsilon (sc.value[HS_METRIC_ENTROPY], log (49.0), 1e-12);
  g_assert_cmpfloat_with_epsilon (sc.value[HS_METRIC_ENTROPY_NORM], 1.0, 1e-12);
}

/* Entropy of p = v / Σv over n cells, written out independently of the library. */
static double
entropy_of (const double *v, guint n)
{
  double sum = 0, e = 0;

  for (guint i = 0; i < n; i++)
    sum += v[i];
  for (guint i = 0; i < n; i++)
    if (v[i] > 0)
      e -= v[i] / sum * log (v[i] / sum);
  return e;
}

/* The center baseline's grid metrics are taken on the model's grid: the 40 × 20 image-grid map
 * area-averaged onto h × w.  The reference splits every image pixel into w × h (resp. h) equal
 * sub-cells, so each model cell is a plain mean of whole sub-cells — no overlap weights. */
static void
test_grid_metrics_on_model_grid (void)
{
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, 40, 20, NULL);
  g_autoptr(GError) error = NULL;
  const guint shapes[][2] = { { 8, 4 }, { 7, 3 }, { 13, 11 }, { 1, 1 }, { 64, 32 } };

  for (guint k = 0; k < G_N_ELEMENTS (shapes); k++)
    {
      guint mw = shapes[k][0], mh = shapes[k][1];
      g_autoptr(HsAttentionMap) map = hs_baseline_make (HS_BASELINE_CENTER, hs_target_get_grid (t),
                                                        NULL, mw, mh, 0, &error);
      const double *v = hs_attention_map_peek_values (map);
      guint fw = 40 * mw, fh = 20 * mh;   /* sub-cell grid: divisible by both */
      g_autofree double *cells = g_new0 (double, mw * mh);
      HsScores sc;

      for (guint fy = 0; fy < fh; fy++)
        for (guint fx = 0; fx < fw; fx++)
          cells[(fy / 20) * mw + fx / 40] += v[(fy / mh) * 40 + fx / mw];
      g_assert_true (hs_baseline_score (HS_BASELINE_CENTER, t, NULL, mw, mh, 0, NULL, &sc, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat_with_epsilon (sc.value[HS_METRIC_ENTROPY], entropy_of (cells, mw * mh), 1e-12);
      if (mw * mh > 1)
        g_assert_cmpfloat_with_epsilon (sc.value[HS_METRIC_ENTROPY_NORM],
                                        entropy_of (cells, mw * mh) / log ((double) mw * mh), 1e-12);
    }
}

static void
test_center (void)
{
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, 40, 20, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  const double *v;
  double sigma = 0.25 * 40;

  map = hs_baseline_make (HS_BASELINE_CENTER, hs_target_get_grid (t), NULL, 0, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_width (map), ==, 40);
  g_assert_cmpuint (hs_attention_map_get_height (map), ==, 20);
  v = hs_attention_map_peek_values (map);
  /* pixel (x, y) centre (x + .5, y + .5), image centre (20, 10) */
  for (guint y = 0; y < 20; y += 3)
    for (guint x = 0; x < 40; x += 7)
      {
        double dx = x + 0.5 - 20, dy = y + 0.5 - 10;
        g_assert_cmpfloat_with_epsilon (v[y * 40 + x], exp (-(dx * dx + dy * dy) / (2 * sigma * sigma)), 1e-14);
      }
  /* symmetric: the four centre pixels share the maximum */
  g_assert_cmpfloat_with_epsilon (v[9 * 40 + 19], v[10 * 40 + 20], 1e-15);

  /* gloria: 224 × 224 in the crop frame, centred on the transformed image centre */
  {
    g_autoptr(HsTarget) tg = new_target (HS_PROTOCOL_GLORIA, 512, 256, NULL);
    g_autoptr(HsAttentionMap) mg = hs_baseline_make (HS_BASELINE_CENTER, hs_target_get_grid (tg),
                                                     NULL, 0, 0, 0, &error);
    const double *w;
    double sg = 0.25 * 512;

    g_assert_cmpuint (hs_attention_map_get_width (mg), ==, 224);
    w = hs_attention_map_peek_values (mg);
    /* crop pixel (100, 112): image x = (100.5 + 16)/0.5 = 233, y = (112.5 − 48)/0.5 = 129 */
    {
      double dx = 233 - 256.0, dy = 129 - 128.0;
      g_assert_cmpfloat_with_epsilon (w[112 * 224 + 100], exp (-(dx * dx + dy * dy) / (2 * sg * sg)), 1e-14);
    }
  }
}

static void
test_random (void)
{
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, 64, 64, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) a = hs_baseline_make (HS_BASELINE_RANDOM, hs_target_get_grid (t), NULL, 9, 5, 7, &error);
  g_autoptr(HsAttentionMap) b = hs_baseline_make (HS_BASELINE_RANDOM, hs_target_get_grid (t), NULL, 9, 5, 7, &error);
  g_autoptr(HsAttentionMap) c = hs_baseline_make (HS_BASELINE_RANDOM, hs_target_get_grid (t), NULL, 9, 5, 8, &error);

  g_assert_cmpuint (hs_attention_map_get_width (a), ==, 9);
  g_assert_cmpuint (hs_attention_map_get_height (a), ==, 5);
  g_assert_cmpmem (hs_attention_map_peek_values (a), 45 * sizeof (double),
                   hs_attention_map_peek_values (b), 45 * sizeof (double));
  g_assert_true (memcmp (hs_attention_map_peek_values (a), hs_attention_map_peek_values (c),
                         45 * sizeof (double)) != 0);
  for (guint i = 0; i < 45; i++)
    {
      double v = hs_attention_map_peek_values (a)[i];
      g_assert_true (v >= 0 && v < 1);
    }
}

static void
test_needs_image (void)
{
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, 16, 16, NULL);
  g_autoptr(GError) error = NULL;
  HsScores sc;

  g_assert_false (hs_baseline_score (HS_BASELINE_SOBEL, t, NULL, 4, 4, 1, NULL, &sc, &error));
  g_assert_error (error, HS_BASELINE_ERROR, HS_BASELINE_ERROR_NEEDS_IMAGE);
  g_assert_nonnull (strstr (error->message, "sobel"));
  g_clear_error (&error);
  {
    g_autoptr(HsImage) wrong = random_image (8, 8, 1, 1);
    g_assert_false (hs_baseline_score (HS_BASELINE_LAPLACE, t, wrong, 4, 4, 1, NULL, &sc, &error));
    g_assert_error (error, HS_BASELINE_ERROR, HS_BASELINE_ERROR_INVALID);
  }
}

/* Sobel magnitude and |Laplacian| against OpenCV in float64 on the grey image. */
static void
test_filters_cv2 (void)
{
  const char *script =
    "import sys, numpy as np, cv2\n"
    "W, H = int(sys.argv[2]), int(sys.argv[3])\n"
    "g = np.fromfile(sys.argv[1], dtype=np.float64).reshape(H, W)\n"
    "gx = cv2.Sobel(g, cv2.CV_64F, 1, 0, ksize=3); gy = cv2.Sobel(g, cv2.CV_64F, 0, 1, ksize=3)\n"
    "np.sqrt(gx * gx + gy * gy).tofile(sys.argv[4])\n"
    "np.abs(cv2.Laplacian(g, cv2.CV_64F, ksize=1)).tofile(sys.argv[5])\n";
  const guint W = 37, H = 23;
  g_autoptr(HsImage) image = random_image (W, H, 3, 5);
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *gpath = g_build_filename (dir, "g.f64", NULL);
  g_autofree char *spath = g_build_filename (dir, "s.f64", NULL);
  g_autofree char *lpath = g_build_filename (dir, "l.f64", NULL);
  g_autofree double *grey = g_new (double, W * H);
  g_autofree char *out = NULL, *sdata = NULL, *ldata = NULL;
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, W, H, NULL);
  g_autoptr(HsAttentionMap) sobel = NULL, laplace = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  for (guint y = 0; y < H; y++)
    for (guint x = 0; x < W; x++)
      grey[y * W + x] = hs_image_get_grey (image, x, y);
  g_assert_true (g_file_set_contents (gpath, (const char *) grey, sizeof (double) * W * H, NULL));
  {
    g_autofree char *ws = g_strdup_printf ("%u", W), *hs = g_strdup_printf ("%u", H);
    const char *args[] = { gpath, ws, hs, spath, lpath, NULL };
    out = hs_test_python (script, args);
  }
  if (out == NULL)
    return;
  sobel = hs_baseline_make (HS_BASELINE_SOBEL, hs_target_get_grid (t), image, 0, 0, 0, &error);
  g_assert_no_error (error);
  laplace = hs_baseline_make (HS_BASELINE_LAPLACE, hs_target_get_grid (t), image, 0, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (spath, &sdata, &len, NULL));
  g_assert_cmpuint (len, ==, sizeof (double) * W * H);
  g_assert_true (g_file_get_contents (lpath, &ldata, &len, NULL));
  for (guint i = 0; i < W * H; i++)
    {
      g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_values (sobel)[i], ((double *) sdata)[i], 1e-9);
      g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_values (laplace)[i], ((double *) ldata)[i], 1e-9);
    }
}

static void
test_score_all (void)
{
  /* Every baseline scores under every protocol without error; an edge
   * image makes sobel point at the edge. */
  const guint W = 120, H = 90;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_new (W, H, 1, 8, &error);
  guint16 *data = hs_image_get_data (image);
  HsBox box = { 55, 0, 65, 90 };

  for (guint y = 0; y < H; y++)
    for (guint x = 0; x < W; x++)
      data[y * W + x] = x < 60 ? 0 : 200;
  for (guint p = 0; p < HS_N_PROTOCOLS; p++)
    {
      g_autoptr(HsTarget) t = new_target ((HsProtocol) p, W, H, &box);
      HsScoreOptions options;

      hs_score_options_init (&options);
      options.protocol = (HsProtocol) p;
      for (guint b = 0; b < HS_N_BASELINES; b++)
        {
          HsScores sc;

          g_assert_true (hs_baseline_score ((HsBaseline) b, t, image, 8, 6, 3, &options, &sc, &error));
          g_assert_no_error (error);
          g_assert_cmpint (sc.protocol, ==, p);
          if (b == HS_BASELINE_SOBEL && p == HS_PROTOCOL_DEFAULT)
            {
              g_assert_cmpfloat (sc.value[HS_METRIC_POINTING_HIT], ==, 1.0);
              g_assert_cmpfloat (sc.value[HS_METRIC_MASS_IN_TARGET], ==, 1.0);
            }
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/baselines/names", test_names);
  g_test_add_func ("/hs/baselines/uniform", test_uniform);
  g_test_add_func ("/hs/baselines/grid-metrics-on-model-grid", test_grid_metrics_on_model_grid);
  g_test_add_func ("/hs/baselines/center", test_center);
  g_test_add_func ("/hs/baselines/random", test_random);
  g_test_add_func ("/hs/baselines/needs-image", test_needs_image);
  g_test_add_func ("/hs/baselines/filters-cv2", test_filters_cv2);
  g_test_add_func ("/hs/baselines/score-all", test_score_all);
  return g_test_run ();
}
