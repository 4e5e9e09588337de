/* test-ui-browser-stream.c — the instance browser over a dataset opened
 * with hs_dataset_open: it shows the instances read so far, reads the rest
 * in a worker and grows, keeps a search and the selection while it grows,
 * and reports a problem in a later instance with "load-failed" (keeping the
 * rows before it). */
#include "hs-ui-fixture.h"
#include "hs-instance-browser.h"
#include "hs-window.h"
#include "hs-application.h"

#define N_INSTANCES 600

/* Instance i has id "case-%05d"; its one sentence states a positive
 * nodule (so every instance is in the "abnormal" subset).  With `bad_at`
 * < N_INSTANCES, that instance has no "image" (a schema problem). */
static char *
write_manifest (guint bad_at)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "heatscope.json", NULL);
  g_autoptr(GString) text = g_string_new ("{\"format\": \"heatscope-dataset\", \"version\": 1,\n"
                                          " \"name\": \"stream\", \"instances\": [\n");
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < N_INSTANCES; i++)
    {
      g_string_append_printf (text, "%s{\"id\": \"case-%05u\"", i > 0 ? ",\n" : "", i);
      if (i != bad_at)
        g_string_append_printf (text, ", \"image\": \"images/case-%05u.png\"", i);
      g_string_append (text, ", \"sentences\": [{\"id\": \"s1\", \"text\": \"A nodule.\", "
                             "\"labels\": [{\"condition\": \"nodule\", \"context\": \"positive\"}]}]}");
    }
  g_string_append (text, "]}\n");
  g_assert_true (g_file_set_contents (path, text->str, text->len, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&dir);
}

static gboolean
not_loading (gpointer data)
{
  return !hs_instance_browser_get_loading (data);
}

static gboolean
not_busy (gpointer data)
{
  return !hs_instance_browser_get_busy (data);
}

static GtkWidget *
new_browser_window (HsInstanceBrowser **browser)
{
  GtkWidget *window = gtk_window_new ();

  *browser = HS_INSTANCE_BROWSER (hs_instance_browser_new ());
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (*browser));
  gtk_window_set_default_size (GTK_WINDOW (window), 300, 500);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
on_load_failed (HsInstanceBrowser *browser, GError *error, gpointer user_data)
{
  GPtrArray *messages = user_data;

  g_ptr_array_add (messages, g_strdup (error->message));
}

static void
test_grows (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) failures = g_ptr_array_new_with_free_func (g_free);
  HsInstanceBrowser *browser;
  GtkWidget *window;

  if (hs_ui_skip_without_display ())
    return;
  dir = write_manifest (G_MAXUINT);
  dataset = hs_dataset_open (dir, 1, &error);
  g_assert_no_error (error);
  g_assert_false (hs_dataset_is_complete (dataset));

  window = new_browser_window (&browser);
  g_signal_connect (browser, "load-failed", G_CALLBACK (on_load_failed), failures);
  hs_instance_browser_set_dataset (browser, dataset);
  /* Instance 0 at once, selected; the rest comes. */
  g_assert_true (hs_instance_browser_get_loading (browser));
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 1);
  g_assert_cmpuint (hs_instance_browser_get_selected (browser), ==, 0);
  /* A search typed while it reads applies to the rows that come:
   * case-00590 … case-00599. */
  hs_instance_browser_set_search_text (browser, "CASE-0059");
  hs_ui_wait_until (not_loading, browser);
  g_assert_true (hs_dataset_is_complete (dataset));
  g_assert_cmpuint (failures->len, ==, 0);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 10);
  hs_instance_browser_set_search_text (browser, "");
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, N_INSTANCES);
  g_assert_true (hs_instance_browser_select_id (browser, "case-00599"));
  g_assert_cmpuint (hs_instance_browser_get_selected (browser), ==, 599);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Subset filters wait for the whole dataset ("busy" meanwhile). */
static void
test_subsets_wait (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsInstanceBrowser *browser;
  GtkWidget *window;

  if (hs_ui_skip_without_display ())
    return;
  dir = write_manifest (G_MAXUINT);
  dataset = hs_dataset_open (dir, 1, &error);
  g_assert_no_error (error);
  window = new_browser_window (&browser);
  hs_instance_browser_set_dataset (browser, dataset);
  hs_instance_browser_set_subsets (browser, HS_SUBSET_ABNORMAL);
  g_assert_true (hs_instance_browser_get_busy (browser));
  hs_ui_wait_until (not_loading, browser);
  hs_ui_wait_until (not_busy, browser);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, N_INSTANCES);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_later_problem (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) failures = g_ptr_array_new_with_free_func (g_free);
  HsInstanceBrowser *browser;
  GtkWidget *window;

  if (hs_ui_skip_without_display ())
    return;
  dir = write_manifest (300);
  dataset = hs_dataset_open (dir, 1, &error);
  g_assert_no_error (error);
  window = new_browser_window (&browser);
  g_signal_connect (browser, "load-failed", G_CALLBACK (on_load_failed), failures);
  hs_instance_browser_set_dataset (browser, dataset);
  hs_ui_wait_until (not_loading, browser);
  g_assert_cmpuint (failures->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (failures, 0),
                            "heatscope.json: $.instances[300]: missing required member \"image\""));
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 300);
  g_assert_false (hs_dataset_is_complete (dataset));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Another dataset while the first is still read: the first reader stops,
 * the list is the second's. */
