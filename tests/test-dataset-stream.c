/* test-dataset-stream.c — hs_dataset_open / hs_dataset_load_more: the
 * incremental reading a window uses to show the first instance of a large
 * manifest at once.  Every dataset read incrementally must equal the one
 * hs_dataset_load reads whole (compared through hs_dataset_to_json), and a
 * problem in a later instance must be reported with the file and the JSON
 * path, keeping the instances before it. */
#include <heatscope/heatscope.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs-test-util.h"

/* A manifest of `n` instances with regions, a mask, sentences, labels and
 * maps; instance i has id "case-%05d" (so a reader can check the order). */
static char *
write_dataset (guint n)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "stream test");
  g_autoptr(GError) error = NULL;

  hs_dataset_set_description (dataset, "ünïcode ✓");
  hs_dataset_set_model_description (dataset, "grounded", "a model");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("case-%05u", i);
      g_autofree char *image = g_strdup_printf ("images/%s.png", id);
      g_autofree char *file = g_strdup_printf ("maps/%s-s1.npy", id);
      const char *tokens[] = { "a", "nodule", NULL };
      const char *locations[] = { "left lung", NULL };
      HsInstance *instance = hs_instance_new (id, image);
      HsRegion *region = hs_region_new ("left lung");
      HsSentence *sentence = hs_sentence_new ("s1", "A nodule in the left lung.");
      HsMapRef *ref = hs_map_ref_new ("grounded", "s1", file);

      hs_instance_set_metadata (instance, "view", i % 2 ? "PA" : "AP");
      hs_region_add_box (region, 10 + i, 20, 30.5 + i, 40.25);
      hs_instance_add_region (instance, region);
      region = hs_region_new ("nodule");
      hs_region_set_mask (region, "masks/nodule.png");
      hs_instance_add_region (instance, region);
      hs_sentence_add_target (sentence, "left lung");
      hs_sentence_add_label (sentence, hs_label_new ("nodule", "positive", locations));
      hs_instance_add_sentence (instance, sentence);
      hs_map_ref_set_tokens (ref, tokens);
      hs_instance_add_map (instance, ref);
      hs_dataset_add_instance (dataset, instance);
    }
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&dir);
}

static char *
manifest_of (const char *dir)
{
  return g_build_filename (dir, "heatscope.json", NULL);
}

static void
write_text (const char *dir, const char *text)
{
  g_autofree char *path = manifest_of (dir);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

static char *
json_of (HsDataset *dataset)
{
  return hs_dataset_to_json (dataset, NULL);
}

static void
test_same_as_load (void)
{
  g_autofree char *dir = write_dataset (50);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) whole = hs_dataset_load (dir, &error);
  g_autoptr(HsDataset) dataset = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;
  guint rounds = 0;

  g_assert_no_error (error);
  dataset = hs_dataset_open (dir, 1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (dataset);
  g_assert_false (hs_dataset_is_complete (dataset));
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 1);
  g_assert_cmpstr (hs_dataset_get_name (dataset), ==, "stream test");
  g_assert_cmpstr (hs_dataset_get_model_description (dataset, "grounded"), ==, "a model");
  g_assert_cmpstr (hs_dataset_get_instance (dataset, 0)->id, ==, "case-00000");

  g_assert_true (hs_dataset_load_more (dataset, 7, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 8);
  while (!hs_dataset_is_complete (dataset))
    {
      g_assert_true (hs_dataset_load_more (dataset, 7, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (++rounds, <, 100);
    }
  /* 1 + 7 + 6 × 7 = 50; a batch stops after its 7th instance, so a
   * seventh round finds the closing bracket. */
  g_assert_cmpuint (rounds, ==, 7);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 50);
  g_assert_true (hs_dataset_load_more (dataset, 7, &error));   /* complete: nothing to do */
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 50);

  expected = json_of (whole);
  got = json_of (dataset);
  g_assert_cmpstr (got, ==, expected);
  g_assert_true (hs_dataset_find_instance (dataset, "case-00049") == hs_dataset_get_instance (dataset, 49));
  g_assert_cmpint (hs_dataset_get_instance_index (dataset, hs_dataset_get_instance (dataset, 33)), ==, 33);
}

/* Fewer instances than asked for are read whole: complete at once. */
static void
test_read_whole (void)
{
  g_autofree char *dir = write_dataset (3);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) whole = hs_dataset_load (dir, &error);
  g_autoptr(HsDataset) dataset = hs_dataset_open (dir, 5, &error);
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  g_assert_no_error (error);
  g_assert_true (hs_dataset_is_complete (dataset));
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 3);
  g_assert_true (hs_dataset_load_more (dataset, 1, &error));
  expected = json_of (whole);
  got = json_of (dataset);
  g_assert_cmpstr (got, ==, expected);
}

