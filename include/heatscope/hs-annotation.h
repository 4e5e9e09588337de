/* hs-annotation.h — blinded expert annotation of heatmaps (projects, sessions,
 * crash-safe answer files, CSV export) */
#pragma once

#include <glib.h>
#include "hs-dataset.h"
#include "hs-attention-map.h"

G_BEGIN_DECLS

#define HS_ANNOTATION_ERROR (hs_annotation_error_quark ())
GQuark hs_annotation_error_quark (void);

typedef enum {
  HS_ANNOTATION_ERROR_IO,        /* a file cannot be read or written            */
  HS_ANNOTATION_ERROR_PARSE,     /* the project file is not valid JSON/schema   */
  HS_ANNOTATION_ERROR_INVALID,   /* a bad answer, index or option               */
  HS_ANNOTATION_ERROR_NOT_FOUND, /* unknown instance/model, missing map         */
} HsAnnotationError;

/* Question forms.  THREE (the seed instructions): correct, useful, precise,
 * each "no" (0), "partially" (1) or "yes" (2).  LIKERT: recall and precision
 * in percent, one of 0, 20, 40, 60, 80, 100, and intuitive 1..5. */
typedef enum {
  HS_ANNOTATION_FORM_THREE,
  HS_ANNOTATION_FORM_LIKERT,
} HsAnnotationForm;

#define HS_ANNOTATION_N_QUESTIONS 3

typedef enum {
  HS_ANNOTATION_ROUND_REPORT,   /* the instance's report sentences           */
  HS_ANNOTATION_ROUND_CUSTOM,   /* custom prompts (project list or typed)    */
} HsAnnotationRound;

const char *hs_annotation_form_to_string   (HsAnnotationForm form);     /* "three", "likert" */
gboolean    hs_annotation_form_from_string (const char *name, HsAnnotationForm *form);
const char *hs_annotation_round_to_string  (HsAnnotationRound round);   /* "report", "custom" */
/* Question names in order: {"correct","useful","precise"} or
 * {"recall","precision","intuitive"}. */
const char *const *hs_annotation_form_questions (HsAnnotationForm form);
/* Number of ordered answer levels of question q (3, or 6/6/5 for Likert). */
guint       hs_annotation_question_n_levels (HsAnnotationForm form, guint q);
/* Answer value → level 0..n_levels−1 (three: the value; recall/precision:
 * value/20; intuitive: value−1), −1 when the value is not allowed. */
int         hs_annotation_value_to_level    (HsAnnotationForm form, guint q, int value);

/* The project file (JSON):
 *   { "annotator": "alice",            required, non-empty
 *     "dataset": "../demo",            required; relative to the project file's folder
 *     "models": ["grounded", "blind"], required, 1..26 distinct names
 *     "instances": ["p0001", ...],     optional; default every instance
 *     "rounds": ["report", "custom"],  optional; default ["report"]
 *     "custom_prompts": ["left lung"], optional; custom round: these prompts for every
 *                                      instance; without it one free prompt per
 *                                      instance that the annotator types
 *     "questions": "three" | "likert", optional; default "three"
 *     "seed": 42,                      optional; default 0 (blinding permutation)
 *     "answers": "alice.jsonl" }       optional; default "<project file>.answers.jsonl",
 *                                      relative to the project file's folder */
typedef struct {
  char             *annotator;
  char             *dataset;         /* as written in the file */
  char            **models;
  char            **instances;       /* NULL = every instance */
  gboolean          round_report;
  gboolean          round_custom;
  char            **custom_prompts;  /* NULL = one typed prompt per instance */
  HsAnnotationForm  form;
  guint64           seed;
  char             *answers;         /* as written, or NULL */
  char             *path;            /* the project file, when loaded */
} HsAnnotationProject;

HsAnnotationProject *hs_annotation_project_load (const char *path, GError **error);
HsAnnotationProject *hs_annotation_project_parse (const char *text, gssize len,
                                                  const char *path_for_errors, GError **error);
void                 hs_annotation_project_free (HsAnnotationProject *project);

/* One saved answer (one line of the answers JSONL file):
 *   {"annotator": "alice", "instance": "p0001", "round": "report",
 *    "query": "s1", "prompt": "There is a nodule in the left lung.",
 *    "model": "grounded", "alias": "Model B", "form": "three",
 *    "correct": "yes", "useful": "partially", "precise": "no",
 *    "no_attn": 0.12, "time": "2026-11-22T07:00:00Z"}
 * Likert answers carry "recall": 60, "precision": 40, "intuitive": 4 instead.
 * "query" is the sentence id in the report round and "custom-<k>" (k from 1)
 * in the custom round; "no_attn" is null when the map has no No-Attn slot.
 * The real model name is stored (exports need it) but never shown while
 * annotating. */
typedef struct {
  char              *annotator;
  char              *instance;
  HsAnnotationRound  round;
  char              *query;
  char              *prompt;
  char              *model;
  char              *alias;
  HsAnnotationForm   form;
  int                values[HS_ANNOTATION_N_QUESTIONS];  /* as in the file (see form) */
  double             no_attn;                            /* NAN when absent */
  char              *time;
} HsAnnotationAnswer;

void hs_annotation_answer_free (HsAnnotationAnswer *answer);

/* Reads an answers file.  A missing file gives an empty array.  Lines that
 * are not valid answers (corrupt, truncated by a crash, wrong types) are
 * skipped and described in `problems` (char*, "FILE:LINE: message") when
 * given; only an unreadable file is an error.  `answers` holds
 * HsAnnotationAnswer* in file order. */
