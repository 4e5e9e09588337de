/* hs-canvas.c — the radiograph with its attention overlay
 *
 * Layers, each kept as a texture node of the visible part at device
 * resolution and rebuilt only when its inputs change:
 *   image    window/level applied to the visible pixels only, sampled from a
 *            2× pyramid of the raw samples (built off the main thread for
 *            large images): a pan, zoom or window/level change costs the
 *            viewport, never the whole image
 *   overlay  the visible part of the quantised map field at device
 *            resolution (uint16); strength, gamma, scale and colour-map
 *            changes are a 64 K-entry table rebuild plus one look-up pass;
 *            drawn under an opacity node, so the opacity slider re-uses the
 *            texture as it is
 *   decor    boxes, mask contours, top-k/Otsu outline, caption
 *   hud      colour bar and No-Attn gauge (its own small node: the colour bar
 *            changes with the strength, the boxes do not)
 *   hover    drawn uncached on top
 *
 * The layers are built in hs-canvas-image.c, hs-canvas-overlay.c and
 * hs-canvas-decor.c (hs-canvas-private.h lists every file); this file holds
 * the object, its caches and how they are invalidated, snapshot and
 * allocation, and the public setters and getters.
 */
#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "hs-canvas-private.h"
#include "hs-gl-texture.h"
#include "hs-render-node.h"
#include "hs-utils-private.h"

G_DEFINE_QUARK (hs-canvas-error-quark, hs_canvas_error)

G_DEFINE_FINAL_TYPE (HsCanvas, hs_canvas, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];
static guint transform_changed_signal;
static guint map_range_changed_signal;

/* ---- helpers ------------------------------------------------------------ */

void
_hs_canvas_notify (HsCanvas *self, HsCanvasProp prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

const double *
_hs_canvas_current_grid (HsCanvas *self)
{
  const double *grid = NULL;

  if (self->map == NULL)
    return NULL;
  if (self->token >= 0 && (guint) self->token < hs_attention_map_get_n_tokens (self->map))
    grid = hs_attention_map_peek_token (self->map, self->token);
  return grid ? grid : hs_attention_map_peek_values (self->map);
}

void
_hs_canvas_layer_clear (Layer *layer)
{
  g_clear_pointer (&layer->surface, cairo_surface_destroy);
  layer->built = FALSE;
}

/* Everything that depends on the transform or the view size. */
void
_hs_canvas_clear_nodes (HsCanvas *self)
{
  _hs_canvas_layer_clear (&self->img);
  g_clear_pointer (&self->composite_node, gsk_render_node_unref);
  g_clear_pointer (&self->decor_node, gsk_render_node_unref);
  g_clear_pointer (&self->hud_node, gsk_render_node_unref);
}

/* Window/level changed: the raw pyramid stays, only the visible pixels are
 * levelled again. */
static void
invalidate_levels (HsCanvas *self)
{
  g_clear_pointer (&self->wl_lut, g_free);
  _hs_canvas_layer_clear (&self->img);
}

static void refit_beside_bar (HsCanvas *self);

static gboolean
emit_map_range_changed (gpointer data)
{
  HsCanvas *self = data;

  self->range_idle = 0;
  refit_beside_bar (self);
  g_signal_emit (self, map_range_changed_signal, 0);
  return G_SOURCE_REMOVE;
}

static void
invalidate_colors (HsCanvas *self)
{
  /* Listeners hear of it once, from the main loop (this may run while a
   * frame is drawn) — before the frame that shows the change (GDK paints
   * at GDK_PRIORITY_REDRAW), so what they update (the threshold slider's
   * range) lands in that frame instead of a frame of its own. */
  if (self->range_idle == 0)
    self->range_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE, emit_map_range_changed, self, NULL);
  self->range_valid = FALSE;
  self->lut_valid = FALSE;
  g_clear_pointer (&self->hud_node, gsk_render_node_unref);   /* colour bar */
}

static void
invalidate_field (HsCanvas *self)
{
  g_clear_pointer (&self->field, hs_overlay_field_unref);
  g_clear_pointer (&self->vq, g_free);
  g_clear_pointer (&self->map_error, g_free);
  self->outline_valid = FALSE;
  g_clear_pointer (&self->decor_node, gsk_render_node_unref);
  invalidate_colors (self);
}

