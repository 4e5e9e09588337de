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
 */
#include <math.h>
#include <string.h>

#include <glib/gi18n.h>
#include <heatscope/hs-figure.h>
#include <heatscope/hs-parallel.h>

#include "hs-canvas.h"

G_DEFINE_QUARK (hs-canvas-error-quark, hs_canvas_error)


#define ZOOM_STEP 1.25
#define MAX_MIP_LEVELS 12
/* Longest side of the grid the top-k/Otsu outline is computed on. */
#define OUTLINE_GRID_MAX 1024
#define HUD_FONT_SIZE 11.0
/* Images above this many pixels get their pyramid built on a worker thread. */
#define PYRAMID_THREAD_PIXELS (2048 * 2048)
/* Below this many pixels a second thread costs more than it saves. */
#define PARALLEL_MIN_PIXELS (128 * 1024)
/* The HUD's area at the top right of the view (colour bar and gauge). */
#define HUD_AREA_W 170
#define HUD_AREA_H 340

/* What a view-dependent layer was made for. */
typedef struct {
  double zoom, offset_x, offset_y;
  int    vw, vh, scale;
} ViewKey;

/* A layer of the visible part: `surface` covers device pixels
 * [x, x + width) × [y, y + height) of the view. */
typedef struct {
  cairo_surface_t *surface;        /* NULL: nothing to show */
  gboolean         built;
  guint            gen;            /* which build (the composite remembers it) */
  int              x, y;
  ViewKey          key;
} Layer;

struct _HsCanvas
{
  GtkWidget parent_instance;

  HsViewState    *state;
  gulong          state_changed_id;
  HsImage        *image;
  HsAttentionMap *map;
  int             token;
  GPtrArray      *regions;         /* HsRegion*, owned copies */
  GPtrArray      *masks;           /* HsImage* or NULL        */
  GPtrArray      *mask_contours;   /* GPtrArray* of HsPolyline (mask pixels) or NULL */
  char           *caption;
  gboolean        show_color_bar;           /* FALSE where a shared bar is drawn outside */

  HsCanvasTransform t;
  gboolean        fit;
  int             view_w, view_h;

  /* image layer */
  guint16        *pyr[MAX_MIP_LEVELS];     /* [0] = the image's samples (borrowed), then 2× box-filtered */
  guint           pyr_w[MAX_MIP_LEVELS], pyr_h[MAX_MIP_LEVELS];
  guint           n_levels;                /* levels ready (0 = none yet) */
  GCancellable   *pyr_cancel;              /* a worker is building the pyramid */
  guint8         *wl_lut;                  /* raw sample → grey, 65 536 entries; NULL = stale */
  Layer           img;
  /* overlay layer */
  gboolean        range_valid;
  HsScaleRange    range;
  char           *scale_label;
  HsOverlayField *field;
  guint           field_gen;                /* bumped for every new field */
  HsUpsample      field_upsample;
  guint           field_sw, field_sh;       /* scaled grid the field is a region of */
  int             field_x, field_y;         /* its origin in that grid */
  guint16        *vq;                       /* field values of the visible part, device pixels */
  int             vq_x, vq_y, vq_w, vq_h;
  ViewKey         vq_key;
  guint           vq_field_gen;
  guint           vq_gen;
  guint32        *lut;                      /* HS_OVERLAY_Q_LEVELS entries */
  gboolean        lut_valid;
  guint           lut_gen;
  guint           layer_gen;
  /* image and overlay composited at the current opacity */
  GskRenderNode  *composite_node;
  guint           composite_img, composite_vq, composite_lut;
  double          composite_opacity;
  GPtrArray      *outline;                  /* HsPolyline* in outline-grid pixels */
  gboolean        outline_valid;
  HsUpsample      outline_upsample;
  guint           outline_w, outline_h;
  char           *map_error;

  GskRenderNode  *decor_node;
  gboolean        decor_overlay;            /* show-overlay when decor_node was drawn */
  GskRenderNode  *hud_node;

  /* pointer */
  gboolean        pointer_inside;
  double          pointer_x, pointer_y;
  HsCanvasHover   hover;
  char           *hover_text;

  /* gestures */
  double          drag_ox, drag_oy;
  gboolean        drag_wl;
  double          wl_center0, wl_width0;
  double          pinch_zoom0;
};

G_DEFINE_FINAL_TYPE (HsCanvas, hs_canvas, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_VIEW_STATE,
  PROP_ZOOM,
  PROP_FIT,
  PROP_HOVER_TEXT,
  PROP_CAPTION,
  PROP_BUSY,
  PROP_SHOW_COLOR_BAR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];
static guint transform_changed_signal;

/* ---- pure transform math ------------------------------------------------ */

void
hs_canvas_transform_widget_to_image (const HsCanvasTransform *t, double wx, double wy,
                                     double *ix, double *iy)
{
  g_return_if_fail (t != NULL && t->zoom > 0);
  if (ix)
    *ix = (wx - t->offset_x) / t->zoom;
  if (iy)
    *iy = (wy - t->offset_y) / t->zoom;
}

void
hs_canvas_transform_image_to_widget (const HsCanvasTransform *t, double ix, double iy,
                                     double *wx, double *wy)
{
  g_return_if_fail (t != NULL);
  if (wx)
    *wx = ix * t->zoom + t->offset_x;
  if (wy)
    *wy = iy * t->zoom + t->offset_y;
}

void
hs_canvas_transform_zoom_around (HsCanvasTransform *t, double new_zoom, double wx, double wy)
{
  double ix, iy;

  g_return_if_fail (t != NULL && t->zoom > 0);
  if (!isfinite (new_zoom))
    return;
  new_zoom = CLAMP (new_zoom, HS_CANVAS_ZOOM_MIN, HS_CANVAS_ZOOM_MAX);
  hs_canvas_transform_widget_to_image (t, wx, wy, &ix, &iy);
  t->zoom = new_zoom;
  t->offset_x = wx - ix * new_zoom;
  t->offset_y = wy - iy * new_zoom;
}

void
hs_canvas_transform_fit (HsCanvasTransform *t, double image_w, double image_h,
                         double view_w, double view_h)
{
  g_return_if_fail (t != NULL);
  if (image_w <= 0 || image_h <= 0 || view_w <= 0 || view_h <= 0)
    {
      t->zoom = 1;
      t->offset_x = t->offset_y = 0;
      return;
    }
  t->zoom = CLAMP (MIN (view_w / image_w, view_h / image_h), HS_CANVAS_ZOOM_MIN, HS_CANVAS_ZOOM_MAX);
  t->offset_x = (view_w - image_w * t->zoom) / 2;
  t->offset_y = (view_h - image_h * t->zoom) / 2;
}

void
hs_canvas_transform_one_to_one (HsCanvasTransform *t, double image_w, double image_h,
                                double view_w, double view_h)
{
  g_return_if_fail (t != NULL);
  t->zoom = 1;
  /* Whole pixels keep nearest-neighbour drawing crisp. */
  t->offset_x = floor ((view_w - image_w) / 2);
  t->offset_y = floor ((view_h - image_h) / 2);
}

gboolean
hs_canvas_transform_visible_rect (const HsCanvasTransform *t, double image_w, double image_h,
                                  double view_w, double view_h,
                                  int *x, int *y, int *w, int *h)
{
  double x0, y0, x1, y1;

  g_return_val_if_fail (t != NULL && t->zoom > 0, FALSE);
  hs_canvas_transform_widget_to_image (t, 0, 0, &x0, &y0);
  hs_canvas_transform_widget_to_image (t, view_w, view_h, &x1, &y1);
  x0 = MAX (floor (x0), 0);
  y0 = MAX (floor (y0), 0);
  x1 = MIN (ceil (x1), image_w);
  y1 = MIN (ceil (y1), image_h);
  if (x1 <= x0 || y1 <= y0)
    {
      *x = *y = *w = *h = 0;
      return FALSE;
    }
  *x = (int) x0;
  *y = (int) y0;
  *w = (int) (x1 - x0);
  *h = (int) (y1 - y0);
  return TRUE;
}

/* ---- helpers ------------------------------------------------------------ */

static void
image_unref0 (gpointer image)
{
  if (image)
    hs_image_unref (image);
}

static void
ptr_array_unref0 (gpointer array)
{
  if (array)
    g_ptr_array_unref (array);
}

