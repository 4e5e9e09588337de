/* test-rle.c — COCO RLE against an independent Python port of maskApi.c */
#include <heatscope/heatscope.h>

#include <stdlib.h>
#include <string.h>

#include "hs-test-util.h"

static void
test_hand_example (void)
{
  /* 3 rows × 2 columns, column-major runs:
   *   mask  0 1      column 0 (top→bottom): 0 1 1
   *         1 1      column 1:              1 1 0
   *         1 0      → runs 1 (zeros), 4 (ones), 1 (zero) */
  static const guint8 mask[6] = { 0, 1, 1, 1, 1, 0 };
  static const guint32 counts[] = { 1, 4, 1 };
  g_autoptr(GArray) encoded = hs_rle_encode (mask, 3, 2);
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *decoded = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GArray) parsed = NULL;

  g_assert_cmpuint (encoded->len, ==, 3);
  g_assert_cmpmem (encoded->data, 12, counts, 12);
  decoded = hs_rle_decode (counts, 3, 3, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (decoded, 6, mask, 6);
  /* maskApi: 1 → '1', 4 → '4', 1 → '1' (first three are stored as they are) */
  text = hs_rle_counts_to_string (counts, 3);
  g_assert_cmpstr (text, ==, "141");
  parsed = hs_rle_counts_from_string ("141", &error);
  g_assert_no_error (error);
  g_assert_cmpmem (parsed->data, 12, counts, 12);
}

/* maskApi.c's rleToString / rleFrString, ported line by line, and numpy's
 * Fortran-order ravel for the runs. */
static const char reference_script[] =
  "import sys, numpy as np\n"
  HS_TEST_PY_COCO_RLE
  "rng = np.random.default_rng(5)\n"
  "for k in range(40):\n"
  "    h, w = int(rng.integers(1, 40)), int(rng.integers(1, 40))\n"
  "    p = [0.02, 0.5, 0.98][k % 3]\n"
  "    m = (rng.random((h, w)) < p).astype(np.uint8)\n"
  "    if k == 0: m[:] = 0\n"
  "    if k == 1: m[:] = 1\n"
  "    if k == 2: h, w = 300, 700; m = np.zeros((h, w), np.uint8); m[10:290, 20:690] = 1\n"
  "    c = runs(m)\n"
  "    print(h, w, ''.join(map(str, m.ravel())), ' '.join(map(str, c)), to_string(c))\n";

static void
test_against_reference (void)
{
  g_autofree char *out = hs_test_python (reference_script, NULL);
  g_auto(GStrv) lines = NULL;
  guint n = 0;

  if (out == NULL)
    return;
  lines = g_strsplit (g_strstrip (out), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], " ", -1);
      guint nf = g_strv_length (f);
      guint h = atoi (f[0]), w = atoi (f[1]);
      const char *bits = f[2];
      const char *string = f[nf - 1];
      g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autoptr(GArray) encoded = NULL;
      g_autoptr(GArray) parsed = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree guint8 *mask = g_malloc ((gsize) h * w);
      g_autofree guint8 *decoded = NULL;
      g_autofree char *text = NULL;

      for (guint k = 3; k + 1 < nf; k++)
        {
          guint32 c = (guint32) g_ascii_strtoull (f[k], NULL, 10);
          g_array_append_val (counts, c);
        }
      for (gsize k = 0; k < (gsize) h * w; k++)
        mask[k] = bits[k] == '1';

      encoded = hs_rle_encode (mask, h, w);
      g_assert_cmpuint (encoded->len, ==, counts->len);
      g_assert_cmpmem (encoded->data, counts->len * 4, counts->data, counts->len * 4);
      decoded = hs_rle_decode ((guint32 *) (gpointer) counts->data, counts->len, h, w, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (decoded, (gsize) h * w, mask, (gsize) h * w);
      text = hs_rle_counts_to_string ((guint32 *) (gpointer) counts->data, counts->len);
      g_assert_cmpstr (text, ==, string);
      parsed = hs_rle_counts_from_string (string, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (parsed->len, ==, counts->len);
      g_assert_cmpmem (parsed->data, counts->len * 4, counts->data, counts->len * 4);
      n++;
    }
  g_assert_cmpuint (n, ==, 40);
}

static void
test_bad_input (void)
{
  static const guint32 counts[] = { 2, 3 };
  g_autoptr(GError) error = NULL;

  g_assert_null (hs_rle_counts_from_string ("12 4", &error));
  g_assert_error (error, HS_RLE_ERROR, HS_RLE_ERROR_INVALID);
  g_clear_error (&error);
  /* a continuation bit with nothing after it */
  g_assert_null (hs_rle_counts_from_string ("1P", &error));
  g_assert_error (error, HS_RLE_ERROR, HS_RLE_ERROR_INVALID);
  g_clear_error (&error);
  /* a negative first count ('?' = 15 | sign bit 0x10 → -1) */
  g_assert_null (hs_rle_counts_from_string ("O", &error));
  g_assert_error (error, HS_RLE_ERROR, HS_RLE_ERROR_INVALID);
  g_clear_error (&error);
  /* counts that do not cover the mask */
  g_assert_null (hs_rle_decode (counts, 2, 2, 3, &error));
  g_assert_error (error, HS_RLE_ERROR, HS_RLE_ERROR_SIZE);
  g_clear_error (&error);
  g_assert_null (hs_rle_decode (counts, 2, 2, 2, &error));
  g_assert_error (error, HS_RLE_ERROR, HS_RLE_ERROR_SIZE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/rle/hand-example", test_hand_example);
  g_test_add_func ("/hs/rle/against-reference", test_against_reference);
  g_test_add_func ("/hs/rle/bad-input", test_bad_input);
  return g_test_run ();
}