static void
invalidate_outline (HsCanvas *self)
{
  self->outline_valid = FALSE;
  g_clear_pointer (&self->decor_node, gsk_render_node_unref);
}

void
_hs_canvas_get_overlay_options (HsCanvas *self, HsOverlayOptions *options)
{
  if (self->state)
    hs_view_state_get_overlay_options (self->state, options);
  else
    hs_overlay_options_init (options);
}

/* Window/level in source units (samples). */
void
_hs_canvas_get_window_level (HsCanvas *self, double *center, double *width)
{
  double c = 0.5, w = 1.0, max = self->image ? hs_image_get_max_value (self->image) : 255;

  /* Automatic: the image's own initial window — a DICOM file's Window
   * Center/Width (or VOI LUT), the full range of a PNG/JPEG. */
  if (self->image != NULL && (self->state == NULL || hs_view_state_get_window_level_auto (self->state)))
    {
      double vc, vw;

      hs_image_get_default_window (self->image, &vc, &vw);
      hs_image_window_to_samples (self->image, vc, vw, center, width);
      return;
    }
  if (self->state)
    hs_view_state_get_window_level (self->state, &c, &w);
  *center = c * max;
  *width = w * max;
}

/* ---- GtkWidget ------------------------------------------------------------ */

typedef void (*CanvasDrawFunc) (HsCanvas *, cairo_t *, const HsCanvasTransform *, int, int);

typedef struct {
  HsCanvas       *self;
  int             vw, vh;
  CanvasDrawFunc  draw;
} RecordData;

static void
record_draw (cairo_t *cr, gpointer user_data)
{
  RecordData *data = user_data;

  data->draw (data->self, cr, &data->self->t, data->vw, data->vh);
}

/* The logical rectangle (x, y, w, h) of the view drawn by `draw`, as
 * tile-sparse texture nodes at device resolution. */
static GskRenderNode *
record_node (HsCanvas *self, int x, int y, int w, int h, int vw, int vh, CanvasDrawFunc draw)
{
  RecordData data = { self, vw, vh, draw };

  return hs_render_record_node (x, y, w, h, gtk_widget_get_scale_factor (GTK_WIDGET (self)),
                                hs_render_draws_with_cairo (GTK_WIDGET (self)), record_draw, &data);
}

static void
ensure_layer (HsCanvas *self, Layer *layer, const ViewKey *k,
              cairo_surface_t *(*build) (HsCanvas *, const ViewKey *, int *, int *))
{
  if (layer->built && _hs_canvas_view_key_equal (&layer->key, k))
    return;
  _hs_canvas_layer_clear (layer);
  layer->key = *k;
  layer->surface = build (self, k, &layer->x, &layer->y);
  layer->built = TRUE;
  layer->gen = ++self->layer_gen;
}

/* The dark background where the (opaque) image does not cover the view:
 * no full-view quad under it. */
static void
append_background (HsCanvas *self, GtkSnapshot *snapshot, int vw, int vh)
{
  const GdkRGBA bg = { 0.14, 0.14, 0.15, 1 };
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;

  if (self->img.surface)
    {
      int scale = self->img.key.scale;
      x0 = (double) self->img.x / scale;
      y0 = (double) self->img.y / scale;
      x1 = (double) (self->img.x + cairo_image_surface_get_width (self->img.surface)) / scale;
      y1 = (double) (self->img.y + cairo_image_surface_get_height (self->img.surface)) / scale;
    }
  if (x1 <= x0 || y1 <= y0)
    {
      gtk_snapshot_append_color (snapshot, &bg, &GRAPHENE_RECT_INIT (0, 0, vw, vh));
      return;
    }
  if (y0 > 0)
    gtk_snapshot_append_color (snapshot, &bg, &GRAPHENE_RECT_INIT (0, 0, vw, y0));
  if (y1 < vh)
    gtk_snapshot_append_color (snapshot, &bg, &GRAPHENE_RECT_INIT (0, y1, vw, vh - y1));
  if (x0 > 0)
    gtk_snapshot_append_color (snapshot, &bg, &GRAPHENE_RECT_INIT (0, y0, x0, y1 - y0));
  if (x1 < vw)
    gtk_snapshot_append_color (snapshot, &bg, &GRAPHENE_RECT_INIT (x1, y0, vw - x1, y1 - y0));
}

