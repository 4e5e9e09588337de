/* hs-compare-view.c — A | B | A − B and a grid of models, linked views */

#include <math.h>
#include <glib/gi18n.h>
#include <heatscope/hs-figure.h>
#include <heatscope/hs-metrics.h>
#include <heatscope/hs-resample.h>
#include <heatscope/hs-target.h>
#include <heatscope/hs-text.h>

#include "hs-compare-view.h"

G_DEFINE_QUARK (hs-compare-view-error-quark, hs_compare_view_error)

/* Grid rows per band of cells: title, map, read-out. */
#define ROWS_PER_BAND 3

/* One map on screen: a title, the canvas (or a spinner while a live map is
 * computed, or the error), the read-out under it. */
typedef struct {
  GtkLabel       *title;
  GtkStack       *stack;         /* "map", "pending", "error" */
  HsCanvas       *canvas;
  GtkLabel       *message;       /* the pending or error text */
  GtkWidget      *readout_box;
  GtkLabel       *badge;         /* WRONG SIDE / same side */
  GtkLabel       *readout;
  HsViewState    *state;
  HsAttentionMap *map;
  char           *title_text;
  char           *readout_text;
  char           *error_text;
  int             wrong_side;
  gboolean        pending;
  gulong          handler;
} Cell;

struct _HsCompareView
{
  GtkWidget       parent_instance;

  GtkWidget      *box;
  GtkLabel       *prompt_label;
  GtkLabel       *info_label;
  GtkStack       *stack;
  GtkGrid        *cells_grid;
  GtkLabel       *empty_label;

  HsViewState    *base;          /* display settings copied into each cell */
  HsImage        *image;
  GPtrArray      *regions;       /* HsRegion*, borrowed from the dataset */
  GPtrArray      *masks;
  GPtrArray      *cells;         /* Cell* */
  GtkWidget      *shared_bar;    /* the colour bar of A and B / of the grid */
  GtkWidget      *diff_bar;      /* the colour bar of A − B */
  HsCompareMode   mode;
  gboolean        blink;
  gboolean        linking;       /* guard while propagating a transform */
  double          shared_lo, shared_hi;
  double          diff_lo, diff_hi;
  HsDataset      *dataset;       /* keeps borrowed regions alive */

  /* Live maps of the newest load; older requests are dropped. */
  HsLiveAttend   *live;
  GCancellable   *cancellable;
  guint           generation;
  guint           n_pending;
};