static void
test_replaced (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(HsDataset) first = NULL;
  g_autoptr(HsDataset) second = NULL;
  g_autoptr(GError) error = NULL;
  HsInstanceBrowser *browser;
  GtkWidget *window;

  if (hs_ui_skip_without_display ())
    return;
  dir = write_manifest (G_MAXUINT);
  first = hs_dataset_open (dir, 1, &error);
  g_assert_no_error (error);
  second = hs_dataset_open (dir, 1, &error);
  g_assert_no_error (error);
  window = new_browser_window (&browser);
  hs_instance_browser_set_dataset (browser, first);
  hs_instance_browser_set_dataset (browser, second);
  hs_ui_wait_until (not_loading, browser);
  g_assert_true (hs_dataset_is_complete (second));
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, N_INSTANCES);
  hs_instance_browser_set_dataset (browser, NULL);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The window opens a manifest over 4 MB incrementally: instance 0 first,
 * "loading" until every row is read, and the instance remembered from last
 * time (not among the first rows) is shown once it is read. */
static void
test_window_large (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GString) text = g_string_new ("{\"format\": \"heatscope-dataset\", \"version\": 1,\n"
                                          " \"name\": \"large\", \"instances\": [\n");
  g_autofree char *pad = g_strnfill (2100, 'x');
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  HsWindow *window;
  HsDataset *dataset;

  if (hs_ui_skip_without_display ())
    return;
  dir = hs_test_make_tmpdir ();
  path = g_build_filename (dir, "heatscope.json", NULL);
  for (guint i = 0; i < 2000; i++)
    g_string_append_printf (text, "%s{\"id\": \"case-%05u\", \"image\": \"images/case-%05u.png\", "
                            "\"metadata\": {\"x-pad\": \"%s\"}}", i > 0 ? ",\n" : "", i, i, pad);
  g_string_append (text, "]}\n");
  g_assert_cmpuint (text->len, >, 4 << 20);
  g_assert_true (g_file_set_contents (path, text->str, text->len, &error));
  g_assert_no_error (error);

  settings = hs_settings_new ();
  g_assert_nonnull (settings);
  g_settings_set_string (settings, "last-dataset", dir);
  g_settings_set_string (settings, "last-instance", "case-01500");

  window = hs_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  file = g_file_new_for_path (dir);
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  dataset = hs_window_get_dataset (window);
  g_assert_nonnull (dataset);
  g_assert_true (hs_dataset_is_complete (dataset));
  g_assert_cmpuint (hs_instance_browser_get_n_shown (hs_window_get_browser (window)), ==, 2000);
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, "case-01500");
  gtk_window_destroy (GTK_WINDOW (window));
  hs_ui_settle ();
}

/* The subset filters follow the "subset-filter" key both ways, through
 * the core's subset names: unknown names are skipped on the way in. */
static void
test_bind_settings (void)
{
  g_autofree char *dir = g_build_filename (g_getenv ("HS_BUILD_DIR"), "data", NULL);
  g_autoptr(GSettingsSchemaSource) source = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) saved = NULL;
  const char *restored[] = { "one_lung", "annotated", "from-a-newer-version", NULL };
  const char *expected_all[] = { "abnormal", "mdrb", "annotated", NULL };
  const char *expected_two[] = { "abnormal", "mdrb", NULL };
  HsInstanceBrowser *browser;
  gboolean annotated = FALSE;

  if (hs_ui_skip_without_display ())   /* the browser is a widget */
    return;
  source = g_settings_schema_source_new_from_directory (dir, NULL, FALSE, &error);
  g_assert_no_error (error);
  schema = g_settings_schema_source_lookup (source, HS_APPLICATION_ID, FALSE);
  g_assert_nonnull (schema);
  settings = g_settings_new_full (schema, NULL, NULL);
  g_settings_set_strv (settings, "subset-filter", restored);

  browser = g_object_ref_sink (HS_INSTANCE_BROWSER (hs_instance_browser_new ()));
  hs_instance_browser_bind_settings (browser, settings);
  g_assert_cmpuint (hs_instance_browser_get_subsets (browser), ==, HS_SUBSET_ONE_LUNG);
  g_object_get (browser, "filter-annotated", &annotated, NULL);
  g_assert_true (annotated);

  hs_instance_browser_set_subsets (browser, HS_SUBSET_ABNORMAL | HS_SUBSET_MDRB);
  saved = g_settings_get_strv (settings, "subset-filter");
  g_assert_true (g_strv_equal ((const char * const *) saved, expected_all));
  g_clear_pointer (&saved, g_strfreev);

  g_object_set (browser, "filter-annotated", FALSE, NULL);
  saved = g_settings_get_strv (settings, "subset-filter");
  g_assert_true (g_strv_equal ((const char * const *) saved, expected_two));
  hs_ui_assert_finalized (browser);
}

int
main (int argc, char **argv)
{
  hs_ui_init (&argc, &argv);
  g_test_add_func ("/hs/ui/browser-stream/grows", test_grows);
  g_test_add_func ("/hs/ui/browser-stream/subsets-wait", test_subsets_wait);
  g_test_add_func ("/hs/ui/browser-stream/later-problem", test_later_problem);
  g_test_add_func ("/hs/ui/browser-stream/replaced", test_replaced);
  g_test_add_func ("/hs/ui/browser-stream/window-large", test_window_large);
  g_test_add_func ("/hs/ui/browser-stream/bind-settings", test_bind_settings);
  return g_test_run ();
}
