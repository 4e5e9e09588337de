/* hs-dataset-writer.c — one locked, staged writer for dataset folders
 *
 * Everything is done relative to a descriptor of the target's parent
 * folder, opened once: the lock file, the staging and old folders, the
 * renames and their removal.  A kill at any point leaves the old dataset
 * or the new one under the target's name (the kill tests stop the writer
 * at each phase, hs-stop-point.h), plus leftovers with names nobody reads,
 * which the next writer of that name removes while it holds the lock. */
#define _GNU_SOURCE   /* renameat2 */
#include "hs-dataset-writer.h"
#include "hs-dataset-private.h"
#include "hs-i18n-private.h"
#include "hs-stop-point.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct _HsDatasetLock {
  char *target;      /* PARENT/NAME, absolute, PARENT's symlinks resolved */
  char *parent;
  char *name;
  char *lock_name;   /* ".NAME.lock" */
  int   parent_fd;
  int   fd;          /* holds the flock */
};

struct _HsDatasetWriter {
  HsDatasetLock *lock;
  char          *staging_name;   /* ".NAME.staging-XXXXXX" */
  char          *staging;        /* PARENT/staging_name */
  int            staging_fd;     /* the staging folder, opened when made */
  gboolean       done;           /* committed (or the commit failed past the switch) */
};

static gboolean
fail_errno (GError **error, HsDatasetError code, const char *path, const char *what, int saved)
{
  g_set_error (error, HS_DATASET_ERROR, code, _("%s: cannot %s: %s"), path, what,
               g_strerror (saved));
  return FALSE;
}

/* ---- removing and syncing trees (never following a symlink) --------------- */

/* Removes PARENT_FD/NAME and everything below it; a symlink is removed,
 * never followed.  Best effort: what cannot be removed stays (the next
 * writer tries again). */
static void
remove_tree_at (int parent_fd, const char *name, guint depth)
{
  int fd = openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *dir;
  struct dirent *entry;

  if (fd < 0)
    {
      (void) unlinkat (parent_fd, name, 0);
      return;
    }
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      close (fd);
      return;
    }
  /* Entries removed while reading are not read again; a second pass picks
   * up any readdir skipped. */
  for (guint pass = 0; pass < 2; pass++)
    {
      rewinddir (dir);
      while ((entry = readdir (dir)) != NULL)
        {
          if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
            continue;
          if ((entry->d_type == DT_DIR || entry->d_type == DT_UNKNOWN) && depth < 64)
            remove_tree_at (dirfd (dir), entry->d_name, depth + 1);
          else
            (void) unlinkat (dirfd (dir), entry->d_name, 0);
        }
    }
  closedir (dir);
  (void) unlinkat (parent_fd, name, AT_REMOVEDIR);
}

/* Syncs the file system holding the staging folder (syncfs: every file and
 * folder written into it, in one pass, instead of an fsync per file).
 * STAGING_FD was opened when the folder was made, so a write-back error of
 * any of its files since then is reported here (Linux ≥ 5.8). */
static gboolean
sync_staging (int staging_fd, const char *path, GError **error)
{
  if (syncfs (staging_fd) != 0)
    return fail_errno (error, HS_DATASET_ERROR_IO, path, _("sync"), errno);
  return TRUE;
}

/* ---- the lock -------------------------------------------------------------- */

static void
lock_free (HsDatasetLock *lock)
{
  if (lock->fd >= 0)
    close (lock->fd);
  if (lock->parent_fd >= 0)
    close (lock->parent_fd);
  g_free (lock->target);
  g_free (lock->parent);
  g_free (lock->name);
  g_free (lock->lock_name);
  g_free (lock);
}

