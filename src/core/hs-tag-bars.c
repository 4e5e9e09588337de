/* hs-tag-bars.c — a map's tag attention (co-attention) as a bar strip in
 * figures
 *
 *   tag attention · normalised entropy 0.62
 *        nodule ████████████░░░░░░░░░░ 0.512
 *          left █████░░░░░░░░░░░░░░░░░ 0.214
 *         right █░░░░░░░░░░░░░░░░░░░░░ 0.041
 *
 * The same conventions as the app's strip (hs-tag-strip.c): the model's
 * order (a tag keeps its row between sentences and between panels, so a
 * swap's strips compare row by row), bars on a fixed 0–1 scale (two
 * panels' bars compare by length), weights in the C locale with three
 * decimals, the largest bold.  Drawn through an HsPainter, so SVG keeps
 * real text. */
#include "hs-legend-private.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

static const double bar_fill[4] = { 0.16, 0.42, 0.68, 1 };
static const double bar_track[4] = { 0.88, 0.9, 0.93, 1 };
static const double bar_edge[4] = { 0.55, 0.58, 0.62, 1 };

typedef struct {
  double   title_size, size;     /* font sizes: title line, rows            */
  double   row_h, title_h;
  double   name_w, number_w, bar_x, bar_w;
  gboolean *shown;               /* n: which tags have a row                */
  guint    n_shown;
  double   hidden_sum;           /* weight of the tags without a row        */
  guint    largest;
  GPtrArray *title;              /* its lines (char*)                       */
} TagBarsLayout;

/* The title, "tag attention · normalised entropy 0.62", on as many lines
 * as the panel's width needs, broken between words (a narrow panel keeps
 * the number instead of cutting it off); only a single word wider than the
 * panel is cut with "…". */
static void
tag_bars_title (HsPainter *p, const HsTagWeight *tags, guint n, double width, TagBarsLayout *l)
{
  g_autofree char *title = NULL;
  g_auto(GStrv) words = NULL;
  GString *line = g_string_new (NULL);
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  double norm;

  hs_tag_attention_entropy (tags, n, &norm, NULL);
  if (isfinite (norm))
    title = g_strdup_printf (_("tag attention · normalised entropy %s"),
                             g_ascii_formatd (number, sizeof number, "%.2f", norm));
  else
    title = g_strdup (_("tag attention"));
  l->title = g_ptr_array_new_with_free_func (g_free);
  words = g_strsplit (title, " ", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      g_autofree char *longer = line->len > 0 ? g_strdup_printf ("%s %s", line->str, words[i])
                                              : g_strdup (words[i]);

      if (line->len > 0 && hs_painter_text_width (p, longer, l->title_size, TRUE) > width)
        {
          g_ptr_array_add (l->title, hs_painter_fit_text (p, line->str, l->title_size, TRUE, width));
          g_string_assign (line, words[i]);
        }
      else
        g_string_assign (line, longer);
    }
  g_ptr_array_add (l->title, hs_painter_fit_text (p, line->str, l->title_size, TRUE, width));
  g_string_free (line, TRUE);
  l->title_h += l->title_size * 1.2 * (l->title->len - 1);
}

static void
tag_bars_layout_clear (TagBarsLayout *l)
{
  g_free (l->shown);
  g_clear_pointer (&l->title, g_ptr_array_unref);
}

static void
tag_bars_layout (HsPainter *p, const HsTagWeight *tags, guint n, double width, double font_size,
                 TagBarsLayout *l)
{
  memset (l, 0, sizeof *l);
  l->title_size = font_size * 0.9;
  l->size = font_size * 0.85;
  l->row_h = l->size * 1.45;
  l->title_h = l->title_size * 1.5;
  l->shown = g_new0 (gboolean, MAX (n, 1));
  for (guint i = 1; i < n; i++)
    if (tags[i].weight > tags[l->largest].weight)
      l->largest = i;

  /* A long list keeps its largest tags (ties: the earlier), in order. */
  if (n <= HS_TAG_BARS_MAX_ROWS)
    for (guint i = 0; i < n; i++)
      l->shown[i] = TRUE;
  else
    for (guint k = 0; k < HS_TAG_BARS_MAX_ROWS - 1; k++)
      {
        guint best = G_MAXUINT;

        for (guint i = 0; i < n; i++)
          if (!l->shown[i] && (best == G_MAXUINT || tags[i].weight > tags[best].weight))
            best = i;
        l->shown[best] = TRUE;
      }
  for (guint i = 0; i < n; i++)
    {
      if (l->shown[i])
        {
          l->n_shown++;
          l->name_w = MAX (l->name_w, hs_painter_text_width (p, tags[i].tag, l->size,
                                                             i == l->largest));
        }
      else
        l->hidden_sum += tags[i].weight;
    }
  l->number_w = hs_painter_text_width (p, "0.000", l->size, TRUE);
  /* names take at most 45 % of the width; the bar at least the rest */
  l->name_w = MIN (l->name_w, width * 0.45);
  l->bar_x = l->name_w + l->size * 0.5;
  l->bar_w = MAX (width - l->bar_x - l->size * 0.5 - l->number_w, l->size);
  tag_bars_title (p, tags, n, width, l);
}

