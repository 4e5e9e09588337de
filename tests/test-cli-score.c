/* test-cli-score.c — heatscope-cli score: JSON keys, values, baselines, errors */
#include <heatscope/heatscope.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

static char *tmpdir;

static char *
write_map (const char *name, guint h, guint w, const double *values)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  gsize shape[2] = { h, w };
  g_autoptr(GError) error = NULL;

  g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT64, 2, shape, values, FALSE, FALSE, &error));
  g_assert_no_error (error);
  return path;
}

static JsonObject *
parse_object (JsonParser *parser, const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static void
test_hand_worked (void)
{
  /* 1 × 6 map on a 6 × 1 image (no resampling), G = pixels 1, 2, 4 as in
   * test-metrics: auroc 5.5/9, ap 2/3, iou@30 2/5. */
  const double s[] = { 0.5, 0.5, 0.2, 0.5, 0.9, 0.2 };
  g_autofree char *map = write_map ("hand.npy", 1, 6, s);
  const char *args[] = { "--map", map, "--size", "6x1", "--box", "1,0,3,1", "--box", "4,0,5,1", "--json", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GList) members = NULL;
  JsonObject *obj;
  guint n;
  const HsMetric *list = hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n);
  guint i = 0;

  g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
  obj = parse_object (parser, out);
  /* exactly the metric keys, in order */
  members = json_object_get_members (obj);
  g_assert_cmpuint (g_list_length (members), ==, n);
  for (GList *l = members; l != NULL; l = l->next, i++)
    g_assert_cmpstr (l->data, ==, hs_metric_get_name (list[i]));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (obj, "auroc"), 5.5 / 9, 1e-15);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (obj, "ap"), 2.0 / 3, 1e-15);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (obj, "iou@30"), 0.4, 1e-15);
  g_assert_cmpfloat (json_object_get_double_member (obj, "pointing_hit"), ==, 1.0);
  g_assert_true (json_object_get_null_member (obj, "no_attn"));
}

static void
test_empty_target_nulls (void)
{
  const double s[] = { 1, 2, 3, 4 };
  g_autofree char *map = write_map ("empty.npy", 2, 2, s);
  const char *args[] = { "--map", map, "--size", "20x20", "--json", "--no-attn", "0.125", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *obj;

  g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
  obj = parse_object (parser, out);
  g_assert_true (json_object_get_null_member (obj, "auroc"));
  g_assert_true (json_object_get_null_member (obj, "recall@5"));
  g_assert_true (json_object_get_null_member (obj, "explanation_precision"));
  g_assert_cmpfloat (json_object_get_double_member (obj, "iou@5"), ==, 0.0);
  g_assert_cmpfloat (json_object_get_double_member (obj, "precision@30"), ==, 0.0);
  g_assert_cmpfloat (json_object_get_double_member (obj, "no_attn"), ==, 0.125);
}

/* --no-attn is a share of the attention: NaN, ±Inf, outside [0, 1] or not
 * a number is a usage error (NaN used to read as "not given"). */
static void
test_no_attn_range (void)
{
  const double s[] = { 1, 2, 3, 4 };
  g_autofree char *map = write_map ("no-attn.npy", 2, 2, s);
  const char *bad[] = { "nan", "NaN", "inf", "-0.1", "1.5", "0.5x", "" };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *args[] = { "--map", map, "--size", "20x20", "--json", "--no-attn", bad[i], NULL };
      g_autofree char *out = NULL, *err = NULL;
      g_autofree char *expected = g_strdup_printf ("--no-attn must be a share in [0, 1], not '%s'", bad[i]);

      g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 2);
      g_assert_nonnull (strstr (err, expected));
    }
  {
    const char *args[] = { "--map", map, "--size", "20x20", "--json", "--no-attn", "1", NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
  }
}

