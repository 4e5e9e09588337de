/* test-mri-lesions.c — the lesion recipe of Oliveira et al. (hs-mri-lesions.h):
 * each step on hand-worked cases and against SciPy / scikit-image, the
 * compactness of generated lesions by scikit-image's regionprops, and the
 * slices (counts, no overlaps, masks = the changed pixels, determinism) */
#include <heatscope/heatscope.h>
#include <heatscope/hs-mri-lesions.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "hs-test-util.h"

/* ---- hand-worked cases ---- */

static void
test_gaussian_impulse (void)
{
  double data[7 * 5] = { 0 };
  double k[3], total;

  /* an impulse spreads into the outer product of the normalised kernel */
  data[2 * 7 + 3] = 1.0;
  hs_mri_gaussian (data, 7, 5, 0.75, 1, HS_MRI_BORDER_ZERO);
  k[0] = k[2] = exp (-1.0 / (2 * 0.5625));
  k[1] = 1.0;
  total = k[0] + k[1] + k[2];
  for (guint i = 0; i < 3; i++)
    k[i] /= total;
  for (guint y = 0; y < 5; y++)
    for (guint x = 0; x < 7; x++)
      {
        int dx = (int) x - 3, dy = (int) y - 2;
        double want = abs (dx) <= 1 && abs (dy) <= 1 ? k[dx + 1] * k[dy + 1] : 0.0;
        g_assert_cmpfloat_with_epsilon (data[y * 7 + x], want, 1e-15);
      }
  /* reflect keeps a constant constant */
  for (guint i = 0; i < G_N_ELEMENTS (data); i++)
    data[i] = 3.5;
  hs_mri_gaussian (data, 7, 5, 2.0, 8, HS_MRI_BORDER_REFLECT);
  for (guint i = 0; i < G_N_ELEMENTS (data); i++)
    g_assert_cmpfloat_with_epsilon (data[i], 3.5, 1e-12);
}

static void
test_morphology_hand (void)
{
  /* a 3 × 3 square with a tail, in a 6 × 5 image */
  static const guint8 in[5 * 6] = {
    0, 0, 0, 0, 0, 0,
    0, 1, 1, 1, 0, 0,
    0, 1, 1, 1, 1, 1,
    0, 1, 1, 1, 0, 0,
    0, 0, 0, 0, 0, 0,
  };
  guint8 out[5 * 6], opened[5 * 6];

  hs_mri_erode (in, out, 6, 5);
  for (guint i = 0; i < 30; i++)
    g_assert_cmpuint (out[i], ==, i == 2 * 6 + 2 || i == 2 * 6 + 3);
  hs_mri_dilate (out, opened, 6, 5);
  /* the opening keeps the cross around the one surviving pixel */
  memcpy (out, in, sizeof in);
  hs_mri_open (out, 6, 5);
  g_assert_cmpmem (out, sizeof out, opened, sizeof opened);
  g_assert_cmpuint (out[1 * 6 + 2], ==, 1);
  g_assert_cmpuint (out[1 * 6 + 1], ==, 0);
  g_assert_cmpuint (out[2 * 6 + 5], ==, 0);
}

