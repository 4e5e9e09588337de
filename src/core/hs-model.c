/* hs-model.c — loading the built-in model and computing attention for a prompt */
#include "hs-json-guard-private.h"
#include "hs-model-private.h"
#include "hs-limits.h"
#include "hs-text.h"
#include "hs-i18n-private.h"

#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (hs-model-error-quark, hs_model_error)

static const char * const builtin_names[] = { "grounded", "blind", "noattn", NULL };
static const char * const saliency_names[] = {
  "cnn-grad", "cnn-ixg", "cnn-gradcam", "cnn-random-grad", "cnn-random-ixg", "cnn-random-gradcam", NULL
};

/* The weights file (without .safetensors) and saliency method of each
 * built-in classifier name; the attention models' files bear their names. */
static const struct {
  const char *name, *file;
  HsSaliency  saliency;
} saliency_builtins[] = {
  { "cnn-grad", "lesion-cnn", HS_SALIENCY_GRAD },
  { "cnn-ixg", "lesion-cnn", HS_SALIENCY_IXG },
  { "cnn-gradcam", "lesion-cnn", HS_SALIENCY_GRADCAM },
  { "cnn-random-grad", "lesion-cnn-random", HS_SALIENCY_GRAD },
  { "cnn-random-ixg", "lesion-cnn-random", HS_SALIENCY_IXG },
  { "cnn-random-gradcam", "lesion-cnn-random", HS_SALIENCY_GRADCAM },
};

const char * const *
hs_model_list_builtin (void)
{
  return builtin_names;
}

const char * const *
hs_model_list_saliency (void)
{
  return saliency_names;
}

char *
hs_model_describe_builtin (void)
{
  g_autofree char *known = g_strjoinv (", ", (char **) builtin_names);
  g_autofree char *saliency = g_strjoinv (", ", (char **) saliency_names);

  return g_strdup_printf ("%s, %s", known, saliency);
}

gboolean
hs_model_is_builtin (const char *name)
{
  return name != NULL && (g_strv_contains (builtin_names, name) || g_strv_contains (saliency_names, name));
}

gboolean
hs_model_is_phantom_trained_on_real (const char *model, const HsInstance *instance)
{
  return model != NULL && instance != NULL && !instance->phantom && hs_model_is_builtin (model);
}

HsModel *
hs_model_ref (HsModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  g_atomic_int_inc (&model->ref_count);
  return model;
}

void
hs_model_unref (HsModel *model)
{
  if (model == NULL || !g_atomic_int_dec_and_test (&model->ref_count))
    return;
  g_clear_pointer (&model->owned, g_ptr_array_unref);
  g_clear_pointer (&model->vocab, g_hash_table_unref);
  g_clear_pointer (&model->classes, g_strfreev);
  g_clear_pointer (&model->st, hs_safetensors_free);
  g_free (model->path);
  g_free (model->name);
  g_free (model);
}

gboolean
hs_model_format_error (GError **error, const HsModel *model, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_FORMAT, _("%s: not a usable heatscope model: %s"),
               model->path, message);
  return FALSE;
}

/* A tensor of exactly the given shape (up to 4 dims; trailing zeros end the
 * list), converted to float and owned by the model. */
float *
hs_model_take_tensor (HsModel *model, const char *name, GError **error, gsize d0, gsize d1, gsize d2, gsize d3)
{
  const HsTensorInfo *info = hs_safetensors_get_info (model->st, name);
  gsize want[4] = { d0, d1, d2, d3 };
  guint ndim = 0;
  gboolean ok;
  float *values;

  while (ndim < 4 && want[ndim] != 0)
    ndim++;
  if (info == NULL)
    {
      hs_model_format_error (error, model, _("tensor \"%s\" is missing"), name);
      return NULL;
    }
  ok = info->ndim == ndim;
  for (guint i = 0; ok && i < ndim; i++)
    ok = info->shape[i] == want[i];
  if (!ok)
    {
      g_autoptr(GString) expected = g_string_new ("[");
      g_autoptr(GString) found = g_string_new ("[");

      for (guint i = 0; i < ndim; i++)
        g_string_append_printf (expected, "%s%" G_GSIZE_FORMAT, i ? ", " : "", want[i]);
      for (guint i = 0; i < info->ndim; i++)
        g_string_append_printf (found, "%s%" G_GSIZE_FORMAT, i ? ", " : "", info->shape[i]);
      hs_model_format_error (error, model, _("tensor \"%s\" has shape %s], expected %s]"), name, found->str,
                   expected->str);
      return NULL;
    }
  values = hs_safetensors_get_float (model->st, name, NULL, error);
  if (values == NULL)
    return NULL;
  for (gsize i = 0; i < info->n_values; i++)
    if (!isfinite (values[i]))
      {
        g_free (values);
        hs_model_format_error (error, model, _("tensor \"%s\" holds a non-finite value at index %zu"),
                     name, i);
        return NULL;
      }
  g_ptr_array_add (model->owned, values);
  return values;
}

