/* hs-phantom.h — procedural chest-radiograph phantoms with exact ground truth */
#pragma once

#include <glib.h>
#include "hs-image.h"
#include "hs-attention-map.h"
#include "hs-dataset.h"
#include "hs-report.h"

G_BEGIN_DECLS

#define HS_PHANTOM_ERROR (hs_phantom_error_quark ())
GQuark hs_phantom_error_quark (void);

typedef enum {
  HS_PHANTOM_ERROR_INVALID,    /* bad size or options                   */
  HS_PHANTOM_ERROR_TOO_LARGE,  /* refused by HsLimits before allocating */
  HS_PHANTOM_ERROR_IO,         /* writing the dataset failed            */
} HsPhantomError;

#define HS_PHANTOM_DEFAULT_SIZE 1024
#define HS_PHANTOM_MIN_SIZE     64

/* The patient's side of a finding.  The patient's right is on the image's
 * LEFT (PA view). */
typedef enum {
  HS_PHANTOM_SIDE_NONE,
  HS_PHANTOM_SIDE_RIGHT,
  HS_PHANTOM_SIDE_LEFT,
  HS_PHANTOM_SIDE_BOTH,
} HsPhantomSide;

/* An anatomical region with Chest ImaGenome's name and its exact box: the
 * bounding box of the region's pixels as generated (half-open, pixels). */
typedef struct {
  char  *name;
  HsBox  box;
} HsPhantomRegion;

/* A finding: its condition, the ImaGenome locations it is reported in, and
 * its lesion (a region named `name`, with a full-size mask and its box). */
typedef struct {
  char          *condition;
  char          *name;       /* lesion region name, e.g. "nodule"           */
  char         **locations;  /* NULL-terminated ImaGenome names             */
  HsPhantomSide  side;
  HsBox          box;        /* bounding box of the mask's non-zero pixels  */
  guint8        *mask;       /* width × height bytes, 255 inside, 0 outside */
} HsPhantomFinding;

/* One generated instance.  All fields are read-only. */
typedef struct {
  guint64    seed;
  guint64    index;
  guint      width;
  guint      height;
  guint16   *pixels;      /* width × height 16-bit grey, row-major, top first */
  gboolean   abnormal;
  GPtrArray *regions;     /* of HsPhantomRegion*, in hs_phantom_region_names() order */
  GPtrArray *findings;    /* of HsPhantomFinding* */
  GPtrArray *sentences;   /* of HsReportSentence* (hs-report.h) */
} HsPhantom;

/* The anatomical region names every phantom carries (NULL-terminated). */
const char *const *hs_phantom_region_names (void);

/* Generates instance `index` of the dataset with `seed`: the same
 * (seed, index, width, height) always gives the same phantom, bit for bit,
 * on every platform (own PRNG, no global state).  Sizes from
 * HS_PHANTOM_MIN_SIZE; width and height may differ. */
HsPhantom  *hs_phantom_generate       (guint64 seed, guint64 index, guint width, guint height,
                                       GError **error);
void        hs_phantom_free           (HsPhantom *phantom);
const HsPhantomRegion  *hs_phantom_find_region  (const HsPhantom *phantom, const char *name);
const HsPhantomFinding *hs_phantom_find_finding (const HsPhantom *phantom, const char *name);
/* Box of a region or lesion name (anatomy first), FALSE when unknown. */
gboolean    hs_phantom_get_box        (const HsPhantom *phantom, const char *name, HsBox *box);
/* A new one-channel 16-bit HsImage of the pixels. */
HsImage    *hs_phantom_to_image       (const HsPhantom *phantom, GError **error);

/* ---- attention sources for precomputed maps ---- */

/* A live model computing the attention of `model` for `prompt` on `image`. */
typedef HsAttentionMap *(*HsPhantomAttendFunc) (HsImage    *image,
                                                const char *prompt,
                                                const char *model,
                                                gpointer    data,
                                                GError    **error);

