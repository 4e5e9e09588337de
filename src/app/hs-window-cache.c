/* hs-window-cache.c — revisiting is instant: the window's decoded images,
 * attention maps and region masks (each with its traced outline, an
 * HsMaskLayer) stay in three byte-bounded LRU caches (hs-lru-cache; sizes
 * from the GSettings keys image-cache-mb, map-cache-mb and mask-cache-mb),
 * and the neighbours of the instance on screen (what Alt+Down/Up opens
 * next) are decoded ahead by a worker thread once its frame is painted
 * (when the heap is trimmed too: hs_application_trim_memory).  An
 * instance's masks are decoded and traced on the worker that decodes its
 * image, so the main thread neither decodes nor traces them when it shows
 * the instance.
 *
 * The caches belong to the main thread: workers hand what they decoded back
 * to it (a worker never outlives the window's caches that way), and entries
 * are keyed by the dataset's relative paths, so a new or reloaded dataset
 * clears them.
 *
 * A cached value is only valid for the file it was decoded from: each is
 * kept with its file's stamp (hs-file-stamp.h: device, inode, size, mtime),
 * taken before the decode starts — by the worker that decodes it — and
 * every lookup here compares it with the file's stamp now
 * (hs_lru_cache_lookup_stamped); a file replaced on disk (a re-run of
 * `attend --force`, an `import npy-folder`, a mask exported again) or gone
 * is a miss and is decoded again, never shown as it was.  The cost is one
 * realpath and one stat per lookup, microseconds (3.6–4.1 µs for a
 * covid-seg image's path, a bare stat 0.7–1.3 µs in the same run; a step
 * on covid-seg makes about 20 lookups); no polling, no file monitors.
 */
#include <heatscope/hs-lru-cache.h>

#include "hs-application.h"
#include "hs-mask-layer.h"
#include "hs-utils-private.h"
#include "hs-window-private.h"

#define MB (1024 * 1024)
#define MAP_CACHE_MAX_ITEMS 256

static gsize
image_bytes (HsImage *image)
{
  return (gsize) hs_image_get_width (image) * hs_image_get_height (image) *
         hs_image_get_channels (image) * sizeof (guint16);
}

static gsize
map_bytes (HsAttentionMap *map)
{
  return (gsize) hs_attention_map_get_width (map) * hs_attention_map_get_height (map) *
         (1 + hs_attention_map_get_n_tokens (map)) * sizeof (double);
}

static void
read_sizes (HsWindow *self)
{
  if (self->settings == NULL)
    return;
  hs_lru_cache_set_capacity (self->image_cache,
                             (gsize) g_settings_get_int (self->settings, "image-cache-mb") * MB);
  hs_lru_cache_set_capacity (self->map_cache,
                             (gsize) g_settings_get_int (self->settings, "map-cache-mb") * MB);
  hs_lru_cache_set_capacity (self->mask_cache,
                             (gsize) g_settings_get_int (self->settings, "mask-cache-mb") * MB);
}

static void
on_size_changed (GSettings  *settings,
                 const char *key,
                 HsWindow   *self)
{
  read_sizes (self);
}

void
_hs_window_cache_init (HsWindow *self)
{
  /* The schema's defaults, also without settings (tests, no schema). */
  self->image_cache = hs_lru_cache_new (64 * MB, (HsLruRefFunc) hs_image_ref,
                                        (GDestroyNotify) hs_image_unref);
  self->map_cache = hs_lru_cache_new (16 * MB, (HsLruRefFunc) hs_attention_map_ref,
                                      (GDestroyNotify) hs_attention_map_unref);
  self->mask_cache = hs_lru_cache_new (32 * MB, (HsLruRefFunc) hs_mask_layer_ref,
                                       (GDestroyNotify) hs_mask_layer_unref);
  /* for tests: its size, items and evictions */
  g_object_set_data (G_OBJECT (self), "hs-mask-cache", self->mask_cache);
  if (self->settings != NULL)
    {
      read_sizes (self);
      g_signal_connect_object (self->settings, "changed::image-cache-mb", G_CALLBACK (on_size_changed), self, 0);
      g_signal_connect_object (self->settings, "changed::map-cache-mb", G_CALLBACK (on_size_changed), self, 0);
      g_signal_connect_object (self->settings, "changed::mask-cache-mb", G_CALLBACK (on_size_changed), self, 0);
    }
  /* Maps are small (a demo map is 16 KB: 16 MB held ~1100 of them, so the
   * map cache was still filling after 1000 instances, +15 MB of heap per
   * 1000 in the soak).  A revisit is instant only with the image cached
   * too, and the image cache holds ~30 radiographs at its default size;
   * 256 maps cover those instances' sentences and models several times
   * over.  Large maps are still bounded by map-cache-mb first. */
  hs_lru_cache_set_max_items (self->map_cache, MAP_CACHE_MAX_ITEMS);
}

