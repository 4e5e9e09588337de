/* hs-figure-spec.c — the figure spec file (hs-figure-spec.h), read as
 * hostile input with the manifest's strict reader (hs-json-reader): a size
 * limit before reading, UTF-8 checked, nesting bounded by the parser, every
 * member's type checked and the first problem reported with its JSON path.
 * It only describes panels; the CLI loads them. */
#include "hs-figure-spec.h"
#include "hs-figure.h"
#include "hs-model.h"
#include "hs-i18n-private.h"
#include "hs-json-fields-private.h"
#include "hs-safe-open.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>
#include <glib/gstdio.h>

typedef HsJsonFields Reader;

static gboolean
get_texts (Reader *r, HjNode *object, const HsJsonPath *parent, const char *key, char ***out)
{
  PATH_KEY (path, parent, key);
  HjNode *node = hj_member (object, key);
  GPtrArray *list;

  if (node == NULL)
    return TRUE;
  if (node->type != HJ_ARRAY)
    return hs_json_fields_fail (r, &path, _("expected an array of strings"));
  if (node->n > 64)
    return hs_json_fields_fail (r, &path, _("more than %d headers"), 64);
  list = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < node->n; i++)
    {
      PATH_INDEX (item, &path, i);
      HjNode *text = hj_element (node, i);

      if (text->type != HJ_STRING || g_utf8_strlen (text->v.s, -1) > HS_FIGURE_SPEC_MAX_TEXT)
        {
          g_ptr_array_unref (list);
          return hs_json_fields_fail (r, &item, _("expected a string of at most %d characters"),
                       HS_FIGURE_SPEC_MAX_TEXT);
        }
      g_ptr_array_add (list, g_strdup (text->v.s));
    }
  g_ptr_array_add (list, NULL);
  g_strfreev (*out);
  *out = (char **) g_ptr_array_free (list, FALSE);
  return TRUE;
}

static const char * const panel_members[] = {
  "instance", "query", "prompt", "model", "live", "perturbation", "title", "diff", NULL };
static const char * const top_members[] = {
  "format", "version", "columns", "width", "dpi", "font_size", "colormap", "scale",
  "scale_group", "opacity", "threshold", "quantity", "caption", "row_headers", "column_headers", "letters",
  "region_legend", "tags", "panels", NULL };

/* {"diff": [a, b]} (and optionally "title"): two different earlier-or-later
 * panels of the spec that are not differences themselves (checked once all
 * are read). */
static HsFigureSpecPanel *
read_diff (Reader *r, HjNode *object, const HsJsonPath *path, guint n_panels)
{
  PATH_KEY (diff_path, path, "diff");
  HjNode *node = hj_member (object, "diff");
  g_autofree char *title = NULL;
  double v[2];

  if (!hs_json_fields_get_text (r, object, path, "title", &title))
    return NULL;
  if (object->n != (title ? 2u : 1u))
    {
      hs_json_fields_fail (r, path, _("a difference panel has \"diff\" and at most a \"title\""));
      return NULL;
    }
  if (node->type != HJ_ARRAY || node->n != 2)
    {
      hs_json_fields_fail (r, &diff_path, _("expected two panel numbers [A, B]"));
      return NULL;
    }
  for (guint k = 0; k < 2; k++)
    {
      HjNode *item = hj_element (node, k);

      v[k] = item->type == HJ_INT ? (double) item->v.i : NAN;
      if (!(v[k] >= 1 && v[k] <= n_panels))
        {
          PATH_INDEX (item_path, &diff_path, k);
          hs_json_fields_fail (r, &item_path, _("expected a panel number in 1..%u"), n_panels);
          return NULL;
        }
    }
  if (v[0] == v[1])
    {
      hs_json_fields_fail (r, &diff_path, _("a difference needs two different panels"));
      return NULL;
    }
  {
    HsFigureSpecPanel *panel = g_new0 (HsFigureSpecPanel, 1);
    panel->diff_a = (guint) v[0];
    panel->diff_b = (guint) v[1];
    panel->title = g_steal_pointer (&title);
    return panel;
  }
}

