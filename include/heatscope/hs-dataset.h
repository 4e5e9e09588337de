/* hs-dataset.h — a dataset folder described by heatscope.json */
#pragma once

#include <glib.h>
#include "hs-image.h"
#include "hs-attention-map.h"
#include "hs-file-stamp.h"

G_BEGIN_DECLS

#define HS_DATASET_ERROR (hs_dataset_error_quark ())
GQuark hs_dataset_error_quark (void);

typedef enum {
  HS_DATASET_ERROR_IO,          /* manifest or referenced file cannot be read      */
  HS_DATASET_ERROR_PARSE,       /* not JSON, invalid UTF-8, nesting too deep        */
  HS_DATASET_ERROR_INVALID,     /* JSON that breaks the schema (message has path)   */
  HS_DATASET_ERROR_PATH,        /* a path that leaves the dataset folder            */
  HS_DATASET_ERROR_NOT_FOUND,   /* unknown instance, sentence, model or region      */
  HS_DATASET_ERROR_TOO_LARGE,   /* manifest over HsLimits                           */
  HS_DATASET_ERROR_LOCKED,      /* another writer holds the folder (hs-dataset-writer.h) */
  HS_DATASET_ERROR_EXISTS,      /* the target holds a dataset or other files        */
} HsDatasetError;

#define HS_DATASET_MANIFEST "heatscope.json"
#define HS_DATASET_FORMAT_VERSION 1

/* Boxes are [x1, y1, x2, y2] in image pixels (floats allowed, half-open). */
typedef struct {
  double x1, y1, x2, y2;
} HsBox;

/* A file's size and SHA-256 as the writer found them (the manifest's
 * optional "<name>_bytes" and "<name>_sha256" beside the file's path), so
 * that validation can tell a file that changed after the manifest was
 * written.  Loading does not hash; hs_dataset_validate does. */
typedef struct {
  guint64 bytes;
  guint8  sha256[32];
} HsFileRecord;

/* A named target: anatomical region, lesion or class.  Boxes and/or a mask
 * file (relative path; non-zero pixels belong to the region).  `extent` is
 * the manifest's optional "extent": the bounding box of the mask's non-zero
 * pixels in image pixels (half-open; [0, 0, 0, 0] for an empty mask), so
 * that subsets need not decode the mask. */
typedef struct {
  char    *name;
  GArray  *boxes;      /* of HsBox; may be empty when a mask is given */
  char    *mask;       /* relative path or NULL */
  gboolean has_extent;
  HsBox    extent;     /* valid when has_extent */
  HsFileRecord *mask_record;  /* of the mask file; NULL when not recorded */
} HsRegion;

/* A finding label in McInerney et al.'s form: condition, context
 * ("positive"/"negative") and the anatomical locations it names. */
typedef struct {
  char  *condition;
  char  *context;
  char **locations;  /* NULL-terminated, may be empty */
} HsLabel;

/* A query: a report sentence, a free-text prompt or a class label. */
typedef struct {
  char      *id;
  char      *text;
  char      *kind;      /* "report" (default), "custom" or "class" */
  char     **targets;   /* names of the instance's regions, NULL-terminated */
  GPtrArray *labels;    /* of HsLabel* */
} HsSentence;

/* Longest "quantity" of a map the manifest accepts, in characters. */
#define HS_MAP_QUANTITY_MAX_CHARS 80

/* Co-attention (a report generator's attention over semantic tags beside
 * its visual map, Jing et al. 2018): at most this many tags per map, each
 * name at most this many characters; the weights sum to 1 within the
 * tolerance (kept as written, not renormalised). */
#define HS_MAP_TAGS_MAX 256
#define HS_MAP_TAG_MAX_CHARS 80
#define HS_MAP_TAG_SUM_TOLERANCE 1e-3

/* One tag of a map's tag attention: a name and its non-negative weight. */
typedef struct {
  char   *tag;
  double  weight;
} HsTagWeight;

