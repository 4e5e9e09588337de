/* hs-i18n-private.h — gettext for libheatscope's own user-visible strings
 *
 * The library translates with its own domain, not the application's: a
 * program linking libheatscope gets German error messages and figure labels
 * without binding anything.  Messages are always UTF-8 (the domain's codeset
 * is bound to UTF-8), so they can go into GError messages, SVG and GTK labels
 * whatever the locale's codeset.  Only text a person reads goes through _():
 * file formats, JSON/CSV keys and values and metric names stay untranslated.
 * C and C++ (hs-image-dicom.cc) sources both use it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_LIB_GETTEXT_DOMAIN "heatscope-lib"

/* Binds the domain on first use (thread-safe) and returns its name.
 * The catalogues are looked up in $HEATSCOPE_LOCALEDIR when set, else in the
 * installed locale directory, else (running uninstalled) in the build tree's
 * po-lib/ next to the executable's directory. */
const char *hs_i18n_domain (void);

G_END_DECLS

#define _(String) g_dgettext (hs_i18n_domain (), (String))
#define N_(String) (String)
