/* test-annotation.c — projects, blinding, crash-safe answers, resume, export */
#include <heatscope/heatscope.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hs-test-util.h"

static char *tmpdir;
static char *self_exe;   /* this program, re-run as an answering writer */

static const char * const models[] = { "grounded", "blind", "noattn", "random", NULL };

/* Three instances of two report sentences and one class query each; maps of
 * every model for sentence s1 of i1. */
static HsDataset *
make_dataset (const char *root)
{
  HsDataset *dataset = hs_dataset_new (root, "annotation-test");

  for (guint i = 1; i <= 3; i++)
    {
      g_autofree char *id = g_strdup_printf ("i%u", i);
      HsInstance *instance = hs_instance_new (id, "image.png");
      HsSentence *cls = hs_sentence_new ("c1", "nodule");

      hs_instance_add_sentence (instance, hs_sentence_new ("s1", "There is a nodule in the left lung."));
      hs_instance_add_sentence (instance, hs_sentence_new ("s2", "The right lung is clear, no effusion."));
      hs_sentence_set_kind (cls, "class");
      hs_instance_add_sentence (instance, cls);
      if (i == 1)
        for (guint m = 0; models[m] != NULL; m++)
          {
            g_autofree char *file = g_strdup_printf ("%s.npy", models[m]);
            g_autofree char *path = g_build_filename (root, file, NULL);
            double values[6] = { m, 1, 2, 3, 4, 5 };
            gsize shape[2] = { 2, 3 };

            g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT64, 2, shape, values, FALSE, FALSE, NULL));
            hs_instance_add_map (instance, hs_map_ref_new (models[m], "s1", file));
          }
      hs_dataset_add_instance (dataset, instance);
    }
  return dataset;
}

