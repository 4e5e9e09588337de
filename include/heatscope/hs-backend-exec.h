/* hs-backend-exec.h — live attention from an external process (JSON lines on stdin/stdout) */
#pragma once

#include <gio/gio.h>
#include "hs-attention-map.h"

G_BEGIN_DECLS

#define HS_BACKEND_ERROR (hs_backend_error_quark ())
GQuark hs_backend_error_quark (void);

typedef enum {
  HS_BACKEND_ERROR_COMMAND,    /* the command cannot be parsed or started          */
  HS_BACKEND_ERROR_CRASHED,    /* the process exited or closed its output          */
  HS_BACKEND_ERROR_TIMEOUT,    /* no complete answer within the timeout            */
  HS_BACKEND_ERROR_PROTOCOL,   /* a malformed response line (JSON, id, base64, …)  */
  HS_BACKEND_ERROR_TOO_LARGE,  /* shape or line over HsLimits / the line cap       */
  HS_BACKEND_ERROR_REMOTE,     /* the backend answered {"id": N, "error": "..."}   */
} HsBackendError;

/* Longest response line accepted (bytes, newline excluded). */
#define HS_BACKEND_EXEC_MAX_LINE ((gsize) 64 * 1024 * 1024)
/* Default time for one request (including a first start), milliseconds. */
#define HS_BACKEND_EXEC_DEFAULT_TIMEOUT_MS 30000

/* One external model process, started on the first request from the argv of
 * a user-given command line (never from a dataset file) and restarted on the
 * next request after it crashed, hung or spoke garbage.  The protocol is
 * documented in docs/backend-protocol.md.  Requests are serialised: one
 * backend may be shared by threads.  Reference counted. */
typedef struct _HsBackendExec HsBackendExec;

/* Parses `command` with shell quoting rules (no shell is run). */
HsBackendExec  *hs_backend_exec_new            (const char *command, GError **error);
HsBackendExec  *hs_backend_exec_ref            (HsBackendExec *backend);
void            hs_backend_exec_unref          (HsBackendExec *backend);

const char     *hs_backend_exec_get_command    (HsBackendExec *backend);
void            hs_backend_exec_set_timeout    (HsBackendExec *backend, guint timeout_ms);
guint           hs_backend_exec_get_timeout    (HsBackendExec *backend);
/* Stops the process (if running); the next request starts it again. */
void            hs_backend_exec_stop           (HsBackendExec *backend);

/* Attention of `prompt` on the image at `image_path` (made absolute before it
 * is sent).  With `tokens` the backend is asked for per-token maps; it may
 * still answer with a sentence map only.  Cancelling gives
 * G_IO_ERROR_CANCELLED (the late answer is skipped by the next request). */
HsAttentionMap *hs_backend_exec_attend         (HsBackendExec *backend, const char *image_path,
                                                const char *prompt, gboolean tokens,
                                                GCancellable *cancellable, GError **error);
void            hs_backend_exec_attend_async   (HsBackendExec *backend, const char *image_path,
                                                const char *prompt, gboolean tokens,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback, gpointer user_data);
HsAttentionMap *hs_backend_exec_attend_finish  (HsBackendExec *backend, GAsyncResult *result,
                                                GError **error);

/* The response-line parser (exposed for tests and fuzzing): `line` of `len`
 * bytes (no newline) must answer request `expected_id`. */
HsAttentionMap *hs_backend_exec_parse_response (const char *line, gsize len, guint64 expected_id,
                                                GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsBackendExec, hs_backend_exec_unref)

G_END_DECLS
