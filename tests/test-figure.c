/* test-figure.c — figures as PNG, SVG and PDF */
#include <heatscope/heatscope.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hs-test-util.h"
#include "hs-figure-private.h"
#include <glib/gstdio.h>

#define IW 200
#define IH 100

typedef struct {
  HsImage *image;
  HsImage *mask;
  double map[2];
  HsFigureBox boxes[2];
  HsFigureMask masks[1];
  HsFigureView view;
} Fixture;

/* A 200 × 100 grey image (value 128 everywhere, 8-bit), a 2 × 1 map [0, 1]
 * (left half low, right half high), a box and a mask. */
static void
fixture_init (Fixture *f)
{
  guint16 *px, *mp;

  f->image = hs_image_new (IW, IH, 1, 8, NULL);
  g_assert_nonnull (f->image);
  px = hs_image_get_data (f->image);
  for (guint i = 0; i < IW * IH; i++)
    px[i] = 128;
  /* 20 × 10 mask: a 4 × 2 block at (12, 6) → image pixels [120, 140) × [60, 80) */
  f->mask = hs_image_new (20, 10, 1, 8, NULL);
  mp = hs_image_get_data (f->mask);
  memset (mp, 0, 20 * 10 * sizeof (guint16));
  for (guint y = 6; y < 8; y++)
    for (guint x = 12; x < 14; x++)
      mp[y * 20 + x] = 255;

  f->map[0] = 0;
  f->map[1] = 1;
  f->boxes[0] = (HsFigureBox) { "left lung", 110, 10, 190, 50 };
  f->boxes[1] = (HsFigureBox) { "A&B <hilum>", 20, 20, 60, 60 };
  f->masks[0] = (HsFigureMask) { "lesion", f->mask };

  hs_figure_view_init (&f->view);
  f->view.image = f->image;
  f->view.window_width = 0;
  f->view.map = f->map;
  f->view.map_width = 2;
  f->view.map_height = 1;
  f->view.overlay.upsample = HS_UPSAMPLE_NEAREST;
  f->view.overlay.opacity = 1.0;
  f->view.boxes = f->boxes;
  f->view.n_boxes = 2;
  f->view.masks = f->masks;
  f->view.n_masks = 1;
  f->view.prompt = "There is a nodule in the left lung.";
  f->view.model = "grounded";
  f->view.instance = "p0001";
  f->view.zoom = 1;
  f->view.font_size = 16;   /* line width fs/8 = 2: crisp 1-pixel checks */
}

static void
fixture_clear (Fixture *f)
{
  hs_image_unref (f->image);
  hs_image_unref (f->mask);
}

static guint32
pixel (cairo_surface_t *s, double x, double y)
{
  cairo_surface_flush (s);
  return ((guint32 *) (void *) (cairo_image_surface_get_data (s)
                                + (int) y * cairo_image_surface_get_stride (s)))[(int) x] & 0xffffff;
}

