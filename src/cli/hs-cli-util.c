/* hs-cli-util.c — shared helpers of the subcommands */
#include "hs-cli.h"

#include <stdarg.h>
#include <stdio.h>

void
hs_cli_error (const char *command, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "heatscope-cli %s: %s\n", command, message);
}

gboolean
hs_cli_parse (GOptionContext *context, int *argc, char ***argv, const char *command)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      hs_cli_error (command, "%s", error->message);
      return FALSE;
    }
  return TRUE;
}
