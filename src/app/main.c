/* main.c — entry point of the Heatscope application */
#include <glib/gi18n.h>
#include <locale.h>

#include "hs-application.h"

int
main (int argc, char **argv)
{
  g_autoptr(HsApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = hs_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
