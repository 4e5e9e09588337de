/* test-image-dicom.c — DICOM decoding (GDCM) against an independent reading
 *
 * tests/dicom-reference.py reads every case with pydicom; compressed pixel
 * data reaches pydicom through DCMTK's decompressors (dcmdjpeg, dcmdjpls,
 * dcmdrle), or the test decodes a fixture that DCMTK compressed losslessly
 * and compares it with the uncompressed original.  GDCM shares no decoder
 * with either. */
#include <heatscope/hs-image.h>
#include <heatscope/hs-limits.h>

#include "hs-test-util.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

typedef struct {
  const char *name;
  const char *path;      /* shared data relative path, or "pydicom:FILE" */
  const char *via;       /* see dicom-reference.py                       */
  const char *syntax;    /* the transfer syntax the decoded file has     */
  guint       tolerance; /* largest |difference| of a stored value       */
} Case;

static const Case cases[] = {
  { "implicit-le-mono1", "dicom/CR-MONO1-10-chest.dcm", "none", "implicit VR LE, no preamble", 0 },
  { "explicit-le-ct", "dicom/pydicom-CT_small.dcm", "none", "1.2.840.10008.1.2.1", 0 },
  { "explicit-le-mr", "dicom/pydicom-MR_small.dcm", "none", "1.2.840.10008.1.2.1", 0 },
  { "implicit-le-mr", "pydicom:MR_small_implicit.dcm", "none", "1.2.840.10008.1.2", 0 },
  { "big-endian", "pydicom:MR_small_bigendian.dcm", "none", "1.2.840.10008.1.2.2", 0 },
  { "big-endian-rgb", "pydicom:ExplVR_BigEnd.dcm", "none", "1.2.840.10008.1.2.2", 0 },
  { "jpeg-baseline", "dicom/siim-acr-ptx-cxr-1024.dcm", "dcmdjpeg", "1.2.840.10008.1.2.4.50", 0 },
  { "jpeg-extended-12bit", "dicom/pydicom-JPEG-lossy.dcm", "dcmdjpeg", "1.2.840.10008.1.2.4.51", 0 },
  { "jpeg-lossless", "pydicom:MR_small.dcm", "dcmcjpeg-e1", "1.2.840.10008.1.2.4.70", 0 },
  { "jpeg-lossless-mono1", "dicom/CR-MONO1-10-chest.dcm", "dcmcjpeg-e1", "1.2.840.10008.1.2.4.70", 0 },
  { "jpeg-ls", "pydicom:MR_small_jpeg_ls_lossless.dcm", "dcmdjpls", "1.2.840.10008.1.2.4.80", 0 },
  { "jpeg-ls-mono1", "dicom/CR-MONO1-10-chest.dcm", "dcmcjpls", "1.2.840.10008.1.2.4.80", 0 },
  { "rle", "dicom/pydicom-MR_small_RLE.dcm", "dcmdrle", "1.2.840.10008.1.2.5", 0 },
  { "jpeg2000", "dicom/pydicom-JPEG2000.dcm", "none", "1.2.840.10008.1.2.4.91", 0 },
  { "rle-rgb-2-frames", "pydicom:SC_rgb_rle_2frame.dcm", "dcmdrle", "1.2.840.10008.1.2.5", 0 },
  { "ybr-full-422", "pydicom:SC_ybr_full_422_uncompressed.dcm", "none", "1.2.840.10008.1.2.1", 1 },
};

static JsonParser *reference;
static char *tmpdir;
static gboolean reference_missing;

static void
prepare_reference (void)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *script = g_build_filename (hs_test_source_dir (), "tests", "dicom-reference.py", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (reference != NULL || reference_missing)
    return;
  if (hs_test_shared_data () == NULL)
    {
      reference_missing = TRUE;
      return;
    }
  tmpdir = hs_test_make_tmpdir ();
  g_ptr_array_add (argv, g_strdup ("/usr/bin/python3"));
  g_ptr_array_add (argv, g_strdup (script));
  g_ptr_array_add (argv, g_strdup (tmpdir));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *path = cases[i].path;
      g_autofree char *resolved = g_str_has_prefix (path, "pydicom:")
                                  ? g_strdup (path)
                                  : g_build_filename (hs_test_shared_data (), path, NULL);
      g_ptr_array_add (argv, g_strdup_printf ("%s=%s=%s", cases[i].name, resolved, cases[i].via));
    }
  g_ptr_array_add (argv, g_strdup ("mpeg2=pydicom:MR_small.dcm=mpeg2"));
  g_ptr_array_add (argv, NULL);
  hs_test_run ((const char * const *) argv->pdata, &out, &err, &status);
  /* The reference tools are test packages (tools/deps.sh): missing is a failure. */
  if (status != 0)
    g_error ("dicom-reference.py failed (%d): %s", status, err);
  reference = json_parser_new ();
  g_assert_true (json_parser_load_from_data (reference, out, -1, &error));
  g_assert_no_error (error);
}

