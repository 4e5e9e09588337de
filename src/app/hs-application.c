/* hs-application.c — the Heatscope GtkApplication */
#include <glib/gi18n.h>

#include "hs-application.h"
#include "hs-window.h"

struct _HsApplication
{
  GtkApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (HsApplication, hs_application, GTK_TYPE_APPLICATION)

static void
hs_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (hs_window_new (HS_APPLICATION (app)));
  gtk_window_present (window);
}

static void
hs_application_class_init (HsApplicationClass *klass)
{
  G_APPLICATION_CLASS (klass)->activate = hs_application_activate;
}

static void
hs_application_init (HsApplication *self)
{
}

HsApplication *
hs_application_new (void)
{
  return g_object_new (HS_TYPE_APPLICATION,
                       "application-id", "org.heatscope.Heatscope",
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       NULL);
}
