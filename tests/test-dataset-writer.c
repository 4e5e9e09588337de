/* test-dataset-writer.c — the one locked, staged dataset writer
 * (hs-dataset-writer.h) through its writers: `heatscope-cli import`,
 * `heatscope-cli demo` and hs_dataset_save.
 *
 * Kills: `import --force` and `demo --force` over an existing dataset are
 * stopped (HS_TEST_STOP_AT, hs-stop-point.h) at every phase — lock taken,
 * each image, the manifest's three phases, staged whole, switched in —
 * and killed there; the folder then holds, file for file (SHA-256 of
 * every file), the old dataset or the new one, and validates; the next
 * writer removes what the killed one left.  Locks: a writer held at its
 * first phase makes a second one fail with "locked by another writer"; a
 * killed writer's lock blocks nobody.  Symlinks planted in the output are
 * never written through.  Nothing is timed: each kill lands where the
 * writer stopped itself. */
#include <heatscope/heatscope.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs-test-util.h"

#define N_IMAGES 8

/* ---- what is on disk ------------------------------------------------------------ */

static void
digest_into (GPtrArray *lines, const char *root, const char *rel)
{
  g_autofree char *dir = rel[0] ? g_build_filename (root, rel, NULL) : g_strdup (root);
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (listing);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *child_rel = rel[0] ? g_build_filename (rel, name, NULL) : g_strdup (name);
      g_autofree char *path = g_build_filename (root, child_rel, NULL);
      struct stat st;

      g_assert_cmpint (lstat (path, &st), ==, 0);
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (path, NULL);
          g_ptr_array_add (lines, g_strdup_printf ("%s -> %s", child_rel, target));
        }
      else if (S_ISDIR (st.st_mode))
        {
          g_ptr_array_add (lines, g_strdup_printf ("%s/", child_rel));
          digest_into (lines, root, child_rel);
        }
      else
        {
          g_autofree char *data = NULL;
          gsize len = 0;
          g_autofree char *sum = NULL;

          g_assert_true (g_file_get_contents (path, &data, &len, NULL));
          sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
          g_ptr_array_add (lines, g_strdup_printf ("%s %s", child_rel, sum));
        }
    }
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Every file below `dir` with its SHA-256 (symlinks as links), sorted:
 * equal strings mean the same dataset, file for file. */
static char *
tree_digest (const char *dir)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  digest_into (lines, dir, "");
  g_ptr_array_sort (lines, compare_strings);
  g_ptr_array_add (lines, NULL);
  return g_strjoinv ("\n", (char **) lines->pdata);
}

/* The names in `dir`, sorted, joined by spaces. */
static char *
list_names (const char *dir)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (listing);
  while ((name = g_dir_read_name (listing)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static gboolean
has_name_with_prefix (const char *dir, const char *prefix)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    if (g_str_has_prefix (name, prefix))
      return TRUE;
  return FALSE;
}

/* Runs argv expecting exit status 1 and `message` in its stderr. */
static void
run_fails (const char * const *argv, const char *message)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;

  g_assert_true (hs_test_run (argv, &out, &err, &status));
  if (status != 1 || strstr (err, message) == NULL)
    g_printerr ("status %d, stderr: %s", status, err);
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (err, message));
}

