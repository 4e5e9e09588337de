/* hs-figure.h — a complete view rendered to PNG, SVG or PDF
 *
 * Layout (units: PNG pixels, SVG/PDF points, the same numbers):
 *
 *   ┌──────────────────────────────┬──────┬────┐
 *   │ image + overlay (viewport    │colour│ No │
 *   │ × zoom), mask contours,      │ bar  │Attn│
 *   │ top-k/Otsu outline, boxes    │ticks │    │
 *   │ with their names             │label │    │
 *   │ tag strip (show_tags): tag ███░░ 0.412  │      │    │
 *   ├──────────────────────────────┴──────┴────┤
 *   │ caption: prompt · model · instance        │
 *   └───────────────────────────────────────────┘
 *
 * The colour bar, gauge, caption and region colours are hs-legend's (the
 * canvas HUD and the compare view draw the same): the colour each map value
 * gets (strength curve and transparent threshold included) with ticks in
 * map units, labelled with the scale mode plus " · γ G" or " · log b=B"
 * for a non-linear strength; masks and boxes named in their colours.
 * Only the image+overlay is a raster; boxes, contours, the colour bar (a
 * gradient) and all text stay vector in SVG and PDF.  SVG is written
 * directly (real <text> elements, editable in Inkscape); PNG and PDF go
 * through cairo.  The data is plain (no dataset access), so the app exports
 * "what is on screen" by filling HsFigureView from its canvas.
 */
#pragma once

#include <glib.h>
#include <cairo.h>

#include "hs-image.h"
#include "hs-overlay.h"
#include "hs-contour.h"
#include "hs-legend.h"
#include "hs-dataset.h"

G_BEGIN_DECLS

#define HS_FIGURE_ERROR (hs_figure_error_quark ())
GQuark hs_figure_error_quark (void);

typedef enum {
  HS_FIGURE_ERROR_INVALID,    /* missing image, bad viewport, bad map size        */
  HS_FIGURE_ERROR_FORMAT,     /* unknown output extension                          */
  HS_FIGURE_ERROR_WRITE,      /* cannot write the file (message names it)          */
  HS_FIGURE_ERROR_TOO_LARGE,  /* output over HsLimits                              */
} HsFigureError;

typedef enum {
  HS_FIGURE_PNG,
  HS_FIGURE_SVG,
  HS_FIGURE_PDF,
} HsFigureFormat;

/* From the extension of `path` (.png, .svg, .pdf, case-insensitive). */
gboolean hs_figure_format_from_path (const char *path, HsFigureFormat *format, GError **error);

/* A named target box [x1, y1, x2, y2] in image pixels. */
typedef struct {
  const char   *name;    /* label drawn at the box; NULL = none */
  double        x1, y1, x2, y2;
  const double *rgba;    /* its colour; NULL: hs_region_color (box index)    */
  gboolean      other;   /* not a target of the query: drawn thin            */
} HsFigureBox;

/* A target mask: non-zero pixels inside; any size (resampled to the image
 * with metrics.md's nearest rule); drawn as contours. */
typedef struct {
  const char   *name;
  HsImage      *mask;
  const double *rgba;    /* its colour; NULL: hs_region_color (n_boxes + i)  */
  gboolean      other;   /* not a target of the query: drawn thin            */
} HsFigureMask;

typedef struct {
  /* Content (borrowed) */
  HsImage              *image;            /* required                                    */
  double                window_center;    /* as hs_image_levels (source units)           */
  double                window_width;     /* <= 0: full range                            */
  const double         *map;              /* map_height × map_width, or NULL (no overlay) */
  guint                 map_width, map_height;
  HsOverlayOptions      overlay;          /* colour map, scale, strength, threshold, opacity */
  const HsScaleRange   *range;            /* NULL: resolved from map with overlay.scale   */
  double                no_attn;          /* NAN: no gauge                                */
  const HsFigureBox    *boxes;
  guint                 n_boxes;
  const HsFigureMask   *masks;
  guint                 n_masks;
  HsOutline             outline;          /* top-k / Otsu of the map                      */
  double                outline_k;        /* percent for top-k                            */
  const HsRegionKeyEntry *key;            /* which colour is which region, right of the   */
  guint                 n_key;            /* legend (hs_region_key_size); 0 = none        */
  const char           *prompt;           /* caption parts; NULL = omitted                */
  const char           *model;
  const char           *instance;
  /* A built-in model's map of a real image (hs_model_is_phantom_trained_on_real):
   * the caption says "phantom-trained model on a real image" (also when
   * show_caption is FALSE), grid panels in their note. */
  gboolean              phantom_model_on_real_image;
  /* Co-attention: the shown map's tag attention (HsMapRef.tags), drawn
   * under the image panel as a bar strip when show_tags; NULL/0 = none. */
  const HsTagWeight    *tags;
  guint                 n_tags;

  /* View */
  double                view_x, view_y;   /* viewport in image pixels; view_w/h <= 0 = whole image */
  double                view_w, view_h;
  double                zoom;             /* output units per image pixel; <= 0: fit max_size */
  double                max_size;         /* longest side of the image panel when zoom <= 0 (default 1024) */
  double                font_size;        /* <= 0: auto from the panel size              */
  gboolean              show_overlay;
  gboolean              show_boxes;
  gboolean              show_masks;
  gboolean              show_colorbar;
  gboolean              show_caption;
  gboolean              show_tags;        /* the tag strip (tags given); FALSE by default */
} HsFigureView;

/* Defaults: no content, whole image, zoom fit to 1024, everything shown
 * but the tag strip, overlay options from hs_overlay_options_init, no_attn
 * NAN. */
void             hs_figure_view_init     (HsFigureView *view);

/* Size of the whole figure in output units. */
gboolean         hs_figure_get_size      (const HsFigureView *view, double *width, double *height,
                                          GError **error);
/* Where the image panel lies in the figure (output units): the viewport
 * maps to it as out = (image − view origin)·zoom + panel origin. */
gboolean         hs_figure_get_panel     (const HsFigureView *view, double *x, double *y,
                                          double *width, double *height, double *zoom,
                                          GError **error);
/* Draws the figure with cairo at the origin of cr's user space. */
gboolean         hs_figure_draw          (const HsFigureView *view, cairo_t *cr, GError **error);
/* Renders to a new ARGB32 surface (PNG path). */
cairo_surface_t *hs_figure_render_surface (const HsFigureView *view, GError **error);
/* Writes PNG, SVG or PDF (atomically: temp file + rename). */
gboolean         hs_figure_save          (const HsFigureView *view, HsFigureFormat format,
                                          const char *path, GError **error);

G_END_DECLS
