/* hs-manifest-schema.c — the heatscope.json schema: typed access to the
 * parse tree and one read_* per object, turning it into the plain structs.
 * The same walk serves the loader (stop at the first problem) and the
 * validator (record every problem, and check files as they are named). */
#include "hs-manifest-private.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define PROBLEM(reader, path, code, ...) \
  hs_manifest_reader_problem ((reader), NULL, (path), (code), __VA_ARGS__)

/* --- typed access -------------------------------------------------------- */

static const char *
node_type_name (HjNode *node)
{
  /* N_: translated where the message is built (expect) */
  switch (node->type)
    {
    case HJ_OBJECT: return N_("an object");
    case HJ_ARRAY:  return N_("an array");
    case HJ_NULL:   return N_("null");
    case HJ_STRING: return N_("a string");
    case HJ_BOOL:   return N_("a boolean");
    case HJ_INT:
    case HJ_DOUBLE: return N_("a number");
    default:        return N_("something else");
    }
}

static gboolean
node_is_string (HjNode *node)
{
  return node->type == HJ_STRING;
}

static gboolean
node_is_number (HjNode *node)
{
  return node->type == HJ_INT || node->type == HJ_DOUBLE;
}

static gboolean
node_is_bool (HjNode *node)
{
  return node->type == HJ_BOOL;
}

static gboolean
expect (HsManifestReader *r, HjNode *node, const HsJsonPath *path, gboolean ok, const char *what)
{
  if (ok)
    return TRUE;
  PROBLEM (r, path, HS_DATASET_ERROR_INVALID, _("expected %s, found %s"), _(what), _(node_type_name (node)));
  return FALSE;
}

/* Reports members not in `allowed`; "x-" members are extensions and ignored. */
static void
check_members (HsManifestReader *r, HjNode *object, const HsJsonPath *path,
               const char * const *allowed)
{
  HjIter iter;
  const char *name;
  HjNode *member;

  hj_iter_init (&iter, object);
  while (!r->stop && hj_iter_next (&iter, &name, &member))
    {
      if (g_str_has_prefix (name, "x-") || g_strv_contains (allowed, name))
        continue;
      {
        PATH_KEY (child, path, name);
        g_autofree char *list = g_strjoinv (", ", (char **) allowed);
        PROBLEM (r, &child, HS_DATASET_ERROR_INVALID,
                 _("unknown member \"%s\" (expected one of: %s)"), name, list);
      }
    }
}

/* A string member.  Returns a copy, or NULL when absent or wrong (the
 * latter reported; *bad set). */
static char *
get_string (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
            const char *key, gboolean required, gboolean non_empty, gboolean *bad)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  const char *value;

  if (node == NULL)
    {
      if (required)
        {
          PROBLEM (r, parent, HS_DATASET_ERROR_INVALID, _("missing required member \"%s\""), key);
          *bad = TRUE;
        }
      return NULL;
    }
  if (!expect (r, node, &path, node_is_string (node), N_("a string")))
    {
      *bad = TRUE;
      return NULL;
    }
  value = node->v.s;
  if (non_empty && (value == NULL || value[0] == '\0'))
    {
      PROBLEM (r, &path, HS_DATASET_ERROR_INVALID, _("must not be empty"));
      *bad = TRUE;
      return NULL;
    }
  return g_strdup (value ? value : "");
}

/* An optional boolean member into *out.  Returns whether it was there and a
 * boolean (a member of another type is reported; *bad set). */
static gboolean
get_bool (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
          const char *key, gboolean *out, gboolean *bad)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);

  if (node == NULL)
    return FALSE;
  if (!expect (r, node, &path, node_is_bool (node), N_("a boolean")))
    {
      *bad = TRUE;
      return FALSE;
    }
  *out = node->v.b;
  return TRUE;
}

static char *
get_path (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
          const char *key, gboolean required, gboolean *bad)
{
  PATH_KEY (path, parent, key);
  gboolean my_bad = FALSE;
  char *value = get_string (r, object, parent, key, required, TRUE, &my_bad);
  const char *why = NULL;

  if (my_bad)
    {
      *bad = TRUE;
      return NULL;
    }
  if (value != NULL && !hs_dataset_path_is_safe (value, &why))
    {
      PROBLEM (r, &path, HS_DATASET_ERROR_PATH, _("path \"%s\" %s"), value, why);
      g_free (value);
      *bad = TRUE;
      return NULL;
    }
  return value;
}

static gboolean
get_number (HsManifestReader *r, HjNode *node, const HsJsonPath *path, double *out)
{
  double value;

  if (!expect (r, node, path, node_is_number (node), N_("a number")))
    return FALSE;
  value = hj_double (node);
  if (!isfinite (value))
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID, _("number is not finite"));
      return FALSE;
    }
  *out = value;
  return TRUE;
}

/* A positive integer member (image width or height); 0 when absent. */
static guint
get_dimension (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
               const char *key, gboolean *bad)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  gint64 value;

  if (node == NULL)
    return 0;
  if (!expect (r, node, &path,
               node->type == HJ_INT,
               N_("an integer")))
    {
      *bad = TRUE;
      return 0;
    }
  value = node->v.i;
  if (value < 1 || value > G_MAXINT32)
    {
      PROBLEM (r, &path, HS_DATASET_ERROR_INVALID,
               _("image %s %" PRId64 " is not in [1, %d]"), key, value, G_MAXINT32);
      *bad = TRUE;
      return 0;
    }
  return (guint) value;
}

