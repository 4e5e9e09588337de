/* hs-dataset-subsets.c — the subsets of McInerney et al. and target extents
 *
 * abnormal  the sentence has a label with context "positive"; a sentence
 *           without labels counts when the instance is abnormal and the
 *           sentence has targets.
 * one_lung  every box of the sentence's targets (a mask counts as its
 *           bounding box) has its x-centre on the same side of the image's
 *           vertical midline, and none crosses the midline by more than 5 %
 *           of the image width: the sentences for which swapping left and
 *           right must move the map.
 * mdrb      "Most Diverse Report BBoxes": the instance has at least two
 *           report sentences with targets, and the mean pairwise IoU of
 *           their target extents (bounding box of all boxes and masks of
 *           the sentence) is at most 0.25; every such sentence is in it.
 *
 * one_lung and mdrb are the chest subsets (of chest radiographs' reports):
 * an instance whose "modality" metadata says magnetic resonance (the MRI
 * lesion demo's, an MR import's) is in neither, however its boxes lie — a
 * lesion on one side of a brain is no one-lung finding.  An instance without
 * a modality (a PNG or JPEG chest import without --modality; a DICOM import
 * records the file's own, e.g. CR or DX) has them by the rules above.
 *
 * A mask's bounding box comes from the region's "extent" when the manifest
 * has one; only otherwise is the mask decoded (once, cached). */
#include "hs-dataset-private.h"
#include "hs-image.h"
#include "hs-i18n-private.h"

#include <string.h>

#define ONE_LUNG_MIDLINE_SLACK 0.05
#define MDRB_MAX_MEAN_IOU      0.25

typedef struct {
  guint    mask_width;
  guint    mask_height;
  gboolean empty;
  HsBox    box;          /* in mask pixels, half-open */
} MaskExtent;

const char *
hs_subset_to_string (HsSubset subset)
{
  switch (subset)
    {
    case HS_SUBSET_ABNORMAL: return "abnormal";
    case HS_SUBSET_ONE_LUNG: return "one_lung";
    case HS_SUBSET_MDRB:     return "mdrb";
    default:                 return NULL;
    }
}

HsSubset
hs_subset_from_string (const char *name)
{
  if (g_strcmp0 (name, "abnormal") == 0)
    return HS_SUBSET_ABNORMAL;
  if (g_strcmp0 (name, "one_lung") == 0)
    return HS_SUBSET_ONE_LUNG;
  if (g_strcmp0 (name, "mdrb") == 0)
    return HS_SUBSET_MDRB;
  return 0;
}

void
hs_dataset_scan_mask_extent (const HsImage *mask, HsBox *extent)
{
  hs_dataset_mask_extent ((const guint8 *) hs_image_peek_data (mask), sizeof (guint16), hs_image_get_width (mask),
                          hs_image_get_height (mask), extent);
}

void
hs_dataset_scale_mask_box (HsBox *box, guint mask_width, guint mask_height,
                           guint image_width, guint image_height)
{
  double sx, sy;

  if (mask_width == 0 || mask_height == 0 ||
      (image_width == mask_width && image_height == mask_height))
    return;
  sx = (double) image_width / mask_width;
  sy = (double) image_height / mask_height;
  box->x1 *= sx;
  box->x2 *= sx;
  box->y1 *= sy;
  box->y2 *= sy;
}

static gboolean
get_mask_extent (HsDataset *dataset, const HsRegion *region, MaskExtent *out, GError **error)
{
  g_autoptr(HsImage) mask = NULL;
  MaskExtent *cached;
  MaskExtent extent = { 0 };

  g_mutex_lock (&dataset->cache_lock);
  cached = g_hash_table_lookup (dataset->mask_extents, region);
  if (cached != NULL)
    *out = *cached;
  g_mutex_unlock (&dataset->cache_lock);
  if (cached != NULL)
    return TRUE;

  mask = hs_dataset_load_mask (dataset, region, error);
  if (mask == NULL)
    return FALSE;
  extent.mask_width = hs_image_get_width (mask);
  extent.mask_height = hs_image_get_height (mask);
  hs_dataset_scan_mask_extent (mask, &extent.box);
  extent.empty = extent.box.x2 <= extent.box.x1;

  g_mutex_lock (&dataset->cache_lock);
  if (!g_hash_table_contains (dataset->mask_extents, region))
    g_hash_table_insert (dataset->mask_extents, (gpointer) region, g_memdup2 (&extent, sizeof extent));
  g_mutex_unlock (&dataset->cache_lock);
  *out = extent;
  return TRUE;
}