G_DEFINE_FINAL_TYPE (HsCompareView, hs_compare_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_BLINK,
  PROP_MODE,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void update_blink (HsCompareView *self);

static void
cell_free (Cell *cell)
{
  if (cell->handler != 0)
    g_signal_handler_disconnect (cell->canvas, cell->handler);
  g_clear_object (&cell->state);
  g_clear_pointer (&cell->map, hs_attention_map_unref);
  g_free (cell->title_text);
  g_free (cell->readout_text);
  g_free (cell->error_text);
  g_free (cell);
}

static Cell *
get_cell (HsCompareView *self, guint index)
{
  if (self->cells == NULL || index >= self->cells->len)
    return NULL;
  return g_ptr_array_index (self->cells, index);
}

/* ---- numbers ------------------------------------------------------------- */

/* Decimals that show steps of `step` (0.005 → 3), within reason. */
static int
decimals_for (double step)
{
  if (!(step > 0) || !isfinite (step))
    return 3;
  return CLAMP ((int) ceil (-log10 (step) - 1e-9), 0, 8);
}

/* A value of a scale spanning `span`: fixed decimals when they read well,
 * else scientific. */
static char *
format_scale_value (double v, double span)
{
  int d = decimals_for (span / 10);

  if (v == 0)
    v = 0;   /* no "-0.000" */
  if (d > 5)
    return g_strdup_printf ("%.2e", v);
  return g_strdup_printf ("%.*f", d, v);
}

/* ---- the shared colour bar ----------------------------------------------- */

/* A horizontal colour bar drawn for a set of cells: the colours of the cell
 * state's colour map and strength, ticks with values, a caption. */
static void
draw_bar (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  HsCompareView *self = HS_COMPARE_VIEW (data);
  gboolean diff = GTK_WIDGET (area) == self->diff_bar;
  Cell *cell = get_cell (self, diff ? 2 : 0);
  double lo = diff ? self->diff_lo : self->shared_lo;
  double hi = diff ? self->diff_hi : self->shared_hi;
  const char *caption = g_object_get_data (G_OBJECT (area), "hs-caption");
  HsOverlayOptions options;
  guint32 lut[256];
  double ticks[10];
  double placed[10][2];
  guint n_placed = 0;
  double bar_x = 8, bar_y = 18, bar_h = 12, bar_w = width - 16;
  guint n_ticks;
  GdkRGBA fg;
  PangoLayout *layout;
  cairo_surface_t *strip;
  guint32 *pixels;

  if (cell == NULL || bar_w < 40 || !(hi > lo))
    return;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS

  /* The colours as the canvases map them (strength and colour map), opaque. */
  hs_view_state_get_overlay_options (cell->state, &options);
  options.threshold = 0;
  options.opacity = 1;
  hs_overlay_build_lut (&options, lut, G_N_ELEMENTS (lut));
  /* One row of 256 pixels: the stride does not matter. */
  strip = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, G_N_ELEMENTS (lut), 1);
  if (cairo_surface_status (strip) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (strip);
      return;
    }
  cairo_surface_flush (strip);
  pixels = (guint32 *) cairo_image_surface_get_data (strip);
  for (guint i = 0; i < G_N_ELEMENTS (lut); i++)
    pixels[i] = lut[i] | 0xff000000u;
  cairo_surface_mark_dirty (strip);

  cairo_save (cr);
  cairo_rectangle (cr, bar_x, bar_y, bar_w, bar_h);
  cairo_clip (cr);
  cairo_translate (cr, bar_x, bar_y);
  cairo_scale (cr, bar_w / G_N_ELEMENTS (lut), bar_h);
  cairo_set_source_surface (cr, strip, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_BILINEAR);
  cairo_pattern_set_extend (cairo_get_source (cr), CAIRO_EXTEND_PAD);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_surface_destroy (strip);

  gdk_cairo_set_source_rgba (cr, &fg);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, bar_x + 0.5, bar_y + 0.5, bar_w - 1, bar_h - 1);
  cairo_stroke (cr);

  layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), caption);
  cairo_move_to (cr, bar_x, 0);
  pango_cairo_show_layout (cr, layout);

  /* The ends of the scale always, and the nice ticks between them that
   * leave room for their values. */
  n_ticks = hs_figure_nice_ticks (lo, hi, diff ? 5 : 6, ticks + 2);
  ticks[0] = lo;
  ticks[1] = hi;
  n_ticks += 2;
  for (guint i = 0; i < n_ticks; i++)
    {
      double x = bar_x + (ticks[i] - lo) / (hi - lo) * bar_w;
      g_autofree char *text = format_scale_value (ticks[i], hi - lo);
      double left;
      int tw, th;
      gboolean clash = FALSE;

      pango_layout_set_text (layout, text, -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      left = CLAMP (x - tw / 2.0, 0, width - tw);
      for (guint k = 0; k < n_placed && !clash; k++)
        clash = left < placed[k][1] + 8 && left + tw + 8 > placed[k][0];
      if (clash)
        continue;
      placed[n_placed][0] = left;
      placed[n_placed][1] = left + tw;
      n_placed++;
      cairo_move_to (cr, round (x) + 0.5, bar_y + bar_h);
      cairo_line_to (cr, round (x) + 0.5, bar_y + bar_h + 4);
      cairo_stroke (cr);
      cairo_move_to (cr, left, bar_y + bar_h + 5);
      pango_cairo_show_layout (cr, layout);
    }
  g_object_unref (layout);
}

static GtkWidget *
new_bar (HsCompareView *self)
{
  GtkWidget *area = gtk_drawing_area_new ();

  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (area), 50);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_bar, self, NULL);
  gtk_widget_set_hexpand (area, TRUE);
  gtk_widget_add_css_class (area, "hs-colour-bar");
  return area;
}

