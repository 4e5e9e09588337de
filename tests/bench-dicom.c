/* bench-dicom.c — opening the shared DICOM files: GDCM in its helper process
 * (what libheatscope does) against GDCM in this process (the reference, the
 * way libheatscope decoded before the helper), in one run on one machine.
 *
 * For each file of $HS_SHARED_DATA/dicom (or the folder given): the median
 * of REPEATS decodes from memory each way, the ratio helper / in-process,
 * and the same samples and value mapping both ways (else it fails); and the
 * first file of the process, which pays for starting the helper.
 * Usage: bench-dicom [DIR [REPEATS]] */
#include "hs-test-util.h"
#include "hs-dicom-helper-private.h"
#include "hs-image-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static gboolean
same_image (const HsImage *a, const HsImage *b)
{
  gsize n = (gsize) a->width * a->height * a->channels;

  return a->width == b->width && a->height == b->height && a->channels == b->channels &&
         a->bit_depth == b->bit_depth && a->max_value == b->max_value &&
         a->value_slope == b->value_slope && a->value_intercept == b->value_intercept &&
         a->window_center == b->window_center && a->window_width == b->window_width &&
         g_strcmp0 (a->value_unit, b->value_unit) == 0 && g_strcmp0 (a->note, b->note) == 0 &&
         memcmp (a->data, b->data, n * sizeof (guint16)) == 0;
}

int
main (int argc, char **argv)
{
  const char *shared = g_getenv ("HS_SHARED_DATA");
  g_autofree char *dir_path = argc > 1 ? g_strdup (argv[1])
                                       : shared != NULL ? g_build_filename (shared, "dicom", NULL) : NULL;
  int repeats = argc > 2 ? atoi (argv[2]) : 15;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  double total_helper = 0, total_inproc = 0;
  const char *entry;

  if (dir_path == NULL || repeats < 1 || (dir = g_dir_open (dir_path, 0, NULL)) == NULL)
    {
      fprintf (stderr, "usage: bench-dicom [DIR [REPEATS]] (default: $HS_SHARED_DATA/dicom)\n");
      return 2;
    }
  while ((entry = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (entry, ".dcm"))
      g_ptr_array_add (names, g_strdup (entry));
  g_ptr_array_sort (names, compare_names);

  /* The first DICOM file of a process starts its helper (later ones reuse it). */
  {
    g_autofree char *first = g_build_filename (dir_path, names->len > 0 ? (char *) g_ptr_array_index (names, 0) : "", NULL);
    g_autoptr(GError) error = NULL;
    gint64 t0 = g_get_monotonic_time ();
    HsImage *image = hs_image_load (first, &error);

    if (image == NULL)
      {
        fprintf (stderr, "bench-dicom: %s\n", error != NULL ? error->message : first);
        return 1;
      }
    printf ("first DICOM file of the process (starts the helper): %.2f ms\n", (g_get_monotonic_time () - t0) / 1000.0);
    hs_image_unref (image);
  }
  printf ("%-28s %9s %9s %12s %12s %7s\n", "file", "bytes", "pixels", "in-process", "helper", "ratio");
  for (guint f = 0; f < names->len; f++)
    {
      const char *name = g_ptr_array_index (names, f);
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      g_autofree char *contents = NULL;
      g_autofree double *t_helper = g_new (double, repeats);
      g_autofree double *t_inproc = g_new (double, repeats);
      gsize len;

      if (!g_file_get_contents (path, &contents, &len, NULL))
        return 1;
      for (int r = 0; r < repeats; r++)
        {
          g_autoptr(GError) error = NULL;
          gint64 t0 = g_get_monotonic_time ();
          HsImage *a = hs_image_load_from_memory ((const guint8 *) contents, len, path, &error);
          gint64 t1 = g_get_monotonic_time ();
          HsImage *b = hs_dicom_gdcm_load ((const guint8 *) contents, len, path, &error);
          gint64 t2 = g_get_monotonic_time ();

          if (a == NULL || b == NULL || !same_image (a, b))
            {
              fprintf (stderr, "bench-dicom: %s: %s\n", path,
                       error != NULL ? error->message : "the helper's image differs from the in-process one");
              return 1;
            }
          t_helper[r] = (t1 - t0) / 1000.0;
          t_inproc[r] = (t2 - t1) / 1000.0;
          hs_image_unref (a);
          hs_image_unref (b);
        }
      {
        double h = hs_test_median (t_helper, repeats), i = hs_test_median (t_inproc, repeats);
        g_autoptr(GError) error = NULL;
        HsImage *probe = hs_image_load_from_memory ((const guint8 *) contents, len, path, &error);

        printf ("%-28s %9zu %9u %9.2f ms %9.2f ms %6.2f×\n", name, len, probe->width * probe->height, i, h, h / i);
        hs_image_unref (probe);
        total_helper += h;
        total_inproc += i;
      }
    }
  printf ("%-28s %9s %9s %9.2f ms %9.2f ms %6.2f×   (medians of %d, summed)\n", "all", "", "",
          total_inproc, total_helper, total_helper / total_inproc, repeats);
  return 0;
}
