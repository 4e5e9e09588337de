/* hs-dataset-json.c — reading and writing heatscope.json
 *
 * The reader parses the manifest into a compact tree (below), walks it once,
 * converts it to the plain structs and drops the tree; nothing referenced by the manifest is opened unless the
 * validator asks for it.  The same walk serves the loader (stop at the first
 * problem) and the validator (record every problem). */
#include "hs-dataset-private.h"
#include "hs-atomic-file.h"
#include "hs-limits.h"

#include <errno.h>
#include <glib/gstdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 64
#define FORMAT_NAME "heatscope-dataset"

/* --- a strict, fast JSON reader ------------------------------------------ *
 * json-glib's GScanner-based parser reads about 10 MB/s, several seconds for
 * the manifest of a 10 000-instance dataset; this one builds a compact tree
 * in an arena at a few hundred MB/s.  RFC 8259 only: no comments, NaN,
 * trailing commas or leading zeros; nesting limited to MAX_DEPTH; duplicate
 * object members refused (json-glib silently kept the last one). */

typedef enum {
  HJ_NULL, HJ_BOOL, HJ_INT, HJ_DOUBLE, HJ_STRING, HJ_ARRAY, HJ_OBJECT
} HjType;

typedef struct _HjNode HjNode;
typedef struct {
  const char *key;
  HjNode     *value;
} HjMember;

struct _HjNode {
  HjType type;
  guint  n;                 /* items of an array or members of an object */
  union {
    gboolean   b;
    gint64     i;
    double     d;
    const char *s;
    HjNode   **items;
    HjMember  *members;
  } v;
};

typedef struct {
  GSList *blocks;
  char   *next;
  gsize   left;
} HjArena;

static gpointer
hj_alloc (HjArena *arena, gsize size)
{
  gpointer result;

  size = (size + 7) & ~(gsize) 7;
  if (size > arena->left)
    {
      gsize block = MAX (size, (gsize) 1 << 20);
      char *memory = g_malloc (block);

      arena->blocks = g_slist_prepend (arena->blocks, memory);
      arena->next = memory;
      arena->left = block;
    }
  result = arena->next;
  arena->next += size;
  arena->left -= size;
  return result;
}

static void
hj_arena_clear (HjArena *arena)
{
  g_slist_free_full (arena->blocks, g_free);
  memset (arena, 0, sizeof *arena);
}

typedef struct {
  const char *start;
  const char *p;
  const char *end;
  HjArena     arena;
  GPtrArray  *stack;     /* scratch for items/members being collected */
  char       *error;     /* first error, with line and column */
} HjParser;

static gboolean
hj_fail (HjParser *parser, const char *what)
{
  guint line = 1, column = 1;

  if (parser->error != NULL)
    return FALSE;
  for (const char *q = parser->start; q < parser->p && q < parser->end; q++)
    {
      if (*q == '\n')
        {
          line++;
          column = 1;
        }
      else if (((guchar) *q & 0xc0) != 0x80)
        column++;
    }
  if (parser->p >= parser->end)
    parser->error = g_strdup_printf ("line %u, column %u: %s (at the end of the file)", line, column, what);
  else
    parser->error = g_strdup_printf ("line %u, column %u: %s", line, column, what);
  return FALSE;
}

static void
hj_skip_space (HjParser *parser)
{
  while (parser->p < parser->end &&
         (*parser->p == ' ' || *parser->p == '\n' || *parser->p == '\r' || *parser->p == '\t'))
    parser->p++;
}

