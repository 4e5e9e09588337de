/* hs-import-index.c — the importers' look-ups by name (hs-import-private.h)
 *
 * Rows name regions, sentences, findings, targets and locations that earlier
 * rows may have created.  Looking each up in its array would cost a pass over
 * all earlier ones per row: quadratic in the boxes of one image (issue 14).
 * The context keeps a hash index per (owner, kind) instead, of name →
 * position.  An index catches up with items appended to the owner's array
 * since it last looked, so importers may still append directly; a position
 * is checked against the name on every hit.  Owners (instances, sentences,
 * labels, regions) must live until the import ends, which they do: the
 * importers free them only after their last row. */
#include "hs-import-private.h"

typedef enum {
  INDEX_REGIONS,         /* instance->regions by name */
  INDEX_SENTENCES,       /* instance->sentences by id */
  INDEX_SENTENCE_TEXTS,  /* instance->sentences by text */
  INDEX_SENTENCE_SAFE,   /* instance->sentences by hs_import_safe_name (id) */
  INDEX_MAPS,            /* instance->maps by model and query */
  INDEX_FINDINGS,        /* instance->findings by condition */
  INDEX_TARGETS,         /* sentence->targets */
  INDEX_LOCATIONS,       /* label->locations */
  INDEX_LABELS,          /* sentence->labels by condition and context */
  INDEX_BOXES,           /* region->boxes by their four numbers */
  INDEX_SUFFIXES,        /* instance: base name → next number to try */
} IndexKind;

typedef struct {
  gconstpointer owner;
  IndexKind     kind;
  guint         n_indexed;   /* items of the owner's array in `names` */
  gpointer      strv;        /* targets/locations: the vector indexed */
  GHashTable   *names;       /* name → position + 1 (first wins) */
} NameIndex;

static guint
name_index_hash (gconstpointer key)
{
  const NameIndex *index = key;

  return g_direct_hash (index->owner) * 31 + index->kind;
}

static gboolean
name_index_equal (gconstpointer a, gconstpointer b)
{
  const NameIndex *x = a, *y = b;

  return x->owner == y->owner && x->kind == y->kind;
}

static void
name_index_free (gpointer data)
{
  NameIndex *index = data;

  g_hash_table_unref (index->names);
  g_free (index);
}

static char *
label_key (const char *condition, const char *context)
{
  return g_strdup_printf ("%s\x1f%s", condition ? condition : "", context ? context : "");
}

/* NULL means "past the end" below, so a missing name is a name of its own. */
static char *
some_name (const char *name)
{
  return g_strdup (name != NULL ? name : "\x1f");
}

static char *
map_key (const char *model, const char *query)
{
  /* Maps of free prompts (no query) never match a query. */
  return query != NULL ? g_strdup_printf ("q\x1f%s\x1f%s", model ? model : "", query)
                       : g_strdup ("p\x1f");
}

static char *
box_key (const HsBox *box)
{
  /* %a is exact: equal keys for equal doubles only. */
  return g_strdup_printf ("%a %a %a %a", box->x1, box->y1, box->x2, box->y2);
}

/* The name of item `i` of the owner's array (a new string), or NULL past its end. */
static char *
index_item_name (const NameIndex *index, guint i)
{
  switch (index->kind)
    {
    case INDEX_REGIONS:
      {
        GPtrArray *a = ((const HsInstance *) index->owner)->regions;
        return i < a->len ? some_name (((HsRegion *) g_ptr_array_index (a, i))->name) : NULL;
      }
    case INDEX_SENTENCES:
    case INDEX_SENTENCE_TEXTS:
    case INDEX_SENTENCE_SAFE:
      {
        GPtrArray *a = ((const HsInstance *) index->owner)->sentences;
        HsSentence *sentence;

        if (i >= a->len)
          return NULL;
        sentence = g_ptr_array_index (a, i);
        if (index->kind == INDEX_SENTENCE_SAFE)
          return sentence->id != NULL ? hs_import_safe_name (sentence->id) : some_name (NULL);
        return some_name (index->kind == INDEX_SENTENCES ? sentence->id : sentence->text);
      }
    case INDEX_MAPS:
      {
        GPtrArray *a = ((const HsInstance *) index->owner)->maps;
        HsMapRef *ref;

        if (i >= a->len)
          return NULL;
        ref = g_ptr_array_index (a, i);
        return map_key (ref->model, ref->query);
      }
    case INDEX_FINDINGS:
      {
        GPtrArray *a = ((const HsInstance *) index->owner)->findings;
        return i < a->len ? some_name (((HsLabel *) g_ptr_array_index (a, i))->condition) : NULL;
      }
    case INDEX_TARGETS:
    case INDEX_LOCATIONS:
      {
        char **strv = index->kind == INDEX_TARGETS ? ((const HsSentence *) index->owner)->targets
                                                   : ((const HsLabel *) index->owner)->locations;
        /* Items are only appended, so item i exists when items < i did. */
        return strv != NULL && strv[i] != NULL ? g_strdup (strv[i]) : NULL;
      }
    case INDEX_LABELS:
      {
        GPtrArray *a = ((const HsSentence *) index->owner)->labels;
        HsLabel *label;

        if (i >= a->len)
          return NULL;
        label = g_ptr_array_index (a, i);
        return label_key (label->condition, label->context);
      }
    case INDEX_BOXES:
      {
        GArray *a = ((const HsRegion *) index->owner)->boxes;
        return i < a->len ? box_key (&g_array_index (a, HsBox, i)) : NULL;
      }
    case INDEX_SUFFIXES:
    default:
      return NULL;
    }
}