/* A precomputed attention map for (model, query). */
typedef struct {
  char   *model;
  char   *query;        /* sentence id; NULL for a free prompt              */
  char   *prompt;       /* exact text the model saw (NULL = sentence text)  */
  char   *file;         /* relative path to .npy [h,w] or [tokens,h,w]      */
  char  **tokens;       /* NULL-terminated, or NULL                         */
  double  no_attn;      /* NAN when absent                                  */
  HsFileRecord *file_record;  /* of `file`; NULL when not recorded          */
  char   *quantity;     /* what the values measure (e.g. "attention weight",
                         * "Grad-CAM relevance"): a figure's colour-bar title;
                         * NULL when not stated                              */
  HsTagWeight *tags;    /* the "tag_attention" list, in manifest order;
                         * NULL when absent                                  */
  guint   n_tags;
} HsMapRef;

typedef struct {
  char       *id;
  char       *image;      /* relative path */
  /* metadata: view, modality, licence, source, and any other string keys */
  GHashTable *metadata;   /* char* → char* */
  gboolean    abnormal;   /* the image shows at least one finding */
  GPtrArray  *findings;   /* of HsLabel*: the image's ground-truth labels */
  GPtrArray  *regions;    /* of HsRegion* */
  GPtrArray  *sentences;  /* of HsSentence* */
  GPtrArray  *maps;       /* of HsMapRef* */
  /* Image size in pixels as stated by the manifest ("width"/"height");
   * 0 when not stated (then hs_dataset_get_image_size reads the file header). */
  guint       width;
  guint       height;
  HsFileRecord *image_record;  /* of the image file; NULL when not recorded */
  /* A Heatscope phantom ("phantom": true, written by heatscope-cli demo):
   * the built-in models were trained on such images.  Any other image is
   * real, and a built-in model's map of it is labelled as such. */
  gboolean    phantom;
} HsInstance;

/* Subsets of McInerney et al., computed from labels and targets. */
typedef enum {
  HS_SUBSET_ABNORMAL = 1 << 0,  /* the sentence states a positive finding            */
  HS_SUBSET_ONE_LUNG = 1 << 1,  /* the sentence's target lies in one image half only */
  HS_SUBSET_MDRB     = 1 << 2,  /* most diverse report boxes (see README)            */
} HsSubset;

/* One problem found by validation. */
typedef struct {
  char *file;        /* file the problem is in (manifest or referenced file) */
  char *json_path;   /* e.g. "$.instances[3].sentences[0].targets[1]"         */
  char *message;
} HsProblem;

typedef struct _HsDataset HsDataset;

/* `path` is the dataset folder or its heatscope.json. */
HsDataset   *hs_dataset_load            (const char *path, GError **error);
HsDataset   *hs_dataset_new             (const char *root_dir, const char *name);
/* Writes heatscope.json atomically (temp file, fsync, rename), after
 * hs_dataset_record_files, holding the folder's writer lock
 * (hs-dataset-writer.h): HS_DATASET_ERROR_LOCKED while another writer
 * (an import, demo, another save) holds it. */
gboolean     hs_dataset_save            (HsDataset *dataset, GError **error);
/* Gives every image, mask and map file that has no record yet its
 * HsFileRecord (size and SHA-256, read through hs_dataset_open_file).
 * Records already there are kept: they say what the files were when the
 * manifest was first written.  A file that is missing or cannot be read
 * stays unrecorded (hs_dataset_validate reports it as missing anyway). */
void         hs_dataset_record_files    (HsDataset *dataset);
/* The size and SHA-256 of what `fd` holds (read with pread from offset 0;
 * the offset is left alone).  `name` is the file named in errors. */
gboolean     hs_file_record_read_fd     (int fd, const char *name, HsFileRecord *record,
                                         GError **error);
/* The record's SHA-256 as the manifest writes it: 64 lowercase hex digits. */
void         hs_file_record_sha256_to_hex (const HsFileRecord *record, char hex[65]);
/* The text hs_dataset_save writes (deterministic: fixed member order,
 * metadata and models sorted, numbers in shortest round-trip form). */
char        *hs_dataset_to_json         (HsDataset *dataset, gsize *length);
/* Checks everything (schema, references, files, shapes); returns FALSE and
 * fills `problems` (HsProblem*, owned by the array) when anything is wrong. */
gboolean     hs_dataset_validate        (const char *path, GPtrArray **problems);

