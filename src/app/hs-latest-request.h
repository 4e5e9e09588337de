/* hs-latest-request.h — "the newest request wins" for asynchronous work
 *
 * Live maps are computed off the main thread; when the prompt or the
 * instance changes again before one ends, only the newest request's
 * result may be shown, and the older ones are cancelled (their results
 * still feed caches).  Requests are issued in generations: a cancel starts
 * a new one, and every ticket of an older generation is stale from then on.
 * Several requests may share a generation (the compare view's cells).
 *
 * Usage:
 *   hs_latest_request_cancel (latest);                       // drop what was asked before
 *   ticket = hs_latest_request_issue (latest, &cancellable); // then start the work
 *   ...
 *   // in the callback:
 *   if (!hs_latest_request_finish (latest, ticket))
 *     return;                                                // superseded
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define HS_TYPE_LATEST_REQUEST (hs_latest_request_get_type ())
G_DECLARE_FINAL_TYPE (HsLatestRequest, hs_latest_request, HS, LATEST_REQUEST, GObject)

HsLatestRequest *hs_latest_request_new             (void);
/* Makes every request issued so far stale and cancels their cancellable. */
void             hs_latest_request_cancel          (HsLatestRequest *self);
/* A ticket for a new request of the current generation; `cancellable`
 * (borrowed, may be NULL) is the generation's, to hand to the work. */
guint64          hs_latest_request_issue           (HsLatestRequest *self,
                                                    GCancellable   **cancellable);
/* TRUE while `ticket` belongs to the current generation. */
gboolean         hs_latest_request_is_current      (HsLatestRequest *self,
                                                    guint64          ticket);
/* The request of `ticket` ended.  TRUE when it is current (show its
 * result); it then no longer counts as pending, and the generation's
 * cancellable is dropped with its last pending request. */
gboolean         hs_latest_request_finish          (HsLatestRequest *self,
                                                    guint64          ticket);
/* Requests of the current generation issued and not finished. */
guint            hs_latest_request_get_n_pending   (HsLatestRequest *self);

G_END_DECLS
