/* test-phantom.c — phantom anatomy invariants, lesions, reports, determinism */
#include <heatscope/heatscope.h>
#include <heatscope/hs-phantom.h>

#include "hs-test-util.h"

#include <math.h>
#include <string.h>

static const HsBox *
box_of (const HsPhantom *p, const char *name)
{
  const HsPhantomRegion *r = hs_phantom_find_region (p, name);
  g_assert_nonnull (r);
  return &r->box;
}

static double
cx (const HsBox *b)
{
  return (b->x1 + b->x2) / 2;
}

static double
cy (const HsBox *b)
{
  return (b->y1 + b->y2) / 2;
}

static gboolean
box_inside (const HsBox *inner, const HsBox *outer)
{
  return inner->x1 >= outer->x1 && inner->y1 >= outer->y1
         && inner->x2 <= outer->x2 && inner->y2 <= outer->y2;
}

static gboolean
boxes_intersect (const HsBox *a, const HsBox *b)
{
  return a->x1 < b->x2 && b->x1 < a->x2 && a->y1 < b->y2 && b->y1 < a->y2;
}

static double
mean_in_box (const HsPhantom *p, const HsBox *b)
{
  double sum = 0;
  guint n = 0;

  for (guint y = (guint) b->y1; y < (guint) b->y2; y++)
    for (guint x = (guint) b->x1; x < (guint) b->x2; x++)
      {
        sum += p->pixels[(gsize) y * p->width + x];
        n++;
      }
  return n > 0 ? sum / n : 0;
}

static void
check_anatomy (const HsPhantom *p)
{
  const char *const *names = hs_phantom_region_names ();
  double w = p->width, h = p->height, mid = w / 2;
  const HsBox *rl = box_of (p, "right lung"), *ll = box_of (p, "left lung");

  g_assert_cmpuint (p->regions->len, ==, g_strv_length ((char **) names));
  for (guint i = 0; names[i] != NULL; i++)
    {
      const HsBox *b = box_of (p, names[i]);
      g_assert_cmpfloat (b->x1, >=, 0);
      g_assert_cmpfloat (b->y1, >=, 0);
      g_assert_cmpfloat (b->x2, <=, w);
      g_assert_cmpfloat (b->y2, <=, h);
      g_assert_cmpfloat (b->x1, <, b->x2);
      g_assert_cmpfloat (b->y1, <, b->y2);
    }
  /* patient's right on the image's left */
  g_assert_cmpfloat (cx (rl), <, mid);
  g_assert_cmpfloat (cx (ll), >, mid);
  g_assert_cmpfloat (rl->x2, <=, mid + 0.03 * w);
  g_assert_cmpfloat (ll->x1, >=, mid - 0.03 * w);
  /* lungs cover a plausible part of the image */
  g_assert_cmpfloat (rl->x2 - rl->x1, >, 0.2 * w);
  g_assert_cmpfloat (rl->y2 - rl->y1, >, 0.4 * MIN (w, h));

  for (int side = 0; side < 2; side++)
    {
      const char *s = side == 0 ? "right" : "left";
      const HsBox *lung = side == 0 ? rl : ll;
      g_autofree char *upper = g_strdup_printf ("%s upper lung zone", s);
      g_autofree char *midz = g_strdup_printf ("%s mid lung zone", s);
      g_autofree char *lower = g_strdup_printf ("%s lower lung zone", s);
      g_autofree char *apex = g_strdup_printf ("%s apical zone", s);
      g_autofree char *cp = g_strdup_printf ("%s costophrenic angle", s);
      g_autofree char *hilum = g_strdup_printf ("%s hilar structures", s);
      const HsBox *bu = box_of (p, upper), *bm = box_of (p, midz), *bl = box_of (p, lower);
      const HsBox *ba = box_of (p, apex), *bc = box_of (p, cp), *bh = box_of (p, hilum);

      g_assert_true (box_inside (bu, lung));
      g_assert_true (box_inside (bm, lung));
      g_assert_true (box_inside (bl, lung));
      g_assert_true (box_inside (ba, lung));
      g_assert_cmpfloat (cy (bu), <, cy (bm));
      g_assert_cmpfloat (cy (bm), <, cy (bl));
      /* the zones tile the lung from top to bottom */
      g_assert_cmpfloat (bu->y1, ==, lung->y1);
      g_assert_cmpfloat (bl->y2, ==, lung->y2);
      g_assert_cmpfloat (fabs (bu->y2 - bm->y1), <=, 2);
      g_assert_cmpfloat (ba->y1, ==, lung->y1);
      g_assert_cmpfloat (ba->y2, <, bm->y1);
      /* the costophrenic angle: lateral and at the bottom of its lung */
      g_assert_true (boxes_intersect (bc, lung));
      g_assert_cmpfloat (bc->y2, >=, lung->y2 - 0.02 * h);
      g_assert_cmpfloat (bc->y1, >, cy (lung));
      if (side == 0)
        g_assert_cmpfloat (cx (bc), <, cx (lung));
      else
        g_assert_cmpfloat (cx (bc), >, cx (lung));
      /* hila: medial half of the lung, mid height */
      if (side == 0)
        g_assert_cmpfloat (cx (bh), >, cx (lung));
      else
        g_assert_cmpfloat (cx (bh), <, cx (lung));
      g_assert_cmpfloat (cy (bh), >, bu->y1);
      g_assert_cmpfloat (cy (bh), <, bl->y1);
    }
  {
    const HsBox *heart = box_of (p, "cardiac silhouette"), *med = box_of (p, "mediastinum");
    /* the heart crosses the midline, more of it on the patient's left */
    g_assert_cmpfloat (heart->x1, <, mid);
    g_assert_cmpfloat (heart->x2, >, mid);
    g_assert_cmpfloat (heart->x2 - mid, >, mid - heart->x1);
    g_assert_cmpfloat (cy (heart), >, cy (rl));
    g_assert_cmpfloat (med->x1, <, mid);
    g_assert_cmpfloat (med->x2, >, mid);
  }
}

