/* hs-dicom-walk.c — a strict walk over a DICOM file's element headers
 *
 * GDCM parses whatever it is handed and trusts it: a declared length of
 * 4 GiB is allocated before it is read, a seek past the end trips an
 * assert() that aborts the process.  Before GDCM sees a file, this walk
 * checks the structure it will parse: the file meta group, then every
 * element of the data set (nested sequences and items included, to a fixed
 * depth) in the transfer syntax GDCM will use — tag order, VR, and every
 * declared length against the bytes that remain.  It reads headers only:
 * the values (and pixels) stay GDCM's to decode.  What passes holds no
 * length larger than the file, so GDCM's allocations are bounded by the
 * file size, which the callers have checked against HsLimits. */
#include "hs-dicom-walk-private.h"

#include "hs-i18n-private.h"
#include "hs-image.h"
#include "hs-limits.h"

#include <inttypes.h>
#include <string.h>
#include <zlib.h>

#define UNDEFINED_LENGTH 0xffffffffu

typedef enum
{
  WALK_OK,
  WALK_CUT, /* the bytes present end inside an element: the rest is unseen */
  WALK_BAD,
} WalkResult;

typedef struct
{
  const guint8 *data;
  gsize         len;       /* bytes present                     */
  gsize         file_len;  /* the whole file's size (≥ len)     */
  char         *problem;
  gboolean      rle;       /* RLE Lossless: fragments are RLE    */
  gsize         boundary;  /* start of the top-level element being walked */
} Walk;

typedef struct
{
  gboolean explicit_vr;
  gboolean big_endian;
} Syntax;

static guint16
get16 (const guint8 *p, gboolean big_endian)
{
  return big_endian ? (guint16) (p[0] << 8 | p[1]) : (guint16) (p[1] << 8 | p[0]);
}

static guint32
get32 (const guint8 *p, gboolean big_endian)
{
  return big_endian ? (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3]
                    : (guint32) p[3] << 24 | (guint32) p[2] << 16 | (guint32) p[1] << 8 | p[0];
}

/* The VRs of PS3.5 6.2; those after the first group carry a 32-bit length. */
static const char short_vrs[] = "AEASATCSDADSDTFLFDISLOLTPNSHSLSSSTTMUIULUS";
static const char long_vrs[] = "OBODOFOLOVOWSQSVUCUNURUTUV";

static gboolean
vr_in (const guint8 *vr, const char *list)
{
  for (const char *p = list; *p != '\0'; p += 2)
    if (vr[0] == (guint8) p[0] && vr[1] == (guint8) p[1])
      return TRUE;
  return FALSE;
}

static gboolean
is_vr (const guint8 *vr)
{
  return vr_in (vr, short_vrs) || vr_in (vr, long_vrs);
}

static WalkResult
bad (Walk *w, const char *format, ...) G_GNUC_PRINTF (2, 3);

static WalkResult
bad (Walk *w, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_free (w->problem);
  w->problem = g_strdup_vprintf (format, args);
  va_end (args);
  return WALK_BAD;
}

/* `need` bytes from `pos` inside [.., end): present, cut by the end of a
 * prefix (the file goes on), or missing. */
static WalkResult
check_room (Walk *w, gsize pos, gsize need, gsize end, guint32 group, guint32 element)
{
  if (need <= end - pos && need <= w->len - pos)
    return WALK_OK;
  if (need <= end - pos && w->len < w->file_len && need <= w->file_len - pos)
    return WALK_CUT;
  if (end < w->file_len)
    return bad (w, _("DICOM element (%04X,%04X) at offset %zu runs past the end of its sequence item"),
                group, element, pos);
  if (group == 0 && element == 0)
    return bad (w, _("DICOM file is truncated: the element header at offset %zu needs %zu bytes, %zu remain"),
                pos, need, end - pos);
  return bad (w, _("DICOM file is truncated: element (%04X,%04X) at offset %zu needs %zu bytes, %zu remain"),
              group, element, pos, need, end - pos);
}