gboolean hs_annotation_load_answers (const char *path, GPtrArray **answers,
                                     GPtrArray **problems, GError **error);
/* One line of the file (no newline). */
char    *hs_annotation_answer_to_json (const HsAnnotationAnswer *answer);

/* CSV export of answers (the last answer per item counts), one row per item
 * in file order of first appearance.  Columns:
 *   likert: dicom_sent_id,dicom_id,sent_id,checkpoint_name,prompt,
 *           has_good_recall,has_good_precision,is_intuitive,is_custom_prompt,
 *           no_attn_score,annotator,time
 *   three:  dicom_sent_id,dicom_id,sent_id,checkpoint_name,prompt,
 *           is_correct,is_useful,is_precise,is_custom_prompt,no_attn_score,
 *           annotator,time
 * dicom_sent_id = "<instance>_<query>", dicom_id = instance, sent_id =
 * query, checkpoint_name = the real model name; has_good_recall and
 * has_good_precision in percent (0..100), is_intuitive 1..5; is_correct etc.
 * "no", "partially" or "yes"; is_custom_prompt "True"/"False"; no_attn_score
 * empty when absent; annotator and time (ISO 8601 UTC, as saved; empty for
 * an answer without one) follow the seed's columns, so a reader of the
 * seed's ten columns, by name or by position, reads these files unchanged.
 * Fields are quoted as RFC 4180 requires.  Answers of
 * the other form are left out. */
char    *hs_annotation_answers_to_csv (GPtrArray *answers, HsAnnotationForm form);

/* --- a session: what the annotator works through ------------------------- */

typedef struct _HsAnnotationSession HsAnnotationSession;

/* What the annotator sees for one item: never the real model name. */
typedef struct {
  const char        *instance;
  HsAnnotationRound  round;
  const char        *query;      /* sentence id or "custom-<k>"                  */
  const char        *prompt;     /* NULL for a custom prompt the annotator types */
  const char        *alias;      /* "Model A", "Model B", ...                    */
} HsAnnotationItem;

/* Items run instance by instance (project order), then round (report,
 * custom), then sentence (report sentences of kind "report") or custom
 * prompt, then alias A, B, ….  The aliases of an instance are a permutation
 * of the project's models drawn from (seed, instance id) alone, so they are
 * the same on every run and differ between instances.  Takes ownership of
 * `project` on success only.  Existing answers in
 * the answers file are loaded (resume); problems as for load_answers. */
HsAnnotationSession *hs_annotation_session_new  (HsAnnotationProject *project,
                                                 HsDataset *dataset,
                                                 const char *answers_path,
                                                 GPtrArray **problems, GError **error);
/* Loads the project, its dataset and its answers file. */
HsAnnotationSession *hs_annotation_session_open (const char *project_path,
                                                 GPtrArray **problems, GError **error);
void                 hs_annotation_session_free (HsAnnotationSession *session);

const HsAnnotationProject *hs_annotation_session_get_project (HsAnnotationSession *session);
HsDataset  *hs_annotation_session_get_dataset      (HsAnnotationSession *session);
const char *hs_annotation_session_get_answers_path (HsAnnotationSession *session);
guint       hs_annotation_session_get_n_items      (HsAnnotationSession *session);
guint       hs_annotation_session_get_n_answered   (HsAnnotationSession *session);
gboolean    hs_annotation_session_get_item         (HsAnnotationSession *session, guint index,
                                                    HsAnnotationItem *item);
gboolean    hs_annotation_session_is_answered      (HsAnnotationSession *session, guint index);
/* The first unanswered item (where resume continues), −1 when all are done. */
int         hs_annotation_session_next_unanswered  (HsAnnotationSession *session);
/* The precomputed map of an item (report round: by sentence id; custom
 * round: by exact prompt, `prompt` needed for typed prompts).  Fails with
 * HS_ANNOTATION_ERROR_NOT_FOUND naming the alias, never the model. */
HsAttentionMap *hs_annotation_session_load_map     (HsAnnotationSession *session, guint index,
                                                    const char *prompt, GError **error);
/* The real model of an item, ONLY for a live attention backend; callers must
 * not display it. */
const char *hs_annotation_session_backend_model    (HsAnnotationSession *session, guint index);

/* Saves an answer: values as in HsAnnotationAnswer.values (checked against
 * the form), prompt required for a typed custom prompt (else the item's),
 * no_attn NAN when absent.  The whole answers file is rewritten atomically
 * (temp file, fsync, rename: hs_atomic_write) before this returns TRUE, so
 * a crash at any moment keeps every answer saved before.  Lines of the file
 * that could not be read are kept verbatim.  Answering again replaces the
 * item's answer (a new line; the last one counts). */
gboolean    hs_annotation_session_answer           (HsAnnotationSession *session, guint index,
                                                    const int values[HS_ANNOTATION_N_QUESTIONS],
                                                    const char *prompt, double no_attn,
                                                    GError **error);
/* The last answer of an item, or NULL.  It holds the real model name: show
 * only its answer values while annotating. */
const HsAnnotationAnswer *hs_annotation_session_get_answer (HsAnnotationSession *session,
                                                            guint index);
/* Writes hs_annotation_answers_to_csv of the session's answers atomically. */
gboolean    hs_annotation_session_export_csv       (HsAnnotationSession *session, const char *path,
                                                    GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsAnnotationProject, hs_annotation_project_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsAnnotationSession, hs_annotation_session_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsAnnotationAnswer, hs_annotation_answer_free)

G_END_DECLS
