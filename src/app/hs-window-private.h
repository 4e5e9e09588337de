/* hs-window-private.h — what the files of HsWindow share
 *
 *   hs-window.c          the object and template, the spinner, the instance
 *                        and its view (image, map, targets into the panels),
 *                        the public getters
 *   hs-window-models.c   the model drop-down and the live requests
 *   hs-window-dataset.c  open, reload, restore, drag and drop
 *   hs-window-actions.c  the win.* actions and their choosers
 *   hs-window-layers.c   every region on the canvas (the layers panel),
 *                        win.link-target and win.undo
 *   hs-window-attend.c   win.attend: compute maps for the dataset, the
 *                        run's progress under the view
 *   hs-window-deck.c     the demo deck: its panel and file, Add to deck,
 *                        opening a case, presentation mode (win.deck-*)
 *   hs-window-deck-case.c  a case captured from the view and restored
 *   hs-window-deck-verify.c  a case opened shows the maps it saved, or says what differs
 */
#pragma once

#include <heatscope/hs-lru-cache.h>

#include "hs-window.h"
#include "hs-attend-job.h"
#include "hs-canvas.h"
#include "hs-compare-view.h"
#include "hs-latest-request.h"
#include "hs-live-attend.h"
#include "hs-mask-layer.h"
#include "hs-view-state.h"
#include <heatscope/hs-deck.h>

G_BEGIN_DECLS

typedef struct _HsDeckVerify HsDeckVerify;

struct _HsWindow
{
  GtkApplicationWindow  parent_instance;

  /* template */
  HsErrorBar           *error_bar;
  HsInstanceBrowser    *browser;
  HsPromptPanel        *prompt_panel;
  GtkDropDown          *model_dropdown;
  GtkLabel             *title_label;
  GtkLabel             *subtitle_label;
  GtkLabel             *status_label;
  GtkStack             *view_stack;
  GtkBox               *canvas_slot;
  GtkBox               *overlay_slot;
  GtkBox               *metrics_slot;
  GtkBox               *perturb_slot;
  GtkBox               *layers_slot;
  GtkWidget            *perturb_panel;
  GtkSpinner           *spinner;
  GtkSpinner           *header_spinner;
  GtkLabel             *empty_title;
  GtkStack             *side_stack;
  GtkRevealer          *attend_revealer;
  GtkLabel             *attend_label;
  GtkLabel             *attend_problems;
  GtkProgressBar       *attend_progress;
  GtkButton            *attend_cancel_button;
  GtkButton            *attend_close_button;

  GtkWidget            *canvas;          /* HsCanvas or a placeholder */
  GtkWidget            *overlay_panel;
  GtkWidget            *metrics_panel;
  GtkWidget            *layers_panel;
  GObject              *view_state;
  GSettings            *settings;
  GtkStringList        *models;

  HsDataset            *dataset;
  char                 *dataset_path;
  char                 *pending_instance;  /* remembered id not read yet (large datasets) */
  HsInstance           *instance;        /* borrowed from dataset */
  HsImage              *image;
  HsFileStamp           image_stamp_buf;
  const HsFileStamp    *image_stamp;       /* of image's file before its decode (NULL: none) */
  HsAttentionMap       *map;
  HsMapRef             *shown_ref;       /* borrowed from instance */
  HsInstance           *view_instance;   /* the instance the view was last updated for */
  char                 *model;

  GCancellable         *cancellable;       /* dataset loading */
  GCancellable         *image_cancellable; /* non-NULL while the image loads */
  GtkFileChooserNative *chooser;
  gboolean              loading;
  gboolean              restoring;
  gboolean              filling_models;
  gboolean              reset_levels;      /* opened by the user: automatic window/level */

