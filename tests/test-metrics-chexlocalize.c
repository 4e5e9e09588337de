/* test-metrics-chexlocalize.c — the chexlocalize protocol (Saporta et al.):
 * hole filling by hand and the whole IoU against OpenCV (Otsu, external
 * contours drawn filled), as CheXlocalize does it */
#include <heatscope/heatscope.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"
/* Private to libheatscope (hs-metrics-private.h); the test links the static library. */
void hs_metrics_fill_holes (guint8 *mask, guint width, guint height);

static void
test_fill_holes (void)
{
  /* A ring with a hole, a C shape open to the outside, an island inside a
   * hole, and a diagonal-only enclosure (4-connected background: a hole). */
  const char *in[] = {
    "..........",
    ".#####....",
    ".#...#.##.",
    ".#.#.#.#..",
    ".#...#.##.",
    ".#####....",
    ".......#..",
    "......#.#.",
    ".......#..",
    "..........",
  };
  const char *expected[] = {
    "..........",
    ".#####....",
    ".#####.##.",
    ".#####.#..",
    ".#####.##.",
    ".#####....",
    ".......#..",
    "......###.",
    ".......#..",
    "..........",
  };
  guint8 mask[100];

  for (guint y = 0; y < 10; y++)
    for (guint x = 0; x < 10; x++)
      mask[y * 10 + x] = in[y][x] == '#';
  hs_metrics_fill_holes (mask, 10, 10);
  for (guint y = 0; y < 10; y++)
    for (guint x = 0; x < 10; x++)
      if (mask[y * 10 + x] != (expected[y][x] == '#'))
        g_error ("pixel (%u, %u) is %d", x, y, mask[y * 10 + x]);

  /* foreground touching the border: nothing to fill outside */
  {
    guint8 m[9] = { 1, 1, 1, 1, 0, 1, 1, 1, 1 };
    hs_metrics_fill_holes (m, 3, 3);
    g_assert_cmpint (m[4], ==, 1);
  }
  {
    guint8 m[9] = { 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    hs_metrics_fill_holes (m, 3, 3);
    for (guint i = 0; i < 9; i++)
      g_assert_cmpint (m[i], ==, 0);
  }
}

static HsTarget *
new_target (guint W, guint H, const HsBox *box)
{
  HsEvalGrid grid;
  g_autoptr(GError) error = NULL;
  HsTarget *t;

  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_CHEXLOCALIZE, W, H, 0, &error));
  t = hs_target_new (&grid);
  if (box != NULL)
    g_assert_true (hs_target_add_box (t, box, &error));
  return t;
}

static void
test_ring_map (void)
{
  /* A ring-shaped map: Otsu keeps the ring, hole filling adds the centre,
   * so the IoU with a box covering the disc is higher than otsu_iou's. */
  const guint n = 21, W = 84;
  g_autofree double *A = g_new (double, n * n);
  HsBox box = { 12, 12, 72, 72 };
  g_autoptr(HsTarget) t = new_target (W, W, &box);
  g_autoptr(GError) error = NULL;
  HsScoreOptions options;
  HsScores chex, def;

  for (guint y = 0; y < n; y++)
    for (guint x = 0; x < n; x++)
      {
        double r = hypot (x - 10.0, y - 10.0);
        A[y * n + x] = (r > 5 && r < 8) ? 1.0 : 0.0;
      }
  hs_score_options_init (&options);
  options.protocol = HS_PROTOCOL_CHEXLOCALIZE;
  g_assert_true (hs_score_values (A, n, n, NAN, "ring", t, &options, &chex, &error));
  g_assert_no_error (error);
  {
    g_autoptr(HsTarget) td = NULL;
    HsEvalGrid grid;

    g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, W, W, 0, &error));
    td = hs_target_new (&grid);
    g_assert_true (hs_target_add_box (td, &box, &error));
    g_assert_true (hs_score_values (A, n, n, NAN, "ring", td, NULL, &def, &error));
  }
  g_assert_cmpfloat (chex.value[HS_METRIC_OTSU_IOU], >, def.value[HS_METRIC_OTSU_IOU]);
  /* everything else is the default protocol's on the same grid */
  g_assert_cmpfloat (chex.value[HS_METRIC_AUROC], ==, def.value[HS_METRIC_AUROC]);
  g_assert_cmpfloat (chex.value[HS_METRIC_POINTING_HIT], ==, def.value[HS_METRIC_POINTING_HIT]);
  g_assert_cmpfloat (chex.value[HS_METRIC_IOU_10], ==, def.value[HS_METRIC_IOU_10]);
}

