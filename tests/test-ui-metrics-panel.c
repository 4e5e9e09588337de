/* test-ui-metrics-panel.c — HsMetricsPanel in a plain window: values against
 * NumPy/scikit-learn, null baselines, n/a with reasons, protocols, golden */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>

#include "hs-metrics-panel.h"
#include "hs-plot.h"
#include "hs-canvas-fixture.h"
#include "hs-test-util.h"

typedef struct {
  Fixture         f;
  GtkWidget      *window;
  HsMetricsPanel *panel;
} PanelTest;

static void
setup (PanelTest *t, gconstpointer data)
{
  fixture_init (&t->f);
  t->panel = HS_METRICS_PANEL (hs_metrics_panel_new ());
  g_object_ref_sink (t->panel);
  t->window = fixture_present (GTK_WIDGET (t->panel), 720, 820);
}

static void
teardown (PanelTest *t, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (t->window));
  fixture_settle (20);
  hs_ui_assert_finalized (t->panel);
  fixture_clear (&t->f);
}

/* Waits for the panel's worker; the deadline only bounds a hang (the
 * assertion after it then fails), it is far above any machine's time. */
static void
wait_idle (PanelTest *t)
{
  gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  while (hs_metrics_panel_get_busy (t->panel) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (hs_metrics_panel_get_busy (t->panel));
  fixture_settle (20);
}

static double
cell_value (PanelTest *t, const char *metric, const char *column)
{
  const char *text = NULL;

  g_assert_true (hs_metrics_panel_get_cell (t->panel, metric, column, &text, NULL));
  g_assert_nonnull (text);
  return g_ascii_strtod (text, NULL);
}

static const char reference_script[] =
  "import sys, numpy as np, cv2\n"
  "from sklearn.metrics import roc_auc_score\n"
  "m = np.load(sys.argv[1]).astype(np.float64)\n"
  "mask = cv2.imread(sys.argv[2], cv2.IMREAD_GRAYSCALE)\n"
  "W, H = 128, 96\n"
  "s = cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR)\n"
  "G = np.zeros((H, W), bool)\n"
  "G[8:40, 8:40] = True\n"
  "ys = np.floor((np.arange(H) + 0.5) * mask.shape[0] / H).astype(int)\n"
  "xs = np.floor((np.arange(W) + 0.5) * mask.shape[1] / W).astype(int)\n"
  "G |= mask[ys][:, xs] != 0\n"
  "auroc = roc_auc_score(G.ravel(), s.ravel())\n"
  "mass = s.clip(0)[G].sum() / s.clip(0).sum()\n"
  "n = int(np.ceil(10 * W * H / 100)); q = np.sort(s.ravel())[::-1][n - 1]\n"
  "T = s >= q; iou = (T & G).sum() / (T | G).sum()\n"
  "hit = int(G.ravel()[np.argmax(s.ravel())])\n"
  "print(repr(auroc), repr(mass), repr(iou), hit)\n";

static void
test_values (PanelTest *t, gconstpointer data)
{
  g_autofree char *map_path = g_build_filename (t->f.dir, "map.npy", NULL);
  g_autofree char *mask_path = g_build_filename (t->f.dir, "mask.png", NULL);
  const char *args[] = { map_path, mask_path, NULL };
  g_autofree char *out = NULL;
  g_auto(GStrv) fields = NULL;
  const char *text = NULL, *tooltip = NULL;

  hs_metrics_panel_set_input (t->panel, t->f.image, t->f.map, t->f.regions, t->f.masks);
  g_assert_true (hs_metrics_panel_get_busy (t->panel));
  wait_idle (t);
  /* |G| = box 32 × 32 + mask 40 × 26 (disjoint) = 2064 of 128 · 96 = 12288. */
  g_assert_nonnull (strstr (hs_metrics_panel_get_status (t->panel), "Target 2064 of 12288 px"));

  /* Every metric of the default protocol has a row. */
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "auroc", "model", NULL, NULL));
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "explanation_precision", "model", NULL, NULL));
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "laterality", "random", NULL, NULL));
  g_assert_false (hs_metrics_panel_get_cell (t->panel, "iou@20", "model", NULL, NULL));

  /* Every metric's name says what it means: its definition, range and
   * direction from the library's one table. */
  {
    guint n;
    const HsMetric *metrics = hs_protocol_get_metrics (HS_PROTOCOL_DEFAULT, &n);

    for (guint i = 0; i < n; i++)
      {
        g_autofree char *expected = hs_metric_info_tooltip (hs_metric_info_get (metrics[i]));

        g_assert_true (hs_metrics_panel_get_cell (t->panel, hs_metric_get_name (metrics[i]), "name",
                                                  &text, &tooltip));
        g_assert_cmpstr (text, ==, hs_metric_get_name (metrics[i]));
        g_assert_cmpstr (tooltip, ==, expected);
      }
    g_assert_nonnull (strstr (tooltip, "Range: "));
  }

  /* No-Attn: the map carries 0.3; the baselines have none (n/a + reason). */
  g_assert_cmpfloat_with_epsilon (cell_value (t, "no_attn", "model"), 0.3, 5e-4);

  /* The uniform map ties everywhere: AUROC exactly ½ (Mann–Whitney ties). */
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "auroc", "uniform", &text, &tooltip));
  g_assert_cmpstr (text, ==, "0.500");
  /* A constant map has no variance anywhere: cnr is n/a with the reason. */
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "cnr", "uniform", &text, &tooltip));
  g_assert_cmpstr (text, ==, "n/a");
  g_assert_nonnull (tooltip);
  /* The baselines have no No-Attn slot. */
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "no_attn", "center", &text, &tooltip));
  g_assert_cmpstr (text, ==, "n/a");

  out = hs_test_python (reference_script, args);
  if (out == NULL)
    return;
  fields = g_strsplit (g_strstrip (out), " ", -1);
  g_assert_cmpuint (g_strv_length (fields), ==, 4);
  g_assert_cmpfloat_with_epsilon (cell_value (t, "auroc", "model"), g_ascii_strtod (fields[0], NULL), 5.01e-4);
  g_assert_cmpfloat_with_epsilon (cell_value (t, "mass_in_target", "model"), g_ascii_strtod (fields[1], NULL), 5.01e-4);
  g_assert_cmpfloat_with_epsilon (cell_value (t, "iou@10", "model"), g_ascii_strtod (fields[2], NULL), 5.01e-4);
  g_assert_cmpfloat (cell_value (t, "pointing_hit", "model"), ==, g_ascii_strtod (fields[3], NULL));
}

