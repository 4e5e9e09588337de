/* test-cli-metrics.c — heatscope-cli metrics: rows, order, jobs, shards, subsets, summary */
#include <heatscope/heatscope.h>

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs-test-util.h"

#define W 40
#define H 30

static void
write_png (const char *dir, const char *name, guint width, guint height, gboolean mask)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_new (width, height, 1, 8, &error);
  guint16 *data;

  g_assert_no_error (error);
  data = hs_image_get_data (image);
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      data[y * width + x] = mask ? ((x >= 2 && x < 6 && y >= 3 && y < 7) ? 255 : 0) : (x * 5 + y) % 256;
  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (hs_image_save_png (image, path, &error));
  g_assert_no_error (error);
}

static void
write_map (const char *dir, const char *name, guint n_tokens, guint32 seed)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (seed);
  gsize shape[3] = { n_tokens, 6, 8 };
  gsize n = (n_tokens ? n_tokens : 1) * 6 * 8;
  g_autofree double *values = g_new (double, n);

  for (gsize i = 0; i < n; i++)
    values[i] = g_rand_int_range (rand, 0, 5) == 0 ? -0.1 * g_rand_double (rand)
                                                  : g_rand_double (rand);
  /* A few exact ties. */
  values[3] = values[4];
  g_rand_free (rand);
  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  if (n_tokens > 0)
    g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT64, 3, shape, values, FALSE, FALSE, &error));
  else
    g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT32, 2, shape + 1, values, FALSE, FALSE, &error));
  g_assert_no_error (error);
}

/* Five instances, models "beta" and "alpha" (listed in that order in the
 * manifest: rows must come sorted), one broken map. */
static char *
make_dataset (gboolean with_broken)
{
  char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "cli metrics");
  g_autoptr(GError) error = NULL;
  const char *tokens[] = { "a", "nodule", "left", NULL };
  guint32 seed = 1;

  write_png (dir, "masks/lesion.png", 10, 10, TRUE);   /* scaled ×4 / ×3 onto the image */
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *id = g_strdup_printf ("p%u", i);
      g_autofree char *image = g_strdup_printf ("images/%s.png", id);
      HsInstance *instance = hs_instance_new (id, image);
      HsRegion *region;
      HsSentence *sentence;

      write_png (dir, image, W, H, FALSE);
      if (i % 2 == 0)
        {
          instance->width = W;
          instance->height = H;
        }
      region = hs_region_new ("left lung");
      hs_region_add_box (region, 21 + i, 2.5, 38, 27);
      hs_instance_add_region (instance, region);
      region = hs_region_new ("right lung");
      hs_region_add_box (region, 2, 3, 17.5, 20 + i);
      hs_instance_add_region (instance, region);
      region = hs_region_new ("lesion");
      hs_region_set_mask (region, "masks/lesion.png");
      hs_region_add_box (region, 30, 20, 33, 24);
      hs_instance_add_region (instance, region);

      sentence = hs_sentence_new ("s0", "There is a nodule in the left lung.");
      hs_sentence_add_target (sentence, "left lung");
      hs_sentence_add_label (sentence, hs_label_new ("nodule", i % 2 ? "positive" : "negative", NULL));
      hs_instance_add_sentence (instance, sentence);
      sentence = hs_sentence_new ("s1", "Both lungs and a lesion.");
      hs_sentence_add_target (sentence, "right lung");
      hs_sentence_add_target (sentence, "lesion");
      hs_instance_add_sentence (instance, sentence);
      hs_instance_add_sentence (instance, hs_sentence_new ("s2", "No effusion."));
      instance->abnormal = i >= 2;

      for (guint s = 0; s < 3; s++)
        {
          const char *models[] = { "beta", "alpha" };

          for (guint m = 0; m < 2; m++)
            {
              g_autofree char *query = g_strdup_printf ("s%u", s);
              g_autofree char *file = g_strdup_printf ("maps/%s_%s_%s.npy", id, models[m], query);
              HsMapRef *ref = hs_map_ref_new (models[m], query, file);

              if (s == 1 && m == 1)
                {
                  hs_map_ref_set_tokens (ref, tokens);
                  write_map (dir, file, 3, seed++);
                }
              else if (!(with_broken && i == 3 && s == 0 && m == 0))
                write_map (dir, file, 0, seed++);
              if (s == 0 && m == 1)
                ref->no_attn = 0.125;
              /* p4 has no alpha map for s2: rows exist only where maps do. */
              if (i == 4 && s == 2 && m == 1)
                {
                  hs_map_ref_free (ref);
                  continue;
                }
              hs_instance_add_map (instance, ref);
            }
        }
      hs_dataset_add_instance (dataset, instance);
    }
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  return dir;
}