/* Incremental loading, for a window that shows the first instance of a
 * large manifest at once.  hs_dataset_open reads the manifest's top level up
 * to "instances" and the first `n_first` instances (a manifest of no more
 * than `n_first` instances, or of an unusual layout, is read whole);
 * hs_dataset_load_more reads up to `max_instances` more, in manifest order,
 * and returns FALSE with an error (naming the file and the JSON path or
 * line) at the first problem: the instances read before it stay.  One
 * thread at a time may call hs_dataset_load_more while others read the
 * dataset: hs_dataset_get_n_instances grows, and instances below it never
 * move or change.  hs_dataset_load reads everything and reports the first
 * problem of the whole manifest before returning any instance. */
HsDataset   *hs_dataset_open            (const char *path, guint n_first, GError **error);
gboolean     hs_dataset_load_more       (HsDataset *dataset, guint max_instances, GError **error);
/* TRUE when every instance is read (always, but for hs_dataset_open). */
gboolean     hs_dataset_is_complete     (HsDataset *dataset);

HsDataset   *hs_dataset_ref             (HsDataset *dataset);
void         hs_dataset_unref           (HsDataset *dataset);

const char  *hs_dataset_get_root        (HsDataset *dataset);
const char  *hs_dataset_get_name        (HsDataset *dataset);
guint        hs_dataset_get_n_instances (HsDataset *dataset);
HsInstance  *hs_dataset_get_instance    (HsDataset *dataset, guint index);
HsInstance  *hs_dataset_find_instance   (HsDataset *dataset, const char *id);
/* Takes ownership of `instance`. */
void         hs_dataset_add_instance    (HsDataset *dataset, HsInstance *instance);
/* Sorted model names that have at least one map; free with g_strfreev. */
char       **hs_dataset_list_models     (HsDataset *dataset);

/* Absolute path for a manifest-relative path; refuses absolute paths, "..",
 * and symlinks that resolve outside the dataset folder. */
char        *hs_dataset_resolve_path    (HsDataset *dataset, const char *relative, GError **error);
/* Opens a manifest-relative file for reading, relative to the dataset
 * folder's descriptor without following a symlink out of it (hs-safe-open.h):
 * a symlink swapped in after hs_dataset_resolve_path is refused, not read.
 * Returns the descriptor (the caller closes it) and, in *resolved, the path
 * that names the file in errors; -1 with `error` set otherwise.  Every
 * loader of dataset files reads through it. */
int          hs_dataset_open_file       (HsDataset *dataset, const char *relative,
                                         char **resolved, GError **error);
/* The stamp (hs-file-stamp.h) of the manifest-relative file now, resolved as
 * the loaders resolve it: `stamp`, or NULL when the path is refused or the
 * file is not there.  Taken before a decode, it tells later whether the
 * decoded value is still the file on disk.  Any thread. */
const HsFileStamp *hs_dataset_stamp_file (HsDataset *dataset, const char *relative,
                                          HsFileStamp *stamp);
HsImage     *hs_dataset_load_image      (HsDataset *dataset, const HsInstance *instance, GError **error);
HsAttentionMap *hs_dataset_load_map     (HsDataset *dataset, const HsMapRef *ref, GError **error);
/* Mask of a region as a one-channel image (non-zero = inside). */
HsImage     *hs_dataset_load_mask       (HsDataset *dataset, const HsRegion *region, GError **error);
/* The regions a sentence targets (HsRegion*, borrowed from the instance) and
 * their masks (HsImage* loaded from the dataset, or NULL for a region
 * without one), two arrays of the same length in the order of
 * sentence->targets.  Target names the instance does not have are skipped;
 * a mask that fails to load sets `error` (naming the file) and returns
 * FALSE. */
gboolean     hs_dataset_collect_targets (HsDataset *dataset, const HsInstance *instance,
                                         const HsSentence *sentence,
                                         GPtrArray **regions, GPtrArray **masks, GError **error);
/* The same, with each region's mask from `load_mask` (a new reference, or
 * NULL with `error` set) instead of hs_dataset_load_mask: for a caller
 * that keeps decoded masks, such as the app's mask cache. */
