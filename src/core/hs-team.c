/* hs-team.c — a few threads kept for one scoring call (see hs-team-private.h). */
#include "hs-team-private.h"

#define TEAM_MAX 8
/* How long a member spins for the next pass (or the caller for the last
 * member) before it sleeps: longer than the serial steps between the
 * passes of one call, short enough not to matter to anything else. */
#define SPIN_US  300
/* How long hs_team_keep_cores_awake's threads wait for a team at most:
 * longer than reading the inputs of one `score` (~1 ms), short enough that
 * a caller that never scores wastes little. */
#define KEEP_AWAKE_MAX_US 10000

struct _HsTeam {
  guint      size;                /* members, the caller included */
  GThread   *threads[TEAM_MAX];
  GMutex     lock;
  GCond      wake;                /* a new pass (or quit) */
  GCond      done;                /* the last member finished */
  gint       generation;          /* bumped per pass */
  gint       pending;             /* members still running the pass */
  gint       quit;
  HsTeamFunc func;
  gpointer   data;
};

typedef struct {
  HsTeam *team;
  guint   member;
} Member;

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#endif
}

/* Spins while (*value == x) == equal, for SPIN_US at most; TRUE when it
 * stopped being so. */
static gboolean
spin_while (const gint *value, gint x, gboolean equal)
{
  gint64 deadline = 0;

  for (guint i = 0;; i++)
    {
      if ((g_atomic_int_get (value) == x) != equal)
        return TRUE;
      cpu_relax ();
      if ((i & 255) == 255)
        {
          gint64 now = g_get_monotonic_time ();

          if (deadline == 0)
            deadline = now + SPIN_US;
          else if (now > deadline)
            return FALSE;
        }
    }
}

/* Bumped by every hs_team_new once its members are started: what the
 * keep-awake threads wait for. */
static gint teams_started;
static gint awake_running, awake_by_team, awake_by_time, awake_adopted;
static gint64 awake_max_us = KEEP_AWAKE_MAX_US;   /* tests set it */

/* A keep-awake thread is a member in waiting: the next team takes it
 * instead of starting a thread (its core is awake, the thread exists, and
 * the scheduler has nothing new to place).  Its slot's state moves once
 * from WAITING, by compare-and-swap, either to ADOPTED by a team — which
 * then takes the thread's reference (to join it), gives it its member and
 * says TAKEN — or to LEFT by the thread itself (a team started without
 * it, or it waited long enough).  The thread frees the slot (EMPTY) when
 * it has read what it needs, so nothing in a slot changes under a reader. */
enum { SLOT_EMPTY, SLOT_STARTING, SLOT_WAITING, SLOT_ADOPTED, SLOT_TAKEN, SLOT_LEFT };

typedef struct {
  gint      state;
  GThread  *thread;     /* the starter's reference: the team's, once adopted */
  gpointer  member;     /* set between ADOPTED and TAKEN */
} AwakeSlot;

static AwakeSlot awake_slots[TEAM_MAX];

static gpointer member_main (gpointer data);

static gpointer
keep_awake_main (gpointer data)
{
  AwakeSlot *slot = data;
  gint seen = g_atomic_int_get (&teams_started);
  gint64 deadline = g_get_monotonic_time () + awake_max_us;
  gboolean by_team = TRUE;
  gpointer member;

  /* its reference is in the slot (hs_team_keep_cores_awake) before the
   * slot says WAITING */
  while (g_atomic_int_get (&slot->state) == SLOT_STARTING)
    g_thread_yield ();
  /* yielding, not only pausing: should it share a core with the caller
   * (the other one being busy), the caller runs first */
  for (guint i = 0; g_atomic_int_get (&slot->state) == SLOT_WAITING; i++)
    {
      g_thread_yield ();
      if (g_atomic_int_get (&teams_started) != seen)
        {
          if (g_atomic_int_compare_and_exchange (&slot->state, SLOT_WAITING, SLOT_LEFT))
            break;
        }
      else if ((i & 15) == 15 && g_get_monotonic_time () > deadline)
        {
          by_team = FALSE;
          if (g_atomic_int_compare_and_exchange (&slot->state, SLOT_WAITING, SLOT_LEFT))
            break;
        }
    }
  if (g_atomic_int_get (&slot->state) != SLOT_LEFT)
    {
      g_atomic_int_inc (&awake_by_team);
      while (g_atomic_int_get (&slot->state) != SLOT_TAKEN)
        g_thread_yield ();
      member = g_atomic_pointer_get (&slot->member);
      g_atomic_int_inc (&awake_adopted);
      g_atomic_int_set (&slot->state, SLOT_EMPTY);
      g_atomic_int_add (&awake_running, -1);
      return member_main (member);
    }
  /* left: nobody will join it */
  g_atomic_int_inc (by_team ? &awake_by_team : &awake_by_time);
  g_thread_unref (slot->thread);
  g_atomic_int_set (&slot->state, SLOT_EMPTY);
  g_atomic_int_add (&awake_running, -1);
  return NULL;
}

