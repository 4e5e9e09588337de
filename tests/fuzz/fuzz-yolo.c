/* fuzz-yolo.c — libFuzzer harness: YOLO label file importer (images/a.png, labels/a.txt = input) */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("yolo/labels/a.txt", data, size);

  g_autofree char *top = g_build_filename (fuzz_dir (), "yolo", NULL);
  g_autofree char *image = g_build_filename (top, "images", "a.png", NULL);
  g_autofree char *classes = g_build_filename (top, "classes.txt", NULL);
  const char *sources[] = { top, NULL };

  if (!g_file_test (image, G_FILE_TEST_EXISTS))
    {
      g_autofree char *src = g_build_filename (fuzz_dir (), "images", "a.png", NULL);
      g_autofree char *contents = NULL;
      gsize len = 0;
      g_autofree char *dir = g_path_get_dirname (image);

      g_mkdir_with_parents (dir, 0700);
      g_file_get_contents (src, &contents, &len, NULL);
      g_file_set_contents (image, contents, (gssize) len, NULL);
      g_file_set_contents (classes, "lung\nnodule\n", -1, NULL);
    }
  g_assert_nonnull (path);
  fuzz_import ("yolo", sources, NULL);
  return 0;
}
