/* heatscope-dicom-helper — decodes DICOM files with GDCM for libheatscope
 *
 * Started by hs-dicom-client.c, never by a person.  It serves requests on
 * its standard input, a socket (hs-dicom-helper-private.h): each brings a
 * memfd with the request (the caller's limits and language, the file's name
 * and bytes) and a memfd for the reply; "D" says the reply is written.  It
 * ends when the socket closes.  GDCM may abort on a crafted file (its
 * assert()s are built in): then this process ends, and the program that
 * asked reports that file instead of ending with it.  Exit status: 0 the
 * caller closed the socket, 2 a request was not one of this version. */
#include "hs-dicom-helper-private.h"
#include "hs-image-private.h"

#include <errno.h>
#include <locale.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static gboolean
reply_error (int fd, HsDicomReply *reply, const GError *error, gboolean need_more)
{
  reply->ok = 0;
  reply->error_code = (guint32) error->code;
  reply->need_more = need_more;
  reply->message_len = (guint32) strlen (error->message);
  return hs_dicom_write_all (fd, reply, sizeof *reply) && hs_dicom_write_all (fd, error->message, reply->message_len);
}

static gboolean
reply_image (int fd, HsDicomReply *reply, const HsImage *image)
{
  const char *unit = image->value_unit != NULL ? image->value_unit : "";
  const char *note = image->note != NULL ? image->note : "";

  reply->ok = 1;
  reply->image = *image;
  reply->format_dicom = image->format != NULL;
  reply->unit_len = (guint32) strlen (unit);
  reply->note_len = (guint32) strlen (note);
  return hs_dicom_write_all (fd, reply, sizeof *reply) && hs_dicom_write_all (fd, unit, reply->unit_len) &&
         hs_dicom_write_all (fd, note, reply->note_len) &&
         hs_dicom_write_all (fd, image->data, (gsize) image->width * image->height * image->channels * sizeof (guint16));
}

/* One request: the reply written to out_fd; FALSE when it is not a request. */
static gboolean
serve (int in_fd, int out_fd)
{
  HsDicomRequest request;
  HsDicomReply reply = { HS_DICOM_HELPER_MAGIC, HS_DICOM_HELPER_VERSION };
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  const guint8 *data;
  struct stat st;
  gboolean written;
  void *map;

  if (fstat (in_fd, &st) != 0 || (guint64) st.st_size < sizeof request)
    return FALSE;
  map = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, in_fd, 0);
  if (map == MAP_FAILED)
    return FALSE;
  memcpy (&request, map, sizeof request);
  if (request.magic != HS_DICOM_HELPER_MAGIC || request.version != HS_DICOM_HELPER_VERSION ||
      (request.mode != HS_DICOM_HELPER_DECODE && request.mode != HS_DICOM_HELPER_PROBE) ||
      request.name_len > (guint64) st.st_size - sizeof request ||
      request.data_len != (guint64) st.st_size - sizeof request - request.name_len ||
      request.file_len < request.data_len)
    {
      munmap (map, (size_t) st.st_size);
      return FALSE;
    }
  request.messages_locale[sizeof request.messages_locale - 1] = '\0';
  /* The caller's language, whatever the environment says. */
  setlocale (LC_MESSAGES, request.messages_locale);
  hs_limits_set (&request.limits);
  name = g_strndup ((const char *) map + sizeof request, request.name_len);
  data = (const guint8 *) map + sizeof request + request.name_len;

  if (request.mode == HS_DICOM_HELPER_DECODE)
    {
      HsImage *image = hs_dicom_gdcm_load (data, (gsize) request.data_len, name, &error);

      written = image != NULL ? reply_image (out_fd, &reply, image) : reply_error (out_fd, &reply, error, FALSE);
      if (image != NULL)
        hs_image_unref (image);
    }
  else
    {
      gboolean need_more = FALSE;
      guint width = 0, height = 0;

      if (hs_dicom_gdcm_probe (data, (gsize) request.data_len, (gsize) request.file_len, name, &width, &height,
                               reply.modality, &need_more, &error))
        {
          reply.ok = 1;
          reply.image.width = width;
          reply.image.height = height;
          written = hs_dicom_write_all (out_fd, &reply, sizeof reply);
        }
      else
        written = reply_error (out_fd, &reply, error, need_more);
    }
  munmap (map, (size_t) st.st_size);
  return written;
}

int
main (int argc, char **argv)
{
  setlocale (LC_CTYPE, "");
  for (;;)
    {
      char byte = 0;
      char control[CMSG_SPACE (2 * sizeof (int))];
      struct iovec iov = { &byte, 1 };
      struct msghdr message = { 0 };
      struct cmsghdr *cmsg;
      int fds[2];
      ssize_t n;
      gboolean ok;

      message.msg_iov = &iov;
      message.msg_iovlen = 1;
      message.msg_control = control;
      message.msg_controllen = sizeof control;
      do
        n = recvmsg (STDIN_FILENO, &message, MSG_CMSG_CLOEXEC);
      while (n < 0 && errno == EINTR);
      if (n == 0)
        return 0;
      cmsg = CMSG_FIRSTHDR (&message);
      if (n != 1 || byte != 'R' || cmsg == NULL || cmsg->cmsg_type != SCM_RIGHTS ||
          cmsg->cmsg_len != CMSG_LEN (2 * sizeof (int)))
        {
          g_printerr ("heatscope-dicom-helper: runs for libheatscope only (no request on standard input)\n");
          return 2;
        }
      memcpy (fds, CMSG_DATA (cmsg), sizeof fds);
      ok = serve (fds[0], fds[1]);
      close (fds[0]);
      close (fds[1]);
      if (!ok)
        {
          g_printerr ("heatscope-dicom-helper: a request that is not one of this version\n");
          return 2;
        }
      byte = 'D';
      if (send (STDIN_FILENO, &byte, 1, MSG_NOSIGNAL) != 1)
        return 0;
    }
}
