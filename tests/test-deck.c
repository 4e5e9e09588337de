/* test-deck.c — the .hsdeck file: every field survives save and load, and
 * hostile decks (not JSON, wrong version, huge, deep, paths out of the
 * folder, control characters, unknown models) are refused with one line
 * naming the deck and the case. */
#include <heatscope/heatscope.h>

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "hs-test-util.h"

static HsDeck *
full_deck (void)
{
  HsDeck *deck = hs_deck_new ("data/ms-cxr");
  HsDeckCase *a = hs_deck_case_new ("p0001"), *b = hs_deck_case_new ("p0002");
  const char *metrics[] = { "auroc", "pointing_hit", NULL };

  deck->manifest_sha256 = g_strnfill (64, 'a');
  a->sentence = 2;
  a->sentence_text = g_strdup ("Left \"basal\" opacity.\n");
  a->swap = TRUE;
  hs_deck_case_add_model (a, "sim", FALSE);
  hs_deck_case_add_model (a, "grounded", TRUE);
  a->view = HS_DECK_VIEW_BLINK;
  a->overlay.colormap = HS_COLORMAP_VIRIDIS;
  a->overlay.scale.mode = HS_SCALE_PERCENTILE;
  a->overlay.scale.p_lo = 2.5;
  a->overlay.scale.p_hi = 97.5;
  a->overlay.scale.symmetric = TRUE;
  a->overlay.strength = HS_STRENGTH_LOG;
  a->overlay.strength_param = 10;
  a->overlay.threshold = 0.3;
  a->overlay.threshold_band = 0;
  a->overlay.upsample = HS_UPSAMPLE_NEAREST;
  a->overlay.opacity = 0.1 + 0.2;   /* not exactly 0.3: the number must round-trip */
  a->outline = HS_OUTLINE_OTSU;
  a->outline_top_k = 5;
  a->window_center = 0.4;
  a->window_width = 0.6;
  a->zoom = 2.5;
  a->center_x = 0.25;
  a->center_y = 0.75;
  a->show_boxes = FALSE;
  a->show_masks = FALSE;
  a->show_overlay = FALSE;
  a->note = g_strdup ("Ignores \"left\".\n\tSee the swap. Ünïcode ✓");
  a->reveal = TRUE;
  a->metrics = g_strdupv ((char **) metrics);
  a->map_sha256 = g_strnfill (64, '0');
  a->maps_sha256 = g_new0 (char *, 3);
  a->maps_sha256[0] = g_strnfill (64, '1');
  a->maps_sha256[1] = g_strnfill (64, 'f');
  a->embedded_maps = g_strsplit ("maps/1-1.npy maps/1-2.npy", " ", -1);

  b->prompt = g_strdup ("cardiomegaly");
  hs_deck_case_add_model (b, "blind", TRUE);
  b->view = HS_DECK_VIEW_GRID;
  b->overlay.scale.mode = HS_SCALE_FIXED;
  b->overlay.scale.lo = -0.5;
  b->overlay.scale.hi = 1e-3;
  g_ptr_array_add (deck->cases, a);
  g_ptr_array_add (deck->cases, b);
  return deck;
}

