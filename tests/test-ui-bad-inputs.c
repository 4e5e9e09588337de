/* test-ui-bad-inputs.c — every crafted file of tests/bad-inputs/ that the
 * application can be handed, opened in the real window:
 *   manifests and dataset folders (File → Open),
 *   bad images, masks and maps referenced by an otherwise valid manifest,
 *   annotation projects (the annotation window),
 *   importer sources (File → Import, the dialog's worker thread).
 * For each: the exact text the window shows (expected.tsv's message where
 * the app shows the library's message), and the app still responds: the
 * main loop iterates and a good dataset then opens and shows its first
 * instance with its map.
 *
 * Rows whose loader the app never reaches on its own (safetensors: the
 * models are built in; rle: RLE only comes inside an importer's file, see
 * coco-rle-bad.json) are listed in the log and not run. */
#include "hs-ui-fixture.h"

#include "hs-annotation-window.h"
#include "hs-import-dialog.h"
#include "hs-window.h"

static char *bad_dir;        /* realpath of tests/bad-inputs */
static char *good_root;      /* hs_ui_make_dataset () */
static char *good_project;   /* an annotation project over good_root */
static HsWindow *window;     /* one window for every case: errors must not wear it down */

typedef HsBadInput Case;   /* a row of expected.tsv */

/* The CLI's exit status for the file, -1 when no command reads it. */
static int
cli_status (const Case *c)
{
  return strcmp (c->status, "-") == 0 ? -1 : atoi (c->status);
}

static char *
real_path (const char *path)
{
  char *real = realpath (path, NULL);
  char *copy;

  g_assert_nonnull (real);
  copy = g_strdup (real);
  free (real);
  return copy;
}

/* ---- waiting ------------------------------------------------------------ */

static gboolean
flag_is_set (gpointer data)
{
  return *(gboolean *) data;
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs what is pending (the full hs_ui_settle only where windows close). */
static void
drain (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

static void
open_folder (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  drain ();
}

/* The app still responds: the main loop runs an idle and a timeout, and the
 * good dataset opens in the same window and shows hand-00 with its map. */
static void
assert_responsive (void)
{
  gboolean idle_ran = FALSE, timeout_ran = FALSE;
  HsInstance *instance;

  g_idle_add (set_flag, &idle_ran);
  g_timeout_add (1, set_flag, &timeout_ran);
  hs_ui_wait_until (flag_is_set, &idle_ran);
  hs_ui_wait_until (flag_is_set, &timeout_ran);

  open_folder (good_root);
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);
  g_assert_null (hs_error_bar_get_text (hs_window_get_error_bar (window)));
  instance = hs_window_get_instance (window);
  g_assert_nonnull (instance);
  g_assert_cmpstr (instance->id, ==, "hand-00");
  g_assert_nonnull (hs_window_get_map (window));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window)));
}

static void
assert_error_shown (const char *expected)
{
  HsErrorBar *bar = hs_window_get_error_bar (window);

  g_assert_cmpstr (hs_error_bar_get_text (bar), ==, expected);
  /* one problem, not a cascade of follow-up errors */
  g_assert_cmpuint (hs_error_bar_get_n_errors (bar), ==, 1);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (bar)));
}

/* ---- datasets around a bad file ------------------------------------------ */

static void
copy_file (const char *from, const char *to)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (from, &data, &length, &error));
  g_assert_true (g_file_set_contents (to, data, (gssize) length, &error));
  g_assert_no_error (error);
}

/* A dataset folder (realpath) holding the bad file under its own name as
 * `role`: "image" (the instance's radiograph), "mask" (the target region's
 * mask) or "map" (the precomputed map of the sentence).  Every other file
 * it references is good (the 4 × 3 PNG of bad-inputs/outside). */
