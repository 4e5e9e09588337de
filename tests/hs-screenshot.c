/* hs-screenshot.c — drives the main window to one state and saves it as a
 * PNG, for tools/screenshots (the README's screenshots).  Not a test and not
 * shipped: it links the application's code as the UI tests do, so the
 * window is the real one without the application needing test-only options.
 *
 *   hs-screenshot DATASET OUT.png [--size WxH] [--model M] [--instance ID]
 *                 [--sentence ID] [--swap] [--prompt TEXT] [--tab overlay|metrics|perturb]
 *                 [--results [-]COLUMN [--results-perturb NAME] [--results-model M]]
 *                 [--deck DECK --present N]
 *
 * --results shoots the results table (win.results) instead, sorted by
 * COLUMN (a metrics CSV column; "-" first = descending) once every row is
 * scored.  --deck opens a demo deck and --present shoots presentation mode
 * on its case N (1-based) at the window's size, as the audience sees it.
 *
 * Every step waits for its work to finish (dataset and image decoding, live
 * maps, metrics, perturbation scores) before the next; the picture is taken
 * with GTK's own renderer (the cairo one, Adwaita, DejaVu Sans 10, no
 * animations, as the UI tests' golden images), so it does not depend on a
 * window manager or the screen. */
#include <gtk/gtk.h>
#include <stdlib.h>

#include <heatscope/heatscope.h>

#include "hs-error-bar.h"
#include "hs-metrics-panel.h"
#include "hs-perturb-panel.h"
#include "hs-presentation-window.h"
#include "hs-results-window.h"
#include "hs-ui-fixture.h"
#include "hs-window.h"

/* A bound on a hang (nothing waited for takes near this long). */
#define HANG_SECONDS 300

static void
wait_until (gboolean (*cond) (gpointer), gpointer data, const char *what)
{
  gint64 end = g_get_monotonic_time () + HANG_SECONDS * G_USEC_PER_SEC;

  while (!cond (data))
    {
      g_main_context_iteration (NULL, FALSE);
      if (g_get_monotonic_time () > end)
        {
          g_printerr ("hs-screenshot: %s did not finish within %d s\n", what, HANG_SECONDS);
          exit (1);
        }
      g_usleep (1000);
    }
}

static gboolean
metrics_idle (gpointer panel)
{
  return !hs_metrics_panel_get_busy (panel);
}

static gboolean
perturb_idle (gpointer panel)
{
  return !hs_perturb_panel_get_busy (panel);
}

/* Lets pending layout, idle and frame work run. */
static void
settle (HsWindow *window)
{
  for (int round = 0; round < 3; round++)
    {
      int n = 30;

      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
      wait_until (hs_ui_true_after_n, &n, "drawing");
      wait_until (hs_ui_window_live_done, window, "loading");
    }
}

static gboolean
results_complete (gpointer results)
{
  HsResultsModel *model = hs_results_window_get_model (results);

  return model != NULL && hs_results_model_get_complete (model);
}

/* The results table of `window`, sorted by `sort`, as the picture to take. */
static GtkWidget *
open_results (HsWindow *window, const char *sort, const char *perturbation, const char *model,
              int width, int height)
{
  HsResultsWindow *results;
  gboolean descending = sort[0] == '-';

  g_action_group_activate_action (G_ACTION_GROUP (window), "results", NULL);
  results = hs_ui_find_toplevel (HS_TYPE_RESULTS_WINDOW);
  if (results == NULL)
    return NULL;
  gtk_window_set_default_size (GTK_WINDOW (results), width, height);
  if (perturbation != NULL && !hs_results_window_set_perturbation (results, perturbation))
    return NULL;
  if (model != NULL && !hs_results_window_set_model_filter (results, model))
    return NULL;
  wait_until (results_complete, results, "the results table");
  if (!hs_results_window_sort_by (results, sort + (descending ? 1 : 0), descending))
    return NULL;
  wait_until (hs_ui_is_mapped, results, "showing the results");
  settle (window);
  return GTK_WIDGET (results);
}

static gboolean
presentation_ready (gpointer presentation)
{
  return hs_presentation_window_get_ready (presentation);
}

