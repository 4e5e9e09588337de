/* test-ui-layers.c — every region of an instance on screen, and linking sentences to regions
 *
 * The real covid-seg set (../shared/data/cxr-covid-seg) is imported with `heatscope-cli import`
 * (its sentences come without targets), a precomputed map of the built-in model is attached to
 * two sentences of one instance (`attend` + `import npy-folder`), and the dataset is opened in the
 * main window.  Then, through the window's actions (win.link-target, win.undo) and the layers
 * panel's own ticks:
 *   - the layers panel lists the instance's five regions and the canvas draws all of them
 *     (golden image of the canvas with its key, and of the panel); nothing runs through the
 *     layers' key or the colour bar, fitted or at 1:1, in the window rendered as the README's
 *     screenshot is (data/screenshots/layers-covid-seg.png, tools/screenshots);
 *   - a sentence without targets has undefined metrics; linking two regions writes the manifest
 *     (read back from disk) and the metrics become defined at once, and they equal
 *     `heatscope-cli metrics` on the saved dataset, metric by metric;
 *   - undo restores the previous targets in memory and on disk, one step at a time;
 *   - a region hidden in the panel leaves the canvas but stays a target;
 *   - a box drawn on the canvas ("box-drawn", as a Shift+drag ends) and named in the dialog
 *     becomes a new region and a target, on disk, with metrics equal to the CLI's; undo
 *     removes it again;
 *   - files replaced on disk while their decoded content sits in the window's caches (the image,
 *     a map, a mask: another `attend --force`, `import npy-folder`, a mask exported again) are
 *     shown as they are now when the instance is opened again, never as they were. */
#include "hs-ui-fixture.h"

#include <json-glib/json-glib.h>

#include <heatscope/hs-lru-cache.h>

#include "hs-canvas.h"
#include "hs-layers-panel.h"
#include "hs-metrics-panel.h"
#include "hs-view-state.h"
#include "hs-window.h"
#include "hs-window-private.h"   /* the caches and the layers' masks */
#include "hs-dataset-private.h"  /* hs_dataset_test_after_open */

#define INSTANCE "X-ray_of_cyst_in_pneumocystis_pneumonia_1"

static char *tmp_root;
static char *dataset;

static void
run_cli (const char *command, const char * const *args)
{
  g_autofree char *out = NULL, *err = NULL;

  if (hs_test_run_cli (command, args, &out, &err) != 0)
    g_error ("heatscope-cli %s failed: %s", command, err);
}

/* Imports covid-seg and attaches grounded maps of s1 and s3 of INSTANCE. */
static gboolean
make_dataset (void)
{
  g_autofree char *source = hs_test_shared_path ("cxr-covid-seg");
  g_autofree char *maps = NULL;
  g_autoptr(HsDataset) ds = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *instance;

  if (source == NULL)
    return FALSE;
  tmp_root = hs_test_make_tmpdir ();
  dataset = g_build_filename (tmp_root, "covid-seg", NULL);
  maps = g_build_filename (tmp_root, "maps", NULL);
  {
    const char *args[] = { "covid-seg", source, "-o", dataset, NULL };
    run_cli ("import", args);
  }
  ds = hs_dataset_load (dataset, &error);
  g_assert_no_error (error);
  instance = hs_dataset_find_instance (ds, INSTANCE);
  g_assert_nonnull (instance);
  g_assert_cmpuint (instance->regions->len, ==, 5);
  g_assert_cmpuint (g_mkdir_with_parents (maps, 0755), ==, 0);
  for (guint i = 0; i < instance->sentences->len; i++)
    {
      HsSentence *s = g_ptr_array_index (instance->sentences, i);
      g_autofree char *image = g_build_filename (dataset, instance->image, NULL);
      g_autofree char *name = g_strdup_printf ("%s__grounded__%s.npy", INSTANCE, s->id);
      g_autofree char *out = g_build_filename (maps, name, NULL);
      const char *args[] = { "-m", "grounded", "-i", image, "-p", s->text, "-o", out, NULL };

      /* the importer gives no targets: that is what the app is for */
      g_assert_cmpuint (g_strv_length (s->targets), ==, 0);
      if (g_strcmp0 (s->id, "s2") != 0)
        run_cli ("attend", args);
    }
  {
    const char *args[] = { "npy-folder", maps, "-o", dataset, NULL };
    run_cli ("import", args);
  }
  return TRUE;
}

/* The targets of INSTANCE/`sentence` as the manifest on disk has them, joined with "|". */
static char *
targets_on_disk (const char *sentence)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) ds = hs_dataset_load (dataset, &error);
  HsSentence *s;

  g_assert_no_error (error);
  s = hs_instance_find_sentence (hs_dataset_find_instance (ds, INSTANCE), sentence);
  g_assert_nonnull (s);
  return g_strjoinv ("|", s->targets);
}

static char *
targets_in_memory (HsWindow *window, const char *sentence)
{
  return g_strjoinv ("|", hs_instance_find_sentence (hs_window_get_instance (window), sentence)->targets);
}

static gboolean
metrics_idle (gpointer panel)
{
  return !hs_metrics_panel_get_busy (panel);
}

static void
link_region (HsWindow *window, const char *region, gboolean linked)
{
  g_action_group_activate_action (G_ACTION_GROUP (window), "link-target",
                                  g_variant_new ("(sb)", region, linked));
}

