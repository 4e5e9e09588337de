/* test-kill-writes.c — "an interrupted write leaves the old file intact",
 * by killing writers with SIGKILL at every phase of their writes:
 *   exports: `heatscope-cli render` to PNG, SVG and PDF (the app's
 *     File → Export calls the same hs_figure_save through hs_canvas_export);
 *   maps and images the library writes (hs_npy_write, hs_image_save_png:
 *     demo, attend -o, import masks), in this program re-run as a writer;
 *   `heatscope-cli metrics -o` (its own streaming temporary file);
 *   settings: GSettings with the dconf backend on a private D-Bus, whose
 *     dconf-service (the process that writes the settings file) runs under
 *     ptrace and is killed at a chosen system call of its write.
 * Dataset writers (import, demo: staged, locked, switched in whole) are
 * killed in test-kill-datasets.c.  Annotations are killed mid-save in
 * test-annotation.c and, in the real app, in test-ui-annotation-kill.c
 * (see docs/reliability.md).
 *
 * No race decides where a kill lands: each writer runs with
 * HS_TEST_STOP_AT=POINT@FILE:N (hs-stop-point.h) and stops itself there; the
 * test checks what is on disk at that moment (the old target and a part- or
 * whole-written temporary file, or the new target), kills it with SIGKILL,
 * and checks again: the target is byte-identical to the old or to the new
 * version, as the phase says, and parses; a leftover temporary file never
 * has the real name.  Nothing is timed: waits block until the writer stops
 * or ends, and only the suite's timeout bounds a hang. */
#define _GNU_SOURCE   /* memmem */
#include <heatscope/heatscope.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hs-test-util.h"

static char *self_exe;    /* this program, re-run as a library writer */
static char *demo_root;   /* a 2-instance demo dataset */
static char *instance_a, *instance_b, *query_a, *query_b;

/* ---- phases ------------------------------------------------------------------ */

typedef enum { TEMP_NONE, TEMP_PART, TEMP_WHOLE } TempState;

/* A phase of a write: the point the writer stops at, its hit, and what is
 * on disk there (and after a kill there): the old or the new target, and
 * the temporary file. */
typedef struct {
  const char *point;
  guint       hit;
  gboolean    new_target;
  TempState   temp;
} Phase;

/* hs_atomic_write's phases (render, npy, png, the import's manifest). */
static const Phase atomic_phases[] = {
  { "atomic-partial", 1, FALSE, TEMP_PART },
  { "atomic-before-rename", 1, FALSE, TEMP_WHOLE },
  { "atomic-after-rename", 1, TRUE, TEMP_NONE },
};

static char *
stop_spec (const Phase *phase, const char *file)
{
  return g_strdup_printf ("%s@%s:%u", phase->point, file, phase->hit);
}

/* ---- files ------------------------------------------------------------------- */

static GBytes *
read_bytes (const char *path)
{
  char *data = NULL;
  gsize length = 0;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &data, &length, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (data, length);
}

static void
write_bytes (const char *path, GBytes *bytes)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                      &error));
  g_assert_no_error (error);
}

/* The temporary files of a writer of `name` in `dir`: "NAME.XXXXXX"
 * (hs_atomic_write), "NAME.import-PID~" (import's image copies),
 * "NAME.tmp-XXXXXX" (metrics -o); never NAME itself. */
static GPtrArray *
temporaries (const char *dir, const char *name)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  gsize n = strlen (name);
  const char *entry;

  g_assert_nonnull (listing);
  while ((entry = g_dir_read_name (listing)) != NULL)
    if (strncmp (entry, name, n) == 0 && entry[n] == '.' && entry[n + 1] != '\0')
      g_ptr_array_add (found, g_build_filename (dir, entry, NULL));
  return found;
}

/* A kill leaves its temporary file behind (a unique name nobody reads):
 * removed so that the next phase sees only its own. */
static void
remove_temporaries (const char *dir, const char *name)
{
  g_autoptr(GPtrArray) temps = temporaries (dir, name);

  for (guint i = 0; i < temps->len; i++)
    g_assert_cmpint (g_unlink (g_ptr_array_index (temps, i)), ==, 0);
}

/* PDFs carry their creation time: equal up to the CreationDate entry
 * (compared over the first `len` bytes of both; renders a second apart
 * differ there). */
