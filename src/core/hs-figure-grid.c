/* hs-figure-grid.c — the figure composer: rows × columns of panels on a page
 *
 * Geometry first (GridLayout, in points), then painting through the
 * HsPainter, so PNG/PDF (cairo) and SVG (direct, real <text>) are the same
 * layout.  The panels themselves are hs-figure's image panels; the colour
 * bars, region colours and text are hs-legend's and the painter's. */
#include "hs-figure-grid.h"
#include "hs-figure-private.h"
#include "hs-legend-private.h"
#include "hs-atomic-file.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>
#include <cairo-pdf.h>

#define NOTE_LINES 4
#define TITLE_LINES 2

static const double black[4] = { 0, 0, 0, 1 };
static const double grey[4] = { 0.3, 0.3, 0.3, 1 };
static const double white[4] = { 1, 1, 1, 1 };

void
hs_figure_grid_init (HsFigureGrid *grid)
{
  g_return_if_fail (grid != NULL);
  memset (grid, 0, sizeof *grid);
  grid->columns = 1;
  hs_overlay_options_init (&grid->overlay);
  grid->scale_group = HS_FIGURE_SCALE_SHARED;
  grid->width = 89 * 72 / 25.4;
  grid->font_size = 7;
  grid->dpi = 300;
  grid->letters = TRUE;
  grid->region_legend = TRUE;
}

gboolean
hs_figure_parse_length (const char *text, double *points, GError **error)
{
  static const struct { const char *unit; double pt; } units[] = {
    { "mm", 72 / 25.4 }, { "cm", 72 / 2.54 }, { "in", 72 }, { "pt", 1 }, { "", 1 },
  };
  char *end = NULL;
  double v;

  g_return_val_if_fail (points != NULL, FALSE);
  if (text != NULL && *text != '\0')
    {
      v = g_ascii_strtod (text, &end);
      if (end != text && isfinite (v) && v > 0)
        for (guint i = 0; i < G_N_ELEMENTS (units); i++)
          if (g_ascii_strcasecmp (end, units[i].unit) == 0)
            {
              *points = v * units[i].pt;
              return TRUE;
            }
    }
  g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
               _("bad length '%s' (a positive number with mm, cm, in or pt, e.g. 89mm)"),
               text ? text : "");
  return FALSE;
}

void
hs_figure_panel_letter (guint index, char letter[HS_FIGURE_LETTER_SIZE])
{
  if (index < 26)
    g_snprintf (letter, HS_FIGURE_LETTER_SIZE, "%c", 'a' + index);
  else
    g_snprintf (letter, HS_FIGURE_LETTER_SIZE, "%c%u", 'a' + index % 26, index / 26);
}

/* ---- layout ------------------------------------------------------------- */

/* Text is measured and drawn without hinted metrics: a 7 pt label measured
 * hinted at 7 units but drawn at 300 dpi would not have the measured width. */