static void
test_empty_prediction (void)
{
  /* A constant map: Otsu finds nothing → IoU undefined (not 0 as in the
   * default protocol); an empty target → undefined too. */
  const double A[] = { 2, 2, 2, 2 };
  HsBox box = { 0, 0, 4, 4 };
  g_autoptr(HsTarget) t = new_target (8, 8, &box);
  g_autoptr(HsTarget) empty = new_target (8, 8, NULL);
  g_autoptr(GError) error = NULL;
  HsScoreOptions options;
  HsScores sc;

  hs_score_options_init (&options);
  options.protocol = HS_PROTOCOL_CHEXLOCALIZE;
  g_assert_true (hs_score_values (A, 2, 2, NAN, "flat", t, &options, &sc, &error));
  g_assert_true (isnan (sc.value[HS_METRIC_OTSU_IOU]));
  g_assert_cmpstr (sc.reason[HS_METRIC_OTSU_IOU], ==, "prediction is empty");
  {
    const double B[] = { 0, 1, 2, 3 };
    g_assert_true (hs_score_values (B, 2, 2, NAN, "b", empty, &options, &sc, &error));
    g_assert_true (isnan (sc.value[HS_METRIC_OTSU_IOU]));
    g_assert_cmpstr (sc.reason[HS_METRIC_OTSU_IOU], ==, "target is empty");
  }
}

static void
test_fixed_threshold (void)
{
  /* n = (s − min)/(max − min) on 4 × 1: 0, 1/3, 2/3, 1; n ≥ 0.5 → {2, 3} */
  const double A[] = { 1, 2, 3, 4 };
  HsBox box = { 3, 0, 4, 1 };
  g_autoptr(HsTarget) t = new_target (4, 1, &box);
  g_autoptr(GError) error = NULL;
  HsScoreOptions options;
  HsScores sc;

  hs_score_options_init (&options);
  options.protocol = HS_PROTOCOL_CHEXLOCALIZE;
  options.threshold = 0.5;
  g_assert_true (hs_score_values (A, 4, 1, NAN, "t", t, &options, &sc, &error));
  g_assert_cmpfloat (sc.value[HS_METRIC_OTSU_IOU], ==, 0.5);
}

/* Random maps against the CheXlocalize pipeline in OpenCV. */
static const char *reference_script =
  "import sys, json, numpy as np, cv2\n"
  "def case(afile, gfile, W, H, w, h, thr):\n"
  "    W, H, w, h = int(W), int(H), int(w), int(h); thr = float(thr)\n"
  "    A = np.fromfile(afile, dtype=np.float64).reshape(h, w)\n"
  "    G = np.fromfile(gfile, dtype=np.uint8).reshape(H, W) > 0\n"
  "    x = np.arange(W, dtype=np.float64); y = np.arange(H, dtype=np.float64)\n"
  "    sx = np.clip((x + 0.5) * w / W - 0.5, 0, w - 1); sy = np.clip((y + 0.5) * h / H - 0.5, 0, h - 1)\n"
  "    x0 = np.floor(sx).astype(int); y0 = np.floor(sy).astype(int)\n"
  "    x1 = np.minimum(x0 + 1, w - 1); y1 = np.minimum(y0 + 1, h - 1)\n"
  "    fx = sx - x0; fy = (sy - y0)[:, None]\n"
  "    s = (1 - fy) * ((1 - fx) * A[y0][:, x0] + fx * A[y0][:, x1]) + fy * ((1 - fx) * A[y1][:, x0] + fx * A[y1][:, x1])\n"
  "    mn, mx = s.min(), s.max()\n"
  "    n = (s - mn) / (mx - mn) if mx > mn else np.zeros_like(s)\n"
  "    if np.isnan(thr):\n"
  "        u = np.uint8(255 * n)\n"
  "        t, b = cv2.threshold(u, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)\n"
  "        cnts, _ = cv2.findContours(b, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)\n"
  "        filled = np.zeros_like(b)\n"
  "        cv2.drawContours(filled, cnts, -1, 1, thickness=cv2.FILLED)\n"
  "        pred = filled > 0\n"
  "    else:\n"
  "        pred = n >= thr\n"
  "    if pred.sum() == 0 or G.sum() == 0: return None\n"
  "    return int((pred & G).sum()) / int((pred | G).sum())\n"
  "a = sys.argv[1:]\n"
  "print(json.dumps([case(*a[i:i + 7]) for i in range(0, len(a), 7)]))\n";

