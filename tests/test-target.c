/* test-target.c — evaluation grids, box rasterisation (half-open x + 0.5
 * rule, gloria's inclusive transform), masks with the nearest rule */
#include <heatscope/heatscope.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

static HsTarget *
new_target (HsProtocol protocol, guint W, guint H, guint eval_size)
{
  HsEvalGrid grid;
  g_autoptr(GError) error = NULL;

  g_assert_true (hs_eval_grid_init (&grid, protocol, W, H, eval_size, &error));
  g_assert_no_error (error);
  return hs_target_new (&grid);
}

static void
add_box (HsTarget *target, double x1, double y1, double x2, double y2)
{
  HsBox box = { x1, y1, x2, y2 };
  g_autoptr(GError) error = NULL;

  g_assert_true (hs_target_add_box (target, &box, &error));
  g_assert_no_error (error);
}

static char *
row_string (const HsTarget *target, guint y)
{
  guint W = hs_target_get_width (target);
  char *text = g_malloc (W + 1);

  for (guint x = 0; x < W; x++)
    text[x] = hs_target_peek_mask (target)[(gsize) y * W + x] ? '1' : '0';
  text[W] = 0;
  return text;
}

static void
test_half_open (void)
{
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, 6, 1, 0);
  g_autofree char *row = NULL;

  /* x + .5 ≥ .6 → x ≥ 1; x + .5 < 2.4 → x ≤ 1 */
  add_box (t, 0.6, 0, 2.4, 1);
  row = row_string (t, 0);
  g_assert_cmpstr (row, ==, "010000");
  g_assert_cmpuint (hs_target_get_count (t), ==, 1);
  /* edges exactly at centres: 3.5 ≤ x + .5 < 5.5 → x = 3, 4 */
  add_box (t, 3.5, 0, 5.5, 1);
  g_free (row);
  row = row_string (t, 0);
  g_assert_cmpstr (row, ==, "010110");
  /* overlapping boxes count once */
  add_box (t, 0, 0, 2, 1);
  g_assert_cmpuint (hs_target_get_count (t), ==, 4);
  /* an empty box and one outside the image add nothing */
  add_box (t, 5.6, 0, 5.9, 1);
  add_box (t, 10, 0, 20, 1);
  add_box (t, -5, 0, -1, 1);
  g_assert_cmpuint (hs_target_get_count (t), ==, 4);
  /* a box past the edges is clipped */
  add_box (t, -3, -3, 100, 100);
  g_assert_cmpuint (hs_target_get_count (t), ==, 6);
}

static void
test_bad_boxes (void)
{
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, 6, 4, 0);
  g_autoptr(GError) error = NULL;
  HsBox nan_box = { 0, NAN, 2, 2 }, inverted = { 3, 0, 1, 2 };

  g_assert_false (hs_target_add_box (t, &nan_box, &error));
  g_assert_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (hs_target_add_box (t, &inverted, &error));
  g_assert_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "x2 < x1"));
}

static void
test_grid_errors (void)
{
  HsEvalGrid grid;
  g_autoptr(GError) error = NULL;

  g_assert_false (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, 0, 10, 0, &error));
  g_assert_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, 1000000, 1000000, 0, &error));
  g_assert_error (error, HS_TARGET_ERROR, HS_TARGET_ERROR_TOO_LARGE);
}

static void
test_eval_size (void)
{
  HsEvalGrid grid;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsTarget) t = NULL;

  /* W' = round(W·N/max), H' likewise */
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, 333, 100, 100, &error));
  g_assert_cmpuint (grid.width, ==, 100);
  g_assert_cmpuint (grid.height, ==, 30);   /* 30.03 */
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, 100, 250, 64, &error));
  g_assert_cmpuint (grid.width, ==, 26);    /* 25.6 */
  g_assert_cmpuint (grid.height, ==, 64);
  /* chexlocalize ignores eval_size */
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_CHEXLOCALIZE, 100, 250, 64, &error));
  g_assert_cmpuint (grid.width, ==, 100);

  /* boxes scaled by the same factors: [0, 0, 50, 50] on 100 × 50 → N = 10:
   * [0, 0, 5, 5] on 10 × 5 */
  t = new_target (HS_PROTOCOL_DEFAULT, 100, 50, 10);
  g_assert_cmpuint (hs_target_get_width (t), ==, 10);
  g_assert_cmpuint (hs_target_get_height (t), ==, 5);
  add_box (t, 0, 0, 50, 50);
  g_assert_cmpuint (hs_target_get_count (t), ==, 25);
  {
    g_autofree char *row = row_string (t, 0);
    g_assert_cmpstr (row, ==, "1111100000");
  }
}

