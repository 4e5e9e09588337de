/* hs-import.h — datasets from public annotation formats */
#pragma once

#include <gio/gio.h>
#include <glib.h>
#include "hs-dataset.h"

G_BEGIN_DECLS

#define HS_IMPORT_ERROR (hs_import_error_quark ())
GQuark hs_import_error_quark (void);

typedef enum {
  HS_IMPORT_ERROR_IO,       /* a source cannot be read, the output cannot be written */
  HS_IMPORT_ERROR_FORMAT,   /* a source file is not in the expected format          */
  HS_IMPORT_ERROR_USAGE,    /* unknown format, wrong number of sources              */
  HS_IMPORT_ERROR_EXISTS,   /* the output folder already holds a dataset            */
} HsImportError;

/* A source row the importer could not use; the import goes on without it. */
typedef struct {
  char  *file;
  guint  line;      /* 1-based; 0 when the source has no lines (JSON) */
  char  *reason;    /* for JSON, starts with the element, e.g. "images[3]: ..." */
} HsImportSkip;

typedef struct {
  guint      n_instances;
  guint      n_sentences;
  guint      n_targets;    /* regions written */
  guint      n_maps;       /* maps attached (npy-folder) */
  GPtrArray *skipped;      /* of HsImportSkip* */
} HsImportSummary;

/* Progress of an import: `fraction` in [0, 1], or negative while the total
 * is not known yet (the rows of a CSV being read); `what` (may be NULL) names
 * the item at hand.  Called from the importing thread, at most about every
 * 50 ms and once with 1.0 at the end. */
typedef void (*HsImportProgressFunc) (double fraction, const char *what, gpointer user_data);

typedef struct {
  /* covid-seg: optional CSV "image,sentence,target" linking the sentence
   * (its 1-based number in the note, or its exact text) of an image to a
   * region name; applied at import. */
  const char *links;
  /* yolo: class names, one per line (default: classes.txt or data.yaml
   * names beside the labels, else "class N"). */
  const char *classes;
  /* Replace a dataset already in the output folder. */
  gboolean    force;
  /* Optional progress report (see HsImportProgressFunc). */
  HsImportProgressFunc progress;
  gpointer             progress_data;
  /* Optional: once cancelled, hs_import() fails with G_IO_ERROR_CANCELLED
   * and the output folder stays as it was (the staging folder is removed). */
  GCancellable        *cancellable;
  /* Optional: the imaging modality of every instance written ("MR", "CR",
   * "magnetic resonance"...), recorded as its "modality" metadata (the key
   * hs_dataset_get_subsets reads: an MR instance is in no chest subset).
   * NULL: what the source says, where it says it — covid-seg's metadata.csv
   * column, COCO's images[].meta.modality, a DICOM image's Modality
   * (0008,0060) — else none.  Checked by hs_import_check_modality. */
  const char          *modality;
} HsImportOptions;

/* Formats: "covid-seg", "coco", "yolo", "nih-bbox", "chexlocalize",
 * "imagenome", "ms-cxr", "vindr-cxr", "rsna-pneumonia", "siim-acr",
 * "chestx-det", "voc", "npy-folder" (see each importer's sources in
 * `heatscope-cli import --help`).  Writes OUTPUT/heatscope.json, copies (or
 * hard-links) images into OUTPUT/images and writes masks into OUTPUT/masks,
 * all through the dataset writer (hs-dataset-writer.h): built in a staging
 * folder beside OUTPUT under OUTPUT's lock and switched in whole, so OUTPUT
 * holds the old dataset or the new one, never a mix.  OUTPUT must be
 * absent, empty, or (with `force`) a dataset.
 * "npy-folder" instead adds maps to the dataset already in OUTPUT (copied
 * to OUTPUT/maps/MODEL/), holding OUTPUT's lock, and then rewrites its
 * manifest atomically; a later map for the same (model, query) replaces
 * the earlier one.
 * `summary` (may be NULL) receives the counts; free with
 * hs_import_summary_clear(). */
HsDataset   *hs_import                (const char *format, const char * const *sources,
                                       const char *output_dir, const HsImportOptions *options,
                                       HsImportSummary *summary, GError **error);
const char * const *hs_import_list_formats (void);
/* Whether `modality` may be given for an import of `format`: text with a
 * letter, without control characters, at most 64 characters (blanks
 * around it are dropped when it is recorded), and a format that writes
 * instances (not npy-folder).  FALSE with HS_IMPORT_ERROR_USAGE and a
 * message that starts with the quoted value, for the caller to prefix with
 * what it calls the modality (the CLI's "--modality "; hs_import's
 * "modality "). */
gboolean     hs_import_check_modality (const char *format, const char *modality, GError **error);
/* "FILE:LINE: reason" (or "FILE: reason" without a line). */
char        *hs_import_skip_to_string (const HsImportSkip *skip);
void         hs_import_summary_clear  (HsImportSummary *summary);

G_END_DECLS
