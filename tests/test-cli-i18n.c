/* test-cli-i18n.c — the library's errors reach the user in German: under
 * LANGUAGE=de, heatscope-cli prints the messages libheatscope builds
 * (validation, importers, built-in models) from its own domain
 * (heatscope-lib, build/po-lib), not in English. */
#include <heatscope/heatscope.h>

#include <locale.h>
#include <string.h>

#include "hs-test-util.h"

/* `validate` on a dataset whose image is missing: the problem line. */
static void
test_validate (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = { dir, NULL };

  hs_test_write_file (dir, "heatscope.json",
                      "{\"format\": \"heatscope-dataset\", \"version\": 1,\n"
                      " \"instances\": [{\"id\": \"a\", \"image\": \"a.png\"}]}\n");
  g_assert_cmpint (hs_test_run_cli ("validate", args, &out, &err), !=, 0);
  g_test_message ("stdout: %s\nstderr: %s", out, err);
  g_assert_nonnull (strstr (out, "Datei \"a.png\" (Bild) existiert nicht")
                    ? out : strstr (err, "Datei \"a.png\" (Bild) existiert nicht"));
  g_assert_null (strstr (out, "does not exist"));
  g_assert_null (strstr (err, "does not exist"));
}

/* `import coco` on a JSON file that is not a COCO object: the importer's error. */
static void
test_import (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *json = g_build_filename (dir, "annotations.json", NULL);
  g_autofree char *dest = g_build_filename (dir, "out", NULL);
  g_autofree char *expected = g_strdup_printf ("%s: kein COCO-Objekt", json);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = { "coco", json, "-o", dest, NULL };

  hs_test_write_file (dir, "annotations.json", "[1, 2, 3]\n");
  g_assert_cmpint (hs_test_run_cli ("import", args, &out, &err), !=, 0);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, expected));
  g_assert_null (strstr (err, "not a COCO object"));
}

/* `attend` with a model that does not exist: hs-model.c's message. */
static void
test_unknown_model (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *image = g_build_filename (dir, "x.png", NULL);
  g_autofree char *map = g_build_filename (dir, "map.npy", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) img = hs_image_new (32, 32, 1, 8, &error);
  const char *args[] = { "--model", "no-such-model", "--image", image, "--prompt", "left lung",
                         "-o", map, NULL };

  g_assert_no_error (error);
  g_assert_true (hs_image_save_png (img, image, &error));
  g_assert_cmpint (hs_test_run_cli ("attend", args, &out, &err), !=, 0);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, "unbekanntes Modell \"no-such-model\" (eingebaute Modelle: "));
  g_assert_null (strstr (err, "unknown model"));
}

/* `deck list` on a deck with a control character in a note: hs-deck.c's
 * message, the slide ("Folie") named. */
static void
test_deck (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "talk.hsdeck", NULL);
  g_autofree char *expected = g_strdup_printf ("%s: Folie 1: $.cases[0].note: Steuerzeichen U+0007", path);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = { "list", path, NULL };

  hs_test_write_file (dir, "talk.hsdeck",
                      "{\"version\": 1, \"dataset\": \".\", \"cases\": [{\"instance\": \"a\","
                      " \"sentence\": 1, \"models\": [{\"name\": \"m\"}], \"note\": \"\\u0007\"}]}");
  g_assert_cmpint (hs_test_run_cli ("deck", args, &out, &err), ==, 1);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, expected));
  g_assert_null (strstr (err, "control character"));
}

int
main (int argc, char **argv)
{
  /* The CLI calls setlocale (LC_ALL, ""): LANGUAGE chooses German under any
   * locale but "C"/"POSIX", and C.UTF-8 is on every glibc system. */
  g_setenv ("LANGUAGE", "de", TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  if (setlocale (LC_ALL, "C.UTF-8") == NULL)
    {
      g_print ("1..0 # SKIP no C.UTF-8 locale\n");
      return 0;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-i18n/validate", test_validate);
  g_test_add_func ("/cli-i18n/import", test_import);
  g_test_add_func ("/cli-i18n/unknown-model", test_unknown_model);
  g_test_add_func ("/cli-i18n/deck", test_deck);
  return g_test_run ();
}
