/* hs-window.h — the main window */
#pragma once

#include <gtk/gtk.h>

#include "hs-application.h"

G_BEGIN_DECLS

#define HS_TYPE_WINDOW (hs_window_get_type ())
G_DECLARE_FINAL_TYPE (HsWindow, hs_window, HS, WINDOW, GtkApplicationWindow)

HsWindow *hs_window_new (HsApplication *app);

G_END_DECLS
