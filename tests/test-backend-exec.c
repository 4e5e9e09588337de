/* test-backend-exec.c — the `exec` backend: protocol parsing, failing backends, the PyTorch adapter */
#include <heatscope/heatscope.h>
#include <heatscope/hs-backend-exec.h>
#include <heatscope/hs-model.h>

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

/* base64 of little-endian float32 values (built here, independently of the parser). */
static char *
encode_floats (const float *values, gsize n)
{
  g_autofree guint32 *le = g_new (guint32, MAX (n, 1));

  for (gsize i = 0; i < n; i++)
    {
      guint32 bits;

      memcpy (&bits, &values[i], 4);
      le[i] = GUINT32_TO_LE (bits);
    }
  return g_base64_encode ((const guchar *) le, n * 4);
}

static HsAttentionMap *
parse (const char *line, guint64 id, GError **error)
{
  return hs_backend_exec_parse_response (line, strlen (line), id, error);
}

static void
test_parse_valid (void)
{
  const float v[4] = { 0.1f, 0.2f, 0.3f, 0.4f };
  const float t[4] = { 1.0f, 0.0f, 0.25f, 0.75f };
  g_autofree char *b64 = encode_floats (v, 4);
  g_autofree char *b64t = encode_floats (t, 4);
  g_autofree char *line = g_strdup_printf ("{\"id\": 7, \"tokens\": [\"left\"], \"shape\": [2, 2], "
                                           "\"maps\": \"%s\", \"no_attn\": null}", b64);
  g_autofree char *line_t = g_strdup_printf ("{\"id\": 8, \"tokens\": [\"left\", \"lung\"], "
                                             "\"shape\": [2, 1, 2], \"maps\": \"%s\", \"no_attn\": 0.25}",
                                             b64t);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(HsAttentionMap) map_t = NULL;

  map = parse (line, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, 0);
  g_assert_cmpuint (hs_attention_map_get_height (map), ==, 2);
  g_assert_cmpuint (hs_attention_map_get_width (map), ==, 2);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_values (map)[i], v[i], 1e-7);
  g_assert_true (isnan (hs_attention_map_get_no_attn (map)));

  map_t = parse (line_t, 8, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (map_t), ==, 2);
  g_assert_cmpstr (hs_attention_map_get_token (map_t, 1), ==, "lung");
  /* sentence map = mean over tokens: (1 + 0.25) / 2, (0 + 0.75) / 2 */
  g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_values (map_t)[0], 0.625, 1e-7);
  g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_values (map_t)[1], 0.375, 1e-7);
  g_assert_cmpfloat_with_epsilon (hs_attention_map_get_no_attn (map_t), 0.25, 1e-12);
}

static void
expect_parse_error (const char *line, guint64 id, GQuark domain, int code, const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = parse (line, id, &error);

  g_assert_null (map);
  g_assert_error (error, domain, code);
  if (fragment != NULL && strstr (error->message, fragment) == NULL)
    g_error ("'%s': message '%s' lacks '%s'", line, error->message, fragment);
}