static void
assert_cases_equal (const HsDeckCase *x, const HsDeckCase *y)
{
  g_assert_cmpstr (x->instance, ==, y->instance);
  g_assert_cmpuint (x->sentence, ==, y->sentence);
  g_assert_cmpstr (x->sentence_text, ==, y->sentence_text);
  g_assert_cmpstr (x->prompt, ==, y->prompt);
  g_assert_cmpint (x->swap, ==, y->swap);
  g_assert_cmpuint (x->models->len, ==, y->models->len);
  for (guint i = 0; i < x->models->len; i++)
    {
      const HsDeckModel *mx = g_ptr_array_index (x->models, i), *my = g_ptr_array_index (y->models, i);
      g_assert_cmpstr (mx->name, ==, my->name);
      g_assert_cmpint (mx->live, ==, my->live);
    }
  g_assert_cmpint (x->view, ==, y->view);
  g_assert_cmpint (x->overlay.colormap, ==, y->overlay.colormap);
  g_assert_cmpint (x->overlay.scale.mode, ==, y->overlay.scale.mode);
  if (x->overlay.scale.mode == HS_SCALE_FIXED)
    {
      g_assert_cmpfloat (x->overlay.scale.lo, ==, y->overlay.scale.lo);
      g_assert_cmpfloat (x->overlay.scale.hi, ==, y->overlay.scale.hi);
    }
  if (x->overlay.scale.mode == HS_SCALE_PERCENTILE)
    {
      g_assert_cmpfloat (x->overlay.scale.p_lo, ==, y->overlay.scale.p_lo);
      g_assert_cmpfloat (x->overlay.scale.p_hi, ==, y->overlay.scale.p_hi);
    }
  g_assert_cmpint (x->overlay.scale.symmetric, ==, y->overlay.scale.symmetric);
  g_assert_cmpint (x->overlay.strength, ==, y->overlay.strength);
  g_assert_cmpfloat (x->overlay.strength_param, ==, y->overlay.strength_param);
  g_assert_cmpfloat (x->overlay.threshold, ==, y->overlay.threshold);
  g_assert_cmpfloat (x->overlay.threshold_band, ==, y->overlay.threshold_band);
  g_assert_cmpint (x->overlay.upsample, ==, y->overlay.upsample);
  g_assert_cmpfloat (x->overlay.opacity, ==, y->overlay.opacity);   /* bit-exact */
  g_assert_cmpint (x->outline, ==, y->outline);
  g_assert_cmpfloat (x->outline_top_k, ==, y->outline_top_k);
  g_assert_cmpfloat (x->window_center, ==, y->window_center);
  g_assert_cmpfloat (x->window_width, ==, y->window_width);
  g_assert_cmpfloat (x->zoom, ==, y->zoom);
  g_assert_cmpfloat (x->center_x, ==, y->center_x);
  g_assert_cmpfloat (x->center_y, ==, y->center_y);
  g_assert_cmpint (x->show_overlay, ==, y->show_overlay);
  g_assert_cmpint (x->show_boxes, ==, y->show_boxes);
  g_assert_cmpint (x->show_masks, ==, y->show_masks);
  g_assert_cmpstr (x->note, ==, y->note);
  g_assert_cmpint (x->reveal, ==, y->reveal);
  g_assert_true ((x->metrics == NULL) == (y->metrics == NULL));
  g_assert_true (x->metrics == NULL || g_strv_equal ((const char * const *) x->metrics,
                                                     (const char * const *) y->metrics));
  g_assert_cmpstr (x->map_sha256, ==, y->map_sha256);
  g_assert_true ((x->maps_sha256 == NULL) == (y->maps_sha256 == NULL));
  g_assert_true (x->maps_sha256 == NULL
                 || g_strv_equal ((const char * const *) x->maps_sha256,
                                  (const char * const *) y->maps_sha256));
  g_assert_true ((x->embedded_maps == NULL) == (y->embedded_maps == NULL));
  g_assert_true (x->embedded_maps == NULL
                 || g_strv_equal ((const char * const *) x->embedded_maps,
                                  (const char * const *) y->embedded_maps));
}

static void
test_round_trip (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "talk.hsdeck", NULL);
  g_autofree char *text = NULL, *again = NULL;
  g_autoptr(HsDeck) deck = full_deck ();
  g_autoptr(HsDeck) loaded = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (hs_deck_save (deck, path, &error));
  g_assert_no_error (error);
  loaded = hs_deck_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (loaded->dataset, ==, "data/ms-cxr");
  g_assert_cmpstr (loaded->manifest_sha256, ==, deck->manifest_sha256);
  g_assert_cmpuint (loaded->cases->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    assert_cases_equal (g_ptr_array_index (deck->cases, i), g_ptr_array_index (loaded->cases, i));
  /* a copy is a deep copy */
  {
    g_autoptr(HsDeckCase) copy = hs_deck_case_copy (g_ptr_array_index (deck->cases, 0));
    assert_cases_equal (copy, g_ptr_array_index (deck->cases, 0));
  }
  /* the text is stable: saved again it is byte for byte the same */
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  again = hs_deck_to_json (loaded, NULL);
  g_assert_cmpstr (text, ==, again);
  g_assert_nonnull (strstr (text, "\"version\": 1,"));
  g_assert_nonnull (strstr (text, "\"view\": \"blink\""));
  g_assert_nonnull (strstr (text, "\"percentile_low\": 2.5"));
  g_assert_true (hs_deck_case_is_live (g_ptr_array_index (loaded->cases, 1)));
  g_assert_cmpstr (hs_deck_case_get_text (g_ptr_array_index (loaded->cases, 1)), ==, "cardiomegaly");
}

