/* hs-import.c — datasets from public annotation formats: dispatch and helpers */
#include "hs-import-private.h"

#include "hs-dataset-writer.h"
#include "hs-image-private.h"
#include "hs-stop-point.h"
#include "hs-limits.h"
#include "hs-safe-open.h"
#include "hs-target.h"
#include "hs-i18n-private.h"
#include "hs-text.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

G_DEFINE_QUARK (hs-import-error-quark, hs_import_error)

static const struct
{
  const char  *name;
  guint        min_sources;
  guint        max_sources;
  HsImportFunc func;
} formats[] = {
  { "covid-seg", 1, 1, hs_import_covid_seg },
  { "coco", 1, 2, hs_import_coco },
  { "yolo", 1, 2, hs_import_yolo },
  { "nih-bbox", 1, 2, hs_import_nih },
  { "ms-cxr", 1, 2, hs_import_ms_cxr },
  { "chexlocalize", 1, 2, hs_import_chexlocalize },
  { "imagenome", 1, 2, hs_import_imagenome },
  { "npy-folder", 1, 1, hs_import_npy_folder },
  { "vindr-cxr", 1, 2, hs_import_vindr },
  { "rsna-pneumonia", 1, 2, hs_import_rsna },
  { "siim-acr", 1, 2, hs_import_siim },
  { "chestx-det", 1, 2, hs_import_chestx_det },
  { "voc", 1, 2, hs_import_voc },
};

const char * const *
hs_import_list_formats (void)
{
  static const char *names[G_N_ELEMENTS (formats) + 1];

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    names[i] = formats[i].name;
  names[G_N_ELEMENTS (formats)] = NULL;
  return names;
}

/* Longest modality text recorded (characters, blanks around it dropped). */
#define MAX_MODALITY_CHARS 64

gboolean
hs_import_check_modality (const char *format, const char *modality, GError **error)
{
  g_autofree char *shown = NULL;
  g_autofree char *text = NULL;
  gboolean letter = FALSE;

  g_return_val_if_fail (modality != NULL, FALSE);

  shown = g_utf8_make_valid (modality, -1);
  if (!g_utf8_validate (modality, -1, NULL))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_USAGE,
                   _("\"%s\": not UTF-8 text"), shown);
      return FALSE;
    }
  text = g_strstrip (g_strdup (modality));
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c))
        {
          g_autofree char *escaped = g_strescape (shown, NULL);

          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_USAGE,
                       _("\"%s\": a control character in it"), escaped);
          return FALSE;
        }
      letter = letter || g_unichar_isalpha (c);
    }
  if (!letter)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_USAGE,
                   _("\"%s\": no letter in it (say e.g. MR or CR)"), shown);
      return FALSE;
    }
  if (g_utf8_strlen (text, -1) > MAX_MODALITY_CHARS)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_USAGE,
                   _("\"%s\": longer than %d characters"), shown, MAX_MODALITY_CHARS);
      return FALSE;
    }
  if (format != NULL && strcmp (format, "npy-folder") == 0)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_USAGE,
                   _("\"%s\": npy-folder attaches maps and writes no instances"), shown);
      return FALSE;
    }
  return TRUE;
}

/* The instances' modality (see HsImportOptions.modality): the one asked
 * for on every instance; otherwise the DICOM header's where the importer
 * recorded none from its source files. */
