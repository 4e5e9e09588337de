/* test-latest-request.c — "the newest request wins": tickets, generations,
 * the shared cancellable, and results arriving out of order */
#include "hs-latest-request.h"

/* One generation shared by several requests (the compare view's cells). */
static void
test_generation (void)
{
  g_autoptr(HsLatestRequest) latest = hs_latest_request_new ();
  g_autoptr(GCancellable) first = NULL;
  GCancellable *c1 = NULL, *c2 = NULL, *c3 = NULL;
  guint64 a, b, c;

  g_assert_cmpuint (hs_latest_request_get_n_pending (latest), ==, 0);
  a = hs_latest_request_issue (latest, &c1);
  b = hs_latest_request_issue (latest, &c2);
  g_assert_nonnull (c1);
  g_assert_true (c1 == c2);
  g_assert_cmpuint (a, ==, b);
  g_assert_cmpuint (hs_latest_request_get_n_pending (latest), ==, 2);
  first = g_object_ref (c1);

  /* One ends: shown, the other still pending on the same cancellable. */
  g_assert_true (hs_latest_request_finish (latest, a));
  g_assert_cmpuint (hs_latest_request_get_n_pending (latest), ==, 1);
  g_assert_false (g_cancellable_is_cancelled (first));

  /* A new load: the pending one is cancelled and stale. */
  hs_latest_request_cancel (latest);
  g_assert_true (g_cancellable_is_cancelled (first));
  g_assert_cmpuint (hs_latest_request_get_n_pending (latest), ==, 0);
  g_assert_false (hs_latest_request_is_current (latest, b));
  g_assert_false (hs_latest_request_finish (latest, b));
  g_assert_cmpuint (hs_latest_request_get_n_pending (latest), ==, 0);

  /* The next generation gets a fresh cancellable, dropped (not cancelled)
   * with its last request. */
  c = hs_latest_request_issue (latest, &c3);
  g_assert_cmpuint (c, !=, a);
  g_assert_true (c3 != first);
  g_assert_false (g_cancellable_is_cancelled (c3));
  g_object_ref (c3);
  g_assert_true (hs_latest_request_finish (latest, c));
  g_assert_cmpuint (hs_latest_request_get_n_pending (latest), ==, 0);
  g_assert_false (g_cancellable_is_cancelled (c3));
  g_object_unref (c3);
}

/* The window's pattern: every prompt edit cancels and issues; results come
 * back in any order and only the newest is shown, once. */
static void
test_out_of_order (void)
{
  g_autoptr(HsLatestRequest) latest = hs_latest_request_new ();
  guint64 tickets[4];
  guint shown = 0, shown_index = G_MAXUINT;
  const guint order[] = { 3, 0, 2, 1 };

  for (guint i = 0; i < G_N_ELEMENTS (tickets); i++)
    {
      hs_latest_request_cancel (latest);
      tickets[i] = hs_latest_request_issue (latest, NULL);
    }
  for (guint i = 0; i < G_N_ELEMENTS (tickets); i++)
    g_assert_cmpint (hs_latest_request_is_current (latest, tickets[i]), ==, i == 3);
  for (guint k = 0; k < G_N_ELEMENTS (order); k++)
    if (hs_latest_request_finish (latest, tickets[order[k]]))
      {
        shown++;
        shown_index = order[k];
      }
  g_assert_cmpuint (shown, ==, 1);
  g_assert_cmpuint (shown_index, ==, 3);
  g_assert_cmpuint (hs_latest_request_get_n_pending (latest), ==, 0);
}

/* Requests still in flight when the owner goes are cancelled. */
static void
test_dispose_cancels (void)
{
  HsLatestRequest *latest = hs_latest_request_new ();
  GCancellable *cancellable = NULL;

  hs_latest_request_issue (latest, &cancellable);
  g_object_ref (cancellable);
  g_assert_finalize_object (latest);
  g_assert_true (g_cancellable_is_cancelled (cancellable));
  g_object_unref (cancellable);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/latest-request/generation", test_generation);
  g_test_add_func ("/hs/latest-request/out-of-order", test_out_of_order);
  g_test_add_func ("/hs/latest-request/dispose-cancels", test_dispose_cancels);
  return g_test_run ();
}
