/* hs-tag-strip.c — a map's tag attention (co-attention) as a bar strip */
#include <glib/gi18n.h>

#include "hs-css-private.h"
#include "hs-tag-strip.h"
#include "hs-utils-private.h"

struct _HsTagStrip
{
  GtkWidget     parent_instance;

  GtkWidget    *box;
  GtkListBox   *rows;
  GtkLabel     *key;

  guint         n_tags;
};

G_DEFINE_FINAL_TYPE (HsTagStrip, hs_tag_strip, GTK_TYPE_WIDGET)

/* The manifest's weights sum to 1 within 0.001: three decimals show every
 * difference the file can state without a trail of noise digits. */
char *
hs_tag_strip_format_weight (double weight)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.3f", weight));
}

static void
hs_tag_strip_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), HS_TYPE_TAG_STRIP);
  G_OBJECT_CLASS (hs_tag_strip_parent_class)->dispose (object);
}

static void
hs_tag_strip_class_init (HsTagStripClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = hs_tag_strip_dispose;
  gtk_widget_class_set_css_name (widget_class, "hs-tag-strip");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-tag-strip.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_bind_template_child (widget_class, HsTagStrip, box);
  gtk_widget_class_bind_template_child (widget_class, HsTagStrip, rows);
  gtk_widget_class_bind_template_child (widget_class, HsTagStrip, key);
}

static void
hs_tag_strip_init (HsTagStrip *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  _hs_css_init ();
}

GtkWidget *
hs_tag_strip_new (void)
{
  return g_object_new (HS_TYPE_TAG_STRIP, NULL);
}

/* One tag: its name, the weight as a bar on 0–1 and as a number; the
 * columns' size groups (held by their widgets) line the bars up. */
static GtkWidget *
make_row (const HsTagWeight *tag, gboolean largest, GtkSizeGroup *names, GtkSizeGroup *numbers)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *name = gtk_label_new (tag->tag);
  GtkWidget *bar = gtk_level_bar_new_for_interval (0.0, 1.0);
  g_autofree char *number = hs_tag_strip_format_weight (tag->weight);
  GtkWidget *weight = gtk_label_new (number);
  /* Translators: a tag's row in the tag attention strip: tag name, weight */
  g_autofree char *accessible = g_strdup_printf (_("%s: %s"), tag->tag, number);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (name), 22);
  gtk_size_group_add_widget (names, name);

  /* One colour whatever the value: the theme's low/high/full offsets would
   * paint a small weight as a warning. */
  gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_LOW);
  gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_HIGH);
  gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_FULL);
  gtk_level_bar_set_value (GTK_LEVEL_BAR (bar), CLAMP (tag->weight, 0.0, 1.0));
  gtk_widget_set_hexpand (bar, TRUE);
  gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (bar, "hs-tag-bar");
  gtk_accessible_update_property (GTK_ACCESSIBLE (bar), GTK_ACCESSIBLE_PROPERTY_LABEL, tag->tag, -1);

  gtk_label_set_xalign (GTK_LABEL (weight), 1);
  gtk_label_set_width_chars (GTK_LABEL (weight), 5);
  gtk_widget_add_css_class (weight, "numeric");
  gtk_size_group_add_widget (numbers, weight);
  if (largest)
    {
      gtk_widget_add_css_class (name, "hs-tag-largest");
      gtk_widget_add_css_class (weight, "hs-tag-largest");
    }

  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), bar);
  gtk_box_append (GTK_BOX (box), weight);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  _hs_widget_set_tooltip (row, accessible);   /* not yet in a window: no pointer query */
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  g_object_set_data_full (G_OBJECT (row), "hs-tag", g_strdup (tag->tag), g_free);
  g_object_set_data (G_OBJECT (row), "hs-tag-weight", weight);
  return row;
}

void
hs_tag_strip_set_tags (HsTagStrip *self, const HsTagWeight *tags, guint n)
{
  g_autoptr(GtkSizeGroup) names = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  g_autoptr(GtkSizeGroup) numbers = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  GtkWidget *child;
  double largest = -1;

  g_return_if_fail (HS_IS_TAG_STRIP (self));
  g_return_if_fail (n == 0 || tags != NULL);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->rows))) != NULL)
    gtk_list_box_remove (self->rows, child);
  for (guint i = 0; i < n; i++)
    largest = MAX (largest, tags[i].weight);
  /* ties: every tag of the largest weight is marked */
  for (guint i = 0; i < n; i++)
    gtk_list_box_append (self->rows, make_row (&tags[i], tags[i].weight == largest, names, numbers));
  self->n_tags = n;
  gtk_widget_set_visible (GTK_WIDGET (self), n > 0);
}

guint
hs_tag_strip_get_n_tags (HsTagStrip *self)
{
  g_return_val_if_fail (HS_IS_TAG_STRIP (self), 0);
  return self->n_tags;
}

static gpointer
row_data (HsTagStrip *self, guint index, const char *key)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (HS_IS_TAG_STRIP (self), NULL);
  row = index < self->n_tags ? gtk_list_box_get_row_at_index (self->rows, (int) index) : NULL;
  return row != NULL ? g_object_get_data (G_OBJECT (row), key) : NULL;
}

const char *
hs_tag_strip_get_tag (HsTagStrip *self, guint index)
{
  return row_data (self, index, "hs-tag");
}

const char *
hs_tag_strip_get_weight_text (HsTagStrip *self, guint index)
{
  GtkLabel *weight = row_data (self, index, "hs-tag-weight");

  return weight != NULL ? gtk_label_get_text (weight) : NULL;
}

void
hs_tag_strip_set_compact (HsTagStrip *self, gboolean compact)
{
  g_return_if_fail (HS_IS_TAG_STRIP (self));
  gtk_widget_set_visible (GTK_WIDGET (self->key), !compact);
}
