/* hs-compare-view.c — A | B | A − B and a grid of models, linked views
 *
 * The cells (HsCompareCell) and the shared colour bars (HsColorBar) are
 * their own widgets; loading from a dataset and the live maps are in
 * hs-compare-view-load.c.
 */
#include <math.h>

#include <glib/gi18n.h>
#include <heatscope/hs-legend.h>
#include <heatscope/hs-metrics.h>
#include <heatscope/hs-metric-info.h>
#include <heatscope/hs-target.h>

#include "hs-compare-view-private.h"
#include "hs-css-private.h"
#include "hs-utils-private.h"

G_DEFINE_QUARK (hs-compare-view-error-quark, hs_compare_view_error)

G_DEFINE_FINAL_TYPE (HsCompareView, hs_compare_view, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static void update_blink (HsCompareView *self);

/* The Tags toggle acts only when a cell has tags (it stays in place, so
 * presentation mode's hidden buttons stay hidden). */
static void
update_tags_action (HsCompareView *self)
{
  gboolean any = FALSE;

  for (guint i = 0; self->cells != NULL && i < self->cells->len; i++)
    any |= hs_compare_cell_get_n_tags (g_ptr_array_index (self->cells, i)) > 0;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.show-tags", any);
}

void
_hs_compare_view_notify (HsCompareView *self, HsCompareViewProp prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

HsCompareCell *
_hs_compare_view_get_cell (HsCompareView *self, guint index)
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
      HsCanvas *other = hs_compare_cell_get_canvas (g_ptr_array_index (self->cells, i));
      if (other != canvas)
        hs_canvas_set_transform (other, &t);
    }
  self->linking = FALSE;
}

/* ---- cells ---------------------------------------------------------------- */

static void
clear_cells (HsCompareView *self)
{
  GtkWidget *child;

  _hs_compare_view_cancel_live (self);
  g_ptr_array_set_size (self->cells, 0);
  g_clear_object (&self->band_readouts);
  g_clear_object (&self->band_footers);
  self->shared_bar = NULL;
  self->diff_bar = NULL;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->cells_grid))) != NULL)
    gtk_grid_remove (self->cells_grid, child);
  update_tags_action (self);
}

static HsViewState *
new_state (HsCompareView *self)
{
  HsViewState *state = hs_view_state_new ();

  if (self->base != NULL)
    hs_view_state_copy_from (state, self->base);
  hs_view_state_set_scale_mode (state, HS_SCALE_SHARED);
  return state;
}

/* A cell at `column` of the band `band` of cells. */
static HsCompareCell *
add_cell (HsCompareView *self, guint column, guint band)
{
  HsCompareCell *cell = HS_COMPARE_CELL (hs_compare_cell_new ());
  HsCanvas *canvas = hs_compare_cell_get_canvas (cell);
  g_autoptr(HsViewState) state = new_state (self);

  /* The read-outs of a band share one height, so that its tag strips line
   * up, and with the strips another, so that its maps are one size. */
  if (column == 0 || self->band_readouts == NULL)
    {
      g_clear_object (&self->band_readouts);
      g_clear_object (&self->band_footers);
      self->band_readouts = gtk_size_group_new (GTK_SIZE_GROUP_VERTICAL);
      self->band_footers = gtk_size_group_new (GTK_SIZE_GROUP_VERTICAL);
    }
  gtk_size_group_add_widget (self->band_readouts, hs_compare_cell_get_readout_row (cell));
  gtk_size_group_add_widget (self->band_footers, hs_compare_cell_get_footer (cell));
  gtk_grid_attach (self->cells_grid, GTK_WIDGET (cell), column, band, 1, 1);

  hs_compare_cell_set_state (cell, state);
  hs_compare_cell_set_show_tags (cell, self->show_tags);
  hs_canvas_set_image (canvas, self->image);
  hs_canvas_set_regions (canvas, self->regions, self->masks);
  g_signal_connect_object (canvas, "transform-changed", G_CALLBACK (on_transform_changed), self, 0);
  g_ptr_array_add (self->cells, g_object_ref (cell));
  return cell;
}

