/* hs-backend-exec.c — live attention from an external process speaking JSON lines
 *
 * The process is started lazily with GSubprocess; requests and responses are
 * single lines (docs/backend-protocol.md).  I/O goes through the raw pipe
 * descriptors with poll() so that every request has a deadline and honours
 * its GCancellable: a hanging backend costs at most the timeout.  After any
 * failure that leaves the stream in an unknown state (crash, timeout,
 * malformed line) the process is killed and reaped; the next request starts a
 * fresh one. */
#include <inttypes.h>
#include <heatscope/hs-backend-exec.h>
#include <heatscope/hs-limits.h>

#include "hs-image-private.h"
#include "hs-json-guard-private.h"
#include "hs-i18n-private.h"

#include <errno.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

G_DEFINE_QUARK (hs-backend-error-quark, hs_backend_error)

struct _HsBackendExec
{
  grefcount    ref;
  char        *command;
  char       **argv;
  guint        timeout_ms;

  GMutex       lock;         /* serialises requests; guards everything below */
  GSubprocess *process;
  int          in_fd;        /* the backend's stdin (we write)  */
  int          out_fd;       /* the backend's stdout (we read)  */
  GString     *inbuf;        /* bytes read past the last complete line */
  guint64      next_id;
  guint64      stale_from;   /* ids in [stale_from, current) were cancelled: skip their answers */
  char        *png_dir;      /* PNGs of DICOM images sent instead of them (removed at the end) */
};

/* --- response parsing ------------------------------------------------------ */

static gboolean
is_base64_char (char c)
{
  return g_ascii_isalnum (c) || c == '+' || c == '/';
}

/* Strict: the exact length for `n_bytes`, only alphabet characters and
 * trailing padding (g_base64_decode() skips anything else silently). */
static guint8 *
decode_base64 (const char *text, gsize text_len, guint64 n_bytes, GError **error)
{
  guint64 expected_len = (n_bytes + 2) / 3 * 4;
  gsize n_pad = 0, out_len = 0;
  guint8 *out;

  if ((guint64) text_len != expected_len)
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("\"maps\" has %zu base64 characters, expected %" PRIu64
                   " for %" PRIu64 " float32 values"),
                   text_len, expected_len, n_bytes / 4);
      return NULL;
    }
  while (n_pad < 2 && n_pad < text_len && text[text_len - 1 - n_pad] == '=')
    n_pad++;
  for (gsize i = 0; i < text_len - n_pad; i++)
    if (!is_base64_char (text[i]))
      {
        g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                     _("\"maps\" is not base64: character %zu is 0x%02x"),
                     i, (guint8) text[i]);
        return NULL;
      }
  if (text_len == 0)
    return g_malloc (1);
  out = g_malloc (text_len / 4 * 3 + 3);
  {
    gint state = 0;
    guint save = 0;
    out_len = g_base64_decode_step (text, text_len, out, &state, &save);
  }
  if ((guint64) out_len != n_bytes)
    {
      g_free (out);
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("\"maps\" decodes to %zu bytes, expected %" PRIu64),
                   out_len, n_bytes);
      return NULL;
    }
  return out;
}

static gboolean
get_uint_member (JsonNode *node, const char *what, guint64 *out, GError **error)
{
  gint64 v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("%s must be an integer"), what);
      return FALSE;
    }
  v = json_node_get_int (node);
  if (v < 0)
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("%s must not be negative (%" PRId64 ")"), what, v);
      return FALSE;
    }
  *out = (guint64) v;
  return TRUE;
}

/* `stale_from` ≤ id < expected_id: an answer to a cancelled request; *stale
 * is set and NULL returned without an error. */