gboolean
hs_model_config_uint (JsonObject *config, const char *key, guint min, guint max, guint *out)
{
  JsonNode *node = json_object_get_member (config, key);
  gint64 v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  v = json_node_get_int (node);
  if (v < min || v > max)
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

gboolean
hs_model_config_double (JsonObject *config, const char *key, double *out)
{
  JsonNode *node = json_object_get_member (config, key);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_double (node);
  return isfinite (*out);
}

JsonObject *
hs_model_config_object (HsModel *model, JsonParser *parser, GError **error)
{
  const char *text = hs_safetensors_get_metadata (model->st, "config");
  g_autoptr(GError) json_error = NULL;

  if (text == NULL)
    {
      hs_model_format_error (error, model, _("metadata has no \"config\""));
      return NULL;
    }
  if (!hs_json_parser_load_data (parser, text, -1, &json_error)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      hs_model_format_error (error, model, _("metadata \"config\" is not a JSON object%s%s"),
                             json_error ? ": " : "", json_error ? json_error->message : "");
      return NULL;
    }
  return json_node_get_object (json_parser_get_root (parser));
}

gboolean
hs_model_parse_image_config (HsModel *model, JsonObject *config, guint *size, GError **error)
{
  JsonNode *conv_node;
  JsonArray *conv;

  if (!hs_model_config_uint (config, "image_size", 1, 4096, &model->image_size))
    return hs_model_format_error (error, model, _("config \"image_size\" missing or out of range"));
  if (!hs_model_config_double (config, "normalize_mean", &model->norm_mean)
      || !hs_model_config_double (config, "normalize_std", &model->norm_std) || !(model->norm_std > 0))
    return hs_model_format_error (error, model, _("config \"normalize_mean\"/\"normalize_std\" missing or invalid"));
  conv_node = json_object_get_member (config, "conv");
  if (conv_node == NULL || !JSON_NODE_HOLDS_ARRAY (conv_node))
    return hs_model_format_error (error, model, _("config \"conv\" missing or not an array"));
  conv = json_node_get_array (conv_node);
  model->n_conv = json_array_get_length (conv);
  if (model->n_conv == 0 || model->n_conv > HS_MODEL_MAX_CONV)
    return hs_model_format_error (error, model, _("config \"conv\" has %u layers (1 to %d allowed)"),
                        model->n_conv, HS_MODEL_MAX_CONV);
  *size = model->image_size;
  for (guint l = 0; l < model->n_conv; l++)
    {
      JsonNode *layer_node = json_array_get_element (conv, l);
      JsonArray *layer;
      guint values[3];

      if (!JSON_NODE_HOLDS_ARRAY (layer_node) || json_array_get_length (layer = json_node_get_array (layer_node)) != 3)
        return hs_model_format_error (error, model, _("config \"conv\"[%u] is not [c_in, c_out, stride]"), l);
      for (guint i = 0; i < 3; i++)
        {
          JsonNode *n = json_array_get_element (layer, i);

          if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
              || json_node_get_int (n) < 1 || json_node_get_int (n) > (i == 2 ? 4 : 4096))
            return hs_model_format_error (error, model, _("config \"conv\"[%u][%u] out of range"), l, i);
          values[i] = (guint) json_node_get_int (n);
        }
      model->conv[l].c_in = values[0];
      model->conv[l].c_out = values[1];
      model->conv[l].stride = values[2];
      if (values[0] != (l == 0 ? 1 : model->conv[l - 1].c_out))
        return hs_model_format_error (error, model, _("config \"conv\"[%u] takes %u channels, the input has %u"),
                            l, values[0], l == 0 ? 1 : model->conv[l - 1].c_out);
      *size = (*size - 1) / values[2] + 1;
    }
  return TRUE;
}