/* Every box of the named targets in image pixels, a mask as its bounding
 * box (a mask of another size is scaled to the image, as the nearest rule
 * of metrics.md maps it). */
static gboolean
collect_target_boxes (HsDataset *dataset, const HsInstance *instance,
                      const char * const *targets, GArray *boxes, GError **error)
{
  for (guint i = 0; targets != NULL && targets[i] != NULL; i++)
    {
      const HsRegion *region = hs_instance_get_target_region (dataset, instance, targets[i], error);

      if (region == NULL)
        return FALSE;
      for (guint j = 0; j < region->boxes->len; j++)
        {
          const HsBox *box = &g_array_index (region->boxes, HsBox, j);

          if (box->x2 > box->x1 && box->y2 > box->y1)
            g_array_append_val (boxes, *box);
        }
      if (region->mask != NULL && region->has_extent)
        {
          /* The manifest's extent spares decoding the mask. */
          if (region->extent.x2 > region->extent.x1 && region->extent.y2 > region->extent.y1)
            g_array_append_val (boxes, region->extent);
        }
      else if (region->mask != NULL)
        {
          MaskExtent extent;
          HsBox box;
          guint width = 0, height = 0;

          if (!get_mask_extent (dataset, region, &extent, error))
            return FALSE;
          if (extent.empty)
            continue;
          box = extent.box;
          if (!hs_dataset_get_image_size (dataset, instance, &width, &height, error))
            return FALSE;
          hs_dataset_scale_mask_box (&box, extent.mask_width, extent.mask_height, width, height);
          g_array_append_val (boxes, box);
        }
    }
  return TRUE;
}

gboolean
hs_dataset_get_target_extent (HsDataset *dataset, const HsInstance *instance,
                              const char * const *targets, HsBox *extent, GError **error)
{
  g_autoptr(GArray) boxes = g_array_new (FALSE, FALSE, sizeof (HsBox));
  HsBox result;

  g_return_val_if_fail (dataset != NULL, FALSE);
  g_return_val_if_fail (instance != NULL, FALSE);
  g_return_val_if_fail (extent != NULL, FALSE);

  if (!collect_target_boxes (dataset, instance, targets, boxes, error))
    return FALSE;
  if (boxes->len == 0)
    return FALSE;
  result = g_array_index (boxes, HsBox, 0);
  for (guint i = 1; i < boxes->len; i++)
    {
      const HsBox *box = &g_array_index (boxes, HsBox, i);

      result.x1 = MIN (result.x1, box->x1);
      result.y1 = MIN (result.y1, box->y1);
      result.x2 = MAX (result.x2, box->x2);
      result.y2 = MAX (result.y2, box->y2);
    }
  *extent = result;
  return TRUE;
}

static gboolean
sentence_has_targets (const HsSentence *sentence)
{
  return sentence->targets != NULL && sentence->targets[0] != NULL;
}

static gboolean
is_abnormal (const HsInstance *instance, const HsSentence *sentence)
{
  if (sentence->labels != NULL && sentence->labels->len > 0)
    {
      for (guint i = 0; i < sentence->labels->len; i++)
        {
          const HsLabel *label = g_ptr_array_index (sentence->labels, i);
          if (g_strcmp0 (label->context, "positive") == 0)
            return TRUE;
        }
      return FALSE;
    }
  return instance->abnormal && sentence_has_targets (sentence);
}

static gboolean
is_one_lung (HsDataset *dataset, const HsInstance *instance, const HsSentence *sentence)
{
  g_autoptr(GArray) boxes = g_array_new (FALSE, FALSE, sizeof (HsBox));
  guint width = 0, height = 0;
  double mid, slack;
  int side = 0;

  if (!sentence_has_targets (sentence))
    return FALSE;
  if (!collect_target_boxes (dataset, instance, (const char * const *) sentence->targets, boxes, NULL) ||
      boxes->len == 0)
    return FALSE;
  if (!hs_dataset_get_image_size (dataset, instance, &width, &height, NULL) || width == 0)
    return FALSE;

  mid = width / 2.0;
  slack = ONE_LUNG_MIDLINE_SLACK * width;
  for (guint i = 0; i < boxes->len; i++)
    {
      const HsBox *box = &g_array_index (boxes, HsBox, i);
      double centre = (box->x1 + box->x2) / 2.0;
      int box_side = centre < mid ? -1 : centre > mid ? 1 : 0;

      if (box_side == 0 || (side != 0 && box_side != side))
        return FALSE;
      side = box_side;
      if (side < 0 && box->x2 - mid > slack)
        return FALSE;
      if (side > 0 && mid - box->x1 > slack)
        return FALSE;
    }
  return TRUE;
}