static HsAttentionMap *
parse_response (const char *line, gsize len, guint64 expected_id, guint64 stale_from,
                gboolean *stale, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) json_error = NULL;
  g_autofree guint8 *bytes = NULL;
  g_autofree double *values = NULL;
  g_autoptr(GPtrArray) tokens = NULL;
  const HsLimits *limits = hs_limits_get ();
  JsonNode *root, *node;
  JsonObject *obj;
  JsonArray *shape_array;
  guint64 id, dims[3], n_cells, n_values;
  guint ndim;
  double no_attn = NAN;
  const char *maps;
  HsAttentionMap *map;

  *stale = FALSE;
  if (!g_utf8_validate (line, (gssize) len, NULL))
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("the response is not valid UTF-8"));
      return NULL;
    }
  if (!hs_json_parser_load_data (parser, line, (gssize) len, &json_error))
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("the response is not JSON: %s"), json_error->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("the response is not a JSON object"));
      return NULL;
    }
  obj = json_node_get_object (root);
  if (!get_uint_member (json_object_get_member (obj, "id"), "\"id\"", &id, error))
    return NULL;
  if (id != expected_id)
    {
      if (id >= stale_from && id < expected_id)
        {
          *stale = TRUE;
          return NULL;
        }
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("the response has id %" PRIu64 ", expected %" PRIu64),
                   id, expected_id);
      return NULL;
    }

  node = json_object_get_member (obj, "error");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                       _("\"error\" must be a string"));
          return NULL;
        }
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_REMOTE,
                   "%s", json_node_get_string (node));
      return NULL;
    }

  node = json_object_get_member (obj, "shape");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("\"shape\" must be an array [h, w] or [tokens, h, w]"));
      return NULL;
    }
  shape_array = json_node_get_array (node);
  ndim = json_array_get_length (shape_array);
  if (ndim != 2 && ndim != 3)
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("\"shape\" has %u dimensions, expected [h, w] or [tokens, h, w]"), ndim);
      return NULL;
    }
  for (guint i = 0; i < ndim; i++)
    {
      if (!get_uint_member (json_array_get_element (shape_array, i), "\"shape\" entries",
                            &dims[i], error))
        return NULL;
      if (dims[i] == 0)
        {
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                       _("\"shape\" entry %u is 0"), i);
          return NULL;
        }
    }
  {
    guint64 h = dims[ndim - 2], w = dims[ndim - 1], t = ndim == 3 ? dims[0] : 1;

    if (h > limits->max_grid_cells || w > limits->max_grid_cells ||
        h * w > limits->max_grid_cells || h > G_MAXUINT || w > G_MAXUINT)
      {
        g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_TOO_LARGE,
                     _("the map grid %" PRIu64 " × %" PRIu64
                     " exceeds the limit of %" PRIu64 " cells"),
                     h, w, limits->max_grid_cells);
        return NULL;
      }
    if (ndim == 3 && (t > limits->max_tokens || t > G_MAXUINT))
      {
        g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_TOO_LARGE,
                     _("%" PRIu64 " token maps exceed the limit of %" PRIu64),
                     t, limits->max_tokens);
        return NULL;
      }
    n_cells = h * w;
    n_values = n_cells * t;   /* ≤ 2^24 · 2^12 with default limits; both checked above */
    if (n_values > G_MAXSIZE / 4 / sizeof (double) || n_values * 4 > HS_BACKEND_EXEC_MAX_LINE)
      {
        g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_TOO_LARGE,
                     _("%" PRIu64 " map values exceed the line limit"), n_values);
        return NULL;
      }
  }

  node = json_object_get_member (obj, "maps");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                   _("\"maps\" must be a base64 string"));
      return NULL;
    }
  maps = json_node_get_string (node);
  bytes = decode_base64 (maps, strlen (maps), n_values * 4, error);
  if (bytes == NULL)
    return NULL;
  values = g_new (double, n_values);
  for (guint64 i = 0; i < n_values; i++)
    {
      guint32 bits;
      float f;

      memcpy (&bits, bytes + i * 4, 4);
      bits = GUINT32_FROM_LE (bits);
      memcpy (&f, &bits, 4);
      if (!isfinite (f))
        {
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                       _("map value %" PRIu64 " is not finite (%g)"), i, (double) f);
          return NULL;
        }
      values[i] = f;
    }

  node = json_object_get_member (obj, "tokens");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      JsonArray *array;
      guint n;

      if (!JSON_NODE_HOLDS_ARRAY (node))
        {
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                       _("\"tokens\" must be an array of strings"));
          return NULL;
        }
      array = json_node_get_array (node);
      n = json_array_get_length (array);
      if ((guint64) n > limits->max_tokens)
        {
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_TOO_LARGE,
                       _("%u tokens exceed the limit of %" PRIu64), n, limits->max_tokens);
          return NULL;
        }
      tokens = g_ptr_array_new_full (n + 1, NULL);
      for (guint i = 0; i < n; i++)
        {
          JsonNode *item = json_array_get_element (array, i);

          if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_STRING)
            {
              g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                           _("\"tokens\" entry %u is not a string"), i);
              return NULL;
            }
          g_ptr_array_add (tokens, (gpointer) json_node_get_string (item));
        }
      g_ptr_array_add (tokens, NULL);
      if (ndim == 3 && (guint64) n != dims[0])
        {
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                       _("\"tokens\" has %u entries but \"shape\" has %" PRIu64 " token maps"),
                       n, dims[0]);
          return NULL;
        }
    }

  node = json_object_get_member (obj, "no_attn");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;

      if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
        {
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                       _("\"no_attn\" must be a number or null"));
          return NULL;
        }
      no_attn = json_node_get_double (node);
      if (!isfinite (no_attn) || no_attn < 0 || no_attn > 1)
        {
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_PROTOCOL,
                       _("\"no_attn\" is %g, not a mass in [0, 1]"), no_attn);
          return NULL;
        }
    }

  map = hs_attention_map_new (ndim == 3 ? (guint) dims[0] : 0, (guint) dims[ndim - 2],
                              (guint) dims[ndim - 1], values, error);
  if (map == NULL)
    return NULL;
  if (ndim == 3 && tokens != NULL)
    hs_attention_map_set_tokens (map, (const char * const *) tokens->pdata);
  hs_attention_map_set_no_attn (map, no_attn);
  return map;
}

