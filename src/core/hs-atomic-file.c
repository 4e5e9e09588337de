/* hs-atomic-file.c — crash-safe file writes
 *
 * Written out (not g_file_set_contents_full) so that the kill tests can stop
 * the writer at each of its phases (hs-stop-point.h): with half the data in
 * the temporary file, with the whole temporary file synced but not renamed,
 * and renamed but the folder not yet synced.  Inside a dataset writer's
 * staging folder (hs-atomic-file-private.h) a file is written in place: the
 * folder is synced whole before anyone can read it. */
#include "hs-atomic-file.h"
#include "hs-atomic-file-private.h"
#include "hs-stop-point.h"
#include "hs-i18n-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* This thread's staging folder (hs_atomic_write_staged_begin), or NULL. */
static GPrivate staged_root = G_PRIVATE_INIT (g_free);

static gboolean
write_all (int fd, const char *data, gsize len)
{
  while (len > 0)
    {
      gssize n = write (fd, data, MIN (len, (gsize) G_MAXSSIZE));

      if (n < 0 && errno == EINTR)
        continue;
      if (n == 0)
        errno = EIO;
      if (n <= 0)
        return FALSE;
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

static gboolean G_GNUC_PRINTF (3, 4)
fail (GError **error, int saved, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (saved), message);
  return FALSE;
}

void
hs_atomic_write_staged_begin (const char *root)
{
  g_return_if_fail (root != NULL && g_path_is_absolute (root));
  g_private_replace (&staged_root, g_strdup (root));
}

void
hs_atomic_write_staged_end (void)
{
  g_private_replace (&staged_root, NULL);
}

/* Is `path` below this thread's staging folder?  Lexically: the writers
 * build their paths from the folder's name, never with "..". */
static gboolean
is_staged (const char *path)
{
  const char *root = g_private_get (&staged_root);
  gsize n;

  if (root == NULL)
    return FALSE;
  n = strlen (root);
  return strncmp (path, root, n) == 0 && path[n] == G_DIR_SEPARATOR
         && strstr (path + n, "/../") == NULL;
}

/* Writes BYTES to FD, a new file named NAME on disk, stopping at `partial`
 * (about `path`) between its two halves; fsyncs it when `sync`; closes it.
 * On a failure the file is removed and the error names it. */
static gboolean
write_new_file (int fd, const char *name, const char *path, const char *bytes, gsize len,
                const char *partial, gboolean sync, GError **error)
{
  gsize half = len / 2;
  gboolean ok = write_all (fd, bytes, half);
  int saved;

  if (ok)
    {
      hs_stop_point_file (partial, path);
      ok = write_all (fd, bytes + half, len - half) && (!sync || fsync (fd) == 0);
    }
  saved = errno;
  if (close (fd) != 0 && ok)
    {
      ok = FALSE;
      saved = errno;
    }
  if (ok)
    return TRUE;
  g_unlink (name);
  return fail (error, saved, _("Failed to write file “%s”: %s"), name, g_strerror (saved));
}

static gboolean
fail_create (GError **error, const char *name)
{
  int saved = errno;

  return fail (error, saved, _("Failed to create file “%s”: %s"), name, g_strerror (saved));
}

/* A file of a staging folder: written under its own name (replacing what
 * is there, never through a symlink), not synced — the commit syncs the
 * folder whole before the switch. */
static gboolean
write_staged (const char *path, const char *bytes, gsize len, GError **error)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);

  if (fd < 0)
    return fail_create (error, path);
  if (!write_new_file (fd, path, path, bytes, len, "staged-partial", FALSE, error))
    return FALSE;
  hs_stop_point_file ("staged-written", path);
  return TRUE;
}

gboolean
hs_atomic_write (const char *path, const void *data, gsize len, GError **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *tmp = NULL;
  const char *bytes = data;
  int fd, dir_fd, saved;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  if (is_staged (path))
    return write_staged (path, bytes, len, error);
  /* The temporary name GLib uses: NAME.XXXXXX beside the target, so the
   * rename never crosses a file system and a leftover never has the real
   * name. */
  tmp = g_strdup_printf ("%s.XXXXXX", path);
  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    return fail_create (error, tmp);
  /* The content is on disk before the rename makes it visible. */
  if (!write_new_file (fd, tmp, path, bytes, len, "atomic-partial", TRUE, error))
    return FALSE;
  hs_stop_point_file ("atomic-before-rename", path);
  if (g_rename (tmp, path) != 0)
    {
      saved = errno;
      g_unlink (tmp);
      return fail (error, saved, _("Failed to rename the new version onto “%s”: %s"), path,
                   g_strerror (saved));
    }
  hs_stop_point_file ("atomic-after-rename", path);

  /* The rename itself is only durable once the folder entry is synced. */
  dir = g_path_get_dirname (path);
  dir_fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0)
    {
      (void) fsync (dir_fd);
      close (dir_fd);
    }
  return TRUE;
}
