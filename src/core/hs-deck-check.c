/* hs-deck-check.c — a deck against its dataset (hs-deck.h): the dataset is
 * found beneath the deck's folder, each case's instance, sentence and maps
 * are looked up again, and whatever differs from when the deck was saved is
 * named — a deck never silently shows a different picture. */
#include "hs-deck.h"
#include "hs-text.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *
hs_deck_relative_dataset (const char *deck_path, const char *dataset_path, GError **error)
{
  g_autofree char *folder = g_path_get_dirname (deck_path);
  g_autofree char *real_folder = realpath (folder, NULL);
  g_autofree char *real_dataset = realpath (dataset_path, NULL);
  gsize n;

  if (real_folder == NULL || real_dataset == NULL)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID, _("%s: cannot find the folder %s"),
                   deck_path, real_folder == NULL ? folder : dataset_path);
      return NULL;
    }
  if (g_str_equal (real_folder, real_dataset))
    return g_strdup (".");
  n = strlen (real_folder);
  if (g_str_has_prefix (real_dataset, real_folder)
      && (real_dataset[n] == '/' || g_str_equal (real_folder, "/")))
    return g_strdup (real_dataset + n + (g_str_equal (real_folder, "/") ? 0 : 1));
  g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID,
               _("%s: the dataset %s is not in the deck's folder %s or below it (save the deck beside or inside the dataset)"),
               deck_path, dataset_path, folder);
  return NULL;
}

HsDataset *
hs_deck_open_dataset (const HsDeck *deck, const char *deck_path, char **manifest_sha256,
                      GError **error)
{
  g_autofree char *folder = g_path_get_dirname (deck_path);
  g_autofree char *path = g_build_filename (folder, deck->dataset, NULL);
  g_autofree char *hex = NULL;
  g_autoptr(GError) local = NULL;
  HsDataset *dataset;
  int fd;

  fd = hs_deck_open_beneath (deck_path, deck->dataset, "heatscope.json", &local);
  if (fd < 0)
    {
      if (local->code == HS_DECK_ERROR_INVALID)
        g_propagate_error (error, g_steal_pointer (&local));
      else
        {
          /* the reason without hs_deck_open_beneath's "DECK: " before it */
          const char *reason = local->message;
          if (g_str_has_prefix (reason, deck_path) && g_str_has_prefix (reason + strlen (deck_path), ": "))
            reason += strlen (deck_path) + 2;
          g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED,
                       _("%s: the dataset \"%s\" is missing or moved (%s)"), deck_path,
                       deck->dataset, reason);
        }
      return NULL;
    }
  hex = hs_deck_hash_fd (fd, path, error);
  close (fd);
  if (hex == NULL)
    return NULL;
  dataset = hs_dataset_load (path, &local);
  if (dataset == NULL)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED, _("%s: the dataset: %s"),
                   deck_path, local->message);
      return NULL;
    }
  if (manifest_sha256)
    *manifest_sha256 = g_steal_pointer (&hex);
  return dataset;
}

void
hs_deck_target_clear (HsDeckTarget *target)
{
  g_clear_pointer (&target->swapped, g_free);
  target->instance = NULL;
  target->sentence = NULL;
  target->text = NULL;
}

static gboolean G_GNUC_PRINTF (5, 6)
case_changed (GError **error, const char *deck_path, guint number, HsDeckError code,
              const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, HS_DECK_ERROR, code, _("%s: case %u: %s"), deck_path, number, message);
  return FALSE;
}

/* A precomputed model's map of the case: of the sentence (by id), or of the
 * swapped prompt (by its text). */
static HsMapRef *
find_map (const HsDeckTarget *target, const char *model, gboolean swapped)
{
  return swapped ? hs_instance_find_map_by_prompt (target->instance, model, target->swapped)
                 : hs_instance_find_map (target->instance, model, target->sentence->id);
}

