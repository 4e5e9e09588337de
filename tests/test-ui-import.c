/* test-ui-import.c — File → Import driven programmatically: the real YOLO
 * brain-MRI set through the worker thread, the dataset it writes, skipped
 * rows listed as FILE:LINE: reason, errors in the status line, Open Dataset */
#include "hs-import-dialog.h"
#include "hs-ui-fixture.h"

static gboolean
not_running (gpointer data)
{
  return !hs_import_dialog_get_running (data);
}

static HsImportDialog *
new_dialog (void)
{
  HsImportDialog *dialog = hs_import_dialog_new (NULL);

  gtk_window_present (GTK_WINDOW (dialog));
  hs_ui_settle ();
  return dialog;
}

static void
destroy_dialog (HsImportDialog *dialog)
{
  g_object_ref (dialog);
  gtk_window_destroy (GTK_WINDOW (dialog));
  hs_ui_settle ();
  hs_ui_assert_finalized (dialog);
}

static void
run_import (HsImportDialog *dialog)
{
  g_assert_true (hs_import_dialog_start (dialog));
  g_assert_true (hs_import_dialog_get_running (dialog));
  hs_ui_wait_until (not_running, dialog);
  hs_ui_settle ();
}

static void
on_open_dataset (HsImportDialog *dialog, GFile *folder, char **path)
{
  *path = g_file_get_path (folder);
}

/* The label file's first box, in pixels, computed here from the YOLO text
 * (class xc yc w h, normalised) independently of the importer. */
static void
expected_box (const char *txt, guint width, guint height, double *x1, double *y1, double *x2, double *y2)
{
  g_autofree char *text = NULL;
  int cls;
  double xc, yc, w, h;

  g_assert_true (g_file_get_contents (txt, &text, NULL, NULL));
  g_assert_cmpint (sscanf (text, "%d %lf %lf %lf %lf", &cls, &xc, &yc, &w, &h), ==, 5);
  *x1 = (xc - w / 2) * width;
  *x2 = (xc + w / 2) * width;
  *y1 = (yc - h / 2) * height;
  *y2 = (yc + h / 2) * height;
}

static void
test_real_yolo (void)
{
  g_autofree char *top = hs_test_shared_path ("mri-brain-tumor");
  g_autofree char *dir = NULL, *out = NULL, *classes = NULL, *opened = NULL, *txt = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  const HsImportSummary *summary;
  HsImportDialog *dialog;
  HsInstance *instance = NULL;
  HsRegion *region;
  HsBox *box;
  double x1, y1, x2, y2;

  if (hs_ui_skip_without_display () || top == NULL)
    return;
  dir = hs_test_make_tmpdir ();
  out = g_build_filename (dir, "brain", NULL);
  classes = g_build_filename (dir, "classes.txt", NULL);
  g_assert_true (g_file_set_contents (classes, "pituitary\nmeningioma\nglioma\n", -1, NULL));

  dialog = new_dialog ();
  g_assert_true (hs_import_dialog_set_format (dialog, "yolo"));
  g_assert_false (hs_import_dialog_set_format (dialog, "no-such-format"));
  g_assert_cmpstr (hs_import_dialog_get_format (dialog), ==, "yolo");
  /* incomplete form: Import says what is missing */
  g_assert_false (hs_import_dialog_start (dialog));
  g_assert_cmpstr (hs_import_dialog_get_status (dialog), ==, "Add the source files or folders to import");
  hs_import_dialog_add_source (dialog, top);
  g_assert_false (hs_import_dialog_start (dialog));
  g_assert_cmpstr (hs_import_dialog_get_status (dialog), ==, "Choose the output folder");
  hs_import_dialog_set_output (dialog, out);
  hs_import_dialog_set_extra (dialog, classes);
  run_import (dialog);

  g_assert_null (hs_import_dialog_get_error (dialog));
  summary = hs_import_dialog_get_summary (dialog);
  g_assert_nonnull (summary);
  /* SOURCE.md: 28 slices, one box each */
  g_assert_cmpuint (summary->n_instances, ==, 28);
  g_assert_cmpuint (summary->n_targets, ==, 28);
  g_assert_cmpuint (summary->skipped->len, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (hs_import_dialog_get_skipped (dialog)), ==, 0);
  g_assert_nonnull (strstr (hs_import_dialog_get_status (dialog), "28 instances"));
  g_assert_nonnull (strstr (hs_import_dialog_get_status (dialog), "0 rows skipped"));

  /* the dataset on disk */
  dataset = hs_dataset_load (out, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 28);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset) && instance == NULL; i++)
    {
      HsInstance *candidate = hs_dataset_get_instance (dataset, i);
      if (g_str_has_suffix (candidate->image, "1001.jpg"))
        instance = candidate;
    }
  g_assert_nonnull (instance);
  g_assert_cmpuint (instance->width, ==, 512);
  g_assert_cmpuint (instance->height, ==, 512);
  g_assert_cmpuint (instance->regions->len, ==, 1);
  region = g_ptr_array_index (instance->regions, 0);
  /* 0/ holds the pituitary tumours (class 0), named by classes.txt */
  g_assert_cmpstr (region->name, ==, "pituitary");
  g_assert_cmpuint (region->boxes->len, ==, 1);
  box = &g_array_index (region->boxes, HsBox, 0);
  txt = g_build_filename (top, "0", "1001.txt", NULL);
  expected_box (txt, 512, 512, &x1, &y1, &x2, &y2);
  g_assert_cmpfloat_with_epsilon (box->x1, x1, 1e-6);
  g_assert_cmpfloat_with_epsilon (box->y1, y1, 1e-6);
  g_assert_cmpfloat_with_epsilon (box->x2, x2, 1e-6);
  g_assert_cmpfloat_with_epsilon (box->y2, y2, 1e-6);
  {
    g_autoptr(GPtrArray) problems = NULL;
    g_assert_true (hs_dataset_validate (out, &problems));
  }

  /* Open Dataset hands the folder to the window */
  g_signal_connect (dialog, "open-dataset", G_CALLBACK (on_open_dataset), &opened);
  g_object_ref (dialog);
  hs_import_dialog_open_result (dialog);
  g_assert_cmpstr (opened, ==, out);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (dialog)));
  g_object_unref (dialog);
  hs_ui_settle ();
}

