/* hs-stop-point.c — HS_TEST_STOP_AT: a writer stops itself at a chosen point
 *
 * The kill tests used to poll a folder for a temporary file and send SIGKILL
 * when they saw one: whether the kill landed mid-write depended on how busy
 * the machine was.  Here the process stops itself at the named point, so a
 * test kills it there by construction. */
#include "hs-stop-point.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char  *point;   /* NULL: inert */
  char  *file;    /* base name the hits must concern, or NULL for any */
  guint  target;  /* stop at this hit (1-based) */
} StopSpec;

static StopSpec spec;
static gsize spec_ready;
static gint hits;

/* POINT[@FILE][:N].  A malformed value is said once on stderr and ignored:
 * the test that set it then sees its writer finish instead of stopping. */
static void
spec_parse (const char *value)
{
  g_autofree char *text = g_strdup (value);
  char *colon = strrchr (text, ':');
  char *at;
  guint64 n = 1;

  if (colon != NULL)
    {
      char *end = NULL;

      n = g_ascii_strtoull (colon + 1, &end, 10);
      if (end == colon + 1 || *end != '\0' || n == 0 || n > G_MAXUINT)
        goto bad;
      *colon = '\0';
    }
  at = strchr (text, '@');
  if (at != NULL)
    {
      *at = '\0';
      if (at[1] == '\0')
        goto bad;
      spec.file = g_strdup (at + 1);
    }
  if (text[0] == '\0')
    goto bad;
  spec.point = g_strdup (text);
  spec.target = (guint) n;
  return;

bad:
  g_clear_pointer (&spec.file, g_free);
  fprintf (stderr, "HS_TEST_STOP_AT: \"%s\" is not POINT[@FILE][:N]; ignored\n", value);
}

static void
stop_at (const char *point, const char *path)
{
  if (g_once_init_enter (&spec_ready))
    {
      const char *value = getenv ("HS_TEST_STOP_AT");

      if (value != NULL && value[0] != '\0')
        spec_parse (value);
      g_once_init_leave (&spec_ready, 1);
    }
  if (G_LIKELY (spec.point == NULL) || strcmp (point, spec.point) != 0)
    return;
  if (spec.file != NULL)
    {
      const char *base;

      if (path == NULL)
        return;
      base = strrchr (path, G_DIR_SEPARATOR);
      base = base != NULL ? base + 1 : path;
      if (strcmp (base, spec.file) != 0)
        return;
    }
  /* Exactly one hit is the chosen one, whatever thread reaches it. */
  if ((guint) g_atomic_int_add (&hits, 1) + 1 != spec.target)
    return;
  fprintf (stderr, "HS_TEST_STOP_AT: stopped at %s%s%s:%u (pid %d)\n", spec.point,
           spec.file != NULL ? "@" : "", spec.file != NULL ? spec.file : "", spec.target,
           (int) getpid ());
  fflush (stderr);
  kill (getpid (), SIGSTOP);
}

void
hs_stop_point (const char *point)
{
  stop_at (point, NULL);
}

void
hs_stop_point_file (const char *point, const char *path)
{
  stop_at (point, path);
}
