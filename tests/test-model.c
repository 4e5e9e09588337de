/* test-model.c — the built-in model's C forward pass on hand-built weights
 *
 * Tiny models are written here with hand-chosen weights whose outputs can
 * be worked out on paper: the resize, the convolution's stride/padding, the
 * text encoder's LayerNorm, the attention softmax, the No-Attn slot and the
 * error paths.  (Equality with PyTorch on trained weights is
 * test-model-torch.) */
#include <heatscope/heatscope.h>
#include <heatscope/hs-model.h>

#include <math.h>
#include <string.h>

#include "hs-test-util.h"
#include "../src/core/hs-model-private.h"

typedef struct {
  const char *name;
  guint       ndim;
  gsize       shape[4];
  float      *data;   /* owned */
} Tensor;

typedef struct {
  GArray *tensors;    /* of Tensor */
  char   *config;
  char   *vocabulary;
  const char *format;
} Builder;

static float *
add (Builder *b, const char *name, gsize d0, gsize d1, gsize d2, gsize d3)
{
  Tensor t = { name, 0, { d0, d1, d2, d3 }, NULL };
  gsize n = 1;

  while (t.ndim < 4 && t.shape[t.ndim] != 0)
    n *= t.shape[t.ndim++];
  t.data = g_new0 (float, n);
  g_array_append_val (b->tensors, t);
  return t.data;
}

static float *
find (Builder *b, const char *name)
{
  for (guint i = 0; i < b->tensors->len; i++)
    if (strcmp (g_array_index (b->tensors, Tensor, i).name, name) == 0)
      return g_array_index (b->tensors, Tensor, i).data;
  g_assert_not_reached ();
}

static void
remove_tensor (Builder *b, const char *name)
{
  for (guint i = 0; i < b->tensors->len; i++)
    if (strcmp (g_array_index (b->tensors, Tensor, i).name, name) == 0)
      {
        g_free (g_array_index (b->tensors, Tensor, i).data);
        g_array_remove_index (b->tensors, i);
        return;
      }
}