static gboolean
parse_config (HsModel *model, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  JsonObject *config = hs_model_config_object (model, parser, error);
  JsonNode *no_attn;
  guint size;

  if (config == NULL)
    return FALSE;
  if (!hs_model_config_uint (config, "grid", 1, 256, &model->grid))
    return hs_model_format_error (error, model, _("config \"grid\" missing or out of range"));
  if (!hs_model_config_uint (config, "dim", 1, 4096, &model->dim))
    return hs_model_format_error (error, model, _("config \"dim\" missing or out of range"));
  if (!hs_model_config_uint (config, "text_heads", 1, 64, &model->heads) || model->dim % model->heads != 0)
    return hs_model_format_error (error, model, _("config \"text_heads\" missing or not a divisor of dim"));
  if (!hs_model_config_uint (config, "text_ffn", 1, 65536, &model->ffn))
    return hs_model_format_error (error, model, _("config \"text_ffn\" missing or out of range"));
  if (!hs_model_config_uint (config, "text_positions", 1, 65536, &model->n_positions))
    return hs_model_format_error (error, model, _("config \"text_positions\" missing or out of range"));
  if (!hs_model_config_double (config, "tau", &model->tau) || !(model->tau > 0))
    return hs_model_format_error (error, model, _("config \"tau\" missing or not positive"));
  no_attn = json_object_get_member (config, "no_attn");
  if (no_attn == NULL || !JSON_NODE_HOLDS_VALUE (no_attn) || json_node_get_value_type (no_attn) != G_TYPE_BOOLEAN)
    return hs_model_format_error (error, model, _("config \"no_attn\" missing or not a boolean"));
  model->no_attn = json_node_get_boolean (no_attn);
  if (!hs_model_parse_image_config (model, config, &size, error))
    return FALSE;
  if (size != model->grid)
    return hs_model_format_error (error, model, _("the CNN gives a %u×%u grid, config says %u"), size, size, model->grid);
  return TRUE;
}

static gboolean
parse_vocabulary (HsModel *model, GError **error)
{
  const char *text = hs_safetensors_get_metadata (model->st, "vocabulary");
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  JsonArray *words;
  gboolean have_unk = FALSE;

  if (text == NULL)
    return hs_model_format_error (error, model, _("metadata has no \"vocabulary\""));
  if (!hs_json_parser_load_data (parser, text, -1, NULL)
      || !JSON_NODE_HOLDS_ARRAY (json_parser_get_root (parser)))
    return hs_model_format_error (error, model, _("metadata \"vocabulary\" is not a JSON array"));
  words = json_node_get_array (json_parser_get_root (parser));
  model->vocab_size = json_array_get_length (words);
  if (model->vocab_size == 0 || model->vocab_size > 10000000)
    return hs_model_format_error (error, model, _("the vocabulary has %u words"), model->vocab_size);
  model->vocab = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < model->vocab_size; i++)
    {
      JsonNode *n = json_array_get_element (words, i);
      const char *word;

      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
        return hs_model_format_error (error, model, _("vocabulary entry %u is not a string"), i);
      word = json_node_get_string (n);
      if (g_hash_table_contains (model->vocab, word))
        return hs_model_format_error (error, model, _("vocabulary word \"%s\" appears twice"), word);
      g_hash_table_insert (model->vocab, g_strdup (word), GUINT_TO_POINTER (i + 1));
      if (strcmp (word, "<unk>") == 0)
        {
          model->unk = i;
          have_unk = TRUE;
        }
    }
  if (!have_unk)
    return hs_model_format_error (error, model, _("the vocabulary has no \"<unk>\""));
  return TRUE;
}

gboolean
hs_model_take_convs (HsModel *model, GError **error)
{
  for (guint l = 0; l < model->n_conv; l++)
    {
      g_autofree char *w = g_strdup_printf ("image.conv%u.weight", l);
      g_autofree char *b = g_strdup_printf ("image.conv%u.bias", l);

      model->conv[l].weight = hs_model_take_tensor (model, w, error, model->conv[l].c_out,
                                                    model->conv[l].c_in, 3, 3);
      if (model->conv[l].weight == NULL)
        return FALSE;
      model->conv[l].bias = hs_model_take_tensor (model, b, error, model->conv[l].c_out, 0, 0, 0);
      if (model->conv[l].bias == NULL)
        return FALSE;
    }
  return TRUE;
}

