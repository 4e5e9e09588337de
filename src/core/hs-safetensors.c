/* hs-safetensors.c — read-only access to .safetensors weight files */
#include "hs-json-guard-private.h"
#include "hs-safetensors.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (hs-safetensors-error-quark, hs_safetensors_error)

/* The reference implementation refuses headers above 100 MB; so do we. */
#define MAX_HEADER_BYTES (G_GUINT64_CONSTANT (100) << 20)

typedef struct {
  HsTensorInfo info;
  gsize        begin;   /* byte offset in the data buffer */
  gsize        end;
} Tensor;

struct _HsSafetensors {
  char        *name;
  guint8      *bytes;       /* the whole file */
  gsize        n_bytes;
  gsize        data_start;  /* 8 + header length */
  GArray      *tensors;     /* of Tensor, header order */
  GHashTable  *by_name;     /* name → index + 1 */
  const char **names;       /* NULL-terminated, points into tensors */
  GHashTable  *metadata;    /* char* → char* */
};

static const struct {
  const char         *name;
  HsSafetensorsDType  dtype;
  guint               size;
} dtypes[] = {
  { "F32",  HS_SAFETENSORS_F32,  4 },
  { "F16",  HS_SAFETENSORS_F16,  2 },
  { "BF16", HS_SAFETENSORS_BF16, 2 },
  { "F64",  HS_SAFETENSORS_F64,  8 },
  { "I64",  HS_SAFETENSORS_I64,  8 },
  { "I32",  HS_SAFETENSORS_I32,  4 },
  { "I16",  HS_SAFETENSORS_I16,  2 },
  { "I8",   HS_SAFETENSORS_I8,   1 },
  { "U8",   HS_SAFETENSORS_U8,   1 },
  { "BOOL", HS_SAFETENSORS_BOOL, 1 },
};

const char *
hs_safetensors_dtype_to_string (HsSafetensorsDType dtype)
{
  for (gsize i = 0; i < G_N_ELEMENTS (dtypes); i++)
    if (dtypes[i].dtype == dtype)
      return dtypes[i].name;
  return "?";
}

static guint
dtype_size (HsSafetensorsDType dtype)
{
  for (gsize i = 0; i < G_N_ELEMENTS (dtypes); i++)
    if (dtypes[i].dtype == dtype)
      return dtypes[i].size;
  return 0;
}

void
hs_safetensors_free (HsSafetensors *st)
{
  if (st == NULL)
    return;
  if (st->tensors != NULL)
    for (guint i = 0; i < st->tensors->len; i++)
      g_free ((char *) g_array_index (st->tensors, Tensor, i).info.name);
  g_clear_pointer (&st->tensors, g_array_unref);
  g_clear_pointer (&st->by_name, g_hash_table_unref);
  g_clear_pointer (&st->metadata, g_hash_table_unref);
  g_free (st->names);
  g_free (st->bytes);
  g_free (st->name);
  g_free (st);
}

static gboolean
format_error (GError **error, const HsSafetensors *st, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
format_error (GError **error, const HsSafetensors *st, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_FORMAT,
               _("%s: not a valid safetensors file: %s"), st->name, message);
  return FALSE;
}

static gboolean
parse_metadata (HsSafetensors *st, JsonNode *node, GError **error)
{
  JsonObject *object;
  g_autoptr(GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return format_error (error, st, _("\"__metadata__\" is not an object"));
  object = json_node_get_object (node);
  members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *value = json_object_get_member (object, l->data);

      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
        return format_error (error, st, _("\"__metadata__\" value \"%s\" is not a string"),
                             (const char *) l->data);
      g_hash_table_insert (st->metadata, g_strdup (l->data),
                           g_strdup (json_node_get_string (value)));
    }
  return TRUE;
}

static gboolean
get_unsigned (JsonNode *node, guint64 *out)
{
  gint64 v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  v = json_node_get_int (node);
  if (v < 0)
    return FALSE;
  *out = (guint64) v;
  return TRUE;
}