/* A colour bar in the colours of `cell`'s map, on [lo, hi]. */
static HsColorBar *
new_bar (HsCompareView *self, HsCompareCell *cell, const char *caption, double lo, double hi)
{
  HsColorBar *bar = HS_COLOR_BAR (hs_color_bar_new ());

  hs_color_bar_set_state (bar, hs_compare_cell_get_state (cell));
  hs_color_bar_set_range (bar, lo, hi);
  hs_color_bar_set_caption (bar, caption);
  return bar;
}

/* ---- read-outs ------------------------------------------------------------ */

/* `text` and, under it, the definition of each metric it names (the
 * read-out's tooltip): what "laterality −0.96" or "symmetric KL 10.5" means. */
static char *
with_definitions (const char *text, const char * const *names)
{
  GString *out = g_string_new (text);

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *tooltip = hs_metric_info_tooltip (hs_metric_info_lookup (names[i]));
      g_string_append_printf (out, "\n\n%s: %s", names[i], tooltip);
    }
  return g_string_free (out, FALSE);
}

/* A read-out of hs-panel-readout on screen (its line, badge) with the
 * definitions of the metrics it names in the tooltip. */
static void
set_panel_readout (HsCompareCell *cell, HsPanelReadout *readout, const char * const *names)
{
  g_autofree char *line = readout->badge ? g_strdup_printf ("%s · %s", readout->line, readout->badge)
                                         : g_strdup (readout->line);
  g_autofree char *text = with_definitions (line, names);

  hs_compare_cell_set_panel_readout (cell, text, readout);
  hs_panel_readout_clear (readout);
}

/* Laterality of each map against the original target, and wrong_side (or,
 * for the swapped map of a swapped pair, swap_response). */
static void
update_readouts (HsCompareView *self, guint n_scored)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsTarget) target = NULL;
  g_autofree HsScores *scores = g_new0 (HsScores, MAX (n_scored, 1));
  g_autofree gboolean *scored = g_new0 (gboolean, MAX (n_scored, 1));

  if (self->image != NULL)
    target = _hs_target_of_regions (self->image, HS_PROTOCOL_DEFAULT, self->regions, self->masks,
                                    &error);
  for (guint i = 0; i < n_scored && i < self->cells->len; i++)
    {
      HsCompareCell *cell = g_ptr_array_index (self->cells, i);
      HsAttentionMap *map = hs_compare_cell_get_map (cell);
      g_autoptr(GError) score_error = NULL;
      g_autofree char *text = NULL;
      HsPanelReadout readout = { NULL, NULL, HS_BADGE_NEUTRAL, -1 };
      HsScoreOptions options;

      if (map == NULL)
        continue;
      if (target == NULL)
        {
          text = g_strdup_printf (_("No read-out: %s"), error != NULL ? error->message : _("no image"));
          hs_compare_cell_set_readout (cell, text, NULL);
          continue;
        }
      hs_score_options_init (&options);
      options.n_threads = 1;
      if (!hs_score_map (map, target, &options, &scores[i], &score_error))
        {
          text = g_strdup_printf (_("No read-out: %s"), score_error->message);
          hs_compare_cell_set_readout (cell, text, NULL);
          continue;
        }
      scored[i] = TRUE;
      /* B of a swapped pair: what the map did with the swapped words
       * (swap_response against A's laterality and A's target), never
       * wrong_side: against the original target it would flag exactly the
       * maps that followed the words */
      if (i == 1 && self->swapped_pair && scored[0])
        {
          hs_panel_readout_of_swap (&scores[0], &scores[1], &readout);
          set_panel_readout (cell, &readout,
                             (const char * const[]) { "auroc", "laterality", "swap_response", NULL });
          continue;
        }
      hs_panel_readout_of_scores (&scores[i], &readout);
      set_panel_readout (cell, &readout, (const char * const[]) { "laterality", "wrong_side", NULL });
    }
  hs_score_release_memory ();
}