static void
hs_canvas_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  HsCanvas *self = HS_CANVAS (widget);
  int vw = gtk_widget_get_width (widget), vh = gtk_widget_get_height (widget);
  int scale = gtk_widget_get_scale_factor (widget);
  ViewKey k;

  if (self->image == NULL || vw <= 0 || vh <= 0)
    {
      PangoLayout *layout = gtk_widget_create_pango_layout (widget, _("No image"));
      int lw, lh;

      gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0.14, 0.14, 0.15, 1 },
                                 &GRAPHENE_RECT_INIT (0, 0, vw, vh));
      pango_layout_get_pixel_size (layout, &lw, &lh);
      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((vw - lw) / 2.0, (vh - lh) / 2.0));
      gtk_snapshot_append_layout (snapshot, layout, &(GdkRGBA) { 0.7, 0.7, 0.7, 1 });
      gtk_snapshot_restore (snapshot);
      g_object_unref (layout);
      return;
    }

  k = _hs_canvas_view_key (&self->t, vw, vh, scale);
  ensure_layer (self, &self->img, &k, _hs_canvas_build_image_layer);
  append_background (self, snapshot, vw, vh);
  if (_hs_canvas_ensure_composite (self, &k))
    gtk_snapshot_append_node (snapshot, self->composite_node);

  if (self->hud_node == NULL || self->decor_node == NULL)
    {
      double hud[4] = { 0 };
      gboolean has_hud = _hs_canvas_hud_area (self, vw, vh, &hud[0], &hud[1], &hud[2], &hud[3]);

      /* The names in the decor node keep clear of the colour bar's panel:
       * drawn again when the panel moves, grows or comes and goes — not when
       * only its contents change (each step of the strength slider). */
      if (self->decor_node && (has_hud != self->decor_has_hud
                               || (has_hud && memcmp (hud, self->decor_hud, sizeof hud) != 0)))
        g_clear_pointer (&self->decor_node, gsk_render_node_unref);
      if (self->decor_node == NULL)
        {
          self->decor_node = record_node (self, 0, 0, vw, vh, vw, vh, _hs_canvas_draw_decor);
          self->decor_overlay = _hs_canvas_show_overlay (self);
          self->decor_has_hud = has_hud;
          memcpy (self->decor_hud, hud, sizeof hud);
          self->decor_builds++;
        }
      if (self->hud_node == NULL && has_hud)
        self->hud_node = record_node (self, hud[0], hud[1], hud[2], hud[3], vw, vh, _hs_canvas_draw_hud_layer);
    }
  if (self->decor_node)
    gtk_snapshot_append_node (snapshot, self->decor_node);
  if (self->hud_node)
    gtk_snapshot_append_node (snapshot, self->hud_node);

  _hs_canvas_snapshot_box (self, snapshot);

  /* Hover: uncached, in a node just covering the cell and the label. */
  if (self->hover.valid && self->hover_text)
    {
      cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
      cairo_t *measure = cairo_create (scratch);
      HoverGeometry g;

      if (_hs_canvas_hover_geometry (self, measure, &self->t, vw, vh, &g))
        {
          double x1 = g.lx, y1 = g.ly, x2 = g.lx + g.lw + 6, y2 = g.ly + g.lh + 2;
          cairo_t *cr;

          if (g.cell)
            {
              x1 = MIN (x1, g.cx1 - 1);
              y1 = MIN (y1, g.cy1 - 1);
              x2 = MAX (x2, g.cx2 + 2);
              y2 = MAX (y2, g.cy2 + 2);
            }
          x1 = floor (MAX (x1, 0));
          y1 = floor (MAX (y1, 0));
          x2 = ceil (MIN (x2, vw));
          y2 = ceil (MIN (y2, vh));
          if (x2 > x1 && y2 > y1)
            {
              cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x1, y1, x2 - x1, y2 - y1));
              _hs_canvas_draw_hover (self, cr, &self->t, vw, vh);
              cairo_destroy (cr);
            }
        }
      cairo_destroy (measure);
      cairo_surface_destroy (scratch);
    }
}