static void
record_modalities (HsImportContext *ctx)
{
  g_autofree char *asked = NULL;

  if (ctx->options->modality != NULL)
    asked = g_strstrip (g_strdup (ctx->options->modality));
  for (guint i = 0; i < hs_dataset_get_n_instances (ctx->dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (ctx->dataset, i);
      const char *from_image;

      if (asked != NULL)
        hs_instance_set_metadata (instance, "modality", asked);
      else if (hs_instance_get_metadata (instance, "modality") == NULL &&
               ctx->modalities != NULL && instance->image != NULL &&
               (from_image = g_hash_table_lookup (ctx->modalities, instance->image)) != NULL)
        hs_instance_set_metadata (instance, "modality", from_image);
    }
}

static void
skip_free (gpointer data)
{
  HsImportSkip *skip = data;

  g_free (skip->file);
  g_free (skip->reason);
  g_free (skip);
}

void
hs_import_summary_clear (HsImportSummary *summary)
{
  if (summary == NULL)
    return;
  g_clear_pointer (&summary->skipped, g_ptr_array_unref);
  memset (summary, 0, sizeof *summary);
}

char *
hs_import_skip_to_string (const HsImportSkip *skip)
{
  g_return_val_if_fail (skip != NULL, NULL);

  if (skip->line > 0)
    return g_strdup_printf ("%s:%u: %s", skip->file, skip->line, skip->reason);
  return g_strdup_printf ("%s: %s", skip->file, skip->reason);
}

void
hs_import_skip (HsImportContext *ctx, const char *file, guint line, const char *format, ...)
{
  HsImportSkip *skip = g_new0 (HsImportSkip, 1);
  va_list args;

  skip->file = g_strdup (file);
  skip->line = line;
  va_start (args, format);
  skip->reason = g_strdup_vprintf (format, args);
  va_end (args);
  /* Reader errors (hs-csv) already start with "FILE:LINE: "; keep it once. */
  if (file != NULL)
    {
      g_autofree char *prefix = line > 0 ? g_strdup_printf ("%s:%u: ", file, line)
                                         : g_strdup_printf ("%s: ", file);

      if (g_str_has_prefix (skip->reason, prefix))
        memmove (skip->reason, skip->reason + strlen (prefix), strlen (skip->reason) - strlen (prefix) + 1);
    }
  g_ptr_array_add (ctx->summary->skipped, skip);
}

gboolean
hs_import_progress (HsImportContext *ctx, double fraction, const char *what, GError **error)
{
  const HsImportOptions *options = ctx->options;
  gint64 now;

  if (g_cancellable_set_error_if_cancelled (options->cancellable, error))
    return FALSE;
  if (options->progress == NULL)
    return TRUE;
  now = g_get_monotonic_time ();
  if (fraction < 1.0 && ctx->last_progress != 0 && now - ctx->last_progress < 50000)
    return TRUE;
  ctx->last_progress = now;
  options->progress (fraction < 0 ? -1.0 : MIN (fraction, 1.0), what, options->progress_data);
  return TRUE;
}

gboolean
hs_import_next_row (HsImportContext *ctx, HsCsvReader *reader, const char *path,
                    guint *line, char ***row, GError **error)
{
  while (TRUE)
    {
      g_autoptr(GError) local_error = NULL;
      char **next;

      if (!hs_import_progress (ctx, -1.0, NULL, error))
        return FALSE;
      next = hs_csv_reader_next (reader, line, &local_error);
      if (next == NULL && local_error == NULL)
        {
          *row = NULL;
          return TRUE;
        }
      if (next == NULL)
        {
          hs_import_skip (ctx, path, *line, "%s", local_error->message);
          continue;
        }
      if (g_strv_length (next) == 1 && *next[0] == '\0')
        {
          g_strfreev (next);
          continue;
        }
      *row = next;
      return TRUE;
    }
}

gboolean
hs_import_parse_number (const char *text, double *out)
{
  g_autofree char *copy = NULL;

  if (text == NULL)
    return FALSE;
  copy = g_strstrip (g_strdup (text));
  return hs_text_parse_number (copy, out);
}

gboolean
hs_import_json_number (JsonNode *node, double *out)
{
  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE)
    return FALSE;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64: *out = (double) json_node_get_int (node); return TRUE;
    case G_TYPE_DOUBLE: *out = json_node_get_double (node); return isfinite (*out);
    default: return FALSE;
    }
}

gboolean
hs_import_find_columns (char * const *header, const HsImportColumn *columns, guint n)
{
  gboolean all = TRUE;

  for (guint i = 0; i < n; i++)
    {
      g_auto(GStrv) names = g_strsplit (columns[i].name, "|", -1);

      *columns[i].index = -1;
      for (guint k = 0; header != NULL && names[k] != NULL && *columns[i].index < 0; k++)
        *columns[i].index = hs_csv_find_column (header, names[k]);
      if (*columns[i].index < 0 && !columns[i].optional)
        all = FALSE;
    }
  return all;
}

static gboolean
read_header_valist (HsCsvReader *reader, guint *line, const HsImportColumn *columns, guint n,
                    GError **error, const char *not_header, va_list args)
{
  g_auto(GStrv) header = hs_csv_reader_next (reader, line, NULL);

  if (!hs_import_find_columns (header, columns, n))
    {
      g_autofree char *message = g_strdup_vprintf (not_header, args);

      g_set_error_literal (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT, message);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_import_read_header (HsCsvReader *reader, guint *line, const HsImportColumn *columns,
                       guint n, GError **error, const char *not_header, ...)
{
  va_list args;
  gboolean ok;

  va_start (args, not_header);
  ok = read_header_valist (reader, line, columns, n, error, not_header, args);
  va_end (args);
  return ok;
}

HsCsvReader *
hs_import_open_csv_with_header (const char *path, guint *line, const HsImportColumn *columns,
                                guint n, GError **error, const char *not_header, ...)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(HsCsvReader) reader = hs_csv_reader_new_from_file (path, &local_error);
  va_list args;
  gboolean ok;

  if (reader == NULL)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, "%s", local_error->message);
      return NULL;
    }
  va_start (args, not_header);
  ok = read_header_valist (reader, line, columns, n, error, not_header, args);
  va_end (args);
  return ok ? g_steal_pointer (&reader) : NULL;
}

