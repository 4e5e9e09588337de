/* hs-atomic-file.h — crash-safe file writes */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Writes to a temporary file beside `path`, fsyncs it, renames it over
 * `path` and fsyncs the folder: a reader sees the old or the new file, never
 * a mix, even when the process is killed mid-write.  (Inside a dataset
 * writer's staging folder, where the demo writer asks for it, a file is
 * written in place instead: nobody reads that folder before it is synced
 * whole and switched in — hs-atomic-file-private.h.) */
gboolean hs_atomic_write (const char *path, const void *data, gsize len, GError **error);

G_END_DECLS
