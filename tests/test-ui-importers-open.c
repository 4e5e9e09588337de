/* test-ui-importers-open.c — every importer's output opened in the main window and drawn.
 *
 * Each importer of docs/importers.md runs through `heatscope-cli import` on real data from
 * ../shared/data where the set is there (covid-seg, coco, yolo, nih-bbox) and on a small fixture
 * written in the published format around a real radiograph otherwise (ms-cxr, chexlocalize,
 * imagenome; npy-folder adds a map to the yolo output).  The window opens the result, shows the
 * named instance and query with its targets, and the canvas is compared with a golden image
 * (looked at when written): the radiograph, the target boxes and mask outlines with their names
 * and, for npy-folder, the heatmap. */
#include "hs-ui-fixture.h"

#include "hs-canvas.h"
#include "hs-view-state.h"
#include "hs-window.h"

static char *tmp_root;

/* heatscope-cli import FORMAT SOURCES... -o OUT; returns OUT. */
static char *
import (const char *format, const char * const *sources, const char * const *extra)
{
  char *out = g_build_filename (tmp_root, format, NULL);
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autofree char *stdout_text = NULL, *stderr_text = NULL;

  g_ptr_array_add (args, (gpointer) format);
  for (guint i = 0; sources[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) sources[i]);
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) extra[i]);
  g_ptr_array_add (args, (gpointer) "-o");
  g_ptr_array_add (args, out);
  g_ptr_array_add (args, NULL);
  if (hs_test_run_cli ("import", (const char * const *) args->pdata, &stdout_text, &stderr_text) != 0)
    g_error ("import %s failed: %s", format, stderr_text);
  return out;
}

/* Opens DATASET, shows INSTANCE and QUERY (and MODEL when given), checks that the canvas has the
 * query's targets, and compares the canvas with tests/golden/ui-import-<name>.png. */
static void
open_and_draw (const char *dataset, const char *instance, const char *query, const char *model,
               guint n_targets, const char *name)
{
  g_autoptr(GFile) file = g_file_new_for_path (dataset);
  g_autoptr(GdkTexture) shot = NULL;
  g_autofree char *golden = g_strdup_printf ("ui-import-%s", name);
  HsWindow *window;
  HsCanvas *canvas;
  HsSentence *sentence;

  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_nonnull (hs_window_get_dataset (window));
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);
  g_assert_true (hs_window_select_instance (window, instance));
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  if (model != NULL)
    g_assert_true (hs_window_select_model (window, model));
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), query));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  hs_ui_settle ();

  sentence = hs_instance_find_sentence (hs_window_get_instance (window), query);
  g_assert_nonnull (sentence);
  g_assert_cmpuint (g_strv_length (sentence->targets), ==, n_targets);
  canvas = HS_CANVAS (hs_window_get_canvas (window));
  g_assert_nonnull (hs_canvas_get_image (canvas));
  if (model != NULL)
    g_assert_nonnull (hs_canvas_get_map (canvas));
  /* The picture is the import's: radiograph, targets and (npy-folder) the imported map.  Without
   * a map of the dataset's own the heatmap, colour bar and caption show whatever model the window
   * picked (a live built-in one today), which is not what this test is about. */
  if (model == NULL)
    g_object_set (hs_canvas_get_view_state (canvas), "opacity", 0.0, NULL);
  hs_canvas_set_show_color_bar (canvas, FALSE);
  hs_canvas_set_caption (canvas, NULL);
  hs_ui_settle ();
  shot = hs_ui_render (GTK_WIDGET (canvas));
  hs_ui_assert_golden (shot, golden, 0.02);
  hs_ui_destroy_window (window);
}

static void
test_covid_seg (void)
{
  g_autofree char *source = hs_test_shared_path ("cxr-covid-seg");
  g_autofree char *links = g_build_filename (tmp_root, "links.csv", NULL);
  g_autofree char *out = NULL;
  const char *sources[] = { source, NULL };
  const char *extra[] = { "--links", links, NULL };

  if (hs_ui_skip_without_display () || source == NULL)
    return;
  /* The first image of structure.csv; its note's first sentence linked to both lungs. */
  g_assert_true (g_file_set_contents (links, "image,sentence,target\n"
                                              "X-ray_of_cyst_in_pneumocystis_pneumonia_1.jpg,1,Right Lung\n"
                                              "X-ray_of_cyst_in_pneumocystis_pneumonia_1.jpg,1,Left Lung\n",
                                      -1, NULL));
  out = import ("covid-seg", sources, extra);
  open_and_draw (out, "X-ray_of_cyst_in_pneumocystis_pneumonia_1", "s1", NULL, 2, "covid-seg");
}

