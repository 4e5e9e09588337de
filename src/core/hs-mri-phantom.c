/* hs-mri-phantom.c — procedural axial T1-weighted brain slices
 *
 * The default backgrounds of `heatscope-cli demo --kind mri-lesions`: one
 * axial slice at the level of the frontal horns and the thalami, the slice a
 * neuroradiologist knows best.  Built as tissue labels on the pixel grid
 * (head outline, scalp, skull tables and diploë, subarachnoid CSF, sulci,
 * the interhemispheric and Sylvian fissures, ventricles, caudate, lentiform
 * nuclei and thalami), then a cortex of constant thickness grown inward from
 * every CSF surface (so white matter reaches into the gyri), T1 intensities,
 * tissue texture, a smooth bias field, partial volume (a small Gaussian) and
 * Rician noise.  Anterior is up, the patient's right on the image's left
 * (radiological convention). */
#include "heatscope/hs-mri-lesions.h"
#include "hs-phantom-private.h"
#include "heatscope/hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

enum {
  T_AIR, T_SKIN, T_FAT, T_TABLE, T_DIPLOE, T_CSF, T_VENTRICLE, T_GM, T_WM,
  T_CAUDATE, T_LENTIFORM, T_THALAMUS, T_PLEXUS, N_TISSUES
};

/* T1-weighted levels (fraction of the brightest): fat bright, white matter
 * brighter than grey, CSF and cortical bone dark. */
static const double t1_level[N_TISSUES] = {
  [T_AIR] = 0.0, [T_SKIN] = 0.50, [T_FAT] = 0.88, [T_TABLE] = 0.07, [T_DIPLOE] = 0.52,
  [T_CSF] = 0.13, [T_VENTRICLE] = 0.10, [T_GM] = 0.43, [T_WM] = 0.63,
  [T_CAUDATE] = 0.49, [T_LENTIFORM] = 0.53, [T_THALAMUS] = 0.55, [T_PLEXUS] = 0.30,
};

/* Scalp and skull as shells of the head outline (1 = the skin's surface). */
static const struct {
  double inner;
  int    tissue;
} head_layers[] = {
  { 1.0, T_AIR }, { 0.985, T_SKIN }, { 0.945, T_FAT }, { 0.93, T_TABLE }, { 0.905, T_DIPLOE },
  { 0.89, T_TABLE },
};

#define MAX_SULCI 96

typedef struct {
  double cx, cy, s;          /* pixel centre of the head frame, pixels per unit   */
  double cos_t, sin_t;       /* head rotation                                      */
  double a, b;               /* head semi-axes (left-right, anterior-posterior)    */
  double harm[3], phase[3];  /* outline harmonics 2..4                             */
  double surface;            /* brain surface, in units of the head outline        */
  double vent;               /* ventricle scale (age)                              */
  double fissure_w;          /* half-width of the interhemispheric fissure         */
  guint  n_sulci;
  double sulcus_angle[MAX_SULCI], sulcus_depth[MAX_SULCI], sulcus_bend[MAX_SULCI];
  double sulcus_width[MAX_SULCI], sulcus_meander[MAX_SULCI], sulcus_phase[MAX_SULCI];
  double level_jitter[N_TISSUES];
  double bias[3];
  double noise;
} Head;