typedef HsImage *(*HsMaskLoadFunc) (const HsRegion *region, gpointer user_data, GError **error);
gboolean     hs_dataset_collect_targets_with (const HsInstance *instance, const HsSentence *sentence,
                                              HsMaskLoadFunc load_mask, gpointer user_data,
                                              GPtrArray **regions, GPtrArray **masks, GError **error);

HsSentence  *hs_instance_find_sentence  (const HsInstance *instance, const char *id);
HsRegion    *hs_instance_find_region    (const HsInstance *instance, const char *name);
/* The region a sentence's target `name` names; NULL and HS_DATASET_ERROR_NOT_FOUND
 * ("MANIFEST: instance \"ID\" has no region \"NAME\"") when the instance has none
 * (a manifest as read never has such a target; an instance edited since may). */
HsRegion    *hs_instance_get_target_region (HsDataset *dataset, const HsInstance *instance,
                                            const char *name, GError **error);
/* model/query as in HsMapRef; prompt lookup matches HsMapRef.prompt exactly. */
HsMapRef    *hs_instance_find_map       (const HsInstance *instance, const char *model, const char *query);
HsMapRef    *hs_instance_find_map_by_prompt (const HsInstance *instance, const char *model, const char *prompt);
/* HsSubset flags; never one_lung or mdrb (chest subsets) for an instance
 * whose "modality" metadata says magnetic resonance (hs-dataset-subsets.c). */
guint        hs_dataset_get_subsets     (HsDataset *dataset, const HsInstance *instance,
                                         const HsSentence *sentence);
const char  *hs_subset_to_string        (HsSubset subset);   /* "abnormal", "one_lung", "mdrb" */
/* Parses "abnormal", "one_lung", "mdrb"; 0 for anything else. */
HsSubset     hs_subset_from_string      (const char *name);

/* --- additions beyond the first draft ------------------------------------ */

const char  *hs_dataset_get_manifest_path (HsDataset *dataset);   /* absolute */
void         hs_dataset_set_name        (HsDataset *dataset, const char *name);
const char  *hs_dataset_get_description (HsDataset *dataset);     /* may be NULL */
void         hs_dataset_set_description (HsDataset *dataset, const char *description);
/* Models described in the manifest's "models" object (a model with maps
 * needs no entry there).  Description may be NULL. */
void         hs_dataset_set_model_description (HsDataset *dataset, const char *model,
                                               const char *description);
const char  *hs_dataset_get_model_description (HsDataset *dataset, const char *model);
/* The manifest's models.MODEL.computed_by: what computed the model's maps,
 * recorded by `heatscope-cli attend` ("model-sha256:HEX" for a weights file,
 * "backend-exec:COMMAND" for an external backend) so that a later run under
 * the same name with another model is noticed.  Only ever compared, never
 * run.  NULL when not recorded; set NULL to clear. */
void         hs_dataset_set_model_computed_by (HsDataset *dataset, const char *model,
                                               const char *computed_by);
const char  *hs_dataset_get_model_computed_by (HsDataset *dataset, const char *model);
/* Index of `instance` in the dataset, or -1. */
int          hs_dataset_get_instance_index (HsDataset *dataset, const HsInstance *instance);
/* Image size: the manifest's width/height when stated, else read from the
 * image header (no pixel decoding; cached).  Thread-safe. */
gboolean     hs_dataset_get_image_size  (HsDataset *dataset, const HsInstance *instance,
                                         guint *width, guint *height, GError **error);
/* Bounding box of every box and mask pixel of the named targets, in image
 * pixels (masks of another size are scaled to the image).  FALSE (no error)
 * when the sentence has no targets; masks are decoded once and cached. */
gboolean     hs_dataset_get_target_extent (HsDataset *dataset, const HsInstance *instance,
                                           const char * const *targets, HsBox *extent,
                                           GError **error);

/* Building instances (all strings are copied; add_* take ownership of the
 * added struct).  In a loaded dataset, names that repeat across instances
 * (region names, label conditions/contexts/locations, sentence ids, kinds
 * and targets, map models, queries and tokens, metadata keys) are shared
 * interned strings: change and free them only through these functions,
 * never with g_free. */
