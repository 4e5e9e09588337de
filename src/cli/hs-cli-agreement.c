/* hs-cli-agreement.c — heatscope-cli agreement FILE... : agreement between
 * annotators, one annotation answers file (JSONL) per annotator */
#include "hs-cli.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static char *
unit_key (const HsAnnotationAnswer *a)
{
  return g_strdup_printf ("%s\x1f%s\x1f%s\x1f%s", a->instance,
                          hs_annotation_round_to_string (a->round), a->query, a->model);
}

static void
print_value (double value)
{
  if (isnan (value))
    printf ("  %10s", "n/a");
  else
    printf ("  %10.4f", value);
}

int
hs_cli_agreement (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GHashTable) units = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) unit_order = g_ptr_array_new ();
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  g_autoptr(GString) json = g_string_new ("{");
  g_autoptr(GHashTable) annotator_file = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree int *ratings = NULL;
  const char * const *questions;
  gboolean as_json = FALSE, have_form = FALSE;
  HsAnnotationForm form = HS_ANNOTATION_FORM_THREE;
  guint n_coders, n_units;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print one JSON object keyed by question", NULL },
    { NULL }
  };

  context = g_option_context_new ("FILE... — agreement between annotators");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Each FILE is the answers file (JSONL) of one annotator.  A unit is an item\n"
    "(instance, round, query, real model); when a file answers an item twice the last\n"
    "answer counts.  Per question: percent agreement, Cohen's kappa (exactly two files,\n"
    "else null), Fleiss' kappa (units answered in every file), Krippendorff's alpha\n"
    "ordinal and nominal (units answered in at least two files).  See hs-agreement.h.\n"
    "Unreadable lines are reported on standard error (FILE:LINE) and skipped.");
  if (!hs_cli_parse (context, &argc, &argv, "agreement"))
    return HS_CLI_EXIT_USAGE;
  if (argc < 2)
    {
      hs_cli_error ("agreement", "missing FILE (one answers file per annotator)");
      return HS_CLI_EXIT_USAGE;
    }

  n_coders = (guint) argc - 1;
  /* One file is one annotator: the same file twice (by any name) or one
   * annotator in two files would count the same answers as agreement. */
  for (guint f = 0; f < n_coders; f++)
    for (guint e = 0; e < f; e++)
      {
        GStatBuf a, b;

        if (g_stat (argv[f + 1], &a) == 0 && g_stat (argv[e + 1], &b) == 0 &&
            a.st_dev == b.st_dev && a.st_ino == b.st_ino)
          {
            hs_cli_error ("agreement", "%s and %s are the same file: each file must be another "
                          "annotator's answers", argv[e + 1], argv[f + 1]);
            return HS_CLI_EXIT_USAGE;
          }
      }
  for (guint f = 0; f < n_coders; f++)
    {
      g_autoptr(GPtrArray) answers = NULL;
      g_autoptr(GPtrArray) problems = NULL;
      g_autoptr(GError) error = NULL;
      GHashTable *last;

      if (!hs_annotation_load_answers (argv[f + 1], &answers, &problems, &error))
        {
          hs_cli_error ("agreement", "%s", error->message);
          return HS_CLI_EXIT_INPUT;
        }
      if (!g_file_test (argv[f + 1], G_FILE_TEST_IS_REGULAR))
        {
          hs_cli_error ("agreement", "%s: no such file", argv[f + 1]);
          return HS_CLI_EXIT_INPUT;
        }
      for (guint p = 0; p < problems->len; p++)
        hs_cli_error ("agreement", "%s", (char *) g_ptr_array_index (problems, p));
      if (answers->len == 0)
        {
          hs_cli_error ("agreement", "%s: no readable answer", argv[f + 1]);
          return HS_CLI_EXIT_INPUT;
        }
      for (guint i = 0; i < answers->len; i++)
        {
          HsAnnotationAnswer *a = g_ptr_array_index (answers, i);
          const char *seen = a->annotator != NULL ? g_hash_table_lookup (annotator_file, a->annotator)
                                                  : NULL;

          if (seen != NULL && strcmp (seen, argv[f + 1]) != 0)
            {
              hs_cli_error ("agreement", "%s: annotator \"%s\" also answers in %s: each annotator "
                            "must be counted once", argv[f + 1], a->annotator, seen);
              return HS_CLI_EXIT_INPUT;
            }
          if (a->annotator != NULL && seen == NULL)
            g_hash_table_insert (annotator_file, g_strdup (a->annotator), argv[f + 1]);
        }
      last = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_ptr_array_add (files, last);
      for (guint i = 0; i < answers->len; i++)
        {
          HsAnnotationAnswer *a = g_ptr_array_index (answers, i);
          char *key;

          if (!have_form)
            {
              form = a->form;
              have_form = TRUE;
            }
          else if (a->form != form)
            {
              hs_cli_error ("agreement", "%s: answers of the \"%s\" form mixed with the \"%s\" form",
                            argv[f + 1], hs_annotation_form_to_string (a->form),
                            hs_annotation_form_to_string (form));
              return HS_CLI_EXIT_INPUT;
            }
          key = unit_key (a);
          if (!g_hash_table_contains (units, key))
            {
              char *unit = g_strdup (key);
              g_hash_table_insert (units, unit, GUINT_TO_POINTER (unit_order->len));
              g_ptr_array_add (unit_order, unit);
            }
          /* Keep a copy of the values: `answers` is freed below. */
          {
            int *values = g_new (int, HS_ANNOTATION_N_QUESTIONS);
            memcpy (values, a->values, sizeof a->values);
            g_hash_table_insert (last, key, values);
          }
        }
    }

  n_units = unit_order->len;
  ratings = g_new (int, (gsize) n_units * n_coders);
  questions = hs_annotation_form_questions (form);
  if (!as_json)
    printf ("%-10s  %7s  %10s  %10s  %10s  %10s  %10s\n", "question", "units", "percent",
            "cohen", "fleiss", "alpha_ord", "alpha_nom");
  for (guint q = 0; q < HS_ANNOTATION_N_QUESTIONS; q++)
    {
      g_autoptr(GError) error = NULL;
      HsAgreement agreement;

      for (guint u = 0; u < n_units; u++)
        for (guint c = 0; c < n_coders; c++)
          {
            const int *values = g_hash_table_lookup (g_ptr_array_index (files, c),
                                                     g_ptr_array_index (unit_order, u));

            ratings[(gsize) u * n_coders + c] =
              values != NULL ? hs_annotation_value_to_level (form, q, values[q]) : HS_RATING_MISSING;
          }
      if (!hs_agreement_compute (ratings, n_units, n_coders,
                                 hs_annotation_question_n_levels (form, q), &agreement, &error))
        {
          hs_cli_error ("agreement", "%s", error->message);
          return HS_CLI_EXIT_INPUT;
        }
      if (as_json)
        {
          g_string_append_printf (json, "%s\"%s\": {", q ? ", " : "", questions[q]);
          hs_agreement_append_json (&agreement, json);
          g_string_append_printf (json, ", \"n_units\": %u, \"n_annotators\": %u}",
                                  agreement.n_units_pairable, n_coders);
        }
      else
        {
          printf ("%-10s  %7u", questions[q], agreement.n_units_pairable);
          print_value (agreement.percent_agreement);
          print_value (agreement.cohen_kappa);
          print_value (agreement.fleiss_kappa);
          print_value (agreement.alpha_ordinal);
          print_value (agreement.alpha_nominal);
          printf ("\n");
        }
    }
  if (as_json)
    {
      g_string_append (json, "}\n");
      fputs (json->str, stdout);
    }
  return fflush (stdout) == 0 ? HS_CLI_EXIT_OK : HS_CLI_EXIT_INPUT;
}
