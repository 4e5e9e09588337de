/* test-raster-contours.c — hs_raster_find_contours equals
 * cv2.findContours(RETR_TREE, CHAIN_APPROX_SIMPLE) point for point, and
 * hs_raster_fill_polygon equals PIL's ImageDraw.polygon(fill=1, outline=1)
 * on a mode "1" image pixel for pixel (python3-opencv, python3-pil): random
 * binary rasters with single-pixel islands, one-pixel-thin lines and
 * diagonals, holes and nested rings, each contour drawn as CheXlocalize
 * draws it, and random polygons. */
#include <heatscope/heatscope.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"
#include "../src/core/hs-raster-private.h"

/* argv groups "mask.u8 W H polys.json out.u8": prints the contours of each
 * mask (sorted, as lists of [x, y]) and writes the union of the polygons
 * of polys.json drawn one by one on a fresh image per polygon, rasters
 * concatenated. */
static const char *reference_script =
  "import sys, json, numpy as np, cv2\n"
  "from PIL import Image, ImageDraw\n"
  "a = sys.argv[1:]; result = []\n"
  "for i in range(0, len(a), 5):\n"
  "    mfile, W, H, pfile, ofile = a[i:i + 5]; W = int(W); H = int(H)\n"
  "    m = np.fromfile(mfile, dtype=np.uint8).reshape(H, W)\n"
  "    cnts = cv2.findContours(m, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)\n"
  "    cnts = cnts[0] if len(cnts) == 2 else cnts[1]\n"
  "    result.append(sorted([[list(map(int, pt[0])) for pt in c] for c in cnts]))\n"
  "    out = []\n"
  "    for poly in json.load(open(pfile)):\n"
  "        img = Image.new('1', (W, H))\n"
  "        ImageDraw.Draw(img).polygon([(p[0], p[1]) for p in poly], outline=1, fill=1)\n"
  "        out.append(np.array(img, dtype=np.uint8))\n"
  "    (np.stack(out) if out else np.zeros((0, H, W), np.uint8)).tofile(ofile)\n"
  "print(json.dumps(result))\n";

typedef struct {
  guint W, H;
  guint8 *mask;
  GPtrArray *polys;     /* GArray of gint (x, y interleaved) */
} Case;

static void
draw_line (guint8 *m, guint W, guint H, gint x0, gint y0, gint x1, gint y1)
{
  gint n = MAX (ABS (x1 - x0), ABS (y1 - y0));

  for (gint i = 0; i <= n; i++)
    {
      gint x = x0 + (n ? (x1 - x0) * i / n : 0), y = y0 + (n ? (y1 - y0) * i / n : 0);

      if (x >= 0 && y >= 0 && x < (gint) W && y < (gint) H)
        m[(gsize) y * W + x] = 1;
    }
}

/* Masks: speckle (islands, thin bits), rings with holes and islands inside,
 * lines and diagonals, full borders (touching the frame). */
static void
make_mask (GRand *rand, guint kind, Case *c)
{
  guint W = c->W, H = c->H;

  c->mask = g_malloc0 ((gsize) W * H);
  switch (kind % 4)
    {
    case 0:
      for (gsize i = 0; i < (gsize) W * H; i++)
        c->mask[i] = g_rand_double (rand) < 0.35;
      break;
    case 1:
      for (guint y = 0; y < H; y++)
        for (guint x = 0; x < W; x++)
          {
            double r = hypot (x - W / 2.0, y - H / 2.0);
            c->mask[(gsize) y * W + x] = (r > W / 5.0 && r < W / 3.0) || r < W / 12.0
                                         || g_rand_double (rand) < 0.03;
          }
      break;
    case 2:
      for (guint k = 0; k < 12; k++)
        draw_line (c->mask, W, H, g_rand_int_range (rand, -3, W + 3), g_rand_int_range (rand, -3, H + 3),
                   g_rand_int_range (rand, -3, W + 3), g_rand_int_range (rand, -3, H + 3));
      break;
    default:
      for (guint y = 0; y < H; y++)
        for (guint x = 0; x < W; x++)
          c->mask[(gsize) y * W + x] = (x / 3 + y / 2) % 3 != 0 || x == 0 || y + 1 == H;
      for (guint k = 0; k < 20; k++)
        c->mask[g_rand_int_range (rand, 0, W * H)] = 0;
      break;
    }
}

