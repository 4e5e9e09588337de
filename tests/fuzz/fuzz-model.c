/* fuzz-model.c — libFuzzer harness: model files (hs_model_load: safetensors
 * plus the "config" and "vocabulary" JSON and the tensor shapes); a model
 * that loads attends a 4 × 3 image, so shapes the loader accepts are also
 * ones the forward pass can use. */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("model.safetensors", data, size);
  static HsImage *image;
  GError *error = NULL;
  HsModel *model;

  if (image == NULL)
    image = hs_image_new (4, 3, 1, 8, NULL);
  model = hs_model_load (path, &error);
  if (model != NULL)
    {
      fuzz_accepted ();
      HsAttentionMap *map = hs_model_attend_image (model, image, "left lung opacity", &error);

      if (map != NULL)
        hs_attention_map_unref (map);
      hs_model_unref (model);
    }
  g_clear_error (&error);
  return 0;
}