char *
hs_import_safe_name (const char *text)
{
  GString *s = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      char c = *p;
      g_string_append_c (s, g_ascii_isalnum (c) || c == '-' || c == '_' || c == '.' ? c : '_');
    }
  if (s->len == 0 || s->str[0] == '.')
    g_string_prepend_c (s, '_');
  return g_string_free (s, FALSE);
}

void
hs_import_masks_clear (HsImportMasks *masks)
{
  g_clear_pointer (&masks->by_name, g_hash_table_unref);
  g_clear_pointer (&masks->order, g_ptr_array_unref);
}

guint8 *
hs_import_masks_get (HsImportMasks *masks, const char *name, guint width, guint height)
{
  guint8 *mask;

  if (masks->by_name == NULL)
    {
      masks->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      masks->order = g_ptr_array_new_with_free_func (g_free);
    }
  mask = g_hash_table_lookup (masks->by_name, name);
  if (mask == NULL)
    {
      mask = g_malloc0 ((gsize) width * height);
      g_hash_table_insert (masks->by_name, g_strdup (name), mask);
      g_ptr_array_add (masks->order, g_strdup (name));
    }
  return mask;
}

gboolean
hs_import_set_region_mask (HsImportContext *ctx, HsInstance *instance, const char *name,
                           const char *stem, const guint8 *mask, guint width, guint height,
                           GError **error)
{
  g_autofree char *rel = hs_import_write_mask (ctx, stem, mask, width, height, error);
  HsRegion *region;

  if (rel == NULL)
    return FALSE;
  region = hs_import_get_region (ctx, instance, name);
  hs_region_set_mask (region, rel);
  hs_region_set_mask_extent (region, mask, width, height);
  return TRUE;
}

gboolean
hs_import_write_region_masks (HsImportContext *ctx, HsInstance *instance, const HsImportMasks *masks,
                              guint width, guint height, GError **error)
{
  for (guint k = 0; masks->order != NULL && k < masks->order->len; k++)
    {
      const char *name = g_ptr_array_index (masks->order, k);
      g_autofree char *stem = g_strdup_printf ("%s__%s", instance->id, name);

      if (!hs_import_set_region_mask (ctx, instance, name, stem,
                                      g_hash_table_lookup (masks->by_name, name), width, height,
                                      error))
        return FALSE;
    }
  return TRUE;
}

HsInstance *
hs_import_new_instance (HsImportContext *ctx, const char *base, const char *rel,
                        guint width, guint height, const char *source)
{
  g_autofree char *id = hs_import_unique_id (ctx, base);
  HsInstance *instance = hs_instance_new (id, rel);

  instance->width = width;
  instance->height = height;
  if (source != NULL)
    hs_instance_set_metadata (instance, "source", source);
  return instance;
}

char *
hs_import_unique_id (HsImportContext *ctx, const char *base)
{
  char *id = g_strdup (base != NULL && *base ? base : "instance");
  g_autofree char *suffix_key = g_strdup_printf ("id\x1f%s", id);
  guint n = MAX (2, GPOINTER_TO_UINT (g_hash_table_lookup (ctx->suffixes, suffix_key)));

  /* The numbers tried for this base are not tried again: many ids of one
   * base cost one look-up each, not one per id before them. */
  if (g_hash_table_contains (ctx->instance_ids, id))
    do
      {
        g_free (id);
        id = g_strdup_printf ("%s-%u", base, n++);
      }
    while (g_hash_table_contains (ctx->instance_ids, id));
  g_hash_table_insert (ctx->suffixes, g_steal_pointer (&suffix_key), GUINT_TO_POINTER (n));
  g_hash_table_add (ctx->instance_ids, g_strdup (id));
  return id;
}

static char *
absolute_lexical (const char *path)
{
  g_autofree char *cwd = g_get_current_dir ();

  return g_canonicalize_filename (path, cwd);
}

/* The folders sources may read beneath: each folder named as a source, and
 * the folder of each file named. */
static GPtrArray *
source_roots_new (const char * const *sources, guint n)
{
  GPtrArray *roots = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *absolute = absolute_lexical (sources[i]);

      if (g_file_test (absolute, G_FILE_TEST_IS_DIR))
        g_ptr_array_add (roots, g_steal_pointer (&absolute));
      else
        g_ptr_array_add (roots, g_path_get_dirname (absolute));
    }
  return roots;
}