static void
stop_waiting_for_paint (HsWindow *self)
{
  /* (GDK drops the clock's handlers when its surface goes) */
  if (self->prefetch_clock != NULL && self->prefetch_paint_id != 0 &&
      g_signal_handler_is_connected (self->prefetch_clock, self->prefetch_paint_id))
    g_signal_handler_disconnect (self->prefetch_clock, self->prefetch_paint_id);
  self->prefetch_paint_id = 0;
  g_clear_object (&self->prefetch_clock);
}

void
_hs_window_cache_clear (HsWindow *self)
{
  g_cancellable_cancel (self->prefetch_cancellable);
  g_clear_object (&self->prefetch_cancellable);
  g_clear_handle_id (&self->prefetch_idle, g_source_remove);
  stop_waiting_for_paint (self);
  if (self->image_cache != NULL)
    hs_lru_cache_clear (self->image_cache);
  if (self->map_cache != NULL)
    hs_lru_cache_clear (self->map_cache);
  if (self->mask_cache != NULL)
    hs_lru_cache_clear (self->mask_cache);
}

void
_hs_window_cache_dispose (HsWindow *self)
{
  _hs_window_cache_clear (self);
  g_clear_pointer (&self->image_cache, hs_lru_cache_free);
  g_clear_pointer (&self->map_cache, hs_lru_cache_free);
  g_clear_pointer (&self->mask_cache, hs_lru_cache_free);
}

/* `relative`'s value in `cache` when its file is still the one it was
 * decoded from (else dropped: NULL); *stamp is the file's stamp now, for
 * the insert after a decode (*fresh: NULL when the file is gone). */
static gpointer
lookup_fresh (HsWindow *self, HsLruCache *cache, const char *relative,
              HsFileStamp *stamp, const HsFileStamp **fresh)
{
  *fresh = hs_dataset_stamp_file (self->dataset, relative, stamp);
  return hs_lru_cache_lookup_stamped (cache, relative, *fresh);
}

static gboolean
contains_fresh (HsWindow *self, HsLruCache *cache, const char *relative)
{
  HsFileStamp stamp;

  return hs_lru_cache_contains_stamped (cache, relative,
                                        hs_dataset_stamp_file (self->dataset, relative, &stamp));
}

/* A value decoded from the file whose stamp before the decode was `stamp`;
 * without one (the file was not there) nothing is kept: no value enters a
 * cache unstamped. */
static void
put_stamped (HsLruCache *cache, const char *relative, gpointer value, gsize bytes,
             const HsFileStamp *stamp)
{
  if (stamp != NULL && value != NULL)
    hs_lru_cache_insert_stamped (cache, relative, value, bytes, stamp);
}

/* The instance's cached image, or NULL; *stamp is its file's stamp (on a
 * hit the one it was decoded under). */
HsImage *
_hs_window_cache_get_image (HsWindow *self, const HsInstance *instance, HsFileStamp *stamp)
{
  const HsFileStamp *fresh;

  return instance->image != NULL ? lookup_fresh (self, self->image_cache, instance->image, stamp, &fresh)
                                 : NULL;
}

