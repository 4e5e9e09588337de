/* hs-dataset-private.h — the dataset object shared by hs-dataset*.c */
#pragma once

#include "hs-dataset.h"
#include "hs-json-reader-private.h"   /* HsJsonPath */

G_BEGIN_DECLS

struct _HsDataset {
  gatomicrefcount ref_count;
  char       *root;            /* absolute, symlinks resolved */
  char       *manifest_path;   /* root/heatscope.json */
  char       *name;
  char       *description;
  GHashTable *models;          /* model name → description (may be NULL) */
  GHashTable *model_computed_by;  /* model name → what computed its maps (hs-attend-runner.h) */

  /* Instances: slots[0 .. n_instances) (hs-dataset.c).  A loader thread may
   * append (hs_dataset_load_more) while other threads read, so the slot
   * array never moves under a reader: it grows into a new array, published
   * before n_instances, and the old one is kept until the dataset goes. */
  HsInstance **slots;
  guint       n_slots;         /* capacity */
  gint        n_instances;     /* atomic */
  GSList     *retired_slots;
  GSList     *retired_targets; /* sentence target arrays replaced while readers may hold them */
  GSList     *retired_region_lists;  /* instance region arrays replaced (elements not owned) */
  GSList     *retired_regions;       /* regions removed while readers may hold them */
  GMutex      index_lock;      /* guards by_id, index_of and models while loading */
  GHashTable *by_id;           /* id → HsInstance* (first with that id) */
  GHashTable *index_of;        /* HsInstance* → index + 1 */

  /* Incremental loading (hs_dataset_open); NULL once complete. */
  struct _HsManifestStream *stream;
  gint        complete;        /* atomic */

  /* Lazily filled caches, guarded by cache_lock (metrics workers share them). */
  GMutex      cache_lock;
  GHashTable *image_sizes;     /* HsInstance* → guint64 (width << 32 | height) */
  GHashTable *mask_extents;    /* HsRegion* → extent in mask pixels (hs-dataset-subsets.c) */
  GHashTable *mdrb;            /* HsInstance* → GINT_TO_POINTER (1 + is_mdrb) */

  /* The manifest this dataset was read from or last wrote, a symlink's own
   * stamp when it is one (has_manifest FALSE when there was none):
   * hs_dataset_save refuses to write over a manifest another writer put
   * there since. */
  HsFileStamp manifest_stamp;
  gboolean    has_manifest;
};

/* Records the manifest now at manifest_path as the one this dataset holds. */
void     hs_dataset_note_manifest  (HsDataset *dataset);

/* Writes the manifest atomically after hs_dataset_record_files; the caller
 * holds the dataset's lock or writes a staging folder (hs-dataset-writer.c). */
gboolean hs_dataset_write_manifest (HsDataset *dataset, GError **error);
/* Roots the dataset at `root` (its staging folder was renamed there). */
void     hs_dataset_set_root       (HsDataset *dataset, const char *root);

/* Where problems go while reading a manifest: the loader stops at the first
 * one (collect == FALSE); the validator records them all and, with
 * check_files, also opens every referenced file. */
typedef struct {
  const char *manifest;      /* file name used in messages */
  gboolean    collect;
  gboolean    check_files;
  GPtrArray  *problems;      /* of HsProblem* */
  GError     *error;         /* first problem when !collect */
  gboolean    stop;          /* set with error: unwind without more checks */
  HsDataset  *dataset;
  /* Image size of the instance being read, when check_files found it. */
  guint       image_width;
  guint       image_height;
} HsManifestReader;

/* Records a problem; returns FALSE when reading must stop. */
gboolean hs_manifest_reader_problem (HsManifestReader *reader, const char *file,
                                     const HsJsonPath *path, HsDatasetError code,
                                     const char *format, ...) G_GNUC_PRINTF (5, 6);

/* Reads `manifest_path` into reader->dataset; FALSE when the manifest could
 * not be read at all or (loader mode) at the first problem. */
gboolean hs_manifest_read (HsManifestReader *reader, const char *root,
                           const char *manifest_path);

/* Checks for the validator, called by hs_manifest_read when check_files. */
void hs_validate_check_image (HsManifestReader *reader, HsInstance *instance,
                              const HsJsonPath *path);
void hs_validate_check_region (HsManifestReader *reader, HsInstance *instance,
                               HsRegion *region, const HsJsonPath *path);
void hs_validate_check_map (HsManifestReader *reader, HsInstance *instance,
                            HsMapRef *ref, const HsJsonPath *path);

/* Syntactic path check (relative, no "..", no empty segment); message in
 * *why (translated, static) when it fails. */
gboolean hs_dataset_path_is_safe (const char *relative, const char **why);

/* Bounding box of a mask's non-zero pixels in mask pixels, half-open;
 * [0, 0, 0, 0] when it has none (hs-dataset-subsets.c). */
void hs_dataset_scan_mask_extent (const HsImage *mask, HsBox *extent);
/* The bounding box (half-open; all 0 when empty) of the non-zero pixels of
 * a width × height mask of `bytes_per_pixel` bytes a pixel. */
void hs_dataset_mask_extent (const guint8 *data, guint bytes_per_pixel, guint width,
                             guint height, HsBox *extent);
/* Scales a box in mask pixels to image pixels, as the nearest rule of
 * metrics.md maps a mask of another size onto the image. */
void hs_dataset_scale_mask_box (HsBox *box, guint mask_width, guint mask_height,
                                guint image_width, guint image_height);

HsDataset *hs_dataset_new_internal (const char *root, const char *manifest_path);

/* Replaces a g_malloc'ed *text by its interned copy (hs-dataset.c: the
 * free functions of the plain structs leave interned strings alone). */
void hs_dataset_intern_in_place (char **text);

/* The stream behind hs_dataset_open/hs_dataset_load_more (hs-manifest-stream.c). */
void hs_manifest_stream_free (struct _HsManifestStream *stream);

/* Tests only: called by hs_dataset_open_file between the path check and
 * the open, so a test can swap a symlink in exactly there. */
extern void (*hs_dataset_test_after_check) (const char *resolved);
/* Tests only: called by hs_dataset_stamp_file before it stamps a file, so a
 * test can see on which thread files are checked and hold the check there. */
extern void (*hs_dataset_test_before_stamp) (const char *relative);
/* Tests only: called by hs_dataset_open_file once the file is open (the
 * descriptor is the file read, whatever is renamed over its path now), so a
 * test can replace the file exactly while it is being decoded. */
extern void (*hs_dataset_test_after_open) (const char *resolved);

/* The record's SHA-256 from 64 lowercase hex digits: FALSE unless `hex` is
 * exactly that (hs-file-record.c). */
gboolean hs_file_record_sha256_from_hex (HsFileRecord *record, const char *hex);

G_END_DECLS