static void
test_defaults (void)
{
  static const char minimal[] =
    "{\"version\": 1, \"dataset\": \".\", \"cases\": ["
    " {\"instance\": \"p1\", \"sentence\": 1, \"models\": [{\"name\": \"sim\"}]}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDeck) deck = hs_deck_parse (minimal, strlen (minimal), "m.hsdeck", &error);
  g_autoptr(HsDeckCase) fresh = hs_deck_case_new ("p1");
  HsDeckCase *item;

  g_assert_no_error (error);
  item = g_ptr_array_index (deck->cases, 0);
  fresh->sentence = 1;
  hs_deck_case_add_model (fresh, "sim", FALSE);
  assert_cases_equal (item, fresh);
  g_assert_cmpint (item->overlay.colormap, ==, HS_COLORMAP_JET);
  g_assert_cmpfloat (item->overlay.opacity, ==, 0.5);
  g_assert_cmpfloat (item->zoom, ==, 1);
  g_assert_null (deck->manifest_sha256);
  g_clear_pointer (&deck, hs_deck_free);
  /* an empty deck */
  deck = hs_deck_parse ("{\"version\": 1, \"dataset\": \"d\"}", 30, "e.hsdeck", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (deck->cases->len, ==, 0);
}

typedef struct {
  const char *text;
  const char *expected;  /* in the message, after "bad.hsdeck: " */
} BadDeck;

#define CASE_OK "\"instance\": \"p1\", \"sentence\": 1, \"models\": [{\"name\": \"sim\"}]"
#define DECK(cases) "{\"version\": 1, \"dataset\": \"d\", \"cases\": [{" CASE_OK "}, " cases "]}"

static void
test_bad_decks (void)
{
  static const BadDeck bad[] = {
    { "", "not JSON" },
    { "hello", "not JSON" },
    { "{\"version\": 1, \"dataset\": \"d\",}", "not JSON" },
    { "[1, 2]", "$: expected a deck object" },
    { "{\"dataset\": \"d\"}", "$: missing required member \"version\"" },
    { "{\"version\": 2, \"dataset\": \"d\"}", "$.version: version 2 is not one this Heatscope reads (1)" },
    { "{\"version\": \"1\", \"dataset\": \"d\"}", "$.version: expected a whole number" },
    { "{\"version\": 1, \"dataset\": \"d\", \"format\": \"heatscope-figure\"}", "$.format" },
    { "{\"version\": 1, \"dataset\": \"d\", \"extra\": 1}", "unknown member \"extra\"" },
    { "{\"version\": 1}", "missing required member \"dataset\"" },
    { "{\"version\": 1, \"dataset\": \"../data\"}", "$.dataset: the path \"../data\" leaves the deck's folder" },
    { "{\"version\": 1, \"dataset\": \"a/../../b\"}", "leaves the deck's folder" },
    { "{\"version\": 1, \"dataset\": \"/etc\"}", "leaves the deck's folder" },
    { "{\"version\": 1, \"dataset\": \"d\", \"manifest_sha256\": \"ABC\"}", "$.manifest_sha256: expected 64" },
    { "{\"version\": 1, \"dataset\": \"d\", \"cases\": {}}", "$.cases: expected an array" },
    { DECK ("3"), "case 2: $.cases[1]: expected a case object" },
    { DECK ("{\"sentence\": 1, \"models\": [{\"name\": \"sim\"}]}"), "case 2: $.cases[1]: missing required member \"instance\"" },
    { DECK ("{\"instance\": \"p\", \"sentence\": 1}"), "case 2: $.cases[1]: missing required member \"models\"" },
    { DECK ("{\"instance\": \"p\", \"sentence\": 0, \"models\": [{\"name\": \"s\"}]}"), "case 2: $.cases[1].sentence: expected a sentence number from 1" },
    { DECK ("{\"instance\": \"p\", \"sentence\": 1.5, \"models\": [{\"name\": \"s\"}]}"), "$.cases[1].sentence" },
    { DECK ("{\"instance\": \"p\", \"models\": [{\"name\": \"s\"}]}"), "case 2: $.cases[1]: a case needs one of" },
    { DECK ("{\"instance\": \"p\", \"prompt\": \"x\", \"models\": [{\"name\": \"s\"}]}"), "case 2: $.cases[1]: a free \"prompt\" needs a live model" },
    { DECK ("{\"instance\": \"p\", \"prompt\": \"x\", \"swap\": true, \"models\": [{\"name\": \"grounded\", \"live\": true}]}"), "a swapped case needs a \"sentence\"" },
    { DECK ("{" CASE_OK ", \"note\": \"bell\\u0007\"}"), "case 2: $.cases[1].note: control character U+0007" },
    { DECK ("{" CASE_OK ", \"note\": \"esc\\u001b[31m\"}"), "case 2: $.cases[1].note: control character U+001B" },
    { DECK ("{" CASE_OK ", \"note\": \"c1 \\u009b\"}"), "control character U+009B" },
    { DECK ("{\"instance\": \"p\\nq\", \"sentence\": 1, \"models\": [{\"name\": \"s\"}]}"), "case 2: $.cases[1].instance: control character U+000A" },
    { DECK ("{\"instance\": \"p\", \"sentence\": 1, \"models\": [{\"name\": \"/tmp/evil.safetensors\", \"live\": true}]}"), "case 2: $.cases[1].models[0].name: \"/tmp/evil.safetensors\" is not a built-in model" },
    { DECK ("{\"instance\": \"p\", \"sentence\": 1, \"models\": []}"), "$.cases[1].models: expected an array of 1 to 16 models" },
    { DECK ("{\"instance\": \"p\", \"sentence\": 1, \"models\": [\"sim\"]}"), "$.cases[1].models[0]: expected a model object" },
    { DECK ("{" CASE_OK ", \"view\": \"carousel\"}"), "case 2: $.cases[1].view: unknown value \"carousel\"" },
    { DECK ("{" CASE_OK ", \"overlay\": {\"colormap\": \"rainbow\"}}"), "$.cases[1].overlay.colormap: unknown value \"rainbow\"" },
    { DECK ("{" CASE_OK ", \"overlay\": {\"opacity\": 2}}"), "$.cases[1].overlay.opacity: 2 is not in [0, 1]" },
    { DECK ("{" CASE_OK ", \"overlay\": {\"scale\": {\"mode\": \"fixed\", \"min\": 1, \"max\": 1}}}"), "$.cases[1].overlay.scale: \"min\" must be below \"max\"" },
    { DECK ("{" CASE_OK ", \"overlay\": {\"scale\": {\"mode\": \"percentile\", \"percentile_low\": 50, \"percentile_high\": 5}}}"), "must be below \"percentile_high\"" },
    { DECK ("{" CASE_OK ", \"overlay\": {\"gamma\": 2}}"), "$.cases[1].overlay: unknown member \"gamma\"" },
    { DECK ("{" CASE_OK ", \"viewport\": {\"zoom\": 0}}"), "$.cases[1].viewport.zoom: 0 is not in [1, 64]" },
    { DECK ("{" CASE_OK ", \"layers\": {\"boxes\": 1}}"), "$.cases[1].layers.boxes: expected true or false" },
    { DECK ("{" CASE_OK ", \"metrics\": [\"accuracy\"]}"), "case 2: $.cases[1].metrics[0]: unknown metric \"accuracy\"" },
    { DECK ("{" CASE_OK ", \"maps\": [\"../m.npy\"]}"), "case 2: $.cases[1].maps[0]: the path \"../m.npy\" leaves the deck's folder" },
    { DECK ("{" CASE_OK ", \"maps\": [\"/m.npy\"]}"), "leaves the deck's folder" },
    { DECK ("{" CASE_OK ", \"map_sha256\": \"xyz\"}"), "$.cases[1].map_sha256: expected 64" },
    { DECK ("{" CASE_OK ", \"maps_sha256\": [\"ABC\"]}"), "$.cases[1].maps_sha256[0]: expected 64" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HsDeck) deck = hs_deck_parse (bad[i].text, strlen (bad[i].text), "bad.hsdeck", &error);

      g_assert_null (deck);
      g_assert_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID);
      if (!g_str_has_prefix (error->message, "bad.hsdeck: ")
          || strstr (error->message, bad[i].expected) == NULL || strchr (error->message, '\n'))
        g_error ("deck %u (%s): got \"%s\", expected \"%s\"", i, bad[i].text, error->message,
                 bad[i].expected);
    }
}