static void
test_coco (void)
{
  g_autofree char *json = hs_test_shared_path ("cxr-lung-boxes/annotations.json");
  g_autofree char *out = NULL;
  const char *sources[] = { json, NULL };

  if (hs_ui_skip_without_display () || json == NULL)
    return;
  out = import ("coco", sources, NULL);
  open_and_draw (out, "2168a917", "class:Left Lung", NULL, 1, "coco");
}

static void
test_yolo_and_npy_folder (void)
{
  g_autofree char *source = hs_test_shared_path ("mri-brain-tumor/0");
  g_autofree char *classes = g_build_filename (tmp_root, "classes.txt", NULL);
  g_autofree char *maps = g_build_filename (tmp_root, "maps", NULL);
  g_autofree char *map = g_build_filename (maps, "1001__cam__class_pituitary.npy", NULL);
  g_autofree char *out = NULL, *again = NULL;
  const char *sources[] = { source, classes, NULL };
  g_autoptr(GError) error = NULL;
  double values[16 * 16];
  gsize shape[2] = { 16, 16 };

  if (hs_ui_skip_without_display () || source == NULL)
    return;
  g_assert_true (g_file_set_contents (classes, "pituitary\nmeningioma\nglioma\n", -1, NULL));
  out = import ("yolo", sources, NULL);
  open_and_draw (out, "1001", "class:pituitary", NULL, 1, "yolo");

  /* npy-folder: a map for that instance and query, attached to the dataset just imported. */
  hs_ui_gauss (values, 8.5, 9.5, 2.0);
  g_assert_cmpint (g_mkdir_with_parents (maps, 0755), ==, 0);
  g_assert_true (hs_npy_write (map, HS_DTYPE_FLOAT64, 2, shape, values, FALSE, FALSE, &error));
  g_assert_no_error (error);
  {
    const char *args[] = { "npy-folder", maps, "-o", out, NULL };
    g_autofree char *o = NULL, *e = NULL;

    if (hs_test_run_cli ("import", args, &o, &e) != 0)
      g_error ("import npy-folder failed: %s", e);
  }
  open_and_draw (out, "1001", "class:pituitary", "cam", 1, "npy-folder");
}

/* The NIH images in ../shared/data are not among the boxed ones (SOURCE.md), so the CSV holds two
 * rows of BBox_List_2017.csv's format (boxes in the original 1024² pixels) for one that is there,
 * a 512² copy: the boxes come out halved. */
static void
test_nih_bbox (void)
{
  g_autofree char *images = hs_test_shared_path ("nih-boxes/images");
  g_autofree char *csv = g_build_filename (tmp_root, "BBox_List_2017.csv", NULL);
  g_autofree char *out = NULL;
  const char *sources[] = { csv, images, NULL };

  if (hs_ui_skip_without_display () || images == NULL)
    return;
  g_assert_true (g_file_set_contents (csv,
    "Image Index,Finding Label,Bbox [x,y,w,h],,,\n"
    "00000001_000.png,Atelectasis,225.0847458,547.0192168,86.77966102,79.18644068\n"
    "00000001_000.png,Cardiomegaly,352.0,480.0,410.0,260.0\n", -1, NULL));
  out = import ("nih-bbox", sources, NULL);
  open_and_draw (out, "00000001_000", "class:Cardiomegaly", NULL, 1, "nih-bbox");
}

/* A real radiograph as the fixture sets' image: the 512² NIH PNG re-encoded as JPEG by OpenCV
 * (the ms-cxr, chexlocalize and imagenome sources name .jpg files). */
static void
write_jpeg (const char *png, const char *jpg)
{
  g_autofree char *parent = g_path_get_dirname (jpg);
  const char *args[] = { png, jpg, NULL };
  g_autofree char *out = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  out = hs_test_python ("import sys, cv2\n"
                        "cv2.imwrite(sys.argv[2], cv2.imread(sys.argv[1], cv2.IMREAD_GRAYSCALE))\n", args);
  g_assert_true (g_file_test (jpg, G_FILE_TEST_EXISTS));
}

