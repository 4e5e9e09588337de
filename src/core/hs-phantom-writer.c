/* hs-phantom-writer.c — the phantom demo dataset on disk */
#include "hs-phantom-private.h"
#include "hs-dataset-writer.h"
#include "hs-atomic-file-private.h"

#include "heatscope/hs-npy.h"
#include "heatscope/hs-text.h"
#include "hs-i18n-private.h"
#include "hs-image-private.h"

#include <inttypes.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

HsImage *
hs_phantom_to_image (const HsPhantom *phantom, GError **error)
{
  g_autoptr(HsImage) image = NULL;

  g_return_val_if_fail (phantom != NULL, NULL);
  image = hs_image_new (phantom->width, phantom->height, 1, 16, error);
  if (image == NULL)
    return NULL;
  memcpy (hs_image_get_data (image), phantom->pixels,
          (gsize) phantom->width * phantom->height * sizeof (guint16));
  return g_steal_pointer (&image);
}

static gboolean
save_mask (const HsPhantom *phantom, const HsPhantomFinding *finding, const char *path,
           GError **error)
{
  g_autoptr(HsImage) image = hs_image_new (phantom->width, phantom->height, 1, 8, error);
  guint16 *data;
  gsize n = (gsize) phantom->width * phantom->height;

  if (image == NULL)
    return FALSE;
  data = hs_image_get_data (image);
  for (gsize i = 0; i < n; i++)
    data[i] = finding->mask[i];
  return hs_image_save_png_full (image, path, HS_PNG_ENCODE_MASK, error);
}

static char *
slug (const char *name)
{
  char *s = g_ascii_strdown (name, -1);
  for (char *p = s; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p))
      *p = '-';
  return s;
}

/* The targets' boxes lie in one image half (hs-dataset-subsets.c's rule):
 * every box centre on the same side, none crossing the midline by more
 * than 5 % of the width. */
static gboolean
boxes_one_side (const HsPhantom *phantom, const GArray *boxes)
{
  double mid = phantom->width / 2.0, slack = 0.05 * phantom->width;
  int side = 0;

  if (boxes->len == 0)
    return FALSE;
  for (guint i = 0; i < boxes->len; i++)
    {
      const HsBox *b = &g_array_index (boxes, HsBox, i);
      int s = (b->x1 + b->x2) / 2.0 < mid ? -1 : 1;

      if (side != 0 && s != side)
        return FALSE;
      side = s;
      if (s < 0 ? b->x2 > mid + slack : b->x1 < mid - slack)
        return FALSE;
    }
  return TRUE;
}

/* Boxes of the regions a prompt names; with `swapped`, the regions the
 * left/right-swapped prompt names (a lesion is mirrored to where the swapped
 * text places it). */
static GArray *
target_boxes (const HsPhantom *phantom, char **targets, gboolean swapped)
{
  GArray *boxes = g_array_new (FALSE, FALSE, sizeof (HsBox));

  for (guint i = 0; targets != NULL && targets[i] != NULL; i++)
    {
      const HsPhantomRegion *region = hs_phantom_find_region (phantom, targets[i]);
      HsBox box;

      if (region != NULL)
        {
          if (swapped)
            {
              g_autofree char *other = hs_text_swap_sides (targets[i]);
              region = hs_phantom_find_region (phantom, other);
            }
          if (region != NULL)
            g_array_append_val (boxes, region->box);
        }
      else if (hs_phantom_get_box (phantom, targets[i], &box))
        {
          if (swapped)
            {
              double x1 = phantom->width - box.x2, x2 = phantom->width - box.x1;
              box.x1 = x1;
              box.x2 = x2;
            }
          g_array_append_val (boxes, box);
        }
    }
  return boxes;
}

typedef struct {
  const char  *root;
  const char  *id;
  HsPhantom   *phantom;
  HsImage     *image;
  HsInstance  *instance;
  guint        grid;
} WriteContext;

/* One map of `model` for a sentence (or its swapped prompt when `prompt` is
 * not NULL), simulated or from a live source. */
