/* hs-npy.c — NumPy .npy files (format versions 1.0, 2.0, 3.0) */
#include "hs-npy.h"

#include "hs-atomic-file.h"
#include "hs-limits.h"
#include "hs-safe-open.h"
#include "hs-i18n-private.h"
#include "hs-big-buffer-private.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-npy-error-quark, hs_npy_error)

static const guint8 npy_magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

static const struct
{
  HsDType dtype;
  char    kind;
  guint   size;
} dtype_table[] = {
  { HS_DTYPE_BOOL, 'b', 1 },
  { HS_DTYPE_INT8, 'i', 1 }, { HS_DTYPE_INT16, 'i', 2 },
  { HS_DTYPE_INT32, 'i', 4 }, { HS_DTYPE_INT64, 'i', 8 },
  { HS_DTYPE_UINT8, 'u', 1 }, { HS_DTYPE_UINT16, 'u', 2 },
  { HS_DTYPE_UINT32, 'u', 4 }, { HS_DTYPE_UINT64, 'u', 8 },
  { HS_DTYPE_FLOAT16, 'f', 2 }, { HS_DTYPE_FLOAT32, 'f', 4 }, { HS_DTYPE_FLOAT64, 'f', 8 },
};

static guint
dtype_size (HsDType dtype)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtype_table); i++)
    if (dtype_table[i].dtype == dtype)
      return dtype_table[i].size;
  return 0;
}

const char *
hs_dtype_to_descr (HsDType dtype, gboolean big_endian)
{
  static const char *names[][2] = {
    [HS_DTYPE_BOOL] = { "|b1", "|b1" },
    [HS_DTYPE_INT8] = { "|i1", "|i1" },
    [HS_DTYPE_INT16] = { "<i2", ">i2" },
    [HS_DTYPE_INT32] = { "<i4", ">i4" },
    [HS_DTYPE_INT64] = { "<i8", ">i8" },
    [HS_DTYPE_UINT8] = { "|u1", "|u1" },
    [HS_DTYPE_UINT16] = { "<u2", ">u2" },
    [HS_DTYPE_UINT32] = { "<u4", ">u4" },
    [HS_DTYPE_UINT64] = { "<u8", ">u8" },
    [HS_DTYPE_FLOAT16] = { "<f2", ">f2" },
    [HS_DTYPE_FLOAT32] = { "<f4", ">f4" },
    [HS_DTYPE_FLOAT64] = { "<f8", ">f8" },
  };

  g_return_val_if_fail ((guint) dtype < G_N_ELEMENTS (names), NULL);
  return names[dtype][big_endian ? 1 : 0];
}

void
hs_nd_array_free (HsNdArray *array)
{
  if (array == NULL)
    return;
  g_free (array->values);
  g_free (array);
}

/* ---- header: a Python dict literal ------------------------------------ */

typedef struct
{
  const char *start;
  const char *p;
  const char *end;
  const char *name;
  GError    **error;
} Parser;

#define HEADER_KEYS 3

typedef struct
{
  char     descr[16];
  gboolean fortran_order;
  guint    ndim;
  gsize    shape[HS_NPY_MAX_DIMS];
  gboolean seen[HEADER_KEYS];
} Header;

static gboolean G_GNUC_PRINTF (2, 3)
parse_fail (Parser *ps, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (ps->error != NULL && *ps->error == NULL)
    g_set_error (ps->error, HS_NPY_ERROR, HS_NPY_ERROR_FORMAT, _("%s: bad .npy header: %s"),
                 ps->name, message);
  return FALSE;
}

