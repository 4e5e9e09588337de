/* hs-dataset.c — the dataset object, lookups, constructors and file access */
#include "hs-dataset-private.h"
#include "hs-limits.h"
#include "hs-safe-open.h"
#include "hs-i18n-private.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

G_DEFINE_QUARK (hs-dataset-error-quark, hs_dataset_error)

/* --- shared names --------------------------------------------------------- *
 * The loader replaces names that repeat across instances (region names,
 * labels, kinds, sentence and model ids, tokens, metadata keys) by their
 * interned copy (g_intern_string: one per distinct text for the process,
 * never freed), which saves a fifth of the resident size of a 10 000-instance
 * dataset.  The frees of those fields therefore go through str_free, which
 * leaves interned copies alone; ids, texts, paths, prompts and metadata
 * values are never interned. */

static gboolean
is_interned (const char *text)
{
  GQuark quark = g_quark_try_string (text);

  return quark != 0 && g_quark_to_string (quark) == text;
}

static void
str_free (gpointer text)
{
  if (text != NULL && !is_interned (text))
    g_free (text);
}

static void
strv_free (char **strv)
{
  if (strv == NULL)
    return;
  for (char **p = strv; *p != NULL; p++)
    str_free (*p);
  g_free (strv);
}

void
hs_dataset_intern_in_place (char **text)
{
  const char *interned;

  if (*text == NULL || is_interned (*text))
    return;
  interned = g_intern_string (*text);
  g_free (*text);
  *text = (char *) interned;
}

/* --- plain structs ------------------------------------------------------- */

static void
label_free_cb (gpointer data)
{
  hs_label_free (data);
}

static void
region_free_cb (gpointer data)
{
  hs_region_free (data);
}

static void
sentence_free_cb (gpointer data)
{
  hs_sentence_free (data);
}

static void
map_ref_free_cb (gpointer data)
{
  hs_map_ref_free (data);
}

HsInstance *
hs_instance_new (const char *id, const char *image)
{
  HsInstance *instance = g_new0 (HsInstance, 1);

  instance->id = g_strdup (id);
  instance->image = g_strdup (image);
  instance->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, str_free, g_free);
  instance->findings = g_ptr_array_new_with_free_func (label_free_cb);
  instance->regions = g_ptr_array_new_with_free_func (region_free_cb);
  instance->sentences = g_ptr_array_new_with_free_func (sentence_free_cb);
  instance->maps = g_ptr_array_new_with_free_func (map_ref_free_cb);
  return instance;
}

void
hs_instance_free (HsInstance *instance)
{
  if (instance == NULL)
    return;
  g_free (instance->id);
  g_free (instance->image);
  g_free (instance->image_record);
  g_clear_pointer (&instance->metadata, g_hash_table_unref);
  g_clear_pointer (&instance->findings, g_ptr_array_unref);
  g_clear_pointer (&instance->regions, g_ptr_array_unref);
  g_clear_pointer (&instance->sentences, g_ptr_array_unref);
  g_clear_pointer (&instance->maps, g_ptr_array_unref);
  g_free (instance);
}

void
hs_instance_set_metadata (HsInstance *instance, const char *key, const char *value)
{
  g_return_if_fail (instance != NULL);
  g_return_if_fail (key != NULL);

  if (value == NULL)
    g_hash_table_remove (instance->metadata, key);
  else
    g_hash_table_insert (instance->metadata, g_strdup (key), g_strdup (value));
}

