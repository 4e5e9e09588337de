/* test-desktop-files.c — desktop integration files agree with the app
 *
 * The validators (desktop-file-validate, appstreamcli, glib-compile-schemas)
 * run as their own meson tests; this checks what they cannot: that the
 * files name the same application, that the icons exist, that the German
 * translation was merged, and that every settings key the app binds exists
 * in the schema with the type of the property bound to it. */
#include <gtk/gtk.h>
#include <string.h>

#include "hs-test-util.h"
#include "hs-application.h"
# include "hs-view-state.h"

static char *
build_path (const char *first, ...)
{
  const char *build = g_getenv ("HS_BUILD_DIR");
  va_list args;
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();

  g_assert_nonnull (build);
  g_ptr_array_add (parts, (gpointer) build);
  va_start (args, first);
  for (const char *p = first; p != NULL; p = va_arg (args, const char *))
    g_ptr_array_add (parts, (gpointer) p);
  va_end (args);
  g_ptr_array_add (parts, NULL);
  return g_build_filenamev ((char **) parts->pdata);
}

static void
test_desktop_entry (void)
{
  g_autofree char *path = build_path ("data", HS_APPLICATION_ID ".desktop", NULL);
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *icon = NULL, *exec = NULL, *name_de = NULL;
  g_auto(GStrv) mime = NULL;

  g_key_file_load_from_file (file, path, G_KEY_FILE_KEEP_TRANSLATIONS, &error);
  g_assert_no_error (error);
  icon = g_key_file_get_string (file, "Desktop Entry", "Icon", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (icon, ==, HS_APPLICATION_ID);
  exec = g_key_file_get_string (file, "Desktop Entry", "Exec", &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (exec, "heatscope "));
  g_assert_nonnull (strstr (exec, "%F"));          /* datasets on the command line */
  mime = g_key_file_get_string_list (file, "Desktop Entry", "MimeType", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_contains ((const char * const *) mime, "inode/directory"));
  /* The translation was merged at build time. */
  name_de = g_key_file_get_locale_string (file, "Desktop Entry", "GenericName", "de", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name_de, ==, "Betrachter für Aufmerksamkeitskarten");
}

static void
test_metainfo (void)
{
  g_autofree char *path = build_path ("data", HS_APPLICATION_ID ".metainfo.xml", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "<id>" HS_APPLICATION_ID "</id>"));
  g_assert_nonnull (strstr (text, "<launchable type=\"desktop-id\">" HS_APPLICATION_ID ".desktop</launchable>"));
  g_assert_nonnull (strstr (text, "<binary>heatscope</binary>"));
  g_assert_nonnull (strstr (text, "xml:lang=\"de\""));
}

static void
test_icons (void)
{
  const char *icons[] = {
    "data/icons/hicolor/scalable/apps/" HS_APPLICATION_ID ".svg",
    "data/icons/hicolor/symbolic/apps/" HS_APPLICATION_ID "-symbolic.svg",
  };

  for (guint i = 0; i < G_N_ELEMENTS (icons); i++)
    {
      g_autofree char *path = g_build_filename (hs_test_source_dir (), icons[i], NULL);
      g_autofree char *text = NULL;
      g_autoptr(GError) error = NULL;

      g_file_get_contents (path, &text, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (strstr (text, "<svg"));
      g_assert_nonnull (strstr (text, "viewBox"));
    }

  /* The app also carries them as resources for uninstalled runs. */
  g_assert_true (g_resources_get_info ("/org/heatscope/Heatscope/icons/scalable/apps/" HS_APPLICATION_ID ".svg",
                                       G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL));
  g_assert_true (g_resources_get_info ("/org/heatscope/Heatscope/gtk/help-overlay.ui",
                                       G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL));
}

static GSettingsSchema *
lookup_schema (void)
{
  g_autofree char *dir = build_path ("data", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSettingsSchemaSource) source =
    g_settings_schema_source_new_from_directory (dir, NULL, FALSE, &error);

  g_assert_no_error (error);
  return g_settings_schema_source_lookup (source, HS_APPLICATION_ID, FALSE);
}

static void
test_schema_keys (void)
{
  g_autoptr(GSettingsSchema) schema = lookup_schema ();
  const char *window_keys[] = {
    "last-dataset", "last-instance", "last-model", "last-export-folder", "main-window-width",
    "main-window-height", "main-window-maximized", "subset-filter", "metrics-protocol",
  };

  g_assert_nonnull (schema);
  for (guint i = 0; i < G_N_ELEMENTS (window_keys); i++)
    if (!g_settings_schema_has_key (schema, window_keys[i]))
      g_error ("the window uses the settings key %s, which the schema lacks", window_keys[i]);

  {
    g_autoptr(HsViewState) state = hs_view_state_new ();
    guint n = 0;

    for (guint i = 0; hs_view_state_settings_keys[i] != NULL; i++, n++)
      {
        const char *key = hs_view_state_settings_keys[i];
        GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (state), key);
        g_autoptr(GSettingsSchemaKey) schema_key = NULL;
        const GVariantType *type;
        GType expected;

        if (!g_settings_schema_has_key (schema, key))
          g_error ("the view state binds %s, which the schema lacks", key);
        g_assert_nonnull (pspec);
        schema_key = g_settings_schema_get_key (schema, key);
        type = g_settings_schema_key_get_value_type (schema_key);
        if (g_variant_type_equal (type, G_VARIANT_TYPE_DOUBLE))
          expected = G_TYPE_DOUBLE;
        else if (g_variant_type_equal (type, G_VARIANT_TYPE_BOOLEAN))
          expected = G_TYPE_BOOLEAN;
        else if (g_variant_type_equal (type, G_VARIANT_TYPE_STRING))
          expected = G_TYPE_STRING;
        else
          g_error ("unexpected type of settings key %s", key);
        g_assert_cmpstr (g_type_name (pspec->value_type), ==, g_type_name (expected));

        /* The schema's default is a value the property accepts as is. */
        {
          g_autoptr(GVariant) def = g_settings_schema_key_get_default_value (schema_key);
          GValue value = G_VALUE_INIT;
          g_value_init (&value, expected);
          if (expected == G_TYPE_DOUBLE)
            g_value_set_double (&value, g_variant_get_double (def));
          else if (expected == G_TYPE_BOOLEAN)
            g_value_set_boolean (&value, g_variant_get_boolean (def));
          else
            g_value_set_string (&value, g_variant_get_string (def, NULL));
          g_object_set_property (G_OBJECT (state), key, &value);
          g_value_unset (&value);
        }
      }
    g_assert_cmpuint (n, >=, 15);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/hs/desktop/desktop-entry", test_desktop_entry);
  g_test_add_func ("/hs/desktop/metainfo", test_metainfo);
  g_test_add_func ("/hs/desktop/icons", test_icons);
  g_test_add_func ("/hs/desktop/schema-keys", test_schema_keys);
  return g_test_run ();
}