static JsonObject *
reference_for (const char *name)
{
  return json_object_get_object_member (json_node_get_object (json_parser_get_root (reference)), name);
}

static gboolean
optional_double (JsonObject *o, const char *member, double *out)
{
  JsonNode *node = json_object_get_member (o, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return FALSE;
  *out = json_node_get_double (node);
  return TRUE;
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autofree char *bin_path = NULL, *bin = NULL;
  gsize bin_len = 0;
  const gint32 *stored;
  JsonObject *ref;
  guint width, height, channels, probe_w = 0, probe_h = 0;
  gsize n;
  guint worst = 0;
  double slope, intercept, center, width_value, spacing_row, spacing_column;
  gboolean at_detector;
  const char *photometric;

  prepare_reference ();
  if (reference_missing)
    {
      g_test_skip ("../shared/data is absent");
      return;
    }
  ref = reference_for (c->name);
  g_test_message ("%s: %s (%s)", c->name, json_object_get_string_member (ref, "decode"), c->syntax);

  image = hs_image_load (json_object_get_string_member (ref, "decode"), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (hs_image_get_format (image), ==, "DICOM");
  width = hs_image_get_width (image);
  height = hs_image_get_height (image);
  channels = hs_image_get_channels (image);
  g_assert_cmpuint (width, ==, json_object_get_int_member (ref, "columns"));
  g_assert_cmpuint (height, ==, json_object_get_int_member (ref, "rows"));
  g_assert_cmpuint (channels, ==, json_object_get_int_member (ref, "samples"));
  g_assert_true (hs_image_probe (json_object_get_string_member (ref, "decode"), &probe_w, &probe_h, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (probe_w, ==, width);
  g_assert_cmpuint (probe_h, ==, height);

  /* Every pixel: Heatscope's value equals pydicom's stored value × slope + intercept. */
  bin_path = g_strdup_printf ("%s/%s.bin", tmpdir, c->name);
  g_assert_true (g_file_get_contents (bin_path, &bin, &bin_len, &error));
  n = (gsize) width * height * channels;
  g_assert_cmpuint (bin_len, ==, n * 4);
  stored = (const gint32 *) (gconstpointer) bin;
  hs_image_get_value_mapping (image, &slope, &intercept);
  {
    double ref_slope = json_object_get_double_member (ref, "slope");
    double ref_intercept = json_object_get_double_member (ref, "intercept");
    const guint16 *samples = hs_image_peek_data (image);

    for (gsize i = 0; i < n; i++)
      {
        double expected = stored[i] * ref_slope + ref_intercept;
        double got = hs_image_sample_to_value (image, samples[i]);
        double diff = fabs (got - expected) / fabs (ref_slope);

        if (diff > worst)
          worst = (guint) ceil (diff - 1e-9);
        if (diff > c->tolerance + 1e-9)
          g_error ("%s: pixel %" G_GSIZE_FORMAT " (x %" G_GSIZE_FORMAT ", y %" G_GSIZE_FORMAT
                   "): value %g, pydicom %g", c->name, i, (i / channels) % width,
                   i / channels / width, got, expected);
      }
  }
  g_test_message ("%s: %" G_GSIZE_FORMAT " samples, largest difference %u", c->name, n, worst);

  /* MONOCHROME1 is displayed inverted: low samples are dark, so the sample
   * of the highest stored value is 0. */
  photometric = json_object_get_string_member (ref, "photometric");
  if (g_str_equal (photometric, "MONOCHROME1"))
    {
      g_assert_cmpfloat (slope, <, 0);
      for (gsize i = 0; i < n; i++)
        g_assert_cmpint ((gint64) hs_image_peek_data (image)[i], ==, (gint64) hs_image_get_max_value (image) - stored[i]);
    }

  /* The file's window is the initial one, in the file's values. */
  if (optional_double (ref, "window_center", &center) && optional_double (ref, "window_width", &width_value))
    {
      double c0, w0;
      g_assert_true (hs_image_get_default_window (image, &c0, &w0));
      g_assert_cmpfloat_with_epsilon (c0, center, 1e-9);
      g_assert_cmpfloat_with_epsilon (w0, width_value, 1e-9);
    }
  else
    g_assert_false (hs_image_get_default_window (image, NULL, NULL));

  /* Pixel spacing (mm), or Imager Pixel Spacing flagged as at the detector. */
  {
    JsonNode *sp = json_object_get_member (ref, "spacing");
    JsonNode *isp = json_object_get_member (ref, "imager_spacing");

    if (sp != NULL && !JSON_NODE_HOLDS_NULL (sp))
      {
        JsonArray *a = json_node_get_array (sp);
        g_assert_true (hs_image_get_pixel_spacing (image, &spacing_row, &spacing_column, &at_detector));
        g_assert_false (at_detector);
        g_assert_cmpfloat_with_epsilon (spacing_row, json_array_get_double_element (a, 0), 1e-9);
        g_assert_cmpfloat_with_epsilon (spacing_column, json_array_get_double_element (a, 1), 1e-9);
      }
    else if (isp != NULL && !JSON_NODE_HOLDS_NULL (isp))
      {
        g_assert_true (hs_image_get_pixel_spacing (image, &spacing_row, &spacing_column, &at_detector));
        g_assert_true (at_detector);
      }
    else
      g_assert_false (hs_image_get_pixel_spacing (image, NULL, NULL, NULL));
  }

  /* Frame 1 of a multi-frame file, with a note saying so. */
  if (json_object_get_int_member (ref, "frames") > 1)
    {
      g_autofree char *expected = g_strdup_printf ("frame 1 of %" G_GINT64_FORMAT,
                                                   json_object_get_int_member (ref, "frames"));
      g_assert_nonnull (hs_image_get_note (image));
      g_assert_nonnull (strstr (hs_image_get_note (image), expected));
    }
  else
    g_assert_null (hs_image_get_note (image));
}

/* CT: Hounsfield units through Rescale Slope/Intercept, a hand-checked pixel. */
static void
test_ct_hounsfield (void)
{
  g_autofree char *path = hs_test_shared_path ("dicom/pydicom-CT_small.dcm");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  double lowest, highest;

  if (path == NULL)
    return;
  image = hs_image_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (hs_image_get_value_unit (image), ==, "HU");
  /* CT_small: signed 16-bit, intercept −1024; pydicom: pixel_array[0, 0] = 175 → −849 HU. */
  g_assert_cmpfloat_with_epsilon (hs_image_sample_to_value (image, hs_image_get_grey (image, 0, 0)), -849.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (hs_image_value_to_sample (image, -849.0), hs_image_get_grey (image, 0, 0), 1e-9);
  hs_image_get_value_range (image, &lowest, &highest);
  g_assert_cmpfloat (lowest, ==, -32768.0 - 1024.0);
  g_assert_cmpfloat (highest, ==, 32767.0 - 1024.0);
}

/* The display of a MONOCHROME1 film through its own window: the
 * window-mapped grey is 255 minus the MONOCHROME2 formula. */
static void
test_mono1_display (void)
{
  g_autofree char *path = hs_test_shared_path ("dicom/CR-MONO1-10-chest.dcm");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImage) grey = NULL;
  cairo_surface_t *surface;
  double center, width;
  guint x = 220, y = 220;

  if (path == NULL)
    return;
  image = hs_image_load (path, &error);
  g_assert_no_error (error);
  g_assert_true (hs_image_get_default_window (image, &center, &width));
  g_assert_cmpfloat (center, ==, 550);
  g_assert_cmpfloat (width, ==, 1024);
  surface = hs_image_levels_values (image, center, width);
  {
    double v = hs_image_sample_to_value (image, hs_image_get_grey (image, x, y));
    double mono2 = CLAMP ((v - (center - width / 2)) * 255.0 / width, 0, 255);
    guint32 p = ((const guint32 *) (gconstpointer) (cairo_image_surface_get_data (surface) +
                                                    y * cairo_image_surface_get_stride (surface)))[x];
    g_assert_cmpfloat (fabs ((double) (p & 0xff) - (255.0 - mono2)), <=, 1.0);
  }
  grey = hs_image_render_grey8 (image, center, width);
  g_assert_cmpuint (hs_image_get_bit_depth (grey), ==, 8);
  g_assert_cmpuint (hs_image_get_grey (grey, x, y), ==,
                    ((const guint32 *) (gconstpointer) (cairo_image_surface_get_data (surface) +
                                                        y * cairo_image_surface_get_stride (surface)))[x] & 0xff);
  cairo_surface_destroy (surface);
}

/* Every file of ../shared/data/dicom opens. */
static void
test_shared_files_open (void)
{
  g_autofree char *dir_path = hs_test_shared_path ("dicom");
  g_autoptr(GDir) dir = NULL;
  const char *entry;
  guint count = 0;

  if (dir_path == NULL)
    return;
  dir = g_dir_open (dir_path, 0, NULL);
  g_assert_nonnull (dir);
  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir_path, entry, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(HsImage) image = NULL;

      if (!g_str_has_suffix (entry, ".dcm"))
        continue;
      image = hs_image_load (path, &error);
      g_assert_no_error (error);
      count++;
    }
  g_assert_cmpuint (count, >=, 7);
}

static void
assert_error_line (GError *error, const char *path, GQuark domain, int code, const char *fragment)
{
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_error (error, domain, code);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, fragment));
  g_assert_null (strchr (error->message, '\n'));
}

/* Refusals: one line naming the file and the reason. */
static void
test_refusals (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *ct = hs_test_shared_path ("dicom/pydicom-CT_small.dcm");
  g_autofree char *contents = NULL;
  g_autofree char *cut = NULL;
  gsize len;
  g_autoptr(GError) error = NULL;
  HsImage *image;

  prepare_reference ();
  if (ct == NULL || reference_missing)
    return;

  /* An unsupported transfer syntax, named. */
  {
    const char *mpeg = json_object_get_string_member (reference_for ("mpeg2"), "decode");
    image = hs_image_load (mpeg, &error);
    g_assert_null (image);
    assert_error_line (error, mpeg, HS_IMAGE_ERROR, HS_IMAGE_ERROR_FORMAT,
                       "unsupported DICOM transfer syntax 1.2.840.10008.1.2.4.100");
    g_clear_error (&error);
  }

  /* Pixel data cut short (GDCM alone would pad it with zeros). */
  g_assert_true (g_file_get_contents (ct, &contents, &len, NULL));
  cut = g_build_filename (dir, "cut.dcm", NULL);
  g_assert_true (g_file_set_contents (cut, contents, (gssize) (len - 5000), NULL));
  image = hs_image_load (cut, &error);
  g_assert_null (image);
  assert_error_line (error, cut, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, "truncated");
  g_clear_error (&error);

  /* Only the header. */
  g_assert_true (g_file_set_contents (cut, contents, 400, NULL));
  image = hs_image_load (cut, &error);
  g_assert_null (image);
  g_assert_true (g_str_has_prefix (error->message, cut));
  g_clear_error (&error);

  /* A size beyond the limits is refused before decoding. */
  {
    HsLimits limits = *hs_limits_get ();
    limits.max_image_pixels = 128 * 127;
    hs_limits_set (&limits);
    image = hs_image_load (ct, &error);
    hs_limits_reset ();
    g_assert_null (image);
    assert_error_line (error, ct, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE, "too large");
    g_clear_error (&error);
  }
}

/* pydicom's odd files: 32-bit dose grids, a frame pointer without a frame
 * count (an assertion in GDCM's reader), reports without pixels. */
static void
test_pydicom_oddities (void)
{
  static const struct { const char *file; int code; const char *fragment; } odd[] = {
    { "rtdose.dcm", HS_IMAGE_ERROR_FORMAT, "32 bits allocated" },
    { "rtdose_1frame.dcm", HS_IMAGE_ERROR_CORRUPT, "Frame Increment Pointer without Number of Frames" },
    { "reportsi.dcm", HS_IMAGE_ERROR_FORMAT, "no image" },
    { "MR_truncated.dcm", HS_IMAGE_ERROR_CORRUPT, "truncated" },
  };

  prepare_reference ();
  if (reference_missing)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (odd); i++)
    {
      g_autofree char *dir = g_path_get_dirname (json_object_get_string_member (reference_for ("implicit-le-mr"), "decode"));
      g_autofree char *path = g_build_filename (dir, odd[i].file, NULL);
      g_autoptr(GError) error = NULL;
      HsImage *image = hs_image_load (path, &error);

      g_assert_null (image);
      assert_error_line (error, path, HS_IMAGE_ERROR, odd[i].code, odd[i].fragment);
    }
}