static void
check_findings (const HsPhantom *p)
{
  double mid = p->width / 2.0;

  g_assert_cmpuint (p->findings->len, <=, 3);
  g_assert_cmpint (p->abnormal, ==, p->findings->len > 0);
  for (guint i = 0; i < p->findings->len; i++)
    {
      const HsPhantomFinding *f = g_ptr_array_index (p->findings, i);
      guint n = 0;
      gboolean touch[4] = { FALSE, FALSE, FALSE, FALSE };

      /* every mask pixel lies in the box, and the box is tight */
      for (guint y = 0; y < p->height; y++)
        for (guint x = 0; x < p->width; x++)
          if (f->mask[(gsize) y * p->width + x] != 0)
            {
              g_assert_cmpuint (f->mask[(gsize) y * p->width + x], ==, 255);
              g_assert_true (f->box.x1 <= x + 0.5 && x + 0.5 < f->box.x2);
              g_assert_true (f->box.y1 <= y + 0.5 && y + 0.5 < f->box.y2);
              touch[0] |= x == f->box.x1;
              touch[1] |= y == f->box.y1;
              touch[2] |= x + 1 == f->box.x2;
              touch[3] |= y + 1 == f->box.y2;
              n++;
            }
      g_assert_cmpuint (n, >, 0);
      g_assert_true (touch[0] && touch[1] && touch[2] && touch[3]);
      g_assert_nonnull (f->locations[0]);
      for (guint l = 0; f->locations[l] != NULL; l++)
        g_assert_nonnull (hs_phantom_find_region (p, f->locations[l]));

      /* one-sided findings lie in their lung's image half */
      if (f->side == HS_PHANTOM_SIDE_RIGHT)
        {
          g_assert_cmpfloat (cx (&f->box), <, mid);
          g_assert_true (boxes_intersect (&f->box, box_of (p, "right lung")));
        }
      else if (f->side == HS_PHANTOM_SIDE_LEFT)
        {
          g_assert_cmpfloat (cx (&f->box), >, mid);
          g_assert_true (boxes_intersect (&f->box, box_of (p, "left lung")));
        }
      if (strcmp (f->condition, "pleural effusion") == 0)
        {
          /* blunts a costophrenic angle: covers the angle's lowest lung rows */
          gboolean at_angle = FALSE;
          for (int side = 0; side < 2; side++)
            {
              g_autofree char *cp = g_strdup_printf ("%s costophrenic angle", side == 0 ? "right" : "left");
              if (g_strv_contains ((const char *const *) f->locations, cp))
                {
                  g_assert_true (boxes_intersect (&f->box, box_of (p, cp)));
                  at_angle = TRUE;
                }
            }
          g_assert_true (at_angle);
          g_assert_cmpfloat (f->box.y2, >=, MIN (box_of (p, "right lung")->y2, box_of (p, "left lung")->y2) - 2);
        }
      if (strcmp (f->condition, "cardiomegaly") == 0)
        {
          /* cardiothoracic ratio above 0.5 */
          const HsBox *heart = box_of (p, "cardiac silhouette");
          double thorax = box_of (p, "left lung")->x2 - box_of (p, "right lung")->x1;
          g_assert_cmpfloat ((heart->x2 - heart->x1) / thorax, >, 0.5);
          g_assert_cmpint (f->side, ==, HS_PHANTOM_SIDE_NONE);
        }
    }
  if (hs_phantom_find_finding (p, "cardiomegaly") == NULL)
    {
      const HsBox *heart = box_of (p, "cardiac silhouette");
      double thorax = box_of (p, "left lung")->x2 - box_of (p, "right lung")->x1;
      g_assert_cmpfloat ((heart->x2 - heart->x1) / thorax, <, 0.5);
    }
}

