/* hs-agreement.c — agreement coefficients over reliability data */
#include "heatscope/hs-agreement.h"
#include "heatscope/hs-limits.h"
#include "heatscope/hs-metrics.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-agreement-error-quark, hs_agreement_error)

/* Categories are small (answers to a question); anything larger is a bug. */
#define MAX_CATEGORIES 1024

/* Unit u's ratings counted per category (`counts`); returns how many
 * coders rated it (-1: not rated). */
static guint
unit_counts (const int *r, guint u, guint n_coders, guint n_categories, guint *counts)
{
  guint m = 0;

  memset (counts, 0, n_categories * sizeof (guint));
  for (guint c = 0; c < n_coders; c++)
    if (r[(gsize) u * n_coders + c] >= 0)
      {
        counts[r[(gsize) u * n_coders + c]]++;
        m++;
      }
  return m;
}

static double
percent_agreement (const int *r, guint n_units, guint n_coders, guint n_categories,
                   guint *counts, guint *n_pairable)
{
  double sum = 0.0;
  guint used = 0;

  for (guint u = 0; u < n_units; u++)
    {
      guint m = unit_counts (r, u, n_coders, n_categories, counts);
      double agree = 0.0;

      if (m < 2)
        continue;
      for (guint k = 0; k < n_categories; k++)
        agree += (double) counts[k] * (counts[k] - 1.0);
      sum += agree / ((double) m * (m - 1.0));
      used++;
    }
  *n_pairable = used;
  return used > 0 ? sum / used : NAN;
}

static double
cohen_kappa (const int *r, guint n_units, guint n_categories, const char **reason)
{
  g_autofree double *row = g_new0 (double, n_categories);
  g_autofree double *col = g_new0 (double, n_categories);
  double n = 0.0, agree = 0.0, pe = 0.0, po;

  for (guint u = 0; u < n_units; u++)
    {
      int a = r[2 * (gsize) u], b = r[2 * (gsize) u + 1];

      if (a < 0 || b < 0)
        continue;
      row[a] += 1.0;
      col[b] += 1.0;
      agree += a == b;
      n += 1.0;
    }
  if (n == 0)
    {
      *reason = "no unit rated by both annotators";
      return NAN;
    }
  po = agree / n;
  for (guint k = 0; k < n_categories; k++)
    pe += (row[k] / n) * (col[k] / n);
  if (pe >= 1.0)
    {
      *reason = "chance agreement is 1 (a single category)";
      return NAN;
    }
  return (po - pe) / (1.0 - pe);
}

static double
fleiss_kappa (const int *r, guint n_units, guint n_coders, guint n_categories,
              guint *counts, guint *n_complete, const char **reason)
{
  g_autofree double *p = g_new0 (double, n_categories);
  double pbar = 0.0, pe = 0.0, m = n_coders;
  guint used = 0;

  for (guint u = 0; u < n_units; u++)
    {
      gboolean complete = TRUE;
      double agree = 0.0;

      for (guint c = 0; c < n_coders; c++)
        complete = complete && r[(gsize) u * n_coders + c] >= 0;
      if (!complete)
        continue;
      memset (counts, 0, n_categories * sizeof (guint));
      for (guint c = 0; c < n_coders; c++)
        counts[r[(gsize) u * n_coders + c]]++;
      for (guint k = 0; k < n_categories; k++)
        {
          p[k] += counts[k];
          agree += (double) counts[k] * (counts[k] - 1.0);
        }
      pbar += agree / (m * (m - 1.0));
      used++;
    }
  *n_complete = used;
  if (used == 0)
    {
      *reason = "no unit rated by every annotator";
      return NAN;
    }
  pbar /= used;
  for (guint k = 0; k < n_categories; k++)
    {
      double pk = p[k] / (used * m);
      pe += pk * pk;
    }
  if (pe >= 1.0)
    {
      *reason = "chance agreement is 1 (a single category)";
      return NAN;
    }
  return (pbar - pe) / (1.0 - pe);
}

