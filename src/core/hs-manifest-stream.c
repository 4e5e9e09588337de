/* hs-manifest-stream.c — incremental reading of heatscope.json:
 * HsManifestStream behind hs_dataset_open and hs_dataset_load_more
 *
 * The manifest stays mapped while its instances are read one element of the
 * "instances" array at a time: each is parsed into a small tree (the arena
 * is emptied after every batch), checked by the same hs_manifest_read_instance as the
 * whole-file reader, and appended.  The pages already read are handed back
 * (madvise), so neither a whole parse tree nor the whole text is resident.
 * Anything unusual before the first instances (no object, no "instances"
 * array, format or version missing before it, a problem in the first
 * instances, fewer instances than asked for) makes hs_dataset_open read the
 * file whole instead, which reports problems exactly as hs_dataset_load. */
#include "hs-manifest-private.h"
#include "hs-limits.h"
#include "hs-i18n-private.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct _HsManifestStream {
  GMappedFile     *mapped;
  HjParser         parser;     /* start..end: the whole text; p: where reading goes on */
  HsManifestReader reader;
  char            *manifest;
  GHashTable      *ids;        /* instance ids read so far (duplicates) */
  GHashTable      *keys;       /* top-level member names read so far (a set) */
  guint            next;       /* index of the next instance */
  gsize            released;   /* text before this offset was handed back */
  GError          *error;      /* the problem that stopped reading */
};
typedef struct _HsManifestStream HsManifestStream;

void
hs_manifest_stream_free (HsManifestStream *stream)
{
  if (stream == NULL)
    return;
  hj_parser_clear (&stream->parser);
  g_clear_pointer (&stream->parser.stack, g_ptr_array_unref);
  g_clear_pointer (&stream->mapped, g_mapped_file_unref);
  g_clear_pointer (&stream->ids, g_hash_table_unref);
  g_clear_pointer (&stream->keys, g_hash_table_unref);
  g_clear_error (&stream->reader.error);
  g_clear_error (&stream->error);
  g_free (stream->manifest);
  g_free (stream);
}

/* [from, to) must be UTF-8 without NUL, as the whole-file reader demands
 * of the whole text; `limit` (≥ to) lets a character cut at `to` finish. */
static gboolean
stream_check_utf8 (HsManifestStream *stream, const char *from, const char *to, const char *limit)
{
  const char *start = stream->parser.start;
  const char *invalid = NULL;
  gsize offset;

  if (g_utf8_validate (from, limit - from, &invalid) || invalid >= to)
    return TRUE;
  offset = (gsize) (invalid - start);
  hs_manifest_reader_problem (&stream->reader, NULL, NULL, HS_DATASET_ERROR_PARSE,
                              _("invalid UTF-8 (or a NUL byte) at byte %zu"
                              " (line %u)"), offset, hs_manifest_line_of_offset (start, offset));
  return FALSE;
}

/* A syntax error at parser->p (parser->error says what), unless the text
 * before it is not UTF-8: the whole-file reader reports that first. */
static gboolean
stream_json_problem (HsManifestStream *stream, const char *from)
{
  HjParser *parser = &stream->parser;
  const char *to = MIN (parser->p, parser->end);

  if (!stream_check_utf8 (stream, from, to, MIN (to + 4, parser->end)))
    return FALSE;
  hs_manifest_reader_problem (&stream->reader, NULL, NULL, HS_DATASET_ERROR_PARSE,
                              _("not valid JSON: %s"), parser->error);
  return FALSE;
}

typedef enum {
  STEP_INSTANCE,
  STEP_END,      /* the "instances" array is closed */
  STEP_ERROR,    /* stream->reader has the problem */
} StreamStep;

