/* test-ui-annotation.c — HsAnnotationWindow: a full annotation round driven
 * through its actions, blinding (no real model name on screen), answers
 * saved at once, resume after the window is destroyed, CSV export, Likert */
#include "hs-annotation-window.h"
#include "hs-canvas.h"
#include "hs-ui-fixture.h"

static char *dataset_root;

/* Two instances × report sentences s0, s1 × models grounded, blind = 8
 * items; blind has no s1 map (the window says so under the alias). */
static char *
write_project (const char *dir, const char *form)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, "project.json", NULL);
  g_autofree char *json = g_strdup_printf (
    "{\"annotator\": \"tester\", \"dataset\": \"%s\", \"models\": [\"grounded\", \"blind\"],\n"
    " \"instances\": [\"hand-00\", \"hand-01\"], \"questions\": \"%s\", \"seed\": 7,\n"
    " \"answers\": \"tester.jsonl\"}\n", dataset_root, form);

  g_file_set_contents (path, json, -1, &error);
  g_assert_no_error (error);
  return path;
}

static HsAnnotationWindow *
open_window (const char *project)
{
  g_autoptr(GError) error = NULL;
  HsAnnotationWindow *window = HS_ANNOTATION_WINDOW (hs_annotation_window_new (NULL));

  g_object_ref (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (hs_annotation_window_open (window, project, &error));
  g_assert_no_error (error);
  hs_ui_settle ();
  return window;
}

static void
close_window (HsAnnotationWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  hs_ui_settle ();
  hs_ui_assert_finalized (window);
}

static void
assert_blinded (HsAnnotationWindow *window)
{
  g_autofree char *text = hs_annotation_window_dup_visible_text (window);

  g_assert_null (strstr (text, "grounded"));
  g_assert_null (strstr (text, "blind"));
  g_assert_true (g_str_has_prefix (hs_annotation_window_get_alias (window), "Model "));
}

/* A custom prompt without a precomputed map is being attended live. */
static gboolean
live_settled (gpointer window)
{
  return !hs_annotation_window_get_live_busy (window);
}

static void
answer (HsAnnotationWindow *window, const guint levels[3])
{
  for (guint q = 0; q < 3; q++)
    gtk_widget_activate_action (GTK_WIDGET (window), "annotation.answer", "(uu)", q, levels[q]);
}

/* Hand-chosen answers (levels no = 0, partially = 1, yes = 2), one row per item. */
static const guint three_levels[8][3] = {
  { 2, 2, 1 }, { 0, 0, 0 }, { 1, 2, 0 }, { 2, 1, 2 },
  { 0, 1, 2 }, { 2, 2, 2 }, { 1, 1, 1 }, { 0, 2, 1 },
};

static void
test_round_and_resume (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *project = NULL;
  g_autofree char *answers_path = NULL;
  g_autofree char *csv_path = NULL;
  g_autofree char *csv = NULL;
  g_autoptr(GPtrArray) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  HsAnnotationWindow *window;
  const char *seen_aliases[8];

  if (hs_ui_skip_without_display ())
    return;
  dir = hs_test_make_tmpdir ();
  project = write_project (dir, "three");
  answers_path = g_build_filename (dir, "tester.jsonl", NULL);

  window = open_window (project);
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, 0);
  g_assert_cmpstr (hs_annotation_window_get_progress (window), ==, "0 / 8");
  g_assert_cmpstr (hs_annotation_window_get_prompt (window), ==, HS_UI_S0);
  assert_blinded (window);
  {
    /* The canvas is HsCanvas's own (tested by ui-canvas). */
    GtkWidget *masked[] = { GTK_WIDGET (hs_annotation_window_get_canvas (window)), NULL };
    g_autoptr(GdkTexture) full = hs_ui_render (GTK_WIDGET (window));
    g_autoptr(GdkTexture) texture = hs_ui_mask_widgets (full, GTK_WIDGET (window), masked);
    hs_ui_assert_golden (texture, "ui-annotation", 0.02);
  }

  /* Items 0–2 through annotation.answer; the third answer of an item saves
   * it and moves on. */
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpint (hs_annotation_window_get_index (window), ==, (int) i);
      seen_aliases[i] = g_intern_string (hs_annotation_window_get_alias (window));
      assert_blinded (window);
      answer (window, three_levels[i]);
      g_assert_cmpint (hs_annotation_window_get_index (window), ==, (int) i + 1);
      /* Saved at once: the file holds i + 1 answers now. */
      g_assert_true (hs_annotation_load_answers (answers_path, &loaded, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (loaded->len, ==, i + 1);
      g_clear_pointer (&loaded, g_ptr_array_unref);
    }
  /* Item 3 with the digit action: it answers the current question and
   * moves to the next question. */
  g_assert_cmpuint (hs_annotation_window_get_question (window), ==, 0);
  gtk_widget_activate_action (GTK_WIDGET (window), "annotation.level", "u", three_levels[3][0]);
  g_assert_cmpuint (hs_annotation_window_get_question (window), ==, 1);
  g_assert_cmpint (hs_annotation_window_get_level (window, 0), ==, (int) three_levels[3][0]);
  gtk_widget_activate_action (GTK_WIDGET (window), "annotation.level", "u", three_levels[3][1]);
  /* A level the question does not have is ignored. */
  gtk_widget_activate_action (GTK_WIDGET (window), "annotation.level", "u", 5);
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, 3);
  gtk_widget_activate_action (GTK_WIDGET (window), "annotation.level", "u", three_levels[3][2]);
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, 4);
  answer (window, three_levels[4]);
  g_assert_cmpstr (hs_annotation_window_get_progress (window), ==, "5 / 8");

  /* Going back shows the saved answer. */
  gtk_widget_activate_action (GTK_WIDGET (window), "annotation.previous", NULL);
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, 4);
  for (guint q = 0; q < 3; q++)
    g_assert_cmpint (hs_annotation_window_get_level (window, q), ==, (int) three_levels[4][q]);
  gtk_widget_activate_action (GTK_WIDGET (window), "annotation.next", NULL);
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, 5);
  close_window (window);

  /* Resume: a new window continues at the first unanswered item. */
  window = open_window (project);
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, 5);
  g_assert_cmpstr (hs_annotation_window_get_progress (window), ==, "5 / 8");
  g_assert_true (hs_annotation_load_answers (answers_path, &loaded, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (loaded->len, ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      const HsAnnotationAnswer *a = g_ptr_array_index (loaded, i);
      g_assert_cmpstr (a->annotator, ==, "tester");
      g_assert_cmpint (a->form, ==, HS_ANNOTATION_FORM_THREE);
      for (guint q = 0; q < 3; q++)
        g_assert_cmpint (a->values[q], ==, (int) three_levels[i][q]);
      if (i < 3)
        g_assert_cmpstr (a->alias, ==, seen_aliases[i]);
      g_assert_true (g_str_equal (a->model, "grounded") || g_str_equal (a->model, "blind"));
    }
  g_clear_pointer (&loaded, g_ptr_array_unref);

  for (guint i = 5; i < 8; i++)
    {
      assert_blinded (window);
      answer (window, three_levels[i]);
    }
  g_assert_cmpstr (hs_annotation_window_get_progress (window), ==, "8 / 8");
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, -1);
  /* Back from "all answered" to the last item, which shows its answer. */
  gtk_widget_activate_action (GTK_WIDGET (window), "annotation.previous", NULL);
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, 7);
  for (guint q = 0; q < 3; q++)
    g_assert_cmpint (hs_annotation_window_get_level (window, q), ==, (int) three_levels[7][q]);
  /* Changing one answer saves again (a new line; the last one counts). */
  gtk_widget_activate_action (GTK_WIDGET (window), "annotation.answer", "(uu)", 0, 2);
  g_assert_true (hs_annotation_load_answers (answers_path, &loaded, NULL, &error));
  g_assert_cmpuint (loaded->len, ==, 9);
  g_assert_cmpint (((HsAnnotationAnswer *) g_ptr_array_index (loaded, 8))->values[0], ==, 2);
  g_clear_pointer (&loaded, g_ptr_array_unref);
  g_assert_cmpstr (hs_annotation_window_get_progress (window), ==, "8 / 8");

  /* The missing blind/s1 map was reported under its alias only. */
  g_assert_nonnull (hs_annotation_window_get_error_text (window));
  g_assert_nonnull (strstr (hs_annotation_window_get_error_text (window), "Model "));
  g_assert_null (strstr (hs_annotation_window_get_error_text (window), "blind"));
  {
    /* ... in the bar over the canvas's top: the canvas keeps its colour
     * bar below it (the window binds the two) */
    GtkWidget *bar = hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_ERROR_BAR);
    int shown = 0, hud_top = -1;

    hs_ui_settle ();
    g_object_get (bar, "shown-height", &shown, NULL);
    g_object_get (hs_annotation_window_get_canvas (window), "hud-top", &hud_top, NULL);
    g_assert_cmpint (shown, >, 0);
    g_assert_cmpint (hud_top, ==, shown);
  }

  /* CSV export: the three-question columns, one row per item. */
  csv_path = g_build_filename (dir, "export.csv", NULL);
  g_assert_true (hs_annotation_window_export_csv (window, csv_path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (csv_path, &csv, NULL, &error));
  lines = g_strsplit (g_strstrip (csv), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 9);
  g_assert_cmpstr (lines[0], ==,
    "dicom_sent_id,dicom_id,sent_id,checkpoint_name,prompt,is_correct,is_useful,is_precise,is_custom_prompt,"
    "no_attn_score,annotator,time");
  g_assert_true (g_str_has_prefix (lines[1], "hand-00_s0,hand-00,s0,"));
  /* Who answered and when: the annotator, the time the answer was saved. */
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], ",", -1);
      guint n = g_strv_length (fields);

      g_assert_cmpuint (n, >=, 12);
      g_assert_cmpstr (fields[n - 2], ==, "tester");
      g_assert_true (g_regex_match_simple ("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
                                           fields[n - 1], 0, 0));
    }
  close_window (window);
}

