/* hs-presentation-window.h — a demo deck full-screen, one case per screen
 *
 * No panels or sliders: the case's view (an HsCanvas for a single view, an
 * HsCompareView for A | B | A − B, blink and the model grid — the viewer's
 * own widgets, filled by the main window exactly as it fills its own, so the
 * pixels are the viewer's), the sentence in large type, the note below it
 * and a case counter.
 *
 * Keys: Right, Page Down, space — next (or the case's next reveal step);
 * Left, Page Up — previous; B blinks A/B; H hides/shows the heatmap; G the
 * ground truth (boxes and masks); Escape leaves.  Moving to another case
 * emits "step" (guint index): the window restores that case and calls
 * hs_presentation_window_show_case when its view is ready.
 * Template: ui/hs-presentation-window.ui. */
#pragma once

#include <gtk/gtk.h>

#include "hs-canvas.h"
#include "hs-compare-view.h"

G_BEGIN_DECLS

#define HS_TYPE_PRESENTATION_WINDOW (hs_presentation_window_get_type ())
G_DECLARE_FINAL_TYPE (HsPresentationWindow, hs_presentation_window, HS, PRESENTATION_WINDOW, GtkWindow)

/* Step of a case with reveal: what is shown so far. */
typedef enum {
  HS_REVEAL_IMAGE,       /* image and sentence          */
  HS_REVEAL_HEATMAP,     /* … and the heatmap           */
  HS_REVEAL_TRUTH,       /* … and the ground truth: all */
} HsRevealStep;

HsPresentationWindow *hs_presentation_window_new         (GtkWindow *parent, guint n_cases);
/* Asks for case `index` ("step"); call once the window is shown. */
void           hs_presentation_window_start              (HsPresentationWindow *self, guint index);
guint          hs_presentation_window_get_index          (HsPresentationWindow *self);
guint          hs_presentation_window_get_n_cases        (HsPresentationWindow *self);
/* The widgets the window fills for a single view and for the others. */
HsCanvas      *hs_presentation_window_get_canvas         (HsPresentationWindow *self);
HsCompareView *hs_presentation_window_get_compare_view   (HsPresentationWindow *self);
/* Shows case `index` (the canvas, or with `compare` the compare view, is
 * filled): its texts, and with `reveal` the first reveal step. */
void           hs_presentation_window_show_case          (HsPresentationWindow *self, guint index,
                                                          gboolean compare, const char *sentence,
                                                          const char *note, gboolean reveal);
/* What the keys toggle: the heatmap and the ground truth shown, the reveal
 * step, and whether a case is on screen (FALSE while its view loads). */
gboolean       hs_presentation_window_get_heatmap_shown  (HsPresentationWindow *self);
gboolean       hs_presentation_window_get_truth_shown    (HsPresentationWindow *self);
HsRevealStep   hs_presentation_window_get_reveal_step    (HsPresentationWindow *self);
gboolean       hs_presentation_window_get_ready          (HsPresentationWindow *self);
const char    *hs_presentation_window_get_counter        (HsPresentationWindow *self);
const char    *hs_presentation_window_get_sentence       (HsPresentationWindow *self);
/* The area the view is drawn in (tests render it). */
GtkWidget     *hs_presentation_window_get_view_area      (HsPresentationWindow *self);

G_END_DECLS
