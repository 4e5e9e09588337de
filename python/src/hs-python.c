/* hs-python.c — the few entry points the Python package (python/heatscope)
 * needs beyond libheatscope's public API, which it calls through ctypes.
 *
 * Built with the whole of libheatscope into one shared module
 * (build/python/heatscope/_libheatscope.so).  Everything here is plain C
 * types so that ctypes needs no knowledge of GLib structs; every number still
 * comes from the library's own functions. */
#include <heatscope/heatscope.h>

#include <math.h>
#include <string.h>

#define HS_PY_API __attribute__ ((visibility ("default")))

/* Mirrored by heatscope/_lib.py (class ScoreRequest): change both. */
typedef struct {
  const double *values;             /* n_tokens·height·width (or height·width when n_tokens = 0);
                                     * NULL: the baselines alone */
  guint         n_tokens, height, width;
  double        no_attn;            /* NAN = none */
  const double *perturbed;          /* NULL, or a second map of the same image */
  guint         p_tokens, p_height, p_width;
  double        p_no_attn;
  guint         image_width, image_height;
  const double *boxes;              /* 4·n_boxes: x1, y1, x2, y2 */
  guint         n_boxes;
  const char * const *mask_paths;   /* n_mask_paths files (PNG/JPEG) */
  guint         n_mask_paths;
  const guint8 * const *mask_data;  /* n_mask_data rasters, 8-bit, non-zero = inside */
  const guint  *mask_widths, *mask_heights;
  guint         n_mask_data;
  const char   *image_path;         /* image for the baselines: a file, or ... */
  const guint16 *image_data;        /* ... image_width·image_height·image_channels samples */
  guint         image_channels, image_depth;
  const char   *protocol;           /* "default", "gloria", "chexlocalize" */
  const char   *upsample;           /* NULL, "bilinear", "nearest" */
  guint         eval_size;
  double        threshold;          /* NAN = Otsu */
  int           baselines;
  guint32       seed;
  const char   *thresholds;         /* chexlocalize: CheXlocalize's threshold table (CSV), or NULL */
  const char   *query_class;        /* the class label that picks its row */
} HsPyScoreRequest;

HS_PY_API void  hs_py_free  (void *p);
HS_PY_API char *hs_py_score (const HsPyScoreRequest *req, char **error);
HS_PY_API char *hs_py_validate (const char *path);
HS_PY_API void  hs_py_instance_set_size (HsInstance *instance, guint width, guint height);
HS_PY_API void  hs_py_instance_set_abnormal (HsInstance *instance, int abnormal);
HS_PY_API void  hs_py_map_ref_set_no_attn (HsMapRef *ref, double no_attn);
HS_PY_API HsImage *hs_py_image_new (guint width, guint height, guint channels, guint depth,
                                    const guint16 *data, char **error);

void
hs_py_free (void *p)
{
  g_free (p);
}

static char *
fail (char **error, char *message)
{
  if (error != NULL)
    *error = message;
  else
    g_free (message);
  return NULL;
}

HsImage *
hs_py_image_new (guint width, guint height, guint channels, guint depth,
                 const guint16 *data, char **error)
{
  g_autoptr(GError) err = NULL;
  HsImage *image = hs_image_new (width, height, channels, depth, &err);

  if (image == NULL)
    return (HsImage *) fail (error, g_strdup (err->message));
  memcpy (hs_image_get_data (image), data, (gsize) width * height * channels * sizeof (guint16));
  return image;
}

/* The same steps and messages as `heatscope-cli score` (src/cli/hs-cli-score.c),
 * from arrays instead of files. */