/* Nested a million deep, over the size budget, bytes that are not UTF-8:
 * refused before or while parsing, never a crash. */
static void
test_hostile_bytes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) deep = g_string_new ("{\"version\": 1, \"dataset\": \"d\", \"cases\": [");
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *big = g_build_filename (dir, "big.hsdeck", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo.hsdeck", NULL);
  HsDeck *deck;

  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (deep, '[');
  deck = hs_deck_parse (deep->str, deep->len, "deep.hsdeck", &error);
  g_assert_null (deck);
  g_assert_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, "deep.hsdeck: not JSON: "));
  g_clear_error (&error);

  deck = hs_deck_parse ("{\"version\": 1, \"dataset\": \"\xff\"}", 30, "utf.hsdeck", &error);
  g_assert_null (deck);
  g_assert_true (g_str_has_prefix (error->message, "utf.hsdeck: invalid UTF-8"));
  g_clear_error (&error);

  {
    FILE *f = fopen (big, "w");
    g_assert_nonnull (f);
    g_assert_cmpint (fseek (f, HS_DECK_MAX_BYTES + 1, SEEK_SET), ==, 0);
    fputc (' ', f);
    fclose (f);
  }
  deck = hs_deck_load (big, &error);
  g_assert_null (deck);
  g_assert_nonnull (strstr (error->message, "big.hsdeck"));
  g_clear_error (&error);

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  deck = hs_deck_load (fifo, &error);   /* must not hang */
  g_assert_null (deck);
  g_assert_nonnull (strstr (error->message, "fifo.hsdeck"));
}

