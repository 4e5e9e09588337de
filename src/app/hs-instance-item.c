/* hs-instance-item.c — one row of the instance browser */
#include <string.h>

#include "hs-instance-item.h"

struct _HsInstanceItem
{
  GObject    parent_instance;

  HsDataset *dataset;
  guint      index;
  guint      subsets;
  guint     *sentence_subsets;   /* per sentence, set with subsets_known */
  guint      n_sentences;
  gboolean   subsets_known;
  char     **folded;       /* casefolded id, then each sentence's text: built on first search */
};

G_DEFINE_FINAL_TYPE (HsInstanceItem, hs_instance_item, G_TYPE_OBJECT)

static void
hs_instance_item_finalize (GObject *object)
{
  HsInstanceItem *self = HS_INSTANCE_ITEM (object);

  g_clear_pointer (&self->dataset, hs_dataset_unref);
  g_free (self->sentence_subsets);
  g_strfreev (self->folded);
  G_OBJECT_CLASS (hs_instance_item_parent_class)->finalize (object);
}

static void
hs_instance_item_class_init (HsInstanceItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hs_instance_item_finalize;
}

static void
hs_instance_item_init (HsInstanceItem *self)
{
}

HsInstanceItem *
hs_instance_item_new (HsDataset *dataset, guint index)
{
  HsInstanceItem *self;

  g_return_val_if_fail (dataset != NULL, NULL);
  g_return_val_if_fail (index < hs_dataset_get_n_instances (dataset), NULL);

  self = g_object_new (HS_TYPE_INSTANCE_ITEM, NULL);
  self->dataset = hs_dataset_ref (dataset);
  self->index = index;
  return self;
}

static HsInstance *
get_instance (HsInstanceItem *self)
{
  return hs_dataset_get_instance (self->dataset, self->index);
}

guint
hs_instance_item_get_index (HsInstanceItem *self)
{
  g_return_val_if_fail (HS_IS_INSTANCE_ITEM (self), 0);
  return self->index;
}

const char *
hs_instance_item_get_id (HsInstanceItem *self)
{
  HsInstance *instance;

  g_return_val_if_fail (HS_IS_INSTANCE_ITEM (self), NULL);
  instance = get_instance (self);
  return instance != NULL && instance->id != NULL ? instance->id : "";
}

const char *
hs_instance_item_get_summary (HsInstanceItem *self)
{
  HsInstance *instance;

  g_return_val_if_fail (HS_IS_INSTANCE_ITEM (self), NULL);
  instance = get_instance (self);
  if (instance == NULL || instance->sentences == NULL)
    return "";
  for (guint i = 0; i < instance->sentences->len; i++)
    {
      HsSentence *s = g_ptr_array_index (instance->sentences, i);
      if (s->text != NULL && (s->kind == NULL || g_str_equal (s->kind, "report")))
        return s->text;
    }
  return "";
}

guint
hs_instance_item_get_subsets (HsInstanceItem *self)
{
  HsInstance *instance;
  guint subsets = 0, n;
  guint *each;

  g_return_val_if_fail (HS_IS_INSTANCE_ITEM (self), 0);
  if (self->subsets_known)
    return self->subsets;

  /* Computed lazily: only a subset filter needs it, and MDRB may be costly.
   * A worker computes it; stored once, so a reader never sees a partial
   * value (the browser reads it only after the worker is done). */
  instance = get_instance (self);
  n = instance != NULL && instance->sentences != NULL ? instance->sentences->len : 0;
  each = g_new0 (guint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      each[i] = hs_dataset_get_subsets (self->dataset, instance, g_ptr_array_index (instance->sentences, i));
      subsets |= each[i];
    }
  self->sentence_subsets = each;
  self->n_sentences = n;
  self->subsets = subsets;
  self->subsets_known = TRUE;
  return subsets;
}

static gboolean
sentence_has_targets (const HsSentence *sentence)
{
  return sentence->targets != NULL && sentence->targets[0] != NULL;
}

gboolean
hs_instance_item_get_annotated (HsInstanceItem *self)
{
  HsInstance *instance;

  g_return_val_if_fail (HS_IS_INSTANCE_ITEM (self), FALSE);
  instance = get_instance (self);
  if (instance == NULL || instance->sentences == NULL)
    return FALSE;
  for (guint i = 0; i < instance->sentences->len; i++)
    if (sentence_has_targets (g_ptr_array_index (instance->sentences, i)))
      return TRUE;
  return FALSE;
}

/* [0] the id, [1 + i] sentence i's text, casefolded once. */
static char **
get_folded (HsInstanceItem *self)
{
  if (self->folded == NULL)
    {
      HsInstance *instance = get_instance (self);
      guint n = instance != NULL && instance->sentences != NULL ? instance->sentences->len : 0;
      char **folded = g_new0 (char *, n + 2);

      folded[0] = g_utf8_casefold (hs_instance_item_get_id (self), -1);
      for (guint i = 0; i < n; i++)
        {
          HsSentence *s = g_ptr_array_index (instance->sentences, i);
          folded[1 + i] = g_utf8_casefold (s->text != NULL ? s->text : "", -1);
        }
      self->folded = folded;
    }
  return self->folded;
}

gboolean
hs_instance_item_matches (HsInstanceItem *self, const char *folded_needle)
{
  g_return_val_if_fail (HS_IS_INSTANCE_ITEM (self), FALSE);

  if (folded_needle == NULL || *folded_needle == '\0')
    return TRUE;
  for (char **text = get_folded (self); *text != NULL; text++)
    if (strstr (*text, folded_needle) != NULL)
      return TRUE;
  return FALSE;
}

int
hs_instance_item_match (HsInstanceItem *self, const HsInstanceFilter *filter)
{
  HsInstance *instance;
  gboolean search = filter->folded_search != NULL && *filter->folded_search != '\0';
  gboolean id_found = FALSE, per_sentence;
  char **folded = NULL;
  guint n;

  g_return_val_if_fail (HS_IS_INSTANCE_ITEM (self), HS_INSTANCE_ITEM_NO_MATCH);

  instance = get_instance (self);
  n = instance != NULL && instance->sentences != NULL ? instance->sentences->len : 0;
  if (search)
    {
      folded = get_folded (self);
      id_found = strstr (folded[0], filter->folded_search) != NULL;
    }
  per_sentence = filter->subsets != 0 || filter->annotated || filter->wrong_side != NULL ||
                 (search && !id_found);
  if (!per_sentence)
    return HS_INSTANCE_ITEM_ANY_SENTENCE;
  /* The first sentence that passes every filter: the instance is listed
   * for it, and it is the sentence the window opens. */
  for (guint i = 0; i < n; i++)
    {
      HsSentence *sentence = g_ptr_array_index (instance->sentences, i);

      if (filter->subsets != 0 &&
          (!self->subsets_known || i >= self->n_sentences ||
           (self->sentence_subsets[i] & filter->subsets) != filter->subsets))
        continue;
      if (filter->annotated && !sentence_has_targets (sentence))
        continue;
      if (filter->wrong_side != NULL &&
          !hs_wrong_side_result_contains (filter->wrong_side, instance->id, sentence->id))
        continue;
      if (search && !id_found && strstr (folded[1 + i], filter->folded_search) == NULL)
        continue;
      return (int) i;
    }
  return HS_INSTANCE_ITEM_NO_MATCH;
}
