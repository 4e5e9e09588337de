/* test-legend.c — colour-bar ticks and layout, scale label, caption, region palette
 *
 * Display-free: the legend measures text with cairo's toy API on an image
 * surface. */
#include <heatscope/heatscope.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

#define MAX_T 64

/* Ticks come back increasing, inside [lo, hi], at most max. */
static guint
check_ticks (double lo, double hi, guint max)
{
  double t[MAX_T];
  guint n = hs_legend_nice_ticks (lo, hi, max, t);

  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpuint (n, <=, MAX (max, 2));
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (isfinite (t[i]));
      g_assert_cmpfloat (t[i], >=, lo);
      g_assert_cmpfloat (t[i], <=, hi);
      if (i > 0)
        g_assert_cmpfloat (t[i], >, t[i - 1]);
    }
  return n;
}

static void
test_nice_ticks (void)
{
  double t[MAX_T];
  guint n;

  /* hand-worked: steps of 0.2 on [0, 1]; of 0.02 on [0.0012, 0.0831] */
  n = hs_legend_nice_ticks (0, 1, 6, t);
  g_assert_cmpuint (n, ==, 6);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (t[i], 0.2 * i, 1e-12);
  n = hs_legend_nice_ticks (0.0012, 0.0831, 6, t);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpfloat_with_epsilon (t[0], 0.02, 1e-12);
  g_assert_cmpfloat_with_epsilon (t[3], 0.08, 1e-12);
  n = hs_legend_nice_ticks (-1, 1, 5, t);
  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpfloat_with_epsilon (t[2], 0, 1e-12);
  n = hs_legend_nice_ticks (3, 3, 6, t);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpfloat (t[0], ==, 3);

  /* [0, DBL_MAX] (1.8e308): 1e308 gives 2 ticks, 5e307 gives 4 (0, 5e307,
   * 1e308, 1.5e308), 2e307 would give 9 > 6.  The old search stepped
   * through infinite magnitudes here and never returned. */
  n = hs_legend_nice_ticks (0, DBL_MAX, 6, t);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpfloat (t[0], ==, 0);
  g_assert_cmpfloat (t[1], ==, 5e307);
  g_assert_cmpfloat (t[3], ==, 1.5e308);
}

