/* test-kill-writes.c — "an interrupted write leaves the old file intact",
 * by killing writers with SIGKILL while they write:
 *   exports: `heatscope-cli render` to PNG, SVG and PDF (the app's
 *     File → Export calls the same hs_figure_save through hs_canvas_export);
 *   datasets written by import: `heatscope-cli import coco --force` over a
 *     dataset imported before (manifest and copied images);
 *   maps and images the library writes (hs_npy_write, hs_image_save_png:
 *     demo, attend -o, import masks), in a child process that writes in a
 *     loop.
 *   settings: GSettings with the dconf backend on a private D-Bus, whose
 *     dconf-service (the process that writes the settings file) is killed
 *     while it writes.
 * Annotations are killed mid-save in test-annotation.c (see
 * docs/reliability.md).
 *
 * A writer is killed the moment the parent sees its temporary file beside
 * the target (so the kill lands between the temporary file's creation and
 * the rename); after each kill the target is byte-identical to the old or
 * to the new version and parses, and no temporary file has the real name. */
#include <heatscope/heatscope.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hs-test-util.h"

#define MAX_ROUNDS 40
#define WANTED_KILLS 3

static char *demo_root;   /* a 2-instance demo dataset */
static char *instance_a, *instance_b, *query_a, *query_b;

/* ---- killing ------------------------------------------------------------- */

/* A temporary file of a writer of `name`: "NAME.XXXXXX" (g_file_set_contents)
 * or "NAME.import-PID~" (import's image copies), never NAME itself. */
static gboolean
is_temp_of (const char *entry, const char *name)
{
  gsize n = strlen (name);

  if (name[0] == '*')
    return strstr (entry, ".import-") != NULL && g_str_has_suffix (entry, "~");
  return strncmp (entry, name, n) == 0 && entry[n] == '.' && strlen (entry) > n + 1;
}

static gboolean
temp_present (const char * const *dirs, const char *name)
{
  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autoptr(GDir) dir = g_dir_open (dirs[i], 0, NULL);
      const char *entry;

      while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
        if (is_temp_of (entry, name))
          return TRUE;
    }
  return FALSE;
}

/* Waits for `pid`, killing it with SIGKILL as soon as a temporary file of
 * `name` shows up in one of `dirs`.  TRUE when it was killed (mid-write),
 * FALSE when it exited by itself first. */
static gboolean
kill_when_writing (GPid pid, const char * const *dirs, const char *name)
{
  int status = 0;

  for (;;)
    {
      pid_t done = waitpid (pid, &status, WNOHANG);

      g_assert_cmpint (done, >=, 0);
      if (done == pid)
        {
          g_assert_true (WIFEXITED (status));
          g_assert_cmpint (WEXITSTATUS (status), ==, 0);
          return FALSE;
        }
      if (temp_present (dirs, name))
        {
          kill (pid, SIGKILL);
          g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
          /* it may have finished the write just before the signal */
          g_assert_true ((WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL) ||
                         (WIFEXITED (status) && WEXITSTATUS (status) == 0));
          return WIFSIGNALED (status);
        }
    }
}

static GPid
spawn (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  GPid pid = 0;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                                G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  return pid;
}

static GBytes *
read_bytes (const char *path)
{
  char *data = NULL;
  gsize length = 0;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &data, &length, &error));
  g_assert_no_error (error);
  return g_bytes_new_take (data, length);
}

static void
run_cli (const char * const *argv)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;

  g_assert_true (hs_test_run (argv, &out, &err, &status));
  if (status != 0)
    g_printerr ("%s", err);
  g_assert_cmpint (status, ==, 0);
}

/* ---- exports: heatscope-cli render --------------------------------------- */

static void
render (const char *instance, const char *query, const char *out)
{
  const char *argv[] = { hs_test_cli (), "render", demo_root, "--instance", instance,
                         "--query", query, "--size", "512", "-o", out, NULL };
  run_cli (argv);
}

/* PDFs carry their creation time: equal up to the CreationDate entry. */
static gboolean
same_figure (GBytes *a, GBytes *b, gboolean pdf)
{
  gsize na, nb;
  const char *da = g_bytes_get_data (a, &na), *db = g_bytes_get_data (b, &nb);
  const char *ca, *cb;

  if (!pdf)
    return g_bytes_equal (a, b);
  if (na != nb)
    return FALSE;
  ca = g_strstr_len (da, na, "/CreationDate (");
  cb = g_strstr_len (db, nb, "/CreationDate (");
  if (ca == NULL || cb == NULL)
    return memcmp (da, db, na) == 0;
  return ca - da == cb - db && memcmp (da, db, ca - da) == 0 &&
         memcmp (ca + 40, cb + 40, na - (ca - da) - 40) == 0;
}

