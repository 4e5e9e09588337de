/* hs-atomic-file.c — crash-safe file writes */
#include "hs-atomic-file.h"

#include <fcntl.h>
#include <unistd.h>

gboolean
hs_atomic_write (const char *path, const void *data, gsize len, GError **error)
{
  g_autofree char *dir = NULL;
  int dir_fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  /* CONSISTENT = temp file + rename; DURABLE adds the fsync of the file so
   * its content is on disk before the rename makes it visible. */
  if (!g_file_set_contents_full (path, data ? data : "", len,
                                 G_FILE_SET_CONTENTS_CONSISTENT |
                                 G_FILE_SET_CONTENTS_DURABLE,
                                 0644, error))
    return FALSE;

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
