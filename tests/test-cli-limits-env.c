/* test-cli-limits-env.c — every HEATSCOPE_MAX_* variable is honoured by heatscope-cli, and a bad
 * value is refused at start with an error naming the variable (CLI and app).
 *
 * For each limit an input that the default allows is run twice: with the default (it works) and
 * with the variable set just below what the input needs (it fails, naming the file) — or, for the
 * decode ratio, an input the default refuses and the variable admits. */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

static char *dir;
static char *map16, *map_tokens, *png, *big_png, *progressive, *dataset;

static char *
path_in_dir (const char *name)
{
  return g_build_filename (dir, name, NULL);
}

static void
make_inputs (void)
{
  g_autoptr(GError) error = NULL;
  double v[5 * 16 * 16];
  gsize shape2[2] = { 16, 16 }, shape3[3] = { 5, 16, 16 };
  const char *args[] = { NULL, NULL, NULL, NULL };
  g_autofree char *out = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    v[i] = (double) ((i * 7) % 13) / 13.0;
  map16 = path_in_dir ("map16.npy");
  map_tokens = path_in_dir ("tokens.npy");
  g_assert_true (hs_npy_write (map16, HS_DTYPE_FLOAT64, 2, shape2, v, FALSE, FALSE, &error));
  g_assert_true (hs_npy_write (map_tokens, HS_DTYPE_FLOAT64, 3, shape3, v, FALSE, FALSE, &error));
  g_assert_no_error (error);

  png = path_in_dir ("image.png");
  big_png = path_in_dir ("big.png");
  progressive = path_in_dir ("progressive.jpg");
  /* A noisy 100² PNG; a constant 8200² PNG (67 MB decoded from ~70 kB: over the default decode
   * ratio of 256 once past the 64 MiB that never count); a progressive JPEG (several scans). */
  args[0] = png;
  args[1] = big_png;
  args[2] = progressive;
  out = hs_test_python ("import sys, cv2, numpy as np\n"
                        "r = np.random.RandomState(1)\n"
                        "cv2.imwrite(sys.argv[1], r.randint(0, 256, (100, 100)).astype(np.uint8))\n"
                        "cv2.imwrite(sys.argv[2], np.zeros((8200, 8200), np.uint8))\n"
                        "cv2.imwrite(sys.argv[3], r.randint(0, 256, (64, 64)).astype(np.uint8),\n"
                        "            [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])\n", args);

  dataset = path_in_dir ("demo");
  {
    const char *demo[] = { "--count", "2", "--seed", "3", "--size", "64", "--maps", "none", dataset, NULL };
    g_autofree char *o = NULL, *e = NULL;

    g_assert_cmpint (hs_test_run_cli ("demo", demo, &o, &e), ==, 0);
  }
}

typedef struct {
  const char *variable;
  const char *low;              /* a value the input exceeds; NULL: see `high` */
  const char *high;             /* a value the input needs (when the default refuses it) */
  const char *command;
  const char *args[12];
  const char *named;            /* what the error names */
} Case;

static int
run_with (const char *variable, const char *value, const Case *c, char **err)
{
  g_autofree char *out = NULL, *err_text = NULL;
  int status;

  if (value != NULL)
    g_setenv (variable, value, TRUE);
  status = hs_test_run_cli (c->command, c->args, &out, &err_text);
  g_unsetenv (variable);
  /* validate reports problems on standard output, the others on standard error */
  *err = g_strconcat (out, err_text, NULL);
  return status;
}

