/* hs-limits.c — resource limits applied before allocating for untrusted input */
#include "hs-limits.h"

#include <stdlib.h>

static const HsLimits default_limits = {
  .max_image_pixels   = G_GUINT64_CONSTANT (100000000),
  .max_file_bytes     = G_GUINT64_CONSTANT (1) << 30,
  .max_grid_cells     = G_GUINT64_CONSTANT (16777216),
  .max_tokens         = 4096,
  .max_manifest_bytes = G_GUINT64_CONSTANT (512) << 20,
  .max_inflated_bytes = G_GUINT64_CONSTANT (1) << 30,
  .max_decode_ratio   = 256,
  .max_jpeg_scans     = 64,
};

static HsLimits current_limits;
static gsize limits_initialized;
G_LOCK_DEFINE_STATIC (limits);

static void
override_from_env (guint64 *value, const char *name)
{
  const char *text = g_getenv (name);
  guint64 parsed;

  if (text != NULL && g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT64, &parsed, NULL))
    *value = parsed;
}

static void
ensure_initialized (void)
{
  if (g_once_init_enter (&limits_initialized))
    {
      current_limits = default_limits;
      override_from_env (&current_limits.max_image_pixels, "HEATSCOPE_MAX_PIXELS");
      override_from_env (&current_limits.max_file_bytes, "HEATSCOPE_MAX_FILE_BYTES");
      override_from_env (&current_limits.max_grid_cells, "HEATSCOPE_MAX_GRID_CELLS");
      override_from_env (&current_limits.max_tokens, "HEATSCOPE_MAX_TOKENS");
      override_from_env (&current_limits.max_manifest_bytes, "HEATSCOPE_MAX_MANIFEST_BYTES");
      override_from_env (&current_limits.max_inflated_bytes, "HEATSCOPE_MAX_INFLATED_BYTES");
      override_from_env (&current_limits.max_decode_ratio, "HEATSCOPE_MAX_DECODE_RATIO");
      override_from_env (&current_limits.max_jpeg_scans, "HEATSCOPE_MAX_JPEG_SCANS");
      g_once_init_leave (&limits_initialized, 1);
    }
}

const HsLimits *
hs_limits_get (void)
{
  ensure_initialized ();
  return &current_limits;
}

void
hs_limits_set (const HsLimits *limits)
{
  g_return_if_fail (limits != NULL);

  ensure_initialized ();
  G_LOCK (limits);
  current_limits = *limits;
  G_UNLOCK (limits);
}

void
hs_limits_reset (void)
{
  ensure_initialized ();
  G_LOCK (limits);
  current_limits = default_limits;
  G_UNLOCK (limits);
}