/* An optional array of strings as a NULL-terminated vector (empty when
 * absent); NULL with *bad when wrong. */
static char **
get_string_list (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
                 const char *key, gboolean non_empty_items, gboolean *bad)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  HjNode *array;
  GPtrArray *items;
  gboolean my_bad = FALSE;
  guint n;

  if (node == NULL)
    return g_new0 (char *, 1);
  if (!expect (r, node, &path, node->type == HJ_ARRAY, N_("an array of strings")))
    {
      *bad = TRUE;
      return NULL;
    }
  array = node;
  n = hj_length (array);
  items = g_ptr_array_new_full (n + 1, g_free);
  for (guint i = 0; i < n && !r->stop; i++)
    {
      PATH_INDEX (item_path, &path, i);
      HjNode *item = hj_element (array, i);

      if (!expect (r, item, &item_path, node_is_string (item), N_("a string")))
        {
          my_bad = TRUE;
          continue;
        }
      if (non_empty_items && item->v.s[0] == '\0')
        {
          PROBLEM (r, &item_path, HS_DATASET_ERROR_INVALID, _("must not be empty"));
          my_bad = TRUE;
          continue;
        }
      g_ptr_array_add (items, g_strdup (item->v.s));
    }
  if (my_bad)
    {
      g_ptr_array_unref (items);
      *bad = TRUE;
      return NULL;
    }
  g_ptr_array_add (items, NULL);
  g_ptr_array_set_free_func (items, NULL);
  return (char **) g_ptr_array_free (items, FALSE);
}

/* The optional record of a file (HsFileRecord): `bytes_key` (an integer
 * >= 0) and `sha256_key` (64 lowercase hex digits), both or neither.  NULL
 * when absent or wrong (reported; *bad set). */
static HsFileRecord *
get_record (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
            const char *bytes_key, const char *sha256_key, gboolean *bad)
{
  PATH_KEY (bytes_path, parent, bytes_key);
  PATH_KEY (sha256_path, parent, sha256_key);
  HjNode *bytes = hj_member (object, bytes_key);
  HjNode *sha256 = hj_member (object, sha256_key);
  HsFileRecord record;

  if (bytes == NULL && sha256 == NULL)
    return NULL;
  if (bytes == NULL || sha256 == NULL)
    {
      PROBLEM (r, parent, HS_DATASET_ERROR_INVALID, "\"%s\" and \"%s\" go together",
               bytes_key, sha256_key);
      *bad = TRUE;
      return NULL;
    }
  if (!expect (r, bytes, &bytes_path, bytes->type == HJ_INT, "an integer"))
    {
      *bad = TRUE;
      return NULL;
    }
  if (bytes->v.i < 0)
    {
      PROBLEM (r, &bytes_path, HS_DATASET_ERROR_INVALID,
               "a file size of %" G_GINT64_FORMAT " bytes is negative", bytes->v.i);
      *bad = TRUE;
      return NULL;
    }
  if (!expect (r, sha256, &sha256_path, node_is_string (sha256), "a string"))
    {
      *bad = TRUE;
      return NULL;
    }
  if (!hs_file_record_sha256_from_hex (&record, sha256->v.s))
    {
      PROBLEM (r, &sha256_path, HS_DATASET_ERROR_INVALID,
               "\"%s\" is not a SHA-256 (64 lowercase hex digits)", sha256->v.s);
      *bad = TRUE;
      return NULL;
    }
  record.bytes = (guint64) bytes->v.i;
  return g_memdup2 (&record, sizeof record);
}

/* --- the schema, one function per object --------------------------------- */

static const char * const label_members[] = { "condition", "context", "locations", NULL };
static const char * const region_members[] = {
  "boxes", "mask", "mask_bytes", "mask_sha256", "extent", NULL };
static const char * const sentence_members[] = { "id", "text", "kind", "targets", "labels", NULL };
static const char * const map_members[] = {
  "model", "query", "prompt", "file", "file_bytes", "file_sha256", "tokens", "no_attn",
  "quantity", "tag_attention", NULL };
static const char * const tag_members[] = { "tag", "weight", NULL };
static const char * const instance_members[] = {
  "id", "image", "image_bytes", "image_sha256", "width", "height", "metadata", "abnormal",
  "phantom", "findings", "regions", "sentences", "maps", NULL };
static const char * const top_members[] = {
  "format", "version", "name", "description", "models", "instances", NULL };
static const char * const model_members[] = { "description", "computed_by", NULL };
static const char * const label_contexts[] = { "positive", "negative", "uncertain", NULL };
static const char * const sentence_kinds[] = { "report", "custom", "class", NULL };

