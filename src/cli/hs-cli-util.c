/* hs-cli-util.c — shared helpers of the subcommands */
#include "hs-cli.h"

#include <stdarg.h>
#include <stdio.h>

void
hs_cli_error (const char *command, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  g_autofree char *safe = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  /* Messages quote ids, names and paths from the input: a newline or an
   * escape sequence in them must not forge lines or drive the terminal. */
  safe = hs_text_escape_controls (message);
  fprintf (stderr, "heatscope-cli %s: %s\n", command, safe);
}

void
hs_cli_print_line (FILE *out, const char *text)
{
  g_autofree char *safe = hs_text_escape_controls (text);

  fprintf (out, "%s\n", safe);
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
