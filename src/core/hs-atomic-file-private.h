/* hs-atomic-file-private.h — staged writes for the dataset writers */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Between these two calls, hs_atomic_write on this thread writes a file
 * below `root` — a dataset writer's staging folder, which nobody reads
 * before hs_dataset_writer_commit syncs it whole (syncfs) and switches it
 * in — straight to its name, with no temporary file, fsync or rename: a
 * kill leaves a part-written file only in a folder the next writer
 * removes.  Any other path keeps the full atomic write.  Not nested. */
void hs_atomic_write_staged_begin (const char *root);
void hs_atomic_write_staged_end   (void);

G_END_DECLS