static HsLabel *
read_label (HsManifestReader *r, HjNode *node, const HsJsonPath *path)
{
  HjNode *object;
  gboolean bad = FALSE;
  g_autofree char *condition = NULL;
  g_autofree char *context = NULL;
  g_auto(GStrv) locations = NULL;

  if (!expect (r, node, path, node->type == HJ_OBJECT, N_("a label object")))
    return NULL;
  object = node;
  check_members (r, object, path, label_members);
  condition = get_string (r, object, path, "condition", TRUE, TRUE, &bad);
  context = get_string (r, object, path, "context", FALSE, TRUE, &bad);
  if (context != NULL && !g_strv_contains (label_contexts, context))
    {
      PATH_KEY (context_path, path, "context");
      PROBLEM (r, &context_path, HS_DATASET_ERROR_INVALID,
               _("context \"%s\" is not one of positive, negative, uncertain"), context);
      bad = TRUE;
    }
  locations = get_string_list (r, object, path, "locations", TRUE, &bad);
  if (bad || r->stop)
    return NULL;
  return hs_label_new (condition, context, (const char * const *) locations);
}

/* Appends the labels of array member `key` to `labels`; FALSE when any was bad. */
static gboolean
read_labels (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
             const char *key, GPtrArray *labels)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  HjNode *array;
  gboolean ok = TRUE;

  if (node == NULL)
    return TRUE;
  if (!expect (r, node, &path, node->type == HJ_ARRAY, N_("an array of labels")))
    return FALSE;
  array = node;
  for (guint i = 0; i < hj_length (array) && !r->stop; i++)
    {
      PATH_INDEX (item_path, &path, i);
      HsLabel *label = read_label (r, hj_element (array, i), &item_path);

      if (label != NULL)
        g_ptr_array_add (labels, label);
      else
        ok = FALSE;
    }
  return ok;
}

static gboolean
read_box (HsManifestReader *r, HjNode *node, const HsJsonPath *path, HsBox *box)
{
  HjNode *array;
  double v[4];
  gboolean ok = TRUE;

  if (!expect (r, node, path, node->type == HJ_ARRAY, N_("a box [x1, y1, x2, y2]")))
    return FALSE;
  array = node;
  if (hj_length (array) != 4)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID,
               _("a box has 4 numbers [x1, y1, x2, y2], found %u"), hj_length (array));
      return FALSE;
    }
  for (guint i = 0; i < 4 && !r->stop; i++)
    {
      PATH_INDEX (item_path, path, i);
      if (!get_number (r, hj_element (array, i), &item_path, &v[i]))
        ok = FALSE;
    }
  if (!ok || r->stop)
    return FALSE;
  box->x1 = v[0];
  box->y1 = v[1];
  box->x2 = v[2];
  box->y2 = v[3];
  return TRUE;
}

static HsRegion *
read_region (HsManifestReader *r, const char *name, HjNode *node, const HsJsonPath *path)
{
  HjNode *object;
  HjNode *boxes;
  gboolean bad = FALSE;
  g_autoptr(GArray) box_array = g_array_new (FALSE, FALSE, sizeof (HsBox));
  g_autofree char *mask = NULL;
  HsRegion *region;
  HjNode *extent_node;
  g_autofree HsFileRecord *mask_record = NULL;
  HsBox extent = { 0, 0, 0, 0 };
  gboolean has_extent = FALSE;

  if (name[0] == '\0')
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID, _("a region name must not be empty"));
      bad = TRUE;
    }
  if (!expect (r, node, path, node->type == HJ_OBJECT, N_("a region object")))
    return NULL;
  object = node;
  check_members (r, object, path, region_members);

  boxes = hj_member (object, "boxes");
  if (boxes != NULL)
    {
      PATH_KEY (boxes_path, path, "boxes");

      if (expect (r, boxes, &boxes_path, boxes->type == HJ_ARRAY, N_("an array of boxes")))
        {
          HjNode *array = boxes;

          for (guint i = 0; i < hj_length (array) && !r->stop; i++)
            {
              PATH_INDEX (box_path, &boxes_path, i);
              HsBox box;

              if (!read_box (r, hj_element (array, i), &box_path, &box))
                bad = TRUE;
              else if (box.x2 <= box.x1 || box.y2 <= box.y1)
                {
                  /* The same words as validate: an inverted box has no area. */
                  PROBLEM (r, &box_path, HS_DATASET_ERROR_INVALID,
                           _("empty box [%g, %g, %g, %g]: needs x1 < x2 and y1 < y2"),
                           box.x1, box.y1, box.x2, box.y2);
                  bad = TRUE;
                }
              else
                g_array_append_val (box_array, box);
            }
        }
      else
        bad = TRUE;
    }
  mask = get_path (r, object, path, "mask", FALSE, &bad);
  mask_record = get_record (r, object, path, "mask_bytes", "mask_sha256", &bad);
  if (mask_record != NULL && mask == NULL && !bad)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID,
               "\"mask_bytes\" and \"mask_sha256\" describe a mask, but the region has none");
      bad = TRUE;
    }
  if (r->stop)
    return NULL;
  extent_node = hj_member (object, "extent");
  if (extent_node != NULL)
    {
      PATH_KEY (extent_path, path, "extent");

      if (!read_box (r, extent_node, &extent_path, &extent))
        bad = TRUE;
      else if (mask == NULL)
        {
          PROBLEM (r, &extent_path, HS_DATASET_ERROR_INVALID,
                   _("an extent describes a mask, but the region has none"));
          bad = TRUE;
        }
      else if (!(extent.x1 == 0 && extent.y1 == 0 && extent.x2 == 0 && extent.y2 == 0) &&
               (extent.x2 <= extent.x1 || extent.y2 <= extent.y1 || extent.x1 < 0 || extent.y1 < 0))
        {
          PROBLEM (r, &extent_path, HS_DATASET_ERROR_INVALID,
                   _("extent [%g, %g, %g, %g] needs 0 <= x1 < x2 and 0 <= y1 < y2 "
                   "([0, 0, 0, 0] for an empty mask)"), extent.x1, extent.y1, extent.x2, extent.y2);
          bad = TRUE;
        }
      else
        has_extent = TRUE;
      if (r->stop)
        return NULL;
    }
  if (!bad && box_array->len == 0 && mask == NULL)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID, _("a region needs at least one box or a mask"));
      bad = TRUE;
    }
  if (bad || r->stop)
    return NULL;

  region = hs_region_new (name);
  g_array_append_vals (region->boxes, box_array->data, box_array->len);
  region->mask = g_steal_pointer (&mask);
  region->mask_record = g_steal_pointer (&mask_record);
  if (has_extent)
    hs_region_set_extent (region, &extent);
  return region;
}

