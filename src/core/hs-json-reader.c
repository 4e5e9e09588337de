/* hs-json-reader.c — the strict JSON reader (hs-json-reader-private.h) and
 * the JSON path strings of problem messages */
#include "hs-json-reader-private.h"

#include <math.h>
#include <string.h>

/* --- the arena ----------------------------------------------------------- */

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

void
hj_arena_clear (HjArena *arena)
{
  g_slist_free_full (arena->blocks, g_free);
  memset (arena, 0, sizeof *arena);
}

/* --- the parser ---------------------------------------------------------- */

char *
hj_one_line (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));

  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    if (*p == '\n')
      g_string_append (out, "\\n");
    else if (*p == '\t')
      g_string_append (out, "\\t");
    else if (*p < 0x20 || *p == 0x7f)
      g_string_append_printf (out, "\\x%02x", *p);
    else
      g_string_append_c (out, (char) *p);
  return g_string_free (out, FALSE);
}

gboolean
hj_fail (HjParser *parser, const char *what_raw)
{
  guint line = 1, column = 1;
  g_autofree char *what = NULL;

  if (parser->error != NULL)
    return FALSE;
  /* a member name quoted in the message ("duplicate member") is the
   * file's own text: one line, whatever it holds */
  what = hj_one_line (what_raw);
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

static gboolean
hj_read_hex4 (HjParser *parser, guint *out)
{
  guint value = 0;

  if (parser->end - parser->p < 4)
    return hj_fail (parser, "truncated \\u escape");
  for (int i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (parser->p[i]);

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
const char *
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
            guint unit = 0, low = 0;  /* set by hj_read_hex4 before any use; GCC -O2 cannot tell */
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

static HjNode *
hj_new_node (HjParser *parser, HjType type)
{
  HjNode *node = hj_alloc (&parser->arena, sizeof (HjNode));

  node->type = type;
  node->n = 0;
  return node;
}

/* Past the run of digits at q, which must hold one at least (else NULL, and
 * `what` is the error at q): a fraction's and an exponent's digits. */
static const char *
hj_skip_digits (HjParser *parser, const char *q, const char *what)
{
  if (q >= parser->end || !g_ascii_isdigit (*q))
    {
      parser->p = q;
      hj_fail (parser, what);
      return NULL;
    }
  while (q < parser->end && g_ascii_isdigit (*q))
    q++;
  return q;
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
      q = hj_skip_digits (parser, q + 1, "a digit must follow the decimal point");
      if (q == NULL)
        return NULL;
    }
  if (q < parser->end && (*q == 'e' || *q == 'E'))
    {
      integral = FALSE;
      q++;
      if (q < parser->end && (*q == '+' || *q == '-'))
        q++;
      q = hj_skip_digits (parser, q, "a digit must follow the exponent");
      if (q == NULL)
        return NULL;
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

/* Duplicate member names: the names of an object so far are compared one by
 * one while there are few (most objects have a handful), and go into a hash
 * set once there are more, so that an object of n members costs O(n), not
 * O(n²) (issue 14: 100 000 metadata keys took minutes).  `stack` holds the
 * object's names and values alternately from `base`; FALSE when `key` is
 * already among them. */
#define HJ_LINEAR_NAMES 16

static gboolean
hj_names_add (GHashTable **names, GPtrArray *stack, guint base, const char *key)
{
  guint n = (stack->len - base) / 2;

  if (*names == NULL && n < HJ_LINEAR_NAMES)
    {
      for (guint i = base; i < stack->len; i += 2)
        if (strcmp (g_ptr_array_index (stack, i), key) == 0)
          return FALSE;
      return TRUE;
    }
  if (*names == NULL)
    {
      *names = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = base; i < stack->len; i += 2)
        g_hash_table_add (*names, g_ptr_array_index (stack, i));
    }
  return g_hash_table_add (*names, (gpointer) key);
}

static HjNode *
hj_parse_container (HjParser *parser, guint depth, gboolean object)
{
  g_autoptr(GHashTable) names = NULL;
  guint base = parser->stack->len;
  char close = object ? '}' : ']';
  HjNode *node;
  guint n;

  if (depth > HJ_MAX_DEPTH)
    {
      g_autofree char *message = g_strdup_printf ("nested deeper than %d levels", HJ_MAX_DEPTH);
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
            if (!hj_names_add (&names, parser->stack, base, key))
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
      /* An empty array may come before anything was ever pushed: pdata is
       * still NULL then, and even NULL + 0 is undefined. */
      if (n > 0)
        memcpy (node->v.items, parser->stack->pdata + base, n * sizeof (HjNode *));
    }
  g_ptr_array_set_size (parser->stack, base);
  return node;
}

HjNode *
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

HjNode *
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

void
hj_parser_clear (HjParser *parser)
{
  hj_arena_clear (&parser->arena);
  g_clear_pointer (&parser->error, g_free);
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

void
hj_append_quoted (GString *out, const char *text)
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
      hj_append_quoted (out, path->key);
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