static gboolean
add_map (WriteContext *ctx, const HsPhantomAttendSource *source, const char *model,
         const char *sentence_id, const HsReportSentence *sentence, const char *prompt,
         guint64 key, GError **error)
{
  g_autofree char *model_slug = slug (model);
  g_autofree char *file = g_strdup_printf ("maps/%s-%s%s-%s.npy", ctx->id, sentence_id,
                                           prompt != NULL ? "-swap" : "", model_slug);
  g_autoptr(HsAttentionMap) map = NULL;

  if (source == NULL)
    {
      g_autoptr(GArray) boxes = target_boxes (ctx->phantom, sentence->targets, prompt != NULL);
      g_autofree double *values = hs_phantom_simulate_map (ctx->phantom, model,
                                                           (const HsBox *) boxes->data,
                                                           boxes->len, key, ctx->grid);
      if (values == NULL)
        {
          g_set_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_INVALID,
                       _("unknown simulated model \"%s\""), model);
          return FALSE;
        }
      map = hs_attention_map_new (0, ctx->grid, ctx->grid, values, error);
    }
  else
    map = source->func (ctx->image, prompt != NULL ? prompt : sentence->text, model,
                        source->data, error);
  if (map == NULL)
    {
      g_prefix_error (error, _("%s: model %s, sentence %s: "), ctx->id, model, sentence_id);
      return FALSE;
    }
  {
    g_autofree char *path = g_build_filename (ctx->root, file, NULL);

    if (!hs_attention_map_save_npy (map, path, TRUE, error))
      return FALSE;
  }
  /* The swapped prompt's map is a free-prompt map (found by
   * hs_instance_find_map_by_prompt): the manifest allows one map per
   * (model, query), which the sentence's own map takes. */
  hs_instance_add_map (ctx->instance, hs_map_ref_new_for_map (map, model,
                                                              prompt != NULL ? NULL : sentence_id,
                                                              file, prompt, TRUE));
  return TRUE;
}

/* coattn-sim's map of a sentence (or its swapped prompt) with its tag
 * attention. */
static gboolean
add_coattn_map (WriteContext *ctx, const char *sentence_id, const HsReportSentence *sentence,
                const char *prompt, guint64 key, GError **error)
{
  HsTagWeight *tags;
  guint n_tags;

  if (!add_map (ctx, NULL, HS_PHANTOM_SIM_COATTN, sentence_id, sentence, prompt, key, error))
    return FALSE;
  tags = hs_phantom_simulate_tags (ctx->phantom, sentence, prompt != NULL, key, &n_tags);
  hs_map_ref_set_tags (g_ptr_array_index (ctx->instance->maps, ctx->instance->maps->len - 1),
                       tags, n_tags);
  hs_tag_weights_free (tags, n_tags);
  return TRUE;
}

