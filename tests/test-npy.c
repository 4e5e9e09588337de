/* test-npy.c — .npy reading and writing against NumPy */
#include <heatscope/heatscope.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs-test-util.h"

static const char *dtype_names[] = {
  "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "float32", "float64",
};

static gboolean
same_value (double a, double b)
{
  if (isnan (a) || isnan (b))
    return isnan (a) && isnan (b);
  return a == b && signbit (a) == signbit (b);
}

/* NumPy writes every dtype × byte order × C/F order × 2-D/3-D (and other
 * shapes, versions 1–3); each file must read back value for value. */
static const char numpy_script[] =
  "import sys, numpy as np\n"
  "d = sys.argv[1]\n"
  "rng = np.random.default_rng(11)\n"
  "names = ['bool','int8','int16','int32','int64','uint8','uint16','uint32','uint64',\n"
  "         'float16','float32','float64']\n"
  "def values(dt, shape):\n"
  "    n = int(np.prod(shape))\n"
  "    if dt == np.bool_: return rng.integers(0, 2, n).astype(dt).reshape(shape)\n"
  "    if np.issubdtype(dt, np.integer):\n"
  "        info = np.iinfo(dt)\n"
  "        lo, hi = max(info.min, -2**52), min(info.max, 2**52)\n"
  "        a = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64 if lo < 0 else np.uint64)\n"
  "        a[0] = lo; a[-1] = hi\n"
  "        return a.astype(dt).reshape(shape)\n"
  "    a = (rng.standard_normal(n) * 1000).astype(dt)\n"
  "    a[:5] = [np.nan, np.inf, -np.inf, -0.0, np.finfo(dt).tiny / 4]\n"
  "    return a.reshape(shape)\n"
  "k = 0\n"
  "for name in names:\n"
  "    for order in '<>':\n"
  "        for fortran in (False, True):\n"
  "            for shape in ((5, 7), (3, 4, 6)):\n"
  "                a = values(np.dtype(name), shape).astype(np.dtype(name).newbyteorder(order))\n"
  "                if fortran: a = np.asfortranarray(a)\n"
  "                p = f'{d}/a{k}.npy'; k += 1\n"
  "                np.save(p, a)\n"
  "                print(p, name, len(shape), ' '.join(str(s) for s in shape), ':',\n"
  "                      ' '.join(repr(float(v)) for v in a.ravel(order='C')))\n"
  "extra = [np.float32(3.5).reshape(()), np.arange(9, dtype='<f8'), np.zeros((0, 4), '<f4'),\n"
  "         np.arange(2 * 3 * 1 * 2 * 1 * 2 * 1 * 2, dtype='>i4').reshape(2, 3, 1, 2, 1, 2, 1, 2),\n"
  "         np.asfortranarray(np.arange(24, dtype='<u2').reshape(2, 3, 4))]\n"
  "for i, a in enumerate(extra):\n"
  "    for version in ((1, 0), (2, 0), (3, 0)):\n"
  "        p = f'{d}/x{i}-{version[0]}.npy'\n"
  "        with open(p, 'wb') as f: np.lib.format.write_array(f, a, version=version)\n"
  "        print(p, a.dtype.name, a.ndim, ' '.join(str(s) for s in a.shape), ':',\n"
  "              ' '.join(repr(float(v)) for v in a.ravel(order='C')))\n";

static void
check_listing_line (const char *line)
{
  g_auto(GStrv) halves = g_strsplit (line, " : ", 2);
  g_auto(GStrv) head = NULL;
  g_auto(GStrv) values = NULL;
  g_autoptr(HsNdArray) array = NULL;
  g_autoptr(GError) error = NULL;
  guint ndim;

  g_assert_cmpuint (g_strv_length (halves), >=, 1);
  head = g_strsplit (g_strstrip (halves[0]), " ", -1);
  values = halves[1] != NULL && *g_strstrip (halves[1]) ? g_strsplit (halves[1], " ", -1) : g_new0 (char *, 1);
  array = hs_npy_read (head[0], &error);
  g_assert_no_error (error);
  g_assert_cmpstr (dtype_names[array->dtype], ==, head[1]);
  ndim = atoi (head[2]);
  g_assert_cmpuint (array->ndim, ==, ndim);
  for (guint k = 0; k < ndim; k++)
    g_assert_cmpuint (array->shape[k], ==, g_ascii_strtoull (head[3 + k], NULL, 10));
  g_assert_cmpuint (array->n_values, ==, g_strv_length (values));
  for (gsize i = 0; i < array->n_values; i++)
    {
      double expected = g_ascii_strtod (values[i], NULL);
      if (!same_value (array->values[i], expected))
        g_error ("%s (%s): value %" G_GSIZE_FORMAT " is %.17g, NumPy says %s",
                 head[0], head[1], i, array->values[i], values[i]);
    }
}

