/* hs-i18n.c — binds libheatscope's gettext domain (see hs-i18n-private.h) */
#include "hs-i18n-private.h"

#include <libintl.h>

/* The installed catalogue when there is one; otherwise the build tree's,
 * found from the running program: build/src/{app,cli}/X → build/po-lib,
 * build/tests/X → build/po-lib. */
static char *
find_locale_dir (void)
{
  static const char *const up[] = { "..", ".." G_DIR_SEPARATOR_S ".." };
  g_autofree char *installed = g_build_filename (LOCALEDIR, "de", "LC_MESSAGES",
                                                 HS_LIB_GETTEXT_DOMAIN ".mo", NULL);
  g_autofree char *exe = NULL;
  g_autofree char *exe_dir = NULL;

  if (g_file_test (installed, G_FILE_TEST_EXISTS))
    return g_strdup (LOCALEDIR);
  exe = g_file_read_link ("/proc/self/exe", NULL);
  exe_dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
  for (guint i = 0; exe_dir != NULL && i < G_N_ELEMENTS (up); i++)
    {
      g_autofree char *dir = g_build_filename (exe_dir, up[i], "po-lib", NULL);
      g_autofree char *mo = g_build_filename (dir, "de", "LC_MESSAGES", HS_LIB_GETTEXT_DOMAIN ".mo", NULL);

      if (g_file_test (mo, G_FILE_TEST_EXISTS))
        return g_canonicalize_filename (dir, NULL);
    }
  return g_strdup (LOCALEDIR);
}

static gpointer
bind_domain (gpointer data)
{
  const char *env = g_getenv ("HEATSCOPE_LOCALEDIR");
  g_autofree char *dir = env != NULL && *env != '\0' ? g_strdup (env) : find_locale_dir ();

  (void) data;
  bindtextdomain (HS_LIB_GETTEXT_DOMAIN, dir);
  bind_textdomain_codeset (HS_LIB_GETTEXT_DOMAIN, "UTF-8");
  return (gpointer) HS_LIB_GETTEXT_DOMAIN;
}

const char *
hs_i18n_domain (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, bind_domain, NULL);
}
