/* fuzz-annotation-project.c — libFuzzer harness: annotation project file parsing */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  HsAnnotationProject *project;

  fuzz_dir ();
  project = hs_annotation_project_parse ((const char *) data, (gssize) size, "fuzz.json", &error);
  if (project != NULL)
    {
      fuzz_accepted ();
      hs_annotation_project_free (project);
    }
  g_clear_error (&error);
  return 0;
}