static void
assert_validates (const char *dir)
{
  const char *args[] = { dir, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = hs_test_run_cli ("validate", args, &out, &err);

  if (status != 0)
    g_printerr ("validate %s: %s%s", dir, out, err);
  g_assert_cmpint (status, ==, 0);
}

/* ---- two versions of a dataset ---------------------------------------------------- */

/* N_IMAGES images, the same names in both versions, different pixels, and
 * a COCO file boxing each. */
static void
write_coco_source (const char *dir, guint version)
{
  g_autoptr(GString) json = g_string_new ("{\"images\": [");
  g_autofree char *path = g_build_filename (dir, "coco.json", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  for (guint i = 0; i < N_IMAGES; i++)
    {
      g_autoptr(HsImage) image = hs_image_new (64, 48, 1, 8, &error);
      g_autofree char *name = g_strdup_printf ("img-%02u.png", i);
      g_autofree char *file = g_build_filename (dir, name, NULL);
      guint16 *pixels = hs_image_get_data (image);

      for (guint p = 0; p < 64 * 48; p++)
        pixels[p] = (guint16) ((p * (version + 3) + i * 7) % 251);
      g_assert_true (hs_image_save_png (image, file, &error));
      g_string_append_printf (json, "%s{\"id\": %u, \"file_name\": \"%s\", \"width\": 64, \"height\": 48}",
                              i ? ", " : "", i + 1, name);
    }
  g_string_append (json, "], \"annotations\": [");
  for (guint i = 0; i < N_IMAGES; i++)
    g_string_append_printf (json, "%s{\"id\": %u, \"image_id\": %u, \"category_id\": 1, "
                            "\"bbox\": [%u, 10, 20, 30]}", i ? ", " : "", i + 1, i + 1, 5 + version);
  g_string_append (json, "], \"categories\": [{\"id\": 1, \"name\": \"nodule\"}]}");
  g_assert_true (g_file_set_contents (path, json->str, -1, &error));
  g_assert_no_error (error);
}

typedef struct {
  char       *tmp;
  char       *parent;      /* holds only the dataset folder (and leftovers) */
  char       *out;         /* PARENT/out */
  const char *argv[2][16]; /* the writer of each version, --force */
  char       *digest[2];   /* each version's files */
} Fixture;

static void
fixture_clear (Fixture *fx)
{
  g_free (fx->tmp);
  g_free (fx->parent);
  g_free (fx->out);
  g_free (fx->digest[0]);
  g_free (fx->digest[1]);
}

/* `import coco --force` of two COCO sources into PARENT/out. */
static void
import_fixture (Fixture *fx)
{
  fx->tmp = hs_test_make_tmpdir ();
  fx->parent = g_build_filename (fx->tmp, "parent", NULL);
  fx->out = g_build_filename (fx->parent, "out", NULL);
  g_assert_cmpint (g_mkdir (fx->parent, 0755), ==, 0);
  for (guint v = 0; v < 2; v++)
    {
      g_autofree char *src = g_build_filename (fx->tmp, v ? "b" : "a", NULL);
      g_autofree char *json = g_build_filename (src, "coco.json", NULL);
      const char *argv[] = { hs_test_cli (), "import", "coco", g_intern_string (json),
                             g_intern_string (src), "--force", "-o", fx->out, NULL };

      write_coco_source (src, v);
      memcpy (fx->argv[v], argv, sizeof argv);
    }
}

/* `demo --force` of seeds 1 and 2 into PARENT/out (with --jobs JOBS). */
static void
demo_fixture_jobs (Fixture *fx, const char *jobs)
{
  fx->tmp = hs_test_make_tmpdir ();
  fx->parent = g_build_filename (fx->tmp, "parent", NULL);
  fx->out = g_build_filename (fx->parent, "out", NULL);
  g_assert_cmpint (g_mkdir (fx->parent, 0755), ==, 0);
  for (guint v = 0; v < 2; v++)
    {
      const char *argv[] = { hs_test_cli (), "demo", "--count", "2", "--size", "64", "--maps",
                             "simulated", "--seed", v ? "2" : "1", "--force", "--jobs", jobs,
                             fx->out, NULL };

      memcpy (fx->argv[v], argv, sizeof argv);
    }
}

static void
demo_fixture (Fixture *fx)
{
  demo_fixture_jobs (fx, "1");
}

/* Writes each version once and records its files. */
static void
fixture_record (Fixture *fx)
{
  for (guint v = 0; v < 2; v++)
    {
      hs_test_run_ok (fx->argv[v]);
      assert_validates (fx->out);
      fx->digest[v] = tree_digest (fx->out);
    }
  g_assert_cmpstr (fx->digest[0], !=, fx->digest[1]);
}

/* The folder is the whole version `v`, file for file, and validates. */
static void
assert_version (const Fixture *fx, guint v)
{
  g_autofree char *digest = tree_digest (fx->out);

  if (g_strcmp0 (digest, fx->digest[v]) != 0)
    g_printerr ("expected version %u, found:\n%s\n", v, digest);
  g_assert_cmpstr (digest, ==, fx->digest[v]);
  assert_validates (fx->out);
}

/* Version 0 in place and nothing else beside it (the writer removed what
 * the last killed one left). */
static void
restore_old (const Fixture *fx)
{
  g_autofree char *names = NULL;

  hs_test_run_ok (fx->argv[0]);
  assert_version (fx, 0);
  names = list_names (fx->parent);
  g_assert_cmpstr (names, ==, "out");
}

typedef struct {
  const char *stop_at;
  guint       version;   /* what the folder holds when stopped there (and killed) */
} Phase;

static void
kill_at_phases (Fixture *fx, const Phase *phases, guint n_phases)
{
  fixture_record (fx);
  for (guint i = 0; i < n_phases; i++)
    {
      GPid pid;

      restore_old (fx);
      pid = hs_test_run_to_stop (fx->argv[1], phases[i].stop_at);
      assert_version (fx, phases[i].version);
      hs_test_kill_stopped (pid);
      assert_version (fx, phases[i].version);
      /* The killed writer's staging folder (or the old dataset) is left
       * beside the target under a name nobody reads, with its lock file. */
      g_assert_true (has_name_with_prefix (fx->parent, ".out.staging-"));
      g_test_message ("killed at %s: version %u", phases[i].stop_at, phases[i].version);
    }
  /* The next writer cleans up and finishes. */
  hs_test_run_ok (fx->argv[1]);
  assert_version (fx, 1);
  {
    g_autofree char *names = list_names (fx->parent);
    g_assert_cmpstr (names, ==, "out");
  }
}

static void
test_kill_import (void)
{
  static const Phase phases[] = {
    { "dataset-locked@out:1", 0 },
    { "copy-image@img-00.png:1", 0 },
    { "copy-image@img-04.png:1", 0 },
    { "copy-image@img-07.png:1", 0 },
    { "atomic-partial@heatscope.json:1", 0 },
    { "atomic-before-rename@heatscope.json:1", 0 },
    { "atomic-after-rename@heatscope.json:1", 0 },
    { "dataset-before-publish@out:1", 0 },
    { "dataset-after-publish@out:1", 1 },
  };
  Fixture fx = { 0 };

  import_fixture (&fx);
  kill_at_phases (&fx, phases, G_N_ELEMENTS (phases));
  fixture_clear (&fx);
}

static void
test_kill_demo (void)
{
  static const Phase phases[] = {
    { "dataset-locked@out:1", 0 },
    { "staged-written@phantom-000000.png:1", 0 },
    { "staged-partial@phantom-000001.png:1", 0 },
    { "atomic-partial@heatscope.json:1", 0 },
    { "atomic-after-rename@heatscope.json:1", 0 },
    { "dataset-before-publish@out:1", 0 },
    { "dataset-after-publish@out:1", 1 },
  };
  Fixture fx = { 0 };

  demo_fixture (&fx);
  kill_at_phases (&fx, phases, G_N_ELEMENTS (phases));
  fixture_clear (&fx);
}

/* `demo --jobs 2`: killed while the workers write the second instance's
 * files (or the first's, whichever thread gets there) — written in place
 * and not yet synced, the staging folder being synced whole before the
 * switch — the old dataset is whole; the next run cleans up. */
static void
test_kill_demo_jobs (void)
{
  static const Phase phases[] = {
    { "staged-partial@phantom-000001.png:1", 0 },
    { "staged-written@phantom-000000.png:1", 0 },
    { "staged-written@phantom-000001-s1-sim-blind.npy:1", 0 },
    { "dataset-before-publish@out:1", 0 },
    { "dataset-after-publish@out:1", 1 },
  };
  Fixture fx = { 0 };

  demo_fixture_jobs (&fx, "2");
  kill_at_phases (&fx, phases, G_N_ELEMENTS (phases));
  fixture_clear (&fx);
}

/* A first write of the folder killed before its switch leaves no folder —
 * an import staged whole, a demo with an image written in place, not yet
 * synced; the next run writes it. */
static void
test_kill_first_write (void)
{
  for (guint kind = 0; kind < 2; kind++)
    {
      const char *stop = kind == 0 ? "dataset-before-publish@out:1"
                                   : "staged-written@phantom-000001.png:1";
      Fixture fx = { 0 };
      GPid pid;

      if (kind == 0)
        import_fixture (&fx);
      else
        demo_fixture (&fx);
      pid = hs_test_run_to_stop (fx.argv[0], stop);
      g_assert_false (g_file_test (fx.out, G_FILE_TEST_EXISTS));
      hs_test_kill_stopped (pid);
      g_assert_false (g_file_test (fx.out, G_FILE_TEST_EXISTS));
      g_assert_true (has_name_with_prefix (fx.parent, ".out.staging-"));
      hs_test_run_ok (fx.argv[0]);
      assert_validates (fx.out);
      {
        g_autofree char *names = list_names (fx.parent);
        g_assert_cmpstr (names, ==, "out");
      }
      fixture_clear (&fx);
    }
}

/* ---- locks -------------------------------------------------------------------------- */

static void
test_lock (void)
{
  g_autofree char *log = NULL;
  g_autoptr(GError) error = NULL;
  Fixture fx = { 0 };
  GPid pid;

  import_fixture (&fx);
  fixture_record (&fx);
  hs_test_run_ok (fx.argv[0]);

  /* The first writer holds the lock (stopped right after taking it); the
   * second fails at once, and the dataset is the first's old one. */
  log = g_build_filename (fx.tmp, "first.log", NULL);
  pid = hs_test_spawn_logged (fx.argv[1], NULL, NULL, "dataset-locked@out:1", log);
  hs_test_wait_stopped (pid, "dataset-locked@out:1", log);
  run_fails (fx.argv[1], "is locked by another writer");
  run_fails (fx.argv[0], "is locked by another writer");
  {
    const char *argv[] = { hs_test_cli (), "demo", "--count", "1", "--size", "64", "--maps",
                           "none", "--force", fx.out, NULL };
    run_fails (argv, "is locked by another writer");
  }
  /* A manifest-only update (the app's linked regions) waits for no one
   * either: it fails, naming the lock. */
  {
    g_autoptr(HsDataset) dataset = hs_dataset_load (fx.out, &error);

    g_assert_no_error (error);
    hs_dataset_set_description (dataset, "changed");
    g_assert_false (hs_dataset_save (dataset, &error));
    g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_LOCKED);
    g_clear_error (&error);
  }
  assert_version (&fx, 0);
  /* The first goes on and finishes. */
  hs_test_continue_stopped (pid, log);
  assert_version (&fx, 1);

  /* A lock held in this process (hs_dataset_lock_acquire) blocks the CLI
   * writers; once released, they run. */
  {
    g_autoptr(HsDatasetLock) lock = hs_dataset_lock_acquire (fx.out, &error);
    g_autoptr(HsDataset) dataset = NULL;
    g_autofree char *names = NULL;

    g_assert_no_error (error);
    run_fails (fx.argv[0], "is locked by another writer");
    dataset = hs_dataset_load (fx.out, &error);
    g_assert_no_error (error);
    hs_dataset_set_description (dataset, "linked");
    g_assert_true (hs_dataset_save_locked (dataset, lock, &error));
    g_assert_no_error (error);
    g_clear_pointer (&lock, hs_dataset_lock_release);
    names = list_names (fx.parent);
    g_assert_cmpstr (names, ==, "out");
    hs_dataset_set_description (dataset, "linked again");
    g_assert_true (hs_dataset_save (dataset, &error));
    g_assert_no_error (error);
    g_clear_pointer (&dataset, hs_dataset_unref);
    dataset = hs_dataset_load (fx.out, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (hs_dataset_get_description (dataset), ==, "linked again");
    assert_validates (fx.out);
  }
  hs_test_run_ok (fx.argv[0]);
  assert_version (&fx, 0);
  fixture_clear (&fx);
}

/* A writer killed while holding the lock blocks nobody: the kernel drops
 * a dead process's flock. */
static void
test_stale_lock (void)
{
  Fixture fx = { 0 };
  GPid pid;

  import_fixture (&fx);
  fixture_record (&fx);
  hs_test_run_ok (fx.argv[0]);
  pid = hs_test_run_to_stop (fx.argv[1], "dataset-locked@out:1");
  hs_test_kill_stopped (pid);
  {
    g_autofree char *lock = g_build_filename (fx.parent, ".out.lock", NULL);
    g_assert_true (g_file_test (lock, G_FILE_TEST_IS_REGULAR));
  }
  hs_test_run_ok (fx.argv[1]);
  assert_version (&fx, 1);
  {
    g_autofree char *names = list_names (fx.parent);
    g_assert_cmpstr (names, ==, "out");
  }
  fixture_clear (&fx);
}

/* The switch on a file system without RENAME_EXCHANGE renames the old
 * folder aside first: a kill between its two renames leaves no "out" but
 * ".out.old-*"; the next writer puts it back before anything else. */
static void
test_recover_aside (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDatasetWriter) writer = NULL;
  g_autofree char *aside = NULL, *staging = NULL, *names = NULL, *junk = NULL;
  Fixture fx = { 0 };

  import_fixture (&fx);
  fixture_record (&fx);
  aside = g_build_filename (fx.parent, ".out.old-a1b2c3", NULL);
  staging = g_build_filename (fx.parent, ".out.staging-Zz9Yy8", NULL);
  g_assert_cmpint (g_rename (fx.out, aside), ==, 0);
  g_assert_cmpint (g_mkdir (staging, 0755), ==, 0);
  junk = g_build_filename (staging, "images", NULL);
  g_assert_cmpint (g_mkdir (junk, 0755), ==, 0);
  hs_test_write_file (junk, "half.png", "half");

  writer = hs_dataset_writer_begin (fx.out, HS_DATASET_WRITE_REPLACE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (writer);
  assert_version (&fx, 1);
  g_clear_pointer (&writer, hs_dataset_writer_free);
  assert_version (&fx, 1);
  names = list_names (fx.parent);
  g_assert_cmpstr (names, ==, "out");
  fixture_clear (&fx);
}

/* ---- what the writers refuse -------------------------------------------------------- */

/* `demo` writes into an absent or empty folder; a dataset there is
 * replaced only with --force; a folder of other files never. */
static void
test_demo_refuses (void)
{
  Fixture fx = { 0 };
  g_autofree char *digest = NULL;
  g_autofree char *other = NULL;
  g_autofree char *other_digest = NULL;
  const char *no_force[] = { hs_test_cli (), "demo", "--count", "1", "--size", "64", "--maps",
                             "none", NULL, NULL };

  demo_fixture (&fx);
  fixture_record (&fx);
  no_force[8] = fx.out;
  digest = tree_digest (fx.out);
  run_fails (no_force, "a dataset is already there (use --force to replace it)");
  {
    g_autofree char *now = tree_digest (fx.out);
    g_assert_cmpstr (now, ==, digest);
  }

  other = g_build_filename (fx.tmp, "notes", NULL);
  hs_test_write_file (other, "thesis.txt", "three years of work");
  hs_test_write_file (other, "figures/plot.png", "not a dataset");
  other_digest = tree_digest (other);
  no_force[8] = other;
  run_fails (no_force, "the folder is not empty and holds no dataset");
  {
    const char *force[] = { hs_test_cli (), "demo", "--count", "1", "--size", "64", "--maps",
                            "none", "--force", other, NULL };
    run_fails (force, "the folder is not empty and holds no dataset");
  }
  {
    g_autofree char *now = tree_digest (other);
    g_assert_cmpstr (now, ==, other_digest);
  }

  /* An empty folder is written. */
  {
    g_autofree char *empty = g_build_filename (fx.tmp, "empty", NULL);

    g_assert_cmpint (g_mkdir (empty, 0755), ==, 0);
    no_force[8] = empty;
    hs_test_run_ok (no_force);
    assert_validates (empty);
  }
  fixture_clear (&fx);
}

/* Symlinks planted in the output folder (its images/, masks/ and maps/
 * folders) lead to a victim folder: the writer replaces the
 * folder and never writes through them; the victim is unchanged. */
static void
plant_symlinks (const Fixture *fx, const char *victim)
{
  static const char *const names[] = { "images", "masks", "maps" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (fx->out, names[i], NULL);
      g_autofree char *moved = g_strconcat (path, ".orig", NULL);

      if (g_file_test (path, G_FILE_TEST_EXISTS))
        g_assert_cmpint (g_rename (path, moved), ==, 0);
      g_assert_cmpint (symlink (victim, path), ==, 0);
    }
  /* A symlink where the staging folder's and the lock file's names would
   * be is not followed either. */
  {
    g_autofree char *stale = g_build_filename (fx->parent, ".out.staging-planted", NULL);
    g_assert_cmpint (symlink (victim, stale), ==, 0);
  }
}

static void
symlinks_case (Fixture *fx)
{
  g_autofree char *victim = g_build_filename (fx->tmp, "victim", NULL);
  g_autofree char *victim_digest = NULL;
  g_autofree char *names = NULL;

  hs_test_write_file (victim, "keep.txt", "not yours");
  hs_test_write_file (victim, "phantom-000000.png", "not yours either");
  hs_test_write_file (victim, "img-00.png", "nor this");
  victim_digest = tree_digest (victim);
  fixture_record (fx);
  plant_symlinks (fx, victim);
  hs_test_run_ok (fx->argv[0]);
  {
    g_autofree char *now = tree_digest (victim);
    g_assert_cmpstr (now, ==, victim_digest);
  }
  assert_version (fx, 0);
  names = list_names (fx->parent);
  g_assert_cmpstr (names, ==, "out");

  /* The output folder itself a symlink: refused, nothing written there. */
  {
    g_autofree char *real = g_build_filename (fx->tmp, "real-out", NULL);
    g_autofree char *before = NULL;

    g_assert_cmpint (g_rename (fx->out, real), ==, 0);
    g_assert_cmpint (symlink (real, fx->out), ==, 0);
    before = tree_digest (real);
    g_autofree char *after = NULL;

    run_fails (fx->argv[1], "is a symbolic link");
    after = tree_digest (real);
    g_assert_cmpstr (after, ==, before);
  }
}

static void
test_symlinks_import (void)
{
  Fixture fx = { 0 };

  import_fixture (&fx);
  symlinks_case (&fx);
  fixture_clear (&fx);
}

static void
test_symlinks_demo (void)
{
  Fixture fx = { 0 };

  demo_fixture (&fx);
  symlinks_case (&fx);
  fixture_clear (&fx);
}

/* The app's save of linked regions (hs_dataset_save) after another writer
 * replaced the dataset since it was opened: refused, the other writer's
 * dataset left whole (else its images under this manifest: a mix that
 * validate would take for the first dataset's files changed). */
static void
test_replaced_since_load (void)
{
  Fixture fx = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsDataset) again = NULL;
  g_autofree char *digest = NULL;

  demo_fixture (&fx);
  hs_test_run_ok (fx.argv[0]);
  dataset = hs_dataset_load (fx.out, &error);
  g_assert_no_error (error);
  /* saving twice in a row is fine: its own write is what it holds now */
  hs_dataset_set_description (dataset, "mine");
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  hs_dataset_set_description (dataset, "mine again");
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);

  /* another writer (demo --force, seed 2) replaces the dataset */
  hs_test_run_ok (fx.argv[1]);
  digest = tree_digest (fx.out);
  hs_dataset_set_description (dataset, "linked");
  g_assert_false (hs_dataset_save (dataset, &error));
  g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, "another writer replaced the dataset since it was opened"));
  g_clear_error (&error);
  {
    g_autofree char *now = tree_digest (fx.out);
    g_assert_cmpstr (now, ==, digest);
  }
  assert_validates (fx.out);
  /* opened again, it saves */
  again = hs_dataset_load (fx.out, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (again), ==, 2);
  hs_dataset_set_description (again, "linked");
  g_assert_true (hs_dataset_save (again, &error));
  g_assert_no_error (error);
  fixture_clear (&fx);
}