/* Keys and order of every jsonl row; returns the rows' (instance, query, model). */
static GPtrArray *
check_jsonl_rows (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *keys = g_ptr_array_new_with_free_func (g_free);
  guint n_metrics;
  const HsMetric *metrics = hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n_metrics);

  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GList) members = NULL;
      JsonObject *object;
      GList *l;
      guint k = 0;
      const char *expected_first[] = { "instance", "query", "model", "subsets" };

      json_parser_load_from_data (parser, lines[i], -1, &error);
      g_assert_no_error (error);
      object = json_node_get_object (json_parser_get_root (parser));
      members = json_object_get_members (object);
      for (l = members; l != NULL; l = l->next, k++)
        {
          if (k < 4)
            g_assert_cmpstr (l->data, ==, expected_first[k]);
          else
            {
              g_assert_cmpuint (k - 4, <, n_metrics);
              g_assert_cmpstr (l->data, ==, hs_metric_get_name (metrics[k - 4]));
            }
        }
      g_assert_cmpuint (k, ==, 4 + n_metrics);
      g_ptr_array_add (keys, g_strdup_printf ("%s/%s/%s", json_object_get_string_member (object, "instance"),
                                              json_object_get_string_member (object, "query"),
                                              json_object_get_string_member (object, "model")));
    }
  return keys;
}

static void
test_rows_order_and_errors (void)
{
  g_autofree char *dir = make_dataset (TRUE);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GPtrArray) keys = NULL;
  const char *args[] = { "--format", "jsonl", "--jobs", "1", dir, NULL };
  GString *expected = g_string_new (NULL);
  GString *actual = g_string_new (NULL);

  g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "p3_beta_s0.npy"));
  g_assert_nonnull (strstr (err, "instance \"p3\", query \"s0\", model \"beta\""));
  keys = check_jsonl_rows (out);

  /* Instance order, sentence order, model name; p3/s0/beta and p4/s2/alpha absent. */
  for (guint i = 0; i < 5; i++)
    for (guint s = 0; s < 3; s++)
      for (guint m = 0; m < 2; m++)
        {
          const char *model = m == 0 ? "alpha" : "beta";

          if ((i == 3 && s == 0 && m == 1) || (i == 4 && s == 2 && m == 0))
            continue;
          g_string_append_printf (expected, "p%u/s%u/%s\n", i, s, model);
        }
  for (guint i = 0; i < keys->len; i++)
    g_string_append_printf (actual, "%s\n", (char *) keys->pdata[i]);
  g_assert_cmpstr (actual->str, ==, expected->str);
  g_string_free (expected, TRUE);
  g_string_free (actual, TRUE);
}

/* A box partly outside the image and one with no pixel centre inside are
 * errors of their rows (the check validate and score make, hs_box_check),
 * not targets scored as empty or clipped. */
static void
test_bad_boxes (void)
{
  g_autofree char *dir = make_dataset (FALSE);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (dir, &error);
  g_autoptr(GPtrArray) keys = NULL;
  const char *args[] = { "--format", "jsonl", "--jobs", "1", dir, NULL };
  HsRegion *region;

  g_assert_no_error (error);
  region = hs_instance_find_region (hs_dataset_find_instance (dataset, "p1"), "left lung");
  g_array_index (region->boxes, HsBox, 0).x2 = W + 5;
  region = hs_instance_find_region (hs_dataset_find_instance (dataset, "p2"), "right lung");
  g_array_index (region->boxes, HsBox, 0) = (HsBox) { 5.6, 3, 5.9, 22 };
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);

  g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "instance \"p1\", query \"s0\""));
  g_assert_nonnull (strstr (err, "region \"left lung\": box [22, 2.5, 45, 27] reaches outside the 40 × 30 image"));
  g_assert_nonnull (strstr (err, "instance \"p2\", query \"s1\""));
  g_assert_nonnull (strstr (err, "region \"right lung\": box [5.6, 3, 5.9, 22] has no pixel of the 40 × 30 image inside"));
  keys = check_jsonl_rows (out);
  for (guint i = 0; i < keys->len; i++)
    {
      g_assert_false (g_str_has_prefix (keys->pdata[i], "p1/s0/"));
      g_assert_false (g_str_has_prefix (keys->pdata[i], "p2/s1/"));
    }
  /* every other row is there: 5 instances × 3 sentences × 2 models, less
   * p4/s2/alpha and the four rows of the two bad targets */
  g_assert_cmpuint (keys->len, ==, 5 * 3 * 2 - 1 - 4);
}

/* auroc and mass_in_target of every row against NumPy/scikit-learn, from
 * the manifest and the .npy files, following metrics.md independently. */