static void
test_png (void)
{
  Fixture f;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "fig.png", NULL);
  g_autoptr(GError) error = NULL;
  cairo_surface_t *png;
  double w, h, px, py, pw, ph, zoom;

  fixture_init (&f);
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_PNG, path, &error));
  g_assert_no_error (error);
  g_assert_true (hs_figure_get_size (&f.view, &w, &h, &error));
  g_assert_true (hs_figure_get_panel (&f.view, &px, &py, &pw, &ph, &zoom, &error));
  g_assert_cmpfloat (pw, ==, IW);
  g_assert_cmpfloat (ph, ==, IH);
  g_assert_cmpfloat (zoom, ==, 1);
  /* room for the colour bar on the right and the caption below */
  g_assert_cmpfloat (w, >, px + pw + 30);
  g_assert_cmpfloat (h, >, py + ph + 2 * 10);

  png = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (png), ==, (int) w);
  g_assert_cmpint (cairo_image_surface_get_height (png), ==, (int) h);

  /* opacity 1, nearest: left half jet(0) = (0, 0, 128), right half jet(1) = (128, 0, 0),
   * sampled away from boxes and contours */
  g_assert_cmphex (pixel (png, px + 80, py + 85), ==, 0x000080);
  g_assert_cmphex (pixel (png, px + 160, py + 85), ==, 0x800000);
  /* the box outline (cyan, first palette colour) on its left edge x = 110, y = 40 */
  g_assert_cmphex (pixel (png, px + 110, py + 40), ==, 0x00e6ff);
  /* the background is white; the caption area has dark text pixels */
  g_assert_cmphex (pixel (png, w - 1, h - 1), ==, 0xffffff);
  {
    gboolean dark = FALSE;
    for (double y = py + ph + 2; y < h && !dark; y++)
      for (double x = 0; x < w && !dark; x++)
        dark = (pixel (png, x, y) & 0xff) < 80;
    g_assert_true (dark);
  }
  cairo_surface_destroy (png);

  if (g_getenv ("HS_FIGURE_KEEP"))
    {
      g_autofree char *keep = g_build_filename (g_getenv ("HS_FIGURE_KEEP"), "figure.png", NULL);
      g_assert_true (hs_figure_save (&f.view, HS_FIGURE_PNG, keep, NULL));
    }
  fixture_clear (&f);
}

static void
test_opacity_zero_shows_image (void)
{
  Fixture f;
  cairo_surface_t *s;
  double px, py;

  fixture_init (&f);
  f.view.overlay.opacity = 0;
  f.view.n_boxes = 0;
  f.view.n_masks = 0;
  s = hs_figure_render_surface (&f.view, NULL);
  g_assert_nonnull (s);
  g_assert_true (hs_figure_get_panel (&f.view, &px, &py, NULL, NULL, NULL, NULL));
  g_assert_cmphex (pixel (s, px + 50, py + 50), ==, 0x808080);   /* 128 of 255, full window */
  cairo_surface_destroy (s);

  /* a window of centre 64, width 128 → 128 is the top: white */
  f.view.window_center = 64;
  f.view.window_width = 128;
  s = hs_figure_render_surface (&f.view, NULL);
  g_assert_cmphex (pixel (s, px + 50, py + 50), ==, 0xffffff);
  cairo_surface_destroy (s);
  fixture_clear (&f);
}

static void
test_viewport_zoom (void)
{
  Fixture f;
  cairo_surface_t *s;
  double px, py, pw, ph;

  fixture_init (&f);
  f.view.n_boxes = 0;
  f.view.n_masks = 0;
  /* the right quarter [150, 200) × [0, 100) at zoom 2 → a 100 × 200 panel, all jet(1) */
  f.view.view_x = 150;
  f.view.view_y = 0;
  f.view.view_w = 50;
  f.view.view_h = 100;
  f.view.zoom = 2;
  s = hs_figure_render_surface (&f.view, NULL);
  g_assert_nonnull (s);
  g_assert_true (hs_figure_get_panel (&f.view, &px, &py, &pw, &ph, NULL, NULL));
  g_assert_cmpfloat (pw, ==, 100);
  g_assert_cmpfloat (ph, ==, 200);
  g_assert_cmphex (pixel (s, px + 1, py + 1), ==, 0x800000);
  g_assert_cmphex (pixel (s, px + 98, py + 198), ==, 0x800000);

  /* a viewport straddling the split at x = 100: left of it jet(0) */
  f.view.view_x = 90;
  f.view.view_w = 20;
  s = (cairo_surface_destroy (s), hs_figure_render_surface (&f.view, NULL));
  g_assert_cmphex (pixel (s, px + 2 * 9.5, py + 50), ==, 0x000080);
  g_assert_cmphex (pixel (s, px + 2 * 10.5, py + 50), ==, 0x800000);
  cairo_surface_destroy (s);
  fixture_clear (&f);
}