static void
test_likert (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *project = NULL;
  g_autofree char *answers_path = NULL;
  g_autoptr(GPtrArray) loaded = NULL;
  g_autoptr(GError) error = NULL;
  HsAnnotationWindow *window;
  const HsAnnotationAnswer *a;
  const guint levels[3] = { 3, 5, 4 };

  if (hs_ui_skip_without_display ())
    return;
  dir = hs_test_make_tmpdir ();
  project = write_project (dir, "likert");
  answers_path = g_build_filename (dir, "tester.jsonl", NULL);

  window = open_window (project);
  assert_blinded (window);
  /* recall level 3 = 60 %, precision level 5 = 100 %, intuitive level 4 = 5. */
  answer (window, levels);
  g_assert_cmpstr (hs_annotation_window_get_progress (window), ==, "1 / 8");
  g_assert_true (hs_annotation_load_answers (answers_path, &loaded, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (loaded->len, ==, 1);
  a = g_ptr_array_index (loaded, 0);
  g_assert_cmpint (a->form, ==, HS_ANNOTATION_FORM_LIKERT);
  g_assert_cmpint (a->values[0], ==, 60);
  g_assert_cmpint (a->values[1], ==, 100);
  g_assert_cmpint (a->values[2], ==, 5);
  g_assert_cmpstr (a->prompt, ==, HS_UI_S0);
  close_window (window);
}

/* Custom round without project prompts: the keyboard starts in the prompt
 * entry, Enter hands it back to the answer keys, and the prompt typed for
 * one alias is shown for the instance's other alias too. */
static void
test_custom_typed_prompt (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *project = NULL;
  g_autofree char *answers_path = NULL;
  g_autoptr(GPtrArray) loaded = NULL;
  g_autoptr(GError) error = NULL;
  HsAnnotationWindow *window;
  GtkWidget *focus, *entry;
  const guint first[3] = { 2, 1, 0 }, second[3] = { 0, 0, 1 };

  if (hs_ui_skip_without_display ())
    return;
  dir = hs_test_make_tmpdir ();
  project = g_build_filename (dir, "custom.json", NULL);
  answers_path = g_build_filename (dir, "custom.json.answers.jsonl", NULL);
  {
    g_autofree char *json = g_strdup_printf (
      "{\"annotator\": \"tester\", \"dataset\": \"%s\", \"models\": [\"grounded\", \"blind\"],\n"
      " \"instances\": [\"hand-01\"], \"rounds\": [\"custom\"], \"seed\": 3}\n", dataset_root);
    g_assert_true (g_file_set_contents (project, json, -1, &error));
  }

  window = open_window (project);
  g_assert_cmpstr (hs_annotation_window_get_progress (window), ==, "0 / 2");
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  entry = gtk_widget_get_ancestor (focus, GTK_TYPE_ENTRY);
  g_assert_nonnull (entry);
  /* A digit typed there is text, not an answer. */
  gtk_widget_activate_action (GTK_WIDGET (window), "annotation.level", "u", 1);
  g_assert_cmpint (hs_annotation_window_get_level (window, 0), ==, -1);

  gtk_editable_set_text (GTK_EDITABLE (entry), "  " HS_UI_S0_SWAPPED " ");
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpstr (hs_annotation_window_get_prompt (window), ==, HS_UI_S0_SWAPPED);
  g_assert_null (gtk_root_get_focus (GTK_ROOT (window)));
  /* blind has no map of this prompt: its item's map is attended live. */
  hs_ui_wait_until (live_settled, window);
  for (guint q = 0; q < 3; q++)
    gtk_widget_activate_action (GTK_WIDGET (window), "annotation.level", "u", first[q]);
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, 1);
  /* The other alias of the instance: same prompt, nothing to type. */
  g_assert_cmpstr (hs_annotation_window_get_prompt (window), ==, HS_UI_S0_SWAPPED);
  assert_blinded (window);
  hs_ui_wait_until (live_settled, window);
  answer (window, second);
  g_assert_cmpstr (hs_annotation_window_get_progress (window), ==, "2 / 2");

  g_assert_true (hs_annotation_load_answers (answers_path, &loaded, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (loaded->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      const HsAnnotationAnswer *a = g_ptr_array_index (loaded, i);

      g_assert_cmpint (a->round, ==, HS_ANNOTATION_ROUND_CUSTOM);
      g_assert_cmpstr (a->query, ==, "custom-1");
      g_assert_cmpstr (a->prompt, ==, HS_UI_S0_SWAPPED);
      for (guint q = 0; q < 3; q++)
        g_assert_cmpint (a->values[q], ==, (int) (i == 0 ? first : second)[q]);
    }
  close_window (window);
}


#define LIVE_PROMPT "There is an opacity in the left lower lung."

/* Custom round with a project prompt that has no precomputed map: the
 * item's model (grounded or blind, built in) attends it live, off the main
 * thread, and the map shown is the model's own for that image and prompt.
 * A model whose maps the dataset records as an external backend's is not
 * attended with the built-in model of the same name, nor with a command
 * from the dataset. */
static void
test_custom_live_prompt (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *project = NULL;
  g_autoptr(GError) error = NULL;
  HsAnnotationWindow *window;
  HsAnnotationSession *session;
  g_autoptr(GPtrArray) computed = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_attention_map_unref);

  if (hs_ui_skip_without_display ())
    return;
  dir = hs_test_make_tmpdir ();
  project = g_build_filename (dir, "live.json", NULL);
  {
    g_autofree char *json = g_strdup_printf (
      "{\"annotator\": \"tester\", \"dataset\": \"%s\", \"models\": [\"grounded\", \"blind\"],\n"
      " \"instances\": [\"hand-02\"], \"rounds\": [\"custom\"], \"seed\": 5,\n"
      " \"custom_prompts\": [\"" LIVE_PROMPT "\"]}\n", dataset_root);
    g_assert_true (g_file_set_contents (project, json, -1, &error));
  }
  window = open_window (project);
  session = hs_annotation_window_get_session (window);
  g_assert_cmpuint (hs_annotation_session_get_n_items (session), ==, 2);
  /* the first item's map is attended as the window opens: whether it is
   * there by now depends on the machine's speed, so it is awaited */
  hs_ui_wait_until (live_settled, window);
  for (guint i = 0; i < 2; i++)
    {
      const char *model = hs_annotation_session_backend_model (session, i);
      HsAttentionMap *shown;
      g_autoptr(HsModel) reference = NULL;
      g_autoptr(HsAttentionMap) expected = NULL;
      g_autoptr(HsImage) image = NULL;
      g_autofree char *image_path = g_build_filename (dataset_root, "images", "hand-02.png", NULL);
      guint n;

      g_assert_true (hs_annotation_window_go_to (window, i));
      g_assert_cmpstr (hs_annotation_window_get_prompt (window), ==, LIVE_PROMPT);
      /* No precomputed map: nothing until the live one arrives (the first
       * item's arrived already). */
      if (i > 0)
        {
          g_assert_true (hs_annotation_window_get_live_busy (window));
          g_assert_null (hs_canvas_get_map (HS_CANVAS (hs_annotation_window_get_canvas (window))));
        }
      hs_ui_wait_until (live_settled, window);
      shown = hs_canvas_get_map (HS_CANVAS (hs_annotation_window_get_canvas (window)));
      g_assert_nonnull (shown);
      g_ptr_array_add (computed, hs_attention_map_ref (shown));
      g_assert_null (hs_annotation_window_get_error_text (window));
      assert_blinded (window);

      /* The same model computed here, directly. */
      image = hs_image_load (image_path, &error);
      g_assert_no_error (error);
      reference = hs_model_load_builtin (model, &error);
      g_assert_no_error (error);
      expected = hs_model_attend_image (reference, image, LIVE_PROMPT, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (hs_attention_map_get_width (shown), ==, hs_attention_map_get_width (expected));
      g_assert_cmpuint (hs_attention_map_get_height (shown), ==, hs_attention_map_get_height (expected));
      n = hs_attention_map_get_width (shown) * hs_attention_map_get_height (shown);
      g_assert_cmpuint (n, >, 1);
      for (guint k = 0; k < n; k++)
        g_assert_cmpfloat (hs_attention_map_peek_values (shown)[k], ==,
                           hs_attention_map_peek_values (expected)[k]);
      if (i == 0)
        {
          /* Looked at: the radiograph with the live map under its alias. */
          g_autoptr(GdkTexture) texture = NULL;
          g_autofree char *png = NULL;

          hs_ui_settle ();
          texture = hs_ui_render (GTK_WIDGET (window));
          png = g_build_filename (g_getenv ("HS_BUILD_DIR") ? g_getenv ("HS_BUILD_DIR") : ".",
                                                   "ui-annotation-live.png", NULL);
          g_assert_true (gdk_texture_save_to_png (texture, png));
        }
    }

  /* Revisited: each item's live map is the one computed, shown at once
   * without attending again; then the image file replaced by a copy of
   * itself (a new file: the live maps are only valid for the one they were
   * computed from, whatever its pixels) and the map is attended again. */
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (hs_annotation_window_go_to (window, i));
      g_assert_false (hs_annotation_window_get_live_busy (window));
      g_assert_true (hs_canvas_get_map (HS_CANVAS (hs_annotation_window_get_canvas (window))) ==
                     g_ptr_array_index (computed, i));
    }
  {
    g_autofree char *image_path = g_build_filename (dataset_root, "images", "hand-02.png", NULL);
    g_autofree char *copy = g_strconcat (image_path, ".copy", NULL);
    g_autofree char *contents = NULL;
    gsize length = 0;

    g_assert_true (g_file_get_contents (image_path, &contents, &length, NULL));
    g_assert_true (g_file_set_contents (copy, contents, (gssize) length, NULL));
    g_assert_cmpint (g_rename (copy, image_path), ==, 0);
  }
  g_assert_true (hs_annotation_window_go_to (window, 1));
  g_assert_true (hs_annotation_window_get_live_busy (window));
  hs_ui_wait_until (live_settled, window);
  g_assert_true (hs_canvas_get_map (HS_CANVAS (hs_annotation_window_get_canvas (window))) !=
                 g_ptr_array_index (computed, 1));

  /* Answered before the live map is there (the worker's result reaches the
   * window only through the main loop, which has not run): kept, not saved,
   * and saved once the map is shown, with the map's No-Attn score. */
  {
    g_autofree char *answers_path = g_build_filename (dir, "live.json.answers.jsonl", NULL);
    g_autoptr(GPtrArray) loaded = NULL;
    const HsAnnotationAnswer *saved;
    HsAttentionMap *shown;
    const guint levels[3] = { 2, 1, 0 };

    g_assert_true (hs_annotation_window_go_to (window, 0));
    g_assert_true (hs_annotation_window_get_live_busy (window));
    answer (window, levels);
    g_assert_cmpint (hs_annotation_window_get_index (window), ==, 0);
    g_assert_nonnull (strstr (hs_annotation_window_get_error_text (window), "still being computed"));
    g_assert_false (g_file_test (answers_path, G_FILE_TEST_EXISTS));
    hs_ui_wait_until (live_settled, window);
    g_assert_cmpint (hs_annotation_window_get_index (window), ==, 1);
    g_assert_true (hs_annotation_load_answers (answers_path, &loaded, NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (loaded->len, ==, 1);
    saved = g_ptr_array_index (loaded, 0);
    g_assert_cmpstr (saved->prompt, ==, LIVE_PROMPT);
    for (guint q = 0; q < 3; q++)
      g_assert_cmpint (saved->values[q], ==, (int) levels[q]);
    /* Item 1 shows now; item 0's map is the same model's again. */
    g_assert_true (hs_annotation_window_go_to (window, 0));
    hs_ui_wait_until (live_settled, window);
    shown = hs_canvas_get_map (HS_CANVAS (hs_annotation_window_get_canvas (window)));
    g_assert_nonnull (shown);
    if (isnan (hs_attention_map_get_no_attn (shown)))
      g_assert_true (isnan (saved->no_attn));
    else
      g_assert_cmpfloat (saved->no_attn, ==, hs_attention_map_get_no_attn (shown));
  }

  /* The dataset says an external backend computed "grounded": its item is
   * not attended by the built-in model, and no command is taken from it. */
  hs_dataset_set_model_computed_by (hs_annotation_session_get_dataset (session), "grounded",
                                    "backend-exec:/bin/false");
  for (guint i = 0; i < 2; i++)
    if (g_str_equal (hs_annotation_session_backend_model (session, i), "grounded"))
      {
        g_assert_true (hs_annotation_window_go_to (window, i));
        g_assert_false (hs_annotation_window_get_live_busy (window));
        g_assert_null (hs_canvas_get_map (HS_CANVAS (hs_annotation_window_get_canvas (window))));
        g_assert_nonnull (strstr (hs_annotation_window_get_error_text (window), "no precomputed map"));
      }
  close_window (window);
}

static void
test_bad_project (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  HsAnnotationWindow *window;

  if (hs_ui_skip_without_display ())
    return;
  dir = hs_test_make_tmpdir ();
  path = g_build_filename (dir, "broken.json", NULL);
  g_assert_true (g_file_set_contents (path, "{\"annotator\": ", -1, NULL));
  window = HS_ANNOTATION_WINDOW (hs_annotation_window_new (NULL));
  g_object_ref (window);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_false (hs_annotation_window_open (window, path, &error));
  g_assert_error (error, HS_ANNOTATION_ERROR, HS_ANNOTATION_ERROR_PARSE);
  /* Shown in the window, naming the file. */
  g_assert_nonnull (strstr (hs_annotation_window_get_error_text (window), "broken.json"));
  g_assert_cmpint (hs_annotation_window_get_index (window), ==, -1);
  close_window (window);
}

int
main (int argc, char **argv)
{
  int status;

  hs_ui_init (&argc, &argv);
  dataset_root = hs_ui_make_dataset ();

  g_test_add_func ("/hs/ui/annotation/round-and-resume", test_round_and_resume);
  g_test_add_func ("/hs/ui/annotation/likert", test_likert);
  g_test_add_func ("/hs/ui/annotation/custom-typed-prompt", test_custom_typed_prompt);
  g_test_add_func ("/hs/ui/annotation/custom-live-prompt", test_custom_live_prompt);
  g_test_add_func ("/hs/ui/annotation/bad-project", test_bad_project);
  status = g_test_run ();
  g_free (dataset_root);
  return status;
}
