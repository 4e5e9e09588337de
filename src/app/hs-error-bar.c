/* hs-error-bar.c — problems shown in the window, never only on stderr */
#include <glib/gi18n.h>
#include <string.h>

#include "hs-error-bar.h"

#include <heatscope/hs-text.h>

#define MAX_KEPT 100

struct _HsErrorBar
{
  GtkWidget   parent_instance;

  GtkInfoBar *info_bar;
  GtkLabel   *title;
  GtkLabel   *detail;
  GPtrArray  *errors;   /* of char*, oldest first */
  int         shown_height;
};

G_DEFINE_FINAL_TYPE (HsErrorBar, hs_error_bar, GTK_TYPE_WIDGET)

enum { PROP_0, PROP_SHOWN_HEIGHT, N_PROPS };
static GParamSpec *props[N_PROPS];

static void
set_shown_height (HsErrorBar *self, int height)
{
  if (self->shown_height == height)
    return;
  self->shown_height = height;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SHOWN_HEIGHT]);
}

static void
hs_error_bar_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                      int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  gtk_widget_measure (GTK_WIDGET (HS_ERROR_BAR (widget)->info_bar), orientation, for_size,
                      minimum, natural, minimum_baseline, natural_baseline);
}

/* The bar's height on screen is what a view under it must keep clear
 * (shown-height): the window moves the canvas's colour bar below it. */
static void
hs_error_bar_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  HsErrorBar *self = HS_ERROR_BAR (widget);

  gtk_widget_allocate (GTK_WIDGET (self->info_bar), width, height, baseline, NULL);
  set_shown_height (self, self->errors->len > 0 ? height : 0);
}

static void
hs_error_bar_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_SHOWN_HEIGHT: g_value_set_int (value, HS_ERROR_BAR (object)->shown_height); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
on_response (GtkInfoBar *bar,
             int         response,
             HsErrorBar *self)
{
  if (response == GTK_RESPONSE_CLOSE)
    hs_error_bar_clear (self);
}

static void
hs_error_bar_dispose (GObject *object)
{
  HsErrorBar *self = HS_ERROR_BAR (object);

  g_clear_pointer ((GtkWidget **) &self->info_bar, gtk_widget_unparent);
  G_OBJECT_CLASS (hs_error_bar_parent_class)->dispose (object);
}

static void
hs_error_bar_finalize (GObject *object)
{
  HsErrorBar *self = HS_ERROR_BAR (object);

  g_ptr_array_unref (self->errors);
  G_OBJECT_CLASS (hs_error_bar_parent_class)->finalize (object);
}

static void
hs_error_bar_class_init (HsErrorBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_error_bar_dispose;
  object_class->finalize = hs_error_bar_finalize;
  object_class->get_property = hs_error_bar_get_property;
  widget_class->measure = hs_error_bar_measure;
  widget_class->size_allocate = hs_error_bar_size_allocate;
  /* The height the bar covers while it shows a problem, 0 while hidden. */
  props[PROP_SHOWN_HEIGHT] = g_param_spec_int ("shown-height", NULL, NULL, 0, G_MAXINT, 0,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                               | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_ALERT);
}

static void
hs_error_bar_init (HsErrorBar *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

  self->errors = g_ptr_array_new_with_free_func (g_free);

  self->title = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->title, 0);
  gtk_label_set_wrap (self->title, TRUE);
  gtk_label_set_wrap_mode (self->title, PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (self->title, TRUE);
  self->detail = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->detail, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->detail), "caption");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->title));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->detail));
  gtk_widget_set_hexpand (box, TRUE);

  self->info_bar = GTK_INFO_BAR (gtk_info_bar_new ());
  gtk_info_bar_set_message_type (self->info_bar, GTK_MESSAGE_ERROR);
  gtk_info_bar_set_show_close_button (self->info_bar, TRUE);
  gtk_info_bar_set_revealed (self->info_bar, FALSE);
  gtk_info_bar_add_child (self->info_bar, box);
  g_signal_connect_object (self->info_bar, "response", G_CALLBACK (on_response), self, 0);
  gtk_widget_set_parent (GTK_WIDGET (self->info_bar), GTK_WIDGET (self));
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
hs_error_bar_new (void)
{
  return g_object_new (HS_TYPE_ERROR_BAR, NULL);
}

static void
update (HsErrorBar *self)
{
  guint n = self->errors->len;

  gtk_widget_set_visible (GTK_WIDGET (self), n > 0);
  gtk_info_bar_set_revealed (self->info_bar, n > 0);
  if (n == 0)
    {
      set_shown_height (self, 0);   /* hidden: no allocation says so */
      gtk_label_set_text (self->title, "");
      gtk_label_set_text (self->detail, "");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self), NULL);
      return;
    }

  gtk_label_set_text (self->title, g_ptr_array_index (self->errors, n - 1));
  if (n > 1)
    {
      g_autofree char *more = g_strdup_printf (ngettext ("%u earlier problem (hover to list)",
                                                         "%u earlier problems (hover to list)", n - 1),
                                               n - 1);
      g_autofree char *all = NULL;
      g_ptr_array_add (self->errors, NULL);
      all = g_strjoinv ("\n", (char **) self->errors->pdata);
      g_ptr_array_remove_index (self->errors, self->errors->len - 1);
      gtk_label_set_text (self->detail, more);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self), all);
    }
  else
    {
      gtk_label_set_text (self->detail, "");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self), NULL);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->detail), n > 1);
}

void
hs_error_bar_add (HsErrorBar *self,
                  const char *file,
                  const char *message)
{
  char *text;

  g_return_if_fail (HS_IS_ERROR_BAR (self));

  if (message == NULL || *message == '\0')
    message = _("Unknown error");
  /* Library messages usually name the file already; do not repeat it. */
  {
    g_autofree char *raw = NULL;

    if (file != NULL && *file != '\0' && strstr (message, file) == NULL)
      raw = g_strdup_printf ("%s: %s", file, message);
    else
      raw = g_strdup (message);
    /* One line, as on the command line: ids, names and paths quoted from a
     * dataset may hold newlines or escape sequences. */
    text = hs_text_escape_controls (raw);
  }
  g_debug ("%s", text);

  /* The same problem twice (e.g. re-selecting a broken instance) is shown once. */
  if (self->errors->len > 0 && g_str_equal (g_ptr_array_index (self->errors, self->errors->len - 1), text))
    {
      g_free (text);
      return;
    }
  if (self->errors->len >= MAX_KEPT)
    g_ptr_array_remove_index (self->errors, 0);
  g_ptr_array_add (self->errors, text);
  update (self);
}

void
hs_error_bar_add_error (HsErrorBar   *self,
                        const char   *file,
                        const GError *error)
{
  g_return_if_fail (HS_IS_ERROR_BAR (self));
  hs_error_bar_add (self, file, error != NULL ? error->message : NULL);
}

void
hs_error_bar_clear (HsErrorBar *self)
{
  g_return_if_fail (HS_IS_ERROR_BAR (self));
  g_ptr_array_set_size (self->errors, 0);
  update (self);
}

guint
hs_error_bar_get_n_errors (HsErrorBar *self)
{
  g_return_val_if_fail (HS_IS_ERROR_BAR (self), 0);
  return self->errors->len;
}

const char *
hs_error_bar_get_text (HsErrorBar *self)
{
  g_return_val_if_fail (HS_IS_ERROR_BAR (self), NULL);
  return self->errors->len > 0 ? g_ptr_array_index (self->errors, self->errors->len - 1) : NULL;
}
