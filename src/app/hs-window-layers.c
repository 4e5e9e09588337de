/* hs-window-layers.c — every region of the instance on the canvas, and
 * linking sentences to regions
 *
 * The layers panel lists the instance's regions; the canvas draws the
 * visible ones in their colours, the selected sentence's targets bold.
 * win.link-target ("(sb)": region name, linked) adds or removes a target of
 * the selected sentence, writes the manifest (hs_dataset_save: temp file,
 * fsync, rename) and refreshes the canvas and the metrics; win.undo
 * (Ctrl+Z) puts the previous targets back and writes the manifest again.
 * A box drawn on the canvas (Shift+drag) and named by the user becomes a new
 * region, a target of the selected sentence: win.add-box ("(sdddd)": name,
 * x1, y1, x2, y2 in image pixels), undone the same way.
 * The undo history is in memory, per window, and ends with the dataset.
 */
#include <math.h>

#include <glib/gi18n.h>
#include <heatscope/hs-legend.h>

#include "hs-window-private.h"
#include "hs-layers-panel.h"
#include "hs-utils-private.h"

typedef struct {
  HsDataset *dataset;     /* the edit's dataset: undo applies only to it */
  char      *instance;
  char      *sentence;     /* NULL: a region added with no sentence selected */
  char     **targets;      /* before the edit */
  char      *added_region; /* win.add-box: removed again by undo */
} LinkEdit;

static void
link_edit_free (LinkEdit *edit)
{
  hs_dataset_unref (edit->dataset);
  g_free (edit->instance);
  g_free (edit->sentence);
  g_strfreev (edit->targets);
  g_free (edit->added_region);
  g_free (edit);
}

/* ---- the layers on the canvas ------------------------------------------- */

/* The mask layer of `region` (borrowed), from the window's mask cache —
 * decoded and traced by the worker that decoded the image — and kept per
 * instance, so that a broken mask is reported once.  A target's broken
 * mask is reported by the targets' own loading already. */
static HsMaskLayer *
layer_mask (HsWindow *self, const HsRegion *region, gboolean report)
{
  g_autoptr(GError) error = NULL;
  HsMaskLayer *mask;

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
  mask = _hs_window_mask_layer (self, region, &error);
  if (mask == NULL && report)
    hs_error_bar_add_error (self->error_bar, self->instance->id, error);
  /* NULL too, so a broken mask is reported once */
  g_hash_table_insert (self->layer_masks, (gpointer) region, mask);
  return mask;
}

void
_hs_window_layers_apply (HsWindow *self, HsCanvas *canvas)
{
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);
  HsLayersPanel *panel = self->layers_panel ? HS_LAYERS_PANEL (self->layers_panel) : NULL;
  g_autoptr(GPtrArray) regions = g_ptr_array_new ();
  g_autoptr(GPtrArray) masks = g_ptr_array_new ();
  g_autoptr(GPtrArray) contours = g_ptr_array_new ();
  g_autoptr(GArray) colors = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) targets = g_array_new (FALSE, FALSE, sizeof (gboolean));
  HsInstance *instance = self->dataset != NULL ? self->instance : NULL;

  if (panel == NULL)
    return;
  if (instance == NULL)
    {
      hs_canvas_set_regions (canvas, NULL, NULL);
      return;
    }
  for (guint i = 0; instance->regions && i < instance->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (instance->regions, i);
      gboolean target = sentence != NULL && sentence->targets != NULL &&
                        g_strv_contains ((const char * const *) sentence->targets, region->name);
      double rgba[4];
      HsMaskLayer *mask;

      if (!hs_layers_panel_get_region_visible (panel, region->name))
        continue;
      hs_region_color (i, rgba);
      mask = layer_mask (self, region, !target);
      g_ptr_array_add (regions, (gpointer) region);
      g_ptr_array_add (masks, mask != NULL ? hs_mask_layer_get_mask (mask) : NULL);
      g_ptr_array_add (contours, mask != NULL ? hs_mask_layer_get_contours (mask) : NULL);
      g_array_append_vals (colors, rgba, 4);
      g_array_append_val (targets, target);
    }
  /* traced once, by whoever decoded the mask */
  hs_canvas_set_traced_layers (canvas, regions, masks, contours,
                               (const double *) colors->data, (const gboolean *) targets->data);
}

