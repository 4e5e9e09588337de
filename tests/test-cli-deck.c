/* test-cli-deck.c — heatscope-cli deck: building a deck of three cases
 * (single, swap compare, model grid), listing and validating it, a changed
 * or moved dataset named, every kind of bad deck refused in one line, and a
 * kill mid-save leaving the old deck. */
#include <heatscope/heatscope.h>

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "hs-test-util.h"

/* A folder holding the phantom demo ("ds": deterministic, simulated maps
 * sim-grounded and sim-blind, which include the swapped prompts' maps) and
 * nothing else. */
static char *
make_folder (void)
{
  char *dir = hs_test_make_tmpdir ();
  g_autofree char *ds = hs_test_make_demo (dir, "ds", 3, 128, "simulated");

  return dir;
}

/* Runs `deck ARGS…`; returns the exit status, stdout and stderr. */
static int
deck (const char * const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();

  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  return hs_test_run_cli ("deck", (const char * const *) argv->pdata, out, err);
}

static void
deck_ok (const char * const *args)
{
  g_autofree char *out = NULL, *err = NULL;

  if (deck (args, &out, &err) != 0)
    g_error ("deck %s %s failed: %s", args[0], args[1], err);
}

/* The sentence texts of the three cases, read from the manifest with Python's json
 * (an independent reader). */
static char *
sentence_of (const char *ds, const char *instance, guint n)
{
  g_autofree char *manifest = g_build_filename (ds, "heatscope.json", NULL);
  g_autofree char *index = g_strdup_printf ("%u", n - 1);
  const char *args[] = { manifest, instance, index, NULL };
  char *out = hs_test_python (
    "import json, sys\n"
    "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "i = [x for x in d['instances'] if x['id'] == sys.argv[2]][0]\n"
    "sys.stdout.write(i['sentences'][int(sys.argv[3])]['text'])\n", args);

  g_assert_nonnull (out);
  return out;
}

/* Three cases: single (precomputed), swap compare (precomputed, swapped
 * prompt's map), model grid (two precomputed and one live built-in). */
static char *
make_deck (const char *dir)
{
  char *path = g_build_filename (dir, "talk.hsdeck", NULL);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  const char *new_args[] = { "new", path, ds, NULL };
  const char *single[] = { "add", path, "--instance", "phantom-000000", "--sentence", "1",
                           "--model", "sim-grounded", "--note", "Single: looks right",
                           "--metric", "auroc", NULL };
  const char *swap[] = { "add", path, "--instance", "phantom-000001", "--sentence", "2",
                         "--swap", "--model", "sim-grounded", "--scale", "percentile:1:99",
                         "--note", "Swap: the map barely moves", NULL };
  const char *grid[] = { "add", path, "--instance", "phantom-000002", "--sentence", "1",
                         "--model", "sim-grounded", "--model", "sim-blind", "--model", "grounded",
                         "--view", "grid", "--note", "Grid: three models disagree", NULL };

  deck_ok (new_args);
  deck_ok (single);
  deck_ok (swap);
  deck_ok (grid);
  return path;
}