/* Format and version after the instances: read whole. */
static void
test_instances_first (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) whole = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  write_text (dir,
              "{\"instances\": [{\"id\": \"a\", \"image\": \"a.png\"}, {\"id\": \"b\", \"image\": \"b.png\"}],\n"
              " \"name\": \"late\", \"format\": \"heatscope-dataset\", \"version\": 1}\n");
  whole = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  dataset = hs_dataset_open (dir, 1, &error);
  g_assert_no_error (error);
  g_assert_true (hs_dataset_is_complete (dataset));
  g_assert_cmpstr (hs_dataset_get_name (dataset), ==, "late");
  expected = json_of (whole);
  got = json_of (dataset);
  g_assert_cmpstr (got, ==, expected);
}

/* Members after "instances" are read when the array ends. */
static void
test_members_after (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;

  write_text (dir,
              "{\"format\": \"heatscope-dataset\", \"version\": 1,\n"
              " \"instances\": [{\"id\": \"a\", \"image\": \"a.png\"}, {\"id\": \"b\", \"image\": \"b.png\"}],\n"
              " \"name\": \"late\", \"models\": {\"m\": {\"description\": \"d\"}}, \"x-note\": [1]}\n");
  dataset = hs_dataset_open (dir, 1, &error);
  g_assert_no_error (error);
  g_assert_false (hs_dataset_is_complete (dataset));
  g_assert_null (hs_dataset_get_name (dataset));
  g_assert_true (hs_dataset_load_more (dataset, 10, &error));
  g_assert_no_error (error);
  g_assert_true (hs_dataset_is_complete (dataset));
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 2);
  g_assert_cmpstr (hs_dataset_get_name (dataset), ==, "late");
  g_assert_cmpstr (hs_dataset_get_model_description (dataset, "m"), ==, "d");
}

typedef struct {
  const char *name;
  const char *text;            /* the manifest */
  guint       n_before;        /* instances read before the problem */
  const char *expected;        /* in the message, after "FILE: " */
} LaterProblem;

static const LaterProblem later_problems[] = {
  { "schema",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    "{\"id\": \"a\", \"image\": \"a.png\"},\n{\"id\": \"b\", \"image\": \"b.png\"},\n"
    "{\"id\": \"c\"},\n{\"id\": \"d\", \"image\": \"d.png\"}]}\n",
    2, "$.instances[2]: missing required member \"image\"" },
  { "duplicate id",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    "{\"id\": \"a\", \"image\": \"a.png\"},\n{\"id\": \"b\", \"image\": \"b.png\"},\n"
    "{\"id\": \"a\", \"image\": \"c.png\"}]}\n",
    2, "$.instances[2].id: duplicate instance id \"a\"" },
  { "syntax",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    "{\"id\": \"a\", \"image\": \"a.png\"},\n{\"id\": \"b\", \"image\": \"b.png\"},\n"
    "{\"id\": \"c\", \"image\": \"c.png\",}]}\n",
    2, "$: not valid JSON: line 4, column 30: expected a member name in double quotes" },
  { "missing comma",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    "{\"id\": \"a\", \"image\": \"a.png\"},\n{\"id\": \"b\", \"image\": \"b.png\"}\n"
    "{\"id\": \"c\", \"image\": \"c.png\"}]}\n",
    2, "$: not valid JSON: line 4, column 1: expected ',' or ']'" },
  { "truncated",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    "{\"id\": \"a\", \"image\": \"a.png\"},\n{\"id\": \"b\", \"image\": \"b.png\"},\n"
    "{\"id\": \"c\", \"ima",
    2, "$: not valid JSON: line 4, column 17: unterminated string (at the end of the file)" },
  { "text after",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    "{\"id\": \"a\", \"image\": \"a.png\"},\n{\"id\": \"b\", \"image\": \"b.png\"}]}\nx\n",
    2, "$: not valid JSON: line 4, column 1: unexpected text after the top-level value" },
  { "unknown member after",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    "{\"id\": \"a\", \"image\": \"a.png\"},\n{\"id\": \"b\", \"image\": \"b.png\"}],\n"
    "\"colour\": \"red\"}\n",
    2, "$.colour: unknown member \"colour\" (expected one of: format, version, name, description, "
    "models, instances)" },
  { "invalid UTF-8",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    "{\"id\": \"a\", \"image\": \"a.png\"},\n{\"id\": \"b\", \"image\": \"b.png\"},\n"
    "{\"id\": \"c\xff\", \"image\": \"c.png\"}]}\n",
    2, "$: invalid UTF-8 (or a NUL byte) at byte 132 (line 4)" },
};