/* Lengths GDCM would not read as declared: a binary value that is not a whole
 * number of its VR's units (GDCM reads a UL of 6 bytes in group 0009 as 4),
 * and, in implicit VR, GDCM's rewrites of particular lengths (13 becomes 10)
 * — the file's elements and GDCM's would no longer line up. */
static WalkResult
check_length (Walk *w, guint32 tag, const guint8 *vr, guint32 length, gsize start)
{
  guint unit = 1;

  if (vr != NULL)
    {
      if (vr_in (vr, "USSSOW"))
        unit = 2;
      else if (vr_in (vr, "ULSLFLATOFOL"))
        unit = 4;
      else if (vr_in (vr, "FDODSVUVOV"))
        unit = 8;
      if (length % unit != 0)
        return bad (w, _("DICOM element (%04X,%04X) at offset %zu has a length of %u bytes, not a multiple of %u (VR %c%c)"),
                    tag >> 16, tag & 0xffff, start, length, unit, vr[0], vr[1]);
    }
  else if ((length == 13 && tag != 0x00080070 && tag != 0x00080080) ||
           (length == 0x31f031c && tag == 0x031e0324))
    return bad (w, _("DICOM element (%04X,%04X) at offset %zu has a length of %u bytes, which GDCM would not read as declared"),
                tag >> 16, tag & 0xffff, start, length);
  return WALK_OK;
}

static WalkResult walk_data_set (Walk *w, gsize *pos, gsize end, Syntax syntax, gboolean in_item,
                                 guint depth, gboolean top);

/* The tag and 32-bit length of an item (or delimiter) at pos; `owner` names
 * the element in the error when the header is cut. */
static WalkResult
item_header (Walk *w, gsize pos, gsize end, Syntax syntax, guint16 owner_group, guint16 owner_element,
             guint16 *group, guint16 *element, guint32 *length)
{
  WalkResult r = check_room (w, pos, 8, end, owner_group, owner_element);

  if (r != WALK_OK)
    return r;
  *group = get16 (w->data + pos, syntax.big_endian);
  *element = get16 (w->data + pos + 2, syntax.big_endian);
  *length = get32 (w->data + pos + 4, syntax.big_endian);
  return WALK_OK;
}

/* The 64-byte header of an RLE fragment (PS3.5 G.3.1): 1–15 segments whose
 * offsets start at 64, ascend and stay within the fragment.  GDCM's RLE
 * decoder reads wherever these point. */
static WalkResult
check_rle_header (Walk *w, gsize pos, guint32 length)
{
  const guint8 *h = w->data + pos;
  guint32 segments, previous = 0;

  if (length < 64)
    return bad (w, _("DICOM RLE fragment at offset %zu is shorter than its 64-byte header"), pos);
  segments = get32 (h, FALSE);
  if (segments < 1 || segments > 15)
    return bad (w, _("DICOM RLE fragment at offset %zu declares %u segments (1 to 15 are possible)"),
                pos, segments);
  for (guint32 i = 0; i < segments; i++)
    {
      guint32 offset = get32 (h + 4 + 4 * i, FALSE);
      if ((i == 0 && offset != 64) || (i > 0 && offset <= previous) || offset > length)
        return bad (w, _("DICOM RLE fragment at offset %zu has segment %u at offset %u, outside its %u bytes or out of order"),
                    pos, i + 1, offset, length);
      previous = offset;
    }
  return WALK_OK;
}

/* Encapsulated pixel data: fragments of defined length up to a sequence delimiter. */
static WalkResult
walk_fragments (Walk *w, gsize *pos, gsize end, Syntax syntax)
{
  for (guint index = 0;; index++)
    {
      guint16 group, element;
      guint32 length;
      WalkResult r = item_header (w, *pos, end, syntax, 0x7fe0, 0x0010, &group, &element, &length);
      if (r != WALK_OK)
        return r;
      if (group == 0xfffe && element == 0xe0dd)
        {
          *pos += 8;
          return WALK_OK;
        }
      if (group != 0xfffe || element != 0xe000 || length == UNDEFINED_LENGTH)
        return bad (w, _("DICOM pixel data fragment at offset %zu is not an item of defined length"), *pos);
      r = check_room (w, *pos, 8 + (gsize) length, end, group, element);
      if (r != WALK_OK)
        return r;
      /* The first item is the Basic Offset Table. */
      if (w->rle && index > 0 && check_rle_header (w, *pos + 8, length) != WALK_OK)
        return WALK_BAD;
      *pos += 8 + (gsize) length;
    }
}

