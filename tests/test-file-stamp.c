/* test-file-stamp.c — hs_file_stamp: the same file is equal to itself; a
 * file replaced by rename differs even with its size and mtime copied
 * over (the inode), a file rewritten in place differs by its mtime or
 * size; a missing file is an error naming it; the no-follow stamp is a
 * symlink's own.  Every mtime is set with
 * utimensat, so no case depends on the clock's tick. */
#include "hs-test-util.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include <heatscope/hs-file-stamp.h>

static void
write_text (const char *path, const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

/* Sets the mtime (and atime) of `path` to `sec`.`nsec`. */
static void
set_mtime (const char *path, gint64 sec, gint64 nsec)
{
  struct timespec times[2] = { { .tv_sec = sec, .tv_nsec = nsec }, { .tv_sec = sec, .tv_nsec = nsec } };

  g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
}

static HsFileStamp
stamp_of (const char *path)
{
  g_autoptr(GError) error = NULL;
  HsFileStamp stamp;

  g_assert_true (hs_file_stamp_get (path, &stamp, &error));
  g_assert_no_error (error);
  return stamp;
}

static void
test_same_file (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "map.npy", NULL);
  HsFileStamp a, b;
  struct stat st;

  write_text (path, "0123456789");
  set_mtime (path, 1700000000, 123456789);
  a = stamp_of (path);
  b = stamp_of (path);
  g_assert_true (hs_file_stamp_equal (&a, &b));
  /* the fields are the file's */
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpuint (a.inode, ==, st.st_ino);
  g_assert_cmpuint (a.device, ==, st.st_dev);
  g_assert_cmpint (a.size, ==, 10);
  g_assert_cmpint (a.mtime_sec, ==, 1700000000);
  g_assert_cmpint (a.mtime_nsec, ==, 123456789);
}

/* What an atomic writer does: a new file beside it, renamed over it.  Same
 * size, mtime forced back to the old one: only the inode tells. */
static void
test_replaced_by_rename (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "map.npy", NULL);
  g_autofree char *tmp = g_build_filename (dir, "map.npy.tmp", NULL);
  HsFileStamp before, after;

  write_text (path, "old content");
  set_mtime (path, 1700000000, 5);
  before = stamp_of (path);
  write_text (tmp, "new content");   /* same length */
  set_mtime (tmp, 1700000000, 5);
  g_assert_cmpint (rename (tmp, path), ==, 0);
  after = stamp_of (path);
  g_assert_cmpint (after.size, ==, before.size);
  g_assert_cmpint (after.mtime_sec, ==, before.mtime_sec);
  g_assert_cmpint (after.mtime_nsec, ==, before.mtime_nsec);
  g_assert_cmpuint (after.inode, !=, before.inode);
  g_assert_false (hs_file_stamp_equal (&before, &after));
  g_assert_false (hs_file_stamp_equal (&after, &before));
}

/* The same inode rewritten: a later mtime (by one nanosecond), or another
 * size with the mtime set back. */
static void
test_rewritten_in_place (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "mask.png", NULL);
  HsFileStamp before, after;
  FILE *file;

  write_text (path, "old content");
  set_mtime (path, 1700000000, 5);
  before = stamp_of (path);
  file = fopen (path, "r+");
  g_assert_nonnull (file);
  g_assert_cmpint (fputs ("NEW", file), >=, 0);
  g_assert_cmpint (fclose (file), ==, 0);
  set_mtime (path, 1700000000, 6);
  after = stamp_of (path);
  g_assert_cmpuint (after.inode, ==, before.inode);
  g_assert_cmpint (after.size, ==, before.size);
  g_assert_false (hs_file_stamp_equal (&before, &after));

  /* longer, mtime set back to the first one's */
  file = fopen (path, "a");
  g_assert_nonnull (file);
  g_assert_cmpint (fputs ("!", file), >=, 0);
  g_assert_cmpint (fclose (file), ==, 0);
  set_mtime (path, 1700000000, 5);
  after = stamp_of (path);
  g_assert_cmpuint (after.inode, ==, before.inode);
  g_assert_cmpint (after.mtime_nsec, ==, before.mtime_nsec);
  g_assert_cmpint (after.size, ==, before.size + 1);
  g_assert_false (hs_file_stamp_equal (&before, &after));
}

static void
test_missing (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "gone.npy", NULL);
  g_autoptr(GError) error = NULL;
  HsFileStamp stamp;

  g_assert_false (hs_file_stamp_get (path, &stamp, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, path));
  /* a file once there, then removed */
  write_text (path, "x");
  stamp = stamp_of (path);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_clear_error (&error);
  g_assert_false (hs_file_stamp_get (path, &stamp, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

/* The no-follow stamp is the path's own: a regular file's is its stamp, a
 * symlink's differs from its target's (which the following stamp gives),
 * and a dangling symlink still has one. */
static void
test_no_follow (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *target = g_build_filename (dir, "heatscope.json", NULL);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autoptr(GError) error = NULL;
  HsFileStamp plain, followed, own, file_own;
  struct stat st;

  write_text (target, "{}");
  set_mtime (target, 1700000000, 42);
  g_assert_true (hs_file_stamp_get_no_follow (target, &file_own, &error));
  g_assert_no_error (error);
  plain = stamp_of (target);
  /* a regular file: both variants agree */
  g_assert_true (hs_file_stamp_equal (&plain, &file_own));

  g_assert_cmpint (symlink ("heatscope.json", link), ==, 0);
  followed = stamp_of (link);
  g_assert_true (hs_file_stamp_equal (&followed, &plain));
  g_assert_true (hs_file_stamp_get_no_follow (link, &own, &error));
  g_assert_no_error (error);
  g_assert_false (hs_file_stamp_equal (&own, &plain));
  g_assert_cmpint (lstat (link, &st), ==, 0);
  g_assert_cmpuint (own.inode, ==, (guint64) st.st_ino);
  g_assert_cmpint (own.size, ==, (gint64) strlen ("heatscope.json"));

  /* dangling: no stamp through it, its own still */
  g_assert_cmpint (g_unlink (target), ==, 0);
  g_assert_false (hs_file_stamp_get (link, &followed, NULL));
  g_assert_true (hs_file_stamp_get_no_follow (link, &own, &error));
  g_assert_no_error (error);
  /* a missing path is an error naming it, as with the following stamp */
  g_assert_false (hs_file_stamp_get_no_follow (target, &own, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, target));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file-stamp/same-file", test_same_file);
  g_test_add_func ("/file-stamp/replaced-by-rename", test_replaced_by_rename);
  g_test_add_func ("/file-stamp/rewritten-in-place", test_rewritten_in_place);
  g_test_add_func ("/file-stamp/missing", test_missing);
  g_test_add_func ("/file-stamp/no-follow", test_no_follow);
  return g_test_run ();
}
