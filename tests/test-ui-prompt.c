/* test-ui-prompt.c — the prompt panel: sentences, swap, custom prompts, tokens */
#include "hs-ui-fixture.h"

#include "hs-prompt-panel.h"

static char *dataset_root;

typedef struct {
  HsDataset     *dataset;
  GtkWidget     *window;
  HsPromptPanel *panel;
  guint          map_changes;
  int            last_token;
} Fixture;

static void
on_map_changed (HsPromptPanel *panel, Fixture *f)
{
  f->map_changes++;
}

static void
on_token_selected (HsPromptPanel *panel, int token, Fixture *f)
{
  f->last_token = token;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  if (!hs_ui_have_display)
    return;
  f->dataset = hs_dataset_load (dataset_root, &error);
  g_assert_no_error (error);
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 380, 480);
  f->panel = HS_PROMPT_PANEL (hs_prompt_panel_new ());
  gtk_widget_set_margin_start (GTK_WIDGET (f->panel), 10);
  gtk_widget_set_margin_end (GTK_WIDGET (f->panel), 10);
  gtk_widget_set_margin_top (GTK_WIDGET (f->panel), 10);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->panel));
  g_signal_connect (f->panel, "map-changed", G_CALLBACK (on_map_changed), f);
  g_signal_connect (f->panel, "token-selected", G_CALLBACK (on_token_selected), f);
  f->last_token = -2;
  gtk_window_present (GTK_WINDOW (f->window));
  hs_ui_settle ();
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  if (f->window == NULL)
    return;
  g_object_ref (f->panel);
  gtk_window_destroy (GTK_WINDOW (f->window));
  hs_ui_settle ();
  hs_ui_assert_finalized (f->panel);
  g_clear_pointer (&f->dataset, hs_dataset_unref);
}

static void
show (Fixture *f, const char *instance_id, const char *model)
{
  hs_prompt_panel_set_model (f->panel, model);
  hs_prompt_panel_set_instance (f->panel, f->dataset, hs_dataset_find_instance (f->dataset, instance_id));
}

static void
test_sentences (Fixture *f, gconstpointer data)
{
  guint before;

  if (hs_ui_skip_without_display ())
    return;

  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (f->panel), "prompt.swap-sides", NULL) &&
                  *hs_prompt_panel_get_prompt (f->panel) != '\0');
  before = f->map_changes;
  show (f, "hand-00", "grounded");
  g_assert_cmpuint (f->map_changes, >, before);
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==, HS_UI_S0);
  g_assert_cmpstr (hs_prompt_panel_get_sentence (f->panel)->id, ==, "s0");
  g_assert_cmpstr (hs_prompt_panel_get_map_ref (f->panel)->file, ==, "maps/hand-00-s0.npy");
  g_assert_cmpstr (hs_prompt_panel_get_status (f->panel), ==, "");

  g_assert_true (hs_prompt_panel_select_sentence (f->panel, "s1"));
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==, HS_UI_S1);
  g_assert_cmpstr (hs_prompt_panel_get_map_ref (f->panel)->file, ==, "maps/hand-00-s1.npy");
  g_assert_false (hs_prompt_panel_select_sentence (f->panel, "s9"));

  /* Another instance: its own maps, even though the text is the same. */
  show (f, "hand-03", "grounded");
  g_assert_cmpstr (hs_prompt_panel_get_map_ref (f->panel)->file, ==, "maps/hand-03-s0.npy");

  /* Another model. */
  hs_prompt_panel_set_model (f->panel, "blind");
  g_assert_cmpstr (hs_prompt_panel_get_map_ref (f->panel)->file, ==, "maps/hand-03-s0-blind.npy");
  hs_prompt_panel_select_relative (f->panel, 1);
  g_assert_cmpstr (hs_prompt_panel_get_sentence (f->panel)->id, ==, "s1");
  g_assert_null (hs_prompt_panel_get_map_ref (f->panel));
  g_assert_cmpstr (hs_prompt_panel_get_status (f->panel), ==, "No precomputed map of this model for this sentence");
  hs_prompt_panel_select_relative (f->panel, 5);   /* clamped */
  g_assert_cmpstr (hs_prompt_panel_get_sentence (f->panel)->id, ==, "s1");
}

/* A step between instances with as many sentences keeps the rows (issue
 * #26: rebuilding them was most of a step's GTK layout work) and shows the
 * new instance's sentences and targets in them. */