static void
test_undefined (PanelTest *t, gconstpointer data)
{
  const char *text = NULL, *tooltip = NULL;

  /* No target at all: G is empty. */
  hs_metrics_panel_set_input (t->panel, t->f.image, t->f.map, NULL, NULL);
  wait_idle (t);
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "auroc", "model", &text, &tooltip));
  g_assert_cmpstr (text, ==, "n/a");
  g_assert_nonnull (tooltip);
  g_assert_nonnull (strstr (tooltip, "empty"));
  /* metrics.md: with an empty G, iou@k and precision@k are 0, not n/a. */
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "iou@5", "model", &text, NULL));
  g_assert_cmpstr (text, ==, "0.000");
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "recall@5", "model", &text, &tooltip));
  g_assert_cmpstr (text, ==, "n/a");

  /* No map: the table empties. */
  hs_metrics_panel_set_input (t->panel, t->f.image, NULL, NULL, NULL);
  g_assert_false (hs_metrics_panel_get_busy (t->panel));
  g_assert_false (hs_metrics_panel_get_cell (t->panel, "auroc", "model", NULL, NULL));
}

static void
test_protocols (PanelTest *t, gconstpointer data)
{
  g_autofree char *protocol = NULL;

  hs_metrics_panel_set_input (t->panel, t->f.image, t->f.map, t->f.regions, t->f.masks);
  /* A second input while the first runs: only the last one lands. */
  hs_metrics_panel_set_protocol (t->panel, "gloria");
  wait_idle (t);
  g_object_get (t->panel, "protocol", &protocol, NULL);
  g_assert_cmpstr (protocol, ==, "gloria");
  g_assert_true (hs_metrics_panel_get_cell (t->panel, "iou@20", "model", NULL, NULL));
  g_assert_nonnull (strstr (hs_metrics_panel_get_status (t->panel), "224 × 224"));

  /* "" (the GSettings default) reads as default. */
  g_object_set (t->panel, "protocol", "", NULL);
  wait_idle (t);
  g_assert_cmpstr (hs_metrics_panel_get_protocol (t->panel), ==, "default");
  g_assert_false (hs_metrics_panel_get_cell (t->panel, "iou@20", "model", NULL, NULL));
  g_assert_nonnull (strstr (hs_metrics_panel_get_status (t->panel), "128 × 96"));
}

