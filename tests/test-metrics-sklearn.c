/* test-metrics-sklearn.c — every default-protocol metric on larger random
 * maps against scikit-learn (roc_auc_score, average_precision_score), OpenCV
 * (cv2.threshold Otsu) and NumPy transcriptions of metrics.md */
#include <heatscope/heatscope.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

/* Reads s (H × W float64), the target (uint8) and the grid A (h × w), and
 * prints the metrics of metrics.md as JSON (null when undefined). */
static const char *reference_script =
  "import sys, json, numpy as np, cv2\n"
  "from sklearn.metrics import roc_auc_score, average_precision_score\n"
  "def case(sfile, gfile, afile, W, H, w, h):\n"
  "  W, H, w, h = int(W), int(H), int(w), int(h)\n"
  "  s = np.fromfile(sfile, dtype=np.float64).reshape(H, W)\n"
  "  g = np.fromfile(gfile, dtype=np.uint8).reshape(H, W).astype(bool)\n"
  "  A = np.fromfile(afile, dtype=np.float64).reshape(h, w)\n"
  "  sf = s.ravel(); gf = g.ravel(); P = sf.size; ng = int(gf.sum())\n"
  "  both = 0 < ng < P\n"
  "  out = {}\n"
  "  out['auroc'] = roc_auc_score(gf, sf) if both else None\n"
  "  out['ap'] = average_precision_score(gf, sf) if both else None\n"
  "  desc = np.sort(sf)[::-1]\n"
  "  for k in (5, 10, 30):\n"
  "      r = -(-k * P // 100)\n"
  "      T = sf >= desc[r - 1]\n"
  "      inter = int((T & gf).sum()); union = int((T | gf).sum())\n"
  "      out['iou@%d' % k] = inter / union if union else 0.0\n"
  "      out['precision@%d' % k] = inter / int(T.sum())\n"
  "      out['recall@%d' % k] = inter / ng if ng else None\n"
  "  out['pointing_hit'] = float(gf[int(np.argmax(sf))]) if ng else None\n"
  "  pos = np.maximum(sf, 0)\n"
  "  out['mass_in_target'] = pos[gf].sum() / pos.sum() if ng and pos.sum() > 0 else None\n"
  "  mn, mx = sf.min(), sf.max()\n"
  "  n = (s - mn) / (mx - mn) if mx > mn else np.zeros_like(s)\n"
  "  u = np.floor(255 * n).astype(np.uint8)\n"
  "  t, pred = cv2.threshold(u, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)\n"
  "  pred = pred.ravel() > 0\n"
  "  out['otsu_level'] = t\n"
  "  out['otsu_threshold'] = sf[pred].min() if pred.any() else None\n"
  "  out['otsu_iou'] = int((pred & gf).sum()) / int((pred | gf).sum()) if ng else None\n"
  "  order = np.argsort(-np.abs(sf), kind='stable')\n"
  "  out['explanation_precision'] = int(gf[order[:ng]].sum()) / ng if ng else None\n"
  "  if both:\n"
  "      vi = sf[gf].var(); vo = sf[~gf].var()\n"
  "      out['cnr'] = None if vi == 0 and vo == 0 else abs(sf[gf].mean() - sf[~gf].mean()) / np.sqrt(vi + vo)\n"
  "  else:\n"
  "      out['cnr'] = None\n"
  "  a = np.maximum(A, 0).ravel()\n"
  "  if a.sum() > 0:\n"
  "      a = a / a.sum(); nz = a[a > 0]; ent = float(-(nz * np.log(nz)).sum())\n"
  "      out['entropy'] = ent; out['entropy_norm'] = ent / np.log(a.size) if a.size > 1 else None\n"
  "  else:\n"
  "      out['entropy'] = out['entropy_norm'] = None\n"
  "  x = np.arange(W); left = x + 0.5 < W / 2; right = x + 0.5 > W / 2\n"
  "  p2 = np.maximum(s, 0)\n"
  "  mR = p2[:, left].sum(); mL = p2[:, right].sum()\n"
  "  lat = (mL - mR) / (mL + mR) if mL + mR > 0 else None\n"
  "  cR = int(g[:, left].sum()); cL = int(g[:, right].sum())\n"
  "  tl = (cL - cR) / (cL + cR) if cL + cR > 0 else None\n"
  "  out['laterality'] = lat\n"
  "  out['target_laterality'] = tl\n"
  "  if ng == 0 or lat is None or tl is None:\n"
  "      out['wrong_side'] = None\n"
  "  else:\n"
  "      out['wrong_side'] = 1.0 if abs(lat) >= 0.2 and abs(tl) >= 0.2 and lat * tl < 0 else 0.0\n"
  "  return {k: (None if v is None else float(v)) for k, v in out.items()}\n"
  "a = sys.argv[1:]\n"
  "print(json.dumps([case(*a[i:i + 7]) for i in range(0, len(a), 7)]))\n";

