/* hs-deck.c — the .hsdeck file (hs-deck.h): read as hostile input with the
 * manifest's strict reader and the figure spec's typed members
 * (hs-json-fields), written with the atomic writer.  Only the deck itself
 * is checked here; its dataset is hs-deck-check.c's. */
#include "hs-deck.h"
#include "hs-atomic-file.h"
#include "hs-attention-map.h"
#include "hs-metric-info.h"
#include "hs-model.h"
#include "hs-safe-open.h"
#include "hs-i18n-private.h"
#include "hs-json-fields-private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

G_DEFINE_QUARK (hs-deck-error-quark, hs_deck_error)

static const char * const view_names[] = { "single", "compare", "blink", "grid", NULL };

const char *
hs_deck_view_to_string (HsDeckView view)
{
  return (guint) view < G_N_ELEMENTS (view_names) - 1 ? view_names[view] : "single";
}

gboolean
hs_deck_view_from_string (const char *name, HsDeckView *view)
{
  for (guint i = 0; name && view_names[i]; i++)
    if (g_str_equal (name, view_names[i]))
      {
        *view = (HsDeckView) i;
        return TRUE;
      }
  return FALSE;
}

/* --- cases and decks ------------------------------------------------------ */

static void
deck_model_free (HsDeckModel *model)
{
  if (model == NULL)
    return;
  g_free (model->name);
  g_free (model);
}

HsDeckCase *
hs_deck_case_new (const char *instance)
{
  HsDeckCase *item = g_new0 (HsDeckCase, 1);

  item->instance = g_strdup (instance);
  item->models = g_ptr_array_new_with_free_func ((GDestroyNotify) deck_model_free);
  item->view = HS_DECK_VIEW_SINGLE;
  hs_overlay_options_init (&item->overlay);
  item->outline = HS_OUTLINE_NONE;
  item->outline_top_k = 10.0;
  item->window_center = -1.0;
  item->window_width = -1.0;
  item->zoom = 1.0;
  item->center_x = item->center_y = 0.5;
  item->show_overlay = item->show_boxes = item->show_masks = TRUE;
  return item;
}

void
hs_deck_case_add_model (HsDeckCase *item, const char *name, gboolean live)
{
  HsDeckModel *model = g_new0 (HsDeckModel, 1);

  model->name = g_strdup (name);
  model->live = live;
  g_ptr_array_add (item->models, model);
}

HsDeckCase *
hs_deck_case_copy (const HsDeckCase *item)
{
  HsDeckCase *copy = g_new (HsDeckCase, 1);

  *copy = *item;
  copy->instance = g_strdup (item->instance);
  copy->sentence_text = g_strdup (item->sentence_text);
  copy->prompt = g_strdup (item->prompt);
  copy->note = g_strdup (item->note);
  copy->map_sha256 = g_strdup (item->map_sha256);
  copy->maps_sha256 = g_strdupv (item->maps_sha256);
  copy->metrics = g_strdupv (item->metrics);
  copy->embedded_maps = g_strdupv (item->embedded_maps);
  copy->models = g_ptr_array_new_with_free_func ((GDestroyNotify) deck_model_free);
  for (guint i = 0; i < item->models->len; i++)
    {
      const HsDeckModel *model = g_ptr_array_index (item->models, i);
      hs_deck_case_add_model (copy, model->name, model->live);
    }
  return copy;
}

void
hs_deck_case_free (HsDeckCase *item)
{
  if (item == NULL)
    return;
  g_free (item->instance);
  g_free (item->sentence_text);
  g_free (item->prompt);
  g_free (item->note);
  g_free (item->map_sha256);
  g_strfreev (item->maps_sha256);
  g_strfreev (item->metrics);
  g_strfreev (item->embedded_maps);
  g_clear_pointer (&item->models, g_ptr_array_unref);
  g_free (item);
}

gboolean
hs_deck_case_is_live (const HsDeckCase *item)
{
  for (guint i = 0; i < item->models->len; i++)
    if (((const HsDeckModel *) g_ptr_array_index (item->models, i))->live)
      return TRUE;
  return FALSE;
}

const char *
hs_deck_case_get_text (const HsDeckCase *item)
{
  return item->prompt ? item->prompt : item->sentence_text;
}

HsDeck *
hs_deck_new (const char *dataset)
{
  HsDeck *deck = g_new0 (HsDeck, 1);

  deck->dataset = g_strdup (dataset ? dataset : ".");
  deck->cases = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_deck_case_free);
  return deck;
}

