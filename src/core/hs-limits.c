/* hs-limits.c — resource limits applied before allocating for untrusted input */
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
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

/* The environment variable of each limit, in the order of HsLimits. */
static const struct {
  const char *name;
  gsize       offset;
} env_limits[] = {
  { "HEATSCOPE_MAX_PIXELS",           G_STRUCT_OFFSET (HsLimits, max_image_pixels) },
  { "HEATSCOPE_MAX_FILE_BYTES",       G_STRUCT_OFFSET (HsLimits, max_file_bytes) },
  { "HEATSCOPE_MAX_GRID_CELLS",       G_STRUCT_OFFSET (HsLimits, max_grid_cells) },
  { "HEATSCOPE_MAX_TOKENS",           G_STRUCT_OFFSET (HsLimits, max_tokens) },
  { "HEATSCOPE_MAX_MANIFEST_BYTES",   G_STRUCT_OFFSET (HsLimits, max_manifest_bytes) },
  { "HEATSCOPE_MAX_INFLATED_BYTES",   G_STRUCT_OFFSET (HsLimits, max_inflated_bytes) },
  { "HEATSCOPE_MAX_DECODE_RATIO",     G_STRUCT_OFFSET (HsLimits, max_decode_ratio) },
  { "HEATSCOPE_MAX_JPEG_SCANS",       G_STRUCT_OFFSET (HsLimits, max_jpeg_scans) },
};

#define LIMIT_AT(limits, i) ((guint64 *) ((guint8 *) (limits) + env_limits[i].offset))

G_DEFINE_QUARK (hs-limits-error-quark, hs_limits_error)

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
      for (gsize i = 0; i < G_N_ELEMENTS (env_limits); i++)
        override_from_env (LIMIT_AT (&current_limits, i), env_limits[i].name);
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

const char *
hs_limits_env_name (guint index)
{
  return index < G_N_ELEMENTS (env_limits) ? env_limits[index].name : NULL;
}

gboolean
hs_limits_check_environment (GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (env_limits); i++)
    {
      const char *text = g_getenv (env_limits[i].name);
      guint64 parsed;

      if (text == NULL)
        continue;
      if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT64, &parsed, NULL))
        {
          g_autofree char *shown = g_strescape (text, NULL);

          g_set_error (error, HS_LIMITS_ERROR, HS_LIMITS_ERROR_BAD_VALUE,
                       _("%s=\"%s\" is not a whole number from 1 to %" PRIu64 " (unset it for the default, %" PRIu64 ")"),
                       env_limits[i].name, shown, G_MAXUINT64, *LIMIT_AT (&default_limits, i));
          return FALSE;
        }
    }
  return TRUE;
}