void
_hs_window_layers_show (HsWindow *self)
{
  HsLayersPanel *panel = self->layers_panel ? HS_LAYERS_PANEL (self->layers_panel) : NULL;

  if (panel == NULL)
    return;
  hs_layers_panel_set_instance (panel, self->dataset != NULL ? self->instance : NULL,
                                hs_prompt_panel_get_sentence (self->prompt_panel));
  _hs_window_layers_update_actions (self);
  _hs_window_layers_apply (self, HS_CANVAS (self->canvas));
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
  _hs_window_results_invalidate (self);
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
  _hs_window_results_invalidate (self);
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
  sentence = instance && edit->sentence ? hs_instance_find_sentence (instance, edit->sentence) : NULL;
  if (instance != NULL && edit->added_region != NULL)
    {
      /* The sentence's targets first, then the region they named. */
      if (sentence != NULL)
        hs_dataset_set_sentence_targets (self->dataset, instance, sentence,
                                         (const char * const *) edit->targets);
      hs_dataset_remove_instance_region (self->dataset, instance, edit->added_region);
      g_hash_table_remove_all (self->layer_masks);
      _hs_window_results_invalidate (self);
      if (!hs_dataset_save (self->dataset, error))
        {
          link_edit_free (edit);
          return FALSE;
        }
      link_edit_free (edit);
      return TRUE;
    }
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

gboolean
_hs_window_add_box (HsWindow *self, const char *name, const HsBox *box, GError **error)
{
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);
  g_autoptr(GPtrArray) targets = g_ptr_array_new ();
  g_autofree char *clean = g_strstrip (g_strdup (name ? name : ""));
  HsRegion *region;
  LinkEdit *edit;

  if (self->dataset == NULL || self->instance == NULL)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                   _("Open an instance before drawing a box"));
      return FALSE;
    }
  if (*clean == '\0')
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_INVALID,
                   _("A new region needs a name"));
      return FALSE;
    }
  if (hs_instance_find_region (self->instance, clean) != NULL)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_INVALID,
                   _("Instance %s already has a region “%s”"), self->instance->id, clean);
      return FALSE;
    }
  if (!(isfinite (box->x1) && isfinite (box->y1) && isfinite (box->x2) && isfinite (box->y2)
        && box->x2 > box->x1 && box->y2 > box->y1))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_INVALID,
                   _("The box %g, %g – %g, %g is empty"), box->x1, box->y1, box->x2, box->y2);
      return FALSE;
    }
  if (!hs_dataset_is_complete (self->dataset))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   _("%s: the manifest is still being read; link regions when it is loaded"),
                   hs_dataset_get_manifest_path (self->dataset));
      return FALSE;
    }

  edit = g_new0 (LinkEdit, 1);
  edit->dataset = hs_dataset_ref (self->dataset);
  edit->instance = g_strdup (self->instance->id);
  edit->added_region = g_strdup (clean);
  region = hs_region_new (clean);
  hs_region_add_box (region, box->x1, box->y1, box->x2, box->y2);
  hs_dataset_add_instance_region (self->dataset, self->instance, region);
  if (sentence != NULL)
    {
      edit->sentence = g_strdup (sentence->id);
      edit->targets = g_strdupv (sentence->targets);
      for (guint i = 0; sentence->targets && sentence->targets[i]; i++)
        g_ptr_array_add (targets, sentence->targets[i]);
      g_ptr_array_add (targets, clean);
      g_ptr_array_add (targets, NULL);
      hs_dataset_set_sentence_targets (self->dataset, self->instance, sentence,
                                       (const char * const *) targets->pdata);
    }
  if (!hs_dataset_save (self->dataset, error))
    {
      if (sentence != NULL)
        hs_dataset_set_sentence_targets (self->dataset, self->instance, sentence,
                                         (const char * const *) edit->targets);
      hs_dataset_remove_instance_region (self->dataset, self->instance, clean);
      link_edit_free (edit);
      return FALSE;
    }
  g_ptr_array_add (self->link_undo, edit);
  return TRUE;
}

