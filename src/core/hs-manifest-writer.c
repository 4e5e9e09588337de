/* hs-manifest-writer.c — writing heatscope.json: hs_dataset_to_json and
 * hs_dataset_save.  Pretty-printed, members in a fixed order, so equal
 * datasets give equal bytes; saved through the atomic writer. */
#include "hs-manifest-private.h"
#include "hs-atomic-file.h"
#include "hs-i18n-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static void
indent (GString *out, guint level)
{
  for (guint i = 0; i < level; i++)
    g_string_append (out, "  ");
}

/* Shortest decimal that reads back as the same double; integers without a
 * fraction. */
static void
append_number (GString *out, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (value == floor (value) && fabs (value) < 9007199254740992.0)
    {
      g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) value);
      return;
    }
  /* 15 digits print 0.1 as "0.1"; 17 always read back exactly. */
  g_ascii_formatd (buffer, sizeof buffer, "%.15g", value);
  if (g_ascii_strtod (buffer, NULL) != value)
    {
      g_ascii_formatd (buffer, sizeof buffer, "%.16g", value);
      if (g_ascii_strtod (buffer, NULL) != value)
        g_ascii_formatd (buffer, sizeof buffer, "%.17g", value);
    }
  g_string_append (out, buffer);
}

static void
append_key (GString *out, guint level, const char *key)
{
  indent (out, level);
  hj_append_quoted (out, key);
  g_string_append (out, ": ");
}

/* Members are written by hand in a fixed order: each call appends ",\n"
 * before all but the first member of an object. */
typedef struct {
  GString *out;
  guint    level;
  gboolean first;
  gboolean one_line;   /* small objects (labels, regions, maps) stay on one line */
} Writer;

static void
member (Writer *w, const char *key)
{
  if (w->one_line)
    {
      if (!w->first)
        g_string_append (w->out, ", ");
      hj_append_quoted (w->out, key);
      g_string_append (w->out, ": ");
    }
  else
    {
      if (!w->first)
        g_string_append (w->out, ",\n");
      append_key (w->out, w->level, key);
    }
  w->first = FALSE;
}

static void
member_string (Writer *w, const char *key, const char *value)
{
  member (w, key);
  hj_append_quoted (w->out, value);
}

static void
append_inline_strings (GString *out, char **strv)
{
  g_string_append_c (out, '[');
  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      hj_append_quoted (out, strv[i]);
    }
  g_string_append_c (out, ']');
}

static void
open_object (Writer *w, Writer *child, gboolean one_line)
{
  g_string_append (w->out, one_line ? "{" : "{\n");
  *child = (Writer) { w->out, w->level + 1, TRUE, one_line };
}

static void
close_object (Writer *child)
{
  if (child->one_line)
    {
      g_string_append_c (child->out, '}');
      return;
    }
  g_string_append_c (child->out, '\n');
  indent (child->out, child->level - 1);
  g_string_append_c (child->out, '}');
}

/* A file's record beside its path: "<name>_bytes", "<name>_sha256". */
static void
member_record (Writer *w, const char *bytes_key, const char *sha256_key, const HsFileRecord *record)
{
  char hex[65];

  if (record == NULL)
    return;
  member (w, bytes_key);
  g_string_append_printf (w->out, "%" G_GUINT64_FORMAT, record->bytes);
  hs_file_record_sha256_to_hex (record, hex);
  member_string (w, sha256_key, hex);
}

/* The members of a manifest object that are its fields, in order: a
 * string (`fallback` when the field is NULL, left out when `fallback` is
 * NULL too) or a string list written on one line. */
typedef struct {
  const char *key;
  gsize       offset;
  const char *fallback;
  gboolean    strv;
} Field;

/* A kind of object: its fields, then the members `rest` writes (or none). */
typedef struct {
  const Field *fields;
  guint        n_fields;
  gboolean     one_line;
  void       (*rest) (Writer *o, gconstpointer item);
} ObjectSpec;