static HsFigureSpecPanel *
read_panel (Reader *r, HjNode *object, const HsJsonPath *path, guint n_panels)
{
  HsFigureSpecPanel *panel;
  g_autofree char *live = NULL, *perturbation = NULL;

  if (object->type != HJ_OBJECT)
    {
      hs_json_fields_fail (r, path, _("expected a panel object"));
      return NULL;
    }
  if (!hs_json_fields_check_members (r, object, path, panel_members))
    return NULL;
  if (hj_member (object, "diff") != NULL)
    return read_diff (r, object, path, n_panels);

  panel = g_new0 (HsFigureSpecPanel, 1);
  if (!hs_json_fields_get_text (r, object, path, "instance", &panel->instance)
      || !hs_json_fields_get_text (r, object, path, "query", &panel->query)
      || !hs_json_fields_get_text (r, object, path, "prompt", &panel->prompt)
      || !hs_json_fields_get_text (r, object, path, "model", &panel->model)
      || !hs_json_fields_get_text (r, object, path, "live", &live)
      || !hs_json_fields_get_text (r, object, path, "perturbation", &perturbation)
      || !hs_json_fields_get_text (r, object, path, "title", &panel->title))
    goto bad;
  if (panel->instance == NULL || *panel->instance == '\0')
    {
      hs_json_fields_fail (r, path, _("missing required member \"%s\""), "instance");
      goto bad;
    }
  if ((panel->query == NULL) == (panel->prompt == NULL)
      || (panel->query ? panel->query : panel->prompt)[0] == '\0')
    {
      hs_json_fields_fail (r, path, _("a panel needs one non-empty \"query\" (sentence id) or \"prompt\" (free text)"));
      goto bad;
    }
  if (live != NULL)
    {
      PATH_KEY (live_path, path, "live");

      if (panel->model != NULL)
        {
          hs_json_fields_fail (r, path, _("\"model\" (a precomputed map) and \"live\" exclude each other"));
          goto bad;
        }
      if (g_str_equal (live, "backend-exec"))
        panel->source = HS_FIGURE_SOURCE_EXEC;
      else if (hs_model_is_builtin (live))
        {
          panel->source = HS_FIGURE_SOURCE_LIVE;
          panel->model = g_steal_pointer (&live);
        }
      else
        {
          g_autofree char *names = g_strjoinv (", ", (char **) hs_model_list_builtin ());
          /* built-in names only: a spec never names a file to load as a model */
          hs_json_fields_fail (r, &live_path, _("\"%s\" is not a built-in model (%s) or backend-exec"), live,
                names);
          goto bad;
        }
    }
  else if (panel->prompt != NULL)
    {
      hs_json_fields_fail (r, path, _("a free \"prompt\" needs a live model (\"live\")"));
      goto bad;
    }
  if (perturbation != NULL)
    {
      PATH_KEY (p_path, path, "perturbation");

      if (!g_str_equal (perturbation, "swap-left-right"))
        {
          hs_json_fields_fail (r, &p_path, _("the only perturbation a figure draws is swap-left-right"));
          goto bad;
        }
      if (panel->query == NULL)
        {
          hs_json_fields_fail (r, path, _("a swapped panel needs a \"query\": it is scored against that sentence's target"));
          goto bad;
        }
      panel->swap = TRUE;
    }
  return panel;

bad:
  hs_figure_spec_panel_free (panel);
  return NULL;
}