static void
test_build_list_validate (void)
{
  g_autofree char *dir = make_folder ();
  g_autofree char *path = make_deck (dir);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *s1 = sentence_of (ds, "phantom-000000", 1);
  g_autofree char *s2 = sentence_of (ds, "phantom-000001", 2);
  g_autoptr(HsDeck) loaded = NULL;
  g_autoptr(GError) error = NULL;
  const char *list[] = { "list", path, NULL };
  const char *validate[] = { "validate", path, NULL };
  HsDeckCase *c;

  /* what was written, read back with the library */
  loaded = hs_deck_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (loaded->dataset, ==, "ds");
  g_assert_nonnull (loaded->manifest_sha256);
  g_assert_cmpuint (loaded->cases->len, ==, 3);
  c = g_ptr_array_index (loaded->cases, 0);
  g_assert_cmpint (c->view, ==, HS_DECK_VIEW_SINGLE);
  g_assert_cmpstr (c->sentence_text, ==, s1);
  g_assert_cmpstr (c->metrics[0], ==, "auroc");
  g_assert_nonnull (c->map_sha256);
  c = g_ptr_array_index (loaded->cases, 1);
  g_assert_cmpint (c->view, ==, HS_DECK_VIEW_COMPARE);
  g_assert_true (c->swap);
  g_assert_cmpint (c->overlay.scale.mode, ==, HS_SCALE_PERCENTILE);
  g_assert_cmpfloat (c->overlay.scale.p_hi, ==, 99);
  c = g_ptr_array_index (loaded->cases, 2);
  g_assert_cmpint (c->view, ==, HS_DECK_VIEW_GRID);
  g_assert_cmpuint (c->models->len, ==, 3);
  g_assert_false (((HsDeckModel *) g_ptr_array_index (c->models, 1))->live);
  g_assert_true (((HsDeckModel *) g_ptr_array_index (c->models, 2))->live);

  g_assert_cmpint (deck (list, &out, &err), ==, 0);
  g_assert_true (g_str_has_prefix (out, "dataset ds, 3 cases\n1. phantom-000000 · sentence 1 \""));
  g_assert_nonnull (strstr (out, s2));
  g_assert_nonnull (strstr (out, "\n2. phantom-000001 · sentence 2 "));
  g_assert_nonnull (strstr (out, " + swap · sim-grounded · compare · Swap: the map barely moves\n"));
  g_assert_nonnull (strstr (out, "sim-grounded, sim-blind, grounded (live) · grid · Grid: three models disagree\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (deck (validate, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, "ok: 3 cases\n");
}

/* The map hash recorded by `deck add` is that of the map file's values,
 * computed here with numpy from the .npy the manifest names. */
static void
test_map_hash (void)
{
  g_autofree char *dir = make_folder ();
  g_autofree char *path = g_build_filename (dir, "talk.hsdeck", NULL);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *manifest = g_build_filename (ds, "heatscope.json", NULL);
  const char *new_args[] = { "new", path, ds, NULL };
  const char *add[] = { "add", path, "--instance", "phantom-000001", "--sentence", "2",
                        "--model", "sim-blind", NULL };
  g_autoptr(HsDeck) loaded = NULL;
  g_autoptr(GError) error = NULL;
  const char *args[] = { manifest, NULL };
  g_autofree char *expected = NULL;

  deck_ok (new_args);
  deck_ok (add);
  loaded = hs_deck_load (path, &error);
  g_assert_no_error (error);
  expected = hs_test_python (
    "import json, sys, os, hashlib, struct\n"
    "import numpy as np\n"
    "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "i = [x for x in d['instances'] if x['id'] == 'phantom-000001'][0]\n"
    "m = [m for m in i['maps'] if m['model'] == 'sim-blind' and m.get('query') == 's2'][0]\n"
    "a = np.load(os.path.join(os.path.dirname(sys.argv[1]), m['file'])).astype('<f8')\n"
    "assert a.ndim == 2, a.shape\n"
    "h = hashlib.sha256(struct.pack('<II', a.shape[0], a.shape[1]) + a.tobytes())\n"
    "sys.stdout.write(h.hexdigest())\n", args);
  if (expected != NULL)
    {
      HsDeckCase *item = g_ptr_array_index (loaded->cases, 0);

      g_assert_cmpstr (item->map_sha256, ==, expected);
      /* one map: its own hash is the case's */
      g_assert_cmpuint (g_strv_length (item->maps_sha256), ==, 1);
      g_assert_cmpstr (item->maps_sha256[0], ==, expected);
    }
}

static void
run_validate (const char *path, int status, char **out, char **err)
{
  const char *validate[] = { "validate", path, NULL };

  g_assert_cmpint (deck (validate, out, err), ==, status);
  g_test_message ("validate: %s%s", *out, *err);
}

/* An edited manifest (a sentence reworded), a replaced map file and a
 * moved dataset are each named; never "ok". */
static void
test_changed_dataset (void)
{
  g_autofree char *dir = make_folder ();
  g_autofree char *path = make_deck (dir);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *manifest = g_build_filename (ds, "heatscope.json", NULL);
  g_autofree char *moved = g_build_filename (dir, "ds-moved", NULL);
  g_autofree char *s2 = sentence_of (ds, "phantom-000001", 2);
  g_autofree char *text = NULL, *edited = NULL, *out = NULL, *err = NULL;
  g_autofree char *expected = NULL;

  g_assert_true (g_file_get_contents (manifest, &text, NULL, NULL));
  {
    g_autofree char *reworded = g_strdup_printf ("%s Really.", s2);
    edited = hs_test_replace (text, s2, reworded);
    g_assert_true (g_file_set_contents (manifest, edited, -1, NULL));
    expected = g_strdup_printf ("%s: case 2: sentence 2 of instance \"phantom-000001\" changed: it reads \"%s\", the deck saved \"%s\"\n",
                                path, reworded, s2);
  }
  run_validate (path, 1, &out, &err);
  g_assert_true (g_str_has_prefix (out, path));
  g_assert_nonnull (strstr (out, ": the dataset \"ds\" changed since the deck was saved (manifest SHA-256 "));
  g_assert_nonnull (strstr (out, expected));
  g_assert_cmpstr (err, ==, "heatscope-cli deck validate: 2 problems found\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* the manifest back, a map file of case 1 replaced by another's values */
  g_assert_true (g_file_set_contents (manifest, text, -1, NULL));
  {
    g_autoptr(HsDataset) dataset = hs_dataset_load (ds, NULL);
    HsInstance *a = hs_dataset_find_instance (dataset, "phantom-000000");
    HsInstance *b = hs_dataset_find_instance (dataset, "phantom-000002");
    HsMapRef *ra = hs_instance_find_map (a, "sim-grounded", "s1");
    HsMapRef *rb = hs_instance_find_map (b, "sim-grounded", "s1");
    g_autofree char *pa = g_build_filename (ds, ra->file, NULL);
    g_autofree char *pb = g_build_filename (ds, rb->file, NULL);
    g_autofree char *bytes = NULL;
    gsize len;

    g_assert_true (g_file_get_contents (pb, &bytes, &len, NULL));
    g_assert_true (g_file_set_contents (pa, bytes, (gssize) len, NULL));
    /* the line names the file that changed and its model */
    expected = (g_free (expected), g_strdup_printf ("/%s: the map of model \"sim-grounded\" differs from the one saved (SHA-256 ",
                                                    ra->file));
  }
  run_validate (path, 1, &out, &err);
  g_assert_true (g_str_has_prefix (out, path));
  g_assert_true (g_str_has_prefix (out + strlen (path), ": case 1: /"));
  g_assert_nonnull (strstr (out, expected));
  g_assert_nonnull (strstr (out, "): the file changed\n"));
  g_assert_cmpstr (err, ==, "heatscope-cli deck validate: 1 problem found\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* moved */
  g_assert_cmpint (g_rename (ds, moved), ==, 0);
  run_validate (path, 1, &out, &err);
  expected = (g_free (expected), g_strdup_printf ("%s: the dataset \"ds\" is missing or moved (", path));
  g_assert_true (g_str_has_prefix (out, expected));
  g_assert_nonnull (strstr (out, "No such file or directory"));
}

typedef struct {
  const char *name;
  const char *text;        /* NULL: made by the test */
  const char *expected;    /* after "heatscope-cli deck: DECK: " (list) or in validate's output */
} BadDeck;

/* Every kind of bad deck: `list` (the reader) or `validate` (the dataset)
 * refuses it with one line naming the deck and, where there is one, the
 * case — never a crash, never "ok". */
static void
test_bad_decks (void)
{
  static const BadDeck read_bad[] = {
    { "not-json", "this is not JSON\n", "not JSON: " },
    { "version", "{\"version\": 3, \"dataset\": \"ds\"}", "$.version: version 3 is not one this Heatscope reads (1)" },
    { "dotdot", "{\"version\": 1, \"dataset\": \"../ds\"}", "$.dataset: the path \"../ds\" leaves the deck's folder" },
    { "control", "{\"version\": 1, \"dataset\": \"ds\", \"cases\": [{\"instance\": \"phantom-000000\", \"sentence\": 1, \"models\": [{\"name\": \"sim-blind\"}], \"note\": \"ring \\u0007 bell\"}]}",
      "case 1: $.cases[0].note: control character U+0007" },
    { "live-path", "{\"version\": 1, \"dataset\": \"ds\", \"cases\": [{\"instance\": \"phantom-000000\", \"sentence\": 1, \"models\": [{\"name\": \"../../evil\", \"live\": true}]}]}",
      "case 1: $.cases[0].models[0].name: \"../../evil\" is not a built-in model" },
    { "deep", NULL, "not JSON: " },
    { "huge", NULL, "bytes" },
  };
  static const BadDeck check_bad[] = {
    { "instance", "{\"version\": 1, \"dataset\": \"ds\", \"cases\": [{\"instance\": \"phantom-000000\", \"sentence\": 1, \"models\": [{\"name\": \"sim-blind\"}]}, {\"instance\": \"phantom-999\", \"sentence\": 1, \"models\": [{\"name\": \"sim-blind\"}]}]}",
      ": case 2: instance \"phantom-999\" is not in the dataset\n" },
    { "model", "{\"version\": 1, \"dataset\": \"ds\", \"cases\": [{\"instance\": \"phantom-000000\", \"sentence\": 1, \"models\": [{\"name\": \"resnet\"}]}]}",
      ": case 1: model \"resnet\" has no map of instance \"phantom-000000\" sentence 1 (s1)\n" },
    { "sentence", "{\"version\": 1, \"dataset\": \"ds\", \"cases\": [{\"instance\": \"phantom-000000\", \"sentence\": 99, \"models\": [{\"name\": \"sim-blind\"}]}]}",
      ": case 1: instance \"phantom-000000\" has " },
    { "symlink", "{\"version\": 1, \"dataset\": \"out\"}", ": the path \"out\" leads out of the deck's folder through a symlink\n" },
  };
  g_autofree char *dir = make_folder ();
  g_autofree char *outside = hs_test_make_tmpdir ();
  g_autofree char *link = g_build_filename (dir, "out", NULL);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *cmd = NULL;

  /* a symlink from the deck's folder to a dataset elsewhere */
  cmd = g_strdup_printf ("cp -r '%s' '%s/ds'", ds, outside);
  g_assert_cmpint (system (cmd), ==, 0);
  {
    g_autofree char *target = g_build_filename (outside, "ds", NULL);
    g_assert_cmpint (symlink (target, link), ==, 0);
  }

  for (guint i = 0; i < G_N_ELEMENTS (read_bad); i++)
    {
      g_autofree char *name = g_strdup_printf ("%s.hsdeck", read_bad[i].name);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *out = NULL, *err = NULL, *prefix = NULL;
      const char *list[] = { "list", path, NULL };

      if (read_bad[i].text != NULL)
        hs_test_write_file (dir, name, read_bad[i].text);
      else if (g_str_equal (read_bad[i].name, "deep"))
        {
          g_autofree char *deep = g_strnfill (200000, '[');
          hs_test_write_file (dir, name, deep);
        }
      else
        {
          g_autofree char *huge = g_strnfill (HS_DECK_MAX_BYTES + 10, ' ');
          hs_test_write_file (dir, name, huge);
        }
      g_assert_cmpint (deck (list, &out, &err), ==, 1);
      prefix = g_strdup_printf ("heatscope-cli deck: %s: ", path);
      if (!g_str_has_prefix (err, prefix) || strstr (err, read_bad[i].expected) == NULL
          || strchr (err, '\n') != err + strlen (err) - 1 || *out != '\0')
        g_error ("%s: got \"%s\", expected \"%s…%s\"", read_bad[i].name, err, prefix,
                 read_bad[i].expected);
    }
  for (guint i = 0; i < G_N_ELEMENTS (check_bad); i++)
    {
      g_autofree char *name = g_strdup_printf ("%s.hsdeck", check_bad[i].name);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *out = NULL, *err = NULL, *expected = NULL;

      hs_test_write_file (dir, name, check_bad[i].text);
      run_validate (path, 1, &out, &err);
      expected = g_strdup_printf ("%s%s", path, check_bad[i].expected);
      if (!g_str_has_prefix (out, expected))
        g_error ("%s: got \"%s\", expected \"%s\"", check_bad[i].name, out, expected);
      g_assert_cmpstr (err, ==, "heatscope-cli deck validate: 1 problem found\n");
    }
}

/* `deck add` stopped inside the atomic writer — part of the new deck
 * written, or all of it before the rename — and killed: the deck on disk is
 * the old one, byte for byte, and still reads. */
static void
test_kill_mid_save (void)
{
  static const char * const points[] = { "atomic-partial@talk.hsdeck:1",
                                         "atomic-before-rename@talk.hsdeck:1" };
  g_autofree char *dir = make_folder ();
  g_autofree char *path = make_deck (dir);
  g_autofree char *before = NULL;

  g_assert_true (g_file_get_contents (path, &before, NULL, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (points); i++)
    {
      const char *argv[] = { hs_test_cli (), "deck", "add", path, "--instance", "phantom-000002",
                             "--sentence", "2", "--model", "sim-blind", "--note", "never saved",
                             NULL };
      g_autofree char *after = NULL;
      g_autoptr(HsDeck) loaded = NULL;
      g_autoptr(GError) error = NULL;
      GPid pid = hs_test_run_to_stop (argv, points[i]);

      g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
      g_assert_cmpstr (after, ==, before);
      hs_test_kill_stopped (pid);
      g_clear_pointer (&after, g_free);
      g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
      g_assert_cmpstr (after, ==, before);
      loaded = hs_deck_load (path, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (loaded->cases->len, ==, 3);
    }
}

static char *
run_tool (const char * const *argv)
{
  g_autofree char *path = g_find_program_in_path (argv[0]);
  g_autofree char *err = NULL;
  g_autoptr(GPtrArray) full = g_ptr_array_new ();
  char *out = NULL;
  int status = -1;

  if (path == NULL)
    g_error ("%s is not installed (poppler-utils, in tools/deps.sh)", argv[0]);
  g_ptr_array_add (full, path);
  for (guint i = 1; argv[i]; i++)
    g_ptr_array_add (full, (gpointer) argv[i]);
  g_ptr_array_add (full, NULL);
  g_assert_true (hs_test_run ((const char * const *) full->pdata, &out, &err, &status));
  g_assert_cmpint (status, ==, 0);
  return out;
}

/* pdftotext's text with every run of white space one space (the caption
 * is word-wrapped). */
static char *
pdf_text (const char *pdf, int page)
{
  g_autofree char *first = g_strdup_printf ("%d", page);
  const char *argv[] = { "pdftotext", "-enc", "UTF-8", "-f", first, "-l", first, pdf, "-", NULL };
  g_autofree char *raw = run_tool (argv);
  g_auto(GStrv) words = g_strsplit_set (raw, " \n\t\f", -1);
  GString *out = g_string_new (NULL);

  for (guint i = 0; words[i]; i++)
    if (*words[i])
      g_string_append_printf (out, "%s%s", out->len ? " " : "", words[i]);
  return g_string_free (out, FALSE);
}

/* The number after `field` in pdfinfo's output. */
static double
pdf_field (const char *info, const char *field)
{
  const char *at = strstr (info, field);

  g_assert_nonnull (at);
  return g_ascii_strtod (at + strlen (field), NULL);
}

/* `deck add` ×3 + `export`: a 3-page PDF (A4 or Letter landscape) whose
 * page N holds case N's sentence and note; the metrics listed with a
 * number; slides 1920 × 1080. */
static void
test_export (void)
{
  g_autofree char *dir = make_folder ();
  g_autofree char *path = make_deck (dir);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *pdf = g_build_filename (dir, "handout.pdf", NULL);
  g_autofree char *letter = g_build_filename (dir, "letter.pdf", NULL);
  g_autofree char *slides = g_build_filename (dir, "slides", NULL);
  const char *export_pdf[] = { "export", path, "-o", pdf, NULL };
  const char *export_letter[] = { "export", path, "-o", letter, "--page", "letter", NULL };
  const char *export_png[] = { "export", path, "-o", slides, "--format", "png", NULL };
  const char *instances[] = { "phantom-000000", "phantom-000001", "phantom-000002" };
  const guint sentences[] = { 1, 2, 1 };
  const char *notes[] = { "Single: looks right", "Swap: the map barely moves",
                          "Grid: three models disagree" };
  g_autofree char *info = NULL, *info_letter = NULL;

  deck_ok (export_pdf);
  {
    const char *argv[] = { "pdfinfo", pdf, NULL };
    info = run_tool (argv);
  }
  g_test_message ("%s", info);
  g_assert_cmpint (pdf_field (info, "Pages:"), ==, 3);
  g_assert_cmpfloat_with_epsilon (pdf_field (info, "Page size:"), 841.89, 0.01);
  g_assert_nonnull (strstr (info, " x 595.28 pts"));
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *text = pdf_text (pdf, (int) i + 1);
      g_autofree char *sentence = sentence_of (ds, instances[i], sentences[i]);
      g_autofree char *heading = g_strdup_printf ("Case %u of 3 · %s", i + 1, instances[i]);

      g_test_message ("page %u: %s", i + 1, text);
      g_assert_nonnull (strstr (text, heading));
      g_assert_nonnull (strstr (text, sentence));
      g_assert_nonnull (strstr (text, notes[i]));
      /* the other cases' notes are on their own pages */
      g_assert_null (strstr (text, notes[(i + 1) % 3]));
    }
  {
    g_autofree char *text = pdf_text (pdf, 1);
    /* case 1 lists auroc: a number, from the panel's scores */
    const char *at = strstr (text, "auroc: a ");
    g_assert_nonnull (at);
    g_assert_true (g_ascii_isdigit (at[strlen ("auroc: a ")]));
  }

  deck_ok (export_letter);
  {
    const char *argv[] = { "pdfinfo", letter, NULL };
    info_letter = run_tool (argv);
  }
  g_assert_cmpfloat (pdf_field (info_letter, "Page size:"), ==, 792);
  g_assert_nonnull (strstr (info_letter, " x 612 pts"));

  deck_ok (export_png);
  for (guint i = 1; i <= 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("case-%02u.png", i);
      g_autofree char *png = g_build_filename (slides, name, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(HsImage) image = hs_image_load (png, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (hs_image_get_width (image), ==, 1920);
      g_assert_cmpuint (hs_image_get_height (image), ==, 1080);
    }
  {
    g_autofree char *extra = g_build_filename (slides, "case-04.png", NULL);
    g_assert_false (g_file_test (extra, G_FILE_TEST_EXISTS));
  }
}

/* A live case re-attends on validate: a saved hash that is not the
 * model's map now is reported as such. */
static void
test_live_differs (void)
{
  g_autofree char *dir = make_folder ();
  g_autofree char *path = make_deck (dir);
  g_autofree char *text = NULL, *edited = NULL, *out = NULL, *err = NULL, *expected = NULL;
  g_autoptr(HsDeck) deck = NULL;
  HsDeckCase *grid;

  deck = hs_deck_load (path, NULL);
  grid = g_ptr_array_index (deck->cases, 2);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  edited = hs_test_replace (text, grid->map_sha256,
                            "0000000000000000000000000000000000000000000000000000000000000000");
  g_assert_true (g_file_set_contents (path, edited, -1, NULL));
  run_validate (path, 1, &out, &err);
  expected = g_strdup_printf ("%s: case 3: re-attended by the live model, the map differs from the one saved (SHA-256 ", path);
  g_assert_true (g_str_has_prefix (out, expected));
  g_assert_nonnull (strstr (out, "saved 000000000000"));
}

/* --embed-maps: a bundle folder that validates on its own — with the
 * original dataset gone — and whose maps hash as the deck saved them. */
static void
test_bundle (void)
{
  g_autofree char *dir = make_folder ();
  g_autofree char *path = make_deck (dir);
  g_autofree char *ds = g_build_filename (dir, "ds", NULL);
  g_autofree char *gone = g_build_filename (dir, "ds-gone", NULL);
  g_autofree char *bundle = g_build_filename (dir, "talk-bundle", NULL);
  g_autofree char *bundle_deck = g_build_filename (bundle, "deck.hsdeck", NULL);
  g_autofree char *pdf = g_build_filename (dir, "from-bundle.pdf", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *export_bundle[] = { "export", path, "-o", bundle, "--embed-maps", NULL };
  const char *export_pdf[] = { "export", bundle_deck, "-o", pdf, NULL };
  g_autoptr(HsDeck) original = NULL, embedded = NULL;

  deck_ok (export_bundle);
  g_assert_cmpint (g_rename (ds, gone), ==, 0);
  run_validate (bundle_deck, 0, &out, &err);
  g_assert_cmpstr (out, ==, "ok: 3 cases\n");
  original = hs_deck_load (path, NULL);
  embedded = hs_deck_load (bundle_deck, NULL);
  g_assert_cmpstr (embedded->dataset, ==, ".");
  for (guint i = 0; i < 3; i++)
    {
      HsDeckCase *a = g_ptr_array_index (original->cases, i);
      HsDeckCase *b = g_ptr_array_index (embedded->cases, i);

      g_assert_cmpstr (a->map_sha256, ==, b->map_sha256);
      g_assert_nonnull (b->embedded_maps);
      g_assert_cmpstr (a->note, ==, b->note);
    }
  /* case 2 (swap) embeds A and B, case 3 (grid) one map per model */
  g_assert_cmpuint (g_strv_length (((HsDeckCase *) g_ptr_array_index (embedded->cases, 1))->embedded_maps), ==, 2);
  g_assert_cmpuint (g_strv_length (((HsDeckCase *) g_ptr_array_index (embedded->cases, 2))->embedded_maps), ==, 3);
  deck_ok (export_pdf);
  {
    const char *argv[] = { "pdfinfo", pdf, NULL };
    g_autofree char *info = run_tool (argv);
    g_assert_cmpint (pdf_field (info, "Pages:"), ==, 3);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-deck/build-list-validate", test_build_list_validate);
  g_test_add_func ("/cli-deck/map-hash", test_map_hash);
  g_test_add_func ("/cli-deck/changed-dataset", test_changed_dataset);
  g_test_add_func ("/cli-deck/bad-decks", test_bad_decks);
  g_test_add_func ("/cli-deck/kill-mid-save", test_kill_mid_save);
  g_test_add_func ("/cli-deck/export", test_export);
  g_test_add_func ("/cli-deck/live-differs", test_live_differs);
  g_test_add_func ("/cli-deck/bundle", test_bundle);
  return g_test_run ();
}