static void
skip_ws (Parser *ps)
{
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static gboolean
expect (Parser *ps, char c)
{
  skip_ws (ps);
  if (ps->p >= ps->end || *ps->p != c)
    return parse_fail (ps, _("expected '%c' at offset %d"), c, (int) (ps->p - ps->start));
  ps->p++;
  return TRUE;
}

static gboolean
peek_is (Parser *ps, char c)
{
  skip_ws (ps);
  return ps->p < ps->end && *ps->p == c;
}

/* A quoted string without escapes: the only strings NumPy writes. */
static gboolean
parse_string (Parser *ps, char *out, gsize out_size)
{
  char quote;
  const char *start;

  skip_ws (ps);
  if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"'))
    return parse_fail (ps, _("expected a quoted string"));
  quote = *ps->p++;
  start = ps->p;
  while (ps->p < ps->end && *ps->p != quote)
    {
      if (*ps->p == '\\' || *ps->p == '\n')
        return parse_fail (ps, _("unsupported character in a string"));
      ps->p++;
    }
  if (ps->p >= ps->end)
    return parse_fail (ps, _("unterminated string"));
  if ((gsize) (ps->p - start) >= out_size)
    return parse_fail (ps, _("string too long"));
  memcpy (out, start, ps->p - start);
  out[ps->p - start] = '\0';
  ps->p++;
  return TRUE;
}

static gboolean
parse_word (Parser *ps, const char *word)
{
  gsize n = strlen (word);

  skip_ws (ps);
  if ((gsize) (ps->end - ps->p) < n || memcmp (ps->p, word, n) != 0)
    return FALSE;
  if ((gsize) (ps->end - ps->p) > n && (g_ascii_isalnum (ps->p[n]) || ps->p[n] == '_'))
    return FALSE;
  ps->p += n;
  return TRUE;
}

static gboolean
parse_dim (Parser *ps, gsize *out)
{
  guint64 value = 0;
  const char *start;

  skip_ws (ps);
  start = ps->p;
  while (ps->p < ps->end && g_ascii_isdigit (*ps->p))
    {
      guint digit = *ps->p - '0';
      if (value > (G_MAXSIZE - digit) / 10)
        return parse_fail (ps, _("shape dimension overflows"));
      value = value * 10 + digit;
      ps->p++;
    }
  if (ps->p == start)
    return parse_fail (ps, _("shape must be a tuple of non-negative integers"));
  if (ps->p < ps->end && *ps->p == 'L')  /* Python 2 long */
    ps->p++;
  *out = (gsize) value;
  return TRUE;
}

static gboolean
parse_shape (Parser *ps, Header *h)
{
  guint n = 0;
  gboolean trailing_comma = FALSE;

  if (!expect (ps, '('))
    return FALSE;
  while (!peek_is (ps, ')'))
    {
      if (n == HS_NPY_MAX_DIMS)
        {
          if (ps->error != NULL && *ps->error == NULL)
            g_set_error (ps->error, HS_NPY_ERROR, HS_NPY_ERROR_UNSUPPORTED,
                         _("%s: arrays of more than %d dimensions are not supported"),
                         ps->name, HS_NPY_MAX_DIMS);
          return FALSE;
        }
      if (!parse_dim (ps, &h->shape[n++]))
        return FALSE;
      trailing_comma = FALSE;
      if (peek_is (ps, ','))
        {
          ps->p++;
          trailing_comma = TRUE;
        }
      else if (!peek_is (ps, ')'))
        return parse_fail (ps, _("expected ',' or ')' in the shape"));
    }
  ps->p++;
  /* "(3)" is the integer 3 in Python, not a tuple. */
  if (n == 1 && !trailing_comma)
    return parse_fail (ps, _("shape is not a tuple"));
  h->ndim = n;
  return TRUE;
}

static gboolean
parse_header_dict (Parser *ps, Header *h)
{
  static const char *keys[HEADER_KEYS] = { "descr", "fortran_order", "shape" };

  if (!expect (ps, '{'))
    return FALSE;
  while (!peek_is (ps, '}'))
    {
      char key[32];
      int k = -1;

      if (!parse_string (ps, key, sizeof key))
        return FALSE;
      for (int i = 0; i < HEADER_KEYS; i++)
        if (strcmp (key, keys[i]) == 0)
          k = i;
      if (k < 0)
        return parse_fail (ps, _("unexpected key '%s'"), key);
      if (h->seen[k])
        return parse_fail (ps, _("duplicate key '%s'"), key);
      h->seen[k] = TRUE;
      if (!expect (ps, ':'))
        return FALSE;
      switch (k)
        {
        case 0:
          skip_ws (ps);
          if (ps->p < ps->end && *ps->p == '[')
            {
              if (ps->error != NULL && *ps->error == NULL)
                g_set_error (ps->error, HS_NPY_ERROR, HS_NPY_ERROR_UNSUPPORTED,
                             _("%s: structured arrays are not supported"), ps->name);
              return FALSE;
            }
          if (!parse_string (ps, h->descr, sizeof h->descr))
            return FALSE;
          break;
        case 1:
          if (parse_word (ps, "True"))
            h->fortran_order = TRUE;
          else if (parse_word (ps, "False"))
            h->fortran_order = FALSE;
          else
            return parse_fail (ps, _("fortran_order must be True or False"));
          break;
        default:
          if (!parse_shape (ps, h))
            return FALSE;
          break;
        }
      if (peek_is (ps, ','))
        ps->p++;
      else if (!peek_is (ps, '}'))
        return parse_fail (ps, _("expected ',' or '}' after key '%s'"), key);
    }
  ps->p++;
  skip_ws (ps);
  if (ps->p != ps->end)
    return parse_fail (ps, _("unexpected text after the dictionary"));
  for (int i = 0; i < HEADER_KEYS; i++)
    if (!h->seen[i])
      return parse_fail (ps, _("missing key '%s'"), keys[i]);
  return TRUE;
}

static gboolean
parse_descr (const char *name, const char *descr, HsDType *dtype, gboolean *big_endian,
             GError **error)
{
  char order = descr[0];
  const char *type = descr + 1;
  guint size = 0;
  char kind;

  if (order != '<' && order != '>' && order != '|' && order != '=')
    {
      order = '|';
      type = descr;
    }
  kind = type[0];
  if (kind == '?' && type[1] == '\0')
    {
      kind = 'b';
      size = 1;
    }
  else if (kind != '\0' && g_ascii_isdigit (type[1]) && type[2] == '\0')
    size = type[1] - '0';

  if (size != 0)
    for (guint i = 0; i < G_N_ELEMENTS (dtype_table); i++)
      if (dtype_table[i].kind == kind && dtype_table[i].size == size)
        {
          if (size > 1 && order == '|')
            break;
          *dtype = dtype_table[i].dtype;
          *big_endian = order == '>' || (order == '=' && G_BYTE_ORDER == G_BIG_ENDIAN);
          return TRUE;
        }
  g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_UNSUPPORTED,
               _("%s: unsupported dtype '%s' (expected bool, int8..64, uint8..64 or float16/32/64 "
               "with a byte order)"), name, descr);
  return FALSE;
}

