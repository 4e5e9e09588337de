/* bench-score.c — time `score` internals (resample + every metric) on a
 * 2048 × 2048 evaluation grid.  Prints one line per case:
 *   case NAME grid WxH eval WxH threads N median_ms M min_ms M cpu_median_ms M ...
 * (cpu = CPU time of all threads, a load-independent cost measure)
 * Used by tools/bench-score, which runs the NumPy/scikit-learn reference in
 * the same run.  Options: --runs N, --threads N, --write-inputs DIR (writes
 * the maps and targets as raw float64/uint8 for the reference). */
#include <heatscope/heatscope.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of the whole process (all threads), in ms: unlike wall time it
 * does not grow when other processes share the cores. */
static double
cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct {
  const char *name;
  guint       w, h;          /* model grid */
  gboolean    ties;          /* quantised values */
} Case;

static const Case cases[] = {
  { "grid32-upsampled",  32,   32,   FALSE },  /* a model map: 32 × 32 cells, bilinear to 2048² */
  { "grid19-upsampled",  19,   19,   FALSE },
  { "full-res-random",   2048, 2048, FALSE },  /* worst case: every pixel its own value */
  { "full-res-ties",     2048, 2048, TRUE  },  /* 256 distinct values */
};

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double *
make_grid (const Case *c, guint32 seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  double *grid = g_new (double, (gsize) c->w * c->h);

  for (gsize i = 0; i < (gsize) c->w * c->h; i++)
    {
      guint x = i % c->w, y = i / c->w;
      /* a blob near the target plus noise */
      double dx = (x + 0.5) / c->w - 0.35, dy = (y + 0.5) / c->h - 0.4;
      double v = exp (-(dx * dx + dy * dy) / 0.02) + 0.3 * g_rand_double (rand);
      grid[i] = c->ties ? floor (v * 200) / 200 : v;
    }
  return grid;
}

int
main (int argc, char **argv)
{
  const guint W = 2048, H = 2048;
  guint runs = 15, threads = 0;
  const char *write_dir = NULL;
  const char *only = NULL;
  HsEvalGrid grid;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsTarget) target = NULL;
  /* two boxes, as a report sentence with two findings */
  const HsBox boxes[] = { { 400, 500, 1100, 1300 }, { 1400.5, 900.25, 1700, 1500 } };

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
        runs = (guint) atoi (argv[++i]);
      else if (strcmp (argv[i], "--threads") == 0 && i + 1 < argc)
        threads = (guint) atoi (argv[++i]);
      else if (strcmp (argv[i], "--write-inputs") == 0 && i + 1 < argc)
        write_dir = argv[++i];
      else if (strcmp (argv[i], "--case") == 0 && i + 1 < argc)
        only = argv[++i];
      else
        {
          fprintf (stderr, "usage: bench-score [--runs N] [--threads N] [--case NAME] [--write-inputs DIR]\n");
          return 2;
        }
    }
  runs = MAX (runs, 1);

  if (!hs_eval_grid_init (&grid, HS_PROTOCOL_DEFAULT, W, H, 0, &error))
    g_error ("%s", error->message);
  target = hs_target_new (&grid);
  if (!hs_target_add_boxes (target, boxes, G_N_ELEMENTS (boxes), &error))
    g_error ("%s", error->message);

  if (write_dir != NULL)
    {
      g_autofree char *path = g_build_filename (write_dir, "target.u8", NULL);
      if (!g_file_set_contents (path, (const char *) hs_target_peek_mask (target), (gssize) W * H, &error))
        g_error ("%s", error->message);
    }

  for (guint ci = 0; ci < G_N_ELEMENTS (cases); ci++)
    {
      const Case *c = &cases[ci];
      g_autofree double *values = NULL;
      g_autofree double *times = g_new (double, runs);
      g_autofree double *cpu = g_new (double, runs);
      HsScoreOptions options;
      HsScores scores;

      if (only != NULL && strcmp (only, c->name) != 0)
        continue;
      values = make_grid (c, 42 + ci);
      hs_score_options_init (&options);
      options.n_threads = threads;

      if (write_dir != NULL)
        {
          g_autofree char *name = g_strdup_printf ("%s.f64", c->name);
          g_autofree char *path = g_build_filename (write_dir, name, NULL);
          if (!g_file_set_contents (path, (const char *) values, (gssize) ((gsize) c->w * c->h * sizeof (double)), &error))
            g_error ("%s", error->message);
        }

      /* one warm-up run (first-touch page faults of the workspace) */
      if (!hs_score_values (values, c->w, c->h, NAN, c->name, target, &options, &scores, &error))
        g_error ("%s", error->message);
      for (guint r = 0; r < runs; r++)
        {
          gint64 t0 = g_get_monotonic_time ();
          double c0 = cpu_ms ();
          if (!hs_score_values (values, c->w, c->h, NAN, c->name, target, &options, &scores, &error))
            g_error ("%s", error->message);
          times[r] = (g_get_monotonic_time () - t0) / 1000.0;
          cpu[r] = cpu_ms () - c0;
        }
      qsort (times, runs, sizeof (double), compare_doubles);
      qsort (cpu, runs, sizeof (double), compare_doubles);
      printf ("case %s grid %ux%u eval %ux%u threads %u median_ms %.2f min_ms %.2f cpu_median_ms %.2f auroc %.6f ap %.6f\n",
              c->name, c->w, c->h, W, H, threads, times[runs / 2], times[0], cpu[runs / 2],
              scores.value[HS_METRIC_AUROC], scores.value[HS_METRIC_AP]);
      fflush (stdout);
    }
  return 0;
}
