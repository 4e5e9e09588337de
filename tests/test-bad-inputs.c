/* test-bad-inputs.c — every crafted file of tests/bad-inputs/ gets the exact
 * error listed in tests/bad-inputs/expected.tsv, through the library.
 *
 * expected.tsv: FILE <tab> LOADER <tab> CLI-STATUS <tab> MESSAGE, where MESSAGE
 * may hold @DIR@ (tests/bad-inputs with symlinks resolved) and @OUT@ (the
 * import output folder).  Set HS_BAD_INPUTS_PRINT=1 to print the messages the
 * library gives instead of asserting (to review new entries by hand). */
#include <heatscope/heatscope.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include "hs-test-util.h"

static char *bad_dir;   /* realpath of tests/bad-inputs */
static char *out_dir;

static char *
take_error (GError *error)
{
  char *message;

  if (error == NULL)
    return g_strdup ("(no error)");
  message = g_strdup (error->message);
  g_error_free (error);
  return message;
}

static char *
load_safetensors (const char *path)
{
  GError *error = NULL;
  HsSafetensors *st = hs_safetensors_load (path, &error);
  const char * const *names;

  if (st == NULL)
    return take_error (error);
  names = hs_safetensors_list (st);
  for (guint i = 0; names != NULL && names[i] != NULL && error == NULL; i++)
    {
      gsize n = 0;
      g_free (hs_safetensors_get_float (st, names[i], &n, &error));
    }
  hs_safetensors_free (st);
  return take_error (error);
}

static char *
load_dataset_part (const char *path, const char *part)
{
  GError *error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (path, &error);
  HsInstance *instance;

  if (dataset == NULL)
    return take_error (error);
  if (hs_dataset_get_n_instances (dataset) == 0)
    return g_strdup ("(no instance)");
  instance = hs_dataset_get_instance (dataset, 0);
  if (strcmp (part, "image") == 0)
    {
      HsImage *image = hs_dataset_load_image (dataset, instance, &error);

      if (image != NULL)
        hs_image_unref (image);
    }
  else if (instance->maps != NULL && instance->maps->len > 0)
    {
      HsAttentionMap *map = hs_dataset_load_map (dataset, g_ptr_array_index (instance->maps, 0), &error);

      if (map != NULL)
        hs_attention_map_unref (map);
    }
  return take_error (error);
}

static char *
load_validate (const char *path)
{
  g_autoptr(GPtrArray) problems = NULL;

  if (hs_dataset_validate (path, &problems) || problems == NULL || problems->len == 0)
    return g_strdup ("(no problem)");
  return hs_problem_to_string (g_ptr_array_index (problems, 0));
}

/* The first skipped row (the reason an import that imports nothing fails
 * is that row), else the import error. */
static char *
load_import (const char *format, const char *path)
{
  g_autofree char *images = g_build_filename (bad_dir, "outside", NULL);
  g_autofree char *links = g_build_filename (path, "links.csv", NULL);
  const char *sources[] = { path, images, NULL };
  HsImportOptions options = { .force = TRUE };
  HsImportSummary summary = { 0 };
  GError *error = NULL;
  HsDataset *dataset;
  char *message;

  if (strcmp (format, "ms-cxr") == 0 || strcmp (format, "chexlocalize") == 0 ||
      strcmp (format, "covid-seg") == 0)
    sources[1] = NULL;
  /* a covid-seg folder may hold the links CSV of --links */
  if (strcmp (format, "covid-seg") == 0 && g_file_test (links, G_FILE_TEST_EXISTS))
    options.links = links;
  dataset = hs_import (format, sources, out_dir, &options, &summary, &error);
  if (summary.skipped != NULL && summary.skipped->len > 0)
    {
      message = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, 0));
      g_clear_error (&error);
    }
  else
    message = take_error (error);
  g_clear_pointer (&dataset, hs_dataset_unref);
  hs_import_summary_clear (&summary);
  return message;
}