/* Items of a sequence, defined length (end = its end) or undefined (up to a
 * sequence delimiter). */
static WalkResult
walk_sequence (Walk *w, gsize *pos, gsize end, gboolean undefined, Syntax syntax, guint depth)
{
  if (depth >= HS_DICOM_MAX_DEPTH)
    return bad (w, _("DICOM sequences are nested deeper than %d levels (at offset %zu)"),
                HS_DICOM_MAX_DEPTH, *pos);
  while (undefined || *pos < end)
    {
      guint16 group, element;
      guint32 length;
      WalkResult r = item_header (w, *pos, end, syntax, 0xfffe, 0xe000, &group, &element, &length);
      if (r != WALK_OK)
        return r;
      if (undefined && group == 0xfffe && element == 0xe0dd)
        {
          *pos += 8;
          return WALK_OK;
        }
      if (group != 0xfffe || element != 0xe000)
        return bad (w, _("DICOM sequence holds (%04X,%04X) at offset %zu where an item should start"),
                    group, element, *pos);
      gsize item_start = *pos;
      *pos += 8;
      if (length == UNDEFINED_LENGTH)
        r = walk_data_set (w, pos, end, syntax, TRUE, depth + 1, FALSE);
      else
        {
          /* An item cut by the end of a prefix is walked as far as it is present. */
          r = check_room (w, item_start, 8 + (gsize) length, end, group, element);
          if (r != WALK_BAD)
            r = walk_data_set (w, pos, *pos + length, syntax, FALSE, depth + 1, FALSE);
        }
      if (r != WALK_OK)
        return r;
    }
  return WALK_OK;
}

/* The elements from *pos to end (or, in an item of undefined length, to its
 * delimiter).  top: the file's data set, where the meta group may not appear. */