static void
test_parse_bad (void)
{
  const float v[4] = { 0.1f, 0.2f, 0.3f, 0.4f };
  const float nan_v[4] = { 0.1f, NAN, 0.3f, 0.4f };
  g_autofree char *b64 = encode_floats (v, 4);
  g_autofree char *b64_3 = encode_floats (v, 3);
  g_autofree char *b64_nan = encode_floats (nan_v, 4);
  g_autofree char *l = NULL;
  const int P = HS_BACKEND_ERROR_PROTOCOL;

  expect_parse_error ("{not json", 1, HS_BACKEND_ERROR, P, "not JSON");
  expect_parse_error ("", 1, HS_BACKEND_ERROR, P, "not JSON");
  expect_parse_error ("[1, 2]", 1, HS_BACKEND_ERROR, P, "not a JSON object");
  expect_parse_error ("{\"id\": \"1\"}", 1, HS_BACKEND_ERROR, P, "\"id\"");
  expect_parse_error ("{\"id\": 1, \"error\": \"no such image\"}", 1, HS_BACKEND_ERROR,
                      HS_BACKEND_ERROR_REMOTE, "no such image");
  expect_parse_error ("{\"id\": 1, \"error\": 5}", 1, HS_BACKEND_ERROR, P, "\"error\"");
  l = g_strdup_printf ("{\"id\": 2, \"shape\": [2, 2], \"maps\": \"%s\"}", b64);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "id 2, expected 1");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [2, 2], \"maps\": \"%s\"}", b64_3);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "base64 characters");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [2, 2], \"maps\": \"%s\"}", b64_nan);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "value 1 is not finite");
  g_clear_pointer (&l, g_free);
  /* Right length, a character outside the alphabet. */
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [2, 2], \"maps\": \"*%s\"}", b64 + 1);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "not base64");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [100000, 100000], \"maps\": \"%s\"}", b64);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, HS_BACKEND_ERROR_TOO_LARGE, "exceeds the limit");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [100000, 1, 1], \"maps\": \"%s\"}", b64);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, HS_BACKEND_ERROR_TOO_LARGE, "token maps exceed");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [2, 2, 2, 2], \"maps\": \"%s\"}", b64);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "4 dimensions");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [0, 2], \"maps\": \"\"}");
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "is 0");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [-2, -2], \"maps\": \"%s\"}", b64);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "negative");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"tokens\": [\"a\", \"b\", \"c\"], \"shape\": [2, 1, 2], "
                       "\"maps\": \"%s\"}", b64);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "3 entries");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"tokens\": [1], \"shape\": [2, 2], \"maps\": \"%s\"}", b64);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "not a string");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [2, 2], \"maps\": \"%s\", \"no_attn\": 2.5}", b64);
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "no_attn");
  g_clear_pointer (&l, g_free);
  l = g_strdup_printf ("{\"id\": 1, \"shape\": [2, 2], \"maps\": 12}");
  expect_parse_error (l, 1, HS_BACKEND_ERROR, P, "\"maps\"");
  g_clear_pointer (&l, g_free);
  expect_parse_error ("\xff\xfe", 1, HS_BACKEND_ERROR, P, "UTF-8");
}

/* A fake backend: a shell script answering every request with `rest` (the
 * JSON members after "id"), echoing the request's id (+ id_offset). */
static char *
fake_backend (const char *dir, const char *name, const char *prelude, const char *rest, int id_offset)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *script = NULL;
  g_autoptr(GError) error = NULL;

  script = g_strdup_printf ("#!/bin/sh\n%s\n"
                            "while read -r line; do\n"
                            "  id=$(printf '%%s\\n' \"$line\" | sed 's/^{\"id\" *: *\\([0-9]*\\).*/\\1/')\n"
                            "  printf '{\"id\":%%s,%%s}\\n' $((id + %d)) '%s'\n"
                            "done\n", prelude != NULL ? prelude : "", id_offset, rest);
  g_file_set_contents (path, script, -1, &error);
  g_assert_no_error (error);
  return g_strdup_printf ("sh '%s'", path);
}

static const char *
some_image (void)
{
  static char *path = NULL;

  if (path == NULL)
    path = g_build_filename (hs_test_source_dir (), "tests", "model-reference", "grey8-70x90.png", NULL);
  return path;
}

static void
test_fake_backend (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  const float v[4] = { 0.1f, 0.2f, 0.3f, 0.4f };
  g_autofree char *b64 = encode_floats (v, 4);
  g_autofree char *rest = g_strdup_printf ("\"tokens\":[\"a\",\"b\"],\"shape\":[2,1,2],\"maps\":\"%s\",\"no_attn\":null", b64);
  g_autofree char *command = fake_backend (dir, "ok.sh", NULL, rest, 0);
  g_autoptr(HsBackendExec) backend = hs_backend_exec_new (command, NULL);
  g_autoptr(GError) error = NULL;

  for (int round = 0; round < 3; round++)
    {
      g_autoptr(HsAttentionMap) map = hs_backend_exec_attend (backend, some_image (), "it's \"quoted\"\nand long",
                                                              TRUE, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, 2);
      g_assert_cmpstr (hs_attention_map_get_token (map, 0), ==, "a");
      g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_token (map, 1)[1], 0.4, 1e-7);
      g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_values (map)[0], 0.2, 1e-7);
    }
}

