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
  g_assert_nonnull (strstr (svg, ">Min–Max 0–1</text>"));
  g_assert_null (strstr (svg, ">min–max 0–1</text>"));
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
  return g_test_run ();
}
