/* hs-canvas.h — the radiograph with its attention overlay
 *
 * A GtkWidget with its own snapshot: image (window/level), colour-mapped
 * overlay (cached; opacity only re-composites), target boxes with names,
 * masks as contours, optional top-k/Otsu outline, the No-Attn mass as a
 * separate gauge and a colour bar with true values and the scale mode.
 *
 * Interaction: wheel/pinch zoom around the pointer, drag to pan, Ctrl+drag
 * for window/level (horizontal = width, vertical = centre), Shift+drag
 * draws a box (signal "box-drawn": x1, y1, x2, y2 in image pixels), actions
 * canvas.zoom-in (+), canvas.zoom-out (−), canvas.zoom-fit (0),
 * canvas.zoom-1 (1).  Hover read-out in the "hover-text" property
 * (e.g. "x 512, y 301 · cell 8, 5 · 0.0123") and as a small label near the
 * pointer.
 *
 * Usage from the window:
 *   canvas = hs_canvas_new ();
 *   hs_canvas_set_view_state (canvas, state);
 *   hs_canvas_set_image (canvas, image);
 *   hs_canvas_set_map (canvas, map);              // NULL = no overlay
 *   hs_canvas_set_regions (canvas, regions, masks);  // see hs_dataset_collect_targets
 */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>
#include <heatscope/hs-legend.h>

#include "hs-view-state.h"

G_BEGIN_DECLS

#define HS_CANVAS_ERROR (hs_canvas_error_quark ())
GQuark hs_canvas_error_quark (void);

typedef enum {
  HS_CANVAS_ERROR_EMPTY,        /* nothing to export        */
  HS_CANVAS_ERROR_FORMAT,       /* unknown file extension   */
  HS_CANVAS_ERROR_WRITE,        /* cannot write the file    */
} HsCanvasError;

/* Pure view transform, unit-tested without a display:
 * widget = image · zoom + offset. */
typedef struct {
  double zoom;
  double offset_x, offset_y;
} HsCanvasTransform;

void   hs_canvas_transform_widget_to_image (const HsCanvasTransform *t, double wx, double wy,
                                            double *ix, double *iy);
void   hs_canvas_transform_image_to_widget (const HsCanvasTransform *t, double ix, double iy,
                                            double *wx, double *wy);
/* Sets zoom to new_zoom keeping the image point under (wx, wy) in place. */
void   hs_canvas_transform_zoom_around     (HsCanvasTransform *t, double new_zoom,
                                            double wx, double wy);
/* Largest zoom showing the whole image_w × image_h in view_w × view_h, centred. */
void   hs_canvas_transform_fit             (HsCanvasTransform *t, double image_w, double image_h,
                                            double view_w, double view_h);
/* Centres the image at zoom 1 (1:1) around the view centre. */
void   hs_canvas_transform_one_to_one      (HsCanvasTransform *t, double image_w, double image_h,
                                            double view_w, double view_h);
/* The visible image rectangle, clipped to the image, in image pixels
 * (integers covering every visible pixel); FALSE when nothing is visible. */
gboolean hs_canvas_transform_visible_rect  (const HsCanvasTransform *t, double image_w, double image_h,
                                            double view_w, double view_h,
                                            int *x, int *y, int *w, int *h);

#define HS_CANVAS_ZOOM_MIN 0.01
#define HS_CANVAS_ZOOM_MAX 64.0

/* What lies under the pointer. */
typedef struct {
  gboolean valid;         /* pointer over the image                     */
  double   x, y;          /* image pixel coordinates                    */
  int      row, col;      /* attention grid cell, −1 without a map      */
  double   value;         /* attention value (display upsampling), NAN without a map */
} HsCanvasHover;

#define HS_TYPE_CANVAS (hs_canvas_get_type ())
G_DECLARE_FINAL_TYPE (HsCanvas, hs_canvas, HS, CANVAS, GtkWidget)

GtkWidget     *hs_canvas_new               (void);

/* Properties: "view-state", "zoom" (double), "fit" (boolean, refits on
 * resize), "hover-text" (string, read-only), "caption" (string), "busy"
 * (boolean, read-only: a worker thread still prepares the reduced levels of
 * a large image; the view is usable meanwhile), "show-color-bar" (boolean,
 * default TRUE; the compare view draws one shared bar instead). */
void           hs_canvas_set_view_state    (HsCanvas *self, HsViewState *state);
HsViewState   *hs_canvas_get_view_state    (HsCanvas *self);
void           hs_canvas_set_image         (HsCanvas *self, HsImage *image);
HsImage       *hs_canvas_get_image         (HsCanvas *self);
/* The sentence map is shown; hs_canvas_set_token picks a per-token map
 * (−1 = sentence map). */
void           hs_canvas_set_map           (HsCanvas *self, HsAttentionMap *map);
HsAttentionMap *hs_canvas_get_map          (HsCanvas *self);
void           hs_canvas_set_token         (HsCanvas *self, int token);
/* Target regions (HsRegion*, copied) and their masks (NULL, or an array of
 * the same length holding HsImage* or NULL; referenced).  NULL clears. */
