/* fuzz-npy-folder.c — libFuzzer harness: the npy-folder importer (maps
 * attached to an existing dataset).  The input's first line names the map
 * file (".npy" appended; '/' becomes '_'), the rest is its content.  The
 * dataset holds instances "a" (query "s1") and "x/y" (query "q/1", reached
 * through the file-name-safe forms "x_y" and "q_1"); its manifest is restored
 * and its maps/ folder emptied before every run. */
#include "fuzz-util.h"

#include <string.h>

static char *manifest_text;
static gsize manifest_length;

static void
remove_tree (const char *path)
{
  nftw (path, fuzz_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
make_dataset (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *manifest = NULL;
  HsDataset *dataset;
  HsInstance *instance;

  if (manifest_text != NULL)
    return;
  fuzz_copy_image ("npyds/images/a.png");
  root = g_build_filename (fuzz_dir (), "npyds", NULL);
  dataset = hs_dataset_new (root, "fuzz");
  instance = hs_instance_new ("a", "images/a.png");
  instance->width = 4;
  instance->height = 3;
  hs_instance_add_sentence (instance, hs_sentence_new ("s1", "A mass."));
  hs_dataset_add_instance (dataset, instance);
  instance = hs_instance_new ("x/y", "images/a.png");
  instance->width = 4;
  instance->height = 3;
  hs_instance_add_sentence (instance, hs_sentence_new ("q/1", "No mass."));
  hs_dataset_add_instance (dataset, instance);
  if (!hs_dataset_save (dataset, &error))
    g_error ("fuzz: %s", error->message);
  hs_dataset_unref (dataset);
  manifest = g_build_filename (root, "heatscope.json", NULL);
  if (!g_file_get_contents (manifest, &manifest_text, &manifest_length, &error))
    g_error ("fuzz: %s", error->message);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *in = g_build_filename (fuzz_dir (), "npyin", NULL);
  g_autofree char *maps = g_build_filename (fuzz_dir (), "npyds", "maps", NULL);
  const uint8_t *newline = memchr (data, '\n', size);
  size_t name_length = newline != NULL ? (size_t) (newline - data) : size;
  g_autofree char *name = NULL;
  g_autofree char *relative = NULL;
  const char *sources[] = { in, NULL };

  make_dataset ();
  g_free (fuzz_write ("npyds/heatscope.json", (const uint8_t *) manifest_text, manifest_length));
  remove_tree (maps);
  remove_tree (in);

  name = g_strndup ((const char *) data, MIN (name_length, 200));
  g_strdelimit (name, "/", '_');
  if (*name == '\0' || strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
    {
      g_free (name);
      name = g_strdup ("_");
    }
  relative = g_strdup_printf ("npyin/%s.npy", name);
  if (newline != NULL)
    {
      size -= name_length + 1;
      data = newline + 1;
    }
  else
    size = 0;
  g_free (fuzz_write (relative, data, size));
  fuzz_import_full ("npy-folder", sources, NULL, NULL, "npyds");
  return 0;
}
