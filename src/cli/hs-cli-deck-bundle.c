/* hs-cli-deck-bundle.c — heatscope-cli deck export DECK -o BUNDLE --embed-maps
 *
 * A bundle is a folder that presents identically on a laptop without the
 * models or the original dataset (docs/decks.md):
 *
 *   BUNDLE/deck.hsdeck      the deck, "dataset": ".", every case's maps embedded
 *   BUNDLE/heatscope.json   a dataset of the deck's instances only
 *   BUNDLE/images/…, masks/…  their images and masks (the original relative paths)
 *   BUNDLE/maps/case-NN-K.npy  the maps each case showed (float64, so they hash
 *                           exactly as when the case was saved), also recorded
 *                           in the manifest as precomputed maps
 *
 * The folder is written by the dataset writer (staged, switched in whole),
 * the deck last with the atomic writer. */
#include "hs-cli.h"

#include <errno.h>
#include <unistd.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

#define CMD "deck export"

/* Copies the dataset file `relative` into the staging folder, same path. */
static gboolean
copy_file (HsDataset *dataset, const char *staging, const char *relative, GError **error)
{
  g_autofree char *from = hs_dataset_resolve_path (dataset, relative, error);
  g_autofree char *to = g_build_filename (staging, relative, NULL);
  g_autofree char *folder = g_path_get_dirname (to);
  g_autoptr(GFile) source = NULL, target = NULL;

  if (from == NULL)
    return FALSE;
  if (g_file_test (to, G_FILE_TEST_EXISTS))
    return TRUE;   /* an image two cases share */
  if (g_mkdir_with_parents (folder, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s", folder,
                   g_strerror (saved));
      return FALSE;
    }
  source = g_file_new_for_path (from);
  target = g_file_new_for_path (to);
  return g_file_copy (source, target, G_FILE_COPY_NONE, NULL, NULL, NULL, error);
}

/* The instance's image, regions (masks copied), sentences and findings in
 * the bundle's dataset; once per instance. */
static gboolean
copy_instance (HsDataset *dataset, HsDataset *bundle, const char *staging,
               const HsInstance *from, GError **error)
{
  HsInstance *to;

  if (hs_dataset_find_instance (bundle, from->id) != NULL)
    return TRUE;
  if (!copy_file (dataset, staging, from->image, error))
    return FALSE;
  to = hs_instance_new (from->id, from->image);
  to->width = from->width;
  to->height = from->height;
  to->abnormal = from->abnormal;
  for (guint i = 0; i < from->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (from->regions, i);

      if (region->mask && !copy_file (dataset, staging, region->mask, error))
        {
          hs_instance_free (to);
          return FALSE;
        }
      hs_instance_add_region (to, hs_region_copy (region));
    }
  for (guint i = 0; i < from->sentences->len; i++)
    {
      const HsSentence *s = g_ptr_array_index (from->sentences, i);
      HsSentence *copy = hs_sentence_new (s->id, s->text);

      hs_sentence_set_kind (copy, s->kind);
      for (guint k = 0; s->targets && s->targets[k]; k++)
        hs_sentence_add_target (copy, s->targets[k]);
      for (guint k = 0; s->labels && k < s->labels->len; k++)
        {
          const HsLabel *l = g_ptr_array_index (s->labels, k);
          hs_sentence_add_label (copy, hs_label_new (l->condition, l->context,
                                                     (const char * const *) l->locations));
        }
      hs_instance_add_sentence (to, copy);
    }
  for (guint k = 0; from->findings && k < from->findings->len; k++)
    {
      const HsLabel *l = g_ptr_array_index (from->findings, k);
      hs_instance_add_finding (to, hs_label_new (l->condition, l->context,
                                                 (const char * const *) l->locations));
    }
  hs_dataset_add_instance (bundle, to);
  return TRUE;
}

/* Case `number`'s maps written as BUNDLE/maps/case-NN-K.npy and recorded:
 * in the case (embedded) and, for precomputed models, in the manifest. */
