/* hs-json-fields.c — typed members of small hostile JSON documents
 * (hs-json-fields-private.h); shared by the figure spec and deck readers so
 * both report problems the same way. */
#include "hs-json-fields-private.h"
#include "hs-i18n-private.h"
#include "hs-safe-open.h"

#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <glib/gstdio.h>

gboolean
hs_json_fields_fail (HsJsonFields *r, const HsJsonPath *path, const char *format, ...)
{
  g_autofree char *where = NULL, *message = NULL, *line = NULL, *shown = NULL;
  va_list args;

  if (r->failed)
    return FALSE;
  r->failed = TRUE;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  where = hs_json_path_to_string (path);
  if (r->scope != NULL)
    line = g_strdup_printf ("%s: %s: %s: %s", r->display, r->scope, where, message);
  else
    line = g_strdup_printf ("%s: %s: %s", r->display, where, message);
  /* one line: a value or a file name quoted in it may hold a newline or
   * another control character (a hostile file's own text) */
  shown = hj_one_line (line);
  g_set_error_literal (r->error, r->domain, r->code, shown);
  return FALSE;
}

gboolean
hs_json_fields_check_members (HsJsonFields *r, HjNode *object, const HsJsonPath *path,
                              const char * const *known)
{
  for (guint i = 0; i < object->n; i++)
    if (!g_strv_contains (known, object->v.members[i].key))
      return hs_json_fields_fail (r, path, _("unknown member \"%s\""),
                                  object->v.members[i].key);
  return TRUE;
}

gboolean
hs_json_node_is_string (const HjNode *node)
{
  return node->type == HJ_STRING;
}

gboolean
hs_json_node_is_number (const HjNode *node)
{
  return node->type == HJ_INT || node->type == HJ_DOUBLE;
}

gboolean
hs_json_node_is_bool (const HjNode *node)
{
  return node->type == HJ_BOOL;
}

HjNode *
hs_json_fields_typed_member (HsJsonFields *r, HjNode *object, const HsJsonPath *parent,
                             const char *key, gboolean (*ok) (const HjNode *),
                             const char *expected)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);

  if (node != NULL && !ok (node))
    {
      hs_json_fields_fail (r, &path, "%s", _(expected));
      return NULL;
    }
  return node;
}

gboolean
hs_json_fields_get_text (HsJsonFields *r, HjNode *object, const HsJsonPath *parent,
                         const char *key, char **out)
{
  HjNode *node = hs_json_fields_typed_member (r, object, parent, key, hs_json_node_is_string,
                                              N_("expected a string"));

  if (node && g_utf8_strlen (node->v.s, -1) > (glong) r->max_text)
    {
      PATH_KEY (path, parent, key);
      return hs_json_fields_fail (r, &path, _("longer than %d characters"), (int) r->max_text);
    }
  if (node)
    {
      g_free (*out);
      *out = g_strdup (node->v.s);
    }
  return !r->failed;
}

gboolean
hs_json_fields_get_number (HsJsonFields *r, HjNode *object, const HsJsonPath *parent,
                           const char *key, double lo, double hi, double *out)
{
  HjNode *node = hs_json_fields_typed_member (r, object, parent, key, hs_json_node_is_number,
                                              N_("expected a number"));

  if (node && !(hj_double (node) >= lo && hj_double (node) <= hi))
    {
      PATH_KEY (path, parent, key);
      return hs_json_fields_fail (r, &path, _("%g is not in [%g, %g]"), hj_double (node), lo, hi);
    }
  if (node)
    *out = hj_double (node);
  return !r->failed;
}

gboolean
hs_json_fields_get_bool (HsJsonFields *r, HjNode *object, const HsJsonPath *parent,
                         const char *key, int *out)
{
  HjNode *node = hs_json_fields_typed_member (r, object, parent, key, hs_json_node_is_bool,
                                              N_("expected true or false"));

  if (node)
    *out = node->v.b ? 1 : 0;
  return !r->failed;
}

HjNode *
hs_json_fields_parse (HsJsonFields *r, HjParser *parser, const char *text, gsize len)
{
  const char *invalid = NULL;
  HjNode *root;

  if (!g_utf8_validate (text ? text : "", (gssize) len, &invalid))
    {
      g_set_error (r->error, r->domain, r->code,
                   _("%s: invalid UTF-8 (or a NUL byte) at byte %zu"), r->display,
                   (gsize) (invalid - text));
      r->failed = TRUE;
      return NULL;
    }
  root = hj_parse (parser, text ? text : "", len);
  if (root == NULL)
    {
      g_set_error (r->error, r->domain, r->code, _("%s: not JSON: %s"), r->display,
                   parser->error ? parser->error : "");
      r->failed = TRUE;
    }
  return root;
}

gboolean
hs_json_fields_read_file (const char *path, guint64 max_bytes, GQuark domain, int io_code,
                          int invalid_code, guint8 **data, gsize *len, GError **error)
{
  g_autoptr(GError) local = NULL;
  gboolean ok;
  int fd;

  /* O_NONBLOCK: a FIFO named as the file must not hang the open */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, domain, io_code, _("%s: cannot read: %s"), path, g_strerror (saved));
      return FALSE;
    }
  ok = hs_safe_read_fd (fd, path, max_bytes, data, len, &local);
  close (fd);
  if (!ok)
    g_set_error_literal (error, domain,
                         g_error_matches (local, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_IO)
                           ? io_code : invalid_code,
                         local->message);
  return ok;
}