/* ---- shared scale --------------------------------------------------------- */

/* min..max over the maps of the first `n_cells` cells that have one. */
static void
apply_shared_range (HsCompareView *self, guint n_cells)
{
  g_autofree const double **grids = g_new0 (const double *, MAX (n_cells, 1));
  g_autofree gsize *sizes = g_new0 (gsize, MAX (n_cells, 1));
  g_autoptr(GError) error = NULL;
  double lo = 0, hi = 1;
  guint n_maps = 0;

  for (guint i = 0; i < n_cells && i < self->cells->len; i++)
    {
      HsAttentionMap *map = hs_compare_cell_get_map (g_ptr_array_index (self->cells, i));

      if (map == NULL)
        continue;
      grids[n_maps] = hs_attention_map_peek_values (map);
      sizes[n_maps] = (gsize) hs_attention_map_get_width (map) * hs_attention_map_get_height (map);
      n_maps++;
    }
  if (n_maps == 0 || !hs_scale_shared_range (grids, sizes, n_maps, &lo, &hi, &error))
    lo = 0, hi = 1;
  if (!(hi > lo))
    hi = lo + 1e-12;
  self->shared_lo = lo;
  self->shared_hi = hi;
  for (guint i = 0; i < n_cells && i < self->cells->len; i++)
    hs_view_state_set_shared_range (hs_compare_cell_get_state (g_ptr_array_index (self->cells, i)), lo, hi);
  if (self->shared_bar != NULL)
    hs_color_bar_set_range (self->shared_bar, lo, hi);
}

/* ---- public ----------------------------------------------------------------- */

static void
update_blink (HsCompareView *self)
{
  HsCompareCell *a = _hs_compare_view_get_cell (self, 0), *b = _hs_compare_view_get_cell (self, 1);
  g_autofree char *title = NULL;

  if (self->mode != HS_COMPARE_MODE_PAIR || a == NULL || b == NULL)
    return;
  hs_canvas_set_map (hs_compare_cell_get_canvas (a), hs_compare_cell_get_map (self->blink ? b : a));
  if (self->blink)
    title = g_strdup_printf (_("B (blink): %s"), hs_compare_cell_get_title_tooltip (b));
  hs_compare_cell_show_title (a, title);
  /* The caption under A describes the map A's canvas shows. */
  hs_compare_cell_show_readout_of (a, self->blink ? b : NULL);
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
  self->image_stamp = NULL;
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

static void
reset_blink (HsCompareView *self)
{
  if (self->blink)
    {
      self->blink = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BLINK]);
    }
}

/* A | B | A − B with empty cells and the two colour bars. */
void
_hs_compare_view_build_pair (HsCompareView *self, const char *label_a, const char *label_b,
                             gboolean swapped)
{
  g_autofree char *title_a = g_strdup_printf (_("A: %s"), label_a ? label_a : "");
  g_autofree char *title_b = g_strdup_printf (_("B: %s"), label_b ? label_b : "");
  HsCompareCell *a, *b, *diff;

  reset_blink (self);
  clear_cells (self);
  g_clear_pointer (&self->models, g_strfreev);
  self->swapped_pair = swapped;
  a = add_cell (self, 0, 0);
  hs_compare_cell_set_title (a, title_a, label_a);
  b = add_cell (self, 1, 0);
  hs_compare_cell_set_title (b, title_b, label_b);
  diff = add_cell (self, 2, 0);
  hs_compare_cell_set_title (diff, _("A − B"), _("Difference of the two maps (A’s grid)"));
  hs_view_state_set_colormap (hs_compare_cell_get_state (diff), "diverging");
  g_object_set (hs_compare_cell_get_state (diff), "outline", "none", "threshold", 0.0, NULL);

  self->shared_lo = 0;
  self->shared_hi = 1;
  self->diff_lo = self->diff_hi = 0;
  self->shared_bar = new_bar (self, a, _("A and B · one shared scale"), 0, 1);
  gtk_grid_attach (self->cells_grid, GTK_WIDGET (self->shared_bar), 0, 1, 2, 1);
  self->diff_bar = new_bar (self, diff, _("A − B · diverging, symmetric about 0"), 0, 0);
  gtk_grid_attach (self->cells_grid, GTK_WIDGET (self->diff_bar), 2, 1, 1, 1);
  set_mode (self, HS_COMPARE_MODE_PAIR);
}

