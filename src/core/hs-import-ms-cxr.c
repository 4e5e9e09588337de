/* hs-import-ms-cxr.c — MS-CXR phrase grounding CSV
 * (dicom_id, category_name, label_text, path, x, y, w, h, image_width,
 * image_height; one row per box, several rows per phrase). */
#include "hs-import-private.h"

#include "hs-csv.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

typedef struct
{
  HsInstance *instance;
  guint       width, height;
  GHashTable *phrases;   /* label_text → HsSentence* (owned by the instance) */
} MsImage;

static void
ms_image_free (gpointer data)
{
  MsImage *mi = data;

  if (mi->instance != NULL)
    hs_instance_free (mi->instance);
  g_hash_table_unref (mi->phrases);
  g_free (mi);
}

static gboolean
number (char **row, int column, double *out)
{
  return column >= 0 && (guint) column < g_strv_length (row) &&
         hs_import_parse_number (row[column], out);
}

gboolean
hs_import_ms_cxr (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *csv_path = sources[0];
  g_autofree char *root = n >= 2 ? g_strdup (sources[1]) : g_path_get_dirname (csv_path);
  g_autoptr(HsCsvReader) reader = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GHashTable) by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) images = g_ptr_array_new_with_free_func (ms_image_free);
  int c_id, c_cat, c_text, c_path, c_x, c_y, c_w, c_h, c_iw, c_ih;
  const HsImportColumn columns[] = {
    { "dicom_id", &c_id }, { "category_name", &c_cat }, { "label_text", &c_text },
    { "path", &c_path }, { "x", &c_x }, { "y", &c_y }, { "w", &c_w }, { "h", &c_h },
    { "image_width", &c_iw, TRUE }, { "image_height", &c_ih, TRUE },
  };
  guint line = 0;

  reader = hs_import_open_csv_with_header (
    csv_path, &line, columns, G_N_ELEMENTS (columns), error,
    _("%s:1: not an MS-CXR header (dicom_id, category_name, label_text, path, x, y, w, h)"),
    csv_path);
  if (reader == NULL)
    return FALSE;

  while (TRUE)
    {
      g_auto(GStrv) row = NULL;
      MsImage *mi;
      HsSentence *sentence;
      const char *id, *category, *text, *path;
      double x, y, w, h, iw = 0, ih = 0, sx = 1, sy = 1, x1, y1, x2, y2;
      g_autofree char *region_name = NULL;

      g_clear_error (&local_error);
      if (!hs_import_next_row (ctx, reader, csv_path, &line, &row, error))
        return FALSE;
      if (row == NULL)
        break;
      if ((int) g_strv_length (row) <= MAX (MAX (c_id, c_cat), MAX (c_text, c_path)))
        {
          hs_import_skip (ctx, csv_path, line, _("too few columns"));
          continue;
        }
      id = row[c_id];
      category = row[c_cat];
      text = row[c_text];
      path = row[c_path];
      if (*id == '\0' || *category == '\0' || *text == '\0' || *path == '\0')
        {
          hs_import_skip (ctx, csv_path, line, _("empty dicom_id, category_name, label_text or path"));
          continue;
        }
      if (!number (row, c_x, &x) || !number (row, c_y, &y) || !number (row, c_w, &w) || !number (row, c_h, &h))
        {
          hs_import_skip (ctx, csv_path, line, _("x, y, w, h are not numbers"));
          continue;
        }
      if (g_path_is_absolute (path) || strstr (path, "..") != NULL)
        {
          hs_import_skip (ctx, csv_path, line, _("path '%s' leaves the image folder"), path);
          continue;
        }

      mi = g_hash_table_lookup (by_id, id);
      if (mi == NULL)
        {
          g_autofree char *source = g_build_filename (root, path, NULL);
          g_autofree char *base = g_path_get_basename (path);
          g_autofree char *relative = g_build_filename ("images", base, NULL);
          g_autofree char *rel = NULL;

          mi = g_new0 (MsImage, 1);
          mi->phrases = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
          g_ptr_array_add (images, mi);
          g_hash_table_insert (by_id, g_strdup (id), mi);
          if (!g_file_test (source, G_FILE_TEST_IS_REGULAR))
            {
              hs_import_skip (ctx, csv_path, line, _("image %s not found"), source);
              continue;
            }
          rel = hs_import_add_image (ctx, source, relative, &mi->width, &mi->height, &local_error);
          if (rel == NULL)
            {
              hs_import_skip (ctx, csv_path, line, "%s", local_error->message);
              continue;
            }
          mi->instance = hs_import_new_instance (ctx, id, rel, mi->width, mi->height, "MS-CXR");
        }
      if (mi->instance == NULL)
        {
          hs_import_skip (ctx, csv_path, line, _("image of %s was not imported"), id);
          continue;
        }
      /* boxes are in image_width × image_height pixels (the DICOM's);
       * a resized JPEG gets them scaled */
      if (number (row, c_iw, &iw) && number (row, c_ih, &ih) && iw > 0 && ih > 0)
        {
          sx = mi->width / iw;
          sy = mi->height / ih;
        }
      x1 = x * sx;
      y1 = y * sy;
      x2 = (x + w) * sx;
      y2 = (y + h) * sy;
      if (!hs_import_clip_box (&x1, &y1, &x2, &y2, mi->width, mi->height))
        {
          hs_import_skip (ctx, csv_path, line, _("box is empty or outside the image"));
          continue;
        }

      sentence = g_hash_table_lookup (mi->phrases, text);
      if (sentence == NULL)
        {
          g_autofree char *sid = g_strdup_printf ("p%u", g_hash_table_size (mi->phrases) + 1);
          gboolean normal = g_ascii_strcasecmp (category, "No Finding") == 0;

          /* each phrase's boxes are one region, named after the finding */
          region_name = hs_import_unique_region_name (ctx, mi->instance, category);
          hs_import_get_region (ctx, mi->instance, region_name);
          sentence = hs_sentence_new (sid, text);
          hs_sentence_add_target (sentence, region_name);
          {
            const char *locations[] = { NULL };
            hs_sentence_add_label (sentence, hs_label_new (category, normal ? "negative" : "positive",
                                                           locations));
          }
          hs_instance_add_sentence (mi->instance, sentence);
          g_hash_table_insert (mi->phrases, g_strdup (text), sentence);
          if (!normal)
            mi->instance->abnormal = TRUE;
        }
      hs_region_add_box (hs_import_find_region (ctx, mi->instance, sentence->targets[0]), x1, y1, x2, y2);
    }

  for (guint i = 0; i < images->len; i++)
    {
      MsImage *mi = g_ptr_array_index (images, i);
      if (mi->instance != NULL)
        hs_dataset_add_instance (ctx->dataset, g_steal_pointer (&mi->instance));
    }
  return TRUE;
}
