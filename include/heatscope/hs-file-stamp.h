/* hs-file-stamp.h — which file is at a path: its identity when it was read
 *
 * A value decoded from a file (an image, a map, a mask) is only the
 * content of that file as it was: another run may replace the file (an
 * atomic rename gives a new inode) or rewrite it in place (a new size or
 * mtime).  A stamp taken BEFORE the decode and compared with a fresh one
 * tells whether the value still shows what is on disk (hs-lru-cache's
 * stamped entries):
 *
 *   HsFileStamp before;
 *   if (hs_file_stamp_get (path, &before, &error)) { value = decode (path); ... }
 *   ...
 *   HsFileStamp now;
 *   fresh = hs_file_stamp_get (path, &now, NULL) && hs_file_stamp_equal (&before, &now);
 *
 * Not caught: a rewrite in place that keeps the size and within the file
 * system's timestamp tick (or with the mtime set back) — writers of
 * datasets replace files by rename (hs-atomic-file), which is caught. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 device;
  guint64 inode;
  gint64  size;
  gint64  mtime_sec;
  gint64  mtime_nsec;
} HsFileStamp;

/* The identity of the file at `path` (symlinks followed): one stat().
 * FALSE with `error` ("PATH: why", G_IO_ERROR) when it cannot be stat'ed
 * (missing, no permission). */
gboolean hs_file_stamp_get   (const char        *path,
                              HsFileStamp       *stamp,
                              GError           **error);
/* The same of the path itself: a symlink's own identity, not its
 * target's (lstat()).  For a file that must not have been replaced by
 * anything, a symlink included: a dataset's manifest (hs-dataset-writer's
 * guard against writing over another writer's). */
gboolean hs_file_stamp_get_no_follow (const char  *path,
                                      HsFileStamp *stamp,
                                      GError     **error);
/* Whether both stamps name the same file with the same size and mtime. */
gboolean hs_file_stamp_equal (const HsFileStamp *a,
                              const HsFileStamp *b);

G_END_DECLS
