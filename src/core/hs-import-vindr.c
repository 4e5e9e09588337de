/* hs-import-vindr.c — VinDr-CXR annotations_*.csv
 * ("image_id,class_name,class_id,rad_id,x_min,y_min,x_max,y_max"; several
 * radiologists per image; "No finding" rows carry no box).  Each
 * radiologist's boxes stay apart in a region named "CLASS (RAD)"; the class
 * query targets every radiologist's region of that class.  Boxes are in the
 * pixels of the original DICOM; optional "width,height" columns (as in
 * resized PNG copies) scale them to the image at hand. */
#include "hs-import-private.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

static gboolean
is_blank (const char *text)
{
  for (; text != NULL && *text != '\0'; text++)
    if (!g_ascii_isspace (*text))
      return FALSE;
  return TRUE;
}

/* Adds a class query for `class_name` targeting `region` (once each). */
static void
add_class_target (HsImportContext *ctx, HsInstance *instance, const char *class_name,
                  const char *region)
{
  g_autofree char *id = g_strdup_printf ("class:%s", class_name);
  HsSentence *sentence = hs_import_find_sentence (ctx, instance, id);

  if (sentence == NULL)
    {
      sentence = hs_sentence_new (id, class_name);
      hs_sentence_set_kind (sentence, "class");
      hs_instance_add_sentence (instance, sentence);
    }
  hs_import_add_target (ctx, sentence, region);
}

gboolean
hs_import_vindr (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *csv_path = sources[0];
  g_autofree char *base = g_path_get_dirname (csv_path);
  g_autofree char *image_dir = n >= 2 ? g_strdup (sources[1]) : g_strdup (base);
  g_autoptr(HsCsvReader) reader = NULL;
  HsImportImages *images;
  int c_image, c_class, c_rad, c_x1, c_y1, c_x2, c_y2, c_w, c_h;
  const HsImportColumn columns[] = {
    { "image_id", &c_image }, { "class_name", &c_class }, { "rad_id", &c_rad, TRUE },
    { "x_min", &c_x1 }, { "y_min", &c_y1 }, { "x_max", &c_x2 }, { "y_max", &c_y2 },
    { "width", &c_w, TRUE }, { "height", &c_h, TRUE },
  };
  guint line = 0;
  gboolean ok = TRUE;

  reader = hs_import_open_csv_with_header (
    csv_path, &line, columns, G_N_ELEMENTS (columns), error,
    _("%s:1: not a VinDr-CXR header (image_id, class_name, class_id, rad_id, x_min, y_min, x_max, y_max)"),
    csv_path);
  if (reader == NULL)
    return FALSE;

  images = hs_import_images_new (image_dir, "VinDr-CXR");
  while (TRUE)
    {
      g_auto(GStrv) row = NULL;
      HsImportImage *image;
      const char *id, *class_name, *rad;
      double x1, y1, x2, y2, sx = 1.0, sy = 1.0;
      guint n_cols;

      if (!hs_import_next_row (ctx, reader, csv_path, &line, &row, error))
        {
          ok = FALSE;
          break;
        }
      if (row == NULL)
        break;
      n_cols = g_strv_length (row);
      if ((int) n_cols <= MAX (MAX (c_image, c_class), MAX (MAX (c_x1, c_y1), MAX (c_x2, c_y2))))
        {
          hs_import_skip (ctx, csv_path, line, _("expected image_id, class_name and the box columns"));
          continue;
        }
      id = g_strstrip (row[c_image]);
      class_name = g_strstrip (row[c_class]);
      rad = c_rad >= 0 && (int) n_cols > c_rad ? g_strstrip (row[c_rad]) : "";
      if (*class_name == '\0')
        {
          hs_import_skip (ctx, csv_path, line, _("empty class_name"));
          continue;
        }
      image = hs_import_images_get (ctx, images, id, csv_path, line);
      if (image == NULL)
        continue;
      if (*rad != '\0')
        {
          /* which radiologists read the image, in order of appearance */
          const char *readers = g_hash_table_lookup (image->instance->metadata, "radiologists");
          g_auto(GStrv) list = readers != NULL ? g_strsplit (readers, ",", -1) : NULL;
          if (list == NULL || !g_strv_contains ((const char * const *) list, rad))
            {
              g_autofree char *joined = readers != NULL ? g_strconcat (readers, ",", rad, NULL) : g_strdup (rad);
              hs_instance_set_metadata (image->instance, "radiologists", joined);
            }
        }
      if (is_blank (row[c_x1]) && is_blank (row[c_y1]) && is_blank (row[c_x2]) && is_blank (row[c_y2]))
        {
          if (g_ascii_strcasecmp (class_name, "No finding") != 0)
            hs_import_skip (ctx, csv_path, line, _("%s without a box"), class_name);
          continue;   /* "No finding": the image stays normal unless another row boxes it */
        }
      if (!hs_import_parse_number (row[c_x1], &x1) || !hs_import_parse_number (row[c_y1], &y1) ||
          !hs_import_parse_number (row[c_x2], &x2) || !hs_import_parse_number (row[c_y2], &y2))
        {
          hs_import_skip (ctx, csv_path, line, _("box values are not numbers"));
          continue;
        }
      if (c_w >= 0 && c_h >= 0 && (int) n_cols > MAX (c_w, c_h))
        {
          double ow, oh;
          if (hs_import_parse_number (row[c_w], &ow) && hs_import_parse_number (row[c_h], &oh) && ow > 0 && oh > 0)
            {
              sx = image->width / ow;
              sy = image->height / oh;
            }
        }
      x1 *= sx; x2 *= sx; y1 *= sy; y2 *= sy;
      if (!hs_import_clip_box (&x1, &y1, &x2, &y2, image->width, image->height))
        {
          hs_import_skip (ctx, csv_path, line, _("box is empty or outside the image"));
          continue;
        }
      {
        g_autofree char *region = *rad != '\0' ? g_strdup_printf ("%s (%s)", class_name, rad)
                                               : g_strdup (class_name);
        hs_region_add_box (hs_import_get_region (ctx, image->instance, region), x1, y1, x2, y2);
        add_class_target (ctx, image->instance, class_name, region);
        hs_import_add_positive (ctx, image->instance, class_name);
      }
    }
  hs_import_images_finish (ctx, images);
  return ok;
}