const char *
hs_instance_get_metadata (const HsInstance *instance, const char *key)
{
  g_return_val_if_fail (instance != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return g_hash_table_lookup (instance->metadata, key);
}

void
hs_instance_add_region (HsInstance *instance, HsRegion *region)
{
  g_return_if_fail (instance != NULL);
  g_return_if_fail (region != NULL);
  g_ptr_array_add (instance->regions, region);
}

void
hs_instance_add_sentence (HsInstance *instance, HsSentence *sentence)
{
  g_return_if_fail (instance != NULL);
  g_return_if_fail (sentence != NULL);
  g_ptr_array_add (instance->sentences, sentence);
}

void
hs_instance_add_map (HsInstance *instance, HsMapRef *ref)
{
  g_return_if_fail (instance != NULL);
  g_return_if_fail (ref != NULL);
  g_ptr_array_add (instance->maps, ref);
}

void
hs_instance_add_finding (HsInstance *instance, HsLabel *label)
{
  g_return_if_fail (instance != NULL);
  g_return_if_fail (label != NULL);
  g_ptr_array_add (instance->findings, label);
}

HsRegion *
hs_region_new (const char *name)
{
  HsRegion *region = g_new0 (HsRegion, 1);

  region->name = g_strdup (name);
  region->boxes = g_array_new (FALSE, FALSE, sizeof (HsBox));
  return region;
}

void
hs_region_add_box (HsRegion *region, double x1, double y1, double x2, double y2)
{
  HsBox box = { x1, y1, x2, y2 };

  g_return_if_fail (region != NULL);
  g_array_append_val (region->boxes, box);
}

void
hs_region_set_mask (HsRegion *region, const char *mask)
{
  g_return_if_fail (region != NULL);
  g_free (region->mask);
  region->mask = g_strdup (mask);
  /* A record describes the old file. */
  g_clear_pointer (&region->mask_record, g_free);
}

void
hs_region_set_extent (HsRegion *region, const HsBox *extent)
{
  g_return_if_fail (region != NULL);
  region->has_extent = extent != NULL;
  region->extent = extent != NULL ? *extent : (HsBox) { 0, 0, 0, 0 };
}

HsRegion *
hs_region_copy (const HsRegion *region)
{
  HsRegion *copy;

  g_return_val_if_fail (region != NULL, NULL);

  copy = hs_region_new (region->name);
  if (region->boxes != NULL)
    g_array_append_vals (copy->boxes, region->boxes->data, region->boxes->len);
  copy->mask = g_strdup (region->mask);
  copy->has_extent = region->has_extent;
  copy->extent = region->extent;
  return copy;
}

void
hs_dataset_mask_extent (const guint8 *data, guint bytes_per_pixel, guint width, guint height,
                        HsBox *extent)
{
  guint min_x = G_MAXUINT, min_y = G_MAXUINT, max_x = 0, max_y = 0;

  for (guint y = 0; y < height; y++)
    {
      const guint8 *row = data + (gsize) y * width * bytes_per_pixel;

      for (guint x = 0; x < width; x++)
        for (guint b = 0; b < bytes_per_pixel; b++)
          if (row[(gsize) x * bytes_per_pixel + b] != 0)
            {
              min_x = MIN (min_x, x);
              max_x = MAX (max_x, x);
              min_y = MIN (min_y, y);
              max_y = MAX (max_y, y);
              break;
            }
    }
  if (min_x == G_MAXUINT)
    *extent = (HsBox) { 0, 0, 0, 0 };
  else
    *extent = (HsBox) { min_x, min_y, max_x + 1.0, max_y + 1.0 };
}

void
hs_region_set_mask_extent (HsRegion *region, const guint8 *mask, guint width, guint height)
{
  HsBox extent;

  g_return_if_fail (region != NULL);
  g_return_if_fail (mask != NULL || (gsize) width * height == 0);

  hs_dataset_mask_extent (mask, 1, width, height, &extent);
  hs_region_set_extent (region, &extent);
}

void
hs_region_free (HsRegion *region)
{
  if (region == NULL)
    return;
  str_free (region->name);
  g_clear_pointer (&region->boxes, g_array_unref);
  g_free (region->mask);
  g_free (region->mask_record);
  g_free (region);
}

HsSentence *
hs_sentence_new (const char *id, const char *text)
{
  HsSentence *sentence = g_new0 (HsSentence, 1);

  sentence->id = g_strdup (id);
  sentence->text = g_strdup (text);
  sentence->kind = g_strdup ("report");
  sentence->targets = g_new0 (char *, 1);
  sentence->labels = g_ptr_array_new_with_free_func (label_free_cb);
  return sentence;
}

void
hs_sentence_add_target (HsSentence *sentence, const char *region_name)
{
  guint n;

  g_return_if_fail (sentence != NULL);
  g_return_if_fail (region_name != NULL);

  n = sentence->targets ? g_strv_length (sentence->targets) : 0;
  sentence->targets = g_renew (char *, sentence->targets, n + 2);
  sentence->targets[n] = g_strdup (region_name);
  sentence->targets[n + 1] = NULL;
}

void
hs_dataset_set_sentence_targets (HsDataset *dataset, HsInstance *instance, HsSentence *sentence,
                                 const char * const *targets)
{
  guint n = targets ? g_strv_length ((char **) targets) : 0;
  char **copy, **old;

  g_return_if_fail (dataset != NULL && instance != NULL && sentence != NULL);

  copy = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    copy[i] = (char *) g_intern_string (targets[i]);
  /* A worker (subsets, wrong-side scan) may be reading the old array: it
   * stays valid until the dataset goes; the instance's cached subsets are
   * recomputed from the new one. */
  g_mutex_lock (&dataset->cache_lock);
  old = g_atomic_pointer_exchange (&sentence->targets, copy);
  dataset->retired_targets = g_slist_prepend (dataset->retired_targets, old);
  g_hash_table_remove (dataset->mdrb, instance);
  g_mutex_unlock (&dataset->cache_lock);
}

/* The instance's region list, copied without the region named `skip`
 * (NULL: none) and with `add` (NULL: none) at the end, replaces the old one,
 * which readers may still walk: it is kept (not owning its regions) until
 * the dataset goes.  Returns the region left out, or NULL. */
static HsRegion *
replace_regions (HsDataset *dataset, HsInstance *instance, const char *skip, HsRegion *add)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func (region_free_cb), *old;
  HsRegion *skipped = NULL;

  for (guint i = 0; i < instance->regions->len; i++)
    {
      HsRegion *r = g_ptr_array_index (instance->regions, i);

      if (skip != NULL && skipped == NULL && g_strcmp0 (r->name, skip) == 0)
        skipped = r;
      else
        g_ptr_array_add (copy, r);
    }
  if (add != NULL)
    g_ptr_array_add (copy, add);
  g_mutex_lock (&dataset->cache_lock);
  old = g_atomic_pointer_exchange (&instance->regions, copy);
  g_ptr_array_set_free_func (old, NULL);
  dataset->retired_region_lists = g_slist_prepend (dataset->retired_region_lists, old);
  if (skipped != NULL)
    dataset->retired_regions = g_slist_prepend (dataset->retired_regions, skipped);
  g_hash_table_remove (dataset->mdrb, instance);
  g_mutex_unlock (&dataset->cache_lock);
  return skipped;
}

