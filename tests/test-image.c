/* test-image.c — PNG/JPEG decoding, PNG encoding, grey and levels */
#include <heatscope/heatscope.h>

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs-test-util.h"

static char *
read_script (const char *name)
{
  g_autofree char *path = g_build_filename (hs_test_source_dir (), "tests", name, NULL);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static void
assert_error_names_file (GError *error, GQuark domain, int code, const char *path)
{
  g_assert_error (error, domain, code);
  g_test_message ("error: %s", error->message);
  g_assert_nonnull (strstr (error->message, path));
}

/* Every PNG colour type × depth (plus Adam7 and tRNS) against the samples the
 * independent python encoder put in. */
static void
test_png_fixtures (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *script = read_script ("image-fixtures.py");
  const char *args[] = { dir, NULL };
  g_autofree char *list = hs_test_python (script, args);
  g_auto(GStrv) lines = NULL;
  guint n_checked = 0;

  if (list == NULL)
    return;
  lines = g_strsplit (list, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char name[64];
      guint channels, depth, width, height, probe_w = 0, probe_h = 0;
      g_autofree char *png = NULL, *txt = NULL, *expected_text = NULL;
      g_auto(GStrv) expected = NULL;
      g_autoptr(HsImage) image = NULL;
      g_autoptr(GError) error = NULL;
      const guint16 *data;
      gsize n;

      if (sscanf (lines[i], "%63s %u %u %u %u", name, &channels, &depth, &width, &height) != 5)
        continue;
      png = g_strdup_printf ("%s/%s.png", dir, name);
      txt = g_strdup_printf ("%s/%s.txt", dir, name);
      g_file_get_contents (txt, &expected_text, NULL, &error);
      g_assert_no_error (error);
      expected = g_strsplit (expected_text, " ", -1);

      image = hs_image_load (png, &error);
      g_assert_no_error (error);
      g_test_message ("%s: %u ch, %u bit", name, channels, depth);
      g_assert_cmpuint (hs_image_get_width (image), ==, width);
      g_assert_cmpuint (hs_image_get_height (image), ==, height);
      g_assert_cmpuint (hs_image_get_channels (image), ==, channels);
      g_assert_cmpuint (hs_image_get_bit_depth (image), ==, depth);
      g_assert_cmpuint (hs_image_get_max_value (image), ==, (1u << depth) - 1);
      n = (gsize) width * height * channels;
      g_assert_cmpuint (g_strv_length (expected), ==, n);
      data = hs_image_peek_data (image);
      for (gsize k = 0; k < n; k++)
        if (data[k] != g_ascii_strtoull (expected[k], NULL, 10))
          g_error ("%s: sample %" G_GSIZE_FORMAT " is %u, expected %s", name, k, data[k], expected[k]);

      g_assert_true (hs_image_probe (png, &probe_w, &probe_h, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (probe_w, ==, width);
      g_assert_cmpuint (probe_h, ==, height);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, >=, 40);
}

/* 8/16-bit grey, RGB and RGBA written by OpenCV, compared sample by sample
 * with what OpenCV reads back (BGR order swapped). */
static const char cv2_script[] =
  "import sys, cv2, numpy as np\n"
  "d = sys.argv[1]\n"
  "rng = np.random.default_rng(7)\n"
  "for dt, tag in ((np.uint8, '8'), (np.uint16, '16')):\n"
  "    mx = np.iinfo(dt).max\n"
  "    for ch in (1, 3, 4):\n"
  "        shape = (37, 53) if ch == 1 else (37, 53, ch)\n"
  "        a = rng.integers(0, mx, size=shape, endpoint=True).astype(dt)\n"
  "        name = f'{d}/cv{tag}-{ch}.png'\n"
  "        cv2.imwrite(name, a)\n"
  "        b = cv2.imread(name, cv2.IMREAD_UNCHANGED)\n"
  "        if ch >= 3: b = b[..., [2, 1, 0] + ([3] if ch == 4 else [])]\n"
  "        np.savetxt(name + '.txt', b.reshape(1, -1), fmt='%d')\n"
  "        print(name, ch, tag)\n"
  "for ch in (1, 3):\n"
  "    y, x = np.mgrid[0:61, 0:83]\n"
  "    a = ((x * 3 + y * 2) % 256).astype(np.uint8)\n"
  "    if ch == 3: a = np.dstack([a, 255 - a, (x * 5) % 256]).astype(np.uint8)\n"
  "    name = f'{d}/cv-{ch}.jpg'\n"
  "    cv2.imwrite(name, a, [cv2.IMWRITE_JPEG_QUALITY, 90])\n"
  "    b = cv2.imread(name, cv2.IMREAD_UNCHANGED)\n"
  "    if ch == 3: b = b[..., ::-1]\n"
  "    np.savetxt(name + '.txt', b.reshape(1, -1), fmt='%d')\n"
  "    print(name, ch, 8)\n";

static void
test_cv2_files (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  const char *args[] = { dir, NULL };
  g_autofree char *list = hs_test_python (cv2_script, args);
  g_auto(GStrv) lines = NULL;
  guint n_checked = 0;

  if (list == NULL)
    return;
  lines = g_strsplit (list, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char path[4096];
      guint channels, depth;
      g_autofree char *txt = NULL, *text = NULL;
      g_auto(GStrv) expected = NULL;
      g_autoptr(HsImage) image = NULL;
      g_autoptr(GError) error = NULL;
      const guint16 *data;
      gboolean is_jpeg;
      int max_diff = 0;
      gsize n;

      if (sscanf (lines[i], "%4095s %u %u", path, &channels, &depth) != 3)
        continue;
      is_jpeg = g_str_has_suffix (path, ".jpg");
      txt = g_strconcat (path, ".txt", NULL);
      g_file_get_contents (txt, &text, NULL, &error);
      g_assert_no_error (error);
      g_strstrip (text);
      expected = g_strsplit (text, " ", -1);
      image = hs_image_load (path, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (hs_image_get_channels (image), ==, channels);
      g_assert_cmpuint (hs_image_get_bit_depth (image), ==, depth);
      n = (gsize) hs_image_get_width (image) * hs_image_get_height (image) * channels;
      g_assert_cmpuint (g_strv_length (expected), ==, n);
      data = hs_image_peek_data (image);
      for (gsize k = 0; k < n; k++)
        max_diff = MAX (max_diff, abs ((int) data[k] - (int) g_ascii_strtoll (expected[k], NULL, 10)));
      g_test_message ("%s: max difference %d", path, max_diff);
      /* Same libjpeg-turbo underneath; allow one level for IDCT choice. */
      g_assert_cmpint (max_diff, <=, is_jpeg ? 1 : 0);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, ==, 8);
}

/* A CMYK JPEG written by ImageMagick (Adobe inverted CMYK) → RGB. */
static void
test_jpeg_cmyk (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *src = g_build_filename (dir, "blocks.png", NULL);
  g_autofree char *cmyk = g_build_filename (dir, "cmyk.jpg", NULL);
  g_autofree char *back = g_build_filename (dir, "back.png", NULL);
  const char *make[] = { src, NULL };
  g_autofree char *made = NULL;
  const char *convert1[] = { "/usr/bin/convert", src, "-colorspace", "CMYK", "-quality", "100", cmyk, NULL };
  const char *convert2[] = { "/usr/bin/convert", cmyk, "-colorspace", "sRGB", "-depth", "8", back, NULL };
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImage) reference = NULL;
  g_autoptr(GError) error = NULL;
  /* block colours, left to right: red, green, blue, grey 128, white, black */
  static const guint8 colours[6][3] = { { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 },
                                        { 128, 128, 128 }, { 255, 255, 255 }, { 0, 0, 0 } };
  int status = 0;
  int max_diff = 0;

  if (!g_file_test ("/usr/bin/convert", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("ImageMagick /usr/bin/convert is absent");
      return;
    }
  made = hs_test_python ("import sys, cv2, numpy as np\n"
                         "c = [(255,0,0),(0,255,0),(0,0,255),(128,128,128),(255,255,255),(0,0,0)]\n"
                         "a = np.zeros((32, 32 * 6, 3), np.uint8)\n"
                         "for i, rgb in enumerate(c): a[:, 32*i:32*i+32] = rgb[::-1]\n"
                         "cv2.imwrite(sys.argv[1], a)\n", make);
  if (made == NULL)
    return;
  hs_test_run (convert1, NULL, NULL, &status);
  g_assert_cmpint (status, ==, 0);
  hs_test_run (convert2, NULL, NULL, &status);
  g_assert_cmpint (status, ==, 0);

  image = hs_image_load (cmyk, &error);
  g_assert_no_error (error);
  reference = hs_image_load (back, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_image_get_channels (image), ==, 3);
  g_assert_cmpuint (hs_image_get_width (image), ==, 192);
  g_assert_cmpuint (hs_image_get_channels (reference), ==, 3);
  for (gsize k = 0; k < 192 * 32 * 3; k++)
    max_diff = MAX (max_diff, abs ((int) hs_image_peek_data (image)[k] -
                                   (int) hs_image_peek_data (reference)[k]));
  g_test_message ("CMYK: max difference from ImageMagick %d", max_diff);
  g_assert_cmpint (max_diff, <=, 2);
  /* and the block centres are the colours we drew */
  for (guint b = 0; b < 6; b++)
    for (guint c = 0; c < 3; c++)
      {
        const guint16 *p = hs_image_peek_data (image) + (16 * 192 + 32 * b + 16) * 3;
        g_assert_cmpint (abs ((int) p[c] - colours[b][c]), <=, 3);
      }
}

/* Every real radiograph and MRI slice loads at the size OpenCV reports, and
 * its sample sum matches OpenCV's decode. */
static const char real_script[] =
  "import sys, os, cv2\n"
  "for d in sys.argv[1:]:\n"
  "    for root, dirs, files in sorted(os.walk(d)):\n"
  "        for f in sorted(files):\n"
  "            if not f.lower().endswith(('.png', '.jpg', '.jpeg')): continue\n"
  "            p = os.path.join(root, f)\n"
  "            a = cv2.imread(p, cv2.IMREAD_UNCHANGED)\n"
  "            ch = 1 if a.ndim == 2 else a.shape[2]\n"
  "            print(p + '\\t%d\\t%d\\t%d\\t%d' % (a.shape[1], a.shape[0], ch, int(a.astype('int64').sum())))\n";

static void
test_real_files (void)
{
  g_autofree char *covid = hs_test_shared_path ("cxr-covid-seg/images");
  g_autofree char *mri = NULL;
  g_autofree char *list = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_files = 0;

  if (covid == NULL)
    return;
  mri = hs_test_shared_path ("mri-brain-tumor");
  {
    const char *args[] = { covid, mri, NULL };
    list = hs_test_python (real_script, args);
  }
  if (list == NULL)
    return;
  lines = g_strsplit (list, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      g_autoptr(HsImage) image = NULL;
      g_autoptr(GError) error = NULL;
      guint width, height, channels, pw = 0, ph = 0;
      guint64 sum = 0, cv_sum;
      gsize n;

      if (g_strv_length (f) != 5)
        continue;
      width = atoi (f[1]);
      height = atoi (f[2]);
      channels = atoi (f[3]);
      cv_sum = g_ascii_strtoull (f[4], NULL, 10);
      image = hs_image_load (f[0], &error);
      g_assert_no_error (error);
      g_assert_cmpuint (hs_image_get_width (image), ==, width);
      g_assert_cmpuint (hs_image_get_height (image), ==, height);
      g_assert_true (hs_image_probe (f[0], &pw, &ph, &error));
      g_assert_cmpuint (pw, ==, width);
      g_assert_cmpuint (ph, ==, height);
      /* OpenCV drops nothing for PNG; for JPEG both give 1 or 3 channels */
      if (channels != 2)
        {
          g_assert_cmpuint (hs_image_get_channels (image), ==, channels);
          n = (gsize) width * height * channels;
          for (gsize k = 0; k < n; k++)
            sum += hs_image_peek_data (image)[k];
          /* identical decoders: the sums agree to within 0.1 % */
          g_assert_cmpfloat (fabs ((double) sum - (double) cv_sum), <=, 0.001 * (double) cv_sum + 1);
        }
      n_files++;
    }
  g_test_message ("%u real files checked", n_files);
  g_assert_cmpuint (n_files, >=, 50);
}

static gboolean
write_truncated (const char *src, const char *dst, double fraction)
{
  g_autofree char *data = NULL;
  gsize len;

  if (!g_file_get_contents (src, &data, &len, NULL))
    return FALSE;
  return g_file_set_contents (dst, data, (gssize) (len * fraction), NULL);
}

static void
test_bad_inputs (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *script = read_script ("image-fixtures.py");
  const char *args[] = { dir, NULL };
  g_autofree char *list = hs_test_python (script, args);
  g_autofree char *huge = g_build_filename (dir, "huge.png", NULL);
  g_autofree char *rgb = g_build_filename (dir, "rgb16.png", NULL);
  g_autofree char *cut_png = g_build_filename (dir, "cut.png", NULL);
  g_autofree char *cut_jpg = g_build_filename (dir, "cut.jpg", NULL);
  g_autofree char *text = g_build_filename (dir, "notes.png", NULL);
  g_autofree char *empty = g_build_filename (dir, "empty.jpg", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.png", NULL);
  g_autofree char *jpg = g_build_filename (dir, "photo.jpg", NULL);
  const char *jargs[] = { jpg, NULL };
  g_autofree char *made = NULL;
  g_autoptr(GError) error = NULL;
  HsImage *image;
  guint w = 0, h = 0;
  HsLimits limits;

  if (list == NULL)
    return;

  /* absurd dimensions: refused from the header, before any allocation */
  image = hs_image_load (huge, &error);
  g_assert_null (image);
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE, huge);
  g_assert_nonnull (strstr (error->message, "100000 × 100000"));
  g_assert_nonnull (strstr (error->message, "too large"));
  g_clear_error (&error);
  g_assert_true (hs_image_probe (huge, &w, &h, &error));
  g_assert_cmpuint (w, ==, 100000);
  g_assert_cmpuint (h, ==, 100000);

  /* a lowered limit applies to ordinary files too */
  limits = *hs_limits_get ();
  limits.max_image_pixels = 50;
  hs_limits_set (&limits);
  image = hs_image_load (rgb, &error);
  g_assert_null (image);
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE, rgb);
  g_clear_error (&error);
  limits.max_image_pixels = 1000;
  limits.max_file_bytes = 100;
  hs_limits_set (&limits);
  image = hs_image_load (rgb, &error);
  g_assert_null (image);
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE, rgb);
  g_clear_error (&error);
  hs_limits_reset ();

  /* truncated PNG at several points */
  for (double f = 0.1; f < 0.99; f += 0.2)
    {
      g_assert_true (write_truncated (rgb, cut_png, f));
      image = hs_image_load (cut_png, &error);
      g_assert_null (image);
      assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, cut_png);
      g_clear_error (&error);
    }

  /* truncated JPEG: an error, not a half-grey picture */
  made = hs_test_python ("import sys, cv2, numpy as np\n"
                         "y, x = np.mgrid[0:200, 0:300]\n"
                         "cv2.imwrite(sys.argv[1], ((x ^ y) % 256).astype(np.uint8))\n", jargs);
  if (made == NULL)
    return;
  image = hs_image_load (jpg, &error);
  g_assert_no_error (error);
  hs_image_unref (image);
  for (double f = 0.3; f < 0.99; f += 0.2)
    {
      g_assert_true (write_truncated (jpg, cut_jpg, f));
      image = hs_image_load (cut_jpg, &error);
      g_assert_null (image);
      assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, cut_jpg);
      g_clear_error (&error);
    }
  g_assert_true (write_truncated (jpg, cut_jpg, 0.01));
  image = hs_image_load (cut_jpg, &error);
  g_assert_null (image);
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, cut_jpg);
  g_clear_error (&error);
  g_assert_false (hs_image_probe (cut_jpg, &w, &h, &error));
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, cut_jpg);
  g_clear_error (&error);

  /* wrong magic, empty, missing */
  g_assert_true (g_file_set_contents (text, "hello, not an image\n", -1, NULL));
  image = hs_image_load (text, &error);
  g_assert_null (image);
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_FORMAT, text);
  g_clear_error (&error);
  g_assert_false (hs_image_probe (text, &w, &h, &error));
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_FORMAT, text);
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  image = hs_image_load (empty, &error);
  g_assert_null (image);
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_FORMAT, empty);
  g_clear_error (&error);
  image = hs_image_load (missing, &error);
  g_assert_null (image);
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO, missing);
  g_clear_error (&error);
  image = hs_image_load (dir, &error);
  g_assert_null (image);
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO, dir);
  g_clear_error (&error);

  /* memory loader names what it was given */
  image = hs_image_load_from_memory ((const guint8 *) "\x89PNG\r\n\x1a\n", 8, "buffer.png", &error);
  g_assert_null (image);
  assert_error_names_file (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, "buffer.png");
  g_clear_error (&error);

  /* invalid constructor arguments */
  g_assert_null (hs_image_new (0, 5, 1, 8, &error));
  g_assert_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (hs_image_new (5, 5, 5, 8, &error));
  g_assert_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (hs_image_new (5, 5, 1, 12, &error));
  g_assert_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (hs_image_new (100000, 100000, 1, 8, &error));
  g_assert_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE);
}

