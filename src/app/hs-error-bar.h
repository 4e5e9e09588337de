/* hs-error-bar.h — problems shown in the window, never only on stderr
 *
 * An error banner (GtkInfoBar) naming the file and the problem.  Several
 * problems stack: the newest is shown, the others are counted and listed in
 * the tooltip.  Closing the banner forgets them.  Property "shown-height":
 * the height it covers on screen while it shows a problem (0 when hidden),
 * for a view under it to keep its own top-right legend clear of it. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HS_TYPE_ERROR_BAR (hs_error_bar_get_type ())
G_DECLARE_FINAL_TYPE (HsErrorBar, hs_error_bar, HS, ERROR_BAR, GtkWidget)

GtkWidget  *hs_error_bar_new          (void);
/* `file` may be NULL when the problem has no file (then the message alone). */
void        hs_error_bar_add          (HsErrorBar *self, const char *file, const char *message);
void        hs_error_bar_add_error    (HsErrorBar *self, const char *file, const GError *error);
void        hs_error_bar_clear        (HsErrorBar *self);
guint       hs_error_bar_get_n_errors (HsErrorBar *self);
/* The newest problem as shown ("file: message"), or NULL. */
const char *hs_error_bar_get_text     (HsErrorBar *self);

G_END_DECLS
