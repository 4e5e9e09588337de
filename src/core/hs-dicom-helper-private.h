/* hs-dicom-helper-private.h — libheatscope ↔ heatscope-dicom-helper
 *
 * GDCM decodes DICOM in a short-lived helper process (src/libexec/), never in
 * the caller's: GDCM is built with its assert()s, and a crafted file that
 * trips one aborts the process that decodes it.  The structural walk
 * (hs-dicom-walk.c) refuses what is known to trip them, but it cannot see
 * every check GDCM makes on the content; a helper that aborts costs one file
 * a one-line error instead of costing the CLI, the app or Python its life.
 *
 * A helper serves one request after another on a socket (its standard
 * input): each request is a byte with two descriptors, a memfd holding a
 * HsDicomRequest, the file's name and its bytes, and an empty memfd for the
 * reply (a HsDicomReply, the message or the image's strings, then the
 * samples); the helper answers "D" when the reply is written.  Both ends are
 * built from the same sources, so the structures travel as they are;
 * `version` refuses a helper of another build. */
#pragma once

#include "hs-image-private.h"
#include "hs-limits.h"

#include <glib.h>

G_BEGIN_DECLS

#define HS_DICOM_HELPER_MAGIC   0x4d434448u /* "HDCM" */
#define HS_DICOM_HELPER_VERSION 2u

typedef enum
{
  HS_DICOM_HELPER_DECODE = 1,   /* the whole file: frame 1's samples     */
  HS_DICOM_HELPER_PROBE  = 2,   /* a prefix (or all): width, height, modality */
} HsDicomHelperMode;

typedef struct
{
  guint32  magic;
  guint32  version;
  guint32  mode;          /* HsDicomHelperMode                          */
  guint32  name_len;      /* bytes of the name that follows (no NUL)    */
  guint64  data_len;      /* bytes of the file (or prefix) that follow  */
  guint64  file_len;      /* the whole file's size (probe of a prefix)  */
  HsLimits limits;        /* the caller's limits, not the environment's */
  char     messages_locale[64]; /* the caller's LC_MESSAGES: the same language */
} HsDicomRequest;

typedef struct
{
  guint32 magic;
  guint32 version;
  guint32 ok;             /* 1: image (or size); 0: error             */
  guint32 error_code;     /* HsImageError when !ok                     */
  guint32 need_more;      /* probe: the prefix ends inside the header  */
  guint32 message_len;    /* !ok: the error message (UTF-8, no NUL)    */
  guint32 format_dicom;   /* format = "DICOM"                          */
  guint32 unit_len, note_len;
  char    modality[HS_IMAGE_MODALITY_BYTES]; /* probe: Modality (0008,0060), NUL-terminated */
  /* The decoded image as the helper holds it: sizes, value mapping,
   * window, spacing (its pointers mean nothing here). */
  struct _HsImage image;
  /* then message, or unit and note, then width × height × channels guint16 */
} HsDicomReply;

/* write() until all of it is written (EINTR retried). */
gboolean  hs_dicom_write_all  (int fd, const void *data, gsize len);

/* GDCM's side (hs-image-dicom.cc), linked into the helper only: the
 * decoder and the header probe of hs-image-private.h's DICOM entry points,
 * which in libheatscope run these in the helper. */
HsImage  *hs_dicom_gdcm_load  (const guint8 *data, gsize len, const char *name, GError **error);
gboolean  hs_dicom_gdcm_probe (const guint8 *head, gsize len, gsize file_len, const char *name,
                               guint *width, guint *height, char *modality, gboolean *need_more,
                               GError **error);

G_END_DECLS
