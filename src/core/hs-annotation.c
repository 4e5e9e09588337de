/* hs-annotation.c — annotation projects, blinded sessions, answer files */
#include "hs-json-guard-private.h"
#include "hs-random-private.h"
#include "heatscope/hs-annotation.h"
#include "heatscope/hs-atomic-file.h"
#include "heatscope/hs-csv.h"
#include "heatscope/hs-stop-point.h"
#include "heatscope/hs-limits.h"
#include "hs-i18n-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-annotation-error-quark, hs_annotation_error)

#define MAX_MODELS 26

static const char * const three_questions[] = { "correct", "useful", "precise", NULL };
static const char * const likert_questions[] = { "recall", "precision", "intuitive", NULL };
static const char * const three_levels[] = { "no", "partially", "yes" };

const char *
hs_annotation_form_to_string (HsAnnotationForm form)
{
  return form == HS_ANNOTATION_FORM_LIKERT ? "likert" : "three";
}

gboolean
hs_annotation_form_from_string (const char *name, HsAnnotationForm *form)
{
  g_return_val_if_fail (form != NULL, FALSE);
  if (g_strcmp0 (name, "three") == 0)
    *form = HS_ANNOTATION_FORM_THREE;
  else if (g_strcmp0 (name, "likert") == 0)
    *form = HS_ANNOTATION_FORM_LIKERT;
  else
    return FALSE;
  return TRUE;
}

const char *
hs_annotation_round_to_string (HsAnnotationRound round)
{
  return round == HS_ANNOTATION_ROUND_CUSTOM ? "custom" : "report";
}

const char * const *
hs_annotation_form_questions (HsAnnotationForm form)
{
  return form == HS_ANNOTATION_FORM_LIKERT ? likert_questions : three_questions;
}

guint
hs_annotation_question_n_levels (HsAnnotationForm form, guint q)
{
  g_return_val_if_fail (q < HS_ANNOTATION_N_QUESTIONS, 0);
  if (form == HS_ANNOTATION_FORM_THREE)
    return 3;
  return q == 2 ? 5 : 6;
}

int
hs_annotation_value_to_level (HsAnnotationForm form, guint q, int value)
{
  g_return_val_if_fail (q < HS_ANNOTATION_N_QUESTIONS, -1);
  if (form == HS_ANNOTATION_FORM_THREE)
    return value >= 0 && value <= 2 ? value : -1;
  if (q == 2)
    return value >= 1 && value <= 5 ? value - 1 : -1;
  return value >= 0 && value <= 100 && value % 20 == 0 ? value / 20 : -1;
}

/* --- the blinding permutation ------------------------------------------- */

/* perm[alias] = model index: Fisher–Yates over the splitmix64 stream of
 * seed ^ hash(instance id) (hs-random-private.h), unbiased bounded draws. */
static void
blind_permutation (guint64 seed, const char *instance, guint n, guint *perm)
{
  HsRandom rng;

  hs_random_init (&rng, seed ^ hs_random_hash_string (instance));
  for (guint i = 0; i < n; i++)
    perm[i] = i;
  for (guint i = n; i > 1; i--)
    {
      guint j = hs_random_below (&rng, i);
      guint t = perm[i - 1];

      perm[i - 1] = perm[j];
      perm[j] = t;
    }
}

/* --- project ------------------------------------------------------------- */

void
hs_annotation_project_free (HsAnnotationProject *project)
{
  if (project == NULL)
    return;
  g_free (project->annotator);
  g_free (project->dataset);
  g_strfreev (project->models);
  g_strfreev (project->instances);
  g_strfreev (project->custom_prompts);
  g_free (project->answers);
  g_free (project->path);
  g_free (project);
}

static gboolean
read_string_array (JsonObject *root, const char *key, char ***out, gboolean non_empty,
                   const char *file, GError **error)
{
  JsonNode *node = json_object_get_member (root, key);
  JsonArray *array;
  GPtrArray *list;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    goto bad;
  array = json_node_get_array (node);
  /* the strings are freed with the array when an element is refused */
  list = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_STRING ||
          (non_empty && *json_node_get_string (item) == '\0'))
        {
          g_ptr_array_free (list, TRUE);
          goto bad;
        }
      g_ptr_array_add (list, g_strdup (json_node_get_string (item)));
    }
  g_ptr_array_add (list, NULL);
  *out = (char **) g_ptr_array_free (list, FALSE);
  return TRUE;