/* The CLI prints the library's numbers for a random map, a mask and two boxes. */
static void
test_matches_library (void)
{
  const guint w = 13, h = 9, W = 170, H = 120;
  g_autofree double *values = g_new (double, w * h);
  g_autofree char *map = NULL, *mask_path = g_build_filename (tmpdir, "mask.png", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) mask = hs_image_new (40, 30, 1, 8, &error);
  g_autoptr(HsTarget) target = NULL;
  g_autoptr(HsAttentionMap) amap = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  HsEvalGrid grid;
  HsScoreOptions options;
  HsScores sc;
  const HsBox boxes[] = { { 10.5, 20, 60, 70.25 }, { 100, 10, 160, 50 } };

  for (guint i = 0; i < w * h; i++)
    values[i] = g_test_rand_double ();
  map = write_map ("random.npy", h, w, values);
  for (guint y = 0; y < 30; y++)
    for (guint x = 0; x < 40; x++)
      hs_image_get_data (mask)[y * 40 + x] = (x > 25 && y > 18) ? 255 : 0;
  g_assert_true (hs_image_save_png (mask, mask_path, &error));

  for (guint p = 0; p < HS_N_PROTOCOLS; p++)
    {
      const char *args[] = { "--map", map, "--size", "170x120", "--box", "10.5,20,60,70.25",
                             "--box", "100,10,160,50", "--mask", mask_path, "--protocol",
                             hs_protocol_to_string ((HsProtocol) p), "--json", NULL };
      g_autofree char *out = NULL, *err = NULL;
      JsonObject *obj;
      guint n;
      const HsMetric *list;

      g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
      obj = parse_object (parser, out);

      g_assert_true (hs_eval_grid_init (&grid, (HsProtocol) p, W, H, 0, &error));
      g_clear_pointer (&target, hs_target_free);
      target = hs_target_new (&grid);
      g_assert_true (hs_target_add_boxes (target, boxes, 2, &error));
      g_assert_true (hs_target_add_mask (target, mask, &error));
      g_clear_pointer (&amap, hs_attention_map_unref);
      amap = hs_attention_map_new (0, h, w, values, &error);
      hs_score_options_init (&options);
      options.protocol = (HsProtocol) p;
      g_assert_true (hs_score_map (amap, target, &options, &sc, &error));

      list = hs_protocol_get_metrics ((HsProtocol) p, &n);
      g_assert_cmpuint (json_object_get_size (obj), ==, n);
      for (guint i = 0; i < n; i++)
        {
          const char *key = hs_metric_get_name (list[i]);
          JsonNode *node = json_object_get_member (obj, key);

          g_assert_nonnull (node);
          if (isnan (sc.value[list[i]]))
            g_assert_true (JSON_NODE_HOLDS_NULL (node));
          else
            g_assert_cmpfloat (json_node_get_double (node), ==, sc.value[list[i]]);   /* round-trip text */
        }
      if (p == HS_PROTOCOL_GLORIA)
        g_assert_true (json_object_has_member (obj, "iou@20"));
      else
        g_assert_false (json_object_has_member (obj, "iou@20"));
    }
}

static void
test_baselines (void)
{
  const double s[] = { 1, 2, 3, 4, 5, 6 };
  g_autofree char *map = write_map ("b.npy", 2, 3, s);
  g_autofree char *image_path = g_build_filename (tmpdir, "image.png", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_new (30, 20, 1, 8, &error);
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *names[] = { "uniform", "center", "sobel", "laplace", "random" };
  JsonObject *obj, *baselines;

  for (guint i = 0; i < 30 * 20; i++)
    hs_image_get_data (image)[i] = (guint16) ((i * 37) % 256);
  g_assert_true (hs_image_save_png (image, image_path, &error));
  {
    const char *args[] = { "--map", map, "--image", image_path, "--box", "5,5,15,15",
                           "--baselines", "--json", NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
    obj = parse_object (parser, out);
  }
  g_assert_true (json_object_has_member (obj, "auroc"));
  baselines = json_object_get_object_member (obj, "baselines");
  g_assert_nonnull (baselines);
  g_assert_cmpuint (json_object_get_size (baselines), ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      JsonObject *b = json_object_get_object_member (baselines, names[i]);
      g_assert_nonnull (b);
      g_assert_true (json_object_has_member (b, "auroc"));
      g_assert_true (json_object_has_member (b, "wrong_side"));
    }
  /* the uniform map ties everywhere */
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (baselines, "uniform"), "auroc"),
                     ==, 0.5);

  /* without --image: a usage error that says why */
  {
    const char *args[] = { "--map", map, "--size", "30x20", "--baselines", "--json", NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "--image"));
  }
}

/* `score --baselines` without `--map`: the baselines alone, on the 16 × 16 grid metrics.md gives
 * them when no model map is at hand — the same numbers as with a 16 × 16 map given, and the
 * uniform baseline constant on that grid (entropy ln 256, entropy_norm 1). */