static void
test_svg_vector (void)
{
  Fixture f;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "fig.svg", NULL);
  g_autofree char *svg = NULL;
  g_autoptr(GError) error = NULL;
  const char *p;
  guint n_images = 0;

  fixture_init (&f);
  f.view.outline = HS_OUTLINE_TOP_K;
  f.view.outline_k = 50;
  f.view.no_attn = 0.25;
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_SVG, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  if (g_getenv ("HS_FIGURE_KEEP"))
    {
      g_autofree char *keep = g_build_filename (g_getenv ("HS_FIGURE_KEEP"), "figure.svg", NULL);
      g_assert_true (g_file_set_contents (keep, svg, -1, NULL));
    }
  g_assert_true (g_str_has_prefix (svg, "<?xml"));
  g_assert_nonnull (strstr (svg, "<svg"));
  /* box names, caption and scale label are real text */
  g_assert_nonnull (strstr (svg, ">left lung</text>"));
  g_assert_nonnull (strstr (svg, ">A&amp;B &lt;hilum&gt;</text>"));
  /* masks are named like boxes, in their palette colour (after the two
   * boxes: green), bold */
  g_assert_nonnull (strstr (svg, "font-weight=\"bold\" fill=\"#66ff4d\">lesion</text>"));
  /* the caption from its fields: the prompt bold and quoted once, then
   * model and instance */
  g_assert_nonnull (strstr (svg, "font-weight=\"bold\" fill=\"#000000\">“There is a nodule"));
  g_assert_null (strstr (svg, "““"));
  g_assert_nonnull (strstr (svg, ">model grounded · instance p0001</text>"));
  g_assert_nonnull (strstr (svg, "There is a nodule in the left lung."));
  g_assert_nonnull (strstr (svg, ">min–max 0 to 1</text>"));
  g_assert_nonnull (strstr (svg, ">No-Attn mass</text>"));
  g_assert_nonnull (strstr (svg, ">0.25</text>"));
  /* colour-bar ticks in map units */
  g_assert_nonnull (strstr (svg, ">0.4</text>"));
  /* contours (mask, dashed top-k outline) are paths; boxes are rects */
  g_assert_nonnull (strstr (svg, "<path d=\"M"));
  g_assert_nonnull (strstr (svg, "stroke-dasharray"));
  g_assert_nonnull (strstr (svg, "<rect"));
  g_assert_nonnull (strstr (svg, "<linearGradient"));
  /* exactly one raster: the image + overlay */
  for (p = svg; (p = strstr (p, "<image")) != NULL; p++)
    n_images++;
  g_assert_cmpuint (n_images, ==, 1);
  /* well-formed XML */
  {
    g_autoptr(GMarkupParseContext) ctx = NULL;
    static const GMarkupParser parser = { 0 };
    ctx = g_markup_parse_context_new (&parser, 0, NULL, NULL);
    g_assert_true (g_markup_parse_context_parse (ctx, svg, -1, &error));
    g_assert_no_error (error);
  }
  fixture_clear (&f);
}

static void
test_pdf (void)
{
  Fixture f;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "fig.pdf", NULL);
  g_autofree char *pdf = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  gsize len;

  fixture_init (&f);
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_PDF, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &pdf, &len, NULL));
  g_assert_true (len > 4 && memcmp (pdf, "%PDF", 4) == 0);

  if (!g_file_test ("/usr/bin/pdftotext", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("pdftotext (poppler-utils) is absent");
      fixture_clear (&f);
      return;
    }
  {
    const char *argv[] = { "/usr/bin/pdftotext", path, "-", NULL };
    g_assert_true (hs_test_run (argv, &out, &err, &status));
  }
  g_assert_cmpint (status, ==, 0);
  /* the caption wraps to the figure's width: compare words, not lines */
  g_strdelimit (out, "\n", ' ');
  g_assert_nonnull (strstr (out, "nodule in the left lung"));
  g_assert_nonnull (strstr (out, "left lung"));
  g_assert_nonnull (strstr (out, "grounded"));
  g_assert_nonnull (strstr (out, "p0001"));
  fixture_clear (&f);
}