bad:
  g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
               non_empty ? _("%s: \"%s\" must be an array of non-empty strings")
                         : _("%s: \"%s\" must be an array of strings"), file, key);
  return FALSE;
}

static const char *
get_string (JsonObject *object, const char *key)
{
  JsonNode *node = json_object_get_member (object, key);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

HsAnnotationProject *
hs_annotation_project_parse (const char *text, gssize len, const char *path_for_errors,
                             GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(HsAnnotationProject) project = g_new0 (HsAnnotationProject, 1);
  g_autoptr(GError) parse_error = NULL;
  const char *file = path_for_errors ? path_for_errors : "project";
  g_auto(GStrv) rounds = NULL;
  JsonObject *root;
  JsonNode *node;
  const char *s;

  g_return_val_if_fail (text != NULL, NULL);

  if (!hs_json_parser_load_data (parser, text, len, &parse_error))
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                   _("%s: not a valid JSON file: %s"), file, parse_error->message);
      return NULL;
    }
  node = json_parser_get_root (parser);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                   _("%s: the project must be a JSON object"), file);
      return NULL;
    }
  root = json_node_get_object (node);

  s = get_string (root, "annotator");
  if (s == NULL || *s == '\0')
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                   _("%s: \"annotator\" (a non-empty string) is required"), file);
      return NULL;
    }
  project->annotator = g_strdup (s);
  s = get_string (root, "dataset");
  if (s == NULL || *s == '\0')
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                   _("%s: \"dataset\" (a path) is required"), file);
      return NULL;
    }
  project->dataset = g_strdup (s);
  if (!read_string_array (root, "models", &project->models, TRUE, file, error) ||
      !read_string_array (root, "instances", &project->instances, TRUE, file, error) ||
      !read_string_array (root, "custom_prompts", &project->custom_prompts, TRUE, file, error) ||
      !read_string_array (root, "rounds", &rounds, TRUE, file, error))
    return NULL;
  if (project->models == NULL || project->models[0] == NULL ||
      g_strv_length (project->models) > MAX_MODELS)
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                   _("%s: \"models\" must name 1 to %d models"), file, MAX_MODELS);
      return NULL;
    }
  for (guint i = 0; project->models[i] != NULL; i++)
    for (guint j = 0; j < i; j++)
      if (strcmp (project->models[i], project->models[j]) == 0)
        {
          g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                       _("%s: model \"%s\" is listed twice"), file, project->models[i]);
          return NULL;
        }
  if (rounds == NULL)
    project->round_report = TRUE;
  for (guint i = 0; rounds != NULL && rounds[i] != NULL; i++)
    {
      if (strcmp (rounds[i], "report") == 0)
        project->round_report = TRUE;
      else if (strcmp (rounds[i], "custom") == 0)
        project->round_custom = TRUE;
      else
        {
          g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                       _("%s: unknown round \"%s\" (report, custom)"), file, rounds[i]);
          return NULL;
        }
    }
  node = json_object_get_member (root, "questions");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      s = get_string (root, "questions");
      if (!hs_annotation_form_from_string (s, &project->form))
        {
          g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                       _("%s: \"questions\" must be \"three\" or \"likert\""), file);
          return NULL;
        }
    }
  node = json_object_get_member (root, "seed");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
          json_node_get_int (node) < 0)
        {
          g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                       _("%s: \"seed\" must be a non-negative integer"), file);
          return NULL;
        }
      project->seed = (guint64) json_node_get_int (node);
    }
  s = get_string (root, "answers");
  if (s != NULL && *s != '\0')
    {
      g_auto(GStrv) parts = g_strsplit (s, "/", -1);
      gboolean escapes = g_path_is_absolute (s);

      /* The session writes (replaces) this file: a project received from
       * someone else must not point it at the user's other files. */
      for (guint i = 0; parts[i] != NULL; i++)
        escapes = escapes || strcmp (parts[i], "..") == 0;
      if (escapes)
        {
          g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE,
                       _("%s: \"answers\" must be a file inside the project's folder "
                       "(no absolute path, no '..')"), file);
          return NULL;
        }
      project->answers = g_strdup (s);
    }
  return g_steal_pointer (&project);
}