static void
test_render (gconstpointer data)
{
  const char *ext = data;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *name = g_strdup_printf ("figure.%s", ext);
  g_autofree char *target = g_build_filename (dir, name, NULL);
  g_autofree char *ref_dir = hs_test_make_tmpdir ();
  g_autofree char *ref_a = g_strdup_printf ("%s/a.%s", ref_dir, ext);
  g_autofree char *ref_b = g_strdup_printf ("%s/b.%s", ref_dir, ext);
  g_autoptr(GBytes) a = NULL;
  g_autoptr(GBytes) b = NULL;
  const char *dirs[] = { dir, NULL };
  gboolean pdf = strcmp (ext, "pdf") == 0;
  guint kills = 0, rounds;

  if (demo_root == NULL)
    return;
  render (instance_a, query_a, ref_a);
  render (instance_b, query_b, ref_b);
  a = read_bytes (ref_a);
  b = read_bytes (ref_b);
  g_assert_false (same_figure (a, b, pdf));

  for (rounds = 0; rounds < MAX_ROUNDS && kills < WANTED_KILLS; rounds++)
    {
      const char *argv[] = { hs_test_cli (), "render", demo_root, "--instance", instance_b,
                             "--query", query_b, "--size", "512", "-o", target, NULL };
      g_autoptr(GBytes) got = NULL;

      g_assert_true (g_file_set_contents (target, g_bytes_get_data (a, NULL), g_bytes_get_size (a), NULL));
      if (kill_when_writing (spawn (argv), dirs, name))
        kills++;
      got = read_bytes (target);
      g_assert_true (same_figure (got, a, pdf) || same_figure (got, b, pdf));
    }
  g_test_message ("render %s: %u rounds, %u killed mid-write", ext, rounds, kills);
  g_assert_cmpuint (kills, >=, 1);
}

/* ---- datasets written by import ------------------------------------------ */

/* 24 images, the same names in both versions, different pixels, and a COCO
 * file boxing each. */
static void
write_coco_source (const char *dir, guint version)
{
  g_autoptr(GString) json = g_string_new ("{\"images\": [");
  g_autofree char *path = g_build_filename (dir, "coco.json", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  for (guint i = 0; i < 24; i++)
    {
      g_autoptr(HsImage) image = hs_image_new (96, 80, 1, 8, &error);
      g_autofree char *name = g_strdup_printf ("img-%02u.png", i);
      g_autofree char *file = g_build_filename (dir, name, NULL);
      guint16 *pixels = hs_image_get_data (image);

      for (guint p = 0; p < 96 * 80; p++)
        pixels[p] = (guint16) ((p * (version + 3) + i * 7) % 251);
      g_assert_true (hs_image_save_png (image, file, &error));
      g_string_append_printf (json, "%s{\"id\": %u, \"file_name\": \"%s\", \"width\": 96, \"height\": 80}",
                              i ? ", " : "", i + 1, name);
    }
  g_string_append (json, "], \"annotations\": [");
  for (guint i = 0; i < 24; i++)
    g_string_append_printf (json, "%s{\"id\": %u, \"image_id\": %u, \"category_id\": 1, "
                            "\"bbox\": [%u, 10, 20, 30]}", i ? ", " : "", i + 1, i + 1, 5 + version);
  g_string_append (json, "], \"categories\": [{\"id\": 1, \"name\": \"nodule\"}]}");
  g_assert_true (g_file_set_contents (path, json->str, -1, &error));
  g_assert_no_error (error);
}

static void
assert_dataset_whole (const char *out, const char *src_a, const char *src_b)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = hs_dataset_load (out, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 24);
  for (guint i = 0; i < 24; i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      g_autofree char *base = g_path_get_basename (instance->image);
      g_autofree char *in_a = g_build_filename (src_a, base, NULL);
      g_autofree char *in_b = g_build_filename (src_b, base, NULL);
      g_autofree char *copy = g_build_filename (out, instance->image, NULL);
      g_autoptr(GBytes) got = read_bytes (copy);
      g_autoptr(GBytes) a = read_bytes (in_a);
      g_autoptr(GBytes) b = read_bytes (in_b);
      g_autoptr(HsImage) image = hs_dataset_load_image (dataset, instance, &error);

      g_assert_no_error (error);
      g_assert_nonnull (image);
      g_assert_true (g_bytes_equal (got, a) || g_bytes_equal (got, b));
    }
}

