/* hs-stop-point.h — fault injection for the kill tests (HS_TEST_STOP_AT) */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A named point in a writer where a test may stop the process, so that it
 * kills it exactly there instead of racing to catch it mid-write.
 *
 * HS_TEST_STOP_AT=POINT[@FILE][:N] (read once, at the first point reached):
 * the N-th time (default 1) the process reaches POINT — counting only the
 * hits whose file has the base name FILE when @FILE is given — it prints
 * "HS_TEST_STOP_AT: stopped at POINT[@FILE]:N (pid P)" on stderr and stops
 * itself with SIGSTOP (the whole process, every thread).  The test sees the
 * stop with waitpid (WUNTRACED), looks at the files and then sends SIGKILL
 * (or SIGCONT to let it finish).  Unset, a point costs one load and a
 * branch.  The points and where they are: docs/reliability.md. */
void hs_stop_point      (const char *point);
/* The same for a point concerning the file `path` (its base name is what
 * @FILE matches). */
void hs_stop_point_file (const char *point, const char *path);

G_END_DECLS
