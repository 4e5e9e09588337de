/* hs-import-covid-seg.c — the COVID-19 chest X-ray segmentation dataset
 * (structure.csv: one row per image and class, box Left/Top/Width/Height,
 * mask PNG cropped to the box; metadata.csv: clinical notes). */
#include "hs-import-private.h"

#include "hs-csv.h"
#include "hs-text.h"
#include "hs-i18n-private.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  char       *filename;     /* source image file name               */
  HsInstance *instance;
  guint       width, height;
  HsImportMasks masks;      /* of the regions that have one          */
} CovidImage;

static void
covid_image_free (gpointer data)
{
  CovidImage *ci = data;

  g_free (ci->filename);
  if (ci->instance != NULL)
    hs_instance_free (ci->instance);
  hs_import_masks_clear (&ci->masks);
  g_free (ci);
}

static gboolean
parse_uint (const char *text, guint *out)
{
  guint64 v;

  if (text == NULL)
    return FALSE;
  return g_ascii_string_to_unsigned (g_strstrip ((char *) text), 10, 0, G_MAXINT32, &v, NULL) &&
         (*out = (guint) v, TRUE);
}

static const char *
field (char **row, int column)
{
  if (column < 0 || (guint) column >= g_strv_length (row))
    return NULL;
  return row[column];
}

/* The row's value in `column`, or NULL when it is missing or empty. */
static const char *
nonempty_field (char **row, int column)
{
  const char *value = field (row, column);

  return value != NULL && *value != '\0' ? value : NULL;
}

/* Inside: alpha > 0 when the alpha channel varies, else any colour > 0
 * (these masks are opaque everywhere, with black outside). */
static void
paste_mask (guint8 *full, guint width, guint height, const HsImage *crop, guint left, guint top)
{
  guint cw = hs_image_get_width (crop), ch = hs_image_get_height (crop);
  guint channels = hs_image_get_channels (crop);
  const guint16 *d = hs_image_peek_data (crop);
  gboolean has_alpha = channels == 2 || channels == 4;
  gboolean alpha_varies = FALSE;
  guint colours = has_alpha ? channels - 1 : channels;

  if (has_alpha)
    for (gsize i = 1; i < (gsize) cw * ch && !alpha_varies; i++)
      alpha_varies = d[i * channels + channels - 1] != d[channels - 1];

  for (guint y = 0; y < ch && top + y < height; y++)
    for (guint x = 0; x < cw && left + x < width; x++)
      {
        const guint16 *p = d + ((gsize) y * cw + x) * channels;
        gboolean inside = FALSE;

        if (alpha_varies)
          inside = p[channels - 1] > 0;
        else
          for (guint c = 0; c < colours; c++)
            inside |= p[c] > 0;
        if (inside)
          full[(gsize) (top + y) * width + left + x] = 1;
      }
}

static char *
region_name_from_class (const char *klass, const char *template_name)
{
  if (klass != NULL && g_str_has_prefix (klass, "COVID-19 "))
    return g_strdup (klass + strlen ("COVID-19 "));
  if (klass != NULL && *klass)
    return g_strdup (klass);
  return g_strdup (template_name);
}