static void
test_ticks_terminate (void)
{
  static const double xs[] = { 0, 1, -1, 1e20, -3e300, 1e-310, 4.9e-324, 123456.789, DBL_MAX / 2 };
  const double spans[][2] = {
    { -1.7e308, 1.7e308 }, { 0, DBL_MAX }, { -DBL_MAX, DBL_MAX }, { -DBL_MAX, 0 },
    { 1e-320, 2e-320 }, { -2e-320, 1e-320 }, { 0, 4.9e-324 }, { 1e300, 1.7e308 },
    { -1e-300, 1e300 }, { 1, 1 + 1e-15 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
    for (guint max = 1; max <= 12; max++)
      check_ticks (spans[i][0], spans[i][1], max);
  for (guint i = 0; i < G_N_ELEMENTS (xs); i++)
    {
      double hi = nextafter (xs[i], INFINITY);
      guint n = check_ticks (xs[i], hi, 6);

      /* two adjacent doubles: nothing lies between them */
      g_assert_cmpuint (n, <=, 2);
    }
  /* a wide sweep of magnitudes and offsets */
  for (int e = -320; e <= 308; e += 7)
    for (int o = -3; o <= 3; o++)
      {
        double span = pow (10, e), lo = o * pow (10, MIN (e + 15, 307));
        check_ticks (lo, lo + span, 6);
      }
  /* non-finite bounds: no ticks */
  {
    double t[8];
    g_assert_cmpuint (hs_legend_nice_ticks (NAN, 1, 6, t), ==, 0);
    g_assert_cmpuint (hs_legend_nice_ticks (0, INFINITY, 6, t), ==, 0);
    g_assert_cmpuint (hs_legend_nice_ticks (-INFINITY, INFINITY, 6, t), ==, 0);
  }
}

static void
test_format_tick (void)
{
  char b[G_ASCII_DTOSTR_BUF_SIZE];

  /* span 0.025: a tenth is 0.0025, so three decimals */
  hs_legend_format_tick (0.005, 0, 0.025, b);
  g_assert_cmpstr (b, ==, "0.005");
  hs_legend_format_tick (0.01, 0, 0.025, b);
  g_assert_cmpstr (b, ==, "0.010");
  hs_legend_format_tick (-0.0, -1, 1, b);
  g_assert_cmpstr (b, ==, "0.0");
  hs_legend_format_tick (-1e-9, -1, 1, b);   /* rounds to zero: no "-0.0" */
  g_assert_cmpstr (b, ==, "0.0");
  hs_legend_format_tick (250, 0, 1000, b);
  g_assert_cmpstr (b, ==, "250");
  /* huge and tiny spans read in scientific notation */
  hs_legend_format_tick (1.7e308, -1.7e308, 1.7e308, b);
  g_assert_cmpstr (b, ==, "1.7e+308");
  hs_legend_format_tick (0, 0, DBL_MAX, b);
  g_assert_cmpstr (b, ==, "0");
  hs_legend_format_tick (2e-320, 1e-320, 2e-320, b);
  g_assert_cmpstr (b, ==, "2.0e-320");
  hs_legend_format_tick (2e-5, 0, 1e-4, b);
  g_assert_cmpstr (b, ==, "2.0e-05");
}

/* Every tick inside the bar, values increasing, both ends labelled, no two
 * labels overlapping along the bar. */
static void
check_layout (const HsLegendSpec *spec)
{
  HsLegendLayout l;
  g_autoptr(GError) error = NULL;
  double lo = spec->range.lo, hi = spec->range.hi;

  g_assert_true (hs_legend_layout (spec, &l, &error));
  g_assert_no_error (error);
  g_assert_true (l.has_bar);
  g_assert_cmpuint (l.n_ticks, >=, hi > lo ? 2 : 1);
  g_assert_cmpuint (l.n_ticks, <=, HS_LEGEND_MAX_TICKS);
  g_assert_cmpfloat (l.tick_value[0], ==, lo);
  g_assert_cmpfloat (l.tick_value[l.n_ticks - 1], ==, hi);
  g_assert_cmpfloat (l.width, >, 0);
  g_assert_cmpfloat (l.height, >, 0);
  for (guint i = 0; i < l.n_ticks; i++)
    {
      g_assert_cmpstr (l.tick_text[i], !=, "");
      g_assert_null (strchr (l.tick_text[i], ','));
      if (spec->horizontal)
        {
          g_assert_cmpfloat (l.tick_pos[i], >=, l.bar_x);
          g_assert_cmpfloat (l.tick_pos[i], <=, l.bar_x + l.bar_w);
          g_assert_cmpfloat (l.tick_text_x[i], >=, 0);
          g_assert_cmpfloat (l.tick_text_x[i] + l.tick_text_w[i], <=, l.width + 1e-9);
        }
      else
        {
          g_assert_cmpfloat (l.tick_pos[i], >=, l.bar_y);
          g_assert_cmpfloat (l.tick_pos[i], <=, l.bar_y + l.bar_h);
        }
      if (i == 0)
        continue;
      g_assert_cmpfloat (l.tick_value[i], >, l.tick_value[i - 1]);
      if (spec->horizontal)   /* text boxes apart, left to right */
        g_assert_cmpfloat (l.tick_text_x[i], >=, l.tick_text_x[i - 1] + l.tick_text_w[i - 1]);
      else                    /* one text line apart, bottom to top */
        g_assert_cmpfloat (l.tick_pos[i - 1] - l.tick_pos[i], >=, l.font_size);
    }
}

static void
test_layout_orientations (void)
{
  const double ranges[][2] = {
    { 0, 1 }, { 0, 0.025 }, { 0.0012, 0.0831 }, { -0.37, 0.52 }, { 0, 1000 }, { 3, 3 },
    { -1.7e308, 1.7e308 }, { 0, DBL_MAX }, { 1e-320, 2e-320 }, { 1, 1 + 2.220446049250313e-16 },
    { 123456.5, 987654.25 }, { -5e-7, 5e-7 },
  };
  const double lengths[] = { 1, 40, 120, 320, 900 };
  HsLegendSpec spec;

  hs_legend_spec_init (&spec);
  for (guint h = 0; h < 2; h++)
    for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
      for (guint k = 0; k < G_N_ELEMENTS (lengths); k++)
        {
          spec.horizontal = h;
          spec.range.lo = ranges[r][0];
          spec.range.hi = ranges[r][1];
          spec.length = lengths[k];
          spec.font_size = h ? 13 : 11;
          check_layout (&spec);
        }

  /* a long bar on [0, 1] gets the six nice ticks, ends included */
  {
    HsLegendLayout l;
    spec.horizontal = FALSE;
    spec.range = (HsScaleRange) { 0, 1 };
    spec.length = 300;
    g_assert_true (hs_legend_layout (&spec, &l, NULL));
    g_assert_cmpuint (l.n_ticks, ==, 6);
    g_assert_cmpstr (l.tick_text[2], ==, "0.4");
    /* high values at the top */
    g_assert_cmpfloat (l.tick_pos[5], ==, l.bar_y);
    g_assert_cmpfloat (l.tick_pos[0], ==, l.bar_y + l.bar_h);
    g_assert_cmpstr (l.title, ==, "min–max 0 to 1");
    g_assert_cmpfloat (l.gauge_w, ==, 0);
  }
  /* the gauge alone, and beside the bar */
  {
    HsLegendLayout l;
    spec.no_attn = 0.25;
    g_assert_true (hs_legend_layout (&spec, &l, NULL));
    g_assert_cmpfloat (l.gauge_w, >, 0);
    g_assert_cmpfloat (l.gauge_x, >, l.bar_x + l.bar_w);
    g_assert_cmpstr (l.gauge_text, ==, "0.25");
    spec.show_bar = FALSE;
    g_assert_true (hs_legend_layout (&spec, &l, NULL));
    g_assert_false (l.has_bar);
    g_assert_cmpfloat (l.gauge_x, ==, 0);
    g_assert_cmpuint (l.n_ticks, ==, 0);
  }
}

static void
test_layout_errors (void)
{
  const double bad[][2] = { { NAN, 1 }, { 0, NAN }, { 0, INFINITY }, { -INFINITY, 0 }, { 1, 0 } };
  HsLegendSpec spec;
  HsLegendLayout l;

  hs_legend_spec_init (&spec);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      spec.range.lo = bad[i][0];
      spec.range.hi = bad[i][1];
      g_assert_false (hs_legend_layout (&spec, &l, &error));
      g_assert_error (error, HS_LEGEND_ERROR, HS_LEGEND_ERROR_RANGE);
    }
  spec.range = (HsScaleRange) { 0, 1 };
  {
    g_autoptr(GError) error = NULL;
    spec.font_size = NAN;
    g_assert_false (hs_legend_layout (&spec, &l, &error));
    g_assert_error (error, HS_LEGEND_ERROR, HS_LEGEND_ERROR_INVALID);
  }
  /* no bar: the range does not matter */
  spec.font_size = 12;
  spec.show_bar = FALSE;
  spec.no_attn = 0.5;
  spec.range.hi = NAN;
  g_assert_true (hs_legend_layout (&spec, &l, NULL));
}

static void
test_scale_label (void)
{
  HsOverlayOptions o;
  HsScaleRange r = { 0, 0.5 };
  g_autofree char *linear = NULL, *gamma = NULL, *log = NULL, *gamma0 = NULL, *pct = NULL;

  hs_overlay_options_init (&o);
  linear = hs_legend_scale_label (&o, &r);
  g_assert_cmpstr (linear, ==, "min–max 0 to 0.5");
  o.strength = HS_STRENGTH_GAMMA;
  o.strength_param = 0.5;
  gamma = hs_legend_scale_label (&o, &r);
  g_assert_cmpstr (gamma, ==, "min–max 0 to 0.5 · γ 0.5");
  o.strength_param = 0;   /* not a curve: no suffix */
  gamma0 = hs_legend_scale_label (&o, &r);
  g_assert_cmpstr (gamma0, ==, "min–max 0 to 0.5");
  o.strength = HS_STRENGTH_LOG;
  o.strength_param = 10;
  log = hs_legend_scale_label (&o, &r);
  g_assert_cmpstr (log, ==, "min–max 0 to 0.5 · log b=10");
  o.strength = HS_STRENGTH_GAMMA;
  o.strength_param = 1;
  o.scale.mode = HS_SCALE_PERCENTILE;
  o.scale.p_lo = 1;
  o.scale.p_hi = 99.5;
  pct = hs_legend_scale_label (&o, &r);
  g_assert_cmpstr (pct, ==, "percentile 1 to 99.5 %");
}

static void
assert_line (GPtrArray *lines, guint i, const char *text, gboolean bold)
{
  const HsCaptionLine *l = g_ptr_array_index (lines, i);

  g_assert_cmpstr (l->text, ==, text);
  g_assert_cmpint (l->bold, ==, bold);
}

static void
test_caption (void)
{
  HsCaption full = { "A nodule.", "grounded", "p0001" };
  HsCaption no_model = { "A nodule.", NULL, "p0001" };
  HsCaption prompt_only = { "A nodule.", NULL, NULL };
  HsCaption meta_only = { NULL, "grounded", "" };
  g_autoptr(GPtrArray) a = hs_caption_layout (&full, 1000, 12, 0, NULL);
  g_autoptr(GPtrArray) b = hs_caption_layout (&no_model, 1000, 12, 0, NULL);
  g_autoptr(GPtrArray) c = hs_caption_layout (&prompt_only, 1000, 12, 0, NULL);
  g_autoptr(GPtrArray) d = hs_caption_layout (&meta_only, 1000, 12, 0, NULL);
  g_autofree char *sa = hs_caption_to_string (&full);
  g_autofree char *sb = hs_caption_to_string (&no_model);
  g_autofree char *sc = hs_caption_to_string (&prompt_only);
  g_autofree char *sd = hs_caption_to_string (&meta_only);
  double h1, h2;

  g_assert_cmpuint (a->len, ==, 2);
  assert_line (a, 0, "“A nodule.”", TRUE);
  assert_line (a, 1, "model grounded · instance p0001", FALSE);
  g_assert_cmpuint (b->len, ==, 2);
  assert_line (b, 1, "instance p0001", FALSE);
  g_assert_cmpuint (c->len, ==, 1);
  g_assert_cmpuint (d->len, ==, 1);
  assert_line (d, 0, "model grounded", FALSE);
  g_assert_cmpstr (sa, ==, "“A nodule.” · model grounded · instance p0001");
  g_assert_cmpstr (sb, ==, "“A nodule.” · instance p0001");
  g_assert_cmpstr (sc, ==, "“A nodule.”");
  g_assert_cmpstr (sd, ==, "model grounded");

  /* wrapping: every line within the width; a capped prompt ends in "…" and
   * still leaves the model line */
  {
    HsCaption lng = { "There is a small nodule in the left upper lobe next to the hilum, "
                      "with no effusion and no pneumothorax on either side.", "grounded", "p7" };
    g_autoptr(GPtrArray) all = hs_caption_layout (&lng, 150, 12, 0, &h1);
    g_autoptr(GPtrArray) two = hs_caption_layout (&lng, 150, 12, 2, &h2);
    const HsCaptionLine *first;

    g_assert_cmpuint (all->len, >, 3);
    for (guint i = 0; i < all->len; i++)
      {
        const HsCaptionLine *l = g_ptr_array_index (all, i);
        g_assert_cmpfloat (l->width, <=, 150);
        if (i > 0)
          g_assert_cmpfloat (l->y, >, ((HsCaptionLine *) g_ptr_array_index (all, i - 1))->y);
      }
    g_assert_cmpuint (two->len, ==, 2);
    first = g_ptr_array_index (two, 0);
    g_assert_true (g_str_has_suffix (first->text, "…"));
    g_assert_cmpfloat (first->width, <=, 150);
    assert_line (two, 1, "model grounded · instance p7", FALSE);
    g_assert_cmpfloat (h2, <, h1);
  }

  /* A built-in model on a real image: the note is a bold line of its own
   * after the model line, in the one-line form too; a line budget keeps the
   * note (it is laid out first) and cuts the prompt. */
  {
    HsCaption real = { "A nodule.", "grounded", "p0001", TRUE };
    HsCaption lng = { "There is a small nodule in the left upper lobe next to the hilum.",
                      "grounded", "p7", TRUE };
    g_autoptr(GPtrArray) all = hs_caption_layout (&real, 1000, 12, 0, NULL);
    g_autoptr(GPtrArray) two = hs_caption_layout (&lng, 300, 12, 2, NULL);
    g_autoptr(GPtrArray) one = hs_caption_layout (&lng, 1000, 12, 1, NULL);
    g_autofree char *line = hs_caption_to_string (&real);

    g_assert_cmpuint (all->len, ==, 3);
    assert_line (all, 0, "“A nodule.”", TRUE);
    assert_line (all, 1, "model grounded · instance p0001", FALSE);
    assert_line (all, 2, "phantom-trained model on a real image", TRUE);
    g_assert_cmpstr (line, ==, "“A nodule.” · model grounded · instance p0001 · "
                               "phantom-trained model on a real image");
    g_assert_cmpuint (two->len, ==, 2);
    g_assert_true (g_str_has_suffix (((HsCaptionLine *) g_ptr_array_index (two, 0))->text, "…"));
    assert_line (two, 1, "phantom-trained model on a real image", TRUE);
    g_assert_cmpuint (one->len, ==, 1);
    assert_line (one, 0, "phantom-trained model on a real image", TRUE);
  }
}

static void
test_region_palette (void)
{
  double c[4], d[4];

  /* box 0 cyan, box 1 yellow, ...; six colours then again */
  hs_region_color (0, c);
  g_assert_cmpfloat (c[0], ==, 0.00);
  g_assert_cmpfloat (c[1], ==, 0.90);
  g_assert_cmpfloat (c[2], ==, 1.00);
  g_assert_cmpfloat (c[3], ==, 1);
  hs_region_color (1, c);
  g_assert_cmpfloat (c[0], ==, 1.00);
  g_assert_cmpfloat (c[1], ==, 0.85);
  hs_region_color (6, d);
  hs_region_color (0, c);
  g_assert_cmpmem (c, sizeof c, d, sizeof d);
  /* six different colours */
  for (guint i = 0; i < 6; i++)
    for (guint j = i + 1; j < 6; j++)
      {
        hs_region_color (i, c);
        hs_region_color (j, d);
        g_assert_true (c[0] != d[0] || c[1] != d[1] || c[2] != d[2]);
      }

  /* labels: above the item with a gap, inside when that crosses the clip */
  {
    double lx, ly;
    hs_region_label_place (50, 100, 40, 12, 2, 10, 10, INFINITY, INFINITY, &lx, &ly);
    g_assert_cmpfloat (lx, ==, 50);
    g_assert_cmpfloat (ly, ==, 86);
    hs_region_label_place (5, 15, 40, 12, 2, 10, 10, INFINITY, INFINITY, &lx, &ly);
    g_assert_cmpfloat (lx, ==, 10);
    g_assert_cmpfloat (ly, ==, 17);
    /* the clip [10, 110) × [10, 90): an item near the right edge has its
     * label slid left to end at 110 */
    hs_region_label_place (95, 50, 40, 12, 2, 10, 10, 100, 80, &lx, &ly);
    g_assert_cmpfloat (lx, ==, 70);
    g_assert_cmpfloat (ly, ==, 36);
    hs_region_label_place (95, 12, 40, 12, 2, 10, 10, 100, 80, &lx, &ly);
    g_assert_cmpfloat (lx, ==, 70);
    g_assert_cmpfloat (ly, ==, 14);
    /* in the short clip [10, 110) × [10, 30) the label inside the item
     * (too close to the top for above) is slid up to end at 30 */
    hs_region_label_place (95, 18, 40, 12, 2, 10, 10, 100, 20, &lx, &ly);
    g_assert_cmpfloat (lx, ==, 70);
    g_assert_cmpfloat (ly, ==, 18);
    /* an item whose corner is outside the clip (scrolled off) is left be */
    hs_region_label_place (120, 50, 40, 12, 2, 10, 10, 100, 80, &lx, &ly);
    g_assert_cmpfloat (lx, ==, 120);
    hs_region_label_place (50, -30, 40, 12, 2, 10, 10, 100, 80, &lx, &ly);
    g_assert_cmpfloat (ly, ==, -28);
    /* wider and taller than the clip: at its top-left */
    hs_region_label_place (50, 50, 140, 100, 2, 10, 10, 100, 80, &lx, &ly);
    g_assert_cmpfloat (lx, ==, 10);
    g_assert_cmpfloat (ly, ==, 10);
  }
}

/* glibc reads LOCPATH on every setlocale: build de_DE.UTF-8 into a temporary
 * folder when the system has not generated it. */
static gboolean
use_german_numbers (void)
{
  g_autofree char *dir = NULL, *target = NULL, *out = NULL, *err = NULL;
  int status = -1;

  if (setlocale (LC_NUMERIC, "de_DE.UTF-8"))
    return TRUE;
  if (!g_file_test ("/usr/bin/localedef", G_FILE_TEST_IS_EXECUTABLE))
    return FALSE;
  dir = hs_test_make_tmpdir ();
  target = g_build_filename (dir, "de_DE.UTF-8", NULL);
  {
    const char *argv[] = { "/usr/bin/localedef", "-i", "de_DE", "-f", "UTF-8", target, NULL };
    if (!hs_test_run (argv, &out, &err, &status) || status != 0)
      return FALSE;
  }
  g_setenv ("LOCPATH", dir, TRUE);
  return setlocale (LC_NUMERIC, "de_DE.UTF-8") != NULL;
}

/* Everything the layout writes, as text, for comparing two locales. */
static char *
layout_text (gboolean horizontal, double lo, double hi)
{
  HsLegendSpec spec;
  HsLegendLayout l;
  GString *s = g_string_new (NULL);

  hs_legend_spec_init (&spec);
  spec.horizontal = horizontal;
  spec.range = (HsScaleRange) { lo, hi };
  spec.overlay.strength_param = 0.5;
  spec.no_attn = 0.125;
  spec.length = 400;
  g_assert_true (hs_legend_layout (&spec, &l, NULL));
  for (guint i = 0; i < l.n_ticks; i++)
    g_string_append_printf (s, "%s|", l.tick_text[i]);
  g_string_append_printf (s, "%s|%s", l.title, l.gauge_text);
  return g_string_free (s, FALSE);
}

static void
test_locale (void)
{
  const double ranges[][2] = { { 0, 0.025 }, { -0.5, 1.5 }, { 0, DBL_MAX }, { 1e-320, 2e-320 } };
  GPtrArray *c_text = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *saved = g_strdup (setlocale (LC_NUMERIC, NULL));

  for (guint h = 0; h < 2; h++)
    for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
      g_ptr_array_add (c_text, layout_text (h, ranges[i][0], ranges[i][1]));
  g_assert_cmpstr (g_ptr_array_index (c_text, 0), ==,
                   "0.000|0.005|0.010|0.015|0.020|0.025|min–max 0 to 0.025 · γ 0.5|0.125");

  if (!use_german_numbers ())
    {
      g_ptr_array_unref (c_text);
      g_test_skip ("no de_DE.UTF-8 locale and no localedef (package locales)");
      return;
    }
  {
    /* the locale is in effect: printf writes a decimal comma */
    g_autofree char *half = g_strdup_printf ("%.1f", 0.5);
    g_assert_cmpstr (half, ==, "0,5");
  }
  for (guint h = 0; h < 2; h++)
    for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
      {
        g_autofree char *de = layout_text (h, ranges[i][0], ranges[i][1]);
        g_assert_cmpstr (de, ==, g_ptr_array_index (c_text, h * G_N_ELEMENTS (ranges) + i));
      }
  setlocale (LC_NUMERIC, saved);
  g_ptr_array_unref (c_text);
}

/* The cairo entry point paints the bar where the layout puts it. */
static void
test_draw (void)
{
  static const double ink[4] = { 0, 0, 0, 1 };
  cairo_surface_t *s;
  cairo_t *cr;
  HsLegendSpec spec;
  HsLegendLayout l;
  guint32 *px;
  int stride;

  hs_legend_spec_init (&spec);
  spec.horizontal = TRUE;
  spec.range = (HsScaleRange) { 0, 1 };
  spec.length = 200;
  spec.overlay.threshold = 0.5;   /* the lower half transparent, as on the map */
  spec.overlay.threshold_band = 0;
  g_assert_true (hs_legend_layout (&spec, &l, NULL));
  s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) l.width + 20, (int) l.height + 20);
  cr = cairo_create (s);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  hs_legend_draw (&spec, &l, cr, 10, 10, ink);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  px = (guint32 *) (void *) cairo_image_surface_get_data (s);
  stride = cairo_image_surface_get_stride (s) / 4;
  {
    int y = (int) (10 + l.bar_y + l.bar_h / 2);
    guint32 low = px[y * stride + (int) (10 + l.bar_x + l.bar_w * 0.2)] & 0xffffff;
    guint32 high = px[y * stride + (int) (10 + l.bar_x + l.bar_w * 0.98)] & 0xffffff;

    g_assert_cmphex (low, ==, 0xffffff);             /* below the threshold: the background */
    g_assert_cmpuint (high >> 16, >, 100);           /* jet's dark red end */
    g_assert_cmpuint (high & 0xffff, <, 0x1010);
  }
  cairo_surface_destroy (s);
}