static char *
write_model (Builder *b, const char *dir, const char *file)
{
  g_autoptr(GString) header = g_string_new ("{\"__metadata__\":{");
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autofree char *config = g_strescape (b->config, NULL);
  g_autofree char *vocab = g_strescape (b->vocabulary, NULL);
  char *path = g_build_filename (dir, file, NULL);
  g_autoptr(GError) error = NULL;
  guint8 len[8];

  g_string_append_printf (header, "\"format\":\"%s\",\"name\":\"hand\",\"config\":\"%s\",\"vocabulary\":\"%s\"}",
                          b->format, config, vocab);
  for (guint i = 0; i < b->tensors->len; i++)
    {
      Tensor *t = &g_array_index (b->tensors, Tensor, i);
      gsize n = 1, begin = data->len;

      g_string_append_printf (header, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[", t->name);
      for (guint d = 0; d < t->ndim; d++)
        {
          g_string_append_printf (header, "%s%" G_GSIZE_FORMAT, d ? "," : "", t->shape[d]);
          n *= t->shape[d];
        }
      g_byte_array_append (data, (const guint8 *) t->data, (guint) (n * 4));  /* little-endian host */
      g_string_append_printf (header, "],\"data_offsets\":[%" G_GSIZE_FORMAT ",%u]}", begin, data->len);
    }
  g_string_append_c (header, '}');
  for (int i = 0; i < 8; i++)
    len[i] = (guint8) ((guint64) header->len >> (8 * i));
  g_byte_array_append (out, len, 8);
  g_byte_array_append (out, (const guint8 *) header->str, (guint) header->len);
  g_byte_array_append (out, data->data, data->len);
  g_file_set_contents (path, (const char *) out->data, out->len, &error);
  g_assert_no_error (error);
  return path;
}

static void
builder_free (Builder *b)
{
  for (guint i = 0; i < b->tensors->len; i++)
    g_free (g_array_index (b->tensors, Tensor, i).data);
  g_array_unref (b->tensors);
  g_free (b->config);
  g_free (b->vocabulary);
  g_free (b);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Builder, builder_free)

/* image 4×4 → one conv (stride 2) → 2×2 grid, dim 2, one head; every text
 * weight zero except the embeddings, LayerNorm gains and an identity
 * projection, so a word's feature is its embedding's direction. */
static Builder *
hand_model (gboolean no_attn)
{
  Builder *b = g_new0 (Builder, 1);
  float *w;

  b->tensors = g_array_new (FALSE, FALSE, sizeof (Tensor));
  b->format = "heatscope-gloria-1";
  b->config = g_strdup_printf ("{\"architecture\": \"gloria-tiny\", \"image_size\": 4, \"grid\": 2, \"dim\": 2, "
                               "\"conv\": [[1, 1, 2]], \"text_heads\": 1, \"text_ffn\": 1, "
                               "\"text_positions\": 2, \"tau\": 0.5, \"no_attn\": %s, "
                               "\"normalize_mean\": 0.5, \"normalize_std\": 0.25}",
                               no_attn ? "true" : "false");
  b->vocabulary = g_strdup ("[\"<pad>\", \"<unk>\", \"left\", \"right\"]");
  add (b, "image.conv0.weight", 1, 1, 3, 3);
  add (b, "image.conv0.bias", 1, 0, 0, 0);
  add (b, "image.proj.weight", 2, 1, 0, 0);
  add (b, "image.proj.bias", 2, 0, 0, 0);
  w = add (b, "image.pos", 4, 2, 0, 0);
  /* cells 0..3 point east, north, west, south */
  w[0] = 1; w[3] = 1; w[4] = -1; w[7] = -1;
  w = add (b, "text.emb", 4, 2, 0, 0);
  w[4] = 1; w[5] = -1;     /* left  */
  w[6] = -1; w[7] = 1;     /* right */
  add (b, "text.pos", 2, 2, 0, 0);
  add (b, "text.ln1.weight", 2, 0, 0, 0);
  add (b, "text.ln1.bias", 2, 0, 0, 0);
  add (b, "text.ln2.weight", 2, 0, 0, 0);
  add (b, "text.ln2.bias", 2, 0, 0, 0);
  w = add (b, "text.lnf.weight", 2, 0, 0, 0);
  w[0] = w[1] = 1;
  add (b, "text.lnf.bias", 2, 0, 0, 0);
  add (b, "text.q.weight", 2, 2, 0, 0);
  add (b, "text.q.bias", 2, 0, 0, 0);
  add (b, "text.k.weight", 2, 2, 0, 0);
  add (b, "text.k.bias", 2, 0, 0, 0);
  add (b, "text.v.weight", 2, 2, 0, 0);
  add (b, "text.v.bias", 2, 0, 0, 0);
  add (b, "text.o.weight", 2, 2, 0, 0);
  add (b, "text.o.bias", 2, 0, 0, 0);
  add (b, "text.ff1.weight", 1, 2, 0, 0);
  add (b, "text.ff1.bias", 1, 0, 0, 0);
  add (b, "text.ff2.weight", 2, 1, 0, 0);
  add (b, "text.ff2.bias", 2, 0, 0, 0);
  w = add (b, "text.proj.weight", 2, 2, 0, 0);
  w[0] = w[3] = 1;
  add (b, "text.proj.bias", 2, 0, 0, 0);
  if (no_attn)
    {
      w = add (b, "no_attn", 2, 0, 0, 0);
      w[0] = w[1] = 3;     /* direction (1, 1)/√2 */
    }
  return b;
}

static HsImage *
grey16 (guint width, guint height, const guint16 *values)
{
  g_autoptr(GError) error = NULL;
  HsImage *image = hs_image_new (width, height, 1, 16, &error);

  g_assert_no_error (error);
  memcpy (hs_image_get_data (image), values, sizeof (guint16) * width * height);
  return image;
}

static HsModel *
load_hand (gboolean no_attn)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(Builder) b = hand_model (no_attn);
  g_autofree char *path = write_model (b, dir, "hand.safetensors");
  g_autoptr(GError) error = NULL;
  HsModel *model = hs_model_load (path, &error);

  g_assert_no_error (error);
  return model;
}

static void
check_map (const double *got, const double *want, guint n)
{
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (got[i], want[i], 1e-6);
}

static void
test_attention (void)
{
  g_autoptr(HsModel) model = load_hand (FALSE);
  static const guint16 flat[16] = { 0 };
  g_autoptr(HsImage) image = grey16 (4, 4, flat);
  g_autoptr(HsImageFeatures) features = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(GError) error = NULL;
  double s = sqrt (2.0), big, small, left[4], right[4], mean[4];

  g_assert_cmpuint (hs_model_get_grid_width (model), ==, 2);
  g_assert_false (hs_model_has_no_attn (model));
  g_assert_cmpstr (hs_model_get_name (model), ==, "hand");
  features = hs_model_encode_image (model, image, NULL, &error);
  g_assert_no_error (error);

  /* "left" = (1, −1)/√2: logits (t·v)/τ = √2, −√2, −√2, √2 for E, N, W, S. */
  big = exp (s) / (2 * exp (s) + 2 * exp (-s));
  small = exp (-s) / (2 * exp (s) + 2 * exp (-s));
  left[0] = big; left[1] = small; left[2] = small; left[3] = big;
  right[0] = small; right[1] = big; right[2] = big; right[3] = small;

  map = hs_model_attend (model, features, "Left, RIGHT! zebra", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, 3);
  g_assert_cmpstr (hs_attention_map_get_token (map, 0), ==, "left");
  g_assert_cmpstr (hs_attention_map_get_token (map, 1), ==, "right");
  g_assert_cmpstr (hs_attention_map_get_token (map, 2), ==, "zebra");
  check_map (hs_attention_map_peek_token (map, 0), left, 4);
  check_map (hs_attention_map_peek_token (map, 1), right, 4);
  /* "zebra" is <unk>, whose embedding is zero: a zero feature, uniform map. */
  {
    const double uniform[4] = { 0.25, 0.25, 0.25, 0.25 };

    check_map (hs_attention_map_peek_token (map, 2), uniform, 4);
  }
  for (guint i = 0; i < 4; i++)
    mean[i] = (left[i] + right[i] + 0.25) / 3;
  check_map (hs_attention_map_peek_values (map), mean, 4);
  g_assert_true (isnan (hs_attention_map_get_no_attn (map)));
}

static void
test_no_attn (void)
{
  g_autoptr(HsModel) model = load_hand (TRUE);
  static const guint16 flat[16] = { 0 };
  g_autoptr(HsImage) image = grey16 (4, 4, flat);
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(GError) error = NULL;
  double s = sqrt (2.0), z, want[4], sum = 0;

  g_assert_true (hs_model_has_no_attn (model));
  map = hs_model_attend_image (model, image, "left", &error);
  g_assert_no_error (error);
  /* The No-Attn direction (1, 1)/√2 is orthogonal to "left": logit 0. */
  z = 2 * exp (s) + 2 * exp (-s) + 1;
  want[0] = exp (s) / z; want[1] = exp (-s) / z; want[2] = exp (-s) / z; want[3] = exp (s) / z;
  check_map (hs_attention_map_peek_values (map), want, 4);
  g_assert_cmpfloat_with_epsilon (hs_attention_map_get_no_attn (map), 1 / z, 1e-6);
  for (guint i = 0; i < 4; i++)
    sum += hs_attention_map_peek_values (map)[i];
  g_assert_cmpfloat_with_epsilon (sum + hs_attention_map_get_no_attn (map), 1.0, 1e-6);
}

/* Area resize: 8×8 → 4×4 averages 2×2 blocks; 3×3 → 4×4 splits pixels by
 * overlap: output 1 covers [0.75, 1.5) = ¼ of pixel 0 and ½ of pixel 1,
 * weights 1/3 and 2/3. */
static void
test_resize (void)
{
  g_autoptr(HsModel) model = load_hand (FALSE);
  guint16 big[64], three[9];
  float input[16];
  g_autoptr(GError) error = NULL;

  for (guint y = 0; y < 8; y++)
    for (guint x = 0; x < 8; x++)
      big[y * 8 + x] = (guint16) (1000 * x + 100 * y);
  {
    g_autoptr(HsImage) image = grey16 (8, 8, big);

    g_assert_true (hs_model_image_input (model, image, input, &error));
    g_assert_no_error (error);
    for (guint i = 0; i < 4; i++)
      for (guint j = 0; j < 4; j++)
        {
          double mean = (1000 * (2 * j + 0.5) + 100 * (2 * i + 0.5)) / 65535.0;

          g_assert_cmpfloat_with_epsilon (input[i * 4 + j], (mean - 0.5) / 0.25, 1e-5);
        }
  }

  for (guint i = 0; i < 9; i++)
    three[i] = (guint16) ((i % 3) * 30000);   /* columns 0, 30000, 60000 */
  {
    g_autoptr(HsImage) image = grey16 (3, 3, three);
    double col[4] = { 0, 20000, 40000, 60000 };   /* 0; ⅓·0+⅔·30000; ⅔·30000+⅓·60000; 60000 */

    g_assert_true (hs_model_image_input (model, image, input, &error));
    for (guint i = 0; i < 4; i++)
      for (guint j = 0; j < 4; j++)
        g_assert_cmpfloat_with_epsilon (input[i * 4 + j], (col[j] / 65535.0 - 0.5) / 0.25, 1e-5);
  }
}

/* Convolution stride and zero padding: a kernel with one tap at (ky, kx) =
 * (0, 0) reads input (2·oy − 1, 2·ox − 1); the proj keeps that value in
 * dimension 0, the position embedding adds 1 in dimension 1. */
static void
test_convolution (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(Builder) b = hand_model (FALSE);
  g_autofree char *path = NULL;
  g_autoptr(HsModel) model = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsImageFeatures) features = NULL;
  g_autoptr(GError) error = NULL;
  guint16 pixels[16];
  float *pos;

  find (b, "image.conv0.weight")[0] = 1;
  find (b, "image.conv0.bias")[0] = 0.5f;
  find (b, "image.proj.weight")[0] = 1;
  pos = find (b, "image.pos");
  for (guint j = 0; j < 4; j++)
    {
      pos[2 * j] = 0;
      pos[2 * j + 1] = 1;
    }
  path = write_model (b, dir, "conv.safetensors");
  model = hs_model_load (path, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 16; i++)
    pixels[i] = (guint16) (65535 * (i + 1) / 16);   /* normalised: 4·(i+1)/16 − 2 */
  image = grey16 (4, 4, pixels);
  features = hs_model_encode_image (model, image, NULL, &error);
  g_assert_no_error (error);
  for (guint oy = 0; oy < 2; oy++)
    for (guint ox = 0; ox < 2; ox++)
      {
        int iy = 2 * (int) oy - 1, ix = 2 * (int) ox - 1;
        double x = (iy < 0 || ix < 0) ? 0.0 : 4.0 * (iy * 4 + ix + 1) / 16.0 - 2.0;
        double a = MAX (x + 0.5, 0.0), norm = sqrt (a * a + 1);
        const float *r = features->regions + (oy * 2 + ox) * 2;

        g_assert_cmpfloat_with_epsilon (r[0], a / norm, 1e-6);
        g_assert_cmpfloat_with_epsilon (r[1], 1 / norm, 1e-6);
      }
}

