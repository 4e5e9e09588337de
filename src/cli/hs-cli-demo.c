/* hs-cli-demo.c — heatscope-cli demo: generate the phantom demo dataset */
#include "hs-cli.h"

#include <heatscope/hs-phantom.h>
#include <heatscope/hs-model.h>
#include <heatscope/hs-mri-lesions.h>

#include <malloc.h>
#include <stdio.h>
#include <string.h>

/* A built-in model with the features of the last images it saw: the image
 * side runs once per image, the text side once per prompt.  With --jobs the
 * workers call it at once, each on its own instance's image, so it keeps
 * one image per worker (the model itself is read-only and shared). */
#define SLOT_IMAGES 8   /* ≥ the most workers at once (--jobs is clamped to it) */

typedef struct {
  char            *name;
  HsModel         *model;
  GMutex           lock;
  guint            next;                   /* the entry replaced next */
  HsImage         *image[SLOT_IMAGES];     /* references: an address cannot be reused */
  HsImageFeatures *features[SLOT_IMAGES];
} ModelSlot;

static void
model_slot_free (ModelSlot *slot)
{
  g_free (slot->name);
  g_clear_pointer (&slot->model, hs_model_unref);
  for (guint i = 0; i < SLOT_IMAGES; i++)
    {
      g_clear_pointer (&slot->image[i], hs_image_unref);
      g_clear_pointer (&slot->features[i], hs_image_features_unref);
    }
  g_mutex_clear (&slot->lock);
  g_free (slot);
}

/* The features of `image` (a new reference), encoded once. */
static HsImageFeatures *
slot_features (ModelSlot *slot, HsImage *image, GError **error)
{
  HsImageFeatures *features = NULL;
  guint i;

  g_mutex_lock (&slot->lock);
  for (i = 0; i < SLOT_IMAGES && features == NULL; i++)
    if (slot->image[i] == image)
      features = hs_image_features_ref (slot->features[i]);
  g_mutex_unlock (&slot->lock);
  if (features != NULL)
    return features;

  /* encoded outside the lock: the other workers' lookups do not wait */
  features = hs_model_encode_image (slot->model, image, NULL, error);
  if (features == NULL)
    return NULL;
  g_mutex_lock (&slot->lock);
  i = slot->next;
  slot->next = (slot->next + 1) % SLOT_IMAGES;
  g_clear_pointer (&slot->image[i], hs_image_unref);
  g_clear_pointer (&slot->features[i], hs_image_features_unref);
  slot->image[i] = hs_image_ref (image);
  slot->features[i] = hs_image_features_ref (features);
  g_mutex_unlock (&slot->lock);
  return features;
}

static HsAttentionMap *
attend_builtin (HsImage *image, const char *prompt, const char *model, gpointer data,
                GError **error)
{
  GPtrArray *slots = data;

  for (guint i = 0; i < slots->len; i++)
    {
      ModelSlot *slot = g_ptr_array_index (slots, i);
      g_autoptr(HsImageFeatures) features = NULL;

      if (strcmp (slot->name, model) != 0)
        continue;
      features = slot_features (slot, image, error);
      if (features == NULL)
        return NULL;
      return hs_model_attend (slot->model, features, prompt, error);
    }
  g_set_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_INVALID, "no model \"%s\" loaded", model);
  return NULL;
}

/* Each instance allocates and frees the same multi-MB buffers (the
 * phantom's layers, masks, the models' activations).  With glibc's default
 * trim threshold their pages went back to the kernel after every instance
 * and were faulted in and zeroed again for the next: 6 % of the CPU.  A
 * short-lived batch keeps them (mapping only what is over 32 MB); a
 * GLIBC_TUNABLES setting wins. */