void
hs_deck_free (HsDeck *deck)
{
  if (deck == NULL)
    return;
  g_free (deck->dataset);
  g_free (deck->manifest_sha256);
  g_clear_pointer (&deck->cases, g_ptr_array_unref);
  g_free (deck);
}

/* --- paths ---------------------------------------------------------------- */

gboolean
hs_deck_path_is_plain (const char *relative)
{
  g_auto(GStrv) parts = NULL;

  if (relative == NULL || *relative == '\0' || g_path_is_absolute (relative))
    return FALSE;
  if (g_str_equal (relative, "."))
    return TRUE;
  parts = g_strsplit (relative, "/", -1);
  for (guint i = 0; parts[i]; i++)
    if (*parts[i] == '\0' || g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
      return FALSE;
  return TRUE;
}

int
hs_deck_open_beneath (const char *deck_path, const char *relative, const char *file_in_it,
                      GError **error)
{
  g_autofree char *folder = g_path_get_dirname (deck_path);
  g_autofree char *inner = NULL;
  g_autoptr(GError) local = NULL;
  int fd;

  if (!hs_deck_path_is_plain (relative))
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID,
                   _("%s: the path \"%s\" leaves the deck's folder (absolute, \"..\" or empty parts)"),
                   deck_path, relative ? relative : "");
      return -1;
    }
  inner = g_str_equal (relative, ".") ? g_strdup (file_in_it)
                                      : g_build_filename (relative, file_in_it, NULL);
  fd = hs_safe_open_under (folder, inner, inner, &local);
  if (fd < 0)
    {
      if (g_error_matches (local, HS_SAFE_OPEN_ERROR, HS_SAFE_OPEN_ERROR_ESCAPE))
        g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID,
                     _("%s: the path \"%s\" leads out of the deck's folder through a symlink"),
                     deck_path, relative);
      else
        g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED, "%s: %s", deck_path,
                     local->message);
    }
  return fd;
}

/* --- hashes --------------------------------------------------------------- */

static void
checksum_u32 (GChecksum *sum, guint32 v)
{
  guint8 b[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff };
  g_checksum_update (sum, b, 4);
}

char *
hs_deck_hash_maps (HsAttentionMap * const *maps, guint n_maps)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  char *hex;

  for (guint m = 0; m < n_maps; m++)
    {
      guint w = hs_attention_map_get_width (maps[m]), h = hs_attention_map_get_height (maps[m]);
      const double *values = hs_attention_map_peek_values (maps[m]);

      checksum_u32 (sum, h);
      checksum_u32 (sum, w);
      for (gsize i = 0; i < (gsize) w * h; i++)
        {
          guint64 bits;
          guint8 b[8];

          memcpy (&bits, &values[i], 8);
          for (guint k = 0; k < 8; k++)
            b[k] = (bits >> (8 * k)) & 0xff;
          g_checksum_update (sum, b, 8);
        }
    }
  hex = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return hex;
}

char **
hs_deck_hash_each (HsAttentionMap * const *maps, guint n_maps)
{
  char **hexes = g_new0 (char *, n_maps + 1);

  for (guint m = 0; m < n_maps; m++)
    hexes[m] = hs_deck_hash_maps (&maps[m], 1);
  return hexes;
}

char *
hs_deck_hash_fd (int fd, const char *display, GError **error)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 buffer[65536];
  char *hex;

  for (;;)
    {
      ssize_t n = read (fd, buffer, sizeof buffer);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_checksum_free (sum);
          g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_IO, _("%s: cannot read: %s"), display,
                       g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      g_checksum_update (sum, buffer, (gssize) n);
    }
  hex = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return hex;
}

/* --- reading -------------------------------------------------------------- */

typedef HsJsonFields Reader;

static const char * const top_members[] = {
  "format", "version", "dataset", "manifest_sha256", "cases", NULL };
static const char * const case_members[] = {
  "instance", "sentence", "sentence_text", "prompt", "swap", "models", "view", "overlay",
  "viewport", "layers", "note", "reveal", "metrics", "map_sha256", "maps_sha256", "maps", NULL };
static const char * const model_members[] = { "name", "live", NULL };
static const char * const overlay_members[] = {
  "colormap", "scale", "strength_curve", "strength", "threshold", "threshold_band", "upsample",
  "opacity", "outline", "outline_top_k", "window_center", "window_width", NULL };
static const char * const scale_members[] = {
  "mode", "min", "max", "percentile_low", "percentile_high", "symmetric", NULL };