/* g_set_str is GLib 2.76. */
static gboolean
set_str (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

static const double *
current_grid (HsCanvas *self)
{
  const double *grid = NULL;

  if (self->map == NULL)
    return NULL;
  if (self->token >= 0 && (guint) self->token < hs_attention_map_get_n_tokens (self->map))
    grid = hs_attention_map_peek_token (self->map, self->token);
  return grid ? grid : hs_attention_map_peek_values (self->map);
}

static double
image_w (HsCanvas *self)
{
  return self->image ? hs_image_get_width (self->image) : 0;
}

static double
image_h (HsCanvas *self)
{
  return self->image ? hs_image_get_height (self->image) : 0;
}

static void
layer_clear (Layer *layer)
{
  g_clear_pointer (&layer->surface, cairo_surface_destroy);
  layer->built = FALSE;
}

/* Everything that depends on the transform or the view size. */
static void
clear_nodes (HsCanvas *self)
{
  layer_clear (&self->img);
  g_clear_pointer (&self->composite_node, gsk_render_node_unref);
  g_clear_pointer (&self->decor_node, gsk_render_node_unref);
  g_clear_pointer (&self->hud_node, gsk_render_node_unref);
}

static void
free_pyramid (HsCanvas *self)
{
  if (self->pyr_cancel)
    {
      g_cancellable_cancel (self->pyr_cancel);
      g_clear_object (&self->pyr_cancel);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
    }
  for (guint i = 1; i < MAX_MIP_LEVELS; i++)
    g_clear_pointer (&self->pyr[i], g_free);
  self->pyr[0] = NULL;
  self->n_levels = 0;
}

/* Window/level changed: the raw pyramid stays, only the visible pixels are
 * levelled again. */
static void
invalidate_levels (HsCanvas *self)
{
  g_clear_pointer (&self->wl_lut, g_free);
  layer_clear (&self->img);
}

static void
invalidate_colors (HsCanvas *self)
{
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

static void
get_overlay_options (HsCanvas *self, HsOverlayOptions *options)
{
  if (self->state)
    hs_view_state_get_overlay_options (self->state, options);
  else
    hs_overlay_options_init (options);
}

/* Window/level in source units. */
static void
get_window_level (HsCanvas *self, double *center, double *width)
{
  double c = 0.5, w = 1.0, max = self->image ? hs_image_get_max_value (self->image) : 255;

  if (self->state)
    hs_view_state_get_window_level (self->state, &c, &w);
  *center = c * max;
  *width = w * max;
}

static gboolean
ensure_range (HsCanvas *self)
{
  HsOverlayOptions options;
  g_autoptr(GError) error = NULL;
  const double *grid = current_grid (self);
  g_autofree char *scale = NULL;
  g_autofree char *curve = NULL;

  if (grid == NULL)
    return FALSE;
  if (self->range_valid)
    return TRUE;

  get_overlay_options (self, &options);
  if (!hs_scale_resolve (&options.scale, grid,
                         (gsize) hs_attention_map_get_width (self->map) * hs_attention_map_get_height (self->map),
                         &self->range, &error))
    {
      g_free (self->map_error);
      self->map_error = g_strdup (error->message);
      return FALSE;
    }
  scale = hs_scale_describe (&options.scale, &self->range);
  if (options.strength == HS_STRENGTH_LOG && options.strength_param > 1)
    curve = g_strdup_printf (" · log b=%g", options.strength_param);
  else if (options.strength == HS_STRENGTH_GAMMA && options.strength_param != 1)
    curve = g_strdup_printf (" · γ %g", options.strength_param);
  g_free (self->scale_label);
  self->scale_label = g_strconcat (scale, curve ? curve : "", NULL);
  self->range_valid = TRUE;
  return TRUE;
}

/* Scale of the overlay grid relative to the image: display resolution when
 * zoomed out, image resolution when zoomed in. */
static void
overlay_grid_size (HsCanvas *self, const HsCanvasTransform *t, guint *sw, guint *sh)
{
  double s = MIN (t->zoom, 1.0);

  *sw = MAX (1, (guint) lround (image_w (self) * s));
  *sh = MAX (1, (guint) lround (image_h (self) * s));
}

static gboolean
ensure_field (HsCanvas *self, const HsCanvasTransform *t, int vw, int vh)
{
  HsOverlayOptions options;
  g_autoptr(GError) error = NULL;
  guint sw, sh;
  int x, y, w, h, x0, y0, x1, y1, mx, my;
  double sx, sy;

  if (current_grid (self) == NULL || self->image == NULL)
    return FALSE;
  get_overlay_options (self, &options);
  overlay_grid_size (self, t, &sw, &sh);
  if (!hs_canvas_transform_visible_rect (t, image_w (self), image_h (self), vw, vh, &x, &y, &w, &h))
    return FALSE;

  sx = sw / image_w (self);
  sy = sh / image_h (self);
  x0 = CLAMP ((int) floor (x * sx), 0, (int) sw - 1);
  y0 = CLAMP ((int) floor (y * sy), 0, (int) sh - 1);
  x1 = CLAMP ((int) ceil ((x + w) * sx), x0 + 1, (int) sw);
  y1 = CLAMP ((int) ceil ((y + h) * sy), y0 + 1, (int) sh);

  if (self->field && self->field_sw == sw && self->field_sh == sh &&
      self->field_upsample == options.upsample &&
      x0 >= self->field_x && y0 >= self->field_y &&
      x1 <= self->field_x + (int) hs_overlay_field_get_width (self->field) &&
      y1 <= self->field_y + (int) hs_overlay_field_get_height (self->field))
    return TRUE;

  /* A margin of half the visible size on every side lets small pans reuse
   * the field. */
  mx = (x1 - x0) / 2;
  my = (y1 - y0) / 2;
  x0 = MAX (0, x0 - mx);
  y0 = MAX (0, y0 - my);
  x1 = MIN ((int) sw, x1 + mx);
  y1 = MIN ((int) sh, y1 + my);

  g_clear_pointer (&self->field, hs_overlay_field_unref);
  self->field = hs_overlay_field_new_region (current_grid (self),
                                             hs_attention_map_get_width (self->map),
                                             hs_attention_map_get_height (self->map),
                                             sw, sh, x0, y0, x1 - x0, y1 - y0,
                                             options.upsample, &error);
  if (self->field == NULL)
    {
      g_free (self->map_error);
      self->map_error = g_strdup (error->message);
      return FALSE;
    }
  self->field_gen++;
  self->field_sw = sw;
  self->field_sh = sh;
  self->field_x = x0;
  self->field_y = y0;
  self->field_upsample = options.upsample;
  return TRUE;
}

static void
ensure_outline (HsCanvas *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *mask = NULL;
  HsOutline outline;
  double scale;

  if (self->outline_valid)
    return;
  self->outline_valid = TRUE;
  g_clear_pointer (&self->outline, g_ptr_array_unref);
  self->outline_upsample = self->state ? hs_view_state_get_upsample (self->state) : HS_UPSAMPLE_BILINEAR;
  if (self->state == NULL || current_grid (self) == NULL || self->image == NULL)
    return;
  outline = hs_view_state_get_outline (self->state);
  if (outline == HS_OUTLINE_NONE)
    return;

  scale = MIN (1.0, OUTLINE_GRID_MAX / MAX (image_w (self), image_h (self)));
  self->outline_w = MAX (1, (guint) lround (image_w (self) * scale));
  self->outline_h = MAX (1, (guint) lround (image_h (self) * scale));
  mask = hs_contour_region_mask (current_grid (self),
                                 hs_attention_map_get_width (self->map),
                                 hs_attention_map_get_height (self->map),
                                 self->outline_w, self->outline_h,
                                 hs_view_state_get_upsample (self->state), outline,
                                 hs_view_state_get_outline_top_k (self->state), &error);
  if (mask == NULL)
    {
      g_warning ("Outline: %s", error->message);
      return;
    }
  self->outline = hs_contour_trace_mask (mask, self->outline_w, self->outline_h,
                                         self->outline_w, HS_CONTOUR_SIMPLIFY);
}

/* ---- layer buffers -------------------------------------------------------- */

/* View-sized layers come and go with every slider step.  Fresh 4 MB
 * buffers cost page faults and calloc's zeroing (a fifth of a frame in the
 * profile); a few recycled ones cost nothing.  Used from the main thread
 * only (textures are released there too). */
#define POOL_MAX 6

typedef struct {
  gsize size;
  gsize pad;            /* keeps data 16-byte aligned */
  guint8 data[];
} PoolBuffer;

static GSList *buffer_pool;

static void
pool_release (gpointer data)
{
  PoolBuffer *buf = (PoolBuffer *) (void *) ((guint8 *) data - G_STRUCT_OFFSET (PoolBuffer, data));

  if (g_slist_length (buffer_pool) < POOL_MAX)
    buffer_pool = g_slist_prepend (buffer_pool, buf);
  else
    g_free (buf);
}

static const cairo_user_data_key_t pool_key;

/* An image surface of w × h whose pixels are left uninitialised (the
 * caller writes every one). */
static cairo_surface_t *
layer_surface_new (cairo_format_t format, int w, int h)
{
  int stride = cairo_format_stride_for_width (format, w);
  gsize size = (gsize) stride * (gsize) h;
  PoolBuffer *buf = NULL;
  cairo_surface_t *surface;

  if (w <= 0 || h <= 0 || stride <= 0)
    return NULL;
  for (GSList *l = buffer_pool; l; l = l->next)
    if (((PoolBuffer *) l->data)->size == size)
      {
        buf = l->data;
        buffer_pool = g_slist_delete_link (buffer_pool, l);
        break;
      }
  if (buf == NULL)
    {
      buf = g_try_malloc (sizeof (PoolBuffer) + size);
      if (buf == NULL)
        return NULL;
      buf->size = size;
    }
  surface = cairo_image_surface_create_for_data (buf->data, format, w, h, stride);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS ||
      cairo_surface_set_user_data (surface, &pool_key, buf->data, pool_release) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      g_free (buf);
      return NULL;
    }
  return surface;
}

/* ---- raw-sample pyramid ------------------------------------------------- */

/* Level k + 1 is level k halved (rounded up), each sample the rounded mean of
 * the 2 × 2 block (edges repeat), per channel, in source units: levelling
 * happens after, on the visible pixels only. */
static guint16 *
pyramid_halve (const guint16 *src, guint w, guint h, guint ch, guint *nw, guint *nh,
               GCancellable *cancellable)
{
  guint ow = MAX (1, (w + 1) / 2), oh = MAX (1, (h + 1) / 2);
  guint16 *out = g_try_new (guint16, (gsize) ow * oh * ch);

  if (out == NULL)
    return NULL;
  for (guint y = 0; y < oh; y++)
    {
      const guint16 *r0 = src + (gsize) MIN (2 * y, h - 1) * w * ch;
      const guint16 *r1 = src + (gsize) MIN (2 * y + 1, h - 1) * w * ch;
      guint16 *o = out + (gsize) y * ow * ch;

      if ((y & 63) == 0 && g_cancellable_is_cancelled (cancellable))
        {
          g_free (out);
          return NULL;
        }
      for (guint x = 0; x < ow; x++)
        {
          gsize a = (gsize) MIN (2 * x, w - 1) * ch, b = (gsize) MIN (2 * x + 1, w - 1) * ch;
          for (guint c = 0; c < ch; c++)
            o[(gsize) x * ch + c] = (guint16) (((guint) r0[a + c] + r0[b + c] + r1[a + c] + r1[b + c] + 2) >> 2);
        }
    }
  *nw = ow;
  *nh = oh;
  return out;
}

typedef struct {
  HsImage *image;
  guint16 *levels[MAX_MIP_LEVELS];
  guint    w[MAX_MIP_LEVELS], h[MAX_MIP_LEVELS];
  guint    n;
} PyramidJob;

static void
pyramid_job_free (PyramidJob *job)
{
  for (guint i = 1; i < job->n; i++)
    g_free (job->levels[i]);
  hs_image_unref (job->image);
  g_free (job);
}

static void
pyramid_job_run (PyramidJob *job, GCancellable *cancellable)
{
  guint ch = hs_image_get_channels (job->image);

  job->levels[0] = (guint16 *) hs_image_peek_data (job->image);
  job->w[0] = hs_image_get_width (job->image);
  job->h[0] = hs_image_get_height (job->image);
  job->n = 1;
  /* Down to the first level of at most 256 pixels on its long side. */
  while (job->n < MAX_MIP_LEVELS && MAX (job->w[job->n - 1], job->h[job->n - 1]) > 256)
    {
      guint16 *next = pyramid_halve (job->levels[job->n - 1], job->w[job->n - 1], job->h[job->n - 1],
                                     ch, &job->w[job->n], &job->h[job->n], cancellable);
      if (next == NULL)
        break;
      job->levels[job->n++] = next;
    }
}

static void
pyramid_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  pyramid_job_run (data, cancellable);
  g_task_return_boolean (task, !g_cancellable_is_cancelled (cancellable));
}

