/* test-image-budgets.c — the decoders' work budgets
 *
 * Promise (docs/reliability.md): a small file cannot buy unbounded decoding
 * work.  Each budget (HsLimits: max_inflated_bytes, max_decode_ratio,
 * max_jpeg_scans; HEATSCOPE_MAX_* in the environment) refuses with an error
 * naming the file and the limit. */
#include <heatscope/heatscope.h>
#include "hs-test-util.h"

#include <stdio.h>
#include <jpeglib.h>
#include <string.h>

/* PNGs made with Python's zlib: a 16 × 16 grey image of value 100, then
 * variants.  argv: DIR. */
static const char *png_script =
  "import struct, sys, zlib\n"
  "d = sys.argv[1]\n"
  "def chunk(t, b): return struct.pack('>I', len(b)) + t + b + struct.pack('>I', zlib.crc32(t + b) & 0xffffffff)\n"
  "def png(w, h, depth, colour, idat, extra=b''):\n"
  "    ihdr = struct.pack('>IIBBBBB', w, h, depth, colour, 0, 0, 0)\n"
  "    return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', ihdr) + extra + chunk(b'IDAT', idat) + chunk(b'IEND', b'')\n"
  "need = b''.join(b'\\x00' + bytes([100]) * 16 for _ in range(16))\n"
  "open(d + '/plain.png', 'wb').write(png(16, 16, 8, 0, zlib.compress(need, 9)))\n"
  "# the image, then 16 MiB of zeros in the same stream (16 kB on disk)\n"
  "open(d + '/extra-idat.png', 'wb').write(png(16, 16, 8, 0, zlib.compress(need + bytes(16 << 20), 9)))\n"
  "# 100 zTXt chunks of 4 MiB of zeros each: never inflated\n"
  "z = chunk(b'zTXt', b'k\\x00\\x00' + zlib.compress(bytes(4 << 20), 9))\n"
  "open(d + '/ztxt.png', 'wb').write(png(16, 16, 8, 0, zlib.compress(need, 9), z * 100))\n"
  "# 10000 x 10000 RGBA, 16 bits: 800 MB decoded from under 1 MB\n"
  "co = zlib.compressobj(9); row = bytes(1 + 10000 * 8)\n"
  "body = b''.join(co.compress(row) for _ in range(10000)) + co.flush()\n"
  "open(d + '/bomb.png', 'wb').write(png(10000, 10000, 16, 6, body))\n"
  "print('ok')\n";

static char *
make_pngs (void)
{
  char *dir = hs_test_make_tmpdir ();
  g_autofree char *out = hs_test_python (png_script, (const char *[]) { dir, NULL });

  if (out == NULL)
    {
      g_free (dir);
      return NULL;
    }
  return dir;
}

static void
expect_budget_error (const char *path, const char *limit)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_load (path, &error);

  g_assert_null (image);
  g_assert_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE);
  g_assert_true (g_str_has_prefix (error->message, path));
  if (strstr (error->message, limit) == NULL)
    g_error ("\"%s\" does not name %s", error->message, limit);
}

static void
test_png_budgets (void)
{
  g_autofree char *dir = make_pngs ();
  g_autofree char *plain = NULL, *extra = NULL, *ztxt = NULL, *bomb = NULL;
  g_autoptr(GError) error = NULL;
  HsLimits limits;

  if (dir == NULL)
    return;
  plain = g_build_filename (dir, "plain.png", NULL);
  extra = g_build_filename (dir, "extra-idat.png", NULL);
  ztxt = g_build_filename (dir, "ztxt.png", NULL);
  bomb = g_build_filename (dir, "bomb.png", NULL);

  /* The plain image and the one padded with compressed text load alike. */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(HsImage) image = hs_image_load (i == 0 ? plain : ztxt, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (hs_image_get_width (image), ==, 16);
      g_assert_cmpuint (hs_image_peek_data (image)[16 * 16 - 1], ==, 100);
    }

  /* Compressed data going on after the last row is refused, not inflated. */
  expect_budget_error (extra, "bytes of compressed data after the last row");

  /* 800 MB from under 1 MB: over 256 bytes per input byte. */
  expect_budget_error (bomb, "HEATSCOPE_MAX_DECODE_RATIO");

  /* The inflated-bytes budget, lowered: the 16 × 16 image needs 272 bytes. */
  limits = *hs_limits_get ();
  limits.max_inflated_bytes = 271;
  hs_limits_set (&limits);
  expect_budget_error (plain, "HEATSCOPE_MAX_INFLATED_BYTES");
  limits.max_inflated_bytes = 272;
  hs_limits_set (&limits);
  {
    g_autoptr(HsImage) image = hs_image_load (plain, &error);
    g_assert_no_error (error);
  }
  hs_limits_reset ();
}

/* A progressive grey JPEG made with libjpeg (a DC scan, then one AC scan of
 * all 63 coefficients), its AC scan repeated `extra` more times before EOI:
 * a first scan reads the same whatever came before, and libjpeg only warns
 * about a repeated one. */
