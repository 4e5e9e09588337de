/* heatscope-cli.c — headless batch tool over libheatscope */
#include "hs-cli.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  int       (*run) (int argc, char **argv);   /* NULL: in the drawing module (hs-cli-module.c) */
  const char *summary;
} HsCliCommand;

static const HsCliCommand commands[] = {
  { "demo",      hs_cli_demo,      "generate the phantom demo dataset" },
  { "validate",  hs_cli_validate,  "check a dataset and report every problem" },
  { "import",    hs_cli_import,    "write a dataset from a public format" },
  { "score",     hs_cli_score,     "score one map against boxes or masks" },
  { "metrics",   hs_cli_metrics,   "score every instance, query and model of a dataset" },
  { "render",    NULL,             "draw a figure as PNG, SVG or PDF" },
  { "figure",    NULL,             "compose a publication figure of several panels" },
  { "attend",    hs_cli_attend,    "compute live attention with a built-in model" },
  { "agreement", hs_cli_agreement, "agreement between annotators" },
  { "deck",      NULL,             "build, check and export clinician demo decks" },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: heatscope-cli COMMAND [OPTIONS...]\n\nCommands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'heatscope-cli COMMAND --help' for a command's options.\n");
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;

  setlocale (LC_ALL, "");

  if (!hs_limits_check_environment (&error))
    {
      fprintf (stderr, "heatscope-cli: %s\n", error->message);
      return HS_CLI_EXIT_USAGE;
    }
  if (argc < 2)
    {
      print_usage (stderr);
      return HS_CLI_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("heatscope-cli %s\n", HS_VERSION);
      return 0;
    }

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run != NULL ? commands[i].run (argc - 1, argv + 1)
                                     : hs_cli_run_drawing (commands[i].name, argc - 1, argv + 1);

  fprintf (stderr, "heatscope-cli: unknown command '%s'\n", argv[1]);
  print_usage (stderr);
  return HS_CLI_EXIT_USAGE;
}