static void
apply_links (HsImportContext *ctx, GHashTable *by_name, GHashTable *by_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HsCsvReader) reader = hs_csv_reader_new_from_file (ctx->options->links, &error);
  g_auto(GStrv) header = NULL;
  int c_image, c_sentence, c_target;
  const HsImportColumn columns[] = {
    { "image", &c_image }, { "sentence", &c_sentence }, { "target", &c_target },
  };
  guint line = 0;
  char **row;

  if (reader == NULL)
    {
      hs_import_skip (ctx, ctx->options->links, 0, _("cannot read the links file: %s"), error->message);
      return;
    }
  header = hs_csv_reader_next (reader, &line, &error);
  if (!hs_import_find_columns (header, columns, G_N_ELEMENTS (columns)))
    {
      hs_import_skip (ctx, ctx->options->links, 1,
                      _("the header must name the columns image, sentence and target"));
      return;
    }
  while (TRUE)
    {
      g_auto(GStrv) r = NULL;
      CovidImage *ci;
      HsSentence *sentence = NULL;
      const char *image, *which, *target;
      guint number;

      g_clear_error (&error);
      row = hs_csv_reader_next (reader, &line, &error);
      if (row == NULL && error == NULL)
        break;
      if (row == NULL)
        {
          hs_import_skip (ctx, ctx->options->links, line, "%s", error->message);
          continue;
        }
      r = row;
      image = field (r, c_image);
      which = field (r, c_sentence);
      target = field (r, c_target);
      if (image == NULL || which == NULL || target == NULL)
        {
          hs_import_skip (ctx, ctx->options->links, line, _("missing columns"));
          continue;
        }
      ci = g_hash_table_lookup (by_name, image);
      if (ci == NULL)
        ci = g_hash_table_lookup (by_id, image);
      if (ci == NULL)
        {
          hs_import_skip (ctx, ctx->options->links, line, _("unknown image '%s'"), image);
          continue;
        }
      if (ci->instance == NULL)
        {
          hs_import_skip (ctx, ctx->options->links, line, _("image '%s' was not imported"), image);
          continue;
        }
      if (parse_uint (which, &number) && number >= 1 && number <= ci->instance->sentences->len)
        sentence = g_ptr_array_index (ci->instance->sentences, number - 1);
      else
        sentence = hs_import_find_sentence_by_text (ctx, ci->instance, which);
      if (sentence == NULL)
        {
          hs_import_skip (ctx, ctx->options->links, line, _("image '%s' has no sentence '%s'"), image, which);
          continue;
        }
      if (hs_import_find_region (ctx, ci->instance, target) == NULL)
        {
          hs_import_skip (ctx, ctx->options->links, line, _("image '%s' has no target '%s'"), image, target);
          continue;
        }
      hs_import_add_target (ctx, sentence, target);
    }
}