static void
test_random_cv2 (void)
{
  const struct { guint W, H, w, h; double thr; } cases[] = {
    { 160, 120, 12, 9, NAN }, { 211, 173, 7, 7, NAN }, { 300, 200, 30, 20, NAN },
    { 128, 128, 5, 5, NAN }, { 97, 151, 10, 14, 0.5 }, { 120, 80, 16, 9, 0.25 },
    { 256, 256, 24, 24, NAN }, { 180, 140, 9, 7, NAN },
  };
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  double ours[G_N_ELEMENTS (cases)];
  g_autofree char *out = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *ref;

  for (guint ci = 0; ci < G_N_ELEMENTS (cases); ci++)
    {
      guint W = cases[ci].W, H = cases[ci].H, w = cases[ci].w, h = cases[ci].h;
      g_autofree double *A = g_new (double, w * h);
      g_autofree char *apath = g_strdup_printf ("%s/%u-a.f64", dir, ci);
      g_autofree char *gpath = g_strdup_printf ("%s/%u-g.u8", dir, ci);
      HsBox box = { W * 0.2, H * 0.25, W * 0.7, H * 0.8 };
      g_autoptr(HsTarget) t = new_target (W, H, &box);
      HsScoreOptions options;
      HsScores sc;
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      /* smooth blobs and rings plus noise: Otsu regions with holes */
      for (guint y = 0; y < h; y++)
        for (guint x = 0; x < w; x++)
          {
            double r = hypot (x - w / 2.0, y - h / 2.0) / (MIN (w, h) / 2.0);
            A[y * w + x] = (ci % 2 == 0 ? exp (-8 * (r - 0.6) * (r - 0.6)) : exp (-3 * r * r))
                           + 0.4 * g_test_rand_double ();
          }
      g_assert_true (g_file_set_contents (apath, (const char *) A, sizeof (double) * w * h, NULL));
      g_assert_true (g_file_set_contents (gpath, (const char *) hs_target_peek_mask (t), W * H, NULL));
      hs_score_options_init (&options);
      options.protocol = HS_PROTOCOL_CHEXLOCALIZE;
      options.threshold = cases[ci].thr;
      g_assert_true (hs_score_values (A, w, h, NAN, "m", t, &options, &sc, &error));
      ours[ci] = sc.value[HS_METRIC_OTSU_IOU];
      g_ptr_array_add (args, g_steal_pointer (&apath));
      g_ptr_array_add (args, g_steal_pointer (&gpath));
      g_ptr_array_add (args, g_strdup_printf ("%u", W));
      g_ptr_array_add (args, g_strdup_printf ("%u", H));
      g_ptr_array_add (args, g_strdup_printf ("%u", w));
      g_ptr_array_add (args, g_strdup_printf ("%u", h));
      g_ptr_array_add (args, g_strdup (isnan (cases[ci].thr) ? "nan" : g_ascii_dtostr (buf, sizeof buf, cases[ci].thr)));
    }
  g_ptr_array_add (args, NULL);
  out = hs_test_python (reference_script, (const char * const *) args->pdata);
  if (out == NULL)
    return;
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  ref = json_node_get_array (json_parser_get_root (parser));
  for (guint ci = 0; ci < G_N_ELEMENTS (cases); ci++)
    {
      JsonNode *node = json_array_get_element (ref, ci);

      if (JSON_NODE_HOLDS_NULL (node))
        g_assert_true (isnan (ours[ci]));
      else if (ours[ci] != json_node_get_double (node))
        g_error ("case %u: IoU %.17g, CheXlocalize pipeline %.17g", ci, ours[ci], json_node_get_double (node));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/metrics-chexlocalize/fill-holes", test_fill_holes);
  g_test_add_func ("/hs/metrics-chexlocalize/ring-map", test_ring_map);
  g_test_add_func ("/hs/metrics-chexlocalize/empty-prediction", test_empty_prediction);
  g_test_add_func ("/hs/metrics-chexlocalize/fixed-threshold", test_fixed_threshold);
  g_test_add_func ("/hs/metrics-chexlocalize/random-cv2", test_random_cv2);
  return g_test_run ();
}