static void
random_head (Head *h, HsRandom *rng, guint width, guint height)
{
  double base = 0.5 * MIN (width, height);

  h->s = base * hs_random_double_range (rng, 0.98, 1.04);
  h->cx = 0.5 * width + base * hs_random_double_range (rng, -0.02, 0.02);
  h->cy = 0.5 * height + base * hs_random_double_range (rng, -0.02, 0.02);
  {
    double t = hs_random_double_range (rng, -0.08, 0.08);
    h->cos_t = cos (t);
    h->sin_t = sin (t);
  }
  h->a = hs_random_double_range (rng, 0.70, 0.78);
  h->b = hs_random_double_range (rng, 0.88, 0.94);
  for (guint k = 0; k < 3; k++)
    {
      h->harm[k] = hs_random_double_range (rng, -0.015, 0.015);
      h->phase[k] = hs_random_double_range (rng, 0, 2 * G_PI);
    }
  h->surface = hs_random_double_range (rng, 0.86, 0.875);
  h->vent = hs_random_double_range (rng, 0.8, 1.35);
  h->fissure_w = hs_random_double_range (rng, 0.006, 0.011);
  /* sulci stratified around the brain, two deep Sylvian fissures laterally */
  h->n_sulci = 52;
  for (guint i = 0; i < h->n_sulci; i++)
    {
      h->sulcus_angle[i] = 2 * G_PI * (i + hs_random_double_range (rng, 0.1, 0.9)) / h->n_sulci;
      /* deep sulci alternate with shallow ones */
      h->sulcus_depth[i] = i % 2 ? hs_random_double_range (rng, 0.07, 0.15)
                                 : hs_random_double_range (rng, 0.02, 0.07);
      h->sulcus_bend[i] = hs_random_double_range (rng, -6.0, 6.0);
      h->sulcus_width[i] = hs_random_double_range (rng, 0.005, 0.009);
      h->sulcus_meander[i] = hs_random_double_range (rng, 0.0, 0.03);
      h->sulcus_phase[i] = hs_random_double_range (rng, 0, 2 * G_PI);
    }
  for (guint side = 0; side < 2; side++)
    {
      guint i = h->n_sulci++;
      h->sulcus_angle[i] = (side ? 0.0 : G_PI) + (side ? -1 : 1) * hs_random_double_range (rng, 0.05, 0.15);
      h->sulcus_depth[i] = hs_random_double_range (rng, 0.22, 0.27);
      h->sulcus_bend[i] = hs_random_double_range (rng, -0.5, 0.5);
      h->sulcus_width[i] = 0.009;
      h->sulcus_meander[i] = 0.01;
      h->sulcus_phase[i] = 0.0;
    }
  for (guint t = 0; t < N_TISSUES; t++)
    h->level_jitter[t] = hs_random_double_range (rng, -0.025, 0.025);
  for (guint k = 0; k < 3; k++)
    h->bias[k] = hs_random_double_range (rng, -0.08, 0.08);
  h->noise = hs_random_double_range (rng, 0.008, 0.016);
}

/* Inside the ellipse centred (cu, cv) with semi-axes (ra, rb) rotated by t. */
static gboolean
in_ellipse (double u, double v, double cu, double cv, double ra, double rb, double t)
{
  double du = u - cu, dv = v - cv;
  double x = du * cos (t) + dv * sin (t), y = -du * sin (t) + dv * cos (t);

  return (x * x) / (ra * ra) + (y * y) / (rb * rb) <= 1.0;
}

static double
wrap_angle (double a)
{
  while (a > G_PI)
    a -= 2 * G_PI;
  while (a < -G_PI)
    a += 2 * G_PI;
  return a;
}

/* The deep structures in the head frame (u right on the image, v down =
 * posterior), mirrored for the two hemispheres. */
static int
deep_tissue (const Head *h, double u, double v, double wobble)
{
  double au = fabs (u), k = h->vent;

  /* the caudate heads first: they indent the frontal horns' lateral walls */
  if (in_ellipse (au, v, 0.125 + 0.03 * k, -0.17, 0.055 * wobble, 0.075 * wobble, -0.2))
    return T_CAUDATE;

  /* third ventricle: a midline slit between the thalami */
  if (au < 0.010 * k && v > -0.07 && v < 0.10)
    return T_VENTRICLE;
  /* frontal horns: two crescents diverging anteriorly, the septum between */
  if (au > 0.008 && in_ellipse (au, v, 0.065 * k, -0.20, 0.040 * k, 0.12, -0.35))
    return T_VENTRICLE;
  /* atria and occipital horns, with the glomus of the choroid plexus */
  if (in_ellipse (au, v, 0.17 + 0.02 * k, 0.27, 0.045 * k, 0.11, 0.45))
    return in_ellipse (au, v, 0.17 + 0.02 * k, 0.25, 0.022 * k, 0.04, 0.45) ? T_PLEXUS : T_VENTRICLE;
  if (in_ellipse (au, v, 0.085, 0.085, 0.075 * wobble, 0.105 * wobble, 0.15))
    return T_THALAMUS;
  if (in_ellipse (au, v, 0.27, -0.03, 0.065 * wobble, 0.15 * wobble, 0.28))
    return T_LENTIFORM;
  return -1;
}

/* `wobble` (about 1) roughens the deep nuclei's outlines and the brain
 * surface, so that no border is a perfect ellipse. */
