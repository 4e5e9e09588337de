/* hs-dataset-validate.c — the file checks behind hs_dataset_validate
 *
 * hs_dataset_validate (in hs-manifest-reader.c) walks the manifest in
 * collecting mode; these hooks run as each image, region and map is read,
 * so every problem carries the JSON path of the element it belongs to. */
#include "hs-dataset-private.h"

#include <inttypes.h>
#include "hs-attention-map.h"
#include "hs-image.h"
#include "hs-target.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROBLEM(reader, path, ...) \
  hs_manifest_reader_problem ((reader), NULL, (path), HS_DATASET_ERROR_INVALID, __VA_ARGS__)

/* Library errors start with the file name, which the problem already names. */
static const char *
without_file_prefix (const char *message, const char *file)
{
  gsize n = strlen (file);

  if (strncmp (message, file, n) == 0 && message[n] == ':' && message[n + 1] == ' ')
    return message + n + 2;
  return message;
}

/* Opens a manifest path (hs_dataset_open_file: never out of the folder) and
 * reports when it is missing or not a regular file; the checks below read
 * the descriptor returned, so the file checked is the file read.  Returns
 * -1 after reporting. */
static int
open_existing (HsManifestReader *r, const char *relative, const HsJsonPath *path,
               const char *what, char **file)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *resolved = hs_dataset_resolve_path (r->dataset, relative, &error);
  int fd;

  if (resolved == NULL)
    {
      /* The message already names the manifest; keep only the reason. */
      hs_manifest_reader_problem (r, NULL, path, HS_DATASET_ERROR_PATH, "%s",
                                  without_file_prefix (error->message, r->manifest));
      return -1;
    }
  if (!g_file_test (resolved, G_FILE_TEST_EXISTS))
    {
      /* TRANSLATORS: %s is "image", "mask" or "map" (translated), then the path */
      PROBLEM (r, path, _("%s file \"%s\" does not exist"), _(what), relative);
      return -1;
    }
  if (!g_file_test (resolved, G_FILE_TEST_IS_REGULAR))
    {
      PROBLEM (r, path, _("%s \"%s\" is not a regular file"), _(what), relative);
      return -1;
    }
  fd = hs_dataset_open_file (r->dataset, relative, file, &error);
  if (fd < 0)
    {
      hs_manifest_reader_problem (r, NULL, path, error->code, "%s \"%s\": %s", _(what), relative,
                                  without_file_prefix (error->message, resolved));
      return -1;
    }
  return fd;
}

/* The manifest recorded the file's size and SHA-256 when it was written
 * (HsFileRecord): a file that differs changed afterwards.  `path` is the
 * path member's; the record's members sit beside it.  The size is compared
 * first, so a file of another size is not hashed. */
static void
check_record (HsManifestReader *r, int fd, const char *file, const HsFileRecord *record,
              const HsJsonPath *path, const char *bytes_key, const char *sha256_key)
{
  HsJsonPath bytes_path = { path->parent, bytes_key, 0 };
  HsJsonPath sha256_path = { path->parent, sha256_key, 0 };
  g_autoptr(GError) error = NULL;
  HsFileRecord now;
  struct stat st;

  if (record == NULL || r->stop)
    return;
  if (fstat (fd, &st) == 0 && (guint64) st.st_size != record->bytes)
    {
      hs_manifest_reader_problem (r, file, &bytes_path, HS_DATASET_ERROR_INVALID,
                                  _("the file has %" PRIu64 " bytes, the manifest recorded %" PRIu64 ": it changed after the manifest was written"),
                                  (guint64) st.st_size, record->bytes);
      return;
    }
  if (!hs_file_record_read_fd (fd, file, &now, &error))
    {
      hs_manifest_reader_problem (r, file, &sha256_path, HS_DATASET_ERROR_IO, "%s",
                                  without_file_prefix (error->message, file));
      return;
    }
  if (now.bytes != record->bytes || memcmp (now.sha256, record->sha256, sizeof now.sha256) != 0)
    {
      char now_hex[65], recorded_hex[65];

      hs_file_record_sha256_to_hex (&now, now_hex);
      hs_file_record_sha256_to_hex (record, recorded_hex);
      hs_manifest_reader_problem (r, file, &sha256_path, HS_DATASET_ERROR_INVALID,
                                  _("the file's SHA-256 is %s, the manifest recorded %s: it changed "
                                  "after the manifest was written"), now_hex, recorded_hex);
    }
}

void
hs_validate_check_image (HsManifestReader *r, HsInstance *instance, const HsJsonPath *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *file = NULL;
  int fd = open_existing (r, instance->image, path, N_("image"), &file);
  guint width = 0, height = 0;
  gboolean probed;

  if (fd < 0)
    return;
  check_record (r, fd, file, instance->image_record, path, "image_bytes", "image_sha256");
  probed = hs_image_probe_fd (fd, file, &width, &height, &error);
  close (fd);
  if (!probed)
    {
      hs_manifest_reader_problem (r, file, path, HS_DATASET_ERROR_INVALID,
                                  _("not a readable image: %s"),
                                  without_file_prefix (error->message, file));
      return;
    }
  if (instance->width > 0 && (instance->width != width || instance->height != height))
    PROBLEM (r, path, _("the manifest says %u × %u but the image is %u × %u"),
             instance->width, instance->height, width, height);
  r->image_width = width;
  r->image_height = height;
}