static void
test_baselines_without_map (void)
{
  g_autofree double *flat = g_new0 (double, 16 * 16);
  g_autofree char *map16 = NULL;
  g_autofree char *image_path = g_build_filename (tmpdir, "image-nomap.png", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_new (40, 24, 1, 8, &error);
  g_autoptr(JsonParser) parser_alone = json_parser_new ();
  g_autoptr(JsonParser) parser_with = json_parser_new ();
  const char *names[] = { "uniform", "center", "sobel", "laplace", "random" };
  JsonObject *alone, *with, *uniform;

  for (guint i = 0; i < 16 * 16; i++)
    flat[i] = (double) ((i * 7) % 11);
  map16 = write_map ("sixteen.npy", 16, 16, flat);
  for (guint i = 0; i < 40 * 24; i++)
    hs_image_get_data (image)[i] = (guint16) ((i * 53) % 256);
  g_assert_true (hs_image_save_png (image, image_path, &error));
  {
    const char *args[] = { "--image", image_path, "--box", "4,4,20,18", "--baselines", "--json", NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
    alone = parse_object (parser_alone, out);
  }
  {
    const char *args[] = { "--map", map16, "--image", image_path, "--box", "4,4,20,18",
                           "--baselines", "--json", NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
    with = parse_object (parser_with, out);
  }
  /* No map, so no model metrics: only the baselines. */
  g_assert_false (json_object_has_member (alone, "auroc"));
  g_assert_cmpuint (json_object_get_size (alone), ==, 1);
  alone = json_object_get_object_member (alone, "baselines");
  with = json_object_get_object_member (with, "baselines");
  g_assert_cmpuint (json_object_get_size (alone), ==, 5);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autofree char *a = NULL, *b = NULL;
      JsonNode *node;

      node = json_object_get_member (alone, names[i]);
      json_generator_set_root (gen, node);
      a = json_generator_to_data (gen, NULL);
      node = json_object_get_member (with, names[i]);
      json_generator_set_root (gen, node);
      b = json_generator_to_data (gen, NULL);
      g_assert_cmpstr (a, ==, b);
    }
  uniform = json_object_get_object_member (alone, "uniform");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (uniform, "entropy"), log (256.0), 1e-12);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (uniform, "entropy_norm"), 1.0, 1e-12);

  /* Text output says what was scored. */
  {
    const char *args[] = { "--image", image_path, "--box", "4,4,20,18", "--baselines", NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "no map: null baselines on a 16×16 grid"));
    g_assert_nonnull (strstr (out, "baseline random"));
  }
  /* Neither --map nor --baselines, or a --perturbed map with nothing to compare it with: usage errors. */
  {
    const char *args[] = { "--image", image_path, "--box", "4,4,20,18", NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "missing --map"));
  }
  {
    const char *args[] = { "--image", image_path, "--box", "4,4,20,18", "--baselines",
                           "--perturbed", map16, NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "--perturbed needs --map"));
  }
}

/* --thresholds: CheXlocalize's per-class table picks the chexlocalize protocol's threshold by the
 * class given with --query; the numbers equal --threshold with that value, a class without a row
 * equals Otsu and says so. */
static void
test_threshold_table (void)
{
  double v[64];
  g_autofree char *map = NULL;
  g_autofree char *table = g_build_filename (tmpdir, "tuning_results.csv", NULL);
  const char *base[] = { "--map", NULL, "--size", "64x48", "--box", "8,6,30,40", "--protocol",
                         "chexlocalize", "--json" };
  g_autoptr(JsonParser) p_fixed = json_parser_new ();
  g_autoptr(JsonParser) p_table = json_parser_new ();
  g_autoptr(JsonParser) p_otsu = json_parser_new ();
  g_autoptr(JsonParser) p_plain = json_parser_new ();
  JsonObject *fixed, *tabled, *otsu, *plain;

  for (guint i = 0; i < 64; i++)
    v[i] = (double) ((i * 29) % 17) / 16.0 + ((i % 8) < 3 ? 0.5 : 0.0);
  map = write_map ("thr.npy", 8, 8, v);
  base[1] = map;
  g_assert_true (g_file_set_contents (table, "threshold,task\n0.2,Cardiomegaly\n0.7,Lung Lesion\n", -1, NULL));
#define RUN(parser, obj, ...) \
  { \
    const char *args[] = { base[0], base[1], base[2], base[3], base[4], base[5], base[6], base[7], \
                           base[8], __VA_ARGS__, NULL }; \
    g_autofree char *out = NULL, *err = NULL; \
    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0); \
    obj = parse_object (parser, out); \
  }
  RUN (p_fixed, fixed, "--threshold", "0.7");
  RUN (p_table, tabled, "--thresholds", table, "--query", "lung lesion");
  RUN (p_otsu, otsu, "--thresholds", table, "--query", "Edema");
  RUN (p_plain, plain, "--seed", "1");
