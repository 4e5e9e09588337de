/* hs-manifest-private.h — what the manifest reader, schema, stream and
 * writer (hs-manifest-*.c) share */
#pragma once

#include "hs-dataset-private.h"
#include "hs-json-reader-private.h"

G_BEGIN_DECLS

#define HS_MANIFEST_FORMAT_NAME "heatscope-dataset"

/* The schema (hs-manifest-schema.c): one tree node → plain structs. */
void        hs_manifest_read_top        (HsManifestReader *r, HjNode *root);
/* Every top-level member but "instances".  `whole` is FALSE for the members
 * an incremental read finds after "instances" (format and version were
 * required before them). */
void        hs_manifest_read_top_fields (HsManifestReader *r, HjNode *object, gboolean whole);
/* `instance_ids` collects the ids read so far (duplicates are refused). */
HsInstance *hs_manifest_read_instance   (HsManifestReader *r, HjNode *node,
                                         const HsJsonPath *path, GHashTable *instance_ids);

/* The reader (hs-manifest-reader.c). */
guint       hs_manifest_line_of_offset  (const char *data, gsize offset);
/* Splits `path` (folder or manifest file) into the canonical folder and the
 * manifest's absolute path. */
gboolean    hs_manifest_locate          (const char *path, char **root, char **manifest,
                                         GError **error);
HsDataset  *hs_manifest_load_whole      (const char *root, const char *manifest, GError **error);
/* Hands freed parse-tree pages back to the system after a large load. */
void        hs_manifest_trim_after_load (HsDataset *dataset);

G_END_DECLS