void
hs_team_keep_cores_awake (void)
{
  guint n = MIN (g_get_num_processors (), TEAM_MAX);

  for (guint i = 1, k = 0; i < n && k < TEAM_MAX; k++)
    {
      AwakeSlot *slot = &awake_slots[k];

      if (!g_atomic_int_compare_and_exchange (&slot->state, SLOT_EMPTY, SLOT_STARTING))
        continue;
      g_atomic_int_inc (&awake_running);
      slot->thread = g_thread_try_new ("hs-team", keep_awake_main, slot, NULL);
      if (slot->thread == NULL)
        {
          g_atomic_int_add (&awake_running, -1);
          g_atomic_int_set (&slot->state, SLOT_EMPTY);
          break;
        }
      g_atomic_int_set (&slot->state, SLOT_WAITING);
      i++;
    }
}

/* A waiting keep-awake thread made member m, or NULL when none waits. */
static GThread *
adopt_awake (gpointer m)
{
  for (guint k = 0; k < TEAM_MAX; k++)
    {
      AwakeSlot *slot = &awake_slots[k];
      GThread *thread;

      if (!g_atomic_int_compare_and_exchange (&slot->state, SLOT_WAITING, SLOT_ADOPTED))
        continue;
      thread = slot->thread;
      g_atomic_pointer_set (&slot->member, m);
      g_atomic_int_set (&slot->state, SLOT_TAKEN);
      return thread;
    }
  return NULL;
}

guint
hs_team_test_awake_count (guint *ended_by_team, guint *ended_by_time)
{
  if (ended_by_team != NULL)
    *ended_by_team = (guint) g_atomic_int_get (&awake_by_team);
  if (ended_by_time != NULL)
    *ended_by_time = (guint) g_atomic_int_get (&awake_by_time);
  return (guint) g_atomic_int_get (&awake_running);
}

guint
hs_team_test_adopted_count (void)
{
  return (guint) g_atomic_int_get (&awake_adopted);
}

void
hs_team_test_set_awake_max (gint64 us)
{
  awake_max_us = us;
}

static gpointer
member_main (gpointer data)
{
  Member *m = data;
  HsTeam *team = m->team;
  gint seen = 0;

  for (;;)
    {
      if (!spin_while (&team->generation, seen, TRUE))
        {
          g_mutex_lock (&team->lock);
          while (g_atomic_int_get (&team->generation) == seen)
            g_cond_wait (&team->wake, &team->lock);
          g_mutex_unlock (&team->lock);
        }
      seen = g_atomic_int_get (&team->generation);
      if (g_atomic_int_get (&team->quit))
        break;
      team->func (team->data, m->member);
      if (g_atomic_int_dec_and_test (&team->pending))
        {
          g_mutex_lock (&team->lock);
          g_cond_signal (&team->done);
          g_mutex_unlock (&team->lock);
        }
    }
  g_free (m);
  return NULL;
}

HsTeam *
hs_team_new (guint n_threads)
{
  HsTeam *team = g_new0 (HsTeam, 1);

  g_mutex_init (&team->lock);
  g_cond_init (&team->wake);
  g_cond_init (&team->done);
  team->size = 1;
  n_threads = CLAMP (n_threads, 1, TEAM_MAX);
  for (guint i = 1; i < n_threads; i++)
    {
      Member *m = g_new (Member, 1);

      m->team = team;
      m->member = team->size;
      team->threads[team->size] = adopt_awake (m);
      if (team->threads[team->size] == NULL)
        team->threads[team->size] = g_thread_try_new ("hs-team", member_main, m, NULL);
      if (team->threads[team->size] == NULL)
        {
          g_free (m);
          break;
        }
      team->size++;
    }
  /* the members are running now: keep-awake threads not taken can end */
  g_atomic_int_inc (&teams_started);
  return team;
}

guint
hs_team_size (const HsTeam *team)
{
  return team != NULL ? team->size : 1;
}

void
hs_team_run (HsTeam *team, HsTeamFunc func, gpointer data)
{
  g_return_if_fail (func != NULL);

  if (team == NULL || team->size == 1)
    {
      func (data, 0);
      return;
    }
  team->func = func;
  team->data = data;
  g_atomic_int_set (&team->pending, (gint) team->size - 1);
  g_mutex_lock (&team->lock);
  g_atomic_int_inc (&team->generation);
  g_cond_broadcast (&team->wake);
  g_mutex_unlock (&team->lock);

  func (data, 0);

  if (!spin_while (&team->pending, 0, FALSE))
    {
      g_mutex_lock (&team->lock);
      while (g_atomic_int_get (&team->pending) != 0)
        g_cond_wait (&team->done, &team->lock);
      g_mutex_unlock (&team->lock);
    }
}

void
hs_team_free (HsTeam *team)
{
  if (team == NULL)
    return;
  g_mutex_lock (&team->lock);
  g_atomic_int_set (&team->quit, 1);
  g_atomic_int_inc (&team->generation);
  g_cond_broadcast (&team->wake);
  g_mutex_unlock (&team->lock);
  for (guint i = 1; i < team->size; i++)
    g_thread_join (team->threads[i]);
  g_mutex_clear (&team->lock);
  g_cond_clear (&team->wake);
  g_cond_clear (&team->done);
  g_free (team);
}