#undef RUN
  g_assert_cmpstr (json_object_get_string_member (tabled, "threshold_source"), ==, "table");
  g_assert_cmpfloat (json_object_get_double_member (tabled, "threshold"), ==, 0.7);
  g_assert_cmpfloat (json_object_get_double_member (tabled, "otsu_iou"), ==,
                     json_object_get_double_member (fixed, "otsu_iou"));
  g_assert_cmpstr (json_object_get_string_member (otsu, "threshold_source"), ==, "otsu");
  g_assert_true (json_object_get_null_member (otsu, "threshold"));
  g_assert_cmpfloat (json_object_get_double_member (otsu, "otsu_iou"), ==,
                     json_object_get_double_member (plain, "otsu_iou"));
  /* The table's threshold really changes the number here (else the test could not fail). */
  g_assert_cmpfloat (json_object_get_double_member (fixed, "otsu_iou"), !=,
                     json_object_get_double_member (plain, "otsu_iou"));

  /* Text output says which threshold was used. */
  {
    const char *args[] = { "--map", map, "--size", "64x48", "--box", "8,6,30,40", "--protocol",
                           "chexlocalize", "--thresholds", table, "--query", "Edema", NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "threshold: Otsu"));
    g_assert_nonnull (strstr (err, "has no row for class \"Edema\""));
  }
  /* Usage: --thresholds without --query, with another protocol; a broken table names its line. */
  {
    struct { const char *args[12]; int status; const char *message; } cases[] = {
      { { "--map", map, "--size", "64x48", "--protocol", "chexlocalize", "--thresholds", table, NULL }, 2, "go together" },
      { { "--map", map, "--size", "64x48", "--thresholds", table, "--query", "Edema", NULL }, 2, "chexlocalize protocol only" },
      { { "--map", map, "--size", "64x48", "--protocol", "chexlocalize", "--thresholds", map, "--query", "Edema", NULL }, 1, "thr.npy" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autofree char *out = NULL, *err = NULL;

        g_assert_cmpint (hs_test_run_cli ("score", cases[i].args, &out, &err), ==, cases[i].status);
        g_assert_nonnull (strstr (err, cases[i].message));
      }
  }
}

