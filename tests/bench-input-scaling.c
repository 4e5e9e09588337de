/* bench-input-scaling.c — the manifest reader and the importers on inputs
 * 1×, 10×, 100× and 1000× larger along one axis (issue 14: linear in input
 * size).  For each shape of hs-scale-inputs.h it prints the wall time of one
 * read, the time per unit, and the time each unit beyond the 1× input added
 * ((t − t1×) / (n − n1×): an import's fixed cost, the image copy and the
 * fsyncs of the save, would hide the rest at small sizes) with its ratio to
 * the same at 10×, all measured in the same run: linear reading keeps the
 * ratio near 1, a duplicate check against every earlier name makes it grow
 * like the scale.
 *
 *   bench-input-scaling [--max-seconds S] [--shape N]
 *
 * A shape stops growing once one read took longer than S seconds (default
 * 60), so the quadratic code of before can be measured too. */
#include <heatscope/heatscope.h>

#include <stdio.h>
#include <stdlib.h>

#include "hs-scale-inputs.h"

/* Units at 1×: small enough that 1000× stays a few MB of input. */
static const guint base_units[HS_SCALE_N_SHAPES] = { 100, 50, 20, 100, 20, 20, 20 };
static const guint scales[] = { 1, 10, 100, 1000 };

static char *
make_tmpdir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("hs-bench-scaling-XXXXXX", &error);

  if (dir == NULL)
    g_error ("%s", error->message);
  return dir;
}

static void
remove_tree (const char *path)
{
  const char *argv[] = { "rm", "-rf", path, NULL };

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
}

/* Seconds for one read; small inputs are read repeatedly for 0.2 s at least. */
static double
time_read (HsScaleShape shape, const char *input, const char *out_dir)
{
  guint runs = 0;
  gint64 start = g_get_monotonic_time ();
  gint64 elapsed;

  do
    {
      g_autofree char *out = g_strdup_printf ("%s-%u", out_dir, runs);

      hs_scale_read (shape, input, out);
      runs++;
      elapsed = g_get_monotonic_time () - start;
    }
  while (elapsed < 200000);
  return elapsed / 1e6 / runs;
}

int
main (int argc, char **argv)
{
  double max_seconds = 60;
  int only = -1;

  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--max-seconds") && i + 1 < argc)
        max_seconds = g_ascii_strtod (argv[++i], NULL);
      else if (g_str_equal (argv[i], "--shape") && i + 1 < argc)
        only = atoi (argv[++i]);
      else
        {
          fprintf (stderr, "usage: %s [--max-seconds S] [--shape 0..%d]\n", argv[0], HS_SCALE_N_SHAPES - 1);
          return 2;
        }
    }

  printf ("%-38s %6s %9s %10s %10s %14s %7s\n", "shape", "scale", "units", "read (s)", "µs/unit",
          "µs/added unit", "ratio");
  for (int shape = 0; shape < HS_SCALE_N_SHAPES; shape++)
    {
      double seconds_1x = 0, added_10x = 0;

      if (only >= 0 && shape != only)
        continue;
      for (guint s = 0; s < G_N_ELEMENTS (scales); s++)
        {
          g_autofree char *tmp = make_tmpdir ();
          g_autofree char *in_dir = g_build_filename (tmp, "in", NULL);
          g_autofree char *out_dir = g_build_filename (tmp, "out", NULL);
          guint units = base_units[shape] * scales[s];
          g_autofree char *input = hs_scale_write (shape, in_dir, units);
          double seconds = time_read (shape, input, out_dir);
          double added = s == 0 ? 0 : (seconds - seconds_1x) / (units - base_units[shape]);

          if (s == 0)
            seconds_1x = seconds;
          if (s == 1)
            added_10x = added;
          if (s == 0)
            printf ("%-38s %5u× %9u %10.4f %10.3f %14s %7s\n", hs_scale_shape_names[shape], scales[s], units,
                    seconds, seconds / units * 1e6, "-", "-");
          else
            printf ("%-38s %5u× %9u %10.4f %10.3f %14.3f %7.2f\n", hs_scale_shape_names[shape], scales[s],
                    units, seconds, seconds / units * 1e6, added * 1e6, added / added_10x);
          fflush (stdout);
          remove_tree (tmp);
          if (seconds > max_seconds && s + 1 < G_N_ELEMENTS (scales))
            {
              printf ("%-38s %5u× %9s (skipped: the %u× read took over %g s)\n", hs_scale_shape_names[shape],
                      scales[s + 1], "-", scales[s], max_seconds);
              break;
            }
        }
    }
  return 0;
}