HsAnnotationProject *
hs_annotation_project_load (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) io_error = NULL;
  gsize len;
  HsAnnotationProject *project;

  g_return_val_if_fail (path != NULL, NULL);
  if (!g_file_get_contents (path, &text, &len, &io_error))
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_IO, "%s", io_error->message);
      return NULL;
    }
  project = hs_annotation_project_parse (text, (gssize) len, path, error);
  if (project != NULL)
    project->path = g_strdup (path);
  return project;
}

/* --- answers ------------------------------------------------------------- */

void
hs_annotation_answer_free (HsAnnotationAnswer *answer)
{
  if (answer == NULL)
    return;
  g_free (answer->annotator);
  g_free (answer->instance);
  g_free (answer->query);
  g_free (answer->prompt);
  g_free (answer->model);
  g_free (answer->alias);
  g_free (answer->time);
  g_free (answer);
}

static void
json_add_string_or_null (JsonBuilder *builder, const char *key, const char *value)
{
  json_builder_set_member_name (builder, key);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

char *
hs_annotation_answer_to_json (const HsAnnotationAnswer *answer)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  const char * const *questions;

  g_return_val_if_fail (answer != NULL, NULL);

  questions = hs_annotation_form_questions (answer->form);
  json_builder_begin_object (builder);
  json_add_string_or_null (builder, "annotator", answer->annotator);
  json_add_string_or_null (builder, "instance", answer->instance);
  json_add_string_or_null (builder, "round", hs_annotation_round_to_string (answer->round));
  json_add_string_or_null (builder, "query", answer->query);
  json_add_string_or_null (builder, "prompt", answer->prompt);
  json_add_string_or_null (builder, "model", answer->model);
  json_add_string_or_null (builder, "alias", answer->alias);
  json_add_string_or_null (builder, "form", hs_annotation_form_to_string (answer->form));
  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    {
      json_builder_set_member_name (builder, questions[q]);
      if (answer->form == HS_ANNOTATION_FORM_THREE)
        json_builder_add_string_value (builder, three_levels[CLAMP (answer->values[q], 0, 2)]);
      else
        json_builder_add_int_value (builder, answer->values[q]);
    }
  json_builder_set_member_name (builder, "no_attn");
  if (isfinite (answer->no_attn))
    json_builder_add_double_value (builder, answer->no_attn);
  else
    json_builder_add_null_value (builder);
  json_add_string_or_null (builder, "time", answer->time);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  return json_generator_to_data (generator, NULL);
}

/* Parses one line; on failure returns NULL and sets *why (static text). */
static HsAnnotationAnswer *
parse_answer_line (JsonParser *parser, const char *line, gsize len, const char **why)
{
  g_autoptr(HsAnnotationAnswer) answer = g_new0 (HsAnnotationAnswer, 1);
  const char * const *questions;
  JsonObject *object;
  JsonNode *node;
  const char *s;

  if (!g_utf8_validate (line, (gssize) len, NULL))
    {
      *why = "not valid UTF-8";
      return NULL;
    }
  if (!hs_json_parser_load_data (parser, line, (gssize) len, NULL))
    {
      *why = "not valid JSON (truncated or corrupt line)";
      return NULL;
    }
  node = json_parser_get_root (parser);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      *why = "not a JSON object";
      return NULL;
    }
  object = json_node_get_object (node);
  *why = "missing or non-string \"annotator\", \"instance\", \"query\", \"model\" or \"alias\"";