static void
bar_set_caption (GtkWidget *bar, const char *caption)
{
  g_object_set_data_full (G_OBJECT (bar), "hs-caption", g_strdup (caption), g_free);
  gtk_widget_queue_draw (bar);
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

/* Forgets the live requests in flight (their maps still feed the cache). */
static void
cancel_live (HsCompareView *self)
{
  gboolean was_busy = self->n_pending > 0;

  self->generation++;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->n_pending = 0;
  if (was_busy)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
clear_cells (HsCompareView *self)
{
  GtkWidget *child;

  cancel_live (self);
  g_ptr_array_set_size (self->cells, 0);
  self->shared_bar = NULL;
  self->diff_bar = NULL;
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
add_cell (HsCompareView *self, guint column, guint band)
{
  Cell *cell = g_new0 (Cell, 1);
  GtkWidget *pending, *spinner, *failed, *icon;

  cell->wrong_side = -1;
  cell->title = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_ellipsize (cell->title, PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (GTK_WIDGET (cell->title), "heading");

  cell->canvas = HS_CANVAS (hs_canvas_new ());
  hs_canvas_set_show_color_bar (cell->canvas, FALSE);   /* the view's shared bar instead */
  gtk_widget_set_hexpand (GTK_WIDGET (cell->canvas), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (cell->canvas), TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (cell->canvas), 160, 160);

  /* While a live map is computed, and when it failed: in the cell. */
  cell->message = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (cell->message, TRUE);
  gtk_label_set_justify (cell->message, GTK_JUSTIFY_CENTER);
  gtk_label_set_max_width_chars (cell->message, 40);
  pending = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_valign (pending, GTK_ALIGN_CENTER);
  spinner = gtk_spinner_new ();
  gtk_spinner_start (GTK_SPINNER (spinner));
  gtk_widget_set_size_request (spinner, 32, 32);
  gtk_box_append (GTK_BOX (pending), spinner);
  gtk_box_append (GTK_BOX (pending), gtk_label_new (_("Computing the map…")));
  gtk_widget_add_css_class (pending, "dim-label");
  failed = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_valign (failed, GTK_ALIGN_CENTER);
  gtk_widget_set_margin_start (failed, 12);
  gtk_widget_set_margin_end (failed, 12);
  icon = gtk_image_new_from_icon_name ("dialog-error-symbolic");
  gtk_image_set_pixel_size (GTK_IMAGE (icon), 32);
  gtk_widget_add_css_class (icon, "error");
  gtk_box_append (GTK_BOX (failed), icon);
  gtk_box_append (GTK_BOX (failed), GTK_WIDGET (cell->message));
  gtk_widget_add_css_class (GTK_WIDGET (cell->message), "error");

  cell->stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_add_named (cell->stack, GTK_WIDGET (cell->canvas), "map");
  gtk_stack_add_named (cell->stack, pending, "pending");
  gtk_stack_add_named (cell->stack, failed, "error");
  gtk_stack_set_visible_child_name (cell->stack, "map");
  gtk_widget_add_css_class (GTK_WIDGET (cell->stack), "hs-compare-cell");

  cell->readout_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_valign (cell->readout_box, GTK_ALIGN_START);
  cell->badge = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_set_valign (GTK_WIDGET (cell->badge), GTK_ALIGN_START);
  gtk_widget_add_css_class (GTK_WIDGET (cell->badge), "hs-side-badge");
  gtk_widget_set_visible (GTK_WIDGET (cell->badge), FALSE);
  cell->readout = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (cell->readout, TRUE);
  gtk_label_set_xalign (cell->readout, 0);
  gtk_widget_set_hexpand (GTK_WIDGET (cell->readout), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (cell->readout), "caption");
  gtk_box_append (GTK_BOX (cell->readout_box), GTK_WIDGET (cell->badge));
  gtk_box_append (GTK_BOX (cell->readout_box), GTK_WIDGET (cell->readout));

  /* Titles, maps and read-outs each share a grid row: they line up. */
  gtk_grid_attach (self->cells_grid, GTK_WIDGET (cell->title), column, band * ROWS_PER_BAND, 1, 1);
  gtk_grid_attach (self->cells_grid, GTK_WIDGET (cell->stack), column, band * ROWS_PER_BAND + 1, 1, 1);
  gtk_grid_attach (self->cells_grid, cell->readout_box, column, band * ROWS_PER_BAND + 2, 1, 1);

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
  cell->pending = FALSE;
  g_clear_pointer (&cell->error_text, g_free);
  hs_canvas_set_map (cell->canvas, map);
  gtk_stack_set_visible_child_name (cell->stack, "map");
}

static void
cell_set_pending (Cell *cell)
{
  cell->pending = TRUE;
  gtk_stack_set_visible_child_name (cell->stack, "pending");
}

static void
cell_set_readout_full (Cell *cell, const char *text, const char *detail, int wrong_side)
{
  g_free (cell->readout_text);
  cell->readout_text = g_strdup (text);
  cell->wrong_side = wrong_side;
  gtk_label_set_text (cell->readout, detail != NULL ? detail : text);
  gtk_widget_set_tooltip_text (cell->readout_box, text);
  gtk_widget_set_visible (GTK_WIDGET (cell->badge), wrong_side >= 0);
  gtk_widget_remove_css_class (GTK_WIDGET (cell->badge), "hs-wrong-side");
  gtk_widget_remove_css_class (GTK_WIDGET (cell->badge), "hs-same-side");
  if (wrong_side >= 0)
    {
      gtk_label_set_text (cell->badge, wrong_side == 1 ? _("WRONG SIDE") : _("same side"));
      gtk_widget_add_css_class (GTK_WIDGET (cell->badge), wrong_side == 1 ? "hs-wrong-side" : "hs-same-side");
    }
}

static void
cell_set_readout (Cell *cell, const char *text, int wrong_side)
{
  cell_set_readout_full (cell, text, NULL, wrong_side);
}

static void
cell_set_error (Cell *cell, const char *message)
{
  g_clear_pointer (&cell->map, hs_attention_map_unref);
  hs_canvas_set_map (cell->canvas, NULL);
  cell->pending = FALSE;
  g_free (cell->error_text);
  cell->error_text = g_strdup (message);
  gtk_label_set_text (cell->message, message);
  gtk_stack_set_visible_child_name (cell->stack, "error");
  cell_set_readout (cell, "", -1);
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
      g_autofree char *detail = NULL;
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
      detail = g_strdup_printf (_("Laterality %s · target %s"), map_side, target_side);
      text = g_strdup_printf (_("Laterality %s · target %s · %s"), map_side, target_side,
                              isnan (wrong) ? _("wrong side n/a")
                              : wrong >= 0.5 ? _("WRONG SIDE") : _("same side"));
      if (isnan (wrong))
        {
          g_autofree char *no_side = g_strdup_printf (_("%s · wrong side n/a (no target side)"), detail);
          cell_set_readout_full (cell, text, no_side, -1);
        }
      else
        cell_set_readout_full (cell, text, detail, wrong >= 0.5 ? 1 : 0);
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
      Cell *cell = g_ptr_array_index (self->cells, i);

      if (cell->map == NULL)
        continue;
      grids[n_maps] = hs_attention_map_peek_values (cell->map);
      sizes[n_maps] = (gsize) hs_attention_map_get_width (cell->map) * hs_attention_map_get_height (cell->map);
      n_maps++;
    }
  if (n_maps == 0 || !hs_scale_shared_range (grids, sizes, n_maps, &lo, &hi, &error))
    lo = 0, hi = 1;
  if (!(hi > lo))
    hi = lo + 1e-12;
  self->shared_lo = lo;
  self->shared_hi = hi;
  for (guint i = 0; i < n_cells && i < self->cells->len; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      hs_view_state_set_shared_range (cell->state, lo, hi);
    }
  if (self->shared_bar != NULL)
    gtk_widget_queue_draw (self->shared_bar);
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
static void
build_pair (HsCompareView *self, const char *label_a, const char *label_b)
{
  g_autofree char *title_a = g_strdup_printf (_("A: %s"), label_a ? label_a : "");
  g_autofree char *title_b = g_strdup_printf (_("B: %s"), label_b ? label_b : "");
  Cell *cell;

  reset_blink (self);
  clear_cells (self);
  cell = add_cell (self, 0, 0);
  cell_set_title (cell, title_a, label_a);
  cell = add_cell (self, 1, 0);
  cell_set_title (cell, title_b, label_b);
  cell = add_cell (self, 2, 0);
  cell_set_title (cell, _("A − B"), _("Difference of the two maps (A’s grid)"));
  hs_view_state_set_colormap (cell->state, "diverging");
  g_object_set (cell->state, "outline", "none", "threshold", 0.0, NULL);

  self->shared_bar = new_bar (self);
  bar_set_caption (self->shared_bar, _("A and B · one shared scale"));
  gtk_grid_attach (self->cells_grid, self->shared_bar, 0, ROWS_PER_BAND, 2, 1);
  self->diff_bar = new_bar (self);
  bar_set_caption (self->diff_bar, _("A − B · diverging, symmetric about 0"));
  gtk_grid_attach (self->cells_grid, self->diff_bar, 2, ROWS_PER_BAND, 1, 1);
  self->shared_lo = 0;
  self->shared_hi = 1;
  self->diff_lo = self->diff_hi = 0;
  set_mode (self, HS_COMPARE_MODE_PAIR);
}

/* The maps of A and B are in (or one failed): the difference, the shared
 * scale, the read-outs. */
static void
finish_pair (HsCompareView *self)
{
  Cell *a = get_cell (self, 0), *b = get_cell (self, 1), *cell = get_cell (self, 2);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) diff = NULL;
  g_autofree char *info = NULL;
  g_autofree char *lo = NULL;
  g_autofree char *hi = NULL;
  double m = 0;

  if (a == NULL || b == NULL || cell == NULL)
    return;
  apply_shared_range (self, 2);
  update_readouts (self, 2);
  if (a->pending || b->pending)
    {
      gtk_label_set_text (self->info_label, _("Computing the live maps…"));
      cell_set_pending (cell);
      return;
    }
  if (a->map == NULL || b->map == NULL)
    {
      cell_set_error (cell, _("A − B needs both maps"));
      gtk_label_set_text (self->info_label, _("One of the maps could not be computed"));
      return;
    }
  diff = difference_map (a->map, b->map, &m, &error);
  if (diff == NULL)
    {
      cell_set_error (cell, error->message);
      return;
    }
  cell_set_map (cell, diff);
  if (!(m > 0))
    m = 1e-12;
  self->diff_lo = -m;
  self->diff_hi = m;
  hs_view_state_set_shared_range (cell->state, -m, m);
  gtk_widget_queue_draw (self->diff_bar);
  {
    /* The difference's read-out: how far apart the two maps are. */
    double kl = NAN;
    const char *reason = NULL;
    guint w = hs_attention_map_get_width (a->map), h = hs_attention_map_get_height (a->map);
    g_autofree char *text = NULL;

    if (w == hs_attention_map_get_width (b->map) && h == hs_attention_map_get_height (b->map))
      kl = hs_sym_kl (hs_attention_map_peek_values (a->map), hs_attention_map_peek_values (b->map),
                      (gsize) w * h, NAN, NAN, HS_PROTOCOL_DEFAULT, &reason);
    if (isnan (kl))
      text = g_strdup_printf (_("Diverging scale ±%.3g · symmetric KL n/a"), m);
    else
      text = g_strdup_printf (_("Diverging scale ±%.3g · symmetric KL %.3f"), m, kl);
    cell_set_readout (cell, text, -1);
  }

  lo = format_scale_value (self->shared_lo, self->shared_hi - self->shared_lo);
  hi = format_scale_value (self->shared_hi, self->shared_hi - self->shared_lo);
  info = g_strdup_printf (_("One shared scale for A and B: %s – %s · press B to blink"), lo, hi);
  gtk_label_set_text (self->info_label, info);
  update_blink (self);
}

void
hs_compare_view_set_pair (HsCompareView *self,
                          HsAttentionMap *a, const char *label_a,
                          HsAttentionMap *b, const char *label_b)
{
  g_return_if_fail (HS_IS_COMPARE_VIEW (self));
  g_return_if_fail (a != NULL && b != NULL);

  build_pair (self, label_a, label_b);
  cell_set_map (get_cell (self, 0), a);
  cell_set_map (get_cell (self, 1), b);
  finish_pair (self);
}

/* One cell per label, `columns` wide, and the shared colour bar under them. */
static void
build_grid (HsCompareView *self, guint n, const char * const *labels)
{
  guint columns = (guint) ceil (sqrt ((double) n));

  reset_blink (self);
  clear_cells (self);
  if (n <= 3)
    columns = n;
  for (guint i = 0; i < n; i++)
    {
      Cell *cell = add_cell (self, i % columns, i / columns);
      const char *label = labels != NULL ? labels[i] : NULL;

      cell_set_title (cell, label ? label : "", label);
    }
  self->shared_bar = new_bar (self);
  bar_set_caption (self->shared_bar, _("Every model · one shared scale"));
  gtk_grid_attach (self->cells_grid, self->shared_bar, 0, ((n + columns - 1) / columns) * ROWS_PER_BAND,
                   columns, 1);
  self->diff_lo = self->diff_hi = 0;
  set_mode (self, HS_COMPARE_MODE_GRID);
}

/* Shared scale, read-outs and the summary over the maps that are in. */
static void
refresh_grid (HsCompareView *self)
{
  guint n = self->cells->len, n_maps = 0, n_pending = 0, n_failed = 0;
  g_autoptr(GString) info = g_string_new (NULL);
  g_autofree char *lo = NULL;
  g_autofree char *hi = NULL;

  for (guint i = 0; i < n; i++)
    {
      Cell *cell = g_ptr_array_index (self->cells, i);
      n_maps += cell->map != NULL;
      n_pending += cell->pending;
      n_failed += cell->map == NULL && !cell->pending;
    }
  apply_shared_range (self, n);
  update_readouts (self, n);
  lo = format_scale_value (self->shared_lo, self->shared_hi - self->shared_lo);
  hi = format_scale_value (self->shared_hi, self->shared_hi - self->shared_lo);
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
  build_grid (self, maps->len, labels);
  for (guint i = 0; i < maps->len; i++)
    cell_set_map (get_cell (self, i), g_ptr_array_index (maps, i));
  refresh_grid (self);
}

/* ---- live maps ---------------------------------------------------------------- */

typedef struct {
  HsCompareView *view;     /* weak: the view may go first */
  guint          generation;
  guint          index;
  char          *source;   /* what errors are reported under */
} LiveRequest;

static void
live_request_free (LiveRequest *request)
{
  if (request->view != NULL)
    g_object_remove_weak_pointer (G_OBJECT (request->view), (gpointer *) &request->view);
  g_free (request->source);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LiveRequest, live_request_free)

static void
live_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(LiveRequest) request = user_data;
  HsCompareView *self = request->view;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = hs_live_attend_finish (HS_LIVE_ATTEND (object), result, &error);
  Cell *cell;

  /* Superseded by a newer load, or the view is gone: the map is cached. */
  if (self == NULL || request->generation != self->generation)
    return;
  cell = get_cell (self, request->index);
  if (cell == NULL)
    return;
  if (map != NULL)
    cell_set_map (cell, map);
  else
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, HS_MODEL_ERROR, HS_MODEL_ERROR_EMPTY_PROMPT))
        message = g_strdup (_("The prompt has no words the model can read"));
      else if (hs_live_attend_is_exec (request->source))
        message = g_strdup (error->message);   /* names the backend's command */
      else
        message = g_strdup_printf (_("Live model %s: %s"), request->source, error->message);
      cell_set_error (cell, message);
    }
  if (self->n_pending > 0 && --self->n_pending == 0)
    {
      g_clear_object (&self->cancellable);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
    }
  if (self->mode == HS_COMPARE_MODE_PAIR)
    finish_pair (self);
  else
    refresh_grid (self);
}

