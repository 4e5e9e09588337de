/* hs-dicom-client.c — DICOM decoding in heatscope-dicom-helper
 *
 * GDCM is built with its assert()s, and its readers assert on what a
 * crafted file says (fuzz-jpeg: a 16-byte ACR-NEMA header aborts in
 * PixmapReader::ReadACRNEMAImage).  The structural walk refuses the shapes
 * known to do that, but no walk over headers can see every content check
 * GDCM makes.  So GDCM never runs in the caller's process: each DICOM decode
 * or probe runs in a short-lived helper (src/libexec/), and a helper that
 * aborts is a one-line error naming the file.  The walk still runs here
 * first: it refuses most broken files without starting anything.
 *
 * The helper gets the bytes and the caller's limits in a memfd and writes the
 * samples into another (hs-dicom-helper-private.h): no pipes to pump, no
 * copy beyond one write each way.  The helper is found through
 * $HEATSCOPE_DICOM_HELPER, else installed in libexecdir, else (running
 * uninstalled) in the build tree. */
#define _GNU_SOURCE
#include "hs-image-private.h"

#include "hs-dicom-helper-private.h"
#include "hs-dicom-walk-private.h"
#include "hs-i18n-private.h"
#include "hs-text.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* What the helper says on stderr is read up to this (a GDCM assertion line). */
#define STDERR_BYTES 65536
/* Longest text of the unit, note or message in a reply. */
#define REPLY_TEXT_BYTES 65536

static const char *
helper_path (void)
{
  const char *env = g_getenv ("HEATSCOPE_DICOM_HELPER");

  if (env != NULL && env[0] != '\0')
    return env;
  if (g_file_test (HS_DICOM_HELPER_INSTALLED, G_FILE_TEST_IS_EXECUTABLE))
    return HS_DICOM_HELPER_INSTALLED;
  return HS_DICOM_HELPER_BUILT;
}

/* A memfd at descriptor 3 or above (0–2 are the helper's standard streams:
 * a caller that closed its stdin must not have the memfd land there). */
static int
memfd (const char *what)
{
  int fd = memfd_create (what, MFD_CLOEXEC);
  int high;

  if (fd < 0 || fd > 2)
    return fd;
  high = fcntl (fd, F_DUPFD_CLOEXEC, 3);
  close (fd);
  return high;
}

/* All of len bytes written to (or read from) fd, EINTR retried. */
static gboolean
transfer_all (int fd, guint8 *p, gsize len, gboolean writing)
{
  while (len > 0)
    {
      ssize_t n = writing ? write (fd, p, len) : read (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      len -= (gsize) n;
    }
  return TRUE;
}

gboolean
hs_dicom_write_all (int fd, const void *data, gsize len)
{
  return transfer_all (fd, (guint8 *) data, len, TRUE);
}

/* From a reply's memfd, which this thread alone reads. */
static gboolean
read_at (int fd, void *data, gsize len, guint64 offset)
{
  return lseek (fd, (off_t) offset, SEEK_SET) == (off_t) offset && transfer_all (fd, data, len, FALSE);
}

static void
set_io_error (GError **error, const char *name, const char *what, int saved)
{
  g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO,
               _("%s: cannot run the DICOM decoder (%s): %s"), name, what, g_strerror (saved));
}

/* The line of the helper's stderr (from `offset`: what this request made it
 * say) that says why it ended: GDCM's assertion when there is one, else the
 * last line; without the program name and GDCM's source folder. */