void
hs_dataset_add_instance_region (HsDataset *dataset, HsInstance *instance, HsRegion *region)
{
  g_return_if_fail (dataset != NULL && instance != NULL && region != NULL);
  replace_regions (dataset, instance, NULL, region);
}

gboolean
hs_dataset_remove_instance_region (HsDataset *dataset, HsInstance *instance, const char *name)
{
  g_return_val_if_fail (dataset != NULL && instance != NULL && name != NULL, FALSE);
  if (hs_instance_find_region (instance, name) == NULL)
    return FALSE;
  return replace_regions (dataset, instance, name, NULL) != NULL;
}

void
hs_sentence_add_label (HsSentence *sentence, HsLabel *label)
{
  g_return_if_fail (sentence != NULL);
  g_return_if_fail (label != NULL);
  g_ptr_array_add (sentence->labels, label);
}

void
hs_sentence_set_kind (HsSentence *sentence, const char *kind)
{
  g_return_if_fail (sentence != NULL);
  str_free (sentence->kind);
  sentence->kind = g_strdup (kind ? kind : "report");
}

void
hs_sentence_free (HsSentence *sentence)
{
  if (sentence == NULL)
    return;
  str_free (sentence->id);
  g_free (sentence->text);
  str_free (sentence->kind);
  strv_free (sentence->targets);
  g_clear_pointer (&sentence->labels, g_ptr_array_unref);
  g_free (sentence);
}

HsLabel *
hs_label_new (const char *condition, const char *context, const char * const *locations)
{
  HsLabel *label = g_new0 (HsLabel, 1);

  label->condition = g_strdup (condition);
  label->context = g_strdup (context ? context : "positive");
  label->locations = locations ? g_strdupv ((char **) locations) : g_new0 (char *, 1);
  return label;
}

void
hs_label_free (HsLabel *label)
{
  if (label == NULL)
    return;
  str_free (label->condition);
  str_free (label->context);
  strv_free (label->locations);
  g_free (label);
}

HsMapRef *
hs_map_ref_new (const char *model, const char *query, const char *file)
{
  HsMapRef *ref = g_new0 (HsMapRef, 1);

  ref->model = g_strdup (model);
  ref->query = g_strdup (query);
  ref->file = g_strdup (file);
  ref->no_attn = NAN;
  return ref;
}

HsMapRef *
hs_map_ref_new_for_map (const HsAttentionMap *map, const char *model, const char *query,
                        const char *file, const char *prompt, gboolean tokens)
{
  HsMapRef *ref = hs_map_ref_new (model, query, file);
  guint n_tokens = hs_attention_map_get_n_tokens (map);

  ref->prompt = g_strdup (prompt);
  if (tokens && n_tokens > 0)
    {
      ref->tokens = g_new0 (char *, n_tokens + 1);
      for (guint t = 0; t < n_tokens; t++)
        ref->tokens[t] = g_strdup (hs_attention_map_get_token (map, t));
    }
  ref->no_attn = hs_attention_map_get_no_attn (map);
  return ref;
}

void
hs_map_ref_set_tokens (HsMapRef *ref, const char * const *tokens)
{
  g_return_if_fail (ref != NULL);
  strv_free (ref->tokens);
  ref->tokens = tokens ? g_strdupv ((char **) tokens) : NULL;
}

void
hs_map_ref_set_prompt (HsMapRef *ref, const char *prompt)
{
  g_return_if_fail (ref != NULL);
  g_free (ref->prompt);
  ref->prompt = g_strdup (prompt);
}

void
hs_map_ref_set_quantity (HsMapRef *ref, const char *quantity)
{
  g_return_if_fail (ref != NULL);
  g_free (ref->quantity);
  ref->quantity = g_strdup (quantity);
}

void
hs_tag_weights_free (HsTagWeight *tags, guint n_tags)
{
  for (guint i = 0; tags != NULL && i < n_tags; i++)
    g_free (tags[i].tag);
  g_free (tags);
}

static void
clear_tags (HsMapRef *ref)
{
  hs_tag_weights_free (g_steal_pointer (&ref->tags), ref->n_tags);
  ref->n_tags = 0;
}

void
hs_map_ref_set_tags (HsMapRef *ref, const HsTagWeight *tags, guint n)
{
  g_return_if_fail (ref != NULL);
  g_return_if_fail (n == 0 || tags != NULL);
  clear_tags (ref);
  if (n == 0)
    return;
  ref->tags = g_new0 (HsTagWeight, n);
  for (guint i = 0; i < n; i++)
    {
      ref->tags[i].tag = g_strdup (tags[i].tag);
      ref->tags[i].weight = tags[i].weight;
    }
  ref->n_tags = n;
}

void
hs_map_ref_free (HsMapRef *ref)
{
  if (ref == NULL)
    return;
  str_free (ref->model);
  str_free (ref->query);
  g_free (ref->prompt);
  g_free (ref->quantity);
  g_free (ref->file);
  g_free (ref->file_record);
  strv_free (ref->tokens);
  clear_tags (ref);
  g_free (ref);
}