static void
test_import (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *src_a = g_build_filename (tmp, "a", NULL);
  g_autofree char *src_b = g_build_filename (tmp, "b", NULL);
  g_autofree char *json_a = g_build_filename (src_a, "coco.json", NULL);
  g_autofree char *json_b = g_build_filename (src_b, "coco.json", NULL);
  g_autofree char *out = g_build_filename (tmp, "out", NULL);
  g_autofree char *images = g_build_filename (out, "images", NULL);
  const char *first[] = { hs_test_cli (), "import", "coco", json_a, src_a, "-o", out, NULL };
  guint manifest_kills = 0, image_kills = 0, rounds;

  write_coco_source (src_a, 0);
  write_coco_source (src_b, 1);
  run_cli (first);
  assert_dataset_whole (out, src_a, src_a);

  /* Killed while writing the manifest, then while copying images. */
  for (rounds = 0; rounds < 2 * MAX_ROUNDS && (manifest_kills < WANTED_KILLS || image_kills < 1); rounds++)
    {
      const char *argv[] = { hs_test_cli (), "import", "coco", rounds % 2 ? json_a : json_b,
                             rounds % 2 ? src_a : src_b, "--force", "-o", out, NULL };
      const char *manifest_dirs[] = { out, NULL };
      const char *image_dirs[] = { images, NULL };

      if (manifest_kills < WANTED_KILLS && (image_kills >= 1 || rounds % 3 != 0))
        manifest_kills += kill_when_writing (spawn (argv), manifest_dirs, HS_DATASET_MANIFEST);
      else
        image_kills += kill_when_writing (spawn (argv), image_dirs, "*");
      assert_dataset_whole (out, src_a, src_b);
    }
  g_test_message ("import: %u rounds, %u killed writing the manifest, %u copying images",
                  rounds, manifest_kills, image_kills);
  g_assert_cmpuint (manifest_kills, >=, 1);
  g_assert_cmpuint (image_kills, >=, 1);
}

/* ---- maps and images written by the library ------------------------------ */

static void
write_version (const char *kind, const char *path, guint version)
{
  g_autoptr(GError) error = NULL;

  if (strcmp (kind, "npy") == 0)
    {
      gsize shape[3] = { 4, 64, 64 };
      g_autofree double *values = g_new (double, 4 * 64 * 64);

      for (guint i = 0; i < 4 * 64 * 64; i++)
        values[i] = (double) ((i * (version + 2)) % 97) / 97.0;
      g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT32, 3, shape, values, FALSE, FALSE, &error));
    }
  else
    {
      g_autoptr(HsImage) image = hs_image_new (512, 512, 1, 16, &error);
      guint16 *pixels = hs_image_get_data (image);

      for (guint p = 0; p < 512 * 512; p++)
        pixels[p] = (guint16) ((p * (version + 5)) % 65521);
      g_assert_true (hs_image_save_png (image, path, &error));
    }
  g_assert_no_error (error);
}

static void
assert_parses (const char *kind, const char *path)
{
  g_autoptr(GError) error = NULL;

  if (strcmp (kind, "npy") == 0)
    {
      HsNdArray *array = hs_npy_read (path, &error);
      g_assert_no_error (error);
      hs_nd_array_free (array);
    }
  else
    {
      g_autoptr(HsImage) image = hs_image_load (path, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (hs_image_get_width (image), ==, 512);
    }
}

static void
test_library (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *name = g_strdup_printf ("file.%s", strcmp (kind, "npy") == 0 ? "npy" : "png");
  g_autofree char *target = g_build_filename (dir, name, NULL);
  g_autofree char *ref_dir = hs_test_make_tmpdir ();
  g_autofree char *ref_a = g_build_filename (ref_dir, "a", NULL);
  g_autofree char *ref_b = g_build_filename (ref_dir, "b", NULL);
  g_autoptr(GBytes) a = NULL;
  g_autoptr(GBytes) b = NULL;
  const char *dirs[] = { dir, NULL };
  guint kills = 0, rounds;

  write_version (kind, ref_a, 0);
  write_version (kind, ref_b, 1);
  a = read_bytes (ref_a);
  b = read_bytes (ref_b);
  g_assert_false (g_bytes_equal (a, b));

  for (rounds = 0; rounds < MAX_ROUNDS && kills < WANTED_KILLS; rounds++)
    {
      g_autoptr(GBytes) got = NULL;
      pid_t pid;

      write_version (kind, target, rounds % 2);
      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          /* The child writes the other version, again and again. */
          for (guint k = 1;; k++)
            write_version (kind, target, (rounds + k) % 2);
        }
      /* Let it finish a few writes first: killed at some later one. */
      g_usleep (g_random_int_range (1000, 20000));
      if (kill_when_writing (pid, dirs, name))
        kills++;
      got = read_bytes (target);
      g_assert_true (g_bytes_equal (got, a) || g_bytes_equal (got, b));
      assert_parses (kind, target);
    }
  g_test_message ("%s: %u rounds, %u killed mid-write", kind, rounds, kills);
  g_assert_cmpuint (kills, >=, 1);
}

