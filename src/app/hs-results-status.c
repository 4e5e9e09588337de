/* hs-results-status.c — the results window's status line */
#include <glib/gi18n.h>

#include "hs-results-status.h"

char *
hs_results_status_text (HsResultsModel *model)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (model));
  guint scored = hs_results_model_get_n_scored (model);
  guint rescoring = hs_results_model_get_n_rescoring (model);
  g_autofree char *text = NULL;

  if (hs_results_model_get_complete (model))
    text = g_strdup_printf (_("%u of %u rows"), shown, scored);
  else if (rescoring > 0)
    text = g_strdup_printf (ngettext ("%u of %u rows · scoring %u instance again: its files changed",
                                      "%u of %u rows · scoring %u instances again: their files changed",
                                      rescoring),
                            shown, scored, rescoring);
  else if (hs_results_model_get_checking (model))
    text = g_strdup_printf (_("%u of %u rows · checking their files"), shown, scored);
  else
    text = g_strdup_printf (_("%u of %u rows · scoring %.0f %%"), shown, scored,
                            100 * hs_results_model_get_progress (model));
  if (hs_results_model_get_n_failed (model) > 0)
    {
      g_autofree char *problems = g_strdup_printf (_(" · %u rows could not be scored: %s"),
                                                   hs_results_model_get_n_failed (model),
                                                   hs_results_model_get_first_problem (model));

      return g_strconcat (text, problems, NULL);
    }
  return g_steal_pointer (&text);
}