HsProblem *
hs_problem_new (const char *file, const char *json_path, const char *message)
{
  HsProblem *problem = g_new0 (HsProblem, 1);

  problem->file = g_strdup (file);
  problem->json_path = g_strdup (json_path ? json_path : "$");
  problem->message = g_strdup (message);
  return problem;
}

void
hs_problem_free (HsProblem *problem)
{
  if (problem == NULL)
    return;
  g_free (problem->file);
  g_free (problem->json_path);
  g_free (problem->message);
  g_free (problem);
}

char *
hs_problem_to_string (const HsProblem *problem)
{
  g_return_val_if_fail (problem != NULL, NULL);
  return g_strdup_printf ("%s: %s: %s", problem->file ? problem->file : "?",
                          problem->json_path ? problem->json_path : "$",
                          problem->message ? problem->message : "");
}

/* --- the dataset object -------------------------------------------------- */

HsDataset *
hs_dataset_new_internal (const char *root, const char *manifest_path)
{
  HsDataset *dataset = g_new0 (HsDataset, 1);

  g_atomic_ref_count_init (&dataset->ref_count);
  dataset->root = g_strdup (root);
  dataset->manifest_path = manifest_path ? g_strdup (manifest_path)
                                         : g_build_filename (root, HS_DATASET_MANIFEST, NULL);
  dataset->models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  dataset->model_computed_by = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  dataset->n_slots = 16;
  dataset->slots = g_new0 (HsInstance *, dataset->n_slots);
  g_mutex_init (&dataset->index_lock);
  dataset->complete = TRUE;
  dataset->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  dataset->index_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_mutex_init (&dataset->cache_lock);
  dataset->image_sizes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  dataset->mask_extents = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  dataset->mdrb = g_hash_table_new (g_direct_hash, g_direct_equal);
  /* Before the manifest is read: a manifest replaced between this and the
   * read makes a later save refuse, never write over the other one. */
  hs_dataset_note_manifest (dataset);
  return dataset;
}

void
hs_dataset_note_manifest (HsDataset *dataset)
{
  dataset->has_manifest = hs_file_stamp_get_no_follow (dataset->manifest_path, &dataset->manifest_stamp,
                                                       NULL);
}

/* The folder need not exist yet; it is canonicalised as far as it exists so
 * resolve_path compares like with like. */
static char *
canonical_dir (const char *dir)
{
  /* relative to the current directory */
  g_autofree char *absolute = g_canonicalize_filename (dir, NULL);
  char *real;

  real = realpath (absolute, NULL);
  if (real != NULL)
    {
      char *copy = g_strdup (real);
      free (real);
      return copy;
    }
  return g_steal_pointer (&absolute);
}

HsDataset *
hs_dataset_new (const char *root_dir, const char *name)
{
  g_autofree char *root = NULL;
  HsDataset *dataset;

  g_return_val_if_fail (root_dir != NULL, NULL);

  root = canonical_dir (root_dir);
  dataset = hs_dataset_new_internal (root, NULL);
  dataset->name = g_strdup (name);
  return dataset;
}

void
hs_dataset_set_root (HsDataset *dataset, const char *root)
{
  g_free (dataset->root);
  g_free (dataset->manifest_path);
  dataset->root = canonical_dir (root);
  dataset->manifest_path = g_build_filename (dataset->root, HS_DATASET_MANIFEST, NULL);
}

HsDataset *
hs_dataset_ref (HsDataset *dataset)
{
  g_return_val_if_fail (dataset != NULL, NULL);
  g_atomic_ref_count_inc (&dataset->ref_count);
  return dataset;
}

void
hs_dataset_unref (HsDataset *dataset)
{
  if (dataset == NULL)
    return;
  if (!g_atomic_ref_count_dec (&dataset->ref_count))
    return;
  g_free (dataset->root);
  g_free (dataset->manifest_path);
  g_free (dataset->name);
  g_free (dataset->description);
  g_clear_pointer (&dataset->stream, hs_manifest_stream_free);
  g_hash_table_unref (dataset->models);
  g_hash_table_unref (dataset->model_computed_by);
  g_hash_table_unref (dataset->by_id);
  g_hash_table_unref (dataset->index_of);
  for (guint i = 0, n = (guint) dataset->n_instances; i < n; i++)
    hs_instance_free (dataset->slots[i]);
  g_free (dataset->slots);
  g_slist_free_full (dataset->retired_slots, g_free);
  g_slist_free_full (dataset->retired_targets, (GDestroyNotify) strv_free);
  g_slist_free_full (dataset->retired_region_lists, (GDestroyNotify) g_ptr_array_unref);
  g_slist_free_full (dataset->retired_regions, (GDestroyNotify) hs_region_free);
  g_mutex_clear (&dataset->index_lock);
  g_mutex_clear (&dataset->cache_lock);
  g_hash_table_unref (dataset->image_sizes);
  g_hash_table_unref (dataset->mask_extents);
  g_hash_table_unref (dataset->mdrb);
  g_free (dataset);
}

const char *
hs_dataset_get_root (HsDataset *dataset)
{
  g_return_val_if_fail (dataset != NULL, NULL);
  return dataset->root;
}