static void
write_object (Writer *w, gconstpointer item, const ObjectSpec *spec)
{
  Writer o;

  open_object (w, &o, spec->one_line);
  for (guint i = 0; i < spec->n_fields; i++)
    {
      const Field *f = &spec->fields[i];
      gconstpointer field = (const guint8 *) item + f->offset;

      if (f->strv)
        {
          member (&o, f->key);
          append_inline_strings (o.out, *(char ** const *) field);
        }
      else if (*(char * const *) field != NULL || f->fallback != NULL)
        member_string (&o, f->key, *(char * const *) field ? *(char * const *) field : f->fallback);
    }
  if (spec->rest != NULL)
    spec->rest (&o, item);
  close_object (&o);
}

static void
write_array_of (Writer *w, const char *key, GPtrArray *items, const ObjectSpec *spec)
{
  member (w, key);
  if (items->len == 0)
    {
      g_string_append (w->out, "[]");
      return;
    }
  g_string_append (w->out, "[\n");
  for (guint i = 0; i < items->len; i++)
    {
      Writer item = { w->out, w->level + 1, TRUE, FALSE };

      indent (w->out, w->level + 1);
      write_object (&item, g_ptr_array_index (items, i), spec);
      g_string_append (w->out, i + 1 < items->len ? ",\n" : "\n");
    }
  indent (w->out, w->level);
  g_string_append_c (w->out, ']');
}

static const Field label_fields[] = {
  { "condition", G_STRUCT_OFFSET (HsLabel, condition), "" },
  { "context", G_STRUCT_OFFSET (HsLabel, context), "positive" },
  { "locations", G_STRUCT_OFFSET (HsLabel, locations), NULL, TRUE },
};
static const ObjectSpec label_spec = { label_fields, G_N_ELEMENTS (label_fields), TRUE, NULL };

/* [x1, y1, x2, y2] */
static void
append_box (GString *out, const HsBox *box)
{
  const double v[4] = { box->x1, box->y1, box->x2, box->y2 };

  for (guint i = 0; i < 4; i++)
    {
      g_string_append (out, i == 0 ? "[" : ", ");
      append_number (out, v[i]);
    }
  g_string_append_c (out, ']');
}

static void
write_region (Writer *w, const HsRegion *region)
{
  Writer o;

  open_object (w, &o, TRUE);
  if (region->boxes != NULL && region->boxes->len > 0)
    {
      member (&o, "boxes");
      g_string_append_c (o.out, '[');
      for (guint i = 0; i < region->boxes->len; i++)
        {
          const HsBox *box = &g_array_index (region->boxes, HsBox, i);

          if (i > 0)
            g_string_append (o.out, ", ");
          append_box (o.out, box);
        }
      g_string_append_c (o.out, ']');
    }
  if (region->mask != NULL)
    {
      member_string (&o, "mask", region->mask);
      member_record (&o, "mask_bytes", "mask_sha256", region->mask_record);
    }
  if (region->mask != NULL && region->has_extent)
    {
      member (&o, "extent");
      append_box (o.out, &region->extent);
    }
  close_object (&o);
}

static const Field sentence_fields[] = {
  { "id", G_STRUCT_OFFSET (HsSentence, id), "" },
  { "text", G_STRUCT_OFFSET (HsSentence, text), "" },
  { "kind", G_STRUCT_OFFSET (HsSentence, kind), "report" },
  { "targets", G_STRUCT_OFFSET (HsSentence, targets), NULL, TRUE },
};

static void
sentence_rest (Writer *o, gconstpointer item)
{
  const HsSentence *sentence = item;

  if (sentence->labels != NULL && sentence->labels->len > 0)
    write_array_of (o, "labels", sentence->labels, &label_spec);
}

static const ObjectSpec sentence_spec = {
  sentence_fields, G_N_ELEMENTS (sentence_fields), FALSE, sentence_rest
};