/* The metrics panel's "model" column against `heatscope-cli metrics` of the saved dataset
 * (jsonl; null = undefined): the same value to the panel's three decimals, n/a where null. */
static void
assert_metrics_match_cli (HsMetricsPanel *panel, const char *sentence, guint *n_defined)
{
  const char *args[] = { dataset, "-m", "grounded", "-f", "jsonl", "-j", "1", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  JsonObject *row = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  guint n_metrics;
  const HsMetric *metrics = hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n_metrics);

  g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, &err), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL && row == NULL; i++)
    {
      JsonObject *o;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      o = json_node_get_object (json_parser_get_root (parser));
      if (g_strcmp0 (json_object_get_string_member (o, "instance"), INSTANCE) == 0 &&
          g_strcmp0 (json_object_get_string_member (o, "query"), sentence) == 0)
        row = json_object_ref (o);
    }
  g_assert_nonnull (row);
  *n_defined = 0;
  for (guint m = 0; m < n_metrics; m++)
    {
      const char *key = hs_metric_names[metrics[m]];
      const char *text = NULL;
      JsonNode *node;

      g_assert_true (hs_metrics_panel_get_cell (panel, key, "model", &text, NULL));
      g_assert_true (json_object_has_member (row, key));
      node = json_object_get_member (row, key);
      if (JSON_NODE_HOLDS_NULL (node))
        g_assert_cmpstr (text, ==, "n/a");
      else
        {
          double cli = json_node_get_double (node), app = g_ascii_strtod (text, NULL);

          g_test_message ("%s: app %s, cli %.6f", key, text, cli);
          g_assert_cmpstr (text, !=, "n/a");
          g_assert_cmpfloat_with_epsilon (app, cli, 0.0005 + 1e-9);
          (*n_defined)++;
        }
    }
  json_object_unref (row);
}

static GdkTexture *
render_canvas (HsWindow *window)
{
  HsCanvas *canvas = HS_CANVAS (hs_window_get_canvas (window));

  /* the picture is the layers', not the caption's */
  hs_canvas_set_caption (canvas, NULL);
  hs_ui_settle ();
  return hs_ui_render (GTK_WIDGET (canvas));
}

/* The margin of a key's panel (its `pad`, between the panel's edge and the
 * entries or the colour bar) at (x, y, w, h) of the canvas, in `shot`, a
 * rendering of the whole window as the README's screenshot is made: every
 * pixel the panel's own grey.  A layer's outline or box edge through the key,
 * or a seam between the canvas's tiles, crosses the margin. */
static void
assert_panel_margin_clean (GdkTexture *shot, HsWindow *window, double x, double y, double w, double h,
                           double pad, const char *what)
{
  int tw = gdk_texture_get_width (shot), th = gdk_texture_get_height (shot);
  g_autofree guchar *pixels = hs_ui_download (shot);
  graphene_point_t p;
  int x0, y0, x1, y1, ix0, iy0, ix1, iy1;
  const guchar *ref;
  guint n_margin = 0;

  g_assert_true (gtk_widget_compute_point (hs_window_get_canvas (window), GTK_WIDGET (window),
                                           &GRAPHENE_POINT_INIT (x, y), &p));
  /* whole pixels inside the panel's edge, and outside what the ink may touch */
  x0 = (int) ceil (p.x) + 1;
  y0 = (int) ceil (p.y) + 1;
  x1 = (int) floor (p.x + w) - 2;
  y1 = (int) floor (p.y + h) - 2;
  ix0 = (int) floor (p.x + pad) - 2;
  iy0 = (int) floor (p.y + pad) - 2;
  ix1 = (int) ceil (p.x + w - pad) + 1;
  iy1 = (int) ceil (p.y + h - pad) + 1;
  g_assert_cmpint (x0, >=, 0);
  g_assert_cmpint (y0, >=, 0);
  g_assert_cmpint (x1, <, tw);
  g_assert_cmpint (y1, <, th);
  g_assert_cmpint (ix0, >=, x0);
  g_assert_cmpint (iy0, >=, y0);
  ref = pixels + 4 * ((gsize) y0 * tw + x0);
  for (int yy = y0; yy <= y1; yy++)
    for (int xx = x0; xx <= x1; xx++)
      {
        const guchar *px = pixels + 4 * ((gsize) yy * tw + xx);

        if (xx > ix0 && xx < ix1 && yy > iy0 && yy < iy1)
          continue;
        n_margin++;
        for (int c = 0; c < 4; c++)
          if (abs ((int) px[c] - (int) ref[c]) > 1)
            g_error ("%s: pixel (%d, %d) of its panel's margin is %u,%u,%u,%u (BGRA), not the panel's "
                     "%u,%u,%u,%u: something is drawn through the key", what, xx, yy, px[0], px[1], px[2],
                     px[3], ref[0], ref[1], ref[2], ref[3]);
      }
  /* the panel's grey, opaque */
  g_assert_cmpint (ref[3], ==, 255);
  g_assert_cmpint (abs ((int) ref[0] - 222), <=, 2);
  g_assert_cmpuint (n_margin, >, 100);
}