static StreamStep
stream_step (HsManifestStream *stream, HsDataset *dataset)
{
  HjParser *parser = &stream->parser;
  const char *begin = parser->p;
  HjNode *node;
  HsInstance *instance;
  PATH_KEY (instances_path, NULL, "instances");
  PATH_INDEX (instance_path, &instances_path, stream->next);

  hj_skip_space (parser);
  if (parser->p < parser->end && *parser->p == ']')
    {
      parser->p++;
      return stream_check_utf8 (stream, begin, parser->p, parser->p) ? STEP_END : STEP_ERROR;
    }
  if (stream->next > 0)
    {
      if (parser->p >= parser->end || *parser->p != ',')
        {
          hj_fail (parser, "expected ',' or ']'");
          stream_json_problem (stream, begin);
          return STEP_ERROR;
        }
      parser->p++;
    }
  node = hj_parse_value (parser, 2);
  if (node == NULL)
    {
      stream_json_problem (stream, begin);
      return STEP_ERROR;
    }
  if (!stream_check_utf8 (stream, begin, parser->p, parser->p))
    return STEP_ERROR;
  instance = hs_manifest_read_instance (&stream->reader, node, &instance_path, stream->ids);
  if (instance == NULL)
    {
      if (stream->reader.error == NULL)
        hs_manifest_reader_problem (&stream->reader, NULL, &instance_path, HS_DATASET_ERROR_INVALID,
                                    _("not a valid instance"));
      return STEP_ERROR;
    }
  hs_dataset_add_instance (dataset, instance);
  stream->next++;
  return STEP_INSTANCE;
}

/* Reads one member "key": value of the top-level object; FALSE at a syntax
 * error (parser->error set) or a duplicate name. */
static gboolean
stream_member (HsManifestStream *stream, const char **key_out, HjNode **value_out,
               gboolean value)
{
  HjParser *parser = &stream->parser;
  const char *key;

  hj_skip_space (parser);
  if (parser->p >= parser->end || *parser->p != '"')
    return hj_fail (parser, "expected a member name in double quotes");
  parser->p++;
  key = hj_parse_string (parser);
  if (key == NULL)
    return FALSE;
  if (!g_hash_table_add (stream->keys, g_strdup (key)))
    {
      g_autofree char *message = g_strdup_printf ("duplicate member \"%s\"", key);
      return hj_fail (parser, message);
    }
  hj_skip_space (parser);
  if (parser->p >= parser->end || *parser->p != ':')
    return hj_fail (parser, "expected ':' after a member name");
  parser->p++;
  *key_out = key;
  if (value)
    {
      *value_out = hj_parse_value (parser, 2);
      if (*value_out == NULL)
        return FALSE;
    }
  return TRUE;
}

/* After the "instances" array: the rest of the top-level object. */
static gboolean
stream_finish (HsManifestStream *stream, HsDataset *dataset)
{
  HjParser *parser = &stream->parser;
  const char *begin = parser->p;
  g_autoptr(GArray) members = g_array_new (FALSE, FALSE, sizeof (HjMember));

  for (;;)
    {
      HjMember member;

      hj_skip_space (parser);
      if (parser->p < parser->end && *parser->p == '}')
        {
          parser->p++;
          break;
        }
      if (parser->p >= parser->end || *parser->p != ',')
        {
          hj_fail (parser, "expected ',' or '}'");
          return stream_json_problem (stream, begin);
        }
      parser->p++;
      if (!stream_member (stream, &member.key, &member.value, TRUE))
        return stream_json_problem (stream, begin);
      g_array_append_val (members, member);
    }
  hj_skip_space (parser);
  if (parser->p < parser->end)
    {
      hj_fail (parser, "unexpected text after the top-level value");
      return stream_json_problem (stream, begin);
    }
  if (!stream_check_utf8 (stream, begin, parser->end, parser->end))
    return FALSE;
  if (members->len > 0)
    {
      HjNode object = { HJ_OBJECT, members->len, { .members = (HjMember *) members->data } };

      hs_manifest_read_top_fields (&stream->reader, &object, FALSE);
    }
  return !stream->reader.stop;
}

/* The top level up to "[" of "instances", then `n_first` instances.  FALSE
 * when the manifest is not laid out so (hs_dataset_open reads it whole). */
