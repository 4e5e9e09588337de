/* test-import-chestx-det.c — ChestX-Det JSON: the real annotation file of
 * ../shared/data/nih-boxes/chestx-det against stand-in images for three of
 * its entries (the images themselves are not obtainable here). */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"

static void
run (const char *json_name, gboolean polygons)
{
  g_autofree char *json = hs_test_shared_path (json_name);
  g_autofree char *images = hs_test_make_tmpdir ();
  g_autofree char *out = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsImportSummary summary = { 0 };
  const char *sources[] = { json, images, NULL };
  HsInstance *effusion, *three, *normal;

  if (json == NULL)
    return;
  {
    g_autofree char *tmp = hs_test_make_tmpdir ();
    out = g_build_filename (tmp, "det", NULL);
  }
  hs_test_write_png (images, "36199.png", 1024, 1024);
  hs_test_write_png (images, "36302.png", 1024, 1024);
  hs_test_write_png (images, "36346.png", 1024, 1024);
  dataset = hs_import ("chestx-det", sources, out, NULL, &summary, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_dataset_get_n_instances (dataset), ==, 3);
  /* every other entry is reported: its image is absent */
  for (guint i = 0; i < summary.skipped->len; i++)
    g_assert_nonnull (strstr (((HsImportSkip *) g_ptr_array_index (summary.skipped, i))->reason, "not found"));

  normal = hs_dataset_find_instance (dataset, "36199");
  g_assert_false (normal->abnormal);
  g_assert_cmpuint (normal->regions->len, ==, 0);

  /* {"file_name": "36302.png", "syms": ["Effusion"], "boxes": [[799, 666, 937, 761]], ...} */
  effusion = hs_dataset_find_instance (dataset, "36302");
  g_assert_true (effusion->abnormal);
  hs_test_assert_box (hs_instance_find_region (effusion, "Effusion"), 0, 799, 666, 937, 761);
  if (polygons)
    {
      HsRegion *region = hs_instance_find_region (effusion, "Effusion");
      g_autoptr(HsImage) mask = NULL;
      guint64 n = 0;
      guint x_min = G_MAXUINT, y_min = G_MAXUINT, x_max = 0, y_max = 0;

      g_assert_nonnull (region->mask);
      mask = hs_dataset_load_mask (dataset, region, &error);
      g_assert_no_error (error);
      for (guint y = 0; y < 1024; y++)
        for (guint x = 0; x < 1024; x++)
          if (hs_image_get_grey (mask, x, y) != 0)
            {
              n++;
              x_min = MIN (x_min, x); x_max = MAX (x_max, x);
              y_min = MIN (y_min, y); y_max = MAX (y_max, y);
            }
      /* the polygon lies within its box */
      g_assert_cmpuint (n, >, 1000);
      g_assert_cmpuint (x_min, >=, 799);
      g_assert_cmpuint (x_max, <, 937);
      g_assert_cmpuint (y_min, >=, 666);
      g_assert_cmpuint (y_max, <, 761);
    }
  else
    g_assert_null (hs_instance_find_region (effusion, "Effusion")->mask);

  /* {"file_name": "36346.png", "syms": ["Effusion", "Fibrosis", "Consolidation"],
   *  "boxes": [[90, 668, 217, 788], [699, 307, 774, 417], [133, 411, 329, 683]]} */
  three = hs_dataset_find_instance (dataset, "36346");
  hs_test_assert_box (hs_instance_find_region (three, "Effusion"), 0, 90, 668, 217, 788);
  hs_test_assert_box (hs_instance_find_region (three, "Fibrosis"), 0, 699, 307, 774, 417);
  hs_test_assert_box (hs_instance_find_region (three, "Consolidation"), 0, 133, 411, 329, 683);
  g_assert_nonnull (hs_instance_find_sentence (three, "class:Fibrosis"));
  hs_import_summary_clear (&summary);
}

static void
test_det (void)
{
  run ("nih-boxes/chestx-det/ChestX_Det_test.json", TRUE);
}

static void
test_det10 (void)
{
  run ("nih-boxes/chestx-det/ChestX_Det10_test.json", FALSE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/import-chestx-det/real-json-polygons", test_det);
  g_test_add_func ("/hs/import-chestx-det/real-json-det10", test_det10);
  return g_test_run ();
}