/* The baselines' grid metrics in the panel are the CLI's `score --baselines` for the same map,
 * image and target (one library function, the model's grid): the uniform column is constant on
 * the 12 × 16 grid, so its entropy is ln 192 and entropy_norm 1, not 0 as for one cell. */
static void
test_baselines_agree_with_cli (PanelTest *t, gconstpointer data)
{
  g_autofree char *map_path = g_build_filename (t->f.dir, "map.npy", NULL);
  g_autofree char *image_path = g_build_filename (t->f.dir, "image.png", NULL);
  g_autofree char *mask_path = g_build_filename (t->f.dir, "mask.png", NULL);
  const char *args[] = { "--map", map_path, "--image", image_path, "--box", "8,8,40,40",
                         "--mask", mask_path, "--baselines", "--json", NULL };
  const char *columns[] = { "uniform", "center", "sobel", "laplace", "random" };
  const char *metrics[] = { "entropy", "entropy_norm" };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *baselines;
  guint cells = hs_attention_map_get_width (t->f.map) * hs_attention_map_get_height (t->f.map);

  g_assert_cmpint (hs_test_run_cli ("score", args, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  baselines = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                             "baselines");
  hs_metrics_panel_set_input (t->panel, t->f.image, t->f.map, t->f.regions, t->f.masks);
  wait_idle (t);
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    for (guint m = 0; m < G_N_ELEMENTS (metrics); m++)
      {
        double cli = json_object_get_double_member (json_object_get_object_member (baselines, columns[c]),
                                                    metrics[m]);

        /* the panel prints three decimals */
        g_assert_cmpfloat_with_epsilon (cell_value (t, metrics[m], columns[c]), cli, 5e-4 + 1e-12);
      }
  g_assert_cmpuint (cells, >, 1);
  g_assert_cmpfloat_with_epsilon (cell_value (t, "entropy", "uniform"), log ((double) cells), 5e-4);
  g_assert_cmpfloat_with_epsilon (cell_value (t, "entropy_norm", "uniform"), 1.0, 5e-4);
}

static void
test_golden (PanelTest *t, gconstpointer data)
{
  cairo_surface_t *shot;
  cairo_surface_t *plot;
  cairo_t *cr;
  GtkWidget *w = hs_plot_new ("ROC", "false positive rate", "true positive rate");
  double xs[] = { 0, 0.1, 0.3, 1 }, ys[] = { 0, 0.6, 0.9, 1 };

  /* A plot drawn headless: fixed points, so the picture is known. */
  g_object_ref_sink (w);
  hs_plot_set_curve (HS_PLOT (w), xs, ys, 4, NULL);
  hs_plot_set_diagonal (HS_PLOT (w), TRUE);
  plot = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 200, 160);
  cr = cairo_create (plot);
  hs_plot_draw (HS_PLOT (w), cr, 200, 160);
  cairo_destroy (cr);
  fixture_check_golden (plot, "ui-plot-roc");
  cairo_surface_destroy (plot);
  hs_ui_assert_finalized (w);

  hs_metrics_panel_set_input (t->panel, t->f.image, t->f.map, t->f.regions, t->f.masks);
  wait_idle (t);
  shot = fixture_snapshot_widget (GTK_WIDGET (t->panel));
  fixture_check_golden (shot, "ui-metrics-panel");
  cairo_surface_destroy (shot);
}

int
main (int argc, char **argv)
{
  hs_ui_test_init (&argc, &argv);
#define ADD(path, func) hs_ui_test_add ("/hs/ui-metrics-panel/" path, PanelTest, NULL, setup, func, teardown)
  ADD ("values", test_values);
  ADD ("undefined", test_undefined);
  ADD ("baselines-agree-with-cli", test_baselines_agree_with_cli);
  ADD ("protocols", test_protocols);
  ADD ("golden", test_golden);
  return g_test_run ();
}