static void
test_honoured (void)
{
  Case cases[] = {
    { "HEATSCOPE_MAX_PIXELS", "9999", NULL, "score",
      { "--map", map16, "--image", png, "--box", "1,1,50,50", "--json", NULL }, "image.png" },
    { "HEATSCOPE_MAX_FILE_BYTES", "1000", NULL, "score",
      { "--map", map16, "--size", "100x100", "--box", "1,1,50,50", "--json", NULL }, "map16.npy" },
    { "HEATSCOPE_MAX_GRID_CELLS", "255", NULL, "score",
      { "--map", map16, "--size", "100x100", "--box", "1,1,50,50", "--json", NULL }, "map16.npy" },
    { "HEATSCOPE_MAX_TOKENS", "4", NULL, "score",
      { "--map", map_tokens, "--size", "100x100", "--box", "1,1,50,50", "--json", NULL }, "tokens.npy" },
    { "HEATSCOPE_MAX_MANIFEST_BYTES", "100", NULL, "validate",
      { dataset, NULL }, "heatscope.json" },
    { "HEATSCOPE_MAX_INFLATED_BYTES", "5000", NULL, "score",
      { "--map", map16, "--image", png, "--box", "1,1,50,50", "--json", NULL }, "HEATSCOPE_MAX_INFLATED_BYTES" },
    { "HEATSCOPE_MAX_JPEG_SCANS", "1", NULL, "score",
      { "--map", map16, "--image", progressive, "--box", "1,1,20,20", "--json", NULL }, "HEATSCOPE_MAX_JPEG_SCANS" },
    { "HEATSCOPE_MAX_DECODE_RATIO", NULL, "100000", "score",
      { "--map", map16, "--image", big_png, "--box", "1,1,50,50", "--json", NULL }, "HEATSCOPE_MAX_DECODE_RATIO" },
  };
  gboolean seen[16] = { FALSE };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      g_autofree char *err_default = NULL, *err_set = NULL;
      int by_default = run_with (c->variable, NULL, c, &err_default);
      int with_value = run_with (c->variable, c->low != NULL ? c->low : c->high, c, &err_set);

      g_test_message ("%s: default → %d, %s=%s → %d: %s", c->variable, by_default, c->variable,
                      c->low != NULL ? c->low : c->high, with_value,
                      c->low != NULL ? err_set : err_default);
      if (c->low != NULL)
        {
          g_assert_cmpint (by_default, ==, 0);
          g_assert_cmpint (with_value, ==, 1);
          g_assert_nonnull (strstr (err_set, c->named));
        }
      else
        {
          g_assert_cmpint (by_default, ==, 1);
          g_assert_nonnull (strstr (err_default, c->named));
          g_assert_cmpint (with_value, ==, 0);
        }
      for (guint k = 0; hs_limits_env_name (k) != NULL; k++)
        if (strcmp (hs_limits_env_name (k), c->variable) == 0)
          seen[k] = TRUE;
    }
  /* Every variable the library reads has a case here. */
  for (guint k = 0; hs_limits_env_name (k) != NULL; k++)
    if (!seen[k])
      g_error ("%s has no test of being honoured", hs_limits_env_name (k));
}

static void
test_bad_values (void)
{
  const char *bad[] = { "abc", "0", "-1", "12abc", " 5", "1e6", "", "18446744073709551616", "4\n" };
  g_autofree char *app = g_build_filename (g_getenv ("HS_BUILD_DIR"), "src", "app", "heatscope", NULL);

  for (guint k = 0; hs_limits_env_name (k) != NULL; k++)
    for (guint b = 0; b < G_N_ELEMENTS (bad); b++)
      {
        const char *name = hs_limits_env_name (k);
        const char *args[] = { "--map", map16, "--size", "10x10", NULL };
        g_autofree char *out = NULL, *err = NULL;
        int status;

        g_setenv (name, bad[b], TRUE);
        status = hs_test_run_cli ("score", args, &out, &err);
        g_assert_cmpint (status, ==, 2);
        g_assert_true (g_str_has_prefix (err, "heatscope-cli: "));
        g_assert_nonnull (strstr (err, name));
        g_assert_nonnull (strstr (err, "is not a whole number"));
        g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);   /* one line */
        /* The app refuses the same way before it opens a window. */
        if (b == 0 && g_file_test (app, G_FILE_TEST_IS_EXECUTABLE))
          {
            const char *argv[] = { app, "--version", NULL };
            g_autofree char *app_out = NULL, *app_err = NULL;

            g_assert_true (hs_test_run (argv, &app_out, &app_err, &status));
            g_assert_cmpint (status, ==, 2);
            g_assert_nonnull (strstr (app_err, name));
          }
        g_unsetenv (name);
      }
  /* A good value is accepted. */
  {
    const char *args[] = { "--map", map16, "--size", "10x10", "--json", NULL };
    g_autofree char *out = NULL, *err = NULL;

    g_setenv ("HEATSCOPE_MAX_TOKENS", "100", TRUE);
    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
    g_unsetenv ("HEATSCOPE_MAX_TOKENS");
  }
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  for (guint k = 0; hs_limits_env_name (k) != NULL; k++)
    g_unsetenv (hs_limits_env_name (k));
  dir = hs_test_make_tmpdir ();
  make_inputs ();
  g_test_add_func ("/hs/cli-limits-env/honoured", test_honoured);
  g_test_add_func ("/hs/cli-limits-env/bad-values", test_bad_values);
  status = g_test_run ();
  g_free (map16);
  g_free (map_tokens);
  g_free (png);
  g_free (big_png);
  g_free (progressive);
  g_free (dataset);
  g_free (dir);
  return status;
}
