/* hs-cli-deck.c — heatscope-cli deck new|add|list|validate|export
 *
 * Builds and checks clinician demo decks (hs-deck.h, docs/decks.md) from
 * the shell, so a deck of the worst cases can come from a loop over
 * `metrics` output; `export` (hs-cli-deck-export.c) writes the handout. */
#include "hs-cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CMD "deck"

/* Loads DECK, printing the problem. */
static HsDeck *
hs_cli_deck_load (const char *path)
{
  g_autoptr(GError) error = NULL;
  HsDeck *deck = hs_deck_load (path, &error);

  if (deck == NULL)
    hs_cli_error (CMD, "%s", error->message);
  return deck;
}

/* The options, then exactly one DECK, loaded; NULL with *status set after
 * printing the problem. */
static HsDeck *
parse_deck_argument (GOptionContext *context, int *argc, char ***argv, const char *command,
                     int *status)
{
  HsDeck *deck;

  *status = HS_CLI_EXIT_USAGE;
  if (!hs_cli_parse (context, argc, argv, command))
    return NULL;
  if (*argc != 2)
    {
      hs_cli_error (command, "expected DECK");
      return NULL;
    }
  deck = hs_cli_deck_load ((*argv)[1]);
  *status = HS_CLI_EXIT_INPUT;
  return deck;
}

static int
deck_new (int argc, char **argv)
{
  gboolean force = FALSE;
  GOptionEntry entries[] = {
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Replace an existing deck", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("DECK DATASET — start an empty deck of a dataset");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDeck) deck = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autofree char *relative = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "The deck names DATASET by a path relative to the deck's folder, which must hold the\n"
    "dataset (save the deck beside or inside it), and records the SHA-256 of its manifest.");
  if (!hs_cli_parse (context, &argc, &argv, CMD " new"))
    return HS_CLI_EXIT_USAGE;
  if (argc != 3)
    {
      hs_cli_error (CMD " new", "expected DECK and DATASET");
      return HS_CLI_EXIT_USAGE;
    }
  if (!force && g_file_test (argv[1], G_FILE_TEST_EXISTS))
    {
      hs_cli_error (CMD " new", "%s exists (--force replaces it)", argv[1]);
      return HS_CLI_EXIT_INPUT;
    }
  relative = hs_deck_relative_dataset (argv[1], argv[2], &error);
  if (relative == NULL)
    {
      hs_cli_error (CMD " new", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  deck = hs_deck_new (relative);
  dataset = hs_deck_open_dataset (deck, argv[1], &deck->manifest_sha256, &error);
  if (dataset == NULL || !hs_deck_save (deck, argv[1], &error))
    {
      hs_cli_error (CMD " new", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  return HS_CLI_EXIT_OK;
}

/* --model NAME: the dataset's precomputed maps of NAME, else the built-in
 * model NAME run live. */
static gboolean
add_models (HsDeckCase *item, HsDataset *dataset, char **names, GError **error)
{
  g_auto(GStrv) known = hs_dataset_list_models (dataset);

  for (guint i = 0; names && names[i]; i++)
    {
      /* a free prompt has no precomputed map: a built-in name is then live */
      gboolean precomputed = known && g_strv_contains ((const char * const *) known, names[i])
                             && !(item->prompt && g_strv_contains (hs_model_list_builtin (), names[i]));

      if (!precomputed && !g_strv_contains (hs_model_list_builtin (), names[i]))
        {
          g_autofree char *listed = known ? g_strjoinv (", ", known) : g_strdup ("none");
          g_autofree char *builtin = g_strjoinv (", ", (char **) hs_model_list_builtin ());
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--model '%s': neither a model of the dataset (%s) nor a built-in model (%s)",
                       names[i], listed, builtin);
          return FALSE;
        }
      hs_deck_case_add_model (item, names[i], !precomputed);
    }
  if (item->models->len > HS_DECK_MAX_MODELS)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "at most %d --model",
                   HS_DECK_MAX_MODELS);
      return FALSE;
    }
  return TRUE;
}

/* Without --model: the first model of the dataset with a map of the
 * sentence (the viewer's default). */
static gboolean
default_model (HsDeckCase *item, HsDataset *dataset, GError **error)
{
  HsInstance *instance = hs_dataset_find_instance (dataset, item->instance);
  HsSentence *sentence;
  HsMapRef *ref;

  if (item->prompt != NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--prompt needs a built-in --model (%s): the dataset has maps of its sentences only",
                   "grounded, blind, noattn");
      return FALSE;
    }
  if (instance == NULL || item->sentence == 0 || item->sentence > instance->sentences->len)
    return TRUE;   /* hs_deck_case_resolve names the problem */
  sentence = g_ptr_array_index (instance->sentences, item->sentence - 1);
  ref = hs_cli_find_map (instance, NULL, sentence->id);
  if (ref == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "instance '%s' has no map of sentence %u: name a built-in --model",
                   item->instance, item->sentence);
      return FALSE;
    }
  hs_deck_case_add_model (item, ref->model, FALSE);
  return TRUE;
}