static void
test_against_sklearn (void)
{
  g_autofree char *dir = make_dataset (FALSE);
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *rows_path = g_build_filename (dir, "rows.jsonl", NULL);
  g_autofree char *py = NULL;
  const char *args[] = { "--format", "jsonl", "-o", rows_path, dir, NULL };
  const char *py_args[] = { dir, rows_path, NULL };
  const char *script =
    "import json, sys, os\n"
    "import numpy as np\n"
    "import cv2\n"
    "from sklearn.metrics import roc_auc_score\n"
    "root, rows = sys.argv[1], sys.argv[2]\n"
    "man = json.load(open(os.path.join(root, 'heatscope.json')))\n"
    "inst = {i['id']: i for i in man['instances']}\n"
    "def bilinear(A, W, H):\n"
    "    h, w = A.shape\n"
    "    sx = np.clip((np.arange(W) + 0.5) * w / W - 0.5, 0, w - 1)\n"
    "    sy = np.clip((np.arange(H) + 0.5) * h / H - 0.5, 0, h - 1)\n"
    "    x0 = np.floor(sx).astype(int); x1 = np.minimum(x0 + 1, w - 1); fx = sx - x0\n"
    "    y0 = np.floor(sy).astype(int); y1 = np.minimum(y0 + 1, h - 1); fy = (sy - y0)[:, None]\n"
    "    top = A[y0][:, x0] * (1 - fx) + A[y0][:, x1] * fx\n"
    "    bot = A[y1][:, x0] * (1 - fx) + A[y1][:, x1] * fx\n"
    "    return top * (1 - fy) + bot * fy\n"
    "n = 0; worst = 0.0; nulls = 0\n"
    "for line in open(rows):\n"
    "    r = json.loads(line); i = inst[r['instance']]\n"
    "    img = cv2.imread(os.path.join(root, i['image']), cv2.IMREAD_UNCHANGED)\n"
    "    H, W = img.shape[:2]\n"
    "    s = next(q for q in i['sentences'] if q['id'] == r['query'])\n"
    "    m = next(q for q in i['maps'] if q['model'] == r['model'] and q.get('query') == r['query'])\n"
    "    A = np.load(os.path.join(root, m['file'])).astype(np.float64)\n"
    "    if A.ndim == 3: A = A.mean(axis=0)\n"
    "    S = bilinear(A, W, H)\n"
    "    G = np.zeros((H, W), bool)\n"
    "    xc = np.arange(W) + 0.5; yc = np.arange(H) + 0.5\n"
    "    for t in s.get('targets', []):\n"
    "        reg = i['regions'][t]\n"
    "        for x1, y1, x2, y2 in reg.get('boxes', []):\n"
    "            G |= ((yc[:, None] >= y1) & (yc[:, None] < y2)) & ((xc[None, :] >= x1) & (xc[None, :] < x2))\n"
    "        if 'mask' in reg:\n"
    "            M = cv2.imread(os.path.join(root, reg['mask']), cv2.IMREAD_UNCHANGED)\n"
    "            mh, mw = M.shape[:2]\n"
    "            iy = np.floor((np.arange(H) + 0.5) * mh / H).astype(int)\n"
    "            ix = np.floor((np.arange(W) + 0.5) * mw / W).astype(int)\n"
    "            G |= M[iy][:, ix] != 0\n"
    "    if G.any() and not G.all():\n"
    "        auc = roc_auc_score(G.ravel(), S.ravel())\n"
    "        pos = np.maximum(S, 0)\n"
    "        mass = pos[G].sum() / pos.sum()\n"
    "        worst = max(worst, abs(auc - r['auroc']), abs(mass - r['mass_in_target']))\n"
    "        n += 1\n"
    "    else:\n"
    "        assert r['auroc'] is None and r['mass_in_target'] is None, r\n"
    "        nulls += 1\n"
    "print(n, nulls, repr(worst))\n";
  guint n = 0, nulls = 0;
  double worst = 1;

  g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, "");
  py = hs_test_python (script, py_args);
  if (py == NULL)
    return;
  g_assert_cmpint (sscanf (py, "%u %u %lf", &n, &nulls, &worst), ==, 3);
  g_assert_cmpuint (n, ==, 20);       /* 5 instances × 2 targeted sentences × 2 models */
  g_assert_cmpuint (nulls, ==, 9);    /* s2 has no target; p4 has no alpha map for s2 */
  g_assert_cmpfloat (worst, <, 1e-9);
}

static void
test_jobs_identical (void)
{
  g_autofree char *dir = make_dataset (TRUE);
  const char *formats[] = { "csv", "jsonl" };

  for (guint f = 0; f < 2; f++)
    {
      g_autofree char *out1 = NULL, *err1 = NULL, *out2 = NULL, *err2 = NULL;
      const char *args1[] = { "--format", formats[f], "--jobs", "1", dir, NULL };
      const char *args2[] = { "--format", formats[f], "--jobs", "2", dir, NULL };

      g_assert_cmpint (hs_test_run_cli ("metrics", args1, &out1, &err1), ==, 1);
      g_assert_cmpint (hs_test_run_cli ("metrics", args2, &out2, &err2), ==, 1);
      g_assert_cmpstr (out1, ==, out2);
      g_assert_cmpstr (err1, ==, err2);
      g_assert_cmpuint (strlen (out1), >, 1000);
    }
}

static void
test_shards_merge (void)
{
  g_autofree char *dir = make_dataset (FALSE);
  const char *formats[] = { "csv", "jsonl" };
  const char *counts[] = { "3", "7" };   /* 7 > 5 instances: some shards are empty */

  for (guint f = 0; f < 2; f++)
    {
      g_autofree char *whole = NULL, *err = NULL;
      const char *args[] = { "--format", formats[f], dir, NULL };

      g_assert_cmpint (hs_test_run_cli ("metrics", args, &whole, &err), ==, 0);
      for (guint c = 0; c < G_N_ELEMENTS (counts); c++)
        {
          GString *merged = g_string_new (NULL);
          guint n = atoi (counts[c]);

          for (guint k = 1; k <= n; k++)
            {
              g_autofree char *shard = g_strdup_printf ("%u/%u", k, n);
              g_autofree char *out = NULL, *shard_err = NULL;
              const char *shard_args[] = { "--format", formats[f], "--shard", shard, "--jobs", "2", dir, NULL };

              g_assert_cmpint (hs_test_run_cli ("metrics", shard_args, &out, &shard_err), ==, 0);
              g_string_append (merged, out);
            }
          g_assert_cmpstr (merged->str, ==, whole);
          g_string_free (merged, TRUE);
        }
    }
}