/* PARENT (real path) and NAME of `dir`, given lexically. */
static gboolean
split_target (const char *dir, char **parent, char **name, GError **error)
{
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *absolute = g_canonicalize_filename (dir, cwd);
  g_autofree char *lexical_parent = g_path_get_dirname (absolute);
  g_autofree char *base = g_path_get_basename (absolute);
  char *real;

  if (strcmp (absolute, "/") == 0 || strcmp (base, ".") == 0 || strcmp (base, "..") == 0)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH,
                   _("%s: not a folder name a dataset can be written to"), dir);
      return FALSE;
    }
  /* Symlinks among the parents are the user's (followed once, here); the
   * last component is what gets replaced and is never followed. */
  if (g_mkdir_with_parents (lexical_parent, 0755) != 0)
    return fail_errno (error, HS_DATASET_ERROR_IO, lexical_parent, _("create the folder"), errno);
  real = realpath (lexical_parent, NULL);
  if (real == NULL)
    return fail_errno (error, HS_DATASET_ERROR_IO, lexical_parent, _("open the folder"), errno);
  *parent = g_strdup (real);
  free (real);
  *name = g_steal_pointer (&base);
  return TRUE;
}

static HsDatasetLock *
lock_acquire (const char *dataset_dir, gboolean wait, GError **error)
{
  HsDatasetLock *lock;

  g_return_val_if_fail (dataset_dir != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  lock = g_new0 (HsDatasetLock, 1);
  lock->fd = -1;
  lock->parent_fd = -1;
  if (!split_target (dataset_dir, &lock->parent, &lock->name, error))
    goto failed;
  lock->target = g_build_filename (lock->parent, lock->name, NULL);
  lock->lock_name = g_strdup_printf (".%s.lock", lock->name);
  lock->parent_fd = open (lock->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock->parent_fd < 0)
    {
      fail_errno (error, HS_DATASET_ERROR_IO, lock->parent, _("open the folder"), errno);
      goto failed;
    }
  /* A holder removes the lock file before it lets go, so the file locked
   * may no longer be the one under the name: then lock the new one. */
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      struct stat held, named;

      lock->fd = openat (lock->parent_fd, lock->lock_name,
                         O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (lock->fd < 0)
        {
          g_autofree char *path = g_build_filename (lock->parent, lock->lock_name, NULL);
          fail_errno (error, HS_DATASET_ERROR_IO, path, _("create the lock file"), errno);
          goto failed;
        }
      int status;

      /* Waiting, a signal (a stopped and continued process) interrupts flock. */
      do
        status = flock (lock->fd, LOCK_EX | (wait ? 0 : LOCK_NB));
      while (wait && status != 0 && errno == EINTR);
      if (status != 0)
        {
          int saved = errno;
          g_autofree char *path = g_build_filename (lock->parent, lock->lock_name, NULL);

          if (saved == EWOULDBLOCK || saved == EINTR)
            g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_LOCKED,
                         _("%s: the dataset is locked by another writer (%s); try again when it "
                           "has finished"), lock->target, path);
          else
            fail_errno (error, HS_DATASET_ERROR_IO, path, _("lock"), saved);
          goto failed;
        }
      if (fstat (lock->fd, &held) == 0 &&
          fstatat (lock->parent_fd, lock->lock_name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
          held.st_dev == named.st_dev && held.st_ino == named.st_ino)
        return lock;
      close (lock->fd);
      lock->fd = -1;
    }
  g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_LOCKED,
               _("%s: the dataset is locked by another writer; try again when it has finished"),
               lock->target);
failed:
  lock_free (lock);
  return NULL;
}

HsDatasetLock *
hs_dataset_lock_acquire (const char *dataset_dir, GError **error)
{
  return lock_acquire (dataset_dir, FALSE, error);
}

HsDatasetLock *
hs_dataset_lock_acquire_wait (const char *dataset_dir, GError **error)
{
  return lock_acquire (dataset_dir, TRUE, error);
}

void
hs_dataset_lock_release (HsDatasetLock *lock)
{
  if (lock == NULL)
    return;
  /* Removed while still held: a writer that opened it meanwhile sees the
   * name gone (or another file) and locks afresh. */
  (void) unlinkat (lock->parent_fd, lock->lock_name, 0);
  lock_free (lock);
}