/* Cell `index` gets the live map of `prompt`: at once from the cache, else
 * a spinner until the request ends.  FALSE when it had to wait. */
static gboolean
request_live (HsCompareView *self, HsDataset *dataset, HsInstance *instance, guint index,
              const char *model, const char *prompt)
{
  g_autofree char *key = hs_live_attend_make_key (dataset, instance, model, prompt);
  g_autoptr(HsAttentionMap) cached = hs_live_attend_lookup (self->live, key);
  Cell *cell = get_cell (self, index);
  LiveRequest *request;

  if (cached != NULL)
    {
      cell_set_map (cell, cached);
      return TRUE;
    }
  cell_set_pending (cell);
  if (self->cancellable == NULL)
    self->cancellable = g_cancellable_new ();
  request = g_new0 (LiveRequest, 1);
  request->view = self;
  g_object_add_weak_pointer (G_OBJECT (self), (gpointer *) &request->view);
  request->generation = self->generation;
  request->index = index;
  request->source = g_strdup (model);
  if (self->n_pending++ == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
  hs_live_attend_async (self->live, dataset, instance, self->image, model, prompt,
                        self->cancellable, live_done, request);
  return FALSE;
}

/* ---- loading from a dataset ----------------------------------------------------- */

static void
set_prompt_label (HsCompareView *self, HsInstance *instance, const char *prompt)
{
  g_autofree char *text = NULL;

  if (instance == NULL)
    {
      gtk_label_set_text (self->prompt_label, "");
      return;
    }
  text = g_strdup_printf (_("%s · “%s”"), instance->id, prompt != NULL ? prompt : "");
  gtk_label_set_text (self->prompt_label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->prompt_label), text);
}

