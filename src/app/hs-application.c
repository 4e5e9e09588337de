/* hs-application.c — the Heatscope GtkApplication */
#include <glib/gi18n.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "hs-annotation-window.h"
#include "hs-application.h"
#include "hs-renderer.h"
#include "hs-window.h"

struct _HsApplication
{
  GtkApplication parent_instance;

  char *backend_command;     /* --backend-exec (this run only; never from a dataset) */
  char *preference_command;  /* the "backend-command" key as last read */
  char *annotate_path;       /* --annotate PROJECT: start in annotation mode */
  GSettings *settings;       /* kept for the bindings to GtkSettings */
};

G_DEFINE_FINAL_TYPE (HsApplication, hs_application, GTK_TYPE_APPLICATION)

GSettings *
hs_settings_new (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, HS_APPLICATION_ID, TRUE);
  if (schema == NULL)
    {
      /* Not installed: try the build tree (build/src/app/heatscope → build/data). */
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
      g_autofree char *data = dir != NULL ? g_build_filename (dir, "..", "..", "data", NULL) : NULL;
      g_autoptr(GSettingsSchemaSource) local = NULL;

      if (data != NULL && g_file_test (data, G_FILE_TEST_IS_DIR))
        local = g_settings_schema_source_new_from_directory (data, source, FALSE, NULL);
      if (local != NULL)
        schema = g_settings_schema_source_lookup (local, HS_APPLICATION_ID, FALSE);
    }
  if (schema == NULL)
    {
      g_message ("GSettings schema %s not found; settings will not be remembered", HS_APPLICATION_ID);
      return NULL;
    }
  return g_settings_new_full (schema, NULL, NULL);
}

static HsWindow *
get_window (HsApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    window = GTK_WINDOW (hs_window_new (self));
  return HS_WINDOW (window);
}

static void
hs_application_activate (GApplication *app)
{
  HsWindow *window;

  if (HS_APPLICATION (app)->annotate_path != NULL)
    {
      hs_annotation_window_present_project (GTK_APPLICATION (app), HS_APPLICATION (app)->annotate_path);
      return;
    }
  window = get_window (HS_APPLICATION (app));

  hs_window_restore_last_dataset (window);
  hs_window_restore_last_deck (window);
  gtk_window_present (GTK_WINDOW (window));
}

static void
hs_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  HsWindow *window = get_window (HS_APPLICATION (app));

  /* One dataset per window: the first folder (or heatscope.json) wins. */
  if (n_files > 0)
    hs_window_open (window, files[0]);
  gtk_window_present (GTK_WINDOW (window));
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  GtkApplication *app = user_data;
  const char *authors[] = { "The Heatscope developers", NULL };

  gtk_show_about_dialog (gtk_application_get_active_window (app),
                         "program-name", _("Heatscope"),
                         "logo-icon-name", HS_APPLICATION_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("See where image–text models look on radiographs"),
                         "website", "https://example.org/heatscope",
                         "authors", authors,
                         /* Translators: put your names here, one per line */
                         "translator-credits", _("translator-credits"),
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "copyright", "© 2026 The Heatscope developers",
                         NULL);
}

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  GtkApplication *app = user_data;
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (app));

  /* Close windows so each saves its state; then the app quits by itself. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
}

static const GActionEntry app_actions[] = {
  { .name = "about", .activate = about_action },
  { .name = "quit", .activate = quit_action },
};

/* glibc serves a block above its mmap threshold with its own mapping and
 * unmaps it on free; below, from a heap that keeps freed memory.  The
 * threshold starts at 128 KB but rises to the size of each mapped block
 * freed (up to 32 MB), so after the first decoded radiograph, canvas layer
 * or GL texture is freed, every later multi-MB buffer lands in a heap and
 * its memory stays with the process: over a stepping session (tools/bench
 * soak, 60 instances) 110 MB of RSS was freed memory held this way.  Fixing
 * the threshold at 128 KB keeps the large buffers mapped and returned; the
 * soak's RSS then stays flat after warm-up (docs/performance.md).  A
 * GLIBC_TUNABLES setting of the threshold wins. */
void
hs_application_tune_memory (void)
{
  const char *tunables = g_getenv ("GLIBC_TUNABLES");

  if (tunables != NULL && strstr (tunables, "malloc.mmap_threshold") != NULL)
    return;
  mallopt (M_MMAP_THRESHOLD, 128 * 1024);
}

/* What is freed below the threshold (GL and GTK's many small blocks, the
 * previous instance's panels) stays in glibc's heaps until trimmed: the
 * soak measured 47–50 MB of RSS released by a malloc_trim after a session.
 * Called when a step is done (at most once a second; a trim walks the free
 * blocks, about a millisecond here). */
void
hs_application_trim_memory (void)
{
  static gint64 last_us;
  gint64 now = g_get_monotonic_time ();

  if (now - last_us < G_USEC_PER_SEC)
    return;
  last_us = now;
  malloc_trim (0);
}