/* The manifest replaced by a symlink since the dataset was loaded: to
 * another writer's manifest (a different file), and to the very file it was
 * (moved aside: the same device, inode, size and mtime behind the link) —
 * the saved stamp is the path's own (hs_file_stamp_get_no_follow), so both
 * are refused and nothing is written through or over the link. */
static void
test_replaced_by_symlink (void)
{
  Fixture fx = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *manifest = NULL, *other = NULL, *aside = NULL, *link = NULL;

  demo_fixture (&fx);
  hs_test_run_ok (fx.argv[0]);
  manifest = g_build_filename (fx.out, "heatscope.json", NULL);
  other = g_build_filename (fx.tmp, "other.json", NULL);
  aside = g_build_filename (fx.out, "aside.json", NULL);
  link = g_build_filename (fx.out, "link.json", NULL);
  for (guint to_same = 0; to_same < 2; to_same++)
    {
      g_autoptr(HsDataset) dataset = hs_dataset_load (fx.out, &error);
      g_autofree char *contents = NULL, *digest = NULL;
      gsize length = 0;

      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (manifest, &contents, &length, NULL));
      if (to_same)
        {
          /* the file itself moved aside, a link to it in its place */
          g_assert_cmpint (g_rename (manifest, aside), ==, 0);
          g_assert_cmpint (symlink ("aside.json", link), ==, 0);
        }
      else
        {
          /* another writer's manifest, byte for byte this one but a file of its own */
          g_assert_true (g_file_set_contents (other, contents, (gssize) length, NULL));
          g_assert_cmpint (symlink (other, link), ==, 0);
        }
      g_assert_cmpint (g_rename (link, manifest), ==, 0);
      digest = tree_digest (fx.tmp);
      hs_dataset_set_description (dataset, "linked");
      g_assert_false (hs_dataset_save (dataset, &error));
      g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_EXISTS);
      g_assert_nonnull (strstr (error->message, "another writer replaced the dataset since it was opened"));
      g_clear_error (&error);
      {
        g_autofree char *now = tree_digest (fx.tmp);
        g_assert_cmpstr (now, ==, digest);
      }
      /* the manifest a file again for the next case */
      g_assert_cmpint (g_unlink (manifest), ==, 0);
      g_assert_true (g_file_set_contents (manifest, contents, (gssize) length, NULL));
      g_unlink (aside);
      g_unlink (other);
    }
  fixture_clear (&fx);
}

