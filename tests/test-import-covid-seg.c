/* test-import-covid-seg.c — the COVID-19 segmentation set, on the real files */
#include <heatscope/heatscope.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs-test-util.h"

static HsDataset *real_dataset;
static HsImportSummary real_summary;

/* Imports the real folder once for all the tests below. */
static HsDataset *
get_real_dataset (void)
{
  g_autofree char *source = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  const char *sources[2] = { NULL, NULL };

  if (real_dataset != NULL)
    return real_dataset;
  source = hs_test_shared_path ("cxr-covid-seg");
  if (source == NULL)
    return NULL;
  {
    g_autofree char *tmp = hs_test_make_tmpdir ();
    out = g_build_filename (tmp, "covid", NULL);
  }
  sources[0] = source;
  real_dataset = hs_import ("covid-seg", sources, out, NULL, &real_summary, &error);
  g_assert_no_error (error);
  return real_dataset;
}

/* Counts, boxes and mask pixel counts against numpy's own pasting of the
 * cropped masks (colour non-zero = inside; several rows of a class add up). */
static const char expected_script[] =
  "import csv, sys, os, cv2, numpy as np\n"
  "root = sys.argv[1]\n"
  "rows = list(csv.DictReader(open(os.path.join(root, 'structure.csv'), newline='')))\n"
  "masks = {}; boxes = {}\n"
  "for r in rows:\n"
  "    name = r['Class'].replace('COVID-19 ', '', 1)\n"
  "    key = (r['Filename'], name)\n"
  "    L, T, W, H = (int(r[k]) for k in ('Left', 'Top', 'Width', 'Height'))\n"
  "    boxes.setdefault(key, []).append((L, T, L + W, T + H))\n"
  "    if not r['Mask']: continue\n"
  "    w, h = (int(v) for v in r['Resolution'].split('x'))\n"
  "    full = masks.setdefault(key, np.zeros((h, w), bool))\n"
  "    m = cv2.imread(os.path.join(root, r['Mask']), cv2.IMREAD_UNCHANGED)\n"
  "    inside = m[..., :3].max(axis=2) > 0\n"
  "    full[T:T + H, L:L + W] |= inside[:full.shape[0] - T, :full.shape[1] - L]\n"
  "print(len(rows), len(set(r['Filename'] for r in rows)), len(boxes))\n"
  "for key in boxes:\n"
  "    b = boxes[key][0]\n"
  "    n = int(masks[key].sum()) if key in masks else -1\n"
  "    print('%s\\t%s\\t%d\\t%d\\t%d %d %d %d' % (key[0], key[1], len(boxes[key]), n, *b))\n";

static void
test_real (void)
{
  HsDataset *dataset = get_real_dataset ();
  g_autofree char *source = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  const char *args[2] = { NULL, NULL };
  guint n_rows, n_images, n_targets, n_masks = 0;

  if (dataset == NULL)
    return;
  source = hs_test_shared_path ("cxr-covid-seg");
  args[0] = source;
  out = hs_test_python (expected_script, args);
  if (out == NULL)
    return;
  lines = g_strsplit (g_strstrip (out), "\n", -1);
  g_assert_cmpint (sscanf (lines[0], "%u %u %u", &n_rows, &n_images, &n_targets), ==, 3);
  g_assert_cmpuint (n_images, ==, 34);
  g_assert_cmpuint (real_summary.n_instances, ==, n_images);
  g_assert_cmpuint (real_summary.n_targets, ==, n_targets);
  g_assert_cmpuint (real_summary.skipped->len, ==, 0);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, n_images);

  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      g_autofree char *image = g_strconcat ("images/", f[0], NULL);
      HsInstance *instance = NULL;
      HsRegion *region;
      HsBox *box;
      double x1, y1, x2, y2;
      gint64 want_pixels = g_ascii_strtoll (f[3], NULL, 10);

      for (guint k = 0; k < hs_dataset_get_n_instances (dataset) && instance == NULL; k++)
        if (strcmp (hs_dataset_get_instance (dataset, k)->image, image) == 0)
          instance = hs_dataset_get_instance (dataset, k);
      g_assert_nonnull (instance);
      region = hs_instance_find_region (instance, f[1]);
      g_assert_nonnull (region);
      g_assert_cmpuint (region->boxes->len, ==, atoi (f[2]));
      g_assert_cmpint (sscanf (f[4], "%lf %lf %lf %lf", &x1, &y1, &x2, &y2), ==, 4);
      box = &g_array_index (region->boxes, HsBox, 0);
      g_assert_cmpfloat (box->x1, ==, x1);
      g_assert_cmpfloat (box->y1, ==, y1);
      g_assert_cmpfloat (box->x2, ==, x2);
      g_assert_cmpfloat (box->y2, ==, y2);
      if (want_pixels < 0)
        g_assert_null (region->mask);
      else
        {
          g_assert_nonnull (region->mask);
          g_assert_cmpuint (hs_test_count_mask_pixels (dataset, region), ==, (guint64) want_pixels);
          n_masks++;
        }
    }
  g_test_message ("%u regions checked, %u masks", g_strv_length (lines) - 1, n_masks);
  g_assert_cmpuint (n_masks, >=, 200);
}

