/* hs-image-dicom.cc — DICOM decoding with GDCM, behind the C image API
 *
 * GDCM (Debian libgdcm-dev) decodes every transfer syntax a radiology archive
 * sends: uncompressed little/big endian, deflate, JPEG baseline/extended/
 * lossless (its own 8/12/16-bit IJG), JPEG-LS (CharLS), JPEG 2000 (OpenJPEG)
 * and RLE.  This shim reads from memory (the caller opened and size-checked
 * the file), decodes frame 1 and keeps the stored values: the conversion to
 * the file's own grey values (rescale, MONOCHROME1) is a linear mapping the
 * image carries, so window/level works in Hounsfield or raw units.
 *
 * Only heatscope-dicom-helper (src/libexec/) links this file: GDCM runs in
 * that short-lived process, so an assert() inside GDCM ends the helper, not
 * the program that asked for the image (hs-dicom-client.c). */
#include "hs-image-private.h"

#include "hs-dicom-helper-private.h"

#include "hs-dicom-walk-private.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <gdcmDataSet.h>
#include <gdcmFile.h>
#include <gdcmImage.h>
#include <gdcmImageApplyLookupTable.h>
#include <gdcmImageChangePlanarConfiguration.h>
#include <gdcmImageReader.h>
#include <gdcmMediaStorage.h>
#include <gdcmPhotometricInterpretation.h>
#include <gdcmPixelFormat.h>
#include <gdcmReader.h>
#include <gdcmSequenceOfItems.h>
#include <gdcmTrace.h>
#include <gdcmTransferSyntax.h>
#include <gdcmUIDs.h>

#include <cmath>
#include <cstring>
#include <istream>
#include <streambuf>
#include <string>
#include <vector>

namespace {

/* A read-only, seekable stream over the caller's bytes: no copy.  It also
 * notices a value cut by the end of the file, which GDCM only warns about
 * (it pads a truncated Pixel Data with zeros). */
class MemoryBuffer : public std::streambuf
{
public:
  MemoryBuffer (const guint8 *data, gsize len)
  {
    char *p = const_cast<char *> (reinterpret_cast<const char *> (data));
    setg (p, p, p + len);
  }

  /* Lengths of the reads the end of the data cut short. */
  std::vector<std::streamsize> cut_reads;

protected:
  std::streamsize
  xsgetn (char *s, std::streamsize n) override
  {
    std::streamsize available = egptr () - gptr ();
    std::streamsize got = n < available ? n : available;

    memcpy (s, gptr (), (size_t) got);
    setg (eback (), gptr () + got, egptr ());
    if (got < n)
      cut_reads.push_back (n);
    return got;
  }