/* Under the lock: the manifest on disk is still the one the dataset was
 * read from (or last wrote).  Else another writer replaced the dataset since
 * (import --force, demo --force, another program's save), and writing this
 * manifest over its files would leave a manifest of one writer with the
 * files of the other. */
static gboolean
manifest_unchanged (HsDataset *dataset, GError **error)
{
  HsFileStamp now;

  if (!dataset->has_manifest)
    return TRUE;               /* a new dataset: nothing was read */
  if (hs_file_stamp_get_no_follow (dataset->manifest_path, &now, NULL) &&
      hs_file_stamp_equal (&now, &dataset->manifest_stamp))
    return TRUE;
  g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_EXISTS,
               _("%s: another writer replaced the dataset since it was opened; not saved "
                 "(open it again)"), dataset->manifest_path);
  return FALSE;
}

gboolean
hs_dataset_save_locked (HsDataset *dataset, HsDatasetLock *lock, GError **error)
{
  g_autofree char *real = NULL;
  char *resolved;

  g_return_val_if_fail (dataset != NULL && lock != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* The dataset's root is its real path; the lock's target has only its
   * parents resolved. */
  resolved = realpath (lock->target, NULL);
  real = g_strdup (resolved != NULL ? resolved : lock->target);
  free (resolved);
  if (strcmp (real, dataset->root) != 0 && strcmp (lock->target, dataset->root) != 0)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   _("%s: the lock held is for another dataset (%s)"), dataset->root, lock->target);
      return FALSE;
    }
  return manifest_unchanged (dataset, error) && hs_dataset_write_manifest (dataset, error);
}

gboolean
hs_dataset_save (HsDataset *dataset, GError **error)
{
  g_autoptr(HsDatasetLock) lock = NULL;

  g_return_val_if_fail (dataset != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  lock = hs_dataset_lock_acquire (dataset->root, error);
  if (lock == NULL)
    return FALSE;
  /* A kill test may hold the lock here (a manifest-only update). */
  hs_stop_point_file ("dataset-locked", dataset->root);
  return manifest_unchanged (dataset, error) && hs_dataset_write_manifest (dataset, error);
}

/* ---- the staged writer ------------------------------------------------------- */

/* Removes ".NAME.staging-*" and ".NAME.old-*" beside NAME: only a writer
 * holding the lock creates them, so while we hold it they are a killed
 * writer's.  An old folder is put back first when NAME itself is missing
 * (a kill between the two renames of the fallback switch). */
static void
recover_leftovers (HsDatasetLock *lock)
{
  g_autofree char *staging_prefix = g_strdup_printf (".%s.staging-", lock->name);
  g_autofree char *old_prefix = g_strdup_printf (".%s.old-", lock->name);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  struct stat st;
  int fd = dup (lock->parent_fd);
  DIR *dir = fd >= 0 ? fdopendir (fd) : NULL;
  struct dirent *entry;

  if (dir == NULL)
    {
      if (fd >= 0)
        close (fd);
      return;
    }
  rewinddir (dir);
  while ((entry = readdir (dir)) != NULL)
    if (g_str_has_prefix (entry->d_name, staging_prefix) || g_str_has_prefix (entry->d_name, old_prefix))
      g_ptr_array_add (names, g_strdup (entry->d_name));
  closedir (dir);
  if (fstatat (lock->parent_fd, lock->name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
    for (guint i = 0; i < names->len; i++)
      {
        const char *name = g_ptr_array_index (names, i);

        if (g_str_has_prefix (name, old_prefix) &&
            renameat (lock->parent_fd, name, lock->parent_fd, lock->name) == 0)
          {
            g_ptr_array_remove_index (names, i);
            break;
          }
      }
  for (guint i = 0; i < names->len; i++)
    remove_tree_at (lock->parent_fd, g_ptr_array_index (names, i), 0);
  (void) fsync (lock->parent_fd);
}

/* Whether what is at the target may be replaced. */
static gboolean
check_target (HsDatasetLock *lock, HsDatasetWriteFlags flags, GError **error)
{
  struct stat st;
  int fd;
  DIR *dir;
  struct dirent *entry;
  gboolean empty = TRUE, manifest = FALSE;

  if (fstatat (lock->parent_fd, lock->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      return fail_errno (error, HS_DATASET_ERROR_IO, lock->target, _("read"), errno);
    }
  if (S_ISLNK (st.st_mode))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH,
                   _("%s: is a symbolic link; a dataset writer replaces the folder itself, so "
                     "name the folder the link leads to"), lock->target);
      return FALSE;
    }
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH,
                   _("%s: exists and is not a folder"), lock->target);
      return FALSE;
    }
  fd = openat (lock->parent_fd, lock->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      return fail_errno (error, HS_DATASET_ERROR_IO, lock->target, _("read the folder"), saved);
    }
  while ((entry = readdir (dir)) != NULL)
    {
      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      empty = FALSE;
      if (strcmp (entry->d_name, HS_DATASET_MANIFEST) == 0)
        manifest = TRUE;
    }
  closedir (dir);
  if (empty)
    return TRUE;
  if (!manifest)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_EXISTS,
                   _("%s: the folder is not empty and holds no dataset (%s); refusing to replace "
                     "it"), lock->target, HS_DATASET_MANIFEST);
      return FALSE;
    }
  if (!(flags & HS_DATASET_WRITE_REPLACE))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_EXISTS,
                   _("%s: a dataset is already there (use --force to replace it)"), lock->target);
      return FALSE;
    }
  return TRUE;
}

