/* hs-json-guard-private.h — json-glib parsing that refuses hostile nesting */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* json-glib parses recursively: "[[[[...]]]]" nested a few hundred thousand
 * deep overflows the stack.  These check the nesting (at most
 * HS_JSON_MAX_DEPTH arrays/objects, strings skipped) before handing the text
 * to json_parser_load_from_data(), and refuse an empty document (NULL root); errors are JSON_PARSER_ERROR, like
 * json-glib's own, so callers report them the same way. */
#define HS_JSON_MAX_DEPTH 512

gboolean hs_json_check_depth     (const char *text, gssize len, GError **error);
gboolean hs_json_parser_load_data (JsonParser *parser, const char *text, gssize len,
                                   GError **error);
gboolean hs_json_parser_load_file (JsonParser *parser, const char *path, GError **error);

G_END_DECLS