static const char * const viewport_members[] = { "zoom", "center_x", "center_y", NULL };
static const char * const layers_members[] = { "overlay", "boxes", "masks", NULL };

/* No control characters (C0, DEL, C1); a note may hold newlines and tabs. */
static gboolean
check_controls (Reader *r, const HsJsonPath *path, const char *text, gboolean multiline)
{
  for (const char *p = text; p && *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (multiline && (c == '\n' || c == '\t'))
        continue;
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
        return hs_json_fields_fail (r, path, _("control character U+%04X"), (guint) c);
    }
  return TRUE;
}

/* A text member without control characters; `required` refuses absent or
 * empty. */
static gboolean
get_clean_text (Reader *r, HjNode *object, const HsJsonPath *parent, const char *key,
                gboolean multiline, gboolean required, char **out)
{
  PATH_KEY (path, parent, key);

  if (!hs_json_fields_get_text (r, object, parent, key, out))
    return FALSE;
  if (required && (*out == NULL || **out == '\0'))
    return hs_json_fields_fail (r, parent, _("missing required member \"%s\""), key);
  return check_controls (r, &path, *out, multiline);
}

static gboolean
is_sha256 (const char *hex)
{
  if (hex == NULL || strlen (hex) != 64)
    return FALSE;
  for (const char *p = hex; *p; p++)
    if (!g_ascii_isxdigit (*p) || g_ascii_isupper (*p))
      return FALSE;
  return TRUE;
}

static gboolean
get_sha256 (Reader *r, HjNode *object, const HsJsonPath *parent, const char *key, char **out)
{
  PATH_KEY (path, parent, key);

  if (!hs_json_fields_get_text (r, object, parent, key, out))
    return FALSE;
  if (*out != NULL && !is_sha256 (*out))
    return hs_json_fields_fail (r, &path, _("expected 64 lower-case hexadecimal digits"));
  return TRUE;
}

/* An object member (absent: NULL, not a failure). */
static HjNode *
get_object (Reader *r, HjNode *object, const HsJsonPath *parent, const char *key,
            const char * const *known)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);

  if (node == NULL)
    return NULL;
  if (node->type != HJ_OBJECT)
    {
      hs_json_fields_fail (r, &path, _("expected an object"));
      return NULL;
    }
  if (!hs_json_fields_check_members (r, node, &path, known))
    return NULL;
  return node;
}

/* A boolean member into a gboolean (absent: unchanged). */
static gboolean
get_flag (Reader *r, HjNode *object, const HsJsonPath *parent, const char *key, gboolean *out)
{
  int v = *out ? 1 : 0;

  if (!hs_json_fields_get_bool (r, object, parent, key, &v))
    return FALSE;
  *out = v != 0;
  return TRUE;
}

/* A member holding one of the names `parse` accepts. */
static gboolean
get_choice (Reader *r, HjNode *object, const HsJsonPath *parent, const char *key,
            gboolean (*parse) (const char *, int *), int *out)
{
  g_autofree char *name = NULL;
  PATH_KEY (path, parent, key);

  if (!hs_json_fields_get_text (r, object, parent, key, &name))
    return FALSE;
  if (name != NULL && !parse (name, out))
    return hs_json_fields_fail (r, &path, _("unknown value \"%s\""), name);
  return TRUE;
}

/* get_choice's parsers, one per enum, each through the enum's own
 * from_string (no casts of function pointers between enum types). */
#define CHOICE_PARSER(fn, Type, from_string)            \
  static gboolean                                       \
  fn (const char *name, int *out)                       \
  {                                                     \
    Type v;                                             \
    if (!from_string (name, &v))                        \
      return FALSE;                                     \
    *out = (int) v;                                     \
    return TRUE;                                        \
  }

CHOICE_PARSER (parse_colormap, HsColormap, hs_colormap_from_string)
CHOICE_PARSER (parse_strength, HsStrength, hs_strength_from_string)
CHOICE_PARSER (parse_upsample, HsUpsample, hs_upsample_from_string)
CHOICE_PARSER (parse_outline, HsOutline, hs_outline_from_string)
CHOICE_PARSER (parse_scale_mode, HsScaleMode, hs_scale_mode_from_string)
CHOICE_PARSER (parse_view, HsDeckView, hs_deck_view_from_string)

