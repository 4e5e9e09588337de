/* hs-cli-draw.c — the helpers of the drawing module's commands
 *
 * render, figure and deck (hs-cli-render.c, hs-cli-figure.c, hs-cli-deck*.c)
 * and the part of libheatscope that draws with cairo are built into the
 * shared module heatscope-cli-draw, which heatscope-cli loads only for those
 * commands (hs-cli-module.c): cairo and its X11, fontconfig and freetype
 * libraries cost every other command ~1 ms of start-up.  The module takes
 * the base of libheatscope from the executable, which exports it. */
#include "hs-cli.h"

#include <string.h>

gboolean
hs_cli_overlay_options (const char *command, const char *colormap, const char *scale,
                        double opacity, HsOverlayOptions *overlay)
{
  g_autoptr(GError) error = NULL;

  if (colormap && !hs_colormap_from_string (colormap, &overlay->colormap))
    {
      hs_cli_error (command, "unknown colour map '%s' (jet, turbo, viridis, inferno, grey, diverging)",
                    colormap);
      return FALSE;
    }
  if (!(opacity >= 0 && opacity <= 1))
    {
      hs_cli_error (command, "--opacity must lie in [0, 1]");
      return FALSE;
    }
  overlay->opacity = opacity;
  if (scale && !hs_scale_spec_parse (scale, &overlay->scale, &error))
    {
      hs_cli_error (command, "--scale: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* The map for (model, query): the query is a sentence id or the exact prompt
 * a map was computed for; without --model the first map in manifest order. */
HsMapRef *
hs_cli_find_map (const HsInstance *instance, const char *model, const char *query)
{
  for (guint i = 0; i < instance->maps->len; i++)
    {
      HsMapRef *ref = g_ptr_array_index (instance->maps, i);

      if (model != NULL && g_strcmp0 (ref->model, model) != 0)
        continue;
      if (g_strcmp0 (ref->query, query) == 0 || g_strcmp0 (ref->prompt, query) == 0)
        return ref;
    }
  return NULL;
}

void
hs_cli_targets_clear (HsCliTargets *t)
{
  if (t->masks)
    for (guint i = 0; i < t->masks->len; i++)
      hs_image_unref (g_array_index (t->masks, HsFigureMask, i).mask);
  g_clear_pointer (&t->boxes, g_array_unref);
  g_clear_pointer (&t->masks, g_array_unref);
  g_clear_pointer (&t->colors, g_free);
  g_clear_pointer (&t->key, g_array_unref);
}

/* A region's boxes (each named) and its mask, in `rgba` (NULL: the palette),
 * after the one box check (hs_box_check): a box outside the image or with no
 * pixel inside is an error here as in validate, score and metrics. */
static gboolean
add_region (HsDataset *dataset, const HsInstance *instance, const HsRegion *region,
            guint width, guint height, const double *rgba, gboolean other,
            HsCliTargets *t, GError **error)
{
  g_autoptr(GError) local_error = NULL;

  if (!hs_region_check_boxes (region, width, height, &local_error))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_INVALID, "%s: instance '%s': %s",
                   hs_dataset_get_manifest_path (dataset), instance->id, local_error->message);
      return FALSE;
    }
  for (guint b = 0; region->boxes && b < region->boxes->len; b++)
    {
      const HsBox *box = &g_array_index (region->boxes, HsBox, b);
      HsFigureBox fb = { region->name, box->x1, box->y1, box->x2, box->y2, rgba, other };
      g_array_append_val (t->boxes, fb);
    }
  if (region->mask)
    {
      HsFigureMask fm = { region->name, hs_dataset_load_mask (dataset, region, error), rgba, other };
      if (fm.mask == NULL)
        return FALSE;
      g_array_append_val (t->masks, fm);
    }
  return TRUE;
}

gboolean
hs_cli_collect_layers (HsDataset *dataset, const HsInstance *instance,
                       const HsSentence *sentence, HsCliTargets *t, GError **error)
{
  guint n = instance->regions ? instance->regions->len : 0;
  guint width = 0, height = 0;

  t->boxes = g_array_new (FALSE, FALSE, sizeof (HsFigureBox));
  t->masks = g_array_new (FALSE, FALSE, sizeof (HsFigureMask));
  t->colors = g_new0 (double, 4 * MAX (n, 1));
  t->key = g_array_new (FALSE, TRUE, sizeof (HsRegionKeyEntry));
  if (n > 0 && !hs_dataset_get_image_size (dataset, instance, &width, &height, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const HsRegion *region = g_ptr_array_index (instance->regions, i);
      gboolean target = sentence != NULL && sentence->targets != NULL &&
                        g_strv_contains ((const char * const *) sentence->targets, region->name);
      HsRegionKeyEntry e = { region->name, { 0 }, target, region->mask != NULL };

      hs_region_color (i, t->colors + 4 * i);
      memcpy (e.rgba, t->colors + 4 * i, sizeof e.rgba);
      g_array_append_val (t->key, e);
      if (!add_region (dataset, instance, region, width, height, t->colors + 4 * i, !target, t,
                       error))
        return FALSE;
    }
  return TRUE;
}

gboolean
hs_cli_collect_targets (HsDataset *dataset, const HsInstance *instance,
                        const HsSentence *sentence, HsCliTargets *t, GError **error)
{
  guint width = 0, height = 0;

  t->boxes = g_array_new (FALSE, FALSE, sizeof (HsFigureBox));
  t->masks = g_array_new (FALSE, FALSE, sizeof (HsFigureMask));
  if (sentence == NULL || sentence->targets == NULL)
    return TRUE;
  if (!hs_dataset_get_image_size (dataset, instance, &width, &height, error))
    return FALSE;
  for (guint i = 0; sentence->targets[i]; i++)
    {
      HsRegion *region = hs_instance_find_region (instance, sentence->targets[i]);

      if (region == NULL)
        {
          g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                       "%s: sentence '%s' of instance '%s' names a region '%s' that does not exist",
                       hs_dataset_get_root (dataset), sentence->id, instance->id,
                       sentence->targets[i]);
          return FALSE;
        }
      if (!add_region (dataset, instance, region, width, height, NULL, FALSE, t, error))
        return FALSE;
    }
  return TRUE;
}
