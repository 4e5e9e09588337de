/* test-safetensors.c — the .safetensors reader, valid and malformed files */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

/* Builds a file: 8-byte little-endian header length, header, data. */
static GBytes *
make_file (const char *header, const guint8 *data, gsize data_len)
{
  GByteArray *array = g_byte_array_new ();
  guint64 n = strlen (header);
  guint8 len[8];

  for (int i = 0; i < 8; i++)
    len[i] = (guint8) (n >> (8 * i));
  g_byte_array_append (array, len, 8);
  g_byte_array_append (array, (const guint8 *) header, (guint) n);
  if (data_len > 0)
    g_byte_array_append (array, data, (guint) data_len);
  return g_byte_array_free_to_bytes (array);
}

static HsSafetensors *
load_bytes (GBytes *bytes, GError **error)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  return hs_safetensors_load_from_memory (data, len, "weights.safetensors", error);
}

/* 1.5f, -2.0f as little-endian F32; 1.0 and -0.5 as F16; 1.0 and 3.0 as BF16. */
static const guint8 valid_data[] = {
  0x00, 0x00, 0xc0, 0x3f,   0x00, 0x00, 0x00, 0xc0,
  0x00, 0x3c,   0x00, 0xb8,
  0x80, 0x3f,   0x40, 0x40,
};
static const char valid_header[] =
  "{\"__metadata__\":{\"format\":\"pt\",\"config\":\"{\\\"tau\\\": 0.1}\"},"
  "\"w\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[0,8]},"
  "\"h\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[8,12]},"
  "\"b\":{\"dtype\":\"BF16\",\"shape\":[2,1],\"data_offsets\":[12,16]}}";

static void
test_valid (void)
{
  g_autoptr(GBytes) bytes = make_file (valid_header, valid_data, sizeof valid_data);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsSafetensors) st = load_bytes (bytes, &error);
  const HsTensorInfo *info;
  const char * const *names;
  g_autofree const char **keys = NULL;
  g_autofree float *w = NULL, *h = NULL, *b = NULL;
  gsize n = 0;

  g_assert_no_error (error);
  g_assert_nonnull (st);
  names = hs_safetensors_list (st);
  g_assert_cmpuint (g_strv_length ((char **) names), ==, 3);
  info = hs_safetensors_get_info (st, "w");
  g_assert_nonnull (info);
  g_assert_cmpint (info->dtype, ==, HS_SAFETENSORS_F32);
  g_assert_cmpuint (info->ndim, ==, 2);
  g_assert_cmpuint (info->shape[0], ==, 1);
  g_assert_cmpuint (info->shape[1], ==, 2);
  g_assert_cmpuint (info->n_values, ==, 2);
  g_assert_null (hs_safetensors_get_info (st, "missing"));

  g_assert_cmpstr (hs_safetensors_get_metadata (st, "format"), ==, "pt");
  g_assert_cmpstr (hs_safetensors_get_metadata (st, "config"), ==, "{\"tau\": 0.1}");
  keys = hs_safetensors_list_metadata (st);
  g_assert_cmpstr (keys[0], ==, "config");
  g_assert_cmpstr (keys[1], ==, "format");
  g_assert_null (keys[2]);

  w = hs_safetensors_get_float (st, "w", &n, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpfloat (w[0], ==, 1.5f);
  g_assert_cmpfloat (w[1], ==, -2.0f);
  h = hs_safetensors_get_float (st, "h", &n, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (h[0], ==, 1.0f);
  g_assert_cmpfloat (h[1], ==, -0.5f);
  b = hs_safetensors_get_float (st, "b", &n, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (b[0], ==, 1.0f);
  g_assert_cmpfloat (b[1], ==, 3.0f);

  g_assert_null (hs_safetensors_get_float (st, "nope", NULL, &error));
  g_assert_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "weights.safetensors"));
}

/* A file written by an independent writer: NumPy bytes with the header laid
 * out by Python's json module (spaces, padding). */
static void
test_python_written (void)
{
  static const char script[] =
    "import json, struct, sys\n"
    "import numpy as np\n"
    "a = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) / 3\n"
    "c = np.array([0.1, 65504, -1e-5, 2**-24], dtype=np.float16)\n"
    "hdr = {'a': {'dtype': 'F32', 'shape': [3, 4], 'data_offsets': [0, 48]},\n"
    "       'c': {'dtype': 'F16', 'shape': [4], 'data_offsets': [48, 56]},\n"
    "       '__metadata__': {'k': 'v'}}\n"
    "h = json.dumps(hdr).encode()\n"
    "h += b' ' * ((8 - len(h) % 8) % 8)\n"
    "open(sys.argv[1], 'wb').write(struct.pack('<Q', len(h)) + h + a.tobytes() + c.tobytes())\n"
    "print(' '.join(repr(float(x)) for x in np.concatenate([a.ravel(), c.astype(np.float32)])))\n";
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "py.safetensors", NULL);
  const char *args[] = { path, NULL };
  g_autofree char *out = hs_test_python (script, args);
  g_auto(GStrv) expected = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsSafetensors) st = NULL;
  g_autofree float *a = NULL, *c = NULL;
  gsize n;

  if (out == NULL)
    return;
  expected = g_strsplit (g_strstrip (out), " ", -1);
  g_assert_cmpuint (g_strv_length (expected), ==, 16);
  st = hs_safetensors_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (hs_safetensors_get_metadata (st, "k"), ==, "v");
  a = hs_safetensors_get_float (st, "a", &n, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 12);
  for (guint i = 0; i < 12; i++)
    g_assert_cmpfloat (a[i], ==, (float) g_ascii_strtod (expected[i], NULL));
  c = hs_safetensors_get_float (st, "c", &n, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat (c[i], ==, (float) g_ascii_strtod (expected[12 + i], NULL));
}

