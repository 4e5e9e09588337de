/* hs-css-private.h — the app's stylesheet (ui/style.css) */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Adds ui/style.css to the default display, once per process; later calls
 * do nothing.  Each widget that uses its classes calls it from its _init,
 * so widgets built without the application (tests) are styled too. */
void _hs_css_init (void);

G_END_DECLS
