/* hs-rle.h — COCO run-length encoded masks */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HS_RLE_ERROR (hs_rle_error_quark ())
GQuark hs_rle_error_quark (void);

typedef enum {
  HS_RLE_ERROR_INVALID,   /* bad characters, negative or overflowing counts  */
  HS_RLE_ERROR_SIZE,      /* counts do not add up to height × width          */
} HsRleError;

/* COCO's RLE: run lengths of alternating 0s and 1s (starting with 0s) over
 * the mask in COLUMN-major order (down the first column, then the next).
 * The compressed string form is pycocotools' (maskApi.c rleToString):
 * 5 bits per character, offset 48, counts after the second stored as
 * differences from the count two places before. */
GArray  *hs_rle_counts_from_string (const char *text, GError **error);   /* of guint32 */
char    *hs_rle_counts_to_string   (const guint32 *counts, gsize n_counts);
/* Row-major mask of height × width bytes (1 inside, 0 outside). */
guint8  *hs_rle_decode             (const guint32 *counts, gsize n_counts, guint height,
                                    guint width, GError **error);
GArray  *hs_rle_encode             (const guint8 *mask, guint height, guint width);  /* of guint32 */

G_END_DECLS