static gboolean
read_scale (Reader *r, HjNode *overlay, const HsJsonPath *parent, HsScaleSpec *scale)
{
  PATH_KEY (path, parent, "scale");
  HjNode *node = get_object (r, overlay, parent, "scale", scale_members);
  int mode = (int) scale->mode;

  if (node == NULL)
    return !r->failed;
  if (!get_choice (r, node, &path, "mode", parse_scale_mode, &mode)
      || !hs_json_fields_get_number (r, node, &path, "min", -1e300, 1e300, &scale->lo)
      || !hs_json_fields_get_number (r, node, &path, "max", -1e300, 1e300, &scale->hi)
      || !hs_json_fields_get_number (r, node, &path, "percentile_low", 0, 100, &scale->p_lo)
      || !hs_json_fields_get_number (r, node, &path, "percentile_high", 0, 100, &scale->p_hi)
      || !get_flag (r, node, &path, "symmetric", &scale->symmetric))
    return FALSE;
  scale->mode = (HsScaleMode) mode;
  if ((scale->mode == HS_SCALE_FIXED || scale->mode == HS_SCALE_SHARED) && !(scale->lo < scale->hi))
    return hs_json_fields_fail (r, &path, _("\"min\" must be below \"max\""));
  if (scale->mode == HS_SCALE_PERCENTILE && !(scale->p_lo < scale->p_hi))
    return hs_json_fields_fail (r, &path,
                                _("\"percentile_low\" must be below \"percentile_high\""));
  return TRUE;
}

static gboolean
read_overlay (Reader *r, HjNode *object, const HsJsonPath *parent, HsDeckCase *item)
{
  PATH_KEY (path, parent, "overlay");
  HjNode *node = get_object (r, object, parent, "overlay", overlay_members);
  HsOverlayOptions *o = &item->overlay;
  int colormap = (int) o->colormap, strength = (int) o->strength;
  int upsample = (int) o->upsample, outline = (int) item->outline;

  if (node == NULL)
    return !r->failed;
  if (!get_choice (r, node, &path, "colormap", parse_colormap, &colormap)
      || !read_scale (r, node, &path, &o->scale)
      || !get_choice (r, node, &path, "strength_curve", parse_strength, &strength)
      || !hs_json_fields_get_number (r, node, &path, "strength", 0.01, 1000, &o->strength_param)
      || !hs_json_fields_get_number (r, node, &path, "threshold", 0, 1, &o->threshold)
      || !hs_json_fields_get_number (r, node, &path, "threshold_band", 0, 1, &o->threshold_band)
      || !get_choice (r, node, &path, "upsample", parse_upsample, &upsample)
      || !hs_json_fields_get_number (r, node, &path, "opacity", 0, 1, &o->opacity)
      || !get_choice (r, node, &path, "outline", parse_outline, &outline)
      || !hs_json_fields_get_number (r, node, &path, "outline_top_k", 0, 100,
                                     &item->outline_top_k)
      || !hs_json_fields_get_number (r, node, &path, "window_center", -1, 1,
                                     &item->window_center)
      || !hs_json_fields_get_number (r, node, &path, "window_width", -1, 1,
                                     &item->window_width))
    return FALSE;
  o->colormap = (HsColormap) colormap;
  o->strength = (HsStrength) strength;
  o->upsample = (HsUpsample) upsample;
  item->outline = (HsOutline) outline;
  return TRUE;
}

static gboolean
read_models (Reader *r, HjNode *object, const HsJsonPath *parent, HsDeckCase *item)
{
  PATH_KEY (path, parent, "models");
  HjNode *node = hj_member (object, "models");

  if (node == NULL)
    return hs_json_fields_fail (r, parent, _("missing required member \"%s\""), "models");
  if (node->type != HJ_ARRAY || node->n == 0 || node->n > HS_DECK_MAX_MODELS)
    return hs_json_fields_fail (r, &path, _("expected an array of 1 to %d models"),
                                HS_DECK_MAX_MODELS);
  for (guint i = 0; i < node->n; i++)
    {
      PATH_INDEX (at, &path, i);
      HjNode *entry = hj_element (node, i);
      g_autofree char *name = NULL;
      gboolean live = FALSE;

      if (entry->type != HJ_OBJECT)
        return hs_json_fields_fail (r, &at, _("expected a model object"));
      if (!hs_json_fields_check_members (r, entry, &at, model_members)
          || !get_clean_text (r, entry, &at, "name", FALSE, TRUE, &name)
          || !get_flag (r, entry, &at, "live", &live))
        return FALSE;
      if (live && !g_strv_contains (hs_model_list_builtin (), name))
        {
          g_autofree char *names = g_strjoinv (", ", (char **) hs_model_list_builtin ());
          PATH_KEY (name_path, &at, "name");
          /* built-in names only: a deck never names a file to load as a model */
          return hs_json_fields_fail (r, &name_path,
                                      _("\"%s\" is not a built-in model (%s)"), name, names);
        }
      hs_deck_case_add_model (item, name, live);
    }
  return TRUE;
}