/* The maps of A and B are in (or one failed): the difference, the shared
 * scale, the read-outs. */
void
_hs_compare_view_finish_pair (HsCompareView *self)
{
  HsCompareCell *a = _hs_compare_view_get_cell (self, 0), *b = _hs_compare_view_get_cell (self, 1);
  HsCompareCell *cell = _hs_compare_view_get_cell (self, 2);
  HsAttentionMap *map_a, *map_b;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) diff = NULL;
  g_autofree char *info = NULL;
  char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];
  double m = 0;

  if (a == NULL || b == NULL || cell == NULL)
    return;
  apply_shared_range (self, 2);
  update_readouts (self, 2);
  if (hs_compare_cell_get_pending (a) || hs_compare_cell_get_pending (b))
    {
      gtk_label_set_text (self->info_label, _("Computing the live maps…"));
      hs_compare_cell_set_pending (cell);
      return;
    }
  map_a = hs_compare_cell_get_map (a);
  map_b = hs_compare_cell_get_map (b);
  if (map_a == NULL || map_b == NULL)
    {
      hs_compare_cell_set_error (cell, _("A − B needs both maps"));
      gtk_label_set_text (self->info_label, _("One of the maps could not be computed"));
      return;
    }
  diff = hs_attention_map_difference (map_a, map_b, &m, &error);
  if (diff == NULL)
    {
      hs_compare_cell_set_error (cell, error->message);
      return;
    }
  hs_compare_cell_set_map (cell, diff);
  if (!(m > 0))
    m = 1e-12;
  self->diff_lo = -m;
  self->diff_hi = m;
  hs_view_state_set_shared_range (hs_compare_cell_get_state (cell), -m, m);
  hs_color_bar_set_range (self->diff_bar, -m, m);
  {
    /* The difference's read-out: how far apart the two maps are. */
    HsPanelReadout readout = { NULL, NULL, HS_BADGE_NEUTRAL, -1 };
    guint w = hs_attention_map_get_width (map_a), h = hs_attention_map_get_height (map_a);
    gboolean same_grid = w == hs_attention_map_get_width (map_b)
                         && h == hs_attention_map_get_height (map_b);

    hs_panel_readout_of_difference (same_grid ? hs_attention_map_peek_values (map_a) : NULL,
                                    same_grid ? hs_attention_map_peek_values (map_b) : NULL,
                                    (gsize) w * h, m, &readout);
    set_panel_readout (cell, &readout, (const char * const[]) { "sym_kl", NULL });
  }

  /* as the shared bar prints its ends */
  hs_legend_format_tick (self->shared_lo, self->shared_lo, self->shared_hi, lo);
  hs_legend_format_tick (self->shared_hi, self->shared_lo, self->shared_hi, hi);
  info = g_strdup_printf (_("One shared scale for A and B: %s – %s · press B to blink"), lo, hi);
  gtk_label_set_text (self->info_label, info);
  update_blink (self);
}

