/* hs-css.c — the app's stylesheet (ui/style.css), loaded once */
#include "hs-css-private.h"

void
_hs_css_init (void)
{
  static GtkCssProvider *provider;
  GdkDisplay *display = gdk_display_get_default ();

  if (provider != NULL || display == NULL)
    return;
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/org/heatscope/Heatscope/ui/style.css");
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}
