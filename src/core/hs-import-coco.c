/* hs-import-coco.c — COCO JSON: boxes, polygons and RLE segmentations */
#include "hs-json-guard-private.h"

#include <inttypes.h>
#include "hs-import-private.h"

#include "hs-limits.h"
#include "hs-rle.h"
#include "hs-text.h"
#include "hs-i18n-private.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

typedef struct
{
  gint64      id;
  HsInstance *instance;
  guint       width, height;
  HsImportMasks masks;   /* by category name */
} CocoImage;

static void
coco_image_free (gpointer data)
{
  CocoImage *ci = data;

  if (ci->instance != NULL)
    hs_instance_free (ci->instance);
  hs_import_masks_clear (&ci->masks);
  g_free (ci);
}

static gboolean
get_int (JsonObject *o, const char *member, gint64 *out)
{
  JsonNode *node = json_object_get_member (o, member);
  double v;

  if (!hs_import_json_number (node, &v) || v != floor (v))
    return FALSE;
  *out = (gint64) v;
  return TRUE;
}

static const char *
get_string (JsonObject *o, const char *member)
{
  JsonNode *node = o != NULL ? json_object_get_member (o, member) : NULL;

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static guint8 *
mask_for (CocoImage *ci, const char *name)
{
  return hs_import_masks_get (&ci->masks, name, ci->width, ci->height);
}

/* Paints the segmentation into the category's mask.  Returns FALSE with a
 * reason when it cannot be used. */
static gboolean
add_segmentation (CocoImage *ci, const char *name, JsonNode *seg, char **reason)
{
  if (JSON_NODE_HOLDS_ARRAY (seg))
    {
      JsonArray *polygons = json_node_get_array (seg);
      guint n = json_array_get_length (polygons);

      for (guint p = 0; p < n; p++)
        {
          JsonNode *pn = json_array_get_element (polygons, p);
          JsonArray *coords;
          g_autofree double *xy = NULL;
          guint m;

          if (!JSON_NODE_HOLDS_ARRAY (pn))
            {
              *reason = g_strdup_printf ("segmentation[%u] is not a list of coordinates", p);
              return FALSE;
            }
          coords = json_node_get_array (pn);
          m = json_array_get_length (coords);
          if (m < 6 || m % 2 != 0)
            {
              *reason = g_strdup_printf ("segmentation[%u] has %u coordinates (need an even number >= 6)", p, m);
              return FALSE;
            }
          xy = g_new (double, m);
          for (guint k = 0; k < m; k++)
            if (!hs_import_json_number (json_array_get_element (coords, k), &xy[k]))
              {
                *reason = g_strdup_printf ("segmentation[%u][%u] is not a number", p, k);
                return FALSE;
              }
          hs_import_fill_polygon (mask_for (ci, name), ci->width, ci->height, xy, m / 2);
        }
      return TRUE;
    }
  if (JSON_NODE_HOLDS_OBJECT (seg))
    {
      JsonObject *rle = json_node_get_object (seg);
      JsonNode *size = json_object_get_member (rle, "size");
      JsonNode *counts = json_object_get_member (rle, "counts");
      g_autoptr(GArray) values = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree guint8 *decoded = NULL;
      double h, w;
      guint8 *mask;

      if (size == NULL || !JSON_NODE_HOLDS_ARRAY (size) ||
          json_array_get_length (json_node_get_array (size)) != 2 ||
          !hs_import_json_number (json_array_get_element (json_node_get_array (size), 0), &h) ||
          !hs_import_json_number (json_array_get_element (json_node_get_array (size), 1), &w))
        {
          *reason = g_strdup ("RLE segmentation needs size [height, width]");
          return FALSE;
        }
      /* compared as doubles: a negative, huge or fractional size must not
       * be cast to guint (undefined) */
      if (h != ci->height || w != ci->width)
        {
          *reason = g_strdup_printf ("RLE size [%g, %g] differs from the image (%u × %u)", h, w,
                                     ci->height, ci->width);
          return FALSE;
        }
      if (counts != NULL && JSON_NODE_HOLDS_VALUE (counts) &&
          json_node_get_value_type (counts) == G_TYPE_STRING)
        {
          values = hs_rle_counts_from_string (json_node_get_string (counts), &error);
          if (values == NULL)
            {
              *reason = g_strdup (error->message);
              return FALSE;
            }
        }
      else if (counts != NULL && JSON_NODE_HOLDS_ARRAY (counts))
        {
          JsonArray *a = json_node_get_array (counts);

          values = g_array_new (FALSE, FALSE, sizeof (guint32));
          for (guint k = 0; k < json_array_get_length (a); k++)
            {
              double v;
              guint32 c;

              if (!hs_import_json_number (json_array_get_element (a, k), &v) || v < 0 || v > G_MAXUINT32 ||
                  v != floor (v))
                {
                  *reason = g_strdup_printf ("RLE counts[%u] is not a count", k);
                  return FALSE;
                }
              c = (guint32) v;
              g_array_append_val (values, c);
            }
        }
      else
        {
          *reason = g_strdup ("RLE segmentation needs counts (a string or a list)");
          return FALSE;
        }
      decoded = hs_rle_decode ((const guint32 *) (gpointer) values->data, values->len, ci->height,
                               ci->width, &error);
      if (decoded == NULL)
        {
          *reason = g_strdup (error->message);
          return FALSE;
        }
      mask = mask_for (ci, name);
      for (gsize i = 0; i < (gsize) ci->width * ci->height; i++)
        mask[i] |= decoded[i];
      return TRUE;
    }
  *reason = g_strdup ("segmentation is neither polygons nor RLE");
  return FALSE;
}

gboolean
hs_import_coco (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *json_path = sources[0];
  g_autofree char *base = g_path_get_dirname (json_path);
  g_autofree char *image_dir = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GHashTable) categories = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GHashTable) by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GPtrArray) images = g_ptr_array_new_with_free_func (coco_image_free);
  GStatBuf st;
  JsonObject *root;
  JsonArray *array;

  if (n >= 2)
    image_dir = g_strdup (sources[1]);
  else
    {
      image_dir = g_build_filename (base, "images", NULL);
      if (!g_file_test (image_dir, G_FILE_TEST_IS_DIR))
        {
          g_free (image_dir);
          image_dir = g_strdup (base);
        }
    }

  if (g_stat (json_path, &st) == 0 && (guint64) st.st_size > hs_limits_get ()->max_manifest_bytes)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: file too large"), json_path);
      return FALSE;
    }
  if (!hs_json_parser_load_file (parser, json_path, &local_error))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT, "%s: %s", json_path,
                   local_error->message);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT, _("%s: not a COCO object"), json_path);
      return FALSE;
    }
  root = json_node_get_object (json_parser_get_root (parser));
  if (!json_object_has_member (root, "images") || !json_object_has_member (root, "annotations") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "images")) ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "annotations")))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                   _("%s: not COCO (needs the lists 'images' and 'annotations')"), json_path);
      return FALSE;
    }

  if (json_object_has_member (root, "categories") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "categories")))
    {
      array = json_object_get_array_member (root, "categories");
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *node = json_array_get_element (array, i);
          JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
          gint64 id;
          const char *name = get_string (o, "name");

          if (o == NULL || !get_int (o, "id", &id) || name == NULL || *name == '\0')
            {
              hs_import_skip (ctx, json_path, 0, _("categories[%u]: needs an integer id and a name"), i);
              continue;
            }
          g_hash_table_insert (categories, g_memdup2 (&id, sizeof id), g_strdup (name));
        }
    }

  array = json_object_get_array_member (root, "images");
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *file_name = get_string (o, "file_name");
      if (!hs_import_progress (ctx, 0.5 * i / json_array_get_length (array), file_name, error))
        return FALSE;
      g_autofree char *source = NULL;
      g_autofree char *relative = NULL;
      g_autofree char *rel = NULL;
      g_autofree char *stem = NULL;
      gint64 image_id, jw = 0, jh = 0;
      CocoImage *ci;
      JsonObject *meta;
      const char *dot;

      if (o == NULL || !get_int (o, "id", &image_id) || file_name == NULL || *file_name == '\0')
        {
          hs_import_skip (ctx, json_path, 0, _("images[%u]: needs an integer id and a file_name"), i);
          continue;
        }
      if (g_path_is_absolute (file_name) || strstr (file_name, "..") != NULL)
        {
          hs_import_skip (ctx, json_path, 0, _("images[%u]: file_name '%s' leaves the image folder"), i, file_name);
          continue;
        }
      if (g_hash_table_contains (by_id, &image_id))
        {
          hs_import_skip (ctx, json_path, 0, _("images[%u]: id %" PRId64 " used twice"), i, image_id);
          continue;
        }
      source = g_build_filename (image_dir, file_name, NULL);
      if (!g_file_test (source, G_FILE_TEST_IS_REGULAR))
        {
          hs_import_skip (ctx, json_path, 0, _("images[%u]: %s not found (its annotations are left out)"),
                          i, source);
          continue;
        }
      ci = g_new0 (CocoImage, 1);
      ci->id = image_id;
      relative = g_build_filename ("images", file_name, NULL);
      rel = hs_import_add_image (ctx, source, relative, &ci->width, &ci->height, &local_error);
      if (rel == NULL)
        {
          hs_import_skip (ctx, json_path, 0, _("images[%u]: %s"), i, local_error->message);
          g_clear_error (&local_error);
          coco_image_free (ci);
          continue;
        }
      if ((get_int (o, "width", &jw) && jw != ci->width) || (get_int (o, "height", &jh) && jh != ci->height))
        {
          hs_import_skip (ctx, json_path, 0, _("images[%u]: %s is %u × %u but the JSON says %" PRId64 " × %" PRId64), i, file_name, ci->width, ci->height, jw, jh);
          coco_image_free (ci);
          continue;
        }
      g_ptr_array_add (images, ci);
      g_hash_table_insert (by_id, &ci->id, ci);

      dot = strrchr (file_name, '.');
      stem = dot != NULL ? g_strndup (file_name, dot - file_name) : g_strdup (file_name);
      {
        const char *slash = strrchr (stem, '/');
        ci->instance = hs_import_new_instance (ctx, slash != NULL ? slash + 1 : stem, rel,
                                               ci->width, ci->height, NULL);
      }

      /* COVID-19 image data collection style metadata: keep string values,
       * notes become report sentences */
      meta = json_object_has_member (o, "metadata") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "metadata"))
             ? json_object_get_object_member (o, "metadata") : NULL;
      if (meta != NULL)
        {
          const char *notes = get_string (meta, "clinical_notes");
          const char *view = get_string (meta, "view");
          const char *modality = get_string (meta, "modality");
          const char *finding = get_string (meta, "finding");
          const char *url = get_string (meta, "url");

          if (view != NULL && *view)
            hs_instance_set_metadata (ci->instance, "view", view);
          if (modality != NULL && *modality)
            hs_instance_set_metadata (ci->instance, "modality", modality);
          if (finding != NULL && *finding)
            hs_instance_set_metadata (ci->instance, "finding", finding);
          if (url != NULL && *url)
            hs_instance_set_metadata (ci->instance, "url", url);
          if (notes != NULL)
            {
              g_auto(GStrv) sentences = hs_text_split_sentences (notes);
              for (guint k = 0; sentences[k] != NULL; k++)
                {
                  g_autofree char *sid = g_strdup_printf ("s%u", k + 1);
                  hs_instance_add_sentence (ci->instance, hs_sentence_new (sid, sentences[k]));
                }
            }
        }
    }

  array = json_object_get_array_member (root, "annotations");
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonNode *bbox, *seg;
      gint64 image_id, category_id;
      const char *name;
      CocoImage *ci;
      HsRegion *region;
      gboolean has_seg = FALSE, used = FALSE;
      g_autofree char *reason = NULL;

      if (!hs_import_progress (ctx, 0.5 + 0.3 * i / json_array_get_length (array), NULL, error))
        return FALSE;

      if (o == NULL || !get_int (o, "image_id", &image_id))
        {
          hs_import_skip (ctx, json_path, 0, _("annotations[%u]: needs an integer image_id"), i);
          continue;
        }
      ci = g_hash_table_lookup (by_id, &image_id);
      if (ci == NULL)
        continue;  /* its image was reported above (or is absent) */
      if (!get_int (o, "category_id", &category_id))
        {
          hs_import_skip (ctx, json_path, 0, _("annotations[%u]: needs an integer category_id"), i);
          continue;
        }
      name = g_hash_table_lookup (categories, &category_id);
      if (name == NULL)
        {
          hs_import_skip (ctx, json_path, 0, _("annotations[%u]: unknown category_id %" PRId64),
                          i, category_id);
          continue;
        }

      seg = json_object_get_member (o, "segmentation");
      if (seg != NULL && !JSON_NODE_HOLDS_NULL (seg) &&
          !(JSON_NODE_HOLDS_ARRAY (seg) && json_array_get_length (json_node_get_array (seg)) == 0))
        {
          if (!add_segmentation (ci, name, seg, &reason))
            {
              hs_import_skip (ctx, json_path, 0, _("annotations[%u]: %s"), i, reason);
              continue;
            }
          has_seg = TRUE;
          used = TRUE;
        }

      bbox = json_object_get_member (o, "bbox");
      if (bbox != NULL && JSON_NODE_HOLDS_ARRAY (bbox))
        {
          JsonArray *b = json_node_get_array (bbox);
          double x, y, w, h, x1, y1, x2, y2;

          if (json_array_get_length (b) != 4 || !hs_import_json_number (json_array_get_element (b, 0), &x) ||
              !hs_import_json_number (json_array_get_element (b, 1), &y) ||
              !hs_import_json_number (json_array_get_element (b, 2), &w) ||
              !hs_import_json_number (json_array_get_element (b, 3), &h))
            {
              hs_import_skip (ctx, json_path, 0, _("annotations[%u]: bbox is not [x, y, w, h]"), i);
              if (!has_seg)
                continue;
            }
          else
            {
              x1 = x;
              y1 = y;
              x2 = x + w;
              y2 = y + h;
              if (!hs_import_clip_box (&x1, &y1, &x2, &y2, ci->width, ci->height))
                {
                  hs_import_skip (ctx, json_path, 0, _("annotations[%u]: bbox [%g, %g, %g, %g] is empty or "
                                  "outside the %u × %u image"), i, x, y, w, h, ci->width, ci->height);
                  if (!has_seg)
                    continue;
                }
              else
                {
                  region = hs_import_get_region (ctx, ci->instance, name);
                  hs_region_add_box (region, x1, y1, x2, y2);
                  used = TRUE;
                }
            }
        }
      if (!used)
        {
          hs_import_skip (ctx, json_path, 0, _("annotations[%u]: neither a bbox nor a segmentation"), i);
          continue;
        }
      hs_import_get_region (ctx, ci->instance, name);
      hs_import_add_class_sentence (ctx, ci->instance, name);
    }

  for (guint i = 0; i < images->len; i++)
    {
      CocoImage *ci = g_ptr_array_index (images, i);

      if (!hs_import_progress (ctx, 0.8 + 0.2 * i / images->len, ci->instance->id, error))
        return FALSE;
      if (!hs_import_write_region_masks (ctx, ci->instance, &ci->masks, ci->width,
                                         ci->height, error))
        return FALSE;
      hs_dataset_add_instance (ctx->dataset, g_steal_pointer (&ci->instance));
    }
  return TRUE;
}
