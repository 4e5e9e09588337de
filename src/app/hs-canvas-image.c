/* hs-canvas-image.c — the canvas's image layer
 *
 * Window/level applied to the visible pixels only, sampled from a 2×
 * pyramid of the raw samples (built off the main thread for large images):
 * a pan, zoom or window/level change costs the viewport, never the whole
 * image.
 */
#include <math.h>

#include <heatscope/hs-parallel.h>

#include "hs-canvas-private.h"
#include "hs-render-node.h"

void
_hs_canvas_free_pyramid (HsCanvas *self)
{
  if (self->pyr_cancel)
    {
      g_cancellable_cancel (self->pyr_cancel);
      g_clear_object (&self->pyr_cancel);
      _hs_canvas_notify (self, PROP_BUSY);
    }
  for (guint i = 1; i < MAX_MIP_LEVELS; i++)
    g_clear_pointer (&self->pyr[i], g_free);
  self->pyr[0] = NULL;
  self->n_levels = 0;
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
    _hs_canvas_notify (self, PROP_BUSY);
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
  _hs_canvas_layer_clear (&self->img);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Level 0 is the image itself, at once; the smaller levels come from a
 * worker thread for a large image (until then the view samples level 0). */
void
_hs_canvas_ensure_pyramid (HsCanvas *self)
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

      g_task_set_source_tag (task, _hs_canvas_ensure_pyramid);
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
  _hs_canvas_get_window_level (self, &c, &w);
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

/* Device pixels whose centres fall on the image: [x0, x1) × [y0, y1). */
gboolean
_hs_canvas_visible_device_rect (HsCanvas *self, const ViewKey *k, int *x0, int *y0, int *x1, int *y1)
{
  double z = k->zoom * k->scale, ox = k->offset_x * k->scale, oy = k->offset_y * k->scale;

  *x0 = (int) CLAMP (ceil (ox - 0.5), 0, k->vw * k->scale);
  *y0 = (int) CLAMP (ceil (oy - 0.5), 0, k->vh * k->scale);
  *x1 = (int) CLAMP (ceil (ox + _hs_canvas_image_w (self) * z - 0.5), 0, k->vw * k->scale);
  *y1 = (int) CLAMP (ceil (oy + _hs_canvas_image_h (self) * z - 0.5), 0, k->vh * k->scale);
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

cairo_surface_t *
_hs_canvas_build_image_layer (HsCanvas *self, const ViewKey *k, int *ox, int *oy)
{
  int x0, y0, x1, y1;
  double z = k->zoom * k->scale;
  guint level = 0, w, h, ch;
  gboolean nearest = z >= 1.0;
  g_autofree guint *cols = NULL;
  g_autofree guint *rows = NULL;
  cairo_surface_t *surface;
  ImageJob job;

  if (self->image == NULL || !_hs_canvas_visible_device_rect (self, k, &x0, &y0, &x1, &y1))
    return NULL;
  _hs_canvas_ensure_pyramid (self);
  /* Strong minification through the 2× pyramid: cheap and without aliasing. */
  while (!nearest && level + 1 < self->n_levels && z * (1 << (level + 1)) <= 1.0)
    level++;
  w = (guint) (x1 - x0);
  h = (guint) (y1 - y0);
  ch = hs_image_get_channels (self->image);
  surface = hs_render_surface_new (CAIRO_FORMAT_RGB24, (int) w, (int) h);
  if (surface == NULL)
    return NULL;
  cols = g_new (guint, 3 * (gsize) w);
  rows = g_new (guint, 3 * (gsize) h);
  sample_axis (w, x0, k->offset_x * k->scale, z, _hs_canvas_image_w (self), self->pyr_w[level], ch, nearest,
               cols, cols + w, cols + 2 * w);
  sample_axis (h, y0, k->offset_y * k->scale, z, _hs_canvas_image_h (self), self->pyr_h[level], 1, nearest,
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