static void
unhinted (cairo_t *cr)
{
  cairo_font_options_t *o = cairo_font_options_create ();

  cairo_font_options_set_hint_metrics (o, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (o, CAIRO_HINT_STYLE_NONE);
  cairo_set_font_options (cr, o);
  cairo_font_options_destroy (o);
}

typedef struct {
  HsLegendSpec   spec;
  HsLegendLayout layout;
  double         x, y;     /* top-left of the legend box */
} Bar;

typedef struct {
  char      *name;
  double     rgba[4];
  double     x, y;        /* swatch top-left */
  GPtrArray *lines;       /* the name wrapped to the page's width (char*) */
} RegionKey;

typedef struct {
  double        fs, m, gap;
  guint         rows, cols;
  double        head_w, head_h, title_h, note_h;
  double        tags_h;                 /* the tallest tag strip under a panel (0: none) */
  double        grid_x, cell_w, legend_w;
  double       *row_top, *row_h;        /* per row: title line top; panel height       */
  double       *zoom;                   /* per panel                                   */
  double       *panel_x, *panel_y;
  HsScaleRange *main_range, *diff_range; /* per scale group                            */
  guint         n_groups;
  GArray       *bars;                   /* Bar                                         */
  GArray       *regions;                /* RegionKey                                   */
  double        region_h;
  GPtrArray    *caption;                /* char* lines                                 */
  double        caption_y;
  double        width, height;
} GridLayout;

static void
grid_layout_clear (GridLayout *l)
{
  g_clear_pointer (&l->row_top, g_free);
  g_clear_pointer (&l->row_h, g_free);
  g_clear_pointer (&l->zoom, g_free);
  g_clear_pointer (&l->panel_x, g_free);
  g_clear_pointer (&l->panel_y, g_free);
  g_clear_pointer (&l->main_range, g_free);
  g_clear_pointer (&l->diff_range, g_free);
  g_clear_pointer (&l->bars, g_array_unref);
  if (l->regions)
    for (guint i = 0; i < l->regions->len; i++)
      {
        g_free (g_array_index (l->regions, RegionKey, i).name);
        g_clear_pointer (&g_array_index (l->regions, RegionKey, i).lines, g_ptr_array_unref);
      }
  g_clear_pointer (&l->regions, g_array_unref);
  g_clear_pointer (&l->caption, g_ptr_array_unref);
}

static gboolean
panel_has_map (const HsFigurePanel *panel)
{
  const HsFigureView *v = &panel->view;
  return v->map != NULL && v->map_width > 0 && v->map_height > 0 && v->show_overlay;
}

/* What stands under a panel: the phantom note first (NOTE_LINES never cuts
 * it), then the caller's note. */
static char *
panel_note (const HsFigurePanel *panel)
{
  if (!panel->view.phantom_model_on_real_image)
    return g_strdup (panel->note);
  if (panel->note == NULL || *panel->note == '\0')
    return g_strdup (hs_caption_phantom_note ());
  return g_strdup_printf ("%s · %s", hs_caption_phantom_note (), panel->note);
}

static guint
group_of (const HsFigureGrid *g, guint panel)
{
  switch (g->scale_group)
    {
    case HS_FIGURE_SCALE_ROW:
      return panel / g->columns;
    case HS_FIGURE_SCALE_COLUMN:
      return panel % g->columns;
    case HS_FIGURE_SCALE_SHARED:
    default:
      return 0;
    }
}

static const char *
panel_quantity (const HsFigurePanel *panel)
{
  return panel->quantity ? panel->quantity : "attention weight";
}

/* The title of group gi's bar: the grid's quantity, else the one its
 * panels measure; a bar cannot stand for two quantities (a map unstated in
 * its manifest counts as "attention weight"). */
static gboolean
group_quantity (const HsFigureGrid *g, guint gi, const char **title, GError **error)
{
  const HsFigurePanel *first = NULL;
  guint first_i = 0;

  *title = g->quantity ? g->quantity : "attention weight";
  if (g->quantity)
    return TRUE;
  for (guint i = 0; i < g->n_panels; i++)
    {
      const HsFigurePanel *panel = &g->panels[i];

      if (group_of (g, i) != gi || panel->difference || !panel_has_map (panel))
        continue;
      if (first == NULL)
        {
          first = panel;
          first_i = i;
          *title = panel_quantity (panel);
        }
      else if (strcmp (panel_quantity (first), panel_quantity (panel)) != 0)
        {
          g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                       _("panels %u and %u share a colour bar but measure different quantities "
                       "(\"%s\" and \"%s\"): name the bar's quantity, or scale per row or column"),
                       first_i + 1, i + 1, panel_quantity (first), panel_quantity (panel));
          return FALSE;
        }
    }
  return TRUE;
}

/* Greedy word wrap of `text` to `width` at `size`; at most max_lines (0:
 * any), the last of a cut text ending in "…". */
static GPtrArray *
wrap_text (HsPainter *p, const char *text, double size, gboolean bold, double width,
           guint max_lines)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) words = g_strsplit (text ? text : "", " ", -1);
  GString *line = g_string_new (NULL);

  for (guint i = 0; words[i]; i++)
    {
      g_autofree char *try = NULL;

      if (*words[i] == '\0')
        continue;
      try = line->len ? g_strconcat (line->str, " ", words[i], NULL) : g_strdup (words[i]);
      if (line->len && hs_painter_text_width (p, try, size, bold) > width)
        {
          g_ptr_array_add (lines, g_strdup (line->str));
          g_string_assign (line, words[i]);
        }
      else
        g_string_assign (line, try);
    }
  if (line->len)
    g_ptr_array_add (lines, g_string_free (line, FALSE));
  else
    g_string_free (line, TRUE);
  if (max_lines > 0 && lines->len > max_lines)
    {
      char *last = g_ptr_array_index (lines, max_lines - 1);
      g_ptr_array_set_size (lines, max_lines);
      lines->pdata[max_lines - 1] = g_strconcat (last, " …", NULL);
      g_free (last);
    }
  /* a single word wider than the line is cut, not allowed to overflow */
  for (guint i = 0; i < lines->len; i++)
    {
      char *s = g_ptr_array_index (lines, i);
      while (hs_painter_text_width (p, s, size, bold) > width && g_utf8_strlen (s, -1) > 2)
        {
          glong n = g_utf8_strlen (s, -1);
          char *cut = g_utf8_substring (s, 0, n - 2);
          g_free (s);
          s = g_strconcat (cut, "…", NULL);
          g_free (cut);
        }
      lines->pdata[i] = s;
    }
  return lines;
}

