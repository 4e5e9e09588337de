/* hs-panel-readout.c — the read-out line and badge under a map (one wording
 * for the compare view and every exported figure; see hs-panel-readout.h) */
#include <math.h>

#include "heatscope/hs-panel-readout.h"
#include "hs-i18n-private.h"

void
hs_panel_readout_clear (HsPanelReadout *readout)
{
  g_clear_pointer (&readout->line, g_free);
  g_clear_pointer (&readout->badge, g_free);
  readout->tone = HS_BADGE_NEUTRAL;
  readout->wrong_side = -1;
}

gboolean
hs_laterality_has_side (double laterality)
{
  /* the wrong_side rule's threshold (metrics.md); NaN has no side */
  return fabs (laterality) >= 0.2;
}

char *
hs_describe_laterality (double v)
{
  if (isnan (v))
    return g_strdup (_("n/a"));
  /* Image left is the patient's right on a PA/AP radiograph. */
  if (v >= 0.2)
    return g_strdup_printf (_("%+.2f (patient’s left)"), v);
  if (v <= -0.2)
    return g_strdup_printf (_("%+.2f (patient’s right)"), v);
  return g_strdup_printf (_("%+.2f (central)"), v);
}

void
hs_panel_readout_of_scores (const HsScores *scores, HsPanelReadout *readout)
{
  g_autofree char *map_side = hs_describe_laterality (scores->value[HS_METRIC_LATERALITY]);
  g_autofree char *target_side = hs_describe_laterality (scores->target_laterality);
  double wrong = scores->value[HS_METRIC_WRONG_SIDE];

  hs_panel_readout_clear (readout);
  if (isnan (wrong))
    readout->line = g_strdup_printf (_("Laterality %s · target %s · wrong side n/a (no target side)"),
                                     map_side, target_side);
  else
    readout->line = g_strdup_printf (_("Laterality %s · target %s"), map_side, target_side);
  if (isnan (wrong))
    return;
  readout->wrong_side = wrong >= 0.5;
  if (readout->wrong_side)
    {
      readout->badge = g_strdup (_("WRONG SIDE"));
      readout->tone = HS_BADGE_ALERT;
    }
  /* wrong_side = 0 also when the map or the target is central
   * (|laterality| < 0.2, metrics.md): that is no agreement with the
   * target's side, so it must not read "same side". */
  else if (hs_laterality_has_side (scores->value[HS_METRIC_LATERALITY])
           && hs_laterality_has_side (scores->target_laterality))
    {
      readout->badge = g_strdup (_("same side"));
      readout->tone = HS_BADGE_GOOD;
    }
  else
    {
      readout->badge = g_strdup (_("no clear side"));
      readout->tone = HS_BADGE_NEUTRAL;
    }
}

void
hs_panel_readout_of_swap (const HsScores *original, const HsScores *swapped,
                          HsPanelReadout *readout)
{
  const char *reason = _("no map of the original prompt");
  double response = original == NULL ? NAN
                    : hs_swap_response (original->target_laterality,
                                        original->value[HS_METRIC_LATERALITY],
                                        swapped->value[HS_METRIC_LATERALITY], &reason);
  HsSwapVerdict verdict = hs_swap_verdict (response);
  g_autofree char *map_side = hs_describe_laterality (swapped->value[HS_METRIC_LATERALITY]);
  double auroc = swapped->value[HS_METRIC_AUROC];
  g_autofree char *score = isnan (auroc) ? g_strdup (_("n/a")) : g_strdup_printf ("%.3f", auroc);

  hs_panel_readout_clear (readout);
  if (isnan (response))
    readout->line = g_strdup_printf (_("Scored against the original target: AUROC %s · laterality %s "
                                       "· swap response n/a (%s)"), score, map_side, reason);
  else
    readout->line = g_strdup_printf (_("Scored against the original target: AUROC %s · laterality %s "
                                       "· swap response %+.2f"), score, map_side, response);
  readout->badge = g_strdup (hs_swap_verdict_label (verdict));
  readout->tone = hs_badge_tone_for_swap (verdict);
}

void
hs_panel_readout_of_difference (const double *a, const double *b, gsize n, double m,
                                HsPanelReadout *readout)
{
  const char *reason = NULL;
  double kl = a && b ? hs_sym_kl (a, b, n, NAN, NAN, HS_PROTOCOL_DEFAULT, &reason) : NAN;

  hs_panel_readout_clear (readout);
  if (isnan (kl))
    readout->line = g_strdup_printf (_("Diverging scale ±%.3g · symmetric KL n/a"), m);
  else
    readout->line = g_strdup_printf (_("Diverging scale ±%.3g · symmetric KL %.3f"), m, kl);
}

char *
hs_panel_title_of_prompt (const char *prompt)
{
  g_autofree char *valid = g_utf8_make_valid (prompt ? prompt : "", -1);
  GString *s = g_string_new (NULL);

  for (const char *c = valid; *c; c = g_utf8_next_char (c))
    {
      gunichar u = g_utf8_get_char (c);

      if (u == '"' || u == 0x201C || u == 0x201D)
        continue;
      g_string_append_unichar (s, u);
    }
  return g_string_free (s, FALSE);
}

char *
hs_panel_readout_note (const HsPanelReadout *readout, const char *model, gboolean live,
                       const char *instance, gboolean swapped)
{
  g_autofree char *who = g_strdup_printf ("%s%s · %s%s", model ? model : "", live ? " (live)" : "",
                                          instance ? instance : "",
                                          swapped ? " · left/right swapped" : "");

  if (readout != NULL && readout->line != NULL)
    return g_strdup_printf ("%s · %s", who, readout->line);
  return g_steal_pointer (&who);
}
