/* hs-scale-inputs.h — inputs that grow along one axis, for the test and the
 * benchmark of issue 14's "linear in input size" (test-input-scaling.c,
 * bench-input-scaling.c).  Each writer puts one input of `n` units into
 * `dir` and returns what the reader takes (a manifest, or the importer's
 * source); the axes are the ones a duplicate check walks: metadata keys,
 * regions and sentences of one instance, instances of a manifest, boxes of
 * one image in each importer. */
#pragma once

#include <heatscope/heatscope.h>

#include <glib/gstdio.h>

typedef enum {
  HS_SCALE_MANIFEST_METADATA,   /* one instance, n metadata keys */
  HS_SCALE_MANIFEST_REGIONS,    /* one instance, n regions, n sentences targeting them, n maps */
  HS_SCALE_MANIFEST_INSTANCES,  /* n instances of one region, sentence and map */
  HS_SCALE_MANIFEST_TARGETS,    /* one instance, n regions and one sentence targeting all */
  HS_SCALE_IMPORT_NIH,          /* one image, n boxes of n findings (nih-bbox CSV) */
  HS_SCALE_IMPORT_COCO,         /* one image, n boxes of n categories */
  HS_SCALE_IMPORT_YOLO,         /* one image, n boxes of n classes */
  HS_SCALE_N_SHAPES
} HsScaleShape;

static const char * const hs_scale_shape_names[HS_SCALE_N_SHAPES] = {
  "manifest: metadata keys per instance",
  "manifest: regions per instance",
  "manifest: instances",
  "manifest: targets per sentence",
  "import nih-bbox: boxes per image",
  "import coco: boxes per image",
  "import yolo: boxes per image",
};

/* The importer's format name, or NULL for a manifest shape. */
static inline const char *
hs_scale_import_format (HsScaleShape shape)
{
  switch (shape)
    {
    case HS_SCALE_IMPORT_NIH:  return "nih-bbox";
    case HS_SCALE_IMPORT_COCO: return "coco";
    case HS_SCALE_IMPORT_YOLO: return "yolo";
    default:                   return NULL;
    }
}

static inline void
hs_scale_put (const char *dir, const char *name, const char *text, gssize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  if (!g_file_set_contents (path, text, len, &error))
    g_error ("%s: %s", path, error->message);
}

static inline void
hs_scale_put_png (const char *dir, const char *name, guint size)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(HsImage) image = hs_image_new (size, size, 1, 8, &error);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  if (image == NULL || !hs_image_save_png (image, path, &error))
    g_error ("%s: %s", path, error->message);
}

static inline void
hs_scale_manifest_head (GString *text)
{
  g_string_append (text, "{\"format\": \"heatscope-dataset\", \"version\": 1, \"instances\": [\n");
}

