/* hs-csv.h — an RFC 4180 CSV reader that keeps line numbers */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_CSV_ERROR (hs_csv_error_quark ())
GQuark hs_csv_error_quark (void);

typedef enum {
  HS_CSV_ERROR_IO,        /* cannot read the file, or over HsLimits          */
  HS_CSV_ERROR_SYNTAX,    /* unterminated quote, text after a closing quote  */
  HS_CSV_ERROR_ENCODING,  /* a record that is not valid UTF-8                */
} HsCsvError;

/* Fields may be quoted ("a ""b"", c"), quoted fields may span lines; records
 * end at LF, CRLF or CR; a UTF-8 byte-order mark is skipped; a trailing
 * comma gives a trailing empty field.  A bad record is reported with its
 * file and line and skipped, so the caller can go on with the next one. */
typedef struct _HsCsvReader HsCsvReader;

HsCsvReader *hs_csv_reader_new_from_file (const char *path, GError **error);
HsCsvReader *hs_csv_reader_new_from_data (const char *data, gsize len, const char *name);
void         hs_csv_reader_free          (HsCsvReader *reader);
/* Field separator (default ','; '\t' for TSV). */
void         hs_csv_reader_set_separator (HsCsvReader *reader, char separator);
/* The next record as a NULL-terminated array (free with g_strfreev) and the
 * line it starts on (1-based).  Returns NULL at the end (error unset) or
 * for a bad record (error set, "FILE:LINE: problem"; calling again goes on
 * after it). */
char       **hs_csv_reader_next          (HsCsvReader *reader, guint *line, GError **error);
const char  *hs_csv_reader_get_name      (HsCsvReader *reader);
/* Index of `name` in a header record (exact match after trimming spaces),
 * or -1. */
int          hs_csv_find_column          (char * const *header, const char *name);

/* Appends `text` as one RFC 4180 field (quoted, inner quotes doubled, when it
 * holds a comma, quote, CR or LF; NULL appends an empty field), so that
 * hs_csv_reader_next reads it back as it was. */
void         hs_csv_append_field         (GString *out, const char *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsCsvReader, hs_csv_reader_free)

G_END_DECLS
