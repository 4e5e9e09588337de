/* test-cli-attend.c — heatscope-cli attend */
#include <heatscope/heatscope.h>

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

static char *
reference (const char *name)
{
  return g_build_filename (hs_test_source_dir (), "tests", "model-reference", name, NULL);
}

static void
test_sentence_and_tokens (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *weights = reference ("tiny-noattn.safetensors");
  g_autofree char *image = reference ("grey8-70x90.png");
  g_autofree char *sentence_npy = g_build_filename (dir, "s.npy", NULL);
  g_autofree char *tokens_npy = g_build_filename (dir, "t.npy", NULL);
  const char *argv1[] = { hs_test_cli (), "attend", "--model", weights, "--image", image,
                          "--prompt", "The left lung.", "-o", sentence_npy, NULL };
  const char *argv2[] = { hs_test_cli (), "attend", "--model", weights, "--image", image,
                          "--prompt", "The left lung.", "-o", tokens_npy, "--tokens", NULL };
  g_autofree char *out1 = NULL, *err1 = NULL, *out2 = NULL, *err2 = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(HsNdArray) s = NULL, t = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *tokens;
  int status;
  double no_attn, sum = 0;

  if (!g_file_test (weights, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("tests/model-reference is missing");
      return;
    }
  hs_test_run (argv1, &out1, &err1, &status);
  g_assert_cmpint (status, ==, 0);
  hs_test_run (argv2, &out2, &err2, &status);
  g_assert_cmpint (status, ==, 0);

  json_parser_load_from_data (parser, out2, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  tokens = json_object_get_array_member (root, "tokens");
  g_assert_cmpuint (json_array_get_length (tokens), ==, 3);
  g_assert_cmpstr (json_array_get_string_element (tokens, 0), ==, "the");
  g_assert_cmpstr (json_array_get_string_element (tokens, 1), ==, "left");
  g_assert_cmpstr (json_array_get_string_element (tokens, 2), ==, "lung");
  no_attn = json_object_get_double_member (root, "no_attn");
  g_assert_cmpfloat (no_attn, >, 0);
  g_assert_cmpfloat (no_attn, <, 1);

  s = hs_npy_read (sentence_npy, &error);
  g_assert_no_error (error);
  t = hs_npy_read (tokens_npy, &error);
  g_assert_no_error (error);
  g_assert_cmpint (s->dtype, ==, HS_DTYPE_FLOAT32);
  g_assert_cmpuint (s->ndim, ==, 2);
  g_assert_cmpuint (t->ndim, ==, 3);
  g_assert_cmpuint (t->shape[0], ==, 3);
  g_assert_cmpuint (t->shape[1], ==, s->shape[0]);
  g_assert_cmpuint (t->shape[2], ==, s->shape[1]);
  /* The sentence map is the token mean, and with the No-Attn slot the
   * cells hold 1 − no_attn of the mass. */
  for (gsize i = 0; i < s->n_values; i++)
    {
      double mean = (t->values[i] + t->values[s->n_values + i] + t->values[2 * s->n_values + i]) / 3;

      g_assert_cmpfloat (fabs (s->values[i] - mean), <, 1e-6);
      sum += s->values[i];
    }
  g_assert_cmpfloat (fabs (sum + no_attn - 1), <, 1e-5);
}

static void
test_errors (void)
{
  g_autofree char *weights = reference ("tiny.safetensors");
  g_autofree char *image = reference ("grey8-70x90.png");
  const char *no_image[] = { hs_test_cli (), "attend", "--model", weights, "--prompt", "x", NULL };
  const char *bad_model[] = { hs_test_cli (), "attend", "--model", "nosuch", "--image", image,
                              "--prompt", "x", NULL };
  const char *bad_image[] = { hs_test_cli (), "attend", "--model", weights, "--image",
                              "/nonexistent.png", "--prompt", "x", NULL };
  const char *bad_weights[] = { hs_test_cli (), "attend", "--model", image, "--image", image,
                                "--prompt", "x", NULL };
  const char *empty_prompt[] = { hs_test_cli (), "attend", "--model", weights, "--image", image,
                                 "--prompt", " ... ", NULL };
  struct { const char * const *argv; int status; const char *needle; } cases[] = {
    { no_image, 2, "--image" },
    { bad_model, 2, "nosuch" },
    { bad_image, 1, "/nonexistent.png" },
    { bad_weights, 1, "grey8-70x90.png" },
    { empty_prompt, 1, "no words" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int status;

      hs_test_run (cases[i].argv, &out, &err, &status);
      g_test_message ("case %" G_GSIZE_FORMAT ": %d %s", i, status, err);
      g_assert_cmpint (status, ==, cases[i].status);
      g_assert_nonnull (strstr (err, cases[i].needle));
    }
}

/* --backend-exec: a fake backend (a shell script) answering a hand-made map
 * [0.25, 0.75] (base64 of little-endian float32), a crashing one, bad usage. */
static void
test_backend_exec (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *image = reference ("grey8-70x90.png");
  g_autofree char *script = g_build_filename (dir, "fake.sh", NULL);
  g_autofree char *npy = g_build_filename (dir, "m.npy", NULL);
  g_autofree char *command = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsNdArray) map = NULL;
  int status;

  g_file_set_contents (script,
                       "read -r line\n"
                       "printf '%s\\n' '{\"id\":1,\"tokens\":[\"a\"],\"shape\":[1,2],"
                       "\"maps\":\"AACAPgAAQD8=\",\"no_attn\":null}'\n", -1, &error);
  g_assert_no_error (error);
  command = g_strdup_printf ("sh '%s'", script);
  {
    const char *argv[] = { hs_test_cli (), "attend", "--backend-exec", command, "--image", image,
                           "--prompt", "left lung", "-o", npy, NULL };

    hs_test_run (argv, &out, &err, &status);
    g_test_message ("%s %s", out, err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (strstr (out, "\"shape\":[1,2]"));
    map = hs_npy_read (npy, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (map->n_values, ==, 2);
    g_assert_cmpfloat (map->values[0], ==, 0.25);
    g_assert_cmpfloat (map->values[1], ==, 0.75);
  }
  {
    const char *crash[] = { hs_test_cli (), "attend", "--backend-exec", "sh -c 'exit 3'",
                            "--image", image, "--prompt", "x", NULL };
    const char *both[] = { hs_test_cli (), "attend", "--backend-exec", command, "--model", "grounded",
                           "--image", image, "--prompt", "x", NULL };
    const char *quote[] = { hs_test_cli (), "attend", "--backend-exec", "sh -c 'x",
                            "--image", image, "--prompt", "x", NULL };
    /* The timeout is what is tested: a backend that sleeps 100 s never answers within it. */
    const char *hang[] = { hs_test_cli (), "attend", "--backend-exec", "sleep 100", "--timeout", "1",
                           "--image", image, "--prompt", "x", NULL };
    const char *no_time[] = { hs_test_cli (), "attend", "--backend-exec", command, "--timeout", "0",
                              "--image", image, "--prompt", "x", NULL };
    struct { const char * const *argv; int status; const char *needle; } cases[] = {
      { crash, 1, "exited with status 3" },
      { both, 2, "exclude each other" },
      { quote, 2, "sh -c 'x" },
      { hang, 1, "did not answer within 1.0 s" },
      { no_time, 2, "--timeout must be between 1 and 86400 seconds, not 0" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autofree char *o = NULL, *e = NULL;

        hs_test_run (cases[i].argv, &o, &e, &status);
        g_test_message ("case %" G_GSIZE_FORMAT ": %d %s", i, status, e);
        g_assert_cmpint (status, ==, cases[i].status);
        g_assert_nonnull (strstr (e, cases[i].needle));
      }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/cli-attend/sentence-and-tokens", test_sentence_and_tokens);
  g_test_add_func ("/hs/cli-attend/errors", test_errors);
  g_test_add_func ("/hs/cli-attend/backend-exec", test_backend_exec);
  return g_test_run ();
}