static double
half_to_double (guint16 h)
{
  guint sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double value;

  if (exponent == 0)
    value = ldexp ((double) mantissa, -24);
  else if (exponent == 31)
    value = mantissa == 0 ? INFINITY : NAN;
  else
    value = ldexp ((double) (mantissa | 0x400), (int) exponent - 25);
  return sign ? -value : value;
}

static guint16
double_to_half (double value)
{
  guint16 sign = signbit (value) ? 0x8000 : 0;
  double a = fabs (value);
  int exponent;
  double scaled;
  guint64 bits;

  if (isnan (value))
    return 0x7e00;
  if (a >= 65520.0)  /* rounds to infinity, as NumPy does */
    return sign | 0x7c00;
  if (a < ldexp (1.0, -14))
    {
      /* subnormal: units of 2^-24, rounded to nearest even */
      scaled = nearbyint (a * ldexp (1.0, 24));
      return sign | (guint16) scaled;
    }
  frexp (a, &exponent);           /* a = f × 2^exponent, f in [0.5, 1) */
  scaled = nearbyint (ldexp (a, 11 - exponent));  /* 11 significant bits */
  if (scaled >= 2048.0)
    {
      scaled /= 2.0;
      exponent++;
    }
  bits = (guint64) (exponent - 1 + 15);
  if (bits >= 31)
    return sign | 0x7c00;
  return sign | (guint16) (bits << 10) | ((guint16) scaled & 0x3ff);
}

