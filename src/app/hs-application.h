/* hs-application.h — the Heatscope GtkApplication */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HS_APPLICATION_ID "org.heatscope.Heatscope"

#define HS_TYPE_APPLICATION (hs_application_get_type ())
G_DECLARE_FINAL_TYPE (HsApplication, hs_application, HS, APPLICATION, GtkApplication)

HsApplication *hs_application_new       (void);

/* The application's settings, or NULL when the schema is not installed
 * (the app then runs without remembering anything). */
GSettings     *hs_settings_new          (void);
/* Makes glibc return freed image-sized buffers to the system (see
 * hs-application.c); main() calls it first, before any thread starts. */
void           hs_application_tune_memory (void);
/* Gives freed heap memory back to the system (at most once a second). */
void           hs_application_trim_memory (void);
/* The external model command: --backend-exec if given, else the
 * "backend-command" preference, else NULL.  Only ever the user's own
 * command line or preferences — never a value read from a dataset.  The
 * string stays valid until the next call. */
const char    *hs_application_get_backend_command (HsApplication *self);
/* Keyboard accelerators of the app and window actions (also used by tests). */
void           hs_application_set_accels (GtkApplication *app);

G_END_DECLS