HsAttentionMap *
hs_backend_exec_parse_response (const char *line, gsize len, guint64 expected_id, GError **error)
{
  gboolean stale;

  g_return_val_if_fail (line != NULL || len == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return parse_response (line != NULL ? line : "", len, expected_id, expected_id, &stale, error);
}

/* --- the process ------------------------------------------------------------ */

HsBackendExec *
hs_backend_exec_new (const char *command, GError **error)
{
  g_autoptr(GError) parse_error = NULL;
  g_auto(GStrv) argv = NULL;
  HsBackendExec *self;

  g_return_val_if_fail (command != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_shell_parse_argv (command, NULL, &argv, &parse_error))
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND,
                   _("backend command '%s': %s"), command, parse_error->message);
      return NULL;
    }
  /* A backend that dies while we write must give EPIPE, not kill us (GSocket
   * does the same). */
  {
    struct sigaction old;

    if (sigaction (SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
      signal (SIGPIPE, SIG_IGN);
  }
  self = g_new0 (HsBackendExec, 1);
  g_ref_count_init (&self->ref);
  self->command = g_strdup (command);
  self->argv = g_steal_pointer (&argv);
  self->timeout_ms = HS_BACKEND_EXEC_DEFAULT_TIMEOUT_MS;
  g_mutex_init (&self->lock);
  self->in_fd = self->out_fd = -1;
  self->inbuf = g_string_new (NULL);
  self->next_id = 1;
  self->stale_from = 1;
  return self;
}

HsBackendExec *
hs_backend_exec_ref (HsBackendExec *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_ref_count_inc (&self->ref);
  return self;
}

typedef struct {
  gboolean done;
  gboolean timed_out;
} WaitData;

static void
wait_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  WaitData *data = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  data->done = TRUE;
}

