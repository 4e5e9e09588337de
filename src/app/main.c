/* main.c — entry point of the Heatscope application */
#include <glib/gi18n.h>
#include <heatscope/hs-limits.h>
#include <locale.h>

#include "hs-application.h"

/* The installed catalogues, or those of the build tree when running
 * uninstalled (build/src/app/heatscope → build/po). */
static const char *
locale_dir (void)
{
  static char *dir;
  g_autofree char *installed = g_build_filename (LOCALEDIR, "de", "LC_MESSAGES", GETTEXT_PACKAGE ".mo", NULL);
  g_autofree char *exe = NULL;
  g_autofree char *exe_dir = NULL;
  g_autofree char *build_po = NULL;

  if (dir != NULL)
    return dir;
  exe = g_file_read_link ("/proc/self/exe", NULL);
  exe_dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
  build_po = exe_dir != NULL ? g_build_filename (exe_dir, "..", "..", "po", NULL) : NULL;
  if (!g_file_test (installed, G_FILE_TEST_EXISTS) && build_po != NULL &&
      g_file_test (build_po, G_FILE_TEST_IS_DIR))
    dir = g_canonicalize_filename (build_po, NULL);
  else
    dir = g_strdup (LOCALEDIR);
  return dir;
}

int
main (int argc, char **argv)
{
  g_autoptr(HsApplication) app = NULL;
  g_autoptr(GError) error = NULL;

  hs_application_tune_memory ();
  setlocale (LC_ALL, "");
  if (!hs_limits_check_environment (&error))
    {
      g_printerr ("heatscope: %s\n", error->message);
      return 2;
    }
  bindtextdomain (GETTEXT_PACKAGE, locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = hs_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