static void
set_pair (HsCompareView *self, HsAttentionMap *a, const char *label_a,
          HsAttentionMap *b, const char *label_b, gboolean swapped)
{
  g_return_if_fail (HS_IS_COMPARE_VIEW (self));
  g_return_if_fail (a != NULL && b != NULL);

  _hs_compare_view_build_pair (self, label_a, label_b, swapped);
  hs_compare_cell_set_map (_hs_compare_view_get_cell (self, 0), a);
  hs_compare_cell_set_map (_hs_compare_view_get_cell (self, 1), b);
  _hs_compare_view_finish_pair (self);
}

void
hs_compare_view_set_pair (HsCompareView *self,
                          HsAttentionMap *a, const char *label_a,
                          HsAttentionMap *b, const char *label_b)
{
  set_pair (self, a, label_a, b, label_b, FALSE);
}

void
hs_compare_view_set_swapped_pair (HsCompareView *self,
                                  HsAttentionMap *a, const char *label_a,
                                  HsAttentionMap *b, const char *label_b)
{
  set_pair (self, a, label_a, b, label_b, TRUE);
}

/* One cell per label, `columns` wide, and the shared colour bar under them. */
void
_hs_compare_view_build_grid (HsCompareView *self, guint n, const char * const *labels)
{
  guint columns = (guint) ceil (sqrt ((double) n));

  reset_blink (self);
  clear_cells (self);
  g_clear_pointer (&self->models, g_strfreev);
  /* a grid's second cell is another model, not a swapped prompt's map */
  self->swapped_pair = FALSE;
  if (n <= 3)
    columns = n;
  for (guint i = 0; i < n; i++)
    {
      HsCompareCell *cell = add_cell (self, i % columns, i / columns);
      const char *label = labels != NULL ? labels[i] : NULL;

      hs_compare_cell_set_title (cell, label ? label : "", label);
    }
  self->shared_bar = new_bar (self, _hs_compare_view_get_cell (self, 0), _("Every model · one shared scale"),
                              self->shared_lo, self->shared_hi);
  gtk_grid_attach (self->cells_grid, GTK_WIDGET (self->shared_bar), 0, (n + columns - 1) / columns, columns, 1);
  self->diff_lo = self->diff_hi = 0;
  set_mode (self, HS_COMPARE_MODE_GRID);
}

/* Shared scale, read-outs and the summary over the maps that are in. */
void
_hs_compare_view_refresh_grid (HsCompareView *self)
{
  guint n = self->cells->len, n_maps = 0, n_pending = 0, n_failed = 0;
  g_autoptr(GString) info = g_string_new (NULL);
  char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < n; i++)
    {
      HsCompareCell *cell = g_ptr_array_index (self->cells, i);
      gboolean has_map = hs_compare_cell_get_map (cell) != NULL;
      gboolean pending = hs_compare_cell_get_pending (cell);

      n_maps += has_map;
      n_pending += pending;
      n_failed += !has_map && !pending;
    }
  apply_shared_range (self, n);
  update_readouts (self, n);
  /* as the shared bar prints its ends */
  hs_legend_format_tick (self->shared_lo, self->shared_lo, self->shared_hi, lo);
  hs_legend_format_tick (self->shared_hi, self->shared_lo, self->shared_hi, hi);
  g_string_printf (info, ngettext ("%u model · one shared scale: %s – %s",
                                   "%u models · one shared scale: %s – %s", n), n, lo, hi);
  if (n_pending > 0)
    g_string_append_printf (info, ngettext (" · %u live map computing", " · %u live maps computing",
                                            n_pending), n_pending);
  if (n_failed > 0)
    g_string_append_printf (info, ngettext (" · %u failed", " · %u failed", n_failed), n_failed);
  gtk_label_set_text (self->info_label, info->str);
}

void
hs_compare_view_set_grid (HsCompareView *self, GPtrArray *maps, const char * const *labels)
{
  g_return_if_fail (HS_IS_COMPARE_VIEW (self));
  g_return_if_fail (maps != NULL);

  if (maps->len == 0)
    {
      show_nothing (self, _("No model has a map for this prompt"));
      return;
    }
  _hs_compare_view_build_grid (self, maps->len, labels);
  for (guint i = 0; i < maps->len; i++)
    hs_compare_cell_set_map (_hs_compare_view_get_cell (self, i), g_ptr_array_index (maps, i));
  _hs_compare_view_refresh_grid (self);
}