static char *
load_rle (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GArray) counts = NULL;
  GError *error = NULL;
  guint height = 0, width = 0;
  guint8 *mask;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", 3);
  g_assert_nonnull (lines[0]);
  g_assert_nonnull (lines[1]);
  g_assert_cmpint (sscanf (lines[0], "%u %u", &height, &width), ==, 2);
  /* hs-rle decodes strings, not files: its callers (the COCO and
   * CheXlocalize importers, and this test) name the file. */
  counts = hs_rle_counts_from_string (lines[1], &error);
  if (counts != NULL)
    {
      mask = hs_rle_decode ((const guint32 *) counts->data, counts->len, height, width, &error);
      g_free (mask);
    }
  if (error != NULL)
    g_prefix_error (&error, "%s: ", path);
  return take_error (error);
}

/* The error message `loader` gives for `path` ("(no error)" when it loads). */
static char *
load_with (const char *loader, const char *path)
{
  GError *error = NULL;

  if (strcmp (loader, "image") == 0)
    {
      HsImage *image = hs_image_load (path, &error);

      if (image != NULL)
        hs_image_unref (image);
    }
  else if (strcmp (loader, "npy") == 0)
    {
      HsNdArray *array = hs_npy_read (path, &error);

      if (array != NULL)
        hs_nd_array_free (array);
    }
  else if (strcmp (loader, "map") == 0)
    {
      HsAttentionMap *map = hs_attention_map_load_npy (path, NULL, 0.0, &error);

      if (map != NULL)
        hs_attention_map_unref (map);
    }
  else if (strcmp (loader, "safetensors") == 0)
    return load_safetensors (path);
  else if (strcmp (loader, "manifest") == 0)
    {
      HsDataset *dataset = hs_dataset_load (path, &error);

      if (dataset != NULL)
        hs_dataset_unref (dataset);
    }
  else if (strcmp (loader, "manifest-image") == 0)
    return load_dataset_part (path, "image");
  else if (strcmp (loader, "manifest-map") == 0)
    return load_dataset_part (path, "map");
  else if (strcmp (loader, "validate") == 0)
    return load_validate (path);
  else if (g_str_has_prefix (loader, "import-"))
    return load_import (loader + strlen ("import-"), path);
  else if (strcmp (loader, "project") == 0)
    {
      HsAnnotationProject *project = hs_annotation_project_load (path, &error);

      if (project != NULL)
        hs_annotation_project_free (project);
    }
  else if (strcmp (loader, "rle") == 0)
    return load_rle (path);
  else
    g_error ("expected.tsv: unknown loader %s", loader);
  return take_error (error);
}

typedef HsBadInput Case;   /* a row of expected.tsv */

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *path = g_build_filename (bad_dir, c->file, NULL);
  g_autofree char *got = NULL;
  g_autofree char *with_dir = hs_test_replace (c->message, "@DIR@", bad_dir);
  g_autofree char *expected = hs_test_replace (with_dir, "@OUT@", out_dir);

  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  got = load_with (c->loader, path);
  if (g_getenv ("HS_BAD_INPUTS_PRINT") != NULL)
    {
      g_autofree char *a = hs_test_replace (got, bad_dir, "@DIR@");
      g_autofree char *b = hs_test_replace (a, out_dir, "@OUT@");

      g_printerr ("%s\t%s\t%s\n", c->file, c->loader, b);
      return;
    }
  g_assert_cmpstr (got, ==, expected);
}

/* Every loader refuses: the expected list is long enough and names each file. */
static void
test_count (gconstpointer data)
{
  const GPtrArray *cases = data;

  g_assert_cmpuint (cases->len, >=, 40);
}

int
main (int argc, char **argv)
{
  g_autoptr(GPtrArray) cases = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  bad_dir = hs_test_bad_inputs_dir ();
  out_dir = hs_test_make_tmpdir ();
  cases = hs_test_read_bad_inputs (bad_dir);
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = g_ptr_array_index (cases, i);
      g_autofree char *name = g_strdup_printf ("/hs/bad-inputs/%s", c->file);

      g_test_add_data_func (name, c, test_case);
    }
  g_test_add_data_func ("/hs/bad-inputs/count", cases, test_count);
  status = g_test_run ();
  g_free (bad_dir);
  g_free (out_dir);
  return status;
}
