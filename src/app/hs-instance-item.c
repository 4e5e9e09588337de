/* hs-instance-item.c — one row of the instance browser */
#include <string.h>

#include "hs-instance-item.h"

struct _HsInstanceItem
{
  GObject    parent_instance;

  HsDataset *dataset;
  guint      index;
  guint      subsets;
  gboolean   subsets_known;
  char      *haystack;     /* casefolded id + sentences, built on first search */
};

G_DEFINE_FINAL_TYPE (HsInstanceItem, hs_instance_item, G_TYPE_OBJECT)

static void
hs_instance_item_finalize (GObject *object)
{
  HsInstanceItem *self = HS_INSTANCE_ITEM (object);

  g_clear_pointer (&self->dataset, hs_dataset_unref);
  g_free (self->haystack);
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
  guint subsets = 0;

  g_return_val_if_fail (HS_IS_INSTANCE_ITEM (self), 0);
  if (self->subsets_known)
    return self->subsets;

  /* Computed lazily: only a subset filter needs it, and MDRB may be costly.
   * A worker computes it; stored once, so a reader never sees a partial
   * value. */
  instance = get_instance (self);
  if (instance != NULL && instance->sentences != NULL)
    for (guint i = 0; i < instance->sentences->len; i++)
      subsets |= hs_dataset_get_subsets (self->dataset, instance,
                                         g_ptr_array_index (instance->sentences, i));
  self->subsets = subsets;
  self->subsets_known = TRUE;
  return subsets;
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
    {
      HsSentence *s = g_ptr_array_index (instance->sentences, i);
      if (s->targets != NULL && s->targets[0] != NULL)
        return TRUE;
    }
  return FALSE;
}

gboolean
hs_instance_item_matches (HsInstanceItem *self, const char *folded_needle)
{
  g_return_val_if_fail (HS_IS_INSTANCE_ITEM (self), FALSE);

  if (folded_needle == NULL || *folded_needle == '\0')
    return TRUE;

  if (self->haystack == NULL)
    {
      HsInstance *instance = get_instance (self);
      g_autoptr(GString) text = g_string_new (hs_instance_item_get_id (self));

      if (instance != NULL && instance->sentences != NULL)
        for (guint i = 0; i < instance->sentences->len; i++)
          {
            HsSentence *s = g_ptr_array_index (instance->sentences, i);
            g_string_append_c (text, '\n');
            if (s->text != NULL)
              g_string_append (text, s->text);
          }
      self->haystack = g_utf8_casefold (text->str, -1);
    }
  return strstr (self->haystack, folded_needle) != NULL;
}