#define TAKE(field, name, ...) \
  G_STMT_START { if ((model->field = hs_model_take_tensor (model, name, error, __VA_ARGS__)) == NULL) return FALSE; } G_STMT_END

static gboolean
load_tensors (HsModel *model, GError **error)
{
  guint d = model->dim, f = model->ffn;
  gsize cells = (gsize) model->grid * model->grid;

  if (!hs_model_take_convs (model, error))
    return FALSE;
  TAKE (proj_w, "image.proj.weight", d, model->conv[model->n_conv - 1].c_out, 0, 0);
  TAKE (proj_b, "image.proj.bias", d, 0, 0, 0);
  TAKE (pos, "image.pos", cells, d, 0, 0);

  TAKE (emb, "text.emb", model->vocab_size, d, 0, 0);
  TAKE (tpos, "text.pos", model->n_positions, d, 0, 0);
  TAKE (ln1_w, "text.ln1.weight", d, 0, 0, 0);
  TAKE (ln1_b, "text.ln1.bias", d, 0, 0, 0);
  TAKE (ln2_w, "text.ln2.weight", d, 0, 0, 0);
  TAKE (ln2_b, "text.ln2.bias", d, 0, 0, 0);
  TAKE (lnf_w, "text.lnf.weight", d, 0, 0, 0);
  TAKE (lnf_b, "text.lnf.bias", d, 0, 0, 0);
  TAKE (q_w, "text.q.weight", d, d, 0, 0);
  TAKE (q_b, "text.q.bias", d, 0, 0, 0);
  TAKE (k_w, "text.k.weight", d, d, 0, 0);
  TAKE (k_b, "text.k.bias", d, 0, 0, 0);
  TAKE (v_w, "text.v.weight", d, d, 0, 0);
  TAKE (v_b, "text.v.bias", d, 0, 0, 0);
  TAKE (o_w, "text.o.weight", d, d, 0, 0);
  TAKE (o_b, "text.o.bias", d, 0, 0, 0);
  TAKE (ff1_w, "text.ff1.weight", f, d, 0, 0);
  TAKE (ff1_b, "text.ff1.bias", f, 0, 0, 0);
  TAKE (ff2_w, "text.ff2.weight", d, f, 0, 0);
  TAKE (ff2_b, "text.ff2.bias", d, 0, 0, 0);
  TAKE (tproj_w, "text.proj.weight", d, d, 0, 0);
  TAKE (tproj_b, "text.proj.bias", d, 0, 0, 0);
  if (model->no_attn)
    {
      TAKE (no_attn_vec, "no_attn", d, 0, 0, 0);
      hs_model_l2_normalize (model->no_attn_vec, d);
    }
  return TRUE;
}

HsModel *
hs_model_load (const char *path, GError **error)
{
  g_autoptr(HsModel) model = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *format, *name;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  model = g_new0 (HsModel, 1);
  model->ref_count = 1;
  model->path = g_strdup (path);
  model->owned = g_ptr_array_new_with_free_func (g_free);
  model->st = hs_safetensors_load (path, &local_error);
  if (model->st == NULL)
    {
      HsModelError code = HS_MODEL_ERROR_FORMAT;

      if (g_error_matches (local_error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_IO))
        code = HS_MODEL_ERROR_IO;
      else if (g_error_matches (local_error, HS_SAFETENSORS_ERROR, HS_SAFETENSORS_ERROR_TOO_LARGE))
        code = HS_MODEL_ERROR_TOO_LARGE;
      g_set_error_literal (error, HS_MODEL_ERROR, code, local_error->message);
      return NULL;
    }
  format = hs_safetensors_get_metadata (model->st, "format");
  if (g_strcmp0 (format, HS_MODEL_CNN_FORMAT) == 0)
    return hs_model_cnn_load (model, error) ? g_steal_pointer (&model) : NULL;
  if (g_strcmp0 (format, HS_MODEL_FORMAT) != 0)
    {
      hs_model_format_error (error, model, _("metadata \"format\" is %s%s%s, expected \"%s\" or \"%s\""),
                   format ? "\"" : "", format ? format : _("missing"), format ? "\"" : "", HS_MODEL_FORMAT,
                   HS_MODEL_CNN_FORMAT);
      return NULL;
    }
  if (!parse_config (model, error) || !parse_vocabulary (model, error) || !load_tensors (model, error))
    return NULL;
  name = hs_safetensors_get_metadata (model->st, "name");
  if (name != NULL)
    model->name = g_strdup (name);
  else
    {
      g_autofree char *base = g_path_get_basename (path);
      char *dot = strrchr (base, '.');

      if (dot != NULL && dot != base)
        *dot = '\0';
      model->name = g_strdup (base);
    }
  return g_steal_pointer (&model);
}

