/* hs-painter-private.h — the figure's and the legend's drawing API
 *
 * One API over two back ends: cairo (PNG, PDF, a caller's cairo_t) when
 * `cr` is set, else a direct SVG writer appending to `svg` (real <text>
 * elements, editable in Inkscape).  Text is measured with cairo's toy API
 * in both cases, so the geometry is the same whichever back end draws it. */
#pragma once

#include <glib.h>
#include <cairo.h>

G_BEGIN_DECLS

typedef struct {
  cairo_t *cr;          /* cairo back end, or NULL */
  GString *svg;         /* SVG back end, or NULL   */
  cairo_t *measure;     /* text metrics for both   */
  guint    next_id;
} HsPainter;

typedef enum { HS_ANCHOR_START, HS_ANCHOR_MIDDLE, HS_ANCHOR_END } HsAnchor;

/* Polylines in source coordinates mapped by
 * out = (pt·(sx, sy) − origin)·zoom + panel corner. */
typedef struct {
  double sx, sy;       /* source → image pixels (1 for image coordinates) */
  double ox, oy;       /* image origin (viewport corner) */
  double zoom;
  double px, py;       /* panel corner in output units   */
} HsPainterMapping;

/* Both back ends NULL: measuring only. */
void   hs_painter_init          (HsPainter *p, cairo_t *cr, GString *svg);
void   hs_painter_clear         (HsPainter *p);

/* Width of `text` (its advance) at `size`. */
double hs_painter_text_width    (HsPainter *p, const char *text, double size, gboolean bold);

void   hs_painter_fill_rect     (HsPainter *p, double x, double y, double w, double h,
                                 const double rgba[4]);
void   hs_painter_stroke_rect   (HsPainter *p, double x, double y, double w, double h,
                                 const double rgba[4], double lw);
void   hs_painter_line          (HsPainter *p, double x0, double y0, double x1, double y1,
                                 const double rgba[4], double lw);
/* Over a thin dark halo for contrast; dashed for outlines. */
void   hs_painter_polylines     (HsPainter *p, GPtrArray *lines, const HsPainterMapping *m,
                                 const double rgba[4], double lw, gboolean dashed);
/* Text with its baseline at y; angle −90 for text running upwards. */
void   hs_painter_text          (HsPainter *p, double x, double y, const char *text, double size,
                                 const double rgba[4], gboolean bold, HsAnchor anchor,
                                 double angle_deg);
/* stops[0] at the bottom (left when horizontal), stops[n−1] at the top
 * (right); premultiplied ARGB32 as from hs_overlay_build_lut. */
void   hs_painter_gradient_rect (HsPainter *p, double x, double y, double w, double h,
                                 gboolean horizontal, const guint32 *stops, guint n);
void   hs_painter_clip_push     (HsPainter *p, double x, double y, double w, double h);
void   hs_painter_clip_pop      (HsPainter *p);
/* The raster: `surface` placed at (x, y) with size w × h, nearest filtering
 * when magnified. */
void   hs_painter_image         (HsPainter *p, cairo_surface_t *surface, double x, double y,
                                 double w, double h);

/* SVG number and attribute writers ("12.5", never a locale comma). */
void   hs_svg_num               (GString *s, double v);
void   hs_svg_attr              (GString *s, const char *name, double v);
/* A cairo write function appending to a GByteArray. */
cairo_status_t hs_painter_append_bytes (void *closure, const unsigned char *data,
                                        unsigned int length);

G_END_DECLS
