/* test-metrics-gloria.c — the gloria protocol (McInerney et al.) against a
 * NumPy re-implementation written from the protocol text of metrics.md */
#include <heatscope/heatscope.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

/* argv: A.f64 W H w h no_attn(or nan) B.f64(second map for sym_kl) b_no_attn x1 y1 x2 y2 ... */
static const char *reference_script =
  "import sys, json, math, numpy as np\n"
  "from sklearn.metrics import roc_auc_score, average_precision_score\n"
  "def case(a):\n"
  "    W, H, w, h = map(int, a[1:5]); na = float(a[5]); nb = float(a[7])\n"
  "    A = np.fromfile(a[0], dtype=np.float64).reshape(h, w)\n"
  "    B = np.fromfile(a[6], dtype=np.float64).reshape(h, w)\n"
  "    boxes = np.array(list(map(float, a[8:]))).reshape(-1, 4)\n"
  "    # longest side to 256 (int() of the other, as GLoRIA), zero pad, centre crop 224\n"
  "    if H >= W:\n"
  "        rh = 256; rw = int(W * (256 / H))\n"
  "    else:\n"
  "        rw = 256; rh = int(H * (256 / W))\n"
  "    rw = max(rw, 1); rh = max(rh, 1)\n"
  "    px = (256 - rw) // 2; py = (256 - rh) // 2\n"
  "    G = np.zeros((224, 224), bool)\n"
  "    for x1, y1, x2, y2 in boxes:\n"
  "        c1 = math.floor(x1 * (rw / W) + (px - 16)); c2 = math.floor(x2 * (rw / W) + (px - 16))\n"
  "        r1 = math.floor(y1 * (rh / H) + (py - 16)); r2 = math.floor(y2 * (rh / H) + (py - 16))\n"
  "        if c2 < 0 or r2 < 0 or c1 > 223 or r1 > 223: continue\n"
  "        G[max(r1, 0):min(r2, 223) + 1, max(c1, 0):min(c2, 223) + 1] = True\n"
  "    idx_y = (np.arange(224) * h) // 224; idx_x = (np.arange(224) * w) // 224\n"
  "    s = A[idx_y][:, idx_x]\n"
  "    sf = s.ravel(); gf = G.ravel(); P = 50176; ng = int(gf.sum())\n"
  "    out = {'target_pixels': float(ng)}\n"
  "    both = 0 < ng < P\n"
  "    out['auroc'] = roc_auc_score(gf, sf) if both else None\n"
  "    out['ap'] = average_precision_score(gf, sf) if both else None\n"
  "    srt = np.sort(sf)\n"
  "    for p, name in ((0.05, '5'), (0.1, '10'), (0.2, '20'), (0.3, '30')):\n"
  "        k = int(P * p); thr = srt[P - k - 1]\n"
  "        gt = sf > thr; ge = sf >= thr\n"
  "        u = int((gt | gf).sum())\n"
  "        out['iou@' + name] = int((gt & gf).sum()) / u if u else 0.0\n"
  "        out['precision@' + name] = int((ge & gf).sum()) / int(ge.sum())\n"
  "        out['recall@' + name] = int((ge & gf).sum()) / ng if ng else None\n"
  "    def dist(M, n):\n"
  "        v = np.maximum(M, 0).ravel()\n"
  "        if not math.isnan(n): v = np.append(v, max(n, 0.0))\n"
  "        return v / v.sum()\n"
  "    pa = dist(A, na)\n"
  "    nz = pa[pa > 0]; ent = float(-(nz * np.log(nz)).sum())\n"
  "    out['entropy'] = ent; out['entropy_norm'] = ent / math.log(pa.size)\n"
  "    if math.isnan(na) != math.isnan(nb):\n"
  "        na = nb = float('nan')\n"
  "    pa = dist(A, na); pb = dist(B, nb)\n"
  "    m = (pa > 0) | (pb > 0)\n"
  "    out['sym_kl'] = None if ((pa == 0) & m).any() or ((pb == 0) & m).any() else float(((pa[m] - pb[m]) * np.log(pa[m] / pb[m])).sum())\n"
  "    return out\n"
  "args = sys.argv[1:]; groups = []; cur = []\n"
  "for x in args:\n"
  "    if x == '--': groups.append(cur); cur = []\n"
  "    else: cur.append(x)\n"
  "print(json.dumps([case(g) for g in groups]))\n";

typedef struct {
  const char *name;
  guint W, H, w, h;
  double no_attn;
  gboolean ties;
  gboolean zero_cells;
} Case;

static const Case cases[] = {
  { "wide-19x19",        1024, 800, 19, 19, NAN,  FALSE, FALSE },
  { "tall-no-attn",      700, 1000, 16, 16, 0.3,  FALSE, FALSE },
  { "square-ties",       512, 512,  7,  7,  0.05, TRUE,  FALSE },
  { "odd-sizes",         333, 1000, 11, 13, NAN,  FALSE, FALSE },
  { "zero-cells",        640, 480,  10, 8,  0.2,  FALSE, TRUE  },
};

static HsScores case_scores[G_N_ELEMENTS (cases)];
static double case_kl[G_N_ELEMENTS (cases)];
static JsonParser *reference_parser;
static gboolean prepared;

