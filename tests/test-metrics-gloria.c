/* test-metrics-gloria.c — the gloria protocol against a re-statement of
 * McInerney et al.'s fork (dmcinerney/gloria): the boxes go through
 * mimic_for_gloria.process_bboxes (bbox_to_mask, normalize to 0/255, the
 * image pipeline _resize_img with cv2.resize INTER_AREA + zero padding,
 * CenterCrop(224), ToTensor, Normalize(0.5, 0.5), > 0, mask_to_bbox) run
 * with python3-torch and python3-opencv, the map is upsampled by
 * torch.nn.Upsample(mode='nearest'), and the metrics follow callbacks.Metrics
 * (scikit-learn for auroc/ap, the (P − k)-th smallest threshold, IoU on >,
 * precision/recall on ≥). */
#include <heatscope/heatscope.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

/* argv groups: A.f64 W H w h no_attn(or nan) B.f64 b_no_attn x1 y1 x2 y2 ... -- */
static const char *reference_script =
  "import sys, json, math, warnings, numpy as np, torch, cv2\n"
  "from sklearn.metrics import roc_auc_score, average_precision_score\n"
  "warnings.simplefilter('ignore')\n"
  "def resize_img(img, scale):\n"
  "    # gloria/datasets/image_dataset.py _resize_img\n"
  "    size = img.shape; max_dim = max(size); max_ind = size.index(max_dim)\n"
  "    if max_ind == 0:\n"
  "        wpercent = scale / float(size[0]); hsize = int((float(size[1]) * float(wpercent)))\n"
  "        desireable_size = (scale, hsize)\n"
  "    else:\n"
  "        hpercent = scale / float(size[1]); wsize = int((float(size[0]) * float(hpercent)))\n"
  "        desireable_size = (wsize, scale)\n"
  "    resized_img = cv2.resize(img, desireable_size[::-1], interpolation=cv2.INTER_AREA)\n"
  "    if max_ind == 0:\n"
  "        pad_size = scale - resized_img.shape[1]\n"
  "        left = int(np.floor(pad_size / 2)); right = int(np.ceil(pad_size / 2)); top = 0; bottom = 0\n"
  "    else:\n"
  "        pad_size = scale - resized_img.shape[0]\n"
  "        top = int(np.floor(pad_size / 2)); bottom = int(np.ceil(pad_size / 2)); left = 0; right = 0\n"
  "    return np.pad(resized_img, [(top, bottom), (left, right)], 'constant', constant_values=0)\n"
  "def transform(x):\n"
  "    # CenterCrop(224) of the 256 square (top = round(32 / 2) = 16), ToTensor, Normalize half\n"
  "    t = torch.from_numpy(np.ascontiguousarray(x[16:240, 16:240])).float().div(255)\n"
  "    return (t - 0.5) / 0.5\n"
  "def bbox_to_mask(bbox, shape):\n"
  "    m = torch.zeros(shape, dtype=torch.bool); m[bbox[1]:bbox[3] + 1, bbox[0]:bbox[2] + 1] = 1; return m\n"
  "def mask_to_bbox(m):\n"
  "    if m.sum() == 0: return [-1, -1, -1, -1]\n"
  "    i0 = torch.arange(m.shape[0]).unsqueeze(1).expand(*m.shape)[m]\n"
  "    i1 = torch.arange(m.shape[1]).unsqueeze(0).expand(*m.shape)[m]\n"
  "    return [i1.min().item(), i0.min().item(), i1.max().item(), i0.max().item()]\n"
  "def to_u8(image):\n"
  "    image = image.float(); return np.array((image - image.min()) / (image.max() - image.min()) * 255, dtype=np.uint8)\n"
  "def case(a):\n"
  "    W, H, w, h = map(int, a[1:5]); na = float(a[5]); nb = float(a[7])\n"
  "    A = np.fromfile(a[0], dtype=np.float64).reshape(h, w)\n"
  "    B = np.fromfile(a[6], dtype=np.float64).reshape(h, w)\n"
  "    boxes = [list(map(int, a[i:i + 4])) for i in range(8, len(a), 4)]\n"
  "    G = torch.zeros((224, 224), dtype=torch.bool)\n"
  "    crops = []\n"
  "    for bb in boxes:\n"
  "        new = mask_to_bbox(transform(resize_img(to_u8(bbox_to_mask(bb, (H, W))), 256)) > 0)\n"
  "        crops.append(new)\n"
  "        G = G | bbox_to_mask(new, (224, 224))\n"
  "    s = torch.nn.Upsample(size=(224, 224), mode='nearest')(torch.from_numpy(A)[None, None])[0, 0].numpy()\n"
  "    sf = s.ravel(); gf = G.numpy().ravel(); P = 50176; ng = int(gf.sum())\n"
  "    out = {'target_pixels': float(ng), 'crops': crops}\n"
  "    out['auroc'] = roc_auc_score(gf, sf) if 0 < ng < P else None\n"
  "    out['ap'] = (average_precision_score(gf, sf) if ng < P else 1.0) if ng > 0 else None\n"
  "    srt = np.sort(sf)\n"
  "    for p, name in ((0.05, '5'), (0.1, '10'), (0.2, '20'), (0.3, '30')):\n"
  "        k = int(P * p); thr = srt[P - k - 1]\n"
  "        gt = sf > thr; ge = sf >= thr\n"
  "        u = int((gt | gf).sum())\n"
  "        out['iou@' + name] = int((gt & gf).sum()) / u if ng else None\n"
  "        out['precision@' + name] = int((ge & gf).sum()) / int(ge.sum()) if ng else None\n"
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
  char name[48];
  guint W, H, w, h;
  double no_attn;
  gboolean ties;
  gboolean zero_cells;
  guint n_boxes;
  HsBox boxes[4];
} Case;