static HsInstance *
write_instance (const char *root, const HsPhantomWriteOptions *options, guint64 index,
                GError **error)
{
  static const char *const simulated[] = { HS_PHANTOM_SIM_GROUNDED, HS_PHANTOM_SIM_BLIND };
  guint width = options->width ? options->width : HS_PHANTOM_DEFAULT_SIZE;
  guint height = options->height ? options->height : HS_PHANTOM_DEFAULT_SIZE;
  g_autoptr(HsPhantom) phantom = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsInstance) instance = NULL;
  g_autofree char *id = g_strdup_printf ("phantom-%06" G_GUINT64_FORMAT, index);
  g_autofree char *image_rel = g_strdup_printf ("images/%s.png", id);
  g_autofree char *image_path = g_build_filename (root, image_rel, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GHashTable) prompts = NULL;
  g_autoptr(GPtrArray) swaps = g_ptr_array_new_with_free_func (g_free);
  WriteContext ctx;

  phantom = hs_phantom_generate (options->seed, index, width, height, error);
  if (phantom == NULL)
    return NULL;
  image = hs_phantom_to_image (phantom, error);
  if (image == NULL || !hs_image_save_png_full (image, image_path, HS_PNG_ENCODE_FAST, error))
    return NULL;

  instance = hs_instance_new (id, image_rel);
  instance->width = width;
  instance->height = height;
  instance->abnormal = phantom->abnormal;
  instance->phantom = TRUE;
  hs_instance_set_metadata (instance, "view", "PA");
  hs_instance_set_metadata (instance, "modality", "phantom radiograph");
  hs_instance_set_metadata (instance, "licence", "CC0-1.0");
  hs_instance_set_metadata (instance, "source", "heatscope-cli demo (procedural phantom)");
  text = g_strdup_printf ("%" G_GUINT64_FORMAT, options->seed);
  hs_instance_set_metadata (instance, "seed", text);
  g_free (text);
  text = g_strdup_printf ("%" G_GUINT64_FORMAT, index);
  hs_instance_set_metadata (instance, "index", text);

  for (guint i = 0; i < phantom->regions->len; i++)
    {
      const HsPhantomRegion *r = g_ptr_array_index (phantom->regions, i);
      HsRegion *region = hs_region_new (r->name);
      hs_region_add_box (region, r->box.x1, r->box.y1, r->box.x2, r->box.y2);
      hs_instance_add_region (instance, region);
    }
  for (guint i = 0; i < phantom->findings->len; i++)
    {
      const HsPhantomFinding *f = g_ptr_array_index (phantom->findings, i);
      g_autofree char *name_slug = slug (f->name);
      g_autofree char *mask_rel = g_strdup_printf ("masks/%s-%s.png", id, name_slug);
      g_autofree char *mask_path = g_build_filename (root, mask_rel, NULL);
      HsRegion *region;

      if (!save_mask (phantom, f, mask_path, error))
        return NULL;
      region = hs_region_new (f->name);
      hs_region_add_box (region, f->box.x1, f->box.y1, f->box.x2, f->box.y2);
      hs_region_set_mask (region, mask_rel);
      hs_region_set_mask_extent (region, f->mask, phantom->width, phantom->height);
      hs_instance_add_region (instance, region);
      hs_instance_add_finding (instance, hs_label_new (f->condition, "positive",
                                                       (const char *const *) f->locations));
    }

  ctx = (WriteContext) { root, id, phantom, image, instance, options->map_grid ? options->map_grid : 16 };
  prompts = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < phantom->sentences->len; i++)
    g_hash_table_add (prompts, ((HsReportSentence *) g_ptr_array_index (phantom->sentences, i))->text);
  for (guint i = 0; i < phantom->sentences->len; i++)
    {
      const HsReportSentence *s = g_ptr_array_index (phantom->sentences, i);
      g_autofree char *sid = g_strdup_printf ("s%u", i + 1);
      char *swapped = hs_text_swap_sides (s->text);
      g_autoptr(GArray) boxes = target_boxes (phantom, s->targets, FALSE);
      HsSentence *sentence = hs_sentence_new (sid, s->text);

      g_ptr_array_add (swaps, swapped);  /* owns the text the prompt set points to */
      /* one map per distinct prompt: a swapped text that is already a
       * sentence (or another sentence's swap) has its map */
      gboolean one_lung = boxes_one_side (phantom, boxes) && !g_hash_table_contains (prompts, swapped);
      guint64 key = (guint64) (i + 1) * 1000;

      for (guint t = 0; s->targets[t] != NULL; t++)
        hs_sentence_add_target (sentence, s->targets[t]);
      hs_sentence_add_label (sentence, hs_label_new (s->condition, s->context,
                                                     (const char *const *) s->locations));
      hs_instance_add_sentence (instance, sentence);
      if (one_lung)
        g_hash_table_add (prompts, swapped);

      for (guint m = 0; options->simulated_maps && m < G_N_ELEMENTS (simulated); m++)
        if (!add_map (&ctx, NULL, simulated[m], sid, s, NULL, key, error)
            || (one_lung && !add_map (&ctx, NULL, simulated[m], sid, s, swapped, key + 1, error)))
          return NULL;
      if (options->coattn_sim
          && (!add_coattn_map (&ctx, sid, s, NULL, key, error)
              || (one_lung && !add_coattn_map (&ctx, sid, s, swapped, key + 1, error))))
        return NULL;
      for (guint k = 0; k < options->n_sources; k++)
        {
          const HsPhantomAttendSource *src = &options->sources[k];
          for (guint m = 0; src->models != NULL && src->models[m] != NULL; m++)
            if (!add_map (&ctx, src, src->models[m], sid, s, NULL, key, error)
                || (one_lung && !add_map (&ctx, src, src->models[m], sid, s, swapped, key + 1, error)))
              return NULL;
        }
    }
  return g_steal_pointer (&instance);
}

/* Instance i, its files written straight into the staging folder `root`
 * (no fsync each: the commit syncs the folder whole). */
static HsInstance *
make_staged (const HsDemoWrite *write, const char *root, guint i, GError **error)
{
  HsInstance *instance;

  hs_atomic_write_staged_begin (root);
  instance = write->make (root, i, write->data, error);
  hs_atomic_write_staged_end ();
  return instance;
}