static HsAnnotationProject *
make_project (const char *form, guint64 seed, gboolean custom)
{
  g_autofree char *text = g_strdup_printf (
    "{\"annotator\": \"alice\", \"dataset\": \"data\", "
    "\"models\": [\"grounded\", \"blind\", \"noattn\", \"random\"], "
    "\"rounds\": %s, \"custom_prompts\": [\"left, lower lung\"], "
    "\"questions\": \"%s\", \"seed\": %" G_GUINT64_FORMAT "}",
    custom ? "[\"report\", \"custom\"]" : "[\"report\"]", form, seed);
  g_autoptr(GError) error = NULL;
  HsAnnotationProject *project = hs_annotation_project_parse (text, -1, "p.json", &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

static HsAnnotationSession *
open_session (const char *form, guint64 seed, gboolean custom, const char *answers,
              GPtrArray **problems)
{
  g_autofree char *root = g_build_filename (tmpdir, "data", NULL);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsAnnotationProject *project = make_project (form, seed, custom);
  HsAnnotationSession *session;

  g_mkdir_with_parents (root, 0755);
  dataset = make_dataset (root);
  session = hs_annotation_session_new (project, dataset, answers, problems, &error);
  g_assert_no_error (error);
  g_assert_nonnull (session);
  return session;
}

static void
test_project_errors (void)
{
  const char *bad[] = {
    "{\"dataset\": \"d\", \"models\": [\"a\"]}",                                   /* annotator */
    "{\"annotator\": \"a\", \"models\": [\"a\"]}",                                  /* dataset   */
    "{\"annotator\": \"a\", \"dataset\": \"d\", \"models\": []}",                   /* models    */
    "{\"annotator\": \"a\", \"dataset\": \"d\", \"models\": [\"a\", \"a\"]}",       /* twice     */
    "{\"annotator\": \"a\", \"dataset\": \"d\", \"models\": [\"a\"], \"rounds\": [\"x\"]}",
    "{\"annotator\": \"a\", \"dataset\": \"d\", \"models\": [\"a\"], \"questions\": \"five\"}",
    "{\"annotator\": \"a\", \"dataset\": \"d\", \"models\": [\"a\"], \"seed\": -1}",
    "{\"annotator\": \"a\", \"dataset\": \"d\", \"models\": [1]}",
    "[1, 2]",
    "{\"annotator\": ",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      HsAnnotationProject *project = hs_annotation_project_parse (bad[i], -1, "bad.json", &error);

      g_assert_null (project);
      g_assert_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE);
      g_assert_nonnull (strstr (error->message, "bad.json"));
      g_clear_error (&error);
    }
}

static void
test_items_and_blinding (void)
{
  g_autofree char *answers = g_build_filename (tmpdir, "blind.jsonl", NULL);
  g_autoptr(HsAnnotationSession) session = open_session ("three", 7, TRUE, answers, NULL);
  g_autoptr(HsAnnotationSession) again = open_session ("three", 7, TRUE, answers, NULL);
  g_autoptr(HsAnnotationSession) other_seed = open_session ("three", 8, TRUE, answers, NULL);
  gboolean differs_between_instances = FALSE, differs_between_seeds = FALSE;
  HsAnnotationItem item;

  /* 3 instances × (2 report sentences + 1 custom prompt) × 4 aliases; the
   * class query is not a report sentence. */
  g_assert_cmpuint (hs_annotation_session_get_n_items (session), ==, 3 * 3 * 4);
  g_assert_true (hs_annotation_session_get_item (session, 0, &item));
  g_assert_cmpstr (item.instance, ==, "i1");
  g_assert_cmpstr (item.query, ==, "s1");
  g_assert_cmpstr (item.alias, ==, "Model A");
  g_assert_cmpint (item.round, ==, HS_ANNOTATION_ROUND_REPORT);
  g_assert_cmpstr (item.prompt, ==, "There is a nodule in the left lung.");
  g_assert_true (hs_annotation_session_get_item (session, 3, &item));
  g_assert_cmpstr (item.alias, ==, "Model D");
  g_assert_true (hs_annotation_session_get_item (session, 8, &item));
  g_assert_cmpint (item.round, ==, HS_ANNOTATION_ROUND_CUSTOM);
  g_assert_cmpstr (item.query, ==, "custom-1");
  g_assert_cmpstr (item.prompt, ==, "left, lower lung");
  g_assert_false (hs_annotation_session_get_item (session, 36, &item));

  for (guint i = 0; i < 36; i++)
    {
      const char *model = hs_annotation_session_backend_model (session, i);
      const char *first_alias_model = hs_annotation_session_backend_model (session, i - i % 4);
      const char *first_alias_model_i1 = hs_annotation_session_backend_model (session, 0);

      g_assert_true (hs_annotation_session_get_item (session, i, &item));
      /* Nothing the annotator sees holds a model name. */
      for (guint m = 0; models[m] != NULL; m++)
        {
          g_assert_null (strstr (item.alias, models[m]));
          g_assert_null (strstr (item.query, models[m]));
        }
      /* Same aliases on a second run; the same alias maps to one model for
       * every item of an instance. */
      g_assert_cmpstr (model, ==, hs_annotation_session_backend_model (again, i));
      g_assert_true (g_strv_contains (models, model));
      if (i >= 12 && g_strcmp0 (first_alias_model, first_alias_model_i1) != 0)
        differs_between_instances = TRUE;
      if (g_strcmp0 (model, hs_annotation_session_backend_model (other_seed, i)) != 0)
        differs_between_seeds = TRUE;
    }
  /* Each instance's aliases are a permutation of the four models. */
  for (guint i = 0; i < 36; i += 4)
    for (guint a = 0; a < 4; a++)
      for (guint b = 0; b < a; b++)
        g_assert_cmpstr (hs_annotation_session_backend_model (session, i + a), !=,
                         hs_annotation_session_backend_model (session, i + b));
  for (guint i = 0; i < 12; i += 4)
    for (guint a = 0; a < 4; a++)
      g_assert_cmpstr (hs_annotation_session_backend_model (session, i + a), ==,
                       hs_annotation_session_backend_model (session, a));
  g_assert_true (differs_between_instances);
  g_assert_true (differs_between_seeds);
}

static void
test_load_map (void)
{
  g_autofree char *answers = g_build_filename (tmpdir, "map.jsonl", NULL);
  g_autoptr(HsAnnotationSession) session = open_session ("three", 3, FALSE, answers, NULL);
  g_autoptr(GError) error = NULL;

  for (guint a = 0; a < 4; a++)
    {
      g_autoptr(HsAttentionMap) map = hs_annotation_session_load_map (session, a, NULL, &error);
      const char *model = hs_annotation_session_backend_model (session, a);
      guint m = 0;

      g_assert_no_error (error);
      while (strcmp (models[m], model) != 0)
        m++;
      /* Cell 0 of each map holds its model's index. */
      g_assert_cmpfloat (hs_attention_map_peek_values (map)[0], ==, m);
    }
  {
    HsAnnotationItem item;
    g_autoptr(HsAttentionMap) map = hs_annotation_session_load_map (session, 4, NULL, &error);

    g_assert_null (map);
    g_assert_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_NOT_FOUND);
    g_assert_true (hs_annotation_session_get_item (session, 4, &item));
    g_assert_nonnull (strstr (error->message, item.alias));
    for (guint m = 0; models[m] != NULL; m++)
      g_assert_null (strstr (error->message, models[m]));
  }
}