static char *
stderr_reason (int fd, guint64 offset)
{
  g_autofree char *text = g_malloc0 (STDERR_BYTES + 1);
  ssize_t n = pread (fd, text, STDERR_BYTES, (off_t) offset);
  g_auto (GStrv) lines = NULL;
  const char *pick = NULL;
  g_autofree char *valid = NULL;

  if (n <= 0)
    return NULL;
  text[n] = '\0';
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_strstrip (lines[i]);
      if (lines[i][0] == '\0')
        continue;
      if (strstr (lines[i], "Assertion") != NULL)
        {
          pick = lines[i];
          break;
        }
      pick = lines[i];
    }
  if (pick == NULL)
    return NULL;
  if (g_str_has_prefix (pick, "heatscope-dicom-helper: "))
    pick += strlen ("heatscope-dicom-helper: ");
  /* "./Source/…/gdcmPixmapReader.cxx:1227: …": GDCM's file name is enough. */
  {
    const char *colon = strchr (pick, ':');
    const char *slash = colon != NULL ? g_strrstr_len (pick, colon - pick, "/") : NULL;
    if (slash != NULL)
      pick = slash + 1;
  }
  valid = g_utf8_make_valid (pick, MIN (strlen (pick), 400));
  return hs_text_escape_controls (valid);
}

#ifdef HS_SANITIZED
/* A sanitizer report of the helper is a bug to see, not a file to refuse:
 * pass it on and abort, as if it had happened here (the fuzzers and the
 * sanitizer suite then fail on it). */
static void
forward_sanitizer_report (int fd, guint64 offset)
{
  g_autofree char *text = g_malloc0 (STDERR_BYTES + 1);
  ssize_t n = pread (fd, text, STDERR_BYTES, (off_t) offset);

  if (n > 0 && (strstr (text, "Sanitizer") != NULL || strstr (text, "runtime error:") != NULL))
    {
      fputs ("heatscope: the DICOM helper reported:\n", stderr);
      fwrite (text, 1, (size_t) n, stderr);
      abort ();
    }
}
#endif

/* A running helper: its end of a socketpair (requests out, "done" in) and
 * the memfd its stdout and stderr go to (never the caller's: a helper that
 * outlives a request must not hold a pipe someone reads to its end). */
typedef struct
{
  pid_t pid;
  int   socket;
  int   err_fd;
  guint served;
  char *path;     /* the program it runs */
} Helper;

/* Idle helpers, reused: starting one (GDCM's libraries linked in) costs
 * tens of milliseconds, decoding a radiograph a few.  Each serves at most
 * HELPER_REQUESTS files, then ends; a sanitizer build keeps none idle, so
 * that every helper ends while its caller watches (leak reports included). */
#ifdef HS_SANITIZED
#define IDLE_HELPERS 0u
#else
#define IDLE_HELPERS 4u
#endif
#define HELPER_REQUESTS 256u

static GMutex pool_lock;
static GPtrArray *pool;    /* of Helper *, idle */
static pid_t pool_pid;     /* a forked child does not share its parent's helpers */

/* Ends a helper: its socket closed, it leaves its loop; reaped here. */
static void
helper_end (Helper *helper, int *status)
{
  int ignored;

  close (helper->socket);
  while (waitpid (helper->pid, status != NULL ? status : &ignored, 0) < 0 && errno == EINTR)
    ;
  close (helper->err_fd);
  g_free (helper->path);
  g_free (helper);
}