static void
test_rows_reused (Fixture *f, gconstpointer data)
{
  GtkListBox *list;
  HsInstance *other;
  HsSentence *s1;
  GtkWidget *rows[2];

  if (hs_ui_skip_without_display ())
    return;

  list = g_object_get_data (G_OBJECT (f->panel), "hs-sentence-list");
  other = hs_dataset_find_instance (f->dataset, "hand-03");
  s1 = g_ptr_array_index (other->sentences, 1);
  g_free (s1->text);
  s1->text = g_strdup ("The heart is enlarged.");
  g_strfreev (s1->targets);
  s1->targets = g_strsplit ("heart", ",", -1);

  show (f, "hand-00", "grounded");
  g_assert_true (hs_prompt_panel_select_sentence (f->panel, "s1"));
  for (int i = 0; i < 2; i++)
    {
      /* Held, so that a rebuilt row cannot come back at the same address. */
      rows[i] = g_object_ref (GTK_WIDGET (gtk_list_box_get_row_at_index (list, i)));
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (rows[i])))),
                       ==, i == 0 ? HS_UI_S0 : HS_UI_S1);
    }
  g_assert_null (gtk_widget_get_tooltip_text (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (rows[1]))));

  show (f, "hand-03", "grounded");
  g_assert_null (gtk_list_box_get_row_at_index (list, 2));
  for (int i = 0; i < 2; i++)
    g_assert_true (GTK_WIDGET (gtk_list_box_get_row_at_index (list, i)) == rows[i]);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (rows[0])))),
                   ==, HS_UI_S0);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (rows[0]))),
                   ==, "Targets: right lung");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (rows[1])))),
                   ==, "The heart is enlarged.");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (rows[1]))),
                   ==, "Targets: heart");
  /* The first sentence is selected again, as after any step. */
  g_assert_true (gtk_list_box_get_selected_row (list) == GTK_LIST_BOX_ROW (rows[0]));
  g_assert_cmpstr (hs_prompt_panel_get_sentence (f->panel)->id, ==, "s0");
  hs_prompt_panel_select_relative (f->panel, 1);
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==, "The heart is enlarged.");

  /* No instance: no rows; one again: rows afresh. */
  hs_prompt_panel_set_instance (f->panel, NULL, NULL);
  g_assert_null (gtk_list_box_get_row_at_index (list, 0));
  g_assert_null (gtk_widget_get_parent (rows[0]));
  show (f, "hand-00", "grounded");
  g_assert_nonnull (gtk_list_box_get_row_at_index (list, 1));
  g_assert_null (gtk_list_box_get_row_at_index (list, 2));
  for (int i = 0; i < 2; i++)
    g_object_unref (rows[i]);
}