/* Keeps the image in view: centred on an axis where it is smaller than the
 * view, otherwise no empty band on either side (as Eye of GNOME). */
static void
clamp_transform (HsCanvas *self)
{
  double ew = _hs_canvas_image_w (self) * self->t.zoom, eh = _hs_canvas_image_h (self) * self->t.zoom;

  if (self->view_w <= 0 || self->view_h <= 0 || self->image == NULL)
    return;
  if (ew <= self->view_w)
    self->t.offset_x = (self->view_w - ew) / 2;
  else
    self->t.offset_x = CLAMP (self->t.offset_x, self->view_w - ew, 0);
  if (eh <= self->view_h)
    self->t.offset_y = (self->view_h - eh) / 2;
  else
    self->t.offset_y = CLAMP (self->t.offset_y, self->view_h - eh, 0);
}

void
_hs_canvas_transform_changed (HsCanvas *self)
{
  double old_zoom = hs_canvas_get_zoom (self);

  clamp_transform (self);
  _hs_canvas_clear_nodes (self);
  _hs_canvas_update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (old_zoom != self->t.zoom)
    _hs_canvas_notify (self, PROP_ZOOM);
  g_signal_emit (self, transform_changed_signal, 0);
}

void
_hs_canvas_set_fit (HsCanvas *self, gboolean fit)
{
  if (self->fit == fit)
    return;
  self->fit = fit;
  _hs_canvas_notify (self, PROP_FIT);
}

/* The fitted transform.  The colour bar panel sits at the top-right: the
 * image is fitted to the room left of it, so the bar covers none of the map. */
static void
fitted_transform (HsCanvas *self, HsCanvasTransform *t)
{
  double fit_w = self->view_w, hx, hy, hw, hh;

  *t = self->t;
  if (_hs_canvas_hud_area (self, self->view_w, self->view_h, &hx, &hy, &hw, &hh))
    fit_w = MAX (hx - 4, self->view_w / 2.0);
  hs_canvas_transform_fit (t, _hs_canvas_image_w (self), _hs_canvas_image_h (self), fit_w, self->view_h);
}