static const Field map_fields[] = {
  { "model", G_STRUCT_OFFSET (HsMapRef, model), "" },
  { "query", G_STRUCT_OFFSET (HsMapRef, query), NULL },
  { "prompt", G_STRUCT_OFFSET (HsMapRef, prompt), NULL },
  { "file", G_STRUCT_OFFSET (HsMapRef, file), "" },
};

static void
map_rest (Writer *o, gconstpointer item)
{
  const HsMapRef *ref = item;

  member_record (o, "file_bytes", "file_sha256", ref->file_record);
  if (ref->tokens != NULL)
    {
      member (o, "tokens");
      append_inline_strings (o->out, ref->tokens);
    }
  if (isfinite (ref->no_attn))
    {
      member (o, "no_attn");
      append_number (o->out, ref->no_attn);
    }
  if (ref->quantity != NULL)
    member_string (o, "quantity", ref->quantity);
  if (ref->n_tags > 0)
    {
      member (o, "tag_attention");
      g_string_append_c (o->out, '[');
      for (guint i = 0; i < ref->n_tags; i++)
        {
          g_string_append (o->out, i > 0 ? ", {\"tag\": " : "{\"tag\": ");
          hj_append_quoted (o->out, ref->tags[i].tag);
          g_string_append (o->out, ", \"weight\": ");
          append_number (o->out, ref->tags[i].weight);
          g_string_append_c (o->out, '}');
        }
      g_string_append_c (o->out, ']');
    }
}

static const ObjectSpec map_spec = { map_fields, G_N_ELEMENTS (map_fields), TRUE, map_rest };

static int
compare_keys (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

static GPtrArray *
sorted_keys (GHashTable *table)
{
  GPtrArray *keys = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, compare_keys);
  return keys;
}

static const Field instance_fields[] = {
  { "id", G_STRUCT_OFFSET (HsInstance, id), "" },
  { "image", G_STRUCT_OFFSET (HsInstance, image), "" },
};

static void
instance_rest (Writer *o, gconstpointer item)
{
  const HsInstance *instance = item;

  member_record (o, "image_bytes", "image_sha256", instance->image_record);
  if (instance->width > 0 && instance->height > 0)
    {
      member (o, "width");
      g_string_append_printf (o->out, "%u", instance->width);
      member (o, "height");
      g_string_append_printf (o->out, "%u", instance->height);
    }
  if (instance->metadata != NULL && g_hash_table_size (instance->metadata) > 0)
    {
      g_autoptr(GPtrArray) keys = sorted_keys (instance->metadata);
      Writer m;

      member (o, "metadata");
      open_object (o, &m, FALSE);
      for (guint i = 0; i < keys->len; i++)
        {
          const char *key = g_ptr_array_index (keys, i);
          member_string (&m, key, g_hash_table_lookup (instance->metadata, key));
        }
      close_object (&m);
    }
  member (o, "abnormal");
  g_string_append (o->out, instance->abnormal ? "true" : "false");
  /* Only when true: a manifest of real images stays as it was. */
  if (instance->phantom)
    {
      member (o, "phantom");
      g_string_append (o->out, "true");
    }
  write_array_of (o, "findings", instance->findings, &label_spec);

  member (o, "regions");
  if (instance->regions->len == 0)
    g_string_append (o->out, "{}");
  else
    {
      Writer r;

      open_object (o, &r, FALSE);
      for (guint i = 0; i < instance->regions->len; i++)
        {
          const HsRegion *region = g_ptr_array_index (instance->regions, i);

          member (&r, region->name ? region->name : "");
          write_region (&r, region);
        }
      close_object (&r);
    }
  write_array_of (o, "sentences", instance->sentences, &sentence_spec);
  write_array_of (o, "maps", instance->maps, &map_spec);
}

static const ObjectSpec instance_spec = {
  instance_fields, G_N_ELEMENTS (instance_fields), FALSE, instance_rest
};