static Helper *
helper_start (const char *name, GError **error)
{
  const char *path = helper_path ();
  char *argv[] = { (char *) path, NULL };
  posix_spawn_file_actions_t actions;
  Helper *helper = g_new0 (Helper, 1);
  int pair[2] = { -1, -1 };
  int rc;

  helper->err_fd = memfd ("heatscope-dicom-err");
  if (helper->err_fd < 0 || socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    {
      set_io_error (error, name, "socketpair", errno);
      goto fail;
    }
  posix_spawn_file_actions_init (&actions);
  posix_spawn_file_actions_adddup2 (&actions, pair[1], 0);
  posix_spawn_file_actions_adddup2 (&actions, helper->err_fd, 1);
  posix_spawn_file_actions_adddup2 (&actions, helper->err_fd, 2);
  posix_spawn_file_actions_addclosefrom_np (&actions, 3);
  rc = posix_spawn (&helper->pid, path, &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy (&actions);
  close (pair[1]);
  if (rc != 0)
    {
      set_io_error (error, name, path, rc);
      goto fail;
    }
  helper->socket = pair[0];
  helper->path = g_strdup (path);
  return helper;

fail:
  if (pair[0] >= 0)
    close (pair[0]);
  if (helper->err_fd >= 0)
    close (helper->err_fd);
  g_free (helper);
  return NULL;
}

/* Ends a helper that served well (a sanitizer build checks what it said
 * while ending: leaks are reported then). */
static void
helper_retire (Helper *helper)
{
#ifdef HS_SANITIZED
  int err_fd = dup (helper->err_fd);
  struct stat st;
  guint64 said = err_fd >= 0 && fstat (err_fd, &st) == 0 ? (guint64) st.st_size : 0;

  helper_end (helper, NULL);
  if (err_fd >= 0)
    {
      forward_sanitizer_report (err_fd, said);
      close (err_fd);
    }
#else
  helper_end (helper, NULL);
#endif
}

static Helper *
helper_acquire (const char *name, GError **error)
{
  Helper *helper = NULL;

  g_mutex_lock (&pool_lock);
  if (pool == NULL || pool_pid != getpid ())
    {
      /* After fork() the idle helpers are the parent's: forget them here. */
      if (pool != NULL)
        for (guint i = 0; i < pool->len; i++)
          {
            Helper *h = g_ptr_array_index (pool, i);
            close (h->socket);
            close (h->err_fd);
            g_free (h->path);
            g_free (h);
          }
      g_clear_pointer (&pool, g_ptr_array_unref);
      pool = g_ptr_array_new ();
      pool_pid = getpid ();
    }
  if (pool->len > 0)
    helper = g_ptr_array_steal_index_fast (pool, pool->len - 1);
  g_mutex_unlock (&pool_lock);
  /* $HEATSCOPE_DICOM_HELPER changed since it started: the new one is wanted. */
  if (helper != NULL && strcmp (helper->path, helper_path ()) != 0)
    g_clear_pointer (&helper, helper_retire);
  return helper != NULL ? helper : helper_start (name, error);
}

static void
helper_release (Helper *helper)
{
  if (helper->served < HELPER_REQUESTS)
    {
      g_mutex_lock (&pool_lock);
      if (pool != NULL && pool_pid == getpid () && pool->len < IDLE_HELPERS)
        {
          g_ptr_array_add (pool, helper);
          helper = NULL;
        }
      g_mutex_unlock (&pool_lock);
    }
  if (helper != NULL)
    helper_retire (helper);
}

/* Hands the helper the request and the reply's memfd; TRUE when it said
 * "done", FALSE when it ended instead (it is reaped then, its status set). */
static gboolean
helper_serve (Helper *helper, int in_fd, int out_fd)
{
  char byte = 'R';
  char control[CMSG_SPACE (2 * sizeof (int))] = { 0 };
  struct iovec iov = { &byte, 1 };
  struct msghdr message = { 0 };
  struct cmsghdr *cmsg;
  ssize_t n;

  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  cmsg = CMSG_FIRSTHDR (&message);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN (2 * sizeof (int));
  memcpy (CMSG_DATA (cmsg), (int[2]) { in_fd, out_fd }, 2 * sizeof (int));
  do
    n = sendmsg (helper->socket, &message, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n != 1)
    return FALSE;
  do
    n = recv (helper->socket, &byte, 1, 0);
  while (n < 0 && errno == EINTR);
  helper->served++;
  return n == 1 && byte == 'D';
}

/* Runs a helper on request + name + data; returns the reply's memfd, or -1
 * with an error naming the file. */
static int
run_helper (HsDicomHelperMode mode, const guint8 *data, gsize len, gsize file_len, const char *name,
            GError **error)
{
  HsDicomRequest request = { 0 };
  const char *messages = setlocale (LC_MESSAGES, NULL);
  int in_fd = -1, out_fd = -1;
  struct stat st;
  guint64 said;
  Helper *helper;

  request.magic = HS_DICOM_HELPER_MAGIC;
  request.version = HS_DICOM_HELPER_VERSION;
  request.mode = mode;
  request.name_len = (guint32) MIN (strlen (name), G_MAXUINT32);
  request.data_len = len;
  request.file_len = file_len;
  request.limits = *hs_limits_get ();
  g_strlcpy (request.messages_locale, messages != NULL ? messages : "C", sizeof request.messages_locale);

  in_fd = memfd ("heatscope-dicom-in");
  out_fd = memfd ("heatscope-dicom-out");
  if (in_fd < 0 || out_fd < 0 ||
      !hs_dicom_write_all (in_fd, &request, sizeof request) || !hs_dicom_write_all (in_fd, name, request.name_len) ||
      !hs_dicom_write_all (in_fd, data, len))
    {
      set_io_error (error, name, "memfd", errno);
      goto fail;
    }
  helper = helper_acquire (name, error);
  if (helper == NULL)
    goto fail;
  /* What the helper says from here on is about this file. */
  said = fstat (helper->err_fd, &st) == 0 ? (guint64) st.st_size : 0;
  if (!helper_serve (helper, in_fd, out_fd))
    {
      int err_fd = dup (helper->err_fd);
      int status = 0;
      g_autofree char *reason = NULL;

      helper_end (helper, &status);
#ifdef HS_SANITIZED
      forward_sanitizer_report (err_fd, said);
#endif
      reason = stderr_reason (err_fd, said);
      if (err_fd >= 0)
        close (err_fd);
      if (WIFSIGNALED (status))
        g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT,
                     _("%s: damaged or unsupported DICOM file: GDCM stopped its decoder (%s) at %s"),
                     name, g_strsignal (WTERMSIG (status)), reason != NULL ? reason : "-");
      else
        g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT,
                     _("%s: the DICOM decoder %s failed (exit status %d): %s"),
                     name, helper_path (), WIFEXITED (status) ? WEXITSTATUS (status) : -1,
                     reason != NULL ? reason : "-");
      goto fail;
    }
  helper_release (helper);
  close (in_fd);
  return out_fd;

fail:
  if (in_fd >= 0)
    close (in_fd);
  if (out_fd >= 0)
    close (out_fd);
  return -1;
}