static HsSentence *
read_sentence (HsManifestReader *r, HjNode *node, const HsJsonPath *path,
               GHashTable *region_names, GHashTable *sentence_ids)
{
  HjNode *object;
  gboolean bad = FALSE;
  g_autofree char *id = NULL;
  g_autofree char *text = NULL;
  g_autofree char *kind = NULL;
  g_auto(GStrv) targets = NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_label_free);
  HsSentence *sentence;

  if (!expect (r, node, path, node->type == HJ_OBJECT, N_("a sentence object")))
    return NULL;
  object = node;
  check_members (r, object, path, sentence_members);

  id = get_string (r, object, path, "id", TRUE, TRUE, &bad);
  if (id != NULL && !g_hash_table_add (sentence_ids, g_strdup (id)))
    {
      PATH_KEY (id_path, path, "id");
      PROBLEM (r, &id_path, HS_DATASET_ERROR_INVALID, _("duplicate sentence id \"%s\""), id);
      bad = TRUE;
    }
  text = get_string (r, object, path, "text", TRUE, FALSE, &bad);
  kind = get_string (r, object, path, "kind", FALSE, TRUE, &bad);
  if (kind != NULL && !g_strv_contains (sentence_kinds, kind))
    {
      PATH_KEY (kind_path, path, "kind");
      PROBLEM (r, &kind_path, HS_DATASET_ERROR_INVALID,
               _("kind \"%s\" is not one of report, custom, class"), kind);
      bad = TRUE;
    }
  targets = get_string_list (r, object, path, "targets", TRUE, &bad);
  if (targets != NULL)
    {
      PATH_KEY (targets_path, path, "targets");
      /* A set past a few targets: one sentence may name thousands. */
      g_autoptr(GHashTable) seen = g_strv_length (targets) > 16
                                   ? g_hash_table_new (g_str_hash, g_str_equal) : NULL;

      for (guint i = 0; targets[i] != NULL && !r->stop; i++)
        {
          PATH_INDEX (target_path, &targets_path, i);
          gboolean repeated = FALSE;

          if (!g_hash_table_contains (region_names, targets[i]))
            {
              PROBLEM (r, &target_path, HS_DATASET_ERROR_INVALID,
                       _("unknown region \"%s\" (not a key of this instance's \"regions\")"),
                       targets[i]);
              bad = TRUE;
            }
          if (seen != NULL)
            repeated = !g_hash_table_add (seen, targets[i]);
          else
            for (guint j = 0; j < i && !repeated; j++)
              repeated = strcmp (targets[i], targets[j]) == 0;
          if (repeated)
            {
              PROBLEM (r, &target_path, HS_DATASET_ERROR_INVALID,
                       _("region \"%s\" is listed twice"), targets[i]);
              bad = TRUE;
            }
        }
    }
  if (!read_labels (r, object, path, "labels", labels))
    bad = TRUE;
  if (bad || r->stop)
    return NULL;

  sentence = hs_sentence_new (id, text);
  if (kind != NULL)
    hs_sentence_set_kind (sentence, kind);
  g_strfreev (sentence->targets);
  sentence->targets = g_steal_pointer (&targets);
  g_ptr_array_extend_and_steal (sentence->labels, g_steal_pointer (&labels));
  return sentence;
}

static gboolean
has_control_char (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      return TRUE;
  return FALSE;
}

static void
free_tags (HsTagWeight *tags, guint n)
{
  for (guint i = 0; i < n; i++)
    g_free (tags[i].tag);
  g_free (tags);
}

/* One {tag, weight} of a "tag_attention" list into *out; FALSE when wrong
 * (reported). */
