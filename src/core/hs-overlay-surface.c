/* hs-overlay-surface.c — the overlay on cairo image surfaces: a field
 * colourised into one, an overlay composited over a levelled image
 *
 * The drawing half of hs-overlay.c, kept apart so that the programs that do
 * not draw link the scales and colour tables without cairo
 * (src/cli/hs-cli-draw.c). */
#include "hs-overlay.h"
#include "hs-overlay-private.h"
#include "hs-parallel.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static gboolean
check_surface (cairo_surface_t *surface, guint w, guint h, gboolean want_argb,
               const char *what, GError **error)
{
  cairo_format_t format;

  if (surface == NULL || cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS
      || cairo_surface_get_type (surface) != CAIRO_SURFACE_TYPE_IMAGE)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("%s is not a valid image surface"), what);
      return FALSE;
    }
  format = cairo_image_surface_get_format (surface);
  if ((want_argb && format != CAIRO_FORMAT_ARGB32)
      || (!want_argb && format != CAIRO_FORMAT_ARGB32 && format != CAIRO_FORMAT_RGB24))
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("%s has an unsupported pixel format (%d)"), what, (int) format);
      return FALSE;
    }
  if ((guint) cairo_image_surface_get_width (surface) != w
      || (guint) cairo_image_surface_get_height (surface) != h)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("%s is %d × %d, expected %u × %u"), what,
                   cairo_image_surface_get_width (surface),
                   cairo_image_surface_get_height (surface), w, h);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_overlay_field_colorize_into (const HsOverlayField *field, const HsScaleRange *range,
                                const HsOverlayOptions *options, cairo_surface_t *target,
                                GError **error)
{
  /* One table per calling thread, reused: a fresh 256 KiB allocation would
   * cost page faults on every slider step. */
  static GPrivate tables_key = G_PRIVATE_INIT (g_free);
  guint32 *lut;

  g_return_val_if_fail (field != NULL, FALSE);
  g_return_val_if_fail (range != NULL, FALSE);
  g_return_val_if_fail (options != NULL, FALSE);

  if (!check_surface (target, hs_overlay_field_get_width (field), hs_overlay_field_get_height (field), TRUE, "the overlay target", error))
    return FALSE;
  lut = g_private_get (&tables_key);
  if (lut == NULL)
    {
      lut = g_new (guint32, HS_OVERLAY_Q_LEVELS);
      g_private_set (&tables_key, lut);
    }
  if (!hs_overlay_field_build_lut (field, range, options, lut, error))
    return FALSE;

  cairo_surface_flush (target);
  hs_overlay_apply_lut (lut, hs_overlay_field_peek_quantised (field),
                        hs_overlay_field_get_width (field), hs_overlay_field_get_width (field),
                        hs_overlay_field_get_height (field),
                        cairo_image_surface_get_data (target),
                        (gsize) cairo_image_surface_get_stride (target));
  cairo_surface_mark_dirty (target);
  return TRUE;
}

static cairo_surface_t *
new_image_surface (cairo_format_t format, guint w, guint h, GError **error)
{
  cairo_surface_t *surface = cairo_image_surface_create (format, (int) w, (int) h);

  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_TOO_LARGE,
                   _("cannot allocate a %u × %u surface: %s"), w, h,
                   cairo_status_to_string (cairo_surface_status (surface)));
      cairo_surface_destroy (surface);
      return NULL;
    }
  return surface;
}

cairo_surface_t *
hs_overlay_field_colorize (const HsOverlayField *field, const HsScaleRange *range,
                           const HsOverlayOptions *options, GError **error)
{
  cairo_surface_t *surface;

  g_return_val_if_fail (field != NULL, NULL);

  surface = new_image_surface (CAIRO_FORMAT_ARGB32, hs_overlay_field_get_width (field), hs_overlay_field_get_height (field), error);
  if (surface == NULL)
    return NULL;
  if (!hs_overlay_field_colorize_into (field, range, options, surface, error))
    g_clear_pointer (&surface, cairo_surface_destroy);
  return surface;
}