static gboolean
same_prefix (GBytes *got, GBytes *want, gsize len, gboolean pdf)
{
  gsize ng, nw;
  const char *dg = g_bytes_get_data (got, &ng), *dw = g_bytes_get_data (want, &nw);
  const char *date;
  gsize at;

  if (ng < len || nw < len)
    return FALSE;
  /* memmem, not g_strstr_len: the compressed streams before it hold NULs */
  date = pdf ? memmem (dw, nw, "/CreationDate (", 15) : NULL;
  if (date == NULL || (gsize) (date - dw) >= len)
    return memcmp (dg, dw, len) == 0;
  at = (gsize) (date - dw);
  return memcmp (dg, dw, at) == 0 &&
         (len <= at + 40 || memcmp (dg + at + 40, dw + at + 40, len - at - 40) == 0);
}

static gboolean
same_file (GBytes *got, GBytes *want, gboolean pdf)
{
  return g_bytes_get_size (got) == g_bytes_get_size (want) &&
         same_prefix (got, want, g_bytes_get_size (want), pdf);
}

/* What is on disk at `phase` of a write of `new` over `old` (one file, one
 * hs_atomic_write or metrics -o): the target and its temporary file.  A
 * part-written temporary file holds a prefix of the new version (all of it
 * still in the writer's buffer for a streaming writer: `exact_half` FALSE). */
static void
assert_single_state (const char *dir, const char *name, GBytes *old, GBytes *new,
                     const Phase *phase, gboolean pdf, gboolean exact_half)
{
  g_autofree char *target = g_build_filename (dir, name, NULL);
  g_autoptr(GBytes) got = read_bytes (target);
  g_autoptr(GPtrArray) temps = temporaries (dir, name);

  g_assert_true (same_file (got, phase->new_target ? new : old, pdf));
  g_assert_cmpuint (temps->len, ==, phase->temp == TEMP_NONE ? 0 : 1);
  if (phase->temp != TEMP_NONE)
    {
      g_autoptr(GBytes) temp = read_bytes (g_ptr_array_index (temps, 0));
      gsize len = g_bytes_get_size (temp);

      if (phase->temp == TEMP_WHOLE)
        {
        g_assert_true (same_file (temp, new, pdf));
        }
      else
        {
          if (exact_half)
            g_assert_cmpuint (len, ==, g_bytes_get_size (new) / 2);
          g_assert_cmpuint (len, <, g_bytes_get_size (new));
          g_assert_true (same_prefix (temp, new, len, pdf));
        }
    }
}

/* Starts argv stopped at `spec`, checks the state there, kills it, checks
 * again (a kill changes nothing on disk), removes the leftover. */
static void
kill_at (const char * const *argv, const char *spec, const char *dir, const char *name,
         GBytes *old, GBytes *new, const Phase *phase, gboolean pdf, gboolean exact_half)
{
  GPid pid = hs_test_run_to_stop (argv, spec);

  assert_single_state (dir, name, old, new, phase, pdf, exact_half);
  hs_test_kill_stopped (pid);
  assert_single_state (dir, name, old, new, phase, pdf, exact_half);
  remove_temporaries (dir, name);
}

/* ---- exports: heatscope-cli render --------------------------------------- */

static void
render (const char *instance, const char *query, const char *out)
{
  const char *argv[] = { hs_test_cli (), "render", demo_root, "--instance", instance,
                         "--query", query, "--size", "512", "-o", out, NULL };
  hs_test_run_ok (argv);
}

