/* hs-compare-view.c — A | B | A − B and a grid of models, linked views */

#include <math.h>
#include <glib/gi18n.h>
#include <heatscope/hs-metrics.h>
#include <heatscope/hs-resample.h>
#include <heatscope/hs-target.h>
#include <heatscope/hs-text.h>

#include "hs-compare-view.h"

G_DEFINE_QUARK (hs-compare-view-error-quark, hs_compare_view_error)

/* One map on screen: a title, the canvas, the read-out under it. */
typedef struct {
  GtkWidget      *box;
  GtkLabel       *title;
  HsCanvas       *canvas;
  GtkLabel       *readout;
  HsViewState    *state;
  HsAttentionMap *map;
  char           *title_text;
  char           *readout_text;
  int             wrong_side;
  gulong          handler;
} Cell;

struct _HsCompareView
{
  GtkWidget       parent_instance;

  GtkWidget      *box;
  GtkLabel       *info_label;
  GtkStack       *stack;
  GtkGrid        *cells_grid;
  GtkLabel       *empty_label;

  HsViewState    *base;          /* display settings copied into each cell */
  HsImage        *image;
  GPtrArray      *regions;       /* HsRegion*, borrowed from the dataset */
  GPtrArray      *masks;
  GPtrArray      *cells;         /* Cell* */
  HsCompareMode   mode;
  gboolean        blink;
  gboolean        linking;       /* guard while propagating a transform */
  double          shared_lo, shared_hi;
  double          diff_lo, diff_hi;
  HsDataset      *dataset;       /* keeps borrowed regions alive */
};

G_DEFINE_FINAL_TYPE (HsCompareView, hs_compare_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_BLINK,
  PROP_MODE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cell_free (Cell *cell)
{
  if (cell->handler != 0)
    g_signal_handler_disconnect (cell->canvas, cell->handler);
  g_clear_object (&cell->state);
  g_clear_pointer (&cell->map, hs_attention_map_unref);
  g_free (cell->title_text);
  g_free (cell->readout_text);
  g_free (cell);
}

static Cell *
get_cell (HsCompareView *self, guint index)
{
  if (self->cells == NULL || index >= self->cells->len)
    return NULL;
  return g_ptr_array_index (self->cells, index);
}

/* ---- linked zoom and pan ------------------------------------------------- */

static void
on_transform_changed (HsCanvas *canvas, HsCompareView *self)
{
  HsCanvasTransform t;

  if (self->linking)
    return;
  self->linking = TRUE;
  hs_canvas_get_transform (canvas, &t);
  for (guint i = 0; i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      if (cell->canvas != canvas)
        hs_canvas_set_transform (cell->canvas, &t);
    }
  self->linking = FALSE;
}

/* ---- cells ---------------------------------------------------------------- */

static void
clear_cells (HsCompareView *self)
{
  GtkWidget *child;

  g_ptr_array_set_size (self->cells, 0);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->cells_grid))) != NULL)
    gtk_grid_remove (self->cells_grid, child);
}

static HsViewState *
new_state (HsCompareView *self)
{
  HsViewState *state = hs_view_state_new ();

  if (self->base != NULL)
    for (guint i = 0; hs_view_state_settings_keys[i] != NULL; i++)
      {
        GValue value = G_VALUE_INIT;
        GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (self->base),
                                                          hs_view_state_settings_keys[i]);
        if (pspec == NULL)
          continue;
        g_value_init (&value, pspec->value_type);
        g_object_get_property (G_OBJECT (self->base), pspec->name, &value);
        g_object_set_property (G_OBJECT (state), pspec->name, &value);
        g_value_unset (&value);
      }
  hs_view_state_set_scale_mode (state, HS_SCALE_SHARED);
  return state;
}

