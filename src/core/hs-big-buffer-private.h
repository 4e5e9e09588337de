/* hs-big-buffer-private.h — buffers of many MB (decoded maps, file
 * contents, the scoring workspace) on transparent huge pages */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* `bytes` bytes, freed with g_free, or NULL when the memory is not there
 * (never aborts).  Buffers of 4 MB or more are aligned to 2 MB and advised
 * for transparent huge pages: a 2048² score first-touches ~100 MB, and in
 * 4 KB pages the ~25 000 page faults were a third of a whole `score`
 * process's CPU.  The contents are uninitialised. */
gpointer hs_big_buffer_try_alloc (gsize bytes);

G_END_DECLS
