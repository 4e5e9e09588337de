/* fuzz-replay.c — runs a libFuzzer harness without libFuzzer: main() calls
 * its LLVMFuzzerTestOneInput on every file named on the command line or
 * found (sorted) in a folder named there.  The normal suite builds each
 * harness with this driver (any compiler, no fuzzer runtime) and replays
 * tests/fuzz/regressions/TARGET/ — every input a fuzzer ever crashed on —
 * and the seed corpus tests/fuzz/corpus/TARGET/; `tools/test --sanitize`
 * does the same under ASan + UBSan.  Files are read at run time, so an
 * input added to a folder is replayed without reconfiguring. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
extern unsigned fuzz_n_accepted;   /* fuzz-util.h */

static guint n_inputs;

static void
replay_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize len = 0;
  uint8_t *copy;

  if (!g_file_get_contents (path, &contents, &len, &error))
    {
      fprintf (stderr, "fuzz-replay: %s\n", error->message);
      exit (1);
    }
  /* An exact-size copy, as libFuzzer passes it: a read one byte past the
   * end is a heap overflow ASan reports, not a read of the NUL that
   * g_file_get_contents adds. */
  copy = malloc (len > 0 ? len : 1);
  if (len > 0)
    memcpy (copy, contents, len);
  /* Said before, so that a crash's output names its input. */
  fprintf (stderr, "fuzz-replay: %s (%zu bytes)\n", path, (size_t) len);
  LLVMFuzzerTestOneInput (copy, len);
  free (copy);
  n_inputs++;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

static void
replay_dir (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) listing = g_dir_open (dir, 0, &error);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (listing == NULL)
    {
      fprintf (stderr, "fuzz-replay: %s\n", error->message);
      exit (1);
    }
  while ((name = g_dir_read_name (listing)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *path = g_ptr_array_index (names, i);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        replay_dir (path);
      else
        replay_file (path);
    }
}

int
main (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      const char *path = argv[i];

      /* --if-present=DIR: a target without regressions has no folder. */
      if (g_str_has_prefix (path, "--if-present="))
        {
          path += strlen ("--if-present=");
          if (!g_file_test (path, G_FILE_TEST_EXISTS))
            continue;
        }
      /* --seeds=DIR: a seed corpus, of which the parser must accept at least
       * one input; otherwise the fuzzer starts from inputs its parser
       * refuses at the first check (a stale corpus after a format change). */
      if (g_str_has_prefix (path, "--seeds="))
        {
          unsigned before = fuzz_n_accepted;
          guint inputs = n_inputs;

          path += strlen ("--seeds=");
          replay_dir (path);
          if (fuzz_n_accepted == before)
            {
              fprintf (stderr, "fuzz-replay: the parser accepts none of the %u seeds of %s (a stale corpus?"
                       " regenerate it with tests/fuzz/make-corpus.py)\n", n_inputs - inputs, path);
              return 1;
            }
          printf ("fuzz-replay: %u of the %u seeds of %s accepted\n", fuzz_n_accepted - before,
                  n_inputs - inputs, path);
          continue;
        }
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        replay_dir (path);
      else
        replay_file (path);
    }
  if (n_inputs == 0)
    {
      fprintf (stderr, "fuzz-replay: no input\n");
      return 1;
    }
  printf ("fuzz-replay: %u inputs, no crash\n", n_inputs);
  return 0;
}