/* The scale of each group: main = the grid's scale over all its
 * non-difference maps together; difference = symmetric ±max |A − B|. */
static gboolean
compute_ranges (const HsFigureGrid *g, GridLayout *l, gboolean *has_main, gboolean *has_diff,
                GError **error)
{
  for (guint gi = 0; gi < l->n_groups; gi++)
    {
      g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
      double amax = 0;

      for (guint i = 0; i < g->n_panels; i++)
        {
          const HsFigurePanel *panel = &g->panels[i];
          gsize n;

          if (group_of (g, i) != gi || !panel_has_map (panel))
            continue;
          n = (gsize) panel->view.map_width * panel->view.map_height;
          if (panel->difference)
            {
              has_diff[gi] = TRUE;
              for (gsize k = 0; k < n; k++)
                if (isfinite (panel->view.map[k]))
                  amax = MAX (amax, fabs (panel->view.map[k]));
            }
          else
            {
              has_main[gi] = TRUE;
              g_array_append_vals (values, panel->view.map, n);
            }
        }
      if (has_main[gi])
        {
          g_autoptr(GError) local = NULL;

          if (!hs_scale_resolve (&g->overlay.scale, (const double *) (void *) values->data,
                                 values->len, &l->main_range[gi], &local))
            {
              g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                           _("cannot scale the figure's maps: %s"), local->message);
              return FALSE;
            }
        }
      if (!(amax > 0 && isfinite (amax)))
        amax = 1;
      l->diff_range[gi].lo = -amax;
      l->diff_range[gi].hi = amax;
    }
  return TRUE;
}

static void
diff_overlay (const HsFigureGrid *g, HsOverlayOptions *o)
{
  *o = g->overlay;
  o->colormap = HS_COLORMAP_DIVERGING;
  o->threshold = 0;
  o->scale.mode = HS_SCALE_FIXED;
}

/* Panels colour their regions by position (hs_region_color), so one colour
 * may name different regions in different panels: the key has one swatch
 * per colour listing every name drawn in it. */
static void
add_region (GArray *regions, const char *name, guint index)
{
  RegionKey key = { 0 };

  if (name == NULL || *name == '\0')
    return;
  hs_region_color (index, key.rgba);
  for (guint i = 0; i < regions->len; i++)
    {
      RegionKey *k = &g_array_index (regions, RegionKey, i);
      g_auto(GStrv) names = NULL;
      char *joined;

      if (memcmp (k->rgba, key.rgba, sizeof key.rgba) != 0)
        continue;
      names = g_strsplit (k->name, " / ", -1);
      if (g_strv_contains ((const char * const *) names, name))
        return;
      joined = g_strconcat (k->name, " / ", name, NULL);
      g_free (k->name);
      k->name = joined;
      return;
    }
  key.name = g_strdup (name);
  g_array_append_val (regions, key);
}

static gboolean
legend_spec (const HsFigureGrid *g, HsPainter *p, Bar *bar, gboolean diff, guint gi,
             const HsScaleRange *range, double length, double fs, GError **error)
{
  g_autoptr(GError) local = NULL;
  const char *quantity;

  if (!group_quantity (g, gi, &quantity, error))
    return FALSE;
  hs_legend_spec_init (&bar->spec);
  if (diff)
    diff_overlay (g, &bar->spec.overlay);
  else
    bar->spec.overlay = g->overlay;
  bar->spec.range = *range;
  /* The default quantity is compared in English (panel_quantity) and only
   * translated for the reader. */
  bar->spec.title = diff ? _("difference A − B")
                         : strcmp (quantity, "attention weight") == 0 ? _("attention weight") : quantity;
  bar->spec.horizontal = g->scale_group == HS_FIGURE_SCALE_COLUMN;
  bar->spec.length = MAX (length, fs * 4);
  bar->spec.font_size = fs;
  if (!hs_legend_layout_with (p, &bar->spec, &bar->layout, &local))
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                   _("cannot draw the colour bar: %s"), local->message);
      return FALSE;
    }
  return TRUE;
}

/* Per-column scales: each column's bars (its maps', then its differences')
 * horizontal under it, as wide as the column; *y moves below them. */