static double
read_value (const guint8 *p, HsDType dtype, gboolean swap)
{
  guint8 b[8];
  guint size = dtype_size (dtype);

  if (swap)
    for (guint i = 0; i < size; i++)
      b[i] = p[size - 1 - i];
  else
    memcpy (b, p, size);

  switch (dtype)
    {
    case HS_DTYPE_BOOL: return b[0] != 0 ? 1.0 : 0.0;
    case HS_DTYPE_INT8: return (gint8) b[0];
    case HS_DTYPE_UINT8: return b[0];
    case HS_DTYPE_INT16: { gint16 v; memcpy (&v, b, 2); return v; }
    case HS_DTYPE_UINT16: { guint16 v; memcpy (&v, b, 2); return v; }
    case HS_DTYPE_INT32: { gint32 v; memcpy (&v, b, 4); return v; }
    case HS_DTYPE_UINT32: { guint32 v; memcpy (&v, b, 4); return v; }
    case HS_DTYPE_INT64: { gint64 v; memcpy (&v, b, 8); return (double) v; }
    case HS_DTYPE_UINT64: { guint64 v; memcpy (&v, b, 8); return (double) v; }
    case HS_DTYPE_FLOAT16: { guint16 v; memcpy (&v, b, 2); return half_to_double (v); }
    case HS_DTYPE_FLOAT32: { float v; memcpy (&v, b, 4); return v; }
    case HS_DTYPE_FLOAT64: { double v; memcpy (&v, b, 8); return v; }
    default: return NAN;
    }
}

/* Decodes `data`; when `owned` is given (the buffer *owned, holding data),
 * a native float64 C-order payload is moved to the front of that buffer and
 * the buffer becomes the values: a 2048² map then costs no second 32 MB
 * buffer (page zeroing plus a copy were a fifth of a `score` process). */