static void
assert_keys_clean_now (HsWindow *window)
{
  HsCanvas *canvas = HS_CANVAS (hs_window_get_canvas (window));
  g_autoptr(GdkTexture) shot = hs_ui_render (GTK_WIDGET (window));
  double x, y, w, h;

  g_assert_true (hs_canvas_get_region_key_area (canvas, &x, &y, &w, &h));
  assert_panel_margin_clean (shot, window, x, y, w, h, 6, "the layers' key");
  g_assert_true (hs_canvas_get_color_bar_area (canvas, &x, &y, &w, &h));
  assert_panel_margin_clean (shot, window, x, y, w, h, 8, "the colour bar");
}

/* Both keys clean as the image is fitted (the screenshot: beside and below
 * it) and at 1:1, where the film and its layers' outlines run under both
 * panels. */
static void
assert_keys_clean (HsWindow *window)
{
  GtkWidget *canvas = hs_window_get_canvas (window);

  assert_keys_clean_now (window);
  g_assert_true (gtk_widget_activate_action (canvas, "canvas.zoom-1", NULL));
  g_assert_cmpfloat (hs_canvas_get_zoom (HS_CANVAS (canvas)), ==, 1.0);
  assert_keys_clean_now (window);
  g_assert_true (gtk_widget_activate_action (canvas, "canvas.zoom-fit", NULL));
}

