/* hs-perturb.c — perturbations of McInerney et al. §3.1 */
#include "heatscope/hs-perturb.h"
#include "heatscope/hs-report.h"
#include "heatscope/hs-text.h"
#include "hs-random-private.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-perturb-error-quark, hs_perturb_error)

static const char * const perturbation_names[HS_N_PERTURBATIONS] = {
  "swap-left-right",
  "shuffle-in-report",
  "random-sentence",
  "random-boxes",
  "synthetic-swapped-condition",
};

const char *
hs_perturbation_to_string (HsPerturbation perturbation)
{
  g_return_val_if_fail ((guint) perturbation < HS_N_PERTURBATIONS, NULL);
  return perturbation_names[perturbation];
}

gboolean
hs_perturbation_from_string (const char *name, HsPerturbation *perturbation)
{
  g_return_val_if_fail (perturbation != NULL, FALSE);
  for (guint i = 0; i < HS_N_PERTURBATIONS && name != NULL; i++)
    if (strcmp (name, perturbation_names[i]) == 0)
      {
        *perturbation = (HsPerturbation) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
hs_perturbation_is_target (HsPerturbation perturbation)
{
  return perturbation == HS_PERTURB_RANDOM_BOXES;
}

void
hs_perturbed_free (HsPerturbed *perturbed)
{
  if (perturbed == NULL)
    return;
  g_free (perturbed->prompt);
  g_free (perturbed->original_prompt);
  g_free (perturbed->source_instance);
  g_free (perturbed->source_query);
  g_free (perturbed->condition);
  g_clear_pointer (&perturbed->regions, g_ptr_array_unref);
  g_free (perturbed->description);
  g_free (perturbed);
}

/* --- draws --------------------------------------------------------------- */

/* The splitmix64 stream of one query (hs-random-private.h), keyed by (seed,
 * perturbation, instance id, sentence id) alone. */
static void
query_rng_init (HsRandom *rng, guint64 seed, HsPerturbation perturbation, const char *instance,
                const char *sentence)
{
  guint64 state = seed ^ hs_random_hash_string (instance);
  guint64 s2 = hs_random_hash_string (sentence);

  state ^= (s2 << 17) | (s2 >> 47);
  state ^= ((guint64) perturbation + 1) * G_GUINT64_CONSTANT (0xD1B54A32D192ED03);
  hs_random_init (rng, state);
  (void) hs_random_next (rng);
}

/* --- context ------------------------------------------------------------- */

typedef struct {
  guint instance, sentence;
} SentenceRef;

struct _HsPerturbContext {
  HsDataset  *dataset;
  GArray     *sentences;     /* of SentenceRef: every report sentence, instance order */
  guint      *first;         /* n_instances + 1 offsets into `sentences`               */
  GHashTable *conditions;    /* casefolded location → GHashTable (casefold cond → cond) */
  GHashTable *index;         /* HsInstance* → its index + 1 (the dataset's lookup is linear) */
};

static gboolean
is_report_sentence (const HsSentence *sentence)
{
  return (sentence->kind == NULL || strcmp (sentence->kind, "report") == 0) &&
         sentence->text != NULL && sentence->text[0] != '\0';
}

static gboolean
is_positive (const HsLabel *label)
{
  return label->condition != NULL && label->condition[0] != '\0' &&
         g_strcmp0 (label->context, "positive") == 0;
}

static void
index_label (HsPerturbContext *context, const HsLabel *label)
{
  if (!is_positive (label) || label->locations == NULL)
    return;
  for (guint l = 0; label->locations[l] != NULL; l++)
    {
      char *loc = g_utf8_casefold (label->locations[l], -1);
      GHashTable *conds = g_hash_table_lookup (context->conditions, loc);

      if (conds == NULL)
        {
          conds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
          g_hash_table_insert (context->conditions, loc, conds);
        }
      else
        g_free (loc);
      {
        char *key = g_utf8_casefold (label->condition, -1);
        if (!g_hash_table_contains (conds, key))
          g_hash_table_insert (conds, key, g_strdup (label->condition));
        else
          g_free (key);
      }
    }
}

HsPerturbContext *
hs_perturb_context_new (HsDataset *dataset)
{
  HsPerturbContext *context;
  guint n;

  g_return_val_if_fail (dataset != NULL, NULL);

  context = g_new0 (HsPerturbContext, 1);
  context->dataset = hs_dataset_ref (dataset);
  context->sentences = g_array_new (FALSE, FALSE, sizeof (SentenceRef));
  context->conditions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) g_hash_table_unref);
  n = hs_dataset_get_n_instances (dataset);
  context->first = g_new0 (guint, (gsize) n + 1);
  context->index = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < n; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      context->first[i] = context->sentences->len;
      g_hash_table_insert (context->index, instance, GUINT_TO_POINTER (i + 1));
      for (guint s = 0; s < instance->sentences->len; s++)
        {
          HsSentence *sentence = g_ptr_array_index (instance->sentences, s);

          if (is_report_sentence (sentence))
            {
              SentenceRef ref = { i, s };
              g_array_append_val (context->sentences, ref);
            }
          for (guint l = 0; sentence->labels != NULL && l < sentence->labels->len; l++)
            index_label (context, g_ptr_array_index (sentence->labels, l));
        }
      for (guint l = 0; instance->findings != NULL && l < instance->findings->len; l++)
        index_label (context, g_ptr_array_index (instance->findings, l));
    }
  context->first[n] = context->sentences->len;
  return context;
}