static WalkResult
walk_data_set (Walk *w, gsize *pos, gsize end, Syntax syntax, gboolean in_item, guint depth, gboolean top)
{
  guint32 previous = 0;
  gboolean first = TRUE;

  while (in_item || *pos < end)
    {
      gsize start = *pos;
      if (top)
        w->boundary = start;
      WalkResult r = check_room (w, start, 8, end, 0, 0);
      if (r != WALK_OK)
        return r;
      guint16 group = get16 (w->data + start, syntax.big_endian);
      guint16 element = get16 (w->data + start + 2, syntax.big_endian);
      guint32 tag = (guint32) group << 16 | element;
      guint32 length;
      gsize header;
      const guint8 *vr = NULL;

      if (tag == 0xfffee00d)
        {
          if (!in_item)
            return bad (w, _("DICOM item delimiter at offset %zu outside an item"), start);
          *pos += 8;
          return WALK_OK;
        }
      if (group == 0xfffe)
        return bad (w, _("DICOM item tag (%04X,%04X) at offset %zu where a data element should start"),
                    group, element, start);
      if (!first && tag <= previous)
        return bad (w, _("DICOM element (%04X,%04X) at offset %zu is out of order (after (%04X,%04X))"),
                    group, element, start, previous >> 16, previous & 0xffff);
      /* GDCM reads from this tag to the end as Pixel Data (a workaround for one vendor). */
      if (tag == 0x00ff4aa5)
        return bad (w, _("DICOM element (%04X,%04X) at offset %zu is not read (GDCM takes it for pixel data)"),
                    group, element, start);
      if (top && group == 0x0002)
        return bad (w, _("DICOM file meta element (%04X,%04X) at offset %zu inside the data set"),
                    group, element, start);
      first = FALSE;
      previous = tag;

      if (syntax.explicit_vr)
        {
          vr = w->data + start + 4;
          if (!is_vr (vr))
            return bad (w, _("DICOM element (%04X,%04X) at offset %zu has no valid value representation (bytes %02X %02X)"),
                        group, element, start, vr[0], vr[1]);
          if (vr_in (vr, long_vrs))
            {
              r = check_room (w, start, 12, end, group, element);
              if (r != WALK_OK)
                return r;
              length = get32 (w->data + start + 8, syntax.big_endian);
              header = 12;
            }
          else
            {
              length = get16 (w->data + start + 6, syntax.big_endian);
              header = 8;
            }
        }
      else
        {
          length = get32 (w->data + start + 4, syntax.big_endian);
          header = 8;
        }
      *pos = start + header;

      if (vr != NULL && vr_in (vr, "SQ") && tag == 0x7fe00010)
        return bad (w, _("DICOM Pixel Data at offset %zu has VR SQ"), start);
      if (length != UNDEFINED_LENGTH)
        {
          r = check_length (w, tag, vr, length, start);
          if (r != WALK_OK)
            return r;
        }

      if (length == UNDEFINED_LENGTH)
        {
          gboolean pixel_data = tag == 0x7fe00010;
          /* GDCM asserts (and aborts) on an undefined length elsewhere than
           * SQ, UN and OB/OW/UN Pixel Data. */
          if (vr != NULL && !(pixel_data ? vr_in (vr, "OBOWUN") : vr_in (vr, "SQUN")))
            return bad (w, _("DICOM element (%04X,%04X) at offset %zu has an undefined length, which VR %c%c does not allow"),
                        group, element, start, vr[0], vr[1]);
          if (pixel_data)
            r = walk_fragments (w, pos, end, syntax);
          else
            {
              /* A UN sequence of undefined length is in implicit VR (PS3.5 6.2.2), read by GDCM in the file's byte order. */
              Syntax nested = vr != NULL && vr_in (vr, "UN") ? (Syntax) { FALSE, syntax.big_endian } : syntax;
              r = walk_sequence (w, pos, end, TRUE, nested, depth);
            }
          if (r != WALK_OK)
            return r;
          continue;
        }

      r = check_room (w, start, header + (gsize) length, end, group, element);
      if (r == WALK_BAD)
        return r;
      /* Values GDCM parses as items: explicit SQ, and (implicit VR, UN) a
       * value that starts with an item tag, which GDCM reads as a sequence
       * when its dictionary says so.  A sequence cut by the end of a prefix
       * is walked as far as it is present. */
      gboolean sequence = vr != NULL && vr_in (vr, "SQ");
      Syntax nested = syntax;
      if (!sequence && (vr == NULL || vr_in (vr, "UN")) && length >= 8 && w->len - *pos >= 4)
        for (int order = 0; order < 2 && !sequence; order++)
          if (get16 (w->data + *pos, order) == 0xfffe && get16 (w->data + *pos + 2, order) == 0xe000)
            {
              sequence = TRUE;
              nested = (Syntax) { FALSE, order };
            }
      if (sequence)
        {
          gsize value_end = *pos + length;
          r = walk_sequence (w, pos, value_end, FALSE, nested, depth);
          if (r != WALK_OK)
            return r;
          if (*pos != value_end)
            return bad (w, _("DICOM sequence (%04X,%04X) at offset %zu does not end where its length says"),
                        group, element, start);
        }
      else if (r == WALK_CUT)
        return r;
      else
        *pos += length;
    }
  return WALK_OK;
}

static gboolean
uid_is (const guint8 *value, gsize length, const char *uid)
{
  gsize n = strlen (uid);

  /* UI values are padded to even length with NUL (or, wrongly, a space). */
  while (length > 0 && (value[length - 1] == '\0' || value[length - 1] == ' '))
    length--;
  return length == n && memcmp (value, uid, n) == 0;
}

