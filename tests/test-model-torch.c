/* test-model-torch.c — the C forward pass against PyTorch reference outputs
 *
 * tests/model-reference/cases.json and the .npy files beside it are written
 * by `tools/train-model --export-reference` (PyTorch, tools/model_lib.py):
 * for each (weights, image, prompt) the tokens, the per-token maps and
 * no_attn.  Every map cell must agree to the stated tolerance (1e-4). */
#include <heatscope/heatscope.h>
#include <heatscope/hs-model.h>

#include <json-glib/json-glib.h>
#include <math.h>

#include "hs-test-util.h"

static char *
reference_dir (void)
{
  const char *env = g_getenv ("HS_MODEL_REFERENCE");

  if (env != NULL)
    return g_strdup (env);
  return g_build_filename (hs_test_source_dir (), "tests", "model-reference", NULL);
}

static char *
find_weights (const char *dir, const char *name)
{
  char *path = g_build_filename (dir, name, NULL);

  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return path;
  g_free (path);
  return g_build_filename (hs_test_source_dir (), "data", "models", name, NULL);
}

static void
test_reference (void)
{
  g_autofree char *dir = reference_dir ();
  g_autofree char *cases_path = g_build_filename (dir, "cases.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) hs_model_unref);
  JsonObject *root;
  JsonArray *cases;
  double tolerance, max_diff = 0, max_no_attn_diff = 0;
  guint n_cells = 0;

  if (!g_file_test (cases_path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no reference outputs (run tools/train-model --export-reference)");
      return;
    }
  json_parser_load_from_file (parser, cases_path, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  tolerance = json_object_get_double_member (root, "tolerance");
  g_assert_cmpfloat (tolerance, <=, 1e-4);
  cases = json_object_get_array_member (root, "cases");
  g_assert_cmpuint (json_array_get_length (cases), >, 0);

  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *tc = json_array_get_object_element (cases, c);
      const char *weights = json_object_get_string_member (tc, "weights");
      const char *image_name = json_object_get_string_member (tc, "image");
      const char *prompt = json_object_get_string_member (tc, "prompt");
      JsonArray *tokens = json_object_get_array_member (tc, "tokens");
      JsonNode *no_attn_node = json_object_get_member (tc, "no_attn");
      g_autofree char *image_path = g_build_filename (dir, image_name, NULL);
      g_autofree char *maps_path = g_build_filename (dir, json_object_get_string_member (tc, "maps"), NULL);
      g_autoptr(HsImage) image = NULL;
      g_autoptr(HsNdArray) expected = NULL;
      g_autoptr(HsAttentionMap) map = NULL;
      HsModel *model = g_hash_table_lookup (models, weights);
      guint n_tokens, h, w;

      if (model == NULL)
        {
          g_autofree char *path = find_weights (dir, weights);

          model = hs_model_load (path, &error);
          g_assert_no_error (error);
          g_hash_table_insert (models, g_strdup (weights), model);
        }
      image = hs_image_load (image_path, &error);
      g_assert_no_error (error);
      expected = hs_npy_read (maps_path, &error);
      g_assert_no_error (error);
      map = hs_model_attend_image (model, image, prompt, &error);
      g_assert_no_error (error);

      n_tokens = json_array_get_length (tokens);
      h = hs_attention_map_get_height (map);
      w = hs_attention_map_get_width (map);
      g_assert_cmpuint (expected->ndim, ==, 3);
      g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, n_tokens);
      g_assert_cmpuint (expected->shape[0], ==, n_tokens);
      g_assert_cmpuint (expected->shape[1], ==, h);
      g_assert_cmpuint (expected->shape[2], ==, w);
      for (guint t = 0; t < n_tokens; t++)
        {
          const double *got = hs_attention_map_peek_token (map, t);

          g_assert_cmpstr (hs_attention_map_get_token (map, t), ==,
                           json_array_get_string_element (tokens, t));
          for (guint i = 0; i < h * w; i++)
            {
              double diff = fabs (got[i] - expected->values[(gsize) t * h * w + i]);

              if (diff > max_diff)
                max_diff = diff;
              if (diff > tolerance)
                g_error ("%s on %s, prompt \"%s\": token %u cell %u: C %.8g, torch %.8g", weights,
                         image_name, prompt, t, i, got[i], expected->values[(gsize) t * h * w + i]);
              n_cells++;
            }
        }
      /* The sentence map is the mean of the per-token maps. */
      for (guint i = 0; i < h * w; i++)
        {
          double mean = 0;

          for (guint t = 0; t < n_tokens; t++)
            mean += expected->values[(gsize) t * h * w + i];
          mean /= n_tokens;
          g_assert_cmpfloat (fabs (hs_attention_map_peek_values (map)[i] - mean), <=, tolerance);
        }
      if (JSON_NODE_HOLDS_NULL (no_attn_node))
        g_assert_true (isnan (hs_attention_map_get_no_attn (map)));
      else
        {
          double diff = fabs (hs_attention_map_get_no_attn (map) - json_node_get_double (no_attn_node));

          max_no_attn_diff = MAX (max_no_attn_diff, diff);
          g_assert_cmpfloat (diff, <=, tolerance);
        }
    }
  g_test_message ("%u cases, %u cells: max |C - torch| = %.3g (no_attn %.3g)",
                  json_array_get_length (cases), n_cells, max_diff, max_no_attn_diff);
  g_print ("# max |C - torch| over %u cells = %.3g, no_attn %.3g\n", n_cells, max_diff, max_no_attn_diff);
}

/* The same models through PyTorch now (not the committed outputs): guards
 * against the reference files drifting from tools/model_lib.py. */
static void
test_live_torch (void)
{
  static const char script[] =
    "import sys, json\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "import model_lib as ml\n"
    "m = ml.load_model(sys.argv[2])\n"
    "toks, per, sent, na = m.attend(ml.load_grey(sys.argv[3]), sys.argv[4])\n"
    "print(json.dumps({'tokens': toks, 'sentence': [float(v) for v in sent.ravel()], 'no_attn': na}))\n";
  g_autofree char *dir = reference_dir ();
  g_autofree char *tools = g_build_filename (hs_test_source_dir (), "tools", NULL);
  g_autofree char *weights = g_build_filename (dir, "tiny-noattn.safetensors", NULL);
  g_autofree char *image_path = g_build_filename (dir, "grey16-300x260.png", NULL);
  const char *prompt = "Right LUNG: no nodule; left-sided effusion?";
  const char *args[] = { tools, weights, image_path, prompt, NULL };
  g_autofree char *out = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsModel) model = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  JsonObject *root;
  JsonArray *sentence, *tokens;

  if (!g_file_test (weights, G_FILE_TEST_EXISTS) || !g_file_test (image_path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("reference weights or image missing");
      return;
    }
  out = hs_test_python (script, args);
  if (out == NULL)
    return;
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));

  model = hs_model_load (weights, &error);
  g_assert_no_error (error);
  image = hs_image_load (image_path, &error);
  g_assert_no_error (error);
  map = hs_model_attend_image (model, image, prompt, &error);
  g_assert_no_error (error);

  tokens = json_object_get_array_member (root, "tokens");
  g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, json_array_get_length (tokens));
  for (guint t = 0; t < json_array_get_length (tokens); t++)
    g_assert_cmpstr (hs_attention_map_get_token (map, t), ==, json_array_get_string_element (tokens, t));
  sentence = json_object_get_array_member (root, "sentence");
  g_assert_cmpuint (json_array_get_length (sentence), ==,
                    hs_attention_map_get_width (map) * hs_attention_map_get_height (map));
  for (guint i = 0; i < json_array_get_length (sentence); i++)
    g_assert_cmpfloat (fabs (hs_attention_map_peek_values (map)[i]
                             - json_array_get_double_element (sentence, i)), <=, 1e-4);
  g_assert_cmpfloat (fabs (hs_attention_map_get_no_attn (map)
                           - json_object_get_double_member (root, "no_attn")), <=, 1e-4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/model-torch/reference", test_reference);
  g_test_add_func ("/hs/model-torch/live-torch", test_live_torch);
  return g_test_run ();
}
