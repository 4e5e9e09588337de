/* hs-figure-spec.h — a publication figure described in a small JSON file
 *
 *   {
 *     "format": "heatscope-figure", "version": 1,          (both optional)
 *     "columns": 3, "width": "183mm", "dpi": 300, "font_size": 7,
 *     "colormap": "jet", "scale": "minmax", "scale_group": "shared" | "row" | "column",
 *     "opacity": 0.5, "threshold": 0.2, "quantity": "attention weight", "caption": "Figure 2. …",
 *     "row_headers": ["…"], "column_headers": ["…"], "letters": true, "region_legend": true,
 *     "tags": false,                     (tag-attention strips under the panels)
 *     "panels": [
 *       { "instance": "ID", "query": "s1" | "prompt": "free text",
 *         "model": "precomputed model" | "live": "grounded" | "blind" | "noattn" | "backend-exec",
 *         "perturbation": "swap-left-right", "title": "…" },
 *       { "diff": [1, 2] }                   (panel 1 − panel 2, numbers from 1)
 *     ]
 *   }
 *
 * Every member but "panels" is optional; unknown members are errors.  The
 * file is untrusted input, read like the manifest: at most
 * HS_FIGURE_SPEC_MAX_BYTES, valid UTF-8, strict JSON nested at most 64
 * deep, at most HS_FIGURE_SPEC_MAX_PANELS panels, texts at most
 * HS_FIGURE_SPEC_MAX_TEXT characters.  "live": "backend-exec" only names
 * the external backend: its COMMAND comes from the command line
 * (--backend-exec), never from a spec file.  Errors name the file and the
 * JSON path of the problem ("fig.json: $.panels[2].live: …"). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_FIGURE_SPEC_MAX_BYTES   (1 << 20)
#define HS_FIGURE_SPEC_MAX_PANELS  256
#define HS_FIGURE_SPEC_MAX_TEXT    4096

typedef enum {
  HS_FIGURE_SOURCE_PRECOMPUTED,  /* the dataset's map of `model` (NULL: any model) */
  HS_FIGURE_SOURCE_LIVE,         /* a built-in model run now: `model` is its name  */
  HS_FIGURE_SOURCE_EXEC,         /* the command line's --backend-exec              */
} HsFigureSource;

typedef struct {
  char          *instance;
  char          *query;        /* a sentence id (or, precomputed, a map's prompt) */
  char          *prompt;       /* free text instead of a query                    */
  char          *model;
  HsFigureSource source;
  gboolean       swap;         /* swap-left-right: scored against the original    */
  char          *title;        /* NULL: the prompt                                */
  guint          diff_a, diff_b; /* a difference panel: numbers from 1; else 0    */
} HsFigureSpecPanel;

typedef struct {
  GPtrArray *panels;           /* of HsFigureSpecPanel*                           */
  guint      columns;          /* 0: unset                                        */
  char      *width;            /* NULL: unset ("183mm", as --width)               */
  double     dpi, font_size, opacity;  /* NAN: unset                              */
  double     threshold;        /* NAN: unset; scaled values below it fade out     */
  char      *colormap, *scale, *scale_group, *quantity, *caption;
  char     **row_headers, **column_headers;
  int        letters, region_legend;   /* -1: unset, else 0/1                     */
  int        tags;                     /* -1: unset, else 0/1: tag strips (co-attention) */
} HsFigureSpec;

/* Reads and checks the spec file at `path`; NULL with HS_FIGURE_ERROR_INVALID
 * (or the file's read error) naming the file. */
HsFigureSpec *hs_figure_spec_load   (const char *path, GError **error);
/* The same for `len` bytes of text; `display` names it in errors. */
HsFigureSpec *hs_figure_spec_parse  (const char *text, gsize len, const char *display,
                                     GError **error);
void          hs_figure_spec_free   (HsFigureSpec *spec);
void          hs_figure_spec_panel_free (HsFigureSpecPanel *panel);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsFigureSpec, hs_figure_spec_free)

G_END_DECLS