/* ---- settings: GSettings through dconf --------------------------------- */

static void
own_process_group (gpointer data)
{
  setpgid (0, 0);
}

/* The dconf-service D-Bus started for the bus whose process group is
 * `group` (it double-forks, so it is found by group, not by parent). */
static pid_t
find_dconf_service (pid_t group)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *entry;

  while (proc != NULL && (entry = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *comm_path = g_build_filename ("/proc", entry, "comm", NULL);
      g_autofree char *comm = NULL;
      pid_t pid = (pid_t) atoi (entry);

      if (pid <= 0 || getpgid (pid) != group)
        continue;
      if (g_file_get_contents (comm_path, &comm, NULL, NULL) && g_str_has_prefix (comm, "dconf-service"))
        return pid;
    }
  return 0;
}

static char *
settings_get (char **env)
{
  const char *argv[] = { "gsettings", "get", "org.heatscope.Heatscope", "last-dataset", NULL };
  g_autofree char *out = NULL;
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_strstrip (g_steal_pointer (&out));
}

/* A writer sets the "last-dataset" key again and again through gsettings
 * (GSETTINGS_BACKEND=dconf on a private session bus); dconf-service, which
 * writes the settings file, is killed as soon as its temporary file shows
 * up.  The file is still a whole GVDB file that a new reader reads one of
 * the written values from. */