static void
test_label_and_perimeter_hand (void)
{
  /* two diagonal pixels are one 8-connected component; numbering follows
   * the first pixel in row-major order */
  static const guint8 in[4 * 5] = {
    0, 0, 0, 1, 0,
    1, 0, 1, 0, 0,
    1, 0, 0, 0, 0,
    0, 0, 0, 1, 1,
  };
  static const guint32 want[4 * 5] = {
    0, 0, 0, 1, 0,
    2, 0, 1, 0, 0,
    2, 0, 0, 0, 0,
    0, 0, 0, 3, 3,
  };
  guint32 labels[4 * 5];
  guint8 square[16];

  g_assert_cmpuint (hs_mri_label (in, 5, 4, labels), ==, 3);
  g_assert_cmpmem (labels, sizeof labels, want, sizeof want);

  /* skimage's perimeter: one pixel 0, a 2 × 2 square 4, a 3 × 3 square 8,
   * a 4 × 4 square 12 (the straight-edge weight is 1) */
  memset (square, 1, sizeof square);
  g_assert_cmpfloat (hs_mri_perimeter (square, 1, 1), ==, 0.0);
  g_assert_cmpfloat (hs_mri_perimeter (square, 2, 2), ==, 4.0);
  g_assert_cmpfloat (hs_mri_perimeter (square, 3, 3), ==, 8.0);
  g_assert_cmpfloat (hs_mri_perimeter (square, 4, 4), ==, 12.0);
  g_assert_cmpfloat_with_epsilon (hs_mri_compactness (16, 12), 4 * G_PI * 16 / 144.0, 1e-15);
  g_assert_cmpfloat (hs_mri_compactness (1, 0), ==, 0.0);
}

static void
test_otsu_hand (void)
{
  /* two clusters: everything of the upper one is foreground */
  double v[8] = { 0.1, 0.12, 0.11, 0.13, 0.9, 0.92, 0.95, 1.0 };
  guint8 out[8];

  hs_mri_otsu_binarise (v, 8, out);
  for (guint i = 0; i < 8; i++)
    g_assert_cmpuint (out[i], ==, i >= 4);
}

/* ---- SciPy and scikit-image ---- */

static const char *steps_script =
  "import sys, json, numpy as np\n"
  "from scipy import ndimage as ndi\n"
  "from skimage.measure import label, perimeter\n"
  "d, W, H = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])\n"
  "f = np.fromfile(d + '/field.f64', dtype=np.float64).reshape(H, W)\n"
  "b = np.fromfile(d + '/binary.u8', dtype=np.uint8).reshape(H, W) > 0\n"
  "cross = ndi.generate_binary_structure(2, 1)\n"
  "out = {}\n"
  "out['reflect'] = ndi.gaussian_filter(f, 2.0, mode='reflect', truncate=4.0).ravel().tolist()\n"
  "out['zero'] = ndi.gaussian_filter(f, 0.75, mode='constant', cval=0.0, truncate=2 / 0.75).ravel().tolist()\n"
  "out['erode'] = ndi.binary_erosion(b, cross, border_value=0).astype(int).ravel().tolist()\n"
  "out['dilate'] = ndi.binary_dilation(b, cross, border_value=0).astype(int).ravel().tolist()\n"
  "out['label'] = label(b, connectivity=2).ravel().tolist()\n"
  "out['perimeter'] = float(perimeter(b, 4))\n"
  "print(json.dumps(out))\n";

static void
write_bytes (const char *dir, const char *name, const void *data, gsize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, data, (gssize) len, NULL));
}