static void
test_csv_cells (void)
{
  g_autofree char *dir = make_dataset (FALSE);
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) header = NULL;
  const char *args[] = { dir, NULL };
  guint n_metrics;
  int auroc = -1, no_attn = -1;

  hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n_metrics);
  g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  header = g_strsplit (lines[0], ",", -1);
  g_assert_cmpuint (g_strv_length (header), ==, 4 + n_metrics);
  g_assert_cmpstr (header[0], ==, "instance");
  g_assert_cmpstr (header[3], ==, "subsets");
  for (guint i = 0; header[i] != NULL; i++)
    {
      if (strcmp (header[i], "auroc") == 0)
        auroc = i;
      if (strcmp (header[i], "no_attn") == 0)
        no_attn = i;
    }
  g_assert_cmpint (auroc, >, 0);
  g_assert_cmpint (no_attn, >, 0);
  for (guint l = 1; lines[l] != NULL && lines[l][0] != '\0'; l++)
    {
      g_auto(GStrv) cells = g_strsplit (lines[l], ",", -1);

      g_assert_cmpuint (g_strv_length (cells), ==, 4 + n_metrics);
      /* s2 has no target: undefined auroc is an empty cell, never 0. */
      if (strcmp (cells[1], "s2") == 0)
        g_assert_cmpstr (cells[auroc], ==, "");
      else
        g_assert_cmpstr (cells[auroc], !=, "");
      if (strcmp (cells[1], "s0") == 0 && strcmp (cells[2], "alpha") == 0)
        g_assert_cmpstr (cells[no_attn], ==, "0.125");
      else
        g_assert_cmpstr (cells[no_attn], ==, "");
      /* p1 and p3 (odd) state a positive nodule in s0. */
      if (strcmp (cells[1], "s0") == 0)
        g_assert_cmpint (strstr (cells[3], "abnormal") != NULL, ==,
                         strcmp (cells[0], "p1") == 0 || strcmp (cells[0], "p3") == 0);
    }
}

static void
test_subset_filter (void)
{
  g_autofree char *dir = make_dataset (FALSE);
  g_autofree char *all = NULL, *some = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  GString *expected = g_string_new (NULL);
  const char *args_all[] = { "--format", "jsonl", dir, NULL };
  const char *args_some[] = { "--format", "jsonl", "--subset", "one_lung", dir, NULL };

  g_assert_cmpint (hs_test_run_cli ("metrics", args_all, &all, &err), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (hs_test_run_cli ("metrics", args_some, &some, &err), ==, 0);
  lines = g_strsplit (all, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "\"one_lung\"") != NULL)
      g_string_append_printf (expected, "%s\n", lines[i]);
  /* s0 targets the image's right half only (x ≥ 21 of 40): one lung. */
  g_assert_cmpuint (expected->len, >, 0);
  g_assert_cmpstr (some, ==, expected->str);
  g_string_free (expected, TRUE);
}

