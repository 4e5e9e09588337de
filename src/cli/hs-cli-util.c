/* hs-cli-util.c — shared helpers of the subcommands */
#include "hs-cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

char *
hs_cli_message_valist (const char *command, const char *format, va_list args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);
  /* Messages quote ids, names and paths from the input: a newline or an
   * escape sequence in them must not forge lines or drive the terminal. */
  g_autofree char *safe = hs_text_escape_controls (message);

  return g_strdup_printf ("heatscope-cli %s: %s", command, safe);
}

void
hs_cli_error (const char *command, const char *format, ...)
{
  va_list args;
  g_autofree char *line = NULL;

  va_start (args, format);
  line = hs_cli_message_valist (command, format, args);
  va_end (args);
  fprintf (stderr, "%s\n", line);
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

gboolean
hs_cli_parse_dataset (GOptionContext *context, int *argc, char ***argv, const char *command)
{
  if (!hs_cli_parse (context, argc, argv, command))
    return FALSE;
  if (*argc != 2)
    {
      hs_cli_error (command, *argc < 2 ? "missing DATASET (a folder or its heatscope.json)"
                                       : "expected exactly one DATASET");
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_cli_parse_shard (const char *command, const char *text, guint *k, guint *n)
{
  g_auto(GStrv) parts = NULL;
  guint64 a, b;

  if (text == NULL)
    return TRUE;
  parts = g_strsplit (text, "/", -1);
  if (g_strv_length (parts) != 2 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 1, G_MAXUINT, &a, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT, &b, NULL) || a > b)
    {
      hs_cli_error (command, "--shard wants K/N with 1 ≤ K ≤ N, not \"%s\"", text);
      return FALSE;
    }
  *k = (guint) a;
  *n = (guint) b;
  return TRUE;
}

gboolean
hs_cli_unknown_choice (const char *command, const char *what, const char *text, const char *names)
{
  hs_cli_error (command, "unknown %s \"%s\" (%s)", what, text, names);
  return FALSE;
}

gboolean
hs_cli_parse_protocol (const char *command, const char *text, HsProtocol *protocol)
{
  return text == NULL || hs_protocol_from_string (text, protocol) ||
         hs_cli_unknown_choice (command, "protocol", text, "default, gloria, chexlocalize");
}

gboolean
hs_cli_parse_upsample (const char *command, const char *text, HsUpsample *upsample)
{
  return text == NULL || hs_upsample_from_string (text, upsample) ||
         hs_cli_unknown_choice (command, "upsampling", text, "bilinear, nearest");
}

gboolean
hs_cli_check_timeout (const char *command, int timeout_s)
{
  if (timeout_s <= 0 || timeout_s > 24 * 3600)
    {
      hs_cli_error (command, "--timeout must be between 1 and 86400 seconds, not %d", timeout_s);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_cli_parse_seed (const char *command, const char *option, const char *text, guint64 *seed)
{
  if (text != NULL && !g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, seed, NULL))
    {
      hs_cli_error (command, "--%s wants a non-negative integer, not \"%s\"", option, text);
      return FALSE;
    }
  return TRUE;
}

/* Whether GOption will print help for these arguments: --help, -h, -?,
 * --help-all or --help-GROUP before a "--". */
static gboolean
asks_help (int argc, char **argv)
{
  for (int i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    if (g_str_has_prefix (argv[i], "--help") || strcmp (argv[i], "-h") == 0 ||
        strcmp (argv[i], "-?") == 0)
      return TRUE;
  return FALSE;
}

void
hs_cli_describe_metrics (GOptionContext *context, const char *text, int argc, char **argv)
{
  g_autofree char *table = NULL;
  g_autofree char *description = NULL;

  if (!asks_help (argc, argv))
    return;
  table = hs_metric_info_format_help (80);
  description = g_strdup_printf ("%s%sMetrics (name  range, direction; what it says):\n%s",
                                 text != NULL ? text : "", text != NULL ? "\n\n" : "", table);
  g_option_context_set_description (context, description);
}
