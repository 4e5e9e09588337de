/* hs-mri-lesions.c — the lesion recipe of Oliveira et al. (hs-mri-lesions.h) */
#include "heatscope/hs-mri-lesions.h"
#include "heatscope/hs-contour.h"
#include "hs-random-private.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-mri-error-quark, hs_mri_error)

/* Fields drawn for one slice before giving up, and positions tried for one
 * lesion: bounds on the work, never reached by a slice with tissue left. */
#define MAX_FIELDS     256
#define MAX_PLACEMENTS 400

const char *
hs_mri_lesion_class_to_string (HsMriLesionClass klass)
{
  return klass == HS_MRI_LESION_REGULAR ? "regular" : "irregular";
}

void
hs_mri_lesion_params_init (HsMriLesionParams *params)
{
  *params = (HsMriLesionParams) {
    .intensity = 0.5, .min_count = 3, .max_count = 5,
    .regular_min = 0.8, .irregular_max = 0.4,
    .smoothing = 2.0, .edge_sigma = 0.75, .margin = 2,
    .field = 64, .min_area = 25, .max_area = 200,
  };
}

gboolean
hs_mri_lesion_params_check (const HsMriLesionParams *p, GError **error)
{
  const char *bad = NULL;

  if (!(p->intensity >= 0.0 && p->intensity <= 2.0) || fabs (p->intensity - 1.0) < 0.01)
    bad = _("lesion intensity w must lie in [0, 2] and differ from 1 (w = 1 changes nothing)");
  else if (p->min_count < 1 || p->max_count < p->min_count || p->max_count > 64)
    bad = _("lesion counts need 1 ≤ min ≤ max ≤ 64");
  else if (!(p->irregular_max > 0.0 && p->irregular_max <= p->regular_min && p->regular_min < 2.0))
    bad = _("compactness thresholds need 0 < irregular ≤ regular < 2");
  else if (!(p->smoothing > 0.0 && p->smoothing <= 32.0) || !(p->edge_sigma >= 0.0 && p->edge_sigma <= 8.0))
    bad = _("smoothing must lie in (0, 32] px and the edge σ in [0, 8] px");
  else if (p->margin > 16 || p->field < 16 || p->field > 1024)
    bad = _("the margin must be at most 16 px and the noise field 16 to 1024 px");
  else if (p->min_area < 1 || p->max_area < p->min_area)
    bad = _("lesion areas need 1 ≤ min ≤ max");
  if (bad != NULL)
    {
      g_set_error_literal (error, HS_MRI_ERROR, HS_MRI_ERROR_INVALID, bad);
      return FALSE;
    }
  return TRUE;
}

/* ---- the pure steps ---- */

/* scipy.ndimage's "reflect" index (folded again while out of range). */
static gssize
reflect_index (gssize i, gssize n)
{
  while (i < 0 || i >= n)
    i = i < 0 ? -i - 1 : 2 * n - i - 1;
  return i;
}

static void
gaussian_pass (const double *in, double *out, guint n, gsize stride, gsize count, gsize step,
               const double *k, guint radius, HsMriBorder border)
{
  for (gsize c = 0; c < count; c++)
    {
      const double *src = in + c * step;
      double *dst = out + c * step;

      for (guint i = 0; i < n; i++)
        {
          double sum = 0.0;
          for (gssize d = -(gssize) radius; d <= (gssize) radius; d++)
            {
              gssize j = (gssize) i + d;
              if (j < 0 || j >= (gssize) n)
                {
                  if (border == HS_MRI_BORDER_ZERO)
                    continue;
                  j = reflect_index (j, n);
                }
              sum += k[d + (gssize) radius] * src[(gsize) j * stride];
            }
          dst[i * stride] = sum;
        }
    }
}

