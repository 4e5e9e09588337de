/* test-import-siim.c — SIIM-ACR Pneumothorax train-rle.csv
 *
 * The run-length convention is checked by a round trip: Python encodes a
 * known mask with the challenge's published encoder (mask2rle of
 * mask_functions.py, ported line by line, applied to the transposed mask as
 * the starter kernel does), Heatscope imports the CSV, and the mask it
 * writes must equal the original pixel for pixel. */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

static const char encoder_script[] =
  "import sys, numpy as np\n"
  "def mask2rle(img, width, height):\n"
  "    rle = []\n"
  "    lastColor = 0\n"
  "    currentPixel = 0\n"
  "    runStart = -1\n"
  "    runLength = 0\n"
  "    for x in range(width):\n"
  "        for y in range(height):\n"
  "            currentColor = img[x][y]\n"
  "            if currentColor != lastColor:\n"
  "                if currentColor == 255:\n"
  "                    runStart = currentPixel\n"
  "                    runLength = 1\n"
  "                else:\n"
  "                    rle.append(str(runStart))\n"
  "                    rle.append(str(runLength))\n"
  "                    runStart = -1\n"
  "                    runLength = 0\n"
  "                    currentPixel = 0\n"
  "            elif runStart > -1:\n"
  "                runLength += 1\n"
  "            lastColor = currentColor\n"
  "            currentPixel += 1\n"
  "    return ' '.join(rle)\n"
  "out = sys.argv[1]\n"
  "a = np.zeros((1024, 1024), np.uint8)\n"
  "a[100:180, 300:340] = 255          # rows 100..179, columns 300..339\n"
  "b = np.zeros((1024, 1024), np.uint8)\n"
  "yy, xx = np.mgrid[0:1024, 0:1024]\n"
  "b[(yy - 600) ** 2 + (xx - 700) ** 2 < 50 ** 2] = 255\n"
  "b[600:603, 900:1000] = 255\n"
  "(np.maximum(a, b) > 0).astype(np.uint8).tofile(out + '/expected.bin')\n"
  "print(mask2rle(a.T, 1024, 1024))\n"
  "print(mask2rle(b.T, 1024, 1024))\n";

static void
test_round_trip (void)
{
  g_autofree char *src = hs_test_make_tmpdir ();
  g_autofree char *out = NULL, *rle = NULL, *expected = NULL, *csv = NULL;
  g_autofree char *dcm_source = hs_test_shared_path ("dicom/siim-acr-ptx-cxr-1024.dcm");
  const char *args[] = { src, NULL };
  const char *ptx_id = "1.2.276.0.7230010.3.1.4.8323329.5597.1517875188.959090";
  const char *dcm_id = "1.2.276.0.7230010.3.1.4.8323329.6904.1517875201.850819";
  g_auto(GStrv) lines = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsImportSummary summary = { 0 };
  const char *sources[] = { NULL, NULL, NULL };
  gsize len;
  HsInstance *ptx, *dcm;
  HsRegion *region;

  if (dcm_source == NULL)
    return;
  rle = hs_test_python (encoder_script, args);
  if (rle == NULL)
    return;
  lines = g_strsplit (rle, "\n", -1);
  {
    g_autofree char *png = g_strdup_printf ("%s/images/%s.png", src, ptx_id);
    g_autofree char *dir = g_build_filename (src, "images", "1.2.276.0.7230010.3.1.2.8323329.6904.1517875201.850818",
                                             "1.2.276.0.7230010.3.1.3.8323329.6904.1517875201.850817", NULL);
    g_autofree char *dst = g_strdup_printf ("%s/%s.dcm", dir, dcm_id);
    g_autofree char *contents = NULL;
    g_autoptr(HsImage) image = hs_image_new (1024, 1024, 1, 8, NULL);

    g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
    g_assert_true (hs_image_save_png (image, png, &error));
    /* the DICOM nested by study and series, as the challenge ships it */
    g_assert_true (g_file_get_contents (dcm_source, &contents, &len, NULL));
    g_assert_true (g_file_set_contents (dst, contents, (gssize) len, NULL));
  }
  csv = g_build_filename (src, "train-rle.csv", NULL);
  {
    g_autofree char *text = g_strdup_printf ("ImageId, EncodedPixels\n"
                                             "%s, %s\n%s, %s\n%s, -1\n%s, 5 3 x\n",
                                             ptx_id, lines[0], ptx_id, lines[1], dcm_id, ptx_id);
    g_assert_true (g_file_set_contents (csv, text, -1, NULL));
  }
  {
    g_autofree char *tmp = hs_test_make_tmpdir ();
    out = g_build_filename (tmp, "siim", NULL);
  }
  sources[0] = csv;
  {
    g_autofree char *images = g_build_filename (src, "images", NULL);
    sources[1] = images;
    dataset = hs_import ("siim-acr", sources, out, NULL, &summary, &error);
  }
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 2);

  ptx = hs_dataset_find_instance (dataset, ptx_id);
  g_assert_nonnull (ptx);
  g_assert_true (ptx->abnormal);
  region = hs_instance_find_region (ptx, "Pneumothorax");
  g_assert_nonnull (region);
  g_assert_nonnull (region->mask);
  {
    g_autoptr(HsImage) mask = hs_dataset_load_mask (dataset, region, &error);
    g_autofree char *expected_path = g_build_filename (src, "expected.bin", NULL);
    const guint16 *px;
    guint mismatches = 0, inside = 0;

    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (expected_path, &expected, &len, NULL));
    g_assert_cmpuint (len, ==, 1024 * 1024);
    px = hs_image_peek_data (mask);
    for (gsize i = 0; i < len; i++)
      {
        mismatches += (px[i] != 0) != (expected[i] != 0);
        inside += expected[i] != 0;
      }
    g_test_message ("round trip: %u mask pixels, %u differ", inside, mismatches);
    g_assert_cmpuint (inside, >, 80 * 40);
    g_assert_cmpuint (mismatches, ==, 0);
    /* orientation by hand: the rectangle covers row 100, column 300, not row 300, column 100 */
    g_assert_cmpuint (px[100 * 1024 + 300], !=, 0);
    g_assert_cmpuint (px[300 * 1024 + 100], ==, 0);
    g_assert_cmpuint (px[179 * 1024 + 339], !=, 0);
    g_assert_cmpuint (px[180 * 1024 + 339], ==, 0);
  }

  /* "-1": no pneumothorax; the DICOM was found below the image folder. */
  dcm = hs_dataset_find_instance (dataset, dcm_id);
  g_assert_nonnull (dcm);
  g_assert_false (dcm->abnormal);
  g_assert_cmpuint (dcm->regions->len, ==, 0);
  g_assert_true (g_str_has_suffix (dcm->image, ".dcm"));

  g_assert_cmpuint (summary.skipped->len, ==, 1);
  g_assert_cmpuint (((HsImportSkip *) g_ptr_array_index (summary.skipped, 0))->line, ==, 5);
  hs_import_summary_clear (&summary);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-siim/round-trip", test_round_trip);
  return g_test_run ();
}