/* The manifest's extent must be the mask's real one: subsets trust it
 * without decoding the mask. */
static void
check_extent (HsManifestReader *r, HsRegion *region, const char *file, const HsJsonPath *path,
              guint width, guint height)
{
  HsJsonPath extent_path = { path, "extent", 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) mask = hs_dataset_load_mask (r->dataset, region, &error);
  const HsBox *stated = &region->extent;
  HsBox real;
  double tolerance;

  if (mask == NULL)
    {
      hs_manifest_reader_problem (r, file, &extent_path, HS_DATASET_ERROR_INVALID,
                                  _("cannot check the extent: %s"),
                                  without_file_prefix (error->message, file));
      return;
    }
  hs_dataset_scan_mask_extent (mask, &real);
  if (width > 0 && height > 0)
    hs_dataset_scale_mask_box (&real, hs_image_get_width (mask), hs_image_get_height (mask),
                               width, height);
  /* A scaled extent is fractional; writers print 17 significant digits. */
  tolerance = 1e-6 * MAX (1.0, MAX (width, height));
  if (fabs (stated->x1 - real.x1) > tolerance || fabs (stated->y1 - real.y1) > tolerance ||
      fabs (stated->x2 - real.x2) > tolerance || fabs (stated->y2 - real.y2) > tolerance)
    PROBLEM (r, &extent_path, _("extent [%g, %g, %g, %g] differs from the mask's non-zero pixels "
             "[%g, %g, %g, %g] (mask \"%s\")"), stated->x1, stated->y1, stated->x2, stated->y2,
             real.x1, real.y1, real.x2, real.y2, region->mask);
}

void
hs_validate_check_region (HsManifestReader *r, HsInstance *instance, HsRegion *region,
                          const HsJsonPath *path)
{
  guint width = r->image_width ? r->image_width : instance->width;
  guint height = r->image_height ? r->image_height : instance->height;
  HsJsonPath boxes_path = { path, "boxes", 0 };

  for (guint i = 0; i < region->boxes->len && !r->stop; i++)
    {
      const HsBox *box = &g_array_index (region->boxes, HsBox, i);
      HsJsonPath box_path = { &boxes_path, NULL, i };

      g_autoptr(GError) error = NULL;

      /* The one box check (hs-target.h): score, metrics and the app make it too. */
      if (!hs_box_check (box, width, height, &error))
        PROBLEM (r, &box_path, "%s", error->message);
    }

  if (region->mask != NULL && !r->stop)
    {
      HsJsonPath mask_path = { path, "mask", 0 };
      g_autoptr(GError) error = NULL;
      g_autofree char *file = NULL;
      int fd = open_existing (r, region->mask, &mask_path, N_("mask"), &file);
      guint mask_width, mask_height;
      gboolean probed;

      if (fd < 0)
        return;
      check_record (r, fd, file, region->mask_record, &mask_path, "mask_bytes", "mask_sha256");
      probed = hs_image_probe_fd (fd, file, &mask_width, &mask_height, &error);
      close (fd);
      if (!probed)
        {
          hs_manifest_reader_problem (r, file, &mask_path, HS_DATASET_ERROR_INVALID,
                                      _("not a readable mask image: %s"),
                                      without_file_prefix (error->message, file));
          return;
        }
      if (region->has_extent && !r->stop)
        check_extent (r, region, file, path, width, height);
    }
}

void
hs_validate_check_map (HsManifestReader *r, HsInstance *instance, HsMapRef *ref,
                       const HsJsonPath *path)
{
  HsJsonPath file_path = { path, "file", 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autofree char *file = NULL;
  int fd;

  if (isfinite (ref->no_attn) && (ref->no_attn < 0 || ref->no_attn > 1))
    {
      HsJsonPath no_attn_path = { path, "no_attn", 0 };
      PROBLEM (r, &no_attn_path, _("no_attn %g is not an attention share in [0, 1]"), ref->no_attn);
    }

  if (r->stop)
    return;
  fd = open_existing (r, ref->file, &file_path, N_("map"), &file);
  if (fd < 0)
    return;
  check_record (r, fd, file, ref->file_record, &file_path, "file_bytes", "file_sha256");
  map = hs_attention_map_load_npy_fd (fd, file, (const char * const *) ref->tokens,
                                      ref->no_attn, &error);
  close (fd);
  if (map == NULL)
    {
      hs_manifest_reader_problem (r, file, &file_path, HS_DATASET_ERROR_INVALID, "%s",
                                  without_file_prefix (error->message, file));
      return;
    }
  if (ref->tokens != NULL && hs_attention_map_get_n_tokens (map) != g_strv_length (ref->tokens))
    {
      HsJsonPath tokens_path = { path, "tokens", 0 };
      hs_manifest_reader_problem (r, file, &tokens_path, HS_DATASET_ERROR_INVALID,
                                  _("%u tokens listed but the map has %u per-token maps "
                                  "(shape [tokens, h, w] expected)"),
                                  g_strv_length (ref->tokens), hs_attention_map_get_n_tokens (map));
    }
}
