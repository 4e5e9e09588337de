/* hs-phantom.c — one phantom instance: random anatomy, findings, report */
#include "hs-phantom-private.h"

#include "heatscope/hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-phantom-error-quark, hs_phantom_error)

/* in HsRegionId order */
static const char *const region_names[] = {
  "right lung", "left lung",
  "right upper lung zone", "right mid lung zone", "right lower lung zone",
  "left upper lung zone", "left mid lung zone", "left lower lung zone",
  "right costophrenic angle", "left costophrenic angle",
  "right hilar structures", "left hilar structures",
  "cardiac silhouette", "mediastinum",
  "right apical zone", "left apical zone",
  NULL,
};

static const char *const lesion_conditions[HS_N_LESION_KINDS] = {
  "nodule", "mass", "consolidation", "lung opacity", "pleural effusion", "pneumothorax",
  "cardiomegaly", "atelectasis",
};

/* relative frequency of each finding among abnormal images */
static const double lesion_weights[HS_N_LESION_KINDS] = {
  0.17, 0.09, 0.15, 0.11, 0.18, 0.11, 0.08, 0.11,
};

const char *const *
hs_phantom_region_names (void)
{
  return region_names;
}

static const char *
side_name (int side)
{
  return side == 0 ? "right" : "left";
}

static double
jitter (HsRandom *rng, double amount)
{
  return hs_random_double_range (rng, -amount, amount);
}

static void
random_anatomy (HsPhantomGeom *g, HsRandom *rng, guint width, guint height)
{
  double base = MIN (width, height);
  double rot = jitter (rng, 3.0) * G_PI / 180.0;

  g->width = width;
  g->height = height;
  g->scale = base * hs_random_double_range (rng, 0.93, 1.02);
  g->cx = width / 2.0 + jitter (rng, 0.02) * base;
  g->cy = height / 2.0 + jitter (rng, 0.02) * base;
  g->cos_t = cos (rot);
  g->sin_t = sin (rot);
  g->body_w = hs_random_double_range (rng, 0.43, 0.47);
  g->shoulder_v = hs_random_double_range (rng, 0.05, 0.09);
  g->neck_w = hs_random_double_range (rng, 0.09, 0.11);
  g->med_w = hs_random_double_range (rng, 0.048, 0.062);

  for (int k = 0; k < 2; k++)
    {
      HsLungGeom *L = &g->lung[k];
      L->ua = 0.30 + jitter (rng, 0.015);
      L->va = 0.10 + jitter (rng, 0.018);
      L->uw = 0.105 + jitter (rng, 0.015) + (g->body_w - 0.45);
      L->vcp = 0.78 + jitter (rng, 0.025) + 0.012 * k;
      L->udp = 0.27 + jitter (rng, 0.02);
      L->um = 0.5 - g->med_w;
      L->hu = 0.405 + jitter (rng, 0.01);
      L->hv = 0.425 + jitter (rng, 0.015) - 0.02 * k;
    }
  g->lung[0].vdome = 0.645 + jitter (rng, 0.025);
  g->lung[1].vdome = g->lung[0].vdome + hs_random_double_range (rng, 0.01, 0.04);
  g->med_top = MIN (g->lung[0].va, g->lung[1].va) - 0.02;

  g->heart_base = MAX (g->lung[0].vdome, g->lung[1].vdome) + 0.035 + 0.01;
  g->knob_u = 0.5 + g->med_w + 0.008;
  g->knob_v = 0.29 + jitter (rng, 0.012);
  g->knob_r = 0.028 + jitter (rng, 0.004);
  g->heart_top_r = 0.47 + jitter (rng, 0.015);
  g->heart_top_l = g->knob_v + 0.8 * g->knob_r;
  g->heart_bulge_r = 0.065 + jitter (rng, 0.01);
  g->heart_bulge_l = 0.135 + jitter (rng, 0.012);
  hs_phantom_geom_update (g);
  g->carina_v = 0.33 + jitter (rng, 0.015);
  g->rib_v0 = 0.085 + jitter (rng, 0.01);
  g->rib_step = 0.061 + jitter (rng, 0.004);
  g->spine_w = 0.03 + jitter (rng, 0.003);
  g->breast = hs_random_double (rng) < 0.5 ? hs_random_double_range (rng, 0.09, 0.15) : 0.0;
  g->breast_u = hs_random_double_range (rng, 0.2, 0.28);
  g->breast_v = hs_random_double_range (rng, 0.6, 0.66);
  g->exposure = hs_random_double_range (rng, 1.35, 1.6);
  g->gamma = hs_random_double_range (rng, 1.0, 1.2);
  g->noise = hs_random_double_range (rng, 0.008, 0.016);
  g->lung_dark = hs_random_double_range (rng, 0.56, 0.66);
  g->bone_gain = hs_random_double_range (rng, 0.9, 1.2);
  g->texture_seed = hs_random_next (rng);
}

