/* hs-metrics.c — every localization metric of metrics.md: names, the
 * single-pass statistics, entropy, laterality, comparison, JSON */
#include "hs-metrics-private.h"
#include "hs-limits.h"
#include "hs-resample-private.h"
#include "hs-i18n-private.h"
#include "hs-parallel.h"
#include "hs-big-buffer-private.h"
#include "hs-team-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (hs-metrics-error-quark, hs_metrics_error)

const char * const hs_metric_names[HS_N_METRICS] = {
  [HS_METRIC_AUROC]                 = "auroc",
  [HS_METRIC_AP]                    = "ap",
  [HS_METRIC_IOU_5]                 = "iou@5",
  [HS_METRIC_IOU_10]                = "iou@10",
  [HS_METRIC_IOU_20]                = "iou@20",
  [HS_METRIC_IOU_30]                = "iou@30",
  [HS_METRIC_PRECISION_5]           = "precision@5",
  [HS_METRIC_PRECISION_10]          = "precision@10",
  [HS_METRIC_PRECISION_20]          = "precision@20",
  [HS_METRIC_PRECISION_30]          = "precision@30",
  [HS_METRIC_RECALL_5]              = "recall@5",
  [HS_METRIC_RECALL_10]             = "recall@10",
  [HS_METRIC_RECALL_20]             = "recall@20",
  [HS_METRIC_RECALL_30]             = "recall@30",
  [HS_METRIC_POINTING_HIT]          = "pointing_hit",
  [HS_METRIC_MASS_IN_TARGET]        = "mass_in_target",
  [HS_METRIC_OTSU_IOU]              = "otsu_iou",
  [HS_METRIC_EXPLANATION_PRECISION] = "explanation_precision",
  [HS_METRIC_CNR]                   = "cnr",
  [HS_METRIC_ENTROPY]               = "entropy",
  [HS_METRIC_ENTROPY_NORM]          = "entropy_norm",
  [HS_METRIC_NO_ATTN]               = "no_attn",
  [HS_METRIC_LATERALITY]            = "laterality",
  [HS_METRIC_WRONG_SIDE]            = "wrong_side",
};

static const HsMetric default_metrics[] = {
  HS_METRIC_AUROC, HS_METRIC_AP,
  HS_METRIC_IOU_5, HS_METRIC_IOU_10, HS_METRIC_IOU_30,
  HS_METRIC_PRECISION_5, HS_METRIC_PRECISION_10, HS_METRIC_PRECISION_30,
  HS_METRIC_RECALL_5, HS_METRIC_RECALL_10, HS_METRIC_RECALL_30,
  HS_METRIC_POINTING_HIT, HS_METRIC_MASS_IN_TARGET, HS_METRIC_OTSU_IOU,
  HS_METRIC_EXPLANATION_PRECISION, HS_METRIC_CNR, HS_METRIC_ENTROPY, HS_METRIC_ENTROPY_NORM,
  HS_METRIC_NO_ATTN, HS_METRIC_LATERALITY, HS_METRIC_WRONG_SIDE,
};

static const HsMetric gloria_metrics[] = {
  HS_METRIC_AUROC, HS_METRIC_AP,
  HS_METRIC_IOU_5, HS_METRIC_IOU_10, HS_METRIC_IOU_20, HS_METRIC_IOU_30,
  HS_METRIC_PRECISION_5, HS_METRIC_PRECISION_10, HS_METRIC_PRECISION_20, HS_METRIC_PRECISION_30,
  HS_METRIC_RECALL_5, HS_METRIC_RECALL_10, HS_METRIC_RECALL_20, HS_METRIC_RECALL_30,
  HS_METRIC_POINTING_HIT, HS_METRIC_MASS_IN_TARGET, HS_METRIC_OTSU_IOU,
  HS_METRIC_EXPLANATION_PRECISION, HS_METRIC_CNR, HS_METRIC_ENTROPY, HS_METRIC_ENTROPY_NORM,
  HS_METRIC_NO_ATTN, HS_METRIC_LATERALITY, HS_METRIC_WRONG_SIDE,
};

const char *
hs_metric_get_name (HsMetric metric)
{
  if ((guint) metric >= HS_N_METRICS)
    return NULL;
  return hs_metric_names[metric];
}

gboolean
hs_metric_from_name (const char *name, HsMetric *metric)
{
  g_return_val_if_fail (metric != NULL, FALSE);

  for (guint i = 0; name != NULL && i < HS_N_METRICS; i++)
    if (strcmp (name, hs_metric_names[i]) == 0)
      {
        *metric = (HsMetric) i;
        return TRUE;
      }
  return FALSE;
}

