/* hs-model-cnn.c — the built-in lesion classifier and its saliency maps
 *
 * Format "heatscope-cnn-1" (written by tools/train-lesion-cnn, defined in
 * tools/lesion_cnn_lib.py, which computes the same maps with autograd):
 * the image input of the dual encoder (grey / max, area resize to S × S,
 * (x − mean) / std), 3 × 3 convolutions (padding 1) + ReLU as config["conv"],
 * global average pooling, a linear head to one logit per class.  The map
 * explains the logit y_c of the class named in the prompt (the predicted
 * class when the prompt names none):
 *   grad     |∂y_c/∂x|                       on the S × S input grid
 *   ixg      |x · ∂y_c/∂x|                   on the S × S input grid
 *   gradcam  ReLU(Σ_k α_k A_k), α_k the mean of ∂y_c/∂A_k over the last
 *            conv layer's cells, on that layer's grid (Selvaraju et al.)
 * The gradient is back-propagated exactly (ReLU passes where its output is
 * positive, as torch's threshold_backward), in float like the forward pass. */
#include "hs-model-private.h"
#include "hs-text.h"
#include "hs-i18n-private.h"

#include <math.h>
#include <string.h>

static const char * const saliency_suffix[] = {
  [HS_SALIENCY_GRAD] = "grad",
  [HS_SALIENCY_IXG] = "ixg",
  [HS_SALIENCY_GRADCAM] = "gradcam",
};

/* The side of every activation: side[0] = the input, side[l + 1] = conv l's output. */
static void
layer_sides (const HsModel *model, guint *side)
{
  side[0] = model->image_size;
  for (guint l = 0; l < model->n_conv; l++)
    side[l + 1] = (side[l] - 1) / model->conv[l].stride + 1;
}

/* Offsets of every activation in HsImageFeatures.acts; returns the total. */
static gsize
layer_offsets (const HsModel *model, const guint *side, gsize *offset)
{
  gsize total = (gsize) side[0] * side[0];

  offset[0] = 0;
  for (guint l = 0; l < model->n_conv; l++)
    {
      offset[l + 1] = total;
      total += (gsize) model->conv[l].c_out * side[l + 1] * side[l + 1];
    }
  return total;
}

static gboolean
parse_classes (HsModel *model, JsonObject *config, GError **error)
{
  JsonNode *node = json_object_get_member (config, "classes");
  JsonArray *array;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return hs_model_format_error (error, model, _("config \"classes\" missing or not an array"));
  array = json_node_get_array (node);
  model->n_classes = json_array_get_length (array);
  if (model->n_classes < 2 || model->n_classes > 1000)
    return hs_model_format_error (error, model, _("config \"classes\" has %u names (2 to 1000 allowed)"),
                                  model->n_classes);
  for (guint i = 0; i < model->n_classes; i++)
    {
      JsonNode *n = json_array_get_element (array, i);
      g_auto(GStrv) tokens = NULL;

      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
        return hs_model_format_error (error, model, _("config \"classes\"[%u] is not a string"), i);
      /* A class is found in a prompt by its words, so it must have some. */
      tokens = hs_text_tokenize (json_node_get_string (n));
      if (tokens[0] == NULL)
        return hs_model_format_error (error, model, _("config \"classes\"[%u] has no words"), i);
      g_strv_builder_add (builder, json_node_get_string (n));
    }
  model->classes = g_strv_builder_end (builder);
  return TRUE;
}

gboolean
hs_model_cnn_load (HsModel *model, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  JsonObject *config = hs_model_config_object (model, parser, error);
  guint size, c_last;

  model->kind = HS_MODEL_KIND_CNN;
  if (config == NULL || !hs_model_parse_image_config (model, config, &size, error)
      || !parse_classes (model, config, error) || !hs_model_take_convs (model, error))
    return FALSE;
  c_last = model->conv[model->n_conv - 1].c_out;
  model->head_w = hs_model_take_tensor (model, "head.weight", error, model->n_classes, c_last, 0, 0);
  if (model->head_w == NULL)
    return FALSE;
  model->head_b = hs_model_take_tensor (model, "head.bias", error, model->n_classes, 0, 0, 0);
  if (model->head_b == NULL)
    return FALSE;
  hs_model_cnn_set_saliency (model, HS_SALIENCY_GRAD);
  return TRUE;
}