static void
test_link_and_undo (void)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GdkTexture) shot = NULL;
  g_autofree char *disk = NULL, *mem = NULL;
  HsWindow *window;
  HsLayersPanel *layers;
  HsMetricsPanel *metrics;
  const char *text = NULL;
  guint n_defined = 0;
  GtkStack *side;

  if (hs_ui_skip_without_display ())
    return;
  if (dataset == NULL)
    {
      g_test_skip ("../shared/data/cxr-covid-seg is not there");
      return;
    }
  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  file = g_file_new_for_path (dataset);
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_true (hs_window_select_instance (window, INSTANCE));
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_true (hs_window_select_model (window, "grounded"));
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), "s1"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);
  /* The Metrics tab shown: it scores only while it is (hs-window.c). */
  side = GTK_STACK (g_object_get_data (G_OBJECT (window), "hs-side-stack"));
  gtk_stack_set_visible_child_name (side, "metrics");

  layers = HS_LAYERS_PANEL (hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_LAYERS_PANEL));
  metrics = HS_METRICS_PANEL (hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_METRICS_PANEL));
  g_assert_nonnull (layers);
  g_assert_nonnull (metrics);
  g_assert_cmpuint (hs_layers_panel_get_n_regions (layers), ==, 5);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "undo"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "link-target"));

  /* No targets: the metrics that need them are undefined. */
  hs_ui_wait_until (metrics_idle, metrics);
  g_assert_true (hs_metrics_panel_get_cell (metrics, "auroc", "model", &text, NULL));
  g_assert_cmpstr (text, ==, "n/a");

  /* Link both lungs through the window's action: on disk at once, metrics defined at once. */
  link_region (window, "Right Lung", TRUE);
  link_region (window, "Left Lung", TRUE);
  link_region (window, "Left Lung", TRUE);          /* already linked: no change, no undo step */
  mem = targets_in_memory (window, "s1");
  disk = targets_on_disk ("s1");
  g_assert_cmpstr (mem, ==, "Right Lung|Left Lung");
  g_assert_cmpstr (disk, ==, "Right Lung|Left Lung");
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "undo"));
  hs_ui_wait_until (metrics_idle, metrics);
  assert_metrics_match_cli (metrics, "s1", &n_defined);
  g_assert_cmpuint (n_defined, >=, 10);
  g_assert_true (hs_metrics_panel_get_cell (metrics, "auroc", "model", &text, NULL));
  g_assert_cmpstr (text, !=, "n/a");

  /* The layers view: all five regions, the two targets bold, the key; and the panel. */
  gtk_stack_set_visible_child_name (side, "layers");
  hs_ui_settle ();
  shot = render_canvas (window);
  hs_ui_assert_golden (shot, "ui-layers-canvas", 0.02);
  g_clear_object (&shot);
  shot = hs_ui_render (GTK_WIDGET (layers));
  hs_ui_assert_golden (shot, "ui-layers-panel", 0.03);
  g_clear_object (&shot);
  hs_ui_save_screenshot (GTK_WIDGET (window), "layers-covid-seg");
  assert_keys_clean (window);

  /* The panel's own tick goes through the same action. */
  gtk_check_button_set_active (GTK_CHECK_BUTTON (hs_layers_panel_get_target_button (layers, "Airways")),
                               TRUE);
  g_free (disk);
  disk = targets_on_disk ("s1");
  g_assert_cmpstr (disk, ==, "Right Lung|Left Lung|Airways");

  /* Hiding a region takes it off the canvas, not off the targets. */
  hs_layers_panel_set_region_visible (layers, "Airways", FALSE);
  g_free (mem);
  mem = targets_in_memory (window, "s1");
  g_assert_cmpstr (mem, ==, "Right Lung|Left Lung|Airways");
  hs_layers_panel_set_region_visible (layers, "Airways", TRUE);

  /* Undo, one step at a time, in memory and on disk. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
  g_free (disk);
  disk = targets_on_disk ("s1");
  g_assert_cmpstr (disk, ==, "Right Lung|Left Lung");
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (hs_layers_panel_get_target_button (layers, "Airways"))));
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
  g_free (disk);
  g_free (mem);
  disk = targets_on_disk ("s1");
  mem = targets_in_memory (window, "s1");
  g_assert_cmpstr (disk, ==, "");
  g_assert_cmpstr (mem, ==, "");
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "undo"));
  /* Back on the Metrics tab, it catches up with the undone links. */
  gtk_stack_set_visible_child_name (side, "metrics");
  hs_ui_wait_until (metrics_idle, metrics);
  g_assert_true (hs_metrics_panel_get_cell (metrics, "auroc", "model", &text, NULL));
  g_assert_cmpstr (text, ==, "n/a");

  /* A second sentence, linked and left linked: its metrics agree with the CLI too. */
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), "s3"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  link_region (window, "Left Lung", TRUE);
  hs_ui_wait_until (metrics_idle, metrics);
  assert_metrics_match_cli (metrics, "s3", &n_defined);
  g_assert_cmpuint (n_defined, >=, 10);

  /* The same key in the app's export and in `heatscope-cli render --layers` of the saved dataset:
   * every region named in black, the one target bold. */
  {
    g_autofree char *app_svg = g_build_filename (tmp_root, "app.svg", NULL);
    g_autofree char *cli_svg = g_build_filename (tmp_root, "cli.svg", NULL);
    const char *args[] = { dataset, "--instance", INSTANCE, "--query", "s3", "--model", "grounded",
                           "--layers", "-o", cli_svg, NULL };
    const char *paths[] = { app_svg, cli_svg };
    const char *names[] = { "Airways", "Cardiomediastinum", "Ground Glass Opacities", "Right Lung" };
    g_autoptr(GError) error = NULL;

    g_assert_true (hs_window_export_to_file (window, app_svg, &error));
    g_assert_no_error (error);
    run_cli ("render", args);
    for (guint p = 0; p < G_N_ELEMENTS (paths); p++)
      {
        g_autofree char *svg = NULL;

        g_assert_true (g_file_get_contents (paths[p], &svg, NULL, NULL));
        g_assert_nonnull (strstr (svg, "font-weight=\"bold\" fill=\"#000000\">Left Lung</text>"));
        for (guint i = 0; i < G_N_ELEMENTS (names); i++)
          {
            g_autofree char *key = g_strdup_printf (" fill=\"#000000\">%s</text>", names[i]);
            g_autofree char *bold = g_strdup_printf ("bold\" fill=\"#000000\">%s</text>", names[i]);

            g_assert_nonnull (strstr (svg, key));
            g_assert_null (strstr (svg, bold));
          }
      }
  }
  /* A box drawn on the canvas and named by the user: a new region, a target of s3. */
  {
    GtkWidget *canvas = hs_window_get_canvas (window);
    GtkDialog *dialog;
    g_autoptr(GError) error = NULL;
    g_autoptr(HsDataset) ds = NULL;
    HsRegion *cyst;

    g_signal_emit_by_name (canvas, "box-drawn", 600.0, 300.0, 700.0, 420.0);
    dialog = g_object_get_data (G_OBJECT (window), "hs-box-dialog");
    g_assert_nonnull (dialog);
    gtk_editable_set_text (GTK_EDITABLE (g_object_get_data (G_OBJECT (dialog), "hs-entry")), " Cyst ");
    gtk_dialog_response (dialog, GTK_RESPONSE_ACCEPT);
    g_assert_null (g_object_get_data (G_OBJECT (window), "hs-box-dialog"));
    g_free (disk);
    disk = targets_on_disk ("s3");
    g_assert_cmpstr (disk, ==, "Left Lung|Cyst");
    ds = hs_dataset_load (dataset, &error);
    g_assert_no_error (error);
    cyst = hs_instance_find_region (hs_dataset_find_instance (ds, INSTANCE), "Cyst");
    g_assert_nonnull (cyst);
    g_assert_cmpuint (cyst->boxes->len, ==, 1);
    g_assert_cmpfloat (g_array_index (cyst->boxes, HsBox, 0).x1, ==, 600);
    g_assert_cmpfloat (g_array_index (cyst->boxes, HsBox, 0).y2, ==, 420);
    g_assert_cmpuint (hs_layers_panel_get_n_regions (layers), ==, 6);
    hs_ui_wait_until (metrics_idle, metrics);
    assert_metrics_match_cli (metrics, "s3", &n_defined);
    g_assert_cmpuint (n_defined, >=, 10);

    /* a name the instance has already is refused, nothing written */
    g_action_group_activate_action (G_ACTION_GROUP (window), "add-box",
                                    g_variant_new ("(sdddd)", "Cyst", 1.0, 1.0, 9.0, 9.0));
    g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 1);
    g_free (disk);
    disk = targets_on_disk ("s3");
    g_assert_cmpstr (disk, ==, "Left Lung|Cyst");

    /* undo: the region and the link go, in memory and on disk */
    g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
    g_free (disk);
    disk = targets_on_disk ("s3");
    g_assert_cmpstr (disk, ==, "Left Lung");
    g_clear_pointer (&ds, hs_dataset_unref);
    ds = hs_dataset_load (dataset, &error);
    g_assert_no_error (error);
    g_assert_null (hs_instance_find_region (hs_dataset_find_instance (ds, INSTANCE), "Cyst"));
    g_assert_null (hs_instance_find_region (hs_window_get_instance (window), "Cyst"));
    g_assert_cmpuint (hs_layers_panel_get_n_regions (layers), ==, 5);
  }

  hs_ui_destroy_window (window);
}