typedef struct {
  const char *what;
  const char *header;
  gsize       data_len;
  const char *needle;   /* expected in the message */
} BadCase;

static const BadCase bad_cases[] = {
  { "not-json", "{nope", 16, "header JSON" },
  { "not-object", "[1,2]  ", 16, "JSON object" },
  { "unknown-dtype", "{\"w\":{\"dtype\":\"Q7\",\"shape\":[4],\"data_offsets\":[0,16]}}", 16, "unknown dtype" },
  { "no-dtype", "{\"w\":{\"shape\":[4],\"data_offsets\":[0,16]}}", 16, "dtype" },
  { "negative-shape", "{\"w\":{\"dtype\":\"F32\",\"shape\":[-4],\"data_offsets\":[0,16]}}", 16, "shape[0]" },
  { "float-shape", "{\"w\":{\"dtype\":\"F32\",\"shape\":[4.5],\"data_offsets\":[0,16]}}", 16, "shape[0]" },
  { "shape-overflow", "{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4],\"data_offsets\":[0,16]}}", 16, "overflow" },
  { "offsets-outside", "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,160]}}", 16, "outside" },
  { "offsets-reversed", "{\"w\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,0]}}", 16, "outside" },
  { "size-mismatch", "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,16]}}", 16, "needs 12" },
  { "overlap", "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
               "\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}", 16, "overlapping" },
  { "gap", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}", 16, "gap" },
  { "trailing", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 16, "cover 8" },
  { "bad-offsets", "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0]}}", 16, "data_offsets" },
  { "metadata-not-string", "{\"__metadata__\":{\"a\":1}}", 0, "not a string" },
  { "metadata-not-object", "{\"__metadata__\":[]}", 0, "not an object" },
  { "entry-not-object", "{\"w\":3}", 0, "not an object" },
};

static void
test_malformed (void)
{
  static const guint8 zeros[16] = { 0 };

  for (gsize i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autoptr(GBytes) bytes = make_file (bad_cases[i].header, zeros, bad_cases[i].data_len);
      g_autoptr(GError) error = NULL;
      g_autoptr(HsSafetensors) st = load_bytes (bytes, &error);

      g_test_message ("case %s", bad_cases[i].what);
      g_assert_null (st);
      g_assert_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, "weights.safetensors"));
      if (strstr (error->message, bad_cases[i].needle) == NULL)
        g_error ("case %s: message \"%s\" lacks \"%s\"", bad_cases[i].what, error->message,
                 bad_cases[i].needle);
    }
}

static void
test_bad_lengths (void)
{
  static const guint8 short_file[5] = { 1, 2, 3, 4, 5 };
  guint8 huge[24] = { 0 };
  g_autoptr(GError) error = NULL;
  HsSafetensors *st;

  st = hs_safetensors_load_from_memory (short_file, sizeof short_file, "short.safetensors", &error);
  g_assert_null (st);
  g_assert_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "short.safetensors"));
  g_clear_error (&error);

  /* Header length 2^63: must not wrap around or allocate. */
  huge[7] = 0x80;
  st = hs_safetensors_load_from_memory (huge, sizeof huge, "huge.safetensors", &error);
  g_assert_null (st);
  g_assert_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_FORMAT);
  g_clear_error (&error);

  /* Header length 100 bytes in a 24-byte file. */
  memset (huge, 0, sizeof huge);
  huge[0] = 100;
  st = hs_safetensors_load_from_memory (huge, sizeof huge, "long.safetensors", &error);
  g_assert_null (st);
  g_assert_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "exceeds the file"));
  g_clear_error (&error);

  st = hs_safetensors_load ("/nonexistent/x.safetensors", &error);
  g_assert_null (st);
  g_assert_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent/x.safetensors"));
}

static void
test_non_float_dtype (void)
{
  static const guint8 data[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
  g_autoptr(GBytes) bytes = make_file ("{\"i\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[0,8]}}",
                                       data, sizeof data);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsSafetensors) st = load_bytes (bytes, &error);
  const HsTensorInfo *info;

  g_assert_no_error (error);
  info = hs_safetensors_get_info (st, "i");
  g_assert_cmpuint (info->ndim, ==, 0);
  g_assert_cmpuint (info->n_values, ==, 1);
  g_assert_null (hs_safetensors_get_float (st, "i", NULL, &error));
  g_assert_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_UNSUPPORTED);
}

static void
test_size_limit (void)
{
  g_autoptr(GBytes) bytes = make_file (valid_header, valid_data, sizeof valid_data);
  HsLimits limits = *hs_limits_get ();
  g_autoptr(GError) error = NULL;
  HsSafetensors *st;

  limits.max_file_bytes = 32;
  hs_limits_set (&limits);
  st = load_bytes (bytes, &error);
  hs_limits_reset ();
  g_assert_null (st);
  g_assert_error (error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_TOO_LARGE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/safetensors/valid", test_valid);
  g_test_add_func ("/hs/safetensors/python-written", test_python_written);
  g_test_add_func ("/hs/safetensors/malformed", test_malformed);
  g_test_add_func ("/hs/safetensors/bad-lengths", test_bad_lengths);
  g_test_add_func ("/hs/safetensors/non-float-dtype", test_non_float_dtype);
  g_test_add_func ("/hs/safetensors/size-limit", test_size_limit);
  return g_test_run ();
}
