/* hs-agreement.h — agreement between annotators (percent agreement, Cohen's κ,
 * Fleiss' κ, Krippendorff's α) */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_AGREEMENT_ERROR (hs_agreement_error_quark ())
GQuark hs_agreement_error_quark (void);

typedef enum {
  HS_AGREEMENT_ERROR_INVALID,    /* a rating outside 0..n_categories−1, no coder  */
  HS_AGREEMENT_ERROR_TOO_LARGE,  /* units × coders or categories over HsLimits    */
} HsAgreementError;

#define HS_RATING_MISSING (-1)

/* Reliability data: n_units × n_coders ratings, row-major (unit u, coder c
 * at [u·n_coders + c]), each an ordered category index 0..n_categories−1 or
 * HS_RATING_MISSING.  Category order matters only for the ordinal α.
 *
 * Definitions (every coefficient is NAN when undefined; `*_reason` says why):
 *
 * percent_agreement — over the units with at least two ratings, the mean of
 *   the share of agreeing pairs of ratings within the unit (for two coders:
 *   the share of units where both gave the same answer).
 * cohen_kappa — exactly two coders; the units both rated;
 *   κ = (p_o − p_e)/(1 − p_e) with p_e from each coder's own marginals
 *   (equals sklearn.metrics.cohen_kappa_score); undefined when p_e = 1.
 * fleiss_kappa — any number ≥ 2 of coders; the units rated by EVERY coder
 *   (Fleiss 1971 needs a constant number of ratings per unit);
 *   κ = (P̄ − P̄_e)/(1 − P̄_e), P̄_e = Σ_j p_j²; undefined when P̄_e = 1.
 * krippendorff_alpha_{nominal,ordinal} — Krippendorff (2011) "Computing
 *   Krippendorff's alpha-reliability": coincidence matrix over the units with
 *   at least two ratings (missing values allowed), α = 1 − D_o/D_e with
 *   D_o = Σ o_ck δ²_ck / n and D_e = Σ n_c n_k δ²_ck / (n(n−1)); nominal
 *   δ² = [c ≠ k], ordinal δ²_ck = (Σ_{g=c..k} n_g − (n_c + n_k)/2)².
 *   Undefined when fewer than two pairable values or D_e = 0. */
typedef struct {
  double      percent_agreement;
  double      cohen_kappa;
  double      fleiss_kappa;
  double      alpha_nominal;
  double      alpha_ordinal;
  const char *percent_agreement_reason;
  const char *cohen_kappa_reason;
  const char *fleiss_kappa_reason;
  const char *alpha_reason;          /* both α */
  guint       n_units_pairable;      /* units with ≥ 2 ratings   */
  guint       n_units_complete;      /* units rated by every coder */
} HsAgreement;

gboolean hs_agreement_compute (const int *ratings, guint n_units, guint n_coders,
                               guint n_categories, HsAgreement *out, GError **error);

/* Appends "percent_agreement": x, "cohen_kappa": x, "fleiss_kappa": x,
 * "krippendorff_alpha_ordinal": x, "krippendorff_alpha_nominal": x (null for
 * NAN), without braces. */
void     hs_agreement_append_json (const HsAgreement *agreement, GString *out);

G_END_DECLS
