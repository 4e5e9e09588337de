/* hs-compare-cell.c — one map of the compare view */
#include <glib/gi18n.h>

#include "hs-compare-cell.h"
#include "hs-css-private.h"
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
  GtkLabel       *badge;         /* WRONG SIDE / same side */
  GtkLabel       *readout;

  HsViewState    *state;
  HsAttentionMap *map;
  char           *title_text;
  char           *readout_text;
  char           *error_text;
  int             wrong_side;
  gboolean        pending;
};

G_DEFINE_FINAL_TYPE (HsCompareCell, hs_compare_cell, GTK_TYPE_WIDGET)

static void
hs_compare_cell_dispose (GObject *object)
{
  HsCompareCell *self = HS_COMPARE_CELL (object);

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
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-compare-cell.ui");
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, box);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, title);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, stack);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, canvas);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, message);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, readout_box);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, badge);
  gtk_widget_class_bind_template_child (widget_class, HsCompareCell, readout);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "hs-compare-cell");
}

static void
hs_compare_cell_init (HsCompareCell *self)
{
  self->wrong_side = -1;
  gtk_widget_init_template (GTK_WIDGET (self));
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
  hs_compare_cell_set_readout (self, "", NULL, -1);
}

const char *
hs_compare_cell_get_error (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->error_text;
}

void
hs_compare_cell_set_readout (HsCompareCell *self, const char *text, const char *detail, int wrong_side)
{
  GtkWidget *badge;

  g_return_if_fail (HS_IS_COMPARE_CELL (self));

  badge = GTK_WIDGET (self->badge);
  _hs_set_str (&self->readout_text, text);
  self->wrong_side = wrong_side;
  gtk_label_set_text (self->readout, detail != NULL ? detail : text);
  gtk_widget_set_tooltip_text (self->readout_box, text);
  gtk_widget_set_visible (badge, wrong_side >= 0);
  gtk_widget_remove_css_class (badge, "hs-wrong-side");
  gtk_widget_remove_css_class (badge, "hs-same-side");
  if (wrong_side >= 0)
    {
      gtk_label_set_text (self->badge, wrong_side == 1 ? _("WRONG SIDE") : _("same side"));
      gtk_widget_add_css_class (badge, wrong_side == 1 ? "hs-wrong-side" : "hs-same-side");
    }
}

const char *
hs_compare_cell_get_readout (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->readout_text;
}

int
hs_compare_cell_get_wrong_side (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), -1);
  return self->wrong_side;
}

GtkWidget *
hs_compare_cell_get_readout_row (HsCompareCell *self)
{
  g_return_val_if_fail (HS_IS_COMPARE_CELL (self), NULL);
  return self->readout_box;
}