static guint
mask_decodes (HsWindow *window)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (window), "hs-mask-decodes"));
}

static guint
n_masks_of (HsInstance *instance)
{
  guint n = 0;

  for (guint i = 0; i < instance->regions->len; i++)
    n += ((HsRegion *) g_ptr_array_index (instance->regions, i))->mask != NULL;
  return n;
}

/* To the next instance and back; the next one's number of masks, 0 when it is `seen`. */
static guint
step_away_and_back (HsWindow *window, const char *seen)
{
  guint n;

  g_action_group_activate_action (G_ACTION_GROUP (window), "next-instance", NULL);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_cmpstr (hs_window_get_instance (window)->id, !=, INSTANCE);
  n = g_strcmp0 (hs_window_get_instance (window)->id, seen) == 0 ? 0 : n_masks_of (hs_window_get_instance (window));
  g_action_group_activate_action (G_ACTION_GROUP (window), "previous-instance", NULL);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, INSTANCE);
  return n;
}

/* The masks with their outlines (hs-mask-layer.c) are decoded once per visit, by the worker that
 * decodes the image, and kept in the mask cache: the layers, the targets and a sentence switch
 * decode none again, a revisit none at all; the cache keeps to mask-cache-mb (evicting the least
 * recently used), and 0 keeps none — every view update decodes again.  The image cache is off, so
 * no neighbour is decoded ahead and each count is exact. */
static void
test_mask_cache (void)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GSettings) settings = NULL;
  HsWindow *window;
  HsLruCache *cache;
  g_autofree char *first = NULL;
  guint n_masks = 0, n_neighbour, n_targets = 0, before;

  if (hs_ui_skip_without_display ())
    return;
  if (dataset == NULL)
    {
      g_test_skip ("../shared/data/cxr-covid-seg is not there");
      return;
    }
  hs_ui_reset_settings ();
  settings = hs_settings_new ();
  g_settings_set_int (settings, "image-cache-mb", 0);
  window = hs_ui_new_window ();
  cache = g_object_get_data (G_OBJECT (window), "hs-mask-cache");
  g_assert_nonnull (cache);
  g_assert_cmpuint (hs_lru_cache_get_capacity (cache), ==, 32u << 20);   /* the schema's default */
  file = g_file_new_for_path (dataset);
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  /* the instance opened first (maybe INSTANCE itself) has its masks decoded too */
  first = g_strdup (hs_window_get_instance (window)->id);
  before = n_masks_of (hs_window_get_instance (window));
  g_assert_cmpuint (mask_decodes (window), ==, before);
  if (g_strcmp0 (first, INSTANCE) == 0)
    before = 0;
  g_assert_true (hs_window_select_instance (window, INSTANCE));
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_true (hs_window_select_model (window, "grounded"));
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), "s1"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  n_masks = n_masks_of (hs_window_get_instance (window));
  g_assert_cmpuint (n_masks, ==, 5);
  link_region (window, "Right Lung", TRUE);   /* targets with masks: the targets' masks too */
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), "s3"));
  link_region (window, "Left Lung", TRUE);
  hs_ui_settle ();
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);
  /* once each, on the first visit */
  g_assert_cmpuint (mask_decodes (window) - before, ==, n_masks);
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), >=, n_masks);

  /* a revisit: none (the neighbour's masks, on its first visit, once each) */
  before = mask_decodes (window);
  n_neighbour = step_away_and_back (window, first);
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), "s1"));
  hs_ui_settle ();
  g_assert_cmpuint (mask_decodes (window) - before, ==, n_neighbour);
  before = mask_decodes (window);
  step_away_and_back (window, NULL);
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), "s3"));
  hs_ui_settle ();
  g_assert_cmpuint (mask_decodes (window), ==, before);

  /* a cap smaller than the instance's masks: evicted down to it */
  g_settings_set_int (settings, "mask-cache-mb", 3);
  g_assert_cmpuint (hs_lru_cache_get_capacity (cache), ==, 3u << 20);
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), <=, 3u << 20);
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), <, n_masks);
  g_assert_cmpuint (hs_lru_cache_get_evictions (cache), >, 0);
  before = mask_decodes (window);
  step_away_and_back (window, NULL);
  g_assert_cmpuint (hs_lru_cache_get_bytes (cache), <=, 3u << 20);
  g_assert_cmpuint (mask_decodes (window), >, before);

  /* 0: off — nothing kept, every view update decodes the targets' masks again */
  g_settings_set_int (settings, "mask-cache-mb", 0);
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), ==, 0);
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), "s1"));
  hs_ui_settle ();
  before = mask_decodes (window);
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), "s3"));
  hs_ui_settle ();
  {
    HsSentence *s3 = hs_instance_find_sentence (hs_window_get_instance (window), "s3");

    /* the lungs and any left linked by the test before; all have masks */
    n_targets = g_strv_length (s3->targets);
    g_assert_cmpuint (n_targets, >=, 1);
  }
  g_assert_cmpuint (mask_decodes (window), ==, before + n_targets);
  g_assert_cmpuint (hs_lru_cache_get_n_items (cache), ==, 0);
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);

  hs_ui_destroy_window (window);
  hs_ui_reset_settings ();
}

