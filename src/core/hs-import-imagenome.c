/* hs-import-imagenome.c — Chest ImaGenome: the gold TSV
 * (gold_object_attribute_with_coordinates.txt: image_id, row_id, sentence,
 * bbox, coord_original "[x1, y1, x2, y2]", label_name, context) and
 * scene-graph JSON (objects[] with original_x1..y2; attributes[] with
 * phrases and "category|context|label" lists per phrase). */
#include "hs-json-guard-private.h"
#include "hs-import-private.h"

#include "hs-csv.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

typedef struct
{
  HsInstance *instance;
  guint       width, height;
  GHashTable *sentences;   /* key (row id or text) → HsSentence* */
} GenomeImage;

typedef struct
{
  HsImportContext *ctx;
  const char      *image_root;
  GHashTable      *images;   /* image_id → GenomeImage* (NULL value: not importable) */
  GPtrArray       *order;    /* GenomeImage* in order */
} Genome;

static void
genome_image_free (gpointer data)
{
  GenomeImage *gi = data;

  if (gi->instance != NULL)
    hs_instance_free (gi->instance);
  g_hash_table_unref (gi->sentences);
  g_free (gi);
}

/* The image of `image_id`, imported on first use; NULL (and a skip
 * recorded) when it cannot be. */
static GenomeImage *
get_image (Genome *g, const char *image_id, const char *file, guint line, const char *where)
{
  static const char *extensions[] = { ".jpg", ".png", ".jpeg", ".dcm" };
  g_autofree char *source = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *rel = NULL;
  g_autoptr(GError) error = NULL;
  GenomeImage *gi;

  if (g_hash_table_lookup_extended (g->images, image_id, NULL, (gpointer *) &gi))
    {
      if (gi == NULL)
        hs_import_skip (g->ctx, file, line, _("%simage %s was not imported"), where, image_id);
      return gi;
    }
  if (strchr (image_id, '/') != NULL || strcmp (image_id, "..") == 0 || *image_id == '\0')
    {
      hs_import_skip (g->ctx, file, line, _("%sbad image_id '%s'"), where, image_id);
      g_hash_table_insert (g->images, g_strdup (image_id), NULL);
      return NULL;
    }
  for (guint e = 0; e < G_N_ELEMENTS (extensions) && source == NULL; e++)
    {
      g_autofree char *name = g_strconcat (image_id, extensions[e], NULL);
      g_autofree char *path = g_build_filename (g->image_root, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          source = g_steal_pointer (&path);
          relative = g_strconcat ("images/", name, NULL);
        }
    }
  if (source == NULL)
    {
      hs_import_skip (g->ctx, file, line, _("%simage %s.jpg/.png not found in %s"), where, image_id, g->image_root);
      g_hash_table_insert (g->images, g_strdup (image_id), NULL);
      return NULL;
    }
  gi = g_new0 (GenomeImage, 1);
  gi->sentences = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  rel = hs_import_add_image (g->ctx, source, relative, &gi->width, &gi->height, &error);
  if (rel == NULL)
    {
      hs_import_skip (g->ctx, file, line, "%s%s", where, error->message);
      genome_image_free (gi);
      g_hash_table_insert (g->images, g_strdup (image_id), NULL);
      return NULL;
    }
  gi->instance = hs_import_new_instance (g->ctx, image_id, rel, gi->width, gi->height, "Chest ImaGenome");
  g_hash_table_insert (g->images, g_strdup (image_id), gi);
  g_ptr_array_add (g->order, gi);
  return gi;
}

static gboolean
add_region_box (HsImportContext *ctx, GenomeImage *gi, const char *name,
                double x1, double y1, double x2, double y2)
{
  if (!hs_import_clip_box (&x1, &y1, &x2, &y2, gi->width, gi->height))
    return FALSE;
  /* a box the scene graph and the CSV both give is kept once */
  hs_import_add_box (ctx, hs_import_get_region (ctx, gi->instance, name), x1, y1, x2, y2);
  return TRUE;
}