const char *
hs_dataset_get_manifest_path (HsDataset *dataset)
{
  g_return_val_if_fail (dataset != NULL, NULL);
  return dataset->manifest_path;
}

const char *
hs_dataset_get_name (HsDataset *dataset)
{
  g_return_val_if_fail (dataset != NULL, NULL);
  return dataset->name;
}

void
hs_dataset_set_name (HsDataset *dataset, const char *name)
{
  g_return_if_fail (dataset != NULL);
  g_free (dataset->name);
  dataset->name = g_strdup (name);
}

const char *
hs_dataset_get_description (HsDataset *dataset)
{
  g_return_val_if_fail (dataset != NULL, NULL);
  return dataset->description;
}

void
hs_dataset_set_description (HsDataset *dataset, const char *description)
{
  g_return_if_fail (dataset != NULL);
  g_free (dataset->description);
  dataset->description = g_strdup (description);
}

void
hs_dataset_set_model_description (HsDataset *dataset, const char *model, const char *description)
{
  g_return_if_fail (dataset != NULL);
  g_return_if_fail (model != NULL);
  g_mutex_lock (&dataset->index_lock);
  g_hash_table_insert (dataset->models, g_strdup (model), g_strdup (description));
  g_mutex_unlock (&dataset->index_lock);
}

const char *
hs_dataset_get_model_description (HsDataset *dataset, const char *model)
{
  g_return_val_if_fail (dataset != NULL, NULL);
  const char *description;

  g_return_val_if_fail (model != NULL, NULL);
  g_mutex_lock (&dataset->index_lock);
  description = g_hash_table_lookup (dataset->models, model);
  g_mutex_unlock (&dataset->index_lock);
  return description;
}

void
hs_dataset_set_model_computed_by (HsDataset *dataset, const char *model, const char *computed_by)
{
  g_return_if_fail (dataset != NULL);
  g_return_if_fail (model != NULL);
  g_mutex_lock (&dataset->index_lock);
  if (computed_by != NULL)
    g_hash_table_insert (dataset->model_computed_by, g_strdup (model), g_strdup (computed_by));
  else
    g_hash_table_remove (dataset->model_computed_by, model);
  g_mutex_unlock (&dataset->index_lock);
}

const char *
hs_dataset_get_model_computed_by (HsDataset *dataset, const char *model)
{
  const char *computed_by;

  g_return_val_if_fail (dataset != NULL, NULL);
  g_return_val_if_fail (model != NULL, NULL);
  g_mutex_lock (&dataset->index_lock);
  computed_by = g_hash_table_lookup (dataset->model_computed_by, model);
  g_mutex_unlock (&dataset->index_lock);
  return computed_by;
}

guint
hs_dataset_get_n_instances (HsDataset *dataset)
{
  g_return_val_if_fail (dataset != NULL, 0);
  return (guint) g_atomic_int_get (&dataset->n_instances);
}

HsInstance *
hs_dataset_get_instance (HsDataset *dataset, guint index)
{
  HsInstance **slots;

  g_return_val_if_fail (dataset != NULL, NULL);
  /* Count first, then the array: an array published with a count holds
   * at least that many slots. */
  if (index >= (guint) g_atomic_int_get (&dataset->n_instances))
    return NULL;
  slots = g_atomic_pointer_get (&dataset->slots);
  return slots[index];
}

HsInstance *
hs_dataset_find_instance (HsDataset *dataset, const char *id)
{
  HsInstance *instance;

  g_return_val_if_fail (dataset != NULL, NULL);
  if (id == NULL)
    return NULL;
  g_mutex_lock (&dataset->index_lock);
  instance = g_hash_table_lookup (dataset->by_id, id);
  g_mutex_unlock (&dataset->index_lock);
  return instance;
}

int
hs_dataset_get_instance_index (HsDataset *dataset, const HsInstance *instance)
{
  int index;

  g_return_val_if_fail (dataset != NULL, -1);
  if (instance == NULL)
    return -1;
  g_mutex_lock (&dataset->index_lock);
  index = GPOINTER_TO_INT (g_hash_table_lookup (dataset->index_of, instance)) - 1;
  g_mutex_unlock (&dataset->index_lock);
  return index;
}

void
hs_dataset_add_instance (HsDataset *dataset, HsInstance *instance)
{
  guint n;

  g_return_if_fail (dataset != NULL);
  g_return_if_fail (instance != NULL);
  g_return_if_fail (dataset->n_instances < G_MAXINT);

  n = (guint) dataset->n_instances;
  if (n == dataset->n_slots)
    {
      guint capacity = dataset->n_slots * 2;
      HsInstance **grown = g_new (HsInstance *, capacity);

      memcpy (grown, dataset->slots, n * sizeof *grown);
      dataset->retired_slots = g_slist_prepend (dataset->retired_slots, dataset->slots);
      g_atomic_pointer_set (&dataset->slots, grown);
      dataset->n_slots = capacity;
    }
  dataset->slots[n] = instance;

  g_mutex_lock (&dataset->index_lock);
  g_hash_table_insert (dataset->index_of, instance, GINT_TO_POINTER ((int) n + 1));
  /* A duplicate id keeps the first instance findable; validation reports it. */
  if (instance->id != NULL && !g_hash_table_contains (dataset->by_id, instance->id))
    g_hash_table_insert (dataset->by_id, instance->id, instance);
  g_mutex_unlock (&dataset->index_lock);
  g_atomic_int_set (&dataset->n_instances, (int) n + 1);
}