gboolean
hs_compare_view_get_busy (HsCompareView *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  return hs_latest_request_get_n_pending (self->requests) > 0;
}

const char *
hs_compare_view_get_error (HsCompareView *self, guint index)
{
  HsCompareCell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = _hs_compare_view_get_cell (self, index);
  return cell ? hs_compare_cell_get_error (cell) : NULL;
}

HsAttentionMap *
hs_compare_view_get_map (HsCompareView *self, guint index)
{
  HsCompareCell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = _hs_compare_view_get_cell (self, index);
  return cell ? hs_compare_cell_get_map (cell) : NULL;
}

HsCompareMode
hs_compare_view_get_mode (HsCompareView *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), HS_COMPARE_MODE_NONE);
  return self->mode;
}

void
_hs_compare_view_set_models (HsCompareView *self, const char * const *models, guint live_from)
{
  g_strfreev (self->models);
  self->models = g_strdupv ((char **) models);
  self->live_from = live_from;
}

const char *
hs_compare_view_get_model (HsCompareView *self, guint index, gboolean *live)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  if (self->models == NULL || index >= g_strv_length (self->models))
    return NULL;
  if (live != NULL)
    *live = index >= self->live_from;
  return self->models[index];
}

gboolean
hs_compare_view_get_swapped (HsCompareView *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  return self->mode == HS_COMPARE_MODE_PAIR && self->swapped_pair;
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
  HsCompareCell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = _hs_compare_view_get_cell (self, index);
  return cell ? hs_compare_cell_get_canvas (cell) : NULL;
}

const char *
hs_compare_view_get_title (HsCompareView *self, guint index)
{
  HsCompareCell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = _hs_compare_view_get_cell (self, index);
  return cell ? hs_compare_cell_get_shown_title (cell) : NULL;
}

const char *
hs_compare_view_get_readout (HsCompareView *self, guint index)
{
  HsCompareCell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = _hs_compare_view_get_cell (self, index);
  return cell ? hs_compare_cell_get_readout (cell) : NULL;
}

int
hs_compare_view_get_wrong_side (HsCompareView *self, guint index)
{
  HsCompareCell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), -1);
  cell = _hs_compare_view_get_cell (self, index);
  return cell ? hs_compare_cell_get_wrong_side (cell) : -1;
}

const char *
hs_compare_view_get_badge (HsCompareView *self, guint index)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  return index < self->cells->len ? hs_compare_cell_get_badge (g_ptr_array_index (self->cells, index)) : NULL;
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

void
hs_compare_view_set_tags (HsCompareView *self, guint index, const HsTagWeight *tags, guint n)
{
  HsCompareCell *cell;

  g_return_if_fail (HS_IS_COMPARE_VIEW (self));
  cell = _hs_compare_view_get_cell (self, index);
  g_return_if_fail (cell != NULL);
  hs_compare_cell_set_tags (cell, tags, n);
  update_tags_action (self);
}

HsTagStrip *
hs_compare_view_get_tag_strip (HsCompareView *self, guint index)
{
  HsCompareCell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = _hs_compare_view_get_cell (self, index);
  return cell != NULL ? hs_compare_cell_get_tag_strip (cell) : NULL;
}

static void
set_cell_show_tags (gpointer cell, gpointer show)
{
  hs_compare_cell_set_show_tags (cell, GPOINTER_TO_INT (show));
}

void
hs_compare_view_set_show_tags (HsCompareView *self, gboolean show)
{
  g_return_if_fail (HS_IS_COMPARE_VIEW (self));

  if (self->show_tags == !!show)
    return;
  self->show_tags = !!show;
  g_ptr_array_foreach (self->cells, set_cell_show_tags, GINT_TO_POINTER (self->show_tags));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_TAGS]);
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
    hs_canvas_zoom_fit (hs_compare_cell_get_canvas (g_ptr_array_index (self->cells, i)));
}