static gboolean
parse_tensor (HsSafetensors *st, const char *name, JsonNode *node, gsize data_len,
              Tensor *tensor, GError **error)
{
  JsonObject *object;
  JsonNode *dtype_node, *shape_node, *offsets_node;
  JsonArray *shape, *offsets;
  const char *dtype_name;
  gboolean found = FALSE;
  guint64 n_values = 1, n_bytes, begin, end;

  memset (tensor, 0, sizeof *tensor);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return format_error (error, st, _("entry \"%s\" is not an object"), name);
  object = json_node_get_object (node);
  dtype_node = json_object_get_member (object, "dtype");
  shape_node = json_object_get_member (object, "shape");
  offsets_node = json_object_get_member (object, "data_offsets");
  if (dtype_node == NULL || !JSON_NODE_HOLDS_VALUE (dtype_node)
      || json_node_get_value_type (dtype_node) != G_TYPE_STRING)
    return format_error (error, st, _("tensor \"%s\" has no string \"dtype\""), name);
  dtype_name = json_node_get_string (dtype_node);
  for (gsize i = 0; i < G_N_ELEMENTS (dtypes); i++)
    if (strcmp (dtypes[i].name, dtype_name) == 0)
      {
        tensor->info.dtype = dtypes[i].dtype;
        found = TRUE;
      }
  if (!found)
    return format_error (error, st, _("tensor \"%s\" has unknown dtype \"%s\""), name, dtype_name);

  if (shape_node == NULL || !JSON_NODE_HOLDS_ARRAY (shape_node))
    return format_error (error, st, _("tensor \"%s\" has no \"shape\" array"), name);
  shape = json_node_get_array (shape_node);
  if (json_array_get_length (shape) > HS_SAFETENSORS_MAX_DIMS)
    return format_error (error, st, _("tensor \"%s\" has %u dimensions (at most %d supported)"),
                         name, json_array_get_length (shape), HS_SAFETENSORS_MAX_DIMS);
  tensor->info.ndim = json_array_get_length (shape);
  for (guint d = 0; d < tensor->info.ndim; d++)
    {
      guint64 extent;

      if (!get_unsigned (json_array_get_element (shape, d), &extent))
        return format_error (error, st, _("tensor \"%s\" shape[%u] is not a non-negative integer"),
                             name, d);
      if (extent != 0 && n_values > G_MAXUINT64 / extent)
        return format_error (error, st, _("tensor \"%s\" shape overflows"), name);
      n_values *= extent;
      tensor->info.shape[d] = (gsize) extent;
    }

  if (offsets_node == NULL || !JSON_NODE_HOLDS_ARRAY (offsets_node)
      || json_array_get_length (offsets = json_node_get_array (offsets_node)) != 2
      || !get_unsigned (json_array_get_element (offsets, 0), &begin)
      || !get_unsigned (json_array_get_element (offsets, 1), &end))
    return format_error (error, st, _("tensor \"%s\" has no \"data_offsets\" [begin, end]"), name);
  if (begin > end || end > data_len)
    return format_error (error, st,
                         _("tensor \"%s\" data_offsets [%" PRIu64 ", %" PRIu64 "] lie outside the %zu-byte data buffer"),
                         name, begin, end, data_len);
  if (n_values > G_MAXUINT64 / dtype_size (tensor->info.dtype))
    return format_error (error, st, _("tensor \"%s\" shape overflows"), name);
  n_bytes = n_values * dtype_size (tensor->info.dtype);
  if (end - begin != n_bytes)
    return format_error (error, st,
                         _("tensor \"%s\" holds %" PRIu64 " bytes but its %s shape needs %" PRIu64), name, end - begin, dtype_name, n_bytes);
  tensor->info.name = g_strdup (name);
  tensor->info.n_values = (gsize) n_values;
  tensor->begin = (gsize) begin;
  tensor->end = (gsize) end;
  return TRUE;
}

static int
compare_begin (gconstpointer a, gconstpointer b)
{
  const Tensor *ta = *(const Tensor * const *) a, *tb = *(const Tensor * const *) b;

  if (ta->begin != tb->begin)
    return ta->begin < tb->begin ? -1 : 1;
  return ta->end < tb->end ? -1 : ta->end > tb->end;
}