static void
set_busy (HsCanvas *self, GCancellable *cancel)
{
  gboolean was = self->pyr_cancel != NULL;

  if (self->pyr_cancel && self->pyr_cancel != cancel)
    g_cancellable_cancel (self->pyr_cancel);
  g_set_object (&self->pyr_cancel, cancel);
  if (was != (cancel != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
install_pyramid (HsCanvas *self, PyramidJob *job)
{
  for (guint i = 1; i < MAX_MIP_LEVELS; i++)
    g_clear_pointer (&self->pyr[i], g_free);
  for (guint i = 0; i < job->n; i++)
    {
      self->pyr[i] = job->levels[i];
      self->pyr_w[i] = job->w[i];
      self->pyr_h[i] = job->h[i];
    }
  self->n_levels = job->n;
  job->n = 1;   /* the levels belong to the canvas now */
}

static void
pyramid_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  HsCanvas *self = HS_CANVAS (source);
  GTask *task = G_TASK (result);
  PyramidJob *job = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  if (!g_task_propagate_boolean (task, NULL) || cancellable != self->pyr_cancel ||
      job->image != self->image)
    return;
  install_pyramid (self, job);
  set_busy (self, NULL);
  layer_clear (&self->img);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Level 0 is the image itself, at once; the smaller levels come from a
 * worker thread for a large image (until then the view samples level 0). */
static void
ensure_pyramid (HsCanvas *self)
{
  PyramidJob *job;
  guint64 pixels;

  if (self->image == NULL || self->n_levels > 0)
    return;
  job = g_new0 (PyramidJob, 1);
  job->image = hs_image_ref (self->image);
  pixels = (guint64) hs_image_get_width (self->image) * hs_image_get_height (self->image);
  if (pixels <= PYRAMID_THREAD_PIXELS)
    {
      pyramid_job_run (job, NULL);
      install_pyramid (self, job);
      pyramid_job_free (job);
      return;
    }

  self->pyr[0] = (guint16 *) hs_image_peek_data (self->image);
  self->pyr_w[0] = hs_image_get_width (self->image);
  self->pyr_h[0] = hs_image_get_height (self->image);
  self->n_levels = 1;
  if (self->pyr_cancel == NULL)
    {
      g_autoptr(GCancellable) cancel = g_cancellable_new ();
      g_autoptr(GTask) task = g_task_new (self, cancel, pyramid_done, NULL);

      g_task_set_source_tag (task, ensure_pyramid);
      g_task_set_task_data (task, job, (GDestroyNotify) pyramid_job_free);
      set_busy (self, cancel);
      g_task_run_in_thread (task, pyramid_thread);
      return;
    }
  pyramid_job_free (job);
}

static const guint8 *
ensure_wl_lut (HsCanvas *self)
{
  double c, w, lo, hi, scale;

  if (self->wl_lut)
    return self->wl_lut;
  get_window_level (self, &c, &w);
  /* As hs_image_levels: centre ± width/2 → black..white, rounded. */
  if (w > 0 && isfinite (w) && isfinite (c))
    {
      lo = c - w / 2.0;
      hi = c + w / 2.0;
    }
  else
    {
      lo = 0.0;
      hi = hs_image_get_max_value (self->image);
    }
  scale = 255.0 / (hi - lo);
  self->wl_lut = g_malloc (65536);
  for (guint v = 0; v < 65536; v++)
    {
      double out = (v - lo) * scale;
      self->wl_lut[v] = out <= 0.0 ? 0 : out >= 255.0 ? 255 : (guint8) (out + 0.5);
    }
  return self->wl_lut;
}

/* ---- view geometry ------------------------------------------------------ */

static ViewKey
view_key (const HsCanvasTransform *t, int vw, int vh, int scale)
{
  return (ViewKey) { t->zoom, t->offset_x, t->offset_y, vw, vh, scale };
}

static gboolean
view_key_equal (const ViewKey *a, const ViewKey *b)
{
  return a->zoom == b->zoom && a->offset_x == b->offset_x && a->offset_y == b->offset_y &&
         a->vw == b->vw && a->vh == b->vh && a->scale == b->scale;
}

/* Device pixels whose centres fall on the image: [x0, x1) × [y0, y1). */
static gboolean
visible_device_rect (HsCanvas *self, const ViewKey *k, int *x0, int *y0, int *x1, int *y1)
{
  double z = k->zoom * k->scale, ox = k->offset_x * k->scale, oy = k->offset_y * k->scale;

  *x0 = (int) CLAMP (ceil (ox - 0.5), 0, k->vw * k->scale);
  *y0 = (int) CLAMP (ceil (oy - 0.5), 0, k->vh * k->scale);
  *x1 = (int) CLAMP (ceil (ox + image_w (self) * z - 0.5), 0, k->vw * k->scale);
  *y1 = (int) CLAMP (ceil (oy + image_h (self) * z - 0.5), 0, k->vh * k->scale);
  return *x1 > *x0 && *y1 > *y0;
}

/* ---- image layer -------------------------------------------------------- */

typedef struct {
  const guint16 *src;
  guint          src_w, ch, colour;
  const guint8  *lut;
  guint8        *dst;
  gsize          stride;
  guint          w;
  gboolean       nearest;
  const guint   *xa, *xb, *xw;    /* per column: sample offsets and weight of xb (0..256) */
  const guint   *ya, *yb, *yw;    /* per row */
} ImageJob;

static void
image_rows (gpointer data, guint begin, guint end)
{
  ImageJob *job = data;
  const guint8 *lut = job->lut;

  for (guint r = begin; r < end; r++)
    {
      const guint16 *ra = job->src + (gsize) job->ya[r] * job->src_w * job->ch;
      const guint16 *rb = job->src + (gsize) job->yb[r] * job->src_w * job->ch;
      guint fy = job->yw[r];
      guint32 *out = (guint32 *) (void *) (job->dst + (gsize) r * job->stride);

      for (guint x = 0; x < job->w; x++)
        {
          guint v[3];

          for (guint c = 0; c < job->colour; c++)
            {
              if (job->nearest)
                v[c] = ra[job->xa[x] + c];
              else
                {
                  guint fx = job->xw[x];
                  /* ≤ 65535·256·256 + 32768: fits 32 bits */
                  guint top = ra[job->xa[x] + c] * (256 - fx) + ra[job->xb[x] + c] * fx;
                  guint bot = rb[job->xa[x] + c] * (256 - fx) + rb[job->xb[x] + c] * fx;
                  v[c] = (top * (256 - fy) + bot * fy + 32768) >> 16;
                }
            }
          if (job->colour == 1)
            {
              guint g = lut[v[0]];
              out[x] = 0xff000000u | (g << 16) | (g << 8) | g;
            }
          else
            out[x] = 0xff000000u | ((guint) lut[v[0]] << 16) | ((guint) lut[v[1]] << 8) | lut[v[2]];
        }
    }
}

/* Column (or row) sampling of a level for device pixels [p0, p1): nearest
 * on level 0 when zoomed in (whole image pixels, as before), bilinear with
 * half-pixel centres on the level otherwise. */
static void
sample_axis (guint n, int p0, double offset, double zoom, double image_len, guint level_len,
             guint step, gboolean nearest, guint *a, guint *b, guint *w)
{
  double ratio = level_len / image_len;

  for (guint i = 0; i < n; i++)
    {
      double u = (p0 + i + 0.5 - offset) / zoom;   /* image coordinate */

      if (nearest)
        {
          double f = floor (u);
          guint k = (guint) CLAMP (f, 0, (double) level_len - 1);
          a[i] = b[i] = k * step;
          w[i] = 0;
        }
      else
        {
          double s = CLAMP (u * ratio - 0.5, 0, (double) level_len - 1);
          guint k = (guint) floor (s);
          guint k1 = MIN (k + 1, level_len - 1);
          a[i] = k * step;
          b[i] = k1 * step;
          w[i] = (guint) lround ((s - k) * 256);
        }
    }
}

static cairo_surface_t *
build_image_layer (HsCanvas *self, const ViewKey *k, int *ox, int *oy)
{
  int x0, y0, x1, y1;
  double z = k->zoom * k->scale;
  guint level = 0, w, h, ch;
  gboolean nearest = z >= 1.0;
  g_autofree guint *cols = NULL;
  g_autofree guint *rows = NULL;
  cairo_surface_t *surface;
  ImageJob job;

  if (self->image == NULL || !visible_device_rect (self, k, &x0, &y0, &x1, &y1))
    return NULL;
  ensure_pyramid (self);
  /* Strong minification through the 2× pyramid: cheap and without aliasing. */
  while (!nearest && level + 1 < self->n_levels && z * (1 << (level + 1)) <= 1.0)
    level++;
  w = (guint) (x1 - x0);
  h = (guint) (y1 - y0);
  ch = hs_image_get_channels (self->image);
  surface = layer_surface_new (CAIRO_FORMAT_RGB24, (int) w, (int) h);
  if (surface == NULL)
    return NULL;
  cols = g_new (guint, 3 * (gsize) w);
  rows = g_new (guint, 3 * (gsize) h);
  sample_axis (w, x0, k->offset_x * k->scale, z, image_w (self), self->pyr_w[level], ch, nearest,
               cols, cols + w, cols + 2 * w);
  sample_axis (h, y0, k->offset_y * k->scale, z, image_h (self), self->pyr_h[level], 1, nearest,
               rows, rows + h, rows + 2 * h);
  job = (ImageJob) {
    self->pyr[level], self->pyr_w[level], ch, ch >= 3 ? 3 : 1, ensure_wl_lut (self),
    cairo_image_surface_get_data (surface), (gsize) cairo_image_surface_get_stride (surface),
    w, nearest, cols, cols + w, cols + 2 * w, rows, rows + h, rows + 2 * h,
  };
  cairo_surface_flush (surface);
  hs_parallel_rows (h, (guint64) w * h, PARALLEL_MIN_PIXELS, image_rows, &job);
  cairo_surface_mark_dirty (surface);
  *ox = x0;
  *oy = y0;
  return surface;
}

/* ---- overlay layer ------------------------------------------------------ */

/* The field's quantised values of the visible device pixels, nearest (the
 * field is at display resolution when zoomed out and at image resolution
 * when zoomed in, where every image pixel shows as a block). */
static gboolean
ensure_view_field (HsCanvas *self, const ViewKey *k)
{
  int x0, y0, x1, y1;
  guint fw, fh, w, h;
  double z = k->zoom * k->scale;
  double sx, sy;
  const guint16 *q;
  g_autofree guint *cols = NULL;

  if (self->vq && self->vq_field_gen == self->field_gen && view_key_equal (&self->vq_key, k))
    return TRUE;
  g_clear_pointer (&self->vq, g_free);
  if (!visible_device_rect (self, k, &x0, &y0, &x1, &y1))
    return FALSE;
  w = (guint) (x1 - x0);
  h = (guint) (y1 - y0);
  fw = hs_overlay_field_get_width (self->field);
  fh = hs_overlay_field_get_height (self->field);
  q = hs_overlay_field_peek_quantised (self->field);
  /* field pixel = (device − offset) · sw / (image_w · zoom) − field origin */
  sx = self->field_sw / (image_w (self) * z);
  sy = self->field_sh / (image_h (self) * z);
  self->vq = g_try_new (guint16, (gsize) w * h);
  if (self->vq == NULL)
    return FALSE;
  cols = g_new (guint, w);
  for (guint i = 0; i < w; i++)
    {
      double f = floor ((x0 + i + 0.5 - k->offset_x * k->scale) * sx) - self->field_x;
      cols[i] = (guint) CLAMP (f, 0, (double) fw - 1);
    }
  for (guint j = 0; j < h; j++)
    {
      double f = floor ((y0 + j + 0.5 - k->offset_y * k->scale) * sy) - self->field_y;
      const guint16 *row = q + (gsize) CLAMP (f, 0, (double) fh - 1) * fw;
      guint16 *out = self->vq + (gsize) j * w;

      for (guint i = 0; i < w; i++)
        out[i] = row[cols[i]];
    }
  self->vq_x = x0;
  self->vq_y = y0;
  self->vq_w = (int) w;
  self->vq_h = (int) h;
  self->vq_key = *k;
  self->vq_field_gen = self->field_gen;
  self->vq_gen++;
  return TRUE;
}

/* The overlay's quantised values of the view and its colour table are
 * current for `k`; FALSE when no overlay is shown. */
static gboolean
ensure_overlay_colours (HsCanvas *self, const ViewKey *k)
{
  HsOverlayOptions options;
  g_autoptr(GError) error = NULL;
  HsCanvasTransform t = { k->zoom, k->offset_x, k->offset_y };

  if (current_grid (self) == NULL || self->image == NULL ||
      (self->state && !hs_view_state_get_show_overlay (self->state)))
    return FALSE;
  if (!ensure_field (self, &t, k->vw, k->vh) || !ensure_range (self) || !ensure_view_field (self, k))
    return FALSE;
  if (self->lut_valid)
    return TRUE;
  get_overlay_options (self, &options);
  if (self->lut == NULL)
    self->lut = g_new (guint32, HS_OVERLAY_Q_LEVELS);
  if (!hs_overlay_field_build_lut (self->field, &self->range, &options, self->lut, &error))
    {
      g_free (self->map_error);
      self->map_error = g_strdup (error->message);
      return FALSE;
    }
  self->lut_valid = TRUE;
  self->lut_gen++;
  return TRUE;
}

/* The colour-mapped overlay of the visible part at full alpha (the
 * offscreen path; on screen the colours are looked up inside the blend).
 * NULL when there is nothing to show. */
static cairo_surface_t *
build_overlay_layer (HsCanvas *self, const ViewKey *k, int *ox, int *oy)
{
  cairo_surface_t *surface;

  if (!ensure_overlay_colours (self, k))
    return NULL;
  surface = layer_surface_new (CAIRO_FORMAT_ARGB32, self->vq_w, self->vq_h);
  if (surface == NULL)
    return NULL;
  cairo_surface_flush (surface);
  hs_overlay_apply_lut (self->lut, self->vq, (gsize) self->vq_w, (guint) self->vq_w, (guint) self->vq_h,
                        cairo_image_surface_get_data (surface),
                        (gsize) cairo_image_surface_get_stride (surface));
  cairo_surface_mark_dirty (surface);
  *ox = self->vq_x;
  *oy = self->vq_y;
  return surface;
}

/* ---- drawing (shared by snapshot, render_surface and tests) ------------- */

/* A device-pixel layer painted 1:1 (exact: no resampling by cairo). */
static void
paint_layer (cairo_t *cr, cairo_surface_t *surface, int x, int y, int scale, double alpha)
{
  cairo_save (cr);
  cairo_scale (cr, 1.0 / scale, 1.0 / scale);
  cairo_rectangle (cr, x, y, cairo_image_surface_get_width (surface), cairo_image_surface_get_height (surface));
  cairo_clip (cr);
  cairo_set_source_surface (cr, surface, x, y);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  if (alpha >= 1.0)
    cairo_paint (cr);
  else
    cairo_paint_with_alpha (cr, alpha);
  cairo_restore (cr);
}

static gboolean
show_overlay (HsCanvas *self)
{
  return !self->state || hs_view_state_get_show_overlay (self->state);
}

static double
overlay_opacity (HsCanvas *self)
{
  return self->state ? CLAMP (hs_view_state_get_opacity (self->state), 0.0, 1.0) : 0.5;
}

/* The palette of hs-figure, in the same order (box i, then mask j after all
 * boxes), so the screen and an export agree. */
static const double region_colors[][3] = {
  { 0.00, 0.90, 1.00 },   /* cyan    */
  { 1.00, 0.85, 0.10 },   /* yellow  */
  { 0.40, 1.00, 0.30 },   /* green   */
  { 1.00, 0.40, 0.85 },   /* magenta */
  { 1.00, 0.60, 0.20 },   /* orange  */
  { 0.70, 0.70, 1.00 },   /* lilac   */
};

static PangoLayout *
create_layout (cairo_t *cr, const char *text, double size)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");

  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_font_description_free (font);
  return layout;
}

static void
label_size (cairo_t *cr, const char *text, double size, int *w, int *h)
{
  PangoLayout *layout = create_layout (cr, text, size);

  pango_layout_get_pixel_size (layout, w, h);
  g_object_unref (layout);
}

static void
draw_label (cairo_t *cr, const char *text, double x, double y, const double rgb[3], double size)
{
  PangoLayout *layout = create_layout (cr, text, size);
  int lw, lh;

  pango_layout_get_pixel_size (layout, &lw, &lh);
  cairo_save (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.65);
  cairo_rectangle (cr, x, y, lw + 6, lh + 2);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_move_to (cr, x + 3, y + 1);
  pango_cairo_show_layout (cr, layout);
  cairo_restore (cr);
  g_object_unref (layout);
}

static void
draw_regions (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t)
{
  gboolean show_boxes = !self->state || hs_view_state_get_show_boxes (self->state);
  gboolean show_masks = !self->state || hs_view_state_get_show_masks (self->state);

  guint n_boxes = 0, box_index = 0, mask_index = 0;

  if (self->regions == NULL)
    return;
  for (guint i = 0; i < self->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (self->regions, i);
      n_boxes += region->boxes ? region->boxes->len : 0;
    }
  for (guint i = 0; i < self->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (self->regions, i);
      const double *rgb = region_colors[0];
      GPtrArray *lines = self->mask_contours ? g_ptr_array_index (self->mask_contours, i) : NULL;
      HsImage *mask = self->masks ? g_ptr_array_index (self->masks, i) : NULL;
      gboolean labelled = FALSE;

      if (mask)
        rgb = region_colors[(n_boxes + mask_index++) % G_N_ELEMENTS (region_colors)];
      if (show_masks && lines && mask && lines->len > 0)
        {
          double rgba[4] = { rgb[0], rgb[1], rgb[2], 1.0 };
          cairo_save (cr);
          cairo_translate (cr, t->offset_x, t->offset_y);
          cairo_scale (cr, t->zoom * image_w (self) / hs_image_get_width (mask),
                       t->zoom * image_h (self) / hs_image_get_height (mask));
          hs_contour_draw (cr, lines, rgba, 2.0, FALSE);
          cairo_restore (cr);
          if (region->name && (region->boxes == NULL || region->boxes->len == 0 || !show_boxes))
            {
              /* Name above the top-left of the mask's outline. */
              double mx = G_MAXDOUBLE, my = G_MAXDOUBLE, wx, wy;
              for (guint l = 0; l < lines->len; l++)
                {
                  HsPolyline *line = g_ptr_array_index (lines, l);
                  for (guint k = 0; k < line->points->len; k++)
                    {
                      HsPoint *pt = &g_array_index (line->points, HsPoint, k);
                      mx = MIN (mx, pt->x);
                      my = MIN (my, pt->y);
                    }
                }
              hs_canvas_transform_image_to_widget (t, mx * image_w (self) / hs_image_get_width (mask),
                                                   my * image_h (self) / hs_image_get_height (mask),
                                                   &wx, &wy);
              draw_label (cr, region->name, round (wx), MAX (0, round (wy) - HUD_FONT_SIZE - 6),
                          rgb, HUD_FONT_SIZE);
            }
        }

      if (!show_boxes)
        continue;
      for (guint b = 0; region->boxes && b < region->boxes->len; b++)
        {
          const HsBox *box = &g_array_index (region->boxes, HsBox, b);
          double x1, y1, x2, y2;

          rgb = region_colors[box_index++ % G_N_ELEMENTS (region_colors)];

          hs_canvas_transform_image_to_widget (t, box->x1, box->y1, &x1, &y1);
          hs_canvas_transform_image_to_widget (t, box->x2, box->y2, &x2, &y2);
          cairo_save (cr);
          cairo_set_line_width (cr, 3.5);
          cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
          cairo_rectangle (cr, round (x1) + 0.5, round (y1) + 0.5, round (x2 - x1), round (y2 - y1));
          cairo_stroke_preserve (cr);
          cairo_set_line_width (cr, 1.5);
          cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
          cairo_stroke (cr);
          cairo_restore (cr);
          if (!labelled && region->name)
            {
              draw_label (cr, region->name, round (x1), MAX (0, round (y1) - HUD_FONT_SIZE - 6),
                          rgb, HUD_FONT_SIZE);
              labelled = TRUE;
            }
        }
    }
}

static void
draw_outline (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t)
{
  static const double white[4] = { 1, 1, 1, 1 };

  ensure_outline (self);
  if (self->outline == NULL || self->outline->len == 0)
    return;
  cairo_save (cr);
  cairo_translate (cr, t->offset_x, t->offset_y);
  cairo_scale (cr, t->zoom * image_w (self) / self->outline_w, t->zoom * image_h (self) / self->outline_h);
  hs_contour_draw (cr, self->outline, white, 1.5, TRUE);
  cairo_restore (cr);
}

static void
panel_background (cairo_t *cr, double x, double y, double w, double h)
{
  /* Light panels: the library's colour bar and gauge draw dark text, as on
   * paper, so the HUD matches the exported figure. */
  cairo_save (cr);
  cairo_set_source_rgba (cr, 1, 1, 1, 0.85);
  cairo_rectangle (cr, x, y, w, h);
  cairo_fill (cr);
  cairo_restore (cr);
}

/* Colour bar on the right edge; the No-Attn gauge is a separate panel to
 * its left, never part of the heatmap scale. */
static void
draw_hud (HsCanvas *self, cairo_t *cr, int vw, int vh)
{
  HsOverlayOptions options;
  gboolean overlay = !self->state || hs_view_state_get_show_overlay (self->state);
  double panel_w = 100, panel_h = MIN (320, vh - 16), x = vw - panel_w - 8, y = 8;
  double bar_w = 14, fs = HUD_FONT_SIZE;

  if (current_grid (self) == NULL || panel_h < 100 || vw < 3 * panel_w)
    return;
  get_overlay_options (self, &options);
  if (overlay && self->show_color_bar && ensure_range (self))
    {
      panel_background (cr, x, y, panel_w, panel_h);
      hs_figure_draw_colorbar (cr, x + 8, y + fs, bar_w, panel_h - 2 * fs, &options, &self->range,
                               self->scale_label, fs);
    }
  if ((!self->state || hs_view_state_get_show_no_attn (self->state)) &&
      isfinite (hs_attention_map_get_no_attn (self->map)))
    {
      double gw = 44, gh = MIN (160, panel_h), gx = x - gw - 8;
      panel_background (cr, gx, y, gw, gh);
      hs_figure_draw_no_attn_gauge (cr, gx + 8, y + 2 * fs, bar_w, gh - 3 * fs,
                                    hs_attention_map_get_no_attn (self->map), fs);
    }
}

static void
draw_caption (HsCanvas *self, cairo_t *cr, int vw, int vh)
{
  static const double white[3] = { 1, 1, 1 };

  if (self->caption && *self->caption)
    draw_label (cr, self->caption, 8, vh - HUD_FONT_SIZE - 14, white, HUD_FONT_SIZE + 1);
}

static void
draw_decor (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh)
{
  if (self->image == NULL)
    return;
  if (current_grid (self) && (!self->state || hs_view_state_get_show_overlay (self->state)))
    draw_outline (self, cr, t);
  draw_regions (self, cr, t);
  draw_caption (self, cr, vw, vh);
}

static void
draw_hud_layer (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh)
{
  if (self->image)
    draw_hud (self, cr, vw, vh);
}

typedef struct {
  gboolean cell;                 /* a grid cell is outlined */
  double   cx1, cy1, cx2, cy2;   /* its widget rectangle */
  double   lx, ly;               /* label origin */
  int      lw, lh;               /* label size */
} HoverGeometry;

static gboolean
hover_geometry (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh,
                HoverGeometry *g)
{
  double px, py;

  if (!self->hover.valid || self->hover_text == NULL)
    return FALSE;
  hs_canvas_transform_image_to_widget (t, self->hover.x, self->hover.y, &px, &py);
  g->cell = self->hover.row >= 0 && self->map;
  if (g->cell)
    {
      double cw = image_w (self) / hs_attention_map_get_width (self->map);
      double ch = image_h (self) / hs_attention_map_get_height (self->map);

      hs_canvas_transform_image_to_widget (t, self->hover.col * cw, self->hover.row * ch, &g->cx1, &g->cy1);
      hs_canvas_transform_image_to_widget (t, (self->hover.col + 1) * cw, (self->hover.row + 1) * ch,
                                           &g->cx2, &g->cy2);
    }
  label_size (cr, self->hover_text, HUD_FONT_SIZE, &g->lw, &g->lh);
  /* Below-right of the pointer, flipped to stay inside the view. */
  px += 14;
  py += 14;
  if (px + g->lw + 6 > vw)
    px -= g->lw + 6 + 28;
  if (py + g->lh + 2 > vh)
    py -= g->lh + 2 + 28;
  g->lx = MAX (0, px);
  g->ly = MAX (0, py);
  return TRUE;
}

static void
draw_hover (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh)
{
  static const double white[3] = { 1, 1, 1 };
  HoverGeometry g;

  if (!hover_geometry (self, cr, t, vw, vh, &g))
    return;
  /* The grid cell under the pointer. */
  if (g.cell)
    {
      cairo_save (cr);
      cairo_set_line_width (cr, 1);
      cairo_set_source_rgba (cr, 1, 1, 1, 0.8);
      cairo_rectangle (cr, round (g.cx1) + 0.5, round (g.cy1) + 0.5, round (g.cx2 - g.cx1),
                       round (g.cy2 - g.cy1));
      cairo_stroke (cr);
      cairo_restore (cr);
    }
  draw_label (cr, self->hover_text, g.lx, g.ly, white, HUD_FONT_SIZE);
}

static void
draw_background (cairo_t *cr, int vw, int vh)
{
  cairo_save (cr);
  cairo_set_source_rgb (cr, 0.14, 0.14, 0.15);
  cairo_rectangle (cr, 0, 0, vw, vh);
  cairo_fill (cr);
  cairo_restore (cr);
}

static void
draw_all (HsCanvas *self, cairo_t *cr, const HsCanvasTransform *t, int vw, int vh)
{
  ViewKey k = view_key (t, vw, vh, 1);
  cairo_surface_t *layer;
  int x, y;

  draw_background (cr, vw, vh);
  if (self->image == NULL)
    return;
  /* The same layers as on screen, painted 1:1. */
  layer = build_image_layer (self, &k, &x, &y);
  if (layer)
    {
      paint_layer (cr, layer, x, y, 1, 1.0);
      cairo_surface_destroy (layer);
    }
  layer = build_overlay_layer (self, &k, &x, &y);
  if (layer)
    {
      paint_layer (cr, layer, x, y, 1, overlay_opacity (self));
      cairo_surface_destroy (layer);
    }
  draw_decor (self, cr, t, vw, vh);
  draw_hud_layer (self, cr, t, vw, vh);
  draw_hover (self, cr, t, vw, vh);
}

/* ---- GtkWidget ------------------------------------------------------------ */

/* A texture node showing `surface` (kept alive by the texture) over the
 * logical rectangle `bounds`: uploaded once, then only composited by the
 * renderer.  Cairo's ARGB32 is GDK_MEMORY_DEFAULT (B8G8R8A8 premultiplied
 * on little-endian), which GTK 4.8 hands to GL without conversion. */
static GskRenderNode *
texture_node (cairo_surface_t *surface, const graphene_rect_t *bounds)
{
  int h = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  GBytes *bytes;
  GdkTexture *texture;
  GskRenderNode *node;

  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface), (gsize) stride * h,
                                      (GDestroyNotify) cairo_surface_destroy,
                                      cairo_surface_reference (surface));
  texture = gdk_memory_texture_new (cairo_image_surface_get_width (surface), h,
                                    GDK_MEMORY_DEFAULT, bytes, stride);
  node = gsk_texture_node_new (texture, bounds);
  g_object_unref (texture);
  g_bytes_unref (bytes);
  return node;
}

