/* test-cli-module.c — heatscope-cli's modules (src/cli/hs-cli-module.c)
 *
 * score runs in heatscope-cli itself; demo, validate, import, metrics,
 * attend and agreement from heatscope-cli-data.so, render, figure and deck
 * from heatscope-cli-draw.so.  The executable is copied into a folder of its
 * own (it carries libheatscope's base), so the modules are where the test
 * puts them: missing, not a shared object, another library, or installed
 * beside a copy of the executable — and, last, in a real
 * `meson install --destdir` tree. */
#include <heatscope/heatscope.h>

#include <string.h>
#include <glib/gstdio.h>

#include "hs-test-util.h"

static char *demo;     /* a one-instance demo dataset */

static const char *
env (const char *name)
{
  const char *value = g_getenv (name);

  g_assert_nonnull (value);
  return value;
}

static char *
read_file (const char *path, gsize *len)
{
  char *data = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &data, len, &error));
  g_assert_no_error (error);
  return data;
}

static void
copy_file (const char *from, const char *to)
{
  gsize len;
  g_autofree char *data = read_file (from, &len);
  g_autofree char *dir = g_path_get_dirname (to);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (to, data, (gssize) len, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (to, 0755), ==, 0);
}

/* ROOT/BINDIR/heatscope-cli, a copy of the built one; returns its path. */
static char *
copy_cli (const char *root)
{
  char *cli = g_build_filename (root, env ("HS_CLI_BINDIR"), "heatscope-cli", NULL);

  copy_file (hs_test_cli (), cli);
  return cli;
}

/* Where the executable under ROOT looks for a module first. */
static char *
installed_module (const char *root, const char *file)
{
  return g_build_filename (root, env ("HS_CLI_MODULE_SUBDIR"), file, NULL);
}

static int
run (const char *cli, const char * const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  int status = -1;

  g_ptr_array_add (argv, (char *) cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (hs_test_run ((const char * const *) argv->pdata, out, err, &status));
  return status;
}

/* `cli render` of the demo instance into OUT; returns the exit status. */
static int
render (const char *cli, const char *out_png, char **err)
{
  const char *args[] = { "render", demo, "--instance", "phantom-000000", "--query", "s1",
                         "-o", out_png, NULL };
  g_autofree char *out = NULL;

  return run (cli, args, &out, err);
}

/* Exactly one line on stderr, starting with `start` (sanitizer builds may
 * add their report after it). */
static void
assert_one_line (const char *err, const char *start)
{
  const char *end = strchr (err, '\n');

  if (!g_str_has_prefix (err, start))
    g_error ("expected an error starting \"%s\", got: %s", start, err);
  g_assert_nonnull (end);
  g_assert_true (end[1] == '\0' || strstr (end + 1, "heatscope-cli") == NULL);
}

typedef struct {
  const char *command;
  const char *module;
} Command;

static const Command commands[] = {
  { "demo", "heatscope-cli-data.so" }, { "validate", "heatscope-cli-data.so" },
  { "import", "heatscope-cli-data.so" }, { "metrics", "heatscope-cli-data.so" },
  { "attend", "heatscope-cli-data.so" }, { "agreement", "heatscope-cli-data.so" },
  { "render", "heatscope-cli-draw.so" }, { "figure", "heatscope-cli-draw.so" },
  { "deck", "heatscope-cli-draw.so" },
};

/* Every command but score fails with one line naming its module under ROOT;
 * score and --version, which need none, work from the same executable. */
static void
assert_refused (const char *cli, const char *root, const char *why)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      const char *args[] = { commands[i].command, "--help", NULL };
      g_autofree char *out = NULL, *err = NULL;
      g_autofree char *module = installed_module (root, commands[i].module);
      g_autofree char *start = g_strdup_printf ("heatscope-cli %s: %s %s", commands[i].command, why,
                                                module);

      g_assert_cmpint (run (cli, args, &out, &err), ==, 1);
      g_assert_cmpstr (out, ==, "");
      assert_one_line (err, start);
    }
  {
    g_autofree char *dir = hs_test_make_tmpdir ();
    g_autofree char *map = g_build_filename (dir, "map.npy", NULL);
    const gsize shape[] = { 2, 2 };
    const double values[] = { 0, 1, 2, 3 };
    const char *args[] = { "score", "--map", map, "--size", "4x4", "--box", "2,2,4,4", "--upsample",
                           "nearest", "--json", NULL };
    const char *version[] = { "--version", NULL };
    g_autofree char *out = NULL, *err = NULL, *built_out = NULL, *built_err = NULL;
    g_autoptr(GError) error = NULL;

    g_assert_true (hs_npy_write (map, HS_DTYPE_FLOAT64, 2, shape, values, FALSE, FALSE, &error));
    g_assert_no_error (error);
    g_assert_cmpint (run (cli, args, &out, &err), ==, 0);
    g_assert_cmpint (run (hs_test_cli (), args, &built_out, &built_err), ==, 0);
    g_assert_cmpstr (out, ==, built_out);
    g_assert_true (g_str_has_prefix (out, "{\"auroc\": 1,"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run (cli, version, &out, &err), ==, 0);
    g_assert_true (g_str_has_prefix (out, "heatscope-cli "));
  }
}