  /* Live attention (the built-in models): see "live models" below. */
  HsLiveAttend         *live;              /* models, backend, LRU: shared with compare/perturb */
  GPtrArray            *live_names;        /* built-in names offered, after the precomputed ones */
  /* The lesion classifier's saliency names whose weights load; offered (in
   * live_names, before the backend) on a dataset whose queries name one of
   * its classes, where its maps mean something. */
  GPtrArray            *live_saliency;
  guint                 n_live_saliency;   /* of them in live_names now */
  guint                 n_precomputed;     /* dataset models at the head of `models` */
  /* Real images and no precomputed map: "No model" after them (selected
   * first: a built-in model is applied only when the user picks it). */
  gboolean              no_model_entry;
  gboolean              real_images;       /* the dataset has a non-phantom instance */
  gboolean              live_checked;      /* weights tried (errors reported once) */
  char                 *live_model;        /* built-in name while a live model is chosen */
  HsLatestRequest      *live_request;      /* the newest request wins */
  guint                 live_timeout;      /* debounce */
  GdkFrameClock        *live_clock;        /* while waiting for the key's echo to be painted */
  gulong                live_paint_handler;
  guint                 live_delay_ms;     /* fixed by hs_window_set_live_delay; else adaptive */
  GHashTable           *live_costs;        /* live model → ms a request took (double *, averaged) */
  double                live_show_ms;      /* a map shown → its frame painted, averaged (< 0: none yet) */
  gint64                live_show_us;      /* while the frame of a shown map is awaited */
  gulong                live_show_handler;
  char                 *live_key;          /* (model, instance, prompt) of the map shown */
  gint64                live_changed_us;   /* when the prompt last changed, for latency */
  double                live_latency_ms;
  double                live_compute_ms;

  /* Layers and linking: see hs-window-layers.c. */
  GPtrArray            *link_undo;         /* LinkEdit*, newest last */
  GHashTable           *layer_masks;       /* HsRegion* → HsMaskLayer* (or NULL) of one instance */
  HsInstance           *layer_masks_instance;
  HsDataset            *layer_masks_dataset;

  /* The Metrics and Perturb tabs follow the view only while shown (see
   * feed_side_panels in hs-window.c): what they would be given meanwhile. */
  gboolean              metrics_stale, perturb_stale;
  GPtrArray            *side_regions;      /* the sentence's targets, or NULL */
  GPtrArray            *side_masks;

  /* Decoded images and maps (hs-window-cache.c). */
  HsLruCache           *image_cache;
  HsLruCache           *map_cache;
  HsLruCache           *mask_cache;            /* region->mask path → HsMaskLayer */
  GCancellable         *prefetch_cancellable;  /* non-NULL while neighbours decode */
  guint                 prefetch_idle;
  GdkFrameClock        *prefetch_clock;        /* waiting for its after-paint */
  gulong                prefetch_paint_id;

  /* The results table (win.results), created on first use; NULL after. */
  GtkWidget            *results_window;

  /* win.attend: the last run (running or finished) and its dialog (weak). */
  HsAttendJob          *attend_job;
  GtkWindow            *attend_dialog;
  guint                 attend_cancel_after;   /* tests */

  /* The demo deck: see hs-window-deck.c. */
  GtkRevealer          *deck_revealer;     /* template: the deck panel's place */
  GtkWidget            *deck_panel;
  HsDeck               *deck;
  char                 *deck_path;
  GHashTable           *deck_thumbs;       /* HsDeckCase* → GdkPaintable* of the cases shown */
  HsDeckCase           *deck_deleted;      /* the last deleted case (undo) */
  guint                 deck_deleted_index;
  HsDeckCase           *deck_pending;      /* restored but for the viewport (waits for the image) */
  HsDeckVerify         *deck_verify;       /* the case opened last, checked once its maps are in */
  gboolean              deck_checked;      /* the deck's dataset checked (once per deck and dataset) */
  char                 *deck_checked_root; /* the open dataset it was checked against */
  char                 *deck_problem;      /* why the deck's cases cannot be shown, or NULL */
  gboolean              deck_present_waiting; /* the presentation waits for the live map */
  guint                 deck_open_index;
  GtkWidget            *presentation;      /* HsPresentationWindow or NULL */
  guint                 deck_present_index;
};

typedef enum {
  PROP_0,
  PROP_LOADING,
  N_PROPS
} HsWindowProp;