char *
hs_model_find_builtin (const char *name)
{
  g_autofree char *file = NULL;
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  const char *env = g_getenv ("HEATSCOPE_MODELS_DIR");
  const char * const *system_dirs = g_get_system_data_dirs ();

  g_return_val_if_fail (name != NULL, NULL);

  if (g_strv_contains (builtin_names, name))
    file = g_strconcat (name, ".safetensors", NULL);
  for (guint i = 0; file == NULL && i < G_N_ELEMENTS (saliency_builtins); i++)
    if (strcmp (saliency_builtins[i].name, name) == 0)
      file = g_strconcat (saliency_builtins[i].file, ".safetensors", NULL);
  if (file == NULL)
    return NULL;
  if (env != NULL && *env != '\0')
    g_ptr_array_add (dirs, g_strdup (env));
#ifdef HS_SOURCE_DATA_DIR
  g_ptr_array_add (dirs, g_build_filename (HS_SOURCE_DATA_DIR, "models", NULL));
#endif
  for (guint i = 0; system_dirs[i] != NULL; i++)
    g_ptr_array_add (dirs, g_build_filename (system_dirs[i], "heatscope", "models", NULL));
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (dirs->pdata[i], file, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  return NULL;
}

HsModel *
hs_model_load_builtin (const char *name_or_path, GError **error)
{
  g_autofree char *path = NULL;
  HsModel *model;

  g_return_val_if_fail (name_or_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_str_has_suffix (name_or_path, ".safetensors") || strchr (name_or_path, G_DIR_SEPARATOR) != NULL)
    return hs_model_load (name_or_path, error);
  path = hs_model_find_builtin (name_or_path);
  if (path == NULL)
    {
      g_autofree char *known = hs_model_describe_builtin ();

      if (hs_model_is_builtin (name_or_path))
        g_set_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_NOT_FOUND,
                     _("built-in model \"%s\" not found (looked in $HEATSCOPE_MODELS_DIR, data/models and the data directories)"),
                     name_or_path);
      else
        g_set_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_NOT_FOUND,
                     _("unknown model \"%s\" (built-in models: %s; or give a .safetensors file)"),
                     name_or_path, known);
      return NULL;
    }
  model = hs_model_load (path, error);
  for (guint i = 0; model != NULL && i < G_N_ELEMENTS (saliency_builtins); i++)
    if (strcmp (saliency_builtins[i].name, name_or_path) == 0)
      {
        if (model->kind != HS_MODEL_KIND_CNN)
          {
            g_set_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_FORMAT,
                         _("%s: not a usable heatscope model: \"%s\" needs a classifier (format \"%s\")"),
                         path, name_or_path, HS_MODEL_CNN_FORMAT);
            g_clear_pointer (&model, hs_model_unref);
          }
        else
          hs_model_cnn_set_saliency (model, saliency_builtins[i].saliency);
      }
  return model;
}

const char *
hs_model_get_name (const HsModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  return model->name;
}

const char *
hs_model_get_path (const HsModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  return model->path;
}

guint
hs_model_get_grid_width (const HsModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  return model->grid;
}

guint
hs_model_get_grid_height (const HsModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  return model->grid;
}

gboolean
hs_model_has_no_attn (const HsModel *model)
{
  g_return_val_if_fail (model != NULL, FALSE);
  return model->no_attn;
}

const char * const *
hs_model_get_classes (const HsModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  return (const char * const *) model->classes;
}

const char *
hs_model_get_metadata (const HsModel *model, const char *key)
{
  g_return_val_if_fail (model != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);
  return hs_safetensors_get_metadata (model->st, key);
}

HsImageFeatures *
hs_image_features_ref (HsImageFeatures *features)
{
  g_return_val_if_fail (features != NULL, NULL);
  g_atomic_int_inc (&features->ref_count);
  return features;
}