static gboolean
place_column_bars (const HsFigureGrid *g, HsPainter *p, GridLayout *l, const gboolean *has_main,
                   const gboolean *has_diff, double *y, GError **error)
{
  double top = *y + l->fs * 0.6;

  for (guint gi = 0; gi < l->n_groups; gi++)
    {
      double by = top, x = l->grid_x + gi * (l->cell_w + l->gap);

      for (int d = 0; d < 2; d++)
        {
          const HsScaleRange *range = d ? &l->diff_range[gi] : &l->main_range[gi];
          double length = l->cell_w * 0.9;
          Bar bar;

          if (!(d ? has_diff[gi] : has_main[gi]))
            continue;
          if (!legend_spec (g, p, &bar, d, gi, range, length, l->fs, error))
            return FALSE;
          /* end values overhang the bar: shorten it until all fits the column */
          if (bar.layout.width > l->cell_w
              && !legend_spec (g, p, &bar, d, gi, range, length - (bar.layout.width - l->cell_w),
                               l->fs, error))
            return FALSE;
          bar.x = x;
          bar.y = by;
          by += bar.layout.height + l->fs * 0.5;
          g_array_append_val (l->bars, bar);
          *y = MAX (*y, bar.y + bar.layout.height);
        }
    }
  return TRUE;
}

/* A panel's badge's text size: the note's, smaller when the badge would
 * be wider than its cell (it would run into the next panel's note). */
static double
badge_font (const HsFigureGrid *g, guint i, double fs, double cell_w)
{
  double w = 0, h = 0;

  hs_badge_size (g->panels[i].badge, fs * 0.8, &w, &h);
  return w > cell_w && cell_w > 0 ? fs * 0.8 * cell_w / w : fs * 0.8;
}

/* The height a panel's badge takes above its note (0: none). */
static double
badge_height (const HsFigureGrid *g, guint i, double fs, double cell_w)
{
  double w = 0, h = 0;

  if (g->panels[i].badge == NULL || *g->panels[i].badge == '\0')
    return 0;
  hs_badge_size (g->panels[i].badge, badge_font (g, i, fs, cell_w), &w, &h);
  return h + fs * 0.25;
}

