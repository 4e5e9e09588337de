/* hs-cli-plugin.c — what both modules of heatscope-cli carry
 *
 * heatscope-cli itself holds score and the part of libheatscope it needs,
 * without GIO, json-glib or cairo; the other commands are in
 * heatscope-cli-data.so (demo, validate, import, metrics, attend,
 * agreement) and heatscope-cli-draw.so (render, figure, deck), each with the
 * rest of the library it uses (hs-cli-module.c loads them).  This file is
 * in both: their version, which the loader checks, and the helpers of
 * commands in both that reach that rest of the library. */
#include "hs-cli.h"

#include <gmodule.h>

/* Compared by the loader: a module from another build is refused with its
 * path rather than run against symbols it was not built with. */
G_MODULE_EXPORT const char hs_cli_module_version[] = HS_VERSION;

gboolean
hs_cli_parse_perturbation (const char *command, const char *text, HsPerturbation *perturbation)
{
  return text == NULL || hs_perturbation_from_string (text, perturbation) ||
         hs_cli_unknown_choice (command, "perturbation", text,
                                "swap-left-right, shuffle-in-report, random-sentence, random-boxes, "
                                "synthetic-swapped-condition");
}

HsBackendExec *
hs_cli_backend_exec_new (const char *command, const char *backend_command, int timeout_s)
{
  g_autoptr(GError) error = NULL;
  HsBackendExec *backend;

  if (!hs_cli_check_timeout (command, timeout_s))
    return NULL;
  backend = hs_backend_exec_new (backend_command, &error);
  if (backend == NULL)
    {
      hs_cli_error (command, "%s", error->message);
      return NULL;
    }
  hs_backend_exec_set_timeout (backend, (guint) timeout_s * 1000);
  return backend;
}