/* Labels of several items: placed as hs_region_label_place places one, then
 * stacked so that no two overlap; only y moves, and only downwards. */
static gboolean
labels_overlap (const HsLabelSlot *a, const HsLabelSlot *b)
{
  return a->lx < b->lx + b->w && b->lx < a->lx + a->w && a->ly < b->ly + b->h && b->ly < a->ly + a->h;
}

static void
test_labels_place (void)
{
  HsLabelSlot same[3] = { { 100, 100, 50, 12 }, { 100, 100, 70, 12 }, { 120, 100, 30, 12 } };
  GRand *rand = g_rand_new_with_seed (20261126);

  /* hand-worked: three labels at one corner stack 12 apart, the first where it was */
  hs_region_labels_place (same, 3, 2, 0, 0, INFINITY, INFINITY);
  g_assert_cmpfloat (same[0].lx, ==, 100);
  g_assert_cmpfloat (same[0].ly, ==, 86);
  g_assert_cmpfloat (same[1].ly, ==, 98);
  g_assert_cmpfloat (same[2].lx, ==, 120);
  g_assert_cmpfloat (same[2].ly, ==, 110);
  /* apart from each other: nothing moves */
  {
    HsLabelSlot apart[2] = { { 10, 100, 40, 12 }, { 60, 100, 40, 12 } };

    hs_region_labels_place (apart, 2, 2, 0, 0, INFINITY, INFINITY);
    g_assert_cmpfloat (apart[1].ly, ==, 86);
  }
  hs_region_labels_place (NULL, 0, 2, 0, 0, 100, 100);
  /* three at the bottom-right corner of the clip [0, 200) × [0, 110):
   * slid in (lx 150), then stacked up from the bottom instead of down out
   * of it */
  {
    HsLabelSlot corner[3] = { { 190, 100, 50, 12 }, { 190, 100, 50, 12 }, { 190, 100, 50, 12 } };

    hs_region_labels_place (corner, 3, 2, 0, 0, 200, 110);
    g_assert_cmpfloat (corner[0].lx, ==, 150);
    g_assert_cmpfloat (corner[0].ly, ==, 86);
    g_assert_cmpfloat (corner[1].ly, ==, 98);
    g_assert_cmpfloat (corner[2].ly, ==, 74);
  }

  /* random crowds of labels: never an overlap */
  for (guint round = 0; round < 200; round++)
    {
      HsLabelSlot slots[24];
      guint n = g_rand_int_range (rand, 1, G_N_ELEMENTS (slots) + 1);

      for (guint i = 0; i < n; i++)
        {
          slots[i] = (HsLabelSlot) { g_rand_double_range (rand, 10, 190), g_rand_double_range (rand, 20, 200),
                                     g_rand_double_range (rand, 5, 120), g_rand_double_range (rand, 8, 20) };
        }
      hs_region_labels_place (slots, n, 1.5, 0, 0, INFINITY, INFINITY);
      for (guint i = 0; i < n; i++)
        {
          double lx, ly;

          hs_region_label_place (slots[i].x1, slots[i].y1, slots[i].w, slots[i].h, 1.5, 0, 0,
                                 INFINITY, INFINITY, &lx, &ly);
          g_assert_cmpfloat (slots[i].lx, ==, lx);
          g_assert_cmpfloat (slots[i].ly, >=, ly);
          if (i == 0)
            g_assert_cmpfloat (slots[i].ly, ==, ly);
          for (guint j = 0; j < i; j++)
            g_assert_false (labels_overlap (&slots[i], &slots[j]));
        }
    }
  /* ... and items with their corner in a clip [10, 190) × [20, 200): every
   * label inside it; an overlap only for a label pushed to the clip's top
   * (a crowd taller than the clip) */
  for (guint round = 0; round < 200; round++)
    {
      HsLabelSlot slots[24];
      guint n = g_rand_int_range (rand, 1, G_N_ELEMENTS (slots) + 1);

      for (guint i = 0; i < n; i++)
        slots[i] = (HsLabelSlot) { g_rand_double_range (rand, 10, 190), g_rand_double_range (rand, 20, 200),
                                   g_rand_double_range (rand, 5, 120), g_rand_double_range (rand, 8, 20) };
      hs_region_labels_place (slots, n, 1.5, 10, 20, 180, 180);
      for (guint i = 0; i < n; i++)
        {
          g_assert_cmpfloat (slots[i].lx, >=, 10);
          g_assert_cmpfloat (slots[i].ly, >=, 20);
          g_assert_cmpfloat (slots[i].lx + slots[i].w, <=, 190 + 1e-9);
          g_assert_cmpfloat (slots[i].ly + slots[i].h, <=, 200 + 1e-9);
          for (guint j = 0; j < i; j++)
            if (labels_overlap (&slots[i], &slots[j]))
              g_assert_cmpfloat (slots[i].ly, ==, 20);
        }
    }
  /* ... with a kept-out area (the canvas's region key at the clip's
   * bottom-right): hand-worked, a label above a corner just below it goes
   * above it instead; random crowds never cover it (unless pushed to the
   * clip's top) nor each other */
  {
    HsLabelSlot key = { .lx = 120, .ly = 70, .w = 80, .h = 30 };
    HsLabelSlot below[1] = { { 130, 102, 40, 12 } };

    hs_region_labels_place_avoiding (below, 1, &key, 1, 2, 0, 0, 200, 110);
    g_assert_cmpfloat (below[0].lx, ==, 130);
    g_assert_cmpfloat (below[0].ly, ==, 58);
    for (guint round = 0; round < 200; round++)
      {
        HsLabelSlot slots[24];
        guint n = g_rand_int_range (rand, 1, G_N_ELEMENTS (slots) + 1);

        for (guint i = 0; i < n; i++)
          slots[i] = (HsLabelSlot) { g_rand_double_range (rand, 0, 200), g_rand_double_range (rand, 0, 110),
                                     g_rand_double_range (rand, 5, 60), g_rand_double_range (rand, 8, 14) };
        hs_region_labels_place_avoiding (slots, n, &key, 1, 1.5, 0, 0, 200, 110);
        for (guint i = 0; i < n; i++)
          {
            if (slots[i].ly == 0)
              continue;
            g_assert_false (labels_overlap (&slots[i], &key));
            for (guint j = 0; j < i; j++)
              g_assert_false (labels_overlap (&slots[i], &slots[j]));
          }
      }
  }
  /* ... with the colour bar too (tall, at the clip's top-right, above the
   * key): hand-worked, a label reaching 20 px into the bar goes 20 px left
   * rather than 79 px down; one too wide to go left goes down and up as
   * before; random
   * crowds cover neither panel (unless pushed to the clip's top) */
  {
    HsLabelSlot panels[2] = { { .lx = 150, .ly = 5, .w = 45, .h = 60 },
                              { .lx = 120, .ly = 70, .w = 80, .h = 30 } };
    HsLabelSlot beside[1] = { { 130, 40, 40, 12 } };
    HsLabelSlot wide[1] = { { 100, 30, 160, 12 } };

    hs_region_labels_place_avoiding (beside, 1, panels, 2, 2, 0, 0, 200, 110);
    g_assert_cmpfloat (beside[0].lx, ==, 110);
    g_assert_cmpfloat (beside[0].ly, ==, 26);
    /* 160 wide: slid back to x 40 by the clip (y 16), where left of the
     * bar would be x −10: so below the bar (y 65), into the key, below it
     * (100) out of the clip; up from the bottom instead (98), above the key
     * (58), into the bar, above it out of the clip: at the clip's top, the
     * crowd case (the only overlap allowed) */
    hs_region_labels_place_avoiding (wide, 1, panels, 2, 2, 0, 0, 200, 110);
    g_assert_cmpfloat (wide[0].lx, ==, 40);
    g_assert_cmpfloat (wide[0].ly, ==, 0);
    for (guint round = 0; round < 400; round++)
      {
        HsLabelSlot slots[24];
        guint n = g_rand_int_range (rand, 1, G_N_ELEMENTS (slots) + 1);

        for (guint i = 0; i < n; i++)
          slots[i] = (HsLabelSlot) { g_rand_double_range (rand, 0, 200), g_rand_double_range (rand, 0, 110),
                                     g_rand_double_range (rand, 5, 60), g_rand_double_range (rand, 8, 14) };
        hs_region_labels_place_avoiding (slots, n, panels, 2, 1.5, 0, 0, 200, 110);
        for (guint i = 0; i < n; i++)
          {
            g_assert_cmpfloat (slots[i].lx, >=, 0);
            g_assert_cmpfloat (slots[i].lx + slots[i].w, <=, 200 + 1e-9);
            if (slots[i].ly == 0)
              continue;
            g_assert_false (labels_overlap (&slots[i], &panels[0]));
            g_assert_false (labels_overlap (&slots[i], &panels[1]));
            for (guint j = 0; j < i; j++)
              g_assert_false (labels_overlap (&slots[i], &slots[j]));
          }
      }
  }
  g_rand_free (rand);
}