static void
test_fixture_formats (void)
{
  g_autofree char *png = hs_test_shared_path ("nih-boxes/images/00000001_000.png");
  g_autofree char *dir = NULL;

  if (hs_ui_skip_without_display () || png == NULL)
    return;
  dir = g_build_filename (tmp_root, "fixtures", NULL);

  /* MS-CXR: two boxes of one phrase, in 1024² DICOM pixels (the JPEG is 512²: scaled by ½). */
  {
    g_autofree char *jpg = g_build_filename (dir, "mscxr", "files", "a.jpg", NULL);
    g_autofree char *csv = g_build_filename (dir, "mscxr", "MS_CXR_Local_Alignment_v1.0.0.csv", NULL);
    g_autofree char *out = NULL;
    const char *sources[] = { csv, NULL };

    write_jpeg (png, jpg);
    g_assert_true (g_file_set_contents (csv,
      "dicom_id,category_name,label_text,path,x,y,w,h,image_width,image_height\n"
      "a,Pneumonia,Left lower lobe opacity,files/a.jpg,600,520,240,220,1024,1024\n"
      "a,Pneumonia,Left lower lobe opacity,files/a.jpg,640,300,160,160,1024,1024\n", -1, NULL));
    out = import ("ms-cxr", sources, NULL);
    open_and_draw (out, "a", "p1", NULL, 1, "ms-cxr");
  }
  /* CheXlocalize: a polygon per pathology in img_size pixels (= the image's). */
  {
    g_autofree char *jpg = g_build_filename (dir, "chexloc", "patient1_study1_view1_frontal.jpg", NULL);
    g_autofree char *json = g_build_filename (dir, "chexloc", "gt_annotations_val.json", NULL);
    g_autofree char *out = NULL;
    const char *sources[] = { json, NULL };

    write_jpeg (png, jpg);
    g_assert_true (g_file_set_contents (json,
      "{\"patient1_study1_view1_frontal\": {\"img_size\": [512, 512],"
      " \"Lung Lesion\": [[[300, 120], [380, 110], [400, 200], [330, 230], [290, 180]]],"
      " \"Edema\": []}}", -1, NULL));
    out = import ("chexlocalize", sources, NULL);
    open_and_draw (out, "patient1_study1_view1_frontal", "class:Lung Lesion", NULL, 1, "chexlocalize");
  }
  /* Chest ImaGenome gold TSV: one sentence on two anatomical boxes. */
  {
    g_autofree char *jpg = g_build_filename (dir, "genome", "img1.jpg", NULL);
    g_autofree char *tsv = g_build_filename (dir, "genome", "gold_object_attribute_with_coordinates.txt", NULL);
    g_autofree char *out = NULL;
    const char *sources[] = { tsv, NULL };

    write_jpeg (png, jpg);
    g_assert_true (g_file_set_contents (tsv,
      "study_id\timage_id\trow_id\tsentence\tbbox\trelation\tlabel_name\tcategoryID\tcontext\tcoord224\tcoord_original\n"
      "s1\timg1\timg1|5\tLeft lower lobe opacity.\tleft lower lung zone\t\tlung opacity\tanatomicalfinding\tyes\t[1, 2, 3, 4]\t[270, 300, 450, 430]\n"
      "s1\timg1\timg1|5\tLeft lower lobe opacity.\tleft lung\t\tlung opacity\tanatomicalfinding\tyes\t[1, 2, 3, 4]\t[265, 60, 470, 440]\n",
      -1, NULL));
    out = import ("imagenome", sources, NULL);
    open_and_draw (out, "img1", "s1", NULL, 2, "imagenome");
  }
}

int
main (int argc, char **argv)
{
  int status;

  hs_ui_init (&argc, &argv);
  tmp_root = hs_test_make_tmpdir ();
  g_test_add_func ("/hs/ui-importers-open/covid-seg", test_covid_seg);
  g_test_add_func ("/hs/ui-importers-open/coco", test_coco);
  g_test_add_func ("/hs/ui-importers-open/yolo-and-npy-folder", test_yolo_and_npy_folder);
  g_test_add_func ("/hs/ui-importers-open/nih-bbox", test_nih_bbox);
  g_test_add_func ("/hs/ui-importers-open/ms-cxr-chexlocalize-imagenome", test_fixture_formats);
  status = g_test_run ();
  g_free (tmp_root);
  return status;
}