static void
test_render (gconstpointer data)
{
  const char *ext = data;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *name = g_strdup_printf ("figure.%s", ext);
  g_autofree char *target = g_build_filename (dir, name, NULL);
  g_autofree char *ref_dir = hs_test_make_tmpdir ();
  g_autofree char *ref_a = g_strdup_printf ("%s/a.%s", ref_dir, ext);
  g_autofree char *ref_b = g_strdup_printf ("%s/b.%s", ref_dir, ext);
  g_autoptr(GBytes) a = NULL;
  g_autoptr(GBytes) b = NULL;
  gboolean pdf = strcmp (ext, "pdf") == 0;
  const char *argv[] = { hs_test_cli (), "render", demo_root, "--instance", instance_b,
                         "--query", query_b, "--size", "512", "-o", target, NULL };

  render (instance_a, query_a, ref_a);
  render (instance_b, query_b, ref_b);
  a = read_bytes (ref_a);
  b = read_bytes (ref_b);
  g_assert_false (same_file (a, b, pdf));

  for (guint i = 0; i < G_N_ELEMENTS (atomic_phases); i++)
    {
      g_autofree char *spec = stop_spec (&atomic_phases[i], name);

      write_bytes (target, a);
      kill_at (argv, spec, dir, name, a, b, &atomic_phases[i], pdf, TRUE);
      g_test_message ("render %s: killed at %s", ext, spec);
    }
  {
    /* One write per export: its second hit is never reached. */
    g_autofree char *log = g_build_filename (ref_dir, "log", NULL);
    g_autofree char *spec = g_strdup_printf ("atomic-partial@%s:2", name);

    write_bytes (target, a);
    hs_test_wait_exit (hs_test_spawn_logged (argv, NULL, NULL, spec, log), log);
    assert_single_state (dir, name, a, b, &atomic_phases[2], pdf, TRUE);
  }
}

/* ---- maps and images written by the library ------------------------------ */

static void
write_version (const char *kind, const char *path, guint version)
{
  g_autoptr(GError) error = NULL;

  if (strcmp (kind, "npy") == 0)
    {
      gsize shape[3] = { 4, 64, 64 };
      g_autofree double *values = g_new (double, 4 * 64 * 64);

      for (guint i = 0; i < 4 * 64 * 64; i++)
        values[i] = (double) ((i * (version + 2)) % 97) / 97.0;
      g_assert_true (hs_npy_write (path, HS_DTYPE_FLOAT32, 3, shape, values, FALSE, FALSE, &error));
    }
  else
    {
      g_autoptr(HsImage) image = hs_image_new (512, 512, 1, 16, &error);
      guint16 *pixels = hs_image_get_data (image);

      for (guint p = 0; p < 512 * 512; p++)
        pixels[p] = (guint16) ((p * (version + 5)) % 65521);
      g_assert_true (hs_image_save_png (image, path, &error));
    }
  g_assert_no_error (error);
}