/* The reply's header, checked: FALSE with an error when the helper said no
 * (its message) or wrote something else than a reply. */
static gboolean
read_reply (int fd, const char *name, HsDicomReply *reply, guint64 *size, GError **error)
{
  struct stat st;

  if (fstat (fd, &st) != 0 || (guint64) st.st_size < sizeof *reply || !read_at (fd, reply, sizeof *reply, 0) ||
      reply->magic != HS_DICOM_HELPER_MAGIC || reply->version != HS_DICOM_HELPER_VERSION)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO,
                   _("%s: the DICOM decoder %s gave no answer of this version of Heatscope"), name,
                   helper_path ());
      return FALSE;
    }
  *size = (guint64) st.st_size;
  if (reply->ok)
    return TRUE;
  if (reply->message_len > REPLY_TEXT_BYTES || sizeof *reply + (guint64) reply->message_len > *size)
    reply->message_len = 0;
  {
    g_autofree char *message = g_malloc0 ((gsize) reply->message_len + 1);
    g_autofree char *valid = NULL;
    int code = reply->error_code <= HS_IMAGE_ERROR_INVALID ? (int) reply->error_code : HS_IMAGE_ERROR_CORRUPT;

    if (!read_at (fd, message, reply->message_len, sizeof *reply))
      message[0] = '\0';
    valid = g_utf8_make_valid (message, -1);
    g_set_error_literal (error, HS_IMAGE_ERROR, code, valid[0] != '\0' ? valid : name);
  }
  return FALSE;
}

static char *
reply_text (int fd, guint64 offset, guint32 len)
{
  g_autofree char *text = g_malloc0 ((gsize) len + 1);

  if (len == 0 || !read_at (fd, text, len, offset))
    return NULL;
  return g_utf8_make_valid (text, -1);
}

/* The helper's reply to a request on data: its memfd, the reply's header
 * and the memfd's size; -1 with an error naming the file when the walk, the
 * helper or its reply said no (*need_more: a probe wants more bytes). */