cairo_surface_t *
hs_overlay_colorize (const double *grid, guint w, guint h,
                     const HsOverlayOptions *options, const HsScaleRange *range,
                     guint out_w, guint out_h, GError **error)
{
  g_autoptr(HsOverlayField) field = NULL;
  HsScaleRange resolved;

  g_return_val_if_fail (grid != NULL, NULL);
  g_return_val_if_fail (options != NULL, NULL);

  if (range == NULL)
    {
      if (!hs_scale_resolve (&options->scale, grid, (gsize) w * h, &resolved, error))
        return NULL;
      range = &resolved;
    }
  field = hs_overlay_field_new (grid, w, h, out_w, out_h, options->upsample, error);
  if (field == NULL)
    return NULL;
  return hs_overlay_field_colorize (field, range, options, error);
}

/* ---- composite ---------------------------------------------------------- */

/* In 8 bits with m = round(255·opacity), per channel (c premultiplied):
 *   c' = c·m/255, α' = α·m/255, out = c' + b·(255 − α')/255,
 * each division rounded — the same arithmetic as pixman's OVER with a
 * constant mask, so it agrees with cairo's paint_with_alpha within 1. */
typedef struct {
  const guint8 *src; int src_stride;
  const guint8 *ovl; int ovl_stride;
  const guint16 *q; gsize q_stride;   /* instead of ovl: overlay pixel = lut[q] */
  const guint32 *lut;
  guint8 *dst; int dst_stride;
  guint width;
  guint m;
} CompositeJob;

static inline guint
div255 (guint x)
{
  x += 128;
  return (x + (x >> 8)) >> 8;
}

static inline guint32
composite_pixel (guint32 b, guint32 o, guint m)
{
  guint a = div255 ((o >> 24) * m), k = 255 - a;
  guint r = div255 ((o >> 16 & 0xff) * m) + div255 ((b >> 16 & 0xff) * k);
  guint g = div255 ((o >> 8 & 0xff) * m) + div255 ((b >> 8 & 0xff) * k);
  guint bl = div255 ((o & 0xff) * m) + div255 ((b & 0xff) * k);

  return 0xff000000u | (MIN (r, 255u) << 16) | (MIN (g, 255u) << 8) | MIN (bl, 255u);
}

#if defined(__SSE2__)
static inline __m128i
div255_epi16 (__m128i x)
{
  x = _mm_add_epi16 (x, _mm_set1_epi16 (128));
  return _mm_srli_epi16 (_mm_add_epi16 (x, _mm_srli_epi16 (x, 8)), 8);
}

static inline __m128i
composite_half (__m128i b16, __m128i o16, __m128i m16)
{
  __m128i om = div255_epi16 (_mm_mullo_epi16 (o16, m16));
  __m128i a = _mm_shufflehi_epi16 (_mm_shufflelo_epi16 (om, _MM_SHUFFLE (3, 3, 3, 3)),
                                   _MM_SHUFFLE (3, 3, 3, 3));
  __m128i k = _mm_sub_epi16 (_mm_set1_epi16 (255), a);

  return _mm_add_epi16 (om, div255_epi16 (_mm_mullo_epi16 (b16, k)));
}
#endif

/* One row of hs_overlay_composite_lut_into: the overlay pixel looked up
 * from its quantised value on the fly (no overlay surface in between). */