void
hs_image_features_unref (HsImageFeatures *features)
{
  if (features == NULL || !g_atomic_int_dec_and_test (&features->ref_count))
    return;
  g_clear_pointer (&features->model, hs_model_unref);
  g_free (features->regions);
  g_free (features->acts);
  g_free (features->logits);
  g_free (features);
}

HsImageFeatures *
hs_model_encode_image (HsModel *model, const HsImage *image, GCancellable *cancellable, GError **error)
{
  g_autoptr(HsImageFeatures) features = NULL;
  g_autofree float *input = NULL;

  g_return_val_if_fail (model != NULL, NULL);
  g_return_val_if_fail (image != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  input = g_new (float, (gsize) model->image_size * model->image_size);
  if (!hs_model_image_input (model, image, input, error))
    return NULL;
  features = g_new0 (HsImageFeatures, 1);
  features->ref_count = 1;
  features->model = hs_model_ref (model);
  if (model->kind == HS_MODEL_KIND_CNN)
    {
      if (!hs_model_cnn_encode (model, input, features, cancellable, error))
        return NULL;
      return g_steal_pointer (&features);
    }
  features->regions = g_new (float, (gsize) model->grid * model->grid * model->dim);
  if (!hs_model_image_forward (model, input, features->regions, cancellable, error))
    return NULL;
  return g_steal_pointer (&features);
}

HsAttentionMap *
hs_model_attend (HsModel *model, HsImageFeatures *features, const char *prompt, GError **error)
{
  g_auto(GStrv) tokens = NULL;
  g_autofree guint *ids = NULL;
  g_autofree float *words = NULL;
  g_autofree double *maps = NULL;
  g_autofree double *logits = NULL;
  HsAttentionMap *map;
  guint n, d, cells, regions;
  double no_attn = 0;

  g_return_val_if_fail (model != NULL, NULL);
  g_return_val_if_fail (features != NULL, NULL);
  g_return_val_if_fail (prompt != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (features->model != model)
    {
      g_set_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_INVALID,
                   _("%s: the image features were computed by another model (%s)"), model->path,
                   features->model->path);
      return NULL;
    }
  if (model->kind == HS_MODEL_KIND_CNN)
    return hs_model_cnn_attend (model, features, prompt, error);
  tokens = hs_text_tokenize (prompt);
  n = g_strv_length (tokens);
  if (n == 0)
    {
      g_set_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_EMPTY_PROMPT, _("the prompt has no words"));
      return NULL;
    }
  if (n > hs_limits_get ()->max_tokens)
    {
      g_set_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_TOO_LARGE,
                   _("the prompt has %u words, more than the limit of %" PRIu64),
                   n, hs_limits_get ()->max_tokens);
      return NULL;
    }

  d = model->dim;
  cells = model->grid * model->grid;
  regions = cells + (model->no_attn ? 1 : 0);
  ids = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    ids[i] = hs_model_token_id (model, tokens[i]);
  words = g_new (float, (gsize) n * d);
  hs_model_text_forward (model, ids, n, words);

  maps = g_new (double, (gsize) n * cells);
  logits = g_new (double, regions);
  for (guint i = 0; i < n; i++)
    {
      const float *t = words + (gsize) i * d;
      double max = -INFINITY, sum = 0;

      for (guint j = 0; j < regions; j++)
        {
          const float *v = j < cells ? features->regions + (gsize) j * d : model->no_attn_vec;
          float dot = 0;

          for (guint c = 0; c < d; c++)
            dot += t[c] * v[c];
          logits[j] = dot / model->tau;
          max = MAX (max, logits[j]);
        }
      for (guint j = 0; j < regions; j++)
        {
          logits[j] = exp (logits[j] - max);
          sum += logits[j];
        }
      for (guint j = 0; j < cells; j++)
        maps[(gsize) i * cells + j] = logits[j] / sum;
      if (model->no_attn)
        no_attn += logits[cells] / sum / n;
    }

  map = hs_attention_map_new (n, model->grid, model->grid, maps, error);
  if (map == NULL)
    return NULL;
  hs_attention_map_set_tokens (map, (const char * const *) tokens);
  hs_attention_map_set_no_attn (map, model->no_attn ? no_attn : NAN);
  return map;
}

