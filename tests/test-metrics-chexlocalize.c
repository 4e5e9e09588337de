/* test-metrics-chexlocalize.c — the chexlocalize protocol (Saporta et al.)
 * against CheXlocalize's own code re-stated line for line and run with
 * python3-torch, python3-opencv and python3-pil: F.interpolate bilinear in
 * float32, heatmap_to_segmentation.cam_to_segmentation (Otsu, contours,
 * PIL polygons; or a threshold), eval.calculate_iou(true_pos_only=True) and
 * the pointing hit of eval.get_hitrates */
#include <heatscope/heatscope.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"
/* Private to libheatscope (hs-resample-private.h); the test links the static library. */
void hs_resample_torch_bilinear (const double *grid, guint w, guint h,
                                 guint out_w, guint out_h, double *out);

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
  /* A ring-shaped map: Otsu keeps the ring, the filled contours add the centre,
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
  /* the rest is the default protocol's on the same grid, up to the float32
   * rounding of the upsampled map */
  g_assert_cmpfloat_with_epsilon (chex.value[HS_METRIC_AUROC], def.value[HS_METRIC_AUROC], 1e-3);
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
  /* n = (s − min)/(max − min) on 4 × 1: 0, 1/3, 2/3, 1; n > 0.5 → {2, 3};
   * a tie at the threshold stays out (strict, as CheXlocalize's mask > t) */
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
  options.threshold = 2.0 / 3.0;
  g_assert_true (hs_score_values (A, 4, 1, NAN, "t", t, &options, &sc, &error));
  g_assert_cmpfloat (sc.value[HS_METRIC_OTSU_IOU], ==, 1.0);
}

/* argv groups "A.f64 G.u8 W H w h thr": [iou or None, hit or None] each. */
static const char *reference_script =
  "import sys, json, warnings, numpy as np, torch, cv2, torch.nn.functional as F\n"
  "from PIL import Image, ImageDraw\n"
  "warnings.simplefilter('ignore')\n"
  "def cam_to_segmentation(cam_mask, threshold=np.nan):\n"
  "    # heatmap_to_segmentation.py, smoothing=False\n"
  "    if (len(cam_mask.size()) > 2):\n"
  "        cam_mask = cam_mask.squeeze()\n"
  "    mask = cam_mask - cam_mask.min()\n"
  "    mask = mask.div(mask.max()).data\n"
  "    mask = mask.cpu().detach().numpy()\n"
  "    if np.isnan(threshold):\n"
  "        mask = np.uint8(255 * mask)\n"
  "        maxval = np.max(mask)\n"
  "        thresh = cv2.threshold(mask, 0, maxval, cv2.THRESH_OTSU)[1]\n"
  "        cnts = cv2.findContours(thresh, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)\n"
  "        cnts = cnts[0] if len(cnts) == 2 else cnts[1]\n"
  "        polygons = []\n"
  "        for cnt in cnts:\n"
  "            if len(cnt) > 1:\n"
  "                polygons.append([list(pt[0]) for pt in cnt])\n"
  "        img_dims = (mask.shape[1], mask.shape[0])\n"
  "        segmentation_output = Image.new('1', img_dims)\n"
  "        for polygon in polygons:\n"
  "            coords = [(point[0], point[1]) for point in polygon]\n"
  "            ImageDraw.Draw(segmentation_output).polygon(coords, outline=1, fill=1)\n"
  "        segmentation = np.array(segmentation_output, dtype='int')\n"
  "    else:\n"
  "        segmentation = np.array(mask > threshold, dtype='int')\n"
  "    return segmentation\n"
  "def calculate_iou(pred_mask, gt_mask, true_pos_only):\n"
  "    intersection = np.logical_and(pred_mask, gt_mask); union = np.logical_or(pred_mask, gt_mask)\n"
  "    if true_pos_only:\n"
  "        if np.sum(pred_mask) == 0 or np.sum(gt_mask) == 0: return np.nan\n"
  "        return np.sum(intersection) / (np.sum(union))\n"
  "    return np.nan if np.sum(union) == 0 else np.sum(intersection) / (np.sum(union))\n"
  "def case(afile, gfile, W, H, w, h, thr):\n"
  "    W, H, w, h = int(W), int(H), int(w), int(h)\n"
  "    A = np.fromfile(afile, dtype=np.float64).reshape(h, w)\n"
  "    gt_mask = np.fromfile(gfile, dtype=np.uint8).reshape(H, W)\n"
  "    saliency_map = torch.from_numpy(A.astype(np.float32))[None, None]\n"
  "    map_resized = F.interpolate(saliency_map, size=(H, W), mode='bilinear', align_corners=False)\n"
  "    seg = cam_to_segmentation(map_resized, threshold=np.float64(thr))\n"
  "    iou = calculate_iou(seg, gt_mask, True)\n"
  "    sal_map = map_resized.squeeze().squeeze().detach().cpu().numpy()\n"
  "    x = np.unravel_index(np.argmax(sal_map, axis=None), sal_map.shape)[0]\n"
  "    y = np.unravel_index(np.argmax(sal_map, axis=None), sal_map.shape)[1]\n"
  "    hit = 1 if gt_mask[x][y] == 1 else (None if np.sum(gt_mask) == 0 else 0)\n"
  "    # the shortcut the protocol used before (float64 map, exact normalising, holes filled\n"
  "    # by drawing the external contours): how often it misses CheXlocalize's numbers\n"
  "    m64 = F.interpolate(torch.from_numpy(A)[None, None], size=(H, W), mode='bilinear', align_corners=False)[0, 0].numpy()\n"
  "    if np.isnan(np.float64(thr)):\n"
  "        u = np.uint8(255 * (m64 - m64.min()) / (m64.max() - m64.min())) if m64.max() > m64.min() else np.zeros((H, W), np.uint8)\n"
  "        b = cv2.threshold(u, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]\n"
  "        cs = cv2.findContours(b, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]\n"
  "        naive = cv2.drawContours(np.zeros_like(b), cs, -1, 1, thickness=cv2.FILLED) > 0\n"
  "    else:\n"
  "        naive = (m64 - m64.min()) / (m64.max() - m64.min()) >= float(thr) if m64.max() > m64.min() else np.zeros((H, W), bool)\n"
  "    niou = calculate_iou(naive, gt_mask, True)\n"
  "    nhit = 1 if gt_mask.ravel()[np.argmax(m64)] == 1 else (None if np.sum(gt_mask) == 0 else 0)\n"
  "    differs = (None if np.isnan(niou) else float(niou)) != (None if np.isnan(iou) else float(iou)) or nhit != hit\n"
  "    return [None if np.isnan(iou) else float(iou), hit, bool(differs)]\n"
  "a = sys.argv[1:]\n"
  "print(json.dumps([case(*a[i:i + 7]) for i in range(0, len(a), 7)]))\n";