#define DUP_REQUIRED(field)                                              \
  if ((s = get_string (object, #field)) == NULL) return NULL;           \
  answer->field = g_strdup (s);
  DUP_REQUIRED (annotator)
  DUP_REQUIRED (instance)
  DUP_REQUIRED (query)
  DUP_REQUIRED (model)
  DUP_REQUIRED (alias)
#undef DUP_REQUIRED
  answer->prompt = g_strdup (get_string (object, "prompt"));
  answer->time = g_strdup (get_string (object, "time"));
  s = get_string (object, "round");
  if (g_strcmp0 (s, "report") == 0)
    answer->round = HS_ANNOTATION_ROUND_REPORT;
  else if (g_strcmp0 (s, "custom") == 0)
    answer->round = HS_ANNOTATION_ROUND_CUSTOM;
  else
    {
      *why = "\"round\" must be \"report\" or \"custom\"";
      return NULL;
    }
  if (!hs_annotation_form_from_string (get_string (object, "form"), &answer->form))
    {
      *why = "\"form\" must be \"three\" or \"likert\"";
      return NULL;
    }
  questions = hs_annotation_form_questions (answer->form);
  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    {
      node = json_object_get_member (object, questions[q]);
      answer->values[q] = -1;
      if (answer->form == HS_ANNOTATION_FORM_THREE)
        {
          s = get_string (object, questions[q]);
          for (int l = 0; l < 3 && s != NULL; l++)
            if (strcmp (s, three_levels[l]) == 0)
              answer->values[q] = l;
        }
      else if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
               json_node_get_value_type (node) == G_TYPE_INT64 &&
               json_node_get_int (node) >= G_MININT && json_node_get_int (node) <= G_MAXINT)
        answer->values[q] = (int) json_node_get_int (node);
      if (hs_annotation_value_to_level (answer->form, q, answer->values[q]) < 0)
        {
          *why = answer->form == HS_ANNOTATION_FORM_THREE
            ? "an answer is missing or not \"no\", \"partially\" or \"yes\""
            : "an answer is missing or out of range (recall/precision 0, 20, ..., 100; intuitive 1..5)";
          return NULL;
        }
    }
  answer->no_attn = NAN;
  node = json_object_get_member (object, "no_attn");
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node))
    {
      GType type = json_node_get_value_type (node);

      if (type == G_TYPE_DOUBLE || type == G_TYPE_INT64)
        answer->no_attn = json_node_get_double (node);
    }
  return g_steal_pointer (&answer);
}

/* Splits `text` into lines, parsing each; good lines go to `answers`. */
static void
parse_answers_text (const char *path, const char *text, gsize len, GPtrArray *answers,
                    GPtrArray *problems)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *p = text, *end = text + len;
  guint line_no = 0;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *line_end = nl ? nl : end;
      gsize line_len = (gsize) (line_end - p);
      const char *why = NULL;
      HsAnnotationAnswer *answer;

      line_no++;
      if (line_len > 0 && p[line_len - 1] == '\r')
        line_len--;
      if (line_len > 0 && strspn (p, " \t") < line_len)
        {
          answer = memchr (p, '\0', line_len) ? NULL : parse_answer_line (parser, p, line_len, &why);
          if (why == NULL)
            why = "contains a NUL byte";
          if (answer != NULL)
            g_ptr_array_add (answers, answer);
          else if (problems != NULL)
            g_ptr_array_add (problems, g_strdup_printf ("%s:%u: %s; line skipped", path, line_no, why));
        }
      p = nl ? nl + 1 : end;
    }
}

gboolean
hs_annotation_load_answers (const char *path, GPtrArray **answers, GPtrArray **problems,
                            GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) io_error = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL && answers != NULL, FALSE);

  *answers = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_annotation_answer_free);
  if (problems != NULL && *problems == NULL)
    *problems = g_ptr_array_new_with_free_func (g_free);
  if (!g_file_get_contents (path, &text, &len, &io_error))
    {
      if (g_error_matches (io_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_IO, "%s", io_error->message);
      g_clear_pointer (answers, g_ptr_array_unref);
      return FALSE;
    }
  if (len > hs_limits_get ()->max_manifest_bytes)
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_IO,
                   _("%s: answers file of %zu bytes is over the limit"), path, len);
      g_clear_pointer (answers, g_ptr_array_unref);
      return FALSE;
    }
  parse_answers_text (path, text, len, *answers, problems ? *problems : NULL);
  return TRUE;
}

static char *
answer_key (const HsAnnotationAnswer *a)
{
  return g_strdup_printf ("%s\x1f%s\x1f%s\x1f%s", a->instance,
                          hs_annotation_round_to_string (a->round), a->query, a->model);
}

