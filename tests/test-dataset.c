/* test-dataset.c — the dataset manifest: round trip, lookups, loader errors, paths, subsets */
#include <heatscope/heatscope.h>

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "hs-test-util.h"

/* --- helpers ------------------------------------------------------------- */

/* A manifest with one instance whose body is `instance_json` (plus id and image). */
static char *
manifest_with (const char *instance_json)
{
  return g_strdup_printf ("{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
                          "{\"id\": \"a\", \"image\": \"a.png\"%s%s}]}",
                          instance_json[0] ? ", " : "", instance_json);
}

/* Loads `text` as a manifest and expects an error of `code` whose message
 * contains the manifest file name and every string of `needles`. */
static void
expect_load_error (const char *text, HsDatasetError code, const char * const *needles)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;

  hs_test_write_file (dir, "heatscope.json", text);
  dataset = hs_dataset_load (dir, &error);
  g_assert_null (dataset);
  g_assert_error (error, HS_DATASET_ERROR, (gint) code);
  g_assert_nonnull (strstr (error->message, "heatscope.json"));
  for (guint i = 0; needles != NULL && needles[i] != NULL; i++)
    if (strstr (error->message, needles[i]) == NULL)
      g_error ("error \"%s\" lacks \"%s\"", error->message, needles[i]);
}

static HsInstance *
make_instance (const char *id, guint width, guint height)
{
  g_autofree char *image = g_strdup_printf ("images/%s.png", id);
  HsInstance *instance = hs_instance_new (id, image);

  instance->width = width;
  instance->height = height;
  return instance;
}

static HsRegion *
region_with_box (const char *name, double x1, double y1, double x2, double y2)
{
  HsRegion *region = hs_region_new (name);

  hs_region_add_box (region, x1, y1, x2, y2);
  return region;
}

static HsSentence *
sentence_with_targets (const char *id, const char *text, const char *target1, const char *target2)
{
  HsSentence *sentence = hs_sentence_new (id, text);

  if (target1 != NULL)
    hs_sentence_add_target (sentence, target1);
  if (target2 != NULL)
    hs_sentence_add_target (sentence, target2);
  return sentence;
}

/* A dataset touching every field of the manifest. */
static HsDataset *
make_full_dataset (const char *dir)
{
  HsDataset *dataset = hs_dataset_new (dir, "test set");
  HsInstance *instance;
  HsRegion *region;
  HsSentence *sentence;
  HsMapRef *ref;
  const char *upper[] = { "left upper lung zone", NULL };
  const char *tokens[] = { "there", "is", "a", "nodule", NULL };

  hs_dataset_set_description (dataset, "Every field, with \"quotes\", tabs\tand ünïcode ✓");
  hs_dataset_set_model_description (dataset, "grounded", "text-sensitive");
  hs_dataset_set_model_description (dataset, "blind", NULL);

  instance = make_instance ("p00001", 1024, 800);
  hs_instance_set_metadata (instance, "view", "PA");
  hs_instance_set_metadata (instance, "modality", "CR");
  hs_instance_set_metadata (instance, "licence", "CC0-1.0");
  hs_instance_set_metadata (instance, "source", "phantom seed 7");
  instance->abnormal = TRUE;
  hs_instance_add_finding (instance, hs_label_new ("nodule", "positive", upper));
  hs_instance_add_finding (instance, hs_label_new ("effusion", "negative", NULL));
  hs_instance_add_region (instance, region_with_box ("left lung", 520, 100, 900, 700.25));
  region = region_with_box ("nodule 1", 600.5, 150.125, 650.1, 199.9);
  hs_region_add_box (region, 0.1, 1e-7, 0.3, 0.2);
  hs_region_set_mask (region, "masks/p00001-nodule-1.png");
  hs_instance_add_region (instance, region);
  region = hs_region_new ("mask only");
  hs_region_set_mask (region, "masks/other.png");
  hs_instance_add_region (instance, region);

  sentence = sentence_with_targets ("s0", "There is a nodule in the left upper lung zone.",
                                    "left lung", "nodule 1");
  hs_sentence_add_label (sentence, hs_label_new ("nodule", "positive", upper));
  hs_instance_add_sentence (instance, sentence);
  sentence = hs_sentence_new ("s1", "There is no effusion.");
  hs_sentence_add_label (sentence, hs_label_new ("effusion", "negative", NULL));
  hs_instance_add_sentence (instance, sentence);
  sentence = hs_sentence_new ("c0", "Nodule");
  hs_sentence_set_kind (sentence, "class");
  hs_instance_add_sentence (instance, sentence);

  ref = hs_map_ref_new ("grounded", "s0", "maps/p00001__grounded__s0.npy");
  hs_map_ref_set_tokens (ref, tokens);
  ref->no_attn = 0.12;
  hs_map_ref_set_quantity (ref, "Grad-CAM relevance");
  {
    const HsTagWeight tags[] = { { "nodule", 0.7 }, { "lung \u00fcber", 0.2 }, { "x", 0.1 } };

    hs_map_ref_set_tags (ref, tags, G_N_ELEMENTS (tags));
  }
  hs_instance_add_map (instance, ref);
  ref = hs_map_ref_new ("blind", "s0", "maps/p00001__blind__s0.npy");
  hs_map_ref_set_prompt (ref, "there is a nodule in the right upper lung zone.");
  hs_instance_add_map (instance, ref);
  ref = hs_map_ref_new ("blind", NULL, "maps/free.npy");
  hs_map_ref_set_prompt (ref, "free prompt");
  hs_instance_add_map (instance, ref);
  hs_dataset_add_instance (dataset, instance);

  /* A bare instance: no size, no metadata, nothing else. */
  hs_dataset_add_instance (dataset, hs_instance_new ("p00002", "images/p00002.jpg"));
  return dataset;
}

static gboolean
strv_equal0 (char **a, char **b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strv_equal ((const char * const *) a, (const char * const *) b);
}

static void
assert_labels_equal (GPtrArray *a, GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      HsLabel *x = g_ptr_array_index (a, i), *y = g_ptr_array_index (b, i);
      g_assert_cmpstr (x->condition, ==, y->condition);
      g_assert_cmpstr (x->context, ==, y->context);
      g_assert_true (strv_equal0 (x->locations, y->locations));
    }
}

