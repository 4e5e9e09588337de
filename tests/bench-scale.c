/* bench-scale.c — loading a large dataset and computing its subsets.
 *
 *   bench-scale DATASET [--stream]
 *
 * With --stream the dataset is read as the app reads a large one:
 * hs_dataset_open (top level and instance 0: open_wall_s, open_cpu_s,
 * rss_open_mb), then hs_dataset_load_more in batches of 256 to the end
 * (load_* then cover both).
 *
 * Prints one "key value" line per measurement (tools/bench-scale makes the
 * table): hs_dataset_load wall and CPU seconds, resident size before and
 * after loading, then hs_dataset_get_subsets for every sentence of every
 * instance (wall and CPU seconds, and how many sentences each subset has,
 * so two runs can be compared), and how many mask files subsets had to
 * decode (regions with a mask but no "extent"). */
#include <heatscope/heatscope.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "hs-bench-util.h"

int
main (int argc, char **argv)
{
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  double rss_before, t0, c0, load_wall, load_cpu, sub_wall, sub_cpu;
  guint n_instances, n_sentences = 0, n_regions = 0, n_masks = 0, n_without_extent = 0;
  guint counts[3] = { 0 };

  gboolean stream = argc == 3 && strcmp (argv[2], "--stream") == 0;

  if (argc != 2 && !stream)
    {
      fprintf (stderr, "usage: %s DATASET [--stream]\n", argv[0]);
      return 2;
    }
  rss_before = hs_bench_status_mb ("VmRSS:");
  t0 = g_get_monotonic_time () / 1e6;
  c0 = hs_bench_cpu_seconds ();
  if (stream)
    {
      dataset = hs_dataset_open (argv[1], 1, &error);
      if (dataset != NULL)
        {
          printf ("open_wall_s %.3f\n", g_get_monotonic_time () / 1e6 - t0);
          printf ("open_cpu_s %.3f\n", hs_bench_cpu_seconds () - c0);
          printf ("rss_open_mb %.1f\n", hs_bench_status_mb ("VmRSS:"));
          while (!hs_dataset_is_complete (dataset))
            if (!hs_dataset_load_more (dataset, 256, &error))
              g_clear_pointer (&dataset, hs_dataset_unref);
        }
    }
  else
    dataset = hs_dataset_load (argv[1], &error);
  if (dataset == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  load_wall = g_get_monotonic_time () / 1e6 - t0;
  load_cpu = hs_bench_cpu_seconds () - c0;
  n_instances = hs_dataset_get_n_instances (dataset);
  printf ("instances %u\n", n_instances);
  printf ("load_wall_s %.3f\n", load_wall);
  printf ("load_cpu_s %.3f\n", load_cpu);
  printf ("rss_before_mb %.1f\n", rss_before);
  printf ("rss_loaded_mb %.1f\n", hs_bench_status_mb ("VmRSS:"));

  t0 = g_get_monotonic_time () / 1e6;
  c0 = hs_bench_cpu_seconds ();
  for (guint i = 0; i < n_instances; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      for (guint r = 0; r < instance->regions->len; r++)
        {
          const HsRegion *region = g_ptr_array_index (instance->regions, r);

          n_regions++;
          if (region->mask != NULL)
            {
              n_masks++;
              n_without_extent += !region->has_extent;
            }
        }
      for (guint s = 0; s < instance->sentences->len; s++)
        {
          guint subsets = hs_dataset_get_subsets (dataset, instance,
                                                  g_ptr_array_index (instance->sentences, s));

          n_sentences++;
          counts[0] += (subsets & HS_SUBSET_ABNORMAL) != 0;
          counts[1] += (subsets & HS_SUBSET_ONE_LUNG) != 0;
          counts[2] += (subsets & HS_SUBSET_MDRB) != 0;
        }
    }
  sub_wall = g_get_monotonic_time () / 1e6 - t0;
  sub_cpu = hs_bench_cpu_seconds () - c0;
  printf ("sentences %u\n", n_sentences);
  printf ("regions %u\n", n_regions);
  printf ("masks %u\n", n_masks);
  printf ("masks_without_extent %u\n", n_without_extent);
  printf ("subsets_wall_s %.3f\n", sub_wall);
  printf ("subsets_cpu_s %.3f\n", sub_cpu);
  printf ("subset_counts abnormal=%u one_lung=%u mdrb=%u\n", counts[0], counts[1], counts[2]);
  printf ("rss_end_mb %.1f\n", hs_bench_status_mb ("VmRSS:"));
  printf ("rss_peak_mb %.1f\n", hs_bench_status_mb ("VmHWM:"));
  t0 = g_get_monotonic_time () / 1e6;
  c0 = hs_bench_cpu_seconds ();
  g_clear_pointer (&dataset, hs_dataset_unref);
  printf ("free_wall_s %.3f\n", g_get_monotonic_time () / 1e6 - t0);
  printf ("free_cpu_s %.3f\n", hs_bench_cpu_seconds () - c0);
  return 0;
}