static int
hj_hex (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static gboolean
hj_read_hex4 (HjParser *parser, guint *out)
{
  guint value = 0;

  if (parser->end - parser->p < 4)
    return hj_fail (parser, "truncated \\u escape");
  for (int i = 0; i < 4; i++)
    {
      int digit = hj_hex (parser->p[i]);

      if (digit < 0)
        return hj_fail (parser, "bad \\u escape");
      value = value * 16 + (guint) digit;
    }
  parser->p += 4;
  *out = value;
  return TRUE;
}

/* parser->p is just after the opening quote.  The input is valid UTF-8
 * (checked before parsing), so only escapes and control characters matter. */
static const char *
hj_parse_string (HjParser *parser)
{
  const char *begin = parser->p;
  const char *q = begin;
  char *out, *w;

  while (q < parser->end && *q != '"' && *q != '\\' && (guchar) *q >= 0x20)
    q++;
  if (q < parser->end && *q == '"')
    {
      /* No escapes: one copy. */
      out = hj_alloc (&parser->arena, (gsize) (q - begin) + 1);
      memcpy (out, begin, (gsize) (q - begin));
      out[q - begin] = '\0';
      parser->p = q + 1;
      return out;
    }

  /* Escapes shrink the text, so its raw length bounds the result. */
  q = begin;
  while (q < parser->end && *q != '"')
    q += (*q == '\\' && q + 1 < parser->end) ? 2 : 1;
  out = w = hj_alloc (&parser->arena, (gsize) (q - begin) + 1);
  while (parser->p < parser->end)
    {
      char c = *parser->p;

      if (c == '"')
        {
          parser->p++;
          *w = '\0';
          return out;
        }
      if ((guchar) c < 0x20)
        {
          hj_fail (parser, "control character inside a string (escape it)");
          return NULL;
        }
      if (c != '\\')
        {
          *w++ = c;
          parser->p++;
          continue;
        }
      parser->p++;
      if (parser->p >= parser->end)
        break;
      c = *parser->p++;
      switch (c)
        {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u':
          {
            guint unit, low;
            gunichar ch;

            if (!hj_read_hex4 (parser, &unit))
              return NULL;
            if (unit >= 0xd800 && unit <= 0xdbff)
              {
                if (parser->end - parser->p < 6 || parser->p[0] != '\\' || parser->p[1] != 'u')
                  {
                    hj_fail (parser, "unpaired UTF-16 surrogate in \\u escape");
                    return NULL;
                  }
                parser->p += 2;
                if (!hj_read_hex4 (parser, &low))
                  return NULL;
                if (low < 0xdc00 || low > 0xdfff)
                  {
                    hj_fail (parser, "unpaired UTF-16 surrogate in \\u escape");
                    return NULL;
                  }
                ch = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
              }
            else if (unit >= 0xdc00 && unit <= 0xdfff)
              {
                hj_fail (parser, "unpaired UTF-16 surrogate in \\u escape");
                return NULL;
              }
            else
              ch = unit;
            if (ch == 0)
              {
                hj_fail (parser, "\\u0000 (a NUL character) is not allowed");
                return NULL;
              }
            /* A 12-character surrogate pair gives 4 bytes, \uXXXX at most 3. */
            w += g_unichar_to_utf8 (ch, w);
            break;
          }
        default:
          parser->p--;
          hj_fail (parser, "unknown escape in a string");
          return NULL;
        }
    }
  hj_fail (parser, "unterminated string");
  return NULL;
}

static HjNode *hj_parse_value (HjParser *parser, guint depth);

static HjNode *
hj_new_node (HjParser *parser, HjType type)
{
  HjNode *node = hj_alloc (&parser->arena, sizeof (HjNode));

  node->type = type;
  node->n = 0;
  return node;
}

static HjNode *
hj_parse_number (HjParser *parser)
{
  const char *begin = parser->p;
  const char *q = begin;
  gboolean integral = TRUE;
  HjNode *node;

  if (q < parser->end && *q == '-')
    q++;
  if (q >= parser->end || !g_ascii_isdigit (*q))
    {
      hj_fail (parser, "expected a value");
      return NULL;
    }
  if (*q == '0')
    q++;
  else
    while (q < parser->end && g_ascii_isdigit (*q))
      q++;
  if (q < parser->end && *q == '.')
    {
      integral = FALSE;
      q++;
      if (q >= parser->end || !g_ascii_isdigit (*q))
        {
          parser->p = q;
          hj_fail (parser, "a digit must follow the decimal point");
          return NULL;
        }
      while (q < parser->end && g_ascii_isdigit (*q))
        q++;
    }
  if (q < parser->end && (*q == 'e' || *q == 'E'))
    {
      integral = FALSE;
      q++;
      if (q < parser->end && (*q == '+' || *q == '-'))
        q++;
      if (q >= parser->end || !g_ascii_isdigit (*q))
        {
          parser->p = q;
          hj_fail (parser, "a digit must follow the exponent");
          return NULL;
        }
      while (q < parser->end && g_ascii_isdigit (*q))
        q++;
    }

  node = hj_new_node (parser, HJ_INT);
  if (integral && q - begin < 19)
    {
      gint64 value = 0;
      gboolean negative = *begin == '-';

      for (const char *d = begin + (negative ? 1 : 0); d < q; d++)
        value = value * 10 + (*d - '0');
      node->v.i = negative ? -value : value;
    }
  else
    {
      char buffer[64];
      gsize len = (gsize) (q - begin);
      char *copy = len < sizeof buffer ? buffer : g_malloc (len + 1);

      memcpy (copy, begin, len);
      copy[len] = '\0';
      node->type = HJ_DOUBLE;
      node->v.d = g_ascii_strtod (copy, NULL);
      if (integral && fabs (node->v.d) < 9.2e18)
        {
          node->type = HJ_INT;
          node->v.i = g_ascii_strtoll (copy, NULL, 10);
        }
      if (copy != buffer)
        g_free (copy);
    }
  parser->p = q;
  return node;
}

static gboolean
hj_expect_word (HjParser *parser, const char *word)
{
  gsize len = strlen (word);

  if ((gsize) (parser->end - parser->p) < len || memcmp (parser->p, word, len) != 0)
    return hj_fail (parser, "expected a value");
  parser->p += len;
  return TRUE;
}

static HjNode *
hj_parse_container (HjParser *parser, guint depth, gboolean object)
{
  guint base = parser->stack->len;
  char close = object ? '}' : ']';
  HjNode *node;
  guint n;

  if (depth > MAX_DEPTH)
    {
      g_autofree char *message = g_strdup_printf ("nested deeper than %d levels", MAX_DEPTH);
      hj_fail (parser, message);
      return NULL;
    }
  parser->p++;   /* '{' or '[' */
  hj_skip_space (parser);
  if (parser->p < parser->end && *parser->p == close)
    parser->p++;
  else
    for (;;)
      {
        HjNode *value;

        hj_skip_space (parser);
        if (object)
          {
            const char *key;

            if (parser->p >= parser->end || *parser->p != '"')
              {
                hj_fail (parser, "expected a member name in double quotes");
                return NULL;
              }
            parser->p++;
            key = hj_parse_string (parser);
            if (key == NULL)
              return NULL;
            for (guint i = base; i < parser->stack->len; i += 2)
              if (strcmp (g_ptr_array_index (parser->stack, i), key) == 0)
                {
                  g_autofree char *message = g_strdup_printf ("duplicate member \"%s\"", key);
                  hj_fail (parser, message);
                  return NULL;
                }
            hj_skip_space (parser);
            if (parser->p >= parser->end || *parser->p != ':')
              {
                hj_fail (parser, "expected ':' after a member name");
                return NULL;
              }
            parser->p++;
            g_ptr_array_add (parser->stack, (gpointer) key);
          }
        value = hj_parse_value (parser, depth + 1);
        if (value == NULL)
          return NULL;
        g_ptr_array_add (parser->stack, value);
        hj_skip_space (parser);
        if (parser->p < parser->end && *parser->p == ',')
          {
            parser->p++;
            continue;
          }
        if (parser->p < parser->end && *parser->p == close)
          {
            parser->p++;
            break;
          }
        hj_fail (parser, object ? "expected ',' or '}'" : "expected ',' or ']'");
        return NULL;
      }

  n = parser->stack->len - base;
  node = hj_new_node (parser, object ? HJ_OBJECT : HJ_ARRAY);
  if (object)
    {
      node->n = n / 2;
      node->v.members = hj_alloc (&parser->arena, MAX (1, node->n) * sizeof (HjMember));
      for (guint i = 0; i < node->n; i++)
        {
          node->v.members[i].key = g_ptr_array_index (parser->stack, base + 2 * i);
          node->v.members[i].value = g_ptr_array_index (parser->stack, base + 2 * i + 1);
        }
    }
  else
    {
      node->n = n;
      node->v.items = hj_alloc (&parser->arena, MAX (1, n) * sizeof (HjNode *));
      memcpy (node->v.items, parser->stack->pdata + base, n * sizeof (HjNode *));
    }
  g_ptr_array_set_size (parser->stack, base);
  return node;
}

static HjNode *
hj_parse_value (HjParser *parser, guint depth)
{
  HjNode *node;

  hj_skip_space (parser);
  if (parser->p >= parser->end)
    {
      hj_fail (parser, "expected a value");
      return NULL;
    }
  switch (*parser->p)
    {
    case '{':
      return hj_parse_container (parser, depth, TRUE);
    case '[':
      return hj_parse_container (parser, depth, FALSE);
    case '"':
      {
        const char *text;

        parser->p++;
        text = hj_parse_string (parser);
        if (text == NULL)
          return NULL;
        node = hj_new_node (parser, HJ_STRING);
        node->v.s = text;
        return node;
      }
    case 't':
    case 'f':
      {
        gboolean value = *parser->p == 't';

        if (!hj_expect_word (parser, value ? "true" : "false"))
          return NULL;
        node = hj_new_node (parser, HJ_BOOL);
        node->v.b = value;
        return node;
      }
    case 'n':
      if (!hj_expect_word (parser, "null"))
        return NULL;
      return hj_new_node (parser, HJ_NULL);
    default:
      return hj_parse_number (parser);
    }
}

/* Parses a whole document; on failure returns NULL and sets *error_text. */
static HjNode *
hj_parse (HjParser *parser, const char *data, gsize len)
{
  HjNode *root;

  parser->start = parser->p = data;
  parser->end = data + len;
  parser->stack = g_ptr_array_new ();
  root = hj_parse_value (parser, 1);
  if (root != NULL)
    {
      hj_skip_space (parser);
      if (parser->p < parser->end)
        {
          hj_fail (parser, "unexpected text after the top-level value");
          root = NULL;
        }
    }
  g_ptr_array_unref (parser->stack);
  parser->stack = NULL;
  return root;
}

static void
hj_parser_clear (HjParser *parser)
{
  hj_arena_clear (&parser->arena);
  g_clear_pointer (&parser->error, g_free);
}

/* Accessors in the shape the reader below uses. */
static inline HjNode *
hj_member (HjNode *object, const char *key)
{
  for (guint i = 0; i < object->n; i++)
    if (strcmp (object->v.members[i].key, key) == 0)
      return object->v.members[i].value;
  return NULL;
}

typedef struct {
  HjNode *object;
  guint   index;
} HjIter;

static inline void
hj_iter_init (HjIter *iter, HjNode *object)
{
  iter->object = object;
  iter->index = 0;
}

static inline gboolean
hj_iter_next (HjIter *iter, const char **key, HjNode **value)
{
  if (iter->index >= iter->object->n)
    return FALSE;
  *key = iter->object->v.members[iter->index].key;
  *value = iter->object->v.members[iter->index].value;
  iter->index++;
  return TRUE;
}

static inline double
hj_double (HjNode *node)
{
  return node->type == HJ_INT ? (double) node->v.i : node->v.d;
}

static inline guint
hj_length (HjNode *array)
{
  return array->n;
}

static inline HjNode *
hj_element (HjNode *array, guint index)
{
  return array->v.items[index];
}

/* --- JSON paths ---------------------------------------------------------- */

static gboolean
is_identifier (const char *key)
{
  if (!g_ascii_isalpha (key[0]) && key[0] != '_')
    return FALSE;
  for (const char *p = key + 1; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

static void
append_quoted (GString *out, const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p; p++)
    {
      guchar c = (guchar) *p;

      if (c == '"' || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == '\b')
        g_string_append (out, "\\b");
      else if (c == '\f')
        g_string_append (out, "\\f");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

static void
append_path (GString *out, const HsJsonPath *path)
{
  if (path == NULL)
    {
      g_string_append_c (out, '$');
      return;
    }
  append_path (out, path->parent);
  if (path->key == NULL)
    g_string_append_printf (out, "[%u]", path->index);
  else if (is_identifier (path->key))
    g_string_append_printf (out, ".%s", path->key);
  else
    {
      g_string_append_c (out, '[');
      append_quoted (out, path->key);
      g_string_append_c (out, ']');
    }
}

char *
hs_json_path_to_string (const HsJsonPath *path)
{
  GString *out = g_string_new (NULL);

  append_path (out, path);
  return g_string_free (out, FALSE);
}

#define PATH_KEY(name, parent_, key_) HsJsonPath name = { (parent_), (key_), 0 }
#define PATH_INDEX(name, parent_, index_) HsJsonPath name = { (parent_), NULL, (index_) }

/* --- problems ------------------------------------------------------------ */

gboolean
hs_manifest_reader_problem (HsManifestReader *reader, const char *file,
                            const HsJsonPath *path, HsDatasetError code,
                            const char *format, ...)
{
  g_autofree char *message = NULL;
  g_autofree char *path_string = hs_json_path_to_string (path);
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  if (file == NULL)
    file = reader->manifest;

  if (reader->collect)
    {
      g_ptr_array_add (reader->problems, hs_problem_new (file, path_string, message));
      return TRUE;
    }
  if (reader->error == NULL)
    reader->error = g_error_new (HS_DATASET_ERROR, code, "%s: %s: %s", file, path_string, message);
  reader->stop = TRUE;
  return FALSE;
}

#define PROBLEM(reader, path, code, ...) \
  hs_manifest_reader_problem ((reader), NULL, (path), (code), __VA_ARGS__)

/* --- typed access -------------------------------------------------------- */

static const char *
node_type_name (HjNode *node)
{
  switch (node->type)
    {
    case HJ_OBJECT: return "an object";
    case HJ_ARRAY:  return "an array";
    case HJ_NULL:   return "null";
    case HJ_STRING: return "a string";
    case HJ_BOOL:   return "a boolean";
    case HJ_INT:
    case HJ_DOUBLE: return "a number";
    default:        return "something else";
    }
}

static gboolean
node_is_string (HjNode *node)
{
  return node->type == HJ_STRING;
}

static gboolean
node_is_number (HjNode *node)
{
  return node->type == HJ_INT || node->type == HJ_DOUBLE;
}

static gboolean
node_is_bool (HjNode *node)
{
  return node->type == HJ_BOOL;
}

static gboolean
expect (HsManifestReader *r, HjNode *node, const HsJsonPath *path, gboolean ok, const char *what)
{
  if (ok)
    return TRUE;
  PROBLEM (r, path, HS_DATASET_ERROR_INVALID, "expected %s, found %s", what, node_type_name (node));
  return FALSE;
}

/* Reports members not in `allowed`; "x-" members are extensions and ignored. */
static void
check_members (HsManifestReader *r, HjNode *object, const HsJsonPath *path,
               const char * const *allowed)
{
  HjIter iter;
  const char *name;
  HjNode *member;

  hj_iter_init (&iter, object);
  while (!r->stop && hj_iter_next (&iter, &name, &member))
    {
      if (g_str_has_prefix (name, "x-") || g_strv_contains (allowed, name))
        continue;
      {
        PATH_KEY (child, path, name);
        g_autofree char *list = g_strjoinv (", ", (char **) allowed);
        PROBLEM (r, &child, HS_DATASET_ERROR_INVALID,
                 "unknown member \"%s\" (expected one of: %s)", name, list);
      }
    }
}

/* A string member.  Returns a copy, or NULL when absent or wrong (the
 * latter reported; *bad set). */
static char *
get_string (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
            const char *key, gboolean required, gboolean non_empty, gboolean *bad)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  const char *value;

  if (node == NULL)
    {
      if (required)
        {
          PROBLEM (r, parent, HS_DATASET_ERROR_INVALID, "missing required member \"%s\"", key);
          *bad = TRUE;
        }
      return NULL;
    }
  if (!expect (r, node, &path, node_is_string (node), "a string"))
    {
      *bad = TRUE;
      return NULL;
    }
  value = node->v.s;
  if (non_empty && (value == NULL || value[0] == '\0'))
    {
      PROBLEM (r, &path, HS_DATASET_ERROR_INVALID, "must not be empty");
      *bad = TRUE;
      return NULL;
    }
  return g_strdup (value ? value : "");
}

static char *
get_path (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
          const char *key, gboolean required, gboolean *bad)
{
  PATH_KEY (path, parent, key);
  gboolean my_bad = FALSE;
  char *value = get_string (r, object, parent, key, required, TRUE, &my_bad);
  const char *why = NULL;

  if (my_bad)
    {
      *bad = TRUE;
      return NULL;
    }
  if (value != NULL && !hs_dataset_path_is_safe (value, &why))
    {
      PROBLEM (r, &path, HS_DATASET_ERROR_PATH, "path \"%s\" %s", value, why);
      g_free (value);
      *bad = TRUE;
      return NULL;
    }
  return value;
}

static gboolean
get_number (HsManifestReader *r, HjNode *node, const HsJsonPath *path, double *out)
{
  double value;

  if (!expect (r, node, path, node_is_number (node), "a number"))
    return FALSE;
  value = hj_double (node);
  if (!isfinite (value))
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID, "number is not finite");
      return FALSE;
    }
  *out = value;
  return TRUE;
}

/* A positive integer member (image width or height); 0 when absent. */
static guint
get_dimension (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
               const char *key, gboolean *bad)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  gint64 value;

  if (node == NULL)
    return 0;
  if (!expect (r, node, &path,
               node->type == HJ_INT,
               "an integer"))
    {
      *bad = TRUE;
      return 0;
    }
  value = node->v.i;
  if (value < 1 || value > G_MAXINT32)
    {
      PROBLEM (r, &path, HS_DATASET_ERROR_INVALID,
               "image %s %" G_GINT64_FORMAT " is not in [1, %d]", key, value, G_MAXINT32);
      *bad = TRUE;
      return 0;
    }
  return (guint) value;
}

