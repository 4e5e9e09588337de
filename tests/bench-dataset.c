/* bench-dataset.c — time to open a 10 000-instance manifest (target: first
 * instance shown in < 1 s, < 300 MB resident).
 *
 * Writes a phantom-like manifest (17 anatomical regions and a lesion mask,
 * 5 report sentences, maps of 3 models with tokens per sentence) with
 * hs_dataset_save, then loads it `--runs` times and prints the median wall
 * and CPU time, the manifest size and the peak resident size; then opens it
 * as the app does (hs_dataset_open: instance 0 first; hs_dataset_load_more:
 * the rest) and prints the time to instance 0 and the CPU time to the end.  No image or
 * map file exists: loading must not open them. */
#include <heatscope/heatscope.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "hs-bench-util.h"

static const char * const regions[] = {
  "right lung", "left lung", "right upper lung zone", "left upper lung zone",
  "right mid lung zone", "left mid lung zone", "right lower lung zone", "left lower lung zone",
  "right costophrenic angle", "left costophrenic angle", "right hilar structures",
  "left hilar structures", "cardiac silhouette", "mediastinum", "right apical zone",
  "left apical zone", "spine",
};

/* Heap bytes in use now (malloc'd and mmapped), in MB. */
static double
heap_mb (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return (info.uordblks + info.hblkhd) / 1e6;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
write_manifest (const char *dir, guint n)
{
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "bench");
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (1);
  const char *models[] = { "grounded", "blind", "noattn" };
  const char *tokens[] = { "there", "is", "a", "nodule", "in", "the", "left", "upper", "lung", "zone", NULL };

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("phantom-%06u", i);
      g_autofree char *image = g_strdup_printf ("images/%s.png", id);
      g_autofree char *mask = g_strdup_printf ("masks/%s-lesion-1.png", id);
      HsInstance *instance = hs_instance_new (id, image);
      const char *upper[] = { "left upper lung zone", NULL };
      HsRegion *region;

      instance->width = 1024;
      instance->height = 1024;
      instance->abnormal = TRUE;
      hs_instance_set_metadata (instance, "view", "PA");
      hs_instance_set_metadata (instance, "modality", "phantom radiograph");
      hs_instance_set_metadata (instance, "licence", "CC0-1.0");
      hs_instance_set_metadata (instance, "source", "bench-dataset");
      hs_instance_add_finding (instance, hs_label_new ("nodule", "positive", upper));
      for (guint r = 0; r < G_N_ELEMENTS (regions); r++)
        {
          guint x = g_rand_int_range (rand, 0, 800), y = g_rand_int_range (rand, 0, 800);

          region = hs_region_new (regions[r]);
          hs_region_add_box (region, x, y, x + g_rand_int_range (rand, 20, 220), y + g_rand_int_range (rand, 20, 220));
          hs_instance_add_region (instance, region);
        }
      region = hs_region_new ("lesion 1");
      hs_region_add_box (region, 600, 200, 660, 260);
      hs_region_set_mask (region, mask);
      hs_instance_add_region (instance, region);

      for (guint s = 0; s < 5; s++)
        {
          g_autofree char *sid = g_strdup_printf ("s%u", s);
          HsSentence *sentence = hs_sentence_new (sid, "There is a nodule in the left upper lung zone.");

          hs_sentence_add_target (sentence, regions[3 + s]);
          hs_sentence_add_target (sentence, "lesion 1");
          hs_sentence_add_label (sentence, hs_label_new ("nodule", "positive", upper));
          hs_instance_add_sentence (instance, sentence);
          for (guint m = 0; m < G_N_ELEMENTS (models); m++)
            {
              g_autofree char *file = g_strdup_printf ("maps/%s__%s__%s.npy", id, models[m], sid);
              HsMapRef *ref = hs_map_ref_new (models[m], sid, file);

              hs_map_ref_set_tokens (ref, tokens);
              if (m == 2)
                ref->no_attn = g_rand_double (rand);
              hs_instance_add_map (instance, ref);
            }
        }
      hs_dataset_add_instance (dataset, instance);
    }
  g_rand_free (rand);
  if (!hs_dataset_save (dataset, &error))
    g_error ("%s", error->message);
}