static guint
count_lines (const char *path)
{
  g_autofree char *text = NULL;
  guint n = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

static void
test_answer_resume_export (void)
{
  g_autofree char *answers = g_build_filename (tmpdir, "resume.jsonl", NULL);
  g_autofree char *csv_path = g_build_filename (tmpdir, "resume.csv", NULL);
  g_autofree char *csv = NULL;
  g_autoptr(GError) error = NULL;
  const int v1[3] = { 60, 40, 4 }, v2[3] = { 100, 0, 1 }, v3[3] = { 20, 80, 5 }, vbad[3] = { 50, 40, 4 };
  g_autofree char *expected = NULL;

  {
    g_autoptr(HsAnnotationSession) session = open_session ("likert", 11, TRUE, answers, NULL);

    g_assert_cmpint (hs_annotation_session_next_unanswered (session), ==, 0);
    g_assert_true (hs_annotation_session_answer (session, 0, v1, NULL, 0.25, &error));
    g_assert_true (hs_annotation_session_answer (session, 1, v2, NULL, NAN, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (count_lines (answers), ==, 2);
    /* Custom item with a listed prompt (item 8 of i1). */
    g_assert_true (hs_annotation_session_answer (session, 8, v3, NULL, NAN, &error));
    g_assert_no_error (error);
    g_assert_false (hs_annotation_session_answer (session, 2, vbad, NULL, NAN, &error));
    g_assert_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_INVALID);
    g_clear_error (&error);
    g_assert_false (hs_annotation_session_answer (session, 99, v1, NULL, NAN, &error));
    g_assert_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_INVALID);
    g_clear_error (&error);
    g_assert_cmpuint (count_lines (answers), ==, 3);
    g_assert_cmpuint (hs_annotation_session_get_n_answered (session), ==, 3);
  }
  {
    g_autoptr(HsAnnotationSession) session = open_session ("likert", 11, TRUE, answers, NULL);
    const HsAnnotationAnswer *answer;

    /* Resume: the first unanswered item. */
    g_assert_cmpuint (hs_annotation_session_get_n_answered (session), ==, 3);
    g_assert_cmpint (hs_annotation_session_next_unanswered (session), ==, 2);
    answer = hs_annotation_session_get_answer (session, 0);
    g_assert_nonnull (answer);
    g_assert_cmpint (answer->values[0], ==, 60);
    g_assert_cmpfloat (answer->no_attn, ==, 0.25);
    g_assert_cmpstr (answer->model, ==, hs_annotation_session_backend_model (session, 0));
    /* Answering again replaces (the last line counts). */
    g_assert_true (hs_annotation_session_answer (session, 1, v3, NULL, NAN, &error));
    g_assert_cmpint (hs_annotation_session_get_answer (session, 1)->values[0], ==, 20);
    g_assert_cmpuint (hs_annotation_session_get_n_answered (session), ==, 3);

    g_assert_true (hs_annotation_session_export_csv (session, csv_path, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
    /* The seed's columns, then who answered and when. */
    for (guint i = 0; i < 3; i++)
      g_assert_true (g_regex_match_simple ("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
                                           hs_annotation_session_get_answer (session, (guint[]) { 0, 1, 8 }[i])->time,
                                           0, 0));
    expected = g_strdup_printf (
      "dicom_sent_id,dicom_id,sent_id,checkpoint_name,prompt,has_good_recall,has_good_precision,"
      "is_intuitive,is_custom_prompt,no_attn_score,annotator,time\n"
      "i1_s1,i1,s1,%s,There is a nodule in the left lung.,60,40,4,False,0.25,alice,%s\n"
      "i1_s1,i1,s1,%s,There is a nodule in the left lung.,20,80,5,False,,alice,%s\n"
      "i1_custom-1,i1,custom-1,%s,\"left, lower lung\",20,80,5,True,,alice,%s\n",
      hs_annotation_session_backend_model (session, 0), hs_annotation_session_get_answer (session, 0)->time,
      hs_annotation_session_backend_model (session, 1), hs_annotation_session_get_answer (session, 1)->time,
      hs_annotation_session_backend_model (session, 8), hs_annotation_session_get_answer (session, 8)->time);
    g_assert_cmpstr (csv, ==, expected);
  }
}

static void
test_three_form_csv (void)
{
  g_autofree char *answers = g_build_filename (tmpdir, "three.jsonl", NULL);
  g_autoptr(HsAnnotationSession) session = open_session ("three", 1, FALSE, answers, NULL);
  g_autoptr(GPtrArray) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *expected = NULL;
  const int v[3] = { 2, 1, 0 };

  g_assert_true (hs_annotation_session_answer (session, 5, v, NULL, 0.5, &error));
  g_assert_true (hs_annotation_load_answers (answers, &loaded, NULL, &error));
  g_assert_cmpuint (loaded->len, ==, 1);
  csv = hs_annotation_answers_to_csv (loaded, HS_ANNOTATION_FORM_THREE);
  expected = g_strdup_printf (
    "dicom_sent_id,dicom_id,sent_id,checkpoint_name,prompt,is_correct,is_useful,is_precise,"
    "is_custom_prompt,no_attn_score,annotator,time\n"
    "i1_s2,i1,s2,%s,\"The right lung is clear, no effusion.\",yes,partially,no,False,0.5,alice,%s\n",
    hs_annotation_session_backend_model (session, 5), ((HsAnnotationAnswer *) loaded->pdata[0])->time);
  g_assert_cmpstr (csv, ==, expected);
  {
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (answers, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "\"correct\":\"yes\""));
    g_assert_nonnull (strstr (text, "\"useful\":\"partially\""));
    g_assert_nonnull (strstr (text, "\"alias\":\"Model B\""));
  }
  /* An answer saved without a time (older files may lack it) exports an empty cell. */
  g_clear_pointer (&((HsAnnotationAnswer *) loaded->pdata[0])->time, g_free);
  g_free (csv);
  csv = hs_annotation_answers_to_csv (loaded, HS_ANNOTATION_FORM_THREE);
  g_assert_true (g_str_has_suffix (csv, ",no,False,0.5,alice,\n"));
}

static void
test_corrupt_lines (void)
{
  g_autofree char *answers = g_build_filename (tmpdir, "corrupt.jsonl", NULL);
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *good = NULL;
  g_autofree char *text = NULL;
  g_autofree char *after = NULL;
  const int v[3] = { 0, 0, 0 };

  /* One good answer written by a session, then garbage and a cut line. */
  {
    g_autoptr(HsAnnotationSession) session = open_session ("three", 5, FALSE, answers, NULL);
    g_assert_true (hs_annotation_session_answer (session, 0, v, NULL, NAN, &error));
  }
  g_assert_true (g_file_get_contents (answers, &good, NULL, NULL));
  text = g_strdup_printf ("%snot json at all\n{\"annotator\": \"alice\", \"instance\": \"i1\"}\n"
                          "{\"annotator\": \"alice\", \"ins\xff\n%.*s", good,
                          (int) strlen (good) / 2, good);
  g_assert_true (g_file_set_contents (answers, text, -1, NULL));
  {
    g_autoptr(HsAnnotationSession) session = open_session ("three", 5, FALSE, answers, &problems);

    g_assert_cmpuint (problems->len, ==, 4);
    for (guint i = 0; i < 4; i++)
      {
        g_autofree char *prefix = g_strdup_printf ("%s:%u: ", answers, i + 2);
        g_assert_true (g_str_has_prefix (g_ptr_array_index (problems, i), prefix));
      }
    g_assert_cmpuint (hs_annotation_session_get_n_answered (session), ==, 1);
    g_assert_cmpint (hs_annotation_session_next_unanswered (session), ==, 1);
    g_assert_true (hs_annotation_session_answer (session, 1, v, NULL, NAN, &error));
    g_assert_no_error (error);
  }
  /* The unreadable lines are kept verbatim; the new answer starts a line. */
  g_assert_true (g_file_get_contents (answers, &after, NULL, NULL));
  g_assert_true (g_str_has_prefix (after, text));
  g_assert_cmpuint (count_lines (answers), ==, 6);
  {
    g_autoptr(HsAnnotationSession) session = open_session ("three", 5, FALSE, answers, NULL);
    g_assert_cmpuint (hs_annotation_session_get_n_answered (session), ==, 2);
  }
}

/* The writer: `test-annotation --answer TMPDIR ANSWERS N` answers items 0 to
 * N − 1 in order, item k − 1 with answer_values (k), each saved before the
 * next (HS_TEST_STOP_AT set by the test). */
static void
answer_values (guint k, int v[3])
{
  v[0] = k % 3;
  v[1] = (k / 3) % 3;
  v[2] = (k / 9) % 3;
}

static int
answer_child (const char *dir, const char *answers, guint n)
{
  g_autoptr(HsAnnotationSession) session = NULL;
  g_autoptr(GError) error = NULL;

  tmpdir = g_strdup (dir);
  session = open_session ("three", 9, TRUE, answers, NULL);
  for (guint k = 1; k <= n; k++)
    {
      int v[3];

      answer_values (k, v);
      if (!hs_annotation_session_answer (session, k - 1, v, "typed prompt", NAN, &error))
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
    }
  return 0;
}

/* The answers file holds exactly the first `n` answers, whole, and a new
 * session counts them and resumes at item n. */
static void
assert_answers (const char *answers, guint n)
{
  g_autoptr(GPtrArray) loaded = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAnnotationSession) session = NULL;

  if (n == 0 && !g_file_test (answers, G_FILE_TEST_EXISTS))
    loaded = g_ptr_array_new ();
  else
    {
      g_assert_true (hs_annotation_load_answers (answers, &loaded, &problems, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (problems->len, ==, 0);
    }
  g_assert_cmpuint (loaded->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      HsAnnotationAnswer *answer = g_ptr_array_index (loaded, i);
      int v[3];

      answer_values (i + 1, v);
      for (guint q = 0; q < 3; q++)
        g_assert_cmpint (answer->values[q], ==, v[q]);
    }
  session = open_session ("three", 9, TRUE, answers, NULL);
  g_assert_cmpuint (hs_annotation_session_get_n_answered (session), ==, n);
  g_assert_cmpint (hs_annotation_session_next_unanswered (session), ==, (int) n);
}

/* A writer of five answers is stopped at every phase of the save of its
 * first and of its fourth answer, then killed there: the file holds every
 * answer saved before that point and nothing else, whole. */
static void
test_kill_while_saving (void)
{
  g_autofree char *answers = g_build_filename (tmpdir, "kill.jsonl", NULL);
  g_autofree char *log = g_build_filename (tmpdir, "kill.log", NULL);
  const char *argv[] = { self_exe, "--answer", tmpdir, answers, "5", NULL };
  static const struct {
    const char *point;
    guint       saved;   /* answers on disk there: hit − 1 or hit */
  } phases[] = {
    { "annotation-answer", 0 },      /* the answer given, not written */
    { "atomic-partial", 0 },         /* half the new file in its temporary file */
    { "atomic-before-rename", 0 },   /* the new file whole, not renamed */
    { "atomic-after-rename", 1 },    /* renamed: saved */
  };
  const guint hits[] = { 1, 4 };

  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    for (guint h = 0; h < G_N_ELEMENTS (hits); h++)
      {
        g_autofree char *spec = g_strdup_printf ("%s@kill.jsonl:%u", phases[i].point, hits[h]);
        guint saved = hits[h] - 1 + phases[i].saved;
        GPid pid;

        g_unlink (answers);
        pid = hs_test_spawn_logged (argv, NULL, NULL, spec, log);
        hs_test_wait_stopped (pid, spec, log);
        assert_answers (answers, saved);
        hs_test_kill_stopped (pid);
        assert_answers (answers, saved);
        g_test_message ("killed at %s: %u answer(s) saved", spec, saved);
      }
  /* Unstopped, all five. */
  g_unlink (answers);
  hs_test_wait_exit (hs_test_spawn_logged (argv, NULL, NULL, NULL, log), log);
  assert_answers (answers, 5);
}

static void
test_session_open (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "proj", NULL);
  g_autofree char *data = g_build_filename (dir, "data", NULL);
  g_autofree char *project_path = g_build_filename (dir, "alice.json", NULL);
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAnnotationSession) session = NULL;
  const int v[3] = { 1, 1, 1 };

  g_mkdir_with_parents (data, 0755);
  dataset = make_dataset (data);
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (project_path,
    "{\"annotator\": \"alice\", \"dataset\": \"data\", \"models\": [\"grounded\", \"blind\"], "
    "\"instances\": [\"i2\"], \"answers\": \"alice.jsonl\"}", -1, NULL));
  session = hs_annotation_session_open (project_path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_annotation_session_get_n_items (session), ==, 2 * 2);
  g_assert_true (hs_annotation_session_answer (session, 0, v, NULL, NAN, &error));
  {
    g_autofree char *expected = g_build_filename (dir, "alice.jsonl", NULL);
    g_assert_cmpstr (hs_annotation_session_get_answers_path (session), ==, expected);
    g_assert_true (g_file_test (expected, G_FILE_TEST_IS_REGULAR));
  }
  g_clear_pointer (&session, hs_annotation_session_free);

  g_assert_true (g_file_set_contents (project_path,
    "{\"annotator\": \"alice\", \"dataset\": \"data\", \"models\": [\"grounded\"], "
    "\"instances\": [\"nope\"]}", -1, NULL));
  session = hs_annotation_session_open (project_path, NULL, &error);
  g_assert_null (session);
  g_assert_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "nope"));
}