/* The region key: one row per entry, 1.5 font sizes each; as wide as the
 * widest name plus the swatch; drawing stays inside that size. */
static void
test_region_key (void)
{
  HsRegionKeyEntry entries[3] = {
    { "Left Lung", { 1, 0.6, 0.2, 1 }, TRUE, TRUE },
    { "Airways", { 0, 0.9, 1, 1 }, FALSE, FALSE },
    { "Ground Glass Opacities", { 0.4, 1, 0.3, 1 }, FALSE, TRUE },
  };
  double w, h, w1, h1, w_bold;
  cairo_surface_t *surface;
  cairo_t *cr;
  static const double ink[4] = { 0, 0, 0, 1 };
  guint8 *data;
  int stride, inked = 0, outside = 0;

  hs_region_key_size (entries, 0, 12, &w, &h);
  g_assert_cmpfloat (w, ==, 0);
  g_assert_cmpfloat (h, ==, 0);
  hs_region_key_size (entries, 3, 12, &w, &h);
  g_assert_cmpfloat (h, ==, 54);
  hs_region_key_size (entries + 1, 1, 12, &w1, &h1);
  g_assert_cmpfloat (h1, ==, 18);
  g_assert_cmpfloat (w, >, w1);   /* the longest name decides */
  entries[1].target = TRUE;
  hs_region_key_size (entries + 1, 1, 12, &w_bold, NULL);
  g_assert_cmpfloat (w_bold, >=, w1);
  entries[1].target = FALSE;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 200);
  cr = cairo_create (surface);
  hs_region_key_draw (cr, entries, 3, 20, 30, 12, ink);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int y = 0; y < 200; y++)
    for (int x = 0; x < 400; x++)
      if (data[y * stride + 4 * x + 3] != 0)
        {
          inked++;
          /* a pixel of slack for antialiasing */
          if (x < 19 || x > 20 + w + 1 || y < 29 || y > 30 + h + 1)
            outside++;
        }
  g_assert_cmpint (inked, >, 200);
  g_assert_cmpint (outside, ==, 0);
  cairo_surface_destroy (surface);
}