int
hs_import_open_source (HsImportContext *ctx, const char *path, GError **error)
{
  g_autofree char *absolute = absolute_lexical (path);
  g_autoptr(GError) local_error = NULL;
  const char *best = NULL;
  gsize best_len = 0;
  int fd;

  /* The deepest root holding the path: a symlink is refused only when it
   * leads out of the folder the user named. */
  for (guint i = 0; ctx->source_roots != NULL && i < ctx->source_roots->len; i++)
    {
      const char *root = g_ptr_array_index (ctx->source_roots, i);
      gsize n = strcmp (root, "/") == 0 ? 0 : strlen (root);

      if (strncmp (absolute, root, n) == 0 && absolute[n] == '/' && absolute[n + 1] != '\0' &&
          (best == NULL || n > best_len))
        {
          best = root;
          best_len = n;
        }
    }
  if (best == NULL)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                   _("%s: outside the source folders"), path);
      return -1;
    }
  fd = hs_safe_open_under (best_len == 0 ? "/" : best, absolute + best_len + 1, path,
                           &local_error);
  if (fd < 0)
    {
      g_set_error_literal (error, HS_IMPORT_ERROR,
                           local_error->code == HS_SAFE_OPEN_ERROR_ESCAPE ? HS_IMPORT_ERROR_FORMAT
                                                                          : HS_IMPORT_ERROR_IO,
                           local_error->message);
      return -1;
    }
  return fd;
}

void
hs_import_add_source_root (HsImportContext *ctx, const char *dir)
{
  if (ctx->source_roots != NULL)
    g_ptr_array_add (ctx->source_roots, absolute_lexical (dir));
}

gboolean
hs_import_read_source (HsImportContext *ctx, const char *path, char **contents, gsize *len,
                       GError **error)
{
  g_autoptr(GError) local_error = NULL;
  guint8 *data = NULL;
  gsize n = 0;
  int fd = hs_import_open_source (ctx, path, error);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = hs_safe_read_fd (fd, path, hs_limits_get ()->max_file_bytes, &data, &n, &local_error);
  close (fd);
  if (!ok)
    {
      g_set_error_literal (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, local_error->message);
      return FALSE;
    }
  *contents = (char *) data;
  if (len != NULL)
    *len = n;
  return TRUE;
}

HsCsvReader *
hs_import_open_csv (HsImportContext *ctx, const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  if (!hs_import_read_source (ctx, path, &contents, &len, error))
    return NULL;
  return hs_csv_reader_new_from_data (contents, len, path);
}

/* Links or copies the open source `fd` to a temporary name beside `dest`,
 * then renames it over `dest`: a dataset already in the folder (re-imported
 * with --force) keeps a whole image under every name its manifest uses,
 * whenever the import is interrupted, and an existing `dest` that is a hard
 * link to some source file is replaced, never written through.  The file
 * linked or copied is the descriptor opened beneath the source folder, so a
 * symlink swapped in after the checks is never followed. */
static gboolean
copy_file (int fd, const char *source, const char *dest, GError **error)
{
  g_autofree char *tmp = g_strdup_printf ("%s.import-%d~", dest, (int) getpid ());
  g_autofree char *proc = g_strdup_printf ("/proc/self/fd/%d", fd);

  g_unlink (tmp);
  /* A hard link of exactly the open file costs no space; across file
   * systems (or without /proc) fall back to a copy from the descriptor. */
  if (linkat (AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) != 0)
    {
      int out = g_open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      char buffer[65536];
      ssize_t n = 0;
      gboolean ok = out >= 0 && lseek (fd, 0, SEEK_SET) == 0;
      int saved = errno;

      while (ok && (n = read (fd, buffer, sizeof buffer)) != 0)
        {
          if (n < 0 && errno == EINTR)
            continue;
          ok = n > 0 && write (out, buffer, (size_t) n) == n;
          saved = errno;
        }
      if (ok && fsync (out) != 0)
        {
          ok = FALSE;
          saved = errno;
        }
      if (out >= 0)
        close (out);
      if (!ok)
        {
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: cannot copy to %s: %s"),
                       source, dest, g_strerror (saved));
          g_unlink (tmp);
          return FALSE;
        }
    }
  /* A kill test may stop here: this image whole under its temporary name,
   * the old one still in place. */
  hs_stop_point_file ("copy-image", dest);
  if (g_rename (tmp, dest) != 0)
    {
      int saved = errno;
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: cannot copy to %s: %s"),
                   source, dest, g_strerror (saved));
      g_unlink (tmp);
      return FALSE;
    }
  /* rename() leaves both names when they are links to one file already
   * (the same source imported again). */
  g_unlink (tmp);
  return TRUE;
}