/* The manifest text: pretty-printed, members in a fixed order, metadata and
 * models sorted by key, so equal datasets give equal bytes. */
static char *
dataset_to_json (HsDataset *dataset, gsize *len)
{
  guint n = hs_dataset_get_n_instances (dataset);
  GString *out = g_string_sized_new (4096 + 2048 * (gsize) n);
  g_autoptr(GPtrArray) instances = g_ptr_array_sized_new (n);
  Writer top = { out, 0, TRUE, FALSE };
  Writer o;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (instances, hs_dataset_get_instance (dataset, i));

  open_object (&top, &o, FALSE);
  member_string (&o, "format", HS_MANIFEST_FORMAT_NAME);
  member (&o, "version");
  g_string_append_printf (out, "%d", HS_DATASET_FORMAT_VERSION);
  if (dataset->name != NULL)
    member_string (&o, "name", dataset->name);
  if (dataset->description != NULL)
    member_string (&o, "description", dataset->description);
  if (g_hash_table_size (dataset->models) > 0 || g_hash_table_size (dataset->model_computed_by) > 0)
    {
      g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr(GPtrArray) keys = NULL;
      GHashTableIter iter;
      gpointer name;
      Writer m;

      /* A model may have a description, a computed_by record or both. */
      g_hash_table_iter_init (&iter, dataset->models);
      while (g_hash_table_iter_next (&iter, &name, NULL))
        g_hash_table_add (names, name);
      g_hash_table_iter_init (&iter, dataset->model_computed_by);
      while (g_hash_table_iter_next (&iter, &name, NULL))
        g_hash_table_add (names, name);
      keys = sorted_keys (names);

      member (&o, "models");
      open_object (&o, &m, FALSE);
      for (guint i = 0; i < keys->len; i++)
        {
          const char *key = g_ptr_array_index (keys, i);
          const char *description = g_hash_table_lookup (dataset->models, key);
          const char *computed_by = g_hash_table_lookup (dataset->model_computed_by, key);
          Writer d;

          member (&m, key);
          open_object (&m, &d, FALSE);
          if (description != NULL)
            member_string (&d, "description", description);
          if (computed_by != NULL)
            member_string (&d, "computed_by", computed_by);
          if (d.first)
            {
              g_string_truncate (out, out->len - 1);  /* "{\n" → "{}" */
              g_string_append_c (out, '}');
            }
          else
            close_object (&d);
        }
      close_object (&m);
    }
  write_array_of (&o, "instances", instances, &instance_spec);
  close_object (&o);
  g_string_append_c (out, '\n');
  *len = out->len;
  return g_string_free (out, FALSE);
}

char *
hs_dataset_to_json (HsDataset *dataset, gsize *length)
{
  gsize len = 0;
  char *text;

  g_return_val_if_fail (dataset != NULL, NULL);
  text = dataset_to_json (dataset, &len);
  if (length != NULL)
    *length = len;
  return text;
}

/* hs_dataset_save without the lock (hs-dataset-writer.c takes it). */
gboolean
hs_dataset_write_manifest (HsDataset *dataset, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize len = 0;

  g_return_val_if_fail (dataset != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_mkdir_with_parents (dataset->root, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO,
                   _("%s: cannot create the dataset folder: %s"), dataset->root, g_strerror (saved));
      return FALSE;
    }
  /* What the files are now, for validate to compare with later. */
  hs_dataset_record_files (dataset);
  text = dataset_to_json (dataset, &len);
  if (!hs_atomic_write (dataset->manifest_path, text, len, &local_error))
    {
      g_set_error (error, HS_DATASET_ERROR, HS_DATASET_ERROR_IO, _("%s: cannot write the manifest: %s"),
                   dataset->manifest_path, local_error->message);
      return FALSE;
    }
  hs_dataset_note_manifest (dataset);
  return TRUE;
}