/* Scores every case, then runs the reference once for all of them. */
static void
prepare_all (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;

  prepared = TRUE;
  for (guint ci = 0; ci < G_N_ELEMENTS (cases); ci++)
    {
      const Case *c = &cases[ci];
      g_autofree char *apath = g_strdup_printf ("%s/%u-a.f64", dir, ci);
      g_autofree char *bpath = g_strdup_printf ("%s/%u-b.f64", dir, ci);
      g_autofree double *A = g_new (double, c->w * c->h);
      g_autofree double *B = g_new (double, c->w * c->h);
      g_autoptr(HsTarget) target = NULL;
      GRand *rand = g_rand_new_with_seed (g_str_hash (c->name));
      HsEvalGrid grid;
      HsScoreOptions options;
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      for (guint i = 0; i < c->w * c->h; i++)
        {
          A[i] = g_rand_double (rand);
          B[i] = g_rand_double (rand);
          if (c->ties)
            A[i] = floor (A[i] * 4) / 4;
          if (c->zero_cells && i % 5 == 0)
            A[i] = B[i] = 0;   /* zero in both: still a finite sym_kl */
        }
      g_assert_true (g_file_set_contents (apath, (const char *) A, sizeof (double) * c->w * c->h, NULL));
      g_assert_true (g_file_set_contents (bpath, (const char *) B, sizeof (double) * c->w * c->h, NULL));

      g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_GLORIA, c->W, c->H, 0, &error));
      target = hs_target_new (&grid);
      g_ptr_array_add (args, g_strdup (apath));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->W));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->H));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->w));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->h));
      g_ptr_array_add (args, g_strdup (isnan (c->no_attn) ? "nan" : g_ascii_dtostr (buf, sizeof buf, c->no_attn)));
      g_ptr_array_add (args, g_strdup (bpath));
      g_ptr_array_add (args, g_strdup (isnan (c->no_attn) ? "nan" : "0.1"));
      for (guint b = 0; b < 3; b++)
        {
          double x1 = g_rand_double_range (rand, -20, c->W * 0.8), y1 = g_rand_double_range (rand, -20, c->H * 0.8);
          HsBox box = { x1, y1, x1 + g_rand_double_range (rand, 0, c->W * 0.3),
                        y1 + g_rand_double_range (rand, 0, c->H * 0.3) };

          if (b == 2)   /* integer corners, as datasets usually have */
            box = (HsBox) { floor (x1), floor (y1), floor (box.x2), floor (box.y2) };
          g_assert_true (hs_target_add_box (target, &box, &error));
          g_ptr_array_add (args, g_strdup (g_ascii_dtostr (buf, sizeof buf, box.x1)));
          g_ptr_array_add (args, g_strdup (g_ascii_dtostr (buf, sizeof buf, box.y1)));
          g_ptr_array_add (args, g_strdup (g_ascii_dtostr (buf, sizeof buf, box.x2)));
          g_ptr_array_add (args, g_strdup (g_ascii_dtostr (buf, sizeof buf, box.y2)));
        }
      g_ptr_array_add (args, g_strdup ("--"));
      g_rand_free (rand);

      hs_score_options_init (&options);
      options.protocol = HS_PROTOCOL_GLORIA;
      g_assert_true (hs_score_values (A, c->w, c->h, c->no_attn, c->name, target, &options,
                                      &case_scores[ci], &error));
      g_assert_no_error (error);
      case_kl[ci] = hs_sym_kl (A, B, c->w * c->h, c->no_attn, isnan (c->no_attn) ? NAN : 0.1,
                               HS_PROTOCOL_GLORIA, NULL);
    }
  g_ptr_array_add (args, NULL);
  out = hs_test_python (reference_script, (const char * const *) args->pdata);
  if (out == NULL)
    return;
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
  const char *keys[] = { "auroc", "ap", "iou@5", "iou@10", "iou@20", "iou@30",
                         "precision@5", "precision@10", "precision@20", "precision@30",
                         "recall@5", "recall@10", "recall@20", "recall@30", "entropy", "entropy_norm" };
  JsonObject *ref;

  if (!prepared)
    prepare_all ();
  if (reference_parser == NULL)
    {
      g_test_skip ("the Python reference (numpy, scikit-learn) is not available");
      return;
    }
  ref = json_array_get_object_element (json_node_get_array (json_parser_get_root (reference_parser)), ci);

  g_assert_cmpfloat (json_object_get_double_member (ref, "target_pixels"), ==, (double) sc->target_pixels);
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      HsMetric m;
      JsonNode *node = json_object_get_member (ref, keys[k]);
      double ours, theirs;

      g_assert_true (hs_metric_from_name (keys[k], &m));
      ours = sc->value[m];
      if (JSON_NODE_HOLDS_NULL (node))
        {
          g_assert_true (isnan (ours));
          continue;
        }
      theirs = json_node_get_double (node);
      if (fabs (ours - theirs) > 1e-12 * MAX (1, fabs (theirs)))
        g_error ("%s: %s is %.17g, reference %.17g", c->name, keys[k], ours, theirs);
    }
  {
    JsonNode *node = json_object_get_member (ref, "sym_kl");
    if (JSON_NODE_HOLDS_NULL (node))
      g_assert_true (isnan (case_kl[ci]));
    else
      g_assert_cmpfloat_with_epsilon (case_kl[ci], json_node_get_double (node), 1e-10);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/hs/metrics-gloria/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], run_case);
    }
  {
    int status = g_test_run ();
    g_clear_object (&reference_parser);
    return status;
  }
}
