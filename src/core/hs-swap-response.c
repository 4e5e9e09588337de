/* hs-swap-response.c — swap_response of a prompt and its left/right swap
 * (metrics.md "Comparing two maps")
 *
 * wrong_side asks whether ONE map lies on the other side than its own
 * target; for a swapped prompt scored against the original target it
 * flags exactly the maps that did what the words said.  swap_response asks
 * the question a reader of the pair has: did the map move with the words? */
#include <math.h>

#include "heatscope/hs-metrics.h"
#include "hs-i18n-private.h"

double
hs_swap_response (double target_laterality, double laterality_original,
                  double laterality_swapped, const char **reason)
{
  const char *why = NULL;
  double value = NAN;

  if (isnan (target_laterality))
    why = "target is empty or has no side";
  else if (target_laterality == 0)
    why = "target lies equally on both sides";
  else if (isnan (laterality_original) || isnan (laterality_swapped))
    why = "a map has no mass off the middle column";
  else
    value = (target_laterality > 0 ? 1.0 : -1.0) * (laterality_original - laterality_swapped) / 2;
  if (reason != NULL)
    *reason = why;
  return value;
}

HsSwapVerdict
hs_swap_verdict (double swap_response)
{
  if (isnan (swap_response))
    return HS_SWAP_UNDEFINED;
  if (swap_response >= HS_SWAP_RESPONSE_MARGIN)
    return HS_SWAP_FOLLOWED;
  if (swap_response <= -HS_SWAP_RESPONSE_MARGIN)
    return HS_SWAP_WRONG_WAY;
  return HS_SWAP_IGNORED;
}

const char *
hs_swap_verdict_label (HsSwapVerdict verdict)
{
  switch (verdict)
    {
    case HS_SWAP_FOLLOWED:  return _("followed the words");
    case HS_SWAP_IGNORED:   return _("ignored the words");
    case HS_SWAP_WRONG_WAY: return _("moved the wrong way");
    case HS_SWAP_UNDEFINED:
    default:                return _("n/a");
    }
}

const char *
hs_swap_verdict_key (HsSwapVerdict verdict)
{
  switch (verdict)
    {
    case HS_SWAP_FOLLOWED:  return "followed";
    case HS_SWAP_IGNORED:   return "ignored";
    case HS_SWAP_WRONG_WAY: return "wrong-way";
    case HS_SWAP_UNDEFINED:
    default:                return "undefined";
    }
}
