/* hs-window-layers.c — every region of the instance on the canvas, and
 * linking sentences to regions
 *
 * The layers panel lists the instance's regions; the canvas draws the
 * visible ones in their colours, the selected sentence's targets bold.
 * win.link-target ("(sb)": region name, linked) adds or removes a target of
 * the selected sentence, writes the manifest (hs_dataset_save: temp file,
 * fsync, rename) and refreshes the canvas and the metrics; win.undo
 * (Ctrl+Z) puts the previous targets back and writes the manifest again.
 * The undo history is in memory, per window, and ends with the dataset.
 */
#include <glib/gi18n.h>
#include <heatscope/hs-legend.h>

#include "hs-window-private.h"
#include "hs-layers-panel.h"
#include "hs-utils-private.h"

typedef struct {
  HsDataset *dataset;     /* the edit's dataset: undo applies only to it */
  char      *instance;
  char      *sentence;
  char     **targets;     /* before the edit */
} LinkEdit;

static void
link_edit_free (LinkEdit *edit)
{
  hs_dataset_unref (edit->dataset);
  g_free (edit->instance);
  g_free (edit->sentence);
  g_strfreev (edit->targets);
  g_free (edit);
}

/* ---- the layers on the canvas ------------------------------------------- */

/* The mask of `region` for the layers, loaded once per instance.  A
 * target's broken mask is reported by the targets' own loading already. */
static HsImage *
layer_mask (HsWindow *self, const HsRegion *region, gboolean report)
{
  g_autoptr(GError) error = NULL;
  HsImage *mask;

  if (region->mask == NULL)
    return NULL;
  if (self->layer_masks_instance != self->instance || self->layer_masks_dataset != self->dataset)
    {
      g_hash_table_remove_all (self->layer_masks);
      self->layer_masks_instance = self->instance;
      g_clear_pointer (&self->layer_masks_dataset, hs_dataset_unref);
      self->layer_masks_dataset = hs_dataset_ref (self->dataset);
    }
  if (g_hash_table_lookup_extended (self->layer_masks, region, NULL, (gpointer *) &mask))
    return mask;
  mask = hs_dataset_load_mask (self->dataset, region, &error);
  if (mask == NULL && report)
    hs_error_bar_add_error (self->error_bar, self->instance->id, error);
  /* NULL too, so a broken mask is reported once */
  g_hash_table_insert (self->layer_masks, (gpointer) region, mask);
  return mask;
}

void
_hs_window_layers_show (HsWindow *self)
{
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);
  HsLayersPanel *panel = self->layers_panel ? HS_LAYERS_PANEL (self->layers_panel) : NULL;
  g_autoptr(GPtrArray) regions = g_ptr_array_new ();
  g_autoptr(GPtrArray) masks = g_ptr_array_new ();
  g_autoptr(GArray) colors = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) targets = g_array_new (FALSE, FALSE, sizeof (gboolean));
  HsInstance *instance = self->dataset != NULL ? self->instance : NULL;

  if (panel == NULL)
    return;
  hs_layers_panel_set_instance (panel, instance, sentence);
  _hs_window_layers_update_actions (self);
  if (instance == NULL)
    {
      hs_canvas_set_regions (HS_CANVAS (self->canvas), NULL, NULL);
      return;
    }
  for (guint i = 0; instance->regions && i < instance->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (instance->regions, i);
      gboolean target = sentence != NULL && sentence->targets != NULL &&
                        g_strv_contains ((const char * const *) sentence->targets, region->name);
      double rgba[4];

      if (!hs_layers_panel_get_region_visible (panel, region->name))
        continue;
      hs_region_color (i, rgba);
      g_ptr_array_add (regions, (gpointer) region);
      g_ptr_array_add (masks, layer_mask (self, region, !target));
      g_array_append_vals (colors, rgba, 4);
      g_array_append_val (targets, target);
    }
  hs_canvas_set_region_layers (HS_CANVAS (self->canvas), regions, masks,
                               (const double *) colors->data, (const gboolean *) targets->data);
}

static void
on_visibility_changed (HsLayersPanel *panel, HsWindow *self)
{
  _hs_window_layers_show (self);
}

/* ---- linking ------------------------------------------------------------ */

/* The sentence's targets become `targets`, and the manifest is written;
 * on a write error the sentence keeps its targets. */
static gboolean
set_targets (HsWindow *self, HsInstance *instance, HsSentence *sentence,
             const char * const *targets, GError **error)
{
  g_auto(GStrv) before = g_strdupv (sentence->targets);

  if (!hs_dataset_is_complete (self->dataset))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   _("%s: the manifest is still being read; link regions when it is loaded"),
                   hs_dataset_get_manifest_path (self->dataset));
      return FALSE;
    }
  /* Worker threads (subsets, the wrong-side scan) may read the targets. */
  hs_dataset_set_sentence_targets (self->dataset, instance, sentence, targets);
  if (!hs_dataset_save (self->dataset, error))
    {
      hs_dataset_set_sentence_targets (self->dataset, instance, sentence,
                                       (const char * const *) before);
      return FALSE;
    }
  return TRUE;
}