/* A point of lung `side`, zone `zone` (or any zone when < 0), whose
 * neighbourhood of radius `margin` lies in the lung too. */
static gboolean
sample_lung_point (const HsPhantomGeom *g, HsRandom *rng, int side, int zone, double margin,
                   double *u, double *v)
{
  const HsLungGeom *L = &g->lung[side];
  double v0 = L->va, v1 = L->vcp;

  if (zone >= 0)
    {
      v0 = L->va + (L->vcp - L->va) * zone / 3.0;
      v1 = L->va + (L->vcp - L->va) * (zone + 1) / 3.0;
    }
  for (int attempt = 0; attempt < 400; attempt++)
    {
      double us = hs_random_double_range (rng, L->uw, L->um);
      double vv = hs_random_double_range (rng, v0, v1);
      gboolean ok = hs_phantom_lung_contains (g, side, us, vv, 0.0);

      for (int a = 0; a < 8 && ok; a++)
        {
          double phi = a * G_PI / 4;
          ok = hs_phantom_lung_contains (g, side, us + margin * cos (phi), vv + margin * sin (phi), 0.0);
        }
      if (ok)
        {
          *u = side == 0 ? us : 1.0 - us;
          *v = vv;
          return TRUE;
        }
    }
  return FALSE;
}

static HsLesionKind
pick_kind (HsRandom *rng, const gboolean *taken)
{
  double total = 0, x;

  for (int k = 0; k < HS_N_LESION_KINDS; k++)
    if (!taken[k])
      total += lesion_weights[k];
  x = hs_random_double (rng) * total;
  for (int k = 0; k < HS_N_LESION_KINDS; k++)
    if (!taken[k])
      {
        if (x < lesion_weights[k])
          return (HsLesionKind) k;
        x -= lesion_weights[k];
      }
  for (int k = HS_N_LESION_KINDS - 1; k >= 0; k--)
    if (!taken[k])
      return (HsLesionKind) k;
  return HS_LESION_NODULE;
}

