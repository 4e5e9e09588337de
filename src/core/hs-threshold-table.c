/* hs-threshold-table.c — CheXlocalize's per-class segmentation thresholds */
#include "hs-threshold-table.h"

#include "hs-csv.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-threshold-table-error-quark, hs_threshold_table_error)

struct _HsThresholdTable
{
  GHashTable *thresholds;   /* folded task name → double* */
};

/* Task names compare ignoring ASCII case and surrounding spaces. */
static char *
fold_task (const char *task)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (task));

  return g_ascii_strdown (trimmed, -1);
}

static HsThresholdTable *
read_table (HsCsvReader *reader, GError **error)
{
  g_autoptr(HsThresholdTable) table = g_new0 (HsThresholdTable, 1);
  g_auto(GStrv) header = NULL;
  const char *name = hs_csv_reader_get_name (reader);
  guint line = 0;
  int col_threshold, col_task;
  char **record;

  table->thresholds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  header = hs_csv_reader_next (reader, &line, error);
  if (header == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, HS_THRESHOLD_TABLE_ERROR, HS_THRESHOLD_TABLE_ERROR_FORMAT,
                     _("%s: empty file (expected CheXlocalize's tuning_results.csv: threshold,task)"), name);
      return NULL;
    }
  col_threshold = hs_csv_find_column (header, "threshold");
  col_task = hs_csv_find_column (header, "task");
  if (col_threshold < 0 || col_task < 0)
    {
      g_set_error (error, HS_THRESHOLD_TABLE_ERROR, HS_THRESHOLD_TABLE_ERROR_FORMAT,
                   _("%s:%u: no '%s' column (expected CheXlocalize's tuning_results.csv: threshold,task)"),
                   name, line, col_threshold < 0 ? "threshold" : "task");
      return NULL;
    }

  while ((record = hs_csv_reader_next (reader, &line, error)) != NULL)
    {
      g_auto(GStrv) fields = record;
      guint n = g_strv_length (fields);
      g_autofree char *task = NULL;
      const char *text;
      char *end = NULL;
      double value;

      if (n == 1 && fields[0][0] == '\0')
        continue;   /* a blank line */
      if ((guint) MAX (col_threshold, col_task) >= n)
        {
          g_set_error (error, HS_THRESHOLD_TABLE_ERROR, HS_THRESHOLD_TABLE_ERROR_FORMAT,
                       _("%s:%u: %u fields, the header has %u"), name, line, n, g_strv_length (header));
          return NULL;
        }
      task = fold_task (fields[col_task]);
      if (task[0] == '\0')
        {
          g_set_error (error, HS_THRESHOLD_TABLE_ERROR, HS_THRESHOLD_TABLE_ERROR_FORMAT,
                       _("%s:%u: empty task"), name, line);
          return NULL;
        }
      text = fields[col_threshold];
      value = g_ascii_strtod (text, &end);
      while (end != NULL && (*end == ' ' || *end == '\t'))
        end++;
      if (end == text || end == NULL || *end != '\0' || !isfinite (value) || value < 0 || value > 1)
        {
          g_set_error (error, HS_THRESHOLD_TABLE_ERROR, HS_THRESHOLD_TABLE_ERROR_FORMAT,
                       _("%s:%u: threshold '%s' of task '%s' is not a number in [0, 1]"),
                       name, line, text, fields[col_task]);
          return NULL;
        }
      if (g_hash_table_contains (table->thresholds, task))
        {
          g_set_error (error, HS_THRESHOLD_TABLE_ERROR, HS_THRESHOLD_TABLE_ERROR_FORMAT,
                       _("%s:%u: task '%s' appears twice"), name, line, fields[col_task]);
          return NULL;
        }
      g_hash_table_insert (table->thresholds, g_steal_pointer (&task), g_memdup2 (&value, sizeof value));
    }
  if (error != NULL && *error != NULL)
    return NULL;   /* a malformed CSV record: the reader said where */
  if (g_hash_table_size (table->thresholds) == 0)
    {
      g_set_error (error, HS_THRESHOLD_TABLE_ERROR, HS_THRESHOLD_TABLE_ERROR_FORMAT,
                   _("%s: no threshold rows"), name);
      return NULL;
    }
  return g_steal_pointer (&table);
}

HsThresholdTable *
hs_threshold_table_load (const char *path, GError **error)
{
  g_autoptr(HsCsvReader) reader = NULL;
  GError *local = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  reader = hs_csv_reader_new_from_file (path, &local);
  if (reader == NULL)
    {
      g_set_error (error, HS_THRESHOLD_TABLE_ERROR, HS_THRESHOLD_TABLE_ERROR_IO, "%s", local->message);
      g_error_free (local);
      return NULL;
    }
  return read_table (reader, error);
}

HsThresholdTable *
hs_threshold_table_new_from_data (const char *data, gsize len, const char *name, GError **error)
{
  g_autoptr(HsCsvReader) reader = NULL;

  g_return_val_if_fail (data != NULL && name != NULL, NULL);

  reader = hs_csv_reader_new_from_data (data, len, name);
  return read_table (reader, error);
}

void
hs_threshold_table_free (HsThresholdTable *table)
{
  if (table == NULL)
    return;
  g_clear_pointer (&table->thresholds, g_hash_table_unref);
  g_free (table);
}

guint
hs_threshold_table_get_size (const HsThresholdTable *table)
{
  g_return_val_if_fail (table != NULL, 0);

  return g_hash_table_size (table->thresholds);
}

gboolean
hs_threshold_table_lookup (const HsThresholdTable *table, const char *class_label, double *threshold)
{
  g_autofree char *key = NULL;
  const double *value;

  g_return_val_if_fail (table != NULL, FALSE);

  if (class_label == NULL)
    return FALSE;
  key = fold_task (class_label);
  value = g_hash_table_lookup (table->thresholds, key);
  if (value == NULL)
    return FALSE;
  if (threshold != NULL)
    *threshold = *value;
  return TRUE;
}

const char *
hs_sentence_get_class_label (const HsSentence *sentence)
{
  g_return_val_if_fail (sentence != NULL, NULL);

  if (g_strcmp0 (sentence->kind, "class") == 0)
    return sentence->text;
  if (sentence->labels != NULL && sentence->labels->len == 1)
    return ((const HsLabel *) g_ptr_array_index (sentence->labels, 0))->condition;
  return NULL;
}
