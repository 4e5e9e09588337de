/* hs-json-fields.c — typed members of small hostile JSON documents
 * (hs-json-fields-private.h); shared by the figure spec and deck readers so
 * both report problems the same way. */
#include "hs-json-fields-private.h"
#include "hs-i18n-private.h"

gboolean
hs_json_fields_fail (HsJsonFields *r, const HsJsonPath *path, const char *format, ...)
{
  g_autofree char *where = NULL, *message = NULL;
  va_list args;

  if (r->failed)
    return FALSE;
  r->failed = TRUE;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  where = hs_json_path_to_string (path);
  if (r->scope != NULL)
    g_set_error (r->error, r->domain, r->code, "%s: %s: %s: %s", r->display, r->scope, where,
                 message);
  else
    g_set_error (r->error, r->domain, r->code, "%s: %s: %s", r->display, where, message);
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
