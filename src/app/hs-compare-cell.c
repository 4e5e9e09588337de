/* hs-compare-cell.c — one map of the compare view */
#include <math.h>
#include <glib/gi18n.h>

#include "hs-compare-cell.h"
#include "hs-css-private.h"
#include "hs-tag-strip.h"
#include "hs-utils-private.h"

struct _HsCompareCell
{
  GtkWidget       parent_instance;

  GtkWidget      *box;
  GtkLabel       *title;
  GtkStack       *stack;         /* "map", "pending", "error" */
  HsCanvas       *canvas;
  GtkLabel       *message;       /* the error text */
  GtkWidget      *readout_box;
  GtkWidget      *footer;        /* the read-out and the tag strip */
  GtkDrawingArea *badge;         /* hs_badge_draw of badge_text */
  GtkLabel       *readout;
  HsTagStrip     *tag_strip;

  HsViewState    *state;
  HsAttentionMap *map;
  char           *title_text;
  char           *readout_text;
  char           *error_text;
  char           *detail_text;   /* the read-out's text on screen */
  char           *badge_text;    /* NULL: no badge */
  HsBadgeTone     badge_tone;
  int             wrong_side;
  HsCompareCell  *shown;         /* whose read-out is shown (blink), NULL: own */
  GArray         *tags;          /* HsTagWeight, the map's tag attention (copies) */
  gboolean        show_tags;
  gboolean        pending;
};

G_DEFINE_FINAL_TYPE (HsCompareCell, hs_compare_cell, GTK_TYPE_WIDGET)

static void
hs_compare_cell_dispose (GObject *object)
{
  HsCompareCell *self = HS_COMPARE_CELL (object);

  g_clear_weak_pointer (&self->shown);
  gtk_widget_dispose_template (GTK_WIDGET (self), HS_TYPE_COMPARE_CELL);
  g_clear_object (&self->state);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  G_OBJECT_CLASS (hs_compare_cell_parent_class)->dispose (object);
}

static void
hs_compare_cell_finalize (GObject *object)
{
  HsCompareCell *self = HS_COMPARE_CELL (object);

  g_free (self->title_text);
  g_free (self->readout_text);
  g_free (self->error_text);
  g_free (self->detail_text);
  g_free (self->badge_text);
  g_array_unref (self->tags);
  G_OBJECT_CLASS (hs_compare_cell_parent_class)->finalize (object);
}

static void
hs_compare_cell_class_init (HsCompareCellClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_compare_cell_dispose;
  object_class->finalize = hs_compare_cell_finalize;

  g_type_ensure (HS_TYPE_CANVAS);
  g_type_ensure (HS_TYPE_TAG_STRIP);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-compare-cell.ui");
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, box);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, title);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, stack);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, canvas);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, message);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, readout_box);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, footer);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, badge);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, readout);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, tag_strip);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "hs-compare-cell");
}

/* The badge's font: the caption's size, so it lines up with the read-out. */
#define BADGE_FONT_SIZE 11.0

static void
draw_badge (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  HsCompareCell *self = user_data;
  HsCompareCell *source = self->shown != NULL ? self->shown : self;

  hs_badge_draw (cr, source->badge_text, source->badge_tone, 0, 0, BADGE_FONT_SIZE);
}

static void
clear_tag (gpointer data)
{
  g_free (((HsTagWeight *) data)->tag);
}

static void
hs_compare_cell_init (HsCompareCell *self)
{
  self->wrong_side = -1;
  self->show_tags = TRUE;
  self->tags = g_array_new (FALSE, FALSE, sizeof (HsTagWeight));
  g_array_set_clear_func (self->tags, clear_tag);
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_drawing_area_set_draw_func (self->badge, draw_badge, self, NULL);
  hs_tag_strip_set_compact (self->tag_strip, TRUE);
  _hs_css_init ();
}

GtkWidget *
hs_compare_cell_new (void)
{
  return g_object_new (HS_TYPE_COMPARE_CELL, NULL);
}

HsCanvas *
hs_compare_cell_get_canvas (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->canvas;
}

void
hs_compare_cell_set_state (HsCompareCell *self, HsViewState *state)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));
  g_return_if_fail (state == NULL || HS_IS_VIEW_STATE (state));

  g_set_object (&self->state, state);
  hs_canvas_set_view_state (self->canvas, state);
}

HsViewState *
hs_compare_cell_get_state (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->state;
}

void
hs_compare_cell_set_title (HsCompareCell *self, const char *title, const char *tooltip)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));

  _hs_set_str (&self->title_text, title);
  gtk_label_set_text (self->title, title);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->title), tooltip);
}

const char *
hs_compare_cell_get_title (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->title_text;
}

const char *
hs_compare_cell_get_title_tooltip (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return gtk_widget_get_tooltip_text (GTK_WIDGET (self->title));
}

void
hs_compare_cell_show_title (HsCompareCell *self, const char *text)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));
  gtk_label_set_text (self->title, text != NULL ? text : self->title_text);
}

const char *
hs_compare_cell_get_shown_title (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return gtk_label_get_text (self->title);
}

void
hs_compare_cell_set_map (HsCompareCell *self, HsAttentionMap *map)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));

  if (map != NULL)
    hs_attention_map_ref (map);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  self->map = map;
  self->pending = FALSE;
  g_clear_pointer (&self->error_text, g_free);
  hs_canvas_set_map (self->canvas, map);
  gtk_stack_set_visible_child_name (self->stack, "map");
}

