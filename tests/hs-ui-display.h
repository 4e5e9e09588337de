/* hs-ui-display.h — a UI test program run without a display skips its
 * tests (TAP "ok … # SKIP"), whatever way it starts GTK.
 *
 * gtk_test_init() and gtk_init() abort when no display can be opened, and a
 * test that makes a widget without one crashes inside GTK; so the programs
 * open the display with gtk_init_check() and, without one, register every
 * test as a skip (nothing of GTK is touched).  tests/check-ui-no-display.py
 * runs every UI test program without a display and holds them to it.
 *
 * Header-only (tests/meson.build compiles one test file plus hs-test-util.c
 * per program). */
#pragma once

#include <locale.h>

#include <gtk/gtk.h>

#define HS_UI_NO_DISPLAY "no display: run the UI suite under xvfb-run"

G_GNUC_UNUSED static gboolean hs_ui_have_display;

G_GNUC_UNUSED static void
hs_ui_skip_no_display (gconstpointer data)
{
  g_test_skip (HS_UI_NO_DISPLAY);
}

/* The UI tests assert English messages and C numbers (0.52, not 0,52), and
 * so do the heatscope-cli runs some of them compare with, which inherit this
 * environment: whatever the caller's language (a German desktop's LANG and
 * LANGUAGE), before anything calls setlocale or gettext.  Every UI test
 * program comes through here (hs_ui_test_init, hs_ui_use_build_settings);
 * tests/meson.build sets the same for every test, and runs ui-first-hour
 * under LANGUAGE=de to hold this to it.  LANGUAGE is honoured for any locale
 * but "C", so setting LC_ALL alone would not do. */
G_GNUC_UNUSED static void
hs_ui_use_english (void)
{
  g_unsetenv ("LANGUAGE");
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
}

/* What gtk_test_init() does (GLib's test set-up, a fixed English locale,
 * GTK), with gtk_init_check(): sets hs_ui_have_display. */
G_GNUC_UNUSED static void
hs_ui_test_init (int *argc, char ***argv)
{
  hs_ui_use_english ();
  g_test_init (argc, argv, NULL);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "C.UTF-8");
  hs_ui_have_display = gtk_init_check ();
}

/* g_test_add() and g_test_add_func(), or a skip without a display. */
#define hs_ui_test_add(path, Fixture, data, setup, test, teardown)                     \
  G_STMT_START {                                                                       \
    if (hs_ui_have_display)                                                            \
      g_test_add (path, Fixture, data, setup, test, teardown);                        \
    else                                                                               \
      g_test_add_data_func (path, NULL, hs_ui_skip_no_display);                        \
  } G_STMT_END

#define hs_ui_test_add_func(path, func)                                                \
  G_STMT_START {                                                                       \
    if (hs_ui_have_display)                                                            \
      g_test_add_func (path, func);                                                    \
    else                                                                               \
      g_test_add_data_func (path, NULL, hs_ui_skip_no_display);                        \
  } G_STMT_END
