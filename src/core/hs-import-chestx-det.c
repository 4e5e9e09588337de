/* hs-import-chestx-det.c — ChestX-Det / ChestX-Det10 JSON
 * (a list of {"file_name", "syms": [class...], "boxes": [[x1,y1,x2,y2]...],
 * "polygons": [[[x,y]...]...]}, the i-th box and polygon belonging to the
 * i-th sym; ChestX-Det10 has no polygons; an image without findings has
 * empty lists).  Boxes and polygon masks are in image pixels; a class that
 * appears twice gets both boxes and the union of its polygons. */
#include "hs-import-private.h"

#include "hs-json-guard-private.h"
#include "hs-i18n-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static JsonArray *
member_array (JsonObject *o, const char *member)
{
  JsonNode *node = json_object_get_member (o, member);

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

gboolean
hs_import_chestx_det (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *json_path = sources[0];
  g_autofree char *base = g_path_get_dirname (json_path);
  g_autofree char *image_dir = n >= 2 ? g_strdup (sources[1]) : g_strdup (base);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  HsImportImages *images;
  JsonArray *entries;
  gboolean ok = TRUE;

  if (!hs_json_parser_load_file (parser, json_path, &local_error))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT, "%s", local_error->message);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_ARRAY (json_parser_get_root (parser)))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                   _("%s: not a ChestX-Det file (a list of {file_name, syms, boxes, polygons})"), json_path);
      return FALSE;
    }
  entries = json_node_get_array (json_parser_get_root (parser));
  images = hs_import_images_new (image_dir, "ChestX-Det");
  for (guint e = 0; e < json_array_get_length (entries); e++)
    {
      JsonNode *node = json_array_get_element (entries, e);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonArray *syms, *boxes, *polygons;
      const char *file;
      HsImportImage *image;
      g_autofree char *where = g_strdup_printf ("[%u]", e);
      g_autofree char *stem = NULL;
      g_auto(HsImportMasks) masks = { NULL, NULL };

      if (!hs_import_progress (ctx, (double) e / MAX (1, json_array_get_length (entries)), NULL, error))
        {
          ok = FALSE;
          break;
        }
      file = o != NULL && json_object_has_member (o, "file_name") &&
             JSON_NODE_HOLDS_VALUE (json_object_get_member (o, "file_name")) &&
             json_node_get_value_type (json_object_get_member (o, "file_name")) == G_TYPE_STRING
             ? json_object_get_string_member (o, "file_name") : NULL;
      syms = o != NULL ? member_array (o, "syms") : NULL;
      boxes = o != NULL ? member_array (o, "boxes") : NULL;
      polygons = o != NULL ? member_array (o, "polygons") : NULL;
      if (file == NULL || syms == NULL || boxes == NULL ||
          json_array_get_length (boxes) != json_array_get_length (syms) ||
          (polygons != NULL && json_array_get_length (polygons) != json_array_get_length (syms)))
        {
          hs_import_skip (ctx, json_path, 0, _("%s: expected file_name and syms, boxes (and polygons) of one length"), where);
          continue;
        }
      {
        const char *dot = strrchr (file, '.');
        stem = dot != NULL ? g_strndup (file, dot - file) : g_strdup (file);
      }
      image = hs_import_images_get (ctx, images, stem, json_path, 0);
      if (image == NULL)
        continue;
      for (guint i = 0; i < json_array_get_length (syms); i++)
        {
          JsonNode *sym_node = json_array_get_element (syms, i);
          JsonNode *box_node = json_array_get_element (boxes, i);
          JsonArray *box = JSON_NODE_HOLDS_ARRAY (box_node) ? json_node_get_array (box_node) : NULL;
          const char *sym;
          double x1, y1, x2, y2;

          if (!JSON_NODE_HOLDS_VALUE (sym_node) || json_node_get_value_type (sym_node) != G_TYPE_STRING ||
              *(sym = json_node_get_string (sym_node)) == '\0')
            {
              hs_import_skip (ctx, json_path, 0, _("%s.syms[%u]: not a class name"), where, i);
              continue;
            }
          if (box == NULL || json_array_get_length (box) != 4 ||
              !hs_import_json_number (json_array_get_element (box, 0), &x1) || !hs_import_json_number (json_array_get_element (box, 1), &y1) ||
              !hs_import_json_number (json_array_get_element (box, 2), &x2) || !hs_import_json_number (json_array_get_element (box, 3), &y2))
            {
              hs_import_skip (ctx, json_path, 0, _("%s.boxes[%u]: not [x1, y1, x2, y2]"), where, i);
              continue;
            }
          if (!hs_import_clip_box (&x1, &y1, &x2, &y2, image->width, image->height))
            {
              hs_import_skip (ctx, json_path, 0, _("%s.boxes[%u]: empty or outside the image"), where, i);
              continue;
            }
          hs_region_add_box (hs_import_get_region (ctx, image->instance, sym), x1, y1, x2, y2);
          hs_import_add_class_sentence (ctx, image->instance, sym);
          hs_import_add_positive (ctx, image->instance, sym);
          if (polygons != NULL)
            {
              JsonNode *poly_node = json_array_get_element (polygons, i);
              JsonArray *poly = JSON_NODE_HOLDS_ARRAY (poly_node) ? json_node_get_array (poly_node) : NULL;
              guint np = poly != NULL ? json_array_get_length (poly) : 0;
              g_autofree double *xy = g_new (double, 2 * MAX (np, 1));
              gboolean good = np >= 3;
              guint8 *mask;

              for (guint k = 0; good && k < np; k++)
                {
                  JsonNode *pt = json_array_get_element (poly, k);
                  JsonArray *p = JSON_NODE_HOLDS_ARRAY (pt) ? json_node_get_array (pt) : NULL;
                  good = p != NULL && json_array_get_length (p) == 2 &&
                         hs_import_json_number (json_array_get_element (p, 0), &xy[2 * k]) &&
                         hs_import_json_number (json_array_get_element (p, 1), &xy[2 * k + 1]);
                }
              if (!good)
                {
                  hs_import_skip (ctx, json_path, 0, _("%s.polygons[%u]: not a list of ≥ 3 [x, y] points"), where, i);
                  continue;
                }
              mask = hs_import_masks_get (&masks, sym, image->width, image->height);
              {
                g_autofree guint8 *one = g_malloc0 ((gsize) image->width * image->height);
                hs_import_fill_polygon (one, image->width, image->height, xy, np);
                for (gsize k = 0; k < (gsize) image->width * image->height; k++)
                  mask[k] |= one[k];
              }
            }
        }
      for (guint m = 0; masks.order != NULL && m < masks.order->len; m++)
        {
          const char *sym = g_ptr_array_index (masks.order, m);
          g_autofree char *mask_stem = g_strdup_printf ("%s-%s", image->instance->id, sym);

          ok = hs_import_set_region_mask (ctx, image->instance, sym, mask_stem,
                                          g_hash_table_lookup (masks.by_name, sym),
                                          image->width, image->height, error);
          if (!ok)
            break;
        }
      if (!ok)
        break;
    }
  hs_import_images_finish (ctx, images);
  return ok;
}
