/* test-json-reader.c — the strict JSON reader behind heatscope.json
 * (src/core/hs-json-reader.c) on its own: RFC 8259 edge cases, hand-worked,
 * without going through a manifest */
#include <heatscope/heatscope.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"
/* Private to libheatscope; the test links the static library. */
#include "../src/core/hs-json-reader-private.h"

/* Parses `text` (NUL-terminated, or `len` bytes when len >= 0). */
static HjNode *
parse_len (HjParser *parser, const char *text, gssize len)
{
  memset (parser, 0, sizeof *parser);
  return hj_parse (parser, text, len < 0 ? strlen (text) : (gsize) len);
}

static HjNode *
parse (HjParser *parser, const char *text)
{
  return parse_len (parser, text, -1);
}

/* `text` must be refused with an error containing `message`. */
static void
assert_refused (const char *text, const char *message)
{
  HjParser parser;
  HjNode *root = parse (&parser, text);

  if (root != NULL || parser.error == NULL || strstr (parser.error, message) == NULL)
    g_error ("%s: expected an error with \"%s\", got %s", text, message,
             root != NULL ? "a tree" : parser.error);
  hj_parser_clear (&parser);
}

/* `text` is a single string; its decoded bytes must equal `expected`. */
static void
assert_string (const char *text, const char *expected)
{
  HjParser parser;
  HjNode *root = parse (&parser, text);

  if (root == NULL)
    g_error ("%s: %s", text, parser.error);
  g_assert_cmpint (root->type, ==, HJ_STRING);
  g_assert_cmpstr (root->v.s, ==, expected);
  hj_parser_clear (&parser);
}

/* A member that must be there. */
static HjNode *
member_of (HjNode *object, const char *key)
{
  HjNode *value = hj_member (object, key);

  if (value == NULL)
    g_error ("no member \"%s\"", key);
  return value;
}

static void
test_empty_input (void)
{
  HjParser parser;

  g_assert_null (parse_len (&parser, "", 0));
  g_assert_cmpstr (parser.error, ==, "line 1, column 1: expected a value (at the end of the file)");
  hj_parser_clear (&parser);
  assert_refused (" \n\t\r ", "expected a value (at the end of the file)");
  /* Byte-order marks and other text are not JSON whitespace. */
  assert_refused ("\xef\xbb\xbf{}", "expected a value");
  assert_refused ("\f[]", "expected a value");
}

static void
test_scalars_and_containers (void)
{
  HjParser parser;
  HjNode *root;

  root = parse (&parser, "true");
  g_assert_cmpint (root->type, ==, HJ_BOOL);
  g_assert_true (root->v.b);
  hj_parser_clear (&parser);
  root = parse (&parser, " false ");
  g_assert_cmpint (root->type, ==, HJ_BOOL);
  g_assert_false (root->v.b);
  hj_parser_clear (&parser);
  root = parse (&parser, "null");
  g_assert_cmpint (root->type, ==, HJ_NULL);
  hj_parser_clear (&parser);

  /* Empty containers at the top, before anything was collected. */
  root = parse (&parser, "[]");
  g_assert_cmpint (root->type, ==, HJ_ARRAY);
  g_assert_cmpuint (hj_length (root), ==, 0);
  hj_parser_clear (&parser);
  root = parse (&parser, "{}");
  g_assert_cmpint (root->type, ==, HJ_OBJECT);
  g_assert_cmpuint (root->n, ==, 0);
  g_assert_null (hj_member (root, "a"));
  hj_parser_clear (&parser);

  root = parse (&parser, "{ \"b\" : [1, [], {}, \"x\"], \"a\": {\"b\": null} }");
  g_assert_nonnull (root);
  g_assert_cmpint (root->type, ==, HJ_OBJECT);
  g_assert_cmpuint (root->n, ==, 2);
  /* Members keep the document's order. */
  g_assert_cmpstr (root->v.members[0].key, ==, "b");
  g_assert_cmpstr (root->v.members[1].key, ==, "a");
  {
    HjNode *b = member_of (root, "b");
    HjNode *a = member_of (root, "a");

    g_assert_cmpint (b->type, ==, HJ_ARRAY);
    g_assert_cmpuint (hj_length (b), ==, 4);
    g_assert_cmpint (hj_element (b, 0)->type, ==, HJ_INT);
    g_assert_cmpint (hj_element (b, 0)->v.i, ==, 1);
    g_assert_cmpint (hj_element (b, 1)->type, ==, HJ_ARRAY);
    g_assert_cmpuint (hj_length (hj_element (b, 1)), ==, 0);
    g_assert_cmpint (hj_element (b, 2)->type, ==, HJ_OBJECT);
    g_assert_cmpstr (hj_element (b, 3)->v.s, ==, "x");
    g_assert_cmpint (member_of (a, "b")->type, ==, HJ_NULL);
  }
  {
    HjIter iter;
    const char *key;
    HjNode *value;
    guint n = 0;

    hj_iter_init (&iter, root);
    while (hj_iter_next (&iter, &key, &value))
      g_assert_cmpstr (key, ==, n++ == 0 ? "b" : "a");
    g_assert_cmpuint (n, ==, 2);
  }
  hj_parser_clear (&parser);

  /* Any value may be the top level (RFC 8259 §2). */
  assert_string ("\"top\"", "top");
  root = parse (&parser, "42");
  g_assert_cmpint (root->v.i, ==, 42);
  hj_parser_clear (&parser);
}