/* The radiograph (`image` when the caller has it decoded) and the
 * sentence's target. */
static gboolean
load_common (HsCompareView *self, HsDataset *dataset, HsInstance *instance, HsSentence *sentence,
             HsImage *image, GError **error)
{
  g_autoptr(HsImage) decoded = NULL;
  g_autoptr(GPtrArray) regions = NULL;
  g_autoptr(GPtrArray) masks = NULL;

  if (image == NULL)
    {
      decoded = hs_dataset_load_image (dataset, instance, error);
      if (decoded == NULL)
        return FALSE;
      image = decoded;
    }
  if (!hs_dataset_collect_targets (dataset, instance, sentence, &regions, &masks, error))
    return FALSE;
  if (self->dataset != dataset)
    {
      g_clear_pointer (&self->dataset, hs_dataset_unref);
      self->dataset = hs_dataset_ref (dataset);
    }
  hs_compare_view_set_image (self, image, regions, masks);
  set_prompt_label (self, instance, sentence->text);
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

  if (!load_common (self, dataset, instance, sentence, NULL, error))
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
                           HsSentence *sentence, HsImage *image, HsLiveAttend *live,
                           const char *model, GError **error)
{
  g_autofree char *swapped = NULL;
  g_autofree char *name = NULL;
  g_autofree char *label_a = NULL;
  g_autofree char *label_b = NULL;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (dataset != NULL && instance != NULL && sentence != NULL, FALSE);
  g_return_val_if_fail (HS_IS_LIVE_ATTEND (live) && model != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  swapped = hs_text_swap_sides (sentence->text);
  if (g_strcmp0 (swapped, sentence->text) == 0)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s, sentence %s: the prompt has no left or right to swap"),
                   instance->id, sentence->id);
      return FALSE;
    }
  if (!load_common (self, dataset, instance, sentence, image, error))
    return FALSE;
  g_set_object (&self->live, live);
  name = hs_live_attend_display_name (model);
  label_a = g_strdup_printf (_("%s · original"), name);
  label_b = g_strdup_printf (_("%s · swapped left/right"), name);
  build_pair (self, label_a, label_b);
  request_live (self, dataset, instance, 0, model, sentence->text);
  request_live (self, dataset, instance, 1, model, swapped);
  finish_pair (self);
  return TRUE;
}