void         hs_instance_set_metadata   (HsInstance *instance, const char *key, const char *value);
const char  *hs_instance_get_metadata   (const HsInstance *instance, const char *key);
void         hs_instance_add_region     (HsInstance *instance, HsRegion *region);
void         hs_instance_add_sentence   (HsInstance *instance, HsSentence *sentence);
void         hs_instance_add_map        (HsInstance *instance, HsMapRef *ref);
void         hs_instance_add_finding    (HsInstance *instance, HsLabel *label);
void         hs_region_set_mask         (HsRegion *region, const char *mask);
/* Sets (NULL: clears) the mask's extent in image pixels. */
void         hs_region_set_extent       (HsRegion *region, const HsBox *extent);
/* A deep copy: name, boxes, mask and extent. */
HsRegion    *hs_region_copy             (const HsRegion *region);
/* Sets the extent from an 8-bit mask of the image's size (non-zero = in). */
void         hs_region_set_mask_extent  (HsRegion *region, const guint8 *mask,
                                         guint width, guint height);
void         hs_sentence_add_target     (HsSentence *sentence, const char *region_name);
/* Replaces the targets of a sentence of `instance` by a copy of `targets`
 * (NULL = none) while other threads may read the dataset (the app): the old
 * array stays valid until the dataset is freed, and the instance's cached
 * subsets follow the new targets. */
void         hs_dataset_set_sentence_targets (HsDataset *dataset, HsInstance *instance,
                                              HsSentence *sentence,
                                              const char * const *targets);
/* Adds `region` (taken) to `instance`, or removes its region `name` (FALSE
 * when there is none), in the same way: the old region list, and a removed
 * region, stay valid until the dataset is freed. */
void         hs_dataset_add_instance_region    (HsDataset *dataset, HsInstance *instance,
                                                HsRegion *region);
gboolean     hs_dataset_remove_instance_region (HsDataset *dataset, HsInstance *instance,
                                                const char *name);
void         hs_sentence_add_label      (HsSentence *sentence, HsLabel *label);
void         hs_sentence_set_kind       (HsSentence *sentence, const char *kind);
void         hs_map_ref_set_tokens      (HsMapRef *ref, const char * const *tokens);
void         hs_map_ref_set_prompt      (HsMapRef *ref, const char *prompt);
void         hs_map_ref_set_quantity    (HsMapRef *ref, const char *quantity);
/* Copies `n` tags (NULL/0 clears). Not checked: the manifest reader checks. */
void         hs_map_ref_set_tags        (HsMapRef *ref, const HsTagWeight *tags, guint n);
/* Frees an array of `n_tags` tags and their names (NULL is fine). */
void         hs_tag_weights_free        (HsTagWeight *tags, guint n_tags);
HsProblem   *hs_problem_new             (const char *file, const char *json_path, const char *message);
/* "FILE: JSONPATH: message" (the line `heatscope-cli validate` prints). */
char        *hs_problem_to_string       (const HsProblem *problem);

/* Constructors/destructors for the plain structs (free functions take NULL). */
HsInstance  *hs_instance_new            (const char *id, const char *image);
void         hs_instance_free           (HsInstance *instance);
HsRegion    *hs_region_new              (const char *name);
void         hs_region_add_box          (HsRegion *region, double x1, double y1, double x2, double y2);
void         hs_region_free             (HsRegion *region);
HsSentence  *hs_sentence_new            (const char *id, const char *text);
void         hs_sentence_free           (HsSentence *sentence);
HsLabel     *hs_label_new               (const char *condition, const char *context,
                                         const char * const *locations);
void         hs_label_free              (HsLabel *label);
HsMapRef    *hs_map_ref_new             (const char *model, const char *query, const char *file);
/* The entry of `map` written to `file` (hs_attention_map_save_npy): its
 * prompt (NULL: the query's text), its words when `tokens` and the map has
 * per-token maps, its no_attn. */
HsMapRef    *hs_map_ref_new_for_map     (const HsAttentionMap *map, const char *model,
                                         const char *query, const char *file, const char *prompt,
                                         gboolean tokens);
void         hs_map_ref_free            (HsMapRef *ref);
void         hs_problem_free            (HsProblem *problem);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsDataset, hs_dataset_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsInstance, hs_instance_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsProblem, hs_problem_free)

G_END_DECLS