static void
test_swap_sides (Fixture *f, gconstpointer data)
{
  if (hs_ui_skip_without_display ())
    return;

  show (f, "hand-01", "grounded");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "prompt.swap-sides", NULL));
  /* "right" → "left" as a word; the precomputed map of the swapped text. */
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==, HS_UI_S0_SWAPPED);
  g_assert_cmpstr (hs_prompt_panel_get_map_ref (f->panel)->file, ==, "maps/hand-01-s0-swap.npy");
  g_assert_cmpstr (hs_prompt_panel_get_status (f->panel), ==, "");
  /* The targets stay the original sentence's. */
  g_assert_cmpstr (hs_prompt_panel_get_sentence (f->panel)->id, ==, "s0");

  /* Swapping twice gives the sentence and its map back. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "prompt.swap-sides", NULL));
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==, HS_UI_S0);
  g_assert_cmpstr (hs_prompt_panel_get_map_ref (f->panel)->file, ==, "maps/hand-01-s0.npy");

  /* Case-preserving, word-based, "lt"/"rt" too, never inside other words. */
  hs_prompt_panel_set_prompt (f->panel, "LEFT base; Left apex, rt hilum and bright right-sided lung");
  hs_prompt_panel_swap_sides (f->panel);
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==,
                   "RIGHT base; Right apex, lt hilum and bright left-sided lung");

  /* The swapped s1 has no precomputed map: a custom prompt without a live model. */
  g_assert_true (hs_prompt_panel_select_sentence (f->panel, "s1"));
  hs_prompt_panel_swap_sides (f->panel);
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==, "The right lung is clear.");
  g_assert_null (hs_prompt_panel_get_map_ref (f->panel));
  g_assert_cmpstr (hs_prompt_panel_get_status (f->panel), ==,
                   "No live model selected: showing precomputed maps only");

  /* Reset returns to the selected sentence. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "prompt.reset", NULL));
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==, HS_UI_S1);
  g_assert_nonnull (hs_prompt_panel_get_map_ref (f->panel));
}

static void
test_custom_prompt (Fixture *f, gconstpointer data)
{
  GtkTextBuffer *buffer;

  if (hs_ui_skip_without_display ())
    return;

  show (f, "hand-02", "grounded");
  hs_prompt_panel_set_prompt (f->panel, "Heart size is enlarged.");
  g_assert_null (hs_prompt_panel_get_map_ref (f->panel));
  g_assert_cmpstr (hs_prompt_panel_get_status (f->panel), ==,
                   "No live model selected: showing precomputed maps only");

  /* Typing the swapped sentence by hand finds its map (exact text). */
  hs_prompt_panel_set_prompt (f->panel, HS_UI_S0_SWAPPED);
  g_assert_cmpstr (hs_prompt_panel_get_map_ref (f->panel)->file, ==, "maps/hand-02-s0-swap.npy");

  /* Edits through the text buffer (as typing does) resolve too. */
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (g_object_get_data (G_OBJECT (f->panel), "hs-prompt-view")));
  gtk_text_buffer_set_text (buffer, "", -1);
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==, "");
  g_assert_cmpstr (hs_prompt_panel_get_status (f->panel), ==, "Type a prompt or pick a report sentence");
  gtk_text_buffer_insert_at_cursor (buffer, HS_UI_S1, -1);
  g_assert_cmpstr (hs_prompt_panel_get_map_ref (f->panel)->file, ==, "maps/hand-02-s1.npy");

  /* Without any model (dataset without maps). */
  hs_prompt_panel_set_model (f->panel, NULL);
  g_assert_null (hs_prompt_panel_get_map_ref (f->panel));
  g_assert_cmpstr (hs_prompt_panel_get_status (f->panel), ==, "This dataset has no precomputed maps");

  /* Clearing. */
  hs_prompt_panel_set_instance (f->panel, NULL, NULL);
  g_assert_null (hs_prompt_panel_get_sentence (f->panel));
  g_assert_null (hs_prompt_panel_get_map_ref (f->panel));
  g_assert_cmpstr (hs_prompt_panel_get_prompt (f->panel), ==, "");
}

/* Hand-worked: t0 = [1, 0], t1 = [0.5, 0.5] → s = [0.75, 0.25];
 * t0·s = 0.75, t1·s = 0.5 → shares 0.6 and 0.4. */