/* A region that is not there is refused with a message, and nothing is written. */
static void
test_link_unknown_region (void)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *before = NULL, *after = NULL;
  g_autofree char *manifest = NULL;
  HsWindow *window;

  if (hs_ui_skip_without_display ())
    return;
  if (dataset == NULL)
    {
      g_test_skip ("../shared/data/cxr-covid-seg is not there");
      return;
    }
  manifest = g_build_filename (dataset, "heatscope.json", NULL);
  g_assert_true (g_file_get_contents (manifest, &before, NULL, NULL));
  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  file = g_file_new_for_path (dataset);
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_true (hs_window_select_instance (window, INSTANCE));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  link_region (window, "Spleen", TRUE);
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 1);
  g_assert_true (g_file_get_contents (manifest, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "undo"));
  hs_ui_destroy_window (window);
}

/* Whether (x, y) is in the top-left (0) or bottom-right (1) quarter of a width × height image. */
static gboolean
in_quarter (guint x, guint y, guint width, guint height, guint quarter)
{
  return quarter == 0 ? x < width / 2 && y < height / 2 : x >= width / 2 && y >= height / 2;
}

/* The new content of INSTANCE's image, grounded/s1 map and first region's mask: the image's
 * negative, the map's values 1 + i mod `period` (same shape), the mask one quarter of the image
 * (`quarter` 0: top left, 1: bottom right; 8-bit, one channel) — each written to a file beside
 * the old one, and decoded independently: what the window must show once they replace the old. */
typedef struct {
  char           *image_file, *map_file, *mask_file;   /* relative, as the manifest has them */
  char           *image_tmp, *map_tmp, *mask_tmp;      /* the new files */
  HsImage        *image;
  HsAttentionMap *map;
  guint           quarter;
} Replacement;

static void
replacement_clear (Replacement *r)
{
  g_free (r->image_file);
  g_free (r->map_file);
  g_free (r->mask_file);
  g_free (r->image_tmp);
  g_free (r->map_tmp);
  g_free (r->mask_tmp);
  g_clear_pointer (&r->image, hs_image_unref);
  g_clear_pointer (&r->map, hs_attention_map_unref);
}

/* A path beside the dataset's file `relative`, for its replacement. */
static char *
beside (HsDataset *ds, const char *relative, const char *name)
{
  g_autofree char *path = hs_dataset_resolve_path (ds, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);

  return g_build_filename (dir, name, NULL);
}

static void
replacement_write (Replacement *r, guint period, guint quarter)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) ds = hs_dataset_load (dataset, &error);
  HsInstance *instance;
  HsMapRef *ref;
  g_autofree char *image_path = NULL, *map_path = NULL;
  g_autoptr(HsImage) old_image = NULL, negative = NULL, mask = NULL;
  g_autoptr(HsNdArray) array = NULL;
  guint width, height;

  g_assert_no_error (error);
  instance = hs_dataset_find_instance (ds, INSTANCE);
  ref = hs_instance_find_map (instance, "grounded", "s1");
  g_assert_nonnull (ref);
  r->quarter = quarter;
  r->image_file = g_strdup (instance->image);
  r->map_file = g_strdup (ref->file);
  r->mask_file = g_strdup (((HsRegion *) g_ptr_array_index (instance->regions, 0))->mask);
  g_assert_nonnull (r->mask_file);   /* all five regions have masks */

  image_path = hs_dataset_resolve_path (ds, r->image_file, NULL);
  old_image = hs_image_load (image_path, &error);
  g_assert_no_error (error);
  width = hs_image_get_width (old_image);
  height = hs_image_get_height (old_image);
  negative = hs_image_new (width, height, hs_image_get_channels (old_image), hs_image_get_bit_depth (old_image),
                           &error);
  g_assert_no_error (error);
  {
    const guint16 *in = hs_image_peek_data (old_image);
    guint16 *out = hs_image_get_data (negative);
    guint16 top = (guint16) ((1u << hs_image_get_bit_depth (old_image)) - 1);

    for (gsize i = 0; i < (gsize) width * height * hs_image_get_channels (old_image); i++)
      out[i] = top - in[i];
  }
  r->image_tmp = beside (ds, r->image_file, "replacement.png");
  g_assert_true (hs_image_save_png (negative, r->image_tmp, &error));
  g_assert_no_error (error);

  map_path = hs_dataset_resolve_path (ds, r->map_file, NULL);
  array = hs_npy_read (map_path, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < array->n_values; i++)
    array->values[i] = 1 + i % period;
  r->map_tmp = beside (ds, r->map_file, "replacement.npy");
  g_assert_true (hs_npy_write (r->map_tmp, HS_DTYPE_FLOAT32, array->ndim, array->shape, array->values,
                               FALSE, FALSE, &error));
  g_assert_no_error (error);

  mask = hs_image_new (width, height, 1, 8, &error);
  g_assert_no_error (error);
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      if (in_quarter (x, y, width, height, quarter))
        hs_image_get_data (mask)[(gsize) y * width + x] = 255;
  r->mask_tmp = beside (ds, r->mask_file, "replacement-mask.png");
  g_assert_true (hs_image_save_png (mask, r->mask_tmp, &error));
  g_assert_no_error (error);

  r->image = hs_image_load (r->image_tmp, &error);
  g_assert_no_error (error);
  r->map = hs_attention_map_load_npy (r->map_tmp, (const char * const *) ref->tokens, ref->no_attn, &error);
  g_assert_no_error (error);
}