/* A DICOM image reaches the backend as a PNG of the initial display (the
 * file's window, MONOCHROME1 inverted), removed with the backend. */
static void
test_dicom_as_png (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *dcm = hs_test_shared_path ("dicom/CR-MONO1-10-chest.dcm");
  g_autofree char *log = g_build_filename (dir, "requests.log", NULL);
  g_autofree char *prelude = NULL, *rest = NULL, *command = NULL, *logged = NULL, *png_dir = NULL;
  const float v[2] = { 0.5f, 0.5f };
  g_autofree char *b64 = encode_floats (v, 2);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto (GStrv) lines = NULL;
  HsBackendExec *backend;
  const char *sent;

  if (dcm == NULL)
    return;
  prelude = g_strdup_printf ("exec 3>>'%s'", log);
  rest = g_strdup_printf ("\"shape\":[1,2],\"maps\":\"%s\"", b64);
  /* The fake backend logs each request line before answering it. */
  command = fake_backend (dir, "log.sh", prelude, rest, 0);
  {
    g_autofree char *script_path = g_build_filename (dir, "log.sh", NULL);
    g_autofree char *script = NULL, *patched = NULL;
    g_assert_true (g_file_get_contents (script_path, &script, NULL, NULL));
    patched = hs_test_replace (script, "while read -r line; do\n", "while read -r line; do\n  printf '%s\\n' \"$line\" >&3\n");
    g_assert_true (g_file_set_contents (script_path, patched, -1, NULL));
  }
  backend = hs_backend_exec_new (command, NULL);
  for (int round = 0; round < 2; round++)
    {
      g_autoptr(HsAttentionMap) map = hs_backend_exec_attend (backend, dcm, "left lung", FALSE, NULL, &error);
      g_assert_no_error (error);
    }
  g_assert_true (g_file_get_contents (log, &logged, NULL, NULL));
  lines = g_strsplit (logged, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_true (json_parser_load_from_data (parser, lines[0], -1, &error));
  sent = json_object_get_string_member (json_node_get_object (json_parser_get_root (parser)), "image");
  g_assert_true (g_str_has_suffix (sent, ".png"));
  g_assert_nonnull (strstr (lines[1], sent));   /* converted once, sent again */
  {
    g_autoptr(HsImage) original = hs_image_load (dcm, &error);
    g_autoptr(HsImage) received = hs_image_load (sent, &error);
    g_autoptr(HsImage) expected = NULL;
    double c, w;

    g_assert_no_error (error);
    g_assert_cmpstr (hs_image_get_format (received), ==, "PNG");
    hs_image_get_default_window (original, &c, &w);
    expected = hs_image_render_grey8 (original, c, w);
    g_assert_cmpuint (hs_image_get_width (received), ==, 440);
    g_assert_cmpuint (hs_image_get_channels (received), ==, 1);
    g_assert_cmpmem (hs_image_peek_data (received), 440 * 440 * 2, hs_image_peek_data (expected), 440 * 440 * 2);
    /* MONOCHROME1: the corner's stored 0, below the window, shows white. */
    g_assert_cmpfloat (hs_image_sample_to_value (original, hs_image_get_grey (original, 0, 0)), ==, 0);
    g_assert_cmpuint (hs_image_get_grey (received, 0, 0), ==, 255);
  }
  png_dir = g_path_get_dirname (sent);
  hs_backend_exec_unref (backend);
  g_assert_false (g_file_test (png_dir, G_FILE_TEST_EXISTS));
}

typedef struct {
  GMainLoop      *loop;
  HsAttentionMap *map;
  GError         *error;
} AsyncData;

static void
async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncData *data = user_data;

  g_assert_null (source);
  data->map = hs_backend_exec_attend_finish (g_object_get_data (G_OBJECT (result), "hs-backend"),
                                             result, &data->error);
  g_main_loop_quit (data->loop);
}