char *
hs_import_add_image (HsImportContext *ctx, const char *source, const char *relative,
                     guint *width, guint *height, GError **error)
{
  g_autofree char *rel = g_strdup (relative);
  g_autofree char *dest = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *given_key = NULL;
  g_autofree char *suffix_key = NULL;
  const char *taken;
  const char *given;
  char modality[HS_IMAGE_MODALITY_BYTES];
  guint n;
  int fd;

  /* `relative` derives from names in the source files: it must stay inside
   * the output folder (the copy below replaces what is there). */
  if (g_path_is_absolute (relative) || strcmp (relative, "..") == 0 ||
      g_str_has_prefix (relative, "../") || strstr (relative, "/../") != NULL ||
      g_str_has_suffix (relative, "/.."))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                   _("%s: image name \"%s\" would leave the output folder"), source, relative);
      return NULL;
    }
  /* Probed and copied from one descriptor opened beneath the source
   * folder: the file checked is the file copied. */
  fd = hs_import_open_source (ctx, source, error);
  if (fd < 0)
    return NULL;
  if (!hs_image_probe_fd_modality (fd, source, width, height, modality, error))
    {
      close (fd);
      return NULL;
    }
  /* A source asked for under this name before gets the name it got then;
   * other sources of the same name are numbered, and numbers tried once are
   * not tried again: many sources of one name cost one look-up each, not one
   * per source before them. */
  given_key = g_strdup_printf ("%s\x1f%s", relative, source);
  suffix_key = g_strdup_printf ("image\x1f%s", relative);
  given = g_hash_table_lookup (ctx->given_names, given_key);
  n = MAX (2, GPOINTER_TO_UINT (g_hash_table_lookup (ctx->suffixes, suffix_key)));
  if (given != NULL)
    {
      close (fd);
      return g_strdup (given);
    }
  while ((taken = g_hash_table_lookup (ctx->images, rel)) != NULL)
    {
      g_autofree char *stem = NULL;
      const char *dot;

      if (strcmp (taken, source) == 0)
        {
          close (fd);
          return g_steal_pointer (&rel);
        }
      dot = strrchr (relative, '.');
      stem = dot != NULL && strchr (dot, '/') == NULL ? g_strndup (relative, dot - relative)
                                                      : g_strdup (relative);
      g_free (rel);
      rel = g_strdup_printf ("%s-%u%s", stem, n++, dot != NULL && strchr (dot, '/') == NULL ? dot : "");
    }
  dest = g_build_filename (ctx->root, rel, NULL);
  dir = g_path_get_dirname (dest);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: cannot create folder: %s"),
                   dir, g_strerror (saved));
      close (fd);
      return NULL;
    }
  if (!copy_file (fd, source, dest, error))
    {
      close (fd);
      return NULL;
    }
  close (fd);
  g_hash_table_insert (ctx->images, g_strdup (rel), g_strdup (source));
  if (modality[0] != '\0')
    g_hash_table_insert (ctx->modalities, g_strdup (rel), g_strdup (modality));
  g_hash_table_insert (ctx->suffixes, g_steal_pointer (&suffix_key), GUINT_TO_POINTER (n));
  g_hash_table_insert (ctx->given_names, g_steal_pointer (&given_key), g_strdup (rel));
  return g_steal_pointer (&rel);
}

char *
hs_import_write_mask (HsImportContext *ctx, const char *stem, const guint8 *mask,
                      guint width, guint height, GError **error)
{
  g_autofree char *safe = hs_import_safe_name (stem);
  g_autofree char *rel = g_strdup_printf ("masks/%s.png", safe);
  g_autofree char *dir = g_build_filename (ctx->root, "masks", NULL);
  g_autofree char *path = NULL;
  g_autoptr(HsImage) image = NULL;
  guint16 *data;

  for (guint n = 2; g_hash_table_contains (ctx->images, rel); n++)
    {
      g_free (rel);
      rel = g_strdup_printf ("masks/%s-%u.png", safe, n);
    }
  image = hs_image_new (width, height, 1, 8, error);
  if (image == NULL)
    return NULL;
  data = hs_image_get_data (image);
  for (gsize i = 0; i < (gsize) width * height; i++)
    data[i] = mask[i] ? 255 : 0;
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: cannot create folder: %s"),
                   dir, g_strerror (saved));
      return NULL;
    }
  path = g_build_filename (ctx->root, rel, NULL);
  if (!hs_image_save_png_full (image, path, HS_PNG_ENCODE_MASK, error))
    return NULL;
  g_hash_table_insert (ctx->images, g_strdup (rel), g_strdup (path));
  return g_steal_pointer (&rel);
}

