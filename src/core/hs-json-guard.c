/* hs-json-guard.c — json-glib parsing that refuses hostile nesting */
#include "hs-json-guard-private.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <string.h>

gboolean
hs_json_check_depth (const char *text, gssize len, GError **error)
{
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  gboolean in_string = FALSE;
  guint depth = 0;
  guint line = 1;

  for (gsize i = 0; i < n; i++)
    {
      char c = text[i];

      if (c == '\n')
        line++;
      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case '[':
        case '{':
          if (++depth > HS_JSON_MAX_DEPTH)
            {
              g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                           _("%u:%zu: JSON nested deeper than %d levels"),
                           line, i + 1, HS_JSON_MAX_DEPTH);
              return FALSE;
            }
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        default:
          break;
        }
    }
  return TRUE;
}

gboolean
hs_json_parser_load_data (JsonParser *parser, const char *text, gssize len, GError **error)
{
  if (!hs_json_check_depth (text, len, error))
    return FALSE;
  if (!json_parser_load_from_data (parser, text, len, error))
    return FALSE;
  /* Whitespace alone parses to a NULL root, which json-glib's accessors
   * refuse with a critical: callers always expect a value. */
  if (json_parser_get_root (parser) == NULL)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                           _("no JSON value (the file is empty)"));
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_json_parser_load_file (JsonParser *parser, const char *path, GError **error)
{
  g_autoptr(GMappedFile) file = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize len;

  file = g_mapped_file_new (path, FALSE, &local_error);
  if (file == NULL)
    {
      g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE, "%s", local_error->message);
      return FALSE;
    }
  len = g_mapped_file_get_length (file);
  if ((guint64) len > hs_limits_get ()->max_file_bytes)
    {
      g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                   _("file of %zu bytes exceeds the limit of %" PRIu64 " bytes"),
                   len, hs_limits_get ()->max_file_bytes);
      return FALSE;
    }
  if (len == 0)
    return hs_json_parser_load_data (parser, "", 0, error);
  return hs_json_parser_load_data (parser, g_mapped_file_get_contents (file), (gssize) len, error);
}