static gboolean
compute_grid_layout (const HsFigureGrid *g, HsPainter *p, GridLayout *l, GError **error)
{
  g_autofree gboolean *has_main = NULL, *has_diff = NULL;
  g_autofree double *aspect = NULL;
  gboolean any_title = g->letters, any_note = FALSE;
  double y;

  memset (l, 0, sizeof *l);
  unhinted (p->measure);
  if (g->n_panels == 0 || g->panels == NULL)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID, _("the figure has no panels"));
      return FALSE;
    }
  if (g->columns == 0 || g->columns > 64 || g->n_panels > 4096)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                   _("%u panels in %u columns: use 1 to 64 columns and at most 4096 panels"),
                   g->n_panels, g->columns);
      return FALSE;
    }
  if (!(g->width >= 36 && g->width <= 14400) || !(g->font_size >= 2 && g->font_size <= 72)
      || !(g->dpi >= 36 && g->dpi <= 2400))
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                   _("page width %g pt, font %g pt or %g dpi out of range "
                   "(0.5–200 in, 2–72 pt, 36–2400 dpi)"), g->width, g->font_size, g->dpi);
      return FALSE;
    }

  l->fs = g->font_size;
  l->m = round (l->fs * 0.8 * 4) / 4;
  l->gap = l->fs * 0.6;
  l->cols = MIN (g->columns, g->n_panels);
  l->rows = (g->n_panels + g->columns - 1) / g->columns;
  l->n_groups = g->scale_group == HS_FIGURE_SCALE_ROW ? l->rows
                : g->scale_group == HS_FIGURE_SCALE_COLUMN ? l->cols : 1;
  l->main_range = g_new0 (HsScaleRange, l->n_groups);
  l->diff_range = g_new0 (HsScaleRange, l->n_groups);
  has_main = g_new0 (gboolean, l->n_groups);
  has_diff = g_new0 (gboolean, l->n_groups);
  if (!compute_ranges (g, l, has_main, has_diff, error))
    return FALSE;

  aspect = g_new0 (double, g->n_panels);
  for (guint i = 0; i < g->n_panels; i++)
    {
      double vw, vh;

      if (!hs_figure_view_extent (&g->panels[i].view, &vw, &vh, error))
        {
          g_prefix_error (error, _("panel %u: "), i + 1);
          return FALSE;
        }
      aspect[i] = vh / vw;
      any_title |= g->panels[i].title != NULL;
    }

  /* Columns: margin, row headers, cells, the legend column, margin. */
  l->head_w = g->row_headers && g->row_headers[0] ? l->fs * 1.6 : 0;
  l->head_h = g->column_headers && g->column_headers[0] ? l->fs * 1.5 : 0;
  l->title_h = any_title ? l->fs * 1.45 : 0;  /* grown below once the cell width is known */
  l->note_h = 0;
  l->bars = g_array_new (FALSE, TRUE, sizeof (Bar));
  /* per-column bars lie under their columns: no legend column */
  for (guint gi = 0; g->scale_group != HS_FIGURE_SCALE_COLUMN && gi < l->n_groups; gi++)
    {
      double group_w = 0;

      for (int d = 0; d < 2; d++)
        {
          Bar bar;

          if (!(d ? has_diff[gi] : has_main[gi]))
            continue;
          if (!legend_spec (g, p, &bar, d, gi, d ? &l->diff_range[gi] : &l->main_range[gi], 100,
                            l->fs, error))
            return FALSE;
          group_w += bar.layout.width + (d && has_main[gi] ? l->fs : 0);
        }
      l->legend_w = MAX (l->legend_w, group_w);
    }
  l->grid_x = l->m + l->head_w;
  l->cell_w = (g->width - l->grid_x - l->m - (l->legend_w > 0 ? l->legend_w + l->m : 0)
               - (l->cols - 1) * l->gap) / l->cols;
  if (l->cell_w < l->fs * 4)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                   _("a %.1f pt wide page is too narrow for %u columns at %g pt text "
                   "(panels would be %.1f pt wide)"), g->width, l->cols, l->fs, l->cell_w);
      return FALSE;
    }

  /* titles take up to TITLE_LINES lines; the letter leads the first */
  for (guint i = 0; i < g->n_panels; i++)
    if (g->panels[i].title)
      {
        g_autofree char *lead = g->letters ? g_strconcat ("mm ", g->panels[i].title, NULL)
                                           : g_strdup (g->panels[i].title);
        g_autoptr(GPtrArray) t = wrap_text (p, lead, l->fs * 0.9, FALSE, l->cell_w, TITLE_LINES);
        l->title_h = MAX (l->title_h, l->fs * 1.45 + (t->len - 1) * l->fs * 1.1);
      }
  for (guint i = 0; i < g->n_panels; i++)
    {
      g_autofree char *note = panel_note (&g->panels[i]);
      double badge_h = badge_height (g, i, l->fs, l->cell_w);

      if (note != NULL || badge_h > 0)
        {
          g_autoptr(GPtrArray) t = wrap_text (p, note, l->fs * 0.8, FALSE, l->cell_w, NOTE_LINES);
          l->note_h = MAX (l->note_h, badge_h + t->len * l->fs * 0.8 * 1.25 + l->fs * 0.3);
        }
    }
  (void) any_note;
  /* tag strips under their panels: one height for every row, like notes */
  l->tags_h = 0;
  for (guint i = 0; i < g->n_panels; i++)
    {
      const HsFigureView *v = &g->panels[i].view;
      double h;

      if (!v->show_tags || v->n_tags == 0 || v->tags == NULL)
        continue;
      hs_tag_bars_measure (p, v->tags, v->n_tags, l->cell_w, l->fs, &h);
      l->tags_h = MAX (l->tags_h, h + l->fs * 0.4);
    }

  /* Rows: title line, panels (the tallest sets the row), tag strips, notes. */
  l->row_top = g_new0 (double, l->rows);
  l->row_h = g_new0 (double, l->rows);
  l->zoom = g_new0 (double, g->n_panels);
  l->panel_x = g_new0 (double, g->n_panels);
  l->panel_y = g_new0 (double, g->n_panels);
  y = l->m + l->head_h;
  for (guint r = 0; r < l->rows; r++)
    {
      l->row_top[r] = y;
      for (guint c = 0; c < l->cols && r * g->columns + c < g->n_panels; c++)
        l->row_h[r] = MAX (l->row_h[r], l->cell_w * aspect[r * g->columns + c]);
      for (guint c = 0; c < l->cols && r * g->columns + c < g->n_panels; c++)
        {
          guint i = r * g->columns + c;
          double vw, vh, zoom;

          hs_figure_view_extent (&g->panels[i].view, &vw, &vh, NULL);
          zoom = MIN (l->cell_w / vw, l->row_h[r] / vh);
          l->zoom[i] = zoom;
          l->panel_x[i] = l->grid_x + c * (l->cell_w + l->gap) + (l->cell_w - vw * zoom) / 2;
          l->panel_y[i] = y + l->title_h + (l->row_h[r] - vh * zoom) / 2;
        }
      y += l->title_h + l->row_h[r] + l->tags_h + l->note_h + (r + 1 < l->rows ? l->gap : 0);
    }

  /* Legends: per group, stacked over the panels' height of its rows, or
   * (per column) horizontal under the column. */
  g_array_set_size (l->bars, 0);
  if (g->scale_group == HS_FIGURE_SCALE_COLUMN && !place_column_bars (g, p, l, has_main,
                                                                       has_diff, &y, error))
    return FALSE;
  for (guint gi = 0; g->scale_group != HS_FIGURE_SCALE_COLUMN && gi < l->n_groups; gi++)
    {
      guint r0 = g->scale_group == HS_FIGURE_SCALE_ROW ? gi : 0;
      guint r1 = g->scale_group == HS_FIGURE_SCALE_ROW ? gi : l->rows - 1;
      double y0 = l->row_top[r0] + l->title_h, y1 = l->row_top[r1] + l->title_h + l->row_h[r1];
      double slot, x;

      /* side by side, each as long as the rows' panels: a rotated title
       * needs the length */
      slot = y1 - y0;
      x = g->width - l->m - l->legend_w;
      for (int d = 0; d < 2; d++)
        {
          Bar bar;

          if (!(d ? has_diff[gi] : has_main[gi]))
            continue;
          if (!legend_spec (g, p, &bar, d, gi, d ? &l->diff_range[gi] : &l->main_range[gi],
                            slot - l->fs, l->fs, error))
            return FALSE;
          bar.x = x;
          bar.y = y0 + l->fs * 0.5 - bar.layout.bar_y;
          x += bar.layout.width + l->fs;
          g_array_append_val (l->bars, bar);
          y = MAX (y, bar.y + bar.layout.height);
        }
    }

  /* Region colours, flowing in lines under the grid. */
  l->regions = g_array_new (FALSE, TRUE, sizeof (RegionKey));
  if (g->region_legend)
    {
      double x = l->grid_x, sw = l->fs * 0.8;

      for (guint i = 0; i < g->n_panels; i++)
        {
          const HsFigureView *v = &g->panels[i].view;

          for (guint b = 0; v->show_boxes && b < v->n_boxes; b++)
            add_region (l->regions, v->boxes[b].name, b);
          for (guint j = 0; v->show_masks && j < v->n_masks; j++)
            {
              gboolean named = FALSE;

              for (guint b = 0; v->show_boxes && v->masks[j].name && b < v->n_boxes; b++)
                named |= g_strcmp0 (v->boxes[b].name, v->masks[j].name) == 0;
              if (!named)
                add_region (l->regions, v->masks[j].name, v->n_boxes + j);
            }
        }
      if (l->regions->len)
        {
          /* a name wider than the page (one colour naming many regions)
           * wraps between words under its swatch instead of running off
           * the page's edge */
          double room = g->width - l->m - l->grid_x - sw - l->fs * 0.3, row_h = l->fs * 1.3;

          y += l->fs * 0.8;
          for (guint i = 0; i < l->regions->len; i++)
            {
              RegionKey *key = &g_array_index (l->regions, RegionKey, i);
              double text_w = 0, w;

              key->lines = wrap_text (p, key->name, l->fs, FALSE, room, 0);
              for (guint k = 0; k < key->lines->len; k++)
                text_w = MAX (text_w, hs_painter_text_width (p, g_ptr_array_index (key->lines, k),
                                                             l->fs, FALSE));
              w = sw + l->fs * 0.3 + text_w;
              if (x > l->grid_x && x + w > g->width - l->m)
                {
                  x = l->grid_x;
                  y += row_h;
                  row_h = l->fs * 1.3;
                }
              key->x = x;
              key->y = y;
              x += w + l->fs;
              row_h = MAX (row_h, l->fs * 1.3 * MAX (key->lines->len, 1));
            }
          y += row_h;
        }
    }

  if (g->caption && *g->caption)
    {
      l->caption = wrap_text (p, g->caption, l->fs, FALSE, g->width - 2 * l->m, 0);
      l->caption_y = y + l->fs * 0.4;
      y = l->caption_y + l->caption->len * l->fs * 1.25;
    }
  l->width = g->width;
  l->height = ceil ((y + l->m) * 4) / 4;
  return TRUE;
}

