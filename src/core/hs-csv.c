/* hs-csv.c — an RFC 4180 CSV reader that keeps line numbers */
#include "hs-csv.h"

#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

G_DEFINE_QUARK (hs-csv-error-quark, hs_csv_error)

struct _HsCsvReader
{
  char  *name;
  char  *data;
  gsize  len;
  gsize  pos;
  guint  line;       /* line of data[pos], 1-based */
  char   separator;
};

HsCsvReader *
hs_csv_reader_new_from_data (const char *data, gsize len, const char *name)
{
  HsCsvReader *reader;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  reader = g_new0 (HsCsvReader, 1);
  reader->name = g_strdup (name != NULL ? name : "CSV data");
  reader->data = g_malloc (len + 1);
  if (len > 0)
    memcpy (reader->data, data, len);
  reader->data[len] = '\0';
  reader->len = len;
  reader->line = 1;
  reader->separator = ',';
  if (len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    reader->pos = 3;
  return reader;
}

HsCsvReader *
hs_csv_reader_new_from_file (const char *path, GError **error)
{
  GStatBuf st;
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);

  if (g_stat (path, &st) != 0)
    {
      int saved = errno;
      g_set_error (error, HS_CSV_ERROR, HS_CSV_ERROR_IO, _("%s: cannot read: %s"), path,
                   g_strerror (saved));
      return NULL;
    }
  if ((guint64) st.st_size > hs_limits_get ()->max_file_bytes)
    {
      g_set_error (error, HS_CSV_ERROR, HS_CSV_ERROR_IO,
                   _("%s: file of %" PRIu64 " bytes is too large"), path, (guint64) st.st_size);
      return NULL;
    }
  if (!g_file_get_contents (path, &contents, &len, &local_error))
    {
      g_set_error (error, HS_CSV_ERROR, HS_CSV_ERROR_IO, "%s", local_error->message);
      return NULL;
    }
  return hs_csv_reader_new_from_data (contents, len, path);
}

void
hs_csv_reader_free (HsCsvReader *reader)
{
  if (reader == NULL)
    return;
  g_free (reader->name);
  g_free (reader->data);
  g_free (reader);
}

void
hs_csv_reader_set_separator (HsCsvReader *reader, char separator)
{
  g_return_if_fail (reader != NULL);
  g_return_if_fail (separator != '"' && separator != '\n' && separator != '\r' && separator != '\0');

  reader->separator = separator;
}

const char *
hs_csv_reader_get_name (HsCsvReader *reader)
{
  g_return_val_if_fail (reader != NULL, NULL);
  return reader->name;
}

/* Skips to the end of the current record after an error, honouring quotes
 * as well as it can. */
static void
skip_record (HsCsvReader *r)
{
  while (r->pos < r->len)
    {
      char c = r->data[r->pos++];
      if (c == '\n')
        {
          r->line++;
          return;
        }
      if (c == '\r')
        {
          if (r->pos < r->len && r->data[r->pos] == '\n')
            r->pos++;
          r->line++;
          return;
        }
    }
}

char **
hs_csv_reader_next (HsCsvReader *r, guint *line, GError **error)
{
  g_autoptr(GPtrArray) fields = NULL;
  g_autoptr(GString) field = NULL;
  guint start_line;
  gboolean at_field_start = TRUE;

  g_return_val_if_fail (r != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (r->pos >= r->len)
    return NULL;

  start_line = r->line;
  if (line != NULL)
    *line = start_line;
  fields = g_ptr_array_new_with_free_func (g_free);
  field = g_string_new (NULL);

  while (TRUE)
    {
      char c;

      if (r->pos >= r->len)
        break;
      c = r->data[r->pos];
      if (at_field_start && c == '"')
        {
          /* quoted field */
          r->pos++;
          while (TRUE)
            {
              if (r->pos >= r->len)
                {
                  g_set_error (error, HS_CSV_ERROR, HS_CSV_ERROR_SYNTAX,
                               _("%s:%u: unterminated quoted field"), r->name, start_line);
                  return NULL;
                }
              c = r->data[r->pos++];
              if (c == '"')
                {
                  if (r->pos < r->len && r->data[r->pos] == '"')
                    {
                      g_string_append_c (field, '"');
                      r->pos++;
                      continue;
                    }
                  break;
                }
              if (c == '\n' || (c == '\r' && !(r->pos < r->len && r->data[r->pos] == '\n')))
                r->line++;
              g_string_append_c (field, c);
            }
          at_field_start = FALSE;
          if (r->pos < r->len && r->data[r->pos] != r->separator &&
              r->data[r->pos] != '\n' && r->data[r->pos] != '\r')
            {
              g_set_error (error, HS_CSV_ERROR, HS_CSV_ERROR_SYNTAX,
                           _("%s:%u: unexpected character '%c' after a closing quote"),
                           r->name, r->line, r->data[r->pos]);
              skip_record (r);
              return NULL;
            }
          continue;
        }
      if (c == r->separator)
        {
          g_ptr_array_add (fields, g_string_free (g_steal_pointer (&field), FALSE));
          field = g_string_new (NULL);
          at_field_start = TRUE;
          r->pos++;
          continue;
        }
      if (c == '\n' || c == '\r')
        {
          r->pos++;
          if (c == '\r' && r->pos < r->len && r->data[r->pos] == '\n')
            r->pos++;
          r->line++;
          break;
        }
      if (c == '\0')
        {
          g_set_error (error, HS_CSV_ERROR, HS_CSV_ERROR_ENCODING,
                       _("%s:%u: NUL byte in the text"), r->name, r->line);
          skip_record (r);
          return NULL;
        }
      /* a quote inside an unquoted field is kept as it is (5'3") */
      g_string_append_c (field, c);
      at_field_start = FALSE;
      r->pos++;
    }
  g_ptr_array_add (fields, g_string_free (g_steal_pointer (&field), FALSE));

  for (guint i = 0; i < fields->len; i++)
    {
      const char *text = g_ptr_array_index (fields, i);
      const char *bad = NULL;

      if (!g_utf8_validate (text, -1, &bad))
        {
          g_set_error (error, HS_CSV_ERROR, HS_CSV_ERROR_ENCODING,
                       _("%s:%u: field %u is not valid UTF-8 (byte 0x%02x at offset %u)"),
                       r->name, start_line, i + 1, (guint8) *bad, (guint) (bad - text));
          return NULL;
        }
    }
  g_ptr_array_add (fields, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&fields), FALSE);
}

int
hs_csv_find_column (char * const *header, const char *name)
{
  g_return_val_if_fail (name != NULL, -1);

  for (int i = 0; header != NULL && header[i] != NULL; i++)
    {
      g_autofree char *trimmed = g_strstrip (g_strdup (header[i]));
      if (strcmp (trimmed, name) == 0)
        return i;
    }
  return -1;
}

void
hs_csv_append_field (GString *out, const char *text)
{
  g_return_if_fail (out != NULL);

  if (text == NULL)
    return;
  if (strpbrk (text, ",\"\r\n") == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}