gboolean
hs_deck_case_resolve (const HsDeck *deck, guint number, const char *deck_path, HsDataset *dataset,
                      HsDeckTarget *target, GError **error)
{
  const HsDeckCase *item;

  g_return_val_if_fail (number >= 1 && number <= deck->cases->len, FALSE);
  item = g_ptr_array_index (deck->cases, number - 1);
  memset (target, 0, sizeof *target);
  target->instance = hs_dataset_find_instance (dataset, item->instance);
  if (target->instance == NULL)
    return case_changed (error, deck_path, number, HS_DECK_ERROR_CHANGED,
                         _("instance \"%s\" is not in the dataset"), item->instance);
  if (item->prompt != NULL)
    target->text = item->prompt;
  else
    {
      if (item->sentence > target->instance->sentences->len)
        return case_changed (error, deck_path, number, HS_DECK_ERROR_CHANGED,
                             _("instance \"%s\" has %u sentences, not %u"), item->instance,
                             target->instance->sentences->len, item->sentence);
      target->sentence = g_ptr_array_index (target->instance->sentences, item->sentence - 1);
      target->text = target->sentence->text;
      if (item->sentence_text != NULL && g_strcmp0 (item->sentence_text, target->text) != 0)
        return case_changed (error, deck_path, number, HS_DECK_ERROR_CHANGED,
                             _("sentence %u of instance \"%s\" changed: it reads \"%s\", the deck saved \"%s\""),
                             item->sentence, item->instance, target->text, item->sentence_text);
      if (item->swap)
        target->swapped = hs_text_swap_sides (target->text);
    }
  /* a bundle carries its maps: no model needs to be there */
  if (item->embedded_maps != NULL)
    return TRUE;
  for (guint m = 0; m < item->models->len; m++)
    {
      const HsDeckModel *model = g_ptr_array_index (item->models, m);

      if (model->live)
        continue;
      if (target->sentence == NULL)
        {
          case_changed (error, deck_path, number, HS_DECK_ERROR_INVALID,
                        _("model \"%s\" is not live: a free prompt needs a live model"),
                        model->name);
          hs_deck_target_clear (target);
          return FALSE;
        }
      if (find_map (target, model->name, FALSE) == NULL)
        {
          case_changed (error, deck_path, number, HS_DECK_ERROR_CHANGED,
                        _("model \"%s\" has no map of instance \"%s\" sentence %u (%s)"),
                        model->name, item->instance, item->sentence, target->sentence->id);
          hs_deck_target_clear (target);
          return FALSE;
        }
      if (target->swapped && find_map (target, model->name, TRUE) == NULL)
        {
          case_changed (error, deck_path, number, HS_DECK_ERROR_CHANGED,
                        _("model \"%s\" has no map of instance \"%s\" for the swapped prompt \"%s\""),
                        model->name, item->instance, target->swapped);
          hs_deck_target_clear (target);
          return FALSE;
        }
    }
  return TRUE;
}

/* One embedded map of a bundle, beneath the deck's folder. */
static HsAttentionMap *
load_embedded (const char *deck_path, const char *relative, GError **error)
{
  g_autofree char *folder = g_path_get_dirname (deck_path);
  g_autofree char *path = g_build_filename (folder, relative, NULL);
  HsAttentionMap *map;
  int fd = hs_deck_open_beneath (deck_path, ".", relative, error);

  if (fd < 0)
    return NULL;
  map = hs_attention_map_load_npy_fd (fd, path, NULL, NAN, error);
  close (fd);
  return map;
}

GPtrArray *
hs_deck_case_load_maps (const HsDeck *deck, guint number, const char *deck_path,
                        HsDataset *dataset, const HsDeckTarget *target, HsModelCache *models,
                        GError **error)
{
  const HsDeckCase *item = g_ptr_array_index (deck->cases, number - 1);
  g_autoptr(GPtrArray) maps = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_attention_map_unref);
  g_autoptr(HsImage) image = NULL;
  g_autoptr(GError) local = NULL;
  guint n_sides = target->swapped ? 2 : 1;

  if (item->embedded_maps != NULL)
    {
      if (g_strv_length (item->embedded_maps) != item->models->len * n_sides)
        {
          case_changed (error, deck_path, number, HS_DECK_ERROR_INVALID,
                        _("%u embedded maps for %u maps shown"),
                        g_strv_length (item->embedded_maps), item->models->len * n_sides);
          return NULL;
        }
      for (guint i = 0; item->embedded_maps[i]; i++)
        {
          HsAttentionMap *map = load_embedded (deck_path, item->embedded_maps[i], &local);
          if (map == NULL)
            {
              case_changed (error, deck_path, number, HS_DECK_ERROR_CHANGED, "%s", local->message);
              return NULL;
            }
          g_ptr_array_add (maps, map);
        }
      return g_steal_pointer (&maps);
    }
  for (guint m = 0; m < item->models->len; m++)
    {
      const HsDeckModel *model = g_ptr_array_index (item->models, m);

      for (guint side = 0; side < n_sides; side++)
        {
          HsAttentionMap *map;

          if (model->live)
            {
              g_autoptr(HsModel) live = NULL;

              if (image == NULL)
                image = hs_dataset_load_image (dataset, target->instance, &local);
              if (image != NULL)
                live = hs_model_cache_get_model (models, model->name, &local);
              map = live ? hs_model_attend_image (live, image, side ? target->swapped : target->text,
                                                  &local)
                         : NULL;
            }
          else
            {
              HsMapRef *ref = find_map (target, model->name, side == 1);
              map = ref ? hs_dataset_load_map (dataset, ref, &local) : NULL;
              if (ref == NULL)
                g_set_error (&local, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED,
                             _("model \"%s\" has no map for it"), model->name);
            }
          if (map == NULL)
            {
              case_changed (error, deck_path, number, HS_DECK_ERROR_CHANGED, "%s", local->message);
              return NULL;
            }
          g_ptr_array_add (maps, map);
        }
    }
  return g_steal_pointer (&maps);
}

/* Map `index` of a case in hs_deck_case_load_maps's order (models, each
 * with its swapped side after it): its model, whether it is the swapped
 * prompt's, and its file (an embedded map's beneath the deck's folder, a
 * precomputed one's in the dataset; NULL for a live model's). */