/* hs_image_save_png → OpenCV reads the same samples; → our loader too. */
static void
test_save_png (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  static const struct { guint channels, depth; } cases[] = {
    { 1, 8 }, { 1, 16 }, { 2, 8 }, { 2, 16 }, { 3, 8 }, { 3, 16 }, { 4, 8 }, { 4, 16 }, { 1, 1 }, { 1, 4 },
  };
  HsImage *images[G_N_ELEMENTS (cases)];
  const char *args[G_N_ELEMENTS (cases) + 1] = { NULL };
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(HsImage) back = NULL;
      g_autoptr(GError) error = NULL;
      char *path = g_strdup_printf ("%s/out-%u-%u.png", dir, cases[c].channels, cases[c].depth);
      guint max_value = (1u << cases[c].depth) - 1;
      gsize n = 11 * 6 * cases[c].channels;
      guint16 *data;

      args[c] = path;
      images[c] = hs_image_new (11, 6, cases[c].channels, cases[c].depth, &error);
      g_assert_no_error (error);
      data = hs_image_get_data (images[c]);
      for (gsize k = 0; k < n; k++)
        data[k] = (guint16) ((k * 7919 + 13) % (max_value + 1));
      g_assert_true (hs_image_save_png (images[c], path, &error));
      g_assert_no_error (error);

      back = hs_image_load (path, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (hs_image_get_bit_depth (back), ==, cases[c].depth);
      g_assert_cmpuint (hs_image_get_channels (back), ==, cases[c].channels);
      g_assert_cmpmem (hs_image_peek_data (back), n * 2, data, n * 2);
    }

  /* OpenCV scales sub-byte grey to 8 bits (v × 255 / max) and expands
   * grey+alpha to BGRA, which is skipped. */
  out = hs_test_python ("import sys, cv2\n"
                        "for p in sys.argv[1:]:\n"
                        "    a = cv2.imread(p, cv2.IMREAD_UNCHANGED)\n"
                        "    if a.ndim == 3 and a.shape[2] >= 3:\n"
                        "        a = a[..., [2, 1, 0] + ([3] if a.shape[2] == 4 else [])]\n"
                        "    print(a.dtype.itemsize * 8, ' '.join(str(v) for v in a.reshape(-1)))\n",
                        args);
  lines = out != NULL ? g_strsplit (out, "\n", -1) : NULL;
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint max_value = (1u << cases[c].depth) - 1;
      gsize n = 11 * 6 * cases[c].channels;
      const guint16 *data = hs_image_peek_data (images[c]);

      if (lines != NULL && cases[c].channels != 2)
        {
          g_auto(GStrv) values = g_strsplit (lines[c], " ", -1);

          g_assert_cmpuint (g_strv_length (values), ==, n + 1);
          g_assert_cmpuint (atoi (values[0]), ==, cases[c].depth == 16 ? 16 : 8);
          for (gsize k = 0; k < n; k++)
            {
              guint expect = cases[c].depth < 8 ? data[k] * 255 / max_value : data[k];
              g_assert_cmpuint (atoi (values[k + 1]), ==, expect);
            }
        }
      hs_image_unref (images[c]);
      g_free ((char *) args[c]);
    }
}