static void
test_errors (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsModel) a = load_hand (FALSE);
  g_autoptr(HsModel) b = load_hand (FALSE);
  static const guint16 flat[16] = { 0 };
  g_autoptr(HsImage) image = grey16 (4, 4, flat);
  g_autoptr(HsImageFeatures) features = hs_model_encode_image (a, image, NULL, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  HsAttentionMap *map;
  HsModel *model;
  HsImageFeatures *f;

  map = hs_model_attend (a, features, " ,.;! ", &error);
  g_assert_null (map);
  g_assert_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_EMPTY_PROMPT);
  g_clear_error (&error);

  map = hs_model_attend (b, features, "left", &error);
  g_assert_null (map);
  g_assert_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_INVALID);
  g_clear_error (&error);

  g_cancellable_cancel (cancellable);
  f = hs_model_encode_image (a, image, cancellable, &error);
  g_assert_null (f);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  model = hs_model_load ("/nonexistent/m.safetensors", &error);
  g_assert_null (model);
  g_assert_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_IO);
  g_clear_error (&error);

  model = hs_model_load_builtin ("nosuchmodel", &error);
  g_assert_null (model);
  g_assert_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* Malformed variants of a good file: each names the file and the problem. */
  {
    static const struct { const char *what; const char *needle; } cases[] = {
      { "format", "format" },
      { "missing", "text.q.weight" },
      { "shape", "image.pos" },
      { "config", "grid" },
      { "vocab", "<unk>" },
      { "nan", "non-finite" },
      { "conv-chain", "channels" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autoptr(Builder) bad = hand_model (FALSE);
        g_autofree char *file = g_strdup_printf ("bad-%s.safetensors", cases[i].what);
        g_autofree char *path = NULL;

        if (i == 0)
          bad->format = "pytorch";
        else if (i == 1)
          remove_tensor (bad, "text.q.weight");
        else if (i == 2)
          {
            remove_tensor (bad, "image.pos");
            add (bad, "image.pos", 5, 2, 0, 0);
          }
        else if (i == 3)
          {
            g_free (bad->config);
            bad->config = g_strdup ("{\"image_size\": 4, \"grid\": 3, \"dim\": 2, \"conv\": [[1, 1, 2]], "
                                    "\"text_heads\": 1, \"text_ffn\": 1, \"text_positions\": 2, \"tau\": 0.5, "
                                    "\"no_attn\": false, \"normalize_mean\": 0.5, \"normalize_std\": 0.25}");
          }
        else if (i == 4)
          {
            g_free (bad->vocabulary);
            bad->vocabulary = g_strdup ("[\"<pad>\", \"unk\", \"left\", \"right\"]");
          }
        else if (i == 5)
          find (bad, "text.emb")[3] = NAN;
        else
          {
            g_free (bad->config);
            bad->config = g_strdup ("{\"image_size\": 4, \"grid\": 2, \"dim\": 2, \"conv\": [[2, 1, 2]], "
                                    "\"text_heads\": 1, \"text_ffn\": 1, \"text_positions\": 2, \"tau\": 0.5, "
                                    "\"no_attn\": false, \"normalize_mean\": 0.5, \"normalize_std\": 0.25}");
          }
        path = write_model (bad, dir, file);
        model = hs_model_load (path, &error);
        g_test_message ("case %s: %s", cases[i].what, error ? error->message : "(none)");
        g_assert_null (model);
        g_assert_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_FORMAT);
        g_assert_nonnull (strstr (error->message, file));
        if (strstr (error->message, cases[i].needle) == NULL)
          g_error ("case %s: \"%s\" lacks \"%s\"", cases[i].what, error->message, cases[i].needle);
        g_clear_error (&error);
      }
  }
}