typedef struct {
  const char *name;
  guint       W, H, w, h;
  HsUpsample  upsample;
  int         kind;      /* 0 continuous, 1 quantised (ties), 2 negative values, 3 constant blocks */
  guint       n_boxes;   /* 0 = empty target; 99 = full target */
} Case;

static const Case cases[] = {
  { "continuous-full-res", 120, 90,  120, 90, HS_UPSAMPLE_BILINEAR, 0, 2 },
  { "upsampled-bilinear",  211, 157, 7,   5,  HS_UPSAMPLE_BILINEAR, 0, 1 },
  { "quantised-ties",      160, 128, 40,  32, HS_UPSAMPLE_NEAREST,  1, 3 },
  { "nearest-ties",        99,  101, 9,   11, HS_UPSAMPLE_NEAREST,  0, 2 },
  { "negative-values",     150, 100, 30,  20, HS_UPSAMPLE_BILINEAR, 2, 2 },
  { "constant-blocks",     128, 128, 4,   4,  HS_UPSAMPLE_NEAREST,  3, 1 },
  { "odd-width",           201, 80,  15,  8,  HS_UPSAMPLE_BILINEAR, 0, 1 },
  { "empty-target",        64,  48,  8,   6,  HS_UPSAMPLE_BILINEAR, 0, 0 },
  { "full-target",         64,  48,  8,   6,  HS_UPSAMPLE_BILINEAR, 0, 99 },
  { "large-two-threads",   600, 500, 33, 23, HS_UPSAMPLE_BILINEAR, 0, 2 },
  { "large-ties",          640, 480, 640, 480, HS_UPSAMPLE_BILINEAR, 1, 2 },
};

static void
write_file (const char *path, const void *data, gsize len)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, (gssize) len, &error);
  g_assert_no_error (error);
}

static void
compare (const char *case_name, const HsScores *sc, JsonObject *ref, const char *key, double ours, double tol)
{
  JsonNode *node = json_object_get_member (ref, key);
  double expected;

  g_assert_nonnull (node);
  if (JSON_NODE_HOLDS_NULL (node))
    {
      if (!isnan (ours))
        g_error ("%s: %s is %.17g, reference null", case_name, key, ours);
      return;
    }
  expected = json_node_get_double (node);
  if (isnan (ours))
    g_error ("%s: %s is null, reference %.17g", case_name, key, expected);
  if (tol == 0 ? ours != expected : fabs (ours - expected) > tol * MAX (1.0, fabs (expected)))
    g_error ("%s: %s is %.17g, reference %.17g", case_name, key, ours, expected);
  (void) sc;
}

static HsScores case_scores[G_N_ELEMENTS (cases)];
static JsonParser *reference_parser;
static gboolean prepared, python_missing;

/* Scores every case and runs the reference once for all of them (one
 * Python start-up instead of one per case). */
static void
prepare_all (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;

  prepared = TRUE;
  for (guint ci = 0; ci < G_N_ELEMENTS (cases); ci++)
    {
      const Case *c = &cases[ci];
      g_autofree char *spath = g_strdup_printf ("%s/%u-s.f64", dir, ci);
      g_autofree char *gpath = g_strdup_printf ("%s/%u-g.u8", dir, ci);
      g_autofree char *apath = g_strdup_printf ("%s/%u-a.f64", dir, ci);
      g_autofree double *A = g_new (double, c->w * c->h);
      g_autofree double *s = g_new (double, c->W * c->H);
      g_autoptr(HsTarget) target = NULL;
      HsEvalGrid grid;
      HsScoreOptions options;
      GRand *rand = g_rand_new_with_seed (g_str_hash (c->name));

      for (guint i = 0; i < c->w * c->h; i++)
        {
          double v = g_rand_double (rand);
          switch (c->kind)
            {
            case 1: v = floor (v * 8) / 8; break;
            case 2: v = v * 2 - 1.2; break;
            case 3: v = (i % 3) * 0.5; break;
            default: break;
            }
          A[i] = v;
        }
      g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, c->W, c->H, 0, &error));
      target = hs_target_new (&grid);
      if (c->n_boxes == 99)
        {
          HsBox box = { 0, 0, c->W, c->H };
          g_assert_true (hs_target_add_box (target, &box, &error));
        }
      for (guint b = 0; c->n_boxes != 99 && b < c->n_boxes; b++)
        {
          double x1 = g_rand_double_range (rand, 0, c->W * 0.7), y1 = g_rand_double_range (rand, 0, c->H * 0.7);
          HsBox box = { x1, y1, x1 + g_rand_double_range (rand, 3, c->W * 0.3),
                        y1 + g_rand_double_range (rand, 3, c->H * 0.3) };
          g_assert_true (hs_target_add_box (target, &box, &error));
        }
      g_rand_free (rand);

      hs_score_options_init (&options);
      options.upsample = c->upsample;
      g_assert_true (hs_score_values (A, c->w, c->h, NAN, c->name, target, &options, &case_scores[ci], &error));
      g_assert_no_error (error);

      hs_eval_grid_resample (&grid, A, c->w, c->h, c->upsample, s);
      write_file (spath, s, sizeof (double) * c->W * c->H);
      write_file (gpath, hs_target_peek_mask (target), c->W * c->H);
      write_file (apath, A, sizeof (double) * c->w * c->h);
      g_ptr_array_add (args, g_steal_pointer (&spath));
      g_ptr_array_add (args, g_steal_pointer (&gpath));
      g_ptr_array_add (args, g_steal_pointer (&apath));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->W));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->H));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->w));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->h));
    }
  g_ptr_array_add (args, NULL);
  out = hs_test_python (reference_script, (const char * const *) args->pdata);
  if (out == NULL)
    {
      python_missing = TRUE;
      return;
    }
  reference_parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (reference_parser, out, -1, &error));
  g_assert_no_error (error);
}