static int
tissue_at (const Head *h, double px, double py, double wobble)
{
  double du = (px - h->cx) / h->s, dv = (py - h->cy) / h->s;
  double u = du * h->cos_t + dv * h->sin_t, v = -du * h->sin_t + dv * h->cos_t;
  double theta = atan2 (v, u);
  double g = 1.0, r_ell, rho;

  for (guint k = 0; k < 3; k++)
    g += h->harm[k] * cos ((k + 2) * theta + h->phase[k]);
  r_ell = g / sqrt ((cos (theta) * cos (theta)) / (h->a * h->a)
                    + (sin (theta) * sin (theta)) / (h->b * h->b));
  rho = sqrt (u * u + v * v) / r_ell;

  /* the layers outside the brain, outermost first */
  for (guint i = 0; i < G_N_ELEMENTS (head_layers); i++)
    if (rho > head_layers[i].inner)
      return head_layers[i].tissue;
  if (rho > h->surface + 0.25 * (wobble - 1.0))
    return T_CSF;
  /* interhemispheric fissure in front of the genu and behind the splenium */
  if (fabs (u) < h->fissure_w && (v < -0.36 || v > 0.43))
    return T_CSF;
  for (guint i = 0; i < h->n_sulci; i++)
    {
      double d = h->surface - rho, depth = h->sulcus_depth[i];
      double centre, lateral, half;

      if (d < 0 || d > depth)
        continue;
      /* a sulcus meanders on its way in, as gyri fold */
      centre = h->sulcus_angle[i] + h->sulcus_bend[i] * d * d
               + h->sulcus_meander[i] * sin (d * 60.0 + h->sulcus_phase[i]) / MAX (rho, 0.3);
      lateral = fabs (wrap_angle (theta - centre)) * rho * r_ell;
      half = h->sulcus_width[i] * (1.0 - 0.6 * d / depth);
      if (lateral < half)
        return T_CSF;
    }
  {
    int deep = deep_tissue (h, u, v, wobble);
    if (deep >= 0)
      return deep;
  }
  return T_WM;
}

/* Grows grey matter `steps` pixels into the white matter from every CSF
 * pixel outside the ventricles (octagonal distance: cross and square steps
 * alternate), so the cortex follows the sulci. */
static void
grow_cortex (guint8 *label, guint w, guint h, guint steps)
{
  g_autofree guint8 *front = g_malloc ((gsize) w * h);

  for (gsize i = 0; i < (gsize) w * h; i++)
    front[i] = label[i] == T_CSF;
  for (guint s = 0; s < steps; s++)
    {
      gboolean square = s % 2 == 1;
      for (guint y = 1; y + 1 < h; y++)
        for (guint x = 1; x + 1 < w; x++)
          {
            gsize i = (gsize) y * w + x;
            gboolean near;

            if (label[i] != T_WM)
              continue;
            near = front[i - 1] == 1 || front[i + 1] == 1 || front[i - w] == 1 || front[i + w] == 1;
            if (square && !near)
              near = front[i - w - 1] == 1 || front[i - w + 1] == 1
                     || front[i + w - 1] == 1 || front[i + w + 1] == 1;
            if (near)
              {
                label[i] = T_GM;
                front[i] = 2;   /* joins the front after this step */
              }
          }
      for (gsize i = 0; i < (gsize) w * h; i++)
        if (front[i] == 2)
          front[i] = 1;
    }
}