/* ---- painting ----------------------------------------------------------- */

static gboolean
paint_grid (const HsFigureGrid *g, HsPainter *p, const GridLayout *l, GError **error)
{
  double fs = l->fs;

  hs_painter_fill_rect (p, 0, 0, l->width, l->height, white);

  for (guint c = 0; l->head_h > 0 && c < l->cols && g->column_headers[c]; c++)
    hs_painter_text (p, l->grid_x + c * (l->cell_w + l->gap) + l->cell_w / 2, l->m + fs,
                     g->column_headers[c], fs, black, TRUE, HS_ANCHOR_MIDDLE, 0);
  for (guint r = 0; l->head_w > 0 && r < l->rows && g->row_headers[r]; r++)
    hs_painter_text (p, l->m + fs, l->row_top[r] + l->title_h + l->row_h[r] / 2,
                     g->row_headers[r], fs, black, TRUE, HS_ANCHOR_MIDDLE, -90);

  for (guint i = 0; i < g->n_panels; i++)
    {
      const HsFigurePanel *panel = &g->panels[i];
      HsFigureView view = panel->view;
      g_autofree char *note = panel_note (panel);
      guint r = i / g->columns, c = i % g->columns, gi = group_of (g, i);
      double cx = l->grid_x + c * (l->cell_w + l->gap), x = cx;
      double vw, vh;

      if (panel->difference)
        diff_overlay (g, &view.overlay);
      else
        {
          double opacity = view.overlay.opacity;
          view.overlay = g->overlay;
          view.overlay.opacity = opacity;
        }
      if (!hs_figure_paint_panel (&view, p, l->panel_x[i], l->panel_y[i], l->zoom[i], fs * 0.85,
                                  panel->difference ? &l->diff_range[gi] : &l->main_range[gi],
                                  error))
        {
          g_prefix_error (error, _("panel %u: "), i + 1);
          return FALSE;
        }
      hs_figure_view_extent (&view, &vw, &vh, NULL);

      /* letter and title on one line above the panel */
      if (g->letters)
        {
          char letter[HS_FIGURE_LETTER_SIZE];

          hs_figure_panel_letter (i, letter);
          hs_painter_text (p, x, l->row_top[r] + fs * 1.05, letter, fs * 1.15, black, TRUE,
                           HS_ANCHOR_START, 0);
          x += hs_painter_text_width (p, letter, fs * 1.15, TRUE) + fs * 0.45;
        }
      if (panel->title)
        {
          /* the first line after the letter, the rest under it; lines are
           * the same width as in the layout's measure ("mm " ≈ the letter) */
          g_autoptr(GPtrArray) t = wrap_text (p, panel->title, fs * 0.9, FALSE,
                                              cx + l->cell_w - x, 1);
          g_autoptr(GPtrArray) all = NULL;
          guint n_first;

          if (t->len)
            {
              const char *first = g_ptr_array_index (t, 0);
              gboolean cut = g_str_has_suffix (first, "…");

              if (cut)
                {
                  /* wrap the whole title: its first line by the letter */
                  all = wrap_text (p, panel->title, fs * 0.9, FALSE, cx + l->cell_w - x, 0);
                  first = g_ptr_array_index (all, 0);
                }
              hs_painter_text (p, x, l->row_top[r] + fs * 1.05, first, fs * 0.9, black, FALSE,
                               HS_ANCHOR_START, 0);
              n_first = g_utf8_strlen (first, -1);
              if (cut && all->len > 1)
                {
                  g_autofree char *rest = g_utf8_substring (panel->title, n_first,
                                                            g_utf8_strlen (panel->title, -1));
                  g_autoptr(GPtrArray) more = wrap_text (p, g_strstrip (rest), fs * 0.9, FALSE,
                                                         cx + l->cell_w - x, TITLE_LINES - 1);
                  for (guint k = 0; k < more->len; k++)
                    hs_painter_text (p, x, l->row_top[r] + fs * (1.05 + 1.1 * (k + 1)),
                                     g_ptr_array_index (more, k), fs * 0.9, black, FALSE,
                                     HS_ANCHOR_START, 0);
                }
            }
        }
      if (view.show_tags && view.n_tags > 0 && view.tags != NULL)
        hs_tag_bars_paint (p, view.tags, view.n_tags, cx,
                           l->row_top[r] + l->title_h + l->row_h[r] + fs * 0.3, l->cell_w, fs,
                           black);
      if (panel->badge && *panel->badge)
        hs_badge_paint (p, panel->badge, panel->badge_tone, cx,
                        l->row_top[r] + l->title_h + l->row_h[r] + l->tags_h + fs * 0.25,
                        badge_font (g, i, fs, l->cell_w));
      if (note != NULL)
        {
          g_autoptr(GPtrArray) t = wrap_text (p, note, fs * 0.8, FALSE, l->cell_w, NOTE_LINES);
          double ny = l->row_top[r] + l->title_h + l->row_h[r] + l->tags_h + fs * 0.2
                      + badge_height (g, i, fs, l->cell_w);

          for (guint k = 0; k < t->len; k++)
            hs_painter_text (p, cx, ny + fs * 0.8 * (1.0 + 1.25 * k), g_ptr_array_index (t, k),
                             fs * 0.8, grey, FALSE, HS_ANCHOR_START, 0);
        }
    }

  for (guint b = 0; b < l->bars->len; b++)
    {
      const Bar *bar = &g_array_index (l->bars, Bar, b);
      hs_legend_paint (p, &bar->spec, &bar->layout, bar->x, bar->y, black);
    }

  for (guint i = 0; i < l->regions->len; i++)
    {
      const RegionKey *key = &g_array_index (l->regions, RegionKey, i);
      double sw = fs * 0.8;

      hs_painter_fill_rect (p, key->x, key->y, sw, sw, key->rgba);
      hs_painter_stroke_rect (p, key->x, key->y, sw, sw, grey, MAX (0.25, fs / 28));
      for (guint k = 0; k < key->lines->len; k++)
        hs_painter_text (p, key->x + sw + fs * 0.3, key->y + sw * 0.9 + fs * 1.3 * k,
                         g_ptr_array_index (key->lines, k), fs, black, FALSE, HS_ANCHOR_START, 0);
    }

  for (guint k = 0; l->caption && k < l->caption->len; k++)
    hs_painter_text (p, l->m, l->caption_y + fs * (1.0 + 1.25 * k),
                     g_ptr_array_index (l->caption, k), fs, black, FALSE, HS_ANCHOR_START, 0);
  return TRUE;
}