/* An optional array of strings as a NULL-terminated vector (empty when
 * absent); NULL with *bad when wrong. */
static char **
get_string_list (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
                 const char *key, gboolean non_empty_items, gboolean *bad)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  HjNode *array;
  GPtrArray *items;
  gboolean my_bad = FALSE;
  guint n;

  if (node == NULL)
    return g_new0 (char *, 1);
  if (!expect (r, node, &path, node->type == HJ_ARRAY, "an array of strings"))
    {
      *bad = TRUE;
      return NULL;
    }
  array = node;
  n = hj_length (array);
  items = g_ptr_array_new_full (n + 1, g_free);
  for (guint i = 0; i < n && !r->stop; i++)
    {
      PATH_INDEX (item_path, &path, i);
      HjNode *item = hj_element (array, i);

      if (!expect (r, item, &item_path, node_is_string (item), "a string"))
        {
          my_bad = TRUE;
          continue;
        }
      if (non_empty_items && item->v.s[0] == '\0')
        {
          PROBLEM (r, &item_path, HS_DATASET_ERROR_INVALID, "must not be empty");
          my_bad = TRUE;
          continue;
        }
      g_ptr_array_add (items, g_strdup (item->v.s));
    }
  if (my_bad)
    {
      g_ptr_array_unref (items);
      *bad = TRUE;
      return NULL;
    }
  g_ptr_array_add (items, NULL);
  g_ptr_array_set_free_func (items, NULL);
  return (char **) g_ptr_array_free (items, FALSE);
}

/* --- the schema, one function per object --------------------------------- */

static const char * const label_members[] = { "condition", "context", "locations", NULL };
static const char * const region_members[] = { "boxes", "mask", "extent", NULL };
static const char * const sentence_members[] = { "id", "text", "kind", "targets", "labels", NULL };
static const char * const map_members[] = { "model", "query", "prompt", "file", "tokens", "no_attn", NULL };
static const char * const instance_members[] = {
  "id", "image", "width", "height", "metadata", "abnormal", "findings", "regions",
  "sentences", "maps", NULL };
static const char * const top_members[] = {
  "format", "version", "name", "description", "models", "instances", NULL };
static const char * const model_members[] = { "description", NULL };
static const char * const label_contexts[] = { "positive", "negative", "uncertain", NULL };
static const char * const sentence_kinds[] = { "report", "custom", "class", NULL };

static HsLabel *
read_label (HsManifestReader *r, HjNode *node, const HsJsonPath *path)
{
  HjNode *object;
  gboolean bad = FALSE;
  g_autofree char *condition = NULL;
  g_autofree char *context = NULL;
  g_auto(GStrv) locations = NULL;

  if (!expect (r, node, path, node->type == HJ_OBJECT, "a label object"))
    return NULL;
  object = node;
  check_members (r, object, path, label_members);
  condition = get_string (r, object, path, "condition", TRUE, TRUE, &bad);
  context = get_string (r, object, path, "context", FALSE, TRUE, &bad);
  if (context != NULL && !g_strv_contains (label_contexts, context))
    {
      PATH_KEY (context_path, path, "context");
      PROBLEM (r, &context_path, HS_DATASET_ERROR_INVALID,
               "context \"%s\" is not one of positive, negative, uncertain", context);
      bad = TRUE;
    }
  locations = get_string_list (r, object, path, "locations", TRUE, &bad);
  if (bad || r->stop)
    return NULL;
  return hs_label_new (condition, context, (const char * const *) locations);
}

/* Appends the labels of array member `key` to `labels`; FALSE when any was bad. */
static gboolean
read_labels (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
             const char *key, GPtrArray *labels)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  HjNode *array;
  gboolean ok = TRUE;

  if (node == NULL)
    return TRUE;
  if (!expect (r, node, &path, node->type == HJ_ARRAY, "an array of labels"))
    return FALSE;
  array = node;
  for (guint i = 0; i < hj_length (array) && !r->stop; i++)
    {
      PATH_INDEX (item_path, &path, i);
      HsLabel *label = read_label (r, hj_element (array, i), &item_path);

      if (label != NULL)
        g_ptr_array_add (labels, label);
      else
        ok = FALSE;
    }
  return ok;
}

static gboolean
read_box (HsManifestReader *r, HjNode *node, const HsJsonPath *path, HsBox *box)
{
  HjNode *array;
  double v[4];
  gboolean ok = TRUE;

  if (!expect (r, node, path, node->type == HJ_ARRAY, "a box [x1, y1, x2, y2]"))
    return FALSE;
  array = node;
  if (hj_length (array) != 4)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID,
               "a box has 4 numbers [x1, y1, x2, y2], found %u", hj_length (array));
      return FALSE;
    }
  for (guint i = 0; i < 4 && !r->stop; i++)
    {
      PATH_INDEX (item_path, path, i);
      if (!get_number (r, hj_element (array, i), &item_path, &v[i]))
        ok = FALSE;
    }
  if (!ok || r->stop)
    return FALSE;
  box->x1 = v[0];
  box->y1 = v[1];
  box->x2 = v[2];
  box->y2 = v[3];
  return TRUE;
}

static HsRegion *
read_region (HsManifestReader *r, const char *name, HjNode *node, const HsJsonPath *path)
{
  HjNode *object;
  HjNode *boxes;
  gboolean bad = FALSE;
  g_autoptr(GArray) box_array = g_array_new (FALSE, FALSE, sizeof (HsBox));
  g_autofree char *mask = NULL;
  HsRegion *region;
  HjNode *extent_node;
  HsBox extent = { 0, 0, 0, 0 };
  gboolean has_extent = FALSE;

  if (name[0] == '\0')
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID, "a region name must not be empty");
      bad = TRUE;
    }
  if (!expect (r, node, path, node->type == HJ_OBJECT, "a region object"))
    return NULL;
  object = node;
  check_members (r, object, path, region_members);

  boxes = hj_member (object, "boxes");
  if (boxes != NULL)
    {
      PATH_KEY (boxes_path, path, "boxes");

      if (expect (r, boxes, &boxes_path, boxes->type == HJ_ARRAY, "an array of boxes"))
        {
          HjNode *array = boxes;

          for (guint i = 0; i < hj_length (array) && !r->stop; i++)
            {
              PATH_INDEX (box_path, &boxes_path, i);
              HsBox box;

              if (!read_box (r, hj_element (array, i), &box_path, &box))
                bad = TRUE;
              else if (box.x2 <= box.x1 || box.y2 <= box.y1)
                {
                  /* The same words as validate: an inverted box has no area. */
                  PROBLEM (r, &box_path, HS_DATASET_ERROR_INVALID,
                           "empty box [%g, %g, %g, %g]: needs x1 < x2 and y1 < y2",
                           box.x1, box.y1, box.x2, box.y2);
                  bad = TRUE;
                }
              else
                g_array_append_val (box_array, box);
            }
        }
      else
        bad = TRUE;
    }
  mask = get_path (r, object, path, "mask", FALSE, &bad);
  if (r->stop)
    return NULL;
  extent_node = hj_member (object, "extent");
  if (extent_node != NULL)
    {
      PATH_KEY (extent_path, path, "extent");

      if (!read_box (r, extent_node, &extent_path, &extent))
        bad = TRUE;
      else if (mask == NULL)
        {
          PROBLEM (r, &extent_path, HS_DATASET_ERROR_INVALID,
                   "an extent describes a mask, but the region has none");
          bad = TRUE;
        }
      else if (!(extent.x1 == 0 && extent.y1 == 0 && extent.x2 == 0 && extent.y2 == 0) &&
               (extent.x2 <= extent.x1 || extent.y2 <= extent.y1 || extent.x1 < 0 || extent.y1 < 0))
        {
          PROBLEM (r, &extent_path, HS_DATASET_ERROR_INVALID,
                   "extent [%g, %g, %g, %g] needs 0 <= x1 < x2 and 0 <= y1 < y2 "
                   "([0, 0, 0, 0] for an empty mask)", extent.x1, extent.y1, extent.x2, extent.y2);
          bad = TRUE;
        }
      else
        has_extent = TRUE;
      if (r->stop)
        return NULL;
    }
  if (!bad && box_array->len == 0 && mask == NULL)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID, "a region needs at least one box or a mask");
      bad = TRUE;
    }
  if (bad || r->stop)
    return NULL;

  region = hs_region_new (name);
  g_array_append_vals (region->boxes, box_array->data, box_array->len);
  region->mask = g_steal_pointer (&mask);
  if (has_extent)
    hs_region_set_extent (region, &extent);
  return region;
}

