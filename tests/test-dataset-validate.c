/* test-dataset-validate.c — hs_dataset_validate reports every problem with file and JSON path */
#include <heatscope/heatscope.h>

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "hs-test-util.h"

static void
write_png (const char *dir, const char *name, guint width, guint height)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_new (width, height, 1, 8, &error);
  guint16 *data;

  g_assert_no_error (error);
  data = hs_image_get_data (image);
  for (guint i = 0; i < width * height; i++)
    data[i] = (i * 7) % 256;
  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (hs_image_save_png (image, path, &error));
  g_assert_no_error (error);
}

static void
write_npy (const char *dir, const char *name, guint ndim, const gsize *shape, gboolean with_nan)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;
  gsize n = 1;
  g_autofree double *values = NULL;

  for (guint i = 0; i < ndim; i++)
    n *= shape[i];
  values = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    values[i] = (double) i / n;
  if (with_nan)
    values[n / 2] = NAN;
  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT32, ndim, shape, values, FALSE, FALSE, &error));
  g_assert_no_error (error);
}

/* Two instances with every kind of reference, all valid. */
static void
make_valid_dataset (const char *dir)
{
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "valid");
  g_autoptr(GError) error = NULL;
  const gsize token_shape[] = { 4, 6, 8 };
  const gsize plain_shape[] = { 6, 8 };
  const char *tokens[] = { "there", "is", "a", "nodule", NULL };
  HsInstance *instance;
  HsRegion *region;
  HsSentence *sentence;
  HsMapRef *ref;

  write_png (dir, "images/a.png", 64, 48);
  write_png (dir, "images/b.png", 64, 48);
  write_png (dir, "masks/a-lesion.png", 32, 24);
  write_npy (dir, "maps/a_g_s0.npy", 3, token_shape, FALSE);
  write_npy (dir, "maps/a_g_s1.npy", 2, plain_shape, FALSE);
  write_npy (dir, "maps/b_g_s0.npy", 2, plain_shape, FALSE);

  instance = hs_instance_new ("a", "images/a.png");
  instance->width = 64;
  instance->height = 48;
  hs_instance_add_finding (instance, hs_label_new ("nodule", "positive", NULL));
  instance->abnormal = TRUE;
  region = hs_region_new ("left lung");
  hs_region_add_box (region, 32, 0, 64, 48);   /* touching the image border is inside */
  hs_instance_add_region (instance, region);
  region = hs_region_new ("nodule 1");
  hs_region_add_box (region, 40.5, 10.25, 50, 20);
  hs_region_set_mask (region, "masks/a-lesion.png");
  hs_instance_add_region (instance, region);
  sentence = hs_sentence_new ("s0", "There is a nodule.");
  hs_sentence_add_target (sentence, "nodule 1");
  hs_instance_add_sentence (instance, sentence);
  hs_instance_add_sentence (instance, hs_sentence_new ("s1", "There is no effusion."));
  ref = hs_map_ref_new ("grounded", "s0", "maps/a_g_s0.npy");
  hs_map_ref_set_tokens (ref, tokens);
  ref->no_attn = 0.25;
  hs_instance_add_map (instance, ref);
  hs_instance_add_map (instance, hs_map_ref_new ("grounded", "s1", "maps/a_g_s1.npy"));
  hs_dataset_add_instance (dataset, instance);

  instance = hs_instance_new ("b", "images/b.png");
  region = hs_region_new ("heart");
  hs_region_add_box (region, 20, 20, 40, 40);
  hs_instance_add_region (instance, region);
  sentence = hs_sentence_new ("s0", "The heart is enlarged.");
  hs_sentence_add_target (sentence, "heart");
  hs_instance_add_sentence (instance, sentence);
  hs_instance_add_map (instance, hs_map_ref_new ("grounded", "s0", "maps/b_g_s0.npy"));
  hs_dataset_add_instance (dataset, instance);

  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
}

static void
test_valid (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) problems = NULL;

  make_valid_dataset (dir);
  if (!hs_dataset_validate (dir, &problems))
    {
      for (guint i = 0; i < problems->len; i++)
        {
          g_autofree char *line = hs_problem_to_string (problems->pdata[i]);
          g_test_message ("%s", line);
        }
      g_assert_not_reached ();
    }
  g_assert_cmpuint (problems->len, ==, 0);
  g_assert_true (hs_dataset_validate (dir, NULL));
}

typedef struct {
  const char *file_suffix;   /* end of HsProblem.file */
  const char *json_path;
  const char *message;       /* substring */
} Expected;

