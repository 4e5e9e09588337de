/* hs-phantom-coattn.c — the tag weights of the SIMULATED report generator
 * "coattn-sim" (co-attention, Jing et al. 2018)
 *
 * Jing et al.'s generator first predicts tags for the image, then for each
 * sentence attends to image regions and to those tags.  The demo has no
 * such trained model, so coattn-sim stands in for one, from the labels the
 * phantom was drawn with: its tags are the image's findings, two conditions
 * it does not have (a tagger's false positives), "normal", "left" and
 * "right"; a sentence puts most of its weight on the tags it names (its
 * condition, the side of its locations, "normal" for a negative or clear
 * sentence).  Its visual map is hs_phantom_simulate_map's text-following
 * one.  So a user sees co-attention in the demo at once, and the
 * left/right swap moves the tag weights from "left" to "right" the way it
 * moves the map. */
#include "hs-phantom-private.h"

#include "heatscope/hs-text.h"

#include <math.h>
#include <string.h>

/* Streams of hs_phantom_rng_init nothing else draws from (others: 1–23, 101–104). */
#define STREAM_TAG_LIST    24
#define STREAM_TAG_WEIGHTS 25

#define TAG_NORMAL "normal"
#define TAG_LEFT   "left"
#define TAG_RIGHT  "right"

static void
add_tag (GPtrArray *tags, const char *tag)
{
  if (!g_ptr_array_find_with_equal_func (tags, tag, g_str_equal, NULL))
    g_ptr_array_add (tags, (gpointer) tag);
}

/* The image's tags: the same for every sentence of the instance (the
 * generator predicts them once per image).  Borrowed strings. */
static GPtrArray *
image_tags (const HsPhantom *phantom)
{
  const char *const *conditions = hs_report_conditions ();
  GPtrArray *tags = g_ptr_array_new ();
  HsRandom rng;
  guint n_conditions = g_strv_length ((char **) conditions);

  for (guint i = 0; i < phantom->findings->len; i++)
    add_tag (tags, ((const HsPhantomFinding *) g_ptr_array_index (phantom->findings, i))->condition);
  hs_phantom_rng_init (&rng, phantom->seed, STREAM_TAG_LIST, phantom->index);
  for (guint n_false = 0; n_false < 2;)
    {
      const char *c = conditions[hs_random_next (&rng) % n_conditions];

      if (!g_ptr_array_find_with_equal_func (tags, c, g_str_equal, NULL))
        {
          g_ptr_array_add (tags, (gpointer) c);
          n_false++;
        }
    }
  add_tag (tags, TAG_NORMAL);
  add_tag (tags, TAG_LEFT);
  add_tag (tags, TAG_RIGHT);
  return tags;
}

static guint
tag_index (GPtrArray *tags, const char *tag)
{
  guint index = G_MAXUINT;

  g_ptr_array_find_with_equal_func (tags, tag, g_str_equal, &index);
  return index;
}

/* Side words of an ImaGenome location ("left lower lung zone", "right
 * costophrenic angle"); the swapped prompt names the other side. */
static const char *
location_side (const char *location, gboolean swapped)
{
  gboolean left = g_str_has_prefix (location, "left ");
  gboolean right = g_str_has_prefix (location, "right ");

  if (!left && !right)
    return NULL;
  return (left != swapped) ? TAG_LEFT : TAG_RIGHT;
}

HsTagWeight *
hs_phantom_simulate_tags (const HsPhantom *phantom, const HsReportSentence *sentence,
                          gboolean swapped, guint64 key, guint *n_tags)
{
  g_autoptr(GPtrArray) tags = NULL;
  g_autofree double *raw = NULL;
  g_autofree int *thousandths = NULL;
  HsTagWeight *out;
  HsRandom rng;
  double total = 0;
  gboolean positive;
  guint n, largest = 0, index;
  int sum = 0;

  g_return_val_if_fail (phantom != NULL && sentence != NULL && n_tags != NULL, NULL);

  tags = image_tags (phantom);
  n = tags->len;
  raw = g_new (double, n);
  hs_phantom_rng_init (&rng, phantom->seed ^ key, STREAM_TAG_WEIGHTS, phantom->index);
  /* Every tag keeps a little attention, as a softmax does. */
  for (guint i = 0; i < n; i++)
    raw[i] = 0.04 + 0.08 * hs_random_double (&rng);

  positive = g_strcmp0 (sentence->context, "positive") == 0
             && g_strcmp0 (sentence->condition, "abnormality") != 0;
  index = tag_index (tags, sentence->condition);
  if (index != G_MAXUINT)
    raw[index] += positive ? 1.0 : 0.4;
  if (!positive)
    raw[tag_index (tags, TAG_NORMAL)] += 0.8;
  for (guint l = 0; sentence->locations != NULL && sentence->locations[l] != NULL; l++)
    {
      const char *side = location_side (sentence->locations[l], swapped);

      /* once per side, however many locations name it */
      if (side != NULL && raw[tag_index (tags, side)] < 0.5)
        raw[tag_index (tags, side)] += 0.5;
    }

  /* Weights in thousandths, as a report generator's output would be shown,
   * summing to exactly 1: the rounding remainder goes to the largest. */
  for (guint i = 0; i < n; i++)
    total += raw[i];
  thousandths = g_new (int, n);
  for (guint i = 0; i < n; i++)
    {
      thousandths[i] = (int) lround (1000.0 * raw[i] / total);
      sum += thousandths[i];
      if (thousandths[i] > thousandths[largest])
        largest = i;
    }
  thousandths[largest] += 1000 - sum;

  out = g_new0 (HsTagWeight, n);
  for (guint i = 0; i < n; i++)
    {
      out[i].tag = g_strdup (g_ptr_array_index (tags, i));
      out[i].weight = thousandths[i] / 1000.0;
    }
  *n_tags = n;
  return out;
}
