/* hs-bench-util.h — what the benchmarks read of their own process
 * (header-only: most benchmarks link nothing but the library or the app). */
#pragma once

#include <glib.h>
#include <string.h>
#include <time.h>

/* CPU time of the whole process, every thread, in seconds. */
static inline double
hs_bench_cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A size line of /proc/self/status — "VmRSS:" (resident now) or "VmHWM:"
 * (the peak) — in MiB; 0 when /proc is not there. */
static inline double
hs_bench_status_mb (const char *key)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, key);
  return line != NULL ? g_ascii_strtod (line + strlen (key), NULL) / 1024.0 : 0;
}