/* The file meta group (group 0002 from `pos`), remembering its Transfer Syntax UID. */
static WalkResult
walk_meta (Walk *w, gsize *pos, gboolean explicit_vr, const guint8 **ts, gsize *ts_length)
{
  guint32 previous = 0;
  gboolean first = TRUE;

  while (*pos + 4 <= w->len && get16 (w->data + *pos, FALSE) == 0x0002)
    {
      gsize start = *pos;
      guint16 element = get16 (w->data + start + 2, FALSE);
      guint32 length;
      gsize header = 8;
      WalkResult r = check_room (w, start, 8, w->file_len, 0x0002, element);

      if (r != WALK_OK)
        return r;
      w->boundary = start;
      if (!first && element <= previous)
        return bad (w, _("DICOM element (%04X,%04X) at offset %zu is out of order (after (%04X,%04X))"),
                    0x0002, element, start, 0x0002, previous);
      first = FALSE;
      previous = element;
      if (explicit_vr)
        {
          const guint8 *vr = w->data + start + 4;
          if (!is_vr (vr))
            return bad (w, _("DICOM element (%04X,%04X) at offset %zu has no valid value representation (bytes %02X %02X)"),
                        0x0002, element, start, vr[0], vr[1]);
          if (vr_in (vr, long_vrs))
            {
              r = check_room (w, start, 12, w->file_len, 0x0002, element);
              if (r != WALK_OK)
                return r;
              length = get32 (w->data + start + 8, FALSE);
              header = 12;
            }
          else
            length = get16 (w->data + start + 6, FALSE);
        }
      else
        length = get32 (w->data + start + 4, FALSE);
      if (length == UNDEFINED_LENGTH)
        return bad (w, _("DICOM file meta element (0002,%04X) at offset %zu has an undefined length"),
                    element, start);
      r = check_room (w, start, header + (gsize) length, w->file_len, 0x0002, element);
      if (r != WALK_OK)
        return r;
      if (element == 0x0010)
        {
          *ts = w->data + start + header;
          *ts_length = length;
        }
      *pos = start + header + length;
    }
  return WALK_OK;
}

/* Explicit VR when the bytes after the first tag are a VR, as GDCM guesses. */
static gboolean
looks_explicit (const Walk *w, gsize pos)
{
  return pos + 6 <= w->len && is_vr (w->data + pos + 4);
}

/* A deflated data set, inflated within the file size limit, to be walked. */
/* zlib itself rather than GIO's GZlibDecompressor: libheatscope's part that
 * heatscope-cli's score links must not need GIO (its libraries cost every
 * process ~0.7 ms to load; src/cli/hs-cli-module.c). */
