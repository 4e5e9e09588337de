/* hs-compare-view-private.h — what the files of HsCompareView share
 *
 *   hs-compare-view.c       the object, the cells and their layout, linked
 *                           zoom, read-outs, shared scale, pair and grid
 *   hs-compare-view-load.c  loading from a dataset and the live maps
 */
#pragma once

#include "hs-color-bar.h"
#include "hs-compare-cell.h"
#include "hs-compare-view.h"
#include "hs-latest-request.h"

G_BEGIN_DECLS

struct _HsCompareView
{
  GtkWidget       parent_instance;

  GtkWidget      *box;
  GtkLabel       *prompt_label;
  GtkLabel       *info_label;
  GtkStack       *stack;
  GtkGrid        *cells_grid;
  GtkLabel       *empty_label;

  HsViewState    *base;          /* display settings copied into each cell */
  HsImage        *image;
  /* The stamp of image's file from before its decode, which live maps of
   * it are kept under (NULL: not known, taken when a request starts). */
  HsFileStamp     image_stamp_buf;
  const HsFileStamp *image_stamp;
  GPtrArray      *regions;       /* HsRegion*, borrowed from the dataset */
  GPtrArray      *masks;
  GPtrArray      *cells;         /* HsCompareCell*, referenced */
  GtkSizeGroup   *band_readouts; /* the read-outs of the cells of the last band */
  GtkSizeGroup   *band_footers;  /* their read-outs with the tag strips */
  HsColorBar     *shared_bar;    /* the colour bar of A and B / of the grid */
  HsColorBar     *diff_bar;      /* the colour bar of A − B */
  HsCompareMode   mode;
  gboolean        blink;
  gboolean        swapped_pair;  /* B is A's prompt with left and right swapped */
  gboolean        show_tags;     /* the cells' tag strips (co-attention) */
  char          **models;        /* the model of each map cell (a deck case names them); NULL: set by hand */
  guint           live_from;     /* cells from this one on show live maps */
  gboolean        linking;       /* guard while propagating a transform */
  double          shared_lo, shared_hi;
  double          diff_lo, diff_hi;
  HsDataset      *dataset;       /* keeps borrowed regions alive */

  /* Live maps of the newest load; older requests are dropped. */
  HsLiveAttend   *live;
  HsLatestRequest *requests;
};

typedef enum {
  PROP_0,
  PROP_BLINK,
  PROP_MODE,
  PROP_BUSY,
  PROP_SHOW_TAGS,
  N_PROPS
} HsCompareViewProp;

/* hs-compare-view.c */
void           _hs_compare_view_notify       (HsCompareView *self, HsCompareViewProp prop);
HsCompareCell *_hs_compare_view_get_cell     (HsCompareView *self, guint index);
void           _hs_compare_view_build_pair   (HsCompareView *self, const char *label_a,
                                              const char *label_b, gboolean swapped);
void           _hs_compare_view_finish_pair  (HsCompareView *self);
void           _hs_compare_view_build_grid   (HsCompareView *self, guint n, const char * const *labels);
void           _hs_compare_view_refresh_grid (HsCompareView *self);
void           _hs_compare_view_set_models   (HsCompareView *self, const char * const *models,
                                              guint live_from);

/* hs-compare-export.c: asks for a file and exports with the app's settings */
void           _hs_compare_view_export_action (GtkWidget *widget, const char *action_name,
                                               GVariant *parameter);

/* hs-compare-view-load.c */
void           _hs_compare_view_cancel_live  (HsCompareView *self);

G_END_DECLS