/* The dataset's file `relative` replaced by `fresh` (a new file in the same folder) with a
 * rename, as the atomic writers replace it: a new inode under the old name. */
static void
replace_by_rename (const char *relative, const char *fresh)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDataset) ds = hs_dataset_load (dataset, &error);
  g_autofree char *path = NULL;

  g_assert_no_error (error);
  path = hs_dataset_resolve_path (ds, relative, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (fresh, path), ==, 0);
}

/* Pixel by pixel the same size and samples. */
static gboolean
same_pixels (const HsImage *a, const HsImage *b)
{
  gsize n = (gsize) hs_image_get_width (a) * hs_image_get_height (a) * hs_image_get_channels (a);

  return hs_image_get_width (a) == hs_image_get_width (b) && hs_image_get_height (a) == hs_image_get_height (b) &&
         hs_image_get_channels (a) == hs_image_get_channels (b) &&
         memcmp (hs_image_peek_data (a), hs_image_peek_data (b), n * sizeof (guint16)) == 0;
}

static gboolean
same_values (const HsAttentionMap *a, const HsAttentionMap *b)
{
  gsize n = (gsize) hs_attention_map_get_width (a) * hs_attention_map_get_height (a);

  return hs_attention_map_get_width (a) == hs_attention_map_get_width (b) &&
         hs_attention_map_get_height (a) == hs_attention_map_get_height (b) &&
         memcmp (hs_attention_map_peek_values (a), hs_attention_map_peek_values (b), n * sizeof (double)) == 0;
}

/* The layer's mask shown for the first region of the instance on screen (borrowed). */
static HsImage *
shown_mask (HsWindow *window)
{
  HsMaskLayer *layer = g_hash_table_lookup (window->layer_masks,
                                            g_ptr_array_index (hs_window_get_instance (window)->regions, 0));

  g_assert_nonnull (layer);
  return hs_mask_layer_get_mask (layer);
}

/* Whether the mask's set pixels are exactly its top-left (0) or bottom-right (1) quarter. */
static gboolean
is_quarter (const HsImage *mask, guint quarter)
{
  guint width = hs_image_get_width (mask), height = hs_image_get_height (mask);
  guint channels = hs_image_get_channels (mask);
  const guint16 *px = hs_image_peek_data (mask);

  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      {
        gboolean on = FALSE;

        for (guint c = 0; c < channels; c++)
          on |= px[((gsize) y * width + x) * channels + c] != 0;
        if (on != in_quarter (x, y, width, height, quarter))
          return FALSE;
      }
  return TRUE;
}

/* INSTANCE shown with the grounded map of s1 (its image, map and masks now in the caches). */
static void
show_s1 (HsWindow *window)
{
  g_assert_cmpstr (hs_window_get_instance (window)->id, ==, INSTANCE);
  g_assert_true (hs_window_select_model (window, "grounded"));
  g_assert_true (hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), "s1"));
  hs_ui_wait_until (hs_ui_window_live_done, window);
  hs_ui_settle ();
  g_assert_nonnull (hs_window_get_map (window));
}

static HsWindow *
open_on_instance (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (dataset);
  HsWindow *window;

  hs_ui_reset_settings ();
  window = hs_ui_new_window ();
  hs_window_open (window, file);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  g_assert_true (hs_window_select_instance (window, INSTANCE));
  hs_ui_wait_until (hs_ui_window_not_loading, window);
  show_s1 (window);
  return window;
}

static void
step_away (HsWindow *window, const char *action)
{
  g_action_group_activate_action (G_ACTION_GROUP (window), action, NULL);
  hs_ui_wait_until (hs_ui_window_not_loading, window);
}

/* Back on INSTANCE: the canvas's image, the map and the first region's layer are the new files'
 * (all three named in the log when one is not). */
static void
assert_shows (HsWindow *window, const Replacement *r, const char *screenshot)
{
  gboolean image_new, map_new, mask_new;

  step_away (window, "previous-instance");
  show_s1 (window);
  hs_ui_save_screenshot (GTK_WIDGET (window), screenshot);
  image_new = same_pixels (hs_canvas_get_image (HS_CANVAS (hs_window_get_canvas (window))), r->image);
  map_new = same_values (hs_window_get_map (window), r->map);
  mask_new = is_quarter (shown_mask (window), r->quarter);
  g_test_message ("the new file shown: image %d, map %d, mask %d", image_new, map_new, mask_new);
  g_assert_true (image_new);
  g_assert_true (map_new);
  g_assert_true (mask_new);
  g_assert_cmpuint (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)), ==, 0);
}

/* A cached image, map or mask is only valid for the file it was decoded from: INSTANCE is
 * shown (all three cached), the window steps away, the three files are replaced on disk by a
 * rename — the cache entries are still there — and on the way back the window shows the new
 * files' content: the canvas's image pixels, the map's values and the layer's mask are those of
 * independent decodes of the new files, not the old ones. */