static void
run_case (gconstpointer data)
{
  const Case *c = data;
  guint ci = (guint) (c - cases);
  const HsScores *sc = &case_scores[ci];
  JsonObject *ref;

  if (!prepared)
    prepare_all ();
  if (python_missing || reference_parser == NULL)
    {
      g_test_skip ("the Python reference (numpy, scikit-learn, OpenCV) is not available");
      return;
    }
  ref = json_array_get_object_element (json_node_get_array (json_parser_get_root (reference_parser)), ci);

  /* sklearn integrates with its own operation order: 1e-12 */
  compare (c->name, sc, ref, "auroc", sc->value[HS_METRIC_AUROC], 1e-12);
  compare (c->name, sc, ref, "ap", sc->value[HS_METRIC_AP], 1e-12);
  /* ratios of exact counts: bit-identical */
  compare (c->name, sc, ref, "iou@5", sc->value[HS_METRIC_IOU_5], 0);
  compare (c->name, sc, ref, "iou@10", sc->value[HS_METRIC_IOU_10], 0);
  compare (c->name, sc, ref, "iou@30", sc->value[HS_METRIC_IOU_30], 0);
  compare (c->name, sc, ref, "precision@5", sc->value[HS_METRIC_PRECISION_5], 0);
  compare (c->name, sc, ref, "precision@10", sc->value[HS_METRIC_PRECISION_10], 0);
  compare (c->name, sc, ref, "precision@30", sc->value[HS_METRIC_PRECISION_30], 0);
  compare (c->name, sc, ref, "recall@5", sc->value[HS_METRIC_RECALL_5], 0);
  compare (c->name, sc, ref, "recall@10", sc->value[HS_METRIC_RECALL_10], 0);
  compare (c->name, sc, ref, "recall@30", sc->value[HS_METRIC_RECALL_30], 0);
  compare (c->name, sc, ref, "pointing_hit", sc->value[HS_METRIC_POINTING_HIT], 0);
  compare (c->name, sc, ref, "otsu_level", sc->otsu_level, 0);
  compare (c->name, sc, ref, "otsu_iou", sc->value[HS_METRIC_OTSU_IOU], 0);
  compare (c->name, sc, ref, "otsu_threshold", sc->otsu_threshold, 0);
  compare (c->name, sc, ref, "explanation_precision", sc->value[HS_METRIC_EXPLANATION_PRECISION], 0);
  /* sums in another order */
  compare (c->name, sc, ref, "mass_in_target", sc->value[HS_METRIC_MASS_IN_TARGET], 1e-10);
  compare (c->name, sc, ref, "cnr", sc->value[HS_METRIC_CNR], 1e-9);
  compare (c->name, sc, ref, "entropy", sc->value[HS_METRIC_ENTROPY], 1e-10);
  compare (c->name, sc, ref, "entropy_norm", sc->value[HS_METRIC_ENTROPY_NORM], 1e-10);
  compare (c->name, sc, ref, "laterality", sc->value[HS_METRIC_LATERALITY], 1e-10);
  compare (c->name, sc, ref, "target_laterality", sc->target_laterality, 1e-15);
  compare (c->name, sc, ref, "wrong_side", sc->value[HS_METRIC_WRONG_SIDE], 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/hs/metrics-sklearn/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], run_case);
    }
  {
    int status = g_test_run ();
    g_clear_object (&reference_parser);
    return status;
  }
}
