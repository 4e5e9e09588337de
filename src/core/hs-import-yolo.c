/* hs-import-yolo.c — YOLO txt boxes ("class xc yc w h", normalised) */
#include "hs-import-private.h"
#include "hs-i18n-private.h"

#include <inttypes.h>

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

static gboolean
is_image_name (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  return g_str_has_suffix (lower, ".jpg") || g_str_has_suffix (lower, ".jpeg") ||
         g_str_has_suffix (lower, ".png") || g_str_has_suffix (lower, ".dcm");
}

/* Image files under `dir`, relative to `top`, sorted. */
static void
collect_images (const char *top, const char *relative, GPtrArray *out, guint depth)
{
  g_autofree char *dir = relative ? g_build_filename (top, relative, NULL) : g_strdup (top);
  g_autoptr(GDir) d = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (depth > 16 || (d = g_dir_open (dir, 0, NULL)) == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      g_autofree char *rel = relative ? g_build_filename (relative, n, NULL) : g_strdup (n);
      g_autofree char *path = g_build_filename (top, rel, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        collect_images (top, rel, out, depth + 1);
      else if (is_image_name (n) && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        g_ptr_array_add (out, g_steal_pointer (&rel));
    }
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static char *
unquote (char *s)
{
  g_strstrip (s);
  if (s[0] != '\0' && (s[0] == '\'' || s[0] == '"') && s[strlen (s) - 1] == s[0] && strlen (s) >= 2)
    {
      s[strlen (s) - 1] = '\0';
      memmove (s, s + 1, strlen (s));
    }
  return s;
}

/* classes.txt (one name a line) or data.yaml (names: [a, b] / a block list
 * "- a" / a block map "0: a"). */
static GPtrArray *
read_class_names (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  gboolean yaml = g_str_has_suffix (path, ".yaml") || g_str_has_suffix (path, ".yml");
  gboolean in_names = FALSE;

  if (!g_file_get_contents (path, &text, NULL, error))
    {
      g_ptr_array_unref (names);
      return NULL;
    }
  lines = g_strsplit_set (text, "\r\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];

      if (!yaml)
        {
          g_strstrip (line);
          if (*line != '\0')
            g_ptr_array_add (names, g_strdup (line));
          continue;
        }
      if (g_str_has_prefix (line, "names:"))
        {
          char *rest = g_strstrip (line + 6);
          if (rest[0] == '[')
            {
              char *end = strrchr (rest, ']');
              g_auto(GStrv) items = NULL;
              if (end != NULL)
                *end = '\0';
              items = g_strsplit (rest + 1, ",", -1);
              for (guint k = 0; items[k] != NULL; k++)
                if (*g_strstrip (items[k]) != '\0')
                  g_ptr_array_add (names, g_strdup (unquote (items[k])));
            }
          else
            in_names = TRUE;
          continue;
        }
      if (in_names)
        {
          gboolean indented = line[0] == ' ' || line[0] == '\t' || line[0] == '-';
          char *item = g_strstrip (line);
          char *colon;

          if (!indented && *item != '\0')
            {
              in_names = FALSE;
              continue;
            }
          if (item[0] == '-')
            g_ptr_array_add (names, g_strdup (unquote (item + 1)));
          else if ((colon = strchr (item, ':')) != NULL)
            g_ptr_array_add (names, g_strdup (unquote (colon + 1)));
        }
    }
  return names;
}

gboolean
hs_import_yolo (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *top = sources[0];
  g_autoptr(GPtrArray) images = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) class_names = NULL;
  const char *classes = ctx->options->classes;
  g_autofree char *default_classes = NULL;

  if (!g_file_test (top, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT, _("%s: not a folder"), top);
      return FALSE;
    }
  if (classes == NULL && n >= 2)
    classes = sources[1];
  if (classes == NULL)
    {
      static const char *candidates[] = { "classes.txt", "obj.names", "data.yaml", "dataset.yaml" };
      for (guint i = 0; i < G_N_ELEMENTS (candidates) && default_classes == NULL; i++)
        {
          g_autofree char *p = g_build_filename (top, candidates[i], NULL);
          if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
            default_classes = g_steal_pointer (&p);
        }
      classes = default_classes;
    }
  if (classes != NULL)
    {
      g_autoptr(GError) local_error = NULL;
      class_names = read_class_names (classes, &local_error);
      if (class_names == NULL)
        {
          g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_IO, "%s", local_error->message);
          return FALSE;
        }
    }

  collect_images (top, NULL, images, 0);
  g_ptr_array_sort (images, compare_strings);

  for (guint i = 0; i < images->len; i++)
    {
      const char *rel_image = g_ptr_array_index (images, i);
      g_autofree char *source = g_build_filename (top, rel_image, NULL);
      g_autofree char *relative = g_build_filename ("images", rel_image, NULL);
      g_autofree char *stem = NULL;
      g_autofree char *label_path = NULL;
      g_autofree char *text = NULL;
      g_autofree char *rel = NULL;
      g_autoptr(GError) local_error = NULL;
      g_auto(GStrv) lines = NULL;
      HsInstance *instance;
      guint width = 0, height = 0;
      const char *dot = strrchr (rel_image, '.');
      const char *images_part;

      if (!hs_import_progress (ctx, (double) i / images->len, rel_image, error))
        return FALSE;

      stem = g_strndup (rel_image, dot - rel_image);
      label_path = g_strdup_printf ("%s/%s.txt", top, stem);
      /* the usual layout: .../images/x.jpg ↔ .../labels/x.txt */
      if (!g_file_test (label_path, G_FILE_TEST_IS_REGULAR) &&
          ((images_part = strstr (stem, "images/")) != NULL))
        {
          g_autofree char *prefix = g_strndup (stem, images_part - stem);
          g_free (label_path);
          label_path = g_strdup_printf ("%s/%slabels/%s.txt", top, prefix, images_part + 7);
        }

      rel = hs_import_add_image (ctx, source, relative, &width, &height, &local_error);
      if (rel == NULL)
        {
          hs_import_skip (ctx, source, 0, "%s", local_error->message);
          continue;
        }
      instance = hs_import_new_instance (ctx, stem, rel, width, height, NULL);

      if (hs_import_read_source (ctx, label_path, &text, NULL, NULL))
        {
          lines = g_strsplit (text, "\n", -1);
          for (guint k = 0; lines[k] != NULL; k++)
            {
              g_auto(GStrv) parts = NULL;
              const char *f[8];
              g_autofree char *fallback = NULL;
              const char *name;
              double v[4];
              guint64 klass;
              char *line = g_strstrip (lines[k]);
              guint nf = 0;
              gboolean ok = TRUE;

              if (*line == '\0' || *line == '#')
                continue;
              parts = g_strsplit_set (line, " \t", -1);
              for (guint j = 0; parts[j] != NULL; j++)
                if (*parts[j] != '\0')
                  {
                    if (nf < G_N_ELEMENTS (f))
                      f[nf] = parts[j];
                    nf++;
                  }
              if (nf < 5)
                {
                  hs_import_skip (ctx, label_path, k + 1, _("expected \"class x_center y_center width height\""));
                  continue;
                }
              if (!g_ascii_string_to_unsigned (f[0], 10, 0, G_MAXUINT32, &klass, NULL))
                {
                  hs_import_skip (ctx, label_path, k + 1, _("class '%s' is not a whole number"), f[0]);
                  continue;
                }
              for (guint j = 0; j < 4 && ok; j++)
                {
                  char *end = NULL;
                  v[j] = g_ascii_strtod (f[j + 1], &end);
                  ok = end != f[j + 1] && *end == '\0' && v[j] >= 0.0 && v[j] <= 1.0;
                }
              if (!ok)
                {
                  hs_import_skip (ctx, label_path, k + 1, _("coordinates must be numbers in [0, 1]"));
                  continue;
                }
              if (nf > 5)
                {
                  /* segmentation polygons ("class x1 y1 x2 y2 ...") are not boxes */
                  hs_import_skip (ctx, label_path, k + 1, _("%u values: not a YOLO box line"), nf);
                  continue;
                }
              if (class_names != NULL && klass < class_names->len)
                name = g_ptr_array_index (class_names, klass);
              else if (class_names != NULL)
                {
                  hs_import_skip (ctx, label_path, k + 1, _("class %" PRIu64 " is not in %s (%u names)"),
                                  klass, classes, class_names->len);
                  continue;
                }
              else
                name = fallback = g_strdup_printf ("class %" G_GUINT64_FORMAT, klass);
              if (!hs_import_add_class_box (ctx, instance, name,
                                            v[0] - v[2] / 2, v[1] - v[3] / 2,
                                            v[0] + v[2] / 2, v[1] + v[3] / 2, 1.0, 1.0))
                hs_import_skip (ctx, label_path, k + 1, _("empty box"));
            }
        }
      hs_dataset_add_instance (ctx->dataset, instance);
    }
  if (images->len == 0)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT, _("%s: no PNG or JPEG images found"), top);
      return FALSE;
    }
  return TRUE;
}
