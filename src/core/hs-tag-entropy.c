/* hs-tag-entropy.c — tag_entropy and tag_entropy_norm of a map's tag
 * attention (co-attention, Jing et al. 2018)
 *
 * A report generator that attends to its predicted tags as well as to the
 * image (one weight per tag and sentence) can spread that attention over
 * every tag or put it on one; the entropy says which, as `entropy` does for
 * the visual map.  Defined in hs-metrics.h and docs/co-attention.md. */
#include <math.h>

#include "heatscope/hs-metrics.h"

double
hs_tag_attention_entropy (const HsTagWeight *tags, guint n_tags,
                          double *entropy_norm, const char **reason)
{
  const char *why = NULL;
  double total = 0, h = 0, norm = NAN;

  if (n_tags == 0 || tags == NULL)
    why = "the map has no tag attention";
  for (guint i = 0; why == NULL && i < n_tags; i++)
    {
      if (!isfinite (tags[i].weight) || tags[i].weight < 0)
        why = "a tag weight is negative or not finite";
      else
        total += tags[i].weight;
    }
  if (why == NULL && !(total > 0 && isfinite (total)))
    why = "no tag has a positive weight";
  if (why != NULL)
    {
      if (entropy_norm != NULL)
        *entropy_norm = NAN;
      if (reason != NULL)
        *reason = why;
      return NAN;
    }
  for (guint i = 0; i < n_tags; i++)
    {
      double p = tags[i].weight / total;

      if (p > 0)
        h -= p * log (p);
    }
  if (n_tags > 1)
    /* Mathematically ≤ 1; rounding of evenly spread weights can give
     * 1 + 2⁻⁵² (a reader would take "1.0000000000000002" for a bug). */
    norm = MIN (h / log ((double) n_tags), 1.0);
  else
    why = "one tag";
  if (entropy_norm != NULL)
    *entropy_norm = norm;
  if (reason != NULL)
    *reason = why;
  return h;
}
