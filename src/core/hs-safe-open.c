/* hs-safe-open.c — opening files beneath a folder without following symlinks out of it
 *
 * A dataset, or an import source, is a folder someone else made.  Checking
 * a path with realpath() and then opening it by name leaves a window in
 * which a symlink can be swapped in; opening relative to the folder's
 * descriptor with the kernel refusing to leave it closes that window. */
#include "hs-safe-open.h"
#include "hs-i18n-private.h"
#include "hs-big-buffer-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__linux__) && defined(SYS_openat2)
#include <linux/openat2.h>
#define HS_HAVE_OPENAT2 1
#endif

G_DEFINE_QUARK (hs-safe-open-error-quark, hs_safe_open_error)

static gboolean force_walk;

void
hs_safe_open_force_walk (gboolean walk)
{
  force_walk = walk;
}

static gboolean
check_relative (const char *relative, const char *display, GError **error)
{
  const char *p = relative;

  if (relative == NULL || *relative == '\0' || *relative == '/')
    {
      g_set_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_ESCAPE,
                   _("%s: not a relative path inside the folder"), display);
      return FALSE;
    }
  while (*p != '\0')
    {
      const char *end = strchr (p, '/');

      if (end == NULL)
        end = p + strlen (p);

      if (end - p == 2 && p[0] == '.' && p[1] == '.')
        {
          g_set_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_ESCAPE,
                       _("%s: the path goes up with \"..\""), display);
          return FALSE;
        }
      p = *end ? end + 1 : end;
    }
  return TRUE;
}

static int
set_open_error (const char *display, int saved, GError **error)
{
  if (saved == EXDEV || saved == ELOOP)
    g_set_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_ESCAPE,
                 _("%s: a symlink in the path leads outside the folder"), display);
  else
    g_set_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_IO,
                 _("%s: cannot read: %s"), display, g_strerror (saved));
  return -1;
}

/* One component at a time, never following a symlink: stricter than
 * RESOLVE_BENEATH (a symlink that stays inside is refused as well). */
static int
open_walk (int dir_fd, const char *relative, const char *display, GError **error)
{
  g_auto(GStrv) parts = g_strsplit (relative, "/", -1);
  int fd = dup (dir_fd);
  guint n = g_strv_length (parts);

  if (fd < 0)
    return set_open_error (display, errno, error);
  for (guint i = 0; i < n; i++)
    {
      gboolean last = i + 1 == n;
      int next;

      if (parts[i][0] == '\0' || strcmp (parts[i], ".") == 0)
        {
          if (last)
            {
              close (fd);
              return set_open_error (display, EISDIR, error);
            }
          continue;
        }
      next = openat (fd, parts[i],
                     O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (last ? O_NONBLOCK : O_DIRECTORY));
      if (next < 0)
        {
          int saved = errno;
          struct stat st;

          /* O_NOFOLLOW on a symlink fails with ELOOP (last) or ENOTDIR (a
           * folder component): name the real reason. */
          if ((saved == ELOOP || saved == ENOTDIR) &&
              fstatat (fd, parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode))
            saved = ELOOP;
          close (fd);
          return set_open_error (display, saved, error);
        }
      close (fd);
      fd = next;
    }
  return fd;
}

static int
open_resolved (int dir_fd, const char *relative, const char *display, GError **error)
{
#ifdef HS_HAVE_OPENAT2
  if (!force_walk)
    {
      struct open_how how = { 0 };
      long fd;

      /* O_NONBLOCK: opening a FIFO planted in the folder must not block. */
      how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
      fd = syscall (SYS_openat2, dir_fd, relative, &how, sizeof how);
      if (fd >= 0)
        return (int) fd;
      /* Old kernels and seccomp filters without openat2: walk instead. */
      if (errno != ENOSYS && errno != EPERM)
        return set_open_error (display, errno, error);
    }
#endif
  return open_walk (dir_fd, relative, display, error);
}

int
hs_safe_open_beneath (int dir_fd, const char *relative, const char *display, GError **error)
{
  struct stat st;
  int fd;
  int flags;

  g_return_val_if_fail (error == NULL || *error == NULL, -1);
  if (display == NULL)
    display = relative != NULL ? relative : "";
  if (!check_relative (relative, display, error))
    return -1;
  fd = open_resolved (dir_fd, relative, display, error);
  if (fd < 0)
    return -1;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_NOT_FILE,
                   _("%s: not a regular file"), display);
      return -1;
    }
  flags = fcntl (fd, F_GETFL);
  if (flags >= 0)
    (void) fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

int
hs_safe_open_dir (const char *path, GError **error)
{
  int fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_IO,
                   _("%s: cannot open folder: %s"), path, g_strerror (saved));
    }
  return fd;
}

int
hs_safe_open_under (const char *root, const char *relative, const char *display,
                    GError **error)
{
  int dir_fd = hs_safe_open_dir (root, error);
  int fd;

  if (dir_fd < 0)
    return -1;
  fd = hs_safe_open_beneath (dir_fd, relative, display, error);
  close (dir_fd);
  return fd;
}

gboolean
hs_safe_read_fd (int fd, const char *display, guint64 max_bytes,
                 guint8 **contents, gsize *len, GError **error)
{
  struct stat st;
  guint8 *data;
  gsize size, done = 0;

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_NOT_FILE,
                   _("%s: not a regular file"), display);
      return FALSE;
    }
  if ((guint64) st.st_size > max_bytes)
    {
      g_set_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_TOO_LARGE,
                   _("%s: file of %llu bytes is too large (limit %llu bytes)"),
                   display, (unsigned long long) st.st_size, (unsigned long long) max_bytes);
      return FALSE;
    }
  size = (gsize) st.st_size;
  /* a big file's buffer on huge pages (hs-big-buffer-private.h); g_malloc
   * when that fails, which aborts as any allocation here always did */
  data = hs_big_buffer_try_alloc (size + 1);
  if (data == NULL)
    data = g_malloc (size + 1);
  /* Read what fstat promised, no more: a file growing meanwhile cannot push
   * the read past the limit checked above. */
  while (done < size)
    {
      ssize_t n = read (fd, data + done, size - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_free (data);
          g_set_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_IO,
                       _("%s: cannot read: %s"), display, g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        break;
      done += (gsize) n;
    }
  data[done] = 0;
  *contents = data;
  *len = done;
  return TRUE;
}

gboolean
hs_safe_read_under (const char *root, const char *relative, const char *display,
                    guint64 max_bytes, guint8 **contents, gsize *len, GError **error)
{
  int fd = hs_safe_open_under (root, relative, display, error);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = hs_safe_read_fd (fd, display, max_bytes, contents, len, error);
  close (fd);
  return ok;
}