static void
test_errors (void)
{
  Fixture f;
  HsFigureView empty;
  HsFigureFormat format;
  GError *error = NULL;

  hs_figure_view_init (&empty);
  g_assert_false (hs_figure_get_size (&empty, NULL, NULL, &error));
  g_assert_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID);
  g_clear_error (&error);

  g_assert_true (hs_figure_format_from_path ("a/b.PDF", &format, NULL));
  g_assert_cmpint (format, ==, HS_FIGURE_PDF);
  g_assert_true (hs_figure_format_from_path ("x.svg", &format, NULL));
  g_assert_cmpint (format, ==, HS_FIGURE_SVG);
  g_assert_false (hs_figure_format_from_path ("x.jpg", &format, &error));
  g_assert_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "x.jpg"));
  g_clear_error (&error);

  fixture_init (&f);
  g_assert_false (hs_figure_save (&f.view, HS_FIGURE_PNG, "/nonexistent-dir/fig.png", &error));
  g_assert_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_WRITE);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir"));
  g_clear_error (&error);

  f.view.view_x = 500;
  f.view.view_w = 10;
  f.view.view_h = 10;
  g_assert_false (hs_figure_get_size (&f.view, NULL, NULL, &error));
  g_assert_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID);
  g_clear_error (&error);

  f.view.view_w = 0;
  f.view.zoom = 1e6;
  g_assert_false (hs_figure_get_size (&f.view, NULL, NULL, &error));
  g_assert_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_TOO_LARGE);
  g_clear_error (&error);
  fixture_clear (&f);
}

/* The mask's outline in a figure is hs_contour_trace_image's (the canvas's
 * tracing) at mask resolution, scaled to the image: the 20 × 10 mask on the
 * 200 × 100 image at zoom 1 scales by 10. */
static void
test_mask_one_tracing (void)
{
  Fixture f;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "fig.svg", NULL);
  g_autofree char *svg = NULL;
  g_autofree char *first = NULL;
  g_autoptr(GPtrArray) lines = NULL;
  const HsPolyline *line;
  const HsPoint *pt;
  double px, py;

  fixture_init (&f);
  f.view.n_boxes = 0;
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_SVG, path, NULL));
  g_assert_true (hs_figure_get_panel (&f.view, &px, &py, NULL, NULL, NULL, NULL));
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  lines = hs_contour_trace_image (f.mask);
  g_assert_cmpuint (lines->len, ==, 1);
  line = g_ptr_array_index (lines, 0);
  pt = &g_array_index (line->points, HsPoint, 0);
  /* the 2 × 2 block at (12, 6): its outline starts on the block's edge */
  g_assert_cmpfloat (pt->x, >=, 12);
  g_assert_cmpfloat (pt->x, <=, 14);
  first = g_strdup_printf ("<path d=\"M%g %g", px + pt->x * 10, py + pt->y * 10);
  g_assert_nonnull (strstr (svg, first));
  fixture_clear (&f);
}

/* x and y of the (first) SVG <text> element whose content is `name`. */
static void
svg_text_at (const char *svg, const char *name, double *x, double *y)
{
  g_autofree char *needle = g_strdup_printf (">%s</text>", name);
  const char *end = strstr (svg, needle), *start;

  g_assert_nonnull (end);
  for (start = end; start > svg && strncmp (start, "<text", 5) != 0; start--)
    ;
  g_assert_cmpint (sscanf (start, "<text x=\"%lf\" y=\"%lf\"", x, y), ==, 2);
}

/* The region key right of the legend: the figure grows by it, the names
 * are real SVG text, a layer's own colour is used for its box, and labels
 * of two boxes at one corner do not overlap (the second is stacked). */