/* hs-window.c */
void      _hs_window_notify              (HsWindow     *self,
                                          HsWindowProp  prop);
void      _hs_window_update_spinner      (HsWindow     *self);
void      _hs_window_set_loading         (HsWindow     *self,
                                          gboolean      loading);
void      _hs_window_show_instance       (HsWindow     *self,
                                          guint         index);
/* Pushes map, targets and caption into the canvas, metrics and perturb
 * panels; `force` also when the map did not change. */
void      _hs_window_update_view_full    (HsWindow     *self,
                                          gboolean      force);

/* hs-window-cache.c */
void            _hs_window_cache_init        (HsWindow *self);
void            _hs_window_cache_clear       (HsWindow *self);
void            _hs_window_cache_dispose     (HsWindow *self);
/* A new reference to the instance's decoded image, or NULL. */
HsImage        *_hs_window_cache_get_image   (HsWindow *self, const HsInstance *instance,
                                              HsFileStamp *stamp);
void            _hs_window_cache_put_image   (HsWindow *self, const HsInstance *instance,
                                              HsImage *image, const HsFileStamp *stamp);
HsAttentionMap *_hs_window_load_map          (HsWindow *self, const HsMapRef *ref, GError **error);
void            _hs_window_count             (HsWindow *self, const char *key, guint n);
HsMaskLayer    *_hs_window_mask_layer        (HsWindow *self, const HsRegion *region, GError **error);
gboolean        _hs_window_collect_targets   (HsWindow *self, const HsSentence *sentence,
                                              GPtrArray **regions, GPtrArray **masks, GError **error);
typedef struct _HsMaskJob HsMaskJob;
HsMaskJob      *_hs_window_mask_job_new      (HsWindow *self, const HsInstance *instance);
void            _hs_window_mask_job_run      (HsMaskJob *job, HsDataset *dataset, GCancellable *cancellable);
void            _hs_window_mask_job_finish   (HsWindow *self, HsMaskJob *job, HsDataset *dataset);
void            _hs_window_mask_job_free     (HsMaskJob *job);
void            _hs_window_prefetch_neighbours (HsWindow *self);
/* The caption of the view (borrowed strings): prompt, model, instance. */
void      _hs_window_get_caption         (HsWindow     *self,
                                          HsCaption    *caption);

/* hs-window-models.c */
void      _hs_window_models_init         (HsWindow     *self);
void      _hs_window_fill_models         (HsWindow     *self);
gboolean  _hs_window_live_busy           (HsWindow     *self);
void      _hs_window_live_cancel         (HsWindow     *self);
void      _hs_window_live_schedule       (HsWindow     *self);
char     *_hs_window_model_label         (HsWindow     *self,
                                          guint         position);

/* hs-window-dataset.c */
void      _hs_window_dataset_init        (HsWindow     *self);

/* hs-window-layers.c */
void      _hs_window_layers_init         (HsWindow     *self);
void      _hs_window_layers_clear        (HsWindow     *self);
/* Every visible region of the instance into the canvas, the panel's rows. */
void      _hs_window_layers_show         (HsWindow     *self);
void      _hs_window_layers_update_actions (HsWindow   *self);
/* The visible regions of the instance into `canvas` as the window draws
 * them (the presentation's canvas too). */
void      _hs_window_layers_apply        (HsWindow     *self,
                                          HsCanvas     *canvas);
/* Adds (linked) or removes `region` as a target of the selected sentence
 * and writes the manifest; FALSE with `error` when nothing changed. */
gboolean  _hs_window_link_target         (HsWindow     *self,
                                          const char   *region,
                                          gboolean      linked,
                                          GError      **error);
gboolean  _hs_window_undo_link           (HsWindow     *self,
                                          GError      **error);
/* A new region `name` with `box` (image pixels), a target of the selected
 * sentence when there is one; the manifest is written, undo removes it. */
gboolean  _hs_window_add_box             (HsWindow     *self,
                                          const char   *name,
                                          const HsBox  *box,
                                          GError      **error);

