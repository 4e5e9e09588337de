/* hs-team-private.h — a small team of threads kept for one scoring call.
 *
 * `score` runs three parallel passes over a 2048² grid within ~20 ms.  A
 * thread started per pass costs up to 2 ms before it runs (an idle vCPU
 * has to be woken), and a fixed split of the work then leaves the caller
 * waiting for it.  A team is started once, before the serial set-up, and
 * its members wait between passes by spinning briefly, then sleeping.  A
 * pass hands out its work in fixed units through hs_team_claim, so a late
 * member only means the caller takes more units: the units, and therefore
 * every result, are the same whoever runs them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HsTeam HsTeam;

/* Called once on every member (member 0 is the caller) per hs_team_run. */
typedef void (*HsTeamFunc) (gpointer data, guint member);

/* n_threads ≥ 1 members in all (the caller included); NULL-safe to use
 * with one thread (no thread is started).  Members that cannot be started
 * are simply absent: the caller does their units. */
HsTeam *hs_team_new      (guint n_threads);
guint   hs_team_size     (const HsTeam *team);
/* Runs func on every member and returns when all have returned. */
void    hs_team_run      (HsTeam *team, HsTeamFunc func, gpointer data);
void    hs_team_free     (HsTeam *team);

/* For a process about to score once, called while it reads its inputs: a
 * virtual machine's idle vCPU can take milliseconds to wake for a new
 * thread (measured here: up to 3.4 ms, in most processes of a quiet
 * machine), so a short-lived thread keeps the other cores busy — politely,
 * with pause — until the next team's members have been started, or
 * 10 ms at most.  The next team takes such a thread as its member rather
 * than starting one (hs-team.c: its core is already awake, and the
 * scheduler has no new thread to place); nothing else changes. */
void    hs_team_keep_cores_awake (void);
/* For tests: how many keep-awake threads are still running, and how many
 * ended because a team started or because they had waited long enough;
 * and that longest wait (µs). */
guint   hs_team_test_awake_count   (guint *ended_by_team, guint *ended_by_time);
/* How many keep-awake threads a team has taken as its members. */
guint   hs_team_test_adopted_count (void);
void    hs_team_test_set_awake_max (gint64 us);

/* The next unit of `n_units` from a counter the pass set to 0, or n_units
 * when none is left. */
static inline guint
hs_team_claim (gint *counter, guint n_units)
{
  guint u = (guint) g_atomic_int_add (counter, 1);

  return u < n_units ? u : n_units;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsTeam, hs_team_free)

G_END_DECLS