static void
test_gloria_geometry (void)
{
  HsEvalGrid grid;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsTarget) t = NULL;

  /* wider image: 512 × 256 → 256 × 128, padded 64 rows above */
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_GLORIA, 512, 256, 0, &error));
  g_assert_cmpuint (grid.width, ==, 224);
  g_assert_cmpuint (grid.height, ==, 224);
  g_assert_cmpuint (grid.resized_width, ==, 256);
  g_assert_cmpuint (grid.resized_height, ==, 128);
  g_assert_cmpuint (grid.pad_x, ==, 0);
  g_assert_cmpuint (grid.pad_y, ==, 64);
  g_assert_cmpfloat (grid.offset_x, ==, -16);
  g_assert_cmpfloat (grid.offset_y, ==, 48);
  g_assert_cmpfloat (grid.scale_x, ==, 0.5);

  /* taller: 300 × 400 → int(300·256/400) = 192 × 256, 32 columns of padding */
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_GLORIA, 300, 400, 0, &error));
  g_assert_cmpuint (grid.resized_width, ==, 192);
  g_assert_cmpuint (grid.resized_height, ==, 256);
  g_assert_cmpfloat (grid.offset_x, ==, 16);
  g_assert_cmpfloat (grid.offset_y, ==, -16);

  /* GLoRIA truncates: 1000 × 333 → 256 × int(333·0.256) = 85; pad 85 → floor(171/2) = 85 */
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_GLORIA, 1000, 333, 0, &error));
  g_assert_cmpuint (grid.resized_height, ==, 85);
  g_assert_cmpuint (grid.pad_y, ==, 85);

  /* inclusive box: [32, 0, 63, 10] → the mask covers image columns 32 … 63
   * and rows 0 … 10; halved (2 × 2 blocks) that is columns 16 … 31 and rows
   * 0 … 4 in full plus row 5 at (2·255 + 2) >> 2 = 128 ≥ 128; in the crop
   * columns 0 … 15, rows 48 … 53 */
  t = new_target (HS_PROTOCOL_GLORIA, 512, 256, 0);
  add_box (t, 32, 0, 63, 10);
  g_assert_cmpuint (hs_target_get_count (t), ==, 16 * 6);
  g_assert_true (hs_target_peek_mask (t)[48 * 224 + 0]);
  g_assert_true (hs_target_peek_mask (t)[53 * 224 + 15]);
  g_assert_false (hs_target_peek_mask (t)[54 * 224 + 15]);
  g_assert_false (hs_target_peek_mask (t)[48 * 224 + 16]);
  /* a box in the cropped-away margin adds nothing */
  add_box (t, 0, 0, 20, 10);
  g_assert_cmpuint (hs_target_get_count (t), ==, 16 * 6);
  /* inclusive corners: a zero-size box is one image pixel, a quarter of its
   * 2 × 2 block (64 < 128): it vanishes, as in the fork; a 2 × 2 box on a
   * block keeps that block's pixel */
  add_box (t, 300, 100, 300, 100);
  g_assert_cmpuint (hs_target_get_count (t), ==, 16 * 6);
  add_box (t, 300, 100, 301, 101);
  g_assert_cmpuint (hs_target_get_count (t), ==, 16 * 6 + 1);
  g_assert_true (hs_target_peek_mask (t)[(50 + 48) * 224 + 150 - 16]);
}

static HsImage *
new_mask (guint w, guint h, guint channels, const guint16 *values)
{
  g_autoptr(GError) error = NULL;
  HsImage *image = hs_image_new (w, h, channels, 8, &error);

  g_assert_no_error (error);
  memcpy (hs_image_get_data (image), values, sizeof (guint16) * w * h * channels);
  return image;
}

static void
test_mask_nearest (void)
{
  const guint16 diag[] = { 1, 0,
                           0, 255 };
  g_autoptr(HsImage) mask = new_mask (2, 2, 1, diag);
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, 4, 4, 0);
  g_autoptr(GError) error = NULL;
  const char *expected[] = { "1100", "1100", "0011", "0011" };

  g_assert_true (hs_target_add_mask (t, mask, &error));
  for (guint y = 0; y < 4; y++)
    {
      g_autofree char *row = row_string (t, y);
      g_assert_cmpstr (row, ==, expected[y]);
    }
  g_assert_cmpuint (hs_target_get_count (t), ==, 8);

  /* 3 → 2 columns: floor((x + .5)·3/2) = 0, 2 */
  {
    const guint16 row3[] = { 0, 9, 9 };
    g_autoptr(HsImage) m3 = new_mask (3, 1, 1, row3);
    g_autoptr(HsTarget) t2 = new_target (HS_PROTOCOL_DEFAULT, 2, 1, 0);
    g_autofree char *row = NULL;

    g_assert_true (hs_target_add_mask (t2, m3, &error));
    row = row_string (t2, 0);
    g_assert_cmpstr (row, ==, "01");
  }
}