char *
hs_annotation_answers_to_csv (GPtrArray *answers, HsAnnotationForm form)
{
  g_autoptr(GHashTable) last = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (answers != NULL, NULL);

  if (form == HS_ANNOTATION_FORM_LIKERT)
    g_string_append (out, "dicom_sent_id,dicom_id,sent_id,checkpoint_name,prompt,has_good_recall,"
                          "has_good_precision,is_intuitive,is_custom_prompt,no_attn_score,"
                          "annotator,time\n");
  else
    g_string_append (out, "dicom_sent_id,dicom_id,sent_id,checkpoint_name,prompt,is_correct,"
                          "is_useful,is_precise,is_custom_prompt,no_attn_score,annotator,time\n");
  for (guint i = 0; i < answers->len; i++)
    {
      HsAnnotationAnswer *a = g_ptr_array_index (answers, i);
      char *key;

      if (a->form != form)
        continue;
      key = answer_key (a);
      if (!g_hash_table_contains (last, key))
        g_ptr_array_add (order, key);
      g_hash_table_insert (last, key, a);
    }
  for (guint i = 0; i < order->len; i++)
    {
      HsAnnotationAnswer *a = g_hash_table_lookup (last, g_ptr_array_index (order, i));
      g_autofree char *sent = g_strdup_printf ("%s_%s", a->instance, a->query);

      hs_csv_append_field (out, sent);
      g_string_append_c (out, ',');
      hs_csv_append_field (out, a->instance);
      g_string_append_c (out, ',');
      hs_csv_append_field (out, a->query);
      g_string_append_c (out, ',');
      hs_csv_append_field (out, a->model);
      g_string_append_c (out, ',');
      hs_csv_append_field (out, a->prompt);
      for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
        {
          if (form == HS_ANNOTATION_FORM_THREE)
            g_string_append_printf (out, ",%s", three_levels[CLAMP (a->values[q], 0, 2)]);
          else
            g_string_append_printf (out, ",%d", a->values[q]);
        }
      g_string_append_printf (out, ",%s,", a->round == HS_ANNOTATION_ROUND_CUSTOM ? "True" : "False");
      if (isfinite (a->no_attn))
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_string_append (out, g_ascii_dtostr (buf, sizeof buf, a->no_attn));
        }
      /* Who answered and when (ISO 8601, UTC), after the seed's columns so
       * readers that take those by position still read them; empty for an
       * answer saved without a time. */
      g_string_append_c (out, ',');
      hs_csv_append_field (out, a->annotator);
      g_string_append_c (out, ',');
      if (a->time != NULL)
        hs_csv_append_field (out, a->time);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/* --- session ------------------------------------------------------------- */

typedef struct {
  guint              instance;   /* index into session->instances */
  HsAnnotationRound  round;
  char              *query;
  const char        *prompt;     /* borrowed (sentence text or project prompt), or NULL */
  guint              alias;
  guint              model;      /* index into project->models */
  const HsAnnotationAnswer *answer;  /* last answer, borrowed from session->answers */
} Item;

struct _HsAnnotationSession {
  HsAnnotationProject *project;
  HsDataset           *dataset;
  char                *answers_path;
  GPtrArray           *instances;   /* HsInstance*, borrowed from the dataset */
  GArray              *items;       /* of Item */
  GHashTable          *index;       /* answer key → item index + 1 */
  GPtrArray           *answers;     /* HsAnnotationAnswer* */
  GString             *file_text;   /* the answers file as on disk */
  char               **aliases;     /* "Model A", ... */
  guint                n_answered;
};

static void
item_clear (gpointer data)
{
  g_free (((Item *) data)->query);
}

void
hs_annotation_session_free (HsAnnotationSession *session)
{
  if (session == NULL)
    return;
  hs_annotation_project_free (session->project);
  g_clear_pointer (&session->dataset, hs_dataset_unref);
  g_free (session->answers_path);
  g_clear_pointer (&session->instances, g_ptr_array_unref);
  g_clear_pointer (&session->items, g_array_unref);
  g_clear_pointer (&session->index, g_hash_table_unref);
  g_clear_pointer (&session->answers, g_ptr_array_unref);
  if (session->file_text != NULL)
    g_string_free (session->file_text, TRUE);
  g_strfreev (session->aliases);
  g_free (session);
}

static char *
item_key (HsAnnotationSession *session, const Item *item)
{
  HsInstance *instance = g_ptr_array_index (session->instances, item->instance);

  return g_strdup_printf ("%s\x1f%s\x1f%s\x1f%s", instance->id,
                          hs_annotation_round_to_string (item->round), item->query,
                          session->project->models[item->model]);
}

/* Attaches an answer to its item; answers of other annotators' items,
 * models or forms are kept in the file but not attached. */
static void
attach_answer (HsAnnotationSession *session, const HsAnnotationAnswer *answer)
{
  g_autofree char *key = NULL;
  gpointer value;
  Item *item;

  if (answer->form != session->project->form)
    return;
  key = answer_key (answer);
  value = g_hash_table_lookup (session->index, key);
  if (value == NULL)
    return;
  item = &g_array_index (session->items, Item, GPOINTER_TO_UINT (value) - 1);
  if (item->answer == NULL)
    session->n_answered++;
  item->answer = answer;
}

static void
add_items (HsAnnotationSession *session, guint inst, HsAnnotationRound round, const char *query,
           const char *prompt, const guint *perm)
{
  guint n_models = g_strv_length (session->project->models);

  for (guint a = 0; a < n_models; a++)
    {
      Item item = { inst, round, g_strdup (query), prompt, a, perm[a], NULL };
      char *key;

      g_array_append_val (session->items, item);
      key = item_key (session, &item);
      g_hash_table_insert (session->index, key, GUINT_TO_POINTER (session->items->len));
    }
}

HsAnnotationSession *
hs_annotation_session_new (HsAnnotationProject *project, HsDataset *dataset,
                           const char *answers_path, GPtrArray **problems, GError **error)
{
  g_autoptr(HsAnnotationSession) session = g_new0 (HsAnnotationSession, 1);
  g_autofree guint *perm = NULL;
  g_autoptr(GError) io_error = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;
  guint n_models;

  g_return_val_if_fail (project != NULL && dataset != NULL && answers_path != NULL, NULL);

  session->project = project;
  session->dataset = hs_dataset_ref (dataset);
  session->answers_path = g_strdup (answers_path);
  session->instances = g_ptr_array_new ();
  session->items = g_array_new (FALSE, FALSE, sizeof (Item));
  g_array_set_clear_func (session->items, item_clear);
  session->index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  session->answers = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_annotation_answer_free);
  session->file_text = g_string_new (NULL);

  n_models = g_strv_length (project->models);
  session->aliases = g_new0 (char *, n_models + 1);
  for (guint a = 0; a < n_models; a++)
    session->aliases[a] = g_strdup_printf ("Model %c", 'A' + a);

  if (project->instances != NULL)
    for (guint i = 0; project->instances[i] != NULL; i++)
      {
        HsInstance *instance = hs_dataset_find_instance (dataset, project->instances[i]);

        if (instance == NULL)
          {
            g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_NOT_FOUND,
                         _("%s: instance \"%s\" is not in the dataset %s"),
                         project->path ? project->path : "project", project->instances[i],
                         hs_dataset_get_manifest_path (dataset));
            session->project = NULL;
            return NULL;
          }
        g_ptr_array_add (session->instances, instance);
      }
  else
    for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
      g_ptr_array_add (session->instances, hs_dataset_get_instance (dataset, i));

  perm = g_new (guint, n_models);
  for (guint i = 0; i < session->instances->len; i++)
    {
      HsInstance *instance = g_ptr_array_index (session->instances, i);

      blind_permutation (project->seed, instance->id, n_models, perm);
      if (project->round_report)
        for (guint s = 0; s < instance->sentences->len; s++)
          {
            HsSentence *sentence = g_ptr_array_index (instance->sentences, s);

            if (sentence->kind != NULL && strcmp (sentence->kind, "report") != 0)
              continue;
            add_items (session, i, HS_ANNOTATION_ROUND_REPORT, sentence->id, sentence->text, perm);
          }
      if (project->round_custom)
        {
          guint n = project->custom_prompts ? g_strv_length (project->custom_prompts) : 1;

          for (guint k = 0; k < n; k++)
            {
              g_autofree char *query = g_strdup_printf ("custom-%u", k + 1);

              add_items (session, i, HS_ANNOTATION_ROUND_CUSTOM, query,
                         project->custom_prompts ? project->custom_prompts[k] : NULL, perm);
            }
        }
    }

  if (!g_file_get_contents (answers_path, &text, &len, &io_error) &&
      !g_error_matches (io_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_IO, "%s", io_error->message);
      session->project = NULL;
      return NULL;
    }
  if (text != NULL)
    {
      if (problems != NULL && *problems == NULL)
        *problems = g_ptr_array_new_with_free_func (g_free);
      parse_answers_text (answers_path, text, len, session->answers,
                          problems ? *problems : NULL);
      g_string_append_len (session->file_text, text, (gssize) len);
    }
  for (guint i = 0; i < session->answers->len; i++)
    attach_answer (session, g_ptr_array_index (session->answers, i));
  return g_steal_pointer (&session);
}