static void
test_every_problem (void)
{
  g_autofree char *top = hs_test_make_tmpdir ();
  g_autofree char *dir = g_build_filename (top, "set", NULL);
  g_autofree char *outside = g_build_filename (top, "outside.png", NULL);
  g_autofree char *link = g_build_filename (dir, "masks", "link.png", NULL);
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GPtrArray) matched = g_ptr_array_new ();
  const gsize token_shape[] = { 3, 6, 8 };
  const gsize plain_shape[] = { 6, 8 };
  const gsize cube_shape[] = { 2, 2, 2, 2 };
  static const Expected expected[] = {
    /* schema problems in the manifest */
    { "heatscope.json", "$.instances[0].image", "image file \"images/missing.png\" does not exist" },
    { "heatscope.json", "$.instances[1].image", "the manifest says 100 × 48 but the image is 64 × 48" },
    { "heatscope.json", "$.instances[1].regions.empty.boxes[0]", "empty box [10, 10, 10, 20]" },
    { "heatscope.json", "$.instances[1].regions.outside.boxes[0]", "reaches outside the 64 × 48 image" },
    { "heatscope.json", "$.instances[1].regions.outside.boxes[1]", "reaches outside" },
    { "heatscope.json", "$.instances[1].regions.subpixel.boxes[0]",
      "box [10.2, 10.2, 10.4, 10.4] has no pixel of the 64 × 48 image inside (no pixel centre lies in it)" },
    { "heatscope.json", "$.instances[1].regions.subpixel.boxes[2]", "has no pixel of the 64 × 48 image inside" },
    { "heatscope.json", "$.instances[1].regions.nomask.mask", "mask file \"masks/none.png\" does not exist" },
    { "heatscope.json", "$.instances[1].regions.escape.mask", "outside the dataset folder" },
    { "heatscope.json", "$.instances[1].regions.dotdot.mask", "'..'" },
    { "heatscope.json", "$.instances[1].sentences[0].targets[0]", "unknown region \"heart\"" },
    { "heatscope.json", "$.instances[1].sentences[2].id", "duplicate sentence id \"s1\"" },
    { "heatscope.json", "$.instances[1].maps[4]", "a second map for model \"g\" and query \"s1\"" },
    { "heatscope.json", "$.instances[1].maps[4].file", "map file \"maps/missing.npy\" does not exist" },
    { "heatscope.json", "$.instances[1].maps[3].no_attn", "not an attention share" },
    { "heatscope.json", "$.instances[2].id", "duplicate instance id \"b\"" },
    { "heatscope.json", "$.instances[2].colour", "unknown member \"colour\"" },
    { "heatscope.json", "$.instances[2].regions.r.boxes[0][1]", "expected a number, found null" },
    { "heatscope.json", "$.instances[2]", "missing required member \"image\"" },
    /* content problems in the referenced files */
    { "images/corrupt.png", "$.instances[3].image", "not a readable image" },
    { "maps/notnpy.npy", "$.instances[1].maps[0].file", "" },
    { "maps/tokens.npy", "$.instances[1].maps[1].file", "3 token maps but 2 tokens" },
    { "maps/nan.npy", "$.instances[1].maps[2].file", "" },
    { "maps/cube.npy", "$.instances[1].maps[3].file", "[h, w] or [tokens, h, w]" },
    { "masks/corrupt.png", "$.instances[3].regions.m.mask", "not a readable mask image" },
  };

  write_png (dir, "images/b.png", 64, 48);
  hs_test_write_file (dir, "images/corrupt.png", "\x89PNG\r\n\x1a\n but then nothing");
  hs_test_write_file (dir, "masks/corrupt.png", "garbage");
  hs_test_write_file (dir, "maps/notnpy.npy", "this is text");
  write_npy (dir, "maps/tokens.npy", 3, token_shape, FALSE);
  write_npy (dir, "maps/nan.npy", 2, plain_shape, TRUE);
  write_npy (dir, "maps/cube.npy", 4, cube_shape, FALSE);
  hs_test_write_file (top, "outside.png", "x");
  g_assert_cmpint (symlink (outside, link), ==, 0);
  hs_test_write_file (dir, "heatscope.json",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    " {\"id\": \"a\", \"image\": \"images/missing.png\"},\n"
    " {\"id\": \"b\", \"image\": \"images/b.png\", \"width\": 100, \"height\": 48,\n"
    "  \"regions\": {\n"
    "    \"empty\": {\"boxes\": [[10, 10, 10, 20]]},\n"
    "    \"outside\": {\"boxes\": [[50, 10, 70, 20], [-1, 0, 5, 5], [0, 0, 64, 48]]},\n"
    /* positive area but no pixel centre inside; the second holds pixel 10's centre */
    "    \"subpixel\": {\"boxes\": [[10.2, 10.2, 10.4, 10.4], [10.4, 10.4, 10.6, 10.6], [3.6, 2, 3.9, 8]]},\n"
    "    \"nomask\": {\"mask\": \"masks/none.png\"},\n"
    "    \"escape\": {\"mask\": \"masks/link.png\"},\n"
    "    \"dotdot\": {\"mask\": \"../outside.png\"}},\n"
    "  \"sentences\": [{\"id\": \"s0\", \"text\": \"t\", \"targets\": [\"heart\"]},\n"
    "                 {\"id\": \"s1\", \"text\": \"t\"}, {\"id\": \"s1\", \"text\": \"u\"}],\n"
    "  \"maps\": [{\"model\": \"g\", \"query\": \"s1\", \"file\": \"maps/notnpy.npy\"},\n"
    "           {\"model\": \"h\", \"query\": \"s1\", \"file\": \"maps/tokens.npy\", \"tokens\": [\"a\", \"b\"]},\n"
    "           {\"model\": \"i\", \"query\": \"s1\", \"file\": \"maps/nan.npy\"},\n"
    "           {\"model\": \"j\", \"query\": \"s1\", \"file\": \"maps/cube.npy\", \"no_attn\": 1.5},\n"
    "           {\"model\": \"g\", \"query\": \"s1\", \"file\": \"maps/missing.npy\"}]},\n"
    " {\"id\": \"b\", \"colour\": \"red\", \"regions\": {\"r\": {\"boxes\": [[0, null, 1, 1]]}}},\n"
    " {\"id\": \"c\", \"image\": \"images/corrupt.png\", \"regions\": {\"m\": {\"mask\": \"masks/corrupt.png\"}}}\n"
    "]}\n");

  g_assert_false (hs_dataset_validate (dir, &problems));
  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *line = hs_problem_to_string (problems->pdata[i]);
      g_test_message ("%s", line);
    }

  for (guint e = 0; e < G_N_ELEMENTS (expected); e++)
    {
      gboolean found = FALSE;

      for (guint i = 0; i < problems->len && !found; i++)
        {
          HsProblem *problem = problems->pdata[i];

          if (g_str_has_suffix (problem->file, expected[e].file_suffix) &&
              g_strcmp0 (problem->json_path, expected[e].json_path) == 0 &&
              strstr (problem->message, expected[e].message) != NULL)
            {
              found = TRUE;
              g_ptr_array_add (matched, problem);
            }
        }
      if (!found)
        g_error ("no problem %s: %s: %s", expected[e].file_suffix, expected[e].json_path,
                 expected[e].message);
    }
  /* Nothing more than expected (the third box of "outside" is fine, and
   * nothing cascades from the duplicate or broken elements). */
  g_assert_cmpuint (problems->len, ==, G_N_ELEMENTS (expected));
}

