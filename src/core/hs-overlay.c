/* hs-overlay.c — attention map → coloured overlay: value scaling, colour
 * tables, the quantised field (on cairo surfaces: hs-overlay-surface.c) */
#include "hs-overlay.h"
#include "hs-limits.h"
#include "hs-parallel.h"
#include "hs-text.h"
#include "hs-i18n-private.h"
#include "hs-order-private.h"
#include "hs-overlay-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

G_DEFINE_QUARK (hs-overlay-error-quark, hs_overlay_error)

/* Resolution of the strength/threshold table indexed by the scaled value. */
#define S_LEVELS 4096
#define Q_LEVELS 65536

/* ---- value scaling ------------------------------------------------------ */

static const char * const scale_names[] = { "minmax", "fixed", "shared", "percentile" };

const char *
hs_scale_mode_to_string (HsScaleMode mode)
{
  g_return_val_if_fail ((guint) mode < G_N_ELEMENTS (scale_names), NULL);
  return scale_names[mode];
}

gboolean
hs_scale_mode_from_string (const char *name, HsScaleMode *mode)
{
  g_return_val_if_fail (mode != NULL, FALSE);
  if (name == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (scale_names); i++)
    if (g_ascii_strcasecmp (name, scale_names[i]) == 0)
      {
        *mode = (HsScaleMode) i;
        return TRUE;
      }
  if (g_ascii_strcasecmp (name, "min-max") == 0)
    {
      *mode = HS_SCALE_MINMAX;
      return TRUE;
    }
  return FALSE;
}

void
hs_scale_spec_init (HsScaleSpec *spec)
{
  g_return_if_fail (spec != NULL);
  *spec = (HsScaleSpec) { .mode = HS_SCALE_MINMAX, .lo = 0, .hi = 1, .p_lo = 1, .p_hi = 99 };
}

gboolean
hs_scale_spec_parse (const char *text, HsScaleSpec *spec, GError **error)
{
  g_auto(GStrv) parts = NULL;
  HsScaleSpec parsed;
  guint n;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (spec != NULL, FALSE);

  hs_scale_spec_init (&parsed);
  parts = g_strsplit (text, ":", -1);
  n = g_strv_length (parts);
  if (n == 0 || !hs_scale_mode_from_string (parts[0], &parsed.mode))
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("unknown scale mode '%s' (expected minmax, fixed:LO:HI, "
                   "percentile:P1:P2 or shared:LO:HI)"), text);
      return FALSE;
    }
  if (parsed.mode == HS_SCALE_MINMAX)
    {
      if (n != 1)
        {
          g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                       _("scale 'minmax' takes no range: '%s'"), text);
          return FALSE;
        }
    }
  else
    {
      double a, b;

      if (n != 3 || !hs_text_parse_number (parts[1], &a) || !hs_text_parse_number (parts[2], &b))
        {
          g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                       _("scale '%s' needs two numbers, as %s:LO:HI"), text, parts[0]);
          return FALSE;
        }
      if (parsed.mode == HS_SCALE_PERCENTILE)
        {
          if (!(a >= 0 && b <= 100 && a < b))
            {
              g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                           _("percentiles in '%s' must satisfy 0 ≤ P1 < P2 ≤ 100"), text);
              return FALSE;
            }
          parsed.p_lo = a;
          parsed.p_hi = b;
        }
      else
        {
          if (!(a < b))
            {
              g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                           _("range in '%s' must have LO < HI"), text);
              return FALSE;
            }
          parsed.lo = a;
          parsed.hi = b;
        }
    }
  *spec = parsed;
  return TRUE;
}

static gboolean
check_finite (const double *values, gsize n, GError **error)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (values[i]))
      {
        g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                     _("map value %zu is not finite (%g)"), i, values[i]);
        return FALSE;
      }
  return TRUE;
}

/* The smallest and largest of n > 0 values; FALSE when one is not finite. */
static gboolean
finite_range (const double *values, gsize n, double *lo, double *hi, GError **error)
{
  if (!check_finite (values, n, error))
    return FALSE;
  *lo = *hi = values[0];
  for (gsize i = 1; i < n; i++)
    {
      *lo = MIN (*lo, values[i]);
      *hi = MAX (*hi, values[i]);
    }
  return TRUE;
}

