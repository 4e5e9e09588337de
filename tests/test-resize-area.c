/* test-resize-area.c — hs_resize_area_u8 and hs_resize_area_rect_u8 equal
 * cv2.resize(..., interpolation=cv2.INTER_AREA) of python3-opencv byte for
 * byte: integer block ratios, fractional shrinking (the gloria pipeline's
 * regime for every real radiograph), growing, random content and 0/255
 * rectangle masks. */
#include <heatscope/heatscope.h>
#include <string.h>

#include "hs-test-util.h"
#include "../src/core/hs-raster-private.h"

/* argv: groups of "in.u8 sw sh dw dh out.u8"; writes each resized raster. */
static const char *reference_script =
  "import sys, numpy as np, cv2\n"
  "a = sys.argv[1:]\n"
  "for i in range(0, len(a), 6):\n"
  "    src, sw, sh, dw, dh, out = a[i:i + 6]\n"
  "    m = np.fromfile(src, dtype=np.uint8).reshape(int(sh), int(sw))\n"
  "    cv2.resize(m, (int(dw), int(dh)), interpolation=cv2.INTER_AREA).tofile(out)\n"
  "print('ok')\n";

typedef struct {
  guint sw, sh, dw, dh;
  gboolean mask;             /* a 0/255 rectangle, else random bytes */
  guint c0, c1, r0, r1;
} Case;

static GArray *
make_cases (void)
{
  GArray *cases = g_array_new (FALSE, FALSE, sizeof (Case));
  GRand *rand = g_rand_new_with_seed (19);
  /* Fixed regimes first: integer blocks (2 × 2, 3 × 3, 1 × 4), the
   * gloria shapes of real radiographs, growing. */
  const guint fixed[][4] = {
    { 512, 512, 256, 256 }, { 768, 384, 256, 128 }, { 256, 1024, 256, 256 },
    { 3000, 2500, 256, 213 }, { 2544, 3056, 213, 256 }, { 1024, 800, 256, 200 },
    { 333, 1000, 85, 256 }, { 257, 255, 256, 254 }, { 300, 200, 256, 170 },
    { 100, 80, 256, 204 }, { 37, 211, 44, 256 }, { 200, 256, 200, 256 },
    { 128, 100, 256, 200 }, { 255, 7, 256, 7 }, { 9, 9, 256, 256 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
    for (guint kind = 0; kind < 2; kind++)
      {
        Case c = { fixed[i][0], fixed[i][1], fixed[i][2], fixed[i][3], kind == 1, 0, 0, 0, 0 };

        c.c0 = g_rand_int_range (rand, 0, c.sw);
        c.c1 = g_rand_int_range (rand, c.c0 + 1, c.sw + 1);
        c.r0 = g_rand_int_range (rand, 0, c.sh);
        c.r1 = g_rand_int_range (rand, c.r0 + 1, c.sh + 1);
        g_array_append_val (cases, c);
      }
  /* Random sizes as the gloria pipeline makes them: longest side to 256,
   * the other int(side · 256 / longest). */
  for (guint i = 0; i < 60; i++)
    {
      Case c = { 0 };
      guint longest = i < 50 ? g_rand_int_range (rand, 257, 2400) : g_rand_int_range (rand, 20, 256);
      guint other = g_rand_int_range (rand, MAX (longest / 3, 1), longest + 1);

      if (i % 2)
        c.sw = longest, c.sh = other, c.dw = 256, c.dh = MAX ((guint) (other * (256.0 / longest)), 1);
      else
        c.sh = longest, c.sw = other, c.dh = 256, c.dw = MAX ((guint) (other * (256.0 / longest)), 1);
      c.mask = i % 3 != 0;
      c.c0 = g_rand_int_range (rand, 0, c.sw);
      c.c1 = g_rand_int_range (rand, c.c0 + 1, c.sw + 1);
      c.r0 = g_rand_int_range (rand, 0, c.sh);
      c.r1 = g_rand_int_range (rand, c.r0 + 1, c.sh + 1);
      g_array_append_val (cases, c);
    }
  g_rand_free (rand);
  return cases;
}

static void
test_against_cv2 (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GArray) cases = make_cases ();
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) ours = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *out = NULL;
  GRand *rand = g_rand_new_with_seed (7);
  guint n_mask = 0, n_random = 0;

  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = &g_array_index (cases, Case, i);
      gsize sn = (gsize) c->sw * c->sh, dn = (gsize) c->dw * c->dh;
      g_autofree guint8 *src = g_malloc0 (sn);
      guint8 *dst = g_malloc (dn);

      if (c->mask)
        {
          for (guint y = c->r0; y < c->r1; y++)
            memset (src + (gsize) y * c->sw + c->c0, 255, c->c1 - c->c0);
          hs_resize_area_rect_u8 (c->sw, c->sh, c->c0, c->c1, c->r0, c->r1, dst, c->dw, c->dh);
          {
            /* the rectangle shortcut equals the full resize of the raster */
            g_autofree guint8 *full = g_malloc (dn);

            g_assert_true (hs_resize_area_u8 (src, c->sw, c->sh, full, c->dw, c->dh));
            g_assert_cmpmem (full, dn, dst, dn);
          }
          n_mask++;
        }
      else
        {
          for (gsize k = 0; k < sn; k++)
            src[k] = (guint8) g_rand_int_range (rand, 0, 256);
          g_assert_true (hs_resize_area_u8 (src, c->sw, c->sh, dst, c->dw, c->dh));
          n_random++;
        }
      g_ptr_array_add (ours, dst);
      {
        g_autofree char *in = g_strdup_printf ("%s/%u.in", dir, i);

        g_assert_true (g_file_set_contents (in, (const char *) src, sn, NULL));
        g_ptr_array_add (args, g_steal_pointer (&in));
      }
      g_ptr_array_add (args, g_strdup_printf ("%u", c->sw));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->sh));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->dw));
      g_ptr_array_add (args, g_strdup_printf ("%u", c->dh));
      g_ptr_array_add (args, g_strdup_printf ("%s/%u.out", dir, i));
    }
  g_rand_free (rand);
  g_ptr_array_add (args, NULL);
  out = hs_test_python (reference_script, (const char * const *) args->pdata);
  if (out == NULL)
    return;
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = &g_array_index (cases, Case, i);
      g_autofree char *path = g_strdup_printf ("%s/%u.out", dir, i);
      g_autofree char *theirs = NULL;
      const guint8 *mine = g_ptr_array_index (ours, i);
      gsize len = 0;

      g_assert_true (g_file_get_contents (path, &theirs, &len, NULL));
      g_assert_cmpuint (len, ==, (gsize) c->dw * c->dh);
      for (gsize k = 0; k < len; k++)
        if (mine[k] != (guint8) theirs[k])
          g_error ("case %u (%u × %u → %u × %u, %s): pixel (%zu, %zu) is %u, cv2 %u",
                   i, c->sw, c->sh, c->dw, c->dh, c->mask ? "mask" : "random",
                   (size_t) (k % c->dw), (size_t) (k / c->dw), mine[k], (guint8) theirs[k]);
    }
  g_test_message ("%u mask and %u random-content cases equal cv2", n_mask, n_random);
}