gboolean
hs_dataset_is_complete (HsDataset *dataset)
{
  g_return_val_if_fail (dataset != NULL, FALSE);
  return g_atomic_int_get (&dataset->complete);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  /* g_ptr_array_sort passes pointers to the elements. */
  return strcmp (*(char * const *) a, *(char * const *) b);
}

char **
hs_dataset_list_models (HsDataset *dataset)
{
  g_autoptr(GHashTable) seen = NULL;
  g_autoptr(GPtrArray) names = NULL;

  g_return_val_if_fail (dataset != NULL, NULL);

  seen = g_hash_table_new (g_str_hash, g_str_equal);
  names = g_ptr_array_new ();
  for (guint i = 0, n = hs_dataset_get_n_instances (dataset); i < n; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      for (guint j = 0; j < instance->maps->len; j++)
        {
          HsMapRef *ref = g_ptr_array_index (instance->maps, j);

          if (ref->model != NULL && g_hash_table_add (seen, ref->model))
            g_ptr_array_add (names, g_strdup (ref->model));
        }
    }
  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

/* --- lookups ------------------------------------------------------------- */

HsSentence *
hs_instance_find_sentence (const HsInstance *instance, const char *id)
{
  g_return_val_if_fail (instance != NULL, NULL);
  if (id == NULL)
    return NULL;
  for (guint i = 0; i < instance->sentences->len; i++)
    {
      HsSentence *sentence = g_ptr_array_index (instance->sentences, i);
      if (g_strcmp0 (sentence->id, id) == 0)
        return sentence;
    }
  return NULL;
}

HsRegion *
hs_instance_find_region (const HsInstance *instance, const char *name)
{
  g_return_val_if_fail (instance != NULL, NULL);
  if (name == NULL)
    return NULL;
  for (guint i = 0; i < instance->regions->len; i++)
    {
      HsRegion *region = g_ptr_array_index (instance->regions, i);
      if (g_strcmp0 (region->name, name) == 0)
        return region;
    }
  return NULL;
}

HsRegion *
hs_instance_get_target_region (HsDataset *dataset, const HsInstance *instance, const char *name,
                               GError **error)
{
  HsRegion *region;

  g_return_val_if_fail (dataset != NULL && instance != NULL, NULL);
  region = hs_instance_find_region (instance, name);
  if (region == NULL)
    g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                 _("%s: instance \"%s\" has no region \"%s\""), dataset->manifest_path,
                 instance->id ? instance->id : "", name);
  return region;
}

HsMapRef *
hs_instance_find_map (const HsInstance *instance, const char *model, const char *query)
{
  g_return_val_if_fail (instance != NULL, NULL);
  for (guint i = 0; i < instance->maps->len; i++)
    {
      HsMapRef *ref = g_ptr_array_index (instance->maps, i);
      if (g_strcmp0 (ref->model, model) == 0 && g_strcmp0 (ref->query, query) == 0)
        return ref;
    }
  return NULL;
}

HsMapRef *
hs_instance_find_map_by_prompt (const HsInstance *instance, const char *model, const char *prompt)
{
  g_return_val_if_fail (instance != NULL, NULL);
  if (prompt == NULL)
    return NULL;
  for (guint i = 0; i < instance->maps->len; i++)
    {
      HsMapRef *ref = g_ptr_array_index (instance->maps, i);
      if (g_strcmp0 (ref->model, model) == 0 && g_strcmp0 (ref->prompt, prompt) == 0)
        return ref;
    }
  return NULL;
}

/* --- paths and files ----------------------------------------------------- */

