/* hs-legend.h — the colour bar, No-Attn gauge, caption and region palette
 *
 * Written once for every view that shows them: the canvas HUD, the compare
 * view's shared bar and every exported figure (app and CLI).  Geometry is
 * computed once into plain structs (HsLegendLayout, HsCaptionLine) and
 * painted by whoever needs it; text is measured and drawn with cairo's toy
 * API, numbers are formatted in the C locale.
 *
 * Vertical legend (canvas, figure), in its own box from (0, 0):
 *
 *         0.41 ┬         ┌─┐
 *   ┌──┐ ─ 0.4 │ scale   │ │ No-
 *   │██│ ─ 0.2 │ label   │█│ Attn
 *   └──┘ ─ 0   ┴ (−90°)  └─┘ mass
 *
 * or, with title_above (the canvas HUD), the title in horizontal lines
 * above the bar — the quantity, the scale, the strength curve:
 *
 *   attention weight
 *   min–max 3.62e-06 to 0.452
 *   ┌──┐ ─ 0.4   ┌─┐ No-
 *   …
 *
 * Horizontal legend (compare view): the title above, the bar, tick values
 * under it, the gauge (if any) at the right end. */
#pragma once

#include <glib.h>
#include <cairo.h>

#include "hs-metrics.h"
#include "hs-overlay.h"

G_BEGIN_DECLS

#define HS_LEGEND_ERROR (hs_legend_error_quark ())
GQuark hs_legend_error_quark (void);

typedef enum {
  HS_LEGEND_ERROR_RANGE,     /* the colour-bar range is not finite, or hi < lo        */
  HS_LEGEND_ERROR_INVALID,   /* length or font size not a positive finite number     */
} HsLegendError;

/* Ends + at most 6 nice ticks, after clashes are removed. */
#define HS_LEGEND_MAX_TICKS 8
#define HS_LEGEND_TITLE_SIZE 256
/* Lines of a title above a vertical bar (title_above). */
#define HS_LEGEND_TITLE_LINES 5

/* What the legend shows, and in which orientation. */
typedef struct {
  HsOverlayOptions  overlay;     /* colours exactly as the map uses them, threshold included */
  HsScaleRange      range;       /* map units of the bar's ends                              */
  const char       *title;       /* NULL: hs_legend_scale_label (&overlay, &range); "": none  */
  gboolean          show_bar;    /* FALSE: the gauge alone                                    */
  double            no_attn;     /* NAN: no gauge                                             */
  gboolean          horizontal;  /* compare view; FALSE for the HUD and the figure            */
  double            length;      /* along the bar, output units (grown to fit both end values) */
  double            font_size;   /* output units                                              */
  /* Vertical only: the title in horizontal lines above the bar instead of
   * rotated beside it, led by what the values measure (bold): `quantity`,
   * NULL meaning hs_legend_default_quantity (); then the scale with its
   * range and the strength curve (or `title` when set). */
  gboolean          title_above;
  const char       *quantity;
} HsLegendSpec;

/* Where everything goes, relative to the legend's top-left corner. */
typedef struct {
  double   width, height;                       /* all of it                                */
  double   font_size;                           /* of the tick values and titles            */
  gboolean has_bar;
  double   bar_x, bar_y, bar_w, bar_h;
  double   gauge_x, gauge_y, gauge_w, gauge_h;  /* gauge_w == 0: none                       */
  guint    n_ticks;                             /* increasing values; both ends always      */
  double   tick_value[HS_LEGEND_MAX_TICKS];
  double   tick_pos[HS_LEGEND_MAX_TICKS];       /* y (vertical) or x (horizontal) of the tick */
  double   tick_text_x[HS_LEGEND_MAX_TICKS];    /* baseline start of its text               */
  double   tick_text_y[HS_LEGEND_MAX_TICKS];
  double   tick_text_w[HS_LEGEND_MAX_TICKS];
  char     tick_text[HS_LEGEND_MAX_TICKS][G_ASCII_DTOSTR_BUF_SIZE];
  char     title[HS_LEGEND_TITLE_SIZE];          /* "" = none                                */
  double   title_x, title_y, title_angle;       /* baseline centre (vertical) or start      */
  char     gauge_text[G_ASCII_DTOSTR_BUF_SIZE];  /* the No-Attn value                        */
  double   gauge_text_x, gauge_text_y;          /* baseline centre                          */
  double   gauge_label_x, gauge_label_y, gauge_label_angle;  /* "No-Attn mass", centre      */
  /* title_above: `title` is these lines joined by " · "; each starts at
   * title_x, on its baseline title_line_y[i]; title_angle is 0. */
  guint    n_title_lines;
  char     title_line[HS_LEGEND_TITLE_LINES][HS_LEGEND_TITLE_SIZE];
  double   title_line_y[HS_LEGEND_TITLE_LINES];
  gboolean title_line_bold[HS_LEGEND_TITLE_LINES];
} HsLegendLayout;