static void
assert_parses (const char *kind, const char *path)
{
  g_autoptr(GError) error = NULL;

  if (strcmp (kind, "npy") == 0)
    {
      HsNdArray *array = hs_npy_read (path, &error);
      g_assert_no_error (error);
      hs_nd_array_free (array);
    }
  else
    {
      g_autoptr(HsImage) image = hs_image_load (path, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (hs_image_get_width (image), ==, 512);
    }
}

static void
test_library (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *name = g_strdup_printf ("file.%s", kind);
  g_autofree char *target = g_build_filename (dir, name, NULL);
  g_autofree char *ref_dir = hs_test_make_tmpdir ();
  g_autofree char *ref_a = g_build_filename (ref_dir, "a", NULL);
  g_autofree char *ref_b = g_build_filename (ref_dir, "b", NULL);
  g_autoptr(GBytes) a = NULL;
  g_autoptr(GBytes) b = NULL;
  const char *argv[] = { self_exe, "--write", kind, target, "1", NULL };

  write_version (kind, ref_a, 0);
  write_version (kind, ref_b, 1);
  a = read_bytes (ref_a);
  b = read_bytes (ref_b);
  g_assert_false (g_bytes_equal (a, b));

  for (guint i = 0; i < G_N_ELEMENTS (atomic_phases); i++)
    {
      g_autofree char *spec = stop_spec (&atomic_phases[i], name);

      write_bytes (target, a);
      kill_at (argv, spec, dir, name, a, b, &atomic_phases[i], FALSE, TRUE);
      assert_parses (kind, target);
      g_test_message ("%s: killed at %s", kind, spec);
    }
}

/* ---- heatscope-cli metrics -o ---------------------------------------------- */

/* The output is streamed to NAME.tmp-XXXXXX: a part after the header and
 * after each of the two instances' rows, then the rename. */
static void
test_metrics (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autofree char *target = g_build_filename (dir, "out.csv", NULL);
  g_autofree char *ref_dir = hs_test_make_tmpdir ();
  g_autofree char *ref_a = g_build_filename (ref_dir, "a.csv", NULL);
  g_autofree char *ref_b = g_build_filename (ref_dir, "b.csv", NULL);
  g_autofree char *log = g_build_filename (ref_dir, "log", NULL);
  const char *old_argv[] = { hs_test_cli (), "metrics", demo_root, "--protocol", "gloria", "-o", ref_a,
                             NULL };
  const char *new_argv[] = { hs_test_cli (), "metrics", demo_root, "-o", ref_b, NULL };
  const char *argv[] = { hs_test_cli (), "metrics", demo_root, "-o", target, NULL };
  const Phase phases[] = {
    { "atomic-partial", 1, FALSE, TEMP_PART },   /* the header */
    { "atomic-partial", 2, FALSE, TEMP_PART },   /* the first instance */
    { "atomic-partial", 3, FALSE, TEMP_PART },   /* the second, last */
    { "atomic-before-rename", 1, FALSE, TEMP_WHOLE },
    { "atomic-after-rename", 1, TRUE, TEMP_NONE },
  };
  g_autoptr(GBytes) a = NULL;
  g_autoptr(GBytes) b = NULL;

  hs_test_run_ok (old_argv);
  hs_test_run_ok (new_argv);
  a = read_bytes (ref_a);
  b = read_bytes (ref_b);
  g_assert_false (g_bytes_equal (a, b));

  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    {
      g_autofree char *spec = stop_spec (&phases[i], "out.csv");

      write_bytes (target, a);
      kill_at (argv, spec, dir, "out.csv", a, b, &phases[i], FALSE, FALSE);
      g_test_message ("metrics -o: killed at %s", spec);
    }
  /* Two instances: no fourth part. */
  write_bytes (target, a);
  hs_test_wait_exit (hs_test_spawn_logged (argv, NULL, NULL, "atomic-partial@out.csv:4", log), log);
  assert_single_state (dir, "out.csv", a, b, &phases[4], FALSE, FALSE);
}

/* ---- settings: GSettings through dconf --------------------------------- */

/* The settings file is written by dconf-service, not by Heatscope, so no
 * stop point can be put in its writer: this test starts dconf-service
 * itself under ptrace (in a tracer process) and kills it at a chosen system
 * call of its write of ~/.config/dconf/user (GVDB through
 * g_file_set_contents: a temporary file, write, fsync, rename). */
typedef enum {
  DCONF_NO_KILL,        /* trace, never kill (the first write) */
  DCONF_TEMP_WRITE,     /* entering the first write() to the temporary file */
  DCONF_RENAME,         /* entering the rename of the temporary file onto the target */
  DCONF_RENAMED,        /* returning from that rename */
} DconfPhase;

static const char *const dconf_phase_name[] = {
  "nothing", "its first write to the temporary file", "its rename (entering)", "its rename (returning)",
};

/* The path `address` points to in the tracee's memory. */
static char *
tracee_string (pid_t tid, guint64 address)
{
  g_autofree char *mem = g_strdup_printf ("/proc/%d/mem", (int) tid);
  char buffer[4096] = { 0 };
  int fd = open (mem, O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return g_strdup ("");
  n = pread (fd, buffer, sizeof buffer - 1, (off_t) address);
  close (fd);
  return g_strndup (buffer, n > 0 ? (gsize) n : 0);
}

static char *
tracee_fd_path (pid_t tid, guint64 fd)
{
  g_autofree char *link = g_strdup_printf ("/proc/%d/fd/%" G_GUINT64_FORMAT, (int) tid, fd);
  char *target = g_file_read_link (link, NULL);

  return target != NULL ? target : g_strdup ("");
}

/* The tracer (a child of the test): starts dconf-service traced, follows
 * every thread's system calls and kills it at `phase` of a write of
 * `user_db`.  Exit status 0: killed there; 2: it ended first. */
static G_GNUC_NORETURN void
dconf_tracer (char **env, const char *user_db, DconfPhase phase)
{
  char *argv[] = { (char *) "/usr/libexec/dconf-service", NULL };
  g_autofree char *temp_prefix = g_strconcat (user_db, ".", NULL);
  pid_t service = fork (), tid, renaming = 0;
  gboolean killed = FALSE;
  int status;

  if (service < 0)
    _exit (3);
  if (service == 0)
    {
      int null = open ("/dev/null", O_RDWR);

      /* Not holding the test's output open (meson waits for it). */
      dup2 (null, STDOUT_FILENO);
      dup2 (null, STDERR_FILENO);
      ptrace (PTRACE_TRACEME, 0, NULL, NULL);
      raise (SIGSTOP);
      execve (argv[0], argv, env);
      _exit (127);
    }
  if (waitpid (service, &status, 0) != service || !WIFSTOPPED (status))
    _exit (3);
  ptrace (PTRACE_SETOPTIONS, service, NULL,
          (void *) (long) (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
                           PTRACE_O_EXITKILL));
  ptrace (PTRACE_SYSCALL, service, NULL, NULL);

  while ((tid = waitpid (-1, &status, __WALL)) > 0)
    {
      int sig;

      if (WIFEXITED (status) || WIFSIGNALED (status))
        {
          if (tid == service)
            _exit (killed ? 0 : 2);
          continue;
        }
      sig = WSTOPSIG (status);
      if (sig == (SIGTRAP | 0x80))
        {
          struct __ptrace_syscall_info info = { 0 };
          gboolean hit = FALSE;

          ptrace (PTRACE_GET_SYSCALL_INFO, tid, (void *) sizeof info, &info);
          if (info.op == PTRACE_SYSCALL_INFO_ENTRY && !killed)
            {
              guint64 nr = info.entry.nr;

              if (phase == DCONF_TEMP_WRITE && (nr == SYS_write || nr == SYS_pwrite64 || nr == SYS_writev))
                {
                  g_autofree char *path = tracee_fd_path (tid, info.entry.args[0]);
                  hit = g_str_has_prefix (path, temp_prefix);
                }
              else if ((phase == DCONF_RENAME || phase == DCONF_RENAMED) &&
                       (nr == SYS_rename || nr == SYS_renameat || nr == SYS_renameat2))
                {
                  g_autofree char *to = tracee_string (tid, nr == SYS_rename ? info.entry.args[1]
                                                                             : info.entry.args[3]);
                  if (g_str_equal (to, user_db))
                    {
                      hit = phase == DCONF_RENAME;
                      renaming = phase == DCONF_RENAMED ? tid : 0;
                    }
                }
            }
          else if (info.op == PTRACE_SYSCALL_INFO_EXIT && tid == renaming && !killed)
            hit = TRUE;
          if (hit)
            {
              /* The thread stays stopped in its system call until it dies. */
              kill (service, SIGKILL);
              killed = TRUE;
              continue;
            }
          ptrace (PTRACE_SYSCALL, tid, NULL, NULL);
        }
      else if ((status >> 16) != 0 || sig == SIGSTOP)
        ptrace (PTRACE_SYSCALL, tid, NULL, NULL);   /* an event, or a new thread's first stop */
      else
        ptrace (PTRACE_SYSCALL, tid, NULL, (void *) (long) sig);
    }
  _exit (3);
}

/* A bus of its own group, gone with the test if the test dies first. */
static void
own_process_group (gpointer data)
{
  setpgid (0, 0);
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

static void
run_sync (const char * const *argv, char **env, gboolean must_succeed)
{
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                               (must_succeed ? 0 : G_SPAWN_STDERR_TO_DEV_NULL),
                               NULL, NULL, NULL, NULL, &status, NULL));
  if (must_succeed)
    g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static char *
settings_get (char **env)
{
  const char *argv[] = { "gsettings", "get", "org.heatscope.Heatscope", "last-dataset", NULL };
  g_autofree char *out = NULL;
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_strstrip (g_steal_pointer (&out));
}

/* One write of "last-dataset" = `value` through a fresh session bus and a
 * traced dconf-service, killed at `phase` (or, DCONF_NO_KILL, ended after
 * the write). */
static void
dconf_write (char **env, const char *tmp, const char *user_db, const char *value, DconfPhase phase)
{
  g_autofree char *address = g_strdup_printf ("unix:path=%s/bus", tmp);
  g_autofree char *address_arg = g_strdup_printf ("--address=%s", address);
  g_autofree char *socket = g_build_filename (tmp, "bus", NULL);
  const char *daemon_argv[] = { "dbus-daemon", "--session", "--nofork", "--print-address=1", address_arg, NULL };
  /* gdbus returns as soon as dconf is on the bus; 120 s only bounds a hang. */
  const char *wait_argv[] = { "gdbus", "wait", "--session", "--timeout", "120", "ca.desrt.dconf", NULL };
  const char *set_argv[] = { "gsettings", "set", "org.heatscope.Heatscope", "last-dataset", value, NULL };
  g_autoptr(GError) error = NULL;
  GPid daemon = 0;
  pid_t tracer;
  int status = 0;

  g_unlink (socket);   /* the last bus's */
  int address_fd = -1;
  char printed = 0;

  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) daemon_argv, env,
                                           G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                                           G_SPAWN_STDERR_TO_DEV_NULL,
                                           own_process_group, NULL, &daemon, NULL, &address_fd, NULL, &error));
  g_assert_no_error (error);
  /* The daemon prints its address once it listens (the socket file alone
   * exists before listen(), and a client connecting then is refused): read
   * up to that line, by construction rather than by polling. */
  while (read (address_fd, &printed, 1) == 1 && printed != '\n')
    ;
  g_assert_cmpint (printed, ==, '\n');
  close (address_fd);
  tracer = fork ();
  g_assert_cmpint (tracer, >=, 0);
  if (tracer == 0)
    {
      int null = open ("/dev/null", O_RDWR);

      /* Gone with the test (and the service with it: PTRACE_O_EXITKILL). */
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      dup2 (null, STDOUT_FILENO);
      dup2 (null, STDERR_FILENO);
      dconf_tracer (env, user_db, phase);
    }
  /* The traced service owns the name before anything asks for it, so the
   * bus never starts an untraced one (gdbus waits for the socket too; the
   * timeout only bounds a hang). */
  run_sync (wait_argv, env, TRUE);
  /* Fails (no reply) when the service is killed mid-write. */
  run_sync (set_argv, env, phase == DCONF_NO_KILL);
  if (phase == DCONF_NO_KILL)
    kill (tracer, SIGKILL);   /* PTRACE_O_EXITKILL takes the service along */
  g_assert_cmpint (waitpid (tracer, &status, 0), ==, tracer);
  if (phase != DCONF_NO_KILL)
    {
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);   /* killed at that point, not ended before */
    }
  kill (-daemon, SIGKILL);
  waitpid (daemon, NULL, 0);
  g_spawn_close_pid (daemon);
}

