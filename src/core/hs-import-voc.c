/* hs-import-voc.c — Pascal VOC XML, one file per image
 * (<annotation><filename/><size><width/><height/></size><object><name/>
 * <bndbox><xmin/><ymin/><xmax/><ymax/></bndbox></object>...</annotation>).
 * VOC boxes count pixels from 1 and include xmax/ymax, so the box in
 * Heatscope's pixel-edge coordinates is [xmin − 1, ymin − 1, xmax, ymax].
 * Sources: a folder of .xml files (or one file) and the image folder
 * (default: JPEGImages beside the annotation folder, else that folder). */
#include "hs-import-private.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

typedef struct
{
  GPtrArray *stack;      /* element names */
  GString   *text;
  char      *filename;
  double     size_w, size_h;
  GArray    *objects;    /* VocObject */
  gboolean   in_object;
  char      *name;
  double     box[4];
  guint      have;       /* bit per box member read */
} VocParse;

typedef struct
{
  char   *name;
  double  box[4];
  guint   have;
} VocObject;

static const char *const box_members[] = { "xmin", "ymin", "xmax", "ymax" };

static void
voc_start (GMarkupParseContext *context, const char *element, const char **names,
           const char **values, gpointer user_data, GError **error)
{
  VocParse *p = user_data;

  g_ptr_array_add (p->stack, g_strdup (element));
  g_string_truncate (p->text, 0);
  if (strcmp (element, "object") == 0)
    {
      p->in_object = TRUE;
      g_clear_pointer (&p->name, g_free);
      p->have = 0;
    }
}