static void
assert_instances_equal (HsInstance *a, HsInstance *b)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpstr (a->id, ==, b->id);
  g_assert_cmpstr (a->image, ==, b->image);
  g_assert_cmpuint (a->width, ==, b->width);
  g_assert_cmpuint (a->height, ==, b->height);
  g_assert_cmpint (a->abnormal, ==, b->abnormal);
  g_assert_cmpuint (g_hash_table_size (a->metadata), ==, g_hash_table_size (b->metadata));
  g_hash_table_iter_init (&iter, a->metadata);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_assert_cmpstr (value, ==, g_hash_table_lookup (b->metadata, key));
  assert_labels_equal (a->findings, b->findings);

  g_assert_cmpuint (a->regions->len, ==, b->regions->len);
  for (guint i = 0; i < a->regions->len; i++)
    {
      HsRegion *x = g_ptr_array_index (a->regions, i), *y = g_ptr_array_index (b->regions, i);
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpstr (x->mask, ==, y->mask);
      g_assert_cmpuint (x->boxes->len, ==, y->boxes->len);
      /* Exact: the writer prints the shortest text that reads back bit-identical. */
      g_assert_cmpmem (x->boxes->data, x->boxes->len * sizeof (HsBox),
                       y->boxes->data, y->boxes->len * sizeof (HsBox));
    }
  g_assert_cmpuint (a->sentences->len, ==, b->sentences->len);
  for (guint i = 0; i < a->sentences->len; i++)
    {
      HsSentence *x = g_ptr_array_index (a->sentences, i), *y = g_ptr_array_index (b->sentences, i);
      g_assert_cmpstr (x->id, ==, y->id);
      g_assert_cmpstr (x->text, ==, y->text);
      g_assert_cmpstr (x->kind, ==, y->kind);
      g_assert_true (strv_equal0 (x->targets, y->targets));
      assert_labels_equal (x->labels, y->labels);
    }
  g_assert_cmpuint (a->maps->len, ==, b->maps->len);
  for (guint i = 0; i < a->maps->len; i++)
    {
      HsMapRef *x = g_ptr_array_index (a->maps, i), *y = g_ptr_array_index (b->maps, i);
      g_assert_cmpstr (x->model, ==, y->model);
      g_assert_cmpstr (x->query, ==, y->query);
      g_assert_cmpstr (x->prompt, ==, y->prompt);
      g_assert_cmpstr (x->quantity, ==, y->quantity);
      g_assert_cmpstr (x->file, ==, y->file);
      g_assert_true (strv_equal0 (x->tokens, y->tokens));
      g_assert_true ((isnan (x->no_attn) && isnan (y->no_attn)) || x->no_attn == y->no_attn);
      g_assert_cmpuint (x->n_tags, ==, y->n_tags);
      for (guint t = 0; t < x->n_tags; t++)
        {
          g_assert_cmpstr (x->tags[t].tag, ==, y->tags[t].tag);
          g_assert_cmpfloat (x->tags[t].weight, ==, y->tags[t].weight);
        }
    }
}

static void
assert_datasets_equal (HsDataset *a, HsDataset *b)
{
  g_autofree char *json_a = NULL, *json_b = NULL;

  g_assert_cmpstr (hs_dataset_get_name (a), ==, hs_dataset_get_name (b));
  g_assert_cmpstr (hs_dataset_get_description (a), ==, hs_dataset_get_description (b));
  g_assert_cmpstr (hs_dataset_get_model_description (a, "grounded"), ==,
                   hs_dataset_get_model_description (b, "grounded"));
  g_assert_cmpuint (hs_dataset_get_n_instances (a), ==, hs_dataset_get_n_instances (b));
  for (guint i = 0; i < hs_dataset_get_n_instances (a); i++)
    assert_instances_equal (hs_dataset_get_instance (a, i), hs_dataset_get_instance (b, i));
  json_a = hs_dataset_to_json (a, NULL);
  json_b = hs_dataset_to_json (b, NULL);
  g_assert_cmpstr (json_a, ==, json_b);
}

/* --- round trip ---------------------------------------------------------- */

static void
test_round_trip (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *manifest = g_build_filename (dir, "heatscope.json", NULL);
  g_autofree char *first = NULL, *second = NULL;
  g_autoptr(HsDataset) dataset = make_full_dataset (dir);
  g_autoptr(HsDataset) loaded = NULL;
  g_autoptr(HsDataset) from_file = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  g_file_get_contents (manifest, &first, NULL, &error);
  g_assert_no_error (error);

  loaded = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  assert_datasets_equal (dataset, loaded);

  /* Saving what was loaded gives the same bytes. */
  g_assert_true (hs_dataset_save (loaded, &error));
  g_assert_no_error (error);
  g_file_get_contents (manifest, &second, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first, ==, second);

  /* The manifest file itself is accepted as the path, too. */
  from_file = hs_dataset_load (manifest, &error);
  g_assert_no_error (error);
  assert_datasets_equal (dataset, from_file);
}

/* Python's json module reads the output back to the same values, and the
 * JSON Schema in data/ accepts it (keeps schema and writer in step). */
static void
test_python_reads_output (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *manifest = g_build_filename (dir, "heatscope.json", NULL);
  g_autofree char *schema = g_build_filename (hs_test_source_dir (), "data",
                                              "heatscope-dataset.schema.json", NULL);
  g_autoptr(HsDataset) dataset = make_full_dataset (dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  const char *args[] = { manifest, schema, NULL };
  const char *script =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "i = d['instances'][0]\n"
    "assert d['format'] == 'heatscope-dataset' and d['version'] == 1\n"
    "assert list(d['models']) == ['blind', 'grounded'], list(d['models'])\n"
    "assert d['description'].endswith('ünïcode ✓') and '\\t' in d['description']\n"
    "assert i['regions']['nodule 1']['boxes'][0] == [600.5, 150.125, 650.1, 199.9]\n"
    "assert i['regions']['nodule 1']['boxes'][1][1] == 1e-7\n"
    "assert i['regions']['left lung']['boxes'][0] == [520, 100, 900, 700.25]\n"
    "assert i['maps'][0]['no_attn'] == 0.12\n"
    "assert i['maps'][0]['quantity'] == 'Grad-CAM relevance' and 'quantity' not in i['maps'][1]\n"
    "assert i['maps'][0]['tokens'] == ['there', 'is', 'a', 'nodule']\n"
    "assert i['maps'][0]['tag_attention'] == [{'tag': 'nodule', 'weight': 0.7}, "
    "{'tag': 'lung \u00fcber', 'weight': 0.2}, {'tag': 'x', 'weight': 0.1}]\n"
    "assert 'tag_attention' not in i['maps'][1]\n"
    "assert list(i['metadata']) == sorted(i['metadata'])\n"
    "assert i['width'] == 1024 and i['height'] == 800\n"
    "try:\n"
    "    import jsonschema\n"
    "except ImportError:\n"
    "    print('no-jsonschema'); sys.exit(0)\n"
    "s = json.load(open(sys.argv[2], encoding='utf-8'))\n"
    "jsonschema.Draft202012Validator.check_schema(s)\n"
    "jsonschema.Draft202012Validator(s).validate(d)\n"
    "bad = json.loads(json.dumps(d)); bad['instances'][0]['regions']['left lung']['boxes'] = [[1, 2, 3]]\n"
    "errs = list(jsonschema.Draft202012Validator(s).iter_errors(bad))\n"
    "assert errs, 'schema accepts a 3-number box'\n"
    "bad = json.loads(json.dumps(d)); bad['instances'][0]['image'] = '../x.png'\n"
    "assert list(jsonschema.Draft202012Validator(s).iter_errors(bad)), 'schema accepts ..'\n"
    "bad = json.loads(json.dumps(d)); bad['instances'][0]['colour'] = 1\n"
    "assert list(jsonschema.Draft202012Validator(s).iter_errors(bad)), 'schema accepts unknown'\n"
    "print('ok')\n";

  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  out = hs_test_python (script, args);
  if (out == NULL)
    return;
  if (strstr (out, "no-jsonschema") != NULL)
    g_test_message ("python3-jsonschema is absent: the schema check did not run");
  else
    g_assert_cmpstr (out, ==, "ok\n");
}

static void
test_defaults (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance;
  HsSentence *sentence;
  HsMapRef *ref;

  hs_test_write_file (dir, "heatscope.json",
              "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
              " {\"id\": \"a\", \"image\": \"a.png\","
              "  \"findings\": [{\"condition\": \"mass\"}],"
              "  \"sentences\": [{\"id\": \"s\", \"text\": \"x\"}],"
              "  \"maps\": [{\"model\": \"m\", \"query\": \"s\", \"file\": \"m.npy\"}],"
              "  \"x-extension\": {\"ignored\": [1, 2]}},"
              " {\"id\": \"b\", \"image\": \"dir/b.png\", \"abnormal\": false,"
              "  \"findings\": [{\"condition\": \"mass\", \"context\": \"positive\"}]}]}");
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 2);
  g_assert_null (hs_dataset_get_name (dataset));

  instance = hs_dataset_get_instance (dataset, 0);
  g_assert_true (instance->abnormal);                  /* derived from a positive finding */
  g_assert_cmpstr (((HsLabel *) instance->findings->pdata[0])->context, ==, "positive");
  g_assert_cmpuint (g_strv_length (((HsLabel *) instance->findings->pdata[0])->locations), ==, 0);
  sentence = hs_instance_find_sentence (instance, "s");
  g_assert_cmpstr (sentence->kind, ==, "report");
  g_assert_nonnull (sentence->targets);
  g_assert_null (sentence->targets[0]);
  ref = hs_instance_find_map (instance, "m", "s");
  g_assert_nonnull (ref);
  g_assert_true (isnan (ref->no_attn));
  g_assert_null (ref->tokens);
  g_assert_null (ref->prompt);
  g_assert_null (ref->quantity);
  g_assert_cmpuint (instance->width, ==, 0);

  /* An explicit "abnormal" wins over the findings. */
  g_assert_false (hs_dataset_get_instance (dataset, 1)->abnormal);
}