gboolean
hs_compare_view_load_grid_live (HsCompareView *self, HsDataset *dataset, HsInstance *instance,
                                HsSentence *sentence, HsImage *image, HsLiveAttend *live,
                                const char * const *live_models, GError **error)
{
  g_auto(GStrv) models = NULL;
  g_autoptr(GPtrArray) refs = g_ptr_array_new ();
  g_autoptr(GStrvBuilder) labels = g_strv_builder_new ();
  g_auto(GStrv) label_v = NULL;
  guint n_live = 0;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (dataset != NULL && instance != NULL && sentence != NULL, FALSE);
  g_return_val_if_fail (live_models == NULL || live_models[0] == NULL || HS_IS_LIVE_ATTEND (live), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  models = hs_dataset_list_models (dataset);
  for (guint i = 0; models != NULL && models[i] != NULL; i++)
    {
      HsMapRef *ref = hs_instance_find_map (instance, models[i], sentence->id);

      if (ref == NULL)
        continue;
      g_ptr_array_add (refs, ref);
      g_strv_builder_add (labels, models[i]);
    }
  for (guint i = 0; live_models != NULL && live_models[i] != NULL; i++, n_live++)
    {
      g_autofree char *name = hs_live_attend_display_name (live_models[i]);
      g_strv_builder_add (labels, name);
    }
  if (refs->len + n_live == 0)
    {
      g_set_error (error, HS_COMPARE_VIEW_ERROR, HS_COMPARE_VIEW_ERROR_NOTHING,
                   _("Instance %s: no model has a map for sentence %s"), instance->id, sentence->id);
      return FALSE;
    }
  if (!load_common (self, dataset, instance, sentence, image, error))
    return FALSE;
  if (n_live > 0)
    g_set_object (&self->live, live);
  label_v = g_strv_builder_end (labels);
  build_grid (self, refs->len + n_live, (const char * const *) label_v);

  /* A precomputed map that does not load is that cell's error, not the grid's. */
  for (guint i = 0; i < refs->len; i++)
    {
      g_autoptr(GError) map_error = NULL;
      g_autoptr(HsAttentionMap) map = hs_dataset_load_map (dataset, g_ptr_array_index (refs, i), &map_error);

      if (map != NULL)
        cell_set_map (get_cell (self, i), map);
      else
        cell_set_error (get_cell (self, i), map_error->message);
    }
  for (guint i = 0; i < n_live; i++)
    request_live (self, dataset, instance, refs->len + i, live_models[i], sentence->text);
  refresh_grid (self);
  return TRUE;
}

gboolean
hs_compare_view_load_grid (HsCompareView *self, HsDataset *dataset, HsInstance *instance,
                           HsSentence *sentence, GError **error)
{
  return hs_compare_view_load_grid_live (self, dataset, instance, sentence, NULL, NULL, NULL, error);
}

gboolean
hs_compare_view_get_busy (HsCompareView *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), FALSE);
  return self->n_pending > 0;
}