/* An array of short strings, each checked by `check` (may be NULL). */
static gboolean
get_list (Reader *r, HjNode *object, const HsJsonPath *parent, const char *key, guint max_items,
          gboolean (*check) (Reader *, const HsJsonPath *, const char *), char ***out)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  g_autoptr(GPtrArray) list = NULL;

  if (node == NULL)
    return TRUE;
  if (node->type != HJ_ARRAY || node->n > max_items)
    return hs_json_fields_fail (r, &path, _("expected an array of at most %u strings"),
                                max_items);
  list = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < node->n; i++)
    {
      PATH_INDEX (at, &path, i);
      HjNode *text = hj_element (node, i);

      if (text->type != HJ_STRING || strlen (text->v.s) > 1024)
        return hs_json_fields_fail (r, &at, _("expected a string of at most %d characters"),
                                    1024);
      if (!check_controls (r, &at, text->v.s, FALSE) || (check && !check (r, &at, text->v.s)))
        return FALSE;
      g_ptr_array_add (list, g_strdup (text->v.s));
    }
  g_ptr_array_add (list, NULL);
  *out = (char **) g_ptr_array_free (g_steal_pointer (&list), FALSE);
  return TRUE;
}

static gboolean
check_metric (Reader *r, const HsJsonPath *path, const char *name)
{
  if (hs_metric_info_lookup (name) == NULL)
    return hs_json_fields_fail (r, path, _("unknown metric \"%s\""), name);
  return TRUE;
}

static gboolean
check_sha256 (Reader *r, const HsJsonPath *path, const char *hex)
{
  if (!is_sha256 (hex))
    return hs_json_fields_fail (r, path, _("expected 64 lower-case hexadecimal digits"));
  return TRUE;
}

static gboolean
check_plain_path (Reader *r, const HsJsonPath *path, const char *relative)
{
  if (!hs_deck_path_is_plain (relative) || g_str_equal (relative, "."))
    return hs_json_fields_fail (r, path,
                                _("the path \"%s\" leaves the deck's folder (absolute, \"..\" or empty parts)"),
                                relative);
  return TRUE;
}