static void
test_summary (void)
{
  g_autofree char *dir = make_dataset (FALSE);
  g_autofree char *rows = NULL, *first = NULL, *second = NULL, *other = NULL, *err = NULL;
  g_autofree char *rows_path = g_build_filename (dir, "rows.jsonl", NULL);
  g_autofree char *summary_path = g_build_filename (dir, "summary.jsonl", NULL);
  g_autofree char *py = NULL;
  const char *args_rows[] = { "--format", "jsonl", "-o", rows_path, dir, NULL };
  const char *args[] = { "--format", "jsonl", "--summary", dir, NULL };
  const char *args_seed[] = { "--format", "jsonl", "--summary", "--seed", "5", "--jobs", "2", dir, NULL };
  const char *args_file[] = { "--format", "jsonl", "--summary", "-o", summary_path, dir, NULL };
  const char *py_args[] = { rows_path, summary_path, NULL };
  const char *script =
    "import json, sys, math\n"
    "import numpy as np\n"
    "rows = [json.loads(l) for l in open(sys.argv[1])]\n"
    "summ = [json.loads(l) for l in open(sys.argv[2])]\n"
    "checked = 0\n"
    "for s in summ:\n"
    "    sel = [r for r in rows if r['model'] == s['model'] and (s['subset'] == 'all' or s['subset'] in r['subsets'])]\n"
    "    per = {}\n"
    "    for r in sel:\n"
    "        v = r[s['metric']]\n"
    "        if v is not None: per.setdefault(r['instance'], []).append(v)\n"
    "    means = [np.mean(v) for v in per.values()]\n"
    "    assert s['n_instances'] == len(means), (s, len(means))\n"
    "    assert s['n_rows'] == sum(len(v) for v in per.values())\n"
    "    if means:\n"
    "        assert abs(s['mean'] - np.mean(means)) < 1e-12, s\n"
    "        assert s['ci_low'] - 1e-12 <= s['mean'] <= s['ci_high'] + 1e-12, s\n"
    "        assert min(means) - 1e-12 <= s['ci_low'] and s['ci_high'] <= max(means) + 1e-12, s\n"
    "        checked += 1\n"
    "    else:\n"
    "        assert s['mean'] is None\n"
    "    assert s['resamples'] == 1000 and s['seed'] == 20240229\n"
    "print(len(summ), checked)\n";
  guint n_summary = 0, checked = 0, n_metrics;

  hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n_metrics);
  g_assert_cmpint (hs_test_run_cli ("metrics", args, &first, &err), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (hs_test_run_cli ("metrics", args, &second, &err), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_cmpstr (first, ==, second);
  g_assert_cmpint (hs_test_run_cli ("metrics", args_seed, &other, &err), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_cmpstr (first, !=, other);
  g_assert_nonnull (strstr (other, "\"seed\": 5}"));
  g_assert_cmpint (hs_test_run_cli ("metrics", args_rows, &rows, &err), ==, 0);
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&rows, g_free);
  g_assert_cmpint (hs_test_run_cli ("metrics", args_file, &rows, &err), ==, 0);

  py = hs_test_python (script, py_args);
  if (py == NULL)
    return;
  g_assert_cmpint (sscanf (py, "%u %u", &n_summary, &checked), ==, 2);
  g_assert_cmpuint (n_summary, ==, 2 * 4 * n_metrics);
  g_assert_cmpuint (checked, >, 2 * n_metrics);
}

/* --summary on an MRI dataset (the lesion demo: one "regular"/"irregular"
 * sentence per slice, its target all lesions together across the midline):
 * the chest subsets one_lung and mdrb have no sentence there and no lines;
 * all and abnormal (every slice has a positive finding) have theirs. */
static void
test_summary_mri (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *mri = g_build_filename (dir, "mri", NULL);
  g_autofree char *out = NULL, *err = NULL, *summary = NULL;
  const char *demo[] = { "--kind", "mri-lesions", "--count", "3", "--seed", "1", "--size", "128",
                         mri, NULL };
  const char *args[] = { "--summary", mri, NULL };
  g_autoptr(HsDataset) dataset = NULL;

  g_assert_cmpint (hs_test_run_cli ("demo", demo, &out, &err), ==, 0);
  dataset = hs_dataset_load (mri, NULL);
  g_assert_nonnull (dataset);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      for (guint k = 0; k < instance->sentences->len; k++)
        g_assert_cmpuint (hs_dataset_get_subsets (dataset, instance,
                                                  g_ptr_array_index (instance->sentences, k))
                          & (HS_SUBSET_ONE_LUNG | HS_SUBSET_MDRB), ==, 0);
    }
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (hs_test_run_cli ("metrics", args, &summary, &err), ==, 0);
  g_assert_nonnull (strstr (summary, ",all,auroc,3,"));
  g_assert_nonnull (strstr (summary, ",abnormal,auroc,3,"));
  g_assert_null (strstr (summary, ",one_lung,"));
  g_assert_null (strstr (summary, ",mdrb,"));
}

/* --summary and the rows on an MRI dataset whose targets lie on one side
 * (the lesion demo with one lesion per slice: every target in one image
 * half, which the geometric rule alone took for one_lung): one_lung and
 * mdrb are chest subsets and the instances' modality is MR, so no row is in
 * them and the summary lists all and abnormal only.  The same slices
 * without the modality (a user's import records none) are one_lung again:
 * the rule is the modality's, not the geometry's. */
