/* test-dicom-walk — the structural check before GDCM (hs-dicom-walk.c) on
 * hand-built byte strings: what passes, and each kind of damage it refuses
 * with a one-line problem.  The refused strings include the three inputs
 * fuzz-png and fuzz-jpeg crashed GDCM with. */
#include "hs-dicom-walk-private.h"
#include "hs-test-util.h"

#include <gio/gio.h>
#include <heatscope/heatscope.h>
#include <string.h>

/* Builders for little-endian element headers. */
static void
put16 (GByteArray *b, guint16 v)
{
  guint8 x[2] = { v & 0xff, v >> 8 };
  g_byte_array_append (b, x, 2);
}

static void
put32 (GByteArray *b, guint32 v)
{
  guint8 x[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };
  g_byte_array_append (b, x, 4);
}

/* Explicit VR element: a short VR (16-bit length) or a long one (reserved + 32-bit). */
static void
explicit_el (GByteArray *b, guint16 group, guint16 element, const char *vr, guint32 length,
             const void *value, gsize value_len)
{
  static const char *long_vrs[] = { "OB", "OW", "SQ", "UN", "UT", "UC", "UR", "OF", "OD", "OL" };
  gboolean is_long = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (long_vrs); i++)
    is_long |= strcmp (vr, long_vrs[i]) == 0;
  put16 (b, group);
  put16 (b, element);
  g_byte_array_append (b, (const guint8 *) vr, 2);
  if (is_long)
    {
      put16 (b, 0);
      put32 (b, length);
    }
  else
    put16 (b, (guint16) length);
  if (value != NULL)
    g_byte_array_append (b, value, (guint) value_len);
}

static void
implicit_el (GByteArray *b, guint16 group, guint16 element, guint32 length, const void *value, gsize value_len)
{
  put16 (b, group);
  put16 (b, element);
  put32 (b, length);
  if (value != NULL)
    g_byte_array_append (b, value, (guint) value_len);
}

/* 128-byte preamble, DICM, and a meta group naming the transfer syntax. */
static GByteArray *
part10 (const char *transfer_syntax)
{
  GByteArray *b = g_byte_array_new ();
  guint8 zeros[128] = { 0 };
  gsize n = strlen (transfer_syntax);

  g_byte_array_append (b, zeros, 128);
  g_byte_array_append (b, (const guint8 *) "DICM", 4);
  explicit_el (b, 0x0002, 0x0010, "UI", (guint32) (n + (n & 1)), transfer_syntax, n);
  if (n & 1)
    g_byte_array_append (b, (const guint8 *) "", 1);
  return b;
}

/* The walk's verdict; on refusal the problem must be one line holding `fragment`. */
static gboolean
walk (GByteArray *b, gsize file_len, const char *fragment)
{
  g_autofree char *problem = NULL;
  gboolean ok = hs_dicom_walk (b->data, b->len, file_len ? file_len : b->len, NULL, &problem);

  if (ok)
    {
      g_assert_null (problem);
      return TRUE;
    }
  g_test_message ("%s", problem);
  g_assert_nonnull (problem);
  g_assert_null (strchr (problem, '\n'));
  if (fragment != NULL)
    g_assert_nonnull (strstr (problem, fragment));
  return FALSE;
}

/* A small but complete explicit VR little endian file. */
static GByteArray *
minimal_explicit (void)
{
  GByteArray *b = part10 ("1.2.840.10008.1.2.1");
  guint16 rows = 2;
  guint8 pixels[4] = { 1, 2, 3, 4 };

  explicit_el (b, 0x0008, 0x0060, "CS", 2, "CT", 2);
  explicit_el (b, 0x0028, 0x0010, "US", 2, &rows, 2);
  explicit_el (b, 0x0028, 0x0011, "US", 2, &rows, 2);
  explicit_el (b, 0x7fe0, 0x0010, "OB", 4, pixels, 4);
  return b;
}