static gboolean
read_tag_weight (HsManifestReader *r, HjNode *node, const HsJsonPath *path, HsTagWeight *out)
{
  gboolean bad = FALSE;
  HjNode *weight_node;
  g_autofree char *tag = NULL;

  if (!expect (r, node, path, node->type == HJ_OBJECT, N_("a {tag, weight} object")))
    return FALSE;
  check_members (r, node, path, tag_members);
  tag = get_string (r, node, path, "tag", TRUE, TRUE, &bad);
  if (tag != NULL)
    {
      PATH_KEY (tag_path, path, "tag");

      /* drawn as a label beside a bar: one short line */
      if (g_utf8_strlen (tag, -1) > HS_MAP_TAG_MAX_CHARS || has_control_char (tag))
        {
          PROBLEM (r, &tag_path, HS_DATASET_ERROR_INVALID,
                   _("a tag must be one line of at most %d characters"), HS_MAP_TAG_MAX_CHARS);
          bad = TRUE;
        }
    }
  weight_node = hj_member (node, "weight");
  if (weight_node == NULL)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID, _("missing required member \"%s\""), "weight");
      bad = TRUE;
    }
  else
    {
      PATH_KEY (weight_path, path, "weight");

      if (!get_number (r, weight_node, &weight_path, &out->weight))
        bad = TRUE;
      else if (out->weight < 0)
        {
          PROBLEM (r, &weight_path, HS_DATASET_ERROR_INVALID,
                   _("a tag weight must not be negative"));
          bad = TRUE;
        }
    }
  if (bad)
    return FALSE;
  out->tag = g_steal_pointer (&tag);
  return TRUE;
}

/* The optional "tag_attention" of a map: a distribution over tags (at most
 * HS_MAP_TAGS_MAX, distinct names) whose weights sum to 1 within
 * HS_MAP_TAG_SUM_TOLERANCE; kept as written.  Returns the tag count (0 when
 * absent) and the array in *out; sets *bad when wrong (reported). */
static guint
read_tag_attention (HsManifestReader *r, HjNode *object, const HsJsonPath *parent,
                    HsTagWeight **out, gboolean *bad)
{
  PATH_KEY (path, parent, "tag_attention");
  HjNode *array = hj_member (object, "tag_attention");
  g_autoptr(GHashTable) seen = NULL;
  HsTagWeight *tags;
  gboolean my_bad = FALSE;
  double sum = 0;
  guint n;

  *out = NULL;
  if (array == NULL)
    return 0;
  if (!expect (r, array, &path, array->type == HJ_ARRAY, N_("an array of {tag, weight} objects")))
    {
      *bad = TRUE;
      return 0;
    }
  n = hj_length (array);
  if (n == 0 || n > HS_MAP_TAGS_MAX)
    {
      PROBLEM (r, &path, HS_DATASET_ERROR_INVALID,
               _("%u tags (a tag attention has 1 to %d tags)"), n, HS_MAP_TAGS_MAX);
      *bad = TRUE;
      return 0;
    }
  tags = g_new0 (HsTagWeight, n);
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < n && !r->stop; i++)
    {
      PATH_INDEX (item_path, &path, i);

      if (!read_tag_weight (r, hj_element (array, i), &item_path, &tags[i]))
        {
          my_bad = TRUE;
          continue;
        }
      sum += tags[i].weight;
      if (!g_hash_table_add (seen, tags[i].tag))
        {
          PATH_KEY (tag_path, &item_path, "tag");
          PROBLEM (r, &tag_path, HS_DATASET_ERROR_INVALID,
                   _("tag \"%s\" is listed twice"), tags[i].tag);
          my_bad = TRUE;
        }
    }
  if (!my_bad && !r->stop && fabs (sum - 1.0) > HS_MAP_TAG_SUM_TOLERANCE)
    {
      PROBLEM (r, &path, HS_DATASET_ERROR_INVALID,
               _("the tag weights sum to %g, not 1 (within %g)"), sum, HS_MAP_TAG_SUM_TOLERANCE);
      my_bad = TRUE;
    }
  if (my_bad || r->stop)
    {
      free_tags (tags, n);
      *bad = TRUE;
      return 0;
    }
  *out = tags;
  return n;
}