static int
ask_helper (HsDicomHelperMode mode, const guint8 *data, gsize len, gsize file_len, const char *name,
            HsDicomReply *reply, guint64 *size, gboolean *need_more, GError **error)
{
  int fd;

  memset (reply, 0, sizeof *reply);
  *need_more = FALSE;
  if (!hs_dicom_walk_check (data, len, file_len, name, NULL, error))
    return -1;
  fd = run_helper (mode, data, len, file_len, name, error);
  if (fd < 0)
    return -1;
  if (!read_reply (fd, name, reply, size, error))
    {
      *need_more = reply->magic == HS_DICOM_HELPER_MAGIC && reply->need_more != 0;
      close (fd);
      return -1;
    }
  return fd;
}

HsImage *
hs_image_load_dicom_memory (const guint8 *data, gsize len, const char *name, GError **error)
{
  HsDicomReply reply;
  HsImage info, *image;
  const HsImage *got = &reply.image;
  guint64 size, samples, offset;
  gboolean need_more;
  int fd = ask_helper (HS_DICOM_HELPER_DECODE, data, len, len, name, &reply, &size, &need_more, error);

  if (fd < 0)
    return NULL;
  /* The helper checked the size against the same limits; checked again here
   * before anything is allocated from its word. */
  if ((got->channels != 1 && got->channels != 3) || (got->bit_depth != 8 && got->bit_depth != 16) ||
      reply.unit_len > REPLY_TEXT_BYTES || reply.note_len > REPLY_TEXT_BYTES ||
      !hs_image_check_size (name, got->width, got->height, error))
    goto bad_reply;
  samples = (guint64) got->width * got->height * got->channels;
  offset = sizeof reply + (guint64) reply.unit_len + reply.note_len;
  if (size != offset + samples * sizeof (guint16))
    goto bad_reply;
  image = hs_image_new_named (name, got->width, got->height, got->channels, got->bit_depth, error);
  if (image == NULL)
    {
      close (fd);
      return NULL;
    }
  if (!read_at (fd, image->data, samples * sizeof (guint16), offset))
    {
      hs_image_unref (image);
      goto bad_reply;
    }
  info = reply.image;
  info.format = reply.format_dicom ? "DICOM" : NULL;
  info.value_unit = reply_text (fd, sizeof reply, reply.unit_len);
  info.note = reply_text (fd, sizeof reply + reply.unit_len, reply.note_len);
  hs_image_copy_info (image, &info);
  g_free (info.value_unit);
  g_free (info.note);
  close (fd);
  return image;

bad_reply:
  close (fd);
  if (error != NULL && *error == NULL)
    g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO,
                 _("%s: the DICOM decoder %s gave a malformed answer"), name, helper_path ());
  return NULL;
}

gboolean
hs_image_probe_dicom (const guint8 *head, gsize len, gsize file_len, const char *name, guint *width,
                      guint *height, char *modality, gboolean *need_more, GError **error)
{
  HsDicomReply reply;
  guint64 size;
  int fd = ask_helper (HS_DICOM_HELPER_PROBE, head, len, file_len, name, &reply, &size, need_more, error);

  if (fd < 0)
    return FALSE;
  close (fd);
  if (!hs_image_check_size (name, reply.image.width, reply.image.height, error))
    return FALSE;
  if (width != NULL)
    *width = reply.image.width;
  if (height != NULL)
    *height = reply.image.height;
  if (modality != NULL)
    {
      /* Kept only as a code string (upper-case letters, digits, space, '_'):
       * the helper's answer is not trusted to be text. */
      gboolean code = reply.modality[HS_IMAGE_MODALITY_BYTES - 1] == '\0';

      for (guint i = 0; code && reply.modality[i] != '\0'; i++)
        code = g_ascii_isupper (reply.modality[i]) || g_ascii_isdigit (reply.modality[i]) ||
               reply.modality[i] == ' ' || reply.modality[i] == '_';
      if (code)
        memcpy (modality, reply.modality, HS_IMAGE_MODALITY_BYTES);
      else
        modality[0] = '\0';
    }
  return TRUE;
}