static void
keep_buffers_between_instances (void)
{
  const char *tunables = g_getenv ("GLIBC_TUNABLES");

  if (tunables != NULL && strstr (tunables, "glibc.malloc.") != NULL)
    return;
  mallopt (M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt (M_TRIM_THRESHOLD, 256 * 1024 * 1024);
}

static void
print_progress (guint done, guint total, gpointer data)
{
  if (done == total || done % MAX (1u, total / 20) == 0)
    fprintf (stderr, "\r%u / %u instances", done, total);
  if (done == total)
    fputc ('\n', stderr);
}

/* Options of --kind mri-lesions (the recipe's parameters, with the paper's
 * values as defaults). */
typedef struct {
  char   *background;
  double  intensity, regular_min, irregular_max, smoothing, edge_sigma;
  int     min_lesions, max_lesions;
} MriArgs;

static int
demo_mri (const char *out, gint64 count, gint64 seed, int width, int height, gboolean size_set,
          const char *maps, const MriArgs *args, gboolean progress, gboolean force, guint jobs)
{
  g_autoptr(GError) error = NULL;
  HsMriWriteOptions options;

  hs_mri_write_options_init (&options);
  options.seed = (guint64) seed;
  options.count = (guint) count;
  if (size_set)
    {
      options.width = (guint) width;
      options.height = (guint) height;
    }
  options.background = args->background;
  options.params.intensity = args->intensity;
  options.params.regular_min = args->regular_min;
  options.params.irregular_max = args->irregular_max;
  options.params.smoothing = args->smoothing;
  options.params.edge_sigma = args->edge_sigma;
  options.params.min_count = (guint) MAX (0, args->min_lesions);
  options.params.max_count = (guint) MAX (0, args->max_lesions);
  if (maps != NULL && strcmp (maps, "auto") != 0 && strcmp (maps, "baselines") != 0
      && strcmp (maps, "none") != 0)
    {
      hs_cli_error ("demo", "--kind mri-lesions: --maps=%s: expected auto, baselines or none", maps);
      return HS_CLI_EXIT_USAGE;
    }
  options.baselines = maps == NULL || strcmp (maps, "none") != 0;
  if (progress)
    options.progress = print_progress;
  options.force = force;
  options.jobs = jobs;
  if (!hs_mri_lesion_params_check (&options.params, &error))
    {
      hs_cli_error ("demo", "%s", error->message);
      return HS_CLI_EXIT_USAGE;
    }
  if (!hs_mri_write_dataset (out, &options, &error))
    {
      hs_cli_error ("demo", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  return HS_CLI_EXIT_OK;
}

int
hs_cli_demo (int argc, char **argv)
{
  gint64 count = 60, start = 0, seed = 1;
  int size = 0, width = 0, height = 0, grid = 16, jobs = 0;
  gboolean simulated = FALSE, progress = FALSE, force = FALSE;
  g_autofree char *maps = NULL;
  g_autofree char *kind = NULL;
  g_autofree char *background = NULL;
  g_auto(GStrv) rest = NULL;
  MriArgs mri = { NULL, 0.5, 0.8, 0.4, 2.0, 0.75, 3, 5 };
  GOptionEntry entries[] = {
    { "kind", 'k', 0, G_OPTION_ARG_STRING, &kind,
      "chest (default: chest-radiograph phantoms with reports) or mri-lesions (artificial "
      "lesions in brain MRI slices, Oliveira et al.)", "KIND" },
    { "count", 'n', 0, G_OPTION_ARG_INT64, &count, "Number of instances (default 60)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "Seed (default 1); same seed, same bytes", "S" },
    { "size", 0, 0, G_OPTION_ARG_INT, &size, "Image width and height in pixels (default 1024, mri-lesions 256; at least 64)", "PX" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Image width (overrides --size)", "PX" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "Image height (overrides --size)", "PX" },
    { "start", 0, 0, G_OPTION_ARG_INT64, &start, "Index of the first instance (default 0)", "I" },
    { "maps", 0, 0, G_OPTION_ARG_STRING, &maps,
      "Precomputed maps: auto (built-in models when their weights exist, else simulated), "
      "models, simulated or none; auto and simulated add coattn-sim, a SIMULATED report "
      "generator with tag attention (co-attention)", "MODE" },
    { "simulated-maps", 0, 0, G_OPTION_ARG_NONE, &simulated,
      "Same as --maps=simulated: sim-grounded and sim-blind, SIMULATED stand-ins", NULL },
    { "grid", 0, 0, G_OPTION_ARG_INT, &grid, "Cells per side of simulated maps (default 16)", "N" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      "Instances generated at once (default: the number of processors, at most 8); "
      "the files are the same for any N", "N" },
    { "progress", 0, 0, G_OPTION_ARG_NONE, &progress, "Show progress on stderr", NULL },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Replace a dataset already in OUT", NULL },
    { "background", 0, 0, G_OPTION_ARG_FILENAME, &background,
      "mri-lesions: a folder of slices (PNG, JPEG, DICOM; subfolders too) instead of the brain phantoms", "DIR" },
    { "lesion-intensity", 0, 0, G_OPTION_ARG_DOUBLE, &mri.intensity,
      "mri-lesions: w, the factor of the lesion core (default 0.5)", "W" },
    { "min-lesions", 0, 0, G_OPTION_ARG_INT, &mri.min_lesions, "mri-lesions: fewest lesions per slice (default 3)", "N" },
    { "max-lesions", 0, 0, G_OPTION_ARG_INT, &mri.max_lesions, "mri-lesions: most lesions per slice (default 5)", "N" },
    { "regular-min", 0, 0, G_OPTION_ARG_DOUBLE, &mri.regular_min,
      "mri-lesions: regular lesions have compactness 4πA/p² above this (default 0.8)", "C" },
    { "irregular-max", 0, 0, G_OPTION_ARG_DOUBLE, &mri.irregular_max,
      "mri-lesions: irregular lesions have compactness below this (default 0.4)", "C" },
    { "lesion-smoothing", 0, 0, G_OPTION_ARG_DOUBLE, &mri.smoothing,
      "mri-lesions: σ of the Gaussian on the white noise, px (default 2)", "PX" },
    { "edge-sigma", 0, 0, G_OPTION_ARG_DOUBLE, &mri.edge_sigma,
      "mri-lesions: σ of the Gaussian on the lesion edges, px (default 0.75)", "PX" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, "OUT" },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— generate the phantom demo dataset");
  g_autoptr(GPtrArray) slots = g_ptr_array_new_with_free_func ((GDestroyNotify) model_slot_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) model_names = g_ptr_array_new ();
  HsPhantomAttendSource source = { NULL, attend_builtin, NULL };
  HsPhantomWriteOptions options = { 0 };
  const char *mode;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
      "Writes OUT/heatscope.json, OUT/images/*.png (16-bit), OUT/masks/*.png and OUT/maps/*.npy.\n"
      "--kind mri-lesions: 256 × 256 brain phantoms (or --background slices) with 3-5 regular\n"
      "or irregular lesions each, their masks as targets, the class as the query, and the\n"
      "null-sobel, null-laplace and null-random baseline maps (--maps none: without).\n"
      "OUT must be absent or empty; --force replaces a dataset there.  The dataset is built\n"
      "beside OUT and switched in whole: a reader never sees a mix of two runs.");
  if (!hs_cli_parse (context, &argc, &argv, "demo"))
    return HS_CLI_EXIT_USAGE;
  if (rest == NULL || rest[0] == NULL || rest[1] != NULL)
    {
      hs_cli_error ("demo", "expected exactly one output folder (see --help)");
      return HS_CLI_EXIT_USAGE;
    }
  if (count < 0 || count > G_MAXUINT32 || start < 0 || seed < 0)
    {
      hs_cli_error ("demo", "--count, --start and --seed must be non-negative");
      return HS_CLI_EXIT_USAGE;
    }
  if (jobs < 0 || jobs > SLOT_IMAGES)
    {
      hs_cli_error ("demo", "--jobs %d: must be between 1 and %d", jobs, SLOT_IMAGES);
      return HS_CLI_EXIT_USAGE;
    }
  if (jobs == 0)
    jobs = (int) CLAMP (g_get_num_processors (), 1, SLOT_IMAGES);
  keep_buffers_between_instances ();
  mri.background = background;
  if (kind != NULL && strcmp (kind, "mri-lesions") == 0)
    {
      gboolean size_set = width != 0 || height != 0 || size != 0;

      if (mri.background != NULL && size_set)
        {
          hs_cli_error ("demo", "--background slices keep their own size: drop --size/--width/--height");
          return HS_CLI_EXIT_USAGE;
        }
      if (simulated)
        {
          hs_cli_error ("demo", "--simulated-maps applies to --kind chest only");
          return HS_CLI_EXIT_USAGE;
        }
      if (width == 0)
        width = size != 0 ? size : HS_MRI_DEFAULT_SIZE;
      if (height == 0)
        height = size != 0 ? size : HS_MRI_DEFAULT_SIZE;
      if (width < HS_MRI_MIN_SIZE || height < HS_MRI_MIN_SIZE || width > 8192 || height > 8192)
        {
          hs_cli_error ("demo", "image size %d×%d: each side must be between %d and 8192 pixels",
                        width, height, HS_MRI_MIN_SIZE);
          return HS_CLI_EXIT_USAGE;
        }
      if (start != 0)
        {
          hs_cli_error ("demo", "--start applies to --kind chest only");
          return HS_CLI_EXIT_USAGE;
        }
      return demo_mri (rest[0], count, seed, width, height, TRUE, maps, &mri, progress, force,
                       (guint) jobs);
    }
  if (kind != NULL && strcmp (kind, "chest") != 0)
    {
      hs_cli_error ("demo", "--kind %s: expected chest or mri-lesions", kind);
      return HS_CLI_EXIT_USAGE;
    }
  if (mri.background != NULL)
    {
      hs_cli_error ("demo", "--background applies to --kind mri-lesions only");
      return HS_CLI_EXIT_USAGE;
    }
  if (size == 0)
    size = HS_PHANTOM_DEFAULT_SIZE;
  if (width == 0)
    width = size;
  if (height == 0)
    height = size;
  if (width < HS_PHANTOM_MIN_SIZE || height < HS_PHANTOM_MIN_SIZE || width > 65536 || height > 65536)
    {
      hs_cli_error ("demo", "image size %d×%d: each side must be between %d and 65536 pixels",
                    width, height, HS_PHANTOM_MIN_SIZE);
      return HS_CLI_EXIT_USAGE;
    }
  if (grid < 1 || grid > 256)
    {
      hs_cli_error ("demo", "--grid %d: must be between 1 and 256", grid);
      return HS_CLI_EXIT_USAGE;
    }
  mode = simulated ? "simulated" : maps != NULL ? maps : "auto";
  if (simulated && maps != NULL && strcmp (maps, "simulated") != 0)
    {
      hs_cli_error ("demo", "--simulated-maps contradicts --maps=%s", maps);
      return HS_CLI_EXIT_USAGE;
    }
  if (strcmp (mode, "auto") != 0 && strcmp (mode, "models") != 0
      && strcmp (mode, "simulated") != 0 && strcmp (mode, "none") != 0)
    {
      hs_cli_error ("demo", "--maps=%s: expected auto, models, simulated or none", mode);
      return HS_CLI_EXIT_USAGE;
    }

  /* so co-attention is there to see in the default demo; --maps=models
   * asks for the built-in models' maps alone */
  options.coattn_sim = strcmp (mode, "auto") == 0 || strcmp (mode, "simulated") == 0;
  if (strcmp (mode, "auto") == 0 || strcmp (mode, "models") == 0)
    {
      const char *const *builtin = hs_model_list_builtin ();
      for (guint i = 0; builtin[i] != NULL; i++)
        {
          g_autofree char *path = hs_model_find_builtin (builtin[i]);
          ModelSlot *slot;
          HsModel *model;

          if (path == NULL)
            continue;
          model = hs_model_load (path, &error);
          if (model == NULL)
            {
              hs_cli_error ("demo", "%s", error->message);
              return HS_CLI_EXIT_INPUT;
            }
          slot = g_new0 (ModelSlot, 1);
          slot->name = g_strdup (builtin[i]);
          g_mutex_init (&slot->lock);
          slot->model = model;
          g_ptr_array_add (slots, slot);
          g_ptr_array_add (model_names, slot->name);
        }
      if (slots->len == 0 && strcmp (mode, "models") == 0)
        {
          hs_cli_error ("demo", "--maps=models: no built-in model weights found (data/models/)");
          return HS_CLI_EXIT_INPUT;
        }
      if (slots->len == 0)
        mode = "simulated";
    }
  g_ptr_array_add (model_names, NULL);

  options.seed = (guint64) seed;
  options.start = (guint64) start;
  options.count = (guint) count;
  options.width = (guint) width;
  options.height = (guint) height;
  options.map_grid = (guint) grid;
  options.simulated_maps = strcmp (mode, "simulated") == 0;
  if (slots->len > 0)
    {
      source.models = (char **) model_names->pdata;
      source.data = slots;
      options.sources = &source;
      options.n_sources = 1;
    }
  if (progress)
    options.progress = print_progress;
  options.force = force;
  options.jobs = (guint) jobs;

  if (!hs_phantom_write_dataset (rest[0], &options, &error))
    {
      hs_cli_error ("demo", "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  return HS_CLI_EXIT_OK;
}