static void
test_later_problem (gconstpointer data)
{
  const LaterProblem *problem = data;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *manifest = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) again = NULL;
  g_autoptr(GError) whole_error = NULL;
  g_autoptr(HsDataset) whole = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  char *real;

  write_text (dir, problem->text);
  real = realpath (dir, NULL);
  manifest = g_build_filename (real, "heatscope.json", NULL);
  free (real);
  expected = g_strdup_printf ("%s: %s", manifest, problem->expected);

  /* hs_dataset_load reports the same problem... */
  whole = hs_dataset_load (dir, &whole_error);
  g_assert_null (whole);
  g_assert_nonnull (whole_error);
  g_assert_cmpstr (whole_error->message, ==, expected);

  /* ...and the stream after the instances before it. */
  dataset = hs_dataset_open (dir, 1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (dataset);
  g_assert_false (hs_dataset_is_complete (dataset));
  g_assert_false (hs_dataset_load_more (dataset, 100, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == HS_DATASET_ERROR);
  g_assert_cmpint (error->code, ==, whole_error->code);
  g_assert_cmpstr (error->message, ==, expected);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, problem->n_before);
  g_assert_false (hs_dataset_is_complete (dataset));
  /* Reported again, not read further. */
  g_assert_false (hs_dataset_load_more (dataset, 100, &again));
  g_assert_cmpstr (again->message, ==, expected);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, problem->n_before);
}

/* A problem in the first instance: read whole, the same error as
 * hs_dataset_load. */
static void
test_first_problem (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) whole_error = NULL;
  g_autoptr(HsDataset) whole = NULL;
  g_autoptr(HsDataset) dataset = NULL;

  write_text (dir,
              "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
              "{\"id\": \"a\", \"image\": \"/etc/passwd\"},\n{\"id\": \"b\", \"image\": \"b.png\"}]}\n");
  whole = hs_dataset_load (dir, &whole_error);
  g_assert_nonnull (whole_error);
  dataset = hs_dataset_open (dir, 1, &error);
  g_assert_null (dataset);
  g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH);
  g_assert_cmpstr (error->message, ==, whole_error->message);
  g_assert_nonnull (strstr (error->message, "$.instances[0].image"));
}

/* Readers in another thread see a growing prefix of the right instances
 * while the loader appends (the slot array grows under them). */
typedef struct {
  HsDataset *dataset;
  gint       stop;
  gint       started;   /* one pass over the instances done */
  guint      checks;
  guint      wrong;
} Reader;

static gpointer
reader_thread (gpointer data)
{
  Reader *reader = data;

  while (!g_atomic_int_get (&reader->stop))
    {
      guint n = hs_dataset_get_n_instances (reader->dataset);

      for (guint i = n > 64 ? n - 64 : 0; i < n; i++)
        {
          HsInstance *instance = hs_dataset_get_instance (reader->dataset, i);
          g_autofree char *id = g_strdup_printf ("case-%05u", i);

          reader->checks++;
          if (instance == NULL || g_strcmp0 (instance->id, id) != 0 ||
              hs_dataset_find_instance (reader->dataset, id) != instance)
            reader->wrong++;
        }
      g_atomic_int_set (&reader->started, TRUE);
    }
  return NULL;
}