/* Writes the input; returns the path the reader or importer takes. */
static inline char *
hs_scale_write (HsScaleShape shape, const char *dir, guint n)
{
  GString *text = g_string_sized_new (64 * (gsize) n + 256);
  char *result = NULL;

  switch (shape)
    {
    case HS_SCALE_MANIFEST_METADATA:
      hs_scale_manifest_head (text);
      g_string_append (text, "{\"id\": \"a\", \"image\": \"a.png\", \"metadata\": {");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s\"key %07u\": \"value %u\"", i > 0 ? ", " : "", i, i);
      g_string_append (text, "}}]}\n");
      break;

    case HS_SCALE_MANIFEST_REGIONS:
      hs_scale_manifest_head (text);
      g_string_append (text, "{\"id\": \"a\", \"image\": \"a.png\", \"regions\": {");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s\"region %07u\": {\"boxes\": [[0, 0, 1, 1]]}", i > 0 ? ", " : "", i);
      g_string_append (text, "}, \"sentences\": [");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s{\"id\": \"s%u\", \"text\": \"region %u\", \"targets\": [\"region %07u\"]}",
                                i > 0 ? ", " : "", i, i, i);
      g_string_append (text, "], \"maps\": [");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s{\"model\": \"m\", \"query\": \"s%u\", \"file\": \"maps/%u.npy\"}",
                                i > 0 ? ", " : "", i, i);
      g_string_append (text, "]}]}\n");
      break;

    case HS_SCALE_MANIFEST_INSTANCES:
      hs_scale_manifest_head (text);
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text,
                                "%s{\"id\": \"case %07u\", \"image\": \"images/%u.png\", "
                                "\"metadata\": {\"site\": \"s%u\"}, "
                                "\"regions\": {\"lesion\": {\"boxes\": [[0, 0, 1, 1]]}}, "
                                "\"sentences\": [{\"id\": \"s\", \"text\": \"a lesion\", \"targets\": [\"lesion\"]}], "
                                "\"maps\": [{\"model\": \"m\", \"query\": \"s\", \"file\": \"maps/%u.npy\"}]}\n",
                                i > 0 ? ", " : "", i, i, i % 7, i);
      g_string_append (text, "]}\n");
      break;

    case HS_SCALE_MANIFEST_TARGETS:
      hs_scale_manifest_head (text);
      g_string_append (text, "{\"id\": \"a\", \"image\": \"a.png\", \"regions\": {");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s\"region %07u\": {\"boxes\": [[0, 0, 1, 1]]}", i > 0 ? ", " : "", i);
      g_string_append (text, "}, \"sentences\": [{\"id\": \"all\", \"text\": \"everything\", \"targets\": [");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s\"region %07u\"", i > 0 ? ", " : "", i);
      g_string_append (text, "]}]}]}\n");
      break;

    case HS_SCALE_IMPORT_NIH:
      hs_scale_put_png (dir, "images/a.png", 8);
      g_string_append (text, "Image Index,Finding Label,Bbox [x,y,w,h],,,\n");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "a.png,Finding %07u,0,0,512,512\n", i);
      hs_scale_put (dir, "BBox_List_2017.csv", text->str, text->len);
      result = g_build_filename (dir, "BBox_List_2017.csv", NULL);
      break;

    case HS_SCALE_IMPORT_COCO:
      hs_scale_put_png (dir, "images/a.png", 8);
      g_string_append (text, "{\"images\": [{\"id\": 1, \"file_name\": \"a.png\", \"width\": 8, \"height\": 8}],\n"
                             " \"categories\": [");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s{\"id\": %u, \"name\": \"category %07u\"}", i > 0 ? ", " : "", i + 1, i);
      g_string_append (text, "],\n \"annotations\": [");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s{\"id\": %u, \"image_id\": 1, \"category_id\": %u, \"bbox\": [0, 0, 4, 4]}",
                                i > 0 ? ", " : "", i + 1, i + 1);
      g_string_append (text, "]}\n");
      hs_scale_put (dir, "annotations.json", text->str, text->len);
      result = g_build_filename (dir, "annotations.json", NULL);
      break;

    case HS_SCALE_IMPORT_YOLO:
      hs_scale_put_png (dir, "set/a.png", 8);
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "class %07u\n", i);
      hs_scale_put (dir, "set/classes.txt", text->str, text->len);
      g_string_truncate (text, 0);
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%u 0.5 0.5 0.5 0.5\n", i);
      hs_scale_put (dir, "set/a.txt", text->str, text->len);
      result = g_build_filename (dir, "set", NULL);
      break;

    default:
      g_assert_not_reached ();
    }

  if (result == NULL)
    {
      hs_scale_put (dir, "heatscope.json", text->str, text->len);
      result = g_build_filename (dir, "heatscope.json", NULL);
    }
  g_string_free (text, TRUE);
  return result;
}

/* Reads the input as the app or the CLI would: the manifest is loaded, the
 * importer's source is imported into `out_dir`.  Returns the number of
 * instances, or aborts with the error. */
static inline guint
hs_scale_read (HsScaleShape shape, const char *input, const char *out_dir)
{
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  const char *format = hs_scale_import_format (shape);

  if (format == NULL)
    dataset = hs_dataset_load (input, &error);
  else
    {
      const char *sources[2] = { input, NULL };
      HsImportSummary summary = { 0 };

      dataset = hs_import (format, sources, out_dir, NULL, &summary, &error);
      hs_import_summary_clear (&summary);
    }
  if (dataset == NULL)
    g_error ("%s: %s", hs_scale_shape_names[shape], error->message);
  return hs_dataset_get_n_instances (dataset);
}