static void
zoom_step_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsCompareView *self = HS_COMPARE_VIEW (widget);
  HsCompareCell *cell = _hs_compare_view_get_cell (self, 0);
  double factor = g_str_equal (action_name, "compare.zoom-in") ? 1.25 : 1 / 1.25;

  /* The other canvases follow through the link. */
  if (cell != NULL)
    {
      HsCanvas *canvas = hs_compare_cell_get_canvas (cell);
      hs_canvas_zoom_to (canvas, hs_canvas_get_zoom (canvas) * factor, -1, -1);
    }
}

static void
hs_compare_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  HsCompareView *self = HS_COMPARE_VIEW (object);

  switch (prop_id)
    {
    case PROP_BLINK: g_value_set_boolean (value, self->blink); break;
    case PROP_MODE:  g_value_set_int (value, self->mode); break;
    case PROP_BUSY:  g_value_set_boolean (value, hs_compare_view_get_busy (self)); break;
    case PROP_SHOW_TAGS: g_value_set_boolean (value, self->show_tags); break;
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
    case PROP_SHOW_TAGS: hs_compare_view_set_show_tags (self, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_compare_view_dispose (GObject *object)
{
  HsCompareView *self = HS_COMPARE_VIEW (object);

  _hs_compare_view_cancel_live (self);
  if (self->cells != NULL)
    g_ptr_array_set_size (self->cells, 0);
  g_clear_object (&self->band_readouts);
  g_clear_object (&self->band_footers);
  gtk_widget_dispose_template (GTK_WIDGET (object), HS_TYPE_COMPARE_VIEW);
  g_clear_object (&self->base);
  g_clear_pointer (&self->image, hs_image_unref);
  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  g_clear_object (&self->live);
  G_OBJECT_CLASS (hs_compare_view_parent_class)->dispose (object);
}

static void
hs_compare_view_finalize (GObject *object)
{
  HsCompareView *self = HS_COMPARE_VIEW (object);

  g_clear_pointer (&self->cells, g_ptr_array_unref);
  g_clear_pointer (&self->models, g_strfreev);
  g_clear_object (&self->requests);
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
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_TAGS] =
    g_param_spec_boolean ("show-tags", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-compare-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, box);
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, prompt_label);
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, info_label);
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, stack);
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, cells_grid);
  gtk_widget_class_bind_template_child (widget_class, HsCompareView, empty_label);

  gtk_widget_class_install_property_action (widget_class, "compare.blink", "blink");
  gtk_widget_class_install_property_action (widget_class, "compare.show-tags", "show-tags");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_t, 0, "compare.show-tags", NULL);
  gtk_widget_class_install_action (widget_class, "compare.zoom-fit", NULL, zoom_fit_action);
  gtk_widget_class_install_action (widget_class, "compare.export", NULL, _hs_compare_view_export_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "compare.export", NULL);
  gtk_widget_class_install_action (widget_class, "compare.zoom-in", NULL, zoom_step_action);
  gtk_widget_class_install_action (widget_class, "compare.zoom-out", NULL, zoom_step_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_b, 0, "compare.blink", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_B, GDK_SHIFT_MASK, "compare.blink", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "compare.zoom-fit", NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "hs-compare-view");
}

static void
hs_compare_view_init (HsCompareView *self)
{
  self->cells = g_ptr_array_new_with_free_func (g_object_unref);
  self->requests = hs_latest_request_new ();
  self->shared_lo = 0;
  self->shared_hi = 1;
  self->show_tags = TRUE;
  gtk_widget_init_template (GTK_WIDGET (self));
  _hs_css_init ();
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  set_mode (self, HS_COMPARE_MODE_NONE);
  update_tags_action (self);
}