static gboolean
read_top (Reader *r, HjNode *root, HsFigureSpec *spec)
{
  const HsJsonPath *top = NULL;   /* "$" */
  HjNode *node;
  double columns = 0;
  g_autofree char *format = NULL;

  if (root->type != HJ_OBJECT)
    return hs_json_fields_fail (r, top, _("expected a figure object"));
  if (!hs_json_fields_check_members (r, root, top, top_members)
      || !hs_json_fields_get_text (r, root, top, "format", &format))
    return FALSE;
  if (format != NULL && !g_str_equal (format, "heatscope-figure"))
    {
      PATH_KEY (path, top, "format");
      return hs_json_fields_fail (r, &path, _("expected \"heatscope-figure\""));
    }
  node = hj_member (root, "version");
  if (node != NULL && !(node->type == HJ_INT && node->v.i == 1))
    {
      PATH_KEY (path, top, "version");
      return hs_json_fields_fail (r, &path, _("only version 1 is known"));
    }
  if (!hs_json_fields_get_number (r, root, top, "columns", 1, 64, &columns)
      || !hs_json_fields_get_text (r, root, top, "width", &spec->width)
      || !hs_json_fields_get_number (r, root, top, "dpi", 36, 2400, &spec->dpi)
      || !hs_json_fields_get_number (r, root, top, "font_size", 2, 72, &spec->font_size)
      || !hs_json_fields_get_number (r, root, top, "opacity", 0, 1, &spec->opacity)
      || !hs_json_fields_get_number (r, root, top, "threshold", 0, 1, &spec->threshold)
      || !hs_json_fields_get_text (r, root, top, "colormap", &spec->colormap)
      || !hs_json_fields_get_text (r, root, top, "scale", &spec->scale)
      || !hs_json_fields_get_text (r, root, top, "scale_group", &spec->scale_group)
      || !hs_json_fields_get_text (r, root, top, "quantity", &spec->quantity)
      || !hs_json_fields_get_text (r, root, top, "caption", &spec->caption)
      || !get_texts (r, root, top, "row_headers", &spec->row_headers)
      || !get_texts (r, root, top, "column_headers", &spec->column_headers)
      || !hs_json_fields_get_bool (r, root, top, "letters", &spec->letters)
      || !hs_json_fields_get_bool (r, root, top, "region_legend", &spec->region_legend)
      || !hs_json_fields_get_bool (r, root, top, "tags", &spec->tags))
    return FALSE;
  if (columns != floor (columns))
    {
      PATH_KEY (path, top, "columns");
      return hs_json_fields_fail (r, &path, _("expected a whole number"));
    }
  spec->columns = (guint) columns;
  if (spec->scale_group != NULL
      && !g_strv_contains ((const char * const[]) { "shared", "row", "column", NULL },
                           spec->scale_group))
    {
      PATH_KEY (path, top, "scale_group");
      return hs_json_fields_fail (r, &path, _("expected \"shared\", \"row\" or \"column\""));
    }

  node = hj_member (root, "panels");
  {
    PATH_KEY (path, top, "panels");

    if (node == NULL)
      return hs_json_fields_fail (r, top, _("missing required member \"%s\""), "panels");
    if (node->type != HJ_ARRAY || node->n == 0)
      return hs_json_fields_fail (r, &path, _("expected a non-empty array of panels"));
    if (node->n > HS_FIGURE_SPEC_MAX_PANELS)
      return hs_json_fields_fail (r, &path, _("%u panels, more than %d"), node->n, HS_FIGURE_SPEC_MAX_PANELS);
    for (guint i = 0; i < node->n; i++)
      {
        PATH_INDEX (item, &path, i);
        HsFigureSpecPanel *panel = read_panel (r, hj_element (node, i), &item, node->n);

        if (panel == NULL)
          return FALSE;
        g_ptr_array_add (spec->panels, panel);
      }
    /* a difference is of two panels that are not differences */
    for (guint i = 0; i < spec->panels->len; i++)
      {
        HsFigureSpecPanel *panel = g_ptr_array_index (spec->panels, i);
        PATH_INDEX (item, &path, i);

        for (guint k = 0; panel->diff_a && k < 2; k++)
          {
            HsFigureSpecPanel *of = g_ptr_array_index (spec->panels,
                                                        (k ? panel->diff_b : panel->diff_a) - 1);
            if (of->diff_a)
              return hs_json_fields_fail (r, &item, _("panel %u is itself a difference"),
                           k ? panel->diff_b : panel->diff_a);
          }
      }
  }
  return TRUE;
}