static HsSentence *
read_sentence (HsManifestReader *r, HjNode *node, const HsJsonPath *path,
               GHashTable *region_names, GHashTable *sentence_ids)
{
  HjNode *object;
  gboolean bad = FALSE;
  g_autofree char *id = NULL;
  g_autofree char *text = NULL;
  g_autofree char *kind = NULL;
  g_auto(GStrv) targets = NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_label_free);
  HsSentence *sentence;

  if (!expect (r, node, path, node->type == HJ_OBJECT, "a sentence object"))
    return NULL;
  object = node;
  check_members (r, object, path, sentence_members);

  id = get_string (r, object, path, "id", TRUE, TRUE, &bad);
  if (id != NULL && !g_hash_table_add (sentence_ids, g_strdup (id)))
    {
      PATH_KEY (id_path, path, "id");
      PROBLEM (r, &id_path, HS_DATASET_ERROR_INVALID, "duplicate sentence id \"%s\"", id);
      bad = TRUE;
    }
  text = get_string (r, object, path, "text", TRUE, FALSE, &bad);
  kind = get_string (r, object, path, "kind", FALSE, TRUE, &bad);
  if (kind != NULL && !g_strv_contains (sentence_kinds, kind))
    {
      PATH_KEY (kind_path, path, "kind");
      PROBLEM (r, &kind_path, HS_DATASET_ERROR_INVALID,
               "kind \"%s\" is not one of report, custom, class", kind);
      bad = TRUE;
    }
  targets = get_string_list (r, object, path, "targets", TRUE, &bad);
  if (targets != NULL)
    {
      PATH_KEY (targets_path, path, "targets");

      for (guint i = 0; targets[i] != NULL && !r->stop; i++)
        {
          PATH_INDEX (target_path, &targets_path, i);

          if (!g_hash_table_contains (region_names, targets[i]))
            {
              PROBLEM (r, &target_path, HS_DATASET_ERROR_INVALID,
                       "unknown region \"%s\" (not a key of this instance's \"regions\")",
                       targets[i]);
              bad = TRUE;
            }
          for (guint j = 0; j < i; j++)
            if (strcmp (targets[i], targets[j]) == 0)
              {
                PROBLEM (r, &target_path, HS_DATASET_ERROR_INVALID,
                         "region \"%s\" is listed twice", targets[i]);
                bad = TRUE;
                break;
              }
        }
    }
  if (!read_labels (r, object, path, "labels", labels))
    bad = TRUE;
  if (bad || r->stop)
    return NULL;

  sentence = hs_sentence_new (id, text);
  if (kind != NULL)
    hs_sentence_set_kind (sentence, kind);
  g_strfreev (sentence->targets);
  sentence->targets = g_steal_pointer (&targets);
  g_ptr_array_extend_and_steal (sentence->labels, g_steal_pointer (&labels));
  return sentence;
}

static HsMapRef *
read_map (HsManifestReader *r, HjNode *node, const HsJsonPath *path,
          GHashTable *sentence_ids, GHashTable *map_keys)
{
  HjNode *object;
  HjNode *no_attn_node;
  gboolean bad = FALSE;
  g_autofree char *model = NULL;
  g_autofree char *query = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *file = NULL;
  g_auto(GStrv) tokens = NULL;
  double no_attn = NAN;
  HsMapRef *ref;

  if (!expect (r, node, path, node->type == HJ_OBJECT, "a map object"))
    return NULL;
  object = node;
  check_members (r, object, path, map_members);

  model = get_string (r, object, path, "model", TRUE, TRUE, &bad);
  query = get_string (r, object, path, "query", FALSE, TRUE, &bad);
  prompt = get_string (r, object, path, "prompt", FALSE, FALSE, &bad);
  file = get_path (r, object, path, "file", TRUE, &bad);
  if ((hj_member (object, "tokens") != NULL))
    {
      tokens = get_string_list (r, object, path, "tokens", FALSE, &bad);
      if (tokens != NULL && g_strv_length (tokens) > hs_limits_get ()->max_tokens)
        {
          PATH_KEY (tokens_path, path, "tokens");
          PROBLEM (r, &tokens_path, HS_DATASET_ERROR_TOO_LARGE,
                   "%u tokens exceed the limit of %" G_GUINT64_FORMAT,
                   g_strv_length (tokens), hs_limits_get ()->max_tokens);
          bad = TRUE;
        }
    }
  no_attn_node = hj_member (object, "no_attn");
  if (no_attn_node != NULL)
    {
      PATH_KEY (no_attn_path, path, "no_attn");

      if (!get_number (r, no_attn_node, &no_attn_path, &no_attn))
        bad = TRUE;
    }
  if (r->stop)
    return NULL;

  if (query == NULL && prompt == NULL && !bad)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID,
               "a map needs a \"query\" (sentence id) or a \"prompt\" (free text)");
      bad = TRUE;
    }
  if (query != NULL && !g_hash_table_contains (sentence_ids, query))
    {
      PATH_KEY (query_path, path, "query");
      PROBLEM (r, &query_path, HS_DATASET_ERROR_INVALID,
               "unknown sentence \"%s\" (not an id in this instance's \"sentences\")", query);
      /* Not structural: the validator still checks the file. */
    }
  if (model != NULL && (query != NULL || prompt != NULL))
    {
      /* One map per (model, query), or per (model, prompt) for free prompts. */
      char *key = query != NULL ? g_strdup_printf ("q\x1f%s\x1f%s", model, query)
                                : g_strdup_printf ("p\x1f%s\x1f%s", model, prompt);

      if (!g_hash_table_add (map_keys, key))
        {
          PROBLEM (r, path, HS_DATASET_ERROR_INVALID,
                   query != NULL ? "a second map for model \"%s\" and query \"%s\""
                                 : "a second map for model \"%s\" and prompt \"%s\"",
                   model, query != NULL ? query : prompt);
        }
    }
  if (bad || r->stop)
    return NULL;

  ref = hs_map_ref_new (model, query, file);
  ref->prompt = g_steal_pointer (&prompt);
  ref->tokens = g_steal_pointer (&tokens);
  ref->no_attn = no_attn;
  return ref;
}

static gboolean
any_positive (GPtrArray *labels)
{
  for (guint i = 0; i < labels->len; i++)
    {
      HsLabel *label = g_ptr_array_index (labels, i);
      if (g_strcmp0 (label->context, "positive") == 0)
        return TRUE;
    }
  return FALSE;
}

static void
compact_labels (GPtrArray *labels)
{
  for (guint i = 0; i < labels->len; i++)
    {
      HsLabel *label = g_ptr_array_index (labels, i);

      hs_dataset_intern_in_place (&label->condition);
      hs_dataset_intern_in_place (&label->context);
      for (char **p = label->locations; p != NULL && *p != NULL; p++)
        hs_dataset_intern_in_place (p);
    }
}

/* Names that repeat across the instances of a dataset (regions, labels,
 * kinds, sentence and model ids, targets, tokens) become shared interned
 * copies; ids, texts, paths and prompts stay the instance's own. */
static void
compact_instance (HsInstance *instance)
{
  compact_labels (instance->findings);
  for (guint i = 0; i < instance->regions->len; i++)
    hs_dataset_intern_in_place (&((HsRegion *) g_ptr_array_index (instance->regions, i))->name);
  for (guint i = 0; i < instance->sentences->len; i++)
    {
      HsSentence *sentence = g_ptr_array_index (instance->sentences, i);

      hs_dataset_intern_in_place (&sentence->id);
      hs_dataset_intern_in_place (&sentence->kind);
      for (char **p = sentence->targets; p != NULL && *p != NULL; p++)
        hs_dataset_intern_in_place (p);
      compact_labels (sentence->labels);
    }
  for (guint i = 0; i < instance->maps->len; i++)
    {
      HsMapRef *ref = g_ptr_array_index (instance->maps, i);

      hs_dataset_intern_in_place (&ref->model);
      hs_dataset_intern_in_place (&ref->query);
      for (char **p = ref->tokens; p != NULL && *p != NULL; p++)
        hs_dataset_intern_in_place (p);
    }
}

