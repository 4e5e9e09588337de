/* hs-deck.h — a clinician demo deck: saved views ("cases") of one dataset
 *
 * A deck is a `.hsdeck` file, JSON (schema: data/heatscope-deck.schema.json,
 * documented in docs/decks.md):
 *
 *   { "format": "heatscope-deck", "version": 1,
 *     "dataset": "ms-cxr",                       (relative to the deck's folder)
 *     "manifest_sha256": "…64 hex…",             (of DATASET/heatscope.json when saved)
 *     "cases": [ { "instance": "p0001", "sentence": 2, … }, … ] }
 *
 * Every path in a deck is relative to the deck's folder and stays beneath
 * it: no absolute path, no "..", no symlink leading out (checked when the
 * deck is resolved, by the kernel where it can: hs-safe-open.h).
 *
 * The file is untrusted input, read with the manifest's strict JSON reader
 * (hs-json-reader): at most HS_DECK_MAX_BYTES, valid UTF-8, nesting at most
 * 64 deep, at most HS_DECK_MAX_CASES cases, texts at most HS_DECK_MAX_TEXT
 * characters, notes without control characters other than newline and tab.
 * Errors are one line naming the deck and the case:
 *   "talk.hsdeck: case 3: $.cases[2].note: control character U+0007"
 *
 * These are plain structs the app maps its view state onto; loading checks
 * only the deck itself.  Whether its dataset, instances, sentences, models
 * and maps still are what they were is hs_deck_check()'s job
 * (hs-deck-check.c), which needs the dataset. */
#pragma once

#include <glib.h>

#include "hs-attention-map.h"
#include "hs-colormap.h"
#include "hs-contour.h"
#include "hs-dataset.h"
#include "hs-model.h"
#include "hs-overlay.h"
#include "hs-resample.h"

G_BEGIN_DECLS

#define HS_DECK_ERROR (hs_deck_error_quark ())
GQuark hs_deck_error_quark (void);

typedef enum {
  HS_DECK_ERROR_INVALID,     /* not a deck: bad JSON, version, member, value, path */
  HS_DECK_ERROR_IO,          /* cannot read or write the file                      */
  HS_DECK_ERROR_CHANGED,     /* the dataset, an instance, model or map changed     */
} HsDeckError;

#define HS_DECK_VERSION     1
#define HS_DECK_MAX_BYTES   (4 << 20)
#define HS_DECK_MAX_CASES   1000
#define HS_DECK_MAX_TEXT    4096
#define HS_DECK_MAX_MODELS  16
#define HS_DECK_MAX_METRICS 32

typedef enum {
  HS_DECK_VIEW_SINGLE,       /* "single":  one map over the image                  */
  HS_DECK_VIEW_COMPARE,      /* "compare": A | B | A − B (swap pair or two models) */
  HS_DECK_VIEW_BLINK,        /* "blink":   A and B alternating in one place        */
  HS_DECK_VIEW_GRID,         /* "grid":    one panel per model                     */
} HsDeckView;

const char *hs_deck_view_to_string   (HsDeckView view);
gboolean    hs_deck_view_from_string (const char *name, HsDeckView *view);

/* A model a case shows: a precomputed map of the dataset (live FALSE; its
 * name as in the manifest's maps) or a built-in model run on open (live
 * TRUE: hs_model_list_builtin()). */
typedef struct {
  char    *name;
  gboolean live;
} HsDeckModel;