void
hs_mri_gaussian (double *data, guint w, guint h, double sigma, guint radius, HsMriBorder border)
{
  g_autofree double *k = NULL;
  g_autofree double *tmp = NULL;
  double total = 0.0;

  if (!(sigma > 0.0) || radius == 0 || w == 0 || h == 0)
    return;
  k = g_new (double, 2 * radius + 1);
  for (guint i = 0; i <= 2 * radius; i++)
    {
      double d = (double) i - radius;
      k[i] = exp (-d * d / (2.0 * sigma * sigma));
      total += k[i];
    }
  for (guint i = 0; i <= 2 * radius; i++)
    k[i] /= total;
  tmp = g_new (double, (gsize) w * h);
  /* rows (stride 1), then columns (stride w) */
  gaussian_pass (data, tmp, w, 1, h, w, k, radius, border);
  gaussian_pass (tmp, data, h, w, w, 1, k, radius, border);
}

guint
hs_mri_otsu_binarise (const double *values, gsize n, guint8 *out)
{
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
  guint t;

  for (gsize i = 0; i < n; i++)
    {
      lo = MIN (lo, values[i]);
      hi = MAX (hi, values[i]);
    }
  for (gsize i = 0; i < n; i++)
    {
      double u = hi > lo ? floor (255.0 * (values[i] - lo) / (hi - lo)) : 0.0;
      out[i] = (guint8) CLAMP (u, 0.0, 255.0);
    }
  t = hs_contour_otsu_threshold (out, n);
  for (gsize i = 0; i < n; i++)
    out[i] = out[i] > t;
  return t;
}

static inline guint8
at (const guint8 *in, guint w, guint h, gssize x, gssize y)
{
  if (x < 0 || y < 0 || x >= (gssize) w || y >= (gssize) h)
    return 0;
  return in[(gsize) y * w + (gsize) x] != 0;
}

void
hs_mri_erode (const guint8 *in, guint8 *out, guint w, guint h)
{
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      out[(gsize) y * w + x] = at (in, w, h, x, y) && at (in, w, h, x - 1, y)
                               && at (in, w, h, x + 1, y) && at (in, w, h, x, y - 1)
                               && at (in, w, h, x, (gssize) y + 1);
}

void
hs_mri_dilate (const guint8 *in, guint8 *out, guint w, guint h)
{
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      out[(gsize) y * w + x] = at (in, w, h, x, y) || at (in, w, h, x - 1, y)
                               || at (in, w, h, x + 1, y) || at (in, w, h, x, y - 1)
                               || at (in, w, h, x, (gssize) y + 1);
}

void
hs_mri_open (guint8 *data, guint w, guint h)
{
  g_autofree guint8 *tmp = g_malloc ((gsize) w * h);

  hs_mri_erode (data, tmp, w, h);
  hs_mri_dilate (tmp, data, w, h);
}

guint
hs_mri_label (const guint8 *in, guint w, guint h, guint32 *labels)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize n = (gsize) w * h;
  guint32 next = 0;

  memset (labels, 0, n * sizeof (guint32));
  for (gsize start = 0; start < n; start++)
    {
      if (in[start] == 0 || labels[start] != 0)
        continue;
      labels[start] = ++next;
      g_array_append_val (stack, start);
      while (stack->len > 0)
        {
          gsize p = g_array_index (stack, gsize, stack->len - 1);
          gssize px = (gssize) (p % w), py = (gssize) (p / w);

          g_array_set_size (stack, stack->len - 1);
          for (gssize dy = -1; dy <= 1; dy++)
            for (gssize dx = -1; dx <= 1; dx++)
              {
                gssize qx = px + dx, qy = py + dy;
                gsize q;

                if (qx < 0 || qy < 0 || qx >= (gssize) w || qy >= (gssize) h)
                  continue;
                q = (gsize) qy * w + (gsize) qx;
                if (in[q] != 0 && labels[q] == 0)
                  {
                    labels[q] = next;
                    g_array_append_val (stack, q);
                  }
              }
        }
    }
  return next;
}