static gboolean
wait_timeout (gpointer user_data)
{
  ((WaitData *) user_data)->timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

/* Waits up to `ms` for the process to exit, then kills it; always reaps it.
 * Returns TRUE when it exited on its own. */
static gboolean
wait_or_kill (GSubprocess *process, guint ms)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  WaitData data = { FALSE, FALSE };
  GSource *timeout;
  gboolean exited;

  g_main_context_push_thread_default (context);
  g_subprocess_wait_async (process, NULL, wait_done, &data);
  timeout = g_timeout_source_new (ms);
  g_source_set_callback (timeout, wait_timeout, &data, NULL);
  g_source_attach (timeout, context);
  while (!data.done && !data.timed_out)
    g_main_context_iteration (context, TRUE);
  exited = data.done;
  if (!data.done)
    {
      const char *pid = g_subprocess_get_identifier (process);

      /* The whole process group: `sh -c '...; sleep 100'` leaves no orphan
       * behind holding the pipes. */
      if (pid != NULL)
        kill (-(pid_t) g_ascii_strtoll (pid, NULL, 10), SIGKILL);
      g_subprocess_force_exit (process);
      while (!data.done)
        g_main_context_iteration (context, TRUE);
    }
  g_source_destroy (timeout);
  g_source_unref (timeout);
  g_main_context_pop_thread_default (context);
  return exited;
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* Closes the backend's stdin (a well-behaved backend leaves), waits up to
 * `grace_ms`, kills it otherwise, and reaps it.  Returns how it ended
 * ("exited with status 3"), or NULL. */
static char *
end_process_locked (HsBackendExec *self, guint grace_ms)
{
  GSubprocess *process = self->process;
  char *how = NULL;

  if (process == NULL)
    return NULL;
  close_fd (&self->in_fd);
  if (wait_or_kill (process, grace_ms))
    {
      if (g_subprocess_get_if_exited (process))
        how = g_strdup_printf (_("exited with status %d"), g_subprocess_get_exit_status (process));
      else if (g_subprocess_get_if_signaled (process))
        how = g_strdup_printf (_("was killed by signal %d (%s)"), g_subprocess_get_term_sig (process),
                               g_strsignal (g_subprocess_get_term_sig (process)));
    }
  close_fd (&self->out_fd);
  g_string_truncate (self->inbuf, 0);
  g_clear_object (&self->process);
  self->stale_from = self->next_id;
  return how;
}

void
hs_backend_exec_stop (HsBackendExec *self)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->lock);
  g_free (end_process_locked (self, 1000));
  g_mutex_unlock (&self->lock);
}

void
hs_backend_exec_unref (HsBackendExec *self)
{
  g_return_if_fail (self != NULL);

  if (!g_ref_count_dec (&self->ref))
    return;
  g_free (end_process_locked (self, 1000));
  g_mutex_clear (&self->lock);
  g_string_free (self->inbuf, TRUE);
  g_strfreev (self->argv);
  g_free (self->command);
  if (self->png_dir != NULL)
    {
      g_autoptr(GDir) dir = g_dir_open (self->png_dir, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = g_build_filename (self->png_dir, name, NULL);
          g_unlink (path);
        }
      g_rmdir (self->png_dir);
      g_free (self->png_dir);
    }
  g_free (self);
}

const char *
hs_backend_exec_get_command (HsBackendExec *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->command;
}

void
hs_backend_exec_set_timeout (HsBackendExec *self, guint timeout_ms)
{
  g_return_if_fail (self != NULL);
  g_atomic_int_set (&self->timeout_ms, MAX (timeout_ms, 1));
}

guint
hs_backend_exec_get_timeout (HsBackendExec *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return g_atomic_int_get (&self->timeout_ms);
}

/* In the child, between fork and exec: its own process group, so that a
 * hung backend can be killed with everything it started. */
static void
child_setup (gpointer user_data)
{
  setpgid (0, 0);
}

static gboolean
start_locked (HsBackendExec *self, GError **error)
{
  g_autoptr(GError) spawn_error = NULL;

  g_autoptr(GSubprocessLauncher) launcher = NULL;
  int to_child[2], from_child[2];

  if (self->process != NULL)
    return TRUE;
  /* Our own pipes (the launcher takes the child's ends): raw descriptors
   * for poll() without gio-unix. */
  if (!g_unix_open_pipe (to_child, FD_CLOEXEC, &spawn_error))
    goto failed;
  if (!g_unix_open_pipe (from_child, FD_CLOEXEC, &spawn_error))
    {
      close (to_child[0]);
      close (to_child[1]);
      goto failed;
    }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  g_subprocess_launcher_take_stdin_fd (launcher, to_child[0]);
  g_subprocess_launcher_take_stdout_fd (launcher, from_child[1]);
  self->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) self->argv,
                                                &spawn_error);
  g_clear_object (&launcher);   /* closes the child's ends in this process */
  if (self->process == NULL)
    {
      close (to_child[1]);
      close (from_child[0]);
      goto failed;
    }
  self->in_fd = to_child[1];
  self->out_fd = from_child[0];
  g_unix_set_fd_nonblocking (self->in_fd, TRUE, NULL);
  g_unix_set_fd_nonblocking (self->out_fd, TRUE, NULL);
  g_string_truncate (self->inbuf, 0);
  self->stale_from = self->next_id;
  return TRUE;