gboolean
hs_import_clip_box (double *x1, double *y1, double *x2, double *y2, guint width, guint height)
{
  if (!isfinite (*x1) || !isfinite (*y1) || !isfinite (*x2) || !isfinite (*y2))
    return FALSE;
  *x1 = CLAMP (*x1, 0.0, (double) width);
  *x2 = CLAMP (*x2, 0.0, (double) width);
  *y1 = CLAMP (*y1, 0.0, (double) height);
  *y2 = CLAMP (*y2, 0.0, (double) height);
  /* What is left must pass the one box check validate makes (hs-target.h):
   * a box with no pixel centre inside is skipped, not imported. */
  return hs_box_check (&(HsBox) { *x1, *y1, *x2, *y2 }, width, height, NULL);
}

gboolean
hs_import_add_class_box (HsImportContext *ctx, HsInstance *instance, const char *name,
                         double x1, double y1, double x2, double y2,
                         double frame_w, double frame_h)
{
  double sx = instance->width / frame_w, sy = instance->height / frame_h;

  x1 *= sx;
  y1 *= sy;
  x2 *= sx;
  y2 *= sy;
  if (!hs_import_clip_box (&x1, &y1, &x2, &y2, instance->width, instance->height))
    return FALSE;
  hs_region_add_box (hs_import_get_region (ctx, instance, name), x1, y1, x2, y2);
  hs_import_add_class_sentence (ctx, instance, name);
  return TRUE;
}

void
hs_import_fill_polygon (guint8 *mask, guint width, guint height, const double *xy, guint n_points)
{
  g_autofree double *xs = NULL;

  if (n_points < 3)
    return;
  xs = g_new (double, n_points);
  for (guint y = 0; y < height; y++)
    {
      double cy = y + 0.5;
      guint n = 0;

      /* crossings of the scan line through the pixel centres */
      for (guint i = 0; i < n_points; i++)
        {
          double ax = xy[2 * i], ay = xy[2 * i + 1];
          double bx = xy[2 * ((i + 1) % n_points)], by = xy[2 * ((i + 1) % n_points) + 1];

          if ((ay <= cy && by > cy) || (by <= cy && ay > cy))
            xs[n++] = ax + (cy - ay) / (by - ay) * (bx - ax);
        }
      /* sort the few crossings */
      for (guint i = 1; i < n; i++)
        for (guint j = i; j > 0 && xs[j - 1] > xs[j]; j--)
          {
            double t = xs[j];
            xs[j] = xs[j - 1];
            xs[j - 1] = t;
          }
      for (guint i = 0; i + 1 < n; i += 2)
        {
          /* pixel x is inside when xs[i] <= x + 0.5 < xs[i+1] */
          double from = ceil (xs[i] - 0.5), to = ceil (xs[i + 1] - 0.5);
          gint64 a = (gint64) MAX (from, 0.0), b = (gint64) MIN (to, (double) width);
          for (gint64 x = a; x < b; x++)
            mask[(gsize) y * width + x] = 1;
        }
    }
}