/* Defaults: overlay from hs_overlay_options_init, range [0, 1], title NULL,
 * bar shown, no gauge, vertical, length 200, font size 12. */
void     hs_legend_spec_init   (HsLegendSpec *spec);
/* FALSE with HS_LEGEND_ERROR for a non-finite range (a bar shown) or a bad
 * length or font size; terminates for every finite range. */
gboolean hs_legend_layout      (const HsLegendSpec *spec, HsLegendLayout *out, GError **error);
/* Paints `layout` with cairo at (x, y): text, ticks and outlines in `ink`. */
void     hs_legend_draw        (const HsLegendSpec *spec, const HsLegendLayout *layout,
                                cairo_t *cr, double x, double y, const double ink[4]);

/* "min–max 0 to 1", "percentile 1 to 99 % · γ 0.5", "fixed 0 to 0.1 · log b=10":
 * ranges with " to ", never a dash that reads as a minus sign. */
char    *hs_legend_scale_label (const HsOverlayOptions *overlay, const HsScaleRange *range);
/* "attention weight", translated: what a map measures when its manifest
 * does not say (HsMapRef.quantity NULL). */
const char *hs_legend_default_quantity (void);
/* A value of a bar on [lo, hi], C locale: fixed decimals that show a tenth
 * of the span ("0.005"), else scientific ("1.7e+308"); never "-0". */
void     hs_legend_format_tick (double value, double lo, double hi,
                                char buf[G_ASCII_DTOSTR_BUF_SIZE]);
/* Nice values (1, 2, 5 × 10^k) in [lo, hi], increasing, at most max_ticks
 * (≤ 64); for any finite lo ≤ hi it returns within a few dozen steps.
 * Returns the count; 0 for a non-finite bound. */
guint    hs_legend_nice_ticks  (double lo, double hi, guint max_ticks, double *ticks);

/* ---- caption ---- */

typedef struct {
  const char *prompt;     /* shown bold and quoted; NULL or "" = none */
  const char *model;      /* "model M · instance I" under it          */
  const char *instance;
  /* A built-in (phantom-trained) model's map of a real image
   * (hs_model_is_phantom_trained_on_real): a bold line of its own,
   * hs_caption_phantom_note (), after the model line. */
  gboolean    phantom_model_on_real_image;
} HsCaption;

typedef struct {
  char    *text;
  gboolean bold;
  double   size;          /* font size                        */
  double   y;             /* baseline, from the caption's top */
  double   width;
} HsCaptionLine;

/* The caption word-wrapped to `width`: the prompt (bold, `font_size`), then
 * the model/instance line (0.85 × font_size), then the phantom note (bold,
 * 0.85 × font_size) when flagged.  With max_lines > 0 at most that many
 * lines: the note's lines are kept first (a view never loses it), the prompt
 * keeps one less when there is a model or instance, the last of a cut part
 * ends in "…".  A GPtrArray of
 * HsCaptionLine*; `height` (may be NULL) gets the height of all lines. */
GPtrArray *hs_caption_layout    (const HsCaption *caption, double width, double font_size,
                                 guint max_lines, double *height);
/* Draws the lines with cairo, the caption's top-left at (x, y). */
void       hs_caption_draw      (GPtrArray *lines, cairo_t *cr, double x, double y,
                                 const double ink[4]);
/* One line for a label: "“prompt” · model M · instance I" (then
 * " · phantom-trained model on a real image" when flagged). */
char      *hs_caption_to_string (const HsCaption *caption);
/* `text` (a prompt) in double curly quotes, its own double quotes (" “ ”)
 * turned into single ones (‘ ’), so that a caption's quotes never nest;
 * invalid UTF-8 made valid.  Free with g_free. */
char      *hs_caption_quote     (const char *text);
/* The one-line caption of a comparison, from its fields: "I · “a”" for two
 * maps of one prompt, "I · A “a” · B “b”" for a prompt and another (its
 * left/right swap); each prompt quoted by hs_caption_quote, NULL or empty
 * fields left out (translated).  Free with g_free. */
char      *hs_caption_compare_string (const char *instance, const char *prompt_a,
                                      const char *prompt_b);
/* "phantom-trained model on a real image", translated: the words every view
 * and export uses for HsCaption.phantom_model_on_real_image. */
const char *hs_caption_phantom_note (void);

/* ---- regions ---- */