static void
apply_fit (HsCanvas *self)
{
  double old = self->t.zoom;
  HsCanvasTransform before = self->t;

  fitted_transform (self, &self->t);
  _hs_canvas_clear_nodes (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (old != self->t.zoom)
    _hs_canvas_notify (self, PROP_ZOOM);
  if (memcmp (&before, &self->t, sizeof before) != 0)
    g_signal_emit (self, transform_changed_signal, 0);
}

/* The colour bar panel changed its width (its range's labels, the scale,
 * the quantity, the gauge): a fitted image moves so that it stays beside it. */
static void
refit_beside_bar (HsCanvas *self)
{
  HsCanvasTransform t;

  if (!self->fit || self->image == NULL)
    return;
  fitted_transform (self, &t);
  if (memcmp (&t, &self->t, sizeof t) != 0)
    apply_fit (self);
}

/* The colour bar panel looks or sits otherwise: drawn again, and a fitted
 * image kept beside it. */
static void
hud_changed (HsCanvas *self)
{
  g_clear_pointer (&self->hud_node, gsk_render_node_unref);
  refit_beside_bar (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
hs_canvas_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  HsCanvas *self = HS_CANVAS (widget);
  double cx = self->view_w / 2.0, cy = self->view_h / 2.0, ix = 0, iy = 0;
  gboolean had_size = self->view_w > 0 && self->view_h > 0;

  if (had_size)
    hs_canvas_transform_widget_to_image (&self->t, cx, cy, &ix, &iy);
  self->view_w = width;
  self->view_h = height;
  if (self->fit || !had_size)
    apply_fit (self);
  else
    {
      /* Keep the image point at the centre where it was. */
      self->t.offset_x = width / 2.0 - ix * self->t.zoom;
      self->t.offset_y = height / 2.0 - iy * self->t.zoom;
      _hs_canvas_transform_changed (self);
    }
  _hs_canvas_clear_nodes (self);
}

static void
hs_canvas_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                   int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  *minimum = 64;
  *natural = 480;
}

/* ---- view state ------------------------------------------------------------- */

static void
on_state_changed (HsViewState *state, const char *what, HsCanvas *self)
{
  if (g_str_equal (what, "composite"))
    ;   /* the opacity node alone: nothing cached changes */
  else if (g_str_equal (what, "image"))
    invalidate_levels (self);
  else if (g_str_equal (what, "decor"))
    {
      invalidate_outline (self);
      g_clear_pointer (&self->hud_node, gsk_render_node_unref);   /* the gauge */
      refit_beside_bar (self);
    }
  else
    {
      /* Upsampling changes the field itself (ensure_field notices) and the
       * outline; strength, scale and colours only the colours. */
      invalidate_colors (self);
      if (self->outline_valid && self->state &&
          hs_view_state_get_upsample (self->state) != self->outline_upsample)
        invalidate_outline (self);
      if (self->decor_node && self->decor_overlay != _hs_canvas_show_overlay (self))
        g_clear_pointer (&self->decor_node, gsk_render_node_unref);   /* the outline */
    }
  _hs_canvas_update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ---- GObject ------------------------------------------------------------------ */

static void
hs_canvas_dispose (GObject *object)
{
  HsCanvas *self = HS_CANVAS (object);

  if (self->state)
    g_clear_signal_handler (&self->state_changed_id, self->state);
  g_clear_object (&self->state);
  g_clear_handle_id (&self->range_idle, g_source_remove);
  _hs_canvas_clear_nodes (self);
  _hs_canvas_free_pyramid (self);
  invalidate_levels (self);
  invalidate_field (self);
  g_clear_pointer (&self->lut, g_free);
  g_clear_pointer (&self->outline, g_ptr_array_unref);
  g_clear_pointer (&self->image, hs_image_unref);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  g_clear_pointer (&self->mask_contours, g_ptr_array_unref);
  g_clear_pointer (&self->region_rgba, g_free);
  g_clear_pointer (&self->region_target, g_free);
  g_clear_pointer (&self->gl_texture, hs_gl_texture_free);
  G_OBJECT_CLASS (hs_canvas_parent_class)->dispose (object);
}

/* The composite's GL texture belongs to this window's GL context. */
static void
hs_canvas_unrealize (GtkWidget *widget)
{
  HsCanvas *self = HS_CANVAS (widget);

  g_clear_pointer (&self->composite_node, gsk_render_node_unref);
  if (self->gl_texture)
    hs_gl_texture_reset (self->gl_texture);
  GTK_WIDGET_CLASS (hs_canvas_parent_class)->unrealize (widget);
}

static void
hs_canvas_finalize (GObject *object)
{
  HsCanvas *self = HS_CANVAS (object);

  /* (dispose may have invalidated the colours again) */
  g_clear_handle_id (&self->range_idle, g_source_remove);
  g_free (self->caption);
  g_free (self->caption_model);
  g_free (self->caption_instance);
  g_free (self->quantity);
  g_free (self->hover_text);
  g_free (self->map_error);
  G_OBJECT_CLASS (hs_canvas_parent_class)->finalize (object);
}

static void
hs_canvas_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  HsCanvas *self = HS_CANVAS (object);

  switch (prop_id)
    {
    case PROP_VIEW_STATE: g_value_set_object (value, self->state); break;
    case PROP_ZOOM:       g_value_set_double (value, self->t.zoom); break;
    case PROP_FIT:        g_value_set_boolean (value, self->fit); break;
    case PROP_HOVER_TEXT: g_value_set_string (value, self->hover_text); break;
    case PROP_CAPTION:    g_value_set_string (value, self->caption); break;
    case PROP_BUSY:       g_value_set_boolean (value, self->pyr_cancel != NULL); break;
    case PROP_SHOW_COLOR_BAR: g_value_set_boolean (value, self->show_color_bar); break;
    case PROP_HUD_TOP:    g_value_set_int (value, self->hud_top); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_canvas_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  HsCanvas *self = HS_CANVAS (object);

  switch (prop_id)
    {
    case PROP_VIEW_STATE: hs_canvas_set_view_state (self, g_value_get_object (value)); break;
    case PROP_ZOOM:       hs_canvas_zoom_to (self, g_value_get_double (value), -1, -1); break;
    case PROP_FIT:
      if (g_value_get_boolean (value))
        hs_canvas_zoom_fit (self);
      else
        _hs_canvas_set_fit (self, FALSE);
      break;
    case PROP_CAPTION:    hs_canvas_set_caption (self, g_value_get_string (value)); break;
    case PROP_SHOW_COLOR_BAR: hs_canvas_set_show_color_bar (self, g_value_get_boolean (value)); break;
    case PROP_HUD_TOP:    hs_canvas_set_hud_top (self, g_value_get_int (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_canvas_class_init (HsCanvasClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_canvas_dispose;
  object_class->finalize = hs_canvas_finalize;
  object_class->get_property = hs_canvas_get_property;
  object_class->set_property = hs_canvas_set_property;
  widget_class->snapshot = hs_canvas_snapshot;
  widget_class->unrealize = hs_canvas_unrealize;
  widget_class->size_allocate = hs_canvas_size_allocate;
  widget_class->measure = hs_canvas_measure;

  properties[PROP_VIEW_STATE] =
    g_param_spec_object ("view-state", NULL, NULL, HS_TYPE_VIEW_STATE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, HS_CANVAS_ZOOM_MIN, HS_CANVAS_ZOOM_MAX, 1,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FIT] =
    g_param_spec_boolean ("fit", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HOVER_TEXT] =
    g_param_spec_string ("hover-text", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_CAPTION] =
    g_param_spec_string ("caption", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* TRUE while a worker prepares a large image (the view already shows it,
   * sampled from full resolution until the reduced levels are ready). */
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* The compare view prints one shared colour bar for all its cells. */
  properties[PROP_SHOW_COLOR_BAR] =
    g_param_spec_boolean ("show-color-bar", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Pixels at the top kept clear of the colour bar panel (hs_canvas_set_hud_top):
   * bound to an error bar's "shown-height" where one lies over the canvas. */
  properties[PROP_HUD_TOP] =
    g_param_spec_int ("hud-top", NULL, NULL, 0, G_MAXINT, 0,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Emitted after every zoom, pan or fit (linked views in the compare view). */
  transform_changed_signal =
    g_signal_new ("transform-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /* The colour bar's range may have changed (map, token, scale mode):
   * hs_canvas_get_map_range.  Emitted from the main loop. */
  map_range_changed_signal =
    g_signal_new ("map-range-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  _hs_canvas_class_actions_init (widget_class);

  gtk_widget_class_set_css_name (widget_class, "hs-canvas");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
hs_canvas_init (HsCanvas *self)
{
  self->t.zoom = 1;
  self->fit = TRUE;
  self->show_color_bar = TRUE;
  self->token = -1;
  self->hover.row = self->hover.col = -1;
  self->hover.value = NAN;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_focus_on_click (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "crosshair");

  _hs_canvas_input_init (self);
}

/* ---- public API -------------------------------------------------------------- */

GtkWidget *
hs_canvas_new (void)
{
  return g_object_new (HS_TYPE_CANVAS, NULL);
}

void
hs_canvas_set_view_state (HsCanvas *self, HsViewState *state)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  g_return_if_fail (state == NULL || HS_IS_VIEW_STATE (state));

  if (self->state == state)
    return;
  if (self->state)
    g_clear_signal_handler (&self->state_changed_id, self->state);
  g_set_object (&self->state, state);
  if (state)
    self->state_changed_id = g_signal_connect (state, "changed", G_CALLBACK (on_state_changed), self);
  invalidate_levels (self);
  invalidate_field (self);
  _hs_canvas_clear_nodes (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  _hs_canvas_notify (self, PROP_VIEW_STATE);
}

HsViewState *
hs_canvas_get_view_state (HsCanvas *self)
{
  g_return_val_if_fail (HS_IS_CANVAS (self), NULL);
  return self->state;
}

void
hs_canvas_set_image (HsCanvas *self, HsImage *image)
{
  gboolean same_size;

  g_return_if_fail (HS_IS_CANVAS (self));

  if (self->image == image)
    return;
  same_size = self->image && image &&
              hs_image_get_width (self->image) == hs_image_get_width (image) &&
              hs_image_get_height (self->image) == hs_image_get_height (image);
  _hs_canvas_free_pyramid (self);
  g_clear_pointer (&self->image, hs_image_unref);
  if (image)
    self->image = hs_image_ref (image);
  _hs_canvas_ensure_pyramid (self);   /* a large image's worker starts now */
  invalidate_levels (self);
  invalidate_field (self);
  _hs_canvas_clear_nodes (self);
  /* A new image of another size starts fitted; same-size images (a series)
   * keep the zoom so the user can flip through them. */
  if (!same_size)
    {
      _hs_canvas_set_fit (self, TRUE);
      apply_fit (self);
    }
  _hs_canvas_update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

HsImage *
hs_canvas_get_image (HsCanvas *self)
{
  g_return_val_if_fail (HS_IS_CANVAS (self), NULL);
  return self->image;
}

void
hs_canvas_set_map (HsCanvas *self, HsAttentionMap *map)
{
  g_return_if_fail (HS_IS_CANVAS (self));

  if (self->map != map)
    {
      g_clear_pointer (&self->map, hs_attention_map_unref);
      if (map)
        self->map = hs_attention_map_ref (map);
    }
  self->token = -1;
  invalidate_field (self);
  _hs_canvas_clear_nodes (self);
  /* A map brings the colour bar: a fitted image moves left of it. */
  if (self->fit)
    apply_fit (self);
  _hs_canvas_update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

HsAttentionMap *
hs_canvas_get_map (HsCanvas *self)
{
  g_return_val_if_fail (HS_IS_CANVAS (self), NULL);
  return self->map;
}

void
hs_canvas_set_token (HsCanvas *self, int token)
{
  g_return_if_fail (HS_IS_CANVAS (self));

  if (token < 0 || self->map == NULL || (guint) token >= hs_attention_map_get_n_tokens (self->map))
    token = -1;
  if (self->token == token)
    return;
  self->token = token;
  invalidate_field (self);
  _hs_canvas_clear_nodes (self);
  _hs_canvas_update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hs_canvas_set_show_color_bar (HsCanvas *self, gboolean show)
{
  g_return_if_fail (HS_IS_CANVAS (self));

  show = !!show;
  if (self->show_color_bar == show)
    return;
  self->show_color_bar = show;
  hud_changed (self);
  _hs_canvas_notify (self, PROP_SHOW_COLOR_BAR);
}

void
hs_canvas_set_hud_top (HsCanvas *self, int top)
{
  g_return_if_fail (HS_IS_CANVAS (self));

  top = MAX (top, 0);
  if (self->hud_top == top)
    return;
  self->hud_top = top;
  hud_changed (self);
  _hs_canvas_notify (self, PROP_HUD_TOP);
}

void
hs_canvas_set_quantity (HsCanvas *self, const char *quantity)
{
  g_return_if_fail (HS_IS_CANVAS (self));

  if (g_strcmp0 (self->quantity, quantity) == 0)
    return;
  g_free (self->quantity);
  self->quantity = g_strdup (quantity);
  hud_changed (self);
}

gboolean
hs_canvas_get_show_color_bar (HsCanvas *self)
{
  g_return_val_if_fail (HS_IS_CANVAS (self), TRUE);

  return self->show_color_bar;
}

void
hs_canvas_set_caption (HsCanvas *self, const char *caption)
{
  HsCaption fields = { caption, NULL, NULL };

  hs_canvas_set_caption_fields (self, &fields);
}

void
hs_canvas_set_caption_fields (HsCanvas *self, const HsCaption *caption)
{
  gboolean prompt, other;

  g_return_if_fail (HS_IS_CANVAS (self));
  g_return_if_fail (caption != NULL);

  prompt = _hs_set_str (&self->caption, caption->prompt);
  other = _hs_set_str (&self->caption_model, caption->model);
  other |= _hs_set_str (&self->caption_instance, caption->instance);
  other |= self->caption_phantom != caption->phantom_model_on_real_image;
  self->caption_phantom = caption->phantom_model_on_real_image;
  if (prompt || other)
    {
      g_clear_pointer (&self->decor_node, gsk_render_node_unref);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  if (prompt)
    _hs_canvas_notify (self, PROP_CAPTION);
}

gboolean
hs_canvas_get_map_range (HsCanvas *self, double *lo, double *hi)
{
  g_return_val_if_fail (HS_IS_CANVAS (self), FALSE);

  if (self->map == NULL || !_hs_canvas_ensure_range (self))
    return FALSE;
  *lo = self->range.lo;
  *hi = self->range.hi;
  return TRUE;
}

gboolean
hs_canvas_get_caption_phantom (HsCanvas *self)
{
  g_return_val_if_fail (HS_IS_CANVAS (self), FALSE);
  return self->caption_phantom;
}

double
hs_canvas_get_zoom (HsCanvas *self)
{
  g_return_val_if_fail (HS_IS_CANVAS (self), 1);
  return self->t.zoom;
}

void
hs_canvas_zoom_to (HsCanvas *self, double zoom, double wx, double wy)
{
  g_return_if_fail (HS_IS_CANVAS (self));

  if (wx < 0 || wy < 0)
    {
      wx = self->view_w / 2.0;
      wy = self->view_h / 2.0;
    }
  _hs_canvas_set_fit (self, FALSE);
  hs_canvas_transform_zoom_around (&self->t, zoom, wx, wy);
  _hs_canvas_transform_changed (self);
}

void
hs_canvas_zoom_fit (HsCanvas *self)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  _hs_canvas_set_fit (self, TRUE);
  apply_fit (self);
  _hs_canvas_update_hover (self);
}

void
hs_canvas_zoom_one (HsCanvas *self)
{
  double ix, iy;

  g_return_if_fail (HS_IS_CANVAS (self));
  _hs_canvas_set_fit (self, FALSE);
  /* 1:1 around the pointer when it is over the image, else centred. */
  if (self->pointer_inside &&
      hs_canvas_widget_to_image (self, self->pointer_x, self->pointer_y, &ix, &iy))
    {
      hs_canvas_transform_zoom_around (&self->t, 1.0, self->pointer_x, self->pointer_y);
      self->t.offset_x = round (self->t.offset_x);
      self->t.offset_y = round (self->t.offset_y);
    }
  else
    hs_canvas_transform_one_to_one (&self->t, _hs_canvas_image_w (self), _hs_canvas_image_h (self), self->view_w, self->view_h);
  _hs_canvas_transform_changed (self);
}

void
hs_canvas_set_transform (HsCanvas *self, const HsCanvasTransform *t)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  g_return_if_fail (t != NULL);

  if (!(t->zoom >= HS_CANVAS_ZOOM_MIN && t->zoom <= HS_CANVAS_ZOOM_MAX) ||
      !isfinite (t->offset_x) || !isfinite (t->offset_y))
    return;
  if (self->t.zoom == t->zoom && self->t.offset_x == t->offset_x && self->t.offset_y == t->offset_y)
    return;
  _hs_canvas_set_fit (self, FALSE);
  self->t = *t;
  _hs_canvas_transform_changed (self);
}

void
hs_canvas_get_transform (HsCanvas *self, HsCanvasTransform *out)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  g_return_if_fail (out != NULL);
  *out = self->t;
}

gboolean
hs_canvas_widget_to_image (HsCanvas *self, double wx, double wy, double *ix, double *iy)
{
  double x, y;

  g_return_val_if_fail (HS_IS_CANVAS (self), FALSE);
  hs_canvas_transform_widget_to_image (&self->t, wx, wy, &x, &y);
  if (ix)
    *ix = x;
  if (iy)
    *iy = y;
  return self->image && x >= 0 && y >= 0 && x < _hs_canvas_image_w (self) && y < _hs_canvas_image_h (self);
}

void
hs_canvas_image_to_widget (HsCanvas *self, double ix, double iy, double *wx, double *wy)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  hs_canvas_transform_image_to_widget (&self->t, ix, iy, wx, wy);
}

const char *
hs_canvas_get_hover_text (HsCanvas *self)
{
  g_return_val_if_fail (HS_IS_CANVAS (self), NULL);
  return self->hover_text;
}

gboolean
hs_canvas_get_busy (HsCanvas *self)
{
  g_return_val_if_fail (HS_IS_CANVAS (self), FALSE);
  return self->pyr_cancel != NULL;
}

