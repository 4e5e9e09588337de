/* hs-mri-writer.c — the MRI lesion benchmark dataset on disk (hs-mri-lesions.h) */
#include "heatscope/hs-mri-lesions.h"
#include "heatscope/hs-baselines.h"
#include "hs-phantom-private.h"
#include "hs-image-private.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

/* The null baselines written as maps, so that `heatscope-cli metrics` scores
 * them like a model (metrics.md, "Null baselines"). */
static const struct {
  HsBaseline  baseline;
  const char *model;
  const char *description;
} baseline_maps[] = {
  { HS_BASELINE_SOBEL, "null-sobel",
    "Null baseline, not a model: Sobel gradient magnitude of the slice (metrics.md)" },
  { HS_BASELINE_LAPLACE, "null-laplace",
    "Null baseline, not a model: |Laplacian| of the slice (metrics.md)" },
  { HS_BASELINE_RANDOM, "null-random",
    "Null baseline, not a model: uniform noise on a 16 × 16 grid, seeded per slice (metrics.md)" },
};

void
hs_mri_write_options_init (HsMriWriteOptions *options)
{
  memset (options, 0, sizeof *options);
  options->seed = 1;
  options->count = 20;
  hs_mri_lesion_params_init (&options->params);
  options->baselines = TRUE;
}

static gboolean
is_slice_name (const char *name)
{
  return g_str_has_suffix (name, ".png") || g_str_has_suffix (name, ".jpg")
         || g_str_has_suffix (name, ".jpeg") || g_str_has_suffix (name, ".dcm")
         || g_str_has_suffix (name, ".PNG") || g_str_has_suffix (name, ".JPG")
         || g_str_has_suffix (name, ".JPEG") || g_str_has_suffix (name, ".DCM");
}

static gboolean
collect_slices (const char *folder, GPtrArray *out, guint depth, GError **error)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, error);
  const char *name;

  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);

      if (name[0] == '.')
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          /* a bound on symlink loops, far above any real layout */
          if (depth < 8 && !collect_slices (path, out, depth + 1, error))
            return FALSE;
        }
      else if (is_slice_name (name))
        g_ptr_array_add (out, g_steal_pointer (&path));
    }
  return TRUE;
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

char **
hs_mri_list_backgrounds (const char *folder, GError **error)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) local = NULL;

  if (!g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, HS_MRI_ERROR, HS_MRI_ERROR_BACKGROUND,
                   g_file_test (folder, G_FILE_TEST_EXISTS)
                     ? _("%s: not a folder of slices") : _("%s: no such folder"), folder);
      return NULL;
    }
  if (!collect_slices (folder, paths, 0, &local))
    {
      g_set_error (error, HS_MRI_ERROR, HS_MRI_ERROR_BACKGROUND, "%s", local->message);
      return NULL;
    }
  if (paths->len == 0)
    {
      g_set_error (error, HS_MRI_ERROR, HS_MRI_ERROR_BACKGROUND,
                   _("%s: no slices in the folder (PNG, JPEG or DICOM)"), folder);
      return NULL;
    }
  g_ptr_array_sort (paths, compare_paths);
  g_ptr_array_add (paths, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&paths), FALSE);
}

/* Sets every 0 pixel that the outside cannot reach through 4-connected 0
 * pixels. */
static void
fill_holes (guint8 *mask, guint w, guint h)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize n = (gsize) w * h;

  /* 2 = outside, reached from the border */
  for (gsize i = 0; i < n; i++)
    {
      gsize x = i % w, y = i / w;
      if (mask[i] == 0 && (x == 0 || y == 0 || x == w - 1 || y == h - 1))
        {
          mask[i] = 2;
          g_array_append_val (stack, i);
        }
    }
  while (stack->len > 0)
    {
      gsize p = g_array_index (stack, gsize, stack->len - 1);
      gsize x = p % w, y = p / w;
      gsize next[4];
      guint k = 0;

      g_array_set_size (stack, stack->len - 1);
      if (x > 0)
        next[k++] = p - 1;
      if (x + 1 < w)
        next[k++] = p + 1;
      if (y > 0)
        next[k++] = p - w;
      if (y + 1 < h)
        next[k++] = p + w;
      for (guint j = 0; j < k; j++)
        if (mask[next[j]] == 0)
          {
            mask[next[j]] = 2;
            g_array_append_val (stack, next[j]);
          }
    }
  for (gsize i = 0; i < n; i++)
    mask[i] = mask[i] != 2;
}

