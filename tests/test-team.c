/* test-team.c — the scoring team (hs-team.c): every unit of a pass runs
 * exactly once whoever claims it, members run once per pass with their own
 * index, a member that comes late only leaves its units to the caller,
 * many passes in a row never lose a wake-up (a lost one hangs the test),
 * and the warm-up's threads end when a team starts or after their limit. */
#include <heatscope/heatscope.h>

#include "hs-test-util.h"
#include "hs-team-private.h"

#define N_UNITS 97

typedef struct {
  gint   next;
  gint   visits[N_UNITS];
  gint   member_calls[8];
  gint   units_by_member[8];
  GMutex gate;            /* held by the test or member 0 until it is done */
  gboolean hold_others;
} Pass;

static void
do_units (gpointer data, guint member)
{
  Pass *p = data;
  guint u;

  g_assert_cmpuint (member, <, 8);
  g_atomic_int_inc (&p->member_calls[member]);
  if (p->hold_others && member > 0)
    {
      /* late on purpose: wait until member 0 has taken every unit */
      g_mutex_lock (&p->gate);
      g_mutex_unlock (&p->gate);
    }
  while ((u = hs_team_claim (&p->next, N_UNITS)) < N_UNITS)
    {
      g_atomic_int_inc (&p->visits[u]);
      g_atomic_int_inc (&p->units_by_member[member]);
    }
  if (p->hold_others && member == 0)
    g_mutex_unlock (&p->gate);
}

static void
check_pass (HsTeam *team, gboolean hold_others)
{
  Pass p = { 0 };
  gint total = 0;

  g_mutex_init (&p.gate);
  p.hold_others = hold_others;
  if (hold_others)
    g_mutex_lock (&p.gate);   /* member 0 (this thread) unlocks it */
  hs_team_run (team, do_units, &p);
  for (guint u = 0; u < N_UNITS; u++)
    g_assert_cmpint (p.visits[u], ==, 1);
  for (guint m = 0; m < 8; m++)
    {
      g_assert_cmpint (p.member_calls[m], ==, m < hs_team_size (team) ? 1 : 0);
      total += p.units_by_member[m];
    }
  g_assert_cmpint (total, ==, N_UNITS);
  if (hold_others)
    g_assert_cmpint (p.units_by_member[0], ==, N_UNITS);
  g_mutex_clear (&p.gate);
}

static void
test_units_once (void)
{
  for (guint n = 1; n <= 4; n++)
    {
      g_autoptr(HsTeam) team = hs_team_new (n);

      g_assert_cmpuint (hs_team_size (team), ==, n);
      check_pass (team, FALSE);
      check_pass (team, TRUE);
    }
  /* no team: the caller alone */
  check_pass (NULL, FALSE);
  g_assert_cmpuint (hs_team_size (NULL), ==, 1);
}

static void
test_many_passes (void)
{
  g_autoptr(HsTeam) team = hs_team_new (2);

  /* back-to-back passes (members spinning) and passes after the members
   * went to sleep are both covered: the first ones come faster than the
   * spin, the test's own check work between them varies */
  for (guint i = 0; i < 2000; i++)
    check_pass (team, i % 7 == 3);
}

static void
test_free_idle (void)
{
  /* a team freed without a pass, and with size clamped */
  HsTeam *team = hs_team_new (0);

  g_assert_cmpuint (hs_team_size (team), ==, 1);
  hs_team_free (team);
  team = hs_team_new (2);
  hs_team_free (team);
  hs_team_free (NULL);
}

/* Waits (polling, up to 30 s) until no keep-awake thread runs. */
static void
wait_awake_done (void)
{
  for (guint i = 0; i < 30000 && hs_team_test_awake_count (NULL, NULL) > 0; i++)
    g_usleep (1000);
  g_assert_cmpuint (hs_team_test_awake_count (NULL, NULL), ==, 0);
}

static void
note_member (gpointer data, guint member)
{
  gint *called = data;

  g_atomic_int_inc (&called[MIN (member, 7)]);
}

/* hs_score_warm_up's threads: one per other core, ended by the next team
 * (with no time limit, so only a team can end them) — which takes one as
 * its member instead of starting a thread — or by their time limit when
 * no team comes; a second team does not need them. */
static void
test_keep_awake (void)
{
  guint others = MIN (g_get_num_processors (), 8) - 1, by_team0, by_time0, by_team, by_time;
  guint adopted0 = hs_team_test_adopted_count ();
  gint called[8] = { 0 };
  HsTeam *team;

  hs_team_test_awake_count (&by_team0, &by_time0);
  hs_team_test_set_awake_max (G_MAXINT64 / 2);
  hs_score_warm_up ();
  g_assert_cmpuint (hs_team_test_awake_count (NULL, NULL), ==, others);
  team = hs_team_new (2);
  g_assert_cmpuint (hs_team_size (team), ==, 2);
  wait_awake_done ();
  hs_team_test_awake_count (&by_team, &by_time);
  g_assert_cmpuint (by_team - by_team0, ==, others);
  g_assert_cmpuint (by_time - by_time0, ==, 0);
  /* the team's second member is a kept-awake thread (when there was one),
   * and it works as one: every pass runs on both members */
  g_assert_cmpuint (hs_team_test_adopted_count () - adopted0, ==, MIN (others, 1));
  for (guint pass = 0; pass < 3; pass++)
    hs_team_run (team, note_member, called);
  g_assert_cmpint (called[0], ==, 3);
  g_assert_cmpint (called[1], ==, 3);
  hs_team_free (team);

  /* no team: they give up after their limit (here 1 ms) */
  hs_team_test_set_awake_max (1000);
  hs_score_warm_up ();
  wait_awake_done ();
  hs_team_test_awake_count (&by_team0, &by_time);
  g_assert_cmpuint (by_team0, ==, by_team);
  g_assert_cmpuint (by_time - by_time0, ==, others);
}

/* A team taking a kept-awake thread while it times out (limits of 0–3 µs,
 * so leaving and adoption race): every team still runs every pass on all
 * its members, nothing is joined twice or left running. */
static void
test_keep_awake_race (void)
{
  for (guint round = 0; round < 300; round++)
    {
      gint called[8] = { 0 };
      HsTeam *team;

      hs_team_test_set_awake_max (round % 4);
      hs_score_warm_up ();
      if (round % 3 == 0)
        g_thread_yield ();
      team = hs_team_new (2);
      hs_team_run (team, note_member, called);
      g_assert_cmpint (called[0], ==, 1);
      g_assert_cmpint (called[1], ==, hs_team_size (team) > 1 ? 1 : 0);
      hs_team_free (team);
    }
  wait_awake_done ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/team/units-once", test_units_once);
  g_test_add_func ("/team/many-passes", test_many_passes);
  g_test_add_func ("/team/free-idle", test_free_idle);
  g_test_add_func ("/team/keep-awake", test_keep_awake);
  g_test_add_func ("/team/keep-awake-race", test_keep_awake_race);
  return g_test_run ();
}