static HsDeckCase *
read_case (Reader *r, HjNode *object, const HsJsonPath *path)
{
  g_autoptr(HsDeckCase) item = hs_deck_case_new (NULL);
  HjNode *viewport, *layers, *sentence;
  int view = (int) item->view;

  if (object->type != HJ_OBJECT)
    {
      hs_json_fields_fail (r, path, _("expected a case object"));
      return NULL;
    }
  if (!hs_json_fields_check_members (r, object, path, case_members)
      || !get_clean_text (r, object, path, "instance", FALSE, TRUE, &item->instance)
      || !get_clean_text (r, object, path, "sentence_text", TRUE, FALSE, &item->sentence_text)
      || !get_clean_text (r, object, path, "prompt", FALSE, FALSE, &item->prompt)
      || !get_flag (r, object, path, "swap", &item->swap)
      || !read_models (r, object, path, item)
      || !get_choice (r, object, path, "view", parse_view, &view)
      || !read_overlay (r, object, path, item))
    return NULL;
  item->view = (HsDeckView) view;

  sentence = hs_json_fields_typed_member (r, object, path, "sentence", hs_json_node_is_number,
                                          N_("expected a number"));
  if (r->failed)
    return NULL;
  if (sentence != NULL)
    {
      PATH_KEY (s_path, path, "sentence");
      if (sentence->type != HJ_INT || sentence->v.i < 1 || sentence->v.i > 100000)
        {
          hs_json_fields_fail (r, &s_path, _("expected a sentence number from 1"));
          return NULL;
        }
      item->sentence = (guint) sentence->v.i;
    }
  if ((item->sentence == 0) == (item->prompt == NULL)
      || (item->prompt != NULL && *item->prompt == '\0'))
    {
      hs_json_fields_fail (r, path,
                           _("a case needs one of \"sentence\" (a number from 1) or a non-empty \"prompt\""));
      return NULL;
    }
  for (guint m = 0; item->prompt != NULL && m < item->models->len; m++)
    if (!((const HsDeckModel *) g_ptr_array_index (item->models, m))->live)
      {
        /* a dataset holds maps of its sentences only */
        hs_json_fields_fail (r, path, _("a free \"prompt\" needs a live model"));
        return NULL;
      }
  if (item->swap && item->prompt != NULL)
    {
      hs_json_fields_fail (r, path,
                           _("a swapped case needs a \"sentence\": it is scored against that sentence's target"));
      return NULL;
    }

  viewport = get_object (r, object, path, "viewport", viewport_members);
  if (viewport != NULL)
    {
      PATH_KEY (v_path, path, "viewport");
      if (!hs_json_fields_get_number (r, viewport, &v_path, "zoom", 1, 64, &item->zoom)
          || !hs_json_fields_get_number (r, viewport, &v_path, "center_x", 0, 1, &item->center_x)
          || !hs_json_fields_get_number (r, viewport, &v_path, "center_y", 0, 1, &item->center_y))
        return NULL;
    }
  layers = get_object (r, object, path, "layers", layers_members);
  if (layers != NULL)
    {
      PATH_KEY (l_path, path, "layers");
      if (!get_flag (r, layers, &l_path, "overlay", &item->show_overlay)
          || !get_flag (r, layers, &l_path, "boxes", &item->show_boxes)
          || !get_flag (r, layers, &l_path, "masks", &item->show_masks))
        return NULL;
    }
  if (r->failed
      || !get_clean_text (r, object, path, "note", TRUE, FALSE, &item->note)
      || !get_flag (r, object, path, "reveal", &item->reveal)
      || !get_list (r, object, path, "metrics", HS_DECK_MAX_METRICS, check_metric, &item->metrics)
      || !get_sha256 (r, object, path, "map_sha256", &item->map_sha256)
      || !get_list (r, object, path, "maps_sha256", 2 * HS_DECK_MAX_MODELS, check_sha256,
                    &item->maps_sha256)
      || !get_list (r, object, path, "maps", 2 * HS_DECK_MAX_MODELS, check_plain_path,
                    &item->embedded_maps))
    return NULL;
  return g_steal_pointer (&item);
}

static gboolean
read_top (Reader *r, HjNode *root, HsDeck *deck)
{
  const HsJsonPath *top = NULL;   /* "$" */
  g_autofree char *format = NULL;
  HjNode *node;

  if (root->type != HJ_OBJECT)
    return hs_json_fields_fail (r, top, _("expected a deck object"));
  if (!hs_json_fields_check_members (r, root, top, top_members)
      || !hs_json_fields_get_text (r, root, top, "format", &format))
    return FALSE;
  if (format != NULL && !g_str_equal (format, "heatscope-deck"))
    {
      PATH_KEY (path, top, "format");
      return hs_json_fields_fail (r, &path, _("expected \"heatscope-deck\""));
    }
  node = hj_member (root, "version");
  {
    PATH_KEY (path, top, "version");
    if (node == NULL)
      return hs_json_fields_fail (r, top, _("missing required member \"%s\""), "version");
    if (node->type != HJ_INT)
      return hs_json_fields_fail (r, &path, _("expected a whole number"));
    if (node->v.i != HS_DECK_VERSION)
      return hs_json_fields_fail (r, &path,
                                  _("version %lld is not one this Heatscope reads (%d)"),
                                  (long long) node->v.i, HS_DECK_VERSION);
  }
  g_clear_pointer (&deck->dataset, g_free);
  if (!get_clean_text (r, root, top, "dataset", FALSE, TRUE, &deck->dataset)
      || !get_sha256 (r, root, top, "manifest_sha256", &deck->manifest_sha256))
    return FALSE;
  if (!hs_deck_path_is_plain (deck->dataset))
    {
      PATH_KEY (path, top, "dataset");
      return hs_json_fields_fail (r, &path,
                                  _("the path \"%s\" leaves the deck's folder (absolute, \"..\" or empty parts)"),
                                  deck->dataset);
    }

  node = hj_member (root, "cases");
  {
    PATH_KEY (path, top, "cases");

    if (node == NULL)
      return TRUE;   /* a new, empty deck */
    if (node->type != HJ_ARRAY)
      return hs_json_fields_fail (r, &path, _("expected an array of cases"));
    if (node->n > HS_DECK_MAX_CASES)
      return hs_json_fields_fail (r, &path, _("%u cases, more than %d"), node->n,
                                  HS_DECK_MAX_CASES);
    for (guint i = 0; i < node->n; i++)
      {
        PATH_INDEX (item_path, &path, i);
        HsDeckCase *item;

        r->scope = g_strdup_printf (_("case %u"), i + 1);
        item = read_case (r, hj_element (node, i), &item_path);
        g_clear_pointer (&r->scope, g_free);
        if (item == NULL)
          return FALSE;
        g_ptr_array_add (deck->cases, item);
      }
  }
  return TRUE;
}