HsDataset *
hs_import (const char *format, const char * const *sources, const char *output_dir,
           const HsImportOptions *options, HsImportSummary *summary, GError **error)
{
  static const HsImportOptions default_options = { 0 };
  HsImportSummary local_summary = { 0 };
  HsImportContext ctx = { 0 };
  g_autofree char *name = NULL;
  HsImportFunc func = NULL;
  HsDataset *existing = NULL;
  HsDatasetWriter *writer = NULL;
  HsDatasetLock *lock = NULL;
  gboolean attach;
  guint n_sources;
  gboolean ok;

  g_return_val_if_fail (format != NULL, NULL);
  g_return_val_if_fail (sources != NULL, NULL);
  g_return_val_if_fail (output_dir != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  n_sources = g_strv_length ((char **) sources);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (strcmp (formats[i].name, format) == 0)
      {
        if (n_sources < formats[i].min_sources || n_sources > formats[i].max_sources)
          {
            g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_USAGE,
                         _("format %s takes %u to %u sources, %u given"), format,
                         formats[i].min_sources, formats[i].max_sources, n_sources);
            return NULL;
          }
        func = formats[i].func;
      }
  if (func == NULL)
    {
      g_autofree char *known = g_strjoinv (", ", (char **) hs_import_list_formats ());
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_USAGE,
                   _("unknown import format '%s' (known: %s)"), format, known);
      return NULL;
    }
  for (guint i = 0; i < n_sources; i++)
    if (!g_file_test (sources[i], G_FILE_TEST_EXISTS))
      {
        g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: no such file or folder"),
                     sources[i]);
        return NULL;
      }

  if (options == NULL)
    options = &default_options;
  if (options->modality != NULL && !hs_import_check_modality (format, options->modality, error))
    {
      g_prefix_error (error, _("modality "));
      return NULL;
    }
  attach = func == hs_import_npy_folder;
  if (attach)
    {
      /* Maps are attached to the dataset already in the folder, under its
       * lock (new map files, then the manifest: hs_dataset_save_locked). */
      g_autoptr(GError) local_error = NULL;

      lock = hs_dataset_lock_acquire (output_dir, &local_error);
      if (lock != NULL)
        existing = hs_dataset_load (output_dir, &local_error);
      if (existing == NULL)
        {
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO,
                       _("npy-folder attaches maps to an existing dataset: %s"), local_error->message);
          hs_dataset_lock_release (lock);
          return NULL;
        }
    }
  else
    {
      /* A whole new dataset, built in a staging folder beside the output
       * and switched in at the end (hs-dataset-writer.h). */
      g_autoptr(GError) local_error = NULL;

      writer = hs_dataset_writer_begin (output_dir, options->force ? HS_DATASET_WRITE_REPLACE
                                                                   : HS_DATASET_WRITE_CREATE,
                                        &local_error);
      if (writer == NULL)
        {
          g_set_error_literal (error, HS_IMPORT_ERROR,
                               g_error_matches (local_error, HS_DATASET_ERROR, HS_DATASET_ERROR_EXISTS)
                                 ? HS_IMPORT_ERROR_EXISTS : HS_IMPORT_ERROR_IO,
                               local_error->message);
          return NULL;
        }
    }

  if (summary == NULL)
    summary = &local_summary;
  memset (summary, 0, sizeof *summary);
  summary->skipped = g_ptr_array_new_with_free_func (skip_free);

  name = g_path_get_basename (output_dir);
  ctx.dataset = existing != NULL ? existing
                                  : hs_dataset_new (hs_dataset_writer_get_staging (writer), name);
  ctx.root = g_strdup (hs_dataset_get_root (ctx.dataset));
  ctx.options = options;
  ctx.summary = summary;
  ctx.images = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ctx.instance_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ctx.source_roots = source_roots_new (sources, n_sources);
  ctx.suffixes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ctx.given_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ctx.modalities = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  ok = hs_import_progress (&ctx, 0.0, NULL, error) && func (&ctx, sources, n_sources, error) &&
       hs_import_progress (&ctx, 1.0, NULL, error);
  if (ok)
    {
      if (!attach)
        record_modalities (&ctx);
      for (guint i = 0; i < hs_dataset_get_n_instances (ctx.dataset); i++)
        {
          HsInstance *instance = hs_dataset_get_instance (ctx.dataset, i);
          summary->n_instances++;
          summary->n_sentences += instance->sentences->len;
          summary->n_targets += instance->regions->len;
        }
      /* An import that imports nothing to look at (no map attached; no
       * sentence and no region) is a failure, not an empty dataset, and
       * leaves a dataset already in the output folder as it was. */
      if (attach ? summary->n_maps == 0 : summary->n_sentences == 0 && summary->n_targets == 0)
        {
          guint n_skipped = summary->skipped->len;

          if (n_skipped == 1)
            g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                         _("%s: nothing imported: the only row was skipped"), sources[0]);
          else if (n_skipped > 1)
            g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                         _("%s: nothing imported: all %u rows were skipped"), sources[0], n_skipped);
          else
            g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                         attach ? _("%s: nothing imported: no maps found")
                                : _("%s: nothing imported: no sentences or regions found"),
                         sources[0]);
          ok = FALSE;
        }
      else if (writer != NULL)
        ok = hs_dataset_writer_commit (writer, ctx.dataset, error);
      else
        ok = hs_dataset_save_locked (ctx.dataset, lock, error);
    }

  g_hash_table_unref (ctx.images);
  g_hash_table_unref (ctx.instance_ids);
  g_ptr_array_unref (ctx.source_roots);
  g_hash_table_unref (ctx.suffixes);
  g_hash_table_unref (ctx.given_names);
  g_hash_table_unref (ctx.modalities);
  g_clear_pointer (&ctx.indexes, g_hash_table_unref);
  g_free (ctx.root);
  hs_import_summary_clear (&local_summary);
  g_clear_pointer (&writer, hs_dataset_writer_free);
  hs_dataset_lock_release (lock);
  if (!ok)
    {
      g_clear_pointer (&ctx.dataset, hs_dataset_unref);
      return NULL;
    }
  return ctx.dataset;
}

/* ---- images named by id ----------------------------------------------------- */

struct _HsImportImages
{
  char       *dir;
  char       *source_name;
  GHashTable *by_id;     /* id → HsImportImage* (owned by `order`) */
  GPtrArray  *order;
  GHashTable *index;     /* file name → path below dir, built on first miss */
};

