/* test-atomic-file.c — crash-safe writes */
#include <heatscope/heatscope.h>

#include "hs-test-util.h"

#include <string.h>

static void
test_replaces_content (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "f.txt", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;
  g_autoptr(GDir) listing = NULL;
  guint n_entries = 0;

  g_assert_true (hs_atomic_write (path, "old", 3, &error));
  g_assert_no_error (error);
  g_assert_true (hs_atomic_write (path, "new content", 11, &error));
  g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, "new content");

  /* No temporary file is left behind. */
  listing = g_dir_open (dir, 0, NULL);
  while (g_dir_read_name (listing) != NULL)
    n_entries++;
  g_assert_cmpuint (n_entries, ==, 1);
}

static void
test_missing_folder_fails (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (hs_atomic_write ("/nonexistent-dir-hs/f.txt", "x", 1, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir-hs"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/atomic-file/replaces-content", test_replaces_content);
  g_test_add_func ("/hs/atomic-file/missing-folder-fails", test_missing_folder_fails);
  return g_test_run ();
}
