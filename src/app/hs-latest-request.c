/* hs-latest-request.c — "the newest request wins" for asynchronous work */
#include "hs-latest-request.h"

struct _HsLatestRequest
{
  GObject       parent_instance;

  guint64       generation;
  GCancellable *cancellable;   /* the current generation's, while requests are pending */
  guint         n_pending;
};

G_DEFINE_FINAL_TYPE (HsLatestRequest, hs_latest_request, G_TYPE_OBJECT)

static void
hs_latest_request_dispose (GObject *object)
{
  hs_latest_request_cancel (HS_LATEST_REQUEST (object));
  G_OBJECT_CLASS (hs_latest_request_parent_class)->dispose (object);
}

static void
hs_latest_request_class_init (HsLatestRequestClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = hs_latest_request_dispose;
}

static void
hs_latest_request_init (HsLatestRequest *self)
{
}

HsLatestRequest *
hs_latest_request_new (void)
{
  return g_object_new (HS_TYPE_LATEST_REQUEST, NULL);
}

void
hs_latest_request_cancel (HsLatestRequest *self)
{
  g_return_if_fail (HS_IS_LATEST_REQUEST (self));

  self->generation++;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->n_pending = 0;
}

guint64
hs_latest_request_issue (HsLatestRequest *self,
                         GCancellable   **cancellable)
{
  g_return_val_if_fail (HS_IS_LATEST_REQUEST (self), 0);

  if (self->cancellable == NULL)
    self->cancellable = g_cancellable_new ();
  self->n_pending++;
  if (cancellable != NULL)
    *cancellable = self->cancellable;
  return self->generation;
}

gboolean
hs_latest_request_is_current (HsLatestRequest *self,
                              guint64          ticket)
{
  g_return_val_if_fail (HS_IS_LATEST_REQUEST (self), FALSE);
  return ticket == self->generation;
}

gboolean
hs_latest_request_finish (HsLatestRequest *self,
                          guint64          ticket)
{
  g_return_val_if_fail (HS_IS_LATEST_REQUEST (self), FALSE);

  if (ticket != self->generation)
    return FALSE;
  if (self->n_pending > 0 && --self->n_pending == 0)
    g_clear_object (&self->cancellable);
  return TRUE;
}

guint
hs_latest_request_get_n_pending (HsLatestRequest *self)
{
  g_return_val_if_fail (HS_IS_LATEST_REQUEST (self), 0);
  return self->n_pending;
}