static Cell *
add_cell (HsCompareView *self, guint column, guint row)
{
  Cell *cell = g_new0 (Cell, 1);

  cell->wrong_side = -1;
  cell->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 3);
  cell->title = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_ellipsize (cell->title, PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (GTK_WIDGET (cell->title), "heading");
  cell->canvas = HS_CANVAS (hs_canvas_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (cell->canvas), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (cell->canvas), TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (cell->canvas), 160, 160);
  cell->readout = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (cell->readout, TRUE);
  gtk_label_set_xalign (cell->readout, 0);
  gtk_widget_add_css_class (GTK_WIDGET (cell->readout), "caption");
  gtk_box_append (GTK_BOX (cell->box), GTK_WIDGET (cell->title));
  gtk_box_append (GTK_BOX (cell->box), GTK_WIDGET (cell->canvas));
  gtk_box_append (GTK_BOX (cell->box), GTK_WIDGET (cell->readout));
  gtk_grid_attach (self->cells_grid, cell->box, column, row, 1, 1);

  cell->state = new_state (self);
  hs_canvas_set_view_state (cell->canvas, cell->state);
  hs_canvas_set_image (cell->canvas, self->image);
  hs_canvas_set_regions (cell->canvas, self->regions, self->masks);
  cell->handler = g_signal_connect (cell->canvas, "transform-changed",
                                    G_CALLBACK (on_transform_changed), self);
  g_ptr_array_add (self->cells, cell);
  return cell;
}

static void
cell_set_title (Cell *cell, const char *title, const char *tooltip)
{
  g_free (cell->title_text);
  cell->title_text = g_strdup (title);
  gtk_label_set_text (cell->title, title);
  gtk_widget_set_tooltip_text (GTK_WIDGET (cell->title), tooltip);
}

static void
cell_set_map (Cell *cell, HsAttentionMap *map)
{
  if (map != NULL)
    hs_attention_map_ref (map);
  g_clear_pointer (&cell->map, hs_attention_map_unref);
  cell->map = map;
  hs_canvas_set_map (cell->canvas, map);
}

/* ---- read-outs ------------------------------------------------------------ */

static HsTarget *
build_target (HsCompareView *self, GError **error)
{
  g_autoptr(HsTarget) target = NULL;
  HsEvalGrid grid;

  if (!hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, hs_image_get_width (self->image),
                          hs_image_get_height (self->image), 0, error))
    return NULL;
  target = hs_target_new (&grid);
  for (guint i = 0; self->regions != NULL && i < self->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (self->regions, i);
      HsImage *mask = self->masks != NULL && i < self->masks->len ? g_ptr_array_index (self->masks, i) : NULL;

      if (region->boxes != NULL && region->boxes->len > 0 &&
          !hs_target_add_boxes (target, (const HsBox *) region->boxes->data, region->boxes->len, error))
        return NULL;
      if (mask != NULL && !hs_target_add_mask (target, mask, error))
        return NULL;
    }
  return g_steal_pointer (&target);
}

static char *
describe_laterality (double v)
{
  if (isnan (v))
    return g_strdup (_("n/a"));
  /* Image left is the patient's right on a PA/AP radiograph. */
  if (v >= 0.2)
    return g_strdup_printf (_("%+.2f (patient’s left)"), v);
  if (v <= -0.2)
    return g_strdup_printf (_("%+.2f (patient’s right)"), v);
  return g_strdup_printf (_("%+.2f (central)"), v);
}

static void
cell_set_readout (Cell *cell, const char *text, int wrong_side)
{
  g_free (cell->readout_text);
  cell->readout_text = g_strdup (text);
  cell->wrong_side = wrong_side;
  gtk_label_set_text (cell->readout, text);
  if (wrong_side == 1)
    gtk_widget_add_css_class (GTK_WIDGET (cell->readout), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (cell->readout), "error");
}

/* Laterality of each map against the original target, and wrong_side. */
static void
update_readouts (HsCompareView *self, guint n_scored)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsTarget) target = NULL;

  if (self->image != NULL)
    target = build_target (self, &error);
  for (guint i = 0; i < n_scored && i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      g_autoptr(GError) score_error = NULL;
      g_autofree char *map_side = NULL;
      g_autofree char *target_side = NULL;
      g_autofree char *text = NULL;
      HsScoreOptions options;
      HsScores scores;
      double wrong;

      if (cell->map == NULL)
        continue;
      if (target == NULL)
        {
          text = g_strdup_printf (_("No read-out: %s"), error != NULL ? error->message : _("no image"));
          cell_set_readout (cell, text, -1);
          continue;
        }
      hs_score_options_init (&options);
      options.n_threads = 1;
      if (!hs_score_map (cell->map, target, &options, &scores, &score_error))
        {
          text = g_strdup_printf (_("No read-out: %s"), score_error->message);
          cell_set_readout (cell, text, -1);
          continue;
        }
      map_side = describe_laterality (scores.value[HS_METRIC_LATERALITY]);
      target_side = describe_laterality (scores.target_laterality);
      wrong = scores.value[HS_METRIC_WRONG_SIDE];
      text = g_strdup_printf (_("Laterality %s · target %s · %s"), map_side, target_side,
                              isnan (wrong) ? _("wrong side n/a")
                              : wrong >= 0.5 ? _("WRONG SIDE") : _("same side"));
      cell_set_readout (cell, text, isnan (wrong) ? -1 : wrong >= 0.5 ? 1 : 0);
    }
  hs_score_release_memory ();
}

