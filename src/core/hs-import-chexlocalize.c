/* hs-import-chexlocalize.c — CheXlocalize ground truth: polygons
 * (gt_annotations_*.json: {cxr_id: {pathology: [[[x, y], ...], ...],
 * "img_size": [h, w]}}) or COCO RLE masks (gt_segmentations_*.json:
 * {cxr_id: {pathology: {"size": [h, w], "counts": "..."}}}). */
#include "hs-json-guard-private.h"
#include "hs-import-private.h"

#include "hs-limits.h"
#include "hs-rle.h"
#include "hs-i18n-private.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static gboolean
read_size (JsonNode *node, guint *height, guint *width)
{
  JsonArray *a;
  double h, w;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  a = json_node_get_array (node);
  if (json_array_get_length (a) != 2 || !hs_import_json_number (json_array_get_element (a, 0), &h) ||
      !hs_import_json_number (json_array_get_element (a, 1), &w) || h < 1 || w < 1 || h > G_MAXINT32 ||
      w > G_MAXINT32 || h != floor (h) || w != floor (w))
    return FALSE;
  *height = (guint) h;
  *width = (guint) w;
  return TRUE;
}

/* patient64541_study1_view1_frontal → valid/patient64541/study1/view1_frontal.jpg */
static char *
find_image (const char *root, const char *cxr_id)
{
  static const char *splits[] = { "valid", "test", "" };
  const char *study = strstr (cxr_id, "_study");
  const char *view = study != NULL ? strstr (study + 1, "_view") : NULL;
  static const char *extensions[] = { ".jpg", ".png", ".jpeg", ".dcm" };

  for (guint e = 0; e < G_N_ELEMENTS (extensions); e++)
    {
      g_autofree char *flat_name = g_strconcat (cxr_id, extensions[e], NULL);
      g_autofree char *flat = g_build_filename (root, flat_name, NULL);

      if (study != NULL && view != NULL)
        for (guint s = 0; s < G_N_ELEMENTS (splits); s++)
          {
            g_autofree char *patient = g_strndup (cxr_id, study - cxr_id);
            g_autofree char *study_part = g_strndup (study + 1, view - study - 1);
            g_autofree char *view_part = g_strconcat (view + 1, extensions[e], NULL);
            g_autofree char *path = g_build_filename (root, splits[s], patient, study_part, view_part, NULL);
            if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
              return g_steal_pointer (&path);
          }
      if (g_file_test (flat, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&flat);
    }
  return NULL;
}

/* Paints the pathology; returns the mask (owned by the caller), NULL with a
 * reason when unusable, or NULL without a reason when it is empty. */
static guint8 *
pathology_mask (JsonNode *node, guint img_h, guint img_w, double sx, double sy,
                guint *mask_h, guint *mask_w, char **reason)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *polygons = json_node_get_array (node);
      g_autofree guint8 *mask = NULL;

      if (json_array_get_length (polygons) == 0)
        return NULL;
      mask = g_malloc0 ((gsize) img_w * img_h);
      for (guint p = 0; p < json_array_get_length (polygons); p++)
        {
          JsonNode *pn = json_array_get_element (polygons, p);
          JsonArray *points;
          g_autofree double *xy = NULL;
          guint n;

          if (!JSON_NODE_HOLDS_ARRAY (pn))
            {
              *reason = g_strdup_printf ("polygon %u is not a list of [x, y] points", p);
              return NULL;
            }
          points = json_node_get_array (pn);
          n = json_array_get_length (points);
          if (n < 3)
            {
              *reason = g_strdup_printf ("polygon %u has %u points (need 3 or more)", p, n);
              return NULL;
            }
          xy = g_new (double, 2 * n);
          for (guint k = 0; k < n; k++)
            {
              JsonNode *pt = json_array_get_element (points, k);
              JsonArray *xy_pair = JSON_NODE_HOLDS_ARRAY (pt) ? json_node_get_array (pt) : NULL;
              if (xy_pair == NULL || json_array_get_length (xy_pair) != 2 ||
                  !hs_import_json_number (json_array_get_element (xy_pair, 0), &xy[2 * k]) ||
                  !hs_import_json_number (json_array_get_element (xy_pair, 1), &xy[2 * k + 1]))
                {
                  *reason = g_strdup_printf ("polygon %u point %u is not [x, y]", p, k);
                  return NULL;
                }
              xy[2 * k] *= sx;
              xy[2 * k + 1] *= sy;
            }
          hs_import_fill_polygon (mask, img_w, img_h, xy, n);
        }
      *mask_h = img_h;
      *mask_w = img_w;
      return g_steal_pointer (&mask);
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      JsonNode *counts = json_object_get_member (o, "counts");
      g_autoptr(GArray) values = NULL;
      g_autoptr(GError) error = NULL;
      guint8 *mask;
      guint h, w;
      gboolean any = FALSE;

      if (!read_size (json_object_get_member (o, "size"), &h, &w))
        {
          *reason = g_strdup ("RLE needs size [height, width]");
          return NULL;
        }
      if (counts == NULL || !JSON_NODE_HOLDS_VALUE (counts) ||
          json_node_get_value_type (counts) != G_TYPE_STRING)
        {
          *reason = g_strdup ("RLE counts must be a string");
          return NULL;
        }
      values = hs_rle_counts_from_string (json_node_get_string (counts), &error);
      if (values != NULL)
        mask = hs_rle_decode ((guint32 *) (gpointer) values->data, values->len, h, w, &error);
      else
        mask = NULL;
      if (mask == NULL)
        {
          *reason = g_strdup (error->message);
          return NULL;
        }
      for (gsize i = 0; i < (gsize) h * w && !any; i++)
        any = mask[i] != 0;
      if (!any)
        {
          g_free (mask);
          return NULL;
        }
      *mask_h = h;
      *mask_w = w;
      return mask;
    }
  *reason = g_strdup ("neither a list of polygons nor an RLE mask");
  return NULL;
}