static void
test_steps_reference (void)
{
  enum { W = 37, H = 29 };
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *out = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  double field[W * H], reflect[W * H], zero[W * H];
  guint8 binary[W * H], eroded[W * H], dilated[W * H];
  guint32 labels[W * H];
  g_autofree char *ws = g_strdup_printf ("%d", W), *hs = g_strdup_printf ("%d", H);
  const char *args[] = { dir, ws, hs, NULL };
  JsonObject *o;
  JsonArray *a;
  guint n_labels;

  for (guint i = 0; i < W * H; i++)
    {
      field[i] = sin (i * 0.7) + cos (i * 0.013) * 2.0;
      binary[i] = (guint8) (sin (i * 1.3) + cos (i * 0.31) > 0.2);
    }
  write_bytes (dir, "field.f64", field, sizeof field);
  write_bytes (dir, "binary.u8", binary, sizeof binary);
  out = hs_test_python (steps_script, args);
  if (out == NULL)
    return;
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));

  memcpy (reflect, field, sizeof field);
  memcpy (zero, field, sizeof field);
  hs_mri_gaussian (reflect, W, H, 2.0, 8, HS_MRI_BORDER_REFLECT);
  hs_mri_gaussian (zero, W, H, 0.75, 2, HS_MRI_BORDER_ZERO);
  hs_mri_erode (binary, eroded, W, H);
  hs_mri_dilate (binary, dilated, W, H);
  n_labels = hs_mri_label (binary, W, H, labels);
  g_assert_cmpuint (n_labels, >, 3);
  for (guint i = 0; i < W * H; i++)
    {
      g_assert_cmpfloat_with_epsilon (reflect[i], json_array_get_double_element (json_object_get_array_member (o, "reflect"), i), 1e-12);
      g_assert_cmpfloat_with_epsilon (zero[i], json_array_get_double_element (json_object_get_array_member (o, "zero"), i), 1e-12);
      g_assert_cmpint (eroded[i], ==, json_array_get_int_element (json_object_get_array_member (o, "erode"), i));
      g_assert_cmpint (dilated[i], ==, json_array_get_int_element (json_object_get_array_member (o, "dilate"), i));
    }
  a = json_object_get_array_member (o, "label");
  for (guint i = 0; i < W * H; i++)
    g_assert_cmpint (labels[i], ==, json_array_get_int_element (a, i));
  g_assert_cmpfloat_with_epsilon (hs_mri_perimeter (binary, W, H),
                                  json_object_get_double_member (o, "perimeter"), 1e-9);
}

/* Each shape PNG's one 8-connected component, by skimage.measure.regionprops. */
static const char *regionprops_script =
  "import sys, json, numpy as np, cv2\n"
  "from skimage.measure import label, regionprops\n"
  "rows = []\n"
  "for path in sys.argv[1:]:\n"
  "  img = cv2.imread(path, cv2.IMREAD_GRAYSCALE) > 0\n"
  "  props = regionprops(label(img, connectivity=2))\n"
  "  rows.append({'n': len(props), 'area': int(props[0].area), 'perimeter': float(props[0].perimeter)})\n"
  "print(json.dumps(rows))\n";

static void
test_compactness_by_skimage (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) shapes = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_mri_shape_free);
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) klass = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *out = NULL;
  HsMriLesionParams params;
  JsonArray *rows;
  guint n_class[2] = { 0, 0 };

  hs_mri_lesion_params_init (&params);
  for (int k = 0; k < 2; k++)
    for (guint64 seed = 1; seed <= 12; seed++)
      {
        guint before = shapes->len;
        hs_mri_lesion_shapes (&params, (HsMriLesionClass) k, seed * 7919 + k, shapes);
        for (guint i = before; i < shapes->len; i++)
          g_array_append_val (klass, k);
      }
  for (guint i = 0; i < shapes->len; i++)
    {
      HsMriShape *s = g_ptr_array_index (shapes, i);
      /* one pixel of background around the shape, as regionprops sees it */
      g_autoptr(HsImage) image = hs_image_new (s->width + 2, s->height + 2, 1, 8, NULL);
      guint16 *px = hs_image_get_data (image);
      char *path = g_strdup_printf ("%s/shape-%u.png", dir, i);

      memset (px, 0, (gsize) (s->width + 2) * (s->height + 2) * sizeof (guint16));
      for (guint y = 0; y < s->height; y++)
        for (guint x = 0; x < s->width; x++)
          px[(y + 1) * (s->width + 2) + x + 1] = s->pixels[y * s->width + x] ? 255 : 0;
      g_assert_true (hs_image_save_png (image, path, NULL));
      g_ptr_array_add (args, path);
      n_class[g_array_index (klass, int, i)]++;
    }
  /* both classes come out of a dozen fields in numbers */
  g_assert_cmpuint (n_class[0], >=, 12);
  g_assert_cmpuint (n_class[1], >=, 6);
  g_ptr_array_add (args, NULL);
  out = hs_test_python (regionprops_script, (const char * const *) args->pdata);
  if (out == NULL)
    return;
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  rows = json_node_get_array (json_parser_get_root (parser));
  g_assert_cmpuint (json_array_get_length (rows), ==, shapes->len);
  for (guint i = 0; i < shapes->len; i++)
    {
      HsMriShape *s = g_ptr_array_index (shapes, i);
      JsonObject *row = json_array_get_object_element (rows, i);
      double area = json_object_get_int_member (row, "area");
      double c = hs_mri_compactness (area, json_object_get_double_member (row, "perimeter"));

      g_assert_cmpint (json_object_get_int_member (row, "n"), ==, 1);
      g_assert_cmpuint (s->area, ==, (guint) area);
      g_assert_cmpuint (s->area, >=, params.min_area);
      g_assert_cmpuint (s->area, <=, params.max_area);
      g_assert_cmpfloat_with_epsilon (s->perimeter, json_object_get_double_member (row, "perimeter"), 1e-9);
      if (g_array_index (klass, int, i) == HS_MRI_LESION_REGULAR)
        g_assert_cmpfloat (c, >, params.regular_min);
      else
        g_assert_cmpfloat (c, <, params.irregular_max);
    }
}