/* title_above (the canvas HUD): horizontal lines above the bar — the
 * quantity (bold; "attention weight" when unstated), the scale with its
 * range in words, the strength curve — inside the legend's width, the bar
 * and the gauge below the last line; a long quantity wraps. */
static void
test_title_above (void)
{
  HsLegendSpec spec;
  HsLegendLayout l, rotated;

  hs_legend_spec_init (&spec);
  spec.range = (HsScaleRange) { 3.62e-06, 0.452 };
  spec.overlay.strength = HS_STRENGTH_GAMMA;
  spec.overlay.strength_param = 0.5;
  spec.no_attn = 0.1;
  spec.font_size = 11;
  g_assert_true (hs_legend_layout (&spec, &rotated, NULL));
  g_assert_cmpuint (rotated.n_title_lines, ==, 0);
  g_assert_cmpfloat (rotated.title_angle, ==, -90);

  spec.title_above = TRUE;
  g_assert_true (hs_legend_layout (&spec, &l, NULL));
  g_assert_cmpuint (l.n_title_lines, ==, 3);
  g_assert_cmpstr (l.title_line[0], ==, "attention weight");
  g_assert_true (l.title_line_bold[0]);
  g_assert_cmpstr (l.title_line[1], ==, "min–max 3.62e-06 to 0.452");
  g_assert_false (l.title_line_bold[1]);
  g_assert_cmpstr (l.title_line[2], ==, "γ 0.5");
  g_assert_cmpstr (l.title, ==, "attention weight · min–max 3.62e-06 to 0.452 · γ 0.5");
  g_assert_cmpfloat (l.title_angle, ==, 0);
  g_assert_cmpfloat (l.title_x, ==, 0);
  for (guint i = 0; i < l.n_title_lines; i++)
    {
      g_assert_cmpfloat (l.title_line_y[i], >, i ? l.title_line_y[i - 1] : 0);
      /* every line below the one before, all above the bar and the gauge's value */
      g_assert_cmpfloat (l.title_line_y[i], <, l.bar_y);
      g_assert_cmpfloat (l.title_line_y[i], <, l.gauge_text_y - l.font_size);
    }
  /* the bar moved down by the lines, not shortened */
  g_assert_cmpfloat (l.bar_y, >, rotated.bar_y);
  g_assert_cmpfloat (l.bar_h, ==, rotated.bar_h);
  g_assert_cmpfloat (l.height, >, rotated.height);
  /* no rotated title beside the ticks: the gauge moves closer */
  g_assert_cmpfloat (l.gauge_x, <, rotated.gauge_x);

  /* the manifest's quantity, and one too long for a line wraps inside the width */
  spec.quantity = "integrated gradients of the image encoder's last layer, summed over channels";
  g_assert_true (hs_legend_layout (&spec, &l, NULL));
  g_assert_cmpuint (l.n_title_lines, >=, 4);
  g_assert_cmpuint (l.n_title_lines, <=, HS_LEGEND_TITLE_LINES);
  g_assert_true (g_str_has_prefix (l.title_line[0], "integrated"));
  g_assert_true (l.title_line_bold[1]);
  g_assert_cmpfloat (l.width, <=, 11 * 14 + 1);
  /* a given title replaces scale and strength, the quantity still leads */
  spec.quantity = "probability";
  spec.title = "shared 0 to 0.5";
  g_assert_true (hs_legend_layout (&spec, &l, NULL));
  g_assert_cmpuint (l.n_title_lines, ==, 2);
  g_assert_cmpstr (l.title_line[0], ==, "probability");
  g_assert_cmpstr (l.title_line[1], ==, "shared 0 to 0.5");
  /* the gauge alone has no title */
  spec.show_bar = FALSE;
  g_assert_true (hs_legend_layout (&spec, &l, NULL));
  g_assert_cmpuint (l.n_title_lines, ==, 0);
}

