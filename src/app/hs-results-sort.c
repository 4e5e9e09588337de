/* hs-results-sort.c — the results table's visible rows sorted: a radix
 * sort of a number column's keys, a comparison sort of a text column */
#include <math.h>
#include <string.h>

#include "hs-results-model.h"
#include "hs-results-sort.h"

typedef struct {
  const char *text;
  guint       index;
} SortKey;

static gint
compare_texts (gconstpointer a, gconstpointer b, gpointer data)
{
  const SortKey *x = a, *y = b;
  gboolean descending = *(gboolean *) data;
  int order = strcmp (x->text, y->text);

  if (descending)
    order = -order;
  return order != 0 ? order : (x->index < y->index ? -1 : x->index > y->index);
}

/* Row `index`'s text in `column`. */
static const char *
text_key (GPtrArray *rows, guint index, int column)
{
  HsResultsRow *row = g_ptr_array_index (rows, index);

  switch (column)
    {
    case HS_RESULTS_COLUMN_INSTANCE: return hs_results_row_get_instance (row);
    case HS_RESULTS_COLUMN_QUERY:    return hs_results_row_get_sentence (row);
    default:                         return hs_results_row_get_model (row);
    }
}

/* An unsigned key whose order is the column's for one direction (undefined
 * last whatever the direction, like a spreadsheet's blanks):
 * the IEEE-754 bits with the sign bit set (x ≥ 0) or all bits flipped
 * (x < 0), −0 taken as +0; descending flips them all again; NaN (undefined)
 * is the largest key either way, so it stays last.  (±∞ map below it.) */
static guint64
number_key (double x, gboolean descending)
{
  guint64 bits;

  if (isnan (x))
    return G_MAXUINT64;
  if (x == 0)
    x = 0;
  memcpy (&bits, &x, sizeof bits);
  bits = bits >> 63 ? ~bits : bits | G_GUINT64_CONSTANT (0x8000000000000000);
  return descending ? ~bits : bits;   /* never G_MAXUINT64: bits is never 0 */
}

typedef struct {
  guint64 key;
  guint   index;
} RadixItem;

/* A least-significant-digit radix sort of the keys, 8 bits per
 * pass, passes whose byte is the same for every row skipped.  Stable, so
 * equal keys stay in index order (the texts' tie-break too).  Linear:
 * 10⁵ rows in a few milliseconds, where the comparison sort of the same
 * keys took 25–80 ms on a loaded machine (docs/performance.md). */
void
hs_results_sort_numbers (GArray *view, const double *keys, gboolean descending)
{
  guint n = view->len;
  g_autofree RadixItem *a = g_new (RadixItem, MAX (1, n));
  g_autofree RadixItem *b = g_new (RadixItem, MAX (1, n));
  guint counts[8][256] = { { 0 } };
  RadixItem *from = a, *to = b;

  for (guint i = 0; i < n; i++)
    {
      guint index = g_array_index (view, guint, i);

      /* the column's values in one array, read in rows order (view is in
       * index order): no pointer chase through each row object */
      a[i].key = number_key (keys[index], descending);
      a[i].index = index;
      for (guint d = 0; d < 8; d++)
        counts[d][(a[i].key >> (8 * d)) & 0xff]++;
    }
  for (guint d = 0; d < 8; d++)
    {
      guint offsets[256], sum = 0;
      gboolean one_bucket = FALSE;

      for (guint v = 0; v < 256; v++)
        {
          one_bucket |= counts[d][v] == n;
          offsets[v] = sum;
          sum += counts[d][v];
        }
      if (one_bucket)
        continue;
      for (guint i = 0; i < n; i++)
        to[offsets[(from[i].key >> (8 * d)) & 0xff]++] = from[i];
      {
        RadixItem *t = from;
        from = to;
        to = t;
      }
    }
  for (guint i = 0; i < n; i++)
    g_array_index (view, guint, i) = from[i].index;
}


void
hs_results_sort_texts (GArray *view, GPtrArray *rows, int column, gboolean descending)
{
  guint n = view->len;
  g_autofree SortKey *keys = g_new (SortKey, MAX (1, n));

  for (guint i = 0; i < n; i++)
    {
      keys[i].index = g_array_index (view, guint, i);
      keys[i].text = text_key (rows, keys[i].index, column);
    }
  g_qsort_with_data (keys, (gint) n, sizeof (SortKey), compare_texts, &descending);
  for (guint i = 0; i < n; i++)
    g_array_index (view, guint, i) = keys[i].index;
}