static void
add_unique (GPtrArray *names, char *name)
{
  for (guint i = 0; i < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      {
        g_free (name);
        return;
      }
  g_ptr_array_add (names, name);
}

/* Places a lesion and fills its report locations.  FALSE if it does not fit. */
static gboolean
place_lesion (HsPhantomGeom *g, HsRandom *rng, HsLesionKind kind, int side, HsLesionGeom *l,
              GPtrArray *locations)
{
  static const char *const zone_names[] = { "upper", "mid", "lower" };
  const char *s = side_name (side);
  int zone;

  memset (l, 0, sizeof *l);
  l->kind = kind;
  l->side = side;
  switch (kind)
    {
    case HS_LESION_NODULE:
    case HS_LESION_MASS:
      l->r = kind == HS_LESION_NODULE ? hs_random_double_range (rng, 0.011, 0.02) : hs_random_double_range (rng, 0.03, 0.05);
      l->density = kind == HS_LESION_NODULE ? hs_random_double_range (rng, 0.28, 0.4) : hs_random_double_range (rng, 0.32, 0.42);
      l->a1 = kind == HS_LESION_NODULE ? hs_random_double_range (rng, 0.0, 0.06) : hs_random_double_range (rng, 0.06, 0.16);
      l->a2 = kind == HS_LESION_NODULE ? hs_random_double_range (rng, 0.0, 0.04) : hs_random_double_range (rng, 0.03, 0.08);
      l->p1 = hs_random_double_range (rng, 0, 2 * G_PI);
      l->p2 = hs_random_double_range (rng, 0, 2 * G_PI);
      zone = (int) hs_random_scaled (rng, 3);
      if (!sample_lung_point (g, rng, side, zone, l->r * 1.3, &l->cu, &l->cv))
        return FALSE;
      zone = hs_phantom_lung_zone (g, side, l->cv);
      add_unique (locations, g_strdup_printf ("%s %s lung zone", s, zone_names[zone]));
      if (kind == HS_LESION_MASS)
        {
          double us = side == 0 ? l->cu : 1 - l->cu;
          double dh = hypot (us - g->lung[side].hu, l->cv - g->lung[side].hv);
          if (dh < 0.09)
            add_unique (locations, g_strdup_printf ("%s hilar structures", s));
        }
      return TRUE;

    case HS_LESION_CONSOLIDATION:
    case HS_LESION_OPACITY:
      {
        gboolean big = kind == HS_LESION_OPACITY;
        zone = (int) hs_random_scaled (rng, 3);
        if (!sample_lung_point (g, rng, side, zone, 0.02, &l->cu, &l->cv))
          return FALSE;
        l->density = big ? hs_random_double_range (rng, 0.15, 0.22) : hs_random_double_range (rng, 0.28, 0.38);
        l->n_blobs = 3 + hs_random_scaled (rng, HS_MAX_BLOBS - 2);
        for (guint b = 0; b < l->n_blobs; b++)
          {
            double spread = big ? 0.06 : 0.04;
            l->bu[b] = l->cu + jitter (rng, spread);
            l->bv[b] = l->cv + jitter (rng, spread);
            l->brx[b] = hs_random_double_range (rng, 0.025, big ? 0.065 : 0.05);
            l->bry[b] = hs_random_double_range (rng, 0.02, big ? 0.06 : 0.045);
          }
        /* zones of the blob centres that lie in the lung, top to bottom */
        for (int z = 0; z < 3; z++)
          for (guint b = 0; b < l->n_blobs; b++)
            {
              double us = side == 0 ? l->bu[b] : 1 - l->bu[b];
              if (hs_phantom_lung_contains (g, side, us, l->bv[b], 0.0)
                  && hs_phantom_lung_zone (g, side, l->bv[b]) == z)
                {
                  add_unique (locations, g_strdup_printf ("%s %s lung zone", s, zone_names[z]));
                  break;
                }
            }
        if (locations->len == 0)
          add_unique (locations, g_strdup_printf ("%s %s lung zone", s,
                                                  zone_names[hs_phantom_lung_zone (g, side, l->cv)]));
        return TRUE;
      }

    case HS_LESION_ATELECTASIS:
      l->r = hs_random_double_range (rng, 0.045, 0.075);
      l->a1 = hs_random_double_range (rng, 0.006, 0.011);
      l->level = jitter (rng, 0.25) + (side == 0 ? 0.1 : -0.1);
      l->density = hs_random_double_range (rng, 0.2, 0.3);
      if (!sample_lung_point (g, rng, side, 2, 0.025, &l->cu, &l->cv))
        return FALSE;
      add_unique (locations, g_strdup_printf ("%s %s lung zone", s,
                                              zone_names[hs_phantom_lung_zone (g, side, l->cv)]));
      return TRUE;

    case HS_LESION_EFFUSION:
      if (hs_random_double (rng) < 0.15)
        l->side = 2;
      l->level = hs_random_double_range (rng, -0.05, 0.05);
      l->r = hs_random_double_range (rng, 0.025, 0.05);
      for (int k = 0; k < 2; k++)
        if (l->side == 2 || l->side == k)
          {
            add_unique (locations, g_strdup_printf ("%s costophrenic angle", side_name (k)));
            if (l->level < -0.02)
              add_unique (locations, g_strdup_printf ("%s lower lung zone", side_name (k)));
          }
      return TRUE;

    case HS_LESION_PNEUMOTHORAX:
      l->level = hs_random_double_range (rng, 0.018, 0.05);
      add_unique (locations, g_strdup_printf (l->level < 0.036 ? "%s apical zone" : "%s lung", s));
      return TRUE;

    case HS_LESION_CARDIOMEGALY:
      l->side = 2;
      g->heart_bulge_l *= hs_random_double_range (rng, 1.5, 1.7);
      g->heart_bulge_r *= hs_random_double_range (rng, 1.6, 1.9);
      hs_phantom_geom_update (g);
      add_unique (locations, g_strdup ("cardiac silhouette"));
      return TRUE;

    default:
      return FALSE;
    }
}

static HsPhantomSide
public_side (int side)
{
  return side == 0 ? HS_PHANTOM_SIDE_RIGHT : side == 1 ? HS_PHANTOM_SIDE_LEFT : HS_PHANTOM_SIDE_BOTH;
}

static void
region_free (HsPhantomRegion *region)
{
  g_free (region->name);
  g_free (region);
}

static void
finding_free (HsPhantomFinding *finding)
{
  g_free (finding->condition);
  g_free (finding->name);
  g_strfreev (finding->locations);
  g_free (finding->mask);
  g_free (finding);
}

static gboolean
boxes_intersect (const HsBox *a, const HsBox *b)
{
  return a->x1 < b->x2 && b->x1 < a->x2 && a->y1 < b->y2 && b->y1 < a->y2;
}

static guint
pick_variant (HsRandom *rng, guint n_variants)
{
  /* the A.3 template (variant 0) is the most common phrasing */
  return hs_random_double (rng) < 0.4 ? 0 : 1 + hs_random_scaled (rng, n_variants - 1);
}

/* Is `region` free of every lesion of the lungs (cardiomegaly aside)? */
static gboolean
region_is_clear (const HsPhantom *p, const char *region)
{
  const HsPhantomRegion *r = hs_phantom_find_region (p, region);

  if (r == NULL)
    return FALSE;
  for (guint i = 0; i < p->findings->len; i++)
    {
      const HsPhantomFinding *f = g_ptr_array_index (p->findings, i);
      gboolean cardio = strcmp (f->condition, "cardiomegaly") == 0;
      if (strcmp (region, "cardiac silhouette") == 0 ? cardio
          : (!cardio && boxes_intersect (&r->box, &f->box)))
        return FALSE;
      if (f->locations != NULL && g_strv_contains ((const char *const *) f->locations, region))
        return FALSE;
    }
  return TRUE;
}

static gboolean
has_condition_on_side (const HsPhantom *p, const char *condition, HsPhantomSide side)
{
  for (guint i = 0; i < p->findings->len; i++)
    {
      const HsPhantomFinding *f = g_ptr_array_index (p->findings, i);
      if (strcmp (f->condition, condition) == 0
          && (side == HS_PHANTOM_SIDE_NONE || f->side == side || f->side == HS_PHANTOM_SIDE_BOTH))
        return TRUE;
    }
  return FALSE;
}

static void
write_report (HsPhantom *p, HsRandom *rng)
{
  static const char *const side_conditions[] = {
    "pleural effusion", "pneumothorax", "consolidation", "nodule", "atelectasis",
  };
  static const char *const clear_candidates[] = {
    "right lung", "left lung", "right upper lung zone", "right mid lung zone",
    "right lower lung zone", "left upper lung zone", "left mid lung zone",
    "left lower lung zone", "right costophrenic angle", "left costophrenic angle",
    "right hilar structures", "left hilar structures", "cardiac silhouette",
    "right apical zone", "left apical zone",
  };
  const char *const *conditions = hs_report_conditions ();
  int lung_side = -1;

  for (guint i = 0; i < p->findings->len; i++)
    {
      const HsPhantomFinding *f = g_ptr_array_index (p->findings, i);
      HsReportFinding rf = { f->condition, (const char *const *) f->locations, f->name };
      g_ptr_array_add (p->sentences, hs_report_positive (&rf, pick_variant (rng, 6)));
      if (f->side == HS_PHANTOM_SIDE_RIGHT || f->side == HS_PHANTOM_SIDE_LEFT)
        lung_side = lung_side == -1 ? (int) f->side : lung_side == (int) f->side ? lung_side : -2;
    }

  /* the other lung is clear: what teaches a model to follow the side word */
  if (lung_side >= 0 && hs_random_double (rng) < 0.75)
    {
      const char *other = lung_side == HS_PHANTOM_SIDE_RIGHT ? "left lung" : "right lung";
      if (region_is_clear (p, other))
        g_ptr_array_add (p->sentences, hs_report_clear (other, hs_random_scaled (rng, 3)));
    }
  /* a region said to be clear, chosen among the clear ones */
  {
    guint wanted = p->findings->len == 0 ? 2 : 1;
    for (guint attempt = 0; attempt < 12 && wanted > 0; attempt++)
      {
        const char *region = clear_candidates[hs_random_scaled (rng, G_N_ELEMENTS (clear_candidates))];
        gboolean dup = FALSE;

        for (guint i = 0; i < p->sentences->len && !dup; i++)
          {
            const HsReportSentence *s = g_ptr_array_index (p->sentences, i);
            dup = s->style == HS_REPORT_STYLE_CLEAR && g_strv_contains ((const char *const *) s->targets, region);
          }
        if (!dup && region_is_clear (p, region))
          {
            g_ptr_array_add (p->sentences, hs_report_clear (region, hs_random_scaled (rng, 3)));
            wanted--;
          }
      }
  }
  /* "No effusion on the left." */
  if (hs_random_double (rng) < 0.6)
    {
      const char *condition = side_conditions[hs_random_scaled (rng, G_N_ELEMENTS (side_conditions))];
      int side = (int) hs_random_scaled (rng, 2);
      HsPhantomSide ps = side == 0 ? HS_PHANTOM_SIDE_RIGHT : HS_PHANTOM_SIDE_LEFT;
      g_autofree char *lung = g_strdup_printf ("%s lung", side_name (side));

      if (!has_condition_on_side (p, condition, ps) && region_is_clear (p, lung))
        g_ptr_array_add (p->sentences, hs_report_negative (condition, lung, hs_random_scaled (rng, 3)));
    }
  /* global negatives for conditions the image does not show */
  {
    guint wanted = 1 + hs_random_scaled (rng, 2);
    guint n = g_strv_length ((char **) conditions);
    guint start = hs_random_scaled (rng, n);

    for (guint i = 0; i < n && wanted > 0; i++)
      {
        const char *c = conditions[(start + i * 3) % n];
        if (!has_condition_on_side (p, c, HS_PHANTOM_SIDE_NONE) && hs_random_double (rng) < 0.6)
          {
            g_ptr_array_add (p->sentences, hs_report_negative (c, NULL, pick_variant (rng, 3)));
            wanted--;
          }
      }
  }
}

static void
set_box (HsBox *box, const int *b)
{
  box->x1 = b[0];
  box->y1 = b[1];
  box->x2 = b[2];
  box->y2 = b[3];
}

HsPhantom *
hs_phantom_generate (guint64 seed, guint64 index, guint width, guint height, GError **error)
{
  g_autoptr(HsPhantom) p = NULL;
  HsPhantomGeom g = { 0 };
  HsPhantomRaster raster;
  GPtrArray *locations[HS_MAX_LESIONS] = { NULL };
  HsRandom rng;
  gboolean taken[HS_N_LESION_KINDS] = { FALSE };
  guint n_wanted = 0;

  if (width < HS_PHANTOM_MIN_SIZE || height < HS_PHANTOM_MIN_SIZE)
    {
      g_set_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_INVALID,
                   _("phantom size %u×%u is below the minimum of %u pixels"), width, height,
                   HS_PHANTOM_MIN_SIZE);
      return NULL;
    }
  if ((guint64) width * height > hs_limits_get ()->max_image_pixels)
    {
      g_set_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_TOO_LARGE,
                   _("phantom size %u×%u is over the limit of %" PRIu64 " pixels"),
                   width, height, hs_limits_get ()->max_image_pixels);
      return NULL;
    }

  hs_phantom_rng_init (&rng, seed, 1, index);
  random_anatomy (&g, &rng, width, height);

  /* ~35 % normal; abnormal images get 1–3 findings, most on one side */
  if (hs_random_double (&rng) >= 0.35)
    {
      double x = hs_random_double (&rng);
      n_wanted = x < 0.5 ? 1 : x < 0.85 ? 2 : 3;
    }
  {
    HsLesionKind kinds[HS_MAX_LESIONS];
    for (guint i = 0; i < n_wanted; i++)
      {
        kinds[i] = pick_kind (&rng, taken);
        taken[kinds[i]] = TRUE;
      }
    /* the heart's size first: lung lesions are placed around it */
    for (guint i = 1; i < n_wanted; i++)
      if (kinds[i] == HS_LESION_CARDIOMEGALY)
        {
          kinds[i] = kinds[0];
          kinds[0] = HS_LESION_CARDIOMEGALY;
        }
  for (guint i = 0; i < n_wanted; i++)
    {
      HsLesionKind kind = kinds[i];
      int side = (int) hs_random_scaled (&rng, 2);
      GPtrArray *locs = g_ptr_array_new_with_free_func (g_free);

      /* a pneumothorax and an effusion on the same side would be a
       * hydropneumothorax: keep them apart */
      for (guint j = 0; j < g.n_lesions; j++)
        if ((kind == HS_LESION_PNEUMOTHORAX && g.lesions[j].kind == HS_LESION_EFFUSION)
            || (kind == HS_LESION_EFFUSION && g.lesions[j].kind == HS_LESION_PNEUMOTHORAX))
          side = g.lesions[j].side == 0 ? 1 : 0;
      if (place_lesion (&g, &rng, kind, side, &g.lesions[g.n_lesions], locs))
        {
          if (kind == HS_LESION_EFFUSION && g.lesions[g.n_lesions].side == 2)
            for (guint j = 0; j < g.n_lesions; j++)
              if (g.lesions[j].kind == HS_LESION_PNEUMOTHORAX)
                {
                  /* no bilateral effusion next to a pneumothorax */
                  g.lesions[g.n_lesions].side = g.lesions[j].side == 0 ? 1 : 0;
                  g_ptr_array_set_size (locs, 0);
                  add_unique (locs, g_strdup_printf ("%s costophrenic angle",
                                                     side_name (g.lesions[g.n_lesions].side)));
                }
          locations[g.n_lesions++] = locs;
        }
      else
        g_ptr_array_unref (locs);
    }
  }

  if (!hs_phantom_render (&g, &raster, error))
    {
      for (guint i = 0; i < g.n_lesions; i++)
        g_ptr_array_unref (locations[i]);
      return NULL;
    }

  p = g_new0 (HsPhantom, 1);
  p->seed = seed;
  p->index = index;
  p->width = width;
  p->height = height;
  p->pixels = raster.pixels;
  p->regions = g_ptr_array_new_with_free_func ((GDestroyNotify) region_free);
  p->findings = g_ptr_array_new_with_free_func ((GDestroyNotify) finding_free);
  p->sentences = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_report_sentence_free);

  for (int r = 0; r < HS_N_REGIONS; r++)
    {
      HsPhantomRegion *region = g_new0 (HsPhantomRegion, 1);
      region->name = g_strdup (region_names[r]);
      if (raster.region_found[r])
        set_box (&region->box, raster.region_box[r]);
      else
        {
          /* cannot happen for sizes ≥ HS_PHANTOM_MIN_SIZE; keep a valid box anyway */
          region->box = (HsBox) { width / 2.0, height / 2.0, width / 2.0 + 1, height / 2.0 + 1 };
        }
      g_ptr_array_add (p->regions, region);
    }
  for (guint i = 0; i < g.n_lesions; i++)
    {
      HsPhantomFinding *f;

      if (!raster.lesion_found[i])
        {
          /* too small to cover a pixel at this size: not a finding */
          g_free (raster.lesion_mask[i]);
          g_ptr_array_unref (locations[i]);
          continue;
        }
      f = g_new0 (HsPhantomFinding, 1);
      f->condition = g_strdup (lesion_conditions[g.lesions[i].kind]);
      f->name = g_strdup (f->condition);
      g_ptr_array_add (locations[i], NULL);
      f->locations = (char **) g_ptr_array_free (locations[i], FALSE);
      f->side = g.lesions[i].kind == HS_LESION_CARDIOMEGALY ? HS_PHANTOM_SIDE_NONE
                                                            : public_side (g.lesions[i].side);
      set_box (&f->box, raster.lesion_box[i]);
      f->mask = raster.lesion_mask[i];
      g_ptr_array_add (p->findings, f);
    }
  p->abnormal = p->findings->len > 0;
  write_report (p, &rng);
  return g_steal_pointer (&p);
}