/* Prompts longer than the position table reuse its last row. */
static void
test_long_prompt (void)
{
  g_autoptr(HsModel) model = load_hand (FALSE);
  static const guint16 flat[16] = { 0 };
  g_autoptr(HsImage) image = grey16 (4, 4, flat);
  g_autoptr(GString) prompt = g_string_new (NULL);
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 500; i++)
    g_string_append (prompt, i % 2 ? "right " : "left ");
  map = hs_model_attend_image (model, image, prompt->str, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hs_attention_map_get_n_tokens (map), ==, 500);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (hs_attention_map_peek_values (map)[i], 0.25, 1e-6);
}

static void
test_cache (void)
{
  g_autofree char *dir = hs_test_make_tmpdir ();
  g_autoptr(Builder) b = hand_model (TRUE);
  g_autofree char *path = write_model (b, dir, "cache.safetensors");
  g_autoptr(HsModelCache) cache = hs_model_cache_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HsModel) m1 = hs_model_cache_get_model (cache, path, &error);
  g_autoptr(HsModel) m2 = hs_model_cache_get_model (cache, path, &error);
  static const guint16 flat[16] = { 0 };
  g_autoptr(HsImage) image = grey16 (4, 4, flat);
  g_autoptr(HsImage) other = grey16 (4, 4, flat);
  g_autoptr(HsImageFeatures) f1 = NULL, f2 = NULL, f3 = NULL;
  g_autoptr(HsAttentionMap) direct = NULL, via = NULL;

  g_assert_no_error (error);
  g_assert_true (m1 == m2);
  f1 = hs_model_cache_get_features (cache, m1, image, NULL, &error);
  f2 = hs_model_cache_get_features (cache, m1, image, NULL, &error);
  g_assert_true (f1 == f2);
  f3 = hs_model_cache_get_features (cache, m1, other, NULL, &error);
  g_assert_true (f3 != f1);

  direct = hs_model_attend_image (m1, image, "left lung", &error);
  g_assert_no_error (error);
  via = hs_model_phantom_attend (image, "left lung", path, cache, &error);
  g_assert_no_error (error);
  check_map (hs_attention_map_peek_values (via), hs_attention_map_peek_values (direct), 4);
  g_assert_cmpfloat (hs_attention_map_get_no_attn (via), ==, hs_attention_map_get_no_attn (direct));
  g_assert_null (hs_model_phantom_attend (image, "left", "nosuchmodel", cache, &error));
  g_assert_error (error, HS_MODEL_ERROR, HS_MODEL_ERROR_NOT_FOUND);
}

