/* hs-cli-deck-export.c — heatscope-cli deck export DECK -o OUT
 *
 * A handout PDF (one page per case, A4 or Letter landscape) or a folder of
 * 1920 × 1080 slide images, each case drawn by the figure composer exactly
 * as `heatscope-cli figure` draws its panels (hs_cli_panels_load): the
 * view (one map, A | B | A − B, or one panel per model), the read-outs and
 * badges, one colour bar titled with the scale, and a caption holding the
 * sentence, the presenter's note and the metrics the case lists — text as
 * vector text in the PDF. */
#include "hs-cli.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <math.h>
#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

#define CMD "deck export"

/* Page sizes in points, landscape (a slide's shape on paper). */
#define A4_W 841.89
#define A4_H 595.28
#define LETTER_W 792.0
#define LETTER_H 612.0
#define PAGE_MARGIN 36.0
#define SLIDE_W 1920
#define SLIDE_H 1080
#define SLIDE_MARGIN 48.0

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static void
add_panel (GPtrArray *specs, GPtrArray *wheres, const char *deck_path, guint number,
           const HsDeckCase *item, const HsDeckModel *model, const HsDeckTarget *target,
           gboolean swap)
{
  HsFigureSpecPanel *panel = g_new0 (HsFigureSpecPanel, 1);

  panel->instance = g_strdup (item->instance);
  if (target->sentence)
    panel->query = g_strdup (target->sentence->id);
  else
    panel->prompt = g_strdup (item->prompt);
  panel->model = g_strdup (model->name);
  panel->source = model->live ? HS_FIGURE_SOURCE_LIVE : HS_FIGURE_SOURCE_PRECOMPUTED;
  panel->swap = swap;
  g_ptr_array_add (specs, panel);
  g_ptr_array_add (wheres, g_strdup_printf ("%s: case %u", deck_path, number));
}

static void
add_difference (GPtrArray *specs, GPtrArray *wheres, const char *deck_path, guint number)
{
  HsFigureSpecPanel *panel = g_new0 (HsFigureSpecPanel, 1);

  panel->diff_a = 1;
  panel->diff_b = 2;
  g_ptr_array_add (specs, panel);
  g_ptr_array_add (wheres, g_strdup_printf ("%s: case %u", deck_path, number));
}

/* The figure panels of a case's view: one map; A | B (| A − B for
 * compare; blink, on paper, shows A and B); one per model (each followed
 * by its swap when swapped). */
static void
case_specs (const char *deck_path, guint number, const HsDeckCase *item,
            const HsDeckTarget *target, GPtrArray *specs, GPtrArray *wheres)
{
  const HsDeckModel *first = g_ptr_array_index (item->models, 0);

  if (item->view == HS_DECK_VIEW_GRID || item->view == HS_DECK_VIEW_SINGLE)
    for (guint m = 0; m < item->models->len; m++)
      {
        const HsDeckModel *model = g_ptr_array_index (item->models, m);

        add_panel (specs, wheres, deck_path, number, item, model, target, FALSE);
        if (item->swap)
          add_panel (specs, wheres, deck_path, number, item, model, target, TRUE);
      }
  else
    {
      add_panel (specs, wheres, deck_path, number, item, first, target, FALSE);
      if (item->swap)
        add_panel (specs, wheres, deck_path, number, item, first, target, TRUE);
      else
        add_panel (specs, wheres, deck_path, number, item,
                   g_ptr_array_index (item->models, 1), target, FALSE);
      if (item->view == HS_DECK_VIEW_COMPARE)
        add_difference (specs, wheres, deck_path, number);
    }
}

/* Text on one line: a note's newlines and tabs become spaces. */
static void
append_flat (GString *out, const char *text)
{
  for (const char *p = text; *p; p++)
    g_string_append_c (out, *p == '\n' || *p == '\t' || *p == '\r' ? ' ' : *p);
}