/* Items in the owner's array; G_MAXUINT for vectors (only appended to). */
static guint
index_length (const NameIndex *index)
{
  const HsInstance *instance = index->owner;

  switch (index->kind)
    {
    case INDEX_REGIONS:        return instance->regions->len;
    case INDEX_SENTENCES:
    case INDEX_SENTENCE_TEXTS:
    case INDEX_SENTENCE_SAFE:  return instance->sentences->len;
    case INDEX_MAPS:           return instance->maps->len;
    case INDEX_FINDINGS:       return instance->findings->len;
    case INDEX_LABELS:         return ((const HsSentence *) index->owner)->labels->len;
    case INDEX_BOXES:          return ((const HsRegion *) index->owner)->boxes->len;
    default:                   return G_MAXUINT;
    }
}

/* The index of (owner, kind), caught up with the owner's array. */
static NameIndex *
name_index (HsImportContext *ctx, gconstpointer owner, IndexKind kind)
{
  NameIndex key = { owner, kind, 0, NULL, NULL };
  NameIndex *index;
  char *name;

  if (ctx->indexes == NULL)
    ctx->indexes = g_hash_table_new_full (name_index_hash, name_index_equal, name_index_free, NULL);
  index = g_hash_table_lookup (ctx->indexes, &key);
  if (index == NULL)
    {
      index = g_new0 (NameIndex, 1);
      index->owner = owner;
      index->kind = kind;
      index->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_add (ctx->indexes, index);
    }
  if (kind == INDEX_TARGETS || kind == INDEX_LOCATIONS)
    {
      /* A vector reallocated elsewhere may also have been replaced: index it anew. */
      char **strv = kind == INDEX_TARGETS ? ((const HsSentence *) owner)->targets
                                          : ((const HsLabel *) owner)->locations;

      if ((gpointer) strv != index->strv)
        {
          g_hash_table_remove_all (index->names);
          index->n_indexed = 0;
          index->strv = strv;
        }
    }
  else if (index->n_indexed > index_length (index))
    {
      /* Items were removed: positions moved. */
      g_hash_table_remove_all (index->names);
      index->n_indexed = 0;
    }
  while ((name = index_item_name (index, index->n_indexed)) != NULL)
    {
      index->n_indexed++;
      if (g_hash_table_contains (index->names, name))
        g_free (name);
      else
        g_hash_table_insert (index->names, name, GUINT_TO_POINTER (index->n_indexed));
    }
  return index;
}

/* Position of `name` in the owner's array, or -1. */
static int
name_index_find (HsImportContext *ctx, gconstpointer owner, IndexKind kind, const char *name)
{
  NameIndex *index = name_index (ctx, owner, kind);
  guint position = GPOINTER_TO_UINT (g_hash_table_lookup (index->names, name));
  g_autofree char *there = NULL;

  if (position == 0)
    return -1;
  there = index_item_name (index, position - 1);
  if (g_strcmp0 (there, name) == 0)
    return (int) position - 1;
  /* The array changed under the index (not only appended): start over. */
  g_hash_table_remove (ctx->indexes, index);
  return name_index_find (ctx, owner, kind, name);
}

HsRegion *
hs_import_find_region (HsImportContext *ctx, HsInstance *instance, const char *name)
{
  int i = name_index_find (ctx, instance, INDEX_REGIONS, name);

  return i < 0 ? NULL : g_ptr_array_index (instance->regions, i);
}

HsRegion *
hs_import_get_region (HsImportContext *ctx, HsInstance *instance, const char *name)
{
  HsRegion *region = hs_import_find_region (ctx, instance, name);

  if (region == NULL)
    {
      region = hs_region_new (name);
      hs_instance_add_region (instance, region);
    }
  return region;
}

