/* hs-json-reader-private.h — the strict, fast JSON reader behind heatscope.json
 *
 * json-glib's GScanner-based parser reads about 10 MB/s, several seconds for
 * the manifest of a 10 000-instance dataset; this one builds a compact tree
 * in an arena at a few hundred MB/s.  RFC 8259 only: no comments, NaN,
 * trailing commas or leading zeros; nesting limited to HJ_MAX_DEPTH;
 * duplicate object members refused (json-glib silently kept the last one).
 * The text must be valid UTF-8 without NUL (callers check it first), so
 * only escapes and control characters matter inside strings.
 *
 * Used by the manifest reader (hs-manifest-reader.c, whole documents) and
 * stream (hs-manifest-stream.c, one element at a time), which is why the
 * parser's pieces, not only hj_parse, are shared. */
#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

#define HJ_MAX_DEPTH 64

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

typedef struct {
  const char *start;
  const char *p;
  const char *end;
  HjArena     arena;
  GPtrArray  *stack;     /* scratch for items/members being collected */
  char       *error;     /* first error, with line and column */
} HjParser;

/* Records the first error (with line and column) in parser->error, with
 * its control characters escaped (hj_one_line); always FALSE. */
gboolean    hj_fail          (HjParser *parser, const char *what);
/* text with newlines, tabs and other control characters escaped (\n, \t,
 * \xHH): a file's own text quoted in an error stays one line and cannot
 * drive a terminal. */
char       *hj_one_line      (const char *text);
/* parser->p is just after the opening quote; NULL on error. */
const char *hj_parse_string  (HjParser *parser);
/* One value at nesting `depth` (1 for the top level); NULL on error. */
HjNode     *hj_parse_value   (HjParser *parser, guint depth);
/* Parses a whole document; on failure returns NULL and sets parser->error.
 * The tree lives in parser->arena until hj_parser_clear. */
HjNode     *hj_parse         (HjParser *parser, const char *data, gsize len);
void        hj_parser_clear  (HjParser *parser);
void        hj_arena_clear   (HjArena *arena);

/* Appends `text` as a JSON string literal (quotes and escapes). */
void        hj_append_quoted (GString *out, const char *text);

static inline void
hj_skip_space (HjParser *parser)
{
  while (parser->p < parser->end &&
         (*parser->p == ' ' || *parser->p == '\n' || *parser->p == '\r' || *parser->p == '\t'))
    parser->p++;
}

/* Accessors in the shape the manifest schema uses. */
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

/* --- JSON paths: where in the document a problem is ----------------------- */

/* A segment of a JSON path kept on the C stack while walking the tree, so a
 * path string is only built when there is a problem to report. */
typedef struct _HsJsonPath HsJsonPath;
struct _HsJsonPath {
  const HsJsonPath *parent;
  const char       *key;     /* member name, or NULL for an array index */
  guint             index;
};

/* "$", "$.instances[3].regions", "$.metadata[\"a b\"]" */
char *hs_json_path_to_string (const HsJsonPath *path);

#define PATH_KEY(name, parent_, key_) HsJsonPath name = { (parent_), (key_), 0 }
#define PATH_INDEX(name, parent_, index_) HsJsonPath name = { (parent_), NULL, (index_) }

G_END_DECLS