typedef struct {
  char               **models;  /* model names this source serves, NULL-terminated */
  HsPhantomAttendFunc  func;
  gpointer             data;
} HsPhantomAttendSource;

/* The SIMULATED sources (stand-ins until trained models exist):
 *   "sim-grounded" — smooth blobs over the boxes the text names (what a
 *                    text-following model would show) plus noise;
 *   "sim-blind"    — blobs over the image's lesions whatever the text says
 *                    (the paper's failure mode).
 * Grid of `grid` × `grid` cells (16 in the demo), values ≥ 0 summing to 1.
 * `boxes` are the boxes named by the prompt (ignored by sim-blind); `key`
 * seeds the noise.  Returns NULL for an unknown model. */
#define HS_PHANTOM_SIM_GROUNDED "sim-grounded"
#define HS_PHANTOM_SIM_BLIND    "sim-blind"
/*   "coattn-sim"   — a SIMULATED report generator with co-attention (Jing
 *                    et al. 2018): its visual map is sim-grounded's (own
 *                    noise), its tag weights hs_phantom_simulate_tags'. */
#define HS_PHANTOM_SIM_COATTN   "coattn-sim"
double     *hs_phantom_simulate_map   (const HsPhantom *phantom, const char *model,
                                       const HsBox *boxes, guint n_boxes, guint64 key,
                                       guint grid);
/* coattn-sim's tag attention for `sentence` (its left/right-swapped prompt
 * when `swapped`), from the phantom's labels: the image's tags are its
 * findings' conditions, two conditions it does not have, "normal", "left"
 * and "right" (in that order, the same for every sentence of the image);
 * the sentence weights most the tags it names — its condition (positive)
 * or "normal" (negative or clear sentence; a negated condition a little),
 * and "left"/"right" for the sides of its locations (swapped: the other
 * side) — every tag a little, with noise seeded by (seed ^ key, index).
 * Weights are multiples of 0.001 summing to 1.  Free with
 * hs_tag_weights_free (…, *n_tags). */
HsTagWeight *hs_phantom_simulate_tags (const HsPhantom *phantom,
                                       const HsReportSentence *sentence,
                                       gboolean swapped, guint64 key, guint *n_tags);

/* ---- the demo dataset writer ---- */

typedef struct {
  guint64  seed;
  guint64  start;          /* index of the first instance            */
  guint    count;
  guint    width, height;  /* HS_PHANTOM_DEFAULT_SIZE when 0         */
  gboolean simulated_maps; /* add "sim-grounded" and "sim-blind" maps */
  gboolean coattn_sim;     /* add "coattn-sim" maps with tag attention */
  guint    map_grid;       /* 16 when 0                              */
  /* live sources (e.g. the built-in models); may be NULL */
  const HsPhantomAttendSource *sources;
  guint    n_sources;
  /* progress callback, may be NULL */
  void   (*progress) (guint done, guint total, gpointer data);
  gpointer progress_data;
  /* Replace a dataset already in OUT (without: a non-empty OUT is refused). */
  gboolean force;
  /* Instances generated at once on as many threads (0 or 1: one); the
   * files do not depend on it.  The sources' func must then be thread-safe. */
  guint    jobs;
} HsPhantomWriteOptions;

/* Writes OUT/heatscope.json, OUT/images/, OUT/masks/ and OUT/maps/ through
 * the dataset writer (hs-dataset-writer.h: staged beside OUT, locked,
 * switched in whole); for
 * every sentence one map per model (query = sentence id), and for every
 * sentence whose targets lie in one image half also the map of its
 * left/right-swapped prompt (query = sentence id, prompt = swapped text).
 * Same options ⇒ byte-identical files. */
gboolean    hs_phantom_write_dataset  (const char *out_dir, const HsPhantomWriteOptions *options,
                                       GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsPhantom, hs_phantom_free)

G_END_DECLS
