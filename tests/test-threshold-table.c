/* test-threshold-table.c — CheXlocalize's per-class threshold table (tuning_results.csv) */
#include <heatscope/heatscope.h>

#include <math.h>
#include <string.h>

/* As CheXlocalize's tune_heatmap_threshold.py writes it (pandas to_csv, index=False). */
static const char tuning_results[] =
  "threshold,task\n"
  "0.4,Airspace Opacity\n"
  "0.4,Atelectasis\n"
  "0.2,Cardiomegaly\n"
  "0.7,Lung Lesion\n"
  "0.6,Pleural Effusion\n";

static void
test_reads_chexlocalize_format (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsThresholdTable) table =
    hs_threshold_table_new_from_data (tuning_results, strlen (tuning_results), "tuning_results.csv", &error);
  double t = -1;

  g_assert_no_error (error);
  g_assert_cmpuint (hs_threshold_table_get_size (table), ==, 5);
  g_assert_true (hs_threshold_table_lookup (table, "Cardiomegaly", &t));
  g_assert_cmpfloat (t, ==, 0.2);
  g_assert_true (hs_threshold_table_lookup (table, "lung lesion", &t));   /* ASCII case ignored */
  g_assert_cmpfloat (t, ==, 0.7);
  g_assert_true (hs_threshold_table_lookup (table, " Pleural Effusion ", &t));
  g_assert_cmpfloat (t, ==, 0.6);
  t = -1;
  g_assert_false (hs_threshold_table_lookup (table, "Edema", &t));
  g_assert_cmpfloat (t, ==, -1);   /* untouched */
  g_assert_false (hs_threshold_table_lookup (table, NULL, &t));

  /* Columns in another order, an extra column, CRLF and a quoted task: still read. */
  {
    const char text[] = "task,mIoU,threshold\r\n\"Edema, interstitial\",0.31,0.5\r\n";
    g_autoptr(HsThresholdTable) other = hs_threshold_table_new_from_data (text, strlen (text), "t.csv", &error);

    g_assert_no_error (error);
    g_assert_true (hs_threshold_table_lookup (other, "Edema, interstitial", &t));
    g_assert_cmpfloat (t, ==, 0.5);
  }
}

static void
test_errors (void)
{
  struct { const char *text, *message; } cases[] = {
    { "", "bad.csv: empty file" },
    { "thr,task\n0.4,Edema\n", "bad.csv:1: no 'threshold' column" },
    { "threshold,class\n0.4,Edema\n", "bad.csv:1: no 'task' column" },
    { "threshold,task\nhigh,Edema\n", "bad.csv:2: threshold 'high' of task 'Edema' is not a number in [0, 1]" },
    { "threshold,task\n1.5,Edema\n", "bad.csv:2: threshold '1.5' of task 'Edema' is not a number in [0, 1]" },
    { "threshold,task\nnan,Edema\n", "bad.csv:2: threshold 'nan' of task 'Edema' is not a number in [0, 1]" },
    { "threshold,task\n0.4,Edema\n0.5,edema\n", "bad.csv:3: task 'edema' appears twice" },
    { "threshold,task\n0.4,\n", "bad.csv:2: empty task" },
    { "threshold,task\n0.4\n", "bad.csv:2: 1 fields, the header has 2" },
    { "threshold,task\n", "bad.csv: no threshold rows" },
    { "threshold,task\n0.4,\"Edema\n", "bad.csv:2" },   /* unterminated quote: the CSV reader says so */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HsThresholdTable) table =
        hs_threshold_table_new_from_data (cases[i].text, strlen (cases[i].text), "bad.csv", &error);

      g_assert_null (table);
      g_assert_nonnull (error);
      if (!g_str_has_prefix (error->message, cases[i].message))
        g_error ("case %u: got \"%s\", expected \"%s…\"", i, error->message, cases[i].message);
    }
  {
    g_autoptr(GError) error = NULL;

    g_assert_null (hs_threshold_table_load ("/nonexistent/tuning_results.csv", &error));
    g_assert_error (error, HS_THRESHOLD_TABLE_ERROR, HS_THRESHOLD_TABLE_ERROR_IO);
    g_assert_nonnull (strstr (error->message, "/nonexistent/tuning_results.csv"));
  }
}

static void
test_class_label (void)
{
  HsSentence *cls = hs_sentence_new ("c", "Atelectasis");
  HsSentence *one = hs_sentence_new ("s", "Small left pleural effusion.");
  HsSentence *two = hs_sentence_new ("t", "Effusion and atelectasis.");
  HsSentence *none = hs_sentence_new ("u", "Free prompt.");

  hs_sentence_set_kind (cls, "class");
  hs_sentence_add_label (one, hs_label_new ("Pleural Effusion", "positive", NULL));
  hs_sentence_add_label (two, hs_label_new ("Pleural Effusion", "positive", NULL));
  hs_sentence_add_label (two, hs_label_new ("Atelectasis", "positive", NULL));
  g_assert_cmpstr (hs_sentence_get_class_label (cls), ==, "Atelectasis");
  g_assert_cmpstr (hs_sentence_get_class_label (one), ==, "Pleural Effusion");
  g_assert_null (hs_sentence_get_class_label (two));
  g_assert_null (hs_sentence_get_class_label (none));
  hs_sentence_free (cls);
  hs_sentence_free (one);
  hs_sentence_free (two);
  hs_sentence_free (none);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/threshold-table/reads-chexlocalize-format", test_reads_chexlocalize_format);
  g_test_add_func ("/hs/threshold-table/errors", test_errors);
  g_test_add_func ("/hs/threshold-table/class-label", test_class_label);
  return g_test_run ();
}