HsFigureSpec *
hs_figure_spec_parse (const char *text, gsize len, const char *display, GError **error)
{
  g_autoptr(HsFigureSpec) spec = NULL;
  HjParser parser = { 0 };
  Reader r = { .display = display, .domain = HS_FIGURE_ERROR,
               .code = HS_FIGURE_ERROR_INVALID, .error = error,
               .max_text = HS_FIGURE_SPEC_MAX_TEXT };
  HjNode *root;
  gboolean ok;

  g_return_val_if_fail (text != NULL || len == 0, NULL);
  g_return_val_if_fail (display != NULL, NULL);
  if (len > HS_FIGURE_SPEC_MAX_BYTES)
    {
      g_set_error (error, HS_FIGURE_ERROR, HS_FIGURE_ERROR_INVALID,
                   _("%s: %zu bytes, over the limit of %d for a figure spec"), display, len,
                   HS_FIGURE_SPEC_MAX_BYTES);
      return NULL;
    }
  root = hs_json_fields_parse (&r, &parser, text, len);
  if (root == NULL)
    {
      hj_parser_clear (&parser);
      return NULL;
    }
  spec = g_new0 (HsFigureSpec, 1);
  spec->panels = g_ptr_array_new_with_free_func ((GDestroyNotify) hs_figure_spec_panel_free);
  spec->dpi = spec->font_size = spec->opacity = spec->threshold = NAN;
  spec->letters = spec->region_legend = spec->tags = -1;
  ok = read_top (&r, root, spec);
  hj_parser_clear (&parser);
  return ok ? g_steal_pointer (&spec) : NULL;
}

HsFigureSpec *
hs_figure_spec_load (const char *path, GError **error)
{
  g_autofree guint8 *data = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  if (!hs_json_fields_read_file (path, HS_FIGURE_SPEC_MAX_BYTES, HS_FIGURE_ERROR,
                                 HS_FIGURE_ERROR_INVALID, HS_FIGURE_ERROR_INVALID, &data, &len,
                                 error))
    return NULL;
  return hs_figure_spec_parse ((const char *) data, len, path, error);
}

/* The owned strings, by offset: freed in one loop each. */
static const gsize panel_texts[] = {
  G_STRUCT_OFFSET (HsFigureSpecPanel, instance), G_STRUCT_OFFSET (HsFigureSpecPanel, query),
  G_STRUCT_OFFSET (HsFigureSpecPanel, prompt), G_STRUCT_OFFSET (HsFigureSpecPanel, model),
  G_STRUCT_OFFSET (HsFigureSpecPanel, title),
};
static const gsize spec_texts[] = {
  G_STRUCT_OFFSET (HsFigureSpec, width), G_STRUCT_OFFSET (HsFigureSpec, colormap),
  G_STRUCT_OFFSET (HsFigureSpec, scale), G_STRUCT_OFFSET (HsFigureSpec, scale_group),
  G_STRUCT_OFFSET (HsFigureSpec, quantity), G_STRUCT_OFFSET (HsFigureSpec, caption),
};

void
hs_figure_spec_panel_free (HsFigureSpecPanel *panel)
{
  for (guint i = 0; panel && i < G_N_ELEMENTS (panel_texts); i++)
    g_free (G_STRUCT_MEMBER (char *, panel, panel_texts[i]));
  g_free (panel);
}

void
hs_figure_spec_free (HsFigureSpec *spec)
{
  if (spec == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (spec_texts); i++)
    g_free (G_STRUCT_MEMBER (char *, spec, spec_texts[i]));
  g_clear_pointer (&spec->panels, g_ptr_array_unref);
  g_strfreev (spec->row_headers);
  g_strfreev (spec->column_headers);
  g_free (spec);
}