failed:
  g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND,
               _("cannot start backend '%s': %s"), self->command, spawn_error->message);
  return FALSE;
}

typedef enum { IO_OK, IO_TIMEOUT, IO_CANCELLED, IO_EOF, IO_FAILED } IoStatus;

/* Waits for `events` on fd until the deadline (monotonic µs). */
static IoStatus
wait_fd (int fd, short events, gint64 deadline, GCancellable *cancellable)
{
  for (;;)
    {
      struct pollfd fds[2] = { { fd, events, 0 }, { -1, POLLIN, 0 } };
      GPollFD cancel_fd = { -1, 0, 0 };
      gboolean have_cancel = cancellable != NULL && g_cancellable_make_pollfd (cancellable, &cancel_fd);
      gint64 now = g_get_monotonic_time ();
      int timeout_ms, r;

      if (g_cancellable_is_cancelled (cancellable))
        {
          if (have_cancel)
            g_cancellable_release_fd (cancellable);
          return IO_CANCELLED;
        }
      if (now >= deadline)
        {
          if (have_cancel)
            g_cancellable_release_fd (cancellable);
          return IO_TIMEOUT;
        }
      timeout_ms = (int) MIN ((deadline - now + 999) / 1000, G_MAXINT);
      if (have_cancel)
        fds[1].fd = cancel_fd.fd;
      r = poll (fds, have_cancel ? 2 : 1, timeout_ms);
      if (have_cancel)
        g_cancellable_release_fd (cancellable);
      if (r < 0 && errno != EINTR)
        return IO_FAILED;
      if (r > 0 && fds[0].revents != 0)
        return IO_OK;
    }
}

static void
set_io_error (HsBackendExec *self, IoStatus status, int saved_errno, GError **error)
{
  g_autofree char *how = NULL;

  switch (status)
    {
    case IO_CANCELLED:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("backend '%s': request cancelled"),
                   self->command);
      return;
    case IO_TIMEOUT:
      g_free (end_process_locked (self, 0));
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_TIMEOUT,
                   _("backend '%s' did not answer within %.1f s (stopped; the next request restarts it)"),
                   self->command, self->timeout_ms / 1000.0);
      return;
    case IO_EOF:
    case IO_FAILED:
    case IO_OK:
      how = end_process_locked (self, 2000);
      if (status == IO_FAILED && saved_errno != EPIPE && saved_errno != 0)
        {
          if (how != NULL)
            /* TRANSLATORS: backend command, system error, how the process ended */
            g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_CRASHED,
                         _("backend '%s': %s; it %s"), self->command, g_strerror (saved_errno), how);
          else
            g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_CRASHED,
                         _("backend '%s': %s"), self->command, g_strerror (saved_errno));
        }
      else
        g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_CRASHED,
                     /* TRANSLATORS: backend command, how the process ended */
                     _("backend '%s' %s"), self->command,
                     how != NULL ? how : _("closed its output (stopped)"));
      return;
    }
}

static gboolean
write_all (HsBackendExec *self, const char *data, gsize len, gint64 deadline,
           GCancellable *cancellable, GError **error)
{
  gsize done = 0;

  while (done < len)
    {
      gssize n = write (self->in_fd, data + done, len - done);

      if (n > 0)
        {
          done += n;
          continue;
        }
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        {
          IoStatus status = wait_fd (self->in_fd, POLLOUT, deadline, cancellable);

          if (status == IO_OK)
            continue;
          /* A half-written request leaves the stream unusable. */
          if (status == IO_CANCELLED && done > 0)
            g_free (end_process_locked (self, 0));
          set_io_error (self, status, 0, error);
          return FALSE;
        }
      set_io_error (self, IO_FAILED, errno, error);
      return FALSE;
    }
  return TRUE;
}