static void
check_sentences (const HsPhantom *p)
{
  guint n_positive = 0;

  g_assert_cmpuint (p->sentences->len, >=, 2);
  for (guint i = 0; i < p->sentences->len; i++)
    {
      const HsReportSentence *s = g_ptr_array_index (p->sentences, i);
      HsBox box;

      for (guint t = 0; s->targets[t] != NULL; t++)
        g_assert_true (hs_phantom_get_box (p, s->targets[t], &box));
      if (strcmp (s->context, "positive") == 0)
        {
          n_positive++;
          /* positive sentences name the lesion */
          g_assert_nonnull (hs_phantom_find_finding (p, s->targets[g_strv_length (s->targets) - 1]));
        }
      else if (s->style == HS_REPORT_STYLE_CLEAR && strcmp (s->targets[0], "cardiac silhouette") == 0)
        g_assert_null (hs_phantom_find_finding (p, "cardiomegaly"));
      else if (s->style == HS_REPORT_STYLE_CLEAR)
        {
          /* a region said to be clear holds no lung lesion */
          for (guint f = 0; f < p->findings->len; f++)
            {
              const HsPhantomFinding *finding = g_ptr_array_index (p->findings, f);
              if (strcmp (finding->condition, "cardiomegaly") != 0)
                g_assert_false (boxes_intersect (&finding->box, box_of (p, s->targets[0])));
            }
        }
    }
  g_assert_cmpuint (n_positive, ==, p->findings->len);
}

static void
check_densities (const HsPhantom *p)
{
  const HsBox *mid_zone = box_of (p, "right mid lung zone");
  const HsBox *med = box_of (p, "mediastinum");
  HsBox lung_core = { cx (mid_zone) - 3, cy (mid_zone) - 3, cx (mid_zone) + 3, cy (mid_zone) + 3 };
  HsBox med_core = { p->width / 2.0 - 2, cy (med) - 3, p->width / 2.0 + 2, cy (med) + 3 };
  /* below the waist, outside the body: direct exposure */
  HsBox corner = { 0, floor (0.97 * p->height), MAX (1, floor (0.015 * p->width)), p->height };

  /* air outside the body is darkest, aerated lung darker than the mediastinum */
  g_assert_cmpfloat (mean_in_box (p, &corner), <, mean_in_box (p, &lung_core));
  g_assert_cmpfloat (mean_in_box (p, &lung_core) + 8000, <, mean_in_box (p, &med_core));
}

static void
test_anatomy_many (void)
{
  guint n_normal = 0, n_one_sided = 0, n_instances = 120;
  guint per_condition[8] = { 0 };
  const char *const *conditions = hs_report_conditions ();

  for (guint i = 0; i < n_instances; i++)
    {
      g_autoptr(GError) error = NULL;
      guint w = i % 3 == 0 ? 160 : 128, h = i % 3 == 0 ? 128 : (i % 3 == 1 ? 128 : 176);
      g_autoptr(HsPhantom) p = hs_phantom_generate (42, i, w, h, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (p->width, ==, w);
      g_assert_cmpuint (p->height, ==, h);
      check_anatomy (p);
      check_findings (p);
      check_sentences (p);
      check_densities (p);
      n_normal += !p->abnormal;
      for (guint f = 0; f < p->findings->len; f++)
        {
          const HsPhantomFinding *finding = g_ptr_array_index (p->findings, f);
          n_one_sided += finding->side == HS_PHANTOM_SIDE_LEFT || finding->side == HS_PHANTOM_SIDE_RIGHT;
          for (guint c = 0; c < 8; c++)
            per_condition[c] += strcmp (finding->condition, conditions[c]) == 0;
        }
    }
  /* ~35 % normal (binomial: 120 draws, mean 42, sd 5.2) */
  g_assert_cmpuint (n_normal, >=, 25);
  g_assert_cmpuint (n_normal, <=, 60);
  g_assert_cmpuint (n_one_sided, >=, 60);
  for (guint c = 0; c < 8; c++)
    {
      g_test_message ("%s: %u", conditions[c], per_condition[c]);
      g_assert_cmpuint (per_condition[c], >, 0);
    }
}

static void
test_full_size (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsPhantom) p = hs_phantom_generate (1, 5, 1024, 1024, &error);

  g_assert_no_error (error);
  check_anatomy (p);
  check_findings (p);
  check_sentences (p);
  check_densities (p);
}