  pos_type
  seekoff (off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override
  {
    char *base = dir == std::ios_base::beg ? eback () : dir == std::ios_base::cur ? gptr () : egptr ();
    off_type target = (base - eback ()) + off;

    if (target < 0 || target > egptr () - eback ())
      return pos_type (off_type (-1));
    setg (eback (), eback () + target, egptr ());
    return pos_type (target);
  }

  pos_type
  seekpos (pos_type pos, std::ios_base::openmode which) override
  {
    return seekoff (off_type (pos), std::ios_base::beg, which);
  }
};

void
quiet_gdcm (void)
{
  static gsize done = 0;

  /* GDCM reports through std::cerr; our errors are one line per file. */
  if (g_once_init_enter (&done))
    {
      gdcm::Trace::SetDebug (false);
      gdcm::Trace::SetWarning (false);
      gdcm::Trace::SetError (false);
      g_once_init_leave (&done, 1);
    }
}

std::string
get_string (const gdcm::DataSet &ds, guint16 group, guint16 element)
{
  gdcm::Tag tag (group, element);

  if (!ds.FindDataElement (tag))
    return "";
  const gdcm::DataElement &de = ds.GetDataElement (tag);
  const gdcm::ByteValue *bv = de.GetByteValue ();
  if (bv == nullptr || bv->GetPointer () == nullptr)
    return "";
  std::string s (bv->GetPointer (), bv->GetLength ());
  while (!s.empty () && (s.back () == ' ' || s.back () == '\0'))
    s.pop_back ();
  size_t start = s.find_first_not_of (' ');
  return start == std::string::npos ? "" : s.substr (start);
}

/* The index-th value of a backslash-separated DS/IS string. */
bool
get_number (const gdcm::DataSet &ds, guint16 group, guint16 element, guint index, double *out)
{
  std::string s = get_string (ds, group, element);
  g_auto (GStrv) parts = NULL;
  char *end = NULL;
  double v;

  if (s.empty ())
    return false;
  parts = g_strsplit (s.c_str (), "\\", -1);
  if (g_strv_length (parts) <= index)
    return false;
  g_strstrip (parts[index]);
  v = g_ascii_strtod (parts[index], &end);
  if (end == parts[index] || *end != '\0' || !std::isfinite (v))
    return false;
  *out = v;
  return true;
}

/* A 16-bit value of a binary US/SS element (GDCM has swapped a big-endian
 * file's values to the host order while reading). */
bool
get_us (const gdcm::DataSet &ds, guint16 group, guint16 element, guint index, guint *out)
{
  gdcm::Tag tag (group, element);

  if (!ds.FindDataElement (tag))
    return false;
  const gdcm::ByteValue *bv = ds.GetDataElement (tag).GetByteValue ();
  if (bv == nullptr || bv->GetLength () < 2 * (index + 1))
    return false;
  guint16 v;
  memcpy (&v, bv->GetPointer () + 2 * index, sizeof v);
  *out = v;
  return true;
}

std::string
transfer_syntax_text (const gdcm::File &file)
{
  std::string uid = get_string (file.GetHeader (), 0x0002, 0x0010);
  gdcm::UIDs uids;

  if (uid.empty ())
    {
      const char *implicit = gdcm::TransferSyntax::GetTSString (
        file.GetHeader ().GetDataSetTransferSyntax ());
      uid = implicit != nullptr ? implicit : "unknown";
    }
  if (uids.SetFromUID (uid.c_str ()) && uids.GetName () != nullptr)
    return uid + " (" + uids.GetName () + ")";
  return uid;
}

/* The syntaxes GDCM's codecs decode; a file in another one (MPEG, JPIP, …)
 * is refused by name rather than as "damaged". */
bool
decodable (const gdcm::TransferSyntax &ts)
{
  switch ((gdcm::TransferSyntax::TSType) ts)
    {
    case gdcm::TransferSyntax::ImplicitVRLittleEndian:
    case gdcm::TransferSyntax::ImplicitVRBigEndianPrivateGE:
    case gdcm::TransferSyntax::ExplicitVRLittleEndian:
    case gdcm::TransferSyntax::DeflatedExplicitVRLittleEndian:
    case gdcm::TransferSyntax::ExplicitVRBigEndian:
    case gdcm::TransferSyntax::JPEGBaselineProcess1:
    case gdcm::TransferSyntax::JPEGExtendedProcess2_4:
    case gdcm::TransferSyntax::JPEGExtendedProcess3_5:
    case gdcm::TransferSyntax::JPEGSpectralSelectionProcess6_8:
    case gdcm::TransferSyntax::JPEGFullProgressionProcess10_12:
    case gdcm::TransferSyntax::JPEGLosslessProcess14:
    case gdcm::TransferSyntax::JPEGLosslessProcess14_1:
    case gdcm::TransferSyntax::JPEGLSLossless:
    case gdcm::TransferSyntax::JPEGLSNearLossless:
    case gdcm::TransferSyntax::JPEG2000Lossless:
    case gdcm::TransferSyntax::JPEG2000:
    case gdcm::TransferSyntax::JPEG2000Part2Lossless:
    case gdcm::TransferSyntax::JPEG2000Part2:
    case gdcm::TransferSyntax::RLELossless:
    case gdcm::TransferSyntax::ImplicitVRBigEndianACRNEMA:
      return true;
    default:
      return false;
    }
}

/* The VOI LUT Sequence's first table as a window: its input range. */
bool
voi_lut_window (const gdcm::DataSet &ds, double *center, double *width)
{
  gdcm::Tag tag (0x0028, 0x3010);

  if (!ds.FindDataElement (tag))
    return false;
  gdcm::SmartPointer<gdcm::SequenceOfItems> sq = ds.GetDataElement (tag).GetValueAsSQ ();
  if (!sq || sq->GetNumberOfItems () < 1)
    return false;
  const gdcm::DataSet &item = sq->GetItem (1).GetNestedDataSet ();
  guint entries, first;
  if (!get_us (item, 0x0028, 0x3002, 0, &entries) ||
      !get_us (item, 0x0028, 0x3002, 1, &first))
    return false;
  if (entries == 0)
    entries = 65536;
  /* The first mapped value is US or SS: read as signed when the data is signed. */
  gint pixel_rep = 0;
  guint rep;
  if (get_us (ds, 0x0028, 0x0103, 0, &rep))
    pixel_rep = (gint) rep;
  double lo = pixel_rep == 1 ? (double) (gint16) first : (double) first;
  *center = lo + entries / 2.0;
  *width = entries;
  return true;
}

/* Was Pixel Data (or one of its fragments) read short?  The length of a cut
 * read equals the declared length of the value it was reading. */
bool
pixel_data_cut (const MemoryBuffer &buffer, const gdcm::DataElement &pixel_data)
{
  std::vector<std::streamsize> lengths;

  if (buffer.cut_reads.empty ())
    return false;
  if (const gdcm::ByteValue *bv = pixel_data.GetByteValue ())
    lengths.push_back ((std::streamsize) bv->GetLength ());
  if (const gdcm::SequenceOfFragments *sf = pixel_data.GetSequenceOfFragments ())
    for (size_t i = 0; i < sf->GetNumberOfFragments (); i++)
      lengths.push_back ((std::streamsize) sf->GetFragment (i).GetVL ());
  for (std::streamsize cut : buffer.cut_reads)
    for (std::streamsize length : lengths)
      if (cut == length && length > 0)
        return true;
  return false;
}

void
set_error (GError **error, HsImageError code, const char *name, const std::string &message)
{
  g_set_error (error, HS_IMAGE_ERROR, code, "%s: %s", name, message.c_str ());
}

/* Reads one stored sample (bits_allocated 8 or 16, native order) as a signed value. */
inline gint32
stored_value (const char *buffer, gsize index, guint bits_allocated, guint bits_stored,
              guint high_bit, bool is_signed)
{
  guint32 raw = bits_allocated == 8 ? (guint8) buffer[index]
                                    : reinterpret_cast<const guint16 *> (buffer)[index];
  guint shift = high_bit + 1 - bits_stored;
  guint32 mask = bits_stored >= 32 ? 0xffffffffu : ((1u << bits_stored) - 1);
  guint32 v = (raw >> shift) & mask;

  if (is_signed && (v & (1u << (bits_stored - 1))))
    return (gint32) v - (gint32) (1u << bits_stored);
  return (gint32) v;
}

/* A UID for a message: digits and dots (anything else, e.g. bytes that are
 * not UTF-8, as '?'), or "none". */
std::string
printable_uid (std::string uid)
{
  for (char &c : uid)
    if (!g_ascii_isdigit (c) && c != '.')
      c = '?';
  return uid.empty () ? "none" : uid;
}

/* Would gdcm::PixmapReader::Read() fail one of its assert()s (which abort:
 * Debian builds GDCM with them) on this header?  It decides how to read the
 * file from the SOP classes of the meta group and the data set; a class it
 * does not know in the data set, when the meta group names another (or a
 * transfer syntax it does not know), ends in an assertion. */
bool
gdcm_would_assert (const gdcm::File &file)
{
  const gdcm::FileMetaInformation &header = file.GetHeader ();
  gdcm::TransferSyntax ts = header.GetDataSetTransferSyntax ();
  gdcm::MediaStorage ms = header.GetMediaStorage ();

  if (gdcm::MediaStorage::IsImage (ms))
    return ts == gdcm::TransferSyntax::TS_END;
  gdcm::MediaStorage ms2 = file.GetDataSet ().GetMediaStorage ();
  if ((ms == gdcm::MediaStorage::MediaStorageDirectoryStorage && ms2 == gdcm::MediaStorage::MS_END) ||
      (ms == ms2 && ms != gdcm::MediaStorage::MS_END) || ms2 != gdcm::MediaStorage::MS_END ||
      ts == gdcm::TransferSyntax::ImplicitVRBigEndianACRNEMA || header.IsEmpty ())
    return false;
  return !(ts != gdcm::TransferSyntax::TS_END && ms == gdcm::MediaStorage::MS_END);
}

} /* namespace */

extern "C" gboolean
hs_dicom_gdcm_probe (const guint8 *head, gsize len, gsize file_len, const char *name,
                      guint *width, guint *height, char *modality, gboolean *need_more,
                      GError **error)
{
  gboolean whole_file = len >= file_len;
  gsize complete = len;

  quiet_gdcm ();
  *need_more = FALSE;
  if (!hs_dicom_walk_check (head, len, file_len, name, &complete, error))
    return FALSE;
  /* GDCM reads the prefix's whole elements only: an element the prefix cuts
   * could send its reader into fallbacks whose lengths nobody checked. */
  if (complete == 0 && !whole_file)
    {
      *need_more = TRUE;
      set_error (error, HS_IMAGE_ERROR_CORRUPT, name, "DICOM header is longer than expected");
      return FALSE;
    }
  try
    {
      MemoryBuffer buffer (head, complete);
      std::istream stream (&buffer);
      gdcm::Reader reader;

      reader.SetStream (stream);
      /* A cut prefix makes ReadUpToTag fail; Rows and Columns may be read already. */
      bool ok = reader.ReadUpToTag (gdcm::Tag (0x7fe0, 0x0010));
      const gdcm::DataSet &ds = reader.GetFile ().GetDataSet ();
      guint rows, columns;

      if (get_us (ds, 0x0028, 0x0010, 0, &rows) && get_us (ds, 0x0028, 0x0011, 0, &columns))
        {
          if (!hs_image_check_size (name, columns, rows, error))
            return FALSE;
          if (width != NULL)
            *width = columns;
          if (height != NULL)
            *height = rows;
          if (modality != NULL)
            {
              /* A code string has at most 16 characters; a longer value is
               * no modality to record (the client checks the characters). */
              std::string code = get_string (ds, 0x0008, 0x0060);

              memset (modality, 0, HS_IMAGE_MODALITY_BYTES);
              if (code.size () < HS_IMAGE_MODALITY_BYTES)
                memcpy (modality, code.data (), code.size ());
            }
          return TRUE;
        }
      if (!whole_file)
        {
          *need_more = TRUE;
          set_error (error, HS_IMAGE_ERROR_CORRUPT, name, "DICOM header is longer than expected");
          return FALSE;
        }
      set_error (error, ok ? HS_IMAGE_ERROR_FORMAT : HS_IMAGE_ERROR_CORRUPT, name,
                 ok ? "DICOM file holds no image (no Rows/Columns)" : "not a readable DICOM file");
      return FALSE;
    }
  catch (const std::exception &e)
    {
      set_error (error, HS_IMAGE_ERROR_CORRUPT, name, std::string ("corrupt DICOM: ") + e.what ());
      return FALSE;
    }
}

extern "C" HsImage *
hs_dicom_gdcm_load (const guint8 *data, gsize len, const char *name, GError **error)
{
  quiet_gdcm ();
  if (!hs_dicom_walk_check (data, len, len, name, NULL, error))
    return NULL;
  try
    {
      /* The header alone first: refuses what is not decoded before any pixel
       * is, and what GDCM's image reader would abort on (an assertion fails
       * on a Frame Increment Pointer without Number of Frames). */
      {
        MemoryBuffer head (data, len);
        std::istream head_stream (&head);
        gdcm::Reader header;
        guint bits_allocated;

        header.SetStream (head_stream);
        header.ReadUpToTag (gdcm::Tag (0x7fe0, 0x0010));
        const gdcm::DataSet &hds = header.GetFile ().GetDataSet ();
        if (gdcm_would_assert (header.GetFile ()))
          {
            set_error (error, HS_IMAGE_ERROR_FORMAT, name,
                       "DICOM file of a SOP class or transfer syntax GDCM does not know (SOP class " +
                       printable_uid (get_string (hds, 0x0008, 0x0016)) + ", transfer syntax " +
                       printable_uid (get_string (header.GetFile ().GetHeader (), 0x0002, 0x0010)) + ")");
            return NULL;
          }
        if (hds.FindDataElement (gdcm::Tag (0x0028, 0x0009)) && !hds.FindDataElement (gdcm::Tag (0x0028, 0x0008)))
          {
            set_error (error, HS_IMAGE_ERROR_CORRUPT, name,
                       "inconsistent DICOM header: Frame Increment Pointer without Number of Frames");
            return NULL;
          }
        if (get_us (hds, 0x0028, 0x0100, 0, &bits_allocated) && bits_allocated != 8 && bits_allocated != 16)
          {
            set_error (error, HS_IMAGE_ERROR_FORMAT, name,
                       "unsupported DICOM pixel format: " + std::to_string (bits_allocated) +
                       " bits allocated (8 or 16 are read)");
            return NULL;
          }
      }

      MemoryBuffer buffer (data, len);
      std::istream stream (&buffer);
      gdcm::ImageReader reader;

      reader.SetStream (stream);
      if (!reader.Read ())
        {
          /* Tell a file without pixel data or with an unknown syntax from a broken one. */
          MemoryBuffer again (data, len);
          std::istream stream2 (&again);
          gdcm::Reader plain;
          plain.SetStream (stream2);
          if (!plain.Read ())
            {
              set_error (error, HS_IMAGE_ERROR_CORRUPT, name, "not a readable DICOM file (truncated or damaged)");
              return NULL;
            }
          if (!plain.GetFile ().GetDataSet ().FindDataElement (gdcm::Tag (0x7fe0, 0x0010)))
            {
              set_error (error, HS_IMAGE_ERROR_FORMAT, name,
                         "DICOM file holds no image (no Pixel Data), e.g. a report or structure set");
              return NULL;
            }
          if (!decodable (plain.GetFile ().GetHeader ().GetDataSetTransferSyntax ()))
            set_error (error, HS_IMAGE_ERROR_FORMAT, name,
                       "unsupported DICOM transfer syntax " + transfer_syntax_text (plain.GetFile ()));
          else
            set_error (error, HS_IMAGE_ERROR_FORMAT, name,
                       "unsupported DICOM pixel layout (transfer syntax " +
                       transfer_syntax_text (plain.GetFile ()) + ")");
          return NULL;
        }

      const gdcm::File &file = reader.GetFile ();
      const gdcm::DataSet &ds = file.GetDataSet ();
      /* GDCM filters keep a counted reference to their input: hand them heap images. */
      gdcm::SmartPointer<gdcm::Image> held = new gdcm::Image (reader.GetImage ());
      gdcm::Image *image_ptr = held;
      guint columns = image_ptr->GetDimension (0);
      guint rows = image_ptr->GetDimension (1);
      guint frames = image_ptr->GetNumberOfDimensions () > 2 ? image_ptr->GetDimension (2) : 1;

      if (!hs_image_check_size (name, columns, rows, error))
        return NULL;

      gdcm::PhotometricInterpretation pi = held->GetPhotometricInterpretation ();
      if (pi == gdcm::PhotometricInterpretation::PALETTE_COLOR)
        {
          gdcm::ImageApplyLookupTable lut;
          lut.SetInput (*held);
          if (!lut.Apply ())
            {
              set_error (error, HS_IMAGE_ERROR_FORMAT, name, "cannot apply the DICOM palette");
              return NULL;
            }
          held = new gdcm::Image (lut.GetOutput ());
          pi = held->GetPhotometricInterpretation ();
        }
      if (held->GetPixelFormat ().GetSamplesPerPixel () == 3 && held->GetPlanarConfiguration () == 1)
        {
          gdcm::ImageChangePlanarConfiguration planar;
          planar.SetInput (*held);
          planar.SetPlanarConfiguration (0);
          if (!planar.Change ())
            {
              set_error (error, HS_IMAGE_ERROR_FORMAT, name, "cannot interleave the DICOM colour planes");
              return NULL;
            }
          held = new gdcm::Image (planar.GetOutput ());
        }
      const gdcm::Image &image = *held;

      const gdcm::PixelFormat &pf = image.GetPixelFormat ();
      guint spp = pf.GetSamplesPerPixel ();
      guint bits_allocated = pf.GetBitsAllocated ();
      guint bits_stored = pf.GetBitsStored ();
      guint high_bit = pf.GetHighBit ();
      bool is_signed = pf.GetPixelRepresentation () == 1;
      bool mono = pi == gdcm::PhotometricInterpretation::MONOCHROME1 ||
                  pi == gdcm::PhotometricInterpretation::MONOCHROME2;
      bool ybr = pi == gdcm::PhotometricInterpretation::YBR_FULL ||
                 pi == gdcm::PhotometricInterpretation::YBR_FULL_422;

      if ((bits_allocated != 8 && bits_allocated != 16) || bits_stored < 1 || bits_stored > bits_allocated ||
          high_bit + 1 < bits_stored || high_bit >= bits_allocated)
        {
          set_error (error, HS_IMAGE_ERROR_FORMAT, name,
                     "unsupported DICOM pixel format: " + std::to_string (bits_allocated) +
                     " bits allocated, " + std::to_string (bits_stored) + " stored (8 or 16 allocated are read)");
          return NULL;
        }
      if (!((spp == 1 && mono) || (spp == 3 && (pi == gdcm::PhotometricInterpretation::RGB || ybr))))
        {
          set_error (error, HS_IMAGE_ERROR_FORMAT, name,
                     std::string ("unsupported DICOM photometric interpretation ") +
                     (pi.GetString () != nullptr ? pi.GetString () : "?") + " with " +
                     std::to_string (spp) + " samples per pixel");
          return NULL;
        }

      unsigned long length = image.GetBufferLength ();
      if ((guint64) length > hs_limits_get ()->max_file_bytes)
        {
          g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE,
                       _("%s: decoded DICOM pixel data of %lu bytes is too large (limit %" PRIu64 " bytes)"),
                       name, length, hs_limits_get ()->max_file_bytes);
          return NULL;
        }
      /* The decoders' shared work budget: decoded bytes per input byte. */
      if (!hs_image_check_decode_ratio (name, length, len, error))
        return NULL;
      gsize frame_samples = (gsize) columns * rows * spp;
      gsize frame_bytes = frame_samples * (bits_allocated / 8);
      if (length < frame_bytes)
        {
          set_error (error, HS_IMAGE_ERROR_CORRUPT, name, "DICOM pixel data is shorter than one frame");
          return NULL;
        }
      if (pixel_data_cut (buffer, image.GetDataElement ()))
        {
          set_error (error, HS_IMAGE_ERROR_CORRUPT, name, "DICOM file is truncated (its Pixel Data runs past the end of the file)");
          return NULL;
        }
      std::vector<char> pixels (length);
      if (!image.GetBuffer (pixels.data ()))
        {
          if (!decodable (file.GetHeader ().GetDataSetTransferSyntax ()))
            set_error (error, HS_IMAGE_ERROR_FORMAT, name,
                       "unsupported DICOM transfer syntax " + transfer_syntax_text (file));
          else
            set_error (error, HS_IMAGE_ERROR_CORRUPT, name,
                       "damaged DICOM pixel data (transfer syntax " + transfer_syntax_text (file) + ")");
          return NULL;
        }

      HsImage *out = hs_image_new_named (name, columns, rows, spp, bits_stored <= 8 ? 8 : 16, error);
      if (out == NULL)
        return NULL;

      /* Samples: stored values shifted to start at 0, then MONOCHROME1 inverted. */
      gint32 lowest = is_signed ? -(gint32) (1u << (bits_stored - 1)) : 0;
      guint max_value = bits_stored >= 16 ? 65535u : (1u << bits_stored) - 1;
      bool invert = pi == gdcm::PhotometricInterpretation::MONOCHROME1;
      guint16 sample_min = G_MAXUINT16, sample_max = 0;
      for (gsize i = 0; i < frame_samples; i++)
        {
          gint32 v = stored_value (pixels.data (), i, bits_allocated, bits_stored, high_bit, is_signed);
          guint32 s = (guint32) (v - lowest);
          if (s > max_value)
            s = max_value;
          if (invert)
            s = max_value - s;
          out->data[i] = (guint16) s;
          if (s < sample_min)
            sample_min = (guint16) s;
          if (s > sample_max)
            sample_max = (guint16) s;
        }
      if (ybr && bits_allocated == 8)
        {
          /* YBR_FULL (uncompressed or left so by the codec) → RGB, PS3.3 C.7.6.3.1.2. */
          for (gsize i = 0; i < frame_samples; i += 3)
            {
              double y = out->data[i], cb = out->data[i + 1] - 128.0, cr = out->data[i + 2] - 128.0;
              double rgb[3] = { y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb };
              for (int c = 0; c < 3; c++)
                out->data[i + c] = (guint16) CLAMP (lround (rgb[c]), 0, 255);
            }
        }

      out->format = "DICOM";
      out->max_value = max_value;

      double slope = 1.0, intercept = 0.0;
      if (mono)
        {
          if (!get_number (ds, 0x0028, 0x1053, 0, &slope) || slope == 0.0)
            slope = 1.0;
          if (!get_number (ds, 0x0028, 0x1052, 0, &intercept))
            intercept = 0.0;
        }
      /* value = slope × stored + intercept, stored = sample + lowest (or max − sample + lowest). */
      if (invert)
        {
          out->value_slope = -slope;
          out->value_intercept = intercept + slope * ((double) lowest + max_value);
        }
      else
        {
          out->value_slope = slope;
          out->value_intercept = intercept + slope * lowest;
        }

      std::string modality = get_string (ds, 0x0008, 0x0060);
      std::string rescale_type = get_string (ds, 0x0028, 0x1054);
      if (mono && !rescale_type.empty () && rescale_type != "US")
        out->value_unit = g_strdup (rescale_type.c_str ());
      else if (mono && modality == "CT")
        out->value_unit = g_strdup ("HU");

      double center, width;
      if (mono && get_number (ds, 0x0028, 0x1050, 0, &center) && get_number (ds, 0x0028, 0x1051, 0, &width) &&
          width >= 1.0)
        out->has_file_window = TRUE;
      else if (mono && voi_lut_window (ds, &center, &width))
        out->has_file_window = TRUE;
      if (out->has_file_window)
        {
          out->has_window = TRUE;
          out->window_center = center;
          out->window_width = width;
        }
      else if (sample_min <= sample_max)
        {
          double a = hs_image_sample_to_value (out, sample_min);
          double b = hs_image_sample_to_value (out, sample_max);
          out->has_window = TRUE;
          out->window_center = (a + b) / 2.0;
          out->window_width = MAX (fabs (b - a), fabs (slope));
        }

      double row_mm, column_mm;
      if (get_number (ds, 0x0028, 0x0030, 0, &row_mm) && get_number (ds, 0x0028, 0x0030, 1, &column_mm) &&
          row_mm > 0 && column_mm > 0)
        out->has_spacing = TRUE;
      else if (get_number (ds, 0x0018, 0x1164, 0, &row_mm) && get_number (ds, 0x0018, 0x1164, 1, &column_mm) &&
               row_mm > 0 && column_mm > 0)
        out->has_spacing = out->spacing_at_detector = TRUE;
      if (out->has_spacing)
        {
          out->spacing_row = row_mm;
          out->spacing_column = column_mm;
        }

      if (frames > 1)
        out->note = g_strdup_printf ("multi-frame DICOM: frame 1 of %u shown", frames);
      return out;
    }
  catch (const std::bad_alloc &)
    {
      g_set_error (error, HS_IMAGE_ERROR, HS_IMAGE_ERROR_TOO_LARGE, _("%s: out of memory decoding DICOM"), name);
      return NULL;
    }
  catch (const std::exception &e)
    {
      set_error (error, HS_IMAGE_ERROR_CORRUPT, name, std::string ("corrupt DICOM: ") + e.what ());
      return NULL;
    }
}