static char *
make_dataset_around (const char *bad_file, const char *role)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *root = real_path (tmp);
  g_autofree char *good_png = g_build_filename (bad_dir, "outside", "secret.png", NULL);
  g_autofree char *good_map = g_build_filename (bad_dir, "good-map.npy", NULL);
  g_autofree char *base = g_path_get_basename (bad_file);
  g_autofree char *target = g_build_filename (root, base, NULL);
  g_autofree char *manifest = g_build_filename (root, HS_DATASET_MANIFEST, NULL);
  g_autofree char *json = NULL;
  const char *image = strcmp (role, "image") == 0 ? base : "good.png";
  const char *mask = strcmp (role, "mask") == 0 ? base : NULL;
  const char *map = strcmp (role, "map") == 0 ? base : "good-map.npy";
  g_autofree char *good_png_copy = g_build_filename (root, "good.png", NULL);
  g_autofree char *good_map_copy = g_build_filename (root, "good-map.npy", NULL);
  g_autoptr(GError) error = NULL;

  copy_file (bad_file, target);
  copy_file (good_png, good_png_copy);
  copy_file (good_map, good_map_copy);
  json = g_strdup_printf (
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"name\": \"around %s\", \"instances\": [\n"
    " {\"id\": \"bad-%s\", \"image\": \"%s\",\n"
    "  \"regions\": {\"r\": {%s%s%s\"boxes\": [[0, 0, 2, 2]]}},\n"
    "  \"sentences\": [{\"id\": \"s0\", \"text\": \"A finding.\", \"targets\": [\"r\"]}],\n"
    "  \"maps\": [{\"model\": \"m\", \"query\": \"s0\", \"file\": \"%s\"}]}]}\n",
    base, role, image, mask != NULL ? "\"mask\": \"" : "", mask != NULL ? mask : "",
    mask != NULL ? "\", " : "", map);
  g_assert_true (g_file_set_contents (manifest, json, -1, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&root);
}

/* ---- the cases ------------------------------------------------------------ */

/* File → Open on a manifest folder the library refuses. */
static void
run_manifest (const Case *c, const char *expected)
{
  g_autofree char *path = g_build_filename (bad_dir, c->file, NULL);
  g_autofree char *shown = g_strdup_printf ("Could not open the dataset: %s", expected);

  open_folder (path);
  assert_error_shown (shown);
  /* the previous (good) dataset stays open */
  g_assert_nonnull (hs_window_get_dataset (window));
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, "hand-00");
}

/* A manifest that loads, whose first instance's image or map is refused. */
static void
run_manifest_part (const Case *c, const char *expected)
{
  g_autofree char *path = g_build_filename (bad_dir, c->file, NULL);

  open_folder (path);
  g_assert_nonnull (hs_window_get_instance (window));
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, "a");
  assert_error_shown (expected);
}

/* Problems found once the image's size is known (a box reaching outside
 * it): `validate` lists them (expected.tsv's message), and the app opens the
 * dataset and shows the same problem of the same box in the error bar with
 * the check validate makes (hs_box_check), naming the manifest, the
 * instance and the region. */
static void
run_validate_only (const Case *c, const char *expected)
{
  g_autofree char *path = g_build_filename (bad_dir, c->file, NULL);
  const char *at = strstr (expected, ": $.instances[0].regions.");
  const char *region, *boxes, *problem;
  g_autofree char *shown = NULL;

  g_assert_nonnull (at);
  region = at + strlen (": $.instances[0].regions.");
  boxes = strstr (region, ".boxes[");
  g_assert_nonnull (boxes);
  problem = strstr (boxes, "]: ");
  g_assert_nonnull (problem);
  shown = g_strdup_printf ("%.*s: instance a: region \"%.*s\": %s", (int) (at - expected), expected,
                           (int) (boxes - region), region, problem + 3);

  open_folder (path);
  g_assert_nonnull (hs_window_get_instance (window));
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, "a");
  assert_error_shown (shown);
}

/* A bad image, mask or map inside an otherwise good dataset.  The message
 * is expected.tsv's with @DIR@ the dataset's folder; a mask is loaded by
 * the image reader, so it gets the image's message, after the instance id
 * (the window reports the targets of the instance on screen). */