guint16 *
hs_mri_load_background (const char *path, guint *width, guint *height, guint8 **allowed,
                        GError **error)
{
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImage) grey = NULL;
  g_autofree double *values = NULL;
  g_autofree guint8 *fore = NULL;
  g_autofree guint8 *tmp = NULL;
  const guint16 *data;
  guint w, h, max, inset;
  gsize n;
  guint16 *pixels;

  image = hs_image_load (path, error);
  if (image == NULL)
    return NULL;
  w = hs_image_get_width (image);
  h = hs_image_get_height (image);
  if (w < HS_MRI_MIN_SIZE || h < HS_MRI_MIN_SIZE)
    {
      g_set_error (error, HS_MRI_ERROR, HS_MRI_ERROR_BACKGROUND,
                   _("%s: slice %u×%u is too small (at least %u×%u pixels)"),
                   path, w, h, HS_MRI_MIN_SIZE, HS_MRI_MIN_SIZE);
      return NULL;
    }
  grey = hs_image_to_grey (image);
  data = hs_image_peek_data (grey);
  max = MAX (1u, hs_image_get_max_value (grey));
  n = (gsize) w * h;
  pixels = g_new (guint16, n);
  values = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      /* full 16-bit range, so a lesion's soft edge survives rounding */
      pixels[i] = (guint16) MIN (65535.0, floor (data[i] * 65535.0 / max + 0.5));
      values[i] = pixels[i];
    }
  /* tissue = the head: Otsu's foreground with its holes (CSF, ventricles)
   * filled, eroded so that lesions keep off the scalp */
  fore = g_malloc (n);
  tmp = g_malloc (n);
  hs_mri_otsu_binarise (values, n, fore);
  fill_holes (fore, w, h);
  inset = MAX (2u, MIN (w, h) / 24);
  for (guint i = 0; i < inset; i++)
    {
      hs_mri_erode (fore, tmp, w, h);
      memcpy (fore, tmp, n);
    }
  *width = w;
  *height = h;
  *allowed = g_steal_pointer (&fore);
  return pixels;
}

static gboolean
save_grey (const void *data, gboolean sixteen, guint w, guint h, const char *path, GError **error)
{
  g_autoptr(HsImage) image = hs_image_new (w, h, 1, sixteen ? 16 : 8, error);
  guint16 *out;

  if (image == NULL)
    return FALSE;
  out = hs_image_get_data (image);
  for (gsize i = 0; i < (gsize) w * h; i++)
    out[i] = sixteen ? ((const guint16 *) data)[i] : ((const guint8 *) data)[i];
  return hs_image_save_png_full (image, path, sixteen ? HS_PNG_ENCODE_FAST : HS_PNG_ENCODE_MASK,
                                 error);
}

static HsRegion *
mask_region (const char *name, const char *rel, const guint8 *mask, guint w, guint h)
{
  HsRegion *region = hs_region_new (name);

  hs_region_set_mask (region, rel);
  hs_region_set_mask_extent (region, mask, w, h);
  return region;
}

static gboolean
add_baselines (const char *root, HsInstance *instance, const char *id, const char *query,
               const HsMriSlice *slice, guint64 index, GError **error)
{
  g_autoptr(HsImage) image = hs_image_new (slice->width, slice->height, 1, 16, error);
  HsEvalGrid grid;

  if (image == NULL)
    return FALSE;
  memcpy (hs_image_get_data (image), slice->pixels,
          (gsize) slice->width * slice->height * sizeof (guint16));
  if (!hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, slice->width, slice->height, 0, error))
    return FALSE;
  for (guint b = 0; b < G_N_ELEMENTS (baseline_maps); b++)
    {
      guint32 seed = HS_BASELINE_DEFAULT_SEED ^ (guint32) (index * 2654435761u);
      g_autoptr(HsAttentionMap) map = hs_baseline_make (baseline_maps[b].baseline, &grid, image,
                                                        0, 0, seed, error);
      g_autofree char *rel = g_strdup_printf ("maps/%s-%s.npy", id, baseline_maps[b].model);
      g_autofree char *path = g_build_filename (root, rel, NULL);

      if (map == NULL || !hs_attention_map_save_npy (map, path, FALSE, error))
        return FALSE;
      hs_instance_add_map (instance, hs_map_ref_new_for_map (map, baseline_maps[b].model, query,
                                                             rel, NULL, FALSE));
    }
  return TRUE;
}