static GskRenderNode *
layer_node (cairo_surface_t *surface, int x, int y, int scale)
{
  return texture_node (surface, &GRAPHENE_RECT_INIT ((float) x / scale, (float) y / scale,
                                                     (float) cairo_image_surface_get_width (surface) / scale,
                                                     (float) cairo_image_surface_get_height (surface) / scale));
}

#define DECOR_TILE 64

/* A texture node of the device-pixel rectangle (x, y, w, h) of `surface`,
 * sharing its memory (the upload reads it with the big surface's stride). */
static GskRenderNode *
sub_texture_node (cairo_surface_t *surface, GBytes *all, int x, int y, int w, int h, int scale)
{
  int stride = cairo_image_surface_get_stride (surface);
  gsize offset = (gsize) y * stride + (gsize) x * 4;
  g_autoptr(GBytes) bytes = g_bytes_new_from_bytes (all, offset, (gsize) (h - 1) * stride + (gsize) w * 4);
  g_autoptr(GdkTexture) texture = gdk_memory_texture_new (w, h, GDK_MEMORY_DEFAULT, bytes, stride);

  return gsk_texture_node_new (texture, &GRAPHENE_RECT_INIT ((float) x / scale, (float) y / scale,
                                                             (float) w / scale, (float) h / scale));
}