HsAnnotationSession *
hs_annotation_session_open (const char *project_path, GPtrArray **problems, GError **error)
{
  g_autoptr(HsAnnotationProject) project = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *dataset_path = NULL;
  g_autofree char *answers_path = NULL;
  HsAnnotationSession *session;

  g_return_val_if_fail (project_path != NULL, NULL);

  project = hs_annotation_project_load (project_path, error);
  if (project == NULL)
    return NULL;
  dir = g_path_get_dirname (project_path);
  dataset_path = g_path_is_absolute (project->dataset)
    ? g_strdup (project->dataset) : g_build_filename (dir, project->dataset, NULL);
  if (project->answers == NULL)
    answers_path = g_strdup_printf ("%s.answers.jsonl", project_path);
  else
    answers_path = g_path_is_absolute (project->answers)
      ? g_strdup (project->answers) : g_build_filename (dir, project->answers, NULL);
  dataset = hs_dataset_load (dataset_path, error);
  if (dataset == NULL)
    {
      g_prefix_error (error, _("%s: dataset: "), project_path);
      return NULL;
    }
  session = hs_annotation_session_new (project, dataset, answers_path, problems, error);
  if (session != NULL)
    project = NULL;   /* owned by the session now */
  return session;
}

const HsAnnotationProject *
hs_annotation_session_get_project (HsAnnotationSession *session)
{
  g_return_val_if_fail (session != NULL, NULL);
  return session->project;
}