static void
test_numpy_files (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  const char *args[] = { dir, NULL };
  g_autofree char *out = hs_test_python (numpy_script, args);
  g_auto(GStrv) lines = NULL;
  guint n = 0;

  if (out == NULL)
    return;
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      {
        check_listing_line (lines[i]);
        n++;
      }
  g_assert_cmpuint (n, ==, 12 * 2 * 2 * 2 + 5 * 3);
}

/* hs_npy_write for every dtype × byte order × C/F order → NumPy reads the
 * values back and reports its view of the header. */
static void
test_write_roundtrip (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  static const gsize shape3[] = { 2, 3, 4 };
  double values[24];
  guint k = 0;

  for (guint i = 0; i < 24; i++)
    values[i] = (i * 37) % 24;  /* 0..23 fits every dtype, bool excepted */

  for (HsDType dt = HS_DTYPE_BOOL; dt <= HS_DTYPE_FLOAT64; dt++)
    for (int big = 0; big <= 1; big++)
      for (int fortran = 0; fortran <= 1; fortran++)
        {
          g_autoptr(GError) error = NULL;
          char *path = g_strdup_printf ("%s/w%u.npy", dir, k++);
          double v[24];
          g_autoptr(HsNdArray) back = NULL;

          for (guint i = 0; i < 24; i++)
            v[i] = dt == HS_DTYPE_BOOL ? (double) (values[i] > 11) :
                   dt >= HS_DTYPE_FLOAT16 ? values[i] / 4 - 2 : values[i];
          g_assert_true (hs_npy_write (path, dt, 3, shape3, v, fortran, big, &error));
          g_assert_no_error (error);
          back = hs_npy_read (path, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (back->dtype, ==, dt);
          for (guint i = 0; i < 24; i++)
            g_assert_cmpfloat (back->values[i], ==, v[i]);
          g_ptr_array_add (args, path);
          {
            GString *line = g_string_new (NULL);
            g_string_append_printf (line, "%s %d %s", hs_dtype_to_descr (dt, big),
                                    fortran ? 1 : 0, dtype_names[dt]);
            for (guint i = 0; i < 24; i++)
              g_string_append_printf (line, " %g", v[i]);
            g_ptr_array_add (expected, g_string_free (line, FALSE));
          }
        }
  g_ptr_array_add (args, NULL);

  out = hs_test_python ("import sys, numpy as np\n"
                        "for p in sys.argv[1:]:\n"
                        "    a = np.load(p)\n"
                        "    assert a.shape == (2, 3, 4), a.shape\n"
                        "    f = int(a.flags.f_contiguous and not a.flags.c_contiguous)\n"
                        "    print(a.dtype.str, f, a.dtype.name, ' '.join('%g' % v for v in a.ravel()))\n",
                        (const char * const *) args->pdata);
  if (out == NULL)
    return;
  lines = g_strsplit (g_strstrip (out), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, expected->len);
  for (guint i = 0; i < expected->len; i++)
    {
      g_autofree char *want = g_strdup (g_ptr_array_index (expected, i));
      /* NumPy spells bool "|b1" and one-byte ints "|i1"/"|u1" the same way. */
      g_assert_cmpstr (lines[i], ==, want);
    }
}

static void
test_float16 (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "h.npy", NULL);
  const char *args[] = { path, NULL };
  /* values exercising rounding to nearest even, subnormals and overflow */
  double v[] = { 0.1, 1.0 / 3, 65504, 65519, 65520, 1e-7, 6e-8, 2.98e-8, -2049, 2050, 1e6, -0.0 };
  gsize shape[] = { G_N_ELEMENTS (v) };
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) numpy_values = NULL;
  g_autoptr(HsNdArray) back = NULL;

  g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT16, 1, shape, v, FALSE, FALSE, &error));
  g_assert_no_error (error);
  back = hs_npy_read (path, &error);
  g_assert_no_error (error);
  /* what NumPy makes of the same doubles cast to float16 */
  out = hs_test_python ("import sys, numpy as np\n"
                        "v = [0.1, 1/3, 65504, 65519, 65520, 1e-7, 6e-8, 2.98e-8, -2049, 2050, 1e6, -0.0]\n"
                        "a = np.load(sys.argv[1])\n"
                        "assert (a.view(np.uint16) == np.array(v, np.float16).view(np.uint16)).all(), a\n"
                        "print(' '.join(repr(float(x)) for x in np.array(v, np.float16)))\n", args);
  if (out == NULL)
    return;
  numpy_values = g_strsplit (g_strstrip (out), " ", -1);
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    g_assert_true (same_value (back->values[i], g_ascii_strtod (numpy_values[i], NULL)));
}