static HsInstance *
read_instance (HsManifestReader *r, HjNode *node, const HsJsonPath *path,
               GHashTable *instance_ids)
{
  HjNode *object;
  HjNode *member;
  gboolean bad = FALSE;
  g_autofree char *id = NULL;
  g_autofree char *image = NULL;
  g_autoptr(HsInstance) instance = NULL;
  g_autoptr(GHashTable) region_names = NULL;
  g_autoptr(GHashTable) sentence_ids = NULL;
  g_autoptr(GHashTable) map_keys = NULL;
  gboolean has_abnormal = FALSE;

  if (!expect (r, node, path, node->type == HJ_OBJECT, "an instance object"))
    return NULL;
  object = node;
  check_members (r, object, path, instance_members);

  id = get_string (r, object, path, "id", TRUE, TRUE, &bad);
  if (id != NULL && g_hash_table_contains (instance_ids, id))
    {
      PATH_KEY (id_path, path, "id");
      PROBLEM (r, &id_path, HS_DATASET_ERROR_INVALID, "duplicate instance id \"%s\"", id);
      bad = TRUE;
    }
  else if (id != NULL)
    g_hash_table_add (instance_ids, g_strdup (id));
  image = get_path (r, object, path, "image", TRUE, &bad);
  if (r->stop)
    return NULL;

  instance = hs_instance_new (id, image);
  instance->width = get_dimension (r, object, path, "width", &bad);
  instance->height = get_dimension (r, object, path, "height", &bad);
  if ((instance->width == 0) != (instance->height == 0) && !bad)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID, "\"width\" and \"height\" go together");
      bad = TRUE;
    }
  if (instance->width > 0 && instance->height > 0 &&
      (guint64) instance->width * instance->height > hs_limits_get ()->max_image_pixels)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_TOO_LARGE,
               "image size %u × %u exceeds the limit of %" G_GUINT64_FORMAT " pixels",
               instance->width, instance->height, hs_limits_get ()->max_image_pixels);
      bad = TRUE;
    }

  r->image_width = r->image_height = 0;
  if (r->check_files && image != NULL && !r->stop)
    {
      PATH_KEY (image_path, path, "image");
      hs_validate_check_image (r, instance, &image_path);
    }

  member = hj_member (object, "metadata");
  if (member != NULL)
    {
      PATH_KEY (meta_path, path, "metadata");

      if (expect (r, member, &meta_path, member->type == HJ_OBJECT, "an object of strings"))
        {
          HjIter iter;
          const char *key;
          HjNode *value;

          hj_iter_init (&iter, member);
          while (!r->stop && hj_iter_next (&iter, &key, &value))
            {
              PATH_KEY (value_path, &meta_path, key);

              /* Keys repeat across instances: interned (see compact_instance). */
              if (expect (r, value, &value_path, node_is_string (value), "a string"))
                g_hash_table_insert (instance->metadata, (char *) g_intern_string (key),
                                     g_strdup (value->v.s));
              else
                bad = TRUE;
            }
        }
      else
        bad = TRUE;
    }

  member = hj_member (object, "abnormal");
  if (member != NULL)
    {
      PATH_KEY (abnormal_path, path, "abnormal");

      if (expect (r, member, &abnormal_path, node_is_bool (member), "a boolean"))
        {
          instance->abnormal = member->v.b;
          has_abnormal = TRUE;
        }
      else
        bad = TRUE;
    }

  if (!read_labels (r, object, path, "findings", instance->findings))
    bad = TRUE;
  if (!has_abnormal)
    instance->abnormal = any_positive (instance->findings);

  region_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  member = hj_member (object, "regions");
  if (member != NULL && !r->stop)
    {
      PATH_KEY (regions_path, path, "regions");

      if (expect (r, member, &regions_path, (member->type == HJ_OBJECT),
                  "an object of named regions"))
        {
          HjIter iter;
          const char *name;
          HjNode *value;

          hj_iter_init (&iter, member);
          while (!r->stop && hj_iter_next (&iter, &name, &value))
            {
              PATH_KEY (region_path, &regions_path, name);
              HsRegion *region;

              g_hash_table_add (region_names, g_strdup (name));
              region = read_region (r, name, value, &region_path);
              if (region == NULL)
                {
                  bad = TRUE;
                  continue;
                }
              if (r->check_files && !r->stop)
                hs_validate_check_region (r, instance, region, &region_path);
              g_ptr_array_add (instance->regions, region);
            }
        }
      else
        bad = TRUE;
    }

  sentence_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  member = hj_member (object, "sentences");
  if (member != NULL && !r->stop)
    {
      PATH_KEY (sentences_path, path, "sentences");

      if (expect (r, member, &sentences_path, (member->type == HJ_ARRAY),
                  "an array of sentences"))
        {
          HjNode *array = member;

          for (guint i = 0; i < hj_length (array) && !r->stop; i++)
            {
              PATH_INDEX (sentence_path, &sentences_path, i);
              HsSentence *sentence = read_sentence (r, hj_element (array, i),
                                                    &sentence_path, region_names, sentence_ids);
              if (sentence != NULL)
                g_ptr_array_add (instance->sentences, sentence);
              else
                bad = TRUE;
            }
        }
      else
        bad = TRUE;
    }

  map_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  member = hj_member (object, "maps");
  if (member != NULL && !r->stop)
    {
      PATH_KEY (maps_path, path, "maps");

      if (expect (r, member, &maps_path, member->type == HJ_ARRAY, "an array of maps"))
        {
          HjNode *array = member;

          for (guint i = 0; i < hj_length (array) && !r->stop; i++)
            {
              PATH_INDEX (map_path, &maps_path, i);
              HsMapRef *ref = read_map (r, hj_element (array, i), &map_path,
                                        sentence_ids, map_keys);
              if (ref == NULL)
                {
                  bad = TRUE;
                  continue;
                }
              if (r->check_files && !r->stop)
                hs_validate_check_map (r, instance, ref, &map_path);
              g_ptr_array_add (instance->maps, ref);
            }
        }
      else
        bad = TRUE;
    }

  if (bad || r->stop || id == NULL || image == NULL)
    return NULL;
  compact_instance (instance);
  return g_steal_pointer (&instance);
}

/* Every top-level member but "instances".  `whole` is FALSE for the members
 * an incremental read finds after "instances" (format and version were
 * required before them). */
static void
read_top_fields (HsManifestReader *r, HjNode *object, gboolean whole)
{
  HsDataset *dataset = r->dataset;
  HjNode *member;
  gboolean bad = FALSE;
  g_autofree char *format = NULL;

  format = get_string (r, object, NULL, "format", whole, FALSE, &bad);
  if (format != NULL && strcmp (format, FORMAT_NAME) != 0)
    {
      PATH_KEY (format_path, NULL, "format");
      PROBLEM (r, &format_path, HS_DATASET_ERROR_INVALID,
               "format \"%s\" is not \"" FORMAT_NAME "\"", format);
    }
  if (r->stop)
    return;

  member = hj_member (object, "version");
  if (member == NULL)
    {
      if (whole)
        PROBLEM (r, NULL, HS_DATASET_ERROR_INVALID, "missing required member \"version\"");
    }
  else
    {
      PATH_KEY (version_path, NULL, "version");

      if (expect (r, member, &version_path,
                  member->type == HJ_INT,
                  "an integer"))
        {
          gint64 version = member->v.i;

          if (version > HS_DATASET_FORMAT_VERSION)
            PROBLEM (r, &version_path, HS_DATASET_ERROR_INVALID,
                     "version %" G_GINT64_FORMAT " was written by a newer Heatscope; "
                     "this one reads version %d", version, HS_DATASET_FORMAT_VERSION);
          else if (version < 1)
            PROBLEM (r, &version_path, HS_DATASET_ERROR_INVALID,
                     "version %" G_GINT64_FORMAT " is not a valid format version", version);
        }
    }
  if (r->stop)
    return;

  check_members (r, object, NULL, top_members);
  if (whole || hj_member (object, "name") != NULL)
    g_atomic_pointer_set (&dataset->name, get_string (r, object, NULL, "name", FALSE, FALSE, &bad));
  if (whole || hj_member (object, "description") != NULL)
    g_atomic_pointer_set (&dataset->description,
                          get_string (r, object, NULL, "description", FALSE, FALSE, &bad));
  if (r->stop)
    return;

  member = hj_member (object, "models");
  if (member != NULL)
    {
      PATH_KEY (models_path, NULL, "models");

      if (expect (r, member, &models_path, member->type == HJ_OBJECT, "an object of models"))
        {
          HjIter iter;
          const char *name;
          HjNode *value;

          hj_iter_init (&iter, member);
          while (!r->stop && hj_iter_next (&iter, &name, &value))
            {
              PATH_KEY (model_path, &models_path, name);
              g_autofree char *description = NULL;

              if (name[0] == '\0')
                {
                  PROBLEM (r, &model_path, HS_DATASET_ERROR_INVALID,
                           "a model name must not be empty");
                  continue;
                }
              if (!expect (r, value, &model_path, value->type == HJ_OBJECT, "a model object"))
                continue;
              check_members (r, (value), &model_path, model_members);
              description = get_string (r, (value), &model_path,
                                        "description", FALSE, FALSE, &bad);
              hs_dataset_set_model_description (dataset, name, description);
            }
        }
    }
}

static void
read_top (HsManifestReader *r, HjNode *root)
{
  HsDataset *dataset = r->dataset;
  HjNode *object;
  HjNode *member;

  if (!expect (r, root, NULL, root->type == HJ_OBJECT, "a heatscope-dataset object"))
    return;
  object = root;
  read_top_fields (r, object, TRUE);
  if (r->stop)
    return;

  member = hj_member (object, "instances");
  if (member == NULL)
    {
      PROBLEM (r, NULL, HS_DATASET_ERROR_INVALID, "missing required member \"instances\"");
      return;
    }
  {
    PATH_KEY (instances_path, NULL, "instances");
    g_autoptr(GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    HjNode *array;

    if (!expect (r, member, &instances_path, member->type == HJ_ARRAY, "an array of instances"))
      return;
    array = member;
    for (guint i = 0; i < hj_length (array) && !r->stop; i++)
      {
        PATH_INDEX (instance_path, &instances_path, i);
        HsInstance *instance = read_instance (r, hj_element (array, i),
                                              &instance_path, ids);
        if (instance != NULL)
          hs_dataset_add_instance (dataset, instance);
      }
  }
}

/* --- reading the file ---------------------------------------------------- */

static guint
line_of_offset (const char *data, gsize offset)
{
  guint line = 1;

  for (gsize i = 0; i < offset; i++)
    if (data[i] == '\n')
      line++;
  return line;
}

static gboolean
is_blank (const char *data, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (data[i] != ' ' && data[i] != '\t' && data[i] != '\r' && data[i] != '\n')
      return FALSE;
  return TRUE;
}

gboolean
hs_manifest_read (HsManifestReader *r, const char *root, const char *manifest_path)
{
  g_autoptr(GMappedFile) mapped = NULL;
  const char *data;
  HjParser parser = { 0 };
  HjNode *root_node;
  g_autoptr(GError) local_error = NULL;
  const char *invalid = NULL;
  guint64 limit = hs_limits_get ()->max_manifest_bytes;
  gsize len = 0;
  GStatBuf st;

  if (g_stat (manifest_path, &st) != 0)
    {
      int saved = errno;
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_IO, "cannot read the manifest: %s",
                                  g_strerror (saved));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_IO,
                                  "the manifest is not a regular file");
      return FALSE;
    }
  if ((guint64) st.st_size > limit)
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_TOO_LARGE,
                                  "the manifest has %" G_GUINT64_FORMAT " bytes, over the limit of %"
                                  G_GUINT64_FORMAT, (guint64) st.st_size, limit);
      return FALSE;
    }
  /* Mapped, not copied: the text is only read once, by the parser. */
  mapped = g_mapped_file_new (manifest_path, FALSE, &local_error);
  if (mapped == NULL)
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_IO, "cannot read the manifest: %s",
                                  local_error->message);
      return FALSE;
    }
  data = g_mapped_file_get_contents (mapped);
  len = g_mapped_file_get_length (mapped);
  if (data == NULL)
    data = "";
  if ((guint64) len > limit)
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_TOO_LARGE,
                                  "the manifest has %" G_GUINT64_FORMAT " bytes, over the limit of %"
                                  G_GUINT64_FORMAT, (guint64) len, limit);
      return FALSE;
    }
  if (!g_utf8_validate (data, (gssize) len, &invalid))
    {
      gsize offset = (gsize) (invalid - data);
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_PARSE,
                                  "invalid UTF-8 (or a NUL byte) at byte %" G_GSIZE_FORMAT
                                  " (line %u)", offset, line_of_offset (data, offset));
      return FALSE;
    }
  if (is_blank (data, len))
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_PARSE, "the manifest is empty");
      return FALSE;
    }

  root_node = hj_parse (&parser, data, len);
  if (root_node == NULL)
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_PARSE, "not valid JSON: %s",
                                  parser.error);
      hj_parser_clear (&parser);
      return FALSE;
    }
  g_clear_pointer (&mapped, g_mapped_file_unref);

  read_top (r, root_node);
  hj_parser_clear (&parser);
  return !r->stop;
}