static void
test_summary_mri_one_side (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *mri = g_build_filename (dir, "mri", NULL);
  g_autofree char *out = NULL, *err = NULL, *summary = NULL, *rows = NULL;
  const char *demo[] = { "--kind", "mri-lesions", "--count", "3", "--seed", "1", "--size", "128",
                         "--min-lesions", "1", "--max-lesions", "1", mri, NULL };
  const char *args[] = { "--summary", mri, NULL };
  const char *row_args[] = { mri, NULL };
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  guint n_sentences = 0;

  g_assert_cmpint (hs_test_run_cli ("demo", demo, &out, &err), ==, 0);
  dataset = hs_dataset_load (mri, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      g_assert_true (g_str_has_prefix (hs_instance_get_metadata (instance, "modality"), "MR"));
      for (guint k = 0; k < instance->sentences->len; k++)
        {
          HsSentence *sentence = g_ptr_array_index (instance->sentences, k);

          g_assert_cmpuint (hs_dataset_get_subsets (dataset, instance, sentence)
                            & (HS_SUBSET_ONE_LUNG | HS_SUBSET_MDRB), ==, 0);
          n_sentences++;
        }
      /* without its modality the one-sided lesion is one_lung by geometry */
      hs_instance_set_metadata (instance, "modality", NULL);
      for (guint k = 0; k < instance->sentences->len; k++)
        g_assert_cmpuint (hs_dataset_get_subsets (dataset, instance, g_ptr_array_index (instance->sentences, k))
                          & HS_SUBSET_ONE_LUNG, ==, HS_SUBSET_ONE_LUNG);
    }
  g_assert_cmpuint (n_sentences, ==, 3);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (hs_test_run_cli ("metrics", args, &summary, &err), ==, 0);
  g_assert_nonnull (strstr (summary, ",all,auroc,3,"));
  g_assert_nonnull (strstr (summary, ",abnormal,auroc,3,"));
  g_assert_null (strstr (summary, ",one_lung,"));
  g_assert_null (strstr (summary, ",mdrb,"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (hs_test_run_cli ("metrics", row_args, &rows, &err), ==, 0);
  g_assert_nonnull (strstr (rows, ",abnormal,"));
  g_assert_null (strstr (rows, "one_lung"));
}

/* --thresholds with --protocol chexlocalize: the rows of queries whose class (here the single
 * label "nodule" of s0) the table names are scored at its threshold, the others at Otsu's; a
 * threshold column says which; every number equals the library's with that threshold. */
static void
test_threshold_table (void)
{
  g_autofree char *dir = make_dataset (FALSE);
  g_autofree char *table = g_build_filename (dir, "tuning_results.csv", NULL);
  g_autofree char *out = NULL, *err = NULL, *plain_out = NULL, *plain_err = NULL;
  const char *args[] = { "--protocol", "chexlocalize", "--format", "jsonl", "--thresholds", table, dir, NULL };
  const char *plain_args[] = { "--protocol", "chexlocalize", "--format", "jsonl", dir, NULL };
  g_auto(GStrv) lines = NULL, plain_lines = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  guint n_table = 0, n_otsu = 0, n_changed = 0;

  g_assert_true (g_file_set_contents (table, "threshold,task\n0.3,Nodule\n0.6,Edema\n", -1, NULL));
  g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 0);
  g_assert_cmpint (hs_test_run_cli ("metrics", plain_args, &plain_out, &plain_err), ==, 0);
  g_assert_nonnull (strstr (err, "rows used its threshold"));
  g_assert_nonnull (strstr (err, "used Otsu's (no row for \"(no class label)\")"));
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  lines = g_strsplit (out, "\n", -1);
  plain_lines = g_strsplit (plain_out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, g_strv_length (plain_lines));
  for (guint r = 0; lines[r] != NULL && lines[r][0] != '\0'; r++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(JsonParser) plain_parser = json_parser_new ();
      JsonObject *row, *plain;
      const char *query;

      g_assert_true (json_parser_load_from_data (parser, lines[r], -1, NULL));
      g_assert_true (json_parser_load_from_data (plain_parser, plain_lines[r], -1, NULL));
      row = json_node_get_object (json_parser_get_root (parser));
      plain = json_node_get_object (json_parser_get_root (plain_parser));
      query = json_object_get_string_member (row, "query");
      if (strcmp (query, "s0") == 0)
        {
          HsInstance *instance = hs_dataset_find_instance (dataset, json_object_get_string_member (row, "instance"));
          HsSentence *sentence = hs_instance_find_sentence (instance, "s0");
          HsMapRef *ref = hs_instance_find_map (instance, json_object_get_string_member (row, "model"), "s0");
          g_autoptr(HsAttentionMap) map = hs_dataset_load_map (dataset, ref, &error);
          g_autoptr(HsTarget) target = NULL;
          HsScoreOptions options;
          HsEvalGrid grid;
          HsScores scores;
          guint w = 0, h = 0;

          g_assert_cmpfloat (json_object_get_double_member (row, "threshold"), ==, 0.3);
          g_assert_true (hs_dataset_get_image_size (dataset, instance, &w, &h, &error));
          hs_score_options_init (&options);
          options.protocol = HS_PROTOCOL_CHEXLOCALIZE;
          options.threshold = 0.3;
          g_assert_true (hs_eval_grid_init (&grid, options.protocol, w, h, 0, &error));
          target = hs_target_new (&grid);
          for (guint t = 0; sentence->targets[t] != NULL; t++)
            g_assert_true (hs_target_add_region (target, dataset,
                                                 hs_instance_find_region (instance, sentence->targets[t]), &error));
          g_assert_true (hs_score_map (map, target, &options, &scores, &error));
          if (isnan (scores.value[HS_METRIC_OTSU_IOU]))
            g_assert_true (json_object_get_null_member (row, "otsu_iou"));
          else
            g_assert_cmpfloat_with_epsilon (json_object_get_double_member (row, "otsu_iou"),
                                            scores.value[HS_METRIC_OTSU_IOU], 1e-12);
          if (!json_object_get_null_member (row, "otsu_iou") && !json_object_get_null_member (plain, "otsu_iou")
              && json_object_get_double_member (row, "otsu_iou") != json_object_get_double_member (plain, "otsu_iou"))
            n_changed++;
          n_table++;
        }
      else
        {
          g_autoptr(JsonGenerator) gen = json_generator_new ();
          g_autofree char *a = NULL, *b = NULL;

          g_assert_cmpstr (json_object_get_string_member (row, "threshold"), ==, "otsu");
          json_object_remove_member (row, "threshold");
          json_generator_set_root (gen, json_parser_get_root (parser));
          a = json_generator_to_data (gen, NULL);
          json_generator_set_root (gen, json_parser_get_root (plain_parser));
          b = json_generator_to_data (gen, NULL);
          g_assert_cmpstr (a, ==, b);
          n_otsu++;
        }
    }
  g_assert_cmpuint (n_table, ==, 10);
  g_assert_cmpuint (n_otsu, >, 0);
  g_assert_cmpuint (n_changed, >, 0);   /* the threshold mattered somewhere */

  /* CSV: the column after subsets. */
  {
    const char *csv_args[] = { "--protocol", "chexlocalize", "--thresholds", table, dir, NULL };
    g_autofree char *csv = NULL, *csv_err = NULL;

    g_assert_cmpint (hs_test_run_cli ("metrics", csv_args, &csv, &csv_err), ==, 0);
    g_assert_true (g_str_has_prefix (csv, "instance,query,model,subsets,threshold,"));
    g_auto(GStrv) rows = g_strsplit (csv, "\n", -1);
    guint seen = 0;

    for (guint r = 1; rows[r] != NULL && rows[r][0] != '\0'; r++)
      {
        g_auto(GStrv) cells = g_strsplit (rows[r], ",", -1);

        g_assert_cmpstr (cells[4], ==, strcmp (cells[1], "s0") == 0 ? "0.3" : "otsu");
        seen++;
      }
    g_assert_cmpuint (seen, ==, n_table + n_otsu);
  }
  /* Another protocol: a usage error. */
  {
    const char *bad[] = { "--thresholds", table, dir, NULL };
    g_autofree char *o = NULL, *e = NULL;

    g_assert_cmpint (hs_test_run_cli ("metrics", bad, &o, &e), ==, 2);
    g_assert_nonnull (strstr (e, "--protocol chexlocalize only"));
  }
}

static void
test_usage (void)
{
  g_autofree char *dir = make_dataset (FALSE);
  const char *bad[][4] = {
    { "--protocol", "fancy", NULL },
    { "--format", "xml", NULL },
    { "--shard", "0/2", NULL },
    { "--shard", "3/2", NULL },
    { "--shard", "1-2", NULL },
    { "--subset", "two_lungs", NULL },
    { "--jobs", "-1", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *args[] = { bad[i][0], bad[i][1], dir, NULL };

      g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 2);
      g_assert_cmpstr (out, ==, "");
    }
  /* The option values parsed by hs-cli-util.c name the option and the value
   * (the same lines as attend's and score's). */
  {
    static const struct { const char *option, *value, *message; } cases[] = {
      { "--shard", "1-2", "metrics: --shard wants K/N with 1 ≤ K ≤ N, not \"1-2\"" },
      { "--seed", "-1", "metrics: --seed wants a non-negative integer, not \"-1\"" },
      { "--seed", "18446744073709551616", "metrics: --seed wants a non-negative integer" },
      { "--perturb-seed", "x", "metrics: --perturb-seed wants a non-negative integer, not \"x\"" },
      { "--protocol", "fancy", "metrics: unknown protocol \"fancy\" (default, gloria, chexlocalize)" },
      { "--perturb", "upside-down", "metrics: unknown perturbation \"upside-down\" (swap-left-right," },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autofree char *out = NULL, *err = NULL;
        const char *args[] = { cases[i].option, cases[i].value, dir, NULL };

        g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 2);
        g_assert_cmpstr (out, ==, "");
        g_assert_nonnull (strstr (err, cases[i].message));
      }
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { NULL };
    g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 2);
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "--model", "gamma", dir, NULL };
    g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "gamma"));
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "--model", "beta", "--format", "jsonl", dir, NULL };
    g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 0);
    g_assert_null (strstr (out, "alpha"));
    g_assert_nonnull (strstr (out, "beta"));
  }
}