static const HsDeckModel *
map_source (const HsDeckCase *item, const HsDeckTarget *target, HsDataset *dataset,
            guint index, gboolean *swapped, char **file)
{
  guint n_sides = target->swapped ? 2 : 1;
  const HsDeckModel *model = g_ptr_array_index (item->models, index / n_sides);

  *swapped = index % n_sides == 1;
  *file = NULL;
  if (item->embedded_maps != NULL)
    *file = g_strdup (item->embedded_maps[index]);
  else if (!model->live)
    {
      HsMapRef *ref = find_map (target, model->name, *swapped);

      if (ref != NULL)
        *file = hs_dataset_resolve_path (dataset, ref->file, NULL);
      if (ref != NULL && *file == NULL)
        *file = g_strdup (ref->file);
    }
  return model;
}

/* The case's maps hash differently from when it was saved: one problem per
 * map whose own saved hash differs, naming its model and file (or that the
 * live model attended it again); one for the case, naming every file it
 * read, when the deck has no usable hash per map. */
static void
report_changed_maps (const HsDeckCase *item, guint number, const char *deck_path,
                     HsDataset *dataset, const HsDeckTarget *target, GPtrArray *maps,
                     const char *hash, GPtrArray *problems)
{
  gboolean per_map = item->maps_sha256 != NULL && g_strv_length (item->maps_sha256) == maps->len;
  guint before = problems->len;
  g_autoptr(GString) files = g_string_new (NULL);

  for (guint i = 0; i < maps->len; i++)
    {
      g_autofree char *one = hs_deck_hash_maps ((HsAttentionMap **) &maps->pdata[i], 1);
      g_autofree char *file = NULL;
      gboolean swapped;
      const HsDeckModel *model = map_source (item, target, dataset, i, &swapped, &file);
      const char *side = swapped ? _(" for the swapped prompt") : "";

      if (file != NULL)
        g_string_append_printf (files, "%s%s", files->len > 0 ? ", " : "", file);
      if (!per_map || g_str_equal (one, item->maps_sha256[i]))
        continue;
      if (file == NULL)
        g_ptr_array_add (problems,
                         g_strdup_printf (_("%s: case %u: the live model \"%s\" attended again%s: its map differs from the one saved (SHA-256 %.12s…, saved %.12s…)"),
                                          deck_path, number, model->name, side, one,
                                          item->maps_sha256[i]));
      else
        g_ptr_array_add (problems,
                         g_strdup_printf (_("%s: case %u: %s: the map of model \"%s\"%s differs from the one saved (SHA-256 %.12s…, saved %.12s…): the file changed"),
                                          deck_path, number, file, model->name, side, one,
                                          item->maps_sha256[i]));
    }
  if (problems->len > before)
    return;
  if (hs_deck_case_is_live (item) && item->embedded_maps == NULL)
    g_ptr_array_add (problems,
                     g_strdup_printf (_("%s: case %u: re-attended by the live model, the map differs from the one saved (SHA-256 %.12s…, saved %.12s…)"),
                                      deck_path, number, hash, item->map_sha256));
  else
    g_ptr_array_add (problems,
                     g_strdup_printf (_("%s: case %u: the map differs from the one saved (SHA-256 %.12s…, saved %.12s…): one of its files changed: %s"),
                                      deck_path, number, hash, item->map_sha256, files->str));
}

gboolean
hs_deck_check (const HsDeck *deck, const char *deck_path, HsModelCache *models,
               GPtrArray *problems)
{
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *manifest = NULL;
  guint before = problems->len;

  dataset = hs_deck_open_dataset (deck, deck_path, &manifest, &error);
  if (dataset == NULL)
    {
      g_ptr_array_add (problems, g_strdup (error->message));
      return FALSE;
    }
  if (deck->manifest_sha256 != NULL && !g_str_equal (deck->manifest_sha256, manifest))
    g_ptr_array_add (problems,
                     g_strdup_printf (_("%s: the dataset \"%s\" changed since the deck was saved (manifest SHA-256 %.12s…, saved %.12s…)"),
                                      deck_path, deck->dataset, manifest, deck->manifest_sha256));
  for (guint i = 1; i <= deck->cases->len; i++)
    {
      const HsDeckCase *item = g_ptr_array_index (deck->cases, i - 1);
      HsDeckTarget target;
      g_autoptr(GPtrArray) maps = NULL;
      g_autofree char *hash = NULL;

      if (!hs_deck_case_resolve (deck, i, deck_path, dataset, &target, &error))
        {
          g_ptr_array_add (problems, g_strdup (error->message));
          g_clear_error (&error);
          continue;
        }
      maps = hs_deck_case_load_maps (deck, i, deck_path, dataset, &target, models, &error);
      if (maps == NULL)
        {
          g_ptr_array_add (problems, g_strdup (error->message));
          g_clear_error (&error);
        }
      else if (item->map_sha256 != NULL)
        {
          hash = hs_deck_hash_maps ((HsAttentionMap * const *) maps->pdata, maps->len);
          if (!g_str_equal (hash, item->map_sha256))
            report_changed_maps (item, i, deck_path, dataset, &target, maps, hash, problems);
        }
      hs_deck_target_clear (&target);
    }
  return problems->len == before;
}
