/* fuzz-covid-seg.c — libFuzzer harness: COVID-19 segmentation importer.  The
 * input holds up to three files separated by a line "====": structure.csv,
 * metadata.csv (absent when there is no separator) and the links CSV of
 * HsImportOptions.links.  The folder holds images/a.png (4 × 3) and the crop
 * masks masks/m.png (2 × 2 grey) and masks/rgba.png (2 × 2, varying alpha). */
#include "fuzz-util.h"

#include <string.h>

static void
write_part (const char *relative, const uint8_t *data, size_t size)
{
  g_free (fuzz_write (relative, data, size));
}

static void
make_masks (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *grey = g_build_filename (fuzz_dir (), "covid", "masks", "m.png", NULL);
  g_autofree char *rgba = g_build_filename (fuzz_dir (), "covid", "masks", "rgba.png", NULL);
  g_autofree char *dir = g_path_get_dirname (grey);
  HsImage *image;
  guint16 *d;

  if (g_file_test (grey, G_FILE_TEST_EXISTS))
    return;
  g_mkdir_with_parents (dir, 0700);
  image = hs_image_new (2, 2, 1, 8, &error);
  d = hs_image_get_data (image);
  d[0] = d[3] = 255;
  if (!hs_image_save_png (image, grey, &error))
    g_error ("fuzz: %s", error->message);
  hs_image_unref (image);
  image = hs_image_new (2, 2, 4, 8, &error);
  d = hs_image_get_data (image);
  for (guint i = 0; i < 4; i++)
    d[i * 4 + 3] = i % 2 ? 255 : 0;
  if (!hs_image_save_png (image, rgba, &error))
    g_error ("fuzz: %s", error->message);
  hs_image_unref (image);
  fuzz_copy_image ("covid/images/a.png");
}

/* The part of [data, data + size) up to the next "\n====\n" (or the end). */
static size_t
part_length (const uint8_t *data, size_t size, gboolean *more)
{
  static const char sep[] = "\n====\n";
  const void *at = size >= sizeof sep - 1 ? memmem (data, size, sep, sizeof sep - 1) : NULL;

  *more = at != NULL;
  return at != NULL ? (size_t) ((const uint8_t *) at - data) : size;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *root = g_build_filename (fuzz_dir (), "covid", NULL);
  g_autofree char *metadata = g_build_filename (root, "metadata.csv", NULL);
  g_autofree char *links = NULL;
  const char *sources[] = { root, NULL };
  gboolean more;
  size_t n;

  make_masks ();
  n = part_length (data, size, &more);
  write_part ("covid/structure.csv", data, n);
  g_remove (metadata);
  if (more)
    {
      data += n + 6;
      size -= n + 6;
      n = part_length (data, size, &more);
      write_part ("covid/metadata.csv", data, n);
      if (more)
        {
          data += n + 6;
          size -= n + 6;
          links = g_build_filename (fuzz_dir (), "links.csv", NULL);
          write_part ("links.csv", data, size);
        }
    }
  fuzz_import_full ("covid-seg", sources, NULL, links, "covid-out");
  return 0;
}