static double
tag_bars_height (const TagBarsLayout *l, guint n)
{
  return l->title_h + l->row_h * (l->n_shown + (l->n_shown < n ? 1 : 0));
}

char *
hs_painter_fit_text (HsPainter *p, const char *text, double size, gboolean bold, double width)
{
  glong n = g_utf8_strlen (text, -1);

  if (hs_painter_text_width (p, text, size, bold) <= width)
    return g_strdup (text);
  for (glong keep = n - 1; keep > 1; keep--)
    {
      g_autofree char *head = g_utf8_substring (text, 0, keep);
      char *cut = g_strconcat (head, "…", NULL);

      if (hs_painter_text_width (p, cut, size, bold) <= width)
        return cut;
      g_free (cut);
    }
  {
    g_autofree char *head = g_utf8_substring (text, 0, 1);
    return g_strconcat (head, "…", NULL);
  }
}

void
hs_tag_bars_measure (HsPainter *p, const HsTagWeight *tags, guint n, double width,
                     double font_size, double *height)
{
  TagBarsLayout l;

  if (n == 0 || tags == NULL)
    {
      *height = 0;
      return;
    }
  tag_bars_layout (p, tags, n, width, font_size, &l);
  *height = tag_bars_height (&l, n);
  tag_bars_layout_clear (&l);
}

void
hs_tag_bars_paint (HsPainter *p, const HsTagWeight *tags, guint n, double x, double y,
                   double width, double font_size, const double ink[4])
{
  TagBarsLayout l;
  double row_y;

  if (n == 0 || tags == NULL)
    return;
  tag_bars_layout (p, tags, n, width, font_size, &l);
  for (guint k = 0; k < l.title->len; k++)
    hs_painter_text (p, x, y + l.title_size * (1 + 1.2 * k), g_ptr_array_index (l.title, k),
                     l.title_size, ink, TRUE, HS_ANCHOR_START, 0);

  row_y = y + l.title_h;
  for (guint i = 0; i < n; i++)
    {
      char number[G_ASCII_DTOSTR_BUF_SIZE];
      gboolean bold = i == l.largest;
      double w = CLAMP (tags[i].weight, 0.0, 1.0);
      double bar_y = row_y + l.row_h * 0.18, bar_h = l.row_h * 0.64;
      double base = row_y + l.row_h * 0.5 + l.size * 0.35;
      g_autofree char *name = NULL;

      if (!l.shown[i])
        continue;
      name = hs_painter_fit_text (p, tags[i].tag, l.size, bold, l.name_w);
      hs_painter_text (p, x + l.name_w, base, name, l.size, ink, bold, HS_ANCHOR_END, 0);
      hs_painter_fill_rect (p, x + l.bar_x, bar_y, l.bar_w, bar_h, bar_track);
      if (w > 0)
        hs_painter_fill_rect (p, x + l.bar_x, bar_y, l.bar_w * w, bar_h, bar_fill);
      hs_painter_stroke_rect (p, x + l.bar_x, bar_y, l.bar_w, bar_h, bar_edge, 0.5);
      g_ascii_formatd (number, sizeof number, "%.3f", tags[i].weight);
      hs_painter_text (p, x + width, base, number, l.size, ink, bold, HS_ANCHOR_END, 0);
      row_y += l.row_h;
    }
  if (l.n_shown < n)
    {
      char number[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *more = NULL;
      g_autofree char *fitted = NULL;

      g_ascii_formatd (number, sizeof number, "%.3f", l.hidden_sum);
      more = g_strdup_printf (_("+ %u more tags (together %s)"), n - l.n_shown, number);
      fitted = hs_painter_fit_text (p, more, l.size, FALSE, width);
      hs_painter_text (p, x + width, row_y + l.row_h * 0.5 + l.size * 0.35, fitted, l.size, ink,
                       FALSE, HS_ANCHOR_END, 0);
    }
  tag_bars_layout_clear (&l);
}