static gboolean
check_view (const HsDeckCase *item, GError **error)
{
  guint n = item->models->len;
  gboolean pair = item->swap ? n == 1 : n == 2;

  if ((item->view == HS_DECK_VIEW_COMPARE || item->view == HS_DECK_VIEW_BLINK) && !pair)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--view %s shows two maps: --swap with one --model, or two --model",
                 hs_deck_view_to_string (item->view));
  else if (item->view == HS_DECK_VIEW_GRID && n < 2)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--view grid shows one panel per model: give at least two --model");
  else if (item->view == HS_DECK_VIEW_SINGLE && (n > 1 || item->swap))
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--view single shows one map: one --model without --swap");
  else
    return TRUE;
  return FALSE;
}

static int
deck_add (int argc, char **argv)
{
  g_autofree char *instance = NULL, *prompt = NULL, *view = NULL, *scale = NULL;
  g_autofree char *colormap = NULL, *note = NULL, *query = NULL;
  g_auto(GStrv) models = NULL, metrics = NULL;
  int sentence = 0;
  double opacity = NAN;
  gboolean swap = FALSE, reveal = FALSE;
  GOptionEntry entries[] = {
    { "instance", 0, 0, G_OPTION_ARG_STRING, &instance, "Instance id (required)", "ID" },
    { "sentence", 0, 0, G_OPTION_ARG_INT, &sentence, "The instance's N-th sentence (from 1)", "N" },
    { "query", 0, 0, G_OPTION_ARG_STRING, &query, "The sentence by its id (the query column of `metrics`) instead of --sentence", "ID" },
    { "prompt", 0, 0, G_OPTION_ARG_STRING, &prompt, "Free text instead of a sentence (a built-in --model)", "TEXT" },
    { "swap", 0, 0, G_OPTION_ARG_NONE, &swap, "Also the prompt with left and right swapped (A | B | A − B)", NULL },
    { "model", 0, 0, G_OPTION_ARG_STRING_ARRAY, &models, "A model of the dataset's maps or a built-in model run live (repeat; default: the sentence's first map)", "M" },
    { "view", 0, 0, G_OPTION_ARG_STRING, &view, "single, compare, blink or grid (default: from --swap and the models)", "VIEW" },
    { "scale", 0, 0, G_OPTION_ARG_STRING, &scale, "minmax (default), fixed:LO:HI, percentile:P1:P2", "MODE" },
    { "colormap", 0, 0, G_OPTION_ARG_STRING, &colormap, "jet (default), turbo, viridis, inferno, grey", "NAME" },
    { "opacity", 0, 0, G_OPTION_ARG_DOUBLE, &opacity, "Overlay opacity in [0, 1] (default 0.5)", "A" },
    { "note", 0, 0, G_OPTION_ARG_STRING, &note, "The presenter's note", "TEXT" },
    { "metric", 0, 0, G_OPTION_ARG_STRING_ARRAY, &metrics, "A metric shown with the case (repeat; names as in `metrics`)", "NAME" },
    { "reveal", 0, 0, G_OPTION_ARG_NONE, &reveal, "Present in steps: image and sentence, heatmap, ground truth", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("DECK — add a case to a deck");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDeck) deck = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsModelCache) cache = NULL;
  g_autoptr(GPtrArray) maps = NULL;
  g_autofree char *manifest = NULL;
  HsDeckCase *item;
  HsDeckTarget target = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Appends a case (a saved view) to DECK: the instance, its sentence or a free prompt, the\n"
    "models, the view and the overlay settings; records the sentence's text and the SHA-256\n"
    "of the maps shown, so `deck validate` names what changed later.");
  if (!hs_cli_parse (context, &argc, &argv, CMD " add"))
    return HS_CLI_EXIT_USAGE;
  if (argc != 2 || instance == NULL || sentence < 0
      || (sentence > 0) + (prompt != NULL) + (query != NULL) != 1)
    {
      hs_cli_error (CMD " add", "expected DECK, --instance and one of --sentence N (from 1), --query ID or --prompt TEXT");
      return HS_CLI_EXIT_USAGE;
    }
  deck = hs_cli_deck_load (argv[1]);
  if (deck == NULL)
    return HS_CLI_EXIT_INPUT;
  if (deck->cases->len >= HS_DECK_MAX_CASES)
    {
      hs_cli_error (CMD " add", "%s: already %d cases", argv[1], HS_DECK_MAX_CASES);
      return HS_CLI_EXIT_INPUT;
    }
  dataset = hs_deck_open_dataset (deck, argv[1], &manifest, &error);
  if (dataset == NULL)
    {
      hs_cli_error (CMD " add", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  if (deck->manifest_sha256 != NULL && !g_str_equal (deck->manifest_sha256, manifest))
    {
      hs_cli_error (CMD " add", "%s: the dataset \"%s\" changed since the deck was saved: run `deck validate`",
                    argv[1], deck->dataset);
      return HS_CLI_EXIT_INPUT;
    }

  if (query != NULL)
    {
      /* the sentence's number from its id: a deck counts sentences */
      HsInstance *found = hs_dataset_find_instance (dataset, instance);
      for (guint i = 0; found && i < found->sentences->len; i++)
        if (g_str_equal (((HsSentence *) g_ptr_array_index (found->sentences, i))->id, query))
          sentence = (int) i + 1;
      if (sentence == 0)
        {
          hs_cli_error (CMD " add", "%s: instance '%s' has no sentence '%s'", argv[1], instance,
                        query);
          return HS_CLI_EXIT_INPUT;
        }
    }
  item = hs_deck_case_new (instance);
  g_ptr_array_add (deck->cases, item);
  item->sentence = (guint) sentence;
  item->prompt = g_strdup (prompt);
  item->swap = swap;
  item->note = g_strdup (note);
  item->reveal = reveal;
  item->metrics = g_strdupv (metrics);
  for (guint i = 0; metrics && metrics[i]; i++)
    if (hs_metric_info_lookup (metrics[i]) == NULL)
      {
        hs_cli_error (CMD " add", "--metric '%s': unknown (see `heatscope-cli metrics --help`)",
                      metrics[i]);
        return HS_CLI_EXIT_USAGE;
      }
  if (!(models ? add_models (item, dataset, models, &error) : default_model (item, dataset, &error)))
    {
      hs_cli_error (CMD " add", "%s", error->message);
      return HS_CLI_EXIT_USAGE;
    }
  item->view = item->swap || item->models->len == 2 ? HS_DECK_VIEW_COMPARE
               : item->models->len > 2 ? HS_DECK_VIEW_GRID : HS_DECK_VIEW_SINGLE;
  if (view && !hs_deck_view_from_string (view, &item->view))
    {
      hs_cli_error (CMD " add", "--view '%s': expected single, compare, blink or grid", view);
      return HS_CLI_EXIT_USAGE;
    }
  if (swap && prompt)
    {
      hs_cli_error (CMD " add", "--swap needs --sentence: a swapped prompt is scored against the sentence's target");
      return HS_CLI_EXIT_USAGE;
    }
  if (!check_view (item, &error))
    {
      hs_cli_error (CMD " add", "%s", error->message);
      return HS_CLI_EXIT_USAGE;
    }
  if (!hs_cli_overlay_options (CMD " add", colormap, scale, isnan (opacity) ? 0.5 : opacity,
                               &item->overlay))
    return HS_CLI_EXIT_USAGE;
  item->overlay.scale.symmetric = item->overlay.colormap == HS_COLORMAP_DIVERGING;

  /* the case must resolve now, and its maps are hashed as they are now */
  cache = hs_model_cache_new ();
  if (!hs_deck_case_resolve (deck, deck->cases->len, argv[1], dataset, &target, &error)
      || (maps = hs_deck_case_load_maps (deck, deck->cases->len, argv[1], dataset, &target,
                                          cache, &error)) == NULL)
    {
      hs_deck_target_clear (&target);
      hs_cli_error (CMD " add", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  if (target.sentence)
    item->sentence_text = g_strdup (target.sentence->text);
  item->map_sha256 = hs_deck_hash_maps ((HsAttentionMap * const *) maps->pdata, maps->len);
  item->maps_sha256 = hs_deck_hash_each ((HsAttentionMap * const *) maps->pdata, maps->len);
  hs_deck_target_clear (&target);
  g_free (deck->manifest_sha256);
  deck->manifest_sha256 = g_steal_pointer (&manifest);
  if (!hs_deck_save (deck, argv[1], &error))
    {
      hs_cli_error (CMD " add", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  printf ("case %u\n", deck->cases->len);
  return HS_CLI_EXIT_OK;
}

static int
deck_list (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("DECK — list a deck's cases");
  g_autoptr(HsDeck) deck = NULL;
  int status;

  deck = parse_deck_argument (context, &argc, &argv, CMD " list", &status);
  if (deck == NULL)
    return status;
  printf ("dataset %s, %u case%s\n", deck->dataset, deck->cases->len,
          deck->cases->len == 1 ? "" : "s");
  for (guint i = 0; i < deck->cases->len; i++)
    {
      const HsDeckCase *item = g_ptr_array_index (deck->cases, i);
      g_autoptr(GString) line = g_string_new (NULL);

      g_string_append_printf (line, "%u. %s · ", i + 1, item->instance);
      if (item->prompt)
        g_string_append_printf (line, "prompt \"%s\"", item->prompt);
      else
        g_string_append_printf (line, "sentence %u \"%s\"", item->sentence,
                                item->sentence_text ? item->sentence_text : "");
      if (item->swap)
        g_string_append (line, " + swap");
      g_string_append (line, " · ");
      for (guint m = 0; m < item->models->len; m++)
        {
          const HsDeckModel *model = g_ptr_array_index (item->models, m);
          g_string_append_printf (line, "%s%s%s", m ? ", " : "", model->name,
                                  model->live ? " (live)" : "");
        }
      g_string_append_printf (line, " · %s", hs_deck_view_to_string (item->view));
      if (item->note)
        g_string_append_printf (line, " · %s", item->note);
      /* one line per case: notes' newlines and any control character escaped */
      hs_cli_print_line (stdout, line->str);
    }
  return HS_CLI_EXIT_OK;
}

static int
deck_validate (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("DECK — check that every case still resolves");
  g_autoptr(HsDeck) deck = NULL;
  g_autoptr(HsModelCache) cache = NULL;
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  int status;

  g_option_context_set_summary (context,
    "Opens the deck's dataset and checks every case: the instance, the sentence (and its text),\n"
    "each model's map, and that the maps hash as when the case was saved (a live model is run\n"
    "again).  Prints one line per problem naming the deck, the case and what changed, and exits\n"
    "with status 1 if there is any; prints \"ok: N cases\" otherwise.");
  deck = parse_deck_argument (context, &argc, &argv, CMD " validate", &status);
  if (deck == NULL)
    return status;
  cache = hs_model_cache_new ();
  if (!hs_deck_check (deck, argv[1], cache, problems))
    {
      for (guint i = 0; i < problems->len; i++)
        hs_cli_print_line (stdout, g_ptr_array_index (problems, i));
      fflush (stdout);
      fprintf (stderr, "heatscope-cli deck validate: %u problem%s found\n", problems->len,
               problems->len == 1 ? "" : "s");
      return HS_CLI_EXIT_INPUT;
    }
  printf ("ok: %u case%s\n", deck->cases->len, deck->cases->len == 1 ? "" : "s");
  return HS_CLI_EXIT_OK;
}

int
hs_cli_deck (int argc, char **argv)
{
  static const struct {
    const char *name;
    int       (*run) (int argc, char **argv);
    const char *summary;
  } sub[] = {
    { "new", deck_new, "start an empty deck of a dataset" },
    { "add", deck_add, "add a case (a saved view)" },
    { "list", deck_list, "list the cases" },
    { "validate", deck_validate, "check that every case still resolves" },
    { "export", hs_cli_deck_export, "write a PDF handout, slide images or a bundle with its maps" },
  };

  for (guint i = 0; argc >= 2 && i < G_N_ELEMENTS (sub); i++)
    if (g_str_equal (argv[1], sub[i].name))
      {
        /* argv[0] becomes "deck SUB" for --help and errors */
        g_autofree char *name = g_strdup_printf ("%s %s", argv[0], argv[1]);
        argv[1] = name;
        return sub[i].run (argc - 1, argv + 1);
      }
  fprintf (argc >= 2 && strcmp (argv[1], "--help") == 0 ? stdout : stderr,
           "Usage: heatscope-cli deck SUBCOMMAND [OPTIONS...] DECK ...\n\nSubcommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (sub); i++)
    fprintf (argc >= 2 && strcmp (argv[1], "--help") == 0 ? stdout : stderr, "  %-9s %s\n",
             sub[i].name, sub[i].summary);
  return argc >= 2 && strcmp (argv[1], "--help") == 0 ? HS_CLI_EXIT_OK : HS_CLI_EXIT_USAGE;
}
