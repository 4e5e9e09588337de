/* fuzz-annotation-jsonl.c — libFuzzer harness: annotation answers JSONL */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = fuzz_write ("answers.jsonl", data, size);
  GPtrArray *answers = NULL;
  GPtrArray *problems = NULL;
  GError *error = NULL;

  if (hs_annotation_load_answers (path, &answers, &problems, &error))
    {
      /* Accepted: at least one answer read (the rest may be skipped as problems). */
      if (answers != NULL && answers->len > 0)
        fuzz_accepted ();
      for (guint i = 0; answers != NULL && i < answers->len; i++)
        g_free (hs_annotation_answer_to_json (g_ptr_array_index (answers, i)));
    }
  if (answers != NULL)
    g_ptr_array_unref (answers);
  if (problems != NULL)
    g_ptr_array_unref (problems);
  g_clear_error (&error);
  return 0;
}