void           hs_canvas_set_regions       (HsCanvas *self, GPtrArray *regions, GPtrArray *masks);
/* Every region of an instance as a layer: as hs_canvas_set_regions, with
 * region i in colours[4 i … 4 i + 3] (RGBA; NULL: the palette's order) and
 * drawn bold when is_target[i] (NULL: all), else thin and dashed.  Labels
 * never overlap; a key names the colours when colours are given. */
void           hs_canvas_set_region_layers (HsCanvas *self, GPtrArray *regions, GPtrArray *masks,
                                            const double *colors, const gboolean *is_target);
/* As hs_canvas_set_region_layers, with each mask's outline already traced
 * (hs_contour_trace_image; contours NULL or of the masks' length, holding
 * GPtrArray* of HsPolyline or NULL; referenced, not copied): a mask with
 * its contours given is not traced again. */
void           hs_canvas_set_traced_layers (HsCanvas *self, GPtrArray *regions, GPtrArray *masks,
                                            GPtrArray *contours, const double *colors,
                                            const gboolean *is_target);
/* The caption's prompt alone (model and instance cleared). */
void           hs_canvas_set_caption       (HsCanvas *self, const char *caption);
/* The caption from its fields (copied), drawn and exported as
 * heatscope-cli render draws it: the prompt quoted, then model and instance. */
void           hs_canvas_set_caption_fields (HsCanvas *self, const HsCaption *caption);
/* The colour bar's range in map units (the scale mode resolved on the map
 * shown); FALSE without a map.  Signal "map-range-changed" says when it may
 * have changed. */
gboolean       hs_canvas_get_map_range      (HsCanvas *self, double *lo, double *hi);
/* The caption's HsCaption.phantom_model_on_real_image. */
gboolean       hs_canvas_get_caption_phantom (HsCanvas *self);
void           hs_canvas_set_show_color_bar (HsCanvas *self, gboolean show);
gboolean       hs_canvas_get_show_color_bar (HsCanvas *self);
/* Keeps the top `top` pixels clear of the colour bar panel, which then
 * starts below them: a bar laid over the canvas's top (the window's error
 * bar) hides none of it. */
void           hs_canvas_set_hud_top        (HsCanvas *self, int top);
/* Where the colour bar panel (the HUD) is drawn, in widget coordinates;
 * FALSE when none is.  Fitting the image keeps it left of this area, so
 * the bar hides no part of the map. */
gboolean       hs_canvas_get_color_bar_area (HsCanvas *self, double *x, double *y,
                                             double *w, double *h);
/* Where the layers' key panel (which colour is which region) is drawn, in
 * widget coordinates; FALSE when none is. */
gboolean       hs_canvas_get_region_key_area (HsCanvas *self, double *x, double *y,
                                              double *w, double *h);
/* The rectangles (graphene_rect_t, widget coordinates) of the region names
 * as the canvas lays them out now: clear of each other and of both panels
 * above. */
GArray        *hs_canvas_dup_region_label_areas (HsCanvas *self);
/* What the map's values measure (the manifest's "quantity"), the first line
 * of the colour bar's title; NULL: "attention weight". */
void           hs_canvas_set_quantity      (HsCanvas *self, const char *quantity);
/* The colour bar's title as drawn, its horizontal lines joined by "\n"
 * (quantity, scale and range, strength); NULL when no bar is drawn. */
char          *hs_canvas_dup_color_bar_title (HsCanvas *self);

double         hs_canvas_get_zoom          (HsCanvas *self);
/* Zoom around the widget point (wx, wy); wx < 0 means the view centre. */
void           hs_canvas_zoom_to           (HsCanvas *self, double zoom, double wx, double wy);
void           hs_canvas_zoom_fit          (HsCanvas *self);
void           hs_canvas_zoom_one          (HsCanvas *self);
void           hs_canvas_get_transform     (HsCanvas *self, HsCanvasTransform *out);
/* Sets zoom and offset (then clamped like a pan); leaves fit mode.  The
 * "transform-changed" signal follows every zoom, pan or fit, so views can
 * be linked (the compare view). */
void           hs_canvas_set_transform     (HsCanvas *self, const HsCanvasTransform *t);
gboolean       hs_canvas_widget_to_image   (HsCanvas *self, double wx, double wy, double *ix, double *iy);
void           hs_canvas_image_to_widget   (HsCanvas *self, double ix, double iy, double *wx, double *wy);

/* Hover at widget point (wx, wy) as if the pointer were there (tests and the
 * status line); fills `out` when non-NULL. */
void           hs_canvas_hover_at          (HsCanvas *self, double wx, double wy, HsCanvasHover *out);
const char    *hs_canvas_get_hover_text    (HsCanvas *self);
gboolean       hs_canvas_get_busy          (HsCanvas *self);

/* Writes what is on screen (image region in view, overlay, boxes, contours,
 * outline, gauge, colour bar, caption) as PNG, SVG or PDF chosen by the
 * extension of `path`, with the current view parameters. */
gboolean       hs_canvas_export            (HsCanvas *self, const char *path, GError **error);
/* Renders the view into a new ARGB32 surface of the widget's size (or
 * width × height when > 0): what tests compare with golden PNGs. */
cairo_surface_t *hs_canvas_render_surface  (HsCanvas *self, int width, int height);

G_END_DECLS