HsDatasetWriter *
hs_dataset_writer_begin (const char *target, HsDatasetWriteFlags flags, GError **error)
{
  g_autoptr(HsDatasetWriter) writer = NULL;
  g_autofree char *template = NULL;

  g_return_val_if_fail (target != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  writer = g_new0 (HsDatasetWriter, 1);
  writer->staging_fd = -1;
  writer->lock = hs_dataset_lock_acquire (target, error);
  if (writer->lock == NULL)
    return NULL;
  recover_leftovers (writer->lock);
  if (!check_target (writer->lock, flags, error))
    return NULL;
  /* mkdtemp's mkdir never reuses or follows an existing name. */
  template = g_strdup_printf ("%s/.%s.staging-XXXXXX", writer->lock->parent, writer->lock->name);
  if (g_mkdtemp_full (template, 0755) == NULL)
    {
      fail_errno (error, HS_DATASET_ERROR_IO, template, _("create the folder"), errno);
      return NULL;
    }
  writer->staging = g_steal_pointer (&template);
  writer->staging_name = g_path_get_basename (writer->staging);
  writer->staging_fd = openat (writer->lock->parent_fd, writer->staging_name,
                               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (writer->staging_fd < 0)
    {
      fail_errno (error, HS_DATASET_ERROR_IO, writer->staging, _("open the folder"), errno);
      return NULL;
    }
  /* A kill test may stop here: the lock held, the staging folder empty. */
  hs_stop_point_file ("dataset-locked", writer->lock->target);
  return g_steal_pointer (&writer);
}

const char *
hs_dataset_writer_get_staging (HsDatasetWriter *writer)
{
  g_return_val_if_fail (writer != NULL, NULL);
  return writer->staging;
}

/* A free name ".NAME.old-XXXXXX" for the fallback switch. */
static gboolean
rename_aside (HsDatasetLock *lock, char **old_name)
{
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_autofree char *name = g_strdup_printf (".%s.old-%06x", lock->name,
                                               g_random_int_range (0, 0x1000000));

      if (renameat2 (lock->parent_fd, lock->name, lock->parent_fd, name, RENAME_NOREPLACE) == 0)
        {
          *old_name = g_steal_pointer (&name);
          return TRUE;
        }
      if (errno != EEXIST)
        return FALSE;
    }
  return FALSE;
}

/* Puts the staging folder under the target's name.  *old_name gets the
 * name the old folder has afterwards (to remove), NULL when there was
 * none. */
static gboolean
switch_in (HsDatasetWriter *writer, char **old_name, GError **error)
{
  HsDatasetLock *lock = writer->lock;
  struct stat st;
  int saved;

  *old_name = NULL;
  if (fstatat (lock->parent_fd, lock->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (renameat2 (lock->parent_fd, writer->staging_name, lock->parent_fd, lock->name,
                     RENAME_NOREPLACE) == 0)
        return TRUE;
      return fail_errno (error, HS_DATASET_ERROR_IO, lock->target, _("rename the new dataset into place"),
                         errno);
    }
  /* One atomic exchange: no moment without a dataset under the name. */
  if (renameat2 (lock->parent_fd, writer->staging_name, lock->parent_fd, lock->name,
                 RENAME_EXCHANGE) == 0)
    {
      *old_name = g_strdup (writer->staging_name);
      return TRUE;
    }
  saved = errno;
  if (saved != EINVAL && saved != ENOSYS && saved != ENOTSUP)
    return fail_errno (error, HS_DATASET_ERROR_IO, lock->target, _("rename the new dataset into place"),
                       saved);
  /* A file system without exchange: the old folder aside, then the new one
   * in; a kill between the two is repaired by the next writer. */
  if (!rename_aside (lock, old_name))
    return fail_errno (error, HS_DATASET_ERROR_IO, lock->target, _("move the old dataset aside"),
                       errno);
  hs_stop_point_file ("dataset-moved-aside", lock->target);
  if (renameat2 (lock->parent_fd, writer->staging_name, lock->parent_fd, lock->name,
                 RENAME_NOREPLACE) != 0)
    {
      saved = errno;
      (void) renameat (lock->parent_fd, *old_name, lock->parent_fd, lock->name);
      g_clear_pointer (old_name, g_free);
      return fail_errno (error, HS_DATASET_ERROR_IO, lock->target, _("rename the new dataset into place"),
                         saved);
    }
  return TRUE;
}

gboolean
hs_dataset_writer_save_manifest (HsDatasetWriter *writer, HsDataset *dataset, GError **error)
{
  g_return_val_if_fail (writer != NULL && dataset != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (!writer->done, FALSE);

  if (strcmp (dataset->root, writer->staging) != 0)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   _("%s: the dataset is not in the staging folder %s"), dataset->root,
                   writer->staging);
      return FALSE;
    }
  /* A new folder: nothing of another writer's to mix with. */
  return hs_dataset_write_manifest (dataset, error);
}

gboolean
hs_dataset_writer_commit (HsDatasetWriter *writer, HsDataset *dataset, GError **error)
{
  g_autofree char *old_name = NULL;

  if (!hs_dataset_writer_save_manifest (writer, dataset, error))
    return FALSE;
  if (!sync_staging (writer->staging_fd, writer->staging, error))
    return FALSE;
  /* A kill test may stop here: the new dataset whole, not yet in place. */
  hs_stop_point_file ("dataset-before-publish", writer->lock->target);
  if (!switch_in (writer, &old_name, error))
    return FALSE;
  writer->done = TRUE;
  hs_dataset_set_root (dataset, writer->lock->target);
  /* A kill test may stop here: the new dataset in place, the old one not
   * yet removed. */
  hs_stop_point_file ("dataset-after-publish", writer->lock->target);
  if (fsync (writer->lock->parent_fd) != 0)
    return fail_errno (error, HS_DATASET_ERROR_IO, writer->lock->parent, _("sync"), errno);
  if (old_name != NULL)
    remove_tree_at (writer->lock->parent_fd, old_name, 0);
  return TRUE;
}

void
hs_dataset_writer_free (HsDatasetWriter *writer)
{
  if (writer == NULL)
    return;
  if (writer->staging_fd >= 0)
    close (writer->staging_fd);
  if (!writer->done && writer->staging_name != NULL && writer->lock != NULL)
    remove_tree_at (writer->lock->parent_fd, writer->staging_name, 0);
  hs_dataset_lock_release (writer->lock);
  g_free (writer->staging);
  g_free (writer->staging_name);
  g_free (writer);
}