/* The element `up` levels above the one ending (1: its parent). */
static const char *
ancestor (VocParse *p, guint up)
{
  return p->stack->len > up ? g_ptr_array_index (p->stack, p->stack->len - 1 - up) : "";
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

static void
voc_end (GMarkupParseContext *context, const char *element, gpointer user_data, GError **error)
{
  VocParse *p = user_data;
  const char *parent = ancestor (p, 1);
  g_autofree char *text = g_strstrip (g_strdup (p->text->str));

  if (strcmp (element, "filename") == 0 && strcmp (parent, "annotation") == 0)
    {
      g_free (p->filename);
      p->filename = g_strdup (text);
    }
  else if (strcmp (parent, "size") == 0 && strcmp (element, "width") == 0)
    p->size_w = g_ascii_strtod (text, NULL);
  else if (strcmp (parent, "size") == 0 && strcmp (element, "height") == 0)
    p->size_h = g_ascii_strtod (text, NULL);
  else if (p->in_object && strcmp (element, "name") == 0 && strcmp (parent, "object") == 0)
    {
      g_free (p->name);
      p->name = g_strdup (text);
    }
  else if (p->in_object && strcmp (parent, "bndbox") == 0 && strcmp (ancestor (p, 2), "object") == 0)
    for (guint i = 0; i < 4; i++)
      if (strcmp (element, box_members[i]) == 0)
        {
          char *end = NULL;
          double v = g_ascii_strtod (text, &end);
          if (end != text && *end == '\0' && isfinite (v))
            {
              p->box[i] = v;
              p->have |= 1u << i;
            }
        }
  if (strcmp (element, "object") == 0 && p->in_object)
    {
      VocObject o = { g_steal_pointer (&p->name), { p->box[0], p->box[1], p->box[2], p->box[3] }, p->have };
      g_array_append_val (p->objects, o);
      p->in_object = FALSE;
    }
  g_ptr_array_remove_index (p->stack, p->stack->len - 1);
  g_string_truncate (p->text, 0);
}

static void
voc_text (GMarkupParseContext *context, const char *text, gsize len, gpointer user_data, GError **error)
{
  VocParse *p = user_data;

  g_string_append_len (p->text, text, (gssize) len);
}

static void
voc_object_clear (gpointer data)
{
  g_free (((VocObject *) data)->name);
}

static void
import_one (HsImportContext *ctx, HsImportImages *images, const char *xml_path)
{
  static const GMarkupParser parser = { voc_start, voc_end, voc_text, NULL, NULL };
  VocParse p = { 0 };
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  GMarkupParseContext *context;
  HsImportImage *image;
  gsize len;

  if (!hs_import_read_source (ctx, xml_path, &contents, &len, &local_error))
    {
      hs_import_skip (ctx, xml_path, 0, "%s", local_error->message);
      return;
    }
  p.stack = g_ptr_array_new_with_free_func (g_free);
  p.text = g_string_new (NULL);
  p.objects = g_array_new (FALSE, TRUE, sizeof (VocObject));
  g_array_set_clear_func (p.objects, voc_object_clear);
  context = g_markup_parse_context_new (&parser, G_MARKUP_TREAT_CDATA_AS_TEXT, &p, NULL);
  if (!g_markup_parse_context_parse (context, contents, (gssize) len, &local_error) ||
      !g_markup_parse_context_end_parse (context, &local_error))
    hs_import_skip (ctx, xml_path, 0, _("not readable XML: %s"), local_error->message);
  else if (p.filename == NULL || *p.filename == '\0')
    hs_import_skip (ctx, xml_path, 0, _("no <filename>"));
  else
    {
      const char *dot = strrchr (p.filename, '.');
      g_autofree char *stem = dot != NULL ? g_strndup (p.filename, dot - p.filename) : g_strdup (p.filename);

      image = hs_import_images_get (ctx, images, stem, xml_path, 0);
      if (image != NULL && p.size_w > 0 && p.size_h > 0 &&
          (fabs (p.size_w - image->width) > 0.5 || fabs (p.size_h - image->height) > 0.5))
        hs_import_skip (ctx, xml_path, 0, _("<size> %g × %g differs from the image's %u × %u; boxes scaled"),
                        p.size_w, p.size_h, image->width, image->height);
      for (guint i = 0; image != NULL && i < p.objects->len; i++)
        {
          VocObject *o = &g_array_index (p.objects, VocObject, i);
          /* boxes are in <size>'s pixels; without it, the image's */
          double frame_w = p.size_w > 0 ? p.size_w : image->width;
          double frame_h = p.size_h > 0 ? p.size_h : image->height;

          if (o->name == NULL || *o->name == '\0' || o->have != 0xf)
            {
              hs_import_skip (ctx, xml_path, 0, _("object[%u]: expected <name> and <bndbox> with xmin, ymin, xmax, ymax"), i);
              continue;
            }
          if (!hs_import_add_class_box (ctx, image->instance, o->name,
                                        o->box[0] - 1.0, o->box[1] - 1.0, o->box[2], o->box[3],
                                        frame_w, frame_h))
            {
              hs_import_skip (ctx, xml_path, 0, _("object[%u]: box is empty or outside the image"), i);
              continue;
            }
          hs_import_add_positive (ctx, image->instance, o->name);
        }
    }
  g_markup_parse_context_free (context);
  g_ptr_array_unref (p.stack);
  g_string_free (p.text, TRUE);
  g_array_unref (p.objects);
  g_free (p.filename);
  g_free (p.name);
}

gboolean
hs_import_voc (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *annotations = sources[0];
  gboolean is_dir = g_file_test (annotations, G_FILE_TEST_IS_DIR);
  g_autofree char *ann_dir = is_dir ? g_strdup (annotations) : g_path_get_dirname (annotations);
  g_autofree char *parent = g_path_get_dirname (ann_dir);
  g_autofree char *jpeg_images = g_build_filename (parent, "JPEGImages", NULL);
  gboolean sibling = n < 2 && g_file_test (jpeg_images, G_FILE_TEST_IS_DIR);
  g_autofree char *image_dir = n >= 2 ? g_strdup (sources[1])
                               : sibling ? g_strdup (jpeg_images) : g_strdup (ann_dir);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  HsImportImages *images;
  gboolean ok = TRUE;

  if (is_dir)
    {
      g_autoptr(GDir) dir = g_dir_open (annotations, 0, NULL);
      const char *name;

      if (dir == NULL)
        {
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, _("%s: cannot read the folder"), annotations);
          return FALSE;
        }
      while ((name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (name, ".xml") && name[0] != '.')
          g_ptr_array_add (files, g_build_filename (annotations, name, NULL));
      g_ptr_array_sort (files, compare_paths);
    }
  else if (g_file_test (annotations, G_FILE_TEST_IS_REGULAR))
    g_ptr_array_add (files, g_strdup (annotations));
  if (files->len == 0)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                   _("%s: no Pascal VOC .xml annotation found"), annotations);
      return FALSE;
    }
  if (sibling)
    hs_import_add_source_root (ctx, jpeg_images);
  images = hs_import_images_new (image_dir, "Pascal VOC");
  for (guint i = 0; i < files->len; i++)
    {
      if (!hs_import_progress (ctx, (double) i / files->len, g_ptr_array_index (files, i), error))
        {
          ok = FALSE;
          break;
        }
      import_one (ctx, images, g_ptr_array_index (files, i));
    }
  hs_import_images_finish (ctx, images);
  return ok;
}
