/* hs-legend-private.h — the legend painted through an HsPainter
 *
 * The figure draws its legend, caption and region labels with these, so the
 * SVG back end keeps real text; the public hs_legend_draw, hs_caption_draw
 * and hs_region_label_draw are the same code on a cairo painter. */
#pragma once

#include "hs-legend.h"
#include "hs-painter-private.h"

G_BEGIN_DECLS

gboolean   hs_legend_layout_with  (HsPainter *p, const HsLegendSpec *spec, HsLegendLayout *out,
                                   GError **error);
void       hs_legend_paint        (HsPainter *p, const HsLegendSpec *spec,
                                   const HsLegendLayout *layout, double x, double y,
                                   const double ink[4]);
GPtrArray *hs_caption_layout_with (HsPainter *p, const HsCaption *caption, double width,
                                   double font_size, guint max_lines, double *height);
void       hs_caption_paint       (HsPainter *p, GPtrArray *lines, double x, double y,
                                   const double ink[4]);
void       hs_region_label_paint  (HsPainter *p, const char *name, double x1, double y1,
                                   double clip_x, double clip_y, double clip_w, double clip_h,
                                   double font_size, double line_width, const double rgba[4]);
void       hs_badge_paint         (HsPainter *p, const char *text, HsBadgeTone tone,
                                   double x, double y, double font_size);

void       hs_region_label_measure (HsPainter *p, const char *name, double font_size,
                                    double *width, double *height);
void       hs_region_label_paint_at (HsPainter *p, const char *name, double lx, double ly,
                                     double font_size, const double rgba[4]);
void       hs_region_key_measure  (HsPainter *p, const HsRegionKeyEntry *entries, guint n,
                                   double font_size, double *width, double *height);
void       hs_region_key_paint    (HsPainter *p, const HsRegionKeyEntry *entries, guint n,
                                   double x, double y, double font_size, const double ink[4]);

/* `text` cut with "…" to fit `width` at `size` (at least its first
 * character and the "…"); the text itself when it fits. */
char      *hs_painter_fit_text    (HsPainter *p, const char *text, double size, gboolean bold,
                                   double width);

/* A map's tag attention as a bar strip `width` wide (hs-tag-bars.c): a
 * title with the normalised entropy, then a row per tag in the model's
 * order — name, bar on a fixed 0–1 scale, weight with three decimals, the
 * largest bold; a list longer than HS_TAG_BARS_MAX_ROWS shows its largest
 * tags and a last line "+ N more tags (together W)".  Text at about
 * 0.85 × `font_size`.  Height 0 (nothing drawn) without tags. */
#define HS_TAG_BARS_MAX_ROWS 12
void       hs_tag_bars_measure    (HsPainter *p, const HsTagWeight *tags, guint n, double width,
                                   double font_size, double *height);
void       hs_tag_bars_paint      (HsPainter *p, const HsTagWeight *tags, guint n, double x,
                                   double y, double width, double font_size, const double ink[4]);

G_END_DECLS