typedef struct {
  /* what is shown */
  char       *instance;          /* instance id                                      */
  guint       sentence;          /* 1-based index into the instance's sentences; 0 = prompt */
  char       *sentence_text;     /* the sentence's text when saved (change check); NULL for a prompt */
  char       *prompt;            /* free text (needs a live model); NULL for a sentence */
  gboolean    swap;              /* also the left↔right swapped prompt (A = original, B = swap) */
  GPtrArray  *models;            /* of HsDeckModel*, 1..HS_DECK_MAX_MODELS           */
  HsDeckView  view;

  /* every overlay setting that changes pixels (hs-overlay.h) */
  HsOverlayOptions overlay;      /* colour map, scale, strength, threshold, upsampling, opacity */
  HsOutline   outline;
  double      outline_top_k;     /* percent, for HS_OUTLINE_TOP_K                    */
  double      window_center;     /* fractions of the full grey range; < 0: automatic */
  double      window_width;      /* <= 0: the full range                             */

  /* the viewport: zoom 1 = the image fitted; centre as fractions of the image */
  double      zoom;              /* [1, 64]                                          */
  double      center_x, center_y;/* [0, 1]; 0.5, 0.5 = centred                      */

  /* layers shown */
  gboolean    show_overlay, show_boxes, show_masks;

  /* presentation */
  char       *note;              /* presenter's note; NULL or text                   */
  gboolean    reveal;            /* image + sentence first, then heatmap, then ground truth */
  char      **metrics;           /* metric names shown with the case (hs_metric_info_lookup); NULL-terminated */

  /* reproducibility: SHA-256 (hex) of the maps the case showed when saved
   * (hs_deck_hash_maps); NULL when not recorded */
  char       *map_sha256;
  /* SHA-256 (hex) of each of those maps alone (hs_deck_hash_maps of one),
   * in the same order: which map changed can be named; NULL when not
   * recorded (decks written before it) */
  char      **maps_sha256;
  /* embedded maps (a bundle, docs/decks.md): one .npy per map, relative to
   * the deck's folder, in the order hs_deck_hash_maps takes them; NULL when
   * not embedded */
  char      **embedded_maps;
} HsDeckCase;

typedef struct {
  char       *dataset;           /* relative to the deck's folder ("." allowed)      */
  char       *manifest_sha256;   /* hex of the manifest's bytes when saved; NULL: unknown */
  GPtrArray  *cases;             /* of HsDeckCase*                                   */
} HsDeck;

/* A case with the library's defaults (those `heatscope-cli figure` uses): single view,
 * hs_overlay_options_init(), no outline (top-k 10 %), automatic
 * window/level, zoom 1 centred, all layers shown, no reveal. */
HsDeckCase *hs_deck_case_new       (const char *instance);
HsDeckCase *hs_deck_case_copy      (const HsDeckCase *item);
void        hs_deck_case_free      (HsDeckCase *item);
void        hs_deck_case_add_model (HsDeckCase *item, const char *name, gboolean live);
/* Whether the maps of the case come (at least partly) from a live model. */
gboolean    hs_deck_case_is_live   (const HsDeckCase *item);
/* The case's sentence or prompt for labels ("Sentence 2" is not a label:
 * the text is); NULL only for an empty case. */
const char *hs_deck_case_get_text  (const HsDeckCase *item);

HsDeck     *hs_deck_new            (const char *dataset);
void        hs_deck_free           (HsDeck *deck);

/* Reads and checks the deck file at `path` (the deck itself, not its
 * dataset); NULL with HS_DECK_ERROR_INVALID or _IO naming the file. */
HsDeck     *hs_deck_load           (const char *path, GError **error);
/* The same for `len` bytes; `display` names the deck in errors. */
HsDeck     *hs_deck_parse          (const char *text, gsize len, const char *display,
                                    GError **error);
/* The deck as JSON text (pretty, one member a line, ending in a newline). */
char       *hs_deck_to_json        (const HsDeck *deck, gsize *length);
/* Writes the deck with hs_atomic_write: the old file or the new, never a mix. */
gboolean    hs_deck_save           (const HsDeck *deck, const char *path, GError **error);

/* A relative path of a deck that stays beneath the deck's folder in
 * writing: not absolute, no "..", no empty or "." components other than a
 * lone ".".  (Symlinks are checked when opening: hs_deck_open_beneath.) */
