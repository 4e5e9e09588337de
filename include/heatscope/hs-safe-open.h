/* hs-safe-open.h — opening files beneath a folder without following symlinks out of it */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_SAFE_OPEN_ERROR (hs_safe_open_error_quark ())

typedef enum {
  HS_SAFE_OPEN_ERROR_IO,        /* cannot open or read                       */
  HS_SAFE_OPEN_ERROR_ESCAPE,    /* the path leads outside the folder          */
  HS_SAFE_OPEN_ERROR_NOT_FILE,  /* not a regular file                         */
  HS_SAFE_OPEN_ERROR_TOO_LARGE, /* larger than the limit given                */
} HsSafeOpenError;

GQuark   hs_safe_open_error_quark (void);

/* Opens `relative` (no leading '/', no "..") beneath the folder `dir_fd`
 * for reading.  The kernel resolves it (openat2 with RESOLVE_BENEATH and
 * RESOLVE_NO_MAGICLINKS) so no component, symlinks included, may leave the
 * folder; where openat2 is missing it walks the path one component at a
 * time with O_NOFOLLOW and refuses every symlink.  The descriptor returned
 * is a regular file (checked with fstat on the descriptor itself, so the
 * file checked is the file read).  `display` names the file in errors.
 * Returns -1 with `error` set. */
int      hs_safe_open_beneath     (int dir_fd, const char *relative, const char *display,
                                   GError **error);
/* Opens the folder `path` (O_DIRECTORY); the folder itself may be a
 * symlink: the user named it. */
int      hs_safe_open_dir         (const char *path, GError **error);
/* hs_safe_open_beneath of `relative` beneath the folder `root`. */
int      hs_safe_open_under       (const char *root, const char *relative, const char *display,
                                   GError **error);
/* Reads the whole of the open regular file `fd` after checking its size on
 * the descriptor against `max_bytes`; the buffer is NUL-terminated. */
gboolean hs_safe_read_fd          (int fd, const char *display, guint64 max_bytes,
                                   guint8 **contents, gsize *len, GError **error);
/* Opens and reads `relative` beneath `root` (see above). */
gboolean hs_safe_read_under       (const char *root, const char *relative, const char *display,
                                   guint64 max_bytes, guint8 **contents, gsize *len,
                                   GError **error);
/* Tests only: 1 forces the O_NOFOLLOW walk even where openat2 works. */
void     hs_safe_open_force_walk  (gboolean walk);

G_END_DECLS