static HsNdArray *
npy_decode (const guint8 *data, gsize len, guint8 **owned, const char *name_for_errors,
            GError **error)
{
  const char *name = name_for_errors != NULL ? name_for_errors : ".npy data";
  g_autoptr(HsNdArray) array = NULL;
  Header h = { 0 };
  Parser ps;
  guint major;
  gsize header_len, prefix, n_values = 1, n_bytes, item;
  gboolean big_endian = FALSE, swap;
  HsDType dtype = HS_DTYPE_FLOAT64;
  const guint8 *payload;
  gsize index[HS_NPY_MAX_DIMS] = { 0 };
  gsize fstride[HS_NPY_MAX_DIMS];

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (len > hs_limits_get ()->max_file_bytes)
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TOO_LARGE,
                   _("%s: file of %zu bytes is too large (limit %" PRIu64 " bytes)"),
                   name, len, hs_limits_get ()->max_file_bytes);
      return NULL;
    }
  if (len < 10 || memcmp (data, npy_magic, 6) != 0)
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_FORMAT,
                   _("%s: not a .npy file (bad magic)"), name);
      return NULL;
    }
  major = data[6];
  if (major == 1)
    {
      header_len = data[8] | (data[9] << 8);
      prefix = 10;
    }
  else if (major == 2 || major == 3)
    {
      if (len < 12)
        {
          g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TRUNCATED,
                       _("%s: .npy header is truncated"), name);
          return NULL;
        }
      header_len = (gsize) data[8] | ((gsize) data[9] << 8) | ((gsize) data[10] << 16) |
                   ((gsize) data[11] << 24);
      prefix = 12;
    }
  else
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_UNSUPPORTED,
                   _("%s: unsupported .npy format version %u.%u"), name, major, data[7]);
      return NULL;
    }
  if (header_len > len - prefix)
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TRUNCATED,
                   _("%s: .npy header is truncated (%zu bytes promised, "
                   "%zu present)"), name, header_len, len - prefix);
      return NULL;
    }
  /* Versions 1 and 2 are latin-1, 3 is UTF-8; the keys and values we accept
   * are ASCII either way, so any other byte is rejected by the parser. */
  ps.start = ps.p = (const char *) data + prefix;
  ps.end = ps.p + header_len;
  ps.name = name;
  ps.error = error;
  if (memchr (ps.p, '\0', header_len) != NULL)
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_FORMAT, _("%s: bad .npy header: NUL byte"), name);
      return NULL;
    }
  if (!parse_header_dict (&ps, &h))
    return NULL;
  if (!parse_descr (name, h.descr, &dtype, &big_endian, error))
    return NULL;

  for (guint i = 0; i < h.ndim; i++)
    if (!g_size_checked_mul (&n_values, n_values, h.shape[i]))
      {
        g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TOO_LARGE,
                     _("%s: shape product overflows"), name);
        return NULL;
      }
  item = dtype_size (dtype);
  payload = data + prefix + header_len;
  if (!g_size_checked_mul (&n_bytes, n_values, item) ||
      n_values > G_MAXSIZE / sizeof (double))
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TOO_LARGE,
                   _("%s: shape product overflows"), name);
      return NULL;
    }
  if (n_bytes > len - prefix - header_len)
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TRUNCATED,
                   _("%s: .npy data is truncated (%zu bytes expected, "
                   "%zu present)"), name, n_bytes, len - prefix - header_len);
      return NULL;
    }
  if (n_bytes < len - prefix - header_len)
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_FORMAT,
                   _("%s: %zu unexpected bytes after the .npy data"), name,
                   len - prefix - header_len - n_bytes);
      return NULL;
    }

  swap = item > 1 && big_endian != (G_BYTE_ORDER == G_BIG_ENDIAN);
  array = g_new0 (HsNdArray, 1);
  array->dtype = dtype;
  array->ndim = h.ndim;
  memcpy (array->shape, h.shape, sizeof h.shape);
  array->n_values = n_values;
  if (owned != NULL && *owned == data && dtype == HS_DTYPE_FLOAT64 && !swap &&
      (!h.fortran_order || h.ndim < 2) && n_values > 0)
    {
      memmove (*owned, payload, n_bytes);
      array->values = (double *) g_steal_pointer (owned);
      return g_steal_pointer (&array);
    }
  array->values = n_values > G_MAXSIZE / sizeof (double) ? NULL
                  : hs_big_buffer_try_alloc (MAX (n_values, 1) * sizeof (double));
  if (array->values == NULL)
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TOO_LARGE,
                   _("%s: out of memory for %zu values"), name, n_values);
      return NULL;
    }

  if (!h.fortran_order || h.ndim < 2)
    {
      /* the common dtypes in a loop of their own (no per-value switch) */
      if (!swap && dtype == HS_DTYPE_FLOAT64)
        memcpy (array->values, payload, n_bytes);
      else if (!swap && dtype == HS_DTYPE_FLOAT32)
        for (gsize i = 0; i < n_values; i++)
          {
            float v;
            memcpy (&v, payload + i * 4, 4);
            array->values[i] = v;
          }
      else
        for (gsize i = 0; i < n_values; i++)
        array->values[i] = read_value (payload + i * item, dtype, swap);
      return g_steal_pointer (&array);
    }

  /* Fortran order: the first index varies fastest in the file.  Walk the
   * output in C order with an odometer and track the file offset. */
  fstride[0] = 1;
  for (guint k = 1; k < h.ndim; k++)
    fstride[k] = fstride[k - 1] * h.shape[k - 1];
  {
    gsize offset = 0;
    for (gsize i = 0; i < n_values; i++)
      {
        array->values[i] = read_value (payload + offset * item, dtype, swap);
        for (int k = (int) h.ndim - 1; k >= 0; k--)
          {
            index[k]++;
            offset += fstride[k];
            if (index[k] < h.shape[k])
              break;
            offset -= fstride[k] * index[k];
            index[k] = 0;
          }
      }
  }
  return g_steal_pointer (&array);
}

HsNdArray *
hs_npy_read_from_memory (const guint8 *data, gsize len, const char *name_for_errors,
                         GError **error)
{
  return npy_decode (data, len, NULL, name_for_errors, error);
}