gboolean
hs_import_chexlocalize (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *json_path = sources[0];
  g_autofree char *root = n >= 2 ? g_strdup (sources[1]) : g_path_get_dirname (json_path);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GList) ids = NULL;
  GStatBuf st;
  JsonObject *top;
  guint index = 0, n_ids;

  if (g_stat (json_path, &st) == 0 && (guint64) st.st_size > hs_limits_get ()->max_manifest_bytes)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: file too large"), json_path);
      return FALSE;
    }
  if (!hs_json_parser_load_file (parser, json_path, &local_error))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT, "%s: %s", json_path, local_error->message);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                   _("%s: not CheXlocalize ground truth (expected an object keyed by image id)"), json_path);
      return FALSE;
    }
  top = json_node_get_object (json_parser_get_root (parser));
  ids = json_object_get_members (top);
  ids = g_list_sort (ids, (GCompareFunc) strcmp);

  n_ids = g_list_length (ids);
  for (GList *l = ids; l != NULL; l = l->next, index++)
    {
      const char *cxr_id = l->data;
      JsonNode *entry = json_object_get_member (top, cxr_id);
      JsonObject *o;
      g_autofree char *source = NULL;
      g_autofree char *relative = NULL;
      g_autofree char *rel = NULL;
      g_autoptr(GList) pathologies = NULL;
      HsInstance *instance;
      guint width = 0, height = 0, size_h = 0, size_w = 0;
      double sx = 1, sy = 1;
      const char *ext;

      if (!JSON_NODE_HOLDS_OBJECT (entry))
        {
          hs_import_skip (ctx, json_path, 0, _("%s: not an object of pathologies"), cxr_id);
          continue;
        }
      if (!hs_import_progress (ctx, (double) index / n_ids, cxr_id, error))
        return FALSE;
      o = json_node_get_object (entry);
      source = find_image (root, cxr_id);
      if (source == NULL)
        {
          hs_import_skip (ctx, json_path, 0, _("%s: image not found under %s"), cxr_id, root);
          continue;
        }
      ext = strrchr (source, '.');
      relative = g_strconcat ("images/", cxr_id, ext, NULL);
      rel = hs_import_add_image (ctx, source, relative, &width, &height, &local_error);
      if (rel == NULL)
        {
          hs_import_skip (ctx, json_path, 0, "%s: %s", cxr_id, local_error->message);
          g_clear_error (&local_error);
          continue;
        }
      /* polygons are in img_size pixels; a resized copy gets them scaled */
      if (json_object_has_member (o, "img_size"))
        {
          if (!read_size (json_object_get_member (o, "img_size"), &size_h, &size_w))
            {
              hs_import_skip (ctx, json_path, 0, _("%s: img_size is not [height, width]"), cxr_id);
              continue;
            }
          sx = (double) width / size_w;
          sy = (double) height / size_h;
        }
      instance = hs_import_new_instance (ctx, cxr_id, rel, width, height, "CheXlocalize");

      pathologies = json_object_get_members (o);
      pathologies = g_list_sort (pathologies, (GCompareFunc) strcmp);
      for (GList *p = pathologies; p != NULL; p = p->next)
        {
          const char *pathology = p->data;
          g_autofree char *reason = NULL;
          g_autofree guint8 *mask = NULL;
          g_autofree char *sid = NULL;
          HsSentence *sentence;
          guint mh = 0, mw = 0;
          gboolean positive;

          if (strcmp (pathology, "img_size") == 0)
            continue;
          mask = pathology_mask (json_object_get_member (o, pathology), height, width, sx, sy,
                                 &mh, &mw, &reason);
          if (mask == NULL && reason != NULL)
            {
              hs_import_skip (ctx, json_path, 0, "%s: %s: %s", cxr_id, pathology, reason);
              continue;
            }
          positive = mask != NULL;
          sid = g_strdup_printf ("class:%s", pathology);
          sentence = hs_sentence_new (sid, pathology);
          hs_sentence_set_kind (sentence, "class");
          hs_sentence_add_label (sentence, hs_label_new (pathology, positive ? "positive" : "negative", NULL));
          if (positive)
            {
              g_autofree char *stem = g_strdup_printf ("%s__%s", instance->id, pathology);
              g_autofree char *mask_rel = hs_import_write_mask (ctx, stem, mask, mw, mh, error);
              HsRegion *region;

              if (mask_rel == NULL)
                {
                  hs_sentence_free (sentence);
                  hs_instance_free (instance);
                  return FALSE;
                }
              region = hs_import_get_region (ctx, instance, pathology);
              hs_region_set_mask (region, mask_rel);
              if (mw == width && mh == height)  /* else subsets scale the decoded mask */
                hs_region_set_mask_extent (region, mask, mw, mh);
              hs_sentence_add_target (sentence, pathology);
              instance->abnormal = TRUE;
            }
          hs_instance_add_sentence (instance, sentence);
          hs_instance_add_finding (instance, hs_label_new (pathology, positive ? "positive" : "negative", NULL));
        }
      hs_dataset_add_instance (ctx->dataset, instance);
    }
  return TRUE;
}