#define N_CASES 40

static Case cases[N_CASES];

/* Random image sizes (real radiograph sizes, small ones that the pipeline
 * enlarges, squares), the grids of the issue (7, 16, 19, 24) and two where
 * torch's nearest index is off the exact floor (62, 124), ties, one to four
 * integer boxes: ordinary, tiny (vanishing), overhanging the image edge,
 * with a negative corner (a Python slice from the far edge), the whole
 * image (0/0 in normalize: no box). */
static void
make_cases (void)
{
  static const guint grids[] = { 7, 16, 19, 24, 62, 124 };
  GRand *rand = g_rand_new_with_seed (1919);

  for (guint ci = 0; ci < N_CASES; ci++)
    {
      Case *c = &cases[ci];
      guint longest = ci % 8 == 7 ? g_rand_int_range (rand, 40, 256) : g_rand_int_range (rand, 256, 2600);
      guint other = ci % 10 == 3 ? longest : (guint) g_rand_int_range (rand, MAX (longest / 3, 8), longest + 1);

      if (ci % 2)
        c->W = longest, c->H = other;
      else
        c->W = other, c->H = longest;
      c->w = c->h = grids[ci % G_N_ELEMENTS (grids)];
      if (ci % 5 == 4)
        c->w = c->h + 3;
      c->no_attn = ci % 3 == 0 ? NAN : g_rand_double_range (rand, 0, 0.5);
      c->ties = ci % 4 == 1;
      c->zero_cells = ci % 6 == 5;
      c->n_boxes = 1 + ci % 4;
      for (guint b = 0; b < c->n_boxes; b++)
        {
          double x1 = floor (g_rand_double_range (rand, 0, c->W * 0.85));
          double y1 = floor (g_rand_double_range (rand, 0, c->H * 0.85));
          double bw = floor (g_rand_double_range (rand, 0, c->W * 0.4));
          double bh = floor (g_rand_double_range (rand, 0, c->H * 0.4));

          switch ((ci + b) % 9)
            {
            case 3:   /* tiny: one to three pixels */
              bw = g_rand_int_range (rand, 0, 3);
              bh = g_rand_int_range (rand, 0, 3);
              break;
            case 5:   /* over the right/bottom edge */
              bw = c->W;
              bh = c->H * 0.5;
              break;
            case 7:   /* negative corner */
              x1 = -g_rand_int_range (rand, 1, 30);
              break;
            case 8:
              if (b == 0)   /* the whole image */
                {
                  x1 = y1 = 0;
                  bw = c->W - 1;
                  bh = c->H - 1;
                }
              break;
            default:
              break;
            }
          c->boxes[b] = (HsBox) { x1, y1, x1 + bw, y1 + bh };
        }
      g_snprintf (c->name, sizeof c->name, "%u-%ux%u-grid%ux%u-%ubox", ci, c->W, c->H, c->w, c->h, c->n_boxes);
    }
  g_rand_free (rand);
}

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
      for (guint b = 0; b < c->n_boxes; b++)
        {
          const HsBox *box = &c->boxes[b];

          g_assert_true (hs_target_add_box (target, box, &error));
          g_ptr_array_add (args, g_strdup_printf ("%.0f", box->x1));
          g_ptr_array_add (args, g_strdup_printf ("%.0f", box->y1));
          g_ptr_array_add (args, g_strdup_printf ("%.0f", box->x2));
          g_ptr_array_add (args, g_strdup_printf ("%.0f", box->y2));
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

  /* each box's crop box, [-1, -1, -1, -1] when nothing remains */
  {
    JsonArray *crops = json_object_get_array_member (ref, "crops");
    HsEvalGrid grid;

    g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_GLORIA, c->W, c->H, 0, NULL));
    g_assert_cmpuint (json_array_get_length (crops), ==, c->n_boxes);
    for (guint b = 0; b < c->n_boxes; b++)
      {
        JsonArray *theirs = json_array_get_array_element (crops, b);
        guint mine[4];
        gint64 want[4];
        gboolean some = hs_eval_grid_gloria_box (&grid, &c->boxes[b], mine);

        for (guint k = 0; k < 4; k++)
          want[k] = json_array_get_int_element (theirs, k);
        for (guint k = 0; k < 4; k++)
          if ((some ? (gint64) mine[k] : (gint64) -1) != want[k])
            g_error ("%s: box %u [%g, %g, %g, %g] maps to [%d, %d, %d, %d], the fork to [%d, %d, %d, %d]",
                     c->name, b, c->boxes[b].x1, c->boxes[b].y1, c->boxes[b].x2, c->boxes[b].y2,
                     some ? (int) mine[0] : -1, some ? (int) mine[1] : -1,
                     some ? (int) mine[2] : -1, some ? (int) mine[3] : -1,
                     (int) want[0], (int) want[1], (int) want[2], (int) want[3]);
      }
  }
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
          if (!isnan (ours))
            g_error ("%s: %s is %.17g, the fork leaves it undefined", c->name, keys[k], ours);
          continue;
        }
      if (isnan (ours))
        g_error ("%s: %s is undefined (%s), the fork has %.17g", c->name, keys[k],
                 sc->reason[m], json_node_get_double (node));
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
  make_cases ();
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
