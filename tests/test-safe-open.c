/* test-safe-open.c — every dataset and import source file is opened beneath its folder
 *
 * Promise (docs/reliability.md): a file of a dataset is opened relative to
 * the dataset folder's descriptor and never through a symlink out of it,
 * even one swapped in after the path was checked; importers never follow a
 * symlink out of their source folder. */
#include <heatscope/heatscope.h>
#include "hs-dataset-private.h"
#include "hs-test-util.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
write_png (const char *path, guint width, guint height, guint16 value)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_new (width, height, 1, 8, &error);
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_no_error (error);
  for (gsize i = 0; i < (gsize) width * height; i++)
    hs_image_get_data (image)[i] = value;
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (hs_image_save_png (image, path, &error));
  g_assert_no_error (error);
}

/* The layout every case uses: TOP/set (the folder) and TOP/outside/secret.png. */
typedef struct {
  char *top, *set, *outside, *secret;
  int set_fd;
} Layout;

static void
layout_init (Layout *l)
{
  l->top = hs_test_make_tmpdir ();
  l->set = g_build_filename (l->top, "set", NULL);
  l->outside = g_build_filename (l->top, "outside", NULL);
  l->secret = g_build_filename (l->outside, "secret.png", NULL);
  write_png (l->secret, 33, 17, 200);
  hs_test_write_file (l->set, "images/a.txt", "inside");
  l->set_fd = open (l->set, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (l->set_fd, >=, 0);
}

static void
layout_clear (Layout *l)
{
  close (l->set_fd);
  g_free (l->top);
  g_free (l->set);
  g_free (l->outside);
  g_free (l->secret);
}

static void
link_in (Layout *l, const char *target, const char *name)
{
  g_autofree char *path = g_build_filename (l->set, name, NULL);

  g_assert_cmpint (symlink (target, path), ==, 0);
}

static void
expect_refused (int dir_fd, const char *relative, gint code)
{
  g_autoptr(GError) error = NULL;
  int fd = hs_safe_open_beneath (dir_fd, relative, NULL, &error);

  if (fd >= 0)
    g_error ("\"%s\" was opened", relative);
  g_assert_error (error, HS_SAFE_OPEN_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, relative));
}

static void
check_open_beneath (gconstpointer walk)
{
  Layout l;
  g_autoptr(GError) error = NULL;
  g_autofree char *fifo = NULL;
  guint8 *data = NULL;
  gsize len = 0;
  int fd;

  hs_safe_open_force_walk (GPOINTER_TO_INT (walk));
  layout_init (&l);
  link_in (&l, l.secret, "escape.png");          /* absolute, out */
  link_in (&l, "../outside", "linked");            /* a folder out */
  link_in (&l, "../../outside/secret.png", "images/up.png");
  link_in (&l, "a.txt", "images/alias.txt");       /* stays inside */
  fifo = g_build_filename (l.set, "fifo", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  fd = hs_safe_open_beneath (l.set_fd, "images/a.txt", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (hs_safe_read_fd (fd, "images/a.txt", 1024, &data, &len, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (data, len, "inside", 6);
  g_free (data);
  close (fd);

  expect_refused (l.set_fd, "escape.png", HS_SAFE_OPEN_ERROR_ESCAPE);
  expect_refused (l.set_fd, "linked/secret.png", HS_SAFE_OPEN_ERROR_ESCAPE);
  expect_refused (l.set_fd, "images/up.png", HS_SAFE_OPEN_ERROR_ESCAPE);
  expect_refused (l.set_fd, "../outside/secret.png", HS_SAFE_OPEN_ERROR_ESCAPE);
  expect_refused (l.set_fd, "images/../../outside/secret.png", HS_SAFE_OPEN_ERROR_ESCAPE);
  expect_refused (l.set_fd, l.secret, HS_SAFE_OPEN_ERROR_ESCAPE);
  /* Neither a folder nor a FIFO is a file; the FIFO must not block. */
  expect_refused (l.set_fd, "images", HS_SAFE_OPEN_ERROR_NOT_FILE);
  expect_refused (l.set_fd, "fifo", HS_SAFE_OPEN_ERROR_NOT_FILE);
  expect_refused (l.set_fd, "missing.png", HS_SAFE_OPEN_ERROR_IO);

  /* A symlink that stays inside: the kernel's RESOLVE_BENEATH follows it;
   * the O_NOFOLLOW walk refuses every symlink. */
  fd = hs_safe_open_beneath (l.set_fd, "images/alias.txt", NULL, &error);
  if (GPOINTER_TO_INT (walk))
    {
      g_assert_cmpint (fd, ==, -1);
      g_assert_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_ESCAPE);
    }
  else
    {
      g_assert_no_error (error);
      g_assert_cmpint (fd, >=, 0);
      close (fd);
    }
  hs_safe_open_force_walk (FALSE);
  layout_clear (&l);
}

/* The size limit is checked on the descriptor, and the read stops there. */
static void
check_read_limit (void)
{
  Layout l;
  g_autoptr(GError) error = NULL;
  guint8 *data = NULL;
  gsize len = 0;

  layout_init (&l);
  g_assert_false (hs_safe_read_under (l.set, "images/a.txt", "a.txt", 5, &data, &len, &error));
  g_assert_error (error, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_TOO_LARGE);
  g_assert_cmpstr (error->message, ==, "a.txt: file of 6 bytes is too large (limit 5 bytes)");
  layout_clear (&l);
}

/* --- the dataset: a symlink swapped in between check and open ------------ */

static char *swap_target;
static char *swap_link;

static void
swap_in_symlink (const char *resolved)
{
  if (swap_link == NULL)
    return;
  g_assert_cmpint (g_unlink (swap_link), ==, 0);
  g_assert_cmpint (symlink (swap_target, swap_link), ==, 0);
}

static void
check_dataset_swap (void)
{
  Layout l;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImage) before = NULL;
  HsInstance *instance;
  guint w = 0, h = 0;

  layout_init (&l);
  swap_link = g_build_filename (l.set, "images", "x.png", NULL);
  swap_target = g_strdup (l.secret);
  write_png (swap_link, 8, 8, 10);
  dataset = hs_dataset_new (l.set, "swap");
  instance = hs_instance_new ("x", "images/x.png");
  hs_dataset_add_instance (dataset, instance);

  /* Untouched, the image loads. */
  before = hs_dataset_load_image (dataset, instance, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_image_get_width (before), ==, 8);

  /* Swapped after the path check: refused, the secret is never read. */
  hs_dataset_test_after_check = swap_in_symlink;
  image = hs_dataset_load_image (dataset, instance, &error);
  g_assert_null (image);
  g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH);
  g_assert_nonnull (strstr (error->message, "leads outside the folder"));
  g_clear_error (&error);

  /* The probe behind image sizes and validate reads the same way. */
  g_assert_cmpint (g_unlink (swap_link), ==, 0);
  write_png (swap_link, 8, 8, 10);
  g_assert_false (hs_dataset_get_image_size (dataset, instance, &w, &h, &error));
  g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH);
  g_assert_cmpuint (w, !=, 33);

  hs_dataset_test_after_check = NULL;
  g_clear_pointer (&swap_link, g_free);
  g_clear_pointer (&swap_target, g_free);
  layout_clear (&l);
}