static void
test_async (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  const float v[2] = { 0.5f, 0.5f };
  g_autofree char *b64 = encode_floats (v, 2);
  g_autofree char *rest = g_strdup_printf ("\"shape\":[1,2],\"maps\":\"%s\"", b64);
  g_autofree char *command = fake_backend (dir, "async.sh", NULL, rest, 0);
  g_autoptr(HsBackendExec) backend = hs_backend_exec_new (command, NULL);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  AsyncData data = { loop, NULL, NULL };

  hs_backend_exec_attend_async (backend, some_image (), "left lung", FALSE, NULL, async_done, &data);
  g_main_loop_run (loop);
  g_assert_no_error (data.error);
  g_assert_cmpuint (hs_attention_map_get_width (data.map), ==, 2);
  g_assert_cmpfloat (hs_attention_map_peek_values (data.map)[1], ==, 0.5);
  hs_attention_map_unref (data.map);
}

static void
expect_attend_error (HsBackendExec *backend, int code, const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;

  map = hs_backend_exec_attend (backend, some_image (), "left lung", FALSE, NULL, &error);
  g_assert_null (map);
  g_assert_error (error, HS_BACKEND_ERROR, code);
  g_test_message ("%s", error->message);
  if (strstr (error->message, hs_backend_exec_get_command (backend)) == NULL)
    g_error ("message '%s' does not name the command", error->message);
  if (fragment != NULL && strstr (error->message, fragment) == NULL)
    g_error ("message '%s' lacks '%s'", error->message, fragment);
}

static void
test_crash (void)
{
  g_autoptr(HsBackendExec) backend = hs_backend_exec_new ("sh -c 'exit 3'", NULL);
  g_autoptr(HsBackendExec) killed = hs_backend_exec_new ("sh -c 'kill -9 $$'", NULL);

  /* Twice: the second request starts the process again. */
  expect_attend_error (backend, HS_BACKEND_ERROR_CRASHED, "exited with status 3");
  expect_attend_error (backend, HS_BACKEND_ERROR_CRASHED, "exited with status 3");
  expect_attend_error (killed, HS_BACKEND_ERROR_CRASHED, "signal 9");
}