static GBytes *
inflate_data_set (Walk *w, gsize pos)
{
  z_stream z = { 0 };
  g_autoptr(GByteArray) out = g_byte_array_new ();
  guint64 limit = hs_limits_get ()->max_file_bytes;
  gsize in_pos = pos;
  int status;

  status = inflateInit2 (&z, -MAX_WBITS);   /* raw deflate, as DICOM's deflated syntax */
  if (status != Z_OK)
    {
      bad (w, _("DICOM deflated data set at offset %zu cannot be inflated: %s"), pos, zError (status));
      return NULL;
    }
  while (status != Z_STREAM_END)
    {
      guint8 buffer[65536];
      gsize chunk = MIN (w->len - in_pos, (gsize) G_MAXUINT32);
      gsize written;

      z.next_in = (Bytef *) (w->data + in_pos);
      z.avail_in = (uInt) chunk;
      z.next_out = buffer;
      z.avail_out = sizeof buffer;
      status = inflate (&z, Z_NO_FLUSH);
      in_pos += chunk - z.avail_in;
      written = sizeof buffer - z.avail_out;
      if (status != Z_OK && status != Z_STREAM_END)
        {
          /* (Z_BUF_ERROR: no progress, the input ended before the stream did) */
          bad (w, _("DICOM deflated data set at offset %zu cannot be inflated: %s"), pos,
               z.msg != NULL ? z.msg : zError (status));
          inflateEnd (&z);
          return NULL;
        }
      g_byte_array_append (out, buffer, (guint) written);
      if (out->len > limit)
        {
          bad (w, _("DICOM deflated data set inflates to more than %" PRIu64 " bytes"), limit);
          inflateEnd (&z);
          return NULL;
        }
    }
  inflateEnd (&z);
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

gboolean
hs_dicom_walk (const guint8 *data, gsize len, gsize file_len, gsize *complete, char **problem)
{
  Walk w = { data, len, MAX (len, file_len), NULL };
  const guint8 *ts = NULL;
  gsize ts_length = 0;
  gsize pos = 0;
  Syntax syntax = { TRUE, FALSE };
  WalkResult r = WALK_OK;

  g_return_val_if_fail (problem != NULL && *problem == NULL, FALSE);


  if (len >= 132 && memcmp (data + 128, "DICM", 4) == 0)
    {
      pos = 132;
      if (pos + 4 <= len && get16 (data + pos, FALSE) != 0x0002)
        r = bad (&w, _("DICOM file has no file meta group after its DICM prefix"));
      else
        r = walk_meta (&w, &pos, looks_explicit (&w, pos), &ts, &ts_length);
    }
  else if (len >= 8 && get16 (data, FALSE) == 0x0002)
    r = walk_meta (&w, &pos, looks_explicit (&w, pos), &ts, &ts_length);
  else if (len < 8 || get16 (data, FALSE) != 0x0008)
    r = bad (&w, _("not a DICOM file (no DICM prefix and no identifying group)"));

  if (r == WALK_OK && pos >= len && len == w.file_len)
    r = bad (&w, _("DICOM file holds no data set after its file meta group"));
  if (r == WALK_OK && pos < len)
    {
      g_autoptr(GBytes) inflated = NULL;
      Walk inner = w;
      Walk *walk = &w;

      if (ts != NULL && uid_is (ts, ts_length, "1.2.840.10008.1.2"))
        syntax = (Syntax) { FALSE, FALSE };
      else if (ts != NULL && uid_is (ts, ts_length, "1.2.840.10008.1.2.5"))
        w.rle = TRUE;
      else if (ts != NULL && uid_is (ts, ts_length, "1.2.840.10008.1.2.2"))
        syntax = (Syntax) { TRUE, TRUE };
      else if (ts != NULL && uid_is (ts, ts_length, "1.2.840.10008.1.2.1.99"))
        {
          /* The data set GDCM will inflate: walk the inflated bytes (a prefix cannot be inflated alone). */
          if (len < w.file_len)
            {
              w.boundary = 0;
              r = WALK_CUT;
              goto done;
            }
          inflated = inflate_data_set (&w, pos);
          if (inflated == NULL)
            r = WALK_BAD;
          else
            {
              inner.data = g_bytes_get_data (inflated, &inner.len);
              inner.file_len = inner.len;
              walk = &inner;
              pos = 0;
            }
        }
      else if (ts == NULL)
        /* No syntax named: explicit VR if the first element has a VR, as GDCM guesses.
         * A data set in another syntax than the one named (a known writer
         * bug GDCM reads with guesses per element) is refused. */
        syntax = (Syntax) { looks_explicit (&w, pos), FALSE };
      if (r == WALK_OK && walk->len == 0)
        r = bad (&w, _("DICOM file holds no data set after its file meta group"));
      if (r == WALK_OK)
        {
          r = walk_data_set (walk, &pos, walk->file_len, syntax, FALSE, 0, TRUE);
          if (walk != &w)
            w.problem = inner.problem;
        }
    }

done:
  if (r == WALK_BAD)
    {
      *problem = w.problem;
      return FALSE;
    }
  if (complete != NULL)
    *complete = r == WALK_CUT ? w.boundary : len;
  g_free (w.problem);
  return TRUE;
}

gboolean
hs_dicom_walk_check (const guint8 *data, gsize len, gsize file_len, const char *name, gsize *complete,
                     GError **error)
{
  char *problem = NULL;

  if (hs_dicom_walk (data, len, file_len, complete, &problem))
    return TRUE;
  g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_CORRUPT, "%s: %s", name, problem);
  g_free (problem);
  return FALSE;
}