/* ---- shared scale --------------------------------------------------------- */

static void
apply_shared_range (HsCompareView *self, guint n_maps)
{
  g_autofree const double **grids = g_new0 (const double *, MAX (n_maps, 1));
  g_autofree gsize *sizes = g_new0 (gsize, MAX (n_maps, 1));
  g_autoptr(GError) error = NULL;
  double lo = 0, hi = 1;

  for (guint i = 0; i < n_maps; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      grids[i] = hs_attention_map_peek_values (cell->map);
      sizes[i] = (gsize) hs_attention_map_get_width (cell->map) * hs_attention_map_get_height (cell->map);
    }
  if (n_maps == 0 || !hs_scale_shared_range (grids, sizes, n_maps, &lo, &hi, &error))
    lo = 0, hi = 1;
  if (!(hi > lo))
    hi = lo + 1e-12;
  self->shared_lo = lo;
  self->shared_hi = hi;
  for (guint i = 0; i < n_maps; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      hs_view_state_set_shared_range (cell->state, lo, hi);
    }
}

/* A − B on A's grid (B resampled when the grids differ). */
static HsAttentionMap *
difference_map (HsAttentionMap *a, HsAttentionMap *b, double *max_abs, GError **error)
{
  guint w = hs_attention_map_get_width (a), h = hs_attention_map_get_height (a);
  guint bw = hs_attention_map_get_width (b), bh = hs_attention_map_get_height (b);
  const double *va = hs_attention_map_peek_values (a);
  const double *vb = hs_attention_map_peek_values (b);
  g_autofree double *resampled = NULL;
  g_autofree double *d = g_new (double, (gsize) w * h);
  double m = 0;

  if (bw != w || bh != h)
    {
      resampled = g_new (double, (gsize) w * h);
      hs_resample (vb, bw, bh, resampled, w, h, HS_UPSAMPLE_BILINEAR);
      vb = resampled;
    }
  for (gsize i = 0; i < (gsize) w * h; i++)
    {
      d[i] = va[i] - vb[i];
      m = MAX (m, fabs (d[i]));
    }
  *max_abs = m;
  return hs_attention_map_new (0, h, w, d, error);
}

/* ---- public ----------------------------------------------------------------- */

static void
update_blink (HsCompareView *self)
{
  Cell *a = get_cell (self, 0), *b = get_cell (self, 1);
  g_autofree char *title = NULL;

  if (self->mode != HS_COMPARE_MODE_PAIR || a == NULL || b == NULL)
    return;
  hs_canvas_set_map (a->canvas, self->blink ? b->map : a->map);
  if (self->blink)
    title = g_strdup_printf (_("B (blink): %s"), gtk_widget_get_tooltip_text (GTK_WIDGET (b->title)));
  gtk_label_set_text (a->title, self->blink ? title : a->title_text);
}

GtkWidget *
hs_compare_view_new (void)
{
  return g_object_new (HS_TYPE_COMPARE_VIEW, NULL);
}

void
hs_compare_view_set_base_state (HsCompareView *self, HsViewState *state)
{
  g_return_if_fail (HS_IS_COMPARE_VIEW (self));
  g_return_if_fail (state == NULL || HS_IS_VIEW_STATE (state));
  g_set_object (&self->base, state);
}

void
hs_compare_view_set_image (HsCompareView *self, HsImage *image, GPtrArray *regions, GPtrArray *masks)
{
  g_return_if_fail (HS_IS_COMPARE_VIEW (self));

  if (image != NULL)
    hs_image_ref (image);
  g_clear_pointer (&self->image, hs_image_unref);
  self->image = image;
  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  if (regions != NULL)
    self->regions = g_ptr_array_ref (regions);
  if (masks != NULL)
    self->masks = g_ptr_array_ref (masks);
}

static void
set_mode (HsCompareView *self, HsCompareMode mode)
{
  self->mode = mode;
  gtk_stack_set_visible_child_name (self->stack, mode == HS_COMPARE_MODE_NONE ? "empty" : "maps");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.blink", mode == HS_COMPARE_MODE_PAIR);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODE]);
}