static void
test_mask_channels (void)
{
  /* RGBA: blue only counts; alpha alone does not */
  const guint16 rgba[] = { 0, 0, 7, 0,   0, 0, 0, 255 };
  const guint16 ga[] = { 0, 255,   3, 0 };
  g_autoptr(HsImage) m1 = new_mask (2, 1, 4, rgba);
  g_autoptr(HsImage) m2 = new_mask (2, 1, 2, ga);
  g_autoptr(HsTarget) t1 = new_target (HS_PROTOCOL_DEFAULT, 2, 1, 0);
  g_autoptr(HsTarget) t2 = new_target (HS_PROTOCOL_DEFAULT, 2, 1, 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *r1 = NULL, *r2 = NULL;

  g_assert_true (hs_target_add_mask (t1, m1, &error));
  g_assert_true (hs_target_add_mask (t2, m2, &error));
  r1 = row_string (t1, 0);
  r2 = row_string (t2, 0);
  g_assert_cmpstr (r1, ==, "10");
  g_assert_cmpstr (r2, ==, "01");
}

static void
test_mask_gloria (void)
{
  g_autofree guint16 *ones = g_new (guint16, 512 * 256);
  g_autoptr(HsImage) mask = NULL;
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_GLORIA, 512, 256, 0);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 512 * 256; i++)
    ones[i] = 1;
  mask = new_mask (512, 256, 1, ones);
  g_assert_true (hs_target_add_mask (t, mask, &error));
  /* the resized image occupies rows 48 … 175 of the crop, every column */
  g_assert_cmpuint (hs_target_get_count (t), ==, 224 * 128);
  g_assert_false (hs_target_peek_mask (t)[47 * 224]);
  g_assert_true (hs_target_peek_mask (t)[48 * 224]);
  g_assert_true (hs_target_peek_mask (t)[175 * 224 + 223]);
  g_assert_false (hs_target_peek_mask (t)[176 * 224]);
}

/* Random float boxes on random grids against a NumPy transcription of the
 * rule (x1' ≤ x + 0.5 < x2', corners scaled by W'/W). */
static void
test_random_boxes_numpy (void)
{
  const char *script =
    "import sys, numpy as np\n"
    "W, H, Wp, Hp = map(int, sys.argv[1:5]); boxes = np.array(list(map(float, sys.argv[6:]))).reshape(-1, 4)\n"
    "g = np.zeros((Hp, Wp), bool)\n"
    "xs = np.arange(Wp) + 0.5; ys = np.arange(Hp) + 0.5\n"
    "for x1, y1, x2, y2 in boxes:\n"
    "    if Wp != W: x1, x2 = x1 * Wp / W, x2 * Wp / W\n"
    "    if Hp != H: y1, y2 = y1 * Hp / H, y2 * Hp / H\n"
    "    g |= ((y1 <= ys) & (ys < y2))[:, None] & ((x1 <= xs) & (xs < x2))[None, :]\n"
    "g.astype(np.uint8).tofile(sys.argv[5])\n";
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "g.u8", NULL);

  for (guint round = 0; round < 6; round++)
    {
      guint W = g_test_rand_int_range (20, 300), H = g_test_rand_int_range (20, 300);
      guint eval = round % 2 == 0 ? 0 : (guint) g_test_rand_int_range (10, 200);
      g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, W, H, eval);
      g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *out = NULL, *data = NULL;
      gsize len = 0;

      g_ptr_array_add (args, g_strdup_printf ("%u", W));
      g_ptr_array_add (args, g_strdup_printf ("%u", H));
      g_ptr_array_add (args, g_strdup_printf ("%u", hs_target_get_width (t)));
      g_ptr_array_add (args, g_strdup_printf ("%u", hs_target_get_height (t)));
      g_ptr_array_add (args, g_strdup (path));
      for (guint b = 0; b < 4; b++)
        {
          /* half-integer corners hit the x + 0.5 edge exactly */
          double x1 = round % 3 == 0 ? floor (g_test_rand_double_range (-10, W)) + 0.5
                                     : g_test_rand_double_range (-10, W);
          double y1 = g_test_rand_double_range (-10, H);
          double x2 = x1 + g_test_rand_double_range (0, W / 2.0), y2 = y1 + g_test_rand_double_range (0, H / 2.0);
          char buf[4][G_ASCII_DTOSTR_BUF_SIZE];

          add_box (t, x1, y1, x2, y2);
          g_ptr_array_add (args, g_strdup (g_ascii_dtostr (buf[0], sizeof buf[0], x1)));
          g_ptr_array_add (args, g_strdup (g_ascii_dtostr (buf[1], sizeof buf[1], y1)));
          g_ptr_array_add (args, g_strdup (g_ascii_dtostr (buf[2], sizeof buf[2], x2)));
          g_ptr_array_add (args, g_strdup (g_ascii_dtostr (buf[3], sizeof buf[3], y2)));
        }
      g_ptr_array_add (args, NULL);
      out = hs_test_python (script, (const char * const *) args->pdata);
      if (out == NULL)
        return;
      g_assert_true (g_file_get_contents (path, &data, &len, NULL));
      g_assert_cmpuint (len, ==, (gsize) hs_target_get_width (t) * hs_target_get_height (t));
      g_assert_cmpmem (data, len, hs_target_peek_mask (t), len);
    }
}

