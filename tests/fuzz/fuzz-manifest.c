/* fuzz-manifest.c — libFuzzer harness: dataset manifest (heatscope.json)
 * loading and validation, whole (hs_dataset_load) and incremental
 * (hs_dataset_open + hs_dataset_load_more in small batches).  The two
 * readers must agree: a manifest that loads whole streams to the same
 * number of instances without an error, and one that does not load whole
 * gives an error while streaming. */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("ds/heatscope.json", data, size);
  GPtrArray *problems = NULL;
  GError *error = NULL;
  GError *stream_error = NULL;
  HsDataset *dataset;
  HsDataset *stream;
  guint batch = 1 + size % 3;

  dataset = hs_dataset_load (path, &error);

  stream = hs_dataset_open (path, batch, &stream_error);
  while (stream != NULL && stream_error == NULL && !hs_dataset_is_complete (stream))
    {
      guint before = hs_dataset_get_n_instances (stream);

      if (!hs_dataset_load_more (stream, batch, &stream_error))
        break;
      if (hs_dataset_get_n_instances (stream) == before && !hs_dataset_is_complete (stream))
        g_error ("fuzz: hs_dataset_load_more made no progress at %u instances", before);
    }
  if (dataset != NULL && stream_error != NULL)
    g_error ("fuzz: the manifest loads whole but streaming fails: %s", stream_error->message);
  if (dataset != NULL && hs_dataset_get_n_instances (stream) != hs_dataset_get_n_instances (dataset))
    g_error ("fuzz: %u instances whole, %u streamed", hs_dataset_get_n_instances (dataset),
             hs_dataset_get_n_instances (stream));
  if (dataset != NULL)
    fuzz_accepted ();
  if (dataset == NULL && stream_error == NULL)
    g_error ("fuzz: streaming accepts a manifest the whole reader refuses: %s", error->message);

  g_clear_pointer (&stream, hs_dataset_unref);
  g_clear_pointer (&dataset, hs_dataset_unref);
  g_clear_error (&stream_error);
  g_clear_error (&error);
  (void) hs_dataset_validate (path, &problems);
  if (problems != NULL)
    g_ptr_array_unref (problems);
  return 0;
}