gboolean
hs_scale_resolve (const HsScaleSpec *spec, const double *values, gsize n,
                  HsScaleRange *range, GError **error)
{
  double lo = 0, hi = 0;

  g_return_val_if_fail (spec != NULL, FALSE);
  g_return_val_if_fail (range != NULL, FALSE);
  g_return_val_if_fail (values != NULL || n == 0, FALSE);

  switch (spec->mode)
    {
    case HS_SCALE_FIXED:
    case HS_SCALE_SHARED:
      if (!isfinite (spec->lo) || !isfinite (spec->hi) || spec->hi < spec->lo)
        {
          g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                       _("%s scale range [%g, %g] is not a valid range"),
                       hs_scale_mode_to_string (spec->mode), spec->lo, spec->hi);
          return FALSE;
        }
      lo = spec->lo;
      hi = spec->hi;
      break;

    case HS_SCALE_MINMAX:
      if (n == 0)
        goto empty;
      if (!finite_range (values, n, &lo, &hi, error))
        return FALSE;
      break;

    case HS_SCALE_PERCENTILE:
      {
        g_autofree double *sorted = NULL;

        if (n == 0)
          goto empty;
        if (!(spec->p_lo >= 0 && spec->p_hi <= 100 && spec->p_lo <= spec->p_hi))
          {
            g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                         _("percentiles %g–%g are not within 0–100 in order"),
                         spec->p_lo, spec->p_hi);
            return FALSE;
          }
        if (!check_finite (values, n, error))
          return FALSE;
        sorted = g_memdup2 (values, n * sizeof (double));
        qsort (sorted, n, sizeof (double), hs_compare_doubles);
        lo = hs_percentile_sorted (sorted, n, spec->p_lo);
        hi = hs_percentile_sorted (sorted, n, spec->p_hi);
      }
      break;

    default:
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("unknown scale mode %d"), (int) spec->mode);
      return FALSE;
    }

  if (spec->symmetric)
    {
      double m = MAX (fabs (lo), fabs (hi));
      lo = -m;
      hi = m;
    }
  range->lo = lo;
  range->hi = hi;
  return TRUE;

empty:
  g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID, _("the map has no values"));
  return FALSE;
}

gboolean
hs_scale_shared_range (const double * const *maps, const gsize *n_values, guint n_maps,
                       double *lo, double *hi, GError **error)
{
  gboolean any = FALSE;
  double l = 0, h = 0;

  g_return_val_if_fail (maps != NULL || n_maps == 0, FALSE);
  g_return_val_if_fail (n_values != NULL || n_maps == 0, FALSE);
  g_return_val_if_fail (lo != NULL && hi != NULL, FALSE);

  for (guint m = 0; m < n_maps; m++)
    {
      if (!check_finite (maps[m], n_values[m], error))
        {
          g_prefix_error (error, _("map %u: "), m);
          return FALSE;
        }
      for (gsize i = 0; i < n_values[m]; i++)
        {
          double v = maps[m][i];
          if (!any)
            {
              l = h = v;
              any = TRUE;
            }
          l = MIN (l, v);
          h = MAX (h, v);
        }
    }
  if (!any)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("no values to share a scale over"));
      return FALSE;
    }
  *lo = l;
  *hi = h;
  return TRUE;
}

static void
format_number (char buf[G_ASCII_DTOSTR_BUF_SIZE], double v)
{
  if (v == 0)
    v = 0;   /* no "-0" */
  g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.3g", v);
}

char *
hs_scale_describe (const HsScaleSpec *spec, const HsScaleRange *range)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  const char *sym;

  g_return_val_if_fail (spec != NULL, NULL);

  sym = spec->symmetric ? " (±)" : "";
  switch (spec->mode)
    {
    case HS_SCALE_PERCENTILE:
      format_number (a, spec->p_lo);
      format_number (b, spec->p_hi);
      /* TRANSLATORS: the colour bar's scale label, e.g. "percentile 1 to 99 %"; the
       * range is written with words, a dash between numbers reads as a minus sign */
      return g_strdup_printf (_("percentile %s to %s %%%s"), a, b, sym);
    case HS_SCALE_MINMAX:
    case HS_SCALE_FIXED:
    case HS_SCALE_SHARED:
    default:
      {
        double lo = range ? range->lo : spec->lo;
        double hi = range ? range->hi : spec->hi;
        format_number (a, lo);
        format_number (b, hi);
        /* TRANSLATORS: the colour bar's scale label: mode and range, e.g. "min–max 0 to 1";
         * the range is written with words, a dash between numbers reads as a minus sign */
        return g_strdup_printf (spec->mode == HS_SCALE_MINMAX ? _("min–max %s to %s%s")
                                : spec->mode == HS_SCALE_SHARED ? _("shared %s to %s%s")
                                : _("fixed %s to %s%s"), a, b, sym);
      }
    }
}

