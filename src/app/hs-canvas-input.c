/* hs-canvas-input.c — pointer, wheel, pinch and drag on the canvas, the
 * hover read-out they update, and the canvas.zoom-* actions with their keys
 */
#include <math.h>

#include <glib/gi18n.h>

#include "hs-canvas-private.h"
#include "hs-utils-private.h"

void
_hs_canvas_update_hover (HsCanvas *self)
{
  HsCanvasHover hover;

  if (self->pointer_inside)
    hs_canvas_hover_at (self, self->pointer_x, self->pointer_y, &hover);
  else if (self->hover.valid)
    {
      self->hover.valid = FALSE;
      g_clear_pointer (&self->hover_text, g_free);
      _hs_canvas_notify (self, PROP_HOVER_TEXT);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

/* ---- input ------------------------------------------------------------------ */

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, HsCanvas *self)
{
  self->pointer_inside = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
  _hs_canvas_update_hover (self);
}

static void
on_leave (GtkEventControllerMotion *controller, HsCanvas *self)
{
  self->pointer_inside = FALSE;
  _hs_canvas_update_hover (self);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, HsCanvas *self)
{
  double wx = self->pointer_inside ? self->pointer_x : -1;
  double wy = self->pointer_inside ? self->pointer_y : -1;

  if (self->image == NULL || dy == 0)
    return FALSE;
  hs_canvas_zoom_to (self, self->t.zoom * pow (ZOOM_STEP, -dy), wx, wy);
  return TRUE;
}

static void
on_pinch_begin (GtkGesture *gesture, GdkEventSequence *sequence, HsCanvas *self)
{
  self->pinch_zoom0 = self->t.zoom;
}

static void
on_pinch_scale_changed (GtkGestureZoom *gesture, double scale, HsCanvas *self)
{
  double x, y;

  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y))
    x = y = -1;
  hs_canvas_zoom_to (self, self->pinch_zoom0 * scale, x, y);
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, HsCanvas *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));

  /* Ctrl+drag or a secondary-button drag sets window/level, as in DICOM viewers;
   * Shift+drag draws a new box ("box-drawn"). */
  self->drag_wl = (mods & GDK_CONTROL_MASK) != 0 || button == GDK_BUTTON_SECONDARY;
  self->drag_box = !self->drag_wl && (mods & GDK_SHIFT_MASK) != 0 && self->image != NULL;
  self->box_wx0 = self->box_wx1 = x;
  self->box_wy0 = self->box_wy1 = y;
  self->drag_ox = self->t.offset_x;
  self->drag_oy = self->t.offset_y;
  /* From the window on screen: while automatic, the image's own. */
  if (self->state)
    {
      double max = self->image != NULL ? MAX (hs_image_get_max_value (self->image), 1) : 255;

      _hs_canvas_get_window_level (self, &self->wl_center0, &self->wl_width0);
      self->wl_center0 /= max;
      self->wl_width0 /= max;
    }
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, HsCanvas *self)
{
  if (self->drag_box)
    {
      self->box_wx1 = self->box_wx0 + dx;
      self->box_wy1 = self->box_wy0 + dy;
      gtk_widget_queue_draw (GTK_WIDGET (self));
      return;
    }
  if (self->drag_wl)
    {
      /* Right widens the window, down raises the centre (darker image). */
      double width = CLAMP (self->wl_width0 * exp (dx / 300.0), 0.002, 2.0);
      double center = CLAMP (self->wl_center0 + dy / 600.0, 0.0, 1.0);
      if (self->state)
        hs_view_state_set_window_level (self->state, center, width);
      return;
    }
  _hs_canvas_set_fit (self, FALSE);
  self->t.offset_x = self->drag_ox + dx;
  self->t.offset_y = self->drag_oy + dy;
  _hs_canvas_transform_changed (self);
}

static guint box_drawn_signal;

/* The drawn box in image pixels, clipped to the image, as "box-drawn"
 * (x1, y1, x2, y2) when it is at least 2 × 2 pixels. */
static void
on_drag_end (GtkGestureDrag *gesture, double dx, double dy, HsCanvas *self)
{
  double x0, y0, x1, y1, w, h;

  if (!self->drag_box)
    return;
  self->drag_box = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (self->image == NULL)
    return;
  w = _hs_canvas_image_w (self);
  h = _hs_canvas_image_h (self);
  hs_canvas_transform_widget_to_image (&self->t, MIN (self->box_wx0, self->box_wx1),
                                       MIN (self->box_wy0, self->box_wy1), &x0, &y0);
  hs_canvas_transform_widget_to_image (&self->t, MAX (self->box_wx0, self->box_wx1),
                                       MAX (self->box_wy0, self->box_wy1), &x1, &y1);
  x0 = round (CLAMP (x0, 0, w));
  y0 = round (CLAMP (y0, 0, h));
  x1 = round (CLAMP (x1, 0, w));
  y1 = round (CLAMP (y1, 0, h));
  if (x1 - x0 >= 2 && y1 - y0 >= 2)
    g_signal_emit (self, box_drawn_signal, 0, x0, y0, x1, y1);
}

void
_hs_canvas_snapshot_box (HsCanvas *self, GtkSnapshot *snapshot)
{
  static const double dash[] = { 4, 3 };
  double x = MIN (self->box_wx0, self->box_wx1), y = MIN (self->box_wy0, self->box_wy1);
  double w = fabs (self->box_wx1 - self->box_wx0), h = fabs (self->box_wy1 - self->box_wy0);
  cairo_t *cr;

  if (!self->drag_box || w < 1 || h < 1)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x - 2, y - 2, w + 4, h + 4));
  cairo_set_line_width (cr, 3);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
  cairo_rectangle (cr, round (x) + 0.5, round (y) + 0.5, round (w), round (h));
  cairo_stroke_preserve (cr);
  cairo_set_line_width (cr, 1.5);
  cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_stroke (cr);
  cairo_destroy (cr);
}

