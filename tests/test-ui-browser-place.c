/* test-ui-browser-place.c — the browser never loses the user's place:
 * clearing a search keeps the instance and its custom prompt, a filter opens
 * the sentence that passed it, and the search and filters of the dataset
 * before never leave a new dataset's list empty (issue 15, point 5).
 *
 * Driven through the main window as a user drives it; the filters' answers
 * are worked by hand against the subset definitions (README "Subsets"). */
#include "hs-ui-fixture.h"

#include "hs-prompt-panel.h"
#include "hs-window.h"

static char *hand_root;

static const char *
shown_instance (HsWindow *window)
{
  HsInstance *instance = hs_window_get_instance (window);

  return instance != NULL ? instance->id : NULL;
}

static const char *
shown_sentence (HsWindow *window)
{
  HsSentence *sentence = hs_prompt_panel_get_sentence (hs_window_get_prompt_panel (window));

  return sentence != NULL ? sentence->id : NULL;
}

/* ---- a search that matched nothing, cleared --------------------------------- */

static void
test_search_clear_keeps_place (void)
{
  HsWindow *window;
  HsInstanceBrowser *browser;
  HsPromptPanel *panel;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, hand_root);
  browser = hs_window_get_browser (window);
  panel = hs_window_get_prompt_panel (window);

  g_assert_true (hs_window_select_instance (window, "hand-02"));
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  hs_prompt_panel_set_prompt (panel, "A nodule near the heart.");

  /* Nothing matches: the list is empty, the view stays. */
  hs_instance_browser_set_search_text (browser, "no such thing");
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 0);
  g_assert_cmpstr (shown_instance (window), ==, "hand-02");
  /* Cleared: still hand-02 (not instance 0), the prompt as typed. */
  hs_instance_browser_set_search_text (browser, "");
  hs_ui_settle ();
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 5);
  g_assert_cmpuint (hs_instance_browser_get_selected (browser), ==, 2);
  g_assert_cmpstr (shown_instance (window), ==, "hand-02");
  g_assert_cmpstr (hs_prompt_panel_get_prompt (panel), ==, "A nodule near the heart.");

  /* A search the instance passes keeps it and the prompt too. */
  hs_instance_browser_set_search_text (browser, "hand-0");
  hs_instance_browser_set_search_text (browser, "");
  hs_ui_settle ();
  g_assert_cmpstr (shown_instance (window), ==, "hand-02");
  g_assert_cmpstr (hs_prompt_panel_get_prompt (panel), ==, "A nodule near the heart.");

  /* One that hides it moves on to what it lists. */
  hs_instance_browser_set_search_text (browser, "hand-03");
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_cmpstr (shown_instance (window), ==, "hand-03");
  hs_ui_destroy_window (window);
}

/* ---- the sentence that matched -------------------------------------------- */

typedef struct {
  const char *id, *text, *context;
  const HsBox *box;   /* NULL: no target */
} SentenceSpec;

/* 320 × 320, midline x = 160 (slack 16 px): LEFT lies in one half, WIDE
 * straddles the midline by 60 px. */
static const HsBox LEFT = { 20, 20, 100, 100 };
static const HsBox WIDE = { 100, 20, 220, 100 };

static void
add_instance (HsDataset *dataset, const char *root, const char *id, guint seed,
              const SentenceSpec *spec, guint n)
{
  g_autofree char *file = g_strdup_printf ("images/%s.png", id);
  g_autofree char *path = g_build_filename (root, file, NULL);
  HsInstance *instance = hs_instance_new (id, file);

  hs_ui_write_image (path, seed);
  instance->width = instance->height = HS_UI_IMAGE_SIZE;
  for (guint i = 0; i < n; i++)
    {
      HsSentence *sentence = hs_sentence_new (spec[i].id, spec[i].text);

      if (spec[i].box != NULL)
        {
          g_autofree char *name = g_strdup_printf ("%s-target", spec[i].id);
          HsRegion *region = hs_region_new (name);

          hs_region_add_box (region, spec[i].box->x1, spec[i].box->y1, spec[i].box->x2, spec[i].box->y2);
          hs_instance_add_region (instance, region);
          hs_sentence_add_target (sentence, name);
        }
      if (spec[i].context != NULL)
        hs_sentence_add_label (sentence, hs_label_new ("finding", spec[i].context, NULL));
      hs_instance_add_sentence (instance, sentence);
    }
  hs_dataset_add_instance (dataset, instance);
}