double
hs_scale_apply (const HsScaleRange *range, double v)
{
  double s;

  g_return_val_if_fail (range != NULL, 0);
  if (isnan (v))
    return 0;
  if (!(range->hi > range->lo))
    return v > range->hi ? 1 : 0;
  /* Halved first (exact): hi − lo of a range near ±DBL_MAX overflows to
   * Inf, and every value would then draw as the range's bottom. */
  s = (v * 0.5 - range->lo * 0.5) / (range->hi * 0.5 - range->lo * 0.5);
  return CLAMP (s, 0.0, 1.0);
}

/* ---- strength curves ---------------------------------------------------- */

const char *
hs_strength_to_string (HsStrength curve)
{
  switch (curve)
    {
    case HS_STRENGTH_GAMMA: return "gamma";
    case HS_STRENGTH_LOG:   return "log";
    default:                return NULL;
    }
}

gboolean
hs_strength_from_string (const char *name, HsStrength *curve)
{
  g_return_val_if_fail (curve != NULL, FALSE);
  if (name == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (name, "gamma") == 0)
    *curve = HS_STRENGTH_GAMMA;
  else if (g_ascii_strcasecmp (name, "log") == 0)
    *curve = HS_STRENGTH_LOG;
  else
    return FALSE;
  return TRUE;
}

double
hs_strength_apply (HsStrength curve, double param, double s)
{
  if (!(s > 0))
    return 0;
  if (s >= 1)
    return 1;
  if (curve == HS_STRENGTH_LOG)
    {
      if (!(param > 1) || !isfinite (param))
        return s;
      return -log1p (-s * (1.0 - 1.0 / param)) / log (param);
    }
  if (!(param > 0) || !isfinite (param) || param == 1)
    return s;
  return pow (s, param);
}

double
hs_threshold_alpha (double threshold, double band, double s)
{
  if (!(threshold > 0) || s >= threshold)
    return 1;
  if (!(band > 0) || s <= threshold - band)
    return 0;
  return (s - (threshold - band)) / band;
}

/* ---- options and LUTs --------------------------------------------------- */

void
hs_overlay_options_init (HsOverlayOptions *options)
{
  g_return_if_fail (options != NULL);
  *options = (HsOverlayOptions) {
    .colormap = HS_COLORMAP_JET, .strength = HS_STRENGTH_GAMMA, .strength_param = 1.0,
    .threshold = 0.0, .threshold_band = 0.05, .upsample = HS_UPSAMPLE_BILINEAR, .opacity = 0.5,
  };
  hs_scale_spec_init (&options->scale);
}

static inline guint32
pack_premultiplied (const guint8 *rgb, double alpha)
{
  guint a = (guint) lround (CLAMP (alpha, 0.0, 1.0) * 255.0);
  guint r = (rgb[0] * a + 127) / 255;
  guint g = (rgb[1] * a + 127) / 255;
  guint b = (rgb[2] * a + 127) / 255;

  return ((guint32) a << 24) | (r << 16) | (g << 8) | b;
}

static guint32
lut_entry (const HsOverlayOptions *options, const guint8 *cmap, double s)
{
  double c = hs_strength_apply (options->strength, options->strength_param, s);
  guint idx = (guint) lround (CLAMP (c, 0.0, 1.0) * 255.0);

  return pack_premultiplied (cmap + 3 * idx,
                             hs_threshold_alpha (options->threshold, options->threshold_band, s));
}

void
hs_overlay_build_lut (const HsOverlayOptions *options, guint32 *lut, guint n)
{
  const guint8 *cmap;

  g_return_if_fail (options != NULL);
  g_return_if_fail (lut != NULL && n >= 2);

  cmap = hs_colormap_get_lut ((guint) options->colormap < HS_COLORMAP_N_MAPS
                              ? options->colormap : HS_COLORMAP_JET);
  for (guint i = 0; i < n; i++)
    lut[i] = lut_entry (options, cmap, (double) i / (n - 1));
}

/* ---- field -------------------------------------------------------------- */