static void
zoom_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  HsCanvas *self = HS_CANVAS (widget);
  double wx = self->pointer_inside ? self->pointer_x : -1;
  double wy = self->pointer_inside ? self->pointer_y : -1;

  if (g_str_equal (action_name, "canvas.zoom-in"))
    hs_canvas_zoom_to (self, self->t.zoom * ZOOM_STEP, wx, wy);
  else if (g_str_equal (action_name, "canvas.zoom-out"))
    hs_canvas_zoom_to (self, self->t.zoom / ZOOM_STEP, wx, wy);
  else if (g_str_equal (action_name, "canvas.zoom-fit"))
    hs_canvas_zoom_fit (self);
  else if (g_str_equal (action_name, "canvas.zoom-1"))
    hs_canvas_zoom_one (self);
}

void
hs_canvas_hover_at (HsCanvas *self, double wx, double wy, HsCanvasHover *out)
{
  HsCanvasHover hover = { FALSE, 0, 0, -1, -1, NAN };
  g_autofree char *text = NULL;
  const double *grid;

  g_return_if_fail (HS_IS_CANVAS (self));

  hover.valid = hs_canvas_widget_to_image (self, wx, wy, &hover.x, &hover.y);
  grid = _hs_canvas_current_grid (self);
  if (hover.valid && grid)
    {
      guint W = (guint) _hs_canvas_image_w (self), H = (guint) _hs_canvas_image_h (self);
      guint gw = hs_attention_map_get_width (self->map), gh = hs_attention_map_get_height (self->map);
      guint px = MIN ((guint) hover.x, W - 1), py = MIN ((guint) hover.y, H - 1);
      float v = 0;
      HsUpsample mode = self->state ? hs_view_state_get_upsample (self->state) : HS_UPSAMPLE_BILINEAR;

      /* The cell is the one nearest upsampling would show (metrics.md rule). */
      hover.col = MIN ((guint) floor ((px + 0.5) * gw / W), gw - 1);
      hover.row = MIN ((guint) floor ((py + 0.5) * gh / H), gh - 1);
      hs_resample_region (grid, gw, gh, W, H, px, py, 1, 1, &v, mode);
      hover.value = v;
      /* TRANSLATORS: hover read-out: image x, y · the map's grid cell (row, column) · attention value */
      text = g_strdup_printf (_("x %u, y %u · map cell row %d, column %d · %.4g"), px, py, hover.row,
                              hover.col, hover.value);
    }
  else if (hover.valid)
    text = g_strdup_printf (_("x %u, y %u"), (guint) hover.x, (guint) hover.y);

  if (text != NULL && self->image != NULL && g_strcmp0 (hs_image_get_format (self->image), "DICOM") == 0)
    {
      /* DICOM: the pixel's own grey value (Hounsfield or raw units) and, with
       * a known pixel spacing, the position in millimetres. */
      guint px = MIN ((guint) hover.x, hs_image_get_width (self->image) - 1);
      guint py = MIN ((guint) hover.y, hs_image_get_height (self->image) - 1);
      double value = hs_image_sample_to_value (self->image, hs_image_get_grey (self->image, px, py));
      const char *unit = hs_image_get_value_unit (self->image);
      double row_mm, col_mm;
      gboolean at_detector;
      g_autofree char *extra = NULL;

      if (hs_image_get_pixel_spacing (self->image, &row_mm, &col_mm, &at_detector))
        /* TRANSLATORS: DICOM read-out: grey value, its unit, position in mm from the top-left corner */
        extra = g_strdup_printf (_(" · %.6g %s · %.1f, %.1f mm%s"), value, unit != NULL ? unit : _("raw"),
                                 (px + 0.5) * col_mm, (py + 0.5) * row_mm,
                                 at_detector ? _(" (at detector)") : "");
      else
        /* TRANSLATORS: DICOM read-out without pixel spacing: grey value and its unit */
        extra = g_strdup_printf (_(" · %.6g %s · no pixel spacing"), value, unit != NULL ? unit : _("raw"));
      {
        char *joined = g_strconcat (text, extra, NULL);
        g_free (text);
        text = joined;
      }
    }

  if (out)
    *out = hover;
  self->hover = hover;
  if (_hs_set_str (&self->hover_text, text))
    _hs_canvas_notify (self, PROP_HOVER_TEXT);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}


/* ---- set-up -------------------------------------------------------------------- */

void
_hs_canvas_class_actions_init (GtkWidgetClass *widget_class)
{
  /* "box-drawn" (x1, y1, x2, y2 in image pixels): a Shift+drag ended. */
  box_drawn_signal = g_signal_new ("box-drawn", G_TYPE_FROM_CLASS (widget_class), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 4, G_TYPE_DOUBLE,
                                   G_TYPE_DOUBLE, G_TYPE_DOUBLE, G_TYPE_DOUBLE);

  gtk_widget_class_install_action (widget_class, "canvas.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "canvas.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "canvas.zoom-fit", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "canvas.zoom-1", NULL, zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, 0, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, 0, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "canvas.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, 0, "canvas.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "canvas.zoom-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0, 0, "canvas.zoom-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, 0, "canvas.zoom-1", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_1, 0, "canvas.zoom-1", NULL);
}

void
_hs_canvas_input_init (HsCanvas *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "enter", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (controller, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (on_pinch_begin), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (on_pinch_scale_changed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), 0);
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (gesture, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
}
