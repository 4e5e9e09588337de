/* test-csv.c — RFC 4180 reader with line numbers */
#include <heatscope/heatscope.h>

#include <json-glib/json-glib.h>
#include <string.h>

#include "hs-test-util.h"

static void
expect_row (HsCsvReader *reader, guint want_line, const char * const *want)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) row = NULL;
  guint line = 0;

  row = hs_csv_reader_next (reader, &line, &error);
  g_assert_no_error (error);
  g_assert_nonnull (row);
  g_assert_cmpuint (line, ==, want_line);
  g_assert_cmpstrv (row, want);
}

static void
test_syntax (void)
{
  static const char text[] =
    "\xef\xbb\xbf" "a,b,c,\r\n"                       /* BOM, CRLF, trailing empty column */
    "1,\"two, with comma\",\"say \"\"hi\"\"\",\r\n"
    "\"multi\nline\",x,,\n"                         /* a field spanning lines 3-4 */
    "5'3\",plain,\"\",\n"                           /* bare quote inside an unquoted field */
    "last,row,no,newline";
  g_autoptr(HsCsvReader) reader = hs_csv_reader_new_from_data (text, strlen (text), "t.csv");
  g_autoptr(GError) error = NULL;
  const char *r1[] = { "a", "b", "c", "", NULL };
  const char *r2[] = { "1", "two, with comma", "say \"hi\"", "", NULL };
  const char *r3[] = { "multi\nline", "x", "", "", NULL };
  const char *r4[] = { "5'3\"", "plain", "", "", NULL };
  const char *r5[] = { "last", "row", "no", "newline", NULL };
  guint line;

  expect_row (reader, 1, r1);
  expect_row (reader, 2, r2);
  expect_row (reader, 3, r3);
  expect_row (reader, 5, r4);
  expect_row (reader, 6, r5);
  g_assert_null (hs_csv_reader_next (reader, &line, &error));
  g_assert_no_error (error);
  g_assert_cmpint (hs_csv_find_column ((char **) r1, "c"), ==, 2);
  g_assert_cmpint (hs_csv_find_column ((char **) r1, "d"), ==, -1);
}

static void
test_errors (void)
{
  static const char text[] =
    "h1,h2\n"
    "ok,1\n"
    "bad\xff" "byte,2\n"            /* invalid UTF-8 on line 3 */
    "\"closed\"junk,3\n"            /* text after a closing quote, line 4 */
    "fine,4\n"
    "\"never closed,5\n";
  g_autoptr(HsCsvReader) reader = hs_csv_reader_new_from_data (text, sizeof text - 1, "bad.csv");
  g_autoptr(GError) error = NULL;
  const char *h[] = { "h1", "h2", NULL };
  const char *ok[] = { "ok", "1", NULL };
  const char *fine[] = { "fine", "4", NULL };
  char **row;
  guint line = 0;

  expect_row (reader, 1, h);
  expect_row (reader, 2, ok);
  row = hs_csv_reader_next (reader, &line, &error);
  g_assert_null (row);
  g_assert_error (error, HS_CSV_ERROR, HS_CSV_ERROR_ENCODING);
  g_assert_nonnull (strstr (error->message, "bad.csv:3:"));
  g_clear_error (&error);
  row = hs_csv_reader_next (reader, &line, &error);
  g_assert_null (row);
  g_assert_error (error, HS_CSV_ERROR, HS_CSV_ERROR_SYNTAX);
  g_assert_nonnull (strstr (error->message, "bad.csv:4:"));
  g_clear_error (&error);
  expect_row (reader, 5, fine);
  row = hs_csv_reader_next (reader, &line, &error);
  g_assert_null (row);
  g_assert_error (error, HS_CSV_ERROR, HS_CSV_ERROR_SYNTAX);
  g_assert_nonnull (strstr (error->message, "bad.csv:6: unterminated"));
  g_clear_error (&error);
  g_assert_null (hs_csv_reader_next (reader, &line, &error));
  g_assert_no_error (error);
}