static GByteArray *
progressive_jpeg (guint extra, guint *n_scans)
{
  struct jpeg_compress_struct cinfo;
  struct jpeg_error_mgr jerr;
  unsigned char *mem = NULL;
  unsigned long mem_len = 0;
  guint8 row[64];
  GByteArray *out = g_byte_array_new ();
  static const jpeg_scan_info scans_script[] = {
    { 1, { 0 }, 0, 0, 0, 0 },
    { 1, { 0 }, 1, 63, 0, 0 },
  };
  gsize last_sos = 0, previous_sos = 0, start, eoi;
  guint scans = 0;

  cinfo.err = jpeg_std_error (&jerr);
  jpeg_create_compress (&cinfo);
  jpeg_mem_dest (&cinfo, &mem, &mem_len);
  cinfo.image_width = 64;
  cinfo.image_height = 64;
  cinfo.input_components = 1;
  cinfo.in_color_space = JCS_GRAYSCALE;
  jpeg_set_defaults (&cinfo);
  cinfo.scan_info = scans_script;
  cinfo.num_scans = G_N_ELEMENTS (scans_script);
  jpeg_start_compress (&cinfo, TRUE);
  for (guint y = 0; y < 64; y++)
    {
      JSAMPROW rows[1] = { row };
      for (guint x = 0; x < 64; x++)
        row[x] = (guint8) (x * 4);
      jpeg_write_scanlines (&cinfo, rows, 1);
    }
  jpeg_finish_compress (&cinfo);
  jpeg_destroy_compress (&cinfo);

  /* Scans start at FF DA; entropy-coded data never holds FF DA (FF is
   * stuffed as FF 00). */
  for (gsize i = 2; i + 1 < mem_len; i++)
    if (mem[i] == 0xff && mem[i + 1] == 0xda)
      {
        previous_sos = last_sos;
        last_sos = i;
        scans++;
      }
  /* The scan's own Huffman table (progressive JPEGs carry optimised tables)
   * goes with it: the last DHT before it. */
  start = last_sos;
  for (gsize i = previous_sos + 2; i + 1 < last_sos; i++)
    if (mem[i] == 0xff && mem[i + 1] == 0xc4)
      start = i;
  eoi = mem_len - 2;
  g_assert_true (mem[eoi] == 0xff && mem[eoi + 1] == 0xd9);
  g_byte_array_append (out, mem, (guint) eoi);
  for (guint k = 0; k < extra; k++)
    g_byte_array_append (out, mem + start, (guint) (eoi - start));
  g_byte_array_append (out, mem + eoi, 2);
  free (mem);
  *n_scans = scans + extra;
  return out;
}

static void
test_jpeg_scans (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *good = g_build_filename (dir, "progressive.jpg", NULL);
  g_autofree char *many = g_build_filename (dir, "many-scans.jpg", NULL);
  g_autoptr(GByteArray) a = NULL;
  g_autoptr(GByteArray) b = NULL;
  g_autoptr(GError) error = NULL;
  guint n_good = 0, n_many = 0;
  HsLimits limits;

  a = progressive_jpeg (0, &n_good);
  b = progressive_jpeg (3000, &n_many);
  g_assert_cmpuint (n_good, >, 1);
  g_assert_cmpuint (n_many, >, 3000);
  g_assert_true (g_file_set_contents (good, (const char *) a->data, a->len, NULL));
  g_assert_true (g_file_set_contents (many, (const char *) b->data, b->len, NULL));

  {
    g_autoptr(HsImage) image = hs_image_load (good, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (hs_image_get_width (image), ==, 64);
  }
  expect_budget_error (many, "JPEG has more scans than the limit of 64 (HEATSCOPE_MAX_JPEG_SCANS)");

  /* The budget is the limit's: one scan fewer than the good file has. */
  limits = *hs_limits_get ();
  limits.max_jpeg_scans = n_good - 1;
  hs_limits_set (&limits);
  expect_budget_error (good, "HEATSCOPE_MAX_JPEG_SCANS");
  limits.max_jpeg_scans = n_good;
  hs_limits_set (&limits);
  {
    g_autoptr(HsImage) image = hs_image_load (good, &error);
    g_assert_no_error (error);
  }
  hs_limits_reset ();
}

/* The environment sets the budgets, like the other HEATSCOPE_MAX_* limits:
 * `attend` decodes an image with more scans than allowed. */
static void
test_env (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GByteArray) a = NULL;
  g_autofree char *image = g_build_filename (dir, "a.jpg", NULL);
  g_autofree char *map = g_build_filename (dir, "a.npy", NULL);
  g_autofree char *out = NULL, *err = NULL;
  guint n = 0;
  int status;

  a = progressive_jpeg (0, &n);
  g_assert_true (g_file_set_contents (image, (const char *) a->data, a->len, NULL));
  for (guint limit = 1; limit <= 2; limit++)
    {
      g_autofree char *env = g_strdup_printf ("HEATSCOPE_MAX_JPEG_SCANS=%u", limit);
      const char *argv[] = { "/usr/bin/env", env, hs_test_cli (), "attend", "--model", "blind",
                             "--image", image, "--prompt", "left lung", "-o", map, NULL };

      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      hs_test_run (argv, &out, &err, &status);
      g_test_message ("limit %u: status %d, %s", limit, status, err);
      if (limit == 1)
        {
          g_assert_cmpint (status, ==, 1);
          g_assert_nonnull (strstr (err, "a.jpg: JPEG has more scans than the limit of 1 "
                                         "(HEATSCOPE_MAX_JPEG_SCANS)"));
        }
      else
        g_assert_cmpint (status, ==, 0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/image-budgets/png", test_png_budgets);
  g_test_add_func ("/image-budgets/jpeg-scans", test_jpeg_scans);
  g_test_add_func ("/image-budgets/env", test_env);
  return g_test_run ();
}