/* --- importers never follow a symlink out of their source ---------------- */

static gboolean
tree_holds_size (const char *dir, guint width, guint height)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      guint w = 0, h = 0;

      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        {
          if (tree_holds_size (path, width, height))
            return TRUE;
        }
      else if (hs_image_probe (path, &w, &h, NULL) && w == width && h == height)
        return TRUE;
    }
  return FALSE;
}

static void
check_import_symlink (void)
{
  Layout l;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autofree char *source = NULL;
  g_autofree char *out = NULL;
  g_autofree char *good = NULL;
  g_autofree char *leak = NULL;
  HsImportSummary summary = { 0 };
  gboolean skipped_leak = FALSE;

  layout_init (&l);
  source = g_build_filename (l.top, "yolo", NULL);
  out = g_build_filename (l.top, "out", NULL);
  good = g_build_filename (source, "images", "good.png", NULL);
  leak = g_build_filename (source, "images", "leak.png", NULL);
  write_png (good, 20, 20, 50);
  g_assert_cmpint (symlink (l.secret, leak), ==, 0);
  hs_test_write_file (source, "labels/good.txt", "0 0.5 0.5 0.2 0.2\n");
  hs_test_write_file (source, "labels/leak.txt", "0 0.5 0.5 0.2 0.2\n");

  dataset = hs_import ("yolo", (const char *[]) { source, NULL }, out, NULL, &summary, &error);
  g_assert_no_error (error);
  g_assert_nonnull (dataset);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 1);
  g_assert_cmpstr (hs_dataset_get_instance (dataset, 0)->id, ==, "images/good");
  for (guint i = 0; i < summary.skipped->len; i++)
    {
      const HsImportSkip *skip = g_ptr_array_index (summary.skipped, i);
      g_autofree char *line = hs_import_skip_to_string (skip);
      if (strstr (line, "leak.png") != NULL && strstr (line, "leads outside the folder") != NULL)
        skipped_leak = TRUE;
    }
  g_assert_true (skipped_leak);
  /* No copy of the 33 × 17 secret anywhere in the output. */
  g_assert_false (tree_holds_size (out, 33, 17));
  hs_import_summary_clear (&summary);
  layout_clear (&l);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/safe-open/beneath/openat2", GINT_TO_POINTER (FALSE), check_open_beneath);
  g_test_add_data_func ("/safe-open/beneath/walk", GINT_TO_POINTER (TRUE), check_open_beneath);
  g_test_add_func ("/safe-open/read-limit", check_read_limit);
  g_test_add_func ("/safe-open/dataset-swap", check_dataset_swap);
  g_test_add_func ("/safe-open/import-symlink", check_import_symlink);
  return g_test_run ();
}
