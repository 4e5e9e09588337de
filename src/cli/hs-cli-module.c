/* hs-cli-module.c — runs a command from its module
 *
 * Only score is in heatscope-cli itself; the other commands are in
 * heatscope-cli-data.so and heatscope-cli-draw.so with the parts of
 * libheatscope that need GIO, json-glib and cairo (hs-cli-plugin.c says
 * why), and a module is opened only when one of its commands runs. */
#include "hs-cli.h"

#include <gmodule.h>
#include <string.h>

/* The installed module's directory: HS_CLI_MODULE_SUBDIR under the prefix
 * whose HS_CLI_BINDIR holds the running executable `dir`. */
static char *
installed_dir (const char *dir)
{
  g_auto(GStrv) bin_parts = NULL;
  g_autofree char *prefix = NULL;

  if (g_path_is_absolute (HS_CLI_MODULE_SUBDIR))
    return g_strdup (HS_CLI_MODULE_SUBDIR);
  if (dir == NULL || g_path_is_absolute (HS_CLI_BINDIR))
    return g_build_filename (HS_CLI_PREFIX, HS_CLI_MODULE_SUBDIR, NULL);
  prefix = g_strdup (dir);
  bin_parts = g_strsplit (HS_CLI_BINDIR, G_DIR_SEPARATOR_S, -1);
  for (guint i = 0; bin_parts[i] != NULL; i++)
    if (bin_parts[i][0] != '\0' && strcmp (bin_parts[i], ".") != 0)
      {
        char *up = g_path_get_dirname (prefix);

        g_free (prefix);
        prefix = up;
      }
  return g_build_filename (prefix, HS_CLI_MODULE_SUBDIR, NULL);
}

/* Installed: found from the executable's own directory, so a tree installed
 * with DESTDIR or moved elsewhere uses its own module.  Uninstalled (meson's
 * build tree): next to the executable.  When neither is there, the installed
 * path, which the error names. */
static char *
module_path (const char *module_file)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
  g_autofree char *installed_in = installed_dir (dir);
  g_autofree char *installed = g_build_filename (installed_in, module_file, NULL);
  g_autofree char *beside = dir != NULL ? g_build_filename (dir, module_file, NULL) : NULL;

  if (!g_file_test (installed, G_FILE_TEST_EXISTS) && beside != NULL &&
      g_file_test (beside, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&beside);
  return g_steal_pointer (&installed);
}

int
hs_cli_run_module (const char *module_file, const char *command, int argc, char **argv)
{
  g_autofree char *path = module_path (module_file);
  g_autofree char *symbol = g_strdup_printf ("hs_cli_%s", command);
  const char *version = NULL;
  int (*run) (int argc, char **argv) = NULL;
  GModule *module;

  /* Every symbol bound now: a module that does not fit this executable fails
   * here, with its path, not in the middle of a command. */
  module = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      /* g_module_error names the path in dlopen's words when it can */
      const char *why = g_module_error ();

      if (strstr (why, path) != NULL)
        hs_cli_error (command, "cannot load the module %s", why);
      else
        hs_cli_error (command, "cannot load the module %s: %s", path, why);
      return HS_CLI_EXIT_INPUT;
    }
  if (!g_module_symbol (module, "hs_cli_module_version", (gpointer *) &version) ||
      version == NULL || strcmp (version, HS_VERSION) != 0)
    {
      hs_cli_error (command, "the module %s is not heatscope-cli %s's (version %s)", path,
                    HS_VERSION, version != NULL ? version : "unknown");
      g_module_close (module);
      return HS_CLI_EXIT_INPUT;
    }
  if (!g_module_symbol (module, symbol, (gpointer *) &run) || run == NULL)
    {
      hs_cli_error (command, "the module %s has no command '%s'", path, command);
      g_module_close (module);
      return HS_CLI_EXIT_INPUT;
    }
  /* Not closed: the process exits after the command, and what it registered
   * (GTypes, quarks) stays valid until then. */
  return run (argc, argv);
}