static void
test_restart (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *marker = g_build_filename (dir, "ran", NULL);
  const float v[1] = { 1.0f };
  g_autofree char *b64 = encode_floats (v, 1);
  g_autofree char *rest = g_strdup_printf ("\"shape\":[1,1],\"maps\":\"%s\"", b64);
  g_autofree char *prelude = g_strdup_printf ("if [ ! -e '%s' ]; then touch '%s'; exit 4; fi",
                                              marker, marker);
  g_autofree char *command = fake_backend (dir, "once.sh", prelude, rest, 0);
  g_autoptr(HsBackendExec) backend = hs_backend_exec_new (command, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;

  expect_attend_error (backend, HS_BACKEND_ERROR_CRASHED, "exited with status 4");
  map = hs_backend_exec_attend (backend, some_image (), "left lung", FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (hs_attention_map_peek_values (map)[0], ==, 1.0);
}

/* The backend never answers (sleep 100, or half a line then silence): the
 * timeout is the behaviour under test, and no machine speed can make such a
 * backend answer within it, nor make the timeout not fire. */
static void
test_hang (void)
{
  g_autoptr(HsBackendExec) backend = hs_backend_exec_new ("sleep 100", NULL);
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *command = NULL;
  g_autoptr(HsBackendExec) half = NULL;

  hs_backend_exec_set_timeout (backend, 1000);
  g_assert_cmpuint (hs_backend_exec_get_timeout (backend), ==, 1000);
  expect_attend_error (backend, HS_BACKEND_ERROR_TIMEOUT, "did not answer within 1.0 s");
  expect_attend_error (backend, HS_BACKEND_ERROR_TIMEOUT, NULL);

  /* Half a line, then silence. */
  command = g_strdup_printf ("sh -c 'read l; printf \"{\\\"id\\\": 1\"; sleep 100'");
  half = hs_backend_exec_new (command, NULL);
  hs_backend_exec_set_timeout (half, 500);
  expect_attend_error (half, HS_BACKEND_ERROR_TIMEOUT, NULL);
}

static void
test_malformed (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  const float v[4] = { 0.1f, 0.2f, 0.3f, 0.4f };
  const float nan_v[4] = { 0.1f, 0.2f, INFINITY, 0.4f };
  g_autofree char *b64 = encode_floats (v, 4);
  g_autofree char *b64_3 = encode_floats (v, 3);
  g_autofree char *b64_nan = encode_floats (nan_v, 4);
  struct {
    const char *name;
    char       *rest;
    int         id_offset;
    int         code;
    const char *fragment;
  } cases[] = {
    { "bad-json.sh", g_strdup ("\"shape\": [2, 2"), 0, HS_BACKEND_ERROR_PROTOCOL, "not JSON" },
    { "wrong-id.sh", g_strdup_printf ("\"shape\":[2,2],\"maps\":\"%s\"", b64), 5,
      HS_BACKEND_ERROR_PROTOCOL, "has id" },
    { "short.sh", g_strdup_printf ("\"shape\":[2,2],\"maps\":\"%s\"", b64_3), 0,
      HS_BACKEND_ERROR_PROTOCOL, "base64 characters" },
    { "nan.sh", g_strdup_printf ("\"shape\":[2,2],\"maps\":\"%s\"", b64_nan), 0,
      HS_BACKEND_ERROR_PROTOCOL, "not finite" },
    { "huge.sh", g_strdup_printf ("\"shape\":[65536,65536],\"maps\":\"%s\"", b64), 0,
      HS_BACKEND_ERROR_TOO_LARGE, "exceeds the limit" },
    { "remote.sh", g_strdup ("\"error\":\"cannot read the image\""), 0,
      HS_BACKEND_ERROR_REMOTE, "cannot read the image" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *command = fake_backend (dir, cases[i].name, NULL, cases[i].rest,
                                               cases[i].id_offset);
      g_autoptr(HsBackendExec) backend = hs_backend_exec_new (command, NULL);

      /* They answer at once: the timeout only bounds a hang. */
      hs_backend_exec_set_timeout (backend, 60000);
      expect_attend_error (backend, cases[i].code, cases[i].fragment);
      /* The same backend again: restarted (or still alive after a remote error). */
      expect_attend_error (backend, cases[i].code, cases[i].fragment);
      g_free (cases[i].rest);
    }
}

/* A line over HS_BACKEND_EXEC_MAX_LINE (64 MiB), and a backend that closes
 * its output but keeps running. */
static void
test_long_line_and_closed_output (void)
{
  g_autoptr(HsBackendExec) flood = hs_backend_exec_new (
    "sh -c 'read l; head -c 70000000 /dev/zero | tr \"\\0\" a; sleep 100'", NULL);
  g_autoptr(HsBackendExec) closed = hs_backend_exec_new ("sh -c 'exec >&-; sleep 100'", NULL);

  g_assert_cmpuint (HS_BACKEND_EXEC_MAX_LINE, <, 70000000);
  expect_attend_error (flood, HS_BACKEND_ERROR_TOO_LARGE, "longer than 67108864 bytes");
  expect_attend_error (closed, HS_BACKEND_ERROR_CRASHED, "closed its output");
}

static void
test_bad_command (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsBackendExec) missing = NULL;
  HsBackendExec *backend;

  backend = hs_backend_exec_new ("sh -c 'unterminated", &error);
  g_assert_null (backend);
  g_assert_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND);
  g_clear_error (&error);
  backend = hs_backend_exec_new ("", &error);
  g_assert_null (backend);
  g_assert_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_COMMAND);

  missing = hs_backend_exec_new ("/nonexistent/heatscope-backend --x", NULL);
  expect_attend_error (missing, HS_BACKEND_ERROR_COMMAND, "cannot start");
}