static void
test_region_key (void)
{
  Fixture f;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "fig.svg", NULL);
  g_autofree char *svg = NULL;
  static const double purple[4] = { 0.5, 0, 1, 1 };
  HsRegionKeyEntry key[2] = {
    { "left lung", { 0.5, 0, 1, 1 }, TRUE, FALSE },
    { "Cardiomediastinum", { 1, 0.85, 0.1, 1 }, FALSE, TRUE },
  };
  double w0, h0, w1, h1, kw, kh, px, py;
  cairo_surface_t *png;

  fixture_init (&f);
  g_assert_true (hs_figure_get_size (&f.view, &w0, &h0, NULL));
  f.view.key = key;
  f.view.n_key = 2;
  g_assert_true (hs_figure_get_size (&f.view, &w1, &h1, NULL));
  hs_region_key_size (key, 2, 16 * 0.85, &kw, &kh);
  g_assert_cmpfloat (w1, >=, w0 + kw);
  g_assert_cmpfloat (h1, >=, kh);   /* (a wider figure may wrap its caption in fewer lines) */
  f.boxes[0].rgba = purple;
  f.boxes[1] = (HsFigureBox) { "other", 110, 10, 150, 40, NULL, TRUE };
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_SVG, path, NULL));
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  g_assert_nonnull (strstr (svg, ">Cardiomediastinum</text>"));
  /* both boxes start at (110, 10): "other" is stacked under "left lung" */
  {
    double x0, y0, x1, y1;

    svg_text_at (svg, "left lung", &x0, &y0);
    svg_text_at (svg, "other", &x1, &y1);
    g_assert_cmpfloat (x0, ==, x1);
    g_assert_cmpfloat (y1 - y0, >=, 16 * 0.85 * 1.25 - 1e-9);
  }
  png = hs_figure_render_surface (&f.view, NULL);
  g_assert_nonnull (png);
  g_assert_true (hs_figure_get_panel (&f.view, &px, &py, NULL, NULL, NULL, NULL));
  /* the box's right edge (x 190, zoom 1) in its own colour, purple */
  g_assert_cmphex (pixel (png, px + 190, py + 30), ==, 0x8000ff);
  cairo_surface_destroy (png);
  fixture_clear (&f);
}

/* A box at the image's right edge: its name is slid left to stay inside the
 * panel (the panel clips, so it used to be cut off), and one at the bottom
 * right corner stays inside the panel's bottom too. */
static void
test_label_inside_panel (void)
{
  Fixture f;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "fig.svg", NULL);
  g_autofree char *svg = NULL;
  double fs = 16 * 0.85, px, py, pw, ph, w, h, x, y;

  fixture_init (&f);
  f.boxes[0] = (HsFigureBox) { "left lung", 185, 5, 199, 50 };
  f.boxes[1] = (HsFigureBox) { "A&B <hilum>", 150, 90, 199, 99 };
  f.view.n_masks = 0;
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_SVG, path, NULL));
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  g_assert_true (hs_figure_get_panel (&f.view, &px, &py, &pw, &ph, NULL, NULL));
  /* the label's box starts fs·0.2 left of its text, fs·0.95 above the baseline */
  hs_region_label_size ("left lung", fs, &w, &h);
  svg_text_at (svg, "left lung", &x, &y);
  g_assert_cmpfloat (x - fs * 0.2 + w, <=, px + pw - 2 + 1e-6);
  g_assert_cmpfloat (x - fs * 0.2, >=, px + 2 - 1e-6);
  g_assert_cmpfloat (y - fs * 0.95, >=, py - 1e-6);
  hs_region_label_size ("A&B <hilum>", fs, &w, &h);
  svg_text_at (svg, "A&amp;B &lt;hilum&gt;", &x, &y);
  g_assert_cmpfloat (x - fs * 0.2 + w, <=, px + pw - 2 + 1e-6);
  g_assert_cmpfloat (y - fs * 0.95 + h, <=, py + ph + 1e-6);

  /* a name wider than the whole panel is cut with "…" to fit it */
  f.boxes[0].name = "a region whose name is far too long for a panel of two hundred points";
  g_clear_pointer (&svg, g_free);
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_SVG, path, NULL));
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  g_assert_null (strstr (svg, "two hundred points</text>"));
  {
    const char *start = strstr (svg, ">a region whose");
    const char *end = start ? strstr (start, "</text>") : NULL;
    g_autofree char *cut = NULL;

    g_assert_nonnull (end);
    cut = g_strndup (start + 1, end - start - 1);
    g_assert_true (g_str_has_suffix (cut, "…"));
    hs_region_label_size (cut, fs, &w, &h);
    svg_text_at (svg, cut, &x, &y);
    g_assert_cmpfloat (x - fs * 0.2, >=, px + 2 - 1e-6);
    g_assert_cmpfloat (x - fs * 0.2 + w, <=, px + pw - 2 + 1e-6);
  }
  fixture_clear (&f);
}