static void
test_edges (void)
{
  guint8 one = 77, out[4];

  /* empty sizes are refused, a 1 × 1 source fills the output */
  g_assert_false (hs_resize_area_u8 (&one, 0, 1, out, 1, 1));
  g_assert_true (hs_resize_area_u8 (&one, 1, 1, out, 2, 2));
  for (guint i = 0; i < 4; i++)
    g_assert_cmpuint (out[i], ==, 77);
  /* an empty rectangle gives zeros */
  memset (out, 9, sizeof out);
  hs_resize_area_rect_u8 (10, 10, 4, 4, 0, 10, out, 2, 2);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpuint (out[i], ==, 0);
  /* hand-worked: 3 → 2 columns, cells [0, 1.5) and [1.5, 3); column 1
   * lies half in each, a third of either cell: 255 / 3 = 85 in both; column
   * 0 alone: 255 · (1 / 1.5) = 170 and 0 */
  hs_resize_area_rect_u8 (3, 1, 1, 2, 0, 1, out, 2, 1);
  g_assert_cmpuint (out[0], ==, 85);
  g_assert_cmpuint (out[1], ==, 85);
  hs_resize_area_rect_u8 (3, 1, 0, 1, 0, 1, out, 2, 1);
  g_assert_cmpuint (out[0], ==, 170);
  g_assert_cmpuint (out[1], ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/resize-area/edges", test_edges);
  g_test_add_func ("/hs/resize-area/cv2", test_against_cv2);
  return g_test_run ();
}