void
hs_perturb_context_free (HsPerturbContext *context)
{
  if (context == NULL)
    return;
  hs_dataset_unref (context->dataset);
  g_array_unref (context->sentences);
  g_free (context->first);
  g_hash_table_unref (context->conditions);
  g_hash_table_unref (context->index);
  g_free (context);
}

/* --- the perturbations --------------------------------------------------- */

static gboolean
not_applicable (GError **error, const HsInstance *instance, const HsSentence *sentence,
                HsPerturbation perturbation, const char *why)
{
  g_set_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_NOT_APPLICABLE,
               _("%s does not apply to query \"%s\" of instance \"%s\": %s"),
               perturbation_names[perturbation], sentence->id, instance->id, why);
  return FALSE;
}

static gboolean
shuffle_in_report (const HsInstance *instance, const HsSentence *sentence, HsRandom *rng,
                   HsPerturbed *out, GError **error)
{
  g_autoptr(GPtrArray) others = g_ptr_array_new ();
  HsSentence *other;

  for (guint s = 0; s < instance->sentences->len; s++)
    {
      HsSentence *t = g_ptr_array_index (instance->sentences, s);

      if (t != sentence && is_report_sentence (t) && g_strcmp0 (t->text, sentence->text) != 0)
        g_ptr_array_add (others, t);
    }
  if (others->len == 0)
    return not_applicable (error, instance, sentence, HS_PERTURB_SHUFFLE_IN_REPORT,
                           "the report has no other sentence");
  other = g_ptr_array_index (others, hs_random_below (rng, others->len));
  out->prompt = g_strdup (other->text);
  out->source_query = g_strdup (other->id);
  out->description = g_strdup_printf ("paired with sentence \"%s\" of the same report", other->id);
  return TRUE;
}

static gboolean
random_sentence (HsPerturbContext *context, const HsInstance *instance,
                 const HsSentence *sentence, HsRandom *rng, HsPerturbed *out, GError **error)
{
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (context->index, instance));
  guint lo = 0, hi = 0, n_other, k;
  SentenceRef ref;
  HsInstance *source;
  HsSentence *chosen;

  if (index > 0)
    {
      lo = context->first[index - 1];
      hi = context->first[index];
    }
  n_other = context->sentences->len - (hi - lo);
  if (n_other == 0)
    return not_applicable (error, instance, sentence, HS_PERTURB_RANDOM_SENTENCE,
                           "no other instance has a report sentence");
  k = hs_random_below (rng, n_other);
  if (k >= lo)
    k += hi - lo;
  ref = g_array_index (context->sentences, SentenceRef, k);
  source = hs_dataset_get_instance (context->dataset, ref.instance);
  chosen = g_ptr_array_index (source->sentences, ref.sentence);
  out->prompt = g_strdup (chosen->text);
  out->source_instance = g_strdup (source->id);
  out->source_query = g_strdup (chosen->id);
  out->description = g_strdup_printf ("sentence \"%s\" of instance \"%s\"", chosen->id, source->id);
  return TRUE;
}