/* hs-window-attend.c */
void      _hs_window_attend_init         (HsWindow     *self);
void      _hs_window_attend_dispose      (HsWindow     *self);
gboolean  _hs_window_attend_running      (HsWindow     *self);
gboolean  _hs_window_attend_possible     (HsWindow     *self);
void      _hs_window_attend_action       (GSimpleAction *action,
                                          GVariant      *parameter,
                                          gpointer       user_data);
void      _hs_window_attend_cancel_action (GSimpleAction *action,
                                          GVariant      *parameter,
                                          gpointer       user_data);

/* hs-window-actions.c */
void      _hs_window_actions_init        (HsWindow     *self);
/* The actions on the view state (after the panels are built). */
void      _hs_window_actions_init_view   (HsWindow     *self);
void      _hs_window_actions_update      (HsWindow     *self);
/* The results table follows the dataset once it is read completely;
 * invalidate after the dataset's targets change (its rows are rescored). */
void      _hs_window_results_sync        (HsWindow     *self);
void      _hs_window_results_invalidate  (HsWindow     *self);
/* Loads the selected sentence's A | B | A − B (or, with `grid`, the model
 * grid) into `view` exactly as win.compare does; the compare window with
 * it, presented (NULL, with the problem in the error bar, when nothing to
 * compare). */
gboolean  _hs_window_load_compare        (HsWindow     *self,
                                          HsCompareView *view,
                                          gboolean      grid,
                                          GError      **error);
GtkWindow *_hs_window_open_compare       (HsWindow     *self,
                                          gboolean      grid);

/* hs-window-deck.c: the deck panel and file, presentation mode.  A compare
 * window gets "Add to deck" (Ctrl+Shift+A) for its view; a case added
 * (taken; `canvas` for its thumbnail, may be NULL) goes to the open deck,
 * or to a new demo.hsdeck in the dataset's folder. */
void      _hs_window_deck_init (HsWindow *self);
void      _hs_window_deck_clear (HsWindow *self);
void      _hs_window_deck_update_actions (HsWindow *self);
void      _hs_window_deck_watch_compare (HsWindow *self, GtkWindow *window, gboolean grid);
gboolean  _hs_window_deck_add (HsWindow *self, HsDeckCase *item, HsCanvas *canvas);
void      _hs_window_deck_present_ready (HsWindow *self);

/* hs-window-deck-case.c: the view into a case (viewer, compare window,
 * results row) and back; restore fails with HS_DECK_ERROR_CHANGED naming
 * what no longer resolves, leaving the viewport to the image's arrival. */
HsDeckCase *_hs_window_deck_capture (HsWindow *self, GError **error);
HsDeckCase *_hs_window_deck_capture_compare (HsWindow *self, HsCompareView *view, gboolean grid, GError **error);
HsDeckCase *_hs_window_deck_capture_row (HsWindow *self, const char *instance_id, const char *sentence_id,
                                         const char *model, GError **error);
gboolean  _hs_window_deck_restore (HsWindow *self, const HsDeckCase *item, GError **error);
/* hs-window-deck-verify.c */
void      _hs_deck_verify_free (HsDeckVerify *verify);
void      _hs_window_deck_verify (HsWindow *self, guint index, HsCompareView *view);
void      _hs_window_deck_verify_live (HsWindow *self, const char *key);
gboolean  _hs_window_deck_dataset_usable (HsWindow *self);
/* hs-window-deck.c: the window's live map `key` is shown */
void      _hs_window_deck_live_shown (HsWindow *self, const char *key);
void      _hs_window_deck_restore_state (HsViewState *state, const HsDeckCase *item);
void      _hs_window_deck_capture_viewport (HsCanvas *canvas, HsDeckCase *item);
void      _hs_window_deck_restore_viewport (HsCanvas *canvas, const HsDeckCase *item);
void      _hs_window_deck_fill_canvas (HsWindow *self, HsCanvas *canvas);
char     *_hs_window_deck_case_title (const HsDeckCase *item);

G_END_DECLS