/* Captions never nest quotes: a prompt's own double quotes (straight or
 * curly) become single ones inside the caption's pair, and a comparison's
 * caption is built from its fields, each prompt quoted once. */
static void
test_caption_quotes (void)
{
  static const struct { const char *in, *out; } cases[] = {
    { "There is a nodule in the right lung.", "“There is a nodule in the right lung.”" },
    { "No \"acute\" findings.", "“No ‘acute’ findings.”" },
    { "No “acute” findings; the “left” lung.", "“No ‘acute’ findings; the ‘left’ lung.”" },
    { "The patient’s \"heart\"", "“The patient’s ‘heart’”" },
    { "", "“”" },
  };
  g_autofree char *pair = NULL, *one = NULL, *nested = NULL, *bare = NULL;
  HsCaption caption = { "Quote \"this\"", "m", "i", FALSE };
  g_autofree char *line = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *q = hs_caption_quote (cases[i].in);
      g_assert_cmpstr (q, ==, cases[i].out);
    }
  pair = hs_caption_compare_string ("hand-00", "Opacity in the right lung.", "Opacity in the left lung.");
  g_assert_cmpstr (pair, ==, "hand-00 · A “Opacity in the right lung.” · B “Opacity in the left lung.”");
  one = hs_caption_compare_string ("hand-00", "Opacity in the right lung.", NULL);
  g_assert_cmpstr (one, ==, "hand-00 · “Opacity in the right lung.”");
  nested = hs_caption_compare_string ("p1", "A \"big\" heart.", "");
  g_assert_cmpstr (nested, ==, "p1 · “A ‘big’ heart.”");
  bare = hs_caption_compare_string (NULL, NULL, NULL);
  g_assert_cmpstr (bare, ==, "");
  /* the canvas's caption line and its layout too */
  line = hs_caption_to_string (&caption);
  g_assert_cmpstr (line, ==, "“Quote ‘this’” · model m · instance i");
  {
    g_autoptr(GPtrArray) lines = hs_caption_layout (&caption, 1000, 12, 0, NULL);
    const HsCaptionLine *first = g_ptr_array_index (lines, 0);

    g_assert_cmpstr (first->text, ==, "“Quote ‘this’”");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/legend/nice-ticks", test_nice_ticks);
  g_test_add_func ("/hs/legend/ticks-terminate", test_ticks_terminate);
  g_test_add_func ("/hs/legend/format-tick", test_format_tick);
  g_test_add_func ("/hs/legend/layout-orientations", test_layout_orientations);
  g_test_add_func ("/hs/legend/layout-errors", test_layout_errors);
  g_test_add_func ("/hs/legend/scale-label", test_scale_label);
  g_test_add_func ("/hs/legend/title-above", test_title_above);
  g_test_add_func ("/hs/legend/caption", test_caption);
  g_test_add_func ("/hs/legend/caption-quotes", test_caption_quotes);
  g_test_add_func ("/hs/legend/region-palette", test_region_palette);
  g_test_add_func ("/hs/legend/locale", test_locale);
  g_test_add_func ("/hs/legend/draw", test_draw);
  g_test_add_func ("/hs/legend/labels-place", test_labels_place);
  g_test_add_func ("/hs/legend/region-key", test_region_key);
  return g_test_run ();
}
