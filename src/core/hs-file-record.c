/* hs-file-record.c — the size and SHA-256 of the files a manifest names,
 * recorded when the manifest is written and compared by the validator, so
 * that a dataset whose files changed afterwards (an image swapped, a map
 * rewritten, a copy cut short) is reported instead of shown as it is. */
#include "hs-dataset-private.h"
#include "hs-i18n-private.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean
hs_file_record_read_fd (int fd, const char *name, HsFileRecord *record, GError **error)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree guchar *buffer = g_malloc (1 << 20);
  guint64 offset = 0;
  gsize digest_len = sizeof record->sha256;

  g_return_val_if_fail (fd >= 0, FALSE);
  g_return_val_if_fail (record != NULL, FALSE);

  /* pread: the caller may have read from fd already (the validator probes
   * the image first) and keeps its offset. */
  for (;;)
    {
      ssize_t n = pread (fd, buffer, 1 << 20, (off_t) offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO, _("%s: cannot read: %s"),
                       name, g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        break;
      g_checksum_update (checksum, buffer, (gssize) n);
      offset += (guint64) n;
    }
  record->bytes = offset;
  g_checksum_get_digest (checksum, record->sha256, &digest_len);
  g_assert (digest_len == sizeof record->sha256);
  return TRUE;
}

void
hs_file_record_sha256_to_hex (const HsFileRecord *record, char hex[65])
{
  static const char digits[] = "0123456789abcdef";

  for (guint i = 0; i < 32; i++)
    {
      hex[2 * i] = digits[record->sha256[i] >> 4];
      hex[2 * i + 1] = digits[record->sha256[i] & 15];
    }
  hex[64] = '\0';
}

static int
lower_hex_digit (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

gboolean
hs_file_record_sha256_from_hex (HsFileRecord *record, const char *hex)
{
  if (strlen (hex) != 64)
    return FALSE;
  for (guint i = 0; i < 32; i++)
    {
      int high = lower_hex_digit (hex[2 * i]);
      int low = lower_hex_digit (hex[2 * i + 1]);

      if (high < 0 || low < 0)
        return FALSE;
      record->sha256[i] = (guint8) (high << 4 | low);
    }
  return TRUE;
}

/* Records `relative` into *record unless recorded already.  Best effort: a
 * file that is missing, not a regular file, outside the folder or
 * unreadable stays unrecorded; saving the manifest does not fail for it, and
 * the validator reports it anyway. */
static void
record_file (HsDataset *dataset, const char *relative, HsFileRecord **record)
{
  g_autofree char *resolved = NULL;
  HsFileRecord computed;
  struct stat st;
  gboolean ok;
  int fd;

  if (relative == NULL || *record != NULL)
    return;
  fd = hs_dataset_open_file (dataset, relative, &resolved, NULL);
  if (fd < 0)
    return;
  ok = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) &&
       hs_file_record_read_fd (fd, resolved, &computed, NULL);
  close (fd);
  if (ok)
    *record = g_memdup2 (&computed, sizeof computed);
}

void
hs_dataset_record_files (HsDataset *dataset)
{
  g_return_if_fail (dataset != NULL);

  for (guint i = 0, n = hs_dataset_get_n_instances (dataset); i < n; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      record_file (dataset, instance->image, &instance->image_record);
      for (guint k = 0; k < instance->regions->len; k++)
        {
          HsRegion *region = g_ptr_array_index (instance->regions, k);

          record_file (dataset, region->mask, &region->mask_record);
        }
      for (guint k = 0; k < instance->maps->len; k++)
        {
          HsMapRef *ref = g_ptr_array_index (instance->maps, k);

          record_file (dataset, ref->file, &ref->file_record);
        }
    }
}
