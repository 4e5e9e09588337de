/* hs-compare-view.h — A | B | A − B, and a grid of N models for one prompt
 *
 * Pair mode: three HsCanvas side by side — map A, map B and their
 * difference A − B — over the same radiograph.  A and B share ONE value
 * scale (scale mode "shared", range min..max over both, printed on each
 * colour bar); A − B uses the diverging colour map on a symmetric range
 * [−m, m].  Zoom and pan are linked between all canvases.  The blink key
 * (B, action compare.blink, property "blink") shows B in A's canvas, so the
 * eye catches what moved, and A's caption then describes B.  Under each map
 * its laterality read-out and the wrong_side flag (metrics.md) against the
 * original target; when B is A's prompt with left and right swapped, B's
 * badge says instead what the map did with the swapped words (swap_response:
 * "followed the words", "ignored the words", "moved the wrong way").
 *
 * Grid mode: one canvas per model for one prompt — the precomputed models
 * and the live ones (built-in models and the external backend) — one
 * shared scale, linked zoom and pan, each with its read-out.
 *
 * Live maps are computed off the main thread through the window's
 * HsLiveAttend (its cache first): the cell shows a spinner until the map is
 * in, and the error (naming the model or the backend's command) when it
 * fails; property "busy" is TRUE meanwhile.  Under the maps a colour bar
 * with printed values for the shared scale (and one for A − B).
 *
 * Co-attention: a precomputed map with a "tag_attention" shows its tags
 * as a strip under its read-out (HsTagStrip) — A's and B's side by side, so
 * the swap experiment shows whether the TAG attention moves with the
 * sentence too; during blink A's strip shows B's tags with B's map.  The
 * toggle Tags (key T, action compare.show-tags, property "show-tags")
 * hides and shows them; it acts only when a map has tags.
 *
 * Usage:
 *   view = hs_compare_view_new ();
 *   hs_compare_view_set_base_state (view, window_state);   // colour map, opacity…
 *   hs_compare_view_load (view, dataset, instance, sentence, model, &error);
 * or with maps in hand:
 *   hs_compare_view_set_image (view, image, regions, masks);
 *   hs_compare_view_set_pair (view, a, "original", b, "swapped");
 * Template: ui/hs-compare-view.ui. */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>
#include <heatscope/hs-model.h>

#include "hs-canvas.h"
#include "hs-live-attend.h"
#include "hs-tag-strip.h"
#include "hs-view-state.h"

G_BEGIN_DECLS

#define HS_COMPARE_VIEW_ERROR (hs_compare_view_error_quark ())
GQuark hs_compare_view_error_quark (void);

typedef enum {
  HS_COMPARE_VIEW_ERROR_NOTHING,   /* no second map to compare with */
} HsCompareViewError;

typedef enum {
  HS_COMPARE_MODE_NONE,
  HS_COMPARE_MODE_PAIR,
  HS_COMPARE_MODE_GRID,
} HsCompareMode;

#define HS_TYPE_COMPARE_VIEW (hs_compare_view_get_type ())
G_DECLARE_FINAL_TYPE (HsCompareView, hs_compare_view, HS, COMPARE_VIEW, GtkWidget)

GtkWidget     *hs_compare_view_new            (void);
/* A window (transient for `parent`) holding a new compare view. */
GtkWindow     *hs_compare_window_new          (GtkWindow *parent);
HsCompareView *hs_compare_window_get_view     (GtkWindow *window);

/* Copies the display settings of `state` (colour map, opacity, strength,
 * threshold, upsampling, window/level, what is shown); the scale mode is
 * always "shared" here. */
void           hs_compare_view_set_base_state (HsCompareView *self, HsViewState *state);
/* The radiograph and the original target (regions/masks as for
 * hs_canvas_set_regions; NULL = no target). */
void           hs_compare_view_set_image      (HsCompareView *self, HsImage *image,
                                               GPtrArray *regions, GPtrArray *masks);
/* A | B | A − B.  Maps of different grids are compared on A's grid (B
 * resampled bilinearly).  Labels name what each map is. */
void           hs_compare_view_set_pair       (HsCompareView *self,
                                               HsAttentionMap *a, const char *label_a,
                                               HsAttentionMap *b, const char *label_b);
/* The same with B the map of A's prompt with left and right swapped: B's
 * read-out gives swap_response instead of wrong_side. */
void           hs_compare_view_set_swapped_pair (HsCompareView *self,
                                               HsAttentionMap *a, const char *label_a,
                                               HsAttentionMap *b, const char *label_b);
/* N maps (HsAttentionMap*) with their labels (NULL-terminated, same count). */
void           hs_compare_view_set_grid       (HsCompareView *self, GPtrArray *maps,
                                               const char * const *labels);

/* Pair mode from a dataset: the sentence's map of `model` against the map
 * of its left/right-swapped prompt when the dataset has it, else against
 * the same sentence of the next model that has one.  FALSE (error
 * HS_COMPARE_VIEW_ERROR_NOTHING or a loading error naming the file) when
 * there is nothing to compare. */
gboolean       hs_compare_view_load           (HsCompareView *self, HsDataset *dataset,
                                               HsInstance *instance, HsSentence *sentence,
                                               const char *model, GError **error);
