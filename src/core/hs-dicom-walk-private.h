/* hs-dicom-walk-private.h — the structural check GDCM's input passes first */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Sequences nested deeper than this are refused (real files nest a few levels). */
#define HS_DICOM_MAX_DEPTH 16

/* Walks the element headers of the DICOM bytes data[0..len) — the file meta
 * group, then every element of the data set, sequences and items included —
 * in the transfer syntax GDCM will read, checking tag order, value
 * representations and every declared length against the bytes that remain.
 * file_len is the whole file's size: when len < file_len the bytes are a
 * prefix; an element the prefix cuts ends the walk, and *complete (may be
 * NULL) is set to the length of the prefix's whole top-level elements (GDCM
 * is given those only; 0 when a prefix cannot be judged, as a deflated data
 * set).  Otherwise *complete = len.  Returns FALSE with a one-line problem
 * (without the file name) in *problem. */
gboolean hs_dicom_walk (const guint8 *data, gsize len, gsize file_len, gsize *complete,
                        char **problem);

/* hs_dicom_walk with the problem as an HsImage error naming the file
 * (HS_IMAGE_ERROR_CORRUPT). */
gboolean hs_dicom_walk_check (const guint8 *data, gsize len, gsize file_len, const char *name,
                              gsize *complete, GError **error);

G_END_DECLS