/* Mutated answer files and projects (random bytes flipped, cut, NULs): a
 * clear problem per bad line, never a crash. */
static void
test_mutations (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "mutated.jsonl", NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (4242);
  const char *line =
    "{\"annotator\": \"alice\", \"instance\": \"i1\", \"round\": \"custom\", \"query\": \"custom-1\", "
    "\"prompt\": \"p\", \"model\": \"blind\", \"alias\": \"Model A\", \"form\": \"likert\", "
    "\"recall\": 40, \"precision\": 100, \"intuitive\": 5, \"no_attn\": 0.5, \"time\": null}\n";
  const char *project =
    "{\"annotator\": \"a\", \"dataset\": \"d\", \"models\": [\"m\", \"n\"], \"rounds\": [\"custom\"], "
    "\"questions\": \"likert\", \"seed\": 3, \"custom_prompts\": [\"x\"]}";

  for (guint iter = 0; iter < 250; iter++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autoptr(GString) proj = g_string_new (project);
      g_autoptr(GPtrArray) answers = NULL;
      g_autoptr(GPtrArray) problems = NULL;
      g_autoptr(GError) error = NULL;
      HsAnnotationProject *parsed;
      guint n_lines = 1 + g_rand_int_range (rand, 0, 4);

      for (guint l = 0; l < n_lines; l++)
        g_string_append (text, line);
      for (guint m = 0, n = g_rand_int_range (rand, 1, 6); m < n; m++)
        {
          guint at = g_rand_int_range (rand, 0, (gint32) text->len);
          guint pat = g_rand_int_range (rand, 0, (gint32) proj->len);

          text->str[at] = (char) g_rand_int_range (rand, 0, 256);
          proj->str[pat] = (char) g_rand_int_range (rand, 1, 256);
        }
      if (g_rand_boolean (rand))
        g_string_truncate (text, g_rand_int_range (rand, 0, (gint32) text->len));
      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
      g_assert_true (hs_annotation_load_answers (path, &answers, &problems, &error));
      g_assert_no_error (error);
      for (guint i = 0; i < answers->len; i++)
        {
          HsAnnotationAnswer *a = g_ptr_array_index (answers, i);
          g_autofree char *json = hs_annotation_answer_to_json (a);

          g_assert_true (g_utf8_validate (json, -1, NULL));
          for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
            g_assert_cmpint (hs_annotation_value_to_level (a->form, q, a->values[q]), >=, 0);
        }
      parsed = hs_annotation_project_parse (proj->str, (gssize) proj->len, "mutated.json", &error);
      g_assert_true ((parsed == NULL) == (error != NULL));
      hs_annotation_project_free (parsed);
    }
}