static void
test_valid (void)
{
  g_autoptr(GByteArray) b = minimal_explicit ();
  g_autoptr(GByteArray) imp = g_byte_array_new ();
  g_autoptr(GByteArray) big = part10 ("1.2.840.10008.1.2.2");

  g_assert_true (walk (b, 0, NULL));

  /* No preamble, implicit VR (as CR-MONO1-10-chest.dcm). */
  implicit_el (imp, 0x0008, 0x0060, 2, "CR", 2);
  implicit_el (imp, 0x0028, 0x0010, 2, "\x02\x00", 2);
  implicit_el (imp, 0x7fe0, 0x0010, 2, "\x05\x00", 2);
  g_assert_true (walk (imp, 0, NULL));

  /* Explicit VR big endian data set after a little endian meta group. */
  g_byte_array_append (big, (const guint8 *) "\x00\x08\x00\x60" "CS" "\x00\x02" "MR", 10);
  g_assert_true (walk (big, 0, NULL));
  /* …whose lengths read little endian would run past the end. */
  big->data[big->len - 4] = 0x02;
  big->data[big->len - 3] = 0x00;
  g_assert_false (walk (big, 0, "truncated"));
}

/* A sequence of undefined length with one item of undefined length, and
 * encapsulated pixel data (offset table and one fragment). */
static void
test_sequences_and_fragments (void)
{
  g_autoptr(GByteArray) b = part10 ("1.2.840.10008.1.2.4.50");
  g_autoptr(GByteArray) defined = part10 ("1.2.840.10008.1.2.1");

  explicit_el (b, 0x0008, 0x1140, "SQ", 0xffffffff, NULL, 0);
  implicit_el (b, 0xfffe, 0xe000, 0xffffffff, NULL, 0);
  explicit_el (b, 0x0008, 0x1150, "UI", 4, "1.2\0", 4);
  implicit_el (b, 0xfffe, 0xe00d, 0, NULL, 0);
  implicit_el (b, 0xfffe, 0xe0dd, 0, NULL, 0);
  explicit_el (b, 0x7fe0, 0x0010, "OB", 0xffffffff, NULL, 0);
  implicit_el (b, 0xfffe, 0xe000, 0, NULL, 0);
  implicit_el (b, 0xfffe, 0xe000, 4, "\xff\xd8\xff\xd9", 4);
  implicit_el (b, 0xfffe, 0xe0dd, 0, NULL, 0);
  g_assert_true (walk (b, 0, NULL));

  /* A sequence delimiter missing at the end: the fragments run out. */
  g_byte_array_set_size (b, b->len - 8);
  g_assert_false (walk (b, 0, "truncated"));

  /* Defined lengths: a sequence of 32 bytes holding an item of 24. */
  explicit_el (defined, 0x0028, 0x3010, "SQ", 32, NULL, 0);
  implicit_el (defined, 0xfffe, 0xe000, 24, NULL, 0);
  explicit_el (defined, 0x0028, 0x3002, "US", 4, "\x00\x01\x00\x00", 4);
  explicit_el (defined, 0x0028, 0x3006, "OW", 0, NULL, 0);
  g_assert_cmpuint (defined->len, ==, 132 + 28 + 12 + 32);
  g_assert_true (walk (defined, 0, NULL));
  /* The inner element claims more than its item holds (the file has room). */
  defined->data[132 + 28 + 12 + 8 + 6] = 100;
  for (guint i = 0; i < 30; i++)
    g_byte_array_append (defined, (const guint8 *) "\0\0\0\0", 4);
  g_assert_false (walk (defined, 0, "runs past the end of its sequence item"));
}

static void
test_truncated_element (void)
{
  g_autoptr(GByteArray) b = minimal_explicit ();
  g_autoptr(GByteArray) c = minimal_explicit ();

  /* Cut inside the last element's header, then inside its value. */
  g_byte_array_set_size (b, b->len - 4 - 8);
  g_assert_false (walk (b, 0, "truncated: the element header at offset 190 needs 8 bytes, 4 remain"));
  g_byte_array_set_size (c, c->len - 2);
  g_assert_false (walk (c, 0, "(7FE0,0010) at offset 190 needs 16 bytes, 14 remain"));
}

static void
test_length_past_end (void)
{
  g_autoptr(GByteArray) b = part10 ("1.2.840.10008.1.2");

  /* Implicit VR: a 32-bit length far beyond the file (the 4 GiB allocation GDCM makes). */
  implicit_el (b, 0x0008, 0x0060, 0xfffffff0, "CT", 2);
  g_assert_false (walk (b, 0, "needs 4294967288 bytes, 10 remain"));
  /* The same length is accepted in a prefix only when the file is that long. */
  g_assert_false (walk (b, b->len + 100, "truncated"));
}

