/* hs-canvas-private.h — what the files of HsCanvas share
 *
 * One type over several files, each entered through the functions below:
 *   hs-canvas.c          the object, snapshot and allocation, the cache
 *                        invalidation, the public setters and getters
 *   hs-canvas-transform.c  the pure view transform
 *   hs-canvas-image.c    the raw-sample pyramid and the image layer
 *   hs-canvas-overlay.c  range, field and outline of the map, the overlay
 *                        layer and the composite
 *   hs-canvas-decor.c    boxes, contours, outline, caption, HUD, hover
 *   hs-canvas-input.c    controllers, hover read-out, zoom actions
 *   hs-canvas-export.c   off-screen rendering and export
 */
#pragma once

#include "hs-canvas.h"

G_BEGIN_DECLS

#define ZOOM_STEP 1.25
#define MAX_MIP_LEVELS 12
/* Longest side of the grid the top-k/Otsu outline is computed on. */
#define OUTLINE_GRID_MAX 1024
#define HUD_FONT_SIZE 11.0
/* Images above this many pixels get their pyramid built on a worker thread. */
#define PYRAMID_THREAD_PIXELS (2048 * 2048)
/* Below this many pixels a second thread costs more than it saves. */
#define PARALLEL_MIN_PIXELS (128 * 1024)

/* What a view-dependent layer was made for. */
typedef struct {
  double zoom, offset_x, offset_y;
  int    vw, vh, scale;
} ViewKey;

/* A layer of the visible part: `surface` covers device pixels
 * [x, x + width) × [y, y + height) of the view. */
typedef struct {
  cairo_surface_t *surface;        /* NULL: nothing to show */
  gboolean         built;
  guint            gen;            /* which build (the composite remembers it) */
  int              x, y;
  ViewKey          key;
} Layer;

struct _HsCanvas
{
  GtkWidget parent_instance;

  HsViewState    *state;
  gulong          state_changed_id;
  guint           range_idle;        /* "map-range-changed" pending */
  HsImage        *image;
  HsAttentionMap *map;
  int             token;
  GPtrArray      *regions;         /* HsRegion*, owned copies */
  GPtrArray      *masks;           /* HsImage* or NULL        */
  GPtrArray      *mask_contours;   /* GPtrArray* of HsPolyline (mask pixels) or NULL */
  double         *region_rgba;     /* 4 per region, or NULL: hs_region_color's box-then-mask order */
  gboolean       *region_target;   /* per region, or NULL: every region is a target */
  char           *caption;         /* the caption's prompt, and its other fields */
  char           *caption_model;
  char           *caption_instance;
  gboolean        caption_phantom;   /* HsCaption.phantom_model_on_real_image */
  gboolean        show_color_bar;           /* FALSE where a shared bar is drawn outside */
  int             hud_top;           /* px at the top kept clear of the HUD (an error bar over it) */
  char           *quantity;          /* what the map measures, titling the bar; NULL: unstated */

  HsCanvasTransform t;
  gboolean        fit;
  int             view_w, view_h;

  /* image layer */
  guint16        *pyr[MAX_MIP_LEVELS];     /* [0] = the image's samples (borrowed), then 2× box-filtered */
  guint           pyr_w[MAX_MIP_LEVELS], pyr_h[MAX_MIP_LEVELS];
  guint           n_levels;                /* levels ready (0 = none yet) */
  GCancellable   *pyr_cancel;              /* a worker is building the pyramid */
  guint8         *wl_lut;                  /* raw sample → grey, 65 536 entries; NULL = stale */
  Layer           img;
  /* overlay layer */
  gboolean        range_valid;
  HsScaleRange    range;
  HsOverlayField *field;
  guint           field_gen;                /* bumped for every new field */
  HsUpsample      field_upsample;
  guint           field_sw, field_sh;       /* scaled grid the field is a region of */
  int             field_x, field_y;         /* its origin in that grid */
  guint16        *vq;                       /* field values of the visible part, device pixels */
  int             vq_x, vq_y, vq_w, vq_h;
  ViewKey         vq_key;
  guint           vq_field_gen;
  guint           vq_gen;
  guint32        *lut;                      /* HS_OVERLAY_Q_LEVELS entries */
  gboolean        lut_valid;
  guint           lut_gen;
  guint           layer_gen;
  /* image and overlay composited at the current opacity */
  GskRenderNode  *composite_node;
  struct _HsGlTexture *gl_texture;          /* its texture with GL, rewritten in place; NULL until used */
  guint           composite_img, composite_vq, composite_lut;
  double          composite_opacity;
  GPtrArray      *outline;                  /* HsPolyline* in outline-grid pixels */
  gboolean        outline_valid;
  HsUpsample      outline_upsample;
  guint           outline_w, outline_h;
  char           *map_error;

  GskRenderNode  *decor_node;
  gboolean        decor_overlay;            /* show-overlay when decor_node was drawn */
  gboolean        decor_has_hud;            /* the colour bar's panel (x, y, w, h) the names */
  double          decor_hud[4];             /* of decor_node avoid; FALSE: none */
  guint           decor_builds;             /* decor nodes recorded (tests: what rebuilds it) */
  GskRenderNode  *hud_node;

  /* pointer */
  gboolean        pointer_inside;
  double          pointer_x, pointer_y;
  HsCanvasHover   hover;
  char           *hover_text;

