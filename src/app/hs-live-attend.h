/* hs-live-attend.h — live attention shared by the main window, the compare
 * view and the Perturb tab
 *
 * One per main window.  It owns what makes live maps cheap: the built-in
 * models with the features of the last image per model (HsModelCache), the
 * external backend's process (HsBackendExec, started on its first request)
 * and a small LRU of finished maps keyed by (model, dataset, instance,
 * prompt), so a map the window computed is not computed again by a compare
 * grid, and back.  A map is only valid for the image file it was computed
 * from: it is kept with that file's stamp (hs-file-stamp.h), taken before
 * the image was read for the model, and a lookup compares it with the file
 * now (one stat) — an image replaced on disk is a miss, never
 * the old image's map beside the new image.
 *
 * A request runs off the main thread: image (decoded when not handed in),
 * features (cached), attend — or one request to the backend process.  A
 * request that finishes after being cancelled still feeds the LRU; dropping
 * a superseded result is the caller's business (the window counts serials,
 * the compare view and the Perturb tab a generation).
 *
 *   live = hs_live_attend_new ();
 *   hs_live_attend_set_exec_command (live, command);      // optional
 *   key = hs_live_attend_make_key (dataset, instance, "grounded", prompt);
 *   map = hs_live_attend_lookup (live, key);              // NULL: not yet
 *   hs_live_attend_async (live, dataset, instance, image, stamp, "grounded", prompt,
 *                         cancellable, done, data);
 *   ... done: map = hs_live_attend_finish (live, result, &error);
 */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>
#include <heatscope/hs-file-stamp.h>
#include <heatscope/hs-model.h>

G_BEGIN_DECLS

/* The external backend's model name (no built-in model has this name). */
#define HS_LIVE_EXEC_NAME "external"

#define HS_TYPE_LIVE_ATTEND (hs_live_attend_get_type ())
G_DECLARE_FINAL_TYPE (HsLiveAttend, hs_live_attend, HS, LIVE_ATTEND, GObject)

HsLiveAttend   *hs_live_attend_new              (void);
/* The built-in models' cache (owned by `self`, thread-safe). */
HsModelCache   *hs_live_attend_get_model_cache  (HsLiveAttend *self);
/* The external backend's command line (from the user's settings or the
 * command line, never a dataset); NULL or "" = none.  A new command stops
 * the old process and forgets the maps it gave. */
void            hs_live_attend_set_exec_command (HsLiveAttend *self, const char *command);
const char     *hs_live_attend_get_exec_command (HsLiveAttend *self);

/* The external backend command the user gave: the application's
 * --backend-exec, else the "backend-command" preference; NULL when none.
 * Never a dataset's (a manifest only ever records a command to compare). */
char           *hs_live_attend_dup_user_command (GtkWindow *window);

/* TRUE for HS_LIVE_EXEC_NAME. */
gboolean        hs_live_attend_is_exec          (const char *model);
/* "grounded (live)", "External backend (live)": the model selector's label. */
char           *hs_live_attend_display_name     (const char *model);
/* What errors of `model` are reported under: the backend's command for the
 * external backend, else the model name. */
const char     *hs_live_attend_get_source_name  (HsLiveAttend *self, const char *model);

/* The cache key of a live map; NULL when an argument is missing. */
char           *hs_live_attend_make_key         (HsDataset *dataset, HsInstance *instance,
                                                 const char *model, const char *prompt);
/* A finished map (transfer full; it becomes the most recent), or NULL —
 * also when the image file it was computed from changed since (then it is
 * dropped and counted in hs_live_attend_get_n_stale). */
HsAttentionMap *hs_live_attend_lookup           (HsLiveAttend *self, const char *key);
guint           hs_live_attend_get_n_stale      (HsLiveAttend *self);
void            hs_live_attend_clear            (HsLiveAttend *self);

/* Attends `prompt` with `model` (a built-in name or path, or
 * HS_LIVE_EXEC_NAME) on the instance's image: `image` when the caller has it
 * decoded, else it is loaded in the worker.  `image_stamp`: the stamp of
 * the image's file taken before `image` was decoded (NULL: taken now; not
 * used without `image`, the worker stamps the file before it decodes it).
 * Errors: the model's
 * (HS_MODEL_ERROR_EMPTY_PROMPT for a prompt without words), the backend's
 * (naming its command), HS_BACKEND_ERROR_COMMAND when no command is set,
 * G_IO_ERROR_CANCELLED. */
void            hs_live_attend_async            (HsLiveAttend *self, HsDataset *dataset,
                                                 HsInstance *instance, HsImage *image,
                                                 const HsFileStamp *image_stamp,
                                                 const char *model, const char *prompt,
                                                 GCancellable *cancellable,
                                                 GAsyncReadyCallback callback, gpointer user_data);
HsAttentionMap *hs_live_attend_finish           (HsLiveAttend *self, GAsyncResult *result,
                                                 GError **error);
/* The key the request of `result` was cached under. */
const char     *hs_live_attend_result_get_key   (GAsyncResult *result);
/* How long the request's model work took in its worker thread (image
 * decoding and waiting for a thread excluded; for the external backend the
 * whole request), in ms; 0 when it gave no map. */
double          hs_live_attend_result_get_compute_ms (GAsyncResult *result);

G_END_DECLS