gboolean    hs_deck_path_is_plain  (const char *relative);
/* Opens `relative` (a plain path; "" or "." is the folder itself) beneath
 * the deck's folder with hs_safe_open_beneath semantics (no symlink may
 * lead out) and returns the descriptor of the FILE `file_in_it` inside it
 * (e.g. "heatscope.json"); -1 with an error naming the deck. */
int         hs_deck_open_beneath   (const char *deck_path, const char *relative,
                                    const char *file_in_it, GError **error);

/* SHA-256 (hex, 64 characters) over the maps in order: for each map its
 * height, width (uint32 little-endian) and values (IEEE 754 binary64
 * little-endian), so the same pixels give the same hash on every machine. */
char       *hs_deck_hash_maps      (HsAttentionMap * const *maps, guint n_maps);
/* hs_deck_hash_maps of each map alone (NULL-terminated, n_maps long). */
char      **hs_deck_hash_each      (HsAttentionMap * const *maps, guint n_maps);
/* SHA-256 (hex) of a file's bytes read from `fd` (the manifest). */
char       *hs_deck_hash_fd        (int fd, const char *display, GError **error);

/* --- the deck against its dataset (hs-deck-check.c) ----------------------- */

/* The dataset folder `dataset_path` relative to the folder of the deck at
 * `deck_path` ("." when it is that folder); NULL with HS_DECK_ERROR_INVALID
 * when it is not beneath it (symlinks resolved), naming both. */
char       *hs_deck_relative_dataset (const char *deck_path, const char *dataset_path,
                                      GError **error);
/* Opens the deck's dataset (beneath the deck's folder: hs_deck_open_beneath)
 * and hashes its manifest into *manifest_sha256 (when not NULL).  NULL with
 * HS_DECK_ERROR_CHANGED (missing, moved, unreadable) or _INVALID (leaves the
 * folder) naming the deck and the dataset. */
HsDataset  *hs_deck_open_dataset   (const HsDeck *deck, const char *deck_path,
                                    char **manifest_sha256, GError **error);

/* What a case shows, found in the dataset. */
typedef struct {
  HsInstance *instance;          /* borrowed from the dataset                        */
  HsSentence *sentence;          /* borrowed; NULL for a prompt                      */
  const char *text;              /* what A attends to: the sentence's text or the prompt */
  char       *swapped;           /* what B attends to when swapped, else NULL        */
} HsDeckTarget;

void        hs_deck_target_clear   (HsDeckTarget *target);
/* Finds case `number` (from 1) of the deck in `dataset`: its instance, its
 * sentence (whose text must be the one saved), a map of every precomputed
 * model for it (and for its swap).  FALSE with HS_DECK_ERROR_CHANGED, one
 * line naming the deck, the case and what changed. */
gboolean    hs_deck_case_resolve   (const HsDeck *deck, guint number, const char *deck_path,
                                    HsDataset *dataset, HsDeckTarget *target, GError **error);
/* The case's maps in hash order: for each model A, then B when swapped —
 * read from the dataset, attended now by a live model (through `models`),
 * or, for a bundle (embedded_maps), read from the deck's folder.  NULL with
 * the error naming the deck and the case. */
GPtrArray  *hs_deck_case_load_maps (const HsDeck *deck, guint number, const char *deck_path,
                                    HsDataset *dataset, const HsDeckTarget *target,
                                    HsModelCache *models, GError **error);
/* Checks that every case resolves and shows the maps it was saved with;
 * appends one line per problem (char*, "DECK: case N: …") to `problems`,
 * the deck-wide ones (dataset missing, manifest changed) first.  Returns
 * TRUE when there is none. */
gboolean    hs_deck_check          (const HsDeck *deck, const char *deck_path,
                                    HsModelCache *models, GPtrArray *problems);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsDeck, hs_deck_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsDeckCase, hs_deck_case_free)

G_END_DECLS