static void
test_specific (void)
{
  HsDataset *dataset = get_real_dataset ();
  g_autoptr(GPtrArray) problems = NULL;
  HsInstance *instance;
  HsRegion *region;
  HsBox *box;
  HsSentence *sentence;

  if (dataset == NULL)
    return;
  /* structure.csv row 1: Airways, Left 336, Top 0, Width 295, Height 410 */
  instance = hs_dataset_find_instance (dataset, "X-ray_of_cyst_in_pneumocystis_pneumonia_1");
  g_assert_nonnull (instance);
  g_assert_cmpuint (instance->width, ==, 943);
  g_assert_cmpuint (instance->height, ==, 751);
  region = hs_instance_find_region (instance, "Airways");
  g_assert_nonnull (region);
  box = &g_array_index (region->boxes, HsBox, 0);
  g_assert_cmpfloat (box->x1, ==, 336);
  g_assert_cmpfloat (box->y1, ==, 0);
  g_assert_cmpfloat (box->x2, ==, 631);
  g_assert_cmpfloat (box->y2, ==, 410);
  g_assert_cmpstr (hs_instance_get_metadata (instance, "licence"), ==, "CC BY");

  /* the radiological convention: the patient's right lung is on the image's left */
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *in = hs_dataset_get_instance (dataset, i);
      HsRegion *right = hs_instance_find_region (in, "Right Lung");
      HsRegion *left = hs_instance_find_region (in, "Left Lung");
      if (right != NULL && left != NULL)
        {
          HsBox *r = &g_array_index (right->boxes, HsBox, 0);
          HsBox *l = &g_array_index (left->boxes, HsBox, 0);
          g_assert_cmpfloat (r->x1 + r->x2, <, l->x1 + l->x2);
        }
    }

  /* notes become report sentences without targets */
  instance = hs_dataset_find_instance (dataset, "covid-19-pneumonia-2");
  g_assert_nonnull (instance);
  g_assert_cmpuint (instance->sentences->len, >=, 2);
  sentence = g_ptr_array_index (instance->sentences, 0);
  g_assert_cmpstr (sentence->id, ==, "s1");
  g_assert_cmpstr (sentence->text, ==, "Productive cough with a sore throat for 1 week, no fever or chest pain, "
                   "traveling to Macau from Wuhan 3 days prior, denied close contact with wet market.");
  g_assert_true (sentence->targets == NULL || sentence->targets[0] == NULL);

  /* the written dataset passes validation */
  if (!hs_dataset_validate (hs_dataset_get_root (dataset), &problems))
    {
      for (guint i = 0; i < problems->len; i++)
        g_test_message ("%s", hs_problem_to_string (g_ptr_array_index (problems, i)));
      g_assert_not_reached ();
    }
}

/* A small folder with the problems real exports have, plus a links file. */
static const char fixture_script[] =
  "import sys, os, cv2, numpy as np\n"
  "d = sys.argv[1]\n"
  "os.makedirs(d + '/images'); os.makedirs(d + '/masks')\n"
  "cv2.imwrite(d + '/images/a.png', np.full((40, 60), 100, np.uint8))\n"
  "m1 = np.zeros((10, 10, 4), np.uint8); m1[..., 3] = 255; m1[2:5, 2:6, :3] = 200\n"
  "cv2.imwrite(d + '/masks/m1.png', m1)\n"
  "m2 = np.zeros((5, 8, 4), np.uint8); m2[..., 3] = 255; m2[:, :, 0] = 9\n"
  "cv2.imwrite(d + '/masks/m2.png', m2)\n"
  "hdr = '#,Taxonomy,Class,Template Name,File Folder,Filename,Image,Tag,Mask,Resolution,Top,Left,Width,Height\\n'\n"
  "rows = [\n"
  "  '1,,COVID-19 Right Lung,Right Lung,,a.png,,,masks/m1.png,60x40,0,0,10,10',\n"
  "  '2,,COVID-19 Right Lung,Right Lung,,a.png,,,masks/m2.png,60x40,30,50,8,5',\n"
  "  '3,,COVID-19 Left Lung,Left Lung,,a.png,,,masks/m1.png,60x40,0,30,10,10',\n"
  "  '4,,COVID-19 Left Lung,Left Lung,,a.png,,,masks/m1.png,60x40,0,30,12,10',\n"
  "  '5,,COVID-19 Left Lung,Left Lung,,a.png,,,,60x40,x,30,12,10',\n"
  "  '6,,COVID-19 Airways,Airways,,missing.png,,,,60x40,0,0,5,5',\n"
  "  '7,,COVID-19 Airways,Airways,,a.png,,,,60x40,0,0,5,5',\n"
  "]\n"
  "open(d + '/structure.csv', 'w').write(hdr + '\\n'.join(rows) + '\\n')\n"
  "open(d + '/metadata.csv', 'w').write('filename,clinical_notes,view,\\n'\n"
  "    'a.png,\"Opacity in the right lung. Left lung clear.\",PA,\\n')\n"
  "open(d + '/links.csv', 'w').write('image,sentence,target\\n'\n"
  "    'a.png,1,Right Lung\\n'\n"
  "    'a,Left lung clear.,Left Lung\\n'\n"
  "    'a.png,1,Heart\\n'\n"
  "    'b.png,1,Right Lung\\n'\n"
  "    'a.png,7,Right Lung\\n')\n";