void
hs_phantom_free (HsPhantom *phantom)
{
  if (phantom == NULL)
    return;
  g_free (phantom->pixels);
  g_clear_pointer (&phantom->regions, g_ptr_array_unref);
  g_clear_pointer (&phantom->findings, g_ptr_array_unref);
  g_clear_pointer (&phantom->sentences, g_ptr_array_unref);
  g_free (phantom);
}

const HsPhantomRegion *
hs_phantom_find_region (const HsPhantom *phantom, const char *name)
{
  g_return_val_if_fail (phantom != NULL && name != NULL, NULL);
  for (guint i = 0; i < phantom->regions->len; i++)
    {
      const HsPhantomRegion *r = g_ptr_array_index (phantom->regions, i);
      if (strcmp (r->name, name) == 0)
        return r;
    }
  return NULL;
}

const HsPhantomFinding *
hs_phantom_find_finding (const HsPhantom *phantom, const char *name)
{
  g_return_val_if_fail (phantom != NULL && name != NULL, NULL);
  for (guint i = 0; i < phantom->findings->len; i++)
    {
      const HsPhantomFinding *f = g_ptr_array_index (phantom->findings, i);
      if (strcmp (f->name, name) == 0)
        return f;
    }
  return NULL;
}

gboolean
hs_phantom_get_box (const HsPhantom *phantom, const char *name, HsBox *box)
{
  const HsPhantomRegion *r;
  const HsPhantomFinding *f;

  g_return_val_if_fail (phantom != NULL && name != NULL && box != NULL, FALSE);
  if ((r = hs_phantom_find_region (phantom, name)) != NULL)
    {
      *box = r->box;
      return TRUE;
    }
  if ((f = hs_phantom_find_finding (phantom, name)) != NULL)
    {
      *box = f->box;
      return TRUE;
    }
  return FALSE;
}