static void
show_nothing (HsCompareView *self, const char *message)
{
  clear_cells (self);
  gtk_label_set_text (self->empty_label, message);
  gtk_label_set_text (self->info_label, "");
  set_mode (self, HS_COMPARE_MODE_NONE);
}

void
hs_compare_view_set_pair (HsCompareView *self,
                          HsAttentionMap *a, const char *label_a,
                          HsAttentionMap *b, const char *label_b)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) diff = NULL;
  g_autofree char *title_a = NULL;
  g_autofree char *title_b = NULL;
  g_autofree char *info = NULL;
  g_autofree char *lo = NULL;
  double m = 0;
  Cell *cell;

  g_return_if_fail (HS_IS_COMPARE_VIEW (self));
  g_return_if_fail (a != NULL && b != NULL);

  self->blink = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BLINK]);
  clear_cells (self);
  diff = difference_map (a, b, &m, &error);
  if (diff == NULL)
    {
      show_nothing (self, error->message);
      return;
    }

  title_a = g_strdup_printf (_("A: %s"), label_a ? label_a : "");
  title_b = g_strdup_printf (_("B: %s"), label_b ? label_b : "");
  cell = add_cell (self, 0, 0);
  cell_set_title (cell, title_a, label_a);
  cell_set_map (cell, a);
  cell = add_cell (self, 1, 0);
  cell_set_title (cell, title_b, label_b);
  cell_set_map (cell, b);
  cell = add_cell (self, 2, 0);
  cell_set_title (cell, _("A − B"), NULL);
  hs_view_state_set_colormap (cell->state, "diverging");
  g_object_set (cell->state, "outline", "none", "threshold", 0.0, NULL);
  cell_set_map (cell, diff);

  apply_shared_range (self, 2);
  if (!(m > 0))
    m = 1e-12;
  self->diff_lo = -m;
  self->diff_hi = m;
  hs_view_state_set_shared_range (cell->state, -m, m);
  update_readouts (self, 2);
  {
    /* The difference's read-out: how far apart the two maps are. */
    double kl = NAN;
    const char *reason = NULL;
    guint w = hs_attention_map_get_width (a), h = hs_attention_map_get_height (a);
    g_autofree char *text = NULL;

    if (w == hs_attention_map_get_width (b) && h == hs_attention_map_get_height (b))
      kl = hs_sym_kl (hs_attention_map_peek_values (a), hs_attention_map_peek_values (b),
                      (gsize) w * h, NAN, NAN, HS_PROTOCOL_DEFAULT, &reason);
    if (isnan (kl))
      text = g_strdup_printf (_("Diverging scale ±%.3g · symmetric KL n/a"), m);
    else
      text = g_strdup_printf (_("Diverging scale ±%.3g · symmetric KL %.3f"), m, kl);
    cell_set_readout (cell, text, -1);
  }

  info = g_strdup_printf (_("One shared scale for A and B: %.3g – %.3g · press B to blink"),
                          self->shared_lo, self->shared_hi);
  gtk_label_set_text (self->info_label, info);
  set_mode (self, HS_COMPARE_MODE_PAIR);
  update_blink (self);
}

void
hs_compare_view_set_grid (HsCompareView *self, GPtrArray *maps, const char * const *labels)
{
  g_autofree char *info = NULL;
  guint n, columns;

  g_return_if_fail (HS_IS_COMPARE_VIEW (self));
  g_return_if_fail (maps != NULL);

  self->blink = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BLINK]);
  clear_cells (self);
  n = maps->len;
  if (n == 0)
    {
      show_nothing (self, _("No model has a map for this prompt"));
      return;
    }
  columns = (guint) ceil (sqrt ((double) n));
  if (n <= 3)
    columns = n;
  for (guint i = 0; i < n; i++)
    {
      Cell *cell = add_cell (self, i % columns, i / columns);
      const char *label = labels != NULL ? labels[i] : NULL;

      cell_set_title (cell, label ? label : "", label);
      cell_set_map (cell, g_ptr_array_index (maps, i));
    }
  apply_shared_range (self, n);
  self->diff_lo = self->diff_hi = 0;
  update_readouts (self, n);
  info = g_strdup_printf (ngettext ("%u model · one shared scale: %.3g – %.3g",
                                       "%u models · one shared scale: %.3g – %.3g", n),
                          n, self->shared_lo, self->shared_hi);
  gtk_label_set_text (self->info_label, info);
  set_mode (self, HS_COMPARE_MODE_GRID);
}

