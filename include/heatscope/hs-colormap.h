/* hs-colormap.h — 256-entry colour maps for attention overlays */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* jet (matplotlib's), turbo (Google), viridis and inferno (matplotlib), grey,
 * and a diverging map for differences (matplotlib's "coolwarm", blue → white
 * → red; the centre entry is the zero of a symmetric range). */
typedef enum {
  HS_COLORMAP_JET,
  HS_COLORMAP_TURBO,
  HS_COLORMAP_VIRIDIS,
  HS_COLORMAP_INFERNO,
  HS_COLORMAP_GREY,
  HS_COLORMAP_DIVERGING,
  HS_COLORMAP_N_MAPS,
} HsColormap;

#define HS_COLORMAP_SIZE 256

/* "jet", "turbo", "viridis", "inferno", "grey", "diverging". */
const char   *hs_colormap_to_string   (HsColormap map);
/* Accepts the names above case-insensitively, plus "gray", "coolwarm". */
gboolean      hs_colormap_from_string (const char *name, HsColormap *map);
/* Human name for menus ("Jet", "Turbo", ..., "Diverging (cool–warm)"). */
const char   *hs_colormap_get_title   (HsColormap map);
gboolean      hs_colormap_is_diverging (HsColormap map);

/* The LUT: HS_COLORMAP_SIZE × 3 bytes (R, G, B), entry 0 = lowest value. */
const guint8 *hs_colormap_get_lut     (HsColormap map);
/* Colour of t ∈ [0, 1] (clamped; NaN → 0): the nearest LUT entry
 * round(t·255), as 0..1 doubles. */
void          hs_colormap_lookup      (HsColormap map, double t, double rgb[3]);

G_END_DECLS