static void
test_tsv_and_empty (void)
{
  static const char text[] = "a\tb \"c\"\n\n1\t2\r3\t4";
  g_autoptr(HsCsvReader) reader = hs_csv_reader_new_from_data (text, strlen (text), "t.tsv");
  g_autoptr(HsCsvReader) empty = hs_csv_reader_new_from_data ("", 0, "empty.csv");
  g_autoptr(GError) error = NULL;
  const char *r1[] = { "a", "b \"c\"", NULL };
  const char *blank[] = { "", NULL };
  const char *r3[] = { "1", "2", NULL };
  const char *r4[] = { "3", "4", NULL };
  guint line;

  hs_csv_reader_set_separator (reader, '\t');
  expect_row (reader, 1, r1);
  expect_row (reader, 2, blank);
  expect_row (reader, 3, r3);
  expect_row (reader, 4, r4);
  g_assert_null (hs_csv_reader_next (empty, &line, &error));
  g_assert_no_error (error);
  g_assert_null (hs_csv_reader_new_from_file ("/nonexistent/x.csv", &error));
  g_assert_error (error, HS_CSV_ERROR, HS_CSV_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent/x.csv"));
}

/* The real metadata.csv / structure.csv: every field equals what Python's
 * csv module reads. */
static void
test_real_files (void)
{
  static const char *files[] = { "cxr-covid-seg/metadata.csv", "cxr-covid-seg/structure.csv",
                                 "cxr-lung-boxes/metadata.csv", "nih-boxes/BBox_List_2017.csv" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = hs_test_shared_path (files[f]);
      const char *args[] = { path, NULL };
      g_autofree char *out = NULL;
      g_autoptr(HsCsvReader) reader = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonParser) parser = NULL;
      JsonArray *rows;
      guint n = 0;

      if (path == NULL)
        return;
      out = hs_test_python ("import csv, json, sys\n"
                            "with open(sys.argv[1], newline='', encoding='utf-8') as f:\n"
                            "    print(json.dumps(list(csv.reader(f))))\n", args);
      if (out == NULL)
        return;
      parser = json_parser_new ();
      g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
      rows = json_node_get_array (json_parser_get_root (parser));
      reader = hs_csv_reader_new_from_file (path, &error);
      g_assert_no_error (error);
      while (TRUE)
        {
          g_auto(GStrv) row = hs_csv_reader_next (reader, NULL, &error);
          JsonArray *want;

          g_assert_no_error (error);
          if (row == NULL)
            break;
          g_assert_cmpuint (n, <, json_array_get_length (rows));
          want = json_array_get_array_element (rows, n);
          g_assert_cmpuint (g_strv_length (row), ==, json_array_get_length (want));
          for (guint k = 0; k < json_array_get_length (want); k++)
            g_assert_cmpstr (row[k], ==, json_array_get_string_element (want, k));
          n++;
        }
      g_assert_cmpuint (n, ==, json_array_get_length (rows));
      g_test_message ("%s: %u records", files[f], n);
    }
}

/* Fields written with hs_csv_append_field read back as they were; only
 * fields that need it are quoted. */
static void
test_append_field (void)
{
  const char *fields[] = { "plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", "", "ünï ✓" };
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(HsCsvReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) record = NULL;
  guint line = 0;

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      hs_csv_append_field (out, fields[i]);
    }
  g_string_append_c (out, ',');
  hs_csv_append_field (out, NULL);
  g_assert_cmpstr (out->str, ==, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\rhere\",,ünï ✓,");

  g_string_append_c (out, '\n');
  reader = hs_csv_reader_new_from_data (out->str, out->len, "fields.csv");
  record = hs_csv_reader_next (reader, &line, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (line, ==, 1);
  g_assert_cmpuint (g_strv_length (record), ==, G_N_ELEMENTS (fields) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    g_assert_cmpstr (record[i], ==, fields[i]);
  g_assert_cmpstr (record[G_N_ELEMENTS (fields)], ==, "");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/csv/syntax", test_syntax);
  g_test_add_func ("/hs/csv/errors", test_errors);
  g_test_add_func ("/hs/csv/tsv-and-empty", test_tsv_and_empty);
  g_test_add_func ("/hs/csv/real-files", test_real_files);
  g_test_add_func ("/hs/csv/append-field", test_append_field);
  return g_test_run ();
}