char *
hs_import_unique_region_name (HsImportContext *ctx, HsInstance *instance, const char *base)
{
  NameIndex *suffixes = name_index (ctx, instance, INDEX_SUFFIXES);
  guint k = MAX (2, GPOINTER_TO_UINT (g_hash_table_lookup (suffixes->names, base)));
  char *name = g_strdup (base);

  if (hs_import_find_region (ctx, instance, name) != NULL)
    do
      {
        g_free (name);
        name = g_strdup_printf ("%s %u", base, k++);
      }
    while (hs_import_find_region (ctx, instance, name) != NULL);
  g_hash_table_insert (suffixes->names, g_strdup (base), GUINT_TO_POINTER (k));
  return name;
}

HsSentence *
hs_import_find_sentence (HsImportContext *ctx, HsInstance *instance, const char *id)
{
  int i = name_index_find (ctx, instance, INDEX_SENTENCES, id);

  return i < 0 ? NULL : g_ptr_array_index (instance->sentences, i);
}

HsSentence *
hs_import_find_sentence_by_safe_id (HsImportContext *ctx, HsInstance *instance, const char *safe_id)
{
  int i = name_index_find (ctx, instance, INDEX_SENTENCE_SAFE, safe_id);

  return i < 0 ? NULL : g_ptr_array_index (instance->sentences, i);
}

void
hs_import_set_map (HsImportContext *ctx, HsInstance *instance, HsMapRef *ref)
{
  g_autofree char *key = map_key (ref->model, ref->query);
  int i = ref->query != NULL ? name_index_find (ctx, instance, INDEX_MAPS, key) : -1;

  /* The old one goes and the new one comes last, as a newer file should. */
  if (i >= 0)
    g_ptr_array_remove_index (instance->maps, i);
  hs_instance_add_map (instance, ref);
}

HsSentence *
hs_import_find_sentence_by_text (HsImportContext *ctx, HsInstance *instance, const char *text)
{
  int i = name_index_find (ctx, instance, INDEX_SENTENCE_TEXTS, text);

  return i < 0 ? NULL : g_ptr_array_index (instance->sentences, i);
}

void
hs_import_add_class_sentence (HsImportContext *ctx, HsInstance *instance, const char *region)
{
  g_autofree char *id = g_strdup_printf ("class:%s", region);
  HsSentence *sentence;

  if (hs_import_find_sentence (ctx, instance, id) != NULL)
    return;
  sentence = hs_sentence_new (id, region);
  hs_sentence_set_kind (sentence, "class");
  hs_sentence_add_target (sentence, region);
  hs_instance_add_sentence (instance, sentence);
}

void
hs_import_add_finding (HsImportContext *ctx, HsInstance *instance, HsLabel *label)
{
  if (name_index_find (ctx, instance, INDEX_FINDINGS, label->condition) >= 0)
    hs_label_free (label);
  else
    hs_instance_add_finding (instance, label);
}

/* Appends `item` to the NULL-terminated vector at *strv, whose length the
 * index knows (hs_sentence_add_target counts it on every call).  The vector
 * grows by one like there, since others may reallocate it too; glibc's
 * realloc grows large blocks in place (mremap), not by copying. */
static void
strv_append (NameIndex *index, char ***strv, const char *item)
{
  guint n = index->n_indexed;

  *strv = g_renew (char *, *strv, n + 2);
  (*strv)[n] = g_strdup (item);
  (*strv)[n + 1] = NULL;
  index->strv = *strv;
}

void
hs_import_add_target (HsImportContext *ctx, HsSentence *sentence, const char *region)
{
  NameIndex *index;

  if (name_index_find (ctx, sentence, INDEX_TARGETS, region) >= 0)
    return;
  index = name_index (ctx, sentence, INDEX_TARGETS);
  strv_append (index, &sentence->targets, region);
}

HsLabel *
hs_import_find_label (HsImportContext *ctx, HsSentence *sentence, const char *condition,
                      const char *context)
{
  g_autofree char *key = label_key (condition, context);
  int i = name_index_find (ctx, sentence, INDEX_LABELS, key);

  return i < 0 ? NULL : g_ptr_array_index (sentence->labels, i);
}

void
hs_import_add_location (HsImportContext *ctx, HsLabel *label, const char *location)
{
  NameIndex *index;

  if (name_index_find (ctx, label, INDEX_LOCATIONS, location) >= 0)
    return;
  index = name_index (ctx, label, INDEX_LOCATIONS);
  strv_append (index, &label->locations, location);
}

gboolean
hs_import_add_box (HsImportContext *ctx, HsRegion *region, double x1, double y1, double x2, double y2)
{
  HsBox box = { x1, y1, x2, y2 };
  g_autofree char *key = box_key (&box);

  if (name_index_find (ctx, region, INDEX_BOXES, key) >= 0)
    return FALSE;
  hs_region_add_box (region, x1, y1, x2, y2);
  return TRUE;
}
