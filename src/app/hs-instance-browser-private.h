/* hs-instance-browser-private.h — what the files of HsInstanceBrowser share
 *
 *   hs-instance-browser.c           the object and template, the filters,
 *                                   the selection, streaming, the public calls
 *   hs-instance-browser-settings.c  the filters in the "subset-filter" key
 */
#pragma once

#include "hs-instance-browser.h"
#include "hs-instance-item.h"
#include "hs-instance-list.h"
#include "hs-wrong-side.h"

G_BEGIN_DECLS

struct _HsInstanceBrowser
{
  GtkWidget           parent_instance;

  GtkSearchEntry     *search_entry;
  GtkListView        *list_view;
  GtkLabel           *count_label;
  GtkLabel           *notice_label;

  HsDataset          *dataset;
  HsInstanceList     *store;
  gboolean            filtering;   /* the filter function is set (some filter is on) */
  gboolean            refiltering; /* selection changes are the filter's, not the user's */

  /* A newly opened dataset: the search and filters carried over from the
   * one before are checked once they apply to the whole of it. */
  char               *manifest_path;
  gboolean            check_carried;
  gboolean            carried_from_other;
  gboolean            resetting;   /* clearing them ourselves: the notice stays */

  /* The rest of a dataset opened with hs_dataset_open is read in a worker;
   * a timer adds its rows to the list as they come. */
  GCancellable       *load_cancellable;
  guint               grow_timeout;
  guint               launch_timeout;   /* the worker starts after the next frame... */
  GdkFrameClock      *launch_clock;     /* ...or after this timeout */
  gulong              launch_handler;
  GtkCustomFilter    *filter;
  GtkFilterListModel *filter_model;
  GtkSingleSelection *selection;

  char               *folded_search;
  gboolean            filter_abnormal;
  gboolean            filter_one_lung;
  gboolean            filter_mdrb;
  gboolean            filter_annotated;
  /* "Wrong side": instances whose map of `model` has wrong_side = 1,
   * scanned in a worker thread when the filter is on (NULL until known). */
  gboolean            filter_wrong_side;
  char               *model;
  HsWrongSideResult  *wrong_side;
  GCancellable       *wrong_side_cancellable;
  guint               last_emitted;

  /* Subset flags are computed once per dataset in a worker thread: for large
   * datasets they take a while (the one-lung test needs image sizes). */
  GCancellable       *subsets_cancellable;
  gboolean            subsets_ready;
  gboolean            busy;

  GSettings          *settings;    /* "subset-filter" follows the filters */
};

G_END_DECLS