/* Reads one line (without the newline) into *line. */
static gboolean
read_line (HsBackendExec *self, gint64 deadline, GCancellable *cancellable, char **line,
           gsize *line_len, GError **error)
{
  gsize scanned = 0;

  for (;;)
    {
      char *nl = memchr (self->inbuf->str + scanned, '\n', self->inbuf->len - scanned);
      char chunk[65536];
      gssize n;

      if (nl != NULL)
        {
          gsize len = nl - self->inbuf->str;

          *line = g_strndup (self->inbuf->str, len);
          *line_len = len;
          g_string_erase (self->inbuf, 0, len + 1);
          return TRUE;
        }
      scanned = self->inbuf->len;
      if (self->inbuf->len > HS_BACKEND_EXEC_MAX_LINE)
        {
          g_free (end_process_locked (self, 0));
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_TOO_LARGE,
                       _("backend '%s' sent a line longer than %zu bytes (stopped)"),
                       self->command, HS_BACKEND_EXEC_MAX_LINE);
          return FALSE;
        }
      n = read (self->out_fd, chunk, sizeof chunk);
      if (n > 0)
        {
          g_string_append_len (self->inbuf, chunk, n);
          continue;
        }
      if (n == 0)
        {
          set_io_error (self, IO_EOF, 0, error);
          return FALSE;
        }
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN)
        {
          IoStatus status = wait_fd (self->out_fd, POLLIN, deadline, cancellable);

          if (status != IO_OK)
            {
              set_io_error (self, status, 0, error);
              return FALSE;
            }
          continue;
        }
      set_io_error (self, IO_FAILED, errno, error);
      return FALSE;
    }
}

/* Backends read PNG or JPEG (docs/backend-protocol.md): a DICOM file is sent
 * as an 8-bit grey PNG of what the viewer shows first — the file's own
 * window, MONOCHROME1 inverted — written once per file version into a
 * private folder.  Returns the path to send (a new string). */
static char *
image_for_backend (HsBackendExec *self, const char *path, GError **error)
{
  guint8 head[132] = { 0 };
  g_autofree char *key = NULL, *png = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImage) grey = NULL;
  GStatBuf st;
  gsize n = 0;
  FILE *file;
  double center, width;

  file = g_fopen (path, "rb");
  if (file != NULL)
    {
      n = fread (head, 1, sizeof head, file);
      fclose (file);
    }
  if (!hs_image_is_dicom (head, n) || hs_image_is_png (head, n) || hs_image_is_jpeg (head, n) ||
      g_stat (path, &st) != 0)
    return g_strdup (path);   /* PNG/JPEG, or unreadable: the backend names the problem */

  if (self->png_dir == NULL)
    {
      self->png_dir = g_dir_make_tmp ("heatscope-backend-XXXXXX", NULL);
      if (self->png_dir == NULL)
        {
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND,
                       _("%s: cannot make a folder for the PNG sent to backend '%s'"), path, self->command);
          return NULL;
        }
    }
  key = g_strdup_printf ("%s\n%" G_GINT64_FORMAT "\n%" G_GINT64_FORMAT, path,
                         (gint64) st.st_mtime, (gint64) st.st_size);
  {
    g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
    g_autofree char *name = g_strdup_printf ("%.32s.png", sum);
    png = g_build_filename (self->png_dir, name, NULL);
  }
  if (g_file_test (png, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&png);
  image = hs_image_load (path, error);
  if (image == NULL)
    return NULL;
  hs_image_get_default_window (image, &center, &width);
  grey = hs_image_render_grey8 (image, center, width);
  if (grey == NULL)
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND,
                   _("%s: cannot convert the DICOM image for backend '%s'"), path, self->command);
      return NULL;
    }
  if (!hs_image_save_png (grey, png, error))
    return NULL;
  return g_steal_pointer (&png);
}

static char *
build_request (guint64 id, const char *image_path, const char *prompt, gboolean tokens)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  char *text;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_int_value (builder, (gint64) id);
  json_builder_set_member_name (builder, "image");
  json_builder_add_string_value (builder, image_path);
  json_builder_set_member_name (builder, "prompt");
  json_builder_add_string_value (builder, prompt);
  json_builder_set_member_name (builder, "tokens");
  json_builder_add_boolean_value (builder, tokens);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  /* json-glib escapes control characters, so the request is one line. */
  g_assert (strchr (text, '\n') == NULL);
  return text;
}