static void
test_concurrent_readers (void)
{
  g_autofree char *dir = write_dataset (3000);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_open (dir, 1, &error);
  Reader reader = { dataset, 0, 0, 0, 0 };
  GThread *thread;

  g_assert_no_error (error);
  thread = g_thread_new ("reader", reader_thread, &reader);
  /* the loader appends only once the reader reads (on a loaded machine the
   * thread could otherwise start after the last instance: no check at all) */
  while (!g_atomic_int_get (&reader.started))
    g_thread_yield ();
  while (!hs_dataset_is_complete (dataset))
    g_assert_true (hs_dataset_load_more (dataset, 37, &error));
  g_atomic_int_set (&reader.stop, TRUE);
  g_thread_join (thread);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 3000);
  g_assert_cmpuint (reader.checks, >, 0);
  g_assert_cmpuint (reader.wrong, ==, 0);
}

/* Names repeated across instances are shared copies after loading, and
 * the setters and frees still work on them (MALLOC_CHECK_ in the test
 * environment catches a bad free). */
static void
test_shared_names (void)
{
  g_autofree char *dir = write_dataset (3);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (dir, &error);
  HsInstance *a, *b;
  HsRegion *region_a, *region_b;
  HsSentence *sentence_a, *sentence_b;
  HsMapRef *ref_a, *ref_b;
  const char *tokens[] = { "two", "words", NULL };
  g_autofree char *json = NULL;

  g_assert_no_error (error);
  a = hs_dataset_get_instance (dataset, 0);
  b = hs_dataset_get_instance (dataset, 1);
  region_a = hs_instance_find_region (a, "left lung");
  region_b = hs_instance_find_region (b, "left lung");
  sentence_a = hs_instance_find_sentence (a, "s1");
  sentence_b = hs_instance_find_sentence (b, "s1");
  ref_a = hs_instance_find_map (a, "grounded", "s1");
  ref_b = hs_instance_find_map (b, "grounded", "s1");
  g_assert_true (region_a->name == region_b->name);
  g_assert_true (sentence_a->kind == sentence_b->kind);
  g_assert_true (sentence_a->targets[0] == sentence_b->targets[0]);
  g_assert_true (ref_a->model == ref_b->model);
  g_assert_true (ref_a->tokens[1] == ref_b->tokens[1]);
  /* Own copies stay own: ids, texts, paths. */
  g_assert_false (a->id == b->id);
  g_assert_false (sentence_a->text == sentence_b->text);

  hs_region_set_mask (region_a, "masks/a.png");
  hs_sentence_set_kind (sentence_a, "custom");
  hs_sentence_add_target (sentence_a, "nodule");
  hs_map_ref_set_tokens (ref_a, tokens);
  hs_map_ref_set_prompt (ref_a, "two words");
  hs_instance_set_metadata (a, "view", "LL");
  hs_instance_set_metadata (b, "view", NULL);
  g_assert_cmpstr (region_b->name, ==, "left lung");
  g_assert_cmpstr (sentence_b->kind, ==, "report");
  g_assert_cmpstr (ref_b->tokens[1], ==, "nodule");
  g_assert_cmpstr (hs_instance_get_metadata (a, "view"), ==, "LL");
  g_assert_null (hs_instance_get_metadata (b, "view"));
  json = hs_dataset_to_json (dataset, NULL);
  g_assert_nonnull (strstr (json, "\"kind\": \"custom\""));
  /* The last reference frees everything (checked by MALLOC_CHECK_). */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/dataset-stream/same-as-load", test_same_as_load);
  g_test_add_func ("/hs/dataset-stream/read-whole", test_read_whole);
  g_test_add_func ("/hs/dataset-stream/instances-first", test_instances_first);
  g_test_add_func ("/hs/dataset-stream/members-after", test_members_after);
  g_test_add_func ("/hs/dataset-stream/first-problem", test_first_problem);
  for (guint i = 0; i < G_N_ELEMENTS (later_problems); i++)
    {
      g_autofree char *path = g_strdup_printf ("/hs/dataset-stream/later-problem/%s",
                                               later_problems[i].name);
      g_test_add_data_func (path, &later_problems[i], test_later_problem);
    }
  g_test_add_func ("/hs/dataset-stream/concurrent-readers", test_concurrent_readers);
  g_test_add_func ("/hs/dataset-stream/shared-names", test_shared_names);
  return g_test_run ();
}