static gboolean
parse (HsSafetensors *st, GError **error)
{
  guint64 header_len = 0;
  gsize data_len;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) json_error = NULL;
  g_autoptr(GList) members = NULL;
  g_autoptr(GPtrArray) sorted = NULL;
  JsonNode *root;
  JsonObject *object;
  gsize covered = 0;

  if (st->n_bytes < 8)
    return format_error (error, st, _("%zu bytes, shorter than the 8-byte header length"),
                         st->n_bytes);
  for (int i = 7; i >= 0; i--)
    header_len = (header_len << 8) | st->bytes[i];
  if (header_len > MAX_HEADER_BYTES)
    return format_error (error, st, _("header length %" PRIu64 " exceeds 100 MB"), header_len);
  if (header_len > st->n_bytes - 8)
    return format_error (error, st, _("header length %" PRIu64 " exceeds the file (%zu bytes)"), header_len, st->n_bytes);
  if (header_len < 2 || st->bytes[8] != '{')
    return format_error (error, st, _("the header does not start with a JSON object"));
  if (!g_utf8_validate ((const char *) st->bytes + 8, (gssize) header_len, NULL))
    return format_error (error, st, _("the header is not valid UTF-8"));
  st->data_start = 8 + (gsize) header_len;
  data_len = st->n_bytes - st->data_start;

  parser = json_parser_new_immutable ();
  if (!hs_json_parser_load_data (parser, (const char *) st->bytes + 8, (gssize) header_len, &json_error))
    return format_error (error, st, _("header JSON: %s"), json_error->message);
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return format_error (error, st, _("the header is not a JSON object"));
  object = json_node_get_object (root);

  members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *node = json_object_get_member (object, name);
      Tensor tensor;

      if (strcmp (name, "__metadata__") == 0)
        {
          if (!parse_metadata (st, node, error))
            return FALSE;
          continue;
        }
      if (!parse_tensor (st, name, node, data_len, &tensor, error))
        return FALSE;
      g_array_append_val (st->tensors, tensor);
    }

  /* Tensors must tile the buffer exactly, as the reference reader demands:
   * no overlaps (a crafted file could alias weights) and no stray bytes. */
  sorted = g_ptr_array_new ();
  for (guint i = 0; i < st->tensors->len; i++)
    g_ptr_array_add (sorted, &g_array_index (st->tensors, Tensor, i));
  g_ptr_array_sort (sorted, compare_begin);
  for (guint i = 0; i < sorted->len; i++)
    {
      const Tensor *t = sorted->pdata[i];

      if (t->begin != covered)
        return format_error (error, st, _("tensor \"%s\" starts at byte %zu of the data buffer, expected %zu (%s)"),
                             t->info.name, t->begin, covered,
                             t->begin < covered ? _("overlapping tensors") : _("a gap"));
      covered = t->end;
    }
  if (covered != data_len)
    return format_error (error, st, _("the data buffer has %zu bytes but the tensors cover %zu"), data_len, covered);

  st->names = g_new0 (const char *, st->tensors->len + 1);
  for (guint i = 0; i < st->tensors->len; i++)
    {
      const Tensor *t = &g_array_index (st->tensors, Tensor, i);

      st->names[i] = t->info.name;
      g_hash_table_insert (st->by_name, (gpointer) t->info.name, GUINT_TO_POINTER (i + 1));
    }
  return TRUE;
}

static HsSafetensors *
safetensors_new (const char *name)
{
  HsSafetensors *st = g_new0 (HsSafetensors, 1);

  st->name = g_strdup (name);
  st->tensors = g_array_new (FALSE, TRUE, sizeof (Tensor));
  st->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  st->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return st;
}

HsSafetensors *
hs_safetensors_load_from_memory (const guint8 *data, gsize len, const char *name_for_errors,
                                 GError **error)
{
  g_autoptr(HsSafetensors) st = NULL;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  st = safetensors_new (name_for_errors != NULL ? name_for_errors : "(memory)");
  if ((guint64) len > hs_limits_get ()->max_file_bytes)
    {
      g_set_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_TOO_LARGE,
                   _("%s: %zu bytes exceed the file size limit of %" PRIu64),
                   st->name, len, hs_limits_get ()->max_file_bytes);
      return NULL;
    }
  st->bytes = g_memdup2 (data, len);
  st->n_bytes = len;
  if (!parse (st, error))
    return NULL;
  return g_steal_pointer (&st);
}

HsSafetensors *
hs_safetensors_load (const char *path, GError **error)
{
  g_autoptr(HsSafetensors) st = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  guint64 size;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  st = safetensors_new (path);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_IO,
                   _("%s: no such file or not a regular file"), path);
      return NULL;
    }
  file = g_file_new_for_path (path);
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE,
                            NULL, &local_error);
  if (info == NULL)
    {
      g_set_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_IO, "%s: %s", path,
                   local_error->message);
      return NULL;
    }
  size = (guint64) g_file_info_get_size (info);
  if (size > hs_limits_get ()->max_file_bytes)
    {
      g_set_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_TOO_LARGE,
                   _("%s: %" PRIu64 " bytes exceed the file size limit of %" PRIu64),
                   path, size, hs_limits_get ()->max_file_bytes);
      return NULL;
    }
  if (!g_file_get_contents (path, &contents, &length, &local_error))
    {
      g_set_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_IO, "%s", local_error->message);
      return NULL;
    }
  st->bytes = (guint8 *) g_steal_pointer (&contents);
  st->n_bytes = length;
  if (!parse (st, error))
    return NULL;
  return g_steal_pointer (&st);
}