static void
add_box_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  HsWindow *self = user_data;
  g_autoptr(GError) error = NULL;
  const char *name;
  HsBox box;

  g_variant_get (parameter, "(&sdddd)", &name, &box.x1, &box.y1, &box.x2, &box.y2);
  if (!_hs_window_add_box (self, name, &box, &error))
    hs_error_bar_add_error (self->error_bar, NULL, error);
  _hs_window_update_view_full (self, FALSE);
}

/* ---- naming a drawn box ---------------------------------------------------- */

static void
on_name_response (GtkDialog *dialog, int response, HsWindow *self)
{
  GtkEntry *entry = g_object_get_data (G_OBJECT (dialog), "hs-entry");
  const double *box = g_object_get_data (G_OBJECT (dialog), "hs-box");

  g_object_set_data (G_OBJECT (self), "hs-box-dialog", NULL);
  if (response == GTK_RESPONSE_ACCEPT)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.add-box", "(sdddd)",
                                gtk_editable_get_text (GTK_EDITABLE (entry)),
                                box[0], box[1], box[2], box[3]);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* Asks for the name of the box just drawn (Enter adds it). */
static void
on_box_drawn (HsCanvas *canvas, double x1, double y1, double x2, double y2, HsWindow *self)
{
  HsSentence *sentence = hs_prompt_panel_get_sentence (self->prompt_panel);
  GtkWidget *dialog, *entry, *label, *area;
  double *box = g_new (double, 4);
  g_autofree char *text = NULL;

  if (self->instance == NULL)
    {
      g_free (box);
      return;
    }
  box[0] = x1;
  box[1] = y1;
  box[2] = x2;
  box[3] = y2;
  dialog = gtk_dialog_new_with_buttons (_("New Region"), GTK_WINDOW (self),
                                        GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                        _("_Cancel"), GTK_RESPONSE_CANCEL,
                                        _("_Add"), GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  area = gtk_dialog_get_content_area (GTK_DIALOG (dialog));
  gtk_box_set_spacing (GTK_BOX (area), 8);
  gtk_widget_set_margin_start (area, 12);
  gtk_widget_set_margin_end (area, 12);
  gtk_widget_set_margin_top (area, 12);
  gtk_widget_set_margin_bottom (area, 12);
  text = sentence != NULL
         ? g_strdup_printf (_("Name the box %.0f, %.0f – %.0f, %.0f; it becomes a target of “%s”."),
                            x1, y1, x2, y2, sentence->text)
         : g_strdup_printf (_("Name the box %.0f, %.0f – %.0f, %.0f."), x1, y1, x2, y2);
  label = gtk_label_new (text);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 50);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_box_append (GTK_BOX (area), label);
  entry = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("Region name"));
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_box_append (GTK_BOX (area), entry);
  g_object_set_data (G_OBJECT (dialog), "hs-entry", entry);
  g_object_set_data_full (G_OBJECT (dialog), "hs-box", box, g_free);
  g_object_set_data (G_OBJECT (self), "hs-box-dialog", dialog);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_name_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
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
  { .name = "add-box", .activate = add_box_action, .parameter_type = "(sdddd)" },
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
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "add-box");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->instance != NULL);
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "undo");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->link_undo->len > 0);
}

void
_hs_window_layers_init (HsWindow *self)
{
  self->link_undo = g_ptr_array_new_with_free_func ((GDestroyNotify) link_edit_free);
  self->layer_masks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                             (GDestroyNotify) hs_mask_layer_unref);
  g_action_map_add_action_entries (G_ACTION_MAP (self), layer_actions, G_N_ELEMENTS (layer_actions),
                                   self);
  self->layers_panel = hs_layers_panel_new ();
  hs_layers_panel_set_view_state (HS_LAYERS_PANEL (self->layers_panel),
                                  HS_VIEW_STATE (self->view_state));
  g_signal_connect_object (self->layers_panel, "visibility-changed",
                           G_CALLBACK (on_visibility_changed), self, 0);
  gtk_box_append (self->layers_slot, self->layers_panel);
  g_signal_connect_object (self->canvas, "box-drawn", G_CALLBACK (on_box_drawn), self, 0);
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
