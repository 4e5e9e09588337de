/* hs-utils-private.h — small helpers shared by the app's widgets */
#pragma once

#include <heatscope/hs-image.h>

G_BEGIN_DECLS

/* Free functions for arrays whose elements may be NULL. */
static inline void
_hs_image_unref0 (gpointer image)
{
  if (image)
    hs_image_unref (image);
}

static inline void
_hs_ptr_array_unref0 (gpointer array)
{
  if (array)
    g_ptr_array_unref (array);
}

/* Replaces *field by a copy of value; FALSE when they were equal (g_set_str
 * is GLib 2.76). */
static inline gboolean
_hs_set_str (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

G_END_DECLS