/* metrics --help and score --help print the library's table of metric
 * definitions: every entry's name, range and definition — however help is
 * asked for (the table is built only then, hs_cli_describe_metrics). */
static void
test_help_definitions (void)
{
  const char *commands[] = { "metrics", "score" };
  const char *asks[] = { "--help", "-h", "-?", "--help-all" };
  guint n;
  const HsMetricInfo *table = hs_metric_info_table (&n);

  for (guint c = 0; c < G_N_ELEMENTS (commands) * G_N_ELEMENTS (asks); c++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_auto(GStrv) lines = NULL;
      g_autoptr(GString) flat = g_string_new (NULL);
      /* alone, or after another option */
      const char *args[] = { "--protocol", "default", asks[c % G_N_ELEMENTS (asks)], NULL };

      g_assert_cmpint (hs_test_run_cli (commands[c / G_N_ELEMENTS (asks)], args + 2 * (c % 2), &out,
                                        &err), ==, 0);
      lines = g_strsplit (out, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        g_string_append_printf (flat, "%s ", g_strstrip (lines[i]));
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *head = g_strdup_printf ("%s  %s, ", table[i].name, table[i].range);

          g_assert_nonnull (strstr (flat->str, head));
          g_assert_nonnull (strstr (flat->str, table[i].definition));
        }
    }
}

/* Co-attention: with a tag_attention on some maps every row ends in
 * tag_entropy, tag_entropy_norm (hand-worked values; empty for a map
 * without tags), after a perturbation's columns too, and --summary
 * averages them like the metrics.  (A dataset without tags keeps its
 * columns: csv-cells.) */
