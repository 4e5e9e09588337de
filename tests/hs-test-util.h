/* hs-test-util.h — helpers shared by the test programs */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* ../shared/data beside the project (HS_SHARED_DATA); NULL when absent, in
 * which case tests that need it call g_test_skip() with a clear message. */
const char *hs_test_shared_data    (void);
/* Path under the shared data folder, or NULL (and the test is skipped). */
char       *hs_test_shared_path    (const char *relative);
/* A fresh temporary folder, removed at exit. */
char       *hs_test_make_tmpdir    (void);
/* The built heatscope-cli. */
const char *hs_test_cli            (void);
/* The project's source root. */
const char *hs_test_source_dir     (void);
/* Runs argv, captures stdout/stderr and the exit status. */
gboolean    hs_test_run            (const char * const *argv, char **out, char **err, int *status);
/* Runs /usr/bin/python3 with `script` (a string) and args; returns stdout,
 * or NULL and skips the test when python3 or a module is missing. */
char       *hs_test_python         (const char *script, const char * const *args);

G_END_DECLS
