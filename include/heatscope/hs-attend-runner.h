/* hs-attend-runner.h — attend every query (and its perturbations) of a dataset with one model */
#pragma once

#include <gio/gio.h>
#include "hs-dataset.h"
#include "hs-metrics.h"
#include "hs-perturb.h"

G_BEGIN_DECLS

#define HS_ATTEND_ERROR (hs_attend_error_quark ())
GQuark hs_attend_error_quark (void);

typedef enum {
  HS_ATTEND_ERROR_INVALID,        /* bad options: no model, shard out of range, ...        */
  HS_ATTEND_ERROR_MODEL_CHANGED,  /* NAME's maps were computed by another model or command */
} HsAttendError;

/* Which queries of each instance are attended. */
typedef enum {
  HS_ATTEND_QUERIES_ALL,        /* every query                                       */
  HS_ATTEND_QUERIES_SENTENCES,  /* report sentences and custom prompts (kind ≠ class) */
  HS_ATTEND_QUERIES_LABELS,     /* class-label queries (kind "class")                 */
} HsAttendQueries;

/* Counts of one run, in maps.  total = skipped + computed + failed + still to do. */
typedef struct {
  guint total;
  guint skipped;         /* already in the dataset (a resumed run)              */
  guint computed;
  guint failed;          /* reported through the problem callback              */
  guint not_applicable;  /* perturbations that do not apply to a query         */
} HsAttendCounts;

/* Called on the thread that runs hs_attend_dataset after every map. */
typedef void (*HsAttendProgressFunc) (const HsAttendCounts *counts, gpointer user_data);
/* One map that could not be computed: the instance, its image file (relative
 * to the dataset), the query id (or for a perturbation "QUERY (PERTURBATION)")
 * and why.  The run goes on. */
typedef void (*HsAttendProblemFunc)  (const char *instance, const char *image, const char *query,
                                      const char *reason, gpointer user_data);

typedef struct {
  /* Exactly one of: a built-in model name or .safetensors path
   * (hs_model_load_builtin), or the command line of an external backend
   * (hs-backend-exec.h: from the user only, never from a dataset). */
  const char      *model;
  const char      *backend_command;
  guint            backend_timeout_ms;   /* 0: HS_BACKEND_EXEC_DEFAULT_TIMEOUT_MS */
  /* The model name the maps get in the dataset; NULL: the weights' own
   * name (required with a backend). */
  const char      *name;
  HsAttendQueries  queries;
  /* Text perturbations also attend each query's perturbed prompt, drawn as
   * `metrics --perturb` draws it (same seed, same protocol → same prompt);
   * target perturbations (random-boxes) need no map of their own. */
  const HsPerturbation *perturbations;
  guint            n_perturbations;
  guint64          perturb_seed;
  HsProtocol       protocol;             /* selects the swap-left-right variant */
  gboolean         tokens;               /* keep per-token maps [tokens, h, w]   */
  guint            jobs;                 /* workers (backend processes); 0 = 1 */
  guint            shard_k, shard_n;     /* the K-th of N blocks of instances (1-based); 0/0 = all */
  /* Recompute NAME's maps of this shard even when they exist, and accept
   * a model or command other than the one recorded for NAME. */
  gboolean         force;
  /* The maps are recorded in the manifest every 2 s; with batch_maps > 0
   * also as soon as that many are waiting. */
  guint            batch_maps;
  HsAttendProgressFunc progress;
  HsAttendProblemFunc  problem;
  gpointer         user_data;
} HsAttendOptions;

void     hs_attend_options_init (HsAttendOptions *options);

/* Attends every (instance, query) of the dataset at `dataset_path` (of the
 * shard) that has no map of NAME yet, and with perturbations every
 * perturbed prompt without one; writes each map as a .npy under maps/
 * (hs_npy_write: atomic) and records the maps in the manifest in batches,
 * each under the dataset's writer lock (waiting for other writers): the
 * manifest is read again under the lock, the new maps added, and written
 * atomically, so concurrent shards keep each other's maps and a run
 * killed at any point leaves a valid dataset whose recorded maps are
 * skipped by the next run.  The model is recorded as models.NAME.computed_by
 * (hs_dataset_get_model_computed_by); another one under the same NAME is
 * refused (HS_ATTEND_ERROR_MODEL_CHANGED) unless `force`.
 * Returns FALSE only when the run as a whole fails (dataset, model, lock,
 * manifest; G_IO_ERROR_CANCELLED after recording what was computed);
 * maps that fail are reported through options->problem and counted. */
gboolean hs_attend_dataset (const char *dataset_path, const HsAttendOptions *options,
                            GCancellable *cancellable, HsAttendCounts *counts, GError **error);

G_END_DECLS