static gboolean
random_boxes (HsPerturbContext *context, const HsInstance *instance, const HsSentence *sentence,
              HsRandom *rng, HsPerturbed *out, GError **error)
{
  guint width = 0, height = 0;

  if (sentence->targets == NULL || sentence->targets[0] == NULL)
    return not_applicable (error, instance, sentence, HS_PERTURB_RANDOM_BOXES,
                           "the query has no target");
  if (!hs_dataset_get_image_size (context->dataset, instance, &width, &height, error))
    return FALSE;
  out->regions = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_region_free);
  for (guint t = 0; sentence->targets[t] != NULL; t++)
    {
      HsRegion *region = hs_instance_get_target_region (context->dataset, instance,
                                                        sentence->targets[t], error);
      g_autofree char *name = NULL;
      g_autoptr(GArray) boxes = g_array_new (FALSE, FALSE, sizeof (HsBox));
      HsRegion *copy;

      if (region == NULL)
        return FALSE;
      if (region->mask != NULL)
        {
          const char *one[2] = { region->name, NULL };
          HsBox extent;

          if (hs_dataset_get_target_extent (context->dataset, instance, one, &extent, error))
            g_array_append_val (boxes, extent);
          else if (error != NULL && *error != NULL)
            return FALSE;
        }
      else
        g_array_append_vals (boxes, region->boxes->data, region->boxes->len);

      name = g_strdup_printf ("random %s", region->name);
      copy = hs_region_new (name);
      for (guint b = 0; b < boxes->len; b++)
        {
          HsBox box = g_array_index (boxes, HsBox, b);
          double w = CLAMP (box.x2 - box.x1, 0.0, (double) width);
          double h = CLAMP (box.y2 - box.y1, 0.0, (double) height);
          double x1, y1;

          if (!isfinite (w) || !isfinite (h))
            w = h = 0.0;
          x1 = hs_random_double (rng) * ((double) width - w);
          y1 = hs_random_double (rng) * ((double) height - h);
          hs_region_add_box (copy, x1, y1, x1 + w, y1 + h);
        }
      g_ptr_array_add (out->regions, copy);
    }
  out->description = g_strdup ("target boxes of the same sizes at random positions");
  return TRUE;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
synthetic_swapped (HsPerturbContext *context, const HsInstance *instance,
                   const HsSentence *sentence, HsRandom *rng, HsPerturbed *out, GError **error)
{
  g_autoptr(GHashTable) candidates = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree const char **keys = NULL;
  g_autofree char *own = NULL;
  const HsLabel *label = NULL;
  HsReportFinding finding = { 0 };
  HsReportSentence *made;
  guint n_keys;

  for (guint l = 0; sentence->labels != NULL && l < sentence->labels->len; l++)
    {
      const HsLabel *candidate = g_ptr_array_index (sentence->labels, l);

      if (is_positive (candidate) && candidate->locations != NULL && candidate->locations[0] != NULL)
        {
          label = candidate;
          break;
        }
    }
  if (label == NULL)
    return not_applicable (error, instance, sentence, HS_PERTURB_SYNTHETIC_SWAPPED_CONDITION,
                           "no positive label with a location");

  own = g_utf8_casefold (label->condition, -1);
  for (guint l = 0; label->locations[l] != NULL; l++)
    {
      g_autofree char *loc = g_utf8_casefold (label->locations[l], -1);
      GHashTable *conds = g_hash_table_lookup (context->conditions, loc);
      GHashTableIter iter;
      gpointer key, value;

      if (conds == NULL)
        continue;
      g_hash_table_iter_init (&iter, conds);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (strcmp (key, own) != 0)
          g_hash_table_insert (candidates, key, value);
    }
  if (g_hash_table_size (candidates) == 0)
    return not_applicable (error, instance, sentence, HS_PERTURB_SYNTHETIC_SWAPPED_CONDITION,
                           "no other condition is seen at that anatomy in the dataset");
  /* Sorted keys: the draw must not depend on hash order. */
  keys = (const char **) g_hash_table_get_keys_as_array (candidates, &n_keys);
  qsort (keys, n_keys, sizeof (char *), compare_strings);
  out->condition = g_strdup (g_hash_table_lookup (candidates, keys[hs_random_below (rng, n_keys)]));

  finding.locations = (const char * const *) label->locations;
  finding.condition = out->condition;
  made = hs_report_positive (&finding, 0);
  out->prompt = g_strdup (made->text);
  hs_report_sentence_free (made);
  finding.condition = label->condition;
  made = hs_report_positive (&finding, 0);
  out->original_prompt = g_strdup (made->text);
  hs_report_sentence_free (made);
  out->description = g_strdup_printf ("synthetic sentence with \"%s\" instead of \"%s\"",
                                      out->condition, label->condition);
  return TRUE;
}