  /* gestures */
  double          drag_ox, drag_oy;
  gboolean        drag_wl;
  gboolean        drag_box;                /* Shift+drag draws a new box */
  double          box_wx0, box_wy0, box_wx1, box_wy1;   /* its corners, widget pixels */
  double          wl_center0, wl_width0;
  double          pinch_zoom0;
};


typedef enum {
  PROP_0,
  PROP_VIEW_STATE,
  PROP_ZOOM,
  PROP_FIT,
  PROP_HOVER_TEXT,
  PROP_CAPTION,
  PROP_BUSY,
  PROP_SHOW_COLOR_BAR,
  PROP_HUD_TOP,
  N_PROPS
} HsCanvasProp;

/* The hover's cell outline and label, in widget coordinates. */
typedef struct {
  gboolean cell;                 /* a grid cell is outlined */
  double   cx1, cy1, cx2, cy2;   /* its widget rectangle */
  double   lx, ly;               /* label origin */
  int      lw, lh;               /* label size */
} HoverGeometry;

static inline double
_hs_canvas_image_w (HsCanvas *self)
{
  return self->image ? hs_image_get_width (self->image) : 0;
}

static inline double
_hs_canvas_image_h (HsCanvas *self)
{
  return self->image ? hs_image_get_height (self->image) : 0;
}

static inline ViewKey
_hs_canvas_view_key (const HsCanvasTransform *t, int vw, int vh, int scale)
{
  return (ViewKey) { t->zoom, t->offset_x, t->offset_y, vw, vh, scale };
}

static inline gboolean
_hs_canvas_view_key_equal (const ViewKey *a, const ViewKey *b)
{
  return a->zoom == b->zoom && a->offset_x == b->offset_x && a->offset_y == b->offset_y &&
         a->vw == b->vw && a->vh == b->vh && a->scale == b->scale;
}

/* hs-canvas.c */
void              _hs_canvas_notify               (HsCanvas *self, HsCanvasProp prop);
const double     *_hs_canvas_current_grid         (HsCanvas *self);
void              _hs_canvas_get_overlay_options  (HsCanvas *self, HsOverlayOptions *options);
void              _hs_canvas_get_window_level     (HsCanvas *self, double *center, double *width);
void              _hs_canvas_layer_clear          (Layer *layer);
void              _hs_canvas_clear_nodes          (HsCanvas *self);
void              _hs_canvas_set_fit              (HsCanvas *self, gboolean fit);
void              _hs_canvas_transform_changed    (HsCanvas *self);

/* hs-canvas-image.c */
void              _hs_canvas_free_pyramid         (HsCanvas *self);
void              _hs_canvas_ensure_pyramid       (HsCanvas *self);
gboolean          _hs_canvas_visible_device_rect  (HsCanvas *self, const ViewKey *k,
                                                   int *x0, int *y0, int *x1, int *y1);
cairo_surface_t  *_hs_canvas_build_image_layer    (HsCanvas *self, const ViewKey *k, int *ox, int *oy);

/* hs-canvas-overlay.c */
gboolean          _hs_canvas_show_overlay         (HsCanvas *self);
double            _hs_canvas_overlay_opacity      (HsCanvas *self);
gboolean          _hs_canvas_ensure_range         (HsCanvas *self);
void              _hs_canvas_ensure_outline       (HsCanvas *self);
cairo_surface_t  *_hs_canvas_build_overlay_layer  (HsCanvas *self, const ViewKey *k, int *ox, int *oy);
GskRenderNode    *_hs_canvas_ensure_composite     (HsCanvas *self, const ViewKey *k);

/* hs-canvas-decor.c */
/* The region key's entries (HsRegionKeyEntry, names borrowed), empty
 * unless layers with colours are shown. */
/* The box being drawn with Shift+drag, over everything (hs-canvas-input.c). */
void      _hs_canvas_snapshot_box (HsCanvas *self, GtkSnapshot *snapshot);
GArray   *_hs_canvas_region_key (HsCanvas *self);
void              _hs_canvas_draw_decor           (HsCanvas *self, cairo_t *cr,
                                                   const HsCanvasTransform *t, int vw, int vh);
void              _hs_canvas_draw_hud_layer       (HsCanvas *self, cairo_t *cr,
                                                   const HsCanvasTransform *t, int vw, int vh);
gboolean          _hs_canvas_hover_geometry       (HsCanvas *self, cairo_t *cr,
                                                   const HsCanvasTransform *t, int vw, int vh,
                                                   HoverGeometry *g);
/* Where the HUD panel (colour bar, gauge) goes in a vw × vh view, in whole
 * pixels; FALSE when it is not shown. */
gboolean          _hs_canvas_hud_area             (HsCanvas *self, int vw, int vh, double *x,
                                                   double *y, double *w, double *h);
void              _hs_canvas_draw_hover           (HsCanvas *self, cairo_t *cr,
                                                   const HsCanvasTransform *t, int vw, int vh);

/* hs-canvas-input.c */
void              _hs_canvas_update_hover         (HsCanvas *self);
void              _hs_canvas_input_init           (HsCanvas *self);
void              _hs_canvas_class_actions_init   (GtkWidgetClass *widget_class);

G_END_DECLS