typedef enum {
  MAP_BLOB,      /* smooth blob + noise, upsampled                     */
  MAP_RING,      /* ring + noise: Otsu region with a hole              */
  MAP_TIES,      /* cells on 3 levels: exact ties become float ulps    */
  MAP_BLOCKS,    /* repeated cells in 2 × 2 blocks                     */
  MAP_SPECKLE,   /* image-size noise: islands, thin lines, holes       */
  MAP_STRIPES,   /* image-size one-pixel stripes and diagonals         */
  MAP_FLAT,      /* constant: 0/0, nothing predicted                   */
  N_MAP_KINDS
} MapKind;

static void
fill_map (MapKind kind, GRand *rand, guint w, guint h, double *A)
{
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        double r = hypot (x - w / 2.0, y - h / 2.0) / (MIN (w, h) / 2.0), v;

        switch (kind)
          {
          case MAP_BLOB:
            v = exp (-3 * r * r) + 0.4 * g_rand_double (rand);
            break;
          case MAP_RING:
            v = exp (-8 * (r - 0.6) * (r - 0.6)) + 0.3 * g_rand_double (rand);
            break;
          case MAP_TIES:
            v = floor (3 * g_rand_double (rand)) / 3.0 + (r < 0.5 ? 1.0 / 3.0 : 0);
            break;
          case MAP_BLOCKS:
            v = ((x / 2) * 7 + (y / 2) * 3) % 5 * 0.25;
            break;
          case MAP_SPECKLE:
            v = g_rand_double (rand) < 0.4 ? 0.8 + 0.1 * g_rand_double (rand) : 0.1 * g_rand_double (rand);
            break;
          case MAP_STRIPES:
            v = (x % 4 == 0 || (x + y) % 7 == 0 || (r > 0.5 && r < 0.58)) ? 1.0 : 0.05 * g_rand_double (rand);
            break;
          default:
            v = 0.7;
            break;
          }
        A[(gsize) y * w + x] = v * 3.0 - 1.0;
      }
}