/* ---- slices ---- */

static HsMriSlice *
make_slice (guint64 seed, HsMriLesionClass klass, guint16 **background, guint8 **brain)
{
  HsMriLesionParams params;
  g_autoptr(GError) error = NULL;
  HsMriSlice *slice;

  hs_mri_lesion_params_init (&params);
  *background = hs_mri_phantom_render (seed, 0, 160, 144, brain, &error);
  g_assert_no_error (error);
  slice = hs_mri_slice_make (*background, *brain, 160, 144, klass, 0, &params, seed * 31, &error);
  g_assert_no_error (error);
  return slice;
}

static void
test_slice_properties (void)
{
  for (guint64 seed = 1; seed <= 6; seed++)
    {
      HsMriLesionClass klass = seed % 2 ? HS_MRI_LESION_IRREGULAR : HS_MRI_LESION_REGULAR;
      g_autofree guint16 *background = NULL;
      g_autofree guint8 *brain = NULL;
      g_autoptr(HsMriSlice) slice = make_slice (seed, klass, &background, &brain);
      gsize n = 160 * 144;

      g_assert_cmpuint (slice->n_lesions, >=, 3);
      g_assert_cmpuint (slice->n_lesions, <=, 5);
      g_assert_cmpint (slice->klass, ==, klass);
      for (gsize p = 0; p < n; p++)
        {
          guint owners = 0;

          for (guint k = 0; k < slice->n_lesions; k++)
            owners += slice->lesions[k].mask[p] == 255;
          /* no overlaps; the masks are exactly the changed pixels */
          g_assert_cmpuint (owners, <=, 1);
          g_assert_cmpuint (owners == 1, ==, slice->pixels[p] != background[p]);
          if (owners == 1)
            {
              /* in the parenchyma, darker, and at most by the factor w */
              g_assert_true (brain[p]);
              g_assert_cmpuint (slice->pixels[p], <, background[p]);
              g_assert_cmpfloat (slice->pixels[p], >=, floor (background[p] * 0.5));
            }
        }
      for (guint k = 0; k < slice->n_lesions; k++)
        {
          const HsMriShape *s = slice->lesions[k].shape;
          guint count = 0;
          double darkest = 1.0;

          for (gsize p = 0; p < n; p++)
            if (slice->lesions[k].mask[p])
              {
                guint x = p % 160, y = p / 160;
                count++;
                g_assert_cmpfloat (x, >=, slice->lesions[k].box.x1);
                g_assert_cmpfloat (x, <, slice->lesions[k].box.x2);
                g_assert_cmpfloat (y, >=, slice->lesions[k].box.y1);
                g_assert_cmpfloat (y, <, slice->lesions[k].box.y2);
                darkest = MIN (darkest, (double) slice->pixels[p] / background[p]);
              }
          /* the shape and its soft edge; the core reaches near w */
          g_assert_cmpuint (count, >=, s->area);
          g_assert_cmpfloat (darkest, <, 0.7);
          if (klass == HS_MRI_LESION_REGULAR)
            g_assert_cmpfloat (s->compactness, >, 0.8);
          else
            g_assert_cmpfloat (s->compactness, <, 0.4);
        }
    }
}