static gboolean
load_common (HsCompareView *self, HsDataset *dataset, HsInstance *instance, HsSentence *sentence,
             GError **error)
{
  g_autoptr(HsImage) image = NULL;
  g_autoptr(GPtrArray) regions = NULL;
  g_autoptr(GPtrArray) masks = NULL;

  image = hs_dataset_load_image (dataset, instance, error);
  if (image == NULL)
    return FALSE;
  if (!hs_app_collect_targets (dataset, instance, sentence, &regions, &masks, error))
    return FALSE;
  if (self->dataset != dataset)
    {
      g_clear_pointer (&self->dataset, hs_dataset_unref);
      self->dataset = hs_dataset_ref (dataset);
    }
  hs_compare_view_set_image (self, image, regions, masks);
  return TRUE;
}

gboolean
hs_compare_view_load (HsCompareView *self, HsDataset *dataset, HsInstance *instance,
                      HsSentence *sentence, const char *model, GError **error)
{
  g_autofree char *swapped = NULL;
  g_autoptr(HsAttentionMap) a = NULL;
  g_autoptr(HsAttentionMap) b = NULL;
  g_auto(GStrv) models = NULL;
  g_autofree char *label_a = NULL;
  g_autofree char *label_b = NULL;
  HsMapRef *ref_a, *ref_b = NULL;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (dataset != NULL && instance != NULL && sentence != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  models = hs_dataset_list_models (dataset);
  if (model == NULL && models != NULL)
    model = models[0];
  ref_a = model != NULL ? hs_instance_find_map (instance, model, sentence->id) : NULL;
  if (ref_a == NULL)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s: model %s has no map for sentence %s"),
                   instance->id, model ? model : _("(none)"), sentence->id);
      return FALSE;
    }

  swapped = hs_text_swap_sides (sentence->text);
  if (g_strcmp0 (swapped, sentence->text) != 0)
    ref_b = hs_instance_find_map_by_prompt (instance, model, swapped);
  if (ref_b != NULL)
    {
      label_a = g_strdup_printf (_("%s · original"), model);
      label_b = g_strdup_printf (_("%s · swapped left/right"), model);
    }
  else
    {
      /* Two models: the next one (in sorted order) with a map for the sentence. */
      guint n = g_strv_length (models), start = 0;

      for (guint i = 0; i < n; i++)
        if (g_str_equal (models[i], model))
          start = i;
      for (guint k = 1; k < n && ref_b == NULL; k++)
        {
          const char *other = models[(start + k) % n];
          ref_b = hs_instance_find_map (instance, other, sentence->id);
          if (ref_b != NULL)
            {
              label_a = g_strdup (model);
              label_b = g_strdup (other);
            }
        }
    }
  if (ref_b == NULL)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s, sentence %s: no map of the swapped prompt and no second model to compare with"),
                   instance->id, sentence->id);
      return FALSE;
    }

  if (!load_common (self, dataset, instance, sentence, error))
    return FALSE;
  a = hs_dataset_load_map (dataset, ref_a, error);
  if (a == NULL)
    return FALSE;
  b = hs_dataset_load_map (dataset, ref_b, error);
  if (b == NULL)
    return FALSE;
  hs_compare_view_set_pair (self, a, label_a, b, label_b);
  return TRUE;
}