static void
test_nesting (void)
{
  GString *text = g_string_new (NULL);
  HjParser parser;
  HjNode *root;

  /* HJ_MAX_DEPTH arrays in each other are fine ... */
  for (guint i = 0; i < HJ_MAX_DEPTH; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < HJ_MAX_DEPTH; i++)
    g_string_append_c (text, ']');
  root = parse (&parser, text->str);
  g_assert_nonnull (root);
  for (guint i = 1; i < HJ_MAX_DEPTH; i++)
    {
      g_assert_cmpuint (hj_length (root), ==, 1);
      root = hj_element (root, 0);
    }
  g_assert_cmpuint (hj_length (root), ==, 0);
  hj_parser_clear (&parser);

  /* ... one more is refused, objects counting like arrays ... */
  g_string_truncate (text, 0);
  for (guint i = 0; i < HJ_MAX_DEPTH; i++)
    g_string_append (text, "{\"a\":");
  g_string_append (text, "[]");
  for (guint i = 0; i < HJ_MAX_DEPTH; i++)
    g_string_append_c (text, '}');
  assert_refused (text->str, "nested deeper than 64 levels");

  /* ... and a hostile depth stops there, not at the end of the stack. */
  g_string_truncate (text, 0);
  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (text, '[');
  assert_refused (text->str, "line 1, column 65: nested deeper than 64 levels");
  g_string_free (text, TRUE);

  assert_refused ("[[1, 2]", "expected ',' or ']' (at the end of the file)");
  assert_refused ("[1}", "expected ',' or ']'");
  assert_refused ("{\"a\": 1]", "expected ',' or '}'");
}

static void
test_escapes (void)
{
  assert_string ("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\" \\ / \b \f \n \r \t");
  /* \u escapes become UTF-8: one, two and three bytes, hex in either case. */
  assert_string ("\"\\u0041\\u00e9\\u00E9\\u20ac\"", "A\xc3\xa9\xc3\xa9\xe2\x82\xac");
  assert_string ("\"\\u007f\\u0080\\u07ff\\u0800\\uffff\"",
                 "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf");
  /* Raw UTF-8 passes through unchanged; so does an escaped control character. */
  assert_string ("\"gr\xc3\xbc\xc3\x9f \xf0\x9f\x98\x80\"", "gr\xc3\xbc\xc3\x9f \xf0\x9f\x98\x80");
  assert_string ("\"\\u0001\\u001f\"", "\x01\x1f");
  assert_string ("\"\"", "");

  assert_refused ("\"\\x41\"", "unknown escape in a string");
  assert_refused ("\"\\'\"", "unknown escape in a string");
  assert_refused ("\"\\u00g0\"", "bad \\u escape");
  assert_refused ("\"\\u12", "truncated \\u escape");
  assert_refused ("\"\\u0000\"", "\\u0000 (a NUL character) is not allowed");
  assert_refused ("\"a\tb\"", "control character inside a string");
  assert_refused ("\"a\nb\"", "control character inside a string");
  assert_refused ("\"abc", "unterminated string");
  assert_refused ("\"abc\\", "unterminated string");
  assert_refused ("'a'", "expected a value");
}