/* A tag strip of 20 tags (over HS_TAG_BARS_MAX_ROWS = 12): the 11 largest
 * in the model's order, then "+ 9 more tags (together W)" with W the sum
 * of the others; a long name is cut with "…"; the figure grows by the
 * strip, and show_tags FALSE draws none. */
static void
test_tag_strip_long (void)
{
  Fixture f;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "fig.svg", NULL);
  g_autofree char *svg = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  HsTagWeight tags[20];
  double w0, h0, w1, h1, hidden = 0;
  const char *last = NULL;

  for (guint i = 0; i < 20; i++)
    {
      /* weights 1..20 (in 210ths), the large ones at odd positions */
      guint rank = i % 2 ? 20 - i / 2 : 1 + i / 2;

      g_ptr_array_add (names, i == 19 ? g_strdup ("an extremely long tag name that cannot fit "
                                                  "beside its bar in a narrow figure at all")
                                      : g_strdup_printf ("tag%02u", i));
      tags[i].tag = names->pdata[i];
      tags[i].weight = rank / 210.0;
    }
  fixture_init (&f);
  g_assert_true (hs_figure_get_size (&f.view, &w0, &h0, NULL));
  f.view.tags = tags;
  f.view.n_tags = 20;
  g_assert_true (hs_figure_get_size (&f.view, &w1, &h1, NULL));
  g_assert_cmpfloat (h1, ==, h0);            /* not shown by default */
  f.view.show_tags = TRUE;
  g_assert_true (hs_figure_get_size (&f.view, &w1, &h1, NULL));
  g_assert_cmpfloat (h1, >, h0 + 12 * 16 * 0.85 * 1.45 - 1);
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_SVG, path, NULL));
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *text = g_strdup_printf (">%s</text>", (char *) names->pdata[i]);
      gboolean shown = tags[i].weight >= 10 / 210.0;   /* the 11 largest: 10 … 20 */

      if (i < 19)
        g_assert_cmpint (strstr (svg, text) != NULL, ==, shown);
      if (!shown)
        hidden += tags[i].weight;
      else
        {
          const char *at = strstr (svg, text);
          /* the model's order */
          if (at != NULL && last != NULL)
            g_assert_true (at > last);
          if (at != NULL)
            last = at;
        }
    }
  /* the title is too wide for the 200-pt panel on one line: broken
   * between words over lines, the normalised entropy (−Σ w ln w / ln 20,
   * worked out here) kept whole at the end of the last */
  {
    char number[G_ASCII_DTOSTR_BUF_SIZE];
    g_autofree char *entropy = NULL, *alone = NULL;
    double h = 0;

    for (guint i = 0; i < 20; i++)
      h -= tags[i].weight * log (tags[i].weight);
    g_ascii_formatd (number, sizeof number, "%.2f", h / log (20));
    entropy = g_strdup_printf (" %s</text>", number);
    alone = g_strdup_printf (">%s</text>", number);
    g_assert_nonnull (strstr (svg, ">tag attention"));
    g_assert_true (strstr (svg, entropy) != NULL || strstr (svg, alone) != NULL);
    g_assert_nonnull (strstr (svg, "normalised"));
    g_assert_null (strstr (svg, "attenti…"));
    g_assert_null (strstr (svg, "normalis…"));
  }
  /* the long name (weight 11/210, shown) is cut */
  g_assert_null (strstr (svg, "at all</text>"));
  g_assert_nonnull (strstr (svg, "an extremely"));
  g_assert_nonnull (strstr (svg, "…</text>"));
  {
    char number[G_ASCII_DTOSTR_BUF_SIZE];
    g_autofree char *more = g_strdup_printf (">+ 9 more tags (together %s)</text>",
                                             g_ascii_formatd (number, sizeof number, "%.3f", hidden));
    g_assert_nonnull (strstr (svg, more));
  }
  fixture_clear (&f);
}