static const char *const image_suffixes[] = { "", ".dcm", ".dicom", ".png", ".jpg", ".jpeg" };

void
hs_import_image_free (gpointer data)
{
  HsImportImage *image = data;

  if (image->instance != NULL)
    hs_instance_free (image->instance);
  g_free (image);
}

void
hs_import_add_instances (HsImportContext *ctx, GPtrArray *images)
{
  for (guint i = 0; i < images->len; i++)
    {
      HsImportImage *image = g_ptr_array_index (images, i);

      if (image->instance != NULL)
        hs_dataset_add_instance (ctx->dataset, g_steal_pointer (&image->instance));
    }
}

HsImportImages *
hs_import_images_new (const char *dir, const char *source_name)
{
  HsImportImages *images = g_new0 (HsImportImages, 1);

  images->dir = g_strdup (dir);
  images->source_name = g_strdup (source_name);
  images->by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  images->order = g_ptr_array_new_with_free_func (hs_import_image_free);
  return images;
}

/* Regular files below `dir` by name (the first found wins; symlinks and
 * hidden entries are not followed, depth at most 8). */
static void
index_folder (GHashTable *index, const char *dir, guint depth)
{
  g_autoptr(GDir) d = NULL;
  const char *name;

  if (depth > 8 || (d = g_dir_open (dir, 0, NULL)) == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;

      if (name[0] == '.')
        continue;
      path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        index_folder (index, path, depth + 1);
      else if (g_file_test (path, G_FILE_TEST_IS_REGULAR) && !g_hash_table_contains (index, name))
        g_hash_table_insert (index, g_strdup (name), g_steal_pointer (&path));
    }
}

static char *
find_image (HsImportImages *images, const char *id)
{
  for (guint i = 0; i < G_N_ELEMENTS (image_suffixes); i++)
    {
      g_autofree char *name = g_strconcat (id, image_suffixes[i], NULL);
      g_autofree char *path = g_build_filename (images->dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  if (images->index == NULL)
    {
      images->index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      index_folder (images->index, images->dir, 0);
    }
  for (guint i = 1; i < G_N_ELEMENTS (image_suffixes); i++)
    {
      g_autofree char *name = g_strconcat (id, image_suffixes[i], NULL);
      const char *path = g_hash_table_lookup (images->index, name);

      if (path != NULL)
        return g_strdup (path);
    }
  return NULL;
}

HsImportImage *
hs_import_images_get (HsImportContext *ctx, HsImportImages *images, const char *id,
                      const char *file, guint line)
{
  HsImportImage *image;
  g_autofree char *source = NULL, *relative = NULL, *rel = NULL;
  g_autofree char *base = NULL;
  g_autoptr(GError) local_error = NULL;

  if (g_hash_table_lookup_extended (images->by_id, id, NULL, (gpointer *) &image))
    {
      if (image->instance == NULL)
        hs_import_skip (ctx, file, line, _("image %s was not imported"), id);
      return image->instance != NULL ? image : NULL;
    }
  image = g_new0 (HsImportImage, 1);
  g_ptr_array_add (images->order, image);
  g_hash_table_insert (images->by_id, g_strdup (id), image);
  if (*id == '\0' || strchr (id, '/') != NULL || strcmp (id, "..") == 0 || strcmp (id, ".") == 0)
    {
      hs_import_skip (ctx, file, line, _("bad image id '%s'"), id);
      return NULL;
    }
  source = find_image (images, id);
  if (source == NULL)
    {
      hs_import_skip (ctx, file, line, _("image %s not found in %s"), id, images->dir);
      return NULL;
    }
  base = g_path_get_basename (source);
  relative = g_build_filename ("images", base, NULL);
  rel = hs_import_add_image (ctx, source, relative, &image->width, &image->height, &local_error);
  if (rel == NULL)
    {
      hs_import_skip (ctx, file, line, "%s", local_error->message);
      return NULL;
    }
  image->instance = hs_import_new_instance (ctx, id, rel, image->width, image->height,
                                            images->source_name);
  return image;
}

void
hs_import_images_finish (HsImportContext *ctx, HsImportImages *images)
{
  hs_import_add_instances (ctx, images->order);
  g_ptr_array_unref (images->order);
  g_hash_table_unref (images->by_id);
  if (images->index != NULL)
    g_hash_table_unref (images->index);
  g_free (images->dir);
  g_free (images->source_name);
  g_free (images);
}

void
hs_import_add_positive (HsImportContext *ctx, HsInstance *instance, const char *label)
{
  const char *locations[] = { label, NULL };

  hs_import_add_finding (ctx, instance, hs_label_new (label, "positive", locations));
  instance->abnormal = TRUE;
}