static void
test_token_shares (void)
{
  const double values[] = { 1.0, 0.0, 0.5, 0.5 };
  const double zeros[] = { 0.0, 0.0, 0.0, 0.0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(HsAttentionMap) map = hs_attention_map_new (2, 1, 2, values, &error);
  g_autoptr(HsAttentionMap) flat = NULL;
  g_autoptr(HsAttentionMap) sentence = NULL;
  double shares[2];

  g_assert_no_error (error);
  g_assert_true (hs_prompt_token_shares (map, shares));
  g_assert_cmpfloat_with_epsilon (shares[0], 0.6, 1e-12);
  g_assert_cmpfloat_with_epsilon (shares[1], 0.4, 1e-12);

  /* All-zero maps: uniform, not NaN. */
  flat = hs_attention_map_new (2, 1, 2, zeros, &error);
  g_assert_no_error (error);
  g_assert_true (hs_prompt_token_shares (flat, shares));
  g_assert_cmpfloat (shares[0], ==, 0.5);
  g_assert_cmpfloat (shares[1], ==, 0.5);

  /* A sentence map has no tokens. */
  sentence = hs_attention_map_new (0, 1, 2, values, &error);
  g_assert_no_error (error);
  g_assert_false (hs_prompt_token_shares (sentence, shares));
}

static void
test_token_strip (Fixture *f, gconstpointer data)
{
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  HsInstance *instance;
  const char *shown = NULL, *key = NULL;

  if (hs_ui_skip_without_display ())
    return;

  show (f, "hand-00", "tokens");
  g_assert_true (hs_prompt_panel_select_sentence (f->panel, "s1"));
  g_assert_nonnull (hs_prompt_panel_get_map_ref (f->panel));
  instance = hs_dataset_find_instance (f->dataset, "hand-00");
  map = hs_dataset_load_map (f->dataset, hs_prompt_panel_get_map_ref (f->panel), &error);
  g_assert_no_error (error);
  g_assert_nonnull (instance);

  hs_prompt_panel_set_map (f->panel, map);
  g_assert_cmpuint (hs_prompt_panel_get_n_tokens (f->panel), ==, 5);
  g_assert_cmpint (hs_prompt_panel_get_token (f->panel), ==, -1);
  hs_prompt_panel_get_token_texts (f->panel, &shown, NULL);
  g_assert_nonnull (strstr (shown, "sentence map"));
  {
    /* The key names the shares' range, computed here from the map. */
    double shares[5], lo = 1, hi = 0;
    g_autofree char *range = NULL;
    g_autofree char *caption = NULL;

    g_assert_true (hs_prompt_token_shares (map, shares));
    for (guint i = 0; i < 5; i++)
      lo = MIN (lo, shares[i]), hi = MAX (hi, shares[i]);
    range = g_strdup_printf ("pale = %.0f %% (least) to strong red = %.0f %% (most)", lo * 100, hi * 100);
    hs_prompt_panel_get_token_texts (f->panel, NULL, &key);
    g_assert_nonnull (strstr (key, range));

    /* A clicked token reads as selected: the caption names it with its
     * share, its button is marked, the others are not. */
    hs_prompt_panel_set_token (f->panel, 1);
    caption = g_strdup_printf ("token “left” (%.1f %% of the sentence map)", shares[1] * 100);
    hs_prompt_panel_get_token_texts (f->panel, &shown, NULL);
    g_assert_nonnull (strstr (shown, caption));
    {
      GtkWidget *strip = hs_ui_find_widget (GTK_WIDGET (f->panel), GTK_TYPE_FLOW_BOX);
      guint n_selected = 0;

      for (GtkWidget *child = gtk_widget_get_first_child (strip); child != NULL;
           child = gtk_widget_get_next_sibling (child))
        {
          GtkWidget *button = gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (child));
          gboolean selected = gtk_widget_has_css_class (button, "hs-token-selected");

          n_selected += selected;
          if (selected)
            g_assert_cmpint (GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "hs-token")), ==, 1);
        }
      g_assert_cmpuint (n_selected, ==, 1);
    }
  }
  g_assert_cmpint (f->last_token, ==, 1);
  g_assert_cmpint (hs_prompt_panel_get_token (f->panel), ==, 1);
  hs_prompt_panel_set_token (f->panel, 99);     /* out of range: the sentence map */
  g_assert_cmpint (f->last_token, ==, -1);
  hs_prompt_panel_set_token (f->panel, 1);
  hs_ui_settle ();

  texture = hs_ui_render (GTK_WIDGET (f->window));
  hs_ui_assert_golden (texture, "prompt-tokens", 0.02);

  /* A sentence map hides the strip and resets the token. */
  hs_prompt_panel_set_map (f->panel, NULL);
  g_assert_cmpuint (hs_prompt_panel_get_n_tokens (f->panel), ==, 0);
  g_assert_cmpint (hs_prompt_panel_get_token (f->panel), ==, -1);
}

int
main (int argc, char **argv)
{
  int status;

  hs_ui_init (&argc, &argv);
  dataset_root = hs_ui_make_dataset ();

  g_test_add ("/hs/ui/prompt/sentences", Fixture, NULL, fixture_set_up, test_sentences, fixture_tear_down);
  g_test_add ("/hs/ui/prompt/rows-reused", Fixture, NULL, fixture_set_up, test_rows_reused, fixture_tear_down);
  g_test_add ("/hs/ui/prompt/swap-sides", Fixture, NULL, fixture_set_up, test_swap_sides, fixture_tear_down);
  g_test_add ("/hs/ui/prompt/custom-prompt", Fixture, NULL, fixture_set_up, test_custom_prompt, fixture_tear_down);
  g_test_add_func ("/hs/ui/prompt/token-shares", test_token_shares);
  g_test_add ("/hs/ui/prompt/token-strip", Fixture, NULL, fixture_set_up, test_token_strip, fixture_tear_down);
  status = g_test_run ();
  g_free (dataset_root);
  return status;
}
