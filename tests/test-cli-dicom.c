/* test-cli-dicom.c — a .dcm works wherever a PNG works: manifest images,
 * validate, render, score --image and attend --image.
 *
 * Each command runs twice: on a DICOM file, and on the PNG of what the viewer
 * shows of it at first (hs_image_render_grey8 through the file's window).  A
 * figure of the DICOM must equal the figure of that PNG pixel for pixel: the
 * file's window, the MONOCHROME1 inversion and the rescale all reach `render`. */
#include <heatscope/heatscope.h>

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

/* DIR/heatscope.json with one instance showing IMAGE, and a 4 × 4 map. */
static void
write_dataset (const char *dir, const char *image)
{
  g_autofree char *map_path = g_build_filename (dir, "map.npy", NULL);
  g_autofree char *manifest = NULL;
  g_autoptr(GError) error = NULL;
  const gsize shape[] = { 4, 4 };
  double values[16];

  for (guint i = 0; i < 16; i++)
    values[i] = i / 15.0;
  g_assert_true (hs_npy_write (map_path, HS_DTYPE_FLOAT32, 2, shape, values, FALSE, FALSE, &error));
  g_assert_no_error (error);
  manifest = g_strdup_printf (
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
    " {\"id\": \"cr\", \"image\": \"%s\","
    "  \"regions\": {\"right lung\": {\"boxes\": [[10, 12, 60, 100]]}},"
    "  \"sentences\": [{\"id\": \"s0\", \"text\": \"Opacity in the right lung.\", \"targets\": [\"right lung\"]}],"
    "  \"maps\": [{\"model\": \"m\", \"query\": \"s0\", \"file\": \"map.npy\"}]}]}", image);
  hs_test_write_file (dir, "heatscope.json", manifest);
}

typedef struct {
  char *dicom_dir;
  char *png_dir;
  char *dicom;
  char *png;
} Pair;

static gboolean
make_pair (Pair *p, const char *shared)
{
  g_autofree char *source = hs_test_shared_path (shared);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImage) grey = NULL;
  gsize len;
  double c, w;

  if (source == NULL)
    return FALSE;
  p->dicom_dir = hs_test_make_tmpdir ();
  p->png_dir = hs_test_make_tmpdir ();
  p->dicom = g_build_filename (p->dicom_dir, "film.dcm", NULL);
  p->png = g_build_filename (p->png_dir, "film.png", NULL);
  g_assert_true (g_file_get_contents (source, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (p->dicom, contents, (gssize) len, NULL));
  image = hs_image_load (source, &error);
  g_assert_no_error (error);
  hs_image_get_default_window (image, &c, &w);
  grey = hs_image_render_grey8 (image, c, w);
  g_assert_true (hs_image_save_png (grey, p->png, &error));
  write_dataset (p->dicom_dir, "film.dcm");
  write_dataset (p->png_dir, "film.png");
  return TRUE;
}

static void
clear_pair (Pair *p)
{
  g_free (p->dicom_dir);
  g_free (p->png_dir);
  g_free (p->dicom);
  g_free (p->png);
}

static void
assert_same_png (const char *a, const char *b)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) ia = hs_image_load (a, &error);
  g_autoptr(HsImage) ib = hs_image_load (b, &error);
  gsize n;

  g_assert_no_error (error);
  g_assert_cmpuint (hs_image_get_width (ia), ==, hs_image_get_width (ib));
  g_assert_cmpuint (hs_image_get_height (ia), ==, hs_image_get_height (ib));
  g_assert_cmpuint (hs_image_get_channels (ia), ==, hs_image_get_channels (ib));
  n = (gsize) hs_image_get_width (ia) * hs_image_get_height (ia) * hs_image_get_channels (ia);
  g_assert_cmpmem (hs_image_peek_data (ia), n * 2, hs_image_peek_data (ib), n * 2);
}

static void
test_render_matches_display (gconstpointer data)
{
  Pair p = { 0 };
  g_autofree char *fig_dcm = NULL, *fig_png = NULL;

  if (!make_pair (&p, data))
    return;
  fig_dcm = g_build_filename (p.dicom_dir, "fig.png", NULL);
  fig_png = g_build_filename (p.png_dir, "fig.png", NULL);
  for (guint k = 0; k < 2; k++)
    {
      const char *args[] = { k == 0 ? p.dicom_dir : p.png_dir, "--instance", "cr", "--query", "s0",
                             "--model", "m", "--opacity", "0.3", "--size", "300",
                             "-o", k == 0 ? fig_dcm : fig_png, NULL };
      const char *vargs[] = { k == 0 ? p.dicom_dir : p.png_dir, NULL };
      g_autofree char *out = NULL, *err = NULL, *vout = NULL, *verr = NULL;

      g_assert_cmpint (hs_test_run_cli ("validate", vargs, &vout, &verr), ==, 0);
      g_assert_cmpint (hs_test_run_cli ("render", args, &out, &err), ==, 0);
    }
  assert_same_png (fig_dcm, fig_png);
  clear_pair (&p);
}

/* --window C:W is in the file's own values: for the MONOCHROME1 film,
 * "550:1024" is its own window, so the figure does not change. */