gboolean
hs_compare_view_load_live (HsCompareView *self, HsDataset *dataset, HsInstance *instance,
                           HsSentence *sentence, HsModelCache *cache, const char *model,
                           GError **error)
{
  g_autofree char *swapped = NULL;
  g_autofree char *label_a = NULL;
  g_autofree char *label_b = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsModel) live = NULL;
  g_autoptr(HsImageFeatures) features = NULL;
  g_autoptr(HsAttentionMap) a = NULL;
  g_autoptr(HsAttentionMap) b = NULL;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (dataset != NULL && instance != NULL && sentence != NULL, FALSE);
  g_return_val_if_fail (cache != NULL && model != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  swapped = hs_text_swap_sides (sentence->text);
  if (g_strcmp0 (swapped, sentence->text) == 0)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s, sentence %s: the prompt has no left or right to swap"),
                   instance->id, sentence->id);
      return FALSE;
    }
  image = hs_dataset_load_image (dataset, instance, error);
  if (image == NULL)
    return FALSE;
  live = hs_model_cache_get_model (cache, model, error);
  if (live == NULL)
    return FALSE;
  features = hs_model_cache_get_features (cache, live, image, NULL, error);
  if (features == NULL)
    return FALSE;
  a = hs_model_attend (live, features, sentence->text, error);
  if (a == NULL)
    return FALSE;
  b = hs_model_attend (live, features, swapped, error);
  if (b == NULL)
    return FALSE;
  if (!load_common (self, dataset, instance, sentence, error))
    return FALSE;
  label_a = g_strdup_printf (_("%s · original"), model);
  label_b = g_strdup_printf (_("%s · swapped left/right"), model);
  hs_compare_view_set_pair (self, a, label_a, b, label_b);
  return TRUE;
}

gboolean
hs_compare_view_load_grid (HsCompareView *self, HsDataset *dataset, HsInstance *instance,
                           HsSentence *sentence, GError **error)
{
  g_auto(GStrv) models = NULL;
  g_autoptr(GPtrArray) maps = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_attention_map_unref);
  g_autoptr(GStrvBuilder) labels = g_strv_builder_new ();
  g_auto(GStrv) label_v = NULL;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (dataset != NULL && instance != NULL && sentence != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!load_common (self, dataset, instance, sentence, error))
    return FALSE;
  models = hs_dataset_list_models (dataset);
  for (guint i = 0; models != NULL && models[i] != NULL; i++)
    {
      HsMapRef *ref = hs_instance_find_map (instance, models[i], sentence->id);
      HsAttentionMap *map;

      if (ref == NULL)
        continue;
      map = hs_dataset_load_map (dataset, ref, error);
      if (map == NULL)
        return FALSE;
      g_ptr_array_add (maps, map);
      g_strv_builder_add (labels, models[i]);
    }
  if (maps->len == 0)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s: no model has a map for sentence %s"), instance->id, sentence->id);
      return FALSE;
    }
  label_v = g_strv_builder_end (labels);
  hs_compare_view_set_grid (self, maps, (const char * const *) label_v);
  return TRUE;
}

HsCompareMode
hs_compare_view_get_mode (HsCompareView *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), HS_COMPARE_MODE_NONE);
  return self->mode;
}

gboolean
hs_compare_view_get_blink (HsCompareView *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  return self->blink;
}

void
hs_compare_view_set_blink (HsCompareView *self, gboolean blink)
{
  g_return_if_fail (HS_IS_COMPARE_VIEW (self));

  blink = !!blink && self->mode == HS_COMPARE_MODE_PAIR;
  if (self->blink == blink)
    return;
  self->blink = blink;
  update_blink (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BLINK]);
}

guint
hs_compare_view_get_n_canvases (HsCompareView *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), 0);
  return self->cells->len;
}

HsCanvas *
hs_compare_view_get_canvas (HsCompareView *self, guint index)
{
  Cell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = get_cell (self, index);
  return cell ? cell->canvas : NULL;
}

const char *
hs_compare_view_get_title (HsCompareView *self, guint index)
{
  Cell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = get_cell (self, index);
  return cell ? gtk_label_get_text (cell->title) : NULL;
}

const char *
hs_compare_view_get_readout (HsCompareView *self, guint index)
{
  Cell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = get_cell (self, index);
  return cell ? cell->readout_text : NULL;
}

int
hs_compare_view_get_wrong_side (HsCompareView *self, guint index)
{
  Cell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), -1);
  cell = get_cell (self, index);
  return cell ? cell->wrong_side : -1;
}

void
hs_compare_view_get_shared_range (HsCompareView *self, double *lo, double *hi)
{
  g_return_if_fail (HS_IS_COMPARE_VIEW (self));
  if (lo) *lo = self->shared_lo;
  if (hi) *hi = self->shared_hi;
}

void
hs_compare_view_get_diff_range (HsCompareView *self, double *lo, double *hi)
{
  g_return_if_fail (HS_IS_COMPARE_VIEW (self));
  if (lo) *lo = self->diff_lo;
  if (hi) *hi = self->diff_hi;
}

/* ---- the window ------------------------------------------------------------ */