static HsMapRef *
read_map (HsManifestReader *r, HjNode *node, const HsJsonPath *path,
          GHashTable *sentence_ids, GHashTable *map_keys)
{
  HjNode *object;
  HjNode *no_attn_node;
  gboolean bad = FALSE;
  g_autofree char *model = NULL;
  g_autofree char *query = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *quantity = NULL;
  g_autofree char *file = NULL;
  g_autofree HsFileRecord *file_record = NULL;
  g_auto(GStrv) tokens = NULL;
  double no_attn = NAN;
  HsTagWeight *tags = NULL;
  guint n_tags;
  HsMapRef *ref;

  if (!expect (r, node, path, node->type == HJ_OBJECT, N_("a map object")))
    return NULL;
  object = node;
  check_members (r, object, path, map_members);

  model = get_string (r, object, path, "model", TRUE, TRUE, &bad);
  query = get_string (r, object, path, "query", FALSE, TRUE, &bad);
  prompt = get_string (r, object, path, "prompt", FALSE, FALSE, &bad);
  quantity = get_string (r, object, path, "quantity", FALSE, TRUE, &bad);
  if (quantity != NULL && g_utf8_strlen (quantity, -1) > HS_MAP_QUANTITY_MAX_CHARS)
    {
      PATH_KEY (quantity_path, path, "quantity");
      /* a colour-bar title, drawn along the bar: a name, not a paragraph */
      PROBLEM (r, &quantity_path, HS_DATASET_ERROR_INVALID,
               _("a quantity of more than %d characters (it titles a colour bar)"),
               HS_MAP_QUANTITY_MAX_CHARS);
      bad = TRUE;
    }
  file = get_path (r, object, path, "file", TRUE, &bad);
  file_record = get_record (r, object, path, "file_bytes", "file_sha256", &bad);
  if ((hj_member (object, "tokens") != NULL))
    {
      tokens = get_string_list (r, object, path, "tokens", FALSE, &bad);
      if (tokens != NULL && g_strv_length (tokens) > hs_limits_get ()->max_tokens)
        {
          PATH_KEY (tokens_path, path, "tokens");
          PROBLEM (r, &tokens_path, HS_DATASET_ERROR_TOO_LARGE,
                   _("%u tokens exceed the limit of %" PRIu64),
                   g_strv_length (tokens), hs_limits_get ()->max_tokens);
          bad = TRUE;
        }
    }
  no_attn_node = hj_member (object, "no_attn");
  if (no_attn_node != NULL)
    {
      PATH_KEY (no_attn_path, path, "no_attn");

      if (!get_number (r, no_attn_node, &no_attn_path, &no_attn))
        bad = TRUE;
    }
  n_tags = read_tag_attention (r, object, path, &tags, &bad);
  if (r->stop)
    {
      free_tags (tags, n_tags);
      return NULL;
    }

  if (query == NULL && prompt == NULL && !bad)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID,
               _("a map needs a \"query\" (sentence id) or a \"prompt\" (free text)"));
      bad = TRUE;
    }
  if (query != NULL && !g_hash_table_contains (sentence_ids, query))
    {
      PATH_KEY (query_path, path, "query");
      PROBLEM (r, &query_path, HS_DATASET_ERROR_INVALID,
               _("unknown sentence \"%s\" (not an id in this instance's \"sentences\")"), query);
      /* Not structural: the validator still checks the file. */
    }
  if (model != NULL && (query != NULL || prompt != NULL))
    {
      /* One map per (model, query), or per (model, prompt) for free prompts. */
      char *key = query != NULL ? g_strdup_printf ("q\x1f%s\x1f%s", model, query)
                                : g_strdup_printf ("p\x1f%s\x1f%s", model, prompt);

      if (!g_hash_table_add (map_keys, key))
        {
          PROBLEM (r, path, HS_DATASET_ERROR_INVALID,
                   query != NULL ? _("a second map for model \"%s\" and query \"%s\"")
                                 : _("a second map for model \"%s\" and prompt \"%s\""),
                   model, query != NULL ? query : prompt);
        }
    }
  if (bad || r->stop)
    {
      free_tags (tags, n_tags);
      return NULL;
    }

  ref = hs_map_ref_new (model, query, file);
  ref->tags = tags;
  ref->n_tags = n_tags;
  ref->file_record = g_steal_pointer (&file_record);
  ref->prompt = g_steal_pointer (&prompt);
  ref->quantity = g_steal_pointer (&quantity);
  ref->tokens = g_steal_pointer (&tokens);
  ref->no_attn = no_attn;
  return ref;
}

static gboolean
any_positive (GPtrArray *labels)
{
  for (guint i = 0; i < labels->len; i++)
    {
      HsLabel *label = g_ptr_array_index (labels, i);
      if (g_strcmp0 (label->context, "positive") == 0)
        return TRUE;
    }
  return FALSE;
}

static void
compact_labels (GPtrArray *labels)
{
  for (guint i = 0; i < labels->len; i++)
    {
      HsLabel *label = g_ptr_array_index (labels, i);

      hs_dataset_intern_in_place (&label->condition);
      hs_dataset_intern_in_place (&label->context);
      for (char **p = label->locations; p != NULL && *p != NULL; p++)
        hs_dataset_intern_in_place (p);
    }
}

/* Names that repeat across the instances of a dataset (regions, labels,
 * kinds, sentence and model ids, targets, tokens) become shared interned
 * copies; ids, texts, paths and prompts stay the instance's own. */
static void
compact_instance (HsInstance *instance)
{
  compact_labels (instance->findings);
  for (guint i = 0; i < instance->regions->len; i++)
    hs_dataset_intern_in_place (&((HsRegion *) g_ptr_array_index (instance->regions, i))->name);
  for (guint i = 0; i < instance->sentences->len; i++)
    {
      HsSentence *sentence = g_ptr_array_index (instance->sentences, i);

      hs_dataset_intern_in_place (&sentence->id);
      hs_dataset_intern_in_place (&sentence->kind);
      for (char **p = sentence->targets; p != NULL && *p != NULL; p++)
        hs_dataset_intern_in_place (p);
      compact_labels (sentence->labels);
    }
  for (guint i = 0; i < instance->maps->len; i++)
    {
      HsMapRef *ref = g_ptr_array_index (instance->maps, i);

      hs_dataset_intern_in_place (&ref->model);
      hs_dataset_intern_in_place (&ref->query);
      for (char **p = ref->tokens; p != NULL && *p != NULL; p++)
        hs_dataset_intern_in_place (p);
    }
}