HsDataset *
hs_annotation_session_get_dataset (HsAnnotationSession *session)
{
  g_return_val_if_fail (session != NULL, NULL);
  return session->dataset;
}

const char *
hs_annotation_session_get_answers_path (HsAnnotationSession *session)
{
  g_return_val_if_fail (session != NULL, NULL);
  return session->answers_path;
}

guint
hs_annotation_session_get_n_items (HsAnnotationSession *session)
{
  g_return_val_if_fail (session != NULL, 0);
  return session->items->len;
}

guint
hs_annotation_session_get_n_answered (HsAnnotationSession *session)
{
  g_return_val_if_fail (session != NULL, 0);
  return session->n_answered;
}

gboolean
hs_annotation_session_get_item (HsAnnotationSession *session, guint index, HsAnnotationItem *out)
{
  Item *item;

  g_return_val_if_fail (session != NULL && out != NULL, FALSE);
  if (index >= session->items->len)
    return FALSE;
  item = &g_array_index (session->items, Item, index);
  out->instance = ((HsInstance *) g_ptr_array_index (session->instances, item->instance))->id;
  out->round = item->round;
  out->query = item->query;
  out->prompt = item->prompt;
  out->alias = session->aliases[item->alias];
  return TRUE;
}

gboolean
hs_annotation_session_is_answered (HsAnnotationSession *session, guint index)
{
  g_return_val_if_fail (session != NULL, FALSE);
  return index < session->items->len && g_array_index (session->items, Item, index).answer != NULL;
}

const HsAnnotationAnswer *
hs_annotation_session_get_answer (HsAnnotationSession *session, guint index)
{
  g_return_val_if_fail (session != NULL, NULL);
  return index < session->items->len ? g_array_index (session->items, Item, index).answer : NULL;
}

int
hs_annotation_session_next_unanswered (HsAnnotationSession *session)
{
  g_return_val_if_fail (session != NULL, -1);
  for (guint i = 0; i < session->items->len; i++)
    if (g_array_index (session->items, Item, i).answer == NULL)
      return (int) MIN (i, (guint) G_MAXINT);
  return -1;
}

const char *
hs_annotation_session_backend_model (HsAnnotationSession *session, guint index)
{
  g_return_val_if_fail (session != NULL, NULL);
  if (index >= session->items->len)
    return NULL;
  return session->project->models[g_array_index (session->items, Item, index).model];
}

