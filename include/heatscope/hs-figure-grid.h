/* hs-figure-grid.h — publication figures: rows × columns of panels on one page
 *
 *        column header   column header   column header
 *       a title          b title          c A − B           ┌─┐ quantity
 *   row ┌──────────┐     ┌──────────┐     ┌──────────┐      │█│ (one bar for
 *   hdr │  panel   │     │  panel   │     │  diff    │      └─┘  the grid)
 *       └──────────┘     └──────────┘     └──────────┘      ┌─┐ difference
 *        note             note             note             │▒│ (diverging)
 *   ■ region  ■ region                                      └─┘
 *   caption, word-wrapped to the page width
 *
 * Units are points (1/72 in): the page is `width` points wide whatever the
 * format; fonts are `font_size` points, so text keeps its size in print.
 * PDF and SVG pages have that size (SVG in "pt"); PNG is rendered at `dpi`
 * (width·dpi/72 pixels).  Each panel is an HsFigureView's image panel drawn
 * by the same code as a single figure (raster at the image's native
 * resolution in PDF/SVG; boxes, contours, colour bars and text vector).
 * All panels share one value scale (or one per row or column when asked) and ONE
 * colour bar titled with the quantity; difference panels (A − B) share a
 * symmetric diverging bar. */
#pragma once

#include <glib.h>
#include <cairo.h>

#include "hs-figure.h"
#include "hs-legend.h"

G_BEGIN_DECLS

typedef struct {
  HsFigureView view;        /* content; overlay colours and range come from the grid  */
  const char  *title;       /* after the panel letter, above the panel; NULL: none    */
  const char  *note;        /* under the panel (e.g. what a perturbed prompt is scored against) */
  gboolean     difference;  /* an A − B map: diverging colours, the difference bar     */
  const char  *quantity;    /* what the map measures (the manifest's "quantity"); NULL: unstated */
  const char  *badge;       /* a verdict under the panel, before the note (hs_badge_draw's,
                             * as the compare view shows it); NULL: none */
  HsBadgeTone  badge_tone;
} HsFigurePanel;

typedef enum {
  HS_FIGURE_SCALE_SHARED,   /* one scale (and one bar) for the whole figure */
  HS_FIGURE_SCALE_ROW,      /* one per row, its bar at the row's right      */
  HS_FIGURE_SCALE_COLUMN,   /* one per column, its bar (horizontal) under it */
} HsFigureScaleGroup;

typedef struct {
  const HsFigurePanel *panels;          /* row-major                                   */
  guint                n_panels;
  guint                columns;         /* rows = ceil (n_panels / columns)            */
  const char * const  *row_headers;     /* NULL-terminated, or NULL                    */
  const char * const  *column_headers;  /* NULL-terminated, or NULL                    */
  const char          *quantity;        /* colour-bar title; NULL: the panels' common
                                         * quantity, else "attention weight"; panels
                                         * sharing a bar must not state different ones */
  const char          *caption;         /* NULL: none                                  */
  HsOverlayOptions     overlay;         /* colours and scale of the non-difference panels */
  HsFigureScaleGroup   scale_group;
  double               width;           /* page width in points                        */
  double               font_size;       /* points                                      */
  double               dpi;             /* PNG resolution                              */
  gboolean             letters;         /* a, b, c … before each panel's title         */
  gboolean             region_legend;   /* the region colours under the grid           */
} HsFigureGrid;

/* Defaults: no panels, 1 column, overlay from hs_overlay_options_init,
 * shared scale, 89 mm wide, 7 pt, 300 dpi, letters and region legend on. */
void     hs_figure_grid_init       (HsFigureGrid *grid);
/* The letter of panel `index` (from 0): a … z, then a1 … z1, a2 … */
#define HS_FIGURE_LETTER_SIZE 16
void     hs_figure_panel_letter    (guint index, char letter[HS_FIGURE_LETTER_SIZE]);
/* "89mm", "8.9cm", "3.5in", "252pt" (or a bare number of points) → points. */
gboolean hs_figure_parse_length    (const char *text, double *points, GError **error);
/* Page size in points. */
gboolean hs_figure_grid_get_size   (const HsFigureGrid *grid, double *width, double *height,
                                    GError **error);
/* Draws the page with cairo in points at the origin of cr's user space. */
gboolean hs_figure_grid_draw       (const HsFigureGrid *grid, cairo_t *cr, GError **error);
/* A PNG at grid->dpi (ARGB32). */
cairo_surface_t *hs_figure_grid_render_surface (const HsFigureGrid *grid, GError **error);
/* PNG, SVG or PDF, atomically. */
gboolean hs_figure_grid_save       (const HsFigureGrid *grid, HsFigureFormat format,
                                    const char *path, GError **error);

G_END_DECLS