/* Only while the model is private to its loader: the name and grid change. */
void
hs_model_cnn_set_saliency (HsModel *model, HsSaliency saliency)
{
  const char *base = hs_safetensors_get_metadata (model->st, "name");
  guint side[HS_MODEL_MAX_CONV + 1];
  g_autofree char *stem = NULL;

  layer_sides (model, side);
  model->saliency = saliency;
  model->grid = saliency == HS_SALIENCY_GRADCAM ? side[model->n_conv] : model->image_size;
  if (base == NULL)
    {
      char *dot;

      stem = g_path_get_basename (model->path);
      dot = strrchr (stem, '.');
      if (dot != NULL && dot != stem)
        *dot = '\0';
      base = stem;
    }
  g_free (model->name);
  model->name = g_strdup_printf ("%s-%s", base, saliency_suffix[saliency]);
}

gboolean
hs_model_cnn_encode (const HsModel *model, const float *input, HsImageFeatures *features,
                     GCancellable *cancellable, GError **error)
{
  guint side[HS_MODEL_MAX_CONV + 1];
  gsize offset[HS_MODEL_MAX_CONV + 1], max_cols = 0;
  g_autofree float *cols = NULL;
  guint last = model->n_conv, c_last = model->conv[last - 1].c_out;
  gsize cells;
  const float *top;

  layer_sides (model, side);
  features->acts = g_new (float, layer_offsets (model, side, offset));
  memcpy (features->acts, input, sizeof (float) * side[0] * side[0]);
  for (guint l = 0; l < last; l++)
    max_cols = MAX (max_cols, (gsize) model->conv[l].c_in * 9 * side[l + 1] * side[l + 1]);
  cols = g_new (float, max_cols);
  for (guint l = 0; l < last; l++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      hs_model_conv3x3_relu (&model->conv[l], features->acts + offset[l], side[l], side[l],
                             features->acts + offset[l + 1], side[l + 1], side[l + 1], cols);
    }

  /* Global average pooling, then the head. */
  cells = (gsize) side[last] * side[last];
  top = features->acts + offset[last];
  features->logits = g_new (double, model->n_classes);
  for (guint c = 0; c < model->n_classes; c++)
    {
      float y = model->head_b[c];

      for (guint k = 0; k < c_last; k++)
        {
          float mean = 0;

          for (gsize p = 0; p < cells; p++)
            mean += top[k * cells + p];
          y += model->head_w[(gsize) c * c_last + k] * (mean / cells);
        }
      features->logits[c] = y;
    }
  return TRUE;
}

/* The class the prompt names (its words in a row; the earliest wins), or
 * the predicted class (the largest logit, the first of ties). */
static guint
pick_class (const HsModel *model, const HsImageFeatures *features, char **tokens)
{
  guint best = 0, best_pos = G_MAXUINT, n = g_strv_length (tokens);

  for (guint c = 0; c < model->n_classes; c++)
    {
      g_auto(GStrv) words = hs_text_tokenize (model->classes[c]);
      guint m = g_strv_length (words);

      for (guint i = 0; i + m <= n && i < best_pos; i++)
        {
          guint j = 0;

          while (j < m && strcmp (tokens[i + j], words[j]) == 0)
            j++;
          if (j == m)
            {
              best = c;
              best_pos = i;
              break;
            }
        }
    }
  if (best_pos != G_MAXUINT)
    return best;
  for (guint c = 1; c < model->n_classes; c++)
    if (features->logits[c] > features->logits[best])
      best = c;
  return best;
}

/* g_in = convᵀ(g_out · [out > 0]) of one 3 × 3 layer (padding 1): the
 * gradient of the layer's input given that of its ReLU output. */
