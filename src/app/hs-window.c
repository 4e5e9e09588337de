/* hs-window.c — the main window */
#include <glib/gi18n.h>

#include "hs-window.h"

struct _HsWindow
{
  GtkApplicationWindow parent_instance;
};

G_DEFINE_FINAL_TYPE (HsWindow, hs_window, GTK_TYPE_APPLICATION_WINDOW)

static void
hs_window_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), HS_TYPE_WINDOW);
  G_OBJECT_CLASS (hs_window_parent_class)->dispose (object);
}

static void
hs_window_class_init (HsWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = hs_window_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/heatscope/Heatscope/ui/hs-window.ui");
}

static void
hs_window_init (HsWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

HsWindow *
hs_window_new (HsApplication *app)
{
  return g_object_new (HS_TYPE_WINDOW, "application", app, NULL);
}