HsInstance *
hs_manifest_read_instance (HsManifestReader *r, HjNode *node, const HsJsonPath *path,
                           GHashTable *instance_ids)
{
  HjNode *object;
  HjNode *member;
  gboolean bad = FALSE;
  g_autofree char *id = NULL;
  g_autofree char *image = NULL;
  g_autofree HsFileRecord *image_record = NULL;
  g_autoptr(HsInstance) instance = NULL;
  g_autoptr(GHashTable) region_names = NULL;
  g_autoptr(GHashTable) sentence_ids = NULL;
  g_autoptr(GHashTable) map_keys = NULL;
  gboolean has_abnormal = FALSE;

  if (!expect (r, node, path, node->type == HJ_OBJECT, N_("an instance object")))
    return NULL;
  object = node;
  check_members (r, object, path, instance_members);

  id = get_string (r, object, path, "id", TRUE, TRUE, &bad);
  if (id != NULL && g_hash_table_contains (instance_ids, id))
    {
      PATH_KEY (id_path, path, "id");
      PROBLEM (r, &id_path, HS_DATASET_ERROR_INVALID, _("duplicate instance id \"%s\""), id);
      bad = TRUE;
    }
  else if (id != NULL)
    g_hash_table_add (instance_ids, g_strdup (id));
  image = get_path (r, object, path, "image", TRUE, &bad);
  image_record = get_record (r, object, path, "image_bytes", "image_sha256", &bad);
  if (r->stop)
    return NULL;

  instance = hs_instance_new (id, image);
  instance->image_record = g_steal_pointer (&image_record);
  instance->width = get_dimension (r, object, path, "width", &bad);
  instance->height = get_dimension (r, object, path, "height", &bad);
  if ((instance->width == 0) != (instance->height == 0) && !bad)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_INVALID, _("\"width\" and \"height\" go together"));
      bad = TRUE;
    }
  if (instance->width > 0 && instance->height > 0 &&
      (guint64) instance->width * instance->height > hs_limits_get ()->max_image_pixels)
    {
      PROBLEM (r, path, HS_DATASET_ERROR_TOO_LARGE,
               _("image size %u × %u exceeds the limit of %" PRIu64 " pixels"),
               instance->width, instance->height, hs_limits_get ()->max_image_pixels);
      bad = TRUE;
    }

  r->image_width = r->image_height = 0;
  if (r->check_files && image != NULL && !r->stop)
    {
      PATH_KEY (image_path, path, "image");
      hs_validate_check_image (r, instance, &image_path);
    }

  member = hj_member (object, "metadata");
  if (member != NULL)
    {
      PATH_KEY (meta_path, path, "metadata");

      if (expect (r, member, &meta_path, member->type == HJ_OBJECT, N_("an object of strings")))
        {
          HjIter iter;
          const char *key;
          HjNode *value;

          hj_iter_init (&iter, member);
          while (!r->stop && hj_iter_next (&iter, &key, &value))
            {
              PATH_KEY (value_path, &meta_path, key);

              /* Keys repeat across instances: interned (see compact_instance). */
              if (expect (r, value, &value_path, node_is_string (value), N_("a string")))
                g_hash_table_insert (instance->metadata, (char *) g_intern_string (key),
                                     g_strdup (value->v.s));
              else
                bad = TRUE;
            }
        }
      else
        bad = TRUE;
    }

  has_abnormal = get_bool (r, object, path, "abnormal", &instance->abnormal, &bad);
  get_bool (r, object, path, "phantom", &instance->phantom, &bad);

  if (!read_labels (r, object, path, "findings", instance->findings))
    bad = TRUE;
  if (!has_abnormal)
    instance->abnormal = any_positive (instance->findings);

  region_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  member = hj_member (object, "regions");
  if (member != NULL && !r->stop)
    {
      PATH_KEY (regions_path, path, "regions");

      if (expect (r, member, &regions_path, (member->type == HJ_OBJECT),
                  N_("an object of named regions")))
        {
          HjIter iter;
          const char *name;
          HjNode *value;

          hj_iter_init (&iter, member);
          while (!r->stop && hj_iter_next (&iter, &name, &value))
            {
              PATH_KEY (region_path, &regions_path, name);
              HsRegion *region;

              g_hash_table_add (region_names, g_strdup (name));
              region = read_region (r, name, value, &region_path);
              if (region == NULL)
                {
                  bad = TRUE;
                  continue;
                }
              if (r->check_files && !r->stop)
                hs_validate_check_region (r, instance, region, &region_path);
              g_ptr_array_add (instance->regions, region);
            }
        }
      else
        bad = TRUE;
    }

  sentence_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  member = hj_member (object, "sentences");
  if (member != NULL && !r->stop)
    {
      PATH_KEY (sentences_path, path, "sentences");

      if (expect (r, member, &sentences_path, (member->type == HJ_ARRAY),
                  N_("an array of sentences")))
        {
          HjNode *array = member;

          for (guint i = 0; i < hj_length (array) && !r->stop; i++)
            {
              PATH_INDEX (sentence_path, &sentences_path, i);
              HsSentence *sentence = read_sentence (r, hj_element (array, i),
                                                    &sentence_path, region_names, sentence_ids);
              if (sentence != NULL)
                g_ptr_array_add (instance->sentences, sentence);
              else
                bad = TRUE;
            }
        }
      else
        bad = TRUE;
    }

  map_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  member = hj_member (object, "maps");
  if (member != NULL && !r->stop)
    {
      PATH_KEY (maps_path, path, "maps");

      if (expect (r, member, &maps_path, member->type == HJ_ARRAY, N_("an array of maps")))
        {
          HjNode *array = member;

          for (guint i = 0; i < hj_length (array) && !r->stop; i++)
            {
              PATH_INDEX (map_path, &maps_path, i);
              HsMapRef *ref = read_map (r, hj_element (array, i), &map_path,
                                        sentence_ids, map_keys);
              if (ref == NULL)
                {
                  bad = TRUE;
                  continue;
                }
              if (r->check_files && !r->stop)
                hs_validate_check_map (r, instance, ref, &map_path);
              g_ptr_array_add (instance->maps, ref);
            }
        }
      else
        bad = TRUE;
    }

  if (bad || r->stop || id == NULL || image == NULL)
    return NULL;
  compact_instance (instance);
  return g_steal_pointer (&instance);
}