/* "Case 2 of 3 · p0001 · “sentence” · Note: … · auroc: a 0.83, b 0.51" */
static char *
case_caption (const HsDeck *deck, guint number, const HsDeckCase *item, HsCliPanels *panels)
{
  GString *out = g_string_new (NULL);
  guint n_panels;

  hs_cli_panels_get (panels, &n_panels);
  g_string_append_printf (out, "Case %u of %u · %s · “", number, deck->cases->len,
                          item->instance);
  append_flat (out, hs_deck_case_get_text (item) ? hs_deck_case_get_text (item) : "");
  g_string_append (out, "”");
  if (item->note && *item->note)
    {
      g_string_append (out, " · Note: ");
      append_flat (out, item->note);
    }
  for (guint k = 0; item->metrics && item->metrics[k]; k++)
    {
      HsMetric metric;
      gboolean any = FALSE;

      g_string_append_printf (out, " · %s:", item->metrics[k]);
      for (guint i = 0; hs_metric_from_name (item->metrics[k], &metric) && i < n_panels; i++)
        {
          const HsScores *scores = hs_cli_panels_get_scores (panels, i);
          char letter[HS_FIGURE_LETTER_SIZE];

          if (scores == NULL)
            continue;
          hs_figure_panel_letter (i, letter);
          if (isnan (scores->value[metric]))
            g_string_append_printf (out, "%s %s n/a", any ? "," : "", letter);
          else
            g_string_append_printf (out, "%s %s %.3g", any ? "," : "", letter,
                                    scores->value[metric]);
          any = TRUE;
        }
      if (!any)
        g_string_append (out, " n/a");
    }
  return g_string_free (out, FALSE);
}

typedef struct {
  const char   *deck_path;
  const HsDeck *deck;
  HsDataset    *dataset;
  HsModelCache *models;
} Export;

/* Draws case `number` into `cr`, fitted into the box (x, y, w, h) in the
 * units of cr (points on a page, pixels on a slide). */
static gboolean
draw_case (const Export *ex, guint number, cairo_t *cr, double x, double y, double w, double h,
           double font_size, GError **error)
{
  const HsDeckCase *item = g_ptr_array_index (ex->deck->cases, number - 1);
  g_autoptr(GPtrArray) specs = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_figure_spec_panel_free);
  g_autoptr(GPtrArray) wheres = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(HsCliPanels) panels = NULL;
  g_autofree char *caption = NULL;
  g_autofree char *dataset_path = NULL;
  HsDeckTarget target = { 0 };
  HsFigureGrid grid;
  double gw, gh, s;
  guint n_panels;
  gboolean ok;

  if (!hs_deck_case_resolve (ex->deck, number, ex->deck_path, ex->dataset, &target, error))
    return FALSE;
  case_specs (ex->deck_path, number, item, &target, specs, wheres);
  hs_deck_target_clear (&target);
  dataset_path = g_strdup (hs_dataset_get_root (ex->dataset));
  panels = hs_cli_panels_load (ex->dataset, dataset_path, ex->models, specs, wheres,
                               item->overlay.opacity, error);
  if (panels == NULL)
    return FALSE;
  caption = case_caption (ex->deck, number, item, panels);

  hs_figure_grid_init (&grid);
  grid.panels = hs_cli_panels_get (panels, &n_panels);
  grid.n_panels = n_panels;
  grid.columns = MIN (n_panels, 4);
  grid.overlay = item->overlay;
  grid.caption = caption;
  grid.width = w;
  grid.font_size = font_size;
  if (!hs_figure_grid_get_size (&grid, &gw, &gh, error))
    return FALSE;
  /* too tall for the page: the whole figure smaller, centred */
  s = MIN (1.0, h / gh);
  cairo_save (cr);
  cairo_translate (cr, x + (w - gw * s) / 2, y);
  cairo_scale (cr, s, s);
  ok = hs_figure_grid_draw (&grid, cr, error);
  cairo_restore (cr);
  return ok;
}

static gboolean
export_pdf (const Export *ex, const char *output, gboolean letter, GError **error)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  double pw = letter ? LETTER_W : A4_W, ph = letter ? LETTER_H : A4_H;
  cairo_surface_t *surface = cairo_pdf_surface_create_for_stream (append_bytes, bytes, pw, ph);
  cairo_t *cr = cairo_create (surface);
  cairo_status_t status;
  gboolean ok = TRUE;

  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Heatscope");
  for (guint i = 1; ok && i <= ex->deck->cases->len; i++)
    {
      ok = draw_case (ex, i, cr, PAGE_MARGIN, PAGE_MARGIN, pw - 2 * PAGE_MARGIN,
                      ph - 2 * PAGE_MARGIN, 10, error);
      cairo_show_page (cr);
    }
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (ok && status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_IO, "%s: %s", output,
                   cairo_status_to_string (status));
      ok = FALSE;
    }
  return ok && hs_atomic_write (output, bytes->data, bytes->len, error);
}

