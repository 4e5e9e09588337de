/* hs-instance-browser.h — the searchable, filterable list of instances
 *
 * A GtkListView over a list model of the dataset's instances whose row
 * objects (HsInstanceItem) are made when asked for (scales to 10 000+
 * rows), a search entry matching ids and sentence text, and the subset
 * filters of McInerney et al. as boolean properties with actions
 * browser.filter-abnormal, browser.filter-one-lung, browser.filter-mdrb.
 * Emits "instance-selected" (guint dataset index) when the selection
 * changes.  An instance is listed when one of its sentences passes every
 * filter and the search (hs-instance-item.h): that is the sentence the
 * window opens (hs_instance_browser_get_matched_sentence).  A change of the
 * search or filters keeps the selected instance while it is listed.  The
 * search and filters carry over to a newly opened dataset only when they
 * still match something there (else they are cleared); a line under the
 * search says which.  Template: ui/hs-instance-browser.ui.
 *
 * A dataset that is not complete (hs_dataset_open) is read on in a worker:
 * rows are added as instances come (property "loading" is TRUE meanwhile),
 * subset and wrong-side filters wait for the whole dataset, and
 * "load-failed" (GError) reports a problem in a later instance (the rows
 * read before it stay). */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>

G_BEGIN_DECLS

#define HS_TYPE_INSTANCE_BROWSER (hs_instance_browser_get_type ())
G_DECLARE_FINAL_TYPE (HsInstanceBrowser, hs_instance_browser, HS, INSTANCE_BROWSER, GtkWidget)

GtkWidget  *hs_instance_browser_new               (void);
/* NULL clears the list. */
void        hs_instance_browser_set_dataset       (HsInstanceBrowser *self, HsDataset *dataset);
gboolean    hs_instance_browser_get_loading       (HsInstanceBrowser *self);
/* The rest of the dataset is read from after the next painted frame (else
 * a second after set_dataset): the window calls this when the first
 * instance is on the canvas, so the reading does not delay that frame. */
void        hs_instance_browser_load_after_next_frame (HsInstanceBrowser *self);
/* HsSubset flags every shown instance must have (0 = no filter). */
void        hs_instance_browser_set_subsets       (HsInstanceBrowser *self, guint subsets);
guint       hs_instance_browser_get_subsets       (HsInstanceBrowser *self);
/* Restores the subset and "annotated" filters from the "subset-filter" key
 * of `settings` (names as hs_subset_to_string, plus "annotated") and saves
 * them there whenever they change.  Once per browser. */
void        hs_instance_browser_bind_settings     (HsInstanceBrowser *self, GSettings *settings);
/* The model whose maps the "Wrong side" filter (property
 * "filter-wrong-side", action browser.filter-wrong-side) checks: instances
 * with a map of wrong_side = 1 (hs-wrong-side.h, computed in a thread when
 * the filter is on; everything is shown until it is known). */
void        hs_instance_browser_set_model         (HsInstanceBrowser *self, const char *model);
gboolean    hs_instance_browser_get_wrong_side_ready (HsInstanceBrowser *self);
void        hs_instance_browser_set_search_text   (HsInstanceBrowser *self, const char *text);
/* Selects the instance with this id (clearing the search and filters when
 * they hide it); FALSE when the dataset has no such instance. */
gboolean    hs_instance_browser_select_id         (HsInstanceBrowser *self, const char *id);
/* Moves the selection by `delta` rows among the shown instances. */
void        hs_instance_browser_select_relative   (HsInstanceBrowser *self, int delta);
/* Dataset index of the selected instance, or G_MAXUINT. */
guint       hs_instance_browser_get_selected      (HsInstanceBrowser *self);
/* The instance index `delta` rows from the selection in the list as shown;
 * G_MAXUINT past either end or without a selection. */
guint       hs_instance_browser_get_neighbour     (HsInstanceBrowser *self, int delta);
guint       hs_instance_browser_get_n_shown       (HsInstanceBrowser *self);
/* TRUE while subset flags are being computed (property "busy"); subset
 * filters apply once they are known. */
gboolean    hs_instance_browser_get_busy          (HsInstanceBrowser *self);
void        hs_instance_browser_focus_search      (HsInstanceBrowser *self);
/* The id of the first sentence of instance `index` (dataset index) that
 * passes the search and filters on, or NULL when no filter picks one. */
const char *hs_instance_browser_get_matched_sentence (HsInstanceBrowser *self, guint index);
/* What the browser says about the search and filters of the dataset
 * before ("… cleared: they matched nothing …"), or NULL. */
const char *hs_instance_browser_get_notice        (HsInstanceBrowser *self);

G_END_DECLS