/* The dataset path beneath the deck's folder, a symlink out refused. */
static void
test_open_beneath (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *outside = hs_test_make_tmpdir ();
  g_autofree char *deck_path = g_build_filename (dir, "talk.hsdeck", NULL);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *link = g_build_filename (dir, "out", NULL);
  g_autoptr(GError) error = NULL;
  int fd;

  g_assert_true (hs_deck_path_is_plain ("."));
  g_assert_true (hs_deck_path_is_plain ("a/b"));
  g_assert_false (hs_deck_path_is_plain ("a/../b"));
  g_assert_false (hs_deck_path_is_plain ("a//b"));
  g_assert_false (hs_deck_path_is_plain ("./a"));
  g_assert_false (hs_deck_path_is_plain (""));
  g_assert_false (hs_deck_path_is_plain ("/a"));

  g_assert_cmpint (g_mkdir (ds, 0700), ==, 0);
  hs_test_write_file (ds, "heatscope.json", "{}");
  hs_test_write_file (dir, "heatscope.json", "[]");
  hs_test_write_file (outside, "heatscope.json", "{}");
  g_assert_cmpint (symlink (outside, link), ==, 0);

  fd = hs_deck_open_beneath (deck_path, "ds", "heatscope.json", &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  {
    g_autofree char *hex = hs_deck_hash_fd (fd, "ds", &error);
    g_autofree char *expected = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "{}", 2);
    g_assert_cmpstr (hex, ==, expected);
  }
  close (fd);
  fd = hs_deck_open_beneath (deck_path, ".", "heatscope.json", &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  close (fd);

  fd = hs_deck_open_beneath (deck_path, "out", "heatscope.json", &error);
  g_assert_cmpint (fd, ==, -1);
  g_assert_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "talk.hsdeck: the path \"out\" leads out of the deck's folder through a symlink"));
  g_clear_error (&error);
  fd = hs_deck_open_beneath (deck_path, "../x", "heatscope.json", &error);
  g_assert_cmpint (fd, ==, -1);
  g_assert_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID);
  g_clear_error (&error);
  fd = hs_deck_open_beneath (deck_path, "gone", "heatscope.json", &error);
  g_assert_cmpint (fd, ==, -1);
  g_assert_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED);
  g_assert_nonnull (strstr (error->message, "talk.hsdeck: "));
}

/* The map hash over bytes laid out by hand: height, width, values as
 * little-endian uint32 and binary64. */
