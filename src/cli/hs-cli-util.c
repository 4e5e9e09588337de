/* hs-cli-util.c — shared helpers of the subcommands */
#include "hs-cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

char *
hs_cli_message_valist (const char *command, const char *format, va_list args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);
  /* Messages quote ids, names and paths from the input: a newline or an
   * escape sequence in them must not forge lines or drive the terminal. */
  g_autofree char *safe = hs_text_escape_controls (message);

  return g_strdup_printf ("heatscope-cli %s: %s", command, safe);
}

void
hs_cli_error (const char *command, const char *format, ...)
{
  va_list args;
  g_autofree char *line = NULL;

  va_start (args, format);
  line = hs_cli_message_valist (command, format, args);
  va_end (args);
  fprintf (stderr, "%s\n", line);
}

void
hs_cli_print_line (FILE *out, const char *text)
{
  g_autofree char *safe = hs_text_escape_controls (text);

  fprintf (out, "%s\n", safe);
}

gboolean
hs_cli_parse (GOptionContext *context, int *argc, char ***argv, const char *command)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      hs_cli_error (command, "%s", error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_cli_parse_dataset (GOptionContext *context, int *argc, char ***argv, const char *command)
{
  if (!hs_cli_parse (context, argc, argv, command))
    return FALSE;
  if (*argc != 2)
    {
      hs_cli_error (command, *argc < 2 ? "missing DATASET (a folder or its heatscope.json)"
                                       : "expected exactly one DATASET");
      return FALSE;
    }
  return TRUE;
}

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

gboolean
hs_cli_parse_shard (const char *command, const char *text, guint *k, guint *n)
{
  g_auto(GStrv) parts = NULL;
  guint64 a, b;

  if (text == NULL)
    return TRUE;
  parts = g_strsplit (text, "/", -1);
  if (g_strv_length (parts) != 2 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 1, G_MAXUINT, &a, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT, &b, NULL) || a > b)
    {
      hs_cli_error (command, "--shard wants K/N with 1 ≤ K ≤ N, not \"%s\"", text);
      return FALSE;
    }
  *k = (guint) a;
  *n = (guint) b;
  return TRUE;
}

/* Prints that `text` is not a `what` the command knows, naming those
 * there are; FALSE, for the parsers below. */
static gboolean
unknown_choice (const char *command, const char *what, const char *text, const char *names)
{
  hs_cli_error (command, "unknown %s \"%s\" (%s)", what, text, names);
  return FALSE;
}

gboolean
hs_cli_parse_protocol (const char *command, const char *text, HsProtocol *protocol)
{
  return text == NULL || hs_protocol_from_string (text, protocol) ||
         unknown_choice (command, "protocol", text, "default, gloria, chexlocalize");
}

gboolean
hs_cli_parse_upsample (const char *command, const char *text, HsUpsample *upsample)
{
  return text == NULL || hs_upsample_from_string (text, upsample) ||
         unknown_choice (command, "upsampling", text, "bilinear, nearest");
}

gboolean
hs_cli_parse_perturbation (const char *command, const char *text, HsPerturbation *perturbation)
{
  return text == NULL || hs_perturbation_from_string (text, perturbation) ||
         unknown_choice (command, "perturbation", text,
                         "swap-left-right, shuffle-in-report, random-sentence, random-boxes, "
                         "synthetic-swapped-condition");
}

gboolean
hs_cli_check_timeout (const char *command, int timeout_s)
{
  if (timeout_s <= 0 || timeout_s > 24 * 3600)
    {
      hs_cli_error (command, "--timeout must be between 1 and 86400 seconds, not %d", timeout_s);
      return FALSE;
    }
  return TRUE;
}

HsBackendExec *
hs_cli_backend_exec_new (const char *command, const char *backend_command, int timeout_s)
{
  g_autoptr(GError) error = NULL;
  HsBackendExec *backend;

  if (!hs_cli_check_timeout (command, timeout_s))
    return NULL;
  backend = hs_backend_exec_new (backend_command, &error);
  if (backend == NULL)
    {
      hs_cli_error (command, "%s", error->message);
      return NULL;
    }
  hs_backend_exec_set_timeout (backend, (guint) timeout_s * 1000);
  return backend;
}

gboolean
hs_cli_parse_seed (const char *command, const char *option, const char *text, guint64 *seed)
{
  if (text != NULL && !g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, seed, NULL))
    {
      hs_cli_error (command, "--%s wants a non-negative integer, not \"%s\"", option, text);
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

void
hs_cli_describe_metrics (GOptionContext *context, const char *text)
{
  g_autofree char *table = hs_metric_info_format_help (80);
  g_autofree char *description = g_strdup_printf ("%s%sMetrics (name  range, direction; what it says):\n%s",
                                                  text != NULL ? text : "", text != NULL ? "\n\n" : "",
                                                  table);

  g_option_context_set_description (context, description);
}