double
hs_mri_perimeter (const guint8 *in, guint w, guint h)
{
  g_autofree guint8 *border = g_malloc ((gsize) w * h);
  double weight[50] = { 0 };
  double total = 0.0;

  /* scikit-image's table: the code of a border pixel is 1 + 2·(its border
   * 4-neighbours) + 10·(its border diagonal neighbours) */
  weight[5] = weight[7] = weight[15] = weight[17] = weight[25] = weight[27] = 1.0;
  weight[21] = weight[33] = G_SQRT2;
  weight[13] = weight[23] = (1.0 + G_SQRT2) / 2.0;
  hs_mri_erode (in, border, w, h);
  for (gsize i = 0; i < (gsize) w * h; i++)
    border[i] = (in[i] != 0) && !border[i];
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        guint code;

        if (!border[(gsize) y * w + x])
          continue;
        code = 1 + 2 * (at (border, w, h, x - 1, y) + at (border, w, h, x + 1, y)
                        + at (border, w, h, x, y - 1) + at (border, w, h, x, (gssize) y + 1))
               + 10 * (at (border, w, h, x - 1, y - 1) + at (border, w, h, x + 1, y - 1)
                       + at (border, w, h, x - 1, (gssize) y + 1)
                       + at (border, w, h, x + 1, (gssize) y + 1));
        if (code < G_N_ELEMENTS (weight))
          total += weight[code];
      }
  return total;
}

double
hs_mri_compactness (double area, double perimeter)
{
  return perimeter > 0.0 ? 4.0 * G_PI * area / (perimeter * perimeter) : 0.0;
}

void
hs_mri_shape_free (HsMriShape *shape)
{
  g_free (shape);   /* the pixels follow the struct */
}

/* The component `label` inside its box, or NULL when it touches the
 * field's border (cut by it, so not the shape the noise made). */
static HsMriShape *
extract_shape (const guint32 *labels, guint f, guint32 label, const guint box[4])
{
  HsMriShape *shape;

  if (box[0] == 0 || box[1] == 0 || box[2] == f || box[3] == f)
    return NULL;
  shape = g_malloc0 (sizeof *shape + (gsize) (box[2] - box[0]) * (box[3] - box[1]));
  shape->width = box[2] - box[0];
  shape->height = box[3] - box[1];
  shape->pixels = (guint8 *) (shape + 1);
  for (guint y = 0; y < shape->height; y++)
    for (guint x = 0; x < shape->width; x++)
      if (labels[(gsize) (y + box[1]) * f + x + box[0]] == label)
        {
          shape->pixels[(gsize) y * shape->width + x] = 1;
          shape->area++;
        }
  shape->perimeter = hs_mri_perimeter (shape->pixels, shape->width, shape->height);
  shape->compactness = hs_mri_compactness (shape->area, shape->perimeter);
  return shape;
}

void
hs_mri_lesion_shapes (const HsMriLesionParams *params, HsMriLesionClass klass, guint64 seed,
                      GPtrArray *out)
{
  guint f = params->field;
  gsize n = (gsize) f * f;
  g_autofree double *field = g_new (double, n);
  g_autofree guint8 *binary = g_malloc (n);
  g_autofree guint8 *eroded = g_malloc (n);
  g_autofree guint32 *labels = g_new (guint32, n);
  g_autofree guint *boxes = NULL;
  HsRandom rng;
  guint n_labels;

  hs_random_init (&rng, seed);
  for (gsize i = 0; i < n; i++)
    field[i] = hs_random_gauss (&rng);
  /* scipy's default truncation: 4σ */
  hs_mri_gaussian (field, f, f, params->smoothing, (guint) (4.0 * params->smoothing + 0.5),
                   HS_MRI_BORDER_REFLECT);
  hs_mri_otsu_binarise (field, n, binary);
  hs_mri_erode (binary, eroded, f, f);
  hs_mri_open (eroded, f, f);
  if (klass == HS_MRI_LESION_IRREGULAR)
    {
      hs_mri_erode (eroded, binary, f, f);
      memcpy (eroded, binary, n);
    }
  n_labels = hs_mri_label (eroded, f, f, labels);
  boxes = g_new (guint, 4 * (gsize) (n_labels + 1));
  for (guint l = 1; l <= n_labels; l++)
    {
      boxes[4 * l] = boxes[4 * l + 1] = f;
      boxes[4 * l + 2] = boxes[4 * l + 3] = 0;
    }
  for (guint y = 0; y < f; y++)
    for (guint x = 0; x < f; x++)
      {
        guint32 l = labels[(gsize) y * f + x];
        guint *b;

        if (l == 0)
          continue;
        b = &boxes[4 * l];
        b[0] = MIN (b[0], x);
        b[1] = MIN (b[1], y);
        b[2] = MAX (b[2], x + 1);
        b[3] = MAX (b[3], y + 1);
      }
  for (guint l = 1; l <= n_labels; l++)
    {
      HsMriShape *shape = extract_shape (labels, f, l, &boxes[4 * l]);
      gboolean keep;

      if (shape == NULL)
        continue;
      keep = shape->area >= params->min_area && shape->area <= params->max_area
             && (klass == HS_MRI_LESION_REGULAR ? shape->compactness > params->regular_min
                                                : shape->compactness < params->irregular_max);
      if (keep)
        g_ptr_array_add (out, shape);
      else
        hs_mri_shape_free (shape);
    }
}