/* `image` decoded from instance's file, whose stamp before the decode was
 * `stamp` (NULL: nothing kept). */
void
_hs_window_cache_put_image (HsWindow *self, const HsInstance *instance, HsImage *image,
                            const HsFileStamp *stamp)
{
  if (instance->image != NULL && image != NULL)
    put_stamped (self->image_cache, instance->image, image, image_bytes (image), stamp);
}

/* hs_dataset_load_map through the cache (the stamp taken before the decode). */
HsAttentionMap *
_hs_window_load_map (HsWindow *self, const HsMapRef *ref, GError **error)
{
  HsFileStamp stamp;
  const HsFileStamp *fresh;
  HsAttentionMap *map = lookup_fresh (self, self->map_cache, ref->file, &stamp, &fresh);

  if (map != NULL)
    return map;
  map = hs_dataset_load_map (self->dataset, ref, error);
  if (map != NULL)
    put_stamped (self->map_cache, ref->file, map, map_bytes (map), fresh);
  return map;
}

/* Adds n to the window's counter `key` (object data; read by tests). */
void
_hs_window_count (HsWindow *self, const char *key, guint n)
{
  guint count = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (self), key));

  g_object_set_data (G_OBJECT (self), key, GUINT_TO_POINTER (count + n));
}

/* ---- region masks ---------------------------------------------------------- */

/* The mask layer of `region` (a new reference) through the cache: decoded
 * and traced here, on the main thread, only when no worker did it first
 * (the cache off or too small, an edit).  Counted in "hs-mask-decodes". */
HsMaskLayer *
_hs_window_mask_layer (HsWindow *self, const HsRegion *region, GError **error)
{
  HsFileStamp stamp;
  const HsFileStamp *fresh;
  HsMaskLayer *layer = lookup_fresh (self, self->mask_cache, region->mask, &stamp, &fresh);

  if (layer != NULL)
    return layer;
  _hs_window_count (self, "hs-mask-decodes", 1);
  layer = hs_mask_layer_load (self->dataset, region, error);
  if (layer != NULL)
    put_stamped (self->mask_cache, region->mask, layer, hs_mask_layer_get_bytes (layer), fresh);
  return layer;
}

static HsImage *
load_cached_mask (const HsRegion *region, gpointer self, GError **error)
{
  g_autoptr(HsMaskLayer) layer = _hs_window_mask_layer (self, region, error);

  return layer != NULL ? hs_image_ref (hs_mask_layer_get_mask (layer)) : NULL;
}

/* hs_dataset_collect_targets through the mask cache: the sentence's target
 * regions (borrowed) and their masks (HsImage* or NULL for boxes); FALSE
 * with `error` on the first mask that cannot be read. */
gboolean
_hs_window_collect_targets (HsWindow *self, const HsSentence *sentence,
                            GPtrArray **regions, GPtrArray **masks, GError **error)
{
  return hs_dataset_collect_targets_with (self->instance, sentence, load_cached_mask, self,
                                          regions, masks, error);
}

/* One mask for a worker: the region (a copy) and what the worker made of
 * it (NULL: failed, retried and reported when shown), with the stamp of
 * its file that the worker took before decoding it. */
typedef struct {
  HsRegion          *region;
  HsMaskLayer       *layer;
  HsFileStamp        stamp_buf;
  const HsFileStamp *stamp;   /* &stamp_buf, or NULL: the file was not there */
} MaskSlot;

static void
mask_slot_free (MaskSlot *slot)
{
  hs_region_free (slot->region);
  g_clear_pointer (&slot->layer, hs_mask_layer_unref);
  g_free (slot);
}

/* The masks of `instance` a worker should decode and trace (a GPtrArray
 * of MaskSlot), or NULL (none missing, or the mask cache off: nothing
 * would keep them).  Main thread. */
