/* hs-manifest-reader.c — reading heatscope.json whole: problems, the file,
 * hs_dataset_load and hs_dataset_validate
 *
 * The reader parses the manifest into a compact tree (hs-json-reader.c),
 * walks it once (hs-manifest-schema.c), converts it to the plain structs and
 * drops the tree; nothing referenced by the manifest is opened unless the
 * validator asks for it.  The same walk serves the loader (stop at the first
 * problem) and the validator (record every problem). */
#include "hs-manifest-private.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <errno.h>
#include <glib/gstdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

/* --- problems ------------------------------------------------------------ */

gboolean
hs_manifest_reader_problem (HsManifestReader *reader, const char *file,
                            const HsJsonPath *path, HsDatasetError code,
                            const char *format, ...)
{
  g_autofree char *message = NULL;
  g_autofree char *path_string = hs_json_path_to_string (path);
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  if (file == NULL)
    file = reader->manifest;

  if (reader->collect)
    {
      g_ptr_array_add (reader->problems, hs_problem_new (file, path_string, message));
      return TRUE;
    }
  if (reader->error == NULL)
    reader->error = g_error_new (HS_DATASET_ERROR, code, "%s: %s: %s", file, path_string, message);
  reader->stop = TRUE;
  return FALSE;
}

/* --- reading the file ---------------------------------------------------- */

guint
hs_manifest_line_of_offset (const char *data, gsize offset)
{
  guint line = 1;

  for (gsize i = 0; i < offset; i++)
    if (data[i] == '\n')
      line++;
  return line;
}

static gboolean
is_blank (const char *data, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (data[i] != ' ' && data[i] != '\t' && data[i] != '\r' && data[i] != '\n')
      return FALSE;
  return TRUE;
}

gboolean
hs_manifest_read (HsManifestReader *r, const char *root, const char *manifest_path)
{
  g_autoptr(GMappedFile) mapped = NULL;
  const char *data;
  HjParser parser = { 0 };
  HjNode *root_node;
  g_autoptr(GError) local_error = NULL;
  const char *invalid = NULL;
  guint64 limit = hs_limits_get ()->max_manifest_bytes;
  gsize len = 0;
  GStatBuf st;

  if (g_stat (manifest_path, &st) != 0)
    {
      int saved = errno;
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_IO, _("cannot read the manifest: %s"),
                                  g_strerror (saved));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_IO,
                                  _("the manifest is not a regular file"));
      return FALSE;
    }
  if ((guint64) st.st_size > limit)
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_TOO_LARGE,
                                  _("the manifest has %" PRIu64 " bytes, over the limit of %"
                                  PRIu64), (guint64) st.st_size, limit);
      return FALSE;
    }
  /* Mapped, not copied: the text is only read once, by the parser. */
  mapped = g_mapped_file_new (manifest_path, FALSE, &local_error);
  if (mapped == NULL)
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_IO, _("cannot read the manifest: %s"),
                                  local_error->message);
      return FALSE;
    }
  data = g_mapped_file_get_contents (mapped);
  len = g_mapped_file_get_length (mapped);
  if (data == NULL)
    data = "";
  if ((guint64) len > limit)
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_TOO_LARGE,
                                  _("the manifest has %" PRIu64 " bytes, over the limit of %"
                                  PRIu64), (guint64) len, limit);
      return FALSE;
    }
  if (!g_utf8_validate (data, (gssize) len, &invalid))
    {
      gsize offset = (gsize) (invalid - data);
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_PARSE,
                                  _("invalid UTF-8 (or a NUL byte) at byte %zu"
                                  " (line %u)"), offset, hs_manifest_line_of_offset (data, offset));
      return FALSE;
    }
  if (is_blank (data, len))
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_PARSE, _("the manifest is empty"));
      return FALSE;
    }

  root_node = hj_parse (&parser, data, len);
  if (root_node == NULL)
    {
      hs_manifest_reader_problem (r, NULL, NULL, HS_DATASET_ERROR_PARSE, _("not valid JSON: %s"),
                                  parser.error);
      hj_parser_clear (&parser);
      return FALSE;
    }
  g_clear_pointer (&mapped, g_mapped_file_unref);

  hs_manifest_read_top (r, root_node);
  hj_parser_clear (&parser);
  return !r->stop;
}

gboolean
hs_manifest_locate (const char *path, char **root, char **manifest, GError **error)
{
  /* relative to the current directory */
  g_autofree char *absolute = g_canonicalize_filename (path, NULL);
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  char *real;


  if (g_file_test (absolute, G_FILE_TEST_IS_DIR))
    {
      dir = g_strdup (absolute);
      base = g_strdup (HS_DATASET_MANIFEST);
    }
  else if (g_file_test (absolute, G_FILE_TEST_EXISTS))
    {
      dir = g_path_get_dirname (absolute);
      base = g_path_get_basename (absolute);
    }
  else
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   _("%s: no such dataset folder or manifest"), path);
      return FALSE;
    }

  real = realpath (dir, NULL);
  if (real == NULL)
    {
      int saved = errno;
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   _("%s: cannot resolve the dataset folder: %s"), path, g_strerror (saved));
      return FALSE;
    }
  *root = g_strdup (real);
  free (real);
  *manifest = g_build_filename (*root, base, NULL);
  return TRUE;
}

/* The parse tree of a large manifest is freed by now, but glibc keeps the
 * pages (in a thread's arena when an app loads on a worker): hand them
 * back, or a 10 000-instance dataset costs its tree size in RSS for good. */
void
hs_manifest_trim_after_load (HsDataset *dataset)
{
#ifdef __GLIBC__
  if (hs_dataset_get_n_instances (dataset) >= 1000)
    malloc_trim (0);
#endif
}

HsDataset *
hs_manifest_load_whole (const char *root, const char *manifest, GError **error)
{
  g_autoptr(HsDataset) dataset = NULL;
  HsManifestReader reader = { 0 };

  dataset = hs_dataset_new_internal (root, manifest);
  reader.manifest = manifest;
  reader.dataset = dataset;
  if (!hs_manifest_read (&reader, root, manifest))
    {
      g_propagate_error (error, reader.error);
      return NULL;
    }
  hs_manifest_trim_after_load (dataset);
  return g_steal_pointer (&dataset);
}

HsDataset *
hs_dataset_load (const char *path, GError **error)
{
  g_autofree char *root = NULL;
  g_autofree char *manifest = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!hs_manifest_locate (path, &root, &manifest, error))
    return NULL;
  return hs_manifest_load_whole (root, manifest, error);
}

/* --- validating --------------------------------------------------------- */

gboolean
hs_dataset_validate (const char *path, GPtrArray **problems)
{
  g_autofree char *root = NULL;
  g_autofree char *manifest = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsManifestReader reader = { 0 };
  GPtrArray *found;

  g_return_val_if_fail (path != NULL, FALSE);

  found = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_problem_free);
  if (!hs_manifest_locate (path, &root, &manifest, &error))
    g_ptr_array_add (found, hs_problem_new (path, "$", error->message));
  else
    {
      dataset = hs_dataset_new_internal (root, manifest);
      reader.manifest = manifest;
      reader.dataset = dataset;
      reader.collect = TRUE;
      reader.check_files = TRUE;
      reader.problems = found;
      hs_manifest_read (&reader, root, manifest);
    }

  {
    gboolean ok = found->len == 0;

    if (problems != NULL)
      *problems = found;
    else
      g_ptr_array_unref (found);
    return ok;
  }
}