static void
test_bad_vr (void)
{
  g_autoptr(GByteArray) b = minimal_explicit ();
  g_autoptr(GByteArray) undefined = part10 ("1.2.840.10008.1.2.1");

  /* "US" of (0028,0010) → "U?" (a first element without a VR would be read as implicit VR). */
  g_assert_cmpmem (b->data + 132 + 28 + 10 + 4, 2, "US", 2);
  b->data[132 + 28 + 10 + 5] = '?';
  g_assert_false (walk (b, 0, "(0028,0010) at offset 170 has no valid value representation (bytes 55 3F)"));

  /* An undefined length is for sequences and pixel data only. */
  explicit_el (undefined, 0x0008, 0x0070, "UT", 0xffffffff, NULL, 0);
  implicit_el (undefined, 0xfffe, 0xe0dd, 0, NULL, 0);
  g_assert_false (walk (undefined, 0, "undefined length"));
}

static void
test_tag_order (void)
{
  g_autoptr(GByteArray) b = part10 ("1.2.840.10008.1.2.1");
  g_autoptr(GByteArray) meta_inside = part10 ("1.2.840.10008.1.2.1");

  explicit_el (b, 0x0010, 0x0010, "PN", 2, "A ", 2);
  explicit_el (b, 0x0008, 0x0060, "CS", 2, "CT", 2);
  g_assert_false (walk (b, 0, "(0008,0060) at offset 170 is out of order (after (0010,0010))"));

  explicit_el (meta_inside, 0x0008, 0x0060, "CS", 2, "CT", 2);
  explicit_el (meta_inside, 0x0002, 0x0013, "SH", 2, "x ", 2);
  g_assert_false (walk (meta_inside, 0, "out of order"));
}

/* Sequences nested one in the other, each of undefined length in an item of undefined length. */
static GByteArray *
nested (guint levels)
{
  GByteArray *b = part10 ("1.2.840.10008.1.2.1");

  for (guint i = 0; i < levels; i++)
    {
      explicit_el (b, 0x0040, 0xa730, "SQ", 0xffffffff, NULL, 0);
      implicit_el (b, 0xfffe, 0xe000, 0xffffffff, NULL, 0);
    }
  for (guint i = 0; i < levels; i++)
    {
      implicit_el (b, 0xfffe, 0xe00d, 0, NULL, 0);
      implicit_el (b, 0xfffe, 0xe0dd, 0, NULL, 0);
    }
  return b;
}

static void
test_deep_nesting (void)
{
  g_autoptr(GByteArray) ok = nested (HS_DICOM_MAX_DEPTH);
  g_autoptr(GByteArray) deep = nested (HS_DICOM_MAX_DEPTH + 1);
  g_autoptr(GByteArray) very_deep = nested (100000);

  g_assert_true (walk (ok, 0, NULL));
  g_assert_false (walk (deep, 0, "nested deeper than 16 levels"));
  g_assert_false (walk (very_deep, 0, "nested deeper than 16 levels"));
}

/* The inputs fuzz-png and fuzz-jpeg aborted GDCM with (tests/fuzz/regressions/). */
static void
test_fuzz_findings (void)
{
  static const guint8 huge[] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00 };
  static const guint8 meta_only[] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
  g_autoptr(GByteArray) a = g_byte_array_new ();
  g_autoptr(GByteArray) b = g_byte_array_new ();

  g_byte_array_append (a, huge, sizeof huge);
  g_assert_false (walk (a, 0, "truncated"));
  g_byte_array_append (b, meta_only, sizeof meta_only);
  g_assert_false (walk (b, 0, "no data set"));
}

/* A prefix (the probe reads the first MiB): an element the prefix cuts ends
 * the walk when the file is long enough to hold it. */
static void
test_prefix (void)
{
  g_autoptr(GByteArray) b = minimal_explicit ();
  gsize whole = b->len;

  g_autoptr(GByteArray) deflated = part10 ("1.2.840.10008.1.2.1.99");
  g_autofree char *problem = NULL;
  gsize complete = 1;

  g_byte_array_set_size (b, whole - 2);
  g_assert_true (walk (b, whole, NULL));
  g_assert_false (walk (b, whole - 2, "truncated"));
  /* GDCM gets the whole elements before the cut one (Pixel Data at 190). */
  g_assert_true (hs_dicom_walk (b->data, b->len, whole, &complete, &problem));
  g_assert_cmpuint (complete, ==, 190);
  g_assert_true (hs_dicom_walk (b->data, whole - 2, whole - 2 + 1000, &complete, &problem));
  g_assert_cmpuint (complete, ==, 190);
  /* Nothing cut: all of it. */
  g_byte_array_set_size (b, whole);
  g_assert_true (hs_dicom_walk (b->data, b->len, whole, &complete, &problem));
  g_assert_cmpuint (complete, ==, whole);
  /* A deflated data set cannot be judged from a prefix: nothing is complete. */
  g_byte_array_append (deflated, (const guint8 *) "\x03\x00", 2);
  g_assert_true (hs_dicom_walk (deflated->data, deflated->len, deflated->len + 100, &complete, &problem));
  g_assert_cmpuint (complete, ==, 0);
  g_assert_null (problem);
}