/* OUT/case-NN.png, 1920 × 1080 each, white, the case fitted. */
static gboolean
export_png (const Export *ex, const char *folder, GError **error)
{
  if (g_mkdir_with_parents (folder, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_IO, "%s: %s", folder, g_strerror (saved));
      return FALSE;
    }
  for (guint i = 1; i <= ex->deck->cases->len; i++)
    {
      g_autoptr(GByteArray) bytes = g_byte_array_new ();
      g_autofree char *name = g_strdup_printf ("case-%02u.png", i);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, SLIDE_W, SLIDE_H);
      cairo_t *cr = cairo_create (surface);
      cairo_status_t status;
      gboolean ok;

      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_paint (cr);
      ok = draw_case (ex, i, cr, SLIDE_MARGIN, SLIDE_MARGIN, SLIDE_W - 2 * SLIDE_MARGIN,
                      SLIDE_H - 2 * SLIDE_MARGIN, 22, error);
      cairo_destroy (cr);
      status = ok ? cairo_surface_write_to_png_stream (surface, append_bytes, bytes)
                  : CAIRO_STATUS_SUCCESS;
      cairo_surface_destroy (surface);
      if (ok && status != CAIRO_STATUS_SUCCESS)
        {
          g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_IO, "%s: %s", path,
                       cairo_status_to_string (status));
          ok = FALSE;
        }
      if (!ok || !hs_atomic_write (path, bytes->data, bytes->len, error))
        return FALSE;
    }
  return TRUE;
}

int
hs_cli_deck_export (int argc, char **argv)
{
  g_autofree char *output = NULL, *format = NULL, *page = NULL;
  gboolean embed = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The handout (.pdf), the folder of slides (--format png) or the bundle (--embed-maps)", "OUT" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "pdf (default) or png: one 1920×1080 image per case in the folder OUT", "FORMAT" },
    { "page", 0, 0, G_OPTION_ARG_STRING, &page, "a4 (default) or letter, landscape", "SIZE" },
    { "embed-maps", 0, 0, G_OPTION_ARG_NONE, &embed, "A bundle: the new folder OUT holding deck.hsdeck, its instances and the maps each case showed, which presents identically without the models (docs/decks.md)", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("DECK — a PDF handout, slide images or a bundle");
  g_autoptr(GError) error = NULL;
  g_autoptr(HsDeck) deck = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(HsModelCache) models = NULL;
  Export ex = { 0 };
  gboolean ok;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "One page (or slide) per case through the figure composer: the view, the sentence, the\n"
    "note, the metrics the case lists, a colour bar with the scale; PDF text is vector text.");
  if (!hs_cli_parse (context, &argc, &argv, CMD))
    return HS_CLI_EXIT_USAGE;
  if (argc != 2 || output == NULL)
    {
      hs_cli_error (CMD, "expected DECK and -o OUT");
      return HS_CLI_EXIT_USAGE;
    }
  if (format && !g_str_equal (format, "pdf") && !g_str_equal (format, "png"))
    {
      hs_cli_error (CMD, "--format '%s': expected pdf or png", format);
      return HS_CLI_EXIT_USAGE;
    }
  if (page && !g_str_equal (page, "a4") && !g_str_equal (page, "letter"))
    {
      hs_cli_error (CMD, "--page '%s': expected a4 or letter", page);
      return HS_CLI_EXIT_USAGE;
    }
  if (embed && (format || page))
    {
      hs_cli_error (CMD, "--embed-maps writes a bundle folder: no --format or --page");
      return HS_CLI_EXIT_USAGE;
    }
  deck = hs_deck_load (argv[1], &error);
  if (deck == NULL)
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  if (embed)
    return hs_cli_deck_bundle (deck, argv[1], output);
  dataset = hs_deck_open_dataset (deck, argv[1], NULL, &error);
  if (dataset == NULL)
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  models = hs_model_cache_new ();
  ex.deck_path = argv[1];
  ex.deck = deck;
  ex.dataset = dataset;
  ex.models = models;
  if (format && g_str_equal (format, "png"))
    ok = export_png (&ex, output, &error);
  else
    ok = export_pdf (&ex, output, page && g_str_equal (page, "letter"), &error);
  if (!ok)
    {
      hs_cli_error (CMD, "%s", error->message);
      return HS_CLI_EXIT_INPUT;
    }
  return HS_CLI_EXIT_OK;
}