/* The instances being made by the workers of hs_phantom_writer_write: slot
 * i holds instance i (or its error) once done[i] is set. */
typedef struct {
  const HsDemoWrite *write;
  const char        *root;
  HsInstance       **made;
  GError           **errors;
  gboolean          *done;
  gint               failed;   /* atomic: a worker failed, the rest skip their instances */
  GMutex             lock;
  GCond              cond;
} Makers;

static void
make_worker (gpointer item, gpointer data)
{
  Makers *mk = data;
  guint i = GPOINTER_TO_UINT (item) - 1;
  HsInstance *instance = NULL;
  GError *local_error = NULL;

  if (!g_atomic_int_get (&mk->failed))
    {
      instance = make_staged (mk->write, mk->root, i, &local_error);
      if (instance == NULL)
        g_atomic_int_set (&mk->failed, 1);
    }
  g_mutex_lock (&mk->lock);
  mk->made[i] = instance;
  mk->errors[i] = local_error;
  mk->done[i] = TRUE;
  g_cond_broadcast (&mk->cond);
  g_mutex_unlock (&mk->lock);
}

/* Instances 0 … count − 1 into `dataset` in index order, made by `jobs`
 * worker threads.  On a failure the error of the lowest failed index is
 * returned (an instance skipped because another failed has none). */
static gboolean
make_parallel (const HsDemoWrite *write, const char *root, HsDataset *dataset, GError **error)
{
  Makers mk = { write, root };
  GThreadPool *pool;
  gboolean ok = TRUE;
  guint i;

  mk.made = g_new0 (HsInstance *, write->count);
  mk.errors = g_new0 (GError *, write->count);
  mk.done = g_new0 (gboolean, write->count);
  g_mutex_init (&mk.lock);
  g_cond_init (&mk.cond);
  /* exclusive threads: started now, so a pool that cannot have them fails
   * here and the instances are made on this thread instead */
  pool = g_thread_pool_new (make_worker, &mk, (gint) MIN (write->jobs, write->count), TRUE, NULL);
  for (i = 0; i < write->count; i++)
    {
      if (pool != NULL)
        g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL);
      else
        make_worker (GUINT_TO_POINTER (i + 1), &mk);
    }
  for (i = 0; i < write->count && ok; i++)
    {
      g_mutex_lock (&mk.lock);
      while (!mk.done[i])
        g_cond_wait (&mk.cond, &mk.lock);
      g_mutex_unlock (&mk.lock);
      if (mk.made[i] == NULL)
        ok = FALSE;
      else
        {
          hs_dataset_add_instance (dataset, g_steal_pointer (&mk.made[i]));
          if (write->progress != NULL)
            write->progress (i + 1, write->count, write->progress_data);
        }
    }
  if (pool != NULL)
    g_thread_pool_free (pool, FALSE, TRUE);
  for (i = 0; i < write->count; i++)
    {
      if (!ok && mk.errors[i] != NULL && error != NULL && *error == NULL)
        g_propagate_error (error, g_steal_pointer (&mk.errors[i]));
      g_clear_error (&mk.errors[i]);
      g_clear_pointer (&mk.made[i], hs_instance_free);
    }
  g_free (mk.made);
  g_free (mk.errors);
  g_free (mk.done);
  g_mutex_clear (&mk.lock);
  g_cond_clear (&mk.cond);
  return ok;
}