/* What GDCM would read differently from the file's own structure (it
 * guesses, rewrites lengths, or aborts on an assert). */
static void
test_gdcm_divergence (void)
{
  g_autoptr(GByteArray) implicit_in_explicit = part10 ("1.2.840.10008.1.2.4.50");
  g_autoptr(GByteArray) sq_pixels = part10 ("1.2.840.10008.1.2.1");
  g_autoptr(GByteArray) odd_us = part10 ("1.2.840.10008.1.2.1");
  g_autoptr(GByteArray) leonardo = part10 ("1.2.840.10008.1.2.1");
  g_autoptr(GByteArray) ge13 = part10 ("1.2.840.10008.1.2");
  g_autoptr(GByteArray) theralys = part10 ("1.2.840.10008.1.2");
  g_autoptr(GByteArray) digitex = part10 ("1.2.840.10008.1.2.1");
  g_autoptr(GByteArray) undefined_ob = part10 ("1.2.840.10008.1.2.1");

  /* Implicit VR under an explicit syntax (a writer bug GDCM reads by guessing). */
  implicit_el (implicit_in_explicit, 0x0008, 0x0060, 2, "OT", 2);
  g_assert_false (walk (implicit_in_explicit, 0, "no valid value representation (bytes 02 00)"));

  explicit_el (sq_pixels, 0x7fe0, 0x0010, "SQ", 0, NULL, 0);
  g_assert_false (walk (sq_pixels, 0, "Pixel Data at offset 160 has VR SQ"));

  explicit_el (odd_us, 0x0028, 0x0010, "US", 3, "\x01\x00\x00", 3);
  g_assert_false (walk (odd_us, 0, "length of 3 bytes, not a multiple of 2 (VR US)"));

  /* GDCM reads a UL of 6 bytes in group 0009 as 4 (SIEMENS Leonardo). */
  explicit_el (leonardo, 0x0009, 0x1010, "UL", 6, "\x01\x00\x00\x00\x00\x00", 6);
  g_assert_false (walk (leonardo, 0, "not a multiple of 4 (VR UL)"));

  /* …and an implicit VR length of 13 as 10, except for two tags. */
  implicit_el (ge13, 0x0008, 0x0060, 13, "CT           ", 13);
  g_assert_false (walk (ge13, 0, "length of 13 bytes, which GDCM would not read as declared"));
  implicit_el (theralys, 0x0008, 0x0070, 13, "Theralys     ", 13);
  g_assert_true (walk (theralys, 0, NULL));

  /* From (00FF,4AA5) to the end is Pixel Data to GDCM. */
  explicit_el (digitex, 0x00ff, 0x4aa5, "OB", 2, "\0\0", 2);
  g_assert_false (walk (digitex, 0, "GDCM takes it for pixel data"));

  /* An undefined length outside Pixel Data: only SQ and UN (GDCM asserts otherwise). */
  explicit_el (undefined_ob, 0x0009, 0x1010, "OB", 0xffffffff, NULL, 0);
  implicit_el (undefined_ob, 0xfffe, 0xe0dd, 0, NULL, 0);
  g_assert_false (walk (undefined_ob, 0, "which VR OB does not allow"));
}

/* Deflated explicit VR little endian: the inflated data set is walked. */
static void
test_deflate (void)
{
  for (guint damaged = 0; damaged < 2; damaged++)
    {
      g_autoptr(GByteArray) plain = g_byte_array_new ();
      g_autoptr(GByteArray) b = part10 ("1.2.840.10008.1.2.1.99");
      g_autoptr(GZlibCompressor) deflater = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_RAW, 6);
      guint8 out[4096];
      gsize read, written;

      explicit_el (plain, 0x0008, 0x0060, "CS", damaged ? 200 : 2, "CT", 2);
      g_assert_cmpint (g_converter_convert (G_CONVERTER (deflater), plain->data, plain->len, out, sizeof out,
                                            G_CONVERTER_INPUT_AT_END, &read, &written, NULL),
                       ==, G_CONVERTER_FINISHED);
      g_byte_array_append (b, out, (guint) written);
      if (damaged)
        g_assert_false (walk (b, 0, "truncated"));
      else
        g_assert_true (walk (b, 0, NULL));
      /* The stream cut short, and bytes that are no deflate stream: refused
       * with the inflater's words, never walked as far as they go. */
      g_byte_array_set_size (b, b->len - written + written / 2);
      g_assert_false (walk (b, 0, "cannot be inflated: "));
      g_byte_array_set_size (b, b->len - written / 2);
      g_byte_array_append (b, (const guint8 *) "\xff\xff\xff\xff\xff\xff", 6);
      g_assert_false (walk (b, 0, "cannot be inflated: "));
    }
}

