/* hs-compare-cell.h — one map of the compare view
 *
 * A title, the map's canvas (or a spinner while a live map is computed, or
 * the error when it failed) and a read-out under it with a badge: WRONG
 * SIDE / same side / no clear side for a map against its own target, or what a swapped
 * prompt's map did (swap_response: followed / ignored the words, moved the
 * wrong way), drawn by the core's hs_badge_draw as exported figures are;
 * under it the map's tag attention (co-attention) as an HsTagStrip when it
 * has one.  The compare view lays the cells out, links their zoom and sets
 * their maps, read-outs and tags.  Template: ui/hs-compare-cell.ui.
 */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-legend.h>
#include <heatscope/hs-panel-readout.h>

#include "hs-canvas.h"
#include "hs-tag-strip.h"
#include "hs-view-state.h"

G_BEGIN_DECLS

#define HS_TYPE_COMPARE_CELL (hs_compare_cell_get_type ())
G_DECLARE_FINAL_TYPE (HsCompareCell, hs_compare_cell, HS, COMPARE_CELL, GtkWidget)

GtkWidget      *hs_compare_cell_new              (void);
HsCanvas       *hs_compare_cell_get_canvas       (HsCompareCell *self);
/* The display settings of this cell's canvas. */
void            hs_compare_cell_set_state        (HsCompareCell *self, HsViewState *state);
HsViewState    *hs_compare_cell_get_state        (HsCompareCell *self);

/* The title and its tooltip (what the map is). */
void            hs_compare_cell_set_title        (HsCompareCell *self, const char *title,
                                                  const char *tooltip);
const char     *hs_compare_cell_get_title        (HsCompareCell *self);
const char     *hs_compare_cell_get_title_tooltip (HsCompareCell *self);
/* Shows `text` in the title's place until the next call (NULL: the title
 * again), as blink does. */
void            hs_compare_cell_show_title       (HsCompareCell *self, const char *text);
const char     *hs_compare_cell_get_shown_title  (HsCompareCell *self);

/* The map (shown in the canvas), or pending (a spinner), or an error in
 * the map's place; each replaces the others. */
void            hs_compare_cell_set_map          (HsCompareCell *self, HsAttentionMap *map);
HsAttentionMap *hs_compare_cell_get_map          (HsCompareCell *self);
void            hs_compare_cell_set_pending      (HsCompareCell *self);
gboolean        hs_compare_cell_get_pending      (HsCompareCell *self);
/* Also clears the read-out. */
void            hs_compare_cell_set_error        (HsCompareCell *self, const char *message);
const char     *hs_compare_cell_get_error        (HsCompareCell *self);

/* A read-out without a verdict (an error, nothing scored): `text` in full
 * (the tooltip and get_readout), `detail` (NULL: `text`) on screen, no
 * badge.  Badges come from hs_panel_readout (set_panel_readout), which alone
 * decides between WRONG SIDE, same side and no clear side. */
void            hs_compare_cell_set_readout      (HsCompareCell *self, const char *text,
                                                  const char *detail);
/* The read-out shown (another cell's during blink). */
const char     *hs_compare_cell_get_readout      (HsCompareCell *self);
int             hs_compare_cell_get_wrong_side   (HsCompareCell *self);
/* The read-out of hs-panel-readout (the words every exported figure uses):
 * `text` in full (the tooltip), the readout's line on screen, its badge and
 * wrong_side. */
void            hs_compare_cell_set_panel_readout (HsCompareCell *self, const char *text,
                                                   const HsPanelReadout *readout);
/* The badge's text as shown (NULL when hidden). */
const char     *hs_compare_cell_get_badge        (HsCompareCell *self);
/* Shows `other`'s read-out and badge under this cell until the next call
 * (NULL: its own again), as blink does with B's map in A's canvas. */
void            hs_compare_cell_show_readout_of  (HsCompareCell *self, HsCompareCell *other);
/* What the cell shows under the map (another cell's during blink), so an
 * export draws exactly that: the badge's tone (with get_badge's text) and
 * the read-out line. */
HsBadgeTone     hs_compare_cell_get_badge_tone   (HsCompareCell *self);
const char     *hs_compare_cell_get_shown_readout (HsCompareCell *self);
/* The read-out's row, so cells side by side can share its height. */
GtkWidget      *hs_compare_cell_get_readout_row  (HsCompareCell *self);
/* The map's tag attention (copied; NULL/0: none), shown under the read-out
 * while show-tags is on (the default); during blink, like the read-out,
 * the tags of the map the canvas shows. */
void            hs_compare_cell_set_tags         (HsCompareCell *self, const HsTagWeight *tags,
                                                  guint n);
guint           hs_compare_cell_get_n_tags       (HsCompareCell *self);
void            hs_compare_cell_set_show_tags    (HsCompareCell *self, gboolean show);
HsTagStrip     *hs_compare_cell_get_tag_strip    (HsCompareCell *self);
/* The tags the strip shows (another cell's during blink; none while
 * show-tags is off): *n of them, owned by the cell. */
const HsTagWeight *hs_compare_cell_get_shown_tags (HsCompareCell *self, guint *n);
/* The read-out with the tag strip under it: cells side by side share its
 * height too, so that their maps are one size whether they have tags or not. */
GtkWidget      *hs_compare_cell_get_footer       (HsCompareCell *self);

G_END_DECLS