HsPerturbed *
hs_perturb (HsPerturbContext *context, const HsInstance *instance, const HsSentence *sentence,
            HsPerturbation perturbation, HsProtocol protocol, guint64 seed, GError **error)
{
  g_autoptr(HsPerturbed) out = NULL;
  HsRandom rng;
  gboolean ok = FALSE;

  g_return_val_if_fail (context != NULL && instance != NULL && sentence != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((guint) perturbation >= HS_N_PERTURBATIONS)
    {
      g_set_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_INVALID,
                   _("unknown perturbation %d"), (int) perturbation);
      return NULL;
    }
  out = g_new0 (HsPerturbed, 1);
  out->perturbation = perturbation;
  query_rng_init (&rng, seed, perturbation, instance->id, sentence->id);

  switch (perturbation)
    {
    case HS_PERTURB_SWAP_LEFT_RIGHT:
      out->prompt = protocol == HS_PROTOCOL_GLORIA
        ? hs_text_swap_sides_gloria (sentence->text ? sentence->text : "")
        : hs_text_swap_sides (sentence->text ? sentence->text : "");
      out->description = g_strdup (protocol == HS_PROTOCOL_GLORIA
                                   ? "left/right swapped (lower-cased substrings, as the paper's code)"
                                   : "left/right swapped");
      ok = TRUE;
      break;
    case HS_PERTURB_SHUFFLE_IN_REPORT:
      ok = shuffle_in_report (instance, sentence, &rng, out, error);
      break;
    case HS_PERTURB_RANDOM_SENTENCE:
      ok = random_sentence (context, instance, sentence, &rng, out, error);
      break;
    case HS_PERTURB_RANDOM_BOXES:
      ok = random_boxes (context, instance, sentence, &rng, out, error);
      break;
    case HS_PERTURB_SYNTHETIC_SWAPPED_CONDITION:
      ok = synthetic_swapped (context, instance, sentence, &rng, out, error);
      break;
    case HS_N_PERTURBATIONS:
    default:
      break;
    }
  if (!ok)
    return NULL;
  out->unchanged = out->prompt != NULL && g_strcmp0 (out->prompt, sentence->text) == 0;
  return g_steal_pointer (&out);
}

/* --- maps, targets, comparison ------------------------------------------- */

HsMapRef *
hs_perturbed_find_map (HsPerturbContext *context, const HsInstance *instance,
                       const HsSentence *sentence, const HsPerturbed *perturbed,
                       const char *model, GError **error)
{
  HsMapRef *ref;

  g_return_val_if_fail (context != NULL && instance != NULL && sentence != NULL, NULL);
  g_return_val_if_fail (perturbed != NULL && model != NULL, NULL);

  if (hs_perturbation_is_target (perturbed->perturbation))
    {
      ref = hs_instance_find_map (instance, model, sentence->id);
      if (ref == NULL)
        g_set_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_MISSING_MAP,
                     _("no precomputed map for query \"%s\" of model %s in instance %s"),
                     sentence->id, model, instance->id);
      return ref;
    }

  ref = hs_instance_find_map_by_prompt (instance, model, perturbed->prompt);
  if (ref != NULL)
    return ref;
  /* A sentence of this instance with exactly this text: its own map. */
  for (guint s = 0; s < instance->sentences->len; s++)
    {
      HsSentence *t = g_ptr_array_index (instance->sentences, s);

      if (g_strcmp0 (t->text, perturbed->prompt) != 0)
        continue;
      ref = hs_instance_find_map (instance, model, t->id);
      if (ref != NULL && (ref->prompt == NULL || strcmp (ref->prompt, t->text) == 0))
        return ref;
    }
  g_set_error (error, HS_PERTURB_ERROR, HS_PERTURB_ERROR_MISSING_MAP,
               _("no precomputed map for prompt '%s' of model %s in instance %s"),
               perturbed->prompt, model, instance->id);
  return NULL;
}