const HsMetric *
hs_protocol_get_metrics (HsProtocol protocol, guint *n_metrics)
{
  g_return_val_if_fail (n_metrics != NULL, NULL);

  if (protocol == HS_PROTOCOL_GLORIA)
    {
      *n_metrics = G_N_ELEMENTS (gloria_metrics);
      return gloria_metrics;
    }
  *n_metrics = G_N_ELEMENTS (default_metrics);
  return default_metrics;
}

gboolean
hs_protocol_has_metric (HsProtocol protocol, HsMetric metric)
{
  guint n;
  const HsMetric *list = hs_protocol_get_metrics (protocol, &n);

  for (guint i = 0; i < n; i++)
    if (list[i] == metric)
      return TRUE;
  return FALSE;
}

void
hs_score_options_init (HsScoreOptions *options)
{
  g_return_if_fail (options != NULL);

  /* eval_size 0: the image grid; n_threads 0: chosen by size */
  *options = (HsScoreOptions) {
    .protocol = HS_PROTOCOL_DEFAULT, .upsample = HS_UPSAMPLE_BILINEAR, .threshold = NAN,
  };
}

/* ---- workspace and threads ---- */

#define N_SLOTS 4
/* Keep at most this many bytes cached per thread between calls: enough for
 * a 2048 × 2048 grid; a larger image's buffers are returned after each call
 * (the app's memory budget matters more than their page faults). */
#define WORKSPACE_KEEP ((gsize) 112 << 20)

typedef struct {
  double *buf[N_SLOTS];
  gsize   cap[N_SLOTS];
} Workspace;

static void
workspace_free (gpointer data)
{
  Workspace *ws = data;

  for (guint i = 0; i < N_SLOTS; i++)
    g_free (ws->buf[i]);
  g_free (ws);
}

static GPrivate workspace_key = G_PRIVATE_INIT (workspace_free);

double *
hs_metrics_workspace (guint slot, gsize n_values)
{
  Workspace *ws = g_private_get (&workspace_key);

  g_assert (slot < N_SLOTS);
  if (ws == NULL)
    {
      ws = g_new0 (Workspace, 1);
      g_private_set (&workspace_key, ws);
    }
  if (ws->cap[slot] < n_values)
    {
      g_free (ws->buf[slot]);
      ws->cap[slot] = 0;
      /* a huge grid must end in an error, not an abort */
      ws->buf[slot] = n_values > G_MAXSIZE / sizeof (double) ? NULL
                      : hs_big_buffer_try_alloc (MAX (n_values, 1) * sizeof (double));
      if (ws->buf[slot] == NULL)
        return NULL;
      ws->cap[slot] = n_values;
    }
  return ws->buf[slot];
}

void
hs_score_warm_up (void)
{
  hs_team_keep_cores_awake ();
}

/* Makes sure the buffers a scoring call needs exist before it starts. */
static gboolean
reserve_workspace (gsize n, HsProtocol protocol, GError **error)
{
  for (guint slot = 0; slot < 4; slot++)
    {
      /* slot 0: s when it is made whole; 3: the chexlocalize mask (only
       * what a call touches costs memory) */
      gsize need = slot == 3 ? n / 4 + 1 : n;

      if (hs_metrics_workspace (slot, need) == NULL)
        {
          g_set_error (error, HS_METRICS_ERROR, HS_METRICS_ERROR_TOO_LARGE,
                       _("not enough memory to score on a grid of %zu pixels "
                       "(a smaller --eval-size helps)"), n);
          return FALSE;
        }
    }
  return TRUE;
}

/* Drops buffers too large to keep once a call is over. */
static void
workspace_trim (void)
{
  Workspace *ws = g_private_get (&workspace_key);
  gsize total = 0;

  if (ws == NULL)
    return;
  for (guint i = 0; i < N_SLOTS; i++)
    total += ws->cap[i] * sizeof (double);
  if (total <= WORKSPACE_KEEP)
    return;
  for (guint i = 0; i < N_SLOTS; i++)
    {
      g_clear_pointer (&ws->buf[i], g_free);
      ws->cap[i] = 0;
    }
}

void
hs_score_release_memory (void)
{
  Workspace *ws = g_private_get (&workspace_key);

  if (ws == NULL)
    return;
  for (guint i = 0; i < N_SLOTS; i++)
    {
      g_clear_pointer (&ws->buf[i], g_free);
      ws->cap[i] = 0;
    }
}

static guint
choose_threads (const HsScoreOptions *options, gsize n)
{
  guint n_threads = options->n_threads;

  if (n_threads == 0)
    n_threads = n >= ((gsize) 1 << 18) ? MIN (2, g_get_num_processors ()) : 1;
  return CLAMP (n_threads, 1, 2);
}

/* ---- checks ---- */