static HsInstance *
write_instance (const char *root, const HsMriWriteOptions *options, char **backgrounds,
                const guint *order, guint i, GError **error)
{
  guint64 index = i;
  HsMriLesionClass klass = (options->seed + index) % 2 == 0 ? HS_MRI_LESION_REGULAR
                                                            : HS_MRI_LESION_IRREGULAR;
  const char *class_name = hs_mri_lesion_class_to_string (klass);
  g_autofree char *id = g_strdup_printf ("mri-%06u", i);
  g_autofree char *image_rel = g_strdup_printf ("images/%s.png", id);
  g_autofree char *image_path = g_build_filename (root, image_rel, NULL);
  g_autofree char *query = g_strdup_printf ("class:%s", class_name);
  g_autofree guint16 *background = NULL;
  g_autofree guint8 *allowed = NULL;
  g_autofree guint8 *all = NULL;
  g_autoptr(HsMriSlice) slice = NULL;
  g_autoptr(HsInstance) instance = NULL;
  const char *source = NULL;
  guint w, h;
  HsRandom rng;
  HsSentence *sentence;

  if (backgrounds == NULL)
    {
      w = options->width ? options->width : HS_MRI_DEFAULT_SIZE;
      h = options->height ? options->height : HS_MRI_DEFAULT_SIZE;
      background = hs_mri_phantom_render (options->seed, index, w, h, &allowed, error);
    }
  else
    {
      source = backgrounds[order[i % g_strv_length (backgrounds)]];
      background = hs_mri_load_background (source, &w, &h, &allowed, error);
    }
  if (background == NULL)
    return NULL;
  hs_phantom_rng_init (&rng, options->seed, 103, index);
  slice = hs_mri_slice_make (background, allowed, w, h, klass, 0, &options->params,
                             hs_random_next (&rng), error);
  if (slice == NULL)
    {
      g_prefix_error (error, "%s: ", source != NULL ? source : id);
      return NULL;
    }
  if (!save_grey (slice->pixels, TRUE, w, h, image_path, error))
    return NULL;

  instance = hs_instance_new (id, image_rel);
  instance->width = w;
  instance->height = h;
  instance->abnormal = TRUE;
  instance->phantom = backgrounds == NULL;
  hs_instance_set_metadata (instance, "modality", "MR (T1-weighted, axial)");
  hs_instance_set_metadata (instance, "class", class_name);
  hs_instance_set_metadata (instance, "source", backgrounds == NULL
      ? "heatscope-cli demo --kind mri-lesions (procedural brain phantom, artificial lesions)"
      : "heatscope-cli demo --kind mri-lesions (artificial lesions on the user's slice)");
  if (source != NULL)
    hs_instance_set_metadata (instance, "background", source);
  else
    hs_instance_set_metadata (instance, "licence", "CC0-1.0");

  all = g_malloc0 ((gsize) w * h);
  for (guint k = 0; k < slice->n_lesions; k++)
    {
      g_autofree char *name = g_strdup_printf ("lesion %u", k + 1);
      g_autofree char *rel = g_strdup_printf ("masks/%s-lesion-%u.png", id, k + 1);
      g_autofree char *path = g_build_filename (root, rel, NULL);
      g_autofree char *value = g_strdup_printf ("%.4f", slice->lesions[k].shape->compactness);
      g_autofree char *key = g_strdup_printf ("lesion %u compactness", k + 1);

      if (!save_grey (slice->lesions[k].mask, FALSE, w, h, path, error))
        return NULL;
      for (gsize p = 0; p < (gsize) w * h; p++)
        all[p] |= slice->lesions[k].mask[p];
      hs_instance_add_region (instance, mask_region (name, rel, slice->lesions[k].mask, w, h));
      hs_instance_set_metadata (instance, key, value);
    }
  {
    g_autofree char *rel = g_strdup_printf ("masks/%s-%s.png", id, class_name);
    g_autofree char *path = g_build_filename (root, rel, NULL);

    if (!save_grey (all, FALSE, w, h, path, error))
      return NULL;
    hs_instance_add_region (instance, mask_region (class_name, rel, all, w, h));
  }
  hs_instance_add_finding (instance, hs_label_new (class_name, "positive", NULL));
  sentence = hs_sentence_new (query, class_name);
  hs_sentence_add_target (sentence, class_name);
  hs_sentence_add_label (sentence, hs_label_new (class_name, "positive", NULL));
  hs_instance_add_sentence (instance, sentence);
  if (options->baselines && !add_baselines (root, instance, id, query, slice, index, error))
    return NULL;
  return g_steal_pointer (&instance);
}