static void
test_deterministic (void)
{
  g_autoptr(HsPhantom) a = hs_phantom_generate (9, 17, 200, 150, NULL);
  g_autoptr(HsPhantom) b = hs_phantom_generate (9, 17, 200, 150, NULL);
  g_autoptr(HsPhantom) c = hs_phantom_generate (9, 18, 200, 150, NULL);
  g_autoptr(HsPhantom) d = hs_phantom_generate (10, 17, 200, 150, NULL);
  gsize bytes = 200 * 150 * sizeof (guint16);

  g_assert_cmpmem (a->pixels, bytes, b->pixels, bytes);
  g_assert_cmpuint (a->sentences->len, ==, b->sentences->len);
  for (guint i = 0; i < a->sentences->len; i++)
    g_assert_cmpstr (((HsReportSentence *) g_ptr_array_index (a->sentences, i))->text, ==,
                     ((HsReportSentence *) g_ptr_array_index (b->sentences, i))->text);
  g_assert_true (memcmp (a->pixels, c->pixels, bytes) != 0);
  g_assert_true (memcmp (a->pixels, d->pixels, bytes) != 0);
}

static void
test_bad_sizes (void)
{
  g_autoptr(GError) error = NULL;
  HsLimits limits = *hs_limits_get ();
  HsPhantom *p = hs_phantom_generate (1, 0, 63, 200, &error);

  g_assert_null (p);
  g_assert_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "63"));
  g_clear_error (&error);

  limits.max_image_pixels = 100 * 100;
  hs_limits_set (&limits);
  p = hs_phantom_generate (1, 0, 200, 200, &error);
  hs_limits_reset ();
  g_assert_null (p);
  g_assert_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_TOO_LARGE);
}

static void
argmax_cell (const double *v, guint n, guint *gx, guint *gy)
{
  guint best = 0;
  for (guint i = 1; i < n * n; i++)
    if (v[i] > v[best])
      best = i;
  *gx = best % n;
  *gy = best / n;
}

static void
test_simulated_maps (void)
{
  g_autoptr(HsPhantom) p = NULL;
  guint index = 0;

  /* the first instance with a one-sided lung lesion */
  for (;; index++)
    {
      p = hs_phantom_generate (3, index, 128, 128, NULL);
      if (p->findings->len == 1
          && ((HsPhantomFinding *) g_ptr_array_index (p->findings, 0))->side == HS_PHANTOM_SIDE_RIGHT)
        break;
      g_clear_pointer (&p, hs_phantom_free);
    }
  {
    const HsPhantomFinding *f = g_ptr_array_index (p->findings, 0);
    const HsBox *left = box_of (p, "left lung");
    g_autofree double *grounded = hs_phantom_simulate_map (p, HS_PHANTOM_SIM_GROUNDED, left, 1, 5, 16);
    g_autofree double *blind = hs_phantom_simulate_map (p, HS_PHANTOM_SIM_BLIND, left, 1, 5, 16);
    double sum_g = 0, sum_b = 0;
    guint gx, gy;

    g_assert_null (hs_phantom_simulate_map (p, "nope", left, 1, 5, 16));
    for (guint i = 0; i < 256; i++)
      {
        g_assert_cmpfloat (grounded[i], >, 0);
        sum_g += grounded[i];
        sum_b += blind[i];
      }
    g_assert_cmpfloat_with_epsilon (sum_g, 1.0, 1e-9);
    g_assert_cmpfloat_with_epsilon (sum_b, 1.0, 1e-9);
    /* grounded looks where the text points (the left lung: image right) */
    argmax_cell (grounded, 16, &gx, &gy);
    g_assert_cmpuint (gx, >=, 8);
    /* blind looks at the lesion (patient's right: image left) */
    argmax_cell (blind, 16, &gx, &gy);
    g_assert_cmpuint (gx, <, 8);
    g_assert_cmpfloat ((gx + 0.5) * 8, >=, f->box.x1 - 8);
    g_assert_cmpfloat ((gx + 0.5) * 8, <=, f->box.x2 + 8);
  }
}

