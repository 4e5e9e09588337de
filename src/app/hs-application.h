/* hs-application.h — the Heatscope GtkApplication */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HS_TYPE_APPLICATION (hs_application_get_type ())
G_DECLARE_FINAL_TYPE (HsApplication, hs_application, HS, APPLICATION, GtkApplication)

HsApplication *hs_application_new (void);

G_END_DECLS
