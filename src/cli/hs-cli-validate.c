/* hs-cli-validate.c — heatscope-cli validate DATASET */
#include "hs-cli.h"

#include <stdio.h>

int
hs_cli_validate (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  guint n_sentences = 0, n_maps = 0;

  context = g_option_context_new ("DATASET — check a dataset and report every problem");
  g_option_context_set_summary (context,
    "Checks heatscope.json against the schema and opens every referenced image, mask and map.\n"
    "Prints one line per problem, \"FILE: JSONPATH: message\", and exits with status 1 if\n"
    "there is any; prints \"ok: N instances, M sentences, K maps\" and exits 0 otherwise.");
  if (!hs_cli_parse_dataset (context, &argc, &argv, "validate"))
    return HS_CLI_EXIT_USAGE;

  if (!hs_dataset_validate (argv[1], &problems))
    {
      for (guint i = 0; i < problems->len; i++)
        {
          g_autofree char *line = hs_problem_to_string (g_ptr_array_index (problems, i));
          hs_cli_print_line (stdout, line);
        }
      fflush (stdout);
      fprintf (stderr, "heatscope-cli validate: %u problem%s found\n", problems->len,
               problems->len == 1 ? "" : "s");
      return HS_CLI_EXIT_INPUT;
    }

  /* Valid: load once more for the counts (cheap, no files are opened). */
  dataset = hs_dataset_load (argv[1], &error);
  if (dataset == NULL)
    {
      hs_cli_error ("validate", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      n_sentences += instance->sentences->len;
      n_maps += instance->maps->len;
    }
  printf ("ok: %u instances, %u sentences, %u maps\n", hs_dataset_get_n_instances (dataset),
          n_sentences, n_maps);
  return HS_CLI_EXIT_OK;
}