/* Cairo drawing of the logical rectangle (x, y, w, h) of the view as
 * texture nodes at device resolution, one per horizontal run of 64-pixel
 * tiles holding something: a box outline or a label costs the renderer its
 * own area, not a full-view quad of transparent pixels. */
static GskRenderNode *
record_node (HsCanvas *self, int x, int y, int w, int h, int vw, int vh,
             void (*func) (HsCanvas *, cairo_t *, const HsCanvasTransform *, int, int))
{
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  cairo_surface_t *surface;
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GBytes) all = NULL;
  GskRenderNode *node;
  int sw, sh, stride, tx, ty;
  const guint8 *data;
  cairo_t *cr;

  if (w <= 0 || h <= 0)
    return NULL;
  surface = layer_surface_new (CAIRO_FORMAT_ARGB32, w * scale, h * scale);
  if (surface == NULL)
    return NULL;
  cr = cairo_create (surface);
  cairo_set_operator (cr, CAIRO_OPERATOR_CLEAR);   /* a recycled buffer */
  cairo_paint (cr);
  cairo_set_operator (cr, CAIRO_OPERATOR_OVER);
  cairo_scale (cr, scale, scale);
  cairo_translate (cr, -x, -y);
  func (self, cr, &self->t, vw, vh);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  sw = w * scale;
  sh = h * scale;
  stride = cairo_image_surface_get_stride (surface);
  data = cairo_image_surface_get_data (surface);
  all = g_bytes_new_with_free_func (data, (gsize) stride * sh, (GDestroyNotify) cairo_surface_destroy,
                                    surface);
  nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) gsk_render_node_unref);
  for (ty = 0; ty < sh; ty += DECOR_TILE)
    {
      int th = MIN (DECOR_TILE, sh - ty), run = -1;

      for (tx = 0; tx < sw + DECOR_TILE; tx += DECOR_TILE)
        {
          gboolean used = FALSE;

          for (int yy = ty; tx < sw && yy < ty + th && !used; yy++)
            {
              const guint32 *row = (const guint32 *) (const void *) (data + (gsize) yy * stride);
              for (int xx = tx; xx < MIN (tx + DECOR_TILE, sw); xx++)
                if (row[xx] != 0)
                  {
                    used = TRUE;
                    break;
                  }
            }
          if (used && run < 0)
            run = tx;
          else if (!used && run >= 0)
            {
              g_ptr_array_add (nodes, sub_texture_node (surface, all, run, ty, MIN (tx, sw) - run, th, scale));
              run = -1;
            }
        }
    }
  if (nodes->len == 0)
    return NULL;
  node = gsk_container_node_new ((GskRenderNode **) nodes->pdata, nodes->len);
  if (x != 0 || y != 0)
    {
      GskTransform *shift = gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (x, y));
      GskRenderNode *moved = gsk_transform_node_new (node, shift);
      gsk_transform_unref (shift);
      gsk_render_node_unref (node);
      node = moved;
    }
  return node;
}

