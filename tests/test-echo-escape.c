/* test-echo-escape.c — control characters in echoed text are escaped
 *
 * Promise (docs/reliability.md): ids, names and paths quoted in error and
 * problem lines never carry a raw newline or terminal escape sequence: one
 * problem is one line, and a dataset cannot drive the terminal. */
#include <heatscope/heatscope.h>
#include "hs-test-util.h"

#include <string.h>

static void
check_escape_function (void)
{
  const struct { const char *in, *out; } cases[] = {
    { "plain text", "plain text" },
    { "a\nb", "a\\nb" },
    { "tab\there\r", "tab\\there\\r" },
    { "\x1b[2J\x1b]0;title\x07", "\\x1b[2J\\x1b]0;title\\x07" },
    { "del\x7f", "del\\x7f" },
    { "csi\xc2\x9b" "31m", "csi\\u009b31m" },                /* U+009B, the C1 CSI */
    { "bidi\xe2\x80\xae" "evil", "bidi\\u202eevil" },           /* U+202E override */
    { "bad\xff\xfeutf8", "bad\\xff\\xfeutf8" },
    { "Lunge r\xc3\xa9gion \xe2\x86\x92 x", "Lunge r\xc3\xa9gion \xe2\x86\x92 x" },  /* kept */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = hs_text_escape_controls (cases[i].in);
      g_assert_cmpstr (got, ==, cases[i].out);
    }
}

static gboolean
has_raw_control (const char *text)
{
  for (const char *p = text; *p; p++)
    if (((guchar) *p < 0x20 && *p != '\n') || *p == 0x7f)
      return TRUE;
  return FALSE;
}

/* validate of a dataset whose ids and paths hold newlines and escapes:
 * one line per problem, no raw control byte on stdout or stderr. */
static void
check_cli_validate (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  int status;

  hs_test_write_file (dir, "heatscope.json",
                      "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
                      "{\"id\": \"evil\\nFAKE: ok\\u001b[2J\", \"image\": \"img\\u001b]0;x\\u0007.png\","
                      " \"sentences\": [{\"id\": \"s\\r1\", \"kind\": \"custom\", \"text\": \"x\"}]}]}");
  status = hs_test_run_cli ("validate", (const char *[]) { dir, NULL }, &out, &err);
  g_test_message ("stdout: %s\nstderr: %s", out, err);
  g_assert_cmpint (status, ==, 1);
  g_assert_false (has_raw_control (out));
  g_assert_false (has_raw_control (err));
  g_assert_nonnull (strstr (out, "\\x1b"));
  /* "N problems found" counts the lines: none was split. */
  lines = g_strsplit (g_strchomp (out), "\n", -1);
  {
    g_autofree char *count = g_strdup_printf ("%u problem%s found", g_strv_length (lines),
                                              g_strv_length (lines) == 1 ? "" : "s");
    g_assert_nonnull (strstr (err, count));
  }
  for (guint i = 0; lines[i] != NULL; i++)
    g_assert_false (g_str_has_prefix (lines[i], "FAKE"));
}

/* Errors of the other commands go through the same sink. */
static void
check_cli_error (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *missing = g_build_filename (dir, "no\x1b[31mpe\nmap.npy", NULL);
  int status;

  status = hs_test_run_cli ("score", (const char *[]) { "--map", missing, "--size", "4x4",
                                                        "--box", "0,0,2,2", "--json", NULL },
                            &out, &err);
  g_assert_cmpint (status, ==, 1);
  g_assert_false (has_raw_control (err));
  g_assert_nonnull (strstr (err, "no\\x1b[31mpe\\nmap.npy"));
  g_assert_cmpuint (strlen (err), ==, strcspn (err, "\n") + 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/echo-escape/function", check_escape_function);
  g_test_add_func ("/echo-escape/cli-validate", check_cli_validate);
  g_test_add_func ("/echo-escape/cli-error", check_cli_error);
  return g_test_run ();
}