const char *
hs_compare_view_get_error (HsCompareView *self, guint index)
{
  Cell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = get_cell (self, index);
  return cell ? cell->error_text : NULL;
}

HsAttentionMap *
hs_compare_view_get_map (HsCompareView *self, guint index)
{
  Cell *cell;

  g_return_val_if_fail (HS_IS_COMPARE_VIEW (self), NULL);
  cell = get_cell (self, index);
  return cell ? cell->map : NULL;
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
    case PROP_BUSY:  g_value_set_boolean (value, self->n_pending > 0); break;
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

  cancel_live (self);
  if (self->cells != NULL)
    g_ptr_array_set_size (self->cells, 0);
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
  gtk_widget_class_install_action (widget_class, "compare.zoom-fit", NULL, zoom_fit_action);
  gtk_widget_class_install_action (widget_class, "compare.zoom-in", NULL, zoom_step_action);
  gtk_widget_class_install_action (widget_class, "compare.zoom-out", NULL, zoom_step_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_b, 0, "compare.blink", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_B, GDK_SHIFT_MASK, "compare.blink", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "compare.zoom-fit", NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "hs-compare-view");
}

/* The side badges and the cell frames (once per display). */
static void
ensure_css (GtkWidget *widget)
{
  static const char css[] =
    "hs-compare-view .hs-side-badge { border-radius: 4px; padding: 1px 6px; font-weight: bold;"
    "  font-size: smaller; }\n"
    "hs-compare-view .hs-wrong-side { background-color: #c01c28; color: white; }\n"
    "hs-compare-view .hs-same-side { background-color: alpha(#26a269, 0.18); color: #1b7a4c; }\n"
    "hs-compare-view .hs-compare-cell { background-color: #1e1e1e; border-radius: 4px; }\n"
    "hs-compare-view .hs-compare-cell .dim-label, hs-compare-view .hs-compare-cell .error {"
    "  color: #e8e8e8; }\n"
    "hs-compare-view .hs-prompt { font-weight: bold; }\n";
  GdkDisplay *display = gtk_widget_get_display (widget);
  g_autoptr(GtkCssProvider) provider = NULL;

  if (g_object_get_data (G_OBJECT (display), "hs-compare-css") != NULL)
    return;
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (provider, css, -1);
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_set_data (G_OBJECT (display), "hs-compare-css", GINT_TO_POINTER (1));
}

static void
hs_compare_view_init (HsCompareView *self)
{
  self->cells = g_ptr_array_new_with_free_func ((GDestroyNotify) cell_free);
  self->shared_lo = 0;
  self->shared_hi = 1;
  gtk_widget_init_template (GTK_WIDGET (self));
  ensure_css (GTK_WIDGET (self));
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  set_mode (self, HS_COMPARE_MODE_NONE);
}