/* Krippendorff's α from the coincidence matrix o (n_categories²). */
static void
krippendorff_alpha (const int *r, guint n_units, guint n_coders, guint n_categories,
                    guint *counts, double *nominal, double *ordinal, const char **reason)
{
  gsize nc = n_categories;
  g_autofree double *o = g_new0 (double, nc * nc);
  g_autofree double *marg = g_new0 (double, nc);
  double n = 0.0;
  double obs_nom = 0.0, exp_nom = 0.0, obs_ord = 0.0, exp_ord = 0.0;

  for (guint u = 0; u < n_units; u++)
    {
      guint m = unit_counts (r, u, n_coders, n_categories, counts);

      if (m < 2)
        continue;
      /* o_ck += (number of c–k pairs of different coders) / (m − 1). */
      for (gsize c = 0; c < nc; c++)
        {
          if (counts[c] == 0)
            continue;
          for (gsize k = 0; k < nc; k++)
            {
              double pairs = (double) counts[c] * (c == k ? counts[k] - 1.0 : (double) counts[k]);
              o[c * nc + k] += pairs / (m - 1.0);
            }
        }
    }
  for (gsize c = 0; c < nc; c++)
    for (gsize k = 0; k < nc; k++)
      marg[c] += o[c * nc + k];
  for (gsize c = 0; c < nc; c++)
    n += marg[c];

  *nominal = *ordinal = NAN;
  if (n < 2.0)
    {
      *reason = "fewer than two pairable ratings";
      return;
    }
  for (gsize c = 0; c < nc; c++)
    for (gsize k = 0; k < nc; k++)
      {
        double d_nom = c == k ? 0.0 : 1.0;
        double d_ord = 0.0;

        if (c != k)
          {
            gsize lo = MIN (c, k), hi = MAX (c, k);
            double s = 0.0;

            for (gsize g = lo; g <= hi; g++)
              s += marg[g];
            s -= (marg[c] + marg[k]) / 2.0;
            d_ord = s * s;
          }
        obs_nom += o[c * nc + k] * d_nom;
        obs_ord += o[c * nc + k] * d_ord;
        exp_nom += marg[c] * marg[k] * d_nom;
        exp_ord += marg[c] * marg[k] * d_ord;
      }
  if (exp_nom <= 0.0)
    {
      *reason = "every rating is in one category (no expected disagreement)";
      return;
    }
  *nominal = 1.0 - (n - 1.0) * obs_nom / exp_nom;
  *ordinal = exp_ord > 0.0 ? 1.0 - (n - 1.0) * obs_ord / exp_ord : NAN;
}

gboolean
hs_agreement_compute (const int *ratings, guint n_units, guint n_coders, guint n_categories,
                      HsAgreement *out, GError **error)
{
  g_autofree guint *counts = NULL;
  gsize n_values;

  g_return_val_if_fail (ratings != NULL || n_units == 0, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (out, 0, sizeof *out);
  out->percent_agreement = out->cohen_kappa = out->fleiss_kappa = NAN;
  out->alpha_nominal = out->alpha_ordinal = NAN;

  if (n_coders == 0 || n_categories == 0)
    {
      g_set_error (error, HS_AGREEMENT_ERROR, HS_AGREEMENT_ERROR_INVALID,
                   _("agreement needs at least one annotator and one category"));
      return FALSE;
    }
  if (!g_size_checked_mul (&n_values, n_units, n_coders) || n_categories > MAX_CATEGORIES ||
      n_values > hs_limits_get ()->max_grid_cells)
    {
      g_set_error (error, HS_AGREEMENT_ERROR, HS_AGREEMENT_ERROR_TOO_LARGE,
                   _("%u units × %u annotators (%u categories) is over the limits"), n_units,
                   n_coders, n_categories);
      return FALSE;
    }
  for (gsize i = 0; i < n_values; i++)
    if (ratings[i] != HS_RATING_MISSING && (ratings[i] < 0 || (guint) ratings[i] >= n_categories))
      {
        g_set_error (error, HS_AGREEMENT_ERROR, HS_AGREEMENT_ERROR_INVALID,
                     _("rating %d of unit %zu, annotator %zu is outside 0..%u"), ratings[i], i / n_coders + 1, i % n_coders + 1,
                     n_categories - 1);
        return FALSE;
      }

  counts = g_new0 (guint, n_categories);
  out->percent_agreement = percent_agreement (ratings, n_units, n_coders, n_categories, counts,
                                              &out->n_units_pairable);
  if (isnan (out->percent_agreement))
    out->percent_agreement_reason = "no unit rated by two annotators";
  if (n_coders == 2)
    out->cohen_kappa = cohen_kappa (ratings, n_units, n_categories, &out->cohen_kappa_reason);
  else
    out->cohen_kappa_reason = "Cohen's kappa needs exactly two annotators";
  if (n_coders >= 2)
    out->fleiss_kappa = fleiss_kappa (ratings, n_units, n_coders, n_categories, counts,
                                      &out->n_units_complete, &out->fleiss_kappa_reason);
  else
    out->fleiss_kappa_reason = "Fleiss' kappa needs two annotators or more";
  krippendorff_alpha (ratings, n_units, n_coders, n_categories, counts, &out->alpha_nominal,
                      &out->alpha_ordinal, &out->alpha_reason);
  return TRUE;
}

static void
append_value (GString *out, const char *key, double value, gboolean first)
{
  g_autofree char *text = hs_metric_format (value);

  g_string_append_printf (out, "%s\"%s\": %s", first ? "" : ", ", key, text);
}

void
hs_agreement_append_json (const HsAgreement *agreement, GString *out)
{
  g_return_if_fail (agreement != NULL && out != NULL);

  append_value (out, "percent_agreement", agreement->percent_agreement, TRUE);
  append_value (out, "cohen_kappa", agreement->cohen_kappa, FALSE);
  append_value (out, "fleiss_kappa", agreement->fleiss_kappa, FALSE);
  append_value (out, "krippendorff_alpha_ordinal", agreement->alpha_ordinal, FALSE);
  append_value (out, "krippendorff_alpha_nominal", agreement->alpha_nominal, FALSE);
}