gboolean
_hs_window_link_target (HsWindow *self, const char *region, gboolean linked, GError **error)
{
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);
  g_autoptr(GPtrArray) targets = g_ptr_array_new ();
  gboolean present = FALSE;
  LinkEdit *edit;

  if (self->dataset == NULL || self->instance == NULL || sentence == NULL)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                   _("Select a sentence of the dataset before linking regions to it"));
      return FALSE;
    }
  if (hs_instance_find_region (self->instance, region) == NULL)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                   _("Instance %s has no region “%s”"), self->instance->id, region);
      return FALSE;
    }
  for (guint i = 0; sentence->targets && sentence->targets[i]; i++)
    {
      if (g_strcmp0 (sentence->targets[i], region) == 0)
        {
          present = TRUE;
          if (linked)
            g_ptr_array_add (targets, sentence->targets[i]);
        }
      else
        g_ptr_array_add (targets, sentence->targets[i]);
    }
  if (present == linked)
    return TRUE;   /* nothing to change, nothing to undo */
  if (linked)
    g_ptr_array_add (targets, (gpointer) region);
  g_ptr_array_add (targets, NULL);

  edit = g_new0 (LinkEdit, 1);
  edit->dataset = hs_dataset_ref (self->dataset);
  edit->instance = g_strdup (self->instance->id);
  edit->sentence = g_strdup (sentence->id);
  edit->targets = g_strdupv (sentence->targets);
  if (!set_targets (self, self->instance, sentence, (const char * const *) targets->pdata, error))
    {
      link_edit_free (edit);
      return FALSE;
    }
  g_ptr_array_add (self->link_undo, edit);
  return TRUE;
}

gboolean
_hs_window_undo_link (HsWindow *self, GError **error)
{
  LinkEdit *edit;
  HsInstance *instance;
  HsSentence *sentence;

  if (self->link_undo->len == 0)
    return TRUE;
  edit = g_ptr_array_steal_index (self->link_undo, self->link_undo->len - 1);
  instance = edit->dataset == self->dataset ? hs_dataset_find_instance (self->dataset, edit->instance)
                                            : NULL;
  sentence = instance ? hs_instance_find_sentence (instance, edit->sentence) : NULL;
  if (sentence == NULL)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                   _("Cannot undo: sentence %s of instance %s is not in the open dataset"),
                   edit->sentence, edit->instance);
      link_edit_free (edit);
      return FALSE;
    }
  if (!set_targets (self, instance, sentence, (const char * const *) edit->targets, error))
    {
      g_ptr_array_add (self->link_undo, edit);   /* still undoable */
      return FALSE;
    }
  link_edit_free (edit);
  return TRUE;
}

static void
link_target_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  HsWindow *self = user_data;
  g_autoptr(GError) error = NULL;
  const char *region;
  gboolean linked;

  g_variant_get (parameter, "(&sb)", &region, &linked);
  if (!_hs_window_link_target (self, region, linked, &error))
    hs_error_bar_add_error (self->error_bar, NULL, error);
  /* Also after an error: the panel's tick goes back to the truth. */
  _hs_window_update_view_full (self, FALSE);
}

static void
undo_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  HsWindow *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!_hs_window_undo_link (self, &error))
    hs_error_bar_add_error (self->error_bar, NULL, error);
  _hs_window_update_view_full (self, FALSE);
}

static const GActionEntry layer_actions[] = {
  { .name = "link-target", .activate = link_target_action, .parameter_type = "(sb)" },
  { .name = "undo", .activate = undo_action },
};

void
_hs_window_layers_update_actions (HsWindow *self)
{
  GAction *action;

  if (self->link_undo == NULL)
    return;   /* before init, after dispose */
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "link-target");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action),
                               self->instance != NULL &&
                               hs_prompt_panel_get_sentence (self->prompt_panel) != NULL);
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "undo");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->link_undo->len > 0);
}

void
_hs_window_layers_init (HsWindow *self)
{
  self->link_undo = g_ptr_array_new_with_free_func ((GDestroyNotify) link_edit_free);
  self->layer_masks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                             _hs_image_unref0);
  g_action_map_add_action_entries (G_ACTION_MAP (self), layer_actions, G_N_ELEMENTS (layer_actions),
                                   self);
  self->layers_panel = hs_layers_panel_new ();
  hs_layers_panel_set_view_state (HS_LAYERS_PANEL (self->layers_panel),
                                  HS_VIEW_STATE (self->view_state));
  g_signal_connect_object (self->layers_panel, "visibility-changed",
                           G_CALLBACK (on_visibility_changed), self, 0);
  gtk_box_append (self->layers_slot, self->layers_panel);
  _hs_window_layers_update_actions (self);
}

void
_hs_window_layers_clear (HsWindow *self)
{
  g_clear_pointer (&self->link_undo, g_ptr_array_unref);
  g_clear_pointer (&self->layer_masks, g_hash_table_unref);
  g_clear_pointer (&self->layer_masks_dataset, hs_dataset_unref);
  self->layer_masks_instance = NULL;
  self->layers_panel = NULL;
}