/* Splits `path` (folder or manifest file) into the canonical folder and the
 * manifest's absolute path. */
static gboolean
locate_manifest (const char *path, char **root, char **manifest, GError **error)
{
  g_autofree char *absolute = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  char *real;

  if (g_path_is_absolute (path))
    absolute = g_canonicalize_filename (path, NULL);
  else
    {
      g_autofree char *cwd = g_get_current_dir ();
      absolute = g_canonicalize_filename (path, cwd);
    }

  if (g_file_test (absolute, G_FILE_TEST_IS_DIR))
    {
      dir = g_strdup (absolute);
      base = g_strdup (HS_DATASET_MANIFEST);
    }
  else if (g_file_test (absolute, G_FILE_TEST_EXISTS))
    {
      dir = g_path_get_dirname (absolute);
      base = g_path_get_basename (absolute);
    }
  else
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   "%s: no such dataset folder or manifest", path);
      return FALSE;
    }

  real = realpath (dir, NULL);
  if (real == NULL)
    {
      int saved = errno;
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   "%s: cannot resolve the dataset folder: %s", path, g_strerror (saved));
      return FALSE;
    }
  *root = g_strdup (real);
  free (real);
  *manifest = g_build_filename (*root, base, NULL);
  return TRUE;
}

#ifdef __GLIBC__
/* The parse tree of a large manifest is freed by now, but glibc keeps the
 * pages (in a thread's arena when an app loads on a worker): hand them
 * back, or a 10 000-instance dataset costs its tree size in RSS for good. */
#define TRIM_AFTER_LARGE_LOAD(dataset) \
  G_STMT_START { if (hs_dataset_get_n_instances (dataset) >= 1000) malloc_trim (0); } G_STMT_END
#else
#define TRIM_AFTER_LARGE_LOAD(dataset) G_STMT_START { } G_STMT_END
#endif

static HsDataset *
load_whole (const char *root, const char *manifest, GError **error)
{
  g_autoptr(HsDataset) dataset = NULL;
  HsManifestReader reader = { 0 };

  dataset = hs_dataset_new_internal (root, manifest);
  reader.manifest = manifest;
  reader.dataset = dataset;
  if (!hs_manifest_read (&reader, root, manifest))
    {
      g_propagate_error (error, reader.error);
      return NULL;
    }
  TRIM_AFTER_LARGE_LOAD (dataset);
  return g_steal_pointer (&dataset);
}

HsDataset *
hs_dataset_load (const char *path, GError **error)
{
  g_autofree char *root = NULL;
  g_autofree char *manifest = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!locate_manifest (path, &root, &manifest, error))
    return NULL;
  return load_whole (root, manifest, error);
}

/* --- incremental reading ------------------------------------------------- *
 * The manifest stays mapped while its instances are read one element of the
 * "instances" array at a time: each is parsed into a small tree (the arena
 * is emptied after every batch), checked by the same read_instance as the
 * whole-file reader, and appended.  The pages already read are handed back
 * (madvise), so neither a whole parse tree nor the whole text is resident.
 * Anything unusual before the first instances (no object, no "instances"
 * array, format or version missing before it, a problem in the first
 * instances, fewer instances than asked for) makes hs_dataset_open read the
 * file whole instead, which reports problems exactly as hs_dataset_load. */

struct _HsManifestStream {
  GMappedFile     *mapped;
  HjParser         parser;     /* start..end: the whole text; p: where reading goes on */
  HsManifestReader reader;
  char            *manifest;
  GHashTable      *ids;        /* instance ids read so far (duplicates) */
  GPtrArray       *keys;       /* top-level member names read so far */
  guint            next;       /* index of the next instance */
  gsize            released;   /* text before this offset was handed back */
  GError          *error;      /* the problem that stopped reading */
};
typedef struct _HsManifestStream HsManifestStream;

void
hs_manifest_stream_free (HsManifestStream *stream)
{
  if (stream == NULL)
    return;
  hj_parser_clear (&stream->parser);
  g_clear_pointer (&stream->parser.stack, g_ptr_array_unref);
  g_clear_pointer (&stream->mapped, g_mapped_file_unref);
  g_clear_pointer (&stream->ids, g_hash_table_unref);
  g_clear_pointer (&stream->keys, g_ptr_array_unref);
  g_clear_error (&stream->reader.error);
  g_clear_error (&stream->error);
  g_free (stream->manifest);
  g_free (stream);
}

/* [from, to) must be UTF-8 without NUL, as the whole-file reader demands
 * of the whole text; `limit` (≥ to) lets a character cut at `to` finish. */
static gboolean
stream_check_utf8 (HsManifestStream *stream, const char *from, const char *to, const char *limit)
{
  const char *start = stream->parser.start;
  const char *invalid = NULL;
  gsize offset;

  if (g_utf8_validate (from, limit - from, &invalid) || invalid >= to)
    return TRUE;
  offset = (gsize) (invalid - start);
  hs_manifest_reader_problem (&stream->reader, NULL, NULL, HS_DATASET_ERROR_PARSE,
                              "invalid UTF-8 (or a NUL byte) at byte %" G_GSIZE_FORMAT
                              " (line %u)", offset, line_of_offset (start, offset));
  return FALSE;
}

/* A syntax error at parser->p (parser->error says what), unless the text
 * before it is not UTF-8: the whole-file reader reports that first. */
static gboolean
stream_json_problem (HsManifestStream *stream, const char *from)
{
  HjParser *parser = &stream->parser;
  const char *to = MIN (parser->p, parser->end);

  if (!stream_check_utf8 (stream, from, to, MIN (to + 4, parser->end)))
    return FALSE;
  hs_manifest_reader_problem (&stream->reader, NULL, NULL, HS_DATASET_ERROR_PARSE,
                              "not valid JSON: %s", parser->error);
  return FALSE;
}

typedef enum {
  STEP_INSTANCE,
  STEP_END,      /* the "instances" array is closed */
  STEP_ERROR,    /* stream->reader has the problem */
} StreamStep;

static StreamStep
stream_step (HsManifestStream *stream, HsDataset *dataset)
{
  HjParser *parser = &stream->parser;
  const char *begin = parser->p;
  HjNode *node;
  HsInstance *instance;
  PATH_KEY (instances_path, NULL, "instances");
  PATH_INDEX (instance_path, &instances_path, stream->next);

  hj_skip_space (parser);
  if (parser->p < parser->end && *parser->p == ']')
    {
      parser->p++;
      return stream_check_utf8 (stream, begin, parser->p, parser->p) ? STEP_END : STEP_ERROR;
    }
  if (stream->next > 0)
    {
      if (parser->p >= parser->end || *parser->p != ',')
        {
          hj_fail (parser, "expected ',' or ']'");
          stream_json_problem (stream, begin);
          return STEP_ERROR;
        }
      parser->p++;
    }
  node = hj_parse_value (parser, 2);
  if (node == NULL)
    {
      stream_json_problem (stream, begin);
      return STEP_ERROR;
    }
  if (!stream_check_utf8 (stream, begin, parser->p, parser->p))
    return STEP_ERROR;
  instance = read_instance (&stream->reader, node, &instance_path, stream->ids);
  if (instance == NULL)
    {
      if (stream->reader.error == NULL)
        hs_manifest_reader_problem (&stream->reader, NULL, &instance_path, HS_DATASET_ERROR_INVALID,
                                    "not a valid instance");
      return STEP_ERROR;
    }
  hs_dataset_add_instance (dataset, instance);
  stream->next++;
  return STEP_INSTANCE;
}

/* Reads one member "key": value of the top-level object; FALSE at a syntax
 * error (parser->error set) or a duplicate name. */
static gboolean
stream_member (HsManifestStream *stream, const char **key_out, HjNode **value_out,
               gboolean value)
{
  HjParser *parser = &stream->parser;
  const char *key;

  hj_skip_space (parser);
  if (parser->p >= parser->end || *parser->p != '"')
    return hj_fail (parser, "expected a member name in double quotes");
  parser->p++;
  key = hj_parse_string (parser);
  if (key == NULL)
    return FALSE;
  for (guint i = 0; i < stream->keys->len; i++)
    if (strcmp (g_ptr_array_index (stream->keys, i), key) == 0)
      {
        g_autofree char *message = g_strdup_printf ("duplicate member \"%s\"", key);
        return hj_fail (parser, message);
      }
  g_ptr_array_add (stream->keys, g_strdup (key));
  hj_skip_space (parser);
  if (parser->p >= parser->end || *parser->p != ':')
    return hj_fail (parser, "expected ':' after a member name");
  parser->p++;
  *key_out = key;
  if (value)
    {
      *value_out = hj_parse_value (parser, 2);
      if (*value_out == NULL)
        return FALSE;
    }
  return TRUE;
}