static void
test_slice_deterministic (void)
{
  g_autofree guint16 *b1 = NULL, *b2 = NULL, *b3 = NULL;
  g_autofree guint8 *m1 = NULL, *m2 = NULL, *m3 = NULL;
  g_autoptr(HsMriSlice) s1 = make_slice (9, HS_MRI_LESION_REGULAR, &b1, &m1);
  g_autoptr(HsMriSlice) s2 = make_slice (9, HS_MRI_LESION_REGULAR, &b2, &m2);
  g_autoptr(HsMriSlice) s3 = make_slice (10, HS_MRI_LESION_REGULAR, &b3, &m3);
  gsize bytes = 160 * 144 * sizeof (guint16);

  g_assert_cmpmem (b1, bytes, b2, bytes);
  g_assert_cmpmem (s1->pixels, bytes, s2->pixels, bytes);
  g_assert_cmpuint (s1->n_lesions, ==, s2->n_lesions);
  for (guint k = 0; k < s1->n_lesions; k++)
    g_assert_cmpmem (s1->lesions[k].mask, 160 * 144, s2->lesions[k].mask, 160 * 144);
  g_assert_true (memcmp (b1, b3, bytes) != 0);
  g_assert_true (memcmp (s1->pixels, s3->pixels, bytes) != 0);
}

static void
test_errors (void)
{
  HsMriLesionParams params;
  g_autoptr(GError) error = NULL;
  g_autofree guint16 *background = g_new0 (guint16, 100 * 100);
  g_autofree guint8 *allowed = g_new0 (guint8, 100 * 100);
  HsMriSlice *slice;

  hs_mri_lesion_params_init (&params);
  params.intensity = 1.0;
  g_assert_false (hs_mri_lesion_params_check (&params, &error));
  g_assert_error (error, HS_MRI_ERROR, HS_MRI_ERROR_INVALID);
  g_clear_error (&error);
  hs_mri_lesion_params_init (&params);
  params.min_count = 6;
  g_assert_false (hs_mri_lesion_params_check (&params, &error));
  g_clear_error (&error);
  hs_mri_lesion_params_init (&params);
  params.irregular_max = 0.9;
  g_assert_false (hs_mri_lesion_params_check (&params, &error));
  g_clear_error (&error);

  /* no tissue: a clear error after a bounded search, never a hang */
  hs_mri_lesion_params_init (&params);
  slice = hs_mri_slice_make (background, allowed, 100, 100, HS_MRI_LESION_REGULAR, 0, &params, 1, &error);
  g_assert_null (slice);
  g_assert_error (error, HS_MRI_ERROR, HS_MRI_ERROR_NO_ROOM);
  g_clear_error (&error);

  g_assert_null (hs_mri_phantom_render (1, 0, 32, 300, NULL, &error));
  g_assert_error (error, HS_MRI_ERROR, HS_MRI_ERROR_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/mri-lesions/gaussian-impulse", test_gaussian_impulse);
  g_test_add_func ("/hs/mri-lesions/morphology-hand", test_morphology_hand);
  g_test_add_func ("/hs/mri-lesions/label-perimeter-hand", test_label_and_perimeter_hand);
  g_test_add_func ("/hs/mri-lesions/otsu-hand", test_otsu_hand);
  g_test_add_func ("/hs/mri-lesions/steps-scipy-skimage", test_steps_reference);
  g_test_add_func ("/hs/mri-lesions/compactness-skimage", test_compactness_by_skimage);
  g_test_add_func ("/hs/mri-lesions/slice-properties", test_slice_properties);
  g_test_add_func ("/hs/mri-lesions/slice-deterministic", test_slice_deterministic);
  g_test_add_func ("/hs/mri-lesions/errors", test_errors);
  return g_test_run ();
}
