/* hs-contour.h — outlines of binary regions (marching squares)
 *
 * Coordinates are image coordinates: pixel (x, y) covers [x, x+1) × [y, y+1)
 * and its centre is (x + 0.5, y + 0.5).  Marching squares runs on the lattice
 * of pixel centres; a vertex lies on the segment between an inside and an
 * outside centre, at its midpoint for a binary raster — i.e. on the shared
 * pixel border — so an outline follows the region's pixels with 45° cuts
 * at corners.  The raster is treated as ending at its border (outside
 * beyond it), so every contour is closed; a region touching the border is
 * closed along the border's outermost pixel edges.
 *
 * Diagonal neighbours are connected (8-connectivity for the inside, as
 * OpenCV's findContours): a saddle cell joins its two inside corners.
 * Outer contours run counter-clockwise on screen (y down), holes clockwise;
 * contours come in raster order of their first cell (top row first).
 */
#pragma once

#include <glib.h>
#include <cairo.h>

#include "hs-image.h"
#include "hs-resample.h"

G_BEGIN_DECLS

typedef struct {
  double x, y;
} HsPoint;

typedef struct {
  GArray   *points;   /* of HsPoint; for a closed contour the first point is not repeated */
  gboolean  closed;
} HsPolyline;

typedef enum {
  HS_CONTOUR_DEFAULT  = 0,
  HS_CONTOUR_SIMPLIFY = 1 << 0,  /* drop vertices lying on a straight run (exact) */
} HsContourFlags;

typedef enum {
  HS_OUTLINE_NONE,
  HS_OUTLINE_TOP_K,   /* "top-k": pixels with s ≥ q_k, q_k the ⌈k·P/100⌉-th largest (metrics.md) */
  HS_OUTLINE_OTSU,    /* "otsu": u > t with u = floor(255·(s − min)/(max − min)), t Otsu (metrics.md) */
} HsOutline;

const char *hs_outline_to_string   (HsOutline outline);   /* "none", "top-k", "otsu" */
/* Also accepts "topk". */
gboolean    hs_outline_from_string (const char *name, HsOutline *outline);

/* Contours of the pixels with mask[y·stride + x] != 0.  Returns a
 * GPtrArray of HsPolyline* (free with g_ptr_array_unref).  Never NULL. */
GPtrArray  *hs_contour_trace_mask  (const guint8 *mask, guint width, guint height, gsize stride,
                                    HsContourFlags flags);

/* Contours of a target mask image (a pixel is inside when any colour
 * channel is non-zero, alpha ignored, as HsTarget) in mask pixel
 * coordinates, simplified: the one tracing the canvas and the figure both
 * draw, scaled by image size / mask size.  NULL when out of memory. */
GPtrArray  *hs_contour_trace_image (HsImage *mask);

/* Binary region of the map resampled to the evaluation grid out_w × out_h
 * (hs_resample, double precision, as metrics.md): a new out_w·out_h byte
 * mask (1 inside) or NULL with `error` (HS_OVERLAY_ERROR: non-finite value,
 * over the limits).
 * k is the percent for HS_OUTLINE_TOP_K. */
guint8     *hs_contour_region_mask (const double *grid, guint w, guint h,
                                    guint out_w, guint out_h, HsUpsample upsample,
                                    HsOutline outline, double k, GError **error);

/* The ⌈k·n/100⌉-th largest of values (1-based; k clamped to (0, 100]). */
double      hs_contour_topk_threshold (const double *values, gsize n, double k);
/* Otsu's threshold t on 8-bit values u (the first t maximising ω0·ω1·(μ0−μ1)²,
 * class 0 = u ≤ t). */
guint       hs_contour_otsu_threshold (const guint8 *u, gsize n);

/* Perimeter of one polyline (closing segment included when closed). */
double      hs_polyline_length     (const HsPolyline *line);
void        hs_polyline_free       (HsPolyline *line);

/* Appends the contours to cr's current path in user space (image
 * coordinates under cr's transform); the caller strokes. */
void        hs_contour_append_path (cairo_t *cr, GPtrArray *lines);
/* Strokes them with `rgba` at `line_width` device units (independent of the
 * zoom), dashed when `dashed`, over a thin dark halo for contrast. */
void        hs_contour_draw        (cairo_t *cr, GPtrArray *lines, const double rgba[4],
                                    double line_width, gboolean dashed);

G_END_DECLS