HsDeck *
hs_deck_parse (const char *text, gsize len, const char *display, GError **error)
{
  g_autoptr(HsDeck) deck = NULL;
  HjParser parser = { 0 };
  Reader r = { .display = display, .domain = HS_DECK_ERROR, .code = HS_DECK_ERROR_INVALID,
               .error = error, .max_text = HS_DECK_MAX_TEXT };
  HjNode *root;
  gboolean ok;

  g_return_val_if_fail (text != NULL || len == 0, NULL);
  g_return_val_if_fail (display != NULL, NULL);
  if (len > HS_DECK_MAX_BYTES)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_INVALID,
                   _("%s: %zu bytes, over the limit of %d for a deck"), display, len,
                   HS_DECK_MAX_BYTES);
      return NULL;
    }
  root = hs_json_fields_parse (&r, &parser, text, len);
  if (root == NULL)
    {
      hj_parser_clear (&parser);
      return NULL;
    }
  deck = hs_deck_new (NULL);
  ok = read_top (&r, root, deck);
  g_free (r.scope);
  hj_parser_clear (&parser);
  return ok ? g_steal_pointer (&deck) : NULL;
}

HsDeck *
hs_deck_load (const char *path, GError **error)
{
  g_autofree guint8 *data = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  if (!hs_json_fields_read_file (path, HS_DECK_MAX_BYTES, HS_DECK_ERROR, HS_DECK_ERROR_IO,
                                 HS_DECK_ERROR_INVALID, &data, &len, error))
    return NULL;
  return hs_deck_parse ((const char *) data, len, path, error);
}

/* --- writing -------------------------------------------------------------- */

static void
put_key (GString *out, const char *indent, const char *key)
{
  g_string_append (out, indent);
  hj_append_quoted (out, key);
  g_string_append (out, ": ");
}

static void
put_text (GString *out, const char *indent, const char *key, const char *value)
{
  put_key (out, indent, key);
  hj_append_quoted (out, value);
  g_string_append (out, ",\n");
}

/* Shortest round-tripping form, C locale; −0 as 0 (read back as the
 * integer 0, it would be written differently the second time). */
static void
put_number (GString *out, const char *indent, const char *key, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (value == 0)
    value = 0;
  put_key (out, indent, key);
  g_string_append (out, g_ascii_dtostr (buffer, sizeof buffer, value));
  g_string_append (out, ",\n");
}

static void
put_bool (GString *out, const char *indent, const char *key, gboolean value)
{
  put_key (out, indent, key);
  g_string_append (out, value ? "true,\n" : "false,\n");
}

static void
put_list (GString *out, const char *indent, const char *key, char * const *items)
{
  put_key (out, indent, key);
  g_string_append_c (out, '[');
  for (guint i = 0; items[i]; i++)
    {
      if (i)
        g_string_append (out, ", ");
      hj_append_quoted (out, items[i]);
    }
  g_string_append (out, "],\n");
}

/* Drops the ",\n" after the last member and closes the object. */
static void
close_object (GString *out, const char *indent)
{
  if (g_str_has_suffix (out->str, ",\n"))
    g_string_truncate (out, out->len - 2);
  g_string_append_printf (out, "\n%s}", indent);
}

/* "key": { … }, as a member at `indent`: open, then end. */
static void
open_member_object (GString *out, const char *indent, const char *key)
{
  put_key (out, indent, key);
  g_string_append (out, "{\n");
}

static void
end_member_object (GString *out, const char *indent)
{
  close_object (out, indent);
  g_string_append (out, ",\n");
}