static void
test_settings (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *config = g_build_filename (tmp, "config", NULL);
  g_autofree char *dconf_dir = g_build_filename (config, "dconf", NULL);
  g_autofree char *user_db = g_build_filename (dconf_dir, "user", NULL);
  g_autofree char *runtime = g_build_filename (tmp, "run", NULL);
  g_autofree char *bus = g_strdup_printf ("unix:path=%s/bus", tmp);
  g_autofree char *bus_arg = g_strdup_printf ("--address=%s", bus);
  g_autofree char *schemas = g_build_filename (g_getenv ("HS_BUILD_DIR") ? g_getenv ("HS_BUILD_DIR") : ".",
                                               "data", NULL);
  g_autofree char *compiled = g_build_filename (schemas, "gschemas.compiled", NULL);
  const char *daemon_argv[] = { "dbus-daemon", "--session", "--nofork", bus_arg, NULL };
  const char *writer_argv[] = { "sh", "-c", "i=0; while :; do i=$((i+1)); "
                                "gsettings set org.heatscope.Heatscope last-dataset \"/v/$i\" || exit 1; done",
                                NULL };
  const char *dirs[] = { dconf_dir, NULL };
  g_auto(GStrv) env = NULL;
  g_autoptr(GError) error = NULL;
  GPid daemon = 0, writer = 0;
  guint kills = 0, rounds;

  g_autofree char *have_daemon = g_find_program_in_path ("dbus-daemon");
  g_autofree char *have_gsettings = g_find_program_in_path ("gsettings");

  if (have_daemon == NULL || have_gsettings == NULL ||
      !g_file_test ("/usr/libexec/dconf-service", G_FILE_TEST_IS_EXECUTABLE) ||
      !g_file_test (compiled, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("needs dbus-daemon, gsettings, dconf-service and the compiled schema");
      return;
    }
  g_assert_cmpint (g_mkdir_with_parents (config, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (runtime, 0700), ==, 0);
  env = g_get_environ ();
  env = g_environ_setenv (env, "HOME", tmp, TRUE);
  env = g_environ_setenv (env, "XDG_CONFIG_HOME", config, TRUE);
  env = g_environ_setenv (env, "XDG_RUNTIME_DIR", runtime, TRUE);
  env = g_environ_setenv (env, "DBUS_SESSION_BUS_ADDRESS", bus, TRUE);
  env = g_environ_setenv (env, "GSETTINGS_BACKEND", "dconf", TRUE);
  env = g_environ_setenv (env, "GSETTINGS_SCHEMA_DIR", schemas, TRUE);

  g_assert_true (g_spawn_async (NULL, (char **) daemon_argv, env,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                                G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                                own_process_group, NULL, &daemon, &error));
  g_assert_no_error (error);
  {
    /* the first write starts dconf-service and creates the file */
    g_autofree char *socket = g_build_filename (tmp, "bus", NULL);
    const char *first[] = { "gsettings", "set", "org.heatscope.Heatscope", "last-dataset", "/v/0", NULL };
    int status = -1;

    while (!g_file_test (socket, G_FILE_TEST_EXISTS))
      g_usleep (1000);
    g_assert_true (g_spawn_sync (NULL, (char **) first, env, G_SPAWN_SEARCH_PATH, NULL, NULL,
                                 NULL, NULL, &status, NULL));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  g_assert_true (g_spawn_async (NULL, (char **) writer_argv, env,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                                G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                                own_process_group, NULL, &writer, &error));
  g_assert_no_error (error);

  for (rounds = 0; rounds < MAX_ROUNDS && kills < WANTED_KILLS; rounds++)
    {
      g_autofree char *value = NULL;
      g_autofree char *header = NULL;
      gsize length = 0;
      pid_t service = 0;

      /* Wait for a write in progress, then kill its writer. */
      while (!temp_present (dirs, "user"))
        g_assert_cmpint (waitpid (writer, NULL, WNOHANG), ==, 0);
      service = find_dconf_service (daemon);
      if (service > 0 && kill (service, SIGKILL) == 0)
        kills++;

      g_assert_true (g_file_get_contents (user_db, &header, &length, NULL));
      g_assert_cmpuint (length, >=, 24);
      g_assert_true (memcmp (header, "GVariant", 8) == 0);
      value = settings_get (env);
      g_assert_true (g_str_has_prefix (value, "'/v/") && g_str_has_suffix (value, "'"));
    }
  g_test_message ("settings: %u rounds, dconf-service killed %u times while writing", rounds, kills);

  kill (-writer, SIGKILL);
  kill (-daemon, SIGKILL);   /* the bus and the dconf-service it started */
  waitpid (writer, NULL, 0);
  waitpid (daemon, NULL, 0);
  g_spawn_close_pid (writer);
  g_spawn_close_pid (daemon);
  g_assert_cmpuint (kills, >=, 1);
}

/* ---- setup ----------------------------------------------------------------- */

static void
make_demo (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *first, *second;
  HsSentence *sa, *sb;
  const char *argv[] = { hs_test_cli (), "demo", "--count", "2", "--seed", "5", "--size", "256",
                         "--maps", "simulated", NULL, NULL };

  demo_root = g_build_filename (tmp, "demo", NULL);
  argv[10] = demo_root;
  run_cli (argv);
  dataset = hs_dataset_load (demo_root, &error);
  g_assert_no_error (error);
  first = hs_dataset_get_instance (dataset, 0);
  second = hs_dataset_get_instance (dataset, 1);
  sa = g_ptr_array_index (first->sentences, 0);
  sb = g_ptr_array_index (second->sentences, 0);
  instance_a = g_strdup (first->id);
  instance_b = g_strdup (second->id);
  query_a = g_strdup (sa->id);
  query_b = g_strdup (sb->id);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  make_demo ();
  g_test_add_data_func ("/hs/kill-writes/render-png", "png", test_render);
  g_test_add_data_func ("/hs/kill-writes/render-svg", "svg", test_render);
  g_test_add_data_func ("/hs/kill-writes/render-pdf", "pdf", test_render);
  g_test_add_func ("/hs/kill-writes/import", test_import);
  g_test_add_data_func ("/hs/kill-writes/npy", "npy", test_library);
  g_test_add_data_func ("/hs/kill-writes/png", "png", test_library);
  g_test_add_func ("/hs/kill-writes/settings", test_settings);
  status = g_test_run ();
  g_free (demo_root);
  g_free (instance_a);
  g_free (instance_b);
  g_free (query_a);
  g_free (query_b);
  return status;
}