/* GDCM decodes in heatscope-dicom-helper: the 16-byte ACR-NEMA header that
 * trips an assert() in its image reader (fuzz-jpeg) ends the helper, not this
 * process, and comes back as one line naming the file and GDCM's assertion;
 * a helper that cannot be started names the file and the helper.  Then a
 * good file still decodes. */
static void
test_gdcm_abort (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "acr-nema.dcm", NULL);
  g_autofree char *ct = hs_test_shared_path ("dicom/pydicom-CT_small.dcm");
  g_autofree char *regression = g_build_filename (hs_test_source_dir (), "tests", "fuzz", "regressions",
                                                  "jpeg", "gdcm-assert-acr-nema.bin", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;
  guint width, height;
  HsImage *image;

  g_assert_true (g_file_get_contents (regression, &contents, &len, NULL));
  g_assert_cmpuint (len, ==, 16);
  g_assert_true (g_file_set_contents (path, contents, (gssize) len, NULL));
  image = hs_image_load (path, &error);
  g_assert_null (image);
  assert_error_line (error, path, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT,
                     ": damaged or unsupported DICOM file: GDCM stopped its decoder (Aborted) at gdcmPixmapReader.cxx:");
  g_assert_nonnull (strstr (error->message, "ReadACRNEMAImage(): Assertion"));
  g_clear_error (&error);
  /* From memory (the fuzzers' way in), under the name given. */
  image = hs_image_load_from_memory ((const guint8 *) contents, len, "in-memory.dcm", &error);
  g_assert_null (image);
  assert_error_line (error, "in-memory.dcm: ", HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, "GDCM stopped its decoder");
  g_clear_error (&error);
  /* The header probe reads it without the image reader: a size or an error, not an end. */
  if (!hs_image_probe (path, &width, &height, &error))
    assert_error_line (error, path, HS_IMAGE_ERROR, error->code, "DICOM");
  g_clear_error (&error);

  if (ct == NULL)
    return;
  g_setenv ("HEATSCOPE_DICOM_HELPER", "/nonexistent/heatscope-dicom-helper", TRUE);
  image = hs_image_load (ct, &error);
  g_unsetenv ("HEATSCOPE_DICOM_HELPER");
  g_assert_null (image);
  assert_error_line (error, ct, HS_IMAGE_ERROR, HS_IMAGE_ERROR_IO,
                     ": cannot run the DICOM decoder (/nonexistent/heatscope-dicom-helper): ");
  g_clear_error (&error);
  image = hs_image_load (ct, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_image_get_width (image), ==, 128);
  hs_image_unref (image);
}