HsTarget *
hs_perturbed_build_target (HsPerturbContext *context, const HsInstance *instance,
                           const HsSentence *sentence, const HsPerturbed *perturbed,
                           const HsEvalGrid *grid, GError **error)
{
  g_autoptr(HsTarget) target = NULL;

  g_return_val_if_fail (context != NULL && instance != NULL && sentence != NULL, NULL);
  g_return_val_if_fail (grid != NULL, NULL);

  if (perturbed == NULL || perturbed->regions == NULL)
    return hs_target_new_for_sentence (grid, context->dataset, instance, sentence, error);
  target = hs_target_new (grid);
  for (guint r = 0; r < perturbed->regions->len; r++)
    if (!hs_target_add_region (target, context->dataset,
                               g_ptr_array_index (perturbed->regions, r), error))
      return NULL;
  return g_steal_pointer (&target);
}

/* A swapped prompt scored against the ORIGINAL target: wrong_side would
 * flag exactly the maps that followed the words, so it is not reported for
 * it (metrics.md); swap_response says what the pair did instead. */
static void
set_swap_response (const HsPerturbed *perturbed, HsComparison *out)
{
  static const char no_wrong_side[] = "not scored for a swapped prompt (see swap_response)";

  out->perturbed.value[HS_METRIC_WRONG_SIDE] = NAN;
  out->perturbed.reason[HS_METRIC_WRONG_SIDE] = no_wrong_side;
  out->delta[HS_METRIC_WRONG_SIDE] = NAN;
  if (perturbed->unchanged)
    {
      out->swap_response = NAN;
      out->swap_response_reason = "the prompt names no side to swap";
      return;
    }
  out->swap_response = hs_swap_response (out->original.target_laterality,
                                         out->original.value[HS_METRIC_LATERALITY],
                                         out->perturbed.value[HS_METRIC_LATERALITY],
                                         &out->swap_response_reason);
}

gboolean
hs_perturb_compare (HsPerturbContext *context, const HsInstance *instance,
                    const HsSentence *sentence, const HsPerturbed *perturbed,
                    const HsAttentionMap *original_map, const HsAttentionMap *perturbed_map,
                    const HsTarget *target, const HsScoreOptions *options, HsComparison *out,
                    GError **error)
{
  g_autoptr(HsTarget) replacement = NULL;

  g_return_val_if_fail (context != NULL && perturbed != NULL && original_map != NULL, FALSE);
  g_return_val_if_fail (target != NULL && options != NULL && out != NULL, FALSE);

  if (!hs_perturbation_is_target (perturbed->perturbation))
    {
      g_return_val_if_fail (perturbed_map != NULL, FALSE);
      if (!hs_compare_maps (original_map, perturbed_map, target, options, out, error))
        return FALSE;
      if (perturbed->perturbation == HS_PERTURB_SWAP_LEFT_RIGHT)
        set_swap_response (perturbed, out);
      return TRUE;
    }

  memset (out, 0, sizeof *out);
  replacement = hs_perturbed_build_target (context, instance, sentence, perturbed,
                                           hs_target_get_grid (target), error);
  if (replacement == NULL ||
      !hs_score_map (original_map, target, options, &out->original, error) ||
      !hs_score_map (original_map, replacement, options, &out->perturbed, error))
    return FALSE;
  for (guint m = 0; m < HS_N_METRICS; m++)
    out->delta[m] = isnan (out->original.value[m]) || isnan (out->perturbed.value[m])
      ? NAN : out->perturbed.value[m] - out->original.value[m];
  out->sym_kl = 0.0;
  out->sym_kl_reason = NULL;
  out->swap_response = NAN;
  out->swap_response_reason = "not a left/right swap";
  return TRUE;
}