static void
run_around (const Case *c, const char *role)
{
  g_autofree char *path = g_build_filename (bad_dir, c->file, NULL);
  g_autofree char *root = make_dataset_around (path, role);
  g_autofree char *message = hs_test_replace (c->message, "@DIR@", root);
  g_autofree char *id = g_strdup_printf ("bad-%s", role);
  g_autofree char *expected = strcmp (role, "mask") == 0 ? g_strdup_printf ("%s: %s", id, message)
                                                         : g_strdup (message);

  open_folder (root);
  g_assert_nonnull (hs_window_get_instance (window));
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, id);
  assert_error_shown (expected);
  if (strcmp (role, "map") == 0)
    g_assert_null (hs_window_get_map (window));
}

static void
run_project (const Case *c, const char *expected)
{
  g_autofree char *path = g_build_filename (bad_dir, c->file, NULL);
  g_autoptr(GError) error = NULL;
  HsAnnotationWindow *annotation = HS_ANNOTATION_WINDOW (hs_annotation_window_new (GTK_WINDOW (window)));

  g_object_ref (annotation);
  gtk_window_present (GTK_WINDOW (annotation));
  hs_ui_wait_until (hs_ui_is_mapped, annotation);
  g_assert_false (hs_annotation_window_open (annotation, path, &error));
  g_assert_nonnull (error);
  g_assert_cmpstr (hs_annotation_window_get_error_text (annotation), ==, expected);
  g_assert_cmpint (hs_annotation_window_get_index (annotation), ==, -1);
  drain ();

  /* The same annotation window then opens a good project. */
  g_clear_error (&error);
  g_assert_true (hs_annotation_window_open (annotation, good_project, &error));
  g_assert_no_error (error);
  g_assert_null (hs_annotation_window_get_error_text (annotation));
  g_assert_cmpint (hs_annotation_window_get_index (annotation), ==, 0);
  drain ();

  gtk_window_destroy (GTK_WINDOW (annotation));
  hs_ui_settle ();
  hs_ui_assert_finalized (annotation);
}

static gboolean
import_not_running (gpointer data)
{
  return !hs_import_dialog_get_running (data);
}

/* File → Import with the same sources as the CLI case.  A refused source
 * shows "Import failed: MESSAGE"; a skipped row is listed as MESSAGE (the
 * first of the list); an import whose every row was skipped fails too. */