static void
test_unreadable_manifest (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *missing = g_build_filename (dir, "nothing-here", NULL);
  g_autoptr(GPtrArray) problems = NULL;
  HsProblem *problem;

  hs_test_write_file (dir, "heatscope.json", "{\"format\": ");
  g_assert_false (hs_dataset_validate (dir, &problems));
  g_assert_cmpuint (problems->len, ==, 1);
  problem = problems->pdata[0];
  g_assert_true (g_str_has_suffix (problem->file, "heatscope.json"));
  g_assert_cmpstr (problem->json_path, ==, "$");
  g_assert_nonnull (strstr (problem->message, "not valid JSON"));
  g_clear_pointer (&problems, g_ptr_array_unref);

  g_assert_false (hs_dataset_validate (missing, &problems));
  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_nonnull (strstr (((HsProblem *) problems->pdata[0])->message, "nothing-here"));
}

/* The loader accepts what validation checks only against files (missing
 * files, boxes outside the image): it must open big datasets without I/O. */
static void
test_loader_is_lazy (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = NULL;

  hs_test_write_file (dir, "heatscope.json",
              "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": ["
              " {\"id\": \"a\", \"image\": \"images/missing.png\","
              "  \"regions\": {\"r\": {\"boxes\": [[5000, 0, 6000, 10]]}}}]}");
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  image = hs_dataset_load_image (dataset, hs_dataset_get_instance (dataset, 0), &error);
  g_assert_null (image);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "missing.png"));
  g_assert_false (hs_dataset_validate (dir, NULL));
}

