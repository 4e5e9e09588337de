/* bench-model.c — time of the built-in model: image encoding (once per image)
 * and prompt change → new map (the live prompt editor's latency, target < 50 ms).
 *
 *   bench-model [--model NAME|PATH] [--image FILE] [--size PX] [--runs N]
 *
 * Without --image a synthetic 1024 × 1024 16-bit radiograph-like image is used. */
#include "hs-test-util.h"
#include <heatscope/heatscope.h>
#include <heatscope/hs-model.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static HsImage *
synthetic_image (guint size)
{
  HsImage *image = hs_image_new (size, size, 1, 16, NULL);
  guint16 *data = hs_image_get_data (image);

  for (guint y = 0; y < size; y++)
    for (guint x = 0; x < size; x++)
      {
        double u = (double) x / size - 0.5, v = (double) y / size - 0.5;
        double lung = exp (-((fabs (u) - 0.2) * (fabs (u) - 0.2) + v * v) * 20);

        data[(gsize) y * size + x] = (guint16) (20000 + 30000 * (1 - lung) + 3000 * sin (y * 0.3));
      }
  return image;
}

int
main (int argc, char **argv)
{
  g_autofree char *model_name = NULL;
  g_autofree char *image_path = NULL;
  int runs = 20, size = 1024;
  GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_STRING, &model_name, "grounded, blind, noattn or a .safetensors", "M" },
    { "image", 0, 0, G_OPTION_ARG_FILENAME, &image_path, "image to encode", "FILE" },
    { "size", 0, 0, G_OPTION_ARG_INT, &size, "synthetic image size (default 1024)", "PX" },
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "repetitions (default 20)", "N" },
    { NULL }
  };
  static const char * const prompts[] = {
    "The right lung is clear.",
    "There is a nodule in the left lower lung zone.",
    "There is pleural effusion in the right costophrenic angle and the right lower lung zone.",
    "No pneumothorax.",
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— built-in model latency");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsModel) model = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autofree double *encode = NULL, *attend = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-model: %s\n", error->message);
      return 2;
    }
  if (model_name == NULL)
    model_name = g_strdup ("grounded");
  model = hs_model_load_builtin (model_name, &error);
  if (model == NULL)
    {
      /* The weights may not be trained yet: a benchmark that cannot run is skipped. */
      printf ("bench-model: skipped: %s\n", error->message);
      return 77;
    }
  image = image_path != NULL ? hs_image_load (image_path, &error) : synthetic_image ((guint) size);
  if (image == NULL)
    {
      fprintf (stderr, "bench-model: %s\n", error->message);
      return 1;
    }
  runs = MAX (runs, 1);
  encode = g_new (double, runs);
  attend = g_new (double, runs * G_N_ELEMENTS (prompts));

  for (int r = 0; r < runs; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(HsImageFeatures) features = hs_model_encode_image (model, image, NULL, &error);

      g_assert_no_error (error);
      encode[r] = (g_get_monotonic_time () - t0) / 1000.0;
      for (gsize p = 0; p < G_N_ELEMENTS (prompts); p++)
        {
          gint64 t1 = g_get_monotonic_time ();
          g_autoptr(HsAttentionMap) map = hs_model_attend (model, features, prompts[p], &error);

          g_assert_no_error (error);
          attend[r * G_N_ELEMENTS (prompts) + p] = (g_get_monotonic_time () - t1) / 1000.0;
        }
    }
  printf ("model %s, image %u x %u, %d runs\n", hs_model_get_name (model),
          hs_image_get_width (image), hs_image_get_height (image), runs);
  printf ("encode image (once per image): median %.2f ms\n", hs_test_median (encode, runs));
  printf ("prompt change -> new map:      median %.3f ms (target < 50 ms)\n",
          hs_test_median (attend, runs * G_N_ELEMENTS (prompts)));
  return 0;
}