static void
composite_lut_row (const guint32 *src, const guint16 *q, const guint32 *lut, guint32 *dst,
                   guint width, guint m)
{
  guint x = 0;

#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128 ();
  const __m128i m16 = _mm_set1_epi16 ((short) m);
  const __m128i opaque = _mm_set1_epi32 ((int) 0xff000000u);

  for (; x + 4 <= width; x += 4)
    {
      __m128i b = _mm_loadu_si128 ((const __m128i *) (const void *) (src + x));
      __m128i o = _mm_setr_epi32 ((int) lut[q[x]], (int) lut[q[x + 1]], (int) lut[q[x + 2]],
                                  (int) lut[q[x + 3]]);
      __m128i r;

      if (_mm_movemask_epi8 (_mm_cmpeq_epi32 (o, zero)) == 0xffff)
        r = _mm_or_si128 (b, opaque);
      else
        {
          __m128i lo = composite_half (_mm_unpacklo_epi8 (b, zero), _mm_unpacklo_epi8 (o, zero), m16);
          __m128i hi = composite_half (_mm_unpackhi_epi8 (b, zero), _mm_unpackhi_epi8 (o, zero), m16);
          r = _mm_or_si128 (_mm_packus_epi16 (lo, hi), opaque);
        }
      _mm_storeu_si128 ((__m128i *) (void *) (dst + x), r);
    }
#endif
  for (; x < width; x++)
    dst[x] = composite_pixel (src[x], lut[q[x]], m);
}

static void
composite_rows (gpointer data, guint begin, guint end)
{
  CompositeJob *job = data;
  guint m = job->m;

  for (guint y = begin; y < end; y++)
    {
      const guint32 *src = (const guint32 *) (const void *) (job->src + (gsize) y * job->src_stride);
      guint32 *dst = (guint32 *) (void *) (job->dst + (gsize) y * job->dst_stride);
      const guint32 *ovl;
      guint x = 0;

      if (job->q != NULL)
        {
          composite_lut_row (src, job->q + (gsize) y * job->q_stride, job->lut, dst, job->width, m);
          continue;
        }
      if (job->ovl == NULL)
        {
          for (; x < job->width; x++)
            dst[x] = src[x] | 0xff000000u;
          continue;
        }
      ovl = (const guint32 *) (const void *) (job->ovl + (gsize) y * job->ovl_stride);
#if defined(__SSE2__)
      {
        const __m128i zero = _mm_setzero_si128 ();
        const __m128i m16 = _mm_set1_epi16 ((short) m);
        const __m128i opaque = _mm_set1_epi32 ((int) 0xff000000u);

        /* streaming stores when the target is a separate surface */
        gboolean stream = (const void *) dst != (const void *) src;

        for (; x < job->width && ((guintptr) (dst + x) & 15) != 0; x++)
          dst[x] = composite_pixel (src[x], ovl[x], m);
        for (; x + 4 <= job->width; x += 4)
          {
            __m128i b = _mm_loadu_si128 ((const __m128i *) (const void *) (src + x));
            __m128i o = _mm_loadu_si128 ((const __m128i *) (const void *) (ovl + x));
            __m128i r;

            if (_mm_movemask_epi8 (_mm_cmpeq_epi32 (o, zero)) == 0xffff)
              r = _mm_or_si128 (b, opaque);   /* transparent overlay (threshold) */
            else
              {
                __m128i lo = composite_half (_mm_unpacklo_epi8 (b, zero), _mm_unpacklo_epi8 (o, zero), m16);
                __m128i hi = composite_half (_mm_unpackhi_epi8 (b, zero), _mm_unpackhi_epi8 (o, zero), m16);
                r = _mm_or_si128 (_mm_packus_epi16 (lo, hi), opaque);
              }

            if (stream)
              _mm_stream_si128 ((__m128i *) (void *) (dst + x), r);
            else
              _mm_store_si128 ((__m128i *) (void *) (dst + x), r);
          }
      }
#endif
      for (; x < job->width; x++)
        dst[x] = composite_pixel (src[x], ovl[x], m);
    }
#if defined(__SSE2__)
  _mm_sfence ();
#endif
}

/* A NaN opacity draws no overlay; others are clamped to [0, 1]. */
static double
composite_opacity (double opacity)
{
  return isfinite (opacity) ? CLAMP (opacity, 0.0, 1.0) : 0.0;
}

/* Blends job's overlay source (set by the caller) over image into target;
 * the surfaces have been checked. */