/* RLE Lossless: each fragment after the offset table starts with a header of
 * 1–15 ascending segment offsets within the fragment (GDCM's decoder read
 * past its buffer on 262147 segments, a fuzz-png finding). */
static void
test_rle_header (void)
{
  static const struct { guint32 segments; guint32 offsets[3]; const char *fragment; } cases[] = {
    { 2, { 64, 70, 0 }, NULL },
    { 262147, { 64, 70, 0 }, "declares 262147 segments" },
    { 0, { 0, 0, 0 }, "declares 0 segments" },
    { 2, { 64, 64, 0 }, "segment 2 at offset 64" },
    { 2, { 60, 70, 0 }, "segment 1 at offset 60" },
    { 2, { 64, 90, 0 }, "segment 2 at offset 90, outside its 80 bytes" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(GByteArray) b = part10 ("1.2.840.10008.1.2.5");
      guint8 header[80] = { 0 };

      explicit_el (b, 0x7fe0, 0x0010, "OB", 0xffffffff, NULL, 0);
      implicit_el (b, 0xfffe, 0xe000, 0, NULL, 0);
      memcpy (header, &cases[c].segments, 4);
      memcpy (header + 4, cases[c].offsets, sizeof cases[c].offsets);
      implicit_el (b, 0xfffe, 0xe000, sizeof header, header, sizeof header);
      implicit_el (b, 0xfffe, 0xe0dd, 0, NULL, 0);
      g_assert_true (walk (b, 0, cases[c].fragment) == (cases[c].fragment == NULL));
    }
  {
    g_autoptr(GByteArray) b = part10 ("1.2.840.10008.1.2.5");
    explicit_el (b, 0x7fe0, 0x0010, "OB", 0xffffffff, NULL, 0);
    implicit_el (b, 0xfffe, 0xe000, 0, NULL, 0);
    implicit_el (b, 0xfffe, 0xe000, 8, "\x01\0\0\0\x40\0\0\0", 8);
    implicit_el (b, 0xfffe, 0xe0dd, 0, NULL, 0);
    g_assert_false (walk (b, 0, "shorter than its 64-byte header"));
  }
}

/* Through the loader: the refusal names the file, GDCM never sees the bytes. */
static void
test_loader_names_file (void)
{
  static const guint8 huge[] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00 };
  g_autoptr(GError) error = NULL;
  HsImage *image = hs_image_load_from_memory (huge, sizeof huge, "huge.dcm", &error);

  g_assert_null (image);
  g_assert_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT);
  g_assert_true (g_str_has_prefix (error->message, "huge.dcm: DICOM file is truncated"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/dicom-walk/valid", test_valid);
  g_test_add_func ("/hs/dicom-walk/sequences-and-fragments", test_sequences_and_fragments);
  g_test_add_func ("/hs/dicom-walk/truncated-element", test_truncated_element);
  g_test_add_func ("/hs/dicom-walk/length-past-end", test_length_past_end);
  g_test_add_func ("/hs/dicom-walk/bad-vr", test_bad_vr);
  g_test_add_func ("/hs/dicom-walk/tag-order", test_tag_order);
  g_test_add_func ("/hs/dicom-walk/deep-nesting", test_deep_nesting);
  g_test_add_func ("/hs/dicom-walk/fuzz-findings", test_fuzz_findings);
  g_test_add_func ("/hs/dicom-walk/prefix", test_prefix);
  g_test_add_func ("/hs/dicom-walk/gdcm-divergence", test_gdcm_divergence);
  g_test_add_func ("/hs/dicom-walk/deflate", test_deflate);
  g_test_add_func ("/hs/dicom-walk/rle-header", test_rle_header);
  g_test_add_func ("/hs/dicom-walk/loader-names-file", test_loader_names_file);
  return g_test_run ();
}