int
main (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("— time loading a large manifest");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *manifest = NULL;
  g_autofree double *wall = NULL;
  g_autofree double *cpu = NULL;
  gint n = 10000, runs = 3;
  GStatBuf st;
  GOptionEntry entries[] = {
    { "instances", 'n', 0, G_OPTION_ARG_INT, &n, "Instances (default 10000)", "N" },
    { "runs", 'r', 0, G_OPTION_ARG_INT, &runs, "Loads to time (default 3)", "R" },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || n < 1 || runs < 1)
    {
      fprintf (stderr, "bench-dataset: %s\n", error ? error->message : "bad arguments");
      return 2;
    }

  dir = g_dir_make_tmp ("heatscope-bench-XXXXXX", &error);
  g_assert_no_error (error);
  write_manifest (dir, (guint) n);
  manifest = g_build_filename (dir, HS_DATASET_MANIFEST, NULL);
  g_assert_cmpint (g_stat (manifest, &st), ==, 0);

  {
    /* Resident size of a loaded dataset alone (the writer's memory is
     * returned to the system first as far as malloc allows). */
    double before = (malloc_trim (0), hs_bench_status_mb ("VmRSS:"));
    g_autoptr(HsDataset) dataset = hs_dataset_load (dir, &error);

    g_assert_no_error (error);
    printf ("dataset load: resident %.0f MB before, %.0f MB with the dataset loaded\n",
            before, hs_bench_status_mb ("VmRSS:"));
  }
  wall = g_new (double, runs);
  cpu = g_new (double, runs);
  for (gint r = 0; r < runs; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      double c0 = hs_bench_cpu_seconds ();
      g_autoptr(HsDataset) dataset = hs_dataset_load (dir, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, (guint) n);
      g_assert_nonnull (hs_dataset_get_instance (dataset, 0));
      wall[r] = (g_get_monotonic_time () - t0) / 1e6;
      cpu[r] = hs_bench_cpu_seconds () - c0;
    }
  qsort (wall, runs, sizeof (double), compare_doubles);
  qsort (cpu, runs, sizeof (double), compare_doubles);
  printf ("dataset load: %d instances, manifest %.1f MB: median %.3f s wall, %.3f s CPU "
          "(target < 1 s); peak resident %.0f MB (target < 300 MB, includes writing it)\n",
          n, st.st_size / 1e6, wall[runs / 2], cpu[runs / 2], hs_bench_status_mb ("VmHWM:"));

  /* As the app opens it: the top level and instance 0, then the rest in
   * batches (hs_dataset_open / hs_dataset_load_more). */
  {
    g_autofree double *first = g_new (double, runs);
    g_autofree double *rest = g_new (double, runs);

    for (gint r = 0; r < runs; r++)
      {
        gint64 t0 = g_get_monotonic_time ();
        double c0 = hs_bench_cpu_seconds ();
        g_autoptr(HsDataset) dataset = hs_dataset_open (dir, 1, &error);

        g_assert_no_error (error);
        g_assert_nonnull (hs_dataset_get_instance (dataset, 0));
        first[r] = (g_get_monotonic_time () - t0) / 1e6;
        while (!hs_dataset_is_complete (dataset))
          {
            hs_dataset_load_more (dataset, 256, &error);
            g_assert_no_error (error);
          }
        g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, (guint) n);
        rest[r] = hs_bench_cpu_seconds () - c0;
      }
    qsort (first, runs, sizeof (double), compare_doubles);
    qsort (rest, runs, sizeof (double), compare_doubles);
    printf ("dataset open: instance 0 after %.4f s (median wall), every instance after %.3f s CPU "
            "(hs_dataset_open + hs_dataset_load_more)\n", first[runs / 2], rest[runs / 2]);
  }

  /* The reference: json-glib's parser on the same file (CPU time, so a busy machine does not
   * skew the ratio), the tree only (no typed objects, no
   * checks) — what the manifest reader would cost at the least if it were built on json-glib. */
  {
    g_autofree double *parse = g_new (double, runs);
    g_autofree double *load = g_new (double, runs);

    for (gint r = 0; r < runs; r++)
      {
        g_autoptr(JsonParser) parser = json_parser_new_immutable ();
        double t0 = hs_bench_cpu_seconds ();
        double t1;

        if (!json_parser_load_from_mapped_file (parser, manifest, &error))
          g_error ("json-glib: %s", error->message);
        g_assert_nonnull (json_parser_get_root (parser));
        parse[r] = hs_bench_cpu_seconds () - t0;
        g_clear_object (&parser);

        t1 = hs_bench_cpu_seconds ();
        {
          g_autoptr(HsDataset) dataset = hs_dataset_load (dir, &error);

          g_assert_no_error (error);
        }
        load[r] = hs_bench_cpu_seconds () - t1;
      }
    {
      /* Heap bytes in use for each tree (mallinfo2: exact, unlike the resident size, which
       * keeps what earlier runs freed). */
      double base, json_mb, hs_mb;
      g_autoptr(JsonParser) parser = json_parser_new_immutable ();

      base = heap_mb ();
      if (!json_parser_load_from_mapped_file (parser, manifest, &error))
        g_error ("json-glib: %s", error->message);
      json_mb = heap_mb () - base;
      g_clear_object (&parser);
      base = heap_mb ();
      {
        g_autoptr(HsDataset) dataset = hs_dataset_load (dir, &error);

        g_assert_no_error (error);
        hs_mb = heap_mb () - base;
      }
      printf ("manifest reader vs json-glib: heap in use %.0f MB for json-glib's tree alone, "
              "%.0f MB for the loaded dataset\n", json_mb, hs_mb);
    }
    qsort (parse, runs, sizeof (double), compare_doubles);
    qsort (load, runs, sizeof (double), compare_doubles);
    printf ("manifest reader vs json-glib, %.1f MB: json-glib parse alone %.3f s CPU (%.0f MB/s); "
            "hs_dataset_load (parse + schema + typed objects) %.3f s CPU (%.0f MB/s); %.1f× faster\n",
            st.st_size / 1e6, parse[runs / 2], st.st_size / 1e6 / parse[runs / 2],
            load[runs / 2], st.st_size / 1e6 / load[runs / 2], parse[runs / 2] / load[runs / 2]);
  }

  g_unlink (manifest);
  g_rmdir (dir);
  return 0;
}