/* --- lookups ------------------------------------------------------------- */

static void
test_lookups (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = make_full_dataset (dir);
  g_auto(GStrv) models = NULL;
  HsInstance *instance;

  g_assert_cmpstr (hs_dataset_get_name (dataset), ==, "test set");
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 2);
  g_assert_null (hs_dataset_get_instance (dataset, 2));
  instance = hs_dataset_find_instance (dataset, "p00001");
  g_assert_true (instance == hs_dataset_get_instance (dataset, 0));
  g_assert_cmpint (hs_dataset_get_instance_index (dataset, instance), ==, 0);
  g_assert_cmpint (hs_dataset_get_instance_index (dataset, hs_dataset_get_instance (dataset, 1)), ==, 1);
  g_assert_null (hs_dataset_find_instance (dataset, "nope"));
  g_assert_null (hs_dataset_find_instance (dataset, NULL));

  g_assert_cmpstr (hs_instance_find_sentence (instance, "s1")->text, ==, "There is no effusion.");
  g_assert_null (hs_instance_find_sentence (instance, "s9"));
  g_assert_cmpuint (hs_instance_find_region (instance, "nodule 1")->boxes->len, ==, 2);
  g_assert_null (hs_instance_find_region (instance, "right lung"));
  g_assert_cmpstr (hs_instance_find_map (instance, "blind", "s0")->file, ==, "maps/p00001__blind__s0.npy");
  g_assert_null (hs_instance_find_map (instance, "grounded", "s1"));
  g_assert_cmpstr (hs_instance_find_map (instance, "blind", NULL)->file, ==, "maps/free.npy");
  g_assert_cmpstr (hs_instance_find_map_by_prompt (instance, "blind", "free prompt")->file, ==,
                   "maps/free.npy");
  g_assert_null (hs_instance_find_map_by_prompt (instance, "grounded", "free prompt"));
  g_assert_cmpstr (hs_instance_get_metadata (instance, "view"), ==, "PA");

  models = hs_dataset_list_models (dataset);
  g_assert_cmpuint (g_strv_length (models), ==, 2);
  g_assert_cmpstr (models[0], ==, "blind");
  g_assert_cmpstr (models[1], ==, "grounded");

  g_assert_cmpstr (hs_subset_to_string (HS_SUBSET_ONE_LUNG), ==, "one_lung");
  g_assert_cmpint (hs_subset_from_string ("mdrb"), ==, HS_SUBSET_MDRB);
  g_assert_cmpint (hs_subset_from_string ("abnormal"), ==, HS_SUBSET_ABNORMAL);
  g_assert_cmpint (hs_subset_from_string ("lung"), ==, 0);
}

/* --- loader errors ------------------------------------------------------- */

static void
test_error_missing (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *nowhere = g_build_filename (dir, "nowhere", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;

  dataset = hs_dataset_load (nowhere, &error);
  g_assert_null (dataset);
  g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "nowhere"));
  g_clear_error (&error);

  /* A folder without a manifest. */
  dataset = hs_dataset_load (dir, &error);
  g_assert_null (dataset);
  g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "heatscope.json"));
}

static void
test_error_syntax (void)
{
  const char *truncated[] = { "not valid JSON", NULL };
  const char *utf8[] = { "invalid UTF-8", "line 2", NULL };

  expect_load_error ("{\"format\": \"heatscope-dataset\", \"version\": 1, \"inst",
                     HS_DATASET_ERROR_PARSE, truncated);
  expect_load_error ("", HS_DATASET_ERROR_PARSE, NULL);
  expect_load_error ("{\"format\": \"heatscope-dataset\", \"version\": 1,\n"
                     " \"name\": \"\xff\xfe\", \"instances\": []}",
                     HS_DATASET_ERROR_PARSE, utf8);
  expect_load_error ("{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [NaN]}",
                     HS_DATASET_ERROR_PARSE, truncated);
}

