/* hs-test-util.h — helpers shared by the test programs */
#pragma once

#include <glib.h>
#include <heatscope/hs-dataset.h>

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
/* Runs argv to its end and asserts it exited 0 (its stderr printed if not). */
void        hs_test_run_ok         (const char * const *argv);
/* Runs /usr/bin/python3 with `script` (a string) and args; returns stdout,
 * or NULL and skips the test when python3 or a module is missing. */
char       *hs_test_python         (const char *script, const char * const *args);
/* Runs `heatscope-cli COMMAND ARGS...` (args NULL-terminated, or NULL);
 * returns the exit status. */
int         hs_test_run_cli        (const char *command, const char * const *args,
                                    char **out, char **err);
/* Writes `text` to DIR/NAME, creating the folders NAME names. */
void        hs_test_write_file     (const char *dir, const char *name, const char *text);
/* Non-zero pixels of a region's mask (asserting it loads as 8-bit grey). */
guint64     hs_test_count_mask_pixels (HsDataset *dataset, const HsRegion *region);
/* Writes a black 8-bit grey PNG of w × h at DIR/NAME. */
void        hs_test_write_png      (const char *dir, const char *name, guint w, guint h);
/* Asserts that box `i` of `region` is (x1, y1)–(x2, y2) within 1e-9. */
void        hs_test_assert_box     (const HsRegion *region, guint i,
                                    double x1, double y1, double x2, double y2);
/* Writes `heatscope-cli demo`'s phantom dataset of `n` images of `size`²
 * with maps `maps` (none, models, simulated) at DIR/NAME; returns the path. */
char       *hs_test_make_demo      (const char *dir, const char *name, guint n, guint size,
                                    const char *maps);
/* Maps of `model` in the dataset at `dataset_path` (asserting it loads). */
guint       hs_test_count_maps     (const char *dataset_path, const char *model);

/* Kill tests (hs-stop-point.h): a writer started with HS_TEST_STOP_AT stops
 * itself at the chosen point and the test kills it there, by construction.
 * Nothing here is timed: waits block until the process stops or ends, and
 * only the suite's per-test timeout bounds a hang.
 *
 * Starts argv (in `cwd`, NULL for this one) with `env` (NULL: this process's
 * environment) plus HS_TEST_STOP_AT=STOP_AT (NULL: unset), its stdout and
 * stderr appended to the file `log`; not reaped. */
GPid        hs_test_spawn_logged   (const char * const *argv, const char * const *env,
                                    const char *cwd, const char *stop_at, const char *log);
/* Waits until `pid` stopped itself at STOP_AT (written POINT[@FILE]:N, the
 * count always given): fails with its output when it ended instead, and
 * asserts that it printed the line naming that point to `log`. */
void        hs_test_wait_stopped   (GPid pid, const char *stop_at, const char *log);
/* SIGKILL to a (stopped) process; asserts that the kill is what ended it. */
void        hs_test_kill_stopped   (GPid pid);
/* SIGCONT, then waits for it to finish; asserts exit status 0. */
void        hs_test_continue_stopped (GPid pid, const char *log);
/* Waits for `pid` to finish without stopping; asserts exit status 0 (a
 * stop is a failure: the point was reached when it should not be). */
void        hs_test_wait_exit      (GPid pid, const char *log);
/* hs_test_spawn_logged + hs_test_wait_stopped, the output logged to a fresh
 * temporary file; returns the process, stopped at STOP_AT. */
GPid        hs_test_run_to_stop    (const char * const *argv, const char *stop_at);

/* One row of tests/bad-inputs/expected.tsv: FILE, LOADER, CLI-STATUS ("-"
 * when no command reads the file) and the exact MESSAGE (@DIR@ and @OUT@
 * stand for the bad-inputs and output folders). */
typedef struct {
  char *file;
  char *loader;
  char *status;
  char *message;
} HsBadInput;

/* The real path of tests/bad-inputs (symlinks resolved, as messages show it). */
char       *hs_test_bad_inputs_dir (void);
/* Every row of BAD_DIR/expected.tsv (comments and blank lines skipped); the
 * array frees its rows.  A malformed row fails the test program. */
GPtrArray  *hs_test_read_bad_inputs (const char *bad_dir);
/* TEXT with every WHAT replaced by WITH. */
char       *hs_test_replace        (const char *text, const char *what, const char *with);

/* Python for test scripts: runs(m), the COCO run lengths of a 2-D mask
 * (numpy Fortran order, starting with a run of zeros), and to_string(cnts),
 * maskApi.c's rleToString ported line by line. */
#define HS_TEST_PY_COCO_RLE \
  "def runs(m):\n" \
  "    flat = m.ravel(order='F'); out = []; cur = 0; n = 0\n" \
  "    for v in flat:\n" \
  "        if v != cur: out.append(n); n = 0; cur = v\n" \
  "        n += 1\n" \
  "    return out + [n]\n" \
  "def to_string(cnts):\n" \
  "    s = ''\n" \
  "    for i, x in enumerate(cnts):\n" \
  "        x = int(x)\n" \
  "        if i > 2: x -= int(cnts[i - 2])\n" \
  "        more = True\n" \
  "        while more:\n" \
  "            c = x & 0x1f; x >>= 5\n" \
  "            more = (x != -1) if (c & 0x10) else (x != 0)\n" \
  "            if more: c |= 0x20\n" \
  "            s += chr(c + 48)\n" \
  "    return s\n"

/* The median of `values` (sorted in place; the mean of the middle two for an
 * even n), for the benchmarks' repeated timings. */
double      hs_test_median         (double *values, guint n);

G_END_DECLS
