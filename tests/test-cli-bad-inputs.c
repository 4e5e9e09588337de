/* test-cli-bad-inputs.c — the CLI on every crafted file of tests/bad-inputs/:
 * the exit status of expected.tsv (1 = refused) and, on stderr or stdout, a
 * message naming the file; for loaders whose error the CLI prints as is, the
 * exact message of expected.tsv.  Files no command reads have status "-". */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include "hs-test-util.h"

static char *bad_dir;
static char *out_dir;

typedef HsBadInput Case;   /* a row of expected.tsv */

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *path = g_build_filename (bad_dir, c->file, NULL);
  g_autofree char *good_map = g_build_filename (bad_dir, "good-map.npy", NULL);
  g_autofree char *good_image = g_build_filename (bad_dir, "outside", "secret.png", NULL);
  g_autofree char *output = g_build_filename (out_dir, "out", NULL);
  g_autofree char *npy_out = g_build_filename (out_dir, "map.npy", NULL);
  g_autofree char *images = g_build_filename (bad_dir, "outside", NULL);
  g_autofree char *links = g_build_filename (path, "links.csv", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *both = NULL;
  g_autofree char *with_dir = hs_test_replace (c->message, "@DIR@", bad_dir);
  g_autofree char *expected = hs_test_replace (with_dir, "@OUT@", output);
  g_autofree char *base = g_path_get_basename (path);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  gboolean exact = TRUE;
  int status = -1;

  g_ptr_array_add (argv, (char *) hs_test_cli ());
  if (strcmp (c->loader, "image") == 0)
    {
      const char *args[] = { "score", "--map", good_map, "--image", path, "--box", "0,0,1,1" };
      for (guint i = 0; i < G_N_ELEMENTS (args); i++)
        g_ptr_array_add (argv, (char *) args[i]);
    }
  else if (strcmp (c->loader, "npy") == 0 || strcmp (c->loader, "map") == 0)
    {
      const char *args[] = { "score", "--map", path, "--size", "4x3", "--box", "0,0,1,1" };
      for (guint i = 0; i < G_N_ELEMENTS (args); i++)
        g_ptr_array_add (argv, (char *) args[i]);
    }
  else if (strcmp (c->loader, "safetensors") == 0)
    {
      const char *args[] = { "attend", "--model", path, "--image", good_image, "--prompt", "left lung",
                             "--output", npy_out };
      for (guint i = 0; i < G_N_ELEMENTS (args); i++)
        g_ptr_array_add (argv, (char *) args[i]);
    }
  else if (g_str_has_prefix (c->loader, "manifest") || strcmp (c->loader, "validate") == 0)
    {
      /* validate lists problems in its own "FILE: JSONPATH: message" form */
      g_ptr_array_add (argv, "validate");
      g_ptr_array_add (argv, path);
      exact = FALSE;
    }
  else if (g_str_has_prefix (c->loader, "import-"))
    {
      g_ptr_array_add (argv, "import");
      g_ptr_array_add (argv, (char *) c->loader + strlen ("import-"));
      g_ptr_array_add (argv, path);
      if (strcmp (c->loader, "import-nih-bbox") == 0 || strcmp (c->loader, "import-coco") == 0 ||
          strcmp (c->loader, "import-imagenome") == 0)
        g_ptr_array_add (argv, images);
      /* a covid-seg folder may hold the links CSV of --links */
      if (strcmp (c->loader, "import-covid-seg") == 0 && g_file_test (links, G_FILE_TEST_EXISTS))
        {
          g_ptr_array_add (argv, "--links");
          g_ptr_array_add (argv, links);
        }
      g_ptr_array_add (argv, "--force");
      g_ptr_array_add (argv, "-o");
      g_ptr_array_add (argv, output);
    }
  else
    g_error ("no CLI command for loader %s", c->loader);
  g_ptr_array_add (argv, NULL);

  g_assert_true (hs_test_run ((const char * const *) argv->pdata, &out, &err, &status));
  both = g_strconcat (out, err, NULL);
  if (g_getenv ("HS_BAD_INPUTS_PRINT") != NULL)
    g_printerr ("%s\tstatus %d\n%s\n", c->file, status, both);
  g_assert_cmpint (status, ==, atoi (c->status));
  g_assert_nonnull (strstr (both, base));
  if (exact)
    g_assert_nonnull (strstr (both, expected));
  g_assert_null (strstr (both, "AddressSanitizer"));
  g_assert_null (strstr (both, "runtime error"));
  g_assert_null (strstr (both, "CRITICAL"));
}

int
main (int argc, char **argv)
{
  g_autoptr(GPtrArray) cases = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  bad_dir = hs_test_bad_inputs_dir ();
  out_dir = hs_test_make_tmpdir ();
  cases = hs_test_read_bad_inputs (bad_dir);
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = g_ptr_array_index (cases, i);
      g_autofree char *name = NULL;

      if (strcmp (c->status, "-") == 0)
        continue;                     /* no command reads this file */
      name = g_strdup_printf ("/hs/cli-bad-inputs/%s", c->file);
      g_test_add_data_func (name, c, test_case);
    }
  status = g_test_run ();
  g_free (bad_dir);
  g_free (out_dir);
  return status;
}