static void
test_render_window_values (void)
{
  Pair p = { 0 };
  g_autofree char *fig_a = NULL, *fig_b = NULL;

  if (!make_pair (&p, "dicom/CR-MONO1-10-chest.dcm"))
    return;
  fig_a = g_build_filename (p.dicom_dir, "a.png", NULL);
  fig_b = g_build_filename (p.dicom_dir, "b.png", NULL);
  for (guint k = 0; k < 2; k++)
    {
      const char *args[] = { p.dicom_dir, "--instance", "cr", "--query", "s0", "--model", "m",
                             "--size", "200", "--window", "550:1024", "-o", k == 0 ? fig_a : fig_b, NULL };
      const char *args_default[] = { p.dicom_dir, "--instance", "cr", "--query", "s0", "--model", "m",
                                     "--size", "200", "-o", k == 0 ? fig_a : fig_b, NULL };
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (hs_test_run_cli ("render", k == 0 ? args : args_default, &out, &err), ==, 0);
    }
  assert_same_png (fig_a, fig_b);
  clear_pair (&p);
}

static JsonObject *
parse_object (JsonParser *parser, const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* score --baselines --image reads the DICOM (its size is checked against --size). */
static void
test_score_image (void)
{
  Pair p = { 0 };
  g_autofree char *map = NULL;
  const gsize shape[] = { 4, 4 };
  double values[16];
  g_autoptr(GError) error = NULL;

  if (!make_pair (&p, "dicom/siim-acr-ptx-cxr-1024.dcm"))
    return;
  map = g_build_filename (p.dicom_dir, "score.npy", NULL);
  for (guint i = 0; i < 16; i++)
    values[i] = (i % 4) < 2 ? 1.0 : 0.0;
  g_assert_true (hs_npy_write (map, HS_DTYPE_FLOAT64, 2, shape, values, FALSE, FALSE, &error));
  {
    const char *args[] = { "--map", map, "--size", "1024x1024", "--box", "0,0,512,1024",
                           "--json", "--baselines", "--image", p.dicom, NULL };
    const char *wrong[] = { "--map", map, "--size", "512x512", "--box", "0,0,256,512",
                            "--json", "--baselines", "--image", p.dicom, NULL };
    g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *o;

    g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
    o = parse_object (parser, out);
    g_assert_true (json_object_has_member (o, "baselines"));
    g_assert_cmpint (hs_test_run_cli ("score", wrong, &out2, &err2), !=, 0);
    g_assert_nonnull (strstr (err2, "1024"));
  }
  clear_pair (&p);
}

/* attend --image: the built-in model reads the DICOM as displayed; the map
 * equals the one of the 8-bit PNG of that display within its rounding. */
static void
test_attend_image (void)
{
  Pair p = { 0 };
  g_autofree char *map_dcm = NULL, *map_png = NULL;
  g_autoptr(GError) error = NULL;

  if (!make_pair (&p, "dicom/CR-MONO1-10-chest.dcm"))
    return;
  map_dcm = g_build_filename (p.dicom_dir, "attend.npy", NULL);
  map_png = g_build_filename (p.png_dir, "attend.npy", NULL);
  for (guint k = 0; k < 2; k++)
    {
      const char *args[] = { "--model", "grounded", "--image", k == 0 ? p.dicom : p.png,
                             "--prompt", "opacity in the left lower lobe", "-o", k == 0 ? map_dcm : map_png, NULL };
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (hs_test_run_cli ("attend", args, &out, &err), ==, 0);
    }
  {
    g_autoptr(HsAttentionMap) a = hs_attention_map_load_npy (map_dcm, NULL, 0, &error);
    g_autoptr(HsAttentionMap) b = hs_attention_map_load_npy (map_png, NULL, 0, &error);
    gsize n;
    double worst = 0, peak = 0;

    g_assert_no_error (error);
    g_assert_cmpuint (hs_attention_map_get_width (a), ==, hs_attention_map_get_width (b));
    g_assert_cmpuint (hs_attention_map_get_height (a), ==, hs_attention_map_get_height (b));
    n = (gsize) hs_attention_map_get_width (a) * hs_attention_map_get_height (a);
    for (gsize i = 0; i < n; i++)
      {
        worst = MAX (worst, fabs (hs_attention_map_peek_values (a)[i] - hs_attention_map_peek_values (b)[i]));
        peak = MAX (peak, fabs (hs_attention_map_peek_values (b)[i]));
      }
    g_test_message ("attend: largest difference %g of peak %g", worst, peak);
    g_assert_cmpfloat (worst, <=, 0.01 * peak);
  }
  clear_pair (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/hs/cli-dicom/render-matches-display/mono1", "dicom/CR-MONO1-10-chest.dcm",
                        test_render_matches_display);
  g_test_add_data_func ("/hs/cli-dicom/render-matches-display/ct-hounsfield", "dicom/pydicom-CT_small.dcm",
                        test_render_matches_display);
  g_test_add_data_func ("/hs/cli-dicom/render-matches-display/jpeg-baseline", "dicom/siim-acr-ptx-cxr-1024.dcm",
                        test_render_matches_display);
  g_test_add_func ("/hs/cli-dicom/render-window-values", test_render_window_values);
  g_test_add_func ("/hs/cli-dicom/score-image", test_score_image);
  g_test_add_func ("/hs/cli-dicom/attend-image", test_attend_image);
  return g_test_run ();
}