static gboolean
stream_begin (HsManifestStream *stream, HsDataset *dataset, guint n_first)
{
  HjParser *parser = &stream->parser;
  guint64 limit = hs_limits_get ()->max_manifest_bytes;
  g_autoptr(GArray) members = g_array_new (FALSE, FALSE, sizeof (HjMember));
  GStatBuf st;
  const char *data;
  gsize len;

  if (g_stat (stream->manifest, &st) != 0 || !S_ISREG (st.st_mode) || (guint64) st.st_size > limit)
    return FALSE;
  stream->mapped = g_mapped_file_new (stream->manifest, FALSE, NULL);
  if (stream->mapped == NULL)
    return FALSE;
  data = g_mapped_file_get_contents (stream->mapped);
  len = g_mapped_file_get_length (stream->mapped);
  if (data == NULL || (guint64) len > limit)
    return FALSE;

  parser->start = parser->p = data;
  parser->end = data + len;
  parser->stack = g_ptr_array_new ();
  stream->keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  hj_skip_space (parser);
  if (parser->p >= parser->end || *parser->p != '{')
    return FALSE;
  parser->p++;
  for (;;)
    {
      HjMember member;

      hj_skip_space (parser);
      if (members->len > 0)
        {
          if (parser->p >= parser->end || *parser->p != ',')
            return FALSE;
          parser->p++;
        }
      if (!stream_member (stream, &member.key, &member.value, FALSE))
        return FALSE;
      if (strcmp (member.key, "instances") == 0)
        break;
      member.value = hj_parse_value (parser, 2);
      if (member.value == NULL)
        return FALSE;
      g_array_append_val (members, member);
    }
  hj_skip_space (parser);
  if (parser->p >= parser->end || *parser->p != '[')
    return FALSE;
  parser->p++;
  if (!g_utf8_validate (data, parser->p - data, NULL))
    return FALSE;

  {
    HjNode object = { HJ_OBJECT, members->len, { .members = (HjMember *) members->data } };

    if (hj_member (&object, "format") == NULL || hj_member (&object, "version") == NULL)
      return FALSE;
    hs_manifest_read_top_fields (&stream->reader, &object, TRUE);
    if (stream->reader.stop)
      return FALSE;
  }

  stream->ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n_first; i++)
    if (stream_step (stream, dataset) != STEP_INSTANCE)
      return FALSE;
  hj_arena_clear (&parser->arena);
  return TRUE;
}

HsDataset *
hs_dataset_open (const char *path, guint n_first, GError **error)
{
  g_autofree char *root = NULL;
  g_autofree char *manifest = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  HsManifestStream *stream;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!hs_manifest_locate (path, &root, &manifest, error))
    return NULL;

  dataset = hs_dataset_new_internal (root, manifest);
  stream = g_new0 (HsManifestStream, 1);
  stream->manifest = g_strdup (manifest);
  stream->reader.manifest = stream->manifest;
  stream->reader.dataset = dataset;
  if (!stream_begin (stream, dataset, MAX (n_first, 1)))
    {
      hs_manifest_stream_free (stream);
      g_clear_pointer (&dataset, hs_dataset_unref);
      return hs_manifest_load_whole (root, manifest, error);
    }
  dataset->stream = stream;
  g_atomic_int_set (&dataset->complete, FALSE);
  return g_steal_pointer (&dataset);
}

gboolean
hs_dataset_load_more (HsDataset *dataset, guint max_instances, GError **error)
{
  HsManifestStream *stream;
  gboolean complete = FALSE;

  g_return_val_if_fail (dataset != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_atomic_int_get (&dataset->complete))
    return TRUE;
  stream = dataset->stream;
  g_return_val_if_fail (stream != NULL, FALSE);
  if (stream->error == NULL)
    {
      for (guint i = 0; i < max_instances; i++)
        {
          StreamStep step = stream_step (stream, dataset);

          if (step == STEP_INSTANCE)
            continue;
          if (step == STEP_END && stream_finish (stream, dataset))
            complete = TRUE;
          break;
        }
      hj_arena_clear (&stream->parser.arena);
      if (stream->reader.stop)
        {
          stream->error = g_steal_pointer (&stream->reader.error);
          if (stream->error == NULL)
            stream->error = g_error_new (HS_DATASET_ERROR, HS_DATASET_ERROR_PARSE,
                                         _("%s: could not be read"), stream->manifest);
          g_clear_pointer (&stream->mapped, g_mapped_file_unref);
          g_clear_pointer (&stream->ids, g_hash_table_unref);
        }
    }
  if (stream->error != NULL)
    {
      g_propagate_error (error, g_error_copy (stream->error));
      return FALSE;
    }
  if (complete)
    {
      dataset->stream = NULL;
      hs_manifest_stream_free (stream);
      hs_manifest_trim_after_load (dataset);
      g_atomic_int_set (&dataset->complete, TRUE);
      return TRUE;
    }
  {
    /* Hand back the text already read (it is read again only to find the
     * line of a later syntax error). */
    gsize page = (gsize) sysconf (_SC_PAGESIZE);
    gsize done = (gsize) (stream->parser.p - stream->parser.start) & ~(page - 1);

    if (done > stream->released)
      {
        madvise ((char *) stream->parser.start + stream->released, done - stream->released,
                 MADV_DONTNEED);
        stream->released = done;
      }
  }
  return TRUE;
}
