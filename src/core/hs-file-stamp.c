/* hs-file-stamp.c — a file's identity (device, inode, size, mtime in ns)
 *
 * Every field is compared: the device and inode catch a replacement by
 * rename even when size and mtime were copied over, size and mtime catch
 * a rewrite in place.  One stat(): microseconds, cheap enough to check on
 * every cache lookup.  The no-follow variant lstat()s. */
#include "hs-file-stamp.h"

#include <errno.h>
#include <sys/stat.h>

#include <gio/gio.h>

static gboolean
stamp_get (const char *path, gboolean follow, HsFileStamp *stamp, GError **error)
{
  struct stat st;

  g_return_val_if_fail (path != NULL && stamp != NULL, FALSE);
  if ((follow ? stat (path, &st) : lstat (path, &st)) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path,
                   g_strerror (saved));
      return FALSE;
    }
  *stamp = (HsFileStamp) {
    .device = (guint64) st.st_dev,
    .inode = (guint64) st.st_ino,
    .size = (gint64) st.st_size,
    .mtime_sec = (gint64) st.st_mtim.tv_sec,
    .mtime_nsec = (gint64) st.st_mtim.tv_nsec,
  };
  return TRUE;
}

gboolean
hs_file_stamp_get (const char *path, HsFileStamp *stamp, GError **error)
{
  return stamp_get (path, TRUE, stamp, error);
}

gboolean
hs_file_stamp_get_no_follow (const char *path, HsFileStamp *stamp, GError **error)
{
  return stamp_get (path, FALSE, stamp, error);
}

gboolean
hs_file_stamp_equal (const HsFileStamp *a, const HsFileStamp *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  return a->device == b->device && a->inode == b->inode && a->size == b->size &&
         a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}