static HsAttentionMap *
attend_locked (HsBackendExec *self, const char *image_path, const char *prompt, gboolean tokens,
               GCancellable *cancellable, GError **error)
{
  g_autofree char *absolute = g_canonicalize_filename (image_path, NULL);
  g_autofree char *sent = NULL;
  g_autofree char *request = NULL;
  gint64 deadline;
  guint64 id;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (!g_utf8_validate (absolute, -1, NULL))
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND,
                   _("%s: the image path is not valid UTF-8 and cannot be sent to backend '%s'"),
                   image_path, self->command);
      return NULL;
    }
  sent = image_for_backend (self, absolute, error);
  if (sent == NULL)
    return NULL;
  deadline = g_get_monotonic_time () + (gint64) hs_backend_exec_get_timeout (self) * 1000;
  if (!start_locked (self, error))
    return NULL;
  id = self->next_id++;
  request = build_request (id, sent, prompt, tokens);
  if (!write_all (self, request, strlen (request), deadline, cancellable, error) ||
      !write_all (self, "\n", 1, deadline, cancellable, error))
    {
      self->stale_from = MIN (self->stale_from, id);
      return NULL;
    }

  for (;;)
    {
      g_autofree char *line = NULL;
      g_autoptr(GError) parse_error = NULL;
      gsize len;
      gboolean stale;
      HsAttentionMap *map;

      if (!read_line (self, deadline, cancellable, &line, &len, error))
        {
          /* A cancelled request's answer may still come: skip it next time. */
          self->stale_from = MIN (self->stale_from, id);
          return NULL;
        }
      map = parse_response (line, len, id, self->stale_from, &stale, &parse_error);
      if (stale)
        continue;
      if (map != NULL)
        {
          self->stale_from = self->next_id;
          return map;
        }
      if (g_error_matches (parse_error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_REMOTE))
        {
          self->stale_from = self->next_id;
          g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_REMOTE,
                       _("backend '%s': %s"), self->command, parse_error->message);
          return NULL;
        }
      g_free (end_process_locked (self, 0));
      g_set_error (error, parse_error->domain, parse_error->code,
                   _("backend '%s' sent a malformed response (stopped): %s"),
                   self->command, parse_error->message);
      return NULL;
    }
}

HsAttentionMap *
hs_backend_exec_attend (HsBackendExec *self, const char *image_path, const char *prompt,
                        gboolean tokens, GCancellable *cancellable, GError **error)
{
  HsAttentionMap *map;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (image_path != NULL, NULL);
  g_return_val_if_fail (prompt != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_utf8_validate (prompt, -1, NULL))
    {
      g_set_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND,
                   _("the prompt is not valid UTF-8"));
      return NULL;
    }
  g_mutex_lock (&self->lock);
  map = attend_locked (self, image_path, prompt, tokens, cancellable, error);
  g_mutex_unlock (&self->lock);
  return map;
}

typedef struct {
  char    *image_path;
  char    *prompt;
  gboolean tokens;
} AttendJob;

static void
attend_job_free (gpointer data)
{
  AttendJob *job = data;

  g_free (job->image_path);
  g_free (job->prompt);
  g_free (job);
}

static void
attend_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  AttendJob *job = task_data;
  GError *error = NULL;
  HsAttentionMap *map;

  map = hs_backend_exec_attend (g_object_get_data (G_OBJECT (task), "hs-backend"), job->image_path, job->prompt, job->tokens, cancellable,
                                &error);
  if (map == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, map, (GDestroyNotify) hs_attention_map_unref);
}

void
hs_backend_exec_attend_async (HsBackendExec *self, const char *image_path, const char *prompt,
                              gboolean tokens, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  AttendJob *job;

  g_return_if_fail (self != NULL);
  g_return_if_fail (image_path != NULL);
  g_return_if_fail (prompt != NULL);

  /* The source object of a GTask must be a GObject; the backend is not, so
   * it rides along as task data and is referenced by the job. */
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hs_backend_exec_attend_async);
  job = g_new0 (AttendJob, 1);
  job->image_path = g_strdup (image_path);
  job->prompt = g_strdup (prompt);
  job->tokens = tokens;
  g_task_set_task_data (task, job, attend_job_free);
  g_object_set_data_full (G_OBJECT (task), "hs-backend", hs_backend_exec_ref (self),
                          (GDestroyNotify) hs_backend_exec_unref);
  g_task_run_in_thread (task, attend_thread);
}

HsAttentionMap *
hs_backend_exec_attend_finish (HsBackendExec *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hs_backend_exec_attend_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