/* Worked by hand (per sentence: One Lung = its target lies in one half,
 * Abnormal = a positive label, Annotated = has a target):
 *   plain  s1 no target, no label                      → no filter
 *   a      s1 WIDE negative; s2 LEFT positive "Effusion…" → One Lung s2, Abnormal s2, Annotated s1
 *   c      s1 no target; s2 WIDE positive "Mass…"      → Abnormal s2, Annotated s2
 *   d      s1 LEFT negative; s2 WIDE positive           → One Lung s1, Abnormal s2, Annotated s1;
 *          One Lung AND Abnormal: no single sentence is both → not listed */
static char *
make_sentence_dataset (void)
{
  char *root = hs_test_make_tmpdir ();
  g_autofree char *images = g_build_filename (root, "images", NULL);
  g_autoptr(HsDataset) dataset = hs_dataset_new (root, "sentences");
  g_autoptr(GError) error = NULL;
  const SentenceSpec plain[] = { { "s1", "The lungs are clear.", NULL, NULL } };
  const SentenceSpec a[] = { { "s1", "The heart is normal.", "negative", &WIDE },
                             { "s2", "Effusion in the right lung.", "positive", &LEFT } };
  const SentenceSpec c[] = { { "s1", "No pneumothorax.", NULL, NULL },
                             { "s2", "Mass near the midline.", "positive", &WIDE } };
  const SentenceSpec d[] = { { "s1", "Small nodule, stable.", "negative", &LEFT },
                             { "s2", "Opacity across both lungs.", "positive", &WIDE } };

  g_assert_cmpint (g_mkdir_with_parents (images, 0755), ==, 0);
  add_instance (dataset, root, "plain", 0, plain, G_N_ELEMENTS (plain));
  add_instance (dataset, root, "a", 1, a, G_N_ELEMENTS (a));
  add_instance (dataset, root, "c", 2, c, G_N_ELEMENTS (c));
  add_instance (dataset, root, "d", 3, d, G_N_ELEMENTS (d));
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  return root;
}

/* "id:sentence" of every listed instance as the window opens it, stepping
 * through the list as a user would. */
static char *
opened (HsWindow *window)
{
  HsInstanceBrowser *browser = hs_window_get_browser (window);
  GString *out = g_string_new (NULL);
  guint n;

  hs_ui_wait_until (hs_ui_browser_idle, browser);
  n = hs_instance_browser_get_n_shown (browser);
  hs_instance_browser_select_relative (browser, -1000);
  for (guint i = 0; i < n; i++)
    {
      hs_ui_wait_until (hs_ui_window_not_loading, window);
      g_string_append_printf (out, "%s%s:%s", i ? " " : "", shown_instance (window), shown_sentence (window));
      hs_instance_browser_select_relative (browser, 1);
    }
  return g_string_free (out, FALSE);
}

static void
toggle (HsInstanceBrowser *browser, const char *action)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (browser), action, NULL));
}

static void
test_filter_opens_matched_sentence (void)
{
  g_autofree char *root = NULL;
  HsWindow *window;
  HsInstanceBrowser *browser;
  char *got;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  root = make_sentence_dataset ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, root);
  browser = hs_window_get_browser (window);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 4);

  toggle (browser, "browser.filter-one-lung");
  got = opened (window);
  g_assert_cmpstr (got, ==, "a:s2 d:s1");
  g_free (got);

  toggle (browser, "browser.filter-abnormal");   /* One Lung AND Abnormal, in one sentence */
  got = opened (window);
  g_assert_cmpstr (got, ==, "a:s2");
  g_free (got);

  toggle (browser, "browser.filter-one-lung");   /* Abnormal alone */
  got = opened (window);
  g_assert_cmpstr (got, ==, "a:s2 c:s2 d:s2");
  g_free (got);

  toggle (browser, "browser.filter-abnormal");
  toggle (browser, "browser.filter-annotated");
  got = opened (window);
  g_assert_cmpstr (got, ==, "a:s1 c:s2 d:s1");
  g_free (got);
  toggle (browser, "browser.filter-annotated");

  /* The search too: the sentence whose text has it; an id match opens the first. */
  hs_instance_browser_set_search_text (browser, "mass");
  got = opened (window);
  g_assert_cmpstr (got, ==, "c:s2");
  g_free (got);
  hs_instance_browser_set_search_text (browser, "plain");
  got = opened (window);
  g_assert_cmpstr (got, ==, "plain:s1");
  g_free (got);
  hs_instance_browser_set_search_text (browser, "");

  /* No filter: the first sentence, as before. */
  got = opened (window);
  g_assert_cmpstr (got, ==, "plain:s1 a:s1 c:s1 d:s1");
  g_free (got);
  hs_ui_destroy_window (window);
}