char *
hs_py_score (const HsPyScoreRequest *req, char **error)
{
  g_autoptr(GError) err = NULL;
  g_autoptr(HsAttentionMap) map = NULL;
  g_autoptr(HsAttentionMap) perturbed = NULL;
  g_autoptr(HsImage) image = NULL;
  g_autoptr(HsTarget) target = NULL;
  HsScoreOptions options;
  HsEvalGrid grid;
  HsScores scores;
  HsComparison cmp;
  HsScores base[HS_N_BASELINES];
  guint W = req->image_width, H = req->image_height;
  const char *threshold_source = NULL;

  hs_score_options_init (&options);
  if (req->protocol != NULL && !hs_protocol_from_string (req->protocol, &options.protocol))
    return fail (error, g_strdup_printf ("unknown protocol '%s' (default, gloria or chexlocalize)",
                                         req->protocol));
  if (req->upsample != NULL)
    {
      if (!hs_upsample_from_string (req->upsample, &options.upsample))
        return fail (error, g_strdup_printf ("unknown upsample '%s' (bilinear or nearest)", req->upsample));
      if (options.protocol != HS_PROTOCOL_DEFAULT)
        return fail (error, g_strdup ("upsample applies to the default protocol only (gloria is "
                                      "nearest, chexlocalize bilinear)"));
    }
  if (req->eval_size > 0 && options.protocol != HS_PROTOCOL_DEFAULT)
    return fail (error, g_strdup ("eval_size applies to the default protocol only"));
  options.eval_size = req->eval_size;
  if (!isnan (req->threshold))
    {
      if (options.protocol != HS_PROTOCOL_CHEXLOCALIZE || !isfinite (req->threshold))
        return fail (error, g_strdup ("threshold applies to the chexlocalize protocol only and must be finite"));
      options.threshold = req->threshold;
    }
  if (req->thresholds != NULL || req->query_class != NULL)
    {
      g_autoptr(HsThresholdTable) table = NULL;

      if (req->thresholds == NULL || req->query_class == NULL)
        return fail (error, g_strdup ("thresholds and query go together"));
      if (options.protocol != HS_PROTOCOL_CHEXLOCALIZE || !isnan (req->threshold))
        return fail (error, g_strdup ("thresholds applies to the chexlocalize protocol only, without threshold"));
      table = hs_threshold_table_load (req->thresholds, &err);
      if (table == NULL)
        return fail (error, g_strdup (err->message));
      threshold_source = hs_threshold_table_lookup (table, req->query_class, &options.threshold)
                         ? "table" : "otsu";
    }
  if (W == 0 || H == 0)
    return fail (error, g_strdup ("the image size must be positive"));

  if (req->values == NULL && !req->baselines)
    return fail (error, g_strdup ("missing map (or baselines alone to score the null baselines)"));
  if (req->values == NULL && (req->perturbed != NULL || !isnan (req->no_attn)))
    return fail (error, g_strdup_printf ("%s needs a map", req->perturbed != NULL ? "perturbed" : "no_attn"));
  if (req->values != NULL)
    {
      map = hs_attention_map_new (req->n_tokens, req->height, req->width, req->values, &err);
      if (map == NULL)
        return fail (error, g_strdup_printf ("map: %s", err->message));
    }
  if (map != NULL && !isnan (req->no_attn))
    {
      if (!(req->no_attn >= 0 && req->no_attn <= 1))   /* as score --no-attn */
        return fail (error, g_strdup_printf ("no_attn must be a share in [0, 1], not %g", req->no_attn));
      hs_attention_map_set_no_attn (map, req->no_attn);
    }
  if (req->perturbed != NULL)
    {
      perturbed = hs_attention_map_new (req->p_tokens, req->p_height, req->p_width, req->perturbed, &err);
      if (perturbed == NULL)
        return fail (error, g_strdup_printf ("perturbed: %s", err->message));
      if (req->p_height != req->height || req->p_width != req->width)
        return fail (error, g_strdup_printf ("perturbed: shape %u × %u differs from the map's %u × %u",
                                             req->p_height, req->p_width, req->height, req->width));
      if (!isnan (req->p_no_attn))
        hs_attention_map_set_no_attn (perturbed, req->p_no_attn);
    }
  if (req->image_path != NULL)
    {
      image = hs_image_load (req->image_path, &err);
      if (image == NULL)
        return fail (error, strstr (err->message, req->image_path) != NULL
                              ? g_strdup (err->message)
                              : g_strdup_printf ("%s: %s", req->image_path, err->message));
    }
  else if (req->image_data != NULL)
    {
      char *message = NULL;
      image = hs_py_image_new (W, H, req->image_channels, req->image_depth, req->image_data, &message);
      if (image == NULL)
        return fail (error, message);
    }
  if (image != NULL && (hs_image_get_width (image) != W || hs_image_get_height (image) != H))
    return fail (error, g_strdup_printf ("%s: the image is %u×%u but size is %u×%u",
                                         req->image_path ? req->image_path : "image",
                                         hs_image_get_width (image), hs_image_get_height (image), W, H));
  if (req->baselines && image == NULL)
    return fail (error, g_strdup ("baselines need the image: the sobel and laplace baselines are "
                                  "computed on the image"));

  if (!hs_eval_grid_init (&grid, options.protocol, W, H, options.eval_size, &err))
    return fail (error, g_strdup (err->message));
  target = hs_target_new (&grid);
  for (guint i = 0; i < req->n_boxes; i++)
    {
      const double *v = req->boxes + 4 * (gsize) i;
      HsBox box = { v[0], v[1], v[2], v[3] };

      if (!isfinite (v[0]) || !isfinite (v[1]) || !isfinite (v[2]) || !isfinite (v[3]))
        return fail (error, g_strdup_printf ("box %u is not four finite numbers x1,y1,x2,y2", i));
      /* The one box check (hs_box_check), as the CLI's score --box makes it. */
      if (!hs_box_check (&box, W, H, &err) || !hs_target_add_box (target, &box, &err))
        return fail (error, g_strdup_printf ("box %g,%g,%g,%g: %s", v[0], v[1], v[2], v[3], err->message));
    }
  for (guint i = 0; i < req->n_mask_paths; i++)
    {
      const char *path = req->mask_paths[i];
      g_autoptr(HsImage) mask = hs_image_load (path, &err);

      if (mask == NULL || !hs_target_add_mask (target, mask, &err))
        return fail (error, strstr (err->message, path) != NULL
                              ? g_strdup (err->message) : g_strdup_printf ("%s: %s", path, err->message));
    }
  for (guint i = 0; i < req->n_mask_data; i++)
    {
      guint w = req->mask_widths[i], h = req->mask_heights[i];
      g_autoptr(HsImage) mask = hs_image_new (w, h, 1, 8, &err);

      if (mask == NULL)
        return fail (error, g_strdup_printf ("mask %u: %s", i, err->message));
      {
        guint16 *d = hs_image_get_data (mask);
        const guint8 *s = req->mask_data[i];
        for (gsize k = 0; k < (gsize) w * h; k++)
          d[k] = s[k];
      }
      if (!hs_target_add_mask (target, mask, &err))
        return fail (error, g_strdup_printf ("mask %u: %s", i, err->message));
    }

  if (map != NULL && !hs_score_map (map, target, &options, &scores, &err))
    return fail (error, g_strdup_printf ("map: %s", err->message));
  if (perturbed != NULL && !hs_compare_maps (map, perturbed, target, &options, &cmp, &err))
    return fail (error, g_strdup_printf ("perturbed: %s", err->message));
  for (guint b = 0; req->baselines && b < HS_N_BASELINES; b++)
    if (!hs_baseline_score ((HsBaseline) b, target, image,
                            map != NULL ? hs_attention_map_get_width (map) : HS_BASELINE_GRID_WITHOUT_MAP,
                            map != NULL ? hs_attention_map_get_height (map) : HS_BASELINE_GRID_WITHOUT_MAP,
                            req->seed, &options, &base[b], &err))
      return fail (error, g_strdup_printf ("%s baseline: %s", hs_baseline_to_string ((HsBaseline) b),
                                           err->message));
  return hs_score_report_to_json (map != NULL ? &scores : NULL, threshold_source, options.threshold,
                                  perturbed != NULL ? &cmp : NULL,
                                  req->baselines ? base : NULL);
}

/* Every problem as the lines `heatscope-cli validate` prints, or NULL when
 * the dataset is valid. */
char *
hs_py_validate (const char *path)
{
  g_autoptr(GPtrArray) problems = NULL;
  GString *out;

  if (hs_dataset_validate (path, &problems))
    return NULL;
  out = g_string_new (NULL);
  for (guint i = 0; problems != NULL && i < problems->len; i++)
    {
      g_autofree char *line = hs_problem_to_string (g_ptr_array_index (problems, i));
      g_string_append_printf (out, "%s\n", line);
    }
  if (out->len == 0)
    g_string_append (out, "invalid dataset\n");
  return g_string_free (out, FALSE);
}

void
hs_py_instance_set_size (HsInstance *instance, guint width, guint height)
{
  instance->width = width;
  instance->height = height;
}

void
hs_py_instance_set_abnormal (HsInstance *instance, int abnormal)
{
  instance->abnormal = abnormal != 0;
}

void
hs_py_map_ref_set_no_attn (HsMapRef *ref, double no_attn)
{
  ref->no_attn = no_attn;
}
