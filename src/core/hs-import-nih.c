/* hs-import-nih.c — NIH ChestX-ray14 BBox_List_2017.csv
 * ("Image Index,Finding Label,Bbox [x,y,w,h]" then x,y,w,h in four columns,
 * in the pixels of the original 1024 × 1024 images). */
#include "hs-import-private.h"

#include "hs-csv.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

#define NIH_ORIGINAL_SIZE 1024.0

gboolean
hs_import_nih (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *csv_path = sources[0];
  g_autofree char *base = g_path_get_dirname (csv_path);
  g_autofree char *image_dir = n >= 2 ? g_strdup (sources[1]) : g_build_filename (base, "images", NULL);
  g_autoptr(HsCsvReader) reader = NULL;
  g_autoptr(GError) local_error = NULL;
  /* Rows name the image file itself, found only in image_dir, and the
   * instance is named after its stem: not HsImportImages's id look-up
   * (suffixes tried, subfolders searched, the id kept whole). */
  g_autoptr(GHashTable) by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) images = g_ptr_array_new_with_free_func (hs_import_image_free);
  int c_image, c_label, c_box;
  /* "Bbox [x,y,w,h]" is one quoted column or four split at its commas */
  const HsImportColumn columns[] = {
    { "Image Index", &c_image }, { "Finding Label", &c_label }, { "Bbox [x|Bbox [x,y,w,h]", &c_box },
  };
  guint line = 0;

  reader = hs_import_open_csv_with_header (
    csv_path, &line, columns, G_N_ELEMENTS (columns), error,
    _("%s:1: not a BBox_List_2017.csv header (Image Index, Finding Label, Bbox [x,y,w,h])"),
    csv_path);
  if (reader == NULL)
    return FALSE;

  while (TRUE)
    {
      g_auto(GStrv) row = NULL;
      HsImportImage *ni;
      const char *file, *label;
      double x, y, w, h;

      g_clear_error (&local_error);
      if (!hs_import_next_row (ctx, reader, csv_path, &line, &row, error))
        return FALSE;
      if (row == NULL)
        break;
      /* the image and label columns may also come after the box */
      if ((int) g_strv_length (row) < MAX (MAX (c_image, c_label) + 1, c_box + 4))
        {
          hs_import_skip (ctx, csv_path, line, _("expected image, label and x, y, w, h"));
          continue;
        }
      file = g_strstrip (row[c_image]);
      label = g_strstrip (row[c_label]);
      if (*file == '\0' || *label == '\0' || strchr (file, '/') != NULL || strcmp (file, "..") == 0)
        {
          hs_import_skip (ctx, csv_path, line, _("bad image name or empty label"));
          continue;
        }
      if (!hs_import_parse_number (row[c_box], &x) || !hs_import_parse_number (row[c_box + 1], &y) ||
          !hs_import_parse_number (row[c_box + 2], &w) || !hs_import_parse_number (row[c_box + 3], &h))
        {
          hs_import_skip (ctx, csv_path, line, _("box values are not numbers"));
          continue;
        }
      ni = g_hash_table_lookup (by_name, file);
      if (ni == NULL)
        {
          g_autofree char *source = g_build_filename (image_dir, file, NULL);
          g_autofree char *relative = g_build_filename ("images", file, NULL);
          g_autofree char *rel = NULL;
          const char *dot = strrchr (file, '.');

          ni = g_new0 (HsImportImage, 1);
          g_ptr_array_add (images, ni);
          g_hash_table_insert (by_name, g_strdup (file), ni);
          if (!g_file_test (source, G_FILE_TEST_IS_REGULAR))
            {
              hs_import_skip (ctx, csv_path, line, _("image %s not found in %s"), file, image_dir);
              continue;
            }
          rel = hs_import_add_image (ctx, source, relative, &ni->width, &ni->height, &local_error);
          if (rel == NULL)
            {
              hs_import_skip (ctx, csv_path, line, "%s", local_error->message);
              continue;
            }
          {
            g_autofree char *stem = dot != NULL ? g_strndup (file, dot - file) : g_strdup (file);
            ni->instance = hs_import_new_instance (ctx, stem, rel, ni->width, ni->height, "NIH ChestX-ray14");
          }
          ni->instance->abnormal = TRUE;
          hs_instance_set_metadata (ni->instance, "view", "PA");
        }
      if (ni->instance == NULL)
        {
          hs_import_skip (ctx, csv_path, line, _("image %s not found in %s"), file, image_dir);
          continue;
        }
      /* boxes are in the original 1024² pixels; smaller copies are scaled */
      if (!hs_import_add_class_box (ctx, ni->instance, label, x, y, x + w, y + h,
                                    NIH_ORIGINAL_SIZE, NIH_ORIGINAL_SIZE))
        {
          hs_import_skip (ctx, csv_path, line, _("box is empty or outside the image"));
          continue;
        }
      hs_import_add_positive (ctx, ni->instance, label);
    }

  hs_import_add_instances (ctx, images);
  return TRUE;
}