static void
test_against_chexlocalize (void)
{
  const guint n_cases = 48;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autofree double *iou = g_new (double, n_cases);
  g_autofree double *hit = g_new (double, n_cases);
  g_autofree char *out = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (2024);
  JsonArray *ref;
  guint n_iou = 0, n_hit = 0, n_naive_differs = 0;

  for (guint ci = 0; ci < n_cases; ci++)
    {
      MapKind kind = (MapKind) (ci % N_MAP_KINDS);
      gboolean image_size = kind == MAP_SPECKLE || kind == MAP_STRIPES;
      guint W = g_rand_int_range (rand, 40, 260), H = g_rand_int_range (rand, 40, 260);
      guint w = image_size ? W : (guint) g_rand_int_range (rand, 3, 25);
      guint h = image_size ? H : (guint) g_rand_int_range (rand, 3, 25);
      double thr = ci % 9 == 8 ? g_rand_double_range (rand, 0.2, 0.8) : NAN;
      g_autofree double *A = g_new (double, (gsize) w * h);
      g_autofree char *apath = g_strdup_printf ("%s/%u-a.f64", dir, ci);
      g_autofree char *gpath = g_strdup_printf ("%s/%u-g.u8", dir, ci);
      g_autoptr(HsTarget) t = NULL;
      HsScoreOptions options;
      HsScores sc;
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      if (ci % 9 == 4)
        thr = 0.5;   /* ties at the threshold on the TIES/BLOCKS levels */
      fill_map (kind, rand, w, h, A);
      if (ci % 13 == 12)
        t = new_target (W, H, NULL);   /* empty target */
      else
        {
          HsBox box = { W * g_rand_double_range (rand, 0, 0.5), H * g_rand_double_range (rand, 0, 0.5), 0, 0 };

          box.x2 = box.x1 + W * g_rand_double_range (rand, 0.05, 0.6);
          box.y2 = box.y1 + H * g_rand_double_range (rand, 0.05, 0.6);
          t = new_target (W, H, &box);
        }
      g_assert_true (g_file_set_contents (apath, (const char *) A, sizeof (double) * w * h, NULL));
      g_assert_true (g_file_set_contents (gpath, (const char *) hs_target_peek_mask (t), (gssize) W * H, NULL));
      hs_score_options_init (&options);
      options.protocol = HS_PROTOCOL_CHEXLOCALIZE;
      options.threshold = thr;
      g_assert_true (hs_score_values (A, w, h, NAN, "m", t, &options, &sc, &error));
      g_assert_no_error (error);
      iou[ci] = sc.value[HS_METRIC_OTSU_IOU];
      hit[ci] = sc.value[HS_METRIC_POINTING_HIT];
      g_ptr_array_add (args, g_steal_pointer (&apath));
      g_ptr_array_add (args, g_steal_pointer (&gpath));
      g_ptr_array_add (args, g_strdup_printf ("%u", W));
      g_ptr_array_add (args, g_strdup_printf ("%u", H));
      g_ptr_array_add (args, g_strdup_printf ("%u", w));
      g_ptr_array_add (args, g_strdup_printf ("%u", h));
      g_ptr_array_add (args, g_strdup (isnan (thr) ? "nan" : g_ascii_dtostr (buf, sizeof buf, thr)));
    }
  g_rand_free (rand);
  g_ptr_array_add (args, NULL);
  out = hs_test_python (reference_script, (const char * const *) args->pdata);
  if (out == NULL)
    return;
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  ref = json_node_get_array (json_parser_get_root (parser));
  for (guint ci = 0; ci < n_cases; ci++)
    {
      JsonArray *pair = json_array_get_array_element (ref, ci);
      JsonNode *ri = json_array_get_element (pair, 0), *rh = json_array_get_element (pair, 1);

      if (JSON_NODE_HOLDS_NULL (ri))
        {
          if (!isnan (iou[ci]))
            g_error ("case %u: IoU %.17g, CheXlocalize undefined", ci, iou[ci]);
        }
      else if (iou[ci] != json_node_get_double (ri))
        g_error ("case %u: IoU %.17g, CheXlocalize %.17g", ci, iou[ci], json_node_get_double (ri));
      else
        n_iou++;
      if (JSON_NODE_HOLDS_NULL (rh))
        g_assert_true (isnan (hit[ci]));
      else if (hit[ci] != json_node_get_double (rh))
        g_error ("case %u: pointing hit %g, CheXlocalize %g", ci, hit[ci], json_node_get_double (rh));
      else
        n_hit++;
      n_naive_differs += json_array_get_boolean_element (pair, 2);
    }
  g_test_message ("%u cases: %u defined IoUs and %u hits equal CheXlocalize's; the float64, "
                  "hole-filling shortcut differs in %u", n_cases, n_iou, n_hit, n_naive_differs);
  /* the cases must tell the faithful pipeline from the shortcut */
  g_assert_cmpuint (n_naive_differs, >=, 5);
}