static double
box_iou (const HsBox *a, const HsBox *b)
{
  double iw = MIN (a->x2, b->x2) - MAX (a->x1, b->x1);
  double ih = MIN (a->y2, b->y2) - MAX (a->y1, b->y1);
  double inter, uni;

  if (iw <= 0 || ih <= 0)
    return 0.0;
  inter = iw * ih;
  uni = (a->x2 - a->x1) * (a->y2 - a->y1) + (b->x2 - b->x1) * (b->y2 - b->y1) - inter;
  return uni > 0 ? inter / uni : 0.0;
}

static gboolean
is_mdrb_sentence (const HsSentence *sentence)
{
  return g_strcmp0 (sentence->kind, "report") == 0 && sentence_has_targets (sentence);
}

static gboolean
instance_is_mdrb (HsDataset *dataset, const HsInstance *instance)
{
  g_autoptr(GArray) extents = g_array_new (FALSE, FALSE, sizeof (HsBox));
  gpointer cached;
  gboolean result = FALSE;

  g_mutex_lock (&dataset->cache_lock);
  cached = g_hash_table_lookup (dataset->mdrb, instance);
  g_mutex_unlock (&dataset->cache_lock);
  if (cached != NULL)
    return GPOINTER_TO_INT (cached) == 2;

  for (guint i = 0; i < instance->sentences->len; i++)
    {
      const HsSentence *sentence = g_ptr_array_index (instance->sentences, i);
      HsBox extent;

      if (is_mdrb_sentence (sentence) &&
          hs_dataset_get_target_extent (dataset, instance, (const char * const *) sentence->targets,
                                        &extent, NULL))
        g_array_append_val (extents, extent);
    }
  if (extents->len >= 2)
    {
      double sum = 0.0;
      guint pairs = 0;

      for (guint i = 0; i < extents->len; i++)
        for (guint j = i + 1; j < extents->len; j++)
          {
            sum += box_iou (&g_array_index (extents, HsBox, i), &g_array_index (extents, HsBox, j));
            pairs++;
          }
      result = sum / pairs <= MDRB_MAX_MEAN_IOU;
    }

  g_mutex_lock (&dataset->cache_lock);
  g_hash_table_insert (dataset->mdrb, (gpointer) instance, GINT_TO_POINTER (result ? 2 : 1));
  g_mutex_unlock (&dataset->cache_lock);
  return result;
}

/* Whether `text` starts with the word `word`, ignoring case. */
static gboolean
starts_with_word (const char *text, const char *word)
{
  gsize n = strlen (word);

  return g_ascii_strncasecmp (text, word, n) == 0 && !g_ascii_isalnum (text[n]);
}

/* The chest subsets apply to the instance's modality (see the top). */
static gboolean
chest_subsets_apply (const HsInstance *instance)
{
  const char *modality = hs_instance_get_metadata (instance, "modality");

  if (modality == NULL)
    return TRUE;
  while (g_ascii_isspace (*modality))
    modality++;
  if (starts_with_word (modality, "mr") || starts_with_word (modality, "mri"))
    return FALSE;
  for (const char *p = modality; *p != '\0'; p++)
    if (g_ascii_strncasecmp (p, "magnetic resonance", strlen ("magnetic resonance")) == 0)
      return FALSE;
  return TRUE;
}

guint
hs_dataset_get_subsets (HsDataset *dataset, const HsInstance *instance, const HsSentence *sentence)
{
  guint subsets = 0;

  g_return_val_if_fail (dataset != NULL, 0);
  g_return_val_if_fail (instance != NULL, 0);
  g_return_val_if_fail (sentence != NULL, 0);

  if (is_abnormal (instance, sentence))
    subsets |= HS_SUBSET_ABNORMAL;
  if (!chest_subsets_apply (instance))
    return subsets;
  if (is_one_lung (dataset, instance, sentence))
    subsets |= HS_SUBSET_ONE_LUNG;
  if (is_mdrb_sentence (sentence) && instance_is_mdrb (dataset, instance))
    subsets |= HS_SUBSET_MDRB;
  return subsets;
}