static void
test_fixture_and_links (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *src = g_build_filename (dir, "src", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *links = g_build_filename (src, "links.csv", NULL);
  g_autofree char *structure = g_build_filename (src, "structure.csv", NULL);
  const char *args[] = { src, NULL };
  g_autofree char *made = hs_test_python (fixture_script, args);
  const char *sources[] = { src, NULL };
  HsImportOptions options = { .links = links };
  HsImportSummary summary = { 0 };
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) skipped = g_string_new (NULL);
  HsInstance *instance;
  HsRegion *region;
  HsSentence *s1, *s2;

  if (made == NULL)
    return;
  dataset = hs_import ("covid-seg", sources, out, &options, &summary, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < summary.skipped->len; i++)
    {
      g_autofree char *line = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, i));
      g_test_message ("%s", line);
      g_string_append_printf (skipped, "%s\n", line);
    }
  g_assert_cmpuint (summary.n_instances, ==, 1);
  g_assert_cmpuint (summary.n_sentences, ==, 2);
  g_assert_cmpuint (summary.n_targets, ==, 3);
  /* line numbers count the header: data row N is line N + 1 */
  g_assert_cmpuint (summary.skipped->len, ==, 6);
  {
    g_autofree char *l4 = g_strdup_printf ("%s:5: mask masks/m1.png is 10×10, the box is 12×10", structure);
    g_autofree char *l5 = g_strdup_printf ("%s:6: Left/Top/Width/Height are not whole numbers", structure);
    g_autofree char *l6 = g_strdup_printf ("%s:7: ", structure);
    g_autofree char *k4 = g_strdup_printf ("%s:4: image 'a.png' has no target 'Heart'", links);
    g_autofree char *k5 = g_strdup_printf ("%s:5: unknown image 'b.png'", links);
    g_autofree char *k6 = g_strdup_printf ("%s:6: image 'a.png' has no sentence '7'", links);
    g_assert_nonnull (strstr (skipped->str, l4));
    g_assert_nonnull (strstr (skipped->str, l5));
    g_assert_nonnull (strstr (skipped->str, l6));
    g_assert_nonnull (strstr (skipped->str, k4));
    g_assert_nonnull (strstr (skipped->str, k5));
    g_assert_nonnull (strstr (skipped->str, k6));
  }

  instance = hs_dataset_find_instance (dataset, "a");
  g_assert_nonnull (instance);
  region = hs_instance_find_region (instance, "Right Lung");
  g_assert_cmpuint (region->boxes->len, ==, 2);
  /* two blobs: 3×4 from m1 at (0,0) and 5×8 from m2 at (50,30) → 12 + 40 */
  {
    g_autoptr(HsImage) mask = hs_dataset_load_mask (dataset, region, &error);
    guint64 n = 0;
    g_assert_no_error (error);
    g_assert_cmpuint (hs_image_get_width (mask), ==, 60);
    for (gsize i = 0; i < 60 * 40; i++)
      n += hs_image_peek_data (mask)[i] != 0;
    g_assert_cmpuint (n, ==, 52);
    g_assert_cmpuint (hs_image_peek_data (mask)[2 * 60 + 2], ==, 255);
    g_assert_cmpuint (hs_image_peek_data (mask)[30 * 60 + 50], ==, 255);
    g_assert_cmpuint (hs_image_peek_data (mask)[0], ==, 0);
  }
  region = hs_instance_find_region (instance, "Airways");
  g_assert_nonnull (region);
  g_assert_null (region->mask);

  s1 = g_ptr_array_index (instance->sentences, 0);
  s2 = g_ptr_array_index (instance->sentences, 1);
  g_assert_cmpstr (s1->text, ==, "Opacity in the right lung.");
  g_assert_cmpstr (s1->targets[0], ==, "Right Lung");
  g_assert_null (s1->targets[1]);
  g_assert_cmpstr (s2->targets[0], ==, "Left Lung");
  g_assert_cmpstr (hs_instance_get_metadata (instance, "view"), ==, "PA");
  hs_import_summary_clear (&summary);

  /* a second import into the same folder needs force */
  g_clear_pointer (&dataset, hs_dataset_unref);
  dataset = hs_import ("covid-seg", sources, out, NULL, NULL, &error);
  g_assert_null (dataset);
  g_assert_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, out));
  g_clear_error (&error);
  options.force = TRUE;
  dataset = hs_import ("covid-seg", sources, out, &options, NULL, &error);
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-covid-seg/real", test_real);
  g_test_add_func ("/hs/import-covid-seg/specific", test_specific);
  g_test_add_func ("/hs/import-covid-seg/fixture-and-links", test_fixture_and_links);
  status = g_test_run ();
  g_clear_pointer (&real_dataset, hs_dataset_unref);
  hs_import_summary_clear (&real_summary);
  return status;
}