HsAttentionMap *
hs_model_attend_image (HsModel *model, const HsImage *image, const char *prompt, GError **error)
{
  g_autoptr(HsImageFeatures) features = NULL;

  g_return_val_if_fail (model != NULL, NULL);
  g_return_val_if_fail (image != NULL, NULL);
  g_return_val_if_fail (prompt != NULL, NULL);

  features = hs_model_encode_image (model, image, NULL, error);
  if (features == NULL)
    return NULL;
  return hs_model_attend (model, features, prompt, error);
}

typedef struct {
  HsImage         *image;
  HsImageFeatures *features;
} CacheEntry;

struct _HsModelCache {
  GMutex      lock;
  GHashTable *models;    /* name → HsModel */
  GHashTable *features;  /* HsModel* → CacheEntry* */
};

static void
cache_entry_free (CacheEntry *entry)
{
  g_clear_pointer (&entry->image, hs_image_unref);
  g_clear_pointer (&entry->features, hs_image_features_unref);
  g_free (entry);
}

HsModelCache *
hs_model_cache_new (void)
{
  HsModelCache *cache = g_new0 (HsModelCache, 1);

  g_mutex_init (&cache->lock);
  cache->models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) hs_model_unref);
  cache->features = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                           (GDestroyNotify) cache_entry_free);
  return cache;
}

void
hs_model_cache_free (HsModelCache *cache)
{
  if (cache == NULL)
    return;
  g_hash_table_unref (cache->features);
  g_hash_table_unref (cache->models);
  g_mutex_clear (&cache->lock);
  g_free (cache);
}

HsModel *
hs_model_cache_get_model (HsModelCache *cache, const char *name, GError **error)
{
  HsModel *model;

  g_return_val_if_fail (cache != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_mutex_lock (&cache->lock);
  model = g_hash_table_lookup (cache->models, name);
  if (model != NULL)
    hs_model_ref (model);
  g_mutex_unlock (&cache->lock);
  if (model != NULL)
    return model;

  model = hs_model_load_builtin (name, error);
  if (model == NULL)
    return NULL;
  g_mutex_lock (&cache->lock);
  g_hash_table_replace (cache->models, g_strdup (name), hs_model_ref (model));
  g_mutex_unlock (&cache->lock);
  return model;
}

HsImageFeatures *
hs_model_cache_get_features (HsModelCache *cache, HsModel *model, HsImage *image,
                             GCancellable *cancellable, GError **error)
{
  CacheEntry *entry;
  HsImageFeatures *features = NULL;

  g_return_val_if_fail (cache != NULL, NULL);
  g_return_val_if_fail (model != NULL, NULL);
  g_return_val_if_fail (image != NULL, NULL);

  g_mutex_lock (&cache->lock);
  entry = g_hash_table_lookup (cache->features, model);
  if (entry != NULL && entry->image == image)
    features = hs_image_features_ref (entry->features);
  g_mutex_unlock (&cache->lock);
  if (features != NULL)
    return features;

  /* Encoded outside the lock so several models can work at once. */
  features = hs_model_encode_image (model, image, cancellable, error);
  if (features == NULL)
    return NULL;
  entry = g_new0 (CacheEntry, 1);
  entry->image = hs_image_ref (image);
  entry->features = hs_image_features_ref (features);
  g_mutex_lock (&cache->lock);
  /* The entry holds the model key alive through its features' reference. */
  g_hash_table_replace (cache->features, model, entry);
  g_mutex_unlock (&cache->lock);
  return features;
}

HsAttentionMap *
hs_model_phantom_attend (HsImage *image, const char *prompt, const char *model_name,
                         gpointer data, GError **error)
{
  HsModelCache *cache = data;
  g_autoptr(HsModel) model = NULL;
  g_autoptr(HsImageFeatures) features = NULL;

  g_return_val_if_fail (image != NULL, NULL);
  g_return_val_if_fail (prompt != NULL, NULL);
  g_return_val_if_fail (model_name != NULL, NULL);
  g_return_val_if_fail (cache != NULL, NULL);

  model = hs_model_cache_get_model (cache, model_name, error);
  if (model == NULL)
    return NULL;
  features = hs_model_cache_get_features (cache, model, image, NULL, error);
  if (features == NULL)
    return NULL;
  return hs_model_attend (model, features, prompt, error);
}