/* hs_resample_torch_bilinear against F.interpolate on float32 maps, bit for
 * bit: random sizes up and down, the identity, ties (repeated cells). */
static const char *bilinear_script =
  "import sys, numpy as np, torch, torch.nn.functional as F\n"
  "a = sys.argv[1:]\n"
  "for i in range(0, len(a), 6):\n"
  "    f, w, h, W, H, out = a[i:i + 6]\n"
  "    A = np.fromfile(f, dtype=np.float64).reshape(int(h), int(w)).astype(np.float32)\n"
  "    r = F.interpolate(torch.from_numpy(A)[None, None], size=(int(H), int(W)), mode='bilinear', align_corners=False)\n"
  "    r[0, 0].numpy().astype(np.float64).tofile(out)\n"
  "print('ok')\n";

static void
test_torch_bilinear (void)
{
  const guint n_cases = 60;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) ours = g_ptr_array_new_with_free_func (g_free);
  g_autofree guint *dims = g_new (guint, 4 * n_cases);
  g_autofree char *out = NULL;
  GRand *rand = g_rand_new_with_seed (1301);
  guint n_values = 0;

  for (guint ci = 0; ci < n_cases; ci++)
    {
      guint w = g_rand_int_range (rand, 1, 30), h = g_rand_int_range (rand, 1, 30);
      guint W = ci % 10 == 0 ? w : (guint) g_rand_int_range (rand, 1, 300);
      guint H = ci % 10 == 0 ? h : (guint) g_rand_int_range (rand, 1, 300);
      g_autofree double *A = g_new (double, (gsize) w * h);
      double *s = g_new (double, (gsize) W * H);
      g_autofree char *path = g_strdup_printf ("%s/%u.f64", dir, ci);

      for (gsize i = 0; i < (gsize) w * h; i++)
        A[i] = ci % 3 == 0 ? floor (g_rand_double (rand) * 3) / 3     /* ties */
             : g_rand_double_range (rand, -50, 50);
      hs_resample_torch_bilinear (A, w, h, W, H, s);
      g_ptr_array_add (ours, s);
      dims[4 * ci] = w, dims[4 * ci + 1] = h, dims[4 * ci + 2] = W, dims[4 * ci + 3] = H;
      g_assert_true (g_file_set_contents (path, (const char *) A, sizeof (double) * w * h, NULL));
      g_ptr_array_add (args, g_steal_pointer (&path));
      g_ptr_array_add (args, g_strdup_printf ("%u", w));
      g_ptr_array_add (args, g_strdup_printf ("%u", h));
      g_ptr_array_add (args, g_strdup_printf ("%u", W));
      g_ptr_array_add (args, g_strdup_printf ("%u", H));
      g_ptr_array_add (args, g_strdup_printf ("%s/%u.out", dir, ci));
    }
  g_rand_free (rand);
  g_ptr_array_add (args, NULL);
  out = hs_test_python (bilinear_script, (const char * const *) args->pdata);
  if (out == NULL)
    return;
  for (guint ci = 0; ci < n_cases; ci++)
    {
      g_autofree char *path = g_strdup_printf ("%s/%u.out", dir, ci);
      g_autofree char *theirs = NULL;
      const double *mine = g_ptr_array_index (ours, ci);
      gsize len = 0, n = (gsize) dims[4 * ci + 2] * dims[4 * ci + 3];

      g_assert_true (g_file_get_contents (path, &theirs, &len, NULL));
      g_assert_cmpuint (len, ==, n * sizeof (double));
      for (gsize k = 0; k < n; k++)
        if (mine[k] != ((const double *) (const void *) theirs)[k])
          g_error ("case %u (%u × %u → %u × %u): value %zu is %.9g, torch %.9g", ci,
                   dims[4 * ci], dims[4 * ci + 1], dims[4 * ci + 2], dims[4 * ci + 3], (size_t) k,
                   mine[k], ((const double *) (const void *) theirs)[k]);
      n_values += n;
    }
  g_test_message ("%u cases, %u values equal torch's float32 bilinear", n_cases, n_values);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/metrics-chexlocalize/ring-map", test_ring_map);
  g_test_add_func ("/hs/metrics-chexlocalize/empty-prediction", test_empty_prediction);
  g_test_add_func ("/hs/metrics-chexlocalize/fixed-threshold", test_fixed_threshold);
  g_test_add_func ("/hs/metrics-chexlocalize/torch-bilinear", test_torch_bilinear);
  g_test_add_func ("/hs/metrics-chexlocalize/chexlocalize-code", test_against_chexlocalize);
  return g_test_run ();
}