/* The pixels, masks and boxes of `count` phantoms from (seed, first):
 * SHA-256 of their bytes (pixels little-endian, boxes as text). */
static char *
phantom_group_digest (guint64 seed, guint64 first, guint count, guint width, guint height)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  char *digest;

  for (guint64 i = first; i < first + count; i++)
    {
      g_autoptr(GError) error = NULL;
      HsPhantom *p = hs_phantom_generate (seed, i, width, height, &error);
      gsize n = (gsize) width * height;
      g_autofree guint8 *le = g_new (guint8, n * 2);

      g_assert_no_error (error);
      for (gsize k = 0; k < n; k++)
        {
          le[2 * k] = p->pixels[k] & 0xff;
          le[2 * k + 1] = p->pixels[k] >> 8;
        }
      g_checksum_update (sum, le, n * 2);
      for (guint r = 0; r < p->regions->len; r++)
        {
          const HsPhantomRegion *region = g_ptr_array_index (p->regions, r);
          g_autofree char *text = g_strdup_printf ("%s %g %g %g %g;", region->name, region->box.x1,
                                                   region->box.y1, region->box.x2, region->box.y2);
          g_checksum_update (sum, (const guchar *) text, -1);
        }
      for (guint f = 0; f < p->findings->len; f++)
        {
          const HsPhantomFinding *finding = g_ptr_array_index (p->findings, f);
          g_autofree char *text = g_strdup_printf ("%s %g %g %g %g;", finding->name, finding->box.x1,
                                                   finding->box.y1, finding->box.x2, finding->box.y2);
          g_checksum_update (sum, (const guchar *) text, -1);
          g_checksum_update (sum, finding->mask, n);
        }
      hs_phantom_free (p);
    }
  digest = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return digest;
}

/* The rasterizer's output, bit for bit, as main's generator made it before
 * its speed-ups (recorded with that build, 27 Nov 2026): 50 instances at
 * 256², six at 1024² (every blur at full radius), ten non-square and ten
 * at the minimum size.  A change of one pixel, mask byte or box fails; the
 * demo datasets, the goldens rendered from them and recorded demo bytes
 * depend on it.  Change on purpose only, and then record again. */
static void
test_recorded_pixels (void)
{
  static const struct {
    guint64     seed, first;
    guint       count, width, height;
    const char *sha256;
  } groups[] = {
    { 1, 0, 50, 256, 256, "46aff87edcee67f06ec30cf380f3d6704c13bf4a56adc9c17ddefa89a2086384" },
    { 7, 100, 6, 1024, 1024, "4e591fdcd2a299a515d5934e7efadcff194bbbefe9b1895b6b2956ea74a34fcc" },
    { 3, 0, 10, 640, 480, "753802d78d360404acd9ddc4d76beeeb3dc9b57e6237f3f35cf24a1682faf4f2" },
    { 5, 0, 10, 64, 64, "89809c8849a2e7555222c41645191376615b0e4d0fb3f4a9e9dca647652c71de" },
  };

  for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
    {
      g_autofree char *digest = phantom_group_digest (groups[g].seed, groups[g].first,
                                                      groups[g].count, groups[g].width,
                                                      groups[g].height);

      g_test_message ("seed %" G_GUINT64_FORMAT ", %u from %" G_GUINT64_FORMAT " at %ux%u: %s",
                      groups[g].seed, groups[g].count, groups[g].first, groups[g].width,
                      groups[g].height, digest);
      g_assert_cmpstr (digest, ==, groups[g].sha256);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/phantom/anatomy-many", test_anatomy_many);
  g_test_add_func ("/hs/phantom/full-size", test_full_size);
  g_test_add_func ("/hs/phantom/deterministic", test_deterministic);
  g_test_add_func ("/hs/phantom/recorded-pixels", test_recorded_pixels);
  g_test_add_func ("/hs/phantom/bad-sizes", test_bad_sizes);
  g_test_add_func ("/hs/phantom/simulated-maps", test_simulated_maps);
  return g_test_run ();
}