static void
add_random_polys (GRand *rand, Case *c)
{
  for (guint p = 0; p < 8; p++)
    {
      GArray *poly = g_array_new (FALSE, FALSE, sizeof (gint));
      guint n = g_rand_int_range (rand, 2, 9);

      for (guint k = 0; k < n; k++)
        {
          gint xy[2] = { g_rand_int_range (rand, -4, c->W + 4), g_rand_int_range (rand, -4, c->H + 4) };

          /* repeat an x or a y now and then: horizontal and vertical runs */
          if (k > 0 && g_rand_boolean (rand))
            xy[g_rand_boolean (rand)] = g_array_index (poly, gint, 2 * (k - 1) + (p % 2));
          g_array_append_vals (poly, xy, 2);
        }
      g_ptr_array_add (c->polys, poly);
    }
}

static gint
cmp_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

static void
test_against_cv2_pil (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (42);
  const guint n_cases = 24;
  Case cases[24];
  guint n_contours = 0, n_polys = 0;

  for (guint ci = 0; ci < n_cases; ci++)
    {
      Case *c = &cases[ci];
      g_autoptr(GString) json = g_string_new ("[");
      GArray *contours;

      c->W = g_rand_int_range (rand, 3, 70);
      c->H = g_rand_int_range (rand, 3, 70);
      c->polys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
      make_mask (rand, ci, c);
      /* draw what CheXlocalize draws: every contour of the mask */
      contours = hs_raster_find_contours (c->mask, c->W, c->H);
      for (guint k = 0; k < contours->len; k++)
        {
          const HsRasterContour *rc = &g_array_index (contours, HsRasterContour, k);
          GArray *poly = g_array_new (FALSE, FALSE, sizeof (gint));

          if (rc->n < 2)
            {
              g_array_unref (poly);
              continue;
            }
          g_array_append_vals (poly, rc->xy, 2 * rc->n);
          g_ptr_array_add (c->polys, poly);
        }
      hs_raster_contours_free (contours);
      add_random_polys (rand, c);
      for (guint p = 0; p < c->polys->len; p++)
        {
          GArray *poly = g_ptr_array_index (c->polys, p);

          g_string_append (json, p ? ",[" : "[");
          for (guint k = 0; k < poly->len / 2; k++)
            g_string_append_printf (json, "%s[%d,%d]", k ? "," : "",
                                    g_array_index (poly, gint, 2 * k), g_array_index (poly, gint, 2 * k + 1));
          g_string_append (json, "]");
        }
      g_string_append (json, "]");
      {
        g_autofree char *mpath = g_strdup_printf ("%s/%u.mask", dir, ci);
        g_autofree char *ppath = g_strdup_printf ("%s/%u.json", dir, ci);

        g_assert_true (g_file_set_contents (mpath, (const char *) c->mask, (gssize) c->W * c->H, NULL));
        g_assert_true (g_file_set_contents (ppath, json->str, -1, NULL));
        g_ptr_array_add (args, g_steal_pointer (&mpath));
        g_ptr_array_add (args, g_strdup_printf ("%u", c->W));
        g_ptr_array_add (args, g_strdup_printf ("%u", c->H));
        g_ptr_array_add (args, g_steal_pointer (&ppath));
        g_ptr_array_add (args, g_strdup_printf ("%s/%u.out", dir, ci));
      }
    }
  g_rand_free (rand);
  g_ptr_array_add (args, NULL);
  out = hs_test_python (reference_script, (const char * const *) args->pdata);
  if (out != NULL)
    {
      JsonArray *all;

      g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
      all = json_node_get_array (json_parser_get_root (parser));
      for (guint ci = 0; ci < n_cases; ci++)
        {
          Case *c = &cases[ci];
          JsonArray *theirs = json_array_get_array_element (all, ci);
          GArray *mine = hs_raster_find_contours (c->mask, c->W, c->H);
          g_autoptr(GPtrArray) mine_text = g_ptr_array_new_with_free_func (g_free);
          g_autoptr(GPtrArray) their_text = g_ptr_array_new_with_free_func (g_free);
          g_autofree char *path = g_strdup_printf ("%s/%u.out", dir, ci);
          g_autofree char *raster = NULL;
          gsize len = 0, plane = (gsize) c->W * c->H;

          /* contours compared as sorted lists of point lists (OpenCV
           * returns them in tree order, the points of each in trace order) */
          for (guint k = 0; k < mine->len; k++)
            {
              const HsRasterContour *rc = &g_array_index (mine, HsRasterContour, k);
              GString *t = g_string_new ("");

              for (guint p = 0; p < rc->n; p++)
                g_string_append_printf (t, "(%d,%d)", rc->xy[2 * p], rc->xy[2 * p + 1]);
              g_ptr_array_add (mine_text, g_string_free (t, FALSE));
            }
          for (guint k = 0; k < json_array_get_length (theirs); k++)
            {
              JsonArray *pts = json_array_get_array_element (theirs, k);
              GString *t = g_string_new ("");

              for (guint p = 0; p < json_array_get_length (pts); p++)
                {
                  JsonArray *pt = json_array_get_array_element (pts, p);
                  g_string_append_printf (t, "(%d,%d)", (int) json_array_get_int_element (pt, 0),
                                          (int) json_array_get_int_element (pt, 1));
                }
              g_ptr_array_add (their_text, g_string_free (t, FALSE));
            }
          g_ptr_array_sort (mine_text, cmp_strings);
          g_ptr_array_sort (their_text, cmp_strings);
          if (mine_text->len != their_text->len)
            g_error ("case %u (%u × %u): %u contours, cv2 %u", ci, c->W, c->H, mine_text->len, their_text->len);
          for (guint k = 0; k < mine_text->len; k++)
            if (strcmp (g_ptr_array_index (mine_text, k), g_ptr_array_index (their_text, k)) != 0)
              g_error ("case %u (%u × %u): contour %s, cv2 %s", ci, c->W, c->H,
                       (char *) g_ptr_array_index (mine_text, k), (char *) g_ptr_array_index (their_text, k));
          n_contours += mine->len;
          hs_raster_contours_free (mine);

          g_assert_true (g_file_get_contents (path, &raster, &len, NULL));
          g_assert_cmpuint (len, ==, plane * c->polys->len);
          for (guint p = 0; p < c->polys->len; p++)
            {
              GArray *poly = g_ptr_array_index (c->polys, p);
              g_autofree guint8 *img = g_malloc0 (plane);

              hs_raster_fill_polygon (img, c->W, c->H, (const gint *) poly->data, poly->len / 2);
              for (gsize k = 0; k < plane; k++)
                if (img[k] != (guint8) raster[p * plane + k])
                  g_error ("case %u (%u × %u), polygon %u (%u vertices): pixel (%zu, %zu) is %u, PIL %u",
                           ci, c->W, c->H, p, poly->len / 2, (size_t) (k % c->W), (size_t) (k / c->W),
                           img[k], (guint8) raster[p * plane + k]);
            }
          n_polys += c->polys->len;
        }
      g_test_message ("%u contours equal cv2's, %u polygons equal PIL's", n_contours, n_polys);
    }
  for (guint ci = 0; ci < n_cases; ci++)
    {
      g_free (cases[ci].mask);
      g_ptr_array_unref (cases[ci].polys);
    }
}

