/* hs-instance-browser-settings.c — the subset and "annotated" filters follow
 * the "subset-filter" key both ways */
#include "hs-instance-browser-private.h"

/* The subsets the "subset-filter" key can hold, besides "annotated". */
static const HsSubset bound_subsets[] = { HS_SUBSET_ABNORMAL, HS_SUBSET_ONE_LUNG, HS_SUBSET_MDRB };
#define ANNOTATED_FILTER "annotated"

static void
save_filters (HsInstanceBrowser *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) names = NULL;
  guint subsets = hs_instance_browser_get_subsets (self);

  for (guint i = 0; i < G_N_ELEMENTS (bound_subsets); i++)
    if (subsets & bound_subsets[i])
      g_strv_builder_add (builder, hs_subset_to_string (bound_subsets[i]));
  if (self->filter_annotated)
    g_strv_builder_add (builder, ANNOTATED_FILTER);
  names = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "subset-filter", (const char * const *) names);
}

static void
on_filter_notify (GObject           *object,
                  GParamSpec        *pspec,
                  HsInstanceBrowser *self)
{
  if (self->settings != NULL)
    save_filters (self);
}

void
hs_instance_browser_bind_settings (HsInstanceBrowser *self,
                                   GSettings         *settings)
{
  static const char * const filters[] = { "filter-abnormal", "filter-one-lung", "filter-mdrb",
                                          "filter-annotated" };
  g_auto(GStrv) names = NULL;
  guint flags = 0;

  g_return_if_fail (HS_IS_INSTANCE_BROWSER (self));
  g_return_if_fail (G_IS_SETTINGS (settings));
  g_return_if_fail (self->settings == NULL);

  /* Names this version does not know (a newer one wrote them) are skipped. */
  names = g_settings_get_strv (settings, "subset-filter");
  for (guint i = 0; names[i] != NULL; i++)
    flags |= hs_subset_from_string (names[i]);
  hs_instance_browser_set_subsets (self, flags);
  g_object_set (self, "filter-annotated", g_strv_contains ((const char * const *) names, ANNOTATED_FILTER),
                NULL);

  self->settings = g_object_ref (settings);
  for (guint i = 0; i < G_N_ELEMENTS (filters); i++)
    {
      g_autofree char *signal = g_strconcat ("notify::", filters[i], NULL);
      g_signal_connect (self, signal, G_CALLBACK (on_filter_notify), self);
    }
}
