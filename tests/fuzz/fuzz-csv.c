/* fuzz-csv.c — libFuzzer harness: CSV reader */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  HsCsvReader *reader;
  GError *error = NULL;
  char **row;
  guint line = 0;

  fuzz_dir ();
  reader = hs_csv_reader_new_from_data ((const char *) data, size, "fuzz.csv");
  guint rows = 0;
  for (guint i = 0; i < 100000 && (row = hs_csv_reader_next (reader, &line, &error)) != NULL; i++)
    {
      (void) hs_csv_find_column (row, "Image Index");
      g_strfreev (row);
      rows++;
    }
  /* Accepted: read to the end without an error. */
  if (rows > 0 && error == NULL)
    fuzz_accepted ();
  g_clear_error (&error);
  hs_csv_reader_free (reader);
  return 0;
}