static void
put_case (GString *out, const HsDeckCase *item)
{
  const char *in = "      ", *in2 = "        ", *in3 = "          ";
  const HsScaleSpec *scale = &item->overlay.scale;

  g_string_append (out, "    {\n");
  put_text (out, in, "instance", item->instance);
  if (item->prompt != NULL)
    put_text (out, in, "prompt", item->prompt);
  else
    {
      put_key (out, in, "sentence");
      g_string_append_printf (out, "%u,\n", item->sentence);
      if (item->sentence_text != NULL)
        put_text (out, in, "sentence_text", item->sentence_text);
    }
  put_bool (out, in, "swap", item->swap);
  put_key (out, in, "models");
  g_string_append (out, "[");
  for (guint i = 0; i < item->models->len; i++)
    {
      const HsDeckModel *model = g_ptr_array_index (item->models, i);

      g_string_append (out, i ? ", {\"name\": " : "{\"name\": ");
      hj_append_quoted (out, model->name);
      g_string_append (out, model->live ? ", \"live\": true}" : ", \"live\": false}");
    }
  g_string_append (out, "],\n");
  put_text (out, in, "view", hs_deck_view_to_string (item->view));

  open_member_object (out, in, "overlay");
  put_text (out, in2, "colormap", hs_colormap_to_string (item->overlay.colormap));
  open_member_object (out, in2, "scale");
  put_text (out, in3, "mode", hs_scale_mode_to_string (scale->mode));
  if (scale->mode == HS_SCALE_FIXED || scale->mode == HS_SCALE_SHARED)
    {
      put_number (out, in3, "min", scale->lo);
      put_number (out, in3, "max", scale->hi);
    }
  if (scale->mode == HS_SCALE_PERCENTILE)
    {
      put_number (out, in3, "percentile_low", scale->p_lo);
      put_number (out, in3, "percentile_high", scale->p_hi);
    }
  put_bool (out, in3, "symmetric", scale->symmetric);
  end_member_object (out, in2);
  put_text (out, in2, "strength_curve", hs_strength_to_string (item->overlay.strength));
  put_number (out, in2, "strength", item->overlay.strength_param);
  put_number (out, in2, "threshold", item->overlay.threshold);
  put_number (out, in2, "threshold_band", item->overlay.threshold_band);
  put_text (out, in2, "upsample", hs_upsample_to_string (item->overlay.upsample));
  put_number (out, in2, "opacity", item->overlay.opacity);
  put_text (out, in2, "outline", hs_outline_to_string (item->outline));
  put_number (out, in2, "outline_top_k", item->outline_top_k);
  put_number (out, in2, "window_center", item->window_center);
  put_number (out, in2, "window_width", item->window_width);
  end_member_object (out, in);

  open_member_object (out, in, "viewport");
  put_number (out, in2, "zoom", item->zoom);
  put_number (out, in2, "center_x", item->center_x);
  put_number (out, in2, "center_y", item->center_y);
  end_member_object (out, in);
  open_member_object (out, in, "layers");
  put_bool (out, in2, "overlay", item->show_overlay);
  put_bool (out, in2, "boxes", item->show_boxes);
  put_bool (out, in2, "masks", item->show_masks);
  end_member_object (out, in);

  if (item->note != NULL)
    put_text (out, in, "note", item->note);
  put_bool (out, in, "reveal", item->reveal);
  if (item->metrics != NULL)
    put_list (out, in, "metrics", item->metrics);
  if (item->map_sha256 != NULL)
    put_text (out, in, "map_sha256", item->map_sha256);
  if (item->maps_sha256 != NULL)
    put_list (out, in, "maps_sha256", item->maps_sha256);
  if (item->embedded_maps != NULL)
    put_list (out, in, "maps", item->embedded_maps);
  close_object (out, "    ");
}

char *
hs_deck_to_json (const HsDeck *deck, gsize *length)
{
  GString *out = g_string_new ("{\n");

  put_text (out, "  ", "format", "heatscope-deck");
  put_key (out, "  ", "version");
  g_string_append_printf (out, "%d,\n", HS_DECK_VERSION);
  put_text (out, "  ", "dataset", deck->dataset);
  if (deck->manifest_sha256 != NULL)
    put_text (out, "  ", "manifest_sha256", deck->manifest_sha256);
  put_key (out, "  ", "cases");
  g_string_append (out, "[");
  for (guint i = 0; i < deck->cases->len; i++)
    {
      g_string_append (out, i ? ",\n" : "\n");
      put_case (out, g_ptr_array_index (deck->cases, i));
    }
  g_string_append (out, deck->cases->len ? "\n  ]\n}\n" : "]\n}\n");
  if (length)
    *length = out->len;
  return g_string_free (out, FALSE);
}

gboolean
hs_deck_save (const HsDeck *deck, const char *path, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;

  text = hs_deck_to_json (deck, &len);
  if (!hs_atomic_write (path, text, len, &local))
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_IO, "%s", local->message);
      return FALSE;
    }
  return TRUE;
}