HsMaskJob *
_hs_window_mask_job_new (HsWindow *self, const HsInstance *instance)
{
  GPtrArray *job = NULL;

  if (hs_lru_cache_get_capacity (self->mask_cache) == 0)
    return NULL;
  for (guint i = 0; instance->regions != NULL && i < instance->regions->len; i++)
    {
      const HsRegion *region = g_ptr_array_index (instance->regions, i);
      MaskSlot *slot;

      if (region->mask == NULL || contains_fresh (self, self->mask_cache, region->mask))
        continue;
      if (job == NULL)
        job = g_ptr_array_new_with_free_func ((GDestroyNotify) mask_slot_free);
      slot = g_new0 (MaskSlot, 1);
      slot->region = hs_region_copy (region);
      g_ptr_array_add (job, slot);
    }
  return (HsMaskJob *) job;
}

/* Worker thread. */
void
_hs_window_mask_job_run (HsMaskJob *job, HsDataset *dataset, GCancellable *cancellable)
{
  GPtrArray *slots = (GPtrArray *) job;

  for (guint i = 0; slots != NULL && i < slots->len && !g_cancellable_is_cancelled (cancellable); i++)
    {
      MaskSlot *slot = g_ptr_array_index (slots, i);

      slot->stamp = hs_dataset_stamp_file (dataset, slot->region->mask, &slot->stamp_buf);
      slot->layer = hs_mask_layer_load (dataset, slot->region, NULL);
    }
}

/* Main thread: what the worker made goes into the cache (when still for
 * the window's dataset); counted in "hs-mask-decodes". */
void
_hs_window_mask_job_finish (HsWindow *self, HsMaskJob *job, HsDataset *dataset)
{
  GPtrArray *slots = (GPtrArray *) job;

  for (guint i = 0; slots != NULL && dataset == self->dataset && i < slots->len; i++)
    {
      MaskSlot *slot = g_ptr_array_index (slots, i);

      if (slot->layer != NULL)
        {
          put_stamped (self->mask_cache, slot->region->mask, slot->layer,
                       hs_mask_layer_get_bytes (slot->layer), slot->stamp);
          _hs_window_count (self, "hs-mask-decodes", 1);
        }
    }
}

void
_hs_window_mask_job_free (HsMaskJob *job)
{
  if (job != NULL)
    g_ptr_array_unref ((GPtrArray *) job);
}

/* ---- neighbours decoded ahead ------------------------------------------- */

typedef struct {
  HsDataset  *dataset;
  HsInstance *instances[2];   /* borrowed from dataset; NULL: none */
  gboolean    decode[2];      /* the image is not cached */
  HsImage    *images[2];      /* decoded (or NULL: failed, reported when opened) */
  HsFileStamp stamp_bufs[2];
  const HsFileStamp *stamps[2];  /* of the image file before its decode (NULL: not there) */
  HsMaskJob  *masks[2];       /* its masks not cached, or NULL */
} Prefetch;

static void
prefetch_free (Prefetch *job)
{
  for (guint i = 0; i < G_N_ELEMENTS (job->images); i++)
    {
      g_clear_pointer (&job->images[i], hs_image_unref);
      g_clear_pointer (&job->masks[i], _hs_window_mask_job_free);
    }
  hs_dataset_unref (job->dataset);
  g_free (job);
}

static void
prefetch_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Prefetch *job = data;

  for (guint i = 0; i < G_N_ELEMENTS (job->instances); i++)
    if (job->instances[i] != NULL && !g_cancellable_is_cancelled (cancellable))
      {
        if (job->decode[i])
          {
            job->stamps[i] = hs_dataset_stamp_file (job->dataset, job->instances[i]->image, &job->stamp_bufs[i]);
            job->images[i] = hs_dataset_load_image (job->dataset, job->instances[i], NULL);
          }
        _hs_window_mask_job_run (job->masks[i], job->dataset, cancellable);
      }
  g_task_return_boolean (task, TRUE);
}