static void
run_import (const Case *c, const char *expected)
{
  const char *format = c->loader + strlen ("import-");
  g_autofree char *path = g_build_filename (bad_dir, c->file, NULL);
  g_autofree char *images = g_build_filename (bad_dir, "outside", NULL);
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *output = g_build_filename (tmp, "out", NULL);
  const char *sources[] = { path, NULL, NULL };
  HsImportDialog *dialog = hs_import_dialog_new (GTK_WINDOW (window));
  GListModel *skipped;
  const char *status;

  if (strcmp (format, "nih-bbox") == 0 || strcmp (format, "coco") == 0 ||
      strcmp (format, "imagenome") == 0)
    sources[1] = images;
  g_object_ref (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
  hs_ui_wait_until (hs_ui_is_mapped, dialog);
  g_assert_true (hs_import_dialog_set_format (dialog, format));
  hs_import_dialog_set_sources (dialog, sources);
  hs_import_dialog_set_output (dialog, output);
  hs_import_dialog_set_force (dialog, TRUE);
  g_assert_true (hs_import_dialog_start (dialog));
  hs_ui_wait_until (import_not_running, dialog);
  drain ();

  status = hs_import_dialog_get_status (dialog);
  skipped = hs_import_dialog_get_skipped (dialog);
  if (g_list_model_get_n_items (skipped) > 0)
    {
      g_autoptr(GtkStringObject) first = g_list_model_get_item (skipped, 0);

      g_assert_cmpstr (gtk_string_object_get_string (first), ==, expected);
      if (cli_status (c) == 0)
        {
          g_assert_nonnull (hs_import_dialog_get_summary (dialog));
          g_assert_true (g_str_has_prefix (status, "Imported "));
        }
      else
        {
          guint n = g_list_model_get_n_items (skipped);
          g_autofree char *reason =
            n == 1 ? g_strdup ("the only row was skipped")
                   : g_strdup_printf ("all %u rows were skipped", n);
          g_autofree char *shown = g_strdup_printf ("Import failed: %s: nothing imported: %s", path, reason);

          g_assert_cmpstr (status, ==, shown);
          g_assert_nonnull (hs_import_dialog_get_error (dialog));
        }
    }
  else
    {
      g_autofree char *shown = g_strdup_printf ("Import failed: %s", expected);

      g_assert_cmpint (cli_status (c), !=, 0);
      g_assert_cmpstr (status, ==, shown);
      g_assert_nonnull (hs_import_dialog_get_error (dialog));
    }
  /* a failed import writes no dataset */
  if (cli_status (c) != 0)
    {
      g_autofree char *manifest = g_build_filename (output, HS_DATASET_MANIFEST, NULL);
      g_assert_false (g_file_test (manifest, G_FILE_TEST_EXISTS));
    }

  gtk_window_destroy (GTK_WINDOW (dialog));
  hs_ui_settle ();
  hs_ui_assert_finalized (dialog);
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *with_dir = hs_test_replace (c->message, "@DIR@", bad_dir);
  g_autofree char *expected = NULL;

  if (hs_ui_skip_without_display ())
    return;
  expected = g_strdup (with_dir);
  g_assert_null (strstr (expected, "@OUT@"));   /* no case of the app writes there */

  /* Every case starts from the good dataset on screen (the previous case
   * ended with it). */
  if (hs_window_get_dataset (window) == NULL)
    open_folder (good_root);

  if (strcmp (c->loader, "manifest") == 0)
    run_manifest (c, expected);
  else if (strcmp (c->loader, "manifest-image") == 0 || strcmp (c->loader, "manifest-map") == 0)
    run_manifest_part (c, expected);
  else if (strcmp (c->loader, "validate") == 0)
    run_validate_only (c, expected);
  else if (strcmp (c->loader, "image") == 0)
    {
      run_around (c, "image");
      assert_responsive ();
      run_around (c, "mask");
    }
  else if (strcmp (c->loader, "npy") == 0 || strcmp (c->loader, "map") == 0)
    run_around (c, "map");
  else if (strcmp (c->loader, "project") == 0)
    run_project (c, expected);
  else if (g_str_has_prefix (c->loader, "import-"))
    run_import (c, expected);
  else
    g_assert_not_reached ();

  assert_responsive ();
}

/* Not in expected.tsv: what only the app can be handed. */
static void
test_not_a_dataset (void)
{
  g_autofree char *tmp = NULL;
  g_autofree char *empty = NULL;
  g_autofree char *no_instances = NULL;
  g_autofree char *manifest = NULL;
  g_autofree char *expected = NULL;

  if (hs_ui_skip_without_display ())
    return;
  tmp = hs_test_make_tmpdir ();
  empty = real_path (tmp);
  open_folder (good_root);

  /* A folder without heatscope.json. */
  open_folder (empty);
  expected = g_strdup_printf ("Could not open the dataset: %s/heatscope.json: $: cannot read the "
                              "manifest: No such file or directory", empty);
  assert_error_shown (expected);
  assert_responsive ();

  /* A valid manifest with no instance. */
  no_instances = g_build_filename (empty, "none", NULL);
  g_assert_cmpint (g_mkdir (no_instances, 0755), ==, 0);
  manifest = g_build_filename (no_instances, HS_DATASET_MANIFEST, NULL);
  g_assert_true (g_file_set_contents (manifest, "{\"format\": \"heatscope-dataset\", \"version\": 1, "
                                      "\"instances\": []}", -1, NULL));
  open_folder (no_instances);
  g_free (expected);
  expected = g_strdup_printf ("%s: The dataset has no instances", no_instances);
  assert_error_shown (expected);
  assert_responsive ();
}

/* A box outside the image, and one of positive area with no pixel centre
 * inside, are reported in the error bar when the instance is shown (the
 * check validate, score and metrics make: hs_box_check), with the
 * manifest, the instance, the region and the box. */
static void
test_bad_boxes (void)
{
  static const struct {
    const char *box;
    const char *message;
  } cases[] = {
    { "[[50, 55, 400, 275]]",
      "region \"right lung\": box [50, 55, 400, 275] reaches outside the 320 × 320 image" },
    { "[[50.6, 55, 50.9, 275]]",
      "region \"right lung\": box [50.6, 55, 50.9, 275] has no pixel of the 320 × 320 image "
      "inside (no pixel centre lies in it)" },
  };

  if (hs_ui_skip_without_display ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *tmp = hs_ui_make_dataset ();
      g_autofree char *root = real_path (tmp);
      g_autofree char *manifest = g_build_filename (root, HS_DATASET_MANIFEST, NULL);
      g_autofree char *text = NULL;
      g_autofree char *changed = NULL;
      g_autofree char *expected = NULL;
      char *first;

      g_assert_true (g_file_get_contents (manifest, &text, NULL, NULL));
      first = strstr (text, "[[50, 55, 160, 275]]");
      g_assert_nonnull (first);
      *first = '\0';
      changed = g_strconcat (text, cases[i].box, first + strlen ("[[50, 55, 160, 275]]"), NULL);
      g_assert_true (g_file_set_contents (manifest, changed, -1, NULL));

      open_folder (root);
      g_assert_cmpstr (hs_window_get_instance (window)->id, ==, "hand-00");
      expected = g_strdup_printf ("%s: instance hand-00: %s", manifest, cases[i].message);
      assert_error_shown (expected);
      assert_responsive ();
    }
}

static void
write_good_project (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *json = g_strdup_printf (
    "{\"annotator\": \"tester\", \"dataset\": \"%s\", \"models\": [\"grounded\", \"blind\"],\n"
    " \"instances\": [\"hand-00\"], \"questions\": \"three\", \"seed\": 3,\n"
    " \"answers\": \"tester.jsonl\"}\n", good_root);
  g_autoptr(GError) error = NULL;

  good_project = g_build_filename (tmp, "project.json", NULL);
  g_assert_true (g_file_set_contents (good_project, json, -1, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_autofree char *dir = NULL;
  g_autoptr(GPtrArray) cases = NULL;
  g_autofree char *tmp_good = NULL;
  guint n_run = 0;
  int status;

  hs_ui_init (&argc, &argv);
  dir = g_build_filename (hs_test_source_dir (), "tests", "bad-inputs", NULL);
  bad_dir = real_path (dir);
  tmp_good = hs_ui_make_dataset ();
  good_root = real_path (tmp_good);
  write_good_project ();

  cases = hs_test_read_bad_inputs (bad_dir);
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = g_ptr_array_index (cases, i);
      g_autofree char *name = NULL;

      if (strcmp (c->loader, "safetensors") == 0 || strcmp (c->loader, "rle") == 0)
        {
          g_test_message ("%s: the app never opens a %s file by itself", c->file, c->loader);
          continue;
        }
      name = g_strdup_printf ("/hs/ui/bad-inputs/%s", c->file);
      g_test_add_data_func (name, c, test_case);
      n_run++;
    }
  g_test_add_func ("/hs/ui/bad-inputs/not-a-dataset", test_not_a_dataset);
  g_test_add_func ("/hs/ui/bad-inputs/bad-boxes", test_bad_boxes);

  if (hs_ui_have_display)
    {
      window = hs_window_new (NULL);
      g_object_ref (window);
      gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
      gtk_window_present (GTK_WINDOW (window));
      hs_ui_wait_until (hs_ui_is_mapped, window);
    }
  g_assert_cmpuint (n_run, >=, 40);
  status = g_test_run ();

  if (window != NULL)
    {
      gtk_window_destroy (GTK_WINDOW (window));
      hs_ui_settle ();
      hs_ui_assert_finalized (window);
    }
  g_free (bad_dir);
  g_free (good_root);
  g_free (good_project);
  return status;
}