static void
test_hash_maps (void)
{
  static const guint8 bytes[] = {
    1, 0, 0, 0,  2, 0, 0, 0,                          /* h = 1, w = 2 */
    0, 0, 0, 0, 0, 0, 0xf0, 0x3f,                     /* 1.0  */
    0, 0, 0, 0, 0, 0, 0x00, 0xc0,                     /* -2.0 */
    1, 0, 0, 0,  1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0xe0, 0x3f,                     /* 0.5  */
  };
  g_autoptr(HsAttentionMap) a = NULL, b = NULL, c = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = g_compute_checksum_for_data (G_CHECKSUM_SHA256, bytes, sizeof bytes);
  g_autofree char *got = NULL, *other = NULL;
  const double va[] = { 1.0, -2.0 }, vb[] = { 0.5 }, vc[] = { 0.5000000001 };

  a = hs_attention_map_new (0, 1, 2, va, &error);
  g_assert_no_error (error);
  b = hs_attention_map_new (0, 1, 1, vb, &error);
  c = hs_attention_map_new (0, 1, 1, vc, &error);
  got = hs_deck_hash_maps ((HsAttentionMap *[]) { a, b }, 2);
  g_assert_cmpstr (got, ==, expected);
  other = hs_deck_hash_maps ((HsAttentionMap *[]) { a, c }, 2);
  g_assert_cmpstr (other, !=, expected);
  /* Each alone: the bytes of a (24) and of b (16). */
  {
    g_auto(GStrv) each = hs_deck_hash_each ((HsAttentionMap *[]) { a, b }, 2);
    g_autofree char *first = g_compute_checksum_for_data (G_CHECKSUM_SHA256, bytes, 24);
    g_autofree char *second = g_compute_checksum_for_data (G_CHECKSUM_SHA256, bytes + 24, 16);

    g_assert_cmpuint (g_strv_length (each), ==, 2);
    g_assert_cmpstr (each[0], ==, first);
    g_assert_cmpstr (each[1], ==, second);
  }
}

/* The JSON Schema in data/ accepts what the writer writes and refuses what
 * the reader refuses (keeps schema, reader and writer in step). */
static void
test_schema (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "talk.hsdeck", NULL);
  g_autofree char *schema = g_build_filename (hs_test_source_dir (), "data",
                                              "heatscope-deck.schema.json", NULL);
  g_autoptr(HsDeck) deck = full_deck ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  const char *args[] = { path, schema, NULL };
  const char *script =
    "import json, sys, copy\n"
    "import jsonschema\n"
    "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "s = json.load(open(sys.argv[2], encoding='utf-8'))\n"
    "v = jsonschema.Draft202012Validator(s)\n"
    "jsonschema.Draft202012Validator.check_schema(s)\n"
    "v.validate(d)\n"
    "def bad(change):\n"
    "    b = copy.deepcopy(d); change(b)\n"
    "    assert list(v.iter_errors(b)), 'schema accepts a bad deck'\n"
    "bad(lambda b: b.update(version=2))\n"
    "bad(lambda b: b.update(dataset='../x'))\n"
    "bad(lambda b: b.update(dataset='a/./b'))\n"
    "bad(lambda b: b['cases'][0].update(note='bell\\u0007'))\n"
    "bad(lambda b: b['cases'][0].update(prompt='both'))\n"
    "bad(lambda b: b['cases'][0].update(maps=['/abs.npy']))\n"
    "bad(lambda b: b['cases'][0].update(view='carousel'))\n"
    "bad(lambda b: b['cases'][0]['overlay'].update(gamma=2))\n"
    "print('ok')\n";

  g_assert_true (hs_deck_save (deck, path, &error));
  out = hs_test_python (script, args);
  if (out != NULL)
    g_assert_cmpstr (out, ==, "ok\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/deck/round-trip", test_round_trip);
  g_test_add_func ("/deck/defaults", test_defaults);
  g_test_add_func ("/deck/bad-decks", test_bad_decks);
  g_test_add_func ("/deck/hostile-bytes", test_hostile_bytes);
  g_test_add_func ("/deck/open-beneath", test_open_beneath);
  g_test_add_func ("/deck/hash-maps", test_hash_maps);
  g_test_add_func ("/deck/schema", test_schema);
  return g_test_run ();
}