static void
test_replaced_files (void)
{
  Replacement r = { 0 };
  g_autoptr(HsImage) old_image = NULL, old_mask = NULL;
  g_autoptr(HsAttentionMap) old_map = NULL;
  HsWindow *window;

  if (hs_ui_skip_without_display ())
    return;
  if (dataset == NULL)
    {
      g_test_skip ("../shared/data/cxr-covid-seg is not there");
      return;
    }
  window = open_on_instance ();
  old_image = hs_image_ref (hs_canvas_get_image (HS_CANVAS (hs_window_get_canvas (window))));
  old_map = hs_attention_map_ref (hs_window_get_map (window));
  old_mask = hs_image_ref (shown_mask (window));
  hs_ui_save_screenshot (GTK_WIDGET (window), "ui-layers-replaced-before");
  step_away (window, "next-instance");
  g_assert_cmpstr (hs_window_get_instance (window)->id, !=, INSTANCE);

  replacement_write (&r, 7, 0);
  g_assert_false (same_pixels (r.image, old_image));
  g_assert_false (same_values (r.map, old_map));
  g_assert_false (is_quarter (old_mask, 0));
  replace_by_rename (r.image_file, r.image_tmp);
  replace_by_rename (r.map_file, r.map_tmp);
  replace_by_rename (r.mask_file, r.mask_tmp);
  /* the old content is still cached under the same keys */
  g_assert_true (hs_lru_cache_contains (window->image_cache, r.image_file));
  g_assert_true (hs_lru_cache_contains (window->map_cache, r.map_file));
  g_assert_true (hs_lru_cache_contains (window->mask_cache, r.mask_file));

  assert_shows (window, &r, "ui-layers-replaced-after");
  /* each found stale once, and decoded again from the new file */
  g_assert_cmpuint (hs_lru_cache_get_stale (window->image_cache), >=, 1);
  g_assert_cmpuint (hs_lru_cache_get_stale (window->map_cache), >=, 1);
  g_assert_cmpuint (hs_lru_cache_get_stale (window->mask_cache), >=, 1);
  hs_ui_destroy_window (window);
  hs_ui_reset_settings ();
  replacement_clear (&r);
}

/* Resolved path → its replacement, renamed over it right after the first open (any thread). */
static GMutex swap_lock;
static GHashTable *swaps;
static guint n_swapped;

static void
swap_after_open (const char *resolved)
{
  const char *fresh;

  g_mutex_lock (&swap_lock);
  fresh = g_hash_table_lookup (swaps, resolved);
  if (fresh != NULL)
    {
      g_assert_cmpint (g_rename (fresh, resolved), ==, 0);
      g_hash_table_remove (swaps, resolved);
      n_swapped++;
    }
  g_mutex_unlock (&swap_lock);
}

/* The stamp is taken before the decode: each of INSTANCE's three files is replaced by a rename
 * just after the first open of it (hs_dataset_test_after_open), so that decode — on a worker for
 * the image and masks, on the main thread for the map — reads the old file under a path that
 * already names the new one.  Kept with the stamp taken before the open, it is a miss after a
 * step away and back, and the new files are shown (a stamp taken after the decode would keep
 * the old content as if it were the new file's). */
static void
test_replaced_while_decoding (void)
{
  Replacement r = { 0 };
  g_autoptr(HsDataset) ds = NULL;
  HsWindow *window;
  const char *files[3];
  const char *fresh[3];

  if (hs_ui_skip_without_display ())
    return;
  if (dataset == NULL)
    {
      g_test_skip ("../shared/data/cxr-covid-seg is not there");
      return;
    }
  replacement_write (&r, 5, 1);
  ds = hs_dataset_load (dataset, NULL);
  g_assert_nonnull (ds);
  files[0] = r.image_file, files[1] = r.map_file, files[2] = r.mask_file;
  fresh[0] = r.image_tmp, fresh[1] = r.map_tmp, fresh[2] = r.mask_tmp;
  swaps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < 3; i++)
    g_hash_table_insert (swaps, hs_dataset_resolve_path (ds, files[i], NULL), g_strdup (fresh[i]));
  n_swapped = 0;
  hs_dataset_test_after_open = swap_after_open;

  window = open_on_instance ();
  g_mutex_lock (&swap_lock);
  g_assert_cmpuint (n_swapped, ==, 3);   /* each file was replaced while it was decoded */
  g_mutex_unlock (&swap_lock);
  step_away (window, "next-instance");
  g_assert_cmpstr (hs_window_get_instance (window)->id, !=, INSTANCE);
  assert_shows (window, &r, "ui-layers-replaced-while-decoding");

  hs_dataset_test_after_open = NULL;
  g_clear_pointer (&swaps, g_hash_table_unref);
  hs_ui_destroy_window (window);
  hs_ui_reset_settings ();
  replacement_clear (&r);
}

int
main (int argc, char **argv)
{
  hs_ui_init (&argc, &argv);
  if (hs_ui_have_display)
    make_dataset ();
  g_test_add_func ("/hs/ui-layers/link-and-undo", test_link_and_undo);
  g_test_add_func ("/hs/ui-layers/link-unknown-region", test_link_unknown_region);
  g_test_add_func ("/hs/ui-layers/mask-cache", test_mask_cache);
  g_test_add_func ("/hs/ui-layers/replaced-files", test_replaced_files);
  g_test_add_func ("/hs/ui-layers/replaced-while-decoding", test_replaced_while_decoding);
  return g_test_run ();
}