static void
test_perturbed (void)
{
  const double a[] = { 1, 0, 0, 0 }, b[] = { 0, 0, 0, 1 };
  g_autofree char *ma = write_map ("pa.npy", 2, 2, a), *mb = write_map ("pb.npy", 2, 2, b);
  const char *args[] = { "--map", ma, "--perturbed", mb, "--size", "4x4", "--box", "0,0,2,2", "--json", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *obj;

  g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
  obj = parse_object (parser, out);
  g_assert_true (json_object_get_double_member (obj, "sym_kl") > 0);
  g_assert_cmpfloat (json_object_get_double_member (obj, "delta_pointing_hit"), ==, -1.0);
  g_assert_true (json_object_get_null_member (obj, "delta_no_attn"));
}

static void
test_errors (void)
{
  double bad[] = { 0.1, 0.2, 0.3, NAN, 0.5, 0.6 };
  const double good[] = { 1, 2, 3, 4 };
  g_autofree char *bad_map = write_map ("nan.npy", 2, 3, bad);
  g_autofree char *map = write_map ("good.npy", 2, 2, good);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.npy", NULL);
  g_autofree char *garbage = g_build_filename (tmpdir, "garbage.npy", NULL);
  struct {
    const char *args[12];
    int status;
    const char *needle;
  } cases[] = {
    { { "--map", bad_map, "--size", "10x10", "--json", NULL }, 1, "nan.npy" },
    { { "--map", missing, "--size", "10x10", NULL }, 1, "missing.npy" },
    { { "--map", garbage, "--size", "10x10", NULL }, 1, "garbage.npy" },
    { { "--size", "10x10", NULL }, 2, "--map" },
    { { "--map", map, NULL }, 2, "--size" },
    { { "--map", map, "--size", "10by10", NULL }, 2, "--size" },
    { { "--map", map, "--size", "0x10", NULL }, 2, "--size" },
    { { "--map", map, "--size", "10x10", "--box", "1,2,3", NULL }, 2, "--box" },
    { { "--map", map, "--size", "10x10", "--box", "1,2,nan,4", NULL }, 2, "--box" },
    { { "--map", map, "--size", "10x10", "--box", "20,20,30,30", NULL }, 1,
      "--box 20,20,30,30: box [20, 20, 30, 30] reaches outside the 10 × 10 image" },
    { { "--map", map, "--size", "10x10", "--box", "5,5,2,8", NULL }, 1,
      "empty box [5, 5, 2, 8]: needs x1 < x2 and y1 < y2" },
    /* the one box check (hs_box_check), as validate and metrics make it: a
     * box partly outside, of zero area, or missing every pixel centre */
    { { "--map", map, "--size", "10x10", "--box", "5,5,12,8", NULL }, 1,
      "box [5, 5, 12, 8] reaches outside the 10 × 10 image" },
    { { "--map", map, "--size", "10x10", "--box", "5,5,5,8", NULL }, 1, "empty box [5, 5, 5, 8]" },
    { { "--map", map, "--size", "10x10", "--box", "5.6,5,5.9,8", NULL }, 1,
      "box [5.6, 5, 5.9, 8] has no pixel of the 10 × 10 image inside" },
    { { "--map", map, "--size", "10x10", "--protocol", "gradcam", NULL }, 2,
      "unknown protocol \"gradcam\" (default, gloria, chexlocalize)" },
    { { "--map", map, "--size", "10x10", "--upsample", "bicubic", NULL }, 2,
      "unknown upsampling \"bicubic\" (bilinear, nearest)" },
    { { "--map", map, "--size", "10x10", "--protocol", "gloria", "--eval-size", "5", NULL }, 2, "--eval-size" },
    { { "--map", map, "--size", "10x10", "--mask", missing, NULL }, 1, "missing.npy" },
    { { "--map", map, "--size", "10x10", "--bogus", NULL }, 2, "bogus" },
  };

  g_assert_true (g_file_set_contents (garbage, "not a numpy file", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int status = hs_test_run_cli ("score", cases[i].args, &out, &err);

      if (status != cases[i].status || strstr (err, cases[i].needle) == NULL)
        g_error ("case %u: status %d (want %d), stderr: %s", i, status, cases[i].status, err);
      /* one line */
      g_assert_cmpint (strchr (err, '\n') - err, ==, (int) strlen (err) - 1);
      g_assert_true (g_str_has_prefix (err, "heatscope-cli score: "));
    }
  /* the NaN message names the cell */
  {
    g_autofree char *out = NULL, *err = NULL;
    hs_test_run_cli ("score", cases[0].args, &out, &err);
    g_assert_nonnull (strstr (err, "row 1"));
  }
}

static void
test_text_output (void)
{
  const double s[] = { 1, 2, 3, 4 };
  g_autofree char *map = write_map ("text.npy", 2, 2, s);
  const char *args[] = { "--map", map, "--size", "8x8", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "auroc"));
  g_assert_nonnull (strstr (out, "n/a — target is empty"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmpdir = hs_test_make_tmpdir ();
  g_test_add_func ("/hs/cli-score/hand-worked", test_hand_worked);
  g_test_add_func ("/hs/cli-score/empty-target-nulls", test_empty_target_nulls);
  g_test_add_func ("/hs/cli-score/no-attn-range", test_no_attn_range);
  g_test_add_func ("/hs/cli-score/matches-library", test_matches_library);
  g_test_add_func ("/hs/cli-score/baselines", test_baselines);
  g_test_add_func ("/hs/cli-score/baselines-without-map", test_baselines_without_map);
  g_test_add_func ("/hs/cli-score/threshold-table", test_threshold_table);
  g_test_add_func ("/hs/cli-score/perturbed", test_perturbed);
  g_test_add_func ("/hs/cli-score/errors", test_errors);
  g_test_add_func ("/hs/cli-score/text-output", test_text_output);
  return g_test_run ();
}