/* Loading a map and a mask through the dataset. */
static void
test_load_files (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(HsImage) mask = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance;
  guint width = 0, height = 0;

  make_valid_dataset (dir);
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  instance = hs_dataset_find_instance (dataset, "a");
  map = hs_dataset_load_map (dataset, hs_instance_find_map (instance, "grounded", "s0"), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, 4);
  g_assert_cmpuint (hs_attention_map_get_height (map), ==, 6);
  g_assert_cmpuint (hs_attention_map_get_width (map), ==, 8);
  g_assert_cmpstr (hs_attention_map_get_token (map, 3), ==, "nodule");
  g_assert_cmpfloat (hs_attention_map_get_no_attn (map), ==, 0.25);
  mask = hs_dataset_load_mask (dataset, hs_instance_find_region (instance, "nodule 1"), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_image_get_width (mask), ==, 32);
  g_assert_null (hs_dataset_load_mask (dataset, hs_instance_find_region (instance, "left lung"), &error));
  g_assert_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_NOT_FOUND);
  g_clear_error (&error);
  image = hs_dataset_load_image (dataset, hs_dataset_find_instance (dataset, "b"), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_image_get_width (image), ==, 64);
  /* b states no size: read from the PNG header. */
  g_assert_true (hs_dataset_get_image_size (dataset, hs_dataset_find_instance (dataset, "b"),
                                            &width, &height, &error));
  g_assert_cmpuint (width, ==, 64);
  g_assert_cmpuint (height, ==, 48);
}

/* Colour masks: any non-zero colour channel is inside, alpha is ignored. */
static void
test_colour_mask (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "m.png", NULL);
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "masks");
  g_autoptr(HsImage) rgba = NULL;
  g_autoptr(HsImage) mask = NULL;
  g_autoptr(GError) error = NULL;
  HsRegion *region = hs_region_new ("r");
  const guint16 pixels[3][4] = { { 0, 0, 1, 255 }, { 0, 0, 0, 255 }, { 7, 0, 0, 0 } };
  const guint16 *data;

  rgba = hs_image_new (3, 1, 4, 8, &error);
  g_assert_no_error (error);
  memcpy (hs_image_get_data (rgba), pixels, sizeof pixels);
  g_assert_true (hs_image_save_png (rgba, path, &error));
  g_assert_no_error (error);
  hs_region_set_mask (region, "m.png");
  mask = hs_dataset_load_mask (dataset, region, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_image_get_channels (mask), ==, 1);
  data = hs_image_peek_data (mask);
  g_assert_cmpuint (data[0], ==, 1);
  g_assert_cmpuint (data[1], ==, 0);
  g_assert_cmpuint (data[2], ==, 7);
  hs_region_free (region);
}

/* --- the region "extent" --------------------------------------------------- */

/* A 32 × 24 mask for a 64 × 48 image (scale 2) with pixels x 4..9, y 2..5:
 * in image pixels x 8..20, y 4..12, left of the midline x = 32. */
static void
make_extent_dataset (const char *dir, const HsBox *stated)
{
  g_autoptr(HsDataset) dataset = hs_dataset_new (dir, "extent");
  g_autofree char *mask_path = g_build_filename (dir, "masks", "lesion.png", NULL);
  g_autofree char *mask_dir = g_path_get_dirname (mask_path);
  g_autoptr(HsImage) mask = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance;
  HsRegion *region;
  HsSentence *sentence;
  guint16 *data;

  write_png (dir, "images/a.png", 64, 48);
  mask = hs_image_new (32, 24, 1, 8, &error);
  g_assert_no_error (error);
  data = hs_image_get_data (mask);
  for (guint y = 2; y <= 5; y++)
    for (guint x = 4; x <= 9; x++)
      data[y * 32 + x] = 255;
  g_assert_cmpint (g_mkdir_with_parents (mask_dir, 0755), ==, 0);
  g_assert_true (hs_image_save_png (mask, mask_path, &error));
  g_assert_no_error (error);

  instance = hs_instance_new ("a", "images/a.png");
  instance->width = 64;
  instance->height = 48;
  region = hs_region_new ("lesion");
  hs_region_set_mask (region, "masks/lesion.png");
  hs_region_set_extent (region, stated);
  hs_instance_add_region (instance, region);
  sentence = hs_sentence_new ("s0", "A lesion in the right lung.");
  hs_sentence_add_target (sentence, "lesion");
  hs_instance_add_sentence (instance, sentence);
  hs_dataset_add_instance (dataset, instance);
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
}