static void
ensure_layer (HsCanvas *self, Layer *layer, const ViewKey *k,
              cairo_surface_t *(*build) (HsCanvas *, const ViewKey *, int *, int *))
{
  if (layer->built && view_key_equal (&layer->key, k))
    return;
  layer_clear (layer);
  layer->key = *k;
  layer->surface = build (self, k, &layer->x, &layer->y);
  layer->built = TRUE;
  layer->gen = ++self->layer_gen;
}

/* Image and overlay blended on the CPU into one texture, the overlay's
 * colours looked up from its quantised values inside the blend (SSE2,
 * 2 threads): an opacity step is this pass alone, a strength or colour step
 * adds the 64 K-entry table.  With Mesa's software GL (llvmpipe, what Xvfb
 * offers) every full-view textured quad costs ~8 ms of CPU, more than this
 * pass plus the upload, so an opacity node over a second full-view
 * texture was the slower of the two (docs/performance.md). */
static GskRenderNode *
ensure_composite (HsCanvas *self, const ViewKey *k)
{
  double opacity = overlay_opacity (self);
  gboolean with_overlay;
  cairo_surface_t *out;
  g_autoptr(GError) error = NULL;

  if (self->img.surface == NULL)
    return NULL;
  with_overlay = opacity > 0 && ensure_overlay_colours (self, k) &&
                 self->vq_x == self->img.x && self->vq_y == self->img.y &&
                 self->vq_w == cairo_image_surface_get_width (self->img.surface) &&
                 self->vq_h == cairo_image_surface_get_height (self->img.surface);
  if (self->composite_node && self->composite_img == self->img.gen &&
      self->composite_vq == (with_overlay ? self->vq_gen : 0) &&
      self->composite_lut == (with_overlay ? self->lut_gen : 0) &&
      (!with_overlay || self->composite_opacity == opacity))
    return self->composite_node;
  g_clear_pointer (&self->composite_node, gsk_render_node_unref);
  self->composite_img = self->img.gen;
  self->composite_vq = with_overlay ? self->vq_gen : 0;
  self->composite_lut = with_overlay ? self->lut_gen : 0;
  self->composite_opacity = opacity;
  if (!with_overlay)
    {
      self->composite_node = layer_node (self->img.surface, self->img.x, self->img.y, self->img.key.scale);
      return self->composite_node;
    }
  out = layer_surface_new (CAIRO_FORMAT_RGB24, self->vq_w, self->vq_h);
  if (out && hs_overlay_composite_lut_into (self->img.surface, self->lut, self->vq, (gsize) self->vq_w,
                                            opacity, out, &error))
    self->composite_node = layer_node (out, self->img.x, self->img.y, self->img.key.scale);
  else
    {
      if (error)
        g_warning ("Canvas composite: %s", error->message);
      self->composite_node = layer_node (self->img.surface, self->img.x, self->img.y, self->img.key.scale);
    }
  if (out)
    cairo_surface_destroy (out);
  return self->composite_node;
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

  k = view_key (&self->t, vw, vh, scale);
  ensure_layer (self, &self->img, &k, build_image_layer);
  append_background (self, snapshot, vw, vh);
  if (ensure_composite (self, &k))
    gtk_snapshot_append_node (snapshot, self->composite_node);

  if (self->decor_node == NULL)
    {
      self->decor_node = record_node (self, 0, 0, vw, vh, vw, vh, draw_decor);
      self->decor_overlay = show_overlay (self);
    }
  if (self->decor_node)
    gtk_snapshot_append_node (snapshot, self->decor_node);
  if (self->hud_node == NULL)
    self->hud_node = record_node (self, MAX (0, vw - HUD_AREA_W), 0, MIN (vw, HUD_AREA_W),
                                  MIN (vh, HUD_AREA_H), vw, vh, draw_hud_layer);
  if (self->hud_node)
    gtk_snapshot_append_node (snapshot, self->hud_node);

  /* Hover: uncached, in a node just covering the cell and the label. */
  if (self->hover.valid && self->hover_text)
    {
      cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
      cairo_t *measure = cairo_create (scratch);
      HoverGeometry g;

      if (hover_geometry (self, measure, &self->t, vw, vh, &g))
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
              draw_hover (self, cr, &self->t, vw, vh);
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
  double ew = image_w (self) * self->t.zoom, eh = image_h (self) * self->t.zoom;

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

static void
update_hover (HsCanvas *self)
{
  HsCanvasHover hover;

  if (self->pointer_inside)
    hs_canvas_hover_at (self, self->pointer_x, self->pointer_y, &hover);
  else if (self->hover.valid)
    {
      self->hover.valid = FALSE;
      g_clear_pointer (&self->hover_text, g_free);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_TEXT]);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
transform_changed (HsCanvas *self)
{
  double old_zoom = hs_canvas_get_zoom (self);

  clamp_transform (self);
  clear_nodes (self);
  update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (old_zoom != self->t.zoom)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  g_signal_emit (self, transform_changed_signal, 0);
}

static void
set_fit (HsCanvas *self, gboolean fit)
{
  if (self->fit == fit)
    return;
  self->fit = fit;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIT]);
}