/* A mask whose name a box already shows is not named twice. */
static void
test_mask_label_once (void)
{
  Fixture f;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "fig.svg", NULL);
  g_autofree char *svg = NULL;

  fixture_init (&f);
  f.masks[0].name = "left lung";
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_SVG, path, NULL));
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  g_assert_nonnull (strstr (svg, ">left lung</text>"));
  g_assert_null (strstr (strstr (svg, ">left lung</text>") + 1, ">left lung</text>"));
  /* hidden boxes: the mask carries the name */
  f.view.show_boxes = FALSE;
  g_clear_pointer (&svg, g_free);
  g_assert_true (hs_figure_save (&f.view, HS_FIGURE_SVG, path, NULL));
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  g_assert_nonnull (strstr (svg, "fill=\"#66ff4d\">left lung</text>"));
  fixture_clear (&f);
}

/* Map values spanning nearly all doubles: the figure draws (finite ticks,
 * scientific labels); a non-finite range is an error, not a hang. */
static void
test_huge_range (void)
{
  Fixture f;
  HsScaleRange bad = { 0, INFINITY };
  cairo_surface_t *s;
  GError *error = NULL;
  double w;

  fixture_init (&f);
  f.map[0] = -1.7e308;
  f.map[1] = 1.7e308;
  s = hs_figure_render_surface (&f.view, &error);
  g_assert_no_error (error);
  g_assert_nonnull (s);
  cairo_surface_destroy (s);
  f.map[0] = 0;
  f.map[1] = DBL_MAX;
  g_assert_true (hs_figure_get_size (&f.view, &w, NULL, &error));
  g_assert_no_error (error);
  f.view.range = &bad;
  g_assert_false (hs_figure_get_size (&f.view, &w, NULL, &error));
  g_assert_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "colour-bar range"));
  g_clear_error (&error);
  fixture_clear (&f);
}

static void
test_colorbar_piece (void)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 120, 220);
  cairo_t *cr = cairo_create (s);
  HsOverlayOptions o;
  HsScaleRange r = { 0, 0.12 };
  guint32 top, mid, bottom;
  HsLegendSpec spec;
  HsLegendLayout l;
  static const double ink[4] = { 0, 0, 0, 1 };

  hs_overlay_options_init (&o);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  /* the bar's top-left at (10, 10), 12 wide (1.2 × font size), 200 long */
  hs_legend_spec_init (&spec);
  spec.overlay = o;
  spec.range = r;
  spec.title = "shared 0–0.12";
  spec.length = 200;
  spec.font_size = 10;
  g_assert_true (hs_legend_layout (&spec, &l, NULL));
  hs_legend_draw (&spec, &l, cr, 10 - l.bar_x, 10 - l.bar_y, ink);
  cairo_destroy (cr);
  /* high values at the top.  Row y samples t = (210 − (y + 0.5))/200 of jet:
   * y = 12: t = 0.9875, r = 1 − 0.5·(t − 0.89)/0.11 = 0.557 → (142, 0, 0);
   * y = 109: t = 0.5025 → (125, 255, 121); y = 207: t = 0.0125,
   * b = 0.5 + 0.5·t/0.11 = 0.557 → (0, 0, 142) */
  top = pixel (s, 20, 12);
  mid = pixel (s, 20, 109);
  bottom = pixel (s, 20, 207);
  g_assert_cmpint (ABS ((int) (top >> 16) - 142), <=, 3);
  g_assert_cmpint (top & 0xffff, ==, 0);
  g_assert_cmpint (ABS ((int) (mid >> 16) - 125), <=, 3);
  g_assert_cmpint (ABS ((int) (mid >> 8 & 0xff) - 255), <=, 3);
  g_assert_cmpint (ABS ((int) (mid & 0xff) - 121), <=, 3);
  g_assert_cmpint (ABS ((int) (bottom & 0xff) - 142), <=, 3);
  g_assert_cmpint (bottom >> 8, ==, 0);
  cairo_surface_destroy (s);
}

