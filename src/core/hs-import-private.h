/* hs-import-private.h — shared state and helpers of the importers */
#pragma once

#include "hs-import.h"
#include "hs-image.h"
#include "hs-csv.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct
{
  HsDataset             *dataset;
  char                  *root;          /* output folder */
  const HsImportOptions *options;
  HsImportSummary       *summary;
  GHashTable            *images;        /* relative image path → source path */
  GHashTable            *instance_ids;  /* set */
  GPtrArray             *source_roots;  /* folders the sources may read beneath */
  GHashTable            *suffixes;      /* "id\x1fbase" / "image\x1frelative" → next number to try */
  GHashTable            *given_names;   /* "relative\x1fsource" → relative path it was given */
  GHashTable            *modalities;    /* relative image path → its DICOM Modality (0008,0060) */
  GHashTable            *indexes;       /* NameIndex sets of the look-ups below (hs-import.c) */
  gint64                 last_progress; /* monotonic µs of the last report */
} HsImportContext;

typedef gboolean (*HsImportFunc) (HsImportContext *ctx, const char * const *sources,
                                  guint n_sources, GError **error);

gboolean hs_import_covid_seg    (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_coco         (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_yolo         (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_nih          (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_chexlocalize (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_imagenome    (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_ms_cxr       (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_npy_folder   (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_vindr        (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_rsna         (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_siim         (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_chestx_det   (HsImportContext *ctx, const char * const *sources, guint n, GError **error);
gboolean hs_import_voc          (HsImportContext *ctx, const char * const *sources, guint n, GError **error);

/* The images of an importer whose rows name an image id (VinDr-CXR, RSNA,
 * SIIM, ChestX-Det, VOC): found in `dir` as ID, ID.dcm, ID.dicom, ID.png,
 * ID.jpg or ID.jpeg, or anywhere below `dir` under one of those names (SIIM
 * nests its DICOM files by study and series); one instance per image, in
 * the order of first use. */
typedef struct
{
  HsInstance *instance;   /* NULL when the image could not be had */
  guint       width, height;
} HsImportImage;

typedef struct _HsImportImages HsImportImages;

/* Frees an HsImportImage with the instance it still holds. */
void            hs_import_image_free    (gpointer image);
/* Adds (takes) the instances of `images` (HsImportImage*) to the dataset in
 * their order, passing over the images that could not be had. */
void            hs_import_add_instances (HsImportContext *ctx, GPtrArray *images);

HsImportImages *hs_import_images_new    (const char *dir, const char *source_name);
/* The image `id`, copied into the dataset on first use; NULL (and a skip of
 * FILE:LINE recorded) when it is missing or unreadable. */
HsImportImage  *hs_import_images_get    (HsImportContext *ctx, HsImportImages *images,
                                         const char *id, const char *file, guint line);
/* Adds the instances to the dataset and frees the table. */
void            hs_import_images_finish (HsImportContext *ctx, HsImportImages *images);
/* The instance's finding `label` as positive, once. */
void            hs_import_add_positive  (HsImportContext *ctx, HsInstance *instance,
                                         const char *label);

/* Reports progress (throttled; see HsImportProgressFunc) and checks the
 * cancellable: FALSE with G_IO_ERROR_CANCELLED once cancelled. */
gboolean hs_import_progress     (HsImportContext *ctx, double fraction, const char *what,
                                 GError **error);
/* The next data row of a CSV source, for the importers' row loops: reports
 * progress, reports rows the reader cannot parse (with their line) and skips
 * them and blank lines.  FALSE when the import was cancelled; otherwise TRUE
 * with *row NULL at the end of the file. */
gboolean hs_import_next_row     (HsImportContext *ctx, HsCsvReader *reader, const char *path,
                                 guint *line, char ***row, GError **error);
/* A column of a CSV source, looked up by its header name. */
typedef struct
{
  const char *name;      /* trimmed header text; "a|b": either spelling, the first found */
  int        *index;     /* set to the column, -1 when absent */
  gboolean    optional;
} HsImportColumn;

/* Finds each column in `header` (NULL: none is there); TRUE when every
 * column that is not optional is there. */
gboolean hs_import_find_columns (char * const *header, const HsImportColumn *columns, guint n);
/* Reads the header row of a CSV source and finds its columns; FALSE with
 * the format error `not_header` (a translated format and its arguments,
 * "PATH:1: not a … header") when one that is not optional is missing (or
 * there is no header row). */
gboolean hs_import_read_header  (HsCsvReader *reader, guint *line,
                                 const HsImportColumn *columns, guint n, GError **error,
                                 const char *not_header, ...) G_GNUC_PRINTF (6, 7);
/* A CSV reader over the source file `path`, past its header row
 * (hs_import_read_header): NULL with the reason the file cannot be read (an
 * I/O error) or is not the source (a format error). */
HsCsvReader *hs_import_open_csv_with_header (const char *path, guint *line,
                                             const HsImportColumn *columns, guint n,
                                             GError **error, const char *not_header, ...)
  G_GNUC_PRINTF (6, 7);
/* A CSV field as a finite number (blanks around it allowed; NULL: FALSE). */
gboolean hs_import_parse_number (const char *text, double *out);
/* A JSON integer or finite double (NULL or anything else: FALSE). */
gboolean hs_import_json_number  (JsonNode *node, double *out);
/* Records a source row that could not be used. */
void     hs_import_skip         (HsImportContext *ctx, const char *file, guint line,
                                 const char *format, ...) G_GNUC_PRINTF (4, 5);
/* Opens a file the source names (an image, mask, label or map) beneath the
 * source folder it lies in (a folder source, or the folder of a file
 * source), never following a symlink out of it (hs-safe-open.h).  Returns
 * the descriptor of a regular file, or -1 with `error` set. */
int      hs_import_open_source  (HsImportContext *ctx, const char *path, GError **error);
/* Adds a folder the sources imply (VOC's JPEGImages beside Annotations) to
 * the folders files may be opened beneath. */
void     hs_import_add_source_root (HsImportContext *ctx, const char *dir);
/* Reads such a file whole, up to HsLimits' max_file_bytes (NUL-terminated). */
gboolean hs_import_read_source  (HsImportContext *ctx, const char *path, char **contents,
                                 gsize *len, GError **error);
/* A CSV reader over a file read with hs_import_read_source. */
HsCsvReader *hs_import_open_csv (HsImportContext *ctx, const char *path, GError **error);
/* Copies (or hard-links) `source` to `relative` inside the dataset, once;
 * reads its size from the header.  `relative` is made unique when another
 * source already took it.  Returns the relative path used. */
char    *hs_import_add_image    (HsImportContext *ctx, const char *source, const char *relative,
                                 guint *width, guint *height, GError **error);
/* Writes a 0/255 8-bit grey PNG at masks/<stem>.png; returns its relative path. */
char    *hs_import_write_mask   (HsImportContext *ctx, const char *stem, const guint8 *mask,
                                 guint width, guint height, GError **error);
/* The region masks of one image, painted region by region and written
 * once the whole image is read.  A zeroed one is empty. */
typedef struct
{
  GHashTable *by_name;   /* region name → height × width 0/1 mask */
  GPtrArray  *order;     /* region names, in the order their masks began */
} HsImportMasks;

void     hs_import_masks_clear (HsImportMasks *masks);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HsImportMasks, hs_import_masks_clear)
/* The mask of region `name`, a zeroed width × height one on first use. */
guint8  *hs_import_masks_get   (HsImportMasks *masks, const char *name, guint width, guint height);
/* Writes `mask` (width × height, the image's size) at masks/<stem>.png and
 * sets it, with its extent, on the instance's region `name` (made if new). */
gboolean hs_import_set_region_mask (HsImportContext *ctx, HsInstance *instance, const char *name,
                                    const char *stem, const guint8 *mask, guint width,
                                    guint height, GError **error);
/* Writes each mask of `masks`, in their order, at masks/<id>__<name>.png
 * and sets it on the instance's region of that name. */
gboolean hs_import_write_region_masks (HsImportContext *ctx, HsInstance *instance,
                                       const HsImportMasks *masks, guint width,
                                       guint height, GError **error);
/* An instance id not used yet, derived from `base`. */
char    *hs_import_unique_id    (HsImportContext *ctx, const char *base);
/* A new instance of the image `rel` (width × height) under an id not used
 * yet, derived from `base`; `source`, unless NULL, is its "source" metadata. */
HsInstance *hs_import_new_instance (HsImportContext *ctx, const char *base, const char *rel,
                                    guint width, guint height, const char *source);
/* Clips the box to the image; FALSE when nothing is left or no pixel centre
 * lies in what is left (hs_box_check). */
gboolean hs_import_clip_box     (double *x1, double *y1, double *x2, double *y2,
                                 guint width, guint height);
/* A class boxed on the image (NIH, RSNA, VOC, YOLO): the box x1, y1 – x2,
 * y2 as the source gives it, in a frame_w × frame_h frame (the original
 * image's pixels; 1 × 1 for normalised coordinates), scaled to the
 * instance's width × height and clipped to it (hs_import_clip_box), added
 * to its region `name` (made if new) with a class query naming that region
 * (hs_import_add_class_sentence).  FALSE, adding nothing, when nothing of
 * the box is left. */
gboolean hs_import_add_class_box (HsImportContext *ctx, HsInstance *instance, const char *name,
                                  double x1, double y1, double x2, double y2,
                                  double frame_w, double frame_h);
/* Letters, digits, '-', '_' and '.' kept; the rest becomes '_'. */
char    *hs_import_safe_name    (const char *text);
/* Look-ups by name for the importers' row loops, in constant time: hash
 * indexes kept in the context (a search of the instance's arrays per row is
 * quadratic in the rows of one image).  Items may also be appended to the
 * arrays directly; the indexes catch up. */
HsRegion   *hs_import_find_region   (HsImportContext *ctx, HsInstance *instance, const char *name);
/* The region `name` of the instance, created when absent. */
HsRegion   *hs_import_get_region    (HsImportContext *ctx, HsInstance *instance, const char *name);
/* A region name the instance does not use yet: `base`, else "base 2", "base 3"... */
char       *hs_import_unique_region_name (HsImportContext *ctx, HsInstance *instance,
                                          const char *base);
HsSentence *hs_import_find_sentence (HsImportContext *ctx, HsInstance *instance, const char *id);
/* The first sentence whose id hs_import_safe_name() turns into `safe_id`. */
HsSentence *hs_import_find_sentence_by_safe_id (HsImportContext *ctx, HsInstance *instance,
                                                const char *safe_id);
/* Adds (takes) the map; one for the same model and query goes. */
void        hs_import_set_map       (HsImportContext *ctx, HsInstance *instance, HsMapRef *ref);
/* The first sentence with this text. */
HsSentence *hs_import_find_sentence_by_text (HsImportContext *ctx, HsInstance *instance,
                                             const char *text);
/* Adds a class-kind query naming the region (once per region). */
void        hs_import_add_class_sentence (HsImportContext *ctx, HsInstance *instance,
                                          const char *region);
/* Adds (takes) the finding unless one with its condition is there (then frees it). */
void        hs_import_add_finding   (HsImportContext *ctx, HsInstance *instance, HsLabel *label);
/* Adds the target to the sentence once. */
void        hs_import_add_target    (HsImportContext *ctx, HsSentence *sentence, const char *region);
/* The sentence's label of this condition and context, or NULL. */
HsLabel    *hs_import_find_label    (HsImportContext *ctx, HsSentence *sentence,
                                     const char *condition, const char *context);
/* Adds the location to the label once. */
void        hs_import_add_location  (HsImportContext *ctx, HsLabel *label, const char *location);
/* Adds the box to the region unless an equal one is there; FALSE then. */
gboolean    hs_import_add_box       (HsImportContext *ctx, HsRegion *region,
                                     double x1, double y1, double x2, double y2);
/* Fills a height × width mask with the polygon (x0 y0 x1 y1 ...), pixel
 * centres inside by the even-odd rule. */
void     hs_import_fill_polygon (guint8 *mask, guint width, guint height,
                                 const double *xy, guint n_points);

G_END_DECLS