static char *
file_digest (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &data, &len, &error));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
}

/* `import npy-folder` attaches maps to the dataset in place (under its lock):
 * a map that replaces a recorded one is written under a new name, so a kill
 * after the map and before the manifest leaves the old dataset whole — the
 * manifest and every file it records unchanged, `validate` clean — and the
 * next run attaches it. */
static void
write_map_npy (const char *path, double scale)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  double values[64 * 64];

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    values[i] = scale * i;
  map = hs_attention_map_new (1, 64, 64, values, &error);
  g_assert_no_error (error);
  g_assert_true (hs_attention_map_save_npy (map, path, FALSE, &error));
  g_assert_no_error (error);
}

static void
test_kill_npy_folder (void)
{
  Fixture fx = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsDataset) attached = NULL;
  g_autoptr(HsDataset) after = NULL;
  g_autofree char *maps = NULL, *npy = NULL, *manifest = NULL, *manifest_digest = NULL;
  g_autofree char *old_file = NULL, *old_digest = NULL, *name = NULL;
  g_autofree char *model = NULL, *query = NULL, *id = NULL;
  g_autofree char *stop_partial = NULL, *stop_map = NULL;
  HsMapRef *ref;
  const char *argv[7];

  demo_fixture (&fx);
  hs_test_run_ok (fx.argv[0]);
  dataset = hs_dataset_load (fx.out, &error);
  g_assert_no_error (error);
  ref = g_ptr_array_index (hs_dataset_get_instance (dataset, 0)->maps, 0);
  model = g_strdup (ref->model);
  query = g_strdup (ref->query);
  id = g_strdup (hs_dataset_get_instance (dataset, 0)->id);

  /* a first attach writes maps/MODEL/ID__QUERY.npy and records it */
  maps = g_build_filename (fx.tmp, "maps", NULL);
  g_assert_cmpint (g_mkdir (maps, 0755), ==, 0);
  name = g_strdup_printf ("%s__%s__%s.npy", id, model, query);
  npy = g_build_filename (maps, name, NULL);
  write_map_npy (npy, 1.0);
  {
    const char *args[] = { hs_test_cli (), "import", "npy-folder", maps, "-o", fx.out, NULL };
    memcpy (argv, args, sizeof args);
  }
  hs_test_run_ok (argv);
  assert_validates (fx.out);
  attached = hs_dataset_load (fx.out, &error);
  g_assert_no_error (error);
  ref = hs_instance_find_map (hs_dataset_find_instance (attached, id), model, query);
  g_assert_nonnull (ref);
  old_file = g_build_filename (fx.out, ref->file, NULL);
  old_digest = file_digest (old_file);
  manifest = g_build_filename (fx.out, "heatscope.json", NULL);
  manifest_digest = file_digest (manifest);
  {
    g_autofree char *base = g_path_get_basename (ref->file);
    g_autofree char *stem = g_strndup (base, strlen (base) - 4);
    stop_partial = g_strdup_printf ("atomic-partial@%s~2.npy:1", stem);
    stop_map = g_strdup_printf ("atomic-after-rename@%s~2.npy:1", stem);
  }

  /* a second attach replaces it; killed with the new map half written, the
   * new map whole, the new manifest whole before its rename */
  write_map_npy (npy, 2.0);
  {
    const char *stops[] = { stop_partial, stop_map, "atomic-before-rename@heatscope.json:1" };

    for (guint i = 0; i < G_N_ELEMENTS (stops); i++)
      {
        GPid pid = hs_test_run_to_stop (argv, stops[i]);

        hs_test_kill_stopped (pid);
        {
          g_autofree char *now = file_digest (manifest);
          g_autofree char *old_now = file_digest (old_file);
          g_assert_cmpstr (now, ==, manifest_digest);
          g_assert_cmpstr (old_now, ==, old_digest);
        }
        assert_validates (fx.out);
        g_test_message ("npy-folder killed at %s: the old dataset", stops[i]);
      }
  }
  hs_test_run_ok (argv);
  assert_validates (fx.out);
  after = hs_dataset_load (fx.out, &error);
  g_assert_no_error (error);
  ref = hs_instance_find_map (hs_dataset_find_instance (after, id), model, query);
  g_assert_nonnull (ref);
  /* a new name (the killed runs left ~2 and ~3 unreferenced) */
  g_assert_true (g_str_has_suffix (ref->file, "~4.npy"));
  {
    g_autoptr(HsAttentionMap) map = hs_dataset_load_map (after, ref, &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (hs_attention_map_peek_values (map)[7], ==, 14.0);
  }
  fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/dataset-writer/kill-import", test_kill_import);
  g_test_add_func ("/hs/dataset-writer/kill-demo", test_kill_demo);
  g_test_add_func ("/hs/dataset-writer/kill-demo-jobs", test_kill_demo_jobs);
  g_test_add_func ("/hs/dataset-writer/kill-first-write", test_kill_first_write);
  g_test_add_func ("/hs/dataset-writer/lock", test_lock);
  g_test_add_func ("/hs/dataset-writer/stale-lock", test_stale_lock);
  g_test_add_func ("/hs/dataset-writer/recover-aside", test_recover_aside);
  g_test_add_func ("/hs/dataset-writer/demo-refuses", test_demo_refuses);
  g_test_add_func ("/hs/dataset-writer/replaced-since-load", test_replaced_since_load);
  g_test_add_func ("/hs/dataset-writer/replaced-by-symlink", test_replaced_by_symlink);
  g_test_add_func ("/hs/dataset-writer/kill-npy-folder", test_kill_npy_folder);
  g_test_add_func ("/hs/dataset-writer/symlinks-import", test_symlinks_import);
  g_test_add_func ("/hs/dataset-writer/symlinks-demo", test_symlinks_demo);
  return g_test_run ();
}