/* ---- entry points ------------------------------------------------------- */

gboolean
hs_figure_grid_get_size (const HsFigureGrid *grid, double *width, double *height, GError **error)
{
  HsPainter p;
  GridLayout l;
  gboolean ok;

  g_return_val_if_fail (grid != NULL, FALSE);
  hs_painter_init (&p, NULL, NULL);
  ok = compute_grid_layout (grid, &p, &l, error);
  if (ok && width)
    *width = l.width;
  if (ok && height)
    *height = l.height;
  grid_layout_clear (&l);
  hs_painter_clear (&p);
  return ok;
}

static gboolean
size_grid (gconstpointer grid, double *width, double *height, GError **error)
{
  return hs_figure_grid_get_size (grid, width, height, error);
}

static gboolean
paint_page (gconstpointer figure, HsPainter *p, double *width, double *height, GError **error)
{
  const HsFigureGrid *grid = figure;
  GridLayout l;
  gboolean ok = compute_grid_layout (grid, p, &l, error);

  if (ok)
    {
      *width = l.width;
      *height = l.height;
      if (p->cr != NULL)
        unhinted (p->cr);
      ok = paint_grid (grid, p, &l, error);
    }
  grid_layout_clear (&l);
  return ok;
}

gboolean
hs_figure_grid_draw (const HsFigureGrid *grid, cairo_t *cr, GError **error)
{
  g_return_val_if_fail (grid != NULL, FALSE);
  g_return_val_if_fail (cr != NULL, FALSE);
  return hs_figure_paint_cairo (grid, paint_page, cr, error);
}

cairo_surface_t *
hs_figure_grid_render_surface (const HsFigureGrid *grid, GError **error)
{
  g_return_val_if_fail (grid != NULL, NULL);
  return hs_figure_export_surface (grid, size_grid, paint_page, grid->dpi / 72.0, grid->dpi,
                                   error);
}

gboolean
hs_figure_grid_save (const HsFigureGrid *grid, HsFigureFormat format, const char *path,
                     GError **error)
{
  g_return_val_if_fail (grid != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (format == HS_FIGURE_PNG)
    return hs_figure_export_png (hs_figure_grid_render_surface (grid, error), path, error);
  else if (format == HS_FIGURE_PDF)
    return hs_figure_export_pdf (grid, size_grid, paint_page, grid->caption, path, error);
  else if (format == HS_FIGURE_SVG)
    /* width/height in pt: the page prints at its requested size */
    return hs_figure_export_svg (grid, paint_page, "pt", grid->caption, path, error);
  g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_FORMAT, _("%s: unknown figure format"), path);
  return FALSE;
}