/* Figure PNGs are encoded with cheaper filter and zlib settings than
 * cairo's writer (tools/bench render); the pixels must be exactly what
 * cairo's own writer gives, opaque (RGB) and translucent (RGBA,
 * un-premultiplied). */
static void
test_png_encoding (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hs-figure-png-XXXXXX", NULL);

  for (int translucent = 0; translucent < 2; translucent++)
    {
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 97, 61);
      guint8 *data = cairo_image_surface_get_data (surface);
      int stride = cairo_image_surface_get_stride (surface);
      g_autofree char *ours = g_build_filename (dir, "ours.png", NULL);
      g_autofree char *theirs = g_build_filename (dir, "cairo.png", NULL);
      g_autoptr(GError) error = NULL;
      cairo_surface_t *a, *b;

      for (int y = 0; y < 61; y++)
        for (int x = 0; x < 97; x++)
          {
            guint32 alpha = translucent ? (guint32) (x * 7 + y * 3) % 256 : 255;
            guint32 r = (guint32) (x * 11 + y) % (alpha + 1), g = (guint32) (x + y * 5) % (alpha + 1);
            guint32 bl = (guint32) (x * y) % (alpha + 1);

            ((guint32 *) (data + y * stride))[x] = alpha << 24 | r << 16 | g << 8 | bl;
          }
      cairo_surface_mark_dirty (surface);
      g_assert_cmpint (cairo_surface_write_to_png (surface, theirs), ==, CAIRO_STATUS_SUCCESS);
      g_assert_true (hs_figure_export_png (cairo_surface_reference (surface), ours, &error));
      g_assert_no_error (error);
      a = cairo_image_surface_create_from_png (ours);
      b = cairo_image_surface_create_from_png (theirs);
      g_assert_cmpint (cairo_surface_status (a), ==, CAIRO_STATUS_SUCCESS);
      g_assert_cmpint (cairo_image_surface_get_format (a), ==, cairo_image_surface_get_format (b));
      g_assert_cmpint (cairo_image_surface_get_format (a), ==,
                       translucent ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24);
      for (int y = 0; y < 61; y++)
        g_assert_cmpmem (cairo_image_surface_get_data (a) + y * cairo_image_surface_get_stride (a), 97 * 4,
                         cairo_image_surface_get_data (b) + y * cairo_image_surface_get_stride (b), 97 * 4);
      cairo_surface_destroy (a);
      cairo_surface_destroy (b);
      cairo_surface_destroy (surface);
      g_unlink (ours);
      g_unlink (theirs);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/figure/png", test_png);
  g_test_add_func ("/hs/figure/png-encoding", test_png_encoding);
  g_test_add_func ("/hs/figure/opacity-zero-shows-image", test_opacity_zero_shows_image);
  g_test_add_func ("/hs/figure/viewport-zoom", test_viewport_zoom);
  g_test_add_func ("/hs/figure/svg-vector", test_svg_vector);
  g_test_add_func ("/hs/figure/pdf", test_pdf);
  g_test_add_func ("/hs/figure/errors", test_errors);
  g_test_add_func ("/hs/figure/mask-label-once", test_mask_label_once);
  g_test_add_func ("/hs/figure/tag-strip-long", test_tag_strip_long);
  g_test_add_func ("/hs/figure/mask-one-tracing", test_mask_one_tracing);
  g_test_add_func ("/hs/figure/huge-range", test_huge_range);
  g_test_add_func ("/hs/figure/colorbar-piece", test_colorbar_piece);
  g_test_add_func ("/hs/figure/region-key", test_region_key);
  g_test_add_func ("/hs/figure/label-inside-panel", test_label_inside_panel);
  return g_test_run ();
}
