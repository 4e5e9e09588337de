/* hs-import-npy-folder.c — a folder of maps named
 * <instance>__<model>__<query-id>.npy attached to an existing dataset */
#include "hs-import-private.h"

#include "hs-atomic-file.h"
#include "hs-attention-map.h"
#include "hs-i18n-private.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* By id, or by the id made file-name safe (ids may hold '/'): the first
 * instance of that safe name, from a table made once (a search of every
 * instance per file would be quadratic). */
static HsInstance *
find_instance (HsDataset *dataset, GHashTable **by_safe_id, const char *name)
{
  HsInstance *instance = hs_dataset_find_instance (dataset, name);

  if (instance != NULL)
    return instance;
  if (*by_safe_id == NULL)
    {
      *by_safe_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
        {
          HsInstance *candidate = hs_dataset_get_instance (dataset, i);
          char *safe = hs_import_safe_name (candidate->id);

          if (g_hash_table_contains (*by_safe_id, safe))
            g_free (safe);
          else
            g_hash_table_insert (*by_safe_id, safe, candidate);
        }
    }
  return g_hash_table_lookup (*by_safe_id, name);
}

static HsSentence *
find_sentence (HsImportContext *ctx, HsInstance *instance, const char *name)
{
  HsSentence *sentence = hs_import_find_sentence (ctx, instance, name);

  return sentence != NULL ? sentence : hs_import_find_sentence_by_safe_id (ctx, instance, name);
}

static GBytes *
read_all_from_start (int fd, const char *path, GError **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  guint8 chunk[65536];

  if (lseek (fd, 0, SEEK_SET) != 0)
    {
      int saved = errno;
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: cannot read: %s"), path,
                   g_strerror (saved));
      return NULL;
    }
  for (;;)
    {
      gssize got = read (fd, chunk, sizeof chunk);

      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          int saved = errno;
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: cannot read: %s"), path,
                       g_strerror (saved));
          return NULL;
        }
      if (got == 0)
        break;
      g_byte_array_append (data, chunk, got);
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&data));
}

gboolean
hs_import_npy_folder (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *folder = sources[0];
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GHashTable) by_safe_id = NULL;
  const char *name;

  dir = g_dir_open (folder, 0, &local_error);
  if (dir == NULL)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, "%s", local_error->message);
      return FALSE;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".npy"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len; i++)
    {
      const char *file = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (folder, file, NULL);
      g_autofree char *stem = g_strndup (file, strlen (file) - 4);
      g_auto(GStrv) parts = g_strsplit (stem, "__", -1);
      g_autoptr(HsAttentionMap) map = NULL;
      g_autofree char *safe_model = NULL, *safe_instance = NULL, *safe_query = NULL;
      g_autofree char *rel = NULL, *dest = NULL, *dest_dir = NULL;
      g_autoptr(GBytes) bytes = NULL;
      HsInstance *instance;
      HsSentence *sentence;

      if (!hs_import_progress (ctx, (double) i / names->len, file, error))
        return FALSE;
      if (g_strv_length (parts) != 3 || *parts[0] == '\0' || *parts[1] == '\0' || *parts[2] == '\0')
        {
          hs_import_skip (ctx, path, 0, _("name is not <instance>__<model>__<query-id>.npy"));
          continue;
        }
      instance = find_instance (ctx->dataset, &by_safe_id, parts[0]);
      if (instance == NULL)
        {
          hs_import_skip (ctx, path, 0, _("the dataset has no instance '%s'"), parts[0]);
          continue;
        }
      sentence = find_sentence (ctx, instance, parts[2]);
      if (sentence == NULL)
        {
          hs_import_skip (ctx, path, 0, _("instance '%s' has no query '%s'"), instance->id, parts[2]);
          continue;
        }
      g_clear_error (&local_error);
      {
        int fd = hs_import_open_source (ctx, path, &local_error);

        map = NULL;
        if (fd >= 0)
          {
            map = hs_attention_map_load_npy_fd (fd, path, NULL, NAN, &local_error);
            /* the bytes copied are the bytes checked: read again from the
             * same descriptor (its size is bounded, the map loaded) */
            if (map != NULL)
              bytes = read_all_from_start (fd, path, &local_error);
            if (bytes == NULL)
              g_clear_pointer (&map, hs_attention_map_unref);
            close (fd);
          }
      }
      if (map == NULL)
        {
          const char *reason = local_error->message;
          if (g_str_has_prefix (reason, path) && g_str_has_prefix (reason + strlen (path), ": "))
            reason += strlen (path) + 2;
          hs_import_skip (ctx, path, 0, "%s", reason);
          continue;
        }

      safe_model = hs_import_safe_name (parts[1]);
      safe_instance = hs_import_safe_name (instance->id);
      safe_query = hs_import_safe_name (sentence->id);
      /* Never over a file that is there: the manifest on disk may record it
       * (with its size and hash), and a kill before the new manifest is saved
       * must leave the old dataset whole.  A replacing map gets the next free
       * name, a__p1~2.npy …; the file it replaces stays, unreferenced. */
      rel = g_strdup_printf ("maps/%s/%s__%s.npy", safe_model, safe_instance, safe_query);
      dest = g_build_filename (ctx->root, rel, NULL);
      for (guint next = 2; g_file_test (dest, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK); next++)
        {
          g_free (rel);
          g_free (dest);
          rel = g_strdup_printf ("maps/%s/%s__%s~%u.npy", safe_model, safe_instance, safe_query, next);
          dest = g_build_filename (ctx->root, rel, NULL);
        }
      dest_dir = g_path_get_dirname (dest);
      if (g_mkdir_with_parents (dest_dir, 0755) != 0)
        {
          int saved = errno;
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: cannot create folder: %s"),
                       dest_dir, g_strerror (saved));
          return FALSE;
        }
      g_clear_error (&local_error);
      if (!hs_atomic_write (dest, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &local_error))
        {
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: cannot copy to %s: %s"),
                       path, dest, local_error->message);
          return FALSE;
        }
      /* a newer map for the same (model, query) replaces the old one */
      hs_import_set_map (ctx, instance, hs_map_ref_new (parts[1], sentence->id, rel));
      ctx->summary->n_maps++;
    }
  return TRUE;
}