static void
conv_backward (const HsModelConv *conv, const float *out, float *g_out, guint ho, guint wo,
               float *g_in, guint h, guint w)
{
  gsize np = (gsize) ho * wo;

  for (gsize i = 0; i < (gsize) conv->c_out * np; i++)
    if (!(out[i] > 0.0f))
      g_out[i] = 0.0f;
  memset (g_in, 0, sizeof (float) * conv->c_in * h * w);
  for (guint co = 0; co < conv->c_out; co++)
    for (guint ci = 0; ci < conv->c_in; ci++)
      {
        const float *k = conv->weight + ((gsize) co * conv->c_in + ci) * 9;
        const float *g = g_out + (gsize) co * np;
        float *plane = g_in + (gsize) ci * h * w;

        for (guint ky = 0; ky < 3; ky++)
          for (guint kx = 0; kx < 3; kx++)
            {
              float a = k[ky * 3 + kx];

              for (guint oy = 0; oy < ho; oy++)
                {
                  int iy = (int) (oy * conv->stride + ky) - 1;

                  if (iy < 0 || iy >= (int) h)
                    continue;
                  for (guint ox = 0; ox < wo; ox++)
                    {
                      int ix = (int) (ox * conv->stride + kx) - 1;

                      if (ix >= 0 && ix < (int) w)
                        plane[iy * (gsize) w + ix] += a * g[oy * (gsize) wo + ox];
                    }
                }
            }
      }
}

HsAttentionMap *
hs_model_cnn_attend (const HsModel *model, const HsImageFeatures *features, const char *prompt,
                     GError **error)
{
  g_auto(GStrv) tokens = hs_text_tokenize (prompt);
  guint side[HS_MODEL_MAX_CONV + 1];
  gsize offset[HS_MODEL_MAX_CONV + 1];
  guint last = model->n_conv, c_last = model->conv[last - 1].c_out, cls;
  gsize cells, n_map;
  const float *top;
  const float *w;
  g_autofree double *map = NULL;
  HsAttentionMap *result;
  const char *explained[2] = { NULL, NULL };

  layer_sides (model, side);
  layer_offsets (model, side, offset);
  cls = pick_class (model, features, tokens);
  w = model->head_w + (gsize) cls * c_last;
  cells = (gsize) side[last] * side[last];
  top = features->acts + offset[last];
  n_map = (gsize) model->grid * model->grid;
  map = g_new0 (double, n_map);

  if (model->saliency == HS_SALIENCY_GRADCAM)
    {
      /* ∂y_c/∂A_k[p] = w_ck / cells for every p, so α_k = w_ck / cells. */
      for (gsize p = 0; p < cells; p++)
        {
          float v = 0;

          for (guint k = 0; k < c_last; k++)
            v += (w[k] / (float) cells) * top[k * cells + p];
          map[p] = v > 0 ? v : 0;
        }
    }
  else
    {
      gsize max_plane = 0;
      g_autofree float *ga = NULL, *gb = NULL;
      float *g_out, *g_in;

      for (guint l = 0; l <= last; l++)
        max_plane = MAX (max_plane, (gsize) (l == 0 ? 1 : model->conv[l - 1].c_out) * side[l] * side[l]);
      ga = g_new (float, max_plane);
      gb = g_new (float, max_plane);
      g_out = ga;
      g_in = gb;
      for (guint k = 0; k < c_last; k++)
        for (gsize p = 0; p < cells; p++)
          g_out[k * cells + p] = w[k] / (float) cells;
      for (guint l = last; l-- > 0;)
        {
          float *t;

          conv_backward (&model->conv[l], features->acts + offset[l + 1], g_out, side[l + 1],
                         side[l + 1], g_in, side[l], side[l]);
          t = g_out;
          g_out = g_in;
          g_in = t;
        }
      /* g_out now holds ∂y_c/∂x. */
      for (gsize p = 0; p < n_map; p++)
        map[p] = fabs (model->saliency == HS_SALIENCY_IXG
                       ? (double) (features->acts[p] * g_out[p]) : (double) g_out[p]);
    }

  result = hs_attention_map_new (1, model->grid, model->grid, map, error);
  if (result == NULL)
    return NULL;
  explained[0] = model->classes[cls];
  hs_attention_map_set_tokens (result, explained);
  hs_attention_map_set_no_attn (result, NAN);
  return result;
}
