/* hs-instance-list.h — the instance browser's rows, made on demand
 *
 * A list model over the dataset's instances (HsInstanceItem) that makes a
 * row object only when something asks for it (the list view binds the few
 * rows on screen; a search or subset filter asks for all), so opening
 * 10 000 instances costs no 10 000 GObjects.  It grows while the dataset
 * loads.
 */
#pragma once

#include <gio/gio.h>
#include <heatscope/hs-dataset.h>

G_BEGIN_DECLS

#define HS_TYPE_INSTANCE_LIST (hs_instance_list_get_type ())
G_DECLARE_FINAL_TYPE (HsInstanceList, hs_instance_list, HS, INSTANCE_LIST, GObject)

HsInstanceList *hs_instance_list_new         (void);
/* Shows the instances the dataset has now (all of them, or the ones read
 * so far); NULL empties the list. */
void            hs_instance_list_set_dataset (HsInstanceList *self,
                                              HsDataset      *dataset);
/* Adds the rows of instances read since; TRUE when there were any. */
gboolean        hs_instance_list_grow        (HsInstanceList *self);

G_END_DECLS
