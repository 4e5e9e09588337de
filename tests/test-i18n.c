/* test-i18n.c — libheatscope's own gettext domain (heatscope-lib): under a
 * German locale a figure's labels and the library's error messages come out
 * in German, UTF-8, from the build tree's catalogue (build/po-lib). */
#include <heatscope/heatscope.h>

#include <locale.h>
#include <string.h>

#include "hs-test-util.h"

/* A 64 × 32 grey image with a 2 × 1 map [0, 1], as an SVG figure. */
static char *
render_svg (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, "fig.svg", NULL);
  HsImage *image = hs_image_new (64, 32, 1, 8, NULL);
  double map[2] = { 0, 1 };
  HsFigureView view;
  char *svg = NULL;

  memset (hs_image_get_data (image), 0, 64 * 32 * sizeof (guint16));
  hs_figure_view_init (&view);
  view.image = image;
  view.map = map;
  view.map_width = 2;
  view.map_height = 1;
  view.no_attn = 0.25;
  view.zoom = 1;
  view.model = "grounded";
  view.instance = "p0001";
  g_assert_true (hs_figure_save (&view, HS_FIGURE_SVG, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  hs_image_unref (image);
  return svg;
}

static void
test_figure_labels (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *svg = render_svg (dir);

  /* The colour bar's scale label (hs_scale_describe), translated. */
  g_assert_nonnull (strstr (svg, ">Min–Max 0 bis 1</text>"));
  g_assert_null (strstr (svg, ">min–max 0 to 1</text>"));
  /* The No-Attn gauge's label and the caption's model and instance. */
  g_assert_nonnull (strstr (svg, ">No-Attn-Anteil</text>"));
  g_assert_null (strstr (svg, ">No-Attn mass</text>"));
  g_assert_nonnull (strstr (svg, ">Modell grounded · Fall p0001</text>"));
}

/* A dataset whose image is missing: the error the window shows is German;
 * so is a path the dataset refuses. */
static void
test_dataset_errors (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autofree char *resolved = NULL;
  HsImage *image;

  hs_test_write_file (dir, "heatscope.json",
                      "{\"format\": \"heatscope-dataset\", \"version\": 1,\n"
                      " \"instances\": [{\"id\": \"a\", \"image\": \"a.png\"}]}\n");
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  image = hs_dataset_load_image (dataset, hs_dataset_get_instance (dataset, 0), &error);
  g_assert_null (image);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  /* (the reason after it is the C library's, German only where libc's catalogue is installed) */
  g_assert_nonnull (strstr (error->message, "a.png: kann nicht gelesen werden: "));
  g_clear_error (&error);

  resolved = hs_dataset_resolve_path (dataset, "x/../../b.png", &error);
  g_assert_null (resolved);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_suffix (error->message,
                                   ": Pfad \"x/../../b.png\" enthält '..' (Pfade dürfen den Datensatzordner nicht verlassen)"));
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

/* Validation names the missing image in German, with the translation's
 * reordered arguments (%2$s … %1$s). */
static void
test_validate_problem (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) problems = NULL;
  const HsProblem *problem;

  hs_test_write_file (dir, "heatscope.json",
                      "{\"format\": \"heatscope-dataset\", \"version\": 1,\n"
                      " \"instances\": [{\"id\": \"a\", \"image\": \"a.png\"}]}\n");
  g_assert_false (hs_dataset_validate (dir, &problems));
  g_assert_nonnull (problems);
  g_assert_cmpuint (problems->len, ==, 1);
  problem = g_ptr_array_index (problems, 0);
  g_assert_cmpstr (problem->message, ==, "Datei \"a.png\" (Bild) existiert nicht");
}

/* Map errors, including one whose number is formatted with PRIu64 (a
 * system-dependent string in the catalogue). */
static void
test_map_errors (void)
{
  static const guint8 not_npy[16] = "not a npy file!";
  g_autoptr(GError) error = NULL;
  HsLimits limits = *hs_limits_get ();
  HsLimits small = limits;

  g_assert_null (hs_npy_read_from_memory (not_npy, sizeof not_npy, "m.npy", &error));
  g_assert_cmpstr (error->message, ==, "m.npy: keine .npy-Datei (falsche Kennung)");
  g_clear_error (&error);

  small.max_file_bytes = 12;
  hs_limits_set (&small);
  g_assert_null (hs_npy_read_from_memory (not_npy, sizeof not_npy, "m.npy", &error));
  hs_limits_set (&limits);
  g_assert_cmpstr (error->message, ==, "m.npy: Datei mit 16 Bytes ist zu groß (Grenze 12 Bytes)");
}

/* Messages marked in the overlay, RLE and CSV modules (a format with %c,
 * one with a PRIu64 number and one with the file:line prefix). */
static void
test_more_errors (void)
{
  g_autoptr(GError) error = NULL;
  HsScaleSpec spec;
  const guint32 counts[] = { 3, 2 };

  g_assert_false (hs_scale_spec_parse ("log", &spec, &error));
  g_assert_cmpstr (error->message, ==,
                   "unbekannter Skalenmodus 'log' (erwartet: minmax, fixed:LO:HI, percentile:P1:P2 oder shared:LO:HI)");
  g_clear_error (&error);

  g_assert_null (hs_rle_counts_from_string ("~", &error));
  g_assert_cmpstr (error->message, ==, "die RLE-Zeichenkette hat ein ungültiges Zeichen '~' an Position 0");
  g_clear_error (&error);

  g_assert_null (hs_rle_decode (counts, G_N_ELEMENTS (counts), 2, 2, &error));
  g_assert_cmpstr (error->message, ==, "die RLE-Zahlen ergeben 5 Pixel, die Maske hat 2 × 2 = 4");
}

int
main (int argc, char **argv)
{
  /* German messages: LANGUAGE is honoured for any locale but "C"/"POSIX";
   * C.UTF-8 is there on every glibc system (de_DE.UTF-8 need not be). */
  g_setenv ("LANGUAGE", "de", TRUE);
  if (setlocale (LC_ALL, "C.UTF-8") == NULL)
    {
      g_print ("1..0 # SKIP no C.UTF-8 locale\n");
      return 0;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/i18n/figure-labels", test_figure_labels);
  g_test_add_func ("/i18n/dataset-errors", test_dataset_errors);
  g_test_add_func ("/i18n/map-errors", test_map_errors);
  g_test_add_func ("/i18n/validate-problem", test_validate_problem);
  g_test_add_func ("/i18n/more-errors", test_more_errors);
  return g_test_run ();
}