static GBytes *
make_npy (guint major, const char *header, gsize data_len)
{
  GByteArray *b = g_byte_array_new ();
  gsize hl = strlen (header);
  guint8 prefix[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', major, 0 };
  guint8 *zeros = g_malloc0 (data_len + 1);

  if (major == 1)
    {
      prefix[8] = hl & 0xff;
      prefix[9] = (hl >> 8) & 0xff;
      g_byte_array_append (b, prefix, 10);
    }
  else
    {
      for (int i = 0; i < 4; i++)
        prefix[8 + i] = (hl >> (8 * i)) & 0xff;
      g_byte_array_append (b, prefix, 12);
    }
  g_byte_array_append (b, (const guint8 *) header, hl);
  g_byte_array_append (b, zeros, data_len);
  g_free (zeros);
  return g_byte_array_free_to_bytes (b);
}

static void
expect_bad (guint major, const char *header, gsize data_len, int code)
{
  g_autoptr(GBytes) bytes = make_npy (major, header, data_len);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsNdArray) array = NULL;
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  array = hs_npy_read_from_memory (data, len, "crafted.npy", &error);
  if (array != NULL)
    g_error ("accepted bad header: %s", header);
  g_assert_error (error, HS_NPY_ERROR, code);
  g_assert_nonnull (strstr (error->message, "crafted.npy"));
}

static void
test_bad_headers (void)
{
  static const char *format_errors[] = {
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1, }",
    "{'descr': '<f4', 'fortran_order': False, }",
    "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }",
    "{'descr': '<f4' 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } {'junk'",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': 2, }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
    "{'descr: '<f4', 'fortran_order': False, 'shape': (2,), }",
    "{descr: '<f4', fortran_order: False, shape: (2,), }",
    "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }",
    "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,), }",
    "garbage 'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
    "",
  };
  static const char *unsupported[] = {
    "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '<U5', 'fortran_order': False, 'shape': (2,), }",
    "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '<f3', 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }",
  };

  for (guint i = 0; i < G_N_ELEMENTS (format_errors); i++)
    expect_bad (1, format_errors[i], 8, HS_NPY_ERROR_FORMAT);
  for (guint i = 0; i < G_N_ELEMENTS (unsupported); i++)
    expect_bad (1, unsupported[i], 8, HS_NPY_ERROR_UNSUPPORTED);
  /* version 4 does not exist */
  expect_bad (4, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8,
              HS_NPY_ERROR_UNSUPPORTED);
  /* truncated data, extra data */
  expect_bad (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 47,
              HS_NPY_ERROR_TRUNCATED);
  expect_bad (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 49,
              HS_NPY_ERROR_FORMAT);
  /* shape products that overflow 64 bits, or promise more than the file */
  expect_bad (1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
              8, HS_NPY_ERROR_TOO_LARGE);
  expect_bad (1, "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
              8, HS_NPY_ERROR_FORMAT);
  expect_bad (1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }",
              8, HS_NPY_ERROR_TOO_LARGE);
  expect_bad (1, "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }",
              8, HS_NPY_ERROR_TRUNCATED);

  /* the accepted variations: double quotes, no trailing comma, key order,
   * Python 2 longs, version 2 and 3 prefixes */
  {
    static const char *ok[] = {
      "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}",
      "{'descr':'<f4','fortran_order':False,'shape':(2L,)}   \n",
      "{ 'descr' : '<f4' , 'fortran_order' : True , 'shape' : ( 2 , ) , }\n",
    };
    for (guint v = 1; v <= 3; v++)
      for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
        {
          g_autoptr(GBytes) bytes = make_npy (v, ok[i], 8);
          g_autoptr(GError) error = NULL;
          g_autoptr(HsNdArray) array = NULL;
          gsize len;
          const guint8 *data = g_bytes_get_data (bytes, &len);

          array = hs_npy_read_from_memory (data, len, "ok.npy", &error);
          g_assert_no_error (error);
          g_assert_cmpuint (array->n_values, ==, 2);
          g_assert_cmpuint (array->dtype, ==, HS_DTYPE_FLOAT32);
        }
  }
}