/* Pair mode with a live model (a built-in name or path, or
 * HS_LIVE_EXEC_NAME, served by `live`): A = the sentence's text and B = its
 * left/right-swapped prompt, attended on the instance's image (`image` when
 * the caller has it decoded, else loaded) exactly as hs_model_attend or the
 * backend gives them; asynchronous unless both are cached.  `image_stamp`:
 * the stamp of `image`'s file from before its decode (hs_live_attend_async;
 * NULL: taken when a request starts; a decode here stamps the file first).
 * FALSE when the prompt has nothing to swap or the image or targets cannot
 * be loaded. */
gboolean       hs_compare_view_load_live      (HsCompareView *self, HsDataset *dataset,
                                               HsInstance *instance, HsSentence *sentence,
                                               HsImage *image, const HsFileStamp *image_stamp,
                                               HsLiveAttend *live, const char *model,
                                               GError **error);
/* Grid mode from a dataset: every model with a map for the sentence. */
gboolean       hs_compare_view_load_grid      (HsCompareView *self, HsDataset *dataset,
                                               HsInstance *instance, HsSentence *sentence,
                                               GError **error);
/* The same plus one cell per live model of `live_models` (NULL-terminated;
 * names as for load_live) attending the sentence's text.  A map that fails
 * to load or compute is an error in its cell. */
gboolean       hs_compare_view_load_grid_live (HsCompareView *self, HsDataset *dataset,
                                               HsInstance *instance, HsSentence *sentence,
                                               HsImage *image, const HsFileStamp *image_stamp,
                                               HsLiveAttend *live, const char * const *live_models,
                                               GError **error);
/* TRUE while live maps are computed (property "busy"). */
gboolean       hs_compare_view_get_busy       (HsCompareView *self);

HsCompareMode  hs_compare_view_get_mode       (HsCompareView *self);
gboolean       hs_compare_view_get_blink      (HsCompareView *self);
void           hs_compare_view_set_blink      (HsCompareView *self, gboolean blink);
/* Canvases in order (pair: A, B, A − B; grid: one per map). */
guint          hs_compare_view_get_n_canvases (HsCompareView *self);
HsCanvas      *hs_compare_view_get_canvas     (HsCompareView *self, guint index);
/* The title and the laterality / wrong-side read-out under canvas `index`. */
const char    *hs_compare_view_get_title      (HsCompareView *self, guint index);
const char    *hs_compare_view_get_readout    (HsCompareView *self, guint index);
/* The map of cell `index` (NULL while pending or after an error) and the
 * error shown in the cell (NULL when none). */
HsAttentionMap *hs_compare_view_get_map       (HsCompareView *self, guint index);
/* The model whose map cell `index` shows (pair: A and B; grid: each cell)
 * and whether it is live (attended now, not read from the dataset); NULL
 * for A − B and when the maps were set by hand. */
const char    *hs_compare_view_get_model     (HsCompareView *self, guint index, gboolean *live);
/* Whether the pair's B is A's prompt with left and right swapped. */
gboolean       hs_compare_view_get_swapped   (HsCompareView *self);
const char    *hs_compare_view_get_error      (HsCompareView *self, guint index);
/* wrong_side of the map in canvas `index`: 1, 0, or −1 when undefined. */
int            hs_compare_view_get_wrong_side (HsCompareView *self, guint index);
/* The badge under canvas `index` as shown (NULL: none): WRONG SIDE / same
 * side, or for a swapped pair's B hs_swap_verdict_label of its
 * swap_response. */
const char    *hs_compare_view_get_badge      (HsCompareView *self, guint index);
/* The shared range of the maps, and the symmetric range of A − B. */
void           hs_compare_view_get_shared_range (HsCompareView *self, double *lo, double *hi);
/* The line above the cells (instance and prompt): an export's caption. */
const char    *hs_compare_view_get_caption    (HsCompareView *self);
/* The view as a publication figure (hs-figure-grid, as heatscope-cli
 * figure draws it): A | B | A − B or the model grid, the prompt as the
 * caption, each cell's title, and under each map its read-out and badge as
 * on screen; one shared colour bar, a diverging one for A − B.  Size, DPI
 * and font size from `settings` (figure-width, figure-dpi,
 * figure-font-size; NULL: 183mm, 300 dpi, 7 pt).  PNG, SVG or PDF by the
 * extension; FALSE with an error naming the file. */
gboolean       hs_compare_view_export         (HsCompareView *self, const char *path,
                                               GSettings *settings, GError **error);
/* The export dialog (a save chooser with choices of width, PNG dpi and
 * text size preset from `settings`), and the export of what was chosen in
 * it to `path` (NULL: refused, not a local file): the choices are written
 * to `settings` (remembered), then the file. */
GtkFileChooserNative *hs_compare_view_new_export_chooser (HsCompareView *self,
                                                         GSettings *settings);
gboolean       hs_compare_view_export_chosen  (HsCompareView *self, GtkFileChooser *chooser,
                                               const char *path, GSettings *settings,
                                               GError **error);
void           hs_compare_view_get_diff_range (HsCompareView *self, double *lo, double *hi);
/* The tag attention under cell `index` (copied; the loaders set it from
 * the maps' manifest entries), and that cell's strip (NULL: no cell). */
void           hs_compare_view_set_tags       (HsCompareView *self, guint index,
                                               const HsTagWeight *tags, guint n);
HsTagStrip    *hs_compare_view_get_tag_strip  (HsCompareView *self, guint index);
void           hs_compare_view_set_show_tags  (HsCompareView *self, gboolean show);

G_END_DECLS