double *
hs_mri_shape_soften (const HsMriShape *shape, double edge_sigma, guint margin)
{
  guint w = shape->width + 2 * margin, h = shape->height + 2 * margin;
  double *soft = g_new0 (double, (gsize) w * h);

  for (guint y = 0; y < shape->height; y++)
    for (guint x = 0; x < shape->width; x++)
      soft[(gsize) (y + margin) * w + x + margin] = shape->pixels[(gsize) y * shape->width + x];
  hs_mri_gaussian (soft, w, h, edge_sigma, margin, HS_MRI_BORDER_ZERO);
  return soft;
}

/* ---- a slice with lesions ---- */

void
hs_mri_slice_free (HsMriSlice *slice)
{
  if (slice == NULL)
    return;
  for (guint i = 0; i < slice->n_lesions; i++)
    {
      g_free (slice->lesions[i].mask);
      hs_mri_shape_free (slice->lesions[i].shape);
    }
  g_free (slice->lesions);
  g_free (slice->pixels);
  g_free (slice);
}

/* Every pixel of the box (x, y, w, h) is allowed and free. */
static gboolean
box_is_free (const guint8 *allowed, const guint8 *occupied, guint width, guint x0, guint y0,
             guint w, guint h)
{
  for (guint y = y0; y < y0 + h; y++)
    for (guint x = x0; x < x0 + w; x++)
      {
        gsize i = (gsize) y * width + x;
        if (!allowed[i] || occupied[i])
          return FALSE;
      }
  return TRUE;
}

/* Multiplies the soft lesion into the slice at (x0, y0) and records the
 * pixels it changed; FALSE (slice untouched) when some pixel of the shape
 * itself would not change (too dark there to show the lesion). */
static gboolean
insert_lesion (HsMriSlice *slice, const HsMriShape *shape, const double *soft, guint margin,
               double intensity, guint x0, guint y0, guint8 *mask, HsBox *box)
{
  guint w = shape->width + 2 * margin, h = shape->height + 2 * margin;
  g_autofree guint16 *out = g_new (guint16, (gsize) w * h);
  guint changed_core = 0;
  double bx1 = G_MAXDOUBLE, by1 = G_MAXDOUBLE, bx2 = 0, by2 = 0;

  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        gsize i = (gsize) y * w + x;
        guint16 old = slice->pixels[(gsize) (y0 + y) * slice->width + x0 + x];
        double v = floor (old * (1.0 - (1.0 - intensity) * soft[i]) + 0.5);

        out[i] = (guint16) CLAMP (v, 0.0, 65535.0);
        if (out[i] != old && x >= margin && y >= margin && x < w - margin && y < h - margin
            && shape->pixels[(gsize) (y - margin) * shape->width + x - margin])
          changed_core++;
      }
  if (changed_core < shape->area)
    return FALSE;
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        gsize p = (gsize) (y0 + y) * slice->width + x0 + x;

        if (out[(gsize) y * w + x] == slice->pixels[p])
          continue;
        slice->pixels[p] = out[(gsize) y * w + x];
        mask[p] = 255;
        bx1 = MIN (bx1, x0 + x);
        by1 = MIN (by1, y0 + y);
        bx2 = MAX (bx2, x0 + x + 1.0);
        by2 = MAX (by2, y0 + y + 1.0);
      }
  *box = (HsBox) { bx1, by1, bx2, by2 };
  return TRUE;
}