GtkWindow *
hs_compare_window_new (GtkWindow *parent)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  GtkWidget *view = hs_compare_view_new ();
  GtkEventController *controller;

  gtk_window_set_title (window, _("Compare"));
  gtk_window_set_default_size (window, 1400, 620);
  if (parent != NULL)
    {
      gtk_window_set_transient_for (window, parent);
      gtk_window_set_application (window, gtk_window_get_application (parent));
    }
  gtk_window_set_destroy_with_parent (window, TRUE);
  gtk_window_set_child (window, view);
  controller = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("Escape|<Control>w"),
                                                          gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (GTK_WIDGET (window), controller);
  return window;
}

HsCompareView *
hs_compare_window_get_view (GtkWindow *window)
{
  GtkWidget *child;

  g_return_val_if_fail (GTK_IS_WINDOW (window), NULL);
  child = gtk_window_get_child (window);
  return HS_IS_COMPARE_VIEW (child) ? HS_COMPARE_VIEW (child) : NULL;
}

/* ---- class ------------------------------------------------------------------ */

static void
zoom_fit_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsCompareView *self = HS_COMPARE_VIEW (widget);

  for (guint i = 0; i < self->cells->len; i++)
    hs_canvas_zoom_fit (((Cell *) g_ptr_array_index (self->cells, i))->canvas);
}

static void
zoom_step_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsCompareView *self = HS_COMPARE_VIEW (widget);
  Cell *cell = get_cell (self, 0);
  double factor = g_str_equal (action_name, "compare.zoom-in") ? 1.25 : 1 / 1.25;

  /* The other canvases follow through the link. */
  if (cell != NULL)
    hs_canvas_zoom_to (cell->canvas, hs_canvas_get_zoom (cell->canvas) * factor, -1, -1);
}

static void
hs_compare_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  HsCompareView *self = HS_COMPARE_VIEW (object);

  switch (prop_id)
    {
    case PROP_BLINK: g_value_set_boolean (value, self->blink); break;
    case PROP_MODE:  g_value_set_int (value, self->mode); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_compare_view_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  HsCompareView *self = HS_COMPARE_VIEW (object);

  switch (prop_id)
    {
    case PROP_BLINK: hs_compare_view_set_blink (self, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_compare_view_dispose (GObject *object)
{
  HsCompareView *self = HS_COMPARE_VIEW (object);

  if (self->cells != NULL)
    g_ptr_array_set_size (self->cells, 0);
  gtk_widget_dispose_template (GTK_WIDGET (object), HS_TYPE_COMPARE_VIEW);
  g_clear_object (&self->base);
  g_clear_pointer (&self->image, hs_image_unref);
  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  G_OBJECT_CLASS (hs_compare_view_parent_class)->dispose (object);
}

static void
hs_compare_view_finalize (GObject *object)
{
  HsCompareView *self = HS_COMPARE_VIEW (object);

  g_clear_pointer (&self->cells, g_ptr_array_unref);
  G_OBJECT_CLASS (hs_compare_view_parent_class)->finalize (object);
}

static void
hs_compare_view_class_init (HsCompareViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = hs_compare_view_get_property;
  object_class->set_property = hs_compare_view_set_property;
  object_class->dispose = hs_compare_view_dispose;
  object_class->finalize = hs_compare_view_finalize;

  properties[PROP_BLINK] =
    g_param_spec_boolean ("blink", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODE] =
    g_param_spec_int ("mode", NULL, NULL, HS_COMPARE_MODE_NONE, HS_COMPARE_MODE_GRID,
                      HS_COMPARE_MODE_NONE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-compare-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, box);
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, info_label);
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, stack);
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, cells_grid);
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, empty_label);

  gtk_widget_class_install_property_action (widget_class, "compare.blink", "blink");
  gtk_widget_class_install_action (widget_class, "compare.zoom-fit", NULL, zoom_fit_action);
  gtk_widget_class_install_action (widget_class, "compare.zoom-in", NULL, zoom_step_action);
  gtk_widget_class_install_action (widget_class, "compare.zoom-out", NULL, zoom_step_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_b, 0, "compare.blink", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_B, GDK_SHIFT_MASK, "compare.blink", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "compare.zoom-fit", NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
hs_compare_view_init (HsCompareView *self)
{
  self->cells = g_ptr_array_new_with_free_func ((GDestroyNotify) cell_free);
  self->shared_lo = 0;
  self->shared_hi = 1;
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  set_mode (self, HS_COMPARE_MODE_NONE);
}
