/* hs-instance-list.c — the instance browser's rows, made on demand */
#include "hs-instance-item.h"
#include "hs-instance-list.h"

struct _HsInstanceList
{
  GObject    parent_instance;
  HsDataset *dataset;
  GPtrArray *items;      /* HsInstanceItem* or NULL until asked for; len = n_items */
};

static GType
hs_instance_list_get_item_type (GListModel *model)
{
  return HS_TYPE_INSTANCE_ITEM;
}

static guint
hs_instance_list_get_n_items (GListModel *model)
{
  return HS_INSTANCE_LIST (model)->items->len;
}

static gpointer
hs_instance_list_get_item (GListModel *model,
                           guint       position)
{
  HsInstanceList *self = HS_INSTANCE_LIST (model);

  if (position >= self->items->len)
    return NULL;
  if (g_ptr_array_index (self->items, position) == NULL)
    g_ptr_array_index (self->items, position) = hs_instance_item_new (self->dataset, position);
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
hs_instance_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = hs_instance_list_get_item_type;
  iface->get_n_items = hs_instance_list_get_n_items;
  iface->get_item = hs_instance_list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (HsInstanceList, hs_instance_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, hs_instance_list_model_init))

static void
item_unref0 (gpointer item)
{
  if (item != NULL)
    g_object_unref (item);
}

static void
hs_instance_list_finalize (GObject *object)
{
  HsInstanceList *self = HS_INSTANCE_LIST (object);

  g_ptr_array_unref (self->items);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  G_OBJECT_CLASS (hs_instance_list_parent_class)->finalize (object);
}

static void
hs_instance_list_class_init (HsInstanceListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hs_instance_list_finalize;
}

static void
hs_instance_list_init (HsInstanceList *self)
{
  self->items = g_ptr_array_new_with_free_func (item_unref0);
}

void
hs_instance_list_set_dataset (HsInstanceList *self,
                              HsDataset      *dataset)
{
  guint removed = self->items->len;

  if (dataset != NULL)
    hs_dataset_ref (dataset);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  self->dataset = dataset;
  g_ptr_array_set_size (self->items, 0);
  g_ptr_array_set_size (self->items, dataset != NULL ? hs_dataset_get_n_instances (dataset) : 0);
  if (removed > 0 || self->items->len > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, self->items->len);
}

gboolean
hs_instance_list_grow (HsInstanceList *self)
{
  guint before = self->items->len;
  guint now = self->dataset != NULL ? hs_dataset_get_n_instances (self->dataset) : 0;

  if (now <= before)
    return FALSE;
  g_ptr_array_set_size (self->items, now);
  g_list_model_items_changed (G_LIST_MODEL (self), before, 0, now - before);
  return TRUE;
}

HsInstanceList *
hs_instance_list_new (void)
{
  return g_object_new (HS_TYPE_INSTANCE_LIST, NULL);
}