HsNdArray *
hs_npy_read_fd (int fd, const char *path, GError **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree guint8 *contents = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Size checked on the descriptor: the file checked is the file read. */
  if (!hs_safe_read_fd (fd, path, hs_limits_get ()->max_file_bytes, &contents, &len, &local_error))
    {
      g_set_error_literal (error, HS_NPY_ERROR,
                           local_error->code == HS_SAFE_OPEN_ERROR_TOO_LARGE ? HS_NPY_ERROR_TOO_LARGE
                                                                             : HS_NPY_ERROR_IO,
                           local_error->message);
      return NULL;
    }
  return npy_decode (contents, len, &contents, path, error);
}

HsNdArray *
hs_npy_read (const char *path, GError **error)
{
  HsNdArray *array;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* O_NONBLOCK: a FIFO must not block the open. */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_IO, _("%s: cannot read: %s"), path,
                   g_strerror (saved));
      return NULL;
    }
  array = hs_npy_read_fd (fd, path, error);
  close (fd);
  return array;
}

/* ---- writing ----------------------------------------------------------- */

static gboolean
encode_value (guint8 *out, HsDType dtype, double v, gboolean swap, const char *path,
              gsize index, GError **error)
{
  guint8 b[8];
  guint size = dtype_size (dtype);
  double lo = 0, hi = 0;
  gboolean integral = TRUE;

  switch (dtype)
    {
    case HS_DTYPE_BOOL: lo = 0; hi = 1; break;
    case HS_DTYPE_INT8: lo = G_MININT8; hi = G_MAXINT8; break;
    case HS_DTYPE_INT16: lo = G_MININT16; hi = G_MAXINT16; break;
    case HS_DTYPE_INT32: lo = G_MININT32; hi = G_MAXINT32; break;
    case HS_DTYPE_INT64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    case HS_DTYPE_UINT8: lo = 0; hi = G_MAXUINT8; break;
    case HS_DTYPE_UINT16: lo = 0; hi = G_MAXUINT16; break;
    case HS_DTYPE_UINT32: lo = 0; hi = G_MAXUINT32; break;
    case HS_DTYPE_UINT64: lo = 0; hi = 18446744073709551615.0; break;
    default: integral = FALSE; break;
    }
  if (integral)
    {
      /* Doubles at 2^63 / 2^64 are out of range although they compare <=. */
      gboolean out_of_range = !(v >= lo && v <= hi) ||
                              (dtype == HS_DTYPE_INT64 && v >= 9223372036854775808.0) ||
                              (dtype == HS_DTYPE_UINT64 && v >= 18446744073709551616.0);
      if (out_of_range || v != floor (v))
        {
          g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_FORMAT,
                       _("%s: value %g at index %zu does not fit dtype %s"),
                       path, v, index, hs_dtype_to_descr (dtype, FALSE));
          return FALSE;
        }
    }

  switch (dtype)
    {
    case HS_DTYPE_BOOL: b[0] = v != 0; break;
    case HS_DTYPE_INT8: b[0] = (guint8) (gint8) v; break;
    case HS_DTYPE_UINT8: b[0] = (guint8) v; break;
    case HS_DTYPE_INT16: { gint16 x = (gint16) v; memcpy (b, &x, 2); } break;
    case HS_DTYPE_UINT16: { guint16 x = (guint16) v; memcpy (b, &x, 2); } break;
    case HS_DTYPE_INT32: { gint32 x = (gint32) v; memcpy (b, &x, 4); } break;
    case HS_DTYPE_UINT32: { guint32 x = (guint32) v; memcpy (b, &x, 4); } break;
    case HS_DTYPE_INT64: { gint64 x = (gint64) v; memcpy (b, &x, 8); } break;
    case HS_DTYPE_UINT64: { guint64 x = (guint64) v; memcpy (b, &x, 8); } break;
    case HS_DTYPE_FLOAT16: { guint16 x = double_to_half (v); memcpy (b, &x, 2); } break;
    case HS_DTYPE_FLOAT32: { float x = (float) v; memcpy (b, &x, 4); } break;
    case HS_DTYPE_FLOAT64: memcpy (b, &v, 8); break;
    default: break;
    }
  if (swap)
    for (guint i = 0; i < size; i++)
      out[i] = b[size - 1 - i];
  else
    memcpy (out, b, size);
  return TRUE;
}