static void
test_surrogates (void)
{
  /* U+1F600 and the two ends of the supplementary planes. */
  assert_string ("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80");
  assert_string ("\"\\uD800\\uDC00\"", "\xf0\x90\x80\x80");
  assert_string ("\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf");
  /* The result may be longer than its escape only by the pair rule: the
   * buffer is sized by the raw text; many pairs in a row must still fit. */
  {
    GString *text = g_string_new ("\"");
    GString *expected = g_string_new (NULL);

    for (guint i = 0; i < 1000; i++)
      {
        g_string_append (text, "\\ud83d\\ude00\\u00e9");
        g_string_append (expected, "\xf0\x9f\x98\x80\xc3\xa9");
      }
    g_string_append_c (text, '"');
    assert_string (text->str, expected->str);
    g_string_free (text, TRUE);
    g_string_free (expected, TRUE);
  }

  assert_refused ("\"\\ud83d\"", "unpaired UTF-16 surrogate");
  assert_refused ("\"\\ud83dx\"", "unpaired UTF-16 surrogate");
  assert_refused ("\"\\ud83d\\u0041\"", "unpaired UTF-16 surrogate");
  assert_refused ("\"\\ud83d\\ud83d\"", "unpaired UTF-16 surrogate");
  assert_refused ("\"\\ude00\"", "unpaired UTF-16 surrogate");
  assert_refused ("\"\\ude00\\ud83d\"", "unpaired UTF-16 surrogate");
}

/* `text` is a number parsed as a double equal to `expected` (bit for bit,
 * so -0.0 and 0.0 differ). */
static void
assert_double (const char *text, double expected)
{
  HjParser parser;
  HjNode *root = parse (&parser, text);

  if (root == NULL)
    g_error ("%s: %s", text, parser.error);
  g_assert_cmpint (root->type, ==, HJ_DOUBLE);
  if (memcmp (&root->v.d, &expected, sizeof expected) != 0)
    g_error ("%s: read %.17g, expected %.17g", text, root->v.d, expected);
  g_assert_true (hj_double (root) == expected || (isnan (expected) && isnan (root->v.d)));
  hj_parser_clear (&parser);
}

static void
assert_int (const char *text, gint64 expected)
{
  HjParser parser;
  HjNode *root = parse (&parser, text);

  if (root == NULL)
    g_error ("%s: %s", text, parser.error);
  g_assert_cmpint (root->type, ==, HJ_INT);
  g_assert_cmpint (root->v.i, ==, expected);
  hj_parser_clear (&parser);
}