static gboolean
has_problem (GPtrArray *problems, const char *json_path, const char *message)
{
  for (guint i = 0; i < problems->len; i++)
    {
      const HsProblem *problem = problems->pdata[i];
      g_autofree char *line = hs_problem_to_string (problem);

      g_test_message ("%s", line);
      if (strstr (line, json_path) != NULL && strstr (line, message) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
test_extent_right (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *manifest = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  const HsBox right = { 8, 4, 20, 12 };
  const HsRegion *region;

  make_extent_dataset (dir, &right);
  manifest = g_build_filename (dir, "heatscope.json", NULL);
  g_assert_true (g_file_get_contents (manifest, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"extent\": [8, 4, 20, 12]"));
  g_assert_true (hs_dataset_validate (dir, &problems));
  g_assert_cmpuint (problems->len, ==, 0);

  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  region = hs_instance_find_region (hs_dataset_get_instance (dataset, 0), "lesion");
  g_assert_true (region->has_extent);
  g_assert_cmpfloat (region->extent.x1, ==, 8);
  g_assert_cmpfloat (region->extent.y1, ==, 4);
  g_assert_cmpfloat (region->extent.x2, ==, 20);
  g_assert_cmpfloat (region->extent.y2, ==, 12);
}

static void
test_extent_wrong (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) problems = NULL;
  const HsBox wrong = { 8, 4, 20, 13 };

  make_extent_dataset (dir, &wrong);
  g_assert_false (hs_dataset_validate (dir, &problems));
  g_assert_true (has_problem (problems, "$.instances[0].regions.lesion.extent",
                              "extent [8, 4, 20, 13] differs from the mask's non-zero pixels [8, 4, 20, 12]"));
}

/* Subsets and target extents trust the manifest's extent: they work with the
 * mask file gone, which validate reports. */
static void
test_extent_spares_mask (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *mask_path = g_build_filename (dir, "masks", "lesion.png", NULL);
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  const HsBox right = { 8, 4, 20, 12 };
  HsInstance *instance;
  HsSentence *sentence;
  HsBox extent;

  make_extent_dataset (dir, &right);
  g_assert_cmpint (g_unlink (mask_path), ==, 0);
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  instance = hs_dataset_get_instance (dataset, 0);
  sentence = hs_instance_find_sentence (instance, "s0");
  g_assert_true (hs_dataset_get_target_extent (dataset, instance, (const char * const *) sentence->targets,
                                               &extent, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (extent.x1, ==, 8);
  g_assert_cmpfloat (extent.y1, ==, 4);
  g_assert_cmpfloat (extent.x2, ==, 20);
  g_assert_cmpfloat (extent.y2, ==, 12);
  g_assert_cmpuint (hs_dataset_get_subsets (dataset, instance, sentence) & HS_SUBSET_ONE_LUNG, ==,
                    HS_SUBSET_ONE_LUNG);

  g_assert_false (hs_dataset_validate (dir, &problems));
  g_assert_true (has_problem (problems, "$.instances[0].regions.lesion.mask",
                              "mask file \"masks/lesion.png\" does not exist"));
}

/* An 8-bit mask of the image's size: the bounding box of its non-zero bytes. */
static void
test_extent_from_bytes (void)
{
  HsRegion *region = hs_region_new ("r");
  guint8 mask[5 * 4] = { 0 };

  mask[1 * 5 + 3] = 1;
  mask[2 * 5 + 1] = 200;
  hs_region_set_mask_extent (region, mask, 5, 4);
  g_assert_true (region->has_extent);
  g_assert_cmpfloat (region->extent.x1, ==, 1);
  g_assert_cmpfloat (region->extent.y1, ==, 1);
  g_assert_cmpfloat (region->extent.x2, ==, 4);
  g_assert_cmpfloat (region->extent.y2, ==, 3);
  memset (mask, 0, sizeof mask);
  hs_region_set_mask_extent (region, mask, 5, 4);
  g_assert_true (region->has_extent);
  g_assert_cmpfloat (region->extent.x2, ==, 0);
  g_assert_cmpfloat (region->extent.y2, ==, 0);
  hs_region_set_extent (region, NULL);
  g_assert_false (region->has_extent);
  hs_region_free (region);
}

/* The loader refuses an extent without a mask and a reversed one. */
static void
test_extent_bad (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GPtrArray) problems = NULL;

  write_png (dir, "images/a.png", 64, 48);
  write_png (dir, "masks/m.png", 64, 48);
  hs_test_write_file (dir, "heatscope.json",
    "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n"
    " {\"id\": \"a\", \"image\": \"images/a.png\", \"regions\": {\n"
    "   \"nomask\": {\"boxes\": [[1, 1, 2, 2]], \"extent\": [1, 1, 2, 2]},\n"
    "   \"reversed\": {\"mask\": \"masks/m.png\", \"extent\": [5, 1, 2, 2]},\n"
    "   \"short\": {\"mask\": \"masks/m.png\", \"extent\": [1, 1, 2]}}}]}\n");
  g_assert_false (hs_dataset_validate (dir, &problems));
  g_assert_true (has_problem (problems, "$.instances[0].regions.nomask.extent", "the region has none"));
  g_assert_true (has_problem (problems, "$.instances[0].regions.reversed.extent", "needs 0 <= x1 < x2"));
  g_assert_true (has_problem (problems, "$.instances[0].regions.short.extent", "4 numbers"));
}

/* A file's SHA-256 computed here, apart from the library's (GChecksum over
 * the whole file read at once). */
static char *
file_sha256 (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
}

static gsize
file_size (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  return len;
}

static void
copy_file (const char *dir, const char *from, const char *to)
{
  g_autofree char *from_path = g_build_filename (dir, from, NULL);
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (from_path, &contents, &len, NULL));
  {
    g_autofree char *to_path = g_build_filename (dir, to, NULL);
    g_autoptr(GError) error = NULL;

    g_assert_true (g_file_set_contents (to_path, contents, len, &error));
    g_assert_no_error (error);
  }
}

/* Exactly one problem, about `file_suffix` at `json_path`, saying `message`. */
static void
assert_one_problem (const char *dir, const char *file_suffix, const char *json_path,
                    const char *message)
{
  g_autoptr(GPtrArray) problems = NULL;
  HsProblem *problem;

  g_assert_false (hs_dataset_validate (dir, &problems));
  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *line = hs_problem_to_string (problems->pdata[i]);
      g_test_message ("%s", line);
    }
  g_assert_cmpuint (problems->len, ==, 1);
  problem = problems->pdata[0];
  g_assert_true (g_str_has_suffix (problem->file, file_suffix));
  g_assert_cmpstr (problem->json_path, ==, json_path);
  if (strstr (problem->message, message) == NULL)
    g_error ("\"%s\" does not say \"%s\"", problem->message, message);
}

/* The writer records each file's size and SHA-256; validate reports a file
 * that changed after the manifest was written, and nothing when none did. */
static void
test_recorded_files (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *manifest_path = g_build_filename (dir, "heatscope.json", NULL);
  g_autofree char *manifest = NULL;
  g_autofree char *a_sha = NULL, *expected = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance;
  char hex[65];

  make_valid_dataset (dir);
  /* An image of the same size as a.png, with other pixels. */
  {
    g_autoptr(HsImage) image = hs_image_new (64, 48, 1, 8, &error);
    g_autofree char *path = g_build_filename (dir, "images/c.png", NULL);
    guint16 *data = hs_image_get_data (image);

    for (guint i = 0; i < 64 * 48; i++)
      data[i] = (i * 13 + 5) % 256;
    g_assert_true (hs_image_save_png (image, path, &error));
    g_assert_no_error (error);
  }

  /* Recorded as the files are, by an independent hash. */
  g_assert_true (g_file_get_contents (manifest_path, &manifest, NULL, NULL));
  a_sha = file_sha256 (dir, "images/a.png");
  expected = g_strdup_printf ("\"image\": \"images/a.png\",\n      \"image_bytes\": %" G_GSIZE_FORMAT ",\n"
                              "      \"image_sha256\": \"%s\"", file_size (dir, "images/a.png"), a_sha);
  if (strstr (manifest, expected) == NULL)
    g_error ("the manifest does not record a.png as %s:\n%s", expected, manifest);
  g_assert_nonnull (strstr (manifest, "\"mask\": \"masks/a-lesion.png\", \"mask_bytes\": "));
  g_assert_nonnull (strstr (manifest, "\"file\": \"maps/a_g_s0.npy\", \"file_bytes\": "));
  dataset = hs_dataset_load (dir, &error);
  g_assert_no_error (error);
  instance = hs_dataset_get_instance (dataset, 0);
  g_assert_nonnull (instance->image_record);
  g_assert_cmpuint (instance->image_record->bytes, ==, file_size (dir, "images/a.png"));
  hs_file_record_sha256_to_hex (instance->image_record, hex);
  g_assert_cmpstr (hex, ==, a_sha);

  /* Unchanged: clean. */
  g_assert_true (hs_dataset_validate (dir, NULL));
  /* The JSON Schema in data/ accepts the records and refuses half of one. */
  {
    g_autofree char *schema = g_build_filename (hs_test_source_dir (), "data",
                                                "heatscope-dataset.schema.json", NULL);
    const char *args[] = { manifest_path, schema, NULL };
    const char *script =
      "import json, sys\n"
      "try:\n"
      "    import jsonschema\n"
      "except ImportError:\n"
      "    print('no-jsonschema'); sys.exit(0)\n"
      "d = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))\n"
      "v = jsonschema.Draft202012Validator(s)\n"
      "v.validate(d)\n"
      "i = d['instances'][0]\n"
      "assert len(i['image_sha256']) == 64 and i['maps'][0]['file_bytes'] > 0\n"
      "assert i['regions']['nodule 1']['mask_bytes'] > 0\n"
      "del i['image_bytes']\n"
      "assert list(v.iter_errors(d)), 'schema accepts a sha256 without bytes'\n"
      "i['image_bytes'] = 1; i['image_sha256'] = 'ABC'\n"
      "assert list(v.iter_errors(d)), 'schema accepts a bad sha256'\n"
      "print('ok')\n";
    g_autofree char *out = hs_test_python (script, args);

    if (out != NULL && strstr (out, "no-jsonschema") == NULL)
      g_assert_cmpstr (out, ==, "ok\n");
  }

  /* a.png swapped for another image of the same dimensions (so nothing but
   * the record tells); its PNG is 2 bytes longer. */
  copy_file (dir, "images/a.png", "a.png.orig");
  copy_file (dir, "images/c.png", "images/a.png");
  g_assert_cmpuint (file_size (dir, "images/c.png"), !=, instance->image_record->bytes);
  {
    g_autofree char *message = g_strdup_printf ("the file has %" G_GSIZE_FORMAT " bytes, the manifest "
                                                "recorded %" G_GUINT64_FORMAT ": it changed after the "
                                                "manifest was written", file_size (dir, "images/c.png"),
                                                instance->image_record->bytes);
    assert_one_problem (dir, "/images/a.png", "$.instances[0].image_bytes", message);
  }
  /* Loading for viewing does not hash: it still loads. */
  {
    g_autoptr(HsDataset) again = hs_dataset_load (dir, &error);
    g_assert_no_error (error);
    g_assert_nonnull (again);
  }
  /* Saving again keeps the record: it says what the file was. */
  g_assert_true (hs_dataset_save (dataset, &error));
  g_assert_no_error (error);
  assert_one_problem (dir, "/images/a.png", "$.instances[0].image_bytes", "changed after");
  copy_file (dir, "a.png.orig", "images/a.png");
  g_assert_true (hs_dataset_validate (dir, NULL));

  /* A mask of another size: the size tells, before any hashing. */
  copy_file (dir, "masks/a-lesion.png", "mask.orig");
  copy_file (dir, "images/b.png", "masks/a-lesion.png");
  {
    g_autofree char *message = g_strdup_printf ("the file has %" G_GSIZE_FORMAT " bytes, the manifest "
                                                "recorded %" G_GSIZE_FORMAT,
                                                file_size (dir, "images/b.png"), file_size (dir, "mask.orig"));
    g_autoptr(GPtrArray) problems = NULL;

    g_assert_false (hs_dataset_validate (dir, &problems));
    /* The mask no longer matches its extent either (64 × 48 now). */
    g_assert_cmpuint (problems->len, >=, 1);
    g_assert_cmpstr (((HsProblem *) problems->pdata[0])->json_path, ==,
                     "$.instances[0].regions[\"nodule 1\"].mask_bytes");
    g_assert_nonnull (strstr (((HsProblem *) problems->pdata[0])->message, message));
  }
  copy_file (dir, "mask.orig", "masks/a-lesion.png");

  /* A map rewritten with other values of the same shape: same size, so
   * only the hash tells. */
  copy_file (dir, "maps/b_g_s0.npy", "map.orig");
  {
    const gsize shape[] = { 6, 8 };
    double values[48];
    g_autofree char *path = g_build_filename (dir, "maps/b_g_s0.npy", NULL);
    g_autofree char *message = NULL;
    g_autofree char *old_sha = file_sha256 (dir, "map.orig");
    g_autofree char *new_sha = NULL;

    for (guint i = 0; i < 48; i++)
      values[i] = 1.0 - i / 48.0;
    g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT32, 2, shape, values, FALSE, FALSE, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (file_size (dir, "maps/b_g_s0.npy"), ==, file_size (dir, "map.orig"));
    new_sha = file_sha256 (dir, "maps/b_g_s0.npy");
    message = g_strdup_printf ("the file's SHA-256 is %s, the manifest recorded %s: it changed after "
                               "the manifest was written", new_sha, old_sha);
    assert_one_problem (dir, "/maps/b_g_s0.npy", "$.instances[1].maps[0].file_sha256", message);
  }
  copy_file (dir, "map.orig", "maps/b_g_s0.npy");
  g_assert_true (hs_dataset_validate (dir, NULL));
}

/* Records are checked like the rest of the schema. */
static void
test_recorded_files_bad (void)
{
  static const struct {
    const char *members;
    const char *json_path;
    const char *message;
  } cases[] = {
    { "\"image_bytes\": 10", "$.instances[0]", "\"image_bytes\" and \"image_sha256\" go together" },
    { "\"image_bytes\": -1, \"image_sha256\": \"" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" "\"",
      "$.instances[0].image_bytes", "a file size of -1 bytes is negative" },
    { "\"image_bytes\": 1.5, \"image_sha256\": \"" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" "\"",
      "$.instances[0].image_bytes", "expected an integer, found a number" },
    { "\"image_bytes\": 10, \"image_sha256\": \"" "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef" "\"",
      "$.instances[0].image_sha256", "is not a SHA-256 (64 lowercase hex digits)" },
    { "\"image_bytes\": 10, \"image_sha256\": \"abc\"",
      "$.instances[0].image_sha256", "is not a SHA-256" },
    { "\"image_bytes\": 10, \"image_sha256\": 5",
      "$.instances[0].image_sha256", "expected a string, found a number" },
    { "\"regions\": {\"r\": {\"boxes\": [[0, 0, 1, 1]], \"mask_bytes\": 1, \"mask_sha256\": \""
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}",
      "$.instances[0].regions.r", "describe a mask, but the region has none" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = hs_test_make_tmpdir ();
      g_autofree char *text = g_strdup_printf ("{\"format\": \"heatscope-dataset\", \"version\": 1, "
                                               "\"instances\": [{\"id\": \"a\", \"image\": \"a.png\", %s}]}",
                                               cases[i].members);
      g_autoptr(GError) error = NULL;
      g_autoptr(HsDataset) dataset = NULL;
      g_autofree char *expected = NULL;

      hs_test_write_file (dir, "heatscope.json", text);
      dataset = hs_dataset_load (dir, &error);
      g_assert_null (dataset);
      expected = g_strdup_printf ("%s/heatscope.json: %s: ", dir, cases[i].json_path);
      if (!g_str_has_prefix (error->message, expected) || strstr (error->message, cases[i].message) == NULL)
        g_error ("case %u: %s", i, error->message);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/dataset-validate/valid", test_valid);
  g_test_add_func ("/hs/dataset-validate/every-problem", test_every_problem);
  g_test_add_func ("/hs/dataset-validate/unreadable-manifest", test_unreadable_manifest);
  g_test_add_func ("/hs/dataset-validate/loader-is-lazy", test_loader_is_lazy);
  g_test_add_func ("/hs/dataset-validate/load-files", test_load_files);
  g_test_add_func ("/hs/dataset-validate/colour-mask", test_colour_mask);
  g_test_add_func ("/hs/dataset-validate/extent-right", test_extent_right);
  g_test_add_func ("/hs/dataset-validate/extent-wrong", test_extent_wrong);
  g_test_add_func ("/hs/dataset-validate/extent-spares-mask", test_extent_spares_mask);
  g_test_add_func ("/hs/dataset-validate/extent-from-bytes", test_extent_from_bytes);
  g_test_add_func ("/hs/dataset-validate/extent-bad", test_extent_bad);
  g_test_add_func ("/hs/dataset-validate/recorded-files", test_recorded_files);
  g_test_add_func ("/hs/dataset-validate/recorded-files-bad", test_recorded_files_bad);
  return g_test_run ();
}