gboolean
hs_phantom_writer_write (const char *out_dir, const HsDemoWrite *write, GError **error)
{
  static const char *const subdirs[] = { "images", "masks", "maps" };
  g_autoptr(HsDatasetWriter) writer = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  const char *root;

  writer = hs_dataset_writer_begin (out_dir, write->force ? HS_DATASET_WRITE_REPLACE
                                                          : HS_DATASET_WRITE_CREATE, error);
  if (writer == NULL)
    return FALSE;
  root = hs_dataset_writer_get_staging (writer);
  for (guint i = 0; i < G_N_ELEMENTS (subdirs); i++)
    {
      g_autofree char *dir = g_build_filename (root, subdirs[i], NULL);
      if (g_mkdir_with_parents (dir, 0755) != 0)
        {
          int saved = errno;
          g_set_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_IO,
                       _("%s: cannot create folder: %s"), dir, g_strerror (saved));
          return FALSE;
        }
    }
  dataset = hs_dataset_new (root, write->name);
  hs_dataset_set_description (dataset, write->description);
  for (guint m = 0; write->models != NULL && write->models[m] != NULL; m += 2)
    hs_dataset_set_model_description (dataset, write->models[m], write->models[m + 1]);
  if (write->jobs > 1 && write->count > 1)
    {
      if (!make_parallel (write, root, dataset, error))
        return FALSE;
    }
  else
    for (guint i = 0; i < write->count; i++)
      {
        HsInstance *instance = make_staged (write, root, i, error);
        if (instance == NULL)
          return FALSE;
        hs_dataset_add_instance (dataset, instance);
        if (write->progress != NULL)
          write->progress (i + 1, write->count, write->progress_data);
      }
  return hs_dataset_writer_commit (writer, dataset, error);
}

static HsInstance *
make_instance (const char *root, guint i, gpointer data, GError **error)
{
  const HsPhantomWriteOptions *options = data;

  return write_instance (root, options, options->start + i, error);
}

gboolean
hs_phantom_write_dataset (const char *out_dir, const HsPhantomWriteOptions *options, GError **error)
{
  static const char *const simulated[] = {
    HS_PHANTOM_SIM_GROUNDED,
    "SIMULATED attention, not a model: blobs over the regions the text names "
    "(what a text-following model would show)",
    HS_PHANTOM_SIM_BLIND,
    "SIMULATED attention, not a model: blobs over the image's lesions whatever the "
    "text says (the failure mode of McInerney et al.)",
  };
  static const char *const coattn[] = {
    HS_PHANTOM_SIM_COATTN,
    "SIMULATED report generator with co-attention (Jing et al. 2018), not a model: per "
    "sentence a visual map over the regions the text names and weights over tags taken "
    "from the phantom's labels (its findings, two conditions it does not have, normal, "
    "left, right), highest on the tags the sentence names",
  };
  g_autoptr(GPtrArray) models = g_ptr_array_new ();
  g_autofree char *name = NULL;
  guint width, height;
  HsDemoWrite write = { 0 };

  g_return_val_if_fail (out_dir != NULL && options != NULL, FALSE);

  width = options->width ? options->width : HS_PHANTOM_DEFAULT_SIZE;
  height = options->height ? options->height : HS_PHANTOM_DEFAULT_SIZE;
  if (width < HS_PHANTOM_MIN_SIZE || height < HS_PHANTOM_MIN_SIZE)
    {
      g_set_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_INVALID,
                   _("phantom size %u×%u is below the minimum of %u pixels"), width, height,
                   HS_PHANTOM_MIN_SIZE);
      return FALSE;
    }
  if (options->map_grid > 256)
    {
      g_set_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_INVALID,
                   _("map grid %u is over 256 cells a side"), options->map_grid);
      return FALSE;
    }
  if (options->start > G_MAXUINT64 - options->count)
    {
      g_set_error (error, HS_PHANTOM_ERROR, HS_PHANTOM_ERROR_INVALID,
                   _("instance indices overflow (start %" PRIu64 ")"), options->start);
      return FALSE;
    }
  name = g_strdup_printf ("Heatscope phantoms (seed %" G_GUINT64_FORMAT ")", options->seed);
  write.name = name;
  write.description =
      "Procedural chest-radiograph phantoms generated by heatscope-cli demo: anatomy boxes "
      "named as in Chest ImaGenome, lesion masks, report sentences from labels "
      "(McInerney et al. A.3). Licence-clean (CC0-1.0).";
  for (guint i = 0; options->simulated_maps && i < G_N_ELEMENTS (simulated); i++)
    g_ptr_array_add (models, (gpointer) simulated[i]);
  for (guint i = 0; options->coattn_sim && i < G_N_ELEMENTS (coattn); i++)
    g_ptr_array_add (models, (gpointer) coattn[i]);
  g_ptr_array_add (models, NULL);
  write.models = (const char *const *) models->pdata;
  write.count = options->count;
  write.make = make_instance;
  write.data = (gpointer) options;
  write.progress = options->progress;
  write.progress_data = options->progress_data;
  write.force = options->force;
  write.jobs = options->jobs;
  return hs_phantom_writer_write (out_dir, &write, error);
}