/* A bad label line is listed as FILE:LINE: reason and the rest imported;
 * importing again into the same folder fails with the reason shown. */
static void
test_skipped_and_errors (void)
{
  g_autofree char *dir = NULL, *src = NULL, *image = NULL, *label = NULL, *out = NULL;
  g_autofree char *expected_prefix = NULL;
  g_autoptr(GtkStringObject) first = NULL;
  const HsImportSummary *summary;
  HsImportDialog *dialog;

  if (hs_ui_skip_without_display ())
    return;
  dir = hs_test_make_tmpdir ();
  src = g_build_filename (dir, "src", NULL);
  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  image = g_build_filename (src, "a.png", NULL);
  label = g_build_filename (src, "a.txt", NULL);
  out = g_build_filename (dir, "out", NULL);
  hs_ui_write_image (image, 1);
  g_assert_true (g_file_set_contents (label, "0 0.5 0.5 0.25 0.25\nnot a box\n", -1, NULL));

  dialog = new_dialog ();
  hs_import_dialog_set_format (dialog, "yolo");
  hs_import_dialog_add_source (dialog, src);
  hs_import_dialog_add_source (dialog, src); /* once only */
  hs_import_dialog_set_output (dialog, out);
  run_import (dialog);
  summary = hs_import_dialog_get_summary (dialog);
  g_assert_nonnull (summary);
  g_assert_cmpuint (summary->n_instances, ==, 1);
  g_assert_cmpuint (summary->n_targets, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (hs_import_dialog_get_skipped (dialog)), ==, 1);
  first = g_list_model_get_item (hs_import_dialog_get_skipped (dialog), 0);
  expected_prefix = g_strdup_printf ("%s:2: ", label);
  g_assert_true (g_str_has_prefix (gtk_string_object_get_string (first), expected_prefix));
  g_assert_nonnull (strstr (hs_import_dialog_get_status (dialog), "1 row skipped"));

  /* again: the folder now holds a dataset */
  run_import (dialog);
  g_assert_null (hs_import_dialog_get_summary (dialog));
  g_assert_error (hs_import_dialog_get_error (dialog), HS_IMPORT_ERROR, HS_IMPORT_ERROR_EXISTS);
  g_assert_true (g_str_has_prefix (hs_import_dialog_get_status (dialog), "Import failed: "));
  g_assert_nonnull (strstr (hs_import_dialog_get_status (dialog), "--force"));
  /* replacing it works */
  hs_import_dialog_set_force (dialog, TRUE);
  run_import (dialog);
  g_assert_nonnull (hs_import_dialog_get_summary (dialog));
  g_assert_null (hs_import_dialog_get_error (dialog));
  destroy_dialog (dialog);
}

/* npy-folder attaches to the dataset open in the window by default. */
static void
test_npy_folder_default (void)
{
  g_autofree char *dir = NULL;
  HsImportDialog *dialog;
  GtkWidget *entry;

  if (hs_ui_skip_without_display ())
    return;
  dir = hs_test_make_tmpdir ();
  dialog = new_dialog ();
  hs_import_dialog_set_current_dataset (dialog, dir);
  hs_import_dialog_set_format (dialog, "npy-folder");
  hs_ui_settle ();
  /* the output entry is the only GtkEntry holding the dataset's path */
  entry = NULL;
  for (GtkWidget *w = gtk_widget_get_first_child (GTK_WIDGET (dialog)); w != NULL;)
    {
      if (GTK_IS_ENTRY (w) && g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (w)), dir) == 0)
        {
          entry = w;
          break;
        }
      /* depth-first walk */
      if (gtk_widget_get_first_child (w) != NULL)
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w != NULL && gtk_widget_get_next_sibling (w) == NULL)
            {
              w = gtk_widget_get_parent (w);
              if (w == GTK_WIDGET (dialog))
                w = NULL;
            }
          if (w != NULL)
            w = gtk_widget_get_next_sibling (w);
        }
    }
  g_assert_nonnull (entry);
  destroy_dialog (dialog);
}