/* PNG and JPEG carry the neutral mapping: value = sample, full-range window. */
static void
test_png_neutral (void)
{
  g_autoptr(HsImage) image = hs_image_new (4, 4, 1, 16, NULL);
  double slope, intercept, center, width;

  hs_image_get_value_mapping (image, &slope, &intercept);
  g_assert_cmpfloat (slope, ==, 1);
  g_assert_cmpfloat (intercept, ==, 0);
  g_assert_false (hs_image_get_default_window (image, &center, &width));
  g_assert_cmpfloat (center, ==, 65535 / 2.0);
  g_assert_cmpfloat (width, ==, 65535);
  g_assert_null (hs_image_get_note (image));
  g_assert_null (hs_image_get_value_unit (image));
  g_assert_false (hs_image_get_pixel_spacing (image, NULL, NULL, NULL));
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/hs/image-dicom/decode/%s", cases[i].name);
      g_test_add_data_func (name, &cases[i], test_case);
    }
  g_test_add_func ("/hs/image-dicom/ct-hounsfield", test_ct_hounsfield);
  g_test_add_func ("/hs/image-dicom/mono1-display", test_mono1_display);
  g_test_add_func ("/hs/image-dicom/shared-files-open", test_shared_files_open);
  g_test_add_func ("/hs/image-dicom/refusals", test_refusals);
  g_test_add_func ("/hs/image-dicom/pydicom-oddities", test_pydicom_oddities);
  g_test_add_func ("/hs/image-dicom/png-neutral", test_png_neutral);
  g_test_add_func ("/hs/image-dicom/gdcm-abort", test_gdcm_abort);
  status = g_test_run ();
  g_clear_object (&reference);
  g_free (tmpdir);
  return status;
}