gboolean
hs_dataset_path_is_safe (const char *relative, const char **why)
{
  const char *p;

  if (relative == NULL || relative[0] == '\0')
    {
      *why = _("is empty");
      return FALSE;
    }
  if (g_path_is_absolute (relative))
    {
      *why = _("is absolute (paths are relative to the dataset folder)");
      return FALSE;
    }
  if (strchr (relative, '\\') != NULL)
    {
      *why = _("contains a backslash (use '/')");
      return FALSE;
    }
  p = relative;
  while (*p != '\0')
    {
      const char *end = strchr (p, '/');
      gsize len = end ? (gsize) (end - p) : strlen (p);

      if (len == 0)
        {
          *why = _("has an empty segment ('//' or a trailing '/')");
          return FALSE;
        }
      if (len == 2 && p[0] == '.' && p[1] == '.')
        {
          *why = _("contains '..' (paths may not leave the dataset folder)");
          return FALSE;
        }
      if (len == 1 && p[0] == '.')
        {
          *why = _("contains a '.' segment");
          return FALSE;
        }
      if (end == NULL)
        break;
      p = end + 1;
      if (*p == '\0')
        {
          *why = _("ends with '/'");
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
is_inside_of (const char *path, const char *root)
{
  gsize n = strlen (root);

  if (n == 1 && root[0] == '/')
    return path[0] == '/';
  return strncmp (path, root, n) == 0 && path[n] == '/';
}

/* The root is canonical when the dataset was loaded; a dataset made with
 * hs_dataset_new before its folder existed may hold a path with symlinks,
 * so compare with the folder's current real path as well. */
static gboolean
is_inside (const char *path, const char *root)
{
  char *real_root;
  gboolean inside;

  if (is_inside_of (path, root))
    return TRUE;
  real_root = realpath (root, NULL);
  if (real_root == NULL)
    return FALSE;
  inside = is_inside_of (path, real_root);
  free (real_root);
  return inside;
}

char *
hs_dataset_resolve_path (HsDataset *dataset, const char *relative, GError **error)
{
  g_autofree char *joined = NULL;
  g_autofree char *probe = NULL;
  const char *why = NULL;
  char *real;

  g_return_val_if_fail (dataset != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!hs_dataset_path_is_safe (relative, &why))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH,
                   /* TRANSLATORS: manifest, path, why it is refused */
                   _("%s: path \"%s\" %s"), dataset->manifest_path,
                   relative ? relative : "", why);
      return NULL;
    }

  joined = g_build_filename (dataset->root, relative, NULL);
  real = realpath (joined, NULL);
  if (real != NULL)
    {
      char *result = NULL;

      if (is_inside (real, dataset->root))
        result = g_strdup (real);
      else
        g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH,
                     _("%s: path \"%s\" resolves to %s, outside the dataset folder %s"),
                     dataset->manifest_path, relative, real, dataset->root);
      free (real);
      return result;
    }

  /* The file does not exist (yet): check the deepest folder that does, so a
   * symlinked folder cannot smuggle a later write or open outside. */
  probe = g_path_get_dirname (joined);
  while (strlen (probe) > strlen (dataset->root))
    {
      real = realpath (probe, NULL);
      if (real != NULL)
        {
          gboolean inside = is_inside (real, dataset->root) || strcmp (real, dataset->root) == 0;

          if (!inside)
            g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_PATH,
                         _("%s: path \"%s\" goes through %s, outside the dataset folder %s"),
                         dataset->manifest_path, relative, real, dataset->root);
          free (real);
          return inside ? g_steal_pointer (&joined) : NULL;
        }
      {
        char *parent = g_path_get_dirname (probe);
        g_free (probe);
        probe = parent;
      }
    }
  return g_steal_pointer (&joined);
}

void (*hs_dataset_test_after_check) (const char *resolved);
void (*hs_dataset_test_after_open) (const char *resolved);
void (*hs_dataset_test_before_stamp) (const char *relative);

int
hs_dataset_open_file (HsDataset *dataset, const char *relative, char **resolved,
                      GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) local_error = NULL;
  int fd;

  g_return_val_if_fail (dataset != NULL, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  /* The string check first: it names where a symlink leads.  The open
   * below is what protects: it cannot leave the folder whatever changed
   * since. */
  path = hs_dataset_resolve_path (dataset, relative, error);
  if (path == NULL)
    return -1;
  if (hs_dataset_test_after_check != NULL)
    hs_dataset_test_after_check (path);
  fd = hs_safe_open_under (dataset->root, relative, path, &local_error);
  if (fd < 0)
    {
      int code = local_error->code == HS_SAFE_OPEN_ERROR_ESCAPE ? HS_DATASET_ERROR_PATH
                                                                  : HS_DATASET_ERROR_IO;
      g_set_error (error, HS_DATASET_ERROR, code, "%s", local_error->message);
      return -1;
    }
  if (hs_dataset_test_after_open != NULL)
    hs_dataset_test_after_open (path);
  if (resolved != NULL)
    *resolved = g_steal_pointer (&path);
  return fd;
}

const HsFileStamp *
hs_dataset_stamp_file (HsDataset *dataset, const char *relative, HsFileStamp *stamp)
{
  g_autofree char *path = NULL;

  if (hs_dataset_test_before_stamp != NULL)
    hs_dataset_test_before_stamp (relative);
  path = hs_dataset_resolve_path (dataset, relative, NULL);
  return path != NULL && hs_file_stamp_get (path, stamp, NULL) ? stamp : NULL;
}

HsImage *
hs_dataset_load_image (HsDataset *dataset, const HsInstance *instance, GError **error)
{
  g_autofree char *path = NULL;
  HsImage *image;
  int fd;

  g_return_val_if_fail (dataset != NULL, NULL);
  g_return_val_if_fail (instance != NULL, NULL);

  fd = hs_dataset_open_file (dataset, instance->image, &path, error);
  if (fd < 0)
    return NULL;
  image = hs_image_load_fd (fd, path, error);
  close (fd);
  return image;
}

HsAttentionMap *
hs_dataset_load_map (HsDataset *dataset, const HsMapRef *ref, GError **error)
{
  g_autofree char *path = NULL;
  HsAttentionMap *map;
  int fd;

  g_return_val_if_fail (dataset != NULL, NULL);
  g_return_val_if_fail (ref != NULL, NULL);

  fd = hs_dataset_open_file (dataset, ref->file, &path, error);
  if (fd < 0)
    return NULL;
  map = hs_attention_map_load_npy_fd (fd, path, (const char * const *) ref->tokens,
                                      ref->no_attn, error);
  close (fd);
  return map;
}

/* A pixel belongs to the mask when any colour channel is non-zero (alpha
 * ignored), as hs_target_add_mask counts it: the one channel holds the
 * largest colour sample, so "non-zero" means the same thing. */
