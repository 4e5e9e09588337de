/* hs-attend-job.h — "Compute maps for this dataset…": the CLI's attend
 * runner (hs-attend-runner.h) on a worker thread, reporting to the main loop
 *
 * The same hs_attend_dataset as `heatscope-cli attend DATASET`, so the maps,
 * their files, the manifest records and what a resumed run skips are the
 * CLI's.  Progress is handed to the main loop (coalesced: at most one
 * pending update), the maps that fail are collected as lines naming the
 * instance, image, query and reason, and "finished" is emitted on the main
 * loop once the run has returned.  A cancelled run has recorded every map it
 * computed (the runner's contract): running again resumes.
 *
 *   job = hs_attend_job_new (dataset_path, &spec);
 *   g_signal_connect (job, "progress", ...);   // main loop
 *   g_signal_connect (job, "finished", ...);   // main loop
 *   hs_attend_job_start (job);
 *   ... hs_attend_job_cancel (job);
 */
#pragma once

#include <gio/gio.h>
#include <heatscope/hs-attend-runner.h>

G_BEGIN_DECLS

/* What to compute: the dialog's choices. */
typedef struct {
  char            *model;            /* built-in name or .safetensors path; NULL with a backend */
  char            *backend_command;  /* the user's own (never a dataset's), or NULL */
  char            *name;             /* the maps' model name; NULL: the weights' own */
  HsAttendQueries  queries;
  char           **perturbations;    /* text perturbation names, or NULL */
  gboolean         force;
} HsAttendSpec;

void hs_attend_spec_clear (HsAttendSpec *spec);
void hs_attend_spec_copy  (const HsAttendSpec *from, HsAttendSpec *to);

#define HS_TYPE_ATTEND_JOB (hs_attend_job_get_type ())
G_DECLARE_FINAL_TYPE (HsAttendJob, hs_attend_job, HS, ATTEND_JOB, GObject)

HsAttendJob          *hs_attend_job_new              (const char *dataset_path,
                                                      const HsAttendSpec *spec);
const char           *hs_attend_job_get_dataset_path (HsAttendJob *self);
const HsAttendSpec   *hs_attend_job_get_spec         (HsAttendJob *self);
/* Runs the whole dataset on a worker thread (once). */
void                  hs_attend_job_start            (HsAttendJob *self);
/* Stops the run: maps being computed are dropped, computed ones recorded. */
void                  hs_attend_job_cancel           (HsAttendJob *self);
/* Cancels the run from the worker once `n_maps` maps are computed: a
 * cancel at a chosen point (tests), not at a moment. 0 = never. */
void                  hs_attend_job_set_cancel_after (HsAttendJob *self, guint n_maps);
gboolean              hs_attend_job_get_running      (HsAttendJob *self);
gboolean              hs_attend_job_get_cancelled    (HsAttendJob *self);
/* The counts as of the last "progress" (the final ones after "finished"). */
const HsAttendCounts *hs_attend_job_get_counts       (HsAttendJob *self);
/* "INSTANCE (IMAGE), QUERY: REASON" per failed map, in order. */
GPtrArray            *hs_attend_job_get_problems     (HsAttendJob *self);
/* Why the run as a whole failed (not for a cancel), or NULL. */
const GError         *hs_attend_job_get_error        (HsAttendJob *self);
/* Done of total maps, 0..1. */
double                hs_attend_job_get_fraction     (HsAttendJob *self);
/* "12 / 40 maps · 3.1 maps/s · about 9 s left" (rate and ETA once known). */
char                 *hs_attend_job_dup_progress_text (HsAttendJob *self);
/* After "finished": "12 maps computed, 28 skipped (already in the
 * dataset), 0 failed", or why it stopped. */
char                 *hs_attend_job_dup_summary      (HsAttendJob *self);

G_END_DECLS
