/* hs-atomic-file.c — crash-safe file writes
 *
 * Written out (not g_file_set_contents_full) so that the kill tests can stop
 * the writer at each of its phases (hs-stop-point.h): with half the data in
 * the temporary file, with the whole temporary file synced but not renamed,
 * and renamed but the folder not yet synced. */
#include "hs-atomic-file.h"
#include "hs-stop-point.h"
#include "hs-i18n-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

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

gboolean
hs_atomic_write (const char *path, const void *data, gsize len, GError **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *tmp = NULL;
  const char *bytes = data;
  gsize half = len / 2;
  int fd, dir_fd, saved;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  /* The temporary name GLib uses: NAME.XXXXXX beside the target, so the
   * rename never crosses a file system and a leftover never has the real
   * name. */
  tmp = g_strdup_printf ("%s.XXXXXX", path);
  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      saved = errno;
      return fail (error, saved, _("Failed to create file “%s”: %s"), tmp, g_strerror (saved));
    }

  if (!write_all (fd, bytes, half))
    goto write_failed;
  hs_stop_point_file ("atomic-partial", path);
  if (!write_all (fd, bytes + half, len - half))
    goto write_failed;
  /* The content is on disk before the rename makes it visible. */
  if (fsync (fd) != 0)
    goto write_failed;
  if (close (fd) != 0)
    {
      fd = -1;
      goto write_failed;
    }
  fd = -1;
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

write_failed:
  saved = errno;
  if (fd >= 0)
    close (fd);
  g_unlink (tmp);
  return fail (error, saved, _("Failed to write file “%s”: %s"), tmp, g_strerror (saved));
}
