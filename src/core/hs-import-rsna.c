/* hs-import-rsna.c — RSNA Pneumonia Detection stage_2_train_labels.csv
 * ("patientId,x,y,width,height,Target"; Target 0 rows carry no box, an
 * image with several opacities has one row per box).  Boxes are in the
 * pixels of the original 1024 × 1024 DICOM files; a smaller copy of an
 * image gets them scaled. */
#include "hs-import-private.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

#define RSNA_ORIGINAL_SIZE 1024.0
#define RSNA_REGION "Lung Opacity"

gboolean
hs_import_rsna (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *csv_path = sources[0];
  g_autofree char *base = g_path_get_dirname (csv_path);
  g_autofree char *image_dir = n >= 2 ? g_strdup (sources[1]) : g_strdup (base);
  g_autoptr(HsCsvReader) reader = NULL;
  HsImportImages *images;
  int c_id, c_x, c_y, c_w, c_h, c_target;
  const HsImportColumn columns[] = {
    { "patientId", &c_id }, { "x", &c_x }, { "y", &c_y }, { "width", &c_w }, { "height", &c_h },
    { "Target", &c_target },
  };
  guint line = 0;
  gboolean ok = TRUE;

  reader = hs_import_open_csv_with_header (
    csv_path, &line, columns, G_N_ELEMENTS (columns), error,
    _("%s:1: not an RSNA Pneumonia header (patientId, x, y, width, height, Target)"),
    csv_path);
  if (reader == NULL)
    return FALSE;

  images = hs_import_images_new (image_dir, "RSNA Pneumonia Detection");
  while (TRUE)
    {
      g_auto(GStrv) row = NULL;
      HsImportImage *image;
      const char *id, *target;
      double x, y, w, h;

      if (!hs_import_next_row (ctx, reader, csv_path, &line, &row, error))
        {
          ok = FALSE;
          break;
        }
      if (row == NULL)
        break;
      if ((int) g_strv_length (row) <= MAX (MAX (MAX (c_id, c_x), MAX (c_y, c_w)), MAX (c_h, c_target)))
        {
          hs_import_skip (ctx, csv_path, line, _("expected patientId, x, y, width, height, Target"));
          continue;
        }
      id = g_strstrip (row[c_id]);
      target = g_strstrip (row[c_target]);
      if (strcmp (target, "0") != 0 && strcmp (target, "1") != 0)
        {
          hs_import_skip (ctx, csv_path, line, _("Target is '%s', not 0 or 1"), target);
          continue;
        }
      image = hs_import_images_get (ctx, images, id, csv_path, line);
      if (image == NULL)
        continue;
      if (strcmp (target, "0") == 0)
        continue;   /* no opacity: a normal instance */
      if (!hs_import_parse_number (row[c_x], &x) || !hs_import_parse_number (row[c_y], &y) ||
          !hs_import_parse_number (row[c_w], &w) || !hs_import_parse_number (row[c_h], &h))
        {
          hs_import_skip (ctx, csv_path, line, _("Target 1 without a numeric box"));
          continue;
        }
      if (!hs_import_add_class_box (ctx, image->instance, RSNA_REGION, x, y, x + w, y + h,
                                    RSNA_ORIGINAL_SIZE, RSNA_ORIGINAL_SIZE))
        {
          hs_import_skip (ctx, csv_path, line, _("box is empty or outside the image"));
          continue;
        }
      hs_import_add_positive (ctx, image->instance, RSNA_REGION);
    }
  hs_import_images_finish (ctx, images);
  return ok;
}