static void
test_builtin (void)
{
  g_autoptr(GError) error = NULL;

  for (const char * const *name = hs_model_list_builtin (); *name != NULL; name++)
    {
      g_autofree char *path = hs_model_find_builtin (*name);
      g_autoptr(HsModel) model = NULL;

      if (path == NULL)
        {
          g_test_skip ("built-in weights not found in data/models");
          return;
        }
      model = hs_model_load_builtin (*name, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (hs_model_get_grid_width (model), ==, 16);
      g_assert_cmpuint (hs_model_get_grid_height (model), ==, 16);
      g_assert_cmpint (hs_model_has_no_attn (model), ==, strcmp (*name, "noattn") == 0);
      g_assert_nonnull (hs_model_get_metadata (model, "training"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/model/attention", test_attention);
  g_test_add_func ("/hs/model/no-attn", test_no_attn);
  g_test_add_func ("/hs/model/resize", test_resize);
  g_test_add_func ("/hs/model/convolution", test_convolution);
  g_test_add_func ("/hs/model/errors", test_errors);
  g_test_add_func ("/hs/model/long-prompt", test_long_prompt);
  g_test_add_func ("/hs/model/cache", test_cache);
  g_test_add_func ("/hs/model/builtin", test_builtin);
  return g_test_run ();
}