struct _HsOverlayField {
  gatomicrefcount ref;
  guint    width, height;       /* rw × rh */
  double   vmin, vmax;          /* grid min and max: q = 0 and q = 65535 */
  guint16 *q;
};

typedef struct {
  const double *grid;
  guint w, h, out_w, out_h, x0, y0, rw;
  HsUpsample mode;
  double vmin, scale;
  guint16 *q;
} ResampleJob;

#define RESAMPLE_CHUNK_ROWS 16

static void
resample_rows (gpointer data, guint begin, guint end)
{
  ResampleJob *job = data;
  g_autofree float *buf = g_new (float, (gsize) job->rw * RESAMPLE_CHUNK_ROWS);

  for (guint r = begin; r < end; r += RESAMPLE_CHUNK_ROWS)
    {
      guint rows = MIN (RESAMPLE_CHUNK_ROWS, end - r);
      gsize count = (gsize) rows * job->rw;
      guint16 *q = job->q + (gsize) r * job->rw;

      hs_resample_region (job->grid, job->w, job->h, job->out_w, job->out_h,
                          job->x0, job->y0 + r, job->rw, rows, buf, job->mode);
      for (gsize i = 0; i < count; i++)
        {
          double t = ((double) buf[i] - job->vmin) * job->scale;
          q[i] = (guint16) (t <= 0 ? 0 : t >= 65535.0 ? 65535 : (guint) (t + 0.5));
        }
    }
}

HsOverlayField *
hs_overlay_field_new_region (const double *grid, guint w, guint h,
                             guint out_w, guint out_h,
                             guint x0, guint y0, guint rw, guint rh,
                             HsUpsample upsample, GError **error)
{
  const HsLimits *limits = hs_limits_get ();
  HsOverlayField *field;
  ResampleJob job;
  guint64 cells = (guint64) w * h;
  guint64 pixels = (guint64) rw * rh;
  double vmin, vmax;

  g_return_val_if_fail (grid != NULL, NULL);

  if (w == 0 || h == 0 || out_w == 0 || out_h == 0 || rw == 0 || rh == 0)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("empty size (grid %u × %u, output %u × %u, region %u × %u)"),
                   w, h, out_w, out_h, rw, rh);
      return NULL;
    }
  if ((guint64) x0 + rw > out_w || (guint64) y0 + rh > out_h)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("region %u,%u %u × %u lies outside the %u × %u output"),
                   x0, y0, rw, rh, out_w, out_h);
      return NULL;
    }
  if (cells > limits->max_grid_cells || pixels > limits->max_image_pixels
      || (guint64) out_w * out_h > limits->max_image_pixels * 16
      || rw > 32767 || rh > 32767)
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_TOO_LARGE,
                   _("overlay of %u × %u pixels from a %u × %u grid is over the limits"),
                   rw, rh, w, h);
      return NULL;
    }
  if (!finite_range (grid, cells, &vmin, &vmax, error))
    return NULL;

  field = g_new0 (HsOverlayField, 1);
  g_atomic_ref_count_init (&field->ref);
  field->width = rw;
  field->height = rh;
  field->vmin = vmin;
  field->vmax = vmax;
  field->q = g_try_new (guint16, pixels);
  if (field->q == NULL)
    {
      g_free (field);
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_TOO_LARGE,
                   _("out of memory for a %u × %u overlay"), rw, rh);
      return NULL;
    }

  job = (ResampleJob) { grid, w, h, out_w, out_h, x0, y0, rw, upsample, vmin,
                        vmax > vmin ? 65535.0 / (vmax - vmin) : 0.0, field->q };
  hs_parallel_rows (rh, pixels, HS_OVERLAY_PARALLEL_MIN_PIXELS, resample_rows, &job);
  return field;
}

HsOverlayField *
hs_overlay_field_new (const double *grid, guint w, guint h,
                      guint out_w, guint out_h, HsUpsample upsample, GError **error)
{
  return hs_overlay_field_new_region (grid, w, h, out_w, out_h, 0, 0, out_w, out_h,
                                      upsample, error);
}

HsOverlayField *
hs_overlay_field_ref (HsOverlayField *field)
{
  g_return_val_if_fail (field != NULL, NULL);
  g_atomic_ref_count_inc (&field->ref);
  return field;
}

void
hs_overlay_field_unref (HsOverlayField *field)
{
  if (field == NULL)
    return;
  if (g_atomic_ref_count_dec (&field->ref))
    {
      g_free (field->q);
      g_free (field);
    }
}