static void
test_bad_files (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "m.npy", NULL);
  g_autofree char *cut = g_build_filename (dir, "cut.npy", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.npy", NULL);
  gsize shape[] = { 10, 10 };
  double v[100] = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len;
  HsNdArray *array;
  HsLimits limits;

  g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT32, 2, shape, v, FALSE, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, ==, 128 + 400);  /* header padded to 64 bytes, as NumPy does */

  for (gsize keep = 0; keep < len; keep += 37)
    {
      g_assert_true (g_file_set_contents (cut, data, keep, NULL));
      array = hs_npy_read (cut, &error);
      g_assert_null (array);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, cut));
      g_assert_true (error->code == HS_NPY_ERROR_TRUNCATED || error->code == HS_NPY_ERROR_FORMAT);
      g_clear_error (&error);
    }
  data[1] = 'X';
  g_assert_true (g_file_set_contents (cut, data, len, NULL));
  array = hs_npy_read (cut, &error);
  g_assert_null (array);
  g_assert_error (error, HS_NPY_ERROR, HS_NPY_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "magic"));
  g_clear_error (&error);

  array = hs_npy_read (missing, &error);
  g_assert_null (array);
  g_assert_error (error, HS_NPY_ERROR, HS_NPY_ERROR_IO);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);

  limits = *hs_limits_get ();
  limits.max_file_bytes = 100;
  hs_limits_set (&limits);
  array = hs_npy_read (path, &error);
  hs_limits_reset ();
  g_assert_null (array);
  g_assert_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);

  /* values that do not fit the dtype are refused, not wrapped */
  v[3] = 300;
  g_assert_false (hs_npy_write (path, HS_DTYPE_UINT8, 2, shape, v, FALSE, FALSE, &error));
  g_assert_error (error, HS_NPY_ERROR, HS_NPY_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);
  v[3] = 0.5;
  g_assert_false (hs_npy_write (path, HS_DTYPE_INT32, 2, shape, v, FALSE, FALSE, &error));
  g_assert_error (error, HS_NPY_ERROR, HS_NPY_ERROR_FORMAT);
  g_clear_error (&error);
  v[3] = NAN;
  g_assert_false (hs_npy_write (path, HS_DTYPE_INT64, 2, shape, v, FALSE, FALSE, &error));
  g_assert_error (error, HS_NPY_ERROR, HS_NPY_ERROR_FORMAT);
  g_clear_error (&error);
  /* the failed writes left the earlier file intact (atomic write) */
  array = hs_npy_read (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (array->n_values, ==, 100);
  hs_nd_array_free (array);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/npy/numpy-files", test_numpy_files);
  g_test_add_func ("/hs/npy/write-roundtrip", test_write_roundtrip);
  g_test_add_func ("/hs/npy/float16", test_float16);
  g_test_add_func ("/hs/npy/bad-headers", test_bad_headers);
  g_test_add_func ("/hs/npy/bad-files", test_bad_files);
  return g_test_run ();
}