static gboolean
embed_case (const HsDeck *deck, guint number, const char *deck_path, HsDataset *dataset,
            HsDataset *bundle, const char *staging, HsModelCache *models, HsDeckCase *out,
            GError **error)
{
  const HsDeckCase *item = g_ptr_array_index (deck->cases, number - 1);
  g_autoptr(GPtrArray) maps = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  HsDeckTarget target;
  HsInstance *copy;
  gboolean ok = TRUE;

  if (!hs_deck_case_resolve (deck, number, deck_path, dataset, &target, error))
    return FALSE;
  maps = hs_deck_case_load_maps (deck, number, deck_path, dataset, &target, models, error);
  if (maps == NULL || !copy_instance (dataset, bundle, staging, target.instance, error))
    {
      hs_deck_target_clear (&target);
      return FALSE;
    }
  copy = hs_dataset_find_instance (bundle, item->instance);
  for (guint k = 0; ok && k < maps->len; k++)
    {
      HsAttentionMap *map = g_ptr_array_index (maps, k);
      const HsDeckModel *model = g_ptr_array_index (item->models, k / (target.swapped ? 2 : 1));
      gboolean swapped = target.swapped && k % 2 == 1;
      char *relative = g_strdup_printf ("maps/case-%02u-%u.npy", number, k + 1);
      g_autofree char *path = g_build_filename (staging, relative, NULL);
      g_autofree char *folder = g_path_get_dirname (path);
      gsize shape[2] = { hs_attention_map_get_height (map), hs_attention_map_get_width (map) };

      g_ptr_array_add (names, relative);
      ok = g_mkdir_with_parents (folder, 0777) == 0
           && hs_npy_write (path, HS_DTYPE_FLOAT64, 2, shape, hs_attention_map_peek_values (map),
                            FALSE, FALSE, error);
      /* once per (model, query or prompt): two cases may show the same map */
      if (ok && !model->live && target.sentence
          && (swapped ? hs_instance_find_map_by_prompt (copy, model->name, target.swapped)
                      : hs_instance_find_map (copy, model->name, target.sentence->id)) == NULL)
        {
          HsMapRef *ref = hs_map_ref_new (model->name, swapped ? NULL : target.sentence->id,
                                          relative);
          if (swapped)
            hs_map_ref_set_prompt (ref, target.swapped);
          hs_instance_add_map (copy, ref);
        }
    }
  hs_deck_target_clear (&target);
  if (!ok)
    return FALSE;
  g_ptr_array_add (names, NULL);
  g_strfreev (out->embedded_maps);
  out->embedded_maps = g_strdupv ((char **) names->pdata);
  if (out->map_sha256 == NULL)
    out->map_sha256 = hs_deck_hash_maps ((HsAttentionMap * const *) maps->pdata, maps->len);
  return TRUE;
}

int
hs_cli_deck_bundle (const HsDeck *deck, const char *deck_path, const char *output)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL, bundle = NULL;
  g_autoptr(HsModelCache) models = hs_model_cache_new ();
  g_autoptr(HsDatasetWriter) writer = NULL;
  g_autoptr(HsDeck) copy = hs_deck_new (".");
  g_autofree char *deck_out = g_build_filename (output, "deck.hsdeck", NULL);
  g_autofree char *manifest = NULL;
  const char *staging;
  int fd;

  dataset = hs_deck_open_dataset (deck, deck_path, NULL, &error);
  if (dataset == NULL)
    goto failed;
  writer = hs_dataset_writer_begin (output, 0, &error);
  if (writer == NULL)
    goto failed;
  staging = hs_dataset_writer_get_staging (writer);
  bundle = hs_dataset_new (staging, hs_dataset_get_name (dataset));
  for (guint i = 1; i <= deck->cases->len; i++)
    {
      HsDeckCase *item = hs_deck_case_copy (g_ptr_array_index (deck->cases, i - 1));

      g_ptr_array_add (copy->cases, item);
      if (!embed_case (deck, i, deck_path, dataset, bundle, staging, models, item, &error))
        goto failed;
    }
  if (!hs_dataset_writer_commit (writer, bundle, &error))
    goto failed;
  /* the manifest as published, then the deck naming it */
  fd = hs_deck_open_beneath (deck_out, ".", "heatscope.json", &error);
  if (fd < 0)
    goto failed;
  manifest = hs_deck_hash_fd (fd, deck_out, &error);
  close (fd);
  copy->manifest_sha256 = g_steal_pointer (&manifest);
  if (copy->manifest_sha256 == NULL || !hs_deck_save (copy, deck_out, &error))
    goto failed;
  return HS_CLI_EXIT_OK;

failed:
  hs_cli_error (CMD, "%s", error->message);
  return HS_CLI_EXIT_INPUT;
}