const char *
hs_safetensors_get_name (const HsSafetensors *st)
{
  g_return_val_if_fail (st != NULL, NULL);
  return st->name;
}

const char * const *
hs_safetensors_list (const HsSafetensors *st)
{
  g_return_val_if_fail (st != NULL, NULL);
  return st->names;
}

static const Tensor *
find_tensor (const HsSafetensors *st, const char *name)
{
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (st->by_name, name));

  return index == 0 ? NULL : &g_array_index (st->tensors, Tensor, index - 1);
}

const HsTensorInfo *
hs_safetensors_get_info (const HsSafetensors *st, const char *name)
{
  const Tensor *t;

  g_return_val_if_fail (st != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  t = find_tensor (st, name);
  return t != NULL ? &t->info : NULL;
}

const char *
hs_safetensors_get_metadata (const HsSafetensors *st, const char *key)
{
  g_return_val_if_fail (st != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);
  return g_hash_table_lookup (st->metadata, key);
}

static int
compare_strings (const void *a, const void *b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

const char **
hs_safetensors_list_metadata (const HsSafetensors *st)
{
  const char **keys;
  guint n;

  g_return_val_if_fail (st != NULL, NULL);
  keys = (const char **) g_hash_table_get_keys_as_array (st->metadata, &n);
  qsort (keys, n, sizeof *keys, compare_strings);
  return keys;
}

static float
half_to_float (guint16 h)
{
  guint32 sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float value;

  if (exponent == 0)
    value = ldexpf ((float) mantissa, -24);
  else if (exponent == 31)
    value = mantissa != 0 ? NAN : INFINITY;
  else
    value = ldexpf ((float) (mantissa | 0x400), (int) exponent - 25);
  return sign ? -value : value;
}

float *
hs_safetensors_get_float (const HsSafetensors *st, const char *name, gsize *n_values, GError **error)
{
  const Tensor *t;
  const guint8 *p;
  float *out;

  g_return_val_if_fail (st != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  t = find_tensor (st, name);
  if (t == NULL)
    {
      g_set_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_NOT_FOUND,
                   _("%s: no tensor named \"%s\""), st->name, name);
      return NULL;
    }
  if (t->info.dtype != HS_SAFETENSORS_F32 && t->info.dtype != HS_SAFETENSORS_F16
      && t->info.dtype != HS_SAFETENSORS_BF16 && t->info.dtype != HS_SAFETENSORS_F64)
    {
      g_set_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_UNSUPPORTED,
                   _("%s: tensor \"%s\" has dtype %s, expected a floating-point type"),
                   st->name, name, hs_safetensors_dtype_to_string (t->info.dtype));
      return NULL;
    }
  p = st->bytes + st->data_start + t->begin;
  out = g_new (float, MAX (t->info.n_values, 1));
  for (gsize i = 0; i < t->info.n_values; i++)
    {
      switch (t->info.dtype)
        {
        case HS_SAFETENSORS_F32:
          {
            guint32 u = (guint32) p[4 * i] | (guint32) p[4 * i + 1] << 8
                        | (guint32) p[4 * i + 2] << 16 | (guint32) p[4 * i + 3] << 24;
            memcpy (&out[i], &u, 4);
          }
          break;
        case HS_SAFETENSORS_F16:
          out[i] = half_to_float ((guint16) (p[2 * i] | p[2 * i + 1] << 8));
          break;
        case HS_SAFETENSORS_BF16:
          {
            guint32 u = ((guint32) p[2 * i] | (guint32) p[2 * i + 1] << 8) << 16;
            memcpy (&out[i], &u, 4);
          }
          break;
        case HS_SAFETENSORS_F64:
          {
            guint64 u = 0;
            double d;

            for (int b = 7; b >= 0; b--)
              u = (u << 8) | p[8 * i + b];
            memcpy (&d, &u, 8);
            out[i] = (float) d;
          }
          break;
        default:
          g_assert_not_reached ();
        }
    }
  if (n_values != NULL)
    *n_values = t->info.n_values;
  return out;
}