gboolean
hs_import_covid_seg (HsImportContext *ctx, const char * const *sources, guint n, GError **error)
{
  const char *root = sources[0];
  g_autofree char *structure_path = g_build_filename (root, "structure.csv", NULL);
  g_autofree char *metadata_path = g_build_filename (root, "metadata.csv", NULL);
  g_autoptr(HsCsvReader) structure = NULL;
  g_autoptr(GHashTable) notes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) g_strfreev);
  g_autoptr(GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) by_id = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) images = g_ptr_array_new_with_free_func (covid_image_free);
  g_autoptr(GError) local_error = NULL;
  g_auto(GStrv) header = NULL;
  g_auto(GStrv) meta_header = NULL;
  int c_class, c_template, c_filename, c_mask, c_res, c_top, c_left, c_width, c_height;
  int m_filename = -1, m_notes = -1, m_view = -1, m_modality = -1, m_license = -1, m_url = -1,
      m_finding = -1;
  const HsImportColumn columns[] = {
    { "Class", &c_class }, { "Template Name", &c_template, TRUE }, { "Filename", &c_filename },
    { "Mask", &c_mask }, { "Resolution", &c_res, TRUE }, { "Top", &c_top }, { "Left", &c_left },
    { "Width", &c_width }, { "Height", &c_height },
  };
  /* all optional: metadata.csv only adds notes */
  const HsImportColumn meta_columns[] = {
    { "filename", &m_filename, TRUE }, { "clinical_notes", &m_notes, TRUE },
    { "view", &m_view, TRUE }, { "modality", &m_modality, TRUE },
    { "license", &m_license, TRUE }, { "url", &m_url, TRUE }, { "finding", &m_finding, TRUE },
  };
  guint line = 0;

  if (!g_file_test (structure_path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                   _("%s: not a covid-seg folder (structure.csv is missing)"), root);
      return FALSE;
    }

  /* metadata.csv is optional: without it there are no notes */
  if (g_file_test (metadata_path, G_FILE_TEST_IS_REGULAR))
    {
      g_autoptr(HsCsvReader) meta = hs_import_open_csv (ctx, metadata_path, &local_error);

      if (meta == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      meta_header = hs_csv_reader_next (meta, &line, &local_error);
      hs_import_find_columns (meta_header, meta_columns, G_N_ELEMENTS (meta_columns));
      if (meta_header == NULL && local_error != NULL)
        {
          /* an unreadable header row: no notes, and the error must not
           * reach the reads of structure.csv below */
          hs_import_skip (ctx, metadata_path, line, _("%s; notes are not imported"), local_error->message);
          g_clear_error (&local_error);
        }
      else if (m_filename < 0)
        hs_import_skip (ctx, metadata_path, 1, _("no 'filename' column; notes are not imported"));
      else
        while (TRUE)
          {
            char **row;
            const char *name;

            g_clear_error (&local_error);
            row = hs_csv_reader_next (meta, &line, &local_error);
            if (row == NULL && local_error == NULL)
              break;
            if (row == NULL)
              {
                hs_import_skip (ctx, metadata_path, line, "%s", local_error->message);
                continue;
              }
            name = field (row, m_filename);
            if (name == NULL || *name == '\0')
              {
                hs_import_skip (ctx, metadata_path, line, _("empty filename"));
                g_strfreev (row);
                continue;
              }
            if (g_hash_table_contains (notes, name))
              {
                hs_import_skip (ctx, metadata_path, line, _("second row for %s"), name);
                g_strfreev (row);
                continue;
              }
            g_hash_table_insert (notes, g_strdup (name), row);
          }
    }

  structure = hs_import_open_csv (ctx, structure_path, &local_error);
  if (structure == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  header = hs_csv_reader_next (structure, &line, &local_error);
  if (header == NULL)
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT, _("%s: no header row%s%s"),
                   structure_path, local_error ? ": " : "", local_error ? local_error->message : "");
      return FALSE;
    }
  if (!hs_import_find_columns (header, columns, G_N_ELEMENTS (columns)))
    {
      g_set_error (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_FORMAT,
                   _("%s:1: missing columns (need Class, Filename, Mask, Top, Left, Width, Height)"),
                   structure_path);
      return FALSE;
    }

  while (TRUE)
    {
      g_auto(GStrv) row = NULL;
      g_autofree char *region_name = NULL;
      CovidImage *ci;
      HsRegion *region;
      const char *filename, *mask_file;
      guint left, top, w, h;
      const char *resolution;
      double x1, y1, x2, y2;

      g_clear_error (&local_error);
      if (!hs_import_next_row (ctx, structure, structure_path, &line, &row, error))
        return FALSE;
      if (row == NULL)
        break;
      filename = field (row, c_filename);
      if (filename == NULL || *filename == '\0')
        {
          hs_import_skip (ctx, structure_path, line, _("no Filename"));
          continue;
        }
      if (!parse_uint (field (row, c_left), &left) || !parse_uint (field (row, c_top), &top) ||
          !parse_uint (field (row, c_width), &w) || !parse_uint (field (row, c_height), &h))
        {
          hs_import_skip (ctx, structure_path, line, _("Left/Top/Width/Height are not whole numbers"));
          continue;
        }
      region_name = region_name_from_class (field (row, c_class), field (row, c_template));
      if (region_name == NULL || *region_name == '\0')
        {
          hs_import_skip (ctx, structure_path, line, _("no Class"));
          continue;
        }

      ci = g_hash_table_lookup (by_name, filename);
      if (ci == NULL)
        {
          g_autofree char *source = g_build_filename (root, "images", filename, NULL);
          g_autofree char *relative = g_build_filename ("images", filename, NULL);
          g_autofree char *rel = NULL;
          g_autofree char *stem = NULL;
          char **meta;
          const char *dot;

          if (strchr (filename, '/') != NULL || strcmp (filename, "..") == 0)
            {
              hs_import_skip (ctx, structure_path, line, _("Filename '%s' is not a plain file name"), filename);
              continue;
            }
          ci = g_new0 (CovidImage, 1);
          ci->filename = g_strdup (filename);
          g_ptr_array_add (images, ci);
          g_hash_table_insert (by_name, ci->filename, ci);

          rel = hs_import_add_image (ctx, source, relative, &ci->width, &ci->height, &local_error);
          if (rel == NULL)
            {
              hs_import_skip (ctx, structure_path, line, "%s", local_error->message);
              continue;
            }
          dot = strrchr (filename, '.');
          stem = dot != NULL ? g_strndup (filename, dot - filename) : g_strdup (filename);
          ci->instance = hs_import_new_instance (ctx, stem, rel, ci->width, ci->height, "cxr-covid-seg");
          g_hash_table_insert (by_id, ci->instance->id, ci);

          meta = g_hash_table_lookup (notes, filename);
          if (meta != NULL)
            {
              g_auto(GStrv) sentences = NULL;
              const char *text = field (meta, m_notes);
              const char *value, *finding;

              if ((value = nonempty_field (meta, m_view)) != NULL)
                hs_instance_set_metadata (ci->instance, "view", value);
              if ((value = nonempty_field (meta, m_modality)) != NULL)
                hs_instance_set_metadata (ci->instance, "modality", value);
              if ((value = nonempty_field (meta, m_license)) != NULL)
                hs_instance_set_metadata (ci->instance, "licence", value);
              if ((value = nonempty_field (meta, m_url)) != NULL)
                hs_instance_set_metadata (ci->instance, "url", value);
              if ((finding = nonempty_field (meta, m_finding)) != NULL)
                {
                  gboolean normal = g_ascii_strcasecmp (finding, "No Finding") == 0;

                  hs_instance_set_metadata (ci->instance, "finding", finding);
                  hs_instance_add_finding (ci->instance,
                                           hs_label_new (finding, normal ? "negative" : "positive", NULL));
                  ci->instance->abnormal = !normal;
                }
              sentences = text != NULL ? hs_text_split_sentences (text) : NULL;
              for (guint i = 0; sentences != NULL && sentences[i] != NULL; i++)
                {
                  g_autofree char *sid = g_strdup_printf ("s%u", i + 1);
                  hs_instance_add_sentence (ci->instance, hs_sentence_new (sid, sentences[i]));
                }
            }
        }
      if (ci->instance == NULL)
        {
          hs_import_skip (ctx, structure_path, line, _("image %s could not be imported"), filename);
          continue;
        }
      resolution = c_res >= 0 ? field (row, c_res) : NULL;
      if (resolution != NULL && *resolution != '\0')
        {
          g_autofree char *expect = g_strdup_printf ("%ux%u", ci->width, ci->height);
          if (strcmp (g_strstrip (row[c_res]), expect) != 0)
            {
              hs_import_skip (ctx, structure_path, line, _("Resolution %s differs from the image (%s)"),
                              row[c_res], expect);
              continue;
            }
        }

      x1 = left;
      y1 = top;
      x2 = (double) left + w;
      y2 = (double) top + h;
      if (!hs_import_clip_box (&x1, &y1, &x2, &y2, ci->width, ci->height))
        {
          hs_import_skip (ctx, structure_path, line, _("box %u,%u %u×%u is empty or outside the %u×%u image"),
                          left, top, w, h, ci->width, ci->height);
          continue;
        }

      mask_file = field (row, c_mask);
      if (mask_file != NULL && *mask_file != '\0')
        {
          g_autofree char *mask_path = g_build_filename (root, mask_file, NULL);
          g_autoptr(HsImage) crop = NULL;
          guint8 *full;

          if (strstr (mask_file, "..") != NULL || g_path_is_absolute (mask_file))
            {
              hs_import_skip (ctx, structure_path, line, _("Mask path '%s' leaves the folder"), mask_file);
              continue;
            }
          {
            /* Beneath the source folder: a symlinked mask may not pull a
             * file from outside it into the dataset. */
            int fd = hs_import_open_source (ctx, mask_path, &local_error);

            if (fd >= 0)
              {
                crop = hs_image_load_fd (fd, mask_path, &local_error);
                close (fd);
              }
          }
          if (crop == NULL)
            {
              hs_import_skip (ctx, structure_path, line, "%s", local_error->message);
              continue;
            }
          if (hs_image_get_width (crop) != w || hs_image_get_height (crop) != h)
            {
              hs_import_skip (ctx, structure_path, line, _("mask %s is %u×%u, the box is %u×%u"),
                              mask_file, hs_image_get_width (crop), hs_image_get_height (crop), w, h);
              continue;
            }
          full = hs_import_masks_get (&ci->masks, region_name, ci->width, ci->height);
          paste_mask (full, ci->width, ci->height, crop, left, top);
        }

      region = hs_import_get_region (ctx, ci->instance, region_name);
      hs_region_add_box (region, x1, y1, x2, y2);
    }

  /* masks are written once every row of the image is pasted */
  for (guint i = 0; i < images->len; i++)
    {
      CovidImage *ci = g_ptr_array_index (images, i);

      if (ci->instance == NULL)
        continue;
      if (!hs_import_progress (ctx, (double) i / images->len, ci->instance->id, error))
        return FALSE;
      if (!hs_import_write_region_masks (ctx, ci->instance, &ci->masks, ci->width,
                                         ci->height, error))
        return FALSE;
    }

  if (ctx->options->links != NULL)
    apply_links (ctx, by_name, by_id);

  for (guint i = 0; i < images->len; i++)
    {
      CovidImage *ci = g_ptr_array_index (images, i);

      if (ci->instance != NULL)
        hs_dataset_add_instance (ctx->dataset, g_steal_pointer (&ci->instance));
    }
  return TRUE;
}