static void
test_numbers (void)
{
  GString *text;

  assert_int ("0", 0);
  assert_int ("-0", 0);
  assert_int ("7", 7);
  assert_int ("-123", -123);
  /* 18 digits: the fast path; 19 digits below 9.2e18 go through strtoll. */
  assert_int ("999999999999999999", G_GINT64_CONSTANT (999999999999999999));
  assert_int ("-999999999999999999", -G_GINT64_CONSTANT (999999999999999999));
  assert_int ("1000000000000000001", G_GINT64_CONSTANT (1000000000000000001));
  assert_int ("9199999999999999000", G_GINT64_CONSTANT (9199999999999999000));
  /* Integers that may not fit a gint64 are doubles. */
  assert_double ("9223372036854775807", 9223372036854775807.0);
  assert_double ("-9223372036854775808", -9223372036854775808.0);
  assert_double ("123456789012345678901234567890", 1.2345678901234568e29);

  /* A fraction or an exponent makes a double, even when integral. */
  assert_double ("1.0", 1.0);
  assert_double ("1e2", 100.0);
  assert_double ("1E+2", 100.0);
  assert_double ("-2.5e-3", -0.0025);
  assert_double ("-0.0", -0.0);
  assert_double ("0.1", 0.1);
  assert_double ("0.30000000000000004", 0.30000000000000004);
  /* Float edges: the largest double, the smallest normal and subnormal,
   * overflow to infinity and underflow to zero (the schema refuses
   * non-finite numbers, not the reader). */
  assert_double ("1.7976931348623157e308", DBL_MAX);
  assert_double ("-1.7976931348623157e308", -DBL_MAX);
  assert_double ("2.2250738585072014e-308", DBL_MIN);
  assert_double ("4.9406564584124654e-324", 4.9406564584124654e-324);
  assert_double ("1e309", INFINITY);
  assert_double ("-1e309", -INFINITY);
  assert_double ("1e-400", 0.0);
  /* Longer than the parser's stack buffer. */
  text = g_string_new ("1.");
  for (guint i = 0; i < 200; i++)
    g_string_append_c (text, '0');
  g_string_append (text, "1");
  assert_double (text->str, 1.0);
  g_string_free (text, TRUE);

  assert_refused ("01", "unexpected text after the top-level value");
  assert_refused ("[01]", "expected ',' or ']'");
  assert_refused ("-", "expected a value");
  assert_refused ("+1", "expected a value");
  assert_refused (".5", "expected a value");
  assert_refused ("1.", "a digit must follow the decimal point");
  assert_refused ("1.e3", "a digit must follow the decimal point");
  assert_refused ("1e", "a digit must follow the exponent");
  assert_refused ("1e+", "a digit must follow the exponent");
  assert_refused ("NaN", "expected a value");
  assert_refused ("Infinity", "expected a value");
  assert_refused ("-Infinity", "expected a value");
  assert_refused ("0x10", "unexpected text after the top-level value");
}

static void
test_duplicate_keys (void)
{
  HjParser parser;
  HjNode *root;

  assert_refused ("{\"a\": 1, \"a\": 2}", "duplicate member \"a\"");
  assert_refused ("{\"a\": 1, \"b\": 2, \"c\": 3, \"b\": 4}", "line 1, column 29: duplicate member \"b\"");
  /* Names are compared after unescaping. */
  assert_refused ("{\"a\": 1, \"\\u0061\": 2}", "duplicate member \"a\"");
  assert_refused ("{\"\": 1, \"\": 2}", "duplicate member \"\"");
  /* The same name in different objects, or as a value, is fine. */
  root = parse (&parser, "{\"a\": {\"a\": \"a\"}, \"b\": [{\"a\": 1}, {\"a\": 2}], \"A\": 3}");
  g_assert_nonnull (root);
  g_assert_cmpint (member_of (root, "A")->v.i, ==, 3);
  hj_parser_clear (&parser);
}

/* Many members: duplicates are found wherever they are, and the check is a
 * hash set, not a comparison with every earlier member (issue 14: a
 * manifest of 100 000 metadata keys took minutes). */
static void
test_many_members (void)
{
  const guint n = 100000;
  GString *text = g_string_new ("{");
  HjParser parser;
  HjNode *root;
  char key[32];

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s\"k%u\": %u", i > 0 ? ", " : "", i, i);
  g_string_append_c (text, '}');
  root = parse (&parser, text->str);
  g_assert_nonnull (root);
  g_assert_cmpuint (root->n, ==, n);
  g_assert_cmpstr (root->v.members[n - 1].key, ==, "k99999");
  g_assert_cmpint (root->v.members[n - 1].value->v.i, ==, n - 1);
  hj_parser_clear (&parser);

  /* The last member repeats the first. */
  g_string_truncate (text, text->len - 1);
  g_string_append (text, ", \"k0\": 0}");
  assert_refused (text->str, "duplicate member \"k0\"");

  /* Nested objects each have their own set. */
  g_string_assign (text, "[");
  for (guint i = 0; i < 1000; i++)
    {
      g_snprintf (key, sizeof key, "k%u", i % 7);
      g_string_append_printf (text, "%s{\"%s\": 1, \"x\": {\"%s\": 2}}", i > 0 ? "," : "", key, key);
    }
  g_string_append_c (text, ']');
  root = parse (&parser, text->str);
  g_assert_nonnull (root);
  g_assert_cmpuint (hj_length (root), ==, 1000);
  hj_parser_clear (&parser);
  g_string_free (text, TRUE);
}

