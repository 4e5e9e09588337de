/* heatscope-cli.c — headless batch tool over libheatscope */
#include "hs-cli.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  int       (*run) (int argc, char **argv);   /* NULL: in `module` (hs-cli-module.c) */
  const char *module;
  const char *summary;
} HsCliCommand;

#define DATA "heatscope-cli-data.so"
#define DRAW "heatscope-cli-draw.so"

static const HsCliCommand commands[] = {
  { "demo",      NULL,         DATA, "generate the phantom demo dataset" },
  { "validate",  NULL,         DATA, "check a dataset and report every problem" },
  { "import",    NULL,         DATA, "write a dataset from a public format" },
  { "score",     hs_cli_score, NULL, "score one map against boxes or masks" },
  { "metrics",   NULL,         DATA, "score every instance, query and model of a dataset" },
  { "render",    NULL,         DRAW, "draw a figure as PNG, SVG or PDF" },
  { "figure",    NULL,         DRAW, "compose a publication figure of several panels" },
  { "attend",    NULL,         DATA, "compute live attention with a built-in model" },
  { "agreement", NULL,         DATA, "agreement between annotators" },
  { "deck",      NULL,         DRAW, "build, check and export clinician demo decks" },
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
      return commands[i].run != NULL
             ? commands[i].run (argc - 1, argv + 1)
             : hs_cli_run_module (commands[i].module, commands[i].name, argc - 1, argv + 1);

  fprintf (stderr, "heatscope-cli: unknown command '%s'\n", argv[1]);
  print_usage (stderr);
  return HS_CLI_EXIT_USAGE;
}