/* ---- a newly opened dataset ------------------------------------------------- */

static void
test_new_dataset (void)
{
  g_autofree char *root = NULL;
  HsWindow *window;
  HsInstanceBrowser *browser;

  if (hs_ui_skip_without_display ())
    return;
  hs_ui_reset_settings ();
  root = make_sentence_dataset ();
  window = hs_ui_new_window ();
  hs_ui_open_path (window, hand_root);
  browser = hs_window_get_browser (window);
  g_assert_null (hs_instance_browser_get_notice (browser));

  /* A search that matches nothing in the next dataset is cleared, and
   * the browser says so; its first instance is on screen. */
  hs_instance_browser_set_search_text (browser, "hand-0");
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 4);
  hs_ui_open_path (window, root);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 4);
  g_assert_cmpstr (hs_instance_browser_get_notice (browser), ==,
                   "Search and filters cleared:\nthey matched nothing in this dataset");
  g_assert_cmpstr (shown_instance (window), ==, "plain");

  /* Changing a filter is the user's answer: the line goes. */
  toggle (browser, "browser.filter-abnormal");
  hs_ui_wait_until (hs_ui_browser_idle, browser);
  g_assert_null (hs_instance_browser_get_notice (browser));
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 3);
  toggle (browser, "browser.filter-abnormal");

  /* One Lung still matches the hand instances (s0: right lung, x 50–160): kept, and said. */
  toggle (browser, "browser.filter-one-lung");
  hs_ui_wait_until (hs_ui_browser_idle, browser);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 2);
  hs_ui_open_path (window, hand_root);
  hs_ui_wait_until (hs_ui_browser_idle, browser);
  g_assert_cmpuint (hs_instance_browser_get_subsets (browser), ==, HS_SUBSET_ONE_LUNG);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 4);
  g_assert_cmpstr (hs_instance_browser_get_notice (browser), ==, "Search and filters kept\nfrom the dataset before");
  g_assert_nonnull (shown_instance (window));
  toggle (browser, "browser.filter-one-lung");

  /* MDRB (a and d here: two report sentences with disjoint targets) matches
   * no hand instance (one targeted sentence each): cleared once the
   * subsets of the hand dataset are known. */
  hs_ui_open_path (window, root);
  g_assert_null (hs_instance_browser_get_notice (browser));
  toggle (browser, "browser.filter-mdrb");
  hs_ui_wait_until (hs_ui_browser_idle, browser);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 2);
  hs_ui_open_path (window, hand_root);
  hs_ui_wait_until (hs_ui_browser_idle, browser);
  hs_ui_settle ();
  g_assert_cmpuint (hs_instance_browser_get_subsets (browser), ==, 0);
  g_assert_cmpuint (hs_instance_browser_get_n_shown (browser), ==, 5);
  g_assert_cmpstr (hs_instance_browser_get_notice (browser), ==,
                   "Search and filters cleared:\nthey matched nothing in this dataset");
  g_assert_nonnull (shown_instance (window));

  if (g_getenv ("HS_SNAPSHOT_DIR") != NULL)
    {
      g_autoptr(GdkTexture) texture = hs_ui_render (GTK_WIDGET (window));
      g_autofree char *png = g_build_filename (g_getenv ("HS_SNAPSHOT_DIR"), "browser-notice.png", NULL);
      gdk_texture_save_to_png (texture, png);
    }
  hs_ui_destroy_window (window);
}

int
main (int argc, char **argv)
{
  int status;

  hs_ui_init (&argc, &argv);
  hand_root = hs_ui_make_dataset ();
  g_test_add_func ("/hs/ui/browser-place/search-clear-keeps-place", test_search_clear_keeps_place);
  g_test_add_func ("/hs/ui/browser-place/filter-opens-matched-sentence", test_filter_opens_matched_sentence);
  g_test_add_func ("/hs/ui/browser-place/new-dataset", test_new_dataset);
  status = g_test_run ();
  g_free (hand_root);
  return status;
}