static void
test_cancel (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  const float v[1] = { 1.0f };
  g_autofree char *b64 = encode_floats (v, 1);
  g_autofree char *rest = g_strdup_printf ("\"shape\":[1,1],\"maps\":\"%s\"", b64);
  g_autofree char *command = fake_backend (dir, "cancel.sh", NULL, rest, 0);
  g_autoptr(HsBackendExec) backend = hs_backend_exec_new (command, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;

  g_cancellable_cancel (cancellable);
  map = hs_backend_exec_attend (backend, some_image (), "left lung", FALSE, cancellable, &error);
  g_assert_null (map);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  map = hs_backend_exec_attend (backend, some_image (), "left lung", FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (hs_attention_map_peek_values (map)[0], ==, 1.0);
}

typedef struct {
  GCancellable *cancellable;
  char         *received;   /* the backend creates it when it has read a request */
  char         *go;         /* the backend answers once it exists */
} CancelLater;

/* Cancels once the backend holds the request, then lets it answer: the
 * answer comes after the cancel by construction.  Polled every millisecond
 * (the backend is another process); the bound only catches a hang. */
static gpointer
cancel_later (gpointer data)
{
  CancelLater *c = data;
  gint64 end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  while (!g_file_test (c->received, G_FILE_TEST_EXISTS))
    {
      if (g_get_monotonic_time () > end)
        g_error ("the backend never received the request (hung?)");
      g_usleep (1000);
    }
  g_cancellable_cancel (c->cancellable);
  g_assert_true (g_file_set_contents (c->go, "", 0, NULL));
  return NULL;
}

/* A request cancelled while the backend computes: its late answer (id 1)
 * must be skipped by the next request (id 2), not taken for a wrong id. */
static void
test_cancel_in_flight (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  const float v[1] = { 1.0f };
  g_autofree char *b64 = encode_floats (v, 1);
  g_autofree char *rest = g_strdup_printf ("\"shape\":[1,1],\"maps\":\"%s\"", b64);
  g_autofree char *command = NULL;
  g_autofree char *received = g_build_filename (dir, "received", NULL);
  g_autofree char *go = g_build_filename (dir, "go", NULL);
  g_autoptr(HsBackendExec) backend = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  CancelLater later = { cancellable, received, go };
  GThread *thread;

  /* Each request: say it arrived, wait for "go" (polled by the script),
   * then answer. */
  command = fake_backend (dir, "slow.sh", NULL, rest, 0);
  {
    g_autofree char *path = g_build_filename (dir, "slow.sh", NULL);
    g_autofree char *text = NULL;
    g_autofree char *slowed = NULL;
    g_autofree char *wait = NULL;
    g_auto(GStrv) parts = NULL;

    g_file_get_contents (path, &text, NULL, &error);
    g_assert_no_error (error);
    parts = g_strsplit (text, "  printf", 2);
    g_assert_cmpuint (g_strv_length (parts), ==, 2);
    wait = g_strdup_printf ("  : > '%s'; while [ ! -e '%s' ]; do sleep 0.01; done; printf",
                            received, go);
    slowed = g_strjoinv (wait, parts);
    g_file_set_contents (path, slowed, -1, &error);
    g_assert_no_error (error);
  }
  backend = hs_backend_exec_new (command, NULL);
  thread = g_thread_new ("cancel", cancel_later, &later);
  map = hs_backend_exec_attend (backend, some_image (), "left lung", FALSE, cancellable, &error);
  g_thread_join (thread);
  g_assert_null (map);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  map = hs_backend_exec_attend (backend, some_image (), "right lung", FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (hs_attention_map_peek_values (map)[0], ==, 1.0);
}

/* The reference adapter (PyTorch) against the built-in C model. */
static void
test_torch_adapter (void)
{
  const char *prompts[] = { "left lung", "There is a small opacity in the right lower lobe.",
                            "heart size is normal", "zzunknownword pneumothorax" };
  const char *images[] = { "grey8-70x90.png", "phantom-000007.png" };
  g_autofree char *adapter = g_build_filename (hs_test_source_dir (), "tools", "heatscope-backend-torch", NULL);
  g_autofree char *weights = g_build_filename (hs_test_source_dir (), "data", "models", "grounded.safetensors", NULL);
  g_autofree char *command = NULL;
  g_autofree char *probe = NULL;
  g_autoptr(HsBackendExec) backend = NULL;
  g_autoptr(HsModel) model = NULL;
  g_autoptr(GError) error = NULL;
  double max_diff = 0;

  probe = hs_test_python ("import torch, cv2, numpy; print('ok')", NULL);
  if (probe == NULL)
    return;   /* skipped by hs_test_python */
  if (!g_file_test (weights, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("data/models/grounded.safetensors is absent");
      return;
    }
  model = hs_model_load (weights, &error);
  g_assert_no_error (error);
  command = g_strdup_printf ("/usr/bin/python3 '%s' --weights '%s'", adapter, weights);
  backend = hs_backend_exec_new (command, &error);
  g_assert_no_error (error);
  hs_backend_exec_set_timeout (backend, 120000);   /* importing torch on a loaded machine */

  for (guint i = 0; i < G_N_ELEMENTS (images); i++)
    for (guint p = 0; p < G_N_ELEMENTS (prompts); p++)
      for (int per_token = 0; per_token <= 1; per_token++)
        {
          g_autofree char *image_path = g_build_filename (hs_test_source_dir (), "tests",
                                                          "model-reference", images[i], NULL);
          g_autoptr(HsImage) image = hs_image_load (image_path, &error);
          g_autoptr(HsAttentionMap) expected = NULL;
          g_autoptr(HsAttentionMap) got = NULL;
          guint h, w, n_tokens;

          g_assert_no_error (error);
          expected = hs_model_attend_image (model, image, prompts[p], &error);
          g_assert_no_error (error);
          got = hs_backend_exec_attend (backend, image_path, prompts[p], per_token, NULL, &error);
          g_assert_no_error (error);
          h = hs_attention_map_get_height (expected);
          w = hs_attention_map_get_width (expected);
          n_tokens = hs_attention_map_get_n_tokens (expected);
          g_assert_cmpuint (hs_attention_map_get_height (got), ==, h);
          g_assert_cmpuint (hs_attention_map_get_width (got), ==, w);
          g_assert_cmpuint (hs_attention_map_get_n_tokens (got), ==, per_token ? n_tokens : 0);
          for (guint c = 0; c < h * w; c++)
            {
              double d = fabs (hs_attention_map_peek_values (got)[c] - hs_attention_map_peek_values (expected)[c]);

              max_diff = MAX (max_diff, d);
              g_assert_cmpfloat (d, <=, 1e-4);
            }
          if (per_token)
            for (guint t = 0; t < n_tokens; t++)
              {
                g_assert_cmpstr (hs_attention_map_get_token (got, t), ==,
                                 hs_attention_map_get_token (expected, t));
                for (guint c = 0; c < h * w; c++)
                  {
                    double d = fabs (hs_attention_map_peek_token (got, t)[c] -
                                     hs_attention_map_peek_token (expected, t)[c]);

                    max_diff = MAX (max_diff, d);
                    g_assert_cmpfloat (d, <=, 1e-4);
                  }
              }
          g_assert_true (isnan (hs_attention_map_get_no_attn (got)));
        }
  g_test_message ("largest difference PyTorch adapter vs C model: %.3g", max_diff);

  /* An unreadable image: the adapter answers with an error and stays up. */
  {
    g_autoptr(HsAttentionMap) map = NULL;

    map = hs_backend_exec_attend (backend, "/nonexistent/image.png", "left lung", FALSE, NULL, &error);
    g_assert_null (map);
    g_assert_error (error, HS_BACKEND_ERROR, HS_BACKEND_ERROR_REMOTE);
    g_clear_error (&error);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/hs/backend-exec/parse-valid", test_parse_valid);
  g_test_add_func ("/hs/backend-exec/parse-bad", test_parse_bad);
  g_test_add_func ("/hs/backend-exec/fake-backend", test_fake_backend);
  g_test_add_func ("/hs/backend-exec/async", test_async);
  g_test_add_func ("/hs/backend-exec/dicom-as-png", test_dicom_as_png);
  g_test_add_func ("/hs/backend-exec/crash", test_crash);
  g_test_add_func ("/hs/backend-exec/restart", test_restart);
  g_test_add_func ("/hs/backend-exec/hang", test_hang);
  g_test_add_func ("/hs/backend-exec/malformed", test_malformed);
  g_test_add_func ("/hs/backend-exec/long-line-and-closed-output", test_long_line_and_closed_output);
  g_test_add_func ("/hs/backend-exec/bad-command", test_bad_command);
  g_test_add_func ("/hs/backend-exec/cancel", test_cancel);
  g_test_add_func ("/hs/backend-exec/cancel-in-flight", test_cancel_in_flight);
  g_test_add_func ("/hs/backend-exec/torch-adapter", test_torch_adapter);
  return g_test_run ();
}