/* Presentation mode on case `number` (1-based) at width × height. */
static GtkWidget *
present (HsWindow *window, guint number, int width, int height)
{
  HsPresentationWindow *presentation = hs_window_present_deck (window, number - 1);

  if (presentation == NULL)
    return NULL;
  /* No window manager here makes it full-screen: the slide's size. */
  gtk_window_unfullscreen (GTK_WINDOW (presentation));
  gtk_widget_set_visible (GTK_WIDGET (presentation), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (presentation), width, height);
  gtk_window_present (GTK_WINDOW (presentation));
  wait_until (hs_ui_is_mapped, presentation, "showing the presentation");
  wait_until (presentation_ready, presentation, "the case");
  settle (window);
  return GTK_WIDGET (presentation);
}

static gboolean
save_png (GtkWidget *widget, const char *path)
{
  g_autoptr(GdkTexture) texture = hs_ui_render (widget);

  return gdk_texture_save_to_png (texture, path);
}

static G_GNUC_NORETURN G_GNUC_PRINTF (1, 2) void
fail (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("hs-screenshot: %s\n", message);
  exit (1);
}

int
main (int argc, char **argv)
{
  g_autofree char *size = NULL;
  g_autofree char *model = NULL;
  g_autofree char *instance = NULL;
  g_autofree char *sentence = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *tab = NULL;
  g_autofree char *results = NULL;
  g_autofree char *results_perturb = NULL;
  g_autofree char *results_model = NULL;
  g_auto(GStrv) settings = NULL;
  g_autofree char *deck = NULL;
  int present_case = 0;
  gboolean swap = FALSE;
  GtkWidget *shot;
  const GOptionEntry entries[] = {
    { "size", 0, 0, G_OPTION_ARG_STRING, &size, "Window size (default 1440x900)", "WxH" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, "Model as the selector names it", "M" },
    { "instance", 0, 0, G_OPTION_ARG_STRING, &instance, "Instance id", "ID" },
    { "sentence", 0, 0, G_OPTION_ARG_STRING, &sentence, "Sentence id", "ID" },
    { "swap", 0, 0, G_OPTION_ARG_NONE, &swap, "Swap left/right in the prompt (win.swap-sides)", NULL },
    { "prompt", 0, 0, G_OPTION_ARG_STRING, &prompt, "Type this prompt", "TEXT" },
    { "tab", 0, 0, G_OPTION_ARG_STRING, &tab, "Side tab: overlay, metrics or perturb", "NAME" },
    { "results", 0, 0, G_OPTION_ARG_STRING, &results, "Shoot the results table sorted by COLUMN (-COLUMN: descending)", "COLUMN" },
    { "results-perturb", 0, 0, G_OPTION_ARG_STRING, &results_perturb, "The results table's perturbation", "NAME" },
    { "results-model", 0, 0, G_OPTION_ARG_STRING, &results_model, "Only this model's rows in the results table", "M" },
    { "deck", 0, 0, G_OPTION_ARG_FILENAME, &deck, "Open this demo deck", "DECK" },
    { "present", 0, 0, G_OPTION_ARG_INT, &present_case, "Shoot presentation mode on the deck's case N (from 1)", "N" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &settings, "Set a setting before the window opens (e.g. opacity=0.35, colormap='inferno'; GVariant text)", "KEY=VALUE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("DATASET OUT.png — one README screenshot");
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  int width = 1440, height = 900;
  HsWindow *window;

  /* What the UI tests fix for reproducible pictures; settings in memory
   * (defaults), the schema from the build tree (tools/screenshots sets
   * GSETTINGS_SCHEMA_DIR). */
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("GDK_BACKEND", "x11", FALSE);
  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_setenv ("GTK_THEME", "Adwaita", TRUE);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    fail ("%s", error->message);
  if (argc != 3)
    fail ("%s", "usage: hs-screenshot DATASET OUT.png [OPTION...] (see --help)");
  if (size != NULL && sscanf (size, "%dx%d", &width, &height) != 2)
    fail ("bad --size '%s' (WxH)", size);
  if (!gtk_init_check ())
    fail ("%s", "no display (run under xvfb-run)");
  g_object_set (gtk_settings_get_default (), "gtk-font-name", "DejaVu Sans 10",
                "gtk-enable-animations", FALSE, "gtk-cursor-blink", FALSE, NULL);

  /* The memory backend is one per process: what is set here is what the
   * window's own GSettings reads (to compare display defaults side by side). */
  for (guint i = 0; settings != NULL && settings[i] != NULL; i++)
    {
      g_autoptr(GSettings) app_settings = g_settings_new ("org.heatscope.Heatscope");
      g_auto(GStrv) kv = g_strsplit (settings[i], "=", 2);
      g_autoptr(GSettingsSchema) schema = NULL;
      g_autoptr(GSettingsSchemaKey) key = NULL;
      g_autoptr(GVariant) value = NULL;

      g_object_get (app_settings, "settings-schema", &schema, NULL);
      if (kv[1] == NULL || !g_settings_schema_has_key (schema, kv[0]))
        fail ("bad --set '%s' (KEY=VALUE with a key of the schema)", settings[i]);
      key = g_settings_schema_get_key (schema, kv[0]);
      value = g_variant_parse (g_settings_schema_key_get_value_type (key), kv[1], NULL, NULL, &error);
      if (value == NULL || !g_settings_set_value (app_settings, kv[0], value))
        fail ("bad --set '%s': %s", settings[i], error != NULL ? error->message : "out of range");
    }

  window = hs_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  wait_until (hs_ui_is_mapped, window, "showing the window");
  file = g_file_new_for_commandline_arg (argv[1]);
  hs_window_open (window, file);
  settle (window);
  if (hs_window_get_dataset (window) == NULL)
    fail ("%s: the dataset did not open", argv[1]);

  if (instance != NULL && !hs_window_select_instance (window, instance))
    fail ("no instance '%s'", instance);
  settle (window);
  if (model != NULL && !hs_window_select_model (window, model))
    fail ("no model '%s' in the selector", model);
  settle (window);
  if (sentence != NULL && !hs_prompt_panel_select_sentence (hs_window_get_prompt_panel (window), sentence))
    fail ("no sentence '%s'", sentence);
  settle (window);
  if (swap)
    g_action_group_activate_action (G_ACTION_GROUP (window), "swap-sides", NULL);
  if (prompt != NULL)
    hs_prompt_panel_set_prompt (hs_window_get_prompt_panel (window), prompt);
  settle (window);
  if (tab != NULL)
    {
      GtkStack *stack = g_object_get_data (G_OBJECT (window), "hs-side-stack");

      if (stack == NULL || gtk_stack_get_child_by_name (stack, tab) == NULL)
        fail ("no side tab '%s'", tab);
      gtk_stack_set_visible_child_name (stack, tab);
      settle (window);
    }
  {
    GtkWidget *metrics = hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_METRICS_PANEL);
    GtkWidget *perturb = hs_ui_find_widget (GTK_WIDGET (window), HS_TYPE_PERTURB_PANEL);

    if (metrics != NULL)
      wait_until (metrics_idle, metrics, "the metrics");
    if (perturb != NULL)
      wait_until (perturb_idle, perturb, "the perturbation");
  }
  settle (window);
  shot = GTK_WIDGET (window);
  if (deck != NULL && !hs_window_open_deck (window, deck, &error))
    fail ("%s", error->message);
  if (present_case > 0)
    {
      shot = present (window, present_case, width, height);
      if (shot == NULL)
        fail ("no case %d to present", present_case);
    }
  if (results != NULL)
    {
      shot = open_results (window, results, results_perturb, results_model, width, height);
      if (shot == NULL)
        fail ("the results table cannot show '%s'", results);
    }
  if (!save_png (shot, argv[2]))
    fail ("%s: cannot write the PNG", argv[2]);
  if (hs_error_bar_get_n_errors (hs_window_get_error_bar (window)) > 0)
    g_printerr ("hs-screenshot: %s shows: %s\n", argv[2],
                hs_error_bar_get_text (hs_window_get_error_bar (window)));
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