HsMriSlice *
hs_mri_slice_make (const guint16 *background, const guint8 *allowed, guint width, guint height,
                   HsMriLesionClass klass, guint n, const HsMriLesionParams *params,
                   guint64 seed, GError **error)
{
  g_autoptr(HsMriSlice) slice = NULL;
  g_autoptr(GPtrArray) pool = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_mri_shape_free);
  g_autofree guint8 *occupied = NULL;
  HsRandom rng, field_seeds;
  guint next = 0, fields = 0;

  if (!hs_mri_lesion_params_check (params, error))
    return NULL;
  hs_random_init (&rng, seed);
  hs_random_init (&field_seeds, seed ^ G_GUINT64_CONSTANT (0x6c6573696f6e73));
  if (n == 0)
    n = params->min_count + hs_random_below (&rng, params->max_count - params->min_count + 1);

  slice = g_new0 (HsMriSlice, 1);
  slice->klass = klass;
  slice->width = width;
  slice->height = height;
  slice->pixels = g_memdup2 (background, (gsize) width * height * sizeof (guint16));
  slice->lesions = g_new0 (HsMriLesion, n);
  occupied = g_malloc0 ((gsize) width * height);

  while (slice->n_lesions < n)
    {
      HsMriShape *shape;
      HsMriLesion *lesion;
      g_autofree double *soft = NULL;
      guint sw, sh;
      gboolean placed = FALSE;

      if (next == pool->len)
        {
          if (fields++ == MAX_FIELDS)
            {
              g_set_error (error, HS_MRI_ERROR, HS_MRI_ERROR_NO_ROOM,
                           _("only %u of %u %s lesions fit into the slice's tissue (a larger slice or fewer lesions would help)"),
                           slice->n_lesions, n, hs_mri_lesion_class_to_string (klass));
              return NULL;
            }
          hs_mri_lesion_shapes (params, klass, hs_random_next (&field_seeds), pool);
          continue;
        }
      shape = g_ptr_array_index (pool, next++);
      sw = shape->width + 2 * params->margin;
      sh = shape->height + 2 * params->margin;
      if (sw > width || sh > height)
        continue;
      soft = hs_mri_shape_soften (shape, params->edge_sigma, params->margin);
      lesion = &slice->lesions[slice->n_lesions];
      lesion->mask = g_malloc0 ((gsize) width * height);
      for (guint t = 0; t < MAX_PLACEMENTS && !placed; t++)
        {
          guint x0 = hs_random_below (&rng, width - sw + 1);
          guint y0 = hs_random_below (&rng, height - sh + 1);

          if (!box_is_free (allowed, occupied, width, x0, y0, sw, sh))
            continue;
          placed = insert_lesion (slice, shape, soft, params->margin, params->intensity, x0, y0,
                                  lesion->mask, &lesion->box);
          if (placed)
            for (guint y = y0; y < y0 + sh; y++)
              memset (occupied + (gsize) y * width + x0, 1, sw);
        }
      if (!placed)
        {
          g_clear_pointer (&lesion->mask, g_free);
          continue;
        }
      /* the pool owns the shape until it is placed */
      lesion->shape = g_ptr_array_steal_index (pool, --next);
      slice->n_lesions++;
    }
  return g_steal_pointer (&slice);
}
