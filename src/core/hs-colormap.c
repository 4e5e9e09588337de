/* hs-colormap.c — 256-entry colour maps for attention overlays */
#include "hs-colormap.h"

#include <math.h>
#include <string.h>

#include "hs-colormap-tables.h"

static guint8 hs_lut_grey[256 * 3];

typedef struct {
  const char   *name;
  const char   *title;
  const guint8 *lut;
} HsColormapInfo;

static const HsColormapInfo colormaps[HS_COLORMAP_N_MAPS] = {
  [HS_COLORMAP_JET]       = { "jet",       "Jet",                    hs_lut_jet },
  [HS_COLORMAP_TURBO]     = { "turbo",     "Turbo",                  hs_lut_turbo },
  [HS_COLORMAP_VIRIDIS]   = { "viridis",   "Viridis",                hs_lut_viridis },
  [HS_COLORMAP_INFERNO]   = { "inferno",   "Inferno",                hs_lut_inferno },
  [HS_COLORMAP_GREY]      = { "grey",      "Grey",                   hs_lut_grey },
  [HS_COLORMAP_DIVERGING] = { "diverging", "Diverging (cool–warm)",  hs_lut_diverging },
};

static void
init_grey (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      for (guint i = 0; i < 256; i++)
        hs_lut_grey[3 * i] = hs_lut_grey[3 * i + 1] = hs_lut_grey[3 * i + 2] = (guint8) i;
      g_once_init_leave (&done, 1);
    }
}

const char *
hs_colormap_to_string (HsColormap map)
{
  g_return_val_if_fail ((guint) map < HS_COLORMAP_N_MAPS, NULL);
  return colormaps[map].name;
}

const char *
hs_colormap_get_title (HsColormap map)
{
  g_return_val_if_fail ((guint) map < HS_COLORMAP_N_MAPS, NULL);
  return colormaps[map].title;
}

gboolean
hs_colormap_from_string (const char *name, HsColormap *map)
{
  g_return_val_if_fail (map != NULL, FALSE);

  if (name == NULL)
    return FALSE;
  for (guint i = 0; i < HS_COLORMAP_N_MAPS; i++)
    if (g_ascii_strcasecmp (name, colormaps[i].name) == 0)
      {
        *map = (HsColormap) i;
        return TRUE;
      }
  if (g_ascii_strcasecmp (name, "gray") == 0)
    {
      *map = HS_COLORMAP_GREY;
      return TRUE;
    }
  if (g_ascii_strcasecmp (name, "coolwarm") == 0)
    {
      *map = HS_COLORMAP_DIVERGING;
      return TRUE;
    }
  return FALSE;
}

gboolean
hs_colormap_is_diverging (HsColormap map)
{
  return map == HS_COLORMAP_DIVERGING;
}

const guint8 *
hs_colormap_get_lut (HsColormap map)
{
  g_return_val_if_fail ((guint) map < HS_COLORMAP_N_MAPS, NULL);
  if (map == HS_COLORMAP_GREY)
    init_grey ();
  return colormaps[map].lut;
}

void
hs_colormap_lookup (HsColormap map, double t, double rgb[3])
{
  const guint8 *lut;
  guint i;

  g_return_if_fail ((guint) map < HS_COLORMAP_N_MAPS);
  g_return_if_fail (rgb != NULL);

  lut = hs_colormap_get_lut (map);
  if (!(t > 0))       /* also NaN */
    t = 0;
  if (t > 1)
    t = 1;
  i = (guint) lround (t * 255.0);
  for (guint c = 0; c < 3; c++)
    rgb[c] = lut[3 * i + c] / 255.0;
}