static void
test_tag_columns (void)
{
  g_autofree char *dir = make_dataset (FALSE);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL, *summary = NULL, *perturbed = NULL, *jsonl = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) header = NULL;
  const HsTagWeight two[] = { { (char *) "granuloma", 0.5 }, { (char *) "calcified", 0.5 } };
  const HsTagWeight three[] = { { (char *) "nodule", 0.5 }, { (char *) "left", 0.25 },
                                { (char *) "opacity", 0.25 } };
  const HsTagWeight one[] = { { (char *) "normal", 1 } };
  const char *args[] = { dir, NULL };
  const char *args_jsonl[] = { "--format", "jsonl", dir, NULL };
  const char *args_summary[] = { "--summary", dir, NULL };
  const char *args_perturb[] = { "--perturb", "swap-left-right", dir, NULL };
  guint n_metrics, n_cells, checked = 0;
  const char *expected_h[3] = { NULL };
  const char *expected_norm[3] = { NULL };
  g_autofree char *h0 = hs_metric_format (log (2)), *h1 = hs_metric_format (1.5 * log (2));
  g_autofree char *n1 = hs_metric_format (1.5 * log (2) / log (3));

  /* alpha's s0 maps of p0, p1, p2 get two even tags, three (½, ¼, ¼), one. */
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 3; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      HsMapRef *ref = hs_instance_find_map (instance, "alpha", "s0");

      g_assert_nonnull (ref);
      hs_map_ref_set_tags (ref, i == 0 ? two : i == 1 ? three : one, i == 0 ? 2 : i == 1 ? 3 : 1);
    }
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  expected_h[0] = h0;
  expected_norm[0] = "1";
  expected_h[1] = h1;
  expected_norm[1] = n1;
  expected_h[2] = "0";
  expected_norm[2] = "";   /* one tag: ln 1 = 0 */

  hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n_metrics);
  g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  header = g_strsplit (lines[0], ",", -1);
  n_cells = 4 + n_metrics + 2;
  g_assert_cmpuint (g_strv_length (header), ==, n_cells);
  g_assert_cmpstr (header[n_cells - 2], ==, "tag_entropy");
  g_assert_cmpstr (header[n_cells - 1], ==, "tag_entropy_norm");
  for (guint l = 1; lines[l] != NULL && lines[l][0] != '\0'; l++)
    {
      g_auto(GStrv) cells = g_strsplit (lines[l], ",", -1);
      int instance = cells[0][1] - '0';

      g_assert_cmpuint (g_strv_length (cells), ==, n_cells);
      if (strcmp (cells[1], "s0") == 0 && strcmp (cells[2], "alpha") == 0 && instance < 3)
        {
          g_assert_cmpstr (cells[n_cells - 2], ==, expected_h[instance]);
          g_assert_cmpstr (cells[n_cells - 1], ==, expected_norm[instance]);
          checked++;
        }
      else
        {
          g_assert_cmpstr (cells[n_cells - 2], ==, "");
          g_assert_cmpstr (cells[n_cells - 1], ==, "");
        }
    }
  g_assert_cmpuint (checked, ==, 3);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (hs_test_run_cli ("metrics", args_jsonl, &jsonl, &err), ==, 0);
  g_assert_nonnull (strstr (jsonl, "\"tag_entropy\": null, \"tag_entropy_norm\": null}\n"));
  {
    g_autofree char *row = g_strdup_printf ("\"tag_entropy\": %s, \"tag_entropy_norm\": 1}\n", h0);
    g_assert_nonnull (strstr (jsonl, row));
  }
  g_clear_pointer (&err, g_free);

  /* Summary: alpha, all: tag_entropy over 3 instances, mean (ln 2 + 1.5 ln 2 + 0)/3;
   * tag_entropy_norm over 2; beta has none. */
  g_assert_cmpint (hs_test_run_cli ("metrics", args_summary, &summary, &err), ==, 0);
  {
    g_autofree char *mean = hs_metric_format ((log (2) + 1.5 * log (2) + 0) / 3);
    g_autofree char *mean_norm = hs_metric_format ((1 + 1.5 * log (2) / log (3)) / 2);
    g_autofree char *a = g_strdup_printf ("\nalpha,all,tag_entropy,3,3,%s,", mean);
    g_autofree char *b = g_strdup_printf ("\nalpha,all,tag_entropy_norm,2,2,%s,", mean_norm);

    g_assert_nonnull (strstr (summary, a));
    g_assert_nonnull (strstr (summary, b));
    g_assert_nonnull (strstr (summary, "\nbeta,all,tag_entropy,0,0,,,,1000,"));
  }
  g_clear_pointer (&err, g_free);

  /* With a perturbation the tag columns come last. */
  hs_test_run_cli ("metrics", args_perturb, &perturbed, &err);
  {
    g_auto(GStrv) perturbed_lines = g_strsplit (perturbed, "\n", 2);

    g_assert_true (g_str_has_suffix (perturbed_lines[0],
                                     ",sym_kl,swap_response,tag_entropy,tag_entropy_norm"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/cli-metrics/rows-order-and-errors", test_rows_order_and_errors);
  g_test_add_func ("/hs/cli-metrics/bad-boxes", test_bad_boxes);
  g_test_add_func ("/hs/cli-metrics/against-sklearn", test_against_sklearn);
  g_test_add_func ("/hs/cli-metrics/jobs-identical", test_jobs_identical);
  g_test_add_func ("/hs/cli-metrics/shards-merge", test_shards_merge);
  g_test_add_func ("/hs/cli-metrics/csv-cells", test_csv_cells);
  g_test_add_func ("/hs/cli-metrics/subset-filter", test_subset_filter);
  g_test_add_func ("/hs/cli-metrics/summary", test_summary);
  g_test_add_func ("/hs/cli-metrics/summary-mri", test_summary_mri);
  g_test_add_func ("/hs/cli-metrics/summary-mri-one-side", test_summary_mri_one_side);
  g_test_add_func ("/hs/cli-metrics/threshold-table", test_threshold_table);
  g_test_add_func ("/hs/cli-metrics/usage", test_usage);
  g_test_add_func ("/hs/cli-metrics/help-definitions", test_help_definitions);
  g_test_add_func ("/hs/cli-metrics/tag-columns", test_tag_columns);
  return g_test_run ();
}