/* "last-dataset" is written as /v/0, then dconf-service is killed at each
 * phase of writing /v/1, /v/2, /v/3: the settings file is the old one or
 * the new one as the phase says (byte for byte), a reader gets that
 * value, and the temporary file left behind is never the real name. */
static void
test_settings (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *config = g_build_filename (tmp, "config", NULL);
  g_autofree char *dconf_dir = g_build_filename (config, "dconf", NULL);
  g_autofree char *user_db = g_build_filename (dconf_dir, "user", NULL);
  g_autofree char *runtime = g_build_filename (tmp, "run", NULL);
  g_autofree char *bus = g_strdup_printf ("unix:path=%s/bus", tmp);
  g_autofree char *schemas = g_build_filename (g_getenv ("HS_BUILD_DIR") ? g_getenv ("HS_BUILD_DIR") : ".",
                                               "data", NULL);
  g_autofree char *compiled = g_build_filename (schemas, "gschemas.compiled", NULL);
  g_autofree char *have_daemon = g_find_program_in_path ("dbus-daemon");
  g_autofree char *have_gsettings = g_find_program_in_path ("gsettings");
  g_autofree char *have_gdbus = g_find_program_in_path ("gdbus");
  g_autofree char *value = NULL;
  g_auto(GStrv) env = NULL;
  const DconfPhase phases[] = { DCONF_TEMP_WRITE, DCONF_RENAME, DCONF_RENAMED };
  const char *current = "'/v/0'";

  if (have_daemon == NULL || have_gsettings == NULL || have_gdbus == NULL ||
      !g_file_test ("/usr/libexec/dconf-service", G_FILE_TEST_IS_EXECUTABLE) ||
      !g_file_test (compiled, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("needs dbus-daemon, gsettings, gdbus, dconf-service and the compiled schema");
      return;
    }
  g_assert_cmpint (g_mkdir_with_parents (config, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (runtime, 0700), ==, 0);
  env = g_get_environ ();
  env = g_environ_setenv (env, "HOME", tmp, TRUE);
  env = g_environ_setenv (env, "XDG_CONFIG_HOME", config, TRUE);
  env = g_environ_setenv (env, "XDG_RUNTIME_DIR", runtime, TRUE);
  env = g_environ_setenv (env, "DBUS_SESSION_BUS_ADDRESS", bus, TRUE);
  env = g_environ_setenv (env, "GSETTINGS_BACKEND", "dconf", TRUE);
  env = g_environ_setenv (env, "GSETTINGS_SCHEMA_DIR", schemas, TRUE);

  dconf_write (env, tmp, user_db, "/v/0", DCONF_NO_KILL);
  value = settings_get (env);
  g_assert_cmpstr (value, ==, current);

  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    {
      g_autofree char *new_value = g_strdup_printf ("/v/%u", i + 1);
      g_autofree char *quoted = g_strdup_printf ("'%s'", new_value);
      g_autoptr(GBytes) before = read_bytes (user_db);
      g_autoptr(GBytes) after = NULL;
      g_autoptr(GPtrArray) temps = NULL;

      dconf_write (env, tmp, user_db, new_value, phases[i]);
      after = read_bytes (user_db);
      temps = temporaries (dconf_dir, "user");
      g_assert_cmpuint (g_bytes_get_size (after), >=, 24);
      g_assert_true (memcmp (g_bytes_get_data (after, NULL), "GVariant", 8) == 0);
      g_free (value);
      value = settings_get (env);
      if (phases[i] == DCONF_RENAMED)
        {
          g_assert_false (g_bytes_equal (after, before));
          g_assert_cmpstr (value, ==, quoted);
          g_assert_cmpuint (temps->len, ==, 0);
          current = g_intern_string (quoted);
        }
      else
        {
          /* The old file, byte for byte; the new one only in the temporary file. */
          g_assert_true (g_bytes_equal (after, before));
          g_assert_cmpstr (value, ==, current);
          g_assert_cmpuint (temps->len, ==, 1);
          remove_temporaries (dconf_dir, "user");
        }
      g_test_message ("settings: dconf-service killed at %s: the file holds %s",
                      dconf_phase_name[phases[i]], value);
    }
}

/* ---- setup ----------------------------------------------------------------- */

static void
make_demo (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  HsInstance *first, *second;
  HsSentence *sa, *sb;
  const char *argv[] = { hs_test_cli (), "demo", "--count", "2", "--seed", "5", "--size", "256",
                         "--maps", "simulated", NULL, NULL };

  demo_root = g_build_filename (tmp, "demo", NULL);
  argv[10] = demo_root;
  hs_test_run_ok (argv);
  dataset = hs_dataset_load (demo_root, &error);
  g_assert_no_error (error);
  first = hs_dataset_get_instance (dataset, 0);
  second = hs_dataset_get_instance (dataset, 1);
  sa = g_ptr_array_index (first->sentences, 0);
  sb = g_ptr_array_index (second->sentences, 0);
  instance_a = g_strdup (first->id);
  instance_b = g_strdup (second->id);
  query_a = g_strdup (sa->id);
  query_b = g_strdup (sb->id);
}

int
main (int argc, char **argv)
{
  int status;

  /* The library writer: `test-kill-writes --write npy|png PATH VERSION`. */
  if (argc == 5 && strcmp (argv[1], "--write") == 0)
    {
      write_version (argv[2], argv[3], (guint) atoi (argv[4]));
      return 0;
    }
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_nonnull (self_exe);
  g_test_init (&argc, &argv, NULL);
  make_demo ();
  g_test_add_data_func ("/hs/kill-writes/render-png", "png", test_render);
  g_test_add_data_func ("/hs/kill-writes/render-svg", "svg", test_render);
  g_test_add_data_func ("/hs/kill-writes/render-pdf", "pdf", test_render);
  g_test_add_data_func ("/hs/kill-writes/npy", "npy", test_library);
  g_test_add_data_func ("/hs/kill-writes/png", "png", test_library);
  g_test_add_func ("/hs/kill-writes/metrics", test_metrics);
  g_test_add_func ("/hs/kill-writes/settings", test_settings);
  status = g_test_run ();
  g_free (self_exe);
  g_free (demo_root);
  g_free (instance_a);
  g_free (instance_b);
  g_free (query_a);
  g_free (query_b);
  return status;
}