HsAttentionMap *
hs_annotation_session_load_map (HsAnnotationSession *session, guint index, const char *prompt,
                                GError **error)
{
  Item *item;
  HsInstance *instance;
  HsMapRef *ref;
  const char *model;

  g_return_val_if_fail (session != NULL, NULL);
  if (index >= session->items->len)
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_INVALID,
                   _("no annotation item %u (of %u)"), index, session->items->len);
      return NULL;
    }
  item = &g_array_index (session->items, Item, index);
  instance = g_ptr_array_index (session->instances, item->instance);
  model = session->project->models[item->model];
  if (item->round == HS_ANNOTATION_ROUND_REPORT)
    ref = hs_instance_find_map (instance, model, item->query);
  else
    {
      if (item->prompt != NULL)
        prompt = item->prompt;
      ref = prompt != NULL ? hs_instance_find_map_by_prompt (instance, model, prompt) : NULL;
    }
  if (ref == NULL)
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_NOT_FOUND,
                   _("%s: no precomputed map of %s for %s \"%s\" in instance \"%s\""),
                   hs_dataset_get_manifest_path (session->dataset), session->aliases[item->alias],
                   item->round == HS_ANNOTATION_ROUND_REPORT ? _("sentence") : _("prompt"),
                   item->round == HS_ANNOTATION_ROUND_REPORT ? item->query : (prompt ? prompt : ""),
                   instance->id);
      return NULL;
    }
  return hs_dataset_load_map (session->dataset, ref, error);
}

gboolean
hs_annotation_session_answer (HsAnnotationSession *session, guint index,
                              const int values[HS_ANNOTATION_N_QUESTIONS], const char *prompt,
                              double no_attn, GError **error)
{
  g_autoptr(HsAnnotationAnswer) answer = NULL;
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *line = NULL;
  gsize old_len;
  Item *item;
  HsInstance *instance;

  g_return_val_if_fail (session != NULL && values != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (index >= session->items->len)
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_INVALID,
                   _("no annotation item %u (of %u)"), index, session->items->len);
      return FALSE;
    }
  /* A kill test may stop here: the answer given, nothing of it saved yet. */
  hs_stop_point_file ("annotation-answer", session->answers_path);
  item = &g_array_index (session->items, Item, index);
  instance = g_ptr_array_index (session->instances, item->instance);
  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    if (hs_annotation_value_to_level (session->project->form, q, values[q]) < 0)
      {
        g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_INVALID,
                     _("answer %d to \"%s\" is not allowed by the %s form"), values[q],
                     hs_annotation_form_questions (session->project->form)[q],
                     hs_annotation_form_to_string (session->project->form));
        return FALSE;
      }
  if (item->prompt != NULL)
    prompt = item->prompt;
  if (prompt == NULL || *prompt == '\0' || !g_utf8_validate (prompt, -1, NULL))
    {
      g_set_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_INVALID,
                   _("a custom prompt (valid UTF-8, not empty) is needed for this answer"));
      return FALSE;
    }

  now = g_date_time_new_now_utc ();
  answer = g_new0 (HsAnnotationAnswer, 1);
  answer->annotator = g_strdup (session->project->annotator);
  answer->instance = g_strdup (instance->id);
  answer->round = item->round;
  answer->query = g_strdup (item->query);
  answer->prompt = g_strdup (prompt);
  answer->model = g_strdup (session->project->models[item->model]);
  answer->alias = g_strdup (session->aliases[item->alias]);
  answer->form = session->project->form;
  memcpy (answer->values, values, sizeof answer->values);
  answer->no_attn = isfinite (no_attn) ? no_attn : NAN;
  answer->time = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");

  line = hs_annotation_answer_to_json (answer);
  old_len = session->file_text->len;
  /* A line cut short by a crash stays on its own line. */
  if (old_len > 0 && session->file_text->str[old_len - 1] != '\n')
    g_string_append_c (session->file_text, '\n');
  g_string_append (session->file_text, line);
  g_string_append_c (session->file_text, '\n');
  if (!hs_atomic_write (session->answers_path, session->file_text->str, session->file_text->len,
                        error))
    {
      g_string_truncate (session->file_text, old_len);
      return FALSE;
    }
  g_ptr_array_add (session->answers, answer);
  attach_answer (session, g_steal_pointer (&answer));
  return TRUE;
}

gboolean
hs_annotation_session_export_csv (HsAnnotationSession *session, const char *path, GError **error)
{
  g_autofree char *csv = NULL;

  g_return_val_if_fail (session != NULL && path != NULL, FALSE);
  csv = hs_annotation_answers_to_csv (session->answers, session->project->form);
  return hs_atomic_write (path, csv, strlen (csv), error);
}