/* ---- simulated attention ---- */

static void
add_box_blob (double *grid, guint n, const HsPhantom *p, const HsBox *b, double weight)
{
  double cx = (b->x1 + b->x2) / 2.0 / p->width * n, cy = (b->y1 + b->y2) / 2.0 / p->height * n;
  double sx = 0.45 * (b->x2 - b->x1) / p->width * n + 0.6;
  double sy = 0.45 * (b->y2 - b->y1) / p->height * n + 0.6;

  for (guint y = 0; y < n; y++)
    for (guint x = 0; x < n; x++)
      {
        double dx = (x + 0.5 - cx) / sx, dy = (y + 0.5 - cy) / sy;
        grid[y * n + x] += weight * exp (-0.5 * (dx * dx + dy * dy));
      }
}

double *
hs_phantom_simulate_map (const HsPhantom *phantom, const char *model, const HsBox *boxes,
                         guint n_boxes, guint64 key, guint grid)
{
  g_autofree double *values = NULL;
  gboolean blind;
  guint64 stream;
  double max = 0, sum = 0;
  HsRandom rng;

  g_return_val_if_fail (phantom != NULL && model != NULL, NULL);
  g_return_val_if_fail (grid >= 1 && grid <= 1024, NULL);

  /* coattn-sim follows the text like sim-grounded, with noise of its own */
  if (strcmp (model, HS_PHANTOM_SIM_GROUNDED) == 0)
    blind = FALSE, stream = 22;
  else if (strcmp (model, HS_PHANTOM_SIM_BLIND) == 0)
    blind = TRUE, stream = 21;
  else if (strcmp (model, HS_PHANTOM_SIM_COATTN) == 0)
    blind = FALSE, stream = 23;
  else
    return NULL;

  values = g_new0 (double, (gsize) grid * grid);
  hs_phantom_rng_init (&rng, phantom->seed ^ key, stream, phantom->index);
  if (blind)
    {
      /* the lesions, whatever the text says; salient anatomy when there are none */
      if (phantom->findings->len > 0)
        for (guint i = 0; i < phantom->findings->len; i++)
          {
            const HsPhantomFinding *f = g_ptr_array_index (phantom->findings, i);
            add_box_blob (values, grid, phantom, &f->box, 1.0);
          }
      else
        {
          const char *salient[] = { "right hilar structures", "left hilar structures", "cardiac silhouette" };
          for (gsize i = 0; i < G_N_ELEMENTS (salient); i++)
            add_box_blob (values, grid, phantom, &hs_phantom_find_region (phantom, salient[i])->box, 0.7);
        }
    }
  else if (n_boxes > 0)
    for (guint i = 0; i < n_boxes; i++)
      add_box_blob (values, grid, phantom, &boxes[i], 1.0);
  else
    {
      /* nothing named: a diffuse look over both lungs */
      add_box_blob (values, grid, phantom, &hs_phantom_find_region (phantom, "right lung")->box, 0.5);
      add_box_blob (values, grid, phantom, &hs_phantom_find_region (phantom, "left lung")->box, 0.5);
    }
  for (gsize i = 0; i < (gsize) grid * grid; i++)
    max = MAX (max, values[i]);
  for (gsize i = 0; i < (gsize) grid * grid; i++)
    {
      values[i] += max * (0.02 + 0.18 * hs_random_double (&rng));
      sum += values[i];
    }
  for (gsize i = 0; i < (gsize) grid * grid; i++)
    values[i] /= sum;
  return g_steal_pointer (&values);
}