/* Stop, and closing the dialog while the worker runs: the import ends
 * (cancelled or done), nothing touches the destroyed widgets. */
static void
test_stop_and_close (void)
{
  g_autofree char *top = hs_test_shared_path ("mri-brain-tumor");
  g_autofree char *dir = NULL, *out1 = NULL, *out2 = NULL, *manifest = NULL;
  HsImportDialog *dialog;
  const GError *error;

  if (hs_ui_skip_without_display () || top == NULL)
    return;
  dir = hs_test_make_tmpdir ();
  out1 = g_build_filename (dir, "stopped", NULL);
  out2 = g_build_filename (dir, "closed", NULL);

  dialog = new_dialog ();
  hs_import_dialog_set_format (dialog, "yolo");
  hs_import_dialog_add_source (dialog, top);
  hs_import_dialog_set_output (dialog, out1);
  g_assert_true (hs_import_dialog_start (dialog));
  g_assert_false (hs_import_dialog_start (dialog)); /* one at a time */
  hs_import_dialog_cancel (dialog);
  hs_ui_wait_until (not_running, dialog);
  hs_ui_settle ();
  /* the worker may have finished before it saw the request */
  error = hs_import_dialog_get_error (dialog);
  manifest = g_build_filename (out1, HS_DATASET_MANIFEST, NULL);
  if (error != NULL)
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_true (g_str_has_prefix (hs_import_dialog_get_status (dialog), "Import stopped"));
      g_assert_false (g_file_test (manifest, G_FILE_TEST_EXISTS));
    }
  else
    g_assert_true (g_file_test (manifest, G_FILE_TEST_EXISTS));

  hs_import_dialog_set_output (dialog, out2);
  g_object_ref (dialog);
  g_assert_true (hs_import_dialog_start (dialog));
  gtk_window_destroy (GTK_WINDOW (dialog));
  hs_ui_wait_until (not_running, dialog);
  hs_ui_settle ();
  hs_ui_assert_finalized (dialog);
}

/* The Modality field: what it says is recorded on every instance (the
 * real MRI set: MR, so no chest subset); a value without a letter is
 * refused before anything runs, in the status line; npy-folder, which
 * writes no instances, hides the field. */
static void
test_modality (void)
{
  g_autofree char *top = hs_test_shared_path ("mri-brain-tumor");
  g_autofree char *dir = NULL, *out = NULL, *bad = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsImportDialog *dialog;

  if (hs_ui_skip_without_display () || top == NULL)
    return;
  dir = hs_test_make_tmpdir ();
  out = g_build_filename (dir, "brain", NULL);
  bad = g_build_filename (dir, "bad", NULL);

  dialog = new_dialog ();
  hs_import_dialog_set_format (dialog, "yolo");
  hs_import_dialog_add_source (dialog, top);
  hs_import_dialog_set_output (dialog, bad);
  hs_ui_save_screenshot (GTK_WIDGET (dialog), "import-modality-empty");
  hs_import_dialog_set_modality (dialog, "42");
  g_assert_false (hs_import_dialog_start (dialog));
  g_assert_cmpstr (hs_import_dialog_get_status (dialog), ==,
                   "Modality \"42\": no letter in it (say e.g. MR or CR)");
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));

  hs_import_dialog_set_output (dialog, out);
  hs_import_dialog_set_modality (dialog, "MR");
  hs_ui_save_screenshot (GTK_WIDGET (dialog), "import-modality");
  run_import (dialog);
  g_assert_null (hs_import_dialog_get_error (dialog));
  dataset = hs_dataset_load (out, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 28);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);
      HsSentence *sentence = g_ptr_array_index (instance->sentences, 0);

      g_assert_cmpstr (hs_instance_get_metadata (instance, "modality"), ==, "MR");
      g_assert_cmpuint (hs_dataset_get_subsets (dataset, instance, sentence) & HS_SUBSET_ONE_LUNG, ==, 0);
    }

  /* npy-folder: the field is hidden and what it holds is not used */
  hs_import_dialog_set_format (dialog, "npy-folder");
  hs_ui_settle ();
  hs_import_dialog_set_output (dialog, out);
  hs_import_dialog_set_sources (dialog, (const char *[]) { dir, NULL });
  run_import (dialog);
  g_assert_null (strstr (hs_import_dialog_get_status (dialog), "Modality"));
  destroy_dialog (dialog);
}

int
main (int argc, char **argv)
{
  hs_ui_init (&argc, &argv);
  g_test_add_func ("/hs/ui/import/real-yolo", test_real_yolo);
  g_test_add_func ("/hs/ui/import/skipped-and-errors", test_skipped_and_errors);
  g_test_add_func ("/hs/ui/import/npy-folder-default", test_npy_folder_default);
  g_test_add_func ("/hs/ui/import/stop-and-close", test_stop_and_close);
  g_test_add_func ("/hs/ui/import/modality", test_modality);
  return g_test_run ();
}