void
hs_application_set_accels (GtkApplication *app)
{
  static const struct {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.quit",               { "<Control>q", NULL } },
    { "win.open",               { "<Control>o", NULL } },
    { "win.open-folder",        { "<Control><Shift>o", NULL } },
    { "win.reload",             { "<Control>r", NULL } },
    { "win.import",             { "<Control>i", NULL } },
    { "win.compare::pair",      { "<Control>d", NULL } },
    { "win.compare::grid",      { "<Control><Shift>d", NULL } },
    { "win.results",            { "<Control>t", NULL } },
    { "win.attend",             { "<Control><Shift>m", NULL } },
    { "win.export::png",        { "<Control>e", NULL } },
    { "win.export-figure",      { "<Control><Shift>e", NULL } },
    { "win.search",             { "<Control>f", NULL } },
    { "win.next-instance",      { "<Alt>Down", NULL } },
    { "win.previous-instance",  { "<Alt>Up", NULL } },
    { "win.next-sentence",      { "<Alt>Right", NULL } },
    { "win.previous-sentence",  { "<Alt>Left", NULL } },
    { "win.swap-sides",         { "<Control><Shift>l", NULL } },
    { "win.reset-prompt",       { "<Control><Shift>r", NULL } },
    { "win.undo",               { "<Control>z", NULL } },
    { "win.toggle-heatmap",     { "<Control>h", NULL } },
    { "win.deck-add",           { "<Control><Shift>a", NULL } },
    { "win.show-deck",          { "F9", NULL } },
    { "win.deck-present",       { "F5", NULL } },
    { "window.close",           { "<Control>w", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (app, accels[i].action, accels[i].accels);
}

/* GTK 4.8 fades a text cursor in and out on every frame for half of each
 * blink period, for gtk-cursor-blink-timeout (10 s) after the last key: about
 * 30 frames a second.  Without buffer age (software GL, Xvfb) each of them
 * redraws the whole window — 0.3–0.4 of a core while nothing happens.  The
 * cursor-blink-timeout key (1 s by default) ends the blinking sooner; the cursor
 * then stays solid, and a key or a click starts it again. */
static void
hs_application_bind_cursor_blink (HsApplication *self)
{
  GtkSettings *gtk_settings = gtk_settings_get_default ();

  if (gtk_settings == NULL)
    return;
  g_clear_object (&self->settings);
  self->settings = hs_settings_new ();
  if (self->settings != NULL)
    g_settings_bind (self->settings, "cursor-blink-timeout", gtk_settings, "gtk-cursor-blink-timeout",
                     G_SETTINGS_BIND_GET);
  else
    g_object_set (gtk_settings, "gtk-cursor-blink-timeout", 1, NULL);
}

static void
hs_application_startup (GApplication *app)
{
  G_APPLICATION_CLASS (hs_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  hs_application_set_accels (GTK_APPLICATION (app));
  gtk_window_set_default_icon_name (HS_APPLICATION_ID);
  hs_application_bind_cursor_blink (HS_APPLICATION (app));
  /* Before the first window is realized: GTK picks its renderer then. */
  hs_renderer_choose (HS_APPLICATION (app)->settings);
}

/* --backend-exec is checked here, in the launching process, so a typo in
 * the quoting is reported on the terminal before any window opens. */
static int
hs_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  HsApplication *self = HS_APPLICATION (app);
  const char *command = NULL;
  const char *project = NULL;

  if (g_variant_dict_lookup (options, "annotate", "^&ay", &project))
    {
      g_free (self->annotate_path);
      self->annotate_path = g_canonicalize_filename (project, NULL);
    }
  if (g_variant_dict_lookup (options, "backend-exec", "&s", &command))
    {
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) argv = NULL;

      if (!g_shell_parse_argv (command, NULL, &argv, &error))
        {
          fprintf (stderr, "heatscope: --backend-exec '%s': %s\n", command, error->message);
          return 2;
        }
      g_free (self->backend_command);
      self->backend_command = g_strdup (command);
    }
  return -1;
}

const char *
hs_application_get_backend_command (HsApplication *self)
{
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *preference = NULL;

  g_return_val_if_fail (HS_IS_APPLICATION (self), NULL);

  if (self->backend_command != NULL)
    return self->backend_command;
  settings = hs_settings_new ();
  if (settings == NULL)
    return NULL;
  preference = g_settings_get_string (settings, "backend-command");
  g_free (self->preference_command);
  self->preference_command = NULL;
  if (g_strstrip (preference)[0] == '\0')
    return NULL;
  /* Kept on the object: the returned string stays valid until the next call. */
  self->preference_command = g_steal_pointer (&preference);
  return self->preference_command;
}

static void
hs_application_finalize (GObject *object)
{
  HsApplication *self = HS_APPLICATION (object);

  g_free (self->backend_command);
  g_free (self->preference_command);
  g_free (self->annotate_path);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (hs_application_parent_class)->finalize (object);
}

static void
hs_application_class_init (HsApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = hs_application_finalize;
  app_class->handle_local_options = hs_application_handle_local_options;
  app_class->activate = hs_application_activate;
  app_class->open = hs_application_open;
  app_class->startup = hs_application_startup;
}

static void
hs_application_init (HsApplication *self)
{
  g_application_add_main_option (G_APPLICATION (self), "backend-exec", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_STRING,
                                 _("Compute live attention with COMMAND, an external model speaking "
                                   "the JSON-lines protocol of docs/backend-protocol.md"),
                                 _("COMMAND"));
  g_application_add_main_option (G_APPLICATION (self), "annotate", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_FILENAME,
                                 _("Start in annotation mode on the annotation project PROJECT (JSON)"),
                                 _("PROJECT"));
}

HsApplication *
hs_application_new (void)
{
  return g_object_new (HS_TYPE_APPLICATION,
                       "application-id", HS_APPLICATION_ID,
                       "resource-base-path", "/org/heatscope/Heatscope",
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       NULL);
}