gboolean
hs_npy_write (const char *path, HsDType dtype, guint ndim, const gsize *shape,
              const double *values, gboolean fortran_order, gboolean big_endian,
              GError **error)
{
  g_autoptr(GString) header = NULL;
  g_autofree guint8 *buffer = NULL;
  gsize n_values = 1, n_bytes, total, prefix, header_len;
  guint item;
  gboolean swap;
  gsize index[HS_NPY_MAX_DIMS] = { 0 };

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail ((guint) dtype <= HS_DTYPE_FLOAT64, FALSE);
  g_return_val_if_fail (ndim <= HS_NPY_MAX_DIMS, FALSE);
  g_return_val_if_fail (ndim == 0 || shape != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint i = 0; i < ndim; i++)
    if (!g_size_checked_mul (&n_values, n_values, shape[i]))
      {
        g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TOO_LARGE, _("%s: shape product overflows"), path);
        return FALSE;
      }
  g_return_val_if_fail (n_values == 0 || values != NULL, FALSE);
  item = dtype_size (dtype);
  if (!g_size_checked_mul (&n_bytes, n_values, item))
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TOO_LARGE, _("%s: array too large"), path);
      return FALSE;
    }

  header = g_string_new (NULL);
  g_string_append_printf (header, "{'descr': '%s', 'fortran_order': %s, 'shape': (",
                          hs_dtype_to_descr (dtype, big_endian),
                          fortran_order ? "True" : "False");
  for (guint i = 0; i < ndim; i++)
    g_string_append_printf (header, i == 0 ? "%" G_GSIZE_FORMAT : ", %" G_GSIZE_FORMAT, shape[i]);
  g_string_append (header, ndim == 1 ? ",), }" : "), }");
  /* Pad with spaces and a newline so the data starts on a 64-byte boundary. */
  prefix = 10;
  if ((header->len + 1 + prefix + 63) / 64 * 64 - prefix > 65535)
    prefix = 12;
  while ((prefix + header->len + 1) % 64 != 0)
    g_string_append_c (header, ' ');
  g_string_append_c (header, '\n');
  header_len = header->len;

  if (!g_size_checked_add (&total, prefix + header_len, n_bytes))
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TOO_LARGE, _("%s: array too large"), path);
      return FALSE;
    }
  buffer = g_try_malloc (total);
  if (buffer == NULL)
    {
      g_set_error (error, HS_NPY_ERROR, HS_NPY_ERROR_TOO_LARGE, _("%s: out of memory"), path);
      return FALSE;
    }
  memcpy (buffer, npy_magic, 6);
  buffer[6] = prefix == 10 ? 1 : 2;
  buffer[7] = 0;
  for (gsize i = 0; i < prefix - 8; i++)
    buffer[8 + i] = (guint8) (header_len >> (8 * i));
  memcpy (buffer + prefix, header->str, header_len);

  swap = item > 1 && big_endian != (G_BYTE_ORDER == G_BIG_ENDIAN);
  {
    guint8 *out = buffer + prefix + header_len;
    gsize stride[HS_NPY_MAX_DIMS];
    gsize offset = 0;

    if (!fortran_order || ndim < 2)
      {
        for (gsize i = 0; i < n_values; i++)
          if (!encode_value (out + i * item, dtype, values[i], swap, path, i, error))
            return FALSE;
      }
    else
      {
        /* Fortran file position of C-order element i. */
        stride[0] = 1;
        for (guint k = 1; k < ndim; k++)
          stride[k] = stride[k - 1] * shape[k - 1];
        for (gsize i = 0; i < n_values; i++)
          {
            if (!encode_value (out + offset * item, dtype, values[i], swap, path, i, error))
              return FALSE;
            for (int k = (int) ndim - 1; k >= 0; k--)
              {
                index[k]++;
                offset += stride[k];
                if (index[k] < shape[k])
                  break;
                offset -= stride[k] * index[k];
                index[k] = 0;
              }
          }
      }
  }
  return hs_atomic_write (path, buffer, total, error);
}