/* The manifest reader is strict RFC 8259 JSON. */
static void
test_error_json_grammar (void)
{
  static const struct { const char *text; const char *needle; } cases[] = {
    { "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [],}", "expected a member name" },
    { "{\"format\": \"heatscope-dataset\", \"version\": 01, \"instances\": []}", "expected ',' or '}'" },
    { "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": []} x", "unexpected text after" },
    { "// comment\n{}", "expected a value" },
    { "{\"name\": \"a\\u0000b\"}", "NUL" },
    { "{\"name\": \"\\ud800\"}", "surrogate" },
    { "{\"name\": \"\\x41\"}", "unknown escape" },
    { "{\"name\": \"tab\there\"}", "control character" },
    { "{\"name\": \"open", "unterminated string" },
    { "{\"a\": 1, \"b\": 2, \"a\": 3}", "duplicate member \"a\"" },
    { "{\"a\": 1.}", "digit must follow the decimal point" },
    { "{\"a\": 1e}", "digit must follow the exponent" },
    { "{\"a\": tru}", "expected a value" },
    { "{\"a\": NaN}", "expected a value" },
    { "{\"a\" 1}", "expected ':'" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *needles[] = { "not valid JSON: line ", cases[i].needle, NULL };

      g_test_message ("case %u: %s", i, cases[i].text);
      expect_load_error (cases[i].text, HS_DATASET_ERROR_PARSE, needles);
    }
}

static void
test_json_values (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsRegion *region;
  const HsBox *box;

  hs_test_write_file (dir, "heatscope.json",
              "\r\n\t {\"format\": \"heatscope-dataset\", \"version\": 1,"
              " \"name\": \"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/ \u00e9\","
              " \"instances\": [{\"id\": \"a\", \"image\": \"a.png\", \"width\": 5, \"height\": 7,"
              "  \"regions\": {\"r\": {\"boxes\": [[-0, 1E2, 2.5e+1, 12345678901234567]]}},"
              "  \"metadata\": {}, \"findings\": [], \"sentences\": [], \"maps\": []}]}  \n");
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (hs_dataset_get_name (dataset), ==, "\xc3\xa9\xf0\x9f\x98\x80\n\t\"\\/ \xc3\xa9");
  region = hs_instance_find_region (hs_dataset_get_instance (dataset, 0), "r");
  box = &g_array_index (region->boxes, HsBox, 0);
  g_assert_cmpfloat (box->x1, ==, 0);
  g_assert_cmpfloat (box->y1, ==, 100);
  g_assert_cmpfloat (box->x2, ==, 25);
  g_assert_cmpfloat (box->y2, ==, 12345678901234567.0);
  g_assert_cmpuint (hs_dataset_get_instance (dataset, 0)->height, ==, 7);
}

static void
test_error_deep_nesting (void)
{
  GString *text = g_string_new ("{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [], \"x-deep\": ");
  const char *needles[] = { "deeper than 64", NULL };
  const char *ok_needles[] = { NULL };
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;

  /* 63 levels inside the top object: 64 in all, accepted. */
  for (guint i = 0; i < 63; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < 63; i++)
    g_string_append_c (text, ']');
  g_string_append_c (text, '}');
  hs_test_write_file (dir, "heatscope.json", text->str);
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (dataset);
  (void) ok_needles;

  /* A bracket inside a string does not count; 100 000 real ones do. */
  g_string_assign (text, "{\"format\": \"heatscope-dataset\", \"version\": 1, \"name\": \"[[[\\\"[[\", "
                         "\"instances\": [], \"x-deep\": ");
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (text, ']');
  g_string_append_c (text, '}');
  expect_load_error (text->str, HS_DATASET_ERROR_PARSE, needles);
  g_string_free (text, TRUE);
}

static void
test_error_too_large (void)
{
  HsLimits limits = *hs_limits_get ();
  const char *needles[] = { "over the limit of 100", NULL };
  g_autofree char *text = manifest_with ("\"metadata\": {\"source\": \"a long enough string to pass 100 bytes\"}");

  limits.max_manifest_bytes = 100;
  hs_limits_set (&limits);
  expect_load_error (text, HS_DATASET_ERROR_TOO_LARGE, needles);
  hs_limits_reset ();
}

typedef struct {
  const char     *instance_json;
  HsDatasetError  code;
  const char     *path;
  const char     *message;
} SchemaCase;

static void
test_error_schema (void)
{
  static const SchemaCase cases[] = {
    { "\"width\": 10", HS_DATASET_ERROR_INVALID, "$.instances[0]", "\"width\" and \"height\" go together" },
    { "\"width\": 10.5, \"height\": 3", HS_DATASET_ERROR_INVALID, "$.instances[0].width", "expected an integer" },
    { "\"metadata\": {\"view\": 3}", HS_DATASET_ERROR_INVALID, "$.instances[0].metadata.view", "expected a string, found a number" },
    { "\"abnormal\": \"yes\"", HS_DATASET_ERROR_INVALID, "$.instances[0].abnormal", "expected a boolean" },
    { "\"regions\": {\"left lung\": {\"boxes\": [[1, 2, 3]]}}", HS_DATASET_ERROR_INVALID,
      "$.instances[0].regions[\"left lung\"].boxes[0]", "4 numbers" },
    { "\"regions\": {\"left lung\": {\"boxes\": [[1, 2, 1e999, 4]]}}", HS_DATASET_ERROR_INVALID,
      "$.instances[0].regions[\"left lung\"].boxes[0][2]", "not finite" },
    { "\"regions\": {\"left lung\": {\"boxes\": [[1, 2, \"3\", 4]]}}", HS_DATASET_ERROR_INVALID,
      "$.instances[0].regions[\"left lung\"].boxes[0][2]", "expected a number, found a string" },
    { "\"regions\": {\"lung\": {}}", HS_DATASET_ERROR_INVALID, "$.instances[0].regions.lung",
      "at least one box or a mask" },
    { "\"regions\": {\"lung\": {\"mask\": \"/etc/passwd\"}}", HS_DATASET_ERROR_PATH,
      "$.instances[0].regions.lung.mask", "absolute" },
    { "\"regions\": {\"lung\": {\"mask\": \"masks/../../x.png\"}}", HS_DATASET_ERROR_PATH,
      "$.instances[0].regions.lung.mask", "'..'" },
    { "\"regions\": {\"lung\": {\"boxes\": [[0, 0, 1, 1]]}}, \"sentences\": [{\"id\": \"s\", \"text\": \"t\", "
      "\"targets\": [\"lung\", \"heart\"]}]", HS_DATASET_ERROR_INVALID,
      "$.instances[0].sentences[0].targets[1]", "unknown region \"heart\"" },
    { "\"sentences\": [{\"id\": \"s\", \"text\": \"t\"}, {\"id\": \"s\", \"text\": \"u\"}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].sentences[1].id", "duplicate sentence id" },
    { "\"sentences\": [{\"id\": \"s\", \"text\": \"t\", \"kind\": \"story\"}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].sentences[0].kind", "not one of report" },
    { "\"sentences\": [{\"id\": \"s\"}]", HS_DATASET_ERROR_INVALID, "$.instances[0].sentences[0]",
      "missing required member \"text\"" },
    { "\"sentences\": [{\"id\": \"s\", \"text\": \"t\", \"labels\": [{\"condition\": \"x\", \"context\": \"maybe\"}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].sentences[0].labels[0].context", "not one of positive" },
    { "\"maps\": [{\"model\": \"m\", \"query\": \"s9\", \"file\": \"m.npy\"}]", HS_DATASET_ERROR_INVALID,
      "$.instances[0].maps[0].query", "unknown sentence \"s9\"" },
    { "\"maps\": [{\"model\": \"m\", \"file\": \"m.npy\"}]", HS_DATASET_ERROR_INVALID,
      "$.instances[0].maps[0]", "needs a \"query\"" },
    { "\"sentences\": [{\"id\": \"s\", \"text\": \"t\"}], \"maps\": [{\"model\": \"m\", \"query\": \"s\", "
      "\"file\": \"a.npy\"}, {\"model\": \"m\", \"query\": \"s\", \"file\": \"b.npy\"}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[1]", "a second map" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"no_attn\": \"x\"}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].no_attn", "expected a number" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tokens\": [\"a\", 1]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tokens[1]", "expected a string" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"quantity\": \"\"}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].quantity", "must not be empty" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"quantity\": "
      "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].quantity", "more than 80 characters" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": {}}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention", "expected an array of {tag, weight} objects" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": []}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention", "0 tags (a tag attention has 1 to 256 tags)" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"tag\": \"a\", \"weight\": 0.5}, {\"tag\": \"b\", \"weight\": 0.4}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention", "the tag weights sum to 0.9, not 1" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"tag\": \"a\", \"weight\": 1.2}, {\"tag\": \"b\", \"weight\": -0.2}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[1].weight", "must not be negative" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"tag\": \"a\", \"weight\": 1e999}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[0].weight", "not finite" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"tag\": \"a\", \"weight\": \"1\"}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[0].weight", "expected a number, found a string" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"tag\": \"\", \"weight\": 1}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[0].tag", "must not be empty" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"tag\": \"a\\nb\", \"weight\": 1}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[0].tag", "one line of at most 80" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"tag\": \"a\", \"weight\": 0.5}, {\"tag\": \"a\", \"weight\": 0.5}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[1].tag", "tag \"a\" is listed twice" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"tag\": \"a\"}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[0]", "missing required member \"weight\"" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"tag\": \"a\", \"weight\": 1, \"w\": 2}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[0].w", "unknown member \"w\"" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [{\"weight\": 1}]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[0]", "missing required member \"tag\"" },
    { "\"maps\": [{\"model\": \"m\", \"prompt\": \"p\", \"file\": \"m.npy\", \"tag_attention\": [1]}]",
      HS_DATASET_ERROR_INVALID, "$.instances[0].maps[0].tag_attention[0]", "expected a {tag, weight} object" },
    { "\"colour\": \"red\"", HS_DATASET_ERROR_INVALID, "$.instances[0].colour", "unknown member \"colour\"" },
    { "\"findings\": {}", HS_DATASET_ERROR_INVALID, "$.instances[0].findings", "expected an array of labels, found an object" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = manifest_with (cases[i].instance_json);
      g_autofree char *expected = g_strdup_printf ("heatscope.json: %s: ", cases[i].path);
      const char *needles[] = { expected, cases[i].message, NULL };

      g_test_message ("case %u: %s", i, cases[i].instance_json);
      expect_load_error (text, cases[i].code, needles);
    }
}

static void
test_error_top_level (void)
{
  const char *format[] = { "$.format: format \"other\"", NULL };
  const char *version[] = { "$.version: version 2 was written by a newer", NULL };
  const char *instances[] = { "$: missing required member \"instances\"", NULL };
  const char *dup[] = { "$.instances[1].id: duplicate instance id \"a\"", NULL };
  const char *root[] = { "$: expected a heatscope-dataset object, found an array", NULL };
  const char *image[] = { "$.instances[0].image: expected a string, found a number", NULL };

  expect_load_error ("{\"format\": \"other\", \"version\": 1, \"instances\": []}",
                     HS_DATASET_ERROR_INVALID, format);
  expect_load_error ("{\"format\": \"heatscope-dataset\", \"version\": 2, \"instances\": []}",
                     HS_DATASET_ERROR_INVALID, version);
  expect_load_error ("{\"format\": \"heatscope-dataset\", \"version\": 1}",
                     HS_DATASET_ERROR_INVALID, instances);
  expect_load_error ("{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
                     "{\"id\": \"a\", \"image\": \"a.png\"}, {\"id\": \"a\", \"image\": \"b.png\"}]}",
                     HS_DATASET_ERROR_INVALID, dup);
  expect_load_error ("[1, 2]", HS_DATASET_ERROR_INVALID, root);
  expect_load_error ("{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
                     "{\"id\": \"a\", \"image\": 5}]}", HS_DATASET_ERROR_INVALID, image);
}

/* --- paths --------------------------------------------------------------- */

static void
test_resolve_path (void)
{
  g_autofree char *top = hs_test_make_tmpdir ();
  g_autofree char *dir = g_build_filename (top, "set", NULL);
  g_autofree char *outside = g_build_filename (top, "outside", NULL);
  g_autofree char *secret = g_build_filename (outside, "secret.png", NULL);
  g_autofree char *link_out = g_build_filename (dir, "escape.png", NULL);
  g_autofree char *link_dir = g_build_filename (dir, "linked", NULL);
  g_autofree char *link_in = g_build_filename (dir, "images", "alias.png", NULL);
  g_autofree char *real_in = g_build_filename (dir, "images", "a.png", NULL);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  char *resolved;

  g_assert_cmpint (g_mkdir_with_parents (outside, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (real_in, 0755), ==, 0);
  g_assert_cmpint (g_rmdir (real_in), ==, 0);
  hs_test_write_file (outside, "secret.png", "x");
  hs_test_write_file (dir, "images/a.png", "x");
  g_assert_cmpint (symlink (secret, link_out), ==, 0);
  g_assert_cmpint (symlink (outside, link_dir), ==, 0);
  g_assert_cmpint (symlink ("a.png", link_in), ==, 0);
  dataset = hs_dataset_new (dir, "paths");

  resolved = hs_dataset_resolve_path (dataset, "images/a.png", &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (resolved, "/set/images/a.png"));
  g_free (resolved);

  /* A symlink that stays inside is fine and resolves to its target. */
  resolved = hs_dataset_resolve_path (dataset, "images/alias.png", &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (resolved, "/set/images/a.png"));
  g_free (resolved);

  /* A file that does not exist yet, in an existing or a missing folder. */
  resolved = hs_dataset_resolve_path (dataset, "maps/new.npy", &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (resolved, "/set/maps/new.npy"));
  g_free (resolved);

  {
    const char *refused[] = { "/etc/passwd", "../outside/secret.png", "images/../../outside/secret.png",
                              "", "images//a.png", "./images/a.png", "images/", "escape.png",
                              "linked/secret.png", "linked/not-there.png", "a\\b.png" };

    for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
      {
        resolved = hs_dataset_resolve_path (dataset, refused[i], &error);
        if (resolved != NULL)
          g_error ("\"%s\" was accepted as %s", refused[i], resolved);
        g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH);
        g_assert_nonnull (strstr (error->message, "heatscope.json"));
        g_clear_error (&error);
      }
  }

  /* Loading goes through the same check. */
  {
    HsInstance *instance = hs_instance_new ("x", "escape.png");
    g_autoptr(HsImage) image = NULL;

    hs_dataset_add_instance (dataset, instance);
    image = hs_dataset_load_image (dataset, instance, &error);
    g_assert_null (image);
    g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH);
  }
}

/* --- subsets ------------------------------------------------------------- */

static guint
subsets_of (HsDataset *dataset, HsInstance *instance, const char *sentence_id)
{
  return hs_dataset_get_subsets (dataset, instance, hs_instance_find_sentence (instance, sentence_id));
}

static void
test_subset_abnormal (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "subsets");
  HsInstance *normal = make_instance ("normal", 100, 100);
  HsInstance *sick = make_instance ("sick", 100, 100);
  HsSentence *sentence;

  for (guint k = 0; k < 2; k++)
    {
      HsInstance *instance = k == 0 ? normal : sick;

      hs_instance_add_region (instance, region_with_box ("r", 10, 10, 20, 20));
      /* Positive label: abnormal whatever the instance says. */
      sentence = sentence_with_targets ("pos", "There is a mass.", "r", NULL);
      hs_sentence_add_label (sentence, hs_label_new ("mass", "positive", NULL));
      hs_instance_add_sentence (instance, sentence);
      /* Only a negative label: never abnormal. */
      sentence = sentence_with_targets ("neg", "There is no mass.", "r", NULL);
      hs_sentence_add_label (sentence, hs_label_new ("mass", "negative", NULL));
      hs_instance_add_sentence (instance, sentence);
      /* Mixed labels: one positive suffices. */
      sentence = sentence_with_targets ("mix", "Mass, no effusion.", "r", NULL);
      hs_sentence_add_label (sentence, hs_label_new ("effusion", "negative", NULL));
      hs_sentence_add_label (sentence, hs_label_new ("mass", "positive", NULL));
      hs_instance_add_sentence (instance, sentence);
      /* No labels: follows the instance when the sentence has targets. */
      hs_instance_add_sentence (instance, sentence_with_targets ("bare", "Look here.", "r", NULL));
      hs_instance_add_sentence (instance, hs_sentence_new ("untargeted", "Nothing to see."));
      hs_dataset_add_instance (dataset, instance);
    }
  sick->abnormal = TRUE;

  for (guint k = 0; k < 2; k++)
    {
      HsInstance *instance = k == 0 ? normal : sick;

      g_assert_true (subsets_of (dataset, instance, "pos") & HS_SUBSET_ABNORMAL);
      g_assert_false (subsets_of (dataset, instance, "neg") & HS_SUBSET_ABNORMAL);
      g_assert_true (subsets_of (dataset, instance, "mix") & HS_SUBSET_ABNORMAL);
      g_assert_false (subsets_of (dataset, instance, "untargeted") & HS_SUBSET_ABNORMAL);
    }
  g_assert_false (subsets_of (dataset, normal, "bare") & HS_SUBSET_ABNORMAL);
  g_assert_true (subsets_of (dataset, sick, "bare") & HS_SUBSET_ABNORMAL);
}

static void
test_subset_one_lung (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "subsets");
  HsInstance *instance = make_instance ("a", 200, 100);   /* midline x = 100, 5 % = 10 px */
  HsRegion *two;

  hs_instance_add_region (instance, region_with_box ("image left", 10, 10, 60, 90));
  hs_instance_add_region (instance, region_with_box ("image right", 130, 10, 190, 90));
  /* Centre 60 < 100, right edge 110: crosses by exactly 10 px = 5 %, allowed. */
  hs_instance_add_region (instance, region_with_box ("slight cross", 10, 10, 110, 20));
  /* Centre 65.5 < 100 but crosses by 21 px > 10 px. */
  hs_instance_add_region (instance, region_with_box ("big cross", 10, 10, 121, 20));
  /* Centre exactly on the midline: on neither side. */
  hs_instance_add_region (instance, region_with_box ("centred", 95, 10, 105, 20));
  two = region_with_box ("two boxes right", 120, 10, 140, 20);
  hs_region_add_box (two, 150, 50, 180, 60);
  hs_instance_add_region (instance, two);

  hs_instance_add_sentence (instance, sentence_with_targets ("left", "t", "image left", NULL));
  hs_instance_add_sentence (instance, sentence_with_targets ("right", "t", "image right", NULL));
  hs_instance_add_sentence (instance, sentence_with_targets ("both", "t", "image left", "image right"));
  hs_instance_add_sentence (instance, sentence_with_targets ("slight", "t", "slight cross", NULL));
  hs_instance_add_sentence (instance, sentence_with_targets ("big", "t", "big cross", NULL));
  hs_instance_add_sentence (instance, sentence_with_targets ("centred", "t", "centred", NULL));
  hs_instance_add_sentence (instance, sentence_with_targets ("two", "t", "two boxes right", "image right"));
  hs_instance_add_sentence (instance, hs_sentence_new ("none", "t"));
  hs_dataset_add_instance (dataset, instance);

  g_assert_true (subsets_of (dataset, instance, "left") & HS_SUBSET_ONE_LUNG);
  g_assert_true (subsets_of (dataset, instance, "right") & HS_SUBSET_ONE_LUNG);
  g_assert_false (subsets_of (dataset, instance, "both") & HS_SUBSET_ONE_LUNG);
  g_assert_true (subsets_of (dataset, instance, "slight") & HS_SUBSET_ONE_LUNG);
  g_assert_false (subsets_of (dataset, instance, "big") & HS_SUBSET_ONE_LUNG);
  g_assert_false (subsets_of (dataset, instance, "centred") & HS_SUBSET_ONE_LUNG);
  g_assert_true (subsets_of (dataset, instance, "two") & HS_SUBSET_ONE_LUNG);
  g_assert_false (subsets_of (dataset, instance, "none") & HS_SUBSET_ONE_LUNG);
}

/* One-lung with a mask: its non-zero pixels decide, after scaling a mask of
 * another size to the image; and the image size comes from the PNG header
 * when the manifest does not state it. */
static void
test_subset_one_lung_mask (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *masks = g_build_filename (dir, "masks", NULL);
  g_autofree char *mask_path = g_build_filename (dir, "masks", "m.png", NULL);
  g_autofree char *image_path = g_build_filename (dir, "image.png", NULL);
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "subsets");
  g_autoptr(HsImage) mask = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance = hs_instance_new ("a", "image.png");
  HsRegion *region;
  HsBox extent;
  guint16 *data;
  guint width = 0, height = 0;

  g_assert_cmpint (g_mkdir_with_parents (masks, 0755), ==, 0);
  image = hs_image_new (200, 100, 1, 8, &error);
  g_assert_no_error (error);
  g_assert_true (hs_image_save_png (image, image_path, &error));
  g_assert_no_error (error);

  /* A 20 × 10 mask (scale 10): pixels x 12..14, y 3..4 → image x 120..150, y 30..50. */
  mask = hs_image_new (20, 10, 1, 8, &error);
  g_assert_no_error (error);
  data = hs_image_get_data (mask);
  for (guint y = 3; y <= 4; y++)
    for (guint x = 12; x <= 14; x++)
      data[y * 20 + x] = 255;
  g_assert_true (hs_image_save_png (mask, mask_path, &error));
  g_assert_no_error (error);

  region = hs_region_new ("lesion");
  hs_region_set_mask (region, "masks/m.png");
  hs_instance_add_region (instance, region);
  hs_instance_add_region (instance, region_with_box ("left box", 10, 10, 20, 20));
  hs_instance_add_sentence (instance, sentence_with_targets ("mask", "t", "lesion", NULL));
  hs_instance_add_sentence (instance, sentence_with_targets ("mixed", "t", "lesion", "left box"));
  hs_dataset_add_instance (dataset, instance);

  g_assert_true (hs_dataset_get_image_size (dataset, instance, &width, &height, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (width, ==, 200);
  g_assert_cmpuint (height, ==, 100);

  g_assert_true (hs_dataset_get_target_extent (dataset, instance,
                                               (const char * const *) hs_instance_find_sentence (instance, "mask")->targets,
                                               &extent, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (extent.x1, ==, 120);
  g_assert_cmpfloat (extent.x2, ==, 150);
  g_assert_cmpfloat (extent.y1, ==, 30);
  g_assert_cmpfloat (extent.y2, ==, 50);

  g_assert_true (subsets_of (dataset, instance, "mask") & HS_SUBSET_ONE_LUNG);
  g_assert_false (subsets_of (dataset, instance, "mixed") & HS_SUBSET_ONE_LUNG);
}

/* A region copy owns everything: changing or freeing the original leaves
 * it whole. */
static void
test_region_copy (void)
{
  HsRegion *region = region_with_box ("nodule", 1, 2, 3, 4);
  HsBox extent = { 5, 6, 7, 8 };
  HsRegion *copy;
  const HsBox *box;

  hs_region_add_box (region, 10, 20, 30, 40);
  hs_region_set_mask (region, "masks/n.png");
  hs_region_set_extent (region, &extent);
  copy = hs_region_copy (region);
  hs_region_add_box (region, 0, 0, 1, 1);
  hs_region_set_mask (region, "masks/other.png");
  hs_region_free (region);

  g_assert_cmpstr (copy->name, ==, "nodule");
  g_assert_cmpstr (copy->mask, ==, "masks/n.png");
  g_assert_cmpuint (copy->boxes->len, ==, 2);
  box = &g_array_index (copy->boxes, HsBox, 1);
  g_assert_cmpfloat (box->x1, ==, 10);
  g_assert_cmpfloat (box->y2, ==, 40);
  g_assert_true (copy->has_extent);
  g_assert_cmpfloat (copy->extent.x2, ==, 7);
  hs_region_free (copy);
}

typedef struct {
  HsImage *image;   /* what the loader hands out; NULL: it fails */
  guint    calls;
} MaskLoader;

static HsImage *
load_mask_counted (const HsRegion *region, gpointer data, GError **error)
{
  MaskLoader *loader = data;

  loader->calls++;
  if (loader->image == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, region->mask);
      return NULL;
    }
  return hs_image_ref (loader->image);
}

/* The targets of a sentence in its order, unknown names skipped, masks
 * loaded beside their regions, a broken mask an error naming its file. */
static void
test_collect_targets (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *masks_dir = g_build_filename (dir, "masks", NULL);
  g_autofree char *mask_path = g_build_filename (dir, "masks", "m.png", NULL);
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "targets");
  g_autoptr(HsImage) mask = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) regions = NULL;
  g_autoptr(GPtrArray) masks = NULL;
  HsInstance *instance = hs_instance_new ("a", "image.png");
  HsSentence *sentence;
  HsRegion *region;
  HsImage *loaded;
  guint16 *data;

  g_assert_cmpint (g_mkdir_with_parents (masks_dir, 0755), ==, 0);
  mask = hs_image_new (20, 10, 1, 8, &error);
  g_assert_no_error (error);
  data = hs_image_get_data (mask);
  data[3 * 20 + 12] = 255;
  g_assert_true (hs_image_save_png (mask, mask_path, &error));
  g_assert_no_error (error);

  region = hs_region_new ("lesion");
  hs_region_set_mask (region, "masks/m.png");
  hs_instance_add_region (instance, region);
  hs_instance_add_region (instance, region_with_box ("box", 10, 10, 20, 20));
  region = hs_region_new ("broken");
  hs_region_set_mask (region, "masks/missing.png");
  hs_instance_add_region (instance, region);
  sentence = sentence_with_targets ("s", "t", "lesion", "ghost");
  hs_sentence_add_target (sentence, "box");
  hs_instance_add_sentence (instance, sentence);
  hs_instance_add_sentence (instance, hs_sentence_new ("none", "t"));
  hs_instance_add_sentence (instance, sentence_with_targets ("bad", "t", "box", "broken"));
  hs_dataset_add_instance (dataset, instance);

  g_assert_true (hs_dataset_collect_targets (dataset, instance, hs_instance_find_sentence (instance, "s"),
                                             &regions, &masks, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (regions->len, ==, 2);
  g_assert_cmpuint (masks->len, ==, 2);
  g_assert_true (g_ptr_array_index (regions, 0) == hs_instance_find_region (instance, "lesion"));
  g_assert_true (g_ptr_array_index (regions, 1) == hs_instance_find_region (instance, "box"));
  loaded = g_ptr_array_index (masks, 0);
  g_assert_nonnull (loaded);
  g_assert_cmpuint (hs_image_get_width (loaded), ==, 20);
  g_assert_cmpuint (hs_image_get_height (loaded), ==, 10);
  g_assert_cmpuint (hs_image_peek_data (loaded)[3 * 20 + 12], !=, 0);
  g_assert_cmpuint (hs_image_peek_data (loaded)[3 * 20 + 11], ==, 0);
  g_assert_null (g_ptr_array_index (masks, 1));
  g_clear_pointer (&regions, g_ptr_array_unref);
  g_clear_pointer (&masks, g_ptr_array_unref);

  g_assert_true (hs_dataset_collect_targets (dataset, instance, hs_instance_find_sentence (instance, "none"),
                                             &regions, &masks, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (regions->len, ==, 0);
  g_assert_cmpuint (masks->len, ==, 0);
  g_clear_pointer (&regions, g_ptr_array_unref);
  g_clear_pointer (&masks, g_ptr_array_unref);

  g_assert_false (hs_dataset_collect_targets (dataset, instance, hs_instance_find_sentence (instance, "bad"),
                                              &regions, &masks, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "missing.png"));
  g_assert_null (regions);
  g_assert_null (masks);
  g_clear_error (&error);

  /* The same walk with the caller's loader: called once per mask region,
   * its image kept, its error passed on. */
  {
    MaskLoader loader = { mask, 0 };

    g_assert_true (hs_dataset_collect_targets_with (instance, hs_instance_find_sentence (instance, "s"),
                                                    load_mask_counted, &loader, &regions, &masks, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (loader.calls, ==, 1);
    g_assert_cmpuint (regions->len, ==, 2);
    g_assert_true (g_ptr_array_index (masks, 0) == mask);
    g_assert_null (g_ptr_array_index (masks, 1));
    g_clear_pointer (&regions, g_ptr_array_unref);
    g_clear_pointer (&masks, g_ptr_array_unref);

    loader.image = NULL;
    g_assert_false (hs_dataset_collect_targets_with (instance, hs_instance_find_sentence (instance, "bad"),
                                                     load_mask_counted, &loader, &regions, &masks, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
    g_assert_cmpstr (error->message, ==, "masks/missing.png");
    g_assert_cmpuint (loader.calls, ==, 2);
    g_assert_null (regions);
    g_assert_null (masks);
  }
}

static void
test_subset_mdrb (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "subsets");
  HsInstance *diverse = make_instance ("diverse", 100, 100);
  HsInstance *similar = make_instance ("similar", 100, 100);
  HsInstance *single = make_instance ("single", 100, 100);
  HsInstance *borderline = make_instance ("borderline", 100, 100);
  HsSentence *custom;

  /* Disjoint boxes: IoU 0 → mdrb. */
  hs_instance_add_region (diverse, region_with_box ("a", 0, 0, 10, 10));
  hs_instance_add_region (diverse, region_with_box ("b", 50, 50, 60, 60));
  hs_instance_add_sentence (diverse, sentence_with_targets ("s0", "t", "a", NULL));
  hs_instance_add_sentence (diverse, sentence_with_targets ("s1", "t", "b", NULL));
  hs_instance_add_sentence (diverse, hs_sentence_new ("s2", "no target"));
  /* A custom query with the same target as s0 does not take part. */
  custom = sentence_with_targets ("c", "t", "a", NULL);
  hs_sentence_set_kind (custom, "custom");
  hs_instance_add_sentence (diverse, custom);

  /* Same box twice: IoU 1 → not mdrb. */
  hs_instance_add_region (similar, region_with_box ("a", 0, 0, 10, 10));
  hs_instance_add_sentence (similar, sentence_with_targets ("s0", "t", "a", NULL));
  hs_instance_add_sentence (similar, sentence_with_targets ("s1", "t", "a", NULL));

  hs_instance_add_region (single, region_with_box ("a", 0, 0, 10, 10));
  hs_instance_add_sentence (single, sentence_with_targets ("s0", "t", "a", NULL));

  /* A sentence's extent is the bounding box of its targets: D = [0,0,10,10] ∪
   * [20,0,30,10] = [0,0,30,10], IoU 1/3 with A = [0,0,10,10]; F is disjoint
   * from both: mean pairwise IoU (1/3 + 0 + 0) / 3 = 1/9 ≤ 0.25. */
  hs_instance_add_region (borderline, region_with_box ("a", 0, 0, 10, 10));
  hs_instance_add_region (borderline, region_with_box ("b", 20, 0, 30, 10));
  hs_instance_add_region (borderline, region_with_box ("far", 60, 60, 90, 90));
  hs_instance_add_sentence (borderline, sentence_with_targets ("A", "t", "a", NULL));
  hs_instance_add_sentence (borderline, sentence_with_targets ("F", "t", "far", NULL));
  hs_instance_add_sentence (borderline, sentence_with_targets ("D", "t", "a", "b"));

  hs_dataset_add_instance (dataset, diverse);
  hs_dataset_add_instance (dataset, similar);
  hs_dataset_add_instance (dataset, single);
  hs_dataset_add_instance (dataset, borderline);

  g_assert_true (subsets_of (dataset, diverse, "s0") & HS_SUBSET_MDRB);
  g_assert_true (subsets_of (dataset, diverse, "s1") & HS_SUBSET_MDRB);
  g_assert_false (subsets_of (dataset, diverse, "s2") & HS_SUBSET_MDRB);
  g_assert_false (subsets_of (dataset, diverse, "c") & HS_SUBSET_MDRB);
  g_assert_false (subsets_of (dataset, similar, "s0") & HS_SUBSET_MDRB);
  g_assert_false (subsets_of (dataset, single, "s0") & HS_SUBSET_MDRB);
  g_assert_true (subsets_of (dataset, borderline, "A") & HS_SUBSET_MDRB);
  g_assert_true (subsets_of (dataset, borderline, "D") & HS_SUBSET_MDRB);
}

/* Relinking a sentence in a dataset other threads read: the old targets
 * stay readable, the new ones are saved, and the instance's cached MDRB
 * subset follows them (hs_dataset_set_sentence_targets). */
static void
test_set_sentence_targets (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "relink");
  g_autoptr(HsDataset) again = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance = make_instance ("diverse", 100, 100);
  HsSentence *s0, *s1;
  char **old;
  const char *both[] = { "a", "b", NULL };
  const char *only_a[] = { "a", NULL };

  hs_instance_add_region (instance, region_with_box ("a", 0, 0, 10, 10));
  hs_instance_add_region (instance, region_with_box ("b", 50, 50, 60, 60));
  hs_instance_add_sentence (instance, sentence_with_targets ("s0", "t", "a", NULL));
  hs_instance_add_sentence (instance, sentence_with_targets ("s1", "t", "b", NULL));
  hs_dataset_add_instance (dataset, instance);
  s0 = hs_instance_find_sentence (instance, "s0");
  s1 = hs_instance_find_sentence (instance, "s1");
  /* disjoint targets: MDRB (cached now) */
  g_assert_true (subsets_of (dataset, instance, "s0") & HS_SUBSET_MDRB);

  old = s1->targets;
  hs_dataset_set_sentence_targets (dataset, instance, s1, only_a);
  g_assert_cmpstr (old[0], ==, "b");              /* still readable */
  g_assert_cmpstr (s1->targets[0], ==, "a");
  g_assert_null (s1->targets[1]);
  /* the same target twice: no longer MDRB, not the cached answer */
  g_assert_false (subsets_of (dataset, instance, "s0") & HS_SUBSET_MDRB);
  hs_dataset_set_sentence_targets (dataset, instance, s0, both);
  hs_dataset_set_sentence_targets (dataset, instance, s1, NULL);
  g_assert_null (s1->targets[0]);
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  again = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  s0 = hs_instance_find_sentence (hs_dataset_find_instance (again, "diverse"), "s0");
  s1 = hs_instance_find_sentence (hs_dataset_find_instance (again, "diverse"), "s1");
  g_assert_cmpuint (g_strv_length (s0->targets), ==, 2);
  g_assert_cmpstr (s0->targets[1], ==, "b");
  g_assert_cmpuint (g_strv_length (s1->targets), ==, 0);
}

/* Regions added and removed while readers may hold the old list: the old
 * list and a removed region stay readable; the manifest has the new list. */
static void
test_add_remove_instance_region (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "regions");
  g_autoptr(HsDataset) again = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance = make_instance ("i", 100, 100);
  GPtrArray *old;
  HsRegion *a;

  hs_instance_add_region (instance, region_with_box ("a", 0, 0, 10, 10));
  hs_dataset_add_instance (dataset, instance);
  old = instance->regions;
  a = g_ptr_array_index (old, 0);
  hs_dataset_add_instance_region (dataset, instance, region_with_box ("drawn", 20, 20, 40, 30));
  g_assert_cmpuint (old->len, ==, 1);                 /* the old list, unchanged */
  g_assert_cmpuint (instance->regions->len, ==, 2);
  g_assert_true (g_ptr_array_index (instance->regions, 0) == a);
  g_assert_nonnull (hs_instance_find_region (instance, "drawn"));
  g_assert_false (hs_dataset_remove_instance_region (dataset, instance, "nothing"));
  g_assert_true (hs_dataset_remove_instance_region (dataset, instance, "a"));
  g_assert_cmpstr (a->name, ==, "a");                 /* still readable */
  g_assert_null (hs_instance_find_region (instance, "a"));
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  again = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  instance = hs_dataset_find_instance (again, "i");
  g_assert_cmpuint (instance->regions->len, ==, 1);
  g_assert_cmpfloat (g_array_index (hs_instance_find_region (instance, "drawn")->boxes, HsBox, 0).x2,
                     ==, 40);
}

/* The mean IoU bound is inclusive and exact: two boxes with IoU 0.25 are in,
 * slightly more overlap is out. */
static void
test_subset_mdrb_threshold (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "subsets");
  HsInstance *at = make_instance ("at", 100, 100);
  HsInstance *over = make_instance ("over", 100, 100);

  /* [0,0,10,10] and [0,0,10,2.5]: IoU 25/100; with 2.6 it is 26/100. */
  hs_instance_add_region (at, region_with_box ("a", 0, 0, 10, 10));
  hs_instance_add_region (at, region_with_box ("b", 0, 0, 10, 2.5));
  hs_instance_add_sentence (at, sentence_with_targets ("s0", "t", "a", NULL));
  hs_instance_add_sentence (at, sentence_with_targets ("s1", "t", "b", NULL));
  hs_instance_add_region (over, region_with_box ("a", 0, 0, 10, 10));
  hs_instance_add_region (over, region_with_box ("b", 0, 0, 10, 2.6));
  hs_instance_add_sentence (over, sentence_with_targets ("s0", "t", "a", NULL));
  hs_instance_add_sentence (over, sentence_with_targets ("s1", "t", "b", NULL));
  hs_dataset_add_instance (dataset, at);
  hs_dataset_add_instance (dataset, over);

  g_assert_true (subsets_of (dataset, at, "s0") & HS_SUBSET_MDRB);
  g_assert_false (subsets_of (dataset, over, "s0") & HS_SUBSET_MDRB);
}

/* A manifest of 2 000 instances loads (no image or map is opened: none exist). */
static void
test_many_instances (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "many");
  g_autoptr(HsDataset) loaded = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 2000; i++)
    {
      g_autofree char *id = g_strdup_printf ("p%05u", i);
      HsInstance *instance = make_instance (id, 1024, 1024);
      HsSentence *sentence = sentence_with_targets ("s0", "There is a nodule.", "left lung", NULL);
      g_autofree char *file = g_strdup_printf ("maps/%s.npy", id);

      hs_instance_add_region (instance, region_with_box ("left lung", 512, 100, 900, 900));
      hs_instance_add_sentence (instance, sentence);
      hs_instance_add_map (instance, hs_map_ref_new ("grounded", "s0", file));
      hs_dataset_add_instance (dataset, instance);
    }
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  loaded = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (loaded), ==, 2000);
  g_assert_cmpstr (hs_dataset_find_instance (loaded, "p01999")->id, ==, "p01999");
  g_assert_true (subsets_of (loaded, hs_dataset_find_instance (loaded, "p00007"), "s0") & HS_SUBSET_ONE_LUNG);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/dataset/round-trip", test_round_trip);
  g_test_add_func ("/hs/dataset/python-reads-output", test_python_reads_output);
  g_test_add_func ("/hs/dataset/defaults", test_defaults);
  g_test_add_func ("/hs/dataset/lookups", test_lookups);
  g_test_add_func ("/hs/dataset/error-missing", test_error_missing);
  g_test_add_func ("/hs/dataset/error-syntax", test_error_syntax);
  g_test_add_func ("/hs/dataset/error-json-grammar", test_error_json_grammar);
  g_test_add_func ("/hs/dataset/json-values", test_json_values);
  g_test_add_func ("/hs/dataset/error-deep-nesting", test_error_deep_nesting);
  g_test_add_func ("/hs/dataset/error-too-large", test_error_too_large);
  g_test_add_func ("/hs/dataset/error-schema", test_error_schema);
  g_test_add_func ("/hs/dataset/error-top-level", test_error_top_level);
  g_test_add_func ("/hs/dataset/resolve-path", test_resolve_path);
  g_test_add_func ("/hs/dataset/subset-abnormal", test_subset_abnormal);
  g_test_add_func ("/hs/dataset/subset-one-lung", test_subset_one_lung);
  g_test_add_func ("/hs/dataset/subset-one-lung-mask", test_subset_one_lung_mask);
  g_test_add_func ("/hs/dataset/region-copy", test_region_copy);
  g_test_add_func ("/hs/dataset/collect-targets", test_collect_targets);
  g_test_add_func ("/hs/dataset/subset-mdrb", test_subset_mdrb);
  g_test_add_func ("/hs/dataset/subset-mdrb-threshold", test_subset_mdrb_threshold);
  g_test_add_func ("/hs/dataset/set-sentence-targets", test_set_sentence_targets);
  g_test_add_func ("/hs/dataset/add-remove-instance-region", test_add_remove_instance_region);
  g_test_add_func ("/hs/dataset/many-instances", test_many_instances);
  return g_test_run ();
}