static void
test_trailing_garbage (void)
{
  HjParser parser;

  g_assert_nonnull (parse (&parser, "[1] \n\t\r "));
  hj_parser_clear (&parser);
  assert_refused ("{} x", "line 1, column 4: unexpected text after the top-level value");
  assert_refused ("[1] ]", "unexpected text after the top-level value");
  assert_refused ("1 2", "unexpected text after the top-level value");
  assert_refused ("{}{}", "unexpected text after the top-level value");
  assert_refused ("truex", "unexpected text after the top-level value");
  assert_refused ("tru", "expected a value");
  assert_refused ("nul", "expected a value");
  assert_refused ("[1,]", "expected a value");
  assert_refused ("{\"a\": 1,}", "expected a member name in double quotes");
  assert_refused ("{a: 1}", "expected a member name in double quotes");
  assert_refused ("{\"a\" 1}", "expected ':' after a member name");
  assert_refused ("[1] // comment", "unexpected text after the top-level value");
  assert_refused ("/* comment */ 1", "expected a value");
  /* The text ends where its length says, even before a NUL. */
  g_assert_nonnull (parse_len (&parser, "[1]garbage", 3));
  hj_parser_clear (&parser);
}

static void
test_error_position (void)
{
  /* Lines count '\n'; columns count characters, not bytes. */
  assert_refused ("{\n  \"a\": tru\n}", "line 2, column 8: expected a value");
  assert_refused ("{\n  \"\xc3\xa9\xc3\xa9\": tru\n}", "line 2, column 9: expected a value");
  assert_refused ("[1,\n2,\n", "line 3, column 1: expected a value (at the end of the file)");
}

static void
test_json_paths (void)
{
  HsJsonPath instances = { NULL, "instances", 0 };
  HsJsonPath third = { &instances, NULL, 3 };
  HsJsonPath metadata = { &third, "metadata", 0 };
  HsJsonPath odd = { &metadata, "a \"b\"\n\x01", 0 };
  HsJsonPath ident = { &metadata, "_x9", 0 };
  char *text;

  text = hs_json_path_to_string (NULL);
  g_assert_cmpstr (text, ==, "$");
  g_free (text);
  text = hs_json_path_to_string (&metadata);
  g_assert_cmpstr (text, ==, "$.instances[3].metadata");
  g_free (text);
  text = hs_json_path_to_string (&odd);
  g_assert_cmpstr (text, ==, "$.instances[3].metadata[\"a \\\"b\\\"\\n\\u0001\"]");
  g_free (text);
  text = hs_json_path_to_string (&ident);
  g_assert_cmpstr (text, ==, "$.instances[3].metadata._x9");
  g_free (text);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/json-reader/empty-input", test_empty_input);
  g_test_add_func ("/hs/json-reader/scalars-and-containers", test_scalars_and_containers);
  g_test_add_func ("/hs/json-reader/nesting", test_nesting);
  g_test_add_func ("/hs/json-reader/escapes", test_escapes);
  g_test_add_func ("/hs/json-reader/surrogates", test_surrogates);
  g_test_add_func ("/hs/json-reader/numbers", test_numbers);
  g_test_add_func ("/hs/json-reader/duplicate-keys", test_duplicate_keys);
  g_test_add_func ("/hs/json-reader/many-members", test_many_members);
  g_test_add_func ("/hs/json-reader/trailing-garbage", test_trailing_garbage);
  g_test_add_func ("/hs/json-reader/error-position", test_error_position);
  g_test_add_func ("/hs/json-reader/json-paths", test_json_paths);
  return g_test_run ();
}