static void
apply_fit (HsCanvas *self)
{
  double old = self->t.zoom;

  hs_canvas_transform_fit (&self->t, image_w (self), image_h (self), self->view_w, self->view_h);
  clear_nodes (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (old != self->t.zoom)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  g_signal_emit (self, transform_changed_signal, 0);
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
      transform_changed (self);
    }
  clear_nodes (self);
}

static void
hs_canvas_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                   int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  *minimum = 64;
  *natural = 480;
}

/* ---- input ------------------------------------------------------------------ */

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, HsCanvas *self)
{
  self->pointer_inside = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
  update_hover (self);
}

static void
on_leave (GtkEventControllerMotion *controller, HsCanvas *self)
{
  self->pointer_inside = FALSE;
  update_hover (self);
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

  /* Ctrl+drag or a secondary-button drag sets window/level, as in DICOM viewers. */
  self->drag_wl = (mods & GDK_CONTROL_MASK) != 0 || button == GDK_BUTTON_SECONDARY;
  self->drag_ox = self->t.offset_x;
  self->drag_oy = self->t.offset_y;
  if (self->state)
    hs_view_state_get_window_level (self->state, &self->wl_center0, &self->wl_width0);
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, HsCanvas *self)
{
  if (self->drag_wl)
    {
      /* Right widens the window, down raises the centre (darker image). */
      double width = CLAMP (self->wl_width0 * exp (dx / 300.0), 0.002, 2.0);
      double center = CLAMP (self->wl_center0 + dy / 600.0, 0.0, 1.0);
      if (self->state)
        hs_view_state_set_window_level (self->state, center, width);
      return;
    }
  set_fit (self, FALSE);
  self->t.offset_x = self->drag_ox + dx;
  self->t.offset_y = self->drag_oy + dy;
  transform_changed (self);
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
    }
  else
    {
      /* Upsampling changes the field itself (ensure_field notices) and the
       * outline; strength, scale and colours only the colours. */
      invalidate_colors (self);
      if (self->outline_valid && self->state &&
          hs_view_state_get_upsample (self->state) != self->outline_upsample)
        invalidate_outline (self);
      if (self->decor_node && self->decor_overlay != show_overlay (self))
        g_clear_pointer (&self->decor_node, gsk_render_node_unref);   /* the outline */
    }
  update_hover (self);
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
  clear_nodes (self);
  free_pyramid (self);
  invalidate_levels (self);
  invalidate_field (self);
  g_clear_pointer (&self->lut, g_free);
  g_clear_pointer (&self->outline, g_ptr_array_unref);
  g_clear_pointer (&self->image, hs_image_unref);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  g_clear_pointer (&self->mask_contours, g_ptr_array_unref);
  G_OBJECT_CLASS (hs_canvas_parent_class)->dispose (object);
}

static void
hs_canvas_finalize (GObject *object)
{
  HsCanvas *self = HS_CANVAS (object);

  g_free (self->caption);
  g_free (self->scale_label);
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
        set_fit (self, FALSE);
      break;
    case PROP_CAPTION:    hs_canvas_set_caption (self, g_value_get_string (value)); break;
    case PROP_SHOW_COLOR_BAR: hs_canvas_set_show_color_bar (self, g_value_get_boolean (value)); break;
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
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Emitted after every zoom, pan or fit (linked views in the compare view). */
  transform_changed_signal =
    g_signal_new ("transform-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

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

  gtk_widget_class_set_css_name (widget_class, "hs-canvas");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
hs_canvas_init (HsCanvas *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

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
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
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
  clear_nodes (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW_STATE]);
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
  free_pyramid (self);
  g_clear_pointer (&self->image, hs_image_unref);
  if (image)
    self->image = hs_image_ref (image);
  ensure_pyramid (self);   /* a large image's worker starts now */
  invalidate_levels (self);
  invalidate_field (self);
  clear_nodes (self);
  /* A new image of another size starts fitted; same-size images (a series)
   * keep the zoom so the user can flip through them. */
  if (!same_size)
    {
      set_fit (self, TRUE);
      apply_fit (self);
    }
  update_hover (self);
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
  clear_nodes (self);
  update_hover (self);
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
  clear_nodes (self);
  update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static HsRegion *
region_copy (const HsRegion *src)
{
  HsRegion *region = hs_region_new (src->name);

  for (guint i = 0; src->boxes && i < src->boxes->len; i++)
    {
      const HsBox *b = &g_array_index (src->boxes, HsBox, i);
      hs_region_add_box (region, b->x1, b->y1, b->x2, b->y2);
    }
  region->mask = g_strdup (src->mask);
  return region;
}

static GPtrArray *
trace_mask (HsImage *mask)
{
  guint w = hs_image_get_width (mask), h = hs_image_get_height (mask);
  guint channels = hs_image_get_channels (mask);
  guint colour = channels == 2 || channels == 4 ? channels - 1 : channels;
  const guint16 *data = hs_image_peek_data (mask);
  g_autofree guint8 *bits = g_try_malloc ((gsize) w * h);

  if (bits == NULL)
    return NULL;
  /* Any colour channel non-zero counts, alpha ignored (as HsTarget). */
  for (gsize p = 0; p < (gsize) w * h; p++)
    {
      guint8 on = 0;
      for (guint c = 0; c < colour; c++)
        on |= data[p * channels + c] != 0;
      bits[p] = on;
    }
  return hs_contour_trace_mask (bits, w, h, w, HS_CONTOUR_SIMPLIFY);
}

void
hs_canvas_set_regions (HsCanvas *self, GPtrArray *regions, GPtrArray *masks)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  g_return_if_fail (masks == NULL || regions == NULL || masks->len == regions->len);

  g_clear_pointer (&self->regions, g_ptr_array_unref);
  g_clear_pointer (&self->masks, g_ptr_array_unref);
  g_clear_pointer (&self->mask_contours, g_ptr_array_unref);
  if (regions)
    {
      self->regions = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_region_free);
      self->masks = g_ptr_array_new_with_free_func (image_unref0);
      self->mask_contours = g_ptr_array_new_with_free_func (ptr_array_unref0);
      for (guint i = 0; i < regions->len; i++)
        {
          HsImage *mask = masks ? g_ptr_array_index (masks, i) : NULL;
          g_ptr_array_add (self->regions, region_copy (g_ptr_array_index (regions, i)));
          g_ptr_array_add (self->masks, mask ? hs_image_ref (mask) : NULL);
          g_ptr_array_add (self->mask_contours, mask ? trace_mask (mask) : NULL);
        }
    }
  g_clear_pointer (&self->decor_node, gsk_render_node_unref);
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
  g_clear_pointer (&self->hud_node, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_COLOR_BAR]);
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
  g_return_if_fail (HS_IS_CANVAS (self));

  if (set_str (&self->caption, caption))
    {
      g_clear_pointer (&self->decor_node, gsk_render_node_unref);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAPTION]);
    }
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
  set_fit (self, FALSE);
  hs_canvas_transform_zoom_around (&self->t, zoom, wx, wy);
  transform_changed (self);
}