typedef struct {
  const HsMriWriteOptions *options;
  char                   **backgrounds;
  const guint             *order;
} MakeContext;

static HsInstance *
make_instance (const char *root, guint i, gpointer data, GError **error)
{
  const MakeContext *ctx = data;

  return write_instance (root, ctx->options, ctx->backgrounds, ctx->order, i, error);
}

gboolean
hs_mri_write_dataset (const char *out_dir, const HsMriWriteOptions *options, GError **error)
{
  g_auto(GStrv) backgrounds = NULL;
  g_autofree guint *order = NULL;
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;
  const char *models[2 * G_N_ELEMENTS (baseline_maps) + 1] = { NULL };
  HsDemoWrite write = { 0 };
  MakeContext ctx;

  g_return_val_if_fail (out_dir != NULL && options != NULL, FALSE);

  if (!hs_mri_lesion_params_check (&options->params, error))
    return FALSE;
  if (options->background == NULL
      && ((options->width && options->width < HS_MRI_MIN_SIZE)
          || (options->height && options->height < HS_MRI_MIN_SIZE)))
    {
      g_set_error (error, HS_MRI_ERROR, HS_MRI_ERROR_INVALID,
                   _("brain phantom size %u×%u is below the minimum of %u pixels"),
                   options->width, options->height, HS_MRI_MIN_SIZE);
      return FALSE;
    }
  if (options->background != NULL)
    {
      HsRandom rng;
      guint n;

      backgrounds = hs_mri_list_backgrounds (options->background, error);
      if (backgrounds == NULL)
        return FALSE;
      /* a seeded shuffle: instance i takes slice order[i mod n] */
      n = g_strv_length (backgrounds);
      order = g_new (guint, n);
      for (guint i = 0; i < n; i++)
        order[i] = i;
      hs_phantom_rng_init (&rng, options->seed, 104, 0);
      for (guint i = n; i > 1; i--)
        {
          guint j = hs_random_below (&rng, i), t = order[i - 1];
          order[i - 1] = order[j];
          order[j] = t;
        }
    }
  for (guint b = 0; options->baselines && b < G_N_ELEMENTS (baseline_maps); b++)
    {
      models[2 * b] = baseline_maps[b].model;
      models[2 * b + 1] = baseline_maps[b].description;
    }

  ctx = (MakeContext) { options, backgrounds, order };
  name = g_strdup_printf ("Heatscope MRI lesions (seed %" G_GUINT64_FORMAT ")", options->seed);
  write.name = name;
  description = g_strdup_printf (
      "Artificial lesions in axial brain MRI slices (the benchmark recipe of Oliveira et al.): "
      "%u-%u lesions of one class per slice, regular (compactness > %g) or irregular (< %g), "
      "multiplied in with w = %g; their exact masks as targets and the class name as the "
      "query. Generated by heatscope-cli demo --kind mri-lesions.",
      options->params.min_count, options->params.max_count, options->params.regular_min,
      options->params.irregular_max, options->params.intensity);
  write.description = description;
  write.models = models;
  write.count = options->count;
  write.make = make_instance;
  write.data = &ctx;
  write.progress = options->progress;
  write.progress_data = options->progress_data;
  write.force = options->force;
  write.jobs = options->jobs;
  return hs_phantom_writer_write (out_dir, &write, error);
}