static HsSentence *
get_sentence (GenomeImage *gi, const char *key, const char *text)
{
  HsSentence *sentence = g_hash_table_lookup (gi->sentences, key);

  if (sentence == NULL)
    {
      g_autofree char *sid = g_strdup_printf ("s%u", g_hash_table_size (gi->sentences) + 1);
      sentence = hs_sentence_new (sid, text);
      hs_instance_add_sentence (gi->instance, sentence);
      g_hash_table_insert (gi->sentences, g_strdup (key), sentence);
    }
  return sentence;
}

/* ImaGenome contexts are "yes"/"no"; "positive"/"negative" also accepted. */
static const char *
context_of (const char *text)
{
  if (text == NULL || g_ascii_strcasecmp (text, "yes") == 0 || g_ascii_strcasecmp (text, "positive") == 0)
    return "positive";
  if (g_ascii_strcasecmp (text, "no") == 0 || g_ascii_strcasecmp (text, "negative") == 0)
    return "negative";
  return NULL;
}

static void
add_label (HsImportContext *ctx, HsSentence *sentence, const char *condition, const char *context,
           const char *location)
{
  const char *locations[] = { location, NULL };
  HsLabel *label = hs_import_find_label (ctx, sentence, condition, context);

  if (label == NULL)
    hs_sentence_add_label (sentence, hs_label_new (condition, context, location ? locations : NULL));
  else if (location != NULL)
    hs_import_add_location (ctx, label, location);
}

static gboolean
parse_coords (const char *text, double v[4])
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  char *p = copy;

  if (*p == '[')
    p++;
  for (int i = 0; i < 4; i++)
    {
      char *end = NULL;
      while (*p == ' ' || *p == ',')
        p++;
      v[i] = g_ascii_strtod (p, &end);
      if (end == p || !isfinite (v[i]))
        return FALSE;
      p = end;
    }
  while (*p == ' ')
    p++;
  return *p == ']' || *p == '\0';
}

static gboolean
import_gold_tsv (Genome *g, const char *path, GError **error)
{
  g_autoptr(HsCsvReader) reader = NULL;
  g_autoptr(GError) local_error = NULL;
  int c_image, c_row, c_sentence, c_bbox, c_coord, c_label, c_context;
  const HsImportColumn columns[] = {
    { "image_id", &c_image }, { "row_id", &c_row, TRUE }, { "sentence", &c_sentence },
    { "bbox|bbox_name", &c_bbox }, { "coord_original", &c_coord },
    { "label_name", &c_label, TRUE }, { "context", &c_context, TRUE },
  };
  guint line = 0;

  reader = hs_import_open_csv (g->ctx, path, &local_error);
  if (reader == NULL)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, "%s", local_error->message);
      return FALSE;
    }
  hs_csv_reader_set_separator (reader, '\t');
  if (!hs_import_read_header (reader, &line, columns, G_N_ELEMENTS (columns), error,
                              _("%s:1: not an ImaGenome gold TSV (needs image_id, sentence, bbox, coord_original)"),
                              path))
    return FALSE;

  while (TRUE)
    {
      g_auto(GStrv) row = NULL;
      GenomeImage *gi;
      HsSentence *sentence;
      const char *image_id, *text, *bbox, *key;
      double v[4];
      guint nf;

      g_clear_error (&local_error);
      if (!hs_import_next_row (g->ctx, reader, path, &line, &row, error))
        return FALSE;
      if (row == NULL)
        break;
      nf = g_strv_length (row);
      if ((int) nf <= MAX (MAX (c_image, c_sentence), MAX (c_bbox, c_coord)))
        {
          hs_import_skip (g->ctx, path, line, _("too few columns"));
          continue;
        }
      image_id = g_strstrip (row[c_image]);
      text = g_strstrip (row[c_sentence]);
      bbox = g_strstrip (row[c_bbox]);
      if (*text == '\0' || *bbox == '\0')
        {
          hs_import_skip (g->ctx, path, line, _("empty sentence or bbox"));
          continue;
        }
      if (!parse_coords (row[c_coord], v))
        {
          hs_import_skip (g->ctx, path, line, _("coord_original '%s' is not [x1, y1, x2, y2]"), row[c_coord]);
          continue;
        }
      gi = get_image (g, image_id, path, line, "");
      if (gi == NULL)
        continue;
      if (!add_region_box (g->ctx, gi, bbox, v[0], v[1], v[2], v[3]))
        {
          hs_import_skip (g->ctx, path, line, _("box %s is empty or outside the %u × %u image"),
                          row[c_coord], gi->width, gi->height);
          continue;
        }
      key = c_row >= 0 && c_row < (int) nf && *row[c_row] ? row[c_row] : text;
      sentence = get_sentence (gi, key, text);
      hs_import_add_target (g->ctx, sentence, bbox);
      if (c_label >= 0 && c_label < (int) nf && *g_strstrip (row[c_label]) != '\0')
        {
          const char *context = context_of (c_context >= 0 && c_context < (int) nf ? g_strstrip (row[c_context]) : NULL);
          if (context == NULL)
            {
              hs_import_skip (g->ctx, path, line, _("context '%s' is not yes/no"), row[c_context]);
              continue;
            }
          add_label (g->ctx, sentence, row[c_label], context, bbox);
          if (strcmp (context, "positive") == 0)
            gi->instance->abnormal = TRUE;
        }
    }
  return TRUE;
}