static void
composite_run (cairo_surface_t *image, cairo_surface_t *target, double opacity,
               CompositeJob *job)
{
  guint w = (guint) cairo_image_surface_get_width (image);
  guint h = (guint) cairo_image_surface_get_height (image);

  cairo_surface_flush (image);
  cairo_surface_flush (target);
  job->src = cairo_image_surface_get_data (image);
  job->src_stride = cairo_image_surface_get_stride (image);
  job->dst = cairo_image_surface_get_data (target);
  job->dst_stride = cairo_image_surface_get_stride (target);
  job->width = w;
  job->m = (guint) lround (opacity * 255.0);
  hs_parallel_rows (h, (guint64) w * h, HS_OVERLAY_PARALLEL_MIN_PIXELS, composite_rows, job);
  cairo_surface_mark_dirty (target);
}

/* The size of the image composited over, once it passes check_surface. */
static gboolean
check_image (cairo_surface_t *image, guint *w, guint *h, GError **error)
{
  if (!check_surface (image, cairo_image_surface_get_width (image),
                      cairo_image_surface_get_height (image), FALSE, "the image", error))
    return FALSE;
  *w = (guint) cairo_image_surface_get_width (image);
  *h = (guint) cairo_image_surface_get_height (image);
  return TRUE;
}

gboolean
hs_overlay_composite_into (cairo_surface_t *image, cairo_surface_t *overlay,
                           double opacity, cairo_surface_t *target, GError **error)
{
  CompositeJob job = { 0 };
  guint w, h;

  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (target != NULL, FALSE);

  if (!check_image (image, &w, &h, error))
    return FALSE;
  if (overlay != NULL && !check_surface (overlay, w, h, TRUE, "the overlay", error))
    return FALSE;
  if (!check_surface (target, w, h, FALSE, "the composite target", error))
    return FALSE;
  opacity = composite_opacity (opacity);

  if (overlay)
    cairo_surface_flush (overlay);
  job.ovl = overlay && opacity > 0 ? cairo_image_surface_get_data (overlay) : NULL;
  job.ovl_stride = overlay ? cairo_image_surface_get_stride (overlay) : 0;
  composite_run (image, target, opacity, &job);
  return TRUE;
}

gboolean
hs_overlay_composite_lut_into (cairo_surface_t *image, const guint32 *lut, const guint16 *q,
                               gsize q_stride, double opacity, cairo_surface_t *target,
                               GError **error)
{
  CompositeJob job = { 0 };
  guint w, h;

  g_return_val_if_fail (image != NULL, FALSE);
  g_return_val_if_fail (lut != NULL && q != NULL, FALSE);
  g_return_val_if_fail (target != NULL, FALSE);

  if (!check_image (image, &w, &h, error))
    return FALSE;
  if (q_stride < w)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("quantised rows of %zu values are shorter than the %u-pixel image"),
                   q_stride, w);
      return FALSE;
    }
  if (!check_surface (target, w, h, FALSE, "the composite target", error))
    return FALSE;
  opacity = composite_opacity (opacity);

  job.q = opacity > 0 ? q : NULL;
  job.q_stride = q_stride;
  job.lut = lut;
  composite_run (image, target, opacity, &job);
  return TRUE;
}

cairo_surface_t *
hs_overlay_composite (cairo_surface_t *image, cairo_surface_t *overlay,
                      double opacity, GError **error)
{
  cairo_surface_t *out;

  g_return_val_if_fail (image != NULL, NULL);

  if (cairo_surface_status (image) != CAIRO_STATUS_SUCCESS
      || cairo_surface_get_type (image) != CAIRO_SURFACE_TYPE_IMAGE)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("the image is not a valid image surface"));
      return NULL;
    }
  out = new_image_surface (CAIRO_FORMAT_RGB24, (guint) cairo_image_surface_get_width (image),
                           (guint) cairo_image_surface_get_height (image), error);
  if (out == NULL)
    return NULL;
  if (!hs_overlay_composite_into (image, overlay, opacity, out, error))
    g_clear_pointer (&out, cairo_surface_destroy);
  return out;
}
