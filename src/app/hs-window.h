/* hs-window.h — the main window: browser, canvas, prompt, overlay, metrics
 *
 * Window actions (accelerators in hs_application_set_accels):
 *   win.open, win.reload, win.export(s: "png"|"svg"|"pdf"), win.search,
 *   win.next-instance, win.previous-instance, win.next-sentence,
 *   win.previous-sentence, win.swap-sides, win.reset-prompt,
 *   win.attend (Compute maps for this dataset…), win.attend-cancel.
 * Datasets load off the main thread; problems appear in the window's error
 * bar with the file and the problem. */
#pragma once

#include <gtk/gtk.h>
#include <heatscope/hs-dataset.h>
#include <heatscope/hs-deck.h>

#include "hs-application.h"
#include "hs-attend-job.h"
#include "hs-error-bar.h"
#include "hs-instance-browser.h"
#include "hs-live-attend.h"
#include "hs-prompt-panel.h"

G_BEGIN_DECLS

#define HS_TYPE_WINDOW (hs_window_get_type ())
G_DECLARE_FINAL_TYPE (HsWindow, hs_window, HS, WINDOW, GtkApplicationWindow)

/* `app` may be NULL (tests). */
HsWindow          *hs_window_new                  (HsApplication *app);
/* Opens a dataset folder or its heatscope.json (asynchronously; property
 * "loading" is TRUE meanwhile, and while an instance's image decodes). */
void               hs_window_open                 (HsWindow *self, GFile *file);
/* Opens the dataset remembered in GSettings, when there is one. */
gboolean           hs_window_restore_last_dataset (HsWindow *self);
gboolean           hs_window_get_loading          (HsWindow *self);
HsDataset         *hs_window_get_dataset          (HsWindow *self);
HsInstance        *hs_window_get_instance         (HsWindow *self);
gboolean           hs_window_select_instance      (HsWindow *self, const char *id);
gboolean           hs_window_select_model         (HsWindow *self, const char *model);
const char        *hs_window_get_model            (HsWindow *self);
/* The model selector (a GtkDropDown) and what its entry `position` reads
 * (with the phantom note for a built-in model on real images). */
GtkWidget         *hs_window_get_model_selector   (HsWindow *self);
char              *hs_window_dup_model_label      (HsWindow *self, guint position);
/* The map on screen (NULL when none). */
HsAttentionMap    *hs_window_get_map              (HsWindow *self);
/* Writes the current view to `path` (PNG, SVG or PDF by extension). */
gboolean           hs_window_export_to_file       (HsWindow *self, const char *path, GError **error);
/* The current view as a one-panel publication figure through the composer
 * (hs-window-figure.c): the file `heatscope-cli figure` writes for the same
 * panel and settings; page size from `settings` (figure-width, -dpi,
 * -font-size; NULL: 183mm, 300 dpi, 7 pt). */
gboolean           hs_window_export_figure        (HsWindow *self, const char *path,
                                                   GSettings *settings, GError **error);

HsErrorBar        *hs_window_get_error_bar        (HsWindow *self);
HsInstanceBrowser *hs_window_get_browser          (HsWindow *self);
HsPromptPanel     *hs_window_get_prompt_panel     (HsWindow *self);
/* The canvas widget, or NULL while the canvas is not built in. */
GtkWidget         *hs_window_get_canvas           (HsWindow *self);
/* Live models ("grounded (live)" etc. in the model selector): the built-in
 * name while one is chosen, else NULL; busy while a request is debounced or
 * computing; the debounce after the frame
 * with the edit (fixed; G_MAXUINT, the default, follows the model's measured
 * cost; tests use 0); the time from
 * the last prompt change to the map shown, in ms. */
const char        *hs_window_get_live_model       (HsWindow *self);
/* The live models' runner and its LRU of maps (tests look a result up). */
HsLiveAttend      *hs_window_get_live_attend      (HsWindow *self);
gboolean           hs_window_get_live_busy        (HsWindow *self);
void               hs_window_set_live_delay       (HsWindow *self, guint delay_ms);
/* The live model's measured cost (ms in its worker, averaged; < 0 before its
 * first map), what showing a map cost until its frame was painted (averaged;
 * < 0 before the first) and the debounce that follows from both (or the
 * fixed delay). */
double             hs_window_get_live_cost        (HsWindow *self);
double             hs_window_get_live_show_cost   (HsWindow *self);
guint              hs_window_get_live_debounce    (HsWindow *self);
double             hs_window_get_live_latency     (HsWindow *self);

/* Compute maps for this dataset: runs `spec` with the CLI's attend runner
 * on a worker thread; progress (done / total, rate, time left) and Cancel
 * under the view; when it ends, a summary there (failed maps listed) and
 * the dataset is read again so the new maps are in the model list.  FALSE
 * when a run is going on or no dataset folder is open. */
gboolean           hs_window_attend_start         (HsWindow *self, const HsAttendSpec *spec,
                                                   GError **error);
/* The running or last run, or NULL; the line shown under the view (NULL
 * when hidden); the dialog of win.attend while it is open. */
HsAttendJob       *hs_window_get_attend_job       (HsWindow *self);
const char        *hs_window_get_attend_status    (HsWindow *self);
GtkWindow         *hs_window_get_attend_dialog    (HsWindow *self);
/* Tests: the runs started after this cancel themselves once `n_maps` maps
 * are computed (hs_attend_job_set_cancel_after); 0 = never. */
void               hs_window_set_attend_cancel_after (HsWindow *self, guint n_maps);

/* The demo deck (hs-window-deck.c): a .hsdeck file whose dataset lies in
 * its folder or beneath it.  Every change is saved at once (atomically);
 * the last deck opened is opened again on start (GSettings "last-deck"). */
typedef struct _HsPresentationWindow HsPresentationWindow;
gboolean           hs_window_open_deck            (HsWindow *self, const char *path, GError **error);
gboolean           hs_window_new_deck             (HsWindow *self, const char *path, GError **error);
gboolean           hs_window_restore_last_deck    (HsWindow *self);
HsDeck            *hs_window_get_deck             (HsWindow *self);
const char        *hs_window_get_deck_path        (HsWindow *self);
GtkWidget         *hs_window_get_deck_panel       (HsWindow *self);
/* Opens case `index` of the deck (restores its view); FALSE with the
 * problem in the error bar. */
gboolean           hs_window_open_case            (HsWindow *self, guint index);
/* A results-table row into the deck (the window's overlay settings). */
gboolean           hs_window_deck_add_row         (HsWindow *self, const char *instance,
                                                   const char *sentence, const char *model);
/* Presentation mode from case `first` (NULL without cases). */
HsPresentationWindow *hs_window_present_deck      (HsWindow *self, guint first);

G_END_DECLS