void
hs_canvas_zoom_fit (HsCanvas *self)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  set_fit (self, TRUE);
  apply_fit (self);
  update_hover (self);
}

void
hs_canvas_zoom_one (HsCanvas *self)
{
  double ix, iy;

  g_return_if_fail (HS_IS_CANVAS (self));
  set_fit (self, FALSE);
  /* 1:1 around the pointer when it is over the image, else centred. */
  if (self->pointer_inside &&
      hs_canvas_widget_to_image (self, self->pointer_x, self->pointer_y, &ix, &iy))
    {
      hs_canvas_transform_zoom_around (&self->t, 1.0, self->pointer_x, self->pointer_y);
      self->t.offset_x = round (self->t.offset_x);
      self->t.offset_y = round (self->t.offset_y);
    }
  else
    hs_canvas_transform_one_to_one (&self->t, image_w (self), image_h (self), self->view_w, self->view_h);
  transform_changed (self);
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
  set_fit (self, FALSE);
  self->t = *t;
  transform_changed (self);
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
  return self->image && x >= 0 && y >= 0 && x < image_w (self) && y < image_h (self);
}

void
hs_canvas_image_to_widget (HsCanvas *self, double ix, double iy, double *wx, double *wy)
{
  g_return_if_fail (HS_IS_CANVAS (self));
  hs_canvas_transform_image_to_widget (&self->t, ix, iy, wx, wy);
}

void
hs_canvas_hover_at (HsCanvas *self, double wx, double wy, HsCanvasHover *out)
{
  HsCanvasHover hover = { FALSE, 0, 0, -1, -1, NAN };
  g_autofree char *text = NULL;
  const double *grid;

  g_return_if_fail (HS_IS_CANVAS (self));

  hover.valid = hs_canvas_widget_to_image (self, wx, wy, &hover.x, &hover.y);
  grid = current_grid (self);
  if (hover.valid && grid)
    {
      guint W = (guint) image_w (self), H = (guint) image_h (self);
      guint gw = hs_attention_map_get_width (self->map), gh = hs_attention_map_get_height (self->map);
      guint px = MIN ((guint) hover.x, W - 1), py = MIN ((guint) hover.y, H - 1);
      float v = 0;
      HsUpsample mode = self->state ? hs_view_state_get_upsample (self->state) : HS_UPSAMPLE_BILINEAR;

      /* The cell is the one nearest upsampling would show (metrics.md rule). */
      hover.col = MIN ((guint) floor ((px + 0.5) * gw / W), gw - 1);
      hover.row = MIN ((guint) floor ((py + 0.5) * gh / H), gh - 1);
      hs_resample_region (grid, gw, gh, W, H, px, py, 1, 1, &v, mode);
      hover.value = v;
      /* TRANSLATORS: hover read-out: image x, y · grid row, column · attention value */
      text = g_strdup_printf (_("x %u, y %u · cell %d, %d · %.4g"), px, py, hover.row, hover.col, hover.value);
    }
  else if (hover.valid)
    text = g_strdup_printf (_("x %u, y %u"), (guint) hover.x, (guint) hover.y);

  if (out)
    *out = hover;
  self->hover = hover;
  if (set_str (&self->hover_text, text))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_TEXT]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
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

cairo_surface_t *
hs_canvas_render_surface (HsCanvas *self, int width, int height)
{
  cairo_surface_t *surface;
  HsCanvasTransform saved;
  int saved_w, saved_h;
  cairo_t *cr;

  g_return_val_if_fail (HS_IS_CANVAS (self), NULL);

  if (width <= 0 || height <= 0)
    {
      width = MAX (1, self->view_w);
      height = MAX (1, self->view_h);
    }
  saved = self->t;
  saved_w = self->view_w;
  saved_h = self->view_h;
  if (width != self->view_w || height != self->view_h)
    {
      self->view_w = width;
      self->view_h = height;
      if (self->fit || saved_w <= 0)
        hs_canvas_transform_fit (&self->t, image_w (self), image_h (self), width, height);
    }
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  draw_all (self, cr, &self->t, width, height);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  if (saved_w != self->view_w || saved_h != self->view_h)
    {
      self->t = saved;
      self->view_w = saved_w;
      self->view_h = saved_h;
      /* The field and outline were made for the other size. */
      g_clear_pointer (&self->field, hs_overlay_field_unref);
      g_clear_pointer (&self->vq, g_free);
      clear_nodes (self);
    }
  return surface;
}

gboolean
hs_canvas_export (HsCanvas *self, const char *path, GError **error)
{
  HsFigureView view;
  HsFigureFormat format;
  g_autoptr(GArray) boxes = NULL;
  g_autoptr(GArray) masks = NULL;
  double x0, y0, x1, y1;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (HS_IS_CANVAS (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->image == NULL)
    {
      g_set_error (error, HS_CANVAS_ERROR, HS_CANVAS_ERROR_EMPTY,
                   _("Cannot export %s: no image is shown"), path);
      return FALSE;
    }
  if (!hs_figure_format_from_path (path, &format, &local))
    {
      g_set_error (error, HS_CANVAS_ERROR, HS_CANVAS_ERROR_FORMAT, "%s", local->message);
      return FALSE;
    }

  hs_figure_view_init (&view);
  view.image = self->image;
  get_window_level (self, &view.window_center, &view.window_width);
  get_overlay_options (self, &view.overlay);
  view.map = current_grid (self);
  if (view.map)
    {
      view.map_width = hs_attention_map_get_width (self->map);
      view.map_height = hs_attention_map_get_height (self->map);
      if (ensure_range (self))
        view.range = &self->range;
      view.no_attn = (!self->state || hs_view_state_get_show_no_attn (self->state))
                     ? hs_attention_map_get_no_attn (self->map) : NAN;
    }

  boxes = g_array_new (FALSE, TRUE, sizeof (HsFigureBox));
  masks = g_array_new (FALSE, TRUE, sizeof (HsFigureMask));
  for (guint i = 0; self->regions && i < self->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (self->regions, i);
      HsImage *mask = g_ptr_array_index (self->masks, i);

      for (guint b = 0; region->boxes && b < region->boxes->len; b++)
        {
          const HsBox *box = &g_array_index (region->boxes, HsBox, b);
          HsFigureBox fb = { b == 0 ? region->name : NULL, box->x1, box->y1, box->x2, box->y2 };
          g_array_append_val (boxes, fb);
        }
      if (mask)
        {
          HsFigureMask fm = { region->name, mask };
          g_array_append_val (masks, fm);
        }
    }
  view.boxes = (const HsFigureBox *) boxes->data;
  view.n_boxes = boxes->len;
  view.masks = (const HsFigureMask *) masks->data;
  view.n_masks = masks->len;
  if (self->state)
    {
      view.outline = hs_view_state_get_outline (self->state);
      view.outline_k = hs_view_state_get_outline_top_k (self->state);
      view.show_overlay = hs_view_state_get_show_overlay (self->state);
      view.show_boxes = hs_view_state_get_show_boxes (self->state);
      view.show_masks = hs_view_state_get_show_masks (self->state);
    }
  view.prompt = self->caption;

  /* The part of the image in view, at the zoom on screen. */
  if (self->view_w > 0 && self->view_h > 0)
    {
      hs_canvas_transform_widget_to_image (&self->t, 0, 0, &x0, &y0);
      hs_canvas_transform_widget_to_image (&self->t, self->view_w, self->view_h, &x1, &y1);
      x0 = MAX (0, x0);
      y0 = MAX (0, y0);
      x1 = MIN (image_w (self), x1);
      y1 = MIN (image_h (self), y1);
      if (x1 > x0 && y1 > y0)
        {
          view.view_x = x0;
          view.view_y = y0;
          view.view_w = x1 - x0;
          view.view_h = y1 - y0;
          view.zoom = self->t.zoom;
        }
    }
  view.font_size = HUD_FONT_SIZE;

  return hs_figure_save (&view, format, path, error);
}

gboolean
hs_app_collect_targets (HsDataset *dataset, const HsInstance *instance, const HsSentence *sentence,
                        GPtrArray **regions, GPtrArray **masks, GError **error)
{
  g_autoptr(GPtrArray) r = NULL;
  g_autoptr(GPtrArray) m = NULL;

  g_return_val_if_fail (dataset != NULL && instance != NULL, FALSE);
  g_return_val_if_fail (regions != NULL && masks != NULL, FALSE);

  r = g_ptr_array_new ();
  m = g_ptr_array_new_with_free_func (image_unref0);
  for (guint i = 0; sentence && sentence->targets && sentence->targets[i]; i++)
    {
      HsRegion *region = hs_instance_find_region (instance, sentence->targets[i]);
      HsImage *mask = NULL;

      if (region == NULL)
        continue;
      if (region->mask)
        {
          mask = hs_dataset_load_mask (dataset, region, error);
          if (mask == NULL)
            return FALSE;
        }
      g_ptr_array_add (r, region);
      g_ptr_array_add (m, mask);
    }
  *regions = g_steal_pointer (&r);
  *masks = g_steal_pointer (&m);
  return TRUE;
}