/* The colour of region item `index`: box i is index i, mask j is index
 * n_boxes + j (all boxes first), cycling through six colours. */
void     hs_region_color       (guint index, double rgba[4]);
/* Top-left of a label_w × label_h label for an item whose top-left is
 * (x1, y1): `gap` above it, or `gap` inside it when above would cross
 * clip_y; never left of clip_x.  When (x1, y1) lies inside the clip
 * rectangle (clip_x, clip_y, clip_w, clip_h; INFINITY for no right or
 * bottom edge), the label is also moved left / up as far as needed to end
 * inside it (a label wider or taller than the clip starts at its left or
 * top). */
void     hs_region_label_place (double x1, double y1, double label_w, double label_h,
                                double gap, double clip_x, double clip_y, double clip_w,
                                double clip_h, double *lx, double *ly);
/* A region's name in its colour on a dark box, placed by
 * hs_region_label_place; `line_width` is the item's outline width. */
void     hs_region_label_draw  (cairo_t *cr, const char *name, double x1, double y1,
                                double clip_x, double clip_y, double clip_w, double clip_h,
                                double font_size, double line_width, const double rgba[4]);

/* ---- badges ---- */

/* A short verdict in a filled box ("followed the words", "WRONG SIDE"),
 * drawn by this one function on screen (the compare view) and in exported
 * figures, so both say the same in the same colours. */
typedef enum {
  HS_BADGE_GOOD,      /* green: followed the words, same side   */
  HS_BADGE_NEUTRAL,   /* grey: ignored the words, n/a           */
  HS_BADGE_BAD,       /* orange: moved the wrong way            */
  HS_BADGE_ALERT,     /* red: WRONG SIDE (one map, its own target) */
} HsBadgeTone;

HsBadgeTone hs_badge_tone_for_swap (HsSwapVerdict verdict);
/* Size of the badge of `text` at `font_size` (bold, padded). */
void        hs_badge_size          (const char *text, double font_size,
                                    double *width, double *height);
/* The badge with its top-left at (x, y). */
void        hs_badge_draw          (cairo_t *cr, const char *text, HsBadgeTone tone,
                                    double x, double y, double font_size);

/* Labels of several items placed together: each where
 * hs_region_label_place puts it, then (in order) moved down to just below
 * any label placed before it that it would overlap, until it overlaps none;
 * one pushed out of the clip's bottom that way is instead moved up from the
 * bottom to just above each label it would overlap.  Every label ends
 * inside the clip (when it fits in it), the first where
 * hs_region_label_place puts it, and no two overlap (touching is allowed)
 * unless the labels of one column are together taller than the clip. */
typedef struct {
  double x1, y1;     /* the item's top-left                  */
  double w, h;       /* the label's size                     */
  double lx, ly;     /* out: the label's top-left            */
} HsLabelSlot;

void     hs_region_labels_place (HsLabelSlot *slots, guint n, double gap,
                                 double clip_x, double clip_y, double clip_w, double clip_h);
/* The same, with areas no label may cover (the n_keep_out rectangles at
 * `keep_out`, their lx, ly, w, h: the region key and the colour bar drawn
 * over the view) treated as labels placed before the first: each label is
 * moved below (or, pushed out of the clip's bottom, above) one it would
 * overlap — or, for a kept-out area, just left of it when that is the
 * shorter move and stays in the clip. */
void     hs_region_labels_place_avoiding (HsLabelSlot *slots, guint n,
                                          const HsLabelSlot *keep_out, guint n_keep_out,
                                          double gap, double clip_x, double clip_y,
                                          double clip_w, double clip_h);
/* The size of a region's name label (hs_region_label_draw's box). */
void     hs_region_label_size   (const char *name, double font_size, double *width,
                                 double *height);
/* The label with its top-left at (lx, ly), as placed by the two above. */
void     hs_region_label_draw_at (cairo_t *cr, const char *name, double lx, double ly,
                                  double font_size, const double rgba[4]);

/* ---- region key: which colour is which region ---- */

typedef struct {
  const char *name;
  double      rgba[4];
  gboolean    target;    /* a target of the query: bold name, solid swatch  */
  gboolean    mask;      /* drawn as a contour (else as a box)              */
} HsRegionKeyEntry;

/* One row per entry: a swatch in the entry's colour (a square outline for
 * a box, a rounded one for a mask; thin for a non-target) and the name.
 * Sizes in output units from the top-left corner. */
void     hs_region_key_size     (const HsRegionKeyEntry *entries, guint n, double font_size,
                                 double *width, double *height);
void     hs_region_key_draw     (cairo_t *cr, const HsRegionKeyEntry *entries, guint n,
                                 double x, double y, double font_size, const double ink[4]);

G_END_DECLS
