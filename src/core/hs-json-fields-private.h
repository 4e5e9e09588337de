/* hs-json-fields-private.h — typed members of a small JSON document, for
 * the files read as hostile input with hs-json-reader (figure specs, decks)
 *
 * Each getter checks one member's type and range and reports the first
 * problem only, as "DISPLAY: [SCOPE: ]$.json.path: message" in the caller's
 * error domain; later calls after a failure do nothing and return FALSE, so
 * a reader can chain them with ||. */
#pragma once

#include <glib.h>

#include "hs-json-reader-private.h"

G_BEGIN_DECLS

typedef struct {
  const char *display;   /* the file, first in every message                    */
  GQuark      domain;
  int         code;
  GError    **error;
  guint       max_text;  /* longest text get_text accepts, in characters        */
  char       *scope;     /* e.g. "case 3" after the file name; NULL: none (owned) */
  gboolean    failed;
} HsJsonFields;

/* Records the first problem; always FALSE. */
gboolean hs_json_fields_fail          (HsJsonFields *r, const HsJsonPath *path,
                                       const char *format, ...) G_GNUC_PRINTF (3, 4);
/* Every member of `object` is one of `known`. */
gboolean hs_json_fields_check_members (HsJsonFields *r, HjNode *object, const HsJsonPath *path,
                                       const char * const *known);
/* The member `key` when present and of the type `ok` accepts; NULL when
 * absent (r->failed unchanged) or of another type (r->failed set). */
HjNode  *hs_json_fields_typed_member  (HsJsonFields *r, HjNode *object, const HsJsonPath *parent,
                                       const char *key, gboolean (*ok) (const HjNode *),
                                       const char *expected);
gboolean hs_json_node_is_string       (const HjNode *node);
gboolean hs_json_node_is_number       (const HjNode *node);
gboolean hs_json_node_is_bool         (const HjNode *node);
/* A string of at most r->max_text characters copied into *out (absent:
 * *out unchanged). */
gboolean hs_json_fields_get_text      (HsJsonFields *r, HjNode *object, const HsJsonPath *parent,
                                       const char *key, char **out);
/* A number in [lo, hi] (absent: *out unchanged). */
gboolean hs_json_fields_get_number    (HsJsonFields *r, HjNode *object, const HsJsonPath *parent,
                                       const char *key, double lo, double hi, double *out);
/* true/false as 1/0 (absent: *out unchanged). */
gboolean hs_json_fields_get_bool      (HsJsonFields *r, HjNode *object, const HsJsonPath *parent,
                                       const char *key, int *out);

/* The document: valid UTF-8 without NUL, then strict JSON (hs-json-reader);
 * the tree lives in `parser` until hj_parser_clear.  NULL with the error
 * set ("DISPLAY: not JSON: …"). */
HjNode  *hs_json_fields_parse         (HsJsonFields *r, HjParser *parser, const char *text,
                                       gsize len);
/* Reads the file at `path` (opened without blocking, so a FIFO cannot hang
 * it; a regular file of at most `max_bytes`, hs_safe_read_fd) into *data,
 * NUL-terminated.  Errors name the file: `io_code` when it cannot be read,
 * `invalid_code` when it is not a regular file or too large. */
gboolean hs_json_fields_read_file     (const char *path, guint64 max_bytes, GQuark domain,
                                       int io_code, int invalid_code, guint8 **data, gsize *len,
                                       GError **error);

G_END_DECLS
