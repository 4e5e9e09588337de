/* hs-dataset-writer.h — one locked, staged writer for dataset folders */
#pragma once

#include <glib.h>
#include "hs-dataset.h"

G_BEGIN_DECLS

/* Every writer of a dataset folder goes through here: `import`, `demo`,
 * heatscope.Dataset (Python), and hs_dataset_save (the app's linked
 * regions, `npy-folder` maps).  Two promises (docs/reliability.md):
 *
 * One writer at a time.  A writer holds an exclusive flock(2) on the lock
 * file ".NAME.lock" beside the dataset folder NAME (beside, not inside: the
 * folder itself is replaced).  A second writer fails at once with
 * HS_DATASET_ERROR_LOCKED ("… is locked by another writer").  The kernel
 * drops the lock when its holder dies, so a killed writer never blocks the
 * next one; the lock file is removed on release.
 *
 * Old or new, never a mix.  A whole new dataset is built in a staging
 * folder ".NAME.staging-XXXXXX" beside the target and switched in with one
 * rename (an atomic exchange with the old folder when there is one; on a
 * file system without exchange, the old folder is renamed aside to
 * ".NAME.old-XXXXXX" first, and the next writer puts it back if a kill
 * came between the two renames).  Files and folders are fsynced before the
 * switch and the parent folder after it.  The next writer of NAME removes
 * what a killed one left (its staging and old folders).
 *
 * The target itself must not be a symbolic link (refused: the writer would
 * replace the link, not the folder it names); symbolic links among its
 * parent folders are followed once, when the writer begins.  Nothing is
 * ever written inside the old folder, so a symlink planted there is never
 * written through. */

typedef struct _HsDatasetLock HsDatasetLock;

/* Takes the lock of the dataset folder `dataset_dir` (which need not exist
 * yet); HS_DATASET_ERROR_LOCKED when another writer holds it. */
HsDatasetLock   *hs_dataset_lock_acquire   (const char *dataset_dir, GError **error);
/* The same, but waits while another writer holds the lock (for writers
 * that merge into the dataset in place and can let others finish first:
 * shards of `heatscope-cli attend`).  Blocks until the lock is free. */
HsDatasetLock   *hs_dataset_lock_acquire_wait (const char *dataset_dir, GError **error);
/* Removes the lock file and drops the lock.  NULL is ignored. */
void             hs_dataset_lock_release   (HsDatasetLock *lock);

/* A manifest-only update: writes `dataset`'s manifest (atomically, as
 * hs_dataset_save does) while the caller holds `lock`, which must be the
 * lock of the dataset's folder.  For a writer that adds files to a dataset
 * in place (maps into a new file name) and then its manifest: take the
 * lock, write the files, save with it, release.  hs_dataset_save is this
 * with a lock of its own. */
gboolean         hs_dataset_save_locked    (HsDataset *dataset, HsDatasetLock *lock,
                                            GError **error);

typedef enum {
  HS_DATASET_WRITE_CREATE  = 0,       /* the target must be absent or an empty folder */
  HS_DATASET_WRITE_REPLACE = 1 << 0,  /* ... or a dataset (a folder with heatscope.json) */
} HsDatasetWriteFlags;

typedef struct _HsDatasetWriter HsDatasetWriter;

/* Locks `target`, removes what killed writers of it left, checks that it
 * may be written (HS_DATASET_ERROR_EXISTS for a dataset without
 * HS_DATASET_WRITE_REPLACE and for a folder with other files, whatever the
 * flags; HS_DATASET_ERROR_PATH for a symlink or a file) and creates the
 * empty staging folder. */
HsDatasetWriter *hs_dataset_writer_begin   (const char *target, HsDatasetWriteFlags flags,
                                            GError **error);
/* The staging folder (absolute): build the dataset there, with
 * hs_dataset_new (staging, name). */
const char      *hs_dataset_writer_get_staging (HsDatasetWriter *writer);
/* Writes `dataset`'s manifest into the staging folder now, for a caller
 * that checks the staged dataset (hs_dataset_validate) before committing;
 * the commit writes it again (the same bytes unless the dataset changed). */
gboolean         hs_dataset_writer_save_manifest (HsDatasetWriter *writer, HsDataset *dataset,
                                                  GError **error);
/* Saves `dataset` (rooted at the staging folder) into it, fsyncs every file
 * and folder, switches the staging folder in, fsyncs the parent, removes
 * the old dataset and releases the lock.  On success `dataset` is rooted at
 * the target.  Once called (whatever the result) only free is left. */
gboolean         hs_dataset_writer_commit  (HsDatasetWriter *writer, HsDataset *dataset,
                                            GError **error);
/* Without a successful commit: removes the staging folder (the target stays
 * as it was) and releases the lock. */
void             hs_dataset_writer_free    (HsDatasetWriter *writer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsDatasetWriter, hs_dataset_writer_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsDatasetLock, hs_dataset_lock_release)

G_END_DECLS