static void
test_hand_worked (void)
{
  /* A 3 × 3 square with a one-pixel hole: the outer border from (1, 1)
   * keeps its four corners, the hole border (traced from the pixel left of
   * the hole, counter-clockwise) the four pixels around it; filling both polygons covers the
   * hole.  A lone pixel gives a single point. */
  guint8 m[6 * 6] = { 0 };
  GArray *c;
  guint8 img[6 * 6] = { 0 };

  for (guint y = 1; y <= 3; y++)
    for (guint x = 1; x <= 3; x++)
      m[y * 6 + x] = y != 2 || x != 2;
  m[5 * 6 + 5] = 1;
  c = hs_raster_find_contours (m, 6, 6);
  g_assert_cmpuint (c->len, ==, 3);
  {
    const HsRasterContour *outer = &g_array_index (c, HsRasterContour, 0);
    const HsRasterContour *hole = &g_array_index (c, HsRasterContour, 1);
    const HsRasterContour *lone = &g_array_index (c, HsRasterContour, 2);
    const gint outer_xy[] = { 1, 1, 1, 3, 3, 3, 3, 1 };
    const gint hole_xy[] = { 1, 2, 2, 1, 3, 2, 2, 3 };

    g_assert_cmpmem (outer->xy, sizeof (gint) * 2 * outer->n, outer_xy, sizeof outer_xy);
    g_assert_cmpmem (hole->xy, sizeof (gint) * 2 * hole->n, hole_xy, sizeof hole_xy);
    g_assert_cmpuint (lone->n, ==, 1);
    hs_raster_fill_polygon (img, 6, 6, outer->xy, outer->n);
    hs_raster_fill_polygon (img, 6, 6, hole->xy, hole->n);
  }
  hs_raster_contours_free (c);
  for (guint y = 0; y < 6; y++)
    for (guint x = 0; x < 6; x++)
      g_assert_cmpuint (img[y * 6 + x], ==, x >= 1 && x <= 3 && y >= 1 && y <= 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/raster-contours/hand-worked", test_hand_worked);
  g_test_add_func ("/hs/raster-contours/cv2-pil", test_against_cv2_pil);
  return g_test_run ();
}