/* After the "instances" array: the rest of the top-level object. */
static gboolean
stream_finish (HsManifestStream *stream, HsDataset *dataset)
{
  HjParser *parser = &stream->parser;
  const char *begin = parser->p;
  g_autoptr(GArray) members = g_array_new (FALSE, FALSE, sizeof (HjMember));

  for (;;)
    {
      HjMember member;

      hj_skip_space (parser);
      if (parser->p < parser->end && *parser->p == '}')
        {
          parser->p++;
          break;
        }
      if (parser->p >= parser->end || *parser->p != ',')
        {
          hj_fail (parser, "expected ',' or '}'");
          return stream_json_problem (stream, begin);
        }
      parser->p++;
      if (!stream_member (stream, &member.key, &member.value, TRUE))
        return stream_json_problem (stream, begin);
      g_array_append_val (members, member);
    }
  hj_skip_space (parser);
  if (parser->p < parser->end)
    {
      hj_fail (parser, "unexpected text after the top-level value");
      return stream_json_problem (stream, begin);
    }
  if (!stream_check_utf8 (stream, begin, parser->end, parser->end))
    return FALSE;
  if (members->len > 0)
    {
      HjNode object = { HJ_OBJECT, members->len, { .members = (HjMember *) members->data } };

      read_top_fields (&stream->reader, &object, FALSE);
    }
  return !stream->reader.stop;
}

/* The top level up to "[" of "instances", then `n_first` instances.  FALSE
 * when the manifest is not laid out so (hs_dataset_open reads it whole). */
static gboolean
stream_begin (HsManifestStream *stream, HsDataset *dataset, guint n_first)
{
  HjParser *parser = &stream->parser;
  guint64 limit = hs_limits_get ()->max_manifest_bytes;
  g_autoptr(GArray) members = g_array_new (FALSE, FALSE, sizeof (HjMember));
  GStatBuf st;
  const char *data;
  gsize len;

  if (g_stat (stream->manifest, &st) != 0 || !S_ISREG (st.st_mode) || (guint64) st.st_size > limit)
    return FALSE;
  stream->mapped = g_mapped_file_new (stream->manifest, FALSE, NULL);
  if (stream->mapped == NULL)
    return FALSE;
  data = g_mapped_file_get_contents (stream->mapped);
  len = g_mapped_file_get_length (stream->mapped);
  if (data == NULL || (guint64) len > limit)
    return FALSE;

  parser->start = parser->p = data;
  parser->end = data + len;
  parser->stack = g_ptr_array_new ();
  stream->keys = g_ptr_array_new_with_free_func (g_free);
  hj_skip_space (parser);
  if (parser->p >= parser->end || *parser->p != '{')
    return FALSE;
  parser->p++;
  for (;;)
    {
      HjMember member;

      hj_skip_space (parser);
      if (members->len > 0)
        {
          if (parser->p >= parser->end || *parser->p != ',')
            return FALSE;
          parser->p++;
        }
      if (!stream_member (stream, &member.key, &member.value, FALSE))
        return FALSE;
      if (strcmp (member.key, "instances") == 0)
        break;
      member.value = hj_parse_value (parser, 2);
      if (member.value == NULL)
        return FALSE;
      g_array_append_val (members, member);
    }
  hj_skip_space (parser);
  if (parser->p >= parser->end || *parser->p != '[')
    return FALSE;
  parser->p++;
  if (!g_utf8_validate (data, parser->p - data, NULL))
    return FALSE;

  {
    HjNode object = { HJ_OBJECT, members->len, { .members = (HjMember *) members->data } };

    if (hj_member (&object, "format") == NULL || hj_member (&object, "version") == NULL)
      return FALSE;
    read_top_fields (&stream->reader, &object, TRUE);
    if (stream->reader.stop)
      return FALSE;
  }

  stream->ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n_first; i++)
    if (stream_step (stream, dataset) != STEP_INSTANCE)
      return FALSE;
  hj_arena_clear (&parser->arena);
  return TRUE;
}

HsDataset *
hs_dataset_open (const char *path, guint n_first, GError **error)
{
  g_autofree char *root = NULL;
  g_autofree char *manifest = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  HsManifestStream *stream;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!locate_manifest (path, &root, &manifest, error))
    return NULL;

  dataset = hs_dataset_new_internal (root, manifest);
  stream = g_new0 (HsManifestStream, 1);
  stream->manifest = g_strdup (manifest);
  stream->reader.manifest = stream->manifest;
  stream->reader.dataset = dataset;
  if (!stream_begin (stream, dataset, MAX (n_first, 1)))
    {
      hs_manifest_stream_free (stream);
      g_clear_pointer (&dataset, hs_dataset_unref);
      return load_whole (root, manifest, error);
    }
  dataset->stream = stream;
  g_atomic_int_set (&dataset->complete, FALSE);
  return g_steal_pointer (&dataset);
}

gboolean
hs_dataset_load_more (HsDataset *dataset, guint max_instances, GError **error)
{
  HsManifestStream *stream;
  gboolean complete = FALSE;

  g_return_val_if_fail (dataset != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_atomic_int_get (&dataset->complete))
    return TRUE;
  stream = dataset->stream;
  g_return_val_if_fail (stream != NULL, FALSE);
  if (stream->error == NULL)
    {
      for (guint i = 0; i < max_instances; i++)
        {
          StreamStep step = stream_step (stream, dataset);

          if (step == STEP_INSTANCE)
            continue;
          if (step == STEP_END && stream_finish (stream, dataset))
            complete = TRUE;
          break;
        }
      hj_arena_clear (&stream->parser.arena);
      if (stream->reader.stop)
        {
          stream->error = g_steal_pointer (&stream->reader.error);
          if (stream->error == NULL)
            stream->error = g_error_new (HS_DATASET_ERROR, HS_DATASET_ERROR_PARSE,
                                         "%s: could not be read", stream->manifest);
          g_clear_pointer (&stream->mapped, g_mapped_file_unref);
          g_clear_pointer (&stream->ids, g_hash_table_unref);
        }
    }
  if (stream->error != NULL)
    {
      g_propagate_error (error, g_error_copy (stream->error));
      return FALSE;
    }
  if (complete)
    {
      dataset->stream = NULL;
      hs_manifest_stream_free (stream);
      TRIM_AFTER_LARGE_LOAD (dataset);
      g_atomic_int_set (&dataset->complete, TRUE);
      return TRUE;
    }
  {
    /* Hand back the text already read (it is read again only to find the
     * line of a later syntax error). */
    gsize page = (gsize) sysconf (_SC_PAGESIZE);
    gsize done = (gsize) (stream->parser.p - stream->parser.start) & ~(page - 1);

    if (done > stream->released)
      {
        madvise ((char *) stream->parser.start + stream->released, done - stream->released,
                 MADV_DONTNEED);
        stream->released = done;
      }
  }
  return TRUE;
}

gboolean
hs_dataset_validate (const char *path, GPtrArray **problems)
{
  g_autofree char *root = NULL;
  g_autofree char *manifest = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsManifestReader reader = { 0 };
  GPtrArray *found;

  g_return_val_if_fail (path != NULL, FALSE);

  found = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_problem_free);
  if (!locate_manifest (path, &root, &manifest, &error))
    g_ptr_array_add (found, hs_problem_new (path, "$", error->message));
  else
    {
      dataset = hs_dataset_new_internal (root, manifest);
      reader.manifest = manifest;
      reader.dataset = dataset;
      reader.collect = TRUE;
      reader.check_files = TRUE;
      reader.problems = found;
      hs_manifest_read (&reader, root, manifest);
    }

  {
    gboolean ok = found->len == 0;

    if (problems != NULL)
      *problems = found;
    else
      g_ptr_array_unref (found);
    return ok;
  }
}

/* --- writing ------------------------------------------------------------- */

static void
indent (GString *out, guint level)
{
  for (guint i = 0; i < level; i++)
    g_string_append (out, "  ");
}

/* Shortest decimal that reads back as the same double; integers without a
 * fraction. */
static void
append_number (GString *out, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (value == floor (value) && fabs (value) < 9007199254740992.0)
    {
      g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) value);
      return;
    }
  /* 15 digits print 0.1 as "0.1"; 17 always read back exactly. */
  g_ascii_formatd (buffer, sizeof buffer, "%.15g", value);
  if (g_ascii_strtod (buffer, NULL) != value)
    {
      g_ascii_formatd (buffer, sizeof buffer, "%.16g", value);
      if (g_ascii_strtod (buffer, NULL) != value)
        g_ascii_formatd (buffer, sizeof buffer, "%.17g", value);
    }
  g_string_append (out, buffer);
}

static void
append_key (GString *out, guint level, const char *key)
{
  indent (out, level);
  append_quoted (out, key);
  g_string_append (out, ": ");
}

/* Members are written by hand in a fixed order: each call appends ",\n"
 * before all but the first member of an object. */
typedef struct {
  GString *out;
  guint    level;
  gboolean first;
  gboolean one_line;   /* small objects (labels, regions, maps) stay on one line */
} Writer;

static void
member (Writer *w, const char *key)
{
  if (w->one_line)
    {
      if (!w->first)
        g_string_append (w->out, ", ");
      append_quoted (w->out, key);
      g_string_append (w->out, ": ");
    }
  else
    {
      if (!w->first)
        g_string_append (w->out, ",\n");
      append_key (w->out, w->level, key);
    }
  w->first = FALSE;
}

static void
member_string (Writer *w, const char *key, const char *value)
{
  member (w, key);
  append_quoted (w->out, value);
}