guint
hs_overlay_field_get_width (const HsOverlayField *field)
{
  g_return_val_if_fail (field != NULL, 0);
  return field->width;
}

guint
hs_overlay_field_get_height (const HsOverlayField *field)
{
  g_return_val_if_fail (field != NULL, 0);
  return field->height;
}

static inline double
field_value_of (const HsOverlayField *field, guint q)
{
  return field->vmin + (field->vmax - field->vmin) * ((double) q / 65535.0);
}

double
hs_overlay_field_get_value (const HsOverlayField *field, guint x, guint y)
{
  g_return_val_if_fail (field != NULL, NAN);
  g_return_val_if_fail (x < field->width && y < field->height, NAN);
  return field_value_of (field, field->q[(gsize) y * field->width + x]);
}

/* ---- colorize ----------------------------------------------------------- */

typedef struct {
  const guint16 *q;
  gsize q_stride;
  guint w;
  const guint32 *lut;           /* Q_LEVELS entries, one per quantised value */
  guint8 *dst;
  gsize stride;
} ColorizeJob;

static void
colorize_rows (gpointer data, guint begin, guint end)
{
  ColorizeJob *job = data;
  const guint32 *restrict lut = job->lut;
  guint w = job->w;

  for (guint y = begin; y < end; y++)
    {
      const guint16 *restrict q = job->q + (gsize) y * job->q_stride;
      guint32 *restrict out = (guint32 *) (void *) (job->dst + (gsize) y * job->stride);
      guint x = 0;

#if defined(__SSE2__)
      /* Non-temporal stores: the surface is not read back here, so skip the
       * read-for-ownership of every output line (a third of the traffic). */
      for (; x < w && ((guintptr) (out + x) & 15) != 0; x++)
        out[x] = lut[q[x]];
      for (; x + 4 <= w; x += 4)
        _mm_stream_si128 ((__m128i *) (void *) (out + x),
                          _mm_setr_epi32 ((int) lut[q[x]], (int) lut[q[x + 1]],
                                          (int) lut[q[x + 2]], (int) lut[q[x + 3]]));
#endif
      for (; x < w; x++)
        out[x] = lut[q[x]];
    }
#if defined(__SSE2__)
  _mm_sfence ();
#endif
}

void
hs_overlay_apply_lut (const guint32 *lut, const guint16 *q, gsize q_stride,
                      guint w, guint h, guint8 *dst, gsize dst_stride)
{
  ColorizeJob job = { q, q_stride, w, lut, dst, dst_stride };

  g_return_if_fail (lut != NULL);
  g_return_if_fail ((q != NULL && dst != NULL) || w == 0 || h == 0);
  g_return_if_fail (q_stride >= w && dst_stride >= (gsize) w * 4);

  if (w == 0 || h == 0)
    return;
  hs_parallel_rows (h, (guint64) w * h, HS_OVERLAY_PARALLEL_MIN_PIXELS, colorize_rows, &job);
}

const guint16 *
hs_overlay_field_peek_quantised (const HsOverlayField *field)
{
  g_return_val_if_fail (field != NULL, NULL);
  return field->q;
}

gboolean
hs_overlay_field_build_lut (const HsOverlayField *field, const HsScaleRange *range,
                            const HsOverlayOptions *options, guint32 *lut, GError **error)
{
  guint32 s_lut[S_LEVELS];

  g_return_val_if_fail (field != NULL, FALSE);
  g_return_val_if_fail (range != NULL, FALSE);
  g_return_val_if_fail (options != NULL, FALSE);
  g_return_val_if_fail (lut != NULL, FALSE);

  if (!isfinite (range->lo) || !isfinite (range->hi))
    {
      g_set_error (error, HS_OVERLAY_ERROR, HS_OVERLAY_ERROR_INVALID,
                   _("scale range [%g, %g] is not finite"), range->lo, range->hi);
      return FALSE;
    }
  /* Strength, colour and threshold once per scaled level, then one entry per
   * quantised field value: no pow/log per pixel. */
  hs_overlay_build_lut (options, s_lut, S_LEVELS);
  for (guint q = 0; q < Q_LEVELS; q++)
    {
      double s = hs_scale_apply (range, field_value_of (field, q));
      lut[q] = s_lut[(guint) (s * (S_LEVELS - 1) + 0.5)];
    }
  return TRUE;
}