guint16 *
hs_mri_phantom_render (guint64 seed, guint64 index, guint width, guint height, guint8 **brain,
                       GError **error)
{
  gsize n = (gsize) width * height;
  g_autofree guint8 *label = NULL;
  g_autofree double *image = NULL;
  g_autofree double *texture = NULL;
  g_autofree double *wobble = NULL;
  g_autofree double *deep = NULL;
  guint16 *pixels;
  HsRandom rng, noise_rng;
  Head head;

  if (width < HS_MRI_MIN_SIZE || height < HS_MRI_MIN_SIZE || width > 8192 || height > 8192)
    {
      g_set_error (error, HS_MRI_ERROR, HS_MRI_ERROR_INVALID,
                   _("brain phantom size %u×%u: each side must be between %u and 8192 pixels"),
                   width, height, HS_MRI_MIN_SIZE);
      return NULL;
    }
  if ((guint64) width * height > hs_limits_get ()->max_image_pixels)
    {
      g_set_error (error, HS_MRI_ERROR, HS_MRI_ERROR_INVALID,
                   _("brain phantom size %u×%u is over the limit of %" PRIu64 " pixels"),
                   width, height, (uint64_t) hs_limits_get ()->max_image_pixels);
      return NULL;
    }

  hs_phantom_rng_init (&rng, seed, 101, index);
  random_head (&head, &rng, width, height);
  /* tissue texture: smoothed white noise, finer than the anatomy; a
   * coarser field roughens the outlines */
  hs_phantom_rng_init (&noise_rng, seed, 102, index);
  texture = g_new (double, n);
  wobble = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    texture[i] = hs_random_gauss (&noise_rng);
  for (gsize i = 0; i < n; i++)
    wobble[i] = hs_random_gauss (&noise_rng);
  {
    double sigma = MAX (1.0, head.s / 64.0), coarse = head.s / 12.0;
    hs_mri_gaussian (texture, width, height, sigma, (guint) ceil (3 * sigma), HS_MRI_BORDER_REFLECT);
    hs_mri_gaussian (wobble, width, height, coarse, (guint) ceil (3 * coarse), HS_MRI_BORDER_REFLECT);
    /* the smoothed field's deviation falls as 1/(2σ√π): back to about ±1 */
    for (gsize i = 0; i < n; i++)
      wobble[i] = 1.0 + 0.08 * wobble[i] * 2.0 * coarse * sqrt (G_PI);
  }

  label = g_malloc (n);
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      {
        gsize i = (gsize) y * width + x;
        label[i] = (guint8) tissue_at (&head, x + 0.5, y + 0.5, wobble[i]);
      }
  grow_cortex (label, width, height, MAX (2u, (guint) floor (0.03 * head.s + 0.5)));

  /* the deep nuclei's borders with white matter are soft on T1: their
   * difference from white matter is blurred before it is added */
  deep = g_new0 (double, n);
  for (gsize i = 0; i < n; i++)
    if (label[i] == T_CAUDATE || label[i] == T_LENTIFORM || label[i] == T_THALAMUS)
      deep[i] = t1_level[label[i]] + head.level_jitter[label[i]] - t1_level[T_WM] - head.level_jitter[T_WM];
  {
    double sigma = head.s / 60.0;
    hs_mri_gaussian (deep, width, height, sigma, (guint) ceil (3 * sigma), HS_MRI_BORDER_REFLECT);
  }
  image = g_new (double, n);
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      {
        gsize i = (gsize) y * width + x;
        guint t = label[i];
        gboolean nucleus = t == T_CAUDATE || t == T_LENTIFORM || t == T_THALAMUS;
        double u = (x + 0.5 - head.cx) / head.s, v = (y + 0.5 - head.cy) / head.s;
        double level = t == T_AIR ? 0.0 : t1_level[nucleus ? T_WM : t] + head.level_jitter[nucleus ? T_WM : t];
        double bias = 1.0 + head.bias[0] * u + head.bias[1] * v + head.bias[2] * u * v;

        if (t == T_WM || nucleus)
          level += deep[i];
        image[i] = level * bias * (1.0 + 0.12 * texture[i] * (t == T_AIR ? 0 : 1));
      }
  /* partial volume at tissue borders */
  {
    double sigma = 0.6 * head.s / 128.0;
    hs_mri_gaussian (image, width, height, sigma, (guint) ceil (3 * sigma), HS_MRI_BORDER_REFLECT);
  }
  pixels = g_new (guint16, n);
  for (gsize i = 0; i < n; i++)
    {
      /* Rician noise: the magnitude of a complex signal with Gaussian noise */
      double re = image[i] + head.noise * hs_random_gauss (&noise_rng);
      double im = head.noise * hs_random_gauss (&noise_rng);
      double value = sqrt (re * re + im * im) * 56000.0;

      pixels[i] = (guint16) CLAMP (floor (value + 0.5), 0.0, 65535.0);
    }
  if (brain != NULL)
    {
      *brain = g_malloc (n);
      for (gsize i = 0; i < n; i++)
        (*brain)[i] = label[i] == T_GM || label[i] == T_WM || label[i] == T_CAUDATE
                      || label[i] == T_LENTIFORM || label[i] == T_THALAMUS;
    }
  return pixels;
}