static void
test_grey_and_levels (void)
{
  g_autoptr(HsImage) grey = NULL;
  g_autoptr(HsImage) rgb = NULL;
  g_autoptr(HsImage) to_grey = NULL;
  g_autoptr(GError) error = NULL;
  cairo_surface_t *surface;
  const guint32 *px;
  guint16 *d;

  grey = hs_image_new (4, 1, 1, 16, &error);
  g_assert_no_error (error);
  d = hs_image_get_data (grey);
  d[0] = 0; d[1] = 32768; d[2] = 65535; d[3] = 500;
  g_assert_cmpfloat (hs_image_get_grey (grey, 1, 0), ==, 32768.0);

  /* full range: 32768 × 255 / 65535 = 127.50 → 128 */
  surface = hs_image_levels (grey, 0, 0);
  g_assert_cmpint (cairo_image_surface_get_format (surface), ==, CAIRO_FORMAT_RGB24);
  px = (const guint32 *) cairo_image_surface_get_data (surface);
  g_assert_cmphex (px[0] & 0xffffff, ==, 0x000000);
  g_assert_cmphex (px[1] & 0xffffff, ==, 0x808080);
  g_assert_cmphex (px[2] & 0xffffff, ==, 0xffffff);
  g_assert_cmphex (px[3] & 0xffffff, ==, 0x020202);  /* 500 × 255 / 65535 = 1.95 */
  cairo_surface_destroy (surface);

  /* window [0, 2000]: 500 → 63.75 → 64; above the window saturates */
  surface = hs_image_levels (grey, 1000, 2000);
  px = (const guint32 *) cairo_image_surface_get_data (surface);
  g_assert_cmphex (px[0] & 0xffffff, ==, 0x000000);
  g_assert_cmphex (px[1] & 0xffffff, ==, 0xffffff);
  g_assert_cmphex (px[3] & 0xffffff, ==, 0x404040);
  cairo_surface_destroy (surface);

  rgb = hs_image_new (2, 1, 3, 8, &error);
  g_assert_no_error (error);
  d = hs_image_get_data (rgb);
  d[0] = 255; d[1] = 0; d[2] = 0;      /* red */
  d[3] = 10; d[4] = 200; d[5] = 100;
  /* Rec. 601: 0.299 × 255 = 76.245; 0.299×10 + 0.587×200 + 0.114×100 = 131.79 */
  g_assert_cmpfloat_with_epsilon (hs_image_get_grey (rgb, 0, 0), 76.245, 1e-9);
  g_assert_cmpfloat_with_epsilon (hs_image_get_grey (rgb, 1, 0), 131.79, 1e-9);
  to_grey = hs_image_to_grey (rgb);
  g_assert_cmpuint (hs_image_get_channels (to_grey), ==, 1);
  g_assert_cmpuint (hs_image_get_bit_depth (to_grey), ==, 8);
  g_assert_cmpuint (hs_image_peek_data (to_grey)[0], ==, 76);
  g_assert_cmpuint (hs_image_peek_data (to_grey)[1], ==, 132);
  surface = hs_image_levels (rgb, 0, 0);
  px = (const guint32 *) cairo_image_surface_get_data (surface);
  g_assert_cmphex (px[0], ==, 0xffff0000);
  g_assert_cmphex (px[1], ==, 0xff0ac864);
  cairo_surface_destroy (surface);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/image/png-fixtures", test_png_fixtures);
  g_test_add_func ("/hs/image/opencv-files", test_cv2_files);
  g_test_add_func ("/hs/image/jpeg-cmyk", test_jpeg_cmyk);
  g_test_add_func ("/hs/image/real-files", test_real_files);
  g_test_add_func ("/hs/image/bad-inputs", test_bad_inputs);
  g_test_add_func ("/hs/image/save-png", test_save_png);
  g_test_add_func ("/hs/image/grey-and-levels", test_grey_and_levels);
  return g_test_run ();
}