static void
append_inline_strings (GString *out, char **strv)
{
  g_string_append_c (out, '[');
  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      append_quoted (out, strv[i]);
    }
  g_string_append_c (out, ']');
}

static void
open_object (Writer *w, Writer *child)
{
  g_string_append (w->out, "{\n");
  child->out = w->out;
  child->level = w->level + 1;
  child->first = TRUE;
  child->one_line = FALSE;
}

static void
open_one_line_object (Writer *w, Writer *child)
{
  g_string_append_c (w->out, '{');
  child->out = w->out;
  child->level = w->level + 1;
  child->first = TRUE;
  child->one_line = TRUE;
}

static void
close_object (Writer *child)
{
  if (child->one_line)
    {
      g_string_append_c (child->out, '}');
      return;
    }
  g_string_append_c (child->out, '\n');
  indent (child->out, child->level - 1);
  g_string_append_c (child->out, '}');
}

static void
write_label (Writer *w, const HsLabel *label)
{
  Writer o;

  open_one_line_object (w, &o);
  member_string (&o, "condition", label->condition ? label->condition : "");
  member_string (&o, "context", label->context ? label->context : "positive");
  member (&o, "locations");
  append_inline_strings (o.out, label->locations);
  close_object (&o);
}

static void
write_labels (Writer *w, const char *key, GPtrArray *labels)
{
  member (w, key);
  if (labels->len == 0)
    {
      g_string_append (w->out, "[]");
      return;
    }
  g_string_append (w->out, "[\n");
  for (guint i = 0; i < labels->len; i++)
    {
      Writer item = { w->out, w->level + 1, TRUE, FALSE };

      indent (w->out, w->level + 1);
      write_label (&item, g_ptr_array_index (labels, i));
      g_string_append (w->out, i + 1 < labels->len ? ",\n" : "\n");
    }
  indent (w->out, w->level);
  g_string_append_c (w->out, ']');
}

static void
write_region (Writer *w, const HsRegion *region)
{
  Writer o;

  open_one_line_object (w, &o);
  if (region->boxes != NULL && region->boxes->len > 0)
    {
      member (&o, "boxes");
      g_string_append_c (o.out, '[');
      for (guint i = 0; i < region->boxes->len; i++)
        {
          const HsBox *box = &g_array_index (region->boxes, HsBox, i);

          if (i > 0)
            g_string_append (o.out, ", ");
          g_string_append_c (o.out, '[');
          append_number (o.out, box->x1);
          g_string_append (o.out, ", ");
          append_number (o.out, box->y1);
          g_string_append (o.out, ", ");
          append_number (o.out, box->x2);
          g_string_append (o.out, ", ");
          append_number (o.out, box->y2);
          g_string_append_c (o.out, ']');
        }
      g_string_append_c (o.out, ']');
    }
  if (region->mask != NULL)
    member_string (&o, "mask", region->mask);
  if (region->mask != NULL && region->has_extent)
    {
      member (&o, "extent");
      g_string_append_c (o.out, '[');
      append_number (o.out, region->extent.x1);
      g_string_append (o.out, ", ");
      append_number (o.out, region->extent.y1);
      g_string_append (o.out, ", ");
      append_number (o.out, region->extent.x2);
      g_string_append (o.out, ", ");
      append_number (o.out, region->extent.y2);
      g_string_append_c (o.out, ']');
    }
  close_object (&o);
}

static void
write_sentence (Writer *w, const HsSentence *sentence)
{
  Writer o;

  open_object (w, &o);
  member_string (&o, "id", sentence->id ? sentence->id : "");
  member_string (&o, "text", sentence->text ? sentence->text : "");
  member_string (&o, "kind", sentence->kind ? sentence->kind : "report");
  member (&o, "targets");
  append_inline_strings (o.out, sentence->targets);
  if (sentence->labels != NULL && sentence->labels->len > 0)
    write_labels (&o, "labels", sentence->labels);
  close_object (&o);
}

static void
write_map (Writer *w, const HsMapRef *ref)
{
  Writer o;

  open_one_line_object (w, &o);
  member_string (&o, "model", ref->model ? ref->model : "");
  if (ref->query != NULL)
    member_string (&o, "query", ref->query);
  if (ref->prompt != NULL)
    member_string (&o, "prompt", ref->prompt);
  member_string (&o, "file", ref->file ? ref->file : "");
  if (ref->tokens != NULL)
    {
      member (&o, "tokens");
      append_inline_strings (o.out, ref->tokens);
    }
  if (isfinite (ref->no_attn))
    {
      member (&o, "no_attn");
      append_number (o.out, ref->no_attn);
    }
  close_object (&o);
}

static int
compare_keys (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

static GPtrArray *
sorted_keys (GHashTable *table)
{
  GPtrArray *keys = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, compare_keys);
  return keys;
}

static void
write_array_of (Writer *w, const char *key, GPtrArray *items,
                void (*write_item) (Writer *, gconstpointer))
{
  member (w, key);
  if (items->len == 0)
    {
      g_string_append (w->out, "[]");
      return;
    }
  g_string_append (w->out, "[\n");
  for (guint i = 0; i < items->len; i++)
    {
      Writer item = { w->out, w->level + 1, TRUE, FALSE };

      indent (w->out, w->level + 1);
      write_item (&item, g_ptr_array_index (items, i));
      g_string_append (w->out, i + 1 < items->len ? ",\n" : "\n");
    }
  indent (w->out, w->level);
  g_string_append_c (w->out, ']');
}

static void
write_sentence_cb (Writer *w, gconstpointer item)
{
  write_sentence (w, item);
}

static void
write_map_cb (Writer *w, gconstpointer item)
{
  write_map (w, item);
}

static void
write_instance (Writer *w, const HsInstance *instance)
{
  Writer o;

  open_object (w, &o);
  member_string (&o, "id", instance->id ? instance->id : "");
  member_string (&o, "image", instance->image ? instance->image : "");
  if (instance->width > 0 && instance->height > 0)
    {
      member (&o, "width");
      g_string_append_printf (o.out, "%u", instance->width);
      member (&o, "height");
      g_string_append_printf (o.out, "%u", instance->height);
    }
  if (instance->metadata != NULL && g_hash_table_size (instance->metadata) > 0)
    {
      g_autoptr(GPtrArray) keys = sorted_keys (instance->metadata);
      Writer m;

      member (&o, "metadata");
      open_object (&o, &m);
      for (guint i = 0; i < keys->len; i++)
        {
          const char *key = g_ptr_array_index (keys, i);
          member_string (&m, key, g_hash_table_lookup (instance->metadata, key));
        }
      close_object (&m);
    }
  member (&o, "abnormal");
  g_string_append (o.out, instance->abnormal ? "true" : "false");
  write_labels (&o, "findings", instance->findings);

  member (&o, "regions");
  if (instance->regions->len == 0)
    g_string_append (o.out, "{}");
  else
    {
      Writer r;

      open_object (&o, &r);
      for (guint i = 0; i < instance->regions->len; i++)
        {
          const HsRegion *region = g_ptr_array_index (instance->regions, i);

          member (&r, region->name ? region->name : "");
          write_region (&r, region);
        }
      close_object (&r);
    }
  write_array_of (&o, "sentences", instance->sentences, write_sentence_cb);
  write_array_of (&o, "maps", instance->maps, write_map_cb);
  close_object (&o);
}

static void
write_instance_cb (Writer *w, gconstpointer item)
{
  write_instance (w, item);
}

/* The manifest text: pretty-printed, members in a fixed order, metadata and
 * models sorted by key, so equal datasets give equal bytes. */
static char *
dataset_to_json (HsDataset *dataset, gsize *len)
{
  guint n = hs_dataset_get_n_instances (dataset);
  GString *out = g_string_sized_new (4096 + 2048 * (gsize) n);
  g_autoptr(GPtrArray) instances = g_ptr_array_sized_new (n);
  Writer top = { out, 0, TRUE, FALSE };
  Writer o;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (instances, hs_dataset_get_instance (dataset, i));

  open_object (&top, &o);
  member_string (&o, "format", FORMAT_NAME);
  member (&o, "version");
  g_string_append_printf (out, "%d", HS_DATASET_FORMAT_VERSION);
  if (dataset->name != NULL)
    member_string (&o, "name", dataset->name);
  if (dataset->description != NULL)
    member_string (&o, "description", dataset->description);
  if (g_hash_table_size (dataset->models) > 0)
    {
      g_autoptr(GPtrArray) keys = sorted_keys (dataset->models);
      Writer m;

      member (&o, "models");
      open_object (&o, &m);
      for (guint i = 0; i < keys->len; i++)
        {
          const char *key = g_ptr_array_index (keys, i);
          const char *description = g_hash_table_lookup (dataset->models, key);
          Writer d;

          member (&m, key);
          open_object (&m, &d);
          if (description != NULL)
            member_string (&d, "description", description);
          if (d.first)
            {
              g_string_truncate (out, out->len - 1);  /* "{\n" → "{}" */
              g_string_append_c (out, '}');
            }
          else
            close_object (&d);
        }
      close_object (&m);
    }
  write_array_of (&o, "instances", instances, write_instance_cb);
  close_object (&o);
  g_string_append_c (out, '\n');
  *len = out->len;
  return g_string_free (out, FALSE);
}

char *
hs_dataset_to_json (HsDataset *dataset, gsize *length)
{
  gsize len = 0;
  char *text;

  g_return_val_if_fail (dataset != NULL, NULL);
  text = dataset_to_json (dataset, &len);
  if (length != NULL)
    *length = len;
  return text;
}

gboolean
hs_dataset_save (HsDataset *dataset, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize len = 0;

  g_return_val_if_fail (dataset != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_mkdir_with_parents (dataset->root, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   "%s: cannot create the dataset folder: %s", dataset->root, g_strerror (saved));
      return FALSE;
    }
  text = dataset_to_json (dataset, &len);
  if (!hs_atomic_write (dataset->manifest_path, text, len, &local_error))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO, "%s: cannot write the manifest: %s",
                   dataset->manifest_path, local_error->message);
      return FALSE;
    }
  return TRUE;
}