static HsImage *
mask_to_one_channel (const HsImage *image, GError **error)
{
  guint width = hs_image_get_width (image);
  guint height = hs_image_get_height (image);
  guint channels = hs_image_get_channels (image);
  guint colours = channels >= 3 ? 3 : 1;
  const guint16 *in = hs_image_peek_data (image);
  HsImage *mask = hs_image_new (width, height, 1, hs_image_get_bit_depth (image), error);
  guint16 *out;

  if (mask == NULL)
    return NULL;
  out = hs_image_get_data (mask);
  for (gsize i = 0, n = (gsize) width * height; i < n; i++)
    {
      guint16 value = 0;

      for (guint c = 0; c < colours; c++)
        value = MAX (value, in[i * channels + c]);
      out[i] = value;
    }
  return mask;
}

HsImage *
hs_dataset_load_mask (HsDataset *dataset, const HsRegion *region, GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr(HsImage) image = NULL;
  int fd;

  g_return_val_if_fail (dataset != NULL, NULL);
  g_return_val_if_fail (region != NULL, NULL);

  if (region->mask == NULL)
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND,
                   _("%s: region \"%s\" has no mask"), dataset->manifest_path,
                   region->name ? region->name : "");
      return NULL;
    }
  fd = hs_dataset_open_file (dataset, region->mask, &path, error);
  if (fd < 0)
    return NULL;
  image = hs_image_load_fd (fd, path, error);
  close (fd);
  if (image == NULL)
    return NULL;
  if (hs_image_get_channels (image) == 1)
    return g_steal_pointer (&image);
  return mask_to_one_channel (image, error);
}

static void
image_unref0 (gpointer image)
{
  if (image)
    hs_image_unref (image);
}

static HsImage *
load_mask_from_dataset (const HsRegion *region, gpointer dataset, GError **error)
{
  return hs_dataset_load_mask (dataset, region, error);
}

gboolean
hs_dataset_collect_targets (HsDataset *dataset, const HsInstance *instance, const HsSentence *sentence,
                            GPtrArray **regions, GPtrArray **masks, GError **error)
{
  g_return_val_if_fail (dataset != NULL, FALSE);

  return hs_dataset_collect_targets_with (instance, sentence, load_mask_from_dataset, dataset,
                                          regions, masks, error);
}

gboolean
hs_dataset_collect_targets_with (const HsInstance *instance, const HsSentence *sentence,
                                 HsMaskLoadFunc load_mask, gpointer user_data,
                                 GPtrArray **regions, GPtrArray **masks, GError **error)
{
  g_autoptr(GPtrArray) r = NULL;
  g_autoptr(GPtrArray) m = NULL;

  g_return_val_if_fail (instance != NULL && load_mask != NULL, FALSE);
  g_return_val_if_fail (regions != NULL && masks != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  r = g_ptr_array_new ();
  m = g_ptr_array_new_with_free_func (image_unref0);
  for (guint i = 0; sentence && sentence->targets && sentence->targets[i]; i++)
    {
      HsRegion *region = hs_instance_find_region (instance, sentence->targets[i]);
      HsImage *mask = NULL;

      if (region == NULL)
        continue;
      if (region->mask)
        {
          mask = load_mask (region, user_data, error);
          if (mask == NULL)
            return FALSE;
        }
      g_ptr_array_add (r, region);
      g_ptr_array_add (m, mask);
    }
  *regions = g_steal_pointer (&r);
  *masks = g_steal_pointer (&m);
  return TRUE;
}

gboolean
hs_dataset_get_image_size (HsDataset *dataset, const HsInstance *instance,
                           guint *width, guint *height, GError **error)
{
  g_autofree char *path = NULL;
  gpointer cached;
  guint w = 0, h = 0;
  gboolean probed;
  int fd;

  g_return_val_if_fail (dataset != NULL, FALSE);
  g_return_val_if_fail (instance != NULL, FALSE);

  if (instance->width > 0 && instance->height > 0)
    {
      w = instance->width;
      h = instance->height;
      goto done;
    }

  g_mutex_lock (&dataset->cache_lock);
  cached = g_hash_table_lookup (dataset->image_sizes, instance);
  g_mutex_unlock (&dataset->cache_lock);
  if (cached != NULL)
    {
      guint64 packed = *(guint64 *) cached;
      w = (guint) (packed >> 32);
      h = (guint) (packed & 0xffffffffu);
      goto done;
    }

  fd = hs_dataset_open_file (dataset, instance->image, &path, error);
  if (fd < 0)
    return FALSE;
  probed = hs_image_probe_fd (fd, path, &w, &h, error);
  close (fd);
  if (!probed)
    return FALSE;

  {
    guint64 *packed = g_new (guint64, 1);

    *packed = ((guint64) w << 32) | h;
    g_mutex_lock (&dataset->cache_lock);
    if (!g_hash_table_contains (dataset->image_sizes, instance))
      g_hash_table_insert (dataset->image_sizes, (gpointer) instance, packed);
    else
      g_free (packed);
    g_mutex_unlock (&dataset->cache_lock);
  }

done:
  if (width)
    *width = w;
  if (height)
    *height = h;
  return TRUE;
}