void
hs_manifest_read_top_fields (HsManifestReader *r, HjNode *object, gboolean whole)
{
  HsDataset *dataset = r->dataset;
  HjNode *member;
  gboolean bad = FALSE;
  g_autofree char *format = NULL;

  format = get_string (r, object, NULL, "format", whole, FALSE, &bad);
  if (format != NULL && strcmp (format, HS_MANIFEST_FORMAT_NAME) != 0)
    {
      PATH_KEY (format_path, NULL, "format");
      PROBLEM (r, &format_path, HS_DATASET_ERROR_INVALID,
               _("format \"%s\" is not \"%s\""), format, HS_MANIFEST_FORMAT_NAME);
    }
  if (r->stop)
    return;

  member = hj_member (object, "version");
  if (member == NULL)
    {
      if (whole)
        PROBLEM (r, NULL, HS_DATASET_ERROR_INVALID, _("missing required member \"version\""));
    }
  else
    {
      PATH_KEY (version_path, NULL, "version");

      if (expect (r, member, &version_path,
                  member->type == HJ_INT,
                  N_("an integer")))
        {
          gint64 version = member->v.i;

          if (version > HS_DATASET_FORMAT_VERSION)
            PROBLEM (r, &version_path, HS_DATASET_ERROR_INVALID,
                     _("version %" PRId64 " was written by a newer Heatscope; "
                     "this one reads version %d"), version, HS_DATASET_FORMAT_VERSION);
          else if (version < 1)
            PROBLEM (r, &version_path, HS_DATASET_ERROR_INVALID,
                     _("version %" PRId64 " is not a valid format version"), version);
        }
    }
  if (r->stop)
    return;

  check_members (r, object, NULL, top_members);
  if (whole || hj_member (object, "name") != NULL)
    g_atomic_pointer_set (&dataset->name, get_string (r, object, NULL, "name", FALSE, FALSE, &bad));
  if (whole || hj_member (object, "description") != NULL)
    g_atomic_pointer_set (&dataset->description,
                          get_string (r, object, NULL, "description", FALSE, FALSE, &bad));
  if (r->stop)
    return;

  member = hj_member (object, "models");
  if (member != NULL)
    {
      PATH_KEY (models_path, NULL, "models");

      if (expect (r, member, &models_path, member->type == HJ_OBJECT, N_("an object of models")))
        {
          HjIter iter;
          const char *name;
          HjNode *value;

          hj_iter_init (&iter, member);
          while (!r->stop && hj_iter_next (&iter, &name, &value))
            {
              PATH_KEY (model_path, &models_path, name);
              g_autofree char *description = NULL;
              g_autofree char *computed_by = NULL;

              if (name[0] == '\0')
                {
                  PROBLEM (r, &model_path, HS_DATASET_ERROR_INVALID,
                           _("a model name must not be empty"));
                  continue;
                }
              if (!expect (r, value, &model_path, value->type == HJ_OBJECT, N_("a model object")))
                continue;
              check_members (r, (value), &model_path, model_members);
              description = get_string (r, (value), &model_path,
                                        "description", FALSE, FALSE, &bad);
              hs_dataset_set_model_description (dataset, name, description);
              computed_by = get_string (r, (value), &model_path, "computed_by", FALSE, FALSE, &bad);
              if (computed_by != NULL)
                hs_dataset_set_model_computed_by (dataset, name, computed_by);
            }
        }
    }
}

void
hs_manifest_read_top (HsManifestReader *r, HjNode *root)
{
  HsDataset *dataset = r->dataset;
  HjNode *object;
  HjNode *member;

  if (!expect (r, root, NULL, root->type == HJ_OBJECT, N_("a heatscope-dataset object")))
    return;
  object = root;
  hs_manifest_read_top_fields (r, object, TRUE);
  if (r->stop)
    return;

  member = hj_member (object, "instances");
  if (member == NULL)
    {
      PROBLEM (r, NULL, HS_DATASET_ERROR_INVALID, _("missing required member \"instances\""));
      return;
    }
  {
    PATH_KEY (instances_path, NULL, "instances");
    g_autoptr(GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    HjNode *array;

    if (!expect (r, member, &instances_path, member->type == HJ_ARRAY, N_("an array of instances")))
      return;
    array = member;
    for (guint i = 0; i < hj_length (array) && !r->stop; i++)
      {
        PATH_INDEX (instance_path, &instances_path, i);
        HsInstance *instance = hs_manifest_read_instance (r, hj_element (array, i),
                                                          &instance_path, ids);
        if (instance != NULL)
          hs_dataset_add_instance (dataset, instance);
      }
  }
}