static void
test_copy (void)
{
  g_autoptr(HsTarget) t = new_target (HS_PROTOCOL_DEFAULT, 5, 5, 0);
  g_autoptr(HsTarget) c = NULL;

  add_box (t, 1, 1, 3, 3);
  c = hs_target_copy (t);
  g_assert_cmpuint (hs_target_get_count (c), ==, 4);
  add_box (t, 0, 0, 5, 5);
  g_assert_cmpuint (hs_target_get_count (c), ==, 4);
  g_assert_cmpuint (hs_target_get_count (t), ==, 25);
}

/* A sentence's target is the union of the regions it names and nothing
 * else; a target naming no region of the instance (an instance edited after
 * it was read) is an error naming the manifest, not a smaller target. */
static void
test_sentence (void)
{
  g_autofree char *root = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = hs_dataset_new (root, "target-test");
  g_autofree char *manifest = g_build_filename (root, "heatscope.json", NULL);
  HsInstance *instance = hs_instance_new ("i1", "image.png");
  HsSentence *sentence = hs_sentence_new ("s1", "Opacities at both bases.");
  HsRegion *left = hs_region_new ("left"), *right = hs_region_new ("right");
  HsRegion *other = hs_region_new ("other");
  g_autoptr(HsTarget) target = NULL;
  g_autoptr(GError) error = NULL;
  HsEvalGrid grid;

  hs_region_add_box (left, 1, 1, 3, 3);    /* x 1..2, y 1..2: 4 pixels */
  hs_region_add_box (right, 2, 2, 5, 4);   /* x 2..4, y 2..3: 6, one shared */
  hs_region_add_box (other, 0, 0, 5, 5);   /* not a target: adds nothing */
  hs_instance_add_region (instance, left);
  hs_instance_add_region (instance, right);
  hs_instance_add_region (instance, other);
  hs_sentence_add_target (sentence, "left");
  hs_sentence_add_target (sentence, "right");
  hs_instance_add_sentence (instance, sentence);
  hs_dataset_add_instance (dataset, instance);
  g_assert_true (hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, 5, 5, 0, &error));

  g_assert_true (hs_instance_get_target_region (dataset, instance, "right", &error) == right);
  target = hs_target_new_for_sentence (&grid, dataset, instance, sentence, &error);
  g_assert_no_error (error);
  g_assert_nonnull (target);
  g_assert_cmpuint (hs_target_get_count (target), ==, 4 + 6 - 1);
  g_assert_cmpuint (hs_target_peek_mask (target)[0 * 5 + 0], ==, 0);
  g_assert_cmpuint (hs_target_peek_mask (target)[2 * 5 + 2], ==, 1);
  g_clear_pointer (&target, hs_target_free);

  hs_sentence_add_target (sentence, "gone");
  target = hs_target_new_for_sentence (&grid, dataset, instance, sentence, &error);
  g_assert_null (target);
  g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, manifest));
  g_assert_nonnull (strstr (error->message, "instance \"i1\" has no region \"gone\""));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/target/half-open", test_half_open);
  g_test_add_func ("/hs/target/bad-boxes", test_bad_boxes);
  g_test_add_func ("/hs/target/grid-errors", test_grid_errors);
  g_test_add_func ("/hs/target/eval-size", test_eval_size);
  g_test_add_func ("/hs/target/gloria-geometry", test_gloria_geometry);
  g_test_add_func ("/hs/target/mask-nearest", test_mask_nearest);
  g_test_add_func ("/hs/target/mask-channels", test_mask_channels);
  g_test_add_func ("/hs/target/mask-gloria", test_mask_gloria);
  g_test_add_func ("/hs/target/random-boxes-numpy", test_random_boxes_numpy);
  g_test_add_func ("/hs/target/copy", test_copy);
  g_test_add_func ("/hs/target/sentence", test_sentence);
  return g_test_run ();
}