static void
prefetch_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  HsWindow *self = HS_WINDOW (object);
  GTask *task = G_TASK (result);
  Prefetch *job = g_task_get_task_data (task);

  if (g_task_get_cancellable (task) != self->prefetch_cancellable)
    return;   /* another dataset, or the window is going */
  g_clear_object (&self->prefetch_cancellable);
  for (guint i = 0; i < G_N_ELEMENTS (job->instances); i++)
    {
      _hs_window_mask_job_finish (self, job->masks[i], job->dataset);
      if (job->images[i] != NULL && job->dataset == self->dataset)
        {
          _hs_window_cache_put_image (self, job->instances[i], job->images[i], job->stamps[i]);
          _hs_window_count (self, "hs-prefetched", 1);   /* for tests */
        }
    }
}

static gboolean
prefetch_start (gpointer data)
{
  HsWindow *self = data;
  Prefetch *job;
  g_autoptr(GTask) task = NULL;
  guint n = 0;
  const int deltas[] = { 1, -1 };   /* the way a held Alt+Down goes first */

  self->prefetch_idle = 0;
  stop_waiting_for_paint (self);
  /* The previous instance's buffers are freed by now. */
  hs_application_trim_memory ();
  if (self->dataset == NULL || self->prefetch_cancellable != NULL ||
      hs_lru_cache_get_capacity (self->image_cache) == 0)
    return G_SOURCE_REMOVE;
  job = g_new0 (Prefetch, 1);
  for (guint i = 0; i < G_N_ELEMENTS (deltas); i++)
    {
      guint index = hs_instance_browser_get_neighbour (self->browser, deltas[i]);
      HsInstance *instance = index != G_MAXUINT ? hs_dataset_get_instance (self->dataset, index) : NULL;

      if (instance == NULL || instance->image == NULL)
        continue;
      job->decode[n] = !contains_fresh (self, self->image_cache, instance->image);
      job->masks[n] = _hs_window_mask_job_new (self, instance);
      if (job->decode[n] || job->masks[n] != NULL)
        job->instances[n++] = instance;
    }
  job->dataset = hs_dataset_ref (self->dataset);
  if (n == 0)
    {
      prefetch_free (job);
      return G_SOURCE_REMOVE;
    }
  self->prefetch_cancellable = g_cancellable_new ();
  task = g_task_new (self, self->prefetch_cancellable, prefetch_done, NULL);
  g_task_set_source_tag (task, prefetch_start);
  g_task_set_task_data (task, job, (GDestroyNotify) prefetch_free);
  g_task_run_in_thread (task, prefetch_thread);
  return G_SOURCE_REMOVE;
}

static void
on_after_paint (GdkFrameClock *clock, HsWindow *self)
{
  prefetch_start (self);
}

/* After the frame that shows the new instance: the neighbours not cached
 * yet, and the heap trimmed.  Started from that frame's after-paint, not
 * from an idle: stepping back to back (a held Alt+Down, a loaded machine)
 * keeps the main loop busy with frames and step work, and an idle at low
 * priority then never ran — in the soak neither the prefetch nor the trim
 * ran once in 24 steps, and the heap kept 40–60 MB of freed memory.  An
 * unmapped window paints nothing: an idle then.  One job at a time; a step
 * while it runs lets it finish, its images are cached all the same. */
void
_hs_window_prefetch_neighbours (HsWindow *self)
{
  GdkFrameClock *clock = gtk_widget_get_mapped (GTK_WIDGET (self)) ? gtk_widget_get_frame_clock (GTK_WIDGET (self))
                                                                   : NULL;

  /* a wait on a clock the window no longer paints with is over */
  if (self->prefetch_paint_id != 0 &&
      (self->prefetch_clock != clock || !g_signal_handler_is_connected (self->prefetch_clock, self->prefetch_paint_id)))
    stop_waiting_for_paint (self);
  if (self->prefetch_idle != 0 || self->prefetch_paint_id != 0)
    return;
  if (clock != NULL)
    {
      self->prefetch_clock = g_object_ref (clock);   /* (outlives an unrealize meanwhile) */
      self->prefetch_paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), self);
    }
  else
    self->prefetch_idle = g_idle_add_full (G_PRIORITY_LOW, prefetch_start, self, NULL);
}