/* A failed save (folder gone) is an error and leaves the session as it was. */
static void
test_save_failure (void)
{
  g_autofree char *answers = g_build_filename (tmpdir, "no-such-folder", "a.jsonl", NULL);
  g_autoptr(HsAnnotationSession) session = open_session ("three", 2, FALSE, answers, NULL);
  const int v[3] = { 1, 2, 0 };
  GError *error = NULL;

  g_assert_false (hs_annotation_session_answer (session, 0, v, NULL, NAN, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "a.jsonl"));
  g_clear_error (&error);
  g_assert_cmpuint (hs_annotation_session_get_n_answered (session), ==, 0);
  g_assert_false (hs_annotation_session_is_answered (session, 0));
  g_assert_cmpint (hs_annotation_session_next_unanswered (session), ==, 0);
}

int
main (int argc, char **argv)
{
  if (argc == 5 && strcmp (argv[1], "--answer") == 0)
    return answer_child (argv[2], argv[3], (guint) atoi (argv[4]));
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_nonnull (self_exe);
  g_test_init (&argc, &argv, NULL);
  tmpdir = hs_test_make_tmpdir ();
  g_test_add_func ("/hs/annotation/project-errors", test_project_errors);
  g_test_add_func ("/hs/annotation/items-and-blinding", test_items_and_blinding);
  g_test_add_func ("/hs/annotation/load-map", test_load_map);
  g_test_add_func ("/hs/annotation/answer-resume-export", test_answer_resume_export);
  g_test_add_func ("/hs/annotation/three-form-csv", test_three_form_csv);
  g_test_add_func ("/hs/annotation/corrupt-lines", test_corrupt_lines);
  g_test_add_func ("/hs/annotation/kill-while-saving", test_kill_while_saving);
  g_test_add_func ("/hs/annotation/session-open", test_session_open);
  g_test_add_func ("/hs/annotation/mutations", test_mutations);
  g_test_add_func ("/hs/annotation/save-failure", test_save_failure);
  return g_test_run ();
}