HsAttentionMap *
hs_compare_cell_get_map (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->map;
}

void
hs_compare_cell_set_pending (HsCompareCell *self)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));

  self->pending = TRUE;
  gtk_stack_set_visible_child_name (self->stack, "pending");
}

gboolean
hs_compare_cell_get_pending (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), FALSE);
  return self->pending;
}

void
hs_compare_cell_set_error (HsCompareCell *self, const char *message)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));

  g_clear_pointer (&self->map, hs_attention_map_unref);
  hs_canvas_set_map (self->canvas, NULL);
  self->pending = FALSE;
  _hs_set_str (&self->error_text, message);
  gtk_label_set_text (self->message, message);
  gtk_stack_set_visible_child_name (self->stack, "error");
  hs_compare_cell_set_readout (self, "", NULL);
}

const char *
hs_compare_cell_get_error (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->error_text;
}

/* Shows the read-out and badge of `source` (this cell or, during blink,
 * the one whose map the canvas shows). */
static void
show_readout (HsCompareCell *self, HsCompareCell *source)
{
  double w = 0, h = 0;

  gtk_label_set_text (self->readout, source->detail_text != NULL ? source->detail_text : "");
  gtk_widget_set_tooltip_text (self->readout_box, source->readout_text);
  gtk_widget_set_visible (GTK_WIDGET (self->badge), source->badge_text != NULL);
  if (source->badge_text != NULL)
    {
      hs_badge_size (source->badge_text, BADGE_FONT_SIZE, &w, &h);
      gtk_drawing_area_set_content_width (self->badge, (int) ceil (w));
      gtk_drawing_area_set_content_height (self->badge, (int) ceil (h));
    }
  gtk_widget_queue_draw (GTK_WIDGET (self->badge));
  /* the tags of the map the canvas shows, like the read-out */
  hs_tag_strip_set_tags (self->tag_strip, self->show_tags ? (HsTagWeight *) source->tags->data : NULL,
                         self->show_tags ? source->tags->len : 0);
}

static void
set_readout_texts (HsCompareCell *self, const char *text, const char *detail, const char *badge,
                   HsBadgeTone tone)
{
  _hs_set_str (&self->readout_text, text);
  _hs_set_str (&self->detail_text, detail != NULL ? detail : text);
  _hs_set_str (&self->badge_text, badge);
  self->badge_tone = tone;
  if (self->shown == NULL)
    show_readout (self, self);
}

void
hs_compare_cell_set_readout (HsCompareCell *self, const char *text, const char *detail)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));

  self->wrong_side = -1;
  set_readout_texts (self, text, detail, NULL, HS_BADGE_NEUTRAL);
}

void
hs_compare_cell_set_panel_readout (HsCompareCell *self, const char *text,
                                   const HsPanelReadout *readout)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));

  self->wrong_side = readout->wrong_side;
  set_readout_texts (self, text, readout->line, readout->badge, readout->tone);
}

const char *
hs_compare_cell_get_badge (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->badge))
    ? (self->shown != NULL ? self->shown : self)->badge_text : NULL;
}

void
hs_compare_cell_show_readout_of (HsCompareCell *self, HsCompareCell *other)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));
  g_return_if_fail (other == NULL || HS_IS_COMPARE_CELL (other));

  g_set_weak_pointer (&self->shown, other != self ? other : NULL);
  show_readout (self, self->shown != NULL ? self->shown : self);
}

const char *
hs_compare_cell_get_readout (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return (self->shown != NULL ? self->shown : self)->readout_text;
}

int
hs_compare_cell_get_wrong_side (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), -1);
  return self->wrong_side;
}

HsBadgeTone
hs_compare_cell_get_badge_tone (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), HS_BADGE_NEUTRAL);
  return (self->shown != NULL ? self->shown : self)->badge_tone;
}

const char *
hs_compare_cell_get_shown_readout (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return gtk_label_get_text (self->readout);
}

GtkWidget *
hs_compare_cell_get_readout_row (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->readout_box;
}

void
hs_compare_cell_set_tags (HsCompareCell *self, const HsTagWeight *tags, guint n)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));
  g_return_if_fail (n == 0 || tags != NULL);

  g_array_set_size (self->tags, 0);
  for (guint i = 0; i < n; i++)
    {
      HsTagWeight copy = { g_strdup (tags[i].tag), tags[i].weight };
      g_array_append_val (self->tags, copy);
    }
  show_readout (self, self->shown != NULL ? self->shown : self);
}

guint
hs_compare_cell_get_n_tags (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), 0);
  return self->tags->len;
}

void
hs_compare_cell_set_show_tags (HsCompareCell *self, gboolean show)
{
  g_return_if_fail (HS_IS_COMPARE_CELL (self));

  self->show_tags = !!show;
  show_readout (self, self->shown != NULL ? self->shown : self);
}

const HsTagWeight *
hs_compare_cell_get_shown_tags (HsCompareCell *self, guint *n)
{
  HsCompareCell *source;

  g_return_val_if_fail (HS_IS_COMPARE_CELL (self) && n != NULL, NULL);
  source = self->shown != NULL ? self->shown : self;
  *n = self->show_tags ? source->tags->len : 0;
  return *n > 0 ? (const HsTagWeight *) source->tags->data : NULL;
}

GtkWidget *
hs_compare_cell_get_footer (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->footer;
}

HsTagStrip *
hs_compare_cell_get_tag_strip (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->tag_strip;
}