static gboolean
report_non_finite (const double *values, guint w, gsize n, const char *name, GError **error)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (values[i]))
      {
        g_set_error (error, HS_METRICS_ERROR, HS_METRICS_ERROR_NON_FINITE,
                     _("%s: cell (row %zu, column %zu) is %s; "
                     "a map with NaN or ±Inf is not scored"),
                     name != NULL ? name : "map", i / w, i % w,
                     isnan (values[i]) ? "NaN" : values[i] > 0 ? "+Inf" : "-Inf");
        return FALSE;
      }
  return TRUE;
}

/* One pass: every value finite (x·0 is NaN for NaN and ±Inf), and the range. */
static gboolean
check_finite_range (const double *values, guint w, guint h, const char *name,
                    double *lo_out, double *hi_out, GError **error)
{
  gsize n = (gsize) w * h, i = 0;
  double poison = 0, lo = INFINITY, hi = -INFINITY;
  /* four independent chains: one chain waits on each add (~5 ms a 2048² map) */
  double p4[4] = { 0, 0, 0, 0 };
  double lo4[4] = { INFINITY, INFINITY, INFINITY, INFINITY };
  double hi4[4] = { -INFINITY, -INFINITY, -INFINITY, -INFINITY };

  for (; i + 4 <= n; i += 4)
    for (guint k = 0; k < 4; k++)
      {
        double v = values[i + k];
        p4[k] += v * 0.0;
        lo4[k] = v < lo4[k] ? v : lo4[k];
        hi4[k] = v > hi4[k] ? v : hi4[k];
      }
  for (; i < n; i++)
    {
      double v = values[i];
      poison += v * 0.0;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  for (guint k = 0; k < 4; k++)
    {
      poison += p4[k];
      lo = lo4[k] < lo ? lo4[k] : lo;
      hi = hi4[k] > hi ? hi4[k] : hi;
    }
  if (poison != 0)
    return report_non_finite (values, w, n, name, error);
  if (lo_out != NULL)
    *lo_out = lo;
  if (hi_out != NULL)
    *hi_out = hi;
  return TRUE;
}

static gboolean
check_finite (const double *values, guint w, guint h, const char *name, GError **error)
{
  return check_finite_range (values, w, h, name, NULL, NULL, error);
}

static double
side_ratio (double toward_left, double toward_right)
{
  /* (m_L − m_R)/(m_L + m_R) */
  return (toward_left - toward_right) / (toward_left + toward_right);
}

/* ---- entropy ---- */

typedef struct {
  const double *grid;
  gsize         n;
  double        total;
  double        part[2];
  double        scale;   /* power of two the cells are summed in */
} EntropyJob;

/* a·ln a of a = v / total (0 when a underflows) */
static inline double
entropy_term (double v, double total)
{
  double a = v / total;

  return a > 0 ? a * log (a) : 0.0;
}

static void
entropy_part (gpointer data, guint part, guint n_parts)
{
  EntropyJob *job = data;
  gsize begin = job->n * part / n_parts, end = job->n * (part + 1) / n_parts;
  double h = 0, prev = NAN, prev_term = 0;
  /* Maps often repeat values, in runs and (quantised maps) all over: a run
   * costs one log, and a direct-mapped memo of recent values' terms catches
   * the rest.  A term is a function of v alone, so the sum is the same
   * whether it came from the memo or from log. */
  enum { MEMO_BITS = 9, MEMO_TRIAL = 4096 };
  double memo_v[1 << MEMO_BITS], memo_term[1 << MEMO_BITS];
  /* The memo stays on only when it pays: after MEMO_TRIAL lookups at least
   * one in eight must have hit (a map of distinct values pays for the
   * lookups otherwise).  The choice depends on the part's values alone. */
  gboolean memo_on = TRUE;
  guint lookups = 0, hits = 0;

  for (guint k = 0; k < (1u << MEMO_BITS); k++)
    memo_v[k] = -1.0;   /* never a positive value */
  for (gsize i = begin; i < end; i++)
    {
      double v = job->grid[i] * job->scale;

      if (!(v > 0))
        continue;
      if (v != prev && !memo_on)
        {
          prev = v;
          prev_term = entropy_term (v, job->total);
        }
      else if (v != prev)
        {
          guint64 bits;
          guint slot;

          memcpy (&bits, &v, sizeof bits);
          slot = (guint) ((bits * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> (64 - MEMO_BITS));
          prev = v;
          if (++lookups == MEMO_TRIAL)
            memo_on = hits >= MEMO_TRIAL / 8;
          if (memo_v[slot] == v)
            {
              prev_term = memo_term[slot];
              hits++;
            }
          else
            {
              prev_term = entropy_term (v, job->total);
              memo_v[slot] = v;
              memo_term[slot] = prev_term;
            }
        }
      h -= prev_term;
    }
  job->part[part] = h;
}

void
hs_metrics_entropy (const double *grid, gsize n_cells, double no_attn,
                    HsProtocol protocol, HsScores *out)
{
  gboolean slot = protocol == HS_PROTOCOL_GLORIA && isfinite (no_attn);
  gsize n = n_cells + (slot ? 1 : 0);
  double total = 0, h, slot_value = slot ? MAX (no_attn, 0.0) : 0.0;
  EntropyJob job = { grid, n_cells, 0, { 0, 0 }, 1.0 };
  /* The split depends on the size only, so the sum does not depend on the
   * number of processors. */
  guint n_parts = n_cells >= ((gsize) 1 << 18) ? 2 : 1;

  double top = slot_value;

  /* The largest cell and the sum in one pass; the sum is taken again only
   * when the cells must be scaled (see below). */
  for (gsize i = 0; i < n_cells; i++)
    {
      double v = grid[i];

      top = MAX (top, v);
      total += v > 0 ? v : 0;
    }
  /* Sums in units of a power of two of the largest cell (exact): a sum of
   * cells near 1e308 overflows, and entropy is scale-invariant. */
  job.scale = ldexp (1.0, hs_metrics_sum_exponent (0, top));
  slot_value *= job.scale;
  if (job.scale != 1.0)
    {
      total = 0;
      for (gsize i = 0; i < n_cells; i++)
        total += grid[i] > 0 ? grid[i] * job.scale : 0;
    }
  total += slot_value;
  if (!(total > 0))
    {
      hs_scores_undefined (out, HS_METRIC_ENTROPY, HS_REASON_NO_POSITIVE);
      hs_scores_undefined (out, HS_METRIC_ENTROPY_NORM, HS_REASON_NO_POSITIVE);
      return;
    }
  job.total = total;
  if (n_parts > 1 && g_get_num_processors () >= 2)
    hs_parallel_parts (entropy_part, &job, n_parts);
  else
    for (guint p = 0; p < n_parts; p++)
      entropy_part (&job, p, n_parts);
  h = job.part[0] + (n_parts > 1 ? job.part[1] : 0);
  if (slot_value > 0)
    {
      double a = slot_value / total;
      if (a > 0)
        h -= a * log (a);
    }
  hs_scores_set (out, HS_METRIC_ENTROPY, h);
  if (n > 1)
    hs_scores_set (out, HS_METRIC_ENTROPY_NORM, h / log ((double) n));
  else
    hs_scores_undefined (out, HS_METRIC_ENTROPY_NORM, "the grid has one cell");
}

/* ---- scoring ---- */

static void
scores_reset (HsScores *out, HsProtocol protocol, const HsTarget *target)
{
  memset (out, 0, sizeof *out);
  out->protocol = protocol;
  for (guint m = 0; m < HS_N_METRICS; m++)
    hs_scores_undefined (out, (HsMetric) m, HS_REASON_NOT_IN_PROTO);
  out->target_laterality = NAN;
  for (guint k = 0; k < 4; k++)
    out->topk_threshold[k] = NAN;
  out->otsu_level = -1;
  out->otsu_threshold = NAN;
  out->map_min = out->map_max = NAN;
  out->grid_width = hs_target_get_width (target);
  out->grid_height = hs_target_get_height (target);
  out->grid_pixels = (guint64) out->grid_width * out->grid_height;
  out->target_pixels = hs_target_get_count (target);
}

static gboolean
check_protocol (const HsTarget *target, const HsScoreOptions *options, GError **error)
{
  const HsEvalGrid *grid = hs_target_get_grid (target);

  if (grid->protocol != options->protocol)
    {
      g_set_error (error, HS_METRICS_ERROR, HS_METRICS_ERROR_PROTOCOL,
                   _("the target was built for the %s protocol, not %s"),
                   hs_protocol_to_string (grid->protocol), hs_protocol_to_string (options->protocol));
      return FALSE;
    }
  return TRUE;
}

/* Every metric from a prepared state. */
static void
score_prepared (HsEvalState *state, const double *grid, guint w, guint h, double no_attn,
                const HsScoreOptions *options, const HsTarget *target, HsScores *out)
{
  gsize n = state->n;
  double m_left, m_right, t_left, t_right;

  scores_reset (out, options->protocol, target);
  out->map_min = state->min;
  out->map_max = state->max;

  /* auroc, ap */
  hs_metrics_rank_metrics (state, out);

  /* top-k regions */
  if (options->protocol == HS_PROTOCOL_GLORIA)
    hs_metrics_topk_gloria (state, out);
  else
    hs_metrics_topk_default (state, out);

  /* pointing, mass */
  if (state->n_pos == 0)
    {
      hs_scores_undefined (out, HS_METRIC_POINTING_HIT, HS_REASON_EMPTY_TARGET);
      hs_scores_undefined (out, HS_METRIC_MASS_IN_TARGET, HS_REASON_EMPTY_TARGET);
    }
  else
    {
      hs_scores_set (out, HS_METRIC_POINTING_HIT, state->g[state->argmax] ? 1.0 : 0.0);
      if (state->mass_all > 0)
        hs_scores_set (out, HS_METRIC_MASS_IN_TARGET, state->mass_in / state->mass_all);
      else
        hs_scores_undefined (out, HS_METRIC_MASS_IN_TARGET, HS_REASON_NO_MASS);
    }

  /* Otsu region */
  hs_metrics_otsu_iou (state, out);   /* also fills otsu_level */
  if (options->protocol == HS_PROTOCOL_CHEXLOCALIZE)
    {
      guint8 *pred = (guint8 *) hs_metrics_workspace (3, n / sizeof (double) + 1);
      hs_metrics_chexlocalize_iou (state, options->threshold, pred, out);
    }

  /* explanation precision; with negative values it sorts |s| in buffers the
   * earlier metrics no longer need */
  if (state->min >= 0)
    hs_metrics_explanation_precision (state, NULL, NULL, out);
  else
    {
      double *abs_buffer = hs_metrics_workspace (3, n);
      double *abs_scratch = hs_metrics_workspace (2, n);

      if (abs_buffer != NULL && abs_scratch != NULL)
        hs_metrics_explanation_precision (state, abs_buffer, abs_scratch, out);
      else
        hs_scores_undefined (out, HS_METRIC_EXPLANATION_PRECISION, "not enough memory");
    }

  /* cnr */
  if (state->n_pos == 0)
    hs_scores_undefined (out, HS_METRIC_CNR, HS_REASON_EMPTY_TARGET);
  else if (state->n_neg == 0)
    hs_scores_undefined (out, HS_METRIC_CNR, HS_REASON_FULL_TARGET);
  else
    {
      double var_in = state->ss_in / (double) state->n_pos;
      double var_out = state->ss_out / (double) state->n_neg;

      if (var_in == 0 && var_out == 0)
        hs_scores_undefined (out, HS_METRIC_CNR, HS_REASON_ZERO_VARIANCE);
      else
        hs_scores_set (out, HS_METRIC_CNR,
                       fabs (state->mean_in - state->mean_out) / sqrt (var_in + var_out));
    }

  /* entropy on the grid */
  if (grid != NULL && w > 0 && h > 0)
    hs_metrics_entropy (grid, (gsize) w * h, no_attn, options->protocol, out);
  else
    {
      hs_scores_undefined (out, HS_METRIC_ENTROPY, HS_REASON_NO_GRID);
      hs_scores_undefined (out, HS_METRIC_ENTROPY_NORM, HS_REASON_NO_GRID);
    }

  if (isfinite (no_attn))
    hs_scores_set (out, HS_METRIC_NO_ATTN, no_attn);
  else
    hs_scores_undefined (out, HS_METRIC_NO_ATTN, HS_REASON_NO_SLOT);

  /* laterality */
  m_right = state->mass_left;    /* image-left = patient's right */
  m_left = state->mass_right;
  t_right = (double) state->target_right;
  t_left = (double) state->target_left;
  if (m_left + m_right > 0)
    hs_scores_set (out, HS_METRIC_LATERALITY, side_ratio (m_left, m_right));
  else
    hs_scores_undefined (out, HS_METRIC_LATERALITY, HS_REASON_NO_SIDE);
  if (t_left + t_right > 0)
    out->target_laterality = side_ratio (t_left, t_right);

  if (state->n_pos == 0)
    hs_scores_undefined (out, HS_METRIC_WRONG_SIDE, HS_REASON_EMPTY_TARGET);
  else if (isnan (out->target_laterality))
    hs_scores_undefined (out, HS_METRIC_WRONG_SIDE, "target lies on the middle column only");
  else if (isnan (out->value[HS_METRIC_LATERALITY]))
    hs_scores_undefined (out, HS_METRIC_WRONG_SIDE, HS_REASON_NO_SIDE);
  else
    {
      double a = out->value[HS_METRIC_LATERALITY], b = out->target_laterality;

      hs_scores_set (out, HS_METRIC_WRONG_SIDE,
                     fabs (a) >= 0.2 && fabs (b) >= 0.2 && ((a > 0 && b < 0) || (a < 0 && b > 0))
                     ? 1.0 : 0.0);
    }

  /* Sums over maps near ±DBL_MAX overflow: say so instead of printing NaN. */
  for (guint m = 0; m < HS_N_METRICS; m++)
    if (out->reason[m] == NULL && !isfinite (out->value[m]))
      hs_scores_undefined (out, (HsMetric) m, "numeric overflow (map values too large)");
}

gboolean
hs_score_resampled (const double *s, const double *grid, guint w, guint h,
                    double no_attn, const char *name_for_errors,
                    const HsTarget *target, const HsScoreOptions *options,
                    HsScores *out, GError **error)
{
  HsScoreOptions defaults;
  HsEvalState state;
  gsize n;

  g_return_val_if_fail (s != NULL && target != NULL && out != NULL, FALSE);

  if (options == NULL)
    {
      hs_score_options_init (&defaults);
      options = &defaults;
    }
  if (!check_protocol (target, options, error))
    return FALSE;
  if (!check_finite (s, hs_target_get_width (target), hs_target_get_height (target),
                     name_for_errors, error))
    return FALSE;
  if (grid != NULL && !check_finite (grid, w, h, name_for_errors, error))
    return FALSE;
  n = hs_eval_grid_n_pixels (hs_target_get_grid (target));
  if (!reserve_workspace (n, options->protocol, error))
    return FALSE;
  /* s is only read when no resampler is given. */
  hs_metrics_prepare (&state, s, NULL, NAN, NAN, target, choose_threads (options, n),
                      hs_metrics_workspace (1, n), hs_metrics_workspace (2, n));
  score_prepared (&state, grid, w, h, no_attn, options, target, out);
  hs_metrics_state_clear (&state);
  workspace_trim ();
  return TRUE;
}

/* Resamples `values` onto the target's grid (into workspace slot 0, or band
 * by band through *resampler, which the caller frees once it no longer uses
 * `state`) and prepares `state`.  Returns k when s holds the map·2^k
 * (chexlocalize of a map beyond float32's range), else 0. */
static int
prepare_from_grid (HsEvalState *state, const double *values, guint w, guint h,
                   double lo, double hi, const HsTarget *target, const HsScoreOptions *options,
                   HsResampler **resampler)
{
  const HsEvalGrid *grid = hs_target_get_grid (target);
  gsize n = hs_eval_grid_n_pixels (grid);
  double *s = hs_metrics_workspace (0, n);
  g_autofree double *fit = NULL;
  int k = 0;

  if (grid->protocol == HS_PROTOCOL_CHEXLOCALIZE)
    {
      double big = MAX (fabs (lo), fabs (hi));

      /* torch computes in float32: a map beyond 2^±100 would turn into Inf
       * or 0 there.  Scaled by a power of two into [1, 2) first (exact;
       * every metric is scale-invariant). */
      if (big > 0 && (big > 0x1p100 || big < 0x1p-100))
        {
          k = -ilogb (big);
          fit = g_new (double, (gsize) w * h);
          for (gsize i = 0; i < (gsize) w * h; i++)
            fit[i] = ldexp (values[i], k);
          values = fit;
        }
      /* CheXlocalize upsamples the float32 map with torch: rounding can put
       * values a float ulp outside [lo, hi], so the bounds are found again */
      hs_resample_torch_bilinear (values, w, h, grid->width, grid->height, s);
      lo = hi = NAN;
    }
  else if (grid->protocol != HS_PROTOCOL_GLORIA && w == grid->width && h == grid->height)
    s = (double *) values;   /* the map is on the grid already: both rules are the identity; read only */
  else if (grid->protocol == HS_PROTOCOL_GLORIA)
    hs_eval_grid_resample (grid, values, w, h, options->upsample, s);
  else
    *resampler = hs_resampler_new (values, w, h, grid->width, grid->height, options->upsample);
  hs_metrics_prepare (state, s, *resampler, lo, hi, target, choose_threads (options, n),
                      hs_metrics_workspace (1, n), hs_metrics_workspace (2, n));
  return k;
}

static gboolean
check_grid (guint w, guint h, GError **error)
{
  if (w == 0 || h == 0)
    {
      g_set_error (error, HS_METRICS_ERROR, HS_METRICS_ERROR_SHAPE, _("the map has no cell (%u × %u)"), w, h);
      return FALSE;
    }
  if ((guint64) w * h > hs_limits_get ()->max_grid_cells)
    {
      g_set_error (error, HS_METRICS_ERROR, HS_METRICS_ERROR_TOO_LARGE,
                   _("the map has %u × %u cells, over the limit of %" PRIu64),
                   w, h, hs_limits_get ()->max_grid_cells);
      return FALSE;
    }
  return TRUE;
}

gboolean
hs_score_values (const double *values, guint w, guint h, double no_attn,
                 const char *name_for_errors, const HsTarget *target,
                 const HsScoreOptions *options, HsScores *out, GError **error)
{
  HsScoreOptions defaults;
  HsEvalState state;
  g_autoptr(HsResampler) resampler = NULL;
  double lo = 0, hi = 0;
  int k;

  g_return_val_if_fail (values != NULL && target != NULL && out != NULL, FALSE);

  if (options == NULL)
    {
      hs_score_options_init (&defaults);
      options = &defaults;
    }
  if (!check_grid (w, h, error)
      || !check_finite_range (values, w, h, name_for_errors, &lo, &hi, error)
      || !check_protocol (target, options, error)
      || !reserve_workspace (hs_eval_grid_n_pixels (hs_target_get_grid (target)), options->protocol, error))
    return FALSE;
  k = prepare_from_grid (&state, values, w, h, lo, hi, target, options, &resampler);
  score_prepared (&state, values, w, h, no_attn, options, target, out);
  hs_metrics_state_clear (&state);
  out->map_min = ldexp (out->map_min, -k);
  out->map_max = ldexp (out->map_max, -k);
  workspace_trim ();
  return TRUE;
}

gboolean
hs_score_map (const HsAttentionMap *map, const HsTarget *target,
              const HsScoreOptions *options, HsScores *out, GError **error)
{
  g_return_val_if_fail (map != NULL, FALSE);

  return hs_score_values (hs_attention_map_peek_values (map),
                          hs_attention_map_get_width (map), hs_attention_map_get_height (map),
                          hs_attention_map_get_no_attn (map), "map", target, options, out, error);
}

/* ---- comparison ---- */

double
hs_sym_kl (const double *p, const double *q, gsize n,
           double p_no_attn, double q_no_attn, HsProtocol protocol, const char **reason)
{
  gboolean gloria = protocol == HS_PROTOCOL_GLORIA;
  gboolean slot = gloria && isfinite (p_no_attn) && isfinite (q_no_attn);
  gsize m = n + (slot ? 1 : 0);
  g_autofree double *a = g_new (double, m);
  g_autofree double *b = g_new (double, m);
  double sa = 0, sb = 0, kl = 0;

  double pmax = slot ? MAX (p_no_attn, 0.0) : 0.0, qmax = slot ? MAX (q_no_attn, 0.0) : 0.0;
  int kp, kq;

  if (reason != NULL)
    *reason = NULL;
  for (gsize i = 0; i < n; i++)
    {
      pmax = MAX (pmax, p[i]);
      qmax = MAX (qmax, q[i]);
    }
  /* Each distribution by its own power of two (exact): sums of values near
   * 1e300 would overflow. */
  kp = hs_metrics_sum_exponent (0, pmax);
  kq = hs_metrics_sum_exponent (0, qmax);
  for (gsize i = 0; i < n; i++)
    {
      a[i] = p[i] > 0 ? ldexp (p[i], kp) : 0;
      b[i] = q[i] > 0 ? ldexp (q[i], kq) : 0;
    }
  if (slot)
    {
      a[n] = ldexp (MAX (p_no_attn, 0.0), kp);
      b[n] = ldexp (MAX (q_no_attn, 0.0), kq);
    }
  for (gsize i = 0; i < m; i++)
    {
      sa += a[i];
      sb += b[i];
    }
  if (!(sa > 0) || !(sb > 0))
    {
      if (reason != NULL)
        *reason = HS_REASON_NO_POSITIVE;
      return NAN;
    }
  for (gsize i = 0; i < m; i++)
    {
      a[i] /= sa;
      b[i] /= sb;
    }
  if (!gloria)
    {
      /* Floor each cell at 1e-12, then renormalise. */
      sa = sb = 0;
      for (gsize i = 0; i < m; i++)
        {
          a[i] = MAX (a[i], 1e-12);
          b[i] = MAX (b[i], 1e-12);
          sa += a[i];
          sb += b[i];
        }
      for (gsize i = 0; i < m; i++)
        {
          a[i] /= sa;
          b[i] /= sb;
        }
    }
  for (gsize i = 0; i < m; i++)
    {
      if (a[i] == 0 && b[i] == 0)
        continue;
      if (a[i] == 0 || b[i] == 0)
        {
          if (reason != NULL)
            *reason = HS_REASON_INFINITE;
          return NAN;
        }
      kl += (a[i] - b[i]) * log (a[i] / b[i]);
    }
  return kl;
}

gboolean
hs_compare_maps (const HsAttentionMap *original, const HsAttentionMap *perturbed,
                 const HsTarget *target, const HsScoreOptions *options,
                 HsComparison *out, GError **error)
{
  HsScoreOptions defaults;
  guint w, h;

  g_return_val_if_fail (original != NULL && perturbed != NULL && target != NULL && out != NULL, FALSE);

  if (options == NULL)
    {
      hs_score_options_init (&defaults);
      options = &defaults;
    }
  memset (out, 0, sizeof *out);
  w = hs_attention_map_get_width (original);
  h = hs_attention_map_get_height (original);
  if (w != hs_attention_map_get_width (perturbed) || h != hs_attention_map_get_height (perturbed))
    {
      g_set_error (error, HS_METRICS_ERROR, HS_METRICS_ERROR_SHAPE,
                   _("maps of different shapes cannot be compared: %u × %u and %u × %u"),
                   w, h, hs_attention_map_get_width (perturbed), hs_attention_map_get_height (perturbed));
      return FALSE;
    }
  if (!hs_score_map (original, target, options, &out->original, error)
      || !hs_score_map (perturbed, target, options, &out->perturbed, error))
    return FALSE;
  for (guint m = 0; m < HS_N_METRICS; m++)
    out->delta[m] = out->perturbed.value[m] - out->original.value[m];  /* NAN propagates */
  out->sym_kl = hs_sym_kl (hs_attention_map_peek_values (original),
                           hs_attention_map_peek_values (perturbed), (gsize) w * h,
                           hs_attention_map_get_no_attn (original),
                           hs_attention_map_get_no_attn (perturbed),
                           options->protocol, &out->sym_kl_reason);
  out->swap_response = NAN;
  out->swap_response_reason = "not a left/right swap";
  return TRUE;
}

/* ---- curves ---- */

static void
add_point (GArray *array, double x, double y, double threshold)
{
  HsCurvePoint pt = { x, y, threshold };

  g_array_append_val (array, pt);
}

gboolean
hs_score_curves (const HsAttentionMap *map, const HsTarget *target,
                 const HsScoreOptions *options, guint max_points,
                 HsCurves *out, GError **error)
{
  HsScoreOptions defaults;
  HsEvalState state;
  g_autoptr(HsResampler) resampler = NULL;
  guint w, h;
  double last = NAN, lo = 0, hi = 0;
  int k;

  g_return_val_if_fail (map != NULL && target != NULL && out != NULL, FALSE);

  if (options == NULL)
    {
      hs_score_options_init (&defaults);
      options = &defaults;
    }
  out->roc = g_array_new (FALSE, FALSE, sizeof (HsCurvePoint));
  out->pr = g_array_new (FALSE, FALSE, sizeof (HsCurvePoint));
  out->iou = g_array_new (FALSE, FALSE, sizeof (HsCurvePoint));
  if (!check_protocol (target, options, error)
      || !reserve_workspace (hs_eval_grid_n_pixels (hs_target_get_grid (target)), options->protocol, error))
    return FALSE;
  max_points = MAX (max_points, 2);
  w = hs_attention_map_get_width (map);
  h = hs_attention_map_get_height (map);
  if (!check_finite_range (hs_attention_map_peek_values (map), w, h, "map", &lo, &hi, error))
    return FALSE;
  k = prepare_from_grid (&state, hs_attention_map_peek_values (map), w, h, lo, hi, target, options,
                         &resampler);

  if (state.n_pos > 0 && state.n_neg > 0)
    add_point (out->roc, 0, 0, INFINITY);
  /* Thresholds at evenly spaced ranks; each point is exact for its value. */
  for (guint m = 1; m <= max_points; m++)
    {
      guint64 r = ((guint64) m * state.n + max_points - 1) / max_points;
      guint64 total, hit;
      double v;

      r = CLAMP (r, 1, state.n);
      v = hs_metrics_kth_largest (&state, r);
      if (v == last)
        continue;
      last = v;
      hs_metrics_count_at_least (&state, v, FALSE, &total, &hit);
      if (state.n_pos > 0 && state.n_neg > 0)
        {
          add_point (out->roc, (double) (total - hit) / (double) state.n_neg,
                     (double) hit / (double) state.n_pos, ldexp (v, -k));
          add_point (out->pr, (double) hit / (double) state.n_pos, (double) hit / (double) total,
                     ldexp (v, -k));
        }
      /* Thresholds in the map's own units. */
      add_point (out->iou, ldexp (v, -k), (double) hit / (double) (total + state.n_pos - hit),
                 ldexp (v, -k));
    }
  hs_metrics_state_clear (&state);
  workspace_trim ();
  return TRUE;
}

void
hs_curves_clear (HsCurves *curves)
{
  if (curves == NULL)
    return;
  g_clear_pointer (&curves->roc, g_array_unref);
  g_clear_pointer (&curves->pr, g_array_unref);
  g_clear_pointer (&curves->iou, g_array_unref);
}

/* ---- text ---- */

char *
hs_metric_format (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    return g_strdup ("null");
  if (value == 0)
    return g_strdup ("0");
  for (int precision = 15; precision <= 17; precision++)
    {
      char fmt[8];

      g_snprintf (fmt, sizeof fmt, "%%.%dg", precision);
      g_ascii_formatd (buf, sizeof buf, fmt, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  return g_strdup (buf);
}

void
hs_scores_append_json (const HsScores *scores, GString *out)
{
  guint n;
  const HsMetric *list;

  g_return_if_fail (scores != NULL && out != NULL);

  list = hs_protocol_get_metrics (scores->protocol, &n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = hs_metric_format (scores->value[list[i]]);

      g_string_append_printf (out, "%s\"%s\": %s", i > 0 ? ", " : "", hs_metric_names[list[i]], text);
    }
}