static void
test_missing (void)
{
  g_autofree char *root = hs_test_make_tmpdir ();
  g_autofree char *cli = copy_cli (root);

  assert_refused (cli, root, "cannot load the module");
}

static void
test_not_a_library (void)
{
  g_autofree char *root = hs_test_make_tmpdir ();
  g_autofree char *cli = copy_cli (root);
  g_autofree char *dir = g_build_filename (root, env ("HS_CLI_MODULE_SUBDIR"), NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  hs_test_write_file (dir, "heatscope-cli-data.so", "not a shared object\n");
  hs_test_write_file (dir, "heatscope-cli-draw.so", "not a shared object\n");
  assert_refused (cli, root, "cannot load the module");
}

/* Shared objects that load but are not the modules: libglib, as this
 * process has it mapped. */
static void
test_other_library (void)
{
  g_autofree char *root = hs_test_make_tmpdir ();
  g_autofree char *cli = copy_cli (root);
  g_autofree char *data = installed_module (root, "heatscope-cli-data.so");
  g_autofree char *draw = installed_module (root, "heatscope-cli-draw.so");
  g_autofree char *maps = read_file ("/proc/self/maps", NULL);
  g_auto(GStrv) lines = g_strsplit (maps, "\n", -1);
  const char *glib = NULL;

  for (guint i = 0; lines[i] != NULL && glib == NULL; i++)
    if (strstr (lines[i], "/libglib-2.0.so") != NULL)
      glib = strchr (lines[i], '/');
  g_assert_nonnull (glib);
  copy_file (glib, data);
  copy_file (glib, draw);
  assert_refused (cli, root, "the module");
}

/* `cli validate` of the demo dataset: its output (exit status 0). */
static char *
validate (const char *cli)
{
  const char *args[] = { "validate", demo, NULL };
  g_autofree char *err = NULL;
  char *out = NULL;

  g_assert_cmpint (run (cli, args, &out, &err), ==, 0);
  return out;
}

/* The executable and the module laid out as installed (BINDIR and
 * MODULE_SUBDIR under one prefix, anywhere): render finds it and draws what
 * the build tree's draws. */
static void
test_installed_layout (void)
{
  g_autofree char *root = hs_test_make_tmpdir ();
  g_autofree char *cli = copy_cli (root);
  g_autofree char *png = g_build_filename (root, "installed.png", NULL);
  g_autofree char *built_png = g_build_filename (root, "built.png", NULL);
  g_autofree char *err = NULL, *built_err = NULL, *a = NULL, *b = NULL;
  g_autofree char *checked = NULL, *built_checked = NULL;
  gsize a_len, b_len;

  for (guint i = 0; i < 2; i++)
    {
      const char *file = i == 0 ? "heatscope-cli-data.so" : "heatscope-cli-draw.so";
      g_autofree char *module = installed_module (root, file);
      g_autofree char *built_module = g_build_filename (env ("HS_BUILD_DIR"), "src", "cli", file, NULL);

      copy_file (built_module, module);
    }
  checked = validate (cli);
  built_checked = validate (hs_test_cli ());
  g_assert_cmpstr (checked, ==, built_checked);
  g_assert_true (g_str_has_prefix (checked, "ok: 1 instances"));
  g_assert_cmpint (render (cli, png, &err), ==, 0);
  g_assert_cmpint (render (hs_test_cli (), built_png, &built_err), ==, 0);
  a = read_file (png, &a_len);
  b = read_file (built_png, &b_len);
  g_assert_cmpuint (a_len, >, 1000);
  g_assert_cmpuint (a_len, ==, b_len);
  g_assert_true (memcmp (a, b, a_len) == 0);
}

/* `meson install --destdir` of the executables and the module: the
 * installed heatscope-cli renders with its installed module. */
static void
test_meson_install (void)
{
  g_autofree char *destdir = hs_test_make_tmpdir ();
  g_autofree char *prefix = g_build_filename (destdir, env ("HS_PREFIX"), NULL);
  g_autofree char *cli = g_build_filename (prefix, env ("HS_CLI_BINDIR"), "heatscope-cli", NULL);
  g_autofree char *module = installed_module (prefix, "heatscope-cli-draw.so");
  g_autofree char *png = g_build_filename (destdir, "installed.png", NULL);
  g_autofree char *built_png = g_build_filename (destdir, "built.png", NULL);
  g_autofree char *out = NULL, *err = NULL, *built_err = NULL, *a = NULL, *b = NULL;
  const char *meson = g_getenv ("HS_MESON");
  gsize a_len, b_len;
  int status = -1;

  if (meson == NULL || !g_file_test (meson, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("meson is not at hand (HS_MESON)");
      return;
    }
  {
    const char *argv[] = { meson, "install", "-C", env ("HS_BUILD_DIR"), "--no-rebuild",
                           "--tags", "runtime", "--destdir", destdir, NULL };

    g_assert_true (hs_test_run (argv, &out, &err, &status));
    if (status != 0)
      g_error ("meson install failed: %s%s", out, err);
  }
  g_assert_true (g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE));
  g_assert_true (g_file_test (module, G_FILE_TEST_EXISTS));
  {
    g_autofree char *checked = validate (cli);
    g_autofree char *built_checked = validate (hs_test_cli ());

    g_assert_cmpstr (checked, ==, built_checked);
  }
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (render (cli, png, &err), ==, 0);
  g_assert_cmpint (render (hs_test_cli (), built_png, &built_err), ==, 0);
  a = read_file (png, &a_len);
  b = read_file (built_png, &b_len);
  g_assert_cmpuint (a_len, ==, b_len);
  g_assert_true (memcmp (a, b, a_len) == 0);
}

/* What the dynamic loader maps for heatscope-cli (LD_TRACE_LOADED_OBJECTS:
 * it lists them and exits): no cairo, nor the X11 libraries it pulls in, no
 * GIO and its libmount and SELinux, no json-glib — the point of the modules
 * (~1.8 ms of score's start-up). */
static void
test_no_cairo_gio (void)
{
  const char *argv[] = { hs_test_cli (), NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;

  g_setenv ("LD_TRACE_LOADED_OBJECTS", "1", TRUE);
  g_assert_true (hs_test_run (argv, &out, &err, &status));
  g_unsetenv ("LD_TRACE_LOADED_OBJECTS");
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "libglib-2.0.so"));
  g_assert_null (strstr (out, "libcairo"));
  g_assert_null (strstr (out, "libX11"));
  g_assert_null (strstr (out, "libfontconfig"));
  g_assert_null (strstr (out, "libgio"));
  g_assert_null (strstr (out, "libmount"));
  g_assert_null (strstr (out, "libjson-glib"));
}

int
main (int argc, char **argv)
{
  g_autofree char *dir = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  dir = hs_test_make_tmpdir ();
  demo = hs_test_make_demo (dir, "demo", 1, 64, "models");
  g_test_add_func ("/cli-module/no-cairo-gio", test_no_cairo_gio);
  g_test_add_func ("/cli-module/missing", test_missing);
  g_test_add_func ("/cli-module/not-a-library", test_not_a_library);
  g_test_add_func ("/cli-module/other-library", test_other_library);
  g_test_add_func ("/cli-module/installed-layout", test_installed_layout);
  g_test_add_func ("/cli-module/meson-install", test_meson_install);
  status = g_test_run ();
  g_free (demo);
  return status;
}