static const char *
member_string (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static gboolean
member_number (JsonObject *o, const char *name, double *out)
{
  return hs_import_json_number (json_object_get_member (o, name), out);
}

/* The array member `name` of `o`; NULL when `o` is NULL or the member is
 * missing or not an array. */
static JsonArray *
member_array (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

/* Element `i` of `a` if it is an object, else NULL. */
static JsonObject *
element_object (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);

  return JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static void
import_scene_graph (Genome *g, const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *objects, *attributes;
  GenomeImage *gi;
  const char *image_id;
  g_autofree char *file_text = NULL;
  gsize len = 0;
  GStatBuf st;

  if (g_stat (path, &st) == 0 && (guint64) st.st_size > hs_limits_get ()->max_manifest_bytes)
    {
      hs_import_skip (g->ctx, path, 0, _("file too large"));
      return;
    }
  if (!hs_import_read_source (g->ctx, path, &file_text, &len, &error) ||
      !hs_json_parser_load_data (parser, file_text, (gssize) len, &error))
    {
      hs_import_skip (g->ctx, path, 0, "%s", error->message);
      return;
    }
  root = JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))
         ? json_node_get_object (json_parser_get_root (parser)) : NULL;
  image_id = member_string (root, "image_id");
  if (image_id == NULL)
    {
      hs_import_skip (g->ctx, path, 0, _("not a scene graph (no image_id)"));
      return;
    }
  gi = get_image (g, image_id, path, 0, "");
  if (gi == NULL)
    return;

  objects = member_array (root, "objects");
  for (guint i = 0; objects != NULL && i < json_array_get_length (objects); i++)
    {
      JsonObject *o = element_object (objects, i);
      const char *name = member_string (o, "bbox_name");
      double x1, y1, x2, y2;

      if (name == NULL || !member_number (o, "original_x1", &x1) || !member_number (o, "original_y1", &y1) ||
          !member_number (o, "original_x2", &x2) || !member_number (o, "original_y2", &y2))
        {
          hs_import_skip (g->ctx, path, 0, _("objects[%u]: needs bbox_name and original_x1..original_y2"), i);
          continue;
        }
      if (!add_region_box (g->ctx, gi, name, x1, y1, x2, y2))
        hs_import_skip (g->ctx, path, 0, _("objects[%u]: %s box is empty or outside the image"), i, name);
    }

  attributes = member_array (root, "attributes");
  for (guint i = 0; attributes != NULL && i < json_array_get_length (attributes); i++)
    {
      JsonObject *o = element_object (attributes, i);
      const char *name = member_string (o, "bbox_name");
      JsonArray *phrases = member_array (o, "phrases");
      JsonArray *labels = member_array (o, "attributes");
      gboolean has_region;

      if (name == NULL || phrases == NULL)
        {
          hs_import_skip (g->ctx, path, 0, _("attributes[%u]: needs bbox_name and phrases"), i);
          continue;
        }
      has_region = hs_import_find_region (g->ctx, gi->instance, name) != NULL;
      for (guint k = 0; k < json_array_get_length (phrases); k++)
        {
          JsonNode *pn = json_array_get_element (phrases, k);
          JsonNode *ln;
          HsSentence *sentence;
          g_autofree char *text = NULL;

          if (!JSON_NODE_HOLDS_VALUE (pn) || json_node_get_value_type (pn) != G_TYPE_STRING)
            {
              hs_import_skip (g->ctx, path, 0, _("attributes[%u].phrases[%u]: not a string"), i, k);
              continue;
            }
          text = g_strstrip (g_strdup (json_node_get_string (pn)));
          if (*text == '\0')
            continue;
          sentence = get_sentence (gi, text, text);
          if (has_region)
            hs_import_add_target (g->ctx, sentence, name);
          ln = labels != NULL && k < json_array_get_length (labels) ? json_array_get_element (labels, k) : NULL;
          if (ln == NULL || !JSON_NODE_HOLDS_ARRAY (ln))
            continue;
          for (guint j = 0; j < json_array_get_length (json_node_get_array (ln)); j++)
            {
              JsonNode *an = json_array_get_element (json_node_get_array (ln), j);
              g_auto(GStrv) parts = NULL;
              const char *context;

              if (!JSON_NODE_HOLDS_VALUE (an) || json_node_get_value_type (an) != G_TYPE_STRING)
                continue;
              parts = g_strsplit (json_node_get_string (an), "|", 3);
              if (g_strv_length (parts) != 3 || (context = context_of (parts[1])) == NULL || *parts[2] == '\0')
                {
                  hs_import_skip (g->ctx, path, 0, _("attributes[%u].attributes[%u][%u]: '%s' is not "
                                  "category|yes/no|label"), i, k, j, json_node_get_string (an));
                  continue;
                }
              add_label (g->ctx, sentence, parts[2], context, name);
              if (strcmp (context, "positive") == 0)
                gi->instance->abnormal = TRUE;
            }
        }
    }
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

gboolean
hs_import_imagenome (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *source = sources[0];
  gboolean is_dir = g_file_test (source, G_FILE_TEST_IS_DIR);
  g_autofree char *image_root = n >= 2 ? g_strdup (sources[1])
                                       : is_dir ? g_strdup (source) : g_path_get_dirname (source);
  g_autoptr(GHashTable) images = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func (genome_image_free);
  Genome g = { ctx, image_root, images, order };
  gboolean ok = TRUE;

  if (is_dir)
    {
      g_autoptr(GDir) dir = g_dir_open (source, 0, NULL);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (name, ".json"))
          g_ptr_array_add (names, g_build_filename (source, name, NULL));
      g_ptr_array_sort (names, compare_strings);
      if (names->len == 0)
        {
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT, _("%s: no scene-graph .json files"), source);
          return FALSE;
        }
      for (guint i = 0; i < names->len; i++)
        {
          if (!hs_import_progress (ctx, (double) i / names->len, g_ptr_array_index (names, i), error))
            return FALSE;
          import_scene_graph (&g, g_ptr_array_index (names, i));
        }
    }
  else if (g_str_has_suffix (source, ".json"))
    import_scene_graph (&g, source);
  else
    ok = import_gold_tsv (&g, source, error);

  if (!ok)
    return FALSE;
  for (guint i = 0; i < order->len; i++)
    {
      GenomeImage *gi = g_ptr_array_index (order, i);
      hs_dataset_add_instance (ctx->dataset, g_steal_pointer (&gi->instance));
    }
  return TRUE;
}
